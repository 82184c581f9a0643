# shellcheck shell=bash
# The quadruped's shared recipe (paper IV-B), sourced by the locomotion pipelines after
# experiments/lib/pipeline.sh so every run uses the same data, the same PPO settings and the
# same evaluation. The functions use the caller's ENVS and ITERS.
# Data: i.i.d. joint-target offsets within +-0.75 rad around the default pose resampled every
# step (AR(1) with coefficient 0); the scripts add --robot quadruped --steps 100 --contacts off
# (fixed foot probes).
# shellcheck disable=SC2034  # used by the scripts that source this file
LOCOMOTION_COMMANDS=(--command-process ar1 --ar1-coefficient 0 --ar1-amplitude 0.75)
# PPO, every backend (docs/results/POLICY_LEARNING.md, "The MuJoCo baseline: why the reward recipe"): shaping terms ramped
# in over 300 iterations, feet air time off (it only penalizes the short swings of
# exploration); policy-eval applies the policy's recorded reward settings. PPO_FLAGS=...
# replaces them for an experiment.
read -ra LOCOMOTION_PPO_FLAGS <<< "${PPO_FLAGS:---penalty-ramp 300 --reward-scale feet_air_time=0}"

# locomotion_ppo OUT RUN SEED BACKEND [MODEL [PPO_ARGS...]]: PPO with the recipe into OUT/RUN
# (ENVS x 24 steps x ITERS, the mean policy evaluated in MuJoCo every EVAL_EVERY iterations,
# default 10), PPO_ARGS added; resumes a begun run, skips a finished one
locomotion_ppo() {
  local out=$1 run=$2 seed=$3 backend=$4 model=()
  [ $# -ge 5 ] && model=(--model "$5" "${@:6}")
  fn_ppo "$out/$run.json" "$out/$run" --task quadruped-velocity --backend "$backend" "${model[@]}" --envs "$ENVS" \
    --iterations "$ITERS" "${LOCOMOTION_PPO_FLAGS[@]}" --eval-every "${EVAL_EVERY:-10}" --eval-envs 64 --eval-steps 500 \
    --seed "$seed"
}

# locomotion_evaluate OUT RUN: RUN's final policy in MuJoCo (256 envs x 1000 steps, mean
# actions, seed 7) into OUT/policy_eval_NAME.json, NAME being RUN without "ppo_"
locomotion_evaluate() {
  step "$1/policy_eval_${2#ppo_}.json" -- "$FN" policy-eval --policy "$1/$2/policy" --envs 256 --steps 1000 --seed 7 --json
}
