// StartBuffer: real states with their recorded histories, from which imagined episodes branch
// (MBPO's short branched rollouts, RWM's imagination from real states). Each start is the last
// of `frames` + 1 recorded states reached by `frames` recorded commands (fewer near an
// episode's beginning), the shape Backend::reset_with_history takes. The buffer is a ring of
// fixed capacity, allocated once: adding never allocates, and once full the oldest start
// gives way, so the starts follow the policy that visits them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blob.h"
#include "core/rng.h"

namespace flashnerd::env {

class StartBuffer {
 public:
  // Starts of up to `frames` recorded steps of a robot with (nq, nv, nu).
  StartBuffer(int frames, int nq, int nv, int nu, int capacity);

  struct Start {
    int frames;       // recorded steps before the start state (<= the buffer's frames())
    const double* q;  // (frames + 1, nq), the start state last
    const double* v;  // (frames + 1, nv)
    const double* u;  // (frames, nu)
  };

  int frames() const { return frames_; }
  int capacity() const { return capacity_; }
  int size() const { return size_; }
  int64_t added() const { return added_; }  // every start ever added, the replaced included

  // Adds a start of `frames` <= frames() steps (arrays as in Start); the oldest gives way once
  // the buffer is full.
  void add(int frames, const double* q, const double* v, const double* u);
  Start get(int index) const;  // index in [0, size())
  Start draw(Rng& rng) const;  // uniform over the starts held; the buffer must not be empty

  void io_state(StateIo& io);  // the starts and the ring's position, for a run's checkpoint

 private:
  int frames_, nq_, nv_, nu_, capacity_;
  int size_ = 0, next_ = 0;
  int64_t added_ = 0;
  std::vector<int> used_;  // each slot's frames
  std::vector<double> q_, v_, u_;
};

}  // namespace flashnerd::env
