// The machine's GEMM ceilings as the engine's kernels reach them, for benchmarks and
// `flashnerd bench` (a kernel's share of its ceiling).
#pragma once

#include "engine/engine.h"

namespace flashnerd {
class ThreadPool;
}  // namespace flashnerd

namespace flashnerd::engine {

// The machine's fp32 GEMM rate as the engine sees it: every thread of `pool` (or the caller
// alone) runs its own single-threaded C = A·Wᵀ of (M, N, K) = (512, 1024, 1024) through
// `gemm` for about `seconds`. Returns GFLOP/s summed over threads. For benchmarks.
double measure_gemm_gflops(ThreadPool* pool, GemmBackend gemm, double seconds);
// The same product in bf16 (fp32 accumulation): oneDNN's matmul (the machine's bf16 ceiling)
// or the engine's own kernel (AMX, else AVX-512-BF16). 0 on a CPU without native bf16.
enum class Bf16Gemm { OneDNN, Engine };
double measure_bf16_gemm_gflops(ThreadPool* pool, Bf16Gemm kernel, double seconds);

}  // namespace flashnerd::engine
