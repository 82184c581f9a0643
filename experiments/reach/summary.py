"""Success rates of arm7-reach policies in MuJoCo (experiments/reach/run.sh's eval.json), as a
Markdown table, with the learned runs' mean as a share of the MuJoCo runs' mean.
    python3 experiments/reach/summary.py out/reach/mujoco_s1 ... out/reach/learned_s1 ..."""
import json
import os
import sys

rows, by_backend = [], {}
for run in sys.argv[1:]:
    ev = json.load(open(os.path.join(run, "eval.json")))
    ppo = json.load(open(os.path.join(run, "ppo.json")))
    s = ev["success_success"]
    backend = ppo["backend"]
    by_backend.setdefault(backend, []).append(s["rate"])
    rows.append(f"| {run} | {backend} | {s['rate']:.3f} [{s['rate_ci95'][0]:.3f}, {s['rate_ci95'][1]:.3f}] | "
                f"{ev['episode_reward']:.3f} | {ppo['seconds'] / 60:.1f} |")
print("| run | trained on | success rate in MuJoCo [95% CI] | return in MuJoCo | PPO minutes |")
print("|---|---|---|---|---|")
print("\n".join(rows))
means = {b: sum(v) / len(v) for b, v in by_backend.items()}
for b, m in means.items():
    print(f"\nmean success, trained on {b}: {m:.3f} over {len(by_backend[b])} seeds")
if "mujoco" in means and "flashnerd" in means:
    print(f"learned / MuJoCo: {100 * means['flashnerd'] / means['mujoco']:.1f}%")
