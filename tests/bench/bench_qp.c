/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * qp: two engines in one process over the in-memory wire (the qp rig in
 * direct mode: a transmission is handed to the peer's ofl_qp_input at
 * once, in place). Measured per operation, everything included: post,
 * process (fetch, FIG. 15 checks, segmentation, DMA read, framing with the
 * CRC), transmit, receive (framing, CRC check, parse), place (checks, DMA
 * write), complete, poll.
 *
 *   qp_send64     64-byte Sends, signalled, each consuming a receive:
 *                 messages per second against the target of 10 M/s
 *   qp_write4k    4 KiB RDMA Writes, one FPDU each (EMSS 9000): bytes per
 *                 second as a ratio to memcpy of the same 4 KiB between the
 *                 same buffers in the same run (target >= 0.5)
 *
 * MPA CRC is negotiated on and computed by the posix port's CRC32c (ISA-L
 * or the CPU's instruction), as a deployment would; the same runs with CRC
 * off and with EMSS 1460 (three FPDUs per 4 KiB) are printed as info.
 */
#include "bench.h"
#include "ports/posix/ofl_posix.h"
#include "support/qp_rig.h"

#include <stdlib.h>

static ofl_posix_crc_fn crc_small, crc_large;

/* The posix port's accelerated CRC32c: the CPU instruction for short runs
 * (ISA-L's folding kernels have a fixed cost that dominates below a few
 * hundred bytes), ISA-L above. */
static uint32_t crc_hook(void *ctx, uint32_t state, const void *data,
                         size_t len)
{
    (void)ctx;
    return (len < 512 ? crc_small : crc_large)(state, data, len);
}

struct qctx {
    struct qr_rig *r;
    struct ofl_qp_wr swr;
    struct ofl_qp_recv_wr rwr;
    struct ofl_qp_sge ssge, rsge;
    uint8_t *src, *dst;
    uint32_t len;
    unsigned long errors;
};

static void send_batch(void *p, uint64_t n)
{
    struct qctx *c = p;
    struct ofl_cqe e;
    uint32_t got;
    uint64_t i;

    for (i = 0; i < n; i++) {
        if (ofl_qp_post_recv(&c->r->b.qp, &c->rwr) != OFL_OK ||
            ofl_qp_post_send(&c->r->a.qp, &c->swr, NULL) != OFL_OK ||
            ofl_qp_process(&c->r->a.qp, 0, 4) != OFL_OK)
            c->errors++;
        (void)ofl_cq_poll(&c->r->b.rcq, &e, 1, &got);
        c->errors += got != 1 || e.status != OFL_WC_SUCCESS;
        (void)ofl_cq_poll(&c->r->a.scq, &e, 1, &got);
        c->errors += got != 1;
    }
}

static void write_batch(void *p, uint64_t n)
{
    struct qctx *c = p;
    struct ofl_cqe e;
    uint32_t got;
    uint64_t i;

    for (i = 0; i < n; i++) {
        if (ofl_qp_post_send(&c->r->a.qp, &c->swr, NULL) != OFL_OK ||
            ofl_qp_process(&c->r->a.qp, 0, 8) != OFL_OK)
            c->errors++;
        (void)ofl_cq_poll(&c->r->a.scq, &e, 1, &got);
        c->errors += got != 1 || e.status != OFL_WC_SUCCESS;
    }
}

/* The port's CRC32c over the 4 KiB (what each side computes per FPDU). */
static void crc_batch(void *p, uint64_t n)
{
    struct qctx *c = p;
    uint32_t v = 0;
    uint64_t i;

    for (i = 0; i < n; i++) {
        v = crc_hook(NULL, v, c->src, c->len);
        bench_escape(c->src);
    }
    bench_sink = v;
}

static void memcpy_batch(void *p, uint64_t n)
{
    struct qctx *c = p;
    uint64_t i;

    for (i = 0; i < n; i++) {
        memcpy(c->dst, c->src, c->len);
        bench_escape(c->dst);
    }
}

/* Set while a rig is made for the fused figures (bench_rig): the sim
 * ports get the fused copy + CRC hooks. The other figures run with the
 * plain hooks, the port contract most ports have. */
static bool bench_fused;

/* A rig in direct mode with the accelerated CRC (and the fused hooks on
 * both ports when bench_fused). */
static struct qr_rig *bench_rig(bool crc, uint32_t emss)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = crc;
    o.emss = emss;
    o.direct = true;
    /* The fused copy + CRC hooks, as a port with them would run: a speed
     * build's engine moves and sums a payload in one call (they sum with
     * crc_hook when it is set). */
    o.fused_a = o.fused_b = bench_fused;
    if (crc_small != NULL) /* before the streams are made: looked at then */
        o.crc_a = o.crc_b = crc_hook;
    return qr_new(&o);
}

static int setup(struct qctx *c, bool crc, uint32_t emss, uint8_t opcode,
                 uint32_t len)
{
    uint32_t ls, ld;

    memset(c, 0, sizeof(*c));
    c->r = bench_rig(crc, emss);
    if (c->r == NULL)
        return -1;
    c->len = len;
    c->src = qr_alloc(&c->r->a, len, true);
    c->dst = qr_alloc(&c->r->b, len, true);
    ls = qr_reg(&c->r->a, c->src, len, OFL_TPT_LOCAL_READ, 0);
    ld = qr_reg(&c->r->b, c->dst, len,
                OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE, 0);
    if (c->src == NULL || c->dst == NULL || ls == 0 || ld == 0)
        return -1;
    memset(c->src, 0x5A, len);
    qr_wr(&c->swr, opcode, 1, &c->ssge, c->src, len, ls);
    c->swr.remote_stag = ld;
    c->swr.remote_to = (uint64_t)(uintptr_t)c->dst;
    c->rsge.addr = (uint64_t)(uintptr_t)c->dst;
    c->rsge.len = len;
    c->rsge.stag = ld;
    c->rwr.wr_id = 7;
    c->rwr.sge = &c->rsge;
    c->rwr.num_sge = 1;
    return 0;
}

static double run(bench_batch_fn fn, bool crc, uint32_t emss, uint8_t op,
                  uint32_t len, unsigned long *errors)
{
    struct qctx *c = malloc(sizeof(*c));
    double t = 0;

    if (c == NULL || setup(c, crc, emss, op, len) != 0) {
        *errors += 1;
    } else {
        t = bench_measure(fn, c);
        *errors += c->errors;
        if (c->r->a.qp.state != OFL_QP_RTS || c->r->b.qp.state != OFL_QP_RTS ||
            c->r->a.sim.violations + c->r->b.sim.violations != 0)
            *errors += 1;
    }
    if (c != NULL)
        qr_free(c->r);
    free(c);
    return t;
}

/*
 * qp_count: the instruction counter's entry points (tests/bench/count_qp.sh
 * runs this under callgrind and splits each function's cost by owner: the
 * library, the sim port, the CRC, the wire, the loop). Each runs COUNT_MSGS
 * operations of one kind on a rig of its own, after COUNT_WARM of the same
 * to warm it: 64-byte Sends (CRC on, EMSS 1460), 4 KiB Writes in one FPDU
 * (CRC on, EMSS 9000) and in three (CRC on, EMSS 1460), and, for the
 * Write's unavoidable work, the port's CRC32c and a memcpy of the 4 KiB.
 * The bench runs only this part when OFL_BENCH_QP_COUNT is set. It prints
 * the FPDUs per Write of each (the sender's transmissions, one FPDU each,
 * over COUNT_MSGS), which the counter's per-FPDU figure divides by.
 *
 * It also counts the passes a Write makes over its payload on each side,
 * with no instruction counter: every port hook that touches bytes
 * (dma_read, dma_write, crc32c, and the fused dma_read_crc32c and
 * dma_write_crc32c) is wrapped for one Write and the bytes each side's
 * hooks touch are summed; passes = bytes / 4096, rounded down, so that
 * headers and completions do not count. A fused call's bytes count once
 * (it is one pass: the sim sums each block from L1 right after copying
 * it), so the crc32c hook it calls for its blocks is not counted again. A
 * copy the library made itself, not through a hook, would not be seen
 * (there is none today: the library reaches host memory only through the
 * port).
 */
#define COUNT_MSGS 4096u
#define COUNT_WARM 256u

static BENCH_COUNT_FN void qp_count_send64(struct qctx *c)
{
    send_batch(c, COUNT_MSGS);
    bench_sink = 1;
}

static BENCH_COUNT_FN void qp_count_write4k_1fpdu(struct qctx *c)
{
    write_batch(c, COUNT_MSGS);
    bench_sink = 2;
}

static BENCH_COUNT_FN void qp_count_write4k_emss1460(struct qctx *c)
{
    write_batch(c, COUNT_MSGS);
    bench_sink = 3;
}

static BENCH_COUNT_FN void qp_count_write4k_fused(struct qctx *c)
{
    write_batch(c, COUNT_MSGS);
    bench_sink = 6;
}

static BENCH_COUNT_FN void qp_count_crc4k(struct qctx *c)
{
    crc_batch(c, COUNT_MSGS);
    bench_sink = 4;
}

static BENCH_COUNT_FN void qp_count_copy4k(struct qctx *c)
{
    memcpy_batch(c, COUNT_MSGS);
    bench_sink = 5;
}

/* Bytes the hooks of each side touched (the wrappers below). */
struct pass_side {
    struct ofl_port orig;
    uint64_t bytes;
    bool fused; /* inside a fused hook: its crc32c calls are its own pass */
};
static struct pass_side pass_a, pass_b;

/* The side a hook's ctx (the side's sim port) belongs to. */
static struct pass_side *pass_of(void *ctx)
{
    return ctx == pass_a.orig.ctx ? &pass_a : &pass_b;
}

static int pass_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    struct pass_side *p = pass_of(ctx);

    p->bytes += len;
    return p->orig.dma_read(ctx, pa, dst, len);
}

static int pass_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    struct pass_side *p = pass_of(ctx);

    p->bytes += len;
    return p->orig.dma_write(ctx, pa, src, len);
}

static uint32_t pass_crc(void *ctx, uint32_t st, const void *d, size_t len)
{
    struct pass_side *p = pass_of(ctx);

    if (!p->fused)
        p->bytes += len;
    return p->orig.crc32c(ctx, st, d, len);
}

static int pass_fread(void *ctx, uint64_t pa, void *dst, size_t len,
                      uint32_t *st)
{
    struct pass_side *p = pass_of(ctx);
    int r;

    p->bytes += len;
    p->fused = true;
    r = p->orig.dma_read_crc32c(ctx, pa, dst, len, st);
    p->fused = false;
    return r;
}

static int pass_fwrite(void *ctx, uint64_t pa, const void *src, size_t len,
                       uint32_t *st)
{
    struct pass_side *p = pass_of(ctx);
    int r;

    p->bytes += len;
    p->fused = true;
    r = p->orig.dma_write_crc32c(ctx, pa, src, len, st);
    p->fused = false;
    return r;
}

/* Wraps the hooks of one side's port (p->orig its hooks as they were). */
static void pass_wrap(struct ofl_port *port, const struct pass_side *p)
{
    port->dma_read = pass_read;
    port->dma_write = pass_write;
    if (p->orig.crc32c != NULL)
        port->crc32c = pass_crc;
    if (p->orig.dma_read_crc32c != NULL)
        port->dma_read_crc32c = pass_fread;
    if (p->orig.dma_write_crc32c != NULL)
        port->dma_write_crc32c = pass_fwrite;
}

/* One 4 KiB Write (CRC on, EMSS 9000) with the hooks wrapped: the passes
 * over its payload at the sender (a) and the receiver (b), -1 on error. */
static int count_passes(unsigned *tx, unsigned *rx)
{
    struct qctx *c = calloc(1, sizeof(*c));
    int ret = -1, made;

    bench_fused = true; /* the figure: with the fused hook */
    made = c != NULL && setup(c, true, 9000, OFL_QP_OP_WRITE, 4096) == 0;
    bench_fused = false;
    if (made) {
        write_batch(c, COUNT_WARM);
        pass_a.orig = c->r->a.sim.port;
        pass_b.orig = c->r->b.sim.port;
        pass_a.bytes = pass_b.bytes = 0;
        pass_wrap(&c->r->a.sim.port, &pass_a);
        pass_wrap(&c->r->b.sim.port, &pass_b);
        write_batch(c, 1);
        c->r->a.sim.port = pass_a.orig;
        c->r->b.sim.port = pass_b.orig;
        *tx = (unsigned)(pass_a.bytes / 4096);
        *rx = (unsigned)(pass_b.bytes / 4096);
        if (pass_a.orig.crc32c == NULL) /* the library's own CRC: unseen */
            *tx = *rx = 0;
        if (c->errors == 0 &&
            c->r->a.sim.violations + c->r->b.sim.violations == 0)
            ret = 0;
    }
    if (c != NULL && c->r != NULL)
        qr_free(c->r);
    free(c);
    return ret;
}

static void qp_count(void)
{
    struct qctx *c[5];
    unsigned long errors = 0;
    unsigned tx = 0, rx = 0;
    unsigned long tx1 = 0, tx3 = 0; /* transmissions: one FPDU each */
    int i, made;

    for (i = 0; i < 5; i++)
        c[i] = calloc(1, sizeof(*c[i]));
    bench_fused = true; /* c[4]: the 1-FPDU Write with the fused hooks */
    made = c[4] != NULL && setup(c[4], true, 9000, OFL_QP_OP_WRITE, 4096) == 0;
    bench_fused = false;
    if (c[0] == NULL || c[1] == NULL || c[2] == NULL || c[3] == NULL ||
        !made || setup(c[0], true, 1460, OFL_QP_OP_SEND, 64) != 0 ||
        setup(c[1], true, 9000, OFL_QP_OP_WRITE, 4096) != 0 ||
        setup(c[2], true, 1460, OFL_QP_OP_WRITE, 4096) != 0 ||
        setup(c[3], true, 9000, OFL_QP_OP_WRITE, 4096) != 0) {
        errors++;
    } else {
        send_batch(c[0], COUNT_WARM);
        qp_count_send64(c[0]);
        write_batch(c[1], COUNT_WARM);
        tx1 = c[1]->r->a.tx_calls;
        qp_count_write4k_1fpdu(c[1]);
        tx1 = c[1]->r->a.tx_calls - tx1;
        write_batch(c[2], COUNT_WARM);
        tx3 = c[2]->r->a.tx_calls;
        qp_count_write4k_emss1460(c[2]);
        tx3 = c[2]->r->a.tx_calls - tx3;
        crc_batch(c[3], COUNT_WARM);
        qp_count_crc4k(c[3]);
        memcpy_batch(c[3], COUNT_WARM);
        qp_count_copy4k(c[3]);
        write_batch(c[4], COUNT_WARM);
        qp_count_write4k_fused(c[4]);
        if (c[4]->errors != 0 || c[4]->r->b.sim.fused_writes == 0 ||
            c[4]->r->a.sim.fused_reads == 0 ||
            memcmp(c[4]->src, c[4]->dst, 4096) != 0)
            errors++; /* the fused hooks were not taken, or misplaced */
        for (i = 0; i < 3; i++)
            if (c[i]->errors != 0 || c[i]->r->a.qp.state != OFL_QP_RTS ||
                c[i]->r->b.qp.state != OFL_QP_RTS ||
                c[i]->r->a.sim.violations + c[i]->r->b.sim.violations != 0)
                errors++;
        if (memcmp(c[1]->src, c[1]->dst, 4096) != 0 ||
            memcmp(c[2]->src, c[2]->dst, 4096) != 0)
            errors++;
        if (count_passes(&tx, &rx) != 0 || tx1 % COUNT_MSGS != 0 ||
            tx3 % COUNT_MSGS != 0)
            errors++;
    }
    for (i = 0; i < 5; i++) {
        if (c[i] != NULL && c[i]->r != NULL)
            qr_free(c[i]->r);
        free(c[i]);
    }
    if (errors != 0) {
        bench_skip("qp_count", "setup or an operation failed");
        return;
    }
    printf("bench: qp_count ran %u operations each (tests/bench/count_qp.sh "
           "counts their instructions)\n", COUNT_MSGS);
    printf("bench: qp_count FPDUs per 4 KiB Write: %lu at EMSS 9000, %lu at "
           "EMSS 1460\n", tx1 / COUNT_MSGS, tx3 / COUNT_MSGS);
    if (tx == 0)
        printf("bench: qp_count passes not measured: no CRC32c hook\n");
    else
        printf("bench: qp_count passes over a 4 KiB Write's payload: "
               "sender %u receiver %u\n", tx, rx);
}

OFL_BENCH(qp)
{
    unsigned long errors = 0;
    double t, t_mem;
    struct qctx *c;

    crc_small = ofl_posix_crc32c_cpu();
    crc_large = ofl_posix_crc32c_isal();
    if (crc_large == NULL)
        crc_large = crc_small;
    if (crc_small == NULL)
        crc_small = crc_large;
    if (crc_small == NULL)
        printf("bench: qp: no accelerated CRC32c here; the portable one is "
               "used\n");
    if (getenv("OFL_BENCH_QP_COUNT") != NULL) {
        qp_count();
        return;
    }
    /* 64-byte Sends */
    t = run(send_batch, true, 1460, OFL_QP_OP_SEND, 64, &errors);
    bench_report("qp_send64", 1e-6 / t, "M msg/s", "target 10 M msg/s",
                 1e-7 / t, ">=", 1.0);
    bench_info("qp_send64_ns", t * 1e9, "ns/msg", "target 100 ns/msg",
               t / 1e-7);
    t = run(send_batch, false, 1460, OFL_QP_OP_SEND, 64, &errors);
    bench_info("qp_send64_nocrc", 1e-6 / t, "M msg/s", "target 10 M msg/s",
               1e-7 / t);
    /* 4 KiB RDMA Writes against memcpy of the same bytes */
    c = malloc(sizeof(*c));
    if (c != NULL && setup(c, false, 9000, OFL_QP_OP_WRITE, 4096) == 0) {
        t_mem = bench_measure(memcpy_batch, c);
        t = run(write_batch, true, 9000, OFL_QP_OP_WRITE, 4096, &errors);
        bench_report("qp_write4k", 4096.0 / t * 1e-9, "GB/s", "memcpy 4k",
                     t_mem / t, ">=", 0.5);
        t = run(write_batch, false, 9000, OFL_QP_OP_WRITE, 4096, &errors);
        bench_info("qp_write4k_nocrc", 4096.0 / t * 1e-9, "GB/s",
                   "memcpy 4k", t_mem / t);
        t = run(write_batch, true, 1460, OFL_QP_OP_WRITE, 4096, &errors);
        bench_info("qp_write4k_emss1460", 4096.0 / t * 1e-9, "GB/s",
                   "memcpy 4k", t_mem / t);
        bench_fused = true; /* one pass over the payload per side */
        t = run(write_batch, true, 9000, OFL_QP_OP_WRITE, 4096, &errors);
        bench_fused = false;
        bench_info("qp_write4k_fused", 4096.0 / t * 1e-9, "GB/s",
                   "memcpy 4k", t_mem / t);
        bench_info("memcpy_4k", 4096.0 / t_mem * 1e-9, "GB/s", "itself", 1.0);
        /* The ceiling the port contract sets, measured in the same run:
         * a Write moves its bytes twice (DMA read into the FPDU at the
         * sender, DMA write from it at the receiver, each a copy here)
         * and, with CRC, the FPDU is summed twice (RFC 5044 §4.2: sender
         * computes, receiver checks). Zero protocol cost would give
         * t_mem / (2 t_mem + 2 t_crc); without CRC the ceiling is 0.5. */
        if (crc_small != NULL) {
            double t_crc = bench_measure(crc_batch, c);
            double t_min = 2 * t_mem + 2 * t_crc;

            bench_info("qp_write4k_ceiling", 4096.0 / t_min * 1e-9, "GB/s",
                       "memcpy 4k", t_mem / t_min);
            /* Were the port contract changed so that the sender handed its
             * payload to the wire by reference (no DMA-read copy), a Write
             * would still be placed once and summed twice: the bound of
             * that design with CRC on. */
            t_min = t_mem + 2 * t_crc;
            bench_info("qp_write4k_ceiling_zero_copy_tx", 4096.0 / t_min * 1e-9,
                       "GB/s", "memcpy 4k", t_mem / t_min);
        }
        /* CRC off under the port contract: two copies, nothing else. */
        bench_info("qp_write4k_ceiling_nocrc", 4096.0 / (2 * t_mem) * 1e-9,
                   "GB/s", "memcpy 4k", 0.5);
    } else {
        errors++;
    }
    if (c != NULL)
        qr_free(c->r);
    free(c);
    if (errors != 0)
        printf("bench: qp: %lu errors while measuring\n", errors);
}
