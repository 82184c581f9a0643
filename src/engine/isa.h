// Instruction-set levels of the engine's kernels, each a superset of the one before: what a
// context may be capped at (ContextOptions::max_isa) and what the CPU report
// (cpu/cpu_features.h) says this machine runs.
#pragma once

#include <string>

namespace flashnerd::engine {

enum class Isa { AVX2, AVX512, AVX512_BF16, AMX_BF16 };
const char* isa_name(Isa isa);  // avx2 | avx512 | avx512_bf16 | amx_bf16
Isa parse_isa(const std::string& s);

}  // namespace flashnerd::engine
