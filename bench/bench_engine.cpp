// Google Benchmark of the inference engine: GEMM kernels against each other and the naive
// reference at the engine's shapes, and the step latency per architecture and batch
// (paper-cartpole size, random weights, pre-normalized inputs, full histories).
//   ./build/bench/bench_engine --benchmark_filter=Step
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "engine/cpu/kernels.h"
#include "engine/engine.h"

namespace fe = flashnerd::engine;
using flashnerd::Arch;

namespace {

std::vector<float> random_vec(size_t n, uint64_t seed) {
  flashnerd::Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = float(rng.uniform(-1, 1));
  return v;
}

// args: backend, M, N, K
void BM_Gemm(benchmark::State& state) {
  const auto backend = fe::GemmBackend(state.range(0));
  const int M = int(state.range(1)), N = int(state.range(2)), K = int(state.range(3));
  auto A = random_vec(size_t(M) * K, 1), W = random_vec(size_t(N) * K, 2);
  std::vector<float> C(size_t(M) * N);
  fe::cpu::use_single_threaded_blas();
  for (auto _ : state) {
    if (backend == fe::GemmBackend::Auto)  // "Auto" slot benchmarks the own small kernel
      fe::cpu::gemm_nt_small(M, N, K, A.data(), K, W.data(), K, 0.f, C.data(), N);
    else
      fe::cpu::gemm_nt(backend, M, N, K, A.data(), K, W.data(), K, 0.f, C.data(), N);
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * M * N * K * double(state.iterations()),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.SetLabel(state.range(0) == 0 ? "small" : fe::gemm_backend_name(backend));
}

void gemm_args(benchmark::internal::Benchmark* b) {
  // paper-cartpole FlashNeRD fused projection: N = 6·64 + 2·672, K = 256
  for (int backend : {0, 1, 2})
    for (int M : {1, 2, 4, 8, 16, 32, 64, 128}) b->Args({backend, M, 1728, 256});
  b->Args({3, 4, 1728, 256});  // naive reference
}
BENCHMARK(BM_Gemm)->Apply(gemm_args)->Unit(benchmark::kMicrosecond);

// args: arch (0 FlashNeRD, 1 NeRD), batch, threads
void BM_Step(benchmark::State& state) {
  const Arch arch = state.range(0) == 0 ? Arch::FlashNeRD : Arch::NeRD;
  const int B = int(state.range(1));
  static std::shared_ptr<const fe::Model> models[2];
  auto& model = models[state.range(0)];
  if (!model) model = fe::Model::random(fe::synthetic_config(arch, flashnerd::ModelPreset::PaperCartpole, 6, 4), 1);
  flashnerd::ThreadPool pool(int(state.range(2)));
  fe::ContextOptions opt;
  opt.max_batch = B;
  opt.pool = &pool;
  fe::Context ctx(*model, opt);
  auto x = random_vec(size_t(B) * model->input_dim(), 3);
  std::vector<float> y(size_t(B) * model->output_dim());
  for (int t = 0; t < model->config().history(); ++t) fe::step_normalized(*model, ctx, B, x.data(), y.data());
  for (auto _ : state) fe::step_normalized(*model, ctx, B, x.data(), y.data());
  state.counters["Mtrans/s"] = benchmark::Counter(double(B) * double(state.iterations()) / 1e6,
                                                  benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flashnerd::flops_per_transition(model->config()) * B * double(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
  state.SetLabel(flashnerd::arch_name(arch));
}
BENCHMARK(BM_Step)
    ->ArgsProduct({{0, 1}, {1, 16, 256}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MinTime(0.3);

}  // namespace

BENCHMARK_MAIN();
