#!/usr/bin/env python3
"""Plots a learned model's open-loop rollout against MuJoCo with matplotlib: one held-out
trajectory of a `flashnerd gen` file, the model started from its first state and driven by
its recorded commands, every joint coordinate over time.

    export PYTHONPATH=$PWD/build/python
    python3 examples/python/plot_rollout.py --model out/demo/flashnerd --data out/demo/test.h5 --out rollout.png
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import flashnerd


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="trained model directory (without probes)")
    p.add_argument("--data", required=True, help="dataset from flashnerd gen (held-out)")
    p.add_argument("--trajectory", type=int, default=0)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--out", default="rollout.png")
    a = p.parse_args()
    data = flashnerd.load_dataset(a.data)
    model = flashnerd.Model(a.model, batch=1)
    if model.probe_dim:
        raise SystemExit("this example rolls out models without probes (their probes come from MuJoCo: flashnerd eval)")
    qpos, qvel, ctrl = data["qpos"][a.trajectory], data["qvel"][a.trajectory], data["ctrl"][a.trajectory]
    steps = min(a.steps, len(ctrl))
    q, v = qpos[:1].copy(), qvel[:1].copy()
    predicted = [q[0]]
    for t in range(steps):
        q, v = model.step(q, v, ctrl[t:t + 1])
        predicted.append(q[0])
    predicted = np.array(predicted)
    time = np.arange(steps + 1) * data["timestep"]
    n = qpos.shape[1]
    names = list(data["joint_names"])[:n] + [f"q{i}" for i in range(len(data["joint_names"]), n)]
    fig, axes = plt.subplots(n, 1, figsize=(8, 2.2 * n), sharex=True, squeeze=False)
    for i, ax in enumerate(axes[:, 0]):
        ax.plot(time, qpos[:steps + 1, i], "k", label="MuJoCo")
        ax.plot(time, predicted[:, i], "C1--", label="model")
        ax.set_ylabel(names[i])
    axes[0, 0].legend()
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(f"{data['robot']}: open-loop rollout of {a.model} against MuJoCo")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()
