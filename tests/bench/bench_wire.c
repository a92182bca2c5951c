/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * wire: per-FPDU receive cost (MPA stream receive + CRC check + DDP/RDMAP
 * parse) and encode cost, as ratios to ISA-L's CRC32c plus memcpy of the
 * same bytes, measured in the same run. Both sides use ISA-L for the CRC
 * (the posix port's accelerated hook). Receive is measured two ways: the
 * stream handed over in one buffer (as a large recv() returns it: FPDUs
 * are checked in place) and in 1460-byte TCP segments (FPDUs split across
 * segments are reassembled into the receive buffer).
 */
#include "bench.h"
#include "ports/posix/ofl_posix.h"

#include <stdlib.h>

#define STREAM_BYTES (256u * 1024u)
#define SEGMENT 1460u

struct wctx {
    struct ofl_posix *px;
    ofl_posix_crc_fn isal;
    struct ofl_mpa_params p;
    uint8_t *stream;
    size_t len;
    uint32_t nfpdu;
    uint32_t *start; /* FPDU offsets in the stream */
    uint32_t payload;
    uint8_t rxbuf[8192];
    uint8_t dst[8192];
    uint8_t out[8192];
    /* receive state across batches */
    struct ofl_mpa_rx rx;
    size_t off;
    uint32_t k;
    uint8_t *src;
};

static void rx_reset(struct wctx *c)
{
    if (ofl_mpa_rx_init(&c->rx, &c->p, c->rxbuf, sizeof(c->rxbuf),
                        &c->px->port) != OFL_OK)
        abort();
    c->off = 0;
}

/* One FPDU per operation, the whole stream available. */
static void rx_whole(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        struct ofl_mpa_fpdu f;
        struct ofl_rdmap_msg m;
        size_t used;

        if (c->off == c->len)
            rx_reset(c);
        if (ofl_mpa_rx_feed(&c->rx, c->stream + c->off, c->len - c->off,
                            &used, &f) != OFL_OK ||
            f.ulpdu == NULL ||
            ofl_rdmap_parse(f.ulpdu, f.len, &m, NULL) != OFL_OK)
            abort();
        c->off += used;
        bench_sink += m.payload_len;
    }
}

/* One FPDU per operation, the stream arriving in 1460-byte segments. */
static void rx_segments(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        struct ofl_mpa_fpdu f;
        struct ofl_rdmap_msg m;

        f.ulpdu = NULL;
        while (f.ulpdu == NULL) {
            size_t seg_end, used;

            if (c->off == c->len)
                rx_reset(c);
            seg_end = (c->off / SEGMENT + 1) * SEGMENT;
            if (seg_end > c->len)
                seg_end = c->len;
            if (ofl_mpa_rx_feed(&c->rx, c->stream + c->off, seg_end - c->off,
                                &used, &f) != OFL_OK)
                abort();
            c->off += used;
        }
        if (ofl_rdmap_parse(f.ulpdu, f.len, &m, NULL) != OFL_OK)
            abort();
        bench_sink += m.payload_len;
    }
}

/* Baseline: ISA-L CRC over the FPDU and memcpy of its ULPDU. */
static void baseline(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        uint32_t k = c->k;
        const uint8_t *w = c->stream + c->start[k];
        uint32_t wl = c->start[k + 1] - c->start[k];

        bench_sink += c->isal(OFL_CRC32C_INIT, w, wl - OFL_MPA_CRC_LEN);
        memcpy(c->dst, w + OFL_MPA_HDR_LEN, wl - 8);
        bench_escape(c->dst);
        c->k = k + 1 == c->nfpdu ? 0 : k + 1;
    }
}

/* Baseline for segmented arrival: the same work on the same pieces - ISA-L
 * CRC chained over the FPDU's parts in each 1460-byte segment, and a
 * memcpy of each part. */
static void baseline_segments(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        uint32_t k = c->k, at = c->start[k], end = c->start[k + 1];
        uint32_t crc = OFL_CRC32C_INIT, done = 0;

        while (at < end - OFL_MPA_CRC_LEN) {
            uint32_t seg_end = (at / SEGMENT + 1) * SEGMENT, len;

            if (seg_end > end - OFL_MPA_CRC_LEN)
                seg_end = end - OFL_MPA_CRC_LEN;
            len = seg_end - at;
            crc = c->isal(crc, c->stream + at, len);
            memcpy(c->dst + done, c->stream + at, len);
            done += len;
            at = seg_end;
        }
        bench_sink += crc;
        bench_escape(c->dst);
        c->k = k + 1 == c->nfpdu ? 0 : k + 1;
    }
}

/* Encode one RDMA Write FPDU: header + payload -> wire. */
static void encode(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    struct ofl_mpa_tx tx;
    uint8_t hdr[OFL_DDP_TAGGED_HDR_LEN];
    uint64_t i;

    if (ofl_mpa_tx_init(&tx, &c->p, 9000, &c->px->port) != OFL_OK)
        abort();
    memset(hdr, 0xC1, sizeof(hdr));
    for (i = 0; i < n; i++) {
        size_t len;

        if (ofl_mpa_fpdu_build(&tx, hdr, sizeof(hdr), c->src, c->payload,
                               c->out, sizeof(c->out), &len) != OFL_OK)
            abort();
        bench_escape(c->out);
        bench_sink += len;
    }
}

static void enc_baseline(void *ctx, uint64_t n)
{
    struct wctx *c = ctx;
    uint64_t i;
    uint32_t wl = c->payload + OFL_DDP_TAGGED_HDR_LEN + 8;

    for (i = 0; i < n; i++) {
        memcpy(c->out + 16, c->src, c->payload);
        bench_sink += c->isal(OFL_CRC32C_INIT, c->out, wl - 4);
        bench_escape(c->out);
    }
}

/* A stream of RDMA Write FPDUs with `payload` bytes each. */
static void make_stream(struct wctx *c, uint32_t payload, bool markers)
{
    struct ofl_mpa_tx tx;
    uint32_t i;

    c->p.crc = true;
    c->p.markers_tx = c->p.markers_rx = markers;
    c->payload = payload;
    c->len = 0;
    c->nfpdu = 0;
    if (ofl_mpa_tx_init(&tx, &c->p, 9000, &c->px->port) != OFL_OK)
        abort();
    while (c->len + payload + 64 + 4 * 20 < STREAM_BYTES) {
        struct ofl_rdmap_msg m;
        uint8_t hdr[OFL_RDMAP_HDR_MAX];
        size_t hl, wl;

        memset(&m, 0, sizeof(m));
        m.ddp.tagged = 1;
        m.ddp.last = 1;
        m.ddp.opcode = OFL_RDMAP_WRITE;
        m.ddp.stag = 0x100;
        m.ddp.to = (uint64_t)c->nfpdu * payload;
        if (ofl_rdmap_build(&m, hdr, sizeof(hdr), &hl) != OFL_OK)
            abort();
        c->start[c->nfpdu++] = (uint32_t)c->len;
        if (ofl_mpa_fpdu_build(&tx, hdr, hl, c->src, payload,
                               c->stream + c->len, STREAM_BYTES - c->len,
                               &wl) != OFL_OK)
            abort();
        c->len += wl;
    }
    c->start[c->nfpdu] = (uint32_t)c->len;
    for (i = 0; i < c->nfpdu; i++)
        bench_sink += c->start[i];
    rx_reset(c);
    c->k = 0;
}

OFL_BENCH(wire)
{
    static const uint32_t sizes[] = {64, 1024, 4096};
    struct ofl_posix px;
    struct wctx *c;
    size_t i;
    char name[64];

    ofl_posix_init(&px);
    if (ofl_posix_crc32c_isal() == NULL) {
        bench_skip("wire", "ISA-L not installed (libisal-dev): no baseline");
        return;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        abort();
    c->px = &px;
    c->isal = ofl_posix_crc32c_isal();
    c->stream = malloc(STREAM_BYTES);
    c->start = malloc(sizeof(uint32_t) * (STREAM_BYTES / 8 + 1));
    c->src = malloc(8192);
    if (c->stream == NULL || c->start == NULL || c->src == NULL)
        abort();
    for (i = 0; i < 8192; i++)
        c->src[i] = (uint8_t)(i * 13);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double base, t;

        make_stream(c, sizes[i], false);
        base = bench_measure(baseline, c);
        t = bench_measure(rx_whole, c);
        snprintf(name, sizeof(name), "wire-rx-%u", sizes[i]);
        if (sizes[i] == 4096)
            bench_report(name, t * 1e9, "ns/FPDU", "isa-l crc + memcpy",
                         t / base, "<=", 1.3);
        else
            bench_info(name, t * 1e9, "ns/FPDU", "isa-l crc + memcpy",
                       t / base);
        rx_reset(c);
        c->k = 0;
        base = bench_measure(baseline_segments, c);
        t = bench_measure(rx_segments, c);
        snprintf(name, sizeof(name), "wire-rx-%u-in-1460B-segments",
                 sizes[i]);
        if (sizes[i] == 4096)
            bench_report(name, t * 1e9, "ns/FPDU",
                         "isa-l crc + memcpy per segment piece", t / base,
                         "<=", 1.3);
        else
            bench_info(name, t * 1e9, "ns/FPDU",
                       "isa-l crc + memcpy per segment piece", t / base);
        make_stream(c, sizes[i], true);
        base = bench_measure(baseline_segments, c);
        t = bench_measure(rx_segments, c);
        snprintf(name, sizeof(name), "wire-rx-%u-markers-1460B-segments",
                 sizes[i]);
        bench_info(name, t * 1e9, "ns/FPDU",
                   "isa-l crc + memcpy per segment piece", t / base);
        base = bench_measure(baseline, c);

        c->p.markers_tx = false;
        base = bench_measure(enc_baseline, c);
        t = bench_measure(encode, c);
        snprintf(name, sizeof(name), "wire-encode-%u", sizes[i]);
        bench_info(name, t * 1e9, "ns/FPDU", "isa-l crc + memcpy", t / base);
        c->p.markers_tx = true;
        t = bench_measure(encode, c);
        snprintf(name, sizeof(name), "wire-encode-%u-markers", sizes[i]);
        bench_info(name, t * 1e9, "ns/FPDU", "isa-l crc + memcpy", t / base);
    }
    free(c->src);
    free(c->start);
    free(c->stream);
    free(c);
}
