# shellcheck shell=sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Sourced by tests/check_fastpath.sh and tests/check_fastpath_tpt.sh (not
# a check of its own: make check runs only tests/check_*.sh). The part the
# two share: build a differential test twice, each with its own copy of
# the core, once as shipped and once with -DOFL_NO_FAST_PATH; link each
# copy into one object that exports its run function alone (ld -r,
# objcopy --keep-global-symbol); link both into one program with its main
# and run it on the seeds. The program compares the two and prints the
# "N passed, M failed" line; its exit status is the caller's.
#
# fp_diff LABEL CC DIR RUN MAIN SEEDS EXTRA_FLAGS SRC...
#   LABEL        names the check in FAIL lines ("fastpath tpt")
#   CC           the compiler
#   DIR          build directory of the objects and the program
#   RUN          run function: fp_diff defines FP_RUN=RUN_fast / RUN_gen
#   MAIN         the program's main (links fast.o and gen.o)
#   SEEDS        the program's argument
#   EXTRA_FLAGS  further compiler flags (include paths)
#   SRC...       the sources of each copy, the core among them; the
#                program is named after the last (DIR/diff_qp)
# Uses the caller's $CFLAGS as well; $FP_FAST_CFLAGS goes to the fast
# copy's compiles alone and $FP_LDFLAGS to the program's link (make
# coverage: the fast copy built with --coverage, so that the differential's
# run counts in offload.c's coverage, and the general copy not, whose
# lines would be merged with the fast copy's). Any step that fails
# prints "FAIL LABEL: ..." and "0 passed, 1 failed" and exits 1.

fp_fail() {
    echo "FAIL $fp_label: $1"
    echo "0 passed, 1 failed"
    exit 1
}

fp_diff() {
    fp_label=$1 fp_cc=$2 fp_dir=$3 fp_run=$4 fp_main=$5 fp_seeds=$6
    fp_extra=$7
    shift 7
    mkdir -p "$fp_dir" || fp_fail "cannot create $fp_dir"
    command -v objcopy >/dev/null 2>&1 || fp_fail "objcopy not installed"
    fp_flags="-std=c11 -Wall -Wextra -Werror -pedantic -O2 $CFLAGS -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. $fp_extra"
    for v in fast gen; do
        def=${FP_FAST_CFLAGS:-}
        [ $v = gen ] && def=-DOFL_NO_FAST_PATH
        objs=
        for src in "$@"; do
            o="$fp_dir/$v.$(basename "$src" .c).o"
            # shellcheck disable=SC2086
            $fp_cc $fp_flags $def -DFP_RUN="${fp_run}_$v" -c "$src" -o "$o" ||
                fp_fail "cannot compile $src ($v)"
            objs="$objs $o"
        done
        # shellcheck disable=SC2086
        ld -r -o "$fp_dir/$v.all.o" $objs || fp_fail "ld -r ($v)"
        objcopy --keep-global-symbol="${fp_run}_$v" "$fp_dir/$v.all.o" \
            "$fp_dir/$v.o" || fp_fail "objcopy ($v)"
    done
    fp_exe=$fp_dir/$(basename "$src" .c) # after the last source
    # shellcheck disable=SC2086
    $fp_cc $fp_flags ${FP_LDFLAGS:-} "$fp_main" "$fp_dir/fast.o" \
        "$fp_dir/gen.o" -o "$fp_exe" || fp_fail "cannot link $fp_exe"
    "$fp_exe" "$fp_seeds"
}
