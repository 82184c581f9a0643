// Variable-contact encoder on the CPU, one tile of environments (engine.h has the formulas):
// gather the tile's valid rows into one matrix, row MLP as two GEMMs (normalization and link
// embedding folded into a per-link table), slot scores as one GEMM, masked softmax pooling
// per environment, then the three gated maps as one GEMM over the pooled vectors.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/cpu/backend.h"
#include "engine/cpu/kernels.h"

namespace flashnerd::engine::cpu {

void contact_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1) {
  const ModelConfig& c = model.config();
  const ContactEncoderConfig& k = c.contact;
  const ContactWeights& w = EngineInternals::weights(model).flash.contact;
  const ContactBatch& in = *ctx.job.contacts;
  const int M = env1 - env0, K = k.capacity, H = k.row_hidden, e = k.row_width, slots = k.slots;
  const int P = k.pooled_dim();
  const int G = 2 * (c.flash.d_model + c.flash.readout_hidden + c.output_dim);

  // gather the valid rows of the tile (padding is never read)
  int R = 0;
  for (int m = 0; m < M; ++m) {
    const int env = env0 + m, n = in.count[env];
    s.row_start[size_t(m)] = R;
    std::memcpy(s.crow + size_t(R) * kContactRowDim, in.rows + size_t(env) * K * kContactRowDim,
                sizeof(float) * size_t(n) * kContactRowDim);
    std::memcpy(&s.row_link[size_t(R)], in.link + size_t(env) * K, sizeof(int32_t) * size_t(n));
    R += n;
  }
  s.row_start[size_t(M)] = R;

  for (int m = 0; m < M; ++m) std::fill_n(s.cp + size_t(m) * s.ldcp, P, 0.f);
  if (R > 0) {
    // a = SiLU(row W1ᵀ + table[link]); φ = a W2ᵀ + b2; scores = φ (Q/√e)ᵀ
    ctx.gemm(R, H, kContactRowDim, s.crow, kContactRowDim, w.row_w, kContactRowDim, 0.f, s.ca, s.ldca);
    for (int r = 0; r < R; ++r) {
      float* a = s.ca + size_t(r) * s.ldca;
      const float* t = w.link_table + size_t(s.row_link[size_t(r)]) * H;
      for (int h = 0; h < H; ++h) a[h] += t[h];
    }
    silu_inplace(R, H, s.ca, s.ldca);
    ctx.gemm(R, e, H, s.ca, s.ldca, w.fc2_w, H, 0.f, s.cphi, s.ldphi);
    add_bias(R, e, w.fc2_b, s.cphi, s.ldphi);
    ctx.gemm(R, slots, e, s.cphi, s.ldphi, w.queries, e, 0.f, s.cs, s.ldcs);
    // masked softmax over each environment's rows, per slot; p_m = Σ α φ
    for (int m = 0; m < M; ++m) {
      const int r0 = s.row_start[size_t(m)], r1 = s.row_start[size_t(m) + 1];
      if (r0 == r1) continue;
      float* p = s.cp + size_t(m) * s.ldcp;
      for (int j = 0; j < slots; ++j) {
        float mx = -INFINITY;
        for (int r = r0; r < r1; ++r) mx = std::max(mx, s.cs[size_t(r) * s.ldcs + j]);
        float sum = 0.f;
        for (int r = r0; r < r1; ++r) sum += (s.cs[size_t(r) * s.ldcs + j] = std::exp(s.cs[size_t(r) * s.ldcs + j] - mx));
        const float inv = 1.f / sum;
        float* slot = p + size_t(j) * e;
        for (int r = r0; r < r1; ++r) {
          const float a = s.cs[size_t(r) * s.ldcs + j] * inv;
          const float* phi = s.cphi + size_t(r) * s.ldphi;
          for (int i = 0; i < e; ++i) slot[i] += a * phi[i];
        }
      }
    }
  }
  // [value | gate] pairs of G_e, G_r, G_Δ; value ⊙ sigmoid(gate) into the value columns
  ctx.gemm(M, G, P, s.cp, s.ldcp, w.gates, P, 0.f, s.cg, s.ldcg);
  const int widths[3] = {c.flash.d_model, c.flash.readout_hidden, c.output_dim};
  for (int m = 0; m < M; ++m) {
    float* g = s.cg + size_t(m) * s.ldcg;
    const bool none = s.row_start[size_t(m)] == s.row_start[size_t(m) + 1];
    for (int part = 0, off = 0; part < 3; off += 2 * widths[part], ++part) {
      float* value = g + off;
      const float* gate = value + widths[part];
      for (int i = 0; i < widths[part]; ++i)
        value[i] = none ? 0.f : value[i] / (1.f + std::exp(-gate[i]));  // exactly 0 without contacts
    }
  }
}

}  // namespace flashnerd::engine::cpu
