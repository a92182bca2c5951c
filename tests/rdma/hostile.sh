#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-hostile: a hostile peer against the offload device in a
# QEMU guest (guest script tests/rdma/hostile-guest.sh: a raw TCP client
# in python that speaks MPA and sends malformed FPDUs to rping -s on
# ofl_iw.ko; each must be answered with the exact RFC 5040 Terminate).
# Prints one line per check and "N passed, M failed".
#
# Usage: hostile.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
kernel=${1:?usage: hostile.sh KERNEL STAGED OUT OFL_IW_KO}
staged=${2:?}
out=${3:?}
ko=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
boot=$here/../../mk/guest/boot.sh
dummy=/lib/modules/$(basename "$kernel" | sed 's/^vmlinuz-//')/kernel/drivers/net/dummy.ko
[ -f "$dummy" ] || { echo "hostile.sh: $dummy missing"; exit 1; }
mkdir -p "$out"
log=$out/hostile.log
rc=0
sh "$boot" -L rdma -L py -M 1536 -t 400 -l "$log" -m "$ko" -f "$dummy:/guest/dummy.ko" \
    "$kernel" "$staged" "$here/hostile-guest.sh" >/dev/null 2>&1 || rc=$?
tr -d '\r' <"$log" | grep -a '^ofl-host: ' | sed 's/^ofl-host: //'
last=$(tr -d '\r' <"$log" | grep -aE '^ofl-host: [0-9]+ passed, [0-9]+ failed$' | tail -1)
if [ -z "$last" ]; then
    echo "hostile.sh: no result line (qemu exit $rc; console in $log)"
    tail -30 "$log"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "$last" | grep -q ', 0 failed$'
