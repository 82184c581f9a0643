// The swing-up task starts hanging, rewards cos(θ) minus the centring, spin and effort
// penalties, and ends an episode only when the cart leaves the track.
#include "env/cartpole_swingup_task.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"

namespace flashnerd::env {
namespace {

TEST(CartpoleSwingupTask, StartsHangingAndRewardsUprightness) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend backend(robot, 1, pool);
  auto task = make_task("cartpole-swingup", *robot);
  ASSERT_EQ(task->name(), "cartpole-swingup");
  EXPECT_EQ(task_robot("cartpole-swingup"), "cartpole");
  task->allocate(1);
  Rng rng(3);
  double q[2], v[2];
  task->reset(0, rng, q, v);
  EXPECT_LT(std::cos(q[1]), -0.99);  // hanging
  const float action = 0.5f;
  double terms[4];
  backend.reset(0, q, v);
  EXPECT_FALSE(task->evaluate(0, backend, &action, rng, terms));
  EXPECT_NEAR(terms[0], std::cos(q[1]), 1e-12);
  EXPECT_NEAR(terms[1], q[0] * q[0], 1e-12);
  EXPECT_NEAR(terms[2], v[1] * v[1], 1e-12);
  EXPECT_NEAR(terms[3], 0.25, 1e-12);
  const double upright[2] = {0.0, 0.0}, still[2] = {0.0, 0.0};
  backend.set_state(0, upright, still);
  EXPECT_FALSE(task->evaluate(0, backend, &action, rng, terms));
  EXPECT_DOUBLE_EQ(terms[0], 1.0);
  const double off_track[2] = {2.5, 0.0};
  backend.set_state(0, off_track, still);
  EXPECT_TRUE(task->evaluate(0, backend, &action, rng, terms));
  // per-step reward = Σ scale·value·dt: upright counts 1 per step, the penalties 0.1, 0.01, 0.01
  const double dt = robot->control_timestep();
  const auto& t = task->reward_terms();
  EXPECT_NEAR(t[0].scale * dt, 1.0, 1e-12);
  EXPECT_NEAR(t[1].scale * dt, -0.1, 1e-12);
  EXPECT_TRUE(t[0].objective);
}

}  // namespace
}  // namespace flashnerd::env
