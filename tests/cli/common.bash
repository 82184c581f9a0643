# Shared set-up of the CLI tests (sourced; not a test itself: ctest runs tests/cli/*.sh).
# Sets FN (the flashnerd executable, first argument) and TMP (removed on exit); defines
# fail and expect_error.
set -uo pipefail
FN="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect_error "needle" args...: non-zero exit and a message containing needle
expect_error() {
  local needle="$1"; shift
  if "$FN" "$@" > "$TMP/out.txt" 2>&1; then fail "expected failure: $*"; fi
  grep -q -- "$needle" "$TMP/out.txt" || { cat "$TMP/out.txt"; fail "message lacks '$needle': $*"; }
}

# check_shipped_size NAME MAX_BYTES WHAT FILE...: a shipped artifact stays within its size limit
check_shipped_size() {
  local name=$1 max=$2 what=$3 size
  shift 3
  size=$(du -cb "$@" | tail -1 | cut -f1)
  [ "$size" -le "$max" ] || fail "$name: $size bytes, over the $what may take"
}

# relative max difference of two artifacts' weights (safetensors: u64 header size, JSON, data)
weight_diff() {
  /usr/bin/python3 - "$1/weights.safetensors" "$2/weights.safetensors" <<'PY'
import json, struct, sys
import numpy as np
def load(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    return {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], np.float32)
            for k, v in header.items() if k != "__metadata__"}
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a.keys() == b.keys()
print(max(float(np.abs(a[k] - b[k]).max()) / (float(np.abs(a[k]).max()) + 1e-12) for k in a))
PY
}
