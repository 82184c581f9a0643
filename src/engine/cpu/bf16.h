// bf16 weights and the reference bf16 product (portable code). Layout of a packed weight
// W (N, K): panels of 16 output columns, each (Kp/2, 16, 2): element (n, k) at
// [n/16][k/2][n%16][k%2], Kp = K rounded up to 32, Np = N rounded up to 32, zero padding.
// One panel row is one 512-bit vector for vdpbf16ps and one 64-byte row of an AMX B tile,
// so both bf16 kernels read the same packed block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flashnerd::engine::cpu {

constexpr int kBf16Block = 32;  // K, N and A-row padding of the bf16 kernels

inline int bf16_padded(int n) { return (n + kBf16Block - 1) / kBf16Block * kBf16Block; }
inline size_t bf16_packed_elems(int N, int K) { return size_t(bf16_padded(N)) * size_t(bf16_padded(K)); }
// Scratch for A rounded to bf16: (round32(M), Kp).
inline size_t bf16_scratch_elems(int M, int K) { return size_t(bf16_padded(M)) * size_t(bf16_padded(K)); }

// fp32 -> bf16, round to nearest even (NaN stays NaN); bf16 -> fp32 exactly.
uint16_t to_bf16(float x);
float from_bf16(uint16_t b);

void pack_bf16(int N, int K, const float* W, int ldw, uint16_t* dst);

// Reference: A and W rounded to bf16 as the kernels round them, products summed in double.
void gemm_bf16_naive(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                     float beta, float* C, int ldc);

}  // namespace flashnerd::engine::cpu
