#!/usr/bin/env python3
"""Rollout NRMSE against horizon of scripts/sim2real.sh's five models on held-out "real"
trajectories, one panel per robot. Usage: sim2real_plot.py OUT.png ROBOT_DIR [ROBOT_DIR ...]"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

label = {"finetuned_1pct": "fine-tuned, 1%", "finetuned_10pct": "fine-tuned, 10%", "scratch_1pct": "scratch, 1%",
         "scratch_10pct": "scratch, 10%"}
style = {"zero-shot": ("k", "-"), "fine-tuned, 1%": ("tab:blue", "-"), "fine-tuned, 10%": ("tab:blue", "--"),
         "scratch, 1%": ("tab:red", "-"), "scratch, 10%": ("tab:red", "--")}
dirs = sys.argv[2:]
fig, axes = plt.subplots(1, len(dirs), figsize=(5 * len(dirs), 3.8), squeeze=False)
for ax, d in zip(axes[0], dirs):
    j = json.load(open(os.path.join(d, "eval_real.json")))
    for m in j.get("models", [j]):
        name = label.get(os.path.basename(os.path.normpath(m["model"])), "zero-shot")
        color, line = style[name]
        ax.plot(m["horizons"], m["nrmse"], marker="o", color=color, linestyle=line, label=name)
    ax.set_xscale("log")
    ax.set_xlabel("horizon H (control steps)")
    ax.set_ylabel('rollout NRMSE on "real" data')
    ax.set_title(os.path.basename(os.path.normpath(d)))
    ax.grid(True, alpha=0.3)
axes[0][0].legend()
fig.tight_layout()
fig.savefig(sys.argv[1] + ".tmp.png", dpi=110)
os.replace(sys.argv[1] + ".tmp.png", sys.argv[1])
