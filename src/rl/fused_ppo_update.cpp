#include "rl/fused_ppo_update.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "engine/blas.h"
#include "engine/engine.h"

namespace flashnerd::rl {

namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;

// Rows a part runs through forward, loss and backward at a time: the activations and their
// gradients stay in cache (whole parts of 3 072 rows streamed ~20 MB through memory per pass).
constexpr int64_t kChunkRows = 512;

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;

// z += bias on every row (rows, n); then, for a hidden layer (h not null), h = ELU(z) = z for
// z > 0, exp(z) − 1 otherwise (libtorch's formula), as max(z, 0) + exp(min(z, 0)) − 1, where
// one side is exactly 0. One pass; every element, row tails included, goes through the same
// packet exp, so the bits depend neither on n nor on the buffers' alignment (Eigen's array
// expressions peel unaligned heads off to its scalar exp).
void add_bias_elu(float* z, const float* bias, float* h, int64_t rows, int64_t n) {
  using namespace Eigen::internal;
  const Packet zero = pset1<Packet>(0.0f), one = pset1<Packet>(1.0f);
  auto block = [&](float* zi, const float* bi, float* hi) {
    const Packet x = padd(ploadu<Packet>(zi), ploadu<Packet>(bi));
    pstoreu(zi, x);
    if (hi) pstoreu(hi, padd(pmax(x, zero), psub(pexp(pmin(x, zero)), one)));
  };
  for (int64_t r = 0; r < rows; ++r) {
    float* zr = z + r * n;
    float* hr = h ? h + r * n : nullptr;
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) block(zr + j, bias + j, hr ? hr + j : nullptr);
    if (j == n) continue;
    float zt[kLanes] = {}, bt[kLanes] = {}, ht[kLanes];
    std::copy(zr + j, zr + n, zt);
    std::copy(bias + j, bias + n, bt);
    block(zt, bt, hr ? ht : nullptr);
    std::copy(zt, zt + (n - j), zr + j);
    if (hr) std::copy(ht, ht + (n - j), hr + j);
  }
}

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

FusedPpoUpdate::FusedPpoUpdate(ActorCritic& net, int observation_dim, int action_dim, int64_t minibatch, int threads)
    : net_(net), obs_dim_(observation_dim), act_dim_(action_dim), mb_(minibatch) {
  FN_CHECK(minibatch >= 1, "ppo: empty minibatch");
  FN_CHECK(threads >= 1, "ppo: the fused update needs at least one thread, got ", threads);
  actor_ = parameters_of(net_->actor_layers());
  critic_ = parameters_of(net_->critic_layers());
  const int parts = int(std::min<int64_t>(threads, minibatch));
  parts_.resize(size_t(parts));
  for (int k = 0; k < parts; ++k) {
    Part& p = parts_[size_t(k)];
    p.first = minibatch * k / parts;
    p.rows = minibatch * (k + 1) / parts - p.first;
    const int64_t chunk = std::min(kChunkRows, p.rows);
    p.obs.resize(size_t(chunk * obs_dim_));
    allocate(actor_, p.actor, chunk);
    allocate(critic_, p.critic, chunk);
    p.dlog_std.resize(size_t(action_dim));
    p.sigma_old_seen.resize(size_t(action_dim));
    p.log_sigma_old.resize(size_t(action_dim));
  }
  if (parts > 1) pool_ = std::make_unique<ThreadPool>(parts);
  sigma_f_ = torch::empty({action_dim});
  log_sigma_.resize(size_t(action_dim));
  inv_sigma_.resize(size_t(action_dim));
  log_sigma_f_.resize(size_t(action_dim));
  params_ = net_->parameters();
}

FusedPpoUpdate::Mlp FusedPpoUpdate::parameters_of(const std::vector<torch::nn::Linear>& layers) {
  Mlp mlp;
  for (const auto& layer : layers) {
    mlp.weight.push_back(layer->weight);
    mlp.bias.push_back(layer->bias);
  }
  return mlp;
}

void FusedPpoUpdate::allocate(const Mlp& mlp, MlpBuffers& b, int64_t rows) const {
  for (size_t l = 0; l < mlp.weight.size(); ++l) {
    const size_t out = size_t(mlp.weight[l].size(0)), in = size_t(mlp.weight[l].size(1));
    for (auto* v : {&b.z, &b.h, &b.dz, &b.dh}) v->emplace_back(size_t(rows) * out);
    b.dweight.emplace_back(out * in);
    b.dbias.emplace_back(out);
  }
}

const float* FusedPpoUpdate::forward(const Mlp& mlp, MlpBuffers& b, int64_t rows, const float* input) const {
  const size_t L = mlp.weight.size();
  const float* x = input;
  for (size_t l = 0; l < L; ++l) {
    // z = x · Wᵀ + b, and h = ELU(z) except after the output layer
    const int64_t out = mlp.weight[l].size(0), in = mlp.weight[l].size(1);
    float* z = b.z[l].data();
    engine::sgemm(false, true, rows, out, in, 1.f, x, in, mlp.weight[l].data_ptr<float>(), in, 0.f, z, out);
    const bool hidden = l + 1 < L;
    add_bias_elu(z, mlp.bias[l].data_ptr<float>(), hidden ? b.h[l].data() : nullptr, rows, out);
    if (!hidden) break;
    x = b.h[l].data();
  }
  return b.z[L - 1].data();
}

void FusedPpoUpdate::backward(const Mlp& mlp, MlpBuffers& b, int64_t rows, const float* input, bool accumulate) const {
  for (size_t l = mlp.weight.size(); l-- > 0;) {
    const float* x = l > 0 ? b.h[l - 1].data() : input;
    const float* dz = b.dz[l].data();
    const int64_t out = mlp.weight[l].size(0), in = mlp.weight[l].size(1);
    // ∂W (+)= dzᵀ · x, ∂b (+)= the column sums of dz, ∂x = dz · W
    engine::sgemm(true, false, out, in, rows, 1.f, dz, out, x, in, accumulate ? 1.f : 0.f, b.dweight[l].data(), in);
    float* db = b.dbias[l].data();
    if (!accumulate) std::fill(db, db + out, 0.0f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < out; ++j) db[j] += dz[r * out + j];
    if (l == 0) break;
    engine::sgemm(false, false, rows, in, out, 1.f, dz, out, mlp.weight[l].data_ptr<float>(), in, 0.f,
                  b.dh[l - 1].data(), in);
    elu_backward(b.z[l - 1].data(), b.h[l - 1].data(), b.dh[l - 1].data(), b.dz[l - 1].data(), rows * in);
  }
}

void FusedPpoUpdate::run_part(Part& p, const PpoBatchView& b, const int64_t* idx, const PpoLossSettings& s) {
  std::fill(p.dlog_std.begin(), p.dlog_std.end(), 0.0);
  p.sums = PpoMinibatchResult{};
  std::fill(p.sigma_old_seen.begin(), p.sigma_old_seen.end(), std::numeric_limits<float>::quiet_NaN());
  for (int64_t c = 0; c < p.rows; c += kChunkRows)
    run_chunk(p, b, idx + p.first + c, std::min(kChunkRows, p.rows - c), c > 0, s);
}

void FusedPpoUpdate::run_chunk(Part& p, const PpoBatchView& b, const int64_t* rows, int64_t n, bool accumulate,
                               const PpoLossSettings& s) {
  const int A = act_dim_;
  for (int64_t r = 0; r < n; ++r)
    std::memcpy(p.obs.data() + r * obs_dim_, b.obs + rows[r] * obs_dim_, sizeof(float) * size_t(obs_dim_));
  const float* mu = forward(actor_, p.actor, n, p.obs.data());
  const float* v = forward(critic_, p.critic, n, p.obs.data());
  const float* sigma_f = sigma_f_.data_ptr<float>();
  float* dmu = p.actor.dz.back().data();
  float* dv = p.critic.dz.back().data();
  const double inv = 1.0 / double(mb_), lo = 1.0 - s.clip, hi = 1.0 + s.clip;
  PpoMinibatchResult& out = p.sums;
  // σ does not depend on the state, so the rollout's σ repeats from row to row: its log is
  // taken again only when it changes
  float* sg0_seen = p.sigma_old_seen.data();
  float* log_sg0 = p.log_sigma_old.data();
  for (int64_t r = 0; r < n; ++r) {
    const int64_t i = rows[r];
    const float* a = b.actions + i * A;
    const float* m = mu + r * A;
    const float* mu0 = b.mu_old + i * A;
    const float* sg0 = b.sigma_old + i * A;
    double logp = 0, kl = 0;
    for (int j = 0; j < A; ++j) {
      const double u = (double(a[j]) - m[j]) * inv_sigma_[size_t(j)];
      logp += -0.5 * u * u - log_sigma_[size_t(j)] - kHalfLog2Pi;
      // in float, as the reference: a mean that moved by less than σ's rounding gives exactly
      // 0, and 0 leaves the learning rate alone where a rounding-sized KL would raise it
      if (!(sg0[j] == sg0_seen[j])) sg0_seen[j] = sg0[j], log_sg0[j] = std::log(sg0[j]);
      const float sf = sigma_f[j], d0 = mu0[j] - m[j];
      kl += double(log_sigma_f_[size_t(j)] - log_sg0[j] + (sg0[j] * sg0[j] + d0 * d0) / (2.0f * sf * sf) - 0.5f);
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
      const double diff = double(a[j]) - m[j], scaled = diff * inv_sigma_[size_t(j)];
      dmu[r * A + j] = float(d_logp * scaled * inv_sigma_[size_t(j)]);
      p.dlog_std[size_t(j)] += d_logp * (scaled * scaled - 1.0);
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
  backward(actor_, p.actor, n, p.obs.data(), accumulate);
  backward(critic_, p.critic, n, p.obs.data(), accumulate);
}

void FusedPpoUpdate::add_parts_into_grads(const Mlp& mlp, MlpBuffers Part::*buffers) {
  for (size_t l = 0; l < mlp.weight.size(); ++l)
    for (auto [param, grads] : {std::pair{mlp.weight[l], &MlpBuffers::dweight}, std::pair{mlp.bias[l], &MlpBuffers::dbias}}) {
      float* g = param.mutable_grad().data_ptr<float>();
      const int64_t n = param.numel();
      std::memcpy(g, ((parts_[0].*buffers).*grads)[l].data(), sizeof(float) * size_t(n));
      for (size_t k = 1; k < parts_.size(); ++k) {
        const float* share = ((parts_[k].*buffers).*grads)[l].data();
        for (int64_t i = 0; i < n; ++i) g[i] += share[i];
      }
    }
}

PpoMinibatchResult FusedPpoUpdate::forward_backward(const PpoBatchView& b, const int64_t* idx, const PpoLossSettings& s) {
  torch::NoGradGuard no_grad;
  for (auto& p : params_)
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
  // σ by libtorch's exp, bit for bit the σ the rollout stored while the weights are those of
  // the rollout: the KL of the first minibatch is then exactly that of the reference (≥ 0,
  // typically a rounding-sized positive), and so is the learning-rate decision it drives.
  at::exp_out(sigma_f_, net_->log_std());
  const float* sigma_f = sigma_f_.data_ptr<float>();
  double entropy = 0;
  for (int j = 0; j < act_dim_; ++j) {
    const double sigma = sigma_f[j];
    inv_sigma_[size_t(j)] = 1.0 / sigma;
    log_sigma_[size_t(j)] = std::log(sigma);
    log_sigma_f_[size_t(j)] = std::log(sigma_f[j]);
    entropy += 0.5 + kHalfLog2Pi + log_sigma_[size_t(j)];
  }
  if (pool_)
    pool_->parallel_for(int64_t(parts_.size()), [&](int64_t begin, int64_t end, int) {
      for (int64_t k = begin; k < end; ++k) run_part(parts_[size_t(k)], b, idx, s);
    });
  else
    run_part(parts_[0], b, idx, s);
  PpoMinibatchResult out;
  for (const Part& p : parts_) {
    out.kl += p.sums.kl;
    out.surrogate += p.sums.surrogate;
    out.value_loss += p.sums.value_loss;
  }
  out.entropy = entropy;
  add_parts_into_grads(actor_, &Part::actor);
  add_parts_into_grads(critic_, &Part::critic);
  float* g = net_->log_std().mutable_grad().data_ptr<float>();
  for (int j = 0; j < act_dim_; ++j) {
    double d = 0;
    for (const Part& p : parts_) d += p.dlog_std[size_t(j)];
    g[j] = float(d - s.entropy_coef);
  }
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

bool FusedPpoUpdate::adam_step(torch::optim::Adam& adam) {
  auto& states = adam.state();
  auto key = [](const torch::Tensor& p) { return c10::guts::to_string(p.unsafeGetTensorImpl()); };
  for (auto& group : adam.param_groups()) {
    const auto& o = static_cast<const torch::optim::AdamOptions&>(group.options());
    if (o.amsgrad() || o.weight_decay() != 0) return false;
    for (const auto& p : group.params())
      if (p.grad().defined() && states.find(key(p)) == states.end()) return false;
  }
  torch::NoGradGuard no_grad;
  for (auto& group : adam.param_groups()) {
    const auto& o = static_cast<const torch::optim::AdamOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = static_cast<torch::optim::AdamParamState&>(*states.at(key(p)));
      st.step(st.step() + 1);
      const double bias1 = 1 - std::pow(beta1, double(st.step())), bias2 = 1 - std::pow(beta2, double(st.step()));
      // torch's order: m = β1·m + (1 − β1)·g, v = β2·v + (1 − β2)·g², w −= lr/bias1 · m / (√v / √bias2 + ε)
      const float b1 = float(beta1), c1 = float(1 - beta1), b2 = float(beta2), c2 = float(1 - beta2);
      const float root_bias2 = float(std::sqrt(bias2)), eps = float(o.eps()), step = float(o.lr() / bias1);
      float* m = st.exp_avg().data_ptr<float>();
      float* v = st.exp_avg_sq().data_ptr<float>();
      const float* g = p.grad().data_ptr<float>();
      float* w = p.data_ptr<float>();
      for (int64_t i = 0, n = p.numel(); i < n; ++i) {
        m[i] = m[i] * b1 + c1 * g[i];
        v[i] = v[i] * b2 + c2 * g[i] * g[i];
        w[i] -= step * m[i] / (std::sqrt(v[i]) / root_bias2 + eps);
      }
    }
  }
  return true;
}

}  // namespace flashnerd::rl
