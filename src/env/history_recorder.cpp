#include "env/history_recorder.h"

#include <algorithm>

#include "core/error.h"

namespace flashnerd::env {

HistoryRecorder::HistoryRecorder(const VecEnv& env, int frames)
    : env_(&env), frames_(frames), nq_(env.backend().nq()), nv_(env.backend().nv()), nu_(env.backend().nu()) {
  FN_CHECK(frames >= 0, "history recorder: frames must be >= 0, got ", frames);
  FN_CHECK(env.autoreset() == Autoreset::SameStep, "history recorder: the recorded environments must reset in the "
           "step that ends an episode");
  FN_CHECK(env.task().control_steps() == 1, "history recorder: task ", env.task().name(), " holds each action for ",
           env.task().control_steps(), " backend steps, whose states a history of actions does not see");
  const size_t E = size_t(env.envs()), states = size_t(frames) + 1;
  count_.assign(E, 1);
  q_.assign(E * states * size_t(nq_), 0.0);
  v_.assign(E * states * size_t(nv_), 0.0);
  u_.assign(E * size_t(frames) * size_t(nu_), 0.0);
}

void HistoryRecorder::restart(int e) {
  const size_t states = size_t(frames_) + 1;
  count_[size_t(e)] = 1;
  std::copy_n(env_->backend().q(e), nq_, q_.begin() + long(size_t(e) * states * size_t(nq_)));
  std::copy_n(env_->backend().v(e), nv_, v_.begin() + long(size_t(e) * states * size_t(nv_)));
}

void HistoryRecorder::restart() {
  for (int e = 0; e < env_->envs(); ++e) restart(e);
}

void HistoryRecorder::after_step() {
  const size_t states = size_t(frames_) + 1;
  for (int e = 0; e < env_->envs(); ++e) {
    if (env_->terminated()[e] || env_->timed_out()[e]) {  // the new episode's first state
      restart(e);
      continue;
    }
    double* q = q_.data() + size_t(e) * states * size_t(nq_);
    double* v = v_.data() + size_t(e) * states * size_t(nv_);
    double* u = u_.data() + size_t(e) * size_t(frames_) * size_t(nu_);
    int& n = count_[size_t(e)];
    if (frames_ == 0) {  // the state alone
      std::copy_n(env_->backend().q(e), nq_, q);
      std::copy_n(env_->backend().v(e), nv_, v);
      continue;
    }
    if (n == frames_ + 1) {  // full: the oldest state and command give way
      std::copy(q + nq_, q + states * size_t(nq_), q);
      std::copy(v + nv_, v + states * size_t(nv_), v);
      std::copy(u + nu_, u + size_t(frames_) * size_t(nu_), u);
      --n;
    }
    std::copy_n(env_->commands() + size_t(e) * size_t(nu_), nu_, u + size_t(n - 1) * size_t(nu_));
    std::copy_n(env_->backend().q(e), nq_, q + size_t(n) * size_t(nq_));
    std::copy_n(env_->backend().v(e), nv_, v + size_t(n) * size_t(nv_));
    ++n;
  }
}

void HistoryRecorder::add_to(StartBuffer& buffer, int e) const {
  FN_CHECK(buffer.frames() == frames_, "history recorder: a buffer of ", buffer.frames(),
           "-frame starts for histories of ", frames_);
  const size_t states = size_t(frames_) + 1;
  buffer.add(count_[size_t(e)] - 1, q_.data() + size_t(e) * states * size_t(nq_),
             v_.data() + size_t(e) * states * size_t(nv_), u_.data() + size_t(e) * size_t(frames_) * size_t(nu_));
}

void HistoryRecorder::io_state(StateIo& io) {
  io.io(count_);
  io.io(q_);
  io.io(v_);
  io.io(u_);
  FN_CHECK(count_.size() == size_t(env_->envs()) && q_.size() == count_.size() * size_t(frames_ + 1) * size_t(nq_),
           "history recorder: the saved histories are of another shape");
}

}  // namespace flashnerd::env
