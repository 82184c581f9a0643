// Every CPU kernel variant against its naive reference on random inputs with odd sizes, on
// whatever variants this CPU runs; the others are skipped, saying so (the build compiles them
// all on every machine).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "engine/test_models.h"
#include "engine/cpu/bf16.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/kernel_variants.h"
#include "engine/cpu/kernels.h"

namespace flashnerd::engine::cpu {
namespace {

using testing::random_vec;

// Skips the calling test unless the CPU (and FLASHNERD_MAX_ISA) allows `isa`.
#define REQUIRE_ISA(isa)                                                                     \
  if (!cpu_features().has(isa))                                                              \
  GTEST_SKIP() << "variant " << isa_name(isa) << " skipped: this CPU runs kernels up to "   \
               << isa_name(cpu_features().best) << " (" << cpu_features().model << ")"

constexpr int kShapes[][3] = {{1, 1, 1},    {1, 37, 13},  {2, 5, 7},     {3, 33, 64},  {4, 8, 16},
                              {5, 9, 31},   {7, 64, 33},  {13, 27, 65},  {16, 64, 40}, {17, 100, 33},
                              {33, 47, 96}, {70, 91, 129}, {129, 35, 300}};

using Gemm = void (*)(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                      float beta, float* C, int ldc);

// Compares gemm against ref on every shape and both betas; padding columns stay untouched.
void expect_matches(Gemm gemm, Gemm ref, double rel_tol, const char* what) {
  uint64_t seed = 11;
  for (auto& s : kShapes) {
    const int M = s[0], N = s[1], K = s[2];
    const int lda = K + 3, ldw = K + 1, ldc = N + 5;  // odd leading dimensions
    auto A = random_vec(size_t(M) * lda, seed++);
    auto W = random_vec(size_t(N) * ldw, seed++);
    auto C0 = random_vec(size_t(M) * ldc, seed++);
    for (float beta : {0.f, 1.f}) {
      std::vector<float> want = C0, got = C0;
      ref(M, N, K, A.data(), lda, W.data(), ldw, beta, want.data(), ldc);
      gemm(M, N, K, A.data(), lda, W.data(), ldw, beta, got.data(), ldc);
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < ldc; ++n) {
          const size_t i = size_t(m) * ldc + n;
          if (n >= N) {
            ASSERT_EQ(got[i], C0[i]) << what << ": wrote padding column " << n;
            continue;
          }
          // bound relative to the sum of |terms| (inputs are in [-1, 1])
          const double tol = rel_tol * double(K) + 1e-6;
          ASSERT_NEAR(got[i], want[i], tol) << what << " M=" << M << " N=" << N << " K=" << K << " beta=" << beta;
        }
    }
  }
}

// A bf16 kernel behind the plain GEMM signature: packs W, sizes the scratch.
template <void (*Kernel)(int, int, int, const float*, int, const uint16_t*, float, float*, int, uint16_t*)>
void packed(int M, int N, int K, const float* A, int lda, const float* W, int ldw, float beta, float* C, int ldc) {
  std::vector<uint16_t> wp(bf16_packed_elems(N, K) + 32), scratch(bf16_scratch_elems(M, K) + 32);
  // 64-byte aligned views, as the engine's blocks are
  auto align = [](uint16_t* p) { return reinterpret_cast<uint16_t*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t(63)); };
  pack_bf16(N, K, W, ldw, align(wp.data()));
  Kernel(M, N, K, A, lda, align(wp.data()), beta, C, ldc, align(scratch.data()));
}

TEST(KernelVariants, Fp32SmallAvx2MatchesNaive) {
  expect_matches(gemm_nt_small, gemm_nt_naive, 2e-6, "avx2 small-M");
}

TEST(KernelVariants, Fp32SmallAvx512MatchesNaive) {
  REQUIRE_ISA(Isa::AVX512);
  expect_matches(gemm_nt_small_avx512, gemm_nt_naive, 2e-6, "avx512 small-M");
}

// bf16 kernels sum exact products of bf16 values in fp32: only accumulation rounding separates
// them from the double reference (the same bf16 rounding of A and W).
TEST(KernelVariants, Bf16Avx512MatchesNaive) {
  REQUIRE_ISA(Isa::AVX512_BF16);
  expect_matches(packed<gemm_bf16_avx512>, gemm_bf16_naive, 2e-6, "avx512_bf16");
}

TEST(KernelVariants, Bf16AmxMatchesNaive) {
  REQUIRE_ISA(Isa::AMX_BF16);
  expect_matches(packed<gemm_bf16_amx>, gemm_bf16_naive, 2e-6, "amx_bf16");
}

// The bf16 reference itself is a bf16 product: within bf16 rounding of the fp32 product.
TEST(KernelVariants, Bf16ReferenceIsCloseToFp32) {
  auto bf16_vs_fp32 = [](int M, int N, int K, const float* A, int lda, const float* W, int ldw, float beta,
                         float* C, int ldc) { gemm_bf16_naive(M, N, K, A, lda, W, ldw, beta, C, ldc); };
  expect_matches(bf16_vs_fp32, gemm_nt_naive, 1e-2, "bf16 reference vs fp32");
}

TEST(KernelVariants, Bf16RoundsToNearestEven) {
  EXPECT_EQ(to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(from_bf16(to_bf16(1.0f + 1.0f / 256)), 1.0f);               // tie -> even (down)
  EXPECT_EQ(from_bf16(to_bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);  // tie -> even (up)
  EXPECT_EQ(from_bf16(to_bf16(-2.5f)), -2.5f);                          // exact
  EXPECT_TRUE(std::isnan(from_bf16(to_bf16(NAN))));
  EXPECT_TRUE(std::isinf(from_bf16(to_bf16(INFINITY))));
}

// Packing puts (n, k) where both kernels read it and pads with zeros.
TEST(KernelVariants, Bf16PackingLayout) {
  const int N = 19, K = 37, Kp = bf16_padded(K);
  auto W = random_vec(size_t(N) * K, 5);
  std::vector<uint16_t> p(bf16_packed_elems(N, K), 0xffff);
  pack_bf16(N, K, W.data(), K, p.data());
  for (int n = 0; n < bf16_padded(N); ++n)
    for (int k = 0; k < Kp; ++k) {
      const uint16_t v = p[size_t(n / 16) * Kp * 16 + size_t(k / 2) * 32 + size_t(n % 16) * 2 + size_t(k % 2)];
      if (n < N && k < K)
        ASSERT_EQ(v, to_bf16(W[size_t(n) * K + k])) << n << "," << k;
      else
        ASSERT_EQ(v, 0) << "padding " << n << "," << k;
    }
}

TEST(KernelVariants, ReportsTheCpu) {
  const CpuFeatures& f = cpu_features();
  EXPECT_TRUE(f.avx2_fma) << "the build's baseline is x86-64-v3";
  EXPECT_TRUE(f.has(Isa::AVX2));
  EXPECT_FALSE(f.summary().empty());
  std::printf("  %s\n", f.summary().c_str());
  EXPECT_EQ(parse_isa("avx512_bf16"), Isa::AVX512_BF16);
  EXPECT_THROW(parse_isa("sse2"), std::exception);
}

}  // namespace
}  // namespace flashnerd::engine::cpu
