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
 * state, error, cause and parameters; never more than the frame is
 * consumed; a finished handshake refuses more input; a failure carries an
 * MPA-layer cause; negotiated parameters follow the rules in offload.h.
 */
#include "fuzz.h"
#include "offload.h"

#include <string.h>

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
    size_t len = 0, off = 0;

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
    if (hs.state == OFL_MPA_HS_DECIDE) {
        struct ofl_mpa_rr rr;
        size_t fl;
        enum ofl_err e =
            reject ? ofl_mpa_hs_reject(&hs, out, sizeof(out), &len)
                   : ofl_mpa_hs_accept(&hs, out, sizeof(out), &len);

        FUZZ_ASSERT(e == OFL_OK || e == OFL_E_MPA_RTR);
        FUZZ_ASSERT(ofl_mpa_rr_parse(out, len, true, &rr, &fl) == OFL_OK);
        FUZZ_ASSERT(fl == len);
        FUZZ_ASSERT(rr.rev <= hs.peer.rev && rr.rev <= cfg->rev);
        FUZZ_ASSERT(((rr.flags & OFL_MPA_F_REJECT) != 0) ==
                    (hs.state == OFL_MPA_HS_REJECTED));
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
        FUZZ_ASSERT(!p->enhanced || (cfg->enhanced && hs.peer.enhanced));
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
