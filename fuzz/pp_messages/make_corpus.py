#!/usr/bin/env python3
# Writes the seed corpus of fuzz_pp_messages (see its header for the event
# format). Run from this directory.
import os, struct, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from ofl_crc32c import crc32c

def be16(v): return struct.pack('>H', v)
def be32(v): return struct.pack('>I', v)
def be64(v): return struct.pack('>Q', v)

def raw(to, msg):  # event 0 (to a) or 1 (to b)
    return bytes([to]) + be16(len(msg)) + msg

def advertise(idx, count, size, va):
    return bytes([3, idx]) + be16(count) + be32(size) + be64(va)

def write(pool, elem, length):
    return bytes([4, pool]) + be16(elem) + be32(length)

def replenish(pool, first, n):
    return bytes([5, pool]) + be16(first) + bytes([n])

def flush(who, own, pool, ctx):
    return bytes([6, who | (2 if own else 0), pool, ctx])

def close(who):
    return bytes([7, who])

def pick(length):
    return bytes([8]) + be16(length)

hdr = lambda t: be16(t) + be16(1)
pool_msg = hdr(1) + be16(1) + be16(0) + be32(7) + be32(16) + be32(256) + \
    be32(0xABCD0001) + be64(0x7F0000001000) + be64(0xDEADBEEF)
flush_req = hdr(4) + be64(0x1122334455667788) + be32(7) + be32(0x80000002)
flush_rep = hdr(5) + be64(0x1122334455667788)
indicate = hdr(7) + be16(1) + be16(0) + be32(256) + be32(5) + be32(65536)
update = hdr(3) + be16(1) + be16(0) + be32(7) + be32(5) + be32(2)
senddata = hdr(6) + be32(3) + b'abc'
cfgreq = hdr(8) + be64(9) + be16(2) + be16(0) + be32(2) + b'\xaa\xbb'
cfgrep = hdr(9) + be64(9) + be16(2) + be16(5) + be32(0)
get = hdr(2) + be32(32) + be32(2048)

seeds = {
    'lifecycle': advertise(3, 8, 256, 0x100000) + write(3, 5, 256) +
                 write(3, 6, 200) + pick(100) + replenish(3, 5, 2) +
                 flush(0, True, 3, 1) + close(0) + close(1),
    'indicate_path': advertise(19, 300, 70000, 0x2000000) +
                     write(19, 280, 70000) + write(19, 255, 65536) +
                     replenish(19, 280, 1) + flush(1, False, 19, 2),
    'exhaust': advertise(1, 2, 64, 0x1000) + write(1, 0, 64) +
               write(1, 1, 64) + pick(64) + replenish(1, 0, 2) + pick(64),
    'raw_a': raw(0, pool_msg) + raw(0, indicate) + raw(0, flush_req) +
             raw(0, flush_rep) + raw(0, senddata) + raw(0, cfgreq),
    'raw_b': raw(1, pool_msg) + raw(1, update) + raw(1, get) +
             raw(1, cfgrep) + raw(1, flush_req) + bytes([2]) + be64(0x07050100),
}
def cellmode(op, psn):  # events 0xF0 .. 0xF7
    return bytes([op]) + be32(psn)


def cell(pkt, psn, idx, size=256):  # one cell of a message packet
    n = (len(pkt) + size - 1) // size
    flags = (1 if idx == 0 else 0) | (2 if idx == n - 1 else 0)
    data = pkt[idx * size:(idx + 1) * size]
    c = bytes([1, flags]) + be16(len(data)) + be32(psn) + be16(idx) + be16(0)
    if idx == 0:
        c += be64(0) + be32(0) + be32(len(pkt))
    c += data
    if idx == n - 1:
        c += be32(crc32c(pkt))
    return c + be32(crc32c(c))

def rawcell(c):  # events 0xF8 .. 0xFF: a raw cell to a
    return bytes([0xF8]) + be16(len(c)) + c

big = hdr(6) + be32(600) + bytes(range(256)) * 2 + bytes(88)

seeds['cells_lifecycle'] = (cellmode(0xF1, 7) + seeds['indicate_path'] +
                            cellmode(0xF4, 0xFFFFFFFE) +
                            seeds['lifecycle'])
seeds['cells_raw'] = (rawcell(cell(senddata, 0, 0)) +
                      rawcell(cell(senddata, 0, 0)) +
                      rawcell(cell(big, 1, 0)) + rawcell(cell(big, 1, 2)) +
                      rawcell(cell(big, 1, 0)) + rawcell(cell(big, 1, 1)) +
                      rawcell(cell(big, 1, 1)) + rawcell(cell(big, 1, 2)) +
                      rawcell(cell(cfgreq, 2, 0)[:-1] + b'\x00'))
def raw_ctrl(to, msg):  # events 9 (to a) and 10 (to b): the cell channel
    return bytes([9 + to]) + be16(len(msg)) + msg

def rawcell_data(c):  # event 0xF9: a raw cell to a's plain data channel
    return bytes([0xF9]) + be16(len(c)) + c

# Whole messages and cells mixed on both channels: a's open packet is
# interrupted by a whole message on its cell channel and by one of its
# cells on the plain channel (both refused), then completed.
seeds['cells_mixed'] = (cellmode(0xF4, 0) + advertise(3, 8, 256, 0x100000) +
                        rawcell(cell(big, 0, 0)) + raw_ctrl(0, senddata) +
                        rawcell_data(cell(big, 0, 1)) +
                        rawcell(cell(big, 0, 1)) + raw_ctrl(0, flush_req) +
                        rawcell(cell(big, 0, 2)) + raw(0, senddata) +
                        raw_ctrl(1, pool_msg) + raw(1, pool_msg) +
                        write(3, 5, 256) + flush(0, True, 3, 1))
os.makedirs('corpus', exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join('corpus', name), 'wb') as f:
        f.write(data)
