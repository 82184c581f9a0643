// The coupled comparison's plumbing with a random free-velocity model: the oracle mode
// reproduces MuJoCo, every mode reports per-step errors, and a model that predicts
// increments (not free motion) is refused.
#include "eval/coupled_rollout.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/state_codec.h"

namespace flashnerd::eval {
namespace {

ModelConfig free_velocity_config(const sim::Robot& robot, const std::string& target) {
  ModelConfig c;
  c.arch = Arch::FlashNeRD;
  c.robot = robot.name();
  c.timestep = robot.control_timestep();
  c.layout = robot.layout();
  StateCodec codec(c.layout);
  c.state_dim = codec.feature_dim();
  c.input_dim = c.state_dim + c.layout.nu;
  c.target = target;
  c.output_dim = target == "free_velocity" ? c.layout.nv : codec.increment_dim();
  apply_preset("tiny", c);
  // a tiny random model's raw outputs are O(1) rad/s per step; scale them down so the hand
  // stays in a sane range (the oracle mode does not use the model at all)
  for (int i = 0; i < c.output_dim; ++i) {
    c.norm.target_mean.push_back(0.0f);
    c.norm.target_std.push_back(1e-3f);
  }
  for (int i = 0; i < c.input_dim; ++i) {
    c.norm.input_mean.push_back(0.0f);
    c.norm.input_std.push_back(1.0f);
  }
  return c;
}

TEST(CoupledComparison, OracleMatchesMuJoCoAndModesReport) {
  auto scene = sim::Robot::load("hand16");
  auto alone = sim::Robot::load("hand16_alone");
  auto model = engine::Model::random(free_velocity_config(*scene, "free_velocity"), 3);
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
  auto model = engine::Model::random(free_velocity_config(*scene, "increment"), 3);
  ThreadPool pool(1);
  EXPECT_THROW(run_coupled_comparison(scene, alone, model, CoupledOptions{}, pool), Error);
}

}  // namespace
}  // namespace flashnerd::eval
