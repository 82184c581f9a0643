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
  // The actor as a libtorch-free policy artifact (normalizer statistics from the caller).
  Policy export_policy(PolicyInfo info, const std::vector<float>& obs_mean,
                       const std::vector<float>& obs_denominator);

 private:
  torch::nn::ModuleList actor_, critic_;
  torch::Tensor log_std_;
};
TORCH_MODULE(ActorCritic);

}  // namespace flashnerd::rl
