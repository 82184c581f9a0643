// CommandPlanRecorder: windows of a VecEnv's steps as a sim::CommandPlan, which the generator
// replays into a dataset exactly like random data (states, probes, contact rows): how the
// states a policy visits in MuJoCo become training data for a model (gen --policy, the
// on-policy refresh of model-based PPO). Whoever steps the VecEnv calls begin_window() and then
// after_step() at each step; after `steps` steps every environment's window is complete: its
// start state and the commands it received. When an episode ends inside a window (a fall or a
// time-out, then the automatic reset), the rest of the window holds the last command, so the
// replay keeps the fall and what follows it. The recorder keeps the last `capacity` windows,
// in the order they were completed (environment order within a round).
#pragma once

#include <cstdint>
#include <vector>

#include "core/blob.h"
#include "env/vec_env.h"
#include "sim/command_plan.h"

namespace flashnerd::env {

class CommandPlanRecorder {
 public:
  // env: one command per control step, no objects (a plan replays the robot's states alone)
  CommandPlanRecorder(const VecEnv& env, int steps, int64_t capacity);

  int steps() const { return steps_; }
  int64_t windows() const { return size_; }           // complete windows held
  int64_t completed() const { return completed_; }  // every window ever completed, the dropped included
  bool in_window() const { return t_ >= 0; }

  // Every environment's window starts at its current state.
  void begin_window();
  // After VecEnv::step: the step's commands join the windows; the last step completes them.
  void after_step();
  // The windows held, oldest first (the first `limit` of them when limit >= 0).
  sim::CommandPlan plan(int64_t limit = -1) const;
  // The newest `count` windows held (all of them when fewer are held), oldest first.
  sim::CommandPlan plan_newest(int64_t count) const;

  void io_state(StateIo& io);  // windows held and the one in progress, for a run's checkpoint

 private:
  sim::CommandPlan plan_of(int64_t first, int64_t n) const;  // n held windows from the first-oldest

  const VecEnv* env_;
  int envs_, nq_, nv_, nu_, steps_;
  int64_t capacity_, size_ = 0, next_ = 0, completed_ = 0;
  int t_ = -1;  // steps into the current window; -1: none begun
  std::vector<uint8_t> ended_;
  std::vector<double> open_q_, open_v_, open_u_;  // the windows in progress (envs, ...)
  std::vector<double> q_, v_, u_;                 // the ring of complete windows (capacity, ...)
};

}  // namespace flashnerd::env
