#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
"""Writes the seed corpus of fuzz_iw_uring (fuzz/iw_uring/corpus/*).

Each seed is a siw SQ entry, its SGE limit, a siw RQ entry, its limit and a
core CQE in the harness's input format (see fuzz_iw_uring.c; the ring
entries in x86-64 order, as libsiw writes them). Not run by make; rerun by
hand after changing the format:  python3 fuzz/iw_uring/mkcorpus.py
"""
import os
import struct

VALID, INLINE, SIGNALLED, SOLICITED, FENCE = 1, 2, 4, 8, 16
WRITE, READ, SEND, SEND_INV, RECEIVE = 0, 1, 3, 5, 8
OFL_SEND, OFL_SEND_INV, OFL_WRITE, OFL_READ, OFL_RECV = 1, 2, 3, 5, 15
CQE_INV, CQE_IMM, CQE_SOL = 2, 1, 4


def sges(n, length=100):
    out = b""
    for i in range(6):
        if i < n:
            out += struct.pack("<QII", 0x10000 * (i + 1), length + i, 0x100 + i)
        else:
            out += bytes(16)
    return out


def sqe(op, flags, n, rkey=0xABCDEF01, raddr=0x7F0000001000, length=100):
    return struct.pack("<QHBBIQ", 0x1122334455667788, flags, n, op, rkey,
                       raddr) + sges(n, length)


def rqe(flags, n, length=64):
    return struct.pack("<QHBBI", 42, flags, n, 0, 0) + sges(n, length)


def cqe(op, status, flags, stag=0x1234, imm=0x0102030405060708):
    return struct.pack(">QQIIIBBB", 99, imm, 4096, 17, stag, op, status, flags)


SEEDS = {
    "write": sqe(WRITE, VALID | SIGNALLED | FENCE, 2) + b"\x06" +
             rqe(VALID, 1) + b"\x06" + cqe(OFL_WRITE, 0, 0),
    "read": sqe(READ, VALID | SIGNALLED, 1) + b"\x06" +
            rqe(VALID, 6) + b"\x06" + cqe(OFL_READ, 4, 0),
    "send": sqe(SEND, VALID | SOLICITED, 6) + b"\x06" +
            rqe(VALID, 2, 0x80000000) + b"\x06" + cqe(OFL_RECV, 0, CQE_SOL),
    "send_inv": sqe(SEND_INV, VALID, 1) + b"\x03" +
                rqe(VALID, 4) + b"\x02" + cqe(OFL_RECV, 0, CQE_INV),
    "inline": sqe(SEND, VALID | INLINE, 1) + b"\x06" +
              rqe(VALID | 4, 1) + b"\x06" + cqe(16, 0, CQE_IMM),
    "overflow": sqe(WRITE, VALID, 6, length=0xFFFFFFF0) + b"\x06" +
                rqe(VALID, 6, 0xFFFFFFF0) + b"\x06" + cqe(9, 13, 0),
}

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(here, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)
