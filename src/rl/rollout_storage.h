// The rollout storage of one PPO iteration (rsl_rl's RolloutStorage): steps_per_env × envs
// transitions, (T, E, ...) row-major float32 tensors allocated once. The algorithm writes each
// step's observations, actions and the policy's outputs (add_step) and the environment's
// rewards and ends (add_outcome); compute_returns turns them into GAE returns and normalized
// advantages; batch() hands the flattened transitions to a minibatch update.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "rl/fused_ppo_update.h"

namespace flashnerd::rl {

class RolloutStorage {
 public:
  RolloutStorage(int steps_per_env, int envs, int observation_dim, int action_dim);
  // Bytes the storage and the update's minibatch copies need: checked against the machine's
  // memory before anything is allocated.
  static double bytes_needed(int steps_per_env, int envs, int observation_dim, int action_dim);

  int steps_per_env() const { return T_; }
  int envs() const { return E_; }
  int64_t transitions() const { return int64_t(T_) * E_; }

  // Step t of the environments [first_env, first_env + rows): normalized observations (rows,
  // obs), sampled actions, the policy's mean, std and value, and the actions' log-probability.
  void add_step(int t, int first_env, const torch::Tensor& obs, const torch::Tensor& actions, const torch::Tensor& mu,
                const torch::Tensor& sigma, const torch::Tensor& values, const torch::Tensor& log_prob);
  // Step t's rewards and ends of environments [first_env, first_env + rows); bootstrap (rows):
  // γ·V(final observation) for environments cut by the time limit (0 elsewhere), added to
  // their rewards.
  void add_outcome(int t, int first_env, int rows, const float* rewards, const uint8_t* terminated,
                   const uint8_t* timed_out, const float* bootstrap);
  // GAE(γ, λ) from the values of the observations after the last step (E), then the returns
  // and the advantages normalized over the whole batch.
  void compute_returns(const torch::Tensor& last_values, double gamma, double lambda);

  PpoBatchView batch() const;
  // The (T, E, ...) tensors, for the autograd update (which views them as (N, ...)).
  const torch::Tensor& obs() const { return obs_; }
  const torch::Tensor& actions() const { return actions_; }
  const torch::Tensor& mu() const { return mu_; }
  const torch::Tensor& sigma() const { return sigma_; }
  const torch::Tensor& values() const { return values_; }
  const torch::Tensor& log_prob() const { return logp_; }
  const torch::Tensor& returns() const { return returns_; }
  const torch::Tensor& advantages() const { return advantages_; }

 private:
  int T_, E_, obs_dim_, act_dim_;
  torch::Tensor obs_, actions_, rewards_, dones_, values_, logp_, mu_, sigma_, returns_, advantages_;
};

}  // namespace flashnerd::rl
