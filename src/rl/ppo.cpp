#include "rl/ppo.h"

#include <cmath>
#include <numeric>

#include "core/error.h"

namespace flashnerd::rl {

namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;
constexpr double kMinLearningRate = 1e-5, kMaxLearningRate = 1e-2;

torch::Tensor gaussian_log_prob(const torch::Tensor& a, const torch::Tensor& mu, const torch::Tensor& sigma) {
  return (-0.5 * ((a - mu) / sigma).pow(2) - sigma.log() - kHalfLog2Pi).sum(-1);
}

torch::Tensor from_buffer(const float* data, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<float*>(data), shape, torch::kFloat32).clone();
}

// The configuration, checked before anything is allocated for it.
const PpoConfig& checked(const PpoConfig& c, int envs) {
  FN_CHECK(c.steps_per_env >= 1 && c.epochs >= 1 && c.minibatches >= 1, "ppo: steps, epochs and minibatches must be >= 1");
  FN_CHECK(int64_t(c.steps_per_env) * envs >= c.minibatches, "ppo: ", c.minibatches, " minibatches need at least as many transitions per iteration (",
           int64_t(c.steps_per_env) * envs, ")");
  FN_CHECK(c.gamma > 0 && c.gamma <= 1 && c.lambda >= 0 && c.lambda <= 1 && c.clip > 0 && c.learning_rate > 0,
           "ppo: gamma and lambda in (0, 1], clip and learning rate > 0");
  return c;
}

}  // namespace

Ppo::Ppo(const PpoConfig& c, int observation_dim, int action_dim, int envs)
    : c_(checked(c, envs)), obs_dim_(observation_dim), act_dim_(action_dim), envs_(envs),
      net_(observation_dim, action_dim, c.actor_hidden, c.critic_hidden, c.init_noise_std), lr_(c.learning_rate),
      storage_(c.steps_per_env, envs, observation_dim, action_dim) {
  optimizer_ = std::make_unique<torch::optim::Adam>(net_->parameters(), torch::optim::AdamOptions(lr_));
}

void Ppo::set_learning_rate(double lr) {
  lr_ = lr;
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

Ppo::Sample Ppo::sample(const torch::Tensor& o, Rng& rng) {
  const torch::Tensor mu = net_->action_mean(o);
  const torch::Tensor sigma = net_->action_std().expand_as(mu);
  torch::Tensor noise = torch::empty_like(mu);
  float* n = noise.data_ptr<float>();
  for (int64_t i = 0; i < noise.numel(); ++i) n[i] = float(rng.normal());
  return {mu, sigma, mu + sigma * noise};
}

void Ppo::act(int t, int first_env, int rows, const float* obs, Rng& rng, float* actions) {
  torch::NoGradGuard no_grad;
  const torch::Tensor o = torch::from_blob(const_cast<float*>(obs), {rows, obs_dim_}, torch::kFloat32);
  const Sample s = sample(o, rng);
  storage_.add_step(t, first_env, o, s.action, s.mean, s.std, net_->value(o),
                    gaussian_log_prob(s.action, s.mean, s.std));
  std::memcpy(actions, s.action.data_ptr<float>(), sizeof(float) * size_t(s.action.numel()));
}

void Ppo::explore(int rows, const float* obs, Rng& rng, float* actions) {
  torch::NoGradGuard no_grad;
  const Sample s = sample(torch::from_blob(const_cast<float*>(obs), {rows, obs_dim_}, torch::kFloat32), rng);
  std::memcpy(actions, s.action.data_ptr<float>(), sizeof(float) * size_t(s.action.numel()));
}

void Ppo::record(int t, int first_env, int rows, const float* rewards, const uint8_t* terminated,
                 const uint8_t* timed_out, const float* bootstrap) {
  storage_.add_outcome(t, first_env, rows, rewards, terminated, timed_out, bootstrap);
}

void Ppo::values(const float* obs, int rows, float* out) {
  torch::NoGradGuard no_grad;
  const torch::Tensor v = net_->value(torch::from_blob(const_cast<float*>(obs), {rows, obs_dim_}, torch::kFloat32));
  std::memcpy(out, v.contiguous().data_ptr<float>(), sizeof(float) * size_t(rows));
}

void Ppo::adapt_learning_rate(double kl) {
  if (!c_.adaptive_lr) return;
  if (kl > 2.0 * c_.desired_kl) set_learning_rate(std::max(kMinLearningRate, lr_ / 1.5));
  else if (kl < 0.5 * c_.desired_kl && kl > 0) set_learning_rate(std::min(kMaxLearningRate, lr_ * 1.5));
}

PpoMinibatchResult Ppo::reference_minibatch(const int64_t* order, int64_t mb) {
  const RolloutStorage& st = storage_;
  const int64_t N = st.transitions();
  const torch::Tensor obs = st.obs().view({N, obs_dim_}), actions = st.actions().view({N, act_dim_});
  const torch::Tensor mu_old = st.mu().view({N, act_dim_}), sigma_old = st.sigma().view({N, act_dim_});
  const torch::Tensor v_old = st.values().view({N}), logp_old = st.log_prob().view({N});
  const torch::Tensor ret = st.returns().view({N}), adv = st.advantages().view({N});
  const torch::Tensor idx = torch::from_blob(const_cast<int64_t*>(order), {mb}, torch::kInt64);
  const torch::Tensor o = obs.index_select(0, idx), a = actions.index_select(0, idx);
  const torch::Tensor mu0 = mu_old.index_select(0, idx), sg0 = sigma_old.index_select(0, idx);
  const torch::Tensor mu = net_->action_mean(o);
  const torch::Tensor sigma = net_->action_std().expand_as(mu);
  PpoMinibatchResult r;
  {
    torch::NoGradGuard no_grad;
    r.kl = (sigma.log() - sg0.log() + (sg0.pow(2) + (mu0 - mu).pow(2)) / (2.0 * sigma.pow(2)) - 0.5)
               .sum(-1)
               .mean()
               .item<double>();
  }
  const torch::Tensor ratio = (gaussian_log_prob(a, mu, sigma) - logp_old.index_select(0, idx)).exp();
  const torch::Tensor A = adv.index_select(0, idx);
  const torch::Tensor surrogate = torch::max(-A * ratio, -A * torch::clamp(ratio, 1.0 - c_.clip, 1.0 + c_.clip)).mean();
  const torch::Tensor v = net_->value(o), v0 = v_old.index_select(0, idx), R = ret.index_select(0, idx);
  const torch::Tensor v_clipped = v0 + torch::clamp(v - v0, -c_.clip, c_.clip);
  const torch::Tensor value_loss = torch::max((v - R).pow(2), (v_clipped - R).pow(2)).mean();
  const torch::Tensor entropy = (0.5 + kHalfLog2Pi + sigma.log()).sum(-1).mean();
  const torch::Tensor loss = surrogate + c_.value_coef * value_loss - c_.entropy_coef * entropy;
  optimizer_->zero_grad();
  loss.backward();
  r.surrogate = surrogate.item<double>();
  r.value_loss = value_loss.item<double>();
  r.entropy = entropy.item<double>();
  return r;
}

void Ppo::use_fused_update(bool fused, int threads) {
  FN_CHECK(threads >= 1, "ppo: the fused update needs at least one thread, got ", threads);
  if (threads != fused_threads_) fused_.reset();
  fused_update_ = fused;
  fused_threads_ = threads;
}

PpoUpdateStats Ppo::update(const float* last_obs, Rng& rng) {
  {
    torch::NoGradGuard no_grad;
    storage_.compute_returns(net_->value(from_buffer(last_obs, {envs_, obs_dim_})), c_.gamma, c_.lambda);
  }
  const int64_t N = storage_.transitions();
  const PpoBatchView batch = storage_.batch();
  const PpoLossSettings loss{c_.clip, c_.value_coef, c_.entropy_coef};
  std::vector<int64_t> order(static_cast<size_t>(N));
  const int64_t mb = N / c_.minibatches;
  if (fused_update_ && !fused_) fused_ = std::make_unique<FusedPpoUpdate>(net_, obs_dim_, act_dim_, mb, fused_threads_);
  PpoUpdateStats s;
  int updates = 0;
  for (int epoch = 0; epoch < c_.epochs; ++epoch) {
    std::iota(order.begin(), order.end(), int64_t(0));
    for (int64_t i = N - 1; i > 0; --i) std::swap(order[size_t(i)], order[rng.below(uint64_t(i + 1))]);
    for (int b = 0; b < c_.minibatches; ++b) {
      const int64_t* idx = order.data() + b * mb;
      const PpoMinibatchResult r =
          fused_update_ ? fused_->forward_backward(batch, idx, loss) : reference_minibatch(idx, mb);
      adapt_learning_rate(r.kl);
      if (fused_update_) fused_->clip_grad_norm(c_.max_grad_norm);
      else torch::nn::utils::clip_grad_norm_(net_->parameters(), c_.max_grad_norm);
      if (!(fused_update_ && fused_->adam_step(*optimizer_))) optimizer_->step();
      if (c_.adaptive_lr) s.kl += r.kl;
      s.value_loss += r.value_loss;
      s.surrogate_loss += r.surrogate;
      s.entropy += r.entropy;
      ++updates;
    }
  }
  s.value_loss /= updates;
  s.surrogate_loss /= updates;
  s.entropy /= updates;
  s.kl /= updates;
  s.learning_rate = lr_;
  s.action_std = net_->action_std().mean().item<double>();
  return s;
}

}  // namespace flashnerd::rl
