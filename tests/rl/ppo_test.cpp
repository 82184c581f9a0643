// PPO end to end on MuJoCo's cartpole: it learns to balance within a CI-sized budget, a run
// resumed from its checkpoint equals the uninterrupted run bit for bit, and the policy of the
// best evaluation is kept beside the last one.
#include "rl/ppo_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "testing/cartpole_env.h"

namespace flashnerd::rl {
namespace {

using flashnerd::testing::CartpoleEnv;

PpoRunOptions options(const std::string& dir, int iterations) {
  PpoRunOptions o;
  o.ppo.steps_per_env = 32;
  o.ppo.actor_hidden = o.ppo.critic_hidden = {32, 32};
  o.ppo.entropy_coef = 0.0;
  o.iterations = iterations;
  o.seed = 5;
  o.out_dir = dir;
  o.progress = false;
  o.checkpoint_every = 1000;
  return o;
}

TEST(Ppo, LearnsCartpoleBalance) {
  ThreadPool pool(2);
  const std::string dir = ::testing::TempDir() + "/ppo_cartpole";
  std::filesystem::remove_all(dir);
  CartpoleEnv train(64, 1, pool), eval(64, 2, pool);
  // 120 iterations: 7 of 7 seeds measured reach 160–200 (40 iterations: 104–200)
  PpoRunOptions o = options(dir, 120);
  o.eval_env = &eval.env;
  o.eval_every = 120;
  o.eval_steps = 200;
  const PpoRunResult r = run_ppo(train.env, o);
  // balancing for the whole 200-step episode scores 200; a random policy falls after ~20 steps
  EXPECT_LT(r.rows.front().finished_return, 100.0);
  EXPECT_GT(r.rows.back().eval_reward, 150.0) << "training return " << r.rows.back().finished_return;
  // the exported, libtorch-free policy scores the same in a fresh MuJoCo evaluation
  const Policy policy = Policy::load(dir + "/policy");
  EXPECT_GT(evaluate_policy(eval.env, policy, 200).episode_reward, 150.0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/reward_vs_time.plot.json"));
}

TEST(Ppo, KeepsThePolicyOfTheBestEvaluation) {
  ThreadPool pool(2);
  const std::string dir = ::testing::TempDir() + "/ppo_best";
  std::filesystem::remove_all(dir);
  CartpoleEnv train(16, 3, pool), eval(16, 4, pool);
  PpoRunOptions o = options(dir, 12);
  o.eval_env = &eval.env;
  o.eval_every = 2;
  o.eval_steps = 100;
  const PpoRunResult r = run_ppo(train.env, o);
  double best = -1e300;
  int best_iteration = 0, evaluations = 0;
  for (const auto& row : r.rows)
    if (std::isfinite(row.eval_reward)) {
      ++evaluations;
      if (row.eval_reward > best) best = row.eval_reward, best_iteration = row.iteration;
    }
  ASSERT_EQ(evaluations, 6);
  const auto j = nlohmann::json::parse(read_file(dir + "/best_policy/policy.json"));
  const auto& selected = j.at("training").at("selected_by");
  EXPECT_EQ(selected.at("eval_reward").get<double>(), best);
  EXPECT_EQ(selected.at("iteration").get<int>(), best_iteration);
  EXPECT_EQ(j.at("training").at("iterations").get<int>(), best_iteration);
  // the best is the last policy exactly when the last evaluation was the best
  EXPECT_EQ(read_file(dir + "/best_policy/policy.safetensors") == read_file(dir + "/policy/policy.safetensors"),
            best_iteration == 12);
  // a new run over this directory does not inherit the old run's best
  o.overwrite = true;
  o.eval_env = nullptr;
  run_ppo(train.env, o);
  EXPECT_FALSE(std::filesystem::exists(dir + "/best_policy"));
}

TEST(Ppo, ResumeEqualsUninterruptedRun) {
  ThreadPool pool(2);
  const std::string a = ::testing::TempDir() + "/ppo_straight", b = ::testing::TempDir() + "/ppo_resumed";
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
  {
    CartpoleEnv e(16, 3, pool);
    run_ppo(e.env, options(a, 6));
  }
  {
    CartpoleEnv e(16, 3, pool);
    run_ppo(e.env, options(b, 3));
  }
  {
    CartpoleEnv e(16, 3, pool);  // a fresh process would start like this
    PpoRunOptions o = options(b, 6);
    o.resume = true;
    run_ppo(e.env, o);
  }
  EXPECT_EQ(read_file(a + "/policy/policy.safetensors"), read_file(b + "/policy/policy.safetensors"));
  // a second fresh run into a finished directory is refused
  CartpoleEnv e(16, 3, pool);
  EXPECT_THROW(run_ppo(e.env, options(a, 6)), Error);
}

}  // namespace
}  // namespace flashnerd::rl
