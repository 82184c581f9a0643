#!/usr/bin/env bash
# Training speed against accuracy (docs/BENCHMARKS.md, "Training"): fp32 / bf16 x 1 / 2
# data-parallel workers.
#  accuracy  the demo-sized run (cartpole, small preset, same data, seed, updates and global
#            batch) in the four settings, then rollout NRMSE of each on held-out data (and
#            fp32 with two more seeds: the spread a seed alone gives);
#  speed     short runs of FlashNeRD and NeRD on cartpole and the quadruped at global batch 64
#            and 256 in the four settings, plus one process with one BLAS thread (what a
#            worker gets: the base of the scaling efficiency).
# Run it on an otherwise idle machine. Data and accuracy runs resume where they stopped; the
# speed runs are measured afresh on every run, all in one invocation. Results and a summary table
# under out/training_speed/.
# Usage: experiments/training_speed/run.sh [UPDATES] [SPEED_WINDOWS]
set -euo pipefail
cd "$(dirname "$0")/../.."
UPDATES="${1:-2000}"
SPEED_WINDOWS="${2:-19200}"   # windows per speed run (300 updates at batch 64)
OUT="${OUT:-out/training_speed}"
. experiments/lib/pipeline.sh
. experiments/lib/cartpole_recipe.sh
lscpu | grep -E "Model name|Flags" | sed 's/Flags:.*\(avx512_bf16\|amx_bf16\).*/bf16: native (\1)/' > "$OUT/cpu.txt"
cartpole_train 2000
fn_gen "$OUT/cartpole_train.h5" "${CARTPOLE_TRAIN[@]}"
fn_gen "$OUT/quadruped_train.h5" --robot quadruped --trajectories 2000 --steps 100 --seed 1
fn_gen "$OUT/cartpole_test.h5" "${CARTPOLE_TEST[@]}"

settings=("fp32 1" "bf16 1" "fp32 2" "bf16 2")
models=()
# accuracy: the demo-sized run in the four settings (seed 1), and fp32 in one process with
# seeds 2 and 3: the spread a different seed alone gives
# shellcheck disable=SC2086  # each setting is split into its fields
for s in "fp32 1 1" "bf16 1 1" "fp32 2 1" "bf16 2 1" "fp32 1 2" "fp32 1 3"; do set -- $s
  dir="$OUT/cartpole_$1_w$2_s$3"
  fn_train "$dir.train.json" "$dir" --data "$OUT/cartpole_train.h5" --preset small --updates "$UPDATES" \
    --seed "$3" --precision "$1" --workers "$2" --quiet
  models+=(--model "$dir")
done
fn_eval "$OUT/cartpole_eval.json" "${models[@]}" --data "$OUT/cartpole_test.h5" --precision fp32 --horizons "$CARTPOLE_HORIZONS"

for robot in cartpole quadruped; do  # speed
  for arch in flashnerd nerd; do
    for batch in 64 256; do
      # shellcheck disable=SC2086
      for s in "fp32 1t" "${settings[@]}"; do set -- $s
        name="speed_${robot}_${arch}_b${batch}_$1_w$2"
        workers=${2%t}
        blas=(); [ "$2" = 1t ] && blas=(env OPENBLAS_NUM_THREADS=1)
        "${blas[@]}" "$FN" train --data "$OUT/${robot}_train.h5" --arch "$arch" --preset small --batch "$batch" \
          --updates $((SPEED_WINDOWS / batch)) --valid-every 0 --seed 1 --precision "$1" --workers "$workers" --quiet \
          --overwrite --out "$OUT/$name" --json > "$OUT/$name.json"
      done
    done
  done
done
fn_summary experiments/training_speed/summary.py "$OUT" | tee "$OUT/summary.md"
