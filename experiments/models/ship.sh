#!/usr/bin/env bash
# Trains (or continues) one of the models the project ships and writes it to models/NAME/ with
# its provenance: the exact commands, data seeds, updates, windows, wall time, CPU, validation
# loss and rollout NRMSE on held-out MuJoCo data, plus the small check that
# tests/cli/shipped_models_cli.sh reruns. Resumable: rerun the same command after a kill.
# When models/NAME exists, training starts from it (--init-from, fresh optimizer) so training
# accumulates across runs; the record keeps the earlier figures under "history".
# Usage: experiments/models/ship.sh NAME [UPDATES] [BATCH]
#   NAME: cartpole | quadruped | quadruped_platform | quadruped_platform_nerd
#   UPDATES: this run's updates      BATCH: windows per update
# Environment: OUT (default out/models/NAME), TRAIN_FLAGS (default --precision auto; e.g. a
# continuation's learning rates or --unroll), SEED (default 1), VALID_EVERY (default 1000),
# TRAIN_TRAJECTORIES and TRAIN_DATA_SEED (the training data; defaults per model below).
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME="$1"
UPDATES="${2:-20000}"
BATCH="${3:-128}"
SEED="${SEED:-1}"
VALID_EVERY="${VALID_EVERY:-1000}"
OUT="${OUT:-out/models/$NAME}"
read -ra TRAIN_FLAGS <<< "${TRAIN_FLAGS:---precision auto}"
. experiments/lib/pipeline.sh
. experiments/lib/cartpole_recipe.sh  # cartpole_train, CARTPOLE_TEST, CARTPOLE_HORIZONS
. experiments/locomotion/recipe.sh  # LOCOMOTION_COMMANDS
case "$NAME" in
  cartpole)  # the CartPole recipe with twice the demo's training trajectories
    cartpole_train "${TRAIN_TRAJECTORIES:-8000}" "${TRAIN_DATA_SEED:-}"
    GEN_TRAIN=("${CARTPOLE_TRAIN[@]}")
    GEN_TEST=("${CARTPOLE_TEST[@]}")
    GEN_CHECK=(--robot cartpole --trajectories 64 --steps 120 --seed 3)
    TRAIN_ARGS=(--arch flashnerd --preset small)
    HORIZONS=$CARTPOLE_HORIZONS CHECK_HORIZONS=1,15,100 ;;
  quadruped)  # locomotion (paper IV-B): 4 foot probes, the recipe's random joint targets
    LOCO=(--robot quadruped --contacts off "${LOCOMOTION_COMMANDS[@]}")
    GEN_TRAIN=("${LOCO[@]}" --trajectories "${TRAIN_TRAJECTORIES:-20000}" --steps 100 --seed "${TRAIN_DATA_SEED:-1}")
    GEN_TEST=("${LOCO[@]}" --trajectories 256 --steps 220 --seed 2)
    GEN_CHECK=("${LOCO[@]}" --trajectories 32 --steps 70 --seed 3)
    TRAIN_ARGS=(--arch flashnerd --preset small)
    HORIZONS=1,15,50,100,200 CHECK_HORIZONS=1,15,50 ;;
  quadruped_platform|quadruped_platform_nerd)  # climbing (paper IV-C): contact rows and 20 probes recorded
    CLIMB=(--robot quadruped_platform --climbing-probes)
    GEN_TRAIN=("${CLIMB[@]}" --trajectories "${TRAIN_TRAJECTORIES:-3000}" --steps 100 --seed "${TRAIN_DATA_SEED:-11}")
    GEN_TEST=("${CLIMB[@]}" --trajectories 300 --steps 120 --seed 12)
    GEN_CHECK=("${CLIMB[@]}" --trajectories 32 --steps 60 --seed 13)
    if [ "$NAME" = quadruped_platform ]; then TRAIN_ARGS=(--arch flashnerd --preset small --variable-contacts)
    else TRAIN_ARGS=(--arch nerd --preset small --probes on); fi
    HORIZONS=1,24,100 CHECK_HORIZONS=1,24 ;;
  *) echo "unknown model '$NAME': cartpole, quadruped, quadruped_platform or quadruped_platform_nerd" >&2; exit 2 ;;
esac

fn_gen "$OUT/train.h5" "${GEN_TRAIN[@]}"
fn_gen "$OUT/test.h5" "${GEN_TEST[@]}"
fn_gen "$OUT/check.h5" "${GEN_CHECK[@]}"

init=()
[ -f "models/$NAME/config.json" ] && init=(--init-from "models/$NAME")
resume=()
[ -f "$OUT/model/checkpoint.pt" ] && resume=(--resume)
TRAIN_CMD=("$FN" train --data "$OUT/train.h5" "${TRAIN_ARGS[@]}" "${init[@]}" --updates "$UPDATES" --batch "$BATCH"
  --seed "$SEED" --valid-every "$VALID_EVERY" "${TRAIN_FLAGS[@]}" --out "$OUT/model")
OPENBLAS_NUM_THREADS=1 step "$OUT/train.json" -- "${TRAIN_CMD[@]}" "${resume[@]}" --json
# the record's figures are of these weights
invalidate "$OUT/eval.json" "$OUT/model/weights.safetensors"
invalidate "$OUT/check.json" "$OUT/model/weights.safetensors"
fn_eval "$OUT/eval.json" --model "$OUT/model" --data "$OUT/test.h5" --horizons "$HORIZONS" --precision fp32
fn_eval "$OUT/check.json" --model "$OUT/model" --data "$OUT/check.h5" --horizons "$CHECK_HORIZONS" --precision fp32

fn_summary - "$NAME" "$OUT" "$UPDATES" "$BATCH" "${TRAIN_CMD[*]}" "${GEN_TRAIN[*]}" "${GEN_TEST[*]}" "${GEN_CHECK[*]}" \
  "$CHECK_HORIZONS" <<'PY'
import json, os, platform, shutil, subprocess, sys
import summaries
name, out, updates, batch, train_cmd, gen_train, gen_test, gen_check, check_h = sys.argv[1:]
def load(f): return summaries.load(out, f)
train, ev, check = load("train.json"), load("eval.json"), load("check.json")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
flags = next((l for l in open("/proc/cpuinfo") if l.startswith("flags")), "")
isa = "AMX" if "amx_tile" in flags else "AVX-512-BF16" if "avx512_bf16" in flags else "AVX-512" if "avx512f" in flags else "AVX2"
dest = os.path.join("models", name)
old = summaries.load_if(dest, "provenance.json")
history = (old.get("history", []) + [{k: old[k] for k in ("updates_total", "windows_total", "rollout_nrmse", "valid_loss", "trained_on") if k in old}]) if old else []
record = {
  "name": name,
  "commands": {"gen_train": "flashnerd gen " + gen_train, "gen_test": "flashnerd gen " + gen_test,
               "train": " ".join(["flashnerd"] + train_cmd.split()[1:]),
               "eval": "flashnerd eval --model models/%s --data TEST --horizons %s --precision fp32" % (name, ",".join(str(h) for h in ev["horizons"]))},
  "trained_on": {"cpu": cpu, "isa": isa, "precision": train["precision"], "date": subprocess.check_output(["date", "-u", "+%F"]).decode().strip()},
  "updates": train["updates"], "batch": int(batch), "windows": train["updates"] * int(batch),
  "updates_total": (old["updates_total"] if old else 0) + train["updates"],
  "windows_total": (old["windows_total"] if old else 0) + train["updates"] * int(batch),
  "wall_seconds": train["seconds"], "windows_per_second": train["windows_per_second"],
  "valid_loss": train["valid_loss"],
  "rollout_nrmse": {"horizons": ev["horizons"], "nrmse": ev["nrmse"], "trajectories": ev.get("trajectories")},
  "check": {"gen": gen_check, "horizons": [int(h) for h in check_h.split(",")], "nrmse": check["nrmse"],
            "relative_tolerance": 0.1},
  "history": history,
}
os.makedirs(dest, exist_ok=True)
for f in ("config.json", "weights.safetensors"):
  shutil.copyfile(os.path.join(out, "model", f), os.path.join(dest, f + ".tmp"))
  os.replace(os.path.join(dest, f + ".tmp"), os.path.join(dest, f))
with open(os.path.join(dest, "provenance.json.tmp"), "w") as fh: json.dump(record, fh, indent=1)
os.replace(os.path.join(dest, "provenance.json.tmp"), os.path.join(dest, "provenance.json"))
print(json.dumps({k: record[k] for k in ("name", "updates_total", "windows_total", "rollout_nrmse")}))
PY
