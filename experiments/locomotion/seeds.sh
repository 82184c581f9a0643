#!/usr/bin/env bash
# How much of a locomotion result is the PPO seed (docs/results/POLICY_LEARNING.md): more PPO runs, same recipe and
# budget as experiments/locomotion/run.sh, on one of its simulators -- mujoco, or a model directory of
# the run (flashnerd, nerd, flashnerd_r1, ...) -- each final policy evaluated in MuJoCo
# (256 envs x 1000 steps, seed 7, as run.sh), and a table of every seed, the run's own
# seed-1 policy first. Each run resumes where it stopped.
#
# Usage: [ENVS=1024] [ITERS=400] [EVAL_EVERY=10] experiments/locomotion/seeds.sh OUT SIMULATOR SEED...
#   e.g. experiments/locomotion/seeds.sh out/locomotion_long flashnerd_r1 2 3
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { sed -n 2,9p "$0" >&2; exit 2; }
OUT=$1; SIM=$2; shift 2
ENVS="${ENVS:-1024}"
ITERS="${ITERS:-400}"
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh  # locomotion_ppo, locomotion_evaluate
backend=(mujoco)
if [ "$SIM" != mujoco ]; then
  [ -f "$OUT/$SIM/config.json" ] || { echo "$OUT/$SIM is not a model directory" >&2; exit 1; }
  backend=("${SIM%%_r*}" "$OUT/$SIM")  # flashnerd_r1: the flashnerd backend on that model
fi
suffix=""; [ "$ITERS" = 400 ] || suffix="_it$ITERS"
runs=("ppo_$SIM")
for seed in "$@"; do
  run="ppo_${SIM}_seed$seed$suffix"
  runs+=("$run")
  locomotion_ppo "$OUT" "$run" "$seed" "${backend[@]}"
  locomotion_evaluate "$OUT" "$run"
done
fn_summary - "$OUT" "${runs[@]}" <<'PY'
import sys
from summaries import load
out, runs = sys.argv[1], sys.argv[2:]
print("| PPO run | s / iteration | policy-eval in MuJoCo (256 x 1000) | falls of 256 |")
print("|---|---:|---:|---:|")
for run in runs:
    e = load(out, f"policy_eval_{run[len('ppo_'):]}.json")
    p = load(out, f"{run}.json")
    print(f"| {run} | {p['seconds'] / p['iterations']:.2f} | {e['episode_reward']:.2f} | {e['terminations']} |")
PY
