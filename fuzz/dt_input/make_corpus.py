#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Writes the seed corpus of fuzz_dt_input (see the event list in
# fuzz_dt_input.c). Run from the repository root.
import os
import struct

OUT = os.path.join(os.path.dirname(__file__), "corpus")

def setup(cn=0, bt=0, mode=0, wait=0):
    # k, cn_count, cn_time, cn_max, bt_count, bt_bytes(2), bt_time, bt_max,
    # starve, connect_timeout, report_period, merge_max(2), out_warn, k2,
    # notify_delay, notify_bytes, notify_max, wait_limit, hist_w, hist_t
    return bytes([cn | (bt << 4), 2, 10, 50, 2]) + struct.pack(">H", 64) + \
        bytes([10, 40, 30, 100, 0]) + struct.pack(">H", 4096) + \
        bytes([2, mode, 5, 8, 20, wait, 4, 50])

def desc(t, fold=1, flags=0, status=0, number=0, tag=1, base=0, ln=0,
         conn=0, aux=0, pick=0):
    d = struct.pack(">BBBBIQIQI", t << 2, flags, status, number, tag, base,
                    ln, conn, aux)
    if fold & 2:
        d = d[:27] + bytes([pick]) + d[28:]
    return bytes([0, fold]) + d

def poll(dt=1):
    return bytes([1, dt])

def rx(sel, data):
    return bytes([2, sel, len(data)]) + data

def fw(kind, sel):
    return bytes([3, kind, sel])

def tx(sel, n):
    return bytes([4, sel]) + struct.pack(">H", n)

def host(n=16):
    return bytes([5, n])

def arena(off, data):
    return bytes([6]) + struct.pack(">H", off) + bytes([len(data)]) + data

def act():
    return bytes([7])

def tup(attr, value, set_=True):
    return struct.pack(">HI", (0x8000 if set_ else 0) | attr, len(value)) + value

def u32(v):
    return struct.pack(">I", v)

def u64(v):
    return struct.pack(">Q", v)

REMOTE = bytes(10) + b"\xff\xff\xc0\x00\x02\x07" + struct.pack(">H", 80)

seeds = {}

# listen, a connection arrives, a receive buffer, data, a peek, a skip.
lt = tup(0x0202, u32(80))
seeds["listen_arrive_rx"] = setup() + arena(0, lt) + \
    desc(0x04, number=1, base=0, ln=len(lt)) + poll() + host() + \
    fw(2, 0) + poll() + host() + \
    desc(0x02, fold=3, base=0x1000, ln=100, tag=5, pick=1) + \
    desc(0x02, fold=3, flags=0x08, base=0x1100, ln=4, tag=6, pick=1) + \
    desc(0x02, fold=3, base=0x1200, ln=8, aux=3, tag=7, pick=1) + \
    rx(1, b"GET / HTTP/1.0\r\n") + poll() + host() + poll(50) + host()

# bulk connect, one established one failed, sends that merge, transmit.
ct = tup(0x0203, REMOTE) + tup(0x0203, REMOTE) + tup(0x0105, u32(3))
seeds["connect_send_merge"] = setup(cn=1, bt=1) + arena(0, ct) + \
    desc(0x03, number=3, base=0, ln=len(ct), tag=2) + poll() + act() + \
    fw(0, 0) + fw(1, 1) + poll() + host() + arena(0x2000, bytes(range(64))) + \
    desc(0x01, fold=3, base=0x2000, ln=16, tag=3) + \
    desc(0x01, fold=3, base=0x2010, ln=16, tag=4) + \
    desc(0x01, fold=3, flags=0x01, base=0x2020, ln=16, tag=5) + \
    poll() + host() + tx(0, 48) + \
    desc(0x01, fold=3, base=0x2000, ln=16, tag=6) + poll() + host()

# adapter and connection attribute control.
at = tup(0x0002, u32(3)) + tup(0x0010, u32(0), False) + \
    tup(0x0005, bytes([3]) + b"abc" + bytes(13))
seeds["attributes"] = setup() + arena(0x100, at) + \
    desc(0x08, number=3, base=0x100, ln=len(at), tag=9) + poll() + host() + \
    arena(0, tup(0x0203, REMOTE)) + desc(0x03, number=1, base=0, ln=24) + \
    poll() + act() + fw(0, 0) + poll() + host() + \
    arena(0x300, tup(0x0105, u32(7)) + tup(0x010A, u32(0), False)) + \
    desc(0x07, fold=3, number=2, base=0x300, ln=20, tag=10) + poll() + host()

# cancellation by tag, termination, the firmware closing, bulk buffers.
seeds["cancel_terminate"] = setup(mode=1, wait=5) + \
    arena(0, tup(0x0203, REMOTE)) + \
    desc(0x03, number=1, base=0, ln=24, tag=20) + \
    desc(0x03, number=1, base=0, ln=24, tag=21) + poll() + \
    desc(0x06, fold=0, aux=20, tag=22) + poll() + host() + act() + \
    fw(0, 0) + poll() + host() + \
    desc(0x02, fold=1, base=0x4000, ln=300, tag=23) + \
    desc(0x02, fold=1, base=0x5000, ln=30, tag=24) + \
    rx(0, b"x" * 40) + poll(9) + host() + \
    desc(0x05, fold=2, tag=25, pick=0) + poll() + act() + fw(3, 0) + \
    poll() + host()

# a listener with 16 shared buffers terminated: 17 responses for a
# 16-slot output table (drains in steps; it used to stall the input).
seeds["drain_listener"] = setup() + arena(0, lt) + \
    desc(0x04, number=1, base=0, ln=len(lt), tag=30) + poll() + host() + \
    b"".join(desc(0x02, fold=3, base=0x1000 + 0x100 * i, ln=64, tag=40 + i,
                  pick=0) for i in range(16)) + poll() + \
    desc(0x05, fold=2, tag=31, pick=0) + \
    desc(0x02, fold=3, base=0x3000, ln=64, tag=32, pick=0) + poll() + \
    host(5) + poll() + host(5) + poll()

# the firmware closes a connection owing an open receive range and 16
# buffers: 18 responses for 16 slots.
seeds["drain_closed"] = setup(mode=1) + arena(0, lt) + \
    desc(0x04, number=1, base=0, ln=len(lt), tag=30) + poll() + host() + \
    fw(2, 0) + poll() + host() + \
    b"".join(desc(0x02, fold=3, base=0x1000 + 0x100 * i, ln=64, tag=40 + i,
                  pick=1) for i in range(16)) + poll() + \
    rx(1, b"hi") + poll() + fw(3, 1) + poll() + host(3) + poll()

# a cancellation of that listener (by id), and one by tag of sends to
# it while the output is nearly full; a second cancellation waits.
seeds["drain_cancel"] = setup(bt=1) + arena(0, lt) + \
    desc(0x04, number=1, base=0, ln=len(lt), tag=30) + poll() + host() + \
    b"".join(desc(0x02, fold=3, base=0x1000 + 0x100 * i, ln=64, tag=40 + i,
                  pick=0) for i in range(16)) + poll() + \
    desc(0x06, fold=2, tag=33, aux=7, pick=0) + \
    desc(0x06, fold=0, tag=34, aux=30) + poll() + host(3) + poll() + \
    host(16) + poll()

# two arrivals fill one shared buffer, their ranges held by the
# notification delay; the firmware closes the one whose range ends it: its
# FINAL range must wait until the other's range in that buffer is settled.
seeds["drain_shared_settle"] = setup(mode=1) + arena(0, lt) + \
    desc(0x04, number=1, base=0, ln=len(lt), tag=30) + poll() + host() + \
    fw(2, 0) + fw(2, 0) + poll() + host() + \
    desc(0x02, fold=3, base=0x1000, ln=6, tag=40, pick=0) + poll() + \
    rx(1, b"one") + poll() + rx(2, b"two") + poll() + fw(3, 2) + poll() + \
    host(1) + poll() + host(2) + poll() + host() + poll()

# raw garbage descriptors, no folding.
seeds["garbage"] = setup() + bytes([0, 0]) + bytes(range(0x80, 0xA0)) + \
    bytes([0, 0]) + bytes([0x84]) + bytes(31) + \
    bytes([0, 0]) + b"\x88" + bytes(15) + b"\xff" * 16 + poll() + host()

os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
