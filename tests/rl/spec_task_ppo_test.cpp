// A fixed-seed PPO run on a built-in task's spec (robots/tasks/) equals the run on the C++ task
// the spec replaces: the same returns, episode lengths and losses at every iteration.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "env/cartpole_balance_task.h"
#include "env/mujoco_backend.h"
#include "env/quadruped_velocity_task.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "rl/ppo_runner.h"

namespace flashnerd::rl {
namespace {

PpoRunResult run(env::Task& task, const std::shared_ptr<const sim::Robot>& robot, const std::string& dir) {
  ThreadPool pool(2);
  env::MujocoBackend backend(robot, 32, pool);
  env::VecEnv vec(task, backend, pool, 7);
  std::filesystem::remove_all(dir);
  PpoRunOptions o;
  o.ppo.steps_per_env = 24;
  o.ppo.actor_hidden = o.ppo.critic_hidden = {32, 32};
  o.iterations = 3;
  o.seed = 9;
  o.out_dir = dir;
  o.progress = false;
  o.checkpoint_every = 1000;
  return run_ppo(vec, o);
}

void expect_same_runs(const PpoRunResult& a, const PpoRunResult& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  EXPECT_EQ(a.term_names, b.term_names);
  for (size_t i = 0; i < a.rows.size(); ++i) {
    const IterationRow& x = a.rows[i];
    const IterationRow& y = b.rows[i];
    // NaN: no episode ended in the iteration
    EXPECT_TRUE(x.finished_return == y.finished_return || (std::isnan(x.finished_return) && std::isnan(y.finished_return)))
        << "iteration " << i << ": " << x.finished_return << " vs " << y.finished_return;
    EXPECT_EQ(x.episodes, y.episodes) << "iteration " << i;
    EXPECT_EQ(x.reward_per_step, y.reward_per_step) << "iteration " << i;
    EXPECT_EQ(x.stats.value_loss, y.stats.value_loss) << "iteration " << i;
  }
}

TEST(SpecTaskPpo, CartpoleBalanceRunEqualsTheCppTasks) {
  auto robot = sim::Robot::load("cartpole");
  env::CartpoleBalanceTask reference(*robot);
  auto spec = env::SpecTask::load(env::task_spec_path("cartpole-balance"), *robot);
  const std::string dir = ::testing::TempDir() + "/spec_ppo_";
  expect_same_runs(run(reference, robot, dir + "cpp"), run(*spec, robot, dir + "spec"));
}

TEST(SpecTaskPpo, QuadrupedVelocityRunEqualsTheCppTasks) {
  auto robot = sim::Robot::load("quadruped");
  env::QuadrupedVelocityTask reference(*robot);
  auto spec = env::SpecTask::load(env::task_spec_path("quadruped-velocity"), *robot);
  const std::string dir = ::testing::TempDir() + "/spec_ppo_quadruped_";
  const PpoRunResult a = run(reference, robot, dir + "cpp");
  expect_same_runs(a, run(*spec, robot, dir + "spec"));
  EXPECT_GT(a.rows.back().episodes, 0) << "falls and time-outs are part of the comparison";
}

}  // namespace
}  // namespace flashnerd::rl
