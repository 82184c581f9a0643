// A trained policy as a small artifact that runs without libtorch: policy.json (task, robot,
// widths, hidden layers, observation terms, training summary) + policy.safetensors
// (observation mean and denominator, the actor MLP's weights, the action noise std).
// act() returns the mean action: x̂ = (obs − mean) / denominator, then Linear layers with ELU
// (flashnerd ppo's actor) or tanh (a policy exported from PyTorch) between them and a linear
// head, in float like the libtorch actor. Immutable and shared by threads; each thread
// brings its own PolicyScratch.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/enum_names.h"

namespace flashnerd::rl {

// Between the actor's hidden layers: ELU (flashnerd ppo's) or tanh (common in PyTorch actors).
enum class PolicyActivation { ELU, Tanh };
inline constexpr EnumName<PolicyActivation> kPolicyActivationNames[] = {{PolicyActivation::ELU, "elu"},
                                                                        {PolicyActivation::Tanh, "tanh"}};
inline const char* policy_activation_name(PolicyActivation a) { return enum_name(kPolicyActivationNames, a); }

// What policy.json records: the task and robot a policy acts for, and its actor's shape.
struct PolicyInfo {
  std::string task;                // env::Task name
  std::string robot, mjcf_hash;    // the robot it was trained on (no hash: an older policy)
  double control_timestep = 0;     // s per action
  int observation_dim = 0, action_dim = 0;
  std::vector<int> hidden;  // actor hidden widths
  PolicyActivation activation = PolicyActivation::ELU;
  std::vector<std::pair<std::string, int>> observation_terms;
  nlohmann::json training = nlohmann::json::object();
};

struct PolicyLayer {
  int in = 0, out = 0;
  std::vector<float> weight;  // (out, in), PyTorch's Linear layout
  std::vector<float> bias;    // (out)
};

struct PolicyScratch {
  std::vector<float> a, b;
};

class Policy {
 public:
  Policy(PolicyInfo info, std::vector<float> obs_mean, std::vector<float> obs_denominator,
         std::vector<PolicyLayer> layers, std::vector<float> action_std);
  // Reads DIR/policy.json and DIR/policy.safetensors, checking every width.
  static Policy load(const std::string& dir);
  // The same from the two files' bytes (`dir` names them in errors); every tensor is checked
  // finite, by name.
  static Policy parse(const std::string& json_text, const std::string& safetensors_bytes, const std::string& dir);
  // Writes both files atomically (weights first).
  void save(const std::string& dir) const;

  const PolicyInfo& info() const { return info_; }
  const std::vector<PolicyLayer>& layers() const { return layers_; }
  const std::vector<float>& action_std() const { return action_std_; }
  const std::vector<float>& observation_mean() const { return obs_mean_; }
  const std::vector<float>& observation_denominator() const { return obs_denominator_; }
  PolicyScratch make_scratch() const;
  // Mean actions (rows, action_dim) of raw observations (rows, observation_dim).
  void act(const float* obs, int rows, float* actions, PolicyScratch& scratch) const;

 private:
  PolicyInfo info_;
  std::vector<float> obs_mean_, obs_denominator_;
  std::vector<PolicyLayer> layers_;
  std::vector<float> action_std_;
  int widest_ = 0;
  float (*activation_)(float) = nullptr;  // info_.activation's function
};

}  // namespace flashnerd::rl
