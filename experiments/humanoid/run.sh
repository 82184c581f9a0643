#!/usr/bin/env bash
# The humanoid at equal PPO wall time (docs/results/HUMANOID.md): PPO on humanoid-velocity with
# MuJoCo alone, or on the shipped humanoid ensemble with the trust recipe (every step's reward
# minus PENALTY x the members' disagreement, 24 MuJoCo environments explored by the policy
# every iteration that start half the imagined episodes, every member fine-tuned on the explored
# windows every 25 iterations). One thread per run, so two runs share the 2 cores. A run stops
# at the first checkpoint whose training clock (policy.json's training.seconds, evaluations
# excluded) reaches BUDGET seconds; every checkpoint's policy is kept in RUN/snapshots/ITERATION
# for the curves. Then the final policy is judged in MuJoCo: policy-eval, 256 envs x 1000 steps,
# seed 7, with forward commands of 0.5 m/s among the fixed ones.
#
# TAG names a run apart from the hour-long ones (TAG=long BUDGET=9000 for MuJoCo's long run);
# PPO_FLAGS adds PPO options (--entropy 0.01). EVAL_AT=SECONDS judges the run's policy at that
# clock as well (RUN/atSECONDS, policy_eval_NAME_atSECONDS.json): the long run at two hours is
# its seed's MuJoCo-only run of the two-hour comparison, the same flags and seed.
#
# Usage: [BUDGET=3600] [TAG=...] [EVAL_AT=...] [PENALTY=1] [REAL_ENVS=24] [MODEL=models/humanoid_ensemble] [TRUST_FLAGS=...] [PPO_FLAGS=...]
#        experiments/humanoid/run.sh OUT mujoco|flashnerd SEED
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 3 ] || { sed -n 2,16p "$0" >&2; exit 2; }
OUT=$1 BACKEND=$2 SEED=$3
BUDGET="${BUDGET:-3600}"
MODEL="${MODEL:-models/humanoid_ensemble}"
. experiments/lib/pipeline.sh
NAME="${BACKEND}${TAG:+_$TAG}_seed$SEED"
RUN="ppo_$NAME"
DIR="$OUT/$RUN"

ppo_flags=(--task humanoid-velocity --envs 1024 --steps-per-env 24 --iterations 1000000 --threads 1
           --update-threads 1 --fused-update --penalty-ramp 300 --checkpoint-every 5
           --eval-every 50 --eval-envs 64 --eval-steps 500 --seed "$SEED" --quiet)
read -ra extra <<< "${PPO_FLAGS:-}"
ppo_flags+=("${extra[@]}")
case $BACKEND in
  mujoco) ppo_flags+=(--backend mujoco) ;;
  flashnerd)
    read -ra trust <<< "${TRUST_FLAGS:---uncertainty-penalty ${PENALTY:-1} --real-envs ${REAL_ENVS:-24} --real-steps 24 \
      --branch-fraction 0.5 --branch-steps 100 --refresh-every 25 --refresh-updates 250 --refresh-precision bf16}"
    ppo_flags+=(--backend flashnerd --model "$MODEL" "${trust[@]}") ;;
  *) echo "backend must be mujoco or flashnerd, got '$BACKEND'" >&2; exit 2 ;;
esac

# policy_field DIR KEY: a number from DIR/policy.json's training record
policy_field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['training'][sys.argv[2]])" "$1/policy.json" "$2"; }

# reaches SECONDS LIMIT: whether a training clock has reached a limit
reaches() { /usr/bin/python3 -c "import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))" "$1" "$2"; }

# snapshot_iterations: the iterations whose policies RUN/snapshots keeps, in order
snapshot_iterations() { ls "$DIR/snapshots" | grep -E '^[0-9]+$' | sort -n; }

# keep IT NAME: snapshot IT's policy as RUN/NAME (through a temporary name)
keep() { cp -r "$DIR/snapshots/$1" "$DIR/$2.tmp" && mv "$DIR/$2.tmp" "$DIR/$2"; }

# snapshot: copy the run's policy once its files have settled; prints its training seconds
snapshot() {
  local it
  [ -f "$DIR/policy/policy.json" ] || return 1
  [ -z "$(find "$DIR/policy" -newermt '-2 seconds' -type f)" ] || return 1
  it=$(policy_field "$DIR/policy" iterations) || return 1
  [ -d "$DIR/snapshots/$it" ] || { mkdir -p "$DIR/snapshots/$it.tmp" && cp "$DIR/policy/"* "$DIR/snapshots/$it.tmp/" &&
                                   mv "$DIR/snapshots/$it.tmp" "$DIR/snapshots/$it"; }
  policy_field "$DIR/snapshots/$it" seconds
}

if [ ! -f "$DIR/final/policy.json" ]; then
  resume=()
  [ -f "$DIR/checkpoint.pt" ] && resume=(--resume)
  mkdir -p "$DIR"
  "$FN" ppo "${ppo_flags[@]}" "${resume[@]}" --out "$DIR" > "$DIR.ppo.json" 2> "$DIR.log" &
  pid=$!
  seen=
  while kill -0 "$pid" 2> /dev/null; do
    sleep 1
    stamp=$(stat -c %Y "$DIR/policy/policy.json" 2> /dev/null) || continue
    [ "$stamp" != "$seen" ] || continue
    seconds=$(snapshot) || continue
    seen=$stamp
    if reaches "$seconds" "$BUDGET"; then
      kill "$pid"; wait "$pid" || true
      keep "$(snapshot_iterations | tail -1)" final
    fi
  done
  [ -f "$DIR/final/policy.json" ] || { echo "$RUN stopped before its budget: see $DIR.log" >&2; exit 1; }
fi
# evaluate POLICY JSON: the issue's judgement of a policy in MuJoCo
evaluate() {
  step "$2" -- "$FN" policy-eval --policy "$1" --envs 256 --steps 1000 --seed 7 --threads 1 \
    --commands "0.5,0,0;1,0,0;-0.5,0,0;0,0.5,0;0,0,1" --json
}
evaluate "$DIR/final" "$OUT/policy_eval_$NAME.json"
# the run's policy at a shorter clock: the first snapshot whose training clock reaches EVAL_AT
if [ -n "${EVAL_AT:-}" ] && [ ! -f "$DIR/at$EVAL_AT/policy.json" ]; then
  for it in $(snapshot_iterations); do
    reaches "$(policy_field "$DIR/snapshots/$it" seconds)" "$EVAL_AT" && { keep "$it" "at$EVAL_AT"; break; }
  done
fi
[ -z "${EVAL_AT:-}" ] || evaluate "$DIR/at$EVAL_AT" "$OUT/policy_eval_${NAME}_at$EVAL_AT.json"
