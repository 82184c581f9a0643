// FlashNeRD's formulas are those of FlashNeRDModel (train/models.cpp, docs/FORMAT.md); the
// gradients are their hand-derived adjoints, each pass beside its forward.
#include "train/fused_flash_pass.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

#include "core/bf16.h"
#include "core/error.h"
#include "core/vector_exp.h"
#include "train/precision.h"
#include "train/training_product.h"
#include "train/validation.h"

namespace flashnerd::train {

namespace {

using Bf16 = uint16_t;

inline void put(float* dst, float v) { *dst = v; }
inline void put(Bf16* dst, float v) { *dst = bf16_round(v); }

inline float load(const float* src) { return *src; }
inline float load(const Bf16* src) { return bf16_value(*src); }

// Σ a·b in vector lanes (the same order every call).
template <typename A, typename B>
inline float dot(const A* a, const B* b, int n) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int e = 0; e < n; ++e) s += load(a + e) * load(b + e);
  return s;
}

// act(x) and d act / dx as libtorch computes them (silu, erf gelu, relu, sigmoid, mish).
struct Activation {
  FfnActivation kind;
  static float sigmoid(float x) { return 1.0f / (1.0f + vector_exp(-x)); }
  static float silu_derivative(float x) {
    const float s = sigmoid(x);
    return s * (1.0f + x * (1.0f - s));
  }
  float value(float x) const {
    switch (kind) {
      case FfnActivation::SwiGLU: return x * sigmoid(x);
      case FfnActivation::GEGLU: return 0.5f * x * (1.0f + std::erf(x * float(M_SQRT1_2)));
      case FfnActivation::ReGLU: return x > 0 ? x : 0.0f;
      case FfnActivation::GLU: return sigmoid(x);
      case FfnActivation::MishGLU: return x * std::tanh(std::log1p(std::exp(x)));
    }
    return x;
  }
  float derivative(float x) const {
    switch (kind) {
      case FfnActivation::SwiGLU: return silu_derivative(x);
      case FfnActivation::GEGLU: {
        const float cdf = 0.5f * (1.0f + std::erf(x * float(M_SQRT1_2)));
        return cdf + x * float(M_2_SQRTPI * M_SQRT1_2 * 0.5) * std::exp(-0.5f * x * x);
      }
      case FfnActivation::ReGLU: return x > 0 ? 1.0f : 0.0f;
      case FfnActivation::GLU: {
        const float s = sigmoid(x);
        return s * (1.0f - s);
      }
      case FfnActivation::MishGLU: {
        const float t = std::tanh(std::log1p(std::exp(x)));
        return t + x * sigmoid(x) * (1.0f - t * t);
      }
    }
    return 1.0f;
  }
};

// Sums over rows, one partial per part, added in part order.
struct PartSums {
  int parts = 1, width = 0;
  std::vector<double> partial;  // (parts, width)
  void reset(int p, int w) {
    parts = p;
    width = w;
    partial.assign(size_t(p) * size_t(w), 0.0);
  }
  double* of(int part) { return partial.data() + size_t(part) * size_t(width); }
  // Writes the totals of columns first .. first + count − 1 into out.
  void total_into(float* out, int first, int count) const {
    for (int j = first; j < first + count; ++j) {
      double s = 0;
      for (int p = 0; p < parts; ++p) s += partial[size_t(p) * size_t(width) + size_t(j)];
      out[j - first] = float(s);
    }
  }
};

struct NormWeights {
  const float* weight = nullptr;
  const float* bias = nullptr;  // LayerNorm with bias only
  float* weight_grad = nullptr;
  float* bias_grad = nullptr;
};

}  // namespace

class FusedFlashPass::Impl {
 public:
  virtual ~Impl() = default;
  virtual FusedLoss run(const float* inputs, const float* targets, const float* mask, double grad_scale,
                        const AddedTerms& added) = 0;
  int batch = 0, window = 0;
  double product_seconds = 0, seconds = 0;
};

namespace {

template <typename P>
class Pass final : public FusedFlashPass::Impl {
 public:
  Pass(DynamicsModel& model, int batch_size, int window_size, int threads);
  FusedLoss run(const float* inputs, const float* targets, const float* mask, double grad_scale,
                const AddedTerms& added) override;

 private:
  static constexpr OperandType kType = std::is_same_v<P, float> ? OperandType::F32 : OperandType::BF16;
  struct Param {
    float* value = nullptr;
    float* grad = nullptr;
  };
  struct Layer {
    int span = 1;
    NormWeights norm;
    Param qkv, lag, out, gate_up, down;
    std::vector<float> h, rstd, mean, prob;       // h entering the block
    std::vector<P> cat;                           // [qkv | gate_up] outputs, rounded like the operands
    std::vector<P> gate_sigmoid;                  // SwiGLU: σ(gate), kept for the backward pass
    std::vector<P> z, o, g;
    std::vector<P> w_cat, w_out, w_down;          // operand copies of the weights
    std::vector<float> dw_cat;                    // ([qkv; gate_up] rows, d) gradient before the split
  };

  Param param(std::map<std::string, torch::Tensor>& by_name, const std::string& name);
  void copy_weights();
  template <typename F>
  void parts_over(int64_t n, F&& body);  // body(part, begin, end)
  void norm_forward(const float* h, const NormWeights& w, float* rstd, float* mean, P* z);
  void norm_backward(const P* dz, const float* h, const NormWeights& w, const float* rstd, const float* mean,
                     float* dh);
  void attention_forward(Layer& l);
  void attention_backward(Layer& l, const P* d_o);
  void gated(const P* gate, const P* up, P* sigmoid, P* g, int n) const;
  void gated_backward(const P* gate, const P* up, const P* sigmoid, const P* dg, P* dgate, P* dup,
                      int n) const;
  void block_forward(Layer& l, float* h_next);
  void block_backward(Layer& l);
  FusedLoss readout_forward_backward(const float* targets, const float* mask, double grad_scale,
                                     const AddedTerms& added);
  void timed(const TrainingProduct& product, const void* A, const void* B, void* C) {
    const auto t0 = std::chrono::steady_clock::now();
    product.run(A, B, C);
    product_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // rows × width values from src into dst (rounded as T stores them), in parallel parts.
  template <typename T>
  void copy_rows(const float* src, T* dst, int width) {
    parts_over(rows_, [&](int, int64_t r0, int64_t r1) {
      convert(src + r0 * width, dst + r0 * width, size_t((r1 - r0) * width));
    });
  }
  template <typename T>
  static void convert(const float* src, T* dst, size_t n) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) put(dst + i, src[i]);
  }

  FlashConfig f_;
  int64_t rows_;
  int din_, dout_, d_, nq_, hd_, qd_, fh_, rh_, cat_width_;
  int threads_;
  Activation act_;
  Param embed_w_, embed_b_, fc_w_, fc_b_, head_w_, head_b_;
  NormWeights readout_norm_;
  std::vector<Layer> layers_;
  std::vector<float> h_last_, rstd_r_, mean_r_, u_, y_;
  std::vector<P> x_, zr_, r_, w_embed_, w_fc_, w_head_;
  // backward scratch, shared by the layers
  std::vector<float> dh_;
  std::vector<P> dz_, dr_, dg_, d_o_;  // the products' outputs, rounded like their operands
  std::vector<P> dy_, du_, dh_p_, dcat_;
  PartSums sums_;
  std::vector<std::vector<float>> attention_scratch_;  // per part: (window, 2 hd) dK, dV
  TrainingProduct embed_, cat_, out_, down_, fc_, head_;                   // forward
  TrainingProduct d_head_w_, d_head_x_, d_fc_w_, d_fc_x_, d_down_w_, d_down_x_, d_out_w_, d_out_x_, d_cat_w_,
      d_cat_x_, d_embed_w_;                                                // backward
};

template <typename P>
typename Pass<P>::Param Pass<P>::param(std::map<std::string, torch::Tensor>& by_name, const std::string& name) {
  auto it = by_name.find(name);
  FN_CHECK(it != by_name.end(), "fused pass: the model has no parameter ", name);
  torch::Tensor& t = it->second;
  FN_CHECK(t.scalar_type() == torch::kFloat32 && t.is_contiguous(), "fused pass: ", name, " is not contiguous fp32");
  if (!t.grad().defined()) t.mutable_grad() = torch::zeros_like(t);
  FN_CHECK(t.grad().is_contiguous(), "fused pass: the gradient of ", name, " is not contiguous");
  return {t.data_ptr<float>(), t.grad().data_ptr<float>()};
}

template <typename P>
Pass<P>::Pass(DynamicsModel& model, int batch_size, int window_size, int threads)
    : f_(model.config().flash), rows_(int64_t(batch_size) * window_size), din_(model.config().input_dim),
      dout_(model.config().output_dim), d_(f_.d_model), nq_(f_.n_heads), hd_(f_.head_dim), qd_(f_.qkv_dim()),
      fh_(f_.ffn_hidden), rh_(f_.readout_hidden), cat_width_(qd_ + 2 * fh_), threads_(std::max(1, threads)),
      act_{f_.activation} {
  batch = batch_size;
  window = window_size;
  std::map<std::string, torch::Tensor> by_name;
  for (const auto& kv : model.named_parameters()) by_name[kv.key()] = kv.value();
  const bool ln = f_.norm == NormKind::LayerNorm;
  auto norm = [&](const std::string& prefix) {
    NormWeights w;
    Param weight = param(by_name, prefix + ".weight");
    w.weight = weight.value;
    w.weight_grad = weight.grad;
    if (ln) {
      Param bias = param(by_name, prefix + ".bias");
      w.bias = bias.value;
      w.bias_grad = bias.grad;
    }
    return w;
  };
  embed_w_ = param(by_name, "embed.weight");
  embed_b_ = param(by_name, "embed.bias");
  readout_norm_ = norm("readout.norm");
  fc_w_ = param(by_name, "readout.fc.weight");
  fc_b_ = param(by_name, "readout.fc.bias");
  head_w_ = param(by_name, "head.weight");
  head_b_ = param(by_name, "head.bias");
  const size_t N = size_t(rows_);
  layers_.resize(size_t(f_.n_layers));
  for (int i = 0; i < f_.n_layers; ++i) {
    Layer& l = layers_[size_t(i)];
    const std::string p = str_cat("blocks.", i, ".");
    l.span = f_.spans[size_t(i)];
    l.norm = norm(p + "norm");
    l.qkv = param(by_name, p + "attn.qkv.weight");
    l.lag = param(by_name, p + "attn.lag_bias");
    l.out = param(by_name, p + "attn.out.weight");
    l.gate_up = param(by_name, p + "ffn.gate_up.weight");
    l.down = param(by_name, p + "ffn.down.weight");
    l.h.resize(N * size_t(d_));
    l.rstd.resize(N);
    if (ln) l.mean.resize(N);
    l.cat.resize(N * size_t(cat_width_));
    l.prob.resize(N * size_t(nq_) * size_t(l.span));
    l.z.resize(N * size_t(d_));
    l.o.resize(N * size_t(nq_) * size_t(hd_));
    l.g.resize(N * size_t(fh_));
    if (f_.activation == FfnActivation::SwiGLU) l.gate_sigmoid.resize(N * size_t(fh_));
    l.w_cat.resize(size_t(cat_width_) * size_t(d_));
    l.w_out.resize(size_t(d_) * size_t(nq_) * size_t(hd_));
    l.w_down.resize(size_t(d_) * size_t(fh_));
    l.dw_cat.resize(size_t(cat_width_) * size_t(d_));
  }
  h_last_.resize(N * size_t(d_));
  rstd_r_.resize(N);
  if (ln) mean_r_.resize(N);
  u_.resize(N * size_t(rh_));
  y_.resize(N * size_t(dout_));
  x_.resize(N * size_t(din_));
  zr_.resize(N * size_t(d_));
  r_.resize(N * size_t(rh_));
  w_embed_.resize(size_t(d_) * size_t(din_));
  w_fc_.resize(size_t(rh_) * size_t(d_));
  w_head_.resize(size_t(dout_) * size_t(rh_));
  dh_.resize(N * size_t(d_));
  dz_.resize(N * size_t(d_));
  dr_.resize(N * size_t(rh_));
  dg_.resize(N * size_t(fh_));
  d_o_.resize(N * size_t(nq_) * size_t(hd_));
  dy_.resize(N * size_t(dout_));
  du_.resize(N * size_t(rh_));
  dh_p_.resize(N * size_t(d_));
  dcat_.resize(N * size_t(cat_width_));
  attention_scratch_.assign(size_t(threads_), std::vector<float>(size_t(window) * 2 * size_t(hd_)));
  const int64_t M = rows_, oh = int64_t(nq_) * hd_;
  // oneDNN cuts a product among the threads it sees when the primitive is made
  const int previous_threads = omp_get_max_threads();
  omp_set_num_threads(threads_);
  // forward: C = A · Wᵀ (W stored (out, in))
  embed_ = TrainingProduct(kType, false, true, M, d_, din_, din_, din_, d_, false);
  cat_ = TrainingProduct(kType, false, true, M, cat_width_, d_, d_, d_, cat_width_, false, kType);
  out_ = TrainingProduct(kType, false, true, M, d_, oh, oh, oh, d_, true);
  down_ = TrainingProduct(kType, false, true, M, d_, fh_, fh_, fh_, d_, true);
  fc_ = TrainingProduct(kType, false, true, M, rh_, d_, d_, d_, rh_, false);
  head_ = TrainingProduct(kType, false, true, M, dout_, rh_, rh_, rh_, dout_, false);
  // backward: dW = dCᵀ · A over the rows; dA = dC · W
  d_head_w_ = TrainingProduct(kType, true, false, dout_, rh_, M, dout_, rh_, rh_, false);
  d_head_x_ = TrainingProduct(kType, false, false, M, rh_, dout_, dout_, rh_, rh_, false, kType);
  d_fc_w_ = TrainingProduct(kType, true, false, rh_, d_, M, rh_, d_, d_, false);
  d_fc_x_ = TrainingProduct(kType, false, false, M, d_, rh_, rh_, d_, d_, false, kType);
  d_down_w_ = TrainingProduct(kType, true, false, d_, fh_, M, d_, fh_, fh_, false);
  d_down_x_ = TrainingProduct(kType, false, false, M, fh_, d_, d_, fh_, fh_, false, kType);
  d_out_w_ = TrainingProduct(kType, true, false, d_, oh, M, d_, oh, oh, false);
  d_out_x_ = TrainingProduct(kType, false, false, M, oh, d_, d_, oh, oh, false, kType);
  d_cat_w_ = TrainingProduct(kType, true, false, cat_width_, d_, M, cat_width_, d_, d_, false);
  d_cat_x_ = TrainingProduct(kType, false, false, M, d_, cat_width_, cat_width_, d_, d_, false, kType);
  d_embed_w_ = TrainingProduct(kType, true, false, d_, din_, M, d_, din_, din_, false);
  omp_set_num_threads(previous_threads);
}

template <typename P>
template <typename F>
void Pass<P>::parts_over(int64_t n, F&& body) {
  const int parts = threads_;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int part = 0; part < parts; ++part) body(part, n * part / parts, n * (part + 1) / parts);
}

template <typename P>
void Pass<P>::copy_weights() {
  const size_t d = size_t(d_);
  for (Layer& l : layers_) {
    convert(l.qkv.value, l.w_cat.data(), size_t(qd_) * d);
    convert(l.gate_up.value, l.w_cat.data() + size_t(qd_) * d, size_t(2 * fh_) * d);
    convert(l.out.value, l.w_out.data(), l.w_out.size());
    convert(l.down.value, l.w_down.data(), l.w_down.size());
  }
  convert(embed_w_.value, w_embed_.data(), w_embed_.size());
  convert(fc_w_.value, w_fc_.data(), w_fc_.size());
  convert(head_w_.value, w_head_.data(), w_head_.size());
}

// RMSNorm: z = h · w / √(mean(h²) + ε); LayerNorm: z = (h − μ) / √(var + ε) · w + b.
template <typename P>
void Pass<P>::norm_forward(const float* h, const NormWeights& w, float* rstd, float* mean, P* z) {
  const int d = d_;
  const bool ln = mean != nullptr;
  parts_over(rows_, [&](int, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* x = h + r * d;
      float mu = 0;
      if (ln) {
#pragma omp simd reduction(+ : mu)
        for (int j = 0; j < d; ++j) mu += x[j];
        mu /= float(d);
        mean[r] = mu;
      }
      float ss = 0;
#pragma omp simd reduction(+ : ss)
      for (int j = 0; j < d; ++j) ss += (x[j] - mu) * (x[j] - mu);
      const float rs = 1.0f / std::sqrt(ss / float(d) + float(kNormEpsilon));
      rstd[r] = rs;
      P* out = z + r * d;
#pragma omp simd
      for (int j = 0; j < d; ++j) put(out + j, (x[j] - mu) * rs * w.weight[j] + (w.bias ? w.bias[j] : 0.0f));
    }
  });
}

// dh += ∂z/∂h · dz; the norm's weight (and bias) gradients written.
template <typename P>
void Pass<P>::norm_backward(const P* dz, const float* h, const NormWeights& w, const float* rstd,
                            const float* mean, float* dh) {
  const int d = d_;
  const bool ln = mean != nullptr;
  sums_.reset(threads_, ln ? 2 * d : d);
  parts_over(rows_, [&](int part, int64_t r0, int64_t r1) {
    double* dw = sums_.of(part);
    for (int64_t r = r0; r < r1; ++r) {
      const float* x = h + r * d;
      const P* g = dz + r * d;
      const float rs = rstd[r], mu = ln ? mean[r] : 0.0f;
      float s_g = 0, s_gx = 0;  // Σ w·dz, Σ w·dz·x̂
#pragma omp simd reduction(+ : s_g, s_gx)
      for (int j = 0; j < d; ++j) {
        const float xhat = (x[j] - mu) * rs, wg = w.weight[j] * load(g + j);
        s_g += wg;
        s_gx += wg * xhat;
        dw[j] += double(load(g + j) * xhat);
        if (ln) dw[d + j] += double(load(g + j));
      }
      const float mean_g = ln ? s_g / float(d) : 0.0f, mean_gx = s_gx / float(d);
      float* out = dh + r * d;
#pragma omp simd
      for (int j = 0; j < d; ++j) {
        const float xhat = (x[j] - mu) * rs;
        out[j] += rs * (w.weight[j] * load(g + j) - mean_g - xhat * mean_gx);
      }
    }
  });
  sums_.total_into(w.weight_grad, 0, d);
  if (ln) sums_.total_into(w.bias_grad, d, d);
}

// Multi-query banded attention: query t of head i sees keys t − S + 1 .. t of its window with
// scores q·k/√hd + lag_bias[i][t − j]; then the gated FFN's activation, from the same row.
template <typename P>
void Pass<P>::attention_forward(Layer& l) {
  const int W = window, S = l.span, hd = hd_, nq = nq_, cw = cat_width_, fh = fh_;
  const float scale = 1.0f / std::sqrt(float(hd));
  parts_over(batch, [&](int, int64_t b0, int64_t b1) {
    float scores[64];
    for (int64_t b = b0; b < b1; ++b)
      for (int t = 0; t < W; ++t) {
        const int64_t row = b * W + t;
        const P* c = l.cat.data() + row * cw;
        const int lags = std::min(S, t + 1);
        for (int i = 0; i < nq; ++i) {
          float q[256];
          for (int e = 0; e < hd; ++e) q[e] = load(c + i * hd + e);
          float top = -INFINITY;
          for (int lag = 0; lag < lags; ++lag) {
            const P* k = l.cat.data() + (row - lag) * cw + nq * hd;
            scores[lag] = dot(q, k, hd) * scale + l.lag.value[i * S + lag];
            top = std::max(top, scores[lag]);
          }
          float total = 0;
          for (int lag = 0; lag < lags; ++lag) total += (scores[lag] = vector_exp(scores[lag] - top));
          float* p = l.prob.data() + (row * nq + i) * S;
          for (int lag = 0; lag < S; ++lag) p[lag] = lag < lags ? scores[lag] / total : 0.0f;
          float o[256];
          std::fill(o, o + hd, 0.0f);
          for (int lag = 0; lag < lags; ++lag) {
            const P* v = l.cat.data() + (row - lag) * cw + (nq + 1) * hd;
            const float pl = p[lag];
#pragma omp simd
            for (int e = 0; e < hd; ++e) o[e] += pl * load(v + e);
          }
          P* out = l.o.data() + row * (nq * hd) + i * hd;
#pragma omp simd
          for (int e = 0; e < hd; ++e) put(out + e, o[e]);
        }
        const P* gate = c + qd_;
        gated(gate, gate + fh, l.gate_sigmoid.empty() ? nullptr : l.gate_sigmoid.data() + row * fh,
              l.g.data() + row * fh, fh);
      }
  });
}

// g = act(gate) ⊙ up; SwiGLU (the presets' gate) in vector lanes, σ(gate) kept.
template <typename P>
void Pass<P>::gated(const P* gate, const P* up, P* sigmoid, P* g, int n) const {
  if (act_.kind == FfnActivation::SwiGLU) {
#pragma omp simd
    for (int j = 0; j < n; ++j) {
      const float x = load(gate + j), s = Activation::sigmoid(x);
      put(sigmoid + j, s);
      put(g + j, x * s * load(up + j));
    }
    return;
  }
  for (int j = 0; j < n; ++j) put(g + j, act_.value(load(gate + j)) * load(up + j));
}

// dgate = dg ⊙ up ⊙ act'(gate), dup = dg ⊙ act(gate).
template <typename P>
void Pass<P>::gated_backward(const P* gate, const P* up, const P* sigmoid, const P* dg, P* dgate,
                             P* dup, int n) const {
  if (act_.kind == FfnActivation::SwiGLU) {
#pragma omp simd
    for (int j = 0; j < n; ++j) {
      const float x = load(gate + j), s = load(sigmoid + j);
      put(dgate + j, load(dg + j) * load(up + j) * (s * (1.0f + x * (1.0f - s))));
      put(dup + j, load(dg + j) * x * s);
    }
    return;
  }
  for (int j = 0; j < n; ++j) {
    const float x = load(gate + j);
    put(dgate + j, load(dg + j) * load(up + j) * act_.derivative(x));
    put(dup + j, load(dg + j) * act_.value(x));
  }
}

// From dO: dq, dk, dv into dcat's first qd columns, the lag bias's gradient, and the FFN
// activation's adjoint (dgate, dup) into its last 2f.
template <typename P>
void Pass<P>::attention_backward(Layer& l, const P* d_o) {
  const int W = window, S = l.span, hd = hd_, nq = nq_, cw = cat_width_, fh = fh_;
  const float scale = 1.0f / std::sqrt(float(hd));
  sums_.reset(threads_, nq * S);
  parts_over(batch, [&](int part, int64_t b0, int64_t b1) {
    double* dlag = sums_.of(part);
    float* dkv = attention_scratch_[size_t(part)].data();  // (W, 2 hd): dK, dV of the window
    for (int64_t b = b0; b < b1; ++b) {
      std::fill(dkv, dkv + size_t(W) * 2 * size_t(hd), 0.0f);
      for (int t = 0; t < W; ++t) {
        const int64_t row = b * W + t;
        const P* c = l.cat.data() + row * cw;
        const int lags = std::min(S, t + 1);
        for (int i = 0; i < nq; ++i) {
          float q[256];
          for (int e = 0; e < hd; ++e) q[e] = load(c + i * hd + e);
          const float* p = l.prob.data() + (row * nq + i) * S;
          const P* dout = d_o + row * (nq * hd) + i * hd;
          float dp[64], weighted = 0;
          for (int lag = 0; lag < lags; ++lag) {
            const P* v = l.cat.data() + (row - lag) * cw + (nq + 1) * hd;
            dp[lag] = dot(dout, v, hd);
            weighted += p[lag] * dp[lag];
          }
          float dq[256];
          std::fill(dq, dq + hd, 0.0f);
          for (int lag = 0; lag < lags; ++lag) {
            const float ds = p[lag] * (dp[lag] - weighted);
            dlag[i * S + lag] += double(ds);
            const P* k = l.cat.data() + (row - lag) * cw + nq * hd;
            float* dk = dkv + size_t(t - lag) * 2 * size_t(hd);
            float* dv = dk + hd;
            const float pl = p[lag], ds_scaled = ds * scale;
#pragma omp simd
            for (int e = 0; e < hd; ++e) {
              dq[e] += ds * load(k + e);
              dk[e] += ds_scaled * q[e];
              dv[e] += pl * load(dout + e);
            }
          }
          P* out = dcat_.data() + row * cw + i * hd;
#pragma omp simd
          for (int e = 0; e < hd; ++e) put(out + e, dq[e] * scale);
        }
        const P* gate = c + qd_;
        P* dgate = dcat_.data() + row * cw + qd_;
        gated_backward(gate, gate + fh, l.gate_sigmoid.empty() ? nullptr : l.gate_sigmoid.data() + row * fh,
                       dg_.data() + row * fh, dgate, dgate + fh, fh);
      }
      for (int j = 0; j < W; ++j) {
        P* out = dcat_.data() + (b * W + j) * cw + nq * hd;
        const float* src = dkv + size_t(j) * 2 * size_t(hd);
#pragma omp simd
        for (int e = 0; e < 2 * hd; ++e) put(out + e, src[e]);
      }
    }
  });
  sums_.total_into(l.lag.grad, 0, nq * S);
}

// h_next = h + out(attention(z)) + down(act(gate(z)) ⊙ up(z)), z = norm(h).
template <typename P>
void Pass<P>::block_forward(Layer& l, float* h_next) {
  norm_forward(l.h.data(), l.norm, l.rstd.data(), l.mean.empty() ? nullptr : l.mean.data(), l.z.data());
  timed(cat_, l.z.data(), l.w_cat.data(), l.cat.data());
  attention_forward(l);
  copy_rows(l.h.data(), h_next, d_);
  timed(out_, l.o.data(), l.w_out.data(), h_next);
  timed(down_, l.g.data(), l.w_down.data(), h_next);
}

// dh_ holds the gradient at the block's output; it leaves with the gradient at its input.
template <typename P>
void Pass<P>::block_backward(Layer& l) {
  copy_rows(dh_.data(), dh_p_.data(), d_);
  timed(d_down_w_, dh_p_.data(), l.g.data(), l.down.grad);
  timed(d_down_x_, dh_p_.data(), l.w_down.data(), dg_.data());
  timed(d_out_w_, dh_p_.data(), l.o.data(), l.out.grad);
  timed(d_out_x_, dh_p_.data(), l.w_out.data(), d_o_.data());
  attention_backward(l, d_o_.data());
  timed(d_cat_w_, dcat_.data(), l.z.data(), l.dw_cat.data());
  const size_t d = size_t(d_);
  std::memcpy(l.qkv.grad, l.dw_cat.data(), size_t(qd_) * d * sizeof(float));
  std::memcpy(l.gate_up.grad, l.dw_cat.data() + size_t(qd_) * d, size_t(2 * fh_) * d * sizeof(float));
  timed(d_cat_x_, dcat_.data(), l.w_cat.data(), dz_.data());
  norm_backward(dz_.data(), l.h.data(), l.norm, l.rstd.data(), l.mean.empty() ? nullptr : l.mean.data(),
                dh_.data());
}

// ŷ = head(silu(fc(norm(h)))), the masked loss, and the backward pass down to dh_.
template <typename P>
FusedLoss Pass<P>::readout_forward_backward(const float* targets, const float* mask, double grad_scale,
                                            const AddedTerms& added) {
  const int rh = rh_, dout = dout_;
  float* mean = mean_r_.empty() ? nullptr : mean_r_.data();
  norm_forward(h_last_.data(), readout_norm_, rstd_r_.data(), mean, zr_.data());
  timed(fc_, zr_.data(), w_fc_.data(), u_.data());
  parts_over(rows_, [&](int, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int j = 0; j < rh; ++j) {
        const size_t i = size_t(r * rh + j);
        float& u = u_[i];
        u += fc_b_.value[j];
        put(&r_[i], u * Activation::sigmoid(u) + (added.readout ? added.readout[i] : 0.0f));
      }
  });
  timed(head_, r_.data(), w_head_.data(), y_.data());
  // loss, dŷ = 2 · scale · mask · (ŷ − y), and the head bias's gradient
  sums_.reset(threads_, dout + 1);
  const float two_scale = float(2.0 * grad_scale);
  parts_over(rows_, [&](int part, int64_t r0, int64_t r1) {
    double* s = sums_.of(part);
    for (int64_t r = r0; r < r1; ++r) {
      const float m = mask[r];
      for (int j = 0; j < dout; ++j) {
        const size_t i = size_t(r * dout + j);
        const float y = y_[i] + head_b_.value[j] + (added.head ? added.head[i] : 0.0f), e = y - targets[i];
        s[dout] += double(m * e * e);
        const float dy = two_scale * m * e;
        s[j] += double(dy);
        put(&dy_[i], dy);
        if (added.head_grad) added.head_grad[i] = dy;
      }
    }
  });
  FusedLoss loss;
  for (int p = 0; p < threads_; ++p) loss.sse += sums_.of(p)[dout];
  sums_.total_into(head_b_.grad, 0, dout);
  timed(d_head_w_, dy_.data(), r_.data(), head_w_.grad);
  timed(d_head_x_, dy_.data(), w_head_.data(), dr_.data());
  sums_.reset(threads_, rh);
  parts_over(rows_, [&](int part, int64_t r0, int64_t r1) {
    double* s = sums_.of(part);
    for (int64_t r = r0; r < r1; ++r)
      for (int j = 0; j < rh; ++j) {
        const size_t i = size_t(r * rh + j);
        const float dr = load(&dr_[i]), du = dr * Activation::silu_derivative(u_[i]);
        if (added.readout_grad) added.readout_grad[i] = dr;
        s[j] += double(du);
        put(&du_[i], du);
      }
  });
  sums_.total_into(fc_b_.grad, 0, rh);
  timed(d_fc_w_, du_.data(), zr_.data(), fc_w_.grad);
  timed(d_fc_x_, du_.data(), w_fc_.data(), dz_.data());
  parts_over(rows_, [&](int, int64_t r0, int64_t r1) {
    std::fill(dh_.data() + r0 * d_, dh_.data() + r1 * d_, 0.0f);
  });
  norm_backward(dz_.data(), h_last_.data(), readout_norm_, rstd_r_.data(), mean, dh_.data());
  return loss;
}

template <typename P>
FusedLoss Pass<P>::run(const float* inputs, const float* targets, const float* mask, double grad_scale,
                       const AddedTerms& added) {
  const int previous_threads = omp_get_max_threads();
  omp_set_num_threads(threads_);  // oneDNN's team for the products
  copy_weights();
  copy_rows(inputs, x_.data(), din_);
  // forward
  float* h0 = layers_.empty() ? h_last_.data() : layers_[0].h.data();
  timed(embed_, x_.data(), w_embed_.data(), h0);
  const int d = d_;
  parts_over(rows_, [&](int, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int j = 0; j < d; ++j)
        h0[r * d + j] += embed_b_.value[j] + (added.embed ? added.embed[r * d + j] : 0.0f);
  });
  for (size_t i = 0; i < layers_.size(); ++i)
    block_forward(layers_[i], i + 1 < layers_.size() ? layers_[i + 1].h.data() : h_last_.data());
  FusedLoss loss = readout_forward_backward(targets, mask, grad_scale, added);
  for (size_t i = layers_.size(); i-- > 0;) block_backward(layers_[i]);
  copy_rows(dh_.data(), dh_p_.data(), d_);
  timed(d_embed_w_, dh_p_.data(), x_.data(), embed_w_.grad);
  sums_.reset(threads_, d);
  parts_over(rows_, [&](int part, int64_t r0, int64_t r1) {
    double* s = sums_.of(part);
    for (int64_t r = r0; r < r1; ++r)
      for (int j = 0; j < d; ++j) s[j] += double(dh_[size_t(r * d + j)]);
    if (added.embed_grad)
      std::memcpy(added.embed_grad + r0 * d, dh_.data() + r0 * d, size_t((r1 - r0) * d) * sizeof(float));
  });
  sums_.total_into(embed_b_.grad, 0, d);
  for (int64_t r = 0; r < rows_; ++r) loss.weights += double(mask[r]);
  omp_set_num_threads(previous_threads);
  return loss;
}

}  // namespace

std::string fused_flash_pass_refusal(const DynamicsModel& model, double dropout, bool forecast) {
  const ModelConfig& c = model.config();
  if (c.arch != Arch::FlashNeRD) return "the fused pass trains FlashNeRD models; this one is NeRD";
  if (dropout > 0) return "the fused pass has no dropout";
  if (forecast) return "forecasts through the model's own steps train through libtorch's autograd";
  if (c.flash.head_dim > 256) return str_cat("the fused pass takes heads of at most 256, not ", c.flash.head_dim);
  for (int s : c.flash.spans)
    if (s > 64) return str_cat("the fused pass takes spans of at most 64, not ", s);
  return "";
}

FusedFlashPass::FusedFlashPass(DynamicsModel& model, int batch, int window, bool bf16, int threads)
    : model_(model), bf16_(bf16) {
  const std::string refusal = fused_flash_pass_refusal(model, 0, false);
  FN_CHECK(refusal.empty(), refusal);
  for (const auto& kv : model.named_parameters())
    if (kv.key().rfind("contact", 0) == 0) {
      torch::Tensor p = kv.value();
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      contact_parameters_.push_back(p);
    }
  if (bf16) {
    impl_ = std::make_unique<Pass<Bf16>>(model, batch, window, threads);
  } else {
    impl_ = std::make_unique<Pass<float>>(model, batch, window, threads);
  }
}

FusedFlashPass::~FusedFlashPass() = default;

FusedLoss FusedFlashPass::forward_backward(const float* inputs, const float* targets, const float* mask,
                                           double grad_scale, const AddedTerms& added) {
  const auto t0 = std::chrono::steady_clock::now();
  const FusedLoss loss = impl_->run(inputs, targets, mask, grad_scale, added);
  impl_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return loss;
}

// The contact encoder and its gates stay libtorch modules: their outputs enter the pass as
// added terms, and the gradients the pass returns for them continue through autograd.
FusedLoss FusedFlashPass::forward_backward(const WindowBatch& batch, double grad_scale) {
  FN_CHECK(batch.batch == impl_->batch && batch.length == impl_->window, "fused pass made for ", impl_->batch, " x ",
           impl_->window, " windows, given ", batch.batch, " x ", batch.length);
  if (!model_.config().contact.enabled())
    return forward_backward(batch.inputs.data(), batch.targets.data(), batch.mask.data(), grad_scale);
  auto& flash = static_cast<FlashNeRDModel&>(model_);
  for (auto& p : contact_parameters_) p.mutable_grad().zero_();
  std::vector<torch::Tensor> terms, grads;
  AddedTerms added;
  {
    const ScopeExit autocast = bf16_autocast(bf16_);
    const torch::Tensor pooled = flash.contact(contact_tensors(batch, 0, batch.batch));
    auto term = [&](ContactGate& gate, const float*& value, float*& grad) {
      if (!gate) return;
      terms.push_back(gate(pooled).to(torch::kFloat).contiguous());
      grads.push_back(torch::empty_like(terms.back()));
      value = terms.back().data_ptr<float>();
      grad = grads.back().data_ptr<float>();
    };
    term(flash.contact_embed, added.embed, added.embed_grad);
    term(flash.contact_readout, added.readout, added.readout_grad);
    term(flash.contact_head, added.head, added.head_grad);
  }
  const FusedLoss loss =
      forward_backward(batch.inputs.data(), batch.targets.data(), batch.mask.data(), grad_scale, added);
  if (!terms.empty()) torch::autograd::backward(terms, grads);
  return loss;
}

double FusedFlashPass::seconds() const { return impl_->seconds; }
double FusedFlashPass::product_seconds() const { return impl_->product_seconds; }

int FusedFlashPass::batch() const { return impl_->batch; }
int FusedFlashPass::window() const { return impl_->window; }

}  // namespace flashnerd::train
