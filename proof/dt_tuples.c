/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_dt_tuple_next (attribute tuples) over every control buffer of up to
 * 4,096 bytes, every length 0..4,096 and every offset *off (any size_t).
 *
 * The bound: a control buffer is at most the dt's ctrl_cap, which the
 * format does not bound (uint32_t); 4,096 bytes is 64 times the 64 bytes
 * ofl_dt_init requires and holds every tuple list the tests and the
 * examples send. Larger buffers are NOT covered by this driver.
 *
 * ofl_dt_tuples_check only calls ofl_dt_tuple_next in a loop, from offset
 * 0 and then from the offset the previous call left, and compares off with
 * len: covering ofl_dt_tuple_next for every (len, *off) covers every call
 * the check makes. The tuple's bounds check compares *off with len (a
 * relation Eva does not keep between two intervals), so the driver splits
 * the analysis on every value of len (`split`): 4,097 precise cases. */
/* eva: -eva-split-limit 5000 */
#include "prove.h"

#define MAX 4096u

static uint8_t in[MAX];

int main(void)
{
    struct ofl_dt_tuple t;
    size_t len = prove_len(0, MAX), off = prove_len(0, SIZE_MAX);

    prove_unknown(in, MAX);
    //@ split len;
    return (int)ofl_dt_tuple_next(in, len, &off, &t);
}
