#!/usr/bin/env bash
# Fixed-seed PPO in MuJoCo on each task with two flashnerd builds (e.g. the last build with the
# C++ task classes and one where the tasks are spec files): the logs' non-timing columns and the
# trained policies' weights are compared byte for byte.
# Usage: ppo_equality.sh OLD_BIN OLD_ROBOTS NEW_BIN NEW_ROBOTS OUT [TASK ...]
set -euo pipefail
old_bin=$1 old_robots=$2 new_bin=$3 new_robots=$4 out=$5
shift 5
tasks=("${@:-cartpole-balance cartpole-swingup quadruped-velocity cube-reorient cube-reorient-reduced cube-reorient-rotate}")
read -ra tasks <<< "${tasks[*]}"
mkdir -p "$out"
non_timing() {  # log.csv without the columns that measure time
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, name in enumerate(rows[0]) if name != "seconds" and not name.endswith("_s")]
for r in rows:
    print(",".join(r[i] for i in keep))
PY
}
for task in "${tasks[@]}"; do
  for side in old new; do
    bin_var=${side}_bin robots_var=${side}_robots
    rm -rf "$out/$side/$task"
    FLASHNERD_ROBOTS=${!robots_var} "${!bin_var}" ppo --task "$task" --backend mujoco --envs 16 --steps-per-env 24 \
      --iterations 3 --seed 9 --hidden 32,32 --threads 1 --quiet --out "$out/$side/$task" > /dev/null
  done
  if cmp -s <(non_timing "$out/old/$task/log.csv") <(non_timing "$out/new/$task/log.csv") &&
     cmp -s "$out/old/$task/policy/policy.safetensors" "$out/new/$task/policy/policy.safetensors"; then
    echo "$task: equal (log without timings, policy weights)"
  else
    echo "$task: DIFFERENT"
  fi
done
