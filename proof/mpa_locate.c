/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_mpa_locate (the out-of-order FPDU locator, RFC 5044 §4 markers) over every TCP segment of up to 9,000 bytes at any sequence number and any stream base. */
/* eva: -eva-precision 5 */
#include "prove.h"

#define MAX 9000u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_mpa_found found[8];
    uint32_t count;
    prove_unknown(in, MAX);
    return (int)ofl_mpa_locate(Frama_C_unsigned_int_interval(0, UINT32_MAX),
                               Frama_C_unsigned_int_interval(0, UINT32_MAX),
                               in, prove_len(0, MAX), found, 8, &count);
}
