#!/usr/bin/env bash
# The issue's comparison, one queue per core: each JOB runs after the last with the recipe of
# models/policies/humanoid_walk for both methods (PPO entropy 0.01; FlashNeRD: disagreement
# penalty 0.25, REAL_ENVS explored MuJoCo environments, default 20: under 10% of MuJoCo-only
# PPO's transitions). JOB: flashnerd:SEED, mujoco:SEED (BUDGET seconds of training clock,
# default one hour; the comparison uses BUDGET=7200) or mujoco_long:SEED (2.5 hours, TAG long,
# judged at two hours as well: that is its seed's MuJoCo-only run of the comparison). Start
# the long run when a session has 2.7 hours left: a run that a session's end stops resumes, but
# the long one must run uninterrupted. Two cores, one pair at a time:
# BUDGET=7200 experiments/humanoid/queue.sh OUT flashnerd:2 & BUDGET=7200
# experiments/humanoid/queue.sh OUT mujoco:2 & wait; the same for seed 3, and for seed 1
# flashnerd:1 beside mujoco_long:1. Then experiments/humanoid/summary.py OUT.
# Usage: experiments/humanoid/queue.sh OUT JOB...
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n 2,13p "$0" >&2; exit 2; }
OUT=$1
shift
export PPO_FLAGS="--entropy 0.01" PENALTY=0.25 REAL_ENVS="${REAL_ENVS:-20}"
for job; do
  seed=${job##*:}
  case ${job%%:*} in
    flashnerd) TAG=r20 experiments/humanoid/run.sh "$OUT" flashnerd "$seed" ;;
    mujoco) TAG=e01 experiments/humanoid/run.sh "$OUT" mujoco "$seed" ;;
    mujoco_long) TAG=long BUDGET=9000 EVAL_AT=7200 experiments/humanoid/run.sh "$OUT" mujoco "$seed" ;;
    *) echo "unknown job '$job': flashnerd:SEED, mujoco:SEED or mujoco_long:SEED" >&2; exit 2 ;;
  esac
done
