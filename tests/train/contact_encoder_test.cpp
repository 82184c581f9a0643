// Variable contacts in training (docs/DESIGN.md §4): the libtorch set encoder is invariant to row
// order and padding, contributes exactly nothing without contacts, equals the engine after
// export, and trains end to end on climbing data whose rows the rollout re-detects.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "engine/test_models.h"
#include "eval/engine_step_model.h"
#include "eval/rollout.h"
#include "sim/generator.h"
#include "train/models.h"
#include "train/trainer.h"

namespace flashnerd::train {
namespace {

namespace fs = std::filesystem;
using engine::testing::ContactFrames;
using engine::testing::random_contacts;
using engine::testing::kFp32Tolerance;
using engine::testing::relative_error;

ModelConfig contact_config() {
  ModelConfig c = engine::testing::flash_contact_test_config();
  c.flash.head_dim = 16;
  c.validate();
  return c;
}

std::shared_ptr<DynamicsModel> random_model(const ModelConfig& c) {
  auto model = make_model(c, 1);
  torch::manual_seed(3);
  torch::NoGradGuard g;
  for (auto& p : model->parameters()) p.copy_(torch::randn(p.sizes()) * 0.3);
  return model;
}

// (T, B) frames of raw rows -> standardized torch window (B, T, K).
ContactWindow to_window(const ModelConfig& c, const ContactFrames& f, int B, int T) {
  const int K = f.K;
  torch::Tensor rows = torch::zeros({B, T, K, kContactRowDim});
  torch::Tensor link = torch::zeros({B, T, K}, torch::kLong);
  torch::Tensor mask = torch::zeros({B, T, K}, torch::kBool);
  auto ra = rows.accessor<float, 4>();
  auto la = link.accessor<int64_t, 3>();
  auto ma = mask.accessor<bool, 3>();
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b) {
      const size_t fr = size_t(t) * B + size_t(b);
      for (int r = 0; r < K; ++r) {
        const bool valid = r < f.count[fr];
        ma[b][t][r] = valid;
        la[b][t][r] = valid ? f.link[fr * K + size_t(r)] : 0;
        for (int k = 0; k < kContactRowDim; ++k)
          ra[b][t][r][k] = valid ? (f.rows[(fr * K + size_t(r)) * kContactRowDim + size_t(k)] - c.norm.contact_mean[size_t(k)]) /
                                       c.norm.contact_std[size_t(k)]
                                 : 0.f;
      }
    }
  return {rows, link, mask};
}

torch::Tensor standardized_inputs(const ModelConfig& c, const std::vector<float>& raw, int B, int T) {
  torch::Tensor x = torch::empty({B, T, c.input_dim});
  auto xa = x.accessor<float, 3>();
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < c.input_dim; ++k)
        xa[b][t][k] = (raw[(size_t(t) * B + b) * c.input_dim + k] - c.norm.input_mean[size_t(k)]) / c.norm.input_std[size_t(k)];
  return x;
}

TEST(ContactEncoder, TorchWithContactsEqualsEngineStreaming) {
  const ModelConfig c = contact_config();
  auto model = random_model(c);
  const std::string dir = (fs::temp_directory_path() / "flashnerd_contact_equivalence").string();
  fs::remove_all(dir);
  export_model(*model, c, dir);
  auto engine_model = engine::Model::load(dir);
  const int B = 4, T = 13, din = c.input_dim, dout = c.output_dim;
  auto raw = engine::testing::random_inputs(size_t(T) * B, din, 8);
  ContactFrames f = random_contacts(size_t(T) * B, c.contact.capacity, c.contact.link_count, 9);
  torch::NoGradGuard g;
  ContactWindow w = to_window(c, f, B, T);
  torch::Tensor y = model->predict(standardized_inputs(c, raw, B, T), &w);  // (B, T, dout) standardized
  std::vector<double> want(size_t(B) * T * dout), got(want.size());
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int k = 0; k < dout; ++k)
        want[(size_t(b) * T + t) * dout + k] =
            double(y[b][t][k].item<float>()) * c.norm.target_std[size_t(k)] + c.norm.target_mean[size_t(k)];
  engine::ContextOptions opt;
  opt.max_batch = B;
  engine::Context ctx(*engine_model, opt);
  std::vector<float> out(size_t(B) * dout);
  for (int t = 0; t < T; ++t) {
    const engine::ContactBatch cb = f.batch(size_t(t) * B);
    engine::step(*engine_model, ctx, B, raw.data() + size_t(t) * B * din, &cb, out.data());
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < dout; ++k) got[(size_t(b) * T + t) * dout + k] = out[size_t(b) * dout + k];
  }
  EXPECT_LT(relative_error(got, want), kFp32Tolerance);
}

TEST(ContactEncoder, PermutationPaddingAndEmptySet) {
  const ModelConfig c = contact_config();
  auto model = random_model(c);
  auto* flash = dynamic_cast<FlashNeRDModel*>(model.get());
  ASSERT_NE(flash, nullptr);
  const int B = 3, T = 6;
  ContactFrames f = random_contacts(size_t(T) * B, c.contact.capacity, c.contact.link_count, 4);
  torch::NoGradGuard g;
  ContactWindow w = to_window(c, f, B, T);
  torch::Tensor p = flash->contact(w);
  ASSERT_EQ(p.size(2), c.contact.pooled_dim());
  // permutation of the row axis (mask and link permuted alike)
  torch::Tensor perm = torch::randperm(c.contact.capacity, torch::kLong);
  ContactWindow permuted{w.rows.index_select(2, perm), w.link.index_select(2, perm), w.mask.index_select(2, perm)};
  EXPECT_LT((flash->contact(permuted) - p).abs().max().item<float>(), 1e-5f);
  // padding content: garbage (NaN included) where the mask is false
  torch::Tensor garbage = torch::full_like(w.rows, std::numeric_limits<float>::quiet_NaN());
  ContactWindow padded{torch::where(w.mask.unsqueeze(-1), w.rows, garbage), w.link.masked_fill(w.mask.logical_not(), 3), w.mask};
  EXPECT_TRUE(torch::equal(flash->contact(padded), p));
  // frames without rows pool to exactly zero, and the model equals the contact-free forward
  ContactWindow empty{w.rows, w.link, torch::zeros_like(w.mask)};
  EXPECT_EQ(flash->contact(empty).abs().max().item<float>(), 0.f);
  torch::Tensor x = torch::randn({B, T, c.input_dim});
  EXPECT_TRUE(torch::equal(model->predict(x, &empty), model->forward(x)));
  EXPECT_FALSE(torch::equal(model->predict(x, &w), model->forward(x)));
}

// A short climbing dataset: quadruped on randomized platforms, contact rows recorded.
const Dataset& climbing_data() {
  static const Dataset d = [] {
    auto robot = sim::Robot::load("quadruped_platform");
    sim::GenerateOptions o;
    o.trajectories = 16;
    o.steps = 30;
    o.seed = 3;
    o.progress = false;
    ThreadPool pool(2);
    return sim::generate_dataset(*robot, o, pool);
  }();
  return d;
}

TEST(ContactEncoder, TrainsOnClimbingDataAndRollsOutWithRedetectedContacts) {
  const Dataset& d = climbing_data();
  TrainOptions o;
  o.arch = Arch::FlashNeRD;
  o.preset = ModelPreset::Tiny;
  o.out_dir = (fs::temp_directory_path() / "flashnerd_contact_train").string();
  fs::remove_all(o.out_dir);
  o.updates = 80;
  o.batch = 16;
  o.lr = 3e-3;
  o.valid_every = 40;
  o.progress = false;
  o.write_plot = false;
  o.probes = ProbeUse::Off;
  o.variable_contacts = true;
  TrainResult r = train_model(d, o);
  EXPECT_LT(r.last_loss, 0.7 * r.first_loss);
  EXPECT_TRUE(std::isfinite(r.valid_rollout_nrmse));
  auto model = engine::Model::load(r.artifact_dir);
  ASSERT_TRUE(model->config().contact.enabled());
  EXPECT_EQ(model->config().contact.capacity, d.contact_capacity);
  EXPECT_EQ(model->config().contact.link_count, d.link_count);

  auto robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool(2);
  eval::EngineStepModel step_model(model, 8, &pool);
  eval::RolloutOptions ro;
  ro.horizon = 12;
  ro.batch = 8;
  ro.robot = robot.get();
  auto traj = eval::eligible_trajectories(d, step_model.history(), ro.horizon);
  ASSERT_FALSE(traj.empty());
  auto res = eval::run_rollouts(step_model, d, traj, ro, pool);
  EXPECT_GT(res.contact_rows_max, 0);  // the detector ran at predicted states
  EXPECT_EQ(res.contact_overflow, 0);
  EXPECT_GT(res.sensing_seconds, 0.0);
}

TEST(ContactEncoder, RefusesWhatCannotWork) {
  const Dataset& d = climbing_data();
  EXPECT_THROW(make_model_config(d, Arch::NeRD, ModelPreset::Tiny, false, PredictionTarget::Increment, true), Error);
  Dataset no_rows = d;
  no_rows.contact_capacity = 0;
  try {
    make_model_config(no_rows, Arch::FlashNeRD, ModelPreset::Tiny, false, PredictionTarget::Increment, true);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no contact rows recorded"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::train
