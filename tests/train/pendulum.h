// A tiny synthetic dataset for the training tests: a 1-DoF damped, torque-driven pendulum
// with analytic dynamics (no MuJoCo), StateLayout nq = nv = nu = 1, fixed base.
#pragma once

#include <cmath>
#include <string>

#include "core/dataset.h"
#include "core/rng.h"

namespace flashnerd::testing {

struct PendulumOptions {
  int64_t trajectories = 24;
  int64_t steps = 40;
  uint64_t seed = 1;
  std::string robot = "pendulum";
  double invalid_fraction = 0;  // transitions masked at random (their states stay finite)
};

inline Dataset make_pendulum_dataset(const PendulumOptions& o = {}) {
  Dataset d;
  d.robot = o.robot;
  d.mjcf_hash = "analytic-pendulum";
  d.actuator_model = "motor";
  d.timestep = 0.02;
  d.seed = o.seed;
  d.layout.nq = d.layout.nv = d.layout.nu = 1;
  d.layout.joint_wrapped = {0};
  d.layout.joint_names = {"hinge"};
  d.allocate(o.trajectories, o.steps, false);
  Rng rng(o.seed);
  const double g_over_l = 9.81, damping = 0.3, dt = d.timestep;
  const int substeps = 10;
  for (int64_t n = 0; n < o.trajectories; ++n) {
    double q = rng.uniform(-1.5, 1.5), v = rng.uniform(-2, 2);
    for (int64_t t = 0; t <= o.steps; ++t) {
      d.qpos[size_t(n * (o.steps + 1) + t)] = q;
      d.qvel[size_t(n * (o.steps + 1) + t)] = v;
      if (t == o.steps) break;
      const double u = rng.uniform(-2, 2);
      d.ctrl[size_t(n * o.steps + t)] = u;
      d.valid[size_t(n * o.steps + t)] = rng.uniform() >= o.invalid_fraction ? 1 : 0;
      const double h = dt / substeps;  // semi-implicit Euler substeps
      for (int s = 0; s < substeps; ++s) {
        v += h * (-g_over_l * std::sin(q) - damping * v + u);
        q += h * v;
      }
    }
  }
  return d;
}

}  // namespace flashnerd::testing
