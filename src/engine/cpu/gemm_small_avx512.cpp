// fp32 small-M GEMM, AVX-512 variant of gemm_nt_small (compiled with -mavx512f/bw/dq/vl;
// kernel_variants.h says why this file stays free of inline library code): MB×NB
// independent 16-wide FMA chains along K, a masked K tail, one reduction per output.
#include "engine/cpu/simd.h"

#include "engine/cpu/kernel_variants.h"

namespace flashnerd::engine::cpu {

namespace {

template <int MB, int NB>
void micro_kernel(int K, const float* A, int lda, const float* W, int ldw, float beta, float* C,
                  int ldc) {
  __m512 acc[MB][NB];
  for (int m = 0; m < MB; ++m)
    for (int n = 0; n < NB; ++n) acc[m][n] = _mm512_setzero_ps();
  int k = 0;
  for (; k + 16 <= K; k += 16) {
    __m512 a[MB];
    for (int m = 0; m < MB; ++m) a[m] = _mm512_loadu_ps(A + size_t(m) * lda + k);
    for (int n = 0; n < NB; ++n) {
      const __m512 w = _mm512_loadu_ps(W + size_t(n) * ldw + k);
      for (int m = 0; m < MB; ++m) acc[m][n] = _mm512_fmadd_ps(a[m], w, acc[m][n]);
    }
  }
  if (k < K) {
    const __mmask16 tail = __mmask16((1u << (K - k)) - 1u);
    __m512 a[MB];
    for (int m = 0; m < MB; ++m) a[m] = _mm512_maskz_loadu_ps(tail, A + size_t(m) * lda + k);
    for (int n = 0; n < NB; ++n) {
      const __m512 w = _mm512_maskz_loadu_ps(tail, W + size_t(n) * ldw + k);
      for (int m = 0; m < MB; ++m) acc[m][n] = _mm512_fmadd_ps(a[m], w, acc[m][n]);
    }
  }
  for (int m = 0; m < MB; ++m)
    for (int n = 0; n < NB; ++n) {
      const float v = _mm512_reduce_add_ps(acc[m][n]);
      float* c = C + size_t(m) * ldc + n;
      *c = beta != 0.f ? *c + v : v;
    }
}

using MicroKernel = void (*)(int, const float*, int, const float*, int, float, float*, int);
template <int MB, int... NB>
constexpr MicroKernel by_columns[sizeof...(NB)] = {micro_kernel<MB, NB>...};
// [rows − 1][columns − 1]: one row takes 8 columns at a time, more rows 4.
const MicroKernel* const kernels[4] = {by_columns<1, 1, 2, 3, 4, 5, 6, 7, 8>, by_columns<2, 1, 2, 3, 4>,
                                       by_columns<3, 1, 2, 3, 4>, by_columns<4, 1, 2, 3, 4>};

}  // namespace

void gemm_nt_small_avx512(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                          float beta, float* C, int ldc) {
  // W rows of one column block stay in L1 while the few rows of A pass them: W is read once.
  const int cols = M == 1 ? 8 : 4;
  for (int n0 = 0; n0 < N; n0 += cols) {
    const int nb = N - n0 < cols ? N - n0 : cols;
    for (int m0 = 0; m0 < M; m0 += 4) {
      const int mb = M - m0 < 4 ? M - m0 : 4;
      kernels[mb - 1][nb - 1](K, A + size_t(m0) * lda, lda, W + size_t(n0) * ldw, ldw, beta,
                              C + size_t(m0) * ldc + n0, ldc);
    }
  }
}

}  // namespace flashnerd::engine::cpu
