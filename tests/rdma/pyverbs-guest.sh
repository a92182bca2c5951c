# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/pyverbs.sh (boot.sh -L rdma -L py puts it in
# /guest/case.sh; ofl_iw.ko in /guest/extra, dummy.ko in /guest):
# rdma-core's own test suite (python3-pyverbs' run_tests.py), unmodified
# (no --gid, no shim), once against siw0 (on dummy0) and once against
# ofl0 (on eth0), in the same guest; then, as a third run ("ofl0cm"),
# only its rdmacm tests against ofl0 with --gid 0. Each run's unittest
# summary and every test that did not pass go to the console as
# "ofl-py: ..." lines; the host side (pyverbs.sh) makes the tallies.
#
# ofl0 sits on eth0 (e1000) because the rdmacm tests find a device's IP
# address through /sys/class/infiniband/DEV/device/net/: the device's
# parent is its netdev's parent (the PCI function, as cxgb4 and irdma),
# and a dummy netdev has none. siw registers with no parent, so siw0 can
# sit anywhere; it gets dummy0.
#
# The third run: the suite skips every test of an iWARP port ("No
# supported port is up") because it drops a GID whose last 8 bytes are
# zero, and every iWARP device (siw, cxgb4, irdma, ofl_iw) exposes its MAC
# zero padded, which is the GID rdma_cm looks an iWARP device up by.
# --gid 0 names the index instead, so the rdmacm tests run; what they
# find is information beside the unmodified runs.
RDMA=/usr/bin/rdma
rdma_up
insmod /guest/dummy.ko numdummies=1 || say "insmod dummy failed"
ip addr add 10.0.3.1/24 dev dummy0
ip link set dummy0 up
$RDMA link add siw0 type siw netdev dummy0 || echo "ofl-py: rdma link add siw0 failed"
$RDMA link add ofl0 type ofl netdev eth0 || echo "ofl-py: rdma link add ofl0 failed"
i=0
while { ! grep -q ACTIVE /sys/class/infiniband/siw0/ports/1/state ||
    ! grep -q ACTIVE /sys/class/infiniband/ofl0/ports/1/state; } 2>/dev/null &&
    [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
echo "ofl-py: ofl0 device/net: $(ls /sys/class/infiniband/ofl0/device/net/ 2>&1 | tr '\n' ' ')"
export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/usr/share/rdma-core/tests HOME=/tmp
# run_tests.py as it is, but with a runner that writes each test's
# verdict to its own file as the test ends ("ID VERDICT [REASON]"; the
# verbose stream mixes the rdmacm tests' child processes into the
# verdict lines) and names each test by its id, and a fixed random seed
cat >/tmp/run_named.py <<'PY'
import os, random, sys, unittest
from importlib.machinery import SourceFileLoader
from args_parser import parser
tests = SourceFileLoader('tests', '/usr/share/rdma-core/tests/__init__.py').load_module()
parser.parse_args()
out = open(os.environ['OFL_VERDICTS'], 'a', buffering=1)

class Result(unittest.TextTestResult):
    def verdict(self, test, v, why=''):
        out.write('%s %s %s\n' % (test.id(), v, ' '.join(str(why).split())))
    def addSuccess(self, test):
        super().addSuccess(test); self.verdict(test, 'ok')
    def addSkip(self, test, reason):
        super().addSkip(test, reason); self.verdict(test, 'skip', reason)
    def addFailure(self, test, err):
        super().addFailure(test, err); self.verdict(test, 'fail', err[1])
    def addError(self, test, err):
        super().addError(test, err); self.verdict(test, 'error', err[1])
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err); self.verdict(test, 'xfail')
    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test); self.verdict(test, 'xpass')

# the suite draws QP sizes and masks at random: one fixed seed, so that
# two runs (and the two devices) meet the same draws
random.seed(1)
unittest.main(module=tests,
              testRunner=unittest.TextTestRunner(descriptions=False, verbosity=2,
                                                 resultclass=Result))
PY
for dev in siw0 ofl0 ofl0cm; do
    # ofl0cm: the rdmacm tests on ofl0, the GID index given (see above)
    args="--dev $dev"
    [ $dev = ofl0cm ] && args="--dev ofl0 --gid 0 -k test_rdmacm."
    echo "ofl-py: run $dev"
    # shellcheck disable=SC2086
    (cd /usr/share/rdma-core && OFL_VERDICTS=/tmp/verdicts-$dev timeout 600 \
        python3 /tmp/run_named.py -v $args) >/tmp/py-$dev.log 2>&1
    echo "ofl-py: rc $dev $?"
    # one line per test: "ID ok|skip|fail|error|xfail|xpass [REASON]"
    sed "s/^/ofl-py: $dev| /" /tmp/verdicts-$dev 2>/dev/null
    grep -aE '^(Ran [0-9]+ tests|OK|FAILED)' /tmp/py-$dev.log | sed "s/^/ofl-py: $dev summary| /"
    # what each side of an rdmacm test said (its child processes print
    # "Player active got: ..." where the test shows only its own line)
    grep -a 'Player .* got: ' /tmp/py-$dev.log | sed "s/^.*\(Player \)/\1/; s/^/ofl-py: $dev player| /"
    # what a failure or error said
    awk '/^={20,}$/{p=0} /^(FAIL|ERROR): /{p=1} p{print}' /tmp/py-$dev.log | head -200 |
        sed "s/^/ofl-py: $dev detail| /"
done
dmesg | grep -aE 'WARNING|BUG|Oops|leak' | sed 's/^/ofl-py: dmesg| /'
echo "ofl-py: done"
