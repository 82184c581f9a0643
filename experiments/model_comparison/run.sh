#!/usr/bin/env bash
# The model-only experiment (paper IV-A, Table I) for one robot: generate data, train a
# parameter-matched FlashNeRD / NeRD pair on the same data, splits, normalization, updates
# and seed, evaluate rollout NRMSE at H = 1, 15, 100, 200 on held-out trajectories, and
# measure throughput. Every stage resumes where it stopped; results under
# out/experiments/ROBOT/ (OUT=dir for another place), the table of all robots by
# experiments/model_comparison/results_table.py.
#
# Usage: experiments/model_comparison/run.sh ROBOT [PRESET] [UPDATES] [TRAIN_TRAJECTORIES] [TEST_TRAJECTORIES]
#   e.g. experiments/model_comparison/run.sh cartpole small 3000 4000 512
set -euo pipefail
cd "$(dirname "$0")/../.."
ROBOT="${1:?robot name: cartpole, arm7, humanoid, ...}"
PRESET="${2:-small}"
UPDATES="${3:-3000}"
TRAIN="${4:-4000}"
TEST="${5:-512}"
# fastest correct setting (docs/TRAINING.md): bf16 where native and faster, else fp32; the
# two trainings run concurrently with one BLAS thread each. TRAIN_FLAGS=--precision fp32
# gives the fp32 runs of docs/RESULTS.md.
read -ra TRAIN_FLAGS <<< "${TRAIN_FLAGS:---precision auto}"
OUT="${OUT:-out/experiments/$ROBOT}"
. experiments/lib/pipeline.sh

fn_gen "$OUT/train.h5" --robot "$ROBOT" --trajectories "$TRAIN" --steps 100 --seed 1
fn_gen "$OUT/test.h5" --robot "$ROBOT" --trajectories "$TEST" --steps 220 --seed 2
fn_train_pair "$OUT" --data "$OUT/train.h5" --preset "$PRESET" --updates "$UPDATES" --seed 1 "${TRAIN_FLAGS[@]}"
fn_eval "$OUT/eval.json" --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" --horizons 1,15,100,200 \
  --plots "$OUT/plots"
fn_bench "$OUT/bench.json" --arch both --model "$OUT/flashnerd" --batch 16,4096
step "$OUT/rollout.json" -- "$FN" rollout --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" --steps 200 \
  --overwrite --out "$OUT/rollout" --json
python3 scripts/summarize_demo.py "$OUT"
