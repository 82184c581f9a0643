#!/usr/bin/env bash
# Policy learning on the learned simulator (paper IV-B) for the quadruped: dynamics data by
# the paper's recipe, a parameter-matched FlashNeRD / NeRD pair trained on it, then PPO on
# MuJoCo, FlashNeRD and NeRD with the mean policy evaluated in MuJoCo every few iterations
# (off the training clock), and each final policy evaluated in MuJoCo (256 envs x 1000
# steps) with its velocity tracking. Every stage resumes where it stopped (run it again
# after an interruption); results under out/locomotion/, summary by
# experiments/locomotion/summary.py.
#
# Then ROUNDS on-policy rounds per model (stage 5).
#
# Usage: [ROUNDS=2] [EVAL_EVERY=10] [PPO_FLAGS=...] experiments/locomotion/run.sh [ENVS] [ITERATIONS] [UPDATES] [TRAJECTORIES]
#   defaults 1024 400 60000 20000: 2 M transitions of data (2 minutes), the paper's 60 000
#   updates per model (about 35 minutes on one core each, both at once); PPO runs
#   9.8 M transitions per backend (about 25 minutes on MuJoCo with 2 cores), the budget at
#   which the shared recipe first made the MuJoCo baseline walk (docs/results/POLICY_LEARNING.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
ENVS="${1:-1024}"
ITERS="${2:-400}"
UPDATES="${3:-60000}"
TRAJ="${4:-20000}"
ROUNDS="${ROUNDS:-2}"
# bf16 products where the CPU has them (docs/TRAINING.md); TRAIN_FLAGS=--precision fp32 for bit-reproducible models
read -ra TRAIN_FLAGS <<< "${TRAIN_FLAGS:---precision auto}"
OUT="${OUT:-out/locomotion}"  # OUT=dir for a separate run
. experiments/lib/pipeline.sh
. experiments/locomotion/recipe.sh  # data, PPO settings and evaluation shared with the other locomotion scripts

# 1. data: random base poses, velocities and joints; i.i.d. joint-target offsets within
#    +-0.75 rad around the default pose resampled every step (AR(1) with coefficient 0),
#    100 steps, falls kept (invalid transitions masked), 4 foot probes
fn_gen "$OUT/train.h5" --robot quadruped --steps 100 --contacts off "${LOCOMOTION_COMMANDS[@]}" --trajectories "$TRAJ" --seed 1

# 2. models: same data, preset, updates and seed; one core and one BLAS thread each, concurrently
fn_train_pair "$OUT" --data "$OUT/train.h5" --preset small --updates "$UPDATES" --seed 1 "${TRAIN_FLAGS[@]}" --valid-every 1000

# 3. PPO on each backend, same seed and settings
locomotion_ppo "$OUT" ppo_mujoco 1 mujoco
for arch in flashnerd nerd; do locomotion_ppo "$OUT" "ppo_$arch" 1 "$arch" "$OUT/$arch"; done

# 4. every final policy in MuJoCo
for backend in mujoco flashnerd nerd; do locomotion_evaluate "$OUT" "ppo_$backend"; done

# 5. on-policy rounds against model exploitation (DAgger; ROUNDS=0 skips them): the policy
#    trained on a model runs in MuJoCo (action noise of one policy std), the states it visits
#    under the commands it sends are recorded, appended to that model's data, the model is
#    finetuned on the mixture (a quarter of the updates), and PPO trains a new policy on it
#    with the same settings.
for arch in flashnerd nerd; do
  base="$OUT/$arch"; data="$OUT/train.h5"; run="ppo_$arch"
  for r in $(seq 1 "$ROUNDS"); do
    tag="${arch}_r$r"
    fn_gen "$OUT/onpolicy_$tag.h5" --robot quadruped --policy "$OUT/$run/policy" --trajectories $((TRAJ / 2)) \
      --steps 100 --seed $((100 + r)) --contacts off
    # --overwrite: the merge is cheap, and an earlier run may have left the file without its summary
    step "$OUT/merge_$tag.json" -- "$FN" merge --concat "$data" "$OUT/onpolicy_$tag.h5" --overwrite --out "$OUT/mix_$tag.h5" --json
    fn_finetune "$OUT/finetune_$tag.json" "$OUT/$tag" --model "$base" --data "$OUT/mix_$tag.h5" --updates $((UPDATES / 4)) \
      --seed 1 "${TRAIN_FLAGS[@]}" --valid-every 1000
    locomotion_ppo "$OUT" "ppo_$tag" 1 "$arch" "$OUT/$tag"
    locomotion_evaluate "$OUT" "ppo_$tag"
    base="$OUT/$tag"; data="$OUT/mix_$tag.h5"; run="ppo_$tag"
  done
done
fn_summary experiments/locomotion/summary.py "$OUT"
