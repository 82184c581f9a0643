#!/usr/bin/env python3
"""Prints the demo's summary table from the JSON files the CLI wrote (standard library only)."""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def print_table(header, rows):
    """An aligned text table: the header, a rule, the rows."""
    widths = [max(len(str(r[c])) for r in rows + [header]) for c in range(len(header))]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths))
    print(line(header))
    print("-" * (sum(widths) + 2 * (len(header) - 1)))
    for r in rows:
        print(line(r))


def main(out):
    ev = load(os.path.join(out, "eval.json"))
    bench = load(os.path.join(out, "bench.json"))
    rollout = load(os.path.join(out, "rollout.json"))
    horizons = ev["horizons"]
    models = {m["arch"]: m for m in ev["models"]}
    print("\nFlashNeRD vs Optimized NeRD on %s (same data, splits, updates and seed)\n" % ev.get("robot", "?"))
    header = ["quantity", "FlashNeRD", "NeRD", "change"]
    rows = []
    for arch in ("flashnerd", "nerd"):
        t = load(os.path.join(out, f"train_{arch}.json"))
        models[arch]["train"] = t
    rows.append(["parameters", models["flashnerd"]["train"]["parameters"], models["nerd"]["train"]["parameters"], ""])
    rows.append(["training time (s)", "%.0f" % models["flashnerd"]["train"]["seconds"],
                 "%.0f" % models["nerd"]["train"]["seconds"], ""])
    rows.append(["training precision", models["flashnerd"]["train"].get("precision", "fp32"),
                 models["nerd"]["train"].get("precision", "fp32"), ""])
    for i, h in enumerate(horizons):
        f, n = models["flashnerd"]["nrmse"][i], models["nerd"]["nrmse"][i]
        rows.append([f"rollout NRMSE, H={h}", "%.4g" % f, "%.4g" % n, "%+.1f%%" % (100 * (f - n) / n)])
    rows.append(["diverged rollouts", models["flashnerd"]["diverged"], models["nerd"]["diverged"], ""])
    by = {}  # (precision, batch) -> arch -> result; bench times fp32 and, where the CPU has it, bf16
    for r in bench["results"]:
        by.setdefault((r.get("precision", "fp32"), r["batch"]), {})[r["arch"]] = r
    for p, b in sorted(by, key=lambda k: (k[0] != "fp32", k[1])):
        if "flashnerd" in by[(p, b)] and "nerd" in by[(p, b)]:
            f, n = by[(p, b)]["flashnerd"]["mtransitions_per_s"], by[(p, b)]["nerd"]["mtransitions_per_s"]
            rows.append([f"throughput {p} B={b} (M transitions/s)", "%.3g" % f, "%.3g" % n, "%.1fx" % (f / n)])
    print_table(header, rows)
    policy_rows = policy_table(out)
    if policy_rows:
        print("\nThe learned simulator in use: PPO cartpole swing-up, both policies judged in MuJoCo\n")
        print_table(["quantity", "trained on FlashNeRD", "trained on MuJoCo", "ratio"], policy_rows)
    print("\nfiles:")
    for p in ev.get("plots", []):
        print("  plot:  " + p)
    print("  strip: " + rollout["strip"])
    if "video" in rollout:
        print("  video: " + rollout["video"])
    print("  models: %s/flashnerd, %s/nerd (config.json + weights.safetensors)" % (out, out))
    video = os.path.join(out, "policy_video.json")
    if os.path.exists(video):
        v = load(video)
        print("  policies in MuJoCo: " + v.get("strip", "") + ("  " + v["video"] if "video" in v else ""))


def policy_table(out):
    """Rows comparing the PPO runs on FlashNeRD and on MuJoCo, or [] when the stage did not run."""
    runs = {}
    for backend in ("flashnerd", "mujoco"):
        ppo, ev = os.path.join(out, f"ppo_{backend}.json"), os.path.join(out, f"policy_eval_{backend}.json")
        if not (os.path.exists(ppo) and os.path.exists(ev)):
            return []
        runs[backend] = (load(ppo), load(ev))
    (fp, fe), (mp, me) = runs["flashnerd"], runs["mujoco"]
    ratio = lambda a, b: "%.2f" % (a / b) if b else ""
    return [
        ["PPO iterations", fp["iterations"], mp["iterations"], ""],
        ["time per iteration (s)", "%.3f" % (fp["seconds"] / fp["iterations"]), "%.3f" % (mp["seconds"] / mp["iterations"]),
         ratio(fp["seconds"], mp["seconds"])],
        ["total training time (s)", "%.0f" % fp["seconds"], "%.0f" % mp["seconds"], ratio(fp["seconds"], mp["seconds"])],
        ["return in MuJoCo (256 episodes)", "%.1f" % fe["episode_reward"], "%.1f" % me["episode_reward"],
         ratio(fe["episode_reward"], me["episode_reward"])],
        ["episodes ended early in MuJoCo", fe.get("terminations", ""), me.get("terminations", ""), ""],
    ]


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/demo")
