// The CPU backend's part of a Context (engine_impl.h CpuContext): caches and per-thread scratch
// reserved for the largest batch, tiles over the thread pool, and the GEMM dispatch to the
// kernels of this CPU (cpu/kernel_variants.h).
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

}  // namespace

size_t cache_floats_per_env(const ModelConfig& c) {
  if (c.arch == Arch::FlashNeRD) {
    size_t n = 0;
    for (int s : c.flash.spans) n += size_t(s - 1) * 2 * size_t(c.flash.head_dim);
    return n;
  }
  return size_t(c.nerd.window) * size_t(c.input_dim);
}

CpuContext::CpuContext(const Model& model, const ContextOptions& options)
    : BackendContext(model, options.max_batch), gemm_backend(options.gemm), pool(options.pool) {
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
  if (c.arch == Arch::FlashNeRD)
    for (int span : c.flash.spans)
      FN_CHECK(span <= 16, "engine context: block span ", span, " exceeds the engine's limit of 16");
  rows_per_tile = options.tile_rows > 0 ? options.tile_rows : default_tile_rows(c);
  const int rows_per_env = c.arch == Arch::FlashNeRD ? 1 : c.nerd.window;
  tile_envs = std::max(1, std::min(rows_per_tile / rows_per_env, max_batch));
  rows_per_tile = tile_envs * rows_per_env;
  cpu::use_single_threaded_blas();

  cache = AlignedBuffer(size_t(max_batch) * cache_floats_per_env(c));
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

void CpuContext::run_tiles(int64_t begin, int64_t end, int worker) {
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

void CpuContext::gemm_columns(const GemmArgs& g, int n0, int n1, uint16_t* abf) {
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

void CpuContext::run_gemm(const GemmArgs& g, uint16_t* abf) {
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

void CpuContext::gemm(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                        float beta, float* C, int ldc) {
  run_gemm({M, N, K, lda, ldw, ldc, A, W, nullptr, beta, C}, nullptr);
}

void CpuContext::gemm(Scratch& s, int M, const float* A, int lda, const GemmWeight& W, float beta,
                        float* C, int ldc) {
  const uint16_t* wp = model.precision() == Precision::BF16 ? W.bf16 : nullptr;
  run_gemm({M, W.N, W.K, lda, W.K, ldc, A, W.f32, wp, beta, C}, s.abf);
}

void CpuContext::run(const Job& next) {
  job = next;
  // Tiles: a multiple of the thread count (balanced contiguous chunks), each at most
  // tile_envs environments.
  const int64_t threads = pool ? pool->size() : 1;
  // Small batch (fits one tile, fewer than kSplitRows GEMM rows per thread if split by
  // environments): one tile on the caller, GEMM columns over the threads, so the weights
  // are read once per step instead of once per thread.
  split_columns_ = threads > 1 && job.batch <= tile_envs &&
                   job.batch * (rows_per_tile / tile_envs) < kSplitRows * threads;
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


std::string CpuContext::kernel_summary() const {
  if (model.precision() == Precision::BF16)
    return bf16_isa == Isa::AMX_BF16 ? str_cat("bf16: amx_bf16 (M >= ", kAmxMinRows, "), avx512_bf16")
                                     : "bf16: avx512_bf16";
  const std::string small = std::string(isa_name(small_isa)) + " small-M";
  switch (gemm_backend) {
    case GemmBackend::Auto: return str_cat("fp32: ", small, " (M <= ", cpu::kSmallGemmRows, "), openblas");
    default: return std::string("fp32: ") + gemm_backend_name(gemm_backend);
  }
}

void CpuContext::copy_cache(int src, BackendContext& to_context, int dst) const {
  auto& to = dynamic_cast<CpuContext&>(to_context);  // the Context checked: same backend and model
  const ModelConfig& c = model.config();
  const size_t Ba = size_t(max_batch), Bb = size_t(to.max_batch);
  const float* in = cache.data();
  float* out = to.cache.data();
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
}

void CpuContext::save_cache(BlobWriter& w) const { w.put(cache.data(), cache.size()); }

void CpuContext::load_cache(BlobReader& r) { r.get(cache.data(), cache.size()); }

size_t CpuContext::cache_bytes_per_env() const { return cache_floats_per_env(model.config()) * sizeof(float); }

size_t CpuContext::activation_bytes_per_env() const {
  return scratch[0]->block.size() * sizeof(float) / size_t(tile_envs);
}

size_t CpuContext::bytes() const {
  size_t n = cache.size() * sizeof(float) + frames.size() * sizeof(int64_t) + diverged.size();
  for (const auto& s : scratch) n += s->block.size() * sizeof(float);
  return n;
}

namespace {

class CpuBackend : public ComputeBackend {
 public:
  const char* name() const override { return "cpu"; }
  std::unique_ptr<BackendContext> make_context(const Model& model, const ContextOptions& options) const override {
    return std::make_unique<CpuContext>(model, options);
  }
};

}  // namespace

const ComputeBackend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace flashnerd::engine
