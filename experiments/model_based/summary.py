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
# velocity tracking in MuJoCo per fixed command (policy-eval's tracking: 256 robots, 250 steps
# each after one second of settling): planar speed error (m/s), yaw-rate error (rad/s), falls
evals = {run: load_if(out, f"policy_eval_{run[len('ppo_'):]}.json") for run in runs}
commands = next((e["tracking"] for e in evals.values() if e and e.get("tracking")), [])
if commands:
    head = " | ".join(f"({c['command'][0]:g}, {c['command'][1]:g}, {c['command'][2]:g})" for c in commands)
    lines += ["", "Tracking in MuJoCo per command (vx, vy, yaw): planar error m/s / yaw-rate error rad/s / falls", "",
              f"| PPO run | {head} |", "|---|" + "---:|" * len(commands)]
    for run, e in evals.items():
        if not e or not e.get("tracking"):
            continue
        cells = " | ".join(f"{t['planar_error']:.2f} / {t['yaw_rate_error']:.2f} / {t['terminations']}" for t in e["tracking"])
        lines.append(f"| {run} | {cells} |")
write_summary(out, "\n".join(lines) + "\n", "model_based.md")
