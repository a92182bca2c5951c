/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* Runs diff_tpt.c's two builds (fast and precise paths) on the same seeds
 * and counts the seeds whose digests differ (tests/check_fastpath_tpt.sh).
 * Also prints the results seen (the fast build's), code by code, so that a
 * reader sees every error class was reached. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t fp_tpt_run_fast(uint32_t seed, uint32_t *errs_seen);
uint64_t fp_tpt_run_gen(uint32_t seed, uint32_t *errs_seen);

static uint32_t seen_fast[0x10000], seen_gen[0x10000];

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 300u;
    uint32_t seed, bad = 0, i, classes = 0;

    for (seed = 1; seed <= n; seed++) {
        uint64_t a = fp_tpt_run_fast(seed, seen_fast);
        uint64_t b = fp_tpt_run_gen(seed, seen_gen);

        if (a != b || a < 16) {
            if (bad++ < 5)
                printf("  seed %u: fast %016llx precise %016llx\n",
                       (unsigned)seed, (unsigned long long)a,
                       (unsigned long long)b);
        }
    }
    printf("fastpath tpt: results seen (code: count):");
    for (i = 0; i < 0x10000; i++)
        if (seen_fast[i] != 0) {
            printf(" %#x: %u", (unsigned)i, (unsigned)seen_fast[i]);
            classes++;
        }
    printf("\nfastpath tpt: %u seeds, %u results classes, %u differ\n",
           (unsigned)n, (unsigned)classes, (unsigned)bad);
    printf("%u passed, %u failed\n", n - bad, bad);
    return bad != 0;
}
