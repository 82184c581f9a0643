// The coupled backend over hand16 + cube. With MuJoCo's own free dynamics (the oracle),
// two-way coupling must equal the mujoco backend stepping the whole scene, and one-way must
// move the hand exactly as the robot alone; a reset touches only its environment (its model
// history included); a saved state continues bit for bit; what it cannot do is refused.
#include "env/coupled_backend.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "sim/samplers.h"
#include "testing/robot_models.h"

namespace flashnerd::env {
namespace {

// AR(1) commands around home, a different stream per environment: fingers sweep the cube.
std::vector<double> commands(const sim::Robot& r, int steps, int envs, uint64_t seed) {
  const int nu = r.layout().nu;
  std::vector<double> u(size_t(steps) * size_t(envs) * size_t(nu));
  for (int e = 0; e < envs; ++e) {
    sim::CommandSampler s(r);
    Rng rng = Rng::stream(seed, uint64_t(e));
    s.reset(rng);
    for (int t = 0; t < steps; ++t) s.next(rng, u.data() + (size_t(t) * size_t(envs) + size_t(e)) * size_t(nu));
  }
  return u;
}

// Every environment at the scene's home keyframe: hand open, cube resting on the palm.
void reset_home(Backend& b) {
  const mjModel* m = b.robot().model();
  mjData* d = mj_makeData(m);
  mj_resetDataKeyframe(m, d, mj_name2id(m, mjOBJ_KEY, "home"));
  std::vector<double> cube_v(size_t(b.object_nv()), 0.0);
  for (int e = 0; e < b.envs(); ++e) {
    b.reset(e, d->qpos + b.robot().qpos_offset(), d->qvel + b.robot().qvel_offset());
    if (b.object_nq() > 0) b.set_objects(e, d->qpos + b.nq(), cube_v.data());
  }
  mj_deleteData(d);
}

double max_diff(const double* a, const double* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

struct Scene {
  std::shared_ptr<const sim::Robot> hand = sim::Robot::load("hand16");
  std::shared_ptr<const sim::Robot> alone = sim::Robot::load("hand16_alone");
};

TEST(CoupledBackend, OracleTwoWayEqualsTheMujocoBackend) {
  Scene s;
  ThreadPool pool(2);
  const int envs = 3, steps = 300;
  CoupledBackend coupled(s.hand, s.alone, nullptr, sim::Coupling::TwoWay, envs, pool);
  MujocoBackend mujoco(s.hand, envs, pool);
  EXPECT_EQ(coupled.kind(), "two-way oracle");
  ASSERT_EQ(coupled.object_nq(), 7);
  ASSERT_EQ(mujoco.object_nq(), 7);
  reset_home(coupled);
  reset_home(mujoco);
  const auto u = commands(*s.hand, steps, envs, 3);
  double worst = 0;
  for (int t = 0; t < steps; ++t) {
    const double* ut = u.data() + size_t(t) * size_t(envs) * size_t(coupled.nu());
    coupled.step(ut);
    mujoco.step(ut);
    for (int e = 0; e < envs; ++e) {
      worst = std::max({worst, max_diff(coupled.q(e), mujoco.q(e), coupled.nq()),
                        max_diff(coupled.v(e), mujoco.v(e), coupled.nv()),
                        max_diff(coupled.object_q(e), mujoco.object_q(e), 7),
                        max_diff(coupled.object_v(e), mujoco.object_v(e), 6),
                        max_diff(coupled.probe_clearance(e), mujoco.probe_clearance(e), coupled.probe_count())});
      ASSERT_FALSE(coupled.failed(e));
    }
  }
  EXPECT_LT(worst, 1e-9) << "two-way coupling with MuJoCo's free dynamics drifted from MuJoCo";
  EXPECT_EQ(coupled.timings().env_steps, int64_t(steps) * envs);
}

TEST(CoupledBackend, OracleOneWayMovesTheHandAsIfAlone) {
  Scene s;
  ThreadPool pool(2);
  const int envs = 2, steps = 240;
  CoupledBackend one_way(s.hand, s.alone, nullptr, sim::Coupling::OneWay, envs, pool);
  CoupledBackend two_way(s.hand, s.alone, nullptr, sim::Coupling::TwoWay, envs, pool);
  MujocoBackend hand_alone(s.alone, envs, pool);
  EXPECT_EQ(one_way.kind(), "one-way oracle");
  EXPECT_EQ(hand_alone.object_nq(), 0);
  reset_home(one_way);
  reset_home(two_way);
  reset_home(hand_alone);
  std::vector<double> cube0(one_way.object_q(0), one_way.object_q(0) + 3);
  const auto u = commands(*s.hand, steps, envs, 8);
  double vs_alone = 0, two_way_vs_alone = 0;
  for (int t = 0; t < steps; ++t) {
    const double* ut = u.data() + size_t(t) * size_t(envs) * size_t(one_way.nu());
    one_way.step(ut);
    two_way.step(ut);
    hand_alone.step(ut);
    for (int e = 0; e < envs; ++e) {
      vs_alone = std::max(vs_alone, max_diff(one_way.q(e), hand_alone.q(e), one_way.nq()));
      two_way_vs_alone = std::max(two_way_vs_alone, max_diff(two_way.q(e), hand_alone.q(e), one_way.nq()));
    }
  }
  EXPECT_LT(vs_alone, 1e-9) << "one-way: the cube must not deflect the hand";
  EXPECT_GT(two_way_vs_alone, 1e-3) << "two-way: the cube should push the hand back";
  EXPECT_GT(max_diff(one_way.object_q(0), cube0.data(), 3), 1e-3) << "one-way: the hand should move the cube";
}

// A free-velocity model of the hand with random weights: histories that matter.
std::shared_ptr<const engine::Model> random_free_dynamics_model(const sim::Robot& hand) {
  return engine::Model::random(flashnerd::testing::robot_model_config(hand, Arch::FlashNeRD, PredictionTarget::FreeVelocity), 11);
}

TEST(CoupledBackend, LearnedResetTouchesOnlyItsEnvironmentAndStateRoundTrips) {
  Scene s;
  ThreadPool pool(2);
  const int envs = 3, steps = 40;
  auto model = random_free_dynamics_model(*s.hand);
  CoupledBackend a(s.hand, s.alone, model, sim::Coupling::TwoWay, envs, pool);
  CoupledBackend b(s.hand, s.alone, model, sim::Coupling::TwoWay, envs, pool);
  EXPECT_EQ(a.kind(), "two-way");
  reset_home(a);
  reset_home(b);
  const auto u = commands(*s.hand, 2 * steps, envs, 5);
  auto step = [&](CoupledBackend& x, int t) { x.step(u.data() + size_t(t) * size_t(envs) * size_t(x.nu())); };
  for (int t = 0; t < steps; ++t) {
    step(a, t);
    step(b, t);
  }
  // reset env 1 of a only: envs 0 and 2 (states, cubes, model histories) go on as in b
  std::vector<double> q1(a.q(1), a.q(1) + a.nq()), v1(size_t(a.nv()), 0.0);
  a.reset(1, q1.data(), v1.data());
  const std::string saved = a.save_state();
  for (int t = steps; t < 2 * steps; ++t) {
    step(a, t);
    step(b, t);
  }
  for (int e : {0, 2}) {
    EXPECT_EQ(max_diff(a.q(e), b.q(e), a.nq()), 0.0) << "env " << e;
    EXPECT_EQ(max_diff(a.object_q(e), b.object_q(e), 7), 0.0) << "env " << e;
  }
  EXPECT_GT(max_diff(a.q(1), b.q(1), a.nq()), 1e-6) << "env 1 was reset: its history started afresh";
  // the saved state continues bit for bit
  CoupledBackend c(s.hand, s.alone, model, sim::Coupling::TwoWay, envs, pool);
  c.load_state(saved);
  for (int t = steps; t < 2 * steps; ++t) step(c, t);
  for (int e = 0; e < envs; ++e) {
    EXPECT_EQ(max_diff(a.q(e), c.q(e), a.nq()), 0.0) << "env " << e;
    EXPECT_EQ(max_diff(a.object_v(e), c.object_v(e), 6), 0.0) << "env " << e;
  }
}

TEST(CoupledBackend, RefusesWhatItCannotDo) {
  Scene s;
  ThreadPool pool(1);
  CoupledBackend b(s.hand, s.alone, nullptr, sim::Coupling::TwoWay, 2, pool);
  std::vector<double> u(size_t(b.nu()), 0.0);
  EXPECT_THROW(b.step_first(u.data(), 1), Error);  // the contact solve steps every environment
  EXPECT_THROW(b.copy_env(0, 1), Error);
  EXPECT_THROW(CoupledBackend(s.alone, s.alone, nullptr, sim::Coupling::TwoWay, 1, pool), Error);  // no objects
  ModelConfig increment = random_robot_model_config(*s.hand, Arch::FlashNeRD, ModelPreset::Tiny, false);
  EXPECT_THROW(CoupledBackend(s.hand, s.alone, engine::Model::random(increment, 1), sim::Coupling::TwoWay, 1, pool),
               Error);  // a full-dynamics model cannot be coupled
}

}  // namespace
}  // namespace flashnerd::env
