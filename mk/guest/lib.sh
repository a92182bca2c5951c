# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Helpers for a guest script (sourced by mk/guest/init.sh as
# /guest/lib.sh). The RDMA ones need the rdma layer (boot.sh -L rdma).
say() { echo "ofl-rdma: $*"; }

# rdma_up: the kernel's RDMA modules and e1000 (/modules/order), siw, the
# extra modules boot.sh put in /guest/extra, then eth0 up with its slirp
# address (10.0.2.15; the host is 10.0.2.2)
rdma_up() {
    for m in $(cat /modules/order) siw.ko; do
        insmod /modules/$m || say "insmod $m failed"
    done
    for m in $(ls /guest/extra/*.ko 2>/dev/null); do
        insmod $m || say "insmod $m failed"
    done
    # busybox's own ip (the real one is not needed for this)
    ip link set lo up
    ip link set eth0 up
    i=0
    while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1))
    done
    ip addr add 10.0.2.15/24 dev eth0
    ip route add default via 10.0.2.2
    say "eth0 carrier $(cat /sys/class/net/eth0/carrier)"
}

# siw_up: a siw device siw0 on eth0 (after carrier, else its port stays
# DOWN on 6.1); waits until its port is ACTIVE.
siw_up() {
    /usr/bin/rdma link add siw0 type siw netdev eth0 || say "rdma link add failed"
    i=0
    while ! grep -q ACTIVE /sys/class/infiniband/siw0/ports/1/state 2>/dev/null &&
        [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1))
    done
    say "siw0 port $(cat /sys/class/infiniband/siw0/ports/1/state 2>/dev/null)"
}

# dummies N: the device rigs' netdevs (tests/rdma/rig.sh puts dummy.ko in
# /guest): dummy0 at 10.0.3.1/24, dummy1 at 10.0.4.1/24, ..., up
dummies() {
    insmod /guest/dummy.ko numdummies="$1" || say "insmod dummy failed"
    i=0
    while [ $i -lt "$1" ]; do
        ip addr add 10.0.$((i + 3)).1/24 dev dummy$i
        ip link set dummy$i up
        i=$((i + 1))
    done
}

# siw_param NAME VALUE: sets a parameter of the rig's siw
# (mk/guest/siw-rig.patch: mpa_crc_required, rig_accept_delay_ms)
siw_param() {
    echo "$2" >/sys/module/siw/parameters/$1 || say "siw parameter $1 failed"
}

# listening PORT: true when a TCP socket listens on PORT (iWARP listeners
# are kernel TCP sockets, in /proc/net/tcp like any other)
listening() {
    tcp_port_match "$1" listen </proc/net/tcp
}

# tcp_port_match PORT listen|live: reads /proc/net/tcp lines on stdin;
# succeeds when one is a socket listening on PORT (listen), or a socket
# with PORT at either end in any state but TIME_WAIT and CLOSE (live)
tcp_port_match() {
    awk -v p="$(printf ':%04X' "$1")\$" -v m="$2" '
        m == "listen" && $2 ~ p && $4 == "0A" { f = 1 }
        m == "live" && ($2 ~ p || $3 ~ p) && $4 != "06" && $4 != "07" { f = 1 }
        END { exit !f }'
}

# wait_listening PORT: up to 20 s
wait_listening() {
    i=0
    while ! listening "$1" && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
    listening "$1"
}

# run_logged NAME SECONDS CMD...: runs CMD with a time limit; its output
# lines go to the console as "ofl-rdma: NAME| line", then "ofl-rdma: NAME
# rc N"
run_logged() {
    name=$1 secs=$2
    shift 2
    timeout "$secs" "$@" >/tmp/$name.log 2>&1
    rc=$?
    sed "s/^/ofl-rdma: $name| /" /tmp/$name.log
    say "$name rc $rc"
}
