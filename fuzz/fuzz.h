/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Shared by every harness. A harness is fuzz/<name>/fuzz_<name>.c defining
 * LLVMFuzzerTestOneInput; it builds three ways:
 *   - libFuzzer:  clang -fsanitize=fuzzer fuzz/<name>/fuzz_<name>.c ...
 *   - AFL++:      afl-clang-fast with fuzz/driver.c (persistent mode)
 *   - plain:      any compiler with fuzz/driver.c, replaying files (make check)
 *
 * Inputs that drive a state machine are a sequence of events, each
 * introduced by a small header read with fuzz_take(): as lwIP's
 * multi-packet fuzzer does, one input drives a whole conversation.
 *
 * FUZZ_ASSERT aborts: a broken invariant is a crash the fuzzer keeps.
 */
#ifndef OFL_FUZZ_H
#define OFL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "invariant failed %s:%d: %s\n", __FILE__,       \
                    __LINE__, #cond);                                       \
            abort();                                                        \
        }                                                                   \
    } while (0)

/* A cursor over the fuzz input; reads past the end yield zeros. */
struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
    uint8_t v = 0;

    if (in->n) {
        v = *in->p++;
        in->n--;
    }
    return v;
}
static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
    uint16_t hi = fuzz_u8(in);
    return (uint16_t)((hi << 8) | fuzz_u8(in));
}
static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
    uint32_t hi = fuzz_u16(in);
    return (hi << 16) | fuzz_u16(in);
}
static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
    uint64_t hi = fuzz_u32(in);
    return (hi << 32) | fuzz_u32(in);
}
/* Takes up to want bytes; returns how many were available. */
static inline size_t fuzz_take(struct fuzz_in *in, const uint8_t **p,
                               size_t want)
{
    size_t k = want < in->n ? want : in->n;

    *p = in->p;
    in->p += k;
    in->n -= k;
    return k;
}

#endif
