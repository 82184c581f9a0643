#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# End to end through the executable: gen -> train (tiny, both archs) -> eval -> rollout -> bench,
# and evaluation's refusals: a dataset of another robot, a horizon longer than the held-out
# trajectories. Usage: eval_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot cartpole --trajectories 200 --steps 40 --seed 1 --out "$TMP/train.h5" --json > /dev/null || fail "gen"
"$FN" gen --robot cartpole --trajectories 16 --steps 60 --seed 2 --out "$TMP/test.h5" --json > /dev/null || fail "gen test"
"$FN" gen --robot arm7 --trajectories 4 --steps 60 --seed 2 --out "$TMP/arm.h5" --json > /dev/null || fail "gen arm"
for arch in flashnerd nerd; do
  "$FN" train --data "$TMP/train.h5" --arch $arch --preset tiny --updates 40 --out "$TMP/$arch" --json \
    > "$TMP/train_$arch.json" 2> /dev/null || fail "train $arch"
  grep -q '"updates":40' "$TMP/train_$arch.json" || fail "train summary: $(cat "$TMP/train_$arch.json")"
done

"$FN" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,15,50 --json > "$TMP/eval.json" || fail "eval"
python3 - "$TMP/eval.json" <<'PY' || fail "eval JSON: $(cat "$TMP/eval.json")"
import json, math, sys
e = json.load(open(sys.argv[1]))
assert e["trajectories"] == 16 and e["horizons"] == [1, 15, 50], e
assert len(e["nrmse"]) == 3 and all(math.isfinite(x) and x > 0 for x in e["nrmse"]), e
assert e["nrmse"][0] < e["nrmse"][2], "error should grow with the horizon"
assert "joint_position" in e["groups"] and "velocity" in e["groups"], e
PY
# --input-noise: today's fields stay the clean rollout's, each scale gets its section, the same
# seed gives the same numbers, and the table gains a column
"$FN" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,15,50 --input-noise 0,0.05 --noise-seed 3 \
  --json > "$TMP/noise.json" || fail "eval --input-noise"
"$FN" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,15,50 --input-noise 0,0.05 --noise-seed 3 \
  --threads 1 --batch 16 --json > "$TMP/noise_again.json" || fail "eval --input-noise again"
python3 - "$TMP/eval.json" "$TMP/noise.json" "$TMP/noise_again.json" <<'PY' || fail "input noise JSON: $(cat "$TMP/noise.json")"
import json, math, sys
clean, noisy, again = (json.load(open(f)) for f in sys.argv[1:])
assert noisy["nrmse"] == clean["nrmse"] and noisy["groups"] == clean["groups"], "scale 0 must stay today's result"
section = noisy["input_noise"]
assert section["seed"] == 3 and [s["scale"] for s in section["by_scale"]] == [0, 0.05], section
zero, some = section["by_scale"]
assert zero["nrmse"] == clean["nrmse"] and zero["diverged"] == clean["diverged"], section
assert len(some["nrmse"]) == 3 and all(math.isfinite(x) for x in some["nrmse"]), section
assert some["nrmse"][2] != clean["nrmse"][2], "noise on the fed-back states changed nothing"
assert again["input_noise"] == section, "same seed, other numbers"
PY
"$FN" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,15 --input-noise 0.01,0.03 > "$TMP/noise.txt" \
  || fail "eval --input-noise table"
grep -q "input noise" "$TMP/noise.txt" && grep -q " 0.03 " "$TMP/noise.txt" || fail "noise table: $(cat "$TMP/noise.txt")"
expect_error "--input-noise: must be >= 0, got -1" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --input-noise -1
expect_error "--input-noise: must be >= 0, got nan" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --input-noise 0,nan
"$FN" eval --model "$TMP/flashnerd" --model "$TMP/nerd" --data "$TMP/test.h5" --horizons 1,10 --plots "$TMP/plots" > "$TMP/table.txt" || fail "eval two models"
grep -q "NRMSE@10" "$TMP/table.txt" || fail "eval table: $(cat "$TMP/table.txt")"
[ -s "$TMP/plots/nrmse_vs_horizon.png" ] || fail "no NRMSE plot"
grep -q '"FlashNeRD tiny"' "$TMP/plots/nrmse_vs_horizon.plot.json" || fail "plot legend: $(head -c 400 "$TMP/plots/nrmse_vs_horizon.plot.json")"
# without a plotting Python the run still succeeds, says so, and keeps the data for `flashnerd plot`
rm -rf "$TMP/plots"
FLASHNERD_PYTHON=/nonexistent/python3 "$FN" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,10 \
  --plots "$TMP/plots" > /dev/null 2> "$TMP/noplot.err" || fail "eval without a plotting Python"
grep -q "plots not drawn" "$TMP/noplot.err" || fail "no warning: $(cat "$TMP/noplot.err")"
[ ! -e "$TMP/plots/nrmse_vs_horizon.png" ] && [ -s "$TMP/plots/nrmse_vs_horizon.plot.json" ] || fail "plot data missing"
"$FN" plot "$TMP/plots/nrmse_vs_horizon.plot.json" > /dev/null || fail "flashnerd plot"
[ -s "$TMP/plots/nrmse_vs_horizon.png" ] || fail "flashnerd plot drew nothing"
expect_error "does not exist" plot "$TMP/plots/missing.plot.json"
echo '{"kind": "bar"}' > "$TMP/plots/bad.plot.json"
expect_error "were not drawn" plot "$TMP/plots/bad.plot.json"

expect_error "is for robot 'arm7'" eval --model "$TMP/flashnerd" --data "$TMP/arm.h5"
expect_error "generate longer held-out" eval --model "$TMP/flashnerd" --data "$TMP/test.h5" --horizons 1,500
expect_error "does not exist" eval --model "$TMP/nope" --data "$TMP/test.h5"
# a truncated artifact is refused, naming the file
cp -r "$TMP/flashnerd" "$TMP/broken"
truncate -s 100 "$TMP/broken/weights.safetensors"
expect_error "weights.safetensors" eval --model "$TMP/broken" --data "$TMP/test.h5"

"$FN" rollout --model "$TMP/flashnerd" --data "$TMP/test.h5" --steps 30 --frames 3 --width 96 --height 72 \
  --out "$TMP/render" --json > "$TMP/rollout.json" || fail "rollout"
[ -s "$TMP/render/rollout_strip.png" ] && [ -s "$TMP/render/rollout.mp4" ] || fail "rollout outputs missing"
grep -q '"label":"FlashNeRD tiny"' "$TMP/rollout.json" || fail "rollout row labels: $(cat "$TMP/rollout.json")"

"$FN" bench --arch both --model "$TMP/flashnerd" --batch 1,8 --groups 3 --group-seconds 0.02 \
  --warmup-seconds 0.1 --json > "$TMP/bench.json" || fail "bench"
grep -q '"mtransitions_per_s"' "$TMP/bench.json" || fail "bench JSON: $(cat "$TMP/bench.json")"
echo "eval_cli: all checks passed"
