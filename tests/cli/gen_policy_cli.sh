#!/usr/bin/env bash
# requires: libtorch (the script trains a policy)
# On-policy data for a finetune: `gen --policy` records a policy's run in MuJoCo (same seed, same
# file), `merge --concat` appends it to random data of the same robot, and `finetune` trains on
# the mixture; mismatched robots and datasets are refused by name.
# Usage: gen_policy_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" ppo --task cartpole-balance --envs 16 --steps-per-env 16 --hidden 16,16 --iterations 2 --quiet \
  --out "$TMP/run" --json > /dev/null || fail "ppo"
GEN=(gen --robot cartpole --steps 30 --threads 1 --json)
"$FN" "${GEN[@]}" --policy "$TMP/run/policy" --policy-envs 4 --trajectories 10 --seed 3 --out "$TMP/p1.h5" \
  > "$TMP/p1.json" || fail "gen --policy"
grep -q '"trajectories":10' "$TMP/p1.json" || fail "gen --policy summary: $(cat "$TMP/p1.json")"
"$FN" "${GEN[@]}" --policy "$TMP/run/policy" --policy-envs 4 --trajectories 10 --seed 3 --out "$TMP/p2.h5" \
  > /dev/null || fail "gen --policy, again"
cmp "$TMP/p1.h5" "$TMP/p2.h5" || fail "gen --policy: same seed, different file"
"$FN" "${GEN[@]}" --policy "$TMP/run/policy" --policy-noise 0 --trajectories 10 --seed 3 --out "$TMP/p0.h5" \
  > /dev/null || fail "gen --policy --policy-noise 0"
cmp -s "$TMP/p1.h5" "$TMP/p0.h5" && fail "the action noise changed nothing"

"$FN" "${GEN[@]}" --trajectories 12 --seed 1 --out "$TMP/random.h5" > /dev/null || fail "gen, random"
"$FN" merge --concat "$TMP/random.h5" "$TMP/p1.h5" --out "$TMP/mix.h5" --json > "$TMP/mix.json" || fail "merge --concat"
grep -q '"trajectories":22' "$TMP/mix.json" || fail "merge --concat summary: $(cat "$TMP/mix.json")"
"$FN" train --data "$TMP/random.h5" --preset tiny --updates 4 --valid-every 0 --quiet --out "$TMP/model" \
  --json > /dev/null || fail "train"
"$FN" finetune --model "$TMP/model" --data "$TMP/mix.h5" --updates 4 --valid-every 0 --quiet --out "$TMP/tuned" \
  --json > /dev/null || fail "finetune on the mixture"

"$FN" gen --robot cartpole --steps 20 --trajectories 4 --seed 1 --threads 1 --out "$TMP/short.h5" --json > /dev/null \
  || fail "gen, other steps"
expect_error "its steps or timestep differs" merge --concat "$TMP/random.h5" "$TMP/short.h5" --out "$TMP/bad.h5"
expect_error "at least two" merge --concat "$TMP/random.h5" --out "$TMP/bad.h5"
cp "$TMP/random.h5" "$TMP/copy.h5"
expect_error "holds the same trajectories as" merge --concat "$TMP/random.h5" "$TMP/p1.h5" "$TMP/copy.h5" --out "$TMP/bad.h5"
[ -e "$TMP/bad.h5" ] && fail "a refused merge --concat wrote its output"
expect_error "runs on robot 'cartpole'" gen --robot quadruped --policy "$TMP/run/policy" --trajectories 2 --out "$TMP/bad.h5"
expect_error "cannot be combined" "${GEN[@]}" --policy "$TMP/run/policy" --trajectories 4 --shard 0/2 --out "$TMP/bad.h5"
expect_error "no policy at" gen --robot cartpole --policy "$TMP/nothing" --trajectories 2 --out "$TMP/bad.h5"
[ -e "$TMP/bad.h5" ] && fail "a refused command wrote its output"
echo "gen_policy_cli: OK"
