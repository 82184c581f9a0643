// The engine's internals behind the public engine.h: the weights re-laid for the kernels
// (ModelWeights), the CPU backend's part of a context (CpuContext: history cache, per-thread
// scratch, the job of the current call, the GEMM dispatch; engine/compute_backend.h is the
// interface it implements) and the one door to the internals from the public classes
// (EngineInternals). Included by the engine's own sources only; it is not installed, so
// library users see the public API alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/compute_backend.h"
#include "engine/engine.h"

namespace flashnerd::engine {

// A 64-byte-aligned float block.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t floats);  // zero-filled
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> data_;
  size_t size_ = 0;
};

// One GEMM operand W (N, K) of the networks, C = A · Wᵀ: fp32 rows (leading dimension K)
// and, in a bf16 model, the same weight packed for the bf16 kernels (cpu/bf16.h layout).
struct GemmWeight {
  const float* f32 = nullptr;      // (N, K)
  const uint16_t* bf16 = nullptr;  // packed panels; nullptr in an fp32 model
  int N = 0, K = 0;
};

// Kernel layout of the weights: views into ModelWeights::packed (model.cpp packs them).
struct FlashBlockWeights {
  int span = 1;                  // S_l
  GemmWeight w1;                 // (N1, d) rows [q_0..q_{nq-1}, k, v, gate, up]; norm weight folded in
  const float* b1 = nullptr;     // (N1) LayerNorm bias folded (W1 · b); nullptr for RMSNorm
  const float* lag_bias = nullptr;  // (nq, S)
  GemmWeight w2;                 // (d, nq·hd + f) = [attn.out.weight | ffn.down.weight]
};
struct ContactWeights {
  const float* row_w = nullptr;       // (Hφ, kContactRowDim) fc1 row columns / contact_std
  const float* link_table = nullptr;  // (links, Hφ) fc1 link columns · embed[l] + fc1.bias
                                      //   − row_w · contact_mean (normalization folded)
  const float* fc2_w = nullptr;       // (e, Hφ)
  const float* fc2_b = nullptr;       // (e)
  const float* queries = nullptr;     // (M, e) scaled by 1/√e
  const float* gates = nullptr;       // (2(d + r + out), M·e) rows [embed.value; embed.gate;
                                      //   readout.value; readout.gate; head.value; head.gate]
};
struct FlashWeights {
  GemmWeight embed_w;                // (d, input_dim)
  const float* embed_b = nullptr;    // (d)
  std::vector<FlashBlockWeights> blocks;
  GemmWeight readout_w;              // (r, d) readout norm weight folded in
  const float* readout_b = nullptr;  // (r) readout.fc.bias (+ W · norm bias for LayerNorm)
  GemmWeight head_w;                 // (output_dim, r)
  const float* head_b = nullptr;     // (output_dim)
  ContactWeights contact;            // config.contact.enabled() only
};
struct NerdBlockWeights {
  GemmWeight qkv;   // (3d, d) ln1 weight folded in
  GemmWeight out;   // (d, d)
  GemmWeight fc;    // (mlp_hidden, d) ln2 weight folded in
  GemmWeight proj;  // (d, mlp_hidden)
};
struct NerdWeights {
  GemmWeight embed_w;              // (d, input_dim)
  const float* pos = nullptr;      // (window, d)
  std::vector<NerdBlockWeights> blocks;
  GemmWeight fc1;                  // (head_hidden, d) ln_f weight folded in
  const float* fc1_b = nullptr;    // (head_hidden)
  GemmWeight fc2;                  // (output_dim, head_hidden)
  const float* fc2_b = nullptr;    // (output_dim)
};

// Every weight block of a Model: the tensors as stored and their kernel layout.
struct ModelWeights {
  AlignedBuffer original;  // every tensor, model_tensors order (Model::tensors() views it)
  AlignedBuffer packed;    // kernel layout, one block
  AlignedBuffer bf16;      // bf16 models: every GemmWeight packed (as uint16)
  int max_gemm_k = 0;      // largest K over the network GEMMs (sizes the bf16 scratch)
  FlashWeights flash;      // arch FlashNeRD
  NerdWeights nerd;        // arch NeRD
};

// Leading dimensions are rounded up to 16 floats (64 bytes).
inline int padded(int n) { return (n + 15) / 16 * 16; }

// One worker's activations for a tile. A tile is a contiguous range of environments
// [env0, env1) processed start to finish by one worker, so activation memory scales with the
// tile, never with the batch.
struct Scratch {
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

// Floats of one environment's history cache in the CPU layout (below).
size_t cache_floats_per_env(const ModelConfig& c);

// The CPU backend's part of a Context, reserved for its largest batch at construction; the
// tiles read and write it through the fields below and multiply through gemm().
class CpuContext : public BackendContext {
 public:
  CpuContext(const Model& model, const ContextOptions& options);

  // BackendContext
  void run(const Job& job) override;
  void copy_cache(int src, BackendContext& to, int dst) const override;
  void save_cache(BlobWriter& w) const override;
  void load_cache(BlobReader& r) override;
  const char* backend_name() const override { return "cpu"; }
  std::string kernel_summary() const override;
  int threads() const override { return int(scratch.size()); }
  int tile_rows() const override { return rows_per_tile; }
  size_t cache_bytes_per_env() const override;
  size_t activation_bytes_per_env() const override;
  size_t bytes() const override;

  int rows_per_tile = 0;  // GEMM rows per tile
  int tile_envs = 0;     // environments per tile
  GemmBackend gemm_backend = GemmBackend::Auto;
  ThreadPool* pool = nullptr;
  Isa small_isa = Isa::AVX2;  // fp32 small-M kernel level
  Isa bf16_isa = Isa::AVX2;   // bf16 kernel level for M >= kAmxMinRows (AMX or AVX512_BF16)
  // history, (max_batch, ...) per environment
  AlignedBuffer cache;  // FlashNeRD: per block (max_batch, S_l−1, 2·hd) [k | v] slots, slot =
                        // frame mod (S_l−1); NeRD: (max_batch, window, input_dim) x̂, slot = frame mod window
  std::vector<std::unique_ptr<Scratch>> scratch;  // one per worker thread
  Job job;  // of the current call

  // C = beta·C + A·Wᵀ through the context's backend; for small batches (one tile, several
  // threads) the columns are split over the threads so the weights are streamed once.
  void gemm(int M, int N, int K, const float* A, int lda, const float* W, int ldw, float beta,
            float* C, int ldc);
  // C (M, W.N) = beta·C + A · Wᵀ in the model's precision; s is the calling tile's scratch
  // (its bf16 buffer holds A rounded to bf16).
  void gemm(Scratch& s, int M, const float* A, int lda, const GemmWeight& W, float beta, float* C,
            int ldc);

 private:
  struct GemmArgs {
    int M, N, K, lda, ldw, ldc;
    const float *A, *W;
    const uint16_t* Wp;  // bf16 panels (bf16 models)
    float beta;
    float* C;
  };
  // columns [n0, n1) of g on the calling thread; abf: that thread's bf16 scratch
  void gemm_columns(const GemmArgs& g, int n0, int n1, uint16_t* abf);
  // g whole: split over the pool by columns when the batch is small and g is large enough
  void run_gemm(const GemmArgs& g, uint16_t* abf);
  void run_tiles(int64_t begin, int64_t end, int worker);

  int64_t parallel_min_macs_ = -1;  // resolved ContextOptions::parallel_min_macs
  int64_t job_tiles_ = 0;
  std::function<void(int64_t, int64_t, int)> tile_fn_;  // built once: no allocation per call
  // column-split GEMMs of a small batch (one tile on the caller, GEMM columns over threads)
  bool split_columns_ = false;
  GemmArgs gemm_args_{};
  std::function<void(int64_t, int64_t, int)> gemm_fn_;
};

// The public classes open their internals to this struct alone.
struct EngineInternals {
  static const ModelWeights& weights(const Model& model) { return *model.weights_; }
  static BackendContext& state(Context& ctx) { return *ctx.state_; }
  static const BackendContext& state(const Context& ctx) { return *ctx.state_; }
};

}  // namespace flashnerd::engine
