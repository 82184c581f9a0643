// Rollouts and NRMSE with StepModels whose answers are known: an oracle that returns MuJoCo's
// own increments reproduces the recording (NRMSE ~ float roundoff); a model that predicts no
// motion has the error of a frozen state; a model that emits NaN is reported as diverged.
#include "eval/rollout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/frame_features.h"
#include "eval/metrics.h"
#include "sim/generator.h"
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

}  // namespace
}  // namespace flashnerd::eval
