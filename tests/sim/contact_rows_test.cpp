// Contact rows under stress (docs/DESIGN.md §4): a scene with hundreds of contacts keeps the K rows of
// smallest gap and counts the rest; MuJoCo's own full contact list is reported; a robot
// without collision geometry is recognized.
#include "sim/contact_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "sim_test_models.h"

namespace flashnerd::sim {
namespace {

// A floating mat of n small spheres resting on the floor, each a little deeper than the last,
// plus an actuated arm without collision geometry.
std::string mat_xml(int n, int nconmax) {
  std::ostringstream x;
  x << "<mujoco model=\"mat\"><size nconmax=\"" << nconmax << "\" njmax=\"" << 4 * nconmax << "\"/>"
    << "<worldbody><geom name=\"floor\" type=\"plane\" size=\"5 5 0.1\"/>"
    << "<body name=\"mat\" pos=\"0 0 0.019\"><freejoint/>";
  for (int i = 0; i < n; ++i)
    x << "<geom type=\"sphere\" size=\"0.02\" pos=\"" << 0.05 * (i % 20) << " " << 0.05 * (i / 20) << " "
      << -1e-5 * i << "\" mass=\"0.01\"/>";
  x << "<body name=\"arm\"><joint name=\"j\" type=\"hinge\" axis=\"0 0 1\"/>"
    << "<geom type=\"capsule\" fromto=\"0 0 0.1 0 0 0.3\" size=\"0.01\" contype=\"0\" conaffinity=\"0\"/></body>"
    << "</body></worldbody><actuator><motor joint=\"j\"/></actuator></mujoco>";
  return x.str();
}

struct Detected {
  ContactRowsOut out;
  std::vector<float> rows;
  std::vector<int32_t> link;
};

Detected detect(const Robot& robot, int K) {
  Detected r;
  r.rows.resize(size_t(K) * kContactRowDim);
  r.link.resize(size_t(K));
  r.out = ContactRowsOut{r.rows.data(), r.link.data(), 0, 0};
  mjData* d = mj_makeData(robot.model());
  ContactScratch scratch;
  detect_contact_rows(robot, robot.model(), d, K, scratch, r.out);
  mj_deleteData(d);
  return r;
}

TEST(ContactRows, HundredsOfContactsKeepTheSmallestGapsAndCountTheRest) {
  auto robot = Robot::load(testing::write_temp("mat300.xml", mat_xml(300, 1000)));
  auto all = detect(*robot, 400);
  ASSERT_EQ(all.out.count, 300);
  EXPECT_EQ(all.out.overflow, 0);
  EXPECT_FALSE(all.out.buffer_full);
  auto kept = detect(*robot, 64);
  EXPECT_EQ(kept.out.count, 64);
  EXPECT_EQ(kept.out.overflow, 236);
  // the kept gaps are the 64 smallest of all 300
  std::vector<float> gaps;
  for (int i = 0; i < 300; ++i) gaps.push_back(all.rows[size_t(i) * kContactRowDim + 12]);
  std::sort(gaps.begin(), gaps.end());
  float kept_max = -1e9f;
  for (int i = 0; i < 64; ++i) kept_max = std::max(kept_max, kept.rows[size_t(i) * kContactRowDim + 12]);
  EXPECT_EQ(kept_max, gaps[63]);
  EXPECT_LT(kept_max, gaps[64]);
  for (int i = 300; i < 400; ++i) EXPECT_EQ(all.link[size_t(i)], -1) << "padding row " << i;
}

TEST(ContactRows, MujocoContactListFullIsReported) {
  auto robot = Robot::load(testing::write_temp("mat_small_buffer.xml", mat_xml(300, 50)));
  auto r = detect(*robot, 64);
  EXPECT_TRUE(r.out.buffer_full);
  EXPECT_LE(r.out.count, 50);
}

TEST(ContactRows, RobotWithoutCollisionGeometryHasNoRows) {
  auto with = Robot::load(testing::write_temp("mat_geoms.xml", mat_xml(3, 100)));
  EXPECT_EQ(robot_collision_geoms(*with), 3);
  std::string xml = mat_xml(3, 100);
  for (size_t p = 0; (p = xml.find("mass=\"0.01\"", p)) != std::string::npos; p += 10)
    xml.replace(p, 11, "mass=\"0.01\" contype=\"0\" conaffinity=\"0\"");
  auto without = Robot::load(testing::write_temp("mat_nogeoms.xml", xml));
  EXPECT_EQ(robot_collision_geoms(*without), 0);
  EXPECT_EQ(detect(*without, 64).out.count, 0);
}

}  // namespace
}  // namespace flashnerd::sim
