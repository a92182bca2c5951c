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
