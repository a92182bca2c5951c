/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/mpa_handshake: MPA connection setup (RFC 5044 §7.1, RFC 6581) fed a
 * hostile peer frame.
 *
 * Input: byte 0 role and configuration (bit 0 initiator, 1 markers, 2 CRC,
 * 3 revision 2, 4 enhanced, 5 peer-to-peer, 6 responder rejects), byte 1
 * RTR kinds, byte 2 IRD, byte 3 ORD, byte 4 chunk seed, then the bytes the
 * peer sends (seeds: the Request and Reply of the ofl-pcap conversation).
 *
 * Invariants: feeding in seeded chunks and in one piece ends in the same
 * state, error, cause and parameters; a finished handshake refuses more
 * input; a failure carries an MPA-layer cause. The peer bytes are also
 * parsed alone with ofl_mpa_rr_parse: a whole frame is consumed exactly
 * (what follows it is left for the FPDU receiver) and is what the
 * handshake holds as the peer's; an incomplete one is consumed whole and
 * leaves the handshake waiting; a bad one fails it with the parser's
 * error. Negotiated parameters follow "MPA connection setup" in offload.h:
 *   - CRC when either side asks, markers per direction;
 *   - revision: the responder's reply carries the lower of the request's
 *     and its own; the initiator uses the reply's (never above its own);
 *   - enhanced exactly when both sent the RFC 6581 block; then the
 *     responder's ORD is min(its ORD, the initiator's IRD), and the
 *     initiator's ORD is min(its ORD, the responder's IRD) and the
 *     responder's ORD is at most the initiator's IRD (else E_MPA_IRD);
 *   - peer-to-peer: the responder picks Write, then Read, then Send from
 *     the kinds both support (none: REJECTED with E_MPA_RTR); the
 *     initiator asked for p2p, and the reply set A and names exactly the
 *     kind it uses;
 *   - the responder's Reply carries the negotiated revision, flags,
 *     depths and RTR kind.
 */
#include "fuzz.h"
#include "offload.h"

#include <string.h>

/* The responder's pick from the kinds both support (offload.h). */
static uint8_t pick_rtr(uint8_t both)
{
    if (both & OFL_MPA_RTR_WRITE)
        return OFL_MPA_RTR_WRITE;
    if (both & OFL_MPA_RTR_READ)
        return OFL_MPA_RTR_READ;
    if (both & OFL_MPA_RTR_SEND)
        return OFL_MPA_RTR_SEND;
    return 0;
}

static uint16_t min16(uint16_t a, uint16_t b)
{
    return a < b ? a : b;
}

static bool same_rr(const struct ofl_mpa_rr *a, const struct ofl_mpa_rr *b)
{
    return a->reply == b->reply && a->flags == b->flags && a->rev == b->rev &&
           a->enhanced == b->enhanced && a->p2p == b->p2p &&
           a->rtr == b->rtr && a->ird == b->ird && a->ord == b->ord &&
           a->pd_len == b->pd_len;
}

struct outcome {
    uint8_t state;
    uint16_t err;
    struct ofl_term_cause cause;
    struct ofl_mpa_params params;
    size_t used;
};

static void run(const struct ofl_mpa_cfg *cfg, bool initiator, bool reject,
                const uint8_t *peer, size_t n, uint32_t seed, bool chunked,
                struct outcome *o)
{
    static struct ofl_mpa_hs hs;
    uint8_t out[OFL_MPA_RR_MAX];
    size_t len = 0, off = 0, frame = 0;
    struct ofl_mpa_rr alone;
    /* The peer's frame parsed on its own: the initiator awaits a Reply. */
    enum ofl_err pe = ofl_mpa_rr_parse(peer, n, initiator, &alone, &frame);
    bool waiting;

    FUZZ_ASSERT(ofl_mpa_hs_init(&hs, cfg, initiator) == OFL_OK);
    if (initiator) {
        struct ofl_mpa_rr rr;
        size_t fl;

        FUZZ_ASSERT(ofl_mpa_hs_request(&hs, out, sizeof(out), &len) ==
                    OFL_OK);
        FUZZ_ASSERT(ofl_mpa_rr_parse(out, len, false, &rr, &fl) == OFL_OK);
        FUZZ_ASSERT(fl == len);
    }
    while (off < n && (hs.state == OFL_MPA_HS_AWAIT_REPLY ||
                       hs.state == OFL_MPA_HS_AWAIT_REQUEST)) {
        size_t chunk = n - off, used = 0;

        if (chunked) {
            seed = seed * 1103515245u + 12345u;
            chunk = 1 + (seed >> 16) % 40;
            if (chunk > n - off)
                chunk = n - off;
        }
        (void)ofl_mpa_hs_recv(&hs, peer + off, chunk, &used);
        FUZZ_ASSERT(used <= chunk);
        off += used;
        if (used < chunk)
            FUZZ_ASSERT(hs.state != OFL_MPA_HS_AWAIT_REPLY &&
                        hs.state != OFL_MPA_HS_AWAIT_REQUEST);
    }
    FUZZ_ASSERT(off <= OFL_MPA_RR_MAX);
    waiting = hs.state == OFL_MPA_HS_AWAIT_REPLY ||
              hs.state == OFL_MPA_HS_AWAIT_REQUEST;
    if (pe == OFL_OK) {
        /* The frame exactly, and the same frame as parsed alone. */
        FUZZ_ASSERT(!waiting && off == frame);
        FUZZ_ASSERT(same_rr(&hs.peer, &alone));
    } else if (pe == OFL_E_TRUNCATED) {
        FUZZ_ASSERT(waiting && off == n);
    } else {
        FUZZ_ASSERT(hs.state == OFL_MPA_HS_FAILED && hs.err == pe);
    }
    if (hs.state == OFL_MPA_HS_DECIDE) {
        struct ofl_mpa_rr rr;
        size_t fl;
        bool enh = cfg->enhanced && hs.peer.enhanced;
        uint8_t pick = pick_rtr(hs.peer.rtr & cfg->rtr);
        enum ofl_err e =
            reject ? ofl_mpa_hs_reject(&hs, out, sizeof(out), &len)
                   : ofl_mpa_hs_accept(&hs, out, sizeof(out), &len);

        FUZZ_ASSERT(e == OFL_OK || e == OFL_E_MPA_RTR);
        FUZZ_ASSERT(ofl_mpa_rr_parse(out, len, true, &rr, &fl) == OFL_OK);
        FUZZ_ASSERT(fl == len);
        FUZZ_ASSERT(rr.rev == min16(hs.peer.rev, cfg->rev));
        FUZZ_ASSERT(((rr.flags & OFL_MPA_F_REJECT) != 0) ==
                    (hs.state == OFL_MPA_HS_REJECTED));
        /* Accepting fails only when a p2p request shares no RTR kind. */
        if (!reject)
            FUZZ_ASSERT((hs.state == OFL_MPA_HS_DONE) ==
                        !(enh && hs.peer.p2p && pick == 0));
        if (hs.state == OFL_MPA_HS_DONE) {
            const struct ofl_mpa_params *p = &hs.params;

            FUZZ_ASSERT(rr.rev == p->rev && rr.enhanced == p->enhanced);
            FUZZ_ASSERT(((rr.flags & OFL_MPA_F_CRC) != 0) == p->crc &&
                        ((rr.flags & OFL_MPA_F_MARKERS) != 0) ==
                            cfg->markers);
            if (p->enhanced)
                FUZZ_ASSERT(rr.ird == p->ird && rr.ord == p->ord &&
                            rr.p2p == p->p2p && rr.rtr == p->rtr);
            if (enh && hs.peer.p2p)
                FUZZ_ASSERT(p->p2p && p->rtr == pick);
            else
                FUZZ_ASSERT(!p->p2p && p->rtr == 0);
        }
    }
    if (hs.state == OFL_MPA_HS_DONE || hs.state == OFL_MPA_HS_FAILED ||
        hs.state == OFL_MPA_HS_REJECTED) {
        size_t used = 1;

        FUZZ_ASSERT(ofl_mpa_hs_recv(&hs, peer, n, &used) == OFL_E_MPA_STATE);
        FUZZ_ASSERT(used == 0);
    }
    if (hs.state == OFL_MPA_HS_FAILED)
        FUZZ_ASSERT(hs.cause.layer == OFL_TERM_LAYER_MPA &&
                    hs.cause.etype == OFL_TERM_MPA_ERROR &&
                    hs.cause.ecode >= 1 && hs.cause.ecode <= 7);
    if (hs.state == OFL_MPA_HS_DONE) {
        const struct ofl_mpa_params *p = &hs.params;

        FUZZ_ASSERT(p->markers_rx == cfg->markers);
        FUZZ_ASSERT(p->crc == (cfg->crc ||
                               (hs.peer.flags & OFL_MPA_F_CRC) != 0));
        FUZZ_ASSERT(p->markers_tx ==
                    ((hs.peer.flags & OFL_MPA_F_MARKERS) != 0));
        FUZZ_ASSERT(p->rev >= 1 && p->rev <= cfg->rev);
        FUZZ_ASSERT(p->ord <= cfg->ord && p->ird == cfg->ird);
        FUZZ_ASSERT(p->enhanced == (cfg->enhanced && hs.peer.enhanced));
        if (initiator) {
            /* The reply's revision, never above ours. */
            FUZZ_ASSERT(p->rev == hs.peer.rev);
        } else {
            FUZZ_ASSERT(p->rev == min16(hs.peer.rev, cfg->rev));
        }
        if (p->enhanced) {
            /* Both sides lower their ORD to the other's IRD; only the
             * initiator refuses a peer ORD above its IRD (offload.h). */
            FUZZ_ASSERT(p->ord == min16(cfg->ord, hs.peer.ird));
            if (initiator)
                FUZZ_ASSERT(hs.peer.ord <= cfg->ird);
        } else {
            FUZZ_ASSERT(p->ord == cfg->ord);
        }
        if (initiator) {
            /* Asked for p2p: the reply set A and names exactly the one
             * kind used. */
            FUZZ_ASSERT(p->p2p == (p->enhanced && cfg->p2p));
            if (p->p2p)
                FUZZ_ASSERT(hs.peer.p2p && p->rtr == hs.peer.rtr);
        }
        if (p->p2p)
            FUZZ_ASSERT(p->rtr != 0 && (p->rtr & (p->rtr - 1)) == 0 &&
                        (p->rtr & cfg->rtr) != 0);
        else
            FUZZ_ASSERT(p->rtr == 0);
    }
    o->state = hs.state;
    o->err = hs.err;
    o->cause = hs.cause;
    o->params = hs.params;
    o->used = off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ofl_mpa_cfg cfg;
    struct outcome a, b;
    bool initiator, reject;

    if (size < 5)
        return 0;
    memset(&cfg, 0, sizeof(cfg));
    initiator = data[0] & 0x01;
    cfg.markers = (data[0] >> 1) & 1;
    cfg.crc = (data[0] >> 2) & 1;
    cfg.rev = (data[0] & 0x08) ? 2 : 1;
    cfg.enhanced = cfg.rev == 2 && (data[0] & 0x10);
    cfg.rtr = data[1] & OFL_MPA_RTR_ALL;
    cfg.p2p = cfg.enhanced && (data[0] & 0x20) && cfg.rtr != 0;
    cfg.ird = data[2];
    cfg.ord = data[3];
    reject = (data[0] >> 6) & 1;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    run(&cfg, initiator, reject, data + 5, size - 5, data[4], true, &a);
    run(&cfg, initiator, reject, data + 5, size - 5, data[4], false, &b);
    FUZZ_ASSERT(a.state == b.state && a.err == b.err && a.used == b.used);
    FUZZ_ASSERT(a.cause.layer == b.cause.layer &&
                a.cause.etype == b.cause.etype &&
                a.cause.ecode == b.cause.ecode);
    FUZZ_ASSERT(a.params.rev == b.params.rev && a.params.crc == b.params.crc &&
                a.params.markers_tx == b.params.markers_tx &&
                a.params.markers_rx == b.params.markers_rx &&
                a.params.enhanced == b.params.enhanced &&
                a.params.p2p == b.params.p2p && a.params.rtr == b.params.rtr &&
                a.params.ird == b.params.ird && a.params.ord == b.params.ord);
    return 0;
}
