// HistoryRecorder: each environment's recent history in a VecEnv (its last `frames` + 1
// states and the `frames` commands between them), followed step by step, so the states the
// environments visit can become starts of branched imagined episodes (env/start_buffer.h) with
// their real histories. An environment whose episode ended starts its history again at the
// new episode's first state. Preallocated; following a step never allocates.
#pragma once

#include <vector>

#include "core/blob.h"
#include "env/start_buffer.h"
#include "env/vec_env.h"

namespace flashnerd::env {

class HistoryRecorder {
 public:
  // Follows `env`, which must reset in the step that ends an episode (Autoreset::SameStep)
  // and step its backend once per action (a held command's inner states are not visible).
  HistoryRecorder(const VecEnv& env, int frames);

  int frames() const { return frames_; }
  // Every environment's history starts again at its current state (after VecEnv::reset_all).
  void restart();
  // After VecEnv::step: each environment's history gains the step's command and new state.
  void after_step();
  // Recorded steps of env so far (at most frames()).
  int recorded(int env) const { return count_[size_t(env)] - 1; }
  // env's history as a start of `buffer` (whose frames() must equal this recorder's).
  void add_to(StartBuffer& buffer, int env) const;

  void io_state(StateIo& io);  // the histories, for a run's checkpoint

 private:
  void restart(int env);
  const VecEnv* env_;
  int frames_, nq_, nv_, nu_;
  std::vector<int> count_;  // states held per env, 1..frames + 1
  std::vector<double> q_, v_, u_;  // per env: (frames + 1, nq), (frames + 1, nv), (frames, nu), oldest first
};

}  // namespace flashnerd::env
