#!/usr/bin/env python3
"""The swing-up table of experiments/swingup/run.sh: per seed and trainer, seconds per PPO
iteration, the MuJoCo return of policy-eval (256 episodes, at most 300), episodes ended early,
and the share of episodes holding the pole up over their last 100 steps; written to
OUT/summary.md and printed."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, out_dir  # noqa: E402


def main():
    out = out_dir("out/swingup")
    lines = ["| seed | trained by | on | s per iteration | MuJoCo return (max 300) | ended early | held up |",
             "|---:|---|---|---:|---:|---:|---:|"]
    trainers = {"flashnerd": ("`flashnerd ppo`", "FlashNeRD (`models/cartpole`)"), "mujoco": ("`flashnerd ppo`", "MuJoCo"),
                "python": ("examples/python/ppo_cartpole.py", "MuJoCo")}
    for path in sorted(glob.glob(os.path.join(out, "ppo_*_*.json"))):
        name, seed = re.match(r"ppo_(\w+)_(\d+)\.json", os.path.basename(path)).groups()
        ppo, ev, up = load(path), load_if(out, f"eval_{name}_{seed}.json"), load_if(out, f"upright_{name}_{seed}.json")
        by, on = trainers[name]
        row = f"| {seed} | {by} | {on} | {ppo['seconds'] / ppo['iterations']:.3f} |"
        row += f" {ev['episode_reward']:.1f} | {ev['terminations']} | {up['held_up_share']:.2f} |" if ev and up else " | | |"
        lines.append(row)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
