#!/usr/bin/env bash
# requires: libtorch (the script trains models and policies)
# flashnerd ppo --task cube-reorient-reduced on the three backends of the reorientation study:
# mujoco, and two-way / one-way coupling of a (tiny) free-velocity hand model with MuJoCo's
# contact solve; the policy runs in MuJoCo afterwards; bad requests are refused.
# Usage: reorient_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot hand16_alone --free-dynamics --trajectories 12 --steps 30 --seed 1 --out "$TMP/free.h5" --json \
  > /dev/null || fail "gen --free-dynamics"
"$FN" train --data "$TMP/free.h5" --preset tiny --target free_velocity --updates 20 --valid-every 0 --quiet \
  --out "$TMP/hand" --json > /dev/null || fail "train the free-velocity hand model"
ppo() { "$FN" ppo --task cube-reorient-reduced --envs 8 --iterations 2 --quiet --json "$@"; }
for backend in mujoco two-way one-way; do
  model=(); [ $backend = mujoco ] || model=(--model "$TMP/hand")
  ppo --backend $backend "${model[@]}" --out "$TMP/p_$backend" > "$TMP/$backend.json" 2> "$TMP/$backend.err" \
    || { cat "$TMP/$backend.err"; fail "ppo --backend $backend"; }
  python3 - "$TMP/$backend.json" $backend <<'PY' || fail "ppo summary ($backend): $(cat "$TMP/$backend.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["task"] == "cube-reorient-reduced" and j["backend"] == sys.argv[2], j
assert j["transitions"] == 8 * 24 * 2, j["transitions"]   # policy steps (8 control steps each)
PY
  [ -f "$TMP/p_$backend/policy/policy.json" ] || fail "no policy from --backend $backend"
done
"$FN" policy-eval --policy "$TMP/p_two-way/policy" --task cube-reorient-reduced --envs 4 --steps 30 --json \
  > "$TMP/eval.json" || fail "policy-eval of the two-way policy in MuJoCo"
python3 - "$TMP/eval.json" <<'PY' || fail "reorientation figures: $(cat "$TMP/eval.json")"
import json, sys
r = json.load(open(sys.argv[1]))["reorientation"]
assert r["episodes"] == 4 and 0 <= r["drop_rate"] <= 1, r
lo, hi = r["targets_per_episode_ci95"]
assert lo <= r["targets_per_episode"] <= hi and 0 <= r["share_two_or_more_targets"] <= 1, r
PY
"$FN" policy-video --policy "$TMP/p_two-way/policy" --policy "$TMP/p_one-way/policy" --steps 6 --frames 3 \
  --no-video --width 96 --height 72 --out "$TMP/video" --json > "$TMP/video.json" || fail "policy-video of cube policies"
[ -s "$TMP/video/policies_strip.png" ] || fail "no strip of the cube policies"
! grep -q '"command"' "$TMP/video.json" || fail "policy-video reports a velocity command for cube policies"
# the 'rotate' variant, with MuJoCo validation: the best-validated policy is kept beside the last
"$FN" ppo --task cube-reorient-rotate --backend mujoco --envs 8 --iterations 2 --eval-every 1 --eval-envs 4 \
  --eval-steps 30 --quiet --json --out "$TMP/p_rotate" > /dev/null || fail "ppo --task cube-reorient-rotate"
python3 - "$TMP/p_rotate/best_policy/policy.json" <<'PY' || fail "best_policy of the rotate run"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["task"] == "cube-reorient-rotate", p["task"]
assert p["training"]["selected_by"]["iteration"] in (1, 2), p["training"]
PY
expect_error "cube-reorient-reduced, cube-reorient-rotate" ppo --task cube-reorient-easy --envs 2 --iterations 1 --out "$TMP/y"
expect_error "steps a trained model" ppo --task cube-reorient-reduced --envs 8 --iterations 1 --backend two-way \
  --out "$TMP/x"
"$FN" gen --robot hand16_alone --trajectories 6 --steps 20 --out "$TMP/inc.h5" --json > /dev/null || fail "gen"
"$FN" train --data "$TMP/inc.h5" --preset tiny --updates 5 --valid-every 0 --quiet --out "$TMP/inc" > /dev/null \
  || fail "train an increment model"
expect_error "free-dynamics model" ppo --task cube-reorient-reduced --envs 8 --iterations 1 --backend two-way \
  --model "$TMP/inc" --out "$TMP/z"
expect_error "robot-alone model" ppo --task quadruped-velocity --backend two-way --model "$TMP/hand" --envs 2 \
  --iterations 1 --out "$TMP/w"
echo "reorient_cli: OK"
