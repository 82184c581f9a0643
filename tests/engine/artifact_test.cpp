// Model::load: a saved random model loads and steps identically; truncated, corrupted and
// mismatched artifacts are refused with an error naming the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/model_artifact.h"
#include "engine/engine.h"
#include "engine/test_models.h"

namespace flashnerd::engine {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("flashnerd_engine_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void write_all(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}

std::string load_error(const fs::path& dir) {
  try {
    Model::load(dir.string());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Artifact, SaveLoadRoundTripSteps) {
  for (const ModelConfig& config : {testing::flash_test_config(), testing::nerd_test_config()}) {
    auto model = Model::random(config, 4);
    fs::path dir = temp_dir(arch_name(config.arch));
    save_model_artifact(dir.string(), model->config(), model->tensors());
    auto loaded = Model::load(dir.string());
    ContextOptions opt;
    opt.max_batch = 3;
    Context a(*model, opt), b(*loaded, opt);
    auto in = testing::random_inputs(3, config.input_dim, 8);
    std::vector<float> ya(size_t(3) * config.output_dim), yb(ya.size());
    for (int t = 0; t < 4; ++t) {
      step(*model, a, 3, in.data(), ya.data());
      step(*loaded, b, 3, in.data(), yb.data());
    }
    EXPECT_EQ(ya, yb);
    fs::remove_all(dir);
  }
}

TEST(Artifact, TruncatedOrCorruptedWeightsAreRefused) {
  auto model = Model::random(testing::flash_test_config(), 4);
  fs::path dir = temp_dir("corrupt");
  save_model_artifact(dir.string(), model->config(), model->tensors());
  const fs::path weights = dir / "weights.safetensors";
  const std::string good = read_all(weights);

  write_all(weights, good.substr(0, good.size() - 100));  // truncated data
  std::string e = load_error(dir);
  EXPECT_NE(e, "") << "truncated weights accepted";
  EXPECT_NE(e.find("weights.safetensors"), std::string::npos) << e;

  write_all(weights, good.substr(0, 5));  // truncated header length
  e = load_error(dir);
  EXPECT_NE(e.find("weights.safetensors"), std::string::npos) << e;

  std::string bad = good;  // garbage in the JSON header
  for (size_t i = 10; i < 40; ++i) bad[i] = '#';
  write_all(weights, bad);
  e = load_error(dir);
  EXPECT_NE(e.find("weights.safetensors"), std::string::npos) << e;

  bad = good;  // a NaN written over the last weight
  const uint32_t nan_bits = 0x7fc00000u;
  std::memcpy(&bad[bad.size() - 4], &nan_bits, 4);
  write_all(weights, bad);
  e = load_error(dir);
  EXPECT_NE(e.find("not finite"), std::string::npos) << e;
  EXPECT_NE(e.find("head.bias"), std::string::npos) << e;

  write_all(weights, good);
  EXPECT_EQ(load_error(dir), "");
  std::string config = read_all(dir / "config.json");  // truncated config
  write_all(dir / "config.json", config.substr(0, config.size() / 2));
  e = load_error(dir);
  EXPECT_NE(e.find("config.json"), std::string::npos) << e;
  fs::remove_all(dir);
}

// A version-2 NeRD (embedding bias, lm_head) relabelled version 1 would load without those two
// tensors: a tensor the config does not use is refused, by name.
TEST(Artifact, TensorsTheConfigDoesNotUseAreRefused) {
  ModelConfig c = testing::nerd_test_config();
  c.nerd.embed_bias = c.nerd.lm_head = c.nerd.head_relu = true;
  auto model = Model::random(c, 4);
  fs::path dir = temp_dir("relabelled");
  save_model_artifact(dir.string(), model->config(), model->tensors());
  EXPECT_EQ(load_error(dir), "");
  nlohmann::json j = nlohmann::json::parse(read_all(dir / "config.json"));
  j["version"] = 1;
  for (const char* k : {"embed_bias", "lm_head", "head_activation"}) j["nerd"].erase(k);
  write_all(dir / "config.json", j.dump(2));
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("config.json and weights.safetensors disagree"), std::string::npos) << e;
  EXPECT_NE(e.find("embed.bias"), std::string::npos) << e;
  EXPECT_NE(e.find("lm_head.weight"), std::string::npos) << e;
  EXPECT_NE(e.find(dir.string()), std::string::npos) << e;
  fs::remove_all(dir);
}

TEST(Artifact, ShapeMismatchNamesTheTensor) {
  ModelConfig c = testing::flash_test_config();
  auto model = Model::random(c, 4);
  std::vector<NamedTensor> tensors = model->tensors();
  c.flash.ffn_hidden += 1;  // the config no longer matches the weights
  try {
    Model::from_tensors(c, tensors);
    FAIL() << "mismatched tensors accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ffn.gate_up.weight"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Model::load("/nonexistent/flashnerd/model"), Error);
}

}  // namespace
}  // namespace flashnerd::engine
