#include "mpc/knot_spline.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd::mpc {

KnotSpline::KnotSpline(int knots, int horizon) : knots_(knots), horizon_(horizon) {
  FN_CHECK_OPTION(knots >= 2, "knots", "must be >= 2 (got ", knots, ")");
  FN_CHECK_OPTION(horizon >= knots - 1, "horizon", horizon, " must be at least ", option_ref("knots"), " − 1 (",
                  knots - 1, ")");
  spacing_ = double(horizon) / double(knots - 1);
  std::vector<double> unit(size_t(knots), 0.0);
  control_weights_.assign(size_t(horizon) * size_t(knots), 0.0);
  shift_weights_.assign(size_t(knots - 1) * size_t(knots), 0.0);
  for (int j = 0; j < knots; ++j) {  // the response to knot j alone gives column j
    std::fill(unit.begin(), unit.end(), 0.0);
    unit[size_t(j)] = 1.0;
    for (int s = 0; s < horizon; ++s) control_weights_[size_t(s) * size_t(knots) + size_t(j)] = evaluate(unit.data(), s);
    for (int k = 0; k + 1 < knots; ++k)
      shift_weights_[size_t(k) * size_t(knots) + size_t(j)] = evaluate(unit.data(), k * spacing_ + 1.0);
  }
}

double KnotSpline::evaluate(const double* y, double t) const {
  // second derivatives of the natural spline (zero at both ends) by the Thomas algorithm;
  // knots are few, so this runs at construction only
  const int n = knots_ - 1;
  double m[64] = {0}, c[64] = {0}, d[64] = {0};
  FN_CHECK(knots_ <= 64, "planner: at most 64 knots (got ", knots_, ")");
  const double h = spacing_;
  for (int i = 1; i < n; ++i) {
    const double rhs = 6.0 * (y[i - 1] - 2.0 * y[i] + y[i + 1]) / (h * h);
    const double denom = 4.0 - (i > 1 ? c[i - 1] : 0.0);
    c[i] = 1.0 / denom;
    d[i] = (rhs - (i > 1 ? d[i - 1] : 0.0)) / denom;
  }
  for (int i = n - 1; i >= 1; --i) m[i] = d[i] - c[i] * m[i + 1];
  t = std::clamp(t, 0.0, double(horizon_));
  const int i = std::min(n - 1, int(t / h));
  const double a = (i + 1) * h - t, b = t - i * h;
  return m[i] * a * a * a / (6 * h) + m[i + 1] * b * b * b / (6 * h) + (y[i] - m[i] * h * h / 6) * a / h +
         (y[i + 1] - m[i + 1] * h * h / 6) * b / h;
}

void KnotSpline::controls(const double* y, int width, double* out) const {
  for (int s = 0; s < horizon_; ++s) {
    const double* w = control_weights_.data() + size_t(s) * size_t(knots_);
    double* o = out + size_t(s) * size_t(width);
    for (int a = 0; a < width; ++a) o[a] = 0.0;
    for (int j = 0; j < knots_; ++j)
      for (int a = 0; a < width; ++a) o[a] += w[j] * y[size_t(j) * size_t(width) + size_t(a)];
  }
}

void KnotSpline::shift(double* y, int width, double* scratch) const {
  for (int k = 0; k + 1 < knots_; ++k) {
    const double* w = shift_weights_.data() + size_t(k) * size_t(knots_);
    double* o = scratch + size_t(k) * size_t(width);
    for (int a = 0; a < width; ++a) o[a] = 0.0;
    for (int j = 0; j < knots_; ++j)
      for (int a = 0; a < width; ++a) o[a] += w[j] * y[size_t(j) * size_t(width) + size_t(a)];
  }
  std::fill_n(scratch + size_t(knots_ - 1) * size_t(width), width, 0.0);
  std::copy_n(scratch, size_t(knots_) * size_t(width), y);
}

}  // namespace flashnerd::mpc
