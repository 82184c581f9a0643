#include "train/precision.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <chrono>

#include "core/error.h"

namespace flashnerd::train {

namespace {

// GFLOP/s of x · wᵀ at dtype over at least ~50 ms (after a warm-up).
double product_gflops(torch::ScalarType dtype, int64_t rows, int64_t inner, int64_t outer) {
  torch::NoGradGuard no_grad;
  auto gen = at::detail::createCPUGenerator(1);
  auto x = torch::randn({rows, inner}, gen).to(dtype), w = torch::randn({outer, inner}, gen).to(dtype);
  for (int i = 0; i < 2; ++i) torch::mm(x, w.t());
  const auto t0 = std::chrono::steady_clock::now();
  int n = 0;
  double seconds = 0;
  do {
    torch::mm(x, w.t());
    ++n;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (seconds < 0.05 && n < 1000);
  return 2.0 * double(rows) * double(inner) * double(outer) * n / seconds / 1e9;
}

}  // namespace

PrecisionChoice choose_precision(TrainingPrecision requested, int64_t rows, int64_t inner, int64_t outer) {
  PrecisionChoice c;
  if (requested == TrainingPrecision::FP32) {
    c.reason = "fp32 requested";
    return c;
  }
  c.fp32_gflops = product_gflops(torch::kFloat, rows, inner, outer);
  c.bf16_gflops = product_gflops(torch::kBFloat16, rows, inner, outer);
  const bool faster = c.bf16_gflops > 1.2 * c.fp32_gflops;
  c.bf16 = requested == TrainingPrecision::BF16 || faster;
  c.reason = str_cat(training_precision_name(requested), ": bf16 products measured at ", int(c.bf16_gflops), " GFLOP/s vs fp32 ", int(c.fp32_gflops),
                     " (", rows, "x", inner, "x", outer, ")", requested == TrainingPrecision::BF16 && !faster ? "; bf16 is not faster on this CPU" : "");
  return c;
}

ScopeExit bf16_autocast(bool enabled) {
  if (!enabled) return ScopeExit();
  const bool was_enabled = at::autocast::is_cpu_enabled();
  at::autocast::set_cpu_enabled(true);
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  return ScopeExit([was_enabled] {
    at::autocast::set_cpu_enabled(was_enabled);
    if (!was_enabled) at::autocast::clear_cache();
  });
}

}  // namespace flashnerd::train
