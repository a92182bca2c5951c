/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * qp: inbound edges a review of the receive path found (2026-11-22): a
 * one-shot key spent by the Read or Atomic it served (seed 001), an FPDU
 * that TCP cuts inside its pad or CRC (its DDP SN is still NEXT when it is
 * handled, and an invalidation deferred to it waits for its re-check:
 * seed 000 FIG. 18B Table D, offload.h "Sequence space"), and an
 * out-of-order placement that fails leaving the entry untouched; and a
 * Send's start sent again with Last set while the Send is being received.
 */
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define BW OFL_TPT_BIND_WINDOW

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig_crc(bool markers, bool crc)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.markers = markers;
    o.crc = crc;
    return qr_new(&o);
}

/* Hands stream bytes [from, to) of a's wire (not yet delivered) to b. */
static enum ofl_err feed(struct qr_rig *r, uint32_t from, uint32_t to)
{
    struct ofl_qp_seg seg;

    memset(&seg, 0, sizeof(seg));
    seg.seq = r->ab.seq + from;
    seg.data = r->ab.buf + from;
    seg.len = to - from;
    return ofl_qp_input(&r->b.qp, &seg);
}

/* Hands b the one FPDU on a's wire in two TCP segments, the second the
 * last 2 bytes of its CRC, and empties the wire. */
static void feed_cut_crc(struct qr_rig *r)
{
    uint32_t len = r->ab.len;

    CHECK_EQ(r->ab.nchunk, 1);
    CHECK_OK(feed(r, 0, len - 2));
    CHECK_OK(feed(r, len - 2, len));
    r->ab.seq += len;
    r->ab.len = 0;
    r->ab.nchunk = 0;
}

/*
 * An in-order RDMA Write (single FPDU, Last) to a one-touch window whose
 * FPDU is split by TCP inside its pad/CRC: the last ULPDU byte arrives
 * in one segment, the rest of the CRC in the next. RCV.NXT has passed
 * the DDP SN when the FPDU completes, yet the FPDU is still the NEXT one:
 * placed, and the window spent (row 4). (Taken as row 6, the Write was
 * dropped silently with the window still valid.)
 */
static void test_split_crc_one_touch(bool markers)
{
    struct qr_rig *r = rig_crc(markers, true);
    uint8_t *src = qr_alloc(&r->a, 256, false);
    uint8_t *dst = qr_alloc(&r->b, 4096, true);
    uint32_t ls = qr_reg(&r->a, src, 256, LR, 0);
    uint32_t reg = qr_reg(&r->b, dst, 4096, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, reg, dst, 4096, RW, OFL_TPT_F_ONE_TOUCH,
                             false);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_tpt_info info;

    memset(src, 0xAB, 256);
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 100, ls);
    wr.remote_stag = win;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    feed_cut_crc(r);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(dst[0], 0xAB);   /* placed */
    CHECK_EQ(dst[99], 0xAB);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID); /* row 4: the touch is spent */
    qr_free(r);
}


/*
 * A one-shot window (seed 001: "as soon as the RKey is used for a RDMA
 * operation, the translation for the RKey is disabled"; offload.h
 * OFL_TPT_F_ONE_SHOT "invalid after first use") used as the source of
 * inbound RDMA Read Requests: the first Read is served, and the key
 * is then spent, and the second Read is refused (Terminate 0/1/00).
 */
static void test_one_shot_read_source(void)
{
    struct qr_rig *r = rig_crc(false, true);
    uint8_t *src = qr_alloc(&r->b, 4096, true);
    uint8_t *dst = qr_alloc(&r->a, 4096, false);
    uint32_t reg = qr_reg(&r->b, src, 4096, LR | RR | BW, 0);
    uint32_t win = qr_window(&r->b, reg, src, 4096, RR, OFL_TPT_F_ONE_SHOT,
                             false);
    uint32_t ld = qr_reg(&r->a, dst, 4096, LW | RW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_tpt_info info;
    struct ofl_cqe c[4];
    int k;

    memset(src, 0x5C, 4096);
    for (k = 0; k < 2; k++) {
        qr_wr(&wr, OFL_QP_OP_READ, 50 + k, &sge, dst + k * 100, 100, ld);
        wr.remote_stag = win;
        wr.remote_to = va(src);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        if (k == 0) {
            CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
            CHECK_EQ(info.state, OFL_TPT_INVALID); /* spent by the Read */
        }
    }
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE); /* second Read refused */
    CHECK(dst[100] != 0x5C);                   /* and nothing read */
    qr_free(r);
}

/*
 * The same split-CRC delivery for the Last Read Response segment of an
 * RDMA Read whose sink is a one-touch region: the Read completes with
 * SUCCESS and its data is in the sink. (Taken as row 6, the response
 * was not placed and the Read still completed with SUCCESS.)
 */
static void test_split_crc_read_resp_one_touch(void)
{
    struct qr_rig *r = rig_crc(false, true);
    uint8_t *src = qr_alloc(&r->a, 4096, false);
    uint8_t *dst = qr_alloc(&r->b, 4096, true);
    uint32_t lsrc = qr_reg(&r->a, src, 4096, LR | RR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 4096, LW | RW, OFL_TPT_F_ONE_TOUCH);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    memset(src, 0x3C, 4096);
    qr_wr(&wr, OFL_QP_OP_READ, 60, &sge, dst, 100, ld);
    wr.remote_stag = lsrc;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_OK(qr_deliver(r, &r->b));  /* the Read Request reaches a */
    CHECK_OK(qr_process(&r->a, 0));  /* a answers: one FPDU on the wire */
    feed_cut_crc(r);
    CHECK_EQ(qr_poll(&r->b, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(dst[0], 0x3C);  /* a successful Read must have its data */
    CHECK_EQ(dst[99], 0x3C);
    qr_free(r);
}

/* The same for an RFC 7306 Atomic Request on a one-shot window: two
 *  Fetch and Adds both execute. */
static void test_one_shot_atomic_target(void)
{
    struct qr_rig *r = rig_crc(false, true);
    uint8_t *word = qr_alloc(&r->b, 64, true);
    uint8_t *res = qr_alloc(&r->a, 64, false);
    uint32_t lw = qr_reg(&r->b, word, 64, LW | LR | OFL_TPT_REMOTE_ATOMIC |
                                              BW, 0);
    uint32_t aw = qr_window(&r->b, lw, word, 64, OFL_TPT_REMOTE_ATOMIC,
                            OFL_TPT_F_ONE_SHOT, false);
    uint32_t lr = qr_reg(&r->a, res, 64, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    int k;

    for (k = 0; k < 2; k++) {
        qr_wr(&wr, OFL_QP_OP_ATOMIC_FADD, 80 + k, &sge, res + 8 * k, 8, lr);
        wr.remote_stag = aw;
        wr.remote_to = va(word);
        wr.atomic[0] = 1;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
    }
    CHECK_EQ(word[0], 1);  /* only the first use executes */
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    qr_free(r);
}

/* A 2000-byte RDMA Write from a to a one-touch window over b's dst
 * (dst_len bytes): two FPDUs on the wire, not yet delivered; the second,
 * Last, starts at *c0 and ends at *c1. */
struct ot_write {
    uint8_t *src, *dst;
    uint32_t reg, win, c0, c1;
};

static struct qr_rig *ot_write_out(struct ot_write *w, uint32_t dst_len,
                                   uint8_t fill)
{
    struct qr_rig *r = rig_crc(true, true);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t ls;

    w->src = qr_alloc(&r->a, 8000, false);
    w->dst = qr_alloc(&r->b, dst_len, true);
    ls = qr_reg(&r->a, w->src, 8000, LR, 0);
    w->reg = qr_reg(&r->b, w->dst, dst_len, LW | RW | BW, 0);
    w->win = qr_window(&r->b, w->reg, w->dst, dst_len, RW,
                       OFL_TPT_F_ONE_TOUCH, false);
    memset(w->src, fill, 8000);
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, w->src, 2000, ls);
    wr.remote_stag = w->win;
    wr.remote_to = va(w->dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->ab.nchunk, 2);
    w->c0 = r->ab.chunk[0];
    w->c1 = r->ab.chunk[1];
    return r;
}

/*
 * Same root cause, out-of-order side: the Last FPDU of a Write to a
 * one-touch window is placed ahead of a hole (row 5: Touched, the
 * invalidation deferred to its DDP SN). The stream then lines up, but
 * the in-order copy of that FPDU arrives split inside its CRC: RCV.NXT
 * passes the deferred SN in the first piece. The invalidation waits for
 * the FPDU's re-check (qp_rx_placed) and comes after it: the stream
 * stays up and the window ends spent. (Carried out at once, it made the
 * re-check terminate a legitimate stream with 1/1/00.)
 */
static void test_split_crc_ooo_recheck(void)
{
    struct ot_write w;
    struct qr_rig *r = ot_write_out(&w, 8000, 0x6D);
    struct ofl_tpt_info info;

    CHECK_OK(feed(r, w.c0, w.c1));       /* the Last FPDU, ahead */
    CHECK_EQ(r->b.qp.stats.ooo_placed, 1);
    CHECK_OK(feed(r, 0, w.c1 - 2));      /* in order, CRC cut */
    CHECK_OK(feed(r, w.c1 - 2, w.c1));
    r->ab.seq += w.c1;
    r->ab.len = 0;
    r->ab.nchunk = 0;
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK(memcmp(w.dst, w.src, 2000) == 0);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, w.win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    qr_free(r);
}

/*
 * No half-applied state ahead of a hole: a placement that fails (here a
 * page not present, seed 001 MapLocalPage) leaves the window untouched,
 * and the in-order copy (the page mapped again meanwhile) is its first,
 * legitimate use. (Row 5 recorded before the placement left it Touched,
 * and the in-order copy then hit row 3 and terminated the stream.)
 */
static void test_ooo_touch_then_fail(void)
{
    struct ot_write w;
    struct qr_rig *r = ot_write_out(&w, 8192, 0x4E);
    struct ofl_tpt_info info;

    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, w.reg, va(w.dst)));
    CHECK_OK(feed(r, w.c0, w.c1));      /* Last FPDU ahead: not placed */
    CHECK_EQ(r->b.qp.stats.ooo_placed, 0);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, w.win, &info));
    CHECK_EQ(info.flags & OFL_TPT_F_TOUCHED, 0); /* nothing happened */
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, w.reg, va(w.dst),
                              ofl_sim_pa(w.dst)));
    CHECK_OK(feed(r, 0, w.c1));         /* the stream in order */
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK(memcmp(w.dst, w.src, 2000) == 0);
    qr_free(r);
}

/* A Write FPDU of n bytes of pay to stag at to, framed at the position
 * of a's outgoing stream (markers, CRC), into out; its length. */
static uint32_t write_fpdu(struct qr_rig *r, uint32_t stag, uint64_t to,
                           bool last, const uint8_t *pay, uint32_t n,
                           uint8_t *out, uint32_t cap)
{
    struct ofl_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.last = last;
    m.ddp.opcode = OFL_RDMAP_WRITE;
    m.ddp.stag = stag;
    m.ddp.to = to;
    return qr_fpdu(&r->a, &m, pay, n, out, cap);
}

/* Hands b bytes [from, to) of buf, buf[0] being the next byte of a's
 * stream. */
static enum ofl_err feed_buf(struct qr_rig *r, const uint8_t *buf,
                             uint32_t from, uint32_t to)
{
    struct ofl_qp_seg seg;

    memset(&seg, 0, sizeof(seg));
    seg.seq = r->ab.seq + from;
    seg.data = buf + from;
    seg.len = to - from;
    return ofl_qp_input(&r->b.qp, &seg);
}

/*
 * Placed-ahead Writes are verified when the stream reaches them (issue 26
 * item 5). A Write of two FPDUs to region 0: its second, Last, FPDU is
 * placed ahead of a hole. TCP then brings, at the same sequence numbers,
 * the in-order stream of variant v:
 *   0 the same two FPDUs: taken (the bytes not placed twice), RTS
 *   1 a second FPDU of the same length and framing, but to region 1
 *   2 a second FPDU with the same header (STag, TO, Last) but 200 bytes
 *     longer
 *   3 FPDUs cut elsewhere: the stream passes the placed FPDU's first byte
 *     inside another FPDU
 * 1-3 are not the Write that was placed: Terminate 0/2/07 (RFC 5040 §7.2
 * "Catastrophic error, localized to RDMAP Stream"), OFL_E_QP_PLACED_
 * MISMATCH, and the FPDU found there is not placed.
 */
static void test_placed_ahead_verified(int v)
{
    struct qr_rig *r = rig_crc(true, true);
    uint8_t *dst0 = qr_alloc(&r->b, 8192, true);
    uint8_t *dst1 = qr_alloc(&r->b, 8192, true);
    uint32_t rs0 = qr_reg(&r->b, dst0, 8192, LW | RW, 0);
    uint32_t rs1 = qr_reg(&r->b, dst1, 8192, LW | RW, 0);
    static uint8_t pay[2400], orig[4096], alt[4096];
    struct ofl_mpa_tx saved = r->a.qp.tx;
    struct ofl_rdmap_term t;
    uint32_t l1, l2, a1, a2, i;

    for (i = 0; i < sizeof(pay); i++)
        pay[i] = (uint8_t)(i * 5 + 3);
    /* the Write as first sent */
    l1 = write_fpdu(r, rs0, va(dst0), false, pay, 1000, orig, 2048);
    l2 = write_fpdu(r, rs0, va(dst0) + 1000, true, pay + 1000, 1000,
                    orig + l1, 2048);
    CHECK(l1 != 0 && l2 != 0);
    /* the stream as TCP brings it in order, from the same position */
    r->a.qp.tx = saved;
    a1 = v == 3 ? write_fpdu(r, rs0, va(dst0), false, pay, 900, alt, 2048)
                : write_fpdu(r, rs0, va(dst0), false, pay, 1000, alt, 2048);
    switch (v) {
    case 1:
        a2 = write_fpdu(r, rs1, va(dst1) + 1000, true, pay + 1000, 1000,
                        alt + a1, 2048);
        break;
    case 2:
        a2 = write_fpdu(r, rs0, va(dst0) + 1000, true, pay + 1000, 1200,
                        alt + a1, 2048);
        break;
    case 3:
        a2 = write_fpdu(r, rs0, va(dst0) + 900, true, pay + 900, 1100,
                        alt + a1, 2048);
        break;
    default:
        a2 = write_fpdu(r, rs0, va(dst0) + 1000, true, pay + 1000, 1000,
                        alt + a1, 2048);
        break;
    }
    CHECK(a1 != 0 && a2 != 0);
    CHECK_EQ(v == 0, memcmp(orig, alt, l1 + l2) == 0 && a1 + a2 == l1 + l2);
    CHECK_EQ(a1 == l1, v != 3);
    /* the second FPDU ahead of the hole: placed */
    CHECK_OK(feed_buf(r, orig, l1, l1 + l2));
    CHECK_EQ(r->b.qp.stats.ooo_placed, 1);
    CHECK(memcmp(dst0 + 1000, pay + 1000, 1000) == 0);
    /* the stream in order */
    (void)feed_buf(r, alt, 0, a1 + a2);
    if (v == 0) {
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK(memcmp(dst0, pay, 2000) == 0);
        CHECK(!qr_sent_term(r, &r->b, &t));
    } else {
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(r->b.qp.err, OFL_E_QP_PLACED_MISMATCH);
        CHECK(qr_sent_term(r, &r->b, &t));
        CHECK_EQ(t.cause.layer, OFL_TERM_LAYER_RDMAP);
        CHECK_EQ(t.cause.etype, OFL_TERM_RDMAP_REMOTE_OPERATION);
        CHECK_EQ(t.cause.ecode, OFL_TERM_RDMAP_CATASTROPHIC_STREAM);
        for (i = 0; i < 8192; i++)
            if (dst1[i] != 0)
                break;
        CHECK_EQ(i, 8192); /* region 1 got nothing */
        if (v == 2)
            CHECK_EQ(dst0[2000], 0); /* the longer FPDU was not placed */
        if (v == 3)
            CHECK(memcmp(dst0, pay, 900) == 0); /* its first FPDU was */
    }
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/*
 * A Send whose first FPDU (MO 0, not Last) was taken, then an FPDU of the
 * same MSN at MO 0 with Last set and a shorter payload (a peer that sends
 * the message's start again): it is the same message's last segment (RFC
 * 5041 §7.2: the MSN names the message, the MO the place in its buffer),
 * placed over the first bytes, and the receive completes once, its
 * length the Last FPDU's MO plus its length (qp_rx_send), with no second
 * receive consumed. It looks like a whole Send; qp_rx_whole takes none
 * while a Send is being received, and both paths must give this.
 */
static void test_send_restarted_at_mo0(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    uint8_t *src, *dst, fpdu[40];
    uint32_t ls, ld, first, n1;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_qp_seg seg;
    struct ofl_cqe e[2];

    memset(&o, 0, sizeof(o));
    o.emss = 128; /* a 200-byte Send takes two FPDUs */
    r = qr_new(&o);
    src = qr_alloc(&r->a, 256, false);
    dst = qr_alloc(&r->b, 256, false);
    ls = qr_reg(&r->a, src, 256, LR, 0);
    ld = qr_reg(&r->b, dst, 256, LW, 0);
    memset(src, 0x11, 256);
    CHECK_OK(qr_post_recv(&r->b, 9, dst, 256, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, src, 200, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->ab.nchunk, 2);
    first = r->ab.chunk[0];
    n1 = ofl_load_be16(r->ab.buf) - OFL_DDP_UNTAGGED_HDR_LEN;
    CHECK(n1 > 10 && n1 < 200);
    CHECK_OK(feed(r, 0, first));
    CHECK_EQ(qr_poll(&r->b, false, e, 2), 0); /* not Last: no CQE yet */
    /* The forged FPDU: the first one's header with Last set, 10 bytes,
     * pad 2, CRC field (not negotiated: not checked). */
    memset(fpdu, 0, sizeof(fpdu));
    ofl_store_be16(fpdu, OFL_DDP_UNTAGGED_HDR_LEN + 10);
    memcpy(fpdu + 2, r->ab.buf + 2, OFL_DDP_UNTAGGED_HDR_LEN);
    fpdu[2] |= 0x40;
    memset(fpdu + 2 + OFL_DDP_UNTAGGED_HDR_LEN, 0x5A, 10);
    memset(&seg, 0, sizeof(seg));
    seg.seq = r->ab.seq + first;
    seg.data = fpdu;
    seg.len = 36;
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_OK(qr_post_recv(&r->b, 10, dst + 200, 56, ld));
    CHECK_EQ(qr_poll(&r->b, false, e, 2), 1);
    CHECK_EQ(e[0].wr_id, 9);
    CHECK_EQ(e[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(e[0].byte_len, 10); /* MO 0 + 10 */
    CHECK_EQ(r->b.qp.rq.ci, 1);  /* one receive consumed */
    CHECK_EQ(dst[0], 0x5A);
    CHECK_EQ(dst[9], 0x5A);
    CHECK_EQ(dst[10], 0x11);
    CHECK_EQ(dst[n1 - 1], 0x11);
    CHECK_EQ(dst[n1], 0); /* the first FPDU's end: nothing past it */
    qr_free(r);
}

OFL_SUITE(qp_rx_edges)
{
    test_send_restarted_at_mo0();
    test_split_crc_one_touch(false);
    test_split_crc_one_touch(true);
    test_one_shot_read_source();
    test_one_shot_atomic_target();
    test_split_crc_read_resp_one_touch();
    test_split_crc_ooo_recheck();
    test_ooo_touch_then_fail();
    test_placed_ahead_verified(0);
    test_placed_ahead_verified(1);
    test_placed_ahead_verified(2);
    test_placed_ahead_verified(3);
}
