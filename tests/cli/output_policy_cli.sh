#!/usr/bin/env bash
# requires: libtorch (the script trains a model and runs PPO)
# Nothing lost: every writer refuses an existing output unless --overwrite (gen, import,
# merge, plan, policy-video), finetune refuses an --out that resolves to its --model however
# it is spelled, a second run on a locked output is refused with the holder's PID, a PPO run
# never takes a model's directory (nor a model a PPO run's), and refusals leave no empty
# directory behind. Usage: output_policy_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
cd "$TMP"

# gen: an existing dataset is kept unless --overwrite
"$FN" gen --robot cartpole --trajectories 8 --steps 20 --seed 1 --out d.h5 --json > /dev/null || fail "gen"
cp d.h5 d.ref
expect_error "d.h5 already exists; pass --overwrite" gen --robot cartpole --trajectories 8 --steps 20 --seed 2 --out d.h5
cmp -s d.h5 d.ref || fail "a refused gen changed the dataset"
"$FN" gen --robot cartpole --trajectories 8 --steps 20 --seed 2 --out d.h5 --overwrite --json > /dev/null \
  || fail "gen --overwrite"
cmp -s d.h5 d.ref && fail "gen --overwrite did not replace the dataset"
cp d.ref d.h5

# merge and import: the same policy
expect_error "d.h5 already exists; pass --overwrite" merge --concat d.ref d.ref --out d.h5
python3 - <<'PY'
import math
with open("log.csv", "w") as f:
    f.write("time,q/slider,q/hinge,v/slider,v/hinge,u/cart_force\n")
    for i in range(400):
        t = i * 0.01
        f.write("%g,%g,%g,%g,%g,%g\n" % (t, 0.1 * math.sin(t), 0.2 * math.sin(2 * t), 0.1 * math.cos(t), 0.4 * math.cos(2 * t), 0.3 * math.sin(3 * t)))
PY
"$FN" import --robot cartpole --log log.csv --out imported.h5 --steps 20 --json > /dev/null || fail "import"
cp imported.h5 imported.ref
expect_error "imported.h5 already exists; pass --overwrite" import --robot cartpole --log log.csv --out imported.h5
cmp -s imported.h5 imported.ref || fail "a refused import changed the dataset"
# --probes off --contacts on, as gen spells them, and the older --no-probes --contacts agree
"$FN" import --robot cartpole --log log.csv --out spelled.h5 --steps 20 --probes off --contacts on --json > spelled.json \
  || fail "import --probes off --contacts on"
"$FN" import --robot cartpole --log log.csv --out older.h5 --steps 20 --no-probes --contacts --json > older.json \
  || fail "import --no-probes --contacts"
python3 -c 'import json,sys; a, b = (json.load(open(p)) for p in sys.argv[1:]); k = ("probes", "contact_capacity")
sys.exit(0 if all(a[x] == b[x] for x in k) and a["contact_capacity"] > 0 and a["probes"] == 0 else 1)' spelled.json older.json \
  || fail "import spellings disagree"

# import masks implausible values and refuses a log without one valid transition
python3 - <<'PY'
rows = open("log.csv").read().splitlines()
head, body = rows[0], rows[1:]
cols = body[150].split(","); cols[5] = "1e30"; body[150] = ",".join(cols)
open("spike.csv", "w").write("\n".join([head] + body) + "\n")
hinge = rows[1:]
cols = hinge[150].split(","); cols[2] = "1e30"; hinge[150] = ",".join(cols)  # the unlimited hinge
open("hinge_spike.csv", "w").write("\n".join([head] + hinge) + "\n")
nan = [",".join(r.split(",")[:5] + ["nan"]) for r in body]
open("nan.csv", "w").write("\n".join([head] + nan) + "\n")
PY
"$FN" import --robot cartpole --log spike.csv --out spike.h5 --steps 20 --json > spike.json || fail "import spike"
python3 -c 'import json,sys; j=json.load(open("spike.json")); sys.exit(0 if j["implausible_transitions"] >= 1 and "u/cart_force" in j["first_implausible"] else 1)' \
  || { cat spike.json; fail "a command of 1e30 was kept as data"; }
"$FN" import --robot cartpole --log hinge_spike.csv --out hinge_spike.h5 --steps 20 --json > hinge_spike.json \
  || fail "import hinge spike"
python3 -c 'import json,sys; j=json.load(open("hinge_spike.json")); sys.exit(0 if "q/hinge" in j["first_implausible"] else 1)' \
  || { cat hinge_spike.json; fail "an unlimited joint at 1e30 rad was kept as data"; }
expect_error "no valid transition" import --robot cartpole --log nan.csv --out nan.h5 --steps 20
[ -e nan.h5 ] && fail "a log without valid transitions left a file"

# plan: an existing trial is kept; options another task or backend would ignore are refused
expect_error "--model m is not used by --backend mujoco" plan --task swingup --backend mujoco --model m --frames 2
expect_error "belong to --task climb" plan --task swingup --terrain 2 --frames 2

# finetune never writes into its parent, however --out spells it
"$FN" train --data d.h5 --preset tiny --updates 2 --valid-every 0 --quiet --out m --json > /dev/null || fail "train"
ln -s m m_link
for out in m/ m_link ./m/../m m/sub; do
  expect_error "fine-tuning never writes into its parent" finetune --model m --data d.h5 --updates 1 --out "$out" --overwrite
done
[ -e m/sub ] && fail "a refused finetune left m/sub"

# a model's directory is never a PPO run's, and a PPO run's never a model's
expect_error "holds a trained model (config.json)" ppo --task cartpole-balance --envs 4 --iterations 1 --out m --overwrite
"$FN" ppo --task cartpole-balance --envs 4 --steps-per-env 4 --iterations 1 --out run --json > /dev/null || fail "ppo"
expect_error "holds a PPO run (policy/)" train --data d.h5 --preset tiny --updates 2 --out run --overwrite

# a second run on a locked output is refused with the holder's PID (a process holding the lock
# as a running gen would), and nothing is written
python3 -c '
import fcntl, os, sys, time
f = open("held.h5.lock", "w"); fcntl.flock(f, fcntl.LOCK_EX); f.write("%d\n" % os.getpid()); f.flush()
open("holder.ready", "w").close(); time.sleep(30)' &
holder=$!
for _ in $(seq 100); do [ -e holder.ready ] && break; sleep 0.1; done
expect_error "in use by another flashnerd run (pid $holder" gen --robot cartpole --trajectories 4 --steps 5 --out held.h5
kill "$holder"; wait "$holder" 2> /dev/null
rm -f held.h5.lock holder.ready
[ -e held.h5 ] && fail "a refused gen wrote held.h5"

# refusals leave nothing empty behind; finished runs leave no lock file
expect_error "--resume: no checkpoint" ppo --task cartpole-balance --envs 4 --iterations 1 --out fresh_run --resume
[ -e fresh_run ] && fail "a refused ppo left an empty fresh_run/"
compgen -G "*.lock" > /dev/null && fail "a finished run left its lock file: $(compgen -G '*.lock')"

# policy-video keeps an existing strip unless --overwrite; absurd picture sizes are refused
"$FN" policy-video --policy run/policy --out vid --steps 4 --frames 2 --width 64 --height 48 --no-video --json \
  > /dev/null || fail "policy-video"
expect_error "already holds policies_strip.png; pass --overwrite" policy-video --policy run/policy --out vid \
  --steps 4 --frames 2 --width 64 --height 48 --no-video
expect_error "--width" policy-video --policy run/policy --out vid2 --width 0
expect_error "--width" policy-video --policy run/policy --out vid2 --width 100000
# a command never writes over its own input, --overwrite or not; lock files are never outputs
cp log.csv log.ref
expect_error "is this command's own --log" import --robot cartpole --log log.csv --out ./log.csv --steps 20 --overwrite
cmp -s log.csv log.ref || fail "import replaced its own --log"
expect_error "is this command's own shard" merge --concat d.h5 d.ref --out d.h5 --overwrite
cmp -s d.h5 d.ref || fail "merge replaced its own input"
echo '{}' > terrains.json
expect_error "is this command's own --terrains" plan --task climb --terrains terrains.json --out terrains.json --overwrite
[ "$(cat terrains.json)" = "{}" ] || fail "plan replaced its own --terrains"
expect_error "is this command's own --init-from" train --data d.h5 --init-from m --out m_link --overwrite --updates 1
expect_error "lock files of running commands" gen --robot cartpole --trajectories 4 --steps 5 --out x.h5.lock
expect_error "lock files of running commands" train --data d.h5 --preset tiny --updates 1 --out m2.lock

# --resume continues the kind of run --out holds: an ensemble never shadows a single model
expect_error "holds a single model (config.json), not an ensemble" train --data d.h5 --preset tiny --updates 2 \
  --ensemble 2 --resume --out m
[ -e m/member_0 ] && fail "a refused ensemble resume wrote members into a single model's directory"
echo "output_policy_cli: ok"
