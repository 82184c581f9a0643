#!/usr/bin/env bash
# bf16 mixed-precision training against fp32 (issue 15, docs/TRAINING.md): the same
# demo-sized run (cartpole, small preset, same data, seed and updates) in both precisions,
# then rollout NRMSE of both on held-out data; and the training throughput of each (one
# libtorch thread, batch 64) on cartpole and the quadruped. Results under out/bf16/.
# Usage: scripts/bf16_training.sh [UPDATES] [SPEED_UPDATES]
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATES="${1:-2000}"
SPEED_UPDATES="${2:-300}"
FN=./build/src/cli/flashnerd
OUT=out/bf16
mkdir -p "$OUT"
for robot in cartpole quadruped; do
  [ -f "$OUT/${robot}_train.h5" ] || $FN gen --robot $robot --trajectories 2000 --steps 100 --seed 1 \
    --out "$OUT/${robot}_train.h5" --json > /dev/null
done
[ -f "$OUT/cartpole_test.h5" ] || $FN gen --robot cartpole --trajectories 512 --steps 220 --seed 2 \
  --out "$OUT/cartpole_test.h5" --json > /dev/null
for p in fp32 bf16; do  # accuracy: the demo-sized run
  [ -f "$OUT/cartpole_$p/config.json" ] || $FN train --data "$OUT/cartpole_train.h5" --preset small --updates "$UPDATES" \
    --seed 1 --precision $p --quiet --out "$OUT/cartpole_$p" --json > "$OUT/cartpole_$p.train.json"
done
$FN eval --model "$OUT/cartpole_fp32" --model "$OUT/cartpole_bf16" --data "$OUT/cartpole_test.h5" --precision fp32 \
  --horizons 1,15,100,200 --json > "$OUT/cartpole_eval.json"
for robot in cartpole quadruped; do  # speed: short runs, same seed
  for arch in flashnerd nerd; do
    for p in fp32 bf16; do
      $FN train --data "$OUT/${robot}_train.h5" --arch $arch --preset small --updates "$SPEED_UPDATES" --valid-every 0 \
        --seed 1 --precision $p --quiet --overwrite --out "$OUT/speed_${robot}_${arch}_$p" --json > "$OUT/speed_${robot}_${arch}_$p.json"
    done
  done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
ev = json.load(open(f"{out}/cartpole_eval.json"))["models"]
print("| run | " + " | ".join(f"NRMSE H={h}" for h in ev[0]["horizons"]) + " | final train loss | valid loss |")
print("|---|" + "---:|" * (len(ev[0]["horizons"]) + 2))
for m, p in zip(ev, ["fp32", "bf16"]):
    t = json.load(open(f"{out}/cartpole_{p}.train.json"))
    print(f"| cartpole small, {p} | " + " | ".join(f"{x:.4f}" for x in m["nrmse"]) + f" | {t['train_loss'][1]:.4g} | {t['valid_loss']:.4g} |")
print()
print("| robot | arch | fp32 windows/s | bf16 windows/s | speed-up | bf16 forward / backward s |")
print("|---|---|---:|---:|---:|---|")
for robot in ["cartpole", "quadruped"]:
    for arch in ["flashnerd", "nerd"]:
        r = {p: json.load(open(f"{out}/speed_{robot}_{arch}_{p}.json")) for p in ["fp32", "bf16"]}
        s = r["bf16"]["seconds_split"]
        print(f"| {robot} | {arch} | {r['fp32']['windows_per_second']:.0f} | {r['bf16']['windows_per_second']:.0f} | "
              f"{r['bf16']['windows_per_second'] / r['fp32']['windows_per_second']:.2f}x | {s['forward']:.1f} / {s['backward']:.1f} |")
PY
