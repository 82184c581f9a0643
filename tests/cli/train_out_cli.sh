#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# `flashnerd train` never replaces a model by accident: an --out holding an artifact
# (config.json or weights.safetensors) is refused unless --overwrite or --resume, and a run
# that fails leaves the existing files as they were. A --window longer than the data is refused. Usage: train_out_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot cartpole --trajectories 20 --steps 20 --seed 1 --out "$TMP/data.h5" --json > /dev/null || fail "gen"
TRAIN=(train --data "$TMP/data.h5" --preset tiny --updates 4 --valid-every 0 --quiet)
train() { "$FN" "${TRAIN[@]}" "$@"; }
train --out "$TMP/m" --json > /dev/null || fail "first training run"
cp "$TMP/m/config.json" "$TMP/config.ref"
cp "$TMP/m/weights.safetensors" "$TMP/weights.ref"
same_artifact() { cmp -s "$TMP/m/config.json" "$TMP/config.ref" && cmp -s "$TMP/m/weights.safetensors" "$TMP/weights.ref"; }

expect_error "already holds a model artifact (config.json); pass --overwrite" "${TRAIN[@]}" --out "$TMP/m"
mkdir -p "$TMP/w" && cp "$TMP/weights.ref" "$TMP/w/weights.safetensors"
expect_error "already holds a model artifact (weights.safetensors)" "${TRAIN[@]}" --out "$TMP/w"
expect_error "not both" "${TRAIN[@]}" --out "$TMP/m" --overwrite --resume
same_artifact || fail "a refused run changed the artifact"

# a window longer than the trajectories is refused before any work, with the memory it would take
expect_error "--window: 100000 exceeds the 20 steps of each trajectory of the dataset (a batch of 64 such windows would need" \
  "${TRAIN[@]}" --out "$TMP/x" --window 100000
# --overwrite, but the run fails (NeRD's learned positions are fewer than the window): untouched
expect_error "learned positions" "${TRAIN[@]}" --out "$TMP/m" --overwrite --arch nerd --window 1000
same_artifact || fail "a failed --overwrite run changed the artifact"

# --overwrite with a run that finishes replaces the artifact; --resume continues the run
train --out "$TMP/m" --overwrite --seed 7 --json > /dev/null || fail "--overwrite run"
cmp -s "$TMP/m/weights.safetensors" "$TMP/weights.ref" && fail "--overwrite did not replace the weights"
"$FN" train --data "$TMP/data.h5" --preset tiny --updates 6 --valid-every 0 --quiet --out "$TMP/m" --seed 7 --resume --json > "$TMP/resume.json" || fail "--resume run"
grep -q '"updates":6' "$TMP/resume.json" || fail "resume summary: $(cat "$TMP/resume.json")"
echo "train_out_cli: all checks passed"
