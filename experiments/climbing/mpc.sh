#!/usr/bin/env bash
# Platform climbing with DIAL-MPC (paper IV-C, Table II analogue): every terrain of
# robots/terrains/climb.json is attempted by the planner with three planning dynamics,
# MuJoCo, FlashNeRD reading the detector's variable contacts and NeRD reading 20 fixed probes
# (the models of experiments/climbing/models.sh, trained on the same data); the robot itself
# is always MuJoCo. 100 control frames of 20 ms per trial, the paper's planner settings (160
# samples, 24-step horizon). Then the 0.181 m climb of each backend side by side (PNG strip,
# MP4) and the summary table. Finished trials are kept, so a rerun resumes. With several
# planner seeds per terrain: experiments/climbing/trials.sh.
#
# Usage: experiments/climbing/mpc.sh [MODELS_DIR] [EXTRA plan OPTIONS...]
#   e.g. experiments/climbing/mpc.sh out/climbing
set -euo pipefail
cd "$(dirname "$0")/../.."
MODELS="${1:-out/climbing}"
shift || true
OUT="${OUT:-out/climbing_mpc}"
. experiments/lib/pipeline.sh
if [ ! -f "$MODELS/flashnerd_contacts/config.json" ] || [ ! -f "$MODELS/nerd_probes/config.json" ]; then
  OUT="$MODELS" experiments/climbing/models.sh small 10000 3000 300
fi

TERRAINS=$(python3 -c 'import json; print(len(json.load(open("robots/terrains/climb.json"))["terrains"]))')
for ((k = 0; k < TERRAINS; ++k)); do
  for backend in mujoco flashnerd nerd; do
    model=()
    [ "$backend" = flashnerd ] && model=(--model "$MODELS/flashnerd_contacts")
    [ "$backend" = nerd ] && model=(--model "$MODELS/nerd_probes")
    STEP_NOTE="terrain $k, planning with $backend" step "$OUT/${backend}_t$k.summary.json" -- \
      "$FN" plan --task climb --terrain "$k" --backend "$backend" "${model[@]}" --seed "$k" --out "$OUT/${backend}_t$k.json" \
      "$@" --json
  done
done
step "$OUT/video.json" -- "$FN" plan-video --trial "$OUT/mujoco_t3.json" --trial "$OUT/flashnerd_t3.json" \
  --trial "$OUT/nerd_t3.json" --overwrite --out "$OUT/video" --json
fn_summary experiments/climbing/mpc_summary.py "$OUT" > "$OUT/summary.md"
cat "$OUT/summary.md"
