/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* The benchmark runner: every OFL_BENCH the Makefile found, in order;
 * arguments select benches by name. */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

#define BENCH_MIN_SECONDS 0.05
#define BENCH_REPS 7

volatile uint64_t bench_sink;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_measure(bench_batch_fn fn, void *ctx)
{
    uint64_t n = 1;
    double best = 1e30;
    int rep;

    /* Calibrate: grow the batch until it runs for the minimum time. */
    for (;;) {
        double t0 = now(), dt;

        fn(ctx, n);
        dt = now() - t0;
        if (dt >= BENCH_MIN_SECONDS || n >= (1ull << 40))
            break;
        n = dt <= 0 ? n * 16 : (uint64_t)((double)n * BENCH_MIN_SECONDS * 1.2 / dt) + 1;
    }
    for (rep = 0; rep < BENCH_REPS; rep++) {
        double t0 = now(), dt;

        fn(ctx, n);
        dt = (now() - t0) / (double)n;
        if (dt < best)
            best = dt;
    }
    return best;
}

static unsigned misses;

void bench_report(const char *name, double value, const char *unit,
                  const char *baseline, double ratio, const char *op,
                  double target)
{
    int ok = op[0] == '<' ? ratio <= target : ratio >= target;

    if (!ok)
        misses++;
    printf("bench: %s %.4g %s vs %s ratio %.3f (target %s %g: %s)\n", name,
           value, unit, baseline, ratio, op, target, ok ? "ok" : "miss");
    fflush(stdout);
}

void bench_info(const char *name, double value, const char *unit,
                const char *baseline, double ratio)
{
    printf("bench: %s %.4g %s vs %s ratio %.3f\n", name, value, unit,
           baseline, ratio);
    fflush(stdout);
}

void bench_skip(const char *name, const char *why)
{
    printf("bench: %s skipped: %s\n", name, why);
    fflush(stdout);
}

#define OFL_BENCH_ENTRY(name) void ofl_bench_##name(void);
#include "benches.h"
#undef OFL_BENCH_ENTRY

struct bench {
    const char *name;
    void (*run)(void);
};

#define OFL_BENCH_ENTRY(name) {#name, ofl_bench_##name},
static const struct bench benches[] = {
#include "benches.h"
};
#undef OFL_BENCH_ENTRY

int main(int argc, char **argv)
{
    size_t i;
    int j;

    for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
        int selected = argc < 2;

        for (j = 1; j < argc; j++)
            if (strcmp(argv[j], benches[i].name) == 0)
                selected = 1;
        if (selected)
            benches[i].run();
    }
    printf("bench: %u target(s) missed\n", misses);
    /* Timing never fails the build: misses are reported, not asserted. */
    return EXIT_SUCCESS;
}
