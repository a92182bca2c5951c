# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Shared by the instruction counters (tests/bench/count_*.sh), sourced
# after they set build and what (their name in messages):
#   count_setup         exits 0 (SKIP) without valgrind, 1 when it is
#                       required (OFL_REQUIRE_TOOLS=1) or the bench does
#                       not build; builds $build/bench without AVX-512
#                       (-march=x86-64-v2 on x86-64), which valgrind cannot
#                       decode, and with DWARF 4 (valgrind 3.19 gives up on
#                       clang 14's DWARF 5)
#   count_in ENV BENCH FN
#                       runs "bench BENCH" with ENV=1 under callgrind
#                       collecting inside function FN only; prints the
#                       instructions collected (nothing on failure); the
#                       bench's output is in $build/count.BENCH.out
#   count_share ENV BENCH FN
#                       the same, but keeps callgrind's output file
#                       ($build/count.FN.callgrind) and splits it by owner
#                       with count_share.py (see its header: the library,
#                       the sim port, the CRC, the wire, the loop); prints
#                       its line "total T lib L port P crc C wire W loop B
#                       floor F", nothing on failure
#   count_figure NAME VALUE UNIT OP TARGET
#                       prints "bench-count: NAME VALUE UNIT (target OP
#                       TARGET: ok|miss)" and appends it to
#                       $build/count-figures.txt (count_table.sh makes the
#                       README's table of it); a miss fails the script
#                       (fail += 1) only when the figure is gated, below
#                       (for every compiler, or for OFL_COUNT_CC's)
#
# The gate. Issue 30's targets are instruction counts, which do not move
# with load, so they can fail CI. A miss of a target not yet met is
# information (the line says "miss", the script exits 0); a figure is
# gated when all of them are (OFL_COUNT_GATE=1 in the environment) or when
# it is named in COUNT_GATED below: the targets met, which must stay met.
# The session that meets a target adds its name there. A failure to count
# (no output, a failed run) always fails. dt_exchange_vs_floor was met on
# 2026-11-29 with a thin margin (gcc 229.8 instructions against a bar of
# 231.7): a change that costs the dt exchange 2 instructions fails CI.
# write4k_payload_passes_per_side was met on 2026-11-30 (the fused copy +
# CRC hooks: one pass per side).
#
# NAME@CC gates a figure for one compiler only (CC as make bench-count
# names it: the Makefile passes OFL_COUNT_CC=$(CCNAME)), for a target met
# with that compiler and not yet with the other, so that what is met
# stays met; it becomes the plain NAME when the other meets it too (issue
# 30 asks for every target with both compilers). send64_library was met
# with gcc first (796 against 800), then with both on 2026-12-02 (gcc
# 775, clang 792: a change that costs clang's Send 9 fails CI).
COUNT_GATED="cm4_offload_o_bytes_added dt_exchange_vs_floor write4k_payload_passes_per_side send64_library"

count_setup() {
    if ! command -v valgrind >/dev/null 2>&1; then
        if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
            echo "FAIL $what: valgrind not installed (OFL_REQUIRE_TOOLS=1)"
            echo "0 passed, 1 failed"
            exit 1
        fi
        echo "SKIP $what: valgrind not installed"
        exit 0
    fi
    march=
    [ "$(uname -m)" = x86_64 ] && march=-march=x86-64-v2
    make -s BUILD="$build" CFLAGS="$march -gdwarf-4" "$build/bench" \
        >/dev/null || {
        echo "FAIL $what: cannot build $build/bench"
        echo "0 passed, 1 failed"
        exit 1
    }
}

count_in() {
    env "$1=1" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        --toggle-collect="$3" "$build/bench" "$2" \
        >"$build/count.$2.out" 2>"$build/count.$2.$3.log"
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' \
        "$build/count.$2.$3.log"
}

count_share() {
    rm -f "$build/count.$3.callgrind"
    env "$1=1" LD_BIND_NOW=1 valgrind --tool=callgrind \
        --callgrind-out-file="$build/count.$3.callgrind" \
        --toggle-collect="$3" "$build/bench" "$2" \
        >"$build/count.$2.out" 2>"$build/count.$2.$3.log" || return
    "${PYTHON:-python3}" "$(dirname "$0")/count_share.py" \
        "$build/count.$3.callgrind" "$(dirname "$0")/../.." \
        >"$build/count.$3.share" 2>&1
    grep '^total ' "$build/count.$3.share" || cat "$build/count.$3.share" >&2
}

count_figure() {
    st=miss
    if awk -v v="$2" -v op="$4" -v t="$5" 'BEGIN {
        exit !(op == "<=" ? v + 0 <= t + 0 : v + 0 >= t + 0) }'; then
        st=ok
    fi
    echo "bench-count: $1 $2 $3 (target $4 $5: $st)" |
        tee -a "$build/count-figures.txt"
    gated=" $COUNT_GATED "
    [ "${OFL_COUNT_GATE:-0}" = 1 ] && gated=" $1 "
    if [ "$st" = miss ]; then
        case "$gated" in
        *" $1 "* | *" $1@${OFL_COUNT_CC:-} "*)
            echo "FAIL $1: target $4 $5 missed, and the figure is gated"
            fail=$((fail + 1)) ;;
        esac
    fi
}
