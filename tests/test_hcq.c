/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* The host interface: the public WQE byte layouts (offload.h) against what
 * the engine writes and fetches, host-memory CQs (phase, consumer index,
 * overflow, arming and moderation) and the host reaper's checks. */
#include "test.h"
#include "support/qp_rig.h"

#include <stdlib.h>

/* ---- WQE layouts --------------------------------------------------------- */

static void test_wqe_layout(void)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_qp_wr wr;
    struct ofl_qp_recv_wr rw;
    struct ofl_qp_sge sge[2];
    uint8_t slot[256];
    const uint8_t *w;
    uint32_t stride = r->a.qp.sq.stride, rstride = r->a.qp.rq.stride;

    memset(&wr, 0, sizeof(wr));
    sge[0].addr = 0x1122334455667788ull;
    sge[0].len = 0x100;
    sge[0].stag = 0xAABBCC01u;
    sge[1].addr = 0x99;
    sge[1].len = 7;
    sge[1].stag = 0x202;
    wr.opcode = OFL_QP_OP_WRITE_IMM;
    wr.flags = OFL_QP_WR_SIGNALED | OFL_QP_WR_SOLICITED;
    wr.wr_id = 0x0102030405060708ull;
    wr.remote_stag = 0xDEADBE01u;
    wr.remote_to = 0x8877665544332211ull;
    wr.imm = 0xCAFEF00DCAFEF00Dull;
    wr.sge = sge;
    wr.num_sge = 2;
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    w = r->a.sq_ring;
    CHECK_EQ(w[OFL_SWQE_OPCODE], OFL_QP_OP_WRITE_IMM);
    CHECK_EQ(w[OFL_SWQE_FLAGS], OFL_QP_WR_SIGNALED | OFL_QP_WR_SOLICITED);
    CHECK_EQ(w[OFL_SWQE_NUM_SGE], 2);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_WR_ID), wr.wr_id);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_REMOTE_TO), wr.remote_to);
    CHECK_EQ(ofl_load_le32(w + OFL_SWQE_REMOTE_STAG), wr.remote_stag);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_IMM), wr.imm);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_SGE + OFL_WQE_SGE_ADDR), sge[0].addr);
    CHECK_EQ(ofl_load_le32(w + OFL_SWQE_SGE + OFL_WQE_SGE_LEN), sge[0].len);
    CHECK_EQ(ofl_load_le32(w + OFL_SWQE_SGE + OFL_WQE_SGE_STAG), sge[0].stag);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_SGE + OFL_QP_SGE_LEN), sge[1].addr);
    /* The host encoder writes the same bytes the post call wrote. */
    memset(slot, 0xEE, sizeof(slot));
    CHECK_OK(ofl_qp_wqe_send(slot, stride, &wr));
    CHECK(memcmp(slot, w, OFL_QP_SQ_HDR + 2 * OFL_QP_SGE_LEN) == 0);
    /* Atomics: the four operands at 32, 40, 48, 56. */
    wr.opcode = OFL_QP_OP_ATOMIC_CSWAP;
    wr.atomic[0] = 1;
    wr.atomic[1] = 2;
    wr.atomic[2] = 3;
    wr.atomic[3] = 4;
    wr.remote_to = 0x1000;
    sge[0].len = 8;
    wr.num_sge = 1;
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    w = r->a.sq_ring + stride;
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_ATOMIC), 1);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_ATOMIC + 8), 2);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_ATOMIC + 16), 3);
    CHECK_EQ(ofl_load_le64(w + OFL_SWQE_ATOMIC + 24), 4);
    CHECK_OK(ofl_qp_wqe_send(slot, stride, &wr));
    CHECK(memcmp(slot, w, OFL_QP_SQ_HDR + OFL_QP_SGE_LEN) == 0);
    /* Receive WQEs. */
    rw.wr_id = 0x5566778899AABBCCull;
    rw.sge = sge;
    rw.num_sge = 1;
    CHECK_OK(ofl_qp_post_recv(&r->a.qp, &rw));
    w = r->a.rq_ring;
    CHECK_EQ(ofl_load_le64(w + OFL_RWQE_WR_ID), rw.wr_id);
    CHECK_EQ(w[OFL_RWQE_NUM_SGE], 1);
    CHECK_EQ(ofl_load_le64(w + OFL_RWQE_SGE + OFL_WQE_SGE_ADDR), sge[0].addr);
    CHECK_EQ(ofl_load_le32(w + OFL_RWQE_SGE + OFL_WQE_SGE_STAG), sge[0].stag);
    memset(slot, 0xEE, sizeof(slot));
    CHECK_OK(ofl_qp_wqe_recv(slot, rstride, &rw));
    CHECK(memcmp(slot, w, OFL_QP_RQ_HDR + OFL_QP_SGE_LEN) == 0);
    qr_free(r);
}

/* The encoders' checks: each trips, the slot untouched. */
static void test_wqe_checks(void)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_recv_wr rw;
    struct ofl_qp_sge sge[3];
    uint8_t slot[256], keep[256];

    memset(&wr, 0, sizeof(wr));
    memset(sge, 0, sizeof(sge));
    memset(slot, 0x5A, sizeof(slot));
    memcpy(keep, slot, sizeof(slot));
    wr.opcode = OFL_QP_OP_SEND;
    wr.sge = sge;
    wr.num_sge = 1;
    CHECK_ERR(ofl_qp_wqe_send(NULL, 128, &wr), OFL_E_ARG);
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_qp_wqe_send(slot, OFL_QP_SQ_HDR - 1, &wr), OFL_E_ARG);
    CHECK_ERR(ofl_qp_wqe_send(slot, 512, &wr), OFL_E_ARG);
    wr.opcode = 0;
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_QP_WR);
    wr.opcode = OFL_QP_OP_RECV; /* completion-only */
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_QP_WR);
    wr.opcode = OFL_QP_OP_SEND;
    wr.flags = 0x80;
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_QP_WR);
    wr.flags = 0;
    wr.num_sge = 4; /* 80 + 64 > 128 */
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_QP_SGE);
    wr.num_sge = 2;
    sge[0].len = 0x40000000u;
    sge[1].len = 0x40000000u;
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_QP_WR);
    wr.sge = NULL;
    CHECK_ERR(ofl_qp_wqe_send(slot, 128, &wr), OFL_E_ARG);
    CHECK(memcmp(slot, keep, sizeof(slot)) == 0);
    wr.sge = sge;
    sge[1].len = 1;
    CHECK_OK(ofl_qp_wqe_send(slot, 128, &wr));
    rw.wr_id = 1;
    rw.sge = sge;
    rw.num_sge = 2;
    memcpy(slot, keep, sizeof(slot));
    sge[1].len = 0x40000000u;
    CHECK_ERR(ofl_qp_wqe_recv(NULL, 64, &rw), OFL_E_ARG);
    CHECK_ERR(ofl_qp_wqe_recv(slot, 8, &rw), OFL_E_ARG);
    CHECK_ERR(ofl_qp_wqe_recv(slot, 32, &rw), OFL_E_QP_SGE);
    CHECK_ERR(ofl_qp_wqe_recv(slot, 64, &rw), OFL_E_QP_WR);
    CHECK(memcmp(slot, keep, sizeof(slot)) == 0);
    sge[0].len = 16;
    CHECK_OK(ofl_qp_wqe_recv(slot, 64, &rw));
    CHECK_EQ(slot[OFL_RWQE_NUM_SGE], 2);
}

/* A host driver writes the slots of rings in host memory itself; the
 * engine fetches them by DMA and carries them out. A hostile slot (an
 * opcode byte no WQE has) completes in error. */
static void test_host_ring_fetch(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct ofl_qp_wr wr;
    struct ofl_qp_recv_wr rw;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    uint8_t *src, *dst;
    uint32_t ls, ld;

    memset(&o, 0, sizeof(o));
    o.host_rings = true;
    r = qr_new(&o);
    CHECK_EQ(qr_pump(r, 0) >= 0, 1);
    src = qr_alloc(&r->a, 64, false);
    dst = qr_alloc(&r->b, 64, false);
    memcpy(src, "host ring send", 15);
    ls = qr_reg(&r->a, src, 64, OFL_TPT_LOCAL_READ, 0);
    ld = qr_reg(&r->b, dst, 64, OFL_TPT_LOCAL_WRITE, 0);
    sge.addr = (uint64_t)(uintptr_t)dst;
    sge.len = 64;
    sge.stag = ld;
    rw.wr_id = 77;
    rw.sge = &sge;
    rw.num_sge = 1;
    CHECK_OK(ofl_qp_wqe_recv(r->b.rq_ring, r->b.qp.rq.stride, &rw));
    CHECK_OK(ofl_qp_doorbell(&r->b.qp, OFL_QP_RING_RQ, 1));
    qr_wr(&wr, OFL_QP_OP_SEND, 5, &sge, src, 15, ls);
    wr.flags |= OFL_QP_WR_SIGNALED;
    CHECK_OK(ofl_qp_wqe_send(r->a.sq_ring, r->a.qp.sq.stride, &wr));
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 1));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 5);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 77);
    CHECK_EQ(c[0].byte_len, 15);
    CHECK(memcmp(dst, "host ring send", 15) == 0);
    /* A slot the host scribbled: opcode 0xEE. */
    CHECK_OK(ofl_qp_wqe_send(r->a.sq_ring + r->a.qp.sq.stride,
                             r->a.qp.sq.stride, &wr));
    r->a.sq_ring[r->a.qp.sq.stride + OFL_SWQE_OPCODE] = 0xEE;
    CHECK_OK(ofl_qp_doorbell(&r->a.qp, OFL_QP_RING_SQ, 2));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK(c[0].status != OFL_WC_SUCCESS);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* ---- host CQs ------------------------------------------------------------ */

/* A port over one buffer of "host memory" at HPA, logging write order. */
#define HPA 0x10000000ull
#define HMEM 4096
struct hport {
    struct ofl_port port;
    uint8_t mem[HMEM];
    uint32_t ops;       /* writes and barriers, in order */
    uint32_t last_owner_op, last_release_op, last_body_op;
    uint32_t notifies, last_vector;
    int fail_writes;    /* the next n DMA writes fail */
    int fail_reads;
};

static int hp_range(uint64_t pa, size_t len)
{
    return pa >= HPA && len <= HMEM && pa - HPA <= HMEM - len;
}

static int hp_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    struct hport *h = ctx;

    if (h->fail_writes > 0) {
        h->fail_writes--;
        return -1;
    }
    if (!hp_range(pa, len))
        return -1;
    memcpy(h->mem + (pa - HPA), src, len);
    h->ops++;
    if (len == 1 && ((pa - HPA) & 63) == OFL_HCQE_OWNER)
        h->last_owner_op = h->ops;
    else
        h->last_body_op = h->ops;
    return 0;
}

static int hp_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    struct hport *h = ctx;

    if (h->fail_reads > 0) {
        h->fail_reads--;
        return -1;
    }
    if (!hp_range(pa, len))
        return -1;
    memcpy(dst, h->mem + (pa - HPA), len);
    return 0;
}

static void hp_barrier(void *ctx, enum ofl_barrier kind)
{
    struct hport *h = ctx;

    h->ops++;
    if (kind == OFL_BARRIER_RELEASE)
        h->last_release_op = h->ops;
}

static void hp_notify(void *ctx, uint32_t vector)
{
    struct hport *h = ctx;

    h->notifies++;
    h->last_vector = vector;
}

static void hp_init(struct hport *h)
{
    memset(h, 0, sizeof(*h));
    h->port.version = OFL_PORT_VERSION;
    h->port.size = sizeof(h->port);
    h->port.ctx = h;
    h->port.dma_read = hp_read;
    h->port.dma_write = hp_write;
    h->port.notify = hp_notify;
    h->port.barrier = hp_barrier;
}

static void cfg_init(struct ofl_hcq_cfg *c, uint32_t cap)
{
    memset(c, 0, sizeof(*c));
    c->ring_pa = HPA;
    c->cap = cap;
    c->vector = 9;
    c->mod_count = 1;
}

static void cqe(struct ofl_cqe *e, uint64_t id, uint8_t status, uint8_t flags)
{
    memset(e, 0, sizeof(*e));
    e->wr_id = id;
    e->byte_len = (uint32_t)id * 3u;
    e->qpn = 42;
    e->opcode = OFL_QP_OP_RECV;
    e->status = status;
    e->flags = flags;
}

static void test_hcq_init(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_hcq_host hh;
    struct ofl_port bad;

    hp_init(&hp);
    cfg_init(&c, 4);
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_ERR(ofl_hcq_init(NULL, &hp.port, &c), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_init(&h, NULL, &c), OFL_E_ARG);
    c.cap = 3;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.cap = 1u << 25;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.cap = 4;
    c.mod_count = 0;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.mod_count = 1;
    c.ci_dma = 2;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.ci_dma = 1;
    c.ci_pa = ~0ull - 2;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.ci_dma = 0;
    c.ring_pa = ~0ull - 100;
    CHECK_ERR(ofl_hcq_init(&h, &hp.port, &c), OFL_E_ARG);
    c.ring_pa = HPA;
    bad = hp.port;
    bad.version = 0;
    CHECK_ERR(ofl_hcq_init(&h, &bad, &c), OFL_E_PORT_VERSION);
    bad = hp.port;
    bad.dma_write = NULL;
    CHECK_ERR(ofl_hcq_init(&h, &bad, &c), OFL_E_PORT_HOOK);
    bad = hp.port;
    bad.dma_read = NULL;
    CHECK_OK(ofl_hcq_init(&h, &bad, &c));
    c.ci_dma = 1;
    c.ci_pa = HPA + 1024;
    CHECK_ERR(ofl_hcq_init(&h, &bad, &c), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_hcq_arm(&h, (enum ofl_cq_arm)3), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_arm(NULL, OFL_CQ_ARM_ANY), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_set_ci(NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_tick(NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_put(NULL, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_host_init(&hh, hp.mem, 3, NULL, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_host_init(&hh, NULL, 4, NULL, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_host_init(&hh, hp.mem, 4, NULL, &bad), OFL_OK);
    bad.version = 0;
    CHECK_ERR(ofl_hcq_host_init(&hh, hp.mem, 4, NULL, &bad),
              OFL_E_PORT_VERSION);
}

/* Phase wrap over several passes, the owner byte written last after a
 * release barrier, and the host reaping with the right phase. */
static void test_hcq_phase(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_hcq_host hh;
    struct ofl_cqe e, out[8];
    uint32_t i, n, got = 0;

    hp_init(&hp);
    cfg_init(&c, 4);
    CHECK_OK(ofl_hcq_host_init(&hh, hp.mem, 4, NULL, &hp.port));
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_OK(ofl_hcq_reap(&hh, out, 8, &n));
    CHECK_EQ(n, 0);
    for (i = 0; i < 11; i++) {
        cqe(&e, i, OFL_WC_SUCCESS, 0);
        CHECK_OK(ofl_hcq_put(&h, &e, 0));
        /* body, then the release barrier, then the owner byte */
        CHECK(hp.last_body_op < hp.last_release_op);
        CHECK(hp.last_release_op < hp.last_owner_op);
        CHECK_EQ(hp.mem[(i & 3) * 64 + OFL_HCQE_OWNER], ((i / 4) & 1) ^ 1);
        if (i % 3 == 2 || i == 10) {
            CHECK_OK(ofl_hcq_reap(&hh, out, 8, &n));
            for (uint32_t k = 0; k < n; k++)
                CHECK_EQ(out[k].wr_id, got + k);
            got += n;
            CHECK_OK(ofl_hcq_set_ci(&h, hh.ci));
        }
    }
    CHECK_EQ(got, 11);
    CHECK_EQ(out[n - 1].byte_len, 30);
    CHECK_EQ(out[n - 1].qpn, 42);
    CHECK_EQ(out[n - 1].opcode, OFL_QP_OP_RECV);
    /* Nothing new: the stale slots carry the previous pass's phase. */
    CHECK_OK(ofl_hcq_reap(&hh, out, 8, &n));
    CHECK_EQ(n, 0);
    CHECK_ERR(ofl_hcq_reap(&hh, NULL, 8, &n), OFL_E_ARG);
    CHECK_ERR(ofl_hcq_reap(&hh, out, 8, NULL), OFL_E_ARG);
    /* A DMA failure leaves the CQ as it was. */
    hp.fail_writes = 1;
    CHECK_ERR(ofl_hcq_put(&h, &e, 0), OFL_E_PORT_DMA);
    CHECK_EQ(h.pi, 11);
    hp.fail_writes = 0;
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
}

/* The consumer index: by doorbell (checked) and by DMA (checked). */
static void test_hcq_ci(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_hcq_host hh;
    struct ofl_cqe e, out[8];
    uint32_t i, n;

    hp_init(&hp);
    cfg_init(&c, 4);
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    cqe(&e, 1, OFL_WC_SUCCESS, 0);
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_ERR(ofl_hcq_set_ci(&h, 3), OFL_E_QP_HCQ_CI);   /* past pi */
    CHECK_OK(ofl_hcq_set_ci(&h, 1));
    CHECK_ERR(ofl_hcq_set_ci(&h, 0), OFL_E_QP_HCQ_CI);   /* backwards */
    CHECK_ERR(ofl_hcq_set_ci(&h, 0xFFFFFFFFu), OFL_E_QP_HCQ_CI);
    CHECK_EQ(h.ci, 1);
    CHECK_OK(ofl_hcq_set_ci(&h, 2));
    /* By DMA: the host publishes ci at ci_loc when it reaps. */
    hp_init(&hp);
    cfg_init(&c, 4);
    c.ci_dma = 1;
    c.ci_pa = HPA + 1024;
    CHECK_OK(ofl_hcq_host_init(&hh, hp.mem, 4, hp.mem + 1024, &hp.port));
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    for (i = 0; i < 4; i++)
        CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_OK(ofl_hcq_reap(&hh, out, 2, &n));
    CHECK_EQ(n, 2);
    CHECK_EQ(ofl_load_le32(hp.mem + 1024), 2);
    CHECK_OK(ofl_hcq_put(&h, &e, 0)); /* full: ci read by DMA */
    CHECK_EQ(h.ci, 2);
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    /* A DMA failure reading ci: the CQE is not lost. */
    hp.fail_reads = 1;
    CHECK_ERR(ofl_hcq_put(&h, &e, 0), OFL_E_PORT_DMA);
    CHECK_EQ(h.overrun, 0);
    /* A hostile ci in host memory (past pi) is refused: the ring stays
     * full and the CQE is lost. */
    ofl_store_le32(hp.mem + 1024, 100);
    CHECK_ERR(ofl_hcq_put(&h, &e, 0), OFL_E_QP_HCQ_OVERRUN);
    CHECK_EQ(h.ci, 2);
    CHECK_EQ(h.overrun, 1);
}

/* ---- overflow --------------------------------------------------------------- */

/* The QP overflow tests' rig: host CQ h of cap CQEs at HPA in hp's
 * memory, nobody reaping it, and a pair of QPs in RTS; NULL (a failed
 * check) when the pair cannot be made. */
static struct qr_rig *ovf_rig(struct hport *hp, struct ofl_hcq *h,
                              uint32_t cap)
{
    struct qr_rig *r = qr_new(NULL);
    struct ofl_hcq_cfg c;

    CHECK(r != NULL);
    if (r == NULL)
        return NULL;
    hp_init(hp);
    cfg_init(&c, cap);
    CHECK_OK(ofl_hcq_init(h, &hp->port, &c));
    qr_pump(r, 0);
    return r;
}

/* Posts n signalled Delays on s, wr_id first, first + 1, ... */
static void post_delays(struct qr_side *s, uint64_t first, uint32_t n)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t i;

    for (i = 0; i < n; i++) {
        qr_wr(&wr, OFL_QP_OP_DELAY, first + i, &sge, NULL, 0, 0);
        wr.flags |= OFL_QP_WR_SIGNALED;
        CHECK_OK(qr_post_send(s, &wr));
    }
}

/* Flushes s's send CQ into h, which overruns: `moved` CQEs go in, and
 * the flush names s's QP. */
static void flush_overrun(struct ofl_hcq *h, struct qr_side *s,
                          uint32_t moved)
{
    uint32_t got = ~0u, qpn = 0;

    CHECK_ERR(ofl_hcq_flush(h, &s->scq, 0, &got, &qpn),
              OFL_E_QP_HCQ_OVERRUN);
    CHECK_EQ(got, moved);
    CHECK_EQ(qpn, s->qp.attr.qpn);
}

/* The core's overrun rule on qp (ofl_qp_cq_overrun): ERROR, with the
 * async event it did not have before. */
static void overrun_rule(struct ofl_qp *qp)
{
    CHECK(!(qp->events & OFL_QP_EVT_CQ_OVERRUN));
    CHECK_OK(ofl_qp_cq_overrun(qp));
    CHECK(qp->events & OFL_QP_EVT_CQ_OVERRUN);
    CHECK_EQ(qp->state, OFL_QP_ERROR);
}

/* Overflow: lost CQEs, sticky; flush reports the QP; the QP goes to ERROR
 * with the async event. */
static void test_hcq_overflow(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_cq cq;
    struct ofl_cqe ring[8], e;
    struct qr_rig *r;
    uint32_t moved, qpn = 0, i;

    hp_init(&hp);
    cfg_init(&c, 2);
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_OK(ofl_cq_init(&cq, ring, 8, NULL, 0));
    for (i = 0; i < 3; i++) {
        ring[i].qpn = 40 + i;
        ring[i].opcode = OFL_QP_OP_SEND;
    }
    cq.pi = 3;
    CHECK_ERR(ofl_hcq_flush(&h, &cq, 0, &moved, &qpn), OFL_E_QP_HCQ_OVERRUN);
    CHECK_EQ(moved, 2);
    CHECK_EQ(qpn, 42);
    CHECK_EQ(cq.ci, 3);
    CHECK_EQ(h.lost, 1);
    /* Overrun for good: room again does not help. */
    CHECK_OK(ofl_hcq_set_ci(&h, 2));
    cqe(&e, 1, OFL_WC_SUCCESS, 0);
    CHECK_ERR(ofl_hcq_put(&h, &e, 0), OFL_E_QP_HCQ_OVERRUN);
    CHECK_EQ(h.lost, 2);
    CHECK_ERR(ofl_hcq_flush(NULL, &cq, 0, &moved, NULL), OFL_E_ARG);
    /* An empty staging CQ moves nothing. */
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_OK(ofl_hcq_flush(&h, &cq, 0, &moved, NULL));
    CHECK_EQ(moved, 0);
    /* A DMA failure stops the flush with the CQE kept. */
    cq.pi = 4;
    hp.fail_writes = 1;
    CHECK_ERR(ofl_hcq_flush(&h, &cq, 0, &moved, NULL), OFL_E_PORT_DMA);
    CHECK_EQ(cq.ci, 3);
    CHECK_OK(ofl_hcq_flush(&h, &cq, 0, &moved, NULL));
    CHECK_EQ(moved, 1);
    /* The RDMA core's rule on the QP. */
    r = qr_new(NULL);
    qr_pump(r, 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    overrun_rule(&r->a.qp);
    CHECK_OK(ofl_qp_cq_overrun(&r->a.qp)); /* again: stays */
    CHECK_ERR(ofl_qp_cq_overrun(NULL), OFL_E_ARG);
    qr_free(r);
}

/* Arming and moderation by count and by time. */
static void test_hcq_moderation(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_cqe e;

    hp_init(&hp);
    cfg_init(&c, 64);
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    cqe(&e, 1, OFL_WC_SUCCESS, 0);
    /* Not armed: no interrupt. */
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 0);
    /* ANY, count 1: the next CQE, then disarmed. */
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 1);
    CHECK_EQ(hp.last_vector, 9);
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 1);
    /* SOLICITED: a plain success does not count; solicited and errors
     * do. */
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_SOLICITED));
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 1);
    cqe(&e, 2, OFL_WC_SUCCESS, OFL_CQE_SOLICITED);
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 2);
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_SOLICITED));
    cqe(&e, 3, OFL_WC_WR_FLUSH_ERR, 0);
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 3);
    /* Disarm. */
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_NONE));
    CHECK_OK(ofl_hcq_put(&h, &e, 0));
    CHECK_EQ(hp.notifies, 3);
    /* Count 3, time 100. */
    c.mod_count = 3;
    c.mod_time = 100;
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    cqe(&e, 1, OFL_WC_SUCCESS, 0);
    CHECK_OK(ofl_hcq_put(&h, &e, 1000));
    CHECK_OK(ofl_hcq_put(&h, &e, 1010));
    CHECK_EQ(hp.notifies, 3);
    CHECK_OK(ofl_hcq_put(&h, &e, 1020));
    CHECK_EQ(hp.notifies, 4); /* the third */
    CHECK_EQ(h.notifies, 1);
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    CHECK_OK(ofl_hcq_put(&h, &e, 2000));
    CHECK_OK(ofl_hcq_tick(&h, 2099));
    CHECK_EQ(hp.notifies, 4);
    CHECK_OK(ofl_hcq_tick(&h, 2100)); /* mod_time after the first */
    CHECK_EQ(hp.notifies, 5);
    CHECK_OK(ofl_hcq_tick(&h, 5000)); /* disarmed: nothing more */
    CHECK_EQ(hp.notifies, 5);
    /* Time also checked when a CQE is written late. */
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    CHECK_OK(ofl_hcq_put(&h, &e, 6000));
    CHECK_OK(ofl_hcq_put(&h, &e, 6200));
    CHECK_EQ(hp.notifies, 6);
}

/* The reaper's checks: each malformed field stops it, unconsumed. */
static void test_hcq_hostile(void)
{
    static const struct {
        uint32_t off;
        uint8_t val;
    } bad[] = {
        {OFL_HCQE_RESERVED, 1},       {OFL_HCQE_RESERVED + 23, 0x80},
        {OFL_HCQE_OWNER, 0x03},       {OFL_HCQE_FLAGS, 0x20},
        {OFL_HCQE_OPCODE, 0},         {OFL_HCQE_OPCODE, 0xFF},
        {OFL_HCQE_OPCODE, OFL_QP_OP_ISCSI_RECV + 1},
        {OFL_HCQE_STATUS, OFL_WC_STATUS_COUNT_},
        {OFL_HCQE_BYTE_LEN + 3, 0x80},
    };
    uint8_t ring[4 * OFL_HCQE_LEN], ci[4];
    struct ofl_hcq_host hh;
    struct ofl_cqe e, out[4];
    uint32_t i, n;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_OK(ofl_hcq_host_init(&hh, ring, 4, ci, NULL));
        cqe(&e, 7, OFL_WC_SUCCESS, OFL_CQE_SOLICITED | OFL_CQE_IMM);
        ofl_hcqe_encode(ring, &e, 1);
        ofl_hcqe_encode(ring + OFL_HCQE_LEN, &e, 1);
        ring[OFL_HCQE_LEN + bad[i].off] = bad[i].val;
        CHECK_ERR(ofl_hcq_reap(&hh, out, 4, &n), OFL_E_QP_HCQ_CQE);
        CHECK_EQ(n, 1); /* the good one before it */
        CHECK_EQ(hh.ci, 1);
        CHECK_EQ(hh.bad, 1);
        CHECK_EQ(ofl_load_le32(ci), 1);
        CHECK_ERR(ofl_hcq_reap(&hh, out, 4, &n), OFL_E_QP_HCQ_CQE);
        CHECK_EQ(n, 0);
    }
    CHECK_ERR(ofl_hcqe_decode(NULL, &e), OFL_E_ARG);
    ofl_hcqe_encode(ring, &e, 1);
    CHECK_OK(ofl_hcqe_decode(ring, &out[0]));
    CHECK_EQ(out[0].wr_id, 7);
    CHECK_EQ(out[0].flags, OFL_CQE_SOLICITED | OFL_CQE_IMM);
    ofl_hcqe_encode(NULL, &e, 1); /* ignored */
}

/* The staging CQ of a real QP drained into a host CQ. */
static void test_hcq_qp(void)
{
    struct qr_rig *r = qr_new(NULL);
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_cfg c;
    struct ofl_hcq_host hh;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe out[4];
    uint32_t moved, n;

    hp_init(&hp);
    cfg_init(&c, 8);
    CHECK_OK(ofl_hcq_host_init(&hh, hp.mem, 8, NULL, &hp.port));
    CHECK_OK(ofl_hcq_init(&h, &hp.port, &c));
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    qr_pump(r, 0);
    qr_wr(&wr, OFL_QP_OP_DELAY, 31, &sge, NULL, 0, 0);
    wr.flags |= OFL_QP_WR_SIGNALED;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_OK(ofl_hcq_flush(&h, &r->a.scq, 0, &moved, NULL));
    CHECK_EQ(moved, 1);
    CHECK_EQ(hp.notifies, 1);
    CHECK_OK(ofl_hcq_reap(&hh, out, 4, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(out[0].wr_id, 31);
    CHECK_EQ(out[0].opcode, OFL_QP_OP_DELAY);
    CHECK_EQ(out[0].qpn, r->a.qp.attr.qpn);
    qr_free(r);
}

/* Overflow end to end: a QP's completions overflow a host CQ nobody
 * reaps; the flush names the QP, and the core's rule moves it to ERROR,
 * whose flushed WQEs are lost too (the CQ stays overrun). */
static void test_hcq_qp_overflow(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct qr_rig *r = ovf_rig(&hp, &h, 2);

    if (r == NULL)
        return;
    post_delays(&r->a, 1, 3);
    qr_pump(r, 0);
    flush_overrun(&h, &r->a, 2);
    overrun_rule(&r->a.qp);
    /* Posted after: flushed in ERROR, and lost as well. */
    post_delays(&r->a, 4, 1);
    qr_pump(r, 0);
    flush_overrun(&h, &r->a, 0);
    CHECK_EQ(h.lost, 2);
    CHECK_EQ(h.pi, 2);
    qr_free(r);
}

/* Two QPs share one host CQ of 4 CQEs that nobody reaps (issue 27 gap):
 * a's 3 completions fit, b's first fills the ring and its next 2 are lost
 * (the flush names b), the device applies the overrun rule to every QP of
 * the CQ (both to ERROR with OFL_QP_EVT_CQ_OVERRUN), a's later
 * completions are lost too and name a; the host reaps exactly the 4 in
 * order, and no byte past the ring is written. */
static void test_hcq_multi_qp_overflow(void)
{
    static struct hport hp; /* host memory: too large for a kernel stack */
    struct ofl_hcq h;
    struct ofl_hcq_host hh;
    struct ofl_cqe out[8];
    struct qr_side *qp[2];
    struct qr_rig *r = ovf_rig(&hp, &h, 4);
    uint32_t moved, qpn = 0, i, n, guard = 1;

    if (r == NULL)
        return;
    qp[0] = &r->a;
    qp[1] = &r->b;
    CHECK(qp[0]->qp.attr.qpn != qp[1]->qp.attr.qpn);
    CHECK_OK(ofl_hcq_host_init(&hh, hp.mem, 4, NULL, &hp.port));
    memset(hp.mem + 4 * OFL_HCQE_LEN, 0xA5, HMEM - 4 * OFL_HCQE_LEN);
    CHECK_OK(ofl_hcq_arm(&h, OFL_CQ_ARM_ANY));
    post_delays(qp[0], 100, 3);
    post_delays(qp[1], 200, 3);
    qr_pump(r, 0);
    /* a: 3 CQEs, room for all */
    CHECK_OK(ofl_hcq_flush(&h, &qp[0]->scq, 0, &moved, &qpn));
    CHECK_EQ(moved, 3);
    CHECK_EQ(h.overrun, 0);
    /* b: one fits, two are lost; the flush names b */
    flush_overrun(&h, qp[1], 1);
    CHECK_EQ(h.lost, 2);
    CHECK_EQ(h.pi, 4);
    CHECK_EQ(h.overrun, 1);
    /* the device's rule: every QP of the CQ gets the async error */
    for (i = 0; i < 2; i++)
        overrun_rule(&qp[i]->qp);
    /* a's WQEs posted after are flushed in ERROR and lost as well: the
     * flush names a now; b's likewise */
    post_delays(qp[0], 999, 1);
    post_delays(qp[1], 999, 1);
    qr_pump(r, 0);
    flush_overrun(&h, qp[0], 0);
    flush_overrun(&h, qp[1], 0);
    CHECK_EQ(h.lost, 4);
    CHECK_EQ(h.pi, 4);
    /* room again (the host reaps) does not end the overrun */
    CHECK_OK(ofl_hcq_reap(&hh, out, 8, &n));
    CHECK_EQ(n, 4);
    for (i = 0; i < n && i < 4; i++) {
        CHECK_EQ(out[i].wr_id, i < 3 ? 100 + i : 200);
        CHECK_EQ(out[i].qpn, qp[i < 3 ? 0 : 1]->qp.attr.qpn);
        CHECK_EQ(out[i].status, OFL_WC_SUCCESS);
    }
    CHECK_OK(ofl_hcq_set_ci(&h, 4));
    {
        struct ofl_cqe e;

        cqe(&e, 1000, OFL_WC_SUCCESS, 0);
        CHECK_ERR(ofl_hcq_put(&h, &e, 0), OFL_E_QP_HCQ_OVERRUN);
    }
    CHECK_OK(ofl_hcq_reap(&hh, out, 8, &n));
    CHECK_EQ(n, 0);
    CHECK_EQ(h.lost, 5);
    /* nothing past the ring */
    for (i = 4 * OFL_HCQE_LEN; i < HMEM; i++)
        if (hp.mem[i] != 0xA5)
            guard = 0;
    CHECK(guard);
    qr_free(r);
}

OFL_SUITE(hcq)
{
    test_wqe_layout();
    test_wqe_checks();
    test_host_ring_fetch();
    test_hcq_init();
    test_hcq_phase();
    test_hcq_ci();
    test_hcq_overflow();
    test_hcq_moderation();
    test_hcq_hostile();
    test_hcq_qp();
    test_hcq_qp_overflow();
    test_hcq_multi_qp_overflow();
}
