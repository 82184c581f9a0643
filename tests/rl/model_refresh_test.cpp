// The refresh budget's schedule: which count each refresh gets, and the schedules refused.
#include "rl/model_refresh.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace flashnerd::rl {
namespace {

TEST(ModelRefreshOptions, UpdatesFollowTheScheduleFromEachIterationOn) {
  ModelRefreshOptions o;
  o.updates = 250;
  EXPECT_EQ(o.updates_at(1), 250);
  EXPECT_EQ(o.updates_at(100000), 250);  // no schedule: the fixed budget
  o.updates_from = {{500, 1000}, {700, 2000}};
  o.check_schedule();
  EXPECT_EQ(o.updates_at(25), 250);
  EXPECT_EQ(o.updates_at(499), 250);
  EXPECT_EQ(o.updates_at(500), 1000);
  EXPECT_EQ(o.updates_at(699), 1000);
  EXPECT_EQ(o.updates_at(700), 2000);
  EXPECT_EQ(o.updates_at(800), 2000);
}

TEST(ModelRefreshOptions, RefusesAScheduleOutOfOrderOrBelowOne) {
  ModelRefreshOptions o;
  o.updates_from = {{500, 1000}, {400, 2000}};
  EXPECT_THROW(o.check_schedule(), Error);
  o.updates_from = {{500, 1000}, {500, 2000}};
  EXPECT_THROW(o.check_schedule(), Error);
  o.updates_from = {{500, 0}};
  EXPECT_THROW(o.check_schedule(), Error);
  o.updates_from = {{0, 10}};
  EXPECT_THROW(o.check_schedule(), Error);
}

}  // namespace
}  // namespace flashnerd::rl
