#include "env/quadruped_velocity_task.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/rotation.h"

namespace flashnerd::env {

namespace {

constexpr double kTrackingSigma = 0.25;  // exp(−error² / σ) of the tracking terms
constexpr double kAirTimeTarget = 0.5;   // s: feet_air_time rewards swings longer than this
constexpr double kMinBaseHeight = 0.25;  // m
constexpr double kMaxTiltGravityZ = -0.5;  // projected gravity z above this: tilted past 60°
constexpr double kActionClip = 100.0;
constexpr double kObservationClip = 100.0;
// legged_gym's observation scales
constexpr double kLinVelScale = 2.0, kAngVelScale = 0.25, kDofVelScale = 0.05;

enum Term { kTrackLin, kTrackYaw, kLinVelZ, kAngVelXY, kOrientation, kTorques, kDofAcc, kActionRate, kAirTime, kTermination };

// Base-frame linear velocity, angular velocity and gravity direction of a floating base.
struct BaseState {
  double lin[3], ang[3], gravity[3];
};

BaseState base_state(const double* q, const double* v) {
  BaseState s;
  rot::quat_rotate_inv(q + 3, v, s.lin);
  std::memcpy(s.ang, v + 3, sizeof s.ang);
  const double down[3] = {0, 0, -1};
  rot::quat_rotate_inv(q + 3, down, s.gravity);
  return s;
}

}  // namespace

QuadrupedVelocityTask::QuadrupedVelocityTask(const sim::Robot& robot, QuadrupedVelocityOptions options)
    : robot_(&robot), o_(options) {
  const StateLayout& s = robot.layout();
  const mjModel* m = robot.model();
  nj_ = s.joint_count();
  FN_CHECK(s.floating_base && s.nu == nj_ && nj_ > 0, "task quadruped-velocity needs a floating-base robot with ",
           "one actuator per joint; robot '", robot.name(), "' has ", nj_, " joints and ", s.nu, " actuators");
  feet_ = int(robot.probes().size());
  FN_CHECK(feet_ > 0, "task quadruped-velocity reads foot contact from the robot's fixed probes; robot '",
           robot.name(), "' defines none (\"probes\" in its spec)");
  for (int a = 0; a < s.nu; ++a) {
    FN_CHECK(m->actuator_trntype[a] == mjTRN_JOINT && m->actuator_gaintype[a] == mjGAIN_FIXED &&
                 m->actuator_biastype[a] == mjBIAS_AFFINE && m->actuator_dyntype[a] == mjDYN_NONE,
             "task quadruped-velocity needs position-PD joint actuators (gain fixed, bias affine); actuator ", a,
             " of robot '", robot.name(), "' is not");
    const int j = m->actuator_trnid[2 * a];
    qadr_.push_back(m->jnt_qposadr[j]);
    dadr_.push_back(m->jnt_dofadr[j]);
    gear_.push_back(m->actuator_gear[6 * a]);
    gain_.push_back(m->actuator_gainprm[mjNGAIN * a]);
    for (int k = 0; k < 3; ++k) bias_.push_back(m->actuator_biasprm[mjNBIAS * a + k]);
    const bool flimited = m->actuator_forcelimited[a];
    force_lo_.push_back(flimited ? m->actuator_forcerange[2 * a] : -1e300);
    force_hi_.push_back(flimited ? m->actuator_forcerange[2 * a + 1] : 1e300);
    const bool climited = m->actuator_ctrllimited[a];
    ctrl_lo_.push_back(climited ? m->actuator_ctrlrange[2 * a] : -1e300);
    ctrl_hi_.push_back(climited ? m->actuator_ctrlrange[2 * a + 1] : 1e300);
  }
  for (int a = 0; a < s.nu; ++a) default_q_.push_back(robot.nominal_qpos()[size_t(qadr_[size_t(a)])]);
  default_u_ = robot.nominal_ctrl();
  const double dt = robot.control_timestep();
  episode_steps_ = std::max(1, int(std::lround(o_.episode_seconds / dt)));
  resample_steps_ = std::max(1, int(std::lround(o_.command_resample_seconds / dt)));
  // {name, scale per second, added after the clip, objective}
  terms_ = {{"tracking_lin_vel", 1.0, false, true}, {"tracking_ang_vel", 0.5, false, true}, {"lin_vel_z", -2.0},
            {"ang_vel_xy", -0.05},     {"orientation", -5.0},     {"torques", -2.5e-5},
            {"dof_acc", -2.5e-7},      {"action_rate", -0.01},    {"feet_air_time", 2.0},
            {"termination", -2.0 / dt, true}};  // −2 per fall
}

std::vector<std::pair<std::string, int>> QuadrupedVelocityTask::observation_terms() const {
  return {{"base_lin_vel", 3}, {"base_ang_vel", 3}, {"projected_gravity", 3}, {"velocity_command", 3},
          {"joint_pos", nj_},  {"joint_vel", nj_},  {"last_action", nj_}};
}

void QuadrupedVelocityTask::allocate(int envs) {
  const size_t E = size_t(envs);
  cmd_.assign(E * 3, 0.0);
  last_action_.assign(E * size_t(nj_), 0.0);
  last_qd_.assign(E * size_t(nj_), 0.0);
  air_time_.assign(E * size_t(feet_), 0.0);
  last_contact_.assign(E * size_t(feet_), 0);
  since_resample_.assign(E, 0);
}

void QuadrupedVelocityTask::resample_command(int e, Rng& rng) {
  double* c = cmd_.data() + 3 * size_t(e);
  c[0] = rng.uniform(o_.lin_vel_x[0], o_.lin_vel_x[1]);
  c[1] = rng.uniform(o_.lin_vel_y[0], o_.lin_vel_y[1]);
  c[2] = rng.uniform(o_.yaw_rate[0], o_.yaw_rate[1]);
  if (std::hypot(c[0], c[1]) < 0.2) c[0] = c[1] = 0;  // legged_gym: small commands mean stand
  since_resample_[size_t(e)] = 0;
}

void QuadrupedVelocityTask::set_command(int e, const double c[3]) {
  std::memcpy(cmd_.data() + 3 * size_t(e), c, 3 * sizeof(double));
  since_resample_[size_t(e)] = 0;
}

void QuadrupedVelocityTask::reset(int e, Rng& rng, double* q, double* v) {
  // legged_gym: default pose with joints scaled by U(0.5, 1.5), base velocities U(±0.5)
  const auto& nominal = robot_->nominal_qpos();
  std::copy(nominal.begin(), nominal.end(), q);
  q[2] = std::max(q[2], 0.6);
  for (int j = 0; j < nj_; ++j) q[qadr_[size_t(j)]] = default_q_[size_t(j)] * rng.uniform(0.5, 1.5);
  std::fill(v, v + robot_->layout().nv, 0.0);
  for (int i = 0; i < 6; ++i) v[i] = rng.uniform(-0.5, 0.5);
  if (!hold_commands_) resample_command(e, rng);
  std::fill_n(last_action_.data() + size_t(e) * size_t(nj_), nj_, 0.0);
  std::fill_n(last_qd_.data() + size_t(e) * size_t(nj_), nj_, 0.0);
  std::fill_n(air_time_.data() + size_t(e) * size_t(feet_), feet_, 0.0);
  std::fill_n(last_contact_.data() + size_t(e) * size_t(feet_), feet_, 0);
  since_resample_[size_t(e)] = 0;
}

double QuadrupedVelocityTask::action_bound() const { return kActionClip; }

void QuadrupedVelocityTask::command(int, const float* action, double* u) const {
  for (int j = 0; j < nj_; ++j) {
    const double a = std::clamp(double(action[j]), -kActionClip, kActionClip);
    // the same clamp MuJoCo applies to ctrl, so a learned backend sees the same command
    u[j] = std::clamp(default_u_[size_t(j)] + o_.action_scale * a, ctrl_lo_[size_t(j)], ctrl_hi_[size_t(j)]);
  }
}

bool QuadrupedVelocityTask::evaluate(int e, const Backend& b, const float* action, Rng& rng, double* terms) {
  const double* q = b.q(e);
  const double* v = b.v(e);
  const BaseState s = base_state(q, v);
  const double* c = cmd_.data() + 3 * size_t(e);
  const double dt = b.control_timestep();
  const double lin_err = (c[0] - s.lin[0]) * (c[0] - s.lin[0]) + (c[1] - s.lin[1]) * (c[1] - s.lin[1]);
  terms[kTrackLin] = std::exp(-lin_err / kTrackingSigma);
  terms[kTrackYaw] = std::exp(-(c[2] - s.ang[2]) * (c[2] - s.ang[2]) / kTrackingSigma);
  terms[kLinVelZ] = s.lin[2] * s.lin[2];
  terms[kAngVelXY] = s.ang[0] * s.ang[0] + s.ang[1] * s.ang[1];
  terms[kOrientation] = s.gravity[0] * s.gravity[0] + s.gravity[1] * s.gravity[1];
  double torques = 0, dof_acc = 0, action_rate = 0;
  double* last_a = last_action_.data() + size_t(e) * size_t(nj_);
  double* last_qd = last_qd_.data() + size_t(e) * size_t(nj_);
  double u[64];
  FN_CHECK(nj_ <= 64, "quadruped-velocity: at most 64 joints");
  command(e, action, u);
  for (int j = 0; j < nj_; ++j) {
    const double qj = q[qadr_[size_t(j)]], qdj = v[dadr_[size_t(j)]];
    // MuJoCo's affine actuator: F = gain·u + b0 + b1·(gear·q) + b2·(gear·qd), clamped; joint torque gear·F
    const double g = gear_[size_t(j)];
    const double* bias = bias_.data() + 3 * size_t(j);
    const double force = std::clamp(gain_[size_t(j)] * u[j] + bias[0] + bias[1] * g * qj + bias[2] * g * qdj,
                                    force_lo_[size_t(j)], force_hi_[size_t(j)]);
    const double torque = g * force;
    torques += torque * torque;
    const double acc = (qdj - last_qd[j]) / dt;
    dof_acc += acc * acc;
    const double a = std::clamp(double(action[j]), -kActionClip, kActionClip);
    action_rate += (a - last_a[j]) * (a - last_a[j]);
    last_a[j] = a;
    last_qd[j] = qdj;
  }
  terms[kTorques] = torques;
  terms[kDofAcc] = dof_acc;
  terms[kActionRate] = action_rate;
  // feet_air_time: on touchdown, reward the swing's length beyond 0.5 s (only when moving)
  const double* clearance = b.probe_clearance(e);
  double air = 0;
  for (int f = 0; f < feet_; ++f) {
    const size_t i = size_t(e) * size_t(feet_) + size_t(f);
    const bool contact = clearance[f] < o_.contact_clearance;
    const bool filtered = contact || last_contact_[i];
    last_contact_[i] = contact;
    air_time_[i] += dt;
    if (filtered && air_time_[i] > dt) air += air_time_[i] - kAirTimeTarget;  // first contact
    if (filtered) air_time_[i] = 0;
  }
  terms[kAirTime] = std::hypot(c[0], c[1]) > 0.1 ? air : 0.0;
  if (!hold_commands_ && ++since_resample_[size_t(e)] >= resample_steps_) resample_command(e, rng);
  const bool fell = q[2] < kMinBaseHeight || s.gravity[2] > kMaxTiltGravityZ;
  terms[kTermination] = fell ? 1.0 : 0.0;
  return fell;
}

void QuadrupedVelocityTask::observe(int e, const Backend& b, float* obs) const {
  const double* q = b.q(e);
  const double* v = b.v(e);
  const BaseState s = base_state(q, v);
  const double* c = cmd_.data() + 3 * size_t(e);
  const double* last_a = last_action_.data() + size_t(e) * size_t(nj_);
  int k = 0;
  auto put = [&](double x) { obs[k++] = float(std::clamp(x, -kObservationClip, kObservationClip)); };
  for (double x : s.lin) put(x * kLinVelScale);
  for (double x : s.ang) put(x * kAngVelScale);
  for (double x : s.gravity) put(x);
  put(c[0] * kLinVelScale);
  put(c[1] * kLinVelScale);
  put(c[2] * kAngVelScale);
  for (int j = 0; j < nj_; ++j) put(q[qadr_[size_t(j)]] - default_q_[size_t(j)]);
  for (int j = 0; j < nj_; ++j) put(v[dadr_[size_t(j)]] * kDofVelScale);
  for (int j = 0; j < nj_; ++j) put(last_a[j]);
}

void QuadrupedVelocityTask::io_state(StateIo& io) {
  io.io(cmd_);
  io.io(last_action_);
  io.io(last_qd_);
  io.io(air_time_);
  io.io(last_contact_);
  io.io(since_resample_);
}

TaskDescription QuadrupedVelocityTask::describe() const {
  TaskDescription d;
  d.summary = str_cat("Walk at a commanded velocity (legged_gym's velocity tracking): follow (vx, vy, yaw rate) in the "
                      "base frame, a new command every ", o_.command_resample_seconds, " s. Foot contacts come from the "
                      "robot's ", feet_, " foot probes (clearance below ", o_.contact_clearance, " m).");
  const std::string clip = str_cat(", clipped to ±", kObservationClip);
  d.observation = {
      {"base_lin_vel", str_cat("base-frame linear velocity (m/s) × ", kLinVelScale, clip)},
      {"base_ang_vel", str_cat("base-frame angular velocity (rad/s) × ", kAngVelScale, clip)},
      {"projected_gravity", "the unit gravity vector in the base frame: (0, 0, −1) when level"},
      {"velocity_command", str_cat("the command: vx, vy (m/s) × ", kLinVelScale, " and yaw rate (rad/s) × ", kAngVelScale)},
      {"joint_pos", "each actuated joint's angle minus its default (rad), in actuator order"},
      {"joint_vel", str_cat("each actuated joint's velocity (rad/s) × ", kDofVelScale)},
      {"last_action", "the previous action"}};
  d.action = str_cat("one joint-position target per actuator: default angle + ", o_.action_scale,
                     " · a (rad), a clamped to ±", kActionClip,
                     " and the target to the actuator's control range; MuJoCo's position-PD actuators track it");
  d.reward = {
      {"tracking_lin_vel", str_cat("exp(−|v_xy,cmd − v_xy|² / ", kTrackingSigma, "), base-frame planar velocity")},
      {"tracking_ang_vel", str_cat("exp(−(ω_z,cmd − ω_z)² / ", kTrackingSigma, ")")},
      {"lin_vel_z", "v_z², the base's vertical velocity squared"},
      {"ang_vel_xy", "ω_x² + ω_y², the base's roll and pitch rates squared"},
      {"orientation", "g_x² + g_y² of the projected gravity: the base's tilt"},
      {"torques", "Σ joint torque² ((N·m)²), from the actuators' PD law"},
      {"dof_acc", "Σ joint acceleration² ((rad/s²)²), from velocity differences"},
      {"action_rate", "Σ (a − a_previous)²"},
      {"feet_air_time", str_cat("at each touchdown, the swing's air time minus ", kAirTimeTarget,
                                " s (0 when the commanded planar speed is below 0.1 m/s)")},
      {"termination", "1 at a fall; added after the negative-reward clip"}};
  d.termination = str_cat("a fall: base height below ", kMinBaseHeight, " m, or tilted past 60° (projected gravity z > ",
                          kMaxTiltGravityZ, ")");
  d.reset = str_cat("the nominal pose with the base at least 0.6 m high, each joint's default angle × U(0.5, 1.5), base "
                    "linear and angular velocities U(±0.5); a command vx ~ U(", o_.lin_vel_x[0], ", ", o_.lin_vel_x[1],
                    ") m/s, vy ~ U(", o_.lin_vel_y[0], ", ", o_.lin_vel_y[1], ") m/s, yaw rate ~ U(", o_.yaw_rate[0], ", ",
                    o_.yaw_rate[1], ") rad/s, planar commands under 0.2 m/s set to stand");
  return d;
}

}  // namespace flashnerd::env
