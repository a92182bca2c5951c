#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The TPT's remote and local fast paths (ofl_tpt_check_translate, _access,
# _local) against its precise paths, on the same inputs: builds
# tests/fastpath/diff_tpt.c twice, each with its own copy of the core, once
# as shipped and once with -DOFL_NO_FAST_PATH (every remote check through
# the precise path); each copy is linked into one object that exports its
# run function alone (ld -r, objcopy --keep-global-symbol), and
# diff_tpt_main.c runs both on the same seeds and compares the digests of
# every result (see diff_tpt.c). One check per seed.
#
# Usage: check_fastpath_tpt.sh BUILD_DIR CC   (run by make check)
# FASTPATH_TPT_SEEDS=N: seeds to run (default 300, 3000 accesses each).

build=${1:-build/cc}
cc=${2:-cc}
seeds=${FASTPATH_TPT_SEEDS:-300}
d=$build/fastpath_tpt
mkdir -p "$d" || exit 1

fail() {
    echo "FAIL fastpath tpt: $1"
    echo "0 passed, 1 failed"
    exit 1
}

command -v objcopy >/dev/null 2>&1 || fail "objcopy not installed"
flags="-std=c11 -Wall -Wextra -Werror -pedantic -O2 $CFLAGS -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I."
for v in fast gen; do
    def=
    [ $v = gen ] && def=-DOFL_NO_FAST_PATH
    objs=
    for src in offload.c tests/fastpath/diff_tpt.c; do
        o="$d/$v.$(basename "$src" .c).o"
        # shellcheck disable=SC2086
        $cc $flags $def -DFP_RUN=fp_tpt_run_$v -c "$src" -o "$o" ||
            fail "cannot compile $src ($v)"
        objs="$objs $o"
    done
    # shellcheck disable=SC2086
    ld -r -o "$d/$v.all.o" $objs || fail "ld -r ($v)"
    objcopy --keep-global-symbol=fp_tpt_run_$v "$d/$v.all.o" "$d/$v.o" ||
        fail "objcopy ($v)"
done
# shellcheck disable=SC2086
$cc $flags tests/fastpath/diff_tpt_main.c "$d/fast.o" "$d/gen.o" \
    -o "$d/diff_tpt" || fail "cannot link $d/diff_tpt"
"$d/diff_tpt" "$seeds"
