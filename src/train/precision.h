// Mixed precision for training (--precision auto|fp32|bf16): under bf16, libtorch's CPU
// autocast runs matrix products (linear, matmul, bmm) in bf16 with fp32 accumulation, while
// parameters, Adam state, gradients, norms, softmax and the loss stay fp32 (autocast's CPU
// policy keeps reductions and norms in fp32; the loss is computed on fp32 predictions).
// `auto` measures, once at start-up, a product of the model's own shape both ways with
// libtorch and picks bf16 only when it is clearly faster (CPUs with native bf16: AVX-512-BF16
// or AMX through oneDNN); elsewhere bf16 would be emulated and slower.
#pragma once

#include <string>

#include "core/enum_names.h"
#include "core/scope_exit.h"

namespace flashnerd::train {

// What a training run asks for: auto measures, fp32 and bf16 are taken as given.
enum class TrainingPrecision { Auto, FP32, BF16 };
inline constexpr EnumName<TrainingPrecision> kTrainingPrecisionNames[] = {
    {TrainingPrecision::Auto, "auto"}, {TrainingPrecision::FP32, "fp32"}, {TrainingPrecision::BF16, "bf16"}};
inline const char* training_precision_name(TrainingPrecision p) { return enum_name(kTrainingPrecisionNames, p); }

struct PrecisionChoice {
  bool bf16 = false;
  double fp32_gflops = 0, bf16_gflops = 0;  // the start-up measurement (0: not measured)
  std::string reason;                        // for logs and config.json
};

// rows × inner × outer: a product shaped like the model's (batch·window rows, width,
// feed-forward width), measured both ways when requested is Auto or BF16.
PrecisionChoice choose_precision(TrainingPrecision requested, int64_t rows, int64_t inner, int64_t outer);

// bf16 autocast on this thread until the returned guard ends (nothing when !enabled).
ScopeExit bf16_autocast(bool enabled);

}  // namespace flashnerd::train
