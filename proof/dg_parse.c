/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_dg_parse (datagram QP headers) over every frame of up to 9,000 bytes. */
#include "prove.h"

#define MAX 9000u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_dg_hdr h;
    prove_unknown(in, MAX);
    return (int)ofl_dg_parse(in, prove_len(0, MAX), &h);
}
