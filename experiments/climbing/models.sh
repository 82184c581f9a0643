#!/usr/bin/env bash
# Platform climbing (paper IV-C): FlashNeRD reading the detector's variable contact set vs
# NeRD reading 20 fixed probes on feet and shins, trained on the same climbing data, splits,
# updates and seed. Evaluates one-step base-position error and rollout NRMSE at H = 1, 24
# (the planner's horizon) and 100 on held-out trajectories, split into ground / edge / top
# starts, and times collision detection + row building against the model step at B = 1024.
# Every stage resumes where it stopped; results under out/climbing/ (docs/RESULTS.md shows
# them), summary by experiments/climbing/models_summary.py.
#
# Usage: experiments/climbing/models.sh [PRESET] [UPDATES] [TRAIN_TRAJECTORIES] [TEST_TRAJECTORIES]
#   e.g. experiments/climbing/models.sh small 10000 3000 300
set -euo pipefail
cd "$(dirname "$0")/../.."
PRESET="${1:-small}"
UPDATES="${2:-10000}"
TRAIN="${3:-3000}"
TEST="${4:-300}"
OUT="${OUT:-out/climbing}"
. experiments/lib/pipeline.sh

# both contact representations recorded at every state: contact rows (K = 64) and 20 probes
fn_gen "$OUT/train.h5" --robot quadruped_platform --trajectories "$TRAIN" --steps 100 --seed 11 --climbing-probes
fn_gen "$OUT/test.h5" --robot quadruped_platform --trajectories "$TEST" --steps 120 --seed 12 --climbing-probes
train() {  # ARCH NAME EXTRA...: one core each, concurrently
  local arch=$1 name=$2
  shift 2
  fn_train "$OUT/train_$name.json" "$OUT/$name" --data "$OUT/train.h5" --arch "$arch" --preset "$PRESET" \
    --updates "$UPDATES" --seed 1 --valid-every 1000 "$@"
}
train flashnerd flashnerd_contacts --variable-contacts &
p1=$!
train nerd nerd_probes --probes on &
p2=$!
wait $p1
wait $p2
fn_eval "$OUT/eval.json" --model "$OUT/flashnerd_contacts" --model "$OUT/nerd_probes" --data "$OUT/test.h5" \
  --horizons 1,24,100 --by-start --plots "$OUT/plots"
step "$OUT/bench_contacts.json" -- "$FN" bench-contacts --model "$OUT/flashnerd_contacts" --data "$OUT/test.h5" \
  --batch 1,64,1024 --json
step "$OUT/rollout.json" -- "$FN" rollout --model "$OUT/flashnerd_contacts" --model "$OUT/nerd_probes" \
  --data "$OUT/test.h5" --steps 100 --overwrite --out "$OUT/rollout" --json
fn_summary experiments/climbing/models_summary.py "$OUT"
