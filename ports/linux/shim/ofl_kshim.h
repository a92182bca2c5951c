/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The C library the test suites use, made of kernel facilities, so that the
 * very tests/test_*.c of `make check` compile into the self-test module
 * (zstd's way into the kernel, in reverse: there fake kernel headers let the
 * kernel flavour build in user space; here fake libc headers let the user
 * space tests build in the kernel). Only the test sources see these headers;
 * offload.c is compiled with the kernel's flags alone.
 *
 * Provided: printf, fprintf(stdout|stderr), snprintf, vsnprintf, puts,
 * putchar, fflush; string.h, ctype.h, errno.h; malloc, calloc, free,
 * abort, EXIT_*; the <stdint.h> limits and constant macros; <inttypes.h>
 * PRI* macros; assert.
 * A test that needs more says `ofl-test-needs: libc` (see mk/embed.mk).
 */
#ifndef OFL_KSHIM_H
#define OFL_KSHIM_H

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/stdarg.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/bug.h>

/* <stdint.h> */
#ifndef INT8_MAX
#define INT8_MAX S8_MAX
#define INT8_MIN S8_MIN
#define INT16_MAX S16_MAX
#define INT16_MIN S16_MIN
#define INT32_MAX S32_MAX
#define INT32_MIN S32_MIN
#define INT64_MAX S64_MAX
#define INT64_MIN S64_MIN
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#define UINTPTR_MAX ULONG_MAX
#define INT8_C(x) x
#define INT16_C(x) x
#define INT32_C(x) x
#define INT64_C(x) x##LL
#define UINT8_C(x) x
#define UINT16_C(x) x
#define UINT32_C(x) x##U
#define UINT64_C(x) x##ULL
#endif
#ifndef CHAR_BIT
#define CHAR_BIT 8
#endif

/* <inttypes.h>: the kernel's u64 is unsigned long long everywhere. */
#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 "lld"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 "llu"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 "llx"
#define PRIX32 "X"
#define PRIX64 "llX"

/* <stdio.h>: whole lines go to the kernel log (see ofl_selftest.c). */
typedef struct ofl_kshim_file FILE;
extern FILE *ofl_kshim_stdout, *ofl_kshim_stderr;
#define stdout ofl_kshim_stdout
#define stderr ofl_kshim_stderr
__printf(2, 0) int ofl_kshim_vfprintf(FILE *f, const char *fmt, va_list ap);
__printf(2, 3) int ofl_kshim_fprintf(FILE *f, const char *fmt, ...);
__printf(1, 2) int ofl_kshim_printf(const char *fmt, ...);
int ofl_kshim_fflush(FILE *f);
#define vfprintf ofl_kshim_vfprintf
#define fprintf ofl_kshim_fprintf
#define printf ofl_kshim_printf
#define fflush ofl_kshim_fflush
#define puts(s) ofl_kshim_printf("%s\n", (s))
#define putchar(c) ofl_kshim_printf("%c", (c))

/* <stdlib.h> */
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
static inline void *ofl_kshim_malloc(size_t n)
{
    return kvmalloc(n ? n : 1, GFP_KERNEL);
}
static inline void *ofl_kshim_calloc(size_t n, size_t size)
{
    return kvcalloc(n ? n : 1, size ? size : 1, GFP_KERNEL);
}
/*
 * C11 aligned_alloc: kmalloc objects of a power-of-two size are naturally
 * aligned, and vmalloc memory is page aligned, so rounding the size up to a
 * power of two of at least the alignment gives the alignment asked for (up
 * to a page).
 */
static inline void *ofl_kshim_aligned_alloc(size_t align, size_t n)
{
    size_t sz = n > align ? n : align;

    if (align == 0 || (align & (align - 1)) != 0 || align > PAGE_SIZE)
        return NULL;
    return kvmalloc(roundup_pow_of_two(sz ? sz : 1), GFP_KERNEL);
}
#define malloc ofl_kshim_malloc
#define calloc ofl_kshim_calloc
#define aligned_alloc ofl_kshim_aligned_alloc
#define free kvfree
#define abort() BUG()

/* <assert.h> */
#ifdef NDEBUG
#define assert(c) ((void)0)
#else
#define assert(c) WARN_ON(!(c))
#endif

#endif
