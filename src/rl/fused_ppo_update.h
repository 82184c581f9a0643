// One PPO minibatch update of the actor-critic with few, large operations: the gather, both
// MLPs' forward passes (bias + product + ELU), the clipped surrogate, clipped value loss and
// entropy, and their gradients, computed by hand in loops over preallocated buffers and a
// handful of matrix products (engine::sgemm: oneDNN on the CPU's widest vector ISA); then the
// gradient-norm clip and the caller's Adam step. It computes what the autograd reference
// (Ppo::reference_minibatch) computes, to floating-point tolerance
// (tests/rl/fused_ppo_update_test.cpp), without libtorch's per-operation overhead, which
// dominated the update at rsl_rl's sizes.
//
// Threads: the minibatch's rows are cut into one contiguous part per thread; each part runs
// the whole forward and backward pass on its rows into its own gradient buffers, and the parts'
// gradients and loss sums are added in part order. The same bits for the same thread count.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/thread_pool.h"
#include "engine/blas.h"
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
  // threads: parts the minibatch is cut into, each on its own thread (>= 1).
  FusedPpoUpdate(ActorCritic& net, int observation_dim, int action_dim, int64_t minibatch, int threads = 1);

  // The KL divergence of the current policy from the rollout's on rows idx (the adaptive
  // learning rate reads it before the step), and the minibatch's losses; the gradients of
  // loss = surrogate + value_coef·value − entropy_coef·entropy land in the parameters' .grad().
  PpoMinibatchResult forward_backward(const PpoBatchView& batch, const int64_t* idx, const PpoLossSettings& s);
  // Scales every gradient so their joint norm is at most max_norm (torch's clip_grad_norm_).
  void clip_grad_norm(double max_norm);
  // torch's Adam step (no weight decay, no AMSGrad) in one pass per parameter, on the
  // optimizer's own state, so checkpoints and resumes are unchanged. False, with nothing done,
  // where the state does not exist yet (before the first step) or the options differ: the
  // caller then steps the optimizer itself.
  bool adam_step(torch::optim::Adam& adam);
  int threads() const { return int(parts_.size()); }

 private:
  // One MLP's parameters (shared) and one part's buffers for it.
  struct Mlp {
    std::vector<torch::Tensor> weight, bias;  // (out, in), (out)
  };
  struct MlpBuffers {
    std::vector<std::vector<float>> z, h, dz, dh;  // per layer (chunk rows, out): pre-activation, ELU, their gradients
    std::vector<std::vector<float>> dweight, dbias;  // this part's share of the parameters' gradients
  };
  struct Part {
    int64_t first = 0, rows = 0;  // rows [first, first + rows) of the minibatch
    std::vector<float> obs;       // (chunk rows, obs_dim) gathered
    MlpBuffers actor, critic;
    std::vector<double> dlog_std;  // per action
    std::vector<float> sigma_old_seen, log_sigma_old;  // per action: the rollout's σ last seen, its log
    PpoMinibatchResult sums;       // entropy unused
  };
  static Mlp parameters_of(const std::vector<torch::nn::Linear>& layers);
  void allocate(const Mlp& mlp, MlpBuffers& buffers, int64_t rows) const;
  const float* forward(const Mlp& mlp, MlpBuffers& buffers, int64_t rows, const float* input) const;
  // From dz.back(); accumulate: add this chunk's parameter gradients to the part's.
  void backward(const Mlp& mlp, MlpBuffers& buffers, int64_t rows, const float* input, bool accumulate) const;
  void run_part(Part& p, const PpoBatchView& b, const int64_t* idx, const PpoLossSettings& s);
  void run_chunk(Part& p, const PpoBatchView& b, const int64_t* rows, int64_t n, bool accumulate,
                 const PpoLossSettings& s);
  void add_parts_into_grads(const Mlp& mlp, MlpBuffers Part::*buffers);

  ActorCritic net_;
  int obs_dim_, act_dim_;
  int64_t mb_;
  Mlp actor_, critic_;
  std::vector<Part> parts_;
  std::unique_ptr<ThreadPool> pool_;  // threads > 1
  torch::Tensor sigma_f_;             // (action_dim) σ as libtorch computes it
  std::vector<torch::Tensor> params_;
  std::vector<double> inv_sigma_, log_sigma_;  // per action: 1/σ, log σ (double)
  std::vector<float> log_sigma_f_;         // log σ in float, as the reference's KL takes it
};

}  // namespace flashnerd::rl
