// Plan divergence: a trial records each decision's plan (its first command is the one applied);
// MuJoCo measured against itself never parts from MuJoCo, batched in any chunk size; a model
// that is wrong parts at once, and the first parting is where the gap first exceeds the
// threshold.
#include "mpc/plan_divergence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "mpc/cartpole_swingup_task.h"
#include "mpc/planner.h"
#include "testing/robot_models.h"

namespace flashnerd::mpc {
namespace {

struct SwingupTrial {
  std::shared_ptr<const sim::Robot> robot = sim::Robot::load("cartpole");
  ThreadPool pool{1};
  DialOptions o;
  TrialResult trial;
  SwingupTrial() {
    o.samples = 12;
    o.horizon = 10;
    o.knots = 4;
    o.first_iterations = 2;
    env::MujocoBackend world(robot, 1, pool), planning(robot, Planner::backend_envs(o), pool);
    CartpoleSwingupTask task(*robot);
    Planner planner(planning, task, o, pool);
    const double q0[2] = {0.0, M_PI}, v0[2] = {0.0, 0.0};
    trial = run_trial(planner, world, task, q0, v0, 15, 3, {});
  }
};

TEST(PlanDivergence, TheTrialRecordsEachPlanWhoseFirstCommandIsTheAppliedOne) {
  SwingupTrial t;
  const int nu = 1;
  ASSERT_EQ(t.trial.plan_commands.size(), size_t(t.trial.frames) * size_t(t.o.horizon) * size_t(nu));
  for (int f = 0; f < t.trial.frames; ++f)
    EXPECT_EQ(t.trial.plan_commands[size_t(f) * size_t(t.o.horizon)], t.trial.ctrl[size_t(f)]) << f;
}

TEST(PlanDivergence, MuJoCoAgainstItselfNeverPartsInAnyBatchSize) {
  SwingupTrial t;
  for (int envs : {4, 32}) {  // 15 decisions: chunks of 4, or all at once
    env::MujocoBackend model(t.robot, envs, t.pool), mujoco(t.robot, envs, t.pool);
    const PlanDivergence d = measure_plan_divergence(model, mujoco, t.trial, t.o.horizon, false, 1e-12);
    EXPECT_EQ(d.decisions, t.trial.frames);
    EXPECT_EQ(d.dims, 2);
    EXPECT_EQ(d.first_decision, -1);
    for (double g : d.gap) EXPECT_EQ(g, 0.0);
    for (double e : d.one_step_error) EXPECT_LT(e, 1e-9);  // the world executed the same commands
  }
}

TEST(PlanDivergence, AWrongModelPartsWhereTheGapFirstExceedsTheThreshold) {
  SwingupTrial t;
  env::LearnedBackend model(
      t.robot, engine::Model::random(flashnerd::testing::robot_model_config(*t.robot, Arch::FlashNeRD), 5), 8, t.pool);
  env::MujocoBackend mujoco(t.robot, 8, t.pool);
  const PlanDivergence d = measure_plan_divergence(model, mujoco, t.trial, t.o.horizon, false, 1e-3);
  ASSERT_GE(d.first_decision, 0);
  const int H = d.horizon;
  // nothing earlier exceeded it, and the recorded step does
  for (int k = 0; k < d.first_decision; ++k)
    for (int s = 0; s < H; ++s) EXPECT_LE(d.gap[size_t(k) * size_t(H) + size_t(s)], 1e-3);
  for (int s = 0; s < d.first_step; ++s) EXPECT_LE(d.gap[size_t(d.first_decision) * size_t(H) + size_t(s)], 1e-3);
  EXPECT_GT(d.gap[size_t(d.first_decision) * size_t(H) + size_t(d.first_step)], 1e-3);
  ASSERT_EQ(d.first_qpos.size(), 2u);
  const size_t at = size_t(d.first_decision) * size_t(H) + size_t(d.first_step);
  EXPECT_EQ(d.first_qpos[0], d.mujoco_position[2 * at]);
  // a threshold above every gap finds no parting
  double largest = 0;
  for (double g : d.gap) largest = std::max(largest, g);
  EXPECT_EQ(measure_plan_divergence(model, mujoco, t.trial, H, false, 2 * largest + 1).first_decision, -1);
}

}  // namespace
}  // namespace flashnerd::mpc
