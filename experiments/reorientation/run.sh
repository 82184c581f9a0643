#!/usr/bin/env bash
# Cube reorientation through two-way coupling (paper IV-D): one frozen free-velocity model of
# the hand (data of hand16_alone with --free-dynamics), then PPO with identical settings on
# three backends -- mujoco (hand and cube analytic), two-way (the learned hand in MuJoCo's
# contact solve with the cube: the hand feels the cube) and one-way (the learned hand moves
# as if alone and is imposed on the cube) -- and every final policy run in MuJoCo: 512
# episodes with a separate seed, targets per episode with 95% bootstrap intervals, the share
# of episodes with two or more targets, the drop rate; a video of the three side by side
# (rows: two-way blue, mujoco red, one-way green). Every stage resumes where it stopped
# (run it again after an interruption); results under out/reorientation/VARIANT/, the table by
# experiments/reorientation/summary.py, learning curves by experiments/reorientation/curves.py.
#
# Usage: experiments/reorientation/run.sh [VARIANT] [ENVS] [ITERATIONS] [MODEL_UPDATES]
#   VARIANT reduced (default: yaw targets, 0.4 rad tolerance), rotate (each target 0.8 rad
#   further counter-clockwise about the vertical; the study of docs/results/REORIENTATION.md, run with 1024 300)
#   or paper: the spec files robots/tasks/cube-reorient*.json. Defaults 1024 envs x 24 steps x 600 iterations (~15 M policy steps: about 40 min
#   on MuJoCo, 70 on two-way, 110 on one-way on 2 cores).
#   SEED=N (default 1) trains and evaluates another PPO seed (runs ppo_BACKEND_seedN; seed 1's
#   are ppo_BACKEND); BACKENDS="mujoco two-way" limits the backends (the video needs all three).
set -euo pipefail
cd "$(dirname "$0")/../.."
VARIANT="${1:-reduced}"
ENVS="${2:-1024}"
ITERS="${3:-600}"
UPDATES="${4:-3000}"
TASK=cube-reorient; [ "$VARIANT" = paper ] || TASK="cube-reorient-$VARIANT"
OUT="out/reorientation/$VARIANT"
SEED="${SEED:-1}"
BACKENDS="${BACKENDS:-mujoco two-way one-way}"
run_name() { [ "$SEED" = 1 ] && echo "ppo_$1" || echo "ppo_$1_seed$SEED"; }
HAND=out/reorientation/hand  # the frozen hand model, shared by both variants
mkdir -p "$HAND"
. experiments/lib/pipeline.sh

# 1. the hand's free dynamics: data of the hand alone, a FlashNeRD free-velocity model
fn_gen "$HAND/free.h5" --robot hand16_alone --free-dynamics --trajectories 3000 --steps 100 --seed 1
fn_train "$HAND/train.json" "$HAND/model" --data "$HAND/free.h5" --arch flashnerd --preset small --target free_velocity \
  --updates "$UPDATES" --seed 1 --precision auto --valid-every 500

# 2. PPO, identical settings and seed on each backend
for backend in $BACKENDS; do
  name=$(run_name "$backend"); run="$OUT/$name"
  # a run finished at another budget is continued to this one
  grep -qs "\"iterations\":$ITERS," "$run.json" || rm -f "$run.json"
  model=(); [ "$backend" = mujoco ] || model=(--model "$HAND/model")
  # no entropy bonus (IsaacGymEnvs' in-hand settings): with rsl_rl's 0.005 the action std grew
  # from 1.0 to 1.3 in 220 iterations of a first MuJoCo run, past the [-1, 1] action range
  fn_ppo "$run.json" "$run" --task "$TASK" --backend "$backend" "${model[@]}" --envs "$ENVS" --iterations "$ITERS" \
    --seed "$SEED" --entropy 0 --eval-every 50 --eval-envs 64 --eval-steps 300
done

# 3. every final policy in MuJoCo: 512 first episodes, another seed; and the policy of each
#    run's best MuJoCo validation (every 50 iterations, 64 episodes, the run's own seed), as
#    the paper selects its policies (run_best in the table)
for backend in $BACKENDS; do
  name=$(run_name "$backend")
  for kind in policy best_policy; do
    policy="$OUT/$name/$kind"
    [ -f "$policy/policy.json" ] || continue  # no best policy before the first validation
    result="$OUT/policy_eval_${name#ppo_}$([ $kind = policy ] || echo _best).json"
    invalidate "$result" "$policy/policy.json"
    step "$result" -- "$FN" policy-eval --policy "$policy" --task "$TASK" --envs 512 --steps 300 --seed 1001 --json
  done
done
# 3b. is each coupled simulator faithful to a good policy? The MuJoCo-trained one run inside it,
#     same episodes: a simulator that scores it as MuJoCo does can teach it
if [ -d "$OUT/ppo_mujoco/policy" ]; then
  for backend in two-way one-way; do
    result="$OUT/mujoco_policy_in_$backend.json"
    invalidate "$result" "$OUT/ppo_mujoco/policy/policy.json"
    step "$result" -- "$FN" policy-eval --policy "$OUT/ppo_mujoco/policy" --task "$TASK" --backend "$backend" \
      --model "$HAND/model" --envs 512 --steps 300 --seed 1001 --json
  done
fi
# 4. the three policies side by side in MuJoCo (same start state): PNG strip and MP4
if [ -f "$OUT/policy_eval_one-way.json" ] && [ -f "$OUT/policy_eval_two-way.json" ]; then
  invalidate "$OUT/video.json" "$OUT"/ppo_{mujoco,two-way,one-way}/policy/policy.json
  step "$OUT/video.json" -- "$FN" policy-video --policy "$OUT/ppo_two-way/policy" --policy "$OUT/ppo_mujoco/policy" \
    --policy "$OUT/ppo_one-way/policy" --steps 300 --frames 8 --overwrite --out "$OUT/video" --json
fi
fn_summary experiments/reorientation/summary.py "$OUT"
