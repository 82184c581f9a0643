// VecEnv over every backend kind: a reset touches only its own environment (and history),
// time-outs and terminations are told apart, results do not depend on the thread count, a
// saved state continues bit-exactly, and stepping does not allocate.
#include "env/vec_env.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/json_file.h"
#include "env/batch_terms.h"
#include "env/coupled_backend.h"
#include "env/factory.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"
#include "testing/alloc_counter.h"
#include "testing/robot_models.h"

namespace flashnerd::env {
namespace {

std::unique_ptr<Task> quadruped_velocity(const sim::Robot& robot) { return make_task("quadruped-velocity", robot); }

enum class Kind { Mujoco, Flash, FlashProbes, Nerd, EnsembleRandom, EnsembleMean };

std::shared_ptr<const engine::Model> random_model(const sim::Robot& robot, Arch arch, bool probes) {
  return engine::Model::random(flashnerd::testing::robot_model_config(robot, arch, PredictionTarget::Increment, probes), 3);
}

// Three independent random members with probes (seeds 3, 4, 5).
std::vector<std::shared_ptr<const engine::Model>> random_members(const sim::Robot& robot) {
  std::vector<std::shared_ptr<const engine::Model>> members;
  for (uint64_t seed : {3, 4, 5})
    members.push_back(engine::Model::random(flashnerd::testing::robot_model_config(robot, Arch::FlashNeRD, PredictionTarget::Increment, true), seed));
  return members;
}

std::unique_ptr<Backend> make(Kind kind, std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool) {
  switch (kind) {
    case Kind::EnsembleRandom:
      return std::make_unique<LearnedBackend>(robot, random_members(*robot), envs, pool,
                                              EnsembleUse{EnsembleMode::Random, 0, 17});
    case Kind::EnsembleMean: return std::make_unique<LearnedBackend>(robot, random_members(*robot), envs, pool);
    case Kind::Mujoco: return std::make_unique<MujocoBackend>(robot, envs, pool);
    case Kind::Flash: return std::make_unique<LearnedBackend>(robot, random_model(*robot, Arch::FlashNeRD, false), envs, pool);
    case Kind::FlashProbes: return std::make_unique<LearnedBackend>(robot, random_model(*robot, Arch::FlashNeRD, true), envs, pool);
    case Kind::Nerd: return std::make_unique<LearnedBackend>(robot, random_model(*robot, Arch::NeRD, true), envs, pool);
  }
  return nullptr;
}

// Deterministic actions that differ per environment and step.
void actions_for(int step, int envs, int dim, std::vector<float>& a) {
  a.resize(size_t(envs) * size_t(dim));
  for (int e = 0; e < envs; ++e)
    for (int i = 0; i < dim; ++i) a[size_t(e * dim + i)] = 0.3f * std::sin(0.7f * float(step) + 1.3f * float(e) + float(i));
}

class EveryBackend : public ::testing::TestWithParam<Kind> {};

TEST_P(EveryBackend, ResetOfOneEnvLeavesOthersBitIdentical) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(2);
  const int E = 3;
  auto ba = make(GetParam(), robot, E, pool), bb = make(GetParam(), robot, E, pool);
  auto ta = quadruped_velocity(*robot), tb = quadruped_velocity(*robot);
  VecEnv a(*ta, *ba, pool, 11), b(*tb, *bb, pool, 11);
  a.reset_all();
  b.reset_all();
  std::vector<float> act;
  for (int s = 0; s < 8; ++s) {
    actions_for(s, E, a.action_dim(), act);
    a.step(act.data());
    b.step(act.data());
    if (s == 3) {  // env 1 of b starts over; its history is cleared, nobody else's
      std::vector<double> q(robot->nominal_qpos()), v(size_t(bb->nv()), 0.0);
      bb->reset(1, q.data(), v.data());
    }
  }
  for (int e : {0, 2}) {
    EXPECT_EQ(0, std::memcmp(ba->q(e), bb->q(e), sizeof(double) * size_t(ba->nq()))) << "env " << e;
    EXPECT_EQ(0, std::memcmp(ba->v(e), bb->v(e), sizeof(double) * size_t(ba->nv()))) << "env " << e;
    EXPECT_EQ(0, std::memcmp(a.observations() + e * a.observation_dim(), b.observations() + e * b.observation_dim(),
                             sizeof(float) * size_t(a.observation_dim())));
  }
  EXPECT_NE(0, std::memcmp(ba->q(1), bb->q(1), sizeof(double) * size_t(ba->nq())));
}

TEST_P(EveryBackend, CopiedEnvStepsLikeItsSource) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  const int E = 3;
  auto b = make(GetParam(), robot, E, pool);
  auto task = quadruped_velocity(*robot);
  VecEnv env(*task, *b, pool, 8);
  env.reset_all();
  std::vector<float> act;
  for (int s = 0; s < 4; ++s) {
    actions_for(s, E, env.action_dim(), act);
    env.step(act.data());
  }
  b->copy_env(0, 2);  // env 2 forks env 0 (state and history)
  std::vector<double> u(size_t(E) * size_t(b->nu()));
  for (int s = 0; s < 5; ++s) {
    for (size_t i = 0; i < u.size(); ++i) u[i] = robot->nominal_ctrl()[i % size_t(b->nu())] + 0.1 * std::sin(s + int(i % 12));
    b->step(u.data());
    for (int i = 0; i < b->nq(); ++i) ASSERT_NEAR(b->q(0)[i], b->q(2)[i], 1e-6) << "step " << s << " coordinate " << i;
  }
}

TEST_P(EveryBackend, SameBitsForAnyThreadCount) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool one(1), two(2);
  const int E = 5;
  auto b1 = make(GetParam(), robot, E, one), b2 = make(GetParam(), robot, E, two);
  auto t1 = quadruped_velocity(*robot), t2 = quadruped_velocity(*robot);
  VecEnv a(*t1, *b1, one, 5), b(*t2, *b2, two, 5);
  a.reset_all();
  b.reset_all();
  std::vector<float> act;
  for (int s = 0; s < 10; ++s) {
    actions_for(s, E, a.action_dim(), act);
    a.step(act.data());
    b.step(act.data());
    ASSERT_EQ(0, std::memcmp(a.observations(), b.observations(), sizeof(float) * size_t(E * a.observation_dim())))
        << "step " << s;
    ASSERT_EQ(0, std::memcmp(a.rewards(), b.rewards(), sizeof(float) * size_t(E))) << "step " << s;
  }
}

TEST_P(EveryBackend, SavedStateContinuesBitExactly) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(2);
  const int E = 3;
  auto ba = make(GetParam(), robot, E, pool), bb = make(GetParam(), robot, E, pool);
  auto ta = quadruped_velocity(*robot), tb = quadruped_velocity(*robot);
  VecEnv a(*ta, *ba, pool, 2), b(*tb, *bb, pool, 99);
  a.reset_all();
  b.reset_all();
  std::vector<float> act;
  for (int s = 0; s < 4; ++s) {
    actions_for(s, E, a.action_dim(), act);
    a.step(act.data());
  }
  b.load_state(a.save_state());
  for (int s = 4; s < 9; ++s) {
    actions_for(s, E, a.action_dim(), act);
    a.step(act.data());
    b.step(act.data());
  }
  EXPECT_EQ(0, std::memcmp(a.observations(), b.observations(), sizeof(float) * size_t(E * a.observation_dim())));
  EXPECT_EQ(0, std::memcmp(ba->q(2), bb->q(2), sizeof(double) * size_t(ba->nq())));
}

TEST_P(EveryBackend, NoAllocationPerStep) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(2);
  const int E = 6;
  auto backend = make(GetParam(), robot, E, pool);
  auto task = quadruped_velocity(*robot);
  VecEnv env(*task, *backend, pool, 1);
  env.reset_all();
  std::vector<float> act;
  actions_for(0, E, env.action_dim(), act);
  for (int s = 0; s < 3; ++s) env.step(act.data());  // warm-up
  g_allocations = 0;
  g_counting = true;
  for (int s = 0; s < 30; ++s) {
    env.step(act.data());
    if (s % 7 == 0)  // resets inside the measured loop too
      backend->reset(s % E, backend->q((s + 1) % E), backend->v((s + 1) % E));
  }
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
}

// The cube in the hand on its three backends (objects, 8 control steps per action, drops
// and their resets with reset_objects): no allocation either.
TEST(CubeReorientation, NoAllocationPerStepOnAnyBackend) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  auto hand = sim::Robot::load("hand16");
  auto alone = sim::Robot::load("hand16_alone");
  auto model = engine::Model::random(flashnerd::testing::robot_model_config(*alone, Arch::FlashNeRD, PredictionTarget::FreeVelocity), 5);
  ThreadPool pool(2);
  const int E = 4;
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::make_unique<MujocoBackend>(hand, E, pool));
  backends.push_back(std::make_unique<CoupledBackend>(hand, alone, model, sim::Coupling::TwoWay, E, pool));
  backends.push_back(std::make_unique<CoupledBackend>(hand, alone, model, sim::Coupling::OneWay, E, pool));
  for (auto& backend : backends) {
    auto task = make_task("cube-reorient-reduced", *hand);
    VecEnv env(*task, *backend, pool, 2);
    env.reset_all();
    std::vector<float> act(size_t(E) * size_t(env.action_dim()), 1.0f);
    for (int s = 0; s < 3; ++s) env.step(act.data());
    g_allocations = 0;
    g_counting = true;
    int64_t ended = 0;
    const double fallen[7] = {0, 0, 0.05, 1, 0, 0, 0}, still[6] = {0, 0, 0, 0, 0, 0};
    for (int s = 0; s < 40; ++s) {
      actions_for(s, E, env.action_dim(), act);
      if (s % 10 == 5) backend->set_objects(s % E, fallen, still);  // a drop: the next step resets it
      env.step(act.data());
      for (int e = 0; e < E; ++e) ended += env.terminated()[e] + env.timed_out()[e];
    }
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0) << backend->kind();
    EXPECT_GT(ended, 0) << backend->kind() << ": no episode ended, so no reset was measured";
  }
}

std::string kind_name(const ::testing::TestParamInfo<Kind>& info) {
  const char* names[] = {"mujoco", "flashnerd", "flashnerd_probes", "nerd", "ensemble_random", "ensemble_mean"};
  return names[int(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Backends, EveryBackend,
                         ::testing::Values(Kind::Mujoco, Kind::Flash, Kind::FlashProbes, Kind::Nerd,
                                           Kind::EnsembleRandom, Kind::EnsembleMean),
                         kind_name);

// A task whose episodes last 5 steps and that terminates when the action asks for it.
class FiveStepTask : public SpecTask {
 public:
  explicit FiveStepTask(const sim::Robot& robot)
      : SpecTask(read_json_file(task_spec_path("cartpole-balance"), "spec"), "cartpole-balance.json", robot) {}
  int episode_steps() const override { return 5; }
  bool evaluate(int env, const Backend& b, const float* action, Rng& rng, double* terms) override {
    SpecTask::evaluate(env, b, action, rng, terms);
    return action[0] > 0.5f;
  }
};

TEST(VecEnv, TimeOutsAndTerminationsAreApart) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend backend(robot, 2, pool);
  FiveStepTask task(*robot);
  VecEnv env(task, backend, pool, 4);
  env.reset_all();
  // env 0 never asks to terminate; env 1 asks at its 3rd step
  for (int s = 1; s <= 10; ++s) {
    const float act[2] = {0.0f, s == 3 ? 1.0f : 0.0f};
    std::vector<float> before_reset(env.observations(), env.observations() + 2 * env.observation_dim());
    env.step(act);
    EXPECT_EQ(env.timed_out()[0], s % 5 == 0 ? 1 : 0) << "step " << s;
    EXPECT_EQ(env.terminated()[0], 0) << "step " << s;
    EXPECT_EQ(env.terminated()[1], s == 3 ? 1 : 0) << "step " << s;
    EXPECT_EQ(env.timed_out()[1], s == 8 ? 1 : 0) << "step " << s;  // 5 steps after its reset at 3
    if (env.timed_out()[0]) {
      // the final observation is the state the episode ended in, not the new episode's start
      EXPECT_NE(0, std::memcmp(env.final_observations(), env.observations(), sizeof(float) * size_t(env.observation_dim())));
      EXPECT_EQ(env.episode_step(0), 0);
    }
  }
  const EpisodeStats stats = env.take_episode_stats();
  EXPECT_EQ(stats.episodes, 4);  // env 0: 2 time-outs; env 1: 1 termination, 1 time-out
  EXPECT_EQ(stats.timeouts, 3);
  EXPECT_DOUBLE_EQ(stats.length_sum, 5 + 5 + 3 + 5);
}

// NextStep autoreset: the ending step returns the final observation (terminations too), the
// next step is the reset (reward 0, no flags) and returns the first observation that SameStep
// returned one step earlier; every other environment is unaffected.
TEST(VecEnv, NextStepAutoresetDefersTheResetByOneStep) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend ba(robot, 2, pool), bb(robot, 2, pool);
  FiveStepTask ta(*robot), tb(*robot);
  VecEnv same(ta, ba, pool, 4), next(tb, bb, pool, 4, Autoreset::NextStep);
  same.reset_all();
  next.reset_all();
  const size_t D = size_t(same.observation_dim());
  auto row = [&](const float* obs, int e) {
    std::vector<float> r(D);
    std::memcpy(r.data(), obs + size_t(e) * D, sizeof(float) * D);
    return r;
  };
  std::vector<float> same_first;  // env 1's new first observation under SameStep (step 3)
  for (int s = 1; s <= 4; ++s) {
    const float act[2] = {0.0f, s == 3 ? 1.0f : 0.0f};  // env 1 terminates at step 3
    same.step(act);
    next.step(act);
    EXPECT_EQ(row(same.observations(), 0), row(next.observations(), 0)) << "step " << s;
    if (s == 3) {
      EXPECT_EQ(next.terminated()[1], 1);
      EXPECT_EQ(row(next.observations(), 1), row(next.final_observations(), 1));  // the final one
      EXPECT_EQ(row(same.final_observations(), 1), row(next.final_observations(), 1));
      same_first = row(same.observations(), 1);
      EXPECT_NE(same_first, row(next.observations(), 1));
    }
    if (s == 4) {  // the reset step
      EXPECT_EQ(next.terminated()[1], 0);
      EXPECT_EQ(next.timed_out()[1], 0);
      EXPECT_EQ(next.rewards()[1], 0.0f);
      EXPECT_EQ(next.episode_step(1), 0);
      EXPECT_EQ(row(next.observations(), 1), same_first);
    }
  }
  EXPECT_EQ(next.take_episode_stats().episodes, 1);
}

// The statistics of the episodes that end at a step (Gymnasium's RecordEpisodeStatistics):
// each one's return is the sum of its rewards and its length its steps, in every mode; under
// Disabled an ended environment is held as it ended (same observation and flags, reward 0, no
// second end) until reset_envs restarts it.
TEST(VecEnv, EndedEpisodesReportReturnAndLengthAndDisabledHoldsThem) {
  auto robot = sim::Robot::load("cartpole");
  for (Autoreset mode : {Autoreset::SameStep, Autoreset::NextStep, Autoreset::Disabled}) {
    ThreadPool pool(1);
    MujocoBackend backend(robot, 2, pool);
    FiveStepTask task(*robot);
    VecEnv env(task, backend, pool, 4, mode);
    env.reset_all();
    double sums[2] = {0, 0};
    int ends[2] = {0, 0};
    std::vector<float> held_obs;
    for (int s = 1; s <= 9; ++s) {
      const float act[2] = {0.0f, s == 3 ? 1.0f : 0.0f};  // env 1 terminates at step 3
      env.step(act);
      for (int e = 0; e < 2; ++e) {
        sums[e] += env.rewards()[e];
        if (!env.episode_ended()[e]) continue;
        ++ends[e];
        EXPECT_NEAR(env.ended_returns()[e], sums[e], 1e-5) << enum_name(kAutoresetNames, mode) << " step " << s;
        EXPECT_EQ(env.ended_lengths()[e], e == 1 && s == 3 ? 3 : 5) << enum_name(kAutoresetNames, mode);
        EXPECT_GE(env.ended_seconds()[e], 0.0);
        sums[e] = 0;
      }
      if (mode == Autoreset::Disabled && s == 3)
        held_obs.assign(env.observations() + env.observation_dim(), env.observations() + 2 * env.observation_dim());
      if (mode == Autoreset::Disabled && s > 3) {  // env 1 is held
        EXPECT_EQ(env.terminated()[1], 1) << "step " << s;
        EXPECT_EQ(env.rewards()[1], 0.0f) << "step " << s;
        EXPECT_EQ(std::vector<float>(env.observations() + env.observation_dim(),
                                     env.observations() + 2 * env.observation_dim()), held_obs) << "step " << s;
      }
    }
    const char* name = enum_name(kAutoresetNames, mode);
    EXPECT_EQ(ends[1], mode == Autoreset::Disabled ? 1 : 2) << name;  // Disabled: never restarted
    EXPECT_EQ(ends[0], 1) << name;  // a time-out at step 5; the next would come after step 9
    if (mode == Autoreset::Disabled) {
      const uint8_t restart[2] = {0, 1};
      env.reset_envs(restart);
      const float act[2] = {0.0f, 0.0f};
      env.step(act);
      EXPECT_EQ(env.terminated()[1], 0) << "restarted";
      EXPECT_EQ(env.episode_step(1), 1);
    }
  }
}

// Batch observation columns (Python's): the cart's position for the whole batch in one call,
// wherever the spec's own observation is made.
class CartColumn : public BatchTerms {
 public:
  std::string source() const override { return "test: cart column"; }
  std::vector<RewardTerm> reward_terms() const override { return {}; }
  void evaluate(const Backend&, const float*, double*, uint8_t*) override {}
  std::vector<std::pair<std::string, int>> observation_terms() const override { return {{"cart_batch", 1}}; }
  void observe(const Backend& b, float* columns) override {
    ++calls;
    for (int e = 0; e < b.envs(); ++e) columns[e] = float(b.q(e)[0]);
  }
  int calls = 0;
};

// Every observation's batch column equals its own cart position (slot 0), after steps, in the
// final observations of ended episodes and after resets, in each autoreset mode.
TEST(VecEnv, BatchObservationsAreMadeWhereverTheTasksOwnAre) {
  auto robot = sim::Robot::load("cartpole");
  for (Autoreset mode : {Autoreset::SameStep, Autoreset::NextStep, Autoreset::Disabled}) {
    const std::string name(enum_name(kAutoresetNames, mode));
    ThreadPool pool(2);
    const int E = 6;
    MujocoBackend backend(robot, E, pool);
    auto task = SpecTask::load(task_spec_path("cartpole-balance"), *robot);
    auto column = std::make_shared<CartColumn>();
    task->add_batch_terms(column);
    VecEnv env(*task, backend, pool, 3, mode);
    ASSERT_EQ(env.observation_dim(), 6) << name;
    auto expect_rows_agree = [&](const float* rows, const std::string& at) {
      for (int e = 0; e < E; ++e) ASSERT_EQ(rows[e * 6 + 5], rows[e * 6]) << name << " " << at << " env " << e;
    };
    env.reset_all();
    expect_rows_agree(env.observations(), "first");
    Rng rng(7);
    std::vector<float> act(E);
    int ended = 0;
    for (int s = 0; s < 120; ++s) {
      for (float& a : act) a = float(rng.uniform(-1.5, 1.5));
      env.step(act.data());
      expect_rows_agree(env.observations(), "step " + std::to_string(s));
      std::vector<uint8_t> restart(E, 0);
      for (int e = 0; e < E; ++e) {
        if (!env.episode_ended()[e]) continue;
        ++ended;
        restart[size_t(e)] = 1;
        const float* f = env.final_observations() + e * 6;
        ASSERT_EQ(f[5], f[0]) << name << " final observation, step " << s;
      }
      if (mode == Autoreset::Disabled) env.reset_envs(restart.data());
      expect_rows_agree(env.observations(), "after resets, step " + std::to_string(s));
      ASSERT_LE(column->calls, 2 * (s + 1) + 1 + (mode == Autoreset::Disabled ? s + 1 : 0)) << "one call per pass";
    }
    EXPECT_GT(ended, E) << name;
  }
}

// Reward settings (--reward-scale, --only-positive-rewards): a term's scale changes the step
// reward and the episode's term sums; clipping keeps negative steps at zero; an unknown term
// is refused with the task's terms named.
// Cartpole's spec with a second term, −0.5 every step, that is added after the clip.
std::unique_ptr<SpecTask> penalized_cartpole(const sim::Robot& robot) {
  nlohmann::json spec = read_json_file(task_spec_path("cartpole-balance"), "spec");
  spec["rewards"].push_back({{"name", "penalty"}, {"term", "alive"}, {"scale_per_step", -0.5}, {"after_clip", true}});
  return std::make_unique<SpecTask>(spec, "penalized-cartpole.json", robot);
}

TEST(VecEnv, RewardScalesAndClippingChangeTheReward) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend backend(robot, 1, pool);
  auto owned = make_task("cartpole-balance", *robot);
  Task& task = *owned;
  VecEnv env(task, backend, pool, 4);
  const float act[1] = {0.0f};
  env.reset_all();
  env.step(act);
  EXPECT_FLOAT_EQ(env.rewards()[0], 1.0f);  // the task's own: 1 per step
  const double per_step = 1.0 / robot->control_timestep();
  task.set_reward_scale("alive", 2.5 * per_step);
  env.step(act);
  EXPECT_FLOAT_EQ(env.rewards()[0], 2.5f);
  task.set_reward_scale("alive", -per_step);
  env.step(act);
  EXPECT_FLOAT_EQ(env.rewards()[0], -1.0f);
  task.set_clip_negative_reward(true);
  env.step(act);
  EXPECT_FLOAT_EQ(env.rewards()[0], 0.0f);
  // an after-clip term (legged_gym's termination) is added past the clip
  auto owned_penalized = penalized_cartpole(*robot);
  Task& penalized = *owned_penalized;
  penalized.set_reward_scale("alive", -per_step);
  penalized.set_clip_negative_reward(true);
  VecEnv penalized_env(penalized, backend, pool, 4);
  penalized_env.reset_all();
  penalized_env.step(act);
  EXPECT_FLOAT_EQ(penalized_env.rewards()[0], -0.5f);  // max(−1, 0) − 0.5
  try {
    task.set_reward_scale("survival", 1.0);
    FAIL() << "an unknown reward term was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("its terms: alive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::env
