#!/usr/bin/env bash
# flashnerd fit end to end on a tiny cartpole ensemble: killed (SIGKILL) while it generates,
# trains and evaluates, and rerun each time, it ends with the weights and held-out errors of
# an uninterrupted run; a flag that disagrees with the recorded plan, and budgets that cannot
# work, are refused by name. Usage: fit_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
FIT=(fit --robot cartpole --trajectories 200 --test-trajectories 16 --windows 9600 --batch 32 --members 2
     --jobs 2 --preset tiny --precision fp32 --valid-every 50 --patience 2 --horizons 1,15,50 --quiet)

"$FN" "${FIT[@]}" --out "$TMP/whole" > "$TMP/whole.txt" 2>&1 || { cat "$TMP/whole.txt"; fail "uninterrupted fit"; }
for f in fit.json robot.json data/train.h5 model/ensemble.json model/member_1/weights.safetensors eval.json \
         calibrate.json provenance.json eval; do
  [ -e "$TMP/whole/$f" ] || fail "fit wrote no $f"
done
grep -q "mean of 2" "$TMP/whole.txt" || fail "the summary table lacks the members' mean"

# kill_when DIR CONDITION: starts the fit into DIR, SIGKILLs it as soon as CONDITION (a shell
# test) holds, and waits for it
kill_when() {
  local dir=$1 condition=$2 pid
  "$FN" "${FIT[@]}" --out "$dir" > /dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do
    eval "$condition" && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.02
  done
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  sleep 0.3  # its children die with it (parent-death signal)
}
C=$TMP/cut
kill_when "$C" '[ -e "$C/fit.json" ]'                                  # the plan written: generating
kill_when "$C" '[ -e "$C/model/member_0/checkpoint.pt" ]'              # the members' first checkpoint
[ -e "$C/logs/train_member_0.json" ] && fail "the kill came after member 0 finished; the test needs a slower member"
kill_when "$C" '[ -e "$C/logs/eval.log" ]'                             # evaluating
"$FN" "${FIT[@]}" --out "$TMP/cut" > "$TMP/cut.txt" 2>&1 || { cat "$TMP/cut.txt"; fail "resumed fit"; }
for m in 0 1; do
  cmp -s "$TMP/whole/model/member_$m/weights.safetensors" "$TMP/cut/model/member_$m/weights.safetensors" ||
    fail "member $m: the killed and resumed fit trained other weights than the uninterrupted one"
done
python3 - "$TMP/whole/eval.json" "$TMP/cut/eval.json" <<'PY' || fail "held-out errors differ after the kills"
import json, sys
a, b = (json.load(open(p))["models"] for p in sys.argv[1:])
assert [m["nrmse"] for m in a] == [m["nrmse"] for m in b], (a, b)
PY

# a finished fit rerun changes nothing and reports again
"$FN" "${FIT[@]}" --out "$TMP/whole" > /dev/null 2>&1 || fail "rerunning a finished fit"
other=("${FIT[@]}")
other[12]=3  # --members 3
[ "${FIT[11]}" = --members ] || fail "the test's flag list moved: update the index"
expect_error "disagrees with the plan" "${other[@]}" --out "$TMP/whole"
expect_error "one of --budget and --windows" fit --robot cartpole --budget 20m --windows 1000 --out "$TMP/both"
expect_error "is not h, m or s" fit --robot cartpole --budget 20x --out "$TMP/unit"
expect_error "give --robot" fit --out "$TMP/none"
expect_error "is spent before training" fit --robot cartpole --trajectories 100 --test-trajectories 8 --members 2 \
  --preset tiny --precision fp32 --budget 61s --out "$TMP/small"
# on-policy data: the shipped swing-up policy's MuJoCo trajectories join the random ones
"$FN" fit --robot cartpole --trajectories 100 --test-trajectories 8 --windows 3200 --batch 32 --members 1 \
  --preset tiny --precision fp32 --horizons 1,15 --policy-data "$(dirname "$0")/../../models/policies/cartpole_swingup" \
  --policy-trajectories 20 --quiet --out "$TMP/policy" > /dev/null 2>&1 || fail "fit --policy-data"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["trajectories"] == 120' "$TMP/policy/data/merge.json" ||
  fail "fit --policy-data: the training data is not 100 random + 20 on-policy trajectories"
[ -f "$TMP/policy/model/config.json" ] || fail "fit --members 1 wrote no plain model in model/"

echo "fit_cli: killed three times and resumed, the fit equals an uninterrupted one; bad plans refused"
