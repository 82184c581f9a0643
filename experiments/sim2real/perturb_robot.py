#!/usr/bin/env python3
"""A "real" robot for sim-to-real studies: copies robots/ROBOT.{json,xml} into OUT_DIR with the
MJCF's dynamics changed in ways the nominal model never saw (defaults: the study of
docs/FINETUNE.md):
  - every mass (geom masses, inertial masses and inertias) x MASS;
  - every hinge/slide joint: damping + DAMPING, frictionloss + FRICTION;
  - position-PD actuators (general, affine bias): kp and kd x GAIN; torque motors: gear x GAIN.
The one-step actuator delay is the generator's (flashnerd gen --actuator-delay 1), not the MJCF's.
Use the copy with FLASHNERD_ROBOTS=OUT_DIR (and --allow-other-mjcf for the nominal model).
"""
import argparse
import json
import os
import shutil
import xml.etree.ElementTree as ET

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("robot")
p.add_argument("out_dir")
p.add_argument("--robots", default=os.path.join(os.path.dirname(__file__), "..", "..", "robots"))
p.add_argument("--mass", type=float, default=1.2)
p.add_argument("--damping", type=float, default=1.0, help="added joint damping (N m s / rad)")
p.add_argument("--friction", type=float, default=0.5, help="added joint frictionloss (N m)")
p.add_argument("--gain", type=float, default=0.7, help="actuator gain factor (PD gains or motor gear)")
a = p.parse_args()


def scale(el, attr, factor):
    if el.get(attr) is not None:
        el.set(attr, " ".join(repr(float(x) * factor) for x in el.get(attr).split()))
        return True
    return False


spec_path = os.path.join(a.robots, a.robot + ".json")
spec = json.load(open(spec_path))
tree = ET.parse(os.path.join(a.robots, spec["mjcf"]))
root = tree.getroot()
changed = {"masses": 0, "joints": 0, "pd_actuators": 0, "motors": 0}
for el in root.iter():
    if el.tag == "geom" and scale(el, "mass", a.mass):
        changed["masses"] += 1
    elif el.tag == "inertial":
        changed["masses"] += scale(el, "mass", a.mass)
        scale(el, "diaginertia", a.mass)
        scale(el, "fullinertia", a.mass)
    elif el.tag == "joint" and el.get("type", "hinge") in ("hinge", "slide") and el.get("name"):
        el.set("damping", repr(float(el.get("damping", "0")) + a.damping))
        el.set("frictionloss", repr(float(el.get("frictionloss", "0")) + a.friction))
        changed["joints"] += 1
    elif el.tag == "general" and el.get("biastype") == "affine" and el.get("joint"):
        scale(el, "gainprm", a.gain)
        scale(el, "biasprm", a.gain)  # "0 -kp -kd": both gains
        changed["pd_actuators"] += 1
    elif el.tag == "motor":
        el.set("gear", repr(float(el.get("gear", "1")) * a.gain))
        changed["motors"] += 1
assert changed["masses"] and changed["joints"] and (changed["pd_actuators"] or changed["motors"]), changed
os.makedirs(a.out_dir, exist_ok=True)
tree.write(os.path.join(a.out_dir, spec["mjcf"]))
shutil.copy(spec_path, os.path.join(a.out_dir, a.robot + ".json"))
print(json.dumps({"robot": a.robot, "out": a.out_dir, "mass": a.mass, "damping": a.damping,
                  "friction": a.friction, "gain": a.gain, "changed": changed}))
