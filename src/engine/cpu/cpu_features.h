// What this CPU and its OS can run, read once per process from cpuid, XCR0 (the register
// state the OS saves) and, for AMX on Linux, the kernel's permission to use tile data
// (arch_prctl(ARCH_REQ_XCOMP_PERM), asked for here before any tile instruction can run).
// Every kernel variant is compiled on every machine; the engine picks the fastest one this
// report allows, as ggml and oneDNN do. FLASHNERD_MAX_ISA=avx2|avx512|avx512_bf16|amx caps
// the report (like ONEDNN_MAX_CPU_ISA), to test or measure a slower variant on a fast CPU.
#pragma once

#include <string>

#include "engine/isa.h"

namespace flashnerd::engine {

struct CpuFeatures {
  std::string vendor;          // cpuid vendor string, e.g. "AuthenticAMD"
  std::string model;           // brand string, e.g. "AMD EPYC 9R45"
  bool avx2_fma = false;       // the build's baseline (x86-64-v3)
  bool avx512 = false;         // AVX-512 F, BW, DQ, VL with ZMM state enabled by the OS
  bool avx512_bf16 = false;    // vdpbf16ps / vcvtne2ps2bf16
  bool amx_bf16 = false;       // AMX tiles + bf16, tile data enabled and permitted
  std::string amx_note;        // why AMX is off although the CPU reports it ("" otherwise)
  Isa best = Isa::AVX2;        // the highest level available (after FLASHNERD_MAX_ISA)
  std::string cap;             // FLASHNERD_MAX_ISA as given ("" when unset)

  bool has(Isa isa) const { return int(isa) <= int(best); }
  bool native_bf16() const { return has(Isa::AVX512_BF16); }
  std::string summary() const;  // one line: model, features, best level
};

// Detected on first use (thread-safe), then constant for the process.
const CpuFeatures& cpu_features();

}  // namespace flashnerd::engine
