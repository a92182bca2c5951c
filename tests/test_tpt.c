/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * tpt: the memory translation and protection table.
 *
 * Rules from seed 000 (FIG. 11-15 registration, the memory region/window
 * table of FIG. 13, local checks a-g of FIG. 15, remote checks a-f of
 * FIG. 18A) and seed 001 ("Remote Memory Protection": AllocateRKey,
 * BindRKey, UnbindRKey, DeallocateRKey, one-shot RKeys; "Local Memory
 * Protection": MapLocalPage and the page fault). Terminate causes are the
 * IANA RDDP registry's values (RFC 5040 / RFC 5041 §7), written here as
 * numbers so that the header's enums are checked too.
 *
 * Direct ATTs hold fake physical addresses (the TPT never dereferences a
 * page). Indirect lists live in test memory and are read through the sim
 * port, which allows exactly the list memory: every test ends by asserting
 * that the guard saw no stray DMA.
 */
#include "test.h"
#include "ports/sim/ofl_sim.h"

#define T_CAP 16u
#define T_ATT 64u
#define PSZ 0x1000u
#define PRES OFL_TPT_ATT_PRESENT
#define U64MAX (~(uint64_t)0)
/* Fake physical page n (4 KiB pages above 4 GiB). */
#define PG(n) (0x100000000ull + (uint64_t)(n) * PSZ)

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define RA OFL_TPT_REMOTE_ATOMIC
#define BW OFL_TPT_BIND_WINDOW
#define STD OFL_TPT_POLICY_STANDARD
#define WONLY OFL_TPT_POLICY_WINDOWS_ONLY
#define IQP 5u /* the QP whose commands register the iSCSI entries */

struct fx {
    struct ofl_tpt t;
    struct ofl_tpt_entry e[T_CAP];
    uint64_t att[T_ATT];
    struct ofl_sim sim;
};

static struct fx F;

/* Host-memory ATT lists for the indirect tests (512 little-endian words). */
static _Alignas(4096) uint8_t g_list[6][4096];

static void fx_init(enum ofl_tpt_policy pol)
{
    memset(&F, 0, sizeof(F));
    ofl_sim_init(&F.sim);
    CHECK_OK(ofl_tpt_init(&F.t, F.e, T_CAP, F.att, T_ATT, &F.sim.port, pol));
}

static struct ofl_tpt_region_desc mkdesc(uint64_t va, uint64_t len,
                                         uint32_t base, uint32_t count,
                                         uint8_t access)
{
    struct ofl_tpt_region_desc d;

    memset(&d, 0, sizeof(d));
    d.va = va;
    d.len = len;
    d.att_base = base;
    d.att_count = count;
    d.fpo = 0;
    d.page_shift = 12;
    d.att_kind = OFL_TPT_ATT_DIRECT;
    d.access = access;
    d.flags = 0;
    return d;
}

/* Writes n present page words first, first + stride, ... at ATT slot base. */
static void put_pages(uint32_t base, uint32_t n, uint64_t first,
                      uint64_t stride)
{
    uint64_t w[T_ATT];
    uint32_t i;

    for (i = 0; i < n; i++)
        w[i] = (first + i * stride) | PRES;
    CHECK_OK(ofl_tpt_att_write(&F.t, base, w, n));
}

/* Allocates and registers a region (or iSCSI entry, of QP IQP) under
 * pd. */
static uint32_t reg(enum ofl_tpt_type type, uint32_t pd,
                    const struct ofl_tpt_region_desc *d)
{
    uint32_t s = 0;

    CHECK_OK(ofl_tpt_alloc(&F.t, type, pd, 0, &s));
    if (type == OFL_TPT_ISCSI)
        CHECK_OK(ofl_tpt_register_iscsi(&F.t, s, pd, IQP, d));
    else
        CHECK_OK(ofl_tpt_register(&F.t, s, pd, d));
    return s;
}

/* Allocates a window and binds it; returns the STag to advertise. */
static uint32_t win(uint32_t region, uint32_t pd, bool type2, uint32_t qp,
                    uint64_t va, uint64_t len, uint8_t access, uint8_t flags)
{
    uint32_t w = 0, b = 0;

    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, pd,
                           type2 ? OFL_TPT_F_TYPE2 : 0, &w));
    CHECK_OK(ofl_tpt_bind(&F.t, w, region, pd, qp, va, len, access, flags,
                          &b));
    return b;
}

/* The STag with the next key: what a consumer presents to fast-register an
 * index again (ofl_tpt_register). */
static uint32_t rekey(uint32_t stag)
{
    return ofl_stag_make(ofl_stag_index(stag), (uint8_t)(ofl_stag_key(stag) + 1));
}

static uint8_t state_of(uint32_t stag)
{
    struct ofl_tpt_info info;

    memset(&info, 0xEE, sizeof(info));
    if (ofl_tpt_query(&F.t, stag, &info) != OFL_OK)
        return 0xFF;
    return info.state;
}

/* An STag with the same index and another key. */
static uint32_t other_key(uint32_t stag)
{
    return ofl_stag_make(ofl_stag_index(stag), (uint8_t)(ofl_stag_key(stag) + 1));
}

/* One translation into an sgl of cap pieces. */
static struct ofl_tpt_piece g_pc[16];
static struct ofl_tpt_sgl g_sgl;

/* Fills the shared list with markers: nothing beyond cap may change. */
static void sgl_reset(uint32_t cap)
{
    memset(g_pc, 0xCC, sizeof(g_pc));
    g_sgl.piece = g_pc;
    g_sgl.cap = cap;
    g_sgl.count = 0xDEAD;
    g_sgl.bytes = 0xDEAD;
    g_sgl.fault_va = 0;
}

static enum ofl_err xlate(uint32_t stag, uint64_t to, uint64_t len,
                          uint32_t cap)
{
    sgl_reset(cap);
    return ofl_tpt_translate(&F.t, stag, to, len, &g_sgl);
}

/* Local check + translation in one call (the fast path for a direct ATT)
 * into the same list as xlate. */
static enum ofl_err xlate_local(uint32_t stag, uint64_t va, uint64_t len,
                                uint32_t cap)
{
    struct ofl_tpt_local a;

    sgl_reset(cap);
    a.va = va;
    a.len = len;
    a.stag = stag;
    a.pd = 1;
    a.need = OFL_TPT_LOCAL_READ;
    return ofl_tpt_check_translate_local(&F.t, &a, &g_sgl);
}


#define CHECK_PIECE(i, a, l)                                                 \
    do {                                                                     \
        CHECK_EQ(g_pc[i].pa, (a));                                           \
        CHECK_EQ(g_pc[i].len, (l));                                          \
    } while (0)

static void list_put(int k, uint32_t i, uint64_t word)
{
    ofl_store_le64(&g_list[k][i * 8u], word);
}
static uint64_t list_get(int k, uint32_t i)
{
    return ofl_load_le64(&g_list[k][i * 8u]);
}
static uint64_t list_pa(int k)
{
    return ofl_sim_pa(g_list[k]);
}

/* ------------------------------------------------------------------------ */

static void test_init(void)
{
    struct ofl_tpt t;
    struct ofl_tpt_entry e[4];
    uint64_t att[4];
    uint32_t s = 0;

    CHECK_ERR(ofl_tpt_init(NULL, e, 4, att, 4, NULL, STD), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_init(&t, NULL, 4, att, 4, NULL, STD), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_init(&t, e, 0, att, 4, NULL, STD), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_init(&t, e, 1, att, 4, NULL, STD), OFL_E_ARG);
    /* The size check comes before the entries are touched. */
    CHECK_ERR(ofl_tpt_init(&t, e, OFL_TPT_MAX_ENTRIES + 1, att, 4, NULL, STD),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_init(&t, e, 4, NULL, 4, NULL, STD), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_init(&t, e, 4, att, 4, NULL, (enum ofl_tpt_policy)2),
              OFL_E_ARG);
    CHECK_OK(ofl_tpt_init(&t, e, 4, NULL, 0, NULL, WONLY));
    CHECK_EQ(t.policy, WONLY);

    /* Garbage in the caller's array is wiped: nothing is allocated. */
    memset(e, 0xAB, sizeof(e));
    CHECK_OK(ofl_tpt_init(&t, e, 2, att, 4, NULL, STD)); /* smallest table */
    CHECK_EQ(t.free_count, 1);
    CHECK_ERR(ofl_tpt_query(&t, ofl_stag_make(1, 0xAB), &(struct ofl_tpt_info){0}),
              OFL_E_TPT_INVALID_STAG);
    CHECK_OK(ofl_tpt_alloc(&t, OFL_TPT_REGION, 1, 0, &s));
    CHECK_EQ(ofl_stag_index(s), 1); /* index 0 is never handed out */
    CHECK_EQ(ofl_stag_key(s), 1);   /* keys start at 0 and are bumped */
    CHECK_ERR(ofl_tpt_alloc(&t, OFL_TPT_REGION, 1, 0, &s), OFL_E_TPT_FULL);
}

static void test_alloc_full(void)
{
    uint32_t s = 0, first = 0, again = 0, seen = 0, i;

    fx_init(STD);
    CHECK_ERR(ofl_tpt_alloc(NULL, OFL_TPT_REGION, 1, 0, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_alloc(&F.t, (enum ofl_tpt_type)3, 1, 0, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, OFL_TPT_F_TYPE2, &s),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_ISCSI, 1, OFL_TPT_F_TYPE2, &s),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, OFL_TPT_F_ONE_SHOT, &s),
              OFL_E_ARG);
    CHECK_EQ(F.t.free_count, T_CAP - 1); /* failures allocate nothing */

    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, OFL_TPT_F_TYPE2, &first));
    CHECK_EQ(state_of(first), OFL_TPT_INVALID);
    seen |= 1u << ofl_stag_index(first);
    for (i = 2; i < T_CAP; i++) {
        CHECK_OK(ofl_tpt_alloc(&F.t, i & 1 ? OFL_TPT_ISCSI : OFL_TPT_REGION, 1,
                               0, &s));
        seen |= 1u << ofl_stag_index(s);
    }
    CHECK_EQ(seen, 0xFFFEu); /* every index 1..15 exactly once, never 0 */
    CHECK_EQ(F.t.free_count, 0);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s), OFL_E_TPT_FULL);
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &s), OFL_E_TPT_FULL);

    /* Freeing one makes room; its index comes back with a new key. */
    CHECK_OK(ofl_tpt_dealloc(&F.t, first, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &again));
    CHECK_EQ(ofl_stag_index(again), ofl_stag_index(first));
    CHECK_EQ(ofl_stag_key(again), (uint8_t)(ofl_stag_key(first) + 1));
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s), OFL_E_TPT_FULL);

    /* Registering allocates too: a full table refuses it, and the ATT
     * words it would have used are left as they were. */
    {
        struct ofl_tpt_region_desc d = mkdesc(0x10000, PSZ, 0, 1, LR);
        uint64_t page = PG(1), before = F.att[0];

        CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, &page, 1, &s),
                  OFL_E_TPT_FULL);
        CHECK_EQ(F.att[0], before);
        CHECK_OK(ofl_tpt_dealloc(&F.t, again, 1));
        CHECK_OK(ofl_tpt_reg_pages(&F.t, 1, &d, &page, 1, &s));
        CHECK_EQ(F.att[0], PG(1) | PRES);
    }
}

/* A stale STag after dereg + re-registration, and after dealloc + alloc. */
static void test_stale_key(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2000, 0, 2, LR | LW | RR);
    struct ofl_tpt_info info;
    uint32_t old, s = 0, w = 0, b = 0;

    fx_init(STD);
    put_pages(0, 2, PG(0), PSZ);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    old = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_check_local(&F.t, old, 1, 0x10000, 0x2000, LR));
    CHECK_OK(ofl_tpt_dereg(&F.t, old, 1));
    CHECK_ERR(ofl_tpt_check_local(&F.t, old, 1, 0x10000, 1, LR),
              OFL_E_TPT_INVALID_STAG); /* FREE */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s));
    CHECK_EQ(ofl_stag_index(s), ofl_stag_index(old));
    CHECK_EQ(ofl_stag_key(s), (uint8_t)(ofl_stag_key(old) + 1));
    CHECK_OK(ofl_tpt_register(&F.t, s, 1, &d));

    /* Every verb refuses the old STag, the new one works. */
    CHECK_ERR(ofl_tpt_check_local(&F.t, old, 1, 0x10000, 1, LR),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, old, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(xlate(old, 0x10000, 1, 4), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_query(&F.t, old, &info), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_register(&F.t, old, 1, &d), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_dereg(&F.t, old, 1), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_dealloc(&F.t, old, 1), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, old, 1), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, old, 1, 0),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_expire(&F.t, old), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_note_use(&F.t, old, true), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_set_touched(&F.t, old, 1), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_map_page(&F.t, old, 0x10000, PG(9)),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_unmap_page(&F.t, old, 0x10000), OFL_E_TPT_KEY_MISMATCH);
    CHECK_EQ(state_of(s), OFL_TPT_VALID); /* none of that touched it */
    CHECK_OK(ofl_tpt_check_local(&F.t, s, 1, 0x10000, 0x2000, LR));
    CHECK_OK(ofl_tpt_check_remote(&F.t, s, 1, 0, 0x10000, 0x2000, RR));

    /* Dealloc + alloc bumps the key too; a window's key as well. */
    CHECK_OK(ofl_tpt_dereg(&F.t, s, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &w));
    CHECK_OK(ofl_tpt_dealloc(&F.t, w, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &b));
    CHECK_EQ(ofl_stag_index(b), ofl_stag_index(w));
    CHECK_EQ(ofl_stag_key(b), (uint8_t)(ofl_stag_key(w) + 1));
    CHECK_ERR(ofl_tpt_dealloc(&F.t, w, 1), OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_tpt_dealloc(&F.t, b, 1));
}

/* Index 0, index >= capacity, and an index that is FREE. */
static void test_invalid_index(void)
{
    const uint32_t bad[] = {
        ofl_stag_make(0, 0), ofl_stag_make(0, 1), ofl_stag_make(T_CAP, 1),
        ofl_stag_make(T_CAP + 1, 0), ofl_stag_make(0xFFFFFF, 0xFF),
        ofl_stag_make(7, 0) /* never allocated */
    };
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x1000, 0, 1, LR | BW);
    struct ofl_tpt_info info;
    uint32_t i, r, w = 0, b = 0, s = 0;

    fx_init(STD);
    put_pages(0, 1, PG(0), PSZ);
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &w));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint32_t x = bad[i];

        CHECK_ERR(ofl_tpt_check_local(&F.t, x, 1, 0x10000, 1, LR),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, x, 1, 0, 0x10000, 1, RR),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_check_iscsi(&F.t, x, 1, IQP, 0, 1, RR),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_register(&F.t, x, 1, &d), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_dereg(&F.t, x, 1), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_dealloc(&F.t, x, 1), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_bind(&F.t, x, r, 1, 0, 0x10000, 1, RR, 0, &b),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_bind(&F.t, w, x, 1, 0, 0x10000, 1, RR, 0, &b),
                  OFL_E_TPT_INVALID_STAG); /* as the region */
        CHECK_ERR(ofl_tpt_invalidate_local(&F.t, x, 1), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, x, 1, 0),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_expire(&F.t, x), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_note_use(&F.t, x, true), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_set_touched(&F.t, x, 1), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_query(&F.t, x, &info), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(xlate(x, 0x10000, 1, 4), OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_map_page(&F.t, x, 0x10000, PG(1)),
                  OFL_E_TPT_INVALID_STAG);
        CHECK_ERR(ofl_tpt_unmap_page(&F.t, x, 0x10000), OFL_E_TPT_INVALID_STAG);
    }
    /* Index 0 never matches, whatever its entry holds. */
    F.e[0] = F.e[ofl_stag_index(r)];
    CHECK_ERR(ofl_tpt_check_local(&F.t, ofl_stag_make(0, F.e[0].key), 1,
                                  0x10000, 1, LR),
              OFL_E_TPT_INVALID_STAG);
    /* The last index (capacity - 1) is usable. */
    while (ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s) == OFL_OK)
        if (ofl_stag_index(s) == T_CAP - 1)
            break;
    CHECK_EQ(ofl_stag_index(s), T_CAP - 1);
    CHECK_OK(ofl_tpt_register(&F.t, s, 1, &d));
    CHECK_OK(ofl_tpt_check_local(&F.t, s, 1, 0x10000, 1, LR));
    /* A NULL table is an argument error for every verb. */
    CHECK_ERR(ofl_tpt_check_local(NULL, s, 1, 0x10000, 1, LR), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_remote(NULL, s, 1, 0, 0x10000, 1, RR), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register(NULL, s, 1, &d), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_dereg(NULL, s, 1), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_query(NULL, s, &info), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_query(&F.t, s, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_write(NULL, 0, NULL, 0), OFL_E_ARG);
    g_sgl.piece = g_pc;
    g_sgl.cap = 1;
    CHECK_ERR(ofl_tpt_translate(NULL, s, 0x10000, 1, &g_sgl), OFL_E_ARG);
}

/* Registers d on a fresh region STag; on failure checks nothing changed. */
static enum ofl_err try_reg(enum ofl_tpt_type type,
                            const struct ofl_tpt_region_desc *d)
{
    uint32_t s = 0;
    enum ofl_err err;
    struct ofl_tpt_info info;

    if (ofl_tpt_alloc(&F.t, type, 1, 0, &s) != OFL_OK)
        return OFL_E_TPT_FULL;
    /* The check alone: the same verdict, and the entry untouched. */
    err = ofl_tpt_register_check(&F.t, s, 1, d);
    CHECK_OK(ofl_tpt_query(&F.t, s, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_ERR(ofl_tpt_register(&F.t, s, 1, d), err);
    CHECK_OK(ofl_tpt_query(&F.t, s, &info));
    if (err != OFL_OK) {
        CHECK_EQ(info.state, OFL_TPT_INVALID);
        CHECK_EQ(info.len, 0);
    } else {
        CHECK_EQ(info.state, OFL_TPT_VALID);
        CHECK_EQ(info.len, d->len);
    }
    CHECK_OK(ofl_tpt_dereg(&F.t, s, 1));
    return err;
}

#define REG_CASE(field_stmt, want)                                           \
    do {                                                                     \
        d = base;                                                            \
        field_stmt;                                                          \
        CHECK_ERR(try_reg(OFL_TPT_REGION, &d), want);                        \
    } while (0)

static void test_register_desc(void)
{
    struct ofl_tpt_region_desc base = mkdesc(0x10000, 0x1000, 0, 1, LR), d;
    struct ofl_tpt_info info;
    uint32_t r = 0, w = 0;

    fx_init(STD);
    REG_CASE((void)0, OFL_OK);
    /* Page size 4 KiB .. 256 MiB. */
    REG_CASE(d.page_shift = 11, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.page_shift = 12, OFL_OK);
    REG_CASE(d.page_shift = 28, OFL_OK);
    REG_CASE(d.page_shift = 29, OFL_E_TPT_BAD_DESC);
    /* First-page offset < page size. */
    REG_CASE((d.fpo = PSZ - 1, d.len = 1), OFL_OK);
    REG_CASE((d.fpo = PSZ, d.len = 1), OFL_E_TPT_BAD_DESC);
    REG_CASE((d.page_shift = 28, d.fpo = (1u << 28) - 1, d.len = 1), OFL_OK);
    REG_CASE((d.page_shift = 28, d.fpo = 1u << 28, d.len = 1),
             OFL_E_TPT_BAD_DESC);
    /* Zero length. */
    REG_CASE(d.len = 0, OFL_E_TPT_BAD_DESC);
    /* VA wrap: the last byte may be 2^64 - 1 but not beyond. */
    REG_CASE(d.va = U64MAX - 0xFFF, OFL_OK);
    REG_CASE(d.va = U64MAX - 0xFFE, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.va = U64MAX, OFL_E_TPT_BAD_DESC);
    REG_CASE((d.va = U64MAX, d.flags = OFL_TPT_F_ZERO_BASED), OFL_OK);
    /* ATT kind and count. */
    REG_CASE(d.att_kind = 3, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.att_kind = OFL_TPT_ATT_INDIRECT1, OFL_OK);
    REG_CASE(d.att_kind = OFL_TPT_ATT_INDIRECT2, OFL_OK);
    REG_CASE(d.att_count = 0, OFL_E_TPT_BAD_DESC);
    /* Access and flag bits. */
    REG_CASE(d.access = 0x40, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.access = 0x80 | LR, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.access = OFL_TPT_ACCESS_ALL, OFL_OK);
    REG_CASE(d.flags = OFL_TPT_F_TYPE2, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.flags = OFL_TPT_F_TOUCHED, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.flags = 0x40, OFL_E_TPT_BAD_DESC);
    REG_CASE(d.flags = OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT |
                       OFL_TPT_F_ZERO_BASED | OFL_TPT_F_INVALIDATABLE,
             OFL_OK);
    /* ATT slots inside the ATT. */
    REG_CASE(d.att_base = T_ATT - 1, OFL_OK);
    REG_CASE(d.att_base = T_ATT, OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_count = T_ATT, d.len = T_ATT * PSZ), OFL_OK);
    REG_CASE(d.att_count = T_ATT + 1, OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_base = 0xFFFFFFFFu, d.att_count = 2), OFL_E_TPT_ATT_RANGE);
    /* ATT large enough for fpo + len. */
    REG_CASE((d.att_count = 2, d.len = 2 * PSZ), OFL_OK);
    REG_CASE((d.att_count = 2, d.len = 2 * PSZ + 1), OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_count = 2, d.fpo = 1, d.len = 2 * PSZ),
             OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_count = 2, d.fpo = 1, d.len = 2 * PSZ - 1), OFL_OK);
    REG_CASE((d.att_count = 2, d.fpo = 0xFFF, d.len = PSZ + 1), OFL_OK);
    REG_CASE((d.att_count = 2, d.fpo = 0xFFF, d.len = PSZ + 2),
             OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_kind = OFL_TPT_ATT_INDIRECT1, d.len = 512u * PSZ), OFL_OK);
    REG_CASE((d.att_kind = OFL_TPT_ATT_INDIRECT1, d.len = 512u * PSZ + 1),
             OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_kind = OFL_TPT_ATT_INDIRECT2, d.len = 1ull << 30), OFL_OK);
    REG_CASE((d.att_kind = OFL_TPT_ATT_INDIRECT2, d.len = (1ull << 30) + 1),
             OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.att_kind = OFL_TPT_ATT_INDIRECT2, d.page_shift = 28,
              d.att_count = 4, d.len = 1ull << 48),
             OFL_OK); /* 4 x 2^18 pages of 256 MiB */
    /* fpo + len past 2^64 (zero-based, so the VA cannot catch it). */
    REG_CASE((d.flags = OFL_TPT_F_ZERO_BASED, d.fpo = 1, d.len = U64MAX),
             OFL_E_TPT_BAD_DESC);
    REG_CASE((d.flags = OFL_TPT_F_ZERO_BASED, d.len = U64MAX),
             OFL_E_TPT_ATT_RANGE);
    /* Rights combination: remote write / atomic need local write. */
    REG_CASE(d.access = RW, OFL_E_TPT_ACCESS_COMBO);
    REG_CASE(d.access = RA | LR, OFL_E_TPT_ACCESS_COMBO);
    REG_CASE(d.access = RW | LW, OFL_OK);
    REG_CASE(d.access = RA | LW, OFL_OK);
    REG_CASE(d.access = RR, OFL_OK);
    REG_CASE(d.access = BW, OFL_OK);
    /* The documented order: desc, then ATT slots, then rights. */
    REG_CASE((d.att_base = T_ATT, d.access = RW), OFL_E_TPT_ATT_RANGE);
    REG_CASE((d.flags = OFL_TPT_F_ZERO_BASED, d.fpo = 1, d.len = U64MAX,
              d.att_base = T_ATT),
             OFL_E_TPT_BAD_DESC);

    /* iSCSI entries: va is a command reference (no wrap check), and they
     * are always zero-based. */
    d = base;
    d.va = U64MAX;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_OK);
    r = reg(OFL_TPT_ISCSI, 1, &d);
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK(info.flags & OFL_TPT_F_ZERO_BASED);
    CHECK_EQ(info.va, U64MAX);
    CHECK_EQ(info.type, OFL_TPT_ISCSI);
    /* An iSCSI entry without data: len 0, no ATT, fpo 0; the ATT base is
     * not read. Every other rule still holds, and a region never may. */
    d = base;
    d.len = 0;
    d.att_count = 0;
    d.att_base = 0xFFFFFFFFu;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_OK);
    CHECK_ERR(try_reg(OFL_TPT_REGION, &d), OFL_E_TPT_BAD_DESC);
    d.att_count = 1;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_E_TPT_BAD_DESC);
    d.att_count = 0;
    d.fpo = 1;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_E_TPT_BAD_DESC);
    d.fpo = 0;
    d.page_shift = 11;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_E_TPT_BAD_DESC);
    d.page_shift = 12;
    d.att_kind = 3;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_E_TPT_BAD_DESC);
    d.att_kind = OFL_TPT_ATT_DIRECT;
    d.access = RW;
    CHECK_ERR(try_reg(OFL_TPT_ISCSI, &d), OFL_E_TPT_ACCESS_COMBO);
    d.access = RW | LW;
    r = reg(OFL_TPT_ISCSI, 1, &d);
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, r, 1, IQP, 0, 0, 0));  /* its response */
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, r, 1, IQP, 0, 0, RW));
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, r, 1, IQP, 0, 1, RW),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, r, 1, IQP, 1, 0, RW),
              OFL_E_TPT_BOUNDS);
    CHECK_OK(ofl_tpt_dereg(&F.t, r, 1));
    d = base;
    r = reg(OFL_TPT_ISCSI, 1, &d); /* VALID, for the checks below */

    /* The entry checks of register. */
    d = base;
    CHECK_ERR(ofl_tpt_register(&F.t, r, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register(&F.t, r, 1, &d), OFL_E_TPT_BUSY); /* VALID */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r));
    CHECK_ERR(ofl_tpt_register(&F.t, r, 2, &d), OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &w));
    CHECK_ERR(ofl_tpt_register(&F.t, w, 1, &d), OFL_E_TPT_WRONG_TYPE);
    CHECK_OK(ofl_tpt_register(&F.t, r, 1, &d));
    CHECK_ERR(ofl_tpt_register(&F.t, r, 1, &d), OFL_E_TPT_BUSY);

    /* Fast register again after a local invalidate (same STag). */
    d.flags = OFL_TPT_F_INVALIDATABLE;
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r));
    CHECK_OK(ofl_tpt_register(&F.t, r, 1, &d));
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, r, 1));
    d.va = 0x90000;
    r = rekey(r); /* re-registration: a new key */
    CHECK_OK(ofl_tpt_register(&F.t, r, 1, &d));
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK_EQ(info.va, 0x90000);
    CHECK_EQ(info.state, OFL_TPT_VALID);
}

static void test_reg_pages(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x70000010, 0x2000, 4, 99, LR | LW);
    uint64_t pages[3] = {PG(10), PG(11), PG(20)}, bad[3];
    struct ofl_tpt_info info;
    uint32_t s = 0, i, free_before;

    fx_init(STD);
    for (i = 0; i < T_ATT; i++)
        F.att[i] = 0x5A5A000; /* sentinel: must survive failed calls */
    d.fpo = 0x10;
    d.att_kind = OFL_TPT_ATT_INDIRECT2; /* ignored: reg_pages is direct */
    free_before = F.t.free_count;
    CHECK_ERR(ofl_tpt_reg_pages(NULL, 1, &d, pages, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, NULL, pages, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, NULL, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 0, &s), OFL_E_ARG);
    /* Page addresses: aligned, no present bit, no reserved bits. */
    memcpy(bad, pages, sizeof(bad));
    bad[2] = PG(20) + 8;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, bad, 3, &s), OFL_E_TPT_BAD_DESC);
    bad[2] = PG(20) | PRES;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, bad, 3, &s), OFL_E_TPT_BAD_DESC);
    bad[2] = PG(20) | 0x800;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, bad, 3, &s), OFL_E_TPT_BAD_DESC);
    d.page_shift = 13; /* PG(11) is 4 KiB but not 8 KiB aligned */
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, &s), OFL_E_TPT_BAD_DESC);
    d.page_shift = 12;
    /* The page list must cover fpo + len: 0x10 + 0x2000 needs 3 pages. */
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 2, &s),
              OFL_E_TPT_ATT_RANGE);
    d.att_base = T_ATT - 2;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, &s),
              OFL_E_TPT_ATT_RANGE);
    d.att_base = 4;
    d.access = RW | LR;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, &s),
              OFL_E_TPT_ACCESS_COMBO);
    d.access = LR | LW;
    CHECK_EQ(F.t.free_count, free_before);
    for (i = 0; i < T_ATT; i++)
        CHECK_EQ(F.att[i], 0x5A5A000);

    CHECK_OK(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, &s));
    CHECK_EQ(F.att[4], PG(10) | PRES);
    CHECK_EQ(F.att[5], PG(11) | PRES);
    CHECK_EQ(F.att[6], PG(20) | PRES);
    CHECK_EQ(F.att[7], 0x5A5A000);
    CHECK_OK(ofl_tpt_query(&F.t, s, &info));
    CHECK_EQ(info.va, 0x70000010);
    CHECK_EQ(info.len, 0x2000);
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(xlate(s, 0x70000010, 0x2000, 4));
    CHECK_EQ(g_sgl.count, 2); /* 10 and 11 are contiguous: one piece */
    CHECK_PIECE(0, PG(10) + 0x10, 0x1FF0);
    CHECK_PIECE(1, PG(20), 0x10);

    /* A full table: FULL, and the ATT is not written. */
    while (ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s) == OFL_OK)
        ;
    d.att_base = 20;
    CHECK_ERR(ofl_tpt_reg_pages(&F.t, 1, &d, pages, 3, &s), OFL_E_TPT_FULL);
    CHECK_EQ(F.att[20], 0x5A5A000);
}

static void test_reg_phys(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x40000000, 0, 8, 0, LR | LW);
    struct ofl_tpt_pbuf b[3];
    struct ofl_tpt_info info;
    uint32_t s = 0, i, free_before;

    fx_init(STD);
    for (i = 0; i < T_ATT; i++)
        F.att[i] = 0x5A5A000;
    free_before = F.t.free_count;
#define PB(i, a, l) (b[i].pa = (a), b[i].len = (l))
    PB(0, PG(1) + 0x800, 0x800);
    PB(1, PG(5), 0x2000);
    PB(2, PG(9), 0x10);
    CHECK_ERR(ofl_tpt_reg_phys(NULL, 1, &d, b, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, NULL, b, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, NULL, 3, &s), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 0, &s), OFL_E_ARG);
    d.page_shift = 11;
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    d.page_shift = 29;
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    d.page_shift = 12;
    /* Alignment rules: only the first may start, only the last may end,
     * mid-page. */
    PB(0, PG(1) + 0x800, 0x400); /* first ends mid-page, more follow */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(0, PG(1) + 0x800, 0x800);
    PB(1, PG(5) + 8, 0x2000 - 8); /* middle starts mid-page */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(1, PG(5), 0x1800); /* middle ends mid-page */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(1, PG(5), 0x2000);
    PB(2, PG(9) + 0x10, 0x10); /* last starts mid-page */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(2, PG(9), 0); /* zero-length buffer */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(2, U64MAX & ~(uint64_t)0xFFF, 0x1001); /* wraps 2^64 */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    PB(2, PG(9), 61 * PSZ); /* 1 + 2 + 61 pages > the 64-slot ATT - 8 */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_ATT_RANGE);
    PB(2, PG(9), 66 * PSZ); /* more pages than the whole ATT */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_ATT_RANGE);
    PB(2, PG(9), 0x10);
    d.va = U64MAX - 0x100; /* VA of the last byte wraps */
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_BAD_DESC);
    d.va = 0x40000000;
    d.access = RA;
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s), OFL_E_TPT_ACCESS_COMBO);
    d.access = LR | LW;
    CHECK_EQ(F.t.free_count, free_before);
    for (i = 0; i < T_ATT; i++)
        CHECK_EQ(F.att[i], 0x5A5A000);

    /* First mid-page start, middle whole pages, last mid-page end. */
    CHECK_OK(ofl_tpt_reg_phys(&F.t, 1, &d, b, 3, &s));
    CHECK_OK(ofl_tpt_query(&F.t, s, &info));
    CHECK_EQ(info.len, 0x800 + 0x2000 + 0x10);
    CHECK_EQ(F.e[ofl_stag_index(s)].fpo, 0x800);
    CHECK_EQ(F.e[ofl_stag_index(s)].att_count, 4);
    CHECK_EQ(F.att[8], PG(1) | PRES);
    CHECK_EQ(F.att[9], PG(5) | PRES);
    CHECK_EQ(F.att[10], PG(6) | PRES);
    CHECK_EQ(F.att[11], PG(9) | PRES);
    CHECK_EQ(F.att[12], 0x5A5A000);
    CHECK_OK(xlate(s, 0x40000000, info.len, 8));
    CHECK_EQ(g_sgl.count, 3);
    CHECK_PIECE(0, PG(1) + 0x800, 0x800);
    CHECK_PIECE(1, PG(5), 0x2000);
    CHECK_PIECE(2, PG(9), 0x10);
    CHECK_OK(ofl_tpt_check_local(&F.t, s, 1, 0x40000000 + info.len - 1, 1, LW));
    CHECK_ERR(ofl_tpt_check_local(&F.t, s, 1, 0x40000000 + info.len, 1, LW),
              OFL_E_TPT_BOUNDS);

    /* Physically contiguous buffers merge; one buffer may span pages. */
    d.att_base = 20;
    PB(0, PG(30), PSZ);
    PB(1, PG(31), PSZ);
    CHECK_OK(ofl_tpt_reg_phys(&F.t, 1, &d, b, 2, &s));
    CHECK_OK(xlate(s, 0x40000000, 2 * PSZ, 1));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(30), 2 * PSZ);
    d.att_base = 30;
    PB(0, PG(40) + 0x123, 0x2000);
    CHECK_OK(ofl_tpt_reg_phys(&F.t, 1, &d, b, 1, &s));
    CHECK_EQ(F.e[ofl_stag_index(s)].fpo, 0x123);
    CHECK_EQ(F.e[ofl_stag_index(s)].att_count, 3);
    CHECK_EQ(F.att[32], PG(42) | PRES);
    /* A buffer whose last byte is 2^64 - 1 is fine. */
    d.att_base = 40;
    PB(0, U64MAX - 0xFFF, PSZ);
    CHECK_OK(ofl_tpt_reg_phys(&F.t, 1, &d, b, 1, &s));
    CHECK_OK(xlate(s, 0x40000000, PSZ, 1));
    CHECK_PIECE(0, U64MAX - 0xFFF, PSZ);
    /* Large pages: 2 MiB. */
    d.att_base = 41;
    d.page_shift = 21;
    PB(0, (1ull << 40) + 0x100, 3ull << 20);
    CHECK_OK(ofl_tpt_reg_phys(&F.t, 1, &d, b, 1, &s));
    CHECK_EQ(F.e[ofl_stag_index(s)].fpo, 0x100);
    CHECK_EQ(F.e[ofl_stag_index(s)].att_count, 2);
    CHECK_OK(xlate(s, 0x40000000, 3ull << 20, 1));
    CHECK_PIECE(0, (1ull << 40) + 0x100, 3u << 20);
    d.page_shift = 12;

    /* A full table: FULL and nothing written. */
    while (ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s) == OFL_OK)
        ;
    d.att_base = 50;
    PB(0, PG(60), PSZ);
    CHECK_ERR(ofl_tpt_reg_phys(&F.t, 1, &d, b, 1, &s), OFL_E_TPT_FULL);
    CHECK_EQ(F.att[50], 0x5A5A000);
#undef PB
}

/* Seed 000 FIG. 15 a-g: a WQE data segment. */
static void test_check_local(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x3000, 0, 3, LR | LW | BW);
    uint32_t r, ro, wo, inv = 0, w, isc, zb, top;

    fx_init(STD);
    put_pages(0, 3, PG(0), 2 * PSZ);
    r = reg(OFL_TPT_REGION, 1, &d);
    d.access = LR; /* shares the ATT (FIG. 14) */
    ro = reg(OFL_TPT_REGION, 1, &d);
    d.access = LW;
    wo = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &inv));
    w = win(r, 1, false, 0, 0x10000, 0x100, RR, 0);
    d.access = LR | LW | RR;
    isc = reg(OFL_TPT_ISCSI, 1, &d);

    /* a: Valid */
    CHECK_ERR(ofl_tpt_check_local(&F.t, inv, 1, 0x10000, 1, LR),
              OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR));
    /* b: a region, not a window (nor iSCSI) */
    CHECK_ERR(ofl_tpt_check_local(&F.t, w, 1, 0x10000, 1, LR),
              OFL_E_TPT_WRONG_TYPE);
    CHECK_ERR(ofl_tpt_check_local(&F.t, isc, 1, 0, 1, LR),
              OFL_E_TPT_WRONG_TYPE);
    /* c: PD */
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 2, 0x10000, 1, LR),
              OFL_E_TPT_PD_MISMATCH);
    /* d: key (reported before everything else about the entry) */
    CHECK_ERR(ofl_tpt_check_local(&F.t, other_key(r), 2, 0, 1, LR | LW),
              OFL_E_TPT_KEY_MISMATCH);
    /* need: at least one local right and no remote one, else the call
     * is wrong, whatever the entry (before any of a-g). */
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, 0), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR | RR),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR | 0x40),
              OFL_E_ARG);
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR | BW));
    CHECK_ERR(ofl_tpt_check_local(&F.t, other_key(r), 1, 0x10000, 1, 0),
              OFL_E_ARG);
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR | LW));
    CHECK_ERR(ofl_tpt_check_local(&F.t, other_key(inv), 1, 0x10000, 1, LR),
              OFL_E_TPT_KEY_MISMATCH);
    /* e: range, last byte and one past the end, zero length */
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 0x3000, LR));
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x12FFF, 1, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x13000, 1, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x12FFF, 2, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 0x3001, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0xFFFF, 1, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0xFFFF, 0, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 0, LR));
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x13000, 0, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x13001, 0, LR),
              OFL_E_TPT_BOUNDS);
    /* TO wrap is reported before bounds. */
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, U64MAX, 2, LR),
              OFL_E_TPT_TO_WRAP);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 0x10000, U64MAX, LR),
              OFL_E_TPT_TO_WRAP);
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 1, U64MAX, LR),
              OFL_E_TPT_BOUNDS); /* last byte exactly 2^64 - 1 */
    CHECK_ERR(ofl_tpt_check_local(&F.t, r, 1, 2, U64MAX, LR),
              OFL_E_TPT_TO_WRAP);
    /* f: access type - Send / RDMA Write sources need local read, receive
     * buffers and Read sinks local write. A region always has local read
     * (verbs, ibv_reg_mr(3); issue 28: a region registered with local
     * write only refused local read before) */
    CHECK_OK(ofl_tpt_check_local(&F.t, ro, 1, 0x10000, 1, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, ro, 1, 0x10000, 1, LW),
              OFL_E_TPT_ACCESS);
    CHECK_OK(ofl_tpt_check_local(&F.t, wo, 1, 0x10000, 1, LW));
    CHECK_OK(ofl_tpt_check_local(&F.t, wo, 1, 0x10000, 1, LR));
    CHECK_OK(ofl_tpt_check_local(&F.t, wo, 1, 0x10000, 1, LR | LW));
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, LR | LW));
    /* g: a Bind needs window binding on the region */
    CHECK_OK(ofl_tpt_check_local(&F.t, r, 1, 0x10000, 1, BW));
    CHECK_ERR(ofl_tpt_check_local(&F.t, ro, 1, 0x10000, 1, BW),
              OFL_E_TPT_NO_BIND);
    CHECK_ERR(ofl_tpt_check_local(&F.t, wo, 1, 0x10000, 1, BW | LR),
              OFL_E_TPT_NO_BIND);

    /* A zero-based region is addressed from 0. */
    d = mkdesc(0x10000, 0x3000, 0, 3, LR);
    d.flags = OFL_TPT_F_ZERO_BASED;
    zb = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_check_local(&F.t, zb, 1, 0, 0x3000, LR));
    CHECK_OK(ofl_tpt_check_local(&F.t, zb, 1, 0x2FFF, 1, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, zb, 1, 0x3000, 1, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_local(&F.t, zb, 1, 0x10000, 1, LR),
              OFL_E_TPT_BOUNDS);
    /* A region ending at 2^64 - 1. */
    d = mkdesc(U64MAX - 0x1FFF, 0x2000, 0, 2, LR);
    top = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_check_local(&F.t, top, 1, U64MAX, 1, LR));
    CHECK_OK(ofl_tpt_check_local(&F.t, top, 1, U64MAX - 0x1FFF, 0x2000, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, top, 1, U64MAX, 2, LR),
              OFL_E_TPT_TO_WRAP);
    CHECK_ERR(ofl_tpt_check_local(&F.t, top, 1, U64MAX - 0x2000, 1, LR),
              OFL_E_TPT_BOUNDS);
    CHECK_EQ(F.sim.violations, 0);
}

/* Seed 000 FIG. 18A a-f under both policies. */
static void test_check_remote(void)
{
    int pol;

    for (pol = 0; pol < 2; pol++) {
        struct ofl_tpt_region_desc d =
            mkdesc(0x10000, 0x3000, 0, 3, LR | LW | RR | RW | BW);
        uint32_t rr, rnone, w1, w2, wnb = 0, isc, top, wtop;
        bool std = pol == STD;

        fx_init((enum ofl_tpt_policy)pol);
        put_pages(0, 3, PG(0), PSZ);
        rr = reg(OFL_TPT_REGION, 1, &d);
        d.access = LR | LW | BW;
        rnone = reg(OFL_TPT_REGION, 1, &d);
        w1 = win(rnone, 1, false, 0, 0x10100, 0x100, RR, 0);
        w2 = win(rr, 1, true, 7, 0x10000, 0x3000, RR | RW | RA, 0);
        CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &wnb));
        d.access = LR | LW | RR | RW;
        isc = reg(OFL_TPT_ISCSI, 1, &d);
        d = mkdesc(U64MAX - 0x1FFF, 0x2000, 0, 2, LR | LW | RR | RW | BW);
        top = reg(OFL_TPT_REGION, 1, &d);
        wtop = win(top, 1, false, 0, U64MAX - 0x1FFF, 0x2000, RR, 0);

        /* a: Valid (a window never bound) */
        CHECK_ERR(ofl_tpt_check_remote(&F.t, wnb, 1, 0, 0x10000, 1, RR),
                  OFL_E_TPT_NOT_VALID);
        /* b: type. Regions only under the standard policy; iSCSI never. */
        CHECK_ERR(ofl_tpt_check_remote(&F.t, rr, 1, 0, 0x10000, 0x10, RR),
                  std ? OFL_OK : OFL_E_TPT_WRONG_TYPE);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, rr, 1, 0, 0x10000, 0x10, RW),
                  std ? OFL_OK : OFL_E_TPT_WRONG_TYPE);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, rr, 1, 0, 0x10000, 0x10, RA),
                  std ? OFL_E_TPT_ACCESS : OFL_E_TPT_WRONG_TYPE);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, rnone, 1, 0, 0x10000, 1, RR),
                  std ? OFL_E_TPT_ACCESS : OFL_E_TPT_WRONG_TYPE);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, isc, 1, 0, 0, 1, RR),
                  OFL_E_TPT_WRONG_TYPE);
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 0x100, RR));
        /* need: at least one remote right and no local one, else the
         * call is wrong, whatever the entry; the fast path agrees. */
        {
            struct ofl_tpt_piece pc[2];
            struct ofl_tpt_sgl sg;

            memset(&sg, 0, sizeof(sg));
            sg.piece = pc;
            sg.cap = 2;
            CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 1, 0),
                      OFL_E_ARG);
            CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 1,
                                           RR | LR),
                      OFL_E_ARG);
            CHECK_ERR(ofl_tpt_check_translate(&F.t, w1, 1, 0, 0x10100, 1, 0,
                                              &sg),
                      OFL_E_ARG);
            CHECK_ERR(ofl_tpt_check_translate(&F.t, w1, 1, 0, 0x10100, 1, LR,
                                              &sg),
                      OFL_E_ARG);
            CHECK_OK(ofl_tpt_check_translate(&F.t, w1, 1, 0, 0x10100, 1, RR,
                                             &sg));
        }
        /* c: PD */
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 2, 0, 0x10100, 1, RR),
                  OFL_E_TPT_PD_MISMATCH);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w2, 2, 7, 0x10000, 1, RR),
                  OFL_E_TPT_PD_MISMATCH);
        if (std)
            CHECK_ERR(ofl_tpt_check_remote(&F.t, rr, 2, 0, 0x10000, 1, RR),
                      OFL_E_TPT_PD_MISMATCH);
        /* QP: a type 2 window answers only on its QP; type 1 on any. */
        CHECK_OK(ofl_tpt_check_remote(&F.t, w2, 1, 7, 0x10000, 1, RR));
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w2, 1, 8, 0x10000, 1, RR),
                  OFL_E_TPT_QP_MISMATCH);
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 8, 0x10100, 1, RR));
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 1, RR));
        /* d: key */
        CHECK_ERR(ofl_tpt_check_remote(&F.t, other_key(w1), 1, 0, 0x10100, 1,
                                       RR),
                  OFL_E_TPT_KEY_MISMATCH);
        /* e: range of the window, last byte and one past, zero length */
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x101FF, 1, RR));
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10200, 1, RR),
                  OFL_E_TPT_BOUNDS);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x101FF, 2, RR),
                  OFL_E_TPT_BOUNDS);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x100FF, 1, RR),
                  OFL_E_TPT_BOUNDS); /* inside the region, not the window */
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 0, RR));
        CHECK_OK(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10200, 0, RR));
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10201, 0, RR),
                  OFL_E_TPT_BOUNDS);
        /* TO near 2^64: wrap of the last byte vs plain bounds */
        CHECK_OK(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX, 1, RR));
        CHECK_OK(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX - 0x1FFF,
                                      0x2000, RR));
        CHECK_OK(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX, 0, RR));
        CHECK_ERR(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX, 2, RR),
                  OFL_E_TPT_TO_WRAP);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX - 0xFFF,
                                       0x1001, RR),
                  OFL_E_TPT_TO_WRAP);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX - 0x2000, 1,
                                       RR),
                  OFL_E_TPT_BOUNDS);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, U64MAX, RR),
                  OFL_E_TPT_TO_WRAP);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 1, U64MAX, RR),
                  OFL_E_TPT_BOUNDS);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, top, 1, 0, U64MAX, 2, RR),
                  std ? OFL_E_TPT_TO_WRAP : OFL_E_TPT_WRONG_TYPE);
        /* f: remote read / write / atomic rights of the window */
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 1, RW),
                  OFL_E_TPT_ACCESS);
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w1, 1, 0, 0x10100, 1, RA),
                  OFL_E_TPT_ACCESS);
        CHECK_OK(ofl_tpt_check_remote(&F.t, w2, 1, 7, 0x10000, 8, RW));
        CHECK_OK(ofl_tpt_check_remote(&F.t, w2, 1, 7, 0x10000, 8, RA));
        CHECK_OK(ofl_tpt_check_remote(&F.t, w2, 1, 7, 0x10000, 8, RR | RW));
        CHECK_ERR(ofl_tpt_check_remote(&F.t, wtop, 1, 0, U64MAX, 1, RW),
                  OFL_E_TPT_ACCESS);
        /* A failure maps to its terminate cause (DDP tagged placement). */
        CHECK_EQ(ofl_tpt_term_cause(ofl_tpt_check_remote(&F.t, wtop, 1, 0,
                                                         U64MAX, 2, RR),
                                    OFL_TPT_USE_PLACE).ecode,
                 0x03);
    }
}

/* iSCSI 1.0 (seed 000 FIG. 17B a-f): offsets from 0. */
static void test_check_iscsi(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x1234, 0x3000, 0, 3, LW | RW);
    uint32_t isc, ro, r, inv = 0;

    fx_init(STD);
    isc = reg(OFL_TPT_ISCSI, 1, &d);
    d.access = RR;
    ro = reg(OFL_TPT_ISCSI, 1, &d);
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_ISCSI, 1, 0, &inv));
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 0x3000, RW));
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0x2FFF, 1, RW));
    /* need: R2T, Data-In, or nothing (a SCSI Response); no other bit. */
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 0, 0));
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 1, RW | LW), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 1, RA), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0x3000, 1, RW),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0x1234, 0x3000, RW),
              OFL_E_TPT_BOUNDS); /* the command reference is no base */
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, U64MAX, 2, RW),
              OFL_E_TPT_TO_WRAP);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, inv, 1, IQP, 0, 1, RW),
              OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, r, 1, IQP, 0, 1, RR),
              OFL_E_TPT_WRONG_TYPE);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 2, IQP, 0, 1, RW),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, other_key(isc), 1, IQP, 0, 1, RW),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 1, RR),
              OFL_E_TPT_ACCESS);
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, ro, 1, IQP, 0, 1, RR)); /* R2T */
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, ro, 1, IQP, 0, 1, RW),
              OFL_E_TPT_ACCESS); /* Data-In */
}

/* An iSCSI task tag belongs to the QP whose command registered it (RFC
 * 3720 connection allegiance): another QP of the same PD names no task. */
static void test_iscsi_owner(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0, 0x3000, 0, 3, LW | RW | RR);
    struct ofl_tpt_info info;
    uint32_t isc, plain = 0, r = 0, other = 0;

    fx_init(STD);
    isc = reg(OFL_TPT_ISCSI, 1, &d);
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 1, RW));
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP + 1, 0, 1, RW),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP + 1, 0, 0, 0),
              OFL_E_TPT_QP_MISMATCH); /* not even its response */
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, OFL_TPT_QP_NONE, 0, 0, 0),
              OFL_E_TPT_QP_MISMATCH);
    /* the PD is checked first (c), then the connection */
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 2, IQP + 1, 0, 1, RW),
              OFL_E_TPT_PD_MISMATCH);
    /* ofl_tpt_register: an entry of no QP, a task of none */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_ISCSI, 1, 0, &plain));
    CHECK_OK(ofl_tpt_register(&F.t, plain, 1, &d));
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, plain, 1, IQP, 0, 1, RW),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, plain, 1, OFL_TPT_QP_NONE, 0, 1, RW),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, plain, 1, 0, 0, 1, RW),
              OFL_E_TPT_QP_MISMATCH);
    /* ofl_tpt_register_iscsi: iSCSI entries only, a real QP, the checks of
     * ofl_tpt_register; a refusal changes nothing */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r));
    CHECK_ERR(ofl_tpt_register_iscsi(&F.t, r, 1, IQP, &d),
              OFL_E_TPT_WRONG_TYPE);
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_ISCSI, 1, 0, &other));
    CHECK_ERR(ofl_tpt_register_iscsi(&F.t, other, 1, OFL_TPT_QP_NONE, &d),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register_iscsi(&F.t, other, 2, IQP, &d),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_register_iscsi(NULL, other, 1, IQP, &d), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register_iscsi(&F.t, other, 1, IQP, NULL), OFL_E_ARG);
    CHECK_OK(ofl_tpt_query(&F.t, other, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_tpt_register_iscsi(&F.t, other, 1, IQP + 1, &d));
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, other, 1, IQP + 1, 0, 1, RW));
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, other, 1, IQP, 0, 1, RW),
              OFL_E_TPT_QP_MISMATCH);
    /* the QP's life ends: its tasks' entries die with it, the other QP's
     * stay (ofl_tpt_invalidate_qp) */
    CHECK_EQ(ofl_tpt_invalidate_qp(&F.t, IQP, 1), 1);
    CHECK_OK(ofl_tpt_query(&F.t, isc, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_ERR(ofl_tpt_check_iscsi(&F.t, isc, 1, IQP, 0, 0, 0),
              OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_check_iscsi(&F.t, other, 1, IQP + 1, 0, 1, RW));
    CHECK_OK(ofl_tpt_query(&F.t, plain, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
}

/* Seed 001 BindRKey / UnbindRKey / DeallocateRKey, FIG. 15 g. */
static void test_windows(void)
{
    struct ofl_tpt_region_desc d =
        mkdesc(0x10000, 0x3000, 0, 3, LR | LW | RR | BW);
    struct ofl_tpt_info info;
    uint32_t r, rnb, rnolw, r2, w = 0, w2 = 0, wpd2 = 0, b = 0, b2 = 0, prev;
    uint32_t x = 0;

    fx_init(WONLY);
    put_pages(0, 3, PG(0), PSZ);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    r = reg(OFL_TPT_REGION, 1, &d);
    d.flags = 0;
    d.access = LR | LW;
    rnb = reg(OFL_TPT_REGION, 1, &d);
    d.access = LR | BW;
    rnolw = reg(OFL_TPT_REGION, 1, &d);
    d.access = LR | LW | BW;
    r2 = reg(OFL_TPT_REGION, 2, &d);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, 0, &w));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, OFL_TPT_F_TYPE2, &w2));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 2, 0, &wpd2));

    /* Any byte range and alignment inside the region. */
    CHECK_OK(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10001, 0x17, RR, 0, &b));
    /* Every bind, type 1 too, gives a new key. */
    CHECK_EQ(ofl_stag_index(b), ofl_stag_index(w));
    CHECK_EQ(ofl_stag_key(b), (uint8_t)(ofl_stag_key(w) + 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10001, 0x17, RR),
              OFL_E_TPT_KEY_MISMATCH);
    w = b;
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10001, 0x17, RR));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10018, 1, RR),
              OFL_E_TPT_BOUNDS);
    CHECK_OK(ofl_tpt_query(&F.t, b, &info));
    CHECK_EQ(info.va, 0x10001);
    CHECK_EQ(info.len, 0x17);
    CHECK_EQ(info.region_stag_index, ofl_stag_index(r));
    CHECK_EQ(info.access, RR);
    /* Type 1 rebind while VALID replaces the binding; the STag advertised
     * for the old binding reaches neither the new range nor its rights. */
    CHECK_OK(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x12FFF, 1, RR | RW, 0, &b));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x12FFF, 1, RW),
              OFL_E_TPT_KEY_MISMATCH);
    w = b;
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x12FFF, 1, RR));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10001, 1, RR),
              OFL_E_TPT_BOUNDS);
    CHECK_OK(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 0x3000, RR, 0, &b));
    w = b;
    /* Outside the region. */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0xFFFF, 2, RR, 0, &b),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x12FFF, 2, RR, 0, &b),
              OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, U64MAX, RR, 0, &b),
              OFL_E_TPT_TO_WRAP);
    /* A failed bind leaves the old binding as it was. */
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 0x3000, RR));
    /* The region must allow binding (FIG. 15 g), be a VALID region. */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, rnb, 1, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_NO_BIND);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, w2, 1, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_NOT_VALID); /* w2 is an INVALID window */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, b, 1, 0, 0x10000, 1, RR, 0, &b2),
              OFL_E_TPT_WRONG_TYPE); /* a window is no region */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, other_key(r), 1, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_bind(&F.t, r, r, 1, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_WRONG_TYPE); /* binding a region as a window */
    /* PD rules: window, region and binder all in one PD. */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r2, 1, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_PD_MISMATCH); /* type 1: region in another PD */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r2, 2, 0, 0x10000, 1, RR, 0, &b),
              OFL_E_TPT_PD_MISMATCH); /* window in another PD */
    CHECK_OK(ofl_tpt_bind(&F.t, wpd2, r2, 2, 0, 0x10000, 1, RR, 0, &b2));
    CHECK_ERR(ofl_tpt_bind(&F.t, w2, r2, 1, 5, 0x10000, 1, RR, 0, &b2),
              OFL_E_TPT_PD_MISMATCH); /* type 2: region in another PD */
    CHECK_ERR(ofl_tpt_bind(&F.t, w2, r, 2, 5, 0x10000, 1, RR, 0, &b2),
              OFL_E_TPT_PD_MISMATCH); /* type 2: QP's PD differs */
    /* Rights: remote only; remote write / atomic need the region's local
     * write. */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, LR, 0, &b),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, RR | BW, 0, &b),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, rnolw, 1, 0, 0x10000, 1, RW, 0, &b),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, rnolw, 1, 0, 0x10000, 1, RA, 0, &b),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_OK(ofl_tpt_bind(&F.t, w, rnolw, 1, 0, 0x10000, 1, RR, 0, &b));
    w = b;
    CHECK_OK(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 0x3000, RR | RW | RA, 0,
                          &b));
    w = b;
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 8, RA));
    /* Bind arguments. */
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, RR, 0, NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, RR,
                           OFL_TPT_F_ZERO_BASED, &b),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, RR,
                           OFL_TPT_F_INVALIDATABLE, &b),
              OFL_E_ARG);
    CHECK_OK(ofl_tpt_bind(&F.t, w, r, 1, 0, 0x10000, 1, RR,
                          OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT, &b));
    w = b;
    CHECK_OK(ofl_tpt_query(&F.t, b, &info));
    CHECK_EQ(info.flags, OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT);

    /* Type 2: a new key at every bind, tied to the QP, only from INVALID. */
    prev = w2;
    CHECK_OK(ofl_tpt_bind(&F.t, w2, r, 1, 5, 0x10000, 0x100, RR, 0, &b2));
    CHECK_EQ(ofl_stag_index(b2), ofl_stag_index(w2));
    CHECK_EQ(ofl_stag_key(b2), (uint8_t)(ofl_stag_key(prev) + 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, prev, 1, 5, 0x10000, 1, RR),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_tpt_check_remote(&F.t, b2, 1, 5, 0x10000, 1, RR));
    CHECK_OK(ofl_tpt_query(&F.t, b2, &info));
    CHECK(info.flags & OFL_TPT_F_TYPE2);
    CHECK(info.flags & OFL_TPT_F_INVALIDATABLE);
    CHECK_ERR(ofl_tpt_bind(&F.t, b2, r, 1, 6, 0x10000, 0x100, RR, 0, &x),
              OFL_E_TPT_BUSY); /* VALID: no rebind, no move to QP 6 */
    CHECK_OK(ofl_tpt_check_remote(&F.t, b2, 1, 5, 0x10000, 1, RR));
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, b2, 1));
    prev = b2;
    CHECK_OK(ofl_tpt_bind(&F.t, b2, r, 1, 6, 0x10000, 0x100, RR, 0, &b2));
    CHECK_EQ(ofl_stag_key(b2), (uint8_t)(ofl_stag_key(prev) + 1));
    CHECK_OK(ofl_tpt_check_remote(&F.t, b2, 1, 6, 0x10000, 1, RR));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b2, 1, 5, 0x10000, 1, RR),
              OFL_E_TPT_QP_MISMATCH);

    /* Unbind: va 0, len 0 (seed 001); type 2 only from its QP. */
    CHECK_ERR(ofl_tpt_bind(&F.t, b2, r, 1, 5, 0, 0, 0, 0, NULL),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_bind(&F.t, b2, r, 2, 6, 0, 0, 0, 0, NULL),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_bind(&F.t, b2, 0 /* region ignored */, 1, 6, 0, 0, 0, 0,
                          NULL));
    CHECK_EQ(state_of(b2), OFL_TPT_INVALID);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b2, 1, 6, 0x10000, 1, RR),
              OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_bind(&F.t, b, 0, 1, 99, 0, 0, 0, 0, &x));
    CHECK_EQ(x, b);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_bind(&F.t, b, 0, 1, 0, 0, 0, 0, 0, NULL)); /* again */
    /* va 0 with a length is a bind, not an unbind: here outside r. */
    CHECK_ERR(ofl_tpt_bind(&F.t, b, r, 1, 0, 0, 1, RR, 0, &x),
              OFL_E_TPT_BOUNDS);

    /* Unbind and bind again elsewhere with other rights: the STag handed
     * out for the first binding stays dead (a new key). */
    CHECK_OK(ofl_tpt_bind(&F.t, b, r, 1, 0, 0x10000, 0x100, RR, 0, &x));
    CHECK_OK(ofl_tpt_bind(&F.t, x, 0, 1, 0, 0, 0, 0, 0, NULL));
    CHECK_OK(ofl_tpt_bind(&F.t, x, r, 1, 0, 0x12000, 0x1000, RW, 0, &b));
    CHECK(b != x);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, x, 1, 0, 0x12000, 0x1000, RW),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x12000, 0x1000, RW));
    /* A spent one-shot window bound again: its old STag does not revive. */
    CHECK_OK(ofl_tpt_bind(&F.t, b, r, 1, 0, 0x10000, 0x10, RR,
                          OFL_TPT_F_ONE_SHOT, &x));
    CHECK_OK(ofl_tpt_expire(&F.t, x));
    CHECK_OK(ofl_tpt_bind(&F.t, x, r, 1, 0, 0x10000, 0x10, RR, 0, &b));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, x, 1, 0, 0x10000, 0x10, RR),
              OFL_E_TPT_KEY_MISMATCH);

    /* Dealloc: windows in any state (bound ones are unbound); a VALID
     * region is BUSY. */
    CHECK_OK(ofl_tpt_bind(&F.t, b, r, 1, 0, 0x10000, 0x10, RR, 0, &b));
    /* Deregistration is for regions: a window is unbound or freed. */
    CHECK_ERR(ofl_tpt_dereg(&F.t, b, 1), OFL_E_TPT_WRONG_TYPE);
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 0x10, RR));
    CHECK_ERR(ofl_tpt_dealloc(&F.t, b, 2), OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_dealloc(&F.t, b, 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_INVALID_STAG);
    CHECK_OK(ofl_tpt_dealloc(&F.t, b2, 1)); /* INVALID window */
    CHECK_ERR(ofl_tpt_dealloc(&F.t, r, 1), OFL_E_TPT_BUSY);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &x));
    CHECK_OK(ofl_tpt_dealloc(&F.t, x, 1)); /* INVALID region */
    CHECK_EQ(F.sim.violations, 0);
}

/* A window whose region was deregistered, invalidated, re-registered. */
/* ofl_tpt_check_translate of one byte at to with remote read, pd 1. */
static enum ofl_err ct1(uint32_t stag, uint32_t qp)
{
    struct ofl_tpt_piece pc[2];
    struct ofl_tpt_sgl sg;

    memset(&sg, 0, sizeof(sg));
    sg.piece = pc;
    sg.cap = 2;
    return ofl_tpt_check_translate(&F.t, stag, 1, qp, 0x10000, 1,
                                   OFL_TPT_REMOTE_READ, &sg);
}

static void test_region_gone(void)
{
    struct ofl_tpt_region_desc d =
        mkdesc(0x10000, 0x3000, 0, 3, LR | LW | RR | BW);
    uint32_t r, r2 = 0, w, wiscsi = 0, wt2, b = 0, x = 0;

    fx_init(STD);
    put_pages(0, 3, PG(0), PSZ);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    r = reg(OFL_TPT_REGION, 1, &d);
    w = win(r, 1, false, 0, 0x10000, 0x100, RR, 0);
    wt2 = win(r, 1, true, 3, 0x10100, 0x100, RR, 0);
    CHECK_OK(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RR));
    CHECK_OK(xlate(w, 0x10000, 1, 1));

    /* Deregistered: dereg succeeds, the windows are dead at once. */
    CHECK_OK(ofl_tpt_dereg(&F.t, r, 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(w, 0), OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, wt2, 1, 3, 0x10100, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(xlate(w, 0x10000, 1, 1), OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ofl_tpt_map_page(&F.t, w, 0x10000, PG(7)),
              OFL_E_TPT_REGION_GONE);
    CHECK_EQ(state_of(w), OFL_TPT_VALID); /* the window itself still is */
    /* The same index re-registered (a new key) does not revive them ... */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r2));
    CHECK_EQ(ofl_stag_index(r2), ofl_stag_index(r));
    CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(w, 0), OFL_E_TPT_REGION_GONE);
    CHECK_ERR(xlate(w, 0x10000, 1, 1), OFL_E_TPT_REGION_GONE);
    /* ... nor, in another PD, when the region's 32-bit generation has
     * come round to the one the window recorded (2^31 re-registrations
     * of one index; forced here): a window reaches only its own PD's
     * region. */
    {
        struct ofl_tpt_piece pc[2];
        struct ofl_tpt_sgl sg;
        uint32_t r3 = 0;

        memset(&sg, 0, sizeof(sg));
        sg.piece = pc;
        sg.cap = 2;
        CHECK_OK(ofl_tpt_dereg(&F.t, r2, 1));
        CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 2, 0, &r3));
        CHECK_EQ(ofl_stag_index(r3), ofl_stag_index(r));
        d.access |= RW;
        CHECK_OK(ofl_tpt_register(&F.t, r3, 2, &d));
        F.e[ofl_stag_index(r3)].gen = F.e[ofl_stag_index(w)].region_gen;
        CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RR),
                  OFL_E_TPT_REGION_GONE);
        CHECK_ERR(ofl_tpt_check_translate(&F.t, w, 1, 0, 0x10000, 1, RR,
                                          &sg),
                  OFL_E_TPT_REGION_GONE);
        CHECK_ERR(xlate(w, 0x10000, 1, 1), OFL_E_TPT_REGION_GONE);
        d.access &= (uint8_t)~RW;
        CHECK_OK(ofl_tpt_dereg(&F.t, r3, 2));
        CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r2));
        CHECK_EQ(ofl_stag_index(r2), ofl_stag_index(r));
        CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    }
    /* ... nor does the index coming back as another type. */
    CHECK_OK(ofl_tpt_dereg(&F.t, r2, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_ISCSI, 1, 0, &wiscsi));
    CHECK_OK(ofl_tpt_register(&F.t, wiscsi, 1, &d));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(w, 0), OFL_E_TPT_REGION_GONE);
    CHECK_OK(ofl_tpt_dereg(&F.t, wiscsi, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &r2));
    CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    /* A dead window is bound again (here: to the new region) ... */
    CHECK_OK(ofl_tpt_bind(&F.t, w, r2, 1, 0, 0x10000, 0x100, RR, 0, &b));
    CHECK_OK(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR));
    /* ... or deallocated. */
    CHECK_OK(ofl_tpt_dealloc(&F.t, wt2, 1));

    /* Invalidating the region kills its windows; re-registering the same
     * STag (fast register) does not revive them. */
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, r2, 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(b, 0), OFL_E_TPT_REGION_GONE);
    r2 = rekey(r2); /* re-registration: a new key */
    CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(b, 0), OFL_E_TPT_REGION_GONE);
    /* Expiry and one-shot use of the region kill them too. */
    CHECK_OK(ofl_tpt_bind(&F.t, b, r2, 1, 0, 0x10000, 0x100, RR, 0, &b));
    CHECK_OK(ofl_tpt_expire(&F.t, r2));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(b, 0), OFL_E_TPT_REGION_GONE);
    d.flags = OFL_TPT_F_ONE_SHOT;
    r2 = rekey(r2); /* re-registration: a new key */
    CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    CHECK_OK(ofl_tpt_bind(&F.t, b, r2, 1, 0, 0x10000, 0x100, RR, 0, &b));
    CHECK_OK(ofl_tpt_note_use(&F.t, r2, true));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, b, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
    CHECK_ERR(ct1(b, 0), OFL_E_TPT_REGION_GONE);
    /* Checks run type, PD, QP before the region: a dead type 2 window from
     * another QP is a QP mismatch. */
    r2 = rekey(r2); /* re-registration: a new key */
    CHECK_OK(ofl_tpt_register(&F.t, r2, 1, &d));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_WINDOW, 1, OFL_TPT_F_TYPE2, &x));
    CHECK_OK(ofl_tpt_bind(&F.t, x, r2, 1, 4, 0x10000, 0x10, RR, 0, &x));
    CHECK_OK(ofl_tpt_dereg(&F.t, r2, 1));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, x, 1, 9, 0x10000, 1, RR),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, x, 1, 4, 0x10000, 1, RR),
              OFL_E_TPT_REGION_GONE);
}

static void test_invalidate(void)
{
    struct ofl_tpt_region_desc d =
        mkdesc(0x10000, 0x1000, 0, 1, LR | LW | RR | BW);
    uint32_t rinv, rfix, w1, w2, inv = 0;

    fx_init(STD);
    put_pages(0, 1, PG(0), PSZ);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    rinv = reg(OFL_TPT_REGION, 1, &d);
    d.flags = 0;
    rfix = reg(OFL_TPT_REGION, 1, &d);
    w1 = win(rfix, 1, false, 0, 0x10000, 0x10, RR, 0);
    w2 = win(rfix, 1, true, 7, 0x10000, 0x10, RR, 0);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &inv));

    /* Local invalidate. */
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, rfix, 1),
              OFL_E_TPT_CANNOT_INVALIDATE);
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, w1, 1),
              OFL_E_TPT_CANNOT_INVALIDATE); /* type 1 window */
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, rinv, 2), OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, inv, 1), OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, other_key(rinv), 1),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_EQ(state_of(rfix), OFL_TPT_VALID);
    CHECK_EQ(state_of(w1), OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, rinv, 1));
    CHECK_EQ(state_of(rinv), OFL_TPT_INVALID);
    CHECK_ERR(ofl_tpt_check_local(&F.t, rinv, 1, 0x10000, 1, LR),
              OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_invalidate_local(&F.t, rinv, 1), OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, w2, 1)); /* type 2 window */
    CHECK_EQ(state_of(w2), OFL_TPT_INVALID);

    /* Remote invalidate (Send with Invalidate). */
    rinv = rekey(rinv); /* re-registration: a new key */
    CHECK_OK(ofl_tpt_register(&F.t, rinv, 1, &d)); /* d.flags = 0 now */
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, rinv, 1, 0),
              OFL_E_TPT_CANNOT_INVALIDATE);
    CHECK_OK(ofl_tpt_dereg(&F.t, rinv, 1));
    d.flags = OFL_TPT_F_INVALIDATABLE;
    rinv = reg(OFL_TPT_REGION, 1, &d);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, rinv, 2, 0),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_invalidate_remote(&F.t, rinv, 1, 12345)); /* any QP */
    CHECK_EQ(state_of(rinv), OFL_TPT_INVALID);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, rinv, 1, 0),
              OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, w1, 1, 0),
              OFL_E_TPT_CANNOT_INVALIDATE);
    CHECK_OK(ofl_tpt_bind(&F.t, w2, rfix, 1, 7, 0x10000, 0x10, RR, 0, &w2));
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, w2, 1, 8),
              OFL_E_TPT_QP_MISMATCH);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, w2, 2, 7),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_invalidate_remote(&F.t, other_key(w2), 1, 7),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_EQ(state_of(w2), OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_invalidate_remote(&F.t, w2, 1, 7));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w2, 1, 7, 0x10000, 1, RR),
              OFL_E_TPT_NOT_VALID);
}

/* One-shot keys, expiry, the Touched bit, query. */
static void test_one_shot_expire_touched(void)
{
    struct ofl_tpt_region_desc d =
        mkdesc(0x10000, 0x1000, 0, 1, LR | LW | RR | BW);
    struct ofl_tpt_info info;
    uint32_t r1, r, w, inv = 0;

    fx_init(STD);
    put_pages(0, 1, PG(0), PSZ);
    d.flags = OFL_TPT_F_ONE_SHOT;
    r1 = reg(OFL_TPT_REGION, 1, &d);
    d.flags = 0;
    r = reg(OFL_TPT_REGION, 1, &d);
    w = win(r, 1, false, 0, 0x10000, 0x10, RR, OFL_TPT_F_ONE_SHOT);
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &inv));

    /* note_use: middle segments keep a one-shot key, the last ends it. */
    CHECK_OK(ofl_tpt_note_use(&F.t, r1, false));
    CHECK_OK(ofl_tpt_note_use(&F.t, r1, false));
    CHECK_OK(ofl_tpt_check_remote(&F.t, r1, 1, 0, 0x10000, 1, RR));
    CHECK_OK(ofl_tpt_note_use(&F.t, r1, true));
    CHECK_ERR(ofl_tpt_check_remote(&F.t, r1, 1, 0, 0x10000, 1, RR),
              OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_note_use(&F.t, r1, false), OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_note_use(&F.t, w, false));
    CHECK_OK(ofl_tpt_note_use(&F.t, w, true));
    CHECK_EQ(state_of(w), OFL_TPT_INVALID);
    /* A multi-use key survives its last segment. */
    CHECK_OK(ofl_tpt_note_use(&F.t, r, true));
    CHECK_EQ(state_of(r), OFL_TPT_VALID);
    CHECK_ERR(ofl_tpt_note_use(&F.t, other_key(r), true),
              OFL_E_TPT_KEY_MISMATCH);

    /* Touched bit and stored sequence number (FIG. 18B). */
    CHECK_OK(ofl_tpt_set_touched(&F.t, r, 0xDEADBEEF));
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK(info.flags & OFL_TPT_F_TOUCHED);
    CHECK_EQ(info.stored_sn, 0xDEADBEEF);
    CHECK_ERR(ofl_tpt_set_touched(&F.t, inv, 1), OFL_E_TPT_NOT_VALID);

    /* Expiry: regardless of invalidatable; clears Touched. */
    CHECK_ERR(ofl_tpt_expire(&F.t, inv), OFL_E_TPT_NOT_VALID);
    CHECK_OK(ofl_tpt_expire(&F.t, r));
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK(!(info.flags & OFL_TPT_F_TOUCHED));
    CHECK_ERR(ofl_tpt_expire(&F.t, r), OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_set_touched(&F.t, r, 1), OFL_E_TPT_NOT_VALID);

    /* Query: the public view. */
    d = mkdesc(0x20000, 0x800, 0, 1, LR | RR);
    d.flags = OFL_TPT_F_ONE_TOUCH;
    r = reg(OFL_TPT_REGION, 3, &d);
    memset(&info, 0xEE, sizeof(info));
    CHECK_OK(ofl_tpt_query(&F.t, r, &info));
    CHECK_EQ(info.va, 0x20000);
    CHECK_EQ(info.len, 0x800);
    CHECK_EQ(info.pd, 3);
    CHECK_EQ(info.stored_sn, 0);
    CHECK_EQ(info.region_stag_index, 0);
    CHECK_EQ(info.type, OFL_TPT_REGION);
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_EQ(info.access, LR | RR);
    CHECK_EQ(info.flags, OFL_TPT_F_ONE_TOUCH);
    CHECK_OK(ofl_tpt_query(&F.t, inv, &info)); /* INVALID entries too */
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_EQ(info.pd, 1);
}

/* ------------------------------------------------------------------------ */
/* Translation                                                              */
/* ------------------------------------------------------------------------ */

static void test_translate_direct(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2E00, 0, 3, LR);
    uint32_t r, zb, w, r16, i;
    uint64_t words[9];

    fx_init(STD);
    /* Pages 1, 3, 5: nothing contiguous. fpo 0x100, last page ends at
     * 0x100 + 0x2E00 - 0x2000 = 0xF00. */
    put_pages(0, 3, PG(1), 2 * PSZ);
    d.fpo = 0x100;
    d.access = LR | BW;
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(r, 0x10000, 0x2E00, 8));
    CHECK_EQ(g_sgl.count, 3);
    CHECK_EQ(g_sgl.bytes, 0x2E00);
    CHECK_PIECE(0, PG(1) + 0x100, 0xF00);
    CHECK_PIECE(1, PG(3), 0x1000);
    CHECK_PIECE(2, PG(5), 0xF00);
    /* Inside one page, and across one boundary from mid-page. */
    CHECK_OK(xlate(r, 0x10010, 0x20, 8));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(1) + 0x110, 0x20);
    CHECK_OK(xlate(r, 0x10EFF, 2, 8));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, PG(1) + 0xFFF, 1);
    CHECK_PIECE(1, PG(3), 1);
    /* The last byte, zero length, bounds. */
    CHECK_OK(xlate(r, 0x12DFF, 1, 8));
    CHECK_PIECE(0, PG(5) + 0xEFF, 1);
    CHECK_OK(xlate(r, 0x12E00, 0, 0));
    CHECK_EQ(g_sgl.count, 0);
    CHECK_EQ(g_sgl.bytes, 0);
    CHECK_ERR(xlate(r, 0x12E00, 1, 8), OFL_E_TPT_BOUNDS);
    CHECK_ERR(xlate(r, 0xFFFF, 1, 8), OFL_E_TPT_BOUNDS);
    CHECK_ERR(xlate(r, U64MAX, 2, 8), OFL_E_TPT_TO_WRAP);

    /* Scatter list full: the pieces that fit are kept. */
    CHECK_ERR(xlate(r, 0x10000, 0x2E00, 2), OFL_E_TPT_SGL_FULL);
    CHECK_EQ(g_sgl.count, 2);
    CHECK_EQ(g_sgl.bytes, 0x1F00);
    CHECK_PIECE(1, PG(3), 0x1000);
    CHECK_EQ(g_pc[2].pa, 0xCCCCCCCCCCCCCCCCull); /* nothing beyond cap */
    CHECK_ERR(xlate(r, 0x10000, 1, 0), OFL_E_TPT_SGL_FULL);
    CHECK_EQ(g_sgl.count, 0);
    CHECK_EQ(g_sgl.bytes, 0);
    CHECK_ERR(ofl_tpt_translate(&F.t, r, 0x10000, 1, NULL), OFL_E_ARG);
    g_sgl.piece = NULL;
    g_sgl.cap = 1;
    CHECK_ERR(ofl_tpt_translate(&F.t, r, 0x10000, 1, &g_sgl), OFL_E_ARG);
    g_sgl.cap = 0;
    CHECK_OK(ofl_tpt_translate(&F.t, r, 0x10000, 0, &g_sgl));

    /* Physically contiguous pages merge into one piece. */
    put_pages(3, 3, PG(20), PSZ);
    d.att_base = 3;
    i = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(i, 0x10000, 0x2E00, 1));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(20) + 0x100, 0x2E00);
    CHECK_OK(xlate_local(i, 0x10E00, 0x400, 4)); /* straight-line path */
    CHECK_EQ(g_sgl.count, 1);
    CHECK_EQ(g_sgl.bytes, 0x400);
    CHECK_PIECE(0, PG(20) + 0xF00, 0x400);

    /* A zero-based region: TO 0 is the first byte (after fpo). */
    d.att_base = 0;
    d.flags = OFL_TPT_F_ZERO_BASED;
    zb = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(zb, 0x10, 0x20, 8));
    CHECK_PIECE(0, PG(1) + 0x110, 0x20);
    CHECK_OK(xlate(zb, 0xF00, 0x200, 8));
    CHECK_PIECE(0, PG(3), 0x200);
    CHECK_ERR(xlate(zb, 0x10000, 1, 8), OFL_E_TPT_BOUNDS);

    /* Windows translate through their region, at their place in it. */
    w = win(r, 1, false, 0, 0x10EF0, 0x20, RR, 0);
    CHECK_OK(xlate(w, 0x10EF0, 0x20, 8));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, PG(1) + 0xFF0, 0x10);
    CHECK_PIECE(1, PG(3), 0x10);
    CHECK_ERR(xlate(w, 0x10EEF, 1, 8), OFL_E_TPT_BOUNDS);
    CHECK_ERR(xlate(w, 0x10F10, 1, 8), OFL_E_TPT_BOUNDS);
    d.flags = OFL_TPT_F_ZERO_BASED;
    d.access = LR | BW;
    zb = reg(OFL_TPT_REGION, 1, &d);
    w = win(zb, 1, false, 0, 0xF00, 0x200, RR, 0); /* in zero-based TOs */
    CHECK_OK(xlate(w, 0xF00, 0x200, 8));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(3), 0x200);
    CHECK_ERR(xlate(w, 0x10F00, 1, 8), OFL_E_TPT_BOUNDS);

    /* Large pages: 64 KiB pages need 64 KiB aligned page words. */
    fx_init(STD);
    F.att[0] = (1ull << 40) | PRES;
    F.att[1] = ((1ull << 40) + 0x1000) | PRES; /* 4 KiB aligned only */
    d = mkdesc(0, 0x20000, 0, 2, LR);
    d.page_shift = 16;
    r16 = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(r16, 0x100, 0x10, 1));
    CHECK_PIECE(0, (1ull << 40) + 0x100, 0x10);
    CHECK_ERR(xlate(r16, 0xFFF0, 0x20, 4), OFL_E_TPT_ATT_CORRUPT);
    CHECK_EQ(g_sgl.count, 1); /* the good part is kept */
    CHECK_EQ(g_sgl.bytes, 0x10);

    /* A piece holds at most 2^31 bytes: nine contiguous 256 MiB pages. */
    for (i = 0; i < 9; i++)
        words[i] = ((1ull << 40) + ((uint64_t)i << 28)) | PRES;
    CHECK_OK(ofl_tpt_att_write(&F.t, 10, words, 9));
    d = mkdesc(0, 9ull << 28, 10, 9, LR);
    d.page_shift = 28;
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(r, 0, 9ull << 28, 4));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, 1ull << 40, 0x80000000u);
    CHECK_PIECE(1, (1ull << 40) + (8ull << 28), 1u << 28);
    CHECK_ERR(xlate(r, 0, 9ull << 28, 1), OFL_E_TPT_SGL_FULL);
    CHECK_EQ(g_sgl.bytes, 0x80000000u);

    /* A page ending at 2^64 and a page at address 0 are not contiguous. */
    words[0] = (U64MAX - 0xFFF) | PRES;
    words[1] = 0 | PRES;
    CHECK_OK(ofl_tpt_att_write(&F.t, 20, words, 2));
    d = mkdesc(0x10000, 0x2000, 20, 2, LR);
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_OK(xlate(r, 0x10000, 0x2000, 4));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, U64MAX - 0xFFF, 0x1000);
    CHECK_PIECE(1, 0, 0x1000);
    /* ... also for an access of at most a page across that boundary (the
     * straight-line path of check + translate, up to two pages). */
    CHECK_OK(xlate_local(r, 0x10800, 0x1000, 4));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_EQ(g_sgl.bytes, 0x1000);
    CHECK_PIECE(0, U64MAX - 0x7FF, 0x800);
    CHECK_PIECE(1, 0, 0x800);
    CHECK_EQ(F.sim.violations, 0);
}

/* Regions sharing one ATT (seed 000 FIG. 14). */
static void test_shared_att(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2000, 40, 2, LR);
    uint32_t a, b;

    fx_init(STD);
    put_pages(40, 2, PG(7), 3 * PSZ);
    a = reg(OFL_TPT_REGION, 1, &d);
    d.va = 0x7700000;
    d.flags = OFL_TPT_F_ZERO_BASED;
    b = reg(OFL_TPT_REGION, 2, &d);
    CHECK_OK(xlate(a, 0x11000, 0x10, 1));
    CHECK_PIECE(0, PG(10), 0x10);
    CHECK_OK(xlate(b, 0x1000, 0x10, 1));
    CHECK_PIECE(0, PG(10), 0x10);
    /* A page swapped out through one is out for both. */
    CHECK_OK(ofl_tpt_unmap_page(&F.t, a, 0x11800));
    CHECK_ERR(xlate(b, 0x1000, 0x10, 1), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, 0x1000);
    CHECK_OK(ofl_tpt_map_page(&F.t, b, 0x1FFF, PG(8)));
    CHECK_OK(xlate(a, 0x10FF0, 0x20, 1)); /* now contiguous: one piece */
    CHECK_PIECE(0, PG(7) + 0xFF0, 0x20);
    /* Deregistering one leaves the other (and the ATT) intact. */
    CHECK_OK(ofl_tpt_dereg(&F.t, a, 1));
    CHECK_OK(xlate(b, 0, 0x2000, 2));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(7), 0x2000);
}

static void test_att_write(void)
{
    uint64_t w[3] = {PG(1) | PRES, 0 /* not present */, PG(2) | 0x2};
    uint32_t i;

    fx_init(STD);
    for (i = 0; i < T_ATT; i++)
        F.att[i] = 0x5A5A000;
    CHECK_ERR(ofl_tpt_att_write(&F.t, 0, NULL, 1), OFL_E_ARG);
    CHECK_OK(ofl_tpt_att_write(&F.t, 0, NULL, 0));
    CHECK_OK(ofl_tpt_att_write(&F.t, T_ATT, w, 0));
    CHECK_ERR(ofl_tpt_att_write(&F.t, T_ATT + 1, w, 0), OFL_E_TPT_ATT_RANGE);
    CHECK_ERR(ofl_tpt_att_write(&F.t, T_ATT - 1, w, 2), OFL_E_TPT_ATT_RANGE);
    CHECK_ERR(ofl_tpt_att_write(&F.t, 0xFFFFFFFFu, w, 2), OFL_E_TPT_ATT_RANGE);
    /* A reserved bit anywhere: nothing is written. */
    CHECK_ERR(ofl_tpt_att_write(&F.t, 5, w, 3), OFL_E_TPT_ATT_CORRUPT);
    CHECK_EQ(F.att[5], 0x5A5A000);
    CHECK_EQ(F.att[6], 0x5A5A000);
    CHECK_OK(ofl_tpt_att_write(&F.t, T_ATT - 2, w, 2));
    CHECK_EQ(F.att[T_ATT - 2], PG(1) | PRES);
    CHECK_EQ(F.att[T_ATT - 1], 0);
}

/* Malformed ATT words are caught at translation. */
static void test_att_corrupt(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2000, 0, 2, LR);
    uint32_t r, r1, r2;
    unsigned long reads;

    fx_init(STD);
    CHECK(ofl_sim_allow(&F.sim, g_list[0], 4096, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[1], 4096, OFL_SIM_READ) == 0);
    memset(g_list, 0, sizeof(g_list));
    put_pages(0, 2, PG(1), PSZ);
    r = reg(OFL_TPT_REGION, 1, &d);
    F.att[1] = PG(2) | PRES | 0x2; /* reserved bit (att_write refuses) */
    CHECK_ERR(xlate(r, 0x10000, 0x2000, 4), OFL_E_TPT_ATT_CORRUPT);
    CHECK_EQ(g_sgl.bytes, 0x1000);
    F.att[1] = (PG(2) + 0x800) | PRES; /* misaligned */
    CHECK_ERR(xlate(r, 0x11000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    F.att[1] = PG(2) | PRES;
    CHECK_OK(xlate(r, 0x11000, 1, 4));

    /* 1st order: the list pointer in the ATT is checked before any DMA. */
    d.att_base = 10;
    d.att_count = 1;
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    r1 = reg(OFL_TPT_REGION, 1, &d);
    list_put(0, 0, PG(3) | PRES);
    list_put(0, 1, PG(4) | PRES | 0x100); /* reserved bit in host memory */
    reads = F.sim.dma_reads;
    F.att[10] = list_pa(0); /* not present */
    CHECK_ERR(xlate(r1, 0x10000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    F.att[10] = list_pa(0) | PRES | 0x4; /* reserved bit */
    CHECK_ERR(xlate(r1, 0x10000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    F.att[10] = (list_pa(0) + 8) | PRES; /* not 4 KiB aligned */
    CHECK_ERR(xlate(r1, 0x10000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    CHECK_EQ(F.sim.dma_reads, reads);
    F.att[10] = list_pa(0) | PRES;
    CHECK_OK(xlate(r1, 0x10000, 0x10, 4));
    CHECK_PIECE(0, PG(3), 0x10);
    CHECK_ERR(xlate(r1, 0x10000, 0x2000, 4), OFL_E_TPT_ATT_CORRUPT);
    CHECK_EQ(g_sgl.bytes, 0x1000);
    list_put(0, 1, (PG(4) + 0x200) | PRES); /* misaligned in host memory */
    CHECK_ERR(xlate(r1, 0x11000, 1, 4), OFL_E_TPT_ATT_CORRUPT);

    /* 2nd order: the level-2 word in host memory is checked too. */
    d.att_base = 11;
    d.att_kind = OFL_TPT_ATT_INDIRECT2;
    r2 = reg(OFL_TPT_REGION, 1, &d);
    F.att[11] = list_pa(1) | PRES;
    list_put(1, 0, list_pa(0)); /* not present */
    CHECK_ERR(xlate(r2, 0x10000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    list_put(1, 0, (list_pa(0) + 0x10) | PRES);
    CHECK_ERR(xlate(r2, 0x10000, 1, 4), OFL_E_TPT_ATT_CORRUPT);
    list_put(1, 0, list_pa(0) | PRES);
    CHECK_OK(xlate(r2, 0x10000, 1, 4));
    CHECK_PIECE(0, PG(3), 1);
    CHECK_EQ(F.sim.violations, 0);

    /* Without a port an indirect ATT cannot be read. */
    F.t.port = NULL;
    CHECK_ERR(xlate(r1, 0x10000, 1, 4), OFL_E_PORT_HOOK);
}

/* 1st- and 2nd-order indirect ATTs, crossing pages and list boundaries
 * with a first-page offset; only the list memory is allowed. */
static void test_translate_indirect(void)
{
    struct ofl_tpt_region_desc d;
    uint64_t va = 0x40000000, to;
    uint32_t r1, r2;

    fx_init(STD);
    memset(g_list, 0, sizeof(g_list));
    CHECK(ofl_sim_allow(&F.sim, g_list[0], 4096, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[1], 4096, OFL_SIM_READ) == 0);

    /* 1st order: two lists, pages 510 .. 513 straddle them. */
    d = mkdesc(va, 1024u * PSZ - 0x234, 10, 2, LR);
    d.fpo = 0x234;
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    F.att[10] = list_pa(0) | PRES;
    F.att[11] = list_pa(1) | PRES;
    list_put(0, 510, PG(100) | PRES);
    list_put(0, 511, PG(101) | PRES);
    list_put(1, 0, PG(300) | PRES);
    list_put(1, 1, PG(7) | PRES);
    r1 = reg(OFL_TPT_REGION, 1, &d);
    to = va + 510u * PSZ - 0x234 + 0x10; /* page 510, offset 0x10 */
    CHECK_OK(xlate(r1, to, 3u * PSZ, 8));
    CHECK_EQ(g_sgl.count, 3);
    CHECK_PIECE(0, PG(100) + 0x10, 0x1FF0); /* 510 + 511 merged */
    CHECK_PIECE(1, PG(300), 0x1000);
    CHECK_PIECE(2, PG(7), 0x10);
    CHECK_EQ(F.sim.dma_reads, 4); /* one word per page */
    /* The first byte of the region is at offset fpo of list 0 word 0. */
    list_put(0, 0, PG(55) | PRES);
    CHECK_OK(xlate(r1, va, 1, 1));
    CHECK_PIECE(0, PG(55) + 0x234, 1);
    /* The last byte of the region: page 1023 = list 1 word 511. */
    list_put(1, 511, PG(66) | PRES);
    CHECK_OK(xlate(r1, va + 1024u * PSZ - 0x234 - 1, 1, 1));
    CHECK_PIECE(0, PG(66) + 0xFFF, 1);
    CHECK_ERR(xlate(r1, va + 1024u * PSZ - 0x234, 1, 1), OFL_E_TPT_BOUNDS);

    /* 2nd order: level 2 in list 2, level 1 lists 3 and 4; pages 511 ..
     * 513 straddle the two level-1 lists. */
    memset(g_list, 0, sizeof(g_list));
    ofl_sim_revoke_all(&F.sim);
    ofl_sim_reset_records(&F.sim);
    CHECK(ofl_sim_allow(&F.sim, g_list[2], 4096, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[3], 4096, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[4], 4096, OFL_SIM_READ) == 0);
    va = 0x100000000ull;
    d = mkdesc(va, (1ull << 30) - 0x800, 20, 1, LR);
    d.fpo = 0x800;
    d.att_kind = OFL_TPT_ATT_INDIRECT2;
    F.att[20] = list_pa(2) | PRES;
    list_put(2, 0, list_pa(3) | PRES);
    list_put(2, 1, list_pa(4) | PRES);
    list_put(3, 511, PG(50) | PRES);
    list_put(4, 0, PG(51) | PRES);
    list_put(4, 1, PG(900) | PRES);
    r2 = reg(OFL_TPT_REGION, 1, &d);
    to = va + 511u * PSZ - 0x800 + 0x100; /* page 511, offset 0x100 */
    CHECK_OK(xlate(r2, to, 0xF00 + 0x1000 + 0x20, 8));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, PG(50) + 0x100, 0x1F00); /* 511 + 512 merged */
    CHECK_PIECE(1, PG(900), 0x20);
    CHECK_EQ(F.sim.dma_reads, 6); /* two words per page */
    /* The very last page of a 2nd-order slot: level 2 word 511, level 1
     * word 511. */
    list_put(2, 511, list_pa(3) | PRES);
    CHECK_OK(xlate(r2, va + (1ull << 30) - 0x800 - 1, 1, 1));
    CHECK_PIECE(0, PG(50) + 0xFFF, 1);
    CHECK_EQ(F.sim.violations, 0);
}

/* Seed 001 "Local Memory Protection": unpinned pages, MapLocalPage. */
static void test_page_fault(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x50000, 0x2E00, 30, 3, LR | LW | BW);
    uint32_t r, w, r1, r2, inv = 0;
    uint64_t fault;
    unsigned long writes;

    fx_init(STD);
    F.att[30] = PG(1) | PRES;
    F.att[31] = 0; /* swapped out */
    F.att[32] = PG(3) | PRES;
    d.fpo = 0x100;
    r = reg(OFL_TPT_REGION, 1, &d);
    CHECK_ERR(xlate(r, 0x50000, 0x2E00, 8), OFL_E_TPT_PAGE_FAULT);
    fault = 0x50000 + 0x1000 - 0x100; /* TO of page 1's first byte */
    CHECK_EQ(g_sgl.fault_va, fault);
    CHECK_EQ(g_sgl.count, 1);
    CHECK_EQ(g_sgl.bytes, 0xF00);
    CHECK_PIECE(0, PG(1) + 0x100, 0xF00);
    /* The fault is at the first byte asked for when that page is out. */
    CHECK_ERR(xlate(r, fault + 0x123, 0x10, 8), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, fault + 0x123);
    CHECK_EQ(g_sgl.count, 0);
    /* Map the page (any TO inside it will do) and retry. */
    CHECK_ERR(ofl_tpt_map_page(&F.t, r, fault, PG(2) + 0x800), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_map_page(&F.t, r, fault, PG(2) | 1), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_map_page(&F.t, r, 0x52E00, PG(2)), OFL_E_TPT_BOUNDS);
    CHECK_ERR(ofl_tpt_map_page(&F.t, r, U64MAX, PG(2)), OFL_E_TPT_BOUNDS);
    CHECK_EQ(F.att[31], 0);
    CHECK_OK(ofl_tpt_map_page(&F.t, r, fault + 0x777, PG(2)));
    CHECK_EQ(F.att[31], PG(2) | PRES);
    CHECK_OK(xlate(r, 0x50000, 0x2E00, 8));
    CHECK_EQ(g_sgl.count, 1); /* 1, 2, 3 are contiguous */
    CHECK_PIECE(0, PG(1) + 0x100, 0x2E00);
    /* Unmap (swap out) the last page; the region's first part still
     * translates. */
    CHECK_OK(ofl_tpt_unmap_page(&F.t, r, 0x52DFF));
    CHECK_EQ(F.att[32], 0);
    CHECK_ERR(xlate(r, 0x52000, 0x10, 8), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, 0x52000);
    CHECK_OK(xlate(r, 0x50000, 0x1F00, 8));
    CHECK_ERR(ofl_tpt_unmap_page(&F.t, r, 0x52E00), OFL_E_TPT_BOUNDS);
    /* Map through a window: its region's page. */
    w = win(r, 1, false, 0, 0x52000, 0x100, RR, 0);
    CHECK_OK(ofl_tpt_map_page(&F.t, w, 0x52000, PG(8)));
    CHECK_EQ(F.att[32], PG(8) | PRES);
    CHECK_ERR(ofl_tpt_map_page(&F.t, w, 0x52100, PG(8)), OFL_E_TPT_BOUNDS);
    /* Only VALID entries. */
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &inv));
    CHECK_ERR(ofl_tpt_map_page(&F.t, inv, 0, PG(8)), OFL_E_TPT_NOT_VALID);
    CHECK_ERR(ofl_tpt_unmap_page(&F.t, inv, 0), OFL_E_TPT_NOT_VALID);

    /* Indirect: the page word is written into the host list by DMA. */
    memset(g_list, 0, sizeof(g_list));
    CHECK(ofl_sim_allow(&F.sim, g_list[0], 4096, OFL_SIM_RW) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[1], 4096, OFL_SIM_RW) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[2], 4096, OFL_SIM_RW) == 0);
    d = mkdesc(0x80000, 0x2000, 40, 1, LR);
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    F.att[40] = list_pa(0) | PRES;
    list_put(0, 0, PG(20) | PRES);
    list_put(0, 1, 0);
    r1 = reg(OFL_TPT_REGION, 1, &d);
    CHECK_ERR(xlate(r1, 0x80000, 0x2000, 4), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, 0x81000);
    CHECK_EQ(F.sim.dma_writes, 0);
    CHECK_OK(ofl_tpt_map_page(&F.t, r1, 0x81000, PG(21)));
    CHECK_EQ(F.sim.dma_writes, 1);
    CHECK_EQ(list_get(0, 1), PG(21) | PRES);
    CHECK_EQ(list_get(0, 2), 0);
    CHECK_OK(xlate(r1, 0x80000, 0x2000, 4));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(20), 0x2000);
    CHECK_OK(ofl_tpt_unmap_page(&F.t, r1, 0x80FFF));
    CHECK_EQ(list_get(0, 0), 0);
    CHECK_ERR(xlate(r1, 0x80000, 1, 4), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, 0x80000);
    CHECK_OK(ofl_tpt_map_page(&F.t, r1, 0x80000, PG(20)));
    /* 2nd order: the level-1 word, found through level 2, is written. */
    d = mkdesc(0x90000, 0x2000, 41, 1, LR);
    d.att_kind = OFL_TPT_ATT_INDIRECT2;
    d.fpo = 0xF00;
    F.att[41] = list_pa(1) | PRES;
    list_put(1, 0, list_pa(2) | PRES);
    list_put(2, 0, PG(30) | PRES);
    list_put(2, 1, 0);
    list_put(2, 2, PG(32) | PRES);
    r2 = reg(OFL_TPT_REGION, 1, &d);
    CHECK_ERR(xlate(r2, 0x90000, 0x2000, 4), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(g_sgl.fault_va, 0x90100);
    CHECK_EQ(g_sgl.bytes, 0x100);
    CHECK_OK(ofl_tpt_map_page(&F.t, r2, g_sgl.fault_va, PG(31)));
    CHECK_EQ(list_get(2, 1), PG(31) | PRES);
    CHECK_EQ(list_get(1, 0), list_pa(2) | PRES); /* level 2 untouched */
    CHECK_OK(xlate(r2, 0x90000, 0x2000, 4));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, PG(30) + 0xF00, 0x2000);
    CHECK_EQ(F.sim.violations, 0);

    /* A read-only list cannot be written: the guard refuses, the port
     * reports it, the list is unchanged. */
    ofl_sim_revoke_all(&F.sim);
    CHECK(ofl_sim_allow(&F.sim, g_list[0], 4096, OFL_SIM_READ) == 0);
    CHECK_ERR(ofl_tpt_map_page(&F.t, r1, 0x81000, PG(40)), OFL_E_PORT_DMA);
    CHECK_EQ(F.sim.violations, 1);
    CHECK(F.sim.last_violation_write);
    CHECK_EQ(F.sim.last_violation_pa, list_pa(0) + 8);
    CHECK_EQ(list_get(0, 1), PG(21) | PRES);

    /* 2nd order: map_page walks level 2 as translation does. A level-2
     * word that is not present, or a read of it that fails, is named and
     * nothing is written. */
    CHECK(ofl_sim_allow(&F.sim, g_list[1], 4096, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&F.sim, g_list[2], 4096, OFL_SIM_RW) == 0);
    writes = F.sim.dma_writes;
    F.att[41] = list_pa(1); /* the level-2 pointer in the ATT */
    CHECK_ERR(ofl_tpt_map_page(&F.t, r2, 0x90100, PG(33)),
              OFL_E_TPT_ATT_CORRUPT);
    F.att[41] = (list_pa(1) + 8) | PRES; /* not 4 KiB aligned */
    CHECK_ERR(ofl_tpt_map_page(&F.t, r2, 0x90100, PG(33)),
              OFL_E_TPT_ATT_CORRUPT);
    F.att[41] = list_pa(1) | PRES;
    list_put(1, 0, list_pa(2)); /* the level-1 pointer in host memory */
    CHECK_ERR(ofl_tpt_map_page(&F.t, r2, 0x90100, PG(33)),
              OFL_E_TPT_ATT_CORRUPT);
    list_put(1, 0, list_pa(2) | PRES);
    ofl_sim_revoke_all(&F.sim);
    CHECK(ofl_sim_allow(&F.sim, g_list[2], 4096, OFL_SIM_RW) == 0);
    CHECK_ERR(ofl_tpt_map_page(&F.t, r2, 0x90100, PG(33)), OFL_E_PORT_DMA);
    CHECK_EQ(F.sim.last_violation_pa, list_pa(1));
    CHECK(!F.sim.last_violation_write);
    CHECK_EQ(F.sim.dma_writes, writes);
    CHECK_EQ(list_get(2, 1), PG(31) | PRES);
    CHECK(ofl_sim_allow(&F.sim, g_list[1], 4096, OFL_SIM_READ) == 0);
    CHECK_OK(ofl_tpt_map_page(&F.t, r2, 0x90100, PG(33)));
    CHECK_EQ(list_get(2, 1), PG(33) | PRES);
}

/* ------------------------------------------------------------------------ */
/* Terminate causes and completion statuses                                 */
/* ------------------------------------------------------------------------ */

struct cause_row {
    enum ofl_err e;
    uint8_t place[3], rdmap[3], inval[3]; /* layer, type, code */
};

/* Values from the IANA RDDP registry (RFC 5040 / RFC 5041 §7). */
static const struct cause_row cause_rows[] = {
    {OFL_E_TPT_INVALID_STAG, {1, 1, 0x00}, {0, 1, 0x00}, {0, 2, 0x09}},
    {OFL_E_TPT_KEY_MISMATCH, {1, 1, 0x00}, {0, 1, 0x00}, {0, 2, 0x09}},
    {OFL_E_TPT_NOT_VALID, {1, 1, 0x00}, {0, 1, 0x00}, {0, 2, 0x09}},
    {OFL_E_TPT_WRONG_TYPE, {1, 1, 0x00}, {0, 1, 0x00}, {0, 2, 0x09}},
    {OFL_E_TPT_REGION_GONE, {1, 1, 0x00}, {0, 1, 0x00}, {0, 2, 0x09}},
    {OFL_E_TPT_BOUNDS, {1, 1, 0x01}, {0, 1, 0x01}, {0, 2, 0x09}},
    {OFL_E_TPT_PD_MISMATCH, {1, 1, 0x02}, {0, 1, 0x03}, {0, 1, 0x09}},
    {OFL_E_TPT_QP_MISMATCH, {1, 1, 0x02}, {0, 1, 0x03}, {0, 1, 0x09}},
    {OFL_E_TPT_TO_WRAP, {1, 1, 0x03}, {0, 1, 0x04}, {0, 2, 0x09}},
    {OFL_E_TPT_ACCESS, {0, 1, 0x02}, {0, 1, 0x02}, {0, 2, 0x09}},
    {OFL_E_TPT_CANNOT_INVALIDATE, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    /* anything else: catastrophic, local to the stream */
    {OFL_E_TPT_NO_BIND, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_TPT_ACCESS_COMBO, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_TPT_PAGE_FAULT, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_TPT_ATT_CORRUPT, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_TPT_SGL_FULL, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_TPT_BUSY, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_PORT_DMA, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
    {OFL_E_ARG, {0, 2, 0x07}, {0, 2, 0x07}, {0, 2, 0x09}},
};

static void check_cause(enum ofl_err e, enum ofl_tpt_use use,
                        const uint8_t want[3])
{
    struct ofl_term_cause c = ofl_tpt_term_cause(e, use);

    if (c.layer != want[0] || c.etype != want[1] || c.ecode != want[2]) {
        char m[160];

        snprintf(m, sizeof(m), "%s use %d -> %u/%u/0x%02x, want %u/%u/0x%02x",
                 ofl_strerror(e), (int)use, c.layer, c.etype, c.ecode,
                 want[0], want[1], want[2]);
        ofl_test_fail_at(__FILE__, __LINE__, m);
    } else {
        ofl_test_passed++;
    }
}

static void test_term_cause(void)
{
    size_t i;

    /* The header's enums carry the registry's numbers. */
    CHECK_EQ(OFL_TERM_LAYER_DDP, 1);
    CHECK_EQ(OFL_TERM_DDP_TAGGED, 1);
    CHECK_EQ(OFL_TERM_DDP_T_TO_WRAP, 3);
    CHECK_EQ(OFL_TERM_RDMAP_REMOTE_PROTECTION, 1);
    CHECK_EQ(OFL_TERM_RDMAP_REMOTE_OPERATION, 2);
    CHECK_EQ(OFL_TERM_RDMAP_STAG_NOT_ASSOCIATED, 3);
    CHECK_EQ(OFL_TERM_RDMAP_TO_WRAP, 4);
    CHECK_EQ(OFL_TERM_RDMAP_CATASTROPHIC_STREAM, 7);
    CHECK_EQ(OFL_TERM_RDMAP_CANNOT_INVALIDATE, 9);
    for (i = 0; i < sizeof(cause_rows) / sizeof(cause_rows[0]); i++) {
        check_cause(cause_rows[i].e, OFL_TPT_USE_PLACE, cause_rows[i].place);
        check_cause(cause_rows[i].e, OFL_TPT_USE_RDMAP, cause_rows[i].rdmap);
        check_cause(cause_rows[i].e, OFL_TPT_USE_INVALIDATE,
                    cause_rows[i].inval);
    }
}

static void test_wc_status(void)
{
    CHECK_EQ(ofl_tpt_wc_status(OFL_OK), OFL_WC_SUCCESS);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_INVALID_STAG), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_KEY_MISMATCH), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_NOT_VALID), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_WRONG_TYPE), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_PD_MISMATCH), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_QP_MISMATCH), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_BOUNDS), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_TO_WRAP), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_ACCESS), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_REGION_GONE), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_NO_BIND), OFL_WC_MW_BIND_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_ACCESS_COMBO), OFL_WC_MW_BIND_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_PAGE_FAULT), OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_ATT_CORRUPT), OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_PORT_DMA), OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_DMA_RANGE), OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_SGL_FULL), OFL_WC_LOC_LEN_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_BUSY), OFL_WC_LOC_QP_OP_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_FULL), OFL_WC_LOC_QP_OP_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_CANNOT_INVALIDATE),
             OFL_WC_LOC_QP_OP_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_ARG), OFL_WC_LOC_QP_OP_ERR);
}


/*
 * Re-registration (fast register again after an invalidation) must change
 * the key, so that an STag advertised for the earlier registration fails;
 * the first registration after alloc uses the key alloc returned.
 */
static void test_reregister_key(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2000, 0, 2, LR | LW | BW);
    uint32_t s = 0, s2, s3, w;

    fx_init(STD);
    put_pages(0, 2, PG(0), PSZ);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s));
    /* First registration: another key than alloc's is refused. */
    CHECK_ERR(ofl_tpt_register(&F.t, ofl_stag_make(ofl_stag_index(s),
                                                   (uint8_t)(s + 7)), 1, &d),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_tpt_register(&F.t, s, 1, &d));
    w = win(s, 1, false, 0, 0x10000, 0x100, RW, 0);
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, s, 1));
    /* Re-registration with the same key: refused, nothing changes. */
    CHECK_ERR(ofl_tpt_register(&F.t, s, 1, &d), OFL_E_TPT_KEY_REUSED);
    CHECK_EQ(state_of(s), OFL_TPT_INVALID);
    /* With a new key: accepted; the old STag is stale everywhere. */
    s2 = ofl_stag_make(ofl_stag_index(s), (uint8_t)(ofl_stag_key(s) + 1));
    CHECK_ERR(ofl_tpt_register(&F.t, s2, 2, &d), OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_register(&F.t, s2, 1, &d));
    CHECK_OK(ofl_tpt_check_local(&F.t, s2, 1, 0x10000, 0x2000, LR));
    CHECK_ERR(ofl_tpt_check_local(&F.t, s, 1, 0x10000, 1, LR),
              OFL_E_TPT_KEY_MISMATCH);
    /* A VALID entry checks the key first, then refuses as busy. */
    CHECK_ERR(ofl_tpt_register(&F.t, s, 1, &d), OFL_E_TPT_KEY_MISMATCH);
    CHECK_ERR(ofl_tpt_register(&F.t, s2, 1, &d), OFL_E_TPT_BUSY);
    /* The window bound under the first registration stays dead. */
    CHECK_ERR(ofl_tpt_check_remote(&F.t, w, 1, 0, 0x10000, 1, RW),
              OFL_E_TPT_REGION_GONE);
    /* Any key other than the current one works, not only key + 1. */
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, s2, 1));
    s3 = ofl_stag_make(ofl_stag_index(s), (uint8_t)(ofl_stag_key(s2) + 100));
    CHECK_OK(ofl_tpt_register(&F.t, s3, 1, &d));
    /* After dealloc and a new alloc, the first-registration rule again. */
    CHECK_OK(ofl_tpt_dereg(&F.t, s3, 1));
    CHECK_OK(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &s));
    CHECK_EQ(ofl_stag_index(s), ofl_stag_index(s3));
    CHECK_ERR(ofl_tpt_register(&F.t, s3, 1, &d), OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_tpt_register(&F.t, s, 1, &d));
    CHECK_EQ(F.sim.violations, 0);
}

/* One comparison of ofl_tpt_check_translate with the two-call path, and of
 * ofl_tpt_check_translate_access with ofl_tpt_check_translate (each has the
 * fast path compiled in, so both are compared). */
static unsigned long ct_mismatch;
static void ct_compare(uint32_t stag, uint32_t pd, uint32_t qp, uint64_t to,
                       uint64_t len, uint8_t need, uint32_t cap)
{
    struct ofl_tpt_piece pa[8], pb[8], pc[8];
    struct ofl_tpt_sgl a = {pa, cap, 0, 0, 0}, b = {pb, cap, 0, 0, 0};
    struct ofl_tpt_sgl c = {pc, cap, 0, 0, 0};
    const struct ofl_tpt_remote r = {.to = to, .len = len, .stag = stag,
                                     .pd = pd, .qp = qp, .need = need};
    enum ofl_err e1, e2, e3;
    uint32_t i;

    memset(pa, 0, sizeof(pa));
    memset(pb, 0, sizeof(pb));
    memset(pc, 0, sizeof(pc));
    e1 = ofl_tpt_check_remote(&F.t, stag, pd, qp, to, len, need);
    if (e1 == OFL_OK)
        e1 = ofl_tpt_translate(&F.t, stag, to, len, &a);
    e2 = ofl_tpt_check_translate(&F.t, stag, pd, qp, to, len, need, &b);
    e3 = ofl_tpt_check_translate_access(&F.t, &r, &c);
    if (e3 != e2 || c.count != b.count || c.bytes != b.bytes ||
        (e3 == OFL_E_TPT_PAGE_FAULT && c.fault_va != b.fault_va))
        ct_mismatch++;
    for (i = 0; i < b.count && i < cap; i++)
        if (pc[i].pa != pb[i].pa || pc[i].len != pb[i].len)
            ct_mismatch++;
    if (e1 != e2 || a.count != b.count || a.bytes != b.bytes ||
        (e1 == OFL_E_TPT_PAGE_FAULT && a.fault_va != b.fault_va)) {
        ct_mismatch++;
        if (ct_mismatch < 5)
            printf("  check_translate differs: stag %08x pd %u to %llx len "
                   "%llu need %x cap %u: %s/%u/%llu vs %s/%u/%llu\n",
                   (unsigned)stag, (unsigned)pd, (unsigned long long)to,
                   (unsigned long long)len, (unsigned)need, (unsigned)cap,
                   ofl_strerror(e1), (unsigned)a.count,
                   (unsigned long long)a.bytes, ofl_strerror(e2),
                   (unsigned)b.count,
                   (unsigned long long)b.bytes);
        return;
    }
    for (i = 0; i < a.count; i++)
        if (pa[i].pa != pb[i].pa || pa[i].len != pb[i].len)
            ct_mismatch++;
}

/* The same for ofl_tpt_check_translate_local against check_local +
 * translate; ct_granted and ct_refused count its two outcomes (grants over
 * direct ATTs take its fast path, every refusal its precise path). */
static unsigned long ct_granted, ct_refused;
static void ctl_compare(uint32_t stag, uint32_t pd, uint64_t va, uint64_t len,
                        uint8_t need, uint32_t cap)
{
    struct ofl_tpt_piece pa[8], pb[8];
    struct ofl_tpt_sgl a = {pa, cap, 0, 0, 0}, b = {pb, cap, 7, 7, 0};
    struct ofl_tpt_local l;
    enum ofl_err e1, e2;
    uint32_t i;

    memset(pa, 0, sizeof(pa));
    memset(pb, 0, sizeof(pb));
    e1 = ofl_tpt_check_local(&F.t, stag, pd, va, len, need);
    if (e1 == OFL_OK)
        e1 = ofl_tpt_translate(&F.t, stag, va, len, &a);
    l.va = va;
    l.len = len;
    l.stag = stag;
    l.pd = pd;
    l.need = need;
    e2 = ofl_tpt_check_translate_local(&F.t, &l, &b);
    if (e2 == OFL_OK)
        ct_granted++;
    else
        ct_refused++;
    if (e1 != e2 || a.count != b.count || a.bytes != b.bytes ||
        (e1 == OFL_E_TPT_PAGE_FAULT && a.fault_va != b.fault_va)) {
        ct_mismatch++;
        if (ct_mismatch < 5)
            printf("  check_translate_local differs: stag %08x pd %u va "
                   "%llx len %llu need %x cap %u: %s/%u/%llu vs "
                   "%s/%u/%llu\n",
                   (unsigned)stag, (unsigned)pd, (unsigned long long)va,
                   (unsigned long long)len, (unsigned)need, (unsigned)cap,
                   ofl_strerror(e1), (unsigned)a.count,
                   (unsigned long long)a.bytes, ofl_strerror(e2),
                   (unsigned)b.count, (unsigned long long)b.bytes);
        return;
    }
    for (i = 0; i < a.count; i++)
        if (pa[i].pa != pb[i].pa || pa[i].len != pb[i].len)
            ct_mismatch++;
}

/*
 * ofl_tpt_check_translate (the fast path of inbound placement) against
 * check_remote + translate over regions and windows of every kind, both
 * policies, boundaries, stale and foreign STags, rights, missing and
 * malformed pages, and scatter lists too small.
 */
static void test_check_translate(void)
{
    static const uint64_t lens[] = {0, 1, 100, 4095, 4096, 4097, 8192, 0x3000};
    static const uint8_t needs[] = {RW, RR, RA, RR | RW, LR};
    static const uint8_t lneeds[] = {LR, LW, BW, LR | LW, 0, RW, LR | RR};
    static const uint32_t caps[] = {0, 1, 2, 8};
    int pol;

    ct_mismatch = 0;
    ct_granted = 0;
    ct_refused = 0;
    for (pol = 0; pol < 2; pol++) {
        struct ofl_tpt_region_desc d;
        uint32_t stags[14], ns = 0, r1, r2, r3, r4, r5, r6, dead, k, i, j, c;
        uint32_t q;
        uint64_t w;
        uint64_t bases[14];

        fx_init(pol == 0 ? STD : WONLY);
        /* r1: scattered direct pages, remote rights, offset first page. */
        put_pages(0, 4, PG(10), 2 * PSZ);
        d = mkdesc(0x40000, 0x3800, 0, 4, LR | LW | RR | RW | RA | BW);
        d.fpo = 0x400;
        r1 = reg(OFL_TPT_REGION, 1, &d);
        /* r2: contiguous pages (merge), zero-based, page 2 not present. */
        put_pages(4, 4, PG(40), PSZ);
        CHECK_OK(ofl_tpt_att_write(&F.t, 6, (uint64_t[]){0}, 1));
        d = mkdesc(0, 0x4000, 4, 4, LR | LW | RW | BW);
        d.flags = OFL_TPT_F_ZERO_BASED;
        r2 = reg(OFL_TPT_REGION, 1, &d);
        /* r3: a malformed page word (reserved bit) at page 1. */
        put_pages(8, 2, PG(60), PSZ);
        w = PG(61) | PRES | 0x10;
        CHECK_ERR(ofl_tpt_att_write(&F.t, 9, &w, 1), OFL_E_TPT_ATT_CORRUPT);
        F.att[9] = w; /* bypass att_write's check: a corrupted ATT */
        d = mkdesc(0x80000, 0x2000, 8, 2, LR | LW | RW | BW);
        r3 = reg(OFL_TPT_REGION, 1, &d);
        /* r4: 1st-order indirect through host memory. */
        memset(g_list[0], 0, sizeof(g_list[0]));
        for (i = 0; i < 4; i++)
            ofl_store_le64(g_list[0] + 8 * i, PG(80 + 3 * i) | PRES);
        CHECK(ofl_sim_allow(&F.sim, g_list[0], 4096, OFL_SIM_READ) == 0);
        w = ofl_sim_pa(g_list[0]) | PRES;
        CHECK_OK(ofl_tpt_att_write(&F.t, 12, &w, 1));
        d = mkdesc(0xC0000, 0x4000, 12, 1, LR | LW | RW | RR | BW);
        d.att_kind = OFL_TPT_ATT_INDIRECT1;
        r4 = reg(OFL_TPT_REGION, 1, &d);
        /* r5: scattered pages with a malformed word at page 2, so that a
         * short list is full (page 1 does not continue page 0) before
         * the bad word is read: both paths must say SGL_FULL. */
        put_pages(24, 3, PG(100), 2 * PSZ);
        w = PG(104) | PRES | 0x10;
        F.att[26] = w;
        d = mkdesc(0xE0000, 0x3000, 24, 3, LR | LW | RW | RR | BW);
        r5 = reg(OFL_TPT_REGION, 1, &d);
        /* r6: read-only (no local write, no bind). */
        put_pages(28, 2, PG(110), PSZ);
        d = mkdesc(0x120000, 0x2000, 28, 2, LR | RR);
        r6 = reg(OFL_TPT_REGION, 1, &d);
        stags[ns] = r6, bases[ns++] = 0x120000;
        stags[ns] = r1, bases[ns++] = 0x40000;
        stags[ns] = r2, bases[ns++] = 0;
        stags[ns] = r3, bases[ns++] = 0x80000;
        stags[ns] = r4, bases[ns++] = 0xC0000;
        stags[ns] = r5, bases[ns++] = 0xE0000;
        /* Windows: type 1 over r1, type 2 (qp 5) over r2, over r4. */
        stags[ns] = win(r1, 1, false, 0, 0x40100, 0x2000, RW | RR, 0);
        bases[ns++] = 0x40100;
        stags[ns] = win(r2, 1, true, 5, 0x1000, 0x2800, RW, 0);
        bases[ns++] = 0x1000;
        stags[ns] = win(r4, 1, false, 0, 0xC0010, 0x3000, RW, 0);
        bases[ns++] = 0xC0010;
        /* A window whose region is deregistered. */
        put_pages(20, 1, PG(90), PSZ);
        d = mkdesc(0x100000, 0x1000, 20, 1, LR | LW | BW);
        dead = reg(OFL_TPT_REGION, 1, &d);
        stags[ns] = win(dead, 1, false, 0, 0x100000, 0x1000, RW, 0);
        bases[ns++] = 0x100000;
        CHECK_OK(ofl_tpt_dereg(&F.t, dead, 1));
        /* Stale key, unallocated index, index 0. */
        stags[ns] = ofl_stag_make(ofl_stag_index(r1), (uint8_t)(r1 + 1));
        bases[ns++] = 0x40000;
        stags[ns] = ofl_stag_make(T_CAP - 1, 1), bases[ns++] = 0;
        stags[ns] = 0, bases[ns++] = 0;
        for (k = 0; k < ns; k++) {
            uint64_t tos[8];

            tos[0] = bases[k];
            tos[1] = bases[k] + 1;
            tos[2] = bases[k] + 0xC00;
            tos[3] = bases[k] + 0x1FFF;
            tos[4] = bases[k] - 1;
            tos[5] = bases[k] + 0x3000;
            tos[6] = U64MAX - 10;
            tos[7] = bases[k] + 0x37FF;
            for (i = 0; i < 8; i++)
                for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
                    for (c = 0; c < sizeof(needs); c++)
                        for (q = 0; q < 3; q++) {
                            ct_compare(stags[k], q == 2 ? 2 : 1,
                                       q == 1 ? 5 : 0, tos[i], lens[j],
                                       needs[c], caps[(i + j) % 4]);
                        }
            for (i = 0; i < 8; i++)
                for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
                    for (c = 0; c < sizeof(lneeds); c++)
                        for (q = 1; q < 3; q++)
                            ctl_compare(stags[k], q, tos[i], lens[j],
                                        lneeds[c], caps[(i + j + c) % 4]);
        }
        CHECK_EQ(F.sim.violations, 0);
    }
    CHECK_EQ(ct_mismatch, 0);
    /* Both outcomes of the local variant were taken. */
    CHECK(ct_granted > 100);
    CHECK(ct_refused > 100);
    /* Argument checks. */
    {
        struct ofl_tpt_sgl sgl = {NULL, 0, 0, 0, 0};
        struct ofl_tpt_local l = {0, 1, 0x100, 1, LR};

        CHECK_ERR(ofl_tpt_check_translate_local(&F.t, NULL, &sgl), OFL_E_ARG);
        CHECK_ERR(ofl_tpt_check_translate_local(&F.t, &l, NULL), OFL_E_ARG);
        CHECK_ERR(ofl_tpt_check_translate_local(NULL, &l, &sgl), OFL_E_ARG);
        sgl.cap = 2;
        CHECK_ERR(ofl_tpt_check_translate_local(&F.t, &l, &sgl), OFL_E_ARG);
        sgl.cap = 0;

        CHECK_ERR(ofl_tpt_check_translate(&F.t, 0x100, 1, 0, 0, 1, RW, NULL),
                  OFL_E_ARG);
        CHECK_ERR(ofl_tpt_check_translate(NULL, 0x100, 1, 0, 0, 1, RW, &sgl),
                  OFL_E_ARG);
        sgl.cap = 2;
        CHECK_ERR(ofl_tpt_check_translate(&F.t, 0x100, 1, 0, 0, 1, RW, &sgl),
                  OFL_E_ARG);
    }
}

/* A QP's life ended: its type 2 windows of its PD die, nothing else. */
static void test_invalidate_qp(void)
{
    struct ofl_tpt_region_desc d =
        mkdesc(0x10000, 0x4000, 0, 4, LR | LW | BW);
    struct ofl_tpt_info info;
    uint32_t r1, r2, mine, other_qp, type1, other_pd, gone;

    fx_init(STD);
    r1 = reg(OFL_TPT_REGION, 1, &d);
    r2 = reg(OFL_TPT_REGION, 2, &d);
    mine = win(r1, 1, true, 9, 0x10000, 64, RW, 0);
    other_qp = win(r1, 1, true, 8, 0x10000, 64, RW, 0);
    type1 = win(r1, 1, false, 9, 0x10000, 64, RW, 0);
    other_pd = win(r2, 2, true, 9, 0x10000, 64, RW, 0);
    gone = win(r1, 1, true, 9, 0x10040, 64, RW, 0);
    CHECK_OK(ofl_tpt_invalidate_local(&F.t, gone, 1));
    CHECK_EQ(ofl_tpt_invalidate_qp(&F.t, 9, 1), 1);
    CHECK_OK(ofl_tpt_query(&F.t, mine, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_tpt_query(&F.t, other_qp, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_query(&F.t, type1, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_query(&F.t, other_pd, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_query(&F.t, r1, &info)); /* regions untouched */
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_EQ(ofl_tpt_invalidate_qp(&F.t, 9, 1), 0); /* nothing left */
    CHECK_EQ(ofl_tpt_invalidate_qp(NULL, 9, 1), 0);
}

/* ofl_tpt_reg_physical: the TO is the physical address, local rights
 * only, no page words, no invalidation, no windows, dereg frees it. */
static void test_reg_physical(void)
{
    struct ofl_tpt_region_desc d = mkdesc(0x10000, 0x2000, 0, 2, LR | LW);
    struct ofl_tpt_info info;
    struct ofl_tpt_local a;
    uint32_t ps, ps2, i, n;

    fx_init(STD);
    CHECK_ERR(ofl_tpt_reg_physical(NULL, 1, LW, &ps), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, 0x40, &ps), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW | RW, &ps),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW | RR, &ps),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW | RA, &ps),
              OFL_E_TPT_ACCESS_COMBO);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW | BW, &ps),
              OFL_E_TPT_ACCESS_COMBO);
    /* refusals allocated nothing: every entry is still free */
    n = 0;
    for (i = 1; i < T_CAP; i++)
        if (ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 3, 0, &ps2) == OFL_OK)
            n++;
    CHECK_EQ(n, T_CAP - 1);
    CHECK_ERR(ofl_tpt_reg_physical(&F.t, 1, LW, &ps), OFL_E_TPT_FULL);

    fx_init(STD);
    CHECK_OK(ofl_tpt_reg_physical(&F.t, 1, LW, &ps));
    CHECK_OK(ofl_tpt_reg_physical(&F.t, 2, 0, &ps2)); /* read only */
    CHECK_OK(ofl_tpt_query(&F.t, ps, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_EQ(info.access, LR | LW);
    /* the TO is the address: any range, pieces split at 2 GiB */
    CHECK_OK(xlate_local(ps, 0x123456789ull, 100, 4));
    CHECK_EQ(g_sgl.count, 1);
    CHECK_PIECE(0, 0x123456789ull, 100);
    CHECK_OK(xlate(ps, 0x7FFFFFF0ull, 0x100000000ull, 4));
    CHECK_EQ(g_sgl.count, 2);
    CHECK_PIECE(0, 0x7FFFFFF0ull, 0x80000000u);
    CHECK_PIECE(1, 0xFFFFFFF0ull, 0x80000000u);
    CHECK_ERR(xlate(ps, 0, 0x100000001ull, 2), OFL_E_TPT_SGL_FULL);
    CHECK_EQ(g_sgl.bytes, 0x100000000ull);
    CHECK_OK(xlate(ps, U64MAX - 16, 16, 1)); /* up to the last TO */
    CHECK_PIECE(0, U64MAX - 16, 16);
    CHECK_ERR(xlate(ps, U64MAX - 16, 17, 1), OFL_E_TPT_BOUNDS);
    /* local checks as for any region: PD, rights */
    CHECK_OK(ofl_tpt_check_local(&F.t, ps, 1, 0x1000, 64, LW));
    CHECK_ERR(ofl_tpt_check_local(&F.t, ps, 2, 0x1000, 64, LW),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_check_local(&F.t, ps2, 2, 0x1000, 64, LW),
              OFL_E_TPT_ACCESS);
    sgl_reset(4);
    a.va = 0x5000;
    a.len = 8;
    a.stag = ps2;
    a.pd = 2;
    a.need = OFL_TPT_LOCAL_WRITE;
    CHECK_ERR(ofl_tpt_check_translate_local(&F.t, &a, &g_sgl),
              OFL_E_TPT_ACCESS);
    /* never remote, never a window's region, never invalidated */
    CHECK_ERR(ofl_tpt_check_remote(&F.t, ps, 1, 0, 0x1000, 64,
                                   OFL_TPT_REMOTE_WRITE),
              OFL_E_TPT_ACCESS);
    CHECK_ERR(ofl_tpt_check_remote(&F.t, ps, 1, 0, 0x1000, 64,
                                   OFL_TPT_REMOTE_READ),
              OFL_E_TPT_ACCESS);
    CHECK(ofl_tpt_invalidate_local(&F.t, ps, 1) != OFL_OK);
    CHECK_ERR(ofl_tpt_map_page(&F.t, ps, 0x1000, 0x2000),
              OFL_E_TPT_WRONG_TYPE);
    CHECK_ERR(ofl_tpt_unmap_page(&F.t, ps, 0x1000), OFL_E_TPT_WRONG_TYPE);
    CHECK_OK(ofl_tpt_query(&F.t, ps, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    /* a descriptor can never make one */
    d.att_kind = OFL_TPT_ATT_PHYSICAL;
    CHECK_ERR(ofl_tpt_alloc(&F.t, OFL_TPT_REGION, 1, 0, &i), OFL_OK);
    CHECK_ERR(ofl_tpt_register(&F.t, i, 1, &d), OFL_E_TPT_BAD_DESC);
    /* dereg frees it: the STag no longer translates */
    CHECK_OK(ofl_tpt_dereg(&F.t, ps, 1));
    CHECK(xlate(ps, 0x1000, 8, 4) != OFL_OK);
}

OFL_SUITE(tpt)
{
    test_reg_physical();
    test_init();
    test_invalidate_qp();
    test_alloc_full();
    test_stale_key();
    test_invalid_index();
    test_register_desc();
    test_reg_pages();
    test_reg_phys();
    test_check_local();
    test_check_remote();
    test_check_iscsi();
    test_iscsi_owner();
    test_windows();
    test_region_gone();
    test_invalidate();
    test_one_shot_expire_touched();
    test_translate_direct();
    test_shared_att();
    test_att_write();
    test_att_corrupt();
    test_translate_indirect();
    test_page_fault();
    test_term_cause();
    test_wc_status();
    test_reregister_key();
    test_check_translate();
}
