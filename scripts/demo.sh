#!/usr/bin/env bash
# The main job on the embedded default (CartPole), end to end, no downloads:
#   generate MuJoCo data -> train FlashNeRD and the NeRD baseline on the same data ->
#   evaluate recursive-rollout NRMSE against MuJoCo -> render a rollout next to MuJoCo ->
#   benchmark both engines -> use the learned simulator: PPO swings the cartpole up on the
#   shipped FlashNeRD model (models/cartpole) and, for reference, on MuJoCo; both policies are
#   judged in MuJoCo and filmed side by side -> summary table. Everything lands under out/demo/.
# Sized for ~15 minutes on a 2-core machine (after the build). Environment overrides: UPDATES,
# TRAIN_TRAJ, PRESET, PPO_ITERATIONS.
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib/cartpole_recipe.sh  # the data: cartpole_train, CARTPOLE_TEST, CARTPOLE_HORIZONS
./scripts/setup.sh
TARGETS=flashnerd ./scripts/build.sh build > /dev/null  # the executable only; scripts/test.sh builds the rest
FN=./build/src/cli/flashnerd
OUT=out/demo
UPDATES="${UPDATES:-2000}"
TRAIN_TRAJ="${TRAIN_TRAJ:-$CARTPOLE_TRAJECTORIES}"
PRESET="${PRESET:-small}"
PPO_ITERATIONS="${PPO_ITERATIONS:-200}"
# The fastest correct setting on this machine (docs/TRAINING.md): bf16 products where the CPU
# has native bf16 and a start-up measurement finds them faster, fp32 elsewhere; the two
# models train concurrently, one core and one BLAS thread each. TRAIN_FLAGS=--precision fp32
# reproduces the fp32 figures bit for bit.
TRAIN_FLAGS="${TRAIN_FLAGS:---precision auto}"
mkdir -p "$OUT"

echo "== 1/7 data: $TRAIN_TRAJ training trajectories and the held-out set (experiments/lib/cartpole_recipe.sh)"
cartpole_train "$TRAIN_TRAJ"
$FN gen "${CARTPOLE_TRAIN[@]}" --overwrite --out "$OUT/train.h5" --json > "$OUT/gen_train.json"
$FN gen "${CARTPOLE_TEST[@]}" --overwrite --out "$OUT/test.h5" --json > "$OUT/gen_test.json"

echo "== 2/7 training FlashNeRD and NeRD ($PRESET preset, $UPDATES updates each, same data and seed), one core each, $TRAIN_FLAGS"
pids=()
for arch in flashnerd nerd; do
  # shellcheck disable=SC2086
  OPENBLAS_NUM_THREADS=1 $FN train --data "$OUT/train.h5" --arch $arch --preset "$PRESET" --updates "$UPDATES" --seed 1 \
    $TRAIN_FLAGS --overwrite --out "$OUT/$arch" --json > "$OUT/train_$arch.json" 2> "$OUT/train_$arch.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || { echo "training failed; see $OUT/train_*.log"; exit 1; }; done
tail -n 2 "$OUT/train_flashnerd.log" "$OUT/train_nerd.log"

echo "== 3/7 rollout error against MuJoCo (H = $CARTPOLE_HORIZONS)"
$FN eval --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" \
  --horizons "$CARTPOLE_HORIZONS" --plots "$OUT/plots" --json > "$OUT/eval.json"

echo "== 4/7 rendering a 200-step rollout next to MuJoCo"
$FN rollout --model "$OUT/flashnerd" --model "$OUT/nerd" --data "$OUT/test.h5" --steps 200 \
  --overwrite --out "$OUT/rollout" --json > "$OUT/rollout.json"

echo "== 5/7 throughput of both engines"
$FN bench --arch both --model "$OUT/flashnerd" --batch 1,16,256,4096 \
  --json > "$OUT/bench.json"

echo "== 6/7 the learned simulator in use: PPO swing-up ($PPO_ITERATIONS iterations) on the shipped FlashNeRD model and on MuJoCo, one core each"
pids=()
for backend in flashnerd mujoco; do
  model=()
  [ "$backend" = flashnerd ] && model=(--model models/cartpole)
  $FN ppo --task cartpole-swingup --backend $backend "${model[@]}" --envs 512 --steps-per-env 32 \
    --iterations "$PPO_ITERATIONS" --hidden 64,64 --entropy 0.01 --seed 1 --threads 1 --quiet --overwrite \
    --out "$OUT/ppo_$backend" --json > "$OUT/ppo_$backend.json" 2> "$OUT/ppo_$backend.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || { echo "PPO failed; see $OUT/ppo_*.log"; exit 1; }; done
for backend in flashnerd mujoco; do  # both judged in MuJoCo: 256 environments, one episode each
  $FN policy-eval --policy "$OUT/ppo_$backend/policy" --backend mujoco --envs 256 --steps 300 \
    --json > "$OUT/policy_eval_$backend.json"
done

echo "== 7/7 both policies in MuJoCo, side by side (strip and MP4)"
$FN policy-video --policy "$OUT/ppo_flashnerd/policy" --policy "$OUT/ppo_mujoco/policy" --steps 300 --frames 8 \
  --overwrite --out "$OUT/policies" --json > "$OUT/policy_video.json"

python3 scripts/summarize_demo.py "$OUT"
