#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-posix: examples/ofl-rping on the host (posix port)
# against rdma-core's rping on Linux siw in the QEMU guest, both roles, in
# one boot. The host is 10.0.2.2 from the guest (slirp); a hostfwd rule
# per client case reaches the guest's listener. QEMU dumps every frame of
# the guest's NIC (filter-dump); tshark decodes each pair's connection
# (its MPA dissector is a TCP heuristic that starts at the MPA Request, as
# in tests/check_wireshark.sh; Debian's tshark 4.0 has no decode-as entry
# for it).
# Prints one line per check and "N passed, M failed"; exits non-zero on
# any failure.
#
# The guest is the one mk/guest/stage.sh stages (with its rdma layer),
# booted by mk/guest/boot.sh; the logs go to OUT/run.
#
# Usage: run.sh KERNEL STAGED_DIR OUT OFL_RPING
set -u

kernel=${1:?usage: run.sh KERNEL STAGED OUT OFL_RPING}
staged=${2:?}
out=${3:?}
ofl=${4:?}
boot=$(cd "$(dirname "$0")/../../mk/guest" && pwd)/boot.sh
# rig_mpa_crc (the capture's CRC verdicts per port)
. "$(cd "$(dirname "$0")" && pwd)/rig.sh"
run=$out/run
# OFL_RDMA_REUSE=1: judge the previous run again (no boot)
reuse=${OFL_RDMA_REUSE:-0}
[ "$reuse" = 1 ] || rm -rf "$run"
mkdir -p "$run"
case $ofl in /*) ;; *) ofl=$(pwd)/$ofl ;; esac
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
# peer=1 while a case's failures are the peer's, proven by the capture
# (see "A corrupt FPDU from siw" below): counted in peerbad as well
peer=0
peerbad=0
bad() {
    fail=$((fail + 1))
    [ "$peer" = 0 ] || peerbad=$((peerbad + 1))
    echo "FAIL $*"
}
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The cases: NAME ROLE SIZE COUNT OFL_CRC SIW_CRC DELAY_MS EXPECT FAULT
#   ROLE srv: ofl-rping --rping-server on the host, `rping -c -V` in the
#             guest; cli: ofl-rping --rping-client, `rping -s -V` in the
#             guest
#   OFL_CRC / SIW_CRC: which side asks for MPA CRC (siw through the rig's
#             mpa_crc_required parameter; siw 6.1 as responder only follows
#             the initiator's C bit, so "asked by siw" is an srv case)
#   DELAY_MS: siw's pause between its MPA Reply and the QP's taking of the
#             socket (rig_accept_delay_ms): the responder race, widened
#   EXPECT:   pass, mismatch (rping -V must report it), stall (our client
#             must time out)
CASES="srv-64 srv 64 10 no 0 0 pass -
srv-16000-oflcrc srv 16000 10 crc 0 0 pass -
srv-65000-siwcrc srv 65000 3 no 1 0 pass -
srv-65000 srv 65000 3 no 0 0 pass -
cli-64 cli 64 10 no 0 0 pass -
cli-16000-bothcrc cli 16000 10 crc 1 0 pass -
cli-65000-oflcrc cli 65000 3 crc 0 0 pass -
cli-65000 cli 65000 3 no 0 0 pass -
cli-race cli 64 3 no 0 400 pass -
srv-fault-corrupt srv 64 3 no 0 0 mismatch rping-corrupt
cli-race-no-nudge cli 64 3 no 0 400 stall no-nudge"

# Ports: our servers listen on 19100+i; the guest's on 7100+i, reached
# from 127.0.0.1:19200+i.
if [ "$reuse" != 1 ]; then
i=0
fwd=""
: >"$run/case.sh"
echo "$CASES" | while read -r name role size count oc sc delay expect fault; do
    i=$((i + 1))
    {
        echo "say \"case $name\""
        echo "siw_param mpa_crc_required $sc"
        echo "siw_param rig_accept_delay_ms $delay"
        if [ "$role" = srv ]; then
            echo "run_logged $name 120 rping -c -a 10.0.2.2 -p $((19100 + i)) -V -C $count -S $size"
        else
            # a case that must stall: our client gives up after its 10 s
            # wait and the guest's server would wait to its limit; 30 s
            # is enough to see the stall and saves the rig 90 s
            lim=120
            [ "$expect" = stall ] && lim=30
            echo "timeout $lim rping -s -a 10.0.2.15 -p $((7100 + i)) -V -C $count -S $size >/tmp/$name.log 2>&1 &"
            echo "rp=\$!"
            echo "if wait_listening $((7100 + i)); then say \"$name listening\"; else say \"$name not listening\"; fi"
            if [ "$expect" = stall ]; then
                # The verdict is our client's (its log and exit status on
                # the host), final once it gives up and closes; rping -s
                # sees that close as its DISCONNECT EVENT and then hangs to
                # its time limit. End it then (the connection is gone
                # already, so nothing the client sees changes).
                echo "(while kill -0 \$rp 2>/dev/null; do if grep -q 'DISCONNECT EVENT' /tmp/$name.log; then sleep 1; kill -0 \$rp 2>/dev/null && kill \$rp 2>/dev/null && say \"$name: rping -s ended by the rig after the disconnect\"; break; fi; sleep 0.2; done) &"
            fi
            echo "wait \$rp; rc=\$?"
            echo "sed \"s/^/ofl-rdma: $name| /\" /tmp/$name.log"
            echo "say \"$name rc \$rc\""
        fi
    } >>"$run/case.sh"
done
sed -i '1i rdma_up\nsiw_up' "$run/case.sh"

# Our servers wait before the guest boots.
i=0
for line in $(echo "$CASES" | tr ' ' ':'); do
    i=$((i + 1))
    set -- $(echo "$line" | tr ':' ' ')
    name=$1 role=$2 size=$3 count=$4 oc=$5 fault=$9
    flt=""
    [ "$fault" = - ] || flt="--fault $fault"
    if [ "$role" = srv ]; then
        # shellcheck disable=SC2086
        timeout 400 "$ofl" --rping-server -p $((19100 + i)) -S "$size" -C "$count" \
            --"$( [ "$oc" = crc ] && echo crc || echo no-crc)" $flt \
            --rx-record "$run/$name.rx" >"$run/$name.host.log" 2>&1 &
        echo $! >"$run/$name.host.pid"
        pids="$pids $!"
    else
        fwd="$fwd -F $((19200 + i)):$((7100 + i))"
    fi
done

t0=$(date +%s)
log=$run/console.log
: >"$log"
# shellcheck disable=SC2086
sh "$boot" -L rdma -t 480 -l "$log" -p "$run/guest.pcap" $fwd \
    "$kernel" "$staged" "$run/case.sh" &
qemu=$!
pids="$pids $qemu"

# Our clients, each once the guest's rping -s listens.
i=0
for line in $(echo "$CASES" | tr ' ' ':'); do
    i=$((i + 1))
    set -- $(echo "$line" | tr ':' ' ')
    name=$1 role=$2 size=$3 count=$4 oc=$5 fault=$9
    [ "$role" = cli ] || continue
    flt=""
    [ "$fault" = - ] || flt="--fault $fault"
    while ! tr -d '\r' <"$log" | grep -q "^ofl-rdma: $name \(not \)\{0,1\}listening$"; do
        kill -0 $qemu 2>/dev/null || break
        sleep 0.2
    done
    if tr -d '\r' <"$log" | grep -q "^ofl-rdma: $name listening$"; then
        # shellcheck disable=SC2086
        timeout 120 "$ofl" --rping-client 127.0.0.1 -p $((19200 + i)) -S "$size" \
            -C "$count" --"$( [ "$oc" = crc ] && echo crc || echo no-crc)" $flt \
            --rx-record "$run/$name.rx" >"$run/$name.host.log" 2>&1
        echo $? >"$run/$name.host.rc"
    else
        echo "the guest's rping -s did not listen" >"$run/$name.host.log"
        echo 99 >"$run/$name.host.rc"
    fi
done
wait $qemu
qrc=$?
secs=$(($(date +%s) - t0))
for f in "$run"/*.host.pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    wait "$p" 2>/dev/null
    echo $? >"${f%.pid}.rc"
done
pids=""
tr -d '\r' <"$log" >"$run/console.txt"
echo "$qrc $secs" >"$run/qemu.rc"
fi
read -r qrc secs <"$run/qemu.rc"

if [ "$qrc" = 0 ] && grep -q '^ofl-boot: end$' "$run/console.txt"; then
    ok "guest: booted, ran every case and powered off (${secs}s)"
else
    bad "guest: QEMU exit $qrc after ${secs}s (console: $log)"
    tail -30 "$run/console.txt"
fi
if grep -q '^ofl-rdma: siw0 port 4: ACTIVE$' "$run/console.txt"; then
    ok "guest: siw0 on eth0, port ACTIVE"
else
    bad "guest: siw0 not ACTIVE"
fi

# Two tshark passes over the capture: fields of every frame, and the
# detail text for the CRC verdicts (per TCP port).
tsh() {
    tshark -r "$run/guest.pcap" -o tcp.try_heuristic_first:TRUE \
        --disable-protocol rpcordma -o ip.check_checksum:TRUE \
        -o tcp.check_checksum:TRUE "$@" 2>/dev/null
}
tsh -T fields -E separator='|' -e tcp.srcport -e tcp.dstport -e _ws.malformed \
    -e _ws.expert.severity -e iwarp_mpa.req -e iwarp_mpa.ulpdulength \
    -e ip.checksum.status -e tcp.checksum.status -e tcp.checksum.ffff \
    >"$run/fields.txt"
rig_mpa_crc "$run/guest.pcap" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
    >"$run/crc.txt"
# stat PORT: frames malformed expert-errors mpa-requests fpdus
#            checksums-not-good good-crcs bad-crcs
# (a TCP checksum of 0xffff where 0x0000 was computed is the same number
# in ones' complement, RFC 1624: QEMU's e1000 offload writes it now and
# then, and tshark calls it bad; it counts as good here)
stat() {
    awk -F'|' -v p="$1" '$1 == p || $2 == p {
            f++; if ($3 != "") m++; if ($4 ~ /8388608/) e++; if ($5 != "") r++
            if ($6 != "") u += split($6, x, ",")
            if ($7 != "1" || ($8 != "1" && $9 == "")) c++ }
        END { printf "%d %d %d %d %d %d", f, m, e, r, u, c }' "$run/fields.txt"
    awk -v p="$1" '$2 == p { v[$1] = $3 } END { printf " %d %d\n", v["good"], v["bad"] }' \
        "$run/crc.txt"
}

i=0
for line in $(echo "$CASES" | tr ' ' ':'); do
    i=$((i + 1))
    set -- $(echo "$line" | tr ':' ' ')
    name=$1 role=$2 size=$3 count=$4 oc=$5 sc=$6 delay=$7 expect=$8
    glog=$(sed -n "s/^ofl-rdma: $name| //p" "$run/console.txt")
    grc=$(sed -n "s/^ofl-rdma: $name rc \([0-9]*\)$/\1/p" "$run/console.txt")
    hrc=$(cat "$run/$name.host.rc" 2>/dev/null || echo none)
    hlog=$(cat "$run/$name.host.log" 2>/dev/null)
    if [ "$role" = srv ]; then
        port=$((19100 + i)) what="rping -c -V -S $size -C $count (guest) -> ofl-rping --rping-server (host)"
    else
        port=$((7100 + i)) what="ofl-rping --rping-client (host) -> rping -s -V -S $size (guest)"
    fi
    # A corrupt FPDU from siw: the guest's own capture (taken as the
    # frames leave its NIC, before anything of ours touches them) holds
    # an FPDU from siw whose CRC32c does not match its bytes, and our end
    # stopped on OFL_E_MPA_CRC. Rejecting it is RFC 5044 §7.2's rule, so
    # the case's failure is the peer's. Seen once in 2026-11-29's CI
    # (cli-65000-oflcrc: 1 of 60 FPDUs of siw's Write, with
    # crc32c_generic, the pattern intact on the wire, no single bit flip
    # explaining it); the cause inside the guest is not known.
    if [ "$role" = srv ]; then
        sent=$(awk -v p=$((19100 + i)) '$1 == "badto" && $2 == p { print $3 }' "$run/crc.txt")
    else
        sent=$(awk -v p=$((7100 + i)) '$1 == "badfrom" && $2 == p { print $3 }' "$run/crc.txt")
    fi
    peer=0
    if [ "$expect" = pass ] && [ -n "$sent" ] && [ "$sent" -gt 0 ] &&
        echo "$hlog" | grep -q 'OFL_E_MPA_CRC'; then
        peer=1
        echo "PEER $name: siw sent $sent FPDU(s) whose CRC32c does not match their bytes in the guest's capture; ofl-rping rejected them (OFL_E_MPA_CRC), as RFC 5044 §7.2 requires"
    fi
    crc="CRC off"
    [ "$oc" = crc ] && crc="CRC asked by ofl-rping"
    [ "$sc" = 1 ] && crc="CRC asked by siw"
    [ "$oc$sc" = crc1 ] && crc="CRC asked by both"
    race=""
    [ "$delay" = 0 ] || race=", siw hands over ${delay} ms after its Reply"
    detail=""
    case $expect in
    pass)
        [ "$grc" = 0 ] || detail="$detail guest rc [$grc]"
        [ "$hrc" = 0 ] || detail="$detail host rc [$hrc]"
        if echo "$glog" | grep -qi 'mismatch\|fail\|error'; then detail="$detail guest said [$(echo "$glog" | grep -i 'mismatch\|fail\|error' | head -1)]"; fi
        ;;
    mismatch)
        echo "$glog" | grep -q 'data mismatch' || detail="$detail rping -V reported no mismatch"
        [ -n "$grc" ] && [ "$grc" != 0 ] || detail="$detail guest rc [$grc], want non-zero"
        ;;
    stall)
        echo "$hlog" | grep -q 'no completion' || detail="$detail our client did not stall"
        [ "$hrc" != 0 ] || detail="$detail host rc 0, want non-zero"
        ;;
    esac
    if [ -z "$detail" ]; then
        ok "$name: $what, $crc$race: $expect"
    else
        bad "$name: $what, $crc$race: want $expect:$detail"
        echo "$hlog" | sed 's/^/    host| /'
        echo "$glog" | sed 's/^/    guest| /'
        # what our side received, framed again offline: a bad FPDU in the
        # record and a good one in the capture put the fault between the
        # guest's NIC and our socket; a clean record, in our receive path
        if [ -s "$run/$name.rx" ]; then
            "$ofl" --check-rx "$run/$name.rx" \
                --"$( [ "$oc" = crc ] || [ "$sc" = 1 ] && echo crc || echo no-crc)" |
                sed 's/^/    host| /'
        fi
    fi
    if [ "$name" = cli-race ]; then
        n=$(echo "$hlog" | sed -n 's/.*verified (\([0-9]*\) zero-length Writes.*/\1/p')
        if [ -n "$n" ] && [ "$n" -ge 1 ]; then
            ok "$name: the race was hit and bridged by $n zero-length Write(s)"
        else
            bad "$name: want at least one zero-length Write before siw's first byte, got [$n]"
        fi
    fi
    [ "$expect" = pass ] || continue
    # the capture of this pair
    read -r frames malformed experr req fpdus csum good badc <<EOF
$(stat $port)
EOF
    detail=""
    [ "$fpdus" -gt 0 ] && [ "$req" = 1 ] || detail="$detail $frames frames, $req MPA Requests, $fpdus FPDUs"
    [ "$malformed" = 0 ] || detail="$detail $malformed malformed"
    [ "$experr" = 0 ] || detail="$detail $experr expert errors"
    [ "$csum" = 0 ] || detail="$detail $csum frames without good IP and TCP checksums"
    [ "$badc" = 0 ] || detail="$detail $badc bad CRCs"
    if [ "$crc" = "CRC off" ]; then
        [ "$good" = 0 ] || detail="$detail $good CRCs where none was asked"
    else
        [ "$good" -gt 0 ] && [ "$good" = "$fpdus" ] || detail="$detail $good good CRCs for $fpdus FPDUs"
    fi
    if [ -z "$detail" ]; then
        ok "$name: capture: $frames frames, $fpdus FPDUs, no malformed frame, checksums good$( [ "$good" = 0 ] || echo ", every FPDU Good CRC32")"
    else
        bad "$name: capture:$detail"
    fi
done

peer=0
echo "$pass passed, $fail failed"
# exit 3: every failure was a corrupt FPDU from siw (the caller may boot
# the rig once more); 1: any other failure
[ "$fail" = 0 ] && exit 0
[ "$fail" = "$peerbad" ] && exit 3
exit 1
