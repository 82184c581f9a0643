#!/usr/bin/env bash
# Two-way coupling (paper IV-D at measurement scale): free-dynamics data of the hand alone,
# a FlashNeRD model of the hand's free motion, then the same scripted commands run
# analytically, two-way, one-way and with the oracle. Results under out/coupling/.
# Usage: scripts/coupling.sh [UPDATES] [TRAJECTORIES]
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATES="${1:-1500}"
TRAJ="${2:-3000}"
FN=./build/src/cli/flashnerd
OUT=out/coupling
mkdir -p "$OUT"
[ -x "$FN" ] || ./scripts/build.sh build > /dev/null
[ -f "$OUT/free.h5" ] || $FN gen --robot hand16_alone --free-dynamics --trajectories "$TRAJ" --steps 100 --seed 1 \
  --out "$OUT/free.h5" --json > "$OUT/gen.json"
[ -f "$OUT/model/config.json" ] || $FN train --data "$OUT/free.h5" --arch flashnerd --preset small \
  --target free_velocity --updates "$UPDATES" --seed 1 --out "$OUT/model" --json > "$OUT/train.json"
for motion in grasp push random; do
  $FN couple --model "$OUT/model" --motion "$motion" --envs 16 --steps 240 --plots "$OUT/$motion"
done
