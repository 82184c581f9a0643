#!/usr/bin/env bash
# Every policy shipped in models/policies/ loads, and `flashnerd policy-eval` with the recorded
# arguments reproduces the MuJoCo return and falls its provenance records (within the recorded
# tolerance: MuJoCo's last bits differ between CPUs, and 1000-step episodes amplify them).
# Usage: shipped_policies_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
POLICIES="$(cd "$(dirname "$0")/../../models/policies" 2>/dev/null && pwd)" || { echo "shipped_policies_cli: none"; exit 0; }
checked=0
for record in "$POLICIES"/*/provenance.json; do
  [ -f "$record" ] || continue
  dir=$(dirname "$record")
  name=$(basename "$dir")
  check_shipped_size "$name" $((1024 * 1024)) "1 MB a shipped policy" "$dir/policy.safetensors" "$dir/policy.json"
  # the recorded arguments, one per line (an empty one stays an argument)
  mapfile -t eval_args < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["check"]["policy_eval"]))' "$record")
  "$FN" policy-eval --policy "$dir" "${eval_args[@]}" --json > "$TMP/$name.json" || fail "$name: policy-eval ${eval_args[*]}"
  python3 - "$record" "$TMP/$name.json" <<'PY' || fail "$name: policy-eval differs from its record"
import json, sys
check = json.load(open(sys.argv[1]))["check"]
got = json.load(open(sys.argv[2]))
tol = check["relative_tolerance"]
ret, want = got["episode_reward"], check["episode_reward"]
print("  return: recorded %.4f  now %.4f" % (want, ret))
print("  falls: recorded %d  now %d (at most %d)" % (check["falls"], got["terminations"], check["max_falls"]))
sys.exit(0 if abs(ret - want) <= tol * abs(want) and got["terminations"] <= check["max_falls"] else 1)
PY
  checked=$((checked + 1))
done
echo "shipped_policies_cli: $checked shipped policies reproduce their records"
