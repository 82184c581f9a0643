// Ensembles in the learned backend: identical members never disagree and step like the single
// model; a pair's disagreement is the direct formula; a fixed member steps like that model
// alone; random members are drawn per reset from the seed; ensemble artifacts load and old
// single-model directories read as an ensemble of one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "engine/engine.h"
#include "env/learned_backend.h"
#include "env/vec_env.h"
#include "testing/robot_models.h"

namespace flashnerd::env {
namespace {

std::shared_ptr<const engine::Model> member(const sim::Robot& robot, uint64_t seed) {
  ModelConfig c = flashnerd::testing::robot_model_config(robot, Arch::FlashNeRD, PredictionTarget::Increment, true);
  c.norm.target_std.assign(size_t(c.output_dim), 1e-2f);  // larger steps: members that move apart
  return engine::Model::random(c, seed);
}

void step_all(Backend& b, int steps) {
  std::vector<double> u(size_t(b.envs()) * size_t(b.nu()));
  for (int s = 0; s < steps; ++s) {
    for (size_t i = 0; i < u.size(); ++i) u[i] = b.robot().nominal_ctrl()[i % size_t(b.nu())] + 0.2 * std::sin(s + double(i));
    b.step(u.data());
  }
}

TEST(LearnedEnsemble, IdenticalMembersStepLikeOneModelAndNeverDisagree) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  auto m = member(*robot, 3);
  LearnedBackend single(robot, m, 4, pool);
  LearnedBackend twins(robot, {m, m, m}, 4, pool);
  EXPECT_EQ(twins.ensemble_size(), 3);
  step_all(single, 6);
  step_all(twins, 6);
  for (int e = 0; e < 4; ++e) {
    for (int i = 0; i < robot->layout().nq; ++i) EXPECT_DOUBLE_EQ(single.q(e)[i], twins.q(e)[i]) << e;
    EXPECT_EQ(twins.disagreement(e), 0.f);
    EXPECT_EQ(single.disagreement(e), 0.f);
  }
}

TEST(LearnedEnsemble, APairsDisagreementIsTheDirectFormula) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  auto a = member(*robot, 3), b = member(*robot, 4);
  LearnedBackend pair(robot, {a, b}, 2, pool);
  LearnedBackend alone_a(robot, a, 2, pool), alone_b(robot, b, 2, pool);
  // one step from the same start: each member's increment is what it predicts alone
  step_all(pair, 1);
  step_all(alone_a, 1);
  step_all(alone_b, 1);
  const StateCodec codec(robot->layout());
  const int dout = codec.increment_dim();
  std::vector<double> ia(static_cast<size_t>(dout)), ib(static_cast<size_t>(dout));
  std::vector<double> q0(robot->model()->qpos0, robot->model()->qpos0 + robot->layout().nq), v0(size_t(robot->layout().nv), 0.0);
  for (int e = 0; e < 2; ++e) {
    codec.increment(q0.data(), v0.data(), alone_a.q(e), alone_a.v(e), ia.data());
    codec.increment(q0.data(), v0.data(), alone_b.q(e), alone_b.v(e), ib.data());
    double total = 0;  // std of two values = |a − b| / 2, in member a's standardized units
    for (int i = 0; i < dout; ++i) total += std::fabs(ia[size_t(i)] - ib[size_t(i)]) / 2 / a->target_std()[i];
    EXPECT_NEAR(pair.disagreement(e), total / dout, 1e-3 * total / dout + 1e-6) << e;
    EXPECT_GT(pair.disagreement(e), 0.f);
  }
}

TEST(LearnedEnsemble, AFixedMemberStepsLikeThatModelAlone) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  auto a = member(*robot, 3), b = member(*robot, 4);
  LearnedBackend pair(robot, {a, b}, 3, pool, EnsembleUse{EnsembleMode::Member, 1, 0});
  LearnedBackend alone(robot, b, 3, pool);
  step_all(pair, 5);
  step_all(alone, 5);
  for (int e = 0; e < 3; ++e)
    EXPECT_EQ(0, std::memcmp(pair.q(e), alone.q(e), sizeof(double) * size_t(robot->layout().nq))) << e;
  EXPECT_THROW(LearnedBackend(robot, {a, b}, 3, pool, EnsembleUse{EnsembleMode::Member, 2, 0}), Error);
}

TEST(LearnedEnsemble, RandomMembersAreDrawnPerResetFromTheSeed) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  std::vector<std::shared_ptr<const engine::Model>> members{member(*robot, 3), member(*robot, 4), member(*robot, 5)};
  const int E = 64;
  LearnedBackend x(robot, members, E, pool, EnsembleUse{EnsembleMode::Random, 0, 9});
  LearnedBackend y(robot, members, E, pool, EnsembleUse{EnsembleMode::Random, 0, 9});
  int counts[3] = {0, 0, 0};
  for (int e = 0; e < E; ++e) {
    EXPECT_EQ(x.member_of(e), y.member_of(e));
    ++counts[x.member_of(e)];
  }
  for (int c : counts) EXPECT_GT(c, 5);  // every member is used
  int changed = 0;
  for (int e = 0; e < E; ++e) {
    const int before = x.member_of(e);
    x.reset(e, x.q(e), x.v(e));
    changed += x.member_of(e) != before;
  }
  EXPECT_GT(changed, 10);  // a reset draws again
}

TEST(LearnedEnsemble, ArtifactsRoundTripAndOldDirectoriesLoadAsOne) {
  auto robot = sim::Robot::load("quadruped");
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "flashnerd_ensemble_test";
  fs::remove_all(dir);
  std::vector<std::string> names;
  for (uint64_t seed : {3, 4}) {
    auto m = member(*robot, seed);
    names.push_back("member_" + std::to_string(seed));
    save_model_artifact((dir / names.back()).string(), m->config(), m->tensors());
  }
  EXPECT_EQ(engine::Model::load_members((dir / names[0]).string()).size(), 1u);  // a plain directory
  EXPECT_FALSE(is_ensemble_dir(dir.string()));
  write_ensemble_manifest(dir.string(), names);
  ASSERT_TRUE(is_ensemble_dir(dir.string()));
  auto loaded = engine::Model::load_members(dir.string());
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[1]->tensors().size(), member(*robot, 4)->tensors().size());
  EXPECT_EQ(0, std::memcmp(loaded[1]->tensors()[0].data, member(*robot, 4)->tensors()[0].data, sizeof(float)));
  EXPECT_EQ(load_model_config(dir.string()).robot, "quadruped");  // the members' shared config
  try {
    engine::Model::load(dir.string());
    ADD_FAILURE() << "an ensemble directory loaded as one model";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ensemble of 2"), std::string::npos) << e.what();
  }
  // a member of another robot is refused by name
  auto cartpole = sim::Robot::load("cartpole");
  auto other = engine::Model::random(flashnerd::testing::robot_model_config(*cartpole, Arch::FlashNeRD), 1);
  save_model_artifact((dir / "member_x").string(), other->config(), other->tensors());
  write_ensemble_manifest(dir.string(), {names[0], "member_x"});
  try {
    engine::Model::load_members(dir.string());
    ADD_FAILURE() << "a member of another robot was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("member_x"), std::string::npos) << e.what();
  }
}

// Reward minus penalty · disagreement · dt, and truncation above a threshold; off = unchanged.
TEST(LearnedEnsemble, UncertaintyPenalizesAndTruncates) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  const std::vector<std::shared_ptr<const engine::Model>> members{member(*robot, 3), member(*robot, 4)};
  const int E = 4;
  LearnedBackend ba(robot, members, E, pool), bb(robot, members, E, pool), bc(robot, members, E, pool);
  auto ta = make_task("quadruped-velocity", *robot), tb = make_task("quadruped-velocity", *robot),
       tc = make_task("quadruped-velocity", *robot);
  VecEnv plain(*ta, ba, pool, 3), penalized(*tb, bb, pool, 3), truncated(*tc, bc, pool, 3);
  const double lambda = 2.5;
  penalized.set_uncertainty({lambda, 0});
  truncated.set_uncertainty({0.5, 1e-12});
  for (VecEnv* v : {&plain, &penalized, &truncated}) v->reset_all();
  std::vector<float> act(size_t(E) * size_t(plain.action_dim()), 0.1f);
  for (int s = 0; s < 3; ++s) {
    plain.step(act.data());
    penalized.step(act.data());
    truncated.step(act.data());
    for (int e = 0; e < E; ++e) {
      ASSERT_GT(ba.disagreement(e), 0.f);
      EXPECT_NEAR(penalized.rewards()[e], plain.rewards()[e] - lambda * ba.disagreement(e) * plain.step_seconds(), 1e-5);
      EXPECT_EQ(truncated.timed_out()[e], 1) << "every step disagrees more than 1e-12";
      EXPECT_EQ(truncated.terminated()[e], 0);
    }
  }
  const EpisodeStats st = truncated.take_episode_stats();
  EXPECT_EQ(st.uncertainty_truncations, 3 * E);
  EXPECT_GT(st.uncertainty_sum, 0.0);  // the penalties of the truncated episodes
  // a single model has no disagreement to use
  LearnedBackend single(robot, members[0], E, pool);
  auto td = make_task("quadruped-velocity", *robot);
  VecEnv one(*td, single, pool, 3);
  EXPECT_THROW(one.set_uncertainty({1.0, 0}), Error);
}

}  // namespace
}  // namespace flashnerd::env
