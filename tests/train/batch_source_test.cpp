// Training on the model's own states: recorded batches unchanged when it is off, unrolled
// frames equal to the engine's recursive rollout of the same weights, perturbed targets that
// lead back to the recorded next state, and a deterministic, resumable run.
#include "train/batch_source.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "core/option_error.h"
#include "pendulum.h"
#include "training_fixtures.h"
#include "train/trainer.h"

namespace flashnerd::train {
namespace {

using testing::make_pendulum_dataset;

std::string temp_dir(const std::string& name) { return testing::fresh_temp_dir("batch_source_" + name); }

TrainOptions quick_options(const std::string& dir) { return testing::quick_train_options(dir, 40, 7); }

// The standardized arrays and config the trainer would build for this dataset.
struct TrainingArrays {
  ModelConfig config;
  TransitionArrays arrays;
  std::vector<int64_t> trajectories;
};

TrainingArrays setup_for(const Dataset& d, const ModelConfig& config) {
  TrainingArrays s{config, build_transitions(d, StateCodec(d.layout), false), {}};
  for (int64_t n = 0; n < d.trajectories; ++n) s.trajectories.push_back(n);
  standardize_transitions(s.arrays, s.config.norm);
  return s;
}

TEST(OwnStates, RampGrowsTheUnrollLinearly) {
  OwnStateOptions o;
  o.unroll = 4;
  o.unroll_ramp = 300;
  EXPECT_EQ(unroll_steps_at(o, 0), 1);
  EXPECT_EQ(unroll_steps_at(o, 100), 2);
  EXPECT_EQ(unroll_steps_at(o, 299), 3);
  EXPECT_EQ(unroll_steps_at(o, 300), 4);
  o.unroll_ramp = 0;
  EXPECT_EQ(unroll_steps_at(o, 0), 4);
}

TEST(OwnStates, OffGivesTheRecordedWindowsBitForBit) {
  const Dataset d = make_pendulum_dataset({10, 30, 4});
  const std::string dir = temp_dir("off");
  TrainResult r = train_model(d, quick_options(dir));
  const ModelArtifact artifact = ModelArtifact::load(dir);
  TrainingArrays s = setup_for(d, artifact.config);
  WindowIndex index(s.arrays, s.trajectories, 10);
  auto model = make_model(s.config, 1);
  OwnStateOptions off;
  off.unroll_fraction = 0.3;  // inert while unroll and input_noise are 0
  BatchSource source(d, s.config, s.arrays, index, 10, off, 9, 0, 1, 8, nullptr);
  WindowBatch from_source, recorded;
  for (int64_t u : {0, 5}) {
    source.next(*model, u, from_source);
    gather_windows(s.arrays, index.sample(9, u, 8), 10, recorded);
    EXPECT_EQ(from_source.inputs, recorded.inputs);
    EXPECT_EQ(from_source.targets, recorded.targets);
    EXPECT_EQ(from_source.mask, recorded.mask);
  }
  // and a whole run with inert options equals the default run
  TrainOptions inert = quick_options(temp_dir("off_inert"));
  inert.own.unroll_fraction = 0.2;
  inert.own.noise_fraction = 0.7;
  TrainResult ri = train_model(d, inert);
  EXPECT_EQ(ri.last_loss, r.last_loss);
  EXPECT_EQ(read_file(inert.out_dir + "/weights.safetensors"), read_file(dir + "/weights.safetensors"));
}

TEST(OwnStates, UnrolledFramesAreTheEnginesRolloutStates) {
  const Dataset d = make_pendulum_dataset({6, 30, 5});
  const std::string dir = temp_dir("engine");
  const ModelArtifact artifact = testing::quick_trained_artifact(d, dir, 7);
  TrainingArrays s = setup_for(d, artifact.config);
  const int R = s.config.history(), K = 6, W = R + K;
  auto model = make_model(s.config, 1);
  load_weights(*model, artifact);

  std::vector<WindowRef> windows;
  for (int64_t n = 0; n < d.trajectories; ++n) windows.push_back({n, 0});
  WindowBatch batch;
  gather_windows(s.arrays, windows, W, batch);
  UnrolledStates states;
  unroll_windows(*model, d, s.config, windows, int(windows.size()), K, nullptr, batch, &states);

  testing::expect_engine_rollout(dir, d, windows, states, K);
  // the rewritten inputs encode the predicted states; the targets lead to the recorded next ones
  const StateCodec codec(d.layout);
  const FrameFeatures ff(codec, 0);
  std::vector<float> x(size_t(s.config.input_dim)), y(size_t(s.config.output_dim));
  for (size_t b = 0; b < windows.size(); ++b)
    for (int j = 0; j < K; ++j) {
      const size_t bj = b * size_t(K) + size_t(j);
      const int64_t t = R + j, n = windows[b].trajectory;
      ff.input(&states.q[bj], &states.v[bj], d.u(n, t), nullptr, x.data());
      ff.target(&states.q[bj], &states.v[bj], d.q(n, t + 1), d.v(n, t + 1), y.data());
      const size_t bp = b * size_t(W) + size_t(t);
      for (int i = 0; i < s.config.input_dim; ++i)
        EXPECT_FLOAT_EQ(batch.inputs[bp * size_t(s.config.input_dim) + size_t(i)],
                        (x[size_t(i)] - s.config.norm.input_mean[size_t(i)]) / s.config.norm.input_std[size_t(i)]);
      for (int i = 0; i < s.config.output_dim; ++i)
        EXPECT_FLOAT_EQ(batch.targets[bp * size_t(s.config.output_dim) + size_t(i)],
                        (y[size_t(i)] - s.config.norm.target_mean[size_t(i)]) / s.config.norm.target_std[size_t(i)]);
    }
}

TEST(OwnStates, PerturbedTargetsLeadBackToTheRecordedNextState) {
  const Dataset d = make_pendulum_dataset({8, 30, 6});
  const std::string dir = temp_dir("noise");
  train_model(d, quick_options(dir));
  TrainingArrays s = setup_for(d, ModelArtifact::load(dir).config);
  WindowIndex index(s.arrays, s.trajectories, 10);
  auto model = make_model(s.config, 1);
  OwnStateOptions noisy;
  noisy.input_noise = 2.0;
  noisy.noise_fraction = 1.0;
  BatchSource source(d, s.config, s.arrays, index, 10, noisy, 3, 0, 1, 8, nullptr);
  WindowBatch batch, recorded;
  source.next(*model, 2, batch);
  const std::vector<WindowRef> windows = index.sample(3, 2, 8);
  gather_windows(s.arrays, windows, 10, recorded);
  const StateCodec codec(d.layout);
  const Normalization& nm = s.config.norm;
  int moved = 0;
  for (int b = 0; b < 8; ++b)
    for (int p = 0; p < 10; ++p) {
      const size_t bp = size_t(b) * 10 + size_t(p);
      if (batch.mask[bp] == 0.f) continue;
      // a pendulum frame is (q, v, u): the perturbed state is read back from the input
      const size_t din = size_t(s.config.input_dim);
      const double q = batch.inputs[bp * din] * nm.input_std[0] + nm.input_mean[0];
      const double v = batch.inputs[bp * din + 1] * nm.input_std[1] + nm.input_mean[1];
      double inc[2], q1, v1;
      for (int i = 0; i < 2; ++i) inc[i] = batch.targets[bp * 2 + size_t(i)] * nm.target_std[size_t(i)] + nm.target_mean[size_t(i)];
      codec.apply(&q, &v, inc, &q1, &v1);
      const int64_t n = windows[size_t(b)].trajectory, t = windows[size_t(b)].start + p;
      EXPECT_NEAR(q1, *d.q(n, t + 1), 1e-4);
      EXPECT_NEAR(v1, *d.v(n, t + 1), 1e-4);
      moved += batch.inputs[bp * din] != recorded.inputs[bp * din];
    }
  EXPECT_GT(moved, 40);
}

TEST(OwnStates, UnrolledRunIsDeterministicAndResumesBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 30, 3});
  TrainOptions whole = quick_options(temp_dir("unroll_whole"));
  whole.updates = 30;
  whole.checkpoint_every = 10;
  whole.own.unroll = 3;
  whole.own.unroll_ramp = 20;
  whole.own.input_noise = 0.5;
  whole.own.noise_fraction = 0.25;
  TrainOptions part;
  EXPECT_GT(testing::expect_resume_equals_whole(d, whole, temp_dir("unroll_part"), 13, &part).own_state_seconds, 0);
  // a resume with other own-state settings is refused, naming them
  part.own.unroll = 2;
  part.updates = 40;
  try {
    train_model(d, part);
    ADD_FAILURE() << "a resume with another unroll was accepted";
  } catch (const OptionError& e) {  // the CLI shows it as --resume: ... --unroll
    EXPECT_EQ(e.field(), "resume");
    EXPECT_NE(std::string(e.what()).find("resume with the same unroll and input_noise settings"), std::string::npos)
        << e.what();
  }
}

TEST(OwnStates, InitFromStartsFromTheArtifactsWeights) {
  const Dataset d = make_pendulum_dataset({10, 30, 8});
  const std::string parent = temp_dir("parent");
  train_model(d, quick_options(parent));
  TrainOptions child = quick_options(temp_dir("child"));
  child.init_from = parent;
  child.updates = 1;
  child.lr = 1e-30;  // an Adam step this small leaves every fp32 weight as it was
  child.lr_final = 1e-30;
  train_model(d, child);
  EXPECT_EQ(read_file(child.out_dir + "/weights.safetensors"), read_file(parent + "/weights.safetensors"));
}

}  // namespace
}  // namespace flashnerd::train
