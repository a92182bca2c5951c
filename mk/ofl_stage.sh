#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Stages Debian packages for a QEMU guest's initramfs (nothing is
# installed on the host):
#   ofl_stage.sh fetch STAGE PKG...
#       apt-get download PKG... into STAGE/debs (kept between runs) and
#       dpkg -x each into STAGE/root
#   ofl_stage.sh copy STAGE DEST PATH...
#       copies each PATH (absolute, inside the guest) from STAGE/root, or
#       from the host when the packages do not hold it, to DEST/PATH (a
#       HOSTFILE=PATH argument copies HOSTFILE to DEST/PATH), with
#       the shared libraries it needs (ldd, staged libraries first) and
#       their symlinks
set -euo pipefail

cmd=${1:?usage: ofl_stage.sh fetch|copy STAGE ...}
stage=${2:?usage: ofl_stage.sh fetch|copy STAGE ...}
shift 2
multi=x86_64-linux-gnu

case $cmd in
fetch)
    mkdir -p "$stage/debs" "$stage/root"
    need=()
    for p in "$@"; do
        ls "$stage/debs/${p}"_*.deb >/dev/null 2>&1 || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        (cd "$stage/debs" && apt-get download "${need[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
    fi
    for p in "$@"; do
        deb=$(ls "$stage/debs/${p}"_*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || { echo "ofl_stage: no package $p (apt-get download failed)"; exit 1; }
        dpkg -x "$deb" "$stage/root"
    done
    ;;
copy)
    dest=${1:?usage: ofl_stage.sh copy STAGE DEST PATH...}
    shift
    libpath="$stage/root/lib/$multi:$stage/root/usr/lib/$multi"
    put() { # $1 source file, $2 path in the guest
        mkdir -p "$dest$(dirname "$2")"
        rm -f "$dest$2" # a busybox applet link must not be written through
        cp -L "$1" "$dest$2"
    }
    for p in "$@"; do
        if [ "${p#*=}" != "$p" ]; then
            src=${p%%=*}
            p=${p#*=}
        else
            src="$stage/root$p"
            [ -e "$src" ] || src=$p
        fi
        [ -e "$src" ] || { echo "ofl_stage: $p is neither staged nor on the host"; exit 1; }
        put "$src" "$p"
        # libraries of an ELF file: ldd prints "name => path (addr)" and
        # the loader's own path
        [ "$(head -c 4 "$src" | tr -d '\177')" = ELF ] || continue
        deps=$(LD_LIBRARY_PATH=$libpath ldd "$src" 2>/dev/null || true)
        while read -r a b c _; do
            if [ "$b" = "=>" ] && [ "$c" = not ]; then
                echo "ofl_stage: $p needs $a, not found"; exit 1
            elif [ "$b" = "=>" ] && [ -n "$c" ]; then
                lib=$c
            elif [ "${a#/}" != "$a" ]; then
                lib=$a
            else
                continue
            fi
            # in the guest, a staged library lives where the host has it
            guest=${lib#"$stage/root"}
            case $guest in /lib/*|/lib64/*|/usr/lib/*) ;; *) guest=/lib/$multi/$(basename "$lib");; esac
            [ -e "$dest$guest" ] || put "$lib" "$guest"
        done <<< "$deps"
    done
    ;;
*)
    echo "ofl_stage: unknown command $cmd"; exit 1 ;;
esac
