// Timestamped samples onto the control grid: exact at sample times, linear between them,
// commands held, gaps split segments, coarse or irregular logs refused with the figure.
#include "core/log_resample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"

namespace flashnerd {
namespace {

std::string error_of(const std::vector<double>& t, const std::vector<double>& x, double dt) {
  try {
    resample_log(t, {&x}, {false}, ResampleOptions{dt}, nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LogResample, SameRateIsExactAndCommandsAreHeld) {
  const double dt = 0.02;
  std::vector<double> t, x, u;
  for (int i = 0; i < 11; ++i) {
    t.push_back(5.0 + 0.01 * i);  // twice the control rate
    x.push_back(std::sin(double(i)));
    u.push_back(i);
  }
  ResampleReport r;
  const auto seg = resample_log(t, {&x, &u}, {false, true}, ResampleOptions{dt}, &r);
  ASSERT_EQ(seg.size(), 1u);
  ASSERT_EQ(seg[0].frames, 6);
  EXPECT_NEAR(r.median_step, 0.01, 1e-12);
  for (int k = 0; k < 6; ++k) {
    EXPECT_NEAR(seg[0].columns[0][size_t(k)], std::sin(2.0 * k), 1e-9) << k;  // a sample time: its value
    EXPECT_EQ(seg[0].columns[1][size_t(k)], 2.0 * k) << k;
  }
}

TEST(LogResample, LinearBetweenSamplesHoldForCommands) {
  const std::vector<double> t = {0.0, 0.03, 0.06}, x = {0.0, 3.0, 6.0}, u = {1.0, 2.0, 3.0};
  const auto seg = resample_log(t, {&x, &u}, {false, true}, ResampleOptions{0.02}, nullptr);
  ASSERT_EQ(seg[0].frames, 4);  // 0, 0.02, 0.04, 0.06
  EXPECT_NEAR(seg[0].columns[0][1], 2.0, 1e-9);
  EXPECT_NEAR(seg[0].columns[0][2], 4.0, 1e-9);
  EXPECT_EQ(seg[0].columns[1][1], 1.0);  // 0.02: the command of 0.0 still holds
  EXPECT_EQ(seg[0].columns[1][2], 2.0);
}

TEST(LogResample, GapsSplitSegments) {
  std::vector<double> t, x;
  for (int i = 0; i < 10; ++i) t.push_back(0.01 * i);
  for (int i = 0; i < 10; ++i) t.push_back(1.0 + 0.01 * i);
  x.assign(t.size(), 1.0);
  ResampleReport r;
  const auto seg = resample_log(t, {&x}, {false}, ResampleOptions{0.01}, &r);
  EXPECT_EQ(seg.size(), 2u);
  EXPECT_EQ(r.gaps, 1);
  EXPECT_EQ(seg[0].frames, 10);
}

TEST(LogResample, BadTimestampsAreRefusedWithTheFigure) {
  std::vector<double> t = {0.0, 0.01, 0.005, 0.03}, x(4, 0.0);
  EXPECT_NE(error_of(t, x, 0.01).find("column 'time', row 3: 0.005 s is not after"), std::string::npos);
  t = {0.0, 0.05, 0.1, 0.15};
  EXPECT_NE(error_of(t, x, 0.01).find("too coarse: its median step is 0.05 s"), std::string::npos);
  std::vector<double> jittery = {0.0}, y;
  for (int i = 1; i < 40; ++i) jittery.push_back(jittery.back() + (i % 2 ? 0.004 : 0.016));
  y.assign(jittery.size(), 0.0);
  EXPECT_NE(error_of(jittery, y, 0.01).find("too irregular"), std::string::npos);
}

}  // namespace
}  // namespace flashnerd
