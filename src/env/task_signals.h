// Task signals: the named quantities a spec task's terms read (docs/TASKS.md, "Task specs").
// An observation term scales and clips a signal, a reward term penalises or tracks one, a
// termination bounds one. A signal is read for one environment at the backend's current state
// (plus the action of the step being evaluated); no physics, no allocation. TaskSignals owns
// the robot's tables (joint addresses, actuator laws, tracked bodies) and the per-environment
// state signals remember (last action, last velocities, commands).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/blob.h"
#include "core/enum_names.h"
#include "core/rng.h"
#include "env/backend.h"
#include "env/spec_reader.h"

namespace flashnerd::env {

constexpr int kMaxSignalWidth = 64;

enum class SignalKind {
  BaseLinVel, BaseAngVel, ProjectedGravity, BaseHeight, BasePos,  // floating base, base frame velocities
  JointPos, JointPosSin, JointPosCos, JointVel, JointAcc, JointTorque,
  Action, LastAction, Command, BodyPos, BodyQuat, ProbeClearance, ObjectPos, ObjectVel
};
extern const EnumName<SignalKind> kSignalNames[19];

// A command: values each episode draws uniformly in per-component ranges and redraws every
// resample_steps (0: once per episode); planar commands below stand_below are set to stand.
struct CommandSpec {
  std::string name;
  std::vector<std::string> components;
  std::vector<std::array<double, 2>> ranges;
  int resample_steps = 0;
  double stand_below = 0;  // |(c0, c1)| below this: c0 = c1 = 0 (legged_gym's small commands)
};

// One signal as a term names it, resolved against the robot: which components of which kind.
struct Signal {
  SignalKind kind = SignalKind::BaseHeight;
  int slot = 0;                 // Command: which command; BodyPos/BodyQuat: which tracked body
  std::vector<int> components;  // indices into the kind's full vector (joints: joint list positions)
  bool relative = false;        // JointPos: minus the nominal pose
  std::string label;            // "base_lin_vel[0,1]", for descriptions
  int width() const { return int(components.size()); }
};

// How an action becomes backend commands: joint-position targets around the nominal command
// (target = nominal + scale · a), or a fraction of each actuator's control range (a ∈ [−1, 1]).
enum class ActionKind { JointPosition, ActuatorRange };
extern const EnumName<ActionKind> kActionKindNames[2];

class TaskSignals {
 public:
  explicit TaskSignals(const sim::Robot& robot);
  const sim::Robot& robot() const { return *robot_; }
  // Seconds per task step: the control timestep times the control steps per action.
  double dt() const { return dt_; }
  void set_control_steps(int steps) { dt_ = robot_->control_timestep() * steps; }
  int action_dim() const { return int(actuated_.size()); }

  // Reads {"signal": NAME, "index" | "joints" | "body" | "command" | "probes"} from r.
  Signal parse(SpecReader& r, const std::string& key = "signal");
  void add_command(CommandSpec c);
  const std::vector<CommandSpec>& commands() const { return commands_; }
  int command_index(const std::string& name) const;  // -1 if none
  // Body ids to track (Backend::track_bodies), in slot order.
  const std::vector<int>& tracked_bodies() const { return bodies_; }
  // Joint list positions of named joints (robot layout order), or the actuated joints.
  std::vector<int> joints(SpecReader& r, const std::string& key);
  // q and v indices (robot block) of joint list position j.
  int qadr(int j) const { return qadr_[size_t(j)]; }
  int vadr(int j) const { return vadr_[size_t(j)]; }
  const std::vector<int>& actuated_joints() const { return actuated_; }
  // Probe indices grouped by body ("feet"): the probes of each named body, or one group per
  // body that carries probes.
  std::vector<std::vector<int>> probe_groups(SpecReader& r, const std::string& key);

  // Per-environment state: allocate, reset (zeros; commands are drawn by the task), io.
  void allocate(int envs);
  void reset_env(int env);
  void io_state(StateIo& io);
  void io_command_steps(StateIo& io);

  // The signal for env into out (s.width() values); action: this step's action, or nullptr.
  void read(const Signal& s, const Backend& b, int env, const float* action, double* out) const;
  // The action map; actions are clamped to ±bound first (the action space's bounds).
  void set_action_map(ActionKind kind, double scale, double bound);
  ActionKind action_kind() const { return action_kind_; }
  double action_scale() const { return action_scale_; }
  double action_bound() const { return action_bound_; }
  double clamped_action(const float* action, int i) const;
  // Backend commands (nu) of an action: the map, then each actuator's control range.
  void command_of(const float* action, double* u) const;
  // After a step's rewards: remember the action and velocities; count command steps, redraw.
  void finish_step(const Backend& b, int env, const float* action, Rng& rng, bool hold_commands);
  void draw_commands(int env, Rng& rng);
  double* command(int env, int c) { return commands_values_[size_t(c)].data() + size_t(env) * commands_[size_t(c)].ranges.size(); }
  const double* command(int env, int c) const {
    return commands_values_[size_t(c)].data() + size_t(env) * commands_[size_t(c)].ranges.size();
  }
  const double* last_action(int env) const { return last_action_.data() + size_t(env) * size_t(action_dim()); }
  void restart_command(int env, int c) { since_draw_[size_t(c)][size_t(env)] = 0; }
  // Whether this step is the last of command c's period (it is redrawn when the step finishes,
  // or the episode times out with it); false for a command drawn once per episode.
  bool command_period_ends(int env, int c) const {
    const int every = commands_[size_t(c)].resample_steps;
    return every > 0 && since_draw_[size_t(c)][size_t(env)] + 1 >= every;
  }

 private:
  void draw_command(int env, int c, Rng& rng);
  void joint_torques(const Backend& b, int env, const float* action, double* tau) const;

  const sim::Robot* robot_;
  double dt_;
  ActionKind action_kind_ = ActionKind::ActuatorRange;
  double action_scale_ = 1, action_bound_ = 1;
  std::vector<double> nominal_u_;
  int nj_;                            // joints after the base (layout joint list)
  std::vector<int> qadr_, vadr_;      // per joint list position
  std::vector<int> actuated_;         // joint list position of each actuator (command order)
  std::vector<double> pose_;          // nominal angle of each joint
  // actuators' laws (joint transmission, fixed gain, affine bias): torque = gear · clamp(force)
  std::vector<double> gear_, gain_, bias_, force_lo_, force_hi_, ctrl_lo_, ctrl_hi_;
  bool torque_law_ = true;            // every actuator has one (else JointTorque is refused)
  std::vector<int> bodies_;
  std::vector<CommandSpec> commands_;
  // per environment
  std::vector<std::vector<double>> commands_values_;  // per command (envs, width)
  std::vector<std::vector<int>> since_draw_;          // per command (envs)
  std::vector<double> last_action_, last_v_;          // (envs, actions), (envs, nv)
  int nv_ = 0;
};

}  // namespace flashnerd::env
