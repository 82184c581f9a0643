#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# Variable contacts end to end through the executable: climbing data -> FlashNeRD with the
# contact set encoder and NeRD with 20 probes -> eval by start (contacts re-detected at
# predicted states) -> detection benchmark; and the refusals: NeRD with variable contacts, a
# dataset without contact rows, a robot without collision geometry (gen warns, train refuses),
# a contact model in the plain model benchmark. Usage: contacts_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot quadruped_platform --trajectories 24 --steps 30 --seed 1 --climbing-probes \
  --out "$TMP/train.h5" --json > "$TMP/gen.json" || fail "gen"
grep -q '"probes":20' "$TMP/gen.json" || fail "climbing probes: $(cat "$TMP/gen.json")"
"$FN" gen --robot quadruped_platform --trajectories 9 --steps 20 --seed 2 --climbing-probes \
  --out "$TMP/test.h5" --json > /dev/null || fail "gen test"
"$FN" train --data "$TMP/train.h5" --arch flashnerd --variable-contacts --preset tiny --updates 20 \
  --out "$TMP/flash" --json > "$TMP/train.json" 2> /dev/null || fail "train --variable-contacts"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['contact']['capacity'] == 64" "$TMP/flash/config.json" \
  || fail "config has no contact encoder"
"$FN" train --data "$TMP/train.h5" --arch nerd --probes on --preset tiny --updates 20 \
  --out "$TMP/nerd" --json > /dev/null 2>&1 || fail "train nerd with probes"

"$FN" eval --model "$TMP/flash" --model "$TMP/nerd" --data "$TMP/test.h5" --horizons 1,5 --by-start \
  --json > "$TMP/eval.json" || fail "eval --by-start"
python3 - "$TMP/eval.json" <<'PY' || fail "eval JSON: $(cat "$TMP/eval.json")"
import json, math, sys
e = json.load(open(sys.argv[1]))
flash, nerd = e["models"]
assert flash["contacts"] == "variable" and nerd["contacts"] == "fixed probes", e
assert flash["contact_rows"]["max"] > 0 and flash["contact_rows"]["overflow"] == 0, flash
assert math.isfinite(flash["one_step_base_rmse_mm"]) and flash["one_step_base_rmse_mm"] > 0, flash
kinds = flash["by_start"]
assert sum(k["trajectories"] for k in kinds.values()) == flash["trajectories"], kinds
assert set(kinds) <= {"ground", "edge", "top"} and len(kinds) >= 2, kinds
for k in kinds.values():  # one-step error of every joint, by name (the body parts a model gets wrong)
    joints = k["one_step_joint_rmse"]
    assert len(joints) == 12 and all(math.isfinite(x) and x > 0 for x in joints.values()), joints
    assert sum(name.startswith("LF_") for name in joints) == 3, joints
PY
"$FN" bench-contacts --model "$TMP/flash" --data "$TMP/test.h5" --batch 8 --groups 1 --json > "$TMP/bench.json" \
  || fail "bench-contacts"
grep -q '"detection_over_model"' "$TMP/bench.json" || fail "bench-contacts JSON: $(cat "$TMP/bench.json")"

expect_error "exist only for the flashnerd" train --data "$TMP/train.h5" --arch nerd --variable-contacts --out "$TMP/x1"
"$FN" gen --robot quadruped_platform --trajectories 2 --steps 5 --contacts off --out "$TMP/norows.h5" --json > /dev/null || fail "gen off"
expect_error "no contact rows recorded" train --data "$TMP/norows.h5" --variable-contacts --out "$TMP/x2"
expect_error "bench-contacts" bench --model "$TMP/flash" --batch 4
# a robot without collision geometry: gen warns, train refuses
cat > "$TMP/ghost.xml" <<'XML'
<mujoco model="ghost">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="arm" pos="0 0 0.5">
      <joint name="j" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="j" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
XML
"$FN" gen --mjcf "$TMP/ghost.xml" --trajectories 2 --steps 5 --out "$TMP/ghost.h5" > "$TMP/ghost.txt" 2>&1 || fail "gen ghost"
grep -q "no collision geometry" "$TMP/ghost.txt" || fail "no warning: $(cat "$TMP/ghost.txt")"
expect_error "no contact row in any frame" train --data "$TMP/ghost.h5" --variable-contacts --out "$TMP/x3"
echo "contacts_cli: ok"
