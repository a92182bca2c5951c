/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Benchmark harness. Each tests/bench/bench_<name>.c defines
 * OFL_BENCH(name) { ... }; the Makefile collects them into one program.
 * Every figure is a ratio to a baseline measured in the same run, printed
 * as one machine-readable line:
 *
 *   bench: <name> <value> <unit> vs <baseline> ratio <r> (target <op> <t>: ok|miss)
 *
 * and a missing baseline library is said plainly with bench_skip().
 * Timing: bench_measure() runs a batch function for at least
 * BENCH_MIN_SECONDS per repetition, BENCH_REPS times, and keeps the best
 * (least disturbed) time per operation.
 */
#ifndef OFL_BENCH_H
#define OFL_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "offload.h"

#define OFL_BENCH(name) void ofl_bench_##name(void)

/* Runs the operation n times (the loop lives in the callee, so no call per
 * operation is measured). */
typedef void (*bench_batch_fn)(void *ctx, uint64_t n);

/* Seconds per operation: best of the repetitions. */
double bench_measure(bench_batch_fn fn, void *ctx);

/* A function an instruction counter is aimed at (callgrind's
 * --toggle-collect, tests/bench/count_*.sh): never inlined, and with gcc
 * never folded with another of the same body or cloned under another name
 * (noipa). */
#if defined(__clang__)
#define BENCH_COUNT_FN __attribute__((noinline))
#else
#define BENCH_COUNT_FN __attribute__((noinline, noipa))
#endif

/* Keeps the compiler from optimising a value or a buffer away. */
static inline void bench_escape(const void *p)
{
    __asm__ __volatile__("" : : "g"(p) : "memory");
}
extern volatile uint64_t bench_sink;

/*
 * Prints one comparison line. value/unit describe the measured thing
 * (e.g. 12.3 ns/op, 4.1 GB/s); ratio is its ratio to the baseline, oriented
 * so that the target reads naturally: op is "<=" or ">=" and target the
 * bound on the ratio.
 */
void bench_report(const char *name, double value, const char *unit,
                  const char *baseline, double ratio, const char *op,
                  double target);
/* A comparison without a target (informational). */
void bench_info(const char *name, double value, const char *unit,
                const char *baseline, double ratio);
/* A comparison that could not run: "bench: <name> skipped: <why>". */
void bench_skip(const char *name, const char *why);

#endif
