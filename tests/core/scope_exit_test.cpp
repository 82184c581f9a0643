#include "core/scope_exit.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace flashnerd {
namespace {

TEST(ScopeExit, RunsItsActionOnceWhenTheScopeEnds) {
  int runs = 0;
  {
    const ScopeExit guard([&] { ++runs; });
    EXPECT_EQ(runs, 0);
  }
  EXPECT_EQ(runs, 1);
}

TEST(ScopeExit, AMovedGuardRunsOnlyInItsNewOwner) {
  int runs = 0;
  auto make = [&] { return ScopeExit([&] { ++runs; }); };
  {
    ScopeExit first = make();
    {
      const ScopeExit second(std::move(first));
      EXPECT_EQ(runs, 0);
    }
    EXPECT_EQ(runs, 1);
  }
  EXPECT_EQ(runs, 1);
}

TEST(ScopeExit, RunsOnTheWayOutOfAnException) {
  int runs = 0;
  try {
    const ScopeExit guard([&] { ++runs; });
    throw std::runtime_error("leaving");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(runs, 1);
  { const ScopeExit nothing; }  // an empty guard does nothing
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace flashnerd
