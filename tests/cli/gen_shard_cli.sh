#!/usr/bin/env bash
# flashnerd gen --shard i/n + flashnerd merge: the shards of a run, merged in any order, are
# the file one run writes, byte for byte, also for a robot that draws its scene per trajectory
# (and so are gen's resumable blocks); a missing, repeated or foreign shard is refused, naming
# that shard (the foreign one is the shard the others disagree with, whatever its index).
# Usage: gen_shard_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

gen() { "$FN" gen --robot cartpole --trajectories 10 --steps 20 --seed "${SEED:-4}" --threads 1 --json "$@" > /dev/null; }
gen --out "$TMP/whole.h5" || fail "gen, one run"
for i in 0 1 2; do gen --shard $i/3 --out "$TMP/s$i.h5" || fail "gen --shard $i/3"; done
"$FN" merge "$TMP/s2.h5" "$TMP/s0.h5" "$TMP/s1.h5" --out "$TMP/merged.h5" > /dev/null || fail "merge"
cmp "$TMP/whole.h5" "$TMP/merged.h5" || fail "merged shards differ from the single run"
# the shards really are parts: each is smaller than the run and they differ from each other
cmp -s "$TMP/s0.h5" "$TMP/s1.h5" && fail "two shards are identical"
# a robot whose scene is drawn per trajectory (the platform, contact rows detected in it)
climb() { "$FN" gen --robot quadruped_platform --climbing-probes --trajectories 6 --steps 8 --seed 4 --threads 1 --json "$@" > /dev/null; }
climb --out "$TMP/climb_whole.h5" || fail "gen quadruped_platform, one run"
for i in 0 1 2; do climb --shard $i/3 --out "$TMP/climb_s$i.h5" || fail "gen quadruped_platform --shard $i/3"; done
"$FN" merge "$TMP/climb_s0.h5" "$TMP/climb_s1.h5" "$TMP/climb_s2.h5" --out "$TMP/climb_merged.h5" > /dev/null || fail "merge climb"
cmp "$TMP/climb_whole.h5" "$TMP/climb_merged.h5" || fail "merged climbing shards differ from the single run"
climb --checkpoint-every 2 --out "$TMP/climb_blocks.h5" || fail "gen quadruped_platform in blocks"
cmp "$TMP/climb_whole.h5" "$TMP/climb_blocks.h5" || fail "climbing data generated in blocks differ from one run"

SEED=5 gen --shard 1/3 --out "$TMP/other_seed.h5" || fail "gen, other seed"
expect_error "2 given" merge "$TMP/s0.h5" "$TMP/s1.h5" --out "$TMP/m1.h5"
expect_error "the file of shard 2/3 is missing" merge "$TMP/s0.h5" "$TMP/s1.h5" --out "$TMP/m1.h5"
expect_error "shard 1/3 is given twice ($TMP/s1.h5 and $TMP/s1.h5)" merge "$TMP/s0.h5" "$TMP/s1.h5" "$TMP/s1.h5" --out "$TMP/m2.h5"
expect_error "other_seed.h5 is from another run than $TMP/s0.h5 and the 1 other shard(s) that agree with it: its seed differs" \
  merge "$TMP/s0.h5" "$TMP/other_seed.h5" "$TMP/s2.h5" --out "$TMP/m3.h5"
# the foreign shard is named even when it holds the lowest index
SEED=5 gen --shard 0/3 --out "$TMP/other_seed0.h5" || fail "gen, other seed, shard 0"
expect_error "other_seed0.h5 is from another run than $TMP/s1.h5" merge "$TMP/other_seed0.h5" "$TMP/s1.h5" "$TMP/s2.h5" --out "$TMP/m5.h5"
expect_error "not a shard" merge "$TMP/whole.h5" --out "$TMP/m4.h5"
expect_error "already exists" merge "$TMP/s0.h5" "$TMP/s1.h5" "$TMP/s2.h5" --out "$TMP/whole.h5"
expect_error "expected I/N" gen --robot cartpole --shard 3/3 --out "$TMP/bad.h5"
expect_error "expected I/N" gen --robot cartpole --shard one --out "$TMP/bad.h5"
cmp "$TMP/whole.h5" "$TMP/merged.h5" || fail "a refused merge changed a file"
echo "gen_shard_cli: OK"
