#!/usr/bin/env python3
"""Table II analogue from experiments/climbing/mpc.sh's trials: climbs per backend, median
planning time per decision (over every decision of every trial) with its split, and what the
model read."""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, out_dir  # noqa: E402

out = out_dir("out/climbing_mpc")
names = {"mujoco": "MuJoCo", "flashnerd": "FlashNeRD, variable contacts", "nerd": "NeRD, 20 probes"}
trials = {}
for path in sorted(glob.glob(os.path.join(out, "*_t*.json"))):
    if path.endswith(".summary.json"):
        continue
    j = load(path)
    trials.setdefault(j["backend"], []).append(j)

print("| planning dynamics | climbs | median planning time per decision (ms) | model | contact detection | planner overhead | ratio to FlashNeRD | contact rows / step | active probes / step |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
medians = {b: statistics.median(s for t in ts for s in t["decision_seconds"]) * 1e3 for b, ts in trials.items()}
for backend in ["flashnerd", "nerd", "mujoco"]:
    ts = trials.get(backend)
    if not ts:
        continue
    mean = lambda key: statistics.mean(t[key] for t in ts)
    ratio = medians[backend] / medians["flashnerd"] if "flashnerd" in medians else float("nan")
    print(f"| {names[backend]} | {sum(t['success'] for t in ts)} / {len(ts)} | {medians[backend]:.0f} | "
          f"{mean('model_ms_per_decision'):.0f} | {mean('contact_detection_ms_per_decision'):.0f} | "
          f"{mean('planner_overhead_ms_per_decision'):.0f} | {ratio:.2f}x | {mean('contact_rows_per_step'):.1f} | "
          f"{mean('active_probes_per_step'):.1f} |")
print()
print("Per terrain (success frame, or final base position past the edge / above the top in m):")
print()
backends = [b for b in ["mujoco", "flashnerd", "nerd"] if b in trials]
print("| terrain | height (m) | edge distance (m) | " + " | ".join(names[b] for b in backends) + " |")
print("|---|---:|---:|" + "---|" * len(backends))
by_terrain = {}
for b in backends:
    for t in trials[b]:
        by_terrain.setdefault(t["terrain"]["index"], {})[b] = t
for k in sorted(by_terrain):
    row = by_terrain[k]
    terrain = next(iter(row.values()))["terrain"]
    cells = []
    for b in backends:
        t = row.get(b)
        if t is None:
            cells.append("-")
        elif t["success"]:
            cells.append(f"climbed (frame {t['success_frame']})")
        else:
            f = t["final_base"]
            cells.append(f"failed ({f['past_edge']:+.2f} / {f['above_top']:+.2f})")
    print(f"| {terrain['name']} | {terrain['height']:.3f} | {terrain['distance']:.2f} | " + " | ".join(cells) + " |")
