#!/usr/bin/env python3
"""Learning curves of cube-reorientation PPO runs (log.csv of flashnerd ppo): mean return of
the episodes that ended, targets reached per ended episode, and the mean policy's return in
MuJoCo, against policy steps. Usage: experiments/reorientation/curves.py OUT.png LABEL=RUN_DIR ..."""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import read_log  # noqa: E402

BONUS = 250.0  # success bonus of robots/tasks/cube-reorient*.json: the success term / bonus = targets


def load(run):
    rows = read_log(run, "log.csv")
    x = [int(r["transitions"]) / 1e6 for r in rows]
    ret = [float(r["finished_return"] or "nan") for r in rows]  # empty: no episode ended
    targets = [float(r["term_success"]) / BONUS for r in rows]
    ev = [(int(r["transitions"]) / 1e6, float(r["eval_reward"])) for r in rows if r["eval_reward"] not in ("", "nan")]
    return x, ret, targets, ev


def main(out, runs):
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for label, run in runs:
        x, ret, targets, ev = load(run)
        axes[0].plot(x, ret, label=label)
        axes[1].plot(x, targets, label=label)
        if ev:
            axes[2].plot([e[0] for e in ev], [e[1] for e in ev], "o-", label=label)
    for ax, title in zip(axes, ["return of ended episodes", "targets per ended episode", "mean policy in MuJoCo (return)"]):
        ax.set_title(title)
        ax.set_xlabel("policy steps (M)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]])
