#!/usr/bin/env bash
# requires: libtorch (the script trains models)
# flashnerd train --fused-update: the fused pass trains to the weights autograd reaches (same
# data, seed and batches, fp32, to float summation order; another seed lands much further), at
# 2 threads, with 2 data-parallel workers and with variable contacts too; config.json records it; a model it cannot
# train is refused with the reason and the flag, before any file is written.
# Usage: fused_update_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
PY=/usr/bin/python3

"$FN" gen --robot cartpole --trajectories 40 --steps 50 --seed 3 --out "$TMP/d.h5" > /dev/null || fail "gen"
train() { timeout -k 5 300 "$FN" train --data "$TMP/d.h5" --preset tiny --batch 16 --updates 40 --valid-every 20 --quiet "$@"; }

train --seed 5 --out "$TMP/autograd" || fail "train"
train --seed 5 --out "$TMP/fused" --fused-update || fail "train --fused-update"
train --seed 5 --out "$TMP/fused2" --fused-update --threads 2 || fail "train --fused-update --threads 2"
train --seed 5 --out "$TMP/workers" --fused-update --workers 2 2> "$TMP/workers.err" || { cat "$TMP/workers.err"; fail "train --fused-update --workers 2"; }
train --seed 6 --out "$TMP/other" || fail "train, other seed"
other=$(weight_diff "$TMP/autograd" "$TMP/other") || fail "comparing weights"
for run in fused fused2 workers; do
  diff=$(weight_diff "$TMP/autograd" "$TMP/$run") || fail "comparing weights"
  echo "relative max weight difference, $run vs autograd: $diff (another seed: $other)"
  "$PY" -c "import sys; sys.exit(not (float('$diff') < 2e-3 and 20 * float('$diff') < float('$other')))" \
    || fail "$run differs from autograd by $diff (another seed differs by $other)"
done
# variable contacts: the encoder trains through autograd beside the fused trunk
"$FN" gen --robot quadruped_platform --trajectories 16 --steps 40 --seed 3 --out "$TMP/c.h5" > /dev/null || fail "gen, contacts"
for mode in autograd fused; do
  flag=(); [ $mode = fused ] && flag=(--fused-update)
  timeout -k 5 300 "$FN" train --data "$TMP/c.h5" --preset tiny --variable-contacts --batch 16 --updates 30 --valid-every 15 \
    --seed 5 --quiet --out "$TMP/contacts_$mode" "${flag[@]}" > /dev/null || fail "train --variable-contacts ${flag[*]}"
done
diff=$(weight_diff "$TMP/contacts_autograd" "$TMP/contacts_fused") || fail "comparing weights"
echo "relative max weight difference, variable contacts, fused vs autograd: $diff"
"$PY" -c "import sys; sys.exit(not float('$diff') < 2e-3)" || fail "variable contacts: fused differs from autograd by $diff"
grep -q '"update": "fused, 2 threads"' "$TMP/fused2/config.json" || fail "config.json does not record the fused update"
grep -q '"update": "autograd"' "$TMP/autograd/config.json" || fail "config.json does not record autograd"

# refused: NeRD, dropout (finetune), with the reason and the flag; nothing written
train --seed 5 --arch nerd --out "$TMP/nerd" --fused-update 2> "$TMP/nerd.err" && fail "NeRD trained with --fused-update"
grep -q "NeRD" "$TMP/nerd.err" && grep -q -- "--fused-update" "$TMP/nerd.err" || { cat "$TMP/nerd.err"; fail "the refusal names neither NeRD nor --fused-update"; }
[ ! -e "$TMP/nerd/checkpoint.pt" ] || fail "a refused run wrote a checkpoint"
"$FN" finetune --data "$TMP/d.h5" --model "$TMP/autograd" --out "$TMP/ft" --updates 5 --quiet --fused-update 2> "$TMP/ft.err" \
  && fail "dropout fine-tuning ran with --fused-update"
grep -q "dropout" "$TMP/ft.err" || { cat "$TMP/ft.err"; fail "the refusal does not name dropout"; }
echo "fused_update_cli: OK"
