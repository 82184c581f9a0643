#!/usr/bin/env bash
# The fused update against the landed trainer (docs/BENCHMARKS.md, "The fused update"), on the
# same data in one invocation: FlashNeRD `small` on the quadruped (the locomotion recipe's data
# with its 4 foot probes, 2 000 trajectories).
#  speed   UPDATES updates of batch 1024 in each setting: autograd (bf16 and fp32, one process
#          and 2 workers: the landed trainer's best is bf16 x 2 workers) and the fused update
#          (bf16 and fp32 at 2 threads, bf16 in 2 workers of one thread).
#  curves  2 000 updates of batch 256, the landed best (bf16, 2 workers) against the fused
#          update (bf16, 2 threads), same seed: the training losses side by side.
# Run it on an otherwise idle machine; every run is measured afresh.
# Usage: experiments/training_speed/fused.sh [UPDATES]
set -euo pipefail
cd "$(dirname "$0")/../.."
UPDATES="${1:-100}"
OUT="${OUT:-out/training_speed_fused}"
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh
mkdir -p "$OUT"
lscpu | grep -E "Model name|Flags" | sed 's/Flags:.*\(avx512_bf16\|amx_bf16\).*/bf16: native (\1)/' > "$OUT/cpu.txt"
fn_gen "$OUT/quadruped.h5" --robot quadruped --contacts off "${LOCOMOTION_COMMANDS[@]}" --trajectories 2000 --seed 1

train_run() {  # train_run NAME TRAIN_ARGS...
  "$FN" train --data "$OUT/quadruped.h5" --preset small --valid-every 0 --seed 1 --quiet --overwrite \
    --out "$OUT/$1" --json "${@:2}" > "$OUT/$1.json"
}
# shellcheck disable=SC2086  # each setting is split into its flags
while read -r name flags; do
  train_run "speed_$name" --batch 1024 --updates "$UPDATES" $flags
done <<'RUNS'
autograd_bf16_w1 --precision bf16
autograd_bf16_w2 --precision bf16 --workers 2
autograd_fp32_w2 --precision fp32 --workers 2
fused_bf16_t2 --precision bf16 --fused-update --threads 2
fused_bf16_w2 --precision bf16 --fused-update --workers 2
fused_fp32_t2 --precision fp32 --fused-update --threads 2
RUNS
train_run curve_autograd --batch 256 --updates 2000 --precision bf16 --workers 2 --valid-every 500
train_run curve_fused --batch 256 --updates 2000 --precision bf16 --fused-update --threads 2 --valid-every 500

/usr/bin/python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import csv, json, sys
out = sys.argv[1]
print(open(f"{out}/cpu.txt").read().strip().replace("\n", "; "), "\n")
print("| setting | windows/s | vs autograd bf16 x 2 workers |\n|---|---:|---:|")
speed = {}
for name in ["autograd_bf16_w1", "autograd_bf16_w2", "autograd_fp32_w2", "fused_bf16_t2", "fused_bf16_w2", "fused_fp32_t2"]:
    speed[name] = json.load(open(f"{out}/speed_{name}.json"))["windows_per_second"]
for name, wps in speed.items():
    print(f"| {name} | {wps:,.0f} | {wps / speed['autograd_bf16_w2']:.2f}x |")
def losses(name):
    return [float(r["train_loss"]) for r in csv.DictReader(open(f"{out}/curve_{name}/train_log.csv"))]
a, f = losses("autograd"), losses("fused")
print("\n| updates | autograd bf16 x 2 workers | fused bf16, 2 threads | difference |\n|---|---:|---:|---:|")
for lo in range(0, len(a), 250):
    ma, mf = sum(a[lo:lo + 250]) / len(a[lo:lo + 250]), sum(f[lo:lo + 250]) / len(f[lo:lo + 250])
    print(f"| {lo + 1}-{lo + 250} | {ma:.4f} | {mf:.4f} | {100 * (mf - ma) / ma:+.1f}% |")
for name in ["autograd", "fused"]:
    s = json.load(open(f"{out}/curve_{name}.json"))
    print(f"\n{name}: validation loss {s['valid_loss']:.4f}, {s['windows_per_second']:,.0f} windows/s")
PY
