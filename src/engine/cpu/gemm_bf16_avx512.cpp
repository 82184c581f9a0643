// bf16 GEMM with AVX-512-BF16 (compiled with -mavx512f/bw/dq/vl -mavx512bf16; kernel_variants.h
// says why this file stays free of inline library code). A is rounded to bf16 rows once per
// call; each 8-row × 32-column block of C is 16 fp32 accumulators fed by vdpbf16ps over pairs
// of K, with one broadcast A pair per row and two panel rows of W per step (bf16.h layout).
#include "engine/cpu/simd.h"

#include <cstring>

#include "engine/cpu/kernel_variants.h"

namespace flashnerd::engine::cpu {

namespace {

__mmask16 lanes(int n) { return n >= 16 ? __mmask16(0xffff) : n > 0 ? __mmask16((1u << n) - 1u) : __mmask16(0); }

template <int MR>
void block(int Kp, const uint16_t* a, const uint16_t* w0, const uint16_t* w1, int cols, float beta,
           float* C, int ldc) {
  __m512 acc0[MR], acc1[MR];
  for (int r = 0; r < MR; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  const int K2 = Kp / 2;
  for (int k2 = 0; k2 < K2; ++k2) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(w0 + size_t(k2) * 32);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(w1 + size_t(k2) * 32);
    for (int r = 0; r < MR; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + size_t(r) * Kp + 2 * k2, 4);
      const __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
      acc0[r] = _mm512_dpbf16_ps(acc0[r], av, b0);
      acc1[r] = _mm512_dpbf16_ps(acc1[r], av, b1);
    }
  }
  const __mmask16 m0 = lanes(cols), m1 = lanes(cols - 16);
  for (int r = 0; r < MR; ++r) {
    float* c = C + size_t(r) * ldc;
    if (beta != 0.f) {
      acc0[r] = _mm512_add_ps(acc0[r], _mm512_maskz_loadu_ps(m0, c));
      acc1[r] = _mm512_add_ps(acc1[r], _mm512_maskz_loadu_ps(m1, c + 16));
    }
    _mm512_mask_storeu_ps(c, m0, acc0[r]);
    _mm512_mask_storeu_ps(c + 16, m1, acc1[r]);
  }
}

using Block = void (*)(int, const uint16_t*, const uint16_t*, const uint16_t*, int, float, float*, int);
constexpr Block blocks[8] = {block<1>, block<2>, block<3>, block<4>, block<5>, block<6>, block<7>, block<8>};

int round32(int n) { return (n + 31) / 32 * 32; }

}  // namespace

void convert_rows_bf16_avx512(int M, int Mp, int K, int Kp, const float* A, int lda, uint16_t* dst) {
  for (int m = 0; m < M; ++m) {
    const float* a = A + size_t(m) * lda;
    uint16_t* o = dst + size_t(m) * Kp;
    for (int k = 0; k < Kp; k += 32) {
      const __m512 lo = _mm512_maskz_loadu_ps(lanes(K - k), a + k);
      const __m512 hi = _mm512_maskz_loadu_ps(lanes(K - k - 16), a + k + 16);
      _mm512_storeu_si512(o + k, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
    }
  }
  if (Mp > M) std::memset(dst + size_t(M) * Kp, 0, size_t(Mp - M) * size_t(Kp) * sizeof(uint16_t));
}

void gemm_bf16_avx512(int M, int N, int K, const float* A, int lda, const uint16_t* Wp, float beta,
                      float* C, int ldc, uint16_t* a_bf16) {
  if (M <= 0 || N <= 0) return;
  const int Kp = round32(K);
  convert_rows_bf16_avx512(M, M, K, Kp, A, lda, a_bf16);
  const size_t panel = size_t(Kp) * 16;  // elements of one 16-column panel
  // column blocks outside, row blocks inside: a block's two panels stay in L1 while A streams
  for (int n0 = 0; n0 < N; n0 += 32) {
    const uint16_t* w0 = Wp + size_t(n0 / 16) * panel;
    const int cols = N - n0 < 32 ? N - n0 : 32;
    for (int m0 = 0; m0 < M; m0 += 8) {
      const int mr = M - m0 < 8 ? M - m0 : 8;
      blocks[mr - 1](Kp, a_bf16 + size_t(m0) * Kp, w0, w0 + panel, cols, beta, C + size_t(m0) * ldc + n0, ldc);
    }
  }
}

}  // namespace flashnerd::engine::cpu
