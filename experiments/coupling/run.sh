#!/usr/bin/env bash
# Two-way coupling (paper IV-D at measurement scale): free-dynamics data of the hand alone,
# a FlashNeRD model of the hand's free motion, then the same scripted commands run
# analytically, two-way, one-way and with the oracle. Data and model are kept across runs;
# results under out/coupling/.
# Usage: experiments/coupling/run.sh [UPDATES] [TRAJECTORIES]
set -euo pipefail
cd "$(dirname "$0")/../.."
UPDATES="${1:-1500}"
TRAJ="${2:-3000}"
OUT="${OUT:-out/coupling}"
. experiments/lib/pipeline.sh
fn_gen "$OUT/free.h5" --robot hand16_alone --free-dynamics --trajectories "$TRAJ" --steps 100 --seed 1
fn_train "$OUT/train.json" "$OUT/model" --data "$OUT/free.h5" --arch flashnerd --preset small --target free_velocity \
  --updates "$UPDATES" --seed 1
for motion in grasp push random; do
  "$FN" couple --model "$OUT/model" --motion "$motion" --envs 16 --steps 240 --plots "$OUT/$motion"
done
