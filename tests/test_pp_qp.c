/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pp over real QPs: two qp_rigs, one per channel (seed 002 FIG. 7: the
 * control channel carries messages as Sends, the data channel RDMA Writes
 * with their indications). Side a is the host, side b the I/O unit.
 */
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define NRX 8       /* receive buffers per channel per side */
#define RXB 1024    /* bytes each */
#define PCAP 300    /* pool slots */
#define PMAX 64     /* elements per pool */

struct pq_end {
    struct ofl_pp_conn c;
    struct ofl_pp_pool rx_slot[PCAP], tx_slot[PCAP];
    uint32_t rx_bits[PCAP * 2], tx_bits[PCAP * 2];
    struct qr_side *cs, *ds;       /* the rig sides of each channel */
    uint8_t *crx, *drx;            /* receive buffers (NRX x RXB) */
    uint32_t crx_stag, drx_stag;
    uint8_t *tx, *dtx;             /* message send buffers (ctrl, data) */
    uint32_t tx_stag, dtx_stag;
};

static struct pq_end g_h, g_u;
static struct ofl_pp_msg g_m, g_in, g_reply;

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static int end_setup(struct pq_end *e, struct qr_side *cs, struct qr_side *ds)
{
    struct ofl_pp_conn_cfg cfg;
    uint32_t i;

    e->cs = cs;
    e->ds = ds;
    e->crx = qr_alloc(cs, NRX * RXB, false);
    e->drx = qr_alloc(ds, NRX * RXB, false);
    e->tx = qr_alloc(cs, 4096, false);
    e->dtx = qr_alloc(ds, 4096, false);
    if (e->crx == NULL || e->drx == NULL || e->tx == NULL || e->dtx == NULL)
        return -1;
    e->dtx_stag = qr_reg(ds, e->dtx, 4096, LR, 0);
    e->crx_stag = qr_reg(cs, e->crx, NRX * RXB, LW, 0);
    e->drx_stag = qr_reg(ds, e->drx, NRX * RXB, LW, 0);
    e->tx_stag = qr_reg(cs, e->tx, 4096, LR, 0);
    for (i = 0; i < NRX; i++)
        if (qr_post_recv(cs, i, e->crx + i * RXB, RXB, e->crx_stag) != OFL_OK ||
            qr_post_recv(ds, i, e->drx + i * RXB, RXB, e->drx_stag) != OFL_OK)
            return -1;
    memset(&cfg, 0, sizeof(cfg));
    cfg.ctrl = &cs->qp;
    cfg.data = &ds->qp;
    cfg.rx = (struct ofl_pp_pools_mem){e->rx_slot, PCAP, PMAX, e->rx_bits,
                                       PCAP * 2};
    cfg.tx = (struct ofl_pp_pools_mem){e->tx_slot, PCAP, PMAX, e->tx_bits,
                                       PCAP * 2};
    if (ofl_pp_conn_init(&e->c, &cfg) != OFL_OK ||
        ofl_pp_conn_start(&e->c) != OFL_OK)
        return -1;
    return 0;
}

/* Sends m on the control channel. */
static enum ofl_err send_ctrl(struct pq_end *e, const struct ofl_pp_msg *m)
{
    struct ofl_pp_buf b = {e->tx, va(e->tx), 4096, e->tx_stag};

    return ofl_pp_post_msg(&e->c, OFL_PP_CTRL, m, &b, 100);
}

/* Sends m on the channel it must take (ofl_pp_msg_channel). */
static enum ofl_err send_msg(struct pq_end *e, const struct ofl_pp_msg *m)
{
    struct ofl_pp_buf b = {e->dtx, va(e->dtx), 4096, e->dtx_stag};

    if (ofl_pp_msg_channel(m) == OFL_PP_CTRL)
        return send_ctrl(e, m);
    return ofl_pp_post_msg(&e->c, OFL_PP_DATA, m, &b, 101);
}

/* Takes every receive completion of e's channel (ctrl or data): messages
 * go to ofl_pp_conn_recv (a reply is sent back on its channel),
 * immediate data to ofl_pp_conn_recv_imm; each receive is posted again.
 * Returns the number of completions, or -1 on any refusal. refs collects
 * indications (may be NULL). */
static int drain(struct pq_end *e, bool data, struct ofl_pp_ref *refs,
                 uint32_t *nrefs)
{
    struct qr_side *s = data ? e->ds : e->cs;
    uint8_t *bufs = data ? e->drx : e->crx;
    uint32_t stag = data ? e->drx_stag : e->crx_stag;
    struct ofl_cqe c[16];
    uint32_t n = qr_poll(s, false, c, 16), i;

    for (i = 0; i < n; i++) {
        uint8_t *b = bufs + c[i].wr_id * RXB;

        if (c[i].status != OFL_WC_SUCCESS)
            return -1;
        if (c[i].opcode == OFL_QP_OP_RECV_IMM) {
            struct ofl_pp_ref r;

            if (ofl_pp_conn_recv_imm(&e->c, c[i].imm, &r) != OFL_OK)
                return -1;
            if (refs != NULL)
                refs[(*nrefs)++] = r;
        } else {
            uint32_t k;

            if (ofl_pp_conn_recv(&e->c, data ? OFL_PP_DATA : OFL_PP_CTRL, b,
                                 c[i].byte_len, &g_in, &g_reply) != OFL_OK)
                return -1;
            if (g_in.type == OFL_PP_BUFFER_RDMA_INDICATE && refs != NULL)
                for (k = 0; k < g_in.count; k++)
                    refs[(*nrefs)++] = g_in.u.ref[k];
            if (g_reply.type != 0 && send_msg(e, &g_reply) != OFL_OK)
                return -1;
        }
        if (qr_post_recv(s, c[i].wr_id, b, RXB, stag) != OFL_OK)
            return -1;
    }
    /* send completions are not needed: drop them */
    (void)qr_poll(s, true, c, 16);
    return (int)n;
}

static void test_pp_over_qps(void)
{
    struct qr_rig *rc = qr_new(NULL), *rd = qr_new(NULL);
    struct ofl_pp_pool_desc d[2];
    struct ofl_pp_write_req req;
    struct ofl_pp_write w;
    struct ofl_pp_ref refs[8], r;
    uint32_t nrefs = 0, i, pool;
    uint8_t *upool, *hsrc, *hind;
    uint32_t upool_stag, hsrc_stag, hind_stag;

    CHECK(rc != NULL && rd != NULL);
    if (rc == NULL || rd == NULL)
        goto out;
    CHECK_EQ(end_setup(&g_h, &rc->a, &rd->a), 0);
    CHECK_EQ(end_setup(&g_u, &rc->b, &rd->b), 0);
    /* the unit's pools live in its data-channel memory */
    upool = qr_alloc(&rd->b, 4 * 2048 + 2 * 5000, false);
    upool_stag = qr_reg(&rd->b, upool, 4 * 2048 + 2 * 5000, LW | RW, 0);
    hsrc = qr_alloc(&rd->a, 8192, false);
    hsrc_stag = qr_reg(&rd->a, hsrc, 8192, LR, 0);
    hind = qr_alloc(&rd->a, 64, false);
    hind_stag = qr_reg(&rd->a, hind, 64, LR, 0);
    CHECK(upool_stag != 0 && hsrc_stag != 0 && hind_stag != 0);
    for (i = 0; i < 8192; i++)
        hsrc[i] = (uint8_t)(i * 13 + 1);

    /* the unit advertises pool 1 (4 x 2048) and pool 256 (2 x 5000) */
    d[0] = (struct ofl_pp_pool_desc){1, 4, 2048, upool_stag, va(upool), 11};
    d[1] = (struct ofl_pp_pool_desc){256, 2, 5000, upool_stag,
                                     va(upool + 4 * 2048), 12};
    CHECK_OK(ofl_pp_advertise(&g_u.c, d, 2, &g_m));
    CHECK_OK(send_ctrl(&g_u, &g_m));
    qr_pump(rc, 0);
    CHECK_EQ(drain(&g_h, false, NULL, NULL), 1);
    CHECK_EQ(g_in.type, OFL_PP_BUFFER_RECV_POOL);
    CHECK_EQ(g_h.c.tx.active, 2);

    /* host pushes: (1, 0, 1500) by Write with Immediate ... */
    memset(&req, 0, sizeof(req));
    CHECK_OK(ofl_pp_pick(&g_h.c, 1500, &r));
    CHECK(r.pool == 1 && r.elem == 0);
    req.pool = r.pool;
    req.elem = r.elem;
    req.src = (struct ofl_qp_sge){va(hsrc), 1500, hsrc_stag};
    req.ind = (struct ofl_pp_buf){hind, va(hind), 64, hind_stag};
    req.wr_id = 10;
    CHECK_OK(ofl_pp_write(&g_h.c, &req, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_IMM);
    /* ... and 5000 bytes into pool 256: a BufferRDMAIndicate follows */
    req.pool = 256;
    req.elem = 1;
    req.src = (struct ofl_qp_sge){va(hsrc + 100), 5000, hsrc_stag};
    req.wr_id = 20;
    CHECK_OK(ofl_pp_write(&g_h.c, &req, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_MSG);
    CHECK_EQ(g_h.c.stats.writes_imm, 1);
    CHECK_EQ(g_h.c.stats.writes_msg, 1);
    /* the same element again: refused, nothing posted */
    i = ofl_qp_sq_outstanding(&rd->a.qp);
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_PP_CONSUMED);
    CHECK_EQ(ofl_qp_sq_outstanding(&rd->a.qp), i);
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_u, true, refs, &nrefs), 2);
    CHECK_EQ(nrefs, 2);
    CHECK(refs[0].pool == 1 && refs[0].elem == 0 && refs[0].len == 1500);
    CHECK(refs[1].pool == 256 && refs[1].elem == 1 && refs[1].len == 5000);
    CHECK(memcmp(upool, hsrc, 1500) == 0);
    CHECK(memcmp(upool + 4 * 2048 + 5000, hsrc + 100, 5000) == 0);
    CHECK(ofl_pp_pools_consumed(&g_u.c.rx, 1, 0));
    CHECK(ofl_pp_pools_consumed(&g_u.c.rx, 256, 1));

    /* the unit is done with both elements: one Update for both pools */
    refs[0].len = 1; /* runs of one element */
    refs[1].len = 1;
    CHECK_OK(ofl_pp_replenish(&g_u.c, refs, 2, &g_m));
    CHECK_OK(send_ctrl(&g_u, &g_m));
    qr_pump(rc, 0);
    CHECK_EQ(drain(&g_h, false, NULL, NULL), 1);
    CHECK_EQ(g_h.c.tx.slot[1].consumed + g_h.c.tx.slot[256].consumed, 0);

    /* the host flushes pool 1 (initiator side); a write attempted during
     * the flush is refused. Flush messages take the data channel, behind
     * the Writes; the control channel refuses them */
    pool = 1;
    CHECK_OK(ofl_pp_flush(&g_h.c, false, &pool, 1, 0xABC, &g_m));
    CHECK_ERR(send_ctrl(&g_h, &g_m), OFL_E_PP_CHANNEL);
    CHECK_OK(send_msg(&g_h, &g_m));
    req.pool = 1;
    req.elem = 2;
    req.src.len = 10;
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_PP_FLUSHING);
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_u, true, NULL, NULL), 1); /* request; reply sent */
    CHECK_EQ(g_u.c.rx.slot[1].state, OFL_PP_POOL_EMPTY);
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_h, true, NULL, NULL), 1); /* the reply */
    CHECK_EQ(g_h.c.tx.slot[1].state, OFL_PP_POOL_EMPTY);

    /* close: the unit flushes pool 256; both end CLOSED */
    CHECK_OK(ofl_pp_conn_close(&g_h.c));
    CHECK_OK(ofl_pp_conn_close(&g_u.c));
    pool = 256;
    CHECK_OK(ofl_pp_flush(&g_u.c, true, &pool, 1, 0xDEF, &g_m));
    CHECK_OK(send_msg(&g_u, &g_m));
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_h, true, NULL, NULL), 1);
    CHECK_EQ(g_h.c.state, OFL_PP_CLOSED);
    /* CLOSED posts nothing but that FlushReply */
    CHECK_ERR(send_msg(&g_h, &g_m), OFL_E_PP_CONN_STATE);
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_u, true, NULL, NULL), 1);
    CHECK_EQ(g_u.c.state, OFL_PP_CLOSED);
    CHECK_EQ(rc->a.sim.violations + rc->b.sim.violations, 0);
    CHECK_EQ(rd->a.sim.violations + rd->b.sim.violations, 0);
    CHECK_EQ(rc->a.qp.state + rd->b.qp.state, 2 * OFL_QP_RTS);

    /* a detached-style call on a QP connection, and a QP not in RTS */
    CHECK_ERR(ofl_pp_conn_start(&g_h.c), OFL_E_PP_CONN_STATE);
    CHECK_OK(ofl_qp_modify(&rd->a.qp, OFL_QP_ERROR));
    {
        struct ofl_pp_conn_cfg cfg;

        memset(&cfg, 0, sizeof(cfg));
        cfg.ctrl = &rc->a.qp;
        cfg.data = &rd->a.qp;
        cfg.rx = (struct ofl_pp_pools_mem){g_h.rx_slot, PCAP, PMAX,
                                           g_h.rx_bits, PCAP * 2};
        cfg.tx = (struct ofl_pp_pools_mem){g_h.tx_slot, PCAP, PMAX,
                                           g_h.tx_bits, PCAP * 2};
        CHECK_OK(ofl_pp_conn_init(&g_h.c, &cfg));
        CHECK_ERR(ofl_pp_conn_start(&g_h.c), OFL_E_PP_CONN_STATE);
        cfg.data = &rc->a.qp; /* the same QP for both channels */
        CHECK_ERR(ofl_pp_conn_init(&g_h.c, &cfg), OFL_E_ARG);
    }
out:
    qr_free(rc);
    qr_free(rd);
}

/* SQ room: a BufferRDMAIndicate write needs two slots. */
static void test_sq_room(void)
{
    struct qr_rig *rc = qr_new(NULL), *rd = qr_new(NULL);
    struct ofl_pp_pool_desc d;
    struct ofl_pp_write_req req;
    struct ofl_pp_write w;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint8_t *src;
    uint32_t stag;

    CHECK(rc != NULL && rd != NULL);
    if (rc == NULL || rd == NULL)
        goto out;
    CHECK_EQ(end_setup(&g_h, &rc->a, &rd->a), 0);
    CHECK_EQ(end_setup(&g_u, &rc->b, &rd->b), 0);
    d = (struct ofl_pp_pool_desc){290, 4, 64, 0x1234, 0x10000, 0};
    CHECK_OK(ofl_pp_advertise(&g_u.c, &d, 1, &g_m));
    CHECK_OK(send_ctrl(&g_u, &g_m));
    qr_pump(rc, 0);
    CHECK_EQ(drain(&g_h, false, NULL, NULL), 1);
    src = qr_alloc(&rd->a, 64, false);
    stag = qr_reg(&rd->a, src, 64, LR, 0);
    /* fill the SQ to one free slot with unsignalled zero-length writes */
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, NULL, 0, 0);
    while (rd->a.qp.sq.depth - ofl_qp_sq_outstanding(&rd->a.qp) > 1)
        CHECK_OK(ofl_qp_post_send(&rd->a.qp, &wr, NULL));
    memset(&req, 0, sizeof(req));
    req.pool = 290;
    req.src = (struct ofl_qp_sge){va(src), 64, stag};
    req.ind = (struct ofl_pp_buf){src, va(src), 64, stag};
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_QP_SQ_FULL);
    CHECK(!ofl_pp_pools_consumed(&g_h.c.tx, 290, 0));
    req.ind.cap = 19;
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_SIZE);
    req.ind.cap = 64;
    req.ind.p = NULL; /* no buffer for the BufferRDMAIndicate */
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_SIZE);
    CHECK(!ofl_pp_pools_consumed(&g_h.c.tx, 290, 0));
out:
    qr_free(rc);
    qr_free(rd);
}

/* Posting edges: arguments, a buffer too short, the data channel, a QP
 * refusing the Write after every pp check passed, states. */
static void test_post_edges(void)
{
    struct qr_rig *rc = qr_new(NULL), *rd = qr_new(NULL);
    struct ofl_pp_pool_desc d;
    struct ofl_pp_write_req req;
    struct ofl_pp_write w;
    struct ofl_pp_buf b;
    struct ofl_pp_conn_cfg cfg;
    uint8_t *src;
    uint32_t stag, sq;

    CHECK(rc != NULL && rd != NULL);
    if (rc == NULL || rd == NULL)
        goto out;
    CHECK_EQ(end_setup(&g_h, &rc->a, &rd->a), 0);
    CHECK_EQ(end_setup(&g_u, &rc->b, &rd->b), 0);
    b = (struct ofl_pp_buf){g_h.tx, va(g_h.tx), 4096, g_h.tx_stag};
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_SEND_DATA;
    g_m.data = (const uint8_t *)"to the LAN";
    g_m.data_len = 10;
    sq = ofl_qp_sq_outstanding(&rc->a.qp) + ofl_qp_sq_outstanding(&rd->a.qp);
    CHECK_ERR(ofl_pp_post_msg(NULL, OFL_PP_CTRL, &g_m, &b, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, NULL, &b, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, &g_m, NULL, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_post_msg(&g_h.c, (enum ofl_pp_channel)7, &g_m, &b, 1),
              OFL_E_ARG);
    b.cap = 17; /* SendData of 10 bytes needs 18 */
    CHECK_ERR(ofl_pp_post_msg(&g_h.c, OFL_PP_DATA, &g_m, &b, 1), OFL_E_SIZE);
    CHECK_EQ(ofl_qp_sq_outstanding(&rc->a.qp) +
                 ofl_qp_sq_outstanding(&rd->a.qp),
             sq);
    /* SendData on the data channel (from data-channel memory) reaches the
     * unit's data side */
    src = qr_alloc(&rd->a, 64, false);
    stag = qr_reg(&rd->a, src, 64, LR, 0);
    b = (struct ofl_pp_buf){src, va(src), 18, stag};
    CHECK_OK(ofl_pp_post_msg(&g_h.c, OFL_PP_DATA, &g_m, &b, 1));
    CHECK_EQ(ofl_qp_sq_outstanding(&rd->a.qp), 1);
    CHECK_EQ(ofl_qp_sq_outstanding(&rc->a.qp), 0);
    qr_pump(rd, 0);
    CHECK_EQ(drain(&g_u, true, NULL, NULL), 1);
    CHECK(g_in.type == OFL_PP_SEND_DATA && g_in.data_len == 10 &&
          memcmp(g_in.data, "to the LAN", 10) == 0);

    /* an element of 2^31 bytes: pp allows it, the QP refuses a Write that
     * long; nothing is consumed or posted */
    d = (struct ofl_pp_pool_desc){3, 1, 0x80000000u, 0x1234, 0x10000, 0};
    CHECK_OK(ofl_pp_advertise(&g_u.c, &d, 1, &g_m));
    CHECK_OK(send_ctrl(&g_u, &g_m));
    qr_pump(rc, 0);
    CHECK_EQ(drain(&g_h, false, NULL, NULL), 1);
    CHECK_EQ(g_h.c.tx.slot[3].state, OFL_PP_POOL_ACTIVE);
    memset(&req, 0, sizeof(req));
    req.pool = 3;
    req.src = (struct ofl_qp_sge){va(src), 0x80000000u, stag};
    req.ind = (struct ofl_pp_buf){src, va(src), 64, stag};
    sq = ofl_qp_sq_outstanding(&rd->a.qp);
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_QP_WR);
    CHECK(!ofl_pp_pools_consumed(&g_h.c.tx, 3, 0));
    CHECK_EQ(ofl_qp_sq_outstanding(&rd->a.qp), sq);
    CHECK_EQ(g_h.c.stats.writes_msg + g_h.c.stats.writes_imm, 0);
    req.src.len = 64; /* the same element, a length the QP takes */
    CHECK_OK(ofl_pp_write(&g_h.c, &req, &w));
    CHECK(ofl_pp_pools_consumed(&g_h.c.tx, 3, 0));
    CHECK_EQ(ofl_qp_sq_outstanding(&rd->a.qp), sq + 1);

    /* ERROR posts nothing, not even a FlushReply */
    ofl_pp_conn_fail(&g_h.c);
    CHECK_EQ(g_h.c.state, OFL_PP_ERROR);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
    CHECK_ERR(send_msg(&g_h, &g_m), OFL_E_PP_CONN_STATE);
    /* START needs the control QP in RTS too */
    CHECK_OK(ofl_qp_modify(&rd->a.qp, OFL_QP_ERROR));
    memset(&cfg, 0, sizeof(cfg));
    cfg.ctrl = &rd->a.qp; /* in ERROR */
    cfg.data = &rc->a.qp; /* in RTS */
    cfg.rx = (struct ofl_pp_pools_mem){g_h.rx_slot, PCAP, PMAX, g_h.rx_bits,
                                       PCAP * 2};
    cfg.tx = (struct ofl_pp_pools_mem){g_h.tx_slot, PCAP, PMAX, g_h.tx_bits,
                                       PCAP * 2};
    CHECK_OK(ofl_pp_conn_init(&g_h.c, &cfg));
    CHECK_ERR(ofl_pp_conn_start(&g_h.c), OFL_E_PP_CONN_STATE);
    CHECK_EQ(g_h.c.state, OFL_PP_DOWN);
out:
    qr_free(rc);
    qr_free(rd);
}

OFL_SUITE(pp_qp)
{
    test_pp_over_qps();
    test_sq_room();
    test_post_edges();
}
