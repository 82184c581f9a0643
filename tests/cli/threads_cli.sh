#!/usr/bin/env bash
# --threads is capped at the core count in every subcommand with a thread pool (gen, eval,
# couple): more threads than cores are refused up front (before any allocation) unless
# --force-threads is given, naming the option, the value and the core count; negative counts
# are refused. Usage: threads_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
CORES=$(getconf _NPROCESSORS_ONLN)  # what std::thread::hardware_concurrency reports
OVER=$((CORES + 1))

# refused before anything is allocated: a huge request fails at once and leaves no file
expect_error "--threads: 10000 exceeds the $CORES cores" gen --robot cartpole --trajectories 1000000 --threads 10000 --out "$TMP/x.h5"
expect_error "--force-threads" gen --robot cartpole --threads $OVER --out "$TMP/x.h5"
expect_error "--threads: -2 is negative" gen --robot cartpole --threads -2 --out "$TMP/x.h5"
[ ! -e "$TMP/x.h5" ] || fail "a refused run left $TMP/x.h5"
# the check comes before the model and the data are read
expect_error "--threads: $OVER exceeds the $CORES cores" eval --model "$TMP/none" --data "$TMP/none.h5" --threads $OVER
expect_error "--threads: -1 is negative" eval --model "$TMP/none" --data "$TMP/none.h5" --threads -1
expect_error "--threads: $OVER exceeds the $CORES cores" couple --model "$TMP/none" --threads $OVER

# within the cores, and above them with --force-threads, gen runs
"$FN" gen --robot cartpole --trajectories 4 --steps 5 --threads "$CORES" --out "$TMP/a.h5" --json > /dev/null \
  || fail "gen --threads $CORES (the core count) failed"
"$FN" gen --robot cartpole --trajectories 4 --steps 5 --threads $OVER --force-threads --out "$TMP/b.h5" --json \
  > "$TMP/b.json" || fail "gen --threads $OVER --force-threads failed"
grep -q "\"threads\":$OVER" "$TMP/b.json" || fail "forced thread count not used: $(cat "$TMP/b.json")"
echo "threads_cli: all checks passed"
