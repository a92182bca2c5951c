#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Whether the fuzzed machine code of offload.c is the same at REV as in
# the work tree: builds offload.o from each (with the work tree's
# offload.h, which must equal REV's) as make fuzz-campaign builds it
# (AFL++ with ASan+UBSan, AFL++ CMPLOG, libFuzzer with ASan+UBSan) and
# compares the disassembly of .text. Prints one line per build and exits
# 1 when any differs. A campaign's rows name the blob of offload.c they
# ran against; this says whether a later tree's fuzz builds differ from
# it at all. The compilers and flags come from mk/embed.mk (FC_CC_AFL,
# FC_CC_CMPLOG, FC_CC_LIBFUZZER), the ones the campaign's rules use.
#
# Usage: make fuzz-same-code REV=R
set -u
rev=${1:?usage: make fuzz-same-code REV=R}
: "${FC_CC_AFL:?run through make fuzz-same-code}"
: "${FC_CC_CMPLOG:?run through make fuzz-same-code}"
: "${FC_CC_LIBFUZZER:?run through make fuzz-same-code}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-same.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git show "$rev:offload.h" | cmp -s - offload.h || {
    echo "same_code: offload.h differs from $rev's"
    exit 1
}
mkdir "$tmp/old" "$tmp/new"
git show "$rev:offload.c" >"$tmp/old/offload.c" || exit 1
cp offload.c "$tmp/new/offload.c"
rc=0
for b in afl cmplog libfuzzer; do
    case $b in
    afl) cc=$FC_CC_AFL ;;
    cmplog) cc=$FC_CC_CMPLOG ;;
    libfuzzer) cc=$FC_CC_LIBFUZZER ;;
    esac
    for v in old new; do
        o=$tmp/$v/$b.o
        # shellcheck disable=SC2086 # a command and its flags
        $cc -I"$PWD" -c "$tmp/$v/offload.c" -o "$o" ||
            { echo "same_code: $b build failed"; exit 1; }
        objdump -d --no-show-raw-insn -j .text "$o" | sed 1,3d >"$o.dis"
    done
    if cmp -s "$tmp/old/$b.o.dis" "$tmp/new/$b.o.dis"; then
        echo "same_code: $b: .text identical to $rev's"
    else
        echo "same_code: $b: .text DIFFERS from $rev's"
        rc=1
    fi
done
exit $rc
