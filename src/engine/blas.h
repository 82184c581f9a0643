// Matrix products and BLAS threads for code outside a step (the fused PPO update, libtorch
// training): the engine's oneDNN sgemm, its reference, and a scope that raises OpenBLAS's own
// thread count.
#pragma once

#include <cstdint>

#include "core/scope_exit.h"

namespace flashnerd::engine {

// OpenBLAS's own thread count, process-wide. The engine runs OpenBLAS single-threaded inside
// its own threads (set when a context is made); code outside a step that wants BLAS threads
// (a libtorch training update) raises it for a scope: the returned guard restores it.
ScopeExit blas_threads(int threads);

// C (M, N; ldc) = alpha · op(A) · op(B) + beta · C, row-major, op(X) = Xᵀ where trans_x:
// A is (M, K) or (K, M) with leading dimension lda, B (K, N) or (N, K). oneDNN's sgemm (the
// CPU's widest vector ISA) on `threads` threads, for products outside a step (the fused PPO
// update). With beta 0, C is never read. The same bits for the same inputs and thread count.
// sgemm_naive: the reference (double accumulation).
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int threads = 1);
void sgemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                 int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace flashnerd::engine
