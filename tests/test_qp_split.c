/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: an rping-like CRC-on stream (65000-byte RDMA Writes, Read
 * Responses and Sends in FPDUs cut as Linux siw cuts them: each fills a TCP
 * segment of tcp_seglen bytes) received under every class of read split,
 * with every CRC32c path of the posix port as the receiver's CRC hook, and
 * through the posix port's own feed (ofl_posix_poll over a socket pair).
 * ofl-test-needs: posix */
#include "test.h"
#include "support/qp_rig.h"
#include "ports/posix/ofl_posix.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define RR OFL_TPT_REMOTE_READ

#define SZ 65000u /* rping -S 65000 */

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* The receiver's CRC hook: one of the posix port's functions. */
static ofl_posix_crc_fn split_crc;
static uint32_t split_hook(void *ctx, uint32_t state, const void *data,
                           size_t len)
{
    (void)ctx;
    return split_crc(state, data, len);
}

static uint32_t split_rnd_state;
static uint32_t split_rnd(void)
{
    split_rnd_state = split_rnd_state * 1664525u + 1013904223u;
    return split_rnd_state >> 8;
}

/* One scenario: side a (the "siw" side) sends b a Write of SZ bytes, a
 * Read Response of SZ bytes (b's Read of a's buffer) and a 16-byte Send;
 * the a->b stream is kept, not delivered. */
struct split_case {
    struct qr_rig *r;
    uint8_t *src, *dst, *back, *rbuf;
    uint8_t *wire;   /* copy of the a->b stream */
    uint32_t len, seq;
    uint32_t ends[QR_CHUNKS]; /* FPDU ends (offsets) */
    uint32_t nends;
};

static int split_setup(struct split_case *k, uint32_t emss, uint32_t seed)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t ls, ld, lb, lr, i, x = seed;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.emss = emss;
    o.tx_cap = QR_TX_MAX;
    o.crc_b = split_crc != NULL ? split_hook : NULL;
    r = k->r = qr_new(&o);
    if (r == NULL)
        return -1;
    k->src = qr_alloc(&r->a, SZ, false);
    k->dst = qr_alloc(&r->b, SZ, true);
    k->back = qr_alloc(&r->b, SZ, false);
    k->rbuf = qr_alloc(&r->b, 64, false);
    for (i = 0; i < SZ; i++) {
        x = x * 1103515245u + 12345u;
        k->src[i] = (uint8_t)(x >> 16);
    }
    ls = qr_reg(&r->a, k->src, SZ, LR | RR, 0);
    ld = qr_reg(&r->b, k->dst, SZ, LW | RW, 0);
    lb = qr_reg(&r->b, k->back, SZ, LW, 0);
    lr = qr_reg(&r->b, k->rbuf, 64, LW, 0);
    /* b reads a's buffer: its Read Request goes over first */
    qr_wr(&wr, OFL_QP_OP_READ, 7, &sge, k->back, SZ, lb);
    wr.remote_stag = ls;
    wr.remote_to = va(k->src);
    if (qr_post_send(&r->b, &wr) != OFL_OK)
        return -2;
    if (qr_process(&r->b, 0) != OFL_OK)
        return -3;
    if (qr_deliver(r, &r->b) != OFL_OK)
        return -4;
    /* a: the Write, then (after the Read Response) the Send */
    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, k->src, SZ, ls);
    wr.remote_stag = ld;
    wr.remote_to = va(k->dst);
    if (qr_post_send(&r->a, &wr) != OFL_OK)
        return -5;
    if (qr_post_recv(&r->b, 9, k->rbuf, 64, lr) != OFL_OK)
        return -6;
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, k->src + 100, 16, ls);
    if (qr_post_send(&r->a, &wr) != OFL_OK)
        return -7;
    if (qr_process(&r->a, 0) != OFL_OK)
        return -8;
    k->len = r->ab.len;
    k->seq = r->ab.seq;
    k->nends = r->ab.nchunk;
    memcpy(k->ends, r->ab.chunk, k->nends * sizeof(k->ends[0]));
    k->wire = malloc(k->len);
    if (k->wire == NULL)
        return -9;
    memcpy(k->wire, r->ab.buf, k->len);
    r->ab.len = 0;
    r->ab.nchunk = 0;
    r->ab.seq += k->len;
    return 0;
}

/* b has it all, and nothing went wrong. */
static int split_verdict(struct split_case *k)
{
    struct ofl_cqe c[4];
    int ok = 1;

    if (k->r->b.qp.state != OFL_QP_RTS || k->r->b.qp.err != OFL_OK)
        ok = 0;
    if (memcmp(k->dst, k->src, SZ) != 0 || memcmp(k->back, k->src, SZ) != 0 ||
        memcmp(k->rbuf, k->src + 100, 16) != 0)
        ok = 0;
    if (qr_poll(&k->r->b, false, c, 4) != 1 || c[0].status != OFL_WC_SUCCESS ||
        c[0].byte_len != 16)
        ok = 0;
    if (qr_poll(&k->r->b, true, c, 4) != 1 || c[0].status != OFL_WC_SUCCESS)
        ok = 0;
    return ok;
}

static void split_free(struct split_case *k)
{
    free(k->wire);
    qr_free(k->r);
}

/* How a feed cuts the stream: the next read's length at offset off. */
enum split_kind {
    SPLIT_ONE,    /* 1-byte reads */
    SPLIT_FIXED,  /* reads of arg bytes */
    SPLIT_AROUND, /* a cut at every FPDU end + arg - 8 (arg 0..16): inside
                     the CRC, the pad, exactly at the end, inside the next
                     MPA header and DDP header */
    SPLIT_RANDOM, /* seeded: small, MSS-like and large reads mixed */
    SPLIT_KINDS
};

static uint32_t split_next(const struct split_case *k, enum split_kind kind,
                           uint32_t arg, uint32_t off)
{
    uint32_t i, n = k->len - off;

    switch (kind) {
    case SPLIT_ONE:
        return 1;
    case SPLIT_FIXED:
        return arg < n ? arg : n;
    case SPLIT_AROUND:
        for (i = 0; i < k->nends; i++) {
            uint32_t at = k->ends[i] + arg;

            if (at < 8)
                continue;
            at -= 8;
            if (at > off && at < k->len)
                return at - off;
        }
        return n;
    default:
        switch (split_rnd() % 4) {
        case 0:
            i = 1 + split_rnd() % 8;
            break;
        case 1:
            i = 1 + split_rnd() % 3000;
            break;
        case 2:
            i = 1448 + split_rnd() % 16;
            break;
        default:
            i = 1 + split_rnd() % 70000;
            break;
        }
        return i < n ? i : n;
    }
}

/* The stream into b's QP by ofl_qp_input, read by read. */
static int split_feed(struct split_case *k, enum split_kind kind, uint32_t arg)
{
    uint32_t off = 0;

    while (off < k->len) {
        uint32_t n = split_next(k, kind, arg, off);
        struct ofl_qp_seg seg;

        memset(&seg, 0, sizeof(seg));
        seg.seq = k->seq + off;
        seg.data = k->wire + off;
        seg.len = n;
        if (ofl_qp_input(&k->r->b.qp, &seg) != OFL_OK)
            return 0;
        off += n;
        /* b runs, as the port runs it after a read (after every 1024
         * one-byte reads: valgrind's time) */
        if (kind != SPLIT_ONE || off % 1024u == 0 || off == k->len)
            (void)qr_process(&k->r->b, 0);
    }
    (void)qr_process(&k->r->b, 0);
    return split_verdict(k);
}

/* The posix port's rx_tap: what it saw, in order, must be the stream. */
struct split_tap {
    const struct split_case *k;
    uint32_t got;
    int bad;
};

static void split_tap_fn(void *ctx, uint32_t sn, const uint8_t *p, uint32_t n)
{
    struct split_tap *t = ctx;

    if (sn != t->k->seq + t->got || n > t->k->len - t->got ||
        memcmp(p, t->k->wire + t->got, n) != 0)
        t->bad = 1;
    else
        t->got += n;
}

/* The same through the posix port: each read written into a socket pair,
 * then one ofl_posix_poll (which reads what the socket holds). */
static int split_feed_posix(struct split_case *k, enum split_kind kind,
                            uint32_t arg, struct ofl_posix_conn *c)
{
    int sv[2], ok = 1;
    uint32_t off = 0;
    struct split_tap tap;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 0;
    memset(c, 0, sizeof(*c));
    c->fd = sv[1];
    c->rx_sn = k->seq;
    memset(&tap, 0, sizeof(tap));
    tap.k = k;
    c->rx_tap = split_tap_fn;
    c->rx_tap_ctx = &tap;
    while (ok && off < k->len) {
        uint32_t n = split_next(k, kind, arg, off), got = 0;

        if (write(sv[0], k->wire + off, n) != (ssize_t)n) {
            ok = 0;
            break;
        }
        off += n;
        while (got < n) {
            long m = ofl_posix_poll(c, &k->r->b.qp, 1000);

            if (m <= 0) {
                ok = 0;
                break;
            }
            got += (uint32_t)m;
        }
        (void)qr_process(&k->r->b, 0);
    }
    close(sv[0]);
    close(sv[1]);
    return ok && c->rx_sn == k->seq + k->len && !tap.bad &&
           tap.got == k->len && split_verdict(k);
}

/* Every split kind, for one FPDU size (emss) and one receiver CRC path. */
static void split_run(uint32_t emss, const char *path, int posix)
{
    static struct ofl_posix_conn conn;
    static const uint32_t fixed[] = {2,    3,    5,     7,     13,   1448,
                                     1460, 4096, 16384, 65536, 100000};
    unsigned long bad = 0, runs = 0;
    uint32_t kind, arg, nargs;

    for (kind = 0; kind < SPLIT_KINDS; kind++) {
        nargs = kind == SPLIT_ONE      ? 1
                : kind == SPLIT_FIXED  ? sizeof(fixed) / sizeof(fixed[0])
                : kind == SPLIT_AROUND ? 17
                                       : 12;
        if (posix && kind == SPLIT_ONE)
            continue; /* 130,000 one-byte socket round trips: the plain
                         feed covers it */
        for (arg = 0; arg < nargs; arg++) {
            struct split_case k;
            int ok;

            memset(&k, 0, sizeof(k));
            if ((ok = split_setup(&k, emss, 0x5EED0000u + arg)) != 0) {
                printf("qp_split: setup %d emss %u kind %u arg %u\n", ok, emss, kind, arg);
                bad++;
                split_free(&k);
                continue;
            }
            split_rnd_state = 0xC0FFEEu + arg * 7919u + emss;
            {
                uint32_t a = kind == SPLIT_FIXED ? fixed[arg] : arg;

                ok = posix ? split_feed_posix(&k, (enum split_kind)kind, a,
                                              &conn)
                           : split_feed(&k, (enum split_kind)kind, a);
            }
            if (!ok) {
                bad++;
                printf("qp_split: emss %u crc %s%s kind %u arg %u: FAILED "
                       "(b %s, %s)\n",
                       emss, path, posix ? " posix" : "", kind, arg,
                       ofl_qp_state_name((enum ofl_qp_state)k.r->b.qp.state),
                       ofl_strerror((enum ofl_err)k.r->b.qp.err));
            }
            runs++;
            split_free(&k);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(runs > 0);
}

OFL_SUITE(qp_split)
{
    /* siw's FPDUs fill its tcp_seglen (mss_cache & ~7: 1448 behind an
     * Ethernet MTU with timestamps, larger on loopback or with GSO) */
    static const uint32_t emss[] = {1448, 1460, 9200, 16384, 65535};
    struct ofl_posix px;
    const char *name;
    ofl_posix_crc_fn fn;
    unsigned i, e;

    ofl_posix_init(&px);
    /* siw's usual size with every CRC32c path the posix port has */
    split_crc = NULL;
    split_run(emss[0], "portable", 0);
    for (i = 0; (fn = ofl_posix_crc32c_cpu_path(i, &name)), name != NULL; i++) {
        if (fn == NULL)
            continue;
        split_crc = fn;
        split_run(emss[0], name, 0);
    }
    if ((fn = ofl_posix_crc32c_isal()) != NULL) {
        split_crc = fn;
        split_run(emss[0], "isa-l", 0);
    }
    /* every size with the port's own choice, fed directly and through
     * ofl_posix_poll */
    split_crc = px.crc;
    for (e = 0; e < sizeof(emss) / sizeof(emss[0]); e++) {
        if (e != 0)
            split_run(emss[e], px.crc_name, 0);
        split_run(emss[e], px.crc_name, 1);
    }
}
