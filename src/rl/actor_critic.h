// The PPO actor-critic (rsl_rl's ActorCritic): two MLPs with ELU hidden layers, a Gaussian
// policy with a state-independent, learned log standard deviation per action.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "rl/policy.h"

namespace flashnerd::rl {

class ActorCriticImpl : public torch::nn::Module {
 public:
  ActorCriticImpl(int observation_dim, int action_dim, const std::vector<int>& actor_hidden,
                  const std::vector<int>& critic_hidden, double init_noise_std);
  torch::Tensor action_mean(const torch::Tensor& obs);  // (B, action_dim)
  torch::Tensor value(const torch::Tensor& obs);        // (B)
  torch::Tensor action_std() { return log_std_.exp(); }
  // The parameters by part (the fused PPO update reads and writes their storage directly).
  std::vector<torch::nn::Linear> actor_layers() const { return linears(actor_); }
  std::vector<torch::nn::Linear> critic_layers() const { return linears(critic_); }
  torch::Tensor& log_std() { return log_std_; }
  // The actor as a libtorch-free policy artifact (normalizer statistics from the caller).
  Policy export_policy(PolicyInfo info, const std::vector<float>& obs_mean,
                       const std::vector<float>& obs_denominator);

 private:
  static std::vector<torch::nn::Linear> linears(const torch::nn::ModuleList& layers);
  torch::nn::ModuleList actor_, critic_;
  torch::Tensor log_std_;
};
TORCH_MODULE(ActorCritic);

}  // namespace flashnerd::rl
