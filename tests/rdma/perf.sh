#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make bench-rdma: perftest's ib_write_bw, ib_read_bw and ib_send_bw with
# -R (rdma_cm) in one QEMU guest (TCG), sizes 64 B, 64 KiB and 1 MiB, for
# siw <-> siw, offload <-> offload, offload -> siw and siw -> offload
# (guest script: tests/rdma/perf-guest.sh). Prints each pair's average
# bandwidth and its ratio to siw <-> siw for the same tool and size:
# information only (TCG's absolute figures mean little, and no timing is
# asserted). Checks: every pair ran to completion on both sides (exit 0
# and a result row), and the kernel log holds no WARNING, BUG, Oops or
# leak. Ends with "N passed, M failed".
#
# Usage: perf.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
log=$out/perf.log
rig_boot "$log" "$here/perf-guest.sh" -L rdma -t 1200
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
    if ($0 ~ / disconnect-failed$/) disc++
    key = tool " " size
    if (pair == "siw0 -> siw0") base[key] = avg
    line[++nl] = sprintf("%-12s %8s  %-14s %s", tool, size, pair, ok && avg >= 0 ? sprintf(lat ? "%.2f us" : "%.6f", avg) : "FAILED")
    k[nl] = key; a[nl] = avg; good[nl] = ok && avg >= 0
}
END {
    for (i = 1; i <= nl; i++) {
        r = "-"
        if (good[i] && base[k[i]] > 0 && a[i] > 0)
            r = sprintf("x%.2f", islat[i] ? base[k[i]] / a[i] : a[i] / base[k[i]])
        print "   " line[i] "  " r
    }
    print "pairs " nl " bad " bad + 0 " zero " zero + 0 " disc " disc + 0 > "/dev/stderr"
}' "$out/perf.lines" 2>"$out/perf.sum"
pass=0
fail=0
np=$(sed -n 's/^pairs \([0-9]*\) .*/\1/p' "$out/perf.sum")
nb=$(sed -n 's/.* bad \([0-9]*\) .*/\1/p' "$out/perf.sum")
nz=$(sed -n 's/.* zero \([0-9]*\) .*/\1/p' "$out/perf.sum")
nd=$(sed -n 's/.* disc \([0-9]*\)$/\1/p' "$out/perf.sum")
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
[ "${np:-0}" -eq 44 ] && [ "${nb:-1}" -eq 0 ]
verdict $? "all 44 pairs ran to completion on both sides" \
    "${np:-0} of 44 pairs reported, ${nb:-?} failed (qemu exit $rc; console in $log)" \
    sh -c "grep -a '^ *[cskm]| \\|client rc [^0]\\|server rc [^0]' '$out/perf.lines' | head -60"
# rdma_disconnect must not fail on an offload side (it did when the
# peer's close had moved the QP to ERROR before the consumer's SQD)
[ "${nd:-1}" -eq 0 ]
verdict $? "every pair disconnected (no \"Failed to disconnect RDMA CM connection.\")" \
    "${nd:-?} pairs: perftest's rdma_disconnect failed" \
    sh -c "grep -a 'disconnect-failed' '$out/perf.lines' | head -12"
# a figure of 0: perftest could not sample the clock in three tries
# (information: a property of TCG on a busy machine, not of a device)
grep -a "clock sample failed" "$out/perf.lines" | sed 's/^/   note: /'
[ "${nz:-0}" -eq 0 ] || echo "   note: ${nz} pairs without a figure (perftest's clock sample failed three times)"
! grep -qa '^dmesg| ' "$out/perf.lines"
verdict $? "the kernel log has no WARNING, BUG, Oops or leak" \
    "the kernel log has a WARNING, BUG, Oops or leak" \
    sh -c "grep -a '^dmesg| ' '$out/perf.lines' | head -20"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
