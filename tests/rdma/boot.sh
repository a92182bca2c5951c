#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Boots the RDMA guest staged by tests/rdma/stage.sh under QEMU (TCG) with
# a guest script, and leaves the serial console in a log file. Reusable:
# extra kernel modules and files go into a small second cpio archive that
# is appended to the staged initramfs (the kernel unpacks both), so the
# staged one is never rebuilt for a run.
#
# Usage: boot.sh [options] KERNEL STAGED_DIR GUEST_SCRIPT
#   -m FILE.ko       load this module after siw (repeatable; /rdma/extra)
#   -f SRC:DST       copy SRC to DST in the guest (repeatable)
#   -F PORT:GPORT    hostfwd: 127.0.0.1:PORT on the host reaches the
#                    guest's GPORT (repeatable)
#   -p FILE.pcap     every frame of the guest's NIC (QEMU filter-dump)
#   -l FILE.log      the serial console (default: STAGED_DIR/console.log)
#   -t SECONDS       hard time limit of the QEMU run (default 600)
#   -M MiB           guest memory (default 1024)
# The guest script runs as /rdma/case.sh after the modules and eth0 are up
# (tests/rdma/init.sh), with tests/rdma/lib.sh's helpers. Exit status:
# QEMU's (124 when the time limit ended it).
set -eu

mods="" files="" fwd="" pcap="" log="" secs=600 mem=1024
while getopts m:f:F:p:l:t:M: o; do
    case $o in
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
[ $# -eq 3 ] || { echo "usage: boot.sh [-m KO] [-f SRC:DST] [-F PORT:GPORT] [-p PCAP] [-l LOG] [-t S] KERNEL STAGED GUEST_SCRIPT" >&2; exit 2; }
kernel=$1 staged=$2 script=$3
[ -n "$log" ] || log=$staged/console.log

extra=$(mktemp -d "${TMPDIR:-/tmp}/ofl-rdma-boot.XXXXXX")
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/rdma/extra"
cp "$script" "$extra/rdma/case.sh"
for m in $mods; do cp "$m" "$extra/rdma/extra/"; done
for f in $files; do
    mkdir -p "$extra/$(dirname "${f#*:}")"
    cp "${f%%:*}" "$extra/${f#*:}"
done
(cd "$extra" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$extra/extra.gz"
cat "$staged/initrd.gz" "$extra/extra.gz" >"$extra/initrd.gz"

dump=""
[ -z "$pcap" ] || dump="-object filter-dump,id=d0,netdev=n0,file=$pcap"
rc=0
# shellcheck disable=SC2086
timeout -k 5 "$secs" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "$mem" \
    -display none -monitor none -serial stdio -no-reboot \
    -kernel "$kernel" -initrd "$extra/initrd.gz" \
    -append "console=ttyS0 quiet loglevel=4 panic=-1" \
    -netdev "user,id=n0,net=10.0.2.0/24$fwd" -device e1000,netdev=n0 $dump \
    </dev/null >"$log" 2>&1 || rc=$?
exit $rc
