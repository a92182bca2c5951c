#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-nvme: NVMe over Fabrics over RDMA through the offload
# device, with the kernel's nvmet-rdma target and nvme-rdma host and
# Debian's nvme-cli, against Linux siw and against a second offload
# device, in one QEMU guest (tests/rdma/nvme-guest.sh says what each case
# does). Prints one line per check and "N passed, M failed"; exits
# non-zero on any failure.
#
# Usage: nvme.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
log=$out/nvme.log
rig_boot "$log" "$here/nvme-guest.sh" -L rdma -L nvme -M 1024 -t 600
rig_tally ofl-nvme "$log"
