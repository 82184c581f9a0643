#!/usr/bin/env python3
"""Summary of experiments/ablation/run.sh (paper IV-A ablations): per FlashNeRD variant (FFN gate
activation, norm) and inference precision, the rollout NRMSE at every horizon as the mean over
seeds with the min-max spread, parameters, and Q(16) / Q(4096) from the same run. Prints
markdown, writes OUT/summary.md and OUT/nrmse_h500.png (NRMSE at H = 500 per variant, one
point per seed).

Usage: experiments/ablation/summary.py OUT_DIR"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, models, out_dir, write_summary  # noqa: E402

ORDER = ["swiglu-rmsnorm", "geglu-rmsnorm", "reglu-rmsnorm", "glu-rmsnorm", "mishglu-rmsnorm", "swiglu-layernorm"]


def collect(out):
    """variant -> {"seeds": {seed: {precision: eval model json}}, "train": {seed: json}, "bench": json}"""
    variants = {}
    for path in sorted(glob.glob(os.path.join(out, "*-s*.eval_*.json"))):
        m = re.match(r"(.+)-s(\d+)\.eval_(\w+)\.json$", os.path.basename(path))
        if not m:
            continue
        name, seed, precision = m.group(1), int(m.group(2)), m.group(3)
        v = variants.setdefault(name, {"seeds": {}, "train": {}, "bench": None})
        v["seeds"].setdefault(seed, {})[precision] = models(path)[0]
        train = load_if(out, f"{name}-s{seed}.train.json")
        if train:
            v["train"][seed] = train
    for name, v in variants.items():
        v["bench"] = load_if(out, f"{name}-s1.bench.json")
    return variants


def spread(values):
    return sum(values) / len(values), min(values), max(values)


def fmt(values):
    if not values:
        return "-"
    mean, lo, hi = spread(values)
    return "%.3g" % mean if len(values) == 1 else "%.3g (%.3g–%.3g)" % (mean, lo, hi)


def throughput(bench, batch, precision):
    if not bench:
        return None
    for r in bench["results"]:
        if r["batch"] == batch and r.get("precision", "fp32") == precision:
            return r["mtransitions_per_s"]
    return None


def main(out):
    variants = collect(out)
    if not variants:
        sys.exit(f"{out}: no evaluation results (*-sN.eval_*.json); run experiments/ablation/run.sh first")
    names = [n for n in ORDER if n in variants] + sorted(n for n in variants if n not in ORDER)
    any_seed = next(iter(variants[names[0]]["seeds"].values()))
    horizons = any_seed["fp32"]["horizons"]
    precisions = [p for p in ("fp32", "bf16") if any(p in s for v in variants.values() for s in v["seeds"].values())]
    lines = ["| variant | inference | seeds | parameters | " + " | ".join(f"H={h}" for h in horizons) +
             " | diverged | Q(16) M/s | Q(4096) M/s |",
             "|---|---|---:|---:|" + "---:|" * len(horizons) + "---:|---:|---:|"]
    for name in names:
        v = variants[name]
        for p in precisions:
            runs = [s[p] for s in v["seeds"].values() if p in s]
            if not runs:
                continue
            cols = [fmt([r["nrmse"][i] for r in runs]) for i in range(len(horizons))]
            q16, q4k = throughput(v["bench"], 16, p), throughput(v["bench"], 4096, p)
            lines.append(f"| {name} | {p} | {len(runs)} | {runs[0]['parameters']} | " + " | ".join(cols) +
                         f" | {sum(r['diverged'] for r in runs)} | " +
                         ("%.3g" % q16 if q16 else "-") + " | " + ("%.3g" % q4k if q4k else "-") + " |")
    text = "\n".join(lines)
    text += ("\n\nNRMSE: mean over seeds (min–max). Q(B): engine transitions per second (millions), seed 1's "
             "weights, measured in the same run.\n")
    write_summary(out, text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not importable: no plot")
        return
    h = horizons.index(500) if 500 in horizons else len(horizons) - 1
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(precisions)
    for k, p in enumerate(precisions):
        for i, name in enumerate(names):
            vals = [s[p]["nrmse"][h] for s in variants[name]["seeds"].values() if p in s]
            if not vals:
                continue
            x = i + (k - (len(precisions) - 1) / 2) * width
            mean, lo, hi = spread(vals)
            ax.bar(x, mean, width * 0.9, color=f"C{k}", alpha=0.5, label=p if i == 0 else None)
            ax.errorbar(x, mean, yerr=[[mean - lo], [hi - mean]], color="k", capsize=3)
            ax.plot([x] * len(vals), vals, "k.", ms=4)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=20)
    ax.set_ylabel(f"rollout NRMSE, H={horizons[h]}")
    ax.set_title("FlashNeRD ablations on CartPole (bars: mean, whiskers: min-max over seeds)")
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "nrmse_h500.png")
    fig.savefig(path, dpi=120)
    print("plot: " + path)


if __name__ == "__main__":
    main(out_dir("out/ablation"))
