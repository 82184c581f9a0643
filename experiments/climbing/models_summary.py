#!/usr/bin/env python3
"""Markdown summary of experiments/climbing/models.sh results (out/climbing/summary.md and
stdout): rollout NRMSE by start, one-step base-position error, contact rows, detection cost."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, out_dir, write_summary  # noqa: E402


def pct(a, b):
    return "%+.0f%%" % (100.0 * (a - b) / b) if b else "n/a"


def main(out):
    ev = load(out, "eval.json")
    models = ev["models"]
    flash = next(m for m in models if m["contacts"] == "variable")
    nerd = next(m for m in models if m["contacts"] == "fixed probes")
    hs = ev["horizons"]
    lines = ["## Platform climbing: variable contacts vs 20 fixed probes", ""]
    lines.append("| starts | trajectories | model | " + " | ".join("NRMSE@%d" % h for h in hs) + " | 1-step base RMSE (mm) |")
    lines.append("|---|---|---|" + "---|" * len(hs) + "---|")
    groups = [("all", flash, nerd)] + [(k, flash["by_start"][k], nerd["by_start"][k]) for k in ("ground", "edge", "top")
                                       if k in flash.get("by_start", {})]
    for name, f, n in groups:
        for label, m in (("FlashNeRD, variable contacts", f), ("NeRD, 20 probes", n)):
            lines.append("| %s | %d | %s | %s | %.3f |" % (name, m["trajectories"], label,
                         " | ".join("%.4f" % x for x in m["nrmse"]), m["one_step_base_rmse_mm"]))
        lines.append("| %s | | change | %s | %s |" % (name, " | ".join(pct(a, b) for a, b in zip(f["nrmse"], n["nrmse"])),
                     pct(f["one_step_base_rmse_mm"], n["one_step_base_rmse_mm"])))
    lines.append("")
    lines.append("Parameters: FlashNeRD %d, NeRD %d. Diverged rollouts: FlashNeRD %d, NeRD %d."
                 % (flash["parameters"], nerd["parameters"], flash["diverged"], nerd["diverged"]))
    c = flash.get("contact_rows")
    if c:
        lines.append("Contact rows at predicted states: min %d, mean %.2f, max %d per step; overflow beyond K: %d; "
                     "MuJoCo contact list full: %d frames." % (c["min"], c["mean"], c["max"], c["overflow"],
                                                               c["mujoco_buffer_full_frames"]))
    for split in ("train", "test"):
        g = load_if(out, "gen_%s.json" % split)
        if g:
            lines.append("Dataset %s: %d trajectories x %d steps, contact rows per frame min %d mean %.2f max %d, overflow %d."
                         % (split, g["trajectories"], g["steps"], g["contacts_min"], g["contacts_mean"], g["contacts_max"],
                            g["contact_overflow"]))
    b = load_if(out, "bench_contacts.json")
    if b:
        lines += ["", "| B | detection + rows (ms) | model step (ms) | full step (ms) | detection / model | rows per env |",
                  "|---|---|---|---|---|---|"]
        for r in b["results"]:
            lines.append("| %d | %.3f | %.3f | %.3f | %.2f | %.2f |" % (r["batch"], r["detection_ms"], r["model_ms"],
                         r["full_step_ms"], r["detection_over_model"], r["rows_per_env_mean"]))
        lines.append("(%d threads, median of %d groups)" % (b["threads"], b["groups"]))
    write_summary(out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main(out_dir("out/climbing"))
