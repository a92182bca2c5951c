#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Stages the guest's python layer (OUT/py.gz) for make test-rdma-pyverbs:
# the interpreter and standard library of Debian's python3.11 (the host's
# packages python3.11 and libpython3.11: the same build pyverbs is
# compiled against), pyverbs and rdma-core's tests from the rdma layer's
# unpacked tree (OUT/root, python3-pyverbs), and every library they load.
# The kernel unpacks it over the base and rdma layers (boot.sh -L py).
#
# Usage: stage-py.sh OUT     (after stage.sh OUT KVER rdma)
set -eu
out=${1:?usage: stage-py.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$out" && pwd)
multi=x86_64-linux-gnu
die() { echo "stage-py: $*" >&2; exit 1; }
py=/usr/bin/python3.11
lib=/usr/lib/python3.11
[ -x "$py" ] && [ -d "$lib" ] ||
    die "$py missing (apt-get install python3.11 libpython3.11)"
[ -f "/usr/lib/$multi/libpython3.11.so.1.0" ] ||
    die "libpython3.11.so.1.0 missing (apt-get install libpython3.11)"
[ -f "$out/root/.done" ] || die "$out/root missing (mk/guest/stage.sh OUT KVER rdma first)"
pv=$out/root/usr/lib/python3/dist-packages/pyverbs
tests=$out/root/usr/share/doc/rdma-core/tests
[ -d "$pv" ] && [ -d "$tests" ] || die "pyverbs or rdma-core's tests missing from $out/root"

t=$out/py.gz
if [ -e "$t" ] && [ ! "$py" -nt "$t" ] && [ ! "$here/stage-py.sh" -nt "$t" ] &&
    [ ! "$out/root/.done" -nt "$t" ]; then
    exit 0
fi
d=$out/py
rm -rf "$d"
mkdir -p "$d/usr/bin" "$d/usr/lib/$multi" "$d/usr/lib/python3/dist-packages" \
    "$d/usr/share/rdma-core"
cp "$py" "$d/usr/bin/python3"
# the standard library without what the tests never load (its own tests,
# the static library and build files, IDLE, Tk, 2to3)
(cd /usr/lib && tar -cf - --exclude='python3.11/test' \
    --exclude='python3.11/config-3.11-*' --exclude='python3.11/idlelib' \
    --exclude='python3.11/tkinter' --exclude='python3.11/turtledemo' \
    --exclude='python3.11/lib2to3' --exclude='python3.11/ensurepip' \
    --exclude='python3.11/site-packages' --exclude='python3.11/dist-packages' \
    python3.11) | tar -xf - -C "$d/usr/lib"
cp -a "$pv" "$d/usr/lib/python3/dist-packages/"
# run_tests.py imports the suite as the package "tests"
cp -a "$tests" "$d/usr/share/rdma-core/tests"
# every library the interpreter, its extension modules and pyverbs load:
# the staged rdma tree first (libibverbs, librdmacm), then the host's
libpath=$out/root/usr/lib/$multi:$out/root/lib/$multi
{
    ldd "$py"
    find "$lib/lib-dynload" "$pv" -name '*.so' | while read -r so; do
        LD_LIBRARY_PATH=$libpath ldd "$so"
    done
} >"$out/py-ldd.txt" 2>&1 || true
if grep 'not found' "$out/py-ldd.txt"; then die "a library is missing (see $out/py-ldd.txt)"; fi
awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$out/py-ldd.txt" | sort -u |
    while read -r l; do
        # the rdma layer has libibverbs, librdmacm and their providers
        case $(basename "$l") in libibverbs.so*|librdmacm.so*|libnl-*) continue ;; esac
        cp -L "$l" "$d/usr/lib/$multi/$(basename "$l")"
    done
(cd "$d" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$t.tmp"
mv "$t.tmp" "$t"
rm -rf "$d"
echo "stage-py: $t ($(du -k "$t" | cut -f1) KiB)"
