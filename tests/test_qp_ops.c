/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: every work request kind end to end between two engines, byte for
 * byte, under every framing (markers, CRC), with rings in caller and in
 * host memory; ordering, signalling, ORD, fences. */
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define RA OFL_TPT_REMOTE_ATOMIC
#define BW OFL_TPT_BIND_WINDOW
#define ALL (LR | LW | RR | RW | RA | BW)

static void pattern(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i, x = seed * 2654435761u + 1;

    for (i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (uint8_t)(x >> 24);
    }
}

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig_of(unsigned variant)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.markers = (variant & 1) != 0;
    o.crc = (variant & 2) != 0;
    o.host_rings = (variant & 4) != 0;
    o.sq_reg = 1;
    return qr_new(&o);
}

/* Sends of several sizes and data segments, with and without SE. */
static void test_send(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *src = qr_alloc(&r->a, 20000, false);
    uint8_t *dst = qr_alloc(&r->b, 20000, false);
    uint32_t ls = qr_reg(&r->a, src, 20000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 20000, LW, 0);
    static const uint32_t sizes[] = {0, 1, 63, 64, 1436, 1437, 5000, 19999};
    struct ofl_cqe c[8];
    unsigned i, bad = 0;

    CHECK(r != NULL && ls != 0 && ld != 0);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        uint32_t n = sizes[i];

        pattern(src, n, i + variant);
        memset(dst, 0xEE, 20000);
        CHECK_OK(qr_post_recv(&r->b, 100 + i, dst, 20000, ld));
        qr_wr(&wr, OFL_QP_OP_SEND, 200 + i, &sge, src, n, ls);
        if (i & 1)
            wr.flags |= OFL_QP_WR_SOLICITED;
        CHECK_OK(qr_post_send(&r->b == &r->b ? &r->a : &r->b, &wr));
        qr_pump(r, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
        CHECK_EQ(c[0].wr_id, 200 + i);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].opcode, OFL_QP_OP_SEND);
        CHECK_EQ(c[0].byte_len, n);
        CHECK_EQ(c[0].qpn, 1);
        CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
        CHECK_EQ(c[0].wr_id, 100 + i);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].opcode, OFL_QP_OP_RECV);
        CHECK_EQ(c[0].byte_len, n);
        CHECK_EQ(c[0].flags, (i & 1) ? OFL_CQE_SOLICITED : 0);
        bad += memcmp(src, dst, n) != 0 || (n < 20000 && dst[n] != 0xEE);
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    qr_free(r);
}

/* Gather from four data segments into a scatter of three. */
static void test_sge_lists(void)
{
    struct qr_rig *r = rig_of(3);
    uint8_t *src = qr_alloc(&r->a, 9000, true);
    uint8_t *dst = qr_alloc(&r->b, 12000, true);
    uint32_t ls = qr_reg(&r->a, src, 9000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 12000, LW, 0);
    struct ofl_qp_sge g[4], s[3];
    struct ofl_qp_wr wr;
    struct ofl_qp_recv_wr rw;
    struct ofl_cqe c[2];
    static uint8_t want[7000];
    static const uint32_t glen[4] = {1000, 1, 3000, 2999};
    static const uint32_t goff[4] = {8000, 4000, 10, 5000};
    static const uint32_t slen[3] = {3, 4000, 6997};
    static const uint32_t soff[3] = {11000, 0, 4003};
    uint32_t i, k = 0;

    pattern(src, 9000, 7);
    for (i = 0; i < 4; i++) {
        g[i].addr = va(src + goff[i]);
        g[i].len = glen[i];
        g[i].stag = ls;
        memcpy(want + k, src + goff[i], glen[i]);
        k += glen[i];
    }
    for (i = 0; i < 3; i++) {
        s[i].addr = va(dst + soff[i]);
        s[i].len = slen[i];
        s[i].stag = ld;
    }
    memset(&rw, 0, sizeof(rw));
    rw.wr_id = 1;
    rw.sge = s;
    rw.num_sge = 3;
    CHECK_OK(ofl_qp_post_recv(&r->b.qp, &rw));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, g, NULL, 0, 0);
    wr.sge = g;
    wr.num_sge = 4;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 2), 1);
    CHECK_EQ(c[0].byte_len, 7000);
    CHECK(memcmp(dst + 11000, want, 3) == 0);
    CHECK(memcmp(dst, want + 3, 4000) == 0);
    CHECK(memcmp(dst + 4003, want + 4003, 2997) == 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* RDMA Write (to a region and to a window), Write with Immediate. */
static void test_write(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *src = qr_alloc(&r->a, 10000, false);
    uint8_t *dst = qr_alloc(&r->b, 12000, false);
    uint32_t ls = qr_reg(&r->a, src, 10000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 12000, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, ld, dst + 1000, 10000, RW, 0, false);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    pattern(src, 10000, variant);
    /* region, multi-segment */
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 10000, ls);
    wr.remote_stag = ld;
    wr.remote_to = va(dst + 5);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_WRITE);
    CHECK_EQ(c[0].byte_len, 10000);
    CHECK(memcmp(dst + 5, src, 10000) == 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 0); /* no completion at the sink */
    /* window, then Write with Immediate: the sink's receive completes */
    memset(dst, 0, 12000);
    CHECK_OK(qr_post_recv(&r->b, 77, NULL, 0, 0));
    qr_wr(&wr, OFL_QP_OP_WRITE_IMM, 2, &sge, src, 3000, ls);
    wr.remote_stag = win;
    wr.remote_to = va(dst + 1000);
    wr.imm = 0x0123456789ABCDEFull;
    wr.flags |= OFL_QP_WR_SOLICITED;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_WRITE_IMM);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(dst + 1000, src, 3000) == 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 77);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_RECV_IMM);
    CHECK_EQ(c[0].imm, 0x0123456789ABCDEFull);
    CHECK_EQ(c[0].flags, OFL_CQE_IMM | OFL_CQE_SOLICITED);
    CHECK_EQ(c[0].byte_len, 0);
    /* zero-length Write (an RTR): nothing checked, nothing placed */
    qr_wr(&wr, OFL_QP_OP_WRITE, 3, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    qr_free(r);
}

/* RDMA Read: multi-segment responses, zero length, ORD, ordering. */
static void test_read(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *src = qr_alloc(&r->b, 16000, false);
    uint8_t *dst = qr_alloc(&r->a, 16000, false);
    uint32_t lsrc = qr_reg(&r->b, src, 16000, LR | RR | BW, 0);
    uint32_t win = qr_window(&r->b, lsrc, src, 16000, RR, 0, true);
    uint32_t ld = qr_reg(&r->a, dst, 16000, LW | RW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[16];
    unsigned i;

    pattern(src, 16000, 3 + variant);
    CHECK(win != 0);
    /* six Reads of 2000 bytes with ORD 4, and a Send behind them that
     * must complete after them (in-order completion) */
    for (i = 0; i < 6; i++) {
        qr_wr(&wr, OFL_QP_OP_READ, 10 + i, &sge, dst + i * 2000, 2000, ld);
        wr.remote_stag = win;
        wr.remote_to = va(src + i * 2000);
        CHECK_OK(qr_post_send(&r->a, &wr));
    }
    CHECK_OK(qr_post_recv(&r->b, 1, NULL, 0, 0));
    qr_wr(&wr, OFL_QP_OP_SEND, 20, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.ord_count, 4); /* ORD held the rest back */
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 16), 7);
    for (i = 0; i < 6; i++) {
        CHECK_EQ(c[i].wr_id, 10 + i);
        CHECK_EQ(c[i].opcode, OFL_QP_OP_READ);
        CHECK_EQ(c[i].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[i].byte_len, 2000);
    }
    CHECK_EQ(c[6].wr_id, 20);
    CHECK(memcmp(dst, src, 12000) == 0);
    /* zero-length Read (RFC 6581 RTR): no sink, no source */
    qr_wr(&wr, OFL_QP_OP_READ, 30, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 16), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 0);
    /* a large Read over many pieces */
    memset(dst, 0, 16000);
    qr_wr(&wr, OFL_QP_OP_READ, 31, &sge, dst + 3, 15990, ld);
    wr.remote_stag = lsrc; /* a region with remote read */
    wr.remote_to = va(src + 7);
    CHECK_OK(ofl_tpt_dealloc(&r->b.tpt, win, 7));
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 16), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(dst + 3, src + 7, 15990) == 0);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    qr_free(r);
}

/* RFC 7306 atomics: Fetch and Add (plain and masked), Compare and Swap
 * (hit, miss, masked). The word is little-endian in memory. */
static void test_atomics(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *word = qr_alloc(&r->b, 64, false);
    uint8_t *res = qr_alloc(&r->a, 64, false);
    uint32_t lw = qr_reg(&r->b, word, 64, LW | LR | RA | BW, 0);
    uint32_t aw = qr_window(&r->b, lw, word, 64, RA, 0, false);
    uint32_t lr = qr_reg(&r->a, res, 64, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    struct {
        uint8_t op;
        uint64_t init, a0, a1, a2, a3, after;
    } cases[] = {
        {OFL_QP_OP_ATOMIC_FADD, 40, 2, 0, 0, 0, 42},
        {OFL_QP_OP_ATOMIC_FADD, 0xFFFFFFFFFFFFFFFFull, 1, 0, 0, 0, 0},
        /* masked: two 32-bit fields, no carry between them */
        {OFL_QP_OP_ATOMIC_FADD, 0x00000001FFFFFFFFull, 0x0000000100000001ull,
         0x0000000080000000ull, 0, 0, 0x0000000200000000ull},
        {OFL_QP_OP_ATOMIC_CSWAP, 7, 9, ~0ull, 7, ~0ull, 9},
        {OFL_QP_OP_ATOMIC_CSWAP, 7, 9, ~0ull, 8, ~0ull, 7},
        /* masked compare (low byte only) and masked swap (high half) */
        {OFL_QP_OP_ATOMIC_CSWAP, 0x1111111122222233ull, 0xAAAAAAAA00000000ull,
         0xFFFFFFFF00000000ull, 0x33, 0xFF, 0xAAAAAAAA22222233ull},
    };
    unsigned i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t got;
        unsigned k;

        for (k = 0; k < 8; k++)
            word[8 + k] = (uint8_t)(cases[i].init >> (8 * k));
        qr_wr(&wr, cases[i].op, i, &sge, res, 8, lr);
        wr.remote_stag = (i & 1) ? lw : aw;
        wr.remote_to = va(word + 8);
        wr.atomic[0] = cases[i].a0;
        wr.atomic[1] = cases[i].a1;
        wr.atomic[2] = cases[i].a2;
        wr.atomic[3] = cases[i].a3;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].opcode, cases[i].op);
        got = 0;
        for (k = 0; k < 8; k++)
            got |= (uint64_t)word[8 + k] << (8 * k);
        CHECK_EQ(got, cases[i].after);
        got = 0;
        for (k = 0; k < 8; k++)
            got |= (uint64_t)res[k] << (8 * k);
        CHECK_EQ(got, cases[i].init); /* the original value came back */
    }
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* a one-shot window is spent by an executed Compare and Swap, even
     * one that did not match (it read the word: the key was used) */
    {
        uint32_t one = qr_window(&r->b, lw, word, 64, RA, OFL_TPT_F_ONE_SHOT,
                                 false);
        struct ofl_tpt_info info;

        word[8] = 7;
        qr_wr(&wr, OFL_QP_OP_ATOMIC_CSWAP, 50, &sge, res, 8, lr);
        wr.remote_stag = one;
        wr.remote_to = va(word + 8);
        wr.atomic[0] = 9;
        wr.atomic[1] = ~0ull;
        wr.atomic[2] = 8; /* compare: no match */
        wr.atomic[3] = ~0ull;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(word[8], 7);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, one, &info));
        CHECK_EQ(info.state, OFL_TPT_INVALID);
    }
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    qr_free(r);
}

/* The registration part of a REG_SEND: the two pages at ATT 900 as buf's
 * 8 KiB, local and remote write. */
static void reg_two_pages(struct ofl_qp_wr *wr, const uint8_t *buf)
{
    wr->reg.va = va(buf);
    wr->reg.len = 8192;
    wr->reg.att_base = 900;
    wr->reg.att_count = 2;
    wr->reg.page_shift = 12;
    wr->reg.access = LW | RW;
}

/* Send with Invalidate (RFC 5040 §6.10; seed 000 claims 1, 10, 11) and the
 * combined register-and-send: a registers a buffer through its SQ, sends
 * its STag, b writes into it and sends with invalidate: a's STag dies. */
static void test_reg_send_invalidate(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *buf = qr_alloc(&r->a, 8192, true);
    uint8_t *msg = qr_alloc(&r->a, 64, false);
    uint8_t *bsrc = qr_alloc(&r->b, 8192, false);
    uint8_t *bin = qr_alloc(&r->b, 64, false);
    uint32_t lmsg = qr_reg(&r->a, msg, 64, LR | LW, 0);
    uint32_t lbs = qr_reg(&r->b, bsrc, 8192, LR, 0);
    uint32_t lbin = qr_reg(&r->b, bin, 64, LW, 0);
    uint32_t fr = 0, out = 0, peer_stag;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;
    uint64_t page = ofl_sim_pa(buf);

    /* an allocated region STag; its first registration uses alloc's key */
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &fr));
    CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 900, (uint64_t[]){page | 1,
                                                           (page + 4096) | 1},
                               2));
    qr_wr(&wr, OFL_QP_OP_REG_SEND, 1, &sge, msg, 4, lmsg);
    wr.stag = fr;
    reg_two_pages(&wr, buf);
    wr.reg.flags = OFL_TPT_F_INVALIDATABLE;
    ofl_store_be32(msg, fr);
    CHECK_OK(qr_post_recv(&r->b, 5, bin, 64, lbin));
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
    CHECK_EQ(out, fr);
    if (r->a.qp.sq.host)
        CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, r->a.qp.sq.pi));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_REG_SEND);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].stag, fr);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    peer_stag = ofl_load_be32(bin);
    CHECK_EQ(peer_stag, fr);
    /* b writes into the advertised buffer, then Send with Invalidate */
    pattern(bsrc, 8192, 11);
    qr_wr(&wr, OFL_QP_OP_WRITE, 2, &sge, bsrc, 8192, lbs);
    wr.remote_stag = peer_stag;
    wr.remote_to = va(buf);
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_post_recv(&r->a, 6, msg, 64, lmsg));
    qr_wr(&wr, OFL_QP_OP_SEND_INV, 3, &sge, bsrc, 16, lbs);
    wr.stag = peer_stag;
    CHECK_OK(qr_post_send(&r->b, &wr));
    qr_pump(r, 0);
    CHECK(memcmp(buf, bsrc, 8192) == 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 6);
    CHECK_EQ(c[0].flags, OFL_CQE_INV);
    CHECK_EQ(c[0].stag, fr);
    CHECK_EQ(c[0].byte_len, 16);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, fr, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID); /* remote deregistration */
    CHECK_EQ(qr_poll(&r->b, true, c, 4), 2);
    CHECK_EQ(c[1].opcode, OFL_QP_OP_SEND_INV);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* a REG_SEND whose registration fails (an STag never allocated): it
     * completes with the TPT's status, option 1 moves the QP to SQD and
     * its Send does not go (seed 000 FIG. 11, option 1) */
    CHECK_OK(qr_post_recv(&r->b, 7, bin, 64, lbin));
    qr_wr(&wr, OFL_QP_OP_REG_SEND, 4, &sge, msg, 4, lmsg);
    wr.stag = 0x7705;
    reg_two_pages(&wr, buf);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 4);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_REG_SEND);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(r->a.qp.state, OFL_QP_SQD);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 0); /* nothing sent */
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    qr_free(r);
}

/* Fast register with physical buffers (FIG. 11), used at once by the next
 * WQE; Local Invalidate; Bind of a type 2 window through the SQ, used by
 * the peer, then unbound. */
static void test_fast_reg_bind(unsigned variant)
{
    struct qr_rig *r = rig_of(variant);
    uint8_t *buf = qr_alloc(&r->a, 3 * 4096, true);
    uint8_t *dst = qr_alloc(&r->b, 8192, false);
    uint8_t *wbuf = qr_alloc(&r->a, 4096, true);
    uint8_t *bsrc = qr_alloc(&r->b, 4096, false);
    uint32_t ld = qr_reg(&r->b, dst, 8192, LW, 0);
    uint32_t lwb = qr_reg(&r->a, wbuf, 4096, LW | LR | BW, 0);
    uint32_t lbs = qr_reg(&r->b, bsrc, 4096, LR, 0);
    uint32_t fr = 0, mw = 0, bound;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge, phys[2];
    struct ofl_cqe c[8];
    struct ofl_tpt_info info;

    pattern(buf, 3 * 4096, 5);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &fr));
    /* two physical buffers: the first from mid-page, the second whole */
    phys[0].addr = ofl_sim_pa(buf + 100);
    phys[0].len = 4096 - 100;
    phys[1].addr = ofl_sim_pa(buf + 4096);
    phys[1].len = 4096 + 50;
    qr_wr(&wr, OFL_QP_OP_FAST_REG, 1, &sge, NULL, 0, 0);
    wr.sge = phys;
    wr.num_sge = 2;
    wr.stag = fr;
    wr.reg.va = 0x100000;
    wr.reg.att_base = 800;
    wr.reg.page_shift = 12;
    wr.reg.access = LR;
    wr.reg.flags = OFL_TPT_F_INVALIDATABLE;
    CHECK_OK(qr_post_send(&r->a, &wr));
    /* the very next WQE uses the STag (FIG. 11 "at once") */
    CHECK_OK(qr_post_recv(&r->b, 9, dst, 8192, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, NULL, 0, 0);
    sge.addr = 0x100000 + 10;
    sge.len = 8000;
    sge.stag = fr;
    wr.sge = &sge;
    wr.num_sge = 1;
    CHECK_OK(qr_post_send(&r->a, &wr));
    /* then invalidate it */
    qr_wr(&wr, OFL_QP_OP_LOCAL_INV, 3, &sge, NULL, 0, 0);
    wr.stag = fr;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 3);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_FAST_REG);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].stag, fr);
    CHECK_EQ(c[1].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[2].opcode, OFL_QP_OP_LOCAL_INV);
    CHECK_EQ(c[2].status, OFL_WC_SUCCESS);
    CHECK(memcmp(dst, buf + 110, 8000) == 0);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, fr, &info));
    CHECK_EQ(info.len, 4096 - 100 + 4096 + 50);
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    /* Bind a type 2 window through the SQ; the CQE names the STag. */
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_WINDOW, 7, OFL_TPT_F_TYPE2, &mw));
    qr_wr(&wr, OFL_QP_OP_BIND, 4, &sge, NULL, 0, 0);
    wr.stag = mw;
    wr.bind.region_stag = lwb;
    wr.bind.va = va(wbuf + 96);
    wr.bind.len = 1000;
    wr.bind.access = RW;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_BIND);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    bound = c[0].stag;
    CHECK_EQ(ofl_stag_index(bound), ofl_stag_index(mw));
    CHECK(bound != mw); /* a new key at every bind of a type 2 window */
    pattern(bsrc, 1000, 9);
    qr_wr(&wr, OFL_QP_OP_WRITE, 5, &sge, bsrc, 1000, lbs);
    wr.remote_stag = bound;
    wr.remote_to = va(wbuf + 96);
    CHECK_OK(qr_post_send(&r->b, &wr));
    qr_pump(r, 0);
    CHECK(memcmp(wbuf + 96, bsrc, 1000) == 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* A bind the TPT refuses (the region lacks bind rights): MW_BIND_ERR,
     * the send queue stops (SQE). */
    qr_wr(&wr, OFL_QP_OP_BIND, 6, &sge, NULL, 0, 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_WINDOW, 7, 0, &mw));
    wr.stag = mw;
    wr.bind.region_stag = fr; /* invalidated above */
    wr.bind.va = 0x100000;
    wr.bind.len = 10;
    wr.bind.access = RW;
    CHECK_OK(qr_post_send(&r->a, &wr));
    wr.bind.flags = 0x80; /* and one with bad flags: flushed behind it */
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 2);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    /* SQE -> RTS: the bad-flags bind now runs and fails as MW_BIND_ERR */
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
    wr.bind.region_stag = lwb;
    wr.bind.va = va(wbuf);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_MW_BIND_ERR);
    qr_free(r);
}

/* Unsignalled WQEs, fences, Delay. */
static void test_signal_fence_delay(void)
{
    struct qr_rig *r = rig_of(0);
    uint8_t *src = qr_alloc(&r->b, 4096, false);
    uint8_t *dst = qr_alloc(&r->a, 4096, false);
    uint32_t lsrc = qr_reg(&r->b, src, 4096, LR | RR, 0);
    uint32_t ld = qr_reg(&r->a, dst, 4096, LW | RW | LR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];

    /* unsignalled Sends: no CQE; a signalled one after them: one CQE */
    CHECK_OK(qr_post_recv(&r->b, 1, NULL, 0, 0));
    CHECK_OK(qr_post_recv(&r->b, 2, NULL, 0, 0));
    CHECK_OK(qr_post_recv(&r->b, 3, NULL, 0, 0));
    qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, NULL, 0, 0);
    wr.flags = 0;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_post_send(&r->a, &wr));
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.wr_id = 3;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 3);
    CHECK_EQ(ofl_qp_sq_outstanding(&r->a.qp), 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 3);
    /* a fenced Send waits for the Read before it */
    pattern(src, 4096, 1);
    qr_wr(&wr, OFL_QP_OP_READ, 4, &sge, dst, 4096, ld);
    wr.remote_stag = lsrc;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_post_recv(&r->b, 5, NULL, 0, 0));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, NULL, 0, 0);
    wr.flags |= OFL_QP_WR_FENCE;
    CHECK_OK(qr_post_send(&r->a, &wr));
    {
        uint64_t before = r->a.qp.stats.tx_fpdus;

        CHECK_OK(qr_process(&r->a, 0));
        CHECK_EQ(r->a.qp.stats.tx_fpdus, before + 1); /* the Read only */
    }
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 4);
    CHECK_EQ(c[1].wr_id, 5);
    CHECK(memcmp(dst, src, 4096) == 0);
    /* Delay holds the WQEs behind it until `now` reaches its end */
    qr_wr(&wr, OFL_QP_OP_DELAY, 6, &sge, NULL, 0, 0);
    wr.imm = 100;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_post_recv(&r->b, 7, NULL, 0, 0));
    qr_wr(&wr, OFL_QP_OP_SEND, 7, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 1000);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    qr_pump(r, 1099);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    qr_pump(r, 1100);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 2);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_DELAY);
    CHECK_EQ(c[1].wr_id, 7);
    /* a Delay that would pass 2^64 ends at the last tick */
    qr_wr(&wr, OFL_QP_OP_DELAY, 8, &sge, NULL, 0, 0);
    wr.imm = ~0ull;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 5);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    qr_pump(r, ~0ull);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    qr_free(r);
}

OFL_SUITE(qp_ops)
{
    unsigned v;

    for (v = 0; v < 8; v++) {
        test_send(v);
        test_write(v);
        test_read(v);
        test_atomics(v);
        test_reg_send_invalidate(v);
        test_fast_reg_bind(v);
    }
    test_sge_lists();
    test_signal_fence_delay();
}
