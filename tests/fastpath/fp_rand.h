/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The differential tests' input generator and digest (diff_qp.c,
 * diff_dt.c): a 32-bit xorshift for the inputs, a 64-bit mix for the
 * digest of every result. Each copy of a test includes it (static).
 */
#ifndef FP_RAND_H
#define FP_RAND_H

#include <stdint.h>

static inline uint64_t fp_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xFF51AFD7ED558CCDull;
}

static inline uint32_t fp_rnd(uint32_t *s)
{
    uint32_t x = *s;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

#endif
