#!/usr/bin/env bash
# flashnerd fit killed (SIGKILL) at KILLS random moments and rerun each time ends with the
# result of an uninterrupted fit: the same members' weights (byte for byte), the same held-out
# rollout errors and calibration. The kill times are drawn (seeded), so data generation and
# the members' training are hit: kill I comes after a delay drawn in [1, T/(KILLS+1)] s of the run it interrupts, T
# being the uninterrupted run's time, so the five runs together stay short of a whole fit and
# each kill lands before the end. The uninterrupted run is kept and reused (OUT/whole). Writes
# OUT/summary.json and prints a table.
# Usage: experiments/fit/kill_resume.sh [OUT] [KILLS] [SEED]    (defaults out/fit_kill 5 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-out/fit_kill}" KILLS="${2:-5}" SEED="${3:-1}"
FN="${FN:-./build/src/cli/flashnerd}"
FIT=(fit --robot cartpole --trajectories 2000 --test-trajectories 128 --windows 76800 --batch 128 --members 2
     --preset small --precision fp32 --quiet)
mkdir -p "$OUT"
rm -rf "$OUT/killed"
if [ ! -s "$OUT/whole_seconds" ]; then
  rm -rf "$OUT/whole"
  start=$(date +%s.%N)
  "$FN" "${FIT[@]}" --out "$OUT/whole" > "$OUT/whole.txt"
  python3 -c "import time; print(time.time() - $start)" > "$OUT/whole_seconds"
fi
whole_seconds=$(cat "$OUT/whole_seconds")
mapfile -t delays < <(python3 -c "
import random; random.seed($SEED)
print('\n'.join('%.2f' % random.uniform(1, $whole_seconds / ($KILLS + 1)) for _ in range($KILLS)))")
killed_after=()
for delay in "${delays[@]}"; do
  "$FN" "${FIT[@]}" --out "$OUT/killed" > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2> /dev/null; then
    stage=$(ls -t "$OUT/killed/logs" 2> /dev/null | head -1)
    killed_after+=("${delay}s (last log: ${stage:-none})")
  else
    killed_after+=("${delay}s (had finished)")
  fi
  wait "$pid" 2> /dev/null || true
  sleep 0.5
done
"$FN" "${FIT[@]}" --out "$OUT/killed" > "$OUT/killed.txt"
python3 - "$OUT" "$whole_seconds" "${killed_after[@]}" <<'PY'
import filecmp, json, os, sys
out, whole_seconds, kills = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
same_weights = all(filecmp.cmp(os.path.join(out, "whole", "model", m, "weights.safetensors"),
                               os.path.join(out, "killed", "model", m, "weights.safetensors"), shallow=False)
                   for m in ("member_0", "member_1"))
ev = [json.load(open(os.path.join(out, r, "eval.json"))) for r in ("whole", "killed")]
cal = [json.load(open(os.path.join(out, r, "calibrate.json")))["spearman"] for r in ("whole", "killed")]
same_eval = [m["nrmse"] for m in ev[0]["models"]] == [m["nrmse"] for m in ev[1]["models"]]
summary = {"uninterrupted_seconds": whole_seconds, "kills": kills, "same_weights": same_weights,
           "same_eval": same_eval, "same_calibration": cal[0] == cal[1],
           "mean_nrmse": ev[1]["models"][-1]["nrmse"], "horizons": ev[1]["horizons"]}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print("uninterrupted fit: %.0f s; killed at: %s" % (whole_seconds, "; ".join(kills)))
print("same member weights: %s, same held-out NRMSE: %s, same calibration: %s" % (same_weights, same_eval, cal[0] == cal[1]))
all_landed = not any("had finished" in k for k in kills)
print("every kill landed before the fit finished: %s" % all_landed)
sys.exit(0 if same_weights and same_eval and cal[0] == cal[1] and all_landed else 1)
PY
