// One PPO update (GAE, then 5 epochs x 4 minibatches of Adam steps) on its own, at rsl_rl's
// locomotion sizes: 48 observations, 12 actions, actor and critic 128-64-32, envs x 24 steps of
// recorded rollout. Fused (rl/fused_ppo_update.h) against libtorch's autograd (the reference),
// in one run, at OpenBLAS thread counts 1 and 2. Prints ms per update.
#include <benchmark/benchmark.h>

#include "engine/blas.h"
#include "engine/engine.h"
#include "rl/ppo.h"
#include "train/torch_threads.h"

namespace {

constexpr int kObs = 48, kAct = 12;

void BM_PpoUpdate(benchmark::State& state) {
  const int envs = int(state.range(0));
  const bool reference = state.range(1) != 0;
  flashnerd::train::configure_threads();  // libtorch's threads and heap settings, as ppo runs them
  const flashnerd::ScopeExit blas = flashnerd::engine::blas_threads(int(state.range(2)));
  flashnerd::rl::PpoConfig c;  // rsl_rl's defaults: 24 steps, 5 epochs, 4 minibatches, 128-64-32
  torch::manual_seed(1);
  flashnerd::rl::Ppo ppo(c, kObs, kAct, envs);
  ppo.use_fused_update(!reference, int(state.range(2)));
  flashnerd::Rng rng(3);
  const size_t E = size_t(envs);
  std::vector<float> obs(E * kObs), actions(E * kAct), rewards(E), zeros(E);
  std::vector<uint8_t> terminated(E), timed_out(E);
  for (int t = 0; t < c.steps_per_env; ++t) {
    for (auto& x : obs) x = float(rng.normal());
    ppo.act(t, obs.data(), rng, actions.data());
    for (int e = 0; e < envs; ++e) {
      rewards[size_t(e)] = float(rng.normal());
      terminated[size_t(e)] = rng.uniform() < 0.02;
    }
    ppo.record(t, rewards.data(), terminated.data(), timed_out.data(), zeros.data());
  }
  for (auto _ : state) {
    flashnerd::Rng order(7);
    benchmark::DoNotOptimize(ppo.update(obs.data(), order));
  }
  state.SetLabel(reference ? "autograd (reference)" : "fused");
  state.counters["transitions"] = double(envs) * c.steps_per_env;
}

}  // namespace

// envs, reference (1) or fused (0), OpenBLAS threads
BENCHMARK(BM_PpoUpdate)
    ->ArgsProduct({{1024}, {1, 0}, {1, 2}})
    ->ArgNames({"envs", "reference", "blas_threads"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK_MAIN();
