#!/usr/bin/env bash
# Every model and ensemble shipped in models/ loads and reproduces the rollout NRMSE its
# provenance records on the small held-out check set, regenerated here from the recorded gen
# arguments (fresh MuJoCo data, fp32 products; "{model}" stands for the model's directory, where
# `flashnerd fit` ships the robot.json it sampled with; an ensemble is judged by its members'
# mean). Usage: shipped_models_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
MODELS="$(cd "$(dirname "$0")/../../models" 2>/dev/null && pwd)" || { echo "shipped_models_cli: no models/"; exit 0; }
checked=0
for record in "$MODELS"/*/provenance.json; do
  [ -f "$record" ] || continue
  dir=$(dirname "$record")
  name=$(basename "$dir")
  if [ -f "$dir/ensemble.json" ]; then
    check_shipped_size "$name" $((12 * 1024 * 1024)) "12 MB a shipped ensemble" "$dir"/member_*/weights.safetensors \
      "$dir"/member_*/config.json
  else
    check_shipped_size "$name" $((6 * 1024 * 1024)) "6 MB a shipped model" "$dir/weights.safetensors" "$dir/config.json"
  fi
  read -r gen_args horizons <<< "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["check"]; print(c["gen"].replace("{model}", sys.argv[2]).replace(" ", "\x1f"), ",".join(map(str, c["horizons"])))' "$record" "$dir")"
  IFS=$'\x1f' read -ra gen <<< "$gen_args"
  "$FN" gen "${gen[@]}" --out "$TMP/$name.h5" --json > /dev/null || fail "$name: gen ${gen[*]}"
  "$FN" eval --model "$dir" --data "$TMP/$name.h5" --horizons "$horizons" --precision fp32 --json \
    > "$TMP/$name.json" || fail "$name: eval"
  python3 - "$record" "$TMP/$name.json" <<'PY' || fail "$name: rollout NRMSE differs from its record"
import json, sys
check = json.load(open(sys.argv[1]))["check"]
result = json.load(open(sys.argv[2]))
if "models" in result:  # an ensemble: its members, then their mean
    result = next(m for m in result["models"] if "(mean of" in m["model"])
got = result["nrmse"]
tol = check["relative_tolerance"]
for h, want, have in zip(check["horizons"], check["nrmse"], got):
    ok = abs(have - want) <= tol * want
    print("  H=%-4d recorded %.5f  now %.5f  %s" % (h, want, have, "ok" if ok else "DIFFERS"))
    if not ok: sys.exit(1)
PY
  checked=$((checked + 1))
done
echo "shipped_models_cli: $checked shipped models reproduce their records"
