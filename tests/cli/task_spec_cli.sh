#!/usr/bin/env bash
# requires: libtorch (the script trains a policy)
# A task of the user's own, from a spec file given by its path: tasks describes it, ppo trains
# on it, policy-eval judges the policy with it; bad specs are refused before any step, naming
# the file and the field.
source "$(dirname "$0")/common.bash" "$1"
SPECS="$(dirname "$0")/../../robots/tasks"

# a balance task with a centring penalty, on the built-in cartpole, named in a folder of its own
mkdir -p "$TMP/my tasks"
python3 - "$SPECS/cartpole-balance.json" "$TMP/my tasks/balance-centred.json" <<'PY' || fail "write spec"
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = "balance-centred"
s["rewards"].append({"name": "centred", "term": "l2", "signal": "joint_pos", "joints": ["slider"], "scale_per_step": -0.5})
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
SPEC="$TMP/my tasks/balance-centred.json"
"$FN" tasks --json "$SPEC" > "$TMP/tasks.json" || fail "tasks SPEC"
python3 - "$TMP/tasks.json" <<'PY' || fail "tasks JSON: $(cat "$TMP/tasks.json")"
import json, sys
t = json.load(open(sys.argv[1]))["tasks"][0]
assert t["robot"] == "cartpole", t["robot"]
assert [r["name"] for r in t["reward"]] == ["alive", "centred"], t["reward"]
PY
"$FN" ppo --task "$SPEC" --steps-per-env 16 --hidden 16,16 --quiet --envs 16 --iterations 2 --out "$TMP/run" --json \
  > "$TMP/ppo.json" || fail "ppo --task SPEC"
"$FN" policy-eval --policy "$TMP/run/policy" --envs 4 --steps 20 --json > "$TMP/eval.json" || fail "policy-eval of a spec task's policy"
grep -q '"term_centred"' "$TMP/eval.json" || fail "policy-eval lacks the spec's term: $(cat "$TMP/eval.json")"

# a success term (within, judged at each target's redraw) becomes policy-eval's success rate
"$FN" ppo --task arm7-reach --steps-per-env 8 --hidden 16,16 --quiet --envs 8 --iterations 1 --out "$TMP/arm" --json \
  > "$TMP/arm_ppo.json" || fail "ppo arm7-reach"
"$FN" policy-eval --policy "$TMP/arm/policy" --envs 4 --steps 240 --json > "$TMP/arm_eval.json" || fail "policy-eval arm7-reach"
python3 - "$TMP/arm_eval.json" <<'PY' || fail "policy-eval's success rate: $(cat "$TMP/arm_eval.json")"
import json, sys
s = json.load(open(sys.argv[1]))["success_success"]
assert s["periods_per_episode"] == 2 and s["episodes"] == 4, s
assert 0 <= s["rate_ci95"][0] <= s["rate"] <= s["rate_ci95"][1] <= 1, s
PY

# refusals name the file and the field, before anything runs
python3 - "$SPEC" "$TMP/bad.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["rewards"][1]["term"] = "l3"
json.dump(s, open(sys.argv[2], "w"))
PY
expect_error "bad.json: field 'rewards\[1\].term' names reward term 'l3'" ppo --task "$TMP/bad.json" --envs 4 --iterations 1 --out "$TMP/bad_run"
[ ! -e "$TMP/bad_run" ] || fail "a refused spec left an output behind"
expect_error "is not a readable file" tasks "$TMP/missing.json"
echo '{"format": "flashnerd-task", "name": "x", "robot": "no_such_robot.xml"}' > "$TMP/norobot.json"
expect_error "no_such_robot.xml, which does not exist" tasks "$TMP/norobot.json"
echo "task_spec_cli: all checks passed"
