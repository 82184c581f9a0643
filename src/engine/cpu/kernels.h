// CPU kernels of the engine. Every optimized kernel has a naive reference beside it
// (suffix _naive) and a randomized equivalence test with odd sizes (tests/engine/kernels_test).
// Matrices are row-major with explicit leading dimensions; weights are in the PyTorch Linear
// layout W (N, K), so every product is C = A · Wᵀ.
#pragma once

#include "core/model_config.h"
#include "engine/engine.h"

namespace flashnerd::engine::cpu {

// Rows up to which GemmBackend::Auto uses the own small-M kernel instead of OpenBLAS.
constexpr int kSmallGemmRows = 8;

// C (M, N; ldc) = beta · C + A (M, K; lda) · Wᵀ with W (N, K; ldw); beta is 0 or 1 (with
// beta 0, C is never read). OpenBLAS is called single-threaded (the engine threads itself).
// Auto's small-M kernel is the AVX-512 one where max_isa and the CPU allow, else AVX2.
void gemm_nt(GemmBackend backend, int M, int N, int K, const float* A, int lda, const float* W,
             int ldw, float beta, float* C, int ldc, Isa max_isa = Isa::AMX_BF16);
// Own kernel: 3×4 (one row: 1×8) register blocks of 8-wide FMA chains along K (AVX2), for
// few rows: reads W once.
void gemm_nt_small(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                   float beta, float* C, int ldc);
// Reference: double accumulation.
void gemm_nt_naive(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                   float beta, float* C, int ldc);

// Makes OpenBLAS single-threaded (process-wide; idempotent).
void use_single_threaded_blas();

// C (M, N) += bias (N) on every row.
void add_bias(int M, int N, const float* bias, float* C, int ldc);
// C (M, N) += A (M, N), row by row.
void add_rows(int M, int N, const float* A, int lda, float* C, int ldc);

// Normalization without the weight (folded into the next GEMM): Z = H / sqrt(mean(H²) + ε)
// (RMS) or (H − mean) / sqrt(var + ε) (layer), per row of d.
void rms_normalize(int M, int d, const float* H, int ldh, float* Z, int ldz);
void layer_normalize(int M, int d, const float* H, int ldh, float* Z, int ldz);
void rms_normalize_naive(int M, int d, const float* H, int ldh, float* Z, int ldz);
void layer_normalize_naive(int M, int d, const float* H, int ldh, float* Z, int ldz);

// Elementwise, vectorized (Eigen packet math): x ← SiLU(x), x ← GELU(x) (erf form).
void silu_inplace(int M, int n, float* X, int ldx);
void gelu_inplace(int M, int n, float* X, int ldx);
void relu_inplace(int M, int n, float* X, int ldx);
// Gated unit: out (M, f) = act(gate) ⊙ up, gate and up (M, f) with leading dimension ldg.
void glu(FfnActivation act, int M, int f, const float* gate, const float* up, int ldg, float* out,
         int ldo);
// Scalar references (double inside).
float silu_naive(float x);
float gelu_naive(float x);
float act_naive(FfnActivation act, float x);
void glu_naive(FfnActivation act, int M, int f, const float* gate, const float* up, int ldg,
               float* out, int ldo);

// Dot product of n floats (vectorized).
float dot(const float* a, const float* b, int n);

}  // namespace flashnerd::engine::cpu
