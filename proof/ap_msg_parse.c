/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_ap_msg_parse (aperture connection messages) over every message of
 * 0..256 bytes, each in a buffer of exactly its length (a fresh malloc
 * base per length, split on len), so a read past len is an alarm. */
/* eva: -eva-alloc-builtin fresh -eva-split-limit 300 */
#include "prove.h"
#include <stdlib.h>

#define MAX 256u

int main(void)
{
    struct ofl_ap_msg m;
    size_t len = prove_len(0, MAX);
    uint8_t *in;

    /*@ split len; */
    in = malloc(len);
    if (in == NULL)
        return 0;
    prove_unknown(in, len);
    return (int)ofl_ap_msg_parse(in, len, &m);
}
