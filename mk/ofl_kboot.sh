#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Boots a kernel under QEMU with an initramfs made of ROOT plus a static
# busybox (ROOT/init must exist), console on the serial port, and writes
# the console to LOG. Shared by make test-kmod-boot and test-kmod-iw.
#   ofl_kboot.sh KIMAGE ROOT LOG MEM_MB [QEMU_ARG...]
# KM_QEMU_ACCEL chooses the accelerator (default TCG: nested KVM is not
# reliable on CI machines). Exit status: QEMU's (124 on the 600 s timeout).
set -euo pipefail
kimage=${1:?usage: ofl_kboot.sh KIMAGE ROOT LOG MEM_MB [QEMU_ARG...]}
root=${2:?}
log=${3:?}
mem=${4:?}
shift 4
accel=${KM_QEMU_ACCEL:--accel tcg -cpu max}

[ -r "$kimage" ] || { echo "ofl_kboot: $kimage missing (apt-get install linux-image-amd64)"; exit 1; }
bb=$(command -v busybox) || { echo "ofl_kboot: busybox missing (apt-get install busybox-static)"; exit 1; }
case $(ldd "$bb" 2>&1 || true) in
*"not a dynamic"*) ;;
*) echo "ofl_kboot: busybox is not static (apt-get install busybox-static)"; exit 1 ;;
esac
[ -x "$root/init" ] || { echo "ofl_kboot: $root/init missing"; exit 1; }
mkdir -p "$root/bin"
rm -f "$root/bin/busybox"
cp "$bb" "$root/bin/busybox"
img=$root.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$img"
echo "== booting $kimage under qemu-system-x86_64 $accel"
rc=0
# shellcheck disable=SC2086
timeout 600 qemu-system-x86_64 $accel -m "$mem" -smp 2 -display none \
    -monitor none -serial stdio -no-reboot -kernel "$kimage" -initrd "$img" \
    -append "console=ttyS0 panic=-1 loglevel=4 quiet" "$@" < /dev/null \
    > "$log" 2>&1 || rc=$?
exit $rc
