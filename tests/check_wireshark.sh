#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# offload's frames seen by a peer: runs examples/ofl-pcap --demo and has
# tshark decode both captures (markers + CRC, and plain). Every data frame
# must decode as iWARP MPA/DDP/RDMAP with the fields we sent, no frame may be
# malformed or carry an expert error, IP and TCP checksums must verify, and
# with CRC every FPDU must show "Good CRC32".
#
# Usage: check_wireshark.sh BUILD_DIR CC   (run by make check)
# Known facts about Debian's tshark 4.0: the MPA dissector is a TCP
# heuristic that starts at the MPA Request, so the capture carries the
# handshake; rpcordma's heuristic flags arbitrary Send payloads as malformed
# and is disabled; RFC 7306 Immediate Data shows as opcode "Unknown 8".

build=${1:-build/cc}
cc=${2:-cc}
pass=0
fail=0

if ! command -v tshark >/dev/null 2>&1; then
    if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
        echo "FAIL wireshark: tshark not installed (OFL_REQUIRE_TOOLS=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "SKIP wireshark: tshark not installed"
    exit 0
fi

case $build in
/*) pcap_tool="$build/examples/ofl-pcap" ;; # an absolute BUILD
*) pcap_tool="$(pwd)/$build/examples/ofl-pcap" ;;
esac
if [ ! -x "$pcap_tool" ]; then
    make -s "$build/examples/ofl-pcap" CC="$cc" BUILD="$build" >/dev/null ||
        { echo "FAIL wireshark: cannot build $pcap_tool"; echo "0 passed, 1 failed"; exit 1; }
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/ofl-wireshark.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL wireshark: $*"; }
# expect NAME GOT WANT
expect() {
    if [ "$2" = "$3" ]; then ok; else bad "$1: got [$2], want [$3]"; fi
}

ts() {
    tf=$1
    shift
    tshark -r "$tf" -o tcp.try_heuristic_first:TRUE \
        --disable-protocol rpcordma \
        -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE "$@" 2>/dev/null
}
# fields PCAP FILTER FIELD...: one line per matching frame, comma-separated
fields() {
    f=$1 y=$2
    shift 2
    args=""
    for e in "$@"; do args="$args -e $e"; done
    # shellcheck disable=SC2086
    tshark -r "$f" -o tcp.try_heuristic_first:TRUE \
        --disable-protocol rpcordma -Y "$y" -T fields -E separator=, \
        $args 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}
count() {
    ts "$1" -Y "$2" | wc -l | tr -d ' '
}

if (cd "$dir" && "$pcap_tool" --demo >"$dir/demo.log" 2>&1); then
    ok
else
    bad "ofl-pcap --demo failed: $(cat "$dir/demo.log")"
fi

for variant in markers-crc plain; do
    f="$dir/offload-iwarp-$variant.pcap"
    if [ ! -s "$f" ]; then
        bad "$variant: no capture"
        continue
    fi
    if tshark -r "$f" >/dev/null 2>&1; then ok; else bad "$variant: tshark cannot read"; fi
    frames=$(count "$f" "frame")
    expect "$variant frames" "$frames" 30
    expect "$variant malformed" "$(count "$f" "_ws.malformed")" 0
    expect "$variant expert errors" \
        "$(count "$f" '_ws.expert.severity == "Error"')" 0
    expect "$variant IP checksums good" "$(count "$f" 'ip.checksum.status == 1')" "$frames"
    expect "$variant TCP checksums good" "$(count "$f" 'tcp.checksum.status == 1')" "$frames"
    # Every TCP payload is MPA: 2 connection setup frames + 12 FPDUs.
    expect "$variant data frames" "$(count "$f" 'tcp.len > 0')" 14
    expect "$variant MPA frames" "$(count "$f" 'iwarp_mpa')" 14
    expect "$variant DDP/RDMAP frames" "$(count "$f" 'iwarp_ddp_rdmap')" 12

    if [ "$variant" = markers-crc ]; then
        m=1 c=1 rev=2 plen=21 mulpdu=1442
    else
        m=0 c=0 rev=1 plen=17 mulpdu=1454
    fi
    mo2=$((mulpdu - 18))
    last2=$((18 + 2000 - mo2))
    expect "$variant MPA request" \
        "$(fields "$f" iwarp_mpa.req iwarp_mpa.marker_flag iwarp_mpa.crc_flag iwarp_mpa.rej_flag iwarp_mpa.rev iwarp_mpa.pdlength)" \
        "$m,$c,0,$rev,$plen"
    expect "$variant MPA reply" \
        "$(fields "$f" iwarp_mpa.rep iwarp_mpa.marker_flag iwarp_mpa.crc_flag iwarp_mpa.rej_flag iwarp_mpa.rev iwarp_mpa.pdlength)" \
        "$m,$c,0,$rev,$plen"
    if [ "$variant" = markers-crc ]; then
        # RFC 6581: IRD 8 / ORD 8 requested, IRD 4 / ORD 8 replied.
        expect "$variant request IRD/ORD" \
            "$(fields "$f" iwarp_mpa.req iwarp_mpa.privatedata | cut -c1-8)" 00080008
        expect "$variant reply IRD/ORD" \
            "$(fields "$f" iwarp_mpa.rep iwarp_mpa.privatedata | cut -c1-8)" 00040008
    fi

    # The opcodes in order, with buffer model and queue fields.
    expect "$variant opcodes" \
        "$(fields "$f" iwarp_ddp_rdmap iwarp_rdma.opcode)" \
        "0x03 0x04 0x00 0x01 0x02 0x0a 0x0b 0x08 0x05 0x05 0x00 0x07"
    expect "$variant DDP/RDMAP versions" \
        "$(fields "$f" iwarp_ddp_rdmap iwarp_ddp.dv iwarp_rdma.version | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
        "1,1"
    expect "$variant untagged QN,MSN,MO,L" \
        "$(fields "$f" 'iwarp_ddp.untagged' iwarp_ddp.qn iwarp_ddp.msn iwarp_ddp.mo iwarp_ddp.last_flag)" \
        "0,1,0,1 0,2,0,1 1,1,0,1 3,1,0,1 4,1,0,1 0,3,0,1 0,4,0,0 0,4,$mo2,1 2,1,0,1"
    expect "$variant Send with Invalidate STag" \
        "$(fields "$f" 'iwarp_rdma.opcode == 4' iwarp_rdma.inval_stag)" 305419777
    expect "$variant tagged STag,TO" \
        "$(fields "$f" 'iwarp_ddp.tagged' iwarp_rdma.opcode iwarp_ddp.stag iwarp_ddp.tagged_offset)" \
        "0x00,0x00000a01,0x0000000000010000 0x02,0x00000b01,0x0000000000020000 0x00,0x0bad0001,0x0000000000000000"
    expect "$variant Read Request" \
        "$(fields "$f" iwarp_rdma.rr iwarp_rdma.sinkstag iwarp_rdma.sinkto iwarp_rdma.rdmardsz iwarp_rdma.srcstag iwarp_rdma.srcto)" \
        "0x00000b01,0x0000000000020000,64,0x00000a01,0x0000000000010000"
    expect "$variant Atomic Request" \
        "$(fields "$f" 'iwarp_rdma.opcode == 0x0a' iwarp_rdma.atomic.opcode iwarp_rdma.atomic.request_identifier iwarp_rdma.atomic.remote_stag iwarp_rdma.atomic.remote_tagged_offset iwarp_rdma.atomic.swap_data iwarp_rdma.atomic.compare_data)" \
        "2,1,2561,65600,1229782938247303441,7523094288207667809"
    expect "$variant Atomic Response" \
        "$(fields "$f" 'iwarp_rdma.opcode == 0x0b' iwarp_rdma.atomic.original_request_identifier iwarp_rdma.atomic.original_remote_data_value)" \
        "1,7523094288207667809"
    expect "$variant Terminate" \
        "$(fields "$f" iwarp_rdma.terminate iwarp_rdma.term_layer iwarp_rdma.term_etype_ddp iwarp_rdma.term_errcode_ddp_tagged iwarp_rdma.term_hdrct_m iwarp_rdma.hdrct_d iwarp_rdma.hdrct_r iwarp_rdma.term_ddp_seg_len iwarp_rdma.term_ddp_h)" \
        "0x01,0x01,0x00,1,1,0,001e,c1400bad00010000000000000000"
    expect "$variant ULPDU lengths" \
        "$(fields "$f" iwarp_mpa.fpdu iwarp_mpa.ulpdulength)" \
        "36 39 114 46 78 70 30 26 $mulpdu $last2 30 38"

    good=$(ts "$f" -V | grep -c "Good CRC32")
    badcrc=$(ts "$f" -V | grep -c "Bad CRC32")
    expect "$variant bad CRCs" "$badcrc" 0
    if [ "$variant" = markers-crc ]; then
        expect "$variant good CRCs" "$good" 12
        # Markers every 512 octets from each direction's first FPDU octet:
        # the first FPDU of each side starts with one (FPDUPTR 0).
        expect "$variant first markers" \
            "$(fields "$f" 'iwarp_mpa.fpdu && (frame.number == 7 || frame.number == 15)' iwarp_mpa.marker_fpduptr)" \
            "0 0"
        expect "$variant markers in the large Send" \
            "$(fields "$f" 'frame.number == 23' iwarp_mpa.marker_fpduptr)" \
            "136,648,1160"
    else
        expect "$variant good CRCs" "$good" 0
        expect "$variant markers" "$(count "$f" 'iwarp_mpa.markers')" 0
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
