#!/bin/busybox sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# /init of the guest (mk/guest/stage.sh, boot.sh): mounts, sources
# /guest/lib.sh's helpers, runs the guest script boot.sh put in
# /guest/case.sh (it loads what it needs: lib.sh's rdma_up loads the RDMA
# modules, siw and /guest/extra/*.ko and brings up eth0), says
# "ofl-boot: end", powers off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
echo "ofl-boot: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu(s)"
. /guest/lib.sh
if [ -f /guest/case.sh ]; then
    . /guest/case.sh
else
    echo "ofl-boot: no /guest/case.sh"
fi
echo "ofl-boot: end"
sync
poweroff -f
