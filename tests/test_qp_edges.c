/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: the edges - hostile WQEs in host memory, translations of many
 * pieces, DMA failures and refused transmissions in every answering path,
 * the ORD ring wrapping, out-of-order segments the engine must leave to
 * the in-order stream, and the rest of the iSCSI checks. */
#include <stdlib.h>
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define RA OFL_TPT_REMOTE_ATOMIC
#define BW OFL_TPT_BIND_WINDOW

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig_o(bool markers, bool host, uint16_t ord)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.markers = markers;
    o.host_rings = host;
    o.ord = ord;
    o.sq_reg = 1;
    return qr_new(&o);
}

/* The segment of w's second transmission (sent after the first: ahead of
 * a hole until the first arrives). */
static void second_chunk(const struct qr_wire *w, struct ofl_qp_seg *seg)
{
    memset(seg, 0, sizeof(*seg));
    seg->seq = w->seq + w->chunk[0];
    seg->data = w->buf + w->chunk[0];
    seg->len = w->chunk[1] - w->chunk[0];
}

/* A region over `pages` pages of the arena registered in reverse order:
 * every page a piece of its own. */
static uint32_t reg_scattered(struct qr_side *s, uint8_t *base, uint32_t pages,
                              uint8_t access)
{
    struct ofl_tpt_region_desc d;
    uint64_t list[16];
    uint32_t i, stag = 0;

    memset(&d, 0, sizeof(d));
    d.va = 0x40000000ull;
    d.len = (uint64_t)pages * 4096u;
    d.page_shift = 12;
    d.access = access;
    d.att_base = s->att_next;
    for (i = 0; i < pages; i++)
        list[i] = ofl_sim_pa(base + (pages - 1 - i) * 4096u);
    if (ofl_tpt_reg_pages(&s->tpt, 7, &d, list, pages, &stag) != OFL_OK)
        return 0;
    s->att_next += pages;
    return stag;
}

/* rig_o(false, false, 0) with an EMSS of emss (0: the default) and the
 * FPDU build buffer it needs. */
static struct qr_rig *rig_emss(uint32_t emss)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.sq_reg = 1;
    o.emss = emss;
    o.tx_cap = emss != 0 ? QR_TX_MAX : 0;
    return qr_new(&o);
}

/* Writes, Reads and their responses through translations of more pieces
 * than one step holds: the sender's gather always; with an EMSS of 32 KiB
 * an FPDU also spans 9 scattered pages at the receiver (the Write's
 * placement) and at the responder (the Read Response's source), more than
 * OFL_QP_PIECES. */
static void test_many_pieces(uint32_t emss)
{
    struct qr_rig *r = rig_emss(emss);
    uint8_t *src = qr_alloc(&r->a, 12 * 4096, true);
    uint8_t *dst = qr_alloc(&r->b, 12 * 4096, true);
    uint8_t *back = qr_alloc(&r->a, 12 * 4096, true);
    uint32_t ls = reg_scattered(&r->a, src, 12, LR);
    uint32_t ld = reg_scattered(&r->b, dst, 12, LW | RW | LR | RR);
    uint32_t lb = reg_scattered(&r->a, back, 12, LW | RW);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    uint32_t i;

    CHECK(ls && ld && lb);
    for (i = 0; i < 12 * 4096; i++)
        src[i] = (uint8_t)(i * 5 + 3);
    /* a Write of 11 pages + into 12 scattered pages, one FPDU at a time */
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, NULL, 0, 0);
    sge.addr = 0x40000000ull + 100;
    sge.len = 11 * 4096;
    sge.stag = ls;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.remote_stag = ld;
    wr.remote_to = 0x40000000ull + 300;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* the bytes as the two page orders say: src page k holds VA page
     * 11 - k; compare through the VAs */
    {
        uint32_t bad = 0, vaoff;

        for (vaoff = 0; vaoff < 11 * 4096; vaoff++) {
            uint32_t s_at = 100 + vaoff, d_at = 300 + vaoff;
            uint8_t sv = src[(11 - s_at / 4096) * 4096 + s_at % 4096];
            uint8_t dv = dst[(11 - d_at / 4096) * 4096 + d_at % 4096];

            bad += sv != dv;
        }
        CHECK_EQ(bad, 0);
    }
    /* a Read of the same: the response's source over many pieces */
    qr_wr(&wr, OFL_QP_OP_READ, 2, &sge, NULL, 0, 0);
    sge.addr = 0x40000000ull;
    sge.len = 12 * 4096;
    sge.stag = lb;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.remote_stag = ld;
    wr.remote_to = 0x40000000ull;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(back, dst, 12 * 4096) == 0); /* same page order */
    /* a Read from mid-page: with the 32 KiB EMSS its first response
     * segment spans 9 pages of the source */
    memset(back, 0, 12 * 4096);
    qr_wr(&wr, OFL_QP_OP_READ, 3, &sge, NULL, 0, 0);
    sge.addr = 0x40000000ull + 100;
    sge.len = 11 * 4096;
    sge.stag = lb;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.remote_stag = ld;
    wr.remote_to = 0x40000000ull + 100;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 11 * 4096);
    {
        uint32_t bad = 0, vaoff;

        for (vaoff = 0; vaoff < 12 * 4096; vaoff++) {
            uint32_t at = (11 - vaoff / 4096) * 4096 + vaoff % 4096;
            bool in = vaoff >= 100 && vaoff < 100 + 11 * 4096;

            bad += back[at] != (in ? dst[at] : 0);
        }
        CHECK_EQ(bad, 0);
    }
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    qr_free(r);
}

/* A FAST_REG the TPT refuses (an STag of another PD) writes no ATT slot:
 * the live region whose slot it named still maps its own page. */
static void test_fast_reg_refused_att(void)
{
    struct qr_rig *r = rig_emss(0);
    uint8_t *secret = qr_alloc(&r->a, 4096, true);
    uint8_t *victim = qr_alloc(&r->a, 4096, true);
    uint8_t *dst = qr_alloc(&r->b, 4096, true);
    uint32_t base = r->a.att_next, other = 0;
    uint32_t lv = qr_reg(&r->a, victim, 4096, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 4096, LW, 0);
    uint64_t before = r->a.att[base];
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge, ph;
    struct ofl_cqe c[8];

    memset(victim, 'V', 4096);
    memset(secret, 'S', 4096);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 99, 0, &other));
    ph.addr = ofl_sim_pa(secret);
    ph.len = 4096;
    ph.stag = 0;
    qr_wr(&wr, OFL_QP_OP_FAST_REG, 1, &sge, NULL, 0, 0);
    wr.sge = &ph;
    wr.num_sge = 1;
    wr.stag = other;
    wr.reg.va = 0x5000;
    wr.reg.att_base = base;
    wr.reg.page_shift = 12;
    wr.reg.access = LR;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(r->a.att[base], before);
    /* the victim region still sends its own bytes */
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
    CHECK_OK(qr_post_recv(&r->b, 5, dst, 4096, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, victim, 16, lv);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK(memcmp(dst, "VVVVVVVVVVVVVVVV", 16) == 0);
    qr_free(r);
}

/* WQEs the host wrote into its rings, checked again by the adapter. */
static void test_hostile_wqes(void)
{
    struct qr_rig *r = rig_o(false, true, 0);
    uint8_t *buf = qr_alloc(&r->b, 64, false);
    uint32_t lb = qr_reg(&r->b, buf, 64, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint8_t *slot;

    /* a send WQE whose opcode was changed after posting */
    qr_wr(&wr, OFL_QP_OP_DELAY, 1, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    r->a.sq_ring[0] = 0xEE;
    /* one whose segment lengths add up past 2^31 */
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, buf, 16, 0);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
    qr_process(&r->a, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_QP_OP_ERR);
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
    {
        struct ofl_qp_sge two[2];

        two[0].addr = two[1].addr = va(buf);
        two[0].len = 0x40000000u;
        two[1].len = 0x3FFFFFFFu;
        two[0].stag = two[1].stag = lb;
        qr_wr(&wr, OFL_QP_OP_SEND, 3, &sge, NULL, 0, 0);
        wr.sge = two;
        wr.num_sge = 2;
        CHECK_OK(qr_post_send(&r->a, &wr));
        slot = r->a.sq_ring + (r->a.qp.sq.pi - 1) * 256;
        ofl_store_le32(slot + 80 + 16 + 8, 0x40000001u); /* now >= 2^31 */
    }
    qr_process(&r->a, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 3);
    CHECK_EQ(c[0].status, OFL_WC_LOC_QP_OP_ERR);
    /* a receive WQE claiming more segments than the queue allows */
    CHECK_OK(qr_post_recv(&r->b, 4, buf, 64, lb));
    r->b.rq_ring[8] = 9;
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.err, OFL_E_QP_WQE);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_QP_OP_ERR);
    qr_free(r);
    /* a receive WQE whose segments add up past 2^31 */
    r = rig_o(false, true, 0);
    buf = qr_alloc(&r->b, 64, false);
    lb = qr_reg(&r->b, buf, 64, LW, 0);
    CHECK_OK(qr_post_recv(&r->b, 4, buf, 64, lb));
    ofl_store_le32(r->b.rq_ring + 16 + 8, 0x80000000u);
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(r->b.qp.err, OFL_E_QP_WQE);
    qr_free(r);
    /* a DMA failure reading a send WQE's segments */
    r = rig_o(false, true, 0);
    buf = qr_alloc(&r->a, 64, false);
    lb = qr_reg(&r->a, buf, 64, LR, 0);
    qr_wr(&wr, OFL_QP_OP_SEND, 6, &sge, buf, 8, lb);
    CHECK_OK(qr_post_send(&r->a, &wr));
    r->a.sim.fail_dma_countdown = 2; /* the header, then the segment */
    qr_process(&r->a, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_QP_OP_ERR);
    qr_free(r);
    /* the receive WQE being filled when the QP goes to ERROR is flushed
     * first, with the wr_id the adapter fetched, whatever its ring slot
     * says by then; the WQE behind it with the slot's */
    r = rig_o(false, true, 0);
    buf = qr_alloc(&r->b, 4096, false);
    lb = qr_reg(&r->b, buf, 4096, LW, 0);
    {
        uint8_t *src = qr_alloc(&r->a, 4096, false);
        uint32_t ls = qr_reg(&r->a, src, 4096, LR, 0);

        qr_wr(&wr, OFL_QP_OP_SEND, 7, &sge, src, 3000, ls);
    }
    CHECK_OK(qr_post_recv(&r->b, 11, buf, 4096, lb));
    CHECK_OK(qr_post_recv(&r->b, 12, buf, 4096, lb));
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1)); /* the first FPDU only */
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK_EQ(r->b.qp.rcur.active, 1);
    ofl_store_le64(r->b.rq_ring, 0xBAD); /* the slot's wr_id, rewritten */
    CHECK_OK(ofl_qp_modify(&r->b.qp, OFL_QP_ERROR));
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 11);
    CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
    CHECK_EQ(c[1].wr_id, 12);
    CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
    qr_free(r);
}

/* The outstanding-request ring wraps; a Read sink that fails FIG. 15. */
static void test_ord(void)
{
    struct qr_rig *r = rig_o(false, false, 2);
    uint8_t *src = qr_alloc(&r->b, 64, false);
    uint8_t *dst = qr_alloc(&r->a, 256, false);
    uint32_t lsrc = qr_reg(&r->b, src, 64, LR | RR, 0);
    uint32_t ld = qr_reg(&r->a, dst, 256, LW | RW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    unsigned i, got = 0;

    memset(src, 0x33, 64);
    for (i = 0; i < 5; i++) {
        qr_wr(&wr, OFL_QP_OP_READ, i, &sge, dst + 40 * i, 40, ld);
        wr.remote_stag = lsrc;
        wr.remote_to = va(src);
        CHECK_OK(qr_post_send(&r->a, &wr));
    }
    /* one request, one response at a time: the ring wraps */
    for (i = 0; i < 20; i++) {
        CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1));
        (void)qr_deliver(r, &r->a);
        CHECK_OK(ofl_qp_process(&r->b.qp, 0, 1));
        (void)qr_deliver(r, &r->b);
        got += qr_poll(&r->a, true, c, 8);
    }
    CHECK_EQ(got, 5);
    CHECK_EQ(dst[199], 0x33);
    /* a request posted while one is outstanding in the ring's last slot:
     * its slot wraps to the start; the responses still find their WQEs
     * in order (RFC 5040 §5.3) */
    memset(dst, 0, 256);
    for (i = 0; i < 3; i++) {
        qr_wr(&wr, OFL_QP_OP_READ, 20 + i, &sge, dst + 50 * i, 10 + i, ld);
        wr.remote_stag = lsrc;
        wr.remote_to = va(src);
        CHECK_OK(qr_post_send(&r->a, &wr));
    }
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.ord_count, 2); /* ORD 2 */
    (void)qr_deliver(r, &r->a);
    CHECK_OK(ofl_qp_process(&r->b.qp, 0, 1)); /* one response */
    (void)qr_deliver(r, &r->b);
    CHECK_EQ(r->a.qp.ord_count, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.ord_count, 2); /* the oldest in the last slot */
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 3);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(c[i].wr_id, 20 + i);
        CHECK_EQ(c[i].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[i].byte_len, 10 + i);
    }
    CHECK_EQ(dst[50 + 10], 0x33);
    CHECK_EQ(dst[50 + 11], 0);
    CHECK_EQ(dst[100 + 11], 0x33);
    CHECK_EQ(dst[100 + 12], 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* a Read whose sink segment fails its local checks: SQE */
    qr_wr(&wr, OFL_QP_OP_READ, 9, &sge, dst, 40, ld + 1);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    qr_free(r);
}

/* Phys buffer rules of FAST_REG (FIG. 11) and of the ATT room. */
static void test_phys(void)
{
    struct qr_rig *r = rig_o(false, false, 0);
    uint8_t *buf = qr_alloc(&r->a, 12 * 4096, true);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge, ph[3];
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;
    uint32_t fr = 0, k;
    static const struct {
        uint64_t off0, len0, off1, len1;
        uint8_t shift;
        uint32_t att_base;
        uint8_t status;
    } cases[] = {
        {0, 4096, 4096, 9 * 4096, 12, 700, OFL_WC_SUCCESS}, /* 10 pages */
        {0, 4000, 4096, 4096, 12, 700, OFL_WC_LOC_QP_OP_ERR}, /* ends early */
        {0, 4096, 4100, 4096, 12, 700, OFL_WC_LOC_QP_OP_ERR}, /* starts late */
        {0, 0, 4096, 4096, 12, 700, OFL_WC_LOC_QP_OP_ERR},  /* empty */
        {0, 4096, 4096, 4096, 11, 700, OFL_WC_LOC_QP_OP_ERR}, /* page size */
        {0, 4096, 4096, 4096, 12, QR_ATT - 1, 0xFF}, /* no ATT room */
    };

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &fr));
        ph[0].addr = ofl_sim_pa(buf) + cases[k].off0;
        ph[0].len = (uint32_t)cases[k].len0;
        ph[1].addr = ofl_sim_pa(buf) + cases[k].off1;
        ph[1].len = (uint32_t)cases[k].len1;
        qr_wr(&wr, OFL_QP_OP_FAST_REG, k, &sge, NULL, 0, 0);
        wr.sge = ph;
        wr.num_sge = 2;
        wr.stag = fr;
        wr.reg.va = 0x5000;
        wr.reg.att_base = cases[k].att_base;
        wr.reg.page_shift = cases[k].shift;
        wr.reg.access = LR;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
        if (cases[k].status == 0xFF)
            CHECK(c[0].status != OFL_WC_SUCCESS);
        else
            CHECK_EQ(c[0].status, cases[k].status);
        if (k == 0) {
            CHECK_OK(ofl_tpt_query(&r->a.tpt, fr, &info));
            CHECK_EQ(info.len, 10 * 4096);
        } else {
            /* option 1: SQD; back to RTS for the next case */
            CHECK_EQ(r->a.qp.state, OFL_QP_SQD);
            CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
        }
    }
    qr_free(r);
}

/* Answering paths hit by DMA failures and refused transmissions. */
static void test_answer_failures(void)
{
    struct qr_rig *r;
    uint8_t *src, *dst, *w, *res;
    uint32_t lsrc, ld, lw, lres;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    /* DMA failure reading a Read Response's source: 0/0/00 */
    r = rig_o(false, false, 0);
    src = qr_alloc(&r->b, 64, false);
    dst = qr_alloc(&r->a, 64, false);
    lsrc = qr_reg(&r->b, src, 64, LR | RR, 0);
    ld = qr_reg(&r->a, dst, 64, LW | RW, 0);
    qr_wr(&wr, OFL_QP_OP_READ, 1, &sge, dst, 64, ld);
    wr.remote_stag = lsrc;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    (void)qr_deliver(r, &r->a);
    r->b.sim.fail_dma_countdown = 1;
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_PORT_DMA);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.term_tx.etype, 0);
    qr_free(r);
    /* refused transmissions of a Read Response and an Atomic Response */
    r = rig_o(false, false, 0);
    src = qr_alloc(&r->b, 64, false);
    dst = qr_alloc(&r->a, 64, false);
    w = qr_alloc(&r->b, 8, false);
    res = qr_alloc(&r->a, 8, false);
    lsrc = qr_reg(&r->b, src, 64, LR | RR, 0);
    ld = qr_reg(&r->a, dst, 64, LW | RW, 0);
    lw = qr_reg(&r->b, w, 8, LW | RA, 0);
    lres = qr_reg(&r->a, res, 8, LW, 0);
    qr_wr(&wr, OFL_QP_OP_READ, 1, &sge, dst, 64, ld);
    wr.remote_stag = lsrc;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_wr(&wr, OFL_QP_OP_ATOMIC_FADD, 2, &sge, res, 8, lres);
    wr.remote_stag = lw;
    wr.remote_to = va(w);
    wr.atomic[0] = 1;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    (void)qr_deliver(r, &r->a);
    r->b.refuse = 1;
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->b.qp.irq_count, 2);
    CHECK_OK(ofl_qp_process(&r->b.qp, 0, 1)); /* the Read Response */
    r->b.refuse = 1;
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->b.qp.irq_count, 1);
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 2);
    CHECK_EQ(w[0], 1);
    /* an Atomic Response whose result buffer cannot be written */
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    (void)qr_deliver(r, &r->a);
    CHECK_OK(qr_process(&r->b, 0));
    r->a.sim.fail_dma_countdown = 1;
    (void)qr_deliver(r, &r->b);
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    qr_free(r);
    /* a Send whose placement DMA fails: 0/0/00, the receive LOC_ACCESS */
    r = rig_o(false, false, 0);
    dst = qr_alloc(&r->b, 64, false);
    ld = qr_reg(&r->b, dst, 64, LW, 0);
    CHECK_OK(qr_post_recv(&r->b, 7, dst, 64, ld));
    src = qr_alloc(&r->a, 64, false);
    lsrc = qr_reg(&r->a, src, 64, LR, 0);
    qr_wr(&wr, OFL_QP_OP_SEND, 3, &sge, src, 10, lsrc);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    r->b.sim.fail_dma_countdown = 1;
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    qr_free(r);
    /* Immediate Data without a receive: 1/2/02 */
    r = rig_o(false, false, 0);
    qr_wr(&wr, OFL_QP_OP_WRITE_IMM, 4, &sge, NULL, 0, 0);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.err, OFL_E_DDP_MSN_NO_BUFFER);
    qr_free(r);
    /* CLOSING: the close request refused once, then taken */
    r = rig_o(false, false, 0);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_CLOSING));
    r->a.refuse = 1;
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.close_sent, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.close_sent, 1);
    qr_free(r);
}

/* Responses and requests at the edges of their queues. */
static void test_queue_edges(void)
{
    struct qr_rig *r;
    struct ofl_rdmap_msg m;
    static uint8_t f[4096];
    uint32_t len;
    uint8_t *res, *dst;
    uint32_t lres, ld;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    /* a Read Response while the oldest request is an Atomic: 0/2/06 */
    r = rig_o(false, false, 0);
    res = qr_alloc(&r->b, 8, false);
    lres = qr_reg(&r->b, res, 8, LW, 0);
    qr_wr(&wr, OFL_QP_OP_ATOMIC_FADD, 1, &sge, res, 8, lres);
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_process(&r->b, 0));
    r->ba.len = 0;
    r->ba.nchunk = 0;
    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.last = 1;
    m.ddp.opcode = OFL_RDMAP_READ_RESP;
    len = qr_fpdu(&r->a, &m, f, 4, f + 1024, 3000);
    qr_inject(&r->a, f + 1024, len);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.err, OFL_E_QP_UNEXPECTED);
    qr_free(r);
    /* a Read Response segment longer than what is still expected */
    r = rig_o(false, false, 0);
    dst = qr_alloc(&r->b, 64, false);
    ld = qr_reg(&r->b, dst, 64, LW | RW, 0);
    qr_wr(&wr, OFL_QP_OP_READ, 1, &sge, dst, 8, ld);
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_process(&r->b, 0));
    r->ba.len = 0;
    r->ba.nchunk = 0;
    m.ddp.last = 0;
    m.ddp.stag = ld;
    m.ddp.to = va(dst);
    len = qr_fpdu(&r->a, &m, f, 9, f + 1024, 3000);
    qr_inject(&r->a, f + 1024, len);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.err, OFL_E_QP_RESP_MISMATCH);
    qr_free(r);
    /* a Read Request whose MSN skips one while slots are free: 1/2/03 */
    r = rig_o(false, false, 0);
    memset(&m, 0, sizeof(m));
    m.ddp.opcode = OFL_RDMAP_READ_REQ;
    m.ddp.last = 1;
    m.ddp.qn = 1;
    m.ddp.msn = 2;
    len = qr_fpdu(&r->a, &m, NULL, 0, f, sizeof(f));
    qr_inject(&r->a, f, len);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.err, OFL_E_DDP_MSN_RANGE);
    qr_free(r);
    /* a Terminate with nothing in flight: ERROR, nothing but flushes */
    r = rig_o(false, false, 0);
    CHECK_OK(qr_post_recv(&r->b, 1, NULL, 0, 0));
    memset(&m, 0, sizeof(m));
    m.ddp.opcode = OFL_RDMAP_TERMINATE;
    m.ddp.last = 1;
    m.ddp.qn = 2;
    m.ddp.msn = 1;
    m.u.term.cause.layer = 2;
    m.u.term.cause.ecode = 1;
    len = qr_fpdu(&r->a, &m, NULL, 0, f, sizeof(f));
    qr_inject(&r->a, f, len);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->b.qp.term_rx.layer, 2);
    qr_free(r);
    /* a touched one-touch entry hit in order: Table D row 3 */
    r = rig_o(false, false, 0);
    dst = qr_alloc(&r->b, 64, false);
    ld = qr_reg(&r->b, dst, 64, LW | RW | BW, 0);
    {
        uint32_t win = qr_window(&r->b, ld, dst, 64, RW, OFL_TPT_F_ONE_TOUCH,
                                 false);
        uint8_t *src = qr_alloc(&r->a, 8, false);
        uint32_t ls = qr_reg(&r->a, src, 8, LR, 0);
        struct ofl_tpt_info info;

        CHECK_OK(ofl_tpt_set_touched(&r->b.tpt, win, 5));
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 8, ls);
        wr.remote_stag = win;
        wr.remote_to = va(dst);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(r->b.qp.term_tx.layer, 1);
        CHECK_EQ(r->b.qp.term_tx.ecode, 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_INVALID);
    }
    qr_free(r);
}

/* Out-of-order segments the engine leaves to the in-order stream. */
static void test_ooo_edges(void)
{
    struct qr_rig *r = rig_o(true, false, 0);
    uint8_t *src = qr_alloc(&r->a, 40000, false);
    uint8_t *dst = qr_alloc(&r->b, 40000, true);
    uint8_t *rb = qr_alloc(&r->b, 4096, false);
    uint32_t ls = qr_reg(&r->a, src, 40000, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 40000, LW | RW, 0);
    uint32_t lr = qr_reg(&r->b, rb, 4096, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_qp_seg seg;
    struct qr_wire *w = &r->ab;
    uint32_t i;

    for (i = 0; i < 40000; i++)
        src[i] = (uint8_t)i;
    /* many Write FPDUs ahead of a hole: more than the list holds; a Send,
     * a zero-length Write and a Write to a bad STag among them */
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 40000, ls);
    wr.remote_stag = ld;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_post_recv(&r->b, 1, rb, 4096, lr));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, 100, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_wr(&wr, OFL_QP_OP_WRITE, 3, &sge, NULL, 0, 0);
    wr.remote_stag = ld;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK(w->nchunk > 10);
    memset(&seg, 0, sizeof(seg));
    for (i = 1; i < w->nchunk; i++) { /* each FPDU its own segment */
        seg.seq = w->seq + w->chunk[i - 1];
        seg.data = w->buf + w->chunk[i - 1];
        seg.len = w->chunk[i] - w->chunk[i - 1];
        CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    }
    CHECK_EQ(r->b.qp.ooo_count, QR_OOO); /* the list filled up */
    /* the same segments again: nothing placed twice */
    second_chunk(w, &seg);
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO);
    /* now everything in order, overlapping what came (a partial dup) */
    seg.seq = w->seq;
    seg.data = w->buf;
    seg.len = w->chunk[0] + 10;
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    seg.seq = w->seq + w->chunk[0];
    seg.data = w->buf + w->chunk[0];
    seg.len = w->len - w->chunk[0];
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.dup_bytes, 10);
    CHECK(memcmp(dst, src, 40000) == 0);
    CHECK(memcmp(rb, src, 100) == 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.ooo_count, 0);
    w->seq += w->len;
    w->len = 0;
    w->nchunk = 0;
    /* the same FPDU ahead of the hole twice, the list not full: placed
     * once, the second copy known by its first SN (offload.h "Sequence
     * space": not placed twice) */
    memset(dst, 0, 40000);
    qr_wr(&wr, OFL_QP_OP_WRITE, 5, &sge, src + 7, 3000, ls);
    wr.remote_stag = ld;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK(w->nchunk >= 2);
    second_chunk(w, &seg);
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO + 1);
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO + 1);
    CHECK_EQ(r->b.qp.ooo_count, 1);
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK(memcmp(dst, src + 7, 3000) == 0);
    CHECK_EQ(r->b.qp.ooo_count, 0);
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO + 1);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* an FPDU ahead of the hole whose placement DMA fails: not listed as
     * placed, so the in-order stream places it */
    memset(dst, 0, 40000);
    qr_wr(&wr, OFL_QP_OP_WRITE, 6, &sge, src + 9, 3000, ls);
    wr.remote_stag = ld;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    second_chunk(w, &seg);
    r->b.sim.fail_dma_countdown = 1;
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO + 1);
    CHECK_EQ(r->b.qp.ooo_count, 0);
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK(memcmp(dst, src + 9, 3000) == 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* a Write to an STag b lacks, ahead of a hole: skipped; a segment
     * whose marker lies: skipped; in order the Write terminates */
    qr_wr(&wr, OFL_QP_OP_WRITE, 4, &sge, src, 3000, ls);
    wr.remote_stag = 0x7700;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    seg.seq = w->seq + w->chunk[0];
    seg.data = w->buf + w->chunk[0];
    seg.len = w->len - w->chunk[0];
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    {
        static uint8_t bad[4096];

        memcpy(bad, seg.data, seg.len);
        for (i = 0; i < seg.len; i++)
            if (((seg.seq + i - r->b.qp.rx_base) & 511u) == 0 &&
                i + 3 < seg.len)
                bad[i + 3] ^= 0x40;
        seg.data = bad;
        CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
    }
    CHECK_EQ(r->b.qp.stats.ooo_placed, QR_OOO + 1);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    qr_free(r);
}

/* ---- a QP's life ends: nothing of it carries over -------------------------- */

/* Both sides RESET and establish again on the same wires. */
static int reconnect(struct qr_rig *r)
{
    r->ab.len = r->ba.len = 0;
    r->ab.nchunk = r->ba.nchunk = 0;
    r->ab.closed = r->ba.closed = r->ab.aborted = r->ba.aborted = 0;
    if (ofl_qp_modify(&r->a.qp, OFL_QP_RESET) != OFL_OK ||
        ofl_qp_modify(&r->b.qp, OFL_QP_RESET) != OFL_OK ||
        ofl_qp_modify(&r->a.qp, OFL_QP_INIT) != OFL_OK ||
        ofl_qp_modify(&r->b.qp, OFL_QP_INIT) != OFL_OK)
        return -1;
    if (ofl_qp_establish(&r->a.qp, &r->pa, 1460, r->ba.seq, 1u << 20) !=
            OFL_OK ||
        ofl_qp_establish(&r->b.qp, &r->pb, 1460, r->ab.seq, 1u << 20) !=
            OFL_OK)
        return -2;
    return 0;
}

/* A doorbell in a state that takes no WQE (a late one after RESET) is
 * refused: the WQEs of the previous life never run, and the new life's
 * ring accounting stays whole. */
static void test_doorbell_states(void)
{
    struct qr_rig *r;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint32_t i;

    r = rig_o(false, true, 0);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 3; i++) {
        qr_wr(&wr, OFL_QP_OP_DELAY, 0x100 + i, &sge, NULL, 0, 0);
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL)); /* no doorbell */
    }
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RESET));
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 3), OFL_E_QP_STATE);
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_RQ, 1), OFL_E_QP_STATE);
    CHECK_EQ(r->a.qp.sq.db_pi, 0);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_INIT));
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 3), OFL_E_QP_STATE);
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_RQ, 0)); /* INIT: RQ */
    CHECK_OK(ofl_qp_establish(&r->a.qp, &r->pa, 1460, r->ba.seq, 1u << 20));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0); /* nothing of the old life */
    qr_wr(&wr, OFL_QP_OP_DELAY, 0x200, &sge, NULL, 0, 0);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 1)); /* RTS */
    CHECK_EQ(ofl_qp_sq_outstanding(&r->a.qp), 1);
    qr_free(r);
}

/*
 * OFL_QP_WR_SILENT: work the port posts for itself (the Linux driver's
 * zero-length Write and its Local Invalidate behind a Read) never puts
 * a CQE its consumer did not post into the consumer's CQ. k 0, flushed
 * before they ran (read back from the ring: qp_sq_flush_one): of a silent
 * and a plain unsignaled Send, a silent and a plain signaled one, only
 * the two plain ones complete, flushed. k 1, a Local Invalidate of an
 * STag that names nothing, which fails: the plain one completes with
 * its error, the silent one does not; the QP goes to SQE either way.
 * k 2, successes: a silent signaled Send completes as any signaled one,
 * a silent unsignaled one does not. Every slot returns to the host.
 */
static void test_silent_wqe(void)
{
    int k, silent;

    for (k = 0; k < 3; k++) {
        for (silent = 0; silent < 2; silent++) {
            struct qr_rig *r = rig_o(false, false, 0);
            uint8_t *src = qr_alloc(&r->a, 64, false);
            uint8_t *dst = qr_alloc(&r->b, 256, true);
            uint32_t ls = qr_reg(&r->a, src, 64, LR, 0);
            uint32_t ld = qr_reg(&r->b, dst, 256, LW, 0);
            const uint8_t f = silent ? OFL_QP_WR_SILENT : 0;
            struct ofl_qp_wr wr;
            struct ofl_qp_sge sge;
            struct ofl_cqe c[8];
            uint32_t n;

            CHECK(ls != 0 && ld != 0);
            if (k == 0) {
                qr_wr(&wr, OFL_QP_OP_SEND, 0x101, &sge, src, 16, ls);
                wr.flags = OFL_QP_WR_SILENT;
                CHECK_OK(qr_post_send(&r->a, &wr));
                qr_wr(&wr, OFL_QP_OP_SEND, 0x102, &sge, src, 16, ls);
                wr.flags = 0;
                CHECK_OK(qr_post_send(&r->a, &wr));
                qr_wr(&wr, OFL_QP_OP_SEND, 0x103, &sge, src, 16, ls);
                wr.flags = OFL_QP_WR_SIGNALED | OFL_QP_WR_SILENT;
                CHECK_OK(qr_post_send(&r->a, &wr));
                qr_wr(&wr, OFL_QP_OP_SEND, 0x104, &sge, src, 16, ls);
                CHECK_OK(qr_post_send(&r->a, &wr));
                CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_ERROR));
                n = qr_poll(&r->a, true, c, 8);
                CHECK_EQ(n, 2);
                CHECK_EQ(c[0].wr_id, 0x102);
                CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
                CHECK_EQ(c[1].wr_id, 0x104);
                CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
            } else if (k == 1) {
                qr_wr(&wr, OFL_QP_OP_LOCAL_INV, 0x201, &sge, NULL, 0, 0);
                wr.flags = f;
                wr.stag = 0x00777700u; /* no such entry */
                CHECK_OK(qr_post_send(&r->a, &wr));
                CHECK_OK(qr_process(&r->a, 0));
                CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
                n = qr_poll(&r->a, true, c, 8);
                CHECK_EQ(n, silent ? 0u : 1u);
                if (n == 1) {
                    CHECK_EQ(c[0].wr_id, 0x201);
                    CHECK(c[0].status != OFL_WC_SUCCESS);
                }
            } else {
                CHECK_OK(qr_post_recv(&r->b, 0x30, dst, 128, ld));
                CHECK_OK(qr_post_recv(&r->b, 0x31, dst + 128, 128, ld));
                qr_wr(&wr, OFL_QP_OP_SEND, 0x301, &sge, src, 16, ls);
                wr.flags = f;
                CHECK_OK(qr_post_send(&r->a, &wr));
                qr_wr(&wr, OFL_QP_OP_SEND, 0x302, &sge, src, 16, ls);
                wr.flags = OFL_QP_WR_SIGNALED | f;
                CHECK_OK(qr_post_send(&r->a, &wr));
                qr_pump(r, 0);
                n = qr_poll(&r->a, true, c, 8);
                CHECK_EQ(n, 1);
                CHECK_EQ(c[0].wr_id, 0x302);
                CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
                CHECK_EQ(qr_poll(&r->b, false, c, 8), 2);
            }
            CHECK_EQ(ofl_qp_sq_outstanding(&r->a.qp), 0);
            qr_free(r);
        }
    }
}

/* A type 2 window bound through b's QP in its last life: RESET (a new
 * connection) and a QP created again under the same number both end it. */
static void test_type2_life(void)
{
    struct qr_rig *r = qr_new(NULL);
    uint8_t *src = qr_alloc(&r->a, 256, false);
    uint8_t *dst = qr_alloc(&r->b, 256, true);
    uint32_t ls = qr_reg(&r->a, src, 256, LR, 0);
    uint32_t reg = qr_reg(&r->b, dst, 256, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, reg, dst, 256, RW, 0, true);
    uint32_t w1 = qr_window(&r->b, reg, dst, 256, RW, 0, false); /* type 1 */
    struct ofl_tpt_info info;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    CHECK(win != 0 && w1 != 0);
    CHECK_OK(ofl_tpt_check_remote(&r->b.tpt, win, r->b.attr.pd,
                                  r->b.attr.qpn, va(dst), 16, RW));
    memset(src, 0x5A, 256);
    CHECK_OK(ofl_qp_llp_event(&r->b.qp, true)); /* the connection dies */
    CHECK_OK(ofl_qp_llp_event(&r->a.qp, true));
    CHECK_EQ(reconnect(r), 0);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, w1, &info)); /* type 1: untouched */
    CHECK_EQ(info.state, OFL_TPT_VALID);
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 256, ls);
    wr.remote_stag = win;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK(dst[0] != 0x5A);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    /* bound again in this life, then the memory holds a new QP */
    win = qr_window(&r->b, reg, dst, 256, RW, 0, true);
    CHECK(win != 0);
    CHECK_OK(ofl_qp_create(&r->b.qp, &r->b.attr, &r->b.qmem));
    CHECK_ERR(ofl_tpt_check_remote(&r->b.tpt, win, r->b.attr.pd,
                                   r->b.attr.qpn, va(dst), 16, RW),
              OFL_E_TPT_NOT_VALID);
    CHECK_EQ(ofl_tpt_invalidate_qp(NULL, 1, 1), 0);
    qr_free(r);
}

/*
 * A QP's events are its life's: RESET clears them with the Terminates
 * they announce (qp->term_tx, qp->term_rx), and the next life raises its
 * own. b terminates the stream for a Write through an STag it never
 * registered (FATAL, term_tx), a receives that Terminate (TERM_RX,
 * term_rx); the connection is lost, both RESET and establish again. In
 * the new life no event of the last is left, and the same fault raises
 * both again.
 */
static void test_events_life(void)
{
    struct qr_rig *r = qr_new(NULL);
    uint8_t *src = qr_alloc(&r->a, 256, false);
    uint32_t ls = qr_reg(&r->a, src, 256, LR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    int life;

    CHECK(ls != 0);
    for (life = 0; life < 2; life++) {
        CHECK_EQ(r->a.qp.events, 0);
        CHECK_EQ(r->b.qp.events, 0);
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 256, ls);
        wr.remote_stag = 0x00ABCD00u; /* no such entry at b */
        wr.remote_to = 0x1000;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK(r->b.qp.events & OFL_QP_EVT_FATAL);
        CHECK(r->b.qp.term_tx.layer != 0 || r->b.qp.term_tx.etype != 0);
        CHECK(r->a.qp.events & OFL_QP_EVT_TERM_RX);
        CHECK(r->a.qp.term_rx.layer != 0 || r->a.qp.term_rx.etype != 0);
        CHECK_OK(ofl_qp_llp_event(&r->b.qp, true)); /* the stream ends */
        CHECK_OK(ofl_qp_llp_event(&r->a.qp, true));
        CHECK_EQ(reconnect(r), 0);
        CHECK_EQ(r->b.qp.term_tx.layer | r->b.qp.term_tx.etype |
                     r->b.qp.term_tx.ecode,
                 0);
        CHECK_EQ(r->a.qp.term_rx.layer | r->a.qp.term_rx.etype |
                     r->a.qp.term_rx.ecode,
                 0);
    }
    qr_free(r);
}

/* A one-touch window touched ahead of a hole (Table D row 5); the stream
 * dies before it lines up: ERROR carries out the deferred invalidation,
 * so the next connection cannot place into it. */
static void test_one_touch_stream_end(void)
{
    struct qr_rig *r;
    uint8_t *src, *dst;
    uint32_t ls, reg, win;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_qp_seg seg;
    struct ofl_tpt_info info;
    struct qr_wire *w;

    r = rig_o(true, false, 0);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    w = &r->ab;
    src = qr_alloc(&r->a, 8000, false);
    dst = qr_alloc(&r->b, 8000, true);
    ls = qr_reg(&r->a, src, 8000, LR, 0);
    reg = qr_reg(&r->b, dst, 8000, LW | RW | BW, 0);
    win = qr_window(&r->b, reg, dst, 8000, RW, OFL_TPT_F_ONE_TOUCH, false);
    memset(src, 0x11, 8000);
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 2000, ls);
    wr.remote_stag = win;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(w->nchunk, 2);
    second_chunk(w, &seg);
    CHECK_OK(ofl_qp_input(&r->b.qp, &seg)); /* the Last FPDU, ahead */
    CHECK_EQ(r->b.qp.stats.ooo_placed, 1);
    CHECK_EQ(r->b.qp.seq.pending_count, 1);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_qp_llp_event(&r->b.qp, true)); /* lost: ERROR */
    CHECK_EQ(r->b.qp.seq.pending_count, 0);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_qp_llp_event(&r->a.qp, true));
    w->seq += w->len;
    CHECK_EQ(reconnect(r), 0);
    memset(src, 0x22, 8000);
    memset(dst, 0, 8000);
    qr_wr(&wr, OFL_QP_OP_WRITE, 2, &sge, src, 3000, ls);
    wr.remote_stag = win;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK(dst[0] != 0x22 && dst[1500] != 0x22);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    qr_free(r);
}

/*
 * A one-touch window's Last FPDUs ahead of a hole while the deferred
 * invalidation table is full (issue 26 item 4): neither is placed ahead
 * (Table D row 5 could not be recorded, and the second Write would land
 * too); in order the first is placed once and ends the window (row 4),
 * the second terminates the stream and lands nowhere. With one slot free
 * the first is placed ahead and recorded, and the second, finding the
 * entry touched, expires it (row 3) without placing.
 */
static void test_one_touch_table_full(void)
{
    int k;

    for (k = 0; k < 2; k++) {
        struct qr_rig *r = rig_o(true, false, 0);
        uint8_t *src, *dst;
        uint32_t ls, reg, win, i, fill, pend;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_qp_seg seg;
        struct ofl_tpt_info info;
        struct qr_wire *w;

        CHECK(r != NULL);
        if (r == NULL)
            return;
        w = &r->ab;
        src = qr_alloc(&r->a, 4096, false);
        dst = qr_alloc(&r->b, 8192, true);
        ls = qr_reg(&r->a, src, 4096, LR, 0);
        reg = qr_reg(&r->b, dst, 8192, LW | RW | BW, 0);
        win = qr_window(&r->b, reg, dst, 4096, RW, OFL_TPT_F_ONE_TOUCH,
                        false);
        memset(src, 0x11, 1000);
        memset(src + 1000, 0x22, 1000);
        /* The hole: a Write to the plain region. */
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, 64, ls);
        wr.remote_stag = reg;
        wr.remote_to = va(dst + 6000);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_wr(&wr, OFL_QP_OP_WRITE, 2, &sge, src, 1000, ls);
        wr.remote_stag = win;
        wr.remote_to = va(dst);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_wr(&wr, OFL_QP_OP_WRITE, 3, &sge, src + 1000, 1000, ls);
        wr.remote_stag = win;
        wr.remote_to = va(dst + 2000);
        CHECK_OK(qr_post_send(&r->a, &wr));
        CHECK_OK(qr_process(&r->a, 0));
        CHECK_EQ(w->nchunk, 3);
        /* Other one-touch deferrals far ahead fill the table (k = 0) or
         * all but one slot (k = 1). */
        fill = k == 0 ? QR_OT : QR_OT - 1;
        for (i = 0; i < fill; i++)
            CHECK_OK(ofl_seq_defer(&r->b.qp.seq, 0x7F000000u + (i << 8),
                                   r->b.qp.seq.nxt + 0x80000u + i));
        for (i = 1; i < 3; i++) {
            memset(&seg, 0, sizeof(seg));
            seg.seq = w->seq + w->chunk[i - 1];
            seg.data = w->buf + w->chunk[i - 1];
            seg.len = w->chunk[i] - w->chunk[i - 1];
            CHECK_OK(ofl_qp_input(&r->b.qp, &seg)); /* ahead of the hole */
        }
        pend = r->b.qp.seq.pending_count;
        CHECK_EQ(pend, QR_OT);
        CHECK_EQ(r->b.qp.stats.ooo_placed, k == 0 ? 0 : 1);
        CHECK_EQ(dst[0], k == 0 ? 0 : 0x11);
        CHECK_EQ(dst[2000], 0); /* never twice through a one-touch STag */
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, k == 0 ? OFL_TPT_VALID : OFL_TPT_INVALID);
        if (k == 0)
            CHECK_EQ(info.flags & OFL_TPT_F_TOUCHED, 0); /* nothing noted */
        /* In order: W1 once (k = 0: placed now, row 4), W2 nowhere. */
        memset(&seg, 0, sizeof(seg));
        seg.seq = w->seq;
        seg.data = w->buf;
        seg.len = w->chunk[2];
        CHECK(ofl_qp_input(&r->b.qp, &seg) != OFL_OK);
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(dst[0], 0x11);
        CHECK_EQ(dst[999], 0x11);
        CHECK_EQ(dst[6000], 0x11); /* the hole's Write */
        CHECK_EQ(dst[2000], 0);
        CHECK_EQ(dst[2999], 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_INVALID);
        qr_free(r);
    }
}

/*
 * An FPDU placed ahead of a hole is checked again when the in-order stream
 * reaches it. A Send with Invalidate of window W, then a Write to W whose
 * FPDU arrives first (placed: W was valid then): in order, the Write names
 * an STag the stream had just invalidated, and the stream is terminated.
 * A one-shot window's FPDU is not placed ahead (an earlier message in the
 * hole could spend the key): the in-order stream places it and the key
 * ends (no false Terminate).
 */
static void test_ooo_recheck(void)
{
    struct qr_rig *r;
    uint8_t *src, *dst, *rb;
    uint32_t ls, reg, win, lrb;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_qp_seg seg;
    struct ofl_tpt_info info;
    struct qr_wire *w;
    int k;

    for (k = 0; k < 2; k++) {
        r = rig_o(true, false, 0);
        CHECK(r != NULL);
        if (r == NULL)
            return;
        w = &r->ab;
        src = qr_alloc(&r->a, 2048, false);
        dst = qr_alloc(&r->b, 2048, true);
        rb = qr_alloc(&r->b, 64, false);
        ls = qr_reg(&r->a, src, 2048, LR, 0);
        reg = qr_reg(&r->b, dst, 2048, LW | RW | BW, 0);
        lrb = qr_reg(&r->b, rb, 64, LW, 0);
        win = k == 0 ? qr_window(&r->b, reg, dst, 2048, RW, 0, true)
                     : qr_window(&r->b, reg, dst, 2048, RW,
                                 OFL_TPT_F_ONE_SHOT, false);
        CHECK_OK(qr_post_recv(&r->b, 9, rb, 64, lrb));
        memset(src, 0x77, 2048);
        qr_wr(&wr, OFL_QP_OP_SEND_INV, 1, &sge, src, 16, ls);
        if (k == 1)
            wr.opcode = OFL_QP_OP_SEND;
        wr.stag = win;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_wr(&wr, OFL_QP_OP_WRITE, 2, &sge, src, 1200, ls);
        wr.remote_stag = win;
        wr.remote_to = va(dst);
        CHECK_OK(qr_post_send(&r->a, &wr));
        CHECK_OK(qr_process(&r->a, 0));
        CHECK_EQ(w->nchunk, 2);
        second_chunk(w, &seg);
        CHECK_OK(ofl_qp_input(&r->b.qp, &seg)); /* the Write, ahead */
        CHECK_EQ(r->b.qp.stats.ooo_placed, k == 0 ? 1 : 0);
        CHECK_EQ(dst[0], k == 0 ? 0x77 : 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_VALID); /* its use noted in order */
        seg.seq = w->seq;
        seg.data = w->buf;
        seg.len = w->chunk[1];
        if (k == 0) {
            CHECK_ERR(ofl_qp_input(&r->b.qp, &seg), OFL_E_TPT_NOT_VALID);
            CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
            CHECK_EQ(r->b.qp.term_tx.layer, OFL_TERM_LAYER_DDP);
        } else {
            CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
            CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
            CHECK_EQ(dst[0], 0x77); /* placed in order */
            CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
            CHECK_EQ(info.state, OFL_TPT_INVALID); /* one shot, spent */
        }
        qr_free(r);
    }
}


/* A tagged segment fed to b as one FPDU (a hostile peer may frame its
 * ULPDUs up to b's receive buffer, whatever the EMSS). */
static void inject_write(struct qr_rig *r, uint32_t stag, uint64_t to,
                         bool last, const uint8_t *pay, uint32_t n)
{
    static uint8_t f[70000];
    struct ofl_rdmap_msg m;
    uint32_t len;

    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.last = last;
    m.ddp.opcode = OFL_RDMAP_WRITE;
    m.ddp.stag = stag;
    m.ddp.to = to;
    r->a.qp.tx.mulpdu = 65000; /* the sender's framing only */
    len = qr_fpdu(&r->a, &m, pay, n, f, sizeof(f));
    CHECK(len != 0);
    qr_inject(&r->a, f, len);
    (void)qr_deliver(r, &r->a);
}

/*
 * A missing page anywhere in a tagged segment or a Read Response's source
 * segment: the same Terminate as one in its first pieces (the remote
 * check's cause, headers included), and no byte placed. The region's 10
 * pages are scattered (one piece each, more than OFL_QP_PIECES per FPDU).
 */
static void test_page_missing_anywhere(void)
{
    static uint8_t pay[10 * 4096];
    struct ofl_term_cause first = {0, 0, 0};
    uint8_t first_hdrct = 0;
    int k;

    memset(pay, 0x77, sizeof(pay));
    for (k = 0; k < 4; k++) {
        bool read = k >= 2;
        uint32_t page = (k & 1) ? 9 : 1;
        struct qr_rig *r = rig_emss(read ? 48000 : 0);
        uint8_t *mem = qr_alloc(&r->b, 10 * 4096, true);
        uint32_t reg = reg_scattered(&r->b, mem, 10, LW | RW | LR | RR);
        struct ofl_rdmap_term t;
        uint32_t i, touched = 0;

        CHECK(reg != 0);
        CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, reg,
                                    0x40000000ull + page * 4096u));
        if (!read) {
            inject_write(r, reg, 0x40000000ull, true, pay, sizeof(pay));
        } else {
            uint8_t *back = qr_alloc(&r->a, 10 * 4096, false);
            uint32_t lb = qr_reg(&r->a, back, 10 * 4096, LW | RW, 0);
            struct ofl_qp_wr wr;
            struct ofl_qp_sge sge;

            qr_wr(&wr, OFL_QP_OP_READ, 1, &sge, back, 10 * 4096, lb);
            wr.remote_stag = reg;
            wr.remote_to = 0x40000000ull;
            CHECK_OK(qr_post_send(&r->a, &wr));
            CHECK_OK(qr_process(&r->a, 0));
            (void)qr_deliver(r, &r->a); /* the Read Request */
            (void)qr_process(&r->b, 0); /* its response's source */
        }
        CHECK(qr_sent_term(r, &r->b, &t));
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(r->b.qp.err, OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(t.hdrct, read ? (OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D |
                                  OFL_RDMAP_HDRCT_R)
                               : (OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D));
        if ((k & 1) == 0) {
            first = t.cause;
            first_hdrct = t.hdrct;
            CHECK(first.layer != 0 || first.etype != 0); /* not local 0/0 */
        } else {
            CHECK(t.cause.layer == first.layer &&
                  t.cause.etype == first.etype &&
                  t.cause.ecode == first.ecode && t.hdrct == first_hdrct);
        }
        for (i = 0; i < 10 * 4096; i++)
            touched += mem[i] != 0;
        CHECK_EQ(touched, 0); /* nothing placed */
        CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
        qr_free(r);
    }
}

/*
 * A zero-length Last segment ends the message whose earlier segments were
 * placed through its STag: a one-touch window is spent (Table D row 4), a
 * one-shot key too, and a second message is refused. A zero-length
 * message alone, or a zero-length Last naming another STag, uses nothing.
 */
static void test_zero_length_last(void)
{
    int k;

    for (k = 0; k < 2; k++) {
        uint8_t flag = k == 0 ? OFL_TPT_F_ONE_TOUCH : OFL_TPT_F_ONE_SHOT;
        struct qr_rig *r = rig_o(false, false, 0);
        uint8_t *dst = qr_alloc(&r->b, 4096, true);
        uint32_t reg = qr_reg(&r->b, dst, 4096, LW | RW | BW, 0);
        uint32_t win = qr_window(&r->b, reg, dst, 4096, RW, flag, false);
        uint32_t other = qr_window(&r->b, reg, dst, 4096, RW, flag, false);
        struct ofl_tpt_info info;
        uint8_t pay[16];

        memset(pay, 0xAB, sizeof(pay));
        /* alone: nothing used */
        inject_write(r, win, va(dst), true, pay, 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_VALID);
        /* 16 bytes, then a zero-length Last through another STag: the
         * other is not this message's */
        inject_write(r, win, va(dst), false, pay, 16);
        inject_write(r, other, va(dst) + 16, true, pay, 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, other, &info));
        CHECK_EQ(info.state, OFL_TPT_VALID);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_VALID);
        /* 16 bytes, then the zero-length Last: the message ends */
        inject_write(r, win, va(dst), false, pay, 16);
        inject_write(r, win, va(dst) + 16, true, pay, 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
        CHECK_EQ(info.state, OFL_TPT_INVALID);
        CHECK_EQ(dst[0], 0xAB);
        memset(pay, 0xCD, sizeof(pay));
        inject_write(r, win, va(dst), true, pay, 16);
        CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(r->b.qp.err, OFL_E_TPT_NOT_VALID);
        CHECK_EQ(dst[0], 0xAB);
        qr_free(r);
    }
}

/*
 * A Write in three FPDUs through a region, the third Last: in a speed
 * build the whole receive takes the first through the TPT's check and
 * the later two through the region it kept for them (qp_rx_kept), and
 * the Last ends the message all the same (qp_rx_tag_note), so a
 * zero-length Last through the same STag afterwards is a message alone
 * and uses nothing. k 1: a one-shot region, spent by the Last; the
 * zero-length Last after it is not checked (it would find the key
 * spent and Terminate). k 0: a plain region, still valid.
 */
static void test_kept_region_message_ends(void)
{
    int k;

    for (k = 0; k < 2; k++) {
        struct qr_rig *r = rig_o(false, false, 0);
        uint8_t *dst = qr_alloc(&r->b, 4096, true);
        uint32_t reg = qr_reg(&r->b, dst, 4096, LW | RW,
                              k == 1 ? OFL_TPT_F_ONE_SHOT : 0);
        struct ofl_tpt_info info;
        uint8_t pay[16];

        CHECK(reg != 0);
        memset(pay, 0x5A, sizeof(pay));
        inject_write(r, reg, va(dst), false, pay, 16);
        inject_write(r, reg, va(dst) + 16, false, pay, 16);
        inject_write(r, reg, va(dst) + 32, true, pay, 16);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(dst[0], 0x5A);
        CHECK_EQ(dst[47], 0x5A);
        CHECK_EQ(dst[48], 0);
        CHECK_OK(ofl_tpt_query(&r->b.tpt, reg, &info));
        CHECK_EQ(info.state, k == 1 ? OFL_TPT_INVALID : OFL_TPT_VALID);
        inject_write(r, reg, va(dst) + 48, true, pay, 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->b.qp.err, OFL_OK);
        CHECK_EQ(r->b.qp.stats.rx_fpdus, 4);
        qr_free(r);
    }
}

/*
 * The result buffer of an Atomic is a local data segment checked when its
 * WQE was fetched (FIG. 15) and written when the response arrives. In
 * between the consumer may invalidate it (k 0): the write then finds the
 * STag invalid (the translation checks state, key and range again), the
 * buffer stays untouched and the WQE completes with a local protection
 * error. Rights and PD cannot change under the STag the WQE holds: a
 * re-registration must take a new key (OFL_E_TPT_KEY_REUSED), so the old
 * STag stays invalid. k 1: left alone, the original value lands.
 */
static void test_atomic_result_invalidated(void)
{
    struct qr_rig *r;
    struct ofl_tpt_region_desc d;
    struct ofl_cqe c[4];
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint8_t *w, *res;
    uint32_t lw, lres, att;
    int k;

    for (k = 0; k < 3; k++) {
        r = rig_o(false, false, 0);
        CHECK(r != NULL);
        if (r == NULL)
            return;
        w = qr_alloc(&r->b, 8, false);
        res = qr_alloc(&r->a, 8, false);
        lw = qr_reg(&r->b, w, 8, LW | RA, 0);
        att = r->a.att_next;
        lres = qr_reg(&r->a, res, 8, LW, OFL_TPT_F_INVALIDATABLE);
        CHECK(lw != 0 && lres != 0);
        w[0] = 41;
        memset(res, 0xEE, 8);
        qr_wr(&wr, OFL_QP_OP_ATOMIC_FADD, 7, &sge, res, 8, lres);
        wr.remote_stag = lw;
        wr.remote_to = va(w);
        wr.atomic[0] = 1;
        CHECK_OK(qr_post_send(&r->a, &wr));
        CHECK_OK(qr_process(&r->a, 0));
        (void)qr_deliver(r, &r->a);
        CHECK_OK(qr_process(&r->b, 0)); /* executed, response sent */
        CHECK_EQ(w[0], 42);
        if (k == 0) {
            CHECK_OK(ofl_tpt_invalidate_local(&r->a.tpt, lres, r->a.attr.pd));
            memset(&d, 0, sizeof(d));
            d.va = va(res);
            d.len = 8;
            d.att_base = att;
            d.att_count = 1;
            d.fpo = (uint32_t)(ofl_sim_pa(res) & 0xFFF);
            d.page_shift = 12;
            d.att_kind = OFL_TPT_ATT_DIRECT;
            d.access = LR;
            CHECK_ERR(ofl_tpt_register(&r->a.tpt, lres, r->a.attr.pd, &d),
                      OFL_E_TPT_KEY_REUSED);
        }
        if (k == 2) {
            /* the result buffer deregistered; its STag comes round to a
             * region of PD 99 over another buffer: not written there */
            uint8_t *other = qr_alloc(&r->a, 8, false);
            uint64_t word = (ofl_sim_pa(other) & ~(uint64_t)0xFFF) |
                            OFL_TPT_ATT_PRESENT;
            uint32_t s2;

            memset(other, 0x77, 8);
            CHECK_OK(ofl_tpt_dereg(&r->a.tpt, lres, r->a.attr.pd));
            s2 = qr_stag_round(&r->a, OFL_TPT_REGION, 99);
            CHECK_EQ(s2, lres);
            memset(&d, 0, sizeof(d));
            d.va = va(res); /* the TO the Atomic named */
            d.len = 8;
            d.att_base = 900;
            d.att_count = 1;
            d.fpo = (uint32_t)(ofl_sim_pa(other) & 0xFFF);
            d.page_shift = 12;
            d.att_kind = OFL_TPT_ATT_DIRECT;
            d.access = LW;
            CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 900, &word, 1));
            CHECK_OK(ofl_tpt_register(&r->a.tpt, s2, 99, &d));
            (void)qr_deliver(r, &r->b);
            CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
            CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
            CHECK_EQ(other[0], 0x77); /* not written */
            CHECK_EQ(r->a.qp.err, OFL_E_TPT_PD_MISMATCH);
            qr_free(r);
            continue;
        }
        (void)qr_deliver(r, &r->b);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
        CHECK_EQ(c[0].wr_id, 7);
        if (k == 0) {
            CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
            CHECK_EQ(res[0], 0xEE); /* not written */
            CHECK_EQ(r->a.qp.err, OFL_E_TPT_NOT_VALID);
        } else {
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_EQ(res[0], 41);
            CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        }
        qr_free(r);
    }
}

/* A rig of rig_o's defaults with a source buffer of src_len bytes on a,
 * its first src_reg bytes registered for local read, and a sink buffer of
 * buf_len bytes on b, registered for local write. */
struct send_rig {
    struct qr_rig *r;
    uint8_t *src, *buf;
    uint32_t ls, lb;
};

static void send_rig_new(struct send_rig *s, uint32_t src_len,
                         uint32_t src_reg, uint32_t buf_len)
{
    s->r = rig_o(false, false, 0);
    s->src = qr_alloc(&s->r->a, src_len, false);
    s->buf = qr_alloc(&s->r->b, buf_len, false);
    s->ls = qr_reg(&s->r->a, s->src, src_reg, LR, 0);
    s->lb = qr_reg(&s->r->b, s->buf, buf_len, LW, 0);
}

/* ofl_qp_process's budget counts transmissions: the FPDUs of one message
 * sent in one step (qp_run_message's further segments) take a step each,
 * and a spent budget stops a message between two of its FPDUs. */
static void test_budget_counts_segments(void)
{
    struct send_rig sr;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    uint64_t before;
    unsigned i;

    send_rig_new(&sr, 4096, 4096, 8192);
    for (i = 0; i < 4000; i++)
        sr.src[i] = (uint8_t)(i * 7u);
    CHECK_OK(qr_post_recv(&sr.r->b, 1, sr.buf, 4096, sr.lb));
    CHECK_OK(qr_post_recv(&sr.r->b, 2, sr.buf + 4096, 4096, sr.lb));
    qr_wr(&wr, OFL_QP_OP_SEND, 10, &sge, sr.src, 4000, sr.ls); /* 3 FPDUs */
    CHECK_OK(qr_post_send(&sr.r->a, &wr));
    qr_wr(&wr, OFL_QP_OP_SEND, 11, &sge, sr.src, 64, sr.ls); /* 1 FPDU */
    CHECK_OK(qr_post_send(&sr.r->a, &wr));
    before = sr.r->a.qp.stats.tx_fpdus;
    CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 2));
    CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 2); /* two of the three */
    CHECK_EQ(sr.r->a.qp.cur.active, 1);
    CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 1));
    CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 3); /* the Send's last */
    CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 3));
    CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 4); /* the second Send */
    CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 3));
    CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 4); /* nothing left */
    CHECK_OK(qr_deliver(sr.r, &sr.r->a));
    CHECK_EQ(qr_poll(&sr.r->b, false, c, 4), 2);
    CHECK_EQ(c[0].wr_id, 1);
    CHECK_EQ(c[0].byte_len, 4000);
    CHECK_EQ(c[1].wr_id, 2);
    CHECK_EQ(c[1].byte_len, 64);
    CHECK(memcmp(sr.buf, sr.src, 4000) == 0);
    CHECK(memcmp(sr.buf + 4096, sr.src, 64) == 0);
    CHECK_EQ(qr_poll(&sr.r->a, true, c, 4), 2);
    qr_free(sr.r);
}

/* test_further_fpdus_checked_again's transmit callback: the side's
 * own, then, after the first FPDU went, one change to the TPT (the
 * callback may change the TPT, not the QP): the data segment's region
 * deregistered (DEREG), invalidated (INVAL: its bounds and pages stay in
 * the entry), or another region registered (OTHER: the segment's region
 * untouched). */
enum { FURTHER_DEREG, FURTHER_INVAL, FURTHER_OTHER };
static struct {
    ofl_qp_transmit_fn orig;
    struct qr_side *side;
    uint32_t stag, pd;
    unsigned mode;
} dereg_tx;

static int transmit_then_dereg(void *ctx, const uint8_t *data, uint32_t len,
                               uint32_t flags)
{
    int ret = dereg_tx.orig(ctx, data, len, flags);
    struct ofl_tpt *tpt = &dereg_tx.side->tpt;

    if (ret == 0 && dereg_tx.stag != 0) {
        if (dereg_tx.mode == FURTHER_DEREG)
            CHECK_OK(ofl_tpt_dereg(tpt, dereg_tx.stag, dereg_tx.pd));
        else if (dereg_tx.mode == FURTHER_INVAL)
            CHECK_OK(ofl_tpt_invalidate_local(tpt, dereg_tx.stag,
                                              dereg_tx.pd));
        else
            CHECK(qr_reg(dereg_tx.side, qr_alloc(dereg_tx.side, 64, false),
                         64, LR, 0) != 0);
        dereg_tx.stag = 0;
    }
    return ret;
}

/* The FPDUs of a message after the first check its data segment again
 * (FIG. 15) before they read it, on the whole-message path (one data
 * segment: qp_sq_whole_multi, which checks again when the region's
 * generation moved) and the general path (two) alike: a region
 * deregistered or invalidated while the first FPDU was transmitted fails
 * the WQE with a local protection error before a byte more is read from
 * it, and the stream ends (a Terminate follows the FPDU that went); a
 * registration of another region changes nothing: the message goes
 * whole. */
static void test_further_fpdus_checked_again(void)
{
    unsigned k, mode;

    for (k = 0; k < 2; k++)
        for (mode = FURTHER_DEREG; mode <= FURTHER_OTHER; mode++) {
            struct send_rig sr;
            struct ofl_qp_wr wr;
            struct ofl_qp_sge sge[2];
            struct ofl_cqe c[2];
            uint64_t before;
            unsigned i;

            send_rig_new(&sr, 4096, 0, 8192);
            /* the source as an invalidatable region (a fast-registered
             * one's flag) */
            sr.ls = qr_reg(&sr.r->a, sr.src, 4096, LR,
                           OFL_TPT_F_INVALIDATABLE);
            CHECK(sr.ls != 0);
            for (i = 0; i < 4000; i++)
                sr.src[i] = (uint8_t)(i * 5u + 1u);
            CHECK_OK(qr_post_recv(&sr.r->b, 1, sr.buf, 8192, sr.lb));
            /* 3 FPDUs */
            qr_wr(&wr, OFL_QP_OP_SEND, 10, sge, sr.src, 4000, sr.ls);
            if (k == 1) {
                sge[0].len = 2000;
                sge[1] = sge[0];
                sge[1].addr += 2000;
                wr.num_sge = 2;
            }
            CHECK_OK(qr_post_send(&sr.r->a, &wr));
            dereg_tx.orig = sr.r->a.qp.attr.transmit;
            dereg_tx.side = &sr.r->a;
            dereg_tx.stag = sr.ls;
            dereg_tx.pd = sr.r->a.qp.attr.pd;
            dereg_tx.mode = mode;
            sr.r->a.qp.attr.transmit = transmit_then_dereg;
            before = sr.r->a.qp.stats.tx_fpdus;
            (void)ofl_qp_process(&sr.r->a.qp, 0, 8);
            CHECK_EQ(dereg_tx.stag, 0); /* the change was made */
            CHECK_EQ(qr_poll(&sr.r->a, true, c, 2), 1);
            CHECK_EQ(c[0].wr_id, 10);
            if (mode == FURTHER_OTHER) {
                CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 3);
                CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
                CHECK_EQ(sr.r->a.qp.state, OFL_QP_RTS);
                sr.r->a.qp.attr.transmit = dereg_tx.orig;
                CHECK_OK(qr_deliver(sr.r, &sr.r->a));
                CHECK_EQ(qr_poll(&sr.r->b, false, c, 2), 1);
                CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
                CHECK_EQ(c[0].byte_len, 4000);
                CHECK(memcmp(sr.buf, sr.src, 4000) == 0);
            } else {
                /* the first FPDU, then the Terminate (part of the
                 * message went: the stream ends) */
                CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 2);
                CHECK_EQ(sr.r->a.qp.state, OFL_QP_TERMINATE);
                CHECK_EQ(sr.r->a.qp.err, mode == FURTHER_DEREG
                                             ? OFL_E_TPT_INVALID_STAG
                                             : OFL_E_TPT_NOT_VALID);
                CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
            }
            qr_free(sr.r);
        }
}

/* A message of several FPDUs whose one data segment runs past its region
 * is refused before any FPDU goes (the segment is checked whole first, on
 * the whole-message path as on the general path); one that fits goes. */
static void test_multi_fpdu_segment_checked_whole(void)
{
    unsigned k;

    for (k = 0; k < 2; k++) {
        struct send_rig sr;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint64_t before;
        unsigned i;

        send_rig_new(&sr, 8192, 4096, 8192);
        for (i = 0; i < 4096; i++)
            sr.src[i] = (uint8_t)(i * 3u);
        CHECK_OK(qr_post_recv(&sr.r->b, 1, sr.buf, 8192, sr.lb));
        /* k 0: 3000 bytes from offset 2000 of a 4096-byte region (past
         * its end by 904); k 1: from offset 1000 (inside) */
        qr_wr(&wr, OFL_QP_OP_SEND, 10, &sge, sr.src + (k ? 1000 : 2000),
              3000, sr.ls);
        CHECK_OK(qr_post_send(&sr.r->a, &wr));
        before = sr.r->a.qp.stats.tx_fpdus;
        (void)ofl_qp_process(&sr.r->a.qp, 0, 8);
        CHECK_EQ(qr_poll(&sr.r->a, true, c, 2), 1);
        CHECK_EQ(c[0].wr_id, 10);
        if (k == 0) {
            CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 0);
            CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
        } else {
            CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 3);
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_OK(qr_deliver(sr.r, &sr.r->a));
            CHECK_EQ(qr_poll(&sr.r->b, false, c, 2), 1);
            CHECK_EQ(c[0].byte_len, 3000);
            CHECK(memcmp(sr.buf, sr.src + 1000, 3000) == 0);
        }
        qr_free(sr.r);
    }
}

/* A WQE of the engine's own send ring whose one data segment was
 * written over, after the post, to 2^31 bytes (a message total the
 * engine refuses at fetch: a local QP operation error) over a region that
 * is that large (eight pages of 256 MiB, never read): refused by the
 * fetch's rule on the whole-message path as on the general path, before
 * any FPDU goes; the same WQE of 2^31 - 1 bytes passes the rule (and
 * fails its first DMA, a local access error: the pages are not the
 * sim's). */
static void test_multi_fpdu_total_rule(void)
{
    unsigned k;

    for (k = 0; k < 2; k++) {
        struct qr_rig *r = rig_o(false, false, 0);
        struct ofl_tpt_region_desc d;
        struct ofl_tpt_pbuf pb;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint32_t big = 0;
        uint64_t before;
        uint8_t *w;

        memset(&d, 0, sizeof(d));
        d.va = 0x40000000ull;
        d.page_shift = 28;
        d.access = LR;
        d.att_base = r->a.att_next;
        pb.pa = 0x100000000ull;
        pb.len = 0x80000000ull;
        CHECK_OK(ofl_tpt_reg_phys(&r->a.tpt, r->a.qp.attr.pd, &d, &pb, 1,
                                  &big));
        qr_wr(&wr, OFL_QP_OP_SEND, 10, &sge, (void *)(uintptr_t)d.va, 16,
              big);
        CHECK_OK(qr_post_send(&r->a, &wr));
        w = r->a.qp.sq.ring +
            ((r->a.qp.sq.pi - 1u) & (r->a.qp.sq.depth - 1u)) *
                r->a.qp.sq.stride;
        ofl_store_le32(w + OFL_SWQE_SGE + 8, k ? 0x7FFFFFFFu : 0x80000000u);
        before = r->a.qp.stats.tx_fpdus;
        (void)ofl_qp_process(&r->a.qp, 0, 8);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
        CHECK_EQ(c[0].wr_id, 10);
        CHECK_EQ(r->a.qp.stats.tx_fpdus - before, 0);
        CHECK_EQ(r->a.qp.state, OFL_QP_SQE); /* nothing of it went */
        CHECK_EQ(c[0].status, (k ? OFL_WC_LOC_ACCESS_ERR /* the DMA */
                                 : OFL_WC_LOC_QP_OP_ERR /* the rule */));
        qr_free(r);
    }
}

/* A port without dma_read and dma_write (the engine looks once, at
 * ofl_qp_create): a Send's payload, one FPDU or several, is refused with
 * OFL_E_PORT_HOOK before any FPDU goes; a received Send's placement
 * terminates the stream with it. */
static void test_port_without_dma(void)
{
    static const struct {
        bool sender; /* the sender's port lacks them, else the receiver's */
        uint32_t len;
    } cases[] = {{true, 64}, {true, 4000}, {false, 64}};
    struct qr_opts o;
    struct qr_rig *r;
    uint8_t *src, *buf;
    uint32_t ls, lb;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    unsigned k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        memset(&o, 0, sizeof(o));
        o.crc = true;
        o.no_dma_a = cases[k].sender;
        o.no_dma_b = !cases[k].sender;
        r = qr_new(&o);
        CHECK(r != NULL);
        if (r == NULL)
            return;
        src = qr_alloc(&r->a, 4096, false);
        buf = qr_alloc(&r->b, 4096, false);
        ls = qr_reg(&r->a, src, 4096, LR, 0);
        lb = qr_reg(&r->b, buf, 4096, LW, 0);
        CHECK_OK(qr_post_recv(&r->b, 1, buf, 4096, lb));
        qr_wr(&wr, OFL_QP_OP_SEND, 10 + k, &sge, src, cases[k].len, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        if (cases[k].sender) {
            (void)ofl_qp_process(&r->a.qp, 0, 8);
            CHECK_EQ(r->a.qp.stats.tx_fpdus, 0);
            CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
            CHECK_EQ(c[0].wr_id, 10 + k);
            CHECK_EQ(c[0].status, ofl_tpt_wc_status(OFL_E_PORT_HOOK));
        } else {
            qr_pump(r, 0);
            CHECK_EQ(r->b.qp.err, OFL_E_PORT_HOOK);
            CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
            CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
            CHECK_EQ(c[0].wr_id, 1);
            CHECK(c[0].status != OFL_WC_SUCCESS);
        }
        qr_free(r);
    }
}

/* test_send_cq_armed_or_full's notify hook: the FPDUs the QP had sent
 * when the armed send CQ raised its event. */
static struct {
    const struct ofl_qp *qp;
    uint64_t fpdus;
    unsigned calls;
} armed_notify;

static void notify_note_fpdus(void *ctx, uint32_t vector)
{
    (void)ctx;
    (void)vector;
    armed_notify.calls++;
    armed_notify.fpdus = armed_notify.qp->stats.tx_fpdus;
}

/* A send completion is published at the end of the ofl_qp_process call,
 * after the step's transmissions, when the send CQ is armed (its event
 * sees both Sends of the call gone) or full (the CQE of the message past
 * its capacity is lost and the CQ and the QP say so; the message went),
 * on the whole-message path (one data segment) and the general one (two)
 * alike. */
static void test_send_cq_armed_or_full(void)
{
    unsigned k, i;

    for (k = 0; k < 2; k++) {
        /* one FPDU, one data segment; two FPDUs, two data segments */
        const uint32_t len = k == 0 ? 64 : 2000, fpdus = k == 0 ? 1 : 2;
        struct send_rig sr;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge[2];
        struct ofl_cqe c[4];
        uint64_t before;

        send_rig_new(&sr, 4096, 4096, 8192);
        CHECK_OK(qr_post_recv(&sr.r->b, 1, sr.buf, 4096, sr.lb));
        CHECK_OK(qr_post_recv(&sr.r->b, 2, sr.buf + 4096, 4096, sr.lb));
        CHECK_OK(qr_post_recv(&sr.r->b, 3, sr.buf, 4096, sr.lb));
        for (i = 0; i < 3; i++) {
            qr_wr(&wr, OFL_QP_OP_SEND, 10 + i, sge, sr.src, len, sr.ls);
            if (k == 1) {
                sge[0].len = len / 2;
                sge[1] = sge[0];
                sge[1].addr += len / 2;
                wr.num_sge = 2;
            }
            CHECK_OK(qr_post_send(&sr.r->a, &wr));
        }
        /* armed: the event after both Sends of the call went */
        memset(&armed_notify, 0, sizeof(armed_notify));
        armed_notify.qp = &sr.r->a.qp;
        sr.r->a.sim.port.notify = notify_note_fpdus;
        CHECK_OK(ofl_cq_arm(&sr.r->a.scq, OFL_CQ_ARM_ANY));
        before = sr.r->a.qp.stats.tx_fpdus;
        CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 2 * fpdus));
        CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, 2 * fpdus);
        CHECK_EQ(armed_notify.calls, 1);
        CHECK_EQ(armed_notify.fpdus - before, 2 * fpdus);
        CHECK_EQ(qr_poll(&sr.r->a, true, c, 4), 2);
        CHECK_EQ(c[0].wr_id, 10);
        CHECK_EQ(c[1].wr_id, 11);
        /* full: the third Send's CQE is lost, the CQ and the QP say so */
        for (i = 0; i < sr.r->a.scq.cap; i++) {
            struct ofl_cqe *e = &sr.r->a.scq.ring[sr.r->a.scq.pi &
                                                  (sr.r->a.scq.cap - 1u)];

            memset(e, 0, sizeof(*e));
            e->wr_id = 100 + i;
            sr.r->a.scq.pi++;
        }
        before = sr.r->a.qp.stats.tx_fpdus;
        CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 8));
        CHECK_EQ(sr.r->a.qp.stats.tx_fpdus - before, fpdus); /* it went */
        CHECK_EQ(sr.r->a.scq.overrun, 1);
        CHECK(sr.r->a.qp.events & OFL_QP_EVT_CQ_OVERRUN);
        CHECK_EQ(ofl_qp_sq_outstanding(&sr.r->a.qp), 0); /* retired */
        CHECK_OK(qr_deliver(sr.r, &sr.r->a));
        CHECK_EQ(qr_poll(&sr.r->b, false, c, 4), 3);
        CHECK_EQ(c[2].wr_id, 3);
        CHECK_EQ(c[2].byte_len, len);
        qr_free(sr.r);
    }
}

/* A Send of one FPDU that arrives whole in one segment (the receive
 * side's whole-message path takes it from the stream's bytes) is taken
 * only after the MPA receiver's checks: a bit flipped in its payload (CRC)
 * or a ULPDU Length beyond the receive buffer ends the stream with the
 * MPA error, nothing placed and no receive completed; the same Send
 * unharmed is placed and completed. */
static void test_whole_send_mpa_checked(void)
{
    unsigned k;

    for (k = 0; k < 3; k++) {
        struct qr_opts o;
        struct qr_rig *r;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[4];
        uint8_t *src, *buf;
        uint32_t ls, lb, len = k == 1 ? 1200 : 64, i;

        memset(&o, 0, sizeof(o));
        o.crc = true;
        o.rx_cap = 1024; /* ULPDU Lengths up to 1024 */
        r = qr_new(&o);
        CHECK(r != NULL);
        if (r == NULL)
            return;
        src = qr_alloc(&r->a, 2048, false);
        buf = qr_alloc(&r->b, 2048, false);
        ls = qr_reg(&r->a, src, 2048, LR, 0);
        lb = qr_reg(&r->b, buf, 2048, LW, 0);
        for (i = 0; i < len; i++)
            src[i] = (uint8_t)(i * 13u + 1u);
        CHECK_OK(qr_post_recv(&r->b, 1, buf, 2048, lb));
        qr_wr(&wr, OFL_QP_OP_SEND, 10, &sge, src, len, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        CHECK_OK(ofl_qp_process(&r->a.qp, 0, 8));
        CHECK_EQ(r->ab.len, 2u + 18u + len + 4u); /* one FPDU, no pad */
        if (k == 0)
            r->ab.corrupt_at = 2 + 18 + 5; /* a payload byte */
        (void)qr_deliver(r, &r->a);
        if (k == 2) {
            CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
            CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
            CHECK_EQ(c[0].wr_id, 1);
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_EQ(c[0].byte_len, len);
            CHECK(memcmp(buf, src, len) == 0);
        } else {
            CHECK_EQ(r->b.qp.err, k == 0 ? OFL_E_MPA_CRC : OFL_E_MPA_TOO_LONG);
            CHECK(r->b.qp.state != OFL_QP_RTS);
            CHECK_EQ(r->b.qp.stats.rx_fpdus, 0);
            CHECK_EQ(r->b.qp.rq.ci, 0); /* the receive WQE not taken */
            for (i = 0; i < len; i++)
                if (buf[i] != 0)
                    break;
            CHECK_EQ(i, len); /* nothing placed */
        }
        qr_free(r);
    }
}

/* Hands what side a sent to side b's ofl_qp_input as two TCP segments,
 * cut after byte cut (0 < cut < the bytes queued), each in a buffer of
 * exactly its size (so that ASan sees any read past a segment). */
static void deliver_cut(struct qr_rig *r, uint32_t cut)
{
    struct qr_wire *w = &r->ab;
    uint32_t part[2] = {cut, w->len - cut}, off = 0, k;

    for (k = 0; k < 2; k++) {
        uint8_t *copy = malloc(part[k]);
        struct ofl_qp_seg seg;

        CHECK(copy != NULL);
        if (copy == NULL)
            return;
        memcpy(copy, w->buf + off, part[k]);
        memset(&seg, 0, sizeof(seg));
        seg.seq = w->seq + off;
        seg.data = copy;
        seg.len = part[k];
        CHECK_OK(ofl_qp_input(&r->b.qp, &seg));
        free(copy);
        off += part[k];
    }
    w->seq += w->len;
    w->len = 0;
    w->nchunk = 0;
}

/* A Send of one FPDU cut in two TCP segments at every byte, each handed
 * to ofl_qp_input in a buffer of exactly its size (so that ASan sees any
 * read past a segment: the whole-FPDU paths look at a header only when
 * the segment holds it): placed and completed once, every time. */
static void test_send_cut_everywhere(void)
{
    struct send_rig sr;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[2];
    const uint32_t fpdu = 2 + 18 + 64 + 4;
    uint32_t cut, i;

    send_rig_new(&sr, 4096, 4096, 8192);
    for (i = 0; i < 64; i++)
        sr.src[i] = (uint8_t)(i * 5u + 3u);
    for (cut = 1; cut < fpdu; cut++) {
        struct qr_wire *w = &sr.r->ab;

        memset(sr.buf, 0, 64);
        CHECK_OK(qr_post_recv(&sr.r->b, cut, sr.buf, 4096, sr.lb));
        qr_wr(&wr, OFL_QP_OP_SEND, 1000 + cut, &sge, sr.src, 64, sr.ls);
        CHECK_OK(qr_post_send(&sr.r->a, &wr));
        CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 8));
        CHECK_EQ(w->len, fpdu);
        if (w->len != fpdu)
            break;
        deliver_cut(sr.r, cut);
        CHECK_EQ(qr_poll(&sr.r->b, false, c, 2), 1);
        CHECK_EQ(c[0].wr_id, cut);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].byte_len, 64);
        CHECK(memcmp(sr.buf, sr.src, 64) == 0);
        CHECK_EQ(qr_poll(&sr.r->a, true, c, 2), 1);
    }
    CHECK_EQ(sr.r->b.qp.stats.rx_fpdus, fpdu - 1);
    qr_free(sr.r);
}

/* A Send whose payload holds a whole, valid FPDU (a Send with the MSN
 * the receiver expects and a right CRC, as a peer could craft), cut so
 * that the second TCP segment starts at that inner FPDU: the receiver is
 * inside the outer FPDU there, so those bytes are payload, never framing
 * (only a segment that starts between FPDUs is looked at as one). The
 * outer Send is placed whole into the first receive WQE; the second stays
 * posted. */
static void test_fpdu_inside_payload(void)
{
    struct send_rig sr, inner;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[2];
    const uint32_t fpdu = 2 + 18 + 64 + 4, lead = 16;
    uint32_t i;

    /* the inner FPDU: the first Send (MSN 1) of another pair of QPs */
    send_rig_new(&inner, 4096, 4096, 8192);
    for (i = 0; i < 64; i++)
        inner.src[i] = (uint8_t)(0xA0u + i);
    qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, inner.src, 64, inner.ls);
    CHECK_OK(qr_post_send(&inner.r->a, &wr));
    CHECK_OK(ofl_qp_process(&inner.r->a.qp, 0, 8));
    CHECK_EQ(inner.r->ab.len, fpdu);
    send_rig_new(&sr, 4096, 4096, 8192);
    memset(sr.src, 0x5A, lead);
    memcpy(sr.src + lead, inner.r->ab.buf, fpdu);
    qr_free(inner.r);
    CHECK_OK(qr_post_recv(&sr.r->b, 1, sr.buf, 4096, sr.lb));
    CHECK_OK(qr_post_recv(&sr.r->b, 2, sr.buf + 4096, 4096, sr.lb));
    qr_wr(&wr, OFL_QP_OP_SEND, 10, &sge, sr.src, lead + fpdu, sr.ls);
    CHECK_OK(qr_post_send(&sr.r->a, &wr));
    CHECK_OK(ofl_qp_process(&sr.r->a.qp, 0, 8));
    CHECK_EQ(sr.r->ab.len, 2 + 18 + lead + fpdu + 4);
    deliver_cut(sr.r, 2 + 18 + lead); /* the second starts at the inner */
    CHECK_EQ(sr.r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(sr.r->b.qp.stats.rx_fpdus, 1);
    CHECK_EQ(qr_poll(&sr.r->b, false, c, 2), 1);
    CHECK_EQ(c[0].wr_id, 1);
    CHECK_EQ(c[0].byte_len, lead + fpdu);
    CHECK(memcmp(sr.buf, sr.src, lead + fpdu) == 0);
    CHECK_EQ(ofl_qp_rq_outstanding(&sr.r->b.qp), 1);
    qr_free(sr.r);
}

/* A Send and an RDMA Write of exactly one FPDU's payload (MULPDU less
 * the header) go as one FPDU, one byte more as two (the whole-message
 * path's choice between qp_sq_whole and qp_sq_whole_multi, which the
 * in-place framing no longer tests again: QP_FPDU_FITS); every FPDU
 * within MULPDU, the bytes placed and the WQE completed. */
static void test_fpdu_payload_edge(void)
{
    unsigned k;

    for (k = 0; k < 4; k++) {
        const bool write = k >= 2, more = k & 1u;
        struct qr_rig *r = rig_o(false, false, 0);
        uint8_t *src = qr_alloc(&r->a, 4096, false);
        uint8_t *buf = qr_alloc(&r->b, 4096, false);
        uint32_t ls = qr_reg(&r->a, src, 4096, LR, 0);
        uint32_t lb = qr_reg(&r->b, buf, 4096, LW | RW, 0);
        uint32_t hl = write ? OFL_DDP_TAGGED_HDR_LEN
                            : OFL_DDP_UNTAGGED_HDR_LEN;
        uint32_t n = r->a.qp.tx.mulpdu - hl + (more ? 1u : 0u), i;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint64_t before = r->a.qp.stats.tx_fpdus;

        for (i = 0; i < n; i++)
            src[i] = (uint8_t)(i * 13u + k);
        if (!write)
            CHECK_OK(qr_post_recv(&r->b, 1, buf, 4096, lb));
        qr_wr(&wr, write ? OFL_QP_OP_WRITE : OFL_QP_OP_SEND, 2, &sge, src, n,
              ls);
        wr.remote_stag = lb;
        wr.remote_to = va(buf);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->a.qp.stats.tx_fpdus - before, more ? 2u : 1u);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].byte_len, n);
        if (!write) {
            CHECK_EQ(qr_poll(&r->b, false, c, 2), 1);
            CHECK_EQ(c[0].byte_len, n);
        }
        CHECK(memcmp(buf, src, n) == 0);
        qr_free(r);
    }
}

/* A Send taken whole into a receive whose data segment crosses a page end
 * of a region with its pages scattered (the whole receive keeps the
 * translation of the segment's first byte for its DMA: only for bytes
 * that lie in that page), one after another on one QP, and into a page
 * made absent. The segment is the last 32 bytes of the region's first
 * page and 32 of its second; the second lies before the first in
 * memory. */
static void test_whole_recv_page_end(void)
{
    static const uint32_t lens[] = {1, 32, 33, 64, 32, 8};
    const uint64_t at = 0x40000000ull + 4096u - 32u;
    struct qr_rig *r = rig_o(false, false, 0);
    uint8_t *src = qr_alloc(&r->a, 4096, false);
    uint8_t *mem = qr_alloc(&r->b, 2 * 4096, true);
    uint32_t ls = qr_reg(&r->a, src, 4096, LR, 0);
    uint32_t lb = reg_scattered(&r->b, mem, 2, LW);
    unsigned k;

    CHECK(ls != 0 && lb != 0);
    for (k = 0; k < 6; k++) {
        const bool absent = k == 5; /* VA page 0 made absent first */
        const uint32_t n = lens[k];
        struct ofl_qp_recv_wr rwr;
        struct ofl_qp_sge rs;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint32_t i, bad = 0;

        for (i = 0; i < n; i++)
            src[i] = (uint8_t)(i * 7u + k + 1u);
        memset(mem, 0, 2 * 4096);
        if (absent)
            CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, 0x40000000ull));
        rs.addr = at;
        rs.len = 64;
        rs.stag = lb;
        rwr.wr_id = 9;
        rwr.sge = &rs;
        rwr.num_sge = 1;
        CHECK_OK(ofl_qp_post_recv(&r->b.qp, &rwr));
        qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, n, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->b.sim.violations, 0);
        if (absent) {
            CHECK_EQ(r->b.qp.err, OFL_E_TPT_PAGE_FAULT);
            CHECK(r->b.qp.state != OFL_QP_RTS);
            CHECK(ofl_test_zero(mem, 2 * 4096));
            break;
        }
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(qr_poll(&r->b, false, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(c[0].byte_len, n);
        /* VA page 0 is the second page of mem, VA page 1 the first */
        for (i = 0; i < 2 * 4096; i++) {
            uint32_t want = 0;

            if (i >= 2 * 4096 - 32 && i - (2 * 4096 - 32) < n)
                want = src[i - (2 * 4096 - 32)];
            else if (i < 32 && 32 + i < n)
                want = src[32 + i];
            bad += mem[i] != want;
        }
        CHECK_EQ(bad, 0);
    }
    qr_free(r);
}

/*
 * The receive side's RDMA Write (qp_rx_write_whole) into a region that
 * starts 1000 bytes into a page (first-page offset 1000): a payload that
 * lies in one page is placed at the translation of that page
 * (qp_one_page, the page position counting the first-page offset), one
 * across a page end in two pieces, and a Write of three FPDUs both ways;
 * every byte lands where its TO says and no other byte moves.
 */
static void test_whole_write_fpo(void)
{
    static const uint32_t at[] = {50, 3040, 3000, 100};
    static const uint32_t lens[] = {100, 100, 64, 4000};
    struct qr_rig *r = rig_o(false, false, 0);
    uint8_t *src = qr_alloc(&r->a, 4096, false);
    uint8_t *mem = qr_alloc(&r->b, 3 * 4096, true);
    uint32_t ls = qr_reg(&r->a, src, 4096, LR, 0);
    uint32_t lb = qr_reg(&r->b, mem + 1000, 3 * 4096 - 1000, LW | RW, 0);
    unsigned k;

    CHECK(ls != 0 && lb != 0);
    for (k = 0; k < 4; k++) {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint32_t i, bad = 0;

        for (i = 0; i < lens[k]; i++)
            src[i] = (uint8_t)(i * 11u + k + 1u);
        memset(mem, 0, 3 * 4096);
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, lens[k], ls);
        wr.remote_stag = lb;
        wr.remote_to = va(mem + 1000 + at[k]);
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->b.sim.violations, 0);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        for (i = 0; i < 3 * 4096; i++) {
            const uint32_t o = i - (1000 + at[k]);

            bad += mem[i] != (o < lens[k] ? src[o] : 0);
        }
        CHECK_EQ(bad, 0);
    }
    qr_free(r);
}

/*
 * The sender's side of the same (issue 30): an RDMA Write of one data
 * segment in two FPDUs (qp_sq_whole_multi) checks the segment and keeps
 * the translation of the first FPDU's payload when it lies in one page.
 * The source is a scattered region (its VA pages in reverse order in
 * memory); the first FPDU's payload ends a byte before, at or a byte
 * after VA page 0's end, so that a kept translation with a wrong bound
 * would read the bytes past the page end from the wrong page.
 */
static void test_whole_send_page_end(void)
{
    struct qr_rig *r = rig_o(false, false, 0);
    uint8_t *mem = qr_alloc(&r->a, 2 * 4096, true);
    uint8_t *dst = qr_alloc(&r->b, 2 * 4096, true);
    uint32_t la = reg_scattered(&r->a, mem, 2, LR);
    uint32_t lb = qr_reg(&r->b, dst, 2 * 4096, LW | RW, 0);
    const uint32_t max = r->a.qp.tx.mulpdu - OFL_DDP_TAGGED_HDR_LEN;
    const uint32_t total = max + 100;
    uint32_t i, d;

    CHECK(la != 0 && lb != 0);
    CHECK(max < 4096);
    /* VA byte v lies at mem[4096 + v] on VA page 0, at mem[v - 4096] on
     * VA page 1 */
    for (i = 0; i < 2 * 4096; i++)
        mem[i] = (uint8_t)(i * 13u + (i >> 8) + 1u);
    for (d = 0; d < 3; d++) { /* the first payload's end: 4095 .. 4097 */
        const uint32_t start = 4096u - max - 1u + d;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[2];
        uint32_t bad = 0, tx = r->a.qp.stats.tx_fpdus;

        memset(dst, 0, 2 * 4096);
        memset(&wr, 0, sizeof(wr));
        sge.addr = 0x40000000ull + start;
        sge.len = total;
        sge.stag = la;
        wr.opcode = OFL_QP_OP_WRITE;
        wr.wr_id = 20u + d;
        wr.flags = OFL_QP_WR_SIGNALED;
        wr.sge = &sge;
        wr.num_sge = 1;
        wr.remote_stag = lb;
        wr.remote_to = (uint64_t)(uintptr_t)dst;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(r->a.sim.violations, 0);
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->a.qp.stats.tx_fpdus - tx, 2);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        for (i = 0; i < total; i++) {
            const uint32_t v = start + i;

            bad += dst[i] != (v < 4096 ? mem[4096 + v] : mem[v - 4096]);
        }
        CHECK_EQ(bad, 0);
        CHECK(ofl_test_zero(dst + total, 2 * 4096 - total));
    }
    qr_free(r);
}

OFL_SUITE(qp_edges)
{
    test_whole_recv_page_end();
    test_whole_send_page_end();
    test_whole_write_fpo();
    test_fpdu_payload_edge();
    test_many_pieces(0);
    test_many_pieces(32768);
    test_hostile_wqes();
    test_ord();
    test_phys();
    test_fast_reg_refused_att();
    test_answer_failures();
    test_queue_edges();
    test_ooo_edges();
    test_doorbell_states();
    test_type2_life();
    test_silent_wqe();
    test_events_life();
    test_one_touch_stream_end();
    test_one_touch_table_full();
    test_ooo_recheck();
    test_atomic_result_invalidated();
    test_page_missing_anywhere();
    test_zero_length_last();
    test_kept_region_message_ends();
    test_budget_counts_segments();
    test_further_fpdus_checked_again();
    test_multi_fpdu_segment_checked_whole();
    test_multi_fpdu_total_rule();
    test_send_cq_armed_or_full();
    test_whole_send_mpa_checked();
    test_send_cut_everywhere();
    test_fpdu_inside_payload();
    test_port_without_dma();
}
