#include "sim/samplers.h"

#include <algorithm>
#include <cmath>

#include "core/rotation.h"

namespace flashnerd::sim {

void StateSampler::sample(Rng& rng, double* qpos, double* qvel) const {
  const mjModel* m = robot_->model();
  const RobotSpec& spec = robot_->spec();
  const StateSpec& st = spec.state;
  const StateLayout& l = robot_->layout();
  const auto& nominal = robot_->nominal_qpos();
  const bool perturb = rng.uniform() < st.nominal_fraction;
  const bool uniform_vel = rng.uniform() < st.qvel_uniform_fraction;
  for (int i = 0; i < l.nq; ++i) qpos[i] = nominal[size_t(i)];
  for (int i = 0; i < l.nv; ++i) qvel[i] = 0;
  for (int j = 0; j < m->njnt; ++j) {
    if (!robot_->is_robot_body(m->jnt_bodyid[j])) continue;
    int type = m->jnt_type[j];
    int qa = m->jnt_qposadr[j] - robot_->qpos_offset(), da = m->jnt_dofadr[j] - robot_->qvel_offset();
    if (type == mjJNT_FREE) {
      double tilt_axis = rng.uniform(0, 2 * M_PI);
      double tilt = rng.uniform(0, st.base_tilt);
      double yaw = rng.uniform(-M_PI, M_PI);
      double r_tilt[3] = {tilt * std::cos(tilt_axis), tilt * std::sin(tilt_axis), 0};
      double r_yaw[3] = {0, 0, yaw};
      double q_tilt[4], q_yaw[4];
      rot::rotvec_to_quat(r_tilt, q_tilt);
      rot::rotvec_to_quat(r_yaw, q_yaw);
      rot::quat_mul(q_yaw, q_tilt, qpos + qa + 3);
      qpos[qa + 0] = rng.uniform(-st.base_xy, st.base_xy);
      qpos[qa + 1] = rng.uniform(-st.base_xy, st.base_xy);
      qpos[qa + 2] = rng.uniform(st.base_height[0], st.base_height[1]);
      for (int i = 0; i < 3; ++i) qvel[da + i] = rng.normal(0, st.base_linear_velocity_std);
      for (int i = 3; i < 6; ++i) qvel[da + i] = rng.normal(0, st.base_angular_velocity_std);
      continue;
    }
    double lo = -st.unlimited_joint_range, hi = st.unlimited_joint_range;
    if (m->jnt_limited[j]) {
      lo = m->jnt_range[2 * j];
      hi = m->jnt_range[2 * j + 1];
    }
    qpos[qa] = perturb ? std::clamp(nominal[size_t(qa)] + rng.normal(0, st.nominal_perturbation), lo, hi)
                       : rng.uniform(lo, hi);
    qvel[da] = uniform_vel ? rng.uniform(-st.qvel_uniform, st.qvel_uniform)
                           : rng.normal(0, st.qvel_gaussian_std);
  }
}

void StateSampler::sample_act(Rng& rng, double* act) const {
  const mjModel* m = robot_->model();
  int i = 0;
  for (const auto& a : robot_->actuators()) {
    if (m->actuator_dyntype[a.id] == mjDYN_NONE) continue;
    const bool limited = m->actuator_actlimited[a.id];
    const double lo = limited ? m->actuator_actrange[2 * a.id] : a.range[0];
    const double hi = limited ? m->actuator_actrange[2 * a.id + 1] : a.range[1];
    act[i++] = rng.uniform(lo, hi);
  }
}

CommandSampler::CommandSampler(const Robot& robot)
    : robot_(&robot), current_(robot.actuators().size(), 0.0) {}

void CommandSampler::draw_uniform(Rng& rng, double* u) const {
  const auto& actuators = robot_->actuators();
  for (size_t a = 0; a < actuators.size(); ++a) u[a] = rng.uniform(actuators[a].range[0], actuators[a].range[1]);
}

void CommandSampler::reset(Rng& rng) {
  const CommandSpec& c = robot_->spec().command;
  held_ = 0;
  if (c.process == CommandProcess::AR1) {
    for (auto& a : current_) a = rng.uniform(-c.ar1_amplitude, c.ar1_amplitude);
  } else {
    draw_uniform(rng, current_.data());
  }
}

void CommandSampler::next(Rng& rng, double* u) {
  const auto& actuators = robot_->actuators();
  const CommandSpec& c = robot_->spec().command;
  switch (c.process) {
    case CommandProcess::Uniform:
      draw_uniform(rng, u);
      return;
    case CommandProcess::Hold:
      if (held_ >= std::max(1, c.hold_steps)) {
        draw_uniform(rng, current_.data());
        held_ = 0;
      }
      ++held_;
      std::copy(current_.begin(), current_.end(), u);
      return;
    case CommandProcess::AR1: {
      const double coef = c.ar1_coefficient, amp = c.ar1_amplitude;
      const double innovation = std::sqrt(std::max(0.0, 1 - coef * coef));
      const auto& nominal = robot_->nominal_ctrl();
      for (size_t a = 0; a < actuators.size(); ++a) {
        double& s = current_[a];
        s = std::clamp(coef * s + innovation * rng.uniform(-amp, amp), -amp, amp);
        double v = nominal[a] + s;
        if (actuators[a].clamp) v = std::clamp(v, actuators[a].range[0], actuators[a].range[1]);
        u[a] = v;
      }
      return;
    }
  }
}

}  // namespace flashnerd::sim
