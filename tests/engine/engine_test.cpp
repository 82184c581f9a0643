// The equivalence contract (docs/DESIGN.md §2) and the error contract of the streaming engine.
// Tolerance (fp32 engine vs double reference): max |engine − reference| / rms(reference)
// <= 1e-5 (kTol); measured ~1e-6 on these models.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cpu/cpu_features.h"
#include "engine/engine.h"
#include "engine/reference.h"
#include "engine/test_models.h"
#include "testing/enum_names_checks.h"

namespace flashnerd::engine {
namespace {

using testing::flash_test_config;
using testing::nerd_test_config;
using testing::ContactFrames;
using testing::flash_contact_test_config;
using testing::random_contacts;
using testing::random_inputs;
using testing::relative_error;

constexpr double kTol = 1e-5;

// Streams B independent sequences of T frames (inputs (T, B, din)); returns (B, T, dout).
std::vector<float> stream(const Model& model, Context& ctx, int B, int T, const std::vector<float>& in) {
  const int din = model.input_dim(), dout = model.output_dim();
  std::vector<float> out(size_t(B) * T * dout), y(size_t(B) * dout);
  for (int t = 0; t < T; ++t) {
    step(model, ctx, B, in.data() + size_t(t) * B * din, y.data());
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < dout; ++k) out[(size_t(b) * T + t) * dout + k] = y[size_t(b) * dout + k];
  }
  return out;
}

// Sequence b of an interleaved (T, B, din) input as (T, din).
std::vector<float> sequence(const std::vector<float>& in, int B, int T, int din, int b) {
  std::vector<float> s(size_t(T) * din);
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < din; ++k) s[size_t(t) * din + k] = in[(size_t(t) * B + b) * din + k];
  return s;
}

// A run of the engine beside the reference: kernel level, precision, threading.
struct Variant {
  Isa max_isa = Isa::AMX_BF16;
  Precision precision = Precision::FP32;
  int64_t parallel_min_macs = 0;  // 1: split every small-batch GEMM over the threads
  double tol = kTol;
};

// bf16 products: each GEMM input and weight carries a relative rounding of 2^-9; through a few
// blocks the outputs stay within 3% of the double reference (measured 0.6–1.1% on Zen 5).
constexpr double kBf16Tol = 3e-2;

// tile_rows < 0: several small tiles; 0: the default (small batches split GEMM columns).
void expect_streaming_matches_reference(const ModelConfig& config, GemmBackend gemm, int threads,
                                        int tile_rows = -1, const Variant& variant = {}) {
  auto model = Model::random(config, 5, ModelOptions{variant.precision});
  const int B = 7, T = 3 * config.history() + 2, din = config.input_dim, dout = config.output_dim;
  ThreadPool pool(threads);
  ContextOptions opt;
  opt.max_batch = B;
  opt.pool = &pool;
  opt.gemm = gemm;
  opt.tile_rows = tile_rows >= 0 ? tile_rows : config.arch == Arch::FlashNeRD ? 3 : 2 * config.nerd.window;
  opt.max_isa = variant.max_isa;
  opt.parallel_min_macs = variant.parallel_min_macs;
  Context ctx(*model, opt);
  auto in = random_inputs(size_t(T) * B, din, 17);
  auto out = stream(*model, ctx, B, T, in);
  for (int b = 0; b < B; ++b) {
    auto seq = sequence(in, B, T, din, b);
    auto ref = reference_forward(*model, seq.data(), T);
    std::vector<float> got(out.begin() + long(b) * T * dout, out.begin() + long(b + 1) * T * dout);
    EXPECT_LT(relative_error(got, ref), variant.tol)
        << "env " << b << " backend " << gemm_backend_name(gemm) << ", " << ctx.kernel_summary();
  }
  EXPECT_EQ(ctx.diverged_count(B), 0);
}

TEST(Engine, FlashStreamingMatchesFullWindowReference) {
  expect_streaming_matches_reference(flash_test_config(), GemmBackend::Auto, 2);
}
TEST(Engine, ColumnSplitSmallBatchMatchesReference) {
  const Variant split{Isa::AMX_BF16, Precision::FP32, 1};
  expect_streaming_matches_reference(flash_test_config(), GemmBackend::Auto, 2, 0, split);
  expect_streaming_matches_reference(nerd_test_config(), GemmBackend::Auto, 2, 0, split);
}

// Every kernel level this CPU runs, fp32 and bf16, against the same reference.
TEST(Engine, EveryKernelLevelMatchesReference) {
  std::vector<std::string> skipped;
  for (Isa isa : {Isa::AVX2, Isa::AVX512, Isa::AVX512_BF16, Isa::AMX_BF16}) {
    if (!cpu_features().has(isa)) {
      skipped.push_back(isa_name(isa));
      continue;
    }
    const bool bf16 = int(isa) >= int(Isa::AVX512_BF16);
    const Variant v{isa, bf16 ? Precision::BF16 : Precision::FP32, 0, bf16 ? kBf16Tol : kTol};
    const Variant split{isa, v.precision, 1, v.tol};
    for (const ModelConfig& config : {flash_test_config(), nerd_test_config(),
                                      flash_test_config(NormKind::LayerNorm, FfnActivation::GEGLU)}) {
      expect_streaming_matches_reference(config, GemmBackend::Auto, 2, -1, v);  // small tiles
      expect_streaming_matches_reference(config, GemmBackend::Auto, 2, 0, split);  // split columns
      expect_streaming_matches_reference(config, GemmBackend::Auto, 1, 64, v);  // larger tiles
    }
  }
  std::string list;
  for (const auto& s : skipped) list += " " + s;
  if (!list.empty()) std::printf("  kernel levels skipped on this CPU (%s):%s\n", cpu_features().model.c_str(), list.c_str());
}

// The GEMM backends' and precisions' name tables: every name parses to its value and back, an
// unknown name is refused with the choices.
TEST(Engine, GemmBackendAndPrecisionNamesRoundTrip) {
  flashnerd::testing::expect_enum_names(
      kGemmBackendNames, parse_gemm_backend, gemm_backend_name, "mkl",
      "unknown GEMM backend 'mkl': expected auto, openblas, eigen, naive or row-invariant");
  flashnerd::testing::expect_enum_names(kPrecisionNames, parse_precision, precision_name, "fp16",
                                        "unknown precision 'fp16': expected auto, fp32 or bf16");
}

// bf16 refuses to load where the CPU lacks it, and a bf16 model refuses a context capped
// below AVX-512-BF16; auto resolves to what the CPU has.
TEST(Engine, Bf16PrecisionIsCheckedAgainstTheCpu) {
  const bool native = cpu_features().native_bf16();
  EXPECT_EQ(resolve_precision(Precision::Auto), native ? Precision::BF16 : Precision::FP32);
  EXPECT_EQ(parse_precision("fp32"), Precision::FP32);
  EXPECT_THROW(parse_precision("fp16"), Error);
  if (!native) {
    EXPECT_THROW(Model::random(flash_test_config(), 1, ModelOptions{Precision::BF16}), Error);
    return;
  }
  auto model = Model::random(flash_test_config(), 1, ModelOptions{Precision::BF16});
  EXPECT_EQ(model->precision(), Precision::BF16);
  ContextOptions opt;
  opt.max_isa = Isa::AVX512;
  EXPECT_THROW(Context(*model, opt), Error);
}
TEST(Engine, FlashLayerNormGegluMatchesReference) {
  expect_streaming_matches_reference(flash_test_config(NormKind::LayerNorm, FfnActivation::GEGLU),
                                     GemmBackend::OpenBLAS, 1);
}
TEST(Engine, FlashRegluEigenMatchesReference) {
  expect_streaming_matches_reference(flash_test_config(NormKind::RMSNorm, FfnActivation::ReGLU),
                                     GemmBackend::Eigen, 2);
}
TEST(Engine, NerdMatchesReference) {
  expect_streaming_matches_reference(nerd_test_config(), GemmBackend::Auto, 2);
  expect_streaming_matches_reference(nerd_test_config(), GemmBackend::OpenBLAS, 1);
}

// For t >= R − 1 with R >= the receptive field, the full-window evaluation of only the last
// R frames gives the streaming output.
TEST(Engine, RecomputingLastRFramesMatchesStreaming) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 8);
    const int R = config.history(), T = R + 9, din = config.input_dim, dout = config.output_dim;
    ContextOptions opt;
    opt.max_batch = 1;
    Context ctx(*model, opt);
    auto in = random_inputs(size_t(T), din, 3);
    auto out = stream(*model, ctx, 1, T, in);
    for (int t = R - 1; t < T; ++t) {
      auto ref = reference_forward(*model, in.data() + size_t(t - R + 1) * din, R);
      std::vector<double> last(ref.end() - dout, ref.end());
      std::vector<float> got(out.begin() + long(t) * dout, out.begin() + long(t + 1) * dout);
      EXPECT_LT(relative_error(got, last), kTol) << arch_name(config.arch) << " t=" << t;
    }
  }
}

TEST(Engine, PrimeEqualsSteppingAndNormalizedEqualsRaw) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 9);
    const int B = 4, R = 6, din = config.input_dim, dout = config.output_dim;
    ContextOptions opt;
    opt.max_batch = B;
    Context a(*model, opt), b(*model, opt), n(*model, opt);
    auto in = random_inputs(size_t(R) * B, din, 4);
    std::vector<float> ya(size_t(B) * dout), yb(ya.size()), yn(ya.size());
    prime(*model, a, B, R, in.data(), ya.data());
    for (int t = 0; t < R; ++t) step(*model, b, B, in.data() + size_t(t) * B * din, yb.data());
    EXPECT_EQ(ya, yb);
    // pre-normalized inputs through step_normalized: same outputs
    std::vector<float> xn(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      xn[i] = (in[i] - model->input_mean()[i % din]) / model->input_std()[i % din];
    for (int t = 0; t < R; ++t) step_normalized(*model, n, B, xn.data() + size_t(t) * B * din, yn.data());
    EXPECT_EQ(yn, yb);
    EXPECT_EQ(a.frames(0), R);
  }
}

TEST(Engine, ResetOfOneEnvLeavesOthersBitIdentical) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 10);
    const int B = 6, T = 2 * config.history() + 3, din = config.input_dim, dout = config.output_dim;
    const int reset_at = config.history() + 1, env = 2;
    ContextOptions opt;
    opt.max_batch = B;
    Context a(*model, opt), b(*model, opt);
    auto in = random_inputs(size_t(T) * B, din, 21);
    std::vector<float> ya(size_t(B) * dout), yb(ya.size());
    for (int t = 0; t < T; ++t) {
      if (t == reset_at) reset_env(b, env);
      step(*model, a, B, in.data() + size_t(t) * B * din, ya.data());
      step(*model, b, B, in.data() + size_t(t) * B * din, yb.data());
      for (int e = 0; e < B; ++e) {
        if (e == env && t >= reset_at) continue;
        for (int k = 0; k < dout; ++k) ASSERT_EQ(ya[size_t(e) * dout + k], yb[size_t(e) * dout + k]);
      }
    }
    // the reset env now behaves as a fresh history started at reset_at
    const int L = T - reset_at;
    auto seq = sequence(in, B, T, din, env);
    auto ref = reference_forward(*model, seq.data() + size_t(reset_at) * din, L);
    std::vector<float> last(yb.begin() + env * dout, yb.begin() + (env + 1) * dout);
    std::vector<double> ref_last(ref.end() - dout, ref.end());
    EXPECT_LT(relative_error(last, ref_last), kTol);
    EXPECT_EQ(b.frames(env), L);
    EXPECT_EQ(b.frames(0), T);
  }
}

TEST(Engine, CopiedHistoryStepsLikeItsSource) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 12);
    const int B = 4, din = config.input_dim, dout = config.output_dim, T = config.history() + 2;
    ContextOptions opt;
    opt.max_batch = B;
    Context ctx(*model, opt);
    auto in = random_inputs(size_t(T + 3) * B, din, 31);
    std::vector<float> y(size_t(B) * dout);
    for (int t = 0; t < T; ++t) step(*model, ctx, B, in.data() + size_t(t) * B * din, y.data());
    copy_env(ctx, 1, 3);  // env 3 forks env 1's history
    EXPECT_EQ(ctx.frames(3), ctx.frames(1));
    for (int t = T; t < T + 3; ++t) {
      // both get env 1's inputs from here on: the same outputs (to roundoff: a GEMM row's
      // position in the tile may change the kernel path)
      std::vector<float> frame(in.begin() + long(size_t(t) * B * din), in.begin() + long(size_t(t + 1) * B * din));
      std::copy_n(frame.begin() + din, din, frame.begin() + 3 * din);
      step(*model, ctx, B, frame.data(), y.data());
      for (int k = 0; k < dout; ++k)
        ASSERT_NEAR(y[size_t(dout) + size_t(k)], y[size_t(3 * dout) + size_t(k)],
                    1e-5 * (1 + std::fabs(y[size_t(dout) + size_t(k)])))
            << "t " << t;
    }
    EXPECT_THROW(copy_env(ctx, 0, B), Error);
  }
}

TEST(Engine, AHistoryPrimedInASmallContextStepsAsIfBuiltInPlace) {
  // env 2 of a 4-env context steps T frames itself; a 1-env context steps the same frames and
  // hands its history to env 2 of a second 4-env context: both then predict the same bits
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 12);
    const int B = 4, din = config.input_dim, dout = config.output_dim, T = config.history() + 2;
    ContextOptions opt;
    opt.max_batch = B;
    opt.gemm = GemmBackend::RowInvariant;
    Context built(*model, opt), copied(*model, opt);
    opt.max_batch = 1;
    Context single(*model, opt);
    auto in = random_inputs(size_t(T + 1) * B, din, 37);
    std::vector<float> y(size_t(B) * dout), y1(static_cast<size_t>(dout)), y2(size_t(B) * dout);
    for (int t = 0; t < T; ++t) {
      step(*model, built, B, in.data() + size_t(t) * B * din, y.data());
      step(*model, single, 1, in.data() + (size_t(t) * B + 2) * din, y1.data());
    }
    copy_env(single, 0, copied, 2);
    EXPECT_EQ(copied.frames(2), built.frames(2));
    step(*model, built, B, in.data() + size_t(T) * B * din, y.data());
    step(*model, copied, B, in.data() + size_t(T) * B * din, y2.data());
    for (int k = 0; k < dout; ++k) ASSERT_EQ(y[size_t(2 * dout + k)], y2[size_t(2 * dout + k)]) << "output " << k;
    auto other = Model::random(config, 13);
    EXPECT_THROW(copy_env(single, 0, *std::make_unique<Context>(*other, opt), 0), Error);
    EXPECT_THROW(copy_env(single, 1, copied, 0), Error);
  }
}

TEST(Engine, RowInvariantProductsMakeACopiedHistoryBitIdenticalAnywhereInTheBatch) {
  // 24 environments: above the small-kernel rows, where Auto hands products to OpenBLAS,
  // whose edge kernels may sum a row differently by its position
  for (const ModelConfig& config : {flash_test_config(), flash_contact_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 12);
    const int B = 24, din = config.input_dim, dout = config.output_dim, T = config.history() + 2;
    ThreadPool pool(2);
    ContextOptions opt;
    opt.max_batch = B;
    opt.pool = &pool;
    opt.gemm = GemmBackend::RowInvariant;
    Context ctx(*model, opt);
    const int K = config.contact.capacity;
    ContactFrames contacts = random_contacts(size_t(T + 3) * B, K, config.contact.link_count, 41);
    auto in = random_inputs(size_t(T + 3) * B, din, 31);
    std::vector<float> y(size_t(B) * dout);
    for (int t = 0; t < T; ++t)
    {
      const ContactBatch batch = contacts.batch(size_t(t) * B);
      step(*model, ctx, B, in.data() + size_t(t) * B * din, K ? &batch : nullptr, y.data());
    }
    for (int dst : {0, 9, 23}) copy_env(ctx, 5, dst);
    for (int t = T; t < T + 3; ++t) {
      std::vector<float> frame(in.begin() + long(size_t(t) * B * din), in.begin() + long(size_t(t + 1) * B * din));
      ContactFrames c = contacts;
      for (int dst : {0, 9, 23}) {
        std::copy_n(frame.begin() + 5 * din, din, frame.begin() + dst * din);
        if (K) {
          const size_t src = size_t(t) * B + 5, to = size_t(t) * B + size_t(dst);
          std::copy_n(c.rows.begin() + long(src * K * kContactRowDim), K * kContactRowDim, c.rows.begin() + long(to * K * kContactRowDim));
          std::copy_n(c.link.begin() + long(src * K), K, c.link.begin() + long(to * K));
          c.count[to] = c.count[src];
        }
      }
      const ContactBatch batch = c.batch(size_t(t) * B);
      step(*model, ctx, B, frame.data(), K ? &batch : nullptr, y.data());
      for (int dst : {0, 9, 23})
        for (int k = 0; k < dout; ++k) ASSERT_EQ(y[size_t(5 * dout + k)], y[size_t(dst * dout + k)]) << "t " << t << " env " << dst;
    }
  }
}

TEST(Engine, NonFiniteInputFlagsOnlyThatEnv) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 12);
    const int B = 5, din = config.input_dim, dout = config.output_dim;
    ContextOptions opt;
    opt.max_batch = B;
    Context ctx(*model, opt);
    auto in = random_inputs(size_t(B), din, 1);
    std::vector<float> y(size_t(B) * dout);
    for (int t = 0; t < 3; ++t) step(*model, ctx, B, in.data(), y.data());
    in[size_t(3) * din + 2] = std::numeric_limits<float>::quiet_NaN();
    step(*model, ctx, B, in.data(), y.data());
    in[size_t(3) * din + 2] = 0.5f;
    for (int e = 0; e < B; ++e) EXPECT_EQ(ctx.diverged(e), e == 3) << "env " << e;
    for (int t = 0; t < 2 * config.history(); ++t) step(*model, ctx, B, in.data(), y.data());
    for (int e = 0; e < B; ++e) {
      EXPECT_EQ(ctx.diverged(e), e == 3);
      if (e != 3) {
        for (int k = 0; k < dout; ++k) EXPECT_TRUE(std::isfinite(y[size_t(e) * dout + k]));
      }
    }
    // an infinite input flags too, and reset clears the flag and the poisoned history
    in[size_t(1) * din] = std::numeric_limits<float>::infinity();
    step(*model, ctx, B, in.data(), y.data());
    EXPECT_TRUE(ctx.diverged(1));
    in[size_t(1) * din] = 0.f;
    reset_env(ctx, 3);
    reset_env(ctx, 1);
    EXPECT_FALSE(ctx.diverged(3));
    step(*model, ctx, B, in.data(), y.data());
    EXPECT_EQ(ctx.diverged_count(B), 0);
    for (float v : y) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(Engine, MisuseThrowsClearErrors) {
  auto model = Model::random(flash_test_config(), 1);
  auto other = Model::random(flash_test_config(), 2);
  ContextOptions opt;
  opt.max_batch = 4;
  Context ctx(*model, opt);
  std::vector<float> x(size_t(8) * model->input_dim()), y(size_t(8) * model->output_dim());
  try {
    step(*model, ctx, 5, x.data(), y.data());
    FAIL() << "batch > max_batch accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_batch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("batch 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(step(*model, ctx, 0, x.data(), y.data()), Error);
  try {
    step(*other, ctx, 1, x.data(), y.data());
    FAIL() << "context of another model accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("another model"), std::string::npos) << e.what();
  }
  EXPECT_THROW(step(*model, ctx, 1, nullptr, y.data()), Error);
  EXPECT_THROW(reset_env(ctx, 4), Error);
  opt.max_batch = 0;
  EXPECT_THROW(Context(*model, opt), Error);
}

TEST(Engine, ThreadCountDoesNotChangeResultsBeyondRoundoff) {
  for (const ModelConfig& config : {flash_test_config(), nerd_test_config()}) {
    auto model = Model::random(config, 13);
    const int B = 37, T = config.history() + 2, din = config.input_dim;
    ThreadPool one(1), two(2);
    ContextOptions opt;
    opt.max_batch = B;
    opt.pool = &one;
    Context a(*model, opt);
    opt.pool = &two;
    opt.tile_rows = 5 * (config.arch == Arch::NeRD ? config.nerd.window : 1);
    Context b(*model, opt);
    auto in = random_inputs(size_t(T) * B, din, 2);
    auto ya = stream(*model, a, B, T, in), yb = stream(*model, b, B, T, in);
    EXPECT_LT(relative_error(ya, yb), 1e-6);
  }
}

TEST(Engine, MemoryReport) {
  ModelConfig c = synthetic_config(Arch::FlashNeRD, ModelPreset::PaperCartpole, 6, 4);
  auto model = Model::random(c, 1);
  ContextOptions opt;
  opt.max_batch = 8;
  Context ctx(*model, opt);
  // Σ(S−1) = 9 slots of [k | v], 64 floats each
  EXPECT_EQ(ctx.cache_bytes_per_env(), size_t(9 * 2 * 64 * 4));
  EXPECT_GT(ctx.activation_bytes_per_env(), 0u);
  EXPECT_GE(ctx.total_bytes(), ctx.cache_bytes_per_env() * 8);
}

}  // namespace
}  // namespace flashnerd::engine
