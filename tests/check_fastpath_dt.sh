#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The dt section's fast paths (OFL_FAST_PATH in offload.c: the host range
# test with the tables outside it, the small ring copy, the reclaim
# through the output stage) against its general paths, on the same
# inputs: builds tests/fastpath/diff_dt.c twice, each with its own copy of
# the core, the sim port and the dt rig, once as shipped and once with
# -DOFL_NO_FAST_PATH (as in a size build); each copy is linked into one
# object that exports its run function alone (ld -r, objcopy
# --keep-global-symbol), and diff_dt_main.c runs both on the same seeds
# and compares the digests of every result (see diff_dt.c). One check per
# seed. The build and run are tests/fastpath/diff.sh's.
#
# Usage: check_fastpath_dt.sh BUILD_DIR CC   (run by make check)
# FASTPATH_DT_SEEDS=N: seeds to run (default 300, 300 turns each).

build=${1:-build/cc}
cc=${2:-cc}
# shellcheck source=tests/fastpath/diff.sh
. tests/fastpath/diff.sh
fp_diff "fastpath dt" "$cc" "$build/fastpath_dt" fp_dt_run \
    tests/fastpath/diff_dt_main.c "${FASTPATH_DT_SEEDS:-300}" -Itests/support \
    offload.c ports/sim/ofl_sim.c tests/support/dt_rig.c \
    tests/fastpath/diff_dt.c
