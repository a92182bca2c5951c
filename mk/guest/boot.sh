#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Boots the guest staged by mk/guest/stage.sh under qemu-system-x86_64
# with a guest script and leaves the serial console in a log file; make
# test-kmod-boot, test-kmod-iw and test-rdma boot it this way. The
# initramfs is the staged base layer, the layers asked for with -L, and a
# last small cpio archive with this run's modules, files and script (the
# kernel unpacks them in turn), so nothing staged is rebuilt for a run.
#
# Usage: boot.sh [options] KERNEL STAGED_DIR GUEST_SCRIPT
#   -L LAYER         add STAGED_DIR/LAYER.gz (repeatable; rdma: the RDMA
#                    modules, siw and rdma-core's user space)
#   -m FILE.ko       put this module in /guest/extra (repeatable; lib.sh's
#                    rdma_up loads them after siw)
#   -f SRC:DST       copy SRC to DST in the guest (repeatable)
#   -F PORT:GPORT    hostfwd: 127.0.0.1:PORT on the host reaches the
#                    guest's GPORT (repeatable)
#   -p FILE.pcap     every frame of the guest's NIC (QEMU filter-dump)
#   -l FILE.log      the serial console (default: STAGED_DIR/console.log)
#   -t SECONDS       hard time limit of the QEMU run (default 600)
#   -M MiB           guest memory (default 1024)
# The guest has an e1000 NIC on slirp (10.0.2.0/24, the host is 10.0.2.2).
# /init (mk/guest/init.sh) mounts, sources /guest/lib.sh, runs the guest
# script as /guest/case.sh, says "ofl-boot: end" and powers off.
# KM_QEMU_ACCEL chooses the accelerator (default TCG: nested KVM is not
# reliable on CI machines). Exit status: QEMU's (124 when the time limit
# ended it).
set -eu

layers="" mods="" files="" fwd="" pcap="" log="" secs=600 mem=1024
while getopts L:m:f:F:p:l:t:M: o; do
    case $o in
    L) layers="$layers $OPTARG" ;;
    m) mods="$mods $OPTARG" ;;
    f) files="$files $OPTARG" ;;
    F) fwd="$fwd,hostfwd=tcp:127.0.0.1:${OPTARG%%:*}-:${OPTARG#*:}" ;;
    p) pcap=$OPTARG ;;
    l) log=$OPTARG ;;
    t) secs=$OPTARG ;;
    M) mem=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: boot.sh [-L LAYER] [-m KO] [-f SRC:DST] [-F PORT:GPORT] [-p PCAP] [-l LOG] [-t S] [-M MIB] KERNEL STAGED GUEST_SCRIPT" >&2; exit 2; }
kernel=$1 staged=$2 script=$3
[ -n "$log" ] || log=$staged/console.log
accel=${KM_QEMU_ACCEL:--accel tcg -cpu max}

[ -r "$kernel" ] || { echo "boot: $kernel missing (apt-get install linux-image-amd64)" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null ||
    { echo "boot: qemu-system-x86_64 missing (apt-get install qemu-system-x86)" >&2; exit 1; }
img="$staged/base.gz"
for l in $layers; do img="$img $staged/$l.gz"; done
for f in $img; do
    [ -f "$f" ] || { echo "boot: $f missing (mk/guest/stage.sh stages it)" >&2; exit 1; }
done

extra=$(mktemp -d "${TMPDIR:-/tmp}/ofl-guest-boot.XXXXXX")
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/run/guest/extra"
cp "$script" "$extra/run/guest/case.sh"
for m in $mods; do cp "$m" "$extra/run/guest/extra/"; done
for f in $files; do
    mkdir -p "$extra/run/$(dirname "${f#*:}")"
    cp "${f%%:*}" "$extra/run/${f#*:}"
done
(cd "$extra/run" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$extra/run.gz"
# shellcheck disable=SC2086
cat $img "$extra/run.gz" >"$extra/initrd.gz"

dump=""
[ -z "$pcap" ] || dump="-object filter-dump,id=d0,netdev=n0,file=$pcap"
echo "== booting $kernel under qemu-system-x86_64 $accel"
rc=0
# shellcheck disable=SC2086
timeout -k 5 "$secs" qemu-system-x86_64 $accel -smp 2 -m "$mem" \
    -display none -monitor none -serial stdio -no-reboot \
    -kernel "$kernel" -initrd "$extra/initrd.gz" \
    -append "console=ttyS0 quiet loglevel=4 panic=-1" \
    -netdev "user,id=n0,net=10.0.2.0/24$fwd" -device e1000,netdev=n0 $dump \
    </dev/null >"$log" 2>&1 || rc=$?
exit $rc
