// The penalty curriculum: which terms it scales (shaping, not the objective or a fall), by how much at each iteration, that a PPO run
// sees the ramped scales, leaves the task at its full scales and keeps the ramp in its identity.
#include "rl/penalty_ramp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "core/thread_pool.h"
#include "env/mujoco_backend.h"
#include "env/factory.h"
#include "env/vec_env.h"
#include "rl/ppo_runner.h"

namespace flashnerd::rl {
namespace {

std::map<std::string, double> scales(const env::Task& task) {
  std::map<std::string, double> out;
  for (const env::RewardTerm& t : task.reward_terms()) out[t.name] = t.scale;
  return out;
}

TEST(PenaltyRamp, ScalesOnlyShapingTermsFromOffThroughOneNthToFull) {
  auto robot = sim::Robot::load("quadruped");
  auto owned = env::make_task("quadruped-velocity", *robot);
  env::Task& task = *owned;
  const auto full = scales(task);
  {
    PenaltyRamp ramp(task, 4);
    ramp.apply(0);
    for (const env::RewardTerm& t : task.reward_terms()) {
      const bool shaping = !t.objective && !t.after_clip;
      EXPECT_DOUBLE_EQ(t.scale, shaping ? 0.25 * full.at(t.name) : full.at(t.name)) << t.name;
    }
    EXPECT_DOUBLE_EQ(scales(task).at("termination"), full.at("termination"));  // a fall always costs
    EXPECT_DOUBLE_EQ(scales(task).at("tracking_lin_vel"), full.at("tracking_lin_vel"));  // the objective
    EXPECT_DOUBLE_EQ(scales(task).at("feet_air_time"), 0.25 * full.at("feet_air_time"));  // shaping, positive
    ramp.apply(2);
    EXPECT_DOUBLE_EQ(scales(task).at("torques"), 0.75 * full.at("torques"));
    ramp.apply(3);
    EXPECT_EQ(scales(task), full);
    ramp.apply(50);
    EXPECT_EQ(scales(task), full);
    ramp.apply(1);
  }
  EXPECT_EQ(scales(task), full);  // restored when the ramp ends
  PenaltyRamp none(task, 0);
  none.apply(0);
  EXPECT_EQ(scales(task), full);
  EXPECT_THROW(PenaltyRamp(task, -1), Error);
  EXPECT_THROW(PenaltyRamp(task, 4, -1), Error);
  {
    PenaltyRamp delayed(task, 4, 10);  // off for 10 iterations, then 1/4, 2/4, ...
    EXPECT_EQ(delayed.factor(0), 0.0);
    EXPECT_EQ(delayed.factor(9), 0.0);
    EXPECT_EQ(delayed.factor(10), 0.25);
    EXPECT_EQ(delayed.factor(13), 1.0);
    delayed.apply(5);
    EXPECT_EQ(scales(task).at("torques"), 0.0);
    EXPECT_EQ(scales(task).at("termination"), full.at("termination"));
    EXPECT_EQ(scales(task).at("tracking_ang_vel"), full.at("tracking_ang_vel"));
  }
  EXPECT_EQ(scales(task), full);
}

TEST(PenaltyRamp, PpoRunsWithTheRampedScalesAndKeepsTheRampInItsIdentity) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  const std::string root = ::testing::TempDir() + "penalty_ramp_run";
  std::filesystem::remove_all(root);
  auto run = [&](int ramp, const std::string& name, bool resume = false) {
    env::MujocoBackend backend(robot, 32, pool);
    auto task = env::make_task("quadruped-velocity", *robot);
    env::VecEnv venv(*task, backend, pool, 3);
    PpoRunOptions o;
    o.ppo.actor_hidden = o.ppo.critic_hidden = {16};
    o.ppo.steps_per_env = 50;  // 1 s of 32 robots under noise: a few falls end episodes
    o.iterations = resume ? 2 : 1;
    o.seed = 3;
    o.out_dir = root + "/" + name;
    o.progress = false;
    o.penalty_ramp = ramp;
    o.resume = resume;
    const PpoRunResult r = run_ppo(venv, o);
    EXPECT_EQ(scales(*task), scales(*env::make_task("quadruped-velocity", *robot)));  // full scales afterwards
    return r;
  };
  const PpoRunResult ramped = run(4, "ramped"), plain = run(0, "plain");
  // the first iteration's transitions are the same (same policy, same noise), only the penalties' weights differ
  auto owned = env::make_task("quadruped-velocity", *robot);
  const env::Task& task = *owned;
  ASSERT_EQ(ramped.term_names, plain.term_names);
  for (size_t k = 0; k < plain.term_names.size(); ++k) {
    const env::RewardTerm& t = task.reward_terms()[k];
    const double factor = !t.objective && !t.after_clip ? 0.25 : 1.0;
    EXPECT_NEAR(ramped.rows[0].terms[k], factor * plain.rows[0].terms[k], 1e-9 * std::abs(plain.rows[0].terms[k]) + 1e-12)
        << t.name;
  }
  // the terms are means over the iteration's finished episodes: some must have finished
  ASSERT_GT(plain.rows[0].episodes, 0);
  EXPECT_EQ(ramped.rows[0].episodes, plain.rows[0].episodes);
  EXPECT_THROW(run(8, "ramped", true), Error);  // another ramp cannot resume this run
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace flashnerd::rl
