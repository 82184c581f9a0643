#!/usr/bin/env bash
# Issue 57: the libraries never name a command-line flag in their messages; they throw with
# the option's field (core/option_error.h) and the CLI (src/cli/option_fields.cpp) and Python
# (src/python/option_keywords.cpp) each map fields to their own names. This fails on any
# string literal below src/ outside src/cli/ and src/python/ that names a flag (comments
# aside), and on any field an OptionError names that the CLI's table lacks. One live check:
# a library OptionError reaches the user as "--flag: ...".
# Usage: no_flags_in_library_errors_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
SRC="$(cd "$(dirname "$0")/../.." && pwd)/src"
[ -d "$SRC/core" ] || fail "no source tree at $SRC"

# string literals naming a flag, with whole-line and trailing comments dropped; the task page
# (env/task_page.cpp) is documentation of the CLI, not an error
found=$(cd "$SRC" && grep -rn --include=*.cpp --include=*.h '"[^"]*--[a-z][^"]*"' . \
  | grep -v '^\./cli/\|^\./python/\|^\./env/task_page\.cpp:' \
  | sed 's#\s//\s.*$##' | grep -v '^[^:]*:[0-9]*:\s*//' | grep '"[^"]*--[a-z][^"]*"')
[ -z "$found" ] || fail "library strings name command-line flags (throw an OptionError about the field instead):
$found"

# every field an OptionError names has its flag in the CLI's table
fields=$(cd "$SRC" && find . -path ./cli -prune -o -path ./python -prune -o \( -name '*.cpp' -o -name '*.h' \) -print \
  | xargs perl -0777 -ne 'while (/(?:FN_CHECK_OPTION\((?:[^;"]|"[^"]*")*?,|OptionError\(|option_ref\()\s*"([a-z0-9_.]+)"/g) { print "$1\n" }' \
  | sort -u)
[ -n "$fields" ] || fail "no OptionError fields found below $SRC: is the pattern stale?"
for f in $fields; do
  grep -q "{\"$f\", \"--" "$SRC/cli/option_fields.cpp" || fail "field '$f' has no flag in src/cli/option_fields.cpp"
done

# a planner option refused by the library, named by its flag
expect_error "--knots: must be in \[2, 64\] (got 70)" plan --task swingup --knots 70 --horizon 80 --frames 1
