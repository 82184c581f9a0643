"""The table of experiments/model_based/run.sh: each PPO run's final policy in MuJoCo (256 x
1000), its falls, its wall time split into the imagined PPO and the MuJoCo exploration, and
the MuJoCo transitions it used, and when its MuJoCo-evaluated return (the in-training
evaluation) first reached 95% of MuJoCo-only PPO's final one: the mean final evaluation of the
ppo_mujoco runs listed, else MUJOCO_FINAL_EVAL (11.19 for the seed-1 run of
docs/results/POLICY_LEARNING.md).

With MuJoCo-only runs listed, a second table judges each variant (its runs' seeds together)
against them: return as a share of MuJoCo's mean, falls against twice MuJoCo's mean, time to
the threshold against half MuJoCo's mean time to it, and MuJoCo transitions as a share of
MuJoCo's.

A RUN may name a run in another results folder relative to OUT (../model_based_fast/ppo_fast_seed1),
so runs of several invocations compare in one table. Usage: [MUJOCO_FINAL_EVAL=X] summary.py OUT RUN..."""
import csv
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, write_summary  # noqa: E402


class Run:
    """A PPO run of run.sh: its summary, its final policy's evaluation in MuJoCo, its log."""

    def __init__(self, out, path):
        folder, self.name = os.path.split(os.path.join(out, path))
        self.label = path
        self.variant = re.sub(r"_seed\d+$", "", self.name)[len("ppo_"):]
        self.summary = load(folder, f"{self.name}.json")
        self.policy_eval = load_if(folder, f"policy_eval_{self.name[len('ppo_'):]}.json")
        self.mujoco_only = self.summary["backend"] == "mujoco"
        with open(os.path.join(folder, self.name, "log.csv")) as f:
            # (iteration, wall s, MuJoCo-evaluated return, MuJoCo transitions so far) of every
            # in-training evaluation
            real = "transitions" if self.mujoco_only else "real_transitions"
            self.evaluations = [(int(r["iteration"]), float(r["seconds"]), float(r["eval_reward"]), int(r[real]))
                                for r in csv.DictReader(f) if r["eval_reward"]]

    def crossing(self, threshold):
        """(iteration, wall s) of the first evaluation at or above threshold, or None."""
        return next(((it, s) for it, s, e, _ in self.evaluations if e >= threshold), None)

    def mujoco_transitions(self):
        return self.summary["transitions"] if self.mujoco_only else self.summary.get("real_transitions", 0)


def mean(xs):
    return sum(xs) / len(xs)


def runs_table(runs, threshold):
    lines = ["| PPO run | policy-eval in MuJoCo (256 x 1000) | falls of 256 | wall s | of which MuJoCo s | of which "
             f"refreshes s | MuJoCo transitions | imagined transitions | eval crosses {threshold:.2f} at (iteration / s) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        p, e = r.summary, r.policy_eval
        real_s = p["seconds"] if r.mujoco_only else p.get("seconds_real", 0.0)
        imagined = 0 if r.mujoco_only else p["transitions"]
        score = f"{e['episode_reward']:.2f}" if e else "-"
        falls = e["terminations"] if e else "-"
        c = r.crossing(threshold) if not math.isnan(threshold) else None
        crossing = "-" if math.isnan(threshold) else f"{c[0]} / {c[1]:.0f}" if c else "never"
        lines.append(f"| {r.label} | {score} | {falls} | {p['seconds']:.0f} | {real_s:.0f} | "
                     f"{p.get('seconds_refresh', 0.0):.0f} | {r.mujoco_transitions():,} | {imagined:,} | {crossing} |")
    return lines


def targets_table(runs, threshold):
    """Each variant against the MuJoCo-only runs, the targets of docs/results/POLICY_LEARNING.md."""
    mujoco = [r for r in runs if r.mujoco_only and r.policy_eval]
    if not mujoco:
        return []
    m_return = mean([r.policy_eval["episode_reward"] for r in mujoco])
    m_falls = mean([r.policy_eval["terminations"] for r in mujoco])
    m_transitions = mean([r.summary["transitions"] for r in mujoco])
    # a MuJoCo seed that never reaches the threshold counts with its whole run (a lower bound)
    m_times = [(r.crossing(threshold) or (None, r.summary["seconds"]))[1] for r in mujoco]
    m_time = mean(m_times)
    never = sum(r.crossing(threshold) is None for r in mujoco)
    lines = ["", f"Against MuJoCo-only PPO ({len(mujoco)} seeds): return {m_return:.2f}, falls {m_falls:.1f} of 256, "
             f"time to {threshold:.2f} {m_time:.0f} s (per seed: {', '.join(f'{t:.0f}' for t in m_times)}"
             + (f"; {never} never reached it and count with their whole run" if never else "") + ")", "",
             "| variant | seeds | return of MuJoCo's (mean / worst) | falls (mean / 2x MuJoCo's) | "
             "time to the threshold of MuJoCo's (per seed) | MuJoCo transitions of MuJoCo's |",
             "|---|---:|---|---|---|---:|"]
    variants = sorted({r.variant for r in runs if not r.mujoco_only})
    for v in variants:
        group = [r for r in runs if r.variant == v and r.policy_eval]
        if not group:
            continue
        shares = [r.policy_eval["episode_reward"] / m_return for r in group]
        falls = mean([r.policy_eval["terminations"] for r in group])
        times = [r.crossing(threshold) for r in group]
        time_text = ", ".join(f"{c[1] / m_time:.2f}x" if c else "never" for c in times)
        samples = mean([r.mujoco_transitions() for r in group]) / m_transitions
        lines.append(f"| {v} | {len(group)} | {100 * mean(shares):.1f}% / {100 * min(shares):.1f}% | "
                     f"{falls:.1f} / {2 * m_falls:.1f} | {time_text} | {100 * samples:.1f}% |")
    return lines


def tracking_table(runs):
    """Velocity tracking in MuJoCo per fixed command (policy-eval's tracking: 256 robots, 250
    steps each after one second of settling): planar speed error (m/s), yaw-rate error
    (rad/s), falls."""
    commands = next((r.policy_eval["tracking"] for r in runs if r.policy_eval and r.policy_eval.get("tracking")), [])
    if not commands:
        return []
    head = " | ".join(f"({c['command'][0]:g}, {c['command'][1]:g}, {c['command'][2]:g})" for c in commands)
    lines = ["", "Tracking in MuJoCo per command (vx, vy, yaw): planar error m/s / yaw-rate error rad/s / falls", "",
             f"| PPO run | {head} |", "|---|" + "---:|" * len(commands)]
    for r in runs:
        if r.policy_eval and r.policy_eval.get("tracking"):
            cells = " | ".join(f"{t['planar_error']:.2f} / {t['yaw_rate_error']:.2f} / {t['terminations']}"
                               for t in r.policy_eval["tracking"])
            lines.append(f"| {r.label} | {cells} |")
    return lines


def plot_curves(runs, threshold, out):
    """The MuJoCo-evaluated return of every run against wall time and against MuJoCo
    transitions, one colour per variant, the threshold drawn."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not importable: no plot")
        return
    empty = [r.label for r in runs if not r.evaluations]  # EVAL_EVERY=0: no in-training evaluation
    if empty:
        print(f"no in-training evaluations (EVAL_EVERY=0?), left out of the curves: {', '.join(empty)}")
    runs = [r for r in runs if r.evaluations]
    if not runs:
        print("no curves plot: no run has an in-training evaluation")
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    colours = {}
    for r in runs:
        first = r.variant not in colours  # one legend entry per variant
        colour = colours.setdefault(r.variant, f"C{len(colours)}")
        _, seconds, returns, transitions = zip(*r.evaluations)
        axes[0].plot(seconds, returns, color=colour, lw=1.2, label=r.variant if first else None)
        axes[1].plot([max(n, 1) for n in transitions], returns, color=colour, lw=1.2)
    for ax in axes:
        if not math.isnan(threshold):
            ax.axhline(threshold, color="k", ls="--", lw=0.8)
        ax.grid(alpha=0.3)
    axes[0].set_xlabel("training wall time, s (MuJoCo, refreshes and PPO included)")
    axes[1].set_xlabel("MuJoCo transitions")
    axes[1].set_xscale("log")
    axes[0].set_ylabel("return of the mean policy in MuJoCo (64 envs x 500 steps)")
    axes[0].legend()
    fig.suptitle(f"Quadruped velocity: MuJoCo-evaluated return; dashed: {threshold:.2f}, 95% of MuJoCo-only PPO's final")
    fig.tight_layout()
    path = os.path.join(out, "model_based_curves.png")
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


out = sys.argv[1]
runs = [Run(out, path) for path in sys.argv[2:]]
finals = [r.evaluations[-1][2] for r in runs if r.mujoco_only and r.evaluations]
reference = mean(finals) if finals else float(os.environ.get("MUJOCO_FINAL_EVAL", "nan"))
threshold = 0.95 * reference
lines = runs_table(runs, threshold) + targets_table(runs, threshold) + tracking_table(runs)
write_summary(out, "\n".join(lines) + "\n", "model_based.md")
plot_curves(runs, threshold, out)
