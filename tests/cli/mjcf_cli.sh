#!/usr/bin/env bash
# `flashnerd gen` on MJCFs unlike the built-in robots (docs/ROBOTS.md, "any MJCF"): transmissions
# other than joints, a robot after a free object, several actuated trees chosen with
# --robot-body, position actuators without ctrlrange, and the summary of what is recorded.
# Usage: mjcf_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

# a tendon-driven arm next to a free box listed first; its position servo has no ctrlrange
cat > "$TMP/arm.xml" <<'XML'
<mujoco><compiler angle="radian"/>
<worldbody><geom type="plane" size="2 2 0.1"/>
<body name="box" pos="1 0 0.2"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
<body name="upper" pos="0 0 0.5"><joint name="shoulder" axis="0 1 0" range="-1 1" limited="true"/>
 <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
 <body name="lower" pos="0.3 0 0"><joint name="elbow" axis="0 1 0" range="-2 2" limited="true"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></body>
</worldbody>
<tendon><fixed name="both"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="0.5"/></fixed></tendon>
<actuator><motor tendon="both" ctrlrange="-2 2" ctrllimited="true"/><position name="servo" joint="elbow" kp="5"/></actuator>
</mujoco>
XML
"$FN" gen --mjcf "$TMP/arm.xml" --trajectories 4 --steps 10 --out "$TMP/arm.h5" --json > "$TMP/arm_out.json" 2> "$TMP/arm.err" \
  || { cat "$TMP/arm.err"; fail "gen on a tendon-driven arm after a free object"; }
grep -q '"qpos_recorded":"2 of 9"' "$TMP/arm_out.json" || fail "summary: $(cat "$TMP/arm_out.json")"
grep -q '"actuator_model":"mixed (motor, position)"' "$TMP/arm_out.json" || fail "actuator kinds: $(cat "$TMP/arm_out.json")"
grep -q "1 free object is simulated but not recorded ('box'; 1 bodies, 7 qpos)" "$TMP/arm_out.json" || fail "no warning for the box"
"$FN" gen --mjcf "$TMP/arm.xml" --trajectories 2 --steps 5 --out "$TMP/arm2.h5" > /dev/null 2> "$TMP/arm2.err" || fail "gen (table)"
grep -q "note: actuator 'servo' (position) has no ctrlrange: commands are drawn from its joint 'elbow' range \[-2, 2\]" \
  "$TMP/arm2.err" || { cat "$TMP/arm2.err"; fail "no note on the servo's command range"; }
grep -q "warning: 1 free object" "$TMP/arm2.err" || fail "no warning printed for the box"

# two floating actuated trees: refused with the option to choose one; chosen, the other is reported
cat > "$TMP/two.xml" <<'XML'
<mujoco><compiler angle="radian"/>
<worldbody><geom type="plane" size="5 5 0.1"/>
<body name="a_torso" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/>
 <body><joint name="a_hip" axis="0 1 0" range="-1 1" limited="true"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body></body>
<body name="b_torso" pos="2 0 1"><freejoint/><geom type="sphere" size="0.1"/>
 <body><joint name="b_hip" axis="0 1 0" range="-1 1" limited="true"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body></body>
</worldbody>
<actuator><motor joint="a_hip" ctrlrange="-1 1" ctrllimited="true"/><motor name="b" joint="b_hip" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
XML
expect_error "the actuators move 2 body trees ('a_torso', 'b_torso') and each has a free joint" gen --mjcf "$TMP/two.xml" --out "$TMP/x.h5"
expect_error "Choose the robot: one tree with a free joint (e.g. --robot-body a_torso)" gen --mjcf "$TMP/two.xml" --out "$TMP/x.h5"
expect_error "^flashnerd: error: --robot-body: .*robot body 'nobody' is not a body of the model" \
  gen --mjcf "$TMP/two.xml" --robot-body nobody --out "$TMP/x.h5"
"$FN" gen --mjcf "$TMP/two.xml" --robot-body b_torso --trajectories 2 --steps 5 --out "$TMP/two.h5" --json > "$TMP/two_out.json" \
  || fail "gen --robot-body b_torso"
grep -q '"actuators_recorded":"1 of 2"' "$TMP/two_out.json" || fail "summary: $(cat "$TMP/two_out.json")"
grep -q "1 actuator moves no robot body ('actuator 0'): not commanded (ctrl stays 0)" "$TMP/two_out.json" || fail "no warning for a_torso's actuator"
[ ! -e "$TMP/x.h5" ] || fail "a refused run left $TMP/x.h5"
echo "mjcf_cli: all checks passed"
