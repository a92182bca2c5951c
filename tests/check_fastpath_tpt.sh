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
# every result (see diff_tpt.c). One check per seed. The build and run are
# tests/fastpath/diff.sh's, shared with check_fastpath.sh.
#
# Usage: check_fastpath_tpt.sh BUILD_DIR CC   (run by make check)
# FASTPATH_TPT_SEEDS=N: seeds to run (default 300, 3000 accesses each).

build=${1:-build/cc}
cc=${2:-cc}
# shellcheck source=tests/fastpath/diff.sh
. tests/fastpath/diff.sh
fp_diff "fastpath tpt" "$cc" "$build/fastpath_tpt" fp_tpt_run \
    tests/fastpath/diff_tpt_main.c "${FASTPATH_TPT_SEEDS:-300}" "" \
    offload.c tests/fastpath/diff_tpt.c
