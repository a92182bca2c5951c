/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_ap_msg_parse (aperture connection messages) over every message of up to 256 bytes. */
#include "prove.h"

#define MAX 256u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_ap_msg m;
    prove_unknown(in, MAX);
    return (int)ofl_ap_msg_parse(in, prove_len(0, MAX), &m);
}
