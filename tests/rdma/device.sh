#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-device: rdma-core's stock rping -V through the offload
# device (ofl_iw.ko) in one QEMU guest, against Linux siw and against a
# second offload device: the cases and the layout are in
# tests/rdma/device-guest.sh. The guest captures a few small cases on lo
# and tshark decodes them here (no malformed frame, good CRCs). Prints one
# line per check and "N passed, M failed"; exits non-zero on any failure.
#
# Usage: device.sh KERNEL STAGED_DIR OUT OFL_IW_KO
#   OFL_DEV_CASES="name ..."  run only these cases (default: all)
#   OFL_DEV_FAULT=no-nudge    also the planted case that must fail
#   OFL_DEV_FAULT=no-lend     QPs copy each FPDU into the ring: the
#                             transmit check must fail
#   OFL_DEV_FAULT=crc-fault   the device uses the opposite of the CRC the
#                             MPA handshake agreed: every case must fail
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
{
    echo "OFL_DEV_CASES='${OFL_DEV_CASES:-all}'"
    echo "OFL_DEV_FAULT='${OFL_DEV_FAULT:-}'"
    cat "$here/device-guest.sh"
} >"$out/device-case.sh"
kconn=$(dirname "$ko")/ofl_iw_kconn.ko
rig_boot "$out/device.log" "$out/device-case.sh" -L rdma -t 900 \
    $( [ -f "$kconn" ] && echo "-f $kconn:/guest/ofl_iw_kconn.ko" )
log=$out/device.log
# the guest's checks, without its own closing line
tr -d '\r' <"$log" | grep -a '^ofl-dev: ' | sed 's/^ofl-dev: //' |
    grep -avE '^[0-9]+ passed, [0-9]+ failed$'
last=$(tr -d '\r' <"$log" | grep -aE '^ofl-dev: [0-9]+ passed, [0-9]+ failed$' | tail -1)
if [ -z "$last" ]; then
    echo "device.sh: no result line (qemu exit $rc; console in $log)"
    tail -30 "$log"
    echo "0 passed, 1 failed"
    exit 1
fi
pass=$(echo "$last" | sed -E 's/^ofl-dev: ([0-9]+) passed.*/\1/')
fail=$(echo "$last" | sed -E 's/.* ([0-9]+) failed$/\1/')
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# The captures (issue 25 item 8): tshark decodes every connection of the
# capture cases as iWARP (MPA, DDP, RDMAP), with no malformed frame and
# no expert error, and with CRC on, every FPDU's CRC good. Captured on the
# guest's lo, whose TCP checksums are left to offload (not checked).
cases=$(tr -d '\r' <"$log" | sed -n 's/^ofl-dev-cap: //p')
if [ -n "$cases" ]; then
    tr -d '\r' <"$log" | sed -n 's/^ofl-dev-pcap: //p' | base64 -d >"$out/device.pcap" 2>/dev/null
    if ! command -v tshark >/dev/null 2>&1; then
        bad "captures: tshark missing (apt-get install tshark)"
    elif [ ! -s "$out/device.pcap" ]; then
        bad "captures: no pcap came back from the guest"
    else
        tsh() {
            tshark -r "$out/device.pcap" -o tcp.try_heuristic_first:TRUE \
                --disable-protocol rpcordma "$@" 2>/dev/null
        }
        tsh -T fields -E separator='|' -e tcp.srcport -e tcp.dstport -e _ws.malformed \
            -e _ws.expert.severity -e iwarp_mpa.req -e iwarp_mpa.ulpdulength \
            -e iwarp_rdma.opcode -e iwarp_mpa.marker_fpduptr >"$out/device-fields.txt"
        rig_mpa_crc "$out/device.pcap" >"$out/device-crc.txt"
        # the planted fault: the last byte of the last frame of the first
        # CRC case (an FPDU's CRC) flipped in a copy; the check must see it
        pc=$(echo "$cases" | awk '$3 == 1 { print $2; exit }')
        pf=$(awk -F'|' -v p="$pc" '($1 == p || $2 == p) && $6 != "" { n = NR } END { print n + 0 }' \
            "$out/device-fields.txt")
        python3 - "$out/device.pcap" "$out/device-planted.pcap" "$pf" <<'PLANT'
import struct, sys
src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
end = '<' if b[:4] == b'\xd4\xc3\xb2\xa1' else '>'
off, n = 24, 0
while off + 16 <= len(b):
    incl = struct.unpack(end + 'I', b[off + 8:off + 12])[0]
    n += 1
    if n == want:
        b[off + 16 + incl - 1] ^= 0x5A
        break
    off += 16 + incl
open(dst, 'wb').write(b)
PLANT
        pbad=$(tshark -r "$out/device-planted.pcap" -o tcp.try_heuristic_first:TRUE \
            --disable-protocol rpcordma -V 2>/dev/null | grep -c '(Bad CRC32')
        if [ "$pf" -gt 0 ] && [ "$pbad" -ge 1 ]; then
            ok "tshark: a CRC byte flipped in frame $pf of port $pc is seen (Bad CRC32: $pbad)"
        else
            bad "tshark: a CRC byte flipped in frame $pf of port $pc is not seen (Bad CRC32: $pbad)"
        fi
        echo "$cases" | while read -r name port crcf; do
            # frames, malformed, expert errors, MPA requests, FPDUs, frames
            # with RDMAP, frames with markers; then good and bad CRCs
            st=$(awk -F'|' -v p="$port" '$1 == p || $2 == p {
                    f++; if ($3 != "") m++; if ($4 ~ /8388608/) e++; if ($5 != "") r++
                    if ($6 != "") u += split($6, x, ","); if ($7 != "") o++; if ($8 != "") k++ }
                END { printf "%d %d %d %d %d %d %d", f, m, e, r, u, o, k }' "$out/device-fields.txt")
            cr=$(awk -v p="$port" '$2 == p { v[$1] = $3 } END { printf "%d %d", v["good"], v["bad"] }' \
                "$out/device-crc.txt")
            set -- $st $cr
            d="$name (port $port): $1 frames, $2 malformed, $3 expert errors, $4 MPA requests, $5 FPDUs, $6 with RDMAP, $7 with markers, CRC $8 good / $9 bad"
            if [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -eq 0 ] && [ "$4" -ge 1 ] &&
                [ "$5" -ge 40 ] && [ "$6" -ge 10 ] && [ "$9" -eq 0 ] &&
                { [ "$crcf" = 0 ] || [ "$8" -ge "$5" ]; } &&
                case $name in *markers) [ "$7" -ge 1 ] ;; *) [ "$7" -eq 0 ] ;; esac; then
                echo "ok   tshark: $d"
            else
                echo "FAIL tshark: $d"
            fi
        done >"$out/device-tshark.txt"
        cat "$out/device-tshark.txt"
        pass=$((pass + $(grep -c '^ok' "$out/device-tshark.txt")))
        fail=$((fail + $(grep -c '^FAIL' "$out/device-tshark.txt")))
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
