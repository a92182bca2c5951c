#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Issue 30's bars ("Per-message cost to the floor") as instruction counts,
# which do not move with load. One line per figure:
#   bench-count: NAME VALUE UNIT (target OP T: ok|miss)
#
# How it counts. The bench (bench_qp.c, bench_tpt.c; OFL_BENCH_QP_COUNT /
# OFL_BENCH_TPT_COUNT) runs each operation COUNT times in a function of
# its own (qp_count_*, tpt_count_*) after warming up on the same rig;
# callgrind collects inside that function only (--toggle-collect), with
# LD_BIND_NOW so no symbol is resolved inside it, and writes a real output
# file, $build/count.FN.callgrind. count_share.py splits its instructions
# by owner: the library (offload.c/offload.h), the sim port's hooks
# (ports/sim: the DMA copies with their allow-list checks, and the fused
# copy+CRC hooks less the CRC they call), the CRC32c kernel (the posix
# port's CRC, ISA-L, the bench's crc_hook, also when a fused hook calls
# it), the wire (tests/support: the rig's transmit callback, which hands
# each FPDU to the peer's ofl_qp_input in place) and the loop
# (tests/bench). A C library function (memcpy) is charged to its caller's
# owner. The "library share" is the library owner's count divided by
# COUNT: the port, the CRC kernel, the wire and the loop are left out. The
# counts are the same from run to run (same binary, same inputs; checked
# by hand).
#
#   send64_library           64 B Send, engine A to engine B over the
#                            direct wire, CRC on, EMSS 1460: post_recv,
#                            post_send, process (A), input (B, called by
#                            the wire), both polls; per message
#   write4k_further_fpdu_library
#                            (4 KiB Write at EMSS 1460, 3 FPDUs) minus
#                            (4 KiB Write at EMSS 9000, 1 FPDU), divided
#                            by the difference in FPDUs (2), which the
#                            bench reports from the wire's transmissions
#   write4k_overhead_library the 1-FPDU 4 KiB Write's library share: the
#                            library moves and sums no payload byte itself
#                            (the port's dma_read/dma_write and crc32c
#                            hooks do, counted under port and crc), so its
#                            share is the overhead beyond moving and
#                            CRCing the bytes. An info line also gives
#                            library + port + CRC minus two counted 4 KiB
#                            memcpys (with their loop) and two counted 4 KiB CRC32cs.
#                            These three run on the sim port's plain
#                            hooks (no fused ones, as most ports); a
#                            further info line gives the same Write's
#                            split with the fused hooks (one pass per
#                            side: the library then sums prefix and
#                            header on its own, about 70 instructions
#                            more per FPDU)
#   write4k_payload_passes_per_side
#                            the larger of the sender's and the
#                            receiver's passes over the payload of one
#                            4 KiB Write: bench_qp.c wraps the port's
#                            dma_read, dma_write and crc32c hooks and the
#                            fused copy+CRC hooks (dma_read_crc32c,
#                            dma_write_crc32c, which this Write's sim ports
#                            have: ofl_sim_set_fused) and sums the bytes
#                            each side's hooks touch, / 4096, rounded down
#                            (no instruction counter). A fused call's
#                            bytes count once: the crc32c calls it makes
#                            for its blocks are not counted again. It
#                            sees what goes through the hooks, which is
#                            all of it today (the library does not touch
#                            host memory itself)
#   tpt_check_translate_vs_floor
#                            ofl_tpt_check_translate's library share per
#                            call against bench_tpt.c's floor_translate
#                            (the same walk with no check), both without
#                            their loops. An info line also gives
#                            bench_tpt.c's ref_checked_translate (the
#                            floor's walk with the checks, written plainly:
#                            what the checks cost on this compiler)
#   cm4_offload_o_bytes_added
#                            text + data + bss of offload.o for the
#                            Cortex-M4 at -Os (mk/embed.mk's
#                            build/cortexm/offload.o, arm-none-eabi-gcc)
#                            minus the number in cm4_size.baseline (the
#                            size when issue 30's work began); "not
#                            measured" without arm-none-eabi-gcc
# count_dt.sh prints dt_exchange_vs_floor the same way.
#
# The gate (count_lib.sh): a miss is information, the script exits 0,
# unless OFL_COUNT_GATE=1 or the figure is named in COUNT_GATED (the
# targets met: see there). A failure to count always fails.
#
# Usage: count_qp.sh [BUILD_DIR]   (run by make bench-count [CC=...])
# Built without AVX-512 (-march=x86-64-v2 on x86-64), which valgrind cannot
# decode, at -O2 with DWARF 4; the counts are of that build.

build=${1:-build/callgrind}
pass=0
fail=0

what="issue 30 counts"
. "$(dirname "$0")/count_lib.sh"
count_setup
if ! command -v "${PYTHON:-python3}" >/dev/null 2>&1; then
    echo "FAIL $what: ${PYTHON:-python3} not installed (count_share.py)"
    echo "0 passed, 1 failed"
    exit 1
fi

# The owner's count (lib, port, crc, wire, loop, floor or total) in a
# count_share line.
field() {
    echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# Runs count_share for function $3 and fails when it gives nothing.
share() {
    s=$(count_share "$1" "$2" "$3")
    if [ -z "$s" ] || [ "$(field "$s" total)" = 0 ]; then
        echo "FAIL $what: counting $3 failed (see $build/count.$2.$3.log, $build/count.$3.share)" >&2
        return 1
    fi
    echo "$s"
}

n=4096
qp_ok=1
send=$(share OFL_BENCH_QP_COUNT qp qp_count_send64) || qp_ok=0
w1=$(share OFL_BENCH_QP_COUNT qp qp_count_write4k_1fpdu) || qp_ok=0
w3=$(share OFL_BENCH_QP_COUNT qp qp_count_write4k_emss1460) || qp_ok=0
crc=$(share OFL_BENCH_QP_COUNT qp qp_count_crc4k) || qp_ok=0
cpy=$(share OFL_BENCH_QP_COUNT qp qp_count_copy4k) || qp_ok=0
wf=$(share OFL_BENCH_QP_COUNT qp qp_count_write4k_fused) || qp_ok=0
if ! grep -q "^bench: qp_count ran $n operations each" "$build/count.qp.out"; then
    echo "FAIL qp count: the counting run failed:"
    cat "$build/count.qp.out"
    fail=$((fail + 1))
elif [ "$qp_ok" = 0 ]; then
    fail=$((fail + 1))
else
    pass=$((pass + 1))
    # per operation, one decimal
    per() { awk -v c="$1" -v n="$n" 'BEGIN { printf "%.1f", c / n }'; }
    echo "bench-count: send64 split per message: total $(per "$(field "$send" total)")," \
        "library $(per "$(field "$send" lib)"), port $(per "$(field "$send" port)")," \
        "CRC $(per "$(field "$send" crc)"), wire $(per "$(field "$send" wire)")," \
        "loop $(per "$(field "$send" loop)") instr (info)"
    count_figure send64_library "$(per "$(field "$send" lib)")" instr/msg "<=" 800
    l1=$(field "$w1" lib)
    l3=$(field "$w3" lib)
    fp=$(sed -n 's/^bench: qp_count FPDUs per 4 KiB Write: \([0-9]*\) at EMSS 9000, \([0-9]*\) at EMSS 1460$/\1 \2/p' \
        "$build/count.qp.out")
    set -- $fp
    if [ $# -ne 2 ] || [ "$1" -ne 1 ] || [ "$2" -le 1 ]; then
        echo "FAIL qp count: FPDUs per Write '$fp', want 1 and more than 1"
        fail=$((fail + 1))
    else
        count_figure write4k_further_fpdu_library \
            "$(awk -v a="$l3" -v b="$l1" -v n="$n" -v k="$(($2 - $1))" 'BEGIN { printf "%.1f", (a - b) / n / k }')" \
            instr/FPDU "<=" 300
    fi
    count_figure write4k_overhead_library "$(per "$l1")" instr/write "<=" 400
    awk -v l="$l1" -v p="$(field "$w1" port)" -v c="$(field "$w1" crc)" \
        -v k="$(field "$crc" crc)" -v m="$(field "$cpy" total)" -v n="$n" 'BEGIN {
        printf "bench-count: write4k_1fpdu per write: library %.1f, port %.1f, CRC %.1f; " \
            "one 4 KiB memcpy with its loop %.1f, one 4 KiB CRC32c %.1f; library + port + CRC - 2 memcpy - 2 CRC %.1f instr (info)\n",
            l / n, p / n, c / n, m / n, k / n, (l + p + c - 2 * m - 2 * k) / n }'
    awk -v l="$(field "$wf" lib)" -v p="$(field "$wf" port)" -v c="$(field "$wf" crc)" -v n="$n" 'BEGIN {
        printf "bench-count: write4k_1fpdu with the fused hooks per write: library %.1f, port %.1f, CRC %.1f (info)\n",
            l / n, p / n, c / n }'
    passes=$(sed -n 's/^bench: qp_count passes over a 4 KiB Write.s payload: sender \([0-9]*\) receiver \([0-9]*\)$/\1 \2/p' \
        "$build/count.qp.out")
    if [ -n "$passes" ]; then
        set -- $passes
        echo "bench-count: write4k payload passes: sender $1, receiver $2 (info)"
        count_figure write4k_payload_passes_per_side "$(( $1 > $2 ? $1 : $2 ))" passes "<=" 1
    else
        echo "bench-count: write4k_payload_passes_per_side not measured (no CRC32c hook here) (target <= 1)"
    fi
fi

m=100000
tl=$(share OFL_BENCH_TPT_COUNT tpt tpt_count_library) || tl=
tf=$(share OFL_BENCH_TPT_COUNT tpt tpt_count_floor) || tf=
tr=$(share OFL_BENCH_TPT_COUNT tpt tpt_count_checked_reference) || tr=
if ! grep -q "^bench: tpt_count ran $m check-and-translates" "$build/count.tpt.out"; then
    echo "FAIL tpt count: the counting run failed:"
    cat "$build/count.tpt.out"
    fail=$((fail + 1))
elif [ -z "$tl" ] || [ -z "$tf" ] || [ -z "$tr" ] ||
     [ "$(field "$tl" lib)" = 0 ] || [ "$(field "$tf" floor)" = 0 ] ||
     [ "$(field "$tr" floor)" = 0 ]; then
    echo "FAIL tpt count: callgrind counted nothing"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
    l=$(field "$tl" lib)
    f=$(field "$tf" floor)
    r=$(field "$tr" floor)
    awk -v l="$l" -v f="$f" -v n="$m" 'BEGIN {
        printf "bench-count: tpt check+translate library %.1f instr/op, floor %.1f instr/op (info)\n", l / n, f / n }'
    awk -v r="$r" -v f="$f" -v n="$m" 'BEGIN {
        printf "bench-count: tpt checked reference (the floor with the checks, bench_tpt.c) %.1f instr/op, %.2f x the floor (info)\n", r / n, r / f }'
    count_figure tpt_check_translate_vs_floor \
        "$(awk -v l="$l" -v f="$f" 'BEGIN { printf "%.2f", l / f }')" x "<=" 1.5
fi

base=$(sed -n 's/^bytes \([0-9]*\).*/\1/p' "$(dirname "$0")/cm4_size.baseline")
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    echo "bench-count: cm4_offload_o_bytes_added not measured (arm-none-eabi-gcc not installed) (target <= 0)"
    if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
        echo "FAIL cm4 size: arm-none-eabi-gcc not installed (OFL_REQUIRE_TOOLS=1)"
        fail=$((fail + 1))
    fi
elif [ -z "$base" ]; then
    echo "FAIL cm4 size: no number in tests/bench/cm4_size.baseline"
    fail=$((fail + 1))
elif ! make -s build/cortexm/offload.o >/dev/null 2>&1; then
    echo "FAIL cm4 size: cannot build build/cortexm/offload.o"
    fail=$((fail + 1))
else
    now=$(arm-none-eabi-size build/cortexm/offload.o | awk 'NR == 2 { print $1 + $2 + $3 }')
    echo "bench-count: cm4 offload.o -Os $now bytes, baseline $base (info)"
    count_figure cm4_offload_o_bytes_added "$((now - base))" bytes "<=" 0
    pass=$((pass + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
