#!/usr/bin/env bash
# bf16 vs fp32 inference accuracy on trained models (docs/BENCHMARKS.md): the demo's CartPole
# FlashNeRD and a floating-base quadruped FlashNeRD, each evaluated with --precision fp32 and
# bf16 on the same held-out trajectories; prints the relative NRMSE change at H = 1, 15, 100,
# 200. Every stage resumes where it stopped; results under out/precision/.
# Usage: experiments/precision/run.sh
# Environment overrides: UPDATES (cartpole, default 2000), QUAD_UPDATES (default 1500).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-out/precision}"
UPDATES="${UPDATES:-2000}"
QUAD_UPDATES="${QUAD_UPDATES:-1500}"
. experiments/lib/pipeline.sh
. experiments/lib/cartpole_recipe.sh  # the demo's data
"$FN" info
cartpole_train "$CARTPOLE_TRAJECTORIES"
fn_gen "$OUT/cartpole_train.h5" "${CARTPOLE_TRAIN[@]}"
fn_gen "$OUT/cartpole_test.h5" "${CARTPOLE_TEST[@]}"
fn_gen "$OUT/quadruped_train.h5" --robot quadruped --trajectories 2000 --steps 100 --seed 1
fn_gen "$OUT/quadruped_test.h5" --robot quadruped --trajectories 256 --steps 220 --seed 2
train() {  # robot updates
  fn_train "$OUT/$1.train.json" "$OUT/$1" --data "$OUT/$1_train.h5" --arch flashnerd --preset small --updates "$2" --seed 1
}
train cartpole "$UPDATES" &
p1=$!
train quadruped "$QUAD_UPDATES" &
p2=$!
wait $p1
wait $p2
for robot in cartpole quadruped; do
  for p in fp32 bf16; do
    fn_eval "$OUT/${robot}_eval_$p.json" --model "$OUT/$robot" --data "$OUT/${robot}_test.h5" --horizons 1,15,100,200 \
      --precision $p
  done
done
fn_summary - "$OUT" <<'PY'
import sys
from summaries import load
out = sys.argv[1]
print("\nbf16 vs fp32 rollout NRMSE (same model, same held-out data)\n")
print(f"{'robot':10} {'H':>4} {'fp32':>10} {'bf16':>10} {'change':>8}")
for robot in ("cartpole", "quadruped"):
    r = {p: load(out, f"{robot}_eval_{p}.json") for p in ("fp32", "bf16")}
    for i, h in enumerate(r["fp32"]["horizons"]):
        a, b = r["fp32"]["nrmse"][i], r["bf16"]["nrmse"][i]
        print(f"{robot:10} {h:>4} {a:10.5f} {b:10.5f} {100 * (b - a) / a:+7.2f}%")
PY
