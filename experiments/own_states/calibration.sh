#!/usr/bin/env bash
# Where optimization takes the model, and whether an ensemble knows (docs/RESULTS.md, "Learned
# dynamics under optimization"). On the data of experiments/own_states/compare.sh (run it
# first), for one robot with a PPO task:
#   1. an ensemble of 4 independent members (same recipe, seeds 11..14);
#   2. PPO policies trained in MuJoCo (b) and on the learned model (c), and MuJoCo data of each
#      acting (gen --policy), beside the random-command recipe's held-out data (a);
#   3. flashnerd calibrate on (a), (b), (c): Spearman of disagreement against one-step error;
#   4. the one-step error (H = 1) and H = 50 rollout NRMSE of the compare run's models
#      (onestep, unroll, noise) on each kind of data.
# Resumable stage by stage. Usage: experiments/own_states/calibration.sh ROBOT [UPDATES] [ITERS]
# ROBOT: cartpole (task cartpole-balance, 256 envs) or quadruped (quadruped-velocity with the
# locomotion recipe's PPO settings, 1024 envs); the policy of (c) trains on models/ROBOT.
# Environment: POLICY_MODEL (the model PPO trains on for (c); default models/ROBOT), MEMBERS
# (default 4; 0 skips the ensemble and calibration), POLICIES (default
# "mujoco model"; the policies whose data is measured), VARIANTS (default "onestep unroll noise";
# the compare run's models measured in 4).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROBOT="$1"
UPDATES="${2:-2000}"
ITERS="${3:-40}"
OUT="${OUT:-out/own_states/$ROBOT}"
MEMBERS="${MEMBERS:-4}"
POLICIES="${POLICIES:-mujoco model}"
VARIANTS="${VARIANTS:-onestep unroll noise}"
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh  # LOCOMOTION_PPO_FLAGS
case "$ROBOT" in
  cartpole) TASK=cartpole-balance MODEL="${POLICY_MODEL:-models/cartpole}" STEPS=220 ENVS=256 PPO_FLAGS=() GEN_FLAGS=() H=50 ;;
  quadruped) TASK=quadruped-velocity MODEL="${POLICY_MODEL:-models/quadruped}" STEPS=120 ENVS=1024 H=50
    PPO_FLAGS=("${LOCOMOTION_PPO_FLAGS[@]}") GEN_FLAGS=(--contacts off) ;;
  *) echo "unknown robot '$ROBOT': cartpole or quadruped" >&2; exit 2 ;;
esac
[ -f "$OUT/train.h5" ] || { echo "run experiments/own_states/compare.sh $ROBOT first" >&2; exit 1; }

# 1. the ensemble
if [ "$MEMBERS" -gt 0 ]; then
  resume=()
  [ -d "$OUT/ensemble" ] && resume=(--resume)  # the members keep their own checkpoints
  OPENBLAS_NUM_THREADS=1 step "$OUT/ensemble.json" -- "$FN" train --data "$OUT/train.h5" --preset small --ensemble "$MEMBERS" \
    --updates "$UPDATES" --batch 64 --seed 11 --valid-every 1000 --precision fp32 --quiet "${resume[@]}" \
    --out "$OUT/ensemble" --json
fi
# 2. policies and their MuJoCo data
for kind in $POLICIES; do
  backend=(--backend mujoco)
  [ "$kind" = model ] && backend=(--backend flashnerd --model "$MODEL")
  fn_ppo "$OUT/ppo_$kind.json" "$OUT/ppo_$kind" --task "$TASK" "${backend[@]}" "${PPO_FLAGS[@]}" --envs "$ENVS" \
    --iterations "$ITERS" --seed 1 --quiet
  fn_gen "$OUT/policy_$kind.h5" --robot "$ROBOT" "${GEN_FLAGS[@]}" --policy "$OUT/ppo_$kind/policy" --trajectories 256 \
    --steps "$STEPS" --seed 5
done
# 3. calibration, 4. errors by data kind
datas=(test)
for kind in $POLICIES; do datas+=("policy_$kind"); done
for data in "${datas[@]}"; do
  if [ "$MEMBERS" -gt 0 ]; then
    step "$OUT/calibrate_$data.json" -- "$FN" calibrate --model "$OUT/ensemble" --data "$OUT/$data.h5" \
      --out "$OUT/calibrate_$data" --json
  fi
  for variant in $VARIANTS; do
    fn_eval "$OUT/errors_${variant}_$data.json" --model "$OUT/$variant" --data "$OUT/$data.h5" --horizons "1,$H" \
      --precision fp32
  done
done
fn_summary - "$OUT" $VARIANTS <<'PY'
import os, sys
import summaries
out, variants = sys.argv[1], sys.argv[2:]
load = lambda f: summaries.load(out, f)
kinds = [(k, l) for k, l in (("test", "(a) random commands"), ("policy_mujoco", "(b) MuJoCo-trained policy"),
                             ("policy_model", "(c) model-trained policy")) if os.path.exists(os.path.join(out, "errors_%s_%s.json" % (variants[0], k)))]
print("| data | frames | Spearman | " + " | ".join("%s H=1 / H=50" % v for v in variants) + " |")
print("|---|---:|---:|" + "---:|" * len(variants))
for key, label in kinds:
    f = "calibrate_%s.json" % key
    c = load(f) if os.path.exists(os.path.join(out, f)) else {"frames": 0, "spearman": float("nan")}
    cells = []
    for v in variants:
        n = load("errors_%s_%s.json" % (v, key))["nrmse"]
        cells.append("%.4f / %.4f" % (n[0], n[1]))
    print("| %s | %d | %.3f | %s |" % (label, c["frames"], c["spearman"], " | ".join(cells)))
print()
for v in variants:
    a = load("errors_%s_test.json" % v)["nrmse"][0]
    print(v + ": one-step error " + ", ".join("on %s / on (a) = %.2f" % (label[:3], load("errors_%s_%s.json" % (v, key))["nrmse"][0] / a)
                                             for key, label in kinds[1:]))
PY
