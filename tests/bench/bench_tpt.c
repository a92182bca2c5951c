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

/*
 * The same walk with the checks: a reference, written here, of the least a
 * check-and-translate of this access can do. It makes the tests the
 * library's fast path makes for a window over a region with a direct ATT
 * (FIG. 18A a-f: index, key, PD, bounds with no TO wrap, remote rights,
 * type and state, zero-based and type 2 flags; the region's index, type,
 * state, ATT kind, zero-based flag, generation and PD; both page words
 * present and aligned), each once and plainly, with no diagnosis (any
 * failure is -1) and nothing the library also does for other accesses
 * (NULL arguments, one page, contiguous pages merged, other entry types:
 * such an access returns -1 here). It is not the library's code and not a
 * usable check: it exists so that the count can say what the checks
 * themselves cost on this compiler (tests/bench/count_qp.sh prints it as
 * information beside the floor). OFL_BENCH(tpt) holds it to the
 * library's answers on the bench's access and on one failure of each
 * test.
 */
static __attribute__((noinline)) int
ref_checked_translate(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                      uint32_t qp, uint64_t to, uint64_t len, uint8_t need,
                      struct ofl_tpt_sgl *sgl)
{
    uint32_t i = ofl_stag_index(stag), ri;
    const struct ofl_tpt_entry *w, *r;
    const uint64_t *att;
    uint64_t end, pmask, pos, in, first, p0, p1;

    if (i - 1u >= tpt->capacity - 1u || need == 0 ||
        __builtin_add_overflow(to, len, &end))
        return -1;
    w = &tpt->entry[i];
    if (w->key != ofl_stag_key(stag) || w->pd != pd || to < w->va ||
        end - w->va > w->len ||
        (need & ~(w->access & OFL_TPT_ACCESS_REMOTE)) != 0 ||
        w->type != OFL_TPT_WINDOW || w->state != OFL_TPT_VALID ||
        (w->flags & OFL_TPT_F_ZERO_BASED) != 0 ||
        ((w->flags & OFL_TPT_F_TYPE2) != 0 && w->qp != qp))
        return -1;
    ri = w->region;
    if (ri - 1u >= tpt->capacity - 1u)
        return -1;
    r = &tpt->entry[ri];
    if (r->type != OFL_TPT_REGION || r->state != OFL_TPT_VALID ||
        r->att_kind != OFL_TPT_ATT_DIRECT ||
        (r->flags & OFL_TPT_F_ZERO_BASED) != 0 || r->gen != w->region_gen ||
        r->pd != pd)
        return -1;
    att = tpt->att + r->att_base;
    pmask = ((uint64_t)1 << r->page_shift) - 1;
    pos = to - r->va + r->fpo;
    in = pos & pmask;
    first = pmask + 1 - in;
    if (len - 1 > pmask || len <= first || sgl->cap < 2)
        return -1; /* not two pages: the reference does not do it */
    /* a page word less PRESENT is the page's address when it is usable */
    p0 = att[pos >> r->page_shift] - OFL_TPT_ATT_PRESENT;
    p1 = att[(pos >> r->page_shift) + 1] - OFL_TPT_ATT_PRESENT;
    if ((p0 & pmask) != 0 || (p1 & pmask) != 0 || p0 + pmask + 1 == p1)
        return -1; /* contiguous pages: the reference does not merge */
    sgl->piece[0].pa = p0 + in;
    sgl->piece[0].len = (uint32_t)first;
    sgl->piece[1].pa = p1;
    sgl->piece[1].len = (uint32_t)(len - first);
    sgl->count = 2;
    sgl->bytes = len;
    return 0;
}

static void run_checked_reference(void *ctx, uint64_t n)
{
    struct tpt_bench *b = ctx;
    uint64_t i;

    for (i = 0; i < n; i++) {
        uint64_t to = b->to + ((i & 7) << 12);

        if (ref_checked_translate(&b->tpt, b->window, 7, 1, to, 4096,
                                  OFL_TPT_REMOTE_WRITE, &b->sgl) != 0)
            b->failures++;
        bench_escape(b->piece);
    }
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

static BENCH_COUNT_FN void tpt_count_checked_reference(struct tpt_bench *b)
{
    run_checked_reference(b, COUNT_OPS);
    bench_sink = 3;
}

/*
 * Holds ref_checked_translate to the library: the same two pieces for the
 * bench's access, and a refusal wherever the library refuses, for one
 * failure of each of its tests (an entry's field changed for the call and
 * put back). Returns the number of disagreements.
 */
static unsigned checked_reference_agrees(struct tpt_bench *b)
{
    struct ofl_tpt_entry *w = &b->tpt.entry[ofl_stag_index(b->window)];
    struct ofl_tpt_entry *r = &b->tpt.entry[w->region];
    struct ofl_tpt_piece want[2];
    unsigned bad = 0, k;
    int lib_ok, ref_ok;

    if (ofl_tpt_check_translate(&b->tpt, b->window, 7, 1, b->to, 4096,
                                OFL_TPT_REMOTE_WRITE, &b->sgl) != OFL_OK)
        return 1;
    want[0] = b->piece[0];
    want[1] = b->piece[1];
    if (ref_checked_translate(&b->tpt, b->window, 7, 1, b->to, 4096,
                              OFL_TPT_REMOTE_WRITE, &b->sgl) != 0 ||
        b->sgl.count != 2 || want[0].pa != b->piece[0].pa ||
        want[0].len != b->piece[0].len || want[1].pa != b->piece[1].pa ||
        want[1].len != b->piece[1].len)
        bad++;
    for (k = 0; k < 16; k++) {
        struct ofl_tpt_entry sw = *w, sr = *r;
        uint32_t stag = b->window, pd = 7, qp = 1;
        uint64_t to = b->to, len = 4096;
        uint8_t need = OFL_TPT_REMOTE_WRITE;

        switch (k) {
        case 0: stag ^= 1; break;                          /* a key */
        case 1: stag &= 0xff; break;                       /* index 0 */
        case 2: pd = 8; break;                             /* c */
        case 3: to = w->va - 1; break;                     /* e */
        case 4: to = w->va + w->len - 4095; break;         /* e */
        case 5: to = UINT64_MAX - 100; break;              /* TO wrap */
        case 6: need = OFL_TPT_REMOTE_READ; break;         /* f */
        case 7: need = 0; break;
        case 8: w->state = OFL_TPT_INVALID; break;         /* b */
        case 9: w->flags |= OFL_TPT_F_TYPE2; w->qp = 2; break;
        case 10: w->region = 0; break;
        case 11: r->state = OFL_TPT_INVALID; break;
        case 12: r->gen++; break;
        case 13: r->pd = 8; break;
        case 14: b->tpt.att[r->att_base + 1] &= ~(uint64_t)OFL_TPT_ATT_PRESENT;
                 break;
        default: r->type = OFL_TPT_WINDOW; break;
        }
        lib_ok = ofl_tpt_check_translate(&b->tpt, stag, pd, qp, to, len,
                                         need, &b->sgl) == OFL_OK;
        ref_ok = ref_checked_translate(&b->tpt, stag, pd, qp, to, len, need,
                                       &b->sgl) == 0;
        if (lib_ok || ref_ok)
            bad++;
        *w = sw;
        *r = sr;
        b->tpt.att[r->att_base + 1] |= OFL_TPT_ATT_PRESENT;
    }
    return bad;
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
        run_checked_reference(&b, 64);
        tpt_count_library(&b);
        tpt_count_floor(&b);
        tpt_count_checked_reference(&b);
        if (b.failures != 0 || b.sgl.count != 2)
            bench_skip("tpt_count", "a check/translate failed");
        else if (checked_reference_agrees(&b) != 0)
            bench_skip("tpt_count", "the checked reference disagrees with "
                                    "the library");
        else
            printf("bench: tpt_count ran %u check-and-translates of the "
                   "library, of the floor and of the checked reference "
                   "(tests/bench/count_qp.sh counts their instructions)\n",
                   COUNT_OPS);
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
