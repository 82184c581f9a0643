#!/usr/bin/env bash
# PPO iteration time on the quadruped velocity task at 1024 environments x 24 steps
# (docs/BENCHMARKS.md, "PPO update"): MuJoCo against the shipped FlashNeRD locomotion model,
# with libtorch's autograd update (the default) and the fused update (--fused-update), each
# for ITERATIONS iterations with no evaluation, every update on all cores (--update-threads 0);
# the median seconds per iteration, the median update time and the ratio to MuJoCo's, from
# each run's log.csv. FN_BASE (optional): a second flashnerd binary (the code before a change)
# whose two FlashNeRD runs join the same table.
# Run it on an otherwise idle machine; every run is measured afresh.
# Usage: experiments/ppo_speed/run.sh [ITERATIONS] [ENVS]
set -euo pipefail
cd "$(dirname "$0")/../.."
ITERATIONS="${1:-10}"
ENVS="${2:-1024}"
OUT="${OUT:-out/ppo_speed}"
. experiments/lib/pipeline.sh
rm -rf "${OUT:?}"/run_*
run() {  # run NAME BINARY PPO_ARGS...
  local name=$1 bin=$2
  shift 2
  echo "ppo $name ..." >&2
  "$bin" ppo --task quadruped-velocity --envs "$ENVS" --iterations "$ITERATIONS" --eval-every 0 --update-threads 0 --seed 1 \
    --out "$OUT/run_$name" "$@" --json > "$OUT/run_$name.json" 2> "$OUT/run_$name.log"
}
run mujoco "$FN" --backend mujoco
MODEL=(--backend flashnerd --model models/quadruped)
run flashnerd_autograd "$FN" "${MODEL[@]}"
run flashnerd_fused "$FN" "${MODEL[@]}" --fused-update
if [ -n "${FN_BASE:-}" ]; then
  run base_flashnerd_autograd "$FN_BASE" "${MODEL[@]}"
  run base_flashnerd_fused "$FN_BASE" "${MODEL[@]}" --fused-update
fi
lscpu | grep "Model name" > "$OUT/cpu.txt"
python3 - "$OUT" <<'PY'
import csv, glob, os, statistics, sys
out = sys.argv[1]
rows = {}
for log in sorted(glob.glob(os.path.join(out, "run_*", "log.csv"))):
    name = os.path.basename(os.path.dirname(log))[4:]
    it = list(csv.DictReader(open(log)))
    seconds = [float(r["seconds"]) for r in it]
    per_iteration = [b - a for a, b in zip([0.0] + seconds, seconds)][1:]  # the first iteration warms up
    rows[name] = (statistics.median(per_iteration), statistics.median(float(r["update_s"]) for r in it[1:]))
mujoco = rows["mujoco"][0]
print("| run | median s / iteration | median update s | MuJoCo / run |")
print("|---|---:|---:|---:|")
for name, (s, u) in rows.items():
    print(f"| {name} | {s:.3f} | {u:.3f} | {mujoco / s:.2f}x |")
PY
