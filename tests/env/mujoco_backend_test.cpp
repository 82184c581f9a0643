// The analytic backend equals stepping one mjData per environment with mj_step directly.
#include "env/mujoco_backend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "sim/probe_features.h"
#include "sim/samplers.h"

namespace flashnerd::env {
namespace {

TEST(MujocoBackend, EqualsDirectMjStep) {
  auto robot = sim::Robot::load("quadruped");
  const mjModel* m = robot->model();
  const int E = 3, steps = 12;
  ThreadPool pool(2);
  MujocoBackend backend(robot, E, pool);
  std::vector<mjData*> direct;
  sim::StateSampler sampler(*robot);
  Rng rng(7);
  std::vector<double> q(size_t(m->nq)), v(size_t(m->nv));
  for (int e = 0; e < E; ++e) {
    sampler.sample(rng, q.data(), v.data());
    backend.reset(e, q.data(), v.data());
    mjData* d = mj_makeData(m);
    std::memcpy(d->qpos, q.data(), sizeof(double) * q.size());
    std::memcpy(d->qvel, v.data(), sizeof(double) * v.size());
    direct.push_back(d);
  }
  std::vector<double> u(size_t(E) * size_t(m->nu));
  mjData* probe_data = mj_makeData(m);
  for (int s = 0; s < steps; ++s) {
    for (double& x : u) x = rng.uniform(-1.0, 1.0);
    backend.step(u.data());
    for (int e = 0; e < E; ++e) {
      mjData* d = direct[size_t(e)];
      std::memcpy(d->ctrl, u.data() + size_t(e) * size_t(m->nu), sizeof(double) * size_t(m->nu));
      for (int k = 0; k < robot->substeps(); ++k) mj_step(m, d);
      EXPECT_EQ(0, std::memcmp(backend.q(e), d->qpos, sizeof(double) * size_t(m->nq))) << "env " << e << " step " << s;
      EXPECT_EQ(0, std::memcmp(backend.v(e), d->qvel, sizeof(double) * size_t(m->nv))) << "env " << e << " step " << s;
      // probe clearances are those of the new state (measured on a copy: mj_kinematics
      // normalizes the quaternion in qpos, which would change the next direct step)
      mj_copyData(probe_data, m, d);
      mj_kinematics(m, probe_data);
      for (int k = 0; k < backend.probe_count(); ++k) {
        double p[3], n[3], c[3];
        EXPECT_EQ(backend.probe_clearance(e)[k],
                  sim::probe_clearance(*robot, m, probe_data, robot->probes()[size_t(k)], p, n, c));
      }
    }
  }
  for (mjData* d : direct) mj_deleteData(d);
  mj_deleteData(probe_data);
}

TEST(MujocoBackend, SaveAndLoadStateContinuesBitExactly) {
  auto robot = sim::Robot::load("quadruped");
  ThreadPool pool(1);
  MujocoBackend a(robot, 2, pool), b(robot, 2, pool);
  Rng rng(3);
  sim::StateSampler sampler(*robot);
  std::vector<double> q(size_t(a.nq())), v(size_t(a.nv())), u(size_t(2 * a.nu()), 0.1);
  for (int e = 0; e < 2; ++e) {
    sampler.sample(rng, q.data(), v.data());
    a.reset(e, q.data(), v.data());
  }
  for (int s = 0; s < 3; ++s) a.step(u.data());
  b.load_state(a.save_state());
  for (int s = 0; s < 3; ++s) {
    a.step(u.data());
    b.step(u.data());
  }
  EXPECT_EQ(0, std::memcmp(a.q(1), b.q(1), sizeof(double) * size_t(a.nq())));
  EXPECT_THROW(b.load_state(a.save_state().substr(8)), Error);
}

}  // namespace
}  // namespace flashnerd::env
