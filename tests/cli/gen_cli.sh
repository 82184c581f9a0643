#!/usr/bin/env bash
# End-to-end checks of `flashnerd gen`: a small run with --json, determinism across thread
# counts, and bad inputs answered with a clear error and no output file.
# Usage: gen_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

# a good run, twice with different thread counts: identical files
"$FN" gen --robot cartpole --trajectories 16 --steps 20 --seed 3 --threads 1 --out "$TMP/a.h5" --json > "$TMP/a.json" || fail "gen failed"
"$FN" gen --robot cartpole --trajectories 16 --steps 20 --seed 3 --threads 2 --out "$TMP/b.h5" --json > "$TMP/b.json" || fail "gen failed"
grep -q '"transitions":320' "$TMP/a.json" || fail "summary: $(cat "$TMP/a.json")"
# HDF5 files carry no timestamps here, but compare the arrays to be safe
cmp -s "$TMP/a.h5" "$TMP/b.h5" || fail "same seed gave different files with 1 and 2 threads"

expect_error "does not exist" gen --mjcf "$TMP/missing.xml" --out "$TMP/x.h5"
echo "<mujoco><worldbody><body>" > "$TMP/bad.xml"
expect_error "cannot load MJCF" gen --mjcf "$TMP/bad.xml" --out "$TMP/x.h5"
echo "<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1'/></body></worldbody></mujoco>" > "$TMP/noact.xml"
expect_error "no actuators" gen --mjcf "$TMP/noact.xml" --out "$TMP/x.h5"
expect_error "does not exist" gen --robot cartpole --out "$TMP/no/such/dir/x.h5"
expect_error "must be positive" gen --robot cartpole --trajectories 0 --out "$TMP/x.h5"
expect_error "must be positive" gen --robot cartpole --steps -5 --out "$TMP/x.h5"
expect_error "unknown robot" gen --robot nosuchrobot --out "$TMP/x.h5"
expect_error "exactly one of" gen --out "$TMP/x.h5"
# values refused before anything is simulated, naming the option and its range
expect_error "--steps: must be positive, got 0" gen --robot cartpole --steps 0 --out "$TMP/x.h5"
expect_error "--trajectories: must be positive, got -3" gen --robot cartpole --trajectories -3 --out "$TMP/x.h5"
expect_error "--control-dt: must be positive, got nan" gen --robot cartpole --control-dt nan --out "$TMP/x.h5"
expect_error "--control-dt: must be positive, got -0.01" gen --robot cartpole --control-dt -0.01 --out "$TMP/x.h5"
expect_error "--ar1-coefficient: must be in .0, 1), got 1" gen --robot cartpole --ar1-coefficient 1 --out "$TMP/x.h5"
expect_error "--hold-steps: must be >= 1, got 0" gen --robot cartpole --hold-steps 0 --out "$TMP/x.h5"
expect_error "--contact-capacity: must be >= 0, got -2" gen --robot cartpole --contact-capacity -2 --out "$TMP/x.h5"
expect_error "--contacts: must be one of on or off, got 'maybe'" gen --robot cartpole --contacts maybe --out "$TMP/x.h5"
expect_error "--command-process: must be one of uniform, hold or ar1, got 'bogus'" gen --robot cartpole \
  --command-process bogus --out "$TMP/x.h5"
# the memory a request would need, refused before allocating it
expect_error "1000000000000 trajectories of 100 steps of robot 'cartpole' would need .* of memory" \
  gen --robot cartpole --trajectories 1000000000000 --out "$TMP/x.h5"
# the output location is checked before simulating
expect_error "is a directory; give a file name" gen --robot cartpole --out "$TMP"
[ ! -e "$TMP/x.h5" ] || fail "a failed run left $TMP/x.h5"

# temporaries of dead runs of the same output are cleaned; a live process's is kept
sleep 0 & DEAD=$!; wait $DEAD
touch "$TMP/s.h5.tmp.$DEAD" "$TMP/s.h5.tmp.$$" "$TMP/other.h5.tmp.$DEAD"
"$FN" gen --robot cartpole --trajectories 2 --steps 5 --out "$TMP/s.h5" --json > /dev/null || fail "gen over stale temporaries"
[ ! -e "$TMP/s.h5.tmp.$DEAD" ] || fail "the stale temporary of dead process $DEAD was left"
[ -e "$TMP/s.h5.tmp.$$" ] || fail "the temporary of a live process was removed"
[ -e "$TMP/other.h5.tmp.$DEAD" ] || fail "a temporary of another output was removed"

# an interrupted run leaves no file under the final name
"$FN" gen --robot humanoid --trajectories 100000 --out "$TMP/killed.h5" > /dev/null 2>&1 &
PID=$!
sleep 2
kill -9 $PID 2>/dev/null
wait $PID 2>/dev/null
[ ! -e "$TMP/killed.h5" ] || fail "a killed run left a file under the final name"

# any MJCF by path works with defaults from the model
cat > "$TMP/pendulum.xml" <<'XML'
<mujoco><compiler angle="radian"/><option timestep="0.01"/>
<worldbody><body><joint name="j" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02"/></body></worldbody>
<actuator><motor joint="j" ctrlrange="-1 1" ctrllimited="true"/></actuator></mujoco>
XML
"$FN" gen --mjcf "$TMP/pendulum.xml" --trajectories 4 --steps 10 --out "$TMP/p.h5" --json > "$TMP/p.json" || fail "gen on a user MJCF failed"
grep -q '"robot":"pendulum"' "$TMP/p.json" || fail "user MJCF summary: $(cat "$TMP/p.json")"
echo "gen_cli: all checks passed"
