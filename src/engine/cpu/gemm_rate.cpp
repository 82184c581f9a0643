// measure_gemm_gflops: the ceiling `flashnerd bench` compares the engines against.
#include <atomic>
#include <chrono>
#include <vector>

#include "core/thread_pool.h"
#include "engine/cpu/kernels.h"
#include "engine/engine.h"

namespace flashnerd::engine {

double measure_gemm_gflops(ThreadPool* pool, GemmBackend gemm, double seconds) {
  cpu::use_single_threaded_blas();
  constexpr int M = 512, N = 1024, K = 1024;
  const int threads = pool ? pool->size() : 1;
  std::vector<AlignedBuffer> a, w, c;
  for (int i = 0; i < threads; ++i) {
    a.emplace_back(size_t(M) * K);
    w.emplace_back(size_t(N) * K);
    c.emplace_back(size_t(M) * N);
    for (size_t j = 0; j < a.back().size(); ++j) a.back().data()[j] = float(j % 7) * 0.1f;
    for (size_t j = 0; j < w.back().size(); ++j) w.back().data()[j] = float(j % 5) * 0.1f;
  }
  std::vector<long> reps(size_t(threads), 0);
  using clock = std::chrono::steady_clock;
  auto run = [&](double budget) {
    const auto t0 = clock::now();
    auto body = [&](int64_t, int64_t, int worker) {
      long n = 0;
      do {
        cpu::gemm_nt(gemm, M, N, K, a[size_t(worker)].data(), K, w[size_t(worker)].data(), K, 0.f,
                     c[size_t(worker)].data(), N);
        ++n;
      } while (std::chrono::duration<double>(clock::now() - t0).count() < budget);
      reps[size_t(worker)] = n;
    };
    if (pool && threads > 1)
      pool->parallel_for(threads, body);
    else
      body(0, 1, 0);
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  run(0.1 * seconds);  // warm-up
  const double elapsed = run(seconds);
  long total = 0;
  for (long r : reps) total += r;
  return 2.0 * M * N * K * double(total) / elapsed / 1e9;
}

}  // namespace flashnerd::engine
