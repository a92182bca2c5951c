/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp_rig: two engines over a simulated TCP wire (see qp_rig.h). */
#include "qp_rig.h"

#include <stdlib.h>
#include <string.h>

/* ---- the wire ------------------------------------------------------------ */

static int qr_transmit(void *ctx, const uint8_t *data, uint32_t len,
                       uint32_t flags)
{
    struct qr_side *s = ctx;

    s->tx_calls++;
    if (s->refuse > 0) {
        s->refuse--;
        return 1;
    }
    if (flags & OFL_QP_TX_ABORT) {
        s->aborts++;
        s->out->aborted = 1;
        return 0;
    }
    if (s->direct && len != 0) {
        struct ofl_qp_seg seg;

        memset(&seg, 0, sizeof(seg));
        seg.seq = s->direct_seq;
        seg.data = data;
        seg.len = len;
        s->direct_seq += len;
        (void)ofl_qp_input(&s->peer->qp, &seg);
    } else if (len != 0) {
        if (s->out->len + len > QR_WIRE)
            return 1; /* the wire is full: try again later */
        if (s->lent != NULL && data == s->lent) {
            s->in_place++; /* built where it goes: no copy */
        } else {
            memmove(s->out->buf + s->out->len, data, len);
            s->copied++;
        }
        s->lent = NULL;
        s->out->len += len;
        if (s->out->nchunk < QR_CHUNKS)
            s->out->chunk[s->out->nchunk++] = s->out->len;
    }
    if (flags & OFL_QP_TX_CLOSE) {
        s->closes++;
        s->out->closed = 1;
    }
    return 0;
}

/* Transmit by reference (qr_opts.txref): the pieces joined into one frame
 * for qr_transmit; a payload piece is read as the sim port reads, through
 * the side's allow-list: one outside it is recorded as a violation (as
 * the sim port records one) and the frame refused. */
static int qr_transmitv(void *ctx, const struct ofl_qp_txref *ref,
                        uint32_t count, uint32_t flags)
{
    struct qr_side *s = ctx;
    uint32_t i, len = 0;

    s->txv_calls++;
    if (count < 3 || count > s->attr.txref_cap || ref != s->attr.txref ||
        ref[0].data == NULL || ref[count - 1].data == NULL) {
        s->txv_bad++; /* not the list the engine was given, as it says */
        return 1;
    }
    for (i = 0; i < count; i++) {
        if (ref[i].len > QR_TX_MAX - len)
            return 1;
        if (ref[i].data != NULL) {
            memcpy(s->vbuf + len, ref[i].data, ref[i].len);
        } else if (ofl_sim_allowed(&s->sim, ref[i].pa, ref[i].len,
                                   OFL_SIM_READ)) {
            memcpy(s->vbuf + len, ofl_sim_ptr(ref[i].pa), ref[i].len);
            s->txv_pieces++;
        } else {
            s->sim.violations++;
            s->sim.last_violation_pa = ref[i].pa;
            s->sim.last_violation_len = ref[i].len;
            s->sim.last_violation_write = false;
            return 1;
        }
        len += ref[i].len;
    }
    return qr_transmit(ctx, s->vbuf, len, flags);
}

/* The reservation hook: the wire's free space, where the frame goes. */
static uint8_t *qr_reserve(void *ctx, uint32_t len)
{
    struct qr_side *s = ctx;

    s->reserves++;
    s->lent = NULL;
    if (s->lend_refuse > 0) {
        s->lend_refuse--;
        return NULL;
    }
    if (s->out->len + len > QR_WIRE)
        return NULL;
    s->lent = s->out->buf + s->out->len;
    return s->lent;
}

/* Hands stream bytes [off, off + n) of w (after its faults) to qp. */
static enum ofl_err qr_segment(struct ofl_qp *qp, struct qr_wire *w,
                               const uint8_t *data, uint32_t seq, uint32_t n)
{
    struct ofl_qp_seg seg;
    enum ofl_err err;

    memset(&seg, 0, sizeof(seg));
    seg.seq = seq;
    seg.data = data;
    seg.len = n;
    w->delivered++;
    err = ofl_qp_input(qp, &seg);
    if (err == OFL_OK && w->duplicate) {
        w->delivered++;
        err = ofl_qp_input(qp, &seg);
    }
    if (w->after_segment != NULL)
        w->after_segment(w->after_ctx);
    return err;
}

/* The length of the segment that starts at stream byte off: to the end of
 * its transmission (when the wire still knows the boundaries and does
 * not coalesce), at most mss. */
static uint32_t qr_seg_len(const struct qr_wire *w, uint32_t off, uint32_t len)
{
    uint32_t end = len, i;

    if (!w->cut_used && !w->coalesce)
        for (i = 0; i < w->nchunk; i++)
            if (w->chunk[i] > off) {
                end = w->chunk[i] < len ? w->chunk[i] : len;
                break;
            }
    return end - off < w->mss ? end - off : w->mss;
}

enum ofl_err qr_deliver(struct qr_rig *r, struct qr_side *from)
{
    struct qr_wire *w = from->out;
    struct ofl_qp *qp = &from->peer->qp;
    enum ofl_err first = OFL_OK, err;
    uint32_t off = 0, len = w->len;
    uint8_t *buf = w->buf;

    (void)r;
    if (len == 0)
        return OFL_OK;
    /* Faults that change the bytes: a flipped bit, a cut. */
    if (w->corrupt_at >= 0 && (uint32_t)w->corrupt_at < len) {
        buf[w->corrupt_at] ^= 0x10;
        w->corrupt_at = -1;
    }
    if (w->cut_at >= 0 && (uint32_t)w->cut_at < len) {
        uint32_t at = (uint32_t)w->cut_at;
        uint32_t k = w->cut_len < len - at ? w->cut_len : len - at;

        memmove(buf + at, buf + at + k, len - at - k);
        len -= k;
        w->cut_at = -1;
        w->cut_used = 1; /* the boundaries no longer hold */
    }
    while (off < len) {
        uint32_t n = qr_seg_len(w, off, len);
        uint32_t n2 = 0;

        if (w->reorder && off + n < len) {
            n2 = qr_seg_len(w, off + n, len);
            /* The later segment first (ahead of a hole), then both. */
            err = qr_segment(qp, w, buf + off + n, w->seq + off + n, n2);
            if (first == OFL_OK)
                first = err;
        }
        err = qr_segment(qp, w, buf + off, w->seq + off, n);
        if (first == OFL_OK)
            first = err;
        if (n2 != 0) {
            err = qr_segment(qp, w, buf + off + n, w->seq + off + n, n2);
            if (first == OFL_OK)
                first = err;
        }
        off += n + n2;
    }
    w->seq += len;
    w->len = 0;
    w->nchunk = 0;
    w->cut_used = 0;
    return first;
}

/* ---- setup ------------------------------------------------------------------- */

uint8_t *qr_alloc(struct qr_side *s, uint32_t len, bool align_page)
{
    uint32_t at = (s->mem_used + (align_page ? 4095u : 63u)) &
                  ~(align_page ? 4095u : 63u);
    uint8_t *p;

    if (at > QR_MEM || len > QR_MEM - at)
        return NULL;
    p = s->mem + at;
    memset(p, 0, len);
    s->mem_used = at + len;
    return p;
}

uint32_t qr_stag_round(struct qr_side *s, uint8_t type, uint32_t pd)
{
    uint32_t stag = 0, i;

    for (i = 0; i < 255; i++)
        if (ofl_tpt_alloc(&s->tpt, (enum ofl_tpt_type)type, pd, 0, &stag) !=
                OFL_OK ||
            ofl_tpt_dealloc(&s->tpt, stag, pd) != OFL_OK)
            return 0;
    if (ofl_tpt_alloc(&s->tpt, (enum ofl_tpt_type)type, pd, 0, &stag) !=
        OFL_OK)
        return 0;
    return stag;
}

uint32_t qr_reg(struct qr_side *s, void *p, uint32_t len, uint8_t access,
                uint8_t flags)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    uint32_t stag = 0, pages;

    memset(&d, 0, sizeof(d));
    d.va = (uint64_t)(uintptr_t)p;
    d.page_shift = 12;
    d.access = access;
    d.flags = flags;
    d.att_base = s->att_next;
    b.pa = ofl_sim_pa(p);
    b.len = len;
    pages = (uint32_t)(((b.pa + len - 1) >> 12) - (b.pa >> 12) + 1);
    if (ofl_tpt_reg_phys(&s->tpt, s->attr.pd, &d, &b, 1, &stag) != OFL_OK)
        return 0;
    s->att_next += pages;
    return stag;
}

uint32_t qr_window(struct qr_side *s, uint32_t region, void *p, uint32_t len,
                   uint8_t access, uint8_t flags, bool type2)
{
    uint32_t w, bound = 0;

    if (ofl_tpt_alloc(&s->tpt, OFL_TPT_WINDOW, s->attr.pd,
                      type2 ? OFL_TPT_F_TYPE2 : 0, &w) != OFL_OK)
        return 0;
    if (ofl_tpt_bind(&s->tpt, w, region, s->attr.pd, s->attr.qpn,
                     (uint64_t)(uintptr_t)p, len, access, flags,
                     &bound) != OFL_OK)
        return 0;
    return bound;
}

/* qr_opts.barrier: records the call (the sim port is the side's first
 * member, so its context is the side). */
static void qr_barrier(void *ctx, enum ofl_barrier kind)
{
    struct qr_side *s = ctx;

    if (s->barriers < sizeof(s->barrier_kind))
        s->barrier_kind[s->barriers] = (uint8_t)kind;
    s->barriers++;
}

static int qr_side_init(struct qr_side *s, const struct qr_opts *o,
                        uint32_t qpn, struct qr_wire *out, struct qr_side *peer)
{
    ofl_sim_init(&s->sim);
    ofl_sim_set_fused(&s->sim, qpn == 1 ? o->fused_a : o->fused_b);
    s->sim.port.crc32c = qpn == 1 ? o->crc_a : o->crc_b;
    if (o->barrier)
        s->sim.port.barrier = qr_barrier;
    if (qpn == 1 ? o->no_dma_a : o->no_dma_b) {
        s->sim.port.dma_read = NULL;
        s->sim.port.dma_write = NULL;
    }
    /* The guard: DMA only into the arena (and the rings, read-only). */
    ofl_sim_allow(&s->sim, s->mem, sizeof(s->mem), OFL_SIM_RW);
    if (o->host_rings) {
        ofl_sim_allow(&s->sim, s->sq_ring, sizeof(s->sq_ring), OFL_SIM_READ);
        ofl_sim_allow(&s->sim, s->rq_ring, sizeof(s->rq_ring), OFL_SIM_READ);
    }
    if (ofl_tpt_init(&s->tpt, s->entry, QR_TPT, s->att, QR_ATT, &s->sim.port,
                     (enum ofl_tpt_policy)o->policy) != OFL_OK)
        return -1;
    if (ofl_cq_init(&s->scq, s->scqe, QR_CQ, &s->sim.port, 1) != OFL_OK ||
        ofl_cq_init(&s->rcq, s->rcqe, QR_CQ, &s->sim.port, 2) != OFL_OK)
        return -1;
    memset(&s->attr, 0, sizeof(s->attr));
    s->attr.qpn = qpn;
    s->attr.pd = 7;
    s->attr.service = o->service ? o->service : OFL_QP_SVC_IWARP;
    s->attr.sq_reg = o->sq_reg;
    s->attr.read_sink = o->read_sink;
    s->attr.fault_wait = o->fault_wait;
    s->attr.reg_option = o->reg_option ? o->reg_option : OFL_QP_REG_OPTION1;
    s->attr.ord = o->ord ? o->ord : 4;
    s->attr.ird = o->ird ? o->ird : QR_IRD;
    s->attr.event_vector = 3;
    s->attr.sq_db = 10;
    s->attr.rq_db = 11;
    s->attr.iscsi_max_data = 8192;
    s->attr.tpt = &s->tpt;
    s->attr.port = &s->sim.port;
    s->attr.send_cq = &s->scq;
    s->attr.recv_cq = &s->rcq;
    s->attr.transmit = qr_transmit;
    s->attr.transmit_ctx = s;
    if (o->tx_reserve && !o->direct)
        s->attr.tx_reserve = qr_reserve;
    if (o->txref) {
        s->vbuf = malloc(QR_TX_MAX);
        if (s->vbuf == NULL)
            return -1;
        s->attr.transmitv = qr_transmitv;
        s->attr.txref = s->txref;
        s->attr.txref_cap = o->txref_cap ? o->txref_cap : QR_TXREF;
        if (s->attr.txref_cap > QR_TXREF)
            return -1;
    }
    s->attr.tuple.transport = 6;
    s->attr.tuple.family = 4;
    s->attr.tuple.src_port = (uint16_t)(qpn == 1 ? 20002 : 20001);
    s->attr.tuple.dst_port = (uint16_t)(qpn == 1 ? 20001 : 20002);
    memset(&s->qmem, 0, sizeof(s->qmem));
    s->qmem.sq_ring = s->sq_ring;
    s->qmem.sq_ring_pa = ofl_sim_pa(s->sq_ring);
    s->qmem.sq_depth = QR_DEPTH;
    s->qmem.sq_max_sge = QR_SGE;
    s->qmem.rq_ring = s->rq_ring;
    s->qmem.rq_ring_pa = ofl_sim_pa(s->rq_ring);
    s->qmem.rq_depth = QR_DEPTH;
    s->qmem.rq_max_sge = QR_SGE;
    s->qmem.sq_host = o->host_rings;
    s->qmem.rq_host = o->host_rings;
    s->qmem.sq_track = s->track;
    s->qmem.sq_sge = s->sq_sge;
    s->qmem.rq_sge = s->rq_sge;
    s->qmem.irq = s->irq;
    s->qmem.ord_ring = s->ord_ring;
    s->qmem.tx_buf = s->tx_buf;
    s->qmem.tx_cap = o->tx_cap ? o->tx_cap : QR_TX;
    if (s->qmem.tx_cap > QR_TX_MAX)
        return -1;
    s->qmem.tx_stage = s->tx_stage;
    s->qmem.rx_buf = s->rx_buf;
    s->qmem.rx_cap = o->rx_cap ? o->rx_cap : QR_RX;
    if (o->no_markers_stage)
        s->qmem.tx_stage = NULL;
    s->qmem.ot_pending = s->ot;
    s->qmem.ot_cap = QR_OT;
    s->qmem.ooo = s->ooo;
    s->qmem.ooo_cap = QR_OOO;
    if (ofl_qp_create(&s->qp, &s->attr, &s->qmem) != OFL_OK)
        return -1;
    s->out = out;
    s->peer = peer;
    s->direct = o->direct;
    return ofl_qp_modify(&s->qp, OFL_QP_INIT) == OFL_OK ? 0 : -1;
}

static void qr_wire_init(struct qr_wire *w, uint8_t *buf, uint32_t seq,
                         uint32_t mss)
{
    memset(w, 0, sizeof(*w));
    w->buf = buf;
    w->seq = seq;
    w->mss = mss;
    w->corrupt_at = -1;
    w->cut_at = -1;
}

/* MPA negotiation between a (initiator) and b over byte buffers. */
static int qr_mpa(struct qr_rig *r, uint32_t *len_req, uint32_t *len_rep)
{
    struct ofl_mpa_hs ha, hb;
    struct ofl_mpa_cfg c;
    /* static: kernel stack frames (the rig is set up by one thread) */
    static uint8_t req[OFL_MPA_RR_MAX], rep[OFL_MPA_RR_MAX];
    size_t lq, lp, used;

    memset(&c, 0, sizeof(c));
    c.rev = 2;
    c.markers = r->o.markers;
    c.crc = r->o.crc;
    c.enhanced = true;
    c.ird = r->o.ird ? r->o.ird : QR_IRD; /* what each QP has (attr.ird) */
    c.ord = QR_ORD;
    if (ofl_mpa_hs_init(&ha, &c, true) != OFL_OK ||
        ofl_mpa_hs_init(&hb, &c, false) != OFL_OK ||
        ofl_mpa_hs_request(&ha, req, sizeof(req), &lq) != OFL_OK ||
        ofl_mpa_hs_recv(&hb, req, lq, &used) != OFL_OK ||
        ofl_mpa_hs_accept(&hb, rep, sizeof(rep), &lp) != OFL_OK ||
        ofl_mpa_hs_recv(&ha, rep, lp, &used) != OFL_OK ||
        ha.state != OFL_MPA_HS_DONE || hb.state != OFL_MPA_HS_DONE)
        return -1;
    r->pa = ha.params;
    r->pb = hb.params;
    *len_req = (uint32_t)lq;
    *len_rep = (uint32_t)lp;
    return 0;
}

struct qr_rig *qr_new(const struct qr_opts *o)
{
    /* Page-aligned, so that the arenas' pages are real pages. */
    size_t size = (sizeof(struct qr_rig) + 4095u) & ~(size_t)4095u;
    struct qr_rig *r = aligned_alloc(4096, size);
    uint8_t *wa, *wb;
    uint32_t lq = 0, lp = 0, emss, wnd;

    if (r == NULL)
        return NULL;
    memset(r, 0, sizeof(*r));
    wa = malloc(QR_WIRE);
    wb = malloc(QR_WIRE);
    if (wa == NULL || wb == NULL) {
        free(wa);
        free(wb);
        free(r);
        return NULL;
    }
    if (o != NULL)
        r->o = *o;
    emss = r->o.emss ? r->o.emss : 1460;
    wnd = r->o.wnd ? r->o.wnd : (1u << 20);
    if (r->o.service == OFL_QP_SVC_ISCSI) {
        qr_wire_init(&r->ab, wa, QR_ISN_AB, r->o.mss ? r->o.mss : emss);
        qr_wire_init(&r->ba, wb, QR_ISN_BA, r->o.mss ? r->o.mss : emss);
        r->a.direct_seq = r->ab.seq;
        if (qr_side_init(&r->a, &r->o, 1, &r->ab, &r->b) != 0 ||
            ofl_qp_establish(&r->a.qp, NULL, emss, QR_ISN_BA, wnd) != OFL_OK)
            goto fail;
        return r;
    }
    if (qr_mpa(r, &lq, &lp) != 0)
        goto fail;
    qr_wire_init(&r->ab, wa, QR_ISN_AB + lq, r->o.mss ? r->o.mss : emss);
    qr_wire_init(&r->ba, wb, QR_ISN_BA + lp, r->o.mss ? r->o.mss : emss);
    if (qr_side_init(&r->a, &r->o, 1, &r->ab, &r->b) != 0 ||
        qr_side_init(&r->b, &r->o, 2, &r->ba, &r->a) != 0)
        goto fail;
    r->a.direct_seq = r->ab.seq;
    r->b.direct_seq = r->ba.seq;
    if (ofl_qp_establish(&r->a.qp, &r->pa, emss, r->ba.seq, wnd) != OFL_OK ||
        ofl_qp_establish(&r->b.qp, &r->pb, emss, r->ab.seq, wnd) != OFL_OK)
        goto fail;
    return r;
fail:
    qr_free(r);
    return NULL;
}

void qr_free(struct qr_rig *r)
{
    if (r == NULL)
        return;
    free(r->ab.buf);
    free(r->ba.buf);
    free(r->a.vbuf);
    free(r->b.vbuf);
    free(r);
}

/* ---- verbs ------------------------------------------------------------------- */

void qr_wr(struct ofl_qp_wr *wr, uint8_t opcode, uint64_t wr_id,
           struct ofl_qp_sge *sge, void *p, uint32_t len, uint32_t stag)
{
    memset(wr, 0, sizeof(*wr));
    wr->opcode = opcode;
    wr->wr_id = wr_id;
    wr->flags = OFL_QP_WR_SIGNALED;
    if (p != NULL) {
        sge->addr = (uint64_t)(uintptr_t)p;
        sge->len = len;
        sge->stag = stag;
        wr->sge = sge;
        wr->num_sge = 1;
    }
}

enum ofl_err qr_post_send(struct qr_side *s, struct ofl_qp_wr *wr)
{
    enum ofl_err err = ofl_qp_post_send(&s->qp, wr, NULL);

    if (err == OFL_OK && s->qp.sq.host)
        (void)ofl_qp_doorbell(&s->qp, OFL_QP_RING_SQ, s->qp.sq.pi);
    return err;
}

enum ofl_err qr_post_recv(struct qr_side *s, uint64_t wr_id, void *p,
                          uint32_t len, uint32_t stag)
{
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;
    enum ofl_err err;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    if (p != NULL) {
        sge.addr = (uint64_t)(uintptr_t)p;
        sge.len = len;
        sge.stag = stag;
        wr.sge = &sge;
        wr.num_sge = 1;
    }
    err = ofl_qp_post_recv(&s->qp, &wr);
    if (err == OFL_OK && s->qp.rq.host)
        (void)ofl_qp_doorbell(&s->qp, OFL_QP_RING_RQ, s->qp.rq.pi);
    return err;
}

enum ofl_err qr_process(struct qr_side *s, uint64_t now)
{
    return ofl_qp_process(&s->qp, now, 1u << 16);
}

int qr_pump(struct qr_rig *r, uint64_t now)
{
    int round;

    for (round = 0; round < 1000; round++) {
        uint32_t before = r->ab.delivered + r->ba.delivered;

        (void)qr_process(&r->a, now);
        if (r->o.service != OFL_QP_SVC_ISCSI)
            (void)qr_process(&r->b, now);
        if (r->ab.len == 0 && r->ba.len == 0)
            break;
        if (r->o.service == OFL_QP_SVC_ISCSI)
            break; /* the test plays the target */
        (void)qr_deliver(r, &r->a);
        (void)qr_deliver(r, &r->b);
        if (r->ab.delivered + r->ba.delivered == before)
            break;
    }
    return round;
}

uint32_t qr_poll(struct qr_side *s, bool send, struct ofl_cqe *out,
                 uint32_t max)
{
    uint32_t n = 0;

    (void)ofl_cq_poll(send ? &s->scq : &s->rcq, out, max, &n);
    return n;
}

uint32_t qr_fpdu(struct qr_side *s, const struct ofl_rdmap_msg *m,
                 const void *payload, uint32_t n, uint8_t *out, uint32_t cap)
{
    uint8_t hdr[OFL_RDMAP_HDR_MAX];
    size_t hl = 0, len = 0;

    if (ofl_rdmap_build(m, hdr, sizeof(hdr), &hl) != OFL_OK)
        return 0;
    if (ofl_mpa_fpdu_build(&s->qp.tx, hdr, hl, payload, n, out, cap, &len) !=
        OFL_OK)
        return 0;
    return (uint32_t)len;
}

void qr_inject(struct qr_side *from, const void *p, uint32_t n)
{
    if (from->out->len + n <= QR_WIRE) {
        memcpy(from->out->buf + from->out->len, p, n);
        from->out->len += n;
        if (from->out->nchunk < QR_CHUNKS)
            from->out->chunk[from->out->nchunk++] = from->out->len;
    }
}

int qr_sent(struct qr_rig *r, struct qr_side *from,
            void (*fn)(void *ctx, const struct ofl_rdmap_msg *m), void *ctx)
{
    static uint8_t buf[65536];
    const struct ofl_mpa_params *p = from == &r->a ? &r->pa : &r->pb;
    struct qr_wire *w = from->out;
    uint32_t base = from == &r->a ? r->b.qp.rx_base : r->a.qp.rx_base;
    struct ofl_mpa_rx rx;
    struct ofl_mpa_params q = *p;
    uint32_t off = 0;
    int n = 0;

    /* What this side sends is framed by its tx half: markers_tx. */
    q.markers_rx = p->markers_tx;
    if (ofl_mpa_rx_init(&rx, &q, buf, sizeof(buf), NULL) != OFL_OK)
        return -1;
    rx.pos = w->seq - base;
    while (off < w->len) {
        struct ofl_mpa_fpdu f;
        struct ofl_rdmap_msg m;
        size_t used = 0;

        if (ofl_mpa_rx_feed(&rx, w->buf + off, w->len - off, &used, &f) !=
            OFL_OK)
            return -1;
        off += (uint32_t)used;
        if (f.ulpdu == NULL)
            break;
        n++;
        if (ofl_rdmap_parse(f.ulpdu, f.len, &m, NULL) == OFL_OK && fn != NULL)
            fn(ctx, &m);
    }
    return n;
}

static void qr_term_cb(void *ctx, const struct ofl_rdmap_msg *m)
{
    struct ofl_rdmap_term *t = ctx;

    if (m->ddp.opcode == OFL_RDMAP_TERMINATE) {
        *t = m->u.term;
        t->cause.layer |= 0x80; /* mark found (cleared below) */
    }
}

bool qr_sent_term(struct qr_rig *r, struct qr_side *from,
                  struct ofl_rdmap_term *t)
{
    memset(t, 0, sizeof(*t));
    if (qr_sent(r, from, qr_term_cb, t) < 0 || !(t->cause.layer & 0x80))
        return false;
    t->cause.layer &= 0x7F;
    return true;
}

void qr_bhs_init(uint8_t *b, uint8_t op, uint8_t flags, uint32_t itt,
                 uint32_t dsl)
{
    memset(b, 0, 48);
    b[0] = op;
    b[1] = flags;
    b[5] = (uint8_t)(dsl >> 16);
    b[6] = (uint8_t)(dsl >> 8);
    b[7] = (uint8_t)dsl;
    ofl_store_be32(b + 16, itt);
}
