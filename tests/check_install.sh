#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The install as a user meets it: `make install` into a temporary PREFIX,
# then two examples copied out of the tree and built with nothing but
# `pkg-config --cflags --libs` (offload-posix for ofl-rping, offload-sim for
# ofl-tpt), and run with --demo. Also a staged install (DESTDIR) whose .pc
# files name the final PREFIX.
#
# Usage: check_install.sh BUILD_DIR CC   (run by make check; CFLAGS and
# LDFLAGS, e.g. a sanitizer's, are added to the out-of-tree builds)

build=${1:-build/cc}
cc=${2:-cc}
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofl-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL install: $1"
    [ -f "$tmp/log" ] && sed 's/^/    /' "$tmp/log" | tail -30
}

if ! command -v pkg-config >/dev/null 2>&1; then
    if [ "${OFL_REQUIRE_TOOLS:-0}" = 1 ]; then
        echo "FAIL install: pkg-config not installed (OFL_REQUIRE_TOOLS=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "SKIP install: pkg-config not installed"
    exit 0
fi

prefix=$tmp/prefix
if make -s install BUILD="$build" CC="$cc" PREFIX="$prefix" DESTDIR= >"$tmp/log" 2>&1; then
    ok
else
    bad "make install PREFIX=$prefix"
    echo "$pass passed, $fail failed"
    exit 1
fi
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH

# example PKG: copies examples/NAME.c out of the tree, builds it with only
# what pkg-config says, runs NAME --demo and wants "NAME: ok" last.
example() {
    name=$1 pkg=$2
    mkdir -p "$tmp/user"
    cp "examples/$name.c" "$tmp/user/"
    # shellcheck disable=SC2086,SC2046
    if (cd "$tmp/user" && $cc -O2 -Wall -Wextra -Werror ${CFLAGS:-} "$name.c" \
            $(pkg-config --cflags --libs "$pkg") ${LDFLAGS:-} -o "$name") \
            >"$tmp/log" 2>&1; then
        ok
    else
        bad "$name.c does not build with pkg-config --cflags --libs $pkg"
        return
    fi
    (cd "$tmp/user" && "./$name" --demo) >"$tmp/log" 2>&1
    rc=$?
    case $rc:$(tail -1 "$tmp/log") in
    "0:$name: ok" | "0:$name: ok ("*) ok ;;
    *) bad "$name --demo, built from the install: exit $rc, last line not \"$name: ok\"" ;;
    esac
}
example ofl-rping offload-posix
example ofl-tpt offload-sim

# A staged install: files under DESTDIR, .pc files naming the real PREFIX.
rm -f "$tmp/log"
if make -s install BUILD="$build" CC="$cc" PREFIX=/opt/ofl DESTDIR="$tmp/stage" \
        >/dev/null 2>&1 &&
    [ -f "$tmp/stage/opt/ofl/lib/liboffload_posix.a" ] &&
    [ -f "$tmp/stage/opt/ofl/include/offload/ports/posix/ofl_posix.h" ] &&
    grep -qx 'prefix=/opt/ofl' "$tmp/stage/opt/ofl/lib/pkgconfig/offload-posix.pc"; then
    ok
else
    bad "DESTDIR=$tmp/stage PREFIX=/opt/ofl: files or .pc prefix wrong"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
