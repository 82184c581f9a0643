// The data-parallel gradient all-reduce on its own (train/data_parallel.h): two ranks of one
// process over Gloo on loopback, one flat buffer of a model's gradients per call, as the
// trainer does once per update. Separates the transfer from the waiting for the slower
// rank that `train --json`'s "allreduce" seconds include. Prints ms per all-reduce.
#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include <thread>

#include "core/loopback_port.h"
#include "train/data_parallel.h"

namespace {

// Gradients of `parameters` floats in 30 tensors (a small preset has ~30 parameter tensors).
std::vector<at::Tensor> parameters_with_gradients(int64_t parameters) {
  std::vector<at::Tensor> p;
  for (int i = 0; i < 30; ++i) {
    p.push_back(torch::zeros({parameters / 30}).set_requires_grad(true));
    p.back().mutable_grad() = torch::ones({parameters / 30});
  }
  return p;
}

void BM_GradientAllReduce(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int port = flashnerd::free_loopback_port();
  std::thread peer([&] {  // rank 1 all-reduces as long as rank 0 does
    flashnerd::train::DataParallel dp({1, 2, "127.0.0.1", port, 60});
    auto p = parameters_with_gradients(n);
    std::vector<double> sums{1, 1};
    while (true) {
      dp.sum_gradients(p, sums, [](const std::vector<double>&) { return 0.5; });
      if (sums[0] < 0) break;  // rank 0's stop signal
      sums = {1, 1};
    }
  });
  flashnerd::train::DataParallel dp({0, 2, "127.0.0.1", port, 60});
  auto p = parameters_with_gradients(n);
  std::vector<double> sums{1, 1};
  for (auto _ : state) {
    sums = {1, 1};
    dp.sum_gradients(p, sums, [](const std::vector<double>&) { return 0.5; });
  }
  sums = {-10, 1};
  dp.sum_gradients(p, sums, [](const std::vector<double>&) { return 0.5; });
  peer.join();
  state.counters["MB"] = double(n) * 4 / 1e6;
}
BENCHMARK(BM_GradientAllReduce)->Arg(86922)->Arg(706590)->Arg(2789432)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
