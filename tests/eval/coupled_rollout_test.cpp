// The coupled comparison's plumbing with a random free-velocity model: the oracle mode
// reproduces MuJoCo, every mode reports per-step errors, and a model that predicts
// increments (not free motion) is refused.
#include "eval/coupled_rollout.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/state_codec.h"
#include "testing/enum_names_checks.h"
#include "testing/robot_models.h"

namespace flashnerd::eval {
namespace {

ModelConfig free_velocity_config(const sim::Robot& robot, PredictionTarget target) {
  return flashnerd::testing::robot_model_config(robot, Arch::FlashNeRD, target);
}

// The motions' one name table: every name parses to its value and back, an unknown name is
// refused with the choices.
TEST(CoupledComparison, HandMotionNamesRoundTrip) {
  flashnerd::testing::expect_enum_names(kHandMotionNames, parse_hand_motion, hand_motion_name, "wave",
                                        "unknown motion 'wave': expected grasp, push or random");
}

TEST(CoupledComparison, OracleMatchesMuJoCoAndModesReport) {
  auto scene = sim::Robot::load("hand16");
  auto alone = sim::Robot::load("hand16_alone");
  auto model = engine::Model::random(free_velocity_config(*scene, PredictionTarget::FreeVelocity), 3);
  ThreadPool pool(2);
  CoupledOptions o;
  o.envs = 3;
  o.steps = 60;
  o.motion = HandMotion::Grasp;
  auto r = run_coupled_comparison(scene, alone, model, o, pool);
  ASSERT_EQ(r.modes.size(), 4u);
  EXPECT_EQ(r.modes[0].mode, "analytical");
  for (const auto& m : r.modes) {
    EXPECT_EQ(m.cube_position_error.size(), 60u);
    EXPECT_GT(m.steps_per_second, 0);
  }
  EXPECT_EQ(r.modes[0].cube_position_error.back(), 0.0);
  EXPECT_LT(r.modes[3].cube_position_error.back(), 1e-9) << "oracle coupling must equal MuJoCo";
  EXPECT_LT(r.modes[3].hand_error.back(), 1e-9);
  EXPECT_EQ(r.hand_deflection.size(), 60u);
}

TEST(CoupledComparison, IncrementModelIsRefused) {
  auto scene = sim::Robot::load("hand16");
  auto alone = sim::Robot::load("hand16_alone");
  auto model = engine::Model::random(free_velocity_config(*scene, PredictionTarget::Increment), 3);
  ThreadPool pool(1);
  EXPECT_THROW(run_coupled_comparison(scene, alone, model, CoupledOptions{}, pool), Error);
}

}  // namespace
}  // namespace flashnerd::eval
