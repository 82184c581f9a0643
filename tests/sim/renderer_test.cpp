// Offscreen rendering through EGL: a frame of the walker is not blank, states differ in
// pixels, captions are drawn, tiles and PNG encoding work.
#include "sim/renderer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sim_test_models.h"

namespace flashnerd::sim {
namespace {

TEST(Renderer, RendersDistinctNonBlankFrames) {
  auto robot = Robot::load(testing::write_temp("walker.xml", testing::kWalkerXml));
  Renderer renderer(*robot, 160, 120);
  std::vector<double> q(robot->model()->qpos0, robot->model()->qpos0 + robot->layout().nq);
  Image a = renderer.render(q.data());
  ASSERT_EQ(a.width, 160);
  ASSERT_EQ(a.height, 120);
  uint8_t lo = 255, hi = 0;
  for (uint8_t p : a.rgb) {
    lo = std::min(lo, p);
    hi = std::max(hi, p);
  }
  EXPECT_GT(hi - lo, 50) << "the frame is blank";
  q[7] = 0.9;  // swing a leg
  Image b = renderer.render(q.data());
  EXPECT_NE(a.rgb, b.rgb);
  // a caption is drawn over the frame, in MuJoCo's font
  Image captioned = renderer.render(q.data(), false, "MuJoCo", time_caption(0.25));
  EXPECT_NE(captioned.rgb, b.rgb);
  EXPECT_EQ(time_caption(0.25), "t = 0.25 s");
  Image strip = tile_images({a, b}, 1, 2);
  EXPECT_EQ(strip.width, 2 * 160 + 4);
  std::string path = testing::write_temp("strip.png", "");
  write_png(path, strip);
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
}

}  // namespace
}  // namespace flashnerd::sim
