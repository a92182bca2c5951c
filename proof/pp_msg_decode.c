/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_pp_msg_decode (push-push messages) over every message of up to 4,096 bytes, and ofl_pp_imm_decode over every immediate value. */
#include "prove.h"

#define MAX 4096u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_pp_msg m;
    struct ofl_pp_ref ref;
    prove_unknown(in, MAX);
    (void)ofl_pp_imm_decode(Frama_C_unsigned_long_long_interval(0, UINT64_MAX), &ref);
    return (int)ofl_pp_msg_decode(in, prove_len(0, MAX), &m);
}
