/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* NOT PROVED, NOT IN make prove: at -eva-precision 2 (3 s) Eva reports 3
 * alarms, in ofl_copy and ofl_fill: over the merged states of the loop it
 * loses the relation have < want (want from the frame's PD Length, bytes
 * 18..19 of buf), so want - have may wrap for it. At precision 8 it ran
 * over 13 minutes without finishing. The way forward is one call from any
 * state that satisfies the invariant (have < want <= sizeof buf), split
 * on have.
 *
 * ofl_mpa_hs_recv (the MPA handshake receive, RFC 5044 §7.1, RFC 6581),
 * as responder (Request) and as initiator (Reply), over any sequence of
 * calls, each with 0..540 unknown bytes (a whole largest frame, 20 + 512,
 * and 8 more): the loop has no bound, Eva's fixpoint covers every number
 * of calls and every way the peer's bytes are cut. Both sides' own
 * configuration: rev 2, enhanced, CRC and markers asked, IRD/ORD 16. */
#include "prove.h"

#define CHUNK (OFL_MPA_RR_MAX + 8u)

static uint8_t data[CHUNK];
static uint8_t out[OFL_MPA_RR_MAX];
static struct ofl_mpa_hs hs;

int main(void)
{
    struct ofl_mpa_cfg c = {0};
    size_t used, len;
    bool initiator = Frama_C_nondet(0, 1);

    c.rev = 2;
    c.markers = true;
    c.crc = true;
    c.enhanced = true;
    c.ird = 16;
    c.ord = 16;
    if (ofl_mpa_hs_init(&hs, &c, initiator) != OFL_OK)
        return 1;
    if (initiator && ofl_mpa_hs_request(&hs, out, sizeof out, &len) != OFL_OK)
        return 1;
    while (Frama_C_nondet(0, 1)) {
        prove_unknown(data, CHUNK);
        if (ofl_mpa_hs_recv(&hs, data, prove_len(0, CHUNK), &used) != OFL_OK)
            break;
    }
    return 0;
}
