// Shared by the training tests: a fresh temporary directory, a short training run, and the
// engine's rollout as the reference for states the trainer predicts.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/model_artifact.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "eval/engine_step_model.h"
#include "eval/rollout.h"
#include "train/batch_source.h"
#include "train/trainer.h"

namespace flashnerd::testing {

inline std::string fresh_temp_dir(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() / ("flashnerd_train_test_" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

// A tiny model, 16 windows per update, validated twice, quietly.
inline train::TrainOptions quick_train_options(const std::string& dir, int64_t updates, uint64_t seed) {
  train::TrainOptions o;
  o.preset = ModelPreset::Tiny;
  o.out_dir = dir;
  o.updates = updates;
  o.batch = 16;
  o.valid_every = updates / 2;
  o.progress = false;
  o.write_plot = false;
  o.seed = seed;
  return o;
}

// A tiny model trained for 60 updates on d into dir, read back.
inline ModelArtifact quick_trained_artifact(const Dataset& d, const std::string& dir, uint64_t seed) {
  train::train_model(d, quick_train_options(dir, 60, seed));
  return ModelArtifact::load(dir);
}

// The predicted states equal the engine's rollout (horizon steps) of the artifact in `dir`
// from the first frames of each window's trajectory.
inline void expect_engine_rollout(const std::string& dir, const Dataset& d, const std::vector<train::WindowRef>& windows,
                                  const train::UnrolledStates& states, int horizon) {
  ThreadPool pool(1);
  auto engine_model = engine::Model::load(dir);
  eval::EngineStepModel step(engine_model, int(windows.size()), &pool);
  eval::RolloutOptions ro;
  ro.horizon = horizon;
  std::vector<int64_t> rows;
  for (const auto& w : windows) rows.push_back(w.trajectory);
  const eval::RolloutResult rollout = eval::run_rollouts(step, d, rows, ro, pool);
  ASSERT_EQ(states.q.size(), rollout.qpos.size());
  for (size_t i = 0; i < states.q.size(); ++i) {
    EXPECT_NEAR(states.q[i], rollout.qpos[i], 1e-4 * (1 + std::fabs(rollout.qpos[i]))) << i;
    EXPECT_NEAR(states.v[i], rollout.qvel[i], 1e-4 * (1 + std::fabs(rollout.qvel[i]))) << i;
  }
  for (uint8_t f : states.finite) EXPECT_EQ(f, 1);
}

// Runs `whole`, then the same run into part_dir stopped after stop_at updates and resumed:
// both end in the same loss and the same weight bytes. Returns the uninterrupted run's result;
// resumed (optional) receives the resumed run's options.
inline train::TrainResult expect_resume_equals_whole(const Dataset& d, const train::TrainOptions& whole,
                                                     const std::string& part_dir, int64_t stop_at,
                                                     train::TrainOptions* resumed = nullptr) {
  const train::TrainResult rw = train::train_model(d, whole);
  EXPECT_TRUE(std::isfinite(rw.last_loss));
  train::TrainOptions part = whole;
  part.out_dir = part_dir;
  part.stop_at = stop_at;
  train::train_model(d, part);
  part.stop_at = 0;
  part.resume = true;
  const train::TrainResult r2 = train::train_model(d, part);
  EXPECT_EQ(r2.last_loss, rw.last_loss);
  EXPECT_EQ(read_file(part.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"));
  if (resumed) *resumed = part;
  return rw;
}

}  // namespace flashnerd::testing
