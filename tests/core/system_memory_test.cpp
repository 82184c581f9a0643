#include "core/system_memory.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace flashnerd {
namespace {

TEST(MemoryPlan, SumsItsPartsAndNamesThemLargestFirst) {
  MemoryPlan plan("a run");
  plan.add("small", 2e6).add("none", 0).add("large", 3e9);
  EXPECT_DOUBLE_EQ(plan.total(), 3.002e9);
  EXPECT_EQ(plan.breakdown(), "large 3 GB, small 2 MB");
  EXPECT_NO_THROW(MemoryPlan("a run").add("small", 1e6).check("fix"));
}

TEST(MemoryPlan, PartsThatFitAloneAreRefusedTogether) {
  const double half = 0.6 * available_memory_bytes();
  EXPECT_NO_THROW(MemoryPlan("a run").add("first", half).check("fix"));
  try {
    MemoryPlan("a run").add("first", half).add("second", half).check("use less");
    ADD_FAILURE() << "two parts of 60% of the memory each were let through";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a run would need"), std::string::npos) << m;
    EXPECT_NE(m.find("first"), std::string::npos) << m;
    EXPECT_NE(m.find("second"), std::string::npos) << m;
    EXPECT_NE(m.find("; use less"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace flashnerd
