/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The TPT's fast paths against its precise paths (issue 30): this file is
 * built twice by tests/check_fastpath_tpt.sh, once with the core as shipped
 * (FP_RUN = fp_tpt_run_fast: ofl_tpt_check_translate and _access take the
 * remote fast path, _local its local one, both the one- and two-page
 * straight line of the direct translation) and once with the core built
 * with OFL_NO_FAST_PATH (FP_RUN = fp_tpt_run_gen: every remote check goes
 * to the precise path, tpt_check_remote then ofl_tpt_translate); each copy
 * is linked into one object that exports FP_RUN alone, and
 * diff_tpt_main.c runs both on the same seeds and compares the digests.
 *
 * One run: a table (16 or 64 entries, standard or windows-only policy)
 * with regions over direct ATTs (4 KiB or 8 KiB pages, a first-page
 * offset or none, zero-based or not, pages scattered or contiguous, some
 * absent or with a reserved bit set), over an indirect ATT (lists read
 * through a port), a physical region and an iSCSI entry; type 1 and type 2
 * windows bound over parts of them. Then a few thousand accesses, each
 * drawn from: an STag of the table (its key right or off by one), one
 * past the table, index 0, or random; its PD or another; its QP or
 * another; a TO at, before, inside or at the end of the entry's range, or
 * near 2^64; lengths 0, 1, a page, a page and one, large, or up to the
 * TO wrap; every need (0, each right, local rights, combinations); and an
 * SGL that is NULL, has no pieces, or has 0 to 8 of them. Between
 * accesses: an entry invalidated, deregistered and registered again (new
 * generation), a window rebound, a page word changed; and an entry's
 * fields changed in place (key, state, PD, rights, flags, a shorter
 * length, generation, QP, a region's ATT kind or type, a window's region)
 * and restored after a few accesses. Calls: ofl_tpt_check_translate,
 * ofl_tpt_check_translate_access (remote) and
 * ofl_tpt_check_translate_local. The digest takes in every
 * return code, the SGL's count, bytes and pieces and its fault VA: it must
 * be the same for both builds, error class by error class (the digest
 * also counts the error codes seen, and the main program reports them).
 * Built with -DFP_TRACE, a run prints each access and its result, so that
 * the two builds' outputs can be diffed to find the first difference.
 */
#include <stdint.h>
#include <string.h>

#include "offload.h"

#ifdef FP_TRACE
#include <stdio.h>
#endif

#ifndef FP_RUN
#define FP_RUN fp_tpt_run_fast
#endif

uint64_t FP_RUN(uint32_t seed, uint32_t *errs_seen);

#define DT_ENTRIES 64u
#define DT_ATT 512u
#define DT_PIECES 8u

struct dt_state {
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[DT_ENTRIES];
    uint64_t att[DT_ATT];
    uint64_t list[2][512]; /* indirect lists, read through the port */
    struct ofl_port port;
    uint32_t stag[DT_ENTRIES]; /* STags handed out, 0: none */
    uint32_t pd[DT_ENTRIES];
    uint32_t qp[DT_ENTRIES];
    uint32_t n;
    uint32_t s; /* random state */
};

static uint64_t dt_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xFF51AFD7ED558CCDull;
}

static uint32_t dt_rnd(struct dt_state *t)
{
    uint32_t x = t->s;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    t->s = x;
    return x;
}

static uint64_t dt_rnd64(struct dt_state *t)
{
    uint64_t hi = dt_rnd(t);

    return hi << 32 | dt_rnd(t);
}

/* The port reads indirect lists from t->list by address. */
static int dt_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    struct dt_state *t = ctx;
    uint64_t base = (uint64_t)(uintptr_t)t->list;

    if (pa < base || pa - base > sizeof(t->list) ||
        len > sizeof(t->list) - (pa - base))
        return -1;
    memcpy(dst, (const uint8_t *)t->list + (pa - base), len);
    return 0;
}

static void dt_keep(struct dt_state *t, uint32_t stag, uint32_t pd,
                    uint32_t qp)
{
    if (t->n < DT_ENTRIES) {
        t->stag[t->n] = stag;
        t->pd[t->n] = pd;
        t->qp[t->n] = qp;
        t->n++;
    }
}

/* A page word for page i of a region: scattered or contiguous physical
 * pages, now and then absent or with a reserved bit. */
static uint64_t dt_page(struct dt_state *t, uint32_t shift, uint32_t i,
                        bool scatter)
{
    uint64_t pa = 0x40000000ull + ((uint64_t)(scatter ? i * 3u : i) << shift);
    uint32_t k = dt_rnd(t) % 16;

    if (k == 0)
        return 0; /* absent */
    if (k == 1)
        return pa | OFL_TPT_ATT_PRESENT | 0x10; /* reserved bit */
    return pa | OFL_TPT_ATT_PRESENT;
}

static void dt_regions(struct dt_state *t, uint32_t *att_next)
{
    uint32_t i, j;

    for (i = 0; i < 6; i++) {
        struct ofl_tpt_region_desc d;
        uint64_t pages[16];
        uint32_t shift = dt_rnd(t) % 3 == 0 ? 13 : 12;
        uint32_t np = 1 + dt_rnd(t) % 8, stag, pd = 1 + dt_rnd(t) % 2;
        bool scatter = dt_rnd(t) & 1;

        if (*att_next + np > DT_ATT)
            break;
        memset(&d, 0, sizeof(d));
        d.page_shift = (uint8_t)shift;
        d.fpo = dt_rnd(t) % 3 == 0 ? dt_rnd(t) % (1u << shift) : 0;
        d.va = (dt_rnd(t) % 5 == 0 ? 0xFFFFFFFFFFF00000ull : 0x7f0000000000ull) +
               ((uint64_t)dt_rnd(t) << 12) + d.fpo;
        d.len = ((uint64_t)np << shift) - d.fpo - dt_rnd(t) % 100;
        d.att_base = *att_next;
        d.access = (uint8_t)(dt_rnd(t) & OFL_TPT_ACCESS_ALL);
        if (d.access & (OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC))
            d.access |= OFL_TPT_LOCAL_WRITE;
        d.flags = (uint8_t)(dt_rnd(t) % 4 == 0 ? OFL_TPT_F_ZERO_BASED : 0) |
                  (uint8_t)(dt_rnd(t) % 4 == 0 ? OFL_TPT_F_INVALIDATABLE : 0);
        for (j = 0; j < np; j++)
            pages[j] = dt_page(t, shift, *att_next + j, scatter) &
                       ~(uint64_t)0xFFF;
        if (ofl_tpt_reg_pages(&t->tpt, pd, &d, pages, np, &stag) == OFL_OK) {
            /* page words with faults and reserved bits, over the pages */
            for (j = 0; j < np; j++)
                t->att[*att_next + j] = dt_page(t, shift, *att_next + j,
                                                scatter);
            dt_keep(t, stag, pd, 0);
            *att_next += np;
        }
    }
}

static void dt_indirect(struct dt_state *t, uint32_t *att_next)
{
    struct ofl_tpt_region_desc d;
    uint32_t stag, j;

    if (*att_next + 1 > DT_ATT ||
        ofl_tpt_alloc(&t->tpt, OFL_TPT_REGION, 1, 0, &stag) != OFL_OK)
        return;
    for (j = 0; j < 16; j++)
        t->list[0][j] = dt_page(t, 12, j, true);
    t->att[*att_next] = (uint64_t)(uintptr_t)t->list[0] | OFL_TPT_ATT_PRESENT;
    memset(&d, 0, sizeof(d));
    d.va = 0x600000000000ull;
    d.len = 16u * 4096u;
    d.att_base = *att_next;
    d.att_count = 1;
    d.page_shift = 12;
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE |
               OFL_TPT_BIND_WINDOW;
    if (ofl_tpt_register(&t->tpt, stag, 1, &d) == OFL_OK) {
        dt_keep(t, stag, 1, 0);
        *att_next += 1;
    }
}

static void dt_others(struct dt_state *t)
{
    struct ofl_tpt_region_desc d;
    uint32_t stag;

    if (ofl_tpt_reg_physical(&t->tpt, 1, OFL_TPT_LOCAL_WRITE, &stag) ==
        OFL_OK)
        dt_keep(t, stag, 1, 0);
    if (ofl_tpt_alloc(&t->tpt, OFL_TPT_ISCSI, 2, 0, &stag) == OFL_OK) {
        memset(&d, 0, sizeof(d));
        d.va = 77;
        d.len = 8192;
        d.page_shift = 12;
        d.att_base = DT_ATT - 2;
        d.att_count = 2;
        d.access = OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE |
                   OFL_TPT_LOCAL_WRITE;
        t->att[DT_ATT - 2] = 0x50000000ull | OFL_TPT_ATT_PRESENT;
        t->att[DT_ATT - 1] = 0x50001000ull | OFL_TPT_ATT_PRESENT;
        if (ofl_tpt_register_iscsi(&t->tpt, stag, 2, 5, &d) == OFL_OK)
            dt_keep(t, stag, 2, 5);
    }
}

/* Windows over the regions kept so far (regions with BIND_WINDOW only
 * bind; the others fail and are not kept). */
static void dt_windows(struct dt_state *t)
{
    uint32_t i, nreg = t->n;

    for (i = 0; i < 8 && nreg != 0; i++) {
        uint32_t k = dt_rnd(t) % nreg, w, bound, qp = 1 + dt_rnd(t) % 3;
        uint8_t flags = dt_rnd(t) & 1 ? OFL_TPT_F_TYPE2 : 0;
        struct ofl_tpt_info info;
        uint64_t va, len;

        if (ofl_tpt_query(&t->tpt, t->stag[k], &info) != OFL_OK ||
            ofl_tpt_alloc(&t->tpt, OFL_TPT_WINDOW, t->pd[k], flags, &w) !=
                OFL_OK)
            continue;
        va = info.va + dt_rnd(t) % (info.len / 2 + 1);
        len = dt_rnd(t) % (info.len - (va - info.va) + 1);
        if ((info.flags & OFL_TPT_F_ZERO_BASED) != 0)
            va -= info.va;
        if (ofl_tpt_bind(&t->tpt, w, t->stag[k], t->pd[k], qp, va, len,
                         (uint8_t)(dt_rnd(t) & OFL_TPT_ACCESS_REMOTE),
                         (uint8_t)(dt_rnd(t) % 4 == 0 ? OFL_TPT_F_ZERO_BASED
                                                       : 0),
                         &bound) == OFL_OK)
            dt_keep(t, bound, t->pd[k], qp);
    }
}

static uint64_t dt_to(struct dt_state *t, const struct ofl_tpt_entry *e)
{
    uint64_t base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;

    switch (dt_rnd(t) % 16) {
    case 0: return base;
    case 1: return base - 1 - dt_rnd(t) % 8;
    case 2: return base + e->len;
    case 3: return base + e->len - dt_rnd(t) % 64;
    case 4: return 0xFFFFFFFFFFFFFFFFull - dt_rnd(t) % 8192;
    case 5: return dt_rnd64(t);
    default: return base + (e->len ? dt_rnd64(t) % e->len : 0);
    }
}

static uint64_t dt_len(struct dt_state *t, const struct ofl_tpt_entry *e,
                       uint64_t to)
{
    uint64_t base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
    uint64_t left = base + e->len - to; /* when to is in range */

    if (dt_rnd(t) % 2 == 0 && to >= base && to - base < e->len)
        return 1 + dt_rnd64(t) % (left < 2 * 4096u ? left : 2 * 4096u);
    switch (dt_rnd(t) % 14) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 4096;
    case 3: return 4097;
    case 4: return 8192;
    case 5: return 0ull - to; /* ends exactly at 2^64 */
    case 6: return 0ull - to + 1;
    case 7: return dt_rnd64(t);
    case 8: return 1 + dt_rnd(t) % 9000;
    default: return 1 + dt_rnd(t) % 4096;
    }
}

static uint8_t dt_need(struct dt_state *t, bool remote)
{
    static const uint8_t good[2][4] = {
        {OFL_TPT_LOCAL_READ, OFL_TPT_LOCAL_WRITE,
         OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE, OFL_TPT_LOCAL_READ},
        {OFL_TPT_REMOTE_READ, OFL_TPT_REMOTE_WRITE,
         OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE, OFL_TPT_REMOTE_ATOMIC}};

    static const uint8_t needs[] = {
        0, OFL_TPT_REMOTE_READ, OFL_TPT_REMOTE_WRITE, OFL_TPT_REMOTE_ATOMIC,
        OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE, OFL_TPT_LOCAL_READ,
        OFL_TPT_LOCAL_WRITE, OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE,
        OFL_TPT_BIND_WINDOW, OFL_TPT_REMOTE_WRITE | OFL_TPT_LOCAL_READ,
        0x40, 0x80};

    if (dt_rnd(t) % 4 != 0) /* mostly a need the call may ask for */
        return good[remote][dt_rnd(t) % 4];
    if (dt_rnd(t) % 16 == 0)
        return (uint8_t)dt_rnd(t);
    return needs[dt_rnd(t) % (sizeof(needs) / sizeof(needs[0]))];
}

/* An entry's field changed in place (kept by the caller, restored later).
 * Only changes that keep the table's own invariants (a window inside its
 * region, a region's range inside its pages), which the precise path
 * relies on: key, state, PD, rights, flags other than zero-based, a
 * shorter length, the generation, the QP, a direct region's ATT kind or
 * a region's type
 * (region or iSCSI), a window's region index out of the table. */
static void dt_mutate(struct dt_state *t, struct ofl_tpt_entry *e)
{
    static const uint8_t flag[] = {OFL_TPT_F_ONE_TOUCH, OFL_TPT_F_TOUCHED,
                                   OFL_TPT_F_ONE_SHOT, OFL_TPT_F_INVALIDATABLE,
                                   OFL_TPT_F_TYPE2};
    bool window = e->type == OFL_TPT_WINDOW;

    switch (dt_rnd(t) % 11) {
    case 0: e->key ^= (uint8_t)(1u << dt_rnd(t) % 8); break;
    case 1: e->state = (uint8_t)(dt_rnd(t) % 3); break;
    case 2: e->pd ^= 1; break;
    case 3: e->access = (uint8_t)dt_rnd(t); break;
    case 4: e->flags ^= flag[dt_rnd(t) % 5]; break;
    case 5: e->len = e->len ? dt_rnd64(t) % e->len : 0; break;
    case 6:
        if (window)
            e->region_gen++;
        else
            e->gen++;
        break;
    case 7: e->qp = dt_rnd(t) % 4; break;
    case 8:
        if (window)
            e->region = dt_rnd(t) % 2 ? 0 : t->tpt.capacity;
        else if (e->att_kind == OFL_TPT_ATT_DIRECT) /* a physical one has
                                                       no ATT to use */
            e->att_kind = (uint8_t)(dt_rnd(t) % 2 ? OFL_TPT_ATT_PHYSICAL
                                                   : OFL_TPT_ATT_INDIRECT1);
        break;
    case 9:
        if (!window)
            e->type = e->type == OFL_TPT_REGION ? OFL_TPT_ISCSI
                                                : OFL_TPT_REGION;
        break;
    default: e->access &= (uint8_t)~(1u << dt_rnd(t) % 6); break;
    }
}

/* One access through one of the three entry points. */
static uint64_t dt_access(struct dt_state *t, uint64_t h, uint32_t *errs)
{
    struct ofl_tpt_piece piece[DT_PIECES];
    struct ofl_tpt_sgl sgl, *sp = &sgl;
    uint32_t k = t->n ? dt_rnd(t) % t->n : 0, stag, pd, qp, i;
    const struct ofl_tpt_entry *e;
    uint64_t to, len;
    uint32_t call = dt_rnd(t) % 3;
    uint8_t need = dt_need(t, call != 2);
    enum ofl_err err;

    stag = t->n ? t->stag[k] : 0;
    switch (dt_rnd(t) % 16) {
    case 0: stag ^= 1; break;                                   /* key */
    case 1: stag = ofl_stag_make(t->tpt.capacity, 0); break;    /* past */
    case 2: stag = ofl_stag_make(0, (uint8_t)stag); break;      /* index 0 */
    case 3: stag = dt_rnd(t); break;
    default: break;
    }
    pd = t->n ? t->pd[k] : 1;
    if (dt_rnd(t) % 10 == 0)
        pd ^= 3;
    qp = t->n ? t->qp[k] : 1;
    if (dt_rnd(t) % 6 == 0)
        qp = dt_rnd(t) % 4;
    e = &t->tpt.entry[ofl_stag_index(stag) < t->tpt.capacity
                          ? ofl_stag_index(stag)
                          : 0];
    to = dt_to(t, e);
    len = dt_len(t, e, to);
    for (i = 0; i < DT_PIECES; i++) {
        piece[i].pa = 0xA5A5A5A5A5A5A5A5ull + i;
        piece[i].len = 0x5A5A5A5Au;
    }
    sgl.piece = piece;
    sgl.cap = dt_rnd(t) % 4 ? 2 + dt_rnd(t) % (DT_PIECES - 1)
                            : dt_rnd(t) % 2;
    sgl.count = 77;
    sgl.bytes = 7777;
    sgl.fault_va = 0x1234;
    switch (dt_rnd(t) % 40) {
    case 0: sp = NULL; break;
    case 1: sgl.piece = NULL; sgl.cap = 0; break;
    case 2: sgl.piece = NULL; break;
    default: break;
    }
    switch (call) {
    case 0:
        err = ofl_tpt_check_translate(&t->tpt, stag, pd, qp, to, len, need,
                                      sp);
        break;
    case 1: {
        struct ofl_tpt_remote a;

        a.to = to;
        a.len = len;
        a.stag = stag;
        a.pd = pd;
        a.qp = qp;
        a.need = need;
        err = ofl_tpt_check_translate_access(&t->tpt, &a, sp);
        break;
    }
    default: {
        struct ofl_tpt_local a;

        a.va = to;
        a.len = len;
        a.stag = stag;
        a.pd = pd;
        a.need = need;
        err = ofl_tpt_check_translate_local(&t->tpt, &a, sp);
        break;
    }
    }
#ifdef FP_TRACE
    printf("%08x pd %u qp %u to %016llx len %llx need %02x sgl %d cap %u: "
           "err %#x count %u bytes %llx fault %llx\n",
           (unsigned)stag, (unsigned)pd, (unsigned)qp, (unsigned long long)to,
           (unsigned long long)len, need, sp ? (sgl.piece != NULL) : -1,
           (unsigned)sgl.cap, (unsigned)err, (unsigned)sgl.count,
           (unsigned long long)sgl.bytes, (unsigned long long)sgl.fault_va);
#endif
    if ((uint32_t)err < 0x10000u)
        errs[err]++; /* errs_seen[0x10000] */
    h = dt_mix(h, (uint64_t)err);
    if (sp != NULL) {
        h = dt_mix(h, sgl.count);
        h = dt_mix(h, sgl.bytes);
        h = dt_mix(h, sgl.fault_va);
        for (i = 0; i < sgl.count && i < DT_PIECES; i++) {
            h = dt_mix(h, piece[i].pa);
            h = dt_mix(h, piece[i].len);
        }
    }
    return h;
}

/* A verb between accesses: invalidate, deregister and register again,
 * rebind a window, change a page word. */
static void dt_verb(struct dt_state *t, uint32_t *att_next)
{
    uint32_t k = t->n ? dt_rnd(t) % t->n : 0;

    if (t->n == 0)
        return;
    switch (dt_rnd(t) % 4) {
    case 0:
        (void)ofl_tpt_invalidate_local(&t->tpt, t->stag[k], t->pd[k]);
        break;
    case 1:
        if (ofl_tpt_dereg(&t->tpt, t->stag[k], t->pd[k]) == OFL_OK) {
            t->stag[k] = t->stag[--t->n];
            t->pd[k] = t->pd[t->n];
            t->qp[k] = t->qp[t->n];
            dt_regions(t, att_next);
        }
        break;
    case 2:
        dt_windows(t);
        break;
    default:
        if (*att_next != 0)
            t->att[dt_rnd(t) % *att_next] =
                dt_page(t, 12, dt_rnd(t) % 64, true);
        break;
    }
}

uint64_t FP_RUN(uint32_t seed, uint32_t *errs_seen)
{
    static struct dt_state t;
    struct ofl_tpt_entry keep;
    uint32_t att_next = 0, i, mut = 0, mut_left = 0;
    uint64_t h = seed;

    memset(&t, 0, sizeof(t));
    t.s = seed * 2654435761u | 1u;
    t.port.version = OFL_PORT_VERSION;
    t.port.size = sizeof(t.port);
    t.port.ctx = &t;
    t.port.dma_read = dt_dma_read;
    if (ofl_tpt_init(&t.tpt, t.entry, dt_rnd(&t) % 2 ? 16 : DT_ENTRIES,
                     t.att, DT_ATT, &t.port,
                     dt_rnd(&t) % 4 ? OFL_TPT_POLICY_STANDARD
                                    : OFL_TPT_POLICY_WINDOWS_ONLY) != OFL_OK)
        return 0;
    dt_regions(&t, &att_next);
    dt_indirect(&t, &att_next);
    dt_others(&t);
    dt_windows(&t);
    h = dt_mix(h, t.n);
    for (i = 0; i < 3000; i++) {
        uint32_t r = dt_rnd(&t) % 64;

        if (r == 0 && mut_left == 0) {
            dt_verb(&t, &att_next);
        } else if (r == 1 && mut_left == 0 && t.n != 0) {
            mut = ofl_stag_index(t.stag[dt_rnd(&t) % t.n]);
            keep = t.entry[mut];
            dt_mutate(&t, &t.entry[mut]);
            mut_left = 1 + dt_rnd(&t) % 40;
        }
        h = dt_access(&t, h, errs_seen);
        if (mut_left != 0 && --mut_left == 0)
            t.entry[mut] = keep;
    }
    return h;
}
