#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make check's driver. Runs every producer of an "N passed, M failed" line
# in turn, each to the end even when an earlier one failed: the corpus
# replays (one check per replayed input), the test program (every suite),
# each tests/check_*.sh. Their own lines stay; the very last line is the
# grand total, "total: N passed, M failed", and the exit status is 1 when
# M > 0. A producer that exits non-zero without reporting a failure (a
# crash, a missing tool) counts as one failure.
#
# Usage: mk/check.sh BUILD_DIR CC "HARNESS..." SCRIPT...
# OFL_CHECK_SUITES="a b", when set, names the suites the test program runs
# (make coverage: the deterministic ones).

build=$1 cc=$2 fuzzers=$3
OFL_CHECK_SUITES=${OFL_CHECK_SUITES:-}
shift 3
total_p=0
total_f=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# run NAME CMD...: runs CMD, its output shown and kept; adds its last
# "N passed, M failed" line to the total.
run() {
    name=$1
    shift
    { "$@" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/out"
    rc=$(cat "$tmp/rc")
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/out" | tail -1)
    p=0 f=0
    if [ -n "$line" ]; then
        p=${line%% passed*}
        f=${line#*, }
        f=${f%% failed}
    fi
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "FAIL $name: exit $rc without a failure counted"
        f=1
    fi
    total_p=$((total_p + p))
    total_f=$((total_f + f))
}

# The corpus replays: each harness prints "replayed N inputs" and stops at
# the first input that trips it.
replay() {
    p=0 f=0
    for h in $fuzzers; do
        dirs=""
        for d in fuzz/$h/corpus fuzz/$h/regress; do
            [ -d "$d" ] && dirs="$dirs $d"
        done
        [ -n "$dirs" ] || continue
        # shellcheck disable=SC2086
        if out=$("$build/fuzz/$h" $dirs 2>&1); then
            echo "$out"
            n=$(echo "$out" | sed -n 's/.*: replayed \([0-9]*\) inputs$/\1/p' | tail -1)
            p=$((p + ${n:-0}))
        else
            echo "$out"
            echo "FAIL fuzz replay $h"
            f=$((f + 1))
        fi
    done
    echo "$p passed, $f failed"
    [ "$f" = 0 ]
}

echo "== fuzz corpus replay"
run "fuzz corpus replay" replay
echo "== $build/tests $OFL_CHECK_SUITES"
# shellcheck disable=SC2086
run "$build/tests" "$build/tests" $OFL_CHECK_SUITES
for s in "$@"; do
    echo "== $s"
    run "$s" sh "$s" "$build" "$cc"
done
echo "total: $total_p passed, $total_f failed"
[ "$total_f" = 0 ]
