#!/usr/bin/env python3
"""Summary of experiments/locomotion/run.sh (paper IV-B analogue): for PPO on MuJoCo, FlashNeRD and
NeRD, the wall time to the first unsmoothed crossing of 95% of the MuJoCo-trained run's final
MuJoCo-evaluated return; also the paper's own definition, the first crossing of 95% of the
MuJoCo run's mean training reward over its final 20 iterations by each run's training reward
(earned inside its own simulator, so a model the policy exploits crosses it too); total
training time, the per-iteration time split, and each final
policy's return in MuJoCo (256 envs x 1000 steps) with its velocity tracking. Prints markdown
and writes OUT/summary.md and OUT/reward_vs_time.png.

Usage: experiments/locomotion/summary.py OUT_DIR"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, read_log, write_summary  # noqa: E402


def number(row, key):
    try:
        v = float(row[key])
    except (KeyError, ValueError):
        return math.nan
    return v


def main(out):
    runs = {}
    # on-policy rounds of run.sh (ppo_ARCH_rN); other seeds (seeds.sh) have their own table
    rounds = sorted(d[len("ppo_"):] for d in os.listdir(out) if re.fullmatch(r"ppo_(flashnerd|nerd)_r\d+", d)
                    and os.path.isdir(os.path.join(out, d)))
    for backend in ("mujoco", "flashnerd", "nerd", *rounds):
        log = os.path.join(out, f"ppo_{backend}", "log.csv")
        if os.path.exists(log):
            runs[backend] = read_log(log)
    if "mujoco" not in runs:
        sys.exit(f"{out}: no ppo_mujoco/log.csv; the MuJoCo run sets the threshold")
    evals = [r for r in runs["mujoco"] if not math.isnan(number(r, "eval_reward"))]
    if not evals:
        sys.exit(f"{out}: the MuJoCo run has no evaluation rows (--eval-every)")
    final = number(evals[-1], "eval_reward")
    threshold = 0.95 * final if final > 0 else final
    # the paper's threshold: training reward (mean step reward x episode steps), last 20 iterations
    tail = runs["mujoco"][-20:]
    train_threshold = 0.95 * sum(number(r, "episode_reward") for r in tail) / len(tail)
    lines = [f"Threshold: 95% of the MuJoCo run's final MuJoCo-evaluated return {final:.3f} = {threshold:.3f}",
             f"Paper's threshold: 95% of the MuJoCo run's training reward over its final 20 iterations = {train_threshold:.3f}", "",
             "| backend | iterations | transitions | crossing iteration | time to threshold (s) | training-reward crossing (paper) it / s | total (s) | median s/iteration | dynamics env steps/s | dynamics | sensing | policy | update | task | final eval return | policy-eval return (256x1000) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    series = {}
    for backend, rows in runs.items():
        cross_row = next((r for r in rows if number(r, "eval_reward") >= threshold), None)
        crossing = number(cross_row, "seconds") if cross_row else math.nan
        cross_it = cross_row["iteration"] if cross_row else "never"
        train_row = next((r for r in rows if number(r, "episode_reward") >= train_threshold), None)
        train_cross = f"{train_row['iteration']} / {number(train_row, 'seconds'):.0f}" if train_row else "never"
        # iteration times; the median is robust to a few iterations slowed by other jobs
        times = sorted(number(b, "seconds") - number(a, "seconds") for a, b in zip(rows, rows[1:]))
        median = times[len(times) // 2] if times else math.nan
        split = {k: sum(number(r, f"{k}_s") for r in rows) for k in ("dynamics", "sensing", "policy", "update", "task")}
        total = number(rows[-1], "seconds")
        last_eval = next((number(r, "eval_reward") for r in reversed(rows) if not math.isnan(number(r, "eval_reward"))), math.nan)
        pe = load_if(out, f"policy_eval_{backend}.json", default={})
        shares = " | ".join(f"{100 * split[k] / total:.0f}%" if total > 0 else "-" for k in split)
        steps_per_s = number(rows[-1], "transitions") / split["dynamics"] if split["dynamics"] > 0 else math.nan
        lines.append(f"| {backend} | {rows[-1]['iteration']} | {rows[-1]['transitions']} | {cross_it} | "
                     f"{crossing:.0f} | {train_cross} | {total:.0f} | {median:.2f} | {steps_per_s:.0f} | {shares} | {last_eval:.3f} | "
                     f"{pe.get('episode_reward', math.nan):.3f} |")
        evaluated = [r for r in rows if not math.isnan(number(r, "eval_reward"))]
        series[backend] = ([number(r, "seconds") for r in evaluated], [number(r, "eval_reward") for r in evaluated],
                           [number(r, "seconds") for r in rows], [number(r, "episode_reward") for r in rows])
        if pe.get("tracking"):
            lines.append("")
            lines.append(f"Tracking of the {backend}-trained policy in MuJoCo (body frame, after 1 s):")
            lines.append("")
            lines.append("| command vx, vy, yaw | achieved | planar error | yaw error | falls |")
            lines.append("|---|---|---:|---:|---:|")
            for t in pe["tracking"]:
                c, a = t["command"], t["achieved"]
                lines.append(f"| {c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f} | {a[0]:.2f}, {a[1]:.2f}, {a[2]:.2f} | "
                             f"{t['planar_error']:.3f} | {t['yaw_rate_error']:.3f} | {t['terminations']} |")
            lines.append("")
    if rounds:  # what each on-policy round cost before its PPO run
        lines += ["", "On-policy rounds: MuJoCo data of the previous policy and the finetune before each run", "",
                  "| run | on-policy trajectories | gen s | finetune s | finetune valid loss |", "|---|---:|---:|---:|---:|"]
        for tag in rounds:
            g = load(out, f"gen_onpolicy_{tag}.json")
            f = load(out, f"finetune_{tag}.json")
            lines.append(f"| {tag} | {g['trajectories']} | {g['seconds']:.0f} | {f['seconds']:.0f} | "
                         f"{f.get('valid_loss') or math.nan:.4f} |")
    write_summary(out, "\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (ax, ax_train) = plt.subplots(1, 2, figsize=(12, 4))
        for backend, (x, y, x_train, y_train) in series.items():
            line, = ax.plot(x, y, marker="o", markersize=3, label=f"PPO on {backend}")
            ax_train.plot(x_train, y_train, color=line.get_color(), label=f"PPO on {backend}")
        ax.axhline(threshold, color="gray", linestyle="--", label="95% of MuJoCo's final")
        ax.set_xlabel("training wall time (s)")
        ax.set_ylabel("return in MuJoCo (mean policy)")
        ax.set_title("evaluated in MuJoCo")
        ax.legend()
        ax_train.axhline(train_threshold, color="gray", linestyle="--", label="95% of MuJoCo's last 20 (paper)")
        ax_train.set_xlabel("training wall time (s)")
        ax_train.set_ylabel("training reward per episode")
        ax_train.set_title("inside each run's own simulator")
        ax_train.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "reward_vs_time.png"), dpi=120)
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
