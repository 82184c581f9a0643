// Back-propagation through the model's own steps (train --unroll-grad): one forecast step is
// teacher forcing bit for bit, the fed-back states are the engine's rollout of the same
// weights, the gradient through two fed-back steps equals finite differences (a floating base,
// in double precision), and a run resumes bit for bit.
#include "train/unrolled_loss.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/atomic_file.h"
#include "core/model_artifact.h"
#include "core/rotation.h"
#include "core/state_codec.h"
#include "pendulum.h"
#include "training_fixtures.h"
#include "train/trainer.h"

namespace flashnerd::train {
namespace {

using testing::make_pendulum_dataset;

TrainOptions quick_options(const std::string& dir) { return testing::quick_train_options(dir, 30, 5); }

// A floating base with one hinge, moving smoothly at random (kinematics only: the test needs
// states, not physics).
Dataset floating_dataset(int64_t trajectories, int64_t steps) {
  Dataset d;
  d.robot = "floating";
  d.mjcf_hash = "synthetic";
  d.actuator_model = "motor";
  d.timestep = 0.02;
  d.layout.nq = 8;
  d.layout.nv = 7;
  d.layout.nu = 1;
  d.layout.floating_base = true;
  d.layout.joint_wrapped = {0};
  d.allocate(trajectories, steps, false);
  Rng rng(11);
  for (int64_t n = 0; n < trajectories; ++n) {
    double q[8] = {0, 0, 0.5, 1, 0, 0, 0, 0}, v[7];
    for (double& x : v) x = rng.uniform(-1, 1);
    for (int64_t t = 0; t <= steps; ++t) {
      std::copy_n(q, 8, &d.qpos[size_t((n * (steps + 1) + t) * 8)]);
      std::copy_n(v, 7, &d.qvel[size_t((n * (steps + 1) + t) * 7)]);
      if (t == steps) break;
      d.ctrl[size_t(n * steps + t)] = rng.uniform(-1, 1);
      d.valid[size_t(n * steps + t)] = 1;
      double r[3] = {v[3] * d.timestep, v[4] * d.timestep, v[5] * d.timestep}, dq[4], q1[4];
      rot::rotvec_to_quat(r, dq);  // MuJoCo's angular velocity is local
      rot::quat_mul(q + 3, dq, q1);
      for (int i = 0; i < 3; ++i) q[i] += d.timestep * v[i];  // the linear one is in the world frame
      std::copy_n(q1, 4, q + 3);
      q[7] += d.timestep * v[6];
      for (double& x : v) x += 0.1 * rng.uniform(-1, 1) + 0.05 * d.ctrl[size_t(n * steps + t)];
    }
  }
  return d;
}

struct Setup {
  ModelConfig config;
  TransitionArrays arrays;
};

Setup setup_for(const Dataset& d, Arch arch) {
  const StateCodec codec(d.layout);
  Setup s{make_model_config(d, arch, ModelPreset::Tiny, false), build_transitions(d, codec, false)};
  std::vector<int64_t> all;
  for (int64_t n = 0; n < d.trajectories; ++n) all.push_back(n);
  s.config.norm = fit_normalization(d, s.arrays, codec, all);
  standardize_transitions(s.arrays, s.config.norm);
  return s;
}

TEST(UnrolledLoss, OneForecastStepIsTeacherForcingBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 30, 2});
  const TrainOptions plain = quick_options(testing::fresh_temp_dir("unrolled_loss_plain"));
  const TrainResult rp = train_model(d, plain);
  TrainOptions one = quick_options(testing::fresh_temp_dir("unrolled_loss_one_step"));
  one.own.unroll = 1;
  one.own.unroll_gradient = true;
  one.own.unroll_decay = 0.5;
  const TrainResult r1 = train_model(d, one);
  EXPECT_EQ(r1.last_loss, rp.last_loss);
  EXPECT_EQ(read_file(one.out_dir + "/weights.safetensors"), read_file(plain.out_dir + "/weights.safetensors"));
}

TEST(UnrolledLoss, FedBackStatesAreTheEnginesRollout) {
  const Dataset d = make_pendulum_dataset({6, 30, 5});
  const std::string dir = testing::fresh_temp_dir("unrolled_loss_engine");
  const ModelArtifact artifact = testing::quick_trained_artifact(d, dir, 5);
  const int R = artifact.config.history(), K = 7, W = R + K - 1;  // K−1 fed-back frames after R recorded ones
  auto model = make_model(artifact.config, 1);
  load_weights(*model, artifact);
  TransitionArrays arrays = build_transitions(d, StateCodec(d.layout), false);
  standardize_transitions(arrays, artifact.config.norm);
  std::vector<WindowRef> windows;
  for (int64_t n = 0; n < d.trajectories; ++n) windows.push_back({n, 0});
  WindowBatch batch;
  gather_windows(arrays, windows, W, batch);
  UnrolledLoss loss(d, artifact.config, nullptr);
  Rng rng(1);
  UnrolledStates states;
  const WeightedLoss l = loss(*model, batch, windows, int(windows.size()), {K, 1.0, UnrollFeedback::Mean}, rng, &states);
  EXPECT_TRUE(std::isfinite(l.sse.item<double>()));

  testing::expect_engine_rollout(dir, d, windows, states, K - 1);
}

// Central differences of the loss against autograd, for entries of every parameter tensor: the
// loss depends on the weights through the fed-back frames too, so a cut in the chain fails.
void check_gradient(Arch arch) {
  const Dataset d = floating_dataset(6, 20);
  Setup s = setup_for(d, arch);
  auto model = make_model(s.config, 3);
  model->to(torch::kDouble);
  std::vector<WindowRef> windows;
  for (int64_t n = 0; n < d.trajectories; ++n) windows.push_back({n, 2});
  WindowBatch batch;
  const int W = std::min(6, s.config.history());  // NeRD's tiny preset learns 5 positions
  gather_windows(s.arrays, windows, W, batch);
  UnrolledLoss loss(d, s.config, nullptr);
  const ForecastSettings forecast{3, 0.7, UnrollFeedback::Mean};  // two fed-back frames
  auto value = [&] {
    Rng rng(1);
    return loss(*model, batch, windows, 4, forecast, rng).sse;
  };
  model->zero_grad();
  value().backward();
  int checked = 0;
  for (auto& p : model->parameters()) {
    if (p.numel() == 0) continue;
    auto flat = p.view(-1);
    for (int64_t idx : {int64_t(0), p.numel() / 2, p.numel() - 1}) {
      const double analytic = p.grad().view(-1)[idx].item<double>();
      const double h = 1e-6, x0 = flat[idx].item<double>();
      double plus, minus;
      {
        torch::NoGradGuard no_grad;
        flat[idx] = x0 + h;
        plus = value().item<double>();
        flat[idx] = x0 - h;
        minus = value().item<double>();
        flat[idx] = x0;
      }
      const double numeric = (plus - minus) / (2 * h);
      EXPECT_NEAR(analytic, numeric, 1e-6 + 1e-5 * std::fabs(numeric)) << arch_name(arch) << " parameter entry " << idx;
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

TEST(UnrolledLoss, GradientThroughTwoStepsEqualsFiniteDifferencesFlashNeRD) { check_gradient(Arch::FlashNeRD); }

TEST(UnrolledLoss, GradientThroughTwoStepsEqualsFiniteDifferencesNeRD) { check_gradient(Arch::NeRD); }

TEST(UnrolledLoss, RunResumesBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 30, 3});
  TrainOptions whole = quick_options(testing::fresh_temp_dir("unrolled_loss_whole"));
  whole.updates = 24;
  whole.checkpoint_every = 8;
  whole.own.unroll = 4;
  whole.own.unroll_ramp = 10;
  whole.own.unroll_gradient = true;
  whole.own.unroll_decay = 0.8;
  whole.own.unroll_feedback = UnrollFeedback::Noise;
  testing::expect_resume_equals_whole(d, whole, testing::fresh_temp_dir("unrolled_loss_part"), 9);
}

}  // namespace
}  // namespace flashnerd::train
