// eval and rollout refuse a dataset of another control timestep (naming both values) and of
// another MJCF (unless allowed, then warn); a model without a stored hash gets a warning.
#include "core/model_dataset_check.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

ModelConfig model_of(const Dataset& d) {
  ModelConfig c;
  c.robot = d.robot;
  c.layout = d.layout;
  c.timestep = d.timestep;
  c.mjcf_hash = d.mjcf_hash;
  return c;
}

std::string error_of(const ModelConfig& c, const Dataset& d, bool allow) {
  try {
    check_model_dataset(c, "model/", d, "data.h5", allow);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelDatasetCheck, MatchingModelPassesSilently) {
  const Dataset d = testing::small_contact_dataset();
  EXPECT_TRUE(check_model_dataset(model_of(d), "model/", d, "data.h5", false).empty());
}

TEST(ModelDatasetCheck, OtherTimestepIsRefusedWithBothValues) {
  const Dataset d = testing::small_contact_dataset();  // 0.01 s
  ModelConfig c = model_of(d);
  c.timestep = 0.02;
  for (bool allow : {false, true}) {  // --allow-other-mjcf does not cover the timestep
    const std::string e = error_of(c, d, allow);
    EXPECT_NE(e.find("model model/ steps 0.02 s"), std::string::npos) << e;
    EXPECT_NE(e.find("dataset data.h5 steps 0.01 s"), std::string::npos) << e;
  }
}

TEST(ModelDatasetCheck, OtherMjcfIsRefusedUnlessAllowed) {
  const Dataset d = testing::small_contact_dataset();
  ModelConfig c = model_of(d);
  c.mjcf_hash = "fnv1a64:ffffffffffffffff";
  const std::string e = error_of(c, d, false);
  EXPECT_NE(e.find("fnv1a64:ffffffffffffffff"), std::string::npos) << e;
  EXPECT_NE(e.find(d.mjcf_hash), std::string::npos) << e;
  EXPECT_NE(e.find("pass allow_other_mjcf to run anyway"), std::string::npos) << e;
  const auto warnings = check_model_dataset(c, "model/", d, "data.h5", true);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the robot files differ"), std::string::npos) << warnings[0];
}

TEST(ModelDatasetCheck, ModelWithoutHashWarns) {
  const Dataset d = testing::small_contact_dataset();
  ModelConfig c = model_of(d);
  c.mjcf_hash.clear();
  const auto warnings = check_model_dataset(c, "model/", d, "data.h5", false);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("stores no MJCF hash"), std::string::npos) << warnings[0];
}

TEST(ModelDatasetCheck, OtherRobotIsRefused) {
  const Dataset d = testing::small_contact_dataset();
  ModelConfig c = model_of(d);
  c.robot = "other";
  EXPECT_NE(error_of(c, d, true).find("is for robot 'toy'"), std::string::npos);
}

}  // namespace
}  // namespace flashnerd
