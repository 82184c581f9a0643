// Dataset string attributes are read whether fixed-length (flashnerd gen) or variable-length
// (h5py's default for str); a missing, empty or unparsable required attribute is refused,
// naming the file and the attribute.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/dataset.h"
#include "core/error.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

using testing::SavedDataset;

TEST(DatasetAttributes, VariableLengthStringsAreRead) {
  SavedDataset s("attrs_vlen.h5");
  testing::h5_set_vlen_string_attr(s.path, "robot", "toy_from_h5py");
  testing::h5_set_vlen_string_attr(s.path, "layout", nlohmann::json(s.data.layout).dump());
  testing::h5_set_vlen_string_attr(s.path, "format", "flashnerd-dataset");
  Dataset d = load_dataset(s.path);
  EXPECT_EQ(d.robot, "toy_from_h5py");
  EXPECT_EQ(d.layout, s.data.layout);
  EXPECT_EQ(d.mjcf_hash, s.data.mjcf_hash);  // fixed-length ones still read in full
}

TEST(DatasetAttributes, EmptyOrMissingRequiredAttributesAreRefused) {
  SavedDataset s("attrs_missing.h5");
  testing::h5_set_vlen_string_attr(s.path, "actuator_model", "");
  std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": attribute 'actuator_model' is empty"), std::string::npos) << e;
  testing::h5_delete_attr(s.path, "actuator_model");
  e = s.load_error();
  EXPECT_NE(e.find("attribute 'actuator_model' is missing"), std::string::npos) << e;
}

TEST(DatasetAttributes, BadJsonNamesTheAttribute) {
  SavedDataset s("attrs_json.h5");
  testing::h5_set_vlen_string_attr(s.path, "layout", "{\"nq\": 2");
  std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": attribute 'layout' is not the JSON"), std::string::npos) << e;
  testing::h5_set_vlen_string_attr(s.path, "layout", R"({"nq": 1e90, "nv": 2, "nu": 1, "floating_base": false,
    "joint_wrapped": [0, 1]})");  // a float was cast to int, undefined behaviour (fuzz)
  e = s.load_error();
  EXPECT_NE(e.find(s.path + ": attribute 'layout': field 'nq' has the wrong type"), std::string::npos) << e;
  testing::h5_set_vlen_string_attr(s.path, "layout", "{\"nq\": 2}");  // valid JSON, field nv missing
  e = s.load_error();
  EXPECT_NE(e.find("attribute 'layout'"), std::string::npos) << e;
  EXPECT_NE(e.find("nv"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
