#!/usr/bin/env bash
# Sim-to-"real" fine-tuning study (issue 19, docs/FINETUNE.md): "real" is MuJoCo with dynamics
# the nominal model never saw (scripts/perturb_robot.py: masses x1.2, joint damping +1 and
# friction +0.5, actuator gains x0.7) and a one-step actuator delay (gen --actuator-delay 1);
# the simulator's nominal parameters are not retuned. Four models are compared on held-out
# "real" trajectories: the nominal model zero-shot, fine-tuned on 1% and on 10% of a full
# dataset's worth of real data, and trained from scratch on the same 1% / 10%; the fine-tuned
# models are also evaluated on nominal data (what they forget). Finished steps are kept, so a
# rerun resumes.
#
# Usage: [JOBS=1] [FT_UPDATES=1500] scripts/sim2real.sh ROBOT FULL_TRAJECTORIES UPDATES [NOMINAL_MODEL]
#   e.g. scripts/sim2real.sh arm7 3000 3000
#        scripts/sim2real.sh quadruped 4000 3000 out/locomotion/flashnerd
# UPDATES: of the nominal model (when trained here) and of each from-scratch model.
set -euo pipefail
cd "$(dirname "$0")/.."
ROBOT="$1"
FULL="$2"
UPDATES="$3"
NOMINAL="${4:-}"
FT_UPDATES="${FT_UPDATES:-1500}"
FN=./build/src/cli/flashnerd
OUT=out/sim2real/$ROBOT
REAL="$OUT/real_robot"
mkdir -p "$OUT"
[ -x "$FN" ] || ./scripts/build.sh build > /dev/null
[ -f "$REAL/$ROBOT.xml" ] || python3 scripts/perturb_robot.py "$ROBOT" "$REAL" > "$OUT/perturbation.json"

gen() {  # NAME TRAJECTORIES STEPS SEED [real]
  [ -f "$OUT/$1.h5" ] && return 0
  if [ "${5:-}" = real ]; then
    FLASHNERD_ROBOTS="$REAL" $FN gen --robot "$ROBOT" --trajectories "$2" --steps "$3" --seed "$4" --actuator-delay 1 \
      --out "$OUT/$1.h5" --json > "$OUT/gen_$1.json"
  else
    $FN gen --robot "$ROBOT" --trajectories "$2" --steps "$3" --seed "$4" --out "$OUT/$1.h5" --json > "$OUT/gen_$1.json"
  fi
}
gen nominal_test 200 120 2
gen real_1pct $((FULL / 100)) 100 11 real
gen real_10pct $((FULL / 10)) 100 12 real
gen real_test 200 120 13 real
if [ -z "$NOMINAL" ]; then
  gen nominal_train "$FULL" 100 1
  NOMINAL="$OUT/nominal"
  [ -f "$NOMINAL/config.json" ] || $FN train --data "$OUT/nominal_train.h5" --preset small --updates "$UPDATES" --seed 1 \
    --out "$NOMINAL" --json > "$OUT/train_nominal.json" 2> "$OUT/train_nominal.log"
fi

finetune() {  # SHARE
  [ -f "$OUT/finetuned_$1/config.json" ] && return 0
  $FN finetune --model "$NOMINAL" --data "$OUT/real_$1.h5" --updates "$FT_UPDATES" --valid-every 50 --patience 4 \
    --seed 1 --out "$OUT/finetuned_$1" --json > "$OUT/finetune_$1.json" 2> "$OUT/finetune_$1.log"
}
scratch() {  # SHARE
  [ -f "$OUT/scratch_$1/config.json" ] && return 0
  $FN train --data "$OUT/real_$1.h5" --preset small --updates "$UPDATES" --seed 1 --out "$OUT/scratch_$1" \
    --json > "$OUT/scratch_$1.json" 2> "$OUT/scratch_$1.log"
}
if [ "${JOBS:-2}" = 1 ]; then  # one core (the other busy)
  finetune 1pct; finetune 10pct; scratch 1pct; scratch 10pct
else
  finetune 1pct & a=$!
  finetune 10pct & b=$!
  wait $a $b
  scratch 1pct & a=$!
  scratch 10pct & b=$!
  wait $a $b
fi

models=(--model "$NOMINAL" --model "$OUT/finetuned_1pct" --model "$OUT/finetuned_10pct" --model "$OUT/scratch_1pct"
  --model "$OUT/scratch_10pct")
FLASHNERD_ROBOTS="$REAL" $FN eval "${models[@]}" --data "$OUT/real_test.h5" --horizons 1,15,100 --allow-other-mjcf \
  --json > "$OUT/eval_real.json"
$FN eval --model "$NOMINAL" --model "$OUT/finetuned_1pct" --model "$OUT/finetuned_10pct" --data "$OUT/nominal_test.h5" \
  --horizons 1,15,100 --allow-other-mjcf --json > "$OUT/eval_nominal.json"
python3 scripts/sim2real_summary.py "$OUT" > "$OUT/summary.md"
cat "$OUT/summary.md"
