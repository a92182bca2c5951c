/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ap: the incoming path per packet - parse, record checksum, CRC32c,
 * checks (a)-(e), extent, PCI address formation and the PCI write of a
 * 64-byte payload through a port whose DMA is a plain copy - on a cache
 * hit, on a cache miss and with no cache (direct table lookup), next to a
 * 64-byte memcpy measured in the same run.
 *
 * The required comparison: the cache's hit path must not be slower than
 * a direct table lookup (same packets, same table, no cache).
 */
#include "bench.h"
#include "support/ap_fixture.h"
#include "ports/posix/ofl_posix.h"

#include <stdlib.h>

#define TABLE 4096      /* incoming apertures */
#define HOT 8           /* apertures of the hit stream */
#define COLD 1024       /* apertures of the miss stream */
#define PAYLOAD 64
#define FRAME_MAX 160

/* Two NICs receive the same streams: one without a cache (each lookup
 * indexes its table directly) and one with a 64-line, 4-way cache. Their
 * measurements are interleaved over several rounds and the best of each
 * kept, so that a change in machine load does not favour either. */
static struct apfx nic_direct, nic_cached;
static struct ofl_ap_in_entry table_direct[TABLE], table_cached[TABLE];
static uint8_t hot_frames[HOT][FRAME_MAX], cold_frames[COLD][FRAME_MAX];
static size_t hot_len[HOT], cold_len[COLD];
static uint8_t sink_mem[PAYLOAD * 2];

/* DMA without a guard: the cost of a real PCI write is the port's. */
static int copy_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    (void)ctx;
    memcpy(ofl_sim_ptr(pa), src, len);
    return 0;
}

static ofl_posix_crc_fn hw_crc;
static uint32_t crc_hook(void *ctx, uint32_t state, const void *d, size_t n)
{
    (void)ctx;
    return hw_crc(state, d, n);
}

static struct ofl_port port_plain, port_hwcrc;

struct run {
    struct apfx *f;
    uint8_t (*frames)[FRAME_MAX];
    size_t *len;
    uint32_t n;       /* frames in the stream */
    uint32_t i;
    enum ofl_err err; /* anything but OK spoils the measurement */
};

static void rx_batch(void *ctx, uint64_t count)
{
    struct run *r = ctx;
    uint64_t k;

    for (k = 0; k < count; k++) {
        enum ofl_err e = ofl_ap_rx(&r->f->nic, r->frames[r->i], r->len[r->i],
                                   NULL);

        if (e != OFL_OK)
            r->err = e;
        if (++r->i == r->n)
            r->i = 0;
    }
}

static void memcpy_batch(void *ctx, uint64_t count)
{
    static uint8_t src[PAYLOAD], dst[PAYLOAD];
    uint64_t k;

    (void)ctx;
    for (k = 0; k < count; k++) {
        bench_escape(src);
        memcpy(dst, src, PAYLOAD);
        bench_escape(dst);
    }
}

/* Builds a NIC (with or without a cache) and its TABLE apertures. */
static int setup(struct apfx *f, struct ofl_ap_in_entry *table,
                 uint32_t cache_lines, uint32_t ways)
{
    struct apfx_opts o;
    uint32_t i;

    memset(&o, 0, sizeof(o));
    o.cache_lines = cache_lines;
    o.cache_ways = ways;
    o.in_capacity = TABLE;
    o.in_ext = table;
    if (apfx_init(f, &apfx_host_b, &o) != 0)
        return -1;
    f->nic.port = &port_plain;
    for (i = 0; i < TABLE; i++) {
        struct ofl_ap_in_entry v;

        memset(&v, 0, sizeof(v));
        v.type = OFL_AP_TYPE_CI_DATA;
        v.base = ofl_sim_pa(sink_mem);
        v.size = sizeof(sink_mem);
        memcpy(v.src_mac, apfx_host_a.mac, 6);
        v.src_cluster = apfx_host_a.cluster;
        v.src_cluster_mask = 0xFFFF;
        v.checks = OFL_AP_CHECK_ALL;
        v.nonce = 0x9E3779B9u * (i + 1);
        v.state = OFL_AP_OPEN;
        if (ofl_ap_in_program(&f->nic, OFL_AP_PRIV_OS, 0, i, &v,
                              OFL_AP_IN_ALL) != OFL_OK)
            return -1;
    }
    return 0;
}

/* Frame k writes PAYLOAD bytes into aperture (k * stride) % TABLE.
 * Sequence checks are off and nonces do not rotate, so a frame may be
 * replayed. */
static void make_frames(uint8_t (*frames)[FRAME_MAX], size_t *len,
                        uint32_t n, uint32_t stride)
{
    static uint8_t payload[PAYLOAD];
    uint32_t k;

    for (k = 0; k < PAYLOAD; k++)
        payload[k] = (uint8_t)k;
    for (k = 0; k < n; k++) {
        struct apfx_rec r;
        uint32_t idx = (k * stride) % TABLE;

        memset(&r, 0, sizeof(r));
        r.data = payload;
        r.len = PAYLOAD;
        r.in_index = idx;
        r.nonce = 0x9E3779B9u * (idx + 1);
        r.offset = 32;
        len[k] = apfx_ci(frames[k], FRAME_MAX, NULL, &r, 1);
    }
}

static int measure(struct run *r, double *best)
{
    double t;

    r->i = 0;
    r->err = OFL_OK;
    t = bench_measure(rx_batch, r);
    if (r->err != OFL_OK) {
        printf("bench: ap stream failed: %s\n", ofl_strerror(r->err));
        return -1;
    }
    if (t < *best)
        *best = t;
    return 0;
}

#define ROUNDS 3
#define HOT_ROUNDS 4

OFL_BENCH(ap)
{
    struct run d_hot = {&nic_direct, hot_frames, hot_len, HOT, 0, OFL_OK};
    struct run c_hot = {&nic_cached, hot_frames, hot_len, HOT, 0, OFL_OK};
    struct run d_cold = {&nic_direct, cold_frames, cold_len, COLD, 0, OFL_OK};
    struct run c_cold = {&nic_cached, cold_frames, cold_len, COLD, 0, OFL_OK};
    double t_memcpy = 1e30, t_direct = 1e30, t_hit = 1e30, t_miss = 1e30;
    double t_direct_cold = 1e30, t_hw = 1e30;
    uint32_t round, hits, misses;

    port_plain = nic_direct.sim.port; /* overwritten by setup's init */
    make_frames(hot_frames, hot_len, HOT, 509); /* 8 sets of their own */
    make_frames(cold_frames, cold_len, COLD, 1);
    if (setup(&nic_direct, table_direct, 0, 0) != 0 ||
        setup(&nic_cached, table_cached, 64, 4) != 0)
        goto fail;
    port_plain = nic_direct.sim.port;
    port_plain.ctx = NULL;
    port_plain.dma_write = copy_write;
    port_plain.crc32c = NULL;
    for (round = 0; round < ROUNDS; round++) {
        double t = bench_measure(memcpy_batch, NULL);
        uint32_t k;

        if (t < t_memcpy)
            t_memcpy = t;
        /* Direct and hit alternate (HOT_ROUNDS pairs per round); the hot
         * stream misses at most once per aperture (after the cold stream
         * evicted it). */
        misses = nic_cached.nic.in_cache.misses;
        for (k = 0; k < HOT_ROUNDS; k++)
            if (measure(&d_hot, &t_direct) || measure(&c_hot, &t_hit))
                goto fail;
        if (nic_cached.nic.in_cache.misses - misses > HOT) {
            printf("bench: ap hit stream missed\n");
            goto fail;
        }
        /* The cold stream cycles 1024 apertures through 64 lines: with
         * LRU every lookup misses and evicts (but for the few hot ones
         * still cached when it starts). */
        hits = nic_cached.nic.in_cache.hits;
        if (measure(&c_cold, &t_miss) || measure(&d_cold, &t_direct_cold))
            goto fail;
        if (nic_cached.nic.in_cache.hits - hits > HOT) {
            printf("bench: ap miss stream hit the cache\n");
            goto fail;
        }
    }
    hw_crc = ofl_posix_crc32c_cpu();
    if (hw_crc != NULL) {
        port_hwcrc = port_plain;
        port_hwcrc.crc32c = crc_hook;
        nic_cached.nic.port = &port_hwcrc;
        if (measure(&c_hot, &t_hw))
            goto fail;
    }

    bench_info("ap_memcpy64", t_memcpy * 1e9, "ns/op", "memcpy64", 1.0);
    bench_info("ap_rx_direct", t_direct * 1e9, "ns/pkt", "memcpy64",
               t_direct / t_memcpy);
    bench_info("ap_rx_cache_hit", t_hit * 1e9, "ns/pkt", "memcpy64",
               t_hit / t_memcpy);
    bench_info("ap_rx_cache_miss", t_miss * 1e9, "ns/pkt", "memcpy64",
               t_miss / t_memcpy);
    bench_report("ap_cache_hit_vs_direct", t_hit * 1e9, "ns/pkt",
                 "ap_rx_direct", t_hit / t_direct, "<=", 1.0);
    bench_report("ap_cache_miss_vs_direct", t_miss * 1e9, "ns/pkt",
                 "ap_rx_direct_cold", t_miss / t_direct_cold, "<=", 1.5);
    if (hw_crc != NULL)
        bench_info("ap_rx_cache_hit_hwcrc", t_hw * 1e9, "ns/pkt", "memcpy64",
                   t_hw / t_memcpy);
    else
        bench_skip("ap_rx_cache_hit_hwcrc", "no CRC32c instruction or ISA-L");
    return;
fail:
    bench_skip("ap", "setup or stream failed");
}
