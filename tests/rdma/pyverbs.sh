#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# make test-rdma-pyverbs: rdma-core's own test suite (Debian's
# python3-pyverbs, run_tests.py, unmodified) in one QEMU guest against
# Linux siw and against the offload device (ofl_iw.ko); the guest script
# is tests/rdma/pyverbs-guest.sh. Prints each device's tally (pass / skip
# / fail / error) and the tests that failed or erred on offload, then the
# checks: the suite ran on both devices; on offload no test fails or errs;
# every test that passes on siw passes on offload; with --gid 0 (a third
# run: the suite's zero-GID check drops every iWARP port) the rdmacm
# tests that iWARP can carry pass on offload; the kernel log holds no
# WARNING, BUG, Oops or leak. Ends with "N passed, M failed".
#
# Usage: pyverbs.sh KERNEL STAGED_DIR OUT OFL_IW_KO
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rig.sh"
rig_args "$@"
log=$out/pyverbs.log
rig_boot "$log" "$here/pyverbs-guest.sh" -L rdma -L py -M 2048 -t 1500
tr -d '\r' <"$log" | grep -a '^ofl-py: ' | sed 's/^ofl-py: //' >"$out/pyverbs.lines"
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
# per run: test id and verdict (ok, skip, fail, error, xfail, xpass)
for dev in siw0 ofl0 ofl0cm; do
    grep -a "^$dev| " "$out/pyverbs.lines" | sed "s/^$dev| //" |
        awk '{ print $1, $2 }' | sort -u >"$out/$dev.verdicts"
done
tally() {
    f=$out/$1.verdicts
    printf '%s: %d tests: %d pass, %d skip, %d fail, %d error (%s)\n' "$1" "$(wc -l <"$f")" \
        "$(grep -c ' ok$' "$f")" "$(grep -c ' skip$' "$f")" "$(grep -c ' fail$' "$f")" \
        "$(grep -c ' error$' "$f")" "$(grep -a "^$1 summary| " "$out/pyverbs.lines" | sed "s/^$1 summary| //" | tr '\n' ' ' | sed 's/ $//')"
}
echo "== rdma-core's tests (run_tests.py -v --dev DEV), unmodified, in one guest"
tally siw0
tally ofl0
echo "== not passing on ofl0:"
grep -vE ' (ok|skip)$' "$out/ofl0.verdicts" | sed 's/^/   /'
echo "== passing on siw0, not on ofl0:"
awk '$2 == "ok" { print $1 }' "$out/siw0.verdicts" | while read -r t; do
    grep -q "^$t ok$" "$out/ofl0.verdicts" || echo "   $t ($(grep "^$t " "$out/ofl0.verdicts" | cut -d' ' -f2))"
done >"$out/regress.txt"
cat "$out/regress.txt"
n_siw=$(wc -l <"$out/siw0.verdicts")
n_ofl=$(wc -l <"$out/ofl0.verdicts")
if [ "$n_siw" -gt 0 ] && [ "$n_ofl" -gt 0 ]; then
    ok "the suite ran on siw0 ($n_siw tests) and ofl0 ($n_ofl tests)"
else
    bad "the suite ran on siw0 ($n_siw tests) and ofl0 ($n_ofl tests) (qemu exit $rc; console in $log)"
    tail -30 "$log"
fi
nf=$(grep -cE ' (fail|error)$' "$out/ofl0.verdicts")
if [ "$nf" -eq 0 ] && [ "$n_ofl" -gt 0 ]; then ok "no test fails or errs on ofl0"; else bad "$nf tests fail or err on ofl0"; fi
nr=$(grep -c . "$out/regress.txt")
if [ "$nr" -eq 0 ] && [ "$n_ofl" -gt 0 ]; then ok "every test that passes on siw0 passes on ofl0"; else bad "$nr tests pass on siw0, not on ofl0"; fi
# The rdmacm tests with --gid 0 (the suite's zero-GID check drops every
# iWARP port): the four that iWARP can carry must pass on ofl0; the rest
# are printed with what their processes said (test_rdmacm_async_traffic
# asserts an ack timeout that only an InfiniBand CM sets, the external-QP
# test waits for a CONNECT_RESPONSE the iw_cm never sends, the UDP test
# needs a UD QP: iWARP has none).
echo "== rdmacm tests on ofl0 with --gid 0 (information, but for the four below)"
tally ofl0cm
grep -vE ' (ok|skip)$' "$out/ofl0cm.verdicts" | while read -r t v; do
    echo "   $t $v: $(grep -a "^ofl0cm| $t " "$out/pyverbs.lines" | sed "s/^ofl0cm| $t $v *//")"
done
grep -a '^ofl0cm player| ' "$out/pyverbs.lines" | sed 's/^ofl0cm player| /   /' | sort -u
cm_want="sync_traffic async_read async_write async_reject_traffic"
cm_bad=""
for t in $cm_want; do
    grep -q "^tests\.test_rdmacm\.CMTestCase\.test_rdmacm_$t ok$" "$out/ofl0cm.verdicts" ||
        cm_bad="$cm_bad $t"
done
if [ -z "$cm_bad" ]; then
    ok "rdmacm tests on ofl0 (--gid 0): $(echo $cm_want | wc -w) that iWARP carries pass ($cm_want)"
else
    bad "rdmacm tests on ofl0 (--gid 0): not passing:$cm_bad"
fi
if grep -qa '^dmesg| ' "$out/pyverbs.lines"; then
    bad "the kernel log has a WARNING, BUG, Oops or leak"
    grep -a '^dmesg| ' "$out/pyverbs.lines" | head -20
else
    ok "the kernel log has no WARNING, BUG, Oops or leak"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
