#include "core/json_diff.h"

#include <gtest/gtest.h>

namespace flashnerd {
namespace {

TEST(JsonDiff, NamesEachDifferingLeafByDottedKey) {
  const nlohmann::json a = {{"lr", 0.001}, {"seed", 1}, {"reward", {{"alive", 1.0}}}, {"envs", 16}};
  const nlohmann::json b = {{"lr", 0.001}, {"seed", 2}, {"reward", {{"alive", 2.0}}}, {"model", "x"}, {"envs", 16}};
  EXPECT_EQ(json_differences(a, a, "checkpoint", "this run"), "");
  EXPECT_EQ(json_differences(a, b, "checkpoint", "this run"),
            "model (checkpoint unset, this run \"x\"); reward.alive (checkpoint 1.0, this run 2.0); "
            "seed (checkpoint 1, this run 2)");
}

}  // namespace
}  // namespace flashnerd
