#!/usr/bin/env bash
# Behaviour fingerprints for refactors that must change nothing: fixed-seed fp32 training
# (FlashNeRD, NeRD, unrolled, unrolled with gradients, early stopping; each then continued by
# --init-from) and fixed-seed PPO on the shipped cartpole model (plain; model-based with
# refreshes and evaluation; real transitions in the batch under a penalty ramp; a model-based
# run resumed halfway). Prints one hash per artifact and per log (timing columns left out).
# Run it before and after the change with the same CPU and OpenBLAS kernels, and diff the two:
#   experiments/refactor/fingerprints.sh out/fingerprints/before > before.txt
#   (change, rebuild)
#   experiments/refactor/fingerprints.sh out/fingerprints/after > after.txt && diff before.txt after.txt
# About 90 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="$1"
FN="${FN:-./build/src/cli/flashnerd}"
mkdir -p "$OUT"
DATA="$OUT/train.h5"
[ -f "$DATA" ] || $FN gen --robot cartpole --trajectories 300 --steps 100 --seed 1 --out "$DATA" > /dev/null 2>&1
export OPENBLAS_NUM_THREADS=1
for variant in "flashnerd" "nerd" "flashnerd --unroll 3 --unroll-grad" "flashnerd --unroll 3" \
               "flashnerd --patience 1 --valid-every 40"; do
  name=$(echo "$variant" | tr ' -' '__')
  # shellcheck disable=SC2086
  $FN train --data "$DATA" --arch $variant --preset small --updates 120 --seed 1 --precision fp32 --quiet \
    --overwrite --out "$OUT/train_$name" > /dev/null 2>&1
  $FN train --data "$DATA" --init-from "$OUT/train_$name" --updates 40 --seed 2 --precision fp32 --quiet \
    --overwrite --out "$OUT/continued_$name" > /dev/null 2>&1
done
PPO=(ppo --task cartpole-swingup --backend flashnerd --model models/cartpole --envs 64 --steps-per-env 16
     --hidden 32,32 --seed 3 --threads 1 --quiet)
REAL=(--real-envs 8 --real-steps 16)
REFRESH=(--refresh-every 3 --refresh-updates 5 --refresh-windows 16)
$FN "${PPO[@]}" --iterations 6 --overwrite --out "$OUT/ppo_plain" > /dev/null 2>&1
$FN "${PPO[@]}" --iterations 6 --overwrite "${REAL[@]}" "${REFRESH[@]}" --eval-every 3 --eval-envs 8 \
  --eval-steps 50 --out "$OUT/ppo_model_based" > /dev/null 2>&1
$FN "${PPO[@]}" --iterations 6 --overwrite "${REAL[@]}" --real-in-batch --penalty-ramp 3 \
  --out "$OUT/ppo_real_in_batch" > /dev/null 2>&1
$FN "${PPO[@]}" --iterations 4 --overwrite "${REAL[@]}" "${REFRESH[@]}" --out "$OUT/ppo_resumed" > /dev/null 2>&1
$FN "${PPO[@]}" --iterations 6 --resume "${REAL[@]}" "${REFRESH[@]}" --out "$OUT/ppo_resumed" > /dev/null 2>&1
cd "$OUT"
find . -name "*.safetensors" | sort | while read -r f; do echo "$(sha256sum < "$f" | cut -c1-16) $f"; done
find . -name "log.csv" -o -name "train_log.csv" | sort | while read -r f; do
  python3 - "$f" <<'PY'
import csv, hashlib, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, h in enumerate(rows[0]) if not (h.endswith("_s") or "second" in h)]
print(hashlib.sha256(repr([[r[i] for i in keep] for r in rows]).encode()).hexdigest()[:16], sys.argv[1], len(rows) - 1, "rows")
PY
done
