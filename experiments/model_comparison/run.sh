#!/usr/bin/env bash
# The model-only experiment (paper IV-A, Table I) for one robot: generate data, train a
# parameter-matched FlashNeRD / NeRD pair on the same data, splits, normalization, updates
# and seed, evaluate rollout NRMSE at H = 1, 15, 100, 200 on held-out trajectories, and
# measure throughput. Results under out/experiments/ROBOT/.
#
# Usage: scripts/experiment.sh ROBOT [PRESET] [UPDATES] [TRAIN_TRAJECTORIES] [TEST_TRAJECTORIES]
#   e.g. scripts/experiment.sh cartpole small 3000 4000 512
set -euo pipefail
cd "$(dirname "$0")/.."
ROBOT="${1:?robot name: cartpole, arm7, humanoid, ...}"
PRESET="${2:-small}"
UPDATES="${3:-3000}"
TRAIN="${4:-4000}"
TEST="${5:-512}"
# fastest correct setting (docs/TRAINING.md): bf16 where native and faster, else fp32; the
# two trainings run concurrently with one BLAS thread each. TRAIN_FLAGS=--precision fp32
# gives the fp32 runs of docs/RESULTS.md.
TRAIN_FLAGS="${TRAIN_FLAGS:---precision auto}"
FN=./build/src/cli/flashnerd
OUT="out/experiments/$ROBOT"
mkdir -p "$OUT"
[ -x "$FN" ] || ./scripts/build.sh build > /dev/null

[ -f "$OUT/train.h5" ] || $FN gen --robot "$ROBOT" --trajectories "$TRAIN" --steps 100 --seed 1 --out "$OUT/train.h5" --json > "$OUT/gen_train.json"
[ -f "$OUT/test.h5" ] || $FN gen --robot "$ROBOT" --trajectories "$TEST" --steps 220 --seed 2 --out "$OUT/test.h5" --json > "$OUT/gen_test.json"
pids=()
for arch in flashnerd nerd; do  # one core each, concurrently
  if [ ! -f "$OUT/$arch/config.json" ]; then
    # shellcheck disable=SC2086
    OPENBLAS_NUM_THREADS=1 $FN train --data "$OUT/train.h5" --arch $arch --preset "$PRESET" --updates "$UPDATES" \
      --seed 1 $TRAIN_FLAGS --out "$OUT/$arch" --json > "$OUT/train_$arch.json" 2> "$OUT/train_$arch.log" &
    pids+=($!)
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
$FN eval --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" --horizons 1,15,100,200 \
  --plots "$OUT/plots" --json > "$OUT/eval.json"
$FN bench --arch both --model "$OUT/flashnerd" --batch 16,4096 --json > "$OUT/bench.json"
$FN rollout --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" --steps 200 \
  --overwrite --out "$OUT/rollout" --json > "$OUT/rollout.json"
python3 scripts/summarize_demo.py "$OUT"
