// Every optimized kernel against its naive reference on random inputs with odd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "engine/test_models.h"
#include "engine/cpu/kernels.h"

namespace flashnerd::engine::cpu {
namespace {

using testing::random_vec;

TEST(Kernels, GemmBackendsMatchNaive) {
  const int shapes[][3] = {{1, 1, 1},   {1, 37, 13},  {3, 5, 7},     {4, 8, 16},   {5, 9, 31},
                           {13, 27, 65}, {16, 64, 40}, {17, 100, 33}, {70, 91, 129}, {129, 35, 300}};
  uint64_t seed = 1;
  for (auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    const int lda = K + 3, ldw = K + 1, ldc = N + 5;  // odd leading dimensions
    auto A = random_vec(size_t(M) * lda, seed++);
    auto W = random_vec(size_t(N) * ldw, seed++);
    auto C0 = random_vec(size_t(M) * ldc, seed++);
    for (float beta : {0.f, 1.f}) {
      std::vector<float> ref = C0;
      gemm_nt_naive(M, N, K, A.data(), lda, W.data(), ldw, beta, ref.data(), ldc);
      for (GemmBackend b : {GemmBackend::Auto, GemmBackend::OpenBLAS, GemmBackend::Eigen}) {
        std::vector<float> c = C0;
        gemm_nt(b, M, N, K, A.data(), lda, W.data(), ldw, beta, c.data(), ldc);
        std::vector<float> small = C0;
        gemm_nt_small(M, N, K, A.data(), lda, W.data(), ldw, beta, small.data(), ldc);
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < ldc; ++n) {
            const size_t i = size_t(m) * ldc + n;
            if (n >= N) {  // padding columns untouched
              ASSERT_EQ(c[i], C0[i]);
              ASSERT_EQ(small[i], C0[i]);
              continue;
            }
            const float tol = 2e-6f * float(K) + 1e-6f;
            ASSERT_NEAR(c[i], ref[i], tol) << gemm_backend_name(b) << " M=" << M << " N=" << N << " K=" << K;
            ASSERT_NEAR(small[i], ref[i], tol) << "small M=" << M << " N=" << N << " K=" << K;
          }
      }
    }
  }
}

TEST(Kernels, NormsMatchNaive) {
  for (int d : {1, 7, 40, 129}) {
    const int M = 5, ld = d + 3;
    auto H = random_vec(size_t(M) * ld, 7 + d, 3.0);
    std::vector<float> a(H.size()), b(H.size());
    rms_normalize(M, d, H.data(), ld, a.data(), ld);
    rms_normalize_naive(M, d, H.data(), ld, b.data(), ld);
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < d; ++k) ASSERT_NEAR(a[size_t(m) * ld + k], b[size_t(m) * ld + k], 2e-6);
    layer_normalize(M, d, H.data(), ld, a.data(), ld);
    layer_normalize_naive(M, d, H.data(), ld, b.data(), ld);
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < d; ++k) ASSERT_NEAR(a[size_t(m) * ld + k], b[size_t(m) * ld + k], 2e-5);
  }
}

TEST(Kernels, ActivationsMatchNaive) {
  const int M = 3, f = 53, ld = 2 * f + 1;
  auto G = random_vec(size_t(M) * ld, 99, 9.0);  // covers the tails
  for (FfnActivation act : kAllActivations) {
    std::vector<float> a(size_t(M) * f), b(size_t(M) * f);
    glu(act, M, f, G.data(), G.data() + f, ld, a.data(), f);
    glu_naive(act, M, f, G.data(), G.data() + f, ld, b.data(), f);
    // fp32 1 + erf(x) cancels in the negative tail: the error scales with |gate · up|
    for (int m = 0; m < M; ++m)
      for (int j = 0; j < f; ++j) {
        const size_t i = size_t(m) * f + j;
        const double scale = std::fabs(G[size_t(m) * ld + j] * G[size_t(m) * ld + f + j]);
        ASSERT_NEAR(a[i], b[i], 1e-6 * (1 + scale)) << activation_name(act) << " at " << i;
      }
  }
  std::vector<float> x = random_vec(size_t(M) * f, 5, 9.0), s = x, g = x;
  silu_inplace(M, f, s.data(), f);
  gelu_inplace(M, f, g.data(), f);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(s[i], silu_naive(x[i]), 2e-6 * (1 + std::fabs(s[i])));
    ASSERT_NEAR(g[i], gelu_naive(x[i]), 1e-6 * (1 + std::fabs(x[i])));
  }
}

TEST(Kernels, DotMatchesNaive) {
  for (int n : {1, 5, 12, 64, 67}) {
    auto a = random_vec(size_t(n), 3), b = random_vec(size_t(n), 4);
    double ref = 0;
    for (int i = 0; i < n; ++i) ref += double(a[size_t(i)]) * b[size_t(i)];
    EXPECT_NEAR(dot(a.data(), b.data(), n), ref, 1e-5);
  }
}

}  // namespace
}  // namespace flashnerd::engine::cpu
