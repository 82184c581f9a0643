#!/usr/bin/env bash
# The cartpole swing-up with the Control Suite's reward (docs/RESULTS.md, first section): the
# demo's PPO recipe (512 envs x 32 steps x 200 iterations, 64x64, entropy 0.01) for SEEDS on
# the shipped FlashNeRD model and on MuJoCo, two runs at once (one core each), every policy
# judged in MuJoCo by policy-eval (256 envs x 300 steps) and by how many of its episodes hold
# the pole upright over their last 100 steps; then examples/python/ppo_cartpole.py, the
# PyTorch PPO written against the Python API, on MuJoCo for the same seeds. Stages resume.
# Usage: experiments/swingup/run.sh [SEEDS]   (default "1 2 3")
set -euo pipefail
cd "$(dirname "$0")/../.."
SEEDS="${1:-1 2 3}"
OUT="${OUT:-out/swingup}"
. experiments/lib/pipeline.sh
export PYTHONPATH="$PWD/build/python"
PY=/usr/bin/python3
lscpu | grep "Model name" > "$OUT/cpu.txt"

ppo() {  # ppo SEED BACKEND
  local model=()
  [ "$2" = flashnerd ] && model=(--model models/cartpole)
  step "$OUT/ppo_$2_$1.json" "$OUT/ppo_$2_$1.log" -- "$FN" ppo --task cartpole-swingup --backend "$2" "${model[@]}" \
    --envs 512 --steps-per-env 32 --iterations 200 --hidden 64,64 --entropy 0.01 --seed "$1" --threads 1 \
    --quiet --overwrite --out "$OUT/ppo_$2_$1" --json
  step "$OUT/eval_$2_$1.json" -- "$FN" policy-eval --policy "$OUT/ppo_$2_$1/policy" --backend mujoco --envs 256 --steps 300 --json
  step "$OUT/upright_$2_$1.json" -- $PY experiments/swingup/upright.py "$OUT/ppo_$2_$1/policy"
}
for seed in $SEEDS; do
  ppo "$seed" flashnerd &
  ppo "$seed" mujoco
  wait
done
python_ppo() {  # python_ppo SEED: the PyTorch example on MuJoCo, its policy judged as above
  step "$OUT/ppo_python_$1.json" "$OUT/ppo_python_$1.log" -- $PY examples/python/ppo_cartpole.py \
    --task cartpole-swingup --backend mujoco --envs 512 --steps 32 --iterations 200 --entropy 0.01 --seed "$1" \
    --export "$OUT/ppo_python_$1/policy" --json
  step "$OUT/eval_python_$1.json" -- "$FN" policy-eval --policy "$OUT/ppo_python_$1/policy" --backend mujoco --envs 256 --steps 300 --json
  step "$OUT/upright_python_$1.json" -- $PY experiments/swingup/upright.py "$OUT/ppo_python_$1/policy"
}
set -- $SEEDS
while [ $# -gt 0 ]; do  # two at once, one core each
  python_ppo "$1" &
  [ $# -gt 1 ] && python_ppo "$2"
  wait
  shift; [ $# -gt 0 ] && shift
done
$PY experiments/swingup/summary.py "$OUT"
