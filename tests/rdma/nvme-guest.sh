# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/nvme.sh (mk/guest/boot.sh -L rdma -L nvme
# puts it in /guest/case.sh; ofl_iw.ko in /guest/extra, dummy.ko in
# /guest): NVMe over Fabrics over RDMA with the kernel's own nvmet-rdma
# target and nvme-rdma host and Debian's nvme-cli, through the offload
# device (issue 29 item 2). A kernel consumer uses what user space never
# does: kernel PDs and their DMA MR (get_dma_mr: the core's physical
# region), fast registration (alloc_mr, map_mr_sg, IB_WR_REG_MR), local
# invalidate and Send with Invalidate.
#
# Layout as tests/rdma/device-guest.sh: siw0 on eth0 (10.0.2.15), ofl0 on
# dummy0 (10.0.3.1), ofl1 on dummy1 (10.0.4.1). The target's port listens
# on its device's address; the host picks its device by source address
# (nvme connect --host-traddr). The namespace is a null_blk device with
# memory_backed=1 (else it discards data).
#
# Pairs (HOST -> TARGET): ofl -> siw, siw -> ofl, ofl -> ofl1. Each: the
# target is configured through configfs, the host connects, MIB MiB of
# random data are written with direct I/O, caches dropped, read back with
# direct I/O and compared (cmp); the host disconnects and the target is
# taken down. Then the links go, ofl_iw unloads, and dmesg must hold no
# WARNING, BUG, Oops or leak. One line per check, then
# "ofl-nvme: N passed, M failed".
RDMA=/usr/bin/rdma
NQN=nqn.2026-11.org.offload:nvme-rig
MIB=${OFL_NVME_MIB:-16}
pass=0
fail=0
ok() { echo "ofl-nvme: ok   $*"; pass=$((pass + 1)); }
bad() { echo "ofl-nvme: FAIL $*"; fail=$((fail + 1)); }

rdma_up
siw_up
dmesg -n 1 2>/dev/null
for m in $(cat /nvme/order); do
    insmod /nvme/$m $( [ "$m" = null_blk.ko ] && echo "nr_devices=1 memory_backed=1 gb=1" ) ||
        say "insmod $m failed"
done
dummies 2
if $RDMA link add ofl0 type ofl netdev dummy0 && $RDMA link add ofl1 type ofl netdev dummy1; then
    ok "rdma link add ofl0 (dummy0), ofl1 (dummy1)"
else
    bad "rdma link add ofl0 (dummy0), ofl1 (dummy1)"
fi
[ -d /sys/kernel/config/nvmet ] || mount -t configfs none /sys/kernel/config
[ -b /dev/nullb0 ] && ok "null_blk: /dev/nullb0 (memory backed)" || bad "null_blk: no /dev/nullb0"
dd if=/dev/urandom of=/tmp/data bs=1M count="$MIB" 2>/dev/null

addr() { case $1 in siw) echo 10.0.2.15 ;; ofl) echo 10.0.3.1 ;; ofl1) echo 10.0.4.1 ;; esac; }

cfs=/sys/kernel/config/nvmet
target_up() {
    mkdir "$cfs/subsystems/$NQN" &&
        echo 1 >"$cfs/subsystems/$NQN/attr_allow_any_host" &&
        mkdir "$cfs/subsystems/$NQN/namespaces/1" &&
        echo -n /dev/nullb0 >"$cfs/subsystems/$NQN/namespaces/1/device_path" &&
        echo 1 >"$cfs/subsystems/$NQN/namespaces/1/enable" &&
        mkdir "$cfs/ports/1" &&
        echo rdma >"$cfs/ports/1/addr_trtype" &&
        echo ipv4 >"$cfs/ports/1/addr_adrfam" &&
        echo "$1" >"$cfs/ports/1/addr_traddr" &&
        echo 4420 >"$cfs/ports/1/addr_trsvcid" &&
        ln -s "$cfs/subsystems/$NQN" "$cfs/ports/1/subsystems/$NQN"
}
target_down() {
    rm -f "$cfs/ports/1/subsystems/$NQN"
    rmdir "$cfs/ports/1" 2>/dev/null
    echo 0 >"$cfs/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
    rmdir "$cfs/subsystems/$NQN/namespaces/1" 2>/dev/null
    rmdir "$cfs/subsystems/$NQN" 2>/dev/null
}

# the namespace's block device (one controller at a time)
nsdev() {
    for n in /dev/nvme*n1; do [ -b "$n" ] && { echo "$n"; return 0; }; done
    return 1
}

# pair NAME HOST TARGET
pair() {
    name=$1 ha=$(addr "$2") ta=$(addr "$3")
    d="$name: nvme-rdma host on $2 ($ha) -> nvmet-rdma target on $3 ($ta), $MIB MiB"
    if ! target_up "$ta"; then
        bad "$d: target configuration failed"
        target_down
        return
    fi
    t0=$(cut -d' ' -f1 /proc/uptime)
    if ! timeout 60 nvme connect -t rdma -a "$ta" -s 4420 -n "$NQN" -w "$ha" >/tmp/$name.conn 2>&1; then
        bad "$d: nvme connect failed: $(tr '\n' ' ' </tmp/$name.conn)"
        dmesg | grep -E 'nvme|ofl|siw' | tail -12 | sed "s/^/ofl-nvme:      dmesg| /"
        target_down
        return
    fi
    i=0 dev=""
    while [ -z "$dev" ] && [ $i -lt 100 ]; do dev=$(nsdev) || sleep 0.1; i=$((i + 1)); done
    if [ -z "$dev" ]; then
        bad "$d: connected, but no namespace block device"
        ls /dev/nvme* 2>&1 | tr '\n' ' ' | sed "s/^/ofl-nvme:      dev| /"; echo
        dmesg | grep -E 'nvme|ofl|siw' | tail -12 | sed "s/^/ofl-nvme:      dmesg| /"
    else
        rm -f /tmp/back
        w=0 r=0
        timeout 120 dd if=/tmp/data of="$dev" bs=1M count="$MIB" oflag=direct 2>/tmp/$name.dd || w=$?
        sync
        echo 3 >/proc/sys/vm/drop_caches
        timeout 120 dd if="$dev" of=/tmp/back bs=1M count="$MIB" iflag=direct 2>>/tmp/$name.dd || r=$?
        t1=$(cut -d' ' -f1 /proc/uptime)
        if [ $w -eq 0 ] && [ $r -eq 0 ] && cmp -s /tmp/data /tmp/back; then
            ok "$d: written and read back through $dev, data equal ($(md5sum </tmp/back | cut -c1-12)), $(awk "BEGIN { print $t1 - $t0 }") s"
        else
            bad "$d: write rc $w, read rc $r, data $(cmp -s /tmp/data /tmp/back && echo equal || echo DIFFERENT)"
            sed "s/^/ofl-nvme:      dd| /" /tmp/$name.dd | tail -4
            dmesg | grep -E 'nvme|ofl|siw' | tail -12 | sed "s/^/ofl-nvme:      dmesg| /"
        fi
    fi
    if timeout 60 nvme disconnect -n "$NQN" >/tmp/$name.disc 2>&1; then
        ok "$name: nvme disconnect"
    else
        bad "$name: nvme disconnect: $(tr '\n' ' ' </tmp/$name.disc)"
    fi
    target_down
    [ -d "$cfs/ports/1" ] && bad "$name: target port still configured"
}

PAIRS=${OFL_NVME_PAIRS:-ofl-siw siw-ofl ofl-ofl}
for p in $PAIRS; do
    case $p in
    ofl-siw) pair ofl-siw ofl siw ;;
    siw-ofl) pair siw-ofl siw ofl ;;
    ofl-ofl) pair ofl-ofl ofl ofl1 ;;
    esac
done

if $RDMA link delete ofl0 && $RDMA link delete ofl1; then ok "rdma link delete ofl0, ofl1"; else bad "rdma link delete ofl0, ofl1"; fi
if rmmod ofl_iw; then ok "rmmod ofl_iw"; else bad "rmmod ofl_iw"; fi
if dmesg | grep -qE 'WARNING|BUG|Oops|leak|refcount'; then
    bad "dmesg has a WARNING, BUG, Oops or leak"
    dmesg | grep -E -A8 'WARNING|BUG|Oops|leak|refcount' | head -40 | sed 's/^/ofl-nvme: dmesg: /'
else
    ok "dmesg has no WARNING, BUG, Oops or leak"
fi
echo "ofl-nvme: $pass passed, $fail failed"
