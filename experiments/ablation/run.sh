#!/usr/bin/env bash
# The paper's CartPole ablations (IV-A): FlashNeRD's FFN gate activation and norm varied one
# at a time around the default (SwiGLU + RMSNorm), on one dataset with one budget and the
# same seeds; each variant evaluated at H = 1, 15, 100, 200, 500 in fp32 and, where the CPU
# has native bf16, in bf16 inference, and benchmarked at B = 16 and 4096 in the same run.
# Every stage resumes where it stopped (run it again after an interruption); results under
# out/ablation/, summary table and plot by experiments/ablation/summary.py.
#
# Usage: [BENCH=0] experiments/ablation/run.sh [UPDATES] [SEEDS] [TRAJECTORIES]
#   defaults 2000 (the demo's budget) "1 2 3" 4000 (the demo's data); BENCH=0 skips the
#   throughput stage (run it again later on a quiet machine: finished stages are skipped).
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/lib/cartpole_recipe.sh
UPDATES="${1:-2000}"
SEEDS="${2:-1 2 3}"
TRAJ="${3:-$CARTPOLE_TRAJECTORIES}"
OUT="${OUT:-out/ablation}"
. experiments/lib/pipeline.sh
VARIANTS="swiglu:rmsnorm geglu:rmsnorm reglu:rmsnorm glu:rmsnorm mishglu:rmsnorm swiglu:layernorm"

# 1. data: the demo's training set; held-out trajectories long enough for H = 500 after
#    the model's history
cartpole_train "$TRAJ"
fn_gen "$OUT/train.h5" "${CARTPOLE_TRAIN[@]}"
fn_gen "$OUT/test.h5" --robot cartpole --trajectories 256 --steps 520 --seed 2

# bf16 inference where the CPU has it natively (AVX-512-BF16 or AMX)
precisions="fp32"
$FN info --json | grep -q '"kernels_bf16"' && precisions="fp32 bf16"

# 2. every variant and seed: train (one core each, two at a time), evaluate
run_variant() {  # act norm seed
  local dir="$OUT/$1-$2-s$3" p
  fn_train "$dir.train.json" "$dir" --data "$OUT/train.h5" --arch flashnerd --preset small --activation "$1" --norm "$2" \
    --updates "$UPDATES" --seed "$3" --valid-every 500 --quiet
  for p in $precisions; do
    fn_eval "$dir.eval_$p.json" --model "$dir" --data "$OUT/test.h5" --precision "$p" --horizons 1,15,100,200,500 --threads 1
  done
}
jobs_running=0
for seed in $SEEDS; do
  for v in $VARIANTS; do
    run_variant "${v%%:*}" "${v##*:}" "$seed" &
    jobs_running=$((jobs_running + 1))
    if [ "$jobs_running" -ge 2 ]; then wait -n; jobs_running=$((jobs_running - 1)); fi
  done
done
wait

# 3. throughput of every variant (seed 1's weights), one at a time on the quiet machine
[ "${BENCH:-1}" = 0 ] && { echo "BENCH=0: throughput stage skipped"; exit 0; }
for v in $VARIANTS; do
  dir="$OUT/${v%%:*}-${v##*:}-s1"
  fn_bench "$dir.bench.json" --arch flashnerd --model "$dir" --batch 16,4096 --precision all
done
fn_summary experiments/ablation/summary.py "$OUT"
