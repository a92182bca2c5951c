#!/usr/bin/env python3
# Writes the seed corpus of fuzz_cells (see its header for the event
# format). Run from this directory.
import os, struct, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from ofl_crc32c import crc32c

def be16(v): return struct.pack('>H', v)
def be32(v): return struct.pack('>I', v)
def be64(v): return struct.pack('>Q', v)

def cell(flags, payload, psn, cno, first=None, imm=None, pcrc=None):
    c = bytes([1, flags]) + be16(len(payload)) + be32(psn) + be16(cno) + be16(0)
    if first is not None:
        c += first
    if imm is not None:
        c += be32(imm)
    c += payload
    if pcrc is not None:
        c += be32(pcrc)
    return c + be32(crc32c(c))

data = bytes((i * 7 + 3) & 0xFF for i in range(300))
first = be64(0x1000) + be32(0xAB) + be32(len(data))
c0 = cell(0x05, data[:256], 0, 0, first, 0x07050100)
c1 = cell(0x02, data[256:], 0, 1, pcrc=crc32c(data))
single = cell(0x03, b'x', 1, 0, be64(0) + be32(1) + be32(1), pcrc=crc32c(b'x'))

def rawev(c): return bytes([0]) + be16(len(c)) + c

seeds = {
    'raw_in_order': bytes([4]) + rawev(c0) + rawev(c1) + rawev(single),
    'raw_dup_missing': bytes([4]) + rawev(c0) + rawev(c0) + rawev(c1) +
                       rawev(c1) + rawev(single),
    'built': bytes([4]) + bytes([2]) + be16(700) + bytes([1]) + be16(300) +
             bytes([0, 0]) + be16(0) + bytes([1]) + be16(300) + bytes([0, 2]) +
             be16(0) + bytes([1]) + be16(300) + bytes([0, 1]) + be16(0),
    'flipped': bytes([0]) + bytes([1]) + be16(40) + bytes([0, 0]) + be16(0) +
               bytes([1]) + be16(40) + bytes([0, 1]) + be16(100) +
               bytes([2]) + be16(17),
}
os.makedirs('corpus', exist_ok=True)
for name, d in seeds.items():
    with open(os.path.join('corpus', name), 'wb') as f:
        f.write(d)
