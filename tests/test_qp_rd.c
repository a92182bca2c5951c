/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: reliable datagram QPs over shared EE contexts (seed 001 "Transport
 * Services"), the acknowledged attribute (seed 002), the outstanding
 * request limit, retransmission and the EE error state, and the state
 * count claim M QPs + (N - 1) EE contexts. */
#include "test.h"
#include "support/dg_rig.h"

#include <stdlib.h>

#define A0 DGR_ADDR0
#define A1 (DGR_ADDR0 + 1u)
#define SIG OFL_QP_WR_SIGNALED

/* Two nodes; node 0 has RD QPs 1 (acked) and 2 (not acked) and 3
 * (acked, ORD ord), node 1 has RD QP 7. */
static struct dgr_rig *rd_pair(uint16_t ord)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;

    if (r == NULL)
        return NULL;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.qpn = 1;
    if (dgr_qp_add(r, 0, &o, NULL) != 0)
        return NULL;
    o.acked = 0;
    o.qpn = 2;
    if (dgr_qp_add(r, 0, &o, NULL) != 1)
        return NULL;
    o.acked = 1;
    o.qpn = 3;
    o.ord = ord;
    if (dgr_qp_add(r, 0, &o, NULL) != 2)
        return NULL;
    o.ord = 0;
    o.qpn = 7;
    if (dgr_qp_add(r, 1, &o, NULL) != 0)
        return NULL;
    return r;
}

/* Acknowledged versus unacknowledged completion, both orders of events. */
static void test_acked(void)
{
    struct dgr_rig *r = rd_pair(4);
    struct ofl_ee *ee0, *ee1;
    struct ofl_cqe c[8];
    uint8_t *src;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    ee1 = &r->n[1].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    memcpy(src, "reliable", 8);
    dgr_post_recvs(r, 1, 0, 4);

    /* acked QP: the frame leaves, no completion until the ack returns */
    CHECK_OK(dgr_send(r, 0, 0, 11, src, 8, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(ofl_ee_outstanding(ee0), 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    CHECK_EQ(ofl_qp_sq_outstanding(&r->n[0].q[0].qp), 1);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the data frame */
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].src_addr, A0);
    CHECK_EQ(c[0].src_qpn, 1);
    CHECK_EQ(c[0].byte_len, 8);
    CHECK_EQ(r->wire.n, 1); /* its acknowledgement */
    CHECK_EQ(ee1->stats.acks_tx, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* still waiting */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the ack */
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 11);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(ofl_qp_sq_outstanding(&r->n[0].q[0].qp), 0);

    /* unacknowledged QP on the same EE: the completion comes when the
     * frame left, before the receiver has it; the ack comes later */
    CHECK_OK(dgr_send(r, 0, 1, 12, src, 8, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 12);
    CHECK_EQ(ofl_ee_outstanding(ee0), 1); /* still kept for retransmit */
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 0);
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].src_qpn, 2);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* nothing more */
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* One EE context shared by several QPs: one sequence, one ack covers all */
static void test_shared_ee(void)
{
    struct dgr_rig *r = rd_pair(4);
    struct ofl_ee *ee0;
    struct ofl_cqe c[8];
    uint8_t *src;
    uint32_t isn = dgr_isn(0, 1), i, got;
    int q;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 6);
    for (q = 0; q < 3; q++)
        CHECK_OK(dgr_send(r, 0, q, 20u + (unsigned)q, src, 4, 0, 0, 7, SIG));
    for (q = 0; q < 3; q++)
        CHECK_OK(ofl_qp_process(&r->n[0].q[q].qp, 0, 8));
    CHECK_EQ(r->wire.n, 3);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1); /* QP 2: not acked */
    CHECK_EQ(c[0].wr_id, 21);
    CHECK_EQ(ee0->snd_nxt - isn, 3);
    /* the frames carry consecutive EE sequence numbers from the three
     * QPs: the sequence belongs to the node pair, not to a QP */
    for (i = 0; i < 3; i++) {
        struct ofl_dg_hdr h;

        CHECK_OK(ofl_dg_parse(r->wire.f[i].data, r->wire.f[i].len, &h));
        CHECK_EQ(h.sn, isn + i);
        CHECK_EQ(h.src_qpn, i + 1);
        CHECK_EQ(h.kind, OFL_DG_RD);
    }
    /* deliver the data only, keep one ack (the last: cumulative) */
    CHECK_OK(dgr_deliver(r, 0, 3));
    CHECK_EQ(r->wire.n, 3);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 3);
    for (i = 0; i < 3; i++)
        CHECK_EQ(c[i].src_qpn, i + 1);
    /* only the last ack: it covers all three frames */
    r->wire.head = (r->wire.head + 2) % DGR_FRAMES;
    r->wire.n = 1;
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    got = dgr_poll(&r->n[0], true, c, 8);
    CHECK_EQ(got, 2); /* QPs 1 and 3 were waiting for it */
    CHECK_EQ(c[0].wr_id, 20);
    CHECK_EQ(c[1].wr_id, 22);
    CHECK_EQ(r->n[1].ee[0].stats.rx_frames, 3);
    dgr_free(r);
}

/* Duplicates are dropped and re-acknowledged; a frame ahead of a loss is
 * refused; the timeout resends (go-back-N). */
static void test_dup_seq_rtx(void)
{
    struct dgr_rig *r = rd_pair(4);
    struct ofl_ee *ee0, *ee1;
    struct ofl_cqe c[8];
    struct dgr_frame first;
    uint8_t *src;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    ee1 = &r->n[1].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 8);
    CHECK_OK(dgr_send(r, 0, 0, 31, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    first = r->wire.f[r->wire.head];
    CHECK_OK(dgr_deliver(r, 0, 0)); /* data, then its ack */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    /* the same frame again: dropped, re-acked, no receive consumed */
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, first.data, first.len, 1));
    CHECK_EQ(ee1->stats.dup_frames, 1);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 1); /* the first only */
    CHECK_EQ(ofl_qp_rq_outstanding(&r->n[1].q[0].qp), 7);
    CHECK_EQ(r->wire.n, 1); /* the re-ack */
    CHECK_OK(dgr_deliver(r, 1, 0)); /* a stale ack: ignored */
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);

    /* lose the next frame; the one after it is out of sequence */
    CHECK_OK(dgr_send(r, 0, 0, 32, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 33, src, 4, 0, 0, 7, SIG));
    r->wire.drop = 1;
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 100, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(ofl_ee_outstanding(ee0), 2);
    CHECK_ERR(dgr_deliver(r, 100, 0), OFL_E_QP_EE_SEQ);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 0);
    CHECK_EQ(ee1->stats.rx_frames, 1);
    /* before the deadline nothing is resent; at it, both are */
    CHECK_OK(ofl_ee_tick(ee0, 100 + DGR_TIMEOUT - 1));
    CHECK_EQ(r->wire.n, 0);
    CHECK_OK(ofl_ee_tick(ee0, 100 + DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(ee0->stats.rtx_frames, 2);
    CHECK_EQ(ee0->retries, 1);
    CHECK_OK(dgr_deliver(r, 111, 0));
    CHECK_OK(dgr_deliver(r, 111, 0));
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 2);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(ee0->retries, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 32);
    CHECK_EQ(c[1].wr_id, 33);
    /* a refused retransmission is tried again at the next tick */
    CHECK_OK(dgr_send(r, 0, 0, 34, src, 4, 0, 0, 7, SIG));
    r->wire.drop = 1;
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 200, 8));
    r->wire.refuse = 1;
    CHECK_ERR(ofl_ee_tick(ee0, 200 + DGR_TIMEOUT), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->wire.n, 0);
    CHECK_OK(ofl_ee_tick(ee0, 201 + DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 1);
    /* a refused acknowledgement waits for the receiver's tick */
    r->wire.refuse = 0;
    {
        struct dgr_frame f = r->wire.f[r->wire.head];

        dgr_drop_all(r);
        r->wire.refuse = 1;
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, f.data, f.len, 220));
    }
    CHECK_EQ(ee1->ack_pending, 1);
    CHECK_EQ(r->wire.n, 0);
    CHECK_OK(ofl_ee_tick(ee1, 221));
    CHECK_EQ(ee1->ack_pending, 0);
    CHECK_OK(dgr_deliver(r, 221, 0));
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    /* an acknowledgement that arrives while a retransmission round is
     * held (refused) releases the frames, and the round does not resend
     * what was released: rtx_next moves up to snd_una */
    CHECK_OK(dgr_send(r, 0, 0, 35, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 36, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 300, 8));
    CHECK_EQ(r->wire.n, 2);
    {
        static struct dgr_frame f[2];

        f[0] = r->wire.f[r->wire.head];
        f[1] = r->wire.f[(r->wire.head + 1u) % DGR_FRAMES];
        dgr_drop_all(r);
        r->wire.refuse = 2; /* both acknowledgements refused: pending */
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, f[0].data, f[0].len, 301));
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, f[1].data, f[1].len, 301));
    }
    CHECK_EQ(ee1->ack_pending, 1);
    r->wire.refuse = 1;
    CHECK_ERR(ofl_ee_tick(ee0, 300 + DGR_TIMEOUT), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(ee0->rtx_next, ee0->snd_una); /* the round began, held */
    CHECK_OK(ofl_ee_tick(ee1, 311));
    CHECK_OK(dgr_deliver(r, 311, 0));
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(ee0->rtx_next, ee0->snd_nxt);
    {
        uint64_t rtx = ee0->stats.rtx_frames;

        CHECK_OK(ofl_ee_tick(ee0, 312));
        CHECK_EQ(r->wire.n, 0);
        CHECK_EQ(ee0->stats.rtx_frames, rtx);
    }
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 35);
    CHECK_EQ(c[1].wr_id, 36);
    dgr_free(r);
}

/* The retry limit: the EE context fails, and with it every WQE that
 * waited on it; queued WQEs naming it are flushed; the QPs live on. */
static void test_retry_limit(void)
{
    struct dgr_rig *r = dgr_new(3);
    struct ofl_ee *e01;
    struct ofl_cqe c[8];
    uint8_t *src;
    uint64_t now = 0;
    int k;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    CHECK(dgr_rd_pair(r) == 0);
    dgr_post_recvs(r, 1, 0, 4);
    dgr_post_recvs(r, 2, 0, 4);
    e01 = &r->n[0].ee[dgr_ee_index(0, 1)];
    src = dgr_alloc(&r->n[0], 64);
    CHECK_OK(dgr_send(r, 0, 0, 41, src, 4, 0, dgr_ee_index(0, 1), 2, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 42, src, 4, 0, dgr_ee_index(0, 1), 2, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 43, src, 4, 0, dgr_ee_index(0, 2), 2, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, now, 8));
    CHECK_EQ(r->wire.n, 1); /* ORD 1: the second waits */
    for (k = 0; k < DGR_RETRY; k++) {
        dgr_drop_all(r); /* node 1 is unreachable */
        now += DGR_TIMEOUT;
        CHECK_OK(ofl_ee_tick(e01, now));
        CHECK_EQ(e01->retries, (unsigned)k + 1);
    }
    dgr_drop_all(r);
    now += DGR_TIMEOUT - 1;
    CHECK_OK(ofl_ee_tick(e01, now)); /* not yet */
    now += 1;
    CHECK_ERR(ofl_ee_tick(e01, now), OFL_E_QP_EE_RETRY);
    CHECK_EQ(e01->state, OFL_EE_ERROR);
    CHECK_ERR(ofl_ee_tick(e01, now), OFL_E_QP_EE_STATE);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 41);
    CHECK_EQ(c[0].status, OFL_WC_RETRY_EXC_ERR);
    /* the held WQE named the failed EE: INV_EEC_STATE_ERR (IBA's RD
     * status for an EE context in a state that takes no WQE; it was
     * WR_FLUSH_ERR before issue 28); the next, to node 2, goes and
     * completes */
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, now, 8));
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_RTS);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 42);
    CHECK_EQ(c[0].status, OFL_WC_INV_EEC_STATE_ERR);
    dgr_pump(r, now);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 43);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(dgr_poll(&r->n[2], false, c, 8), 1);
    /* the failed EE refuses frames until set up again */
    {
        struct ofl_dg_hdr h;
        uint8_t f[OFL_DG_HDR_LEN];

        memset(&h, 0, sizeof(h));
        h.kind = OFL_DG_ACK;
        h.dst_addr = A0;
        h.src_addr = A1;
        CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
        CHECK_ERR(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), now),
                  OFL_E_QP_EE_STATE);
        h.src_addr = DGR_ADDR0 + 9; /* no EE for that node */
        CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
        CHECK_ERR(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), now),
                  OFL_E_QP_EE_NONE);
        CHECK_OK(ofl_ee_init(e01, &e01->attr));
        h.src_addr = A1;
        h.sn = e01->snd_una - 1u;
        CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
        CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), now));
    }
    dgr_free(r);
}

/* Acknowledgement checks and sequence numbers wrapping 2^32. */
static void test_ack_checks(void)
{
    struct dgr_rig *r = rd_pair(8);
    struct ofl_ee *ee0;
    struct ofl_dg_hdr h;
    struct ofl_cqe c[8];
    uint8_t f[OFL_DG_HDR_LEN], *src;
    int i;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    CHECK_EQ(ee0->snd_nxt, dgr_isn(0, 1));
    dgr_post_recvs(r, 1, 0, 7);
    for (i = 0; i < 7; i++)
        CHECK_OK(dgr_send(r, 0, 2, 50u + (unsigned)i, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[2].qp, 0, 16));
    CHECK_EQ(ofl_ee_outstanding(ee0), 7);
    CHECK(ee0->snd_nxt < ee0->snd_una); /* wrapped past 2^32 */
    CHECK_OK(dgr_deliver(r, 0, 7)); /* the data; its acks are lost */
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 7);
    dgr_drop_all(r);
    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_ACK;
    h.dst_addr = A0;
    h.src_addr = A1;
    h.sn = ee0->snd_nxt; /* never sent */
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_ERR(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), 0),
              OFL_E_QP_EE_ACK);
    CHECK_EQ(ofl_ee_outstanding(ee0), 7);
    h.sn = ee0->snd_una - 2u; /* older than anything outstanding: stale */
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), 0));
    CHECK_EQ(ofl_ee_outstanding(ee0), 7);
    h.sn = ee0->snd_una + 2u; /* the first three, across the wrap */
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), 0));
    CHECK_EQ(ofl_ee_outstanding(ee0), 4);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 3);
    CHECK_EQ(c[2].wr_id, 52);
    h.sn = ee0->snd_nxt - 1u; /* the rest */
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, sizeof(f), 0));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 4);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    /* an RD data frame to a QP that cannot take it is not acknowledged:
     * no receive WQE on node 1 QP 7 */
    CHECK_OK(dgr_send(r, 0, 0, 60, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_ERR(dgr_deliver(r, 0, 0), OFL_E_QP_RQ_EMPTY);
    CHECK_EQ(r->wire.n, 0); /* no ack */
    dgr_post_recvs(r, 1, 0, 1);
    CHECK_OK(ofl_ee_tick(ee0, DGR_TIMEOUT)); /* resent, now taken */
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 0));
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 0));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 60);
    /* EE init checks */
    {
        struct ofl_ee e;
        struct ofl_ee_attr a = ee0->attr;

        a.window = 3;
        CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
        a.window = 0x10000;
        CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
        a = ee0->attr;
        a.slot_size = OFL_DG_HDR_LEN;
        CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
        a = ee0->attr;
        a.transmit = NULL;
        CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
        CHECK_ERR(ofl_ee_tick(NULL, 0), OFL_E_ARG);
        memset(&e, 0, sizeof(e));
        CHECK_ERR(ofl_ee_tick(&e, 0), OFL_E_QP_EE_STATE);
    }
    dgr_free(r);
}

/* Post-time destination checks and the EE slot size. */
static void test_post_dest(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    uint8_t *src;
    struct ofl_qp *qp;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.qpn = 1;
    o.max_dgram = 400; /* more than an EE slot holds (320 - 28) */
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 0);
    qp = &r->n[0].q[0].qp;
    src = dgr_alloc(&r->n[0], 512);
    CHECK_ERR(dgr_send(r, 0, 0, 1, src, 4, 0, 1, 7, 0), OFL_E_QP_DG_DEST);
    CHECK_ERR(dgr_send(r, 0, 0, 1, src, 4, 0, 0xFFFFFFFFu, 7, 0),
              OFL_E_QP_DG_DEST);
    CHECK_ERR(dgr_send(r, 0, 0, 1, src, DGR_SLOT - OFL_DG_HDR_LEN + 1, 0, 0,
                       7, 0),
              OFL_E_QP_DG_TOO_LONG);
    CHECK_ERR(dgr_send(r, 0, 0, 1, src, 401, 0, 0, 7, 0),
              OFL_E_QP_DG_TOO_LONG);
    CHECK_EQ(ofl_qp_sq_outstanding(qp), 0);
    CHECK_OK(dgr_send(r, 0, 0, 1, src, DGR_SLOT - OFL_DG_HDR_LEN, 0, 0, 7, 0));
    r->n[0].ee[0].state = OFL_EE_UNUSED; /* an EE not set up */
    CHECK_ERR(dgr_send(r, 0, 0, 1, src, 4, 0, 0, 7, 0), OFL_E_QP_DG_DEST);
    /* ... and a WQE naming it when fetched is malformed: SQE */
    CHECK_OK(ofl_qp_process(qp, 0, 8));
    CHECK_EQ(qp->state, OFL_QP_SQE);
    dgr_free(r);
}

/* The outstanding request limit (seed 001): held beyond attr.ord, released
 * by the acknowledgement; FENCE waits for every acknowledgement. */
static void test_ord(void)
{
    struct dgr_rig *r = rd_pair(2);
    struct ofl_ee *ee0;
    struct ofl_cqe c[8];
    uint8_t *src;
    struct ofl_qp *qp;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    qp = &r->n[0].q[2].qp;
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 12);
    CHECK_OK(dgr_send(r, 0, 2, 71, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 2, 72, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 2, 73, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(qp, 0, 16));
    CHECK_EQ(r->wire.n, 2); /* ORD 2: the third is held */
    CHECK_EQ(qp->ord_count, 2);
    CHECK_OK(ofl_qp_process(qp, 0, 16));
    CHECK_EQ(r->wire.n, 2);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* first data */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* second data */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* first ack */
    CHECK_EQ(qp->ord_count, 1);
    CHECK_OK(ofl_qp_process(qp, 0, 16));
    CHECK_EQ(r->wire.n, 2); /* second ack + the third data */
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 3);
    CHECK_EQ(c[2].wr_id, 73);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    /* the other QP (ORD 4) takes four before holding */
    {
        int i;

        for (i = 0; i < 5; i++)
            CHECK_OK(dgr_send(r, 0, 0, 80u + (unsigned)i, src, 4, 0, 0, 7,
                              SIG));
        CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 16));
        CHECK_EQ(r->wire.n, 4);
        dgr_pump(r, 0);
        CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 5);
    }
    /* FENCE: waits until every earlier frame of the QP is acknowledged */
    CHECK_OK(dgr_send(r, 0, 2, 90, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 2, 91, src, 4, 0, 0, 7,
                      SIG | OFL_QP_WR_FENCE));
    CHECK_OK(ofl_qp_process(qp, 0, 16));
    CHECK_EQ(r->wire.n, 1);
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[1].wr_id, 91);
    dgr_free(r);
}

/* The EE window is shared: when it is full every QP sending through it
 * holds, and the acknowledgement frees room for them all. */
static void test_window(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    struct ofl_ee *ee0;
    struct ofl_cqe c[16];
    uint8_t *src;
    int q, i;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.ord = 8;
    for (q = 0; q < 2; q++) {
        o.qpn = (uint32_t)q + 1;
        CHECK(dgr_qp_add(r, 0, &o, NULL) == q);
    }
    o.qpn = 7;
    CHECK(dgr_qp_add(r, 1, &o, NULL) == 0);
    ee0 = &r->n[0].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 12);
    for (i = 0; i < 6; i++)
        CHECK_OK(dgr_send(r, 0, 0, 110u + (unsigned)i, src, 4, 0, 0, 7, SIG));
    for (i = 0; i < 4; i++)
        CHECK_OK(dgr_send(r, 0, 1, 120u + (unsigned)i, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 16));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 16));
    CHECK_EQ(ofl_ee_outstanding(ee0), DGR_WIN); /* 6 + 2, then full */
    CHECK_EQ(r->wire.n, DGR_WIN);
    CHECK_EQ(r->n[0].q[1].qp.ord_count, 2);
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 16));
    CHECK_EQ(r->wire.n, DGR_WIN); /* still held */
    dgr_pump(r, 0);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 16), 10);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 16), 10);
    CHECK_EQ(r->n[0].ee[0].stats.tx_frames, 10);
    /* a deadline never wraps the caller's clock */
    CHECK_OK(dgr_send(r, 0, 0, 130, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, ~(uint64_t)0 - 2, 16));
    CHECK_EQ(ee0->deadline, ~(uint64_t)0);
    CHECK_OK(ofl_ee_tick(ee0, ~(uint64_t)0 - 1));
    CHECK_EQ(ee0->stats.rtx_frames, 0);
    dgr_free(r);
}

/* A Send held by ORD or by a full EE window has not begun: moved to SQD,
 * the QP raises SQ_DRAINED once nothing of its own is in flight, and the
 * Send does not start in SQD when the hold lifts; back in RTS it goes. */
static void test_sqd_held(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    struct ofl_ee *ee0;
    struct ofl_cqe c[16];
    struct ofl_qp *a, *b;
    uint8_t *src;
    int i;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.ord = 1;
    o.qpn = 1;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 0); /* a: ORD 1 */
    o.ord = 8;
    o.qpn = 2;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 1); /* b: shares the EE */
    o.qpn = 7;
    CHECK(dgr_qp_add(r, 1, &o, NULL) == 0);
    a = &r->n[0].q[0].qp;
    b = &r->n[0].q[1].qp;
    ee0 = &r->n[0].ee[0];
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 12);
    /* ORD: a's second Send is held behind its first */
    CHECK_OK(dgr_send(r, 0, 0, 1, src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 2, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(a, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_OK(ofl_qp_modify(a, OFL_QP_SQD));
    CHECK_OK(ofl_qp_process(a, 0, 8));
    CHECK((a->events & OFL_QP_EVT_SQ_DRAINED) == 0); /* frame 1 unacked */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* frame 1 */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* its ack */
    CHECK_EQ(a->ord_count, 0);
    CHECK_OK(ofl_qp_process(a, 0, 8));
    CHECK_EQ(r->wire.n, 0);        /* the held Send did not start */
    CHECK(a->events & OFL_QP_EVT_SQ_DRAINED);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 16), 1);
    CHECK_OK(ofl_qp_modify(a, OFL_QP_RTS));
    CHECK_OK(ofl_qp_process(a, 0, 8));
    CHECK_EQ(r->wire.n, 1);        /* back in RTS it goes */
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 16), 1);
    CHECK_EQ(c[0].wr_id, 2);
    /* the EE window: a fills it, b's Send is held with nothing in flight */
    a->ord = 8;
    for (i = 0; i < DGR_WIN; i++)
        CHECK_OK(dgr_send(r, 0, 0, 10u + (unsigned)i, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(a, 0, 16));
    CHECK_EQ(ofl_ee_outstanding(ee0), DGR_WIN);
    CHECK_OK(dgr_send(r, 0, 1, 99, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(b, 0, 16));
    CHECK_EQ(r->wire.n, DGR_WIN);  /* held: the window is full */
    b->events = 0;
    CHECK_OK(ofl_qp_modify(b, OFL_QP_SQD));
    CHECK_OK(ofl_qp_process(b, 0, 16));
    CHECK(b->events & OFL_QP_EVT_SQ_DRAINED); /* nothing of b in flight */
    dgr_pump(r, 0);                /* a's frames and their acks */
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_OK(ofl_qp_process(b, 0, 16));
    CHECK_EQ(r->wire.n, 0);        /* room now, but b is in SQD */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 16), DGR_WIN);
    CHECK_OK(ofl_qp_modify(b, OFL_QP_RTS));
    CHECK_OK(ofl_qp_process(b, 0, 16));
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 16), 1);
    CHECK_EQ(c[0].wr_id, 99);
    dgr_free(r);
}

/* A QP reset while its frames wait in the EE: the late acknowledgement
 * touches none of its (new) WQEs. */
static void test_reset_epoch(void)
{
    struct dgr_rig *r = rd_pair(4);
    struct ofl_cqe c[8];
    uint8_t *src;
    struct ofl_qp *qp;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    qp = &r->n[0].q[0].qp;
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 4);
    CHECK_OK(dgr_send(r, 0, 0, 101, src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(qp, 0, 8));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_ERROR));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RESET));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_INIT));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RTR));
    CHECK_OK(ofl_qp_modify(qp, OFL_QP_RTS));
    CHECK_OK(dgr_send(r, 0, 0, 102, src, 4, 0, 0, 7, SIG)); /* slot 0 again */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the old frame arrives, acked */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the ack */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* 102 not completed */
    CHECK_EQ(qp->ord_count, 0);
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 102);
    dgr_free(r);
}

/*
 * A QP removed from its node and created again in the same memory while
 * its frame waits in the EE: the removal detached the frame, so its late
 * acknowledgement completes nothing of the new QP (which reuses epoch 1),
 * and the new QP's own lost frame completes only when it is acknowledged.
 */
static void test_recreate_detach(void)
{
    struct dgr_rig *r = rd_pair(4);
    struct dgr_qp *q;
    struct dgr_frame *f1 = malloc(sizeof(*f1));
    struct ofl_ee *ee;
    struct ofl_cqe c[8];
    uint8_t *src;
    uint32_t i, named = 0;

    CHECK(r != NULL && f1 != NULL);
    if (r == NULL || f1 == NULL) {
        free(f1);
        return;
    }
    q = &r->n[0].q[0];
    ee = &r->n[0].ee[dgr_ee_index(0, 1)];
    src = dgr_alloc(&r->n[0], 64);
    dgr_post_recvs(r, 1, 0, 4);
    CHECK_OK(dgr_send(r, 0, 0, 11, src, 8, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&q->qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    *f1 = r->wire.f[r->wire.head];
    dgr_drop_all(r);
    CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_ERROR));
    CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_RESET));
    CHECK_OK(ofl_qp_node_remove(&r->n[0].node, &q->qp));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1); /* 11 flushed */
    CHECK_EQ(ofl_ee_outstanding(ee), 1);           /* its frame stays */
    for (i = 0; i < ee->attr.window; i++)
        named += ee->attr.slot[i].qp == &q->qp;
    CHECK_EQ(named, 0);
    CHECK_OK(ofl_qp_create(&q->qp, &q->attr, &q->qmem));
    CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_INIT));
    CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_RTR));
    CHECK_OK(ofl_qp_modify(&q->qp, OFL_QP_RTS));
    CHECK_OK(ofl_qp_node_add(&r->n[0].node, &q->qp));
    CHECK_OK(dgr_send(r, 0, 0, 21, src, 8, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&q->qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    dgr_drop_all(r); /* 21's frame is lost */
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, f1->data, f1->len, 1));
    CHECK_OK(dgr_deliver(r, 1, 0)); /* the late frame's acknowledgement */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    CHECK_EQ(q->qp.ord_count, 1);
    dgr_pump(r, 2);
    CHECK_OK(dgr_tick(r, 2 + DGR_TIMEOUT)); /* 21 sent again, acked */
    dgr_pump(r, 2 + DGR_TIMEOUT);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 21);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(q->qp.ord_count, 0);
    free(f1);
    dgr_free(r);
}

/*
 * ofl_ee_init only from UNUSED or ERROR: a live EE is refused (its window
 * holds a QP's frame). After ERROR it is set up again with smaller slots
 * while a Send checked against the old size waits (ORD 1): that Send is
 * checked again when it starts and fails, nothing written past the slot.
 */
static void test_ee_reinit(void)
{
    struct dgr_rig *r = rd_pair(1);
    struct dgr_qp *q;
    struct ofl_ee *ee;
    struct ofl_ee_attr a;
    struct ofl_cqe c[8];
    uint8_t *src, *buf = malloc(64 + 64);
    struct ofl_ee_slot *slot = malloc(sizeof(*slot));
    uint64_t t;
    enum ofl_err e = OFL_OK;

    CHECK(r != NULL && buf != NULL && slot != NULL);
    if (r == NULL || buf == NULL || slot == NULL) {
        free(buf);
        free(slot);
        return;
    }
    q = &r->n[0].q[2]; /* QP 3: acked, ORD 1 */
    ee = &r->n[0].ee[dgr_ee_index(0, 1)];
    src = dgr_alloc(&r->n[0], 256);
    CHECK_OK(dgr_send(r, 0, 2, 1, src, 8, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 2, 2, src, 250, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&q->qp, 0, 8)); /* 1 out, 2 held by ORD */
    CHECK_EQ(r->wire.n, 1);
    dgr_drop_all(r);
    CHECK_ERR(ofl_ee_init(ee, &ee->attr), OFL_E_QP_EE_STATE); /* live */
    CHECK_EQ(ee->state, OFL_EE_RTS);
    CHECK_EQ(ofl_ee_outstanding(ee), 1);
    for (t = DGR_TIMEOUT; t < 100 * DGR_TIMEOUT && e != OFL_E_QP_EE_RETRY;
         t += DGR_TIMEOUT) {
        e = ofl_ee_tick(ee, t);
        dgr_drop_all(r);
    }
    CHECK_EQ(ee->state, OFL_EE_ERROR);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_RETRY_EXC_ERR);
    a = ee->attr;
    a.window = 1;
    a.slot_size = 64;
    a.buf = buf;
    a.slot = slot;
    memset(buf + 64, 0xEE, 64); /* a canary past the one slot */
    CHECK_OK(ofl_ee_init(ee, &a)); /* from ERROR */
    CHECK_OK(ofl_qp_process(&q->qp, t, 8));
    CHECK_EQ(r->wire.n, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 2);
    CHECK_EQ(c[0].status, OFL_WC_LOC_LEN_ERR);
    for (t = 0; t < 64; t++)
        CHECK_EQ(buf[64 + t], 0xEE);
    dgr_free(r);
    free(buf);
    free(slot);
}

/*
 * Seed 001: "if each of N host processor nodes contain M processes, and
 * all M processes on each node wish to communicate with all the processes
 * on all the other nodes, the reliable connection service requires M^2 x
 * (N - 1) QPs on each node. By comparison, the connectionless reliable
 * datagram service only requires M QPs + (N - 1) EE contexts on each node
 * for exactly the same communications." N = 4, M = 3, all to all.
 */
static void test_state_count(void)
{
    enum { N = 4, M = 3 };
    struct dgr_rig *r = dgr_new(N);
    static uint8_t talked[N][M][N][M];
    struct dgr_qp_opts o;
    static struct ofl_cqe c[64]; /* static: kernel stack frames */
    uint64_t now = 0;
    int i, j, q, p, round, pairs = 0, ok_sends = 0;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(talked, 0, sizeof(talked));
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.ord = 2; /* outstanding limit and window holds get exercised */
    for (i = 0; i < N; i++)
        for (q = 0; q < M; q++) {
            o.qpn = (uint32_t)q + 1;
            CHECK(dgr_qp_add(r, i, &o, NULL) == q);
        }
    /* every QP: one receive per remote QP, one send to each */
    for (i = 0; i < N; i++)
        for (q = 0; q < M; q++) {
            for (j = 0; j < (N - 1) * M; j++) {
                uint8_t *b = dgr_alloc(&r->n[i], 16);

                CHECK_OK(dgr_recv(r, i, q, (uint64_t)j, b, 16));
            }
            for (j = 0; j < N; j++) {
                if (j == i)
                    continue;
                for (p = 0; p < M; p++) {
                    uint8_t *b = dgr_alloc(&r->n[i], 4);

                    b[0] = (uint8_t)i;
                    b[1] = (uint8_t)q;
                    b[2] = (uint8_t)j;
                    b[3] = (uint8_t)p;
                    CHECK_OK(dgr_send(r, i, q, 0, b, 4, 0, dgr_ee_index(i, j),
                                      (uint32_t)p + 1, SIG));
                }
            }
        }
    for (round = 0; round < 50; round++) {
        dgr_pump(r, now);
        (void)dgr_tick(r, now);
        now += 1;
    }
    /* the receives say who talked to whom, and the payload agrees */
    for (i = 0; i < N; i++) {
        uint32_t n, k;

        while ((n = dgr_poll(&r->n[i], false, c, 64)) != 0)
            for (k = 0; k < n; k++) {
                int sn = (int)(c[k].src_addr - DGR_ADDR0);
                int sq = (int)c[k].src_qpn - 1, dq = (int)c[k].qpn - 1;

                CHECK_EQ(c[k].status, OFL_WC_SUCCESS);
                if (sn >= 0 && sn < N && sq >= 0 && sq < M && dq >= 0 &&
                    dq < M && c[k].status == OFL_WC_SUCCESS)
                    talked[sn][sq][i][dq]++;
            }
        while ((n = dgr_poll(&r->n[i], true, c, 64)) != 0)
            for (k = 0; k < n; k++)
                ok_sends += c[k].status == OFL_WC_SUCCESS;
    }
    for (i = 0; i < N; i++)
        for (q = 0; q < M; q++)
            for (j = 0; j < N; j++)
                for (p = 0; p < M; p++)
                    if (i != j && talked[i][q][j][p] == 1)
                        pairs++;
    CHECK_EQ(pairs, N * M * (N - 1) * M); /* every ordered QP pair, once */
    CHECK_EQ(ok_sends, N * M * (N - 1) * M);
    /* the state each node needed: M QPs and N - 1 EE contexts */
    for (i = 0; i < N; i++) {
        uint32_t ees = 0, qps = 0, k;

        for (k = 0; k < r->n[i].node.ee_cap; k++)
            ees += r->n[i].node.ee[k].state == OFL_EE_RTS;
        for (k = 0; k < r->n[i].node.qp_cap; k++)
            qps += r->n[i].node.qp[k] != NULL;
        CHECK_EQ(qps, M);
        CHECK_EQ(ees, N - 1);
        CHECK_EQ(r->n[i].node.ee_cap, N - 1);
        /* reliable connections would need M^2 x (N - 1) = 27 QPs */
        CHECK(qps + ees < (uint32_t)(M * M * (N - 1)));
        CHECK_EQ(r->n[i].sim.violations, 0);
    }
    dgr_free(r);
}

OFL_SUITE(qp_rd)
{
    test_acked();
    test_shared_ee();
    test_dup_seq_rtx();
    test_retry_limit();
    test_ack_checks();
    test_post_dest();
    test_ord();
    test_window();
    test_sqd_held();
    test_reset_epoch();
    test_recreate_detach();
    test_ee_reinit();
    test_state_count();
}
