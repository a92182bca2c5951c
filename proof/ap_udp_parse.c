/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_ap_udp_parse (Ethernet / IPv4 / UDP, RFC 791, RFC 768) over every
 * frame of up to 9,018 bytes (a 9,000-byte jumbo MTU plus the 14-byte
 * Ethernet header and 4 bytes of FCS room: larger than any frame a CI port
 * hands over) and every length 0..9,018.
 *
 * The IHL nibble sets where the UDP header starts and how long the IPv4
 * header sum runs, and the UDP sum's length is total - IHL: Eva keeps no
 * relation between the two, so the driver analyses each of the 16 values of
 * the low nibble of IPv4 byte 0 on its own (unrolled loop), its high nibble
 * (the version) unknown. The 16 cases cover every value of the byte. */
#include "prove.h"

#define MAX 9018u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_ap_udp u;
    unsigned v;

    //@ loop unroll 16;
    for (v = 0; v < 16; v++) {
        prove_unknown(in, MAX);
        in[14] = (uint8_t)(Frama_C_unsigned_int_interval(0, 15) << 4 | v);
        (void)ofl_ap_udp_parse(in, prove_len(0, MAX), &u);
    }
    return 0;
}
