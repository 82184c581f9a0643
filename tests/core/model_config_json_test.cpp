// config.json errors name the file and the field (robot.timestep, flashnerd.d_model ...), not
// only the JSON library's message.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/model_config.h"

namespace flashnerd {
namespace {

nlohmann::json good_config() {
  ModelConfig c;
  c.robot = "toy";
  c.timestep = 0.01;
  c.layout.nq = c.layout.nv = 1;
  c.layout.nu = 1;
  c.layout.joint_wrapped = {0};
  c.state_dim = 2;
  c.input_dim = 3;
  c.output_dim = 2;
  apply_preset("tiny", c);
  return nlohmann::json(c);
}

std::string load_error(const nlohmann::json& j) {
  const std::string dir = ::testing::TempDir() + "config_json_test";
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/config.json", j.dump());
  try {
    load_model_config(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfigJson, GoodConfigLoads) { EXPECT_EQ(load_error(good_config()), ""); }

TEST(ModelConfigJson, MissingFieldIsNamed) {
  nlohmann::json j = good_config();
  j["robot"].erase("timestep");
  const std::string e = load_error(j);
  EXPECT_NE(e.find("config.json: field 'robot.timestep' is missing"), std::string::npos) << e;
}

TEST(ModelConfigJson, WrongTypeIsNamed) {
  nlohmann::json j = good_config();
  j["flashnerd"]["d_model"] = "wide";
  std::string e = load_error(j);
  EXPECT_NE(e.find("config.json: field 'flashnerd.d_model' has the wrong type"), std::string::npos) << e;
  j = good_config();
  j["normalization"] = 3;
  e = load_error(j);
  EXPECT_NE(e.find("field 'normalization' is missing or not an object"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd

namespace flashnerd {
namespace {

TEST(ModelConfigJson, ZeroStdIsRefused) {
  nlohmann::json j = good_config();
  j["normalization"]["channel_std"] = {0.5, 0.0};  // the NRMSE would divide by zero
  const std::string e = load_error(j);
  EXPECT_NE(e.find("normalization.channel_std[1] is 0; standard deviations must be finite and positive"),
            std::string::npos) << e;
}

// Corrupt sizes are refused before they overflow a product or allocate the tensor list
// (found by fuzz/model_config_fuzz.cpp: 2e9 NeRD layers ran out of memory in model_tensors,
// d_model=2e9 overflowed int64 in TensorSpec::numel).
TEST(ModelConfigJson, HugeSizesAreRefused) {
  nlohmann::json j = good_config();
  j["arch"] = "nerd";
  j["nerd"] = {{"d_model", 60}, {"n_layers", 2000000000}, {"n_heads", 4},
               {"window", 5},   {"mlp_hidden", 240},       {"head_hidden", 64}};
  std::string e = load_error(j);
  EXPECT_NE(e.find("config.json: model config: nerd.n_layers=2000000000 is larger than 1024"), std::string::npos) << e;
  j = good_config();
  j["flashnerd"]["d_model"] = 2000000000;
  e = load_error(j);
  EXPECT_NE(e.find("flashnerd.d_model=2000000000 is larger than 65536"), std::string::npos) << e;
  j = good_config();
  j["dims"]["input"] = 2147483647;  // state + nu + probe overflowed int before
  e = load_error(j);
  EXPECT_NE(e.find("dims.input=2147483647 is larger than 65536"), std::string::npos) << e;
  j = good_config();
  j["flashnerd"]["d_model"] = 65536;
  j["flashnerd"]["ffn_hidden"] = 65536;
  j["flashnerd"]["n_layers"] = 1024;
  j["flashnerd"]["spans"] = std::vector<int>(1024, 3);
  e = load_error(j);
  EXPECT_NE(e.find("parameters, more than 4294967296"), std::string::npos) << e;
}

// A float where an integer belongs was cast to int, undefined behaviour out of range (fuzz).
TEST(ModelConfigJson, NonIntegerSizesAreRefused) {
  nlohmann::json j = good_config();
  j["flashnerd"]["d_model"] = 1.66667e90;
  std::string e = load_error(j);
  EXPECT_NE(e.find("field 'flashnerd.d_model' has the wrong type: expected an integer in [-2147483648, 2147483647]"),
            std::string::npos) << e;
  j = good_config();
  j["version"] = 1e90;
  e = load_error(j);
  EXPECT_NE(e.find("field 'version' has the wrong type"), std::string::npos) << e;
  j = good_config();
  j["robot"]["layout"]["nq"] = 1e90;
  e = load_error(j);
  EXPECT_NE(e.find("field 'robot.layout': field 'nq' has the wrong type"), std::string::npos) << e;
  j = good_config();
  j["flashnerd"]["spans"] = {3, 3e12};
  e = load_error(j);
  EXPECT_NE(e.find("field 'flashnerd.spans'[1] has the wrong type"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
