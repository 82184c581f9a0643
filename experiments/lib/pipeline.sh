# shellcheck shell=bash
# The stages every experiment pipeline shares, sourced from the repository root:
#   . experiments/lib/pipeline.sh
# One resume rule (CONTRIBUTING.md, rule 12): a stage is finished when its JSON summary exists
# (a gen stage: when its dataset exists). flashnerd prints that summary on stdout as its last
# act; step writes it to a temporary name and renames it on success, so a killed stage leaves
# no summary and runs again, continuing its checkpoint where the command has one. Delete a
# summary to redo its stage.
# OUT: the caller's results folder, made here. FN: the flashnerd binary (default
# build/src/cli/flashnerd, built here when missing).
mkdir -p "${OUT:?set OUT, the results folder, before sourcing experiments/lib/pipeline.sh}"
FN="${FN:-./build/src/cli/flashnerd}"
[ -x "$FN" ] || TARGETS=flashnerd ./scripts/build.sh build > /dev/null

# step JSON [LOG] -- COMMAND...: runs COMMAND unless JSON exists; its stdout becomes JSON
# (through JSON.tmp), its stderr goes to LOG when given. STEP_NOTE=TEXT step ... prints TEXT
# when the stage runs.
step() {
  local json=$1 log=/dev/stderr
  shift
  [ "$1" = -- ] || { log=$1; shift; }
  shift
  [ -s "$json" ] && return 0
  [ -z "${STEP_NOTE:-}" ] || echo "$STEP_NOTE"
  "$@" > "$json.tmp" 2> "$log" && mv "$json.tmp" "$json"
}

# invalidate JSON INPUT...: deletes JSON when an INPUT is newer (a run continued since), so
# the stage that writes JSON runs again
invalidate() {
  local json=$1 input
  shift
  for input; do [ "$json" -nt "$input" ] || { rm -f "$json"; return 0; }; done
}

# fn_gen H5 GEN_ARGS...: flashnerd gen into H5, its summary in gen_NAME.json beside it. The
# dataset marks this stage finished (gen renames it into place when complete; datasets of
# older runs may lack a summary); --resume continues a killed run from its finished blocks.
fn_gen() {
  local h5=$1 json
  shift
  json="$(dirname "$h5")/gen_$(basename "$h5" .h5).json"
  [ -f "$h5" ] && return 0
  rm -f "$json"
  step "$json" -- "$FN" gen "$@" --resume --out "$h5" --json
}

# fn_resumable COMMAND JSON DIR ARGS...: flashnerd COMMAND (train, finetune, ppo) into DIR,
# continued from DIR's checkpoint when a run was interrupted; stderr (progress) to JSON's .log
fn_resumable() {
  local command=$1 json=$2 dir=$3 resume=()
  shift 3
  [ -f "$dir/checkpoint.pt" ] && resume=(--resume)
  step "$json" "${json%.json}.log" -- "$FN" "$command" "$@" "${resume[@]}" --out "$dir" --json
}
fn_train() { fn_resumable train "$@"; }        # fn_train JSON MODEL_DIR TRAIN_ARGS...
fn_finetune() { fn_resumable finetune "$@"; }  # fn_finetune JSON MODEL_DIR FINETUNE_ARGS...
fn_ppo() { fn_resumable ppo "$@"; }            # fn_ppo JSON RUN_DIR PPO_ARGS...

# fn_eval JSON EVAL_ARGS... and fn_bench JSON BENCH_ARGS...: rollout error, throughput
fn_eval() { local json=$1; shift; step "$json" -- "$FN" eval "$@" --json; }
fn_bench() { local json=$1; shift; step "$json" -- "$FN" bench "$@" --json; }

# fn_train_pair DIR ARGS...: a FlashNeRD / NeRD pair on the same ARGS (data, preset, updates,
# seed) into DIR/flashnerd and DIR/nerd (summaries DIR/train_ARCH.json), concurrently with
# one core and one BLAS thread each
fn_train_pair() {
  local dir=$1 arch pids=()
  shift
  for arch in flashnerd nerd; do
    OPENBLAS_NUM_THREADS=1 fn_train "$dir/train_$arch.json" "$dir/$arch" --arch "$arch" "$@" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}

# fn_summary SCRIPT ARGS... (or fn_summary - ARGS... <<'PY'): a summary in Python, which finds
# experiments/lib/summaries.py; system Python for numpy and matplotlib
fn_summary() { PYTHONPATH=experiments/lib /usr/bin/python3 "$@"; }
