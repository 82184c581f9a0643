#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# `flashnerd train --activation/--norm`: each choice round-trips through the artifact's
# config.json and the model it trains steps through the engine; unknown values are refused
# with the list of valid ones, NeRD refuses them, and a resume must keep them.
# Usage: block_choice_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"

"$FN" gen --robot cartpole --trajectories 20 --steps 20 --seed 1 --out "$TMP/data.h5" --json > /dev/null || fail "gen"
TRAIN=(train --data "$TMP/data.h5" --preset tiny --updates 3 --valid-every 0 --quiet)

for choice in "glu rmsnorm" "mishglu layernorm" "reglu layernorm"; do
  set -- $choice
  out="$TMP/m_$1_$2"
  "$FN" "${TRAIN[@]}" --activation "$1" --norm "$2" --out "$out" --json > /dev/null || fail "train --activation $1 --norm $2"
  grep -q "\"activation\": *\"$1\"" "$out/config.json" || fail "$1 not recorded in config.json"
  grep -q "\"norm\": *\"$2\"" "$out/config.json" || fail "$2 not recorded in config.json"
  "$FN" eval --model "$out" --data "$TMP/data.h5" --horizons 1,5 --json > "$TMP/eval.json" || fail "eval of $1 $2"
  grep -q '"nrmse"' "$TMP/eval.json" || fail "eval of $1 $2: $(head -c 300 "$TMP/eval.json")"
done
# the default stays swiglu + rmsnorm
"$FN" "${TRAIN[@]}" --out "$TMP/default" --json > /dev/null || fail "default train"
grep -q '"activation": *"swiglu"' "$TMP/default/config.json" || fail "default activation"
grep -q '"norm": *"rmsnorm"' "$TMP/default/config.json" || fail "default norm"

expect_error "--activation: must be one of swiglu, geglu, reglu, glu or mishglu, got 'gelu'" \
  "${TRAIN[@]}" --activation gelu --out "$TMP/x"
expect_error "--norm: must be one of rmsnorm or layernorm, got 'batchnorm'" "${TRAIN[@]}" --norm batchnorm --out "$TMP/x"
expect_error "published GPT-2 block" "${TRAIN[@]}" --arch nerd --activation glu --out "$TMP/x"
[ -e "$TMP/x" ] && [ -n "$(ls "$TMP/x")" ] && fail "a refused run left files in --out"
# a resume keeps the checkpoint's choice
"$FN" train --data "$TMP/data.h5" --preset tiny --updates 5 --valid-every 0 --quiet --out "$TMP/m_glu_rmsnorm" \
  --resume --activation mishglu > "$TMP/out.txt" 2>&1 && fail "resume with another activation"
grep -q "trained with activation glu, not mishglu" "$TMP/out.txt" || { cat "$TMP/out.txt"; fail "resume message"; }
echo "block_choice_cli: all checks passed"
