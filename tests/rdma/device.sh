#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-device: rdma-core's stock rping -V through the offload
# device (ofl_iw.ko) in one QEMU guest, against Linux siw and against a
# second offload device: the cases and the layout are in
# tests/rdma/device-guest.sh. Prints one line per check and
# "N passed, M failed"; exits non-zero on any failure.
#
# Usage: device.sh KERNEL STAGED_DIR OUT OFL_IW_KO
#   OFL_DEV_CASES="name ..."  run only these cases (default: all)
#   OFL_DEV_FAULT=no-nudge    also the planted case that must fail
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
{
    echo "OFL_DEV_CASES='${OFL_DEV_CASES:-all}'"
    echo "OFL_DEV_FAULT='${OFL_DEV_FAULT:-}'"
    cat "$here/device-guest.sh"
} >"$out/device-case.sh"
rig_boot "$out/device.log" "$out/device-case.sh" -L rdma -t 900
rig_tally ofl-dev "$out/device.log"
