/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Unpinned pages through the queue pair (issue 27 item 5; seed 001 "Local
 * Memory Protection", FIG. 17 step 612, and "Remote Memory Protection": an
 * address not mapped through MapLocalPage gives the default error handler
 * an asynchronous page-fault result). attr.fault_wait = OFL_QP_FAULT_WAIT:
 * a Send from, a receive into, an RDMA Write into and a Read from a page
 * not present wait (OFL_QP_EVT_PAGE_FAULT, qp->fault), ofl_tpt_map_page
 * maps it, the access retries and completes with every byte once; so do
 * a Read Response into its Read's sink, an Atomic Response into its
 * result buffer and an Atomic Request at its target (executed once).
 */
#include <string.h>

#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define RA OFL_TPT_REMOTE_ATOMIC
#define PG 4096u
#define N (3u * PG)

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig(uint8_t fault_wait)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.fault_wait = fault_wait;
    return qr_new(&o);
}

/* Page-fault notifications side s's port saw (vector 3: the QP's). */
static unsigned notifies(const struct qr_side *s)
{
    unsigned i, n = 0;

    for (i = 0; i < s->sim.nevents; i++)
        if (s->sim.event[i].kind == OFL_SIM_EV_NOTIFY &&
            s->sim.event[i].a == 3)
            n++;
    return n;
}

static void fill(uint8_t *p, uint32_t n, uint8_t seed)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7u + (i >> 9));
}

/* A Read's two sides on a rig of fault_wait and read_sink: the
 * requester's sink of N bytes (a local write, and a remote one for a
 * TAGGED sink: the Read Response places into it by STag) and the
 * responder's source of N bytes filled from seed. */
struct read_pair {
    struct qr_rig *r;
    uint8_t *sink, *src;
    uint32_t lk, rs;
};

static void read_pair_new(struct read_pair *x, uint8_t fault_wait,
                          uint8_t read_sink, uint8_t seed)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.fault_wait = fault_wait;
    o.read_sink = read_sink;
    x->r = qr_new(&o);
    x->sink = qr_alloc(&x->r->a, N, true);
    x->src = qr_alloc(&x->r->b, N, true);
    x->lk = qr_reg(&x->r->a, x->sink, N,
                   read_sink == OFL_QP_READ_SINK_TAGGED ? LW | RW : LW, 0);
    x->rs = qr_reg(&x->r->b, x->src, N, LR | RR, 0);
    fill(x->src, N, seed);
}

/* How far dst holds src with nothing placed behind: the bytes placed
 * (the FPDUs before the one waiting); N + 1 when a byte lies beyond. */
static uint32_t placed(const uint8_t *dst, const uint8_t *src)
{
    uint32_t k = 0, i;

    while (k < N && dst[k] == src[k])
        k++;
    for (i = k; i < N; i++)
        if (dst[i] != 0)
            return N + 1;
    return k;
}

/* Feeds everything `from` sent to its peer as one TCP segment. Returns
 * ofl_qp_input's result; the wire is emptied only when it took it (after
 * a wait the bytes from RCV.NXT on must be fed again). */
static enum ofl_err feed(struct qr_side *from)
{
    struct qr_wire *w = from->out;
    struct ofl_qp_seg seg;
    enum ofl_err err;

    memset(&seg, 0, sizeof(seg));
    seg.seq = w->seq;
    seg.data = w->buf;
    seg.len = w->len;
    err = ofl_qp_input(&from->peer->qp, &seg);
    if (err == OFL_OK) {
        w->seq += w->len;
        w->len = 0;
        w->nchunk = 0;
    }
    return err;
}

/* A Send from an unmapped page: the segment that meets it waits (nothing
 * sent twice, nothing skipped), MapLocalPage, the Send completes. */
static void test_send_from(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true), *dst = qr_alloc(&r->b, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t lb = qr_reg(&r->b, dst, N, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint32_t wire, fpdus;
    unsigned before;

    fill(src, N, 1);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src) + 2 * PG));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    before = notifies(&r->a);
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_SQ);
    CHECK_EQ(r->a.qp.fault.stag, ls);
    CHECK(r->a.qp.fault.va >= va(src) + 2 * PG &&
          r->a.qp.fault.va < va(src) + 3 * PG);
    CHECK(r->a.qp.events & OFL_QP_EVT_PAGE_FAULT);
    CHECK_EQ(notifies(&r->a), before + 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    wire = r->ab.len;
    fpdus = (uint32_t)r->a.qp.stats.tx_fpdus;
    CHECK(wire > 0);
    /* Retries wait again: nothing more on the wire, no new event. */
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->ab.len, wire);
    CHECK_EQ(r->a.qp.stats.tx_fpdus, fpdus);
    CHECK_EQ(notifies(&r->a), before + 1);
    /* The peer takes what went; inbound goes on meanwhile. */
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 0);
    /* MapLocalPage, then the retry */
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, r->a.qp.fault.stag,
                              r->a.qp.fault.va, ofl_sim_pa(src + 2 * PG)));
    qr_pump(r, 0);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, N);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, N);
    CHECK(memcmp(src, dst, N) == 0);
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);

    /* The first page: the WQE waits before any byte of it went out. */
    r = rig(OFL_QP_FAULT_WAIT);
    src = qr_alloc(&r->a, N, true);
    dst = qr_alloc(&r->b, N, true);
    ls = qr_reg(&r->a, src, N, LR, 0);
    lb = qr_reg(&r->b, dst, N, LW, 0);
    fill(src, N, 9);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src)));
    qr_wr(&wr, OFL_QP_OP_SEND, 6, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->ab.len, 0);
    CHECK_EQ(r->a.qp.fault.va, va(src));
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, ls, va(src), ofl_sim_pa(src)));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK(memcmp(src, dst, N) == 0);
    qr_free(r);
}

/* A Send into a receive buffer with an unmapped page: the FPDU that meets
 * it waits whole (no byte of it placed), RCV.NXT past it; the bytes after
 * it are fed again; ofl_qp_process retries after the map. */
static void test_recv_into(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true), *dst = qr_alloc(&r->b, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t lb = qr_reg(&r->b, dst, N, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint32_t nxt, i;
    uint64_t fva;

    fill(src, N, 3);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, va(dst) + PG));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->b.qp.fault.stag, lb);
    fva = r->b.qp.fault.va;
    CHECK(fva >= va(dst) + PG && fva < va(dst) + 2 * PG);
    CHECK(r->b.qp.events & OFL_QP_EVT_PAGE_FAULT);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 0);
    /* The FPDUs before it placed, nothing of the waiting one (it began
     * less than one FPDU before the page). */
    i = placed(dst, src);
    CHECK(i <= fva - va(dst) && i + 1460u > fva - va(dst));
    nxt = r->b.qp.seq.nxt;
    CHECK(nxt != r->ab.seq && nxt != r->ab.seq + r->ab.len);
    /* Fed again before the map: nothing taken. */
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.seq.nxt, nxt);
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    /* Mapped: ofl_qp_process places the held FPDU, the rest is fed. */
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, lb, fva, ofl_sim_pa(dst + PG)));
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_OK(feed(&r->a));
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, N);
    CHECK(memcmp(src, dst, N) == 0);
    CHECK_EQ(r->b.qp.msn_rx[0], 2);
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* A receive of two data segments in two regions, the second's first page
 * unmapped: the segment that meets it waits, the map names that STag. */
static void test_recv_sges(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true);
    uint8_t *d0 = qr_alloc(&r->b, PG, true), *d1 = qr_alloc(&r->b, 2 * PG, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t s0 = qr_reg(&r->b, d0, PG, LW, 0);
    uint32_t s1 = qr_reg(&r->b, d1, 2 * PG, LW, 0);
    struct ofl_qp_sge rs[2];
    struct ofl_qp_recv_wr rw;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];

    fill(src, N, 21);
    rs[0].addr = va(d0);
    rs[0].len = PG;
    rs[0].stag = s0;
    rs[1].addr = va(d1);
    rs[1].len = 2 * PG;
    rs[1].stag = s1;
    memset(&rw, 0, sizeof(rw));
    rw.wr_id = 9;
    rw.sge = rs;
    rw.num_sge = 2;
    CHECK_OK(ofl_qp_post_recv(&r->b.qp, &rw));
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, s1, va(d1)));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.fault.stag, s1);
    CHECK_EQ(r->b.qp.fault.va, va(d1));
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, s1, va(d1), ofl_sim_pa(d1)));
    CHECK_OK(feed(&r->a));
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].wr_id, 9);
    CHECK(memcmp(d0, src, PG) == 0);
    CHECK(memcmp(d1, src + PG, 2 * PG) == 0);
    qr_free(r);

}

/* An RDMA Write into a tagged buffer with an unmapped page: the FPDUs
 * before it are placed, the one that meets it waits, the retry comes with
 * the input fed again after the map. */
static void test_write_into(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true), *dst = qr_alloc(&r->b, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t rb = qr_reg(&r->b, dst, N, LW | RW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint64_t fva;
    uint32_t i;

    fill(src, N, 5);
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, rb, va(dst) + 2 * PG));
    qr_wr(&wr, OFL_QP_OP_WRITE, 7, &sge, src, N, ls);
    wr.remote_stag = rb;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->b.qp.fault.stag, rb);
    fva = r->b.qp.fault.va;
    CHECK(fva >= va(dst) + 2 * PG && fva < va(dst) + 3 * PG);
    /* The FPDUs before it placed; the one that met the page placed
     * nothing (its bytes from fva on are 0), no Terminate. */
    CHECK(r->b.qp.fault.rx_len > 0);
    i = placed(dst, src);
    CHECK(i <= fva - va(dst) && i + 1460u > fva - va(dst));
    CHECK_EQ(r->b.qp.term_pending, 0);
    CHECK_EQ(r->ba.len, 0);
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, rb, fva, ofl_sim_pa(dst + 2 * PG)));
    CHECK_OK(feed(&r->a)); /* retries the held FPDU, then the rest */
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK(memcmp(src, dst, N) == 0);
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* An RDMA Read from a source with an unmapped page: the Read Response
 * segment that meets it waits at the responder, then the Read completes. */
static void test_read_from(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *sink = qr_alloc(&r->a, N, true), *src = qr_alloc(&r->b, N, true);
    uint32_t lk = qr_reg(&r->a, sink, N, LW, 0);
    uint32_t rs = qr_reg(&r->b, src, N, LR | RR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint32_t wire;
    unsigned before;

    fill(src, N, 11);
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, rs, va(src) + PG));
    qr_wr(&wr, OFL_QP_OP_READ, 8, &sge, sink, N, lk);
    wr.remote_stag = rs;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a)); /* the Read Request */
    before = notifies(&r->b);
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_READ_SRC);
    CHECK_EQ(r->b.qp.fault.stag, rs);
    CHECK(r->b.qp.fault.va >= va(src) + PG &&
          r->b.qp.fault.va < va(src) + 2 * PG);
    CHECK_EQ(notifies(&r->b), before + 1);
    CHECK_EQ(r->b.qp.irq_count, 1);
    wire = r->ba.len;
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->ba.len, wire);
    CHECK_EQ(notifies(&r->b), before + 1);
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, rs, r->b.qp.fault.va,
                              ofl_sim_pa(src + PG)));
    qr_pump(r, 0);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->b.qp.irq_count, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, N);
    CHECK(memcmp(src, sink, N) == 0);
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* A Read's sink with an unmapped page (read_sink: LOCAL or TAGGED): the
 * Read Response FPDU that meets it waits whole at the requester (RX), the
 * Read keeps its ORD slot and completes after the map, every byte once. */
static void test_read_into(uint8_t read_sink)
{
    struct read_pair x;
    struct qr_rig *r;
    uint8_t *sink, *src;
    uint32_t lk, rs, nxt, i, got;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint64_t fva;
    unsigned before;

    read_pair_new(&x, OFL_QP_FAULT_WAIT, read_sink, 13);
    r = x.r, sink = x.sink, src = x.src, lk = x.lk, rs = x.rs;
    /* unmapped before the post: the WQE's checks translate nothing */
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lk, va(sink) + PG));
    qr_wr(&wr, OFL_QP_OP_READ, 8, &sge, sink, N, lk);
    wr.remote_stag = rs;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a)); /* the Read Request */
    CHECK_OK(qr_process(&r->b, 0)); /* every Read Response */
    CHECK(r->ba.len > N);
    before = notifies(&r->a);
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->a.qp.fault.rx_held, 1);
    CHECK_EQ(r->a.qp.fault.sq_wait, 0);
    CHECK_EQ(r->a.qp.fault.stag, lk);
    fva = r->a.qp.fault.va;
    CHECK(fva >= va(sink) + PG && fva < va(sink) + 2 * PG);
    CHECK(r->a.qp.events & OFL_QP_EVT_PAGE_FAULT);
    CHECK_EQ(notifies(&r->a), before + 1);
    /* The segments before it placed, nothing of the waiting one; the Read
     * still outstanding (its ORD slot, its count of bytes), no CQE, no
     * Terminate. */
    i = placed(sink, src);
    CHECK(i <= fva - va(sink) && i + 1460u > fva - va(sink));
    got = r->a.qp.sq_track[r->a.qp.ord_ring[r->a.qp.ord_head] &
                           (QR_DEPTH - 1u)].got;
    CHECK_EQ(got, i);
    CHECK_EQ(r->a.qp.ord_count, 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    CHECK_EQ(r->a.qp.term_pending, 0);
    CHECK_EQ(r->ab.len, 0);
    nxt = r->a.qp.seq.nxt;
    /* Fed again, processed: nothing taken, nothing placed, no new event */
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.seq.nxt, nxt);
    CHECK_EQ(placed(sink, src), i);
    CHECK_EQ(r->a.qp.ord_count, 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    CHECK_EQ(notifies(&r->a), before + 1);
    /* MapLocalPage; ofl_qp_process places the held FPDU, the rest fed */
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, lk, fva, ofl_sim_pa(sink + PG)));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.rx_held, 0);
    CHECK_OK(feed(&r->b));
    CHECK_EQ(r->a.qp.ord_count, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].wr_id, 8);
    CHECK_EQ(c[0].byte_len, N);
    CHECK(memcmp(src, sink, N) == 0);
    CHECK_EQ(notifies(&r->a), before + 1);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* An 8-byte little-endian word. */
static uint64_t word_at(const uint8_t *p)
{
    uint64_t v = 0;
    unsigned k;

    for (k = 0; k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

static void word_set(uint8_t *p, uint64_t v)
{
    unsigned k;

    for (k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* A Fetch and Add of 5 from a (result at res, lr) to b's word (lw). */
static void post_fadd(struct qr_rig *r, uint8_t *res, uint32_t lr,
                      uint8_t *word, uint32_t lw)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    qr_wr(&wr, OFL_QP_OP_ATOMIC_FADD, 20, &sge, res, 8, lr);
    wr.remote_stag = lw;
    wr.remote_to = va(word);
    wr.atomic[0] = 5;
    CHECK_OK(qr_post_send(&r->a, &wr));
}

/* An Atomic's result buffer with an unmapped page (RFC 7306, the
 * requester): the Atomic Response waits whole, nothing written, the
 * Atomic still owed; after the map the original value lands, once; the
 * responder executed the operation once. */
static void test_atomic_result(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *res = qr_alloc(&r->a, 2 * PG, true);
    uint8_t *word = qr_alloc(&r->b, 64, false);
    uint32_t lr = qr_reg(&r->a, res, 2 * PG, LW, 0);
    uint32_t lw = qr_reg(&r->b, word, 64, LW | LR | RA, 0);
    uint32_t msn, nxt;
    struct ofl_cqe c[8];
    unsigned before;

    word_set(word + 8, 1000);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lr, va(res) + PG));
    post_fadd(r, res + PG + 16, lr, word + 8, lw);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a)); /* the Atomic Request */
    CHECK_OK(qr_process(&r->b, 0)); /* executed, the response sent */
    CHECK_EQ(word_at(word + 8), 1005);
    msn = r->a.qp.msn_rx[OFL_DDP_QN_ATOMIC_RESP];
    before = notifies(&r->a);
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->a.qp.fault.stag, lr);
    CHECK_EQ(r->a.qp.fault.va, va(res) + PG + 16);
    CHECK_EQ(notifies(&r->a), before + 1);
    CHECK_EQ(word_at(res + PG + 16), 0);
    CHECK_EQ(r->a.qp.msn_rx[OFL_DDP_QN_ATOMIC_RESP], msn);
    CHECK_EQ(r->a.qp.ord_count, 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    CHECK_EQ(r->ab.len, 0);
    nxt = r->a.qp.seq.nxt;
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.seq.nxt, nxt);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    CHECK_EQ(notifies(&r->a), before + 1);
    /* mapped: the retry comes with the input fed again */
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, lr, r->a.qp.fault.va,
                              ofl_sim_pa(res + PG)));
    CHECK_OK(feed(&r->b));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.msn_rx[OFL_DDP_QN_ATOMIC_RESP], msn + 1);
    CHECK_EQ(r->a.qp.ord_count, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].wr_id, 20);
    CHECK_EQ(word_at(res + PG + 16), 1000);
    CHECK_EQ(word_at(word + 8), 1005);
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* An Atomic's target with an unmapped page (RFC 7306, the responder):
 * the Atomic Request waits whole before the read-modify-write (the word
 * untouched, nothing queued, no MSN, no response); after the map the
 * retry executes it once and the response goes out. */
static void test_atomic_target(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *res = qr_alloc(&r->a, 64, false);
    uint8_t *word = qr_alloc(&r->b, PG, true);
    uint32_t lr = qr_reg(&r->a, res, 64, LW, 0);
    uint32_t lw = qr_reg(&r->b, word, PG, LW | LR | RA, 0);
    uint32_t msn, nxt;
    struct ofl_cqe c[8];
    unsigned before;

    word_set(word + 64, 70);
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lw, va(word)));
    post_fadd(r, res, lr, word + 64, lw);
    CHECK_OK(qr_process(&r->a, 0));
    msn = r->b.qp.msn_rx[OFL_DDP_QN_ATOMIC_REQ];
    before = notifies(&r->b);
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->b.qp.fault.stag, lw);
    CHECK_EQ(r->b.qp.fault.va, va(word) + 64);
    CHECK_EQ(notifies(&r->b), before + 1);
    CHECK_EQ(word_at(word + 64), 70); /* not executed */
    CHECK_EQ(r->b.qp.irq_count, 0);
    CHECK_EQ(r->b.qp.msn_rx[OFL_DDP_QN_ATOMIC_REQ], msn);
    nxt = r->b.qp.seq.nxt;
    /* retries wait again: still not executed, nothing sent */
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.seq.nxt, nxt);
    CHECK_EQ(word_at(word + 64), 70);
    CHECK_EQ(r->b.qp.irq_count, 0);
    CHECK_EQ(r->ba.len, 0);
    CHECK_EQ(notifies(&r->b), before + 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 0);
    /* mapped: ofl_qp_process executes it (once) and answers */
    CHECK_OK(ofl_tpt_map_page(&r->b.tpt, lw, va(word), ofl_sim_pa(word)));
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(word_at(word + 64), 75);
    CHECK_EQ(r->b.qp.msn_rx[OFL_DDP_QN_ATOMIC_REQ], msn + 1);
    CHECK_EQ(r->b.qp.irq_count, 0);
    CHECK(r->ba.len > 0);
    CHECK_OK(feed(&r->a)); /* behind RCV.NXT: a duplicate now */
    qr_pump(r, 0);
    CHECK_EQ(word_at(word + 64), 75);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(word_at(res), 70);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations, 0);
    CHECK_EQ(r->b.sim.violations, 0);
    qr_free(r);
}

/* The Terminate side s sent (not yet delivered) has cause want. */
static void check_term(struct qr_rig *r, struct qr_side *s,
                       struct ofl_term_cause want)
{
    struct ofl_rdmap_term t;

    CHECK(qr_sent_term(r, s, &t));
    CHECK_EQ(t.cause.layer, want.layer);
    CHECK_EQ(t.cause.etype, want.etype);
    CHECK_EQ(t.cause.ecode, want.ecode);
}

/* A Read whose sink page is never mapped, under FAIL and under WAIT
 * given up (ofl_qp_fault_fail): the same failure, the Terminate FAIL
 * sends (LOCAL sink: 0/0/00, the local side's; TAGGED:
 * ofl_tpt_term_cause(OFL_E_TPT_PAGE_FAULT, PLACE)), the Read
 * LOC_ACCESS_ERR, nothing of the faulting FPDU placed. */
static void read_sink_fails(uint8_t mode, uint8_t read_sink)
{
    struct read_pair x;
    struct qr_rig *r;
    uint8_t *sink, *src;
    uint32_t lk, rs;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    struct ofl_term_cause want =
        read_sink == OFL_QP_READ_SINK_TAGGED
            ? ofl_tpt_term_cause(OFL_E_TPT_PAGE_FAULT, OFL_TPT_USE_PLACE)
            : (struct ofl_term_cause){OFL_TERM_LAYER_RDMAP, 0, 0};

    read_pair_new(&x, mode, read_sink, 17);
    r = x.r, sink = x.sink, src = x.src, lk = x.lk, rs = x.rs;
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lk, va(sink)));
    qr_wr(&wr, OFL_QP_OP_READ, 8, &sge, sink, N, lk);
    wr.remote_stag = rs;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK_OK(qr_process(&r->b, 0));
    if (mode == OFL_QP_FAULT_WAIT) {
        CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS); /* nothing changed yet */
        CHECK_EQ(r->a.qp.ord_count, 1);
    }
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->a.qp.err, OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    check_term(r, &r->a, want);
    CHECK_EQ(placed(sink, src), 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* An Atomic whose result page (requester: target false) or target page
 * (responder: target true) is never mapped, under FAIL and under WAIT
 * given up: the Terminate FAIL sends, 0/0/00 (a local failure of the
 * side that meets it); a target is never written, a result never
 * written; the requester's Atomic LOC_ACCESS_ERR. */
static void atomic_fails(uint8_t mode, bool target)
{
    struct qr_rig *r = rig(mode);
    uint8_t *res = qr_alloc(&r->a, PG, true);
    uint8_t *word = qr_alloc(&r->b, PG, true);
    uint32_t lr = qr_reg(&r->a, res, PG, LW, 0);
    uint32_t lw = qr_reg(&r->b, word, PG, LW | LR | RA, 0);
    struct qr_side *s = target ? &r->b : &r->a;
    struct qr_side *peer = target ? &r->a : &r->b;
    struct ofl_cqe c[8];

    word_set(word + 8, 40);
    word_set(res, 0x55);
    if (target)
        CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lw, va(word)));
    else
        CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lr, va(res)));
    post_fadd(r, res, lr, word + 8, lw);
    CHECK_OK(qr_process(&r->a, 0));
    if (!target) {
        CHECK_OK(qr_deliver(r, &r->a));
        CHECK_OK(qr_process(&r->b, 0));
    }
    if (mode == OFL_QP_FAULT_WAIT) {
        CHECK_ERR(feed(peer), OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(s->qp.state, OFL_QP_RTS);
        CHECK_OK(ofl_qp_fault_fail(&s->qp));
        CHECK_EQ(s->qp.state, OFL_QP_RTS);
        /* the give-up comes with the next retry: ofl_qp_process here */
        CHECK_ERR(qr_process(s, 0), OFL_E_TPT_PAGE_FAULT);
    } else {
        CHECK_ERR(feed(peer), OFL_E_TPT_PAGE_FAULT);
    }
    CHECK_EQ(s->qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(s->qp.err, OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(s->qp.fault.where, OFL_QP_FAULT_NONE);
    check_term(r, s, (struct ofl_term_cause){OFL_TERM_LAYER_RDMAP, 0, 0});
    CHECK_EQ(word_at(word + 8), target ? 40 : 45);
    CHECK_EQ(word_at(res), 0x55);
    if (!target) {
        CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
        CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    } else {
        CHECK_EQ(r->b.qp.irq_count, 0);
    }
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    qr_free(r);
}

static void test_new_give_up(void)
{
    uint8_t mode;

    for (mode = OFL_QP_FAULT_FAIL; mode <= OFL_QP_FAULT_WAIT; mode++) {
        read_sink_fails(mode, OFL_QP_READ_SINK_LOCAL);
        read_sink_fails(mode, OFL_QP_READ_SINK_TAGGED);
        atomic_fails(mode, false);
        atomic_fails(mode, true);
    }
    /* TAGGED's cause spelled out: RDMAP, remote operation, catastrophic
     * error localized to the stream (RFC 5040 §7.2, 0/2/07) */
    {
        struct ofl_term_cause t =
            ofl_tpt_term_cause(OFL_E_TPT_PAGE_FAULT, OFL_TPT_USE_PLACE);

        CHECK_EQ(t.layer, OFL_TERM_LAYER_RDMAP);
        CHECK_EQ(t.etype, OFL_TERM_RDMAP_REMOTE_OPERATION);
        CHECK_EQ(t.ecode, OFL_TERM_RDMAP_CATASTROPHIC_STREAM);
    }
}

/* MapLocalPage's checks (seed 001 step 612), on the page a QP waits for. */
static void test_map_refusals(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true), *dst = qr_alloc(&r->b, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t lb = qr_reg(&r->b, dst, N, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    uint64_t pa = ofl_sim_pa(src + PG);

    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src) + PG));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    /* bad key, bad index, outside the region, unaligned pa */
    CHECK_ERR(ofl_tpt_map_page(&r->a.tpt, ls ^ 1u, va(src) + PG, pa),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_map_page(&r->a.tpt, (uint32_t)QR_TPT << 8, va(src), pa),
              OFL_E_TPT_INVALID_STAG);
    CHECK_ERR(ofl_tpt_map_page(&r->a.tpt, ls, va(src) + N, pa),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_map_page(&r->a.tpt, ls, va(src) + PG, pa + 8),
              OFL_E_ARG);
    /* none of them mapped it: still waiting */
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_SQ);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, ls, va(src) + PG, pa));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    qr_free(r);
}

/* A page that is never mapped: the QP waits for good; the host gives the
 * access up (ofl_qp_fault_fail) and it fails as under FAIL, or modifies
 * the QP to ERROR. */
static void test_never_mapped(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_WAIT);
    uint8_t *src = qr_alloc(&r->a, N, true), *dst = qr_alloc(&r->b, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    uint32_t lb = qr_reg(&r->b, dst, N, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];
    struct ofl_rdmap_term t;
    int i;

    CHECK_ERR(ofl_qp_fault_fail(NULL), OFL_E_ARG);
    CHECK_ERR(ofl_qp_fault_fail(&r->a.qp), OFL_E_QP_STATE); /* none waits */
    /* SQ, first page: given up -> SQE, LOC_ACCESS_ERR (as FAIL) */
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src)));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, 100, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    for (i = 0; i < 5; i++)
        CHECK_ERR(qr_process(&r->a, (uint64_t)i * 1000000u),
                  OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS); /* nothing changed yet */
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    qr_free(r);

    /* SQ, a later page: given up -> Terminate local catastrophic */
    r = rig(OFL_QP_FAULT_WAIT);
    src = qr_alloc(&r->a, N, true);
    ls = qr_reg(&r->a, src, N, LR, 0);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src) + 2 * PG));
    qr_wr(&wr, OFL_QP_OP_WRITE, 6, &sge, src, N, ls);
    wr.remote_stag = 0x1234;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->a.qp.err, OFL_E_TPT_PAGE_FAULT);
    CHECK(qr_sent_term(r, &r->a, &t));
    CHECK_EQ(t.cause.layer, 0);
    CHECK_EQ(t.cause.etype, 0);
    CHECK_EQ(t.cause.ecode, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    qr_free(r);

    /* RX (receive): given up -> Terminate 0/0/00, the receive
     * LOC_ACCESS_ERR; the retry comes from ofl_qp_input */
    r = rig(OFL_QP_FAULT_WAIT);
    src = qr_alloc(&r->a, N, true);
    dst = qr_alloc(&r->b, N, true);
    ls = qr_reg(&r->a, src, N, LR, 0);
    lb = qr_reg(&r->b, dst, N, LW, 0);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, va(dst)));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_OK(ofl_qp_fault_fail(&r->b.qp));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK(qr_sent_term(r, &r->b, &t));
    CHECK_EQ(t.cause.layer, 0);
    CHECK_EQ(t.cause.etype, 0);
    CHECK_EQ(t.cause.ecode, 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    qr_free(r);

    /* RX (Write): given up -> Terminate with the placement's cause, as
     * FAIL sends it; the retry comes from ofl_qp_process */
    r = rig(OFL_QP_FAULT_WAIT);
    src = qr_alloc(&r->a, N, true);
    dst = qr_alloc(&r->b, N, true);
    ls = qr_reg(&r->a, src, N, LR, 0);
    lb = qr_reg(&r->b, dst, N, LW | RW, 0);
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, va(dst)));
    qr_wr(&wr, OFL_QP_OP_WRITE, 6, &sge, src, N, ls);
    wr.remote_stag = lb;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_OK(ofl_qp_fault_fail(&r->b.qp));
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(qr_sent_term(r, &r->b, &t));
    {
        struct ofl_term_cause want =
            ofl_tpt_term_cause(OFL_E_TPT_PAGE_FAULT, OFL_TPT_USE_PLACE);

        CHECK_EQ(t.cause.layer, want.layer);
        CHECK_EQ(t.cause.etype, want.etype);
        CHECK_EQ(t.cause.ecode, want.ecode);
    }
    qr_free(r);

    /* Read source: given up -> the Terminate of a source failing again */
    r = rig(OFL_QP_FAULT_WAIT);
    dst = qr_alloc(&r->a, N, true);
    src = qr_alloc(&r->b, N, true);
    ls = qr_reg(&r->a, dst, N, LW, 0);
    lb = qr_reg(&r->b, src, N, LR | RR, 0);
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, va(src)));
    qr_wr(&wr, OFL_QP_OP_READ, 8, &sge, dst, N, ls);
    wr.remote_stag = lb;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_OK(ofl_qp_fault_fail(&r->b.qp));
    CHECK_ERR(qr_process(&r->b, 0), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    qr_free(r);

    /* MOD_ERROR while waiting: everything flushed, the record cleared */
    r = rig(OFL_QP_FAULT_WAIT);
    src = qr_alloc(&r->a, N, true);
    dst = qr_alloc(&r->b, N, true);
    ls = qr_reg(&r->a, src, N, LR, 0);
    lb = qr_reg(&r->b, dst, N, LW, 0);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, N, lb));
    CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, lb, va(dst) + PG));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, N, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_ERR(feed(&r->a), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->b.qp.fault.rx_held, 1);
    CHECK_OK(ofl_qp_modify(&r->b.qp, OFL_QP_ERROR));
    CHECK_EQ(r->b.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->b.qp.fault.rx_held, 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
    CHECK_ERR(ofl_qp_fault_fail(&r->b.qp), OFL_E_QP_STATE);
    qr_free(r);
}

/* The default (FAIL) is unchanged, and the attribute's checks. */
static void test_attr(void)
{
    struct qr_rig *r = rig(OFL_QP_FAULT_FAIL);
    static struct ofl_qp q; /* large: off a kernel stack */
    struct ofl_qp_attr a;
    uint8_t *src = qr_alloc(&r->a, N, true);
    uint32_t ls = qr_reg(&r->a, src, N, LR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];

    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src)));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, 100, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK(!(r->a.qp.events & OFL_QP_EVT_PAGE_FAULT));
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);

    a = r->b.attr;
    a.fault_wait = 2;
    CHECK_ERR(ofl_qp_create(&q, &a, &r->b.qmem), OFL_E_ARG);
    a.fault_wait = OFL_QP_FAULT_WAIT;
    a.service = OFL_QP_SVC_RAW; /* covered (test_qp_dg_fault.c) */
    a.max_dgram = 1500;
    CHECK_OK(ofl_qp_create(&q, &a, &r->b.qmem));
    a.fault_wait = OFL_QP_FAULT_FAIL; /* the same QP without it */
    CHECK_OK(ofl_qp_create(&q, &a, &r->b.qmem));
    a = r->b.attr;
    a.fault_wait = OFL_QP_FAULT_WAIT;
    a.service = OFL_QP_SVC_ISCSI; /* covered (test_qp_iscsi_fault.c) */
    a.iscsi_max_data = 8192;
    a.qpn = 5;
    CHECK_OK(ofl_qp_create(&q, &a, &r->b.qmem));
    a = r->b.attr;
    a.fault_wait = OFL_QP_FAULT_WAIT;
    CHECK_OK(ofl_qp_create(&q, &a, &r->b.qmem));
    CHECK_EQ(q.fault.where, OFL_QP_FAULT_NONE);
    qr_free(r);
}

/*
 * Bind and registration WQEs read no data page (offload.h "Unpinned
 * pages"): a FAST_REG whose page words leave a page not present, and a
 * Bind of a window over a region page not present, complete at once
 * under WAIT with no event and no record; the later data access through
 * them is what waits (a Send from the registered region: SQ; a Write
 * into the window: RX), and completes after the map.
 */
static void test_reg_bind(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    uint8_t *src, *dst, *wbuf, *bsrc;
    uint32_t fr = 0, mw = 0, bound, ld, lwb, lbs;
    uint64_t words[2], fva;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[8];

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.sq_reg = 1;
    o.fault_wait = OFL_QP_FAULT_WAIT;
    r = qr_new(&o);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    src = qr_alloc(&r->a, 2 * PG, true);
    dst = qr_alloc(&r->b, PG, false);
    wbuf = qr_alloc(&r->a, 2 * PG, true);
    bsrc = qr_alloc(&r->b, 2 * PG, false);
    ld = qr_reg(&r->b, dst, PG, LW, 0);
    lwb = qr_reg(&r->a, wbuf, 2 * PG, LW | LR | OFL_TPT_BIND_WINDOW, 0);
    lbs = qr_reg(&r->b, bsrc, 2 * PG, LR, 0);
    fill(src, 2 * PG, 3);

    /* FAST_REG by descriptor over page words, the second not present */
    words[0] = ofl_sim_pa(src) | OFL_TPT_ATT_PRESENT;
    words[1] = 0;
    CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 900, words, 2));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &fr));
    qr_wr(&wr, OFL_QP_OP_FAST_REG, 1, &sge, NULL, 0, 0);
    wr.stag = fr;
    wr.reg.va = 0x200000;
    wr.reg.len = 2 * PG;
    wr.reg.att_base = 900;
    wr.reg.att_count = 2;
    wr.reg.page_shift = 12;
    wr.reg.att_kind = OFL_TPT_ATT_DIRECT;
    wr.reg.access = LR;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_FAST_REG);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(&r->a), 0);
    /* a Send from it: the source waits on the page */
    CHECK_OK(qr_post_recv(&r->b, 9, dst, PG, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, NULL, 0, 0);
    sge.addr = 0x200000 + PG - 100;
    sge.len = 300;
    sge.stag = fr;
    wr.sge = &sge;
    wr.num_sge = 1;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_ERR(qr_process(&r->a, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_SQ);
    CHECK_EQ(r->a.qp.fault.stag, fr);
    CHECK_EQ(r->a.qp.fault.va, 0x200000 + PG);
    CHECK_EQ(notifies(&r->a), 1);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, fr, 0x200000 + PG,
                              ofl_sim_pa(src + PG)));
    qr_pump(r, 2);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
    CHECK_EQ(c[0].byte_len, 300);
    CHECK(memcmp(dst, src + PG - 100, 300) == 0);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);

    /* Bind a window over the region's second page, not present */
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lwb, va(wbuf) + PG));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_WINDOW, 7, OFL_TPT_F_TYPE2,
                           &mw));
    qr_wr(&wr, OFL_QP_OP_BIND, 4, &sge, NULL, 0, 0);
    wr.stag = mw;
    wr.bind.region_stag = lwb;
    wr.bind.va = va(wbuf + 96);
    wr.bind.len = 2 * PG - 96;
    wr.bind.access = RW;
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 3));
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_BIND);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    bound = c[0].stag;
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(&r->a), 1); /* the Send's, no new one */
    /* a Write through the window: it waits at the page */
    fill(bsrc, 2 * PG, 13);
    qr_wr(&wr, OFL_QP_OP_WRITE, 5, &sge, bsrc, 5000, lbs);
    wr.remote_stag = bound;
    wr.remote_to = va(wbuf + 96);
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_process(&r->b, 4));
    CHECK_ERR(feed(&r->b), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_RX);
    CHECK_EQ(r->a.qp.fault.stag, bound);
    fva = r->a.qp.fault.va;
    CHECK(fva >= va(wbuf) + PG && fva < va(wbuf) + 2 * PG);
    CHECK_EQ(notifies(&r->a), 2);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, bound, fva,
                              ofl_sim_pa(wbuf + PG)));
    CHECK_OK(feed(&r->b));
    CHECK(memcmp(wbuf + 96, bsrc, 5000) == 0);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    qr_pump(r, 5);
    CHECK_EQ(qr_poll(&r->b, true, c, 8), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    qr_free(r);
}

OFL_SUITE(qp_fault)
{
    test_send_from();
    test_recv_into();
    test_recv_sges();
    test_write_into();
    test_read_from();
    test_read_into(OFL_QP_READ_SINK_LOCAL);
    test_read_into(OFL_QP_READ_SINK_TAGGED);
    test_atomic_result();
    test_atomic_target();
    test_new_give_up();
    test_map_refusals();
    test_never_mapped();
    test_attr();
    test_reg_bind();
}
