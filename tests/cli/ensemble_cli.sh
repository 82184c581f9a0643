#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# Ensembles end to end: train --ensemble writes independent members and ensemble.json, refuses
# to replace it without --overwrite, resumes by skipping finished members; bench-env and ppo
# step an ensemble in each mode; calibrate measures disagreement against error;
# eval reports each member and the mean; --unroll (with and without --unroll-grad) and --input-noise train
# through the CLI.
# Usage: ensemble_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot cartpole --trajectories 48 --steps 30 --seed 1 --out "$TMP/d.h5" --json > /dev/null || fail "gen"
TRAIN=(train --data "$TMP/d.h5" --preset tiny --batch 16 --valid-every 10 --precision fp32 --quiet)
"$FN" "${TRAIN[@]}" --updates 20 --ensemble 2 --out "$TMP/ens" --json > "$TMP/train.json" || fail "train --ensemble"
for f in ensemble.json member_0/config.json member_1/weights.safetensors; do
  [ -f "$TMP/ens/$f" ] || fail "train --ensemble wrote no $f"
done
grep -q '"ensemble":2' "$TMP/train.json" || fail "summary: $(cat "$TMP/train.json")"
cmp -s "$TMP/ens/member_0/weights.safetensors" "$TMP/ens/member_1/weights.safetensors" \
  && fail "the members are identical (seeds not independent)"
expect_error "already holds a model artifact" "${TRAIN[@]}" --updates 20 --ensemble 2 --out "$TMP/ens"
"$FN" "${TRAIN[@]}" --updates 20 --ensemble 2 --resume --out "$TMP/ens" --json > "$TMP/resume.json" || fail "train --ensemble --resume"
[ "$(grep -o 'finished before' "$TMP/resume.json" | wc -l)" = 2 ] || fail "resume retrained: $(cat "$TMP/resume.json")"

"$FN" calibrate --model "$TMP/ens" --data "$TMP/d.h5" --out "$TMP/cal" --json > "$TMP/cal.json" || fail "calibrate"
grep -q '"spearman"' "$TMP/cal.json" || fail "calibrate: $(cat "$TMP/cal.json")"
[ -s "$TMP/cal/calibration.csv" ] && [ -s "$TMP/cal/calibration.png" ] || fail "calibrate wrote no CSV or plot"
cp "$TMP/cal/calibration.csv" "$TMP/cal.ref"
expect_error "already holds calibration.csv; pass --overwrite" calibrate --model "$TMP/ens" --data "$TMP/d.h5" --out "$TMP/cal"
cmp -s "$TMP/cal/calibration.csv" "$TMP/cal.ref" || fail "a refused calibrate replaced the earlier calibration"
"$FN" calibrate --model "$TMP/ens" --data "$TMP/d.h5" --out "$TMP/cal" --overwrite --json > /dev/null \
  || fail "calibrate --overwrite"
# a member listed twice would agree with itself: the manifest is refused
cp -r "$TMP/ens" "$TMP/twice"
python3 -c 'import json,sys; p=sys.argv[1]+"/ensemble.json"; j=json.load(open(p)); j["members"].append(j["members"][0]); json.dump(j, open(p, "w"))' "$TMP/twice"
expect_error "is listed twice" calibrate --model "$TMP/twice" --data "$TMP/d.h5"
expect_error "is a single model" calibrate --model "$TMP/ens/member_0" --data "$TMP/d.h5"

"$FN" eval --model "$TMP/ens" --data "$TMP/d.h5" --horizons 1,5 --json > "$TMP/eval.json" || fail "eval of an ensemble"
python3 -c 'import json,sys; m=[x["model"] for x in json.load(open(sys.argv[1]))["models"]]; sys.exit(0 if len(m)==3 and "mean of 2" in m[2] else 1)' \
  "$TMP/eval.json" || fail "eval does not report both members and their mean: $(cat "$TMP/eval.json")"

"$FN" bench-env --task cartpole-balance --model "$TMP/ens" --envs 16 --steps 2 --warmup 1 --members 2 --json \
  > "$TMP/bench.json" || fail "bench-env with an ensemble"
grep -q 'ensemble of 2' "$TMP/bench.json" || fail "bench-env: no random ensemble row"
for mode in mean random member; do
  "$FN" ppo --task cartpole-balance --backend flashnerd --model "$TMP/ens" --ensemble-mode $mode --ensemble-member 1 \
    --envs 8 --steps-per-env 8 --iterations 1 --hidden 8,8 --quiet --out "$TMP/ppo_$mode" --json > /dev/null \
    || fail "ppo on an ensemble, --ensemble-mode $mode"
done
"$FN" ppo --task cartpole-balance --backend flashnerd --model "$TMP/ens" --uncertainty-penalty 1 --uncertainty-truncate 0.5 \
  --envs 8 --steps-per-env 64 --iterations 2 --hidden 8,8 --quiet --out "$TMP/ppo_unc" --json > /dev/null \
  || fail "ppo with an uncertainty penalty and truncation"
grep -q '"uncertainty_penalty"' "$TMP/ppo_unc/policy/policy.json" || fail "the policy does not record its uncertainty settings"
# the log says what the penalty took from the episodes that ended, and how long they ran
/usr/bin/python3 - "$TMP/ppo_unc/log.csv" <<'PY' || fail "log.csv lacks the penalty paid or the episodes' length"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["episodes"]) > 0]
assert rows, "no episode ended"
for r in rows:
    assert float(r["uncertainty_penalty"]) > 0 and float(r["finished_length"]) >= 1, r
    assert int(r["uncertainty_truncations"]) >= 0, r
PY
expect_error "needs an ensemble model" ppo --task cartpole-balance --backend flashnerd --model "$TMP/ens/member_0" \
  --uncertainty-penalty 1 --envs 8 --steps-per-env 8 --iterations 1 --hidden 8,8 --quiet --out "$TMP/ppo_single"
expect_error "ensemble has 2" ppo --task cartpole-balance --backend flashnerd --model "$TMP/ens" --ensemble-mode member \
  --ensemble-member 5 --envs 8 --steps-per-env 8 --iterations 1 --hidden 8,8 --quiet --out "$TMP/ppo_bad"

"$FN" "${TRAIN[@]}" --updates 20 --unroll 3 --unroll-ramp 10 --input-noise 0.5 --noise-fraction 0.25 --out "$TMP/own" --json \
  > "$TMP/own.json" || fail "train --unroll --input-noise"
grep -q '"own_state_seconds"' "$TMP/own.json" || fail "summary lacks own_state_seconds"
grep -q '"own_states"' "$TMP/own/config.json" || fail "the artifact does not record its own-state settings"
expect_error "resume with the same --unroll" "${TRAIN[@]}" --updates 30 --unroll 2 --resume --out "$TMP/own"
expect_error "--unroll: 12 must be in" "${TRAIN[@]}" --updates 20 --unroll 12 --out "$TMP/own_bad"
"$FN" "${TRAIN[@]}" --updates 10 --unroll 3 --unroll-grad --unroll-decay 0.5 --unroll-feedback noise --out "$TMP/own_grad" \
  --json > /dev/null || fail "train --unroll-grad"
grep -q '"feedback": "noise"' "$TMP/own_grad/config.json" || fail "the artifact does not record its unroll gradient settings"
expect_error "--unroll-grad: back-propagates through an unroll: give --unroll K" "${TRAIN[@]}" --updates 10 --unroll-grad \
  --out "$TMP/own_grad_bad"
expect_error "--unroll-feedback" "${TRAIN[@]}" --updates 10 --unroll 3 --unroll-grad --unroll-feedback sample --out "$TMP/own_grad_bad"
echo "ensemble_cli: all checks passed"
