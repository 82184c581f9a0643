#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, AddressSanitizer + UBSan; the core, sim, engine
# and env libraries, no CLI, no Python module) in build-fuzz/ and runs each for a fixed time,
# starting from its seed corpus in fuzz/corpus/.
# Fails on any crash, sanitizer report, uncaught exception, leak, timeout or allocation over the
# limit; the input that caused it is written to build-fuzz/artifacts/<target>/.
# Usage: scripts/fuzz.sh [--seconds N]   (N seconds per target, default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=30
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    *) echo "usage: scripts/fuzz.sh [--seconds N]" >&2; exit 2 ;;
  esac
done
./scripts/setup.sh
./scripts/build.sh build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DFLASHNERD_FUZZ=ON -DFLASHNERD_WITH_TORCH=OFF \
  -DFLASHNERD_BUILD_TESTS=OFF -DFLASHNERD_BUILD_BENCH=OFF

# libhdf5 asks malloc for impossible sizes read from a corrupt header and handles the NULL that
# glibc returns; ASan would abort there instead. Allocations that succeed stay capped (512 MB,
# far above any seed's needs) so that a corrupt size the project trusts is still caught.
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
failed=()
for target in safetensors model_config dataset policy sealed_file ensemble_manifest task_spec; do
  corpus=build-fuzz/corpus/$target artifacts=build-fuzz/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  echo "fuzz: $target for ${seconds} s"
  dict=()
  if [ -f "fuzz/$target.dict" ]; then dict=(-dict="fuzz/$target.dict"); fi
  # new inputs go to build-fuzz/corpus (the first directory); fuzz/corpus stays the seeds
  # a fixed seed (FUZZ_SEED) makes a run reproducible from the committed corpus
  if ! "build-fuzz/fuzz/fuzz_$target" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -malloc_limit_mb=512 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" \
      "$corpus" "fuzz/corpus/$target" \
      > "build-fuzz/fuzz_$target.log" 2>&1; then
    tail -n 40 "build-fuzz/fuzz_$target.log"
    failed+=("$target")
  fi
  grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/fuzz_$target.log" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in build-fuzz/artifacts/, logs in build-fuzz/fuzz_<target>.log)" >&2
  exit 1
fi
echo "fuzz: all targets ran ${seconds} s without a crash"
