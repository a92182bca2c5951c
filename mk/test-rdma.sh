#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma: every Linux RDMA rig in turn (issues 25 and 29), each in
# its own QEMU boot, continuing after a failure; each rig's log goes to
# OUT/NAME.log and its closing "N passed, M failed" is summed. Prints one
# line per rig and the total "N passed, M failed"; exits non-zero when a
# rig failed or printed no closing line.
#
#   test-rdma-posix   examples/ofl-rping (posix port) <-> rping on siw
#   test-kmod-iw      ofl_iw.ko: rdma link, ibv_devinfo, verbs, probes
#   test-rdma-device  rping through ofl_iw.ko <-> siw and <-> itself, tshark
#   test-rdma-pyverbs rdma-core's own test suite against siw and ofl_iw.ko
#   test-rdma-hostile a raw MPA peer's malformed FPDUs: exact Terminates
#   test-rdma-nvme    NVMe over RDMA through ofl_iw.ko and siw
#   bench-rdma        perftest -R: offload <-> offload, offload -> siw and
#                     siw -> offload beside siw <-> siw (ratios are
#                     information; the pairs' completion, pairing and
#                     clean streams are checked)
#
# bench-rdma became a rig on 2026-11-29, once its pairs were proven to
# run between the devices they name (each device in its own namespace,
# the device's connection lines) and siw -> offload became possible (a
# device listener shares a taken port bound to its netdev, as siw's is).
# Full runs before that: 2 passed with helpers' builds loading the
# machine; 1 found a real stall (the send ring taken on a doorbell only:
# fixed in ofl_iw_qp_run_pull). What it cannot control (perftest's clock
# sample under TCG, a connection refused while the rig relinks) it runs
# again, at most three times (perf-guest.sh).
#
# Usage: test-rdma.sh OUT MAKE [MAKEFLAGS...]
set -u
out=${1:?usage: test-rdma.sh OUT MAKE}
shift
mkdir -p "$out"
pass=0
fail=0
bad=""
for t in ${OFL_RDMA_RIGS:-test-rdma-posix test-kmod-iw test-rdma-device test-rdma-pyverbs test-rdma-hostile test-rdma-nvme bench-rdma}; do
    t0=$(date +%s)
    "$@" "$t" >"$out/$t.log" 2>&1
    rc=$?
    # the rig's closing line (test-kmod-iw says "ok (N passed, M failed)")
    line=$(grep -aoE '[0-9]+ passed, [0-9]+ failed' "$out/$t.log" | tail -1)
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed*}
    s=$(( $(date +%s) - t0 ))
    if [ -z "$line" ]; then
        printf 'FAIL %-18s no closing line (exit %d, %ds; %s)\n' "$t" "$rc" "$s" "$out/$t.log"
        tail -15 "$out/$t.log" | sed 's/^/     | /'
        fail=$((fail + 1))
        bad="$bad $t"
        continue
    fi
    pass=$((pass + p))
    fail=$((fail + f))
    if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
        printf 'FAIL %-18s %s (exit %d, %ds)\n' "$t" "$line" "$rc" "$s"
        grep -a '^FAIL\|ofl-[a-z]*: FAIL' "$out/$t.log" | head -20 | sed 's/^/     | /'
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && fail=$((fail + 1))
        bad="$bad $t"
    else
        printf 'ok   %-18s %s (%ds)\n' "$t" "$line" "$s"
    fi
done
[ -z "$bad" ] || echo "failed rigs:$bad (logs in $out)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ -z "$bad" ]
