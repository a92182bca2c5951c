/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: RDMA Write and Read on reliable datagram QPs (seed 001: a datagram
 * QP "that allows RDMA operations, can accept RDMA operations from any
 * node ... that obtains the RKey") and the EE context's negative
 * acknowledgements: sequence (resend now), access / invalid request (the
 * WQE fails, its QP goes to ERROR), RNR (resend after rnr_delay, bounded
 * by retry_limit). Frames are counted on the rig's wire. */
#include "test.h"
#include "support/dg_rig.h"

#define A0 DGR_ADDR0
#define A1 (DGR_ADDR0 + 1u)
#define SIG OFL_QP_WR_SIGNALED

/* Node 0: RD QP 1 (acked, ORD 4) and RD QP 2 (acked); node 1: RD QP 7
 * (max_dgram 256) and RD QP 8 (max_dgram 64). Node 1 also has a region
 * with remote read and write rights (*rstag over *rbuf, 4096 bytes) and
 * node 0 a remote-write-only region... not needed: local buffers use the
 * node's region. */
static struct dgr_rig *rig(uint32_t *rstag, uint8_t **rbuf)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    uint8_t *p;

    if (r == NULL)
        return NULL;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.qpn = 1;
    if (dgr_qp_add(r, 0, &o, NULL) != 0)
        return NULL;
    o.qpn = 2;
    if (dgr_qp_add(r, 0, &o, NULL) != 1)
        return NULL;
    o.qpn = 7;
    if (dgr_qp_add(r, 1, &o, NULL) != 0)
        return NULL;
    o.qpn = 8;
    o.max_dgram = 64;
    if (dgr_qp_add(r, 1, &o, NULL) != 1)
        return NULL;
    p = dgr_alloc(&r->n[1], 8192);
    if (p == NULL)
        return NULL;
    p = r->n[1].mem + ((uint32_t)(p - r->n[1].mem + 4095u) & ~4095u);
    memset(&d, 0, sizeof(d));
    d.va = (uint64_t)(uintptr_t)p;
    d.page_shift = 12;
    d.att_base = 32;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE |
               OFL_TPT_REMOTE_ATOMIC;
    b.pa = ofl_sim_pa(p);
    b.len = 4096;
    if (ofl_tpt_reg_phys(&r->n[1].tpt, 7, &d, &b, 1, rstag) != OFL_OK)
        return NULL;
    *rbuf = p;
    return r;
}

/* A test's fixture: the rig of rig() with its remote region, the EE
 * contexts node 0 -> 1 (ee0) and 1 -> 0 (ee1), and a 64-byte buffer of
 * node 0's region (src). */
struct fx {
    uint32_t rstag;
    uint8_t *rbuf, *src;
    struct ofl_ee *ee0, *ee1;
};

/* Sets f up; the rig (one check: that it exists), NULL when it could not
 * be made. */
static struct dgr_rig *fx_open(struct fx *f)
{
    struct dgr_rig *r;

    memset(f, 0, sizeof(*f));
    r = rig(&f->rstag, &f->rbuf);
    CHECK(r != NULL);
    if (r == NULL)
        return NULL;
    f->ee0 = &r->n[0].ee[0];
    f->ee1 = &r->n[1].ee[0];
    f->src = dgr_alloc(&r->n[0], 64);
    return r;
}

/* NAKs on (or off) at both ends, rnr_delay ticks after an RNR NAK. */
static void naks(struct dgr_rig *r, bool on, uint64_t rnr_delay)
{
    int i;

    for (i = 0; i < r->nodes; i++) {
        r->n[i].ee[0].attr.flags = on ? OFL_EE_F_NAK : 0;
        r->n[i].ee[0].attr.rnr_delay = rnr_delay;
    }
}

static enum ofl_err rdma(struct dgr_rig *r, int ni, int qi, uint64_t wr_id,
                         uint8_t op, void *p, uint32_t len, uint32_t qpn,
                         uint32_t rstag, uint64_t rto)
{
    struct ofl_qp_wr wr;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.opcode = op;
    wr.flags = SIG;
    wr.remote_stag = rstag;
    wr.remote_to = rto;
    wr.dest.ee = 0;
    wr.dest.qpn = qpn;
    return dgr_post(r, ni, qi, &wr, p, len);
}

/* The head frame of the wire, decoded (kind 0 when none). */
static struct ofl_dg_hdr head(struct dgr_rig *r)
{
    struct ofl_dg_hdr h;

    memset(&h, 0, sizeof(h));
    if (r->wire.n != 0)
        (void)ofl_dg_parse(r->wire.f[r->wire.head].data,
                           r->wire.f[r->wire.head].len, &h);
    return h;
}

/* An acknowledgement header of kind (ACK or NAK) for sequence number sn
 * from node 1 to node 0, len bytes after it, every other field 0. */
static struct ofl_dg_hdr ctl(uint8_t kind, uint32_t sn, uint16_t len)
{
    const struct ofl_dg_hdr h = {
        .kind = kind, .len = len, .dst_addr = A0, .src_addr = A1, .sn = sn};

    return h;
}

/* Queues a frame built from h (payload bytes pay) onto node ni's input:
 * returns ofl_qp_dgram_input's result. */
static enum ofl_err inject(struct dgr_rig *r, int ni,
                           const struct ofl_dg_hdr *h, const void *pay,
                           uint32_t n, uint64_t now)
{
    static uint8_t f[DGR_FRAME_MAX];
    uint32_t ext = ofl_dg_ext_len(h->kind);

    if (ofl_dg_build(h, f, sizeof(f)) != OFL_OK)
        return OFL_E_ARG;
    if (n != 0)
        memcpy(f + OFL_DG_HDR_LEN + ext, pay, n);
    return ofl_qp_dgram_input(&r->n[ni].node, f, OFL_DG_HDR_LEN + ext + n,
                              now);
}

/* Write, then Read of what was written, between QP 1 (node 0) and QP 7
 * (node 1): one frame each way per operation plus acknowledgements. */
static void test_write_read(void)
{
    struct fx fix;
    uint8_t *sink;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    struct ofl_dg_hdr h;

    if (r == NULL)
        return;
    sink = dgr_alloc(&r->n[0], 64);
    memcpy(fix.src, "rd-write", 8);
    CHECK_OK(rdma(r, 0, 0, 51, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 100));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_WRITE);
    CHECK_EQ(h.len, OFL_DG_WRITE_EXT + 8);
    CHECK_EQ(h.stag, fix.rstag);
    CHECK_EQ(h.to, (uint64_t)(uintptr_t)fix.rbuf + 100);
    CHECK_EQ(h.dst_qpn, 7);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* waits for the ack */
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK(memcmp(fix.rbuf + 100, "rd-write", 8) == 0);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 0); /* no receive used */
    CHECK_EQ(ofl_qp_rq_outstanding(&r->n[1].q[0].qp), 0);
    CHECK_EQ(r->wire.n, 1); /* the ack */
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 51);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_WRITE);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);

    /* Read it back: request (node 0), then from node 1 its ack and the
     * response, an RD frame of node 1's EE, acknowledged by node 0 */
    CHECK_OK(rdma(r, 0, 0, 52, OFL_QP_OP_READ, sink, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 100));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 1, 8));
    CHECK_EQ(r->wire.n, 1);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_READ);
    CHECK_EQ(h.len, OFL_DG_READ_EXT);
    CHECK_EQ(h.rlen, 8);
    CHECK_OK(dgr_deliver(r, 1, 1));
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(fix.ee1->stats.tx_frames, 1);
    CHECK_EQ(ofl_ee_outstanding(fix.ee1), 1);
    CHECK_OK(dgr_deliver(r, 1, 1)); /* the ack of the request */
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* waits: the response */
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 1);     /* ORD held by the Read */
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_RESP);
    CHECK_EQ(h.dst_qpn, 1);
    CHECK_EQ(h.src_qpn, 7);
    CHECK_EQ(h.rlen, fix.ee0->snd_nxt - 1u); /* the request it answers */
    CHECK_OK(dgr_deliver(r, 1, 1));
    CHECK(memcmp(sink, "rd-write", 8) == 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 52);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_READ);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 8);
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 0);
    CHECK_EQ(r->wire.n, 1); /* node 0 acknowledges the response */
    CHECK_OK(dgr_deliver(r, 1, 1));
    CHECK_EQ(ofl_ee_outstanding(fix.ee1), 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);

    /* a lost response is the responder's to resend (its timeout) */
    memset(sink, 0, 8);
    CHECK_OK(rdma(r, 0, 0, 53, OFL_QP_OP_READ, sink, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 100));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 20, 8));
    CHECK_OK(dgr_deliver(r, 20, 1)); /* request in: ack + response out */
    CHECK_OK(dgr_deliver(r, 20, 1)); /* the ack */
    dgr_drop_all(r);                 /* the response is lost */
    CHECK_OK(ofl_ee_tick(fix.ee1, 20 + DGR_TIMEOUT - 1));
    CHECK_EQ(r->wire.n, 0);
    CHECK_OK(ofl_ee_tick(fix.ee1, 20 + DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_RD_RESP);
    CHECK_OK(dgr_deliver(r, 31, 0));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 53);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(sink, "rd-write", 8) == 0);
    /* a duplicate response (delivered twice): dropped, re-acked, and
     * nothing completes twice */
    {
        static struct dgr_frame f;

        CHECK_OK(rdma(r, 0, 0, 54, OFL_QP_OP_READ, sink, 4, 7, fix.rstag,
                      (uint64_t)(uintptr_t)fix.rbuf));
        CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 40, 8));
        CHECK_OK(dgr_deliver(r, 40, 2)); /* request; its ack */
        f = r->wire.f[r->wire.head];
        CHECK_OK(dgr_deliver(r, 40, 0));
        CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
        CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f.data, f.len, 41));
        CHECK_EQ(fix.ee0->stats.dup_frames, 1);
        CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    }
    /* zero-length Write and Read: no key is checked, they complete */
    CHECK_OK(rdma(r, 0, 0, 55, OFL_QP_OP_WRITE, NULL, 0, 7, 0x12345678u, 0));
    CHECK_OK(rdma(r, 0, 0, 56, OFL_QP_OP_READ, NULL, 0, 7, 0x12345678u, 0));
    dgr_pump(r, 50);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[1].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* Posting rules: RDMA on RD only, Write/Read sizes against max_dgram and
 * the EE slot, the destination EE. */
static void test_post_rules(void)
{
    uint32_t rstag = 0;
    uint8_t *rbuf = NULL, *src;
    struct dgr_rig *r = rig(&rstag, &rbuf);
    struct dgr_qp_opts o;
    struct ofl_qp_wr wr;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    src = dgr_alloc(&r->n[0], 512);
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_UD;
    o.qpn = 3;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 2);
    CHECK_ERR(rdma(r, 0, 2, 1, OFL_QP_OP_WRITE, src, 8, 7, rstag, 0),
              OFL_E_QP_DG_RDMA);
    CHECK_ERR(rdma(r, 0, 2, 1, OFL_QP_OP_READ, src, 8, 7, rstag, 0),
              OFL_E_QP_DG_RDMA);
    CHECK_ERR(rdma(r, 0, 0, 1, OFL_QP_OP_WRITE_IMM, src, 8, 7, rstag, 0),
              OFL_E_QP_DG_RDMA);
    CHECK_ERR(rdma(r, 0, 2, 1, OFL_QP_OP_ATOMIC_FADD, src, 8, 7, rstag, 0),
              OFL_E_QP_DG_RDMA); /* UD: no atomics (RD has them) */
    /* max_dgram 256 holds the Write's 12 extension bytes and its data */
    CHECK_OK(rdma(r, 0, 0, 1, OFL_QP_OP_WRITE, src, 256 - 12, 7, rstag, 0));
    CHECK_ERR(rdma(r, 0, 0, 1, OFL_QP_OP_WRITE, src, 256 - 11, 7, rstag, 0),
              OFL_E_QP_DG_TOO_LONG);
    /* a Read's response: 4 extension bytes and the data */
    CHECK_OK(rdma(r, 0, 0, 1, OFL_QP_OP_READ, src, 256 - 4, 7, rstag, 0));
    CHECK_ERR(rdma(r, 0, 0, 1, OFL_QP_OP_READ, src, 256 - 3, 7, rstag, 0),
              OFL_E_QP_DG_TOO_LONG);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_WRITE;
    wr.dest.ee = 1; /* a two-node rig has one EE per node */
    CHECK_ERR(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL),
              OFL_E_QP_DG_DEST);
    wr.opcode = OFL_QP_OP_READ;
    CHECK_ERR(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL),
              OFL_E_QP_DG_DEST);
    wr.dest.ee = 0;
    CHECK_OK(ofl_qp_post_send(&r->n[0].q[0].qp, &wr, NULL));
    /* the host-memory encoder writes the destination for both */
    {
        static uint8_t slot[128];

        wr.dest.qpn = 9;
        CHECK_OK(ofl_qp_wqe_send(slot, sizeof(slot), &wr));
        CHECK_EQ(ofl_load_le32(slot + OFL_SWQE_DG_QPN), 9);
        wr.opcode = OFL_QP_OP_WRITE;
        CHECK_OK(ofl_qp_wqe_send(slot, sizeof(slot), &wr));
        CHECK_EQ(ofl_load_le32(slot + OFL_SWQE_DG_QPN), 9);
    }
    dgr_free(r);
}

/* Access refused (a key without the right, a bound overrun, a local-only
 * region): ACCESS NAK carrying the error, no retransmission, the WQE
 * REM_ACCESS_ERR, the requester QP to ERROR, the EE and the other QPs go
 * on. A lost ACCESS NAK is repeated when the frame comes again. An
 * oversized Read: INVALID NAK, REM_INV_REQ_ERR. */
static void test_access_nak(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    struct ofl_dg_hdr h;
    enum ofl_err err;
    uint32_t rcv;

    if (r == NULL)
        return;
    memcpy(fix.src, "denied!!", 8);
    /* past the region's end (4096 bytes): bounds */
    CHECK_OK(rdma(r, 0, 0, 61, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 4092));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    rcv = fix.ee1->rcv_nxt;
    err = dgr_deliver(r, 0, 1);
    CHECK(err != OFL_OK);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv + 1); /* consumed */
    CHECK(memcmp(fix.rbuf + 4092, "deni", 4) != 0);
    CHECK_EQ(r->wire.n, 1); /* the NAK, no ack */
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_ACCESS);
    CHECK_EQ(h.nak_err, (uint16_t)err);
    CHECK_EQ(h.sn, rcv);
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    CHECK_EQ(fix.ee1->stats.acks_tx, 0);
    CHECK_OK(dgr_deliver(r, 1, 1));
    CHECK_EQ(fix.ee0->stats.naks_rx, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 61);
    CHECK_EQ(c[0].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(fix.ee0->state, OFL_EE_RTS);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    /* no retransmission, ever */
    CHECK_OK(ofl_ee_tick(fix.ee0, 1 + 4 * DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 0);
    CHECK_EQ(fix.ee0->stats.rtx_frames, 0);
    /* the other QP of node 0 goes on through the same EE */
    memcpy(fix.src, "allowed!", 8);
    CHECK_OK(rdma(r, 0, 1, 62, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    dgr_pump(r, 50);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 62);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(fix.rbuf, "allowed!", 8) == 0);

    /* a key without remote rights (node 1's local region), by Read; the
     * NAK is lost: the timeout resends, and the duplicate is answered
     * with the NAK again, not with an acknowledgement */
    CHECK_OK(rdma(r, 0, 1, 63, OFL_QP_OP_READ, fix.src, 8, 7, r->n[1].stag,
                  (uint64_t)(uintptr_t)r->n[1].mem));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 60, 8));
    CHECK(dgr_deliver(r, 60, 1) != OFL_OK);
    CHECK_EQ(head(r).kind, OFL_DG_NAK);
    dgr_drop_all(r);
    CHECK_OK(ofl_ee_tick(fix.ee0, 60 + DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_RD_READ);
    CHECK_OK(dgr_deliver(r, 71, 1)); /* a duplicate now */
    CHECK_EQ(fix.ee1->stats.dup_frames, 1);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_ACCESS);
    CHECK_OK(dgr_deliver(r, 71, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 63);
    CHECK_EQ(c[0].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_ERROR);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);

    /* INVALID: a Read larger than the responder QP's max_dgram (64) */
    r = rig(&fix.rstag, &fix.rbuf);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    fix.src = dgr_alloc(&r->n[0], 128);
    CHECK_OK(rdma(r, 0, 0, 64, OFL_QP_OP_READ, fix.src, 65, 8, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(rdma(r, 0, 0, 65, OFL_QP_OP_READ, fix.src, 64, 8, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 2);
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_DG_TOO_LONG);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_READ); /* the second request is next */
    CHECK_OK(dgr_deliver(r, 0, 1));   /* in sequence: served */
    dgr_pump(r, 1);
    /* the QP failed: its second Read is flushed (its response, served
     * by the responder, finds no Read waiting: consumed, acknowledged) */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 64);
    CHECK_EQ(c[0].status, OFL_WC_REM_INV_REQ_ERR);
    CHECK_EQ(c[1].wr_id, 65);
    CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(ofl_ee_outstanding(&r->n[0].ee[0]), 0);
    CHECK_EQ(ofl_ee_outstanding(&r->n[1].ee[0]), 0);
    /* a responder whose slots cannot hold a response header at all (a
     * slot of 30 bytes: test only, set in place) refuses even 0 bytes */
    r->n[1].ee[0].attr.slot_size = 30;
    CHECK_OK(rdma(r, 0, 1, 66, OFL_QP_OP_READ, NULL, 0, 7, fix.rstag, 0));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 3, 8));
    CHECK_ERR(dgr_deliver(r, 3, 1), OFL_E_QP_DG_TOO_LONG);
    r->n[1].ee[0].attr.slot_size = DGR_SLOT;
    CHECK_OK(dgr_deliver(r, 3, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 66);
    CHECK_EQ(c[0].status, OFL_WC_REM_INV_REQ_ERR);
    dgr_free(r);
}

/* Sequence NAK: a lost frame is resent at once when the next one
 * arrives (one NAK per gap), instead of at the timeout. */
static void test_seq_nak(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    struct ofl_dg_hdr h;
    int k;

    if (r == NULL)
        return;
    naks(r, true, 0);
    dgr_post_recvs(r, 1, 0, 8);
    for (k = 0; k < 3; k++)
        CHECK_OK(
            dgr_send(r, 0, 0, 70u + (unsigned)k, fix.src, 4, 0, 0, 7, SIG));
    r->wire.drop = 1; /* the first is lost */
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 2);
    CHECK_ERR(dgr_deliver(r, 1, 1), OFL_E_QP_EE_SEQ);
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    CHECK_ERR(dgr_deliver(r, 1, 1), OFL_E_QP_EE_SEQ); /* same gap: quiet */
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    CHECK_EQ(r->wire.n, 1);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_SEQ);
    CHECK_EQ(h.sn, fix.ee1->rcv_nxt);
    CHECK_EQ(h.nak_err, 0);
    CHECK_OK(dgr_deliver(r, 2, 1));
    CHECK_EQ(r->wire.n, 3); /* resent at once, all three */
    CHECK_EQ(fix.ee0->stats.rtx_frames, 3);
    CHECK_EQ(fix.ee0->retries, 1);
    dgr_pump(r, 3);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 3);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 3);
    CHECK_EQ(c[0].wr_id, 70);
    CHECK_EQ(c[2].wr_id, 72);
    CHECK_EQ(fix.ee0->retries, 0);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    CHECK_EQ(fix.ee1->nak_sent, 0);

    /* NAKs off at the receiver: the same loss waits for the timeout */
    naks(r, false, 0);
    CHECK_OK(dgr_send(r, 0, 0, 75, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 76, fix.src, 4, 0, 0, 7, SIG));
    r->wire.drop = 1;
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 10, 8));
    CHECK_ERR(dgr_deliver(r, 10, 0), OFL_E_QP_EE_SEQ);
    CHECK_EQ(r->wire.n, 0);
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    CHECK_OK(ofl_ee_tick(fix.ee0, 10 + DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 2);
    dgr_pump(r, 21);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);

    /* a sequence NAK counts as a round: retry_limit of them in a row
     * without progress fail the EE as the timeout would */
    naks(r, true, 0);
    CHECK_OK(dgr_send(r, 0, 0, 77, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 30, 8));
    dgr_drop_all(r);
    h = ctl(OFL_DG_NAK, fix.ee0->snd_una, OFL_DG_NAK_EXT);
    h.nak = OFL_DG_NAK_SEQ;
    for (k = 0; k < DGR_RETRY; k++) {
        CHECK_OK(inject(r, 0, &h, NULL, 0, 31));
        CHECK_EQ(r->wire.n, 1);
        dgr_drop_all(r);
    }
    CHECK_ERR(inject(r, 0, &h, NULL, 0, 31), OFL_E_QP_EE_RETRY);
    CHECK_EQ(fix.ee0->state, OFL_EE_ERROR);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 77);
    CHECK_EQ(c[0].status, OFL_WC_RETRY_EXC_ERR);
    dgr_free(r);
}

/* RNR NAK: no receive WQE; the sender waits rnr_delay (not the timeout,
 * not at once) and resends; retry_limit rounds bound it, the frame's WQE
 * then completes RNR_RETRY_EXC_ERR. */
static void test_rnr_nak(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    struct ofl_dg_hdr h;
    int k;

    if (r == NULL)
        return;
    naks(r, true, 4);
    CHECK_OK(dgr_send(r, 0, 0, 80, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 81, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 2);
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_RQ_EMPTY);
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    /* the second, behind the refused one: out of sequence, no SEQ NAK */
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_EE_SEQ);
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_RNR);
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(fix.ee0->rnr_wait, 1);
    CHECK_EQ(r->wire.n, 0); /* nothing at once */
    CHECK_OK(ofl_ee_tick(fix.ee0, 3));
    CHECK_EQ(r->wire.n, 0);
    dgr_post_recvs(r, 1, 0, 2);
    CHECK_OK(ofl_ee_tick(fix.ee0, 4)); /* rnr_delay, not the timeout (10) */
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(fix.ee0->rnr_wait, 0);
    dgr_pump(r, 5);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 8), 2);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 80);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);

    /* rnr_delay 0: the timeout */
    naks(r, true, 0);
    CHECK_OK(dgr_send(r, 0, 0, 82, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 100, 8));
    CHECK_ERR(dgr_deliver(r, 100, 1), OFL_E_QP_RQ_EMPTY);
    CHECK_OK(dgr_deliver(r, 100, 1));
    CHECK_OK(ofl_ee_tick(fix.ee0, 100 + DGR_TIMEOUT - 1));
    CHECK_EQ(r->wire.n, 0);
    /* the bound: every resend meets the same RNR NAK; after retry_limit
     * rounds the EE fails and the WQE says receiver-not-ready */
    for (k = 0; k < DGR_RETRY; k++) {
        uint64_t t = 100 + (uint64_t)(k + 1) * DGR_TIMEOUT;

        CHECK_OK(ofl_ee_tick(fix.ee0, t));
        CHECK_EQ(r->wire.n, 1);
        CHECK_ERR(dgr_deliver(r, t, 1), OFL_E_QP_RQ_EMPTY);
        CHECK_OK(dgr_deliver(r, t, 1));
        CHECK_EQ(fix.ee0->rnr_wait, 1);
    }
    CHECK_ERR(ofl_ee_tick(fix.ee0, 100 + (DGR_RETRY + 1) * DGR_TIMEOUT),
              OFL_E_QP_EE_RETRY);
    CHECK_EQ(fix.ee0->state, OFL_EE_ERROR);
    CHECK_EQ(fix.ee1->stats.naks_tx, 2 + DGR_RETRY);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 82);
    CHECK_EQ(c[0].status, OFL_WC_RNR_RETRY_EXC_ERR);
    dgr_free(r);

    /* a Read request that finds the responder's window full: refused,
     * RNR NAK, served after the delay */
    r = rig(&fix.rstag, &fix.rbuf);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    naks(r, true, 2);
    fix.ee0 = &r->n[0].ee[0];
    fix.ee1 = &r->n[1].ee[0];
    fix.src = dgr_alloc(&r->n[0], 64);
    fix.ee1->snd_nxt = fix.ee1->snd_una + DGR_WIN; /* window full (test only) */
    CHECK_OK(rdma(r, 0, 0, 83, OFL_QP_OP_READ, fix.src, 4, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_EE_FULL);
    CHECK_EQ(head(r).nak, OFL_DG_NAK_RNR);
    CHECK_OK(dgr_deliver(r, 0, 1));
    fix.ee1->snd_nxt = fix.ee1->snd_una; /* room again */
    fix.ee1->rtx_next = fix.ee1->snd_una;
    CHECK_OK(ofl_ee_tick(fix.ee0, 2));
    dgr_pump(r, 3);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 83);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    dgr_free(r);
}

/* A lost ACCESS NAK (offload.h "Lost refusals"): a Write refused, its NAK
 * lost, and a later frame's acknowledgement reaches the sender first. The
 * refused WQE completes REM_ACCESS_ERR (before the refusal block the
 * cumulative acknowledgement completed it SUCCESS), its QP goes to ERROR,
 * the later frame (another QP) completes SUCCESS, nothing is resent. */
static void test_lost_nak(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];

    if (r == NULL)
        return;
    memcpy(fix.src, "denied!!", 8);
    /* past the region's end: refused; then an allowed Write, other QP */
    CHECK_OK(rdma(r, 0, 0, 101, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 4092));
    CHECK_OK(rdma(r, 0, 1, 102, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_EQ(r->wire.n, 2);
    r->wire.drop = 1;                     /* the ACCESS NAK is lost */
    CHECK(dgr_deliver(r, 0, 1) != OFL_OK); /* refused, consumed */
    CHECK_EQ(fix.ee1->stats.naks_tx, 1);
    CHECK_EQ(r->wire.n, 1);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* delivered: its ACK goes out */
    CHECK(memcmp(fix.rbuf, "denied!!", 8) == 0);
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    CHECK_OK(dgr_deliver(r, 1, 1)); /* the ACK, first news of the refusal */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 101);
    CHECK_EQ(c[0].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(c[1].wr_id, 102);
    CHECK_EQ(c[1].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_RTS);
    CHECK_EQ(fix.ee0->state, OFL_EE_RTS);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    CHECK_OK(ofl_ee_tick(fix.ee0, 1 + 4 * DGR_TIMEOUT)); /* nothing resent */
    CHECK_EQ(r->wire.n, 0);
    CHECK_EQ(fix.ee0->stats.rtx_frames, 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* Two refusals whose NAKs are both lost, after a delivered frame whose
 * ACK is lost too: the next ACK names only the newest refusal, so the
 * sender cannot settle anything and releases nothing; the timeout round
 * resends the frames, each refused one is NAKed again naming the refusal
 * before it, and every WQE completes with what became of its frame. A
 * third Read refused INVALID, NAK lost, is named by the next NAK. */
static void test_lost_naks_round(void)
{
    uint32_t rstag = 0;
    uint8_t *rbuf = NULL, *src, *sink;
    struct dgr_rig *r = rig(&rstag, &rbuf);
    struct dgr_qp_opts o;
    struct ofl_ee *ee0, *ee1;
    struct ofl_cqe c[8];
    uint32_t una;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    ee0 = &r->n[0].ee[0];
    ee1 = &r->n[1].ee[0];
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.qpn = 3;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 2);
    src = dgr_alloc(&r->n[0], 64);
    sink = dgr_alloc(&r->n[0], 64);
    memcpy(src, "frames!!", 8);
    /* n: delivered (QP 3), n + 1: refused (QP 1), n + 2: refused (QP 2,
     * a Read with a key without remote rights), n + 3: delivered (QP 3) */
    CHECK_OK(rdma(r, 0, 2, 110, OFL_QP_OP_WRITE, src, 8, 7, rstag,
                  (uint64_t)(uintptr_t)rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[2].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 0, 111, OFL_QP_OP_WRITE, src, 8, 7, rstag,
                  (uint64_t)(uintptr_t)rbuf + 4092));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 1, 112, OFL_QP_OP_READ, sink, 8, 7, r->n[1].stag,
                  (uint64_t)(uintptr_t)r->n[1].mem));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 2, 113, OFL_QP_OP_WRITE, src, 8, 7, rstag,
                  (uint64_t)(uintptr_t)rbuf + 8));
    CHECK_OK(ofl_qp_process(&r->n[0].q[2].qp, 0, 8));
    CHECK_EQ(r->wire.n, 4);
    una = ee0->snd_una;
    r->wire.drop = 3; /* the ACK of n and both NAKs are lost */
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK(dgr_deliver(r, 0, 1) != OFL_OK);
    CHECK(dgr_deliver(r, 0, 1) != OFL_OK);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* n + 3: its ACK reaches the sender */
    CHECK_EQ(r->wire.n, 1);
    CHECK_OK(dgr_deliver(r, 1, 1));
    /* not settled: nothing released, nothing completes */
    CHECK_EQ(ofl_ee_outstanding(ee0), 4);
    CHECK_EQ(ee0->snd_una, una);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    /* the timeout round: n ACKed, n + 1 and n + 2 NAKed again, n + 3 ACKed */
    CHECK_OK(ofl_ee_tick(ee0, DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 4);
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 4));
    CHECK_EQ(ee1->stats.dup_frames, 4);
    CHECK_EQ(r->wire.n, 4);
    dgr_pump(r, DGR_TIMEOUT);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 4);
    CHECK_EQ(c[0].wr_id, 110);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[1].wr_id, 111);
    CHECK_EQ(c[1].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(c[2].wr_id, 112);
    CHECK_EQ(c[2].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(c[3].wr_id, 113);
    CHECK_EQ(c[3].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[2].qp.state, OFL_QP_RTS);
    CHECK_EQ(r->n[0].q[1].qp.ord_count, 0);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(ee0->retries, 0);

    /* a Read too long for QP 8 (INVALID), its NAK lost, then a refused
     * Write whose NAK names it: both complete in error at that NAK */
    CHECK_OK(rdma(r, 0, 2, 114, OFL_QP_OP_READ, sink, 65, 8, rstag,
                  (uint64_t)(uintptr_t)rbuf));
    CHECK_OK(rdma(r, 0, 2, 115, OFL_QP_OP_WRITE, src, 8, 7, rstag,
                  (uint64_t)(uintptr_t)rbuf + 4092));
    CHECK_OK(ofl_qp_process(&r->n[0].q[2].qp, 20, 8));
    CHECK_EQ(r->wire.n, 2);
    r->wire.drop = 1;
    CHECK_ERR(dgr_deliver(r, 20, 1), OFL_E_QP_DG_TOO_LONG);
    CHECK(dgr_deliver(r, 20, 1) != OFL_OK);
    CHECK_EQ(r->wire.n, 1);
    CHECK_OK(dgr_deliver(r, 20, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 114);
    CHECK_EQ(c[0].status, OFL_WC_REM_INV_REQ_ERR);
    CHECK_EQ(c[1].wr_id, 115);
    CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR); /* its QP failed first */
    CHECK_EQ(r->n[0].q[2].qp.state, OFL_QP_ERROR);
    CHECK_EQ(ofl_ee_outstanding(ee0), 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* The refusal block's rules (offload.h "Refusal block"): each check trips
 * once and passes once, parse and build agree, the bytes are big-endian
 * at their offsets. */
static void test_ref_rules(void)
{
    static uint8_t f[64];
    const size_t na = OFL_DG_HDR_LEN + OFL_DG_REF_EXT;
    const size_t nn = OFL_DG_HDR_LEN + OFL_DG_NAK_EXT + OFL_DG_REF_EXT;
    const uint8_t at = OFL_DG_HDR_LEN + OFL_DG_NAK_EXT; /* NAK's block */
    struct ofl_dg_hdr h, g;

    h = ctl(OFL_DG_ACK, 1000, OFL_DG_REF_EXT);
    h.ref_code = OFL_DG_NAK_ACCESS;
    h.ref_err = OFL_E_TPT_BOUNDS;
    h.ref_sn = 998;
    CHECK_ERR(ofl_dg_build(&h, f, na - 1), OFL_E_SIZE);
    CHECK_OK(ofl_dg_build(&h, f, na));
    CHECK_EQ(f[OFL_DG_HDR_LEN - 3], OFL_DG_REF_EXT);
    CHECK_EQ(f[28], OFL_DG_NAK_ACCESS);
    CHECK_EQ(f[29], 0);
    CHECK_EQ(ofl_load_be16(f + 30), OFL_E_TPT_BOUNDS);
    CHECK_EQ(ofl_load_be32(f + 32), 998);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    CHECK_EQ(g.len, OFL_DG_REF_EXT);
    CHECK_EQ(g.ref_code, OFL_DG_NAK_ACCESS);
    CHECK_EQ(g.ref_err, OFL_E_TPT_BOUNDS);
    CHECK_EQ(g.ref_sn, 998);
    /* an ACK's length: 0 or 8 (what the frame holds) */
    f[OFL_DG_HDR_LEN - 3] = 4;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN + 4, &g), OFL_E_QP_DG_RESERVED);
    f[OFL_DG_HDR_LEN - 3] = OFL_DG_REF_EXT;
    CHECK_ERR(ofl_dg_parse(f, na - 1, &g), OFL_E_QP_DG_LENGTH);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    /* the block's reserved byte */
    f[29] = 1;
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_DG_RESERVED);
    f[29] = 0;
    /* codes: ACCESS and INVALID, or none without a detail */
    f[28] = OFL_DG_NAK_SEQ;
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    f[28] = OFL_DG_NAK_RNR;
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    f[28] = OFL_DG_NAK_INVALID + 1;
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    f[28] = 0; /* a detail without a code */
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    ofl_store_be16(f + 30, 0);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    CHECK_EQ(g.ref_code, 0);
    f[28] = OFL_DG_NAK_INVALID;
    CHECK_OK(ofl_dg_parse(f, na, &g));
    CHECK_EQ(g.ref_code, OFL_DG_NAK_INVALID);
    /* the refused frame: at most 2^15 before the ACK's, not after it */
    ofl_store_be32(f + 32, 1001);
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    ofl_store_be32(f + 32, 1000);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    ofl_store_be32(f + 32, 1000u - OFL_DG_REF_RUN - 1u);
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);
    ofl_store_be32(f + 32, 1000u - OFL_DG_REF_RUN);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    /* across 2^32 */
    ofl_store_be32(f + 20, 3);
    ofl_store_be32(f + 32, 0xFFFFFFF0u);
    CHECK_OK(ofl_dg_parse(f, na, &g));
    ofl_store_be32(f + 32, 4);
    CHECK_ERR(ofl_dg_parse(f, na, &g), OFL_E_QP_EE_REFUSAL);

    /* a NAK's block follows its 4 bytes; it covers up to sn - 1 */
    h.kind = OFL_DG_NAK;
    h.len = OFL_DG_NAK_EXT + OFL_DG_REF_EXT;
    h.nak = OFL_DG_NAK_SEQ;
    h.ref_sn = 999;
    CHECK_ERR(ofl_dg_build(&h, f, nn - 1), OFL_E_SIZE);
    CHECK_OK(ofl_dg_build(&h, f, nn));
    CHECK_EQ(f[28], OFL_DG_NAK_SEQ);
    CHECK_EQ(f[at], OFL_DG_NAK_ACCESS);
    CHECK_EQ(ofl_load_be32(f + at + 4), 999);
    CHECK_OK(ofl_dg_parse(f, nn, &g));
    CHECK_EQ(g.nak, OFL_DG_NAK_SEQ);
    CHECK_EQ(g.ref_sn, 999);
    ofl_store_be32(f + at + 4, 1000); /* its own frame: after sn - 1 */
    CHECK_ERR(ofl_dg_parse(f, nn, &g), OFL_E_QP_EE_REFUSAL);
    ofl_store_be32(f + at + 4, 999u - OFL_DG_REF_RUN - 1u);
    CHECK_ERR(ofl_dg_parse(f, nn, &g), OFL_E_QP_EE_REFUSAL);
    ofl_store_be32(f + at + 4, 999u - OFL_DG_REF_RUN);
    CHECK_OK(ofl_dg_parse(f, nn, &g));
    f[at + 1] = 1;
    CHECK_ERR(ofl_dg_parse(f, nn, &g), OFL_E_QP_DG_RESERVED);
    f[at + 1] = 0;
    f[at] = OFL_DG_NAK_SEQ;
    CHECK_ERR(ofl_dg_parse(f, nn, &g), OFL_E_QP_EE_REFUSAL);
    f[at] = OFL_DG_NAK_ACCESS;
    CHECK_OK(ofl_dg_parse(f, nn, &g));
    /* a NAK's length: 4 or 12 */
    f[OFL_DG_HDR_LEN - 3] = OFL_DG_REF_EXT;
    CHECK_ERR(ofl_dg_parse(f, OFL_DG_HDR_LEN + 8, &g), OFL_E_QP_DG_LENGTH);
    f[OFL_DG_HDR_LEN - 3] = OFL_DG_NAK_EXT;
    CHECK_OK(ofl_dg_parse(f, OFL_DG_HDR_LEN + 4, &g));
    CHECK_EQ(g.ref_code, 0); /* no block */
    CHECK_EQ(g.ref_sn, 0);

    /* builder: block fields without the block, or on another kind */
    h.len = OFL_DG_NAK_EXT;
    CHECK_ERR(ofl_dg_build(&h, f, sizeof(f)), OFL_E_ARG);
    h.ref_code = 0;
    h.ref_err = 0;
    CHECK_ERR(ofl_dg_build(&h, f, sizeof(f)), OFL_E_ARG); /* ref_sn */
    h.ref_sn = 0;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    h.ref_reserved = 1;
    h.len = OFL_DG_NAK_EXT + OFL_DG_REF_EXT;
    h.ref_sn = 999;
    CHECK_ERR(ofl_dg_build(&h, f, sizeof(f)), OFL_E_ARG);
    h.ref_reserved = 0;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    memset(&g, 0, sizeof(g));
    g.kind = OFL_DG_RD;
    g.dst_addr = A1;
    g.src_addr = A0;
    g.ref_sn = 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.ref_sn = 0;
    CHECK_OK(ofl_dg_build(&g, f, sizeof(f)));
}

/* Builds h (no payload) and gives it to node ni. */
static enum ofl_err input_hdr(struct dgr_rig *r, int ni,
                              const struct ofl_dg_hdr *h, uint64_t now)
{
    static uint8_t f[64];

    if (ofl_dg_build(h, f, sizeof(f)) != OFL_OK)
        return OFL_E_ARG;
    return ofl_qp_dgram_input(&r->n[ni].node, f,
                              OFL_DG_HDR_LEN + (size_t)h->len, now);
}

/* A NAK or block refusing an outstanding frame that could not be refused
 * so (a Send; INVALID of a Write): OFL_E_QP_EE_REFUSAL, the EE and the
 * QPs unchanged. Refusals that fit (ACCESS of a Write, INVALID of a Read,
 * a refusal of a frame no longer outstanding) are acted on. */
static void test_ref_contradiction(void)
{
    struct fx fix;
    uint8_t *sink;
    struct dgr_rig *r = fx_open(&fix);
    static struct ofl_ee snap;
    struct ofl_dg_hdr h;
    struct ofl_cqe c[8];
    uint32_t una;

    if (r == NULL)
        return;
    sink = dgr_alloc(&r->n[0], 64);
    /* una: a Send (QP 1), una + 1: a Write (QP 2), una + 2: a Read (QP 1) */
    CHECK_OK(dgr_send(r, 0, 0, 120, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 1, 121, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 0, 122, OFL_QP_OP_READ, sink, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 3);
    dgr_drop_all(r);
    una = fix.ee0->snd_una;
    memcpy(&snap, fix.ee0, sizeof(snap));
#define REFUSED(hp)                                                     \
    do {                                                                \
        CHECK_ERR(input_hdr(r, 0, (hp), 1), OFL_E_QP_EE_REFUSAL);       \
        CHECK(memcmp(&snap, fix.ee0, sizeof(snap)) == 0);               \
        CHECK_EQ(r->wire.n, 0);                                         \
        CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);                    \
        CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_RTS);                    \
        CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_RTS);                    \
    } while (0)
    h = ctl(OFL_DG_ACK, 0, OFL_DG_REF_EXT);
    /* an ACK whose block refuses the Send */
    h.sn = una;
    h.ref_sn = una;
    h.ref_code = OFL_DG_NAK_ACCESS;
    REFUSED(&h);
    h.sn = una + 2u;
    REFUSED(&h); /* the same, the ACK covering more */
    /* INVALID of the Write */
    h.ref_sn = una + 1u;
    h.ref_code = OFL_DG_NAK_INVALID;
    REFUSED(&h);
    /* NAKs: ACCESS of the Send, INVALID of the Write, and a NAK whose
     * block refuses the Send */
    h = ctl(OFL_DG_NAK, una, OFL_DG_NAK_EXT);
    h.nak = OFL_DG_NAK_ACCESS;
    REFUSED(&h);
    h.sn = una + 1u;
    h.nak = OFL_DG_NAK_INVALID;
    REFUSED(&h);
    h.sn = una + 2u;
    h.nak = OFL_DG_NAK_SEQ;
    h.len = OFL_DG_NAK_EXT + OFL_DG_REF_EXT;
    h.ref_sn = una;
    h.ref_code = OFL_DG_NAK_ACCESS;
    REFUSED(&h);
#undef REFUSED
    /* passes: ACCESS NAK of the Write, its block refusing a frame before
     * the window (not outstanding: not checked) and vouching for the Send */
    h.sn = una + 1u;
    h.nak = OFL_DG_NAK_ACCESS;
    h.nak_err = OFL_E_TPT_BOUNDS;
    h.ref_sn = una - 1u;
    CHECK_OK(input_hdr(r, 0, &h, 2));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 120);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[1].wr_id, 121);
    CHECK_EQ(c[1].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_RTS);
    /* passes: an ACK of the Read whose block says it was refused INVALID
     * (refused == the ACK's own frame) */
    h = ctl(OFL_DG_ACK, una + 2u, OFL_DG_REF_EXT);
    h.ref_sn = una + 2u;
    h.ref_code = OFL_DG_NAK_INVALID;
    h.ref_err = OFL_E_QP_DG_TOO_LONG;
    CHECK_OK(input_hdr(r, 0, &h, 3));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 122);
    CHECK_EQ(c[0].status, OFL_WC_REM_INV_REQ_ERR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 0);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    dgr_free(r);
}

/* The wire of the lost-NAK case: the ACK that follows a refusal names it
 * (code, detail, sequence number), as does the next NAK; an ACK when
 * nothing was refused has no block (the old bytes); a duplicate of the
 * refused frame gets its NAK again; the block goes away once the refusal
 * is 2^15 frames back. */
static void test_ref_wire(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    static struct dgr_frame dup;
    struct ofl_dg_hdr h;
    struct ofl_cqe c[8];
    enum ofl_err err;
    uint32_t n;

    if (r == NULL)
        return;
    /* nothing refused yet: an ACK without a block */
    CHECK_OK(rdma(r, 0, 1, 130, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_OK(dgr_deliver(r, 0, 1));
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_ACK);
    CHECK_EQ(h.len, 0);
    CHECK_EQ(r->wire.f[r->wire.head].len, OFL_DG_HDR_LEN);
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    /* n refused (NAK without a block: no refusal before), lost */
    n = fix.ee0->snd_nxt;
    CHECK_OK(rdma(r, 0, 0, 131, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 4092));
    CHECK_OK(rdma(r, 0, 1, 132, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf + 4092));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 1, 8));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 1, 8));
    dup = r->wire.f[r->wire.head];
    err = dgr_deliver(r, 1, 1);
    CHECK(err != OFL_OK);
    CHECK_EQ(fix.ee1->nak_sn, n);
    CHECK_EQ(fix.ee1->attr.slot[n & (DGR_WIN - 1u)].rx_code, OFL_DG_NAK_ACCESS);
    CHECK_EQ(fix.ee1->attr.slot[n & (DGR_WIN - 1u)].rx_gap, 0);
    /* the wire: [n + 1, NAK n] */
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(head(r).kind, OFL_DG_RD_WRITE);
    {
        struct ofl_dg_hdr k;
        const struct dgr_frame *f =
            &r->wire.f[(r->wire.head + 1) % DGR_FRAMES];

        CHECK_OK(ofl_dg_parse(f->data, f->len, &k));
        CHECK_EQ(k.kind, OFL_DG_NAK);
        CHECK_EQ(k.len, OFL_DG_NAK_EXT); /* nothing refused before n */
        CHECK_EQ(k.sn, n);
        r->wire.f[(r->wire.head + 1) % DGR_FRAMES].len = 0; /* lost */
    }
    /* n + 1, refused too: its NAK names n */
    CHECK(dgr_deliver(r, 1, 1) != OFL_OK);
    CHECK_EQ(r->wire.n, 2);
    CHECK_OK(dgr_deliver(r, 1, 1)); /* the lost one (len 0): skipped */
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.sn, n + 1u);
    CHECK_EQ(h.len, OFL_DG_NAK_EXT + OFL_DG_REF_EXT);
    CHECK_EQ(h.ref_sn, n);
    CHECK_EQ(h.ref_code, OFL_DG_NAK_ACCESS);
    CHECK_EQ(h.ref_err, (uint16_t)err);
    CHECK_EQ(fix.ee1->attr.slot[(n + 1u) & (DGR_WIN - 1u)].rx_gap, 1);
    CHECK_OK(dgr_deliver(r, 1, 1)); /* both settled by it */
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 131);
    CHECK_EQ(c[0].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(c[1].wr_id, 132);
    CHECK_EQ(c[1].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    /* the duplicate of n: its NAK again (no refusal before it: no block);
     * the sender, past it, ignores it */
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, dup.data, dup.len, 2));
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_ACCESS);
    CHECK_EQ(h.sn, n);
    CHECK_EQ(h.len, OFL_DG_NAK_EXT);
    CHECK_OK(dgr_deliver(r, 2, 1));
    /* an ACK now names n + 1 (pending: test only, set in place) */
    dgr_drop_all(r);
    fix.ee1->ack_pending = 1;
    CHECK_OK(ofl_ee_tick(fix.ee1, 3));
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_ACK);
    CHECK_EQ(h.sn, n + 1u);
    CHECK_EQ(h.len, OFL_DG_REF_EXT);
    CHECK_EQ(h.ref_sn, n + 1u); /* the ACK's own frame, refused */
    CHECK_EQ(h.ref_code, OFL_DG_NAK_ACCESS);
    dgr_drop_all(r);
    /* 2^15 frames on (test only: moved in place), the block goes */
    fix.ee1->rcv_nxt = n + 1u + OFL_DG_REF_RUN;
    fix.ee1->ack_pending = 1;
    CHECK_OK(ofl_ee_tick(fix.ee1, 4));
    h = head(r);
    CHECK_EQ(h.len, OFL_DG_REF_EXT);
    CHECK_EQ(h.ref_sn, n + 1u);
    dgr_drop_all(r);
    fix.ee1->rcv_nxt++;
    fix.ee1->ack_pending = 1;
    CHECK_OK(ofl_ee_tick(fix.ee1, 5));
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_ACK);
    CHECK_EQ(h.len, 0);
    dgr_free(r);
}

/* NAKs whose block leaves the frames before them not known (their
 * refused frame is snd_una, without a code): nothing released; RNR and
 * ACCESS are not acted on (EE unchanged), SEQ still starts its round from
 * snd_una (offload.h "Lost refusals", the sender's third row). */
static void test_ref_unsettled(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    static struct ofl_ee snap;
    struct ofl_dg_hdr h;
    struct ofl_cqe c[8];
    uint32_t una;

    if (r == NULL)
        return;
    CHECK_OK(rdma(r, 0, 0, 140, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_OK(rdma(r, 0, 1, 141, OFL_QP_OP_WRITE, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    dgr_drop_all(r);
    una = fix.ee0->snd_una;
    memcpy(&snap, fix.ee0, sizeof(snap));
    h = ctl(OFL_DG_NAK, una + 1u, OFL_DG_NAK_EXT + OFL_DG_REF_EXT);
    h.ref_sn = una; /* vouches for nothing before una + 1 */
    h.nak = OFL_DG_NAK_RNR;
    CHECK_OK(input_hdr(r, 0, &h, 1));
    CHECK(memcmp(&snap, fix.ee0, sizeof(snap)) == 0);
    h.nak = OFL_DG_NAK_ACCESS;
    CHECK_OK(input_hdr(r, 0, &h, 1));
    CHECK(memcmp(&snap, fix.ee0, sizeof(snap)) == 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_RTS);
    CHECK_EQ(r->wire.n, 0);
    h.nak = OFL_DG_NAK_SEQ;
    CHECK_OK(input_hdr(r, 0, &h, 1));
    CHECK_EQ(fix.ee0->snd_una, una);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 2);
    CHECK_EQ(fix.ee0->retries, 1);
    CHECK_EQ(fix.ee0->stats.naks_rx, 1);
    CHECK_EQ(r->wire.n, 2); /* resent from snd_una */
    CHECK_EQ(head(r).sn, una);
    /* the same NAK vouching for una (no block): acted on at once */
    dgr_drop_all(r);
    h.nak = OFL_DG_NAK_ACCESS;
    h.nak_err = OFL_E_TPT_BOUNDS;
    h.len = OFL_DG_NAK_EXT;
    h.ref_sn = 0;
    CHECK_OK(input_hdr(r, 0, &h, 2));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 140);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[1].wr_id, 141);
    CHECK_EQ(c[1].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    dgr_free(r);
}

/* The rule under random loss: Writes from three QPs, some refused (past
 * the region's end), over a wire that loses frames (data, ACKs and NAKs
 * alike) at random, with sequence NAKs on or off; until every WQE has
 * completed. No refused Write completes SUCCESS, no allowed one completes
 * with a remote error (offload.h "Lost refusals", Rule). Deterministic:
 * seeds 1 .. 150 of a xorshift. */
static uint32_t xs(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void test_ref_random_loss(void)
{
    uint32_t seed, bad_total = 0, settled_err = 0;

    for (seed = 1; seed <= 150; seed++) {
        uint32_t rstag = 0, x = seed * 2654435761u, done = 0, posted = 0;
        uint8_t *rbuf = NULL, *src;
        struct dgr_rig *r = rig(&rstag, &rbuf);
        static uint8_t bad[3 * 5];
        struct dgr_qp_opts o;
        struct ofl_cqe c[16];
        uint64_t now = 0;
        int q, k, step;

        CHECK(r != NULL);
        if (r == NULL)
            return;
        memset(&o, 0, sizeof(o));
        o.service = OFL_QP_SVC_RD;
        o.acked = 1;
        o.qpn = 3;
        CHECK(dgr_qp_add(r, 0, &o, NULL) == 2);
        naks(r, (xs(&x) & 1u) != 0, 2);
        src = dgr_alloc(&r->n[0], 64);
        for (k = 0; k < 5; k++)
            for (q = 0; q < 3; q++) {
                const uint32_t id = (uint32_t)(q * 5 + k);

                bad[id] = (uint8_t)(xs(&x) % 3u == 0);
                bad_total += bad[id];
                CHECK_OK(rdma(r, 0, q, 1000u + id, OFL_QP_OP_WRITE, src, 8,
                              7, rstag,
                              (uint64_t)(uintptr_t)rbuf +
                                  (bad[id] ? 4092u : 8u * id)));
                posted++;
            }
        for (step = 0; step < 3000 && done < posted; step++) {
            const uint32_t v = xs(&x) % 100u;

            if (v < 20) {
                for (q = 0; q < 3; q++)
                    (void)ofl_qp_process(&r->n[0].q[q].qp, now, 1);
            } else if (v < 70 && r->wire.n != 0) {
                (void)dgr_deliver(r, now, 1);
            } else if (v < 82 && r->wire.n != 0) {
                r->wire.head = (r->wire.head + 1) % DGR_FRAMES; /* lost */
                r->wire.n--;
            } else {
                now += 1u + xs(&x) % DGR_TIMEOUT;
                (void)dgr_tick(r, now);
            }
            for (;;) {
                const uint32_t got = dgr_poll(&r->n[0], true, c, 16);
                uint32_t i;

                for (i = 0; i < got; i++) {
                    const uint32_t id = (uint32_t)(c[i].wr_id - 1000u);

                    CHECK(id < posted);
                    if (id >= posted)
                        continue;
                    if (bad[id]) {
                        CHECK(c[i].status != OFL_WC_SUCCESS);
                        settled_err += c[i].status == OFL_WC_REM_ACCESS_ERR;
                    } else {
                        CHECK(c[i].status != OFL_WC_REM_ACCESS_ERR &&
                              c[i].status != OFL_WC_REM_INV_REQ_ERR);
                    }
                    done++;
                }
                if (got == 0)
                    break;
            }
            if (r->n[0].ee[0].state != OFL_EE_RTS)
                break; /* failed by retry_limit: the rest flush */
        }
        /* the rest without loss: every WQE completes */
        for (step = 0; step < 50 && done < posted; step++) {
            uint32_t got, i;

            dgr_pump(r, now);
            now += DGR_TIMEOUT;
            (void)dgr_tick(r, now);
            dgr_pump(r, now);
            while ((got = dgr_poll(&r->n[0], true, c, 16)) != 0)
                for (i = 0; i < got; i++) {
                    const uint32_t id = (uint32_t)(c[i].wr_id - 1000u);

                    CHECK(id < posted);
                    if (id >= posted)
                        continue;
                    if (bad[id])
                        CHECK(c[i].status != OFL_WC_SUCCESS);
                    else
                        CHECK(c[i].status != OFL_WC_REM_ACCESS_ERR);
                    settled_err += bad[id] &&
                                   c[i].status == OFL_WC_REM_ACCESS_ERR;
                    done++;
                }
        }
        CHECK_EQ(done, posted);
        CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
        dgr_free(r);
    }
    /* the runs reached the refusals (most settle as REM_ACCESS_ERR; the
     * others flush behind an earlier refusal of their QP, or the EE
     * failed) */
    CHECK(bad_total > 100);
    CHECK(settled_err > bad_total / 4);
}

/* Hostile NAK and RDMA frames: named errors, nothing changed. NAKs for
 * sequence numbers never sent or long acknowledged; responses nobody
 * asked for. */
static void test_hostile(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    static struct ofl_ee snap;
    static uint8_t f[128];
    struct ofl_dg_hdr h, g;
    struct ofl_cqe c[8];
    uint32_t rcv;

    if (r == NULL)
        return;
    dgr_post_recvs(r, 1, 0, 2);
    CHECK_OK(dgr_send(r, 0, 0, 90, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(dgr_send(r, 0, 0, 91, fix.src, 4, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    dgr_drop_all(r); /* two frames outstanding on fix.ee0 */

    h = ctl(OFL_DG_NAK, fix.ee0->snd_una, OFL_DG_NAK_EXT);
    h.nak = OFL_DG_NAK_SEQ;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_dg_parse(f, OFL_DG_HDR_LEN + 4, &g));
    CHECK_EQ(g.nak, OFL_DG_NAK_SEQ);
    CHECK_EQ(g.sn, h.sn);
    CHECK_ERR(ofl_dg_build(&h, f, OFL_DG_HDR_LEN + 3), OFL_E_SIZE);
    memcpy(&snap, fix.ee0, sizeof(snap));
#define HOSTILE(flen, want)                                             \
    do {                                                                \
        CHECK_ERR(ofl_qp_dgram_input(&r->n[0].node, f, (flen), 5), want); \
        CHECK(memcmp(&snap, fix.ee0, sizeof(snap)) == 0);               \
        CHECK_EQ(r->wire.n, 0);                                         \
    } while (0)
    /* lengths: the extension is 4 bytes exactly */
    f[OFL_DG_HDR_LEN - 3] = 3;
    HOSTILE(OFL_DG_HDR_LEN + 3, OFL_E_QP_DG_LENGTH);
    f[OFL_DG_HDR_LEN - 3] = 5;
    HOSTILE(OFL_DG_HDR_LEN + 5, OFL_E_QP_DG_LENGTH);
    f[OFL_DG_HDR_LEN - 3] = 4;
    HOSTILE(OFL_DG_HDR_LEN + 3, OFL_E_QP_DG_LENGTH); /* field vs frame */
    /* codes */
    f[OFL_DG_HDR_LEN] = 0;
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_NAK);
    f[OFL_DG_HDR_LEN] = OFL_DG_NAK_INVALID + 1;
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_NAK);
    f[OFL_DG_HDR_LEN] = OFL_DG_NAK_SEQ;
    f[OFL_DG_HDR_LEN + 3] = 1; /* a detail on SEQ */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_NAK);
    f[OFL_DG_HDR_LEN] = OFL_DG_NAK_RNR; /* on RNR */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_NAK);
    f[OFL_DG_HDR_LEN + 3] = 0;
    f[OFL_DG_HDR_LEN + 1] = 1; /* reserved byte */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_RESERVED);
    f[OFL_DG_HDR_LEN + 1] = 0;
    f[2] = OFL_DG_F_SE; /* flags */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_RESERVED);
    f[2] = 0;
    f[15] = 1; /* a QP number */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_RESERVED);
    f[15] = 0;
    f[1] = 4; /* the unassigned kind */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_KIND);
    f[1] = OFL_DG_RD_ATOMIC + 1;
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_KIND);
    f[1] = OFL_DG_RD_ATOMIC; /* a kind now, its extension longer */
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_DG_LENGTH);
    f[1] = OFL_DG_NAK;
    /* sequence numbers: never sent (named error), long acknowledged
     * (ignored): both leave the EE alone */
    h.nak = OFL_DG_NAK_RNR;
    h.sn = fix.ee0->snd_nxt;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_ACK);
    h.sn = fix.ee0->snd_nxt + 1000u;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_E_QP_EE_ACK);
    h.sn = fix.ee0->snd_una - 1u;
    h.nak = OFL_DG_NAK_ACCESS;
    h.nak_err = OFL_E_TPT_BOUNDS;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_OK);
    h.sn = fix.ee0->snd_una - 100u;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    HOSTILE(OFL_DG_HDR_LEN + 4, OFL_OK);
    CHECK_EQ(fix.ee0->stats.naks_rx, 0);
    /* the passing NAK for the first outstanding frame: acted on */
    h.sn = fix.ee0->snd_una;
    h.nak = OFL_DG_NAK_SEQ;
    h.nak_err = 0;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, OFL_DG_HDR_LEN + 4, 5));
    CHECK_EQ(fix.ee0->stats.naks_rx, 1);
    CHECK_EQ(r->wire.n, 2);
    /* a NAK for the second frame acknowledges the first */
    dgr_drop_all(r);
    h.sn = fix.ee0->snd_una + 1u;
    CHECK_OK(ofl_dg_build(&h, f, sizeof(f)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[0].node, f, OFL_DG_HDR_LEN + 4, 6));
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 90);
    CHECK_EQ(r->wire.n, 1); /* the second, resent */
    CHECK_EQ(head(r).sn, fix.ee0->snd_una);
    CHECK_EQ(head(r).kind, OFL_DG_RD);

    /* builder: fields a kind leaves unused */
    memset(&g, 0, sizeof(g));
    g.kind = OFL_DG_RD;
    g.dst_addr = A1;
    g.src_addr = A0;
    g.stag = 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.stag = 0;
    g.rlen = 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.rlen = 0;
    g.nak = 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.nak = 0;
    CHECK_OK(ofl_dg_build(&g, f, sizeof(f)));
    g.kind = OFL_DG_RD_WRITE;
    g.len = OFL_DG_WRITE_EXT - 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.kind = OFL_DG_RD_READ;
    g.len = OFL_DG_READ_EXT + 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.kind = OFL_DG_RD_RESP;
    g.len = OFL_DG_RESP_EXT - 1;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.flags = OFL_DG_F_SE;
    g.len = OFL_DG_RESP_EXT;
    CHECK_ERR(ofl_dg_build(&g, f, sizeof(f)), OFL_E_ARG);
    g.flags = 0;
    CHECK_OK(ofl_dg_build(&g, f, sizeof(f)));
    /* a Write whose length field is shorter than its extension */
    memset(&g, 0, sizeof(g));
    g.kind = OFL_DG_RD_WRITE;
    g.dst_addr = A1;
    g.src_addr = A0;
    g.dst_qpn = 7;
    g.sn = fix.ee1->rcv_nxt;
    g.len = OFL_DG_WRITE_EXT;
    g.stag = fix.rstag;
    g.to = (uint64_t)(uintptr_t)fix.rbuf;
    CHECK_OK(ofl_dg_build(&g, f, sizeof(f)));
    f[OFL_DG_HDR_LEN - 3] = OFL_DG_WRITE_EXT - 1;
    rcv = fix.ee1->rcv_nxt;
    CHECK_ERR(ofl_qp_dgram_input(&r->n[1].node, f, OFL_DG_HDR_LEN + 11, 8),
              OFL_E_QP_DG_LENGTH);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv);

    /* responses: unknown request (consumed and acknowledged, nothing
     * completes), wrong length (the Read fails BAD_RESP_ERR) */
    dgr_drop_all(r);
    memset(&g, 0, sizeof(g));
    g.kind = OFL_DG_RD_RESP;
    g.dst_addr = A0;
    g.src_addr = A1;
    g.dst_qpn = 1;
    g.src_qpn = 7;
    g.sn = fix.ee0->rcv_nxt;
    g.len = OFL_DG_RESP_EXT + 4;
    g.rlen = fix.ee0->snd_nxt - 1u; /* a Send, not a Read */
    rcv = fix.ee0->rcv_nxt;
    CHECK_ERR(inject(r, 0, &g, "abcd", 4, 9), OFL_E_QP_UNEXPECTED);
    CHECK_EQ(fix.ee0->rcv_nxt, rcv + 1);
    CHECK_EQ(r->wire.n, 1); /* acknowledged */
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    dgr_drop_all(r);
    g.dst_qpn = 15; /* no QP */
    g.sn = fix.ee0->rcv_nxt;
    CHECK_ERR(inject(r, 0, &g, "abcd", 4, 9), OFL_E_QP_UNEXPECTED);
    dgr_drop_all(r);
    CHECK_OK(rdma(r, 0, 1, 92, OFL_QP_OP_READ, fix.src, 8, 7, fix.rstag,
                  (uint64_t)(uintptr_t)fix.rbuf));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 10, 8));
    dgr_drop_all(r);
    g.dst_qpn = 2;
    g.sn = fix.ee0->rcv_nxt;
    g.rlen = fix.ee0->snd_nxt - 1u; /* the Read's request */
    g.len = OFL_DG_RESP_EXT + 4;
    CHECK_ERR(inject(r, 0, &g, "abcd", 4, 11), OFL_E_QP_RESP_MISMATCH);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 92);
    CHECK_EQ(c[0].status, OFL_WC_BAD_RESP_ERR);
    CHECK_EQ(r->n[0].q[1].qp.ord_count, 0); /* the Read is over */
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 2); /* its request (and 91) unacked */
    /* the request's acknowledgement comes late: it completes nothing
     * more; nor does the EE failing with the request in its window */
    {
        struct ofl_ee_slot *sl =
            &fix.ee0->attr.slot[(fix.ee0->snd_nxt - 1u) & (DGR_WIN - 1u)];

        CHECK(sl->qp == NULL);
    }
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
#undef HOSTILE
    dgr_free(r);
}

/* ---- atomics on RD (offload.h "Atomics on RD") ------------------------ */

/* Posts an RD atomic (op, operands a[0 .. 3]) from QP qi of node 0 to QP
 * 7 of node 1 at rto, its result into res (8 bytes of node 0's region). */
static enum ofl_err atomic(struct dgr_rig *r, int qi, uint64_t wr_id,
                           uint8_t op, uint8_t *res, const struct fx *f,
                           uint64_t rto, const uint64_t a[4])
{
    struct ofl_qp_wr wr;

    dgr_wr_rdma(&wr, wr_id, op, f->rstag, rto, a);
    return dgr_post(r, 0, qi, &wr, res, 8);
}

static uint64_t le64(const uint8_t *p)
{
    return ofl_load_le64(p);
}

/* FetchAdd operands: add 1, add 5 (no masks). */
static const uint64_t ADD1[4] = {1, 0, 0, 0}, ADD5[4] = {5, 0, 0, 0};

/* The result buffer (8 bytes of node 0's region, *res) and the target
 * word (node 1's remote region + 64, holding v) of an atomic test. */
static uint8_t *target(struct dgr_rig *r, const struct fx *f, uint8_t **res,
                       uint64_t v)
{
    *res = dgr_alloc(&r->n[0], 8);
    ofl_store_le64(f->rbuf + 64, v);
    return f->rbuf + 64;
}

/* One send completion, WQE wr_id SUCCESS, its result orig (four checks). */
static void done1(struct dgr_rig *r, uint64_t wr_id, const uint8_t *res,
                  uint64_t orig)
{
    struct ofl_cqe c[8];

    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, wr_id);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(le64(res), orig);
}

/* The responder's replay cache entries in use. */
static uint32_t cached(const struct ofl_ee *ee)
{
    uint32_t i, n = 0;

    for (i = 0; i < ee->attr.atomic_cap; i++)
        n += ee->attr.atomic[i].used;
    return n;
}

/* The end of an atomic test: every cache entry free again, no DMA outside
 * what the core may touch (two checks), the rig freed. */
static void fx_close(struct dgr_rig *r, const struct fx *f)
{
    CHECK_EQ(cached(f->ee1), 0);
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

/* FetchAdd and CompareSwap over RD: the request frame (kind 9, its RFC
 * 7306 fields), the responder's read-modify-write, the response (kind 8,
 * the original value), the result buffer, the cache entry held until the
 * response is acknowledged. */
static void test_atomic_rd(void)
{
    static const uint64_t cas[4] = {7, ~0ull, 105, ~0ull};
    static const uint64_t miss[4] = {9, ~0ull, 1, ~0ull};
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_dg_hdr h;
    struct ofl_cqe c[8];
    uint8_t *res, *t;
    uint64_t to;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    to = (uint64_t)(uintptr_t)t;
    CHECK_OK(atomic(r, 0, 201, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(r->wire.f[r->wire.head].len, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_ATOMIC);
    CHECK_EQ(h.len, OFL_DG_ATOMIC_EXT);
    CHECK_EQ(h.stag, fix.rstag);
    CHECK_EQ(h.to, to);
    CHECK_EQ(h.aop, OFL_RDMAP_FETCH_ADD);
    CHECK_EQ(h.add_swap, 5);
    CHECK_EQ(h.dst_qpn, 7);
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 1);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* executed */
    CHECK_EQ(le64(t), 105);
    CHECK_EQ(cached(fix.ee1), 1);
    CHECK_EQ(fix.ee1->attr.atomic[0].orig, 100);
    CHECK_EQ(fix.ee1->attr.atomic[0].sn, fix.ee0->snd_nxt - 1u);
    CHECK_EQ(fix.ee1->attr.atomic[0].resp_sn, fix.ee1->snd_nxt - 1u);
    CHECK_EQ(r->wire.n, 2); /* its ACK, the response */
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0); /* waits for the value */
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_RESP);
    CHECK_EQ(h.len, OFL_DG_RESP_EXT + OFL_DG_ATOMIC_RESULT);
    CHECK_EQ(h.rlen, fix.ee0->snd_nxt - 1u);
    CHECK_EQ(ofl_load_be64(r->wire.f[r->wire.head].data + OFL_DG_HDR_LEN +
                           OFL_DG_RESP_EXT),
             100);
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 201);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ATOMIC_FADD);
    CHECK_EQ(le64(res), 100);
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 0);
    CHECK_EQ(cached(fix.ee1), 1); /* until the response is acknowledged */
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the requester's ACK of it */
    CHECK_EQ(cached(fix.ee1), 0);
    CHECK_EQ(ofl_ee_outstanding(fix.ee1), 0);
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    /* CompareSwap that matches, then one that does not */
    CHECK_OK(atomic(r, 1, 202, OFL_QP_OP_ATOMIC_CSWAP, res, &fix, to, cas));
    dgr_pump(r, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(le64(res), 105);
    CHECK_EQ(le64(t), 7);
    CHECK_OK(atomic(r, 1, 203, OFL_QP_OP_ATOMIC_CSWAP, res, &fix, to, miss));
    dgr_pump(r, 2);
    done1(r, 203, res, 7);
    CHECK_EQ(le64(t), 7);
    fx_close(r, &fix);
}

/* Exactly once: the ACK and the response lost, the request resent by the
 * requester's timeout is a duplicate: answered from the replay cache (the
 * response again, at once), not executed again. The response alone lost:
 * the responder's timeout resends it. A duplicate after the response was
 * acknowledged: an ACK only. */
static void test_atomic_replay(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    static struct dgr_frame dup;
    struct ofl_cqe c[8];
    uint8_t *res, *t;
    uint64_t to, rtx;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    to = (uint64_t)(uintptr_t)t;
    CHECK_OK(atomic(r, 0, 211, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    dup = r->wire.f[r->wire.head];
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(le64(t), 105);
    CHECK_EQ(r->wire.n, 2);
    dgr_drop_all(r); /* its ACK and its response: lost */
    CHECK_OK(ofl_ee_tick(fix.ee0, DGR_TIMEOUT)); /* the request again */
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_RD_ATOMIC);
    rtx = fix.ee1->stats.rtx_frames;
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 1)); /* a duplicate */
    CHECK_EQ(le64(t), 105); /* not executed again */
    CHECK_EQ(fix.ee1->stats.dup_frames, 1);
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx + 1u);
    CHECK_EQ(r->wire.n, 2); /* the ACK, the response from the cache */
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 1));
    CHECK_EQ(head(r).kind, OFL_DG_RD_RESP);
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 1));
    done1(r, 211, res, 100);
    CHECK_OK(dgr_deliver(r, DGR_TIMEOUT, 0)); /* its ACK frees the entry */
    CHECK_EQ(cached(fix.ee1), 0);
    /* a duplicate now: an ACK, no response, nothing executed */
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, dup.data, dup.len,
                                DGR_TIMEOUT));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    CHECK_EQ(le64(t), 105);
    dgr_drop_all(r);
    /* the response alone lost: the responder's timeout resends it */
    CHECK_OK(atomic(r, 0, 212, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 20, 8));
    CHECK_OK(dgr_deliver(r, 20, 1));
    CHECK_EQ(le64(t), 110);
    CHECK_OK(dgr_deliver(r, 20, 1)); /* the ACK: the request released */
    r->wire.drop = 0;
    dgr_drop_all(r); /* the response */
    CHECK_EQ(ofl_ee_outstanding(fix.ee0), 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 0);
    CHECK_OK(ofl_ee_tick(fix.ee1, 20 + DGR_TIMEOUT));
    CHECK_EQ(head(r).kind, OFL_DG_RD_RESP);
    dgr_pump(r, 20 + DGR_TIMEOUT);
    done1(r, 212, res, 105);
    CHECK_EQ(le64(t), 110);
    fx_close(r, &fix);
}

/* A full replay cache: the request is refused, not executed, not taken
 * (OFL_E_QP_EE_ATOMIC_FULL, an RNR NAK), and asked again once the entry
 * is free; never full again it completes. With no room ever (the
 * responses' acknowledgements all lost) the WQE completes
 * RNR_RETRY_EXC_ERR, never SUCCESS, the target changed once. A cache of
 * none: INVALID NAK (OFL_E_QP_EE_NO_ATOMIC), REM_INV_REQ_ERR. */
static void test_atomic_full(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    struct ofl_dg_hdr h;
    uint8_t *res, *res2, *t, st[2];
    uint64_t to;
    uint32_t rcv;
    int k;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    res2 = dgr_alloc(&r->n[0], 8);
    to = (uint64_t)(uintptr_t)t;
    naks(r, true, 2);
    fix.ee1->attr.atomic_cap = 1; /* test only: one entry, set in place */
    CHECK_OK(atomic(r, 0, 221, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD5));
    CHECK_OK(atomic(r, 0, 222, OFL_QP_OP_ATOMIC_FADD, res2, &fix, to, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 2);
    CHECK_OK(dgr_deliver(r, 0, 1)); /* the first: executed, cached */
    rcv = fix.ee1->rcv_nxt;
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_EE_ATOMIC_FULL);
    CHECK_EQ(le64(t), 105); /* the second not executed */
    CHECK_EQ(fix.ee1->rcv_nxt, rcv); /* not taken */
    CHECK_EQ(r->wire.n, 3); /* ACK, response, RNR NAK */
    CHECK_EQ(r->wire.f[(r->wire.head + 2) % DGR_FRAMES].data[1], OFL_DG_NAK);
    CHECK_EQ(r->wire.f[(r->wire.head + 2) % DGR_FRAMES].data[28],
             OFL_DG_NAK_RNR);
    CHECK_OK(dgr_deliver(r, 0, 0));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1); /* the first's value */
    CHECK_EQ(c[0].wr_id, 221);
    CHECK_EQ(le64(res), 100);
    CHECK_OK(dgr_deliver(r, 0, 0)); /* its ACK: the entry is free */
    CHECK_EQ(cached(fix.ee1), 0);
    CHECK_OK(ofl_ee_tick(fix.ee0, 2)); /* after rnr_delay: asked again */
    dgr_pump(r, 2);
    done1(r, 222, res2, 105);
    CHECK_EQ(le64(t), 110);
    /* no room ever: the response's acknowledgement never gets through */
    CHECK_OK(atomic(r, 0, 223, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD5));
    CHECK_OK(atomic(r, 0, 224, OFL_QP_OP_ATOMIC_FADD, res2, &fix, to, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 10, 8));
    st[0] = st[1] = 0xFF;
    for (k = 0; k < 60 && st[1] == 0xFF; k++) {
        uint32_t i, n = r->wire.n;

        for (i = 0; i < n; i++) {
            const struct dgr_frame *f = &r->wire.f[r->wire.head];

            if (f->from == 0 && f->data[1] == OFL_DG_ACK) {
                r->wire.head = (r->wire.head + 1) % DGR_FRAMES;
                r->wire.n--; /* the requester's ACKs: lost */
            } else {
                (void)dgr_deliver(r, 10u + (unsigned)k, 1);
            }
        }
        (void)dgr_tick(r, 10u + (unsigned)k * DGR_TIMEOUT);
        while (dgr_poll(&r->n[0], true, c, 1) == 1)
            if (c[0].wr_id == 223 || c[0].wr_id == 224)
                st[c[0].wr_id - 223] = c[0].status;
    }
    CHECK_EQ(st[0], OFL_WC_SUCCESS); /* 223: its value came */
    CHECK_EQ(le64(res), 110);
    CHECK_EQ(st[1], OFL_WC_RNR_RETRY_EXC_ERR); /* 224: never executed */
    CHECK_EQ(le64(t), 115); /* 223 executed once, 224 never */
    dgr_free(r);
    /* no replay cache at all: INVALID NAK */
    r = fx_open(&fix);
    if (r == NULL)
        return;
    res = dgr_alloc(&r->n[0], 8);
    t = fix.rbuf + 64;
    ofl_store_le64(t, 100);
    fix.ee1->attr.atomic_cap = 0; /* test only */
    CHECK_OK(atomic(r, 0, 225, OFL_QP_OP_ATOMIC_FADD, res, &fix,
                    (uint64_t)(uintptr_t)t, ADD5));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_ERR(dgr_deliver(r, 0, 1), OFL_E_QP_EE_NO_ATOMIC);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_INVALID);
    CHECK_EQ(h.nak_err, OFL_E_QP_EE_NO_ATOMIC);
    CHECK_OK(dgr_deliver(r, 0, 1));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 225);
    CHECK_EQ(c[0].status, OFL_WC_REM_INV_REQ_ERR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_ERROR);
    CHECK_EQ(le64(t), 100);
    dgr_free(r);
}

/* An atomic request header from node 0's QP 1 to node 1's QP 7. */
static struct ofl_dg_hdr areq(const struct fx *f, uint32_t sn, uint64_t to)
{
    const struct ofl_dg_hdr h = {.kind = OFL_DG_RD_ATOMIC,
                                 .len = OFL_DG_ATOMIC_EXT,
                                 .dst_addr = A1,
                                 .src_addr = A0,
                                 .dst_qpn = 7,
                                 .src_qpn = 1,
                                 .sn = sn,
                                 .stag = f->rstag,
                                 .to = to,
                                 .aop = OFL_RDMAP_FETCH_ADD,
                                 .add_swap = 1};

    return h;
}

/* Every check the atomics add, tripped and passed: the EE's cache set-up,
 * the wire rules of kind 9, the post rules, the responder's refusals
 * (alignment, rights, response slot, window), a response of the wrong
 * length. */
static void test_atomic_rules(void)
{
    static uint8_t b[OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT + 8];
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_ee_attr a;
    struct ofl_ee e;
    struct ofl_dg_hdr h, g;
    struct dgr_qp_opts o;
    struct ofl_cqe c[8];
    uint8_t *res, *t;
    uint64_t to;
    uint32_t rcv;
    int k;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    to = (uint64_t)(uintptr_t)t;
    /* ofl_ee_init: a cache of atomic_cap entries, at most 2^15 */
    a = fix.ee0->attr;
    memset(&e, 0, sizeof(e));
    a.atomic = NULL;
    CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
    a.atomic = fix.ee0->attr.atomic;
    a.atomic_cap = 0x8001u;
    CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
    a.atomic_cap = 0;
    a.atomic = NULL;
    CHECK_OK(ofl_ee_init(&e, &a));
    /* the wire: kind 9 round trip, then each rule */
    h = areq(&fix, 77, to);
    h.add_swap_mask = 0x0102030405060708ull;
    h.compare = 3;
    h.compare_mask = ~0ull;
    CHECK_ERR(ofl_dg_build(&h, b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT - 1),
              OFL_E_SIZE);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_EQ(ofl_dg_ext_len(OFL_DG_RD_ATOMIC), OFL_DG_ATOMIC_EXT);
    CHECK_EQ(ofl_load_be64(b + OFL_DG_HDR_LEN + 24), h.add_swap_mask);
    CHECK_OK(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, &g));
    CHECK(g.kind == h.kind && g.len == h.len && g.sn == h.sn &&
          g.dst_addr == h.dst_addr && g.src_addr == h.src_addr &&
          g.dst_qpn == h.dst_qpn && g.src_qpn == h.src_qpn &&
          g.stag == h.stag && g.to == h.to && g.aop == h.aop &&
          g.add_swap == h.add_swap && g.add_swap_mask == h.add_swap_mask &&
          g.compare == h.compare && g.compare_mask == h.compare_mask);
    b[OFL_DG_HDR_LEN + 12] = 3; /* op */
    CHECK_ERR(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, &g),
              OFL_E_RDMAP_ATOMIC_OP);
    b[OFL_DG_HDR_LEN + 12] = OFL_RDMAP_CMP_SWAP;
    CHECK_OK(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, &g));
    for (k = 13; k < 16; k++) { /* reserved */
        b[OFL_DG_HDR_LEN + k] = 1;
        CHECK_ERR(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, &g),
                  OFL_E_QP_DG_RESERVED);
        b[OFL_DG_HDR_LEN + k] = 0;
    }
    ofl_store_be16(b + 24, OFL_DG_ATOMIC_EXT - 1); /* lengths */
    CHECK_ERR(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT - 1, &g),
              OFL_E_QP_DG_LENGTH);
    ofl_store_be16(b + 24, OFL_DG_ATOMIC_EXT + 1);
    CHECK_ERR(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT + 1, &g),
              OFL_E_QP_DG_LENGTH);
    ofl_store_be16(b + 24, OFL_DG_ATOMIC_EXT);
    CHECK_OK(ofl_dg_parse(b, OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, &g));
    h.aop = 3;
    CHECK_ERR(ofl_dg_build(&h, b, sizeof(b)), OFL_E_ARG);
    h.aop = OFL_RDMAP_SWAP;
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    h.reserved3[6] = 1;
    CHECK_ERR(ofl_dg_build(&h, b, sizeof(b)), OFL_E_ARG);
    h.reserved3[6] = 0;
    /* the atomic fields on another kind */
    g = h;
    g.kind = OFL_DG_RD_WRITE;
    g.len = OFL_DG_WRITE_EXT;
    g.aop = 0;
    CHECK_ERR(ofl_dg_build(&g, b, sizeof(b)), OFL_E_ARG); /* operands */
    g.add_swap = g.add_swap_mask = g.compare = g.compare_mask = 0;
    g.reserved3[0] = 1;
    CHECK_ERR(ofl_dg_build(&g, b, sizeof(b)), OFL_E_ARG);
    g.reserved3[0] = 0;
    g.aop = 1;
    CHECK_ERR(ofl_dg_build(&g, b, sizeof(b)), OFL_E_ARG);
    g.aop = 0;
    CHECK_OK(ofl_dg_build(&g, b, sizeof(b)));
    /* the host encoder: an atomic's dest after its operands */
    {
        static uint8_t slot[128];
        struct ofl_qp_sge sg = {0, 8, 0};
        struct ofl_qp_wr wr;

        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_ATOMIC_CSWAP;
        wr.sge = &sg;
        wr.num_sge = 1;
        wr.atomic[0] = 1;
        wr.atomic[3] = 4;
        wr.dest.addr = 0x11;
        wr.dest.ee = 0x22;
        wr.dest.qpn = 0x33;
        CHECK_OK(ofl_qp_wqe_send(slot, sizeof(slot), &wr));
        CHECK_EQ(ofl_load_le64(slot + OFL_SWQE_ATOMIC), 1);
        CHECK_EQ(ofl_load_le64(slot + OFL_SWQE_ATOMIC + 24), 4);
        CHECK_EQ(ofl_load_le32(slot + OFL_SWQE_DG_ATOMIC_ADDR), 0x11);
        CHECK_EQ(ofl_load_le32(slot + OFL_SWQE_DG_ATOMIC_EE), 0x22);
        CHECK_EQ(ofl_load_le32(slot + OFL_SWQE_DG_ATOMIC_QPN), 0x33);
    }
    /* post: the request's 48 bytes within max_dgram */
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.qpn = 3;
    o.max_dgram = OFL_DG_ATOMIC_EXT - 1;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 2);
    CHECK_ERR(atomic(r, 2, 230, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD1),
              OFL_E_QP_DG_TOO_LONG);
    r->n[0].q[2].qp.attr.max_dgram = OFL_DG_ATOMIC_EXT; /* test only */
    CHECK_OK(atomic(r, 2, 230, OFL_QP_OP_ATOMIC_FADD, res, &fix, to, ADD1));
    CHECK_OK(ofl_qp_process(&r->n[0].q[2].qp, 0, 8));
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(le64(t), 101);
    /* the responder: a TO not 8-byte aligned (a hostile frame; the post
     * refuses it), then aligned */
    rcv = fix.ee1->rcv_nxt;
    h = areq(&fix, rcv, to + 4);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_ERR(ofl_qp_dgram_input(&r->n[1].node, b,
                                 OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1),
              OFL_E_QP_ATOMIC_ALIGN);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv + 1u); /* consumed, refused */
    g = head(r);
    CHECK_EQ(g.kind, OFL_DG_NAK);
    CHECK_EQ(g.nak, OFL_DG_NAK_INVALID);
    CHECK_EQ(g.nak_err, OFL_E_QP_ATOMIC_ALIGN);
    CHECK_EQ(le64(t), 101);
    dgr_drop_all(r);
    h = areq(&fix, rcv + 1u, to);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, b,
                                OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1));
    CHECK_EQ(le64(t), 102);
    dgr_drop_all(r);
    CHECK_EQ(cached(fix.ee1), 1); /* its response is never acknowledged */
    /* a response slot too small for the 8-byte value (test only: set in
     * place), then one just large enough */
    fix.ee1->attr.slot_size = OFL_DG_HDR_LEN + OFL_DG_RESP_EXT + 7;
    h = areq(&fix, rcv + 2u, to);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_ERR(ofl_qp_dgram_input(&r->n[1].node, b,
                                 OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1),
              OFL_E_QP_DG_TOO_LONG);
    CHECK_EQ(head(r).nak, OFL_DG_NAK_INVALID);
    CHECK_EQ(le64(t), 102);
    dgr_drop_all(r);
    fix.ee1->attr.slot_size = OFL_DG_HDR_LEN + OFL_DG_RESP_EXT + 8;
    h = areq(&fix, rcv + 3u, to);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, b,
                                OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1));
    CHECK_EQ(le64(t), 103);
    fix.ee1->attr.slot_size = DGR_SLOT;
    dgr_drop_all(r);
    /* rights: 8 bytes past the region's end (ACCESS NAK), nothing
     * written; then inside it */
    h = areq(&fix, rcv + 4u, (uint64_t)(uintptr_t)fix.rbuf + 4096u);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK(ofl_qp_dgram_input(&r->n[1].node, b,
                             OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1) != OFL_OK);
    CHECK_EQ(head(r).nak, OFL_DG_NAK_ACCESS);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv + 5u);
    dgr_drop_all(r);
    h = areq(&fix, rcv + 5u, (uint64_t)(uintptr_t)fix.rbuf + 4088u);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, b,
                                OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1));
    CHECK_EQ(le64(fix.rbuf + 4088u), 1);
    dgr_drop_all(r);
    /* the responder's window full of unacknowledged frames (three
     * responses held, five more): not taken, OFL_E_QP_EE_FULL */
    while (ofl_ee_outstanding(fix.ee1) < DGR_WIN) {
        h = areq(&fix, fix.ee1->rcv_nxt, to);
        CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, b,
                                    OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1));
        dgr_drop_all(r);
    }
    rcv = fix.ee1->rcv_nxt;
    CHECK_EQ(le64(t), 108);
    h = areq(&fix, rcv, to);
    CHECK_OK(ofl_dg_build(&h, b, sizeof(b)));
    CHECK_ERR(ofl_qp_dgram_input(&r->n[1].node, b,
                                 OFL_DG_HDR_LEN + OFL_DG_ATOMIC_EXT, 1),
              OFL_E_QP_EE_FULL);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv);
    CHECK_EQ(le64(t), 108);
    CHECK_EQ(cached(fix.ee1), DGR_WIN); /* one per held response */
    dgr_free(r);
}

/* A response of the wrong length for an atomic (4 bytes, not 8): the WQE
 * completes BAD_RESP_ERR, the result buffer untouched. */
static void test_atomic_bad_resp(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_dg_hdr g;
    struct ofl_cqe c[8];
    uint8_t *res, *t;
    uint32_t req;

    if (r == NULL)
        return;
    res = dgr_alloc(&r->n[0], 8);
    memset(res, 0xAA, 8);
    t = fix.rbuf + 64;
    CHECK_OK(atomic(r, 0, 240, OFL_QP_OP_ATOMIC_FADD, res, &fix,
                    (uint64_t)(uintptr_t)t, ADD1));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    req = fix.ee0->snd_nxt - 1u;
    dgr_drop_all(r);
    memset(&g, 0, sizeof(g));
    g.kind = OFL_DG_RD_RESP;
    g.dst_addr = A0;
    g.src_addr = A1;
    g.dst_qpn = 1;
    g.src_qpn = 7;
    g.sn = fix.ee0->rcv_nxt;
    g.len = OFL_DG_RESP_EXT + 4;
    g.rlen = req;
    CHECK_ERR(inject(r, 0, &g, "four", 4, 1), OFL_E_QP_RESP_MISMATCH);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 240);
    CHECK_EQ(c[0].status, OFL_WC_BAD_RESP_ERR);
    CHECK_EQ(res[0], 0xAA);
    CHECK_EQ(r->n[0].q[0].qp.ord_count, 0);
    dgr_free(r);
}

/* An atomic refused for its rights (8 bytes past the region's end) whose
 * ACCESS NAK is lost: the next frame's ACK names the refusal in its block
 * (an atomic request may be refused so), the WQE completes
 * REM_ACCESS_ERR, never SUCCESS, its QP goes to ERROR, the other QP's
 * atomic completes with its value. */
static void test_atomic_lost_nak(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[8];
    uint8_t *res, *res2, *t;

    if (r == NULL)
        return;
    res = dgr_alloc(&r->n[0], 8);
    res2 = dgr_alloc(&r->n[0], 8);
    t = fix.rbuf + 64;
    ofl_store_le64(t, 40);
    CHECK_OK(atomic(r, 1, 250, OFL_QP_OP_ATOMIC_FADD, res, &fix,
                    (uint64_t)(uintptr_t)fix.rbuf + 4096u, ADD1));
    CHECK_OK(atomic(r, 0, 251, OFL_QP_OP_ATOMIC_FADD, res2, &fix,
                    (uint64_t)(uintptr_t)t, ADD1));
    CHECK_OK(ofl_qp_process(&r->n[0].q[1].qp, 0, 8));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    r->wire.drop = 1;                      /* the ACCESS NAK is lost */
    CHECK(dgr_deliver(r, 0, 1) != OFL_OK); /* refused, consumed */
    CHECK_EQ(fix.ee1->nak_code, OFL_DG_NAK_ACCESS);
    dgr_pump(r, 1);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 8), 2);
    CHECK_EQ(c[0].wr_id, 250);
    CHECK_EQ(c[0].status, OFL_WC_REM_ACCESS_ERR);
    CHECK_EQ(c[1].wr_id, 251);
    CHECK_EQ(c[1].status, OFL_WC_SUCCESS);
    CHECK_EQ(le64(res2), 40);
    CHECK_EQ(le64(t), 41);
    CHECK_EQ(r->n[0].q[1].qp.state, OFL_QP_ERROR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_RTS);
    dgr_free(r);
}

/* Exactly once under random loss: four FetchAdds of 1 from each of two
 * QPs, QP 1's to target 0, QP 2's to target 1 and some of them refused
 * (past the region's end, which moves QP 2 to ERROR), over a wire that
 * loses frames at random (requests, responses, ACKs, NAKs), NAKs on or
 * off, until every WQE completed. Per target: the original values
 * returned SUCCESS are distinct; when all its WQEs completed SUCCESS the
 * target grew by exactly their number, else (a flush or the EE failed by
 * retry_limit: an atomic in flight may or may not have run) by at least
 * the SUCCESS ones and at most the allowed ones; no refused one completes
 * SUCCESS. Seeds 1 .. 60. */
static void test_atomic_random_loss(void)
{
    uint32_t seed, exact = 0;

    for (seed = 1; seed <= 60; seed++) {
        uint32_t x = seed * 2654435761u, done = 0, ok[2] = {0, 0};
        uint32_t good[2] = {0, 0}, bad_n[2] = {0, 0};
        struct fx fix;
        struct dgr_rig *r = fx_open(&fix);
        static uint8_t bad[8], seen[2][16];
        uint8_t *res[8], *t[2];
        struct ofl_cqe c[16];
        uint64_t now = 0;
        bool failed[2] = {false, false};
        int q, k, step;

        if (r == NULL)
            return;
        naks(r, (xs(&x) & 1u) != 0, 2);
        fix.ee0->attr.retry_limit = 30; /* test only: loss rarely fails */
        fix.ee1->attr.retry_limit = 30; /* the EE here */
        t[0] = fix.rbuf + 64;
        t[1] = fix.rbuf + 128;
        ofl_store_le64(t[0], 0);
        ofl_store_le64(t[1], 0);
        memset(seen, 0, sizeof(seen));
        for (k = 0; k < 4; k++)
            for (q = 0; q < 2; q++) {
                const uint32_t id = (uint32_t)(q * 4 + k);

                res[id] = dgr_alloc(&r->n[0], 8);
                bad[id] = (uint8_t)(q == 1 && xs(&x) % 4u == 0);
                good[q] += !bad[id];
                bad_n[q] += bad[id];
                CHECK_OK(atomic(r, q, 3000u + id, OFL_QP_OP_ATOMIC_FADD,
                                res[id], &fix,
                                bad[id] ? (uint64_t)(uintptr_t)fix.rbuf +
                                              4096u
                                        : (uint64_t)(uintptr_t)t[q],
                                ADD1));
            }
        for (step = 0; step < 4000 && done < 8; step++) {
            const uint32_t v = xs(&x) % 100u;
            uint32_t got, i;

            if (v < 20) {
                for (q = 0; q < 2; q++)
                    (void)ofl_qp_process(&r->n[0].q[q].qp, now, 1);
            } else if (v < 72 && r->wire.n != 0) {
                (void)dgr_deliver(r, now, 1);
            } else if (v < 80 && r->wire.n != 0) {
                r->wire.head = (r->wire.head + 1) % DGR_FRAMES; /* lost */
                r->wire.n--;
            } else {
                now += 1u + xs(&x) % DGR_TIMEOUT;
                (void)dgr_tick(r, now);
            }
            while ((got = dgr_poll(&r->n[0], true, c, 16)) != 0)
                for (i = 0; i < got; i++) {
                    const uint32_t id = (uint32_t)(c[i].wr_id - 3000u);
                    const int p = id < 4 ? 0 : 1;
                    uint64_t o;

                    CHECK(id < 8);
                    if (id >= 8)
                        continue;
                    done++;
                    if (bad[id]) {
                        CHECK(c[i].status != OFL_WC_SUCCESS);
                        failed[p] = true;
                        continue;
                    }
                    CHECK(c[i].status != OFL_WC_REM_ACCESS_ERR &&
                          c[i].status != OFL_WC_REM_INV_REQ_ERR);
                    if (c[i].status != OFL_WC_SUCCESS) {
                        failed[p] = true;
                        continue;
                    }
                    o = le64(res[id]);
                    CHECK(o < 16 && !seen[p][o]); /* each value once */
                    if (o < 16)
                        seen[p][o] = 1;
                    ok[p]++;
                }
            if (fix.ee0->state != OFL_EE_RTS || fix.ee1->state != OFL_EE_RTS)
                failed[0] = failed[1] = true;
        }
        CHECK(done == 8 || failed[0] || failed[1]);
        for (q = 0; q < 2; q++) {
            if (!failed[q]) {
                CHECK_EQ(le64(t[q]), ok[q]);
                exact++;
            } else {
                CHECK(le64(t[q]) >= ok[q] && le64(t[q]) <= good[q]);
            }
        }
        CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
        dgr_free(r);
    }
    CHECK(exact >= 60); /* most (77 of 120) settle every WQE exactly */
}

/* ofl_ee_init: atomic_cap 0 or a power of two (the entry of a response
 * is its sequence number masked): 3, 6, 0x7FFF refused (OFL_E_ARG); 1, 4
 * and 2^15 taken, the cache emptied. */
static void test_atomic_cap_rule(void)
{
    static struct ofl_ee_atomic big[0x8000];
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_ee_attr a;
    struct ofl_ee e;

    if (r == NULL)
        return;
    a = fix.ee0->attr;
    memset(&e, 0, sizeof(e));
    a.atomic_cap = 3;
    CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
    a.atomic_cap = 6;
    CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
    a.atomic = big;
    a.atomic_cap = 0x7FFFu;
    CHECK_ERR(ofl_ee_init(&e, &a), OFL_E_ARG);
    CHECK_EQ(e.state, OFL_EE_UNUSED);
    a.atomic_cap = 1;
    CHECK_OK(ofl_ee_init(&e, &a));
    e.state = OFL_EE_ERROR;
    a.atomic_cap = 4;
    CHECK_OK(ofl_ee_init(&e, &a));
    e.state = OFL_EE_ERROR;
    big[0x7FFF].used = 1;
    a.atomic_cap = 0x8000u;
    CHECK_OK(ofl_ee_init(&e, &a));
    CHECK_EQ(big[0x7FFF].used, 0);
    dgr_free(r);
}

/* Node 0's acknowledgement of node 1's frame sn (hand-made). */
static enum ofl_err ack_of(struct dgr_rig *r, uint32_t sn)
{
    const struct ofl_dg_hdr h = {
        .kind = OFL_DG_ACK, .dst_addr = A1, .src_addr = A0, .sn = sn};

    return inject(r, 1, &h, NULL, 0, 1);
}

/* A hand-made FetchAdd 1 of to, request sn, into node 1. */
static enum ofl_err areq_in(struct dgr_rig *r, const struct fx *f,
                            uint32_t sn, uint64_t to)
{
    const struct ofl_dg_hdr h = areq(f, sn, to);

    return inject(r, 1, &h, NULL, 0, 1);
}

/* The replay cache entry is the one of the response's sequence number,
 * (resp_sn - snd_isn) mod atomic_cap, not the first free one: after a
 * Read's response (no entry) the atomic's is entry 1, entry 0 free; the
 * request's record names it (rx_cache). A duplicate is answered from it
 * (the response again, nothing executed); a duplicate of another request
 * (the Read's sequence number sent as an atomic) only acknowledged. Once
 * the record of the request's index is the newer request's, window
 * frames on, and its entry holds that request: the old duplicate is only
 * acknowledged, the new one answered. */
static void test_atomic_index(void)
{
    static uint8_t rd[OFL_DG_HDR_LEN + OFL_DG_READ_EXT];
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_dg_hdr h;
    uint8_t *res, *t;
    uint64_t to, rtx;
    uint32_t rcv, s0, i;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    to = (uint64_t)(uintptr_t)t;
    (void)res;
    rcv = fix.ee1->rcv_nxt;
    s0 = fix.ee1->snd_nxt;
    CHECK_EQ(s0, fix.ee1->attr.snd_isn);
    /* a Read of 8 bytes first: its response takes s0, no entry */
    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_RD_READ;
    h.len = OFL_DG_READ_EXT;
    h.dst_addr = A1;
    h.src_addr = A0;
    h.dst_qpn = 7;
    h.src_qpn = 1;
    h.sn = rcv;
    h.stag = fix.rstag;
    h.to = to;
    h.rlen = 8;
    CHECK_OK(ofl_dg_build(&h, rd, sizeof(rd)));
    CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, rd, sizeof(rd), 1));
    CHECK_EQ(fix.ee1->snd_nxt, s0 + 1u);
    CHECK_EQ(cached(fix.ee1), 0);
    dgr_drop_all(r);
    CHECK_OK(areq_in(r, &fix, rcv + 1u, to));
    CHECK_EQ(le64(t), 101);
    CHECK_EQ(cached(fix.ee1), 1);
    CHECK_EQ(fix.ee1->attr.atomic[0].used, 0); /* free, not taken */
    CHECK_EQ(fix.ee1->attr.atomic[1].used, 1);
    CHECK_EQ(fix.ee1->attr.atomic[1].sn, rcv + 1u);
    CHECK_EQ(fix.ee1->attr.atomic[1].resp_sn, s0 + 1u);
    CHECK_EQ(fix.ee1->attr.atomic[1].orig, 100);
    CHECK_EQ(fix.ee1->attr.slot[(rcv + 1u) & (DGR_WIN - 1u)].rx_cache, 2);
    CHECK_EQ(fix.ee1->attr.slot[rcv & (DGR_WIN - 1u)].rx_cache, 0);
    dgr_drop_all(r);
    /* its duplicate: answered from entry 1, not executed */
    rtx = fix.ee1->stats.rtx_frames;
    CHECK_OK(areq_in(r, &fix, rcv + 1u, to));
    CHECK_EQ(le64(t), 101);
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx + 1u);
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    r->wire.head = (r->wire.head + 1) % DGR_FRAMES;
    r->wire.n--;
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_RD_RESP);
    CHECK_EQ(h.sn, s0 + 1u);
    CHECK_EQ(h.rlen, rcv + 1u);
    CHECK_EQ(ofl_load_be64(r->wire.f[r->wire.head].data + OFL_DG_HDR_LEN +
                           OFL_DG_RESP_EXT),
             100);
    dgr_drop_all(r);
    /* the Read's sequence number as an atomic duplicate: no entry named,
     * only acknowledged */
    CHECK_OK(areq_in(r, &fix, rcv, to));
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx + 1u);
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    dgr_drop_all(r);
    /* both responses acknowledged: entries free; then eight atomics, each
     * response acknowledged but the last, which sits in entry 1 again
     * (s0 + 9) under request rcv + 9, the record of rcv + 1's index */
    CHECK_OK(ack_of(r, s0 + 1u));
    CHECK_EQ(cached(fix.ee1), 0);
    for (i = 2; i <= 9; i++) {
        CHECK_OK(areq_in(r, &fix, rcv + i, to));
        if (i != 9)
            CHECK_OK(ack_of(r, s0 + i));
        dgr_drop_all(r);
    }
    CHECK_EQ(le64(t), 109);
    CHECK_EQ(cached(fix.ee1), 1);
    CHECK_EQ(fix.ee1->attr.atomic[1].sn, rcv + 9u);
    CHECK_EQ(fix.ee1->attr.atomic[1].resp_sn, s0 + 9u);
    CHECK_EQ(fix.ee1->attr.slot[(rcv + 1u) & (DGR_WIN - 1u)].rx_cache, 2);
    rtx = fix.ee1->stats.rtx_frames;
    CHECK_OK(areq_in(r, &fix, rcv + 1u, to)); /* not that entry's request */
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx);
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    dgr_drop_all(r);
    CHECK_OK(areq_in(r, &fix, rcv + 9u, to)); /* that entry's request */
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx + 1u);
    CHECK_EQ(r->wire.n, 2);
    CHECK_EQ(le64(t), 109);
    dgr_drop_all(r);
    CHECK_OK(ack_of(r, s0 + 9u));
    fx_close(r, &fix);
}

/* A cache smaller than the window (2 entries, window 8; test only: set in
 * place): a request whose entry holds another's unacknowledged result is
 * refused (OFL_E_QP_EE_ATOMIC_FULL, an RNR NAK, not taken, not executed)
 * while the other entry is taken; once that response is acknowledged the
 * request is executed in the entry. */
static void test_atomic_collide(void)
{
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_dg_hdr h;
    uint8_t *res, *t;
    uint64_t to;
    uint32_t rcv, s0;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 100);
    (void)res;
    to = (uint64_t)(uintptr_t)t;
    naks(r, true, 2);
    fix.ee1->attr.atomic_cap = 2; /* test only */
    rcv = fix.ee1->rcv_nxt;
    s0 = fix.ee1->snd_nxt;
    CHECK_OK(areq_in(r, &fix, rcv, to)); /* entry 0 */
    CHECK_OK(areq_in(r, &fix, rcv + 1u, to)); /* entry 1: the other held */
    CHECK_EQ(cached(fix.ee1), 2);
    CHECK_EQ(fix.ee1->attr.atomic[0].sn, rcv);
    CHECK_EQ(fix.ee1->attr.atomic[1].sn, rcv + 1u);
    dgr_drop_all(r);
    CHECK_ERR(areq_in(r, &fix, rcv + 2u, to), OFL_E_QP_EE_ATOMIC_FULL);
    CHECK_EQ(fix.ee1->rcv_nxt, rcv + 2u); /* not taken */
    CHECK_EQ(le64(t), 102);               /* not executed */
    CHECK_EQ(ofl_ee_outstanding(fix.ee1), 2);
    h = head(r);
    CHECK_EQ(h.kind, OFL_DG_NAK);
    CHECK_EQ(h.nak, OFL_DG_NAK_RNR);
    CHECK_EQ(h.sn, rcv + 2u);
    dgr_drop_all(r);
    CHECK_OK(ack_of(r, s0)); /* entry 0's response acknowledged */
    CHECK_EQ(cached(fix.ee1), 1);
    CHECK_OK(areq_in(r, &fix, rcv + 2u, to));
    CHECK_EQ(le64(t), 103);
    CHECK_EQ(fix.ee1->attr.atomic[0].sn, rcv + 2u);
    CHECK_EQ(fix.ee1->attr.atomic[0].resp_sn, s0 + 2u);
    dgr_drop_all(r);
    CHECK_OK(ack_of(r, s0 + 2u));
    fx_close(r, &fix);
}

/* Why the entry is the response's and not the request's: the response of
 * atomic A is lost (its request acknowledged), and the requester goes on
 * (its window is free): seven Writes, then atomics from A + 8 on. A
 * cache of window entries keyed by the request's sequence number would
 * find A + 8's entry held by A; keyed by the response's it never refuses
 * for room (atomic_cap == window): only the window itself fills
 * (OFL_E_QP_EE_FULL after seven more responses). A's duplicate, more than
 * window frames back, is only acknowledged. */
static void test_atomic_span(void)
{
    static uint8_t w[OFL_DG_HDR_LEN + OFL_DG_WRITE_EXT + 8];
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_dg_hdr h;
    uint8_t *res, *t;
    uint64_t to, rtx;
    uint32_t rcv, s0, i;

    if (r == NULL)
        return;
    t = target(r, &fix, &res, 0);
    (void)res;
    to = (uint64_t)(uintptr_t)t;
    rcv = fix.ee1->rcv_nxt;
    s0 = fix.ee1->snd_nxt;
    CHECK_OK(areq_in(r, &fix, rcv, to)); /* A: its response lost */
    dgr_drop_all(r);
    memset(&h, 0, sizeof(h));
    h.kind = OFL_DG_RD_WRITE;
    h.len = OFL_DG_WRITE_EXT + 8;
    h.dst_addr = A1;
    h.src_addr = A0;
    h.dst_qpn = 7;
    h.src_qpn = 1;
    h.stag = fix.rstag;
    h.to = (uint64_t)(uintptr_t)fix.rbuf + 256u;
    for (i = 1; i < DGR_WIN; i++) {
        h.sn = rcv + i;
        CHECK_OK(ofl_dg_build(&h, w, sizeof(w)));
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, w, sizeof(w), 1));
        dgr_drop_all(r);
    }
    for (i = DGR_WIN; i < 2u * DGR_WIN - 1u; i++) {
        CHECK_OK(areq_in(r, &fix, rcv + i, to)); /* never ATOMIC_FULL */
        dgr_drop_all(r);
    }
    CHECK_EQ(le64(t), DGR_WIN);
    CHECK_EQ(cached(fix.ee1), DGR_WIN);
    CHECK_EQ(ofl_ee_outstanding(fix.ee1), DGR_WIN);
    CHECK_ERR(areq_in(r, &fix, rcv + 2u * DGR_WIN - 1u, to), OFL_E_QP_EE_FULL);
    dgr_drop_all(r);
    rtx = fix.ee1->stats.rtx_frames;
    CHECK_OK(areq_in(r, &fix, rcv, to)); /* A again: too far back */
    CHECK_EQ(fix.ee1->stats.rtx_frames, rtx);
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(head(r).kind, OFL_DG_ACK);
    dgr_drop_all(r);
    CHECK_OK(ack_of(r, s0 + DGR_WIN - 1u));
    CHECK_EQ(le64(t), DGR_WIN);
    fx_close(r, &fix);
}

/* One run of the random-loss storm below: 8 FetchAdds of 1 and 4 Writes
 * from each of node 0's two QPs (ORD 4 each: up to 8 atomics in flight,
 * the window) over a wire that loses frames at random (the seeds and
 * xorshift of test_atomic_random_loss; a step delivers 62 times in 100,
 * loses 8, ticks 10, retry_limit 100), the responder's
 * cache cap entries (test only: set in place), until every WQE completed
 * or an EE failed. Returns how many deliveries were refused with
 * OFL_E_QP_EE_ATOMIC_FULL; *settled: every WQE completed SUCCESS and the
 * target grew by exactly 16 (exactly once). */
static uint32_t atomic_storm(uint32_t seed, uint32_t cap, bool *settled)
{
    uint32_t x = seed * 2654435761u, done = 0, good = 0, full = 0;
    struct fx fix;
    struct dgr_rig *r = fx_open(&fix);
    struct ofl_cqe c[16];
    uint8_t *res, *t;
    uint64_t now = 0;
    int q, k, step;

    *settled = false;
    if (r == NULL)
        return 0;
    naks(r, (xs(&x) & 1u) != 0, 2);
    fix.ee0->attr.retry_limit = 100; /* test only: loss rarely fails */
    fix.ee1->attr.retry_limit = 100;
    fix.ee1->attr.atomic_cap = cap; /* test only */
    t = fix.rbuf + 64;
    ofl_store_le64(t, 0);
    for (k = 0; k < 12; k++)
        for (q = 0; q < 2; q++) {
            const uint64_t id = 5000u + (uint64_t)(q * 12 + k);

            if (k % 3 == 2) {
                CHECK_OK(rdma(r, 0, q, id, OFL_QP_OP_WRITE, fix.src, 8, 7,
                              fix.rstag,
                              (uint64_t)(uintptr_t)fix.rbuf + 512u));
            } else {
                res = dgr_alloc(&r->n[0], 8);
                CHECK_OK(atomic(r, q, id, OFL_QP_OP_ATOMIC_FADD, res, &fix,
                                (uint64_t)(uintptr_t)t, ADD1));
            }
        }
    for (step = 0; step < 8000 && done < 24; step++) {
        const uint32_t v = xs(&x) % 100u;
        uint32_t got, i;

        if (v < 20) {
            for (q = 0; q < 2; q++)
                (void)ofl_qp_process(&r->n[0].q[q].qp, now, 1);
        } else if (v < 82 && r->wire.n != 0) {
            if (dgr_deliver(r, now, 1) == OFL_E_QP_EE_ATOMIC_FULL)
                full++;
        } else if (v < 90 && r->wire.n != 0) {
            r->wire.head = (r->wire.head + 1) % DGR_FRAMES; /* lost */
            r->wire.n--;
        } else {
            now += 1u + xs(&x) % DGR_TIMEOUT;
            (void)dgr_tick(r, now);
        }
        while ((got = dgr_poll(&r->n[0], true, c, 16)) != 0)
            for (i = 0; i < got; i++) {
                done++;
                good += c[i].status == OFL_WC_SUCCESS;
            }
        if (fix.ee0->state != OFL_EE_RTS || fix.ee1->state != OFL_EE_RTS)
            break;
    }
    *settled = done == 24 && good == 24 && le64(t) == 16;
    CHECK(le64(t) <= 16); /* never more than once each */
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
    return full;
}

/* atomic_cap >= window never refuses for room: seeds 1 .. 60 of the
 * random-loss storm with a cache of window entries see no
 * OFL_E_QP_EE_ATOMIC_FULL and settle every WQE exactly once; the same
 * seeds with half the entries are refused (the storm reaches the
 * refusal) and still never execute one twice. */
static void test_atomic_storm(void)
{
    uint32_t seed, full = 0, half = 0, settled = 0;
    bool ok;

    for (seed = 1; seed <= 60; seed++) {
        full += atomic_storm(seed, DGR_WIN, &ok);
        settled += ok;
        half += atomic_storm(seed, DGR_WIN / 2u, &ok);
    }
    CHECK_EQ(full, 0);
    CHECK_EQ(settled, 60); /* every seed: each WQE SUCCESS, exactly once */
    CHECK(half > 0);       /* 459 refusals over the 60 seeds */
}

OFL_SUITE(qp_rd_rdma)
{
    test_write_read();
    test_post_rules();
    test_access_nak();
    test_seq_nak();
    test_rnr_nak();
    test_hostile();
    test_lost_nak();
    test_lost_naks_round();
    test_ref_rules();
    test_ref_contradiction();
    test_ref_wire();
    test_ref_unsettled();
    test_ref_random_loss();
    test_atomic_rd();
    test_atomic_replay();
    test_atomic_full();
    test_atomic_rules();
    test_atomic_bad_resp();
    test_atomic_lost_nak();
    test_atomic_random_loss();
    test_atomic_cap_rule();
    test_atomic_index();
    test_atomic_collide();
    test_atomic_span();
    test_atomic_storm();
}
