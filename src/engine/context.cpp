// Context: everything a rollout mutates, reserved for the largest batch at construction, and
// the public step/prime/reset entry points (argument checks, then the CPU backend's tiles).
#include <algorithm>
#include <cmath>

#include "core/blob.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cpu/backend.h"
#include "engine/cpu/bf16.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/kernel_variants.h"
#include "engine/cpu/kernels.h"
#include "engine/engine_impl.h"

namespace flashnerd::engine {

namespace {

// Default GEMM rows per tile (measured, docs/BENCHMARKS.md): large enough for OpenBLAS to
// reach its rate, small enough that a tile's activations stay in L2/L3.
int default_tile_rows(const ModelConfig& c) { return c.arch == Arch::FlashNeRD ? 256 : 320; }

// Below this many GEMM rows per thread, a batch is split by GEMM columns instead of by
// environments (weights streamed once per step rather than once per thread).
constexpr int kSplitRows = 64;

// A column-split GEMM pays a thread hand-off: about a microsecond with the spinning pool on
// idle cores, milliseconds when another process holds the cores and the workers wait for the
// scheduler (measured on the 2-core Zen 5 VM, docs/BENCHMARKS.md "Threads at small batch":
// B = 1 of paper-cartpole in fp32: 96 µs split over two idle cores, 145 µs on one, 2.0 ms split with
// the second core busy). So the context measures the pool's hand-off when it is created and
// splits products of at least kParallelMinMacs multiply-adds only where it is fast.
constexpr int64_t kParallelMinMacs = int64_t(1) << 16;
constexpr double kFastHandoffMicroseconds = 5.0;

// AMX tiles hold 16 rows: below that the AVX-512-BF16 kernel wastes less.
constexpr int kAmxMinRows = 16;

// Sizes the scratch buffers of one worker for `envs` environments per tile.
std::unique_ptr<Scratch> make_scratch(const Model& model, int envs) {
  const ModelConfig& c = model.config();
  auto s = std::make_unique<Scratch>();
  s->envs = envs;
  size_t total = 0;
  std::vector<std::pair<float**, size_t>> views;
  auto add = [&](float** p, size_t n) {
    views.push_back({p, n});
    total += (n + 15) / 16 * 16;
  };
  s->ldx = padded(c.input_dim);
  s->ldo = padded(c.output_dim);
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    s->rows = envs;
    s->ldh = padded(f.d_model);
    s->ldy = padded(f.qkv_dim() + 2 * f.ffn_hidden);
    s->ldu = padded(f.n_heads * f.head_dim + f.ffn_hidden);
    s->ldr = padded(f.readout_hidden);
    add(&s->x, size_t(envs) * s->ldx);
    add(&s->h, size_t(envs) * s->ldh);
    add(&s->z, size_t(envs) * s->ldh);
    add(&s->y, size_t(envs) * s->ldy);
    add(&s->u, size_t(envs) * s->ldu);
    add(&s->r, size_t(envs) * s->ldr);
    add(&s->o, size_t(envs) * s->ldo);
    if (c.contact.enabled()) {
      const ContactEncoderConfig& k = c.contact;
      const size_t rows = size_t(envs) * size_t(k.capacity);
      s->ldca = padded(k.row_hidden);
      s->ldphi = padded(k.row_width);
      s->ldcs = padded(k.slots);
      s->ldcp = padded(k.pooled_dim());
      s->ldcg = padded(2 * (f.d_model + f.readout_hidden + c.output_dim));
      add(&s->crow, rows * kContactRowDim);
      add(&s->ca, rows * s->ldca);
      add(&s->cphi, rows * s->ldphi);
      add(&s->cs, rows * s->ldcs);
      add(&s->cp, size_t(envs) * s->ldcp);
      add(&s->cg, size_t(envs) * s->ldcg);
      s->row_start.assign(size_t(envs) + 1, 0);
      s->row_link.assign(rows, 0);
    }
  } else {
    const NerdConfig& n = c.nerd;
    s->rows = envs * n.window;
    s->ldh = padded(n.d_model);
    s->ldy = padded(std::max(3 * n.d_model, n.mlp_hidden));
    s->ldu = padded(n.d_model);
    s->ldr = padded(n.head_hidden);
    add(&s->x, size_t(s->rows) * s->ldx);
    add(&s->h, size_t(s->rows) * s->ldh);
    add(&s->z, size_t(s->rows) * s->ldh);
    add(&s->y, size_t(s->rows) * s->ldy);
    add(&s->u, size_t(s->rows) * s->ldu);
    add(&s->zl, size_t(envs) * s->ldh);
    add(&s->r, size_t(envs) * s->ldr);
    add(&s->o, size_t(envs) * s->ldo);
    add(&s->p, size_t(n.window));
  }
  float* abf = nullptr;  // bf16 elements, two per float slot
  if (model.precision() == Precision::BF16)
    add(&abf, (cpu::bf16_scratch_elems(s->rows, EngineInternals::weights(model).max_gemm_k) + 1) / 2);
  s->block = AlignedBuffer(total);
  size_t off = 0;
  for (auto& v : views) {
    *v.first = s->block.data() + off;
    off += (v.second + 15) / 16 * 16;
  }
  s->abf = reinterpret_cast<uint16_t*>(abf);
  return s;
}

size_t cache_floats_per_env(const ModelConfig& c) {
  if (c.arch == Arch::FlashNeRD) {
    size_t n = 0;
    for (int s : c.flash.spans) n += size_t(s - 1) * 2 * size_t(c.flash.head_dim);
    return n;
  }
  return size_t(c.nerd.window) * size_t(c.input_dim);
}

}  // namespace

ContextState::ContextState(const Model& model, const ContextOptions& options)
    : model(model), gemm_backend(options.gemm), pool(options.pool) {
  const CpuFeatures& cpu = cpu_features();
  const Isa limit = Isa(std::min(int(cpu.best), int(options.max_isa)));
  small_isa = int(limit) >= int(Isa::AVX512) ? Isa::AVX512 : Isa::AVX2;
  if (model.precision() == Precision::BF16) {
    FN_CHECK(int(limit) >= int(Isa::AVX512_BF16), "engine context: this model computes in bf16, ",
             "which needs AVX-512-BF16 or AMX; kernels are limited to ", isa_name(limit),
             " here; load the model with precision fp32");
    bf16_isa = limit == Isa::AMX_BF16 ? Isa::AMX_BF16 : Isa::AVX512_BF16;
  }
  if (options.parallel_min_macs != 0)
    parallel_min_macs_ = options.parallel_min_macs;
  else if (pool && pool->size() > 1)
    parallel_min_macs_ = pool->handoff_microseconds() <= kFastHandoffMicroseconds ? kParallelMinMacs : -1;
  else
    parallel_min_macs_ = -1;
  const ModelConfig& c = model.config();
  FN_CHECK(options.max_batch >= 1, "engine context: max_batch must be at least 1, got ",
           options.max_batch);
  FN_CHECK(options.tile_rows >= 0, "engine context: tile_rows must be >= 0 (0 = automatic), got ",
           options.tile_rows);
  if (c.arch == Arch::FlashNeRD)
    for (int span : c.flash.spans)
      FN_CHECK(span <= 16, "engine context: block span ", span, " exceeds the engine's limit of 16");
  max_batch = options.max_batch;
  tile_rows = options.tile_rows > 0 ? options.tile_rows : default_tile_rows(c);
  const int rows_per_env = c.arch == Arch::FlashNeRD ? 1 : c.nerd.window;
  tile_envs = std::max(1, std::min(tile_rows / rows_per_env, max_batch));
  tile_rows = tile_envs * rows_per_env;
  cpu::use_single_threaded_blas();

  cache = AlignedBuffer(size_t(max_batch) * cache_floats_per_env(c));
  frames.assign(size_t(max_batch), 0);
  diverged.assign(size_t(max_batch), 0);
  const int threads = pool ? pool->size() : 1;
  for (int i = 0; i < threads; ++i) scratch.push_back(make_scratch(model, tile_envs));

  gemm_fn_ = [this](int64_t begin, int64_t end, int worker) {
    const GemmArgs& g = gemm_args_;
    const int64_t parts = pool->size();
    // columns [n0, n1) of this worker: multiples of 8 (fp32) or of a bf16 column block
    const int step = g.Wp ? cpu::kBf16Block : 8;
    const int n0 = int(g.N * begin / parts) / step * step;
    const int n1 = end == parts ? g.N : int(g.N * end / parts) / step * step;
    if (n1 > n0) gemm_columns(g, n0, n1, scratch[size_t(worker)]->abf);
  };
  tile_fn_ = [this](int64_t begin, int64_t end, int worker) { run_tiles(begin, end, worker); };
}

void ContextState::run_tiles(int64_t begin, int64_t end, int worker) {
  const int batch = job.batch;
  const int per = int((batch + job_tiles_ - 1) / job_tiles_);
  Scratch& s = *scratch[size_t(worker)];
  for (int64_t t = begin; t < end; ++t) {
    const int e0 = int(t) * per, e1 = std::min(batch, e0 + per);
    if (e0 >= e1) continue;
    if (model.arch() == Arch::FlashNeRD)
      cpu::flash_tile(model, *this, s, e0, e1);
    else
      cpu::nerd_tile(model, *this, s, e0, e1);
  }
}

void ContextState::gemm_columns(const GemmArgs& g, int n0, int n1, uint16_t* abf) {
  if (!g.Wp) {
    cpu::gemm_nt(gemm_backend, g.M, n1 - n0, g.K, g.A, g.lda, g.W + size_t(n0) * g.ldw, g.ldw, g.beta,
                 g.C + n0, g.ldc, small_isa);
    return;
  }
  // n0 is a multiple of the bf16 column block: its panels start at n0 / 16
  const uint16_t* wp = g.Wp + size_t(n0 / 16) * size_t(cpu::bf16_padded(g.K)) * 16;
  if (bf16_isa == Isa::AMX_BF16 && g.M >= kAmxMinRows)
    cpu::gemm_bf16_amx(g.M, n1 - n0, g.K, g.A, g.lda, wp, g.beta, g.C + n0, g.ldc, abf);
  else
    cpu::gemm_bf16_avx512(g.M, n1 - n0, g.K, g.A, g.lda, wp, g.beta, g.C + n0, g.ldc, abf);
}

void ContextState::run_gemm(const GemmArgs& g, uint16_t* abf) {
  // Columns are split only over the engine's own kernels, whose columns are computed alike
  // whatever the split; an external BLAS may pick other kernels for narrower products, and a
  // split decided by measured hand-off time must never change the bits.
  const bool own_kernel = g.Wp != nullptr || (gemm_backend == GemmBackend::Auto && g.M <= cpu::kSmallGemmRows);
  if (split_columns_ && own_kernel && g.N >= 64 && parallel_min_macs_ >= 0 &&
      int64_t(g.M) * g.N * g.K >= parallel_min_macs_) {
    gemm_args_ = g;
    pool->parallel_for(pool->size(), gemm_fn_);  // each worker uses its own bf16 scratch
    return;
  }
  gemm_columns(g, 0, g.N, abf);
}

void ContextState::gemm(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                        float beta, float* C, int ldc) {
  run_gemm({M, N, K, lda, ldw, ldc, A, W, nullptr, beta, C}, nullptr);
}

void ContextState::gemm(Scratch& s, int M, const float* A, int lda, const GemmWeight& W, float beta,
                        float* C, int ldc) {
  const uint16_t* wp = model.precision() == Precision::BF16 ? W.bf16 : nullptr;
  run_gemm({M, W.N, W.K, lda, W.K, ldc, A, W.f32, wp, beta, C}, s.abf);
}

void ContextState::run(const Job& next) {
  job = next;
  // Tiles: a multiple of the thread count (balanced contiguous chunks), each at most
  // tile_envs environments.
  const int64_t threads = pool ? pool->size() : 1;
  // Small batch (fits one tile, fewer than kSplitRows GEMM rows per thread if split by
  // environments): one tile on the caller, GEMM columns over the threads, so the weights
  // are read once per step instead of once per thread.
  split_columns_ = threads > 1 && job.batch <= tile_envs &&
                   job.batch * (tile_rows / tile_envs) < kSplitRows * threads;
  if (split_columns_) {
    job_tiles_ = 1;
    run_tiles(0, 1, 0);
    split_columns_ = false;
    return;
  }
  const int64_t per_thread = std::max<int64_t>(1, (job.batch + threads * tile_envs - 1) / (threads * tile_envs));
  job_tiles_ = std::min<int64_t>(job.batch, threads * per_thread);
  if (pool && job_tiles_ > 1)
    pool->parallel_for(job_tiles_, tile_fn_);
  else
    run_tiles(0, job_tiles_, 0);
}

Context::Context(const Model& model, const ContextOptions& options)
    : state_(std::make_unique<ContextState>(model, options)),
      model_(&model),
      max_batch_(state_->max_batch),
      threads_(int(state_->scratch.size())),
      tile_rows_(state_->tile_rows),
      gemm_(state_->gemm_backend),
      frames_(state_->frames.data()),
      diverged_(state_->diverged.data()) {}

Context::~Context() = default;

std::string Context::kernel_summary() const {
  const ContextState& st = *state_;
  if (model_->precision() == Precision::BF16)
    return st.bf16_isa == Isa::AMX_BF16 ? str_cat("bf16: amx_bf16 (M >= ", kAmxMinRows, "), avx512_bf16")
                                        : "bf16: avx512_bf16";
  const std::string small = std::string(isa_name(st.small_isa)) + " small-M";
  switch (gemm_) {
    case GemmBackend::Auto: return str_cat("fp32: ", small, " (M <= ", cpu::kSmallGemmRows, "), openblas");
    default: return std::string("fp32: ") + gemm_backend_name(gemm_);
  }
}

int Context::diverged_count(int batch) const {
  int n = 0;
  for (int i = 0; i < std::min(batch, max_batch_); ++i) n += diverged_[i];
  return n;
}

std::string Context::save_history() const {
  BlobWriter w;
  w.put(state_->cache.data(), state_->cache.size());
  w.put(state_->frames);
  w.put(state_->diverged);
  return w.bytes();
}

void Context::load_history(const std::string& bytes) {
  BlobReader r(bytes, "engine context history");
  r.get(state_->cache.data(), state_->cache.size());
  r.get(state_->frames);  // in place: frames_ and diverged_ stay valid
  r.get(state_->diverged);
  r.expect_end();
}

size_t Context::history_bytes_per_env(const ModelConfig& c) { return cache_floats_per_env(c) * sizeof(float); }

size_t Context::cache_bytes_per_env() const {
  return cache_floats_per_env(model_->config()) * sizeof(float);
}

size_t Context::activation_bytes_per_env() const {
  return state_->scratch[0]->block.size() * sizeof(float) / size_t(state_->tile_envs);
}

size_t Context::total_bytes() const {
  const ContextState& st = *state_;
  size_t n = st.cache.size() * sizeof(float) + st.frames.size() * sizeof(int64_t) + st.diverged.size();
  for (const auto& s : st.scratch) n += s->block.size() * sizeof(float);
  return n;
}

namespace {

void check_call(const Model& model, const Context& ctx, int batch, const void* inputs,
                const char* what) {
  FN_CHECK(&model == &ctx.model(), "engine ", what, ": this context was created for another model ",
           "(", arch_name(ctx.model().arch()), ", input_dim ", ctx.model().input_dim(),
           "); create one Context per model");
  FN_CHECK(batch >= 1 && batch <= ctx.max_batch(), "engine ", what, ": batch ", batch,
           " is outside [1, ", ctx.max_batch(), "], the context's max_batch; create the Context with ",
           "max_batch >= ", batch);
  FN_CHECK(inputs != nullptr, "engine ", what, ": inputs is null");
}

// Contacts are given exactly when the model reads them; counts and links in range.
void check_contacts(const Model& model, int batch, const ContactBatch* contacts, const char* what) {
  const ContactEncoderConfig& k = model.config().contact;
  if (!k.enabled()) {
    FN_CHECK(contacts == nullptr, "engine ", what, ": contact rows given to a model without a contact encoder");
    return;
  }
  FN_CHECK(contacts != nullptr && contacts->rows && contacts->link && contacts->count, "engine ", what,
           ": this model reads variable contacts; give every environment's contact rows (ContactBatch)");
  for (int e = 0; e < batch; ++e) {
    const int n = contacts->count[e];
    FN_CHECK(n >= 0 && n <= k.capacity, "engine ", what, ": environment ", e, " has ", n,
             " contact rows; the model's capacity is ", k.capacity, " (keep the K smallest gaps, count the rest)");
    for (int r = 0; r < n; ++r) {
      const int link = contacts->link[size_t(e) * size_t(k.capacity) + size_t(r)];
      FN_CHECK(link >= 0 && link < k.link_count, "engine ", what, ": environment ", e, " row ", r,
               " names link ", link, "; the model knows links 0..", k.link_count - 1);
    }
  }
}

}  // namespace

void step(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs) {
  step(model, ctx, batch, inputs, nullptr, outputs);
}

void step(const Model& model, Context& ctx, int batch, const float* inputs,
          const ContactBatch* contacts, float* outputs) {
  check_call(model, ctx, batch, inputs, "step");
  FN_CHECK(outputs != nullptr, "engine step: outputs is null");
  check_contacts(model, batch, contacts, "step");
  EngineInternals::state(ctx).run({batch, inputs, false, outputs, contacts});
}

void step_normalized(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs) {
  check_call(model, ctx, batch, inputs, "step_normalized");
  FN_CHECK(outputs != nullptr, "engine step_normalized: outputs is null");
  check_contacts(model, batch, nullptr, "step_normalized");
  EngineInternals::state(ctx).run({batch, inputs, true, outputs});
}

void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           float* outputs) {
  prime(model, ctx, batch, frames, inputs, nullptr, outputs);
}

void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           const ContactBatch* contacts, float* outputs) {
  check_call(model, ctx, batch, inputs, "prime");
  FN_CHECK(frames >= 0, "engine prime: frames must be >= 0, got ", frames);
  const size_t stride = size_t(batch) * size_t(model.input_dim());
  for (int f = 0; f < frames; ++f) {
    const ContactBatch* frame_contacts = contacts ? contacts + f : nullptr;
    check_contacts(model, batch, frame_contacts, "prime");
    EngineInternals::state(ctx).run(
        {batch, inputs + size_t(f) * stride, false, f == frames - 1 ? outputs : nullptr, frame_contacts});
  }
}

void reset_env(Context& ctx, int env) {
  FN_CHECK(env >= 0 && env < ctx.max_batch(), "engine reset_env: environment ", env,
           " is outside [0, ", ctx.max_batch(), ")");
  ContextState& st = EngineInternals::state(ctx);
  st.frames[size_t(env)] = 0;
  st.diverged[size_t(env)] = 0;
}

void copy_env(Context& ctx, int src, int dst) { copy_env(ctx, src, ctx, dst); }

void copy_env(const Context& from, int src, Context& to, int dst) {
  FN_CHECK(src >= 0 && src < from.max_batch() && dst >= 0 && dst < to.max_batch(), "engine copy_env: environments ",
           src, " (of ", from.max_batch(), ") -> ", dst, " (of ", to.max_batch(), ") out of range");
  FN_CHECK(&from.model() == &to.model(), "engine copy_env: the two contexts step different models");
  if (&from == &to && src == dst) return;
  const ContextState& a = EngineInternals::state(from);
  ContextState& b = EngineInternals::state(to);
  const ModelConfig& c = to.model().config();
  const size_t Ba = size_t(from.max_batch()), Bb = size_t(to.max_batch());
  const float* in = a.cache.data();
  float* out = b.cache.data();
  // the cache holds one (max_batch, per-env) block per FlashNeRD layer, one for NeRD's window
  if (c.arch == Arch::FlashNeRD) {
    for (int span : c.flash.spans) {
      const size_t n = size_t(span - 1) * 2 * size_t(c.flash.head_dim);
      std::copy_n(in + size_t(src) * n, n, out + size_t(dst) * n);
      in += Ba * n;
      out += Bb * n;
    }
  } else {
    const size_t n = size_t(c.nerd.window) * size_t(c.input_dim);
    std::copy_n(in + size_t(src) * n, n, out + size_t(dst) * n);
  }
  b.frames[size_t(dst)] = a.frames[size_t(src)];
  b.diverged[size_t(dst)] = a.diverged[size_t(src)];
}

void reset_all(Context& ctx) {
  for (int e = 0; e < ctx.max_batch(); ++e) reset_env(ctx, e);
}

}  // namespace flashnerd::engine
