#include "rl/fused_ppo_update.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace flashnerd::rl {

namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;

// dz = dh · ELU'(z), with ELU'(z) = 1 for z > 0 and exp(z) = ELU(z) + 1 otherwise: branch-free
// (the signs of z are random, a branch mispredicts half the time) and vectorized.
void elu_backward(const float* __restrict z, const float* __restrict h, const float* __restrict dh,
                  float* __restrict dz, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float up = z[i] > 0.0f ? 1.0f : 0.0f;  // both sides read: a blend, not a branch
    dz[i] = dh[i] * (up + (1.0f - up) * (h[i] + 1.0f));
  }
}

// d max(a, b) / d a as torch's maximum backward has it: 1, 0, or half at a tie.
inline double max_share(double a, double b) { return a > b ? 1.0 : a < b ? 0.0 : 0.5; }

}  // namespace

FusedPpoUpdate::FusedPpoUpdate(ActorCritic& net, int observation_dim, int action_dim, int64_t minibatch)
    : net_(net), obs_dim_(observation_dim), act_dim_(action_dim), mb_(minibatch) {
  FN_CHECK(minibatch >= 1, "ppo: empty minibatch");
  prepare(actor_, net_->actor_layers());
  prepare(critic_, net_->critic_layers());
  obs_ = torch::empty({mb_, obs_dim_});
  sigma_.resize(size_t(action_dim));
  sigma_f_ = torch::empty({action_dim});
  log_sigma_.resize(size_t(action_dim));
  dlog_std_.resize(size_t(action_dim));
  params_ = net_->parameters();
}

void FusedPpoUpdate::prepare(Mlp& mlp, const std::vector<torch::nn::Linear>& layers) {
  for (const auto& layer : layers) {
    mlp.weight.push_back(layer->weight);
    mlp.bias.push_back(layer->bias);
    const int64_t out = layer->weight.size(0);
    for (auto* v : {&mlp.z, &mlp.h, &mlp.dz, &mlp.dh}) v->push_back(torch::empty({mb_, out}));
  }
}

const torch::Tensor& FusedPpoUpdate::forward(Mlp& mlp, const torch::Tensor& input) {
  const size_t L = mlp.weight.size();
  const torch::Tensor* x = &input;
  for (size_t l = 0; l < L; ++l) {
    at::addmm_out(mlp.z[l], mlp.bias[l], *x, mlp.weight[l].t());
    if (l + 1 == L) break;
    at::elu_out(mlp.h[l], mlp.z[l]);
    x = &mlp.h[l];
  }
  return mlp.z[L - 1];
}

void FusedPpoUpdate::backward(Mlp& mlp, const torch::Tensor& input) {
  for (size_t l = mlp.weight.size(); l-- > 0;) {
    const torch::Tensor& x = l > 0 ? mlp.h[l - 1] : input;
    at::mm_out(mlp.weight[l].mutable_grad(), mlp.dz[l].t(), x);
    at::sum_out(mlp.bias[l].mutable_grad(), mlp.dz[l], {0});
    if (l == 0) break;
    at::mm_out(mlp.dh[l - 1], mlp.dz[l], mlp.weight[l]);
    elu_backward(mlp.z[l - 1].data_ptr<float>(), mlp.h[l - 1].data_ptr<float>(), mlp.dh[l - 1].data_ptr<float>(),
                 mlp.dz[l - 1].data_ptr<float>(), mlp.dz[l - 1].numel());
  }
}

PpoMinibatchResult FusedPpoUpdate::forward_backward(const PpoBatchView& b, const int64_t* idx, const PpoLossSettings& s) {
  torch::NoGradGuard no_grad;
  for (auto& p : params_)
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
  const int A = act_dim_;
  float* o = obs_.data_ptr<float>();
  for (int64_t r = 0; r < mb_; ++r) std::memcpy(o + r * obs_dim_, b.obs + idx[r] * obs_dim_, sizeof(float) * size_t(obs_dim_));
  const float* mu = forward(actor_, obs_).data_ptr<float>();
  const float* v = forward(critic_, obs_).data_ptr<float>();
  // σ by libtorch's exp, bit for bit the σ the rollout stored while the weights are those of
  // the rollout: the KL of the first minibatch is then exactly that of the reference (≥ 0,
  // typically a rounding-sized positive), and so is the learning-rate decision it drives.
  at::exp_out(sigma_f_, net_->log_std());
  const float* sigma_f = sigma_f_.data_ptr<float>();
  std::vector<double>& sigma = sigma_;
  std::vector<double>& log_sigma = log_sigma_;
  std::vector<double>& dlog_std = dlog_std_;
  std::fill(dlog_std.begin(), dlog_std.end(), 0.0);
  double entropy = 0;
  for (int j = 0; j < A; ++j) {
    sigma[size_t(j)] = sigma_f[j];
    log_sigma[size_t(j)] = std::log(sigma[size_t(j)]);
    entropy += 0.5 + kHalfLog2Pi + log_sigma[size_t(j)];
  }
  float* dmu = actor_.dz.back().data_ptr<float>();
  float* dv = critic_.dz.back().data_ptr<float>();
  const double inv = 1.0 / double(mb_), lo = 1.0 - s.clip, hi = 1.0 + s.clip;
  PpoMinibatchResult out;
  for (int64_t r = 0; r < mb_; ++r) {
    const int64_t i = idx[r];
    const float* a = b.actions + i * A;
    const float* m = mu + r * A;
    const float* mu0 = b.mu_old + i * A;
    const float* sg0 = b.sigma_old + i * A;
    double logp = 0, kl = 0;
    for (int j = 0; j < A; ++j) {
      const double sg = sigma[size_t(j)], u = (double(a[j]) - m[j]) / sg;
      logp += -0.5 * u * u - log_sigma[size_t(j)] - kHalfLog2Pi;
      // in float, as the reference: a mean that moved by less than σ's rounding gives exactly
      // 0, and 0 leaves the learning rate alone where a rounding-sized KL would raise it
      const float sf = sigma_f[j], d0 = mu0[j] - m[j];
      kl += double(std::log(sf) - std::log(sg0[j]) + (sg0[j] * sg0[j] + d0 * d0) / (2.0f * sf * sf) - 0.5f);
    }
    out.kl += kl * inv;
    // clipped surrogate: max(−A·ratio, −A·clamp(ratio, 1 − clip, 1 + clip))
    const double adv = b.advantages[i], ratio = std::exp(logp - double(b.logp_old[i]));
    const double clipped = std::clamp(ratio, lo, hi);
    const double s1 = -adv * ratio, s2 = -adv * clipped;
    out.surrogate += std::max(s1, s2) * inv;
    const double inside = ratio >= lo && ratio <= hi ? 1.0 : 0.0;
    const double d_ratio = inv * (max_share(s1, s2) * -adv + max_share(s2, s1) * -adv * inside);
    const double d_logp = d_ratio * ratio;
    for (int j = 0; j < A; ++j) {
      const double sg = sigma[size_t(j)], diff = double(a[j]) - m[j];
      dmu[r * A + j] = float(d_logp * diff / (sg * sg));
      dlog_std[size_t(j)] += d_logp * (diff * diff / (sg * sg) - 1.0);
    }
    // clipped value loss: max((v − R)², (v0 + clamp(v − v0, ±clip) − R)²)
    const double value = v[r], v0 = b.values_old[i], ret = b.returns[i];
    const double step = std::clamp(value - v0, -s.clip, s.clip), vc = v0 + step;
    const double l1 = (value - ret) * (value - ret), l2 = (vc - ret) * (vc - ret);
    out.value_loss += std::max(l1, l2) * inv;
    const double in_range = value - v0 >= -s.clip && value - v0 <= s.clip ? 1.0 : 0.0;
    dv[r] = float(s.value_coef * inv *
                  (max_share(l1, l2) * 2 * (value - ret) + max_share(l2, l1) * 2 * (vc - ret) * in_range));
  }
  out.entropy = entropy;
  backward(actor_, obs_);
  backward(critic_, obs_);
  float* g = net_->log_std().mutable_grad().data_ptr<float>();
  for (int j = 0; j < A; ++j) g[j] = float(dlog_std[size_t(j)] - s.entropy_coef);
  return out;
}

void FusedPpoUpdate::clip_grad_norm(double max_norm) {
  double total = 0;
  for (auto& p : params_) {
    const float* g = p.grad().data_ptr<float>();
    double sq = 0;
    for (int64_t i = 0, n = p.numel(); i < n; ++i) sq += double(g[i]) * g[i];
    total += sq;
  }
  const double coef = max_norm / (std::sqrt(total) + 1e-6);
  if (coef >= 1.0) return;
  for (auto& p : params_) {
    float* g = p.mutable_grad().data_ptr<float>();
    for (int64_t i = 0, n = p.numel(); i < n; ++i) g[i] = float(g[i] * coef);
  }
}

}  // namespace flashnerd::rl
