/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* NOT PROVED, NOT IN make prove: Eva reports 13 alarms on this driver
 * (at CHUNK 64, CAP 256, -eva-precision 3: 34 s), from the merged receiver
 * state of the unbounded loop (relations between pos, part, body_got and
 * ulpdu_len are lost; the _Bool fields merge to trap representations).
 *
 * The MPA stream receiver (ofl_mpa_rx_feed: FPDU framing, markers, CRC)
 * over any sequence of calls, each with up to CHUNK unknown bytes, from a
 * receiver started with or without markers and CRC and a buffer of any
 * size up to CAP bytes. The loop has no bound: Eva's fixpoint covers every
 * number of calls. The sound way forward is one call from any state that
 * satisfies the struct's invariant, then an assert that the call keeps it.
 */
#include "prove.h"

#define CHUNK 64u
#define CAP 256u

static uint8_t data[CHUNK];
static uint8_t rxbuf[CAP];

int main(void)
{
    struct ofl_mpa_params p = {0};
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    uint32_t cap = (uint32_t)prove_len(1, CAP);
    size_t used;

    p.rev = 2;
    p.markers_rx = Frama_C_nondet(0, 1);
    p.crc = Frama_C_nondet(0, 1);
    if (ofl_mpa_rx_init(&rx, &p, rxbuf + CAP - cap, cap, NULL) != OFL_OK)
        return 1;
    while (Frama_C_nondet(0, 1)) {
        prove_unknown(data, CHUNK);
        (void)ofl_mpa_rx_feed(&rx, data, prove_len(0, CHUNK), &used, &f);
    }
    return 0;
}
