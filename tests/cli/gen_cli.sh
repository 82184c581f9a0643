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
[ ! -e "$TMP/x.h5" ] || fail "a failed run left $TMP/x.h5"

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
