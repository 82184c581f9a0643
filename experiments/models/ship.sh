#!/usr/bin/env bash
# Trains (or continues) one of the models the project ships with `flashnerd fit` and writes it to
# models/NAME/: the artifact (one model, or ensemble.json + member_I/), the robot.json it was
# sampled with and fit's provenance.json (commands, plan, CPU, windows, time, held-out rollout
# NRMSE, calibration, and the check tests/cli/shipped_models_cli.sh reruns). Resumable: rerun
# the same command after a kill. When models/NAME exists, fit starts from it (--init-from, a
# fresh optimizer), so training accumulates across runs; the record keeps the earlier one under
# "history".
# Usage: experiments/models/ship.sh NAME [UPDATES] [BATCH]
#   NAME: cartpole | quadruped | quadruped_ensemble | quadruped_platform | quadruped_platform_nerd | arm7_ensemble
#         | humanoid_ensemble
#   UPDATES: this run's updates per member      BATCH: windows per update
# Environment: OUT (default out/models/NAME), SEED (default 1; the ensemble's 11), FIT_FLAGS
# (more fit flags: --precision, --lr, --patience ...), TRAIN_TRAJECTORIES.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME="$1"
UPDATES="${2:-20000}"
BATCH="${3:-128}"
OUT="${OUT:-out/models/$NAME}"
FN="${FN:-./build/src/cli/flashnerd}"
[ -x "$FN" ] || TARGETS=flashnerd ./scripts/build.sh build > /dev/null
read -ra fit_flags <<< "${FIT_FLAGS:-}"
. experiments/locomotion/recipe.sh  # LOCOMOTION_COMMANDS
LOCO=(--robot quadruped --task quadruped-velocity --contacts off "${LOCOMOTION_COMMANDS[@]}")
CLIMB=(--robot quadruped_platform --climbing-probes --test-trajectories 300 --horizons 1,24,100)
case "$NAME" in
  cartpole) RECIPE=(--robot cartpole --trajectories "${TRAIN_TRAJECTORIES:-8000}" --test-trajectories 512 --members 1) ;;
  quadruped) RECIPE=("${LOCO[@]}" --trajectories "${TRAIN_TRAJECTORIES:-20000}" --members 1) ;;
  quadruped_ensemble) RECIPE=("${LOCO[@]}" --trajectories "${TRAIN_TRAJECTORIES:-20000}" --members 4 --seed "${SEED:-11}") ;;
  arm7_ensemble) RECIPE=(--robot arm7 --task arm7-reach --members 2 --jobs 1) ;;  # shipped: 4256 256
  humanoid_ensemble) RECIPE=(--robot humanoid --task humanoid-velocity --members 2 --jobs 2) ;;
  quadruped_platform) RECIPE=("${CLIMB[@]}" --trajectories "${TRAIN_TRAJECTORIES:-3000}" --contacts on --variable-contacts --members 1) ;;
  quadruped_platform_nerd) RECIPE=("${CLIMB[@]}" --trajectories "${TRAIN_TRAJECTORIES:-3000}" --arch nerd --members 1) ;;
  *) echo "unknown model '$NAME': cartpole, quadruped, quadruped_ensemble, quadruped_platform, quadruped_platform_nerd, arm7_ensemble or humanoid_ensemble" >&2; exit 2 ;;
esac
[ "$NAME" = quadruped_ensemble ] || RECIPE+=(--seed "${SEED:-1}")
init=()
[ -f "models/$NAME/provenance.json" ] && init=(--init-from "models/$NAME")

"$FN" fit "${RECIPE[@]}" "${init[@]}" --windows $((UPDATES * BATCH)) --batch "$BATCH" "${fit_flags[@]}" --out "$OUT"

# models/NAME replaced as a whole: staged beside it, then swapped in
stage="models/.$NAME.staging"
rm -rf "$stage"
mkdir -p "$stage"
(cd "$OUT/model" && find . \( -name config.json -o -name weights.safetensors -o -name ensemble.json \) \
  -exec cp --parents {} "$OLDPWD/$stage/" \;)  # the artifact only: no checkpoints, logs or plots
cp "$OUT/robot.json" "$OUT/provenance.json" "$stage/"
rm -rf "models/.$NAME.old"
[ -d "models/$NAME" ] && mv "models/$NAME" "models/.$NAME.old"
mv "$stage" "models/$NAME"
rm -rf "models/.$NAME.old"
echo "shipped models/$NAME"
