// Physical sanity of the built-in robots, where a wrong simulator setting silently ruins
// every experiment on top of it.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/robot.h"

namespace flashnerd::sim {
namespace {

// The quadruped holding its home pose must stand still on flat ground. With MuJoCo's default
// pyramidal friction cones and impratio 1, soft contacts let the feet creep outward under the
// splayed legs' tangential load (3 cm/s) and the base sank from 0.57 to 0.38 m in 5 s, so no
// gait could push off the ground; elliptic cones with impratio 100 hold it.
TEST(BuiltinRobots, QuadrupedStandsAtHomeWithoutCreeping) {
  auto robot = Robot::load("quadruped");
  const mjModel* m = robot->model();
  mjData* d = mj_makeData(m);
  robot->set_state(d, robot->nominal_qpos().data(), std::vector<double>(size_t(m->nv), 0.0).data());
  robot->set_ctrl(d, robot->nominal_ctrl().data());
  const int foot = mj_name2id(m, mjOBJ_GEOM, "LF_FOOT");
  ASSERT_GE(foot, 0);
  const double dt = m->opt.timestep;
  double z5 = 0, x5 = 0;
  for (int s = 1; s <= int(std::lround(20.0 / dt)); ++s) {
    mj_step(m, d);
    if (s == int(std::lround(5.0 / dt))) {
      z5 = d->qpos[2];
      x5 = d->geom_xpos[3 * foot];
    }
  }
  EXPECT_GT(z5, 0.5) << "the base sank within 5 s";
  EXPECT_NEAR(d->qpos[2], z5, 0.005) << "the base kept sinking from 5 s to 20 s";
  EXPECT_NEAR(d->geom_xpos[3 * foot], x5, 0.005) << "the front-left foot slid from 5 s to 20 s";
  mj_deleteData(d);
}

}  // namespace
}  // namespace flashnerd::sim
