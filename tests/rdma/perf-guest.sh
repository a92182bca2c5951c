# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/perf.sh (boot.sh -L rdma; ofl_iw.ko in
# /guest/extra, dummy.ko in /guest): perftest's ib_write_bw, ib_read_bw
# and ib_send_bw with -R (rdma_cm) for siw <-> siw, offload <-> offload,
# offload -> siw and siw -> offload, in one guest, each pair's result line
# on the console as "ofl-perf: ...".
#
# Layout as tests/rdma/device-guest.sh: siw0 on eth0 (10.0.2.15), ofl0 on
# dummy0 (10.0.3.1), ofl1 on dummy1 (10.0.4.1).
# Linux siw 6.1 listens on the wildcard address when rdma_cm listens on
# every device (perftest's server does: it binds no address), and a
# wildcard listener and a device listening on its own address cannot hold
# the same port (EADDRINUSE). So each pair starts with only the server's
# device linked, the server listens, then the client's device is linked
# (rdma_cm's listen on a device added later fails alone and is logged,
# the server keeps its listener) and the client runs.
RDMA=/usr/bin/rdma
rdma_up
dummies 2
# the device's connection log (ibdev_dbg), printed for a failing pair
[ -w /sys/kernel/debug/dynamic_debug/control ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo 'module ofl_iw +p' >/sys/kernel/debug/dynamic_debug/control 2>/dev/null
dmesg -n 1
link() { # DEV: link it, wait for its port
    case $1 in
    siw0) siw_up >/dev/null ;;
    ofl0) $RDMA link add ofl0 type ofl netdev dummy0 ;;
    ofl1) $RDMA link add ofl1 type ofl netdev dummy1 ;;
    esac
}
unlink_all() {
    for d in siw0 ofl0 ofl1; do $RDMA link delete $d 2>/dev/null; done
}
addr() { case $1 in siw0) echo 10.0.2.15 ;; ofl0) echo 10.0.3.1 ;; ofl1) echo 10.0.4.1 ;; esac; }
port=18500
# pair TOOL SIZE ITERS SERVER_DEV CLIENT_DEV: runs once, or again (at
# most twice more) when perftest could not time it: its report divides by
# the CPU clock it samples against gettimeofday, and under TCG on a busy
# machine that sample may fail ("Correlation coefficient r^2: ... < 0.9",
# then -F makes the clock 0 and every figure 0.000000)
pair() {
    try=1
    while :; do
        pair_once "$@"
        grep -aq 'Correlation coefficient' /tmp/c.log || break
        echo "ofl-perf: $1 $2 $5 -> $4: perftest's clock sample failed (try $try): $(grep -a 'Correlation coefficient' /tmp/c.log | head -1)"
        [ $try -lt 3 ] || break
        try=$((try + 1))
    done
    echo "ofl-perf: $1 $2 $5 -> $4: client rc $crc, server rc $src, row [$row]$disc"
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        sed 's/^/ofl-perf:   c| /' /tmp/c.log | tail -6
        sed 's/^/ofl-perf:   s| /' /tmp/s.log | tail -6
        dmesg | tail -n +$((k0 + 1)) | grep -a 'ofl\|siw' | tail -25 | sed 's/^/ofl-perf:   k| /'
    fi
}
pair_once() {
    k0=$(dmesg | wc -l)
    port=$((port + 1))
    unlink_all
    link $4
    g=--report_gbits
    case $1 in *_lat) g= ;; esac
    timeout 120 $1 -R -d $4 -p $port -s $2 -n $3 -F $g >/tmp/s.log 2>&1 &
    sp=$!
    i=0
    while ! listening $port && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    link $5
    timeout 120 $1 -R -d $5 --source_ip $(addr $5) -p $port -s $2 -n $3 -F \
        $g $(addr $4) >/tmp/c.log 2>&1
    crc=$?
    wait $sp
    src=$?
    # perftest's result row: bytes, iterations, BW peak, BW average,
    # MsgRate; the latency tools': bytes, iterations, t_min, t_max,
    # t_typical, t_avg, t_stdev, 99%, 99.9% (usec)
    # the row alone (perftest may print an error on the same line)
    row=$(grep -aE "^ *$2 +$3 " /tmp/c.log | tail -1 | tr -s ' ' | sed 's/Failed.*//')
    # rdma_disconnect refused on either side (perftest goes on, exit 0)
    disc=
    cat /tmp/c.log /tmp/s.log | grep -aq 'Failed to disconnect' && disc=" disconnect-failed"
}
for t in ib_write_bw ib_read_bw ib_send_bw; do
    for s in 64 65536 1048576; do
        n=200
        [ $s -eq 1048576 ] && n=20
        pair $t $s $n siw0 siw0
        pair $t $s $n ofl1 ofl0
        pair $t $s $n siw0 ofl0
        pair $t $s $n ofl0 siw0
    done
done
for t in ib_send_lat ib_write_lat; do
    pair $t 64 200 siw0 siw0
    pair $t 64 200 ofl1 ofl0
    pair $t 64 200 siw0 ofl0
    pair $t 64 200 ofl0 siw0
done
unlink_all
dmesg | grep -aE 'WARNING|BUG|Oops|leak' | sed 's/^/ofl-perf: dmesg| /'
echo "ofl-perf: done"
