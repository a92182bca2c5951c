/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_dt_tuples_check and ofl_dt_tuple_next (attribute tuples) over every buffer of up to 4,096 bytes and any tuple count. */
#include "prove.h"

#define MAX 4096u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_dt_tuple t;
    size_t len = prove_len(0, MAX), off = prove_len(0, MAX + 1);
    prove_unknown(in, MAX);
    (void)ofl_dt_tuples_check(in, len, Frama_C_unsigned_int_interval(0, UINT32_MAX));
    return (int)ofl_dt_tuple_next(in, len, &off, &t);
}
