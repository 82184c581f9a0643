// Optimized NeRD step on the CPU, one tile of environments (engine.h has the formulas): the
// new frame x̂ goes into the environment's ring of the last W inputs (slot = frame mod W), the
// window is gathered oldest-first into tokens (positions n..W−1 of a short history are zero
// padding: causal attention keeps them out of the real positions), and the whole window is
// re-encoded with the same kernels as FlashNeRD: fused qkv GEMM with LN1 folded in, causal
// attention per environment and head, residual GEMMs accumulating in place, GELU MLP with
// LN2 folded in; LN_f and the head run on each environment's last real position only (the
// embedding bias is folded into the positions, LN_f and lm_head into head.fc1, at load).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/cpu/backend.h"
#include "engine/cpu/kernels.h"

namespace flashnerd::engine::cpu {

void nerd_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1) {
  const ModelConfig& c = model.config();
  const NerdConfig& n = c.nerd;
  const NerdWeights& w = EngineInternals::weights(model).nerd;
  const Job& job = ctx.job;
  const int M = env1 - env0, W = n.window, T = M * W, din = c.input_dim, dout = c.output_dim;
  const int d = n.d_model, nh = n.n_heads, hd = n.head_dim(), hid = n.mlp_hidden;
  const float scale = 1.f / std::sqrt(float(hd));
  int64_t* frames = ctx.frames.data();
  uint8_t* diverged = ctx.diverged.data();
  float* ring = ctx.cache.data();  // (max_batch, W, din)

  // new frame -> ring; window -> tokens x (T, din), oldest first
  for (int m = 0; m < M; ++m) {
    const int e = env0 + m;
    const int64_t t = frames[e];
    float* er = ring + size_t(e) * W * din;
    if (!normalize_frame(model, job, e, er + size_t(t % W) * din)) diverged[e] = 1;
    const int len = int(std::min<int64_t>(t + 1, W));
    for (int p = 0; p < W; ++p) {
      float* x = s.x + size_t(m * W + p) * s.ldx;
      if (p < len)
        std::memcpy(x, er + size_t((t + 1 - len + p) % W) * din, size_t(din) * sizeof(float));
      else
        std::memset(x, 0, size_t(din) * sizeof(float));
    }
  }

  // tokens h = x̂ Eᵀ + pos (T, d)
  ctx.gemm(s, T, s.x, s.ldx, w.embed_w, 0.f, s.h, s.ldh);
  for (int m = 0; m < M; ++m)
    for (int p = 0; p < W; ++p) add_bias(1, d, w.pos + size_t(p) * d, s.h + size_t(m * W + p) * s.ldh, s.ldh);

  for (int l = 0; l < n.n_layers; ++l) {
    const NerdBlockWeights& b = w.blocks[size_t(l)];
    // attention: y = LN1(h) Wqkvᵀ (T, 3d); u = causal softmax attention (T, d); h += u Woᵀ
    layer_normalize(T, d, s.h, s.ldh, s.z, s.ldh);
    ctx.gemm(s, T, s.z, s.ldh, b.qkv, 0.f, s.y, s.ldy);
    for (int m = 0; m < M; ++m) {
      const float* ye = s.y + size_t(m * W) * s.ldy;
      float* ue = s.u + size_t(m * W) * s.ldu;
      for (int h = 0; h < nh; ++h) {
        for (int p = 0; p < W; ++p) {
          const float* q = ye + size_t(p) * s.ldy + h * hd;
          float mx = -INFINITY;
          for (int j = 0; j <= p; ++j) {
            s.p[j] = dot(q, ye + size_t(j) * s.ldy + d + h * hd, hd) * scale;
            mx = std::max(mx, s.p[j]);
          }
          float sum = 0.f;
          for (int j = 0; j <= p; ++j) sum += (s.p[j] = std::exp(s.p[j] - mx));
          const float inv = 1.f / sum;
          float* o = ue + size_t(p) * s.ldu + h * hd;
          for (int k = 0; k < hd; ++k) o[k] = 0.f;
          for (int j = 0; j <= p; ++j) {
            const float a = s.p[j] * inv;
            const float* v = ye + size_t(j) * s.ldy + 2 * d + h * hd;
            for (int k = 0; k < hd; ++k) o[k] += a * v[k];
          }
        }
      }
    }
    ctx.gemm(s, T, s.u, s.ldu, b.out, 1.f, s.h, s.ldh);
    // MLP: h += GELU(LN2(h) Wfcᵀ) Wprojᵀ
    layer_normalize(T, d, s.h, s.ldh, s.z, s.ldh);
    ctx.gemm(s, T, s.z, s.ldh, b.fc, 0.f, s.y, s.ldy);
    gelu_inplace(T, hid, s.y, s.ldy);
    ctx.gemm(s, T, s.y, s.ldy, b.proj, 1.f, s.h, s.ldh);
  }

  // last real position of each environment: LN_f, head MLP
  for (int m = 0; m < M; ++m) {
    const int len = int(std::min<int64_t>(frames[env0 + m] + 1, W));
    layer_normalize(1, d, s.h + size_t(m * W + len - 1) * s.ldh, s.ldh, s.zl + size_t(m) * s.ldh, s.ldh);
  }
  const int hh = n.head_hidden;
  ctx.gemm(s, M, s.zl, s.ldh, w.fc1, 0.f, s.r, s.ldr);
  add_bias(M, hh, w.fc1_b, s.r, s.ldr);
  if (n.head_relu) {
    relu_inplace(M, hh, s.r, s.ldr);
  } else {
    gelu_inplace(M, hh, s.r, s.ldr);
  }
  ctx.gemm(s, M, s.r, s.ldr, w.fc2, 0.f, s.o, s.ldo);
  add_bias(M, dout, w.fc2_b, s.o, s.ldo);

  finish_tile(model, ctx, s, env0, env1);
}

}  // namespace flashnerd::engine::cpu
