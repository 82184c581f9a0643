// SpecTask: a task composed from a spec file (docs/TASKS.md, "Task specs"), as Isaac Lab's
// manager-based environments compose theirs: an action map, commands, observation terms (a
// signal scaled and clipped), reward terms (a library function with a scale per second),
// terminations and reset events, each with named parameters validated against the robot before
// any step. The built-in tasks are spec files like any user's (robots/tasks/).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/batch_terms.h"
#include "env/task.h"
#include "env/task_terms.h"

namespace flashnerd::env {

struct ObservationTerm {
  std::string name, about;
  Signal signal;
  std::vector<double> scale;  // per component
  double clip = 0;            // 0: none
};

class SpecTask : public Task {
 public:
  // The spec at `path` for `robot` (the robot its "robot" field names); throws naming the file,
  // the field and the fix for anything the robot or the library cannot honour.
  static std::unique_ptr<SpecTask> load(const std::string& path, const sim::Robot& robot);
  SpecTask(const nlohmann::json& spec, const std::string& file, const sim::Robot& robot);

  std::string name() const override { return name_; }
  std::string source() const override { return source_; }
  // A built-in task is recorded by its name rather than its file's path.
  void set_source(const std::string& source) { source_ = source; }
  int observation_dim() const override { return obs_dim_; }
  int action_dim() const override { return signals_.action_dim(); }
  int control_steps() const override { return control_steps_; }
  int episode_steps() const override { return episode_steps_; }
  double action_bound() const override { return signals_.action_bound(); }
  std::vector<std::pair<std::string, int>> observation_terms() const override;
  TaskDescription describe() const override;
  std::vector<int> tracked_bodies() const override { return signals_.tracked_bodies(); }

  void allocate(int envs) override;
  void reset(int env, Rng& rng, double* q, double* v) override;
  bool reset_objects(int env, Rng& rng, double* q, double* v) override;
  void command(int env, const float* action, double* u) const override;
  bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) override;
  void evaluate_batch(const Backend& backend, const float* actions) override;
  void observe(int env, const Backend& backend, float* obs) const override;
  bool observes_batch() const override { return batch_obs_dim_ > 0; }
  void observe_batch(const Backend& backend, float* const* rows) override;
  void io_state(StateIo& io) override;

  // Adds batch terms (Python's): their reward terms after the spec's, their termination beside
  // the spec's, their observation columns after the spec's. Before the task's environments are allocated (a VecEnv does that); throws for
  // a term name the task already has.
  void add_batch_terms(std::shared_ptr<BatchTerms> terms);
  // The slot of a robot body whose world pose the backend tracks for this task (added if new);
  // throws naming the body when the robot lacks it. Before the environments are allocated.
  int track_body(const std::string& body);

  // Commands by name (policy-eval's fixed velocity commands): index (-1 if none), width, set.
  int command_index(const std::string& name) const { return signals_.command_index(name); }
  const std::vector<CommandSpec>& commands() const { return signals_.commands(); }
  int command_width(int c) const { return int(signals_.commands()[size_t(c)].ranges.size()); }
  const double* command_values(int env, int c) const { return signals_.command(env, c); }
  void set_command(int env, int c, const double* values);
  // Periods reward term k judges in a full episode (a "within" term judged when a command is
  // redrawn: its successes per episode out of this many); 0 for any other term.
  int judged_periods(size_t k) const;
  // While held, commands are neither drawn at resets nor redrawn on schedule.
  void hold_commands(bool hold) { hold_commands_ = hold; }

 private:
  void parse_commands(SpecReader& r);
  void parse_uniform_ranges(SpecReader& c, CommandSpec& spec);  // a uniform command's ranges
  void parse_orientation(SpecReader& c, CommandSpec& spec);     // an orientation's draw
  void parse_observations(SpecReader& r);
  void parse_rewards(SpecReader& r);

  std::string name_, source_, summary_, termination_about_, reset_about_, action_about_;
  TaskSignals signals_;
  int obs_dim_ = 0, batch_obs_dim_ = 0, episode_steps_ = 0, control_steps_ = 1, envs_ = 0;
  bool zero_pose_ = false, hold_commands_ = false;
  std::vector<ObservationTerm> observations_;
  std::vector<std::unique_ptr<RewardFunction>> rewards_;
  std::vector<std::string> reward_about_;
  std::vector<std::unique_ptr<TerminationCondition>> terminations_;
  std::vector<std::unique_ptr<ResetEvent>> resets_, object_resets_;
  // batch terms, each with its values (envs, its terms) and termination flags (envs) of the
  // step, and its observation columns (envs, obs_width) from obs_first on in a row
  struct BatchSet {
    std::shared_ptr<BatchTerms> terms;
    int first_term, count;
    std::vector<double> values;
    std::vector<uint8_t> terminated;
    int obs_first = 0, obs_width = 0;
    std::vector<float> columns;
  };
  std::vector<BatchSet> batch_;
};

// The task's planar velocity command: a command named "velocity" of (vx, vy, yaw rate), the
// one policy-eval --commands fixes; -1 if the task has none.
int velocity_command_index(const SpecTask& task);

// The spec file of a task: a path (ending in .json) as it is, or a built-in task's name as
// robots/tasks/NAME.json. Throws naming the known tasks for an unknown name.
std::string task_spec_path(const std::string& name_or_path);
bool is_task_spec_path(const std::string& name_or_path);  // ends in .json
// Built-in spec tasks: robots/tasks/*.json that are task specs, by name.
std::vector<std::string> builtin_spec_task_names();
// Whether a JSON file is a task spec ("format": "flashnerd-task").
bool is_task_spec(const nlohmann::json& j);
// The robot a spec names: a built-in robot's name, or a robot file resolved against the spec's folder.
std::string spec_task_robot(const std::string& path);
// The same for a spec read already: `file` names it in errors, a robot file resolves against `folder`.
std::string spec_task_robot(const nlohmann::json& spec, const std::string& file, const std::string& folder);

}  // namespace flashnerd::env
