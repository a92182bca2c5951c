/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt: descriptor exchange rate. One exchange is a buffer send request the
 * host posts into the input table, which the adapter reads (DMA, batched),
 * decodes, checks, lists, transfers (an unmodified 32-byte buffer: from the
 * send cache into the connection's transmit ring) and answers with a
 * buffer available response in the output table, which the host reads and
 * checks. Both tables move 32-byte descriptors in batches of BATCH: the
 * host posts BATCH with one barrier, the adapter reads them with one DMA,
 * hands the run back with one DMA and writes the BATCH answers with one
 * DMA, the host reaps them in one call.
 *
 * Baseline, same run: DPDK rte_ring, single producer / single consumer,
 * two rings (requests and responses) of 32-byte elements: per exchange one
 * entry is enqueued and dequeued on each ring, in bursts of BATCH - the
 * same count of 32-byte entries moved each way, in the same batch size.
 * The baseline does no more than move the entries (no validation, no
 * payload), so the ratio is what the exchange's work costs over bare
 * movement. The two are measured alternately, best of ROUNDS each, so that
 * a busy machine disturbs both alike.
 *
 * Two informational lines follow: the floor (dt_floor_batch below), the
 * same exchange's unavoidable data movement with nothing checked, through
 * the sim port and through a bare port of plain copies, against rte_ring
 * in the same way. They bound what any exchange on these tables can reach.
 */
#include "bench.h"
#include "support/dt_rig.h"

#include <stdlib.h>

#ifdef OFL_BENCH_HAVE_RTE_RING
#include <rte_ring.h>
#include <rte_ring_elem.h>
#endif

#define BATCH 32
#define SLOTS 256
#define ROUNDS 3

struct dt_ex {
    struct dt_rig *r;
    uint64_t id;
    uint64_t now;
    struct ofl_dt_desc req[BATCH];
    struct ofl_dt_desc rsp[BATCH];
    unsigned long errors;
};

static void dt_exchange_batch(void *ctx, uint64_t n)
{
    struct dt_ex *x = ctx;
    struct dt_rig *r = x->r;
    uint64_t done;
    uint32_t k, got, m;

    for (done = 0; done < n; done += k) {
        k = n - done < BATCH ? (uint32_t)(n - done) : BATCH;
        if (ofl_dt_host_post_batch(&r->host, x->req, k) != OFL_OK)
            x->errors++;
        /* A firmware told of k new requests (OFL_DT_DB_IN_TAIL) reads k. */
        if (ofl_dt_process(&r->dt, ++x->now, k, NULL) != OFL_OK ||
            ofl_dt_service(&r->dt, x->now) != OFL_OK ||
            ofl_dt_flush(&r->dt) != OFL_OK)
            x->errors++;
        /* The firmware transmits what was taken. */
        if (ofl_dt_tx_consume(&r->dt, x->id,
                              r->conn[(uint32_t)x->id - 1].tx_tail -
                                  r->conn[(uint32_t)x->id - 1].tx_head,
                              x->now) != OFL_OK)
            x->errors++;
        for (got = 0; got < k; got += m)
            if (ofl_dt_host_poll_batch(&r->host, x->rsp + got, k - got, &m) !=
                OFL_OK) {
                x->errors++;
                break;
            }
    }
    bench_escape(x->rsp);
}

/*
 * The floor: the data movement an exchange cannot avoid under the port
 * contract and the table layout, with no check, no list, no order, no
 * merge, no statistics: the host stores the 32-byte big-endian request and
 * sets its owner bit after a release barrier; the adapter reads the run
 * with one DMA and hands it back with one; it loads each request, moves
 * the 32 held bytes into the connection's transmit ring and stores the
 * answer in its output stage; it reads the owner byte of the last output
 * slot of the run (one DMA of one byte: the slots are free) and one DMA
 * writes the answers; the host sees
 * the owner bits, loads the answers after an acquire barrier and clears
 * the slots after a full one. Word loads and stores with byte swaps (the
 * fastest encoding here). It says how far above bare movement the
 * library's exchange is, and how close to rte_ring any exchange built on
 * these tables could come.
 */
struct dt_floor {
    struct dt_rig *r;
    const uint8_t *held; /* the 32 bytes the adapter holds (send cache) */
    uint8_t *tx;         /* the connection's transmit ring */
    const struct ofl_port *port;
    struct ofl_port bare; /* plain copies: no guard, no counters */
    uint32_t tx_tail, in_head, out_tail, host_in, host_out;
    struct ofl_dt_desc req[BATCH];
    struct ofl_dt_desc rsp[BATCH];
    unsigned long errors;
};

static void floor_put32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static void floor_put64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}

static uint32_t floor_get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

static uint64_t floor_get64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/* offload.h's descriptor layout: type and owner, flags, status, number,
 * tag at 4, base at 8, len at 16, conn at 20, aux at 28. */
static void floor_store(const struct ofl_dt_desc *d, uint8_t *o, uint8_t own)
{
    o[0] = (uint8_t)(own | (uint8_t)(d->type << OFL_DT_TYPE_SHIFT));
    o[1] = d->flags;
    o[2] = d->status;
    o[3] = d->number;
    floor_put32(o + 4, d->tag);
    floor_put64(o + 8, d->base);
    floor_put32(o + 16, d->len);
    floor_put64(o + 20, d->conn);
    floor_put32(o + 28, d->aux);
}

static void floor_load(const uint8_t *in, struct ofl_dt_desc *d)
{
    d->type = (uint8_t)((in[0] >> OFL_DT_TYPE_SHIFT) & 0x1Fu);
    d->flags = in[1];
    d->status = in[2];
    d->number = in[3];
    d->tag = floor_get32(in + 4);
    d->base = floor_get64(in + 8);
    d->len = floor_get32(in + 16);
    d->conn = floor_get64(in + 20);
    d->aux = floor_get32(in + 28);
}

/* A copy in 16-byte steps, inline (a libc call for 32 bytes costs more
 * than the copy: measured, 0.90x against 1.00x of rte_ring). */
static void floor_copy(uint8_t *d, const uint8_t *s, uint32_t len)
{
    for (; len >= 16; len -= 16, d += 16, s += 16)
        memcpy(d, s, 16);
    if (len != 0)
        memcpy(d, s, len);
}

/* One DMA of k slots from slot i of a table at pa, two when the run wraps
 * (as the library splits its runs). */
static int floor_dma(const struct ofl_port *port, bool write, uint64_t pa,
                     uint32_t i, uint8_t *buf, uint32_t k)
{
    uint32_t off = i & (SLOTS - 1), first = SLOTS - off < k ? SLOTS - off : k;
    enum ofl_err e;

    pa += (uint64_t)off * 32u;
    e = write ? ofl_port_dma_write(port, pa, buf, first * 32u)
              : ofl_port_dma_read(port, pa, buf, first * 32u);
    if (e == OFL_OK && first < k) {
        pa -= (uint64_t)off * 32u;
        e = write ? ofl_port_dma_write(port, pa, buf + first * 32u,
                                       (k - first) * 32u)
                  : ofl_port_dma_read(port, pa, buf + first * 32u,
                                      (k - first) * 32u);
    }
    return e == OFL_OK ? 0 : -1;
}

static void dt_floor_batch(void *ctx, uint64_t n)
{
    struct dt_floor *x = ctx;
    struct dt_rig *r = x->r;
    const struct ofl_port *port = x->port;
    const uint32_t mask = SLOTS - 1;
    struct ofl_dt_desc d;
    uint64_t done, pa;
    uint32_t k, i, off;
    uint8_t *slot, own;

    for (done = 0; done < n; done += k) {
        k = n - done < BATCH ? (uint32_t)(n - done) : BATCH;
        /* host: post */
        for (i = 0; i < k; i++)
            floor_store(&x->req[i],
                        r->in_table + ((x->host_in + i) & mask) * 32u, 0);
        ofl_port_barrier(port, OFL_BARRIER_RELEASE);
        for (i = 0; i < k; i++)
            r->in_table[((x->host_in + i) & mask) * 32u] |= OFL_DT_OWNER;
        x->host_in += k;
        /* adapter: read the run, hand it back */
        pa = dt_rig_pa(r->in_table);
        if (floor_dma(port, false, pa, x->in_head, r->in_stage, k) != 0)
            x->errors++;
        for (i = 0; i < k; i++)
            r->in_stage[i * 32u] &= (uint8_t)~OFL_DT_OWNER;
        if (floor_dma(port, true, pa, x->in_head, r->in_stage, k) != 0)
            x->errors++;
        x->in_head += k;
        /* adapter: move the held bytes, answer */
        for (i = 0; i < k; i++) {
            floor_load(r->in_stage + i * 32u, &d);
            off = x->tx_tail & (DT_RIG_TX - 1);
            if (d.len <= DT_RIG_TX - off) {
                floor_copy(x->tx + off, x->held, d.len);
            } else {
                floor_copy(x->tx + off, x->held, DT_RIG_TX - off);
                floor_copy(x->tx, x->held + (DT_RIG_TX - off),
                           d.len - (DT_RIG_TX - off));
            }
            x->tx_tail += d.len;
            d.type = OFL_DT_RSP_BUF_AVAIL;
            d.flags = 0;
            d.status = OFL_DT_ST_OK;
            d.number = 1;
            floor_store(&d, r->out_stage + i * 32u, OFL_DT_OWNER);
        }
        /* The run's slots must be free (the host reaped them a lap ago). The
         * host frees slots in order, so the owner byte of the run's last
         * slot says it for all: one DMA of one byte, the least a check can
         * read (the library reads runs of whole slots, dt_reclaim). */
        pa = dt_rig_pa(r->out_table) +
             (uint64_t)((x->out_tail + k - 1) & mask) * 32u;
        if (ofl_port_dma_read(port, pa, &own, 1) != OFL_OK ||
            (own & OFL_DT_OWNER) != 0)
            x->errors++;
        if (floor_dma(port, true, dt_rig_pa(r->out_table), x->out_tail,
                      r->out_stage, k) != 0)
            x->errors++;
        x->out_tail += k;
        /* host: reap */
        for (i = 0; i < k; i++)
            if (!(r->out_table[((x->host_out + i) & mask) * 32u] &
                  OFL_DT_OWNER))
                x->errors++;
        ofl_port_barrier(port, OFL_BARRIER_ACQUIRE);
        for (i = 0; i < k; i++)
            floor_load(r->out_table + ((x->host_out + i) & mask) * 32u,
                       &x->rsp[i]);
        ofl_port_barrier(port, OFL_BARRIER_FULL);
        for (i = 0; i < k; i++) {
            slot = r->out_table + ((x->host_out + i) & mask) * 32u;
            slot[0] = 0;
        }
        x->host_out += k;
    }
    bench_escape(x->rsp);
    bench_escape(x->tx);
}

static int bare_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    (void)ctx;
    memcpy(dst, (const void *)(uintptr_t)pa, len);
    return 0;
}

static int bare_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    (void)ctx;
    memcpy((void *)(uintptr_t)pa, src, len);
    return 0;
}

/* The floor on a rig of its own, its first answers compared with the
 * library's (same type, connection, tag, length); NULL when they differ.
 * bare: DMA as plain copies instead of the sim port (whose allow-list
 * check every DMA pays). */
static struct dt_floor *dt_floor_new(const struct dt_ex *lib, bool bare)
{
    struct ofl_dt_config c;
    struct dt_floor *x = calloc(1, sizeof(*x));
    uint32_t i;

    if (x == NULL)
        return NULL;
    ofl_dt_config_default(&c);
    x->r = dt_rig_new_sized(&c, SLOTS, BATCH);
    if (x->r == NULL) {
        free(x);
        return NULL;
    }
    x->bare = x->r->sim.port;
    x->bare.dma_read = bare_read;
    x->bare.dma_write = bare_write;
    x->port = bare ? &x->bare : &x->r->sim.port;
    x->held = x->r->cache_data;
    x->tx = x->r->conn_data;
    memcpy(x->req, lib->req, sizeof(x->req));
    dt_floor_batch(x, BATCH);
    for (i = 0; i < BATCH; i++)
        if (x->rsp[i].type != lib->rsp[i].type ||
            x->rsp[i].conn != lib->rsp[i].conn ||
            x->rsp[i].tag != lib->rsp[i].tag ||
            x->rsp[i].len != lib->rsp[i].len)
            x->errors++;
    if (x->errors != 0 || x->r->sim.violations != 0) {
        dt_rig_free(x->r);
        free(x);
        return NULL;
    }
    return x;
}

static void dt_floor_free(struct dt_floor *x)
{
    if (x != NULL)
        dt_rig_free(x->r);
    free(x);
}

/* Seconds per exchange of a floor, -1 when it failed. */
static double dt_floor_measure(const struct dt_ex *lib, bool bare)
{
    struct dt_floor *x = dt_floor_new(lib, bare);
    double t = -1;

    if (x != NULL) {
        t = bench_measure(dt_floor_batch, x);
        if (x->errors != 0 || x->r->sim.violations != 0)
            t = -1;
    }
    dt_floor_free(x);
    return t;
}

#ifdef OFL_BENCH_HAVE_RTE_RING
struct rte_ex {
    struct rte_ring *req, *rsp;
    uint8_t in[BATCH][32], mid[BATCH][32], out[BATCH][32];
    unsigned long errors;
};

static void rte_exchange_batch(void *ctx, uint64_t n)
{
    struct rte_ex *x = ctx;
    uint64_t done;
    unsigned k;

    for (done = 0; done < n; done += k) {
        k = n - done < BATCH ? (unsigned)(n - done) : BATCH;
        if (rte_ring_sp_enqueue_burst_elem(x->req, x->in, 32, k, NULL) != k ||
            rte_ring_sc_dequeue_burst_elem(x->req, x->mid, 32, k, NULL) != k ||
            rte_ring_sp_enqueue_burst_elem(x->rsp, x->mid, 32, k, NULL) != k ||
            rte_ring_sc_dequeue_burst_elem(x->rsp, x->out, 32, k, NULL) != k)
            x->errors++;
    }
    bench_escape(x->out);
}

/* The two floors (sim port, bare port) against rte_ring, alternately,
 * best of ROUNDS each. */
static void dt_floor_report(const struct dt_ex *lib, struct rte_ex *y,
                            double t_rte)
{
    static const char *const name[2] = {"dt_exchange_floor_no_checks",
                                        "dt_exchange_floor_bare_port"};
    double t_fl[2] = {-1, -1}, t;
    int round, b;

    for (round = 0; round < ROUNDS; round++)
        for (b = 0; b < 2; b++) {
            t = dt_floor_measure(lib, b == 1);
            if (t > 0 && (t_fl[b] < 0 || t < t_fl[b]))
                t_fl[b] = t;
            t = bench_measure(rte_exchange_batch, y);
            if (t < t_rte)
                t_rte = t;
        }
    for (b = 0; b < 2; b++)
        if (t_fl[b] < 0 || y->errors != 0)
            bench_skip(name[b], "the floor's answers differ or it failed");
        else
            bench_info(name[b], 1e-6 / t_fl[b], "M exchanges/s",
                       "rte_ring SP/SC 2x32B burst", t_rte / t_fl[b]);
}

static struct rte_ring *rte_make(const char *name)
{
    ssize_t sz = rte_ring_get_memsize_elem(32, SLOTS);
    struct rte_ring *r;

    if (sz < 0)
        return NULL;
    r = aligned_alloc(128, ((size_t)sz + 127) & ~(size_t)127);
    if (r != NULL &&
        rte_ring_init(r, name, SLOTS, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
        free(r);
        r = NULL;
    }
    return r;
}
#endif

/*
 * dt_count: COUNT_EXCHANGES exchanges of the library, of the floor (sim
 * port) and of rte_ring, each in a function of its own, so that an
 * instruction counter can be aimed at each (tests/bench/count_dt.sh runs
 * this under callgrind with --toggle-collect). The timed lines move with
 * the machine's load; instruction counts do not, though they are not time
 * (the rings' copies run at a higher rate per instruction). The bench runs
 * only this part when OFL_BENCH_DT_COUNT is set in its environment.
 */
#define COUNT_EXCHANGES 32000u

/* Each leaves its own mark (BENCH_COUNT_FN). */

static BENCH_COUNT_FN void dt_count_library(struct dt_ex *x)
{
    dt_exchange_batch(x, COUNT_EXCHANGES);
    bench_sink = 1;
}

static BENCH_COUNT_FN void dt_count_floor(struct dt_floor *f)
{
    dt_floor_batch(f, COUNT_EXCHANGES);
    bench_sink = 2;
}

#ifdef OFL_BENCH_HAVE_RTE_RING
static BENCH_COUNT_FN void dt_count_rte_ring(struct rte_ex *y)
{
    rte_exchange_batch(y, COUNT_EXCHANGES);
    bench_sink = 3;
}
#endif

static void dt_count(struct dt_ex *x)
{
    struct dt_floor *f = dt_floor_new(x, false);
    unsigned long rte_errors = 0;
    bool rte = false;

    if (f == NULL) {
        bench_skip("dt_count", "the floor's answers differ");
        return;
    }
    dt_count_library(x);
    dt_count_floor(f);
#ifdef OFL_BENCH_HAVE_RTE_RING
    {
        struct rte_ex *y = calloc(1, sizeof(*y));

        if (y != NULL) {
            y->req = rte_make("ofl_req_c");
            y->rsp = rte_make("ofl_rsp_c");
            if (y->req != NULL && y->rsp != NULL) {
                rte_exchange_batch(y, BATCH); /* warm */
                dt_count_rte_ring(y);
                rte = true;
                rte_errors = y->errors;
            }
            free(y->req);
            free(y->rsp);
            free(y);
        }
    }
#endif
    if (x->errors != 0 || f->errors != 0 || rte_errors != 0 ||
        x->r->sim.violations != 0 || f->r->sim.violations != 0)
        bench_skip("dt_count", "an exchange failed");
    else
        printf("bench: dt_count ran %u exchanges of the library, the floor%s "
               "(tests/bench/count_dt.sh counts their instructions)\n",
               COUNT_EXCHANGES, rte ? " and rte_ring" : "");
    dt_floor_free(f);
}

OFL_BENCH(dt)
{
    struct ofl_dt_config c;
    struct dt_ex *x = calloc(1, sizeof(*x));
    uint8_t *buf;
    double t_dt;
    uint32_t i;

    if (x == NULL)
        return;
    ofl_dt_config_default(&c);
    c.irq_response = OFL_DT_IRQ_NONE; /* the sim port would log them */
    x->r = dt_rig_new_sized(&c, SLOTS, BATCH);
    if (x->r == NULL) {
        free(x);
        return;
    }
    x->id = dt_rig_connect(x->r, 80, 0);
    buf = dt_rig_alloc(x->r, 32);
    memset(buf, 0x5A, 32);
    for (i = 0; i < BATCH; i++) {
        memset(&x->req[i], 0, sizeof(x->req[i]));
        x->req[i].type = OFL_DT_REQ_BUF_SEND;
        x->req[i].base = dt_rig_pa(buf);
        x->req[i].len = 32;
        x->req[i].conn = x->id;
        x->req[i].tag = i + 1;
    }
    x->req[0].flags = OFL_DT_F_MODIFY; /* read once, then cached */
    dt_exchange_batch(x, BATCH);
    x->req[0].flags = 0;
    x->errors = 0;
    if (getenv("OFL_BENCH_DT_COUNT") != NULL) {
        dt_exchange_batch(x, BATCH); /* warm, as the timed runs are */
        dt_count(x);
        goto out;
    }
    t_dt = bench_measure(dt_exchange_batch, x);
    if (x->errors != 0 || x->r->sim.violations != 0 || x->r->host.bad != 0 ||
        x->rsp[BATCH - 1].type != OFL_DT_RSP_BUF_AVAIL ||
        x->rsp[BATCH - 1].status != OFL_DT_ST_OK) {
        bench_skip("dt_exchange", "the exchange failed");
        goto out;
    }
#ifdef OFL_BENCH_HAVE_RTE_RING
    {
        struct rte_ex *y = calloc(1, sizeof(*y));
        double t_rte;

        if (y == NULL)
            goto out;
        y->req = rte_make("ofl_req");
        y->rsp = rte_make("ofl_rsp");
        if (y->req == NULL || y->rsp == NULL) {
            bench_skip("dt_exchange", "rte_ring_init failed");
        } else {
            int round;

            t_rte = bench_measure(rte_exchange_batch, y);
            for (round = 1; round < ROUNDS; round++) {
                double t = bench_measure(dt_exchange_batch, x);

                if (t < t_dt)
                    t_dt = t;
                t = bench_measure(rte_exchange_batch, y);
                if (t < t_rte)
                    t_rte = t;
            }
            if (x->errors != 0)
                bench_skip("dt_exchange", "the exchange failed");
            else if (y->errors != 0)
                bench_skip("dt_exchange", "rte_ring exchange failed");
            else
                bench_report("dt_exchange", 1e-6 / t_dt, "M exchanges/s",
                             "rte_ring SP/SC 2x32B burst", t_rte / t_dt, ">=",
                             1.0);
            if (x->errors == 0 && y->errors == 0)
                dt_floor_report(x, y, t_rte);
        }
        free(y->req);
        free(y->rsp);
        free(y);
    }
#else
    bench_info("dt_exchange", 1e-6 / t_dt, "M exchanges/s", "none", 0);
    {
        double t_fl = dt_floor_measure(x, false);

        if (t_fl > 0)
            bench_info("dt_exchange_floor_no_checks", 1e-6 / t_fl,
                       "M exchanges/s", "library exchange", t_dt / t_fl);
    }
    bench_skip("dt_exchange vs rte_ring",
               "DPDK rte_ring not installed (apt package dpdk-dev)");
#endif
out:
    dt_rig_free(x->r);
    free(x);
}
