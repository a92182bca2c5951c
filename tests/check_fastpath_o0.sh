#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# tests/check_fastpath.sh's differential run of the qp engine's fast paths
# against its general paths, built at -O0: a speed build (OFL_FAST_PATH)
# without TPT_HOT_WORD, whose remote fast check is tpt_remote_fast's
# portable form (the size build's), not tpt_remote_hot. The whole Write
# receive (qp_rx_write_fpdu) takes a region's offset from either form;
# until 2026-12-02 the portable form granted zero-based regions, whose
# offset is not to - va, and a Write across a page end through one read
# the ATT far out of bounds here (seed 19 crashed). Fewer seeds than the
# -O2 run: -O0 is slower, and the paths it differs in are few.
#
# Usage: check_fastpath_o0.sh BUILD_DIR CC   (run by make check)
# FASTPATH_SEEDS=N: seeds to run (default 400).

build=${1:-build/cc}
cc=${2:-cc}
CFLAGS="${CFLAGS:-} -O0" FASTPATH_SEEDS=${FASTPATH_SEEDS:-400} \
    exec sh tests/check_fastpath.sh "$build/o0" "$cc"
