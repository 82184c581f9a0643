// The bootstrap interval of a mean: seeded, around the mean, as wide as the spread says.
#include "core/bootstrap.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace flashnerd {
namespace {

TEST(Bootstrap, IntervalOfAMeanMatchesTheNormalApproximation) {
  Rng rng(4);
  std::vector<double> x(400);
  for (auto& v : x) v = rng.normal() * 2.0 + 5.0;  // sd 2: standard error 0.1
  const MeanInterval r = bootstrap_mean(x, 0.95, 4000, 1);
  EXPECT_LT(r.low, r.mean);
  EXPECT_GT(r.high, r.mean);
  EXPECT_NEAR(r.high - r.low, 2 * 1.96 * 2.0 / std::sqrt(400.0), 0.06);  // 0.392 expected
  const MeanInterval again = bootstrap_mean(x, 0.95, 4000, 1);
  EXPECT_EQ(r.low, again.low);  // seeded: same bits
  EXPECT_EQ(r.high, again.high);
  const MeanInterval constant = bootstrap_mean(std::vector<double>(10, 3.0));
  EXPECT_EQ(constant.low, 3.0);
  EXPECT_EQ(constant.high, 3.0);
  EXPECT_THROW(bootstrap_mean({}), Error);
}

}  // namespace
}  // namespace flashnerd
