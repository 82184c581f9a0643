#!/usr/bin/env bash
# Cube reorientation through two-way coupling (paper IV-D): one frozen free-velocity model of
# the hand (data of hand16_alone with --free-dynamics), then PPO with identical settings on
# three backends -- mujoco (hand and cube analytic), two-way (the learned hand in MuJoCo's
# contact solve with the cube: the hand feels the cube) and one-way (the learned hand moves
# as if alone and is imposed on the cube) -- and every final policy run in MuJoCo: 512
# episodes with a separate seed, targets per episode with 95% bootstrap intervals, the share
# of episodes with two or more targets, the drop rate; a video of the three side by side
# (rows: two-way blue, mujoco red, one-way green). Every stage resumes where it stopped
# (run it again after an interruption); results under out/reorientation/VARIANT/.
#
# Usage: scripts/reorientation.sh [VARIANT] [ENVS] [ITERATIONS] [MODEL_UPDATES]
#   VARIANT reduced (default: yaw targets, 0.4 rad tolerance), rotate (each target 0.8 rad
#   further counter-clockwise about the vertical; the study of docs/RL.md, run with 1024 300)
#   or paper: keys of robots/tasks/cube_reorient.json. Defaults 1024 envs x 24 steps x 600 iterations (~15 M policy steps: about 40 min
#   on MuJoCo, 70 on two-way, 110 on one-way on 2 cores).
#   SEED=N (default 1) trains and evaluates another PPO seed (runs ppo_BACKEND_seedN; seed 1's
#   are ppo_BACKEND); BACKENDS="mujoco two-way" limits the backends (the video needs all three).
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT="${1:-reduced}"
ENVS="${2:-1024}"
ITERS="${3:-600}"
UPDATES="${4:-3000}"
TASK=cube-reorient; [ "$VARIANT" = paper ] || TASK="cube-reorient-$VARIANT"
FN=./build/src/cli/flashnerd
OUT="out/reorientation/$VARIANT"
SEED="${SEED:-1}"
BACKENDS="${BACKENDS:-mujoco two-way one-way}"
run_name() { [ "$SEED" = 1 ] && echo "ppo_$1" || echo "ppo_$1_seed$SEED"; }
newer() { local out=$1; shift; for f; do [ "$out" -nt "$f" ] || return 1; done; }  # out newer than every input
HAND=out/reorientation/hand  # the frozen hand model, shared by both variants
mkdir -p "$OUT" "$HAND"
[ -x "$FN" ] || ./scripts/build.sh build > /dev/null

# 1. the hand's free dynamics: data of the hand alone, a FlashNeRD free-velocity model
[ -f "$HAND/free.h5" ] || $FN gen --robot hand16_alone --free-dynamics --trajectories 3000 --steps 100 --seed 1 \
  --out "$HAND/free.h5" --json > "$HAND/gen.json"
if ! grep -q '"updates"' "$HAND/train.json" 2>/dev/null; then
  resume=""; [ -f "$HAND/model/checkpoint.pt" ] && resume="--resume"
  $FN train --data "$HAND/free.h5" --arch flashnerd --preset small --target free_velocity --updates "$UPDATES" \
    --seed 1 --precision auto --valid-every 500 $resume --out "$HAND/model" --json > "$HAND/train.json"
fi

# 2. PPO, identical settings and seed on each backend
for backend in $BACKENDS; do
  name=$(run_name $backend); run="$OUT/$name"
  grep -q "\"iterations\":$ITERS," "$run.json" 2>/dev/null && continue  # finished at this budget (a larger one resumes it)
  model=(); [ "$backend" = mujoco ] || model=(--model "$HAND/model")
  resume=(); [ -f "$run/checkpoint.pt" ] && resume=(--resume)
  # no entropy bonus (IsaacGymEnvs' in-hand settings): with rsl_rl's 0.005 the action std grew
  # from 1.0 to 1.3 in 220 iterations of a first MuJoCo run, past the [-1, 1] action range
  $FN ppo --task "$TASK" --backend $backend "${model[@]}" --envs "$ENVS" --iterations "$ITERS" --seed "$SEED" --entropy 0 \
    --eval-every 50 --eval-envs 64 --eval-steps 300 "${resume[@]}" --out "$run" \
    --json > "$run.json" 2> "$run.log"
done

# 3. every final policy in MuJoCo: 512 first episodes, another seed; and the policy of each
#    run's best MuJoCo validation (every 50 iterations, 64 episodes, the run's own seed), as
#    the paper selects its policies (run_best in the table)
for backend in $BACKENDS; do
  name=$(run_name $backend)
  for kind in policy best_policy; do
    [ -f "$OUT/$name/$kind/policy.json" ] || continue
    result="$OUT/policy_eval_${name#ppo_}$([ $kind = policy ] || echo _best).json"
    newer "$result" "$OUT/$name/$kind/policy.json" || $FN policy-eval --policy "$OUT/$name/$kind" --task "$TASK" \
      --envs 512 --steps 300 --seed 1001 --json > "$result"
  done
done
# 3b. is each coupled simulator faithful to a good policy? The MuJoCo-trained one run inside it,
#     same episodes: a simulator that scores it as MuJoCo does can teach it
[ -d "$OUT/ppo_mujoco/policy" ] && for backend in two-way one-way; do
  newer "$OUT/mujoco_policy_in_$backend.json" "$OUT/ppo_mujoco/policy/policy.json" || $FN policy-eval --policy "$OUT/ppo_mujoco/policy" --task "$TASK" \
    --backend $backend --model "$HAND/model" --envs 512 --steps 300 --seed 1001 --json > "$OUT/mujoco_policy_in_$backend.json"
done
# 4. the three policies side by side in MuJoCo (same start state): PNG strip and MP4
[ ! -f "$OUT/policy_eval_one-way.json" ] || [ ! -f "$OUT/policy_eval_two-way.json" ] || \
  newer "$OUT/video.json" "$OUT"/ppo_{mujoco,two-way,one-way}/policy/policy.json || \
  $FN policy-video --policy "$OUT/ppo_two-way/policy" --policy "$OUT/ppo_mujoco/policy" \
  --policy "$OUT/ppo_one-way/policy" --steps 300 --frames 8 --overwrite --out "$OUT/video" --json > "$OUT/video.json"
/usr/bin/python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def ci(r, k):
    return f"{r[k + '_ci95'][0]:.2f}-{r[k + '_ci95'][1]:.2f}"
def row(label, r):
    return (f"| {label} | {r['targets_per_episode']:.2f} ({ci(r, 'targets_per_episode')}) | "
            f"{r['share_two_or_more_targets']:.0%} | {r['drop_rate']:.2f} ({ci(r, 'drop_rate')}) |")
print("| trained on (run; _best: the policy of its best MuJoCo validation) | targets / episode (95% CI) | >= 2 targets | drop rate (95% CI) | PPO s / iteration | dynamics / contacts / policy / update s |")
print("|---|---:|---:|---:|---:|---|")
order = {"mujoco": 0, "two-way": 1, "one-way": 2}
runs = [os.path.basename(f)[len("policy_eval_"):-len(".json")] for f in glob.glob(f"{out}/policy_eval_*.json")]
for run in sorted(runs, key=lambda n: (order.get(n.split("_")[0], 3), n)):
    p = json.load(open(f"{out}/ppo_{run.removesuffix('_best')}.json"))
    it = p["iterations"]
    print(row(run, json.load(open(f"{out}/policy_eval_{run}.json"))["reorientation"]) +
          f" {p['seconds'] / it:.2f} | {p['seconds_dynamics'] / it:.2f} / {p['seconds_sensing'] / it:.2f} / "
          f"{p['seconds_policy'] / it:.2f} / {p['seconds_update'] / it:.2f} |")
print()
print("| the MuJoCo-trained policy (seed 1) run in | targets / episode (95% CI) | >= 2 targets | drop rate (95% CI) |")
print("|---|---:|---:|---:|")
for b, f in [("mujoco", "policy_eval_mujoco"), ("two-way", "mujoco_policy_in_two-way"), ("one-way", "mujoco_policy_in_one-way")]:
    if os.path.exists(f"{out}/{f}.json"):
        print(row(b, json.load(open(f"{out}/{f}.json"))["reorientation"]))
PY
