#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs packages (idempotent), builds, runs ctest.
# Usage: scripts/test.sh            Release build in build/
#        scripts/test.sh --sanitize AddressSanitizer + UBSan build in build-asan/ (no libtorch)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ "${1:-}" = "--sanitize" ]; then
  ./scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLASHNERD_SANITIZE=ON \
    -DFLASHNERD_WITH_TORCH=OFF -DFLASHNERD_BUILD_BENCH=OFF -DFLASHNERD_BUILD_PYTHON=OFF
  BUILD_DIR=build-asan
else
  ./scripts/build.sh build
  BUILD_DIR=build
fi
ctest --test-dir "$BUILD_DIR" --output-on-failure -j 1
