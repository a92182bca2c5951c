# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
"""CRC32c (Castagnoli, reflected polynomial 0x82F63B78) for the python
test tools: the fuzz corpus writers (fuzz/cells, fuzz/pp_messages) and
the hostile peer of make test-rdma-hostile (put in its guest). RFC 5044
(MPA) and the seeds' cell and packet CRCs use it; check value
crc32c(b"123456789") == 0xE3069283. Bitwise: speed does not matter here."""


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c ^ 0xFFFFFFFF


if __name__ == "__main__":
    assert crc32c(b"123456789") == 0xE3069283
    print("ofl_crc32c: check value ok")
