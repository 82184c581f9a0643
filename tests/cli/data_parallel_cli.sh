#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# flashnerd train --workers 2: two worker processes over Gloo on loopback give the weights of
# one process with the same global batch and seed (to float summation order); a worker killed
# mid-run ends the run with a message naming it, the last checkpoint stays intact and
# --resume finishes the run; a hung (stopped) worker ends it within --worker-timeout.
# Usage: data_parallel_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
PY=/usr/bin/python3

"$FN" gen --robot cartpole --trajectories 40 --steps 50 --seed 3 --out "$TMP/d.h5" > /dev/null || fail "gen"
unbounded_train() { "$FN" train --data "$TMP/d.h5" --preset tiny --batch 16 --quiet "$@"; }
# a run that has not ended after 300 s fails the test (status 124) instead of holding CI until
# ctest's timeout; the launcher's workers die with it
train() { timeout -k 5 300 "$FN" train --data "$TMP/d.h5" --preset tiny --batch 16 --quiet "$@"; }

# 1. two workers = one process, same global batch and seed
train --updates 40 --valid-every 20 --seed 5 --out "$TMP/one" || fail "train, one process"
train --updates 40 --valid-every 20 --seed 5 --out "$TMP/two" --workers 2 2> "$TMP/two.err" || { cat "$TMP/two.err"; fail "train --workers 2"; }
grep -q "2 local workers" "$TMP/two.err" || fail "the launcher does not say it started 2 workers"
train --updates 40 --valid-every 20 --seed 6 --out "$TMP/other" || fail "train, other seed"
same=$(weight_diff "$TMP/one" "$TMP/two") || fail "comparing weights"
other=$(weight_diff "$TMP/one" "$TMP/other") || fail "comparing weights"
echo "relative max weight difference: 2 workers vs 1 = $same; other seed = $other"
"$PY" -c "import sys; sys.exit(not (float('$same') < 5e-4 < float('$other')))" \
  || fail "2 workers differ from 1 by $same (tolerance 5e-4; another seed differs by $other)"
grep -q '"workers": 2' "$TMP/two/config.json" || fail "config.json does not record the 2 workers"

# 2. a worker killed mid-run: the run stops naming it; the checkpoint resumes
run_in_background() {  # starts a long 2-worker run; sets RUN (pid) and RANK1 (rank 1's pid)
  # unbounded: wait_for_run bounds it, and its pid must be the launcher's
  unbounded_train --updates 1000000 --checkpoint-every 5 --valid-every 100000 --workers 2 --out "$1" "${@:2}" \
    2> "$1.err" &
  RUN=$!
  for _ in $(seq 300); do [ -f "$1/checkpoint.pt" ] && break; sleep 0.1; done
  [ -f "$1/checkpoint.pt" ] || { cat "$1.err"; fail "no checkpoint after 30 s"; }
  RANK1=$(sed -n 's/.*rank 1 pid \([0-9]*\).*/\1/p' "$1.err")
  [ -n "$RANK1" ] || { cat "$1.err"; fail "the launcher did not list rank 1's pid"; }
}
# waits for the background run $RUN to end (status in STATUS); a run still alive after 60 s
# fails the test with its stderr instead of holding CI until ctest's timeout
wait_for_run() {
  for _ in $(seq 600); do kill -0 "$RUN" 2> /dev/null || break; sleep 0.1; done
  if kill -0 "$RUN" 2> /dev/null; then
    kill -9 "$RUN" 2> /dev/null
    cat "$1"
    fail "the run did not end within 60 s after its worker $2"
  fi
  STATUS=0
  wait "$RUN" || STATUS=$?
}
mkdir -p "$TMP/killed"
run_in_background "$TMP/killed"
sleep 0.5
kill -9 "$RANK1"
start=$SECONDS
wait_for_run "$TMP/killed.err" "was killed"
(( STATUS != 0 )) || fail "the run succeeded although a worker was killed"
(( SECONDS - start < 30 )) || fail "the run took $((SECONDS - start)) s to stop after a worker died"
grep -q "worker rank 1 was killed by signal 9" "$TMP/killed.err" || { cat "$TMP/killed.err"; fail "message does not name rank 1"; }
grep -q "continue with --resume" "$TMP/killed.err" || fail "message does not say how to continue"
done_updates=$(tail -n 1 "$TMP/killed/train_log.csv" | cut -d, -f1)
(( done_updates >= 5 )) || fail "the checkpoint's log ends at update '$done_updates'"
train --updates $((done_updates + 10)) --checkpoint-every 5 --workers 2 --resume --out "$TMP/killed" 2> "$TMP/resume.err" \
  || { cat "$TMP/resume.err"; fail "--resume after the failure"; }
[ -f "$TMP/killed/weights.safetensors" ] || fail "the resumed run wrote no artifact"
[ "$(tail -n 1 "$TMP/killed/train_log.csv" | cut -d, -f1)" = $((done_updates + 10)) ] || fail "resumed log length"

# 3. a hung worker (stopped): the others time out and the run ends, naming the rank behind
mkdir -p "$TMP/hung"
run_in_background "$TMP/hung" --worker-timeout 3
kill -STOP "$RANK1"
start=$SECONDS
wait_for_run "$TMP/hung.err" "hung"
(( STATUS != 0 )) || fail "the run succeeded although a worker hung"
(( SECONDS - start < 30 )) || fail "the run took $((SECONDS - start)) s to stop after a worker hung (timeout 3 s)"
grep -q "not done with it: rank 1" "$TMP/hung.err" || { cat "$TMP/hung.err"; fail "message does not name the hung rank"; }
kill -0 "$RANK1" 2> /dev/null && fail "the hung worker was left running"

# 4. refusals
expect_error "divisible by the 2 workers" train --data "$TMP/d.h5" --updates 4 --batch 15 --workers 2 --out "$TMP/odd"
echo "data_parallel_cli: OK"
