#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# flashnerd finetune: a model trained on the nominal cartpole, fine-tuned on data of a
# "real" cartpole it never saw (pole 5x heavier, hinge damping 0.6: another MJCF), predicts that
# data better than before; the parent is left unchanged and recorded in the child's
# config.json; bad requests are refused.
# Usage: finetune_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
ROBOTS="$(cd "$(dirname "$0")/../../robots" && pwd)"

"$FN" gen --robot cartpole --trajectories 200 --steps 40 --seed 1 --out "$TMP/nominal.h5" --json > /dev/null || fail "gen nominal"
"$FN" train --data "$TMP/nominal.h5" --preset tiny --updates 300 --valid-every 0 --seed 1 --quiet --out "$TMP/m" \
  --json > /dev/null || fail "train"

mkdir -p "$TMP/real"
cp "$ROBOTS/cartpole.json" "$TMP/real/"
sed -e 's/mass="0.1"/mass="0.5"/' -e 's/limited="false"\/>/limited="false" damping="0.6"\/>/' \
  "$ROBOTS/cartpole.xml" > "$TMP/real/cartpole.xml"
grep -q 'damping="0.6"' "$TMP/real/cartpole.xml" && grep -q 'mass="0.5"' "$TMP/real/cartpole.xml" || fail "perturbing the MJCF"
FLASHNERD_ROBOTS="$TMP/real" "$FN" gen --robot cartpole --trajectories 150 --steps 40 --seed 2 --out "$TMP/real_train.h5" \
  --json > /dev/null || fail "gen real"
FLASHNERD_ROBOTS="$TMP/real" "$FN" gen --robot cartpole --trajectories 64 --steps 40 --seed 3 --out "$TMP/real_test.h5" \
  --json > /dev/null || fail "gen real test"

nrmse() {  # model -> NRMSE at H = 10 on the real test data
  "$FN" eval --model "$1" --data "$TMP/real_test.h5" --horizons 1,10 --allow-other-mjcf --json 2> /dev/null |
    /usr/bin/python3 -c 'import json,sys; j = json.load(sys.stdin); print(j.get("models", [j])[0]["nrmse"][1])'
}
before=$(nrmse "$TMP/m") || fail "eval before"
cp "$TMP/m/weights.safetensors" "$TMP/parent.ref"
"$FN" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/tuned" --updates 300 --valid-every 25 \
  --patience 4 --quiet --json > "$TMP/finetune.json" 2> "$TMP/finetune.err" || { cat "$TMP/finetune.err"; fail "finetune"; }
grep -q "another MJCF\|mjcf" "$TMP/finetune.err" || { cat "$TMP/finetune.err"; fail "no warning about the other MJCF"; }
after=$(nrmse "$TMP/tuned") || fail "eval after"
echo "real-data NRMSE at H=10: parent $before, fine-tuned $after"
/usr/bin/python3 -c "import sys; sys.exit(0 if $after < 0.8 * $before else 1)" || fail "fine-tuning did not lower the error ($before -> $after)"
cmp -s "$TMP/m/weights.safetensors" "$TMP/parent.ref" || fail "the parent model changed"
grep -q '"parent_model"' "$TMP/tuned/config.json" || fail "config.json does not record the parent"
grep -q "real_train.h5" "$TMP/tuned/config.json" || fail "config.json does not record the data"

expect_error "fine-tuning never writes into its parent" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/m"
expect_error "already holds a model artifact" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/tuned"
expect_error "--dropout: must be in .0, 1), got 1.5" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/x" --dropout 1.5
"$FN" gen --robot arm7 --trajectories 4 --steps 10 --seed 1 --out "$TMP/arm.h5" --json > /dev/null || fail "gen arm7"
expect_error "--lr-warmup: must be in" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/x" --updates 10 --lr-warmup 10
# a warm-up: the logged learning rate rises to --lr over the first updates, then decays
"$FN" finetune --model "$TMP/m" --data "$TMP/real_train.h5" --out "$TMP/warm" --updates 6 --lr 1e-4 --lr-warmup 4 \
  --valid-every 0 --quiet --json > /dev/null || fail "finetune --lr-warmup"
lrs=$(cut -d, -f2 "$TMP/warm/train_log.csv" | sed 1d | tr '\n' ' ')
[ "$lrs" = "2.5e-05 5e-05 7.5e-05 0.0001 0.0001 1e-05 " ] || fail "--lr-warmup 4: logged learning rates $lrs"
expect_error "arm7" finetune --model "$TMP/m" --data "$TMP/arm.h5" --out "$TMP/y"
echo "finetune_cli: all checks passed"
