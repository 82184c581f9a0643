#!/usr/bin/env bash
# requires: libtorch (the script runs PPO and trains a model)
# Nothing silently wrong: a diverging PPO run stops with an error and keeps its last finite
# checkpoint; damaged checkpoints (flipped bytes, NaN bytes) are refused on --resume; a
# policy with a NaN weight is refused by tensor name; a resume with other settings names
# the field; sizes that cannot fit are refused before allocation, with the figure.
# Usage: finite_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
cd "$TMP"
PPO=(ppo --task cartpole-balance --envs 4 --steps-per-env 8 --quiet)

# divergence: an error, not a NaN policy with rc 0; the checkpoint of iteration 2 stays
"$FN" "${PPO[@]}" --iterations 2 --checkpoint-every 1 --out run --json > /dev/null || fail "ppo"
cp run/checkpoint.pt ck.ref
expect_error "the run stops" "${PPO[@]}" --iterations 3 --checkpoint-every 1 --out diverging --lr 1e30
grep -qi nan diverging/log.csv 2> /dev/null && fail "a diverged run logged NaN"
expect_error "lr (checkpoint 0.001, this run 1e+30)" "${PPO[@]}" --iterations 3 --out run --resume --lr 1e30
expect_error "--reward-scale: must hold only finite numbers, got alive=nan" "${PPO[@]}" --iterations 1 --out x --reward-scale alive=nan
expect_error "is given twice" "${PPO[@]}" --iterations 1 --out x --reward-scale alive=1 --reward-scale alive=2
cmp -s run/checkpoint.pt ck.ref || fail "a refused resume changed the checkpoint"

# damaged checkpoints are refused by name, whichever bytes changed
python3 -c '
import sys; b = bytearray(open("ck.ref", "rb").read())
for i in range(10, 61): b[i] ^= 0x5a
open("run/checkpoint.pt", "wb").write(b)'
expect_error "damaged" "${PPO[@]}" --iterations 3 --out run --resume
python3 -c '
import struct; b = bytearray(open("ck.ref", "rb").read())
n = len(b) // 2; b[n:n + 4] = struct.pack("<f", float("nan"))
open("run/checkpoint.pt", "wb").write(b)'
expect_error "checksum mismatch" "${PPO[@]}" --iterations 3 --out run --resume
cp ck.ref run/checkpoint.pt
"$FN" "${PPO[@]}" --iterations 3 --out run --resume --json > /dev/null || fail "resume from the intact checkpoint"

# a policy with a NaN weight is refused by tensor name
cp -r run/policy nan_policy
python3 -c '
import json, struct
p = "nan_policy/policy.safetensors"; b = bytearray(open(p, "rb").read())
n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
off = 8 + n + h["actor.0.weight"]["data_offsets"][0]
b[off:off + 4] = struct.pack("<f", float("nan")); open(p, "wb").write(b)'
expect_error "tensor actor.0.weight element 0 is nan" policy-eval --policy nan_policy --envs 2 --steps 4

# a damaged training checkpoint is refused on --resume
"$FN" gen --robot cartpole --trajectories 8 --steps 20 --seed 1 --out d.h5 --json > /dev/null || fail "gen"
"$FN" train --data d.h5 --preset tiny --updates 2 --valid-every 0 --quiet --out m --json > /dev/null || fail "train"
python3 -c '
b = bytearray(open("m/checkpoint.pt", "rb").read()); b[len(b) // 3] ^= 1; open("m/checkpoint.pt", "wb").write(b)'
expect_error "checksum mismatch" train --data d.h5 --preset tiny --updates 4 --valid-every 0 --out m --resume
expect_error "holds a PPO run" train --data d.h5 --preset tiny --updates 4 --valid-every 0 --out run --resume

# sizes refused before allocation, with the memory they would need
expect_error "would need" plan --task swingup --samples 100000000 --frames 1
expect_error "would need" train --data d.h5 --batch 100000000 --updates 1 --out t
expect_error "would need" ppo --task cartpole-balance --envs 1048576 --steps-per-env 10000 --iterations 1 --out p
for d in t p x; do [ -e "$d" ] && fail "a refused run left $d/"; done
echo "finite_cli: ok"
