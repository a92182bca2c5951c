/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_dt_input: random input-table contents processed by the adapter side
 * of the dt section (seed 003), interleaved with the events the firmware
 * and the host cause (received data, connection events, transmit progress,
 * responses read, time passing).
 *
 * Input: a sequence of events, each an op byte and its operands:
 *
 *   0 DESC   flags, 32 raw bytes: written into the next free input slot
 *            with the owner bit set. flags bit 0 folds base/len into the
 *            host arena, bit 1 replaces conn with a known connection id.
 *   1 POLL   dt: time advances by dt, then ofl_dt_poll
 *   2 RX     sel, len, len bytes: ofl_dt_rx on a known id
 *   3 FW     kind, sel: established / failed / arrive / closed /
 *            listen result OK / FAILED / TIMEOUT (refused) / closed
 *   4 TX     sel, n (16 bits): transmit progress
 *   5 HOST   max: the host reads up to max responses
 *   6 ARENA  off (16 bits), len, len bytes: host writes its memory
 *   7 ACT    the firmware drains its actions; it answers a LISTEN with
 *            an odd id (an even table index) at once (OK); one with an
 *            even id stays unanswered until a FW op answers it
 *   8 STEP   which: process (a few) / service / flush alone
 *
 * Guard: the sim port traps (abort) on any DMA outside the two tables and
 * the buffers the adapter owns at that moment, with the direction each
 * allows (a send buffer is only read, a receive buffer only written, a
 * control buffer both). A buffer is owned from the moment its well-formed
 * request is handed over until the DMA that writes the response giving it
 * back into the output table (a send: its buffer available response,
 * merged ones covering several; a receive or peek buffer: its FINAL
 * buffer receive response, or the refusal) - a control buffer until the
 * DMA that hands its request's input slot back. The harness wraps the sim
 * port's dma_write to see those DMAs as they happen. A request that does
 * not decode owns nothing. Invariants: every response the adapter wrote
 * decodes, every return names a buffer the adapter owned (only a
 * malformed request's refusal, BAD_DESC, or the refusal of a buffer
 * outside the host range, BAD_RANGE, may name none), no listen request is
 * answered twice, an unanswered listen owns nothing, and the adapter's
 * counters agree with its tables.
 *
 * Liveness: when the input ends, the harness turns the delay criteria
 * off (again each round: a request still queued may set them) and drives
 * ofl_dt_poll, the transmit rings and the host's reads for
 * a bounded number of rounds: the adapter must reach quiescence (input
 * table consumed, no response staged or unread, no close draining, no
 * send listed, no notice pending), the firmware answering every listen it
 * took; then every listen request has had exactly one listen response. A
 * request or close waiting for room the host can never give (a stall)
 * fails it.
 */
#include "fuzz.h"
#include "ports/sim/ofl_sim.h"

#include <string.h>

#define SLOTS 16
#define ARENA 65536u
#define CONNS 8
#define RBUFS 16
#define XFERS 8
#define NIDS 32

static _Alignas(64) uint8_t in_table[SLOTS * 32];
static _Alignas(64) uint8_t out_table[SLOTS * 32];
static _Alignas(64) uint8_t arena[ARENA];
static uint8_t in_stage[4 * 32], out_stage[16 * 32];
static uint32_t out_batch; /* 4, or 16: the reclaim reads through the stage */
static struct ofl_dt_conn conns[CONNS];
static uint8_t conn_data[CONNS * (256 + 256)];
static struct ofl_dt_rbuf rbufs[RBUFS];
static struct ofl_dt_xfer xfers[XFERS];
static struct ofl_dt_cache cache[2];
static uint8_t cache_data[2 * 128];
static uint8_t ctrl[256];
static struct ofl_sim sim;
static struct ofl_dt_host host;
static struct ofl_dt dt;
static uint64_t ids[NIDS];
static unsigned nids;

/* Buffers the adapter owns (the guard is rebuilt from them). */
#define NOWN 60 /* <= OFL_SIM_MAX_RANGES - 2 (the tables) */
enum { OWN_SEND = 1, OWN_RECV = 2, OWN_CTRL = 3 };
struct owned {
    uint64_t pa;
    uint32_t len;
    uint32_t seq; /* input slot sequence of its request */
    uint32_t tag; /* a receive buffer's: its returns carry it */
    uint64_t conn; /* a send's: the connection its response names */
    uint8_t kind;
};
static struct owned own[NOWN];
static unsigned nown;
static uint32_t in_seen;  /* input slots known consumed */
static uint32_t out_seen; /* output slots whose responses were examined */
/* Listen requests handed over (by their type field, well-formed or not)
 * and listen responses written: each request gets exactly one. */
static uint32_t listen_req, listen_rsp;
static struct ofl_port port; /* the sim port, dma_write wrapped */
static int (*sim_write)(void *ctx, uint64_t pa, const void *src, size_t len);
static void sweep(void);

static void learn(uint64_t id)
{
    unsigned i;

    if (id == 0)
        return;
    for (i = 0; i < nids; i++)
        if (ids[i] == id)
            return;
    if (nids < NIDS)
        ids[nids++] = id;
    else
        ids[id % NIDS] = id;
}

static uint64_t pick(uint8_t sel)
{
    return nids ? ids[sel % nids] : 0;
}

/*
 * Adds [lo, lo + len) with perm to the guard, folded together with every
 * entry of the same perm it overlaps or touches: the adapter merges
 * requests for adjacent buffers into one DMA (FIG. 15), and the sim port
 * wants one entry to cover a whole access. Entries 0 and 1 (the tables)
 * stay apart.
 */
static bool allow_union(uint64_t lo, uint64_t len, unsigned perm)
{
    uint64_t hi = lo + len; /* exclusive; the arena does not wrap */
    unsigned i, guard;

    for (guard = 0; guard < OFL_SIM_MAX_RANGES; guard++) {
        for (i = 2; i < sim.nallow; i++) {
            struct ofl_sim_range *r = &sim.allow[i];

            if (r->perm == perm && r->pa <= hi && lo <= r->pa + r->len)
                break;
        }
        if (i == sim.nallow)
            break;
        if (sim.allow[i].pa < lo)
            lo = sim.allow[i].pa;
        if (sim.allow[i].pa + sim.allow[i].len > hi)
            hi = sim.allow[i].pa + sim.allow[i].len;
        sim.allow[i] = sim.allow[--sim.nallow];
    }
    return ofl_sim_allow_pa(&sim, lo, hi - lo, perm) == 0;
}

static const unsigned own_perm[4] = {0, OFL_SIM_READ, OFL_SIM_WRITE,
                                     OFL_SIM_RW};

/* The guard: the two tables and every owned buffer, nothing else. */
static void guard_rebuild(void)
{
    unsigned i;

    sim.nallow = 2;
    for (i = 0; i < nown; i++)
        FUZZ_ASSERT(allow_union(own[i].pa, own[i].len, own_perm[own[i].kind]));
}

static void own_drop(unsigned i)
{
    own[i] = own[--nown];
}

/* Removes the owned receive buffer at pa with tag. False when there is
 * none. */
static bool own_release_recv(uint64_t pa, uint32_t tag)
{
    unsigned i;

    for (i = 0; i < nown; i++) {
        if (own[i].kind == OWN_RECV && own[i].pa == pa && own[i].tag == tag) {
            own_drop(i);
            return true;
        }
    }
    return false;
}

/*
 * Removes the n sends one buffer available response gives back. The
 * adapter merges a connection's requests that follow each other in the
 * list and cover adjacent ranges, so they are n sends of connection conn
 * that are consecutive in request order among those it still owns (an
 * earlier one may stay listed, cancelled, or a later one be refused
 * first), tiling [base, base + len), the first with the response's tag.
 * A greedy match by address alone is not enough: the host may send the
 * same buffer twice. False when no such run exists.
 */
static bool own_release_sends(uint64_t conn, uint32_t tag, uint64_t base,
                              uint32_t len, uint32_t n)
{
    unsigned idx[NOWN], m = 0, i, j, start, k;
    uint64_t cursor;

    for (i = 0; i < nown; i++) {
        if (own[i].kind != OWN_SEND || own[i].conn != conn)
            continue;
        /* Insertion by request order (seq counts input slots). */
        for (j = m; j > 0 && (int32_t)(own[idx[j - 1]].seq - own[i].seq) > 0;
             j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
        m++;
    }
    for (start = 0; start + n <= m; start++) {
        if (own[idx[start]].tag != tag)
            continue;
        cursor = base;
        for (k = 0; k < n; k++) {
            const struct owned *o = &own[idx[start + k]];

            if (o->pa != cursor || o->len > base + len - cursor)
                break;
            cursor += o->len;
        }
        if (k < n || cursor != base + len)
            continue;
        /* Drop from the highest index down: own_drop moves the last. */
        for (k = 0; k < n; k++)
            own[idx[start + k]].kind = 0;
        for (i = nown; i-- > 0;)
            if (own[i].kind == 0)
                own_drop(i);
        return true;
    }
    return false;
}

/*
 * The buffer a well-formed request d hands to the adapter, if any, with
 * its direction. A range outside the arena is not owned: the adapter must
 * refuse it. Returns false when the guard is full, or d posts a receive
 * buffer (base and tag) the adapter already holds, or a send (connection,
 * base and tag) the adapter already holds (do not hand it over).
 */
static bool describe(const uint8_t *raw)
{
    struct ofl_dt_desc d;
    uint64_t lo = ofl_sim_pa(arena);
    uint8_t kind;
    unsigned i;

    if (ofl_dt_desc_decode(raw, 32, &d) != OFL_OK)
        return true; /* refused unread: owns nothing */
    if (d.len == 0 || d.base < lo || d.base - lo >= ARENA ||
        d.len > ARENA - (d.base - lo))
        return true;
    switch (d.type) {
    case OFL_DT_REQ_BUF_SEND:
        kind = OWN_SEND;
        break;
    case OFL_DT_REQ_BUF_AVAIL:
        kind = OWN_RECV;
        break;
    case OFL_DT_REQ_CONNECT:
    case OFL_DT_REQ_LISTEN:
    case OFL_DT_REQ_CONN_ATTR:
    case OFL_DT_REQ_ADAPTER_ATTR:
        kind = OWN_CTRL;
        break;
    default:
        return true;
    }
    if (nown == NOWN)
        return false;
    /* Receive buffers are told apart by base and tag (their returns carry
     * both): a host does not post the same one again while the adapter
     * holds it. */
    for (i = 0; kind == OWN_RECV && i < nown; i++)
        if (own[i].kind == OWN_RECV && own[i].pa == d.base &&
            own[i].tag == d.tag)
            return false;
    /* Sends likewise by connection, base and tag: a refusal names only
     * those, so with two alike outstanding (one listed, one refused when
     * its connection was CLOSING) the model could not tell which came
     * back. */
    for (i = 0; kind == OWN_SEND && i < nown; i++)
        if (own[i].kind == OWN_SEND && own[i].pa == d.base &&
            own[i].tag == d.tag && own[i].conn == d.conn)
            return false;
    own[nown].pa = d.base;
    own[nown].tag = d.tag;
    own[nown].len = d.len;
    own[nown].conn = d.conn;
    own[nown].seq = host.in_tail;
    own[nown].kind = kind;
    nown++;
    guard_rebuild();
    return true;
}

/* A refusal that may name a buffer the adapter never owned: a malformed
 * request (BAD_DESC) or a buffer outside the host range (BAD_RANGE). */
static bool unowned_refusal(uint8_t status)
{
    return status == OFL_DT_ST_BAD_DESC || status == OFL_DT_ST_BAD_RANGE;
}

/* A response the adapter just wrote: the buffers it gives back. */
static void returned(const struct ofl_dt_desc *r)
{
    bool found;

    if (r->type == OFL_DT_RSP_BUF_AVAIL) {
        /* number sends merged over adjacent ranges tiling [base, base +
         * len) (a refusal: 1). */
        found = own_release_sends(r->conn, r->tag, r->base, r->len,
                                  r->number ? r->number : 1u);
        FUZZ_ASSERT(found || unowned_refusal(r->status));
    } else if (r->type == OFL_DT_RSP_BUF_RECV && (r->flags & OFL_DT_F_FINAL)) {
        found = own_release_recv(r->base, r->tag);
        FUZZ_ASSERT(found || unowned_refusal(r->status));
    }
}

/* Follows both tables: requests the adapter consumed release their
 * control buffers; responses it wrote release what they give back. */
static void sweep(void)
{
    const uint8_t *slot;
    struct ofl_dt_desc r;
    unsigned i, guard;
    bool changed = false;

    for (guard = 0; guard < SLOTS && in_seen != host.in_tail; guard++) {
        slot = in_table + (in_seen & (SLOTS - 1)) * 32;
        if (slot[0] & OFL_DT_OWNER)
            break;
        for (i = 0; i < nown; i++) {
            if (own[i].kind == OWN_CTRL && own[i].seq == in_seen) {
                own_drop(i);
                changed = true;
                break;
            }
        }
        in_seen++;
    }
    /* Slots the host has not read yet were examined when written. */
    for (guard = 0; guard < SLOTS && out_seen - host.out_head < SLOTS;
         guard++) {
        slot = out_table + (out_seen & (SLOTS - 1)) * 32;
        if (!(slot[0] & OFL_DT_OWNER))
            break;
        if (ofl_dt_desc_decode(slot, 32, &r) == OFL_OK) {
            listen_rsp += r.type == OFL_DT_RSP_LISTEN;
            returned(&r);
            changed = true;
        }
        out_seen++;
    }
    if (changed)
        guard_rebuild();
}

/* The sim port's dma_write, then what it wrote into either table. */
static int wrap_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    int rc = sim_write(ctx, pa, src, len);

    if (rc == 0 && (pa - ofl_sim_pa(in_table) < sizeof(in_table) ||
                    pa - ofl_sim_pa(out_table) < sizeof(out_table)))
        sweep();
    return rc;
}

static void setup(struct fuzz_in *in)
{
    struct ofl_dt_mem m;
    struct ofl_dt_config c;
    uint8_t k = fuzz_u8(in);

    ofl_sim_init(&sim);
    sim.trap_violations = true;
    ofl_sim_allow(&sim, in_table, sizeof(in_table), OFL_SIM_RW);
    ofl_sim_allow(&sim, out_table, sizeof(out_table), OFL_SIM_RW);
    memset(arena, 0, sizeof(arena));
    nids = 0;
    nown = 0;
    in_seen = out_seen = 0;
    listen_req = listen_rsp = 0;
    ofl_dt_config_default(&c);
    /* A few settings from the input so every criterion gets exercised. */
    c.cn_criteria = k & OFL_DT_CN_ALL;
    c.bt_criteria = (k >> 4) & OFL_DT_BT_ALL;
    c.cn_count = 1 + (fuzz_u8(in) & 7);
    c.cn_time = fuzz_u8(in);
    c.cn_max_delay = fuzz_u8(in);
    c.bt_count = 1 + (fuzz_u8(in) & 7);
    c.bt_bytes = 1 + fuzz_u16(in);
    c.bt_time = fuzz_u8(in);
    c.bt_max_delay = fuzz_u8(in);
    c.starve_time = fuzz_u8(in);
    c.connect_timeout = fuzz_u8(in);
    c.report_period = fuzz_u8(in);
    c.merge_max = 1 + fuzz_u16(in);
    c.out_warn = fuzz_u8(in) % SLOTS;
    memcpy(c.cn_pattern, "GET /", 5);
    c.cn_pattern_len = 5;
    k = fuzz_u8(in);
    c.conn.notify_mode = k & 3;
    c.conn.priority = (k >> 2) & 7;
    c.conn.frag = (k >> 5) & 1; /* FRAG_KEEP or FRAG_ALLOW (bulk kept) */
    /* A stage of the whole output table: the output reclaim reads the
     * table through the stage's free part (a fast path). */
    out_batch = (k & 0x40) ? 16 : 4;
    c.conn.notify_delay = fuzz_u8(in);
    c.conn.notify_bytes = 1 + fuzz_u8(in);
    c.conn.notify_max = fuzz_u8(in);
    c.conn.wait_limit = fuzz_u8(in);
    c.conn.hist_window = fuzz_u8(in) % 33;
    c.conn.hist_threshold = fuzz_u8(in) % 101;
    FUZZ_ASSERT(ofl_dt_config_check(&c, SLOTS) == OFL_OK);
    FUZZ_ASSERT(ofl_dt_host_init(&host, in_table, SLOTS, out_table, SLOTS,
                                 &sim.port) == OFL_OK);
    memset(&m, 0, sizeof(m));
    m.in_pa = ofl_sim_pa(in_table);
    m.out_pa = ofl_sim_pa(out_table);
    m.in_slots = m.out_slots = SLOTS;
    m.in_stage = in_stage;
    m.out_stage = out_stage;
    m.in_batch = 4;
    m.out_batch = out_batch;
    m.conn = conns;
    m.conn_cap = CONNS;
    m.conn_data = conn_data;
    m.rx_size = 256;
    m.tx_size = 256;
    m.rbuf = rbufs;
    m.rbuf_cap = RBUFS;
    m.xfer = xfers;
    m.xfer_cap = XFERS;
    m.cache = cache;
    m.cache_data = cache_data;
    m.cache_slots = 2;
    m.cache_slot_size = 128;
    m.ctrl = ctrl;
    m.ctrl_cap = sizeof(ctrl);
    m.host_lo = ofl_sim_pa(arena);
    m.host_hi = m.host_lo + ARENA - 1;
    port = sim.port;
    sim_write = sim.port.dma_write;
    port.dma_write = wrap_write;
    FUZZ_ASSERT(ofl_dt_init(&dt, &m, &c, &port, 0) == OFL_OK);
}

/* The firmware listens (or is asked to) for entry c. */
static bool fw_listens(const struct ofl_dt_conn *c)
{
    return c->state == OFL_DT_CONN_LISTENING ||
           c->state == OFL_DT_CONN_LISTEN_WAIT ||
           c->state == OFL_DT_CONN_UNLISTEN ||
           (c->state == OFL_DT_CONN_DRAINING && c->fw_listen);
}

/* The adapter's counters agree with its tables. */
static void audit(void)
{
    unsigned i, j, live = 0, connecting = 0, pending = 0, listed, draining = 0;
    uint64_t bytes = 0;

    FUZZ_ASSERT(sim.violations == 0);
    FUZZ_ASSERT(host.bad == 0); /* every response it wrote decodes */
    FUZZ_ASSERT(dt.out_tail - dt.out_head <= SLOTS);
    FUZZ_ASSERT(dt.out_staged <= out_batch);
    FUZZ_ASSERT(dt.xfer_count <= XFERS);
    FUZZ_ASSERT(dt.conn_live <= CONNS);
    FUZZ_ASSERT(dt.stats.lost == 0);
    for (i = 0; i < CONNS; i++) {
        const struct ofl_dt_conn *c = &conns[i];

        if (c->state == OFL_DT_CONN_FREE)
            continue;
        live++;
        connecting += c->state == OFL_DT_CONN_CONNECTING;
        pending += c->cn_pending != 0;
        /* The notice age counts from no later than any pending notice
         * (FIG. 10: none goes early because an older one left early). */
        FUZZ_ASSERT(c->cn_pending == 0 || dt.cn_t_first <= c->t_cn);
        FUZZ_ASSERT(c->rx_tail - c->rx_head <= 256);
        FUZZ_ASSERT(c->tx_tail - c->tx_head <= 256);
        FUZZ_ASSERT(c->cfg.priority <= 7);
        for (j = 0, listed = 0; j < dt.xfer_count; j++)
            listed += dt.mem.xfer[j].conn == i;
        FUZZ_ASSERT(listed == c->xfer_n);
        draining += c->state == OFL_DT_CONN_DRAINING;
        if (c->state == OFL_DT_CONN_LISTEN_WAIT) {
            /* An unanswered listen is no listener yet: nothing names it. */
            FUZZ_ASSERT(c->cn_pending == 0 && c->xfer_n == 0 &&
                        c->buf_head == 0 && c->peek == 0 &&
                        c->accepted == 0);
            FUZZ_ASSERT((c->actions & ~OFL_DT_ACT_LISTEN) == 0);
        }
        /* The firmware never listens twice on one protocol and port. */
        for (j = i + 1; fw_listens(c) && j < CONNS; j++)
            FUZZ_ASSERT(!fw_listens(&conns[j]) ||
                        conns[j].proto != c->proto ||
                        conns[j].lport != c->lport);
        if (c->state == OFL_DT_CONN_UNLISTEN) {
            /* A drained listener waiting for the firmware owes nothing. */
            FUZZ_ASSERT(c->fw_listen && c->cn_pending == 0 &&
                        c->xfer_n == 0 && c->buf_head == 0 && c->peek == 0);
            FUZZ_ASSERT((c->actions & ~OFL_DT_ACT_CLOSE) == 0);
        }
    }
    FUZZ_ASSERT(draining == dt.draining);
    for (j = 0; j < dt.xfer_count; j++)
        bytes += dt.mem.xfer[j].len;
    FUZZ_ASSERT(bytes == dt.bt_bytes_listed);
    FUZZ_ASSERT(live == dt.conn_live);
    FUZZ_ASSERT(connecting == dt.connecting);
    FUZZ_ASSERT(pending == dt.cn_pending);
    FUZZ_ASSERT(listen_rsp <= listen_req); /* never answered twice */
}

static void op_desc(struct fuzz_in *in)
{
    uint8_t flags = fuzz_u8(in), d[32];
    const uint8_t *raw;
    uint8_t *slot;
    size_t n = fuzz_take(in, &raw, 32);

    memset(d, 0, sizeof(d));
    memcpy(d, raw, n);
    if (flags & 1) {
        uint32_t off = ofl_load_be32(d + 12) & (ARENA - 1);
        uint32_t len = ofl_load_be32(d + 16) & (ARENA - 1);

        if (len > ARENA - off)
            len = ARENA - off;
        ofl_store_be64(d + 8, ofl_sim_pa(arena) + off);
        ofl_store_be32(d + 16, len);
    }
    if ((flags & 2) && nids)
        ofl_store_be64(d + 20, pick(d[27]));
    slot = in_table + (host.in_tail & (SLOTS - 1)) * 32;
    if (slot[0] & OFL_DT_OWNER)
        return; /* the adapter has not consumed it yet */
    if (!describe(d))
        return; /* no owner entry left: do not hand it over */
    memcpy(slot + 1, d + 1, 31);
    slot[0] = d[0] | OFL_DT_OWNER;
    host.in_tail++;
    listen_req += ((d[0] >> OFL_DT_TYPE_SHIFT) & OFL_DT_TYPE_MASK) ==
                  OFL_DT_REQ_LISTEN;
}

static void op_host(uint8_t max)
{
    struct ofl_dt_desc d[SLOTS];
    uint32_t n, i;

    if (ofl_dt_host_poll_batch(&host, d, max % (SLOTS + 1), &n) == OFL_E_DT_EMPTY)
        return;
    for (i = 0; i < n; i++)
        learn(d[i].conn);
}

static void op_actions(void)
{
    uint32_t cursor = 0, guard;
    uint64_t id;
    uint8_t act;

    for (guard = 0; guard < CONNS + 1; guard++) {
        if (ofl_dt_next_action(&dt, &cursor, &id, &act) != OFL_OK)
            break;
        learn(id);
        if ((act & OFL_DT_ACT_LISTEN) && (id & 1))
            (void)ofl_dt_listen_result(&dt, id, OFL_DT_ST_OK, 0);
    }
}

/* The firmware sends everything queued on every live entry. */
static void tx_all(uint64_t now)
{
    unsigned i, k;
    uint64_t id;
    const uint8_t *p;
    uint32_t n;

    for (i = 0; i < CONNS; i++) {
        if (conns[i].state == OFL_DT_CONN_FREE)
            continue;
        id = ((uint64_t)conns[i].gen << 32) | (i + 1);
        for (k = 0; k < 2; k++) /* the ring may wrap once */
            if (ofl_dt_tx_peek(&dt, id, &p, &n) == OFL_OK && n != 0)
                FUZZ_ASSERT(ofl_dt_tx_consume(&dt, id, n, now) == OFL_OK);
    }
}

/* The firmware takes its actions and answers every listen still waiting
 * by table index: even (odd id: op_actions's OK found the output full)
 * OK again, odd FAILED. */
static void answer_listens(void)
{
    unsigned i;

    op_actions();
    for (i = 0; i < CONNS; i++)
        if (conns[i].state == OFL_DT_CONN_LISTEN_WAIT && conns[i].fw_listen)
            (void)ofl_dt_listen_result(
                &dt, ((uint64_t)conns[i].gen << 32) | (i + 1),
                (i & 1) ? OFL_DT_ST_FAILED : OFL_DT_ST_OK, 0);
}

/* Nothing left for the adapter to do on its own. */
static bool quiet(void)
{
    unsigned i;

    for (i = 0; i < SLOTS; i++)
        if ((in_table[i * 32] & OFL_DT_OWNER) || (out_table[i * 32] & OFL_DT_OWNER))
            return false;
    return in_seen == host.in_tail && dt.out_staged == 0 &&
           dt.draining == 0 && !dt.cancel_run && dt.xfer_count == 0 &&
           dt.cn_pending == 0;
}

#define LIVE_ROUNDS 64

/* Liveness (see the top): bounded rounds must reach quiescence. */
/* Delay criteria off: notices and sends at once, no new reports. */
static void criteria_off(void)
{
    struct ofl_dt_config c = dt.cfg;

    c.cn_criteria = 0;
    c.bt_criteria = 0;
    c.report_period = 0;
    FUZZ_ASSERT(ofl_dt_configure(&dt, &c) == OFL_OK);
}

static void liveness(uint64_t now)
{
    unsigned round;

    for (round = 0; round < LIVE_ROUNDS && !quiet(); round++) {
        now += 1000;
        /* Every round: an adapter attribute request still in the input
         * table may have turned a criterion back on (a lone send would
         * then wait for a count it never reaches, as configured). */
        criteria_off();
        answer_listens();
        (void)ofl_dt_poll(&dt, now);
        sweep();
        tx_all(now);
        op_host(SLOTS);
        audit();
    }
    FUZZ_ASSERT(quiet());
    /* Every listen was answered, once. */
    answer_listens();
    (void)ofl_dt_poll(&dt, now + 1000);
    sweep();
    for (round = 0; round < CONNS; round++)
        FUZZ_ASSERT(conns[round].state != OFL_DT_CONN_LISTEN_WAIT);
    FUZZ_ASSERT(listen_rsp == listen_req);
    /* Every send came back, every control buffer was released. */
    for (round = 0; round < nown; round++)
        FUZZ_ASSERT(own[round].kind == OWN_RECV);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint64_t now = 0;
    unsigned steps;

    setup(&in);
    for (steps = 0; steps < 4096 && in.n != 0; steps++) {
        uint8_t op = fuzz_u8(&in) % 9;

        switch (op) {
        case 0:
            op_desc(&in);
            break;
        case 1:
            now += fuzz_u8(&in);
            (void)ofl_dt_poll(&dt, now);
            break;
        case 2: {
            uint64_t id = pick(fuzz_u8(&in));
            const uint8_t *p;
            size_t n = fuzz_take(&in, &p, fuzz_u8(&in));

            (void)ofl_dt_rx(&dt, id, p, (uint32_t)n, now);
            break;
        }
        case 3: {
            uint8_t kind = fuzz_u8(&in) & 7;
            uint64_t id = pick(fuzz_u8(&in)), nid = 0;
            static const uint8_t addr[16] = {0};

            if (kind == 0)
                (void)ofl_dt_conn_established(&dt, id, now);
            else if (kind == 1)
                (void)ofl_dt_conn_failed(&dt, id, OFL_DT_ST_FAILED, now);
            else if (kind == 2 &&
                     ofl_dt_conn_arrive(&dt, id, addr, 1234, now, &nid) ==
                         OFL_OK)
                learn(nid);
            else if (kind == 3 || kind == 7)
                (void)ofl_dt_conn_closed(&dt, id, now);
            else
                (void)ofl_dt_listen_result(&dt, id,
                                           kind == 4   ? OFL_DT_ST_OK
                                           : kind == 5 ? OFL_DT_ST_FAILED
                                                       : OFL_DT_ST_TIMEOUT,
                                           now);
            break;
        }
        case 4: {
            uint64_t id = pick(fuzz_u8(&in));
            uint32_t n = fuzz_u16(&in), avail;
            const uint8_t *p;

            if (ofl_dt_tx_peek(&dt, id, &p, &avail) == OFL_OK) {
                FUZZ_ASSERT(avail <= 256);
                (void)ofl_dt_tx_consume(&dt, id, n % (avail + 1), now);
            }
            break;
        }
        case 5:
            op_host(fuzz_u8(&in));
            break;
        case 6: {
            uint32_t off = fuzz_u16(&in) & (ARENA - 1);
            const uint8_t *p;
            size_t n = fuzz_take(&in, &p, fuzz_u8(&in));

            if (n > ARENA - off)
                n = ARENA - off;
            memcpy(arena + off, p, n);
            break;
        }
        case 7:
            op_actions();
            break;
        default: {
            uint8_t which = fuzz_u8(&in) % 3;

            if (which == 0)
                (void)ofl_dt_process(&dt, now, 1 + (now & 3), NULL);
            else if (which == 1)
                (void)ofl_dt_service(&dt, now);
            else
                (void)ofl_dt_flush(&dt);
            break;
        }
        }
        sweep();
        audit();
    }
    /* Drain: everything the adapter had to say decodes, and it gets
     * there in bounded rounds. */
    liveness(now);
#ifdef DT_FUZZ_DEBUG
    fprintf(stderr,
            "requests %llu bad %llu responses %llu merged %llu skipped %llu "
            "combined %llu bulk %llu live %u ids %u listens %u/%u\n",
            (unsigned long long)dt.stats.requests,
            (unsigned long long)dt.stats.bad_requests,
            (unsigned long long)dt.stats.responses,
            (unsigned long long)dt.stats.merged,
            (unsigned long long)dt.stats.dma_skipped,
            (unsigned long long)dt.stats.combined,
            (unsigned long long)dt.stats.bulk_placed, dt.conn_live, nids,
            listen_rsp, listen_req);
#endif
    return 0;
}
