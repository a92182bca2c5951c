/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* Runs diff_dt.c's two builds (fast and general paths) on the same seeds
 * and counts the seeds whose digests differ (tests/check_fastpath_dt.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t fp_dt_run_fast(uint32_t seed);
uint64_t fp_dt_run_gen(uint32_t seed);

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 300u;
    uint32_t seed, bad = 0;

    for (seed = 1; seed <= n; seed++) {
        uint64_t a = fp_dt_run_fast(seed), b = fp_dt_run_gen(seed);

        if (a != b || a < 16) {
            if (bad++ < 5)
                printf("  seed %u: fast %016llx general %016llx\n",
                       (unsigned)seed, (unsigned long long)a,
                       (unsigned long long)b);
        }
    }
    printf("fastpath dt: %u seeds, %u differ\n", (unsigned)n, (unsigned)bad);
    printf("%u passed, %u failed\n", n - bad, bad);
    return bad != 0;
}
