#!/usr/bin/env bash
# Policy learning on the learned simulator (paper IV-B) for the quadruped: dynamics data by
# the paper's recipe, a parameter-matched FlashNeRD / NeRD pair trained on it, then PPO on
# MuJoCo, FlashNeRD and NeRD with the mean policy evaluated in MuJoCo every few iterations
# (off the training clock), and each final policy evaluated in MuJoCo (256 envs x 1000
# steps) with its velocity tracking. Every stage resumes where it stopped (run it again
# after an interruption); results under out/locomotion/, summary by
# scripts/locomotion_summary.py.
#
# Then ROUNDS on-policy rounds per model (stage 5).
#
# Usage: [ROUNDS=2] [EVAL_EVERY=10] [PPO_FLAGS=...] scripts/locomotion.sh [ENVS] [ITERATIONS] [UPDATES] [TRAJECTORIES]
#   defaults 1024 400 60000 20000: 2 M transitions of data (2 minutes), the paper's 60 000
#   updates per model (about 35 minutes on one core each, both at once); PPO runs
#   9.8 M transitions per backend (about 25 minutes on MuJoCo with 2 cores), the budget at
#   which the shared recipe first made the MuJoCo baseline walk (docs/RL.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ENVS="${1:-1024}"
ITERS="${2:-400}"
UPDATES="${3:-60000}"
TRAJ="${4:-20000}"
ROUNDS="${ROUNDS:-2}"
# bf16 products where the CPU has them (docs/TRAINING.md); TRAIN_FLAGS=--precision fp32 for bit-reproducible models
TRAIN_FLAGS="${TRAIN_FLAGS:---precision auto}"
FN=./build/src/cli/flashnerd
. scripts/locomotion_recipe.sh  # data, PPO settings and evaluation shared with the other locomotion scripts
OUT="${OUT:-out/locomotion}"  # OUT=dir for a separate run
mkdir -p "$OUT"
[ -x "$FN" ] || ./scripts/build.sh build > /dev/null

# 1. data: random base poses, velocities and joints; i.i.d. joint-target offsets within
#    +-0.75 rad around the default pose resampled every step (AR(1) with coefficient 0),
#    100 steps, falls kept (invalid transitions masked), 4 foot probes
[ -f "$OUT/train.h5" ] || $FN gen --robot quadruped --steps 100 --contacts off "${LOCOMOTION_COMMANDS[@]}" --trajectories "$TRAJ" --seed 1 \
  --out "$OUT/train.h5" --json > "$OUT/gen_train.json"

# 2. models: same data, preset, updates and seed; one core and one BLAS thread each, concurrently
pids=()
for arch in flashnerd nerd; do
  if ! grep -q '"updates"' "$OUT/train_$arch.json" 2>/dev/null; then  # not finished yet
    resume=""
    [ -f "$OUT/$arch/checkpoint.pt" ] && resume="--resume"
    OPENBLAS_NUM_THREADS=1 $FN train --data "$OUT/train.h5" --arch $arch --preset small --updates "$UPDATES" --seed 1 \
      $TRAIN_FLAGS --valid-every 1000 $resume --out "$OUT/$arch" --json > "$OUT/train_$arch.json" 2> "$OUT/train_$arch.log" &
    pids+=($!)
  fi
done
for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid"; done

# 3. PPO on each backend, same seed and settings
locomotion_ppo "$OUT" ppo_mujoco 1 mujoco
for arch in flashnerd nerd; do locomotion_ppo "$OUT" "ppo_$arch" 1 $arch "$OUT/$arch"; done

# 4. every final policy in MuJoCo
for backend in mujoco flashnerd nerd; do locomotion_evaluate "$OUT" "ppo_$backend"; done

# 5. on-policy rounds against model exploitation (DAgger; ROUNDS=0 skips them): the policy
#    trained on a model runs in MuJoCo (action noise of one policy std), the states it visits
#    under the commands it sends are recorded, appended to that model's data, the model is
#    finetuned on the mixture (a quarter of the updates), and PPO trains a new policy on it
#    with the same settings.
for arch in flashnerd nerd; do
  model="$OUT/$arch"; data="$OUT/train.h5"; run="ppo_$arch"
  for r in $(seq 1 "$ROUNDS"); do
    tag="${arch}_r$r"
    [ -f "$OUT/onpolicy_$tag.h5" ] || $FN gen --robot quadruped --policy "$OUT/$run/policy" --trajectories $((TRAJ / 2)) \
      --steps 100 --seed $((100 + r)) --contacts off --out "$OUT/onpolicy_$tag.h5" --json > "$OUT/gen_onpolicy_$tag.json"
    [ -f "$OUT/mix_$tag.h5" ] || $FN merge --concat "$data" "$OUT/onpolicy_$tag.h5" --out "$OUT/mix_$tag.h5" > /dev/null
    if ! grep -q '"updates"' "$OUT/finetune_$tag.json" 2>/dev/null; then
      resume=""; [ -f "$OUT/$tag/checkpoint.pt" ] && resume="--resume"
      $FN finetune --model "$model" --data "$OUT/mix_$tag.h5" --updates $((UPDATES / 4)) --seed 1 $TRAIN_FLAGS --valid-every 1000 \
        $resume --out "$OUT/$tag" --json > "$OUT/finetune_$tag.json" 2> "$OUT/finetune_$tag.log"
    fi
    locomotion_ppo "$OUT" "ppo_$tag" 1 $arch "$OUT/$tag"
    locomotion_evaluate "$OUT" "ppo_$tag"
    model="$OUT/$tag"; data="$OUT/mix_$tag.h5"; run="ppo_$tag"
  done
done
/usr/bin/python3 scripts/locomotion_summary.py "$OUT"  # system Python: numpy, matplotlib
