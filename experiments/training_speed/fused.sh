#!/usr/bin/env bash
# The fused update against the landed trainer (docs/BENCHMARKS.md, "The fused update"), on the
# same data in one invocation: FlashNeRD `small` on the quadruped (the locomotion recipe's data
# with its 4 foot probes, 2 000 trajectories).
#  speed   WINDOWS windows in each setting: autograd (bf16 and fp32, one process and 2 workers,
#          batch 1024 and 4096: the landed trainer's best is bf16 x 2 workers) and the fused
#          update (bf16 and fp32, 2 threads or 2 workers of one thread); then fp32 with oneDNN
#          capped at AVX2 (ONEDNN_MAX_CPU_ISA; libtorch's fp32 products are OpenBLAS's, at the
#          preset OPENBLAS_CORETYPE): what an AVX2-only CPU runs.
#  curves  2 000 updates of batch 256, the landed best (bf16, 2 workers) against the fused
#          update (bf16, 2 workers), same seed: the training losses side by side.
# Run it on an otherwise idle machine; every run is measured afresh.
# Usage: experiments/training_speed/fused.sh [WINDOWS]
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOWS="${1:-102400}"
OUT="${OUT:-out/training_speed_fused}"
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh
mkdir -p "$OUT"
lscpu | grep -E "Model name|Flags" | sed 's/Flags:.*\(avx512_bf16\|amx_bf16\).*/bf16: native (\1)/' > "$OUT/cpu.txt"
fn_gen "$OUT/quadruped.h5" --robot quadruped --contacts off "${LOCOMOTION_COMMANDS[@]}" --trajectories 2000 --seed 1

train_run() {  # train_run NAME TRAIN_ARGS...: the run's summary in OUT/NAME.json
  # shellcheck disable=SC2086  # RUN_ENV holds VAR=value words for env
  env ${RUN_ENV:-} "$FN" train --data "$OUT/quadruped.h5" --preset small --seed 1 --quiet \
    --overwrite --out "$OUT/$1" --json "${@:2}" > "$OUT/$1.json"
}
SPEED=(  # name batch environment flags
  "autograd_bf16_w1 1024 - --precision bf16"
  "autograd_bf16_w2 1024 - --precision bf16 --workers 2"
  "autograd_bf16_w2_b4096 4096 - --precision bf16 --workers 2"
  "autograd_fp32_w2 1024 - --precision fp32 --workers 2"
  "fused_bf16_t2 1024 - --precision bf16 --fused-update --threads 2"
  "fused_bf16_w2 1024 - --precision bf16 --fused-update --workers 2"
  "fused_fp32_w2 1024 - --precision fp32 --fused-update --workers 2"
  "avx2_autograd_fp32_w2 1024 ONEDNN_MAX_CPU_ISA=AVX2 --precision fp32 --workers 2"
  "avx2_fused_fp32_w2 1024 ONEDNN_MAX_CPU_ISA=AVX2 --precision fp32 --fused-update --workers 2"
)
for run in "${SPEED[@]}"; do
  read -r name batch environment flags <<< "$run"
  [ "$environment" = - ] && environment=
  # shellcheck disable=SC2086  # the flags are split into arguments
  RUN_ENV=$environment train_run "speed_$name" --batch "$batch" --updates $((WINDOWS / batch)) --valid-every 0 $flags
done
train_run curve_autograd --batch 256 --updates 2000 --precision bf16 --workers 2 --valid-every 500
train_run curve_fused --batch 256 --updates 2000 --precision bf16 --fused-update --workers 2 --valid-every 500

/usr/bin/python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import csv, glob, json, os, sys
out = sys.argv[1]
print(open(f"{out}/cpu.txt").read().strip().replace("\n", "; "), "\n")
print("| setting | windows/s | vs autograd bf16 x 2 workers (AVX2 rows: vs AVX2 autograd fp32 x 2) |\n|---|---:|---:|")
speed = {}
for path in sorted(glob.glob(f"{out}/speed_*.json")):
    speed[os.path.basename(path)[6:-5]] = json.load(open(path))["windows_per_second"]
for name, wps in speed.items():
    base = speed["avx2_autograd_fp32_w2" if name.startswith("avx2") else "autograd_bf16_w2"]
    print(f"| {name} | {wps:,.0f} | {wps / base:.2f}x |")
def losses(name):
    return [float(r["train_loss"]) for r in csv.DictReader(open(f"{out}/curve_{name}/train_log.csv"))]
a, f = losses("autograd"), losses("fused")
print("\n| updates | autograd bf16 x 2 workers | fused bf16 x 2 workers | difference |\n|---|---:|---:|---:|")
for lo in range(0, len(a), 250):
    ma, mf = sum(a[lo:lo + 250]) / len(a[lo:lo + 250]), sum(f[lo:lo + 250]) / len(f[lo:lo + 250])
    print(f"| {lo + 1}-{lo + 250} | {ma:.4f} | {mf:.4f} | {100 * (mf - ma) / ma:+.1f}% |")
for name in ["autograd", "fused"]:
    s = json.load(open(f"{out}/curve_{name}.json"))
    print(f"\n{name}: validation loss {s['valid_loss']:.4f}, {s['windows_per_second']:,.0f} windows/s")
PY
