// The swing-up task starts hanging, rewards each step with the Control Suite's product of
// upright, centred, small-control and small-spin factors (in [0, 1], never negative), and ends
// an episode only when the cart leaves the track.
#include "env/cartpole_swingup_task.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"

namespace flashnerd::env {
namespace {

TEST(CartpoleSwingupTask, StartsHangingAndRewardsTheControlSuiteProduct) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend backend(robot, 1, pool);
  auto task = make_task("cartpole-swingup", *robot);
  ASSERT_EQ(task->name(), "cartpole-swingup");
  EXPECT_EQ(task_robot("cartpole-swingup"), "cartpole");
  ASSERT_EQ(task->reward_terms().size(), 1u);
  task->allocate(1);
  Rng rng(3);
  double q[2], v[2];
  task->reset(0, rng, q, v);
  EXPECT_LT(std::cos(q[1]), -0.99);  // hanging
  double r = 0;
  const float none = 0.0f;
  backend.reset(0, q, v);
  EXPECT_FALSE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_LT(r, 0.01) << "hanging earns (nearly) nothing";
  EXPECT_GE(r, 0.0);
  // upright, centred and still with no force: the whole reward
  const double upright[2] = {0.0, 0.0}, still[2] = {0.0, 0.0};
  backend.set_state(0, upright, still);
  EXPECT_FALSE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_DOUBLE_EQ(r, 1.0);
  // each factor by itself: the cart 2 m out (tolerance 0.1), the pole turning at 5 rad/s
  // (0.1), half force ((4 + 0.75)/5), each against the one at the centre
  const double out[2] = {2.0, 0.0}, spinning[2] = {0.0, 5.0};
  backend.set_state(0, out, still);
  task->evaluate(0, backend, &none, rng, &r);
  EXPECT_NEAR(r, 0.55, 1e-12);
  backend.set_state(0, upright, spinning);
  task->evaluate(0, backend, &none, rng, &r);
  EXPECT_NEAR(r, 0.55, 1e-12);
  const float half = 0.5f, beyond = 1.5f;
  backend.set_state(0, upright, still);
  task->evaluate(0, backend, &half, rng, &r);
  EXPECT_NEAR(r, 0.95, 1e-12);
  task->evaluate(0, backend, &beyond, rng, &r);
  EXPECT_NEAR(r, 0.8, 1e-12) << "an action beyond the bound earns the control factor's floor";
  const double off_track[2] = {2.5, 0.0};
  backend.set_state(0, off_track, still);
  EXPECT_TRUE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_GT(r, 0.0) << "the step that leaves the rail still earns its reward; what follows is forfeited";
  // per-step reward = scale·value·dt: the product counts 1 per step
  EXPECT_NEAR(task->reward_terms()[0].scale * robot->control_timestep(), 1.0, 1e-12);
  EXPECT_TRUE(task->reward_terms()[0].objective);
}

}  // namespace
}  // namespace flashnerd::env
