#!/bin/busybox sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# /init of the test initramfs (make test-kmod-boot): load the self-test
# module, print its log lines on the serial console, power off.
/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "ofl-boot: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu(s)"
insmod /offload_selftest.ko
echo "ofl-boot: insmod exit status $?"
dmesg | grep 'offload_selftest: ' | sed 's/^\[[ 0-9.]*\] //'
echo "ofl-boot: done"
poweroff -f
