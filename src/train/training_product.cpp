#include "train/training_product.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "core/bf16.h"
#include "core/error.h"

namespace flashnerd::train {

namespace {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace

// oneDNN's scratchpad, made once per product (with its own, a primitive would allocate and
// zero fresh pages on every run).
struct TrainingProduct::Impl {
  dnnl::matmul primitive;
  mutable dnnl::memory a, b, c, scratchpad;
  mutable dnnl::stream stream;
};

TrainingProduct::TrainingProduct(OperandType type, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                                 int64_t lda, int64_t ldb, int64_t ldc, bool accumulate, OperandType output) {
  FN_CHECK(M > 0 && N > 0 && K > 0, "training product: empty shape ", M, "x", N, "x", K);
  using dt = dnnl::memory::data_type;
  const dt operand = type == OperandType::BF16 ? dt::bf16 : dt::f32;
  // strides of the logical (M, K) and (K, N) operands over row-major storage
  const dnnl::memory::desc a_md({M, K}, operand, trans_a ? dnnl::memory::dims{1, lda} : dnnl::memory::dims{lda, 1});
  const dnnl::memory::desc b_md({K, N}, operand, trans_b ? dnnl::memory::dims{1, ldb} : dnnl::memory::dims{ldb, 1});
  const dnnl::memory::desc c_md({M, N}, output == OperandType::BF16 ? dt::bf16 : dt::f32, dnnl::memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  dnnl::engine& engine = cpu_engine();
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, engine);
  impl_ = std::make_shared<Impl>(Impl{dnnl::matmul(pd), dnnl::memory(a_md, engine, nullptr),
                                      dnnl::memory(b_md, engine, nullptr), dnnl::memory(c_md, engine, nullptr),
                                      dnnl::memory(pd.scratchpad_desc(), engine), dnnl::stream(engine)});
}

void TrainingProduct::run(const void* A, const void* B, void* C) const {
  FN_ASSERT(impl_ != nullptr);
  const Impl& p = *impl_;
  p.a.set_data_handle(const_cast<void*>(A));
  p.b.set_data_handle(const_cast<void*>(B));
  p.c.set_data_handle(C);
  p.primitive.execute(p.stream, {{DNNL_ARG_SRC, p.a}, {DNNL_ARG_WEIGHTS, p.b}, {DNNL_ARG_DST, p.c},
                                 {DNNL_ARG_SCRATCHPAD, p.scratchpad}});
  p.stream.wait();
}

bool training_products_support(OperandType type) {
  static const bool bf16 = [] {
    try {
      TrainingProduct(OperandType::BF16, false, false, 4, 4, 4, 4, 4, 4, false);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return type == OperandType::F32 || bf16;
}

void training_product_naive(OperandType type, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                            const void* A, int64_t lda, const void* B, int64_t ldb, float* C, int64_t ldc,
                            bool accumulate) {
  auto read = [type](const void* X, int64_t i) {
    return type == OperandType::BF16 ? double(bf16_value(static_cast<const uint16_t*>(X)[i]))
                                     : double(static_cast<const float*>(X)[i]);
  };
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += read(A, trans_a ? k * lda + i : i * lda + k) * read(B, trans_b ? j * ldb + k : k * ldb + j);
      float& c = C[i * ldc + j];
      c = float(accumulate ? double(c) + s : s);
    }
}

}  // namespace flashnerd::train
