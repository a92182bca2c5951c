/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * demux: the quintuple demultiplexer (issue 26 item 2), information only.
 * 4096 connections from one peer address (ports 1024 ..) in 8192 slots:
 *
 *   demux_hit            lookups of present quintuples
 *   demux_miss           lookups of absent ones (ports beyond)
 *   demux_miss_crowded   the worst a peer can reach even with the key:
 *                        64 quintuples with one home (found with the key,
 *                        as if it leaked) fill a run of
 *                        OFL_QP_DEMUX_PROBE_MAX slots, and lookups of more
 *                        quintuples of that home read all of them
 *
 * each as ns per lookup and as a ratio to demux_hit.
 */
#include "bench.h"

#include <stdlib.h>

#define BD_CAP 8192u
#define BD_N 4096u
#define BD_PROBE 64u /* absent quintuples of the crowded home */

struct bd {
    struct ofl_qp_demux d;
    struct ofl_qp *slot[BD_CAP];
    struct ofl_qp_tuple probe[BD_N];
    uint32_t nprobe;
};

static const uint8_t bd_key[16] = {0x9d, 0x21, 0x5c, 0xe8, 0x03, 0x7a, 0xb6,
                                   0x4f, 0x12, 0xc9, 0x68, 0xf5, 0x3e, 0x87,
                                   0xd0, 0x2b};

static void bd_tuple(struct ofl_qp_tuple *t, uint32_t port)
{
    memset(t, 0, sizeof(*t));
    t->transport = 6;
    t->family = 4;
    t->src_port = (uint16_t)port;
    t->dst_port = 4420;
    t->src_addr[0] = 198;
    t->src_addr[1] = 51;
    t->src_addr[2] = (uint8_t)(port >> 16);
    t->src_addr[3] = 7;
    t->dst_addr[0] = 10;
    t->dst_addr[3] = 1;
}

static void bd_batch(void *p, uint64_t n)
{
    struct bd *b = p;
    uint64_t i;
    uintptr_t acc = 0;

    for (i = 0; i < n; i++)
        acc += (uintptr_t)ofl_qp_demux_find(&b->d,
                                            &b->probe[i & (b->nprobe - 1u)]);
    bench_sink += acc;
}

OFL_BENCH(demux)
{
    struct ofl_qp *qps = calloc(BD_N, sizeof(*qps));
    struct bd *b = calloc(1, sizeof(*b));
    double hit, miss, crowded;
    uint32_t i, n, port;

    if (qps == NULL || b == NULL ||
        ofl_qp_demux_init(&b->d, b->slot, BD_CAP, bd_key) != OFL_OK) {
        bench_skip("demux", "no memory");
        free(qps);
        free(b);
        return;
    }
    for (i = 0; i < BD_N; i++) {
        bd_tuple(&qps[i].attr.tuple, 1024 + i);
        (void)ofl_qp_demux_add(&b->d, &qps[i]);
        b->probe[i] = qps[i].attr.tuple;
    }
    b->nprobe = BD_N;
    hit = bench_measure(bd_batch, b);
    for (i = 0; i < BD_N; i++)
        bd_tuple(&b->probe[i], 1024 + BD_N + i);
    miss = bench_measure(bd_batch, b);
    /* The crowded run: a fresh table, 64 members of home 0, then absent
     * quintuples of the same home to look up. */
    (void)ofl_qp_demux_init(&b->d, b->slot, BD_CAP, bd_key);
    n = 0;
    b->nprobe = 0;
    for (port = 0; port < (1u << 24) && b->nprobe < BD_PROBE; port++) {
        struct ofl_qp_tuple t;

        bd_tuple(&t, port);
        if (ofl_qp_demux_home(&b->d, &t) != 0)
            continue;
        if (n < OFL_QP_DEMUX_PROBE_MAX) {
            qps[n].attr.tuple = t;
            (void)ofl_qp_demux_add(&b->d, &qps[n]);
            n++;
        } else {
            b->probe[b->nprobe++] = t;
        }
    }
    if (b->nprobe == BD_PROBE) {
        crowded = bench_measure(bd_batch, b);
        bench_info("demux_hit", hit * 1e9, "ns/lookup", "itself", 1.0);
        bench_info("demux_miss", miss * 1e9, "ns/lookup", "demux_hit",
                   miss / hit);
        bench_info("demux_miss_crowded", crowded * 1e9, "ns/lookup",
                   "demux_hit", crowded / hit);
    } else {
        bench_skip("demux_miss_crowded", "no crowded set found");
    }
    free(qps);
    free(b);
}
