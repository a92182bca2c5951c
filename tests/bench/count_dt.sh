#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Issue 6's exchange rate in instructions, which do not move with load:
# callgrind counts the instructions of COUNT exchanges of the library
# (dt_count_library), of the floor the bench writes (the data movement of
# an exchange with nothing checked, through the same sim port:
# dt_count_floor) and of DPDK's rte_ring doing the bench's baseline
# (dt_count_rte_ring, when installed). Informational: the target
# is a rate (make bench), and an instruction is not a unit of time; this
# says where the instructions are. It fails only when counting fails.
#
# Usage: count_dt.sh [BUILD_DIR]   (run by make bench-count [CC=...])
# Built without AVX-512 (-march=x86-64-v2 on x86-64), which valgrind cannot
# decode; the counts are of that build.

build=${1:-build/callgrind}
pass=0
fail=0

if ! command -v valgrind >/dev/null 2>&1; then
    if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
        echo "FAIL dt count: valgrind not installed (OFL_REQUIRE_TOOLS=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "SKIP dt count: valgrind not installed"
    exit 0
fi

march=
[ "$(uname -m)" = x86_64 ] && march=-march=x86-64-v2
make -s BUILD="$build" CFLAGS="$march -gdwarf-4" "$build/bench" >/dev/null ||
    { echo "FAIL dt count: cannot build $build/bench"; echo "0 passed, 1 failed"; exit 1; }

# Instructions collected inside function $1, or nothing.
count() {
    OFL_BENCH_DT_COUNT=1 valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null --toggle-collect="$1" \
        "$build/bench" dt >"$build/dt_count.out" 2>"$build/dt_count.$1.log"
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$build/dt_count.$1.log"
}

n=32000
lib=$(count dt_count_library)
flo=$(count dt_count_floor)
if ! grep -q "^bench: dt_count ran $n exchanges" "$build/dt_count.out"; then
    echo "FAIL dt count: the counting run failed:"
    cat "$build/dt_count.out"
    fail=$((fail + 1))
elif [ -z "$lib" ] || [ -z "$flo" ] || [ "$lib" -eq 0 ] || [ "$flo" -eq 0 ]; then
    echo "FAIL dt count: callgrind counted nothing (library '$lib', floor '$flo')"
    fail=$((fail + 1))
else
    rte=
    grep -q "and rte_ring" "$build/dt_count.out" && rte=$(count dt_count_rte_ring)
    awk -v l="$lib" -v f="$flo" -v r="${rte:-0}" -v n="$n" 'BEGIN {
        printf "bench: dt_exchange_instructions %.1f instr/exchange, floor %.1f", l / n, f / n
        if (r > 0)
            printf ", rte_ring %.1f: library/rte_ring %.2f, floor/rte_ring %.2f", r / n, l / r, f / r
        printf " (info)\n" }'
    if [ -n "$rte" ] && [ "$rte" -eq 0 ]; then
        echo "FAIL dt count: callgrind counted nothing for rte_ring"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
