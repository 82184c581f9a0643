#!/usr/bin/env bash
# Where the models of a locomotion run are wrong (docs/results/POLICY_LEARNING.md): rollout errors of the FlashNeRD
# and NeRD models on three kinds of MuJoCo data -- the random-command recipe they were trained
# on, the MuJoCo-trained policy walking, and the FlashNeRD-trained policy in MuJoCo (the states
# PPO drove the model into) -- 500 trajectories x 100 steps each, policies with one policy std
# of action noise. A model PPO can exploit is much worse on the last than on the first.
#
# Usage: experiments/locomotion/shift.sh [OUT]   (default out/locomotion: the run of experiments/locomotion/run.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-out/locomotion}"
DIR="$OUT/shift"
mkdir -p "$DIR"
for f in flashnerd nerd ppo_mujoco/policy ppo_flashnerd/policy; do
  [ -e "$OUT/$f" ] || { echo "$OUT/$f missing: run experiments/locomotion/run.sh first" >&2; exit 1; }
done
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh
gen() {  # name seed flags...
  local name=$1 seed=$2
  shift 2
  fn_gen "$DIR/$name.h5" --robot quadruped --trajectories 500 --steps 100 --seed "$seed" --contacts off "$@"
}
gen random 12 "${LOCOMOTION_COMMANDS[@]}"
gen mujoco_policy 11 --policy "$OUT/ppo_mujoco/policy"
gen flashnerd_policy 13 --policy "$OUT/ppo_flashnerd/policy"
for data in random mujoco_policy flashnerd_policy; do
  # horizon 80: 100-step trajectories less the 10 priming frames leave room for it
  fn_eval "$DIR/eval_$data.json" --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$DIR/$data.h5" --horizons 1,15,50,80
done
fn_summary - "$DIR" <<'PY'
import os, sys
from summaries import models
print("| data | model | NRMSE@1 | @15 | @50 | @80 | 1-step base error (mm) |")
print("|---|---|---:|---:|---:|---:|---:|")
for data in ("random", "mujoco_policy", "flashnerd_policy"):
    for m in models(os.path.join(sys.argv[1], f"eval_{data}.json")):
        print(f"| {data} | {m['arch']} | " + " | ".join(f"{v:.3f}" for v in m["nrmse"]) +
              f" | {m['one_step_base_rmse_mm']:.2f} |")
PY
