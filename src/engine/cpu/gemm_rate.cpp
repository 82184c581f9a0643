// The ceilings `flashnerd bench` compares the engines against, measured in the same run:
// fp32 sgemm through the engine's backend, and bf16 products through oneDNN's matmul (the
// machine's best library kernel: AMX or AVX-512-BF16 brgemm) and through the engine's own
// bf16 kernel. Every thread of the pool runs its own single-threaded product.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cpu/bf16.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/kernel_variants.h"
#include "engine/cpu/kernels.h"
#include "engine/engine.h"
#include "engine/gemm_rate.h"

namespace flashnerd::engine {

namespace {

constexpr int kM = 512, kN = 1024, kK = 1024;

// Runs body(worker) repeatedly on every thread for about `seconds` (after a 10% warm-up);
// returns GFLOP/s of (kM, kN, kK) products summed over threads.
double rate(ThreadPool* pool, double seconds, const std::function<void(int)>& body) {
  const int threads = pool ? pool->size() : 1;
  std::vector<long> reps(size_t(threads), 0);
  using clock = std::chrono::steady_clock;
  auto run = [&](double budget) {
    const auto t0 = clock::now();
    auto loop = [&](int64_t, int64_t, int worker) {
      long n = 0;
      do {
        body(worker);
        ++n;
      } while (std::chrono::duration<double>(clock::now() - t0).count() < budget);
      reps[size_t(worker)] = n;
    };
    if (pool && threads > 1)
      pool->parallel_for(threads, loop);
    else
      loop(0, 1, 0);
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  run(0.1 * seconds);
  const double elapsed = run(seconds);
  long total = 0;
  for (long r : reps) total += r;
  return 2.0 * kM * kN * kK * double(total) / elapsed / 1e9;
}

std::vector<float> filled(size_t n, int mod) {
  std::vector<float> v(n);
  for (size_t j = 0; j < n; ++j) v[j] = float(j % size_t(mod)) * 0.1f - 0.2f;
  return v;
}

}  // namespace

double measure_gemm_gflops(ThreadPool* pool, GemmBackend gemm, double seconds) {
  cpu::use_single_threaded_blas();
  const int threads = pool ? pool->size() : 1;
  std::vector<std::vector<float>> a, w, c;
  for (int i = 0; i < threads; ++i) {
    a.push_back(filled(size_t(kM) * kK, 7));
    w.push_back(filled(size_t(kN) * kK, 5));
    c.push_back(std::vector<float>(size_t(kM) * kN));
  }
  return rate(pool, seconds, [&](int t) {
    cpu::gemm_nt(gemm, kM, kN, kK, a[size_t(t)].data(), kK, w[size_t(t)].data(), kK, 0.f, c[size_t(t)].data(), kN);
  });
}

double measure_bf16_gemm_gflops(ThreadPool* pool, Bf16Gemm kernel, double seconds) {
  const CpuFeatures& cpu = cpu_features();
  if (!cpu.native_bf16()) return 0;
  const int threads = pool ? pool->size() : 1;
  if (kernel == Bf16Gemm::OneDNN) {
    // oneDNN threads itself (its own runtime, all cores): one product of threads × kM rows
    // from the caller, the same work as one (kM, kN, kK) product per pool thread
    using dnnl::memory;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    const memory::dim rows = memory::dim(kM) * threads;
    memory::desc a_md({rows, kK}, dt::bf16, tag::ab), w_md({kK, kN}, dt::bf16, tag::any),
        c_md({rows, kN}, dt::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_md, c_md), eng);
    memory a(a_md, eng), w(pd.weights_desc(), eng), c(c_md, eng);
    for (memory* m : {&a, &w}) {  // nonzero bf16 values (any layout): 0.1 .. 0.7
      auto* p = static_cast<uint16_t*>(m->get_data_handle());
      const size_t n = m->get_desc().get_size() / sizeof(uint16_t);
      for (size_t j = 0; j < n; ++j) p[j] = cpu::to_bf16(0.1f * float(1 + j % 7));
    }
    dnnl::stream st(eng);
    dnnl::matmul prim(pd);
    return threads * rate(nullptr, seconds, [&](int) {
      prim.execute(st, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, c}});
      st.wait();
    });
  }
  std::vector<std::vector<float>> a, c;
  std::vector<std::vector<uint16_t>> wp, scratch;
  const auto w = filled(size_t(kN) * kK, 5);
  for (int i = 0; i < threads; ++i) {
    a.push_back(filled(size_t(kM) * kK, 7));
    c.push_back(std::vector<float>(size_t(kM) * kN));
    wp.push_back(std::vector<uint16_t>(cpu::bf16_packed_elems(kN, kK)));
    scratch.push_back(std::vector<uint16_t>(cpu::bf16_scratch_elems(kM, kK)));
    cpu::pack_bf16(kN, kK, w.data(), kK, wp.back().data());
  }
  const bool amx = cpu.has(Isa::AMX_BF16);
  return rate(pool, seconds, [&](int t) {
    auto& s = scratch[size_t(t)];
    if (amx)
      cpu::gemm_bf16_amx(kM, kN, kK, a[size_t(t)].data(), kK, wp[size_t(t)].data(), 0.f, c[size_t(t)].data(), kN, s.data());
    else
      cpu::gemm_bf16_avx512(kM, kN, kK, a[size_t(t)].data(), kK, wp[size_t(t)].data(), 0.f, c[size_t(t)].data(), kN, s.data());
  });
}

}  // namespace flashnerd::engine
