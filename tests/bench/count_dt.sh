#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Issue 6's exchange rate in instructions, which do not move with load:
# callgrind counts the instructions of COUNT exchanges of the library
# (dt_count_library), of the floor the bench writes (the data movement of
# an exchange with nothing checked, through the same sim port:
# dt_count_floor) and of DPDK's rte_ring doing the bench's baseline
# (dt_count_rte_ring, when installed). Issue 6's target is a rate (make
# bench), and an instruction is not a unit of time; the first line says
# where the instructions are (info). Issue 30 sets a bar on the ratio of
# the two counts (each the whole counted function, loop included, per
# exchange): dt_exchange_vs_floor, target <= 1.3, printed by count_figure
# (count_lib.sh), whose miss fails only when gated (OFL_COUNT_GATE=1 or
# COUNT_GATED); a failure to count always fails.
#
# Usage: count_dt.sh [BUILD_DIR]   (run by make bench-count [CC=...])
# Built without AVX-512 (-march=x86-64-v2 on x86-64), which valgrind cannot
# decode; the counts are of that build.

build=${1:-build/callgrind}
pass=0
fail=0

what="dt count"
. "$(dirname "$0")/count_lib.sh"
count_setup

# Instructions collected inside function $1, or nothing.
count() {
    count_in OFL_BENCH_DT_COUNT dt "$1"
}

n=32000
lib=$(count dt_count_library)
flo=$(count dt_count_floor)
if ! grep -q "^bench: dt_count ran $n exchanges" "$build/count.dt.out"; then
    echo "FAIL dt count: the counting run failed:"
    cat "$build/count.dt.out"
    fail=$((fail + 1))
elif [ -z "$lib" ] || [ -z "$flo" ] || [ "$lib" -eq 0 ] || [ "$flo" -eq 0 ]; then
    echo "FAIL dt count: callgrind counted nothing (library '$lib', floor '$flo')"
    fail=$((fail + 1))
else
    rte=
    grep -q "and rte_ring" "$build/count.dt.out" && rte=$(count dt_count_rte_ring)
    awk -v l="$lib" -v f="$flo" -v r="${rte:-0}" -v n="$n" 'BEGIN {
        printf "bench: dt_exchange_instructions %.1f instr/exchange, floor %.1f", l / n, f / n
        if (r > 0)
            printf ", rte_ring %.1f: library/rte_ring %.2f, floor/rte_ring %.2f", r / n, l / r, f / r
        printf " (info)\n" }'
    count_figure dt_exchange_vs_floor \
        "$(awk -v l="$lib" -v f="$flo" 'BEGIN { printf "%.2f", l / f }')" x "<=" 1.3
    if [ -n "$rte" ] && [ "$rte" -eq 0 ]; then
        echo "FAIL dt count: callgrind counted nothing for rte_ring"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
