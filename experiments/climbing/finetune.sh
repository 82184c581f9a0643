#!/usr/bin/env bash
# Does more training of the shipped climbing model carry over to climbs? The shipped FlashNeRD
# model (models/quadruped_platform, 100 000 updates on 3 000 trajectories, seed 11) continued on
# TRAJECTORIES fresh trajectories of the same recipe (seed 21): continued on its own 3 000, the
# validation loss rises while the training loss falls. Two variants of the same number of updates:
#   onestep  teacher forcing only
#   unroll   --unroll K (ramped in over the first 10%), half of each batch ending in the
#            model's own predictions, contacts detected again by MuJoCo at every predicted state
# Fresh Adam warmed up over 500 updates to lr LR, then LR -> LR / 10 (the shipped run ended at
# 1e-4), one core each, concurrently.
# Then held-out error by start (ground / edge / top) of the three models, and the climbing
# trials of experiments/climbing/trials.sh (SEEDS planner seeds x 6 terrains) planning with
# each continued model, two trial processes at once. Every stage resumes where it stopped.
#
# Usage: experiments/climbing/finetune.sh [TRAJECTORIES] [UPDATES] [K] [SEEDS]
#   e.g. experiments/climbing/finetune.sh 10000 16000 8 5 (30 000 trajectories would need 32 GB in gen)
# Environment: OUT (default out/climb_ft), VARIANTS (default "onestep unroll"), LR (default 2e-4).
set -euo pipefail
cd "$(dirname "$0")/../.."
TRAJECTORIES="${1:-10000}"
UPDATES="${2:-16000}"
K="${3:-8}"
SEEDS="${4:-5}"
OUT="${OUT:-out/climb_ft}"
VARIANTS="${VARIANTS:-onestep unroll}"
LR="${LR:-2e-4}"
SHIPPED=models/quadruped_platform
. experiments/lib/pipeline.sh

fn_gen "$OUT/train_more.h5" --robot quadruped_platform --climbing-probes --trajectories "$TRAJECTORIES" --steps 100 --seed 21
fn_gen "$OUT/test.h5" --robot quadruped_platform --climbing-probes --trajectories 300 --steps 120 --seed 12

pids=()
for variant in $VARIANTS; do
  extra=()
  [ "$variant" = unroll ] && extra=(--unroll "$K" --unroll-ramp $((UPDATES / 10)))
  OPENBLAS_NUM_THREADS=1 fn_train "$OUT/train_$variant.json" "$OUT/$variant" --data "$OUT/train_more.h5" --init-from "$SHIPPED" \
    --updates "$UPDATES" --batch 64 --seed 3 --lr "$LR" --lr-warmup 500 --valid-every 2000 --precision auto "${extra[@]}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

models=(--model "$SHIPPED")
for variant in $VARIANTS; do models+=(--model "$OUT/$variant"); done
fn_eval "$OUT/eval.json" "${models[@]}" --data "$OUT/test.h5" --horizons 1,24,100 --by-start --precision fp32

pids=()
for variant in $VARIANTS; do
  FLASHNERD_MODEL="$OUT/$variant" OUT="$OUT/trials_$variant" FN="$FN" \
    experiments/climbing/trials.sh "$SEEDS" flashnerd --threads 1 > "$OUT/trials_$variant.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for variant in $VARIANTS; do
  echo "== planning with $OUT/$variant"
  cat "$OUT/trials_$variant/table.md"
done
