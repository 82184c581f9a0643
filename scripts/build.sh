#!/usr/bin/env bash
# Configures and builds FlashNeRD (Release, portable x86-64-v3 baseline) into build/ or the given dir.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
# TARGETS="flashnerd" builds only those targets (the demo needs only the executable).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build}"
shift || true
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPYTHON_EXECUTABLE=/usr/bin/python3 "$@"
fi
read -ra targets <<< "${TARGETS:-}"
cmake --build "$BUILD_DIR" -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
