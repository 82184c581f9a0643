// Two-way coupling mechanics without learning: fed MuJoCo's own free acceleration of the
// hand (the oracle), the hybrid stepper must reproduce the fully analytical simulation of hand
// and cube to 1e-9 over hundreds of steps. One-way coupling must leave the hand exactly as if
// the cube did not exist; a floating base is refused.
#include "sim/coupled_sim.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "sim/samplers.h"

namespace flashnerd::sim {
namespace {

std::shared_ptr<const Robot> load_alone() { return Robot::load("hand16_alone"); }

// Scripted commands: AR(1) targets around the home pose (fingers sweep through the cube).
std::vector<double> commands(const Robot& r, int steps, uint64_t seed) {
  CommandSampler s(r);
  Rng rng(seed);
  s.reset(rng);
  std::vector<double> u(size_t(steps) * size_t(r.layout().nu));
  for (int t = 0; t < steps; ++t) s.next(rng, u.data() + size_t(t) * r.layout().nu);
  return u;
}

double max_abs_diff(const double* a, const double* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(CoupledSim, OracleTwoWayEqualsAnalyticalSimulation) {
  auto scene = Robot::load("hand16");
  auto alone = load_alone();
  const mjModel* m = scene->model();
  const int steps = 600, nu = m->nu;
  auto u = commands(*scene, steps, 5);
  ThreadPool pool(2);
  CoupledSim sim(scene, alone, 2, Coupling::TwoWay, pool);
  // analytical reference: the same scene with its actuators, stepped by MuJoCo alone
  std::vector<mjData*> ref = {mj_makeData(m), mj_makeData(m)};
  for (int e = 0; e < 2; ++e) {
    mj_resetDataKeyframe(m, ref[size_t(e)], mj_name2id(m, mjOBJ_KEY, "home"));
    sim.set_state(e, ref[size_t(e)]->qpos, ref[size_t(e)]->qvel);
  }
  std::vector<double> ctrl(size_t(2 * nu)), dv(size_t(2 * scene->layout().nv));
  double worst = 0;
  int contact_steps = 0;
  for (int t = 0; t < steps; ++t) {
    for (int e = 0; e < 2; ++e) {
      // env 1 runs the command sequence reversed in time: different contacts
      const double* ut = u.data() + size_t(e == 0 ? t : steps - 1 - t) * nu;
      std::copy(ut, ut + nu, ctrl.data() + e * nu);
      std::copy(ut, ut + nu, ref[size_t(e)]->ctrl);
      mj_step(m, ref[size_t(e)]);
    }
    sim.begin_step(ctrl.data());
    sim.oracle_free_dv(dv.data());
    sim.end_step(dv.data());
    for (int e = 0; e < 2; ++e) {
      worst = std::max(worst, max_abs_diff(sim.data(e)->qpos, ref[size_t(e)]->qpos, m->nq));
      worst = std::max(worst, max_abs_diff(sim.data(e)->qvel, ref[size_t(e)]->qvel, m->nv));
    }
    contact_steps += ref[0]->ncon > 0;
  }
  EXPECT_LT(worst, 1e-9) << "hybrid stepping drifted from MuJoCo";
  EXPECT_GT(contact_steps, steps / 2) << "the scripted motion should keep hand and cube in contact";
  for (auto* d : ref) mj_deleteData(d);
}

TEST(CoupledSim, OneWayHandIgnoresTheCube) {
  auto scene = Robot::load("hand16");
  auto alone = load_alone();
  const mjModel* m = scene->model();
  const mjModel* ma = alone->model();
  const int steps = 400, nu = m->nu, nq = scene->layout().nq, nv = scene->layout().nv;
  auto u = commands(*scene, steps, 9);
  ThreadPool pool(1);
  CoupledSim one_way(scene, alone, 1, Coupling::OneWay, pool);
  CoupledSim two_way(scene, alone, 1, Coupling::TwoWay, pool);
  mjData* init = mj_makeData(m);
  mj_resetDataKeyframe(m, init, mj_name2id(m, mjOBJ_KEY, "home"));
  one_way.set_state(0, init->qpos, init->qvel);
  two_way.set_state(0, init->qpos, init->qvel);
  // the hand alone, simulated analytically
  mjData* hand = mj_makeData(ma);
  std::copy(init->qpos, init->qpos + nq, hand->qpos);
  std::copy(init->qvel, init->qvel + nv, hand->qvel);
  std::vector<double> dv(static_cast<size_t>(nv));
  double one_way_vs_alone = 0, two_way_vs_alone = 0, cube_moved = 0;
  for (int t = 0; t < steps; ++t) {
    const double* ut = u.data() + size_t(t) * nu;
    std::copy(ut, ut + nu, hand->ctrl);
    mj_step(ma, hand);
    for (CoupledSim* s : {&one_way, &two_way}) {
      s->begin_step(ut);
      s->oracle_free_dv(dv.data());
      s->end_step(dv.data());
    }
    one_way_vs_alone = std::max(one_way_vs_alone, max_abs_diff(one_way.data(0)->qpos, hand->qpos, nq));
    two_way_vs_alone = std::max(two_way_vs_alone, max_abs_diff(two_way.data(0)->qpos, hand->qpos, nq));
    cube_moved = std::max(cube_moved, max_abs_diff(one_way.data(0)->qpos + nq, init->qpos + nq, 3));
  }
  EXPECT_LT(one_way_vs_alone, 1e-9) << "one-way: the cube must not deflect the hand";
  EXPECT_GT(two_way_vs_alone, 1e-3) << "two-way: the cube should push the hand back";
  EXPECT_GT(cube_moved, 1e-3) << "one-way: the hand should still move the cube";
  mj_deleteData(init);
  mj_deleteData(hand);
}

TEST(CoupledSim, FloatingBaseIsRefused) {
  auto quad = Robot::load("quadruped");
  ThreadPool pool(1);
  try {
    CoupledSim sim(quad, quad, 1, Coupling::TwoWay, pool);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fixed base"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::sim
