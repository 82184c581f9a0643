#include "rl/policy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/safetensors.h"

namespace flashnerd::rl {

namespace {

constexpr const char* kFormat = "flashnerd-policy";
constexpr int kVersion = 1;

float elu(float x) { return x > 0 ? x : std::expm1(x); }
float tanh_activation(float x) { return std::tanh(x); }

}  // namespace

Policy::Policy(PolicyInfo info, std::vector<float> obs_mean, std::vector<float> obs_denominator,
               std::vector<PolicyLayer> layers, std::vector<float> action_std)
    : info_(std::move(info)),
      obs_mean_(std::move(obs_mean)),
      obs_denominator_(std::move(obs_denominator)),
      layers_(std::move(layers)),
      action_std_(std::move(action_std)) {
  const size_t D = size_t(info_.observation_dim);
  FN_CHECK(info_.observation_dim > 0 && info_.action_dim > 0, "policy: empty observation or action");
  FN_CHECK(obs_mean_.size() == D && obs_denominator_.size() == D, "policy: observation statistics of width ",
           obs_mean_.size(), " for ", D, " observations");
  FN_CHECK(layers_.size() == info_.hidden.size() + 1, "policy: ", layers_.size(), " layers for ",
           info_.hidden.size(), " hidden widths");
  int in = info_.observation_dim;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const int out = l < info_.hidden.size() ? info_.hidden[l] : info_.action_dim;
    const PolicyLayer& L = layers_[l];
    FN_CHECK(L.in == in && L.out == out && L.weight.size() == size_t(in) * size_t(out) && L.bias.size() == size_t(out),
             "policy: layer ", l, " is (", L.out, ", ", L.in, "), expected (", out, ", ", in, ")");
    widest_ = std::max({widest_, in, out});
    in = out;
  }
  FN_CHECK(action_std_.size() == size_t(info_.action_dim), "policy: action std of width ", action_std_.size());
  for (float d : obs_denominator_) FN_CHECK(d > 0 && std::isfinite(d), "policy: non-positive observation denominator");
  activation_ = info_.activation == PolicyActivation::Tanh ? tanh_activation : elu;
}

PolicyScratch Policy::make_scratch() const {
  return PolicyScratch{std::vector<float>(size_t(widest_)), std::vector<float>(size_t(widest_))};
}

void Policy::act(const float* obs, int rows, float* actions, PolicyScratch& s) const {
  FN_CHECK(s.a.size() >= size_t(widest_) && s.b.size() >= size_t(widest_), "policy: scratch of another policy");
  const int D = info_.observation_dim;
  for (int r = 0; r < rows; ++r) {
    float* x = s.a.data();
    float* y = s.b.data();
    for (int i = 0; i < D; ++i) x[i] = (obs[size_t(r) * size_t(D) + size_t(i)] - obs_mean_[size_t(i)]) / obs_denominator_[size_t(i)];
    for (size_t l = 0; l < layers_.size(); ++l) {
      const PolicyLayer& L = layers_[l];
      const bool last = l + 1 == layers_.size();
      float* out = last ? actions + size_t(r) * size_t(L.out) : y;
      for (int o = 0; o < L.out; ++o) {
        const float* w = L.weight.data() + size_t(o) * size_t(L.in);
        float acc = 0;
        for (int i = 0; i < L.in; ++i) acc += w[i] * x[i];
        acc += L.bias[size_t(o)];
        out[o] = last ? acc : activation_(acc);
      }
      std::swap(x, y);
    }
  }
}

void Policy::save(const std::string& dir) const {
  ensure_writable_directory(dir);
  std::vector<NamedTensor> tensors;
  const int64_t D = info_.observation_dim;
  tensors.push_back({"obs_mean", {D}, obs_mean_.data()});
  tensors.push_back({"obs_denominator", {D}, obs_denominator_.data()});
  std::vector<std::string> names;
  for (size_t l = 0; l < layers_.size(); ++l) names.push_back("actor." + std::to_string(l));
  for (size_t l = 0; l < layers_.size(); ++l) {
    const PolicyLayer& L = layers_[l];
    tensors.push_back({names[l] + ".weight", {L.out, L.in}, L.weight.data()});
    tensors.push_back({names[l] + ".bias", {L.out}, L.bias.data()});
  }
  tensors.push_back({"action_std", {info_.action_dim}, action_std_.data()});
  write_file_atomic(dir + "/policy.safetensors", safetensors_serialize(tensors, {{"format", kFormat}}));
  const PolicyInfo& i = info_;
  const nlohmann::json j = {{"format", kFormat},         {"version", kVersion},
                            {"task", i.task},            {"robot", i.robot},
                            {"mjcf_hash", i.mjcf_hash},  {"control_timestep", i.control_timestep},
                            {"observation_dim", i.observation_dim}, {"action_dim", i.action_dim},
                            {"hidden", i.hidden},        {"activation", policy_activation_name(i.activation)},
                            {"observation_terms", i.observation_terms}, {"training", i.training}};
  write_file_atomic(dir + "/policy.json", j.dump(2) + "\n");
}

Policy Policy::load(const std::string& dir) {
  const std::string json_path = dir + "/policy.json";
  FN_CHECK(std::filesystem::exists(json_path), "no policy at ", dir, " (", json_path,
           " is missing); train one with flashnerd ppo");
  return parse(read_file(json_path), read_file(dir + "/policy.safetensors"), dir);
}

Policy Policy::parse(const std::string& json_text, const std::string& safetensors_bytes, const std::string& dir) {
  const std::string json_path = dir + "/policy.json";
  PolicyInfo info;
  try {
    const nlohmann::json j = nlohmann::json::parse(json_text);
    FN_CHECK(j.value("format", "") == kFormat && j.value("version", 0) == kVersion, json_path,
             ": not a FlashNeRD policy of version ", kVersion);
    const std::string activation = j.value("activation", "");
    const auto* known = find_enum(kPolicyActivationNames, activation);
    FN_CHECK(known, json_path, ": activation '", activation, "' is not supported (",
             enum_choices(kPolicyActivationNames), ")");
    info.activation = known->value;
    info.task = j.at("task").get<std::string>();
    info.robot = j.at("robot").get<std::string>();
    info.mjcf_hash = j.value("mjcf_hash", "");
    info.control_timestep = j.at("control_timestep").get<double>();
    info.observation_dim = j.at("observation_dim").get<int>();
    info.action_dim = j.at("action_dim").get<int>();
    info.hidden = j.at("hidden").get<std::vector<int>>();
    info.observation_terms = j.value("observation_terms", info.observation_terms);
    info.training = j.value("training", nlohmann::json::object());
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(json_path, ": ", e.what()));
  }
  FN_CHECK(info.observation_dim > 0 && info.observation_dim < (1 << 20) && info.action_dim > 0 &&
               info.action_dim < (1 << 20),
           json_path, ": observation_dim and action_dim must be positive");
  for (int h : info.hidden) FN_CHECK(h > 0 && h < (1 << 16), json_path, ": hidden width ", h, " out of range");
  const SafetensorsFile w = SafetensorsFile::parse(safetensors_bytes, dir + "/policy.safetensors");
  auto vec = [&](const std::string& name, std::vector<int64_t> shape) {
    TensorView t = w.get(name, shape);
    for (int64_t i = 0; i < t.numel(); ++i)
      FN_CHECK(std::isfinite(t.data[i]), dir, "/policy.safetensors: tensor ", name, " element ", i, " is ", t.data[i],
               "; the policy is corrupted or its training diverged");
    return std::vector<float>(t.data, t.data + t.numel());
  };
  const int64_t D = info.observation_dim;
  std::vector<PolicyLayer> layers;
  int in = info.observation_dim;
  for (size_t l = 0; l <= info.hidden.size(); ++l) {
    const int out = l < info.hidden.size() ? info.hidden[l] : info.action_dim;
    const std::string name = "actor." + std::to_string(l);
    layers.push_back({in, out, vec(name + ".weight", {out, in}), vec(name + ".bias", {out})});
    in = out;
  }
  return Policy(info, vec("obs_mean", {D}), vec("obs_denominator", {D}), std::move(layers),
                vec("action_std", {info.action_dim}));
}

}  // namespace flashnerd::rl
