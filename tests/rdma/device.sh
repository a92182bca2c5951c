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
kernel=${1:?usage: device.sh KERNEL STAGED OUT OFL_IW_KO}
staged=${2:?}
out=${3:?}
ko=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
boot=$here/../../mk/guest/boot.sh
dummy=/lib/modules/$(basename "$kernel" | sed 's/^vmlinuz-//')/kernel/drivers/net/dummy.ko
[ -f "$dummy" ] || { echo "device.sh: $dummy missing (the booted kernel's dummy netdev module)"; exit 1; }
mkdir -p "$out"
{
    echo "OFL_DEV_CASES='${OFL_DEV_CASES:-all}'"
    echo "OFL_DEV_FAULT='${OFL_DEV_FAULT:-}'"
    cat "$here/device-guest.sh"
} >"$out/device-case.sh"
log=$out/device.log
rc=0
sh "$boot" -L rdma -t 900 -l "$log" -m "$ko" -f "$dummy:/guest/dummy.ko" \
    "$kernel" "$staged" "$out/device-case.sh" >/dev/null 2>&1 || rc=$?
tr -d '\r' <"$log" | grep -a '^ofl-dev: ' | sed 's/^ofl-dev: //'
last=$(tr -d '\r' <"$log" | grep -aE '^ofl-dev: [0-9]+ passed, [0-9]+ failed$' | tail -1)
if [ -z "$last" ]; then
    echo "device.sh: no result line (qemu exit $rc; console in $log)"
    tail -30 "$log"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "$last" | grep -q ', 0 failed$'
