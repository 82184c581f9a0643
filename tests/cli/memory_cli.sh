#!/usr/bin/env bash
# requires: libtorch (train and ppo)
# A run that could never fit is refused before its first allocation, with the sum of what it
# would allocate and its parts: parts that fit one by one are not let through together.
# The sizes are absurd on any machine (terabytes), so the refusals hold wherever CI runs.
# Usage: memory_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
MODEL="$(cd "$(dirname "$0")/../../models/quadruped" && pwd)" || fail "models/quadruped is missing"
cd "$TMP"

expect_error "update activations" ppo --task quadruped-velocity --envs 1048576 --steps-per-env 4096 --out run
expect_error "refresh windows" ppo --task quadruped-velocity --envs 8 --backend flashnerd --model "$MODEL" \
  --real-envs 4 --refresh-every 2 --refresh-windows 2000000000000 --out run
[ -e run ] && fail "a refused ppo left its output"
expect_error "sampled controls" plan --task swingup --backend mujoco --samples 100000 --horizon 100000000 --frames 2
"$FN" gen --robot cartpole --trajectories 8 --steps 20 --out d.h5 --json > /dev/null || fail "gen"
expect_error "activations and their gradients" train --data d.h5 --batch 2000000000 --out m
[ -e m/config.json ] && fail "a refused train wrote a model"
echo "memory_cli: ok"
