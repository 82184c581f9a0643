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
# ROBOT: cartpole (task cartpole-balance, model models/cartpole for the policy of (c)).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROBOT="$1"
UPDATES="${2:-2000}"
ITERS="${3:-40}"
FN="${FN:-./build/src/cli/flashnerd}"
OUT="${OUT:-out/own_states/$ROBOT}"
case "$ROBOT" in
  cartpole) TASK=cartpole-balance MODEL=models/cartpole STEPS=220 ;;
  *) echo "unknown robot '$ROBOT': cartpole" >&2; exit 2 ;;
esac
[ -f "$OUT/train.h5" ] || { echo "run experiments/own_states/compare.sh $ROBOT first" >&2; exit 1; }

# 1. the ensemble
if [ ! -f "$OUT/ensemble/ensemble.json" ]; then
  resume=()
  [ -d "$OUT/ensemble" ] && resume=(--resume)
  OPENBLAS_NUM_THREADS=1 $FN train --data "$OUT/train.h5" --preset small --ensemble 4 --updates "$UPDATES" --batch 64 \
    --seed 11 --valid-every 1000 --precision fp32 --quiet "${resume[@]}" --out "$OUT/ensemble" --json > "$OUT/ensemble.json"
fi
# 2. policies and their MuJoCo data
for kind in mujoco model; do
  backend=(--backend mujoco)
  [ $kind = model ] && backend=(--backend flashnerd --model "$MODEL")
  grep -q '"iterations"' "$OUT/ppo_$kind.json" 2>/dev/null || \
    $FN ppo --task "$TASK" "${backend[@]}" --envs 256 --iterations "$ITERS" --seed 1 --quiet --overwrite \
      --out "$OUT/ppo_$kind" --json > "$OUT/ppo_$kind.json"
  [ -f "$OUT/policy_$kind.h5" ] || $FN gen --robot "$ROBOT" --policy "$OUT/ppo_$kind/policy" --trajectories 256 \
    --steps "$STEPS" --seed 5 --out "$OUT/policy_$kind.h5" --json > /dev/null
done
# 3. calibration, 4. errors by data kind
for data in test policy_mujoco policy_model; do
  [ -f "$OUT/calibrate_$data.json" ] || $FN calibrate --model "$OUT/ensemble" --data "$OUT/$data.h5" \
    --out "$OUT/calibrate_$data" --json > "$OUT/calibrate_$data.json"
  for variant in onestep unroll noise; do
    [ -f "$OUT/errors_${variant}_$data.json" ] || $FN eval --model "$OUT/$variant" --data "$OUT/$data.h5" \
      --horizons 1,50 --precision fp32 --json > "$OUT/errors_${variant}_$data.json"
  done
done
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
load = lambda f: json.load(open(os.path.join(out, f)))
kinds = [("test", "(a) random commands"), ("policy_mujoco", "(b) MuJoCo-trained policy"), ("policy_model", "(c) model-trained policy")]
print("| data | frames | Spearman (4 members) | " + " | ".join("%s H=1 / H=50" % v for v in ("onestep", "unroll", "noise")) + " |")
print("|---|---:|---:|" + "---:|" * 3)
for key, label in kinds:
    c = load("calibrate_%s.json" % key)
    cells = []
    for v in ("onestep", "unroll", "noise"):
        n = load("errors_%s_%s.json" % (v, key))["nrmse"]
        cells.append("%.4f / %.4f" % (n[0], n[1]))
    print("| %s | %d | %.3f | %s |" % (label, c["frames"], c["spearman"], " | ".join(cells)))
print()
for v in ("onestep", "unroll", "noise"):
    a = load("errors_%s_test.json" % v)["nrmse"][0]
    print("%s: one-step error on (c) / on (a) = %.2f, on (b) / on (a) = %.2f" % (
        v, load("errors_%s_policy_model.json" % v)["nrmse"][0] / a, load("errors_%s_policy_mujoco.json" % v)["nrmse"][0] / a))
PY
