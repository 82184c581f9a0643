// Rollouts and NRMSE with StepModels whose answers are known: an oracle that returns MuJoCo's
// own increments reproduces the recording (NRMSE ~ float roundoff); a model that predicts no
// motion has the error of a frozen state; a model that emits NaN is reported as diverged.
// Under input noise (RolloutOptions::input_noise): 0 is the clean rollout bit for bit; noise
// reaches the model through the fed-back state and is the same bits for any batch and thread
// count; more noise costs the shipped cartpole model more error; predicted steps allocate nothing.
#include "eval/rollout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/frame_features.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "eval/engine_step_model.h"
#include "eval/metrics.h"
#include "sim/generator.h"
#include "testing/alloc_counter.h"
#include "../sim/sim_test_models.h"

namespace flashnerd::eval {
namespace {

// Knows the dataset and answers with the recorded increment of the matching frame.
class OracleModel : public StepModel {
 public:
  enum class Mode { Truth, Zero, NaNAfter };
  OracleModel(const Dataset& d, std::vector<int64_t> traj, int history, Mode mode)
      : d_(d), codec_(d.layout), traj_(std::move(traj)), history_(history), mode_(mode) {}
  int input_dim() const override { return codec_.feature_dim() + d_.layout.nu; }
  int output_dim() const override { return codec_.increment_dim(); }
  int probe_dim() const override { return 0; }
  int history() const override { return history_; }
  void begin(int batch) override { frame_ = 0; }
  void step(int batch, const float* inputs, const engine::ContactBatch* contacts, float* outputs) override {
    for (int e = 0; e < batch; ++e) {
      int64_t n = traj_[size_t(e)];
      std::vector<float> inc(static_cast<size_t>(output_dim()));
      FrameFeatures ff(codec_, 0);
      ff.target(d_.q(n, frame_), d_.v(n, frame_), d_.a(n, frame_), d_.q(n, frame_ + 1), d_.v(n, frame_ + 1),
                d_.a(n, frame_ + 1), inc.data());
      for (int i = 0; i < output_dim(); ++i) {
        float x = mode_ == Mode::Zero ? 0.0f : inc[size_t(i)];
        if (mode_ == Mode::NaNAfter && e == 0 && frame_ >= history_ + 3) x = NAN;
        outputs[size_t(e) * output_dim() + size_t(i)] = x;
      }
    }
    ++frame_;
  }

 private:
  const Dataset& d_;
  StateCodec codec_;
  std::vector<int64_t> traj_;
  int history_;
  Mode mode_;
  int frame_ = 0;
};

Dataset walker_data() {
  sim::RobotSpec spec;
  spec.name = "walker";
  spec.mjcf = sim::testing::write_temp("walker.xml", sim::testing::kWalkerXml);
  spec.control_timestep = 0.02;
  spec.robot_root_body = "torso";
  spec.state.base_height = {0.3, 0.6};
  auto robot = sim::Robot::from_spec(spec);
  sim::GenerateOptions o;
  o.trajectories = 6;
  o.steps = 40;
  o.progress = false;
  ThreadPool pool(1);
  return sim::generate_dataset(*robot, o, pool);
}

TEST(Rollout, OracleReproducesTheRecording) {
  Dataset d = walker_data();
  auto traj = eligible_trajectories(d, 4, 30);
  ASSERT_FALSE(traj.empty());
  OracleModel oracle(d, traj, 4, OracleModel::Mode::Truth);
  RolloutOptions o;
  o.horizon = 30;
  ThreadPool pool(2);
  auto r = run_rollouts(oracle, d, traj, o, pool);
  auto std_dev = state_channel_std(d, traj);
  auto e = rollout_errors(d, r, std_dev, {1, 10, 30});
  EXPECT_EQ(e.diverged, 0);
  // float32 increments accumulate roundoff only
  for (const auto& h : e.horizons) EXPECT_LT(h.nrmse, 1e-4) << "H=" << h.horizon;
}

TEST(Rollout, OracleReproducesActivations) {
  sim::RobotOverrides overrides;
  overrides.control_timestep = 0.02;
  auto robot = sim::Robot::load(sim::testing::write_temp("stateful_arm.xml", sim::testing::kStatefulArmXml), overrides);
  Dataset d = sim::testing::generate_small(*robot, 4, 30);
  ThreadPool pool(2);
  ASSERT_EQ(d.layout.na, 2);
  auto traj = eligible_trajectories(d, 3, 20);
  ASSERT_FALSE(traj.empty());
  OracleModel oracle(d, traj, 3, OracleModel::Mode::Truth);
  RolloutOptions o;
  o.horizon = 20;
  auto r = run_rollouts(oracle, d, traj, o, pool);
  ASSERT_EQ(r.act.size(), traj.size() * 20 * 2);
  EXPECT_NEAR(r.act[2 * 19 + 1], d.a(traj[0], 3 + 19)[1], 1e-5);  // the last predicted frame
  auto std_dev = state_channel_std(d, traj);
  ASSERT_EQ(std_dev.size(), 6u);  // q, v and the two activations
  auto e = rollout_errors(d, r, std_dev, {1, 20});
  EXPECT_EQ(e.diverged, 0);
  for (const auto& h : e.horizons) EXPECT_LT(h.nrmse, 1e-4) << "H=" << h.horizon;
  EXPECT_TRUE(e.horizons[0].group_rmse.count("activation"));
}

TEST(Rollout, FrozenPredictionHasTheFrozenStateError) {
  Dataset d = walker_data();
  auto traj = eligible_trajectories(d, 4, 20);
  OracleModel zero(d, traj, 4, OracleModel::Mode::Zero);
  RolloutOptions o;
  o.horizon = 20;
  ThreadPool pool(1);
  auto r = run_rollouts(zero, d, traj, o, pool);
  auto std_dev = state_channel_std(d, traj);
  auto e = rollout_errors(d, r, std_dev, {1, 20});
  // by hand: every predicted state equals the last primed frame
  StateCodec codec(d.layout);
  std::vector<double> err(static_cast<size_t>(codec.channel_dim()));
  double sq = 0;
  for (int64_t n : traj) {
    codec.channel_error(d.q(n, 3), d.v(n, 3), d.q(n, 4), d.v(n, 4), err.data());
    for (int c = 0; c < codec.channel_dim(); ++c) sq += std::pow(err[size_t(c)] / std_dev[size_t(c)], 2);
  }
  double expected_h1 = std::sqrt(sq / double(traj.size() * size_t(codec.channel_dim())));
  EXPECT_NEAR(e.horizons[0].nrmse, expected_h1, 1e-9 * (1 + expected_h1));
  EXPECT_GT(e.horizons[1].nrmse, e.horizons[0].nrmse);
}

TEST(Rollout, DivergenceIsReportedNotThrown) {
  Dataset d = walker_data();
  auto traj = eligible_trajectories(d, 4, 20);
  ASSERT_GE(traj.size(), 2u);
  OracleModel bad(d, traj, 4, OracleModel::Mode::NaNAfter);
  RolloutOptions o;
  o.horizon = 20;
  ThreadPool pool(1);
  auto r = run_rollouts(bad, d, traj, o, pool);
  EXPECT_GE(r.diverged_at[0], 0);
  for (size_t i = 1; i < traj.size(); ++i) EXPECT_EQ(r.diverged_at[i], -1);
  auto e = rollout_errors(d, r, state_channel_std(d, traj), {20});
  EXPECT_EQ(e.diverged, 1);
  EXPECT_TRUE(std::isfinite(e.horizons[0].nrmse));
}

TEST(Rollout, HorizonLongerThanTheDataIsRefused) {
  Dataset d = walker_data();
  OracleModel oracle(d, {0}, 4, OracleModel::Mode::Truth);
  RolloutOptions o;
  o.horizon = 100;
  ThreadPool pool(1);
  EXPECT_THROW(run_rollouts(oracle, d, {0}, o, pool), Error);
}

// Answers each environment from its own input alone (a small multiple of the frame's
// features), so a row's rollout cannot depend on the batch it is stepped in, while any noise
// on the fed-back state changes what it answers. For a floating base it records how far the
// gravity direction it reads is from unit length (a quaternion not renormalized after the
// noise tilts it); optionally it counts the heap allocations made between predicted steps
// (decode, noise, record, encode).
class InputEchoModel : public StepModel {
 public:
  InputEchoModel(const Dataset& d, int history)
      : codec_(d.layout), nu_(d.layout.nu), history_(history), floating_base_(d.layout.floating_base) {}
  int input_dim() const override { return codec_.feature_dim() + nu_; }
  int output_dim() const override { return codec_.increment_dim(); }
  int probe_dim() const override { return 0; }
  int history() const override { return history_; }
  void begin(int) override { frame_ = 0; }
  void step(int batch, const float* inputs, const engine::ContactBatch*, float* outputs) override {
    g_counting = false;
    if (frame_ > history_) allocations_between_steps += g_allocations.exchange(0);
    for (int e = 0; e < batch; ++e) {
      const float* gravity = inputs + size_t(e) * input_dim();  // features 0..2 of a floating base
      if (floating_base_)
        gravity_norm_error = std::max(gravity_norm_error, std::abs(std::hypot(gravity[0], gravity[1], gravity[2]) - 1.0));
      for (int i = 0; i < output_dim(); ++i)
        outputs[size_t(e) * output_dim() + size_t(i)] = 0.01f * inputs[size_t(e) * input_dim() + size_t(i % input_dim())];
    }
    ++frame_;
    if (count_allocations && frame_ >= history_) {  // from the end of a predicted step to the next
      g_allocations = 0;
      g_counting = true;
    }
  }
  bool count_allocations = false;
  long allocations_between_steps = 0;
  double gravity_norm_error = 0;

 private:
  StateCodec codec_;
  int nu_, history_;
  bool floating_base_;
  int frame_ = 0;
};

Dataset cartpole_data(int trajectories, int steps) {
  auto robot = sim::Robot::load("cartpole");
  sim::GenerateOptions o;
  o.trajectories = trajectories;
  o.steps = steps;
  o.progress = false;
  ThreadPool pool(1);
  return sim::generate_dataset(*robot, o, pool);
}

void expect_same_bits(const RolloutResult& a, const RolloutResult& b) {
  ASSERT_EQ(a.qpos.size(), b.qpos.size());
  for (size_t i = 0; i < a.qpos.size(); ++i) ASSERT_EQ(a.qpos[i], b.qpos[i]) << "qpos " << i;
  for (size_t i = 0; i < a.qvel.size(); ++i) ASSERT_EQ(a.qvel[i], b.qvel[i]) << "qvel " << i;
  EXPECT_EQ(a.diverged_at, b.diverged_at);
}

bool any_difference(const RolloutResult& a, const RolloutResult& b) {
  return a.qpos != b.qpos || a.qvel != b.qvel;
}

TEST(InputNoise, ZeroNoiseIsTheCleanRolloutBitForBit) {
  auto robot = sim::Robot::load("cartpole");
  const Dataset d = cartpole_data(6, 30);
  ThreadPool pool(2);
  auto model = engine::Model::random(env::random_robot_model_config(*robot, Arch::FlashNeRD, ModelPreset::Tiny, false), 3);
  EngineStepModel step(model, 6, &pool);
  const auto traj = eligible_trajectories(d, step.history(), 20);
  ASSERT_FALSE(traj.empty());
  RolloutOptions clean;
  clean.horizon = 20;
  RolloutOptions zero = clean;
  zero.input_noise = 0;
  zero.noise_seed = 12345;
  expect_same_bits(run_rollouts(step, d, traj, clean, pool), run_rollouts(step, d, traj, zero, pool));
  RolloutOptions noisy = clean;
  noisy.input_noise = 0.01;
  EXPECT_TRUE(any_difference(run_rollouts(step, d, traj, clean, pool), run_rollouts(step, d, traj, noisy, pool)));
}

TEST(InputNoise, SameSeedSameBitsForAnyBatchAndThreadCount) {
  for (const Dataset& d : {cartpole_data(7, 30), walker_data()}) {  // fixed and floating base
    InputEchoModel model(d, 3);
    const auto traj = eligible_trajectories(d, 3, 20);
    ASSERT_GE(traj.size(), 3u);
    RolloutOptions o;
    o.horizon = 20;
    o.input_noise = 0.05;
    o.noise_seed = 7;
    ThreadPool one(1), three(3);
    o.batch = int(traj.size());
    const RolloutResult whole = run_rollouts(model, d, traj, o, one);
    o.batch = 2;
    const RolloutResult pairs = run_rollouts(model, d, traj, o, three);
    expect_same_bits(whole, pairs);
    // the noise did reach the rollout, and the seed chooses it
    RolloutOptions clean = o;
    clean.input_noise = 0;
    EXPECT_TRUE(any_difference(whole, run_rollouts(model, d, traj, clean, one)));
    RolloutOptions other_seed = o;
    other_seed.noise_seed = 8;
    EXPECT_TRUE(any_difference(whole, run_rollouts(model, d, traj, other_seed, one)));
    for (int64_t n = 0; n < whole.trajectories; ++n) EXPECT_EQ(whole.diverged_at[size_t(n)], -1);
    EXPECT_LT(model.gravity_norm_error, 1e-5) << "a noisy quaternion was fed back without renormalizing";
  }
}

TEST(InputNoise, NoiseIsRelativeToEachStateComponentsSpread) {
  const Dataset d = cartpole_data(5, 30);
  const std::vector<int64_t> traj = {0, 1, 2, 3, 4};
  const auto sd = state_component_std(d, traj);
  ASSERT_EQ(sd.size(), size_t(d.layout.nq + d.layout.nv));
  // by hand for the cart's velocity, the first qvel
  double sum = 0, sq = 0;
  int64_t count = 0;
  for (int64_t n : traj)
    for (int64_t t = 0; t < d.steps; ++t)
      if (d.is_valid(n, t)) {
        sum += d.v(n, t)[0], sq += d.v(n, t)[0] * d.v(n, t)[0];
        ++count;
      }
  const double mean = sum / double(count);
  EXPECT_NEAR(sd[size_t(d.layout.nq)], std::sqrt(sq / double(count) - mean * mean), 1e-12);
  for (double s : sd) EXPECT_GT(s, 0.0);
  InputEchoModel model(d, 3);
  RolloutOptions o;
  o.horizon = 10;
  o.input_noise = -0.1;
  ThreadPool pool(1);
  EXPECT_THROW(run_rollouts(model, d, traj, o, pool), Error);
  o.input_noise = NAN;
  EXPECT_THROW(run_rollouts(model, d, traj, o, pool), Error);
}

TEST(InputNoise, MoreNoiseMoreErrorForTheShippedCartpoleModel) {
  const auto model = engine::Model::load(std::string(FLASHNERD_SOURCE_DIR) + "/models/cartpole");
  const int H = 100;
  const Dataset d = cartpole_data(24, model->config().history() + H);
  ThreadPool pool(2);
  EngineStepModel step(model, 24, &pool);
  const auto traj = eligible_trajectories(d, step.history(), H);
  ASSERT_EQ(traj.size(), 24u);
  double previous = 0;
  for (double scale : {0.0, 0.03, 0.1}) {
    RolloutOptions o;
    o.horizon = H;
    o.input_noise = scale;
    const auto e = rollout_errors(d, run_rollouts(step, d, traj, o, pool), model->config().norm.channel_std, {50, H});
    EXPECT_GT(e.horizons[1].nrmse, previous) << "noise " << scale;
    previous = e.horizons[1].nrmse;
  }
}

TEST(InputNoise, PredictedStepsAllocateNothing) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "the sanitizer build owns malloc";
  const Dataset d = walker_data();
  InputEchoModel model(d, 3);
  model.count_allocations = true;
  const auto traj = eligible_trajectories(d, 3, 20);
  RolloutOptions o;
  o.horizon = 20;
  o.input_noise = 0.05;
  ThreadPool pool(2);
  run_rollouts(model, d, traj, o, pool);
  g_counting = false;
  EXPECT_EQ(model.allocations_between_steps, 0);
}

}  // namespace
}  // namespace flashnerd::eval
