#!/usr/bin/env python3
"""Tables of experiments/training_speed/run.sh: accuracy of the four settings and windows/s."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, models  # noqa: E402

out = sys.argv[1]
settings = [("fp32", "1"), ("bf16", "1"), ("fp32", "2"), ("bf16", "2")]
print(open(f"{out}/cpu.txt").read().strip().replace("\n", "; "))
print()
ev = models(os.path.join(out, "cartpole_eval.json"))
print("| run (cartpole, small) | " + " | ".join(f"H={h}" for h in ev[0]["horizons"]) + " | final train loss | valid loss | wall s |")
print("|---|" + "---:|" * (len(ev[0]["horizons"]) + 3))
runs = [(p, w, "1") for p, w in settings] + [("fp32", "1", "2"), ("fp32", "1", "3")]
for m, (p, w, seed) in zip(ev, runs):
    t = load(out, f"cartpole_{p}_w{w}_s{seed}.train.json")
    print(f"| {p}, {w} worker{'s' if w != '1' else ''}, seed {seed} | " + " | ".join(f"{x:.4f}" for x in m["nrmse"])
          + f" | {t['train_loss'][1]:.4g} | {t['valid_loss']:.4g} | {t['seconds']:.0f} |")
print()
print("windows/s (global batch; ratio to fp32 in one process with its default BLAS threads, same run)")
print()
print("| robot | arch | batch | fp32, 1 proc, 1 BLAS thread | fp32 | bf16 | fp32 x2 workers | bf16 x2 workers | best ratio | 2-worker scaling, fp32 |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for robot in ["cartpole", "quadruped"]:
    for arch in ["flashnerd", "nerd"]:
        for batch in [64, 256]:
            r = {}
            for p, w in [("fp32", "1t")] + settings:
                j = load(out, f"speed_{robot}_{arch}_b{batch}_{p}_w{w}.json")
                r[(p, w)] = j["windows_per_second"]
            base = r[("fp32", "1")]
            best = max(r[s] for s in settings)
            # scaling: 2 workers against 2 x one single-threaded worker of the same precision
            sc32 = r[("fp32", "2")] / (2 * r[("fp32", "1t")])
            print(f"| {robot} | {arch} | {batch} | {r[('fp32', '1t')]:.0f} | {base:.0f} | {r[('bf16', '1')]:.0f} | "
                  f"{r[('fp32', '2')]:.0f} | {r[('bf16', '2')]:.0f} | {best / base:.2f}x | {sc32:.0%} |")
