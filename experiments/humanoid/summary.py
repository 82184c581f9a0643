"""The table, the targets and the curves of experiments/humanoid/run.sh: every run's final policy
in MuJoCo (policy-eval, 256 x 1000 steps: return, falls, tracking of 0.5 m/s forward), its PPO
iterations, training clock and transitions (imagined and MuJoCo); then the issue's targets,
FlashNeRD-trained runs against the MuJoCo-only runs of the same budget and against the long one
(TAG long; one recipe and budget per OUT: every other run counts; the long run judged at that
budget, RUN/atSECONDS from run.sh's EVAL_AT, is a MuJoCo-only run of the same budget); and
OUT/curves.png, the in-training MuJoCo evaluation (64 envs x 500 steps) against the training
clock. Usage: summary.py OUT"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load, load_if, read_log, write_summary  # noqa: E402

FORWARD = [0.5, 0.0, 0.0]  # the walking command
MAX_FALL_SHARE, MAX_FORWARD_ERROR = 0.05, 0.15


class Run:
    """A run of run.sh: its final policy's training record (or, with at, its policy at that
    clock), its log up to that policy, and the policy's evaluation in MuJoCo."""

    def __init__(self, out, name, at=None):
        self.name = name[len("ppo_"):]
        self.backend, self.tag, self.seed = re.match(r"(mujoco|flashnerd)(?:_(\w+?))?_seed(\d+)$", self.name).groups()
        self.at = at
        self.training = load(out, name, f"at{at}" if at else "final", "policy.json")["training"]
        self.rows = [r for r in read_log(out, name, "log.csv") if int(r["iteration"]) <= self.training["iterations"]]
        self.name += f"_at{at}" if at else ""
        self.evaluation = load_if(out, f"policy_eval_{self.name}.json")
        self.mujoco_transitions = (self.training["transitions"] if self.backend == "mujoco"
                                   else int(self.rows[-1]["real_transitions"]))
        self.imagined = self.training["transitions"] if self.backend == "flashnerd" else 0

    def forward(self):
        """policy-eval's tracking of FORWARD: (planar error m/s, falls of its robots)."""
        t = next(t for t in self.evaluation["tracking"] if t["command"] == FORWARD)
        return t["planar_error"], t["terminations"]

    def curve(self):
        return [(float(r["seconds"]), float(r["eval_reward"])) for r in self.rows if r["eval_reward"]]


def mean(xs):
    return sum(xs) / len(xs)


def runs_table(runs):
    lines = ["| run | iterations | training s | imagined transitions | MuJoCo transitions | return in MuJoCo | "
             "falls of 256 | 0.5 m/s forward: error m/s / falls |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        e = r.evaluation
        cells = (f"{e['episode_reward']:.2f} | {e['terminations']} | {r.forward()[0]:.2f} / {r.forward()[1]}"
                 if e else "- | - | -")
        lines.append(f"| {r.name} | {r.training['iterations']} | {r.training['seconds']:.0f} | {r.imagined:,} | "
                     f"{r.mujoco_transitions:,} | {cells} |")
    return lines


def targets(runs):
    done = [r for r in runs if r.evaluation]
    flash = [r for r in done if r.backend == "flashnerd"]
    equal = [r for r in done if r.backend == "mujoco" and (r.tag != "long" or r.at)]
    long = [r for r in done if r.backend == "mujoco" and r.tag == "long" and not r.at]
    if not flash:
        return []
    n = 256
    lines = ["", "| target | measured | met |", "|---|---|---|"]
    falls = [r.evaluation["terminations"] for r in flash]
    lines.append(f"| falls at most {MAX_FALL_SHARE:.0%} of {n} episodes, every FlashNeRD seed | "
                 f"{', '.join(map(str, falls))} | {all(f <= MAX_FALL_SHARE * n for f in falls)} |")
    errors = [r.forward()[0] for r in flash]
    lines.append(f"| 0.5 m/s forward tracked within {MAX_FORWARD_ERROR} m/s, every seed | "
                 f"{', '.join(f'{x:.2f}' for x in errors)} | {all(x <= MAX_FORWARD_ERROR for x in errors)} |")
    flash_return = mean([r.evaluation["episode_reward"] for r in flash])
    for label, ref in (("MuJoCo-only runs of equal clock", equal), ("long MuJoCo-only run", long)):
        if ref:
            ref_return = mean([r.evaluation["episode_reward"] for r in ref])
            ratio = flash_return / ref_return if ref_return > 0 else float("inf")
            lines.append(f"| mean return at least 1.5x that of the {label} ({len(flash)} against {len(ref)} seeds) | "
                         f"{flash_return:.2f} against {ref_return:.2f}: {ratio:.2f}x | {ratio >= 1.5} |")
    if equal:
        share = mean([r.mujoco_transitions for r in flash]) / mean([r.mujoco_transitions for r in equal])
        lines.append(f"| MuJoCo transitions at most 10% of MuJoCo-only PPO's | {share:.1%} | {share <= 0.10} |")
    return lines


def plot(out, runs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in (r for r in runs if not r.at):  # a run at a shorter clock is a part of its curve
        xs, ys = zip(*r.curve()) if r.curve() else ([], [])
        style = "-" if r.backend == "flashnerd" else "--"
        ax.plot([x / 60 for x in xs], ys, style, label=r.name)
    ax.set_xlabel("PPO training clock (min, one core each)")
    ax.set_ylabel("return in MuJoCo (64 envs x 500 steps)")
    ax.set_title("humanoid-velocity: FlashNeRD trust recipe vs MuJoCo-only PPO")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curves.png.tmp.png"), dpi=110)
    os.replace(os.path.join(out, "curves.png.tmp.png"), os.path.join(out, "curves.png"))


out = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
runs = [Run(out, os.path.basename(os.path.dirname(p))) for p in sorted(glob.glob(os.path.join(out, "ppo_*", "final")))]
runs += [Run(out, os.path.basename(os.path.dirname(p)), int(os.path.basename(p)[2:]))
         for p in sorted(glob.glob(os.path.join(out, "ppo_*", "at[0-9]*")))]
write_summary(out, "\n".join(runs_table(runs) + targets(runs)) + "\n")
plot(out, runs)
