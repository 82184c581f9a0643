"""The table of experiments/model_based/run.sh: each PPO run's final policy in MuJoCo (256 x
1000), its falls, its wall time split into the imagined PPO and the MuJoCo exploration, and
the MuJoCo transitions it used. Usage: summary.py OUT RUN..."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, write_summary  # noqa: E402

out, runs = sys.argv[1], sys.argv[2:]
lines = ["| PPO run | policy-eval in MuJoCo (256 x 1000) | falls of 256 | wall s | of which MuJoCo s | "
         "MuJoCo transitions | imagined transitions |", "|---|---:|---:|---:|---:|---:|---:|"]
for run in runs:
    p = load(out, f"{run}.json")
    e = load_if(out, f"policy_eval_{run[len('ppo_'):]}.json")
    mujoco_only = p["backend"] == "mujoco"
    real = p["transitions"] if mujoco_only else p.get("real_transitions", 0)
    real_s = p["seconds"] if mujoco_only else p.get("seconds_real", 0.0)
    imagined = 0 if mujoco_only else p["transitions"]
    score = f"{e['episode_reward']:.2f}" if e else "-"
    falls = e["terminations"] if e else "-"
    lines.append(f"| {run} | {score} | {falls} | {p['seconds']:.0f} | {real_s:.0f} | {real:,} | {imagined:,} |")
write_summary(out, "\n".join(lines) + "\n", "model_based.md")
