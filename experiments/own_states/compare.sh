#!/usr/bin/env bash
# Own-state training against teacher forcing at equal training wall time (docs/RESULTS.md,
# "Training on the model's own states"): the same data, preset, seed and batch, trained
#   onestep  teacher forcing only
#   unroll   --unroll K (ramped in over the first quarter), half of each batch unrolled
#   noise    --input-noise S on half of each batch
#   unrollw  --unroll K with windows of R + K frames (R = 10, the small preset's receptive
#            field), so every predicted frame sees a full recorded-or-predicted history
#   grad     --unroll K --unroll-grad (ramped in over the first quarter): a K-step forecast with
#            gradients through its K−1 fed-back frames, windows of R + K − 1 frames so the first
#            step sees a full recorded history, step weights DECAY^(i−1) (default 1)
#   gradnoise  grad with the prediction plus noise at the one-step error scale fed back
# Each variant first runs CALIB updates to measure its seconds per update, then trains for
# BUDGET seconds' worth of updates; every model is evaluated against MuJoCo (fp32 products).
# Resumable: finished stages are skipped. Usage:
#   experiments/own_states/compare.sh ROBOT BUDGET_SECONDS [K] [S]
# ROBOT: cartpole (the demo's data) | quadruped (the locomotion recipe, 4 foot probes).
# Environment: OUT (default out/own_states/ROBOT), FN, INIT (a model to start every variant
# from, e.g. models/quadruped), BATCH (default 64), CALIB (default 200), VARIANTS (default
# "onestep unroll noise unrollw"), DECAY (grad's step weight decay, default 1), NOISES (input-noise
# scales of a second evaluation, e.g. 0.01,0.05; none by default), LR (initial learning rate,
# default 1e-3; lower it to continue a trained model), FRACTION (grad's share of each batch that
# forecasts, default 0.5), SEED (training seed, default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROBOT="$1"
BUDGET="$2"
K="${3:-4}"
S="${4:-1.0}"
OUT="${OUT:-out/own_states/$ROBOT}"
BATCH="${BATCH:-64}"
CALIB="${CALIB:-200}"
. experiments/lib/pipeline.sh
. experiments/lib/cartpole_recipe.sh  # cartpole_train, CARTPOLE_TEST, CARTPOLE_HORIZONS
. experiments/locomotion/recipe.sh  # LOCOMOTION_COMMANDS
case "$ROBOT" in
  cartpole)
    cartpole_train "$CARTPOLE_TRAJECTORIES"
    GEN=("${CARTPOLE_TRAIN[@]}") TEST=("${CARTPOLE_TEST[@]}") HORIZONS=$CARTPOLE_HORIZONS ;;
  quadruped)
    LOCO=(--robot quadruped --contacts off "${LOCOMOTION_COMMANDS[@]}")
    GEN=("${LOCO[@]}" --steps 100 --trajectories 20000 --seed 1) TEST=("${LOCO[@]}" --steps 220 --trajectories 256 --seed 2)
    HORIZONS=1,15,50,100,200 ;;
  *) echo "unknown robot '$ROBOT': cartpole or quadruped" >&2; exit 2 ;;
esac
fn_gen "$OUT/train.h5" "${GEN[@]}"
fn_gen "$OUT/test.h5" "${TEST[@]}"

init=()
[ -n "${INIT:-}" ] && init=(--init-from "$INIT")
flags_of() {
  case "$1" in
    onestep) echo "" ;;
    unroll) echo "--unroll $K --unroll-ramp \$((UPDATES / 4))" ;;
    noise) echo "--input-noise $S" ;;
    unrollw) echo "--unroll $K --unroll-ramp \$((UPDATES / 4)) --window $((10 + K))" ;;
    grad) echo "--unroll $K --unroll-grad --unroll-decay ${DECAY:-1} --unroll-fraction ${FRACTION:-0.5} --unroll-ramp \$((UPDATES / 4)) --window $((10 + K - 1))" ;;
    gradnoise) echo "$(flags_of grad) --unroll-feedback noise" ;;
  esac
}
for variant in ${VARIANTS:-onestep unroll noise unrollw}; do
  # calibration: seconds per update of this variant on this machine (a fresh run: it is timed)
  UPDATES=$CALIB extra=()
  eval "extra=($(flags_of "$variant"))"
  OPENBLAS_NUM_THREADS=1 step "$OUT/calib_$variant.json" -- "$FN" train --data "$OUT/train.h5" --preset small "${init[@]}" \
    --batch "$BATCH" --lr "${LR:-1e-3}" --seed "${SEED:-1}" --updates "$CALIB" --valid-every 0 --precision fp32 "${extra[@]}" --overwrite --quiet \
    --out "$OUT/calib_$variant" --json
  UPDATES=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(int(float(sys.argv[2]) * j['updates'] / j['seconds']))" \
    "$OUT/calib_$variant.json" "$BUDGET")
  eval "extra=($(flags_of "$variant"))"
  OPENBLAS_NUM_THREADS=1 STEP_NOTE="== $variant: $UPDATES updates (${BUDGET} s budget) ${extra[*]}" \
    fn_train "$OUT/train_$variant.json" "$OUT/$variant" --data "$OUT/train.h5" --preset small "${init[@]}" --batch "$BATCH" \
    --lr "${LR:-1e-3}" --seed "${SEED:-1}" --updates "$UPDATES" --valid-every 1000 --precision fp32 "${extra[@]}" --quiet
  noise=()
  [ -n "${NOISES:-}" ] && noise=(--input-noise "$NOISES")
  fn_eval "$OUT/eval_$variant.json" --model "$OUT/$variant" --data "$OUT/test.h5" --horizons "$HORIZONS" --precision fp32 \
    "${noise[@]}"
done
fn_summary - "$OUT" <<'PY'
import sys
from summaries import load, load_if
out = sys.argv[1]
rows = []
for v in ("onestep", "unroll", "noise", "unrollw", "grad", "gradnoise"):
    e = load_if(out, "eval_%s.json" % v)
    if e:
        rows.append((v, load(out, "train_%s.json" % v), e))
hs = rows[0][2]["horizons"]
print("| variant | updates | seconds | own-state share | " + " | ".join("H=%d" % h for h in hs) + " |")
print("|---|---:|---:|---:|" + "---:|" * len(hs))
base = rows[0][2]["nrmse"]
for v, t, e in rows:
    cells = ["%.4f" % x if v == "onestep" else "%.4f (%+.1f%%)" % (x, 100 * (x / b - 1)) for x, b in zip(e["nrmse"], base)]
    print("| %s | %d | %.0f | %.0f%% | %s |" % (v, t["updates"], t["seconds"], 100 * t.get("own_state_seconds", 0) / t["seconds"], " | ".join(cells)))
if any(r["scale"] > 0 for r in rows[0][2].get("input_noise", {}).get("by_scale", [])):
    print("\nUnder input noise (eval --input-noise, scale relative to each state component's std):\n")
    print("| variant | scale | " + " | ".join("H=%d" % h for h in hs) + " |")
    print("|---|---:|" + "---:|" * len(hs))
    for v, t, e in rows:
        for r, b in zip(e["input_noise"]["by_scale"], rows[0][2]["input_noise"]["by_scale"]):
            cells = ["%.4f" % x if v == "onestep" else "%.4f (%+.1f%%)" % (x, 100 * (x / y - 1)) for x, y in zip(r["nrmse"], b["nrmse"])]
            print("| %s | %g | %s |" % (v, r["scale"], " | ".join(cells)))
PY
