/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Memory TPT: a remote check plus the translation of a 4 KiB access (a
 * window over a region with a direct ATT of 4 KiB pages, the access not
 * page aligned so it spans two pages) next to a 256-byte memcpy in the same
 * run. Target: validate + translate costs less than the memcpy.
 *
 * Also printed, as information: the floor of the translation itself. A
 * reference written here walks the same window -> region -> direct ATT
 * chain and fills the same two pieces, with no check at all (no key, PD,
 * state, bounds, rights or wrap test; the library must make every one of
 * them). It is what any check-and-translate of this access costs at the
 * least on this machine; the target asks the library to beat the memcpy
 * with all of FIG. 18A a-f on top of it.
 */
#include "bench.h"

#include <stdlib.h>

#define PAGES 64

struct tpt_bench {
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entries[16];
    uint64_t att[PAGES];
    uint32_t window;
    uint64_t to;
    struct ofl_tpt_piece piece[4];
    struct ofl_tpt_sgl sgl;
    uint64_t failures;
};

static void run_check_translate(void *ctx, uint64_t n)
{
    struct tpt_bench *b = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        uint64_t to = b->to + ((i & 7) << 12);

        if (ofl_tpt_check_translate(&b->tpt, b->window, 7, 1, to, 4096,
                                    OFL_TPT_REMOTE_WRITE, &b->sgl) != OFL_OK)
            b->failures++;
        bench_escape(b->piece);
    }
}

/* The bench's floor: the translation with every check left out. Reads the
 * entries' public fields; not the library's code and not a usable check. */
static __attribute__((noinline)) void
floor_translate(const struct ofl_tpt *tpt, uint32_t stag, uint64_t to,
                uint64_t len, struct ofl_tpt_sgl *sgl)
{
    const struct ofl_tpt_entry *w = &tpt->entry[ofl_stag_index(stag)];
    const struct ofl_tpt_entry *r = &tpt->entry[w->region];
    const uint64_t *att = tpt->att + r->att_base;
    uint64_t pmask = ((uint64_t)1 << r->page_shift) - 1;
    uint64_t pos = to - r->va + r->fpo, in = pos & pmask;
    uint64_t first = pmask + 1 - in;

    sgl->piece[0].pa = (att[pos >> r->page_shift] & ~pmask) + in;
    sgl->piece[0].len = (uint32_t)first;
    sgl->piece[1].pa = att[(pos >> r->page_shift) + 1] & ~pmask;
    sgl->piece[1].len = (uint32_t)(len - first);
    sgl->count = 2;
    sgl->bytes = len;
}

static void run_floor(void *ctx, uint64_t n)
{
    struct tpt_bench *b = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        floor_translate(&b->tpt, b->window, b->to + ((i & 7) << 12), 4096,
                        &b->sgl);
        bench_escape(b->piece);
    }
}

static uint8_t src[256], dst[256];
static volatile size_t copy_len = 256;

static void run_memcpy256(void *ctx, uint64_t n)
{
    (void)ctx;
    while (n--) {
        memcpy(dst, src, copy_len);
        bench_escape(dst);
    }
}

/*
 * tpt_count: COUNT_OPS check-and-translates of the library and COUNT_OPS
 * of the floor above, the same loop around each, in functions of their
 * own for the instruction counter (tests/bench/count_qp.sh, callgrind's
 * --toggle-collect). The bench runs only this part when
 * OFL_BENCH_TPT_COUNT is set.
 */
#define COUNT_OPS 100000u

static BENCH_COUNT_FN void tpt_count_library(struct tpt_bench *b)
{
    run_check_translate(b, COUNT_OPS);
    bench_sink = 1;
}

static BENCH_COUNT_FN void tpt_count_floor(struct tpt_bench *b)
{
    run_floor(b, COUNT_OPS);
    bench_sink = 2;
}

OFL_BENCH(tpt)
{
    static struct tpt_bench b;
    struct ofl_tpt_region_desc d;
    uint64_t pages[PAGES];
    uint32_t region, w;
    struct ofl_tpt_piece want[2];
    double t_tpt, t_mem, t_floor;
    int i;

    if (ofl_tpt_init(&b.tpt, b.entries, 16, b.att, PAGES, NULL,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK)
        return;
    /* Scattered physical pages so no two merge. */
    for (i = 0; i < PAGES; i++)
        pages[i] = 0x100000000ull + (uint64_t)(i * 2) * 4096u;
    memset(&d, 0, sizeof(d));
    d.va = 0x7f0000000000ull;
    d.len = (uint64_t)PAGES * 4096u;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE | OFL_TPT_BIND_WINDOW;
    if (ofl_tpt_reg_pages(&b.tpt, 7, &d, pages, PAGES, &region) != OFL_OK ||
        ofl_tpt_alloc(&b.tpt, OFL_TPT_WINDOW, 7, 0, &w) != OFL_OK ||
        ofl_tpt_bind(&b.tpt, w, region, 7, 1, d.va, d.len,
                     OFL_TPT_REMOTE_WRITE, 0, &b.window) != OFL_OK) {
        printf("bench: tpt setup failed\n");
        return;
    }
    b.to = d.va + 100; /* spans two pages */
    b.sgl.piece = b.piece;
    b.sgl.cap = 4;
    if (getenv("OFL_BENCH_TPT_COUNT") != NULL) {
        run_check_translate(&b, 64); /* warm */
        run_floor(&b, 64);
        tpt_count_library(&b);
        tpt_count_floor(&b);
        if (b.failures != 0 || b.sgl.count != 2)
            bench_skip("tpt_count", "a check/translate failed");
        else
            printf("bench: tpt_count ran %u check-and-translates of the "
                   "library and of the floor (tests/bench/count_qp.sh counts "
                   "their instructions)\n", COUNT_OPS);
        return;
    }
    t_tpt = bench_measure(run_check_translate, &b);
    if (b.failures != 0 || b.sgl.count != 2) {
        printf("bench: tpt check/translate failed\n");
        return;
    }
    t_mem = bench_measure(run_memcpy256, NULL);
    bench_report("tpt_check_translate_4k", t_tpt * 1e9, "ns/op",
                 "memcpy 256 B", t_tpt / t_mem, "<=", 1.0);
    /* The floor must produce what the library produces for the same TO. */
    if (ofl_tpt_check_translate(&b.tpt, b.window, 7, 1, b.to + (7u << 12),
                                4096, OFL_TPT_REMOTE_WRITE, &b.sgl) != OFL_OK)
        b.failures++;
    want[0] = b.piece[0];
    want[1] = b.piece[1];
    floor_translate(&b.tpt, b.window, b.to + (7u << 12), 4096, &b.sgl);
    if (b.failures != 0 || b.sgl.count != 2 ||
        want[0].pa != b.piece[0].pa || want[0].len != b.piece[0].len ||
        want[1].pa != b.piece[1].pa || want[1].len != b.piece[1].len) {
        printf("bench: tpt floor translation differs from the library's\n");
        return;
    }
    t_floor = bench_measure(run_floor, &b);
    t_mem = bench_measure(run_memcpy256, NULL);
    bench_info("tpt_translate_floor_no_checks", t_floor * 1e9, "ns/op",
               "memcpy 256 B", t_floor / t_mem);
}
