/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * qp: one pass over the payload (offload.h, "One pass over the payload")
 * and transmit by reference (ofl_qp_transmitv_fn). The same scripted
 * traffic runs three times: on a rig whose sim ports have the fused copy
 * + CRC32c hooks (ofl_sim_set_fused), on one whose sender transmits by
 * reference (qr_opts.txref, sometimes with a gather list too short for a
 * payload, which then goes by copy), and on one with neither; every
 * observable answer must be the same: the error of each delivery, both
 * QPs' states, errors, Terminate causes and counters, every CQE, every
 * TPT entry of the receiver, the bytes that reach the receiver's buffers
 * (except where the answer is an MPA CRC error: a fused receiver may have
 * placed a Write's payload in its authorised buffer before comparing).
 * The scripts mix good and refused Writes (bad STag, bounds, rights, a
 * one-touch window touched twice), Sends and Reads, one corrupted wire
 * byte in most runs, and whole or cut segments. A speed build must take
 * the fused ways (counted by the sim port); a size build has none.
 */
#include "test.h"
#include "support/qp_rig.h"

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define RR OFL_TPT_REMOTE_READ
#define BW OFL_TPT_BIND_WINDOW

#define FZ_RUNS 200
#define FZ_OPS 4
#define FZ_SRC 40000u
#define FZ_DST 24000u
#define FZ_CQES 64

enum fz_mode { FZ_PLAIN, FZ_FUSED, FZ_REF };

static uint32_t fz_state;
static uint32_t fz_rnd(void)
{
    fz_state = fz_state * 1664525u + 1013904223u;
    return fz_state >> 8;
}

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* What one run shows from outside the library. */
struct fz_out {
    int deliver_err[FZ_OPS + 2];
    uint8_t state_a, state_b;
    uint16_t err_a, err_b;
    struct ofl_term_cause term_a, term_b;
    uint64_t rx_fpdus, rx_bytes, tx_fpdus;
    uint32_t ncqe_a, ncqe_b;
    struct ofl_cqe cqe_a[FZ_CQES], cqe_b[FZ_CQES];
    uint8_t tpt_state[QR_TPT];
    uint8_t tpt_flags[QR_TPT];
    bool crc_error;
    unsigned long fused_reads, fused_writes; /* not compared */
    unsigned long txv_calls, txv_pieces;     /* not compared */
};

struct fz_bufs {
    uint8_t *src, *dst, *rbuf, *rsrc;
};

static void fz_fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131u + seed * 7u + (i >> 8));
}

/* Sometimes cuts the work request's one data segment into two or three
 * (sge has room for three): each is a piece of its own, by copy or by
 * reference. */
static void fz_split(struct ofl_qp_wr *wr, struct ofl_qp_sge *sge)
{
    uint32_t k = 1 + fz_rnd() % 3, len = sge[0].len, i, at = 0;

    if (wr->num_sge != 1 || len < k)
        return;
    for (i = 0; i < k; i++) {
        uint32_t n = i + 1 == k ? len - at : len / k;

        sge[i].addr = sge[0].addr + at;
        sge[i].stag = sge[0].stag;
        sge[i].len = n;
        at += n;
    }
    wr->num_sge = k;
}

/* One script (seed) on one rig: FZ_FUSED both sim ports have the fused
 * hooks; FZ_REF the sender transmits by reference (its sim port has the
 * hooks, for dma_crc32c). *placed: the receiver's Write buffer after the
 * run (FZ_DST bytes). */
static struct qr_rig *fz_run(uint32_t seed, enum fz_mode mode,
                             struct fz_out *out, uint8_t *placed)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct fz_bufs b;
    uint32_t ls, ld, lro, lwin, lrb, lrs, i, nops, n = 0;
    long corrupt = -1;

    memset(out, 0, sizeof(*out));
    memset(&o, 0, sizeof(o));
    fz_state = seed * 2654435761u + 1u;
    o.crc = true;
    o.emss = (fz_rnd() & 1) ? 1460 : 9000;
    /* mostly whole FPDUs per segment (the in-place delivery the fused
     * receive needs); sometimes cut, where it must not apply */
    o.mss = (fz_rnd() % 5 == 0) ? 700 : 0;
    o.txref = mode == FZ_REF;
    o.txref_cap = 3 + fz_rnd() % QR_TXREF; /* 3: one payload piece */
    if (o.txref_cap > QR_TXREF)
        o.txref_cap = QR_TXREF;
    o.fused_a = mode != FZ_PLAIN;
    o.fused_b = mode == FZ_FUSED;
    r = qr_new(&o);
    if (r == NULL)
        return NULL;
    b.src = qr_alloc(&r->a, FZ_SRC, true);
    b.rsrc = qr_alloc(&r->a, 4096, true);
    b.dst = qr_alloc(&r->b, FZ_DST, true);
    b.rbuf = qr_alloc(&r->b, 8192, true);
    fz_fill(b.src, FZ_SRC, seed);
    ls = qr_reg(&r->a, b.src, FZ_SRC, LR, 0);
    lrs = qr_reg(&r->a, b.rsrc, 4096, LW | LR | RR, 0);
    ld = qr_reg(&r->b, b.dst, FZ_DST, LW | RW | BW | RR, 0);
    lro = qr_reg(&r->b, b.dst, FZ_DST, LW | RR, 0); /* no remote write */
    lwin = qr_window(&r->b, ld, b.dst, FZ_DST / 2, RW, OFL_TPT_F_ONE_TOUCH,
                     false);
    lrb = qr_reg(&r->b, b.rbuf, 8192, LW | LR, 0);
    if (ls == 0 || ld == 0 || lro == 0 || lwin == 0 || lrb == 0 || lrs == 0) {
        qr_free(r);
        return NULL;
    }
    nops = 1 + fz_rnd() % FZ_OPS;
    for (i = 0; i < nops; i++) {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge[3];
        uint32_t kind = fz_rnd() % 10, len = 1 + fz_rnd() % 12000;
        uint32_t off = fz_rnd() % FZ_DST, stag = ld;

        if (kind <= 4) { /* a Write: mostly good */
            if (len > FZ_DST - off)
                off = FZ_DST - len;
        } else if (kind == 5) { /* beyond the region */
            off = FZ_DST - (len > 1 ? len / 2 : 0);
        } else if (kind == 6) { /* no remote write right */
            stag = lro;
            off %= FZ_DST - len > 0 ? FZ_DST - len : 1;
        } else if (kind == 7) { /* the one-touch window */
            stag = lwin;
            len = 1 + len % (FZ_DST / 2);
            off = 0;
        } else if (kind == 8) { /* a Send into a posted receive */
            len = 1 + len % 8192;
            (void)qr_post_recv(&r->b, 100 + i, b.rbuf, 8192, lrb);
            qr_wr(&wr, OFL_QP_OP_SEND, 10 + i, sge, b.src, len, ls);
            fz_split(&wr, sge);
            (void)qr_post_send(&r->a, &wr);
            continue;
        } else { /* a Read of b's buffer into a's */
            len = 1 + len % 4096;
            qr_wr(&wr, OFL_QP_OP_READ, 10 + i, sge, b.rsrc, len, lrs);
            wr.remote_stag = ld;
            wr.remote_to = va(b.dst);
            (void)qr_post_send(&r->a, &wr);
            continue;
        }
        if (fz_rnd() % 8 == 0)
            stag ^= 0x100; /* an STag of no entry */
        qr_wr(&wr, OFL_QP_OP_WRITE, 10 + i, sge, b.src + (fz_rnd() % 1000),
              len, ls);
        fz_split(&wr, sge);
        wr.remote_stag = stag;
        wr.remote_to = va(b.dst) + off;
        (void)qr_post_send(&r->a, &wr);
    }
    (void)qr_process(&r->a, 0);
    if (fz_rnd() % 4 != 0 && r->ab.len != 0)
        corrupt = (long)(fz_rnd() % r->ab.len);
    r->ab.corrupt_at = corrupt;
    out->deliver_err[n++] = qr_deliver(r, &r->a);
    /* the answers (Read Responses, a Terminate) and what follows */
    out->deliver_err[n++] = (int)qr_process(&r->b, 0);
    out->deliver_err[n++] = qr_deliver(r, &r->b);
    (void)qr_pump(r, 0);
    out->state_a = r->a.qp.state;
    out->state_b = r->b.qp.state;
    out->err_a = r->a.qp.err;
    out->err_b = r->b.qp.err;
    out->term_a = r->a.qp.term_tx;
    out->term_b = r->b.qp.term_tx;
    out->rx_fpdus = r->b.qp.stats.rx_fpdus;
    out->rx_bytes = r->b.qp.stats.rx_bytes;
    out->tx_fpdus = r->a.qp.stats.tx_fpdus;
    out->ncqe_a = qr_poll(&r->a, true, out->cqe_a, FZ_CQES);
    out->ncqe_b = qr_poll(&r->b, false, out->cqe_b, FZ_CQES);
    for (i = 0; i < QR_TPT; i++) {
        out->tpt_state[i] = r->b.tpt.entry[i].state;
        out->tpt_flags[i] = r->b.tpt.entry[i].flags;
    }
    out->crc_error = r->b.qp.err == OFL_E_MPA_CRC;
    out->fused_reads = r->a.sim.fused_reads;
    out->fused_writes = r->b.sim.fused_writes;
    out->txv_calls = r->a.txv_calls;
    out->txv_pieces = r->a.txv_pieces;
    memcpy(placed, b.dst, FZ_DST);
    return r;
}

static bool fz_same(const struct fz_out *x, const struct fz_out *y)
{
    uint32_t i;

    if (memcmp(x->deliver_err, y->deliver_err, sizeof(x->deliver_err)) ||
        x->state_a != y->state_a || x->state_b != y->state_b ||
        x->err_a != y->err_a || x->err_b != y->err_b ||
        memcmp(&x->term_a, &y->term_a, sizeof(x->term_a)) ||
        memcmp(&x->term_b, &y->term_b, sizeof(x->term_b)) ||
        x->rx_fpdus != y->rx_fpdus || x->rx_bytes != y->rx_bytes ||
        x->tx_fpdus != y->tx_fpdus || x->ncqe_a != y->ncqe_a ||
        x->ncqe_b != y->ncqe_b ||
        memcmp(x->tpt_state, y->tpt_state, sizeof(x->tpt_state)) ||
        memcmp(x->tpt_flags, y->tpt_flags, sizeof(x->tpt_flags)) ||
        x->crc_error != y->crc_error)
        return false;
    for (i = 0; i < x->ncqe_a; i++)
        if (memcmp(&x->cqe_a[i], &y->cqe_a[i], sizeof(x->cqe_a[i])))
            return false;
    for (i = 0; i < x->ncqe_b; i++)
        if (memcmp(&x->cqe_b[i], &y->cqe_b[i], sizeof(x->cqe_b[i])))
            return false;
    return true;
}

static void test_fused_differential(void)
{
    static uint8_t placed_f[FZ_DST], placed_p[FZ_DST], placed_r[FZ_DST];
    static struct fz_out f, p, x;
    unsigned long differ = 0, mem_differ = 0, crc_runs = 0, crc_placed = 0;
    unsigned long fused_reads = 0, fused_writes = 0, ran = 0;
    unsigned long ref_differ = 0, ref_mem_differ = 0, ref_pieces = 0;
    unsigned long ref_copied = 0;
    uint32_t seed;

    for (seed = 1; seed <= FZ_RUNS; seed++) {
        struct qr_rig *rf = fz_run(seed, FZ_FUSED, &f, placed_f);
        struct qr_rig *rp = fz_run(seed, FZ_PLAIN, &p, placed_p);
        struct qr_rig *rr = fz_run(seed, FZ_REF, &x, placed_r);

        if (rf == NULL || rp == NULL || rr == NULL) {
            CHECK(rf != NULL && rp != NULL && rr != NULL);
            qr_free(rf);
            qr_free(rp);
            qr_free(rr);
            return;
        }
        ran++;
        if (!fz_same(&f, &p)) {
            if (differ++ < 3)
                printf("  fused run %u differs: state b %u/%u err b %s/%s\n",
                       (unsigned)seed, f.state_b, p.state_b,
                       ofl_strerror((enum ofl_err)f.err_b),
                       ofl_strerror((enum ofl_err)p.err_b));
        }
        /* by reference: the same answers and the same bytes placed, a
         * wrong CRC included (the receiver compares before placing) */
        if (!fz_same(&x, &p)) {
            if (ref_differ++ < 3)
                printf("  by-reference run %u differs: state b %u/%u err b %s/%s\n",
                       (unsigned)seed, x.state_b, p.state_b,
                       ofl_strerror((enum ofl_err)x.err_b),
                       ofl_strerror((enum ofl_err)p.err_b));
        }
        if (memcmp(placed_r, placed_p, FZ_DST) != 0)
            ref_mem_differ++;
        ref_pieces += x.txv_pieces;
        if (x.fused_reads != 0)
            ref_copied++; /* a payload the gather list could not hold */
        CHECK_EQ(rr->a.sim.violations, 0);
        CHECK_EQ(rr->a.txv_bad, 0);
        qr_free(rr);
        if (p.crc_error) {
            crc_runs++;
            if (memcmp(placed_f, placed_p, FZ_DST) != 0)
                crc_placed++; /* placed before the comparison: allowed */
        } else if (memcmp(placed_f, placed_p, FZ_DST) != 0) {
            mem_differ++;
        }
        CHECK_EQ(rf->b.sim.violations, 0);
        CHECK_EQ(rp->b.sim.violations, 0);
        fused_reads += f.fused_reads;
        fused_writes += f.fused_writes;
        qr_free(rf);
        qr_free(rp);
    }
    CHECK_EQ(ran, FZ_RUNS);
    CHECK_EQ(differ, 0);
    CHECK_EQ(mem_differ, 0);
    CHECK_EQ(ref_differ, 0);
    CHECK_EQ(ref_mem_differ, 0);
    CHECK(crc_runs > 10); /* the scripts reach the CRC error often */
#if OFL_TEST_FAST_PATH
    CHECK(fused_reads > 0);
    CHECK(fused_writes > 0);
    CHECK(crc_placed > 0); /* the fused receive compared after placing */
    CHECK(ref_pieces > 0); /* payload pieces went by reference */
    CHECK(ref_copied > 0); /* and some by copy, past txref_cap */
#else
    CHECK_EQ(fused_reads + fused_writes + crc_placed + ref_pieces, 0);
#endif
}

/* A rig of o for one Write: src (len bytes, filled, local read) on a,
 * dst (dst_len bytes, access_b) on b. false (counted) when it fails. */
struct fz_one {
    struct qr_rig *r;
    uint8_t *src, *dst;
    uint32_t ls, ld;
};

static bool fz_one_rig(const struct qr_opts *o, uint32_t len, uint32_t dst_len,
                       uint8_t access_b, struct fz_one *w)
{
    w->r = qr_new(o);
    CHECK(w->r != NULL);
    if (w->r == NULL)
        return false;
    w->src = qr_alloc(&w->r->a, len, true);
    w->dst = qr_alloc(&w->r->b, dst_len, true);
    fz_fill(w->src, len, len);
    w->ls = qr_reg(&w->r->a, w->src, len, LR, 0);
    w->ld = qr_reg(&w->r->b, w->dst, dst_len, access_b, 0);
    return true;
}

/* Posts a Write of len bytes of w's src through stag at to. */
static enum ofl_err fz_one_write(struct fz_one *w, uint32_t len,
                                 uint32_t stag, uint64_t to)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, w->src, len, w->ls);
    wr.remote_stag = stag;
    wr.remote_to = to;
    return qr_post_send(&w->r->a, &wr);
}

/* One Write of 4 KiB whole: each side's payload moves once, through the
 * fused hook; a bad CRC in its payload is still the MPA CRC error
 * (Terminate 2/0/2, no header), with the bytes in the authorised buffer
 * only and the region's use not noted. */
static void test_fused_write(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct fz_one w;
    uint8_t *guard;
    struct ofl_rdmap_term t;
    int bad;

    for (bad = 0; bad < 2; bad++) {
        memset(&o, 0, sizeof(o));
        o.crc = true;
        o.emss = 9000;
        o.fused_a = o.fused_b = true;
        if (!fz_one_rig(&o, 4096, 4096, LW | RW, &w))
            return;
        r = w.r;
        guard = qr_alloc(&r->b, 4096, true);
        CHECK_OK(fz_one_write(&w, 4096, w.ld, va(w.dst)));
        CHECK_OK(qr_process(&r->a, 0));
        CHECK_EQ(r->a.sim.fused_reads, OFL_TEST_FAST_PATH ? 1 : 0);
        CHECK_EQ(r->a.sim.dma_reads >= 1, 1);
        if (bad)
            r->ab.corrupt_at = 2 + 14 + 1000; /* a payload byte */
        if (bad) {
            CHECK_ERR(qr_deliver(r, &r->a), OFL_E_MPA_CRC);
            CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
            CHECK_EQ(r->b.qp.err, OFL_E_MPA_CRC);
            CHECK(qr_sent_term(r, &r->b, &t));
            CHECK_EQ(t.cause.layer, 2);
            CHECK_EQ(t.cause.etype, 0);
            CHECK_EQ(t.cause.ecode, 0x02);
            CHECK_EQ(t.hdrct, 0);
            CHECK_EQ(r->b.qp.stats.rx_fpdus, 0);
            /* placed (fused) or not (plain): only inside the buffer */
            CHECK(ofl_test_zero(guard, 4096));
            CHECK_EQ(r->b.sim.violations, 0);
        } else {
            CHECK_OK(qr_deliver(r, &r->a));
            CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
            CHECK(memcmp(w.dst, w.src, 4096) == 0);
            CHECK_EQ(r->b.qp.stats.rx_fpdus, 1);
        }
        CHECK_EQ(r->b.sim.fused_writes, OFL_TEST_FAST_PATH ? 1 : 0);
        CHECK_EQ(r->b.qp.rx_defer == NULL, 1);
        qr_free(r);
    }
}

/*
 * A deferred CRC is compared before anything else is reported or held: a
 * second Write to a one-touch window (spent by the first: an invalid
 * STag) and a Write that meets a page not present under OFL_QP_FAULT_WAIT
 * (the FPDU would be held for a retry), each with a wrong CRC, end in the
 * MPA CRC error with nothing held, fused or not.
 */
static void test_fused_settle(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct fz_one w;
    uint32_t win;
    struct ofl_tpt_info info;
    int fused, bad;

    for (fused = 0; fused < 2; fused++) {
        for (bad = 0; bad < 2; bad++) {
            /* the one-touch window, touched twice */
            memset(&o, 0, sizeof(o));
            o.crc = true;
            o.fused_b = fused != 0;
            if (!fz_one_rig(&o, 4096, 4096, LW | RW | BW, &w))
                return;
            r = w.r;
            win = qr_window(&r->b, w.ld, w.dst, 4096, RW,
                            OFL_TPT_F_ONE_TOUCH, false);
            CHECK_OK(fz_one_write(&w, 1000, win, va(w.dst)));
            CHECK_OK(qr_process(&r->a, 0));
            CHECK_OK(qr_deliver(r, &r->a));
            CHECK_OK(fz_one_write(&w, 1000, win, va(w.dst)));
            CHECK_OK(qr_process(&r->a, 0));
            if (bad)
                r->ab.corrupt_at = 2 + 14 + 50;
            (void)qr_deliver(r, &r->a);
            CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
            CHECK_EQ(r->b.qp.err, bad ? OFL_E_MPA_CRC : OFL_E_TPT_NOT_VALID);
            CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
            CHECK_EQ(info.state, OFL_TPT_INVALID); /* spent by the first */
            CHECK_EQ(r->b.sim.fused_writes,
                     (unsigned long)(fused && OFL_TEST_FAST_PATH));
            qr_free(r);

            /* a page not present under FAULT_WAIT */
            memset(&o, 0, sizeof(o));
            o.crc = true;
            o.emss = 9000; /* the Write in one FPDU */
            o.fault_wait = 1;
            o.fused_b = fused != 0;
            if (!fz_one_rig(&o, 4096, 8192, LW | RW, &w))
                return;
            r = w.r;
            CHECK_OK(ofl_tpt_unmap_page(&r->b.tpt, w.ld, va(w.dst) + 4096));
            CHECK_OK(fz_one_write(&w, 4096, w.ld, va(w.dst) + 2048));
            CHECK_OK(qr_process(&r->a, 0));
            if (bad)
                r->ab.corrupt_at = 2 + 14 + 3000;
            CHECK_ERR(qr_deliver(r, &r->a),
                      bad ? OFL_E_MPA_CRC : OFL_E_TPT_PAGE_FAULT);
            CHECK_EQ(r->b.qp.state, bad ? OFL_QP_TERMINATE : OFL_QP_RTS);
            CHECK_EQ(r->b.qp.fault.rx_held, bad ? 0 : 1);
            /* held and raised only for a right CRC */
            CHECK_EQ((r->b.qp.events & OFL_QP_EVT_PAGE_FAULT) != 0, !bad);
            CHECK(ofl_test_zero(w.dst, 8192)); /* the fault: nothing placed */
            CHECK_EQ(r->b.qp.rx_defer == NULL, 1);
            qr_free(r);
        }
    }
}

/*
 * Transmit by reference's edges: ofl_qp_create refuses transmitv without
 * a gather list of three entries (a speed build; a size build ignores
 * it); a refused transmitv is a refused transmit (nothing moved, sent
 * again later); a failed dma_crc32c fails the WQE as a failed DMA read
 * does by copy.
 */
static void test_txref_edges(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    static struct ofl_qp q; /* large: off the stack (kernel frames) */
    struct ofl_qp_attr at;
    struct fz_one w;
    uint32_t pos;
    struct ofl_cqe c[2];
    int ref;
    uint8_t status[2] = {0, 0};

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.txref = true;
    r = qr_new(&o);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    at = r->a.attr;
    at.txref = NULL;
    CHECK_ERR(ofl_qp_create(&q, &at, &r->a.qmem),
              OFL_TEST_FAST_PATH ? OFL_E_ARG : OFL_OK);
    at.txref = r->a.txref;
    at.txref_cap = 2;
    CHECK_ERR(ofl_qp_create(&q, &at, &r->a.qmem),
              OFL_TEST_FAST_PATH ? OFL_E_ARG : OFL_OK);
    at.txref_cap = 3;
    CHECK_OK(ofl_qp_create(&q, &at, &r->a.qmem));
    qr_free(r);

    /* refused, then taken */
    o.fused_a = true;
    if (!fz_one_rig(&o, 3000, 3000, LW | RW, &w))
        return;
    r = w.r;
    CHECK_OK(fz_one_write(&w, 3000, w.ld, va(w.dst)));
    pos = r->a.qp.tx.pos;
    r->a.refuse = 1;
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->a.qp.tx.pos, pos);
    CHECK_EQ(r->a.qp.stats.tx_blocked, 1);
    CHECK_EQ(r->ab.len, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK(memcmp(w.dst, w.src, 3000) == 0);
    CHECK_EQ(r->a.txv_pieces > 0, OFL_TEST_FAST_PATH);
    CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    qr_free(r);

    /* hooks set after the stream was established are not looked at
     * (qp_paths_choose ran at establish): by copy, plain */
    o.fused_a = false;
    o.txref = false;
    if (!fz_one_rig(&o, 3000, 3000, LW | RW, &w))
        return;
    r = w.r;
    ofl_sim_set_fused(&r->a.sim, true);
    ofl_sim_set_fused(&r->b.sim, true);
    CHECK_OK(fz_one_write(&w, 3000, w.ld, va(w.dst)));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_OK(qr_deliver(r, &r->a));
    CHECK(memcmp(w.dst, w.src, 3000) == 0);
    CHECK_EQ(r->a.sim.fused_reads + r->b.sim.fused_writes, 0);
    qr_free(r);

    /* the port fails the payload's first DMA: by reference (dma_crc32c)
     * and by copy (dma_read), the same completion */
    for (ref = 0; ref < 2; ref++) {
        o.txref = ref != 0;
        o.fused_a = ref != 0;
        if (!fz_one_rig(&o, 3000, 3000, LW | RW, &w))
            return;
        r = w.r;
        CHECK_OK(fz_one_write(&w, 3000, w.ld, va(w.dst)));
        r->a.sim.fail_dma_countdown = 1;
        (void)qr_process(&r->a, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
        status[ref] = c[0].status;
        CHECK(c[0].status != OFL_WC_SUCCESS);
        CHECK_EQ(r->a.sim.crc_reads, 0); /* failed: not counted */
        CHECK_EQ(r->ab.len, 0);          /* nothing went out */
        qr_free(r);
    }
    CHECK_EQ(status[0], status[1]);
}

OFL_SUITE(qp_fused)
{
    test_txref_edges();
    test_fused_write();
    test_fused_settle();
    test_fused_differential();
}
