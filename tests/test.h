/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * A zero-dependency test harness. Each tests/test_<name>.c defines
 * OFL_SUITE(name) { ... }; the Makefile collects the suites into one runner
 * whose last line is "N passed, M failed".
 */
#ifndef OFL_TEST_H
#define OFL_TEST_H

#include <stdio.h>
#include <string.h>

#include "offload.h"

extern unsigned long ofl_test_passed, ofl_test_failed;

/* offload.c's OFL_FAST_PATH, as the tests see it: 0 in a size build (-Os)
 * and one with OFL_NO_FAST_PATH, 1 otherwise. For the few answers that
 * differ by design between the two (a port hook looked at once, the fused
 * hooks); the test files are built with the same flags as the core. */
#if defined(__OPTIMIZE_SIZE__) || defined(OFL_NO_FAST_PATH)
#define OFL_TEST_FAST_PATH 0
#else
#define OFL_TEST_FAST_PATH 1
#endif

void ofl_test_fail_at(const char *file, int line, const char *what);

/* True when the n bytes at p are all zero (nothing was placed there). */
static inline bool ofl_test_zero(const uint8_t *p, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* The prototype first: kbuild's W=1 (-Wmissing-prototypes) in the module. */
#define OFL_SUITE(name)              \
    void ofl_suite_##name(void);     \
    void ofl_suite_##name(void)

/* A check that counts one pass or one failure. */
#define CHECK(cond)                                              \
    do {                                                         \
        if (cond)                                                \
            ofl_test_passed++;                                   \
        else                                                     \
            ofl_test_fail_at(__FILE__, __LINE__, #cond);         \
    } while (0)

/* expr must return exactly the error want (prints both names if not). */
#define CHECK_ERR(expr, want)                                             \
    do {                                                                  \
        enum ofl_err got_ = (expr);                                       \
        if (got_ == (want)) {                                             \
            ofl_test_passed++;                                            \
        } else {                                                          \
            char m_[256];                                                 \
            snprintf(m_, sizeof(m_), "%s -> %s, want %s", #expr,          \
                     ofl_strerror(got_), ofl_strerror(want));             \
            ofl_test_fail_at(__FILE__, __LINE__, m_);                     \
        }                                                                 \
    } while (0)

#define CHECK_OK(expr) CHECK_ERR(expr, OFL_OK)

/* Integer equality with both values printed on failure. */
#define CHECK_EQ(a, b)                                                    \
    do {                                                                  \
        unsigned long long a_ = (unsigned long long)(a);                  \
        unsigned long long b_ = (unsigned long long)(b);                  \
        if (a_ == b_) {                                                   \
            ofl_test_passed++;                                            \
        } else {                                                          \
            char m_[256];                                                 \
            snprintf(m_, sizeof(m_), "%s == %s (0x%llx != 0x%llx)", #a,   \
                     #b, a_, b_);                                         \
            ofl_test_fail_at(__FILE__, __LINE__, m_);                     \
        }                                                                 \
    } while (0)

#endif
