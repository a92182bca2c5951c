/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The connection protocol: one side's ofl_ap_conn fed hostile messages
 * (structured, raw, or whole frames), local calls and time.
 *
 * Invariants after every step:
 *   - CONNECTING: our incoming aperture is open with our nonce and seq;
 *   - OPEN: that, and our outgoing aperture is open towards the peer's
 *     in-index with the peer's nonce (the seed's end state);
 *   - otherwise (IDLE, CLOSED) both apertures are closed: the outgoing
 *     aperture is open exactly while the connection is;
 *   - the connection, running with application privilege, never changed
 *     an OS-only field (base, size, owner, grants, source checks);
 *   - every message it asks to send encodes, frames and parses back,
 *     carries the right identity and proof, and its frame goes to the peer
 *     endpoint the harness itself recorded (the endpoint given to connect
 *     or accept; after an ACCEPT, its sender's MAC and its port');
 *   - a message that does not prove the connection (offload.h: its
 *     peer_in_index and peer_nonce are not ours, or, once OPEN, its
 *     in_index and nonce not the peer's) or whose sender's IP is not the
 *     connected peer's fails with OFL_E_AP_CONN_PEER or OFL_E_AP_CONN_STATE
 *     (OFL_E_AP_MSG_TYPE for a type rx does not take), sends nothing and
 *     leaves the connection and both apertures exactly as they were.
 *
 * Input: events, each an opcode byte and its fields (see the switch).
 */
#include "fuzz.h"

#include <string.h>

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define PORT 5000

static struct ofl_sim sim;
static struct ofl_ap_nic nic;
static struct ofl_ap_in_entry in[4];
static struct ofl_ap_out_entry out[4];
static struct ofl_ap_in_entry in_os;
static struct ofl_ap_out_entry out_os;
static struct ofl_ap_conn c;
static struct ofl_ap_endpoint want_peer; /* where replies must go */
static _Alignas(64) uint8_t mem[1024];

static const struct ofl_ap_addr self = {{2, 0, 0, 0, 0, 0xB}, 0xB, 0x0A00000B};
static const struct ofl_ap_addr peer = {{2, 0, 0, 0, 0, 0xA}, 0xA, 0x0A00000A};

static const struct ofl_ap_conn_config cfg = {100, 1000, 50, 1, 3, 2, 1};

static void setup(void)
{
    static const struct ofl_ap_out_group g = {0x80000000ull, 0, 4, 12};
    struct ofl_ap_nic_config nc;
    struct ofl_ap_in_entry v;
    struct ofl_ap_out_entry ov;

    ofl_sim_init(&sim);
    sim.trap_violations = true;
    ofl_sim_allow(&sim, mem, sizeof(mem), OFL_SIM_RW);
    memset(&nc, 0, sizeof(nc));
    nc.port = &sim.port;
    nc.self = self;
    nc.in = in;
    nc.in_capacity = 4;
    nc.out = out;
    nc.out_capacity = 4;
    nc.groups = &g;
    nc.ngroups = 1;
    nc.max_burst = 256;
    FUZZ_ASSERT(ofl_ap_nic_init(&nic, &nc) == OFL_OK);
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(mem);
    v.size = sizeof(mem);
    v.owner = PORT;
    v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_STATE;
    memcpy(v.src_mac, peer.mac, 6);
    v.src_cluster = peer.cluster;
    v.src_cluster_mask = 0xFF00;
    v.checks = OFL_AP_CHECK_NONCE | OFL_AP_CHECK_SRC_ADDR;
    v.state = OFL_AP_CLOSED;
    FUZZ_ASSERT(ofl_ap_in_program(&nic, OFL_AP_PRIV_OS, 0, 2, &v,
                                  OFL_AP_IN_ALL) == OFL_OK);
    memset(&ov, 0, sizeof(ov));
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.size = 2048;
    ov.owner = PORT;
    ov.app_fields = OFL_AP_OUT_TYPE | OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE |
                    OFL_AP_OUT_SEQ | OFL_AP_OUT_STATE;
    ov.state = OFL_AP_CLOSED;
    FUZZ_ASSERT(ofl_ap_out_program(&nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                   OFL_AP_OUT_ALL) == OFL_OK);
    in_os = in[2];
    out_os = out[1];
    FUZZ_ASSERT(ofl_ap_conn_init(&c, &nic, OFL_AP_PRIV_APP, PORT, 2, 1,
                                 &cfg) == OFL_OK);
}

static void check_invariants(void)
{
    const struct ofl_ap_in_entry *i = &in[2];
    const struct ofl_ap_out_entry *o = &out[1];

    FUZZ_ASSERT(c.state <= OFL_AP_CONN_CLOSED);
    /* OS-only fields. */
    FUZZ_ASSERT(i->base == in_os.base && i->size == in_os.size &&
                i->owner == in_os.owner && i->app_fields == in_os.app_fields &&
                i->checks == in_os.checks && i->type == in_os.type &&
                i->src_cluster == in_os.src_cluster &&
                i->src_cluster_mask == in_os.src_cluster_mask &&
                memcmp(i->src_mac, in_os.src_mac, 6) == 0);
    FUZZ_ASSERT(o->size == out_os.size && o->owner == out_os.owner &&
                o->app_fields == out_os.app_fields &&
                o->pci_base == out_os.pci_base);
    FUZZ_ASSERT((i->state == OFL_AP_OPEN) ==
                (c.state == OFL_AP_CONN_CONNECTING ||
                 c.state == OFL_AP_CONN_OPEN));
    FUZZ_ASSERT((o->state == OFL_AP_OPEN) == (c.state == OFL_AP_CONN_OPEN));
    if (c.state == OFL_AP_CONN_CONNECTING)
        FUZZ_ASSERT(i->nonce == c.nonce && i->seq == c.seq);
    if (c.state == OFL_AP_CONN_OPEN) {
        FUZZ_ASSERT(i->nonce == c.nonce);
        FUZZ_ASSERT(o->dst_in_index == c.peer_in_index &&
                    o->nonce == c.peer_nonce &&
                    o->type == OFL_AP_TYPE_CI_DATA);
    }
    if (c.state == OFL_AP_CONN_CLOSED)
        FUZZ_ASSERT(c.closed_by != OFL_AP_CLOSE_NONE);
}

/* A message the connection wants sent must be well formed and say who we
 * are and whom it is for. */
static void check_reply(const struct ofl_ap_msg *m)
{
    uint8_t b[OFL_AP_MSG_LEN], fr[128];
    struct ofl_ap_msg p;
    struct ofl_ap_udp u;
    size_t n, len;

    FUZZ_ASSERT(ofl_ap_msg_build(m, b, sizeof(b), &n) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_msg_parse(b, n, &p) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_conn_frame(&c, m, fr, sizeof(fr), &len) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_udp_parse(fr, len, &u) == OFL_OK);
    FUZZ_ASSERT(u.src.udp == PORT && u.src.host.ip == self.ip);
    FUZZ_ASSERT(u.dst.udp == want_peer.udp &&
                u.dst.host.ip == want_peer.host.ip &&
                memcmp(u.dst.host.mac, want_peer.host.mac, 6) == 0);
    FUZZ_ASSERT(u.payload_len == OFL_AP_MSG_LEN);
    FUZZ_ASSERT(m->in_index == c.in_index && m->nonce == c.nonce);
    if (m->type != OFL_AP_MSG_CONNECT)
        FUZZ_ASSERT(m->peer_in_index == c.peer_in_index &&
                    m->peer_nonce == c.peer_nonce);
}

/* Does m from `from` fail to be the connected peer's (offload.h
 * "connections": every message but CONNECT proves our in-aperture and
 * nonce; once OPEN, also the peer's; and the sender is the peer's host)? */
static bool foreign(const struct ofl_ap_endpoint *from,
                    const struct ofl_ap_msg *m)
{
    if (from->host.ip != want_peer.host.ip)
        return true;
    if (m->type != OFL_AP_MSG_CONNECT &&
        (m->peer_in_index != c.in_index || m->peer_nonce != c.nonce))
        return true;
    return c.state == OFL_AP_CONN_OPEN &&
           (m->in_index != c.peer_in_index || m->nonce != c.peer_nonce);
}

/* ofl_ap_conn_rx with the harness's verdict on a foreign message: refused,
 * nothing sent, nothing changed. A proven one that opens the connection
 * (ACCEPT) moves the recorded peer endpoint to its sender and port'. */
static enum ofl_err rx(uint64_t now, const struct ofl_ap_endpoint *from,
                       const struct ofl_ap_msg *m, struct ofl_ap_msg *reply,
                       bool *send)
{
    struct ofl_ap_conn before = c;
    struct ofl_ap_in_entry in_before = in[2];
    struct ofl_ap_out_entry out_before = out[1];
    bool alien = foreign(from, m);
    enum ofl_err e = ofl_ap_conn_rx(&c, now, from, m, reply, send);

    if (alien) {
        FUZZ_ASSERT(e == OFL_E_AP_CONN_PEER || e == OFL_E_AP_CONN_STATE ||
                    e == OFL_E_AP_MSG_TYPE);
        FUZZ_ASSERT(!*send);
        FUZZ_ASSERT(memcmp(&before, &c, sizeof(c)) == 0);
        FUZZ_ASSERT(memcmp(&in_before, &in[2], sizeof(in_before)) == 0);
        FUZZ_ASSERT(memcmp(&out_before, &out[1], sizeof(out_before)) == 0);
    }
    if (e == OFL_OK && m->type == OFL_AP_MSG_ACCEPT &&
        before.state == OFL_AP_CONN_CONNECTING) {
        FUZZ_ASSERT(c.state == OFL_AP_CONN_OPEN);
        memcpy(want_peer.host.mac, from->host.mac, 6);
        want_peer.host.cluster = m->cluster;
        want_peer.udp = m->port;
    }
    return e;
}

/* A value that is often the one the connection expects. */
static uint32_t pick(struct fuzz_in *in, uint32_t likely)
{
    uint8_t s = fuzz_u8(in);

    if (s < 160)
        return likely;
    if (s < 200)
        return likely + (s & 3) - 1;
    return fuzz_u32(in);
}

static void from_endpoint(struct fuzz_in *in, struct ofl_ap_endpoint *e)
{
    uint8_t s = fuzz_u8(in);

    memset(e, 0, sizeof(*e));
    e->host = peer;
    e->udp = PORT;
    if (s & 1)
        e->host.ip ^= 0x100;
    if (s & 2)
        e->udp = (uint16_t)fuzz_u16(in);
    if (s & 4)
        e->host.mac[5] ^= 0x10;
}

static void structured(struct fuzz_in *in, struct ofl_ap_msg *m)
{
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)(fuzz_u8(in) % 8);
    m->port = (uint16_t)pick(in, PORT);
    m->in_index = pick(in, c.peer_in_index);
    m->nonce = pick(in, c.peer_nonce);
    m->peer_in_index = pick(in, c.in_index);
    m->peer_nonce = pick(in, c.nonce);
    m->token = pick(in, c.token);
    if (m->type == OFL_AP_MSG_CONNECT || m->type == OFL_AP_MSG_ACCEPT) {
        m->cluster = (uint16_t)pick(in, peer.cluster);
        m->seq = fuzz_u32(in);
        m->size = fuzz_u16(in);
        m->nonce_step = fuzz_u8(in);
        m->nonce_every = fuzz_u8(in) & 3;
        m->flags = fuzz_u8(in) & 1;
        if (m->type == OFL_AP_MSG_CONNECT)
            m->peer_in_index = m->peer_nonce = 0;
    }
    if (m->type != OFL_AP_MSG_ALIVE && m->type != OFL_AP_MSG_ALIVEACK)
        m->token = 0;
    if (m->type == OFL_AP_MSG_ERROR)
        m->code = (uint16_t)((fuzz_u8(in) & 1) ? OFL_E_AP_CONN_REFUSED
                                                : OFL_E_AP_EXTENT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint64_t now = 0;
    unsigned steps = 0;

    setup();
    memset(&want_peer, 0, sizeof(want_peer));
    while (in.n != 0 && steps++ < 128) {
        struct ofl_ap_endpoint from;
        struct ofl_ap_msg m, reply;
        const uint8_t *p;
        bool send = false;
        size_t n;
        uint32_t nonce, seq;
        enum ofl_err e = OFL_OK;
        uint8_t op = fuzz_u8(&in);

        memset(&reply, 0, sizeof(reply));
        switch (op % 10) {
        case 0: /* active open */
            from_endpoint(&in, &from);
            nonce = fuzz_u32(&in);
            seq = fuzz_u32(&in);
            e = ofl_ap_conn_connect(&c, now, &from, nonce, seq, &reply);
            send = e == OFL_OK;
            if (e == OFL_OK)
                want_peer = from;
            break;
        case 1: /* passive open of a CONNECT */
            from_endpoint(&in, &from);
            structured(&in, &m);
            m.type = OFL_AP_MSG_CONNECT;
            m.peer_in_index = m.peer_nonce = m.token = 0;
            m.code = 0;
            nonce = fuzz_u32(&in);
            seq = fuzz_u32(&in);
            e = ofl_ap_conn_accept(&c, now, &from, &m, nonce, seq, &reply);
            send = e == OFL_OK;
            if (e == OFL_OK) {
                want_peer = from;
                want_peer.host.cluster = m.cluster;
                want_peer.udp = m.port; /* the CONNECT's port */
            }
            break;
        case 2: /* a structured message */
            from_endpoint(&in, &from);
            structured(&in, &m);
            e = rx(now, &from, &m, &reply, &send);
            break;
        case 3: /* raw message bytes */
            from_endpoint(&in, &from);
            n = fuzz_take(&in, &p, fuzz_u8(&in) % 64);
            if (ofl_ap_msg_parse(p, n, &m) == OFL_OK)
                e = rx(now, &from, &m, &reply, &send);
            break;
        case 4: /* time passes */
            now += fuzz_u16(&in);
            e = ofl_ap_conn_tick(&c, now, &reply, &send);
            break;
        case 5:
            e = ofl_ap_conn_close(&c, &reply, &send);
            break;
        case 6:
            e = ofl_ap_conn_error(&c, OFL_E_AP_EXTENT, &reply);
            send = e == OFL_OK;
            break;
        case 7: { /* a whole frame */
            struct ofl_ap_udp u;

            n = fuzz_take(&in, &p, fuzz_u8(&in));
            if (ofl_ap_udp_parse(p, n, &u) == OFL_OK &&
                ofl_ap_msg_parse(u.payload, u.payload_len, &m) == OFL_OK)
                e = rx(now, &u.src, &m, &reply, &send);
            break;
        }
        case 8: /* a new connection object on the same apertures */
            if (c.state == OFL_AP_CONN_OPEN ||
                c.state == OFL_AP_CONN_CONNECTING)
                (void)ofl_ap_conn_close(&c, &reply, &send);
            send = false;
            memset(&want_peer, 0, sizeof(want_peer));
            FUZZ_ASSERT(ofl_ap_conn_init(&c, &nic, OFL_AP_PRIV_APP, PORT, 2,
                                         1, &cfg) == OFL_OK);
            break;
        default:
            ofl_ap_conn_heard(&c, now);
            break;
        }
        /* a call that fails asks nothing to be sent */
        if (e != OFL_OK)
            FUZZ_ASSERT(!send);
        if (send)
            check_reply(&reply);
        check_invariants();
    }
    FUZZ_ASSERT(sim.violations == 0);
    return 0;
}
