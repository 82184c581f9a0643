#!/usr/bin/env bash
# Model-based PPO on the quadruped (docs/RL.md, "Model-based PPO"): PPO on the shipped
# FlashNeRD model alone (the paper's pure setting) and with MuJoCo in the loop, each variant
# over the given PPO seeds, same recipe and budget as experiments/locomotion (ENVS x 24 steps x
# ITERS), every final policy judged in MuJoCo (256 envs x 1000 steps, seed 7), then a table
# with the MuJoCo transitions and seconds each run used. MUJOCO=1 adds the MuJoCo-only PPO
# baseline (about 22 minutes per seed on 2 cores). Each run resumes where it stopped.
#
# Variants (VARIANTS="pure branch ..."):
#   pure     PPO on the model alone
#   branch   + 32 MuJoCo envs explored by the policy every iteration; half the imagined
#            episodes start from their states, with their histories, and time out after 100 steps
#   refresh  branch + every 25 iterations the model is fine-tuned (500 updates) on the windows
#            explored so far (the last 4096)
#   refresh10  the same fine-tune budget in smaller, more frequent refreshes (200 updates every
#            10 iterations)
#   fast     refresh with bf16 fine-tunes (--refresh-precision bf16) and the fused PPO update
#            (--fused-update); each refresh replays only the windows explored since the last one
#   fast250  fast with half the fine-tune per refresh (250 updates every 25 iterations)
#   grow     fast250 whose fine-tune grows to 1000 updates per refresh from iteration 500 on
#            (--refresh-updates-from 500:1000): cheap refreshes while the policy learns to walk,
#            thorough ones once the model's errors are what it exploits; run with ITERS=800
#   batch    fast with the explored MuJoCo transitions in the PPO batch (--real-in-batch)
#   penalty  pure on an ensemble MODEL (experiments/model_based/ensemble.sh), each step's reward
#            minus PENALTY (default 1) x the members' disagreement (MOPO)
#   truncate pure on an ensemble MODEL, episodes truncated where the disagreement exceeds
#            TRUNCATE (MOReL; calibrate it on data: the ensemble's calibrate_test deciles)
#   fast250_penalty  fast250 on an ensemble MODEL (every refresh fine-tunes every member) with
#            the penalty
#
# Usage: [ENVS=1024] [ITERS=400] [VARIANTS="pure branch refresh"] [MODEL=models/quadruped] [MUJOCO=0]
#        experiments/model_based/run.sh OUT SEED...
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n 2,32p "$0" >&2; exit 2; }
OUT=$1; shift
ENVS="${ENVS:-1024}"
ITERS="${ITERS:-400}"
MODEL="${MODEL:-models/quadruped}"
read -ra variants <<< "${VARIANTS:-pure branch refresh}"
# the summary's time-to-threshold reference without a MuJoCo run here: MuJoCo-only PPO's final
# MuJoCo evaluation, seed 1 (docs/results/POLICY_LEARNING.md)
export MUJOCO_FINAL_EVAL="${MUJOCO_FINAL_EVAL:-11.19}"
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh  # locomotion_ppo, locomotion_evaluate

variant_flags() {
  case $1 in
    pure) ;;
    branch) echo --real-envs 32 --real-steps 24 --branch-fraction 0.5 --branch-steps 100 ;;
    refresh) echo "$(variant_flags branch) --refresh-every 25 --refresh-updates 500" ;;
    refresh10) echo "$(variant_flags branch) --refresh-every 10 --refresh-updates 200" ;;
    fast) echo "$(variant_flags refresh) --refresh-precision bf16 --fused-update" ;;
    fast250) echo "$(variant_flags branch) --refresh-every 25 --refresh-updates 250 --refresh-precision bf16 --fused-update" ;;
    grow) echo "$(variant_flags fast250) --refresh-updates-from 500:1000" ;;
    batch) echo "$(variant_flags fast) --real-in-batch" ;;
    penalty) echo --uncertainty-penalty "${PENALTY:-1}" ;;
    truncate) echo --uncertainty-truncate "${TRUNCATE:?set TRUNCATE, the disagreement to truncate above}" ;;
    fast250_penalty) echo "$(variant_flags fast250) $(variant_flags penalty)" ;;
    *) echo "unknown variant '$1'" >&2; exit 2 ;;
  esac
}

runs=()
for seed in "$@"; do
  if [ "${MUJOCO:-0}" = 1 ]; then
    locomotion_ppo "$OUT" "ppo_mujoco_seed$seed" "$seed" mujoco
    locomotion_evaluate "$OUT" "ppo_mujoco_seed$seed"
    runs+=("ppo_mujoco_seed$seed")
  fi
  for v in "${variants[@]}"; do
    run="ppo_${v}_seed$seed"
    read -ra flags <<< "$(variant_flags "$v")"
    locomotion_ppo "$OUT" "$run" "$seed" flashnerd "$MODEL" "${flags[@]}"
    locomotion_evaluate "$OUT" "$run"
    runs+=("$run")
  done
done
fn_summary experiments/model_based/summary.py "$OUT" "${runs[@]}"
