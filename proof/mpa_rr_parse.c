/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_mpa_rr_parse (MPA Request / Reply, RFC 5044 §7.1, RFC 6581) over every frame of up to 20 header bytes plus 512 bytes of private data (the largest RFC 5044 allows), and a little more, as request and as reply. */
#include "prove.h"

#define MAX (20u + 512u + 8u)

static uint8_t in[MAX];

int main(void)
{
    struct ofl_mpa_rr rr;
    size_t frame_len;
    prove_unknown(in, MAX);
    return (int)ofl_mpa_rr_parse(in, prove_len(0, MAX), Frama_C_nondet(0, 1),
                                 &rr, &frame_len);
}
