#!/usr/bin/env bash
# cmake --install into a scratch prefix, then use FlashNeRD the way an outside project does:
# examples/cpp built with find_package(flashnerd) and with pkg-config, run on a model the CLI
# trained, its states equal to the Python package's (installed copy) step for step; the
# installed CLI and Python package work without the build tree.
# Usage: install_package.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
SRC="$1"
BUILD="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PREFIX="$TMP/prefix"

cmake --install "$BUILD" --prefix "$PREFIX" > "$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "cmake --install"; }
for f in lib/libflashnerd_engine.a lib/libflashnerd_core.a include/flashnerd/engine/engine.h \
         include/flashnerd/core/state_codec.h lib/cmake/flashnerd/flashnerdConfig.cmake \
         lib/pkgconfig/flashnerd.pc bin/flashnerd share/flashnerd/robots/cartpole.xml; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
# the engine's internals stay out of the package (engine.h is the public surface)
[ ! -e "$PREFIX/include/flashnerd/engine/engine_impl.h" ] || fail "internal header installed: engine_impl.h"
# nor the CPU report: the public headers name instruction-set levels (engine/isa.h) only
[ ! -e "$PREFIX/include/flashnerd/engine/cpu/cpu_features.h" ] || fail "internal header installed: cpu_features.h"
! grep -rnE '#include "engine/(cpu/cpu_features|engine_impl)\.h"' "$PREFIX/include/flashnerd" \
  || fail "an installed header includes an internal one"
PYDIR=$(ls -d "$PREFIX"/lib/python3*/dist-packages) || fail "no Python package installed"
[ -f "$PYDIR/flashnerd/__init__.py" ] && ls "$PYDIR"/flashnerd/_flashnerd*.so > /dev/null || fail "Python package incomplete"
ls "$PYDIR"/flashnerd/_ppo*.so > /dev/null || fail "Python package without its PPO module (flashnerd.ppo)"

# a model from the installed CLI (robots from the installed share/, not the source tree)
FN="$PREFIX/bin/flashnerd"
export FLASHNERD_ROBOTS="$PREFIX/share/flashnerd/robots"
"$FN" gen --robot cartpole --trajectories 20 --steps 20 --seed 1 --out "$TMP/data.h5" --json > /dev/null || fail "installed gen"
"$FN" train --data "$TMP/data.h5" --preset tiny --updates 3 --valid-every 0 --quiet --out "$TMP/model" > /dev/null \
  || fail "installed train"

# find_package(flashnerd) + target_link_libraries(rollout flashnerd::engine)
cmake -S "$SRC/examples/cpp" -B "$TMP/example" -DCMAKE_PREFIX_PATH="$PREFIX" > "$TMP/configure.log" 2>&1 \
  || { cat "$TMP/configure.log"; fail "configure examples/cpp against the installed package"; }
cmake --build "$TMP/example" > "$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; fail "build examples/cpp"; }
"$TMP/example/rollout" "$TMP/model" 30 > "$TMP/cmake_rollout.txt" || fail "run the CMake-built example"
[ "$(wc -l < "$TMP/cmake_rollout.txt")" -eq 30 ] || fail "example printed $(wc -l < "$TMP/cmake_rollout.txt") lines, not 30"

# pkg-config
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
g++ -O1 "$SRC/examples/cpp/rollout.cpp" $(pkg-config --cflags --libs flashnerd) -o "$TMP/rollout_pc" > "$TMP/pc.log" 2>&1 \
  || { cat "$TMP/pc.log"; fail "build examples/cpp with pkg-config"; }
"$TMP/rollout_pc" "$TMP/model" 30 > "$TMP/pc_rollout.txt" || fail "run the pkg-config-built example"
cmp -s "$TMP/cmake_rollout.txt" "$TMP/pc_rollout.txt" || fail "the two builds of the example disagree"

# the installed Python package steps the same states, bit for bit (printed with 17 digits)
PYTHONPATH="$PYDIR" /usr/bin/python3 - "$TMP/model" "$TMP/cmake_rollout.txt" <<'PY' || fail "Python package vs the C++ example"
import math, sys
import numpy as np
import flashnerd
import os
assert os.environ["PYTHONPATH"] in flashnerd.__file__, flashnerd.__file__  # the installed copy
m = flashnerd.Model(sys.argv[1], batch=1)
q, v = np.zeros((1, m.nq)), np.zeros((1, m.nv))
lines = open(sys.argv[2]).read().split("\n")
for t in range(30):
    u = np.full((1, m.nu), 0.5 * math.sin(0.1 * t))
    q, v = m.step(q, v, u)
    want = [float(x) for x in lines[t].split()[1:]]
    got = [float(x) for x in q[0]]
    assert got == want, (t, got, want)
env = flashnerd.make_vec("cartpole-balance", num_envs=2)
obs, info = env.reset(seed=1)
assert obs.shape == (2, env.observation_dim)
print("installed Python package OK:", flashnerd.__file__)
PY
# examples/cpp/deploy: the shipped walking policy in a MuJoCo control loop, linking only the
# installed libraries (no libtorch): 1000 steps (20 s) at 1 m/s forward without a fall (28 of
# 30 seeds do; models/policies/quadruped_walk/provenance.json)
cmake -S "$SRC/examples/cpp/deploy" -B "$TMP/deploy" -DCMAKE_PREFIX_PATH="$PREFIX" > "$TMP/deploy_configure.log" 2>&1 \
  || { cat "$TMP/deploy_configure.log"; fail "configure examples/cpp/deploy against the installed package"; }
cmake --build "$TMP/deploy" > "$TMP/deploy_build.log" 2>&1 || { cat "$TMP/deploy_build.log"; fail "build examples/cpp/deploy"; }
ldd "$TMP/deploy/deploy" | grep -q torch && fail "the deployment example links libtorch"
"$TMP/deploy/deploy" "$SRC/models/policies/quadruped_walk" --steps 1000 --seed 1 --command 1,0,0 > "$TMP/deploy.txt" \
  || { cat "$TMP/deploy.txt"; fail "the shipped quadruped policy fell in the deployment loop (or the loop failed)"; }
grep -q "1000 steps" "$TMP/deploy.txt" || fail "deploy: $(cat "$TMP/deploy.txt")"
echo "install_package: all checks passed"
