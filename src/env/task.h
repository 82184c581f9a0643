// Task: what an environment asks of the robot (docs/DESIGN.md §9). Observations, named reward terms,
// terminations (kept apart from time-outs), command resampling and the reset distribution,
// as functions of the backend's states and the policy's actions: no physics here. A task
// keeps a little per-environment state of its own (commands, last action, foot air time),
// preallocated by allocate(); every per-environment call touches only that environment.
#pragma once

#include <string>
#include <vector>

#include "core/blob.h"
#include "core/rng.h"
#include "env/backend.h"
#include "env/task_description.h"

namespace flashnerd::env {

// A named, weighted reward term: env::Task's terms and mpc::PlanTask's.
struct RewardTerm {
  std::string name;
  // env::Task: per second, the reward of a step is scale · value · dt (VecEnv applies it).
  // mpc::PlanTask: per step, applied by the task inside each term's formula.
  double scale;
  // Added after negative rewards are clipped (legged_gym adds its termination term after the
  // clip, so a fall still costs when only positive rewards are kept).
  bool after_clip = false;
  // The task's goal (velocity tracking, a reached target, staying up) rather than shaping (the
  // penalties, feet air time): a penalty curriculum (rl/penalty_ramp.h) leaves it alone.
  bool objective = false;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  // What make_task rebuilds the task from: a built-in task's name, or a spec file's absolute path
  // (policies and runs record it).
  virtual std::string source() const { return name(); }
  virtual int observation_dim() const = 0;
  virtual int action_dim() const = 0;
  // Backend control steps per action (the policy runs slower than the control loop, e.g.
  // 30 Hz over hand16's 240 Hz); the command is held over them.
  virtual int control_steps() const { return 1; }
  // Steps after which an episode times out (truncation, bootstrapped by PPO).
  virtual int episode_steps() const = 0;
  // Actions are clamped to [-action_bound, action_bound] before they become commands (the
  // action space's bounds for Gymnasium-style users).
  virtual double action_bound() const { return 1e30; }
  const std::vector<RewardTerm>& reward_terms() const { return terms_; }
  // Changes one term's scale (per second, as the task's own); throws naming the known terms.
  void set_reward_scale(const std::string& term, double scale);
  // Names of the observation's parts with their widths, in order (for logs and docs).
  virtual std::vector<std::pair<std::string, int>> observation_terms() const = 0;
  // Robot bodies whose world pose the task reads (Backend::track_bodies; VecEnv asks for them).
  virtual std::vector<int> tracked_bodies() const { return {}; }
  // The task in words (env/task_description.h): the Tasks page and docstrings.
  virtual TaskDescription describe() const = 0;
  // Rewards below zero are clipped (legged_gym's only_positive_rewards); off unless set.
  bool clip_negative_reward() const { return clip_negative_; }
  void set_clip_negative_reward(bool clip) { clip_negative_ = clip; }

  virtual void allocate(int envs) = 0;
  // A new episode for env: its start state (robot q, v) and the task's own state.
  virtual void reset(int env, Rng& rng, double* q, double* v) = 0;
  // A new episode's objects (a backend with objects, e.g. the cube of hand16): writes their
  // q, v (object_nq, object_nv) and returns true; false (the default) leaves them as they are.
  virtual bool reset_objects(int env, Rng& rng, double* q, double* v) { return false; }
  // Backend commands (nu) for env's action (action_dim).
  virtual void command(int env, const float* action, double* u) const = 0;
  // After the backend stepped: each reward term's unscaled value (reward_terms().size()),
  // returns whether env terminated; updates the task's state (last action, command
  // resampling with rng).
  virtual bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) = 0;
  // Once per step, after the backend stepped and before any evaluate(): terms computed for the
  // whole batch in one call (env/batch_terms.h); actions (envs, action_dim). None by default.
  virtual void evaluate_batch(const Backend& backend, const float* actions) {}
  // Observation (observation_dim) of env at the backend's current state.
  virtual void observe(int env, const Backend& backend, float* obs) const = 0;
  // Whether observe() leaves columns that observe_batch() fills for the whole batch in one call.
  virtual bool observes_batch() const { return false; }
  // After observe() of the environments with rows[e] != nullptr (the rest are skipped): fills
  // the batch columns of each such row at the backend's current state.
  virtual void observe_batch(const Backend& backend, float* const* rows) {}

  // The task's per-environment state (commands, last actions...), saved or loaded field by
  // field in one list, for a checkpoint of a run; a stateless task names none.
  virtual void io_state(StateIo& io) = 0;

 protected:
  std::vector<RewardTerm> terms_;  // set by each task's constructor

 private:
  bool clip_negative_ = false;
};

}  // namespace flashnerd::env
