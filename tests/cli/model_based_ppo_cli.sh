#!/usr/bin/env bash
# requires: libtorch (the script trains a policy)
# flashnerd ppo --real-envs: model-based PPO on the shipped cartpole model with MuJoCo in the
# loop. The policy balances in MuJoCo, the log counts the real transitions and branched
# episodes, on-policy refreshes fine-tune the model (an ensemble member by member) and resume
# bit-exactly, and the options of the loop are refused without a learned backend and real envs.
# Usage: model_based_ppo_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
MODEL="$(cd "$(dirname "$0")/../../models/cartpole" && pwd)" || fail "no shipped models/cartpole"
PY=/usr/bin/python3

"$FN" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 256 --steps-per-env 32 --iterations 100 \
  --real-envs 8 --real-steps 32 --real-every 2 --branch-steps 64 --seed 3 --out "$TMP/run" --quiet --json \
  > "$TMP/ppo.json" || fail "ppo --real-envs"
"$PY" - "$TMP/ppo.json" "$TMP/run/log.csv" <<'PY' || fail "the run's summary or log"
import csv, json, sys
summary = json.load(open(sys.argv[1]))
assert summary["real_transitions"] == 50 * 8 * 32, summary  # iterations 1, 3, ..., 99 explore
rows = list(csv.DictReader(open(sys.argv[2])))
assert [int(r["real_transitions"]) for r in rows[:3]] == [256, 256, 512], [r["real_transitions"] for r in rows[:3]]
assert sum(int(r["branched_starts"]) for r in rows) > 0, "no imagined episode branched from a real state"
PY
grep -q '"real"' "$TMP/run/policy/policy.json" || fail "the policy does not record the loop's settings"
"$FN" policy-eval --policy "$TMP/run/policy" --envs 32 --steps 200 --json > "$TMP/eval.json" || fail "policy-eval"
"$PY" -c "import json,sys; r=json.load(open('$TMP/eval.json')); sys.exit(not (r['episode_reward'] >= 190 and r['terminations'] <= 2))" \
  || fail "the policy trained with MuJoCo in the loop does not balance in MuJoCo: $(cat "$TMP/eval.json")"
expect_error "was made with" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 256 \
  --steps-per-env 32 --iterations 101 --real-envs 4 --real-steps 32 --real-every 2 --branch-steps 64 --seed 3 \
  --out "$TMP/run" --resume --quiet

# on-policy refreshes: the model is fine-tuned on the explored windows every 10 iterations, 20
# updates and from iteration 20 on 30; a run resumed between two refreshes (its checkpoint
# names the refreshed model) equals the uninterrupted run bit for bit
REFRESH=(ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 64 --steps-per-env 16 --real-envs 4
         --real-steps 16 --branch-steps 32 --refresh-every 10 --refresh-updates 20 --refresh-updates-from 20:30
         --refresh-batch 16 --seed 2 --checkpoint-every 5 --quiet --json)
"$FN" "${REFRESH[@]}" --iterations 20 --out "$TMP/straight" > "$TMP/straight.json" || fail "ppo --refresh-every"
"$FN" "${REFRESH[@]}" --iterations 15 --out "$TMP/resumed" > /dev/null || fail "ppo --refresh-every, first part"
"$FN" "${REFRESH[@]}" --iterations 20 --out "$TMP/resumed" --resume > /dev/null || fail "ppo --refresh-every --resume"
cmp -s "$TMP/straight/policy/policy.safetensors" "$TMP/resumed/policy/policy.safetensors" \
  || fail "a run resumed between refreshes differs from the uninterrupted run"
for it in 10 20; do
  cmp -s "$TMP/straight/model_refresh/iteration_$it/weights.safetensors" "$TMP/resumed/model_refresh/iteration_$it/weights.safetensors" \
    || fail "refreshed model $it differs between the resumed and the uninterrupted run"
done
"$PY" - "$TMP/straight.json" "$TMP/straight/log.csv" "$MODEL/weights.safetensors" "$TMP/straight/model_refresh/iteration_10/weights.safetensors" <<'PY' || fail "the refresh's record"
import csv, json, sys
summary = json.load(open(sys.argv[1]))
assert summary["refresh_updates"] == 20 + 30 and 0 < summary["seconds_refresh_replay"] < summary["seconds_refresh"], summary
rows = list(csv.DictReader(open(sys.argv[2])))
refreshed = [int(r["iteration"]) for r in rows if r["model_valid_loss"] != ""]
assert refreshed == [10, 20], refreshed
assert open(sys.argv[3], "rb").read() != open(sys.argv[4], "rb").read(), "the refresh did not change the weights"
PY

# an ensemble refreshes member by member: two copies of the shipped model, each fine-tuned with
# a seed of its own, stepped with their disagreement penalized
ENS="$TMP/ensemble"
mkdir -p "$ENS"
cp -r "$MODEL" "$ENS/member_0"
cp -r "$MODEL" "$ENS/member_1"
printf '{"format": "flashnerd-ensemble", "version": 1, "members": ["member_0", "member_1"]}\n' > "$ENS/ensemble.json"
"$FN" ppo --task cartpole-balance --backend flashnerd --model "$ENS" --envs 32 --steps-per-env 16 --real-envs 4 \
  --real-steps 16 --branch-steps 32 --refresh-every 5 --refresh-updates 10 --refresh-batch 16 --uncertainty-penalty 1 \
  --iterations 5 --seed 2 --quiet --json --out "$TMP/ensemble_run" > /dev/null || fail "ppo --refresh-every on an ensemble"
REFRESHED="$TMP/ensemble_run/model_refresh/iteration_5"
[ -f "$REFRESHED/ensemble.json" ] || fail "the refreshed ensemble has no manifest"
cmp -s "$REFRESHED/member_0/weights.safetensors" "$REFRESHED/member_1/weights.safetensors" \
  && fail "the refreshed members are equal: they did not train with seeds of their own"
cmp -s "$REFRESHED/member_0/weights.safetensors" "$MODEL/weights.safetensors" && fail "the refresh left member 0 as it was"

# refusals
expect_error "already real" ppo --task cartpole-balance --envs 8 --iterations 1 --real-envs 4 --out "$TMP/r1"
expect_error "requires --real-envs" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 \
  --iterations 1 --branch-fraction 0.5 --out "$TMP/r2"
expect_error "branch-fraction" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 --iterations 1 \
  --real-envs 4 --branch-fraction 1.5 --out "$TMP/r3"
expect_error "requires --real-envs" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 \
  --iterations 1 --refresh-every 2 --out "$TMP/r4"
expect_error "ITERATION:UPDATES" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 \
  --iterations 1 --real-envs 4 --refresh-every 2 --refresh-updates-from 500 --out "$TMP/r5"
expect_error "must ascend" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 \
  --iterations 1 --real-envs 4 --refresh-every 2 --refresh-updates-from 500:10 --refresh-updates-from 400:20 \
  --out "$TMP/r6"
expect_error "every iteration" ppo --task cartpole-balance --backend flashnerd --model "$MODEL" --envs 8 \
  --iterations 1 --real-envs 4 --real-every 2 --real-in-batch --out "$TMP/r7"
echo "model_based_ppo_cli: OK"
