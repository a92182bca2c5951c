#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The fast paths of the qp engine (OFL_FAST_PATH in offload.c) against its
# general paths, on the same inputs: builds tests/fastpath/diff_qp.c twice,
# each with its own copy of the core, the sim port and the qp rig, once
# with the core as shipped and once with -DOFL_NO_FAST_PATH (the general
# paths only, as in a size build); each copy is linked into one object that
# exports its run function alone (ld -r, objcopy --keep-global-symbol), and
# diff_main.c runs both on the same seeds and compares the digests of
# everything each run returned, completed, placed and counted (see
# diff_qp.c). One check per seed.
#
# Usage: check_fastpath.sh BUILD_DIR CC   (run by make check)
# FASTPATH_SEEDS=N: seeds to run (default 1500).

build=${1:-build/cc}
cc=${2:-cc}
seeds=${FASTPATH_SEEDS:-1500}
d=$build/fastpath
mkdir -p "$d" || exit 1

fail() {
    echo "FAIL fastpath: $1"
    echo "0 passed, 1 failed"
    exit 1
}

command -v objcopy >/dev/null 2>&1 || fail "objcopy not installed"
flags="-std=c11 -Wall -Wextra -Werror -pedantic -O2 $CFLAGS -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. -Itests/support"
for v in fast gen; do
    def=
    [ $v = gen ] && def=-DOFL_NO_FAST_PATH
    objs=
    for src in offload.c ports/sim/ofl_sim.c tests/support/qp_rig.c \
        tests/fastpath/diff_qp.c; do
        o="$d/$v.$(basename "$src" .c).o"
        # shellcheck disable=SC2086
        $cc $flags $def -DFP_RUN=fp_run_$v -c "$src" -o "$o" ||
            fail "cannot compile $src ($v)"
        objs="$objs $o"
    done
    # shellcheck disable=SC2086
    ld -r -o "$d/$v.all.o" $objs || fail "ld -r ($v)"
    objcopy --keep-global-symbol=fp_run_$v "$d/$v.all.o" "$d/$v.o" ||
        fail "objcopy ($v)"
done
# shellcheck disable=SC2086
$cc $flags tests/fastpath/diff_main.c "$d/fast.o" "$d/gen.o" \
    -o "$d/diff_qp" || fail "cannot link $d/diff_qp"
"$d/diff_qp" "$seeds"
