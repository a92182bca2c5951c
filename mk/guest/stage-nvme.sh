#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Stages the guest's NVMe layer (OUT/nvme.gz) for make test-rdma-nvme:
# the kernel's NVMe over RDMA modules, host and target (nvme-core,
# nvme-fabrics, nvme-rdma, nvmet, nvmet-rdma) and null_blk, in load order
# (/nvme/order; modules the rdma layer has already are left out), and
# Debian's nvme-cli from the rdma layer's unpacked tree with every library
# it loads. The kernel unpacks it over the base and rdma layers (boot.sh
# -L nvme).
#
# Usage: stage-nvme.sh OUT KVER     (after stage.sh OUT KVER rdma)
set -eu
out=${1:?usage: stage-nvme.sh OUT KVER}
kver=${2:?usage: stage-nvme.sh OUT KVER}
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$out" && pwd)
multi=x86_64-linux-gnu
die() { echo "stage-nvme: $*" >&2; exit 1; }
[ -f "$out/root/.done" ] || die "$out/root missing (mk/guest/stage.sh OUT KVER rdma first)"
[ -f "$out/rdma/modules/order" ] || die "the rdma layer's tree $out/rdma is missing"
nvme=$out/root/usr/sbin/nvme
[ -x "$nvme" ] || die "$nvme missing (nvme-cli in stage.sh's PKGS)"
t=$out/nvme.gz
if [ -e "$t" ] && [ ! "$here/stage-nvme.sh" -nt "$t" ] && [ ! "$out/root/.done" -nt "$t" ] &&
    [ ! "$out/rdma.gz" -nt "$t" ]; then
    exit 0
fi
d=$out/nvme
rm -rf "$d"
mkdir -p "$d/nvme" "$d/usr/sbin" "$d/usr/lib/$multi" "$d/etc/nvme"
# the rdma layer's modules, to leave out
have=$(mktemp)
cp "$out/rdma/modules/order" "$have"
: >"$d/nvme/order"
for m in null_blk nvme-rdma nvmet-rdma; do
    modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
    b=$(basename "$ko" | sed 's/\.xz$//')
    grep -qx "$b" "$have" && continue
    case $ko in
    *.ko) cp "$ko" "$d/nvme/$b" ;;
    *.ko.xz) xz -dc "$ko" >"$d/nvme/$b" ;;
    *) die "unexpected module file $ko" ;;
    esac
    echo "$b" >>"$d/nvme/order"
done
rm -f "$have"
cp "$nvme" "$d/usr/sbin/nvme"
libpath=$out/root/usr/lib/$multi:$out/root/lib/$multi
LD_LIBRARY_PATH=$libpath ldd "$nvme" >"$out/nvme-ldd.txt" 2>&1 || true
if grep 'not found' "$out/nvme-ldd.txt"; then die "a library is missing (see $out/nvme-ldd.txt)"; fi
awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$out/nvme-ldd.txt" | sort -u | while read -r l; do
    # the rdma layer's libraries (glibc among them) stay as they are
    [ -e "$out/rdma/usr/lib/$multi/$(basename "$l")" ] && continue
    cp -L "$l" "$d/usr/lib/$multi/$(basename "$l")"
done
# nvme-cli wants a host NQN (and a host ID)
echo "nqn.2014-08.org.nvmexpress:uuid:6f666c00-0000-4000-8000-000000000001" >"$d/etc/nvme/hostnqn"
echo "6f666c00-0000-4000-8000-000000000001" >"$d/etc/nvme/hostid"
(cd "$d" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$t.tmp"
mv "$t.tmp" "$t"
rm -rf "$d"
echo "stage-nvme: $t ($(du -k "$t" | cut -f1) KiB)"
