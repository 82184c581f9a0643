#!/usr/bin/env bash
# requires: libtorch (finetune and ppo exist only in a libtorch build; nothing is trained)
# Paths that cannot be used are named, with the fix: a symlink loop given as --out (or above
# it), as a PPO run's --out or as an ensemble member is a flashnerd error saying "symlink loop",
# not "unexpected error: filesystem error"; a --model directory without config.json is not a
# model directory. Usage: path_errors_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
MODELS="$(cd "$(dirname "$0")/../../models" && pwd)"
cd "$TMP"
ln -s loop loop
expect_error "--out loop: symlink loop" gen --robot cartpole --trajectories 2 --steps 5 --out loop
expect_error "--out loop/d.h5: symlink loop" gen --robot cartpole --trajectories 2 --steps 5 --out loop/d.h5
expect_error "loop/config.json: symlink loop" ppo --task cartpole-balance --envs 2 --iterations 1 --out loop
"$FN" gen --robot cartpole --trajectories 4 --steps 20 --out d.h5 --json > /dev/null || fail "gen"
expect_error "--out loop: symlink loop" finetune --model "$MODELS/cartpole" --data d.h5 --out loop
mkdir ens empty
cp -r "$MODELS/cartpole" ens/member_0
ln -s member_1 ens/member_1
echo '{"format": "flashnerd-ensemble", "version": 1, "members": ["member_0", "member_1"]}' > ens/ensemble.json
expect_error "ensemble member ens/member_1: symlink loop" eval --model ens --data d.h5
expect_error "empty is not a model directory (no config.json); train one with 'flashnerd train', or give a shipped model (models/<name>)" \
  finetune --model empty --data d.h5 --out ft
grep -q "unexpected error" "$TMP/out.txt" && fail "an unexpected error"
echo "path_errors_cli: OK"
