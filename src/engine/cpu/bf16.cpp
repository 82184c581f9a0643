#include "engine/cpu/bf16.h"

#include <cstring>

#include "core/bf16.h"

namespace flashnerd::engine::cpu {

uint16_t to_bf16(float x) { return bf16_round(x); }

float from_bf16(uint16_t b) { return bf16_value(b); }

void pack_bf16(int N, int K, const float* W, int ldw, uint16_t* dst) {
  const int Kp = bf16_padded(K), Np = bf16_padded(N);
  std::memset(dst, 0, bf16_packed_elems(N, K) * sizeof(uint16_t));
  for (int n = 0; n < N && n < Np; ++n)
    for (int k = 0; k < K; ++k)
      dst[size_t(n / 16) * size_t(Kp) * 16 + size_t(k / 2) * 32 + size_t(n % 16) * 2 + size_t(k % 2)] =
          to_bf16(W[size_t(n) * ldw + k]);
}

void gemm_bf16_naive(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                     float beta, float* C, int ldc) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += double(from_bf16(to_bf16(A[size_t(m) * lda + k]))) * from_bf16(to_bf16(W[size_t(n) * ldw + k]));
      float& c = C[size_t(m) * ldc + n];
      c = float(beta != 0.f ? c + s : s);
    }
}

}  // namespace flashnerd::engine::cpu
