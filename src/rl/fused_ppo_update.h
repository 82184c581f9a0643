// One PPO minibatch update of the actor-critic with few, large operations: the gather, both
// MLPs' forward passes (addmm + ELU), the clipped surrogate, clipped value loss and entropy, and
// their gradients written straight into the parameters' .grad(), computed by hand in loops
// over preallocated buffers and a handful of matrix products; then the gradient-norm clip and
// the caller's Adam step. It computes what the autograd reference (Ppo::reference_minibatch)
// computes, to floating-point tolerance (tests/rl/fused_ppo_update_test.cpp), without
// libtorch's per-operation overhead, which dominated the update at rsl_rl's sizes.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "rl/actor_critic.h"

namespace flashnerd::rl {

// The rollout storage of one update, flattened to N transitions (row-major, float32).
struct PpoBatchView {
  const float *obs, *actions, *mu_old, *sigma_old, *values_old, *logp_old, *returns, *advantages;
  int64_t n;
};

struct PpoLossSettings {
  double clip = 0.2, value_coef = 1.0, entropy_coef = 0.005;
};

struct PpoMinibatchResult {
  double surrogate = 0, value_loss = 0, entropy = 0, kl = 0;
};

class FusedPpoUpdate {
 public:
  FusedPpoUpdate(ActorCritic& net, int observation_dim, int action_dim, int64_t minibatch);

  // The KL divergence of the current policy from the rollout's on rows idx (the adaptive
  // learning rate reads it before the step), and the minibatch's losses; the gradients of
  // loss = surrogate + value_coef·value − entropy_coef·entropy land in the parameters' .grad().
  PpoMinibatchResult forward_backward(const PpoBatchView& batch, const int64_t* idx, const PpoLossSettings& s);
  // Scales every gradient so their joint norm is at most max_norm (torch's clip_grad_norm_).
  void clip_grad_norm(double max_norm);

 private:
  struct Mlp {
    std::vector<torch::Tensor> weight, bias;   // parameters (out, in), (out)
    std::vector<torch::Tensor> z, h, dz, dh;   // per layer: pre-activation, activation, their gradients
  };
  void prepare(Mlp& mlp, const std::vector<torch::nn::Linear>& layers);
  const torch::Tensor& forward(Mlp& mlp, const torch::Tensor& input);
  void backward(Mlp& mlp, const torch::Tensor& input);  // from mlp.dz.back()

  ActorCritic net_;
  int obs_dim_, act_dim_;
  int64_t mb_;
  Mlp actor_, critic_;
  torch::Tensor obs_;  // (mb, obs_dim) gathered rows
  torch::Tensor sigma_f_;  // (action_dim) σ as libtorch computes it
  std::vector<torch::Tensor> params_;
  std::vector<double> sigma_, log_sigma_, dlog_std_;  // per action: σ, log σ, ∂loss/∂log σ
};

}  // namespace flashnerd::rl
