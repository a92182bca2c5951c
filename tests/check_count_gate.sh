#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The instruction-count gate of make bench-count (count_figure in
# tests/bench/count_lib.sh) on made-up figures, without valgrind: a met
# target never fails; a missed one fails when its name is in COUNT_GATED,
# when NAME@CC is there and OFL_COUNT_CC is CC, and with OFL_COUNT_GATE=1;
# it does not fail when only NAME@other-compiler is gated, nor when the
# name is only a prefix of a gated one. Every figure line is printed.
#
# Usage: check_count_gate.sh BUILD_DIR CC   (run by make check)

build=$(mktemp -d "${TMPDIR:-/tmp}/ofl-count-gate.XXXXXX")
trap 'rm -rf "$build"' EXIT
what="count gate"
# shellcheck source=tests/bench/count_lib.sh
. "$(dirname "$0")/bench/count_lib.sh"
passed=0 failed=0

# expect FAILS GATED CC NAME VALUE OP TARGET [GATE_ALL]: count_figure with
# COUNT_GATED=GATED and OFL_COUNT_CC=CC must add FAILS to fail.
expect() {
    want=$1 COUNT_GATED=$2 OFL_COUNT_CC=$3
    fail=0
    OFL_COUNT_GATE=${8:-0} count_figure "$4" "$5" instr "$6" "$7" >/dev/null
    if [ "$fail" = "$want" ]; then
        passed=$((passed + 1))
    else
        echo "FAIL count gate: $4 $5 $6 $7 gated \"$2\" cc $3" \
            "all ${8:-0}: $fail failures, expected $want"
        failed=$((failed + 1))
    fi
}

expect 0 "a_fig" gcc a_fig 800 "<=" 800       # met at the bar
expect 1 "a_fig" gcc a_fig 801 "<=" 800       # missed, gated
expect 0 "" gcc a_fig 801 "<=" 800            # missed, not gated
expect 1 "" gcc a_fig 801 "<=" 800 1          # OFL_COUNT_GATE=1
expect 1 "x a_fig@gcc y" gcc a_fig 801 "<=" 800   # gated for this CC
expect 0 "x a_fig@gcc y" clang a_fig 801 "<=" 800 # for the other only
expect 0 "a_fig@gcc" "" a_fig 801 "<=" 800    # compiler not named
expect 0 "a_fig_more a_fig@gcc2" gcc a_fig 801 "<=" 800 # prefixes only
expect 0 "a_fig@gcc" gcc a_fig 799 "<=" 800   # met, gated
expect 1 "a_fig" clang a_fig 0.5 ">=" 1       # the other direction
expect 0 "a_fig" clang a_fig 1 ">=" 1
# the lines go to count-figures.txt as well
if [ "$(grep -c '^bench-count: a_fig ' "$build/count-figures.txt")" = 11 ]; then
    passed=$((passed + 1))
else
    echo "FAIL count gate: count-figures.txt does not hold the 11 lines"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
