#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Every example's --demo (examples/*.c), run in a temporary directory as
# make demo runs them, exits 0 and ends with the one verdict line the
# examples share: "<name>: ok" or "<name>: ok (<what>)" (on failure
# "<name>: FAILED (<reason>)" and exit 1).
#
# Usage: check_demos.sh BUILD_DIR CC   (run by make check)

build=${1:-build/cc}
cc=${2:-cc}
pass=0
fail=0
case $build in
/*) dir=$build/examples ;;
*) dir=$(pwd)/$build/examples ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-demos.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

for src in examples/*.c; do
    name=$(basename "$src" .c)
    if [ ! -x "$dir/$name" ]; then
        make -s "$build/examples/$name" CC="$cc" BUILD="$build" >/dev/null 2>&1 || {
            fail=$((fail + 1)); echo "FAIL demos: cannot build $dir/$name"; continue; }
    fi
    (cd "$tmp" && "$dir/$name" --demo) >"$tmp/log" 2>&1
    rc=$?
    last=$(tail -1 "$tmp/log")
    case $rc:$last in
    "0:$name: ok" | "0:$name: ok ("*")") pass=$((pass + 1)) ;;
    *)
        fail=$((fail + 1))
        echo "FAIL demos: $name --demo: exit $rc, last line [$last], want [$name: ok]"
        tail -5 "$tmp/log" | sed 's/^/    /'
        ;;
    esac
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
