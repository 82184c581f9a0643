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
  const std::string coarse = error_of(t, x, 0.01);
  EXPECT_NE(coarse.find("too coarse for the robot's control step: it is recorded at 20 Hz"), std::string::npos) << coarse;
  EXPECT_NE(coarse.find("(66.6667 Hz or faster); record at 100 Hz or faster"), std::string::npos) << coarse;
  std::vector<double> jittery = {0.0}, y;
  for (int i = 1; i < 40; ++i) jittery.push_back(jittery.back() + (i % 2 ? 0.004 : 0.016));
  y.assign(jittery.size(), 0.0);
  EXPECT_NE(error_of(jittery, y, 0.01).find("too irregular"), std::string::npos);
}

// A 60 Hz logger that writes in bursts (9 steps of 2 ms, then 11 longer ones, 60 steps a
// second on average) has a median step above 1.5 control steps of a 60 Hz robot: its rate is
// judged on the mean step, so it imports once its jitter is allowed.
TEST(LogResample, JitteredLogIsJudgedByItsRate) {
  const double dt = 1.0 / 60, long_step = (20 * dt - 9 * 0.002) / 11;
  std::vector<double> t = {0.0}, x;
  for (int i = 1; i <= 600; ++i) t.push_back(t.back() + (i % 20 < 9 ? 0.002 : long_step));
  x.assign(t.size(), 1.0);
  ResampleOptions o{dt};
  o.max_jitter = 1.0;
  ResampleReport r;
  const auto seg = resample_log(t, {&x}, {false}, o, &r);
  EXPECT_GT(r.median_step, 1.5 * dt);
  ASSERT_EQ(seg.size(), 1u);
  EXPECT_NEAR(double(seg[0].frames), 601.0, 1.0);  // 10 s at 60 Hz
}

}  // namespace
}  // namespace flashnerd
