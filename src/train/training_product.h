// One matrix product of the fused training step (train/fused_flash_pass.h), its shape fixed
// when made: C (M, N) = op(A) · op(B), or C += op(A) · op(B) when accumulating; row-major with
// leading dimensions, op(X) = Xᵀ where trans_x (A is then stored (K, M), B (N, K)). A and B are
// both fp32 or both bf16 (fp32 accumulation); C is fp32, or rounded to bf16 when asked.
// oneDNN's matmul on the CPU's widest ISA (AMX or AVX-512-BF16 for bf16 where present), its
// primitive and scratchpad made once: a run only points it at the buffers. Threads: the
// calling thread's OpenMP team size when the product is made, which a run must keep.
#pragma once

#include <cstdint>
#include <memory>

namespace flashnerd::train {

enum class OperandType { F32, BF16 };

class TrainingProduct {
 public:
  TrainingProduct() = default;
  TrainingProduct(OperandType type, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, int64_t lda,
                  int64_t ldb, int64_t ldc, bool accumulate, OperandType output = OperandType::F32);
  void run(const void* A, const void* B, void* C) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// Whether oneDNN runs products of this operand type here (bf16 needs AVX-512 at least).
bool training_products_support(OperandType type);

// The reference (double accumulation) for tests: A and B read as `type` stores them.
void training_product_naive(OperandType type, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                            const void* A, int64_t lda, const void* B, int64_t ldb, float* C, int64_t ldc,
                            bool accumulate);

}  // namespace flashnerd::train
