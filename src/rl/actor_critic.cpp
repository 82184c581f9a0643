#include "rl/actor_critic.h"

#include <cmath>

namespace flashnerd::rl {

namespace {

torch::nn::ModuleList mlp(int in, const std::vector<int>& hidden, int out) {
  torch::nn::ModuleList layers;
  for (int h : hidden) {
    layers->push_back(torch::nn::Linear(in, h));
    in = h;
  }
  layers->push_back(torch::nn::Linear(in, out));
  return layers;
}

torch::Tensor run_mlp(torch::nn::ModuleList& layers, torch::Tensor x) {
  const size_t n = layers->size();
  for (size_t i = 0; i < n; ++i) {
    x = layers[i]->as<torch::nn::Linear>()->forward(x);
    if (i + 1 < n) x = torch::elu(x);
  }
  return x;
}

}  // namespace

ActorCriticImpl::ActorCriticImpl(int observation_dim, int action_dim, const std::vector<int>& actor_hidden,
                                 const std::vector<int>& critic_hidden, double init_noise_std) {
  actor_ = register_module("actor", mlp(observation_dim, actor_hidden, action_dim));
  critic_ = register_module("critic", mlp(observation_dim, critic_hidden, 1));
  log_std_ = register_parameter("log_std", torch::full({action_dim}, std::log(init_noise_std)));
}

std::vector<torch::nn::Linear> ActorCriticImpl::linears(const torch::nn::ModuleList& layers) {
  std::vector<torch::nn::Linear> out;
  for (size_t i = 0; i < layers->size(); ++i) out.emplace_back(layers->ptr<torch::nn::LinearImpl>(i));
  return out;
}

torch::Tensor ActorCriticImpl::action_mean(const torch::Tensor& obs) { return run_mlp(actor_, obs); }

torch::Tensor ActorCriticImpl::value(const torch::Tensor& obs) { return run_mlp(critic_, obs).squeeze(-1); }

Policy ActorCriticImpl::export_policy(PolicyInfo info, const std::vector<float>& obs_mean,
                                      const std::vector<float>& obs_denominator) {
  torch::NoGradGuard no_grad;
  std::vector<PolicyLayer> layers;
  for (size_t i = 0; i < actor_->size(); ++i) {
    auto linear = actor_[i]->as<torch::nn::Linear>();
    const torch::Tensor w = linear->weight.contiguous(), b = linear->bias.contiguous();
    PolicyLayer L;
    L.out = int(w.size(0));
    L.in = int(w.size(1));
    L.weight.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
    L.bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
    layers.push_back(std::move(L));
  }
  const torch::Tensor std = action_std().contiguous();
  std::vector<float> action_std(std.data_ptr<float>(), std.data_ptr<float>() + std.numel());
  return Policy(std::move(info), obs_mean, obs_denominator, std::move(layers), std::move(action_std));
}

}  // namespace flashnerd::rl
