// engine::sgemm: general fp32 products outside a step, through oneDNN's sgemm. Its JIT kernels
// take the CPU's widest vector ISA (AVX-512 where present), where OpenBLAS runs the kernel of
// its preset core type (Haswell's AVX2 here, 2x slower on the PPO update's shapes, measured).
#include <omp.h>

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>

#include "core/error.h"
#include "engine/blas.h"
#include "engine/engine.h"

namespace flashnerd::engine {

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int threads) {
  FN_CHECK(M >= 0 && N >= 0 && K >= 0, "sgemm: negative size ", M, "x", N, "x", K);
  if (M == 0 || N == 0) return;
  // oneDNN threads through OpenMP: a team of `threads` for this call, the thread's setting
  // (libtorch's, on the main thread) restored after
  threads = std::max(1, threads);
  const int previous = omp_get_max_threads();
  if (threads != previous) omp_set_num_threads(threads);
  const dnnl_status_t status =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  if (threads != previous) omp_set_num_threads(previous);
  FN_CHECK(status == dnnl_success, "sgemm: oneDNN failed (status ", int(status), ") on ", M, "x", N, "x", K);
}

void sgemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                 int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += double(trans_a ? A[k * lda + i] : A[i * lda + k]) * double(trans_b ? B[j * ldb + k] : B[k * ldb + j]);
      float& c = C[i * ldc + j];
      c = float(alpha * s + (beta == 0.0f ? 0.0 : double(beta) * c));
    }
}

}  // namespace flashnerd::engine
