// FlashNeRD streaming step on the CPU, one tile of environments (engine.h has the formulas):
// normalize the new frame, embed it, per block one norm, one fused GEMM [q..; k; v; gate; up],
// attention of each query head over the current k/v and the block's circular cache read in lag
// order (slot = frame mod (S−1), never shifted; the oldest slot is overwritten after it was
// read), the gated unit, one fused GEMM [out | down] added to the residual; readout, head,
// de-normalize, divergence flags.
#include <algorithm>
#include <cmath>

#include "engine/cpu/backend.h"
#include "engine/cpu/kernels.h"

namespace flashnerd::engine::cpu {

namespace {

// z = Norm(h) (M, d), without its weight: that is folded into the GEMM that follows.
void normalize_residual(NormKind norm, int M, int d, Scratch& s) {
  if (norm == NormKind::RMSNorm)
    rms_normalize(M, d, s.h, s.ldh, s.z, s.ldh);
  else
    layer_normalize(M, d, s.h, s.ldh, s.z, s.ldh);
}

// Attention of one environment at frame t in block b: each query head of y [q.., k, v] over
// lags 0..min(S−1, t), the past ones read from kv (S−1, 2·hd) in lag order, into o (nq·hd);
// then the current k, v replace the oldest slot (already read).
void attend_env(const FlashConfig& f, const FlashBlockWeights& b, int64_t t, const float* y, float* kv,
                float* o) {
  const int hd = f.head_dim, nq = f.n_heads, S = b.span, slots = S - 1;
  const float scale = 1.f / std::sqrt(float(hd));
  const int past = int(std::min<int64_t>(slots, t));
  const float* k0 = y + nq * hd;
  const float* v0 = k0 + hd;
  const float* kl[16];  // k of lag 0..past (v follows at +hd)
  kl[0] = nullptr;
  for (int lag = 1; lag <= past; ++lag) kl[lag] = kv + size_t((t - lag) % slots) * 2 * hd;
  for (int i = 0; i < nq; ++i) {
    const float* q = y + i * hd;
    const float* bias = b.lag_bias + i * S;
    float sc[16];
    sc[0] = dot(q, k0, hd) * scale + bias[0];
    float mx = sc[0];
    for (int lag = 1; lag <= past; ++lag) {
      sc[lag] = dot(q, kl[lag], hd) * scale + bias[lag];
      mx = std::max(mx, sc[lag]);
    }
    float sum = 0.f;
    for (int lag = 0; lag <= past; ++lag) sum += (sc[lag] = std::exp(sc[lag] - mx));
    const float inv = 1.f / sum;
    float* oi = o + i * hd;
    const float a0 = sc[0] * inv;
    for (int k = 0; k < hd; ++k) oi[k] = a0 * v0[k];
    for (int lag = 1; lag <= past; ++lag) {
      const float a = sc[lag] * inv;
      const float* v = kl[lag] + hd;
      for (int k = 0; k < hd; ++k) oi[k] += a * v[k];
    }
  }
  if (slots > 0) std::copy(k0, k0 + 2 * hd, kv + size_t(t % slots) * 2 * hd);
}

// Block b on environments [env0, env0 + M): h += Attn(Norm(h)) + FFN(Norm(h)) as two fused
// GEMMs; cache holds the block's (max_batch, S−1, 2·hd) slots.
void flash_block(const FlashConfig& f, const FlashBlockWeights& b, CpuContext& ctx, float* cache,
                 Scratch& s, int env0, int M) {
  const int hd = f.head_dim, nq = f.n_heads, ff = f.ffn_hidden, slots = b.span - 1;
  // z = Norm(h) (weight folded into w1), y = z W1ᵀ (M, n1)
  normalize_residual(f.norm, M, f.d_model, s);
  ctx.gemm(s, M, s.z, s.ldh, b.w1, 0.f, s.y, s.ldy);
  if (b.b1) add_bias(M, f.qkv_dim() + 2 * ff, b.b1, s.y, s.ldy);
  // attention per environment -> u[:, 0:nq·hd]
  for (int m = 0; m < M; ++m) {
    const int e = env0 + m;
    attend_env(f, b, ctx.frames[size_t(e)], s.y + size_t(m) * s.ldy, cache + size_t(e) * slots * 2 * hd,
               s.u + size_t(m) * s.ldu);
  }
  // gated unit -> u[:, nq·hd:], then h += [o | g] [Wo | Wd]ᵀ
  const float* gate = s.y + f.qkv_dim();
  glu(f.activation, M, ff, gate, gate + ff, s.ldy, s.u + nq * hd, s.ldu);
  ctx.gemm(s, M, s.u, s.ldu, b.w2, 1.f, s.h, s.ldh);
}

}  // namespace

void flash_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1) {
  const ModelConfig& c = model.config();
  const FlashConfig& f = c.flash;
  const FlashWeights& w = EngineInternals::weights(model).flash;
  const int M = env1 - env0, dout = c.output_dim, d = f.d_model, rh = f.readout_hidden;

  // inputs -> x̂ (M, din); a non-finite feature marks the environment
  for (int m = 0; m < M; ++m)
    if (!normalize_frame(model, ctx.job, env0 + m, s.x + size_t(m) * s.ldx)) ctx.diverged[size_t(env0 + m)] = 1;

  // embedding h = x̂ Eᵀ + b (M, d)
  ctx.gemm(s, M, s.x, s.ldx, w.embed_w, 0.f, s.h, s.ldh);
  add_bias(M, d, w.embed_b, s.h, s.ldh);
  // variable contacts: G_e, G_r, G_Δ of every environment into s.cg (engine.h)
  const bool contacts = c.contact.enabled();
  if (contacts) {
    contact_tile(model, ctx, s, env0, env1);
    add_rows(M, d, s.cg, s.ldcg, s.h, s.ldh);
  }

  float* cache = ctx.cache.data();
  for (const FlashBlockWeights& b : w.blocks) {
    flash_block(f, b, ctx, cache, s, env0, M);
    cache += size_t(ctx.max_batch) * (b.span - 1) * 2 * f.head_dim;
  }

  // readout r = SiLU(Norm(h) Rᵀ + b) (+ G_r), ŷ = r Hᵀ + b (+ G_Δ)
  normalize_residual(f.norm, M, d, s);
  ctx.gemm(s, M, s.z, s.ldh, w.readout_w, 0.f, s.r, s.ldr);
  add_bias(M, rh, w.readout_b, s.r, s.ldr);
  silu_inplace(M, rh, s.r, s.ldr);
  if (contacts) add_rows(M, rh, s.cg + 2 * d, s.ldcg, s.r, s.ldr);
  ctx.gemm(s, M, s.r, s.ldr, w.head_w, 0.f, s.o, s.ldo);
  add_bias(M, dout, w.head_b, s.o, s.ldo);
  if (contacts) add_rows(M, dout, s.cg + 2 * (d + rh), s.ldcg, s.o, s.ldo);

  finish_tile(model, ctx, s, env0, env1);
}

bool normalize_frame(const Model& model, const Job& job, int env, float* x) {
  const int din = model.input_dim();
  const float* in = job.inputs + size_t(env) * din;
  const float* mean = model.input_mean();
  const float* sd = model.input_std();
  bool finite = true;
  for (int k = 0; k < din; ++k) {
    x[k] = job.normalized ? in[k] : (in[k] - mean[k]) / sd[k];
    finite &= std::isfinite(x[k]);
  }
  return finite;
}

void finish_tile(const Model& model, CpuContext& ctx, const Scratch& s, int env0, int env1) {
  const Job& job = ctx.job;
  const int dout = model.output_dim();
  int64_t* frames = ctx.frames.data();
  uint8_t* diverged = ctx.diverged.data();
  const float* tm = model.target_mean();
  const float* ts = model.target_std();
  for (int e = env0; e < env1; ++e) {
    const float* o = s.o + size_t(e - env0) * s.ldo;
    bool finite = true;
    float* out = job.outputs ? job.outputs + size_t(e) * dout : nullptr;
    for (int k = 0; k < dout; ++k) {
      const float v = o[k] * ts[k] + tm[k];
      finite &= std::isfinite(v);
      if (out) out[k] = v;
    }
    if (!finite) diverged[e] = 1;
    ++frames[e];
  }
}

}  // namespace flashnerd::engine::cpu
