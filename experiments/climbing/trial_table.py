#!/usr/bin/env python3
"""The climbing trial table: for each planning dynamics, climbs per terrain over planner seeds,
the total with its Wilson 95% interval, Fisher's exact test of each learned model against the
others, and the median planning time per decision. Reads the trial files of
experiments/climbing/trials.sh (BACKEND_tTERRAIN_sSEED.json). Standard library only.

    python3 experiments/climbing/trial_table.py out/climbing_trials [--json]
"""
import glob
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from summaries import load as load_json  # noqa: E402

NAMES = {"mujoco": "MuJoCo", "flashnerd": "FlashNeRD, variable contacts", "nerd": "NeRD, 20 probes"}
TRIAL = re.compile(r"(?P<backend>[a-z]+)_t(?P<terrain>\d+)_s(?P<seed>\d+)\.json$")


def wilson(successes, n, z=1.959963984540054):
    """Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fisher_two_sided(a, b, c, d):
    """Fisher's exact test of the 2x2 table [[a, b], [c, d]] (successes, failures per row):
    the probability of tables at most as likely as the observed one, margins fixed."""
    row1, col1, n = a + b, a + c, a + b + c + d

    def log_p(x):  # hypergeometric probability of x successes in row 1
        return (math.lgamma(col1 + 1) - math.lgamma(x + 1) - math.lgamma(col1 - x + 1)
                + math.lgamma(n - col1 + 1) - math.lgamma(row1 - x + 1) - math.lgamma(n - col1 - row1 + x + 1)
                - (math.lgamma(n + 1) - math.lgamma(row1 + 1) - math.lgamma(n - row1 + 1)))

    observed = log_p(a)
    lo, hi = max(0, row1 + col1 - n), min(row1, col1)
    return min(1.0, sum(math.exp(log_p(x)) for x in range(lo, hi + 1) if log_p(x) <= observed + 1e-9))


def load(out):
    trials = {}
    for path in sorted(glob.glob(os.path.join(out, "*_t*_s*.json"))):
        m = TRIAL.search(os.path.basename(path))
        if not m:
            continue
        j = load_json(path)
        trials.setdefault(m["backend"], []).append({**j, "seed": int(m["seed"])})
    return trials


def table(trials):
    rows = {}
    for backend, ts in trials.items():
        climbs = sum(t["success"] for t in ts)
        per_terrain = {}
        for t in ts:
            k = t["terrain"]["index"]
            s, n = per_terrain.get(k, (0, 0))
            per_terrain[k] = (s + int(t["success"]), n + 1)
        rows[backend] = {"climbs": climbs, "trials": len(ts), "wilson95": wilson(climbs, len(ts)),
                         "per_terrain": per_terrain,
                         "median_decision_ms": statistics.median(s for t in ts for s in t["decision_seconds"]) * 1e3,
                         "contact_detection_ms": statistics.mean(t["contact_detection_ms_per_decision"] for t in ts),
                         "contact_rows_mean": statistics.mean(t["contact_rows_per_step"] for t in ts),
                         "contact_rows_max": max(t.get("contact_rows_max", 0) for t in ts),
                         "contact_capacity": max(t.get("contact_capacity", 0) for t in ts),
                         "contact_rows_dropped": sum(t.get("contact_rows_dropped", 0) for t in ts)}
    tests = {}
    order = [b for b in ("flashnerd", "nerd", "mujoco") if b in rows]
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ra, rb = rows[a], rows[b]
            tests[f"{a} vs {b}"] = fisher_two_sided(ra["climbs"], ra["trials"] - ra["climbs"], rb["climbs"],
                                                    rb["trials"] - rb["climbs"])
    return rows, tests, order


def markdown(rows, tests, order, terrains):
    lines = ["| planning dynamics | climbs | rate (Wilson 95%) | median planning ms / decision | contact detection ms / decision "
             "| contact rows / predicted state: mean, most (capacity), dropped |",
             "|---|---:|---|---:|---:|---|"]
    for b in order:
        r = rows[b]
        lo, hi = r["wilson95"]
        lines.append(f"| {NAMES.get(b, b)} | {r['climbs']} / {r['trials']} | {r['climbs'] / r['trials']:.2f} "
                     f"({lo:.2f}–{hi:.2f}) | {r['median_decision_ms']:.0f} | {r['contact_detection_ms']:.0f} | "
                     + (f"{r['contact_rows_mean']:.1f}, {r['contact_rows_max']} ({r['contact_capacity']}), "
                        f"{r['contact_rows_dropped']} |" if r["contact_capacity"] else "— |"))
    lines += ["", "| terrain | height (m) | edge (m) | " + " | ".join(NAMES.get(b, b) for b in order) + " |",
              "|---|---:|---:|" + "---:|" * len(order)]
    for k in sorted({k for b in order for k in rows[b]["per_terrain"]}):
        t = terrains.get(k, {})
        cells = []
        for b in order:
            s, n = rows[b]["per_terrain"].get(k, (0, 0))
            cells.append(f"{s} / {n}" if n else "-")
        lines.append(f"| {t.get('name', k)} | {t.get('height', float('nan')):.3f} | {t.get('distance', float('nan')):.2f} | "
                     + " | ".join(cells) + " |")
    if tests:
        lines += ["", "Fisher's exact test (two-sided) of the climb rates: "
                  + "; ".join(f"{NAMES.get(k.split(' vs ')[0])} vs {NAMES.get(k.split(' vs ')[1])} p = {p:.3g}"
                              for k, p in tests.items()) + "."]
    return "\n".join(lines)


def main(argv):
    out = argv[0] if argv else "out/climbing_trials"
    trials = load(out)
    if not trials:
        print(f"no trials (BACKEND_tK_sSEED.json) in {out}", file=sys.stderr)
        return 1
    rows, tests, order = table(trials)
    terrains = {t["terrain"]["index"]: t["terrain"] for ts in trials.values() for t in ts}
    if "--json" in argv:
        print(json.dumps({"rows": rows, "fisher_p": tests}, default=list))
    else:
        print(markdown(rows, tests, order, terrains))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
