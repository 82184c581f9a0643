// Control knots joined by a spline (DIAL-MPC's node representation of a plan): K knots at
// evenly spaced times over a horizon of H control steps, knot 0 at step 0 and knot K−1 at
// step H. The spline is the natural cubic interpolant through the knots; interpolation is
// linear in the knot values, so both maps are small weight matrices computed once.
#pragma once

#include <vector>

namespace flashnerd::mpc {

class KnotSpline {
 public:
  KnotSpline(int knots, int horizon);
  int knots() const { return knots_; }
  int horizon() const { return horizon_; }

  // Controls at steps 0..horizon−1 from knot values (knots, width) into out (horizon, width).
  void controls(const double* knot_values, int width, double* out) const;
  // The plan one control step later: knot k takes the spline's value one step after its
  // time; the last knot, past the old horizon, returns to zero (the nominal action).
  // scratch: (knots, width).
  void shift(double* knot_values, int width, double* scratch) const;

  // The spline through knot values y (knots) at time t in control steps (0..horizon).
  double evaluate(const double* y, double t) const;

 private:
  int knots_, horizon_;
  double spacing_;                       // control steps between knots
  std::vector<double> control_weights_;  // (horizon, knots)
  std::vector<double> shift_weights_;    // (knots − 1, knots)
};

}  // namespace flashnerd::mpc
