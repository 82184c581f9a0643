// On-policy refresh of the learned model in model-based PPO (RWM's continual model learning;
// DAgger against model exploitation). The windows the current policy explored in the real
// environments, replayed by the generator into a dataset as `gen --policy` does
// (rl/explored_data.h), and the model continues training on it from its current weights with a
// fresh optimizer: train::train_model with init_from, flashnerd finetune's code. The learned
// backend then steps the new artifact. Each refresh writes its own artifact, so a resumed run
// steps the model its checkpoint names. An ensemble (core/ensemble_manifest.h) is refreshed
// member by member, each with its own seed, into an ensemble artifact of the same shape.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dataset.h"
#include "core/model_config.h"
#include "core/thread_pool.h"
#include "sim/generator.h"
#include "sim/robot.h"
#include "train/precision.h"

namespace flashnerd::rl {

// From the refresh at iteration `from` on, `updates` fine-tune updates per refresh.
struct RefreshUpdatesFrom {
  int from = 1;
  int64_t updates = 1;
};

struct ModelRefreshOptions {
  int every = 0;               // iterations between refreshes (0: never); needs real environments
  int64_t updates = 500;       // fine-tune updates per refresh
  // A budget that grows with the run (ascending `from`): cheap refreshes early, while the
  // policy changes fast, full ones late, when what remains of its falls are the model's errors.
  std::vector<RefreshUpdatesFrom> updates_from;
  int batch = 64;              // windows per update
  double lr = 3e-4;            // fine-tune learning rate (to a tenth, linearly, within each refresh)
  // matrix products of the fine-tune (train/precision.h): fp32 gives the same bits on every
  // run; bf16 is faster where the CPU has it natively
  train::TrainingPrecision precision = train::TrainingPrecision::FP32;
  int64_t max_windows = 4096;  // explored windows kept for the refreshes (the oldest give way)
  std::string model_dir;       // the artifact the learned backend steps at the start
  // how windows become data: probes and contact rows as the model reads them (plan and
  // trajectories are set per replay)
  sim::GenerateOptions generate;
  std::shared_ptr<const sim::Robot> robot;  // the real robot (MuJoCo)
  ThreadPool* pool = nullptr;               // the replay's threads
  // makes the learned backend step the artifact in this directory (env::reload_learned_model)
  std::function<void(const std::string& model_dir)> load;
  bool on() const { return every > 0; }
  // the fine-tune updates of the refresh at `iteration` (1-based, the iteration it precedes)
  int64_t updates_at(int iteration) const;
  // a clear error for a schedule out of order or with a count below 1
  void check_schedule() const;
};

// How explored windows are recorded for a model of config `c`: its fixed probes (or the
// climbing set) and its contact rows, as its training data had them.
sim::GenerateOptions data_options_for(const ModelConfig& c, const sim::Robot& robot);

struct RefreshResult {
  std::string model_dir;   // the new artifact
  double valid_loss = 0;   // one-step validation loss on held-out explored windows (an ensemble: the members' mean)
};

// Fine-tunes `from_dir` on `explored` (the replayed windows) for `updates` updates into
// `to_dir` (replaced when it exists: a refresh redone after a resume), with `seed` for its
// split and batches.
RefreshResult refresh_model(const ModelRefreshOptions& options, const Dataset& explored, int64_t updates,
                            const std::string& from_dir, const std::string& to_dir, uint64_t seed);

}  // namespace flashnerd::rl
