#!/usr/bin/env bash
# `gen` survives a kill: a run made in blocks equals the single-block file byte for byte; a
# run killed part-way is refused without --resume, resumes from its finished blocks to the
# same bytes, and a resume with other settings is refused naming the setting.
# Usage: gen_resume_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
cd "$TMP"
GEN=(gen --robot quadruped --trajectories 600 --steps 20 --seed 5 --contacts off --threads 1 --json)

"$FN" "${GEN[@]}" --out whole.h5 > /dev/null || fail "gen in one block"
"$FN" "${GEN[@]}" --out blocks.h5 --checkpoint-every 64 > /dev/null || fail "gen in blocks"
cmp -s whole.h5 blocks.h5 || fail "a run in blocks differs from the run in one block"
[ -e blocks.h5.parts ] && fail "the blocks were left behind"

# killed once a few blocks are saved
"$FN" "${GEN[@]}" --out killed.h5 --checkpoint-every 32 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
  [ "$(ls killed.h5.parts 2> /dev/null | grep -c '^block_')" -ge 2 ] && break
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.02
done
kill -9 "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
if [ -e killed.h5 ]; then
  echo "gen_resume_cli: the run finished before the kill; resume not exercised"
else
  expect_error "pass --resume to continue it" "${GEN[@]}" --out killed.h5 --checkpoint-every 32
  expect_error "seed (the interrupted run 5, this run 6)" gen --robot quadruped --trajectories 600 --steps 20 \
    --seed 6 --contacts off --out killed.h5 --checkpoint-every 32 --resume
  "$FN" "${GEN[@]}" --out killed.h5 --checkpoint-every 32 --resume > /dev/null || fail "gen --resume"
  cmp -s whole.h5 killed.h5 || fail "a resumed run differs from the uninterrupted one"
fi
echo "gen_resume_cli: ok"
