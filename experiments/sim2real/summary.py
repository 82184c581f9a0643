#!/usr/bin/env python3
"""Tables of experiments/sim2real/run.sh: rollout NRMSE on held-out "real" trajectories per model, the
share of the zero-shot gap each fine-tuned model closes, and the nominal accuracy it keeps."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import models  # noqa: E402

out = sys.argv[1]
label = {"finetuned_1pct": "fine-tuned, 1% real data", "finetuned_10pct": "fine-tuned, 10% real data",
         "scratch_1pct": "from scratch, 1% real data", "scratch_10pct": "from scratch, 10% real data"}


def name(m):
    base = os.path.basename(os.path.normpath(m["model"]))
    return label.get(base, "nominal model, zero-shot")


real = models(os.path.join(out, "eval_real.json"))
nominal = {name(m): m for m in models(os.path.join(out, "eval_nominal.json"))}
H = real[0]["horizons"]
zero = real[0]["nrmse"]
print(f"Held-out \"real\" trajectories ({real[0]['trajectories']}), rollout NRMSE:\n")
zn = nominal["nominal model, zero-shot"]["nrmse"]
print("| model | " + " | ".join(f"H={h}" for h in H) + " | diverged | " + " | ".join(f"vs zero-shot H={h}" for h in H[1:]) +
      " | nominal data: " + " | ".join(f"H={h} (zero-shot {x:.4f})" for h, x in zip(H[1:], zn[1:])) + " |")
print("|---|" + "---:|" * (len(H) + 1 + 2 * (len(H) - 1)))
for m in real:
    n = name(m)
    first = n == "nominal model, zero-shot"
    change = ["" if first else f"{m['nrmse'][i] / zero[i] - 1:+.0%}" for i in range(1, len(H))]
    kept = [f"{x:.4f}" if n in nominal and not first else "" for x in (nominal[n]["nrmse"][1:] if n in nominal else zn[1:])]
    print(f"| {n} | " + " | ".join(f"{x:.4f}" for x in m["nrmse"]) + f" | {m['diverged']} | " + " | ".join(change) +
          " | " + " | ".join(kept) + " |")
