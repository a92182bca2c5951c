#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-hostile: a hostile peer against the offload device in a
# QEMU guest (guest script tests/rdma/hostile-guest.sh: a raw TCP client
# in python that speaks MPA and sends malformed FPDUs to rping -s on
# ofl_iw.ko; each must be answered with the exact RFC 5040 Terminate; and
# a connection reset with Sends in flight and more in the ring, every one
# of which must complete; then hostile connection set-ups: a Send behind
# the MPA Reply, RESET on a connected QP, a connect naming another
# connection's QP, connections that never speak MPA, a connection request
# the iw_cm refuses).
# Prints one line per check and "N passed, M failed".
#
# Usage: hostile.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
# the peer's CRC32c: the python tools' one copy
rig_boot "$out/hostile.log" "$here/hostile-guest.sh" -L rdma -L py -M 1536 -t 400 \
    -f "$here/../support/ofl_crc32c.py:/guest/ofl_crc32c.py"
rig_tally ofl-host "$out/hostile.log"
