/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* wire/DDP+RDMAP: headers of every opcode, Terminate, the terminate cause of
 * every malformed input, MSN/MO checks, segmentation, and the whole path
 * message -> segments -> FPDUs -> stream -> FPDUs -> message. */
#include "test.h"

#define CHECK_CAUSE(got, l, t, c)                                         \
    do {                                                                  \
        struct ofl_term_cause g_ = (got);                                 \
        CHECK_EQ((g_.layer << 16) | (g_.etype << 8) | g_.ecode,           \
                 ((l) << 16) | ((t) << 8) | (c));                         \
    } while (0)

static struct ofl_rdmap_msg untagged(uint8_t op, uint32_t qn, uint32_t msn)
{
    struct ofl_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.ddp.opcode = op;
    m.ddp.last = 1;
    m.ddp.qn = qn;
    m.ddp.msn = msn;
    return m;
}

static struct ofl_rdmap_msg tagged(uint8_t op, uint32_t stag, uint64_t to)
{
    struct ofl_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.opcode = op;
    m.ddp.last = 1;
    m.ddp.stag = stag;
    m.ddp.to = to;
    return m;
}

static void test_vectors(void)
{
    /* RDMA Write, last: T|L|DV=1, RV=1|op 0, STag, TO. */
    static const uint8_t write[14] = {0xC1, 0x40, 0x12, 0x34, 0x56, 0x78,
                                      0x00, 0x00, 0x00, 0x01, 0x02, 0x03,
                                      0x04, 0x05};
    /* Send with Invalidate, last, QN 0, MSN 7, MO 0. */
    static const uint8_t sendinv[18] = {0x41, 0x44, 0xAA, 0xBB, 0xCC, 0xDD,
                                        0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0};
    struct ofl_rdmap_msg m, back;
    uint8_t buf[128];
    size_t len;

    m = tagged(OFL_RDMAP_WRITE, 0x12345678u, 0x0102030405ull);
    CHECK_OK(ofl_rdmap_build(&m, buf, sizeof(buf), &len));
    CHECK_EQ(len, 14);
    CHECK(memcmp(buf, write, 14) == 0);
    buf[14] = 'x';
    CHECK_OK(ofl_rdmap_parse(buf, 15, &back, NULL));
    CHECK(back.ddp.tagged && back.ddp.last);
    CHECK_EQ(back.ddp.stag, 0x12345678u);
    CHECK_EQ(back.ddp.to, 0x0102030405ull);
    CHECK_EQ(back.ddp.ddp_version, 1);
    CHECK_EQ(back.ddp.rdmap_version, 1);
    CHECK_EQ(back.payload_len, 1);
    CHECK(back.payload == buf + 14);

    m = untagged(OFL_RDMAP_SEND_INV, OFL_DDP_QN_SEND, 7);
    m.ddp.inv_stag = 0xAABBCCDDu;
    CHECK_OK(ofl_rdmap_build(&m, buf, sizeof(buf), &len));
    CHECK_EQ(len, 18);
    CHECK(memcmp(buf, sendinv, 18) == 0);
    CHECK_OK(ofl_rdmap_parse(buf, 18, &back, NULL));
    CHECK_EQ(back.ddp.inv_stag, 0xAABBCCDDu);
    CHECK_EQ(back.ddp.msn, 7);
    CHECK_EQ(back.payload_len, 0);
    /* A plain Send ignores (and never writes) RsvdULP. */
    m.ddp.opcode = OFL_RDMAP_SEND;
    CHECK_OK(ofl_rdmap_build(&m, buf, sizeof(buf), &len));
    CHECK_EQ(ofl_load_be32(buf + 2), 0);
    buf[3] = 0x77;
    buf[0] |= 0x3C; /* reserved DDP bits */
    buf[1] |= 0x30; /* reserved RDMAP bits */
    CHECK_OK(ofl_rdmap_parse(buf, 18, &back, NULL));
    CHECK_EQ(back.ddp.inv_stag, 0);
    CHECK_EQ(back.ddp.opcode, OFL_RDMAP_SEND);
}

static void test_all_opcodes(void)
{
    struct ofl_rdmap_msg m, back;
    uint8_t buf[OFL_RDMAP_HDR_MAX + 8];
    size_t len;
    int op;

    for (op = 0; op <= 0xB; op++) {
        int t = op == OFL_RDMAP_WRITE || op == OFL_RDMAP_READ_RESP;
        uint32_t qn = op == OFL_RDMAP_READ_REQ       ? 1
                      : op == OFL_RDMAP_TERMINATE    ? 2
                      : op == OFL_RDMAP_ATOMIC_REQ   ? 3
                      : op == OFL_RDMAP_ATOMIC_RESP  ? 4
                                                     : 0;

        m = t ? tagged((uint8_t)op, 0x100 + op, 0x1000 * op)
              : untagged((uint8_t)op, qn, 1 + op);
        if (op == OFL_RDMAP_READ_REQ) {
            m.u.read_req.sink_stag = 0x11;
            m.u.read_req.sink_to = 0x2222;
            m.u.read_req.size = 4096;
            m.u.read_req.src_stag = 0x33;
            m.u.read_req.src_to = 0xFFFFFFFF00000000ull;
        } else if (op == OFL_RDMAP_ATOMIC_REQ) {
            m.u.atomic_req.op = OFL_RDMAP_CMP_SWAP;
            m.u.atomic_req.req_id = 9;
            m.u.atomic_req.stag = 0x44;
            m.u.atomic_req.to = 0x5000;
            m.u.atomic_req.add_swap = 1;
            m.u.atomic_req.add_swap_mask = ~0ull;
            m.u.atomic_req.compare = 2;
            m.u.atomic_req.compare_mask = ~0ull;
        } else if (op == OFL_RDMAP_ATOMIC_RESP) {
            m.u.atomic_resp.req_id = 9;
            m.u.atomic_resp.orig = 0x0123456789ABCDEFull;
        } else if (op == OFL_RDMAP_IMM || op == OFL_RDMAP_IMM_SE) {
            memcpy(m.u.imm, "IMMEDIAT", 8);
        } else if (op == OFL_RDMAP_TERMINATE) {
            m.u.term.cause.layer = 1;
            m.u.term.cause.etype = 2;
            m.u.term.cause.ecode = 5;
        }
        CHECK_OK(ofl_rdmap_build(&m, buf, sizeof(buf), &len));
        CHECK_EQ(len, (t ? 14u : 18u) + (op == 1    ? 28u
                                         : op == 7  ? 4u
                                         : op == 10 ? 52u
                                         : op == 11 ? 12u
                                         : op >= 8  ? 8u
                                                    : 0u));
        CHECK_EQ(buf[1] & 0x0F, op);
        CHECK_OK(ofl_rdmap_parse(buf, len, &back, NULL));
        CHECK_EQ(back.ddp.opcode, op);
        CHECK_EQ(back.ddp.tagged, t);
        if (!t) {
            CHECK_EQ(back.ddp.qn, qn);
            CHECK_EQ(back.ddp.msn, 1 + op);
        }
        CHECK(memcmp(&back.u, &m.u, sizeof(m.u)) == 0);
    }
}

/* Parses a modified copy and checks error and cause. */
static void expect(const uint8_t *b, size_t len, enum ofl_err want,
                   uint8_t l, uint8_t t, uint8_t c)
{
    struct ofl_rdmap_msg m;
    struct ofl_term_cause cs = {9, 9, 9};

    CHECK_ERR(ofl_rdmap_parse(b, len, &m, &cs), want);
    CHECK_CAUSE(cs, l, t, c);
}

static void test_malformed(void)
{
    struct ofl_rdmap_msg m;
    uint8_t b[128], w[32];
    size_t len;

    CHECK_ERR(ofl_rdmap_parse(NULL, 3, &m, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_rdmap_parse(b, 3, NULL, NULL), OFL_E_ARG);
    /* Too short for the header its T bit announces. */
    expect(b, 0, OFL_E_DDP_SHORT, 1, 0, 0);
    expect(NULL, 0, OFL_E_DDP_SHORT, 1, 0, 0); /* no bytes at all */
    m = tagged(OFL_RDMAP_WRITE, 1, 2);
    CHECK_OK(ofl_rdmap_build(&m, w, sizeof(w), &len));
    expect(w, 13, OFL_E_DDP_SHORT, 1, 0, 0);
    CHECK_OK(ofl_rdmap_parse(w, 14, &m, NULL));
    /* A rejection without a place for the cause. */
    CHECK_ERR(ofl_rdmap_parse(w, 13, &m, NULL), OFL_E_DDP_SHORT);
    /* A ULPDU is at most 2^32 - 1 bytes: payload_len is 32 bits (an MPA
     * ULPDU is far smaller, RFC 5044 §4). Only the header bytes are read
     * before the verdict, so a short buffer stands in for the long one.
     * Where size_t has 32 bits no length can say more. (A run-time test:
     * a kernel's SIZE_MAX is not usable in #if.) */
    if (sizeof(size_t) > 4) {
        expect(w, (size_t)0xFFFFFFFFu + 1u, OFL_E_DDP_SHORT, 1, 0, 0);
        CHECK_OK(ofl_rdmap_parse(w, 0xFFFFFFFFu, &m, NULL));
        CHECK_EQ(m.payload_len, 0xFFFFFFFFu - 14);
        CHECK(m.payload == w + 14);
    }
    /* DDP version: tagged 1/1/04, untagged 1/2/06. */
    w[0] = (uint8_t)((w[0] & ~3) | 2);
    expect(w, 14, OFL_E_DDP_VERSION, 1, 1, 4);
    w[0] &= (uint8_t)~3;
    expect(w, 14, OFL_E_DDP_VERSION, 1, 1, 4);
    m = untagged(OFL_RDMAP_SEND, 0, 1);
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    expect(b, 17, OFL_E_DDP_SHORT, 1, 0, 0);
    b[0] = (uint8_t)((b[0] & ~3) | 3);
    expect(b, 18, OFL_E_DDP_VERSION, 1, 2, 6);
    b[0] = (uint8_t)((b[0] & ~3) | 1);
    /* RDMAP version 0/2/05. */
    b[1] = (uint8_t)((b[1] & 0x3F) | 0x80);
    expect(b, 18, OFL_E_RDMAP_VERSION, 0, 2, 5);
    b[1] = (uint8_t)((b[1] & 0x3F) | 0x00);
    expect(b, 18, OFL_E_RDMAP_VERSION, 0, 2, 5);
    b[1] = 0x43;
    CHECK_OK(ofl_rdmap_parse(b, 18, &m, NULL));
    /* Undefined opcodes and wrong buffer models: 0/2/06. */
    b[1] = 0x4C;
    expect(b, 18, OFL_E_RDMAP_OPCODE, 0, 2, 6);
    b[1] = 0x4F;
    expect(b, 18, OFL_E_RDMAP_OPCODE, 0, 2, 6);
    b[1] = 0x40; /* untagged RDMA Write */
    expect(b, 18, OFL_E_RDMAP_OPCODE, 0, 2, 6);
    b[1] = 0x42; /* untagged Read Response */
    expect(b, 18, OFL_E_RDMAP_OPCODE, 0, 2, 6);
    w[0] = 0xC1;
    w[1] = 0x43; /* tagged Send */
    expect(w, 14, OFL_E_RDMAP_OPCODE, 0, 2, 6);
    b[1] = 0x43;
    /* Wrong queue: 1/2/01. */
    ofl_store_be32(b + 6, 1);
    expect(b, 18, OFL_E_DDP_QN, 1, 2, 1);
    ofl_store_be32(b + 6, 0xFFFFFFFFu);
    expect(b, 18, OFL_E_DDP_QN, 1, 2, 1);
    ofl_store_be32(b + 6, 0);
    /* Multi-segment Sends may have L clear and MO > 0. */
    b[0] &= (uint8_t)~0x40;
    ofl_store_be32(b + 14, 4096);
    CHECK_OK(ofl_rdmap_parse(b, 18, &m, NULL));
    CHECK_EQ(m.ddp.mo, 4096);
    CHECK(!m.ddp.last);

    /* Read Request: queue 1, one segment, exactly 28 bytes. */
    m = untagged(OFL_RDMAP_READ_REQ, 1, 1);
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_OK(ofl_rdmap_parse(b, len, &m, NULL));
    expect(b, len - 1, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    expect(b, len + 1, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    ofl_store_be32(b + 6, 0);
    expect(b, len, OFL_E_DDP_QN, 1, 2, 1);
    ofl_store_be32(b + 6, 1);
    b[0] &= (uint8_t)~0x40;
    expect(b, len, OFL_E_RDMAP_LAST, 0, 2, 7);
    b[0] |= 0x40;
    ofl_store_be32(b + 14, 1);
    expect(b, len, OFL_E_DDP_MO, 1, 2, 4);
    ofl_store_be32(b + 14, 0);

    /* Immediate Data: 8 bytes. */
    m = untagged(OFL_RDMAP_IMM, 0, 1);
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_EQ(len, 26);
    expect(b, 25, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    expect(b, 27, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    ofl_store_be32(b + 6, 2);
    expect(b, 26, OFL_E_DDP_QN, 1, 2, 1);

    /* Atomics. */
    m = untagged(OFL_RDMAP_ATOMIC_REQ, 3, 1);
    m.u.atomic_req.op = OFL_RDMAP_SWAP;
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_EQ(len, 70);
    CHECK_OK(ofl_rdmap_parse(b, len, &m, NULL));
    CHECK_EQ(m.u.atomic_req.op, OFL_RDMAP_SWAP);
    b[18] = 0xFF; /* reserved bits of the first word */
    b[21] = 0xF2;
    CHECK_OK(ofl_rdmap_parse(b, len, &m, NULL));
    CHECK_EQ(m.u.atomic_req.op, OFL_RDMAP_CMP_SWAP);
    b[21] = 0x03;
    expect(b, len, OFL_E_RDMAP_ATOMIC_OP, 0, 2, 6);
    b[21] = 0x00;
    expect(b, len - 1, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    ofl_store_be32(b + 6, 4);
    expect(b, len, OFL_E_DDP_QN, 1, 2, 1);
    m = untagged(OFL_RDMAP_ATOMIC_RESP, 4, 1);
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_EQ(len, 30);
    expect(b, 31, OFL_E_RDMAP_LENGTH, 0, 2, 7);
    ofl_store_be32(b + 6, 3);
    expect(b, 30, OFL_E_DDP_QN, 1, 2, 1);

    /* Builder applies the same rules. */
    m = untagged(OFL_RDMAP_READ_REQ, 0, 1);
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_DDP_QN);
    m = untagged(OFL_RDMAP_READ_REQ, 1, 1);
    m.ddp.last = 0;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_LAST);
    m.ddp.last = 1;
    m.ddp.mo = 4;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_DDP_MO);
    m = untagged(OFL_RDMAP_SEND, 0, 1);
    m.ddp.tagged = 1;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_OPCODE);
    m = untagged(0xC, 0, 1);
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_OPCODE);
    m = untagged(OFL_RDMAP_ATOMIC_REQ, 3, 1);
    m.u.atomic_req.op = 3;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_ATOMIC_OP);
    m = untagged(OFL_RDMAP_READ_REQ, 1, 1);
    CHECK_ERR(ofl_rdmap_build(&m, b, 45, &len), OFL_E_SIZE);
    CHECK_OK(ofl_rdmap_build(&m, b, 46, &len));
    CHECK_ERR(ofl_rdmap_build(NULL, b, 46, &len), OFL_E_ARG);
    CHECK_ERR(ofl_rdmap_build(&m, NULL, 46, &len), OFL_E_ARG);
    CHECK_ERR(ofl_rdmap_build(&m, b, 46, NULL), OFL_E_ARG);
}

static void test_terminate(void)
{
    struct ofl_rdmap_msg m, back, bad;
    struct ofl_term_cause c;
    uint8_t b[128], seg[64];
    size_t len, slen;
    int hdrct;

    /* The offending segment: an RDMA Read Request. */
    bad = untagged(OFL_RDMAP_READ_REQ, 1, 5);
    bad.u.read_req.src_stag = 0xDEAD;
    CHECK_OK(ofl_rdmap_build(&bad, seg, sizeof(seg), &slen));

    /* Every Hdrct combination round-trips. */
    for (hdrct = 0; hdrct < 8; hdrct++) {
        m = untagged(OFL_RDMAP_TERMINATE, 2, 1);
        m.u.term.cause.layer = 0;
        m.u.term.cause.etype = 1;
        m.u.term.cause.ecode = 2;
        m.u.term.hdrct = (uint8_t)hdrct;
        m.u.term.seg_len = (hdrct & OFL_RDMAP_HDRCT_M) ? (uint16_t)slen : 0;
        if (hdrct & OFL_RDMAP_HDRCT_D) {
            memcpy(m.u.term.ddp_hdr, seg, 18);
            m.u.term.ddp_hdr_len = 18;
        }
        if (hdrct & OFL_RDMAP_HDRCT_R)
            memcpy(m.u.term.rdmap_hdr, seg + 18, 28);
        CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
        CHECK_EQ(len, 18 + 4 + ((hdrct & 6) ? 2 : 0) + ((hdrct & 2) ? 18 : 0) +
                          ((hdrct & 1) ? 28 : 0));
        CHECK_EQ(ofl_load_be32(b + 18),
                 (0u << 28) | (1u << 24) | (2u << 16) |
                     ((hdrct & 4) ? 0x8000u : 0) | ((hdrct & 2) ? 0x4000u : 0) |
                     ((hdrct & 1) ? 0x2000u : 0));
        CHECK_OK(ofl_rdmap_parse(b, len, &back, NULL));
        CHECK(memcmp(&back.u.term, &m.u.term, sizeof(m.u.term)) == 0);
        /* One byte more or less is malformed. */
        expect(b, len - 1, OFL_E_RDMAP_TERM, 0, 2, 7);
        b[len] = 0;
        expect(b, len + 1, OFL_E_RDMAP_TERM, 0, 2, 7);
    }
    /* D without M: the DDP Segment Length field is there but not valid;
     * it reads as 0 and is rebuilt as 0. */
    m = untagged(OFL_RDMAP_TERMINATE, 2, 1);
    m.u.term.hdrct = OFL_RDMAP_HDRCT_D;
    memcpy(m.u.term.ddp_hdr, seg, 18);
    m.u.term.ddp_hdr_len = 18;
    m.u.term.seg_len = 77;
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_EQ(ofl_load_be16(b + 22), 0);
    b[23] = 0x55;
    CHECK_OK(ofl_rdmap_parse(b, len, &back, NULL));
    CHECK_EQ(back.u.term.seg_len, 0);
    /* A tagged terminated header is 14 bytes. */
    m = untagged(OFL_RDMAP_TERMINATE, 2, 1);
    m.u.term.hdrct = OFL_RDMAP_HDRCT_D;
    m.u.term.ddp_hdr[0] = 0xC1;
    m.u.term.ddp_hdr_len = 14;
    CHECK_OK(ofl_rdmap_build(&m, b, sizeof(b), &len));
    CHECK_EQ(len, 18 + 4 + 2 + 14);
    CHECK_OK(ofl_rdmap_parse(b, len, &back, NULL));
    CHECK_EQ(back.u.term.ddp_hdr_len, 14);
    expect(b, 18 + 4 + 2, OFL_E_RDMAP_TERM, 0, 2, 7);
    expect(b, 18 + 3, OFL_E_RDMAP_TERM, 0, 2, 7);
    /* Builder: D with a length that contradicts the header's T bit. */
    m.u.term.ddp_hdr_len = 18;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_TERM);
    m.u.term.ddp_hdr_len = 14;
    m.u.term.hdrct = 8;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_TERM);
    m.u.term.hdrct = 0;
    m.u.term.cause.layer = 0x10;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_TERM);
    m.u.term.cause.layer = 0;
    m.u.term.cause.etype = 0x10;
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_RDMAP_TERM);
    m = untagged(OFL_RDMAP_TERMINATE, 0, 1);
    CHECK_ERR(ofl_rdmap_build(&m, b, sizeof(b), &len), OFL_E_DDP_QN);

    /* term_fill: what RFC 5040 §4.8 asks to copy, per layer. */
    c.layer = 0;
    c.etype = 1;
    c.ecode = 0;
    ofl_rdmap_term_fill(&m.u.term, c, seg, slen);
    CHECK_EQ(m.u.term.hdrct, OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D |
                                 OFL_RDMAP_HDRCT_R);
    CHECK_EQ(m.u.term.seg_len, slen);
    CHECK_EQ(m.u.term.ddp_hdr_len, 18);
    CHECK(memcmp(m.u.term.rdmap_hdr, seg + 18, 28) == 0);
    ofl_rdmap_term_fill(&m.u.term, c, seg, 40); /* no whole Read header */
    CHECK_EQ(m.u.term.hdrct, OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D);
    ofl_rdmap_term_fill(&m.u.term, c, seg, 17); /* no whole DDP header */
    CHECK_EQ(m.u.term.hdrct, 0);
    c.layer = 1;
    c.etype = 1;
    {
        struct ofl_rdmap_msg wr = tagged(OFL_RDMAP_WRITE, 5, 6);
        uint8_t ws[20];
        size_t wl;

        CHECK_OK(ofl_rdmap_build(&wr, ws, sizeof(ws), &wl));
        ofl_rdmap_term_fill(&m.u.term, c, ws, 20);
        CHECK_EQ(m.u.term.hdrct, OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D);
        CHECK_EQ(m.u.term.ddp_hdr_len, 14);
        CHECK_EQ(m.u.term.seg_len, 20);
    }
    c.layer = 2; /* MPA: no headers */
    c.etype = 0;
    c.ecode = 2;
    ofl_rdmap_term_fill(&m.u.term, c, seg, slen);
    CHECK_EQ(m.u.term.hdrct, 0);
    CHECK_CAUSE(m.u.term.cause, 2, 0, 2);
    c.layer = 0; /* RDMAP local catastrophic: no headers */
    c.etype = 0;
    ofl_rdmap_term_fill(&m.u.term, c, seg, slen);
    CHECK_EQ(m.u.term.hdrct, 0);
    ofl_rdmap_term_fill(&m.u.term, c, NULL, 0);
    ofl_rdmap_term_fill(NULL, c, seg, slen);
    /* A buffer of no bytes: the cause alone, no headers. */
    c.layer = 1;
    c.etype = 2;
    c.ecode = 1;
    m.u.term.hdrct = 7;
    ofl_rdmap_term_fill(&m.u.term, c, seg, 0);
    CHECK_EQ(m.u.term.hdrct, 0);
    CHECK_EQ(m.u.term.ddp_hdr_len, 0);
    CHECK_EQ(m.u.term.seg_len, 0);
    CHECK_CAUSE(m.u.term.cause, 1, 2, 1);
    /* The DDP Segment Length field is 16 bits (RFC 5040 §4.8): a longer
     * segment reports 0xFFFF, never its length modulo 2^16. */
    {
        static uint8_t big[70000];
        struct ofl_rdmap_msg snd = untagged(OFL_RDMAP_SEND, 0, 3);
        size_t bl;

        CHECK_OK(ofl_rdmap_build(&snd, big, sizeof(big), &bl));
        ofl_rdmap_term_fill(&m.u.term, c, big, 0xFFFF);
        CHECK_EQ(m.u.term.seg_len, 0xFFFF);
        CHECK_EQ(m.u.term.hdrct, OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D);
        ofl_rdmap_term_fill(&m.u.term, c, big, 0x10000);
        CHECK_EQ(m.u.term.seg_len, 0xFFFF);
        ofl_rdmap_term_fill(&m.u.term, c, big, sizeof(big));
        CHECK_EQ(m.u.term.seg_len, 0xFFFF);
        CHECK_EQ(m.u.term.hdrct, OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D);
        CHECK_EQ(m.u.term.ddp_hdr_len, 18);
        CHECK(memcmp(m.u.term.ddp_hdr, big, 18) == 0);
        CHECK_CAUSE(m.u.term.cause, 1, 2, 1);
    }
}

static void test_cause_table(void)
{
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_KEY, false), 2, 0, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_REV, false), 2, 0, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_PD_LEN, false), 2, 0, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_ENHANCED, false), 2, 0, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_REJECTED, false), 2, 0, 1);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_IRD, false), 2, 0, 6);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_RTR, false), 2, 0, 7);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_CRC, false), 2, 0, 2);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_MARKER, false), 2, 0, 3);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_MPA_TOO_LONG, false), 1, 0, 0);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_SHORT, true), 1, 0, 0);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_VERSION, true), 1, 1, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_VERSION, false), 1, 2, 6);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_QN, false), 1, 2, 1);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_MSN_NO_BUFFER, false), 1, 2, 2);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_MSN_RANGE, false), 1, 2, 3);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_MO, false), 1, 2, 4);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_DDP_TOO_LONG, false), 1, 2, 5);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_VERSION, false), 0, 2, 5);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_OPCODE, false), 0, 2, 6);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_ATOMIC_OP, false), 0, 2, 6);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_LENGTH, false), 0, 2, 7);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_LAST, false), 0, 2, 7);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_RDMAP_TERM, false), 0, 2, 7);
    CHECK_CAUSE(ofl_wire_term_cause(OFL_E_ARG, false), 0, 0, 0);
}

static void test_msn_mo(void)
{
    CHECK_OK(ofl_ddp_msn_check(10, 3, 10));
    CHECK_OK(ofl_ddp_msn_check(10, 3, 12));
    CHECK_ERR(ofl_ddp_msn_check(10, 3, 13), OFL_E_DDP_MSN_NO_BUFFER);
    CHECK_ERR(ofl_ddp_msn_check(10, 3, 10 + 0x7FFFFFFFu),
              OFL_E_DDP_MSN_NO_BUFFER);
    CHECK_ERR(ofl_ddp_msn_check(10, 3, 10 + 0x80000000u),
              OFL_E_DDP_MSN_RANGE);
    CHECK_ERR(ofl_ddp_msn_check(10, 3, 9), OFL_E_DDP_MSN_RANGE);
    CHECK_ERR(ofl_ddp_msn_check(10, 0, 10), OFL_E_DDP_MSN_NO_BUFFER);
    CHECK_OK(ofl_ddp_msn_check(0xFFFFFFFFu, 2, 0)); /* MSN wraps */
    CHECK_ERR(ofl_ddp_msn_check(0xFFFFFFFFu, 2, 0xFFFFFFFEu),
              OFL_E_DDP_MSN_RANGE);

    CHECK_OK(ofl_ddp_untagged_check(0, 100, 100));
    CHECK_OK(ofl_ddp_untagged_check(100, 0, 100));
    CHECK_ERR(ofl_ddp_untagged_check(101, 0, 100), OFL_E_DDP_MO);
    CHECK_ERR(ofl_ddp_untagged_check(50, 51, 100), OFL_E_DDP_TOO_LONG);
    CHECK_ERR(ofl_ddp_untagged_check(99, 0xFFFFFFFFu, 100),
              OFL_E_DDP_TOO_LONG);
}

static void test_segmenter(void)
{
    struct ofl_ddp_seg sg;
    struct ofl_ddp_hdr first, h;
    uint32_t off, len, n = 0, total = 0;

    memset(&first, 0, sizeof(first));
    first.opcode = OFL_RDMAP_SEND_SE;
    first.qn = 0;
    first.msn = 42;
    first.mo = 99; /* ignored: the first segment is at MO 0 */
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 10000, 1454));
    while (ofl_ddp_seg_next(&sg, &h, &off, &len)) {
        CHECK_EQ(h.mo, off);
        CHECK_EQ(off, total);
        CHECK_EQ(h.msn, 42);
        CHECK(len <= 1454 - 18);
        CHECK_EQ(h.last, off + len == 10000);
        total += len;
        n++;
    }
    CHECK_EQ(total, 10000);
    CHECK_EQ(n, 7); /* ceil(10000 / 1436) */
    CHECK(!ofl_ddp_seg_next(&sg, &h, &off, &len));

    memset(&first, 0, sizeof(first));
    first.tagged = 1;
    first.opcode = OFL_RDMAP_WRITE;
    first.stag = 7;
    first.to = 0x1000;
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 3000, 1014));
    CHECK(ofl_ddp_seg_next(&sg, &h, &off, &len));
    CHECK_EQ(h.to, 0x1000);
    CHECK_EQ(len, 1000);
    CHECK(!h.last);
    CHECK(ofl_ddp_seg_next(&sg, &h, &off, &len));
    CHECK_EQ(h.to, 0x1000 + 1000);
    CHECK(ofl_ddp_seg_next(&sg, &h, &off, &len));
    CHECK_EQ(h.to, 0x1000 + 2000);
    CHECK(h.last);
    CHECK(!ofl_ddp_seg_next(&sg, &h, &off, &len));
    /* Zero-length message: one segment with L. */
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 0, 1014));
    CHECK(ofl_ddp_seg_next(&sg, &h, &off, &len));
    CHECK(h.last);
    CHECK_EQ(len, 0);
    CHECK(!ofl_ddp_seg_next(&sg, &h, &off, &len));
    /* Refusals. */
    CHECK_ERR(ofl_ddp_seg_init(&sg, &first, 3000, 14), OFL_E_ARG);
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 3000, 15));
    first.to = ~0ull - 2998;
    CHECK_ERR(ofl_ddp_seg_init(&sg, &first, 3000, 1014), OFL_E_ARG);
    first.to = ~0ull - 2999;
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 3000, 1014));
    first.opcode = OFL_RDMAP_READ_REQ;
    CHECK_ERR(ofl_ddp_seg_init(&sg, &first, 3000, 1014), OFL_E_ARG);
    first.opcode = OFL_RDMAP_SEND;
    CHECK_ERR(ofl_ddp_seg_init(&sg, &first, 3000, 1014), OFL_E_ARG);
    first.opcode = 0xE;
    CHECK_ERR(ofl_ddp_seg_init(&sg, &first, 3000, 1014), OFL_E_ARG);
    CHECK_ERR(ofl_ddp_seg_init(NULL, &first, 3000, 1014), OFL_E_ARG);
    CHECK_ERR(ofl_ddp_seg_init(&sg, NULL, 3000, 1014), OFL_E_ARG);
    CHECK(!ofl_ddp_seg_next(NULL, &h, &off, &len));
    /* NULL outputs yield nothing and do not advance the segmenter. */
    first.opcode = OFL_RDMAP_WRITE;
    first.to = 0x1000;
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, 3000, 1014));
    CHECK(!ofl_ddp_seg_next(&sg, NULL, &off, &len));
    CHECK(!ofl_ddp_seg_next(&sg, &h, NULL, &len));
    CHECK(!ofl_ddp_seg_next(&sg, &h, &off, NULL));
    CHECK(ofl_ddp_seg_next(&sg, &h, &off, &len));
    CHECK_EQ(off, 0);
    CHECK_EQ(len, 1000);
    CHECK_EQ(h.to, 0x1000);
}

/* message -> segments -> FPDUs (markers, CRC) -> stream -> receiver ->
 * RDMAP parse -> reassembled message, through the posix-free core only. */
static void test_pipeline(void)
{
    static uint8_t msg[20000], got[20000], wire[40000], rbuf[2048];
    struct ofl_mpa_params p;
    struct ofl_mpa_tx tx;
    struct ofl_mpa_rx rx;
    struct ofl_ddp_seg sg;
    struct ofl_ddp_hdr first, h;
    uint32_t off, len, i, segs = 0, bad = 0;
    size_t wl = 0, pos;

    for (i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i * 31 + 7);
    memset(&p, 0, sizeof(p));
    p.crc = true;
    p.markers_tx = true;
    p.markers_rx = true;
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    memset(&first, 0, sizeof(first));
    first.opcode = OFL_RDMAP_SEND;
    first.msn = 1;
    CHECK_OK(ofl_ddp_seg_init(&sg, &first, sizeof(msg), tx.mulpdu));
    while (ofl_ddp_seg_next(&sg, &h, &off, &len)) {
        struct ofl_rdmap_msg m;
        uint8_t hb[OFL_RDMAP_HDR_MAX];
        size_t hl, fl;

        memset(&m, 0, sizeof(m));
        m.ddp = h;
        CHECK_OK(ofl_rdmap_build(&m, hb, sizeof(hb), &hl));
        CHECK_OK(ofl_mpa_fpdu_build(&tx, hb, hl, msg + off, len, wire + wl,
                                    sizeof(wire) - wl, &fl));
        CHECK(fl <= 1460);
        wl += fl;
        segs++;
    }
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, rbuf, sizeof(rbuf), NULL));
    memset(got, 0, sizeof(got));
    for (pos = 0, i = 0; pos < wl;) {
        size_t used;
        struct ofl_mpa_fpdu f;
        size_t n = 1 + (i++ * 37) % 1500;

        if (n > wl - pos)
            n = wl - pos;
        CHECK_OK(ofl_mpa_rx_feed(&rx, wire + pos, n, &used, &f));
        pos += used;
        if (f.ulpdu != NULL) {
            struct ofl_rdmap_msg m;

            if (ofl_rdmap_parse(f.ulpdu, f.len, &m, NULL) != OFL_OK ||
                m.ddp.opcode != OFL_RDMAP_SEND ||
                ofl_ddp_untagged_check(m.ddp.mo, m.payload_len,
                                       sizeof(got)) != OFL_OK) {
                bad++;
                continue;
            }
            memcpy(got + m.ddp.mo, m.payload, m.payload_len);
            segs--;
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(segs, 0);
    CHECK(memcmp(got, msg, sizeof(msg)) == 0);
}

OFL_SUITE(rdmap)
{
    test_vectors();
    test_all_opcodes();
    test_malformed();
    test_terminate();
    test_cause_table();
    test_msn_mo();
    test_segmenter();
    test_pipeline();
}
