#include "train/lr_schedule.h"

#include <gtest/gtest.h>

namespace flashnerd::train {
namespace {

TEST(LinearSchedule, WithoutWarmupIsTheLinearDecayBitForBit) {
  const LinearSchedule s{1e-3, 2e-5, 1000};
  for (int64_t u : {0, 1, 17, 500, 998, 999}) {
    const double frac = double(u) / double(999);
    EXPECT_EQ(s.at(u), 1e-3 + (2e-5 - 1e-3) * frac) << "update " << u;
  }
  EXPECT_EQ(LinearSchedule({1e-3, 0, 1}).at(0), 1e-3);
  EXPECT_DOUBLE_EQ(LinearSchedule({1e-3, 0, 11}).at(10), 1e-4);  // final 0: lr / 10
}

TEST(LinearSchedule, WarmupRisesLinearlyToTheInitialRateThenDecaysToTheFinal) {
  const LinearSchedule s{2e-4, 2e-5, 1000, 100};
  EXPECT_DOUBLE_EQ(s.at(0), 2e-4 / 100);
  EXPECT_DOUBLE_EQ(s.at(49), 2e-4 * 50 / 100);
  EXPECT_DOUBLE_EQ(s.at(99), 2e-4);
  EXPECT_DOUBLE_EQ(s.at(100), 2e-4);  // the decay starts where the warm-up ends
  EXPECT_DOUBLE_EQ(s.at(999), 2e-5);
  for (int64_t u = 1; u < 1000; ++u) {
    if (u < 100) {
      EXPECT_GT(s.at(u), s.at(u - 1)) << "update " << u;
    } else if (u > 100) {
      EXPECT_LT(s.at(u), s.at(u - 1)) << "update " << u;
    }
  }
}

}  // namespace
}  // namespace flashnerd::train
