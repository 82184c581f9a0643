#!/usr/bin/env bash
# requires: libtorch (the script trains policies)
# `flashnerd ppo`, `policy-eval`, `policy-video` and `bench-env` end to end on small budgets: the run writes
# its checkpoint, log, curves and policy; a finished run is never restarted by accident and
# --resume continues it; a policy is judged in MuJoCo; a learned backend runs a trained
# model in the loop; bad options are refused by name. Usage: ppo_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

PPO=(ppo --task cartpole-balance --steps-per-env 16 --hidden 16,16 --quiet)
"$FN" "${PPO[@]}" --envs 16 --iterations 3 --out "$TMP/run" --json > "$TMP/ppo.json" || fail "ppo"
for f in checkpoint.pt log.csv reward_vs_time.png reward_vs_transitions.png policy/policy.json policy/policy.safetensors; do
  [ -s "$TMP/run/$f" ] || fail "ppo wrote no $f"
done
[ "$(wc -l < "$TMP/run/log.csv")" -eq 4 ] || fail "log.csv should have a header and 3 rows"
expect_error "already holds a PPO run; pass --resume" "${PPO[@]}" --envs 16 --iterations 3 --out "$TMP/run"
"$FN" "${PPO[@]}" --envs 16 --iterations 5 --resume --out "$TMP/run" --json > /dev/null || fail "ppo --resume"
[ "$(wc -l < "$TMP/run/log.csv")" -eq 6 ] || fail "the resumed run should continue to 5 rows"
expect_error "envs (checkpoint 16, this run 8)" "${PPO[@]}" --iterations 6 --resume --envs 8 --out "$TMP/run"

# other reward scales: recorded with the policy, applied by policy-eval, part of the run's identity
"$FN" "${PPO[@]}" --envs 16 --iterations 2 --reward-scale alive=0 --only-positive-rewards --out "$TMP/run_scaled" \
  --json > /dev/null || fail "ppo --reward-scale"
grep -q '"reward_settings"' "$TMP/run_scaled/policy/policy.json" || fail "the policy does not record its reward settings"
"$FN" policy-eval --policy "$TMP/run_scaled/policy" --envs 4 --steps 20 --json > "$TMP/eval_scaled.json" || fail "policy-eval, scaled"
grep -q '"episode_reward":0.0' "$TMP/eval_scaled.json" || fail "policy-eval ignored the policy's reward scale: $(cat "$TMP/eval_scaled.json")"
expect_error "was made with" "${PPO[@]}" --envs 16 --iterations 3 --resume --out "$TMP/run_scaled"
# a penalty ramp is recorded with the policy and refused as a resume of a run without one
"$FN" "${PPO[@]}" --envs 16 --iterations 2 --penalty-ramp 5 --penalty-delay 3 --out "$TMP/run_ramp" --json > /dev/null \
  || fail "ppo --penalty-ramp"
grep -q '"penalty_ramp": 5' "$TMP/run_ramp/policy/policy.json" || fail "the policy does not record its penalty ramp"
grep -q '"penalty_delay": 3' "$TMP/run_ramp/policy/policy.json" || fail "the policy does not record its penalty delay"
expect_error "was made with" "${PPO[@]}" --envs 16 --iterations 3 --penalty-ramp 5 --resume --out "$TMP/run"
expect_error "--penalty-ramp: must be >= 0, got -1" "${PPO[@]}" --envs 16 --iterations 1 --penalty-ramp -1 --out "$TMP/run_bad"
expect_error "is not TERM=SCALE" "${PPO[@]}" --envs 16 --iterations 1 --reward-scale alive --out "$TMP/run_bad"
expect_error "has no reward term 'survival'; its terms: alive" "${PPO[@]}" --envs 16 --iterations 1 \
  --reward-scale survival=1 --out "$TMP/run_bad"

"$FN" policy-eval --policy "$TMP/run/policy" --envs 8 --steps 50 --json > "$TMP/eval.json" || fail "policy-eval"
grep -q '"episode_reward"' "$TMP/eval.json" || fail "policy-eval summary: $(cat "$TMP/eval.json")"
expect_error "was trained on task 'cartpole-balance', not 'quadruped-velocity'" \
  policy-eval --policy "$TMP/run/policy" --task quadruped-velocity
# the help shows the default policy-eval uses (the policy's own task), which it accepts when passed
"$FN" policy-eval --help | grep -q -- "--task TEXT=auto" || fail "policy-eval --help shows another --task default"
"$FN" policy-eval --policy "$TMP/run/policy" --task auto --envs 2 --steps 4 --json > /dev/null || fail "--task auto"
expect_error "no policy at" policy-eval --policy "$TMP/nothing"

# a learned backend in the loop: a tiny FlashNeRD model of the cartpole
"$FN" gen --robot cartpole --trajectories 20 --steps 20 --seed 1 --out "$TMP/data.h5" --json > /dev/null || fail "gen"
"$FN" train --data "$TMP/data.h5" --preset tiny --updates 4 --valid-every 0 --quiet --out "$TMP/model" --json > /dev/null || fail "train"
"$FN" "${PPO[@]}" --envs 16 --iterations 2 --backend flashnerd --model "$TMP/model" --eval-every 1 --eval-envs 4 --eval-steps 20 \
  --out "$TMP/run_fn" --json > "$TMP/ppo_fn.json" || fail "ppo on flashnerd"
grep -q '"backend":"flashnerd"' "$TMP/ppo_fn.json" || fail "ppo on flashnerd: $(cat "$TMP/ppo_fn.json")"
expect_error "is a flashnerd model; pass flashnerd as --backend" "${PPO[@]}" --iterations 1 --backend nerd --model "$TMP/model" --out "$TMP/x"
expect_error "pass --model DIR" "${PPO[@]}" --iterations 1 --backend flashnerd --out "$TMP/x"
expect_error "is for robot 'cartpole', not 'quadruped'" ppo --task quadruped-velocity --backend flashnerd --model "$TMP/model" --envs 4 --out "$TMP/x"
expect_error "--envs: must be in .1, 1048576\], got 0" "${PPO[@]}" --envs 0 --out "$TMP/x"
expect_error "unknown task 'walk'" ppo --task walk --robot cartpole --out "$TMP/x"

"$FN" bench-env --task cartpole-balance --envs 8 --steps 5 --warmup 1 --model "$TMP/model" --json > "$TMP/bench.json" || fail "bench-env"
grep -q '"ratio_to_mujoco"' "$TMP/bench.json" || fail "bench-env summary: $(cat "$TMP/bench.json")"
"$FN" policy-video --policy "$TMP/run/policy" --policy "$TMP/run_fn/policy" --steps 10 --frames 3 --width 64 --height 48 \
  --out "$TMP/video" --json > /dev/null || fail "policy-video"
[ -s "$TMP/video/policies_strip.png" ] && [ -s "$TMP/video/policies.mp4" ] || fail "policy-video wrote no strip or video"
echo "ppo_cli: ok"
