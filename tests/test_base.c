/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* base: errors, versions, byte order, serial numbers, CRC32c. */
#include "test.h"

static void test_version_and_names(void)
{
    CHECK_EQ(ofl_version(), OFL_VERSION_NUMBER);
    CHECK(strcmp(ofl_strerror(OFL_OK), "OFL_OK") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_TPT_BOUNDS), "OFL_E_TPT_BOUNDS") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_PORT_HOOK), "OFL_E_PORT_HOOK") == 0);
    CHECK(strcmp(ofl_strerror((enum ofl_err)0x7FFF), "OFL_E_UNKNOWN") == 0);
    CHECK(strcmp(ofl_strerror(OFL_ERR_END_), "OFL_E_UNKNOWN") == 0);
    /* Values are part of the ABI. */
    CHECK_EQ(OFL_E_ARG, 0x0001);
    CHECK_EQ(OFL_E_TPT_INVALID_STAG, 0x0101);
}

/* Every enumerator's name is unique and round-trips. */
#define NAME_CHECK_(name, value) \
    CHECK(strcmp(ofl_strerror(OFL_##name), "OFL_" #name) == 0);
static void test_all_names(void)
{
    OFL_ERRORS(NAME_CHECK_)
}

static void test_byte_order(void)
{
    uint8_t b[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF};
    uint8_t w[9];

    CHECK_EQ(ofl_load_be16(b), 0x0123);
    CHECK_EQ(ofl_load_be32(b), 0x01234567u);
    CHECK_EQ(ofl_load_be64(b), 0x0123456789ABCDEFull);
    CHECK_EQ(ofl_load_le16(b), 0x2301);
    CHECK_EQ(ofl_load_le32(b), 0x67452301u);
    CHECK_EQ(ofl_load_le64(b), 0xEFCDAB8967452301ull);
    /* Unaligned round trips, odd offset. */
    memset(w, 0, sizeof(w));
    ofl_store_be64(w + 1, 0x0123456789ABCDEFull);
    CHECK(memcmp(w + 1, b, 8) == 0);
    CHECK_EQ(ofl_load_be64(w + 1), 0x0123456789ABCDEFull);
    ofl_store_le64(w + 1, 0x1122334455667788ull);
    CHECK_EQ(w[1], 0x88);
    CHECK_EQ(ofl_load_le64(w + 1), 0x1122334455667788ull);
    ofl_store_be32(w, 0xDEADBEEFu);
    CHECK_EQ(w[0], 0xDE);
    CHECK_EQ(ofl_load_be32(w), 0xDEADBEEFu);
    ofl_store_le32(w, 0xDEADBEEFu);
    CHECK_EQ(w[0], 0xEF);
    CHECK_EQ(ofl_load_le32(w), 0xDEADBEEFu);
    ofl_store_be16(w, 0xBEEF);
    CHECK_EQ(w[0], 0xBE);
    CHECK_EQ(ofl_load_be16(w), 0xBEEF);
    ofl_store_le16(w, 0xBEEF);
    CHECK_EQ(w[0], 0xEF);
    CHECK_EQ(ofl_load_le16(w), 0xBEEF);
}

static void test_serial_numbers(void)
{
    /* RFC 1982 §3.2 style cases for SERIAL_BITS = 32. */
    CHECK(ofl_sn_lt(0, 1));
    CHECK(!ofl_sn_lt(1, 0));
    CHECK(!ofl_sn_lt(5, 5));
    CHECK(ofl_sn_le(5, 5));
    CHECK(ofl_sn_ge(5, 5));
    CHECK(ofl_sn_lt(0xFFFFFFFFu, 0));          /* wraps */
    CHECK(ofl_sn_gt(0, 0xFFFFFFFFu));
    CHECK(ofl_sn_lt(0xFFFFFF00u, 0x00000100u));
    CHECK(ofl_sn_lt(0, 0x7FFFFFFFu));          /* largest forward step */
    CHECK(!ofl_sn_lt(0, 0x80000000u));         /* exactly 2^31: undefined */
    CHECK(!ofl_sn_gt(0, 0x80000000u));
    CHECK(!ofl_sn_le(0, 0x80000000u));
    CHECK(!ofl_sn_ge(0, 0x80000000u));
    CHECK(ofl_sn_lt(0x80000001u, 0));         /* one past 2^31: behind */
    CHECK(!ofl_sn_gt(0x80000001u, 0));
    CHECK_EQ(ofl_sn_diff(0xFFFFFFF0u, 0x10), 0x20);
}

/* Bitwise CRC32c reference (RFC 3385), raw reflected state. */
static uint32_t crc_ref(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n--) {
        int k;

        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0);
    }
    return crc;
}

static void test_crc32c_vectors(void)
{
    /* RFC 3720 appendix B.4. */
    static const uint8_t read_pdu[48] = {
        0x01, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    uint8_t b[32];
    int i;

    memset(b, 0, sizeof(b));
    CHECK_EQ(ofl_crc32c(b, 32), 0x8A9136AAu);
    memset(b, 0xFF, sizeof(b));
    CHECK_EQ(ofl_crc32c(b, 32), 0x62A8AB43u);
    for (i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    CHECK_EQ(ofl_crc32c(b, 32), 0x46DD794Eu);
    for (i = 0; i < 32; i++)
        b[i] = (uint8_t)(31 - i);
    CHECK_EQ(ofl_crc32c(b, 32), 0x113FDB5Cu);
    CHECK_EQ(ofl_crc32c(read_pdu, sizeof(read_pdu)), 0xD9963A56u);
    CHECK_EQ(ofl_crc32c("123456789", 9), 0xE3069283u); /* the check value */
    CHECK_EQ(ofl_crc32c(b, 0), 0);
}

/*
 * With state 0 and a 16-byte block holding one byte v at position j, the
 * slicing loop returns exactly table[15 - j][v] (every other lookup is
 * table[k][0] == 0). Comparing with the bitwise reference therefore checks
 * every entry of every table; the 8-byte tail loop and the byte loop are
 * covered the same way with 8- and 1-byte blocks.
 */
static void test_crc32c_tables(void)
{
    static const size_t blocks[] = {16, 8, 1};
    unsigned long bad = 0;
    size_t bi, j;
    unsigned v;

    for (bi = 0; bi < 3; bi++) {
        for (j = 0; j < blocks[bi]; j++) {
            for (v = 0; v < 256; v++) {
                uint8_t blk[16] = {0};

                blk[j] = (uint8_t)v;
                if (ofl_crc32c_update(0, blk, blocks[bi]) !=
                    crc_ref(0, blk, blocks[bi]))
                    bad++;
            }
        }
    }
    CHECK_EQ(bad, 0);
}

/* Any split and any alignment gives the one-shot result. */
static void test_crc32c_splits(void)
{
    uint8_t buf[300];
    unsigned long bad = 0;
    uint32_t x = 12345;
    size_t i, off, cut;

    for (i = 0; i < sizeof(buf); i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (off = 0; off < 9; off++) {
        size_t n = sizeof(buf) - off;
        uint32_t want = crc_ref(OFL_CRC32C_INIT, buf + off, n);

        if (ofl_crc32c_update(OFL_CRC32C_INIT, buf + off, n) != want)
            bad++;
        for (cut = 0; cut <= n; cut += 7) {
            uint32_t s = ofl_crc32c_update(OFL_CRC32C_INIT, buf + off, cut);

            s = ofl_crc32c_update(s, buf + off + cut, n - cut);
            if (s != want)
                bad++;
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(ofl_crc32c_final(0), 0xFFFFFFFFu);
}

/* SipHash-2-4 against the reference code's vectors (vectors.h,
 * vectors_sip64: key 00..0f, message 00 .. len-1, the output read
 * little-endian); lengths 0..8 cover every tail, 15 is the paper's
 * appendix A example, 38 is the demultiplexer's input length. */
static void test_siphash_vectors(void)
{
    static const struct {
        uint8_t len;
        uint64_t want;
    } v[] = {
        {0, 0x726fdb47dd0e0e31ull},  {1, 0x74f839c593dc67fdull},
        {2, 0x0d6c8009d9a94f5aull},  {3, 0x85676696d7fb7e2dull},
        {4, 0xcf2794e0277187b7ull},  {5, 0x18765564cd99a68dull},
        {6, 0xcbc9466e58fee3ceull},  {7, 0xab0200f58b01d137ull},
        {8, 0x93f5f5799a932462ull},  {15, 0xa129ca6149be45e5ull},
        {16, 0x3f2acc7f57c29bdbull}, {38, 0xcadcd4e59ef40c4dull},
        {39, 0x9abfd8766a33735cull}, {63, 0x958a324ceb064572ull},
    };
    uint8_t key[16], msg[64];
    unsigned i;

    for (i = 0; i < 16; i++)
        key[i] = (uint8_t)i;
    for (i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        CHECK_EQ(ofl_siphash24(key, msg, v[i].len), v[i].want);
    /* The key matters: one bit of it changes the output. */
    key[15] ^= 0x80;
    CHECK(ofl_siphash24(key, msg, 15) != 0xa129ca6149be45e5ull);
}

static void test_cursors(void)
{
    static const uint8_t in[15] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                   0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
                                   0x0F};
    uint8_t out[16], big[16];
    struct ofl_rd r;
    struct ofl_wr w;
    const uint8_t *q;

    /* Reads in order, big-endian, then past the end: 0 and sticky bad. */
    ofl_rd_init(&r, in, sizeof(in));
    CHECK_EQ(ofl_rd_u8(&r), 0x01);
    CHECK_EQ(ofl_rd_be16(&r), 0x0203);
    CHECK_EQ(ofl_rd_be32(&r), 0x04050607u);
    CHECK_EQ(ofl_rd_left(&r), 8);
    CHECK_EQ(ofl_rd_be64(&r), 0x08090A0B0C0D0E0Full);
    CHECK(!r.bad);
    CHECK_EQ(ofl_rd_left(&r), 0);
    CHECK_EQ(ofl_rd_u8(&r), 0);
    CHECK(r.bad);
    CHECK_EQ(ofl_rd_left(&r), 0);
    /* Once bad, even a read that would fit fails. */
    ofl_rd_init(&r, in, sizeof(in));
    CHECK_EQ(ofl_rd_be64(&r), 0x0102030405060708ull);
    CHECK_EQ(ofl_rd_be64(&r), 0); /* 7 left: fails */
    CHECK(r.bad);
    CHECK_EQ(ofl_rd_be16(&r), 0);
    CHECK_EQ(ofl_rd_be32(&r), 0);
    CHECK(ofl_rd_take(&r, 0) == NULL);
    /* take: exact fit, zero length, a huge length never wraps. */
    ofl_rd_init(&r, in, sizeof(in));
    q = ofl_rd_take(&r, sizeof(in));
    CHECK(q == in);
    CHECK(ofl_rd_take(&r, 0) != NULL);
    ofl_rd_init(&r, in, sizeof(in));
    CHECK(ofl_rd_take(&r, 1) != NULL);
    CHECK(ofl_rd_take(&r, ~(size_t)0) == NULL);
    CHECK(r.bad);
    /* A NULL buffer is empty. */
    ofl_rd_init(&r, NULL, 100);
    CHECK_EQ(ofl_rd_left(&r), 0);
    CHECK_EQ(ofl_rd_u8(&r), 0);
    CHECK(r.bad);

    /* Writes in order, then past the end: nothing written, sticky bad. */
    memset(out, 0xEE, sizeof(out));
    ofl_wr_init(&w, out, 15);
    ofl_wr_u8(&w, 0x01);
    ofl_wr_be16(&w, 0x0203);
    ofl_wr_be32(&w, 0x04050607u);
    ofl_wr_be64(&w, 0x08090A0B0C0D0E0Full);
    CHECK(!w.bad);
    CHECK_EQ(w.off, 15);
    CHECK(memcmp(out, in, 15) == 0);
    ofl_wr_u8(&w, 0xAA);
    CHECK(w.bad);
    CHECK_EQ(out[15], 0xEE);
    ofl_wr_init(&w, out, 15);
    ofl_wr_be64(&w, 1);
    ofl_wr_be64(&w, 2); /* 7 left: nothing written */
    CHECK(w.bad);
    CHECK_EQ(out[8], 0x09);
    ofl_wr_be16(&w, 3);
    ofl_wr_be32(&w, 4);
    ofl_wr_bytes(&w, in, 1);
    ofl_wr_zero(&w, 1);
    CHECK_EQ(w.off, 8);
    CHECK_EQ(out[8], 0x09);
    CHECK(ofl_wr_take(&w, 0) == NULL);
    /* bytes and zero. */
    memset(big, 0xEE, sizeof(big));
    ofl_wr_init(&w, big, 10);
    ofl_wr_bytes(&w, in, 4);
    ofl_wr_zero(&w, 6);
    CHECK(!w.bad);
    CHECK(memcmp(big, in, 4) == 0);
    CHECK_EQ(big[4], 0);
    CHECK_EQ(big[9], 0);
    CHECK_EQ(big[10], 0xEE);
    ofl_wr_zero(&w, 1);
    CHECK(w.bad);
    CHECK_EQ(big[10], 0xEE);
    ofl_wr_init(&w, big, 10);
    ofl_wr_bytes(&w, in, 11);
    CHECK(w.bad);
    CHECK_EQ(big[0], 0x01);
    ofl_wr_init(&w, NULL, 8);
    ofl_wr_u8(&w, 1);
    CHECK(w.bad);
}

OFL_SUITE(base)
{
    test_version_and_names();
    test_all_names();
    test_byte_order();
    test_serial_numbers();
    test_crc32c_vectors();
    test_crc32c_tables();
    test_crc32c_splits();
    test_siphash_vectors();
    test_cursors();
}
