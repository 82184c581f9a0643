// RobotWorldCollider against mj_collision (the reference): on every built-in robot it applies
// to, at the states of a random dataset in each trajectory's own scene (platforms moved and
// resized), detection through the collider gives the reference's contact rows as a set, bit
// for bit; robots it cannot serve say so and detect through mj_collision.
#include "sim/robot_world_collider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "core/thread_pool.h"
#include "sim/contact_sensor.h"
#include "sim/generator.h"

namespace flashnerd::sim {
namespace {

using Row = std::array<float, kContactRowDim + 1>;  // the row and its link

std::vector<Row> rows_at(ContactSensor& sensor, const Dataset& d, int64_t n, int64_t t, int capacity, bool* overflow) {
  std::vector<float> rows(size_t(capacity) * kContactRowDim);
  std::vector<int32_t> link(static_cast<size_t>(capacity));
  ContactRowsOut out{rows.data(), link.data(), 0, 0};
  sensor.place(d.seed, n, d.q(n, t), d.v(n, t));
  sensor.detect(capacity, out);
  *overflow = *overflow || out.overflow > 0;
  std::vector<Row> set;
  for (int i = 0; i < out.count; ++i) {
    Row r{};
    std::copy_n(rows.data() + size_t(i) * kContactRowDim, kContactRowDim, r.begin());
    r[kContactRowDim] = float(link[size_t(i)]);
    set.push_back(r);
  }
  std::sort(set.begin(), set.end());
  return set;
}

// 12 random trajectories of 40 steps, each in its own scene; no rows recorded (the test detects)
Dataset random_states(const Robot& robot) {
  ThreadPool pool(1);
  GenerateOptions o;
  o.trajectories = 12, o.steps = 40, o.seed = 5, o.progress = false, o.contacts = false;
  return generate_dataset(robot, o, pool);
}

class EveryRobot : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryRobot, CollidesAsMujocoDoesAsASet) {
  auto robot = Robot::load(GetParam());
  const Dataset d = random_states(*robot);
  ContactSensor fast(*robot), reference(*robot);
  reference.use_reference_detection(true);
  const int capacity = 256;
  int64_t rows = 0, states = 0;
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t <= d.steps; ++t) {
      bool overflow = false;
      const auto a = rows_at(fast, d, n, t, capacity, &overflow);
      const auto b = rows_at(reference, d, n, t, capacity, &overflow);
      ASSERT_FALSE(overflow) << "raise the test's capacity";
      ASSERT_EQ(a, b) << GetParam() << ": trajectory " << n << ", frame " << t;
      rows += int64_t(a.size());
      ++states;
    }
  if (fast.fast_detection() && robot_collision_geoms(*robot) > 0) {
    EXPECT_GT(rows, 0) << "the states should touch the scene";
  }
  std::printf("%s: %s detection, %lld rows at %lld states\n", GetParam(),
              fast.fast_detection() ? "collider" : "mj_collision", (long long)rows, (long long)states);
}

INSTANTIATE_TEST_SUITE_P(Robots, EveryRobot,
                         ::testing::Values("quadruped", "quadruped_platform", "cartpole", "arm7", "hand16", "humanoid"));

TEST(RobotWorldCollider, ServesTheClimbingQuadrupedAndListsOnlyRobotSceneGeomPairs) {
  auto robot = Robot::load("quadruped_platform");
  ContactSensor sensor(*robot);
  EXPECT_TRUE(sensor.fast_detection());
  const RobotWorldCollider collider(*robot, robot->model());
  int robot_geoms = 0, scene_geoms = 0;
  const mjModel* m = robot->model();
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_contype[g] == 0 && m->geom_conaffinity[g] == 0) continue;
    (robot->is_robot_body(m->geom_bodyid[g]) ? robot_geoms : scene_geoms) += 1;
  }
  EXPECT_GT(collider.pairs(), 0);
  EXPECT_LE(collider.pairs(), robot_geoms * scene_geoms);
  sensor.use_reference_detection(true);
  EXPECT_FALSE(sensor.fast_detection());
}

}  // namespace
}  // namespace flashnerd::sim
