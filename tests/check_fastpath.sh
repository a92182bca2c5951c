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
# diff_qp.c). One check per seed. The build and run are
# tests/fastpath/diff.sh's, shared with check_fastpath_tpt.sh.
#
# Usage: check_fastpath.sh BUILD_DIR CC   (run by make check)
# FASTPATH_SEEDS=N: seeds to run (default 1500).

build=${1:-build/cc}
cc=${2:-cc}
# shellcheck source=tests/fastpath/diff.sh
. tests/fastpath/diff.sh
fp_diff fastpath "$cc" "$build/fastpath" fp_run tests/fastpath/diff_main.c \
    "${FASTPATH_SEEDS:-1500}" -Itests/support \
    offload.c ports/sim/ofl_sim.c tests/support/qp_rig.c \
    tests/fastpath/diff_qp.c
