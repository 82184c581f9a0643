#!/usr/bin/env bash
# flashnerd plan / plan-video end to end with MuJoCo as the planning dynamics: DIAL-MPC swings
# the cartpole up (the success rule holds for a second), a short climbing trial keeps its
# states for plan-video, a finished trial is not overwritten, and bad requests are refused.
# Usage: plan_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
py() { /usr/bin/python3 -c "import json,sys; j = json.load(open('$1')); $2"; }

"$FN" plan --task swingup --samples 64 --horizon 45 --knots 6 --frames 150 --seed 1 --quiet --json \
  > "$TMP/swingup.json" || fail "plan swingup"
py "$TMP/swingup.json" 'assert j["success"] is True, j; assert j["rollout_steps"] > 0; assert j["median_decision_ms"] > 0' ||
  fail "the planner did not swing the cartpole up"

"$FN" plan --task climb --terrain 3 --samples 12 --horizon 8 --knots 3 --first-iterations 2 --frames 6 --quiet \
  --out "$TMP/climb.json" --json > "$TMP/climb_summary.json" || fail "plan climb"
py "$TMP/climb.json" 'assert len(j["qpos"]) == 7 * j["nq"]; assert len(j["ctrl"]) == 6 * 12; assert j["terrain"]["height"] == 0.181
assert abs(j["model_ms_per_decision"] + j["contact_detection_ms_per_decision"] + j["planner_overhead_ms_per_decision"]) > 0' ||
  fail "trial record"
"$FN" plan-video --trial "$TMP/climb.json" --trial "$TMP/climb.json" --frames 3 --width 96 --height 72 --no-video \
  --out "$TMP/video" --json > /dev/null || fail "plan-video"
[ -s "$TMP/video/plans_strip.png" ] || fail "plan-video wrote no strip"

# --diagnose with the shipped climbing model: every plan rolled out on the model and on MuJoCo
MODELS="$(dirname "$0")/../../models"
"$FN" plan --task climb --terrain 3 --backend flashnerd --model "$MODELS/quadruped_platform" --samples 8 --horizon 6 \
  --knots 3 --first-iterations 1 --frames 5 --quiet --diagnose --out "$TMP/diagnosed.json" --json \
  > "$TMP/diagnosed_summary.json" || fail "plan --diagnose"
py "$TMP/diagnosed.json" 'd = j["diagnosis"]
assert j["contact_capacity"] == 64 and 0 < j["contact_rows_max"] <= 64 and j["contact_rows_dropped"] == 0, j
assert len(d["plan_gap"]) == 5 * 6 and len(d["plan_model_position"]) == 5 * 6 * 3 and len(d["one_step_error"]) == 5, d
assert 0 < d["one_step_rmse"] < 0.05 and d["plan_gap_at_horizon_mean"] > 0, d' || fail "diagnosis: $(cat "$TMP/diagnosed_summary.json")"
expect_error "--diagnose compares" plan --task climb --terrain 3 --diagnose

# a trial is deterministic per planner seed, and another seed plans otherwise; the trial table
# (experiments/climbing/trial_table.py) counts them with Wilson intervals and Fisher's test
TRIALS="$TMP/trials"
mkdir -p "$TRIALS"
for seed in 1 2; do
  "$FN" plan --task climb --terrain 0 --samples 12 --horizon 8 --knots 3 --first-iterations 2 --frames 4 --seed $seed \
    --threads 2 --quiet --out "$TRIALS/mujoco_t0_s$seed.json" > /dev/null || fail "plan seed $seed"
done
# (--no-progress: the older spelling of --quiet, still accepted)
"$FN" plan --task climb --terrain 0 --samples 12 --horizon 8 --knots 3 --first-iterations 2 --frames 4 --seed 1 \
  --threads 1 --no-progress --out "$TMP/again_s1.json" > /dev/null || fail "plan seed 1 again"
/usr/bin/python3 - "$TRIALS" "$TMP/again_s1.json" <<'PY' || fail "trials are not deterministic per seed"
import json, sys
a, b = (json.load(open(p)) for p in (sys.argv[1] + "/mujoco_t0_s1.json", sys.argv[2]))
c = json.load(open(sys.argv[1] + "/mujoco_t0_s2.json"))
assert a["qpos"] == b["qpos"] and a["ctrl"] == b["ctrl"], "seed 1 planned twice differs"
assert a["ctrl"] != c["ctrl"], "seeds 1 and 2 planned the same"
PY
TABLE="$(dirname "$0")/../../experiments/climbing/trial_table.py"
/usr/bin/python3 "$TABLE" "$TRIALS" > "$TMP/table.md" || fail "trial table"
grep -q "| MuJoCo | [0-2] / 2 |" "$TMP/table.md" && grep -q "| h150_d65 | 0.150 | 0.65 | [0-2] / 2 |" "$TMP/table.md" ||
  fail "trial table: $(cat "$TMP/table.md")"
/usr/bin/python3 - "$TABLE" <<'PY' || fail "trial statistics"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("trial_table", sys.argv[1])
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
lo, hi = t.wilson(27, 30)
assert abs(lo - 0.7438) < 1e-4 and abs(hi - 0.9654) < 1e-4, (lo, hi)
assert abs(t.fisher_two_sided(1, 5, 6, 0) - 0.015152) < 1e-5  # scipy.stats.fisher_exact
assert t.fisher_two_sided(3, 3, 3, 3) == 1.0
PY

expect_error "--overwrite" plan --task climb --terrain 3 --samples 4 --horizon 4 --knots 2 --frames 1 --out "$TMP/climb.json"
expect_error "--terrain 9" plan --task climb --terrain 9
echo '{"robot": "quadruped_platform", "terrains": [{"height": -0.1, "distance": 0.5}]}' > "$TMP/bad_terrains.json"
expect_error "\"height\" must be in (0, 10)" plan --task climb --terrains "$TMP/bad_terrains.json" --terrain 0
echo '{"robot": "quadruped_platform", "terrains": [{"name": "near", "height": 0.15, "distance": 0.4}]}' > "$TMP/near.json"
expect_error "terrain 'near': the start pose puts" plan --task climb --terrains "$TMP/near.json" --terrain 0
echo '{"robot": ' > "$TMP/broken.json"
expect_error "not valid JSON" plan --task climb --terrains "$TMP/broken.json"
expect_error "--samples" plan --task swingup --samples 1
expect_error "--horizon" plan --task swingup --horizon 3 --knots 6
expect_error "--task: must be one of climb or swingup, got 'dance'" plan --task dance
expect_error "--model" plan --task swingup --backend flashnerd
# the planner offers only the backends it can plan with (coupled kinds step objects in a hand)
expect_error "--backend: must be one of mujoco, flashnerd or nerd, got 'two-way'" plan --task swingup --backend two-way
echo "plan CLI OK"
