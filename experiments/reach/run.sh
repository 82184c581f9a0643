#!/usr/bin/env bash
# arm7-reach from its spec: PPO on MuJoCo or on a learned arm7 model, the policy judged in MuJoCo
# by policy-eval's success rate (targets reached and held within 5 cm, 256 episodes of 8 s).
#   experiments/reach/run.sh OUT SEED [MODEL]   # MODEL: a flashnerd fit's model/ (none: MuJoCo)
# The model: flashnerd fit --robot arm7 --task arm7-reach --members 2 --jobs 1 --budget 45m --out FIT
# Summary of many runs: python3 experiments/reach/summary.py OUT...
set -euo pipefail
OUT="${1:?run directory}"
SEED="${2:?PPO seed}"
MODEL="${3:-}"
FN="${FLASHNERD:-build/src/cli/flashnerd}"
BACKEND=(--backend mujoco)
[ -n "$MODEL" ] && BACKEND=(--backend flashnerd --model "$MODEL")
if [ ! -f "$OUT/ppo.json" ]; then  # written when the run finished; a killed run resumes
  RESUME=()
  [ -f "$OUT/checkpoint.pt" ] && RESUME=(--resume)
  "$FN" ppo --task arm7-reach "${BACKEND[@]}" --envs 1024 --iterations 300 --threads 1 --seed "$SEED" \
    --out "$OUT" "${RESUME[@]}" --quiet --json > "$OUT.ppo.json.tmp"
  mv "$OUT.ppo.json.tmp" "$OUT/ppo.json"
fi
"$FN" policy-eval --policy "$OUT/policy" --envs 256 --steps 240 --threads 1 --json > "$OUT/eval.json.tmp"
mv "$OUT/eval.json.tmp" "$OUT/eval.json"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); r=s['success_success']; print(sys.argv[1], 'return', round(s['episode_reward'],3), 'success', r['rate'], r['rate_ci95'])" "$OUT/eval.json"
