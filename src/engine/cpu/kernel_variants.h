// Kernel variants compiled with their own ISA flags (engine/CMakeLists.txt) and called only
// when cpu_features() says the CPU runs them. Their files include no project header with
// inline code and instantiate no C++ library template: a COMDAT copy built for a wider ISA
// could otherwise be linked into baseline code and fault on an AVX2-only CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flashnerd::engine::cpu {

// fp32 C (M, N; ldc) = beta·C + A (M, K; lda) · Wᵀ, W (N, K; ldw), for few rows (AVX-512:
// 16-wide FMA chains along K, masked K tail). Same contract as gemm_nt_small (kernels.h).
void gemm_nt_small_avx512(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                          float beta, float* C, int ldc);

// bf16 products with fp32 accumulation (layout in bf16.h): C (M, N; ldc) = beta·C +
// bf16(A) · Wpᵀ, A fp32 (M, K; lda) rounded to nearest even, Wp packed by pack_bf16.
// a_bf16 is scratch of bf16_scratch_elems(M, K) elements (64-byte aligned).
void gemm_bf16_avx512(int M, int N, int K, const float* A, int lda, const uint16_t* Wp,
                      float beta, float* C, int ldc, uint16_t* a_bf16);
void gemm_bf16_amx(int M, int N, int K, const float* A, int lda, const uint16_t* Wp, float beta,
                   float* C, int ldc, uint16_t* a_bf16);
// Rows of A to bf16 rows of Kp elements (zero beyond K); rows M..Mp−1 zero (AVX-512-BF16).
void convert_rows_bf16_avx512(int M, int Mp, int K, int Kp, const float* A, int lda, uint16_t* dst);

}  // namespace flashnerd::engine::cpu
