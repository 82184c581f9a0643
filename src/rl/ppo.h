// Proximal Policy Optimization (Schulman et al. 2017) with rsl_rl's defaults (Rudin et al.
// 2022): GAE(γ 0.99, λ 0.95) with time-outs bootstrapped from the value of the observation
// the episode was cut in, advantages normalized per batch, 5 epochs × 4 minibatches,
// clipped surrogate (0.2) and clipped value loss (coefficient 1), entropy bonus, gradient
// norm 1, Adam with the adaptive-KL learning rate (target KL 0.01). The algorithm owns its
// rollout storage (rl/rollout_storage.h) of steps_per_env × envs transitions. Action noise
// and minibatch order come from seeded Rng streams, so a resumed run equals an uninterrupted
// one.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "rl/actor_critic.h"
#include "rl/fused_ppo_update.h"
#include "rl/iteration_log.h"
#include "rl/rollout_storage.h"

namespace flashnerd::rl {

struct PpoConfig {
  int steps_per_env = 24;
  int epochs = 5;
  int minibatches = 4;
  double clip = 0.2;
  double gamma = 0.99;
  double lambda = 0.95;
  double learning_rate = 1e-3;
  bool adaptive_lr = true;
  double desired_kl = 0.01;
  double value_coef = 1.0;
  double entropy_coef = 0.005;
  double max_grad_norm = 1.0;
  double init_noise_std = 1.0;
  std::vector<int> actor_hidden{128, 64, 32};
  std::vector<int> critic_hidden{128, 64, 32};
};

class Ppo {
 public:
  Ppo(const PpoConfig& config, int observation_dim, int action_dim, int envs);
  const PpoConfig& config() const { return c_; }
  ActorCritic& net() { return net_; }
  torch::optim::Adam& optimizer() { return *optimizer_; }
  const RolloutStorage& storage() const { return storage_; }
  double learning_rate() const { return lr_; }
  void set_learning_rate(double lr);

  // Step t of the rollout: samples actions (envs, action_dim) for normalized observations
  // (envs, obs_dim) with noise from rng, recording what the update needs.
  void act(int t, const float* obs, Rng& rng, float* actions) { act(t, 0, envs_, obs, rng, actions); }
  // The same for the storage's environments [first_env, first_env + rows): environment sets
  // stepped apart (the real ones of model-based PPO) fill their own columns of one batch.
  void act(int t, int first_env, int rows, const float* obs, Rng& rng, float* actions);
  // Actions (rows, action_dim) sampled as act() samples them, for normalized observations
  // (rows, obs_dim), without recording: the policy explores another set of environments (the
  // real ones of model-based PPO).
  void explore(int rows, const float* obs, Rng& rng, float* actions);
  // Rewards and episode ends of step t; bootstrap (envs): γ·V(final observation) already
  // computed for timed-out environments (0 elsewhere), added to their rewards.
  void record(int t, const float* rewards, const uint8_t* terminated, const uint8_t* timed_out,
              const float* bootstrap) {
    record(t, 0, envs_, rewards, terminated, timed_out, bootstrap);
  }
  void record(int t, int first_env, int rows, const float* rewards, const uint8_t* terminated,
              const uint8_t* timed_out, const float* bootstrap);
  // V of normalized observations (rows, obs_dim) into out (rows).
  void values(const float* obs, int rows, float* out);
  // GAE from the last observations' values (envs, obs_dim), then epochs × minibatches of updates.
  PpoUpdateStats update(const float* last_obs, Rng& rng);
  // Minibatch gradients by rl/fused_ppo_update.h instead of libtorch's autograd (the default
  // and the reference). Equal to float tolerance per update; over a run, rounding-sized KL
  // values take rsl_rl's adaptive learning rate ("kl > 0") another way, so runs part like two
  // seeds do. Opt-in until its learning outcomes are measured over enough seeds.
  // threads: the fused update's parts (rl/fused_ppo_update.h); the bits depend on it.
  void use_fused_update(bool fused, int threads = 1);

 private:
  struct Sample {
    torch::Tensor mean, std, action;
  };
  // Gaussian actions for normalized observations (rows, obs_dim), noise from rng in order.
  Sample sample(const torch::Tensor& obs, Rng& rng);
  // The reference minibatch update: losses by libtorch ops, gradients by autograd.
  PpoMinibatchResult reference_minibatch(const int64_t* idx, int64_t mb);
  void adapt_learning_rate(double kl);

  PpoConfig c_;
  int obs_dim_, act_dim_, envs_;
  ActorCritic net_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  double lr_;
  bool fused_update_ = false;
  int fused_threads_ = 1;
  std::unique_ptr<FusedPpoUpdate> fused_;
  RolloutStorage storage_;
};

}  // namespace flashnerd::rl
