#include "engine/cpu/cpu_features.h"

#include <cpuid.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "core/error.h"
#include "core/enum_names.h"

namespace flashnerd::engine {

namespace {

constexpr EnumName<Isa> kIsaNames[] = {
    {Isa::AVX2, "avx2"}, {Isa::AVX512, "avx512"}, {Isa::AVX512_BF16, "avx512_bf16"}, {Isa::AMX_BF16, "amx_bf16"}};

struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

bool bit(unsigned reg, int i) { return (reg >> i) & 1u; }

// XCR0: the register state the OS saves on context switches (needs OSXSAVE).
uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

// Linux refuses tile data to a process until it asks (kernel 5.16+); without the permission
// the first tile instruction raises SIGILL.
bool request_amx_permission(std::string& note) {
#if defined(__linux__)
  constexpr long kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023;
  constexpr int kXfeatureTileData = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) != 0) {
    note = "the kernel refused AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM failed)";
    return false;
  }
  unsigned long mask = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &mask) != 0 || !(mask & (1ul << kXfeatureTileData))) {
    note = "AMX tile data is not permitted for this process";
    return false;
  }
  return true;
#else
  note = "AMX is only enabled on Linux";
  return false;
#endif
}

CpuFeatures detect() {
  CpuFeatures f;
  Regs v = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &v.b, 4);
  std::memcpy(vendor + 4, &v.d, 4);
  std::memcpy(vendor + 8, &v.c, 4);
  f.vendor = vendor;
  const unsigned max_leaf = v.a;
  if (cpuid(0x80000000).a >= 0x80000004) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      Regs r = cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    f.model = brand;
    while (!f.model.empty() && f.model.back() == ' ') f.model.pop_back();
    while (!f.model.empty() && f.model.front() == ' ') f.model.erase(0, 1);
  }
  const Regs l1 = cpuid(1);
  const bool osxsave = bit(l1.c, 27);
  const uint64_t xcr = osxsave ? xcr0() : 0;
  const bool ymm_os = (xcr & 0x6) == 0x6;             // SSE + AVX state
  const bool zmm_os = ymm_os && (xcr & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
  const bool tile_os = (xcr & (3ull << 17)) == (3ull << 17);  // XTILECFG, XTILEDATA
  const Regs l7 = max_leaf >= 7 ? cpuid(7, 0) : Regs{};
  const Regs l7s1 = max_leaf >= 7 && l7.a >= 1 ? cpuid(7, 1) : Regs{};
  f.avx2_fma = ymm_os && bit(l1.c, 28) && bit(l1.c, 12) && bit(l7.b, 5);
  f.avx512 = f.avx2_fma && zmm_os && bit(l7.b, 16) && bit(l7.b, 17) && bit(l7.b, 30) && bit(l7.b, 31);
  f.avx512_bf16 = f.avx512 && bit(l7s1.a, 5);
  const bool amx_cpu = bit(l7.d, 24) && bit(l7.d, 22);  // AMX-TILE, AMX-BF16
  if (amx_cpu && f.avx512_bf16) {
    if (!tile_os)
      f.amx_note = "the OS does not enable AMX tile state (XCR0)";
    else
      f.amx_bf16 = request_amx_permission(f.amx_note);
  }
  f.best = f.amx_bf16 ? Isa::AMX_BF16 : f.avx512_bf16 ? Isa::AVX512_BF16 : f.avx512 ? Isa::AVX512 : Isa::AVX2;
  if (const char* cap = std::getenv("FLASHNERD_MAX_ISA"); cap && *cap) {
    f.cap = cap;
    const Isa limit = parse_isa(cap);
    if (int(limit) < int(f.best)) f.best = limit;
  }
  return f;
}

}  // namespace

const char* isa_name(Isa isa) { return enum_name(kIsaNames, isa); }

Isa parse_isa(const std::string& s) {
  if (const auto* e = find_enum(kIsaNames, s)) return e->value;
  if (s == "amx") return Isa::AMX_BF16;
  throw Error("unknown instruction-set level '" + s + "' (FLASHNERD_MAX_ISA): expected " + enum_choices(kIsaNames));
}

std::string CpuFeatures::summary() const {
  std::string s = (model.empty() ? vendor : model) + ": avx2+fma " + (avx2_fma ? "yes" : "no") +
                  ", avx512 " + (avx512 ? "yes" : "no") + ", avx512_bf16 " + (avx512_bf16 ? "yes" : "no") +
                  ", amx_bf16 " + (amx_bf16 ? "yes" : "no");
  if (!amx_note.empty()) s += " (" + amx_note + ")";
  s += "; kernels up to " + std::string(isa_name(best));
  if (!cap.empty()) s += " (capped by FLASHNERD_MAX_ISA=" + cap + ")";
  return s;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace flashnerd::engine
