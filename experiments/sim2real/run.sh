#!/usr/bin/env bash
# Sim-to-"real" fine-tuning study (docs/FINETUNE.md): "real" is MuJoCo with dynamics the
# nominal model never saw (experiments/sim2real/perturb_robot.py: masses x1.2, joint damping +1 and
# friction +0.5, actuator gains x0.7) and a one-step actuator delay (gen --actuator-delay 1);
# the simulator's nominal parameters are not retuned. Four models are compared on held-out
# "real" trajectories: the nominal model zero-shot, fine-tuned on 1% and on 10% of a full
# dataset's worth of real data, and trained from scratch on the same 1% / 10%; the fine-tuned
# models are also evaluated on nominal data (what they forget). Finished steps are kept, so a
# rerun resumes.
#
# Usage: [JOBS=1] [FT_UPDATES=1500] experiments/sim2real/run.sh ROBOT FULL_TRAJECTORIES UPDATES [NOMINAL_MODEL]
#   e.g. experiments/sim2real/run.sh arm7 3000 3000
#        experiments/sim2real/run.sh quadruped 4000 3000 out/locomotion/flashnerd
# UPDATES: of the nominal model (when trained here) and of each from-scratch model.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROBOT="$1"
FULL="$2"
UPDATES="$3"
NOMINAL="${4:-}"
FT_UPDATES="${FT_UPDATES:-1500}"
OUT="${OUT:-out/sim2real/$ROBOT}"
REAL="$OUT/real_robot"
. experiments/lib/pipeline.sh
step "$OUT/perturbation.json" -- python3 experiments/sim2real/perturb_robot.py "$ROBOT" "$REAL"

gen() {  # NAME TRAJECTORIES STEPS SEED [real]
  if [ "${5:-}" = real ]; then
    FLASHNERD_ROBOTS="$REAL" fn_gen "$OUT/$1.h5" --robot "$ROBOT" --trajectories "$2" --steps "$3" --seed "$4" --actuator-delay 1
  else
    fn_gen "$OUT/$1.h5" --robot "$ROBOT" --trajectories "$2" --steps "$3" --seed "$4"
  fi
}
gen nominal_test 200 120 2
gen real_1pct $((FULL / 100)) 100 11 real
gen real_10pct $((FULL / 10)) 100 12 real
gen real_test 200 120 13 real
if [ -z "$NOMINAL" ]; then
  gen nominal_train "$FULL" 100 1
  NOMINAL="$OUT/nominal"
  fn_train "$OUT/train_nominal.json" "$NOMINAL" --data "$OUT/nominal_train.h5" --preset small --updates "$UPDATES" --seed 1
fi

finetune() {  # SHARE
  fn_finetune "$OUT/finetune_$1.json" "$OUT/finetuned_$1" --model "$NOMINAL" --data "$OUT/real_$1.h5" \
    --updates "$FT_UPDATES" --valid-every 50 --patience 4 --seed 1
}
scratch() {  # SHARE
  fn_train "$OUT/scratch_$1.json" "$OUT/scratch_$1" --data "$OUT/real_$1.h5" --preset small --updates "$UPDATES" --seed 1
}
if [ "${JOBS:-2}" = 1 ]; then  # one core (the other busy)
  finetune 1pct; finetune 10pct; scratch 1pct; scratch 10pct
else
  finetune 1pct & a=$!
  finetune 10pct & b=$!
  wait $a; wait $b
  scratch 1pct & a=$!
  scratch 10pct & b=$!
  wait $a; wait $b
fi

models=(--model "$NOMINAL" --model "$OUT/finetuned_1pct" --model "$OUT/finetuned_10pct" --model "$OUT/scratch_1pct"
  --model "$OUT/scratch_10pct")
FLASHNERD_ROBOTS="$REAL" fn_eval "$OUT/eval_real.json" "${models[@]}" --data "$OUT/real_test.h5" --horizons 1,15,100 \
  --allow-other-mjcf
fn_eval "$OUT/eval_nominal.json" --model "$NOMINAL" --model "$OUT/finetuned_1pct" --model "$OUT/finetuned_10pct" \
  --data "$OUT/nominal_test.h5" --horizons 1,15,100 --allow-other-mjcf
fn_summary experiments/sim2real/summary.py "$OUT" > "$OUT/summary.md"
cat "$OUT/summary.md"
