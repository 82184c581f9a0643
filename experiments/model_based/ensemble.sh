#!/usr/bin/env bash
# An ensemble of independent quadruped models for the uncertainty variants of run.sh (penalty,
# truncate), made by `flashnerd fit`: the locomotion recipe's data, MEMBERS members of UPDATES
# updates of 1024 windows each, trained two at a time (one per core), with held-out rollout
# error (members and mean) and calibration. The ensemble is OUT/model. Resumable: rerun after
# a kill.
# Usage: [FIT_FLAGS="--precision bf16"] experiments/model_based/ensemble.sh OUT UPDATES MEMBERS [SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { sed -n 2,7p "$0" >&2; exit 2; }
OUT=$1 UPDATES=$2 MEMBERS=$3 SEED="${4:-11}"
FN="${FN:-./build/src/cli/flashnerd}"
[ -x "$FN" ] || TARGETS=flashnerd ./scripts/build.sh build > /dev/null
read -ra fit_flags <<< "${FIT_FLAGS:-}"
. experiments/locomotion/recipe.sh  # LOCOMOTION_COMMANDS
"$FN" fit --robot quadruped --task quadruped-velocity --contacts off "${LOCOMOTION_COMMANDS[@]}" --members "$MEMBERS" \
  --windows $((UPDATES * 1024)) --batch 1024 --seed "$SEED" "${fit_flags[@]}" --out "$OUT"
