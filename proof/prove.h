/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Common part of the Frama-C/Eva proof drivers (`make prove`).
 *
 * Each driver includes offload.c itself, so that it may also call the
 * static parsers behind a public entry point, and hands the parser a
 * buffer of MAX bytes whose every byte is unknown (any value 0..255) and
 * a length anywhere in [0, MAX]. Eva then computes an over-approximation
 * of every execution: no alarm means no out-of-bounds access, no signed
 * overflow, no invalid shift, no uninitialised read and no division by
 * zero for ANY such input, not only the ones a fuzzer tried.
 *
 * __FRAMAC__ makes offload.c take its byte-by-byte copy and fill loops
 * (the word moves through may_alias words are a compiler idiom Eva does
 * not model; ASan, UBSan and valgrind cover them in make check).
 */
#ifndef OFL_PROVE_H
#define OFL_PROVE_H

#include "__fc_builtin.h"
#include "offload.c"

/* A buffer of n unknown bytes. */
static inline void prove_unknown(void *p, size_t n)
{
    Frama_C_make_unknown((char *)p, n);
}

/* Any length in [lo, hi]. */
static inline size_t prove_len(size_t lo, size_t hi)
{
    return Frama_C_size_t_interval(lo, hi);
}

/*
 * A port whose crc32c hook reads every byte of the range it is handed, by
 * index, and returns any value. A driver that hands it to the parser
 * proves that every CRC range lies inside the input; the CRC loop itself
 * (ofl_crc32c_update: a pointer and a length that shrink together, a
 * relation Eva does not keep) is not analysed there.
 */
static uint32_t prove_crc32c(void *ctx, uint32_t state, const void *data,
                             size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    uint32_t x = state;
    size_t i;

    (void)ctx;
    for (i = 0; i < len; i++)
        x ^= p[i];
    return Frama_C_unsigned_int_interval(0, UINT32_MAX) ^ (x & 0u);
}

static const struct ofl_port prove_port = {
    .size = sizeof(struct ofl_port),
    .crc32c = prove_crc32c,
};

#endif
