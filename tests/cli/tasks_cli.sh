#!/usr/bin/env bash
# flashnerd tasks: the table, JSON with every task's slots and terms, and the Markdown page,
# which must equal docs/TASKS.md (regenerate it with `flashnerd tasks --markdown > docs/TASKS.md`).
source "$(dirname "$0")/common.bash" "$1"
DOCS="$(dirname "$0")/../../docs/TASKS.md"

"$FN" tasks > "$TMP/table.txt" || fail "tasks"
grep -q "cartpole-swingup" "$TMP/table.txt" || fail "table: $(cat "$TMP/table.txt")"
"$FN" tasks --json cartpole-balance > "$TMP/tasks.json" || fail "tasks --json"
python3 - "$TMP/tasks.json" <<'PY' || fail "tasks JSON: $(cat "$TMP/tasks.json")"
import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
assert [x["task"] for x in t] == ["cartpole-balance"], t
assert [o["name"] for o in t[0]["observation"]] == ["cart_position", "pole_sin", "pole_cos", "cart_velocity", "pole_velocity"]
assert t[0]["action"]["dim"] == 1 and t[0]["action"]["bound"] == 1
PY
"$FN" tasks --markdown > "$TMP/TASKS.md" || fail "tasks --markdown"
diff -u "$DOCS" "$TMP/TASKS.md" > "$TMP/diff.txt" || fail "docs/TASKS.md differs from \`flashnerd tasks --markdown\`: $(head -40 "$TMP/diff.txt")"
expect_error "unknown task 'walk'" tasks walk
echo "tasks_cli: all checks passed"
