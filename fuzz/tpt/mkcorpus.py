#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
"""Writes the seed corpus of fuzz_tpt (fuzz/tpt/corpus/*).

Each seed is a meaningful verb sequence in the harness's input format
(see fuzz_tpt.c: byte 0 = policy, then opcode + arguments). Not run by
make; rerun by hand after changing the format:  python3 fuzz/tpt/mkcorpus.py
Replay a seed with FUZZ_TPT_VERBOSE=1 build/<cc>/fuzz/tpt <file> to see
each verb's result.
"""
import os
import struct

(ALLOC, DEALLOC, REGISTER, REG_PAGES, REG_PHYS, DEREG, BIND, UNBIND,
 INV_LOCAL, INV_REMOTE, NOTE_USE, EXPIRE, CHECK_LOCAL, CHECK_REMOTE,
 CHECK_ISCSI, TRANSLATE, MAP, UNMAP, ATT_WRITE, LIST_WRITE, SET_TOUCHED,
 QUERY, OWNERS, POOL_ALLOC, POOL_FREE, SLOTS, REG_POOL,
 DEREG_POOL) = range(28)
OWNED = 2  # byte 0 bit 1: the table has an ATT owner table
REGION, WINDOW, ISCSI = 0, 1, 2
LR, LW, RR, RW, RA, BW = 1, 2, 4, 8, 16, 32
ONE_TOUCH, ONE_SHOT, ZB, INV = 1, 4, 8, 16
DIRECT, IND1, IND2 = 0, 5, 6  # kind bytes


def u16(v): return struct.pack(">H", v & 0xFFFF)
def u32(v): return struct.pack(">I", v & 0xFFFFFFFF)
def u64(v): return struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)


def stag(idx, stale=False):
    """Index idx with its current key (or current key - 1)."""
    return bytes([(2 << 6 if stale else 0) | idx])


def to(mode, v=0, raw=0):
    """0: base + v, 1: base + len - v, 2: 2^64-1 - v, 3: raw."""
    return bytes([mode]) + u16(v) + (u64(raw) if mode == 3 else b"")


length = to  # 0: v, 1: len - v, 2: v << 12, 3: raw


def desc(va=0x10, length_=0x1000, fpo=None, shift=0, base=0, count=1,
         kind=DIRECT, access=LR, flags=0, va_mode=0, len_mode=0):
    """va_mode 0: va = v << 12; 1: va = 2^64-1 - v; 3: va = 0.
    len_mode 0: u16, 2: u32, 3: u64. fpo: None (0), a value < 0x10000
    (masked to the page size), or ("raw", v) for any u32."""
    fpo_mode = 0 if fpo is None else 3 if isinstance(fpo, tuple) else 1
    m = va_mode | (len_mode << 2) | (fpo_mode << 4)
    b = bytes([m, shift])
    if va_mode == 0:
        b += u16(va)
    elif va_mode == 1:
        b += u16(va)
    elif va_mode == 2:
        b += u64(va)
    if len_mode == 0:
        b += u16(length_)
    elif len_mode == 1:
        b += bytes([length_])
    elif len_mode == 2:
        b += u32(length_)
    else:
        b += u64(length_)
    if fpo_mode == 1:
        b += u16(fpo)
    elif fpo_mode == 3:
        b += u32(fpo[1])
    return b + bytes([base, count, kind, access, flags])


def word(k, kind=0):
    """0: list k | present, 3: list k (absent), 4: reserved bit,
    5: misaligned, 6: zero."""
    return bytes([(k << 5) | kind])


def page(k):
    return bytes([k << 5])


def op(code, *parts):
    return bytes([code]) + b"".join(parts)


def pd(p): return bytes([p])


qp = pd


seeds = {}

# Direct ATT, local and remote checks at the edges, translation, stale key.
seeds["direct"] = bytes([0]) + b"".join([
    op(ATT_WRITE, bytes([0, 4]), word(0), word(2), word(3), word(5)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1),
       desc(va=0x10, length_=0x3000, fpo=0x100, count=4, access=0x3F)),
    op(CHECK_LOCAL, stag(1), pd(1), to(0, 0), length(1, 0), bytes([LR | LW])),
    op(CHECK_LOCAL, stag(1), pd(1), to(1, 0), length(0, 1), bytes([LR])),
    op(CHECK_LOCAL, stag(1), pd(1), to(1, 1), length(0, 1), bytes([LR])),
    op(CHECK_LOCAL, stag(1), pd(2), to(0, 0), length(0, 1), bytes([LR])),
    op(CHECK_REMOTE, stag(1), pd(1), qp(0), to(0, 0), length(0, 0x10),
       bytes([RR])),
    op(CHECK_REMOTE, stag(1), pd(1), qp(0), to(2, 0), length(0, 2),
       bytes([RR])),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([1])),
    op(TRANSLATE, stag(1), to(0, 0xEFF), length(0, 2), bytes([4])),
    op(QUERY, stag(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(DEREG, stag(2), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(QUERY, stag(2, stale=True)),
    op(CHECK_LOCAL, stag(0), pd(1), to(0, 0), length(0, 1), bytes([LR])),
    op(CHECK_LOCAL, stag(17), pd(1), to(0, 0), length(0, 1), bytes([LR])),
])

# Windows only: type 1 and type 2 windows, a dead region, re-registration.
seeds["windows"] = bytes([1]) + b"".join([
    op(ATT_WRITE, bytes([0, 2]), word(0), word(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1),
       desc(va=0x10, length_=0x2000, count=2,
            access=LR | LW | RR | RW | BW, flags=INV)),
    op(ALLOC, bytes([WINDOW, 0]), pd(1)),
    op(BIND, stag(2), stag(1), pd(1), qp(0), to(0, 0x10), length(0, 0x100),
       bytes([RR | RW]), bytes([0])),
    op(CHECK_REMOTE, stag(2), pd(1), qp(0), to(0, 0), length(0, 0x100),
       bytes([RW])),
    op(CHECK_REMOTE, stag(2), pd(1), qp(0), to(1, 0), length(0, 1),
       bytes([RR])),
    op(CHECK_REMOTE, stag(1), pd(1), qp(0), to(0, 0), length(0, 1),
       bytes([RR])),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([4])),
    op(ALLOC, bytes([WINDOW, 1]), pd(1)),
    op(BIND, stag(3), stag(1), pd(1), qp(1), to(0, 0x1000), length(0, 0x800),
       bytes([RR]), bytes([0])),
    op(CHECK_REMOTE, stag(3), pd(1), qp(2), to(0, 0), length(0, 1),
       bytes([RR])),
    op(CHECK_REMOTE, stag(3), pd(1), qp(1), to(0, 0), length(0, 1),
       bytes([RR])),
    op(BIND, stag(3), stag(1), pd(1), qp(2), to(0, 0), length(0, 0x10),
       bytes([RR]), bytes([0])),
    op(INV_REMOTE, stag(3), pd(1), qp(1)),
    op(BIND, stag(3), stag(1), pd(1), qp(2), to(0, 0), length(0, 0x10),
       bytes([RR]), bytes([ONE_SHOT])),
    op(NOTE_USE, stag(3), bytes([1])),
    op(DEREG, stag(1), pd(1)),
    op(CHECK_REMOTE, stag(2), pd(1), qp(0), to(0, 0), length(0, 1),
       bytes([RR])),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1),
       desc(va=0x10, length_=0x2000, count=2,
            access=LR | LW | RR | RW | BW, flags=INV)),
    op(CHECK_REMOTE, stag(2), pd(1), qp(0), to(0, 0), length(0, 1),
       bytes([RR])),
    op(BIND, stag(2), stag(1), pd(1), qp(0), to(1, 0x100), length(0, 0x100),
       bytes([RR]), bytes([0])),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([4])),
    op(INV_LOCAL, stag(1), pd(1)),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([4])),
    op(UNBIND, stag(2), pd(1), qp(1)),
    op(DEALLOC, stag(2), pd(1)),
])

# 1st-order indirect ATT with a first-page offset, a page fault, map, unmap.
seeds["indirect1"] = bytes([0]) + b"".join([
    op(LIST_WRITE, bytes([0]), u16(0), word(1)),
    op(LIST_WRITE, bytes([0]), u16(1), word(1, kind=3)),
    op(LIST_WRITE, bytes([0]), u16(2), word(3)),
    op(LIST_WRITE, bytes([0]), u16(3), word(4)),
    op(ATT_WRITE, bytes([10, 1]), word(0)),
    op(ALLOC, bytes([REGION, 0]), pd(0)),
    op(REGISTER, stag(1), pd(0),
       desc(va=0x20, length_=0x3000, fpo=0xF00, base=10, count=1, kind=IND1,
            access=LR | LW)),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(MAP, stag(1), to(0, 0x100), page(2)),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(UNMAP, stag(1), to(0, 0)),
    op(TRANSLATE, stag(1), to(0, 0x10), length(0, 0x100), bytes([8])),
    op(MAP, stag(1), to(0, 0), bytes([(6 << 5) | 3])),
    op(MAP, stag(1), to(0, 0), page(6)),
    op(TRANSLATE, stag(1), to(1, 1), length(0, 1), bytes([1])),
])

# 2nd-order indirect, zero-based, crossing the level-1 list boundary.
seeds["indirect2"] = bytes([0]) + b"".join([
    op(ATT_WRITE, bytes([20, 1]), word(1)),
    op(LIST_WRITE, bytes([1]), u16(0), word(2)),
    op(LIST_WRITE, bytes([1]), u16(1), word(3)),
    op(LIST_WRITE, bytes([2]), u16(511), word(4)),
    op(LIST_WRITE, bytes([3]), u16(0), word(5)),
    op(LIST_WRITE, bytes([3]), u16(1), word(7)),
    op(ALLOC, bytes([REGION, 0]), pd(0)),
    op(REGISTER, stag(1), pd(0),
       desc(va_mode=3, len_mode=2, length_=0x300000, fpo=0x800, base=20,
            count=1, kind=IND2, access=LR | BW, flags=ZB)),
    op(TRANSLATE, stag(1), to(3, raw=0x1FE900), length(0, 0x1F20),
       bytes([8])),
    op(MAP, stag(1), to(3, raw=0x200900), page(0)),
    op(TRANSLATE, stag(1), to(3, raw=0x1FE900), length(0, 0x2F20),
       bytes([8])),
    op(ALLOC, bytes([WINDOW, 0]), pd(0)),
    op(BIND, stag(2), stag(1), pd(0), qp(0), to(3, raw=0x1FF000),
       length(0, 0x1000), bytes([RR]), bytes([0])),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([8])),
    op(UNMAP, stag(2), to(0, 0x800)),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([8])),
    op(CHECK_REMOTE, stag(2), pd(0), qp(0), to(0, 0), length(1, 0),
       bytes([RR])),
])

# reg_phys, reg_pages, one-shot, touched, expire, query.
seeds["regphys"] = bytes([0]) + b"".join([
    op(REG_PHYS, pd(1),
       desc(va=0x30, length_=0, base=30, count=0, access=LR | LW,
            flags=ONE_SHOT),
       bytes([3]),
       bytes([(0 << 5) | 1, 2]) + u16(0x800),
       bytes([2 << 5, 1]) + u16(1),
       bytes([6 << 5, 0]) + u16(0x10)),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(CHECK_LOCAL, stag(1), pd(1), to(1, 1), length(0, 1), bytes([LW])),
    op(NOTE_USE, stag(1), bytes([0])),
    op(NOTE_USE, stag(1), bytes([1])),
    op(CHECK_LOCAL, stag(1), pd(1), to(0, 0), length(0, 1), bytes([LR])),
    op(REG_PAGES, pd(2),
       desc(va=0x40, length_=0x1800, fpo=0x400, base=40, access=LR),
       bytes([2]), page(1), page(2)),
    op(TRANSLATE, stag(2), to(0, 0), length(1, 0), bytes([1])),
    op(SET_TOUCHED, stag(2), u32(0xDEADBEEF)),
    op(QUERY, stag(2)),
    op(EXPIRE, stag(2)),
    op(QUERY, stag(2)),
    op(REGISTER, stag(2), pd(2),
       desc(va=0x40, length_=0x1800, fpo=0x400, base=40, count=2, access=LR)),
    op(REG_PHYS, pd(1), desc(va=0x50, base=50), bytes([2]),
       bytes([(1 << 5) | 1, 0]) + u16(0x10),
       bytes([2 << 5, 0]) + u16(0x10)),
])

# A full table, iSCSI entries, dealloc and reuse.
seeds["full"] = bytes([0]) + b"".join(
    [op(ALLOC, bytes([i % 3, (i & 1) if i % 3 == 1 else 0]), pd(i % 3))
     for i in range(16)] + [
        op(DEALLOC, stag(3), pd(2)),
        op(ALLOC, bytes([ISCSI, 0]), pd(1)),
        op(REGISTER, stag(3), pd(1),
           desc(va=0xFFFF, va_mode=1, length_=0x2000, count=2,
                access=LW | RW)),
        op(CHECK_ISCSI, stag(3), pd(1), qp(0), to(0, 0), length(0, 0x2000),
           bytes([RW])),
        op(CHECK_ISCSI, stag(3), pd(1), qp(0), to(0, 0x1FFF), length(0, 2),
           bytes([RW])),
        # the entry is QP 0's (the pd byte's bits 4-5): QP 1 names no task
        op(CHECK_ISCSI, stag(3), pd(1), qp(1), to(0, 0), length(0, 1),
           bytes([RW])),
        op(CHECK_REMOTE, stag(3), pd(1), qp(0), to(0, 0), length(0, 1),
           bytes([RW])),
        op(DEALLOC, stag(3), pd(1)),
        op(DEREG, stag(3), pd(1)),
        op(ALLOC, bytes([WINDOW, 1]), pd(2)),
        op(ALLOC, bytes([WINDOW, 1]), pd(2)),
        op(DEALLOC, stag(15), pd(2)),
        op(QUERY, stag(3)),
    ])

# Descriptor edges: page sizes, offsets, VA wrap, ATT range, rights.
edges = []
for shift_byte, fpo in [(0, None), (16, None), (0xF0, None), (0xF1, None),
                        (0, 0xFFF), (0, ("raw", 0xFFF)),
                        (0, ("raw", 0x1000))]:
    edges.append(op(ALLOC, bytes([REGION, 0]), pd(0)))
    edges.append(op(REGISTER, stag(1), pd(0),
                    desc(length_=1, fpo=fpo, shift=shift_byte, count=1)))
    edges.append(op(DEREG, stag(1), pd(0)))
# va = 2^64-1 - v, len 0xFFFF: the last byte is 2^64-1 for v = 0xFFFE.
for d in [desc(va=0xFFFE, va_mode=1, length_=0xFFFF, count=16),
          desc(va=0xFFFD, va_mode=1, length_=0xFFFF, count=16, flags=ZB),
          desc(va=0xFFFD, va_mode=1, length_=0xFFFF, count=16),
          desc(length_=0x2000, count=2, fpo=1),
          desc(length_=0x2000, count=2, base=62),
          desc(length_=0x2000, count=2, base=63),
          desc(length_=0x1000, access=RW),
          desc(length_=0x1000, access=RW | LW),
          desc(length_=0, count=1),
          desc(length_=0x1000, count=1, kind=7)]:
    edges.append(op(ALLOC, bytes([REGION, 0]), pd(0)))
    edges.append(op(REGISTER, stag(1), pd(0), d))
    edges.append(op(DEREG, stag(1), pd(0)))
seeds["edges"] = bytes([0]) + b"".join(edges)


def key(idx, k):
    """Index idx with key k (a re-registration's new key)."""
    return bytes([(3 << 6) | idx, k])


# ATT owners: a registration naming another live entry's slots is refused
# (verbs, reg_pages, reg_phys); an invalidated region keeps its slots and
# may take them again; a deregistered one leaves them.
seeds["owners"] = bytes([OWNED]) + b"".join([
    op(ATT_WRITE, bytes([0, 4]), word(0), word(1), word(2), word(4)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1),
       desc(length_=0x4000, count=4, access=LR | LW, flags=INV)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(2), pd(1), desc(length_=0x4000, base=2, count=4)),
    op(REG_PAGES, pd(1), desc(length_=0x2000, base=3), bytes([2]), page(1),
       page(2)),
    op(REG_PHYS, pd(1), desc(base=1), bytes([1]),
       bytes([1 << 5, 0]) + u16(0x10)),
    op(REGISTER, stag(2), pd(1), desc(length_=0x2000, base=4, count=2)),
    op(INV_LOCAL, stag(1), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(3), pd(1), desc(length_=0x1000, base=0, count=1)),
    op(REGISTER, key(1, 2), pd(1), desc(length_=0x2000, count=2, flags=INV)),
    op(REGISTER, stag(3), pd(1), desc(length_=0x2000, base=2, count=2)),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(DEREG, stag(1), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1), desc(length_=0x1000, count=1)),
    op(OWNERS, bytes([0])),
    op(ALLOC, bytes([ISCSI, 0]), pd(1)),
    op(REGISTER, stag(4), pd(1), desc(length_=0, count=0)),
    # an index deregistered and allocated again owns nothing yet
    op(DEREG, stag(1), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(5), pd(1), desc(length_=0x1000, count=1)),
])

# The ATT slot pool: first fit, frees of runs it never handed out, the
# slot count helper, and registrations that take their slots from it.
seeds["pool"] = bytes([OWNED]) + b"".join([
    op(POOL_ALLOC, bytes([10])),
    op(POOL_ALLOC, bytes([10])),
    op(POOL_ALLOC, bytes([10])),
    op(POOL_ALLOC, bytes([34])),
    op(POOL_ALLOC, bytes([1])),
    op(POOL_ALLOC, bytes([0])),
    op(POOL_FREE, bytes([0x80, 10])),
    op(POOL_FREE, bytes([0x00, 10, 10])),
    op(POOL_FREE, bytes([0x00, 0, 5])),
    op(POOL_FREE, bytes([0x40, 0, 2])),
    op(POOL_FREE, bytes([0x20, 10, 7])),
    op(POOL_FREE, bytes([0x81, 20])),
    op(POOL_FREE, bytes([0x84, 20])),
    op(POOL_FREE, bytes([0x80, 30])),
    op(POOL_ALLOC, bytes([11])),
    op(SLOTS, bytes([12, 0]), u32(1), u64(0x1000)),
    op(SLOTS, bytes([12, 1]), u32(0), u64(0x200001)),
    op(SLOTS, bytes([28, 2]), u32(0), u64(0xFFFFFFFFFFFFFFFF)),
    op(SLOTS, bytes([12, 0]), u32(0), u64(0xFFFFFFFFFFFFFFFF)),
    op(SLOTS, bytes([11, 0]), u32(0), u64(1)),
    op(SLOTS, bytes([12, 3]), u32(0), u64(1)),
    op(SLOTS, bytes([12, 0]), u32(0x80000000), u64(1)),
    op(REG_POOL, pd(1), desc(length_=0x2000, access=LR), bytes([2]),
       page(1), page(2)),
    op(REG_POOL, pd(1), desc(length_=0x8000, access=LR), bytes([8]),
       page(1), page(2), page(3), page(4), page(5), page(6), page(7),
       page(0)),
    op(TRANSLATE, stag(1), to(0, 0), length(1, 0), bytes([8])),
    op(DEREG_POOL, stag(1), pd(2)),
    op(DEREG_POOL, stag(1), pd(1)),
    op(DEREG_POOL, stag(1), pd(1)),
    op(ALLOC, bytes([REGION, 0]), pd(1)),
    op(REGISTER, stag(1), pd(1), desc(length_=0x1000, base=5, count=1)),
    op(DEREG_POOL, stag(1), pd(1)),
    op(OWNERS, bytes([1])),
])

here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "corpus"), exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(here, "corpus", name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes")
