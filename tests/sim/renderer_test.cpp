// Offscreen rendering through EGL: a frame of the walker is not blank, states differ in
// pixels, captions are drawn, tiles and PNG encoding work.
#include "sim/renderer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

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

// A fixed-base robot is framed once: a cart that moves along its rail moves in the picture
// (a camera following the cart showed the same frame wherever it was), against the rail's marks.
TEST(Renderer, ACartMovesInThePictureAlongItsMarkedRail) {
  auto robot = Robot::load("cartpole");
  Renderer renderer(*robot, 160, 120);
  std::vector<double> q(size_t(robot->layout().nq), 0.0);
  const Image centred = renderer.render(q.data());
  q[0] = 1.0;  // the slider
  const Image moved = renderer.render(q.data());
  EXPECT_NE(centred.rgb, moved.rgb) << "the cart at x = 1 m looks as it does at x = 0";
  // the rail's marks are drawn: grey pixels (neither the pale backdrop, nor the blue cart or
  // the brown pole) in the frame with the cart at the centre
  size_t grey = 0;
  for (size_t i = 0; i + 2 < centred.rgb.size(); i += 3) {
    const int r = centred.rgb[i], g = centred.rgb[i + 1], b = centred.rgb[i + 2];
    if (r > 40 && std::abs(r - g) <= 8 && std::abs(g - b) <= 8) ++grey;
  }
  EXPECT_GT(grey, 20u) << "no rail marks in the frame";
  // behind the robot a pale backdrop, not black: every corner of the frame is bright and bluish
  for (const auto& [x, y] : {std::pair{0, 0}, {159, 0}, {0, 119}, {159, 119}}) {
    const uint8_t* p = centred.rgb.data() + 3 * (size_t(y) * 160 + size_t(x));
    EXPECT_GT(p[2], 120) << "corner " << x << "," << y;
    EXPECT_GT(p[2], p[0]) << "corner " << x << "," << y;
  }
}

}  // namespace
}  // namespace flashnerd::sim
