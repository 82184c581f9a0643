#!/usr/bin/env bash
# Climbing trials that decide (paper IV-C, Table II): every terrain of robots/terrains/climb.json
# attempted by DIAL-MPC with several planner seeds, planning with MuJoCo, FlashNeRD reading the
# detector's variable contacts and NeRD reading 20 fixed probes; the robot itself is always
# MuJoCo. The paper's planner settings (160 samples, 24-step horizon, 100 frames of 20 ms).
# Then the table of experiments/climbing/trial_table.py: climbs per terrain and in total with
# Wilson intervals, Fisher's test between methods, planning time per decision. Finished trials
# are kept, so a rerun resumes (or adds seeds).
#
# Usage: experiments/climbing/trials.sh [SEEDS] [BACKENDS] [EXTRA plan OPTIONS...]
#   e.g. experiments/climbing/trials.sh 5 "flashnerd nerd mujoco"
# Environment: OUT (default out/climbing_trials), FLASHNERD_MODEL (default
# models/quadruped_platform), NERD_MODEL (default models/quadruped_platform_nerd).
set -euo pipefail
cd "$(dirname "$0")/../.."
SEEDS="${1:-5}"
BACKENDS="${2:-flashnerd nerd mujoco}"
shift 2 || shift $#
OUT="${OUT:-out/climbing_trials}"
FLASHNERD_MODEL="${FLASHNERD_MODEL:-models/quadruped_platform}"
NERD_MODEL="${NERD_MODEL:-models/quadruped_platform_nerd}"
. experiments/lib/pipeline.sh

TERRAINS=$(python3 -c 'import json; print(len(json.load(open("robots/terrains/climb.json"))["terrains"]))')
total=$((SEEDS * TERRAINS))
for backend in $BACKENDS; do
  model=()
  [ "$backend" = flashnerd ] && model=(--model "$FLASHNERD_MODEL")
  [ "$backend" = nerd ] && model=(--model "$NERD_MODEL")
  done_count=0
  for ((seed = 1; seed <= SEEDS; ++seed)); do
    for ((k = 0; k < TERRAINS; ++k)); do
      done_count=$((done_count + 1))
      STEP_NOTE="[$backend $done_count/$total] terrain $k, planner seed $seed" \
        step "$OUT/${backend}_t${k}_s${seed}.summary.json" -- "$FN" plan --task climb --terrain "$k" --backend "$backend" \
        "${model[@]}" --seed "$seed" --no-progress --out "$OUT/${backend}_t${k}_s${seed}.json" "$@" --json
    done
  done
done
python3 experiments/climbing/trial_table.py "$OUT" | tee "$OUT/table.md"
