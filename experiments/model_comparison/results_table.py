#!/usr/bin/env python3
"""Markdown Table I analogue from out/experiments/ROBOT/*.json (written by
experiments/model_comparison/run.sh).
Usage: experiments/model_comparison/results_table.py [ROBOT ...]   (default: every robot with results)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load  # noqa: E402

ROOT = "out/experiments"


def main(robots):
    robots = robots or sorted(d for d in os.listdir(ROOT) if os.path.exists(os.path.join(ROOT, d, "eval.json")))
    print("| robot | model | params | updates | train s | NRMSE H=1 | H=15 | H=100 | H=200 | diverged | Q(16) M/s | Q(4096) M/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for robot in robots:
        ev = load(ROOT, robot, "eval.json")
        bench = load(ROOT, robot, "bench.json")
        models = {m["arch"]: m for m in ev["models"]}
        q = {(r["arch"], r["batch"]): r["mtransitions_per_s"] for r in bench["results"]}
        for arch, label in (("flashnerd", "FlashNeRD"), ("nerd", "Optimized NeRD")):
            m, t = models[arch], load(ROOT, robot, f"train_{arch}.json")
            cells = ["%.4g" % x for x in m["nrmse"]]
            print("| %s | %s | %.2fM | %d | %.0f | %s | %d | %.3g | %.3g |" % (
                robot, label, t["parameters"] / 1e6, t["updates"], t["seconds"], " | ".join(cells),
                m["diverged"], q.get((arch, 16), float("nan")), q.get((arch, 4096), float("nan"))))
        f, n = models["flashnerd"]["nrmse"], models["nerd"]["nrmse"]
        change = ["%+.1f%%" % (100 * (a - b) / b) for a, b in zip(f, n)]
        ratio16 = q.get(("flashnerd", 16), 0) / q.get(("nerd", 16), 1)
        ratio4k = q.get(("flashnerd", 4096), 0) / q.get(("nerd", 4096), 1)
        print("| %s | **change** | | | | %s | | **%.1fx** | **%.1fx** |" % (robot, " | ".join(change), ratio16, ratio4k))


if __name__ == "__main__":
    main(sys.argv[1:])
