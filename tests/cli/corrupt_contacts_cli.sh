#!/usr/bin/env bash
# requires: libtorch (train --variable-contacts)
# Issue 13, defect 2: a dataset whose contact/count exceeds the capacity, or whose contact
# link is outside the robot, crashed `train --variable-contacts` (SIGSEGV, a libtorch
# backtrace). Every command now refuses it with one line naming the file, the array, the
# trajectory and step, and the valid range. Usage: corrupt_contacts_cli.sh flashnerd h5_set
source "$(dirname "$0")/common.bash" "$1"
H5SET="$2"

"$FN" gen --robot humanoid --trajectories 3 --steps 5 --seed 1 --out "$TMP/d.h5" --json > "$TMP/gen.json" 2>/dev/null || fail "gen"
K=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['contact_capacity'])" "$TMP/gen.json" 2>/dev/null || echo 64)
cp "$TMP/d.h5" "$TMP/count.h5"
# contact/count is (N, T+1): trajectory 2, frame 3 = flat index 2*6+3
"$H5SET" "$TMP/count.h5" contact/count 15 20000000 || fail "h5_set"
TRAIN=(train --variable-contacts --preset tiny --updates 2 --valid-every 0 --quiet)
expect_error "trajectory 2, step 3: contact/count is 20000000, outside 0..$K" "${TRAIN[@]}" --data "$TMP/count.h5" --out "$TMP/m1"
grep -q "count.h5" "$TMP/out.txt" || fail "the message does not name the file: $(cat "$TMP/out.txt")"
! grep -qi "backtrace\|segmentation" "$TMP/out.txt" || fail "not a one-line error: $(cat "$TMP/out.txt")"
expect_error "contact/count is 20000000" eval --model "$TMP/none" --data "$TMP/count.h5" --horizons 1

# a link index outside the robot: frame 0 of trajectory 0 gets one row, on link 5000
cp "$TMP/d.h5" "$TMP/link.h5"
"$H5SET" "$TMP/link.h5" contact/count 0 1 || fail "h5_set"
"$H5SET" "$TMP/link.h5" contact/link 0 5000 || fail "h5_set"
expect_error "contact/link of row 0 is 5000, outside" "${TRAIN[@]}" --data "$TMP/link.h5" --out "$TMP/m2"
echo "corrupt_contacts_cli: ok"
