# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of make test-kmod-boot (mk/guest/boot.sh puts it in
# /guest/case.sh and the module in /guest/extra): load the self-test
# module, print its log lines on the serial console.
insmod /guest/extra/offload_selftest.ko
echo "ofl-boot: insmod exit status $?"
dmesg | grep 'offload_selftest: ' | sed 's/^\[[ 0-9.]*\] //'
