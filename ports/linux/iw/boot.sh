# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of make test-kmod-iw (mk/guest/boot.sh with the rdma layer
# puts it in /guest/case.sh, ofl_iw.ko and ofl_iw_ktest.ko in
# /guest/extra): the RDMA core's modules and ofl_iw.ko, an e1000 eth0,
# `rdma link add/delete`, sysfs, libibverbs with the stock libsiw
# (ibv_devinfo, ofl_iw_probe), the netdev going away, module unload; then
# dmesg must hold no WARNING or BUG. One line per check, then
# "ofl-iw: N passed, M failed".
RDMA=/usr/bin/rdma
D=/sys/class/infiniband/ofl0
pass=0
fail=0

ok() { echo "ofl-iw: ok   $*"; pass=$((pass + 1)); }
bad() { echo "ofl-iw: FAIL $*"; fail=$((fail + 1)); }
# check DESCRIPTION COMMAND...: the command's output is shown on failure
check() {
    d=$1
    shift
    if "$@" > /tmp/out 2>&1; then ok "$d"; else bad "$d"; sed 's/^/ofl-iw:      /' /tmp/out; fi
}
# waitfor SECONDS COMMAND...: until the command succeeds
waitfor() {
    t=$(($1 * 10))
    shift
    while [ $t -gt 0 ]; do "$@" 2>/dev/null && return 0; usleep 100000; t=$((t - 1)); done
    return 1
}
carrier() { [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" = 1 ]; }
eth_up() { /bin/busybox ip link set eth0 up && waitfor 10 carrier; }
# ko NAME: the module's file (the kernel's own in /modules, ours in
# /guest/extra)
ko() { if [ -f /guest/extra/$1.ko ]; then echo /guest/extra/$1.ko; else echo /modules/$1.ko; fi; }

# load order: modinfo depends (ib_core first; iw_cm and ib_uverbs on it)
for m in ib_core iw_cm ib_uverbs e1000 ofl_iw ofl_iw_ktest; do
    check "insmod $m" insmod $(ko $m)
done
check "eth0 up with carrier" eth_up
MAC=$(cat /sys/class/net/eth0/address)
GID=$(echo "$MAC" | awk -F: '{ printf "%s%s:%s%s:%s%s:0000:0000:0000:0000:0000", $1, $2, $3, $4, $5, $6 }')

check "rdma link add ofl0 type ofl netdev eth0" $RDMA link add ofl0 type ofl netdev eth0
check "$D exists" test -d $D
check "node_type RNIC ($(cat $D/node_type 2>/dev/null))" grep -q '^4: RNIC' $D/node_type
check "parent device exposes the netdev ($D/device/net/eth0)" test -d $D/device/net/eth0
check "port 1 ACTIVE ($(cat $D/ports/1/state 2>/dev/null))" grep -q ACTIVE $D/ports/1/state
check "link layer Ethernet" grep -q Ethernet $D/ports/1/link_layer
check "GID 0 is the MAC zero padded ($GID)" test "$(cat $D/ports/1/gids/0 2>/dev/null)" = "$GID"
check "rdma link show: ofl0/1 on eth0" sh -c "$RDMA link show | grep -q 'ofl0/1 state ACTIVE .*netdev eth0'"
check "/dev/infiniband/uverbs0" test -c /dev/infiniband/uverbs0
# the kernel consumer (ofl_iw_ktest, an ib_client) ran on ofl0's registration
dmesg | sed -n 's/^\[[ 0-9.]*\] ofl_iw_ktest: /ofl-iw: /p' > /tmp/ktest
cat /tmp/ktest
pass=$((pass + $(grep -c '^ofl-iw: ok' /tmp/ktest)))
fail=$((fail + $(grep -c '^ofl-iw: FAIL' /tmp/ktest)))
check "the kernel consumer ran its checks" grep -q 'beyond max_cqe' /tmp/ktest
if ibv_devinfo -v -d ofl0 > /tmp/devinfo 2>&1; then ok "ibv_devinfo -v -d ofl0"; else bad "ibv_devinfo -v -d ofl0"; fi
grep -E 'hca_id|transport|fw_ver|node_guid|max_mr_size|page_size_cap|max_qp:|max_qp_wr|max_sge|max_cq|max_mr:|max_pd|max_qp_rd_atom|max_qp_init_rd_atom|atomic_cap|state:|active_mtu|link_layer|GID\[' /tmp/devinfo |
    sed 's/^[[:space:]]*/ofl-iw:      /'
check "ibv_devinfo: transport iWARP (libsiw bound)" grep -q 'transport:.*iWARP' /tmp/devinfo
/ofl_iw_probe ofl0 "$MAC" > /tmp/probe 2>&1
grep '^ofl-iw: ' /tmp/probe
pass=$((pass + $(grep -c '^ofl-iw: ok' /tmp/probe)))
fail=$((fail + $(grep -c '^ofl-iw: FAIL' /tmp/probe)))
grep -q '^probe: [0-9]* passed, 0 failed' /tmp/probe || bad "ofl_iw_probe ran to its end ($(tail -1 /tmp/probe))"
# user space is hostile (issue 29 item 3): a process writes random bytes
# over its mmap'ed SQ and RQ rings and rings the doorbell, QP after QP,
# for a minute; the process lives to print its tally, and the dmesg check
# at the end finds no WARNING, BUG or Oops
check "a process scribbles on its mapped SQ and RQ and rings the doorbell for 60 s, and lives" \
    sh -c "timeout 240 /ofl_iw_probe ofl0 $MAC scribble 60 > /tmp/scribble 2>&1"
sed 's/^/ofl-iw:      /' /tmp/scribble | tail -3

# the largest region (issue 29 item 4): 1 GiB, every slot of the ATT
check "a 1 GiB user region registers (every ATT slot) and deregisters, twice" \
    sh -c "/ofl_iw_probe ofl0 $MAC bigreg 1024 > /tmp/bigreg 2>&1"
sed 's/^/ofl-iw:      /' /tmp/bigreg
check "a second link on eth0 is refused" sh -c "! $RDMA link add ofl1 type ofl netdev eth0"
check "a link on lo (no MAC) is refused" sh -c "! $RDMA link add ofl2 type ofl netdev lo"
/bin/busybox ip link set eth0 down
check "port DOWN after ip link set eth0 down" waitfor 5 grep -q DOWN $D/ports/1/state
eth_up
check "port ACTIVE again after ip link set eth0 up" waitfor 5 grep -q ACTIVE $D/ports/1/state
# the link goes away under a process with a PD, CQ, MR and QP live: the
# delete waits for it to exit, and the RDMA core destroys its objects
/ofl_iw_probe ofl0 "$MAC" hold 2 > /tmp/hold 2>&1 &
check "a process holds a PD, CQ, MR and a QP with a receive" waitfor 10 grep -q '^hold: ready' /tmp/hold
check "rdma link delete ofl0" $RDMA link delete ofl0
check "ofl0 gone after rdma link delete" test ! -e $D
wait

check "rdma link add ofl0 again" $RDMA link add ofl0 type ofl netdev eth0
check "rmmod e1000 (eth0 unregistered under ofl0)" rmmod e1000
check "ofl0 removed with its netdev" waitfor 10 test ! -e $D
check "insmod e1000 again" insmod $(ko e1000)
check "eth0 up with carrier again" eth_up
check "rdma link add ofl0 on the new eth0" $RDMA link add ofl0 type ofl netdev eth0
check "rmmod ofl_iw_ktest" rmmod ofl_iw_ktest
check "rmmod ofl_iw with ofl0 registered" rmmod ofl_iw
check "ofl0 gone after module unload" test ! -e $D
check "insmod ofl_iw again, link, rmmod" sh -c "insmod $(ko ofl_iw) && $RDMA link add ofl0 type ofl netdev eth0 && rmmod ofl_iw && test ! -e $D"

# ofl_iw_ktest was loaded for three registrations of ofl0
check "the kernel consumer ran on all 3 registrations, no FAIL" sh -c \
    "! dmesg | grep -q 'ofl_iw_ktest: FAIL' && test \$(dmesg | grep -c 'ofl_iw_ktest: ok   kernel ib_alloc_cq beyond') = 3"
dmesg | grep -iE 'ofl_iw|ofl0' | grep -v ofl_iw_ktest | sed 's/^\[[ 0-9.]*\] /ofl-iw: dmesg: /'
if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|refcount_t:|unregister_netdevice: waiting' > /tmp/warn; then
    bad "dmesg has no WARNING, BUG or Oops"
    sed 's/^/ofl-iw:      /' /tmp/warn
else
    ok "dmesg has no WARNING, BUG or Oops"
fi
echo "ofl-iw: $pass passed, $fail failed"
