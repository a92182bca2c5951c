#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Stages the QEMU guest that make test-kmod-boot, test-kmod-iw and
# test-rdma boot (mk/guest/boot.sh), from Debian packages only (nothing is
# installed on the host). The initramfs is made of layers, gzipped cpio
# archives the kernel unpacks one after the other:
#   OUT/base.gz      static busybox, /init (mk/guest/init.sh) and the
#                    guest's helpers (mk/guest/lib.sh as /guest/lib.sh)
#   OUT/rdma.gz      (LAYER rdma) the kernel's RDMA modules and e1000 in
#                    load order (/modules, /modules/order), siw.ko, rping,
#                    ibv_devinfo, rdma and ip (iproute2), perftest's ib_*,
#                    tcpdump, libsiw and every library they load (ldd,
#                    the staged tree first, then the host's glibc)
# and what the rdma layer is made from:
#   OUT/debs/        rdma-core's user space and tools (apt-get download)
#   OUT/root/        those packages unpacked (dpkg -x): also pyverbs and
#                    rdma-core's tests, nvme-cli, kmod; a tree for later
#                    stages to share over 9p or to copy from
#   OUT/siw/siw.ko   Linux siw built out of tree from linux-source-6.1
#                    (Debian's kernel lacks CONFIG_RDMA_SIW) with
#                    mk/guest/siw-rig.patch: two module parameters
#                    (mpa_crc_required, rig_accept_delay_ms), stock
#                    behaviour by default
# Each piece is rebuilt only when missing or older than its inputs (a
# package added to PKGS is downloaded alone), so a second run takes a
# second.
#
# Usage: stage.sh OUT KVER [LAYER...]   (LAYER: rdma; base is always
#        staged; KVER: a kernel with /lib/modules/KVER and its headers)
# Host packages: busybox-static cpio; for rdma also linux-image-amd64
# linux-headers-amd64 linux-source-6.1 kmod xz-utils patch (and apt-get
# download access to the mirror).
set -eu

out=${1:?usage: stage.sh OUT KVER [rdma]}
kver=${2:?usage: stage.sh OUT KVER [rdma]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
multi=x86_64-linux-gnu

die() { echo "stage: $*" >&2; exit 1; }
# stale TARGET INPUT...: true when TARGET is missing or older than an input
stale() {
    t=$1
    shift
    [ -e "$t" ] || return 0
    for i in "$@"; do [ "$i" -nt "$t" ] && return 0; done
    return 1
}
# pack DIR ARCHIVE: a gzipped newc cpio of DIR, owned by root
pack() {
    (cd "$1" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$2.tmp"
    mv "$2.tmp" "$2"
}

# ---- base: busybox, /init, the helpers ---------------------------------------
bb=$(command -v busybox) || die "busybox missing (apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio missing (apt-get install cpio)"
if stale "$out/base.gz" "$bb" "$here/init.sh" "$here/lib.sh" "$here/stage.sh"; then
    case $(ldd "$bb" 2>&1 || true) in
    *"not a dynamic"*) ;;
    *) die "busybox is not static (apt-get install busybox-static)" ;;
    esac
    b=$out/base
    rm -rf "$b"
    mkdir -p "$b/bin" "$b/sbin" "$b/usr/bin" "$b/usr/sbin" "$b/etc" "$b/tmp" "$b/guest/extra"
    cp "$bb" "$b/bin/busybox"
    cp "$here/init.sh" "$b/init"
    chmod 755 "$b/init"
    cp "$here/lib.sh" "$b/guest/lib.sh"
    printf 'root:x:0:0:root:/:/bin/sh\ntcpdump:x:0:0::/:/bin/sh\n' >"$b/etc/passwd"
    printf 'root:x:0:\ntcpdump:x:0:\n' >"$b/etc/group"
    pack "$b" "$out/base.gz"
fi

for layer in "$@"; do
    [ "$layer" = rdma ] || die "unknown layer $layer (rdma)"
done
[ $# -gt 0 ] || exit 0

# ---- rdma: the kernel -------------------------------------------------------
moddir=/lib/modules/$kver
kdir=/usr/src/linux-headers-$kver
src_tar=/usr/src/linux-source-6.1.tar.xz
[ -d "$moddir/kernel" ] || die "$moddir missing (apt-get install linux-image-amd64)"
[ -f "$kdir/Makefile" ] || die "$kdir missing (apt-get install linux-headers-amd64)"
[ -f "$src_tar" ] || die "$src_tar missing (apt-get install linux-source-6.1)"
command -v modprobe >/dev/null || die "modprobe missing (apt-get install kmod)"

# another kernel: siw and the layer are rebuilt
if [ "$(cat "$out/.kver" 2>/dev/null)" != "$kver" ]; then
    rm -rf "$out/siw" "$out/rdma" "$out/rdma.gz"
    echo "$kver" >"$out/.kver"
fi

# ---- rdma: the packages ------------------------------------------------------
PKGS="libibverbs1 librdmacm1 ibverbs-providers rdmacm-utils ibverbs-utils
perftest libibumad3 libpci3 python3-pyverbs iproute2 libbpf1 libelf1 libmnl0
libcap2 libbsd0 libmd0 libxtables12 libdb5.3 tcpdump libpcap0.8 libdbus-1-3
libsystemd0 libgcrypt20 libgpg-error0 liblz4-1 nvme-cli libnvme1 libjson-c5
libuuid1 kmod libkmod2 liblzma5 libzstd1 libssl3 libnl-3-200
libnl-route-3-200 libgcc-s1 zlib1g"
want=$(echo $PKGS | tr ' ' '\n' | sort | tr '\n' ' ')
mkdir -p "$out/debs"
if [ "$(cat "$out/debs/.list" 2>/dev/null)" != "$want" ]; then
    need=""
    for p in $want; do
        ls "$out/debs/${p}"_*.deb >/dev/null 2>&1 || need="$need $p"
    done
    if [ -n "$need" ]; then
        echo "stage: apt-get download $(echo $need | wc -w) packages"
        # shellcheck disable=SC2086
        (cd "$out/debs" && apt-get download -q $need >download.log 2>&1) ||
            { cat "$out/debs/download.log"; die "apt-get download failed"; }
    fi
    # a package dropped from PKGS leaves the tree
    for d in "$out"/debs/*.deb; do
        p=$(basename "$d" | sed 's/_.*//')
        case " $want" in *" $p "*) ;; *) rm -f "$d" ;; esac
    done
    echo "$want" >"$out/debs/.list"
fi

# ---- rdma: the unpacked tree -------------------------------------------------
if stale "$out/root/.done" "$out/debs/.list"; then
    rm -rf "$out/root"
    mkdir -p "$out/root"
    for d in "$out"/debs/*.deb; do dpkg -x "$d" "$out/root"; done
    # rdma-core's tests ship partly gzipped (python3-pyverbs' doc dir)
    find "$out/root/usr/share/doc/rdma-core/tests" -name '*.py.gz' \
        -exec gunzip -f {} + 2>/dev/null || true
    touch "$out/root/.done"
fi

# ---- rdma: siw, out of tree --------------------------------------------------
# The source package must be the kernel's upstream version (the Debian
# revision may differ: the siw files are the same); the module's vermagic
# must equal that of the kernel's own modules.
kv() { sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$1" | tr '\n' . | sed 's/\.$//'; }
siw=$out/siw
if stale "$siw/siw.ko" "$here/siw-rig.patch" "$src_tar"; then
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

# ---- rdma: the layer ---------------------------------------------------------
# The kernel's modules in load order (modprobe resolves the dependencies
# against the host's copy of the kernel's modules); the guest loads them
# with lib.sh's rdma_up, or one by one (test-kmod-iw).
MODS="e1000 crc32c_generic libcrc32c configfs ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm"
BINS="usr/bin/rping usr/bin/ibv_devinfo usr/bin/ibv_devices usr/bin/rdma
usr/bin/ib_send_bw usr/bin/ib_send_lat usr/bin/ib_write_bw usr/bin/ib_write_lat
usr/bin/ib_read_bw usr/bin/ib_read_lat usr/bin/tcpdump"
prov=usr/lib/$multi/libibverbs
ird=$out/rdma
if stale "$out/rdma.gz" "$here/stage.sh" "$siw/siw.ko" "$out/root/.done"; then
    rm -rf "$ird"
    mkdir -p "$ird/usr/bin" "$ird/lib64" "$ird/modules" "$ird/usr/lib/$multi" \
        "$ird/$prov" "$ird/etc/libibverbs.d"
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
    for b in $BINS; do cp "$out/root/$b" "$ird/$b"; done
    # iproute2's ip before busybox's in PATH: network namespaces and veth
    # pairs (tests/rdma/perf-guest.sh), which busybox's ip lacks
    cp "$out/root/bin/ip" "$ird/usr/bin/ip"
    cp "$out/root/$prov/libsiw-rdmav34.so" "$ird/$prov/"
    cp "$out/root/etc/libibverbs.d/siw.driver" "$ird/etc/libibverbs.d/"
    # every library they load: the staged tree first, then the host's
    libpath=$out/root/usr/lib/$multi:$out/root/lib/$multi
    for f in $BINS bin/ip $prov/libsiw-rdmav34.so; do
        LD_LIBRARY_PATH=$libpath ldd "$out/root/$f"
    done >"$out/ldd.txt"
    if grep 'not found' "$out/ldd.txt"; then die "a library is missing (add its package to PKGS)"; fi
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' "$out/ldd.txt" |
        sort -u | while read -r lib; do
        d=$ird/usr/lib/$multi
        case $lib in /lib64/*) d=$ird/lib64 ;; esac
        cp -L "$lib" "$d/$(basename "$lib")"
    done
    # glibc dlopens libgcc_s for pthread_cancel / unwinding (rping)
    cp -L "$out/root/lib/$multi/libgcc_s.so.1" "$ird/usr/lib/$multi/"
    ln -s usr/lib "$ird/lib"
    pack "$ird" "$out/rdma.gz"
    echo "stage: $out/rdma.gz ($(du -k "$out/rdma.gz" | cut -f1) KiB)"
fi
