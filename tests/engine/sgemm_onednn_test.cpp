// engine::sgemm (oneDNN) against its double-accumulating reference: every transposition, odd
// sizes and leading dimensions, beta 0 and 1, one and two threads; the same bits when repeated.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "engine/blas.h"
#include "engine/engine.h"
#include "engine/test_models.h"

namespace flashnerd::engine {
namespace {

using testing::random_vec;

TEST(Sgemm, MatchesNaiveForEveryTranspositionAndThreadCount) {
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 100, 33}, {70, 12, 129}, {300, 35, 48}, {64, 128, 611}};
  uint64_t seed = 1;
  for (int threads : {1, 2}) {
    for (auto& s : shapes)
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const int64_t M = s[0], N = s[1], K = s[2];
          const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 5;  // odd leading dimensions
          const auto A = random_vec(size_t((ta ? K : M) * lda), seed++);
          const auto B = random_vec(size_t((tb ? N : K) * ldb), seed++);
          const auto C0 = random_vec(size_t(M * ldc), seed++);
          for (float beta : {0.f, 1.f}) {
            std::vector<float> ref = C0, c = C0, again = C0;
            sgemm_naive(ta, tb, M, N, K, 0.5f, A.data(), lda, B.data(), ldb, beta, ref.data(), ldc);
            sgemm(ta, tb, M, N, K, 0.5f, A.data(), lda, B.data(), ldb, beta, c.data(), ldc, threads);
            sgemm(ta, tb, M, N, K, 0.5f, A.data(), lda, B.data(), ldb, beta, again.data(), ldc, threads);
            ASSERT_EQ(c, again) << "not deterministic: M=" << M << " N=" << N << " K=" << K;
            for (int64_t i = 0; i < M; ++i)
              for (int64_t j = 0; j < ldc; ++j) {
                const size_t at = size_t(i * ldc + j);
                if (j >= N) {  // padding columns untouched
                  ASSERT_EQ(c[at], C0[at]);
                  continue;
                }
                ASSERT_NEAR(c[at], ref[at], 1e-6f * float(K) + 1e-6f)
                    << "ta=" << ta << " tb=" << tb << " M=" << M << " N=" << N << " K=" << K << " beta=" << beta
                    << " threads=" << threads;
              }
          }
        }
  }
}

TEST(Sgemm, RefusesNegativeSizes) { EXPECT_THROW(sgemm(false, false, -1, 2, 2, 1.f, nullptr, 2, nullptr, 2, 0.f, nullptr, 2), flashnerd::Error); }

}  // namespace
}  // namespace flashnerd::engine
