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
