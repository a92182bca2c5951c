#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
"""Helpers of mk/embed.mk that need more than a shell line.

  sections FILE...          the section line ranges, from the banner comments
  size NM OBJ               code and constant bytes per section of an object
  configs CC CFLAGS NM SIZE every OFL_ENABLE_* combination: allowed ones build
                            clean with no undefined symbol, forbidden ones stop
                            at offload.h's #error naming the rule
  limits                    offload.c freestanding for each target and -O
                            level: no frame over 256 bytes, no dynamic
                            frame (-fstack-usage), no undefined symbol
  coverage JSON [MIN_LINES MIN_BRANCHES]
                            per-section line and branch coverage from gcovr
  fuzz-campaign HOURS BINDIR HARNESS...
                            runs each harness in turn: AFL++ (persistent,
                            ASan+UBSan, CMPLOG binary via -c) and libFuzzer
                            (ASan+UBSan) side by side, HOURS each, sharing
                            finds (afl-fuzz -F); then fuzz-summary
  counts CC=FILE...          the instruction-count table (one column per
                            compiler) from make bench-count outputs
  splice README NAME FILE   replaces README's figures:NAME block with the
                            table lines of FILE
  fuzz-summary DIR README HOURS
                            the campaign table, written into fuzz/README.md
  fuzz-merge BINDIR HARNESS...
                            merges a campaign's finds (libFuzzer's corpus,
                            AFL++'s queue) into fuzz/<name>/corpus with the
                            campaign's libFuzzer binary (-merge=1: only
                            inputs that add coverage)

A section is what lies between two banners of offload.c / offload.h:

    /* ==================================================================== */
    /* tpt: memory translation and protection table                         */
    /* ==================================================================== */

its name is the first word of the middle line. Nothing here lists sections,
tests or harnesses by name.
"""
import itertools
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

BANNER = re.compile(r'^/\* =+ \*/\s*$')
TITLE = re.compile(r'^/\* ([A-Za-z_]\w*)')


def section_ranges(path):
    """[(name, first_line, last_line)] of the banner-delimited sections."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    starts = []
    for i in range(len(lines) - 2):
        if BANNER.match(lines[i]) and BANNER.match(lines[i + 2]):
            m = TITLE.match(lines[i + 1])
            if m:
                starts.append((m.group(1).lower(), i + 1))
    out = []
    for k, (name, first) in enumerate(starts):
        last = starts[k + 1][1] - 1 if k + 1 < len(starts) else len(lines)
        out.append((name, first, last))
    return out


def section_of(ranges, line):
    for name, first, last in ranges:
        if first <= line <= last:
            return name
    return None


def section_order(ranges):
    seen = []
    for name, _, _ in ranges:
        if name not in seen:
            seen.append(name)
    return seen


# ---- sections -----------------------------------------------------------------

def cmd_sections(files):
    for path in files:
        for name, first, last in section_ranges(path):
            print('%s:%d-%d %s' % (path, first, last, name))
    return 0


# ---- size -----------------------------------------------------------------------

def cmd_size(nm, obj):
    """Attributes every sized symbol to the section whose banner range holds
    its definition (nm -l reads the line from the debug info)."""
    ranges = {}
    for src in ('offload.c', 'offload.h'):
        ranges[src] = section_ranges(src)
    order = section_order(ranges['offload.c'])
    code = dict.fromkeys(order, 0)
    const = dict.fromkeys(order, 0)
    data = dict.fromkeys(order, 0)
    out = subprocess.run([nm, '-S', '-l', '--defined-only', obj], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 4 or ':' not in parts[-1]:
            continue
        size, kind = int(parts[1], 16), parts[2].lower()
        path, lineno = parts[-1].rsplit(':', 1)
        sec = section_of(ranges.get(os.path.basename(path), []), int(lineno))
        if sec is None:
            continue
        for d in (code, const, data):
            d.setdefault(sec, 0)
        if kind == 't':
            code[sec] += size
        elif kind == 'r':
            const[sec] += size
        else:
            data[sec] += size
    sizes = subprocess.run([nm.replace('nm', 'size'), '-A', obj], check=True,
                           capture_output=True, text=True).stdout
    total = 0
    for line in sizes.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit() and \
                re.match(r'\.(text|rodata|data|bss)', parts[0]):
            total += int(parts[1])
    print('| section | code | constants | data+bss | total |')
    print('|---|---:|---:|---:|---:|')
    attributed = 0
    for sec in code:
        t = code[sec] + const[sec] + data[sec]
        attributed += t
        print('| %s | %d | %d | %d | %d |' % (sec, code[sec], const[sec],
                                              data[sec], t))
    print('| (string literals, unnamed constants) | | %d | | %d |'
          % (total - attributed, total - attributed))
    print('| **offload.o** | | | | **%d** |' % total)
    return 0


# ---- configs --------------------------------------------------------------------

RULE = re.compile(r'#error\s+"offload: OFL_ENABLE_(\w+)=1 needs ([^"]*)"')


def cmd_configs(cc, cflags, nm, size, jobs=2):
    with open('offload.h', encoding='utf-8') as f:
        header = f.read()
    secs = re.findall(r'^#ifndef OFL_ENABLE_(\w+)', header, re.M)
    rules = [(a, re.findall(r'OFL_ENABLE_(\w+)', needs))
             for a, needs in RULE.findall(header)]
    if not secs:
        print('configs: no OFL_ENABLE_* macro in offload.h')
        return 1
    print('configs: sections %s; rules: %s' % (
        ' '.join(secs),
        '; '.join('%s needs %s' % (a, '+'.join(n)) for a, n in rules) or 'none'))
    build = 'build/configs'
    os.makedirs(build, exist_ok=True)
    flags = cflags.split()

    def run(bits):
        on = dict(zip(secs, bits))
        defs = ['-DOFL_ENABLE_%s=%d' % (s, on[s]) for s in secs]
        tag = ''.join(str(b) for b in bits)
        broken = [(a, n) for a, n in rules
                  if on.get(a) and not all(on.get(x) for x in n)]
        pre = subprocess.run([cc] + defs + ['-E', '-P', 'offload.c', '-o',
                                            os.devnull],
                             capture_output=True, text=True)
        if broken:
            msgs = re.findall(r'#error "(offload: [^"]*)"|error: #error "?(offload: [^"\n]*)',
                              pre.stderr)
            named = [m[0] or m[1] for m in msgs]
            errors = [l for l in pre.stderr.splitlines() if 'error' in l]
            stray = [l for l in errors if 'offload: OFL_ENABLE_' not in l]
            ok = pre.returncode != 0 and named and not stray and all(
                any('OFL_ENABLE_%s=1' % a in m for m in named)
                for a, _ in broken)
            return (tag, on, False, ok,
                    None if ok else 'forbidden but not refused clearly:\n' +
                    (pre.stderr or '(preprocessed without error)'))
        if pre.returncode != 0:
            return (tag, on, True, False, 'allowed by the rules but the '
                    'preprocessor refused it:\n' + pre.stderr)
        obj = os.path.join(build, 'cfg-%s.o' % tag)
        comp = subprocess.run([cc] + flags + defs + ['-c', 'offload.c', '-o',
                                                     obj],
                              capture_output=True, text=True)
        if comp.returncode != 0:
            return (tag, on, True, False, 'allowed by the rules but does not '
                    'build (a dependency rule is missing in offload.h?):\n' +
                    comp.stderr)
        und = subprocess.run([nm, '-u', obj], capture_output=True,
                             text=True).stdout.split()
        und = [u for u in und if u != 'U']
        if und:
            return (tag, on, True, False, 'undefined symbols: ' + ' '.join(und))
        sz = subprocess.run([size, obj], capture_output=True,
                            text=True).stdout.splitlines()[-1].split()
        return (tag, on, True, True, int(sz[0]) + int(sz[1]) + int(sz[2]))

    combos = list(itertools.product((0, 1), repeat=len(secs)))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        results = list(ex.map(run, combos))
    bad = [r for r in results if not r[3]]
    allowed = [r for r in results if r[2]]
    for k, (tag, on, _, _, why) in enumerate(bad):
        combo = ' '.join('%s=%d' % (s, on[s]) for s in secs)
        if k < 4:
            lines = why.splitlines()
            print('configs: FAIL %s: %s' % (combo, '\n'.join(lines[:16])))
        else:
            print('configs: FAIL %s: %s' % (combo, why.splitlines()[0]))
    print('configs: %d combinations: %d allowed (each builds: -Werror, no '
          'undefined symbol), %d forbidden (each stops at its #error)'
          % (len(results), len(allowed), len(results) - len(allowed)))
    ok_sizes = sorted(((r[4], r[1]) for r in allowed if r[3]),
                      key=lambda x: x[0])
    if ok_sizes:
        def name(on):
            en = [s.lower() for s in secs if on[s]]
            return 'base+port' + ('+' + '+'.join(en) if en else '')
        print('configs: smallest %d bytes (%s), largest %d bytes (%s)' % (
            ok_sizes[0][0], name(ok_sizes[0][1]), ok_sizes[-1][0],
            name(ok_sizes[-1][1])))
        for s in secs:  # each section alone on base
            for sz, on in ok_sizes:
                if sum(on.values()) == 1 and on[s]:
                    print('configs:   base+port+%s alone: %d bytes'
                          % (s.lower(), sz))
    return 1 if bad else 0

# ---- limits: stack frames and undefined symbols ---------------------------------------

LIMIT_TARGETS = [
    ('cortex-m4 gcc', 'arm-none-eabi-gcc', '-mcpu=cortex-m4 -mthumb',
     'arm-none-eabi-nm'),
    ('cortex-m4 clang', 'clang', '--target=thumbv7em-none-eabi '
     '-mcpu=cortex-m4 -mthumb', 'llvm-nm'),
    ('rv64imac gcc', 'riscv64-unknown-elf-gcc',
     '-march=rv64imac -mabi=lp64 -mcmodel=medany', 'riscv64-unknown-elf-nm'),
    ('x86-64 kernel gcc', 'gcc', '-mno-red-zone -mcmodel=kernel -fno-pic '
     '-mgeneral-regs-only', 'nm'),
    ('x86-64 kernel clang', 'clang', '--target=x86_64-linux-gnu '
     '-mno-red-zone -mcmodel=kernel -fno-pic -mgeneral-regs-only', 'nm'),
]
LIMIT_LEVELS = ['-O0', '-Og', '-O1', '-O2', '-O3', '-Os']
FRAME_MAX = 256


def cmd_limits(jobs=2):
    import shutil
    build = 'build/limits'
    os.makedirs(build, exist_ok=True)
    work = []
    for name, cc, flags, nm in LIMIT_TARGETS:
        if shutil.which(cc) is None or shutil.which(nm) is None:
            print('limits: SKIP %s: %s not installed' % (name, cc))
            if os.environ.get('OFL_REQUIRE_TOOLS') == '1':
                return 1
            continue
        for lvl in LIMIT_LEVELS:
            if lvl == '-Og' and 'clang' in cc:
                continue
            work.append((name, cc, flags, nm, lvl))

    def run(w):
        name, cc, flags, nm, lvl = w
        tag = re.sub(r'[^a-z0-9]+', '-', (name + lvl).lower())
        obj = os.path.join(build, tag + '.o')
        su = os.path.join(build, tag + '.su')
        cmd = [cc] + flags.split() + [lvl, '-std=c11', '-Wall', '-Wextra',
                                      '-Werror', '-pedantic',
                                      '-ffreestanding', '-nostdlib',
                                      '-fstack-usage', '-I.', '-c',
                                      'offload.c', '-o', obj]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return (name, lvl, None, None, [], r.stderr)
        und = [l.split()[-1] for l in subprocess.run(
            [nm, '-u', obj], capture_output=True, text=True).stdout.splitlines()
            if l.strip()]
        frames = []
        with open(su, encoding='utf-8') as f:
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if len(parts) >= 3:
                    frames.append((int(parts[1]), parts[2], parts[0]))
        frames.sort()
        return (name, lvl, frames[-1] if frames else (0, 'static', '-'),
                [fr for fr in frames if 'static' not in fr[1]], und, '')

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        results = list(ex.map(run, work))
    fails = 0
    info = []
    print('| target | ' + ' | '.join(LIMIT_LEVELS) + ' |')
    print('|---|' + '---:|' * len(LIMIT_LEVELS))
    rows = {}
    for name, lvl, big, dyn, und, err in results:
        cell = '-'
        if big is None:
            fails += 1
            print('limits: FAIL %s %s does not build:\n%s' % (name, lvl, err))
            cell = 'error'
        else:
            where = big[2].split(':')
            cell = '%d' % big[0]
            over = big[0] > FRAME_MAX
            if over and lvl == '-O0':
                info.append('limits: note: %s -O0: %s has a %d-byte frame '
                            '(unoptimised builds are outside the 256-byte '
                            'rule)' % (name, where[-1], big[0]))
                cell += ' (O0)'
            elif over:
                fails += 1
                print('limits: FAIL %s %s: %s has a %d-byte frame (> %d)' % (
                    name, lvl, big[2], big[0], FRAME_MAX))
                cell += ' FAIL'
            if dyn:
                fails += 1
                print('limits: FAIL %s %s: dynamic or bounded frames: %s' % (
                    name, lvl, ', '.join(d[2] for d in dyn)))
                cell += ' dyn'
            if und:
                fails += 1
                print('limits: FAIL %s %s: offload.o references %s (the core '
                      'must need no library)' % (name, lvl, ' '.join(und)))
                cell += ' U:' + ','.join(und)
        rows.setdefault(name, {})[lvl] = cell
    for name in rows:
        print('| %s | %s |' % (name, ' | '.join(
            rows[name].get(l, 'n/a') for l in LIMIT_LEVELS)))
    for line in info:
        print(line)
    print('limits: %d builds, largest frame per build shown in bytes; %s' % (
        len(results), 'all within limits' if not fails else
        '%d FAILED' % fails))
    return 1 if fails else 0


# ---- coverage ----------------------------------------------------------------------

def floor1(x):
    return int(x * 10) / 10.0


def cmd_coverage(path, min_lines=95.0, min_branches=90.0):
    with open(path, encoding='utf-8') as f:
        doc = json.load(f)
    entry = None
    for fe in doc.get('files', []):
        if os.path.basename(fe['file']) == 'offload.c':
            entry = fe
    if entry is None:
        print('coverage: offload.c not in %s' % path)
        return 1
    ranges = section_ranges('offload.c')
    order = section_order(ranges)
    stats = {s: [0, 0, 0, 0] for s in order}  # lines, hit, branches, taken
    misses = {s: [] for s in order}
    for ln in entry['lines']:
        if ln.get('gcovr/noncode'):
            continue
        sec = section_of(ranges, ln['line_number'])
        if sec is None:
            continue
        st = stats[sec]
        st[0] += 1
        if ln['count'] > 0:
            st[1] += 1
        else:
            misses[sec].append(ln['line_number'])
        for br in ln.get('branches', []):
            st[2] += 1
            if br['count'] > 0:
                st[3] += 1
    print('| section | lines | line % | branches | branch % | target |')
    print('|---|---:|---:|---:|---:|---|')
    fails = []
    tot = [0, 0, 0, 0]
    for sec in order:
        l, lh, b, bh = stats[sec]
        tot = [a + c for a, c in zip(tot, stats[sec])]
        if l == 0:
            print('| %s | 0 | - | 0 | - | (no code yet) |' % sec)
            continue
        lp = 100.0 * lh / l
        bp = 100.0 * bh / b if b else 100.0
        ok = lp >= min_lines and bp >= min_branches
        # shown rounded down, so that 89.96 % does not read as 90.0
        lp, bp = floor1(lp), floor1(bp)
        if not ok:
            fails.append(sec)
        print('| %s | %d/%d | %.1f | %d/%d | %.1f | %s |' % (
            sec, lh, l, lp, bh, b, bp, 'ok' if ok else 'MISS'))
    l, lh, b, bh = tot
    print('| **all** | %d/%d | %.1f | %d/%d | %.1f | |' % (
        lh, l, floor1(100.0 * lh / max(l, 1)), bh, b,
        floor1(100.0 * bh / max(b, 1))))
    for sec in fails:
        ls = misses[sec]
        shown = ', '.join(str(x) for x in ls[:40])
        print('coverage: %s below target (>= %g%% lines, >= %g%% branches); '
              'lines never run: %s%s' % (sec, min_lines, min_branches, shown,
                                          ' ...' if len(ls) > 40 else ''))
    return 1 if fails else 0


# ---- fuzz campaign summary --------------------------------------------------------------

def read_kv(path, sep=':'):
    out = {}
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                if sep in line:
                    k, v = line.split(sep, 1)
                    out[k.strip()] = v.strip()
    except OSError:
        pass
    return out


def count_files(d, prefix=''):
    try:
        return sum(1 for n in os.listdir(d)
                   if n.startswith(prefix) and not n.startswith('.') and
                   os.path.isfile(os.path.join(d, n)))
    except OSError:
        return 0


def cmd_fuzz_summary(rundir, readme, hours, only=None):
    rows = []
    names = sorted(os.listdir(rundir)) if os.path.isdir(rundir) else []
    for h in names:
        if only is not None and h not in only:
            continue
        hd = os.path.join(rundir, h)
        if not os.path.isdir(hd):
            continue
        st = read_kv(os.path.join(hd, 'afl', 'main', 'fuzzer_stats'))
        if st:
            crashes = st.get('saved_crashes', st.get('unique_crashes', '?'))
            rows.append((h, 'AFL++ (persistent, CMPLOG, ASan+UBSan)',
                         st.get('run_time', '?'), st.get('execs_done', '?'),
                         st.get('corpus_count', st.get('paths_total', '?')),
                         crashes, st.get('saved_hangs',
                                         st.get('unique_hangs', '?'))))
        lf = read_kv(os.path.join(hd, 'libfuzzer.stats'))
        if lf:
            rows.append((h, 'libFuzzer (ASan+UBSan)', lf.get('seconds', '?'),
                         lf.get('execs', '?'),
                         str(count_files(os.path.join(hd, 'lf-corpus'))),
                         lf.get('crashes', '?'), lf.get('timeouts', '?')))
    table = ['| harness | engine | seconds | execs | paths (corpus) | crashes '
             '| hangs/timeouts | run (UTC) | offload.c |',
             '|---|---|---:|---:|---:|---:|---:|---|---|']
    for r in rows:
        meta = read_kv(os.path.join(rundir, r[0], 'run.meta'), '=')
        table.append('| %s | %s | %s |' % (' | '.join(str(x) for x in r),
                                          meta.get('date', '?'),
                                          meta.get('source', '?')))
    stamp = subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'],
                           capture_output=True, text=True).stdout.strip()
    block = ('<!-- campaign:begin (written by make fuzz-campaign) -->\n'
             'Table written %s. Harnesses may be campaigned in batches; each '
             'row says when its run was and the git blob of offload.c it ran '
             'against. Last batch: HOURS=%s per harness and engine, on %d '
             'cores.\n\n%s\n<!-- campaign:end -->' % (
                 stamp, hours, os.cpu_count() or 0, '\n'.join(table)))
    text = ''
    if os.path.exists(readme):
        with open(readme, encoding='utf-8') as f:
            text = f.read()
    pat = re.compile(r'<!-- campaign:begin.*?<!-- campaign:end -->', re.S)
    if pat.search(text):
        text = pat.sub(lambda _: block, text)
    else:
        text = text.rstrip('\n') + '\n\n## Last campaign\n\n' + block + '\n'
    with open(readme, 'w', encoding='utf-8') as f:
        f.write(text)
    print('\n'.join(table))
    bad = [r for r in rows if str(r[5]) not in ('0', '?')]
    return 1 if bad else 0

# ---- fuzz campaign ------------------------------------------------------------------------

AFL_ENV = {'AFL_SKIP_CPUFREQ': '1', 'AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES': '1',
           'AFL_NO_UI': '1', 'AFL_NO_AFFINITY': '1', 'AFL_QUIET': '1'}


def lf_stats(log):
    st = {'execs': '?', 'new_units': '?'}
    try:
        with open(log, encoding='utf-8', errors='replace') as f:
            for line in f:
                m = re.match(r'stat::number_of_executed_units:\s*(\d+)', line)
                if m:
                    st['execs'] = m.group(1)
                m = re.match(r'stat::new_units_added:\s*(\d+)', line)
                if m:
                    st['new_units'] = m.group(1)
    except OSError:
        pass
    return st


def cmd_fuzz_campaign(hours, bindir, harnesses):
    import shutil
    import time
    secs = max(10, int(round(float(hours) * 3600)))
    rundir = os.path.join(bindir, 'run')
    if not harnesses:
        print('fuzz-campaign: no harness (fuzz/*/fuzz_*.c) in this tree')
        return 0
    for h in harnesses:
        out = os.path.join(rundir, h)
        shutil.rmtree(out, ignore_errors=True)
        lf_corpus = os.path.join(out, 'lf-corpus')
        artifacts = os.path.join(out, 'lf-artifacts') + '/'
        os.makedirs(lf_corpus)
        os.makedirs(artifacts)
        seeds = os.path.join('fuzz', h, 'corpus')
        if not os.path.isdir(seeds) or not os.listdir(seeds):
            seeds = os.path.join(out, 'seed')
            os.makedirs(seeds)
            with open(os.path.join(seeds, 'empty'), 'wb') as f:
                f.write(b'\0')
        dict_path = os.path.join('fuzz', h, h + '.dict')
        afl = ['afl-fuzz', '-M', 'main', '-F', lf_corpus, '-i', seeds,
               '-o', os.path.join(out, 'afl'), '-V', str(secs),
               # AFL++'s documented default exec timeout, fixed: the one
               # it scales from calibration (20 ms on these harnesses)
               # counts an input slowed by a busy machine as a hang.
               # libFuzzer's is 10 s (below).
               '-t', '1000',
               '-c', os.path.join(bindir, h + '.cmplog')]
        lf = [os.path.join(bindir, h + '.libfuzzer'),
              '-max_total_time=%d' % secs, '-print_final_stats=1',
              '-artifact_prefix=' + artifacts, '-timeout=10']
        if os.path.exists(dict_path):
            afl += ['-x', dict_path]
            lf += ['-dict=' + dict_path]
        afl += ['--', os.path.join(bindir, h + '.afl')]
        lf += [lf_corpus, seeds]
        blob = subprocess.run(['git', 'hash-object', 'offload.c'],
                              capture_output=True, text=True).stdout.strip()
        with open(os.path.join(out, 'run.meta'), 'w') as f:
            f.write('date=%s\nsource=%s\n' % (
                subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M'],
                               capture_output=True, text=True).stdout.strip(),
                blob[:12] or '?'))
        env = dict(os.environ, **AFL_ENV)
        print('== %s: AFL++ and libFuzzer, %d s each, side by side' % (h, secs),
              flush=True)
        t0 = time.time()
        with open(os.path.join(out, 'afl.log'), 'w') as al, \
                open(os.path.join(out, 'libfuzzer.log'), 'w') as ll:
            pa = subprocess.Popen(afl, stdout=al, stderr=subprocess.STDOUT,
                                  env=env)
            pl = subprocess.Popen(lf, stdout=ll, stderr=subprocess.STDOUT)
            # Each engine's own wall time: libFuzzer stops at its first
            # crash or timeout, and the table must not credit it with the
            # time AFL++ went on running.
            ended = {}
            while len(ended) < 2:
                for name, p in (('afl', pa), ('lf', pl)):
                    if name not in ended and p.poll() is not None:
                        ended[name] = time.time()
                if time.time() - t0 > secs + 300:
                    for name, p in (('afl', pa), ('lf', pl)):
                        if name not in ended:
                            p.kill()
                            p.wait()
                            ended[name] = time.time()
                time.sleep(1)
        took = int(ended['lf'] - t0)
        st = lf_stats(os.path.join(out, 'libfuzzer.log'))
        crashes = [n for n in os.listdir(artifacts)
                   if n.startswith(('crash-', 'leak-', 'oom-'))]
        timeouts = [n for n in os.listdir(artifacts) if n.startswith('timeout-')]
        with open(os.path.join(out, 'libfuzzer.stats'), 'w') as f:
            f.write('seconds: %d\nexecs: %s\ncrashes: %d\ntimeouts: %d\n'
                    'exit: %d\n' % (took, st['execs'], len(crashes),
                                     len(timeouts), pl.returncode))
        fst = read_kv(os.path.join(out, 'afl', 'main', 'fuzzer_stats'))
        if not fst:
            print('   afl-fuzz did not start; the end of its log:')
            with open(os.path.join(out, 'afl.log'), errors='replace') as f:
                print(''.join(f.readlines()[-15:]))
        print('   AFL++: execs %s, corpus %s, crashes %s, hangs %s; libFuzzer:'
              ' execs %s, corpus %d, crashes %d, timeouts %d' % (
                  fst.get('execs_done', '?'), fst.get('corpus_count', '?'),
                  fst.get('saved_crashes', '?'), fst.get('saved_hangs', '?'),
                  st['execs'], count_files(lf_corpus), len(crashes),
                  len(timeouts)), flush=True)
        for d in ('crashes', 'hangs'):
            cd = os.path.join(out, 'afl', 'main', d)
            for n in sorted(os.listdir(cd)) if os.path.isdir(cd) else []:
                if n.startswith('id'):
                    print('   AFL++ %s: %s' % (d[:-1], os.path.join(cd, n)))
        for n in crashes + timeouts:
            print('   libFuzzer: %s%s' % (artifacts, n))
    return cmd_fuzz_summary(rundir, os.path.join('fuzz', 'README.md'), hours)


# ---- instruction counts ---------------------------------------------------------------

COUNT_ROWS = [
    ('ap: cache hit, per packet', 'ap_hit'),
    ('ap: direct table lookup, per packet', 'ap_direct'),
    ('ap: hit / direct', 'ap_ratio'),
    ('dt: exchange, library', 'dt_lib'),
    ('dt: exchange, floor (nothing checked)', 'dt_floor'),
    ('dt: DPDK rte_ring, the same entries each way', 'dt_rte'),
]


def cmd_counts(pairs):
    """The instruction-count table from make bench-count outputs, one
    column per compiler: pairs are CC=FILE."""
    cols = []
    for pair in pairs:
        cc, path = pair.split('=', 1)
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        v = {}
        m = re.search(r'^bench: ap_cache_hit_instructions ([\d.]+) instr/pkt vs '
                      r'ap_rx_direct ([\d.]+) instr/pkt ratio ([\d.]+)', text, re.M)
        if m:
            v['ap_hit'], v['ap_direct'], v['ap_ratio'] = m.groups()
        m = re.search(r'^bench: dt_exchange_instructions ([\d.]+) instr/exchange, '
                      r'floor ([\d.]+)(?:, rte_ring ([\d.]+))?', text, re.M)
        if m:
            v['dt_lib'], v['dt_floor'] = m.group(1), m.group(2)
            v['dt_rte'] = m.group(3) or 'n/a'
        if len(v) < 6:
            print('counts: %s lacks a bench-count line' % path)
            return 1
        cols.append((cc, v))
    print('| instructions (callgrind) | ' + ' | '.join(c for c, _ in cols) + ' |')
    print('|---|' + '---:|' * len(cols))
    for label, key in COUNT_ROWS:
        print('| %s | %s |' % (label, ' | '.join(v[key] for _, v in cols)))
    return 0


def cmd_splice(readme, name, path):
    """Replaces the block between <!-- figures:NAME:begin --> and
    <!-- figures:NAME:end --> in readme with the table rows (lines that
    start with '|') and the 'with ...' / 'limits:' notes of path."""
    with open(path, encoding='utf-8', errors='replace') as f:
        keep = [ln.rstrip('\n') for ln in f
                if ln.startswith('|') or ln.startswith('with -D')]
    if not keep:
        print('splice: no table in %s' % path)
        return 1
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    pat = re.compile(r'(<!-- figures:%s:begin -->\n).*?(<!-- figures:%s:end -->)'
                     % (re.escape(name), re.escape(name)), re.S)
    if not pat.search(text):
        print('splice: no figures:%s markers in %s' % (name, readme))
        return 1
    # Blank lines around the rows: a Markdown table must not run into the
    # HTML comments that delimit it.
    text = pat.sub(lambda m: m.group(1) + '\n' + '\n'.join(keep) + '\n\n' +
                   m.group(2), text)
    with open(readme, 'w', encoding='utf-8') as f:
        f.write(text)
    print('splice: %s <- %s (%d lines)' % (name, path, len(keep)))
    return 0


def cmd_fuzz_merge(bindir, harnesses):
    bad = 0
    for h in harnesses:
        run = os.path.join(bindir, 'run', h)
        finds = [d for d in (os.path.join(run, 'lf-corpus'),
                             os.path.join(run, 'afl', 'main', 'queue'))
                 if os.path.isdir(d)]
        binary = os.path.join(bindir, h + '.libfuzzer')
        if not finds:
            print('fuzz-merge: %s: no campaign output in %s' % (h, run))
            continue
        if not os.access(binary, os.X_OK):
            print('fuzz-merge: %s: %s missing (make fuzz-campaign first)'
                  % (h, binary))
            bad += 1
            continue
        corpus = os.path.join('fuzz', h, 'corpus')
        os.makedirs(corpus, exist_ok=True)
        before = count_files(corpus)
        r = subprocess.run([binary, '-merge=1', '-timeout=10', corpus] + finds,
                           capture_output=True, text=True)
        after = count_files(corpus)
        if r.returncode != 0:
            print('fuzz-merge: %s: the merge failed (exit %d); the end of '
                  'its output:' % (h, r.returncode))
            print('\n'.join(r.stderr.splitlines()[-10:]))
            bad += 1
            continue
        print('fuzz-merge: %s: %d inputs added to %s (%d before, from %s)'
              % (h, after - before, corpus, before,
                 ', '.join(os.path.relpath(d, bindir) for d in finds)))
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == 'sections':
        return cmd_sections(args)
    if cmd == 'size':
        return cmd_size(args[0], args[1])
    if cmd == 'configs':
        return cmd_configs(args[0], args[1], args[2], args[3],
                           int(args[4]) if len(args) > 4 else 2)
    if cmd == 'limits':
        return cmd_limits(int(args[0]) if args else 2)
    if cmd == 'coverage':
        return cmd_coverage(args[0], *(float(a) for a in args[1:3]))
    if cmd == 'fuzz-campaign':
        return cmd_fuzz_campaign(args[0], args[1], args[2:])
    if cmd == 'fuzz-merge':
        return cmd_fuzz_merge(args[0], args[1:])
    if cmd == 'counts':
        return cmd_counts(args)
    if cmd == 'splice':
        return cmd_splice(args[0], args[1], args[2])
    if cmd == 'fuzz-summary':
        return cmd_fuzz_summary(args[0], args[1], args[2])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
