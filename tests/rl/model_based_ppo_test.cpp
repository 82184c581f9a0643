// Model-based PPO (PpoRunOptions::real): MuJoCo's cartpole explored by the current policy
// beside imagined environments on a learned model. With no branched episodes the real
// environments change nothing, bit for bit; the explorations follow their schedule; a run
// resumed between explorations equals the uninterrupted run; real transitions in the PPO batch
// train the policy and resume bit-exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>

#include "testing/cartpole_env.h"
#include "core/atomic_file.h"
#include "engine/engine.h"
#include "env/learned_backend.h"
#include "rl/ppo_runner.h"
#include "testing/robot_models.h"

namespace flashnerd::rl {
namespace {

using flashnerd::testing::CartpoleEnv;

// The cartpole task on a random FlashNeRD model (the imagined environments).
struct ImaginedCartpole {
  ImaginedCartpole(int envs, ThreadPool& pool)
      : robot(sim::Robot::load("cartpole")),
        backend(robot, {engine::Model::random(flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD), 3)},
                envs, pool, {}, engine::GemmBackend::RowInvariant),
        task(env::make_task("cartpole-balance", *robot)), env(*task, backend, pool, 9) {}
  std::shared_ptr<const sim::Robot> robot;
  env::LearnedBackend backend;
  std::unique_ptr<env::Task> task;
  env::VecEnv env;
};

PpoRunOptions options(const std::string& dir, int iterations) {
  std::filesystem::remove_all(dir);
  PpoRunOptions o;
  o.ppo.steps_per_env = 16;
  o.ppo.actor_hidden = o.ppo.critic_hidden = {16, 16};
  o.iterations = iterations;
  o.seed = 4;
  o.out_dir = dir;
  o.progress = false;
  return o;
}

std::string weights(const std::string& dir) { return read_file(dir + "/policy/policy.safetensors"); }

// `iterations` of PPO into dir on 8 imagined cartpoles with 4 of MuJoCo's in the loop, as
// `configure` sets it; with resume, continuing dir's checkpoint
PpoRunResult run_with_real(ThreadPool& pool, const std::string& dir, int iterations, bool resume,
                           const std::function<void(PpoRunOptions&)>& configure) {
  ImaginedCartpole imagined(8, pool);
  CartpoleEnv real(4, 2, pool);
  PpoRunOptions o = options(resume ? ::testing::TempDir() + "/unused" : dir, iterations);
  o.out_dir = dir;
  o.resume = resume;
  o.checkpoint_every = 1;
  o.real.env = &real.env;
  configure(o);
  return run_ppo(imagined.env, o);
}

TEST(ModelBasedPpo, WithoutBranchedEpisodesTheRealEnvironmentsChangeNothing) {
  ThreadPool pool(1);
  const std::string plain_dir = ::testing::TempDir() + "/mbppo_plain", real_dir = ::testing::TempDir() + "/mbppo_real";
  {
    ImaginedCartpole imagined(8, pool);
    run_ppo(imagined.env, options(plain_dir, 3));
  }
  ImaginedCartpole imagined(8, pool);
  CartpoleEnv real(4, 2, pool);
  PpoRunOptions o = options(real_dir, 3);
  o.real.env = &real.env;
  o.real.branch_fraction = 0;
  const PpoRunResult r = run_ppo(imagined.env, o);
  EXPECT_EQ(weights(plain_dir), weights(real_dir));
  EXPECT_EQ(r.rows.back().real_transitions, 3 * 4 * 24);
  for (const auto& row : r.rows) EXPECT_EQ(row.branched_starts, 0);
}

TEST(ModelBasedPpo, ExplorationsFollowTheirScheduleAndBranchesFollowThem) {
  ThreadPool pool(1);
  ImaginedCartpole imagined(8, pool);
  CartpoleEnv real(4, 2, pool);
  PpoRunOptions o = options(::testing::TempDir() + "/mbppo_schedule", 14);  // past the task's 200 steps
  o.real.env = &real.env;
  o.real.every = 2;
  o.real.steps = 10;
  o.real.branch_fraction = 1;
  o.real.branch_steps = 4;  // short branches: many new episodes, all from real states
  const PpoRunResult r = run_ppo(imagined.env, o);
  const int64_t per = 4 * 10;
  ASSERT_EQ(r.rows.size(), 14u);
  EXPECT_EQ(r.rows[0].real_transitions, per);  // iterations 1, 3, 5 explore
  EXPECT_EQ(r.rows[1].real_transitions, per);
  EXPECT_EQ(r.rows[2].real_transitions, 2 * per);
  EXPECT_EQ(r.rows[4].real_transitions, 3 * per);
  EXPECT_GT(r.rows[0].real_s, 0.0);
  EXPECT_EQ(r.rows[1].real_s, 0.0);
  // the first exploration filled the buffer before any imagined step: every episode that
  // started afterwards is a branch, ending after at most 4 steps
  int64_t branched = 0, episodes = 0;
  for (const auto& row : r.rows) {
    branched += row.branched_starts;
    episodes += row.episodes;
  }
  EXPECT_GT(episodes, 8);
  EXPECT_EQ(branched, episodes);
}

TEST(ModelBasedPpo, ResumeBetweenExplorationsEqualsUninterruptedRun) {
  ThreadPool pool(1);
  const std::string a = ::testing::TempDir() + "/mbppo_straight", b = ::testing::TempDir() + "/mbppo_resumed";
  auto loop = [](PpoRunOptions& o) {
    o.real.every = 2;
    o.real.steps = 10;
    o.real.branch_fraction = 0.5;
    o.real.branch_steps = 6;
  };
  run_with_real(pool, a, 5, false, loop);
  run_with_real(pool, b, 3, false, loop);
  run_with_real(pool, b, 5, true, loop);
  EXPECT_EQ(weights(a), weights(b));
}

TEST(ModelBasedPpo, RealTransitionsInTheBatchTrainThePolicyAndResumeBitExactly) {
  ThreadPool pool(1);
  const std::string apart = ::testing::TempDir() + "/mbppo_apart", straight = ::testing::TempDir() + "/mbppo_batch",
                    resumed = ::testing::TempDir() + "/mbppo_batch_resumed";
  auto loop = [](bool in_batch) {
    return [in_batch](PpoRunOptions& o) {
      o.penalty_ramp = 3;
      o.real.steps = o.ppo.steps_per_env;
      o.real.branch_fraction = 0;  // the real environments reach the policy only through the batch
      o.real.in_batch = in_batch;
    };
  };
  const PpoRunResult r = run_with_real(pool, straight, 4, false, loop(true));
  run_with_real(pool, apart, 4, false, loop(false));
  EXPECT_NE(weights(straight), weights(apart));  // the real transitions joined the batch
  EXPECT_EQ(r.rows.back().real_transitions, 4 * 4 * 16);
  run_with_real(pool, resumed, 2, false, loop(true));
  run_with_real(pool, resumed, 4, true, loop(true));
  EXPECT_EQ(weights(straight), weights(resumed));
}

TEST(ModelBasedPpo, RefusesRealTransitionsInTheBatchOnAnotherSchedule) {
  ThreadPool pool(1);
  ImaginedCartpole imagined(8, pool);
  CartpoleEnv real(4, 2, pool);
  PpoRunOptions o = options(::testing::TempDir() + "/mbppo_batch_refused", 1);
  o.real.env = &real.env;
  o.real.in_batch = true;
  o.real.steps = 10;  // PPO steps 16 per environment
  EXPECT_THROW(run_ppo(imagined.env, o), Error);
  o.real.steps = 16;
  o.real.every = 2;
  EXPECT_THROW(run_ppo(imagined.env, o), Error);
}

TEST(ModelBasedPpo, RefusesRealEnvironmentsOfAnotherTask) {
  ThreadPool pool(1);
  ImaginedCartpole imagined(4, pool);
  PpoRunOptions o = options(::testing::TempDir() + "/mbppo_refused", 1);
  o.real.env = &imagined.env;  // the imagined environments themselves
  EXPECT_THROW(run_ppo(imagined.env, o), Error);
}

}  // namespace
}  // namespace flashnerd::rl
