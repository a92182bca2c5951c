#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The completion statuses against the Linux kernel's enum ib_wc_status
# (include/rdma/ib_verbs.h of the installed kernel headers, or of $KDIR):
# every OFL_WC_<NAME> of offload.h must be the kernel's IB_WC_<NAME> with
# the same value, and the kernel's enum may hold no status offload lacks.
# libibverbs' enum ibv_wc_status is checked at compile time by
# tests/test_verbs.c.
#
# Usage: check_ib_wc_status.sh BUILD_DIR CC   (run by make check; the
# arguments are unused)

hdr=
for d in ${KDIR:+"$KDIR"} /usr/src/linux-headers-*; do
    if [ -f "$d/include/rdma/ib_verbs.h" ]; then
        hdr=$d/include/rdma/ib_verbs.h
        break
    fi
done
if [ -z "$hdr" ]; then
    if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
        echo "FAIL ib_wc_status: no kernel headers with include/rdma/ib_verbs.h (OFL_REQUIRE_TOOLS=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "SKIP ib_wc_status: no kernel headers with include/rdma/ib_verbs.h"
    exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/ofl-ibwc.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

# The kernel's enumerators in order (none has an initialiser: each is its
# position), one per line.
awk '/^enum ib_wc_status[ \t]*\{/ { f = 1; next }
     f && /^\}/ { exit }
     f { gsub(/\/\*.*\*\//, ""); gsub(/[ \t,]/, ""); if ($0 != "") print }' \
    "$hdr" > "$dir/kernel"
# offload.h's OFL_WC_STATUSES list: NAME VALUE per line.
awk '/^#define OFL_WC_STATUSES\(X\)/ { f = 1 }
     f { if (match($0, /X\([A-Z_]+, [0-9]+\)/)) {
             s = substr($0, RSTART + 2, RLENGTH - 3); sub(/,/, "", s); print s }
         if ($0 !~ /\\$/) exit }' \
    "$(dirname "$0")/../offload.h" > "$dir/ofl"

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ib_wc_status: $*"; }

nk=$(wc -l < "$dir/kernel")
no=$(wc -l < "$dir/ofl")
if [ "$nk" -gt 0 ]; then ok; else bad "no enum ib_wc_status in $hdr"; fi
if grep -q '=' "$dir/kernel"; then
    bad "$hdr gives ib_wc_status values explicitly; this check reads positions"
else
    ok
fi
i=0
while read -r name value; do
    k=$(sed -n "$((i + 1))p" "$dir/kernel")
    if [ "$value" = "$i" ] && [ "$k" = "IB_WC_$name" ]; then
        ok
    else
        bad "OFL_WC_$name = $value, the kernel's value $i is ${k:-nothing}"
    fi
    i=$((i + 1))
done < "$dir/ofl"
if [ "$nk" = "$no" ]; then
    ok
else
    bad "the kernel has $nk statuses, offload.h $no"
fi
echo "ib_wc_status: offload.h against $hdr"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
