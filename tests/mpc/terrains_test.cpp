// Terrain lists: the shipped climbing terrains start the robot clear of the platform, and a
// terrain whose near edge sits under the robot's feet is refused, naming the geom.
#include "mpc/terrains.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "sim/robot.h"

namespace flashnerd::mpc {
namespace {

TEST(Terrains, EveryShippedTerrainStartsTheRobotClearOfThePlatform) {
  const TerrainList list = load_terrains(default_terrains_path());
  auto robot = sim::Robot::load(list.robot);
  const std::vector<double> q0 = robot->nominal_qpos();
  for (const Terrain& t : list.terrains) {
    EXPECT_NO_THROW(check_start_clear(*robot, t, q0.data())) << t.name;
    EXPECT_EQ(sim::platform_overlap(*robot, t.platform, q0.data()).depth, 0.0) << t.name;
  }
}

TEST(Terrains, AnEdgeUnderTheFrontFeetIsRefusedNamingTheGeom) {
  auto robot = sim::Robot::load("quadruped_platform");
  const std::vector<double> q0 = robot->nominal_qpos();
  const Terrain near{"near", {0.15, 0.40}};  // the front feet reach 0.49 m ahead of the base
  const sim::PlatformOverlap overlap = sim::platform_overlap(*robot, near.platform, q0.data());
  EXPECT_GT(overlap.depth, 0.01);
  EXPECT_NE(overlap.geom.find("F_"), std::string::npos) << overlap.geom;  // a front leg
  try {
    check_start_clear(*robot, near, q0.data());
    FAIL() << "an overlapping start was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'near'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(overlap.geom), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::mpc
