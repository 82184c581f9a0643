#!/usr/bin/env bash
# One binary for every x86-64-v3 CPU: only the kernel-variant objects (engine/cpu/*avx512*,
# *amx*) may hold AVX-512 or AMX instructions; everything else must run on an AVX2-only CPU.
# Usage: isa_guard.sh LIBRARY.a...
set -euo pipefail
command -v objdump >/dev/null || { echo "isa_guard: objdump not found (binutils)"; exit 1; }
wide='zmm|%k[0-7]|\{1to|[xy]mm(1[6-9]|2[0-9]|3[01])\b|tileloadd|tdpbf16ps|ldtilecfg|vdpbf16ps|vcvtne2ps2bf16'
bad=0
checked=0
for lib in "$@"; do
  members=$(ar t "$lib")
  for m in $members; do
    count=$(ar p "$lib" "$m" > /tmp/isa_guard.$$.o && objdump -d --no-show-raw-insn /tmp/isa_guard.$$.o | grep -cE "$wide" || true)
    checked=$((checked + 1))
    case "$m" in
      *avx512*|*amx*)
        if [ "$count" = 0 ]; then echo "isa_guard: $lib($m) is a variant but holds no wide instructions (flags lost?)"; bad=1; fi ;;
      *)
        if [ "$count" != 0 ]; then echo "isa_guard: $lib($m) holds $count AVX-512/AMX instructions outside a kernel variant"; bad=1; fi ;;
    esac
  done
done
rm -f /tmp/isa_guard.$$.o
echo "isa_guard: $checked objects checked"
exit $bad
