/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The incoming aperture path against a table: ofl_ap_rx on hostile frames,
 * with hostile programming, hostile read pointers and a stalling bus in
 * between.
 *
 * Two NICs receive the same input: X without a cache, Y with a small
 * 2-way cache. They must agree on every result and on every byte of
 * memory (the cache may never change what happens). Each NIC's sim port
 * traps (aborts) on any DMA outside what the harness authorised: exactly
 * the open CI data apertures - narrowed to their sub-range when narrowed -
 * and the event rings. So a PCI write outside an aperture is a crash.
 * The apertures come from the harness's own shadow of the table, not from
 * the core's: the shadow takes what the OS programmed, and what an
 * application programmed where the shadow says it may (offload.h
 * ofl_ap_in_program: its port owns the entry, the groups are granted, or
 * it only closes the entry). An application call beyond that must fail
 * with OFL_E_AP_NOT_OWNER or OFL_E_AP_PRIVILEGE and leave the entry as it
 * was, on both NICs; so must any refused call.
 *
 * Input: a sequence of events, each one opcode byte then its fields:
 *   0  raw frame: u16 length, bytes
 *   1  CI frame built from fields (checksums and CRC made right, so the
 *      checks behind them are reached): u8 count, then per record u8
 *      aperture, u8 choice of nonce/seq, u16 offset, u16 length, u8 kind,
 *      then the payload bytes are taken from the input
 *   2  program an incoming aperture: u8 index, u8 privilege/port, u16
 *      fields, then the values
 *   3  the application of a queue writes pointers: u8 queue, u32, u32
 *   4  the bus: u8 stall limit (0 = none)
 *   5  IPv4/UDP datagram from fields
 *   6  flush the cache and compare the tables
 *   7  arm a read slot, as ofl_ap_tx_read would have (the sides have no
 *      outgoing table): u8 slot, u16 offset, u16 length, u32 nonce
 *   0xF0 .. 0xFF (ops below are taken modulo 8): a read through a third
 *      NIC R, the originator, at the peer's address: u8 in-index, u8
 *      flags, u16 offset, u16 length, u16 size, then (flags 2) u32 nonce,
 *      (flags 4) u32 seq, (flags 1) u64 raw PCI address. R's outgoing
 *      aperture 0 is programmed towards that incoming aperture of X/Y
 *      (its nonce, sequence and rotation copied from X unless the input
 *      overrides them), ofl_ap_tx_read builds the request, X and Y answer
 *      it (ofl_ap_rx_reply, as every frame), and X's reply goes back to R
 *      (ofl_ap_rx).
 *
 * Y also merges adjacent data records into one PCI burst
 * (ofl_ap_rx_merge) and X does not: merging must not change a result, a
 * byte of memory or an entry either. Both answer read requests into a
 * reply frame (ofl_ap_rx_reply), which must come out byte for byte the
 * same, and complete read responses against their read slots (the same
 * on both). Kinds in a built record: 1 in 8 an event, 1 in 8 a read
 * request (read length and tag from the input), 1 in 8 a read response
 * (tag, nonce and offset of a slot, or not).
 *
 * R's invariants: a refused ofl_ap_tx_read changes no slot, no entry and
 * not the frame; an accepted one makes the lowest IDLE slot PENDING with
 * the address, length and nonce of the request; a response R takes makes
 * the slot IDLE with exactly the bytes X's aperture held at the request,
 * and R's DMA never leaves its completion buffer (its sim port traps).
 */
#include "fuzz.h"

#include <string.h>

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define NIN 10
#define NAP 8          /* apertures 0..7 map mem[i * 512, +512) */
#define SLOT 512
#define NEVQ 2
#define RING 32
#define VAR 128
#define NREAD 4
#define RDONE 700      /* completion bytes per read slot */

struct stall {
    struct ofl_port port;
    struct ofl_sim *sim;
    uint32_t limit;
};

struct side {
    struct ofl_sim sim;
    struct stall st;
    struct ofl_ap_nic nic;
    struct ofl_ap_in_entry in[NIN];
    struct ofl_ap_cache_line cache[4];
    struct ofl_evq evq[NEVQ], os;
    uint32_t ring[NEVQ][RING], var[NEVQ][VAR], ctl[NEVQ][8];
    uint32_t os_ring[RING], os_ctl[8];
    struct ofl_ap_read reads[NREAD];
    struct ofl_ap_tx_frame reply;
    uint8_t reply_buf[6000];
    uint8_t stage[256];
    _Alignas(64) uint8_t mem[NAP * SLOT];
    uint8_t done[NREAD * RDONE]; /* where read responses complete */
};

static struct side X, Y;

/* The read originator: its own NIC at the peer's address. */
#define NOUT 2
struct origin {
    struct ofl_sim sim;
    struct ofl_ap_nic nic;
    struct ofl_ap_in_entry in[1];
    struct ofl_ap_out_entry out[NOUT];
    struct ofl_ap_read reads[NREAD];
    struct ofl_ap_tx_frame f;
    uint8_t buf[2048];
    uint8_t done[NREAD * RDONE];
};
static struct origin R;
static size_t g_reply_len; /* X's reply frame of the last rx(), or 0 */

/* The harness's picture of each incoming entry: what it programmed and
 * the core accepted (base as an offset into the side's mem). */
struct shadow {
    bool used;                 /* not FREE */
    uint8_t type, state;
    uint16_t owner, app_fields;
    uint32_t off, size, narrow_off, narrow_len;
};
static struct shadow sh[NIN];

/* A call the core took: the groups it names, from v, into the shadow. */
static void shadow_apply(unsigned idx, const struct ofl_ap_in_entry *v,
                         uint32_t off, uint32_t fields)
{
    struct shadow *e = &sh[idx];

    if (!e->used) {
        e->used = true;
        e->state = OFL_AP_CLOSED;
    }
    if (fields & OFL_AP_IN_MAP) {
        e->type = v->type;
        e->off = off;
        e->size = v->size;
    }
    if (fields & OFL_AP_IN_OWNER) {
        e->owner = v->owner;
        e->app_fields = v->app_fields;
    }
    if (fields & OFL_AP_IN_NARROW) {
        e->narrow_off = v->narrow_off;
        e->narrow_len = v->narrow_len;
    }
    if (fields & OFL_AP_IN_STATE)
        e->state = v->state;
}

static const struct ofl_ap_addr self = {{2, 0, 0, 0, 0, 0xB}, 0xB, 0x0A00000B};
static const struct ofl_ap_addr peer = {{2, 0, 0, 0, 0, 0xA}, 0xA, 0x0A00000A};

static int stall_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    struct stall *s = ctx;

    if (s->limit != 0 && len > s->limit)
        return -1;
    return s->sim->port.dma_write(s->sim->port.ctx, pa, src, len);
}

static int stall_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    struct stall *s = ctx;
    return s->sim->port.dma_read(s->sim->port.ctx, pa, dst, len);
}

/* The allow-list: open data apertures (narrowed) and the queues. */
static void authorise(struct side *s)
{
    unsigned i;

    ofl_sim_revoke_all(&s->sim);
    ofl_sim_allow(&s->sim, s->ring, sizeof(s->ring), OFL_SIM_RW);
    ofl_sim_allow(&s->sim, s->var, sizeof(s->var), OFL_SIM_RW);
    ofl_sim_allow(&s->sim, s->ctl, sizeof(s->ctl), OFL_SIM_RW);
    ofl_sim_allow(&s->sim, s->os_ring, sizeof(s->os_ring), OFL_SIM_RW);
    ofl_sim_allow(&s->sim, s->os_ctl, sizeof(s->os_ctl), OFL_SIM_RW);
    ofl_sim_allow(&s->sim, s->done, sizeof(s->done), OFL_SIM_WRITE);
    for (i = 0; i < NIN; i++) {
        const struct shadow *e = &sh[i];
        uint64_t base = ofl_sim_pa(s->mem + e->off);

        if (!e->used || e->state != OFL_AP_OPEN ||
            e->type != OFL_AP_TYPE_CI_DATA)
            continue;
        /* read requests PCI-read the same checked range */
        if (e->narrow_len != 0)
            ofl_sim_allow_pa(&s->sim, base + e->narrow_off, e->narrow_len,
                             OFL_SIM_RW);
        else
            ofl_sim_allow_pa(&s->sim, base, e->size, OFL_SIM_RW);
    }
}

static void side_init(struct side *s, bool cache)
{
    struct ofl_ap_nic_config cfg;
    struct ofl_evq_config qc;
    unsigned i;

    memset(s, 0, sizeof(*s));
    ofl_sim_init(&s->sim);
    s->sim.trap_violations = true;
    s->st.port = s->sim.port;
    s->st.port.ctx = &s->st;
    s->st.port.dma_write = stall_write;
    s->st.port.dma_read = stall_read;
    s->st.port.notify = NULL;
    s->st.sim = &s->sim;
    authorise(s);
    memset(&qc, 0, sizeof(qc));
    qc.port = &s->sim.port;
    qc.ring_pa = ofl_sim_pa(s->os_ring);
    qc.ring_words = RING;
    qc.ctl_pa = ofl_sim_pa(s->os_ctl);
    FUZZ_ASSERT(ofl_evq_init(&s->os, &qc) == OFL_OK);
    for (i = 0; i < NEVQ; i++) {
        qc.ring_pa = ofl_sim_pa(s->ring[i]);
        qc.var_pa = ofl_sim_pa(s->var[i]);
        qc.var_words = VAR;
        qc.ctl_pa = ofl_sim_pa(s->ctl[i]);
        qc.port_id = (uint16_t)i;
        qc.os = &s->os;
        FUZZ_ASSERT(ofl_evq_init(&s->evq[i], &qc) == OFL_OK);
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &s->st.port;
    cfg.self = self;
    cfg.in = s->in;
    cfg.in_capacity = NIN;
    if (cache) {
        cfg.in_cache = s->cache;
        cfg.in_cache_lines = 4;
        cfg.in_cache_ways = 2;
    }
    cfg.evq = s->evq;
    cfg.nevq = NEVQ;
    cfg.max_burst = 64;
    cfg.udp_base = 7000;
    FUZZ_ASSERT(ofl_ap_nic_init(&s->nic, &cfg) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_read_attach(&s->nic, s->reads, NREAD) == OFL_OK);
    if (cache) /* Y: merging too */
        FUZZ_ASSERT(ofl_ap_rx_merge(&s->nic, s->stage, sizeof(s->stage)) ==
                    OFL_OK);
    /* Apertures 0..7: CI data over their slots, open, every check on;
     * 8: an event aperture; 9: an IP aperture (UDP 7009). */
    for (i = 0; i < NAP; i++) {
        struct ofl_ap_in_entry v;

        memset(&v, 0, sizeof(v));
        v.type = OFL_AP_TYPE_CI_DATA;
        v.base = ofl_sim_pa(s->mem + i * SLOT);
        v.size = SLOT - 16 * i;
        v.evq = i & 1;
        v.owner = (uint16_t)(i & 3);
        v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_NARROW |
                       OFL_AP_IN_STATE | OFL_AP_IN_NOTIFY;
        memcpy(v.src_mac, peer.mac, 6);
        v.src_cluster = peer.cluster;
        v.src_cluster_mask = i == 3 ? 0xFF00 : 0xFFFF;
        v.checks = i == 5 ? 0 : OFL_AP_CHECK_ALL;
        v.nonce = 0x1000u * i;
        v.nonce_step = (uint16_t)(i & 1);
        v.nonce_every = (uint16_t)(i & 2);
        v.seq = 100 * i;
        v.flags = (uint8_t)((i & 1 ? OFL_AP_F_SEQ : 0) |
                            (i == 6 ? OFL_AP_F_NOTIFY : 0));
        v.narrow_off = i == 4 ? 64 : 0;
        v.narrow_len = i == 4 ? 128 : 0;
        v.state = OFL_AP_OPEN;
        FUZZ_ASSERT(ofl_ap_in_program(&s->nic, OFL_AP_PRIV_OS, 0, i, &v,
                                      OFL_AP_IN_ALL) == OFL_OK);
        shadow_apply(i, &v, i * SLOT, OFL_AP_IN_ALL);
    }
    {
        struct ofl_ap_in_entry v;

        memset(&v, 0, sizeof(v));
        v.type = OFL_AP_TYPE_CI_EVENT;
        v.size = 8;
        v.evq = 1;
        v.nonce = 0x8000;
        v.checks = OFL_AP_CHECK_NONCE;
        v.state = OFL_AP_OPEN;
        FUZZ_ASSERT(ofl_ap_in_program(&s->nic, OFL_AP_PRIV_OS, 0, 8, &v,
                                      OFL_AP_IN_ALL) == OFL_OK);
        shadow_apply(8, &v, 0, OFL_AP_IN_ALL);
        v.type = OFL_AP_TYPE_IP;
        v.size = 600;
        v.evq = 0;
        v.src_ip = peer.ip;
        v.src_ip_mask = 0xFFFFFF00u;
        v.checks = OFL_AP_CHECK_SRC_ADDR;
        FUZZ_ASSERT(ofl_ap_in_program(&s->nic, OFL_AP_PRIV_OS, 0, 9, &v,
                                      OFL_AP_IN_ALL) == OFL_OK);
        shadow_apply(9, &v, 0, OFL_AP_IN_ALL);
    }
    authorise(s);
}

static uint16_t csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    size_t i;

    for (i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static uint8_t frame[6000];

/* Builds a CI frame from fields; returns its length. */
static size_t build_ci(struct fuzz_in *in)
{
    struct ofl_ap_in_entry e;
    unsigned count = fuzz_u8(in) % 5 + 1, i;
    size_t pos = 22;
    uint8_t srcsel = fuzz_u8(in);

    memcpy(frame, self.mac, 6);
    memcpy(frame + 6, (srcsel & 1) ? self.mac : peer.mac, 6);
    ofl_store_be16(frame + 12, OFL_AP_ETHERTYPE_CI);
    frame[14] = 0x10;
    frame[15] = (uint8_t)count;
    ofl_store_be16(frame + 16, self.cluster);
    ofl_store_be16(frame + 18, (srcsel & 2) ? (uint16_t)(peer.cluster ^ (srcsel >> 2))
                                            : peer.cluster);
    for (i = 0; i < count; i++) {
        uint8_t *r = frame + pos;
        uint8_t ap = fuzz_u8(in), sel = fuzz_u8(in);
        uint16_t off = fuzz_u16(in), len = fuzz_u16(in) % 700;
        const uint8_t *data;

        uint8_t k;

        ofl_ap_in_query(&X.nic, ap % NIN, &e);
        k = fuzz_u8(in) & 7;
        r[0] = k == 0 ? OFL_AP_REC_EVENT
               : k == 1 ? OFL_AP_REC_READ_REQ
               : k == 2 ? OFL_AP_REC_READ_RESP : OFL_AP_REC_DATA;
        if (ap % NIN == 8 && k != 1)
            r[0] = OFL_AP_REC_EVENT;
        r[1] = (sel & 1) ? OFL_AP_REC_F_SEQ : 0;
        if (sel & 0x80)
            off = (uint16_t)(off % 16); /* inside event or near the start */
        if (r[0] == OFL_AP_REC_READ_REQ)
            len = 8; /* read length and tag, from the input */
        len = (uint16_t)fuzz_take(in, &data, len);
        if (ap % NIN == 8 && r[0] == OFL_AP_REC_EVENT)
            len = len > 8 ? 8 : len;
        ofl_store_be16(r + 2, len);
        ofl_store_be32(r + 4, (sel & 0x40) ? ap : ap % NIN);
        ofl_store_be32(r + 8, (sel & 2) ? e.nonce + (sel >> 4) : e.nonce);
        ofl_store_be32(r + 12, (sel & 4) ? e.seq + (sel >> 5) : e.seq);
        ofl_store_be32(r + 16, off);
        if (r[0] == OFL_AP_REC_READ_RESP) {
            /* a slot's tag, nonce and offset unless sel says otherwise */
            const struct ofl_ap_read *q = &X.reads[ap % NREAD];

            ofl_store_be32(r + 4, (sel & 0x40) ? ap : ap % NREAD);
            ofl_store_be32(r + 8, (sel & 2) ? q->nonce ^ sel : q->nonce);
            if (!(sel & 8))
                ofl_store_be32(r + 16, q->offset);
        }
        ofl_store_be16(r + 20, 0);
        ofl_store_be16(r + 22, 0);
        ofl_store_be16(r + 20, csum(r, 24));
        memcpy(r + 24, data, len);
        pos += 24 + len;
        if (pos > sizeof(frame) - 800)
            break;
        /* Later records see the state the earlier ones leave: use the
         * expected values after one acceptance. */
    }
    frame[15] = (uint8_t)(i < count ? i + 1 : count);
    ofl_store_be16(frame + 20, (uint16_t)(pos - 22));
    ofl_store_be32(frame + pos, ofl_crc32c(frame + 14, pos - 14));
    return pos + 4;
}

static size_t build_udp(struct fuzz_in *in)
{
    struct ofl_ap_udp d;
    const uint8_t *p;
    size_t len = 0, n = fuzz_u16(in) % 700;

    memset(&d, 0, sizeof(d));
    d.src.host = peer;
    d.src.host.ip ^= fuzz_u8(in) & 0x81;
    d.src.udp = fuzz_u16(in);
    d.dst.host = self;
    d.dst.udp = (uint16_t)(7000 + fuzz_u8(in) % 12);
    d.payload_len = fuzz_take(in, &p, n);
    d.payload = p;
    if (ofl_ap_udp_build(&d, 1, frame, sizeof(frame), &len) != OFL_OK)
        return 0;
    return len;
}

static void same(void)
{
    FUZZ_ASSERT(memcmp(X.mem, Y.mem, sizeof(X.mem)) == 0);
    FUZZ_ASSERT(X.nic.stats.rx_records == Y.nic.stats.rx_records);
    FUZZ_ASSERT(X.sim.violations == 0 && Y.sim.violations == 0);
}

static void rx(const uint8_t *f, size_t n)
{
    struct ofl_ap_rx_result rx_, ry;
    enum ofl_err ex, ey;
    size_t lx = 0, ly = 0;
    unsigned i;

    g_reply_len = 0;
    ofl_ap_tx_begin(&X.reply, X.reply_buf, sizeof(X.reply_buf));
    ofl_ap_tx_begin(&Y.reply, Y.reply_buf, sizeof(Y.reply_buf));
    ex = ofl_ap_rx_reply(&X.nic, f, n, &X.reply, &rx_);
    ey = ofl_ap_rx_reply(&Y.nic, f, n, &Y.reply, &ry);
    FUZZ_ASSERT(ex == ey);
    FUZZ_ASSERT(rx_.applied == ry.applied && rx_.records == ry.records);
    FUZZ_ASSERT(rx_.applied <= rx_.records);
    FUZZ_ASSERT(ex != OFL_OK || rx_.applied == rx_.records);
    FUZZ_ASSERT(X.reply.records == Y.reply.records);
    FUZZ_ASSERT(X.reply.records <= rx_.applied);
    if (X.reply.records != 0) {
        FUZZ_ASSERT(ofl_ap_tx_finish(&X.nic, &X.reply, &lx) == OFL_OK);
        FUZZ_ASSERT(ofl_ap_tx_finish(&Y.nic, &Y.reply, &ly) == OFL_OK);
        FUZZ_ASSERT(lx == ly && memcmp(X.reply_buf, Y.reply_buf, lx) == 0);
        g_reply_len = lx;
        /* the response goes back to the frame's source */
        FUZZ_ASSERT(memcmp(X.reply_buf, f + 6, 6) == 0);
    }
    for (i = 0; i < NREAD; i++)
        FUZZ_ASSERT(X.reads[i].state == Y.reads[i].state);
    FUZZ_ASSERT(memcmp(X.done, Y.done, sizeof(X.done)) == 0);
    same();
}

/* Op 7: a pending read on both sides, as ofl_ap_tx_read leaves one. */
static void arm_read(struct fuzz_in *in)
{
    uint8_t t = fuzz_u8(in) % NREAD;
    uint16_t off = fuzz_u16(in), len = (uint16_t)(fuzz_u16(in) % RDONE + 1);
    uint32_t nonce = fuzz_u32(in);
    struct side *s[2] = {&X, &Y};
    unsigned i;

    for (i = 0; i < 2; i++) {
        struct ofl_ap_read *q = &s[i]->reads[t];

        q->dest = ofl_sim_pa(s[i]->done + t * RDONE);
        q->out_index = 0;
        q->offset = off;
        q->nonce = nonce;
        q->len = len;
        q->dst_cluster = peer.cluster;
        memcpy(q->dst_mac, peer.mac, 6);
        q->state = OFL_AP_READ_PENDING;
    }
}

/* Every field of two entries equal (memcmp would compare padding). */
static bool same_entry(const struct ofl_ap_in_entry *a,
                       const struct ofl_ap_in_entry *b)
{
    return a->base == b->base && a->size == b->size && a->evq == b->evq &&
           a->src_ip == b->src_ip && a->src_ip_mask == b->src_ip_mask &&
           a->nonce == b->nonce && a->nonce_count == b->nonce_count &&
           a->seq == b->seq && a->narrow_off == b->narrow_off &&
           a->narrow_len == b->narrow_len && a->nonce_step == b->nonce_step &&
           a->nonce_every == b->nonce_every && a->owner == b->owner &&
           a->app_fields == b->app_fields &&
           a->src_cluster == b->src_cluster &&
           a->src_cluster_mask == b->src_cluster_mask &&
           memcmp(a->src_mac, b->src_mac, 6) == 0 && a->type == b->type &&
           a->state == b->state && a->checks == b->checks &&
           a->flags == b->flags;
}

static void program(struct fuzz_in *in)
{
    struct ofl_ap_in_entry v;
    uint8_t idx = fuzz_u8(in) % NIN, who = fuzz_u8(in);
    uint16_t fields = fuzz_u16(in);
    enum ofl_ap_priv priv = (who & 0x80) ? OFL_AP_PRIV_OS : OFL_AP_PRIV_APP;
    enum ofl_err ex, ey, want = OFL_OK;
    struct ofl_ap_in_entry bx, by, ax, ay;
    const struct shadow *e = &sh[idx];

    memset(&v, 0, sizeof(v));
    v.type = fuzz_u8(in) & 3;
    v.base = ofl_sim_pa(X.mem + (idx % NAP) * SLOT); /* for X; fixed below */
    v.size = fuzz_u16(in) % (SLOT + 1); /* inside its slot */
    v.evq = fuzz_u8(in) % 3;
    v.nonce = fuzz_u32(in);
    v.nonce_step = fuzz_u8(in);
    v.nonce_every = fuzz_u8(in) & 7;
    v.seq = fuzz_u32(in);
    v.narrow_off = fuzz_u16(in) % 600;
    v.narrow_len = fuzz_u16(in) % 600;
    v.flags = fuzz_u8(in);
    v.state = fuzz_u8(in) % 3;
    v.checks = fuzz_u8(in) & 7;
    v.app_fields = fuzz_u16(in);
    memcpy(v.src_mac, peer.mac, 6);
    v.src_cluster = peer.cluster;
    v.src_cluster_mask = 0xFFFF;
    /* As the OS, the harness only ever maps memory it owns: a slot of
     * mem (apertures 8 and 9 share slots 0 and 1 when they become data
     * apertures), the size within the slot. */
    fields &= 0x1FF;
    /* offload.h: an application only for an aperture its port owns (a
     * FREE one has no owner), only the groups granted - but closing
     * (STATE = CLOSED alone) takes access away and needs no grant */
    if (priv == OFL_AP_PRIV_APP && (fields & ~(uint32_t)OFL_AP_IN_ALL) == 0) {
        bool closing = fields == OFL_AP_IN_STATE &&
                       v.state == OFL_AP_CLOSED;

        if (!e->used || e->owner != (who & 3))
            want = OFL_E_AP_NOT_OWNER;
        else if (!closing && (fields & ~(uint32_t)e->app_fields) != 0)
            want = OFL_E_AP_PRIVILEGE;
    }
    FUZZ_ASSERT(ofl_ap_in_query(&X.nic, idx, &bx) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_in_query(&Y.nic, idx, &by) == OFL_OK);
    ex = ofl_ap_in_program(&X.nic, priv, who & 3, idx, &v, fields);
    v.base = ofl_sim_pa(Y.mem + (idx % NAP) * SLOT);
    ey = ofl_ap_in_program(&Y.nic, priv, who & 3, idx, &v, fields);
    FUZZ_ASSERT(ex == ey);
    if (want != OFL_OK || ex != OFL_OK) {
        /* refused: the entry is as it was */
        FUZZ_ASSERT(want == OFL_OK || ex == want);
        FUZZ_ASSERT(ofl_ap_in_query(&X.nic, idx, &ax) == OFL_OK);
        FUZZ_ASSERT(ofl_ap_in_query(&Y.nic, idx, &ay) == OFL_OK);
        FUZZ_ASSERT(same_entry(&ax, &bx));
        FUZZ_ASSERT(same_entry(&ay, &by));
    } else {
        shadow_apply(idx, &v, (uint32_t)(idx % NAP) * SLOT, fields);
    }
    authorise(&X);
    authorise(&Y);
}

static void pointers(struct fuzz_in *in)
{
    uint8_t q = fuzz_u8(in) % NEVQ;
    uint32_t a = fuzz_u32(in), b = fuzz_u32(in);

    /* The application's RDPTR and VRDPTR, little-endian in the block. */
    ofl_store_le32((uint8_t *)X.ctl[q] + OFL_EVQ_CTL_RDPTR, a);
    ofl_store_le32((uint8_t *)Y.ctl[q] + OFL_EVQ_CTL_RDPTR, a);
    ofl_store_le32((uint8_t *)X.ctl[q] + OFL_EVQ_CTL_VRDPTR, b);
    ofl_store_le32((uint8_t *)Y.ctl[q] + OFL_EVQ_CTL_VRDPTR, b);
    FUZZ_ASSERT(ofl_evq_set_rdptr(&X.evq[q], a, b) ==
                ofl_evq_set_rdptr(&Y.evq[q], a, b));
    FUZZ_ASSERT(X.evq[q].rd == Y.evq[q].rd);
}

static void origin_init(void)
{
    static const struct ofl_ap_out_group g = {0x80000000ull, 0, NOUT, 12};
    struct ofl_ap_nic_config cfg;

    memset(&R, 0, sizeof(R));
    ofl_sim_init(&R.sim);
    R.sim.trap_violations = true;
    ofl_sim_allow(&R.sim, R.done, sizeof(R.done), OFL_SIM_WRITE);
    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &R.sim.port;
    cfg.self = peer; /* the address X and Y's apertures expect */
    cfg.in = R.in;
    cfg.in_capacity = 1;
    cfg.out = R.out;
    cfg.out_capacity = NOUT;
    cfg.groups = &g;
    cfg.ngroups = 1;
    cfg.max_burst = 64;
    FUZZ_ASSERT(ofl_ap_nic_init(&R.nic, &cfg) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_read_attach(&R.nic, R.reads, NREAD) == OFL_OK);
}

/* Ops 0xF0 ..: R reads from X and Y's aperture through ofl_ap_tx_read. */
static void origin_read(struct fuzz_in *in)
{
    struct ofl_ap_out_entry ov, before;
    struct ofl_ap_read slots[NREAD];
    struct ofl_ap_rx_result res;
    uint8_t a = fuzz_u8(in) % NIN, flags = fuzz_u8(in);
    uint16_t off = fuzz_u16(in), len = fuzz_u16(in), size = fuzz_u16(in);
    const struct ofl_ap_in_entry *xe = &X.in[a];
    uint32_t t, tag = NREAD;
    uint64_t pci;
    size_t n = 0;
    enum ofl_err err;

    memset(&ov, 0, sizeof(ov));
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.size = size % (SLOT + 64 + 1); /* a read never passes RDONE */
    ov.dst_in_index = a;
    memcpy(ov.dst_mac, self.mac, 6);
    ov.dst_cluster = self.cluster;
    ov.nonce = (flags & 2) ? fuzz_u32(in) : xe->nonce;
    ov.nonce_count = xe->nonce_count;
    ov.nonce_step = xe->nonce_step;
    ov.nonce_every = xe->nonce_every;
    ov.seq = (flags & 4) ? fuzz_u32(in) : xe->seq;
    ov.flags = xe->flags & OFL_AP_F_SEQ;
    ov.state = OFL_AP_OPEN;
    if (ofl_ap_out_program(&R.nic, OFL_AP_PRIV_OS, 0, 0, &ov,
                           OFL_AP_OUT_ALL) != OFL_OK)
        return;
    pci = (flags & 1) ? fuzz_u64(in) : R.out[0].pci_base + off;
    for (t = 0; t < NREAD && R.reads[t].state != OFL_AP_READ_IDLE; t++)
        ;
    before = R.out[0];
    memcpy(slots, R.reads, sizeof(slots));
    ofl_ap_tx_begin(&R.f, R.buf, sizeof(R.buf));
    err = ofl_ap_tx_read(&R.nic, &R.f, pci, len,
                         ofl_sim_pa(R.done + (t < NREAD ? t : 0) * RDONE),
                         &tag);
    if (err != OFL_OK) {
        FUZZ_ASSERT(R.f.len == 0 && R.f.records == 0);
        FUZZ_ASSERT(memcmp(slots, R.reads, sizeof(slots)) == 0);
        FUZZ_ASSERT(R.out[0].seq == before.seq &&
                    R.out[0].nonce == before.nonce &&
                    R.out[0].nonce_count == before.nonce_count);
        return;
    }
    /* the lowest IDLE slot, PENDING with the request's address */
    FUZZ_ASSERT(t < NREAD && tag == t);
    FUZZ_ASSERT(R.reads[t].state == OFL_AP_READ_PENDING);
    FUZZ_ASSERT(R.reads[t].len == len && R.reads[t].out_index == 0 &&
                R.reads[t].offset == pci - R.out[0].pci_base &&
                R.reads[t].nonce == before.nonce &&
                R.reads[t].dest == ofl_sim_pa(R.done + t * RDONE));
    FUZZ_ASSERT(len >= 1 && R.reads[t].offset + len <= before.size);
    FUZZ_ASSERT(ofl_ap_tx_finish(&R.nic, &R.f, &n) == OFL_OK);
    FUZZ_ASSERT(n <= sizeof(frame));
    memcpy(frame, R.buf, n);
    rx(frame, n); /* X and Y answer, and must agree */
    if (g_reply_len == 0)
        return;
    /* X's answer back to R: a response R takes carries exactly what X's
     * aperture held */
    {
        uint64_t base = xe->base + R.reads[t].offset;
        uint64_t mem0 = ofl_sim_pa(X.mem);
        bool inside = base >= mem0 && base - mem0 + len <= sizeof(X.mem);
        uint8_t want[RDONE];

        if (inside)
            memcpy(want, X.mem + (base - mem0), len);
        err = ofl_ap_rx(&R.nic, X.reply_buf, g_reply_len, &res);
        FUZZ_ASSERT(R.sim.violations == 0);
        if (err == OFL_OK && R.reads[t].state == OFL_AP_READ_IDLE && inside)
            FUZZ_ASSERT(memcmp(R.done + t * RDONE, want, len) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    unsigned steps = 0;

    memset(sh, 0, sizeof(sh)); /* both sides program the same table */
    side_init(&X, false);
    side_init(&Y, true);
    origin_init();
    while (in.n != 0 && steps++ < 64) {
        uint8_t op = fuzz_u8(&in);
        size_t n;
        const uint8_t *p;

        if (op >= 0xF0) {
            origin_read(&in);
            continue;
        }
        switch (op % 8) {
        case 0:
            n = fuzz_take(&in, &p, fuzz_u16(&in) % sizeof(frame));
            memcpy(frame, p, n);
            rx(frame, n);
            break;
        case 1:
            n = build_ci(&in);
            rx(frame, n);
            break;
        case 2:
            program(&in);
            break;
        case 3:
            pointers(&in);
            break;
        case 4:
            X.st.limit = Y.st.limit = fuzz_u8(&in);
            break;
        case 5:
            n = build_udp(&in);
            if (n != 0)
                rx(frame, n);
            break;
        case 7:
            arm_read(&in);
            break;
        default: {
            unsigned i;

            ofl_ap_cache_flush(&Y.nic);
            for (i = 0; i < NIN; i++) {
                FUZZ_ASSERT(X.in[i].seq == Y.in[i].seq);
                FUZZ_ASSERT(X.in[i].nonce == Y.in[i].nonce);
                FUZZ_ASSERT(X.in[i].state == Y.in[i].state);
                FUZZ_ASSERT(X.in[i].nonce_count == Y.in[i].nonce_count);
            }
            break;
        }
        }
    }
    return 0;
}
