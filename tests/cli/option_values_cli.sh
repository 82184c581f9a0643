#!/usr/bin/env bash
# Every option refuses values that are not numbers it can use: NaN, infinity and overflowing
# numbers, alone or inside a list; seeds outside 0..2^64-1 (a negative seed is not wrapped);
# names outside an option's choices, before anything runs; a value the library refuses is named
# by its flag ("--horizon: ...").
# The executable finds its robots wherever it is run from, and a bad FLASHNERD_ROBOTS is named.
# Usage: option_values_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
cd "$TMP"

expect_error "--max-memory-gb: must be a finite number, got nan" bench --max-memory-gb nan
expect_error "must be a finite number, got inf" plan --task swingup --action-scale inf --frames 2
expect_error "must hold only finite numbers, got 0.5,nan,0" policy-eval --policy p --commands 0.5,nan,0
expect_error "must hold only finite numbers, got 1,0,0;inf,0,0" policy-eval --policy p --commands "1,0,0;inf,0,0"
expect_error "got 1e400" gen --robot cartpole --trajectories 4 --steps 5 --out d.h5 --control-dt 1e400
expect_error "a seed is an integer in 0..18446744073709551615 (2^64-1), got -1" gen --robot cartpole \
  --trajectories 4 --steps 5 --out d.h5 --seed -1
expect_error "got 18446744073709551616" gen --robot cartpole --trajectories 4 --steps 5 --out d.h5 \
  --seed 18446744073709551616
expect_error "got 1.5" policy-eval --policy p --seed 1.5
# a value the library refuses (an OptionError about the field) is named by its flag, as CLI11 does
expect_error "^flashnerd: error: --horizon: 3 must be at least --knots − 1 (5)" plan --task swingup --horizon 3 --knots 6 --frames 1
expect_error "--gemm: must be one of auto, openblas, eigen, naive or row-invariant, got 'mkl'" bench --gemm mkl
expect_error "--precision: must be one of all, auto, fp32 or bf16, got 'fp16'" bench --precision fp16
expect_error "--motion: must be one of grasp, push or random, got 'wave'" couple --model m --motion wave
PRESETS="tiny, small, paper-cartpole, paper-franka, paper-g1 or paper-anymal"
expect_error "--preset: must be one of $PRESETS, got 'huge'" train --data d.h5 --preset huge --out m
expect_error "--preset: must be one of $PRESETS, got 'huge'" fit --robot cartpole --preset huge --out f
expect_error "--preset: must be one of $PRESETS, got 'huge'" bench --preset huge
expect_error "--preset: must be one of $PRESETS, got 'huge'" bench-env --preset huge
[ -e d.h5 ] && fail "a refused gen wrote its output"
"$FN" gen --robot cartpole --trajectories 2 --steps 5 --out d.h5 --seed 18446744073709551615 --json > /dev/null \
  || fail "the largest seed was refused"

# found through PATH, from any folder, the executable finds the built-in robots beside it
mkdir elsewhere && cd elsewhere
( unset FLASHNERD_ROBOTS; PATH="$(dirname "$FN"):$PATH" flashnerd gen --robot cartpole --trajectories 2 --steps 5 \
  --out p.h5 --json > /dev/null ) || fail "flashnerd found through PATH does not find its robots"
cd ..
for robots in /nonexistent "" /etc/hostname; do
  FLASHNERD_ROBOTS="$robots" expect_error "FLASHNERD_ROBOTS is set to '$robots', which is not a directory" \
    gen --robot cartpole --trajectories 2 --steps 5 --out r.h5
done
mkdir empty_robots
FLASHNERD_ROBOTS=empty_robots expect_error "named by FLASHNERD_ROBOTS, holds no robot specs" \
  gen --robot cartpole --trajectories 2 --steps 5 --out r.h5
echo "option_values_cli: ok"
