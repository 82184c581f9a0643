// The knot spline passes through its knots, reproduces straight lines (a natural cubic
// spline does), and shifts a plan by one control step with the last knot back at zero.
#include "mpc/knot_spline.h"

#include <gtest/gtest.h>

#include <vector>

namespace flashnerd::mpc {
namespace {

TEST(KnotSpline, PassesThroughKnotsAndReproducesLines) {
  KnotSpline s(5, 24);  // knots every 6 control steps
  const std::vector<double> bumpy = {0.1, -0.7, 0.4, 0.9, -0.2};
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(s.evaluate(bumpy.data(), 6.0 * k), bumpy[size_t(k)], 1e-12);
  std::vector<double> line(5), out(24);
  for (int k = 0; k < 5; ++k) line[size_t(k)] = 0.2 + 0.05 * 6 * k;
  s.controls(line.data(), 1, out.data());
  for (int t = 0; t < 24; ++t) EXPECT_NEAR(out[size_t(t)], 0.2 + 0.05 * t, 1e-12) << "step " << t;
}

TEST(KnotSpline, ControlsOfSeveralActionsAreIndependent) {
  KnotSpline s(4, 9);
  const std::vector<double> a = {0.3, -0.1, 0.8, 0.0}, b = {-0.5, 0.6, 0.2, 0.9};
  std::vector<double> both(8), out(18), oa(9), ob(9);
  for (int k = 0; k < 4; ++k) {
    both[size_t(2 * k)] = a[size_t(k)];
    both[size_t(2 * k + 1)] = b[size_t(k)];
  }
  s.controls(both.data(), 2, out.data());
  s.controls(a.data(), 1, oa.data());
  s.controls(b.data(), 1, ob.data());
  for (int t = 0; t < 9; ++t) {
    EXPECT_DOUBLE_EQ(out[size_t(2 * t)], oa[size_t(t)]);
    EXPECT_DOUBLE_EQ(out[size_t(2 * t + 1)], ob[size_t(t)]);
  }
}

TEST(KnotSpline, ShiftMovesThePlanOneStepAndEndsAtZero) {
  KnotSpline s(5, 24);
  std::vector<double> y = {0.1, -0.7, 0.4, 0.9, -0.2}, before = y, scratch(5);
  s.shift(y.data(), 1, scratch.data());
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(y[size_t(k)], s.evaluate(before.data(), 6.0 * k + 1.0), 1e-12);
  EXPECT_EQ(y[4], 0.0);
}

}  // namespace
}  // namespace flashnerd::mpc
