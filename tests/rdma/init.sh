#!/bin/busybox sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# /init of the RDMA guest (tests/rdma/stage.sh, boot.sh): mounts, loads the
# RDMA modules and siw, brings up eth0 (e1000, slirp: 10.0.2.15, the host
# is 10.0.2.2), loads the extra modules boot.sh added under /rdma/extra,
# runs /rdma/case.sh with /rdma/lib.sh's helpers, powers off. Every line
# meant for the host starts with "ofl-rdma: ".
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
say() { echo "ofl-rdma: $*"; }
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu(s)"
for m in $(cat /modules/order) siw.ko; do
    insmod /modules/$m || say "insmod $m failed"
done
for m in $(ls /rdma/extra/*.ko 2>/dev/null); do
    insmod $m || say "insmod $m failed"
done
# busybox's own ip (the real one is not needed for this)
ip link set lo up
ip link set eth0 up
i=0
while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
say "eth0 carrier $(cat /sys/class/net/eth0/carrier)"
. /rdma/lib.sh
if [ -f /rdma/case.sh ]; then
    . /rdma/case.sh
else
    say "no /rdma/case.sh"
fi
say "end"
sync
poweroff -f
