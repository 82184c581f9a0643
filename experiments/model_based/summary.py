"""The table of experiments/model_based/run.sh: each PPO run's final policy in MuJoCo (256 x
1000), its falls, its wall time split into the imagined PPO and the MuJoCo exploration, and
the MuJoCo transitions it used, and when its MuJoCo-evaluated return (the in-training
evaluation) first reached 95% of MuJoCo-only PPO's final one: the final evaluation of the
ppo_mujoco runs listed, else MUJOCO_FINAL_EVAL (11.19 for the seed-1 run of
docs/results/POLICY_LEARNING.md). Usage: [MUJOCO_FINAL_EVAL=X] summary.py OUT RUN..."""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, write_summary  # noqa: E402


def evaluations(run_dir):
    """(iteration, wall s, MuJoCo-evaluated return) of every in-training evaluation."""
    with open(os.path.join(run_dir, "log.csv")) as f:
        return [(int(r["iteration"]), float(r["seconds"]), float(r["eval_reward"]))
                for r in csv.DictReader(f) if r["eval_reward"]]


def first_crossing(run_dir, threshold):
    return next((f"{it} / {s:.0f}" for it, s, e in evaluations(run_dir) if e >= threshold), "never")


out, runs = sys.argv[1], sys.argv[2:]
finals = [evaluations(os.path.join(out, r))[-1][2] for r in runs if r.startswith("ppo_mujoco")]
reference = sum(finals) / len(finals) if finals else float(os.environ.get("MUJOCO_FINAL_EVAL", "nan"))
threshold = 0.95 * reference
lines = ["| PPO run | policy-eval in MuJoCo (256 x 1000) | falls of 256 | wall s | of which MuJoCo s | of which "
         f"refreshes s | MuJoCo transitions | imagined transitions | eval crosses {threshold:.2f} at (iteration / s) |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
for run in runs:
    p = load(out, f"{run}.json")
    e = load_if(out, f"policy_eval_{run[len('ppo_'):]}.json")
    mujoco_only = p["backend"] == "mujoco"
    real = p["transitions"] if mujoco_only else p.get("real_transitions", 0)
    real_s = p["seconds"] if mujoco_only else p.get("seconds_real", 0.0)
    imagined = 0 if mujoco_only else p["transitions"]
    score = f"{e['episode_reward']:.2f}" if e else "-"
    falls = e["terminations"] if e else "-"
    crossing = first_crossing(os.path.join(out, run), threshold) if not math.isnan(threshold) else "-"
    lines.append(f"| {run} | {score} | {falls} | {p['seconds']:.0f} | {real_s:.0f} | {p.get('seconds_refresh', 0.0):.0f} | "
                 f"{real:,} | {imagined:,} | {crossing} |")
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
