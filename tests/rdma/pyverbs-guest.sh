# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/pyverbs.sh (boot.sh -L rdma -L py puts it in
# /guest/case.sh; ofl_iw.ko in /guest/extra, dummy.ko in /guest):
# rdma-core's own test suite (python3-pyverbs' run_tests.py), unmodified
# (no --gid, no shim), once against siw0 (on eth0) and once against ofl0
# (on dummy0), in the same guest. Each run's unittest summary and every
# test that did not pass go to the console as "ofl-py: ..." lines; the
# host side (pyverbs.sh) makes the tallies.
RDMA=/usr/bin/rdma
rdma_up
siw_up
insmod /guest/dummy.ko numdummies=1 || say "insmod dummy failed"
ip addr add 10.0.3.1/24 dev dummy0
ip link set dummy0 up
$RDMA link add ofl0 type ofl netdev dummy0 || echo "ofl-py: rdma link add ofl0 failed"
export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/usr/share/rdma-core/tests HOME=/tmp
# run_tests.py as it is, but with a runner that names each test instead of
# its docstring's first line (descriptions=False), so the tallies of the
# two devices can be compared test by test, and a fixed random seed
cat >/tmp/run_named.py <<'PY'
import random, sys, unittest
from importlib.machinery import SourceFileLoader
from args_parser import parser
tests = SourceFileLoader('tests', '/usr/share/rdma-core/tests/__init__.py').load_module()
parser.parse_args()
# the suite draws QP sizes and masks at random: one fixed seed, so that
# two runs (and the two devices) meet the same draws
random.seed(1)
unittest.main(module=tests,
              testRunner=unittest.TextTestRunner(descriptions=False, verbosity=2))
PY
for dev in siw0 ofl0; do
    echo "ofl-py: run $dev"
    (cd /usr/share/rdma-core && timeout 600 python3 /tmp/run_named.py -v --dev $dev) \
        >/tmp/py-$dev.log 2>&1
    echo "ofl-py: rc $dev $?"
    # one line per test: "test_x (tests.test_y.Z.test_x) ... ok|skipped '...'|FAIL|ERROR"
    grep -aE ' \.\.\. (ok|skipped|FAIL|ERROR|expected failure|unexpected success)' /tmp/py-$dev.log |
        sed "s/^/ofl-py: $dev| /"
    grep -aE '^(Ran [0-9]+ tests|OK|FAILED)' /tmp/py-$dev.log | sed "s/^/ofl-py: $dev summary| /"
    # what a failure or error said
    awk '/^={20,}$/{p=0} /^(FAIL|ERROR): /{p=1} p{print}' /tmp/py-$dev.log | head -200 |
        sed "s/^/ofl-py: $dev detail| /"
done
dmesg | grep -aE 'WARNING|BUG|Oops|leak' | sed 's/^/ofl-py: dmesg| /'
echo "ofl-py: done"
