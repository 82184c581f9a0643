// The windows the policy explored in the real environments (env/command_plan_recorder.h) as
// training data for the on-policy refreshes of model-based PPO, kept in step with the
// recorder's ring. A window's replay is a function of its start state and commands alone (a
// plan replays no randomized scene and draws nothing), so each refresh replays only the windows
// completed since the last one, appends them and lets the oldest go: the same data as
// replaying every held window, in a fraction of the time. After a resume the first update
// replays every window held.
#pragma once

#include <cstdint>
#include <memory>

#include "core/dataset.h"
#include "core/thread_pool.h"
#include "env/command_plan_recorder.h"
#include "sim/generator.h"
#include "sim/robot.h"

namespace flashnerd::rl {

class ExploredData {
 public:
  // generate: how windows become data (probes, contact rows); robot: the real robot (MuJoCo)
  ExploredData(std::shared_ptr<const sim::Robot> robot, const sim::GenerateOptions& generate, ThreadPool& pool);

  // The data of every window `windows` holds now (oldest first), after replaying the new ones.
  const Dataset& update(const env::CommandPlanRecorder& windows);
  int64_t replayed_last() const { return replayed_last_; }  // windows the last update replayed

 private:
  std::shared_ptr<const sim::Robot> robot_;
  sim::GenerateOptions generate_;
  ThreadPool* pool_;
  Dataset data_;
  int64_t through_ = 0;  // the recorder's completed() count that data_ reaches
  int64_t replayed_last_ = 0;
};

}  // namespace flashnerd::rl
