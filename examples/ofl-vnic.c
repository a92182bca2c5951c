/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-vnic: an emulated RNIC as a hypervisor runs one (issue 27, item 3).
 *
 * Two sides, each a pair of processes:
 *   - a "guest driver" that owns guest RAM (a memfd both processes map:
 *     the guest's physical memory) and a doorbell page (the device's BAR,
 *     a shared mapping). It writes send and receive WQEs into rings in its
 *     RAM in the byte layout of offload.h (ofl_qp_wqe_send / _recv), rings
 *     doorbells (a producer index in the BAR, then a kick on an eventfd),
 *     registers memory through a mailbox in the BAR, arms its CQ and
 *     reaps CQEs from a completion ring in its RAM (ofl_hcq_reap: plain
 *     loads, an acquire barrier, every CQE checked), sleeping on an
 *     interrupt eventfd;
 *   - a "device model" that runs the engine over a port whose DMA hooks
 *     translate guest-physical addresses (GPA_BASE upwards) into its own
 *     mapping of guest RAM, refusing anything outside guest RAM (an
 *     IOMMU: no byte is read or written, the refusal is counted), and
 *     whose notify hook raises the guest's interrupt. The QP's rings live
 *     in guest RAM (ofl_qp_mem.sq_host / rq_host), its completions go
 *     through a staging CQ into the guest's CQ ring by DMA (ofl_hcq_*,
 *     the consumer index read by DMA from guest RAM).
 * The two devices speak iWARP over TCP on 127.0.0.1 (the posix port).
 * Guest A, the client, RDMA-writes a pattern into guest B's buffer, reads
 * it back, runs Fetch-and-Add and Compare-and-Swap on B's counter and
 * Sends a verdict request; guest B checks its buffer and counter and
 * Sends the answer. Then guest A plants a Send whose buffer lies outside
 * its RAM (a region registered over GPAs past the end): the device must
 * refuse the DMA, complete the WQE in error, and leave every byte of
 * guest RAM outside the CQ ring (and the SQ slot the guest wrote) as it
 * was. Last, a doorbell that claims more WQEs than the ring holds must be
 * refused with nothing fetched.
 *
 *   ofl-vnic --demo    run it; exit status 0 only if everything matched
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "offload.h"
#include "ports/posix/ofl_posix.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define GPA_BASE 0x40000000ull /* guest RAM starts here, guest-physical */
#define GRAM 0x40000u          /* 256 KiB of guest RAM */
#define DEPTH 32u
#define SGE 2u
#define CQCAP 64u
#define IRD 8u
#define ORD 8u
#define TXCAP 9200u
#define RXCAP 65536u
#define MSG 64u
#define BUFLEN 0x8000u
#define PATLEN 4096u
#define TIMEOUT_MS 15000

/* The guest's physical memory map (offsets into guest RAM). */
#define G_SQ 0x00000u
#define G_RQ 0x04000u
#define G_CQ 0x08000u
#define G_CI 0x0A000u /* the CQ consumer index the device reads */
#define G_BUF 0x10000u
#define G_LOCAL 0x18000u
#define G_MSGS 0x20000u
#define G_OUT 0x22000u
#define G_COUNTER 0x23000u
#define G_RESULT 0x23040u

#define CQ_VECTOR 1u
#define QP_VECTOR 2u

enum { CMD_REG = 1 };

/* The device's BAR: registers the guest writes (doorbells, mailbox, CQ
 * arming) and status the device reports. Every field is one aligned u32
 * or u64 accessed atomically. */
struct bar {
    uint64_t sq_gpa, rq_gpa, cq_gpa, ci_gpa; /* queue configuration */
    uint32_t cfg_seq;    /* guest: the configuration is valid */
    uint32_t ready;      /* device: 1 QP established, 2 failed */
    uint32_t sq_pi, rq_pi; /* doorbells: producer indexes */
    uint32_t arm_seq, arm_kind; /* CQ arming requests */
    uint32_t cmd_seq, cmd_done; /* mailbox */
    uint32_t cmd_op, cmd_access, cmd_len, cmd_stag, cmd_status;
    uint32_t go;         /* guest: receives are posted, connect */
    uint32_t stop;       /* host: the device may go */
    uint64_t cmd_gpa;
    uint64_t iommu_last; /* the last refused GPA */
    uint32_t iommu_refused; /* DMA refusals */
    uint32_t qp_state, qp_events, qp_err, db_errors, hcq_lost;
};

#define LD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define ST(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    if (kind == OFL_BARRIER_ACQUIRE)
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    else if (kind == OFL_BARRIER_RELEASE)
        __atomic_thread_fence(__ATOMIC_RELEASE);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void kick(int fd)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
        (void)0; /* the counter saturating is harmless: a kick is a hint */
}

static void drain(int fd)
{
    uint64_t v;

    while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
        ;
}

/* ======================================================================== */
/* the device model                                                        */
/* ======================================================================== */

struct dev {
    struct ofl_posix px; /* first: the port's ctx is &px */
    struct ofl_posix_conn conn;
    const char *name;
    struct bar *bar;
    uint8_t *ram;        /* the device's own mapping of guest RAM */
    int kick_fd, irq_fd;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[64];
    uint64_t att[512];
    uint32_t att_map[OFL_TPT_ATT_POOL_WORDS(512)];
    struct ofl_tpt_att_pool att_pool;
    struct ofl_cq cq;    /* staging, device memory */
    struct ofl_cqe cqe[CQCAP];
    struct ofl_hcq hcq;  /* the guest's CQ ring */
    struct ofl_qp qp;
    struct ofl_qp_swqe track[DEPTH];
    struct ofl_qp_sge sq_sge[SGE], rq_sge[SGE];
    struct ofl_qp_inreq irq[IRD];
    uint32_t ord_ring[ORD];
    struct ofl_seq_pending ot[4];
    uint8_t tx_buf[TXCAP], rx_buf[RXCAP];
    uint8_t sq_view[DEPTH * 128], rq_view[DEPTH * 64]; /* unused verbs view */
    uint32_t sq_seen, rq_seen, arm_seen, cmd_seen;
};

/* The IOMMU: [gpa, gpa + len) must lie inside guest RAM. */
static uint8_t *iommu(struct dev *d, uint64_t gpa, size_t len)
{
    if (gpa < GPA_BASE || gpa - GPA_BASE > GRAM ||
        len > GRAM - (gpa - GPA_BASE)) {
        __atomic_fetch_add(&d->bar->iommu_refused, 1, __ATOMIC_RELAXED);
        ST(d->bar->iommu_last, gpa);
        return NULL;
    }
    return d->ram + (gpa - GPA_BASE);
}

static int dev_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    uint8_t *p = iommu((struct dev *)ctx, pa, len);

    if (p == NULL)
        return -1;
    memcpy(dst, p, len);
    return 0;
}

static int dev_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    uint8_t *p = iommu((struct dev *)ctx, pa, len);

    if (p == NULL)
        return -1;
    memcpy(p, src, len);
    return 0;
}

static void dev_notify(void *ctx, uint32_t vector)
{
    struct dev *d = ctx;

    (void)vector; /* CQ_VECTOR and QP_VECTOR share the guest's line */
    kick(d->irq_fd);
}

static uint32_t dev_reg(struct dev *d, uint64_t gpa, uint32_t len,
                        uint8_t access, enum ofl_err *err)
{
    struct ofl_tpt_region_desc r;
    struct ofl_tpt_pbuf b;
    uint32_t stag = 0, slots = 0;

    memset(&r, 0, sizeof(r));
    r.va = gpa; /* the guest addresses its buffers by GPA */
    r.page_shift = 12;
    r.access = access;
    b.pa = gpa;
    b.len = len;
    /* Registration only records the translation: the IOMMU is checked
     * when a DMA uses it, as a real device's is. */
    *err = ofl_tpt_att_slots(len, (uint32_t)(gpa & 4095u), 12,
                             OFL_TPT_ATT_DIRECT, &slots);
    if (*err == OFL_OK)
        *err = ofl_tpt_att_alloc(&d->att_pool, slots, &r.att_base);
    if (*err == OFL_OK) {
        *err = ofl_tpt_reg_phys(&d->tpt, 1, &r, &b, 1, &stag);
        if (*err != OFL_OK)
            (void)ofl_tpt_att_free(&d->att_pool, r.att_base, slots);
    }
    return stag;
}

static int dev_setup(struct dev *d)
{
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;
    struct ofl_hcq_cfg hc;
    struct bar *bar = d->bar;

    ofl_posix_init(&d->px);
    d->px.port.dma_read = dev_dma_read;
    d->px.port.dma_write = dev_dma_write;
    d->px.port.notify = dev_notify;
    d->px.port.barrier = barrier;
    if (ofl_tpt_init(&d->tpt, d->entry, 64, d->att, 512, &d->px.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_tpt_att_pool_init(&d->att_pool, d->att_map,
                              OFL_TPT_ATT_POOL_WORDS(512), 512) != OFL_OK ||
        ofl_cq_init(&d->cq, d->cqe, CQCAP, NULL, 0) != OFL_OK)
        return -1;
    memset(&hc, 0, sizeof(hc));
    hc.ring_pa = LD(bar->cq_gpa);
    hc.ci_pa = LD(bar->ci_gpa);
    hc.ci_dma = 1;
    hc.cap = CQCAP;
    hc.vector = CQ_VECTOR;
    hc.mod_count = 1;
    hc.mod_time = 1000000; /* 1 ms */
    if (ofl_hcq_init(&d->hcq, &d->px.port, &hc) != OFL_OK)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qpn = 1;
    a.pd = 1;
    a.service = OFL_QP_SVC_IWARP;
    a.reg_option = OFL_QP_REG_OPTION1;
    a.ord = ORD;
    a.ird = IRD;
    a.event_vector = QP_VECTOR;
    a.tpt = &d->tpt;
    a.port = &d->px.port;
    a.send_cq = &d->cq;
    a.recv_cq = &d->cq;
    a.transmit = ofl_posix_transmit;
    a.transmit_ctx = &d->conn;
    memset(&m, 0, sizeof(m));
    m.sq_ring = d->sq_view;
    m.sq_ring_pa = LD(bar->sq_gpa);
    m.sq_depth = DEPTH;
    m.sq_max_sge = SGE;
    m.sq_host = 1;
    m.rq_ring = d->rq_view;
    m.rq_ring_pa = LD(bar->rq_gpa);
    m.rq_depth = DEPTH;
    m.rq_max_sge = SGE;
    m.rq_host = 1;
    m.sq_track = d->track;
    m.sq_sge = d->sq_sge;
    m.rq_sge = d->rq_sge;
    m.irq = d->irq;
    m.ord_ring = d->ord_ring;
    m.tx_buf = d->tx_buf;
    m.tx_cap = TXCAP;
    m.rx_buf = d->rx_buf;
    m.rx_cap = RXCAP;
    m.ot_pending = d->ot;
    m.ot_cap = 4;
    if (ofl_qp_ring_size(DEPTH, SGE, true) > sizeof(d->sq_view) ||
        ofl_qp_ring_size(DEPTH, SGE, false) > sizeof(d->rq_view) ||
        ofl_qp_create(&d->qp, &a, &m) != OFL_OK ||
        ofl_qp_modify(&d->qp, OFL_QP_INIT) != OFL_OK)
        return -1;
    return 0;
}

static int dev_connect(struct dev *d, int fd, int initiator)
{
    struct ofl_mpa_cfg cfg;
    enum ofl_err err;

    if (fd < 0)
        return -1;
    memset(&cfg, 0, sizeof(cfg));
    cfg.rev = 2;
    cfg.crc = true;
    cfg.enhanced = true;
    cfg.ird = IRD;
    cfg.ord = ORD;
    err = initiator ? ofl_posix_mpa_connect(&d->conn, fd, &cfg, TIMEOUT_MS)
                    : ofl_posix_mpa_accept(&d->conn, fd, &cfg, TIMEOUT_MS);
    if (err == OFL_OK)
        err = ofl_posix_establish(&d->conn, &d->qp, 0, 1u << 24);
    if (err != OFL_OK) {
        fprintf(stderr, "%s: connect: %s\n", d->name, ofl_strerror(err));
        return -1;
    }
    return 0;
}

/* One round of the device: mailbox, doorbells, arming, engine, CQ. */
static void dev_round(struct dev *d)
{
    struct bar *bar = d->bar;
    uint64_t now = now_ns();
    uint32_t v, moved, lost_qpn = 0;
    enum ofl_err err;

    drain(d->kick_fd);
    v = LD(bar->cmd_seq);
    if (v != d->cmd_seen) {
        d->cmd_seen = v;
        err = OFL_E_ARG;
        if (LD(bar->cmd_op) == CMD_REG)
            ST(bar->cmd_stag, dev_reg(d, LD(bar->cmd_gpa), LD(bar->cmd_len),
                                      (uint8_t)LD(bar->cmd_access), &err));
        ST(bar->cmd_status, (uint32_t)err);
        ST(bar->cmd_done, v);
    }
    v = LD(bar->sq_pi);
    if (v != d->sq_seen) {
        if (ofl_qp_doorbell(&d->qp, OFL_QP_RING_SQ, v) != OFL_OK)
            __atomic_fetch_add(&bar->db_errors, 1, __ATOMIC_RELAXED);
        d->sq_seen = v;
    }
    v = LD(bar->rq_pi);
    if (v != d->rq_seen) {
        if (ofl_qp_doorbell(&d->qp, OFL_QP_RING_RQ, v) != OFL_OK)
            __atomic_fetch_add(&bar->db_errors, 1, __ATOMIC_RELAXED);
        d->rq_seen = v;
    }
    v = LD(bar->arm_seq);
    if (v != d->arm_seen) {
        d->arm_seen = v;
        (void)ofl_hcq_arm(&d->hcq, (enum ofl_cq_arm)LD(bar->arm_kind));
    }
    (void)ofl_qp_process(&d->qp, now, 64);
    err = ofl_hcq_flush(&d->hcq, &d->cq, now, &moved, &lost_qpn);
    if (err == OFL_E_QP_HCQ_OVERRUN)
        (void)ofl_qp_cq_overrun(&d->qp); /* the one QP on this CQ */
    (void)ofl_hcq_tick(&d->hcq, now);
    ST(bar->hcq_lost, d->hcq.lost);
    ST(bar->qp_state, (uint32_t)d->qp.state);
    ST(bar->qp_events, d->qp.events);
    ST(bar->qp_err, (uint32_t)d->qp.err);
}

static int device_main(const char *name, struct bar *bar, int ram_fd,
                       int kick_fd, int irq_fd, int fd, int initiator)
{
    struct dev *d = calloc(1, sizeof(*d));
    uint64_t deadline = now_ns() + 30ull * 1000000000ull;
    int rc = 1;

    if (d == NULL)
        return 1;
    d->name = name;
    d->bar = bar;
    d->kick_fd = kick_fd;
    d->irq_fd = irq_fd;
    /* The device's own mapping: its addresses are not the guest's. */
    d->ram = mmap(NULL, GRAM, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, 0);
    if (d->ram == MAP_FAILED)
        goto out;
    while (LD(bar->cfg_seq) == 0 && now_ns() < deadline)
        usleep(1000);
    if (dev_setup(d) != 0) {
        ST(bar->ready, 2u);
        goto out;
    }
    /* The QP in INIT: registrations and receive WQEs before the stream
     * (a Send must find a receive WQE). */
    while (!LD(bar->go) && !LD(bar->stop) && now_ns() < deadline) {
        dev_round(d);
        usleep(200);
    }
    if (dev_connect(d, fd, initiator) != 0) {
        ST(bar->ready, 2u);
        goto out;
    }
    ST(bar->ready, 1u);
    while (!LD(bar->stop) && now_ns() < deadline) {
        dev_round(d);
        (void)ofl_posix_poll(&d->conn, &d->qp, 1);
    }
    rc = LD(bar->stop) ? 0 : 1;
    printf("%s: QP %s (%s), %u IOMMU refusals, %u CQEs written, %u "
           "interrupts\n",
           name, ofl_qp_state_name((enum ofl_qp_state)d->qp.state),
           ofl_strerror((enum ofl_err)d->qp.err), LD(bar->iommu_refused),
           d->hcq.pi, d->hcq.notifies);
    ofl_posix_close(&d->conn);
out:
    free(d);
    return rc;
}

/* ======================================================================== */
/* the guest driver                                                        */
/* ======================================================================== */

struct guest {
    const char *name;
    struct bar *bar;
    uint8_t *ram;        /* the guest's mapping of its RAM */
    int kick_fd, irq_fd;
    struct ofl_port bport; /* barriers only */
    struct ofl_hcq_host hh;
    uint32_t sq_stride, rq_stride;
    uint32_t sq_pi, rq_pi, sq_done;
    struct ofl_cqe pend[CQCAP];
    uint32_t npend;
    unsigned errors, irqs, waits;
    uint32_t l_buf, l_local, l_msgs, l_out, l_counter, l_result;
    uint64_t p_buf, p_counter; /* the peer's */
    uint32_t p_buf_stag, p_counter_stag;
};

static uint64_t gpa(uint32_t off)
{
    return GPA_BASE + off;
}

static void gfail(struct guest *g, const char *what)
{
    fprintf(stderr, "%s: %s\n", g->name, what);
    g->errors++;
}

static uint32_t greg(struct guest *g, uint64_t at, uint32_t len,
                     uint8_t access)
{
    struct bar *bar = g->bar;
    uint32_t seq = LD(bar->cmd_seq) + 1;
    uint64_t end = now_ns() + 5000000000ull;

    ST(bar->cmd_op, (uint32_t)CMD_REG);
    ST(bar->cmd_gpa, at);
    ST(bar->cmd_len, len);
    ST(bar->cmd_access, (uint32_t)access);
    ST(bar->cmd_seq, seq);
    kick(g->kick_fd);
    while (LD(bar->cmd_done) != seq && now_ns() < end)
        usleep(200);
    if (LD(bar->cmd_done) != seq || LD(bar->cmd_status) != OFL_OK) {
        gfail(g, "memory registration");
        return 0;
    }
    return LD(bar->cmd_stag);
}

static void gpost_recv(struct guest *g, uint32_t i)
{
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;
    uint8_t *slot = g->ram + G_RQ + (g->rq_pi & (DEPTH - 1)) * g->rq_stride;

    sge.addr = gpa(G_MSGS + i * MSG);
    sge.len = MSG;
    sge.stag = g->l_msgs;
    wr.wr_id = i;
    wr.sge = &sge;
    wr.num_sge = 1;
    if (ofl_qp_wqe_recv(slot, g->rq_stride, &wr) != OFL_OK)
        gfail(g, "receive WQE");
    __atomic_thread_fence(__ATOMIC_RELEASE); /* the slot before the PI */
    ST(g->bar->rq_pi, ++g->rq_pi);
    kick(g->kick_fd);
}

static void gpost_send(struct guest *g, struct ofl_qp_wr *wr)
{
    uint8_t *slot = g->ram + G_SQ + (g->sq_pi & (DEPTH - 1)) * g->sq_stride;

    wr->flags |= OFL_QP_WR_SIGNALED;
    if (g->sq_pi - g->sq_done >= DEPTH ||
        ofl_qp_wqe_send(slot, g->sq_stride, wr) != OFL_OK) {
        gfail(g, "send WQE");
        return;
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    ST(g->bar->sq_pi, ++g->sq_pi);
    kick(g->kick_fd);
}

/* Reaps what the CQ holds into pend[]. */
static void greap(struct guest *g)
{
    uint32_t n = 0;
    enum ofl_err err;

    if (g->npend >= CQCAP)
        return;
    err = ofl_hcq_reap(&g->hh, g->pend + g->npend, CQCAP - g->npend, &n);
    g->npend += n;
    if (err != OFL_OK)
        gfail(g, ofl_strerror(err));
}

/* Waits for the completion of a send WQE (wr_id) or of any receive
 * (recv: wr_id ignored); sleeps on the interrupt, armed, in between. */
static int gwait(struct guest *g, bool recv, uint64_t wr_id,
                 struct ofl_cqe *out)
{
    uint64_t end = now_ns() + (uint64_t)TIMEOUT_MS * 1000000ull;
    struct pollfd p;
    uint32_t i;

    for (;;) {
        greap(g);
        for (i = 0; i < g->npend; i++) {
            struct ofl_cqe *e = &g->pend[i];
            bool is_recv = e->opcode == OFL_QP_OP_RECV;

            if (e->qpn != 1) { /* the device's one QP */
                gfail(g, "a CQE naming another QP");
                return -1;
            }
            if (is_recv != recv || (!recv && e->wr_id != wr_id))
                continue;
            *out = *e;
            memmove(e, e + 1, (g->npend - i - 1) * sizeof(*e));
            g->npend--;
            if (!recv)
                g->sq_done++;
            return 0;
        }
        if (now_ns() >= end)
            break;
        /* Arm, then look once more (a CQE written before the arm raises
         * no interrupt), then sleep. */
        ST(g->bar->arm_kind, (uint32_t)OFL_CQ_ARM_ANY);
        ST(g->bar->arm_seq, LD(g->bar->arm_seq) + 1);
        kick(g->kick_fd);
        greap(g);
        if (g->npend != 0)
            continue;
        p.fd = g->irq_fd;
        p.events = POLLIN;
        p.revents = 0;
        g->waits++;
        if (poll(&p, 1, 50) == 1) {
            g->irqs++;
            drain(g->irq_fd);
        }
    }
    fprintf(stderr, "%s: no completion (QP state %u, err %s)\n", g->name,
            LD(g->bar->qp_state),
            ofl_strerror((enum ofl_err)LD(g->bar->qp_err)));
    g->errors++;
    return -1;
}

static int gsend_ok(struct guest *g, struct ofl_qp_wr *wr)
{
    struct ofl_cqe e;
    uint64_t id = wr->wr_id;

    gpost_send(g, wr);
    if (gwait(g, false, id, &e) != 0)
        return -1;
    if (e.status != OFL_WC_SUCCESS) {
        fprintf(stderr, "%s: wr %llu: %s\n", g->name, (unsigned long long)id,
                ofl_wc_status_str((enum ofl_wc_status)e.status));
        g->errors++;
        return -1;
    }
    return 0;
}

static void wr_init(struct ofl_qp_wr *wr, uint8_t op, uint64_t id,
                    struct ofl_qp_sge *sge, uint32_t off, uint32_t len,
                    uint32_t stag)
{
    memset(wr, 0, sizeof(*wr));
    wr->opcode = op;
    wr->wr_id = id;
    sge->addr = gpa(off);
    sge->len = len;
    sge->stag = stag;
    wr->sge = sge;
    wr->num_sge = 1;
}

/* Sends msg (len bytes) from out[0]. */
static int gsend_msg(struct guest *g, uint64_t id, const void *msg,
                     uint32_t len)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    memcpy(g->ram + G_OUT, msg, len);
    wr_init(&wr, OFL_QP_OP_SEND, id, &sge, G_OUT, len, g->l_out);
    return gsend_ok(g, &wr);
}

/* Receives one message into m (MSG bytes), reposting its buffer. */
static int grecv_msg(struct guest *g, uint8_t *m, uint32_t *len)
{
    struct ofl_cqe e;
    uint32_t i;

    if (gwait(g, true, 0, &e) != 0)
        return -1;
    if (e.status != OFL_WC_SUCCESS || e.wr_id >= DEPTH) {
        gfail(g, "receive completion");
        return -1;
    }
    i = (uint32_t)e.wr_id;
    memcpy(m, g->ram + G_MSGS + i * MSG, MSG);
    *len = e.byte_len;
    gpost_recv(g, i);
    return 0;
}

static void pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
    uint32_t i, x = seed;

    for (i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

static int guest_setup(struct guest *g)
{
    struct bar *bar = g->bar;
    uint64_t end = now_ns() + (uint64_t)TIMEOUT_MS * 1000000ull;
    uint8_t m[MSG];
    uint32_t i, len;

    memset(&g->bport, 0, sizeof(g->bport));
    g->bport.version = OFL_PORT_VERSION;
    g->bport.size = sizeof(g->bport);
    g->bport.barrier = barrier;
    g->sq_stride = ofl_qp_ring_size(DEPTH, SGE, true) / DEPTH;
    g->rq_stride = ofl_qp_ring_size(DEPTH, SGE, false) / DEPTH;
    /* The CQ ring and its consumer index, zeroed before the device. */
    if (ofl_hcq_host_init(&g->hh, g->ram + G_CQ, CQCAP, g->ram + G_CI,
                          &g->bport) != OFL_OK)
        return -1;
    ST(bar->sq_gpa, gpa(G_SQ));
    ST(bar->rq_gpa, gpa(G_RQ));
    ST(bar->cq_gpa, gpa(G_CQ));
    ST(bar->ci_gpa, gpa(G_CI));
    ST(bar->cfg_seq, 1u);
    kick(g->kick_fd);
    g->l_buf = greg(g, gpa(G_BUF), BUFLEN,
                    OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                        OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE);
    g->l_local = greg(g, gpa(G_LOCAL), BUFLEN,
                      OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE);
    g->l_msgs = greg(g, gpa(G_MSGS), DEPTH * MSG, OFL_TPT_LOCAL_WRITE);
    g->l_out = greg(g, gpa(G_OUT), MSG, OFL_TPT_LOCAL_READ);
    g->l_counter = greg(g, gpa(G_COUNTER), 8,
                        OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                            OFL_TPT_REMOTE_ATOMIC);
    g->l_result = greg(g, gpa(G_RESULT), 8, OFL_TPT_LOCAL_WRITE);
    if (g->errors)
        return -1;
    for (i = 0; i < DEPTH / 2; i++)
        gpost_recv(g, i);
    ST(bar->go, 1u);
    kick(g->kick_fd);
    while (LD(bar->ready) == 0 && now_ns() < end)
        usleep(1000);
    if (LD(bar->ready) != 1) {
        gfail(g, "device not ready");
        return -1;
    }
    /* Each side describes its buffer and counter to the other. */
    ofl_store_le64(m, gpa(G_BUF));
    ofl_store_le32(m + 8, g->l_buf);
    ofl_store_le32(m + 12, g->l_counter);
    ofl_store_le64(m + 16, gpa(G_COUNTER));
    if (gsend_msg(g, 1000, m, 24) != 0 || grecv_msg(g, m, &len) != 0)
        return -1;
    if (len != 24) {
        gfail(g, "peer description");
        return -1;
    }
    g->p_buf = ofl_load_le64(m);
    g->p_buf_stag = ofl_load_le32(m + 8);
    g->p_counter_stag = ofl_load_le32(m + 12);
    g->p_counter = ofl_load_le64(m + 16);
    return 0;
}

static uint64_t sum(const uint8_t *p, uint32_t len)
{
    uint64_t h = 1469598103934665603ull;
    uint32_t i;

    for (i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The client: Write, Read, atomics, a verdict request; then the planted
 * WQE outside guest RAM. */
static int guest_client(struct guest *g)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;
    uint8_t m[MSG];
    uint64_t before_lo, before_hi;
    uint32_t len, bad, refused;
    int rc;

    pattern(g->ram + G_LOCAL, PATLEN, 7);
    wr_init(&wr, OFL_QP_OP_WRITE, 1, &sge, G_LOCAL, PATLEN, g->l_local);
    wr.remote_stag = g->p_buf_stag;
    wr.remote_to = g->p_buf;
    if (gsend_ok(g, &wr) != 0)
        return -1;
    printf("%s: RDMA Write of %u bytes: ok\n", g->name, PATLEN);
    memset(g->ram + G_LOCAL + 0x4000, 0, PATLEN);
    wr_init(&wr, OFL_QP_OP_READ, 2, &sge, G_LOCAL + 0x4000, PATLEN,
            g->l_local);
    wr.remote_stag = g->p_buf_stag;
    wr.remote_to = g->p_buf;
    if (gsend_ok(g, &wr) != 0)
        return -1;
    if (memcmp(g->ram + G_LOCAL + 0x4000, g->ram + G_LOCAL, PATLEN) != 0) {
        gfail(g, "RDMA Read returned other bytes");
        return -1;
    }
    printf("%s: RDMA Read back: ok\n", g->name);
    wr_init(&wr, OFL_QP_OP_ATOMIC_FADD, 3, &sge, G_RESULT, 8, g->l_result);
    wr.remote_stag = g->p_counter_stag;
    wr.remote_to = g->p_counter;
    wr.atomic[0] = 5;
    if (gsend_ok(g, &wr) != 0)
        return -1;
    if (ofl_load_le64(g->ram + G_RESULT) != 100) {
        gfail(g, "Fetch-and-Add result");
        return -1;
    }
    wr_init(&wr, OFL_QP_OP_ATOMIC_CSWAP, 4, &sge, G_RESULT, 8, g->l_result);
    wr.remote_stag = g->p_counter_stag;
    wr.remote_to = g->p_counter;
    wr.atomic[0] = 7;
    wr.atomic[1] = ~0ull;
    wr.atomic[2] = 105;
    wr.atomic[3] = ~0ull;
    if (gsend_ok(g, &wr) != 0)
        return -1;
    if (ofl_load_le64(g->ram + G_RESULT) != 105) {
        gfail(g, "Compare-and-Swap result");
        return -1;
    }
    printf("%s: Fetch-and-Add 100+5, Compare-and-Swap 105->7: ok\n",
           g->name);
    if (gsend_msg(g, 5, "check", 6) != 0 || grecv_msg(g, m, &len) != 0)
        return -1;
    if (len != 3 || memcmp(m, "ok", 3) != 0) {
        gfail(g, "the server's verdict");
        return -1;
    }
    printf("%s: Send/Receive, the server saw the Write and the atomics: "
           "ok\n",
           g->name);

    /* The planted WQE: a region over GPAs past the end of guest RAM
     * (registration only records it), then a Send from it. */
    {
        uint32_t outside = greg(g, GPA_BASE + GRAM + 0x1000, 4096,
                                OFL_TPT_LOCAL_READ);

        if (outside == 0)
            return -1;
        /* Everything but the SQ ring (the guest writes the WQE) and the
         * CQ ring with its consumer index (the completion). */
        before_lo = sum(g->ram + G_RQ, G_CQ - G_RQ);
        before_hi = sum(g->ram + G_CI + 4, GRAM - G_CI - 4);
        refused = LD(g->bar->iommu_refused);
        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_SEND;
        wr.wr_id = 666;
        sge.addr = GPA_BASE + GRAM + 0x1000;
        sge.len = 64;
        sge.stag = outside;
        wr.sge = &sge;
        wr.num_sge = 1;
        wr.flags = OFL_QP_WR_SIGNALED;
        /* Written by hand, as a guest could; the WQE itself is valid. */
        gpost_send(g, &wr);
        rc = gwait(g, false, 666, &e);
        bad = e.status;
    }
    if (rc != 0)
        return -1;
    if (bad == OFL_WC_SUCCESS) {
        gfail(g, "the device carried out a WQE outside guest RAM");
        return -1;
    }
    if (LD(g->bar->iommu_refused) == refused) {
        gfail(g, "the IOMMU saw no refusal");
        return -1;
    }
    if (sum(g->ram + G_RQ, G_CQ - G_RQ) != before_lo ||
        sum(g->ram + G_CI + 4, GRAM - G_CI - 4) != before_hi) {
        gfail(g, "guest RAM changed");
        return -1;
    }
    printf("%s: WQE outside guest RAM (GPA 0x%llx): refused by the IOMMU "
           "(%u refusals), completion %s, QP %s, guest RAM untouched: ok\n",
           g->name, (unsigned long long)LD(g->bar->iommu_last),
           LD(g->bar->iommu_refused) - refused,
           ofl_wc_status_str((enum ofl_wc_status)bad),
           ofl_qp_state_name((enum ofl_qp_state)LD(g->bar->qp_state)));

    /* A doorbell claiming more WQEs than the ring holds: refused, nothing
     * fetched, no completion. */
    {
        uint32_t dbe = LD(g->bar->db_errors), cqes = g->hh.ci + g->npend;
        uint64_t end = now_ns() + 2000000000ull;

        ST(g->bar->sq_pi, g->sq_pi + DEPTH + 5);
        kick(g->kick_fd);
        while (LD(g->bar->db_errors) == dbe && now_ns() < end)
            usleep(500);
        usleep(20000);
        greap(g);
        if (LD(g->bar->db_errors) == dbe || g->hh.ci + g->npend != cqes) {
            gfail(g, "a doorbell past the ring was not refused");
            return -1;
        }
        printf("%s: doorbell past the ring (PI %u): refused, no WQE "
               "fetched: ok\n",
               g->name, g->sq_pi + DEPTH + 5);
    }
    return 0;
}

/* The server: answers the verdict request. */
static int guest_server(struct guest *g)
{
    uint8_t m[MSG], want[PATLEN];
    uint32_t len;
    int good;

    if (grecv_msg(g, m, &len) != 0)
        return -1;
    if (len != 6 || memcmp(m, "check", 6) != 0) {
        gfail(g, "verdict request");
        return -1;
    }
    pattern(want, PATLEN, 7);
    good = memcmp(g->ram + G_BUF, want, PATLEN) == 0 &&
           ofl_load_le64(g->ram + G_COUNTER) == 7;
    if (!good)
        gfail(g, "buffer or counter");
    printf("%s: buffer holds the client's pattern, counter %llu: %s\n",
           g->name, (unsigned long long)ofl_load_le64(g->ram + G_COUNTER),
           good ? "ok" : "MISMATCH");
    return gsend_msg(g, 6, good ? "ok" : "no", 3);
}

static int guest_main(const char *name, struct bar *bar, int ram_fd,
                      int kick_fd, int irq_fd, bool client)
{
    struct guest *g = calloc(1, sizeof(*g));
    int rc = 1;

    if (g == NULL)
        return 1;
    g->name = name;
    g->bar = bar;
    g->kick_fd = kick_fd;
    g->irq_fd = irq_fd;
    g->ram = mmap(NULL, GRAM, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, 0);
    if (g->ram != MAP_FAILED) {
        ofl_store_le64(g->ram + G_COUNTER, 100);
        if (guest_setup(g) == 0 &&
            (client ? guest_client(g) : guest_server(g)) == 0 &&
            g->errors == 0)
            rc = 0;
        printf("%s: %u interrupts over %u sleeps, %u doorbell errors, %u "
               "CQEs refused\n",
               name, g->irqs, g->waits, LD(bar->db_errors), g->hh.bad);
    }
    free(g); /* the host stops the devices once both guests are done */
    return rc;
}

/* ======================================================================== */
/* the host: two sides, four processes                                     */
/* ======================================================================== */

struct side {
    struct bar *bar;
    int ram_fd, kick_fd, irq_fd;
};

static int side_init(struct side *s)
{
    s->bar = mmap(NULL, sizeof(struct bar), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    s->ram_fd = memfd_create("ofl-vnic-guest-ram", 0);
    s->kick_fd = eventfd(0, EFD_NONBLOCK);
    s->irq_fd = eventfd(0, EFD_NONBLOCK);
    if (s->bar == MAP_FAILED || s->ram_fd < 0 || s->kick_fd < 0 ||
        s->irq_fd < 0 || ftruncate(s->ram_fd, GRAM) != 0)
        return -1;
    memset(s->bar, 0, sizeof(*s->bar));
    return 0;
}

static pid_t spawn(int (*fn)(void *), void *arg)
{
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        int rc = fn(arg);

        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    return pid;
}

struct job {
    struct side *s;
    int lfd;
    uint16_t port;
    int which; /* 0 device A, 1 device B, 2 guest A, 3 guest B */
};

static int run_job(void *arg)
{
    struct job *j = arg;
    struct side *s = j->s;
    int fd;

    switch (j->which) {
    case 0:
        fd = ofl_posix_tcp_accept(j->lfd);
        close(j->lfd);
        return device_main("device A", s->bar, s->ram_fd, s->kick_fd,
                           s->irq_fd, fd, 0);
    case 1:
        close(j->lfd);
        fd = ofl_posix_tcp_connect("127.0.0.1", j->port);
        return device_main("device B", s->bar, s->ram_fd, s->kick_fd,
                           s->irq_fd, fd, 1);
    case 2:
        close(j->lfd);
        return guest_main("guest A", s->bar, s->ram_fd, s->kick_fd,
                          s->irq_fd, true);
    default:
        close(j->lfd);
        return guest_main("guest B", s->bar, s->ram_fd, s->kick_fd,
                          s->irq_fd, false);
    }
}

static int demo(void)
{
    static const char *const who[4] = {"device A", "device B", "guest A",
                                       "guest B"};
    struct side s[2];
    struct job j[4];
    pid_t pid[4];
    uint16_t port = 0;
    int lfd, i, st, failed = 0;

    signal(SIGPIPE, SIG_IGN);
    if (side_init(&s[0]) != 0 || side_init(&s[1]) != 0) {
        printf("ofl-vnic: FAILED (shared memory, memfd or eventfd)\n");
        return 1;
    }
    lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    if (lfd < 0) {
        printf("ofl-vnic: FAILED (listen)\n");
        return 1;
    }
    printf("guest RAM: %u KiB at GPA 0x%llx per side; devices on "
           "127.0.0.1:%u\n",
           GRAM / 1024, (unsigned long long)GPA_BASE, port);
    for (i = 0; i < 4; i++) {
        j[i].s = &s[i & 1];
        j[i].lfd = lfd;
        j[i].port = port;
        j[i].which = i;
        pid[i] = spawn(run_job, &j[i]);
        if (pid[i] < 0)
            failed++;
    }
    close(lfd);
    /* Guests first; then the devices may stop. */
    for (i = 3; i >= 0; i--) {
        if (pid[i] <= 0)
            continue;
        if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0) {
            printf("%s failed\n", who[i]);
            failed++;
        }
        if (i == 2) {
            ST(s[0].bar->stop, 1u);
            ST(s[1].bar->stop, 1u);
        }
    }
    if (failed) {
        printf("ofl-vnic: FAILED (%d processes)\n", failed);
        return 1;
    }
    printf("ofl-vnic: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--demo") == 0)
        return demo();
    fprintf(stderr, "usage: %s --demo\n", argv[0]);
    return 2;
}
#else
int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("ofl-vnic: ok (skipped: memfd and eventfd are Linux's)\n");
    return 0;
}
#endif
