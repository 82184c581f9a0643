// The planner over every backend kind: a forked sample steps bit-identically to its source,
// stepping the samples leaves the tracker alone, set_state keeps a history (reset does not),
// planning gives the same commands for any thread count, DIAL swings the cartpole up with
// MuJoCo where random actions do not, and a decision never allocates.
#include "mpc/planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "mpc/cartpole_swingup_task.h"
#include "mpc/climb_task.h"
#include "mpc/trial.h"
#include "testing/alloc_counter.h"
#include "testing/robot_models.h"

namespace flashnerd::mpc {
namespace {

enum class Kind { Mujoco, FlashContacts, NerdProbes };

std::unique_ptr<env::Backend> make(Kind kind, std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool) {
  switch (kind) {
    case Kind::Mujoco: return std::make_unique<env::MujocoBackend>(robot, envs, pool);
    case Kind::FlashContacts:
      return std::make_unique<env::LearnedBackend>(
          robot, engine::Model::random(flashnerd::testing::contact_model_config(*robot), 5), envs, pool,
          engine::GemmBackend::RowInvariant);
    case Kind::NerdProbes:
      return std::make_unique<env::LearnedBackend>(
          robot, engine::Model::random(flashnerd::testing::robot_model_config(*robot, Arch::NeRD, PredictionTarget::Increment, true), 5),
          envs, pool, engine::GemmBackend::RowInvariant);
  }
  return nullptr;
}

bool same_state(const env::Backend& a, int ea, const env::Backend& b, int eb) {
  return std::memcmp(a.q(ea), b.q(eb), sizeof(double) * size_t(a.nq())) == 0 &&
         std::memcmp(a.v(ea), b.v(eb), sizeof(double) * size_t(a.nv())) == 0;
}

// Commands around the home pose that differ per environment and step.
void commands(const sim::Robot& robot, int step, int envs, std::vector<double>& u, bool same_for_all = false) {
  const int nu = robot.layout().nu;
  u.resize(size_t(envs) * size_t(nu));
  for (int e = 0; e < envs; ++e)
    for (int i = 0; i < nu; ++i)
      u[size_t(e * nu + i)] = robot.nominal_ctrl()[size_t(i)] + 0.2 * std::sin(0.9 * step + 0.7 * i + (same_for_all ? 0 : e));
}

// Each decision's returns (plan, best, spread) and action, planning the swing-up from rest
// `decisions` times with an ensemble of `members` on cartpole at risk penalty `risk`; the
// first decision's DIAL report in `first`.
std::vector<double> ensemble_plan(const std::vector<std::shared_ptr<const engine::Model>>& members, double risk,
                                  int decisions, DialReport* first = nullptr) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  DialOptions o;
  o.samples = 16;
  o.horizon = 10;
  o.first_iterations = 1;
  o.risk_penalty = risk;
  env::LearnedBackend backend(robot, members, Planner::backend_envs(o), pool, {}, engine::GemmBackend::RowInvariant);
  CartpoleSwingupTask task(*robot);
  Planner planner(backend, task, o, pool);
  std::vector<double> q = robot->nominal_qpos(), v(size_t(robot->layout().nv), 0.0), out;
  q[1] = 0.3;  // the pole off vertical: a plan with a direction
  planner.reset(q.data(), v.data(), 3);
  for (int d = 0; d < decisions; ++d) {
    const DialReport& r = planner.optimize();
    if (d == 0 && first) *first = r;
    out.insert(out.end(), {r.plan_return, r.best_return, r.final_spread});
    out.insert(out.end(), planner.action(), planner.action() + task.action_dim());
    planner.set_state(q.data(), v.data());
  }
  return out;
}

TEST(RiskAwarePlanning, NoPenaltyOrNoDisagreementLeavesThePlanAsItWas) {
  auto robot = sim::Robot::load("cartpole");
  const ModelConfig c = flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD);
  auto a = engine::Model::random(c, 21), b = engine::Model::random(c, 22);
  // identical members never disagree: any penalty plans the same bits
  EXPECT_EQ(ensemble_plan({a, a}, 0.0, 3), ensemble_plan({a, a}, 10.0, 3));
  // members that disagree: a penalty changes returns and plan, none leaves them as they were
  EXPECT_EQ(ensemble_plan({a, b}, 0.0, 3), ensemble_plan({a, b}, 0.0, 3));
  EXPECT_NE(ensemble_plan({a, b}, 0.0, 3), ensemble_plan({a, b}, 10.0, 3));
}

TEST(RiskAwarePlanning, APenaltyLowersEveryReturnByTheDisagreementAlongIt) {
  auto robot = sim::Robot::load("cartpole");
  const ModelConfig c = flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD);
  auto a = engine::Model::random(c, 21), b = engine::Model::random(c, 22);
  DialReport plain, risky;
  ensemble_plan({a, b}, 0.0, 1, &plain);
  ensemble_plan({a, b}, 1.0, 1, &risky);
  // one iteration from the same samples: the plan's return drops by its mean disagreement (> 0)
  EXPECT_LT(risky.plan_return, plain.plan_return);
  EXPECT_LT(risky.best_return, plain.best_return + 1e-12);
  EXPECT_THROW(ensemble_plan({a, b}, -1.0, 1), Error);
}

class EveryPlanningBackend : public ::testing::TestWithParam<Kind> {};

TEST_P(EveryPlanningBackend, ForkedSampleStepsBitIdenticallyToItsSource) {
  auto robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool(2);
  const int E = 5;
  auto b = make(GetParam(), robot, E, pool);
  env::platform_scene(*b).set_platform({0.18, 0.5});
  std::vector<double> u;
  for (int s = 0; s < 6; ++s) {  // env 4 builds a history of its own
    commands(*robot, s, E, u);
    b->step(u.data());
  }
  b->copy_env(4, 0);
  b->copy_env(4, 2);
  ASSERT_TRUE(same_state(*b, 0, *b, 4));
  for (int s = 0; s < 8; ++s) {
    commands(*robot, 100 + s, E, u, true);
    b->step(u.data());
    ASSERT_TRUE(same_state(*b, 0, *b, 4)) << "step " << s;
    ASSERT_TRUE(same_state(*b, 2, *b, 4)) << "step " << s;
    ASSERT_EQ(0, std::memcmp(b->probe_clearance(0), b->probe_clearance(4), sizeof(double) * size_t(b->probe_count())));
  }
}

TEST_P(EveryPlanningBackend, SteppingTheSamplesLeavesTheTrackerAlone) {
  auto robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool(2);
  const int E = 4;
  auto a = make(GetParam(), robot, E, pool), b = make(GetParam(), robot, E, pool);
  std::vector<double> u;
  for (int s = 0; s < 4; ++s) {
    commands(*robot, s, E, u);
    a->step(u.data());
    b->step(u.data());
  }
  commands(*robot, 50, E, u);
  b->step_first(u.data(), 2);  // only envs 0 and 1 move
  EXPECT_FALSE(same_state(*a, 0, *b, 0));
  for (int e : {2, 3}) EXPECT_TRUE(same_state(*a, e, *b, e));
  commands(*robot, 60, E, u);
  a->step(u.data());
  b->step(u.data());
  for (int e : {2, 3}) EXPECT_TRUE(same_state(*a, e, *b, e)) << "env " << e << ": its history was touched";
}

TEST_P(EveryPlanningBackend, SetStateKeepsTheHistory) {
  auto robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool(1);
  const int E = 3;
  auto b = make(GetParam(), robot, E, pool);
  std::vector<double> u;
  for (int s = 0; s < 5; ++s) {
    commands(*robot, s, E, u, true);
    b->step(u.data());
    // env 1 is set to the state it already has: nothing may change
    std::vector<double> q(b->q(1), b->q(1) + b->nq()), v(b->v(1), b->v(1) + b->nv());
    b->set_state(1, q.data(), v.data());
    if (s == 3) b->reset(2, q.data(), v.data());  // env 2 starts a fresh history there
  }
  commands(*robot, 9, E, u, true);
  b->step(u.data());
  EXPECT_TRUE(same_state(*b, 0, *b, 1));
  if (GetParam() != Kind::Mujoco) {
    EXPECT_FALSE(same_state(*b, 0, *b, 2)) << "a reset kept the history";
  }
}

TEST_P(EveryPlanningBackend, DecisionsDoNotAllocate) {
  auto robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool(2);
  DialOptions o;
  o.samples = 6;
  o.horizon = 4;
  o.knots = 3;
  o.first_iterations = 2;
  auto b = make(GetParam(), robot, Planner::backend_envs(o), pool);
  ClimbTask task(*robot);
  Planner planner(*b, task, o, pool);
  std::vector<double> q = robot->nominal_qpos(), v(size_t(b->nv()), 0.0);
  planner.reset(q.data(), v.data(), 1);
  planner.optimize();
  g_allocations = 0;
  g_counting = true;
  for (int s = 0; s < 3; ++s) {
    planner.set_state(q.data(), v.data());
    planner.optimize();
  }
  g_counting = false;
  if (FLASHNERD_COUNT_ALLOCATIONS) {
    EXPECT_EQ(g_allocations.load(), 0);
  }
  EXPECT_EQ(planner.timings().decisions, 4);
  EXPECT_EQ(planner.timings().rollout_steps, int64_t(o.samples) * o.horizon * (2 + 3 * o.iterations));
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryPlanningBackend,
                         ::testing::Values(Kind::Mujoco, Kind::FlashContacts, Kind::NerdProbes),
                         [](const auto& info) {
                           switch (info.param) {
                             case Kind::Mujoco: return std::string("mujoco");
                             case Kind::FlashContacts: return std::string("flashnerd_contacts");
                             case Kind::NerdProbes: return std::string("nerd_probes");
                           }
                           return std::string("?");
                         });

DialOptions swingup_options() {
  DialOptions o;
  o.samples = 64;
  o.horizon = 45;  // 0.75 s at 60 Hz
  o.knots = 6;
  o.seed = 2;
  return o;
}

// Mean upright (cos of the pole angle) over the last third of a swing-up trial from hanging.
double final_upright(const TrialResult& r, int nq) {
  double sum = 0;
  int n = 0;
  for (int f = 2 * r.frames / 3; f <= r.frames; ++f, ++n) sum += std::cos(r.qpos[size_t(f) * size_t(nq) + 1]);
  return sum / n;
}

TEST(Planner, SwingsTheCartpoleUpWithMuJoCoWhereRandomActionsDoNot) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(2);
  DialOptions o = swingup_options();
  env::MujocoBackend world(robot, 1, pool), planning(robot, Planner::backend_envs(o), pool);
  CartpoleSwingupTask task(*robot);
  Planner planner(planning, task, o, pool);
  const double q0[2] = {0.0, M_PI}, v0[2] = {0.0, 0.0};
  const int frames = 180;  // 3 s
  TrialResult planned = run_trial(planner, world, task, q0, v0, frames, 4, {});
  // random actions, same world and frames
  Rng rng(4);
  world.reset(0, q0, v0);
  std::vector<double> qpos(world.q(0), world.q(0) + 2);
  double a = 0, u = 0;
  for (int f = 0; f < frames; ++f) {
    a = rng.uniform(-1, 1);
    task.command(&a, &u);
    world.step(&u);
    qpos.insert(qpos.end(), world.q(0), world.q(0) + 2);
  }
  TrialResult random;
  random.frames = frames;
  random.qpos = qpos;
  const double up_planned = final_upright(planned, 2), up_random = final_upright(random, 2);
  EXPECT_GT(up_planned, 0.8) << "random: " << up_random;
  EXPECT_LT(up_random, 0.0);
}

TEST(Planner, SameCommandsForAnyThreadCount) {
  auto robot = sim::Robot::load("cartpole");
  DialOptions o = swingup_options();
  o.samples = 16;
  o.horizon = 12;
  o.knots = 4;
  std::vector<std::vector<double>> ctrl;
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    env::MujocoBackend world(robot, 1, pool);
    env::LearnedBackend planning(
        robot, engine::Model::random(flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD), 5),
        Planner::backend_envs(o), pool);
    CartpoleSwingupTask task(*robot);
    Planner planner(planning, task, o, pool);
    const double q0[2] = {0.1, 2.0}, v0[2] = {0.0, 0.5};
    ctrl.push_back(run_trial(planner, world, task, q0, v0, 12, 7, {}).ctrl);
  }
  ASSERT_EQ(ctrl[0].size(), ctrl[1].size());
  EXPECT_EQ(0, std::memcmp(ctrl[0].data(), ctrl[1].data(), sizeof(double) * ctrl[0].size()));
}

TEST(Planner, RefusesABackendWithTooFewEnvironments) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  DialOptions o = swingup_options();
  env::MujocoBackend small(robot, o.samples, pool);  // no room for the tracker
  CartpoleSwingupTask task(*robot);
  EXPECT_THROW(Planner(small, task, o, pool), Error);
}

}  // namespace
}  // namespace flashnerd::mpc
