#!/usr/bin/env python3
"""Where climbing plans part from MuJoCo, over the trials of experiments/climbing/trials.sh run
with --diagnose (`plan --diagnose`: every decision's plan rolled out by the planning model and
by MuJoCo from the executed state). Per planning model, split by climbed / failed trials: the
model's one-step base error along the executed trajectory, the mean base gap at the end of a
plan's horizon, how many trials' plans part by more than the threshold, where the base is at
the first parting (past the edge, above the surface) and which robot parts touch the platform
there. With --plot TRIAL.json PNG, the picture of one trial: the executed base, the first plan
that parts and the plan with the largest gap, each as the model predicted it and as MuJoCo
executed it, and the gap at every decision. With --joints EVAL.json (of `flashnerd eval --by-start`
on climbing data), the one-step error of every joint per start kind, per model (mrad).

    python3 experiments/climbing/diagnosis.py out/climbing_trials
    python3 experiments/climbing/diagnosis.py --plot out/climbing_trials/flashnerd_t4_s1.json first_divergence.png
    python3 experiments/climbing/diagnosis.py --joints eval.json
"""
import collections
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load  # noqa: E402

NAMES = {"flashnerd": "FlashNeRD, variable contacts", "nerd": "NeRD, 20 probes"}
TRIAL = re.compile(r"(?P<backend>[a-z]+)_t(?P<terrain>\d+)_s(?P<seed>\d+)\.summary\.json$")


def part_of(geom):
    """The robot part a geom belongs to: foot, shank (shin), thigh, hip or base."""
    for part in ("FOOT", "SHANK", "THIGH", "HIP"):
        if part in geom:
            return part.lower()
    return "base"


def rows(out):
    by = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(out, "*_t*_s*.summary.json"))):
        m = TRIAL.search(os.path.basename(path))
        j = load(path)
        if m and "diagnosis" in j:
            by[(m["backend"], j["success"])].append(j)
    return by


def table(by):
    lines = ["| planning model | trials | one-step base RMSE along the executed path (mm) | plan gap at the horizon (m) "
             "| plans part (> gap) | base past the edge at the first parting (m, median) | parts touching the platform there |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for (backend, success), ts in sorted(by.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        d = [t["diagnosis"] for t in ts]
        firsts = [x["first_divergence"] for x in d if "first_divergence" in x]
        touching = collections.Counter(part_of(g["geom"]) for f in firsts for g in f.get("touching_platform", []))
        where = f"{statistics.median(f['base_past_edge'] for f in firsts):+.2f}" if firsts else "—"
        parts = ", ".join(f"{p} {n}" for p, n in touching.most_common()) or "none"
        lines.append(f"| {NAMES.get(backend, backend)}, {'climbed' if success else 'failed'} | {len(ts)} "
                     f"| {statistics.mean(1e3 * x['one_step_rmse'] for x in d):.2f} "
                     f"| {statistics.mean(x['plan_gap_at_horizon_mean'] for x in d):.3f} "
                     f"| {len(firsts)} / {len(ts)} (> {d[0]['gap_threshold']:.2f} m) | {where} | {parts} |")
    return "\n".join(lines)


def plot(trial_path, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = load(trial_path)
    d = t["diagnosis"]
    nq, H, dims = t["nq"], t["dial"]["horizon"], d["position_dims"]
    edge, height = t["terrain"]["distance"], t["terrain"]["height"]
    frames = len(t["qpos"]) // nq
    x = [t["qpos"][f * nq] - edge for f in range(frames)]
    z = [t["qpos"][f * nq + 2] for f in range(frames)]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    top.plot(range(frames), x, "k-", label="executed (MuJoCo): base x past the edge")
    top.plot(range(frames), z, "k--", label="executed: base z")
    top.axhline(0, color="gray", lw=0.5)
    top.axhline(height + 0.45, color="green", lw=0.5, ls=":", label="success height (top + 0.45 m)")
    first = d.get("first_divergence")
    gaps = [d["plan_gap"][k * H + H - 1] for k in range(t["frames"])]
    worst = max(range(t["frames"]), key=lambda k: gaps[k])

    def overlay(k, model_color, mujoco_color, what):
        steps = range(k + 1, k + H + 1)
        at = lambda arr, s, i: arr[(k * H + s) * dims + i]  # noqa: E731
        top.plot(steps, [at(d["plan_model_position"], s, 0) - edge for s in range(H)], "-", color=model_color, lw=2,
                 label=f"{what} (decision {k}): the model's prediction of the plan")
        top.plot(steps, [at(d["plan_model_position"], s, 2) for s in range(H)], "--", color=model_color, lw=2)
        top.plot(steps, [at(d["plan_mujoco_position"], s, 0) - edge for s in range(H)], "-", color=mujoco_color, lw=2,
                 label="the same plan in MuJoCo")
        top.plot(steps, [at(d["plan_mujoco_position"], s, 2) for s in range(H)], "--", color=mujoco_color, lw=2)

    title = f"{t['backend']} on {t['terrain']['name']}, seed {t['dial']['seed']}, {'climbed' if t['success'] else 'failed'}"
    if first:
        overlay(first["decision"], "red", "blue", "first parting")
        top.axvline(first["decision"] + first["step"] + 1, color="r", lw=0.5)
        parts = ", ".join(g["geom"] for g in first.get("touching_platform", [])) or "nothing"
        title += (f"\nfirst parting (> {d['gap_threshold']:.2f} m) at decision {first['decision']}, step "
                  f"{first['step'] + 1}; touching the platform there: {parts}")
    if not first or worst != first["decision"]:
        overlay(worst, "orange", "navy", "largest gap")
    top.set_title(title, fontsize=9)
    top.set_ylabel("m")
    top.legend(fontsize=7, loc="upper left")
    bottom.plot(range(t["frames"]), gaps, "m-", label=f"plan gap after {H} steps (m)")
    bottom.axhline(d["gap_threshold"], color="m", lw=0.5, ls=":")
    bottom.plot(range(t["frames"]), d["one_step_error"], "c-", label="one-step base error along the executed path (m)")
    bottom.set_xlabel("control frame (20 ms)")
    bottom.set_ylabel("m")
    bottom.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def joint_table(eval_path):
    models = load(eval_path).get("models")
    joints = list(models[0]["by_start"]["edge"]["one_step_joint_rmse"])
    lines = ["| model | start | " + " | ".join(joints) + " |", "|---|---|" + "---:|" * len(joints)]
    for m in models:
        for kind in ("ground", "edge", "top"):
            if kind in m["by_start"]:
                errors = m["by_start"][kind]["one_step_joint_rmse"]
                lines.append(f"| {m['model']} | {kind} | " + " | ".join(f"{1e3 * errors[j]:.1f}" for j in joints) + " |")
    return "\n".join(lines)


def main(argv):
    if argv and argv[0] == "--plot":
        plot(argv[1], argv[2])
        return 0
    if argv and argv[0] == "--joints":
        print(joint_table(argv[1]))
        return 0
    by = rows(argv[0] if argv else "out/climbing_trials")
    if not by:
        print("no trials run with --diagnose", file=sys.stderr)
        return 1
    print(table(by))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
