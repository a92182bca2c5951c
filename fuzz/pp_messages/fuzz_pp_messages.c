/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_pp_messages: the push-push message decoder and the pool state
 * machines of two detached connections (a = the I/O unit, b = the host),
 * driven by hostile bytes.
 *
 * Each end's control channel is a cell channel (cfg.cells), its data
 * channel a plain one: a whole message is taken only on the data channel,
 * a cell only on the control channel (offload.h, "Cell channels").
 *
 * Input: a sequence of events (at most MAX_EVENTS), each an opcode byte
 * and its arguments (missing bytes read as zero):
 *   0 n(16) bytes   raw message to a (ofl_pp_conn_recv) on its data
 *                   channel; also decoded alone: an accepted message
 *                   re-encodes to the same bytes
 *   1 n(16) bytes   raw message to b on its data channel
 *   (9, 10: the same on the control channel, a cell channel: always
 *   OFL_E_PP_CELL_CHANNEL, and the end, its reassembly and counters
 *   included, unchanged; so with op / 9 odd for every event 0 or 1)
 *   2 imm(64)       raw immediate data to a (ofl_pp_conn_recv_imm)
 *   3 idx cnt size  a advertises a pool (index, count 8 bits, size 16
 *                   bits); the BufferRecvPool goes to b
 *   4 pool elem len b writes (ofl_pp_write_prepare); its indication (imm or
 *                   BufferRDMAIndicate) goes to a
 *   5 pool first n  a replenishes a run; the Update goes to b
 *   6 who own pool  a flush; the request goes to the peer, the reply back
 *   7 who           close
 *   8 len(16)       b picks an element (ofl_pp_pick)
 *   0xF0 .. 0xF7 psn(32)  cell mode (seed 002 cells): both ends' control
 *                   channels are re-initialised with cells of
 *                   16 << 2 ((op >> 1) & 3) bytes (16, 64, 256, 1024),
 *                   both directions numbered from psn; from now on carry()
 *                   takes every control-channel message as cells
 *                   (ofl_pp_msg_cells, ofl_pp_cell_build,
 *                   ofl_pp_conn_recv_cell), each cell given twice when op
 *                   is odd (the second must be OFL_E_PP_CELL_DUP); before
 *                   it carry() takes every message whole on the data
 *                   channel
 *   0xF8 .. 0xFF n(16) bytes  a raw cell to a's control channel
 *                   (ofl_pp_conn_recv_cell); when op is odd to a's data
 *                   channel, a plain one: always OFL_E_PP_CELL_CHANNEL,
 *                   a unchanged
 * (ops below 0xF0 are taken modulo 9, as before the cell events.)
 *
 * Invariants after every event: in each of the four tables every pool's
 * consumed count equals its set bits, no bit is set at or past its element
 * count or in an EMPTY pool, and `active` counts the pools not EMPTY; a
 * CLOSED connection holds no pool and answers a FlushRequest (nothing
 * else); a refused call leaves the tables and the
 * state as they were (no half-applied state). While no raw bytes were
 * injected (events 0-2), the two ends agree: every message one end builds
 * is accepted by the other between two READY ends, and so is the
 * FlushReply that comes back; every indication b produces is accepted by
 * a, and a pool both ends hold has the same consumed elements on both.
 * Flushes (event 6) follow the pool table of offload.h whatever came
 * before: the flushed pool is FLUSHING at its end; an accepted request
 * empties it at the peer and brings back a FlushReply carrying the
 * request's context (no other message brings a reply); an accepted reply
 * leaves it EMPTY at the end that asked. Cells: a cell that completes no
 * message changes no table and no state; while nothing hostile came in,
 * the sender's next psn equals the receiver's after every carry, every
 * cell but the last completes nothing and the last completes the
 * message.
 */
#include "fuzz.h"
#include "offload.h"

#include <stdbool.h>
#include <string.h>

#define CAP 20u
#define MAXE 300u
#define WORDS (CAP * ((MAXE + 31) / 32))
#define MAX_EVENTS 128
#define RBUF 1024u /* cell reassembly: longer than any message built here */

struct end {
    struct ofl_pp_conn c;
    struct ofl_pp_pool rx_slot[CAP], tx_slot[CAP];
    uint32_t rx_bits[WORDS], tx_bits[WORDS];
    struct ofl_pp_cells cells; /* the control channel's */
    uint8_t rbuf[RBUF];
};

static struct end g_a, g_b;
static struct end g_snap;
static struct ofl_pp_msg g_m, g_in, g_reply, g_d;
static uint8_t g_buf[8192], g_buf2[8192];
static bool g_clean;
static uint32_t g_cellmode; /* 0 off, 1 cells, 2 each cell twice */
static uint32_t g_cellsize;
static uint8_t g_cell[1024 + 64];

static void end_init(struct end *e)
{
    struct ofl_pp_conn_cfg cfg;

    memset(&cfg, 0, sizeof(cfg));
    FUZZ_ASSERT(ofl_pp_cells_init(&e->cells, NULL, e->rbuf, RBUF,
                                  OFL_PP_CELL_SIZE, 0, 0) == OFL_OK);
    cfg.cells[OFL_PP_CTRL] = &e->cells;
    cfg.rx = (struct ofl_pp_pools_mem){e->rx_slot, CAP, MAXE, e->rx_bits,
                                       WORDS};
    cfg.tx = (struct ofl_pp_pools_mem){e->tx_slot, CAP, MAXE, e->tx_bits,
                                       WORDS};
    FUZZ_ASSERT(ofl_pp_conn_init(&e->c, &cfg) == OFL_OK);
    FUZZ_ASSERT(ofl_pp_conn_start(&e->c) == OFL_OK);
}

static void check_table(const struct ofl_pp_pools *t)
{
    uint32_t p, w, active = 0, flushing = 0;

    /* A word at a time (a bit-by-bit walk, with libFuzzer's compare
     * tracing, cost more than the rest of an input). */
    for (p = 0; p < t->cap; p++) {
        const struct ofl_pp_pool *s = &t->slot[p];
        uint32_t set = 0, count;

        active += s->state != OFL_PP_POOL_EMPTY;
        flushing += s->state == OFL_PP_POOL_FLUSHING;
        FUZZ_ASSERT(s->state <= OFL_PP_POOL_FLUSHING);
        FUZZ_ASSERT(s->d.count <= t->max_elems);
        count = s->state == OFL_PP_POOL_EMPTY ? 0 : s->d.count;
        for (w = 0; w < t->words; w++) {
            uint32_t bits = t->bits[p * t->words + w];
            uint32_t below = count <= w * 32 ? 0 : count - w * 32;
            uint32_t allowed = below >= 32 ? 0xFFFFFFFFu
                                           : (1u << below) - 1u;

            /* only elements of a live pool, below its count, are used */
            FUZZ_ASSERT((bits & ~allowed) == 0);
            set += (uint32_t)__builtin_popcount(bits);
        }
        FUZZ_ASSERT(set == s->consumed);
    }
    FUZZ_ASSERT(active == t->active);
    FUZZ_ASSERT(flushing == t->flushing); /* a FlushReply's scan ends on it */
}

static void check_end(const struct end *e)
{
    check_table(&e->c.rx);
    check_table(&e->c.tx);
    if (e->c.state == OFL_PP_CLOSED)
        FUZZ_ASSERT(e->c.rx.active == 0 && e->c.tx.active == 0);
}

/* b's view of a's pools equals a's own while nothing hostile came in. */
static void check_agree(void)
{
    uint32_t p;

    if (!g_clean)
        return;
    for (p = 0; p < CAP; p++) {
        const struct ofl_pp_pool *o = &g_a.c.rx.slot[p], *v = &g_b.c.tx.slot[p];

        if (o->state == OFL_PP_POOL_EMPTY || v->state == OFL_PP_POOL_EMPTY)
            continue;
        FUZZ_ASSERT(memcmp(&o->d, &v->d, sizeof(o->d)) == 0);
        FUZZ_ASSERT(memcmp(&g_a.c.rx.bits[p * g_a.c.rx.words],
                           &g_b.c.tx.bits[p * g_b.c.tx.words],
                           g_a.c.rx.words * 4) == 0);
    }
}

static void snap(const struct end *e)
{
    memcpy(&g_snap, e, sizeof(g_snap));
}

/* A refused call changed no table and no state. */
static void unchanged(const struct end *e, enum ofl_err err)
{
    if (err == OFL_OK)
        return;
    FUZZ_ASSERT(e->c.state == g_snap.c.state);
    FUZZ_ASSERT(memcmp(e->rx_slot, g_snap.rx_slot, sizeof(e->rx_slot)) == 0);
    FUZZ_ASSERT(memcmp(e->tx_slot, g_snap.tx_slot, sizeof(e->tx_slot)) == 0);
    FUZZ_ASSERT(memcmp(e->rx_bits, g_snap.rx_bits, sizeof(e->rx_bits)) == 0);
    FUZZ_ASSERT(memcmp(e->tx_bits, g_snap.tx_bits, sizeof(e->tx_bits)) == 0);
    FUZZ_ASSERT(e->c.rx.active == g_snap.c.rx.active &&
                e->c.tx.active == g_snap.c.tx.active);
}

/* A refusal for the wrong channel changed nothing at all: not the
 * tables, the state, the counters, the reassembly or the psns. */
static void untouched(const struct end *e)
{
    FUZZ_ASSERT(memcmp(e, &g_snap, sizeof(*e)) == 0);
}

/* Hostile bytes to one end on channel ch; the decoder alone must
 * round-trip them. */
static void raw(struct end *e, enum ofl_pp_channel ch, const uint8_t *p,
                size_t n)
{
    enum ofl_err err = ofl_pp_msg_decode(p, n, &g_d);
    size_t len = 0;

    if (err == OFL_OK) {
        FUZZ_ASSERT(ofl_pp_msg_size(&g_d) == n);
        FUZZ_ASSERT(ofl_pp_msg_encode(&g_d, g_buf2, sizeof(g_buf2), &len) ==
                    OFL_OK);
        FUZZ_ASSERT(len == n && memcmp(g_buf2, p, n) == 0);
    }
    snap(e);
    g_reply.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY; /* must be cleared */
    err = ofl_pp_conn_recv(&e->c, ch, p, n, &g_in, &g_reply);
    unchanged(e, err);
    /* a whole message on the cell channel: refused, nothing changed */
    FUZZ_ASSERT((err == OFL_E_PP_CELL_CHANNEL) == (ch == OFL_PP_CTRL));
    if (ch == OFL_PP_CTRL)
        untouched(e);
    if (err != OFL_OK)
        FUZZ_ASSERT(g_reply.type == 0);
    if (err == OFL_OK && g_reply.type != 0)
        FUZZ_ASSERT(ofl_pp_msg_encode(&g_reply, g_buf2, sizeof(g_buf2),
                                      &len) == OFL_OK);
}

/* What the last carry() saw: the request's and the reply's results. */
static enum ofl_err g_req_err, g_rep_err;
static bool g_replied;

/* Carries control-channel message m as cells (g_cellmode); the result of
 * the last cell given, or of the first refused. */
static enum ofl_err carry_cells(struct end *from, struct end *to,
                                const struct ofl_pp_msg *m)
{
    struct ofl_pp_packet p;
    struct ofl_pp_rx rx = {&g_in, &g_reply, false};
    uint32_t i, n;
    enum ofl_err err = OFL_OK;

    FUZZ_ASSERT(ofl_pp_msg_cells(&from->c, OFL_PP_CTRL, m, g_buf,
                                 sizeof(g_buf), &p) == OFL_OK);
    n = ofl_pp_cell_count(g_cellsize, p.len);
    FUZZ_ASSERT(n >= 1 && ofl_pp_cell_bytes(g_cellsize, p.len) != 0);
    for (i = 0; i < n; i++) {
        size_t clen = 0;

        FUZZ_ASSERT(ofl_pp_cell_build(NULL, g_cellsize, &p, i, g_cell,
                                      sizeof(g_cell), &clen) == OFL_OK);
        err = ofl_pp_conn_recv_cell(&to->c, OFL_PP_CTRL, g_cell, clen, &rx);
        if (g_clean)
            FUZZ_ASSERT(err != OFL_OK || rx.done == (i == n - 1));
        if (err != OFL_OK && !rx.done)
            unchanged(to, err);
        if (g_cellmode == 2 && !rx.done && err == OFL_OK) {
            enum ofl_err dup =
                ofl_pp_conn_recv_cell(&to->c, OFL_PP_CTRL, g_cell, clen, &rx);

            FUZZ_ASSERT(dup == OFL_E_PP_CELL_DUP && !rx.done);
        }
        if (err != OFL_OK || rx.done)
            break;
    }
    if (g_clean)
        FUZZ_ASSERT(rx.done || err != OFL_OK);
    if (g_clean && to->c.state != OFL_PP_DOWN)
        FUZZ_ASSERT(to->cells.rx.psn == from->cells.tx_psn);
    return err;
}

/* Carries a message one end built to the other; a reply goes back. */
static void carry(struct end *from, struct end *to, const struct ofl_pp_msg *m)
{
    static struct ofl_pp_msg reply;
    size_t len = 0;
    enum ofl_err err;

    bool ready = from->c.state == OFL_PP_READY && to->c.state == OFL_PP_READY;
    bool to_closed = to->c.state == OFL_PP_CLOSED;

    g_replied = false;
    g_rep_err = OFL_OK;
    snap(to);
    if (g_cellmode != 0 && ofl_pp_msg_channel(m) == OFL_PP_CTRL) {
        err = g_req_err = carry_cells(from, to, m);
    } else {
        /* whole, on the plain data channel (it carries every message) */
        FUZZ_ASSERT(ofl_pp_msg_encode(m, g_buf, sizeof(g_buf), &len) ==
                    OFL_OK);
        err = g_req_err = ofl_pp_conn_recv(&to->c, OFL_PP_DATA, g_buf, len,
                                           &g_in, &g_reply);
    }
    unchanged(to, err);
    /* Between two READY ends that saw nothing hostile, every message one
     * builds is accepted by the other. Once one end closes, a message may
     * legitimately be refused (an advertisement to a closing peer); the
     * two views may then differ. */
    if (g_clean && ready)
        FUZZ_ASSERT(err == OFL_OK);
    /* A CLOSED end takes a FlushRequest, and nothing else (offload.h). */
    if (to_closed)
        FUZZ_ASSERT((err == OFL_OK) ==
                    (m->type == OFL_PP_BUFFER_POOL_FLUSH_REQUEST));
    if (err != OFL_OK)
        g_clean = false;
    if (err != OFL_OK)
        return;
    /* Only a FlushRequest asks for a reply: the FlushReply with the
     * request's transaction context (offload.h, pool table FLUSH_REPLY). */
    if (m->type != OFL_PP_BUFFER_POOL_FLUSH_REQUEST) {
        FUZZ_ASSERT(g_reply.type == 0);
        return;
    }
    FUZZ_ASSERT(g_reply.type == OFL_PP_BUFFER_POOL_FLUSH_REPLY &&
                g_reply.ctx == m->ctx);
    reply = g_reply;
    FUZZ_ASSERT(ofl_pp_msg_encode(&reply, g_buf, sizeof(g_buf), &len) ==
                OFL_OK);
    snap(from);
    err = g_rep_err = ofl_pp_conn_recv(&from->c, OFL_PP_DATA, g_buf, len,
                                       &g_in, &g_reply);
    g_replied = true;
    unchanged(from, err);
    /* The reply ends the flush this exchange started: between two READY
     * ends that saw nothing hostile it is accepted. */
    if (g_clean && ready)
        FUZZ_ASSERT(err == OFL_OK);
    if (err != OFL_OK)
        g_clean = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    int ev;

    end_init(&g_a);
    end_init(&g_b);
    g_clean = true;
    g_cellmode = 0;
    g_cellsize = OFL_PP_CELL_SIZE;
    for (ev = 0; ev < MAX_EVENTS && in.n != 0; ev++) {
        uint8_t op = fuzz_u8(&in);
        enum ofl_err err;

        if (op >= 0xF8) { /* a raw cell to a */
            const uint8_t *p;
            size_t n = fuzz_take(&in, &p, fuzz_u16(&in));
            struct ofl_pp_rx rx = {&g_in, &g_reply, false};
            enum ofl_pp_channel ch = (op & 1u) ? OFL_PP_DATA : OFL_PP_CTRL;

            g_clean = false;
            snap(&g_a);
            err = ofl_pp_conn_recv_cell(&g_a.c, ch, p, n, &rx);
            /* a cell on the plain channel: refused, nothing changed */
            FUZZ_ASSERT((err == OFL_E_PP_CELL_CHANNEL) == (ch == OFL_PP_DATA));
            if (ch == OFL_PP_DATA)
                untouched(&g_a);
            /* a cell that completes nothing reaches no table */
            unchanged(&g_a, rx.done ? err : OFL_E_PP_CELL_MISSING);
            if (!rx.done)
                FUZZ_ASSERT(g_a.c.stats.msgs_rx == g_snap.c.stats.msgs_rx);
            if (err == OFL_OK && rx.done && g_reply.type != 0) {
                size_t len = 0;

                FUZZ_ASSERT(ofl_pp_msg_encode(&g_reply, g_buf2,
                                              sizeof(g_buf2), &len) == OFL_OK);
            }
            goto checks;
        }
        if (op >= 0xF0) { /* cell mode */
            uint32_t psn = fuzz_u32(&in);

            g_cellmode = 1 + (op & 1u);
            g_cellsize = 16u << (2 * ((op >> 1) & 3u));
            FUZZ_ASSERT(ofl_pp_cells_init(&g_a.cells, NULL, g_a.rbuf, RBUF,
                                          g_cellsize, psn, psn) == OFL_OK);
            FUZZ_ASSERT(ofl_pp_cells_init(&g_b.cells, NULL, g_b.rbuf, RBUF,
                                          g_cellsize, psn, psn) == OFL_OK);
            goto checks;
        }
        switch (op % 9) {
        case 0:
        case 1: {
            const uint8_t *p;
            size_t n = fuzz_take(&in, &p, fuzz_u16(&in));

            g_clean = false;
            raw(op % 9 == 0 ? &g_a : &g_b,
                ((op / 9) & 1u) ? OFL_PP_CTRL : OFL_PP_DATA, p, n);
            break;
        }
        case 2: {
            struct ofl_pp_ref r;

            g_clean = false;
            snap(&g_a);
            err = ofl_pp_conn_recv_imm(&g_a.c, fuzz_u64(&in), &r);
            unchanged(&g_a, err);
            break;
        }
        case 3: {
            struct ofl_pp_pool_desc d;

            memset(&d, 0, sizeof(d));
            d.index = fuzz_u8(&in);
            d.count = fuzz_u16(&in);
            d.size = fuzz_u32(&in);
            d.handle = 0x100 + d.index;
            d.va = fuzz_u64(&in);
            snap(&g_a);
            err = ofl_pp_advertise(&g_a.c, &d, 1, &g_m);
            unchanged(&g_a, err);
            if (err == OFL_OK)
                carry(&g_a, &g_b, &g_m);
            break;
        }
        case 4: {
            struct ofl_pp_write w;
            uint32_t pool = fuzz_u8(&in), elem = fuzz_u16(&in);
            uint32_t len = fuzz_u32(&in);
            struct ofl_pp_ref r;

            snap(&g_b);
            err = ofl_pp_write_prepare(&g_b.c, pool, elem, len, &w);
            unchanged(&g_b, err);
            if (err != OFL_OK)
                break;
            FUZZ_ASSERT(w.kind == ofl_pp_indication(pool, elem, len, NULL));
            if (w.kind == OFL_PP_IND_IMM) {
                snap(&g_a);
                err = ofl_pp_conn_recv_imm(&g_a.c, w.imm, &r);
                unchanged(&g_a, err);
                if (g_clean && g_a.c.state == OFL_PP_READY)
                    FUZZ_ASSERT(err == OFL_OK && r.pool == pool &&
                                r.elem == elem && r.len == len);
                if (err != OFL_OK)
                    g_clean = false;
            } else {
                memset(&g_m, 0, sizeof(g_m));
                g_m.type = OFL_PP_BUFFER_RDMA_INDICATE;
                g_m.count = 1;
                g_m.u.ref[0] = (struct ofl_pp_ref){pool, elem, len};
                carry(&g_b, &g_a, &g_m);
            }
            break;
        }
        case 5: {
            struct ofl_pp_ref run;

            run.pool = fuzz_u8(&in);
            run.elem = fuzz_u16(&in);
            run.len = fuzz_u8(&in);
            snap(&g_a);
            err = ofl_pp_replenish(&g_a.c, &run, 1, &g_m);
            unchanged(&g_a, err);
            if (err == OFL_OK)
                carry(&g_a, &g_b, &g_m);
            break;
        }
        case 6: {
            uint8_t who = fuzz_u8(&in);
            struct end *e = (who & 1) ? &g_b : &g_a;
            uint32_t pool = fuzz_u8(&in);

            struct end *peer = e == &g_a ? &g_b : &g_a;
            bool own = (who & 2) != 0;

            snap(e);
            err = ofl_pp_flush(&e->c, own, &pool, 1, fuzz_u8(&in), &g_m);
            unchanged(e, err);
            if (err != OFL_OK)
                break;
            /* The model (offload.h pool table): FLUSH_LOCAL makes the pool
             * FLUSHING at e; the request, once taken, empties it at the
             * peer (FLUSH_PEER; one the peer does not know counts as
             * flushed); the reply, once taken, empties it at e. An own
             * pool is e's rx and the peer's tx, else e's tx and the
             * peer's rx. */
            FUZZ_ASSERT(pool < CAP);
            FUZZ_ASSERT((own ? e->rx_slot : e->tx_slot)[pool].state ==
                        OFL_PP_POOL_FLUSHING);
            carry(e, peer, &g_m);
            if (g_req_err == OFL_OK)
                FUZZ_ASSERT((own ? peer->tx_slot : peer->rx_slot)[pool].state ==
                            OFL_PP_POOL_EMPTY);
            if (g_req_err == OFL_OK)
                FUZZ_ASSERT(g_replied);
            if (g_replied && g_rep_err == OFL_OK)
                FUZZ_ASSERT((own ? e->rx_slot : e->tx_slot)[pool].state ==
                            OFL_PP_POOL_EMPTY);
            break;
        }
        case 7: {
            struct end *e = (fuzz_u8(&in) & 1) ? &g_b : &g_a;

            snap(e);
            err = ofl_pp_conn_close(&e->c);
            unchanged(e, err);
            break;
        }
        default: {
            struct ofl_pp_ref r;
            uint32_t len = fuzz_u16(&in);

            if (ofl_pp_pick(&g_b.c, len, &r) == OFL_OK) {
                const struct ofl_pp_pool *s = &g_b.c.tx.slot[r.pool];

                FUZZ_ASSERT(s->state == OFL_PP_POOL_ACTIVE);
                FUZZ_ASSERT(r.elem < s->d.count && s->d.size >= len);
                FUZZ_ASSERT(!ofl_pp_pools_consumed(&g_b.c.tx, r.pool, r.elem));
            }
            break;
        }
        }
    checks:
        check_end(&g_a);
        check_end(&g_b);
        check_agree();
    }
    return 0;
}
