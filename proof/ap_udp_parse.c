/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_ap_udp_parse (Ethernet / IPv4 / UDP, RFC 791, RFC 768) over every frame of up to 9,018 bytes (a jumbo frame). */
#include "prove.h"

#define MAX 9018u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_ap_udp u;
    prove_unknown(in, MAX);
    return (int)ofl_ap_udp_parse(in, prove_len(0, MAX), &u);
}
