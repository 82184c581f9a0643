// DIAL-MPC's optimizer on synthetic returns: it moves the plan toward better returns, keeps
// the control being applied (knot 0), gives diverged samples the worst return, is the same
// for the same seed (planner_test checks that a decision, DIAL included, never allocates).
#include "mpc/dial.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd::mpc {
namespace {

// Return = −mean squared distance of every control to a target; optionally samples whose
// first action's mean is above `diverge_above` diverge (NaN return and flag).
class QuadraticReturns : public RolloutEvaluator {
 public:
  QuadraticReturns(int horizon, int action_dim, std::vector<double> target)
      : H(horizon), A(action_dim), target(std::move(target)) {}
  void evaluate(int count, const double* actions, double* returns, uint8_t* diverged) override {
    ++calls;
    for (int i = 0; i < count; ++i) {
      const double* u = actions + size_t(i) * size_t(H) * size_t(A);
      double r = 0, mean0 = 0;
      for (int t = 0; t < H; ++t)
        for (int a = 0; a < A; ++a) {
          const double e = u[t * A + a] - target[size_t(a)];
          r -= e * e;
          if (a == 0) mean0 += u[t * A] / H;
        }
      returns[i] = r / H;
      if (mean0 > diverge_above) {
        returns[i] = NAN;
        diverged[i] = 1;
      }
    }
  }
  int H, A, calls = 0;
  std::vector<double> target;
  double diverge_above = 1e30;
};

DialOptions small_options() {
  DialOptions o;
  o.samples = 64;
  o.horizon = 12;
  o.knots = 4;
  o.seed = 3;
  return o;
}

double plan_error(const Dial& d, const std::vector<double>& target, int from_knot) {
  double e = 0;
  for (int k = from_knot; k < d.options().knots; ++k)
    for (int a = 0; a < d.action_dim(); ++a) e += std::pow(d.plan()[k * d.action_dim() + a] - target[size_t(a)], 2);
  return e;
}

TEST(Dial, MovesThePlanTowardBetterReturnsAndKeepsKnotZero) {
  DialOptions o = small_options();
  Dial dial(o, 2);
  const std::vector<double> target = {0.6, -0.4};
  QuadraticReturns eval(o.horizon, 2, target);
  dial.reset(o.seed);
  const double before = plan_error(dial, target, 1);
  const DialReport& r = dial.optimize(eval);
  EXPECT_EQ(r.iterations, o.first_iterations);
  EXPECT_EQ(eval.calls, o.first_iterations);
  EXPECT_LT(plan_error(dial, target, 1), 0.2 * before);
  EXPECT_EQ(dial.action()[0], 0.0);  // knot 0 is the control being applied: never resampled
  EXPECT_EQ(dial.action()[1], 0.0);
  dial.shift();  // knot 0 now takes the old plan's value one step on
  EXPECT_NE(dial.action()[0], 0.0);
  eval.calls = 0;
  EXPECT_EQ(dial.optimize(eval).iterations, o.iterations);
  EXPECT_EQ(eval.calls, o.iterations);
}

TEST(Dial, DivergedSamplesGetTheWorstReturn) {
  DialOptions o = small_options();
  const std::vector<double> target = {0.9, 0.0};
  QuadraticReturns plain(o.horizon, 2, target), diverging(o.horizon, 2, target);
  diverging.diverge_above = 0.2;  // the way to the target diverges past 0.2
  Dial a(o, 2), b(o, 2);
  a.reset(1);
  b.reset(1);
  a.optimize(plain);
  const DialReport& r = b.optimize(diverging);
  EXPECT_GT(r.diverged, 0);
  EXPECT_TRUE(std::isfinite(b.plan()[o.knots * 2 - 2]));
  EXPECT_GT(a.plan()[(o.knots - 1) * 2], 0.5);   // without divergence the plan reaches toward 0.9
  EXPECT_LT(b.plan()[(o.knots - 1) * 2], a.plan()[(o.knots - 1) * 2] - 0.2);  // with it, it stays back
}

TEST(Dial, SameSeedSamePlan) {
  DialOptions o = small_options();
  const std::vector<double> target = {0.3, 0.7};
  QuadraticReturns eval(o.horizon, 2, target);
  Dial a(o, 2), b(o, 2);
  a.reset(9);
  b.reset(9);
  a.optimize(eval);
  b.optimize(eval);
  b.shift();
  b.optimize(eval);
  a.shift();
  a.optimize(eval);
  for (int i = 0; i < o.knots * 2; ++i) EXPECT_EQ(a.plan()[i], b.plan()[i]);
  Dial c(o, 2);
  c.reset(10);
  c.optimize(eval);
  bool differs = false;
  for (int i = 0; i < o.knots * 2; ++i) differs = differs || c.plan()[i] != a.plan()[i];
  EXPECT_TRUE(differs);
}

TEST(Dial, RefusesBadOptionsNamingThem) {
  DialOptions o = small_options();
  o.horizon = 2;
  try {
    Dial d(o, 2);
    FAIL() << "accepted a horizon shorter than the knots";
  } catch (const OptionError& e) {  // about the field, naming the other option it depends on
    EXPECT_EQ(e.field(), "horizon");
    EXPECT_STREQ(e.what(), "horizon: 2 must be at least knots − 1 (3)");
  }
  o = small_options();
  o.temperature = 0;
  EXPECT_THROW(Dial(o, 2), OptionError);
}

}  // namespace
}  // namespace flashnerd::mpc
