// Ensemble calibration: Spearman's rank correlation on known orderings, and on real MuJoCo
// data identical members never disagree and their mean is the member itself.
#include "eval/ensemble_calibration.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/thread_pool.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "eval/engine_step_model.h"
#include "sim/generator.h"

namespace flashnerd::eval {
namespace {

TEST(Spearman, KnownOrderingsAndTies) {
  EXPECT_DOUBLE_EQ(spearman_correlation({1, 2, 3, 4}, {10, 20, 35, 400}), 1.0);  // monotone, not linear
  EXPECT_DOUBLE_EQ(spearman_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // ties share their mean rank: x ranks (0.5, 0.5, 2, 3), y ranks (0, 1, 2, 3)
  const double r = spearman_correlation({1, 1, 2, 3}, {1, 2, 3, 4});
  EXPECT_NEAR(r, 0.9486832980505138, 1e-12);
  EXPECT_TRUE(std::isnan(spearman_correlation({1}, {2})));
}

TEST(EnsembleCalibration, IdenticalMembersNeverDisagreeAndDistinctOnesDo) {
  auto robot = sim::Robot::load("cartpole");
  sim::GenerateOptions o;
  o.trajectories = 6;
  o.steps = 30;
  o.progress = false;
  ThreadPool pool(1);
  const Dataset d = sim::generate_dataset(*robot, o, pool);
  ModelConfig c = env::random_robot_model_config(*robot, Arch::FlashNeRD, ModelPreset::Tiny, false);
  auto a = engine::Model::random(c, 1), b = engine::Model::random(c, 2);
  std::vector<int64_t> traj{0, 1, 2, 3, 4, 5};
  EngineStepModel a1(a, 6, &pool), a2(a, 6, &pool), b1(b, 6, &pool);
  const std::vector<double> channel_std(4, 1.0);
  const EnsembleCalibration same = ensemble_calibration({&a1, &a2}, a->target_std(), channel_std, d, traj, 6);
  ASSERT_FALSE(same.error.empty());
  for (size_t i = 0; i < same.error.size(); ++i) {
    EXPECT_EQ(same.disagreement[i], 0.0);
    EXPECT_DOUBLE_EQ(same.error[i], same.member_error[i]);  // the mean of twins is either twin
  }
  const EnsembleCalibration pair = ensemble_calibration({&a1, &b1}, a->target_std(), channel_std, d, traj, 6);
  ASSERT_EQ(pair.error.size(), same.error.size());
  for (double x : pair.disagreement) EXPECT_GT(x, 0.0);
  EXPECT_EQ(pair.member_error.size(), 2 * pair.error.size());
}

}  // namespace
}  // namespace flashnerd::eval
