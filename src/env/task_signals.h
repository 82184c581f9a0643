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
  Action, LastAction, Command, BodyPos, BodyQuat, ProbeClearance, ObjectPos, ObjectVel,
  ObjectQuat, ObjectRotationError, ObjectQuatError,  // the scene's first object (a free body) against a command
  GaitPhase  // (sin 2πφ, cos 2πφ) of the gait clock's phase φ
};
extern const EnumName<SignalKind> kSignalNames[23];

// How a command is drawn: uniformly in per-component ranges, or an orientation (w, x, y, z):
// a uniformly random rotation, one about the vertical, or yaw steps (each target `yaw_step`
// further counter-clockwise about the vertical than the last; the first one from the object's
// start, once the object is placed).
enum class CommandDraw { Uniform, Rotation, YawRotation, YawSteps };
extern const EnumName<CommandDraw> kCommandDrawNames[4];

// A command: values each episode draws (uniformly in per-component ranges, or an orientation)
// and redraws every resample_steps (0: once per episode), or at once when the object's
// orientation comes within redraw_within rad of it (a reached target); planar commands below
// stand_below are set to stand.
struct CommandSpec {
  std::string name;
  std::vector<std::string> components;
  std::vector<std::array<double, 2>> ranges;
  int resample_steps = 0;
  double stand_below = 0;  // |(c0, c1)| below this: c0 = c1 = 0 (legged_gym's small commands)
  CommandDraw draw = CommandDraw::Uniform;
  double yaw_step = 0;       // rad, YawSteps
  double redraw_within = 0;  // rad, orientations: 0 = never
  bool orientation() const { return draw != CommandDraw::Uniform; }
};

// One signal as a term names it, resolved against the robot: which components of which kind.
struct Signal {
  SignalKind kind = SignalKind::BaseHeight;
  int slot = 0;                 // Command: which command; BodyPos/BodyQuat: which tracked body
  std::vector<int> components;  // indices into the kind's full vector (joints: joint list positions)
  bool relative = false;        // JointPos: minus the nominal pose; ObjectPos: minus the object's home
  bool normalized = false;      // JointPos: 2 (q − lo) / (hi − lo) − 1 over the joint's actuator's control range
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
  // The control range of the actuator driving joint list position j; fails naming `key` when
  // none drives it or its range is unlimited.
  std::array<double, 2> joint_control_range(SpecReader& r, const std::string& key, int j) const;
  // The scene's objects (joints outside the robot's block) at home: the "home" keyframe, or qpos0.
  const std::vector<double>& object_home() const { return object_home_; }
  // q and v indices (robot block) of joint list position j.
  int qadr(int j) const { return qadr_[size_t(j)]; }
  int vadr(int j) const { return vadr_[size_t(j)]; }
  const std::vector<int>& actuated_joints() const { return actuated_; }
  // Probe indices grouped by body ("feet"): the probes of each named body, or one group per
  // body that carries probes.
  std::vector<std::vector<int>> probe_groups(SpecReader& r, const std::string& key);

  // The gait clock (a spec's "gait"): a foot's phase is (t / period + offset) mod 1, t the time
  // of the episode's current state. Phase-based gait rewards and the phase observation read it.
  void set_gait_period(double seconds) { gait_period_ = seconds; }
  bool has_gait() const { return gait_period_ > 0; }
  double gait_phase(int env, double offset = 0) const;
  void advance_gait_clock(int env);  // env took a step (before its rewards are evaluated)

  // Per-environment state: allocate, reset (zeros; commands are drawn by the task), io.
  void allocate(int envs);
  void reset_env(int env);
  void io_state(StateIo& io);
  void io_command_steps(StateIo& io);

  // The signal for env into out (s.width() values); action: this step's action, or nullptr.
  void read(const Signal& s, const Backend& b, int env, const float* action, double* out) const;
  // The action map; actions are clamped to ±bound first (the action space's bounds). With
  // smoothing a < 1 each command is a · map + (1 − a) · the previous command (an exponential
  // moving average; a new episode's previous command is its start pose).
  void set_action_map(ActionKind kind, double scale, double bound, double smoothing = 1.0);
  double action_smoothing() const { return smoothing_; }
  ActionKind action_kind() const { return action_kind_; }
  double action_scale() const { return action_scale_; }
  double action_bound() const { return action_bound_; }
  double clamped_action(const float* action, int i) const;
  // Backend commands (nu) of env's action: the map, each actuator's control range, smoothing.
  void command_of(int env, const float* action, double* u) const;
  // A new episode of env starts at robot state q: the smoothing's previous command.
  void start_episode(int env, const double* q);
  // Commands that follow the object (yaw steps from its start), once env's objects are placed.
  void place_objects(int env, const double* object_q);
  // The rotation angle (rad) between two unit quaternions (w, x, y, z).
  static double rotation_distance(const double a[4], const double b[4]);
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
  // The object's orientation, normalized (w, x, y, z).
  void object_quat(const Backend& b, int env, double out[4]) const;
  // Command c of env becomes one yaw step beyond `from`.
  void step_command(int env, int c, const double from[4]);
  void joint_torques(const Backend& b, int env, const float* action, double* tau) const;

  const sim::Robot* robot_;
  double dt_;
  ActionKind action_kind_ = ActionKind::ActuatorRange;
  double action_scale_ = 1, action_bound_ = 1, smoothing_ = 1;
  std::vector<double> nominal_u_;
  int nj_;                            // joints after the base (layout joint list)
  std::vector<int> qadr_, vadr_;      // per joint list position
  std::vector<int> actuated_;         // joint list position of each actuator (command order)
  std::vector<double> pose_;          // nominal angle of each joint
  // actuators' laws (joint transmission, fixed gain, affine bias): torque = gear · clamp(force)
  std::vector<double> gear_, gain_, bias_, force_lo_, force_hi_, ctrl_lo_, ctrl_hi_;
  std::vector<double> object_home_;
  std::vector<double> joint_lo_, joint_hi_;  // per joint list position: its actuator's control range
  bool torque_law_ = true;            // every actuator has one (else JointTorque is refused)
  std::vector<int> bodies_;
  std::vector<CommandSpec> commands_;
  // per environment
  std::vector<std::vector<double>> commands_values_;  // per command (envs, width)
  std::vector<std::vector<int>> since_draw_;          // per command (envs)
  std::vector<double> last_action_, last_v_;          // (envs, actions), (envs, nv)
  std::vector<double> last_u_;                        // (envs, nu) when smoothing
  std::vector<int> gait_steps_;                       // (envs) steps of the episode, with a gait
  double gait_period_ = 0;
  int nv_ = 0;
};

}  // namespace flashnerd::env
