#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make bench-rdma: perftest's ib_write_bw, ib_read_bw and ib_send_bw with
# -R (rdma_cm) at 64 B, 64 KiB and 1 MiB, and ib_send_lat / ib_write_lat
# at 64 B, in one QEMU guest (TCG), for siw <-> siw (siw1 -> siw0, the
# baseline), offload <-> offload, offload -> siw and siw -> offload, each
# device in its own network namespace, every pair over the same routed
# path (guest script: tests/rdma/perf-guest.sh, which says why). Prints
# each pair's average bandwidth or latency and its ratio to siw <-> siw
# for the same tool and size: information only (TCG's absolute figures
# mean little, and no timing is asserted). Checks: every pair ran to
# completion on both sides (exit 0 and a result row), between the
# devices it names, no rdma_disconnect failed, every offload QP's stream
# ended without an error (the device's "stream ends" line), every latency
# pair's offload FPDUs were queued by the posting system call (the
# device's tx_frames count of FPDUs queued outside one: at most 1 in
# 10), and
# the kernel log holds no WARNING, BUG, Oops or leak. Ends with "N passed, M
# failed". A gate: make test-rdma runs it (mk/test-rdma.sh).
#
# Usage: perf.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
# OFL_PERF_FAULT=crc-fault: the planted fault (the device's CRC the
# opposite of the agreed one); OFL_PERF_TOOLS, OFL_PERF_SIZES and
# OFL_PERF_LAT name a subset of the pairs (see perf-guest.sh; an empty
# OFL_PERF_TOOLS or OFL_PERF_LAT runs none of them); OFL_PERF_ITERS the
# iterations of each pair but the 1 MiB ones (default 200)
{
    echo "OFL_PERF_FAULT='${OFL_PERF_FAULT:-}'"
    [ -z "${OFL_PERF_TOOLS+x}" ] || echo "OFL_PERF_TOOLS='$OFL_PERF_TOOLS'"
    [ -z "${OFL_PERF_SIZES+x}" ] || echo "OFL_PERF_SIZES='$OFL_PERF_SIZES'"
    [ -z "${OFL_PERF_LAT+x}" ] || echo "OFL_PERF_LAT='$OFL_PERF_LAT'"
    [ -z "${OFL_PERF_ITERS+x}" ] || echo "OFL_PERF_ITERS='$OFL_PERF_ITERS'"
    cat "$here/perf-guest.sh"
} >"$out/perf-case.sh"
log=$out/perf.log
# veth (each device in its own namespace, perf-guest.sh), the booted
# kernel's own module like dummy.ko
veth=$(dirname "$dummy")/veth.ko
[ -f "$veth" ] || { echo "perf.sh: $veth missing (the booted kernel's veth module)"; exit 1; }
rig_boot "$log" "$out/perf-case.sh" -L rdma -t 1200 -f "$veth:/guest/veth.ko"
tr -d '\r' <"$log" | grep -a '^ofl-perf: ' | sed 's/^ofl-perf: //' >"$out/perf.lines"
echo "== perftest -R in one guest under TCG: average BW (Gb/s) or average latency (usec), and the ratio"
echo "   to siw <-> siw (BW: this / siw; latency: siw / this; above 1 is better than siw; information)"
awk '
/^ib_[a-z_]+ [0-9]+ [a-z0-9]+ -> [a-z0-9]+: client rc/ {
    tool = $1; size = $2; pair = $3 " -> " $5; sub(":", "", pair)
    ok = ($0 ~ /client rc 0, server rc 0/)
    row = $0; sub(/.*row \[/, "", row); sub(/\].*/, "", row); sub(/^[ \t]+/, "", row)
    n = split(row, f, /[ \t]+/)
    lat = tool ~ /_lat$/
    avg = (n >= (lat ? 6 : 4) && f[1] == size) ? f[lat ? 6 : 4] + 0 : -1
    islat[nl + 1] = lat
    if (!ok || avg < 0) bad++
    if (ok && avg == 0) zero++
    if ($0 ~ / disconnect-failed/) disc++
    if ($0 ~ / stream-error/) serr++
    if ($0 ~ / pairing-wrong/) pwrong++
    # a latency pair with an offload side: its FPDUs are queued by the
    # posting system call; at most one in ten may be queued outside it
    # (a connection'"'"'s nudges are), and there are some (the count works)
    note = ""
    if (lat && pair ~ /ofl/) {
        txn = -1; txd = -1
        if (match($0, /tx \[[0-9]+ [0-9]+\]/)) {
            split(substr($0, RSTART + 4, RLENGTH - 5), q, " ")
            txn = q[1] + 0; txd = q[2] + 0
        }
        if (txn <= 0 || txd * 10 > txn) { txbad++; note = "  TX-DEFERRED" }
        note = note sprintf("  (FPDUs %d, queued outside a post %d)", txn, txd)
    }
    key = tool " " size
    if (pair == "siw1 -> siw0") base[key] = avg
    line[++nl] = sprintf("%-12s %8s  %-14s %s", tool, size, pair, ok && avg >= 0 ? sprintf(lat ? "%.2f us" : "%.6f", avg) : "FAILED")
    tail[nl] = note
    k[nl] = key; a[nl] = avg; good[nl] = ok && avg >= 0
}
END {
    for (i = 1; i <= nl; i++) {
        r = "-"
        if (good[i] && base[k[i]] > 0 && a[i] > 0)
            r = sprintf("x%.2f", islat[i] ? base[k[i]] / a[i] : a[i] / base[k[i]])
        print "   " line[i] "  " r tail[i]
    }
    print "pairs " nl " bad " bad + 0 " zero " zero + 0 " disc " disc + 0 " serr " serr + 0 " pwrong " pwrong + 0 " txbad " txbad + 0 > "/dev/stderr"
}' "$out/perf.lines" 2>"$out/perf.sum"
pass=0
fail=0
np=$(sed -n 's/^pairs \([0-9]*\) .*/\1/p' "$out/perf.sum")
nb=$(sed -n 's/.* bad \([0-9]*\) .*/\1/p' "$out/perf.sum")
nz=$(sed -n 's/.* zero \([0-9]*\) .*/\1/p' "$out/perf.sum")
nd=$(sed -n 's/.* disc \([0-9]*\) .*/\1/p' "$out/perf.sum")
ns=$(sed -n 's/.* serr \([0-9]*\) .*/\1/p' "$out/perf.sum")
nw=$(sed -n 's/.* pwrong \([0-9]*\) .*/\1/p' "$out/perf.sum")
nt=$(sed -n 's/.* txbad \([0-9]*\)$/\1/p' "$out/perf.sum")
# verdict STATUS OK_TEXT FAIL_TEXT [DETAIL...]: one check from STATUS (0:
# passed); on a failure DETAIL runs (what to show)
verdict() {
    st=$1 okt=$2 badt=$3
    shift 3
    if [ "$st" -eq 0 ]; then
        echo "ok   $okt"
        pass=$((pass + 1))
    else
        echo "FAIL $badt"
        [ $# -eq 0 ] || "$@"
        fail=$((fail + 1))
    fi
}
# the number of pairs the guest announced (44 unless a subset was asked)
want=$(sed -n 's/^pairs \([0-9]*\)$/\1/p' "$out/perf.lines" | head -1)
[ -n "$want" ] && [ "$want" -gt 0 ] && [ "${np:-0}" -eq "$want" ] && [ "${nb:-1}" -eq 0 ]
verdict $? "all $want pairs ran to completion on both sides" \
    "${np:-0} of ${want:-?} pairs reported, ${nb:-?} failed (qemu exit $rc; console in $log)" \
    sh -c "grep -a '^ *[cskm]| \\|client rc [^0]\\|server rc [^0]' '$out/perf.lines' | head -60"
# rdma_disconnect must not fail on an offload side (it did when the
# peer's close had moved the QP to ERROR before the consumer's SQD)
[ "${nd:-1}" -eq 0 ]
verdict $? "every pair disconnected (no \"Failed to disconnect RDMA CM connection.\")" \
    "${nd:-?} pairs: perftest's rdma_disconnect failed" \
    sh -c "grep -a 'disconnect-failed' '$out/perf.lines' | head -12"
# every pair ran between the devices it names (perf-guest.sh: the
# device's "connection up" lines, local and peer address)
[ "${nw:-1}" -eq 0 ]
verdict $? "every pair ran between the devices it names (offload connections by address)" \
    "${nw:-?} pairs did not run between the devices they name" \
    sh -c "grep -a ' pairing-wrong' '$out/perf.lines' | head -12"
# every offload QP's stream ended without an error: ib_write_bw passes
# whatever becomes of its Writes at the peer (the planted crc-fault showed
# it), so the device's own account of each stream is the check
[ "${ns:-1}" -eq 0 ]
verdict $? "every offload stream ended without an error (no Terminate, no CRC or MPA error)" \
    "${ns:-?} pairs: an offload stream ended in an error" \
    sh -c "grep -a ' stream-error' '$out/perf.lines' | head -12; grep -a '^ *k| .*stream ends' '$out/perf.lines' | grep -v 'err OFL_OK, ' | head -12"
# a latency pair's offload FPDUs are queued by the posting system call,
# not outside it for the work item (2026-12-01: a receive took the
# answer's ring entry before its doorbell did, and every ib_write_lat
# round trip waited for the work item, x0.51-0.59 of siw)
[ "${nt:-1}" -eq 0 ]
verdict $? "every latency pair's offload FPDUs were queued by the posting system call (at most 1 in 10 outside it)" \
    "${nt:-?} latency pairs: offload FPDUs were queued outside the posting system call (left to the work item)" \
    sh -c "grep -a '^ib_[a-z]*_lat .*ofl' '$out/perf.lines' | head -12"
# a figure of 0: perftest could not sample the clock in three tries
# (information: a property of TCG on a busy machine, not of a device)
grep -a "clock sample failed\|: no connection: " "$out/perf.lines" | sed 's/^/   note: /'
[ "${nz:-0}" -eq 0 ] || echo "   note: ${nz} pairs without a figure (perftest's clock sample failed three times)"
! grep -qa '^dmesg| ' "$out/perf.lines"
verdict $? "the kernel log has no WARNING, BUG, Oops or leak" \
    "the kernel log has a WARNING, BUG, Oops or leak" \
    sh -c "grep -a '^dmesg| ' '$out/perf.lines' | head -20"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
