#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
"""Splits the instructions of a callgrind output file by owner.

Usage: count_share.py [--list] CALLGRIND_OUT [SOURCE_ROOT]
Prints one line: "total T lib L port P crc C wire W loop B floor F"
(instructions). With --list, first one line per function with a count:
its owner, its own instructions, what it was charged for its calls to
unowned functions, and how it was placed (file or name).

Each function in the file belongs to an owner by where it is defined
(callgrind's fl= / ob= of its block):
  lib   offload.c, offload.h (the library)
  port  ports/sim/ofl_sim.c (the sim port's hooks: DMA with its allow-list
        checks, the fused copy+CRC hooks' copies (the crc32c hook they
        call is crc's), doorbells, notify)
  crc   the CRC32c kernel: ports/posix/ofl_posix.c (the posix port's CRC32c,
        the only part of it the benches use), ISA-L (libisal), and the
        benches' crc_hook that picks between them
  wire  tests/support/ (the rigs: the in-memory wire's transmit callback)
  loop  tests/bench/ (the bench's own loop and counting function)
  floor bench_tpt.c's floor_translate (the TPT check's no-check floor) and
        ref_checked_translate (the same walk with the checks, a reference;
        counted in a toggle function of its own)
Callgrind names a function's file after its first instruction, which is
a header's when that instruction was inlined from it (a bench function
that starts with offload.h's ofl_stag_index is "in offload.h"). So a
function whose file is a header is placed by its name instead: the file
under SOURCE_ROOT (default: the current directory) among offload.[ch],
ports/sim, ports/posix, tests/support and tests/bench that defines it (a
line starting at column 0 with the name and "(", not ending in ";"); the
script fails if no owner or two owners define it.

A function defined anywhere else (the C library's memcpy/memset, the
dynamic linker) has no owner of its own: its cost is charged to the owner
of the function that called it (callgrind's inclusive cost of that call),
so a memcpy the sim port calls is the port's, one the compiler emitted in
the library is the library's. That is exact only if such a function never
calls back into an owned one; the script fails if one does.

Each owner's figure is its functions' own (self) instructions plus the
inclusive instructions of their calls to unowned functions; the figures
add up to the file's total, which the script checks.
"""
import glob
import os
import re
import sys

OWNERS = ('lib', 'port', 'crc', 'wire', 'loop', 'floor')

# Functions placed by name: the benches' CRC hook (it only picks a kernel),
# and bench_tpt.c's floor_translate and ref_checked_translate (the TPT
# floor and the checked reference, apart from their loops).
BY_NAME = {'crc_hook': 'crc', 'floor_translate': 'floor',
           'ref_checked_translate': 'floor'}


def owner_of_file(fl):
    if fl.endswith('/offload.c') or fl.endswith('/offload.h') or \
            fl in ('offload.c', 'offload.h'):
        return 'lib'
    if fl.endswith('ports/sim/ofl_sim.c'):
        return 'port'
    if fl.endswith('ports/posix/ofl_posix.c'):
        return 'crc'
    if '/tests/support/' in fl or fl.startswith('tests/support/'):
        return 'wire'
    if '/tests/bench/' in fl or fl.startswith('tests/bench/'):
        return 'loop'
    return None


def owner(ob, fl, fn, root):
    if re.sub(r'[.@].*$', '', fn) in BY_NAME:
        return BY_NAME[re.sub(r'[.@].*$', '', fn)]
    if 'libisal' in ob:
        return 'crc'
    if os.path.basename(ob) != 'bench':
        return None  # the C library, the dynamic linker
    if not fl.endswith('.h'):
        return owner_of_file(fl)
    base = re.sub(r'[.@].*$', '', fn)
    pat = re.compile(r'^(?:[A-Za-z_][^;]*[\s*])?%s\s*\((?!.*;\s*$)'
                     % re.escape(base))
    found = set()
    for f in defining_sources(root):
        with open(f, encoding='utf-8', errors='replace') as src:
            if any(pat.match(ln) for ln in src):
                found.add(owner_of_file(os.path.relpath(f, root)))
    found.discard(None)
    placed[fn] = 'by name, first line in %s' % os.path.basename(fl)
    if len(found) != 1:
        raise SystemExit('count_share: %s (first line in %s) is defined by %s'
                         % (fn, fl, sorted(found) or 'no source here'))
    return found.pop()


_sources = None


def defining_sources(root):
    global _sources
    if _sources is None:
        _sources = [os.path.join(root, 'offload.c'),
                    os.path.join(root, 'offload.h')]
        for d in ('ports/sim', 'ports/posix', 'tests/support', 'tests/bench'):
            _sources += sorted(glob.glob(os.path.join(root, d, '*.[ch]')))
    return _sources


placed = {}


def main(path, root, listing=False):
    names = {'ob': {}, 'fl': {}, 'fn': {}}
    kind_of = {'ob': 'ob', 'cob': 'ob', 'fl': 'fl', 'fi': 'fl', 'fe': 'fl',
               'cfi': 'fl', 'cfl': 'fl', 'fn': 'fn', 'cfn': 'fn'}
    spec = re.compile(r'^(ob|cob|fl|fi|fe|cfi|cfl|fn|cfn)=(?:\((\d+)\))?\s*(.*)$')
    self_cost = {}      # fn -> own instructions
    fn_owner = {}       # fn -> owner or None
    calls = []          # (caller, callee, inclusive)
    total = None
    cur_ob = cur_fl = cur_fn = ''
    cfn = None
    pending_call = False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = spec.match(line)
            if m:
                key, ident, name = m.group(1), m.group(2), m.group(3)
                table = names[kind_of[key]]
                if ident is not None:
                    if name:
                        table[ident] = name
                    name = table.get(ident, '???')
                if key == 'ob':
                    cur_ob = name
                elif key == 'fl':
                    cur_fl = name
                elif key == 'fn':
                    cur_fn = name
                    if cur_fn not in fn_owner:
                        fn_owner[cur_fn] = owner(cur_ob, cur_fl, cur_fn, root)
                    self_cost.setdefault(cur_fn, 0)
                elif key == 'cfn':
                    cfn = name
                continue
            if line.startswith('calls='):
                pending_call = True
                continue
            if line.startswith('totals:') or line.startswith('summary:'):
                total = int(line.split()[1])
                continue
            if line and (line[0].isdigit() or line[0] in '+-*'):
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    calls.append((cur_fn, cfn, cost))
                    pending_call = False
                else:
                    self_cost[cur_fn] = self_cost.get(cur_fn, 0) + cost
    if total is None:
        print('count_share: no total in %s' % path)
        return 1
    share = dict((o, 0) for o in OWNERS)
    for fn, c in self_cost.items():
        o = fn_owner.get(fn)
        if o is not None:
            share[o] += c
    # Unowned functions an owned one called (charged to it): none of them
    # may call an owned function (the frames above the collected function,
    # main's callers, are unowned too but charged to no one).
    charged = set(callee for caller, callee, c in calls
                  if fn_owner.get(caller) is not None and
                  fn_owner.get(callee) is None)
    for caller, callee, c in calls:
        oc, oe = fn_owner.get(caller), fn_owner.get(callee)
        if caller in charged and oe is not None:
            print('count_share: %s (no owner) calls %s (%s): cannot charge it'
                  % (caller, callee, oe))
            return 1
        if oc is not None and oe is None:
            share[oc] += c
    if sum(share.values()) != total:
        print('count_share: owners add up to %d, the file says %d'
              % (sum(share.values()), total))
        return 1
    if listing:
        charged_to = {}
        for caller, callee, c in calls:
            if fn_owner.get(caller) is not None and fn_owner.get(callee) is None:
                charged_to[caller] = charged_to.get(caller, 0) + c
        rows = [(fn_owner[fn], self_cost.get(fn, 0), charged_to.get(fn, 0), fn)
                for fn in fn_owner if fn_owner[fn] is not None and
                self_cost.get(fn, 0) + charged_to.get(fn, 0) > 0]
        for o, c, ch, fn in sorted(rows, key=lambda r: -(r[1] + r[2])):
            print('%-5s %12d %12d %s (%s)' % (o, c, ch, fn, placed.get(fn, 'file')))
    print('total %d %s' % (total, ' '.join('%s %d' % (o, share[o])
                                           for o in OWNERS)))
    return 0


if __name__ == '__main__':
    args = sys.argv[1:]
    listing = bool(args) and args[0] == '--list'
    if listing:
        args = args[1:]
    if len(args) not in (1, 2):
        print(__doc__)
        sys.exit(2)
    sys.exit(main(args[0], args[1] if len(args) == 2 else '.', listing))
