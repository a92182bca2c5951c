/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_rdmap_parse (DDP and RDMAP headers, the fixed bodies, Terminate)
 * over every ULPDU of up to 65,535 bytes: the largest an MPA ULPDU Length
 * can carry (RFC 5044 §6.2). */
#include "prove.h"

#define MAX 65535u

static uint8_t ulpdu[MAX];

int main(void)
{
    struct ofl_rdmap_msg msg;
    struct ofl_term_cause cause;

    prove_unknown(ulpdu, MAX);
    return (int)ofl_rdmap_parse(ulpdu, prove_len(0, MAX), &msg, &cause);
}
