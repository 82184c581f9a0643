#!/usr/bin/env bash
# Installs every Debian package FlashNeRD needs. Idempotent: when all packages are
# present it does nothing (no apt-get update, no network).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libmujoco-dev libqhull-dev                 # simulation (MuJoCo's CMake target needs qhull)
  libtorch-dev libopenblas-dev               # training; without OpenBLAS libtorch is 20x slower
  libgloo-dev                                # data-parallel training (c10d ProcessGroupGloo headers)
  libeigen3-dev libdnnl-dev                  # inference GEMMs
  libhdf5-dev zlib1g-dev                     # datasets (the reader inflates chunks with zlib)
  libgtest-dev libgmock-dev libbenchmark-dev # tests and benchmarks
  libcli11-dev nlohmann-json3-dev            # CLI and config files
  libpng-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri ffmpeg  # pictures and videos
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib  # Python module, tests, plots
  python3-torch                              # the Python PPO example (the module itself does not need it)
  python3-onnx                               # tests read exported ONNX policies independently
  clang libclang-rt-14-dev                   # fuzz targets (scripts/fuzz.sh: libFuzzer)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
