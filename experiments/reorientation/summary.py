#!/usr/bin/env python3
"""Tables of experiments/reorientation/run.sh: every PPO run's final (and best-validation) policy
run in MuJoCo, targets per episode and drop rate with 95% bootstrap intervals, the share of
episodes with two or more targets and the PPO time split; then the MuJoCo-trained policy run
inside each coupled simulator.

Usage: experiments/reorientation/summary.py OUT_DIR   (e.g. out/reorientation/reduced)"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, out_dir  # noqa: E402


def ci(r, k):
    return f"{r[k + '_ci95'][0]:.2f}-{r[k + '_ci95'][1]:.2f}"


def row(label, r):
    return (f"| {label} | {r['targets_per_episode']:.2f} ({ci(r, 'targets_per_episode')}) | "
            f"{r['share_two_or_more_targets']:.0%} | {r['drop_rate']:.2f} ({ci(r, 'drop_rate')}) |")


def main(out):
    print("| trained on (run; _best: the policy of its best MuJoCo validation) | targets / episode (95% CI) | "
          ">= 2 targets | drop rate (95% CI) | PPO s / iteration | dynamics / contacts / policy / update s |")
    print("|---|---:|---:|---:|---:|---|")
    order = {"mujoco": 0, "two-way": 1, "one-way": 2}
    runs = [os.path.basename(f)[len("policy_eval_"):-len(".json")] for f in glob.glob(f"{out}/policy_eval_*.json")]
    for run in sorted(runs, key=lambda n: (order.get(n.split("_")[0], 3), n)):
        p = load(out, f"ppo_{run.removesuffix('_best')}.json")
        it = p["iterations"]
        print(row(run, load(out, f"policy_eval_{run}.json")["reorientation"]) +
              f" {p['seconds'] / it:.2f} | {p['seconds_dynamics'] / it:.2f} / {p['seconds_sensing'] / it:.2f} / "
              f"{p['seconds_policy'] / it:.2f} / {p['seconds_update'] / it:.2f} |")
    print()
    print("| the MuJoCo-trained policy (seed 1) run in | targets / episode (95% CI) | >= 2 targets | drop rate (95% CI) |")
    print("|---|---:|---:|---:|")
    for b, f in [("mujoco", "policy_eval_mujoco"), ("two-way", "mujoco_policy_in_two-way"),
                 ("one-way", "mujoco_policy_in_one-way")]:
        r = load_if(out, f"{f}.json")
        if r:
            print(row(b, r["reorientation"]))


if __name__ == "__main__":
    main(out_dir("out/reorientation/reduced"))
