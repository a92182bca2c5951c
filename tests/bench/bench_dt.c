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
        }
        free(y->req);
        free(y->rsp);
        free(y);
    }
#else
    bench_info("dt_exchange", 1e-6 / t_dt, "M exchanges/s", "none", 0);
    bench_skip("dt_exchange vs rte_ring",
               "DPDK rte_ring not installed (apt package dpdk-dev)");
#endif
out:
    dt_rig_free(x->r);
    free(x);
}
