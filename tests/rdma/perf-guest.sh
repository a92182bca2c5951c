# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/perf.sh (boot.sh -L rdma; ofl_iw.ko in
# /guest/extra, dummy.ko in /guest): perftest's ib_write_bw, ib_read_bw
# and ib_send_bw with -R (rdma_cm), ib_send_lat and ib_write_lat, for
# siw <-> siw, offload <-> offload, offload -> siw and siw -> offload, in
# one guest, each pair's result line on the console as "ofl-perf: ...".
#
# Layout: each device in its own network namespace, on one end of a veth
# pair whose other end is in the root namespace, which routes between
# them: siw0 in ns "nsiw0" (10.0.5.1), siw1 in "nsiw1" (10.0.6.1), ofl0
# in "nofl0" (10.0.3.1), ofl1 in "nofl1" (10.0.4.1). Why: rdma_cm
# resolves a route to a local address to the netdev that owns the
# destination, so in one namespace a client reaches the server's device
# from the server's device itself, and Debian's perftest 4.5-0.17 cannot
# bind a source address (its --source_ip is the raw Ethernet option of
# the same name). Until 2026-11-29 this rig ran every pair in one
# namespace and its "offload <-> siw" pairs were siw <-> siw or offload
# <-> offload; the device's "connection up" lines now prove each pair
# (below). The baseline is siw1 -> siw0, two siw devices over the same
# routed path as offload's pairs (veth, the root namespace, veth); until
# 2026-11-29 (afternoon) it was siw0 with itself over its namespace's lo,
# a shorter path than any offload pair's. The device's sockets live in
# its netdev's namespace; siw's in its caller's.
# Each pair starts with only the server's device linked (but see siw ->
# offload below): rdma_cm listens on every device for a server that binds
# no address.
# siw client against an offload server: perftest's server listens a
# second time (its test connection), and siw opens its listening socket
# for it in the caller's namespace, the offload device's, on 0.0.0.0:port
# bound to siw's netdev. The device's listener on that port (its
# address, bound to no netdev) collided with it (EADDRINUSE), and
# rdma_cm fails the listen when any device fails it. Since 2026-11-29 a
# device listener that finds its port taken binds to its netdev as well
# (ofl_iw_create_listen), so siw0 is linked before ofl0 for these pairs:
# siw's listener comes first and the device's shares the port.
RDMA=/usr/bin/rdma
# iproute2's ip (the rdma layer): busybox sh runs its own applet for a
# bare "ip", which has no netns
IP=/usr/bin/ip
rdma_up
insmod /guest/veth.ko || say "insmod veth failed"
echo 1 >/proc/sys/net/ipv4/ip_forward
ns() { case $1 in siw0) echo nsiw0 ;; siw1) echo nsiw1 ;; ofl0) echo nofl0 ;; ofl1) echo nofl1 ;; esac; }
addr() { case $1 in siw0) echo 10.0.5.1 ;; siw1) echo 10.0.6.1 ;; ofl0) echo 10.0.3.1 ;; ofl1) echo 10.0.4.1 ;; esac; }
nic() { case $1 in siw0) echo vs ;; siw1) echo vs1 ;; ofl0) echo v0 ;; ofl1) echo v1 ;; esac; }
for d in siw0 siw1 ofl0 ofl1; do
    n=$(ns $d) a=$(addr $d) v=$(nic $d)
    r=${a%.1}.254
    $IP netns add $n || say "ip netns add $n failed"
    # both ends made here and the device's end moved: it keeps its
    # root-namespace ifindex, so no two devices' netdevs share one (a
    # peer made in its namespace takes that namespace's first free
    # index, the same in each; then siw's listener, bound to its
    # netdev's index in the offload device's namespace, collides with the
    # device's own)
    $IP link add r$v type veth peer name $v || say "veth r$v/$v failed"
    $IP link set $v netns $n || say "ip link set $v netns $n failed"
    $IP addr add $r/24 dev r$v
    $IP link set r$v up
    $IP netns exec $n $IP link set lo up
    $IP netns exec $n $IP addr add $a/24 dev $v
    $IP netns exec $n $IP link set $v up
    $IP netns exec $n $IP route add default via $r
done
# the device's connection log (ibdev_dbg), printed for a failing pair
[ -w /sys/kernel/debug/dynamic_debug/control ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo 'module ofl_iw +p' >/sys/kernel/debug/dynamic_debug/control 2>/dev/null
dmesg -n 1
# OFL_PERF_FAULT=crc-fault (perf.sh): the device uses the opposite of the
# CRC the MPA handshake agreed, so every pair with siw must fail
if [ "${OFL_PERF_FAULT:-}" = crc-fault ]; then
    echo 1 >/sys/module/ofl_iw/parameters/rig_crc_fault
    echo "ofl-perf: planted fault: rig_crc_fault $(cat /sys/module/ofl_iw/parameters/rig_crc_fault)"
fi
link() { # DEV: link it in its namespace, wait for its port
    case $1 in
    siw0) $IP netns exec nsiw0 $RDMA link add siw0 type siw netdev vs ;;
    siw1) $IP netns exec nsiw1 $RDMA link add siw1 type siw netdev vs1 ;;
    ofl0) $IP netns exec nofl0 $RDMA link add ofl0 type ofl netdev v0 ;;
    ofl1) $IP netns exec nofl1 $RDMA link add ofl1 type ofl netdev v1 ;;
    esac
    i=0
    while ! grep -q ACTIVE /sys/class/infiniband/$1/ports/1/state 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
unlink_all() {
    for d in siw0 siw1 ofl0 ofl1; do $RDMA link delete $d 2>/dev/null; done
}
# nsrun DEV CMD...: CMD in DEV's namespace
nsrun() { _ns=$(ns $1); shift; $IP netns exec $_ns "$@"; }
port=18500
# pair TOOL SIZE ITERS SERVER_DEV CLIENT_DEV: runs once, or again (at
# most twice more) when perftest could not time it: its report divides by
# the CPU clock it samples against gettimeofday, and under TCG on a busy
# machine that sample may fail ("Correlation coefficient r^2: ... < 0.9",
# then -F makes the clock 0 and every figure 0.000000)
#
# The same for a connection that was never made (the client's "Failed to
# connect RDMA CM events": refused, or no route), with no offload stream
# ended in an error: seen under load for siw <-> siw as much as for the
# device (2026-11-29, a load of 3.5 on 2 cores), a race of the rig's
# relinking, not a result. Anything after the connection is not retried.
#
# tx [TOTAL OUTSIDE] on the pair's line: the offload device's FPDUs in the
# pair, and those queued outside a post_send system call (tx_frames)
pair() {
    try=1
    tx0=$(tx_frames)
    while :; do
        pair_once "$@"
        # perftest's ib_write_bw cannot see its data path fail (the Writes
        # complete at the sender whether or not the peer placed them); the
        # device's "stream ends" line (dynamic debug) says how each
        # offload QP's stream ended: with an error (a Terminate, a CRC)
        # the pair fails
        ends=$(dmesg | tail -n +$((k0 + 1)) | grep -a 'stream ends' | grep -avc 'err OFL_OK, ')
        why=
        if grep -aq 'Correlation coefficient' /tmp/c.log; then
            why="perftest's clock sample failed: $(grep -a 'Correlation coefficient' /tmp/c.log | head -1)"
        elif [ "$ends" = 0 ] && grep -aq 'Failed to connect RDMA CM events' /tmp/c.log; then
            why="no connection: $(grep -a 'ERRNO' /tmp/c.log | head -1)"
        fi
        [ -n "$why" ] || break
        echo "ofl-perf: $1 $2 $5 -> $4: $why (try $try)"
        [ $try -lt 3 ] || break
        try=$((try + 1))
    done
    [ "$ends" = 0 ] || disc="$disc stream-error"
    # the pair is between the devices it names: every offload connection
    # of the window joins the two devices' addresses, and each offload
    # side has one (the device's "connection up" line). Without the
    # server's --source_ip, its wildcard listen let siw take connections
    # meant for ofl0 and ofl0 loop to itself (seen 2026-11-29: a planted
    # CRC fault passed every "offload <-> siw" pair).
    conns=$(dmesg | tail -n +$((k0 + 1)) | sed -n 's/.*connection up: local \([0-9.]*\):[0-9]*, peer \([0-9.]*\):[0-9]*$/\1>\2/p' | sort | uniq -c | awk '{ printf "%s%s*%s", (NR > 1 ? "," : ""), $2, $1 }')
    want=
    case $5 in ofl*) want="$(addr $5)>$(addr $4)" ;; esac
    case $4 in ofl*) want="$want $(addr $4)>$(addr $5)" ;; esac
    wrong=
    for w in $want; do
        echo ",$conns," | grep -q ",$w\*" || wrong=1
    done
    for c in $(echo "$conns" | tr ',' ' '); do
        echo " $want " | grep -q " ${c%\**} " || wrong=1
    done
    [ -z "$wrong" ] || disc="$disc pairing-wrong[$conns]"
    # the FPDUs the offload side(s) sent in the pair, and how many of
    # them waited for the work item (perf.sh: a latency pair's must not)
    txf=$(echo "$tx0 $(tx_frames)" | awk '{ print $3 - $1, ($2 < 0 || $4 < 0) ? -1 : $4 - $2 }')
    echo "ofl-perf: $1 $2 $5 -> $4: client rc $crc, server rc $src, row [$row] conns [$conns] tx [$txf]$disc"
    if [ $crc -ne 0 ] || [ $src -ne 0 ] || [ "$ends" != 0 ] || [ -n "$wrong" ]; then
        sed 's/^/ofl-perf:   c| /' /tmp/c.log | tail -6
        sed 's/^/ofl-perf:   s| /' /tmp/s.log | tail -6
        dmesg | tail -n +$((k0 + 1)) | grep -a 'ofl\|siw' | tail -25 | sed 's/^/ofl-perf:   k| /'
    fi
}
pair_once() {
    k0=$(dmesg | wc -l)
    port=$((port + 1))
    unlink_all
    case $4-$5 in ofl*-siw*) link $5 ;; esac
    link $4
    g=--report_gbits
    case $1 in *_lat) g= ;; esac
    nsrun $4 timeout 180 $1 -R -d $4 -p $port -s $2 -n $3 -F $g >/tmp/s.log 2>&1 &
    sp=$!
    # up to 60 s for the server's listen: on a loaded machine under TCG a
    # perftest server has taken more than 10 s (a siw <-> siw client
    # was refused after a 10 s wait, 2026-11-29)
    i=0
    while ! nsrun $4 sh -c ". /guest/lib.sh; listening $port" && kill -0 $sp 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1; i=$((i + 1))
    done
    lsn=
    nsrun $4 sh -c ". /guest/lib.sh; listening $port" || lsn=" server-not-listening"
    case $4-$5 in ofl*-siw*) ;; *) link $5 ;; esac
    nsrun $5 timeout 120 $1 -R -d $5 -p $port -s $2 -n $3 -F \
        $g $(addr $4) >/tmp/c.log 2>&1
    crc=$?
    wait $sp
    src=$?
    # perftest's result row: bytes, iterations, BW peak, BW average,
    # MsgRate; the latency tools': bytes, iterations, t_min, t_max,
    # t_typical, t_avg, t_stdev, 99%, 99.9% (usec)
    # the row alone (perftest may print an error on the same line)
    row=$(grep -aE "^ *$2 +$3 " /tmp/c.log | tail -1 | tr -s ' ' | sed 's/Failed.*//')
    # the pair's connections gone in every namespace (TIME_WAIT aside) before the next
    # unlinks the devices, up to 30 s: a teardown that outlives perftest
    # belongs to this pair, not to the next one's setup or account
    i=0
    while for d in siw0 siw1 ofl0 ofl1; do nsrun $d cat /proc/net/tcp; done |
        tcp_port_match $port live && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
    # rdma_disconnect refused on either side (perftest goes on, exit 0)
    disc=$lsn
    cat /tmp/c.log /tmp/s.log | grep -aq 'Failed to disconnect' && disc=" disconnect-failed"
}
# tx_frames: "TOTAL OUTSIDE", the device's FPDUs so far and those queued
# outside a post_send system call (its module-wide counts: both offload
# sides of a pair together); 0 0 without the module, and a module without
# the third count shows OUTSIDE as -1, which fails perf.sh's check
tx_frames() {
    if read -r _in _cp _df </sys/module/ofl_iw/parameters/tx_frames; then
        echo "$((_in + _cp)) ${_df:--1}"
    else
        echo "0 0"
    fi
}
# OFL_PERF_TOOLS / OFL_PERF_SIZES (perf.sh): a subset, for a planted fault
echo "ofl-perf: pairs $(( $(echo ${OFL_PERF_TOOLS-ib_write_bw ib_read_bw ib_send_bw} | wc -w) * $(echo ${OFL_PERF_SIZES:-64 65536 1048576} | wc -w) * 4 + $(echo ${OFL_PERF_LAT-ib_send_lat ib_write_lat} | wc -w) * 4 ))"
for t in ${OFL_PERF_TOOLS-ib_write_bw ib_read_bw ib_send_bw}; do
    for s in ${OFL_PERF_SIZES:-64 65536 1048576}; do
        n=${OFL_PERF_ITERS:-200}
        [ $s -eq 1048576 ] && n=20
        pair $t $s $n siw0 siw1
        pair $t $s $n ofl1 ofl0
        pair $t $s $n siw0 ofl0
        pair $t $s $n ofl0 siw0
    done
done
for t in ${OFL_PERF_LAT-ib_send_lat ib_write_lat}; do
    n=${OFL_PERF_ITERS:-200}
    pair $t 64 $n siw0 siw1
    pair $t 64 $n ofl1 ofl0
    pair $t 64 $n siw0 ofl0
    pair $t 64 $n ofl0 siw0
done
unlink_all
dmesg | grep -aE 'WARNING|BUG|Oops|leak' | sed 's/^/ofl-perf: dmesg| /'
echo "ofl-perf: done"
