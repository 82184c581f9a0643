// Velocity tracking on flat ground for a legged robot with position-PD actuators (the
// ANYmal-like `quadruped`), with legged_gym's ANYmal-C flat terms and scales (Rudin et al.
// 2022, anymal_c_flat_config): 50 Hz policy, action scale 0.5 around the default pose,
// commands (vx, vy, yaw rate) resampled every 5 s, 20 s episodes. As in IsaacLab's version
// of the task, negative step rewards are kept (legged_gym clips them to zero, which left
// PPO without a gradient from random actions here: every step's penalties exceeded the
// tracking terms), with a termination penalty (−2 per fall, added after the clip when
// --only-positive-rewards asks for legged_gym's) so ending an episode early never pays.
// Foot contact comes from the backend's probe clearances (the spec's foot probes), so the
// task reads the same thing from MuJoCo and from a learned model. Terminations: base below
// 0.25 m, tilt beyond 60°, or a failed backend step. Legged_gym's collision term (thigh and
// shank contact forces) has no equivalent without force sensing and is left out.
#pragma once

#include "env/task.h"

namespace flashnerd::env {

struct QuadrupedVelocityOptions {
  double command_resample_seconds = 5.0;
  double episode_seconds = 20.0;
  double lin_vel_x[2] = {-1.0, 1.0};  // m/s
  double lin_vel_y[2] = {-1.0, 1.0};
  double yaw_rate[2] = {-1.0, 1.0};   // rad/s
  double action_scale = 0.5;
  double contact_clearance = 0.01;    // m: a foot closer than this is in contact
};

class QuadrupedVelocityTask : public Task {
 public:
  QuadrupedVelocityTask(const sim::Robot& robot, QuadrupedVelocityOptions options = {});
  std::string name() const override { return "quadruped-velocity"; }
  int observation_dim() const override { return 9 + 3 + 3 * nj_; }
  int action_dim() const override { return nj_; }
  double action_bound() const override;
  int episode_steps() const override { return episode_steps_; }
  std::vector<std::pair<std::string, int>> observation_terms() const override;
  TaskDescription describe() const override;

  void allocate(int envs) override;
  void reset(int env, Rng& rng, double* q, double* v) override;
  void command(int env, const float* action, double* u) const override;
  bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) override;
  void observe(int env, const Backend& backend, float* obs) const override;
  void io_state(StateIo& io) override;

  // The commanded (vx, vy, yaw rate) of env; set_command fixes it (evaluation per command).
  const double* velocity_command(int env) const { return cmd_.data() + 3 * size_t(env); }
  void set_command(int env, const double cmd[3]);
  void hold_commands(bool hold) { hold_commands_ = hold; }

 private:
  void resample_command(int env, Rng& rng);

  const sim::Robot* robot_;
  QuadrupedVelocityOptions o_;
  int nj_, feet_, episode_steps_, resample_steps_;
  std::vector<double> default_q_, default_u_, ctrl_lo_, ctrl_hi_;
  std::vector<double> gear_, gain_, bias_, force_lo_, force_hi_;  // actuator parameters (bias: 3 each)
  std::vector<int> qadr_, dadr_;                               // actuator i's joint in q and v
  bool hold_commands_ = false;
  // per environment
  std::vector<double> cmd_, last_action_, last_qd_, air_time_;
  std::vector<uint8_t> last_contact_;
  std::vector<int> since_resample_;
};

}  // namespace flashnerd::env
