#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Whether the fuzzed machine code of offload.c is the same at REV as in
# the work tree: builds offload.o from each (with the work tree's
# offload.h, which must equal REV's) as make fuzz-campaign builds it
# (AFL++ with ASan+UBSan, AFL++ CMPLOG, libFuzzer with ASan+UBSan; FC_FLAGS
# of mk/embed.mk) and compares the disassembly of .text. Prints one line
# per build and exits 1 when any differs. A campaign's rows name the blob
# of offload.c they ran against; this says whether a later tree's fuzz
# builds differ from it at all.
#
# Usage: sh fuzz/same_code.sh REV
set -u
rev=${1:?usage: fuzz/same_code.sh REV}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-same.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git show "$rev:offload.h" | cmp -s - offload.h || {
    echo "same_code: offload.h differs from $rev's"
    exit 1
}
mkdir "$tmp/old" "$tmp/new"
git show "$rev:offload.c" >"$tmp/old/offload.c" || exit 1
cp offload.c "$tmp/new/offload.c"
flags="-I$PWD -Ifuzz -std=c11 -O2 -g -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
rc=0
for b in afl cmplog libfuzzer; do
    for v in old new; do
        o=$tmp/$v/$b.o
        case $b in
        afl) AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 \
                 ${AFL_CC:-afl-clang-fast} $flags -c "$tmp/$v/offload.c" -o "$o" ;;
        cmplog) AFL_LLVM_CMPLOG=1 AFL_QUIET=1 \
                    ${AFL_CC:-afl-clang-fast} $flags -c "$tmp/$v/offload.c" -o "$o" ;;
        libfuzzer) clang $flags -fsanitize=fuzzer \
                       -fsanitize=address,undefined -fno-sanitize-recover=all \
                       -c "$tmp/$v/offload.c" -o "$o" ;;
        esac || { echo "same_code: $b build failed"; exit 1; }
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
