/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* dg_rig: datagram nodes over a frame wire (see dg_rig.h). */
#include "dg_rig.h"

#include <stdlib.h>
#include <string.h>

static int dgr_transmit(void *ctx, const uint8_t *data, uint32_t len,
                        uint32_t flags)
{
    struct dgr_node *n = ctx;
    struct dgr_wire *w = &n->rig->wire;
    struct dgr_frame *f;

    (void)flags;
    w->tx_calls++;
    if (w->refuse > 0) {
        w->refuse--;
        return 1;
    }
    if (w->drop > 0) {
        w->drop--;
        return 0;
    }
    if (w->n >= DGR_FRAMES || len > DGR_FRAME_MAX)
        return 1;
    f = &w->f[(w->head + w->n) % DGR_FRAMES];
    f->from = n->idx;
    f->len = len;
    memcpy(f->data, data, len);
    w->n++;
    return 0;
}

uint32_t dgr_ee_index(int i, int j)
{
    return (uint32_t)(j < i ? j : j - 1);
}

uint32_t dgr_isn(int i, int j)
{
    return 0xFFFFFFF8u + (uint32_t)(i * 4 + j); /* wraps 2^32 early */
}

uint8_t *dgr_alloc(struct dgr_node *n, uint32_t len)
{
    uint32_t at = (n->mem_used + 63u) & ~63u;

    if (at > DGR_MEM || len > DGR_MEM - at)
        return NULL;
    n->mem_used = at + len;
    memset(n->mem + at, 0, len);
    return n->mem + at;
}

static int dgr_node_init(struct dgr_rig *r, int i)
{
    struct dgr_node *n = &r->n[i];
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    int j;

    n->rig = r;
    n->idx = i;
    ofl_sim_init(&n->sim);
    ofl_sim_allow(&n->sim, n->mem, sizeof(n->mem), OFL_SIM_RW);
    if (ofl_tpt_init(&n->tpt, n->entry, DGR_TPT, n->att, DGR_ATT,
                     &n->sim.port, OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_cq_init(&n->scq, n->scqe, DGR_CQ, &n->sim.port, 1) != OFL_OK ||
        ofl_cq_init(&n->rcq, n->rcqe, DGR_CQ, &n->sim.port, 2) != OFL_OK)
        return -1;
    memset(&d, 0, sizeof(d));
    d.va = (uint64_t)(uintptr_t)n->mem;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE;
    b.pa = ofl_sim_pa(n->mem);
    b.len = DGR_MEM;
    if (ofl_tpt_reg_phys(&n->tpt, 7, &d, &b, 1, &n->stag) != OFL_OK)
        return -1;
    if (ofl_qp_node_init(&n->node, DGR_ADDR0 + (uint32_t)i, n->slots,
                         DGR_QPN_CAP, n->ee, (uint32_t)r->nodes - 1) != OFL_OK)
        return -1;
    for (j = 0; j < r->nodes; j++) {
        struct ofl_ee_attr a;
        uint32_t k;

        if (j == i)
            continue;
        k = dgr_ee_index(i, j);
        memset(&a, 0, sizeof(a));
        a.local_addr = DGR_ADDR0 + (uint32_t)i;
        a.remote_addr = DGR_ADDR0 + (uint32_t)j;
        a.snd_isn = dgr_isn(i, j);
        a.rcv_isn = dgr_isn(j, i);
        a.window = DGR_WIN;
        a.slot_size = DGR_SLOT;
        a.buf = n->ee_buf[k];
        a.slot = n->ee_slot[k];
        a.timeout = DGR_TIMEOUT;
        a.retry_limit = DGR_RETRY;
        a.transmit = dgr_transmit;
        a.transmit_ctx = n;
        a.atomic = n->ee_atomic[k];
        a.atomic_cap = DGR_ATOMIC;
        if (ofl_ee_init(&n->ee[k], &a) != OFL_OK)
            return -1;
    }
    return 0;
}

struct dgr_rig *dgr_new(int nodes)
{
    size_t size = (sizeof(struct dgr_rig) + 4095u) & ~(size_t)4095u;
    struct dgr_rig *r;
    int i;

    if (nodes < 2 || nodes > DGR_NODES)
        return NULL;
    r = aligned_alloc(4096, size);
    if (r == NULL)
        return NULL;
    memset(r, 0, sizeof(*r));
    r->nodes = nodes;
    for (i = 0; i < nodes; i++)
        if (dgr_node_init(r, i) != 0) {
            free(r);
            return NULL;
        }
    return r;
}

void dgr_free(struct dgr_rig *r)
{
    free(r);
}

int dgr_qp_add(struct dgr_rig *r, int ni, const struct dgr_qp_opts *o,
               enum ofl_err *err)
{
    struct dgr_node *n = &r->n[ni];
    struct dgr_qp *q;
    enum ofl_err e;

    if (n->nq >= DGR_QPS)
        return -1;
    q = &n->q[n->nq];
    memset(q, 0, sizeof(*q));
    q->attr.qpn = o->qpn;
    q->attr.pd = 7;
    q->attr.service = o->service;
    q->attr.acked = o->acked;
    q->attr.reg_option = OFL_QP_REG_OPTION1;
    q->attr.ord = o->ord ? o->ord : 4;
    q->attr.ird = 1;
    q->attr.event_vector = 3;
    q->attr.sq_db = 10;
    q->attr.rq_db = 11;
    q->attr.tpt = &n->tpt;
    q->attr.port = &n->sim.port;
    q->attr.send_cq = &n->scq;
    q->attr.recv_cq = &n->rcq;
    q->attr.transmit = dgr_transmit;
    q->attr.transmit_ctx = n;
    q->attr.max_dgram = o->max_dgram ? o->max_dgram : DGR_MAXDG;
    q->attr.node = &n->node;
    q->attr.fault_wait = o->fault_wait;
    q->qmem.sq_ring = q->sq_ring;
    q->qmem.sq_depth = DGR_DEPTH;
    q->qmem.sq_max_sge = DGR_SGE;
    q->qmem.rq_ring = q->rq_ring;
    q->qmem.rq_depth = DGR_DEPTH;
    q->qmem.rq_max_sge = DGR_SGE;
    q->qmem.sq_track = q->track;
    q->qmem.sq_sge = q->sq_sge;
    q->qmem.rq_sge = q->rq_sge;
    q->qmem.tx_buf = q->tx_buf;
    q->qmem.tx_cap = DGR_TX;
    e = ofl_qp_create(&q->qp, &q->attr, &q->qmem);
    if (e == OFL_OK)
        e = ofl_qp_modify(&q->qp, OFL_QP_INIT);
    if (e == OFL_OK)
        e = ofl_qp_modify(&q->qp, OFL_QP_RTR);
    if (e == OFL_OK)
        e = ofl_qp_modify(&q->qp, OFL_QP_RTS);
    if (e == OFL_OK && o->service != OFL_QP_SVC_RAW)
        e = ofl_qp_node_add(&n->node, &q->qp);
    if (err != NULL)
        *err = e;
    if (e != OFL_OK)
        return -1;
    return n->nq++;
}

enum ofl_err dgr_post(struct dgr_rig *r, int ni, int qi, struct ofl_qp_wr *wr,
                      const void *p, uint32_t len)
{
    struct dgr_node *n = &r->n[ni];
    struct ofl_qp_sge sge;

    sge.addr = (uint64_t)(uintptr_t)p;
    sge.len = len;
    sge.stag = n->stag;
    wr->sge = &sge;
    wr->num_sge = p != NULL ? 1 : 0;
    return ofl_qp_post_send(&n->q[qi].qp, wr, NULL);
}

void dgr_wr_rdma(struct ofl_qp_wr *wr, uint64_t wr_id, uint8_t op,
                 uint32_t rstag, uint64_t rto, const uint64_t *a)
{
    memset(wr, 0, sizeof(*wr));
    wr->wr_id = wr_id;
    wr->opcode = op;
    wr->flags = OFL_QP_WR_SIGNALED;
    wr->remote_stag = rstag;
    wr->remote_to = rto;
    wr->dest.ee = 0;
    wr->dest.qpn = 7;
    if (a != NULL)
        memcpy(wr->atomic, a, sizeof(wr->atomic));
}

enum ofl_err dgr_send(struct dgr_rig *r, int ni, int qi, uint64_t wr_id,
                      const void *p, uint32_t len, uint32_t addr, uint32_t ee,
                      uint32_t qpn, uint8_t flags)
{
    struct ofl_qp_wr wr;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.opcode = OFL_QP_OP_SEND;
    wr.flags = flags;
    wr.dest.addr = addr;
    wr.dest.ee = ee;
    wr.dest.qpn = qpn;
    return dgr_post(r, ni, qi, &wr, p, len);
}

enum ofl_err dgr_recv(struct dgr_rig *r, int ni, int qi, uint64_t wr_id,
                      void *p, uint32_t len)
{
    struct dgr_node *n = &r->n[ni];
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;

    sge.addr = (uint64_t)(uintptr_t)p;
    sge.len = len;
    sge.stag = n->stag;
    wr.wr_id = wr_id;
    wr.sge = &sge;
    wr.num_sge = 1;
    return ofl_qp_post_recv(&n->q[qi].qp, &wr);
}

enum ofl_err dgr_deliver(struct dgr_rig *r, uint64_t now, uint32_t max)
{
    struct dgr_wire *w = &r->wire;
    enum ofl_err first = OFL_OK, err;
    uint32_t k = 0;

    while (w->n != 0 && (max == 0 || k < max)) {
        /* A copy: delivering may queue acknowledgements behind it. */
        struct dgr_frame f;
        uint32_t dst;

        f = w->f[w->head];
        w->head = (w->head + 1) % DGR_FRAMES;
        w->n--;
        k++;
        if (f.len < 8)
            continue;
        dst = ((uint32_t)f.data[4] << 24) | ((uint32_t)f.data[5] << 16) |
              ((uint32_t)f.data[6] << 8) | f.data[7];
        if (dst < DGR_ADDR0 || dst >= DGR_ADDR0 + (uint32_t)r->nodes)
            continue;
        err = ofl_qp_dgram_input(&r->n[dst - DGR_ADDR0].node, f.data, f.len,
                                 now);
        if (first == OFL_OK)
            first = err;
    }
    return first;
}

void dgr_drop_all(struct dgr_rig *r)
{
    r->wire.head = 0;
    r->wire.n = 0;
}

void dgr_pump(struct dgr_rig *r, uint64_t now)
{
    int round, i, j;

    for (round = 0; round < 200; round++) {
        for (i = 0; i < r->nodes; i++)
            for (j = 0; j < r->n[i].nq; j++)
                (void)ofl_qp_process(&r->n[i].q[j].qp, now, 64);
        if (r->wire.n == 0)
            break;
        (void)dgr_deliver(r, now, 0);
    }
}

enum ofl_err dgr_tick(struct dgr_rig *r, uint64_t now)
{
    enum ofl_err first = OFL_OK, err;
    int i, k;

    for (i = 0; i < r->nodes; i++)
        for (k = 0; k < r->nodes - 1; k++) {
            if (r->n[i].ee[k].state != OFL_EE_RTS)
                continue;
            err = ofl_ee_tick(&r->n[i].ee[k], now);
            if (first == OFL_OK)
                first = err;
        }
    return first;
}

uint32_t dgr_poll(struct dgr_node *n, bool send, struct ofl_cqe *out,
                  uint32_t max)
{
    uint32_t got = 0;

    (void)ofl_cq_poll(send ? &n->scq : &n->rcq, out, max, &got);
    return got;
}

int dgr_rd_pair(struct dgr_rig *r)
{
    struct dgr_qp_opts o;
    int i;

    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RD;
    o.acked = 1;
    o.ord = 1;
    o.qpn = 1;
    if (dgr_qp_add(r, 0, &o, NULL) != 0)
        return -1;
    o.ord = 0;
    o.qpn = 2;
    for (i = 1; i < r->nodes; i++)
        if (dgr_qp_add(r, i, &o, NULL) != 0)
            return -1;
    return 0;
}
