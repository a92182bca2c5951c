/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Unpinned pages on datagram QPs (issue 27 item 5; seed 001 "Remote
 * Memory Protection": an address not mapped through MapLocalPage gives
 * the default error handler an asynchronous page-fault result; offload.h
 * "Unpinned pages", "Datagrams"). Under OFL_QP_FAULT_WAIT an RD frame
 * whose access meets a page not present is not taken and not
 * acknowledged (an RNR NAK when enabled); the requester's retransmission
 * completes it once the page is mapped, every byte once, an atomic
 * executed once. A UD datagram is dropped (or fed again by a host that
 * kept it). A send WQE's source waits as on a stream. ofl_qp_fault_fail
 * gives an access up with FAIL's exact result.
 */
#include <string.h>

#include "test.h"
#include "support/dg_rig.h"

#define A0 DGR_ADDR0
#define A1 (DGR_ADDR0 + 1u)
#define SIG OFL_QP_WR_SIGNALED
#define PG 4096u
#define WAIT OFL_QP_FAULT_WAIT
#define FAIL OFL_QP_FAULT_FAIL

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* The rig: RD QP 1 on node 0 (q[0]) and RD QP 7 on node 1 (q[0]), both
 * acknowledged, with attr.fault_wait fw; node 1's remote region of two
 * pages (rbuf, rstag; remote read, write and atomic). */
struct fx {
    struct dgr_rig *r;
    uint32_t rstag;
    uint8_t *rbuf;
    struct ofl_ee *ee0, *ee1;
};

/* A page-aligned run of `pages` pages of node n's memory. */
static uint8_t *pages(struct dgr_node *n, uint32_t npages)
{
    uint8_t *p = dgr_alloc(n, (npages + 1u) * PG);

    if (p == NULL)
        return NULL;
    return n->mem + ((uint32_t)(p - n->mem + PG - 1u) & ~(PG - 1u));
}

static bool fx_open(struct fx *f, uint8_t svc, uint8_t fw)
{
    struct dgr_qp_opts o;
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;

    memset(f, 0, sizeof(*f));
    f->r = dgr_new(2);
    CHECK(f->r != NULL);
    if (f->r == NULL)
        return false;
    memset(&o, 0, sizeof(o));
    o.service = svc;
    o.acked = svc == OFL_QP_SVC_RD;
    o.fault_wait = fw;
    o.qpn = 1;
    CHECK_EQ(dgr_qp_add(f->r, 0, &o, NULL), 0);
    o.qpn = 7;
    CHECK_EQ(dgr_qp_add(f->r, 1, &o, NULL), 0);
    f->rbuf = pages(&f->r->n[1], 2);
    memset(&d, 0, sizeof(d));
    d.va = va(f->rbuf);
    d.page_shift = 12;
    d.att_base = 32;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE |
               OFL_TPT_REMOTE_ATOMIC;
    b.pa = ofl_sim_pa(f->rbuf);
    b.len = 2 * PG;
    CHECK_OK(ofl_tpt_reg_phys(&f->r->n[1].tpt, 7, &d, &b, 1, &f->rstag));
    f->ee0 = &f->r->n[0].ee[0];
    f->ee1 = &f->r->n[1].ee[0];
    return true;
}

static void fx_close(struct fx *f)
{
    CHECK_EQ(f->r->n[0].sim.violations + f->r->n[1].sim.violations, 0);
    dgr_free(f->r);
}

/* NAKs on (or off) at both ends, rnr_delay ticks after an RNR NAK. */
static void naks(struct fx *f, bool on, uint64_t rnr_delay)
{
    int i;

    for (i = 0; i < 2; i++) {
        f->r->n[i].ee[0].attr.flags = on ? OFL_EE_F_NAK : 0;
        f->r->n[i].ee[0].attr.rnr_delay = rnr_delay;
    }
}

static struct ofl_qp *qp_of(struct fx *f, int ni)
{
    return &f->r->n[ni].q[0].qp;
}

/* Page-fault notifications node ni's port saw (vector 3: the QP's). */
static unsigned notifies(struct fx *f, int ni)
{
    const struct ofl_sim *s = &f->r->n[ni].sim;
    unsigned i, n = 0;

    for (i = 0; i < s->nevents; i++)
        if (s->event[i].kind == OFL_SIM_EV_NOTIFY && s->event[i].a == 3)
            n++;
    return n;
}

/* Swaps page p (of node ni's region, or of the remote region: stag) out
 * or in again. */
static void unmap(struct fx *f, int ni, uint32_t stag, const uint8_t *p)
{
    CHECK_OK(ofl_tpt_unmap_page(&f->r->n[ni].tpt, stag, va(p)));
}

static void map(struct fx *f, int ni, uint32_t stag, uint8_t *p)
{
    CHECK_OK(ofl_tpt_map_page(&f->r->n[ni].tpt, stag, va(p),
                              ofl_sim_pa(p)));
}

/* The head frame of the wire, decoded (kind 0 when none). */
static struct ofl_dg_hdr head(struct fx *f)
{
    struct ofl_dg_hdr h;
    struct dgr_wire *w = &f->r->wire;

    memset(&h, 0, sizeof(h));
    if (w->n != 0)
        (void)ofl_dg_parse(w->f[w->head].data, w->f[w->head].len, &h);
    return h;
}

static void fill(uint8_t *p, uint32_t n, uint8_t seed)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7u);
}

/* The QP's record: where, stag, va (three checks). */
static void waits(struct fx *f, int ni, uint8_t where, uint32_t stag,
                  const void *p)
{
    const struct ofl_qp *q = qp_of(f, ni);

    CHECK_EQ(q->fault.where, where);
    CHECK_EQ(q->fault.stag, stag);
    CHECK_EQ(q->fault.va, va(p));
}

static enum ofl_err rdma(struct fx *f, uint64_t wr_id, uint8_t op, void *p,
                         uint32_t len, uint64_t rto, const uint64_t *a)
{
    struct ofl_qp_wr wr;

    dgr_wr_rdma(&wr, wr_id, op, f->rstag, rto, a);
    return dgr_post(f->r, 0, 0, &wr, p, len);
}

/* One completion on node ni's send (or receive) CQ: wr_id, status. */
static void cqe1(struct fx *f, int ni, bool send, uint64_t wr_id,
                 uint8_t status)
{
    struct ofl_cqe c[8];

    CHECK_EQ(dgr_poll(&f->r->n[ni], send, c, 8), 1);
    CHECK_EQ(c[0].wr_id, wr_id);
    CHECK_EQ(c[0].status, status);
}

/* An RD Write across two pages of the remote region, the second not
 * present: the frame is not taken (nothing placed, no ack, an RNR NAK),
 * the fault raised once over the resends, MapLocalPage, the resend is
 * placed whole. */
static void test_rd_write(void)
{
    struct fx f;
    uint8_t *src;
    uint8_t *at;

    if (!fx_open(&f, OFL_QP_SVC_RD, WAIT))
        return;
    naks(&f, true, 4);
    src = dgr_alloc(&f.r->n[0], 200);
    fill(src, 200, 3);
    at = f.rbuf + PG - 100;
    unmap(&f, 1, f.rstag, f.rbuf + PG);
    CHECK_OK(rdma(&f, 61, OFL_QP_OP_WRITE, src, 200, va(at), NULL));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    CHECK_EQ(f.r->wire.n, 1);
    CHECK_ERR(dgr_deliver(f.r, 0, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK(ofl_test_zero(f.rbuf, 2 * PG)); /* nothing half placed */
    waits(&f, 1, OFL_QP_FAULT_DG, f.rstag, f.rbuf + PG);
    CHECK_EQ(qp_of(&f, 1)->fault.in_wait, 1);
    CHECK(qp_of(&f, 1)->events & OFL_QP_EVT_PAGE_FAULT);
    CHECK_EQ(notifies(&f, 1), 1);
    CHECK_EQ(qp_of(&f, 1)->state, OFL_QP_RTS);
    CHECK_EQ(f.ee1->rcv_nxt, dgr_isn(0, 1)); /* not taken */
    CHECK_EQ(f.ee1->stats.rx_frames, 0);
    CHECK_EQ(f.ee1->stats.acks_tx, 0);
    CHECK_EQ(f.r->wire.n, 1);
    CHECK_EQ(head(&f).kind, OFL_DG_NAK);
    CHECK_EQ(head(&f).nak, OFL_DG_NAK_RNR);
    CHECK_OK(dgr_deliver(f.r, 0, 1));
    CHECK_EQ(f.ee0->rnr_wait, 1);
    CHECK_EQ(dgr_poll(&f.r->n[0], true, NULL, 0), 0);
    /* ofl_qp_process of the responder keeps the record */
    CHECK_OK(ofl_qp_process(qp_of(&f, 1), 1, 8));
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_DG);
    /* the resend meets it again: no new event */
    CHECK_OK(ofl_ee_tick(f.ee0, 4));
    CHECK_EQ(f.r->wire.n, 1);
    CHECK_EQ(head(&f).kind, OFL_DG_RD_WRITE);
    CHECK_ERR(dgr_deliver(f.r, 4, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(notifies(&f, 1), 1);
    CHECK(ofl_test_zero(f.rbuf, 2 * PG));
    CHECK_OK(dgr_deliver(f.r, 4, 1)); /* the RNR NAK */
    map(&f, 1, f.rstag, f.rbuf + PG);
    CHECK_OK(ofl_ee_tick(f.ee0, 8));
    dgr_pump(f.r, 9);
    CHECK(memcmp(at, src, 200) == 0);
    CHECK(ofl_test_zero(f.rbuf, PG - 100));
    CHECK(ofl_test_zero(at + 200, PG - 100));
    cqe1(&f, 0, true, 61, OFL_WC_SUCCESS);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(qp_of(&f, 1)->fault.in_wait, 0);
    CHECK_EQ(f.ee1->stats.rx_frames, 1);
    CHECK_EQ(ofl_ee_outstanding(f.ee0), 0);
    CHECK_EQ(notifies(&f, 1), 1);
    fx_close(&f);
}

/* An RD Send into a receive buffer whose second page is not present,
 * NAKs off: silence (no ack, no NAK), the receive WQE kept, the sender's
 * timeout resends; after the map the resend is delivered once. */
static void test_rd_send(void)
{
    struct fx f;
    uint8_t *src, *dst;
    struct ofl_cqe c[8];

    if (!fx_open(&f, OFL_QP_SVC_RD, WAIT))
        return;
    src = dgr_alloc(&f.r->n[0], 200);
    fill(src, 200, 9);
    dst = pages(&f.r->n[1], 2) + PG - 50;
    CHECK_OK(dgr_recv(f.r, 1, 0, 900, dst, 200));
    unmap(&f, 1, f.r->n[1].stag, dst + 50);
    CHECK_OK(dgr_send(f.r, 0, 0, 71, src, 200, 0, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    CHECK_ERR(dgr_deliver(f.r, 0, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(f.r->wire.n, 0); /* no ack, no NAK */
    CHECK(ofl_test_zero(dst, 200));
    CHECK_EQ(ofl_qp_rq_outstanding(qp_of(&f, 1)), 1);
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 0);
    waits(&f, 1, OFL_QP_FAULT_DG, f.r->n[1].stag, dst + 50);
    CHECK_EQ(notifies(&f, 1), 1);
    CHECK_EQ(f.ee1->rcv_nxt, dgr_isn(0, 1));
    /* the timeout resends it: it waits again, no second event */
    CHECK_OK(ofl_ee_tick(f.ee0, DGR_TIMEOUT));
    CHECK_ERR(dgr_deliver(f.r, DGR_TIMEOUT, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(notifies(&f, 1), 1);
    CHECK_EQ(ofl_qp_rq_outstanding(qp_of(&f, 1)), 1);
    map(&f, 1, f.r->n[1].stag, dst + 50);
    CHECK_OK(ofl_ee_tick(f.ee0, 2 * DGR_TIMEOUT));
    dgr_pump(f.r, 2 * DGR_TIMEOUT);
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 900);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 200);
    CHECK_EQ(c[0].src_qpn, 1);
    CHECK(memcmp(dst, src, 200) == 0);
    cqe1(&f, 0, true, 71, OFL_WC_SUCCESS);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(f.ee1->stats.rx_frames, 1);
    fx_close(&f);
}

/* An RD Read: first the responder's source page not present (no
 * response, no ack: the request is resent), then the requester's sink
 * (the response is not taken: the responder resends it; the Read keeps
 * its ORD). */
static void test_rd_read(void)
{
    struct fx f;
    uint8_t *sink;
    uint8_t *at;

    if (!fx_open(&f, OFL_QP_SVC_RD, WAIT))
        return;
    at = f.rbuf + PG - 60;
    fill(at, 120, 5);
    unmap(&f, 1, f.rstag, f.rbuf + PG);
    sink = dgr_alloc(&f.r->n[0], 120);
    CHECK_OK(rdma(&f, 81, OFL_QP_OP_READ, sink, 120, va(at), NULL));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    CHECK_ERR(dgr_deliver(f.r, 0, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(f.r->wire.n, 0);
    CHECK_EQ(f.ee1->snd_nxt, f.ee1->snd_una); /* no response queued */
    CHECK_EQ(f.ee1->rcv_nxt, dgr_isn(0, 1));
    waits(&f, 1, OFL_QP_FAULT_DG, f.rstag, f.rbuf + PG);
    CHECK_EQ(notifies(&f, 1), 1);
    map(&f, 1, f.rstag, f.rbuf + PG);
    CHECK_OK(ofl_ee_tick(f.ee0, DGR_TIMEOUT));
    dgr_pump(f.r, DGR_TIMEOUT);
    cqe1(&f, 0, true, 81, OFL_WC_SUCCESS);
    CHECK(memcmp(sink, at, 120) == 0);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);

    /* the sink: two pages of node 0, the second not present */
    sink = pages(&f.r->n[0], 2) + PG - 40;
    unmap(&f, 0, f.r->n[0].stag, sink + 40);
    CHECK_OK(rdma(&f, 82, OFL_QP_OP_READ, sink, 120, va(at), NULL));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 20, 8));
    CHECK_OK(dgr_deliver(f.r, 20, 1)); /* request in: ack + response */
    CHECK_OK(dgr_deliver(f.r, 20, 1)); /* the ack of the request */
    CHECK_EQ(head(&f).kind, OFL_DG_RD_RESP);
    CHECK_ERR(dgr_deliver(f.r, 20, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(f.r->wire.n, 0); /* no ack of the response (NAKs off) */
    CHECK(ofl_test_zero(sink, 120));
    CHECK_EQ(qp_of(&f, 0)->ord_count, 1);
    CHECK_EQ(dgr_poll(&f.r->n[0], true, NULL, 0), 0);
    waits(&f, 0, OFL_QP_FAULT_DG, f.r->n[0].stag, sink + 40);
    CHECK_EQ(notifies(&f, 0), 1);
    CHECK_EQ(ofl_ee_outstanding(f.ee1), 1);
    /* the responder resends; still waiting, no second event */
    CHECK_OK(ofl_ee_tick(f.ee1, 20 + DGR_TIMEOUT));
    CHECK_ERR(dgr_deliver(f.r, 20 + DGR_TIMEOUT, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(notifies(&f, 0), 1);
    CHECK(ofl_test_zero(sink, 120));
    map(&f, 0, f.r->n[0].stag, sink + 40);
    CHECK_OK(ofl_ee_tick(f.ee1, 20 + 2 * DGR_TIMEOUT));
    dgr_pump(f.r, 20 + 2 * DGR_TIMEOUT);
    cqe1(&f, 0, true, 82, OFL_WC_SUCCESS);
    CHECK(memcmp(sink, at, 120) == 0);
    CHECK(ofl_test_zero(sink + 120, 40));
    CHECK_EQ(qp_of(&f, 0)->ord_count, 0);
    CHECK_EQ(qp_of(&f, 0)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(ofl_ee_outstanding(f.ee1), 0);
    fx_close(&f);
}

static uint32_t cached(const struct ofl_ee *ee)
{
    uint32_t i, n = 0;

    for (i = 0; i < ee->attr.atomic_cap; i++)
        n += ee->attr.atomic[i].used;
    return n;
}

/* An RD FetchAdd: the target page not present (not read, no cache entry,
 * no response; executed once after the map), then the result buffer's
 * page (the response not taken; the responder resends it from its slot,
 * nothing executed again). */
static void test_rd_atomic(void)
{
    static const uint64_t add5[4] = {5, 0, 0, 0};
    struct fx f;
    uint8_t *res, *t;
    int k;

    if (!fx_open(&f, OFL_QP_SVC_RD, WAIT))
        return;
    naks(&f, true, 2);
    t = f.rbuf + PG + 64;
    ofl_store_le64(t, 100);
    res = dgr_alloc(&f.r->n[0], 8);
    unmap(&f, 1, f.rstag, f.rbuf + PG);
    CHECK_OK(rdma(&f, 91, OFL_QP_OP_ATOMIC_FADD, res, 8, va(t), add5));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    for (k = 0; k < 2; k++) {
        uint64_t now = (uint64_t)k * 2u;

        if (k != 0)
            CHECK_OK(ofl_ee_tick(f.ee0, now));
        CHECK_EQ(head(&f).kind, OFL_DG_RD_ATOMIC);
        CHECK_ERR(dgr_deliver(f.r, now, 1), OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(ofl_load_le64(t), 100);
        CHECK_EQ(cached(f.ee1), 0);
        CHECK_EQ(f.ee1->snd_nxt, f.ee1->snd_una);
        CHECK_EQ(head(&f).nak, OFL_DG_NAK_RNR);
        CHECK_OK(dgr_deliver(f.r, now, 1));
    }
    waits(&f, 1, OFL_QP_FAULT_DG, f.rstag, t);
    CHECK_EQ(notifies(&f, 1), 1);
    map(&f, 1, f.rstag, f.rbuf + PG);
    CHECK_OK(ofl_ee_tick(f.ee0, 4));
    dgr_pump(f.r, 4);
    cqe1(&f, 0, true, 91, OFL_WC_SUCCESS);
    CHECK_EQ(ofl_load_le64(res), 100);
    CHECK_EQ(ofl_load_le64(t), 105); /* executed once */
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);

    /* the result buffer's page not present at the requester */
    res = pages(&f.r->n[0], 1);
    unmap(&f, 0, f.r->n[0].stag, res);
    CHECK_OK(rdma(&f, 92, OFL_QP_OP_ATOMIC_FADD, res, 8, va(t), add5));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 10, 8));
    CHECK_OK(dgr_deliver(f.r, 10, 2)); /* request in (executed); its ack */
    CHECK_EQ(ofl_load_le64(t), 110);
    CHECK_EQ(head(&f).kind, OFL_DG_RD_RESP);
    CHECK_ERR(dgr_deliver(f.r, 10, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(head(&f).nak, OFL_DG_NAK_RNR);
    CHECK_OK(dgr_deliver(f.r, 10, 1));
    CHECK(ofl_test_zero(res, 8));
    CHECK_EQ(qp_of(&f, 0)->ord_count, 1);
    CHECK_EQ(cached(f.ee1), 1); /* held until the response is acked */
    waits(&f, 0, OFL_QP_FAULT_DG, f.r->n[0].stag, res);
    CHECK_EQ(notifies(&f, 0), 1);
    map(&f, 0, f.r->n[0].stag, res);
    CHECK_OK(ofl_ee_tick(f.ee1, 12));
    dgr_pump(f.r, 12);
    cqe1(&f, 0, true, 92, OFL_WC_SUCCESS);
    CHECK_EQ(ofl_load_le64(res), 105);
    CHECK_EQ(ofl_load_le64(t), 110); /* not executed again */
    CHECK_EQ(cached(f.ee1), 0);
    CHECK_EQ(qp_of(&f, 0)->fault.where, OFL_QP_FAULT_NONE);
    fx_close(&f);
}

/* UD: a datagram whose receive buffer page is not present is dropped
 * (the sender is not told: its Send completed when it left), the event
 * raised; a host that kept the frame feeds it again after the map. */
static void test_ud(void)
{
    struct fx f;
    uint8_t *src, *dst;
    struct ofl_cqe c[8];
    static struct dgr_frame fr;

    if (!fx_open(&f, OFL_QP_SVC_UD, WAIT))
        return;
    src = dgr_alloc(&f.r->n[0], 150);
    fill(src, 150, 1);
    dst = pages(&f.r->n[1], 2) + PG - 10;
    CHECK_OK(dgr_recv(f.r, 1, 0, 950, dst, 150));
    unmap(&f, 1, f.r->n[1].stag, dst + 10);
    CHECK_OK(dgr_send(f.r, 0, 0, 72, src, 150, A1, 0, 7, SIG));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    cqe1(&f, 0, true, 72, OFL_WC_SUCCESS);
    fr = f.r->wire.f[f.r->wire.head];
    CHECK_ERR(dgr_deliver(f.r, 0, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(f.r->wire.n, 0);
    CHECK(ofl_test_zero(dst, 150));
    CHECK_EQ(ofl_qp_rq_outstanding(qp_of(&f, 1)), 1);
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 0);
    waits(&f, 1, OFL_QP_FAULT_DG, f.r->n[1].stag, dst + 10);
    CHECK_EQ(notifies(&f, 1), 1);
    /* fed again before the map: still waits, no second event */
    CHECK_ERR(ofl_qp_dgram_input(&f.r->n[1].node, fr.data, fr.len, 1),
              OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(notifies(&f, 1), 1);
    map(&f, 1, f.r->n[1].stag, dst + 10);
    CHECK_OK(ofl_qp_dgram_input(&f.r->n[1].node, fr.data, fr.len, 2));
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 950);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 150);
    CHECK(memcmp(dst, src, 150) == 0);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    /* the next datagram goes as ever */
    CHECK_OK(dgr_recv(f.r, 1, 0, 951, dst, 150));
    CHECK_OK(dgr_send(f.r, 0, 0, 73, src, 20, A1, 0, 7, SIG));
    dgr_pump(f.r, 3);
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 951);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    fx_close(&f);
}

/* A send WQE's source page not present (RD Send, RD Write, UD Send):
 * ofl_qp_process returns OFL_E_TPT_PAGE_FAULT with nothing sent and no
 * sequence number taken; after the map the frame goes once. */
static void send_from(uint8_t svc, uint8_t op)
{
    struct fx f;
    uint8_t *src, *dst = NULL;
    struct ofl_cqe c[8];
    int k;

    if (!fx_open(&f, svc, WAIT))
        return;
    src = pages(&f.r->n[0], 2) + PG - 30;
    fill(src, 100, 4);
    unmap(&f, 0, f.r->n[0].stag, src + 30);
    if (op == OFL_QP_OP_WRITE) {
        CHECK_OK(rdma(&f, 74, op, src, 100, va(f.rbuf), NULL));
    } else {
        dst = dgr_alloc(&f.r->n[1], 100);
        CHECK_OK(dgr_recv(f.r, 1, 0, 960, dst, 100));
        CHECK_OK(dgr_send(f.r, 0, 0, 74, src, 100, A1, 0, 7, SIG));
    }
    for (k = 0; k < 3; k++) {
        CHECK_ERR(ofl_qp_process(qp_of(&f, 0), (uint64_t)k, 8),
                  OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(f.r->wire.n, 0);
        CHECK_EQ(f.ee0->snd_nxt, dgr_isn(0, 1));
        CHECK_EQ(qp_of(&f, 0)->state, OFL_QP_RTS);
        CHECK_EQ(qp_of(&f, 0)->fault.sq_wait, 1);
    }
    waits(&f, 0, OFL_QP_FAULT_SQ, f.r->n[0].stag, src + 30);
    CHECK_EQ(notifies(&f, 0), 1);
    CHECK_EQ(dgr_poll(&f.r->n[0], true, c, 8), 0);
    map(&f, 0, f.r->n[0].stag, src + 30);
    dgr_pump(f.r, 5);
    cqe1(&f, 0, true, 74, OFL_WC_SUCCESS);
    if (dst != NULL) {
        CHECK(memcmp(dst, src, 100) == 0);
        cqe1(&f, 1, false, 960, OFL_WC_SUCCESS);
    } else {
        CHECK(memcmp(f.rbuf, src, 100) == 0);
    }
    CHECK_EQ(f.r->n[0].q[0].qp.stats.tx_fpdus, 1);
    CHECK_EQ(qp_of(&f, 0)->fault.where, OFL_QP_FAULT_NONE);
    fx_close(&f);
}

/* A send waiting on its source has not begun: moved to SQD it does not
 * start (not even once the page is mapped) and SQD drains; back in RTS
 * it goes, once. */
static void send_sqd(uint8_t svc)
{
    struct fx f;
    uint8_t *src, *dst;
    struct ofl_qp *q;

    if (!fx_open(&f, svc, WAIT))
        return;
    q = qp_of(&f, 0);
    src = pages(&f.r->n[0], 1);
    fill(src, 40, 6);
    dst = dgr_alloc(&f.r->n[1], 40);
    CHECK_OK(dgr_recv(f.r, 1, 0, 961, dst, 40));
    unmap(&f, 0, f.r->n[0].stag, src);
    CHECK_OK(dgr_send(f.r, 0, 0, 75, src, 40, A1, 0, 7, SIG));
    CHECK_ERR(ofl_qp_process(q, 0, 8), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(q->cur.begun, 0);
    CHECK_OK(ofl_qp_modify(q, OFL_QP_SQD));
    CHECK_OK(ofl_qp_process(q, 1, 8));
    CHECK(q->events & OFL_QP_EVT_SQ_DRAINED);
    map(&f, 0, f.r->n[0].stag, src);
    CHECK_OK(ofl_qp_process(q, 2, 8));
    CHECK_EQ(f.r->wire.n, 0); /* did not start in SQD */
    CHECK_EQ(q->stats.tx_fpdus, 0);
    CHECK_OK(ofl_qp_modify(q, OFL_QP_RTS));
    dgr_pump(f.r, 3);
    cqe1(&f, 0, true, 75, OFL_WC_SUCCESS);
    cqe1(&f, 1, false, 961, OFL_WC_SUCCESS);
    CHECK(memcmp(dst, src, 40) == 0);
    CHECK_EQ(q->stats.tx_fpdus, 1);
    CHECK_EQ(q->fault.where, OFL_QP_FAULT_NONE);
    fx_close(&f);
}

static void test_send_from(void)
{
    send_sqd(OFL_QP_SVC_RD);
    send_sqd(OFL_QP_SVC_UD);
    send_from(OFL_QP_SVC_RD, OFL_QP_OP_SEND);
    send_from(OFL_QP_SVC_RD, OFL_QP_OP_WRITE);
    send_from(OFL_QP_SVC_UD, OFL_QP_OP_SEND);
}

/* Each datagram access given up (WAIT, then ofl_qp_fault_fail) ends as
 * it does under FAIL: the same completions, the same NAK. kind: 0 RD
 * Write, 1 RD Send, 2 RD Read sink, 3 RD atomic target, 4 UD Send, 5 RD
 * Send source. */
static void give_up(uint8_t mode, int kind)
{
    static const uint64_t add5[4] = {5, 0, 0, 0};
    struct fx f;
    uint8_t *buf = NULL, *p;
    struct ofl_cqe c[8];
    const uint8_t svc = kind == 4 ? OFL_QP_SVC_UD : OFL_QP_SVC_RD;
    int ni = kind == 2 || kind == 5 ? 0 : 1;
    uint32_t stag;
    uint8_t want;

    if (!fx_open(&f, svc, mode))
        return;
    naks(&f, true, 1);
    p = dgr_alloc(&f.r->n[0], 64);
    fill(p, 64, 2);
    stag = ni == 1 && (kind == 0 || kind == 3) ? f.rstag : f.r->n[ni].stag;
    if (kind == 0 || kind == 3) {
        buf = f.rbuf + PG;
        ofl_store_le64(buf, 7);
    } else {
        buf = pages(&f.r->n[ni], 1);
    }
    unmap(&f, ni, stag, buf);
    switch (kind) {
    case 0:
        CHECK_OK(rdma(&f, 5, OFL_QP_OP_WRITE, p, 64, va(buf), NULL));
        break;
    case 2:
        CHECK_OK(rdma(&f, 5, OFL_QP_OP_READ, buf, 64, va(f.rbuf), NULL));
        break;
    case 3:
        CHECK_OK(rdma(&f, 5, OFL_QP_OP_ATOMIC_FADD, p, 8, va(buf), add5));
        break;
    case 5:
        CHECK_OK(dgr_recv(f.r, 1, 0, 6, dgr_alloc(&f.r->n[1], 64), 64));
        CHECK_OK(dgr_send(f.r, 0, 0, 5, buf, 64, A1, 0, 7, SIG));
        break;
    default:
        CHECK_OK(dgr_recv(f.r, 1, 0, 6, buf, 64));
        CHECK_OK(dgr_send(f.r, 0, 0, 5, p, 64, A1, 0, 7, SIG));
        break;
    }
    if (mode == WAIT) {
        CHECK_ERR(ofl_qp_fault_fail(qp_of(&f, ni)), OFL_E_QP_STATE);
        if (kind == 5) {
            CHECK_ERR(ofl_qp_process(qp_of(&f, 0), 0, 8),
                      OFL_E_TPT_PAGE_FAULT);
        } else {
            CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
            if (kind == 2) /* the request; its ack; then the response */
                CHECK_OK(dgr_deliver(f.r, 0, 2));
            CHECK_ERR(dgr_deliver(f.r, 0, 0), OFL_E_TPT_PAGE_FAULT);
        }
        CHECK_EQ(qp_of(&f, ni)->fault.where,
                 kind == 5 ? OFL_QP_FAULT_SQ : OFL_QP_FAULT_DG);
        CHECK_OK(ofl_qp_fault_fail(qp_of(&f, ni)));
        CHECK_EQ(qp_of(&f, ni)->fault.give_up, 1);
        if (kind == 4) { /* UD: the next datagram meeting the page */
            CHECK_OK(dgr_send(f.r, 0, 0, 5, p, 64, A1, 0, 7, SIG));
            (void)dgr_poll(&f.r->n[0], true, c, 8); /* the first Send's */
        }
        if (kind == 2) /* the responder resends the response */
            CHECK_OK(ofl_ee_tick(f.ee1, 1));
        else if (kind != 4 && kind != 5)
            CHECK_OK(ofl_ee_tick(f.ee0, 1));
    }
    dgr_pump(f.r, 2);
    want = kind == 1 || kind == 4 ? (uint8_t)OFL_WC_SUCCESS
           : kind == 2 || kind == 5 ? OFL_WC_LOC_ACCESS_ERR
                                    : OFL_WC_REM_ACCESS_ERR;
    cqe1(&f, 0, true, 5, (uint8_t)want);
    if (kind == 1 || kind == 4)
        cqe1(&f, 1, false, 6, OFL_WC_LOC_ACCESS_ERR);
    if (kind == 0 || kind == 3) {
        CHECK_EQ(f.ee1->nak_code, OFL_DG_NAK_ACCESS);
        CHECK_EQ(f.ee1->nak_err, OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(qp_of(&f, 0)->state, OFL_QP_ERROR);
    }
    if (kind == 3)
        CHECK_EQ(ofl_load_le64(buf), 7); /* not executed */
    if (kind == 5)
        CHECK_EQ(qp_of(&f, 0)->state, OFL_QP_SQE);
    CHECK_EQ(qp_of(&f, ni)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(qp_of(&f, ni)->fault.give_up, 0);
    CHECK_EQ(notifies(&f, ni), mode == WAIT ? 1u : 0u);
    fx_close(&f);
}

static void test_give_up(void)
{
    int k;

    for (k = 0; k < 6; k++) {
        give_up(FAIL, k);
        give_up(WAIT, k);
    }
}

/* A page never mapped: the RD requester resends within retry_limit and
 * then fails the EE (RNR_RETRY_EXC_ERR), as for a receiver without
 * receive WQEs; the responder's record ends with the next frame of the
 * QP that does not wait. */
static void test_never_mapped(void)
{
    struct fx f;
    uint8_t *src;
    int k;

    if (!fx_open(&f, OFL_QP_SVC_RD, WAIT))
        return;
    naks(&f, true, 0);
    src = dgr_alloc(&f.r->n[0], 16);
    unmap(&f, 1, f.rstag, f.rbuf);
    CHECK_OK(rdma(&f, 5, OFL_QP_OP_WRITE, src, 16, va(f.rbuf), NULL));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    CHECK_ERR(dgr_deliver(f.r, 0, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_OK(dgr_deliver(f.r, 0, 1));
    for (k = 0; k < DGR_RETRY; k++) {
        uint64_t t = (uint64_t)(k + 1) * DGR_TIMEOUT;

        CHECK_OK(ofl_ee_tick(f.ee0, t));
        CHECK_ERR(dgr_deliver(f.r, t, 1), OFL_E_TPT_PAGE_FAULT);
        CHECK_OK(dgr_deliver(f.r, t, 1));
    }
    CHECK_ERR(ofl_ee_tick(f.ee0, (DGR_RETRY + 1) * DGR_TIMEOUT),
              OFL_E_QP_EE_RETRY);
    cqe1(&f, 0, true, 5, OFL_WC_RNR_RETRY_EXC_ERR);
    CHECK_EQ(notifies(&f, 1), 1);
    CHECK(ofl_test_zero(f.rbuf, 16));
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_DG);
    /* the EE set up again, the page mapped: the next frame is taken and
     * ends the record */
    {
        struct ofl_ee_attr ea = f.ee0->attr;

        CHECK_OK(ofl_ee_init(f.ee0, &ea));
    }
    map(&f, 1, f.rstag, f.rbuf);
    fill(src, 16, 8);
    CHECK_OK(rdma(&f, 6, OFL_QP_OP_WRITE, src, 16, va(f.rbuf), NULL));
    dgr_pump(f.r, 100);
    cqe1(&f, 0, true, 6, OFL_WC_SUCCESS);
    CHECK(memcmp(f.rbuf, src, 16) == 0);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    fx_close(&f);
}

/* An IPv6 frame (next header 17, destination RAW_DST) with n payload
 * bytes at f; its length. */
static const uint8_t RAW_DST[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                    0,    0,    0,    0,    0, 0, 0, 1};

static uint32_t ip6(uint8_t *f, uint32_t n)
{
    memset(f, 0, OFL_RAW_HDR_LEN);
    f[0] = 0x60;
    f[4] = (uint8_t)(n >> 8);
    f[5] = (uint8_t)n;
    f[6] = 17;
    f[7] = 64;
    memcpy(f + 24, RAW_DST, 16);
    fill(f + OFL_RAW_HDR_LEN, n, 6);
    return OFL_RAW_HDR_LEN + n;
}

/* Raw QPs (unreliable as UD): a send WQE whose source page is not
 * present waits with nothing sent and goes once after the map; an
 * inbound frame whose receive buffer page is not present is not taken
 * (dropped: nothing placed, the WQE where it was, the event once), and
 * fed again after the map it is placed. */
static void test_raw(void)
{
    struct fx f;
    struct ofl_qp_steer st;
    struct ofl_qp_steer_entry e[1];
    static struct dgr_frame fr;
    struct ofl_cqe c[8];
    uint8_t *src, *dst;
    uint32_t n;
    int k;

    if (!fx_open(&f, OFL_QP_SVC_RAW, WAIT))
        return;
    CHECK_OK(ofl_qp_steer_init(&st, e, 1));
    CHECK_OK(ofl_qp_steer_add(&st, 17, RAW_DST, qp_of(&f, 1)));
    src = pages(&f.r->n[0], 2);
    CHECK(src != NULL);
    if (src == NULL)
        return;
    src += PG - 30;
    n = ip6(src, 100);
    unmap(&f, 0, f.r->n[0].stag, src + 30);
    CHECK_OK(dgr_send(f.r, 0, 0, 81, src, n, 0, 0, 0, SIG));
    for (k = 0; k < 3; k++) {
        CHECK_ERR(ofl_qp_process(qp_of(&f, 0), (uint64_t)k, 8),
                  OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(f.r->wire.n, 0);
        CHECK_EQ(qp_of(&f, 0)->state, OFL_QP_RTS);
        CHECK_EQ(qp_of(&f, 0)->fault.sq_wait, 1);
    }
    waits(&f, 0, OFL_QP_FAULT_SQ, f.r->n[0].stag, src + 30);
    CHECK_EQ(notifies(&f, 0), 1);
    CHECK_EQ(dgr_poll(&f.r->n[0], true, c, 8), 0);
    map(&f, 0, f.r->n[0].stag, src + 30);
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 5, 8));
    CHECK_EQ(f.r->wire.n, 1);
    cqe1(&f, 0, true, 81, OFL_WC_SUCCESS);
    CHECK_EQ(qp_of(&f, 0)->fault.where, OFL_QP_FAULT_NONE);
    fr = f.r->wire.f[f.r->wire.head];
    CHECK_EQ(fr.len, n);
    CHECK(memcmp(fr.data, src, n) == 0);

    dst = pages(&f.r->n[1], 2) + PG - 10;
    CHECK_OK(dgr_recv(f.r, 1, 0, 950, dst, 200));
    unmap(&f, 1, f.r->n[1].stag, dst + 10);
    for (k = 0; k < 2; k++) { /* dropped; fed again: the same, no event */
        CHECK_ERR(ofl_qp_raw_input(&st, fr.data, fr.len),
                  OFL_E_TPT_PAGE_FAULT);
        CHECK(ofl_test_zero(dst, 200));
        CHECK_EQ(ofl_qp_rq_outstanding(qp_of(&f, 1)), 1);
        CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 0);
        waits(&f, 1, OFL_QP_FAULT_DG, f.r->n[1].stag, dst + 10);
        CHECK_EQ(qp_of(&f, 1)->fault.in_wait, 1);
        CHECK_EQ(qp_of(&f, 1)->state, OFL_QP_RTS);
        CHECK_EQ(notifies(&f, 1), 1);
    }
    map(&f, 1, f.r->n[1].stag, dst + 10);
    CHECK_OK(ofl_qp_raw_input(&st, fr.data, fr.len));
    CHECK_EQ(dgr_poll(&f.r->n[1], false, c, 8), 1);
    CHECK_EQ(c[0].wr_id, 950);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, n);
    CHECK(memcmp(dst, src, n) == 0);
    CHECK(ofl_test_zero(dst + n, 200 - n));
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(&f, 1), 1);
    fx_close(&f);
}

/* Raw given up: an inbound frame (in) or a send (!in) meeting a page not
 * present ends under WAIT given up with ofl_qp_fault_fail as under FAIL:
 * the same return, state and completion. */
static void raw_give_up(uint8_t mode, bool in, enum ofl_err *err,
                        uint8_t *state, struct ofl_cqe *out)
{
    struct fx f;
    struct ofl_qp_steer st;
    struct ofl_qp_steer_entry e[1];
    static uint8_t fr[200];
    struct ofl_cqe c[8];
    uint8_t *p;
    uint32_t n = ip6(fr, 100);
    int ni = in ? 1 : 0;

    *err = OFL_E_ARG;
    *state = 0xFF;
    memset(out, 0, sizeof(*out));
    if (!fx_open(&f, OFL_QP_SVC_RAW, mode))
        return;
    CHECK_OK(ofl_qp_steer_init(&st, e, 1));
    CHECK_OK(ofl_qp_steer_add(&st, 17, RAW_DST, qp_of(&f, 1)));
    p = pages(&f.r->n[ni], 1);
    CHECK(p != NULL);
    if (p == NULL)
        return;
    if (in) {
        CHECK_OK(dgr_recv(f.r, 1, 0, 951, p, 200));
    } else {
        memcpy(p, fr, n);
        CHECK_OK(dgr_send(f.r, 0, 0, 82, p, n, 0, 0, 0, SIG));
    }
    unmap(&f, ni, f.r->n[ni].stag, p);
    if (mode == WAIT) {
        CHECK_ERR(in ? ofl_qp_raw_input(&st, fr, n)
                     : ofl_qp_process(qp_of(&f, 0), 0, 8),
                  OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(notifies(&f, ni), 1);
        CHECK_OK(ofl_qp_fault_fail(qp_of(&f, ni)));
    }
    *err = in ? ofl_qp_raw_input(&st, fr, n)
              : ofl_qp_process(qp_of(&f, 0), 1, 8);
    *state = qp_of(&f, ni)->state;
    CHECK_EQ(dgr_poll(&f.r->n[ni], !in, c, 8), 1);
    *out = c[0];
    CHECK_EQ(f.r->wire.n, 0);
    CHECK_EQ(qp_of(&f, ni)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(qp_of(&f, ni)->fault.give_up, 0);
    fx_close(&f);
}

static void test_raw_give_up(void)
{
    enum ofl_err e1, e2;
    uint8_t s1, s2;
    struct ofl_cqe c1, c2;
    int k;

    for (k = 0; k < 2; k++) {
        raw_give_up(FAIL, k == 1, &e1, &s1, &c1);
        raw_give_up(WAIT, k == 1, &e2, &s2, &c2);
        CHECK_EQ(e1, e2);
        CHECK_EQ(s1, s2);
        CHECK_EQ(c1.wr_id, c2.wr_id);
        CHECK_EQ(c1.status, c2.status);
        CHECK_EQ(c1.byte_len, c2.byte_len);
        CHECK_EQ(c1.status, OFL_WC_LOC_ACCESS_ERR);
        CHECK_EQ(s1, k == 1 ? OFL_QP_RTS : OFL_QP_SQE);
    }
}

/* FAIL stays as it was on RD (a Write meeting a page not present is
 * refused with an ACCESS NAK, nothing recorded); WAIT is accepted for RD,
 * UD and raw. */
static void test_attr(void)
{
    struct fx f;
    uint8_t *src;
    static struct ofl_qp q;
    struct ofl_qp_attr a;

    if (!fx_open(&f, OFL_QP_SVC_RD, FAIL))
        return;
    src = dgr_alloc(&f.r->n[0], 16);
    unmap(&f, 1, f.rstag, f.rbuf);
    CHECK_OK(rdma(&f, 5, OFL_QP_OP_WRITE, src, 16, va(f.rbuf), NULL));
    CHECK_OK(ofl_qp_process(qp_of(&f, 0), 0, 8));
    CHECK_ERR(dgr_deliver(f.r, 0, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(head(&f).nak, OFL_DG_NAK_ACCESS);
    CHECK_EQ(qp_of(&f, 1)->fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(&f, 1), 0);
    dgr_pump(f.r, 1);
    cqe1(&f, 0, true, 5, OFL_WC_REM_ACCESS_ERR);

    a = f.r->n[1].q[0].attr;
    a.fault_wait = OFL_QP_FAULT_WAIT;
    a.service = OFL_QP_SVC_RAW;
    a.acked = 0;
    a.node = NULL;
    CHECK_OK(ofl_qp_create(&q, &a, &f.r->n[1].q[0].qmem)); /* test_raw */
    a.fault_wait = OFL_QP_FAULT_FAIL;
    CHECK_OK(ofl_qp_create(&q, &a, &f.r->n[1].q[0].qmem));
    a = f.r->n[1].q[0].attr;
    a.fault_wait = OFL_QP_FAULT_WAIT;
    CHECK_OK(ofl_qp_create(&q, &a, &f.r->n[1].q[0].qmem));
    a.service = OFL_QP_SVC_UD;
    a.acked = 0;
    CHECK_OK(ofl_qp_create(&q, &a, &f.r->n[1].q[0].qmem));
    fx_close(&f);
}

OFL_SUITE(qp_dg_fault)
{
    test_rd_write();
    test_rd_send();
    test_rd_read();
    test_rd_atomic();
    test_ud();
    test_send_from();
    test_give_up();
    test_never_mapped();
    test_attr();
    test_raw();
    test_raw_give_up();
}
