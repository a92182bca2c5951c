/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: unreliable datagram QPs (seed 001 "Transport Services") and the
 * datagram frame header - creation, posting, the frame codec and every
 * inbound check, each tripped and passed. */
#include "test.h"
#include "support/dg_rig.h"

#include <stdlib.h>

#define A0 DGR_ADDR0
#define A1 (DGR_ADDR0 + 1u)

/* A UD frame from node 0 QP 5 to node 1 QP 6 with n payload bytes. */
static uint32_t ud_frame(uint8_t *f, uint32_t dst_qpn, uint32_t n)
{
    struct ofl_dg_hdr h;
    uint32_t i;

    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_UD;
    h.dst_addr = A1;
    h.src_addr = A0;
    h.dst_qpn = dst_qpn;
    h.src_qpn = 5;
    h.len = (uint16_t)n;
    if (ofl_dg_build(&h, f, OFL_DG_HDR_LEN) != OFL_OK)
        return 0;
    for (i = 0; i < n; i++)
        f[OFL_DG_HDR_LEN + i] = (uint8_t)(i + 1);
    return OFL_DG_HDR_LEN + n;
}

static struct dgr_rig *ud_pair(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;

    if (r == NULL)
        return NULL;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_UD;
    o.qpn = 5;
    if (dgr_qp_add(r, 0, &o, NULL) != 0)
        return NULL;
    o.qpn = 6;
    if (dgr_qp_add(r, 1, &o, NULL) != 0)
        return NULL;
    return r;
}

static void test_codec(void)
{
    struct ofl_dg_hdr h, g;
    uint8_t f[64];
    uint32_t n;

    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_RD;
    h.flags = OFL_DG_F_SE;
    h.dst_addr = 0x01020304u;
    h.src_addr = 0x05060708u;
    h.dst_qpn = 0x11223344u;
    h.src_qpn = 0x55667788u;
    h.sn = 0xFFFFFFFFu;
    h.len = 3;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    /* Big-endian on the wire, at the documented offsets. */
    CHECK_EQ(f[0], 1);
    CHECK_EQ(f[1], OFL_DG_RD);
    CHECK_EQ(f[2], OFL_DG_F_SE);
    CHECK_EQ(f[4], 0x01);
    CHECK_EQ(f[7], 0x04);
    CHECK_EQ(f[12], 0x11);
    CHECK_EQ(f[16], 0x55);
    CHECK_EQ(f[20], 0xFF);
    CHECK_EQ(f[24], 0);
    CHECK_EQ(f[25], 3);
    CHECK_OK(ofl_dg_parse(f, OFL_DG_HDR_LEN + 3, &g));
    CHECK_EQ(g.kind, h.kind);
    CHECK_EQ(g.flags, h.flags);
    CHECK_EQ(g.dst_addr, h.dst_addr);
    CHECK_EQ(g.src_addr, h.src_addr);
    CHECK_EQ(g.dst_qpn, h.dst_qpn);
    CHECK_EQ(g.src_qpn, h.src_qpn);
    CHECK_EQ(g.sn, h.sn);
    CHECK_EQ(g.len, 3);
    /* build: size and rules */
    CHECK_ERR(ofl_dg_build(&h, f, OFL_DG_HDR_LEN - 1), OFL_E_SIZE);
    CHECK_ERR(ofl_dg_build(NULL, f, sizeof(f)), OFL_E_ARG);
    g = h;
    g.kind = 9;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g = h;
    g.kind = OFL_DG_UD; /* UD carries no sequence number */
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.sn = 0;
    CHECK_OK(ofl_dg_build(&g, f, sizeof(f)));
    CHECK_ERR(ofl_dg_parse(NULL, 5, &g), OFL_E_ARG);
    CHECK_ERR(ofl_dg_parse(f, 0, NULL), OFL_E_ARG);

    /* parse: every malformed case, each against a passing frame */
    n = OFL_DG_HDR_LEN + 3;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_dg_parse(f, n, &g));
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN - 1, &g), OFL_E_QP_DG_SHORT);
    CHECK_ERR(ofl_dg_parse(f, 0, &g), OFL_E_QP_DG_SHORT);
    f[0] = 2;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_VERSION);
    f[0] = 0;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_VERSION);
    f[0] = 1;
    f[1] = 0;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_KIND);
    f[1] = 4;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_KIND);
    f[1] = OFL_DG_RD;
    f[2] = 0x02; /* a reserved flag */
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_RESERVED);
    f[2] = OFL_DG_F_SE;
    f[3] = 1;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_RESERVED);
    f[3] = 0;
    f[27] = 1;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_RESERVED);
    f[27] = 0;
    CHECK_ERR(ofl_dg_parse(f, n + 1, &g), OFL_E_QP_DG_LENGTH);
    CHECK_ERR(ofl_dg_parse(f, n - 1, &g), OFL_E_QP_DG_LENGTH);
    CHECK_OK(ofl_dg_parse(f, n, &g));
    /* UD with a sequence number */
    f[1] = OFL_DG_UD;
    CHECK_ERR(ofl_dg_parse(f, n, &g), OFL_E_QP_DG_RESERVED);
    memset(f + 20, 0, 4);
    CHECK_OK(ofl_dg_parse(f, n, &g));
    /* an acknowledgement: no flags, QPNs or payload */
    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_ACK;
    h.sn = 77;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_dg_parse(f, OFL_DG_HDR_LEN, &g));
    f[2] = OFL_DG_F_SE;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN, &g), OFL_E_QP_DG_RESERVED);
    f[2] = 0;
    f[15] = 1;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN, &g), OFL_E_QP_DG_RESERVED);
    f[15] = 0;
    f[19] = 1;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN, &g), OFL_E_QP_DG_RESERVED);
    f[19] = 0;
    f[25] = 1;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN + 1, &g), OFL_E_QP_DG_RESERVED);
    f[25] = 0;
    CHECK_OK(ofl_dg_parse(f, OFL_DG_HDR_LEN, &g));
}

static void test_create(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    enum ofl_err err;
    struct dgr_qp *q;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_UD;
    o.qpn = 1;
    o.acked = 1; /* UD has no acknowledgements (seed 001, 002) */
    CHECK(dgr_qp_add(r, 0, &o, &err) < 0);
    CHECK_ERR(err, OFL_E_QP_ACKED);
    o.acked = 0;
    CHECK(dgr_qp_add(r, 0, &o, &err) == 0);
    CHECK_OK(err);
    o.qpn = 1; /* the same number again on the node */
    CHECK(dgr_qp_add(r, 0, &o, &err) < 0);
    CHECK_ERR(err, OFL_E_QP_QPN_BUSY);
    o.qpn = DGR_QPN_CAP; /* beyond the directory */
    CHECK(dgr_qp_add(r, 0, &o, &err) < 0);
    CHECK_ERR(err, OFL_E_ARG);

    /* attribute checks straight on ofl_qp_create */
    q = &r->n[0].q[0];
    {
        struct ofl_qp qp;
        struct ofl_qp_attr a = q->attr;
        struct ofl_qp_mem m = q->qmem;

        a.service = 19; /* beyond the defined kinds */
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_QP_SERVICE);
        a.service = 3;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_QP_SERVICE);
        a = q->attr;
        a.max_dgram = 0;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_ARG);
        a.max_dgram = 0x10000;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_ARG);
        a.max_dgram = 0xFFFF;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_SIZE); /* tx_cap */
        a.max_dgram = DGR_TX - OFL_DG_HDR_LEN + 1;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_SIZE);
        a.max_dgram = DGR_TX - OFL_DG_HDR_LEN;
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        a.node = NULL; /* UD needs its node (address) */
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_ARG);
        a.service = OFL_QP_SVC_RAW; /* RAW does not */
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        a.max_dgram = DGR_TX; /* RAW: no header */
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        a.max_dgram = DGR_TX + 1;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_SIZE);
        a = q->attr;
        a.service = OFL_QP_SVC_IWARP;
        a.acked = 1; /* RFC 5040 has no acknowledgement */
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_QP_ACKED);
        a.service = OFL_QP_SVC_RD;
        a.acked = 2;
        CHECK_ERR(ofl_qp_create(&qp, &a, &m), OFL_E_QP_ACKED);
        a.acked = 1;
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        /* node add: only RD and UD */
        a.service = OFL_QP_SVC_RAW;
        a.acked = 0;
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        CHECK_ERR(ofl_qp_node_add(&r->n[0].node, &qp), OFL_E_QP_SERVICE);
        a.service = OFL_QP_SVC_UD;
        a.qpn = 2;
        CHECK_OK(ofl_qp_create(&qp, &a, &m));
        CHECK_ERR(ofl_qp_node_add(&r->n[1].node, &qp), OFL_E_ARG); /* other
                                                                    node */
        CHECK_OK(ofl_qp_node_add(&r->n[0].node, &qp));
        CHECK_OK(ofl_qp_node_remove(&r->n[0].node, &qp));
        CHECK_ERR(ofl_qp_node_remove(&r->n[0].node, &qp), OFL_E_QP_DG_NO_QP);
        /* node add / remove: a NULL node or QP is an argument error and
         * leaves the directory as it was (the contracts' OFL_E_ARG) */
        CHECK_ERR(ofl_qp_node_add(NULL, &qp), OFL_E_ARG);
        CHECK_ERR(ofl_qp_node_add(&r->n[0].node, NULL), OFL_E_ARG);
        CHECK(r->n[0].node.qp[2] == NULL);
        CHECK_OK(ofl_qp_node_add(&r->n[0].node, &qp));
        CHECK_ERR(ofl_qp_node_remove(NULL, &qp), OFL_E_ARG);
        CHECK_ERR(ofl_qp_node_remove(&r->n[0].node, NULL), OFL_E_ARG);
        CHECK(r->n[0].node.qp[2] == &qp);
        CHECK_OK(ofl_qp_node_remove(&r->n[0].node, &qp));
    }
    {
        struct ofl_qp_node nd;
        struct ofl_qp *slots[2];

        CHECK_ERR(ofl_qp_node_init(&nd, 1, NULL, 2, NULL, 0), OFL_E_ARG);
        CHECK_ERR(ofl_qp_node_init(&nd, 1, slots, 0, NULL, 0), OFL_E_ARG);
        CHECK_ERR(ofl_qp_node_init(&nd, 1, slots, 2, NULL, 1), OFL_E_ARG);
        CHECK_OK(ofl_qp_node_init(&nd, 1, slots, 2, NULL, 0));
        CHECK(ofl_qp_node_ee(&nd, 5) == NULL);
        /* the EE lookup: NULL for no node, the context for a known address */
        CHECK(ofl_qp_node_ee(NULL, DGR_ADDR0 + 1) == NULL);
        CHECK(ofl_qp_node_ee(&r->n[0].node, DGR_ADDR0 + 1) ==
              &r->n[0].node.ee[dgr_ee_index(0, 1)]);
    }
    /* no stream: establish, LLP events and CLOSING refused; RTR -> RTS */
    q = &r->n[0].q[0];
    CHECK_EQ(q->qp.state, OFL_QP_RTS);
    CHECK_ERR(ofl_qp_establish(&q->qp, NULL, 1460, 0, 1024),
              OFL_E_QP_SERVICE);
    CHECK_ERR(ofl_qp_llp_event(&q->qp, false), OFL_E_QP_SERVICE);
    CHECK_ERR(ofl_qp_modify(&q->qp, OFL_QP_CLOSING), OFL_E_QP_STATE);
    CHECK_EQ(q->qp.state, OFL_QP_RTS);
    dgr_free(r);
}

static void test_post_rules(void)
{
    struct dgr_rig *r = ud_pair();
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint8_t *buf;
    static const uint8_t ops[] = {
        OFL_QP_OP_SEND_INV, OFL_QP_OP_WRITE, OFL_QP_OP_WRITE_IMM,
        OFL_QP_OP_READ, OFL_QP_OP_ATOMIC_FADD, OFL_QP_OP_ATOMIC_CSWAP,
        OFL_QP_OP_BIND, OFL_QP_OP_REG_SEND};
    unsigned i;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    buf = dgr_alloc(&r->n[0], 4096);
    memset(&wr, 0, sizeof(wr));
    sge.addr = (uint64_t)(uintptr_t)buf;
    sge.len = 8;
    sge.stag = r->n[0].stag;
    wr.sge = &sge;
    wr.num_sge = 1;
    for (i = 0; i < sizeof(ops); i++) {
        wr.opcode = ops[i];
        CHECK_ERR(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL),
                  OFL_E_QP_DG_RDMA);
    }
    wr.opcode = OFL_QP_OP_ISCSI_PDU;
    CHECK_ERR(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL), OFL_E_QP_OPCODE);
    CHECK_EQ(ofl_qp_sq_outstanding(&r->n[0].q[0].qp), 0);
    /* a UD message too large: max_dgram + 1 refused, max_dgram taken */
    CHECK_ERR(dgr_send(r, 0, 0, 1, buf, DGR_MAXDG + 1, A1, 0, 6, 0),
              OFL_E_QP_DG_TOO_LONG);
    CHECK_EQ(ofl_qp_sq_outstanding(&r->n[0].q[0].qp), 0);
    CHECK_OK(dgr_send(r, 0, 0, 2, buf, DGR_MAXDG, A1, 0, 6, 0));
    wr.opcode = OFL_QP_OP_DELAY; /* local WQEs stay allowed */
    wr.num_sge = 0;
    CHECK_OK(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL));
    dgr_free(r);
}

static void test_send_recv(void)
{
    struct dgr_rig *r = ud_pair();
    struct ofl_cqe c[4];
    uint8_t *src, *dst;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    src = dgr_alloc(&r->n[0], 256);
    dst = dgr_alloc(&r->n[1], 256);
    memcpy(src, "datagram", 8);
    CHECK_OK(dgr_recv(r, 1, 0, 70, dst, 256));
    CHECK_OK(dgr_send(r, 0, 0, 60, src, 8, A1, 0, 6,
                      OFL_QP_WR_SIGNALED | OFL_QP_WR_SOLICITED));
    /* refused transmission: nothing completes, the WQE stays */
    r->wire.refuse = 1;
    CHECK_ERR(ofl_qp_process(&r->n[0].q[0].qp, 0, 8), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 0);
    CHECK_EQ(r->wire.n, 0);
    /* unacknowledged: the CQE comes as soon as the frame left, before the
     * receiver saw anything (seed 002) */
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 60);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 8);
    CHECK_EQ(r->wire.f[0].len, OFL_DG_HDR_LEN + 8);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 0);
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 70);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_RECV);
    CHECK_EQ(c[0].byte_len, 8);
    CHECK_EQ(c[0].qpn, 6);
    CHECK_EQ(c[0].src_addr, A0);
    CHECK_EQ(c[0].src_qpn, 5);
    CHECK(c[0].flags & OFL_CQE_SRC);
    CHECK(c[0].flags & OFL_CQE_SOLICITED);
    CHECK(memcmp(dst, "datagram", 8) == 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    /* a send whose data segment fails its local checks: SQE */
    CHECK_OK(dgr_send(r, 0, 0, 61, src, 8, A1, 0, 6, 0));
    {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;

        memset(&wr, 0, sizeof(wr));
        sge.addr = (uint64_t)(uintptr_t)src;
        sge.len = 8;
        sge.stag = r->n[0].stag + 1; /* wrong key */
        wr.opcode = OFL_QP_OP_SEND;
        wr.sge = &sge;
        wr.num_sge = 1;
        wr.wr_id = 62;
        wr.dest.addr = A1;
        wr.dest.qpn = 6;
        CHECK_OK(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL));
    }
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_SQE);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 62);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    dgr_free(r);
    /* a send whose segments pass their checks but whose gather fails (the
     * DMA read): LOC_ACCESS_ERR, SQE, nothing on the wire */
    r = ud_pair();
    CHECK(r != NULL);
    if (r == NULL)
        return;
    src = dgr_alloc(&r->n[0], 256);
    CHECK_OK(dgr_send(r, 0, 0, 63, src, 8, A1, 0, 6, OFL_QP_WR_SIGNALED));
    r->n[0].sim.fail_dma_countdown = 1;
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_SQE);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 63);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(r->wire.n, 0);
    dgr_free(r);
}

/* A datagram whose receive WQE cannot take it: the scatter's DMA fails
 * (the WQE completes LOC_ACCESS_ERR, nothing placed) or the receive CQ is
 * full (the CQE is lost, the CQ overrun for good, the event raised); the
 * frame is consumed either way and the QP stays in RTS. */
static void test_deliver_failures(void)
{
    struct dgr_rig *r = ud_pair();
    struct ofl_cqe c[4];
    struct ofl_qp *rq;
    uint8_t *src, *dst;
    uint32_t n = 0;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    rq = &r->n[1].q[0].qp;
    src = dgr_alloc(&r->n[0], 64);
    dst = dgr_alloc(&r->n[1], 64);
    memcpy(src, "abcdefgh", 8);
    CHECK_OK(dgr_recv(r, 1, 0, 80, dst, 64));
    CHECK_OK(dgr_send(r, 0, 0, 1, src, 8, A1, 0, 6, 0));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    r->n[1].sim.fail_dma_countdown = 1;
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 80);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(c[0].byte_len, 0);
    CHECK_EQ(dst[0], 0);
    CHECK_EQ(ofl_qp_rq_outstanding(rq), 0);
    CHECK_EQ(rq->state, OFL_QP_RTS);
    /* a receive CQ of one entry: the second CQE is lost */
    CHECK_OK(
        ofl_cq_init(&r->n[1].rcq, r->n[1].rcqe, 1, &r->n[1].sim.port, 2));
    CHECK_OK(dgr_recv(r, 1, 0, 81, dst, 64));
    CHECK_OK(dgr_recv(r, 1, 0, 82, dst + 32, 32));
    CHECK_OK(dgr_send(r, 0, 0, 2, src, 8, A1, 0, 6, 0));
    CHECK_OK(dgr_send(r, 0, 0, 3, src, 8, A1, 0, 6, 0));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(ofl_qp_rq_outstanding(rq), 0);
    CHECK_EQ(r->n[1].rcq.overrun, 1);
    CHECK(rq->events & OFL_QP_EVT_CQ_OVERRUN);
    CHECK(memcmp(dst + 32, "abcdefgh", 8) == 0); /* placed all the same */
    CHECK_ERR(ofl_cq_poll(&r->n[1].rcq, c, 4, &n), OFL_E_QP_CQ_OVERRUN);
    CHECK_EQ(n, 1);
    CHECK_EQ(c[0].wr_id, 81);
    CHECK_EQ(rq->state, OFL_QP_RTS);
    dgr_free(r);
}

/* Every inbound check, tripped with nothing changed, then passed. */
static void test_inbound_checks(void)
{
    struct dgr_rig *r = ud_pair();
    struct ofl_qp_node *nd;
    struct ofl_qp *qp;
    struct ofl_cqe c[4];
    uint8_t f[400], *dst;
    uint32_t n;
    struct dgr_qp_opts o;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    nd = &r->n[1].node;
    qp = &r->n[1].q[0].qp;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.qpn = 9;
    CHECK(dgr_qp_add(r, 1, &o, NULL) == 1);
    dst = dgr_alloc(&r->n[1], 256);
    n = ud_frame(f, 6, 16);
    CHECK_ERR(ofl_qp_dgram_input(NULL, f, n, 0), OFL_E_ARG);
    CHECK_ERR(ofl_qp_dgram_input(nd, NULL, 4, 0), OFL_E_ARG);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, 10, 0), OFL_E_QP_DG_SHORT);
    /* no receive WQE yet */
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_RQ_EMPTY);
    CHECK_OK(dgr_recv(r, 1, 0, 1, dst, 256));
    CHECK_EQ(ofl_qp_rq_outstanding(qp), 1);
    /* not for this node */
    f[7] ^= 0x40;
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_NOT_FOR_US);
    f[7] ^= 0x40;
    /* no QP: beyond the directory, an empty slot */
    n = ud_frame(f, DGR_QPN_CAP, 16);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_NO_QP);
    n = ud_frame(f, 0xFFFFFFFFu, 16);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_NO_QP);
    n = ud_frame(f, 3, 16);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_NO_QP);
    /* a UD frame for an RD QP */
    n = ud_frame(f, 9, 16);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_SERVICE);
    /* larger than the QP's max_dgram (one byte more), then exactly it */
    n = ud_frame(f, 6, DGR_MAXDG + 1);
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_DG_TOO_LONG);
    CHECK_EQ(ofl_qp_rq_outstanding(qp), 1);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 0);
    n = ud_frame(f, 6, DGR_MAXDG);
    CHECK_OK(ofl_qp_dgram_input(nd, f, n, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].byte_len, DGR_MAXDG);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(dst[0], 1);
    CHECK_EQ(dst[DGR_MAXDG - 1], (uint8_t)DGR_MAXDG);
    CHECK_EQ(ofl_qp_rq_outstanding(qp), 0);
    /* a receive WQE smaller than the datagram: LOC_LEN_ERR, consumed */
    CHECK_OK(dgr_recv(r, 1, 0, 2, dst, 8));
    n = ud_frame(f, 6, 9);
    CHECK_OK(ofl_qp_dgram_input(nd, f, n, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 2);
    CHECK_EQ(c[0].status, OFL_WC_LOC_LEN_ERR);
    /* a receive WQE that fails its local checks: the TPT's status */
    {
        struct ofl_qp_recv_wr wr;
        struct ofl_qp_sge sge;

        sge.addr = (uint64_t)(uintptr_t)dst;
        sge.len = 64;
        sge.stag = r->n[1].stag ^ 1; /* stale key */
        wr.wr_id = 3;
        wr.sge = &sge;
        wr.num_sge = 1;
        CHECK_OK(ofl_qp_post_recv(qp, &wr));
    }
    CHECK_OK(ofl_qp_dgram_input(nd, f, n, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 3);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    /* state: a QP in ERROR takes nothing */
    CHECK_OK(dgr_recv(r, 1, 0, 4, dst, 64));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_ERROR));
    (void)dgr_poll(&r->n[1], false, c, 4); /* the flush */
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_STATE);
    /* RTR takes frames */
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RESET));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_OK(dgr_recv(r, 1, 0, 5, dst, 64));
    CHECK_ERR(ofl_qp_dgram_input(nd, f, n, 0), OFL_E_QP_STATE); /* INIT */
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RTR));
    CHECK_OK(ofl_qp_dgram_input(nd, f, n, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 5);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* A WQE changed in its ring after posting is checked again when fetched:
 * an RDMA opcode or a message grown past max_dgram stops the SQ (SQE). */
static void test_hostile_wqe(void)
{
    struct dgr_rig *r = ud_pair();
    struct ofl_cqe c[4];
    struct dgr_qp *q;
    uint8_t *src;
    int k;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    q = &r->n[0].q[0];
    src = dgr_alloc(&r->n[0], 512);
    for (k = 0; k < 3; k++) {
        uint8_t *w = q->sq_ring + (q->qp.sq.pi & (DGR_DEPTH - 1)) *
                                      q->qp.sq.stride;

        CHECK_OK(dgr_send(r, 0, 0, 200u + (unsigned)k, src, 16, A1, 0, 6,
                          OFL_QP_WR_SIGNALED));
        if (k == 0)
            w[0] = OFL_QP_OP_WRITE; /* opcode */
        else if (k == 1)
            w[80 + 9] = 0x01; /* data segment length += 256 */
        CHECK_OK(ofl_qp_process(&q->qp, 0, 8));
        CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1);
        CHECK_EQ(c[0].wr_id, 200u + (unsigned)k);
        CHECK_EQ(c[0].status, k < 2 ? OFL_WC_LOC_QP_OP_ERR : OFL_WC_SUCCESS);
        CHECK_EQ(q->qp.state, k < 2 ? OFL_QP_SQE : OFL_QP_RTS);
        CHECK_EQ(r->wire.n, k < 2 ? 0u : 1u);
        if (k < 2)
            CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_RTS));
    }
    dgr_free(r);
}

OFL_SUITE(qp_ud)
{
    test_hostile_wqe();
    test_codec();
    test_create();
    test_post_rules();
    test_send_recv();
    test_inbound_checks();
    test_deliver_failures();
}
