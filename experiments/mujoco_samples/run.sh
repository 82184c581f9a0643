#!/usr/bin/env bash
# Runs `flashnerd gen` (small: 8 trajectories of 20 steps) on every MuJoCo sample model of
# Debian's libmujoco-samples (/usr/share/mujoco/model), and with --train also a tiny train
# and a 1-step eval, with --fit a tiny `flashnerd fit` (an ensemble of 2 tiny members, its
# evaluation and calibration), then prints one table row per model: what gen records, how
# many parts it warns about, or the first words of the refusal. docs/ROBOTS.md quotes its output.
# Usage: experiments/mujoco_samples/run.sh [--train | --fit] [PATH/TO/flashnerd]
# Needs: apt-get install libmujoco-samples
set -uo pipefail
TRAIN=0 FIT=0
if [ "${1:-}" = "--train" ]; then TRAIN=1; shift; fi
if [ "${1:-}" = "--fit" ]; then FIT=1; shift; fi
FN="${1:-$(dirname "$0")/../../build/src/cli/flashnerd}"
MODELS=/usr/share/mujoco/model
[ -d "$MODELS" ] || { echo "no $MODELS: apt-get install libmujoco-samples"; exit 1; }
[ -x "$FN" ] || { echo "no flashnerd at $FN: build first (scripts/build.sh)"; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# model file [extra gen options...]: one table row
row() {
  local file="$1"; shift
  local name
  name="${file#"$MODELS"/}"
  local label="$name${*:+ $*}"
  rm -f "$OUT/d.h5"  # gen never replaces a dataset
  if ! "$FN" gen --mjcf "$MODELS/$file" "$@" --trajectories 8 --steps 20 --seed 1 --out "$OUT/d.h5" --json \
      > "$OUT/gen.json" 2> "$OUT/gen.err"; then
    local why
    why=$(sed -n 's/^flashnerd: error: [^:]*: //p' "$OUT/gen.err" | head -1 | cut -c1-110)
    printf '| %s | refused | %s |\n' "$label" "$why"
    return
  fi
  local field summary result=gen
  summary=""
  for field in qpos_recorded actuators_recorded activations_recorded actuator_model valid_fraction; do
    summary+="$field $(grep -o "\"$field\":\(\"[^\"]*\"\|[^,}]*\)" "$OUT/gen.json" | cut -d: -f2- | tr -d '"'); "
  done
  summary+="warnings $(grep -o '"warnings":\[[^]]*\]' "$OUT/gen.json" | grep -o '","' | wc -l | awk '{print $1 + 1}')"
  grep -q '"warnings":\[\]' "$OUT/gen.json" && summary="${summary% *} 0"
  if [ "$TRAIN" = 1 ]; then
    if "$FN" train --data "$OUT/d.h5" --preset tiny --updates 20 --batch 8 --quiet --out "$OUT/m" --overwrite \
        > "$OUT/train.txt" 2>&1 && "$FN" eval --model "$OUT/m" --data "$OUT/d.h5" --horizons 1 > "$OUT/eval.txt" 2>&1; then
      result="gen, train, eval"
    else
      result="gen; train/eval failed: $(grep -m1 'error' "$OUT/train.txt" "$OUT/eval.txt" | cut -c1-80)"
    fi
  fi
  if [ "$FIT" = 1 ]; then
    rm -rf "$OUT/fit"
    if "$FN" fit --mjcf "$MODELS/$file" "$@" --trajectories 16 --steps 20 --test-trajectories 4 --horizons 1,5 \
        --windows 640 --batch 16 --members 2 --preset tiny --precision fp32 --quiet --json --out "$OUT/fit" \
        > "$OUT/fit.json" 2> "$OUT/fit.err"; then
      result="gen, fit (H=1 NRMSE of the mean $(python3 -c 'import json,sys; print("%.3g" % json.load(open(sys.argv[1]))["nrmse"][0])' "$OUT/fit.json"))"
    else
      result="gen; fit failed: $(grep -m1 'error' "$OUT/fit.err" | cut -c1-100)"
    fi
  fi
  printf '| %s | %s | %s |\n' "$label" "$result" "$summary"
}

echo "| model | runs | recorded / refusal |"
echo "|---|---|---|"
for f in $(cd "$MODELS" && find . -name '*.xml' | sed 's|^\./||' | sort); do
  case "$f" in
    */humanoid_body.xml) continue ;;  # included by hammock.xml and humanoid100.xml
  esac
  row "$f"
done
# the choices the refusals suggest
row humanoid/22_humanoids.xml --robot-body 1a_torso
row adhesion/active_adhesion.xml --robot-body "two crates,arm1"
row adhesion/active_adhesion.xml --robot-body sphere
