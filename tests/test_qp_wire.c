/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp over the simulated wire with faults: reordered segments (the
 * out-of-order one-touch path of seed 000 FIG. 18B), duplicates, a
 * corrupted CRC or marker, a truncated FPDU, tiny segments, a window
 * that ends, a ULPDU too long for the receiver. */
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define BW OFL_TPT_BIND_WINDOW

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig(bool markers, bool crc, uint32_t mss)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.markers = markers;
    o.crc = crc;
    o.mss = mss;
    return qr_new(&o);
}

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + seed);
}

/* A Write of n bytes from a's src to b's (stag, to), processed by a only:
 * the bytes wait on the wire. */
static void write_out(struct qr_rig *r, const uint8_t *src, uint32_t ls,
                      uint32_t stag, uint64_t to, uint32_t n)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, (void *)src, n, ls);
    wr.remote_stag = stag;
    wr.remote_to = to;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
}

/* Reordered segments with markers: the Last FPDU of a Write to a one-touch
 * window arrives ahead of a hole, is placed at once (Table D row 5: the
 * Touched bit and the stored DDP SN), and the window is invalidated when
 * the stream lines up with it. The FPDU is not placed twice. */
static void test_reorder_one_touch(void)
{
    struct qr_rig *r = rig(true, true, 0);
    uint8_t *src = qr_alloc(&r->a, 8000, false);
    uint8_t *dst = qr_alloc(&r->b, 8000, true);
    uint32_t ls = qr_reg(&r->a, src, 8000, LR, 0);
    uint32_t reg = qr_reg(&r->b, dst, 8000, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, reg, dst, 8000, RW, OFL_TPT_F_ONE_TOUCH,
                             false);
    struct ofl_tpt_info info;

    fill(src, 8000, 1);
    write_out(r, src, ls, win, va(dst), 3000);
    r->ab.reorder = 1;
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK(r->b.qp.stats.ooo_placed >= 1);
    CHECK(r->b.qp.stats.dup_bytes == 0);
    CHECK(memcmp(dst, src, 3000) == 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID); /* lined up: deferred expiry */
    CHECK_EQ(r->b.qp.seq.pending_count, 0);
    CHECK_EQ(r->b.qp.ooo_count, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    /* the window is spent: a second Write terminates the stream */
    r->ab.reorder = 0;
    write_out(r, src, ls, win, va(dst), 10);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.term_tx.layer, 1);
    CHECK_EQ(r->b.qp.term_tx.etype, 1);
    CHECK_EQ(r->b.qp.term_tx.ecode, 0);
    qr_free(r);
}

/* Row 3 out of order: two Writes' Last FPDUs both ahead of a hole: the
 * second finds the entry touched: invalidated; the in-order stream then
 * terminates with "invalid STag". */
static void test_reorder_row3(void)
{
    struct qr_rig *r = rig(true, true, 0);
    uint8_t *src = qr_alloc(&r->a, 8000, false);
    uint8_t *dst = qr_alloc(&r->b, 8000, true);
    uint32_t ls = qr_reg(&r->a, src, 8000, LR, 0);
    uint32_t reg = qr_reg(&r->b, dst, 8000, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, reg, dst, 8000, RW, OFL_TPT_F_ONE_TOUCH,
                             false);
    struct ofl_qp_seg seg;
    struct qr_wire *w = &r->ab;
    struct ofl_tpt_info info;

    fill(src, 8000, 2);
    write_out(r, src, ls, win, va(dst), 2000);        /* two FPDUs */
    write_out(r, src, ls, win, va(dst) + 2000, 100);  /* one FPDU */
    CHECK_EQ(w->nchunk, 3);
    /* the second and third FPDUs first: both Last segments */
    memset(&seg, 0, sizeof(seg));
    seg.seq = w->seq + w->chunk[0];
    seg.data = w->buf + w->chunk[0];
    seg.len = w->chunk[2] - w->chunk[0];
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.ooo_placed, 1); /* the first; the second hit
                                              row 3 */
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID); /* row 3 invalidated it */
    /* now the whole stream in order */
    seg.seq = w->seq;
    seg.data = w->buf;
    seg.len = w->chunk[2];
    CHECK_ERR(ofl_qp_input(&r->b.qp, &seg), OFL_E_TPT_NOT_VALID);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.term_tx.layer, 1);
    CHECK_EQ(r->b.qp.term_tx.ecode, 0);
    qr_free(r);
}

/* Reordering of every framing and message kind keeps the data right. */
static void test_reorder_all(void)
{
    unsigned v;

    for (v = 0; v < 4; v++) {
        struct qr_rig *r = rig(v & 1, v & 2, 0);
        uint8_t *src = qr_alloc(&r->a, 20000, false);
        uint8_t *dst = qr_alloc(&r->b, 20000, true);
        uint8_t *rbuf = qr_alloc(&r->b, 20000, false);
        uint8_t *back = qr_alloc(&r->a, 20000, false);
        uint32_t ls = qr_reg(&r->a, src, 20000, LR, 0);
        uint32_t lb = qr_reg(&r->a, back, 20000, LW | RW, 0);
        uint32_t reg = qr_reg(&r->b, dst, 20000,
                              LW | RW | LR | OFL_TPT_REMOTE_READ, 0);
        uint32_t lr = qr_reg(&r->b, rbuf, 20000, LW, 0);
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[8];

        fill(src, 20000, 3 + v);
        r->ab.reorder = 1;
        r->ba.reorder = 1;
        write_out(r, src, ls, reg, va(dst), 20000);
        CHECK_OK(qr_post_recv(&r->b, 1, rbuf, 20000, lr));
        qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, 15000, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_wr(&wr, OFL_QP_OP_READ, 3, &sge, back, 20000, lb);
        wr.remote_stag = reg;
        wr.remote_to = va(dst);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK(memcmp(dst, src, 20000) == 0);
        CHECK(memcmp(rbuf, src, 15000) == 0);
        CHECK(memcmp(back, src, 20000) == 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 8), 3);
        CHECK_EQ(c[2].status, OFL_WC_SUCCESS);
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        if (v & 1)
            CHECK(r->b.qp.stats.ooo_placed > 0);
        else
            CHECK_EQ(r->b.qp.stats.ooo_placed, 0);
        CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
        qr_free(r);
    }
}

/* Duplicated segments, one-byte segments. */
static void test_dup_tiny(void)
{
    unsigned v;

    for (v = 0; v < 2; v++) {
        struct qr_rig *r = rig(true, true, v ? 1 : 500);
        uint8_t *src = qr_alloc(&r->a, 3000, false);
        uint8_t *dst = qr_alloc(&r->b, 3000, false);
        uint32_t ls = qr_reg(&r->a, src, 3000, LR, 0);
        uint32_t ld = qr_reg(&r->b, dst, 3000, LW | RW, 0);
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[4];

        fill(src, 3000, 9);
        r->ab.duplicate = 1;
        CHECK_OK(qr_post_recv(&r->b, 1, dst, 3000, ld));
        qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, src, 3000, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_wr(&wr, OFL_QP_OP_WRITE, 2, &sge, src, 2999, ls);
        wr.remote_stag = ld;
        wr.remote_to = va(dst) + 1;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK(memcmp(dst + 1, src, 2999) == 0);
        CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
        CHECK_EQ(c[0].byte_len, 3000);
        CHECK(r->b.qp.stats.dup_bytes > 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        qr_free(r);
    }
}

/* A flipped bit under CRC: Terminate "MPA CRC error" (RFC 5044 §8). */
static void test_crc_marker(void)
{
    struct qr_rig *r = rig(false, true, 1000);
    uint8_t *src = qr_alloc(&r->a, 3000, false);
    uint8_t *dst = qr_alloc(&r->b, 3000, false);
    uint32_t ls = qr_reg(&r->a, src, 3000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 3000, LW | RW, 0);
    struct ofl_rdmap_term t;

    write_out(r, src, ls, ld, va(dst), 3000);
    r->ab.corrupt_at = 1700;
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(qr_sent_term(r, &r->b, &t));
    CHECK_EQ(t.cause.layer, 2);
    CHECK_EQ(t.cause.etype, 0);
    CHECK_EQ(t.cause.ecode, 0x02);
    CHECK_EQ(t.hdrct, 0); /* MPA causes carry no header */
    CHECK_EQ(r->b.qp.err, OFL_E_MPA_CRC);
    qr_free(r);
    /* a corrupted marker: 2/0/03 */
    r = rig(true, false, 1000);
    src = qr_alloc(&r->a, 3000, false);
    dst = qr_alloc(&r->b, 3000, false);
    ls = qr_reg(&r->a, src, 3000, LR, 0);
    ld = qr_reg(&r->b, dst, 3000, LW | RW, 0);
    write_out(r, src, ls, ld, va(dst), 3000);
    /* the first marker after the FPDU start lies at a multiple of 512 of
     * the stream: flip a byte of its FPDUPTR */
    {
        uint32_t pos = r->ab.seq - r->b.qp.rx_base;
        uint32_t at = ((pos + 511u) & ~511u) - pos;

        if (at == 0)
            at = 512;
        r->ab.corrupt_at = at + 3;
    }
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.err, OFL_E_MPA_MARKER);
    CHECK(qr_sent_term(r, &r->b, &t));
    CHECK_EQ(t.cause.ecode, 0x03);
    qr_free(r);
}

/* A truncated FPDU: bytes missing from the middle of the stream. */
static void test_truncated(void)
{
    struct qr_rig *r = rig(false, true, 1000);
    uint8_t *src = qr_alloc(&r->a, 3000, false);
    uint8_t *dst = qr_alloc(&r->b, 3000, false);
    uint32_t ls = qr_reg(&r->a, src, 3000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 3000, LW | RW, 0);

    write_out(r, src, ls, ld, va(dst), 3000);
    r->ab.cut_at = 100;
    r->ab.cut_len = 37;
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(r->b.qp.err == OFL_E_MPA_CRC || r->b.qp.err == OFL_E_MPA_TOO_LONG);
    qr_free(r);
    /* the connection drops in the middle of an FPDU: ERROR, flushed */
    r = rig(false, true, 1000);
    src = qr_alloc(&r->a, 3000, false);
    ls = qr_reg(&r->a, src, 3000, LR, 0);
    CHECK_OK(qr_post_recv(&r->b, 1, NULL, 0, 0));
    write_out(r, src, ls, 0x100, 0, 3000);
    r->ab.len = 500; /* only part of the first FPDU arrives */
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_OK(ofl_qp_llp_event(&r->b.qp, true));
    CHECK_EQ(r->b.qp.state, OFL_QP_ERROR);
    {
        struct ofl_cqe c[2];

        CHECK_EQ(qr_poll(&r->b, false, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
    }
    qr_free(r);
}

/* A ULPDU longer than the receive buffer: 1/0/00 (ofl_wire_term_cause). */
static void test_too_long(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    uint8_t *src, *dst;
    uint32_t ls, ld;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.rx_cap = 200;
    r = qr_new(&o);
    src = qr_alloc(&r->a, 3000, false);
    dst = qr_alloc(&r->b, 3000, false);
    ls = qr_reg(&r->a, src, 3000, LR, 0);
    ld = qr_reg(&r->b, dst, 3000, LW | RW, 0);
    write_out(r, src, ls, ld, va(dst), 1000);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.err, OFL_E_MPA_TOO_LONG);
    CHECK_EQ(r->b.qp.term_tx.layer, 1);
    CHECK_EQ(r->b.qp.term_tx.etype, 0);
    qr_free(r);
}

/* Segments outside the window are dropped; so is everything ahead of a
 * hole without markers. */
static void test_window(void)
{
    struct qr_rig *r = rig(false, true, 1000);
    struct ofl_qp_seg seg;
    uint8_t junk[16] = {0};
    uint32_t nxt = r->b.qp.seq.nxt;

    memset(&seg, 0, sizeof(seg));
    seg.data = junk;
    seg.len = sizeof(junk);
    seg.seq = nxt + (1u << 20); /* beyond RCV.WND */
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    seg.seq = nxt + 100; /* ahead of a hole, no markers */
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    seg.seq = nxt - 16; /* all of it behind RCV.NXT */
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.seq.nxt, nxt);
    CHECK_EQ(r->b.qp.stats.dup_bytes, 16);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    qr_free(r);
}

OFL_SUITE(qp_wire)
{
    test_reorder_one_touch();
    test_reorder_row3();
    test_reorder_all();
    test_dup_tiny();
    test_crc_marker();
    test_truncated();
    test_too_long();
    test_window();
}
