#!/usr/bin/env bash
# requires: libtorch (the script trains a model)
# Actuators with dynamics end to end: gen records their activations (dataset 'act', layout
# na), train learns them as state channels, eval reports their error as the group
# 'activation'. Usage: activation_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

cat > "$TMP/stateful.xml" <<'XML'
<mujoco><compiler angle="radian"/><option timestep="0.005"/>
<worldbody><body name="upper" pos="0 0 1"><joint name="shoulder" axis="0 1 0" range="-2 2" limited="true" damping="0.05"/>
 <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/>
 <body pos="0.3 0 0"><joint name="elbow" axis="0 1 0" range="-2 2" limited="true" damping="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/></body></body></worldbody>
<actuator><motor joint="shoulder" ctrlrange="-1 1" ctrllimited="true"/>
 <general joint="elbow" dyntype="filter" dynprm="0.1" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
XML
"$FN" gen --mjcf "$TMP/stateful.xml" --control-dt 0.02 --trajectories 64 --steps 30 --seed 1 --out "$TMP/d.h5" --json \
  > "$TMP/gen_out.json" || fail "gen"
grep -q '"activations_recorded":"1 of 1"' "$TMP/gen_out.json" || fail "gen summary: $(cat "$TMP/gen_out.json")"
"$FN" train --data "$TMP/d.h5" --preset tiny --updates 20 --out "$TMP/m" --quiet --json > /dev/null || fail "train"
grep -q '"na": *1' "$TMP/m/config.json" || fail "the model's layout lacks na"
"$FN" eval --model "$TMP/m" --data "$TMP/d.h5" --horizons 1,10 --json > "$TMP/eval_out.json" || fail "eval"
grep -q '"activation":\[' "$TMP/eval_out.json" || fail "eval has no activation group: $(cat "$TMP/eval_out.json")"
echo "activation_cli: all checks passed"
