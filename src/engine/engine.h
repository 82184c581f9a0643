// The hand-written inference engine (no libtorch, no MuJoCo): steps B environments at once,
// one new frame per environment per call, for both architectures behind one contract.
//
//   auto model = engine::Model::load(dir);                  // immutable, shared by threads
//   engine::ContextOptions opt; opt.max_batch = 4096; opt.pool = &pool;
//   engine::Context ctx(*model, opt);                        // everything reserved here
//   engine::prime(*model, ctx, B, R, history, nullptr);      // R ground-truth frames
//   for (...) engine::step(*model, ctx, B, inputs, outputs); // never allocates
//
// THE MODEL (the formulas the libtorch training code implements; kept here in one place).
// Tensors use the PyTorch Linear convention: weight (out, in), y = x Wᵀ + b. GELU is the exact
// erf form 0.5 x (1 + erf(x / √2)) everywhere; SiLU(x) = x · sigmoid(x); ε = kNormEpsilon.
// Every frame x (input_dim, raw) is normalized x̂ = (x − input_mean) / input_std (the stored
// stds already include sqrt(var + 1e-5)); outputs are de-normalized y = ŷ · target_std +
// target_mean (raw one-step increments).
//
// FlashNeRD (docs/DESIGN.md §2), per frame t of an environment's history (t = 0 at its first frame):
//   h = x̂ embed.weightᵀ + embed.bias                                   (d)
//   for block l (span S):
//     z = Norm(h)          RMSNorm: h / sqrt(mean(h²) + ε) · w
//                          LayerNorm: (h − mean) / sqrt(var + ε) · w + b
//     qkv = z attn.qkv.weightᵀ, rows [q_0 (hd) .. q_{nq−1}, k (hd), v (hd)],  hd = head_dim
//     head i: s_j = q_i·k_j / sqrt(hd) + attn.lag_bias[i][t − j],  j = max(0, t−S+1) .. t
//             α = softmax_j(s), o_i = Σ_j α_j v_j;   a = [o_0 .. o_{nq−1}] attn.out.weightᵀ
//     [gate, up] = z ffn.gate_up.weightᵀ (f each); g = act(gate) · up,
//                  act = SiLU (swiglu) | GELU (geglu) | ReLU (reglu) | sigmoid (glu)
//                        | Mish(x) = x · tanh(softplus(x)) (mishglu);  f = g ffn.down.weightᵀ
//     h = h + a + f                              (no biases inside blocks)
//   r = SiLU(Norm_readout(h) readout.fc.weightᵀ + readout.fc.bias)      (readout_hidden)
//   ŷ = r head.weightᵀ + head.bias                                      (output_dim)
//
// Variable contacts (docs/DESIGN.md §4; config.contact.enabled()), per frame with n valid rows
// (row_k raw, kContactRowDim features; link_k its robot link):
//   r̂_k = (row_k − contact_mean) / contact_std
//   a_k = SiLU([r̂_k ; contact.link_embed[link_k]] contact.row.fc1.weightᵀ + fc1.bias)
//   φ_k = a_k contact.row.fc2.weightᵀ + fc2.bias                                (e)
//   slot m: α_mk = softmax_k(contact.pool.queries[m]·φ_k / √e) over the n valid rows,
//           P_m = Σ_k α_mk φ_k;   p = [P_0 .. P_{M−1}]  (M·e), p = 0 when n = 0
//   G_x(p) = (p x.value.weightᵀ) ⊙ sigmoid(p x.gate.weightᵀ), x = contact_embed |
//            contact_readout | contact_head (no biases: G(0) = 0)
//   h⁰ += G_embed(p) after the embedding; r += G_readout(p) after the readout's SiLU;
//   ŷ += G_head(p) before de-normalization.
//
// Optimized NeRD (docs/DESIGN.md §3): the last W = nerd.window frames (fewer, n, at the start of a
// history), oldest at position 0:
//   tok_p = x̂_p embed.weightᵀ + embed.bias + pos_embed[p]         p = 0 .. n−1
//   per block: h += CausalSelfAttn(LN1(h)); h += GELU(LN2(h) mlp.fc.weightᵀ) mlp.proj.weightᵀ
//     LN = LayerNorm with weight only (no bias); qkv = LN1(h) attn.qkv.weightᵀ = [q | k | v]
//     (d each), head h uses columns h·hd .. (h+1)·hd of each (hd = d / n_heads), scores / √hd,
//     causal; out = concat(heads) attn.out.weightᵀ
//   z = LN_f(h_{n−1}) lm_head.weightᵀ (d × d, no bias)
//   ŷ = ReLU(z head.fc1.weightᵀ + head.fc1.bias) head.fc2.weightᵀ + head.fc2.bias
//   (config.json version 1 artifacts: no embed.bias, no lm_head, GELU in the head)
//   The engine re-encodes the whole window at every step (that is the baseline measured).
//
// Precision (docs/DESIGN.md §8): fp32, or bf16 matrix products (weights packed in bf16, activations
// rounded to bf16 at each GEMM input, fp32 accumulation); the residual stream, norms, softmax,
// attention, the contact encoder and de-normalization stay fp32 in both. Kernels are chosen
// at run time from the CPU (cpu/cpu_features.h, an internal header): fp32 small-M products use the AVX-512 or
// AVX2 kernel, larger ones OpenBLAS; bf16 products use AMX tiles or AVX-512-BF16.
//
// Errors (CONTRIBUTING.md, rule 6): API misuse (batch > max batch, a context from another model, a corrupt
// artifact) throws flashnerd::Error; a non-finite input or output marks that environment
// diverged (a flag, cleared by reset_env) and is never thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/contact_row.h"
#include "core/enum_names.h"
#include "core/model_config.h"
#include "core/safetensors.h"
#include "engine/isa.h"

namespace flashnerd {
class ThreadPool;
}

namespace flashnerd::engine {

// GEMM backend of the fp32 path (docs/BENCHMARKS.md has the measurements behind Auto).
// Auto: own register-blocked kernel for tiles of few rows, OpenBLAS sgemm (one thread per
// call) above. Eigen is kept for comparison; it may allocate inside large products.
// RowInvariant: the own kernel at every size, so each output's summation order does not
// depend on where its row sits in the batch: an environment copied to another slot steps
// bit-identically to its source (planners fork one history into many samples).
enum class GemmBackend { Auto, OpenBLAS, Eigen, Naive, RowInvariant };
// The one name table (auto, openblas, eigen, naive, row-invariant): bench's --gemm, reports
// and the choices an error lists.
extern const EnumName<GemmBackend> kGemmBackendNames[5];
const char* gemm_backend_name(GemmBackend b);
GemmBackend parse_gemm_backend(const std::string& s);  // throws naming the choices

// Matrix-product precision of a model. Auto: bf16 where the CPU has native bf16
// (AVX-512-BF16 or AMX), fp32 elsewhere.
enum class Precision { Auto, FP32, BF16 };
extern const EnumName<Precision> kPrecisionNames[3];  // auto, fp32, bf16
const char* precision_name(Precision p);
Precision parse_precision(const std::string& s);  // throws naming the choices
// Auto resolved for this CPU; BF16 on a CPU without native bf16 throws with the fix.
Precision resolve_precision(Precision requested);

struct ModelOptions {
  Precision precision = Precision::FP32;
};

// Contact rows of the current frame of every environment (docs/DESIGN.md §4), raw as
// sim::build_contact_rows writes them: rows 0..count[e]−1 of environment e are detected
// contacts; the rest of its capacity K (config.contact.capacity) is padding, never read.
struct ContactBatch {
  const float* rows = nullptr;     // (batch, K, kContactRowDim)
  const int32_t* link = nullptr;   // (batch, K) robot link index of each row
  const int32_t* count = nullptr;  // (batch) valid rows, 0..K
};

// The internals (engine_impl.h, compute_backend.h; not installed): the weights re-laid for the
// kernels, a compute backend's part of a context, and the door the engine opens to them.
struct ModelWeights;
class BackendContext;
struct EngineInternals;

// Immutable after construction; share one across threads and contexts.
class Model {
 public:
  // Loads a model directory (config.json + weights.safetensors) through core's
  // ModelArtifact: every tensor's presence and shape is checked against the config; a
  // truncated or corrupted file throws flashnerd::Error naming the file and the problem.
  // options.precision chooses fp32 or bf16 products (resolve_precision: bf16 on a CPU
  // without native bf16 throws).
  static std::shared_ptr<const Model> load(const std::string& dir, const ModelOptions& options = {});
  // Every member of an ensemble directory (core/ensemble_manifest.h; a plain model directory
  // gives one), checked to step side by side.
  static std::vector<std::shared_ptr<const Model>> load_members(const std::string& dir,
                                                                const ModelOptions& options = {});
  // Random weights of config's shape (PyTorch-like init, norm weights near 1, lag biases and
  // positions nonzero), for benchmarks and tests. Empty normalization becomes mean 0 / std 1.
  static std::shared_ptr<const Model> random(const ModelConfig& config, uint64_t seed,
                                            const ModelOptions& options = {});
  // From tensors named and shaped as model_tensors(config) (checked).
  static std::shared_ptr<const Model> from_tensors(const ModelConfig& config,
                                                   const std::vector<NamedTensor>& tensors,
                                                   const ModelOptions& options = {});

  const ModelConfig& config() const { return config_; }
  Arch arch() const { return config_.arch; }
  int input_dim() const { return config_.input_dim; }
  int output_dim() const { return config_.output_dim; }
  Precision precision() const { return precision_; }  // FP32 or BF16, never Auto
  // The tensors as stored (model_tensors order), e.g. for save_model_artifact or reference().
  const std::vector<NamedTensor>& tensors() const { return tensors_; }
  const float* tensor(const std::string& name) const;  // throws naming the tensor if absent
  // Normalization (never empty here).
  const float* input_mean() const { return input_mean_.data(); }
  const float* input_std() const { return input_std_.data(); }
  const float* target_mean() const { return target_mean_.data(); }
  const float* target_std() const { return target_std_.data(); }

  // Bytes of the weights re-laid for the kernels (fp32 views and bf16 panels).
  size_t packed_bytes() const;

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

 private:
  friend struct EngineInternals;
  Model();

  ModelConfig config_;
  std::vector<NamedTensor> tensors_;         // views into weights_->original
  std::vector<float> input_mean_, input_std_, target_mean_, target_std_;
  Precision precision_ = Precision::FP32;
  std::unique_ptr<ModelWeights> weights_;   // as stored and packed for the kernels
};

// A valid config of preset's shape for a robot of input_dim / output_dim features (fixed-base
// placeholder layout), for benchmarks and tests of random models.
ModelConfig synthetic_config(Arch arch, ModelPreset preset, int input_dim, int output_dim);

struct ContextOptions {
  int max_batch = 1;                     // environments this context can step at once
  // The compute backend (engine/compute_backend.h): "cpu", the kernels below; "reference",
  // the reference forward pass over each history (slow; for checking the others).
  std::string backend = "cpu";
  ThreadPool* pool = nullptr;            // threads over the batch; nullptr: the caller only
  int tile_rows = 0;                     // rows per GEMM tile (envs, NeRD: env·window); 0: auto
  GemmBackend gemm = GemmBackend::Auto;        // fp32 products
  // Highest kernel level to use (tests and benchmarks of slower variants); the CPU's own
  // limit applies too. A bf16 model needs at least AVX512_BF16.
  Isa max_isa = Isa::AMX_BF16;
  // A GEMM of a batch that fits one tile is split over the pool's threads by columns only
  // when it has at least this many multiply-adds (M·N·K); −1: never split; 0 (automatic):
  // 2^16 when the pool's measured hand-off is fast (<= 5 µs), never otherwise.
  int64_t parallel_min_macs = 0;
};

// Per-rollout mutable state, reserved for its largest batch at construction: caches,
// per-environment history counters and divergence flags, per-thread activation scratch.
// One context per concurrent user; it refers to the model it was made for (keep it alive).
class Context {
 public:
  Context(const Model& model, const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Model& model() const { return *model_; }
  int max_batch() const { return max_batch_; }
  int threads() const { return threads_; }
  int tile_rows() const { return tile_rows_; }
  GemmBackend gemm_backend() const { return gemm_; }
  Precision precision() const { return model_->precision(); }
  // The kernels this context runs, e.g. "fp32: avx512 small-M + openblas" or
  // "bf16: amx_bf16 (M >= 16) + avx512_bf16".
  std::string kernel_summary() const;

  // Frames in environment env's history since its last reset (saturates at nothing: it
  // counts every frame; the caches keep only what the model looks at).
  int64_t frames(int env) const { return frames_[env]; }
  // 1 when env received a non-finite input or produced a non-finite output since its reset.
  bool diverged(int env) const { return diverged_[env] != 0; }
  const uint8_t* diverged_flags() const { return diverged_; }  // (max_batch)
  int diverged_count(int batch) const;

  // Memory: history cache (FlashNeRD KV slots / NeRD input window) per environment, one
  // frame's activations per environment (a tile row), and everything this context holds.
  size_t cache_bytes_per_env() const;
  // The history cache one environment of a model of config `c` needs, before any context
  // exists: what callers check against the machine's memory before allocating a batch.
  static size_t history_bytes_per_env(const ModelConfig& c);
  size_t activation_bytes_per_env() const;
  size_t total_bytes() const;

  // Every environment's history (caches, frame counts, divergence flags) as bytes, and back,
  // for checkpoints; load_history refuses bytes of another model shape or batch size.
  std::string save_history() const;
  void load_history(const std::string& bytes);

 private:
  friend struct EngineInternals;
  std::unique_ptr<BackendContext> state_;  // everything the compute backend reserves and mutates
  // copies of state_'s sizes and views of its history, so the queries above stay inline
  const Model* model_;
  int max_batch_ = 0;
  int threads_ = 1;
  int tile_rows_ = 0;
  GemmBackend gemm_ = GemmBackend::Auto;
  const int64_t* frames_ = nullptr;    // (max_batch) frames since reset
  const uint8_t* diverged_ = nullptr;  // (max_batch)
};

// One streaming step for environments 0..batch−1: inputs (batch, input_dim) raw frames,
// outputs (batch, output_dim) raw increments. Throws flashnerd::Error on misuse (batch out of
// range, a context made for another model, null pointers); never allocates.
void step(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs);
// The same for a model with variable contacts: the current frame's contact rows of every
// environment (required exactly when model.config().contact.enabled()). A count outside
// [0, K] or a link outside the model's links throws.
void step(const Model& model, Context& ctx, int batch, const float* inputs,
          const ContactBatch* contacts, float* outputs);
// The same with inputs already normalized (x̂), for model-only benchmarks.
void step_normalized(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs);
// Pushes `frames` ground-truth frames, inputs (frames, batch, input_dim) raw, through the
// history; outputs (batch, output_dim) receives the prediction after the last one (may be
// nullptr).
void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           float* outputs);
// With contacts: contacts[f] holds frame f's rows of every environment (f = 0..frames−1).
void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           const ContactBatch* contacts, float* outputs);
// Environment env starts a new, empty history; every other environment is untouched.
void reset_env(Context& ctx, int env);
void reset_all(Context& ctx);
// Environment dst takes a copy of environment src's history (caches, frame count, divergence
// flag): both then step alike. Planners fork one state into many samples this way.
void copy_env(Context& ctx, int src, int dst);
// The same across two contexts of one model (any batch sizes): a history built in a small
// context (e.g. primed with one environment's recorded frames) becomes env dst's of another.
void copy_env(const Context& from, int src, Context& to, int dst);

}  // namespace flashnerd::engine
