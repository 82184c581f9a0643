// config.json errors name the file and the field (robot.timestep, flashnerd.d_model ...), not
// only the JSON library's message.
#include <gtest/gtest.h>

#include <algorithm>
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
  apply_preset(ModelPreset::Tiny, c);
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

// A preset is recorded by its name (config.json's "preset") and read back as the preset; a config
// of other sizes records none.
TEST(ModelConfigJson, PresetsAreRecordedByName) {
  for (const auto& [preset, name] : kModelPresetNames) {
    ModelConfig c;
    apply_preset(preset, c);
    EXPECT_EQ(c.preset, name);
    ASSERT_TRUE(recorded_preset(c).has_value()) << name;
    EXPECT_EQ(*recorded_preset(c), preset);
  }
  ModelConfig custom;
  EXPECT_FALSE(recorded_preset(custom).has_value());
  custom.preset = "huge";
  EXPECT_FALSE(recorded_preset(custom).has_value());
}

// A directory without config.json is named as no model, with where to get one.
TEST(ModelConfigJson, ADirectoryWithoutConfigIsNotAModel) {
  const std::string dir = ::testing::TempDir() + "config_json_test_empty";
  std::filesystem::create_directories(dir);
  try {
    load_model_config(dir);
    FAIL() << "an empty directory loaded as a model";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(dir + " is not a model directory (no config.json)"), std::string::npos) << w;
    EXPECT_NE(w.find("flashnerd train"), std::string::npos) << w;
    EXPECT_NE(w.find("models/<name>"), std::string::npos) << w;
  }
  std::filesystem::remove_all(dir);
}

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
               {"window", 5},   {"mlp_hidden", 240},       {"head_hidden", 64},
               {"embed_bias", true}, {"lm_head", true},   {"head_activation", "relu"}};
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

// Format version 2 added the published NeRD head; version-1 NeRD configs load as the older
// layout (no embedding bias, no lm_head, GELU head), and a newer version is refused.
nlohmann::json nerd_config(bool published) {
  ModelConfig c;
  c.arch = Arch::NeRD;
  c.robot = "toy";
  c.timestep = 0.01;
  c.layout.nq = c.layout.nv = c.layout.nu = 1;
  c.layout.joint_wrapped = {0};
  c.state_dim = 2;
  c.input_dim = 3;
  c.output_dim = 2;
  apply_preset(ModelPreset::Tiny, c);
  c.nerd.embed_bias = c.nerd.lm_head = c.nerd.head_relu = published;
  return nlohmann::json(c);
}

TEST(ModelConfigJson, NerdHeadRoundTripsAndVersionOneIsTheOldLayout) {
  for (bool published : {true, false}) {
    const nlohmann::json j = nerd_config(published);
    EXPECT_EQ(j.at("version"), kModelFormatVersion);
    const ModelConfig c = j.get<ModelConfig>();
    EXPECT_EQ(c.nerd.embed_bias, published);
    EXPECT_EQ(c.nerd.lm_head, published);
    EXPECT_EQ(c.nerd.head_relu, published);
    EXPECT_EQ(j.at("nerd").at("head_activation"), published ? "relu" : "gelu");
  }
  nlohmann::json v1 = nerd_config(true);
  v1["version"] = 1;
  for (const char* k : {"embed_bias", "lm_head", "head_activation"}) v1["nerd"].erase(k);
  EXPECT_EQ(load_error(v1), "");
  const ModelConfig c = v1.get<ModelConfig>();
  EXPECT_FALSE(c.nerd.embed_bias || c.nerd.lm_head || c.nerd.head_relu);
  const auto names = model_tensors(c);
  EXPECT_TRUE(std::none_of(names.begin(), names.end(), [](const TensorSpec& t) {
    return t.name == "embed.bias" || t.name == "lm_head.weight";
  }));
  nlohmann::json v2 = nerd_config(true);
  v2["nerd"].erase("lm_head");
  std::string e = load_error(v2);
  EXPECT_NE(e.find("field 'nerd.lm_head' is missing"), std::string::npos) << e;
  v2 = nerd_config(true);
  v2["nerd"]["head_activation"] = "tanh";
  e = load_error(v2);
  EXPECT_NE(e.find("nerd.head_activation': expected relu or gelu, got 'tanh'"), std::string::npos) << e;
  v2 = nerd_config(true);
  v2["version"] = kModelFormatVersion + 1;
  e = load_error(v2);
  EXPECT_NE(e.find("unsupported version 3 (this build reads versions 1 to 2"), std::string::npos) << e;
}

// NeRD reads contacts through fixed probes: a contact section is refused at load, not dropped.
TEST(ModelConfigJson, NerdWithAContactSectionIsRefused) {
  nlohmann::json j = nerd_config(true);
  j["contact"] = {{"capacity", 8}, {"slots", 4}, {"link_count", 3}, {"link_embed", 4}, {"row_hidden", 8}, {"row_width", 4}};
  const std::string e = load_error(j);
  EXPECT_NE(e.find("config.json"), std::string::npos) << e;
  EXPECT_NE(e.find("arch 'nerd' with a 'contact' section is refused"), std::string::npos) << e;
  EXPECT_NE(e.find("train a flashnerd model to use contacts"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
