/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_dt_desc_decode over every descriptor of up to 64 bytes (a descriptor is 32). */
#include "prove.h"

#define MAX 64u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_dt_desc d;
    prove_unknown(in, MAX);
    return (int)ofl_dt_desc_decode(in, prove_len(0, MAX), &d);
}
