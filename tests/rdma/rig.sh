# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Sourced by the device rigs (device.sh, pyverbs.sh, hostile.sh, perf.sh):
# their common arguments and the guest boot with ofl_iw.ko and the
# kernel's dummy netdev module.
#
# rig_args KERNEL STAGED_DIR OUT OFL_IW_KO: sets kernel, staged, out, ko,
#   boot, dummy (the booted kernel's drivers/net/dummy.ko); makes OUT
# rig_boot LOG SCRIPT [boot.sh options...]: boots SCRIPT with ofl_iw.ko in
#   /guest/extra and dummy.ko in /guest; sets rc to QEMU's exit status
# rig_tally PREFIX LOG: prints the guest's "PREFIX: " lines without the
#   prefix; true when its last "N passed, M failed" line has M = 0, and
#   says so (with the console's tail) when there is none
# rig_mpa_crc PCAP [TSHARK_OPTION...]: tshark's MPA CRC32c verdicts in a
#   capture, per TCP port: lines "good PORT N" and "bad PORT N" (frames
#   to or from PORT), "badfrom PORT N" and "badto PORT N" (bad ones by
#   direction). Used by run.sh (posix) and device.sh; sourcing this file
#   alone defines the functions and runs nothing.
rig_args() {
    kernel=${1:?usage: KERNEL STAGED OUT OFL_IW_KO}
    staged=${2:?usage: KERNEL STAGED OUT OFL_IW_KO}
    out=${3:?usage: KERNEL STAGED OUT OFL_IW_KO}
    ko=${4:?usage: KERNEL STAGED OUT OFL_IW_KO}
    boot=$(cd "$(dirname "$0")" && pwd)/../../mk/guest/boot.sh
    dummy=/lib/modules/$(basename "$kernel" | sed 's/^vmlinuz-//')/kernel/drivers/net/dummy.ko
    [ -f "$dummy" ] || { echo "$(basename "$0"): $dummy missing (the booted kernel's dummy netdev module)"; exit 1; }
    mkdir -p "$out"
}

rig_boot() {
    rlog=$1 rscript=$2
    shift 2
    rc=0
    sh "$boot" "$@" -l "$rlog" -m "$ko" -f "$dummy:/guest/dummy.ko" \
        "$kernel" "$staged" "$rscript" >/dev/null 2>&1 || rc=$?
}

rig_tally() {
    tr -d '\r' <"$2" | grep -a "^$1: " | sed "s/^$1: //"
    rlast=$(tr -d '\r' <"$2" | grep -aE "^$1: [0-9]+ passed, [0-9]+ failed\$" | tail -1)
    if [ -z "$rlast" ]; then
        echo "$(basename "$0"): no result line (qemu exit $rc; console in $2)"
        tail -30 "$2"
        echo "0 passed, 1 failed"
        return 1
    fi
    echo "$rlast" | grep -q ', 0 failed$'
}

rig_mpa_crc() {
    rpcap=$1
    shift
    tshark -r "$rpcap" -o tcp.try_heuristic_first:TRUE \
        --disable-protocol rpcordma "$@" -V 2>/dev/null |
        awk '/^Transmission Control Protocol, Src Port: / {
                s = $6; d = $9; sub(/,$/, "", s); sub(/,$/, "", d) }
            /\(Good CRC32\)/ { good[s]++; good[d]++ }
            /\(Bad CRC32/ { bad[s]++; bad[d]++; from[s]++; to[d]++ }
            END { for (p in good) print "good", p, good[p]; for (p in bad) print "bad", p, bad[p]
                  for (p in from) print "badfrom", p, from[p]; for (p in to) print "badto", p, to[p] }'
}
