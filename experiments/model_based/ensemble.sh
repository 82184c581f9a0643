#!/usr/bin/env bash
# An ensemble of independent quadruped models for the uncertainty variants of run.sh (penalty,
# truncate): one `train` per seed, each from scratch with its own weights and data order, JOBS
# at a time (default 2, one per core), collected into OUT/ensemble.json (docs/FORMAT.md), then
# each member's and the mean's rollout error and the ensemble's calibration on held-out data.
# Resumable: a finished member is kept, a killed one continues from its checkpoint.
#
# Usage: [JOBS=2] [TRAIN_FLAGS="--batch 1024 --precision bf16"]
#        experiments/model_based/ensemble.sh OUT TRAIN_H5 TEST_H5 UPDATES SEED...
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 5 ] || { sed -n 2,10p "$0" >&2; exit 2; }
OUT=$1 TRAIN=$2 TEST=$3 UPDATES=$4
shift 4
JOBS="${JOBS:-2}"
read -ra train_flags <<< "${TRAIN_FLAGS:---batch 1024 --precision bf16}"
. experiments/lib/pipeline.sh

members=()
for seed in "$@"; do
  members+=("member_s$seed")
  OPENBLAS_NUM_THREADS=1 fn_train "$OUT/train_s$seed.json" "$OUT/member_s$seed" --data "$TRAIN" --arch flashnerd \
    --preset small --updates "$UPDATES" --seed "$seed" --valid-every 500 "${train_flags[@]}" &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait
for seed in "$@"; do
  [ -s "$OUT/train_s$seed.json" ] || { echo "member seed $seed did not finish: $OUT/train_s$seed.log" >&2; exit 1; }
done
python3 - "$OUT" "${members[@]}" <<'PY'
import json, os, sys
out, members = sys.argv[1], sys.argv[2:]
tmp = os.path.join(out, "ensemble.json.tmp")
with open(tmp, "w") as f:
    json.dump({"format": "flashnerd-ensemble", "version": 1, "members": members}, f)
os.replace(tmp, os.path.join(out, "ensemble.json"))
PY
fn_eval "$OUT/eval.json" --model "$OUT" --data "$TEST" --horizons 1,15,50,100,200 --precision fp32  # members and mean
step "$OUT/calibrate_test.json" -- "$FN" calibrate --model "$OUT" --data "$TEST" --out "$OUT/calibrate_test" --json
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| model | H=1 | H=15 | H=50 | H=100 | H=200 |")
print("|---|---:|---:|---:|---:|---:|")
for e in json.load(open(os.path.join(out, "eval.json")))["models"]:
    print("| %s | %s |" % (e["model"], " | ".join("%.4f" % v for v in e["nrmse"])))
c = json.load(open(os.path.join(out, "calibrate_test.json")))
print("\nSpearman, disagreement against the mean's one-step error, held-out: %.3f (%d frames)" % (c["spearman"], c["frames"]))
PY
