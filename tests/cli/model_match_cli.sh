#!/usr/bin/env bash
# requires: libtorch (the script trains a model)
# eval and rollout run a model only on data of its control timestep (refused otherwise, naming
# both values) and of its MJCF (refused unless --allow-other-mjcf, then a warning); a model
# that stores no MJCF hash still loads, with a warning. Usage: model_match_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
ROBOTS="$(dirname "$0")/../../robots"

"$FN" gen --robot cartpole --trajectories 20 --steps 20 --seed 1 --out "$TMP/train.h5" --json > /dev/null || fail "gen"
"$FN" gen --robot cartpole --trajectories 4 --steps 20 --seed 2 --out "$TMP/test.h5" --json > /dev/null || fail "gen test"
"$FN" train --data "$TMP/train.h5" --preset tiny --updates 4 --valid-every 0 --quiet --out "$TMP/m" --json > /dev/null \
  || fail "train"
EVAL=(--data "$TMP/test.h5" --horizons 1,3 --json)
ROLL=(--data "$TMP/test.h5" --steps 3 --frames 2 --width 32 --height 24 --no-video --json)
"$FN" eval --model "$TMP/m" "${EVAL[@]}" > /dev/null 2> "$TMP/err.txt" || fail "eval on matching data"
grep -q "warning" "$TMP/err.txt" && fail "matching data warned: $(cat "$TMP/err.txt")"

# another control timestep: the same robot file, commands held twice as long
"$FN" gen --robot cartpole --control-dt 0.0333333333333333 --trajectories 4 --steps 20 --seed 2 \
  --out "$TMP/slow.h5" --json > /dev/null || fail "gen --control-dt"
expect_error "steps 0.0166667 s (robot.timestep in config.json) but dataset $TMP/slow.h5 steps 0.0333333 s" \
  eval --model "$TMP/m" --data "$TMP/slow.h5" --horizons 1
expect_error "steps 0.0333333 s" rollout --model "$TMP/m" --data "$TMP/slow.h5" --out "$TMP/r0"

# another MJCF of the same robot (a heavier pole, same name and layout)
mkdir -p "$TMP/heavy"
sed 's/mass="0.1"/mass="0.2"/' "$ROBOTS/cartpole.xml" > "$TMP/heavy/cartpole.xml"
cp "$ROBOTS/cartpole.json" "$TMP/heavy/cartpole.json"
"$FN" gen --mjcf "$TMP/heavy/cartpole.xml" --trajectories 4 --steps 20 --seed 2 --out "$TMP/heavy.h5" --json > /dev/null \
  || fail "gen heavy"
expect_error "the robot files differ; use the model's MJCF, or pass --allow-other-mjcf" \
  eval --model "$TMP/m" --data "$TMP/heavy.h5" --horizons 1
expect_error "--allow-other-mjcf" rollout --model "$TMP/m" --data "$TMP/heavy.h5" --out "$TMP/r1"
"$FN" eval --model "$TMP/m" --data "$TMP/heavy.h5" --horizons 1,3 --allow-other-mjcf --json > /dev/null 2> "$TMP/err.txt" \
  || fail "eval --allow-other-mjcf: $(cat "$TMP/err.txt")"
grep -q "warning: .*the robot files differ" "$TMP/err.txt" || fail "no warning: $(cat "$TMP/err.txt")"
"$FN" rollout --model "$TMP/m" --data "$TMP/heavy.h5" --steps 3 --frames 2 --width 32 --height 24 --no-video \
  --allow-other-mjcf --out "$TMP/r2" --json > /dev/null 2> "$TMP/err.txt" || fail "rollout --allow-other-mjcf"
grep -q "warning: .*the robot files differ" "$TMP/err.txt" || fail "no rollout warning: $(cat "$TMP/err.txt")"

# an artifact from before the hash was recorded: loads, warns that it cannot be checked
cp -r "$TMP/m" "$TMP/old"
python3 - "$TMP/old/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); del c["robot"]["mjcf_hash"]; json.dump(c, open(sys.argv[1], "w"))
PY
"$FN" eval --model "$TMP/old" "${EVAL[@]}" > /dev/null 2> "$TMP/err.txt" || fail "eval of an old artifact"
grep -q "warning: .*stores no MJCF hash" "$TMP/err.txt" || fail "no warning for an old artifact: $(cat "$TMP/err.txt")"
echo "model_match_cli: all checks passed"
