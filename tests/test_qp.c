/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: the state table, creation, posting and its checks, doorbells,
 * completion queues, demultiplexing by quintuple. */
#include "test.h"
#include "support/qp_rig.h"

#include <stdlib.h>

#define N OFL_QP_STATES
#define RS OFL_QP_RESET
#define IN OFL_QP_INIT
#define RR OFL_QP_RTR
#define RT OFL_QP_RTS
#define SD OFL_QP_SQD
#define SE OFL_QP_SQE
#define ER OFL_QP_ERROR
#define TM OFL_QP_TERMINATE
#define CL OFL_QP_CLOSING

/* The table of offload.h, restated: rows states, columns events. */
static const uint8_t expect_table[OFL_QP_STATES][OFL_QP_EVENTS] = {
    {RS, IN, N, N, N, ER, N, N, N, N, N, N, N, N},
    {RS, IN, RR, N, N, ER, N, RT, N, N, N, N, N, N},
    {RS, N, N, RT, N, ER, N, RT, N, N, N, N, N, N},
    {RS, N, N, RT, SD, ER, CL, N, SE, SD, TM, ER, ER, ER},
    {RS, N, N, RT, SD, ER, CL, N, SE, SD, TM, ER, ER, ER},
    {RS, N, N, RT, N, ER, N, N, SE, SE, TM, ER, ER, ER},
    {RS, N, N, N, N, ER, N, N, ER, ER, ER, ER, ER, ER},
    {RS, N, N, N, N, ER, N, N, TM, TM, TM, ER, ER, ER},
    {RS, N, N, N, N, ER, CL, N, ER, ER, TM, ER, RS, ER}};

static void test_table(void)
{
    unsigned s, e, bad = 0;

    for (s = 0; s < OFL_QP_STATES; s++)
        for (e = 0; e < OFL_QP_EVENTS; e++)
            if (ofl_qp_state_next((enum ofl_qp_state)s,
                                  (enum ofl_qp_event)e) != expect_table[s][e])
                bad++;
    CHECK_EQ(bad, 0);
    CHECK_EQ(ofl_qp_state_next(OFL_QP_STATES, OFL_QP_EV_MOD_RESET),
             OFL_QP_STATES);
    CHECK_EQ(ofl_qp_state_next(OFL_QP_RTS, OFL_QP_EVENTS), OFL_QP_STATES);
    CHECK(strcmp(ofl_qp_state_name(OFL_QP_RTS), "RTS") == 0);
    CHECK(strcmp(ofl_qp_state_name(OFL_QP_CLOSING), "CLOSING") == 0);
    CHECK(strcmp(ofl_qp_state_name(OFL_QP_STATES), "?") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_QP_TRANSITION), "OFL_E_QP_TRANSITION") ==
          0);
}

/* Drives side a of a fresh rig into state st through the API. */
static bool reach(struct qr_rig *r, enum ofl_qp_state st)
{
    struct ofl_qp *qp = &r->a.qp;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    switch (st) {
    case OFL_QP_RESET:
        return ofl_qp_modify(qp, OFL_QP_RESET) == OFL_OK;
    case OFL_QP_INIT:
        return ofl_qp_modify(qp, OFL_QP_RESET) == OFL_OK &&
               ofl_qp_modify(qp, OFL_QP_INIT) == OFL_OK;
    case OFL_QP_RTR:
        return reach(r, OFL_QP_INIT) &&
               ofl_qp_modify(qp, OFL_QP_RTR) == OFL_OK;
    case OFL_QP_RTS:
        return qp->state == OFL_QP_RTS;
    case OFL_QP_SQD:
        return ofl_qp_modify(qp, OFL_QP_SQD) == OFL_OK;
    case OFL_QP_SQE: /* a Send whose data segment names no STag */
        qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, r->a.mem, 8, 0x999);
        return qr_post_send(&r->a, &wr) == OFL_OK &&
               qr_process(&r->a, 0) == OFL_OK && qp->state == OFL_QP_SQE;
    case OFL_QP_ERROR:
        return ofl_qp_modify(qp, OFL_QP_ERROR) == OFL_OK;
    case OFL_QP_TERMINATE: { /* a Write to an STag b does not have */
        {
            uint8_t *p = qr_alloc(&r->b, 16, false);
            uint32_t l = qr_reg(&r->b, p, 16, OFL_TPT_LOCAL_READ, 0);

            qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, p, 16, l);
            wr.remote_stag = 0x4242;
            if (qr_post_send(&r->b, &wr) != OFL_OK)
                return false;
        }
        qr_pump(r, 0);
        return qp->state == OFL_QP_TERMINATE;
    }
    case OFL_QP_CLOSING:
        return ofl_qp_modify(qp, OFL_QP_CLOSING) == OFL_OK;
    default:
        return false;
    }
}

/* Every consumer transition from every state, through ofl_qp_modify. */
static void test_modify_all(void)
{
    static const uint8_t mod_ev[OFL_QP_STATES] = {
        OFL_QP_EV_MOD_RESET, OFL_QP_EV_MOD_INIT, OFL_QP_EV_MOD_RTR,
        OFL_QP_EV_MOD_RTS, OFL_QP_EV_MOD_SQD, 0xFF, OFL_QP_EV_MOD_ERROR,
        0xFF, OFL_QP_EV_MOD_CLOSING};
    unsigned from, to, bad = 0, tried = 0;

    for (from = 0; from < OFL_QP_STATES; from++) {
        for (to = 0; to < OFL_QP_STATES; to++) {
            struct qr_rig *r = qr_new(NULL);
            enum ofl_err err, want;
            uint8_t next;

            if (r == NULL || !reach(r, (enum ofl_qp_state)from)) {
                bad++;
                qr_free(r);
                continue;
            }
            tried++;
            err = ofl_qp_modify(&r->a.qp, (enum ofl_qp_state)to);
            next = mod_ev[to] == 0xFF ? N : expect_table[from][mod_ev[to]];
            want = next == N ? OFL_E_QP_TRANSITION : OFL_OK;
            if (from == OFL_QP_RTR && to == OFL_QP_RTS)
                want = OFL_E_QP_STATE; /* a stream service needs ESTAB */
            if (err != want) {
                printf("modify %s -> %s: %s\n",
                       ofl_qp_state_name((enum ofl_qp_state)from),
                       ofl_qp_state_name((enum ofl_qp_state)to),
                       ofl_strerror(err));
                bad++;
            } else if (err == OFL_OK && r->a.qp.state != next) {
                bad++;
            } else if (err != OFL_OK && r->a.qp.state != from) {
                bad++;
            }
            qr_free(r);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(tried, OFL_QP_STATES * OFL_QP_STATES);
    CHECK_ERR(ofl_qp_modify(NULL, OFL_QP_RTS), OFL_E_ARG);
}

/* The adapter events in the states where they can happen. */
static void test_events(void)
{
    struct qr_rig *r = qr_new(NULL);

    /* LLP events. */
    CHECK_OK(ofl_qp_llp_event(&r->a.qp, true));
    CHECK_EQ(r->a.qp.state, OFL_QP_ERROR);
    CHECK(r->a.qp.events & OFL_QP_EVT_CLOSED);
    CHECK_ERR(ofl_qp_llp_event(NULL, true), OFL_E_ARG);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RESET));
    CHECK_ERR(ofl_qp_llp_event(&r->a.qp, false), OFL_E_QP_TRANSITION);
    qr_free(r);
    /* CLOSING -> RESET when the LLP closes and nothing is left. */
    r = qr_new(NULL);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_CLOSING));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.closes, 1);
    CHECK(r->ab.closed);
    CHECK_OK(qr_process(&r->a, 0)); /* asked once */
    CHECK_EQ(r->a.closes, 1);
    CHECK_OK(ofl_qp_llp_event(&r->a.qp, false));
    CHECK_EQ(r->a.qp.state, OFL_QP_RESET);
    qr_free(r);
    /* ... and ERROR with a receive WQE still posted (flushed). */
    r = qr_new(NULL);
    CHECK_OK(qr_post_recv(&r->a, 5, NULL, 0, 0));
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_CLOSING));
    CHECK_OK(ofl_qp_llp_event(&r->a.qp, false));
    CHECK_EQ(r->a.qp.state, OFL_QP_ERROR);
    {
        struct ofl_cqe c[2];

        CHECK_EQ(qr_poll(&r->a, false, c, 2), 1);
        CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
        CHECK_EQ(c[0].wr_id, 5);
    }
    qr_free(r);
    /* Establishing twice is refused by the table. */
    r = qr_new(NULL);
    CHECK_ERR(ofl_qp_establish(&r->a.qp, &r->pa, 1460, 0, 1000),
              OFL_E_QP_TRANSITION);
    qr_free(r);
}

/* ---- creation ----------------------------------------------------------- */

static void test_create(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct qr_side *s = &r->a;
    struct ofl_qp *qp = malloc(sizeof(*qp));
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;

    CHECK(qp != NULL);
    CHECK_OK(ofl_qp_create(qp, &s->attr, &s->qmem));
    CHECK_EQ(qp->state, OFL_QP_RESET);
    CHECK_EQ(qp->sq.stride, 256);
    CHECK_EQ(qp->rq.stride, 128);
    CHECK_ERR(ofl_qp_create(NULL, &s->attr, &s->qmem), OFL_E_ARG);
    CHECK_ERR(ofl_qp_create(qp, NULL, &s->qmem), OFL_E_ARG);
    CHECK_ERR(ofl_qp_create(qp, &s->attr, NULL), OFL_E_ARG);
#define TRY_ATTR(stmt, want)                                                 \
    do {                                                                     \
        a = s->attr;                                                         \
        stmt;                                                                \
        CHECK_ERR(ofl_qp_create(qp, &a, &s->qmem), want);                    \
    } while (0)
    TRY_ATTR(a.service = 0, OFL_E_QP_SERVICE);
    TRY_ATTR(a.service = 15, OFL_E_QP_SERVICE);
    TRY_ATTR(a.service = 19, OFL_E_QP_SERVICE); /* past the datagram kinds */
    TRY_ATTR(a.service = OFL_QP_SVC_RD, OFL_E_ARG); /* no node, max_dgram */
    TRY_ATTR(a.tpt = NULL, OFL_E_ARG);
    TRY_ATTR(a.send_cq = NULL, OFL_E_ARG);
    TRY_ATTR(a.recv_cq = NULL, OFL_E_ARG);
    TRY_ATTR(a.transmit = NULL, OFL_E_ARG);
    TRY_ATTR(a.ord = 0, OFL_E_ARG);
    TRY_ATTR(a.ird = 3, OFL_E_ARG);
    TRY_ATTR(a.ird = 0, OFL_E_ARG);
    TRY_ATTR(a.reg_option = 0, OFL_E_ARG);
    TRY_ATTR(a.reg_option = 3, OFL_E_ARG);
    TRY_ATTR(a.sq_reg = 2, OFL_E_ARG);
    TRY_ATTR((a.service = OFL_QP_SVC_ISCSI, a.iscsi_max_data = 100),
             OFL_E_ARG);
    TRY_ATTR((a.service = OFL_QP_SVC_ISCSI, a.iscsi_max_data = 512), OFL_OK);
    /* RFC 3720 §12.12: at most 2^24 - 1 (and no wrap of 48 + it) */
    TRY_ATTR((a.service = OFL_QP_SVC_ISCSI, a.iscsi_max_data = 0x1000000u),
             OFL_E_ARG);
    TRY_ATTR((a.service = OFL_QP_SVC_ISCSI, a.iscsi_max_data = 0xFFFFFFF0u),
             OFL_E_ARG);
    TRY_ATTR(a.reg_option = 2, OFL_OK);
    {
        /* a port of version 0 is refused (offload.h, the port section) */
        struct ofl_port bad = *s->attr.port;

        bad.version = 0;
        TRY_ATTR(a.port = &bad, OFL_E_PORT_VERSION);
        TRY_ATTR(a.port = NULL, OFL_OK); /* none: no host rings here */
    }
#define TRY_MEM(stmt, want)                                                  \
    do {                                                                     \
        m = s->qmem;                                                         \
        stmt;                                                                \
        CHECK_ERR(ofl_qp_create(qp, &s->attr, &m), want);                    \
    } while (0)
    TRY_MEM(m.sq_track = NULL, OFL_E_ARG);
    TRY_MEM(m.irq = NULL, OFL_E_ARG);
    TRY_MEM(m.ord_ring = NULL, OFL_E_ARG);
    TRY_MEM(m.tx_buf = NULL, OFL_E_ARG);
    TRY_MEM(m.rx_buf = NULL, OFL_E_ARG);
    TRY_MEM(m.sq_sge = NULL, OFL_E_ARG);
    TRY_MEM((m.sq_sge = NULL, m.sq_max_sge = 0), OFL_OK);
    TRY_MEM(m.rq_sge = NULL, OFL_E_ARG);
    TRY_MEM((m.rq_sge = NULL, m.rq_max_sge = 0), OFL_OK);
    TRY_MEM(m.ot_pending = NULL, OFL_E_ARG);
    TRY_MEM((m.ot_pending = NULL, m.ot_cap = 0), OFL_OK);
    TRY_MEM(m.ooo = NULL, OFL_E_ARG);
    TRY_MEM((m.ooo = NULL, m.ooo_cap = 0), OFL_OK);
    TRY_MEM(m.sq_host = 2, OFL_E_ARG);
    TRY_MEM(m.rq_host = 2, OFL_E_ARG);
    TRY_MEM(m.sq_depth = 3, OFL_E_ARG);
    TRY_MEM(m.sq_depth = 0, OFL_E_ARG);
    TRY_MEM(m.rq_depth = 1u << 17, OFL_E_ARG);
    TRY_MEM(m.sq_max_sge = OFL_QP_SQ_SGE_MAX + 1, OFL_E_ARG);
    TRY_MEM(m.rq_max_sge = OFL_QP_RQ_SGE_MAX + 1, OFL_E_ARG);
    TRY_MEM(m.sq_ring = NULL, OFL_E_ARG);
    TRY_MEM(m.rq_ring = NULL, OFL_E_ARG);
    TRY_MEM(m.sq_host = 1, OFL_OK);
    /* A ring in host memory needs DMA. */
    {
        struct ofl_port nodma = s->sim.port;

        nodma.dma_read = NULL;
        a = s->attr;
        a.port = &nodma;
        m = s->qmem;
        m.rq_host = 1;
        CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_ARG);
        a.port = NULL;
        CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_ARG);
    }
    /* iSCSI buffers. */
    a = s->attr;
    a.service = OFL_QP_SVC_ISCSI;
    m = s->qmem;
    m.rx_cap = 1000;
    CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_SIZE);
    m = s->qmem;
    m.tx_cap = 48 + 8000;
    CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_SIZE);
    m.tx_cap = 48 + 8192;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    /* the pad of a Data-Out of iscsi_max_data bytes must fit too */
    a.iscsi_max_data = 513;
    m.tx_cap = 48 + 513;
    CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_SIZE);
    m.tx_cap = 48 + 516;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    a.iscsi_max_data = 0xFFFFFFu; /* the largest: 48 + 2^24 */
    m.tx_cap = 48 + 0xFFFFFFu;
    CHECK_ERR(ofl_qp_create(qp, &a, &m), OFL_E_SIZE);
    m.tx_cap = 48 + 0x1000000u;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_EQ(ofl_qp_ring_size(64, 4, true), 64 * 256);
    CHECK_EQ(ofl_qp_ring_size(64, 0, false), 64 * 32);
    CHECK_EQ(ofl_qp_ring_size(64, 15, false), 64 * 256);
    CHECK_EQ(ofl_qp_ring_size(3, 1, true), 0);
    CHECK_EQ(ofl_qp_ring_size(64, 12, true), 0);
    CHECK_EQ(ofl_qp_tx_need(1454, false), 1460);
    CHECK(ofl_qp_tx_need(1454, true) >= 1460 + 4 * 3);
    free(qp);
    qr_free(r);
}

/* establish: arguments, buffer sizes, negotiated ORD. */
static void test_establish(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_qp *qp = malloc(sizeof(*qp));
    struct ofl_mpa_params p = r->pa;
    struct ofl_qp_mem m = r->a.qmem;
    struct ofl_qp_attr a = r->a.attr;

    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, 1000), OFL_E_QP_TRANSITION);
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_ERR(ofl_qp_establish(NULL, &p, 1460, 0, 1000), OFL_E_ARG);
    CHECK_ERR(ofl_qp_establish(qp, NULL, 1460, 0, 1000), OFL_E_ARG);
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, OFL_SEQ_WND_MAX + 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_qp_establish(qp, &p, 10, 0, 1000), OFL_E_ARG);
    CHECK_ERR(ofl_qp_establish(qp, &p, 75, 0, 1000), OFL_E_ARG);
    /* tx buffer too small for the MULPDU */
    m.tx_cap = 1000;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, 1000), OFL_E_SIZE);
    /* an EMSS the MPA length field cannot carry is the argument error of
     * ofl_mpa_tx_init, before any buffer size is looked at */
    CHECK_ERR(ofl_qp_establish(qp, &p, 0x10000, 0, 1000), OFL_E_ARG);
    CHECK_EQ(qp->state, OFL_QP_INIT);
    /* an IRD advertised beyond the QP's inbound slots (RFC 6581): the
     * peer would be terminated for keeping to it */
    p.ird = a.ird + 1u;
    CHECK_ERR(ofl_qp_establish(qp, &p, 900, 0, 1000), OFL_E_ARG);
    CHECK_EQ(qp->state, OFL_QP_INIT);
    p.enhanced = false; /* no block exchanged: nothing was advertised */
    CHECK_OK(ofl_qp_establish(qp, &p, 900, 0, 1000));
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    p.enhanced = true;
    p.ird = a.ird;
    CHECK_OK(ofl_qp_establish(qp, &p, 900, 0, 1000));
    /* markers sent need the staging buffer */
    m = r->a.qmem;
    m.tx_stage = NULL;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    p.markers_tx = true;
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, 1000), OFL_E_SIZE);
    p.markers_tx = false;
    /* rx buffer of zero bytes: the MPA receiver refuses */
    m = r->a.qmem;
    m.rx_cap = 0;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_ERR(ofl_qp_establish(qp, &p, 1460, 0, 1000), OFL_E_ARG);
    /* ORD from the RFC 6581 block: the lower one, at least 1 */
    m = r->a.qmem;
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RTR));
    CHECK_ERR(ofl_qp_modify(qp, OFL_QP_RTR), OFL_E_QP_TRANSITION);
    p.enhanced = true;
    p.ord = 2;
    CHECK_OK(ofl_qp_establish(qp, &p, 1460, 0, 1000));
    CHECK_EQ(qp->ord, 2);
    CHECK_EQ(qp->state, OFL_QP_RTS);
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    p.ord = 0;
    CHECK_OK(ofl_qp_establish(qp, &p, 1460, 0, 1000));
    CHECK_EQ(qp->ord, 1);
    CHECK_OK(ofl_qp_create(qp, &a, &m));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    p.ord = 100;
    CHECK_OK(ofl_qp_establish(qp, &p, 1460, 0, 1000));
    CHECK_EQ(qp->ord, a.ord);
    free(qp);
    qr_free(r);
}

/* ---- posting --------------------------------------------------------------- */

static void test_post_checks(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_qp *qp = &r->a.qp;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge[6];
    struct ofl_qp_recv_wr rw;
    uint32_t out = 0, i;
    uint8_t *p = qr_alloc(&r->a, 64, false);

    memset(sge, 0, sizeof(sge));
    for (i = 0; i < 6; i++) {
        sge[i].addr = (uint64_t)(uintptr_t)p;
        sge[i].len = 8;
        sge[i].stag = 0x100;
    }
    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge[0], p, 8, 0x100);
    CHECK_ERR(ofl_qp_post_send(NULL, &wr, &out), OFL_E_ARG);
    CHECK_ERR(ofl_qp_post_send(qp, NULL, &out), OFL_E_ARG);
    wr.sge = NULL;
    CHECK_ERR(ofl_qp_post_send(qp, &wr, &out), OFL_E_ARG);
    wr.sge = sge;
    CHECK_OK(ofl_qp_post_send(qp, &wr, &out));
    CHECK_EQ(out, 0);
    CHECK_OK(ofl_qp_post_send(qp, &wr, NULL));
    /* the doorbell: id 10 with the new producer index */
    CHECK(r->a.sim.nevents >= 2);
    CHECK_EQ(r->a.sim.event[r->a.sim.nevents - 1].a, 10);
    CHECK_EQ(r->a.sim.event[r->a.sim.nevents - 1].b, 2);
    /* opcode rules */
#define TRY_WR(stmt, want)                                                   \
    do {                                                                     \
        uint32_t pi_ = qp->sq.pi;                                            \
        qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge[0], p, 8, 0x100);                 \
        stmt;                                                                \
        CHECK_ERR(ofl_qp_post_send(qp, &wr, &out), want);                    \
        CHECK_EQ(qp->sq.pi, pi_ + ((want) == OFL_OK));                       \
    } while (0)
    TRY_WR(wr.opcode = 0, OFL_E_QP_OPCODE);
    TRY_WR(wr.opcode = OFL_QP_OP_RECV, OFL_E_QP_OPCODE);
    TRY_WR(wr.opcode = OFL_QP_OP_ISCSI_CMD, OFL_E_QP_OPCODE);
    TRY_WR(wr.opcode = OFL_QP_OP_ISCSI_PDU, OFL_E_QP_OPCODE);
    TRY_WR(wr.opcode = OFL_QP_OP_FAST_REG, OFL_E_QP_OPCODE); /* sq_reg off */
    TRY_WR(wr.opcode = OFL_QP_OP_REG_SEND, OFL_E_QP_OPCODE);
    TRY_WR(wr.flags = 0x80, OFL_E_QP_WR);
    TRY_WR(wr.flags = OFL_QP_WR_FENCE | OFL_QP_WR_SOLICITED, OFL_OK);
    TRY_WR((wr.num_sge = 5), OFL_E_QP_SGE);
    TRY_WR((wr.num_sge = 4), OFL_OK);
    TRY_WR((wr.opcode = OFL_QP_OP_READ, wr.num_sge = 2), OFL_E_QP_WR);
    TRY_WR((wr.opcode = OFL_QP_OP_READ, wr.num_sge = 0), OFL_OK);
    TRY_WR((wr.opcode = OFL_QP_OP_ATOMIC_FADD), OFL_OK);
    TRY_WR((wr.opcode = OFL_QP_OP_ATOMIC_FADD, wr.remote_to = 4),
           OFL_E_QP_WR);
    TRY_WR((wr.opcode = OFL_QP_OP_ATOMIC_CSWAP, sge[0].len = 4), OFL_E_QP_WR);
    sge[0].len = 8;
    TRY_WR((wr.opcode = OFL_QP_OP_ATOMIC_CSWAP, wr.num_sge = 2), OFL_E_QP_WR);
    TRY_WR((sge[0].len = 0x7FFFFFFFu, sge[1].len = 1, wr.num_sge = 2),
           OFL_E_QP_WR);
    TRY_WR((sge[0].len = 0x7FFFFFFEu, sge[1].len = 1, wr.num_sge = 2),
           OFL_OK);
    sge[0].len = sge[1].len = 8;
    TRY_WR(wr.opcode = OFL_QP_OP_WRITE_IMM, OFL_OK);
    TRY_WR(wr.opcode = OFL_QP_OP_BIND, OFL_OK);
    TRY_WR(wr.opcode = OFL_QP_OP_LOCAL_INV, OFL_OK);
    TRY_WR(wr.opcode = OFL_QP_OP_DELAY, OFL_OK);
    TRY_WR(wr.opcode = OFL_QP_OP_SEND_INV, OFL_OK);
    CHECK_EQ(qp->sq.pi, 12);
    /* A send queue of no data segments (sq_max_sge 0, which ofl_qp_create
     * allows; the limit lowered here on this QP): a Send, Send with
     * Invalidate or Write of one data segment is refused, of none
     * posted. */
    {
        const uint32_t max_sge = qp->sq.max_sge;

        qp->sq.max_sge = 0;
        TRY_WR((void)0, OFL_E_QP_SGE);
        TRY_WR(wr.opcode = OFL_QP_OP_SEND_INV, OFL_E_QP_SGE);
        TRY_WR(wr.opcode = OFL_QP_OP_WRITE, OFL_E_QP_SGE);
        TRY_WR(wr.num_sge = 0, OFL_OK);
        qp->sq.max_sge = max_sge;
        /* the WQE's id is the producer index it went in at */
        out = 0xFFFFFFFFu;
        qr_wr(&wr, OFL_QP_OP_WRITE, 9, &sge[0], p, 8, 0x100);
        CHECK_OK(ofl_qp_post_send(qp, &wr, &out));
        CHECK_EQ(out, qp->sq.pi - 1u);
        CHECK_EQ(out, 13);
    }
    /* ring full: depth 64, nothing completed yet */
    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge[0], p, 8, 0x100);
    while (qp->sq.pi - qp->sq.cc < qp->sq.depth)
        CHECK_OK(ofl_qp_post_send(qp, &wr, NULL));
    CHECK_ERR(ofl_qp_post_send(qp, &wr, NULL), OFL_E_QP_SQ_FULL);
    /* state */
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RESET));
    CHECK_ERR(ofl_qp_post_send(qp, &wr, NULL), OFL_E_QP_STATE);
    CHECK_ERR(qr_post_recv(&r->a, 1, NULL, 0, 0), OFL_E_QP_STATE);
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_ERR(ofl_qp_post_send(qp, &wr, NULL), OFL_E_QP_STATE);
    CHECK_OK(qr_post_recv(&r->a, 1, NULL, 0, 0));
    /* receive checks */
    memset(&rw, 0, sizeof(rw));
    rw.sge = sge;
    rw.num_sge = 5;
    CHECK_ERR(ofl_qp_post_recv(qp, &rw), OFL_E_QP_SGE);
    CHECK_ERR(ofl_qp_post_recv(NULL, &rw), OFL_E_ARG);
    CHECK_ERR(ofl_qp_post_recv(qp, NULL), OFL_E_ARG);
    rw.sge = NULL;
    CHECK_ERR(ofl_qp_post_recv(qp, &rw), OFL_E_ARG);
    rw.sge = sge;
    rw.num_sge = 2;
    sge[0].len = 0x7FFFFFFFu;
    sge[1].len = 1;
    CHECK_ERR(ofl_qp_post_recv(qp, &rw), OFL_E_QP_WR);
    sge[1].len = 0;
    CHECK_OK(ofl_qp_post_recv(qp, &rw));
    /* one data segment: the same 2^31 rule */
    rw.num_sge = 1;
    sge[0].len = 0x80000000u;
    CHECK_ERR(ofl_qp_post_recv(qp, &rw), OFL_E_QP_WR);
    sge[0].len = 0x7FFFFFFFu;
    CHECK_OK(ofl_qp_post_recv(qp, &rw));
    rw.num_sge = 2;
    while (qp->rq.pi - qp->rq.cc < qp->rq.depth)
        CHECK_OK(ofl_qp_post_recv(qp, &rw));
    CHECK_ERR(ofl_qp_post_recv(qp, &rw), OFL_E_QP_RQ_FULL);
    CHECK_EQ(ofl_qp_rq_outstanding(qp), 64);
    CHECK_EQ(ofl_qp_sq_outstanding(qp), 0);
    CHECK_EQ(ofl_qp_rq_outstanding(NULL), 0);
    CHECK_EQ(ofl_qp_sq_outstanding(NULL), 0);
    /* CLOSING: no new sends */
    qr_free(r);
    r = qr_new(NULL);
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_CLOSING));
    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge[0], NULL, 0, 0);
    CHECK_ERR(ofl_qp_post_send(&r->a.qp, &wr, NULL), OFL_E_QP_STATE);
    CHECK_OK(qr_post_recv(&r->a, 1, NULL, 0, 0));
    qr_free(r);
    /* FAST_REG / REG_SEND with sq_reg; iSCSI opcodes on an iSCSI QP */
    {
        struct qr_opts o;

        memset(&o, 0, sizeof(o));
        o.sq_reg = 1;
        r = qr_new(&o);
        qr_wr(&wr, OFL_QP_OP_FAST_REG, 9, &sge[0], NULL, 0, 0);
        wr.stag = 0x1234;
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
        CHECK_EQ(out, 0x1234); /* FIG. 11: the STag at once */
        wr.opcode = OFL_QP_OP_REG_SEND;
        wr.stag = 0x5678;
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
        CHECK_EQ(out, 0x5678);
        qr_free(r);
        o.service = OFL_QP_SVC_ISCSI;
        r = qr_new(&o);
        CHECK(r != NULL);
        qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge[0], NULL, 0, 0);
        CHECK_ERR(ofl_qp_post_send(&r->a.qp, &wr, NULL), OFL_E_QP_OPCODE);
        wr.opcode = OFL_QP_OP_REG_SEND;
        CHECK_ERR(ofl_qp_post_send(&r->a.qp, &wr, NULL), OFL_E_QP_OPCODE);
        wr.opcode = OFL_QP_OP_ISCSI_PDU;
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
        CHECK_EQ(out, 0);
        p = qr_alloc(&r->a, 64, false);
        qr_wr(&wr, OFL_QP_OP_ISCSI_CMD, 9, &sge[0], p, 0, 0);
        /* a data buffer of no bytes */
        CHECK_ERR(ofl_qp_post_send(&r->a.qp, &wr, NULL), OFL_E_QP_WR);
        sge[0].len = 8;
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
        CHECK_EQ(out, 1); /* the first command ID */
        wr.num_sge = 0; /* a command without data */
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &out));
        CHECK_EQ(out, 2);
        qr_free(r);
    }
}

/* Doorbells of rings in host memory. */
static void test_doorbell(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    memset(&o, 0, sizeof(o));
    o.host_rings = true;
    r = qr_new(&o);
    CHECK_ERR(ofl_qp_doorbell(NULL, OFL_QP_RING_SQ, 0), OFL_E_ARG);
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, (enum ofl_qp_ring)2, 0), OFL_E_ARG);
    qr_wr(&wr, OFL_QP_OP_DELAY, 1, &sge, NULL, 0, 0);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_EQ(r->a.qp.sq.db_pi, 0); /* not before the doorbell */
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 0);
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 65), OFL_E_QP_DOORBELL);
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 0xFFFFFFFFu),
              OFL_E_QP_DOORBELL);
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 1));
    CHECK_ERR(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 0), OFL_E_QP_DOORBELL);
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 2));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 2); /* fetched by DMA */
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK(r->a.sim.dma_reads >= 2);
    /* A DMA failure fetching a WQE: the WQE fails, the QP goes to SQE. */
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 3));
    r->a.sim.fail_dma_countdown = 1;
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_QP_OP_ERR);
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    qr_free(r);
    /* A caller-memory ring ignores doorbells. */
    r = qr_new(NULL);
    CHECK_OK(ofl_qp_doorbell(&r->b.qp, OFL_QP_RING_SQ, 7));
    CHECK_EQ(r->b.qp.sq.db_pi, 0);
    qr_free(r);
}

/* ---- completion queues --------------------------------------------------- */

static void test_cq(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_cq cq;
    struct ofl_cqe ring[4], out[8];
    uint32_t n = 9;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    unsigned long notes;

    CHECK_ERR(ofl_cq_init(NULL, ring, 4, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_cq_init(&cq, NULL, 4, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_cq_init(&cq, ring, 3, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_cq_init(&cq, ring, 0, NULL, 0), OFL_E_ARG);
    CHECK_OK(ofl_cq_init(&cq, ring, 4, NULL, 0));
    CHECK_OK(ofl_cq_poll(&cq, out, 8, &n));
    CHECK_EQ(n, 0);
    CHECK_ERR(ofl_cq_poll(NULL, out, 8, &n), OFL_E_ARG);
    CHECK_ERR(ofl_cq_poll(&cq, NULL, 8, &n), OFL_E_ARG);
    CHECK_ERR(ofl_cq_poll(&cq, out, 8, NULL), OFL_E_ARG);
    CHECK_OK(ofl_cq_poll(&cq, NULL, 0, &n));
    CHECK_ERR(ofl_cq_arm(NULL, OFL_CQ_ARM_ANY), OFL_E_ARG);
    CHECK_ERR(ofl_cq_arm(&cq, (enum ofl_cq_arm)3), OFL_E_ARG);
    CHECK_EQ(ofl_cq_count(NULL), 0);
    /* Arming: ANY fires on the next CQE, once. */
    qr_wr(&wr, OFL_QP_OP_DELAY, 1, &sge, NULL, 0, 0);
    CHECK_OK(ofl_cq_arm(&r->a.scq, OFL_CQ_ARM_ANY));
    notes = r->a.sim.nevents;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(ofl_cq_count(&r->a.scq), 2);
    {
        unsigned i, k = 0;

        for (i = (unsigned)notes; i < r->a.sim.nevents; i++)
            k += r->a.sim.event[i].kind == OFL_SIM_EV_NOTIFY &&
                 r->a.sim.event[i].a == 1;
        CHECK_EQ(k, 1);
    }
    CHECK_EQ(r->a.scq.arm, OFL_CQ_ARM_NONE);
    /* SOLICITED: not for a plain success... */
    CHECK_OK(ofl_cq_arm(&r->a.scq, OFL_CQ_ARM_SOLICITED));
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.scq.arm, OFL_CQ_ARM_SOLICITED);
    /* ... but for a failed completion. */
    qr_wr(&wr, OFL_QP_OP_LOCAL_INV, 1, &sge, NULL, 0, 0);
    wr.stag = 0x777;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.scq.arm, OFL_CQ_ARM_NONE);
    CHECK_OK(ofl_cq_poll(&r->a.scq, out, 8, &n));
    CHECK_EQ(n, 4);
    CHECK_EQ(out[3].status, OFL_WC_LOC_PROT_ERR);
    qr_free(r);
    /* Overrun: a CQ of 4 for more completions: lost, reported, sticky. */
    r = qr_new(NULL);
    CHECK_OK(ofl_cq_init(&r->a.scq, ring, 4, NULL, 0));
    qr_wr(&wr, OFL_QP_OP_DELAY, 1, &sge, NULL, 0, 0);
    for (n = 0; n < 6; n++)
        CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK(r->a.qp.events & OFL_QP_EVT_CQ_OVERRUN);
    CHECK_OK(ofl_cq_poll(&r->a.scq, out, 2, &n));
    CHECK_EQ(n, 2);
    CHECK_ERR(ofl_cq_poll(&r->a.scq, out, 8, &n), OFL_E_QP_CQ_OVERRUN);
    CHECK_EQ(n, 2);
    qr_free(r);
}

/* A poll of one CQE at a time (max 1: the speed build's own way, issue
 * 30) answers as a poll of several: the CQEs in order, none from an empty
 * CQ, and the overrun once the last one present is taken, sticky. */
static void test_cq_poll_one(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_cqe ring[4], out[2];
    uint32_t n = 9, i;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    CHECK_OK(ofl_cq_poll(&r->a.scq, out, 1, &n));
    CHECK_EQ(n, 0);
    for (i = 0; i < 2; i++) {
        qr_wr(&wr, OFL_QP_OP_DELAY, 10 + i, &sge, NULL, 0, 0);
        CHECK_OK(qr_post_send(&r->a, &wr));
    }
    CHECK_OK(qr_process(&r->a, 0));
    for (i = 0; i < 2; i++) {
        out[1].wr_id = 0;
        CHECK_OK(ofl_cq_poll(&r->a.scq, out, 1, &n));
        CHECK_EQ(n, 1);
        CHECK_EQ(out[0].wr_id, 10 + i);
        CHECK_EQ(out[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(out[1].wr_id, 0); /* one CQE written, no more */
    }
    CHECK_OK(ofl_cq_poll(&r->a.scq, out, 1, &n));
    CHECK_EQ(n, 0);
    qr_free(r);
    /* Overrun: six completions into a CQ of 4, taken one at a time. */
    r = qr_new(NULL);
    CHECK_OK(ofl_cq_init(&r->a.scq, ring, 4, NULL, 0));
    for (i = 0; i < 6; i++) {
        qr_wr(&wr, OFL_QP_OP_DELAY, 20 + i, &sge, NULL, 0, 0);
        CHECK_OK(qr_post_send(&r->a, &wr));
    }
    CHECK_OK(qr_process(&r->a, 0));
    CHECK(r->a.qp.events & OFL_QP_EVT_CQ_OVERRUN);
    for (i = 0; i < 3; i++) {
        CHECK_OK(ofl_cq_poll(&r->a.scq, out, 1, &n));
        CHECK_EQ(n, 1);
        CHECK_EQ(out[0].wr_id, 20 + i);
    }
    CHECK_ERR(ofl_cq_poll(&r->a.scq, out, 1, &n), OFL_E_QP_CQ_OVERRUN);
    CHECK_EQ(n, 1);
    CHECK_EQ(out[0].wr_id, 23);
    CHECK_ERR(ofl_cq_poll(&r->a.scq, out, 1, &n), OFL_E_QP_CQ_OVERRUN);
    CHECK_EQ(n, 0);
    qr_free(r);
}

/* ---- demultiplexing ---------------------------------------------------------- */

/* Two demultiplexing keys (in use the caller draws them at random). */
static const uint8_t dkey[16] = {0x3c, 0x91, 0x07, 0xe2, 0x5a, 0xd4, 0x6b,
                                 0x18, 0xf0, 0x2d, 0x83, 0x4e, 0xb9, 0x71,
                                 0xc6, 0x0a};
static const uint8_t dkey_b[16] = {0xa5, 0x1f, 0x62, 0xdb, 0x08, 0x9e, 0x37,
                                   0xc4, 0x4d, 0xf6, 0x13, 0xb8, 0x70, 0x2a,
                                   0xe9, 0x55};

/* A quintuple a peer picks: its address and port, our address and port. */
static void demux_tuple(struct ofl_qp_tuple *t, bool v6, uint16_t port)
{
    memset(t, 0, sizeof(*t));
    t->transport = 6;
    t->family = v6 ? 6 : 4;
    t->src_port = port;
    t->dst_port = 4420;
    t->src_addr[0] = v6 ? 0x20 : 192;
    t->src_addr[1] = v6 ? 0x01 : 0;
    t->src_addr[3] = 7;
    t->dst_addr[0] = v6 ? 0xfd : 10;
    t->dst_addr[v6 ? 15 : 3] = 1;
}

/*
 * Keyed demultiplexing (issue 26 item 2): a peer that searches its ports
 * for quintuples with one home slot under key A builds one probe run of
 * OFL_QP_DEMUX_PROBE_MAX; one more is refused (CROWDED, not FULL), and a
 * removal keeps the rest findable. Under key B the same quintuples spread
 * over many homes with short runs. The home is SipHash-2-4 of the
 * documented 38 bytes.
 */
static void test_demux_keyed(void)
{
    enum { CAP = 256, N = OFL_QP_DEMUX_PROBE_MAX + 8 };
    static struct ofl_qp *slots[CAP];
    static struct ofl_qp qps[N];
    static uint8_t homes[CAP];
    struct ofl_qp_demux d;
    uint32_t n = 0, port, i, j, distinct = 0, far = 0;
    int v6;

    for (v6 = 0; v6 < 2; v6++) {
        CHECK_ERR(ofl_qp_demux_init(&d, slots, CAP, NULL), OFL_E_ARG);
        CHECK_OK(ofl_qp_demux_init(&d, slots, CAP, dkey));
        /* The home is the documented hash of the documented bytes. */
        for (port = 1; port < 40; port++) {
            struct ofl_qp_tuple t;
            uint8_t b[38];

            demux_tuple(&t, v6 != 0, (uint16_t)port);
            b[0] = t.transport;
            b[1] = t.family;
            b[2] = (uint8_t)(t.src_port >> 8);
            b[3] = (uint8_t)t.src_port;
            b[4] = (uint8_t)(t.dst_port >> 8);
            b[5] = (uint8_t)t.dst_port;
            memcpy(b + 6, t.src_addr, 16);
            memcpy(b + 22, t.dst_addr, 16);
            CHECK_EQ(ofl_qp_demux_home(&d, &t),
                     ofl_siphash24(dkey, b, 38) & (CAP - 1));
        }
        /* The peer's search: ports whose home under key A is slot 5. */
        n = 0;
        for (port = 1024; port < 65536 && n < N; port++) {
            memset(&qps[n], 0, sizeof(qps[n]));
            demux_tuple(&qps[n].attr.tuple, v6 != 0, (uint16_t)port);
            if (ofl_qp_demux_home(&d, &qps[n].attr.tuple) == 5)
                n++;
        }
        CHECK_EQ(n, N);
        if (n != N)
            return;
        for (i = 0; i < OFL_QP_DEMUX_PROBE_MAX; i++)
            CHECK_OK(ofl_qp_demux_add(&d, &qps[i]));
        for (i = 0; i < OFL_QP_DEMUX_PROBE_MAX; i++)
            CHECK(slots[(5 + i) & (CAP - 1)] != NULL); /* one probe run */
        CHECK_ERR(ofl_qp_demux_add(&d, &qps[OFL_QP_DEMUX_PROBE_MAX]),
                  OFL_E_QP_DEMUX_CROWDED);
        CHECK_EQ(d.count, OFL_QP_DEMUX_PROBE_MAX);
        CHECK(ofl_qp_demux_find(&d, &qps[OFL_QP_DEMUX_PROBE_MAX].attr.tuple) ==
              NULL);
        /* Removal (backward shift) keeps every other member findable, and
         * the room it makes takes the refused one. */
        CHECK_OK(ofl_qp_demux_remove(&d, &qps[0]));
        CHECK_OK(ofl_qp_demux_remove(&d, &qps[17]));
        CHECK_OK(ofl_qp_demux_add(&d, &qps[OFL_QP_DEMUX_PROBE_MAX]));
        for (i = 1, j = 0; i <= OFL_QP_DEMUX_PROBE_MAX; i++)
            j += i != 17 && ofl_qp_demux_find(&d, &qps[i].attr.tuple) ==
                                &qps[i];
        CHECK_EQ(j, OFL_QP_DEMUX_PROBE_MAX - 1);
        CHECK(ofl_qp_demux_find(&d, &qps[0].attr.tuple) == NULL);
        CHECK(ofl_qp_demux_find(&d, &qps[17].attr.tuple) == NULL);
        /* Key B: the same quintuples spread. */
        CHECK_OK(ofl_qp_demux_init(&d, slots, CAP, dkey_b));
        memset(homes, 0, sizeof(homes));
        distinct = 0;
        far = 0;
        for (i = 0; i < N; i++) {
            uint32_t h = ofl_qp_demux_home(&d, &qps[i].attr.tuple);

            distinct += homes[h] == 0;
            homes[h] = 1;
            CHECK_OK(ofl_qp_demux_add(&d, &qps[i]));
        }
        CHECK(distinct >= N / 2);
        for (j = 0; j < CAP; j++) {
            if (slots[j] != NULL) {
                uint32_t h = ofl_qp_demux_home(&d, &slots[j]->attr.tuple);

                if (((j - h) & (CAP - 1)) > far)
                    far = (j - h) & (CAP - 1);
            }
        }
        CHECK(far < 8);
        for (i = 0, j = 0; i < N; i++)
            j += ofl_qp_demux_find(&d, &qps[i].attr.tuple) == &qps[i];
        CHECK_EQ(j, N);
        /* A run longer than the bound, every member at home (homes 100 ..
         * 100 + N - 1): removing its first ends the backward shift
         * OFL_QP_DEMUX_PROBE_MAX slots on (nobody further can belong
         * before the hole), and every other member stays found. */
        CHECK_OK(ofl_qp_demux_init(&d, slots, CAP, dkey));
        n = 0;
        for (port = 1024; port < 65536 && n < N; port++) {
            struct ofl_qp *q = &qps[n];

            memset(q, 0, sizeof(*q));
            demux_tuple(&q->attr.tuple, v6 != 0, (uint16_t)port);
            if (ofl_qp_demux_home(&d, &q->attr.tuple) == 100 + n &&
                ofl_qp_demux_add(&d, q) == OFL_OK)
                n++;
        }
        CHECK_EQ(n, N);
        for (i = 0; i < N; i++)
            CHECK(slots[100 + i] == &qps[i]);
        CHECK_OK(ofl_qp_demux_remove(&d, &qps[0]));
        CHECK(slots[100] == NULL);
        for (i = 1, j = 0; i < N; i++)
            j += slots[100 + i] == &qps[i] &&
                 ofl_qp_demux_find(&d, &qps[i].attr.tuple) == &qps[i];
        CHECK_EQ(j, N - 1);
    }
}

static void test_demux(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_qp_demux d;
    struct ofl_qp *slots[8];
    static struct ofl_qp qps[12];
    struct ofl_qp_seg seg;
    unsigned i, found = 0;

    CHECK_ERR(ofl_qp_demux_init(NULL, slots, 8, dkey), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_init(&d, slots, 8, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_init(&d, NULL, 8, dkey), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_init(&d, slots, 6, dkey), OFL_E_ARG);
    CHECK_OK(ofl_qp_demux_init(&d, slots, 8, dkey));
    for (i = 0; i < 12; i++) {
        memset(&qps[i], 0, sizeof(qps[i]));
        qps[i].attr.tuple.transport = 6;
        qps[i].attr.tuple.family = 4;
        qps[i].attr.tuple.src_port = (uint16_t)(1000 + i);
        qps[i].attr.tuple.dst_port = 80;
        qps[i].attr.tuple.src_addr[0] = 10;
        qps[i].attr.tuple.src_addr[3] = (uint8_t)i;
    }
    for (i = 0; i < 8; i++)
        CHECK_OK(ofl_qp_demux_add(&d, &qps[i]));
    CHECK_ERR(ofl_qp_demux_add(&d, &qps[8]), OFL_E_QP_DEMUX_FULL);
    CHECK_ERR(ofl_qp_demux_add(&d, &qps[3]), OFL_E_QP_TUPLE_BUSY);
    CHECK_ERR(ofl_qp_demux_add(NULL, &qps[3]), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_add(&d, NULL), OFL_E_ARG);
    for (i = 0; i < 8; i++)
        found += ofl_qp_demux_find(&d, &qps[i].attr.tuple) == &qps[i];
    CHECK_EQ(found, 8);
    CHECK(ofl_qp_demux_find(&d, &qps[9].attr.tuple) == NULL);
    CHECK(ofl_qp_demux_find(NULL, &qps[9].attr.tuple) == NULL);
    CHECK(ofl_qp_demux_find(&d, NULL) == NULL);
    /* Removal keeps every other member findable (backward shift). */
    for (i = 0; i < 8; i += 2)
        CHECK_OK(ofl_qp_demux_remove(&d, &qps[i]));
    CHECK_ERR(ofl_qp_demux_remove(&d, &qps[0]), OFL_E_QP_NO_CONTEXT);
    CHECK_ERR(ofl_qp_demux_remove(NULL, &qps[0]), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_remove(&d, NULL), OFL_E_ARG);
    found = 0;
    for (i = 1; i < 8; i += 2)
        found += ofl_qp_demux_find(&d, &qps[i].attr.tuple) == &qps[i];
    CHECK_EQ(found, 4);
    CHECK_EQ(d.count, 4);
    /* A removed QP whose tuple is held by another: not found. */
    qps[10].attr.tuple = qps[1].attr.tuple;
    CHECK_ERR(ofl_qp_demux_remove(&d, &qps[10]), OFL_E_QP_NO_CONTEXT);
    /* Many add/remove rounds with every slot used. */
    for (i = 0; i < 200; i++) {
        struct ofl_qp *q = &qps[(i * 5) % 12];

        if (ofl_qp_demux_find(&d, &q->attr.tuple) == q)
            CHECK_OK(ofl_qp_demux_remove(&d, q));
        else if (d.count < 8 &&
                 ofl_qp_demux_find(&d, &q->attr.tuple) == NULL)
            CHECK_OK(ofl_qp_demux_add(&d, q));
    }
    found = 0;
    for (i = 0; i < 12; i++) {
        struct ofl_qp *q = ofl_qp_demux_find(&d, &qps[i].attr.tuple);

        found += q == &qps[i];
    }
    CHECK_EQ(found, d.count);
    /* Tuples that differ only in the source address (FIG. 16: the whole
     * quintuple names the connection): each finds its own QP, one more
     * address finds none, though every probe matches its ports. */
    CHECK_OK(ofl_qp_demux_init(&d, slots, 8, dkey));
    for (i = 0; i < 9; i++)
        qps[i].attr.tuple.src_port = 1000;
    for (i = 0; i < 8; i++)
        CHECK_OK(ofl_qp_demux_add(&d, &qps[i]));
    found = 0;
    for (i = 0; i < 8; i++)
        found += ofl_qp_demux_find(&d, &qps[i].attr.tuple) == &qps[i];
    CHECK_EQ(found, 8);
    CHECK(ofl_qp_demux_find(&d, &qps[8].attr.tuple) == NULL);
    /* Input: the NIC path without a context, the QP with one. */
    CHECK_OK(ofl_qp_demux_init(&d, slots, 8, dkey));
    memset(&seg, 0, sizeof(seg));
    seg.tuple = r->b.attr.tuple;
    seg.seq = r->b.qp.seq.nxt;
    CHECK_ERR(ofl_qp_demux_input(&d, &seg), OFL_E_QP_NO_CONTEXT);
    CHECK_OK(ofl_qp_demux_add(&d, &r->b.qp));
    CHECK_OK(ofl_qp_demux_input(&d, &seg));
    CHECK_ERR(ofl_qp_demux_input(NULL, &seg), OFL_E_ARG);
    CHECK_ERR(ofl_qp_demux_input(&d, NULL), OFL_E_ARG);
    seg.tuple.dst_addr[15] = 1;
    CHECK_ERR(ofl_qp_demux_input(&d, &seg), OFL_E_QP_NO_CONTEXT);
    seg.tuple = r->b.attr.tuple;
    seg.tuple.family = 6;
    CHECK_ERR(ofl_qp_demux_input(&d, &seg), OFL_E_QP_NO_CONTEXT);
    qr_free(r);
}

/* Input arguments and states. */
static void test_input_args(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_qp_seg seg;

    memset(&seg, 0, sizeof(seg));
    CHECK_ERR(ofl_qp_input(NULL, &seg), OFL_E_ARG);
    CHECK_ERR(ofl_qp_input(&r->a.qp, NULL), OFL_E_ARG);
    seg.len = 4;
    CHECK_ERR(ofl_qp_input(&r->a.qp, &seg), OFL_E_ARG);
    seg.len = 0;
    CHECK_OK(ofl_qp_input(&r->a.qp, &seg));
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_ERROR));
    CHECK_ERR(ofl_qp_input(&r->a.qp, &seg), OFL_E_QP_STATE);
    CHECK_ERR(ofl_qp_process(NULL, 0, 1), OFL_E_ARG);
    CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1));
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RESET));
    CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1));
    CHECK_ERR(ofl_qp_input(&r->a.qp, &seg), OFL_E_QP_STATE);
    /* RESET cleared the cause received: 0/0/00, the peer's local
     * catastrophic error, REM_OP_ERR in verbs (it was FATAL_ERR before
     * issue 28) */
    CHECK(r->a.qp.term_rx.layer == 0 && r->a.qp.term_rx.etype == 0 &&
          r->a.qp.term_rx.ecode == 0);
    CHECK_EQ(ofl_qp_term_status(r->a.qp.term_rx), OFL_WC_REM_OP_ERR);
    qr_free(r);
}

/* The struct-argument entry points the qp section added to tpt and wire
 * (no internal call with more than six arguments): same results as the
 * functions they stand for. */
static void test_struct_entry_points(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_tpt_remote a;
    struct ofl_tpt_bind_args b;
    struct ofl_tpt_sgl sgl;
    struct ofl_tpt_piece pc[2];
    struct ofl_mpa_ulpdu u;
    struct ofl_mpa_segment s;
    struct ofl_mpa_found found[2];
    uint8_t out[64], trailer[7], prefix[2], hdr[4] = {1, 2, 3, 4};
    uint8_t *buf = qr_alloc(&r->b, 4096, true);
    uint32_t reg = qr_reg(&r->b, buf, 4096,
                          OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE |
                              OFL_TPT_BIND_WINDOW, 0);
    uint32_t n = 0, bound = 0;
    size_t len = 0;
    uint16_t ul = 0;

    memset(&a, 0, sizeof(a));
    a.stag = reg;
    a.pd = 7;
    a.qp = 2;
    a.to = (uint64_t)(uintptr_t)buf;
    a.len = 100;
    a.need = OFL_TPT_REMOTE_WRITE;
    sgl.piece = pc;
    sgl.cap = 2;
    CHECK_OK(ofl_tpt_check_access(&r->b.tpt, &a));
    CHECK_OK(ofl_tpt_check_translate_access(&r->b.tpt, &a, &sgl));
    CHECK_EQ(sgl.bytes, 100);
    a.len = 5000;
    CHECK_ERR(ofl_tpt_check_access(&r->b.tpt, &a), OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_access(&r->b.tpt, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_translate_access(&r->b.tpt, NULL, &sgl),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_bind_window(&r->b.tpt, NULL, &bound), OFL_E_ARG);
    memset(&b, 0, sizeof(b));
    CHECK_OK(ofl_tpt_alloc(&r->b.tpt, OFL_TPT_WINDOW, 7, 0, &b.stag));
    b.region_stag = reg;
    b.pd = 7;
    b.va = (uint64_t)(uintptr_t)buf;
    b.len = 10;
    b.access = OFL_TPT_REMOTE_WRITE;
    CHECK_OK(ofl_tpt_bind_window(&r->b.tpt, &b, &bound));
    CHECK_EQ(bound, ofl_stag_make(ofl_stag_index(b.stag),
                                  (uint8_t)(ofl_stag_key(b.stag) + 1)));
    u.hdr = hdr;
    u.hdr_len = 4;
    u.payload = NULL;
    u.payload_len = 0;
    CHECK_OK(ofl_mpa_fpdu_buildv(&r->a.qp.tx, &u, out, sizeof(out), &len));
    CHECK_EQ(len, 12);
    CHECK_OK(ofl_mpa_fpdu_framev(&r->a.qp.tx, &u, prefix, trailer, &len));
    CHECK_ERR(ofl_mpa_fpdu_buildv(&r->a.qp.tx, NULL, out, sizeof(out), &len),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_framev(&r->a.qp.tx, NULL, prefix, trailer, &len),
              OFL_E_ARG);
    CHECK_OK(ofl_mpa_fpdu_check(&r->b.qp.rx, 0, out, 12, &ul));
    CHECK_EQ(ul, 4);
    CHECK_ERR(ofl_mpa_fpdu_check(NULL, 0, out, 12, &ul), OFL_E_ARG);
    s.base = 0;
    s.seq = 0;
    s.data = out;
    s.len = 12;
    CHECK_OK(ofl_mpa_locate_segment(&s, found, 2, &n));
    CHECK_EQ(n, 0); /* no markers in this stream */
    CHECK_ERR(ofl_mpa_locate_segment(NULL, found, 2, &n), OFL_E_ARG);
    qr_free(r);
}

/*
 * The port's barrier and doorbell on the per-message path (offload.h,
 * struct ofl_port: a speed build looks at them once, when the CQ is
 * initialised and the QP created): a post publishes its WQE behind a
 * release barrier and rings the queue's doorbell, a CQE is published
 * behind a release barrier, a poll reads behind an acquire barrier. One
 * 64-byte Send and its receive: each side sees exactly its own calls, in
 * order, and a doorbell per post on the queue's doorbell number.
 */
static void test_port_hooks_per_message(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    uint8_t *src, *dst;
    uint32_t ls, ld;
    unsigned na, nb;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;

    memset(&o, 0, sizeof(o));
    o.barrier = true;
    r = qr_new(&o);
    CHECK(r != NULL);
    src = qr_alloc(&r->a, 64, false);
    dst = qr_alloc(&r->b, 64, false);
    ls = qr_reg(&r->a, src, 64, OFL_TPT_LOCAL_READ, 0);
    ld = qr_reg(&r->b, dst, 64, OFL_TPT_LOCAL_WRITE, 0);
    r->a.barriers = r->b.barriers = 0;
    na = r->a.sim.nevents;
    nb = r->b.sim.nevents;
    CHECK_OK(qr_post_recv(&r->b, 5, dst, 64, ld));
    CHECK_EQ(r->b.barriers, 1);
    CHECK_EQ(r->b.barrier_kind[0], OFL_BARRIER_RELEASE);
    CHECK_EQ(r->b.sim.nevents, nb + 1);
    CHECK_EQ(r->b.sim.event[nb].kind, OFL_SIM_EV_DOORBELL);
    CHECK_EQ(r->b.sim.event[nb].a, 11); /* attr.rq_db */
    CHECK_EQ(r->b.sim.event[nb].b, 1);  /* the producer count */
    qr_wr(&wr, OFL_QP_OP_SEND, 6, &sge, src, 64, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_EQ(r->a.barriers, 1);
    CHECK_EQ(r->a.sim.event[na].kind, OFL_SIM_EV_DOORBELL);
    CHECK_EQ(r->a.sim.event[na].a, 10); /* attr.sq_db */
    qr_pump(r, 0);
    /* The send CQE and the receive CQE, each behind a release. */
    CHECK_EQ(r->a.barriers, 2);
    CHECK_EQ(r->a.barrier_kind[1], OFL_BARRIER_RELEASE);
    CHECK_EQ(r->b.barriers, 2);
    CHECK_EQ(r->b.barrier_kind[1], OFL_BARRIER_RELEASE);
    CHECK_EQ(qr_poll(&r->b, false, &e, 1), 1);
    CHECK_EQ(e.wr_id, 5);
    CHECK_EQ(qr_poll(&r->a, true, &e, 1), 1);
    CHECK_EQ(e.wr_id, 6);
    CHECK_EQ(r->a.barriers, 3);
    CHECK_EQ(r->a.barrier_kind[2], OFL_BARRIER_ACQUIRE);
    CHECK_EQ(r->b.barriers, 3);
    CHECK_EQ(r->b.barrier_kind[2], OFL_BARRIER_ACQUIRE);
    qr_free(r);
}

/* The notifies the receive CQ (vector 2) has had since event index from. */
static unsigned rcq_notifies(const struct qr_side *s, unsigned from)
{
    unsigned i, k = 0;

    for (i = from; i < s->sim.nevents; i++)
        k += s->sim.event[i].kind == OFL_SIM_EV_NOTIFY &&
             s->sim.event[i].a == 2;
    return k;
}

/* A 64-byte Send from side a (wr_id sid, flags) into a receive of side b
 * posted first (wr_id rid, at dst), run to its end. */
static void send_into_recv(struct qr_rig *r, uint64_t rid, uint8_t *dst,
                           uint32_t ld, uint64_t sid, uint8_t *src,
                           uint32_t ls, uint32_t flags)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    CHECK_OK(qr_post_recv(&r->b, rid, dst, 64, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, sid, &sge, src, 64, ls);
    wr.flags |= flags;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
}

/* A Send received whole (qp_rx_whole, the speed build's common receive)
 * completes as the general path does when its CQ is armed or full: an
 * armed CQ notifies once and disarms (ANY; SOLICITED only for a Send with
 * SE), and a full one loses the CQE, raises the overrun and keeps it. */
static void test_rx_send_whole_cq(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_cqe ring[2], out[4];
    uint8_t *src, *dst;
    uint32_t ls, ld, n, i;
    unsigned from;

    CHECK(r != NULL);
    src = qr_alloc(&r->a, 64, false);
    dst = qr_alloc(&r->b, 4 * 64, false);
    ls = qr_reg(&r->a, src, 64, OFL_TPT_LOCAL_READ, 0);
    ld = qr_reg(&r->b, dst, 4 * 64, OFL_TPT_LOCAL_WRITE, 0);
    memset(src, 0x5a, 64);
    /* ANY: the first Send's CQE notifies, the second's not. */
    CHECK_OK(ofl_cq_arm(&r->b.rcq, OFL_CQ_ARM_ANY));
    from = r->b.sim.nevents;
    for (i = 0; i < 2; i++)
        send_into_recv(r, 40 + i, dst + 64 * i, ld, 50 + i, src, ls, 0);
    CHECK_EQ(rcq_notifies(&r->b, from), 1);
    CHECK_EQ(r->b.rcq.arm, OFL_CQ_ARM_NONE);
    CHECK_EQ(qr_poll(&r->b, false, out, 4), 2);
    CHECK_EQ(out[0].wr_id, 40);
    CHECK_EQ(out[1].wr_id, 41);
    CHECK_EQ(out[1].byte_len, 64);
    CHECK_EQ(out[1].status, OFL_WC_SUCCESS);
    CHECK(memcmp(dst + 64, src, 64) == 0);
    /* SOLICITED: a plain Send does not notify, a Send with SE does. */
    CHECK_OK(ofl_cq_arm(&r->b.rcq, OFL_CQ_ARM_SOLICITED));
    from = r->b.sim.nevents;
    send_into_recv(r, 42, dst, ld, 52, src, ls, 0);
    CHECK_EQ(rcq_notifies(&r->b, from), 0);
    CHECK_EQ(r->b.rcq.arm, OFL_CQ_ARM_SOLICITED);
    send_into_recv(r, 43, dst, ld, 53, src, ls, OFL_QP_WR_SOLICITED);
    CHECK_EQ(rcq_notifies(&r->b, from), 1);
    CHECK_EQ(r->b.rcq.arm, OFL_CQ_ARM_NONE);
    CHECK_EQ(qr_poll(&r->b, false, out, 4), 2);
    CHECK_EQ(out[1].wr_id, 43);
    CHECK(out[1].flags & OFL_CQE_SOLICITED);
    CHECK(!(r->b.qp.events & OFL_QP_EVT_CQ_OVERRUN));
    /* Full: a receive CQ of 2 for three Sends loses the third CQE. */
    CHECK_OK(ofl_cq_init(&r->b.rcq, ring, 2, &r->b.sim.port, 2));
    for (i = 0; i < 3; i++)
        send_into_recv(r, 60 + i, dst + 64 * i, ld, 70 + i, src, ls, 0);
    CHECK(r->b.qp.events & OFL_QP_EVT_CQ_OVERRUN);
    CHECK_EQ(r->b.rcq.overrun, 1);
    CHECK_OK(ofl_cq_poll(&r->b.rcq, out, 1, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(out[0].wr_id, 60);
    CHECK_ERR(ofl_cq_poll(&r->b.rcq, out, 4, &n), OFL_E_QP_CQ_OVERRUN);
    CHECK_EQ(n, 1);
    CHECK_EQ(out[0].wr_id, 61);
    CHECK(memcmp(dst + 128, src, 64) == 0); /* placed, its CQE lost */
    qr_free(r);
}

OFL_SUITE(qp)
{
    test_port_hooks_per_message();
    test_table();
    test_modify_all();
    test_events();
    test_create();
    test_establish();
    test_post_checks();
    test_doorbell();
    test_cq();
    test_cq_poll_one();
    test_rx_send_whole_cq();
    test_demux();
    test_demux_keyed();
    test_input_args();
    test_struct_entry_points();
}
