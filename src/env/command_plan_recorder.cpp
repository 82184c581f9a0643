#include "env/command_plan_recorder.h"

#include <algorithm>

#include "core/error.h"

namespace flashnerd::env {

CommandPlanRecorder::CommandPlanRecorder(const VecEnv& env, int steps, int64_t capacity)
    : env_(&env), envs_(env.envs()), nq_(env.backend().nq()), nv_(env.backend().nv()), nu_(env.backend().nu()),
      steps_(steps), capacity_(capacity) {
  FN_CHECK(steps > 0 && capacity > 0, "policy data: window steps and windows held must be positive, got ", steps,
           " and ", capacity);
  FN_CHECK(env.task().control_steps() == 1, "policy data: task '", env.task().name(), "' holds each action for ",
           env.task().control_steps(), " control steps; only tasks with one control step per action are supported");
  FN_CHECK(env.backend().object_nq() == 0, "policy data: task '", env.task().name(), "' moves objects, which a plan "
           "of the robot's states cannot replay");
  const size_t E = size_t(envs_), C = size_t(capacity), T = size_t(steps);
  ended_.assign(E, 0);
  open_q_.assign(E * size_t(nq_), 0.0);
  open_v_.assign(E * size_t(nv_), 0.0);
  open_u_.assign(E * T * size_t(nu_), 0.0);
  q_.assign(C * size_t(nq_), 0.0);
  v_.assign(C * size_t(nv_), 0.0);
  u_.assign(C * T * size_t(nu_), 0.0);
}

void CommandPlanRecorder::begin_window() {
  const Backend& b = env_->backend();
  for (int e = 0; e < envs_; ++e) {
    std::copy_n(b.q(e), nq_, open_q_.begin() + long(e) * nq_);
    std::copy_n(b.v(e), nv_, open_v_.begin() + long(e) * nv_);
  }
  std::fill(ended_.begin(), ended_.end(), 0);
  t_ = 0;
}

void CommandPlanRecorder::after_step() {
  FN_CHECK(t_ >= 0, "policy data: a step recorded outside a window (begin_window first)");
  const size_t T = size_t(steps_);
  for (int e = 0; e < envs_; ++e) {
    double* u = open_u_.data() + (size_t(e) * T + size_t(t_)) * size_t(nu_);
    if (ended_[size_t(e)]) {
      std::copy_n(u - nu_, nu_, u);  // the window's episode ended: hold
    } else {
      std::copy_n(env_->commands() + size_t(e) * size_t(nu_), nu_, u);
    }
    if (env_->terminated()[e] || env_->timed_out()[e]) ended_[size_t(e)] = 1;
  }
  if (++t_ < steps_) return;
  for (int e = 0; e < envs_; ++e) {  // complete: into the ring
    const size_t slot = size_t(next_);
    std::copy_n(open_q_.begin() + long(e) * nq_, nq_, q_.begin() + long(slot) * nq_);
    std::copy_n(open_v_.begin() + long(e) * nv_, nv_, v_.begin() + long(slot) * nv_);
    std::copy_n(open_u_.begin() + long(size_t(e) * T * size_t(nu_)), T * size_t(nu_),
                u_.begin() + long(slot * T * size_t(nu_)));
    next_ = (next_ + 1) % capacity_;
    size_ = std::min(size_ + 1, capacity_);
    ++completed_;
  }
  t_ = -1;
}

sim::CommandPlan CommandPlanRecorder::plan(int64_t limit) const {
  return plan_of(0, limit >= 0 ? std::min(limit, size_) : size_);
}

sim::CommandPlan CommandPlanRecorder::plan_newest(int64_t count) const {
  const int64_t n = std::clamp(count, int64_t(0), size_);
  return plan_of(size_ - n, n);
}

sim::CommandPlan CommandPlanRecorder::plan_of(int64_t first, int64_t n) const {
  const size_t T = size_t(steps_);
  sim::CommandPlan p;
  p.trajectories = n;
  p.steps = steps_;
  p.qpos.resize(size_t(n) * size_t(nq_));
  p.qvel.resize(size_t(n) * size_t(nv_));
  p.ctrl.resize(size_t(n) * T * size_t(nu_));
  const int64_t oldest = size_ < capacity_ ? 0 : next_;
  for (int64_t k = 0; k < n; ++k) {
    const size_t slot = size_t((oldest + first + k) % capacity_);
    std::copy_n(q_.begin() + long(slot) * nq_, nq_, p.qpos.begin() + long(k) * nq_);
    std::copy_n(v_.begin() + long(slot) * nv_, nv_, p.qvel.begin() + long(k) * nv_);
    std::copy_n(u_.begin() + long(slot * T * size_t(nu_)), T * size_t(nu_), p.ctrl.begin() + long(size_t(k) * T * size_t(nu_)));
  }
  return p;
}

void CommandPlanRecorder::io_state(StateIo& io) {
  int64_t shape[3] = {int64_t(envs_), int64_t(steps_), capacity_};
  for (int64_t& s : shape) io.io(s);
  FN_CHECK(shape[0] == envs_ && shape[1] == steps_ && shape[2] == capacity_, "policy data: the saved windows are of ",
           shape[0], " environments x ", shape[1], " steps (", shape[2], " held), this recorder's of ", envs_, " x ",
           steps_, " (", capacity_, ")");
  io.io(size_);
  io.io(next_);
  io.io(completed_);
  io.io(t_);
  io.io(ended_);
  io.io(open_q_);
  io.io(open_v_);
  io.io(open_u_);
  io.io(q_);
  io.io(v_);
  io.io(u_);
}

}  // namespace flashnerd::env
