#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Stages the Linux RDMA guest of `make test-rdma` from Debian packages only:
#   OUT/debs/        rdma-core's user space and tools (apt-get download)
#   OUT/root/        those packages unpacked (dpkg -x): rping, ibv_devinfo,
#                    perftest, pyverbs and rdma-core's tests, rdma (iproute2),
#                    nvme-cli, tcpdump, kmod; a tree for later stages to
#                    share over 9p or to copy from
#   OUT/siw/siw.ko   Linux siw built out of tree from linux-source-6.1
#                    (Debian's kernel lacks CONFIG_RDMA_SIW) with
#                    tests/rdma/siw-rig.patch: two module parameters
#                    (mpa_crc_required, rig_accept_delay_ms), stock
#                    behaviour by default
#   OUT/initrd.gz    busybox, the RDMA modules of the host's kernel, siw.ko,
#                    rping, ibv_devinfo, rdma, perftest's ib_* and the
#                    libraries they need; /init is tests/rdma/init.sh
# Each piece is rebuilt only when missing or older than its inputs, so a
# second run takes a second.
#
# Usage: stage.sh OUT KVER    (KVER: a kernel with /boot/vmlinuz-KVER,
#                              /lib/modules/KVER and its linux-headers)
# Host packages: linux-image-amd64 linux-headers-amd64 linux-source-6.1
# busybox-static cpio kmod (and apt-get download access to the mirror).
set -eu

out=${1:?usage: stage.sh OUT KVER}
kver=${2:?usage: stage.sh OUT KVER}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
moddir=/lib/modules/$kver
kdir=/usr/src/linux-headers-$kver
src_tar=/usr/src/linux-source-6.1.tar.xz

die() { echo "stage: $*" >&2; exit 1; }
[ -d "$moddir/kernel" ] || die "$moddir missing (apt-get install linux-image-amd64)"
[ -f "$kdir/Makefile" ] || die "$kdir missing (apt-get install linux-headers-amd64)"
[ -f "$src_tar" ] || die "$src_tar missing (apt-get install linux-source-6.1)"
command -v busybox >/dev/null || die "busybox missing (apt-get install busybox-static)"

# another kernel: siw and the initramfs are rebuilt
if [ "$(cat "$out/.kver" 2>/dev/null)" != "$kver" ]; then
    rm -rf "$out/siw" "$out/initrd" "$out/initrd.gz"
    echo "$kver" >"$out/.kver"
fi

# ---- 1. the packages ---------------------------------------------------------
PKGS="libibverbs1 librdmacm1 ibverbs-providers rdmacm-utils ibverbs-utils
perftest libibumad3 libpci3 python3-pyverbs iproute2 libbpf1 libelf1 libmnl0
libcap2 libbsd0 libmd0 libxtables12 libdb5.3 tcpdump libpcap0.8 libdbus-1-3
libsystemd0 libgcrypt20 libgpg-error0 liblz4-1 nvme-cli libnvme1 libjson-c5
libuuid1 kmod libkmod2 liblzma5 libzstd1 libssl3 libnl-3-200
libnl-route-3-200 libgcc-s1 zlib1g"
want=$(echo $PKGS | tr ' ' '\n' | sort | tr '\n' ' ')
if [ ! -f "$out/debs/.list" ] || [ "$(cat "$out/debs/.list")" != "$want" ]; then
    rm -rf "$out/debs" "$out/root"
    mkdir -p "$out/debs"
    echo "stage: apt-get download $(echo $PKGS | wc -w) packages"
    # shellcheck disable=SC2086
    (cd "$out/debs" && apt-get download -q $PKGS >download.log 2>&1) ||
        { cat "$out/debs/download.log"; die "apt-get download failed"; }
    echo "$want" >"$out/debs/.list"
fi

# ---- 2. the unpacked tree ----------------------------------------------------
if [ ! -f "$out/root/.done" ] || [ "$out/debs/.list" -nt "$out/root/.done" ]; then
    rm -rf "$out/root"
    mkdir -p "$out/root"
    for d in "$out"/debs/*.deb; do dpkg -x "$d" "$out/root"; done
    # rdma-core's tests ship partly gzipped (python3-pyverbs' doc dir)
    find "$out/root/usr/share/doc/rdma-core/tests" -name '*.py.gz' \
        -exec gunzip -f {} + 2>/dev/null || true
    touch "$out/root/.done"
fi

# ---- 3. siw, out of tree -----------------------------------------------------
# The source package must be the kernel's upstream version (the Debian
# revision may differ: the siw files are the same); the module's vermagic
# must equal that of the kernel's own modules.
kv() { sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$1" | tr '\n' . | sed 's/\.$//'; }
siw=$out/siw
if [ ! -f "$siw/siw.ko" ] || [ "$here/siw-rig.patch" -nt "$siw/siw.ko" ] ||
    [ "$src_tar" -nt "$siw/siw.ko" ]; then
    rm -rf "$siw"
    mkdir -p "$siw/src"
    tar -xJf "$src_tar" -C "$siw/src" --strip-components=1 \
        linux-source-6.1/Makefile linux-source-6.1/drivers/infiniband/sw/siw
    sv=$(kv "$siw/src/Makefile")
    hv=$(kv "/usr/src/linux-headers-$(echo "$kver" | sed 's/-[a-z0-9]*$//')-common/Makefile" 2>/dev/null ||
        kv "$kdir/Makefile")
    [ -n "$sv" ] && [ "$sv" = "$hv" ] ||
        die "linux-source is $sv, the kernel $kver is $hv: apt-get install the matching linux-source-6.1"
    mkdir -p "$siw/build"
    cp "$siw"/src/drivers/infiniband/sw/siw/*.[ch] "$siw/build/"
    patch -s -d "$siw/build" -p1 <"$here/siw-rig.patch"
    printf '%s\n' 'obj-m += siw.o' \
        'siw-y := siw_cm.o siw_cq.o siw_main.o siw_mem.o siw_qp.o siw_qp_tx.o siw_qp_rx.o siw_verbs.o' \
        >"$siw/build/Kbuild"
    echo "stage: building siw $sv against $kdir"
    env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL \
        make -C "$kdir" M="$siw/build" -j2 modules >"$siw/kbuild.log" 2>&1 ||
        { cat "$siw/kbuild.log"; die "siw build failed"; }
    want_vm=$(modinfo -F vermagic "$moddir/kernel/drivers/infiniband/core/ib_core.ko")
    got_vm=$(modinfo -F vermagic "$siw/build/siw.ko")
    [ "$want_vm" = "$got_vm" ] || die "siw vermagic [$got_vm], kernel [$want_vm]"
    cp "$siw/build/siw.ko" "$siw/siw.ko"
fi

# ---- 4. the initramfs --------------------------------------------------------
# The kernel's modules in load order (modprobe resolves the dependencies
# against the host's copy of the kernel's modules).
MODS="e1000 crc32c_generic libcrc32c configfs ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm"
BINS="usr/bin/rping usr/bin/ibv_devinfo usr/bin/ibv_devices usr/bin/rdma
usr/bin/ib_send_bw usr/bin/ib_send_lat usr/bin/ib_write_bw usr/bin/ib_write_lat
usr/bin/ib_read_bw usr/bin/ib_read_lat usr/bin/tcpdump"
ird=$out/initrd
if [ ! -f "$out/initrd.gz" ] || [ "$here/init.sh" -nt "$out/initrd.gz" ] ||
    [ "$here/lib.sh" -nt "$out/initrd.gz" ] ||
    [ "$here/stage.sh" -nt "$out/initrd.gz" ] || [ "$siw/siw.ko" -nt "$out/initrd.gz" ] ||
    [ "$out/root/.done" -nt "$out/initrd.gz" ]; then
    rm -rf "$ird"
    mkdir -p "$ird/bin" "$ird/sbin" "$ird/usr/bin" "$ird/usr/sbin" "$ird/lib64" \
        "$ird/modules" "$ird/etc" "$ird/rdma" "$ird/tmp" "$ird/usr/lib/x86_64-linux-gnu"
    cp "$(command -v busybox)" "$ird/bin/busybox"
    ldd "$ird/bin/busybox" 2>&1 | grep -q 'not a dynamic' ||
        die "busybox is not static (apt-get install busybox-static)"
    cp "$here/init.sh" "$ird/init"
    cp "$here/lib.sh" "$ird/rdma/lib.sh"
    chmod 755 "$ird/init"
    : >"$ird/modules/order"
    for m in $MODS; do
        modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' | while read -r ko; do
        case $ko in
        *.ko) cp "$ko" "$ird/modules/" ;;
        *.ko.xz) xz -dc "$ko" >"$ird/modules/$(basename "$ko" .xz)" ;;
        *) die "unexpected module file $ko" ;;
        esac
        basename "$ko" | sed 's/\.xz$//' >>"$ird/modules/order"
    done
    cp "$siw/siw.ko" "$ird/modules/siw.ko"
    # the programs and every library they load, from the staged tree
    # first, then the host's (glibc)
    libpath=$out/root/usr/lib/x86_64-linux-gnu:$out/root/lib/x86_64-linux-gnu
    for b in $BINS; do
        cp "$out/root/$b" "$ird/$b"
    done
    prov=usr/lib/x86_64-linux-gnu/libibverbs
    mkdir -p "$ird/$prov" "$ird/etc/libibverbs.d"
    cp "$out/root/$prov/libsiw-rdmav34.so" "$ird/$prov/"
    cp "$out/root/etc/libibverbs.d/siw.driver" "$ird/etc/libibverbs.d/"
    for f in $BINS $prov/libsiw-rdmav34.so; do
        LD_LIBRARY_PATH=$libpath ldd "$out/root/$f"
    done >"$out/ldd.txt"
    if grep 'not found' "$out/ldd.txt"; then die "a library is missing (add its package to PKGS)"; fi
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' "$out/ldd.txt" |
        sort -u | while read -r lib; do
        d=$ird/usr/lib/x86_64-linux-gnu
        case $lib in /lib64/*) d=$ird/lib64 ;; esac
        cp -L "$lib" "$d/$(basename "$lib")"
    done
    # glibc dlopens libgcc_s for pthread_cancel / unwinding (rping)
    cp -L "$out/root/lib/x86_64-linux-gnu/libgcc_s.so.1" "$ird/usr/lib/x86_64-linux-gnu/"
    ln -s usr/lib "$ird/lib"
    printf 'root:x:0:0:root:/:/bin/sh\ntcpdump:x:0:0::/:/bin/sh\n' >"$ird/etc/passwd"
    printf 'root:x:0:\ntcpdump:x:0:\n' >"$ird/etc/group"
    (cd "$ird" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out/initrd.gz.tmp"
    mv "$out/initrd.gz.tmp" "$out/initrd.gz"
    echo "stage: $out/initrd.gz ($(du -k "$out/initrd.gz" | cut -f1) KiB)"
fi
