// The CPU backend's per-thread scratch and tile functions. A tile is a contiguous range of
// environments [env0, env1) processed start to finish by one worker with its own scratch,
// so activation memory scales with the tile, never with the batch.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace flashnerd::engine {

// Leading dimensions are rounded up to 16 floats (64 bytes).
inline int padded(int n) { return (n + 15) / 16 * 16; }

struct Context::Scratch {
  AlignedBuffer block;  // all buffers below, one allocation
  int rows = 0;         // GEMM rows this scratch holds (FlashNeRD: envs; NeRD: envs · window)
  int envs = 0;         // environments per tile
  // FlashNeRD, rows = envs
  float* x = nullptr;   // (rows, ldx) x̂ of the new frame            NeRD: (rows, ldx) window tokens x̂
  float* h = nullptr;   // (rows, ldh) residual stream                 NeRD: same, per token
  float* z = nullptr;   // (rows, ldh) normalized h
  float* y = nullptr;   // (rows, ldy) FlashNeRD [q.., k, v, gate, up]; NeRD qkv, then MLP hidden
  float* u = nullptr;   // (rows, ldu) FlashNeRD [o_0.., g] input of the fused [out|down] GEMM;
                        //             NeRD attention output (rows, d)
  float* zl = nullptr;  // (envs, ldh) NeRD: LN_f of the last position
  float* r = nullptr;   // (envs, ldr) readout / head hidden
  float* o = nullptr;   // (envs, ldo) standardized increments
  float* p = nullptr;   // (window) NeRD attention probabilities
  uint16_t* abf = nullptr;  // bf16 models: (round32(rows), round32(max K)) a GEMM input in bf16
  int ldx = 0, ldh = 0, ldy = 0, ldu = 0, ldr = 0, ldo = 0;
  // FlashNeRD variable contacts (rows = envs · K at most)
  float* crow = nullptr;  // (envs·K, kContactRowDim) the tile's valid rows, gathered
  float* ca = nullptr;    // (envs·K, ldca) row MLP hidden
  float* cphi = nullptr;  // (envs·K, ldphi) row features φ
  float* cs = nullptr;    // (envs·K, ldcs) slot scores
  float* cp = nullptr;    // (envs, ldcp) pooled p
  float* cg = nullptr;    // (envs, ldcg) [G_e | gate | G_r | gate | G_Δ | gate]
  int ldca = 0, ldphi = 0, ldcs = 0, ldcp = 0, ldcg = 0;
  std::vector<int> row_start;   // (envs + 1) first gathered row of each environment
  std::vector<int> row_link;    // (envs·K) link of each gathered row
};

namespace cpu {
// Process environments [env0, env1) of the context's current job.
void flash_tile(const Model& model, Context& ctx, Context::Scratch& s, int env0, int env1);
void nerd_tile(const Model& model, Context& ctx, Context::Scratch& s, int env0, int env1);
// Contact encoder and gates of environments [env0, env1): fills s.cg; G_e at column 0, G_r
// at 2d, G_Δ at 2d + 2r (exact zeros for an environment without rows).
void contact_tile(const Model& model, Context& ctx, Context::Scratch& s, int env0, int env1);
// Shared head of both tiles: frame x (input_dim) of environment env from the job, normalized
// unless the job's inputs already are; returns false when a feature is not finite.
bool normalize_frame(const Model& model, const Context::Job& job, int env, float* x);
// Shared tail of both tiles: de-normalize the standardized increments s.o into the job's
// outputs, flag environments with a non-finite result, count the frame in every history.
void finish_tile(const Model& model, Context& ctx, const Context::Scratch& s, int env0, int env1);
}  // namespace cpu

}  // namespace flashnerd::engine
