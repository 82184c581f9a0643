// One training update's loss and gradient for FlashNeRD `small` at the quadruped's sizes (73
// inputs with probes, 36 outputs, windows of 10 frames, batch 1024): libtorch's autograd (the
// landed trainer, one intra-op thread as it runs) against the fused pass
// (train/fused_flash_pass.h) at 1 and 2 threads, fp32 and bf16 products, in one run. Then each
// product of the fused pass alone, in GFLOP/s. Prints windows/s.
#include <benchmark/benchmark.h>

#include "core/rng.h"
#include "train/fused_flash_pass.h"
#include "train/models.h"
#include "train/precision.h"
#include "train/torch_threads.h"
#include "train/training_product.h"
#include "train/unrolled_loss.h"

namespace {

using namespace flashnerd;
using namespace flashnerd::train;

constexpr int kInputs = 73, kOutputs = 36, kWindow = 10;

ModelConfig quadruped_small() {
  ModelConfig c;
  c.arch = Arch::FlashNeRD;
  c.robot = "quadruped";
  c.timestep = 0.02;
  c.layout.nq = 19;
  c.layout.nv = 18;
  c.layout.nu = 12;
  c.layout.floating_base = true;
  c.layout.joint_wrapped.assign(size_t(c.layout.nq - 7), 0);
  apply_preset(ModelPreset::Small, c);
  c.state_dim = 33;
  c.probe_dim = 28;
  c.input_dim = kInputs;
  c.output_dim = kOutputs;
  c.norm.input_mean.assign(kInputs, 0.0);
  c.norm.input_std.assign(kInputs, 1.0);
  c.norm.target_mean.assign(kOutputs, 0.0);
  c.norm.target_std.assign(kOutputs, 1.0);
  return c;
}

WindowBatch random_batch(int batch) {
  WindowBatch b;
  b.batch = batch;
  b.length = kWindow;
  b.input_dim = kInputs;
  b.output_dim = kOutputs;
  Rng rng(5);
  b.inputs.resize(size_t(batch) * kWindow * kInputs);
  b.targets.resize(size_t(batch) * kWindow * kOutputs);
  for (auto& x : b.inputs) x = float(rng.normal());
  for (auto& x : b.targets) x = float(0.3 * rng.normal());
  b.mask.assign(size_t(batch) * kWindow, 1.0f);
  return b;
}

// threads 0: autograd; else the fused pass on that many threads
void BM_TrainingUpdate(benchmark::State& state) {
  const int batch = int(state.range(0)), threads = int(state.range(1));
  const bool bf16 = state.range(2) != 0;
  if (bf16 && !training_products_support(OperandType::BF16)) {
    state.SkipWithError("no bf16 products on this CPU");
    return;
  }
  configure_threads();
  const ModelConfig c = quadruped_small();
  auto model = make_model(c, 1);
  const WindowBatch b = random_batch(batch);
  const double scale = 1.0 / (double(batch) * kWindow * kOutputs);
  if (threads == 0) {
    for (auto _ : state) {
      model->zero_grad();
      WeightedLoss loss;
      {
        const ScopeExit autocast = bf16_autocast(bf16);
        loss = teacher_forced_loss(*model, b);
      }
      (loss.sse * scale).backward();
    }
    state.SetLabel(bf16 ? "autograd, bf16 autocast" : "autograd, fp32");
  } else {
    FusedFlashPass pass(*model, batch, kWindow, bf16, threads);
    for (auto _ : state)
      benchmark::DoNotOptimize(pass.forward_backward(b.inputs.data(), b.targets.data(), b.mask.data(), scale));
    state.SetLabel(bf16 ? "fused, bf16 operands" : "fused, fp32");
    state.counters["products"] = pass.product_seconds() / pass.seconds();
  }
  state.counters["windows/s"] = benchmark::Counter(double(batch), benchmark::Counter::kIsIterationInvariantRate);
}

// The fused pass's products at batch 1024 (rows 10 240), d 128, [qkv; gate_up] 896, FFN 320.
void BM_TrainingProduct(benchmark::State& state) {
  const bool bf16 = state.range(4) != 0;
  if (bf16 && !training_products_support(OperandType::BF16)) {
    state.SkipWithError("no bf16 products on this CPU");
    return;
  }
  const bool ta = state.range(3) == 1, tb = state.range(3) == 2;
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const int64_t lda = ta ? M : K, ldb = tb ? K : N;
  std::vector<uint16_t> a16(size_t(M * K), 0x3f80), b16(size_t(K * N), 0x3f80);
  std::vector<float> a32(size_t(M * K), 1.0f), b32(size_t(K * N), 1.0f), c(size_t(M * N));
  const TrainingProduct p(bf16 ? OperandType::BF16 : OperandType::F32, ta, tb, M, N, K, lda, ldb, N, false);
  const void* A = bf16 ? static_cast<const void*>(a16.data()) : a32.data();
  const void* B = bf16 ? static_cast<const void*>(b16.data()) : b32.data();
  for (auto _ : state) p.run(A, B, c.data());
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(M) * N * K * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(ta ? "weight gradient (Aᵀ·B)" : tb ? "forward (A·Wᵀ)"
                 : state.range(3) == 3 ? "weight gradient, dC stored transposed (A·B)" : "input gradient (dC·W)");
}

}  // namespace

// batch, threads (0: autograd), bf16
BENCHMARK(BM_TrainingUpdate)
    ->ArgsProduct({{1024}, {0, 1, 2}, {1, 0}})
    ->ArgNames({"batch", "threads", "bf16"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
// M, N, K, transposed operand (0 none, 1 A, 2 B; 3 none, a weight gradient whose dC the pass
// would have to write transposed), bf16
BENCHMARK(BM_TrainingProduct)
    ->Args({10240, 896, 128, 2, 1})
    ->Args({10240, 128, 320, 2, 1})
    ->Args({10240, 128, 896, 0, 1})
    ->Args({896, 128, 10240, 1, 1})
    ->Args({128, 320, 10240, 1, 1})
    ->Args({10240, 320, 128, 0, 1})
    ->Args({896, 128, 10240, 3, 1})
    ->ArgNames({"M", "N", "K", "trans", "bf16"})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

BENCHMARK_MAIN();
