#!/usr/bin/env bash
# bf16 vs fp32 inference accuracy on trained models (issue 12): the demo's CartPole FlashNeRD
# and a floating-base quadruped FlashNeRD, each evaluated with --precision fp32 and bf16 on the
# same held-out trajectories; prints the relative NRMSE change at H = 1, 15, 100, 200.
# Resumable: finished datasets and models are kept under out/precision/.
# Environment overrides: UPDATES (cartpole, default 2000), QUAD_UPDATES (default 1500).
set -euo pipefail
cd "$(dirname "$0")/.."
FN=./build/src/cli/flashnerd
OUT=out/precision
mkdir -p "$OUT"
UPDATES="${UPDATES:-2000}"
QUAD_UPDATES="${QUAD_UPDATES:-1500}"
$FN info
gen() {  # robot trajectories steps seed file
  [ -f "$OUT/$5" ] || $FN gen --robot "$1" --trajectories "$2" --steps "$3" --seed "$4" --out "$OUT/$5" --json > /dev/null
}
gen cartpole 4000 100 1 cartpole_train.h5
gen cartpole 512 220 2 cartpole_test.h5
gen quadruped 2000 100 1 quadruped_train.h5
gen quadruped 256 220 2 quadruped_test.h5
train() {  # data updates dir
  [ -f "$OUT/$3/config.json" ] || $FN train --data "$OUT/$1" --arch flashnerd --preset small --updates "$2" --seed 1 \
    --out "$OUT/$3" --json > "$OUT/$3.train.json" 2> "$OUT/$3.train.log"
}
train cartpole_train.h5 "$UPDATES" cartpole &
train quadruped_train.h5 "$QUAD_UPDATES" quadruped &
wait
for robot in cartpole quadruped; do
  for p in fp32 bf16; do
    $FN eval --model "$OUT/$robot" --data "$OUT/${robot}_test.h5" --horizons 1,15,100,200 --precision $p \
      --json > "$OUT/${robot}_eval_$p.json"
  done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
print("\nbf16 vs fp32 rollout NRMSE (same model, same held-out data)\n")
print(f"{'robot':10} {'H':>4} {'fp32':>10} {'bf16':>10} {'change':>8}")
for robot in ("cartpole", "quadruped"):
    r = {p: json.load(open(f"{out}/{robot}_eval_{p}.json")) for p in ("fp32", "bf16")}
    for i, h in enumerate(r["fp32"]["horizons"]):
        a, b = r["fp32"]["nrmse"][i], r["bf16"]["nrmse"][i]
        print(f"{robot:10} {h:>4} {a:10.5f} {b:10.5f} {100 * (b - a) / a:+7.2f}%")
PY
