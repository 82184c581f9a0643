#!/usr/bin/env python3
"""Rollout NRMSE against horizon of experiments/sim2real/run.sh's five models on held-out "real"
trajectories, one panel per robot.
Usage: experiments/sim2real/plot.py OUT.png ROBOT_DIR [ROBOT_DIR ...]"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import models  # noqa: E402

label = {"finetuned_1pct": "fine-tuned, 1%", "finetuned_10pct": "fine-tuned, 10%", "scratch_1pct": "scratch, 1%",
         "scratch_10pct": "scratch, 10%"}
style = {"zero-shot": ("k", "-"), "fine-tuned, 1%": ("tab:blue", "-"), "fine-tuned, 10%": ("tab:blue", "--"),
         "scratch, 1%": ("tab:red", "-"), "scratch, 10%": ("tab:red", "--")}
dirs = sys.argv[2:]
fig, axes = plt.subplots(1, len(dirs), figsize=(5 * len(dirs), 3.8), squeeze=False)
for ax, d in zip(axes[0], dirs):
    for m in models(os.path.join(d, "eval_real.json")):
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
