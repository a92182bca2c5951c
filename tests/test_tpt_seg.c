/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * tpt: local protection through a segment table (offload.h, "local
 * protection: the segment table"; seed 001 "Local Memory Protection", FIG.
 * 13-17). An effective address (segment id, page number, offset) becomes a
 * virtual address through the process's segment table, which
 * SegmentTableUpdate keeps current; a process registers and binds only the
 * effective addresses its table maps. Every refusal of ofl_tpt_seg_init,
 * ofl_tpt_seg_update, ofl_tpt_seg_translate, ofl_tpt_register_ea and
 * ofl_tpt_bind_ea is tripped here, each with a call that passes, and each
 * failure is shown to change nothing.
 */
#include "test.h"

#define S_CAP 8u
#define S_SHIFT 28u /* 256 MiB segments */
#define T_CAP 8u
#define T_ATT 16u
#define PRES OFL_TPT_ATT_PRESENT
#define U64MAX (~(uint64_t)0)
#define PG(n) (0x100000000ull + (uint64_t)(n) * 0x1000u)
#define EA(esid, off) (((uint64_t)(esid) << S_SHIFT) | (uint64_t)(off))
#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define BW OFL_TPT_BIND_WINDOW

struct sfx {
    struct ofl_tpt_segtab st;
    struct ofl_tpt_seg seg[S_CAP];
    struct ofl_tpt t;
    struct ofl_tpt_entry e[T_CAP];
    uint64_t att[T_ATT];
};

static struct sfx S;

static enum ofl_err upd(uint8_t op, uint32_t esid, uint64_t vsid)
{
    struct ofl_tpt_seg_update u;

    memset(&u, 0, sizeof(u));
    u.op = op;
    u.esid = esid;
    u.vsid = vsid;
    return ofl_tpt_seg_update(&S.st, &u);
}

/* Segments 1 -> vsid 0x10, 2 -> 0x11 (continues 1), 3 -> 0x40 (does not
 * continue 2), 4 invalid, 5 -> 0x12; a TPT with 4 direct pages. */
static void sfx_init(void)
{
    uint64_t w[4];
    uint32_t i;

    memset(&S, 0, sizeof(S));
    CHECK_OK(ofl_tpt_seg_init(&S.st, S.seg, S_CAP, S_SHIFT));
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 1, 0x10));
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 2, 0x11));
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 3, 0x40));
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 5, 0x12));
    CHECK_OK(ofl_tpt_init(&S.t, S.e, T_CAP, S.att, T_ATT, NULL,
                          OFL_TPT_POLICY_STANDARD));
    for (i = 0; i < 4; i++)
        w[i] = PG(i) | PRES;
    CHECK_OK(ofl_tpt_att_write(&S.t, 0, w, 4));
}

static struct ofl_tpt_region_desc mkdesc(uint64_t va, uint64_t len,
                                         uint8_t access)
{
    struct ofl_tpt_region_desc d;

    memset(&d, 0, sizeof(d));
    d.va = va;
    d.len = len;
    d.att_base = 0;
    d.att_count = 4;
    d.page_shift = 12;
    d.att_kind = OFL_TPT_ATT_DIRECT;
    d.access = access;
    return d;
}

static void test_seg_init(void)
{
    struct ofl_tpt_segtab st;
    struct ofl_tpt_seg seg[17];
    uint32_t i;

    memset(&st, 0x5A, sizeof(st));
    CHECK_ERR(ofl_tpt_seg_init(NULL, seg, 4, S_SHIFT), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_init(&st, NULL, 4, S_SHIFT), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_init(&st, seg, 0, S_SHIFT), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_init(&st, seg, OFL_TPT_SEG_MAX_ENTRIES + 1u,
                               S_SHIFT),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_init(&st, seg, 4, OFL_TPT_SEG_SHIFT_MIN - 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_init(&st, seg, 4, OFL_TPT_SEG_SHIFT_MAX + 1),
              OFL_E_ARG);
    /* 2^(64 - 60) = 16 segment ids exist with 2^60-byte segments. */
    CHECK_ERR(ofl_tpt_seg_init(&st, seg, 17, 60), OFL_E_ARG);
    CHECK_EQ(st.capacity, 0x5A5A5A5Au); /* refused: st unchanged */
    memset(seg, 0xFF, sizeof(seg));
    CHECK_OK(ofl_tpt_seg_init(&st, seg, 16, 60));
    CHECK_EQ(st.capacity, 16);
    CHECK_EQ(st.seg_shift, 60);
    CHECK_EQ(st.valid_count, 0);
    CHECK_EQ(st.updates, 0);
    for (i = 0; i < 16; i++)
        CHECK(seg[i].valid == 0 && seg[i].vsid == 0);
    CHECK_EQ(seg[16].valid, 0xFF); /* beyond capacity: not touched */
    CHECK_OK(ofl_tpt_seg_init(&st, seg, 1, OFL_TPT_SEG_SHIFT_MIN));
    CHECK_OK(ofl_tpt_seg_init(&st, seg, 4, OFL_TPT_SEG_SHIFT_MAX));
}

/* A table never initialised (no entry array) is refused, not read. */
static void test_seg_uninit(void)
{
    struct ofl_tpt_segtab st;
    struct ofl_tpt_seg_update u;
    uint64_t va = 3;

    memset(&st, 0, sizeof(st));
    memset(&u, 0, sizeof(u));
    u.op = OFL_TPT_SEG_ADD;
    CHECK_ERR(ofl_tpt_seg_update(&st, &u), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_translate(&st, 0, 1, &va), OFL_E_ARG);
    CHECK_EQ(va, 3);
}

/* SegmentTableUpdate: every refusal changes nothing. */
static void test_seg_update(void)
{
    struct ofl_tpt_seg before[S_CAP];
    struct ofl_tpt_segtab st_before;
    struct ofl_tpt_seg_update u;
    const uint64_t vmax = U64MAX >> S_SHIFT;

    sfx_init();
    CHECK_EQ(S.st.valid_count, 4);
    CHECK_EQ(S.st.updates, 4);
    memcpy(before, S.seg, sizeof(before));
    st_before = S.st;
    memset(&u, 0, sizeof(u));
    u.op = OFL_TPT_SEG_ADD;
    CHECK_ERR(ofl_tpt_seg_update(NULL, &u), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_update(&S.st, NULL), OFL_E_ARG);
    CHECK_ERR(upd(OFL_TPT_SEG_ADD, S_CAP, 1), OFL_E_TPT_SEG_RANGE);
    CHECK_ERR(upd(OFL_TPT_SEG_DELETE, 0xFFFFFFFFu, 0), OFL_E_TPT_SEG_RANGE);
    CHECK_ERR(upd(0, 0, 1), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(4, 0, 1), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(0xFF, 0, 1), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_ADD, 0, vmax + 1u), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_ADD, 0, U64MAX), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_ADD, 1, 0x20), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_CHANGE, 4, 0x20), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_CHANGE, 1, vmax + 1u), OFL_E_TPT_SEG_UPDATE);
    CHECK_ERR(upd(OFL_TPT_SEG_DELETE, 4, 0), OFL_E_TPT_SEG_UPDATE);
    CHECK(memcmp(before, S.seg, sizeof(before)) == 0);
    CHECK(memcmp(&st_before, &S.st, sizeof(st_before)) == 0);

    /* And each that passes. */
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 0, vmax)); /* the highest segment */
    CHECK(S.seg[0].valid == 1 && S.seg[0].vsid == vmax);
    CHECK_EQ(S.st.valid_count, 5);
    CHECK_OK(upd(OFL_TPT_SEG_CHANGE, 1, 0x30));
    CHECK(S.seg[1].valid == 1 && S.seg[1].vsid == 0x30);
    CHECK_EQ(S.st.valid_count, 5);
    CHECK_OK(upd(OFL_TPT_SEG_DELETE, 1, 0xDEAD)); /* vsid ignored */
    CHECK(S.seg[1].valid == 0 && S.seg[1].vsid == 0);
    CHECK_EQ(S.st.valid_count, 4);
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 1, 0x10)); /* added again */
    CHECK_OK(upd(OFL_TPT_SEG_ADD, S_CAP - 1u, 0));
    CHECK_EQ(S.st.valid_count, 6);
    CHECK_EQ(S.st.updates, 9);
}

/* Effective -> virtual: FIG. 15 composition and every refusal. */
static void test_seg_translate(void)
{
    uint64_t va = 0x77;
    const uint64_t seg = 1ull << S_SHIFT;

    sfx_init();
    CHECK_ERR(ofl_tpt_seg_translate(NULL, EA(1, 0), 1, &va), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(1, 0), 1, NULL), OFL_E_ARG);

    /* Passes: page number and offset kept, upper bits from the entry. */
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(1, 0x0ABC1234), 0x100, &va));
    CHECK_EQ(va, (0x10ull << S_SHIFT) | 0x0ABC1234u);
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(3, 5), 0, &va)); /* len 0 */
    CHECK_EQ(va, (0x40ull << S_SHIFT) | 5u);
    /* The last byte of a segment, not beyond. */
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(3, 0), seg, &va));
    CHECK_EQ(va, 0x40ull << S_SHIFT);
    /* Segments 1 and 2 continue each other: a range may cross. */
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(1, seg - 16u), 32, &va));
    CHECK_EQ(va, (0x10ull << S_SHIFT) + seg - 16u);
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(1, 0), 2 * seg, &va));

    va = 0x77;
    /* ea + len - 1 wraps. */
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, U64MAX - 1u, 3, &va),
              OFL_E_TPT_SEG_RANGE);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(1, 0), U64MAX, &va),
              OFL_E_TPT_SEG_RANGE);
    /* A segment id beyond the table; a range that runs past it. */
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(S_CAP, 0), 1, &va),
              OFL_E_TPT_SEG_RANGE);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, U64MAX, 0, &va),
              OFL_E_TPT_SEG_RANGE);
    CHECK_OK(upd(OFL_TPT_SEG_ADD, S_CAP - 1u, 0x50));
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(S_CAP - 1u, seg - 1u), 2, &va),
              OFL_E_TPT_SEG_RANGE);
    /* No valid entry: segment 0 (never added), 4, and a range crossing
     * from 3 into 4. */
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(0, 0x10), 1, &va),
              OFL_E_TPT_SEG_INVALID);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(4, 0), 0, &va),
              OFL_E_TPT_SEG_INVALID);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(3, seg - 1u), 2, &va),
              OFL_E_TPT_SEG_INVALID);
    /* 2 -> 3 does not continue the virtual addresses. */
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(2, seg - 1u), 2, &va),
              OFL_E_TPT_SEG_DISCONTIG);
    /* The first failure in segment order: 2 -> 3 discontiguous before 4
     * invalid. */
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(2, 0), 3 * seg, &va),
              OFL_E_TPT_SEG_DISCONTIG);
    CHECK_EQ(va, 0x77); /* never written on failure */

    /* A deleted segment stops translating; a changed one moves. */
    CHECK_OK(upd(OFL_TPT_SEG_DELETE, 3, 0));
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(3, 5), 1, &va),
              OFL_E_TPT_SEG_INVALID);
    CHECK_OK(upd(OFL_TPT_SEG_CHANGE, 2, 0x41));
    CHECK_OK(ofl_tpt_seg_translate(&S.st, EA(2, 5), 1, &va));
    CHECK_EQ(va, (0x41ull << S_SHIFT) | 5u);
    CHECK_ERR(ofl_tpt_seg_translate(&S.st, EA(1, seg - 1u), 2, &va),
              OFL_E_TPT_SEG_DISCONTIG);
}

static uint8_t entry_state(uint32_t stag)
{
    return S.e[ofl_stag_index(stag)].state;
}

/* Registration through the table. */
static void test_register_ea(void)
{
    struct ofl_tpt_region_desc d, keep;
    struct ofl_tpt_info info;
    struct ofl_tpt_entry before;
    uint32_t s = 0, isc = 0;
    const uint64_t seg = 1ull << S_SHIFT;

    sfx_init();
    CHECK_OK(ofl_tpt_alloc(&S.t, OFL_TPT_REGION, 7, 0, &s));
    d = mkdesc(EA(1, 0x3000), 0x2000, LR | LW | BW);
    CHECK_ERR(ofl_tpt_register_ea(NULL, &S.st, s, 7, &d), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, NULL, s, 7, &d), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, NULL), OFL_E_ARG);

    /* An iSCSI entry's va is no address: refused before the table. */
    CHECK_OK(ofl_tpt_alloc(&S.t, OFL_TPT_ISCSI, 7, 0, &isc));
    keep = mkdesc(EA(4, 0), 0x1000, LR);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, isc, 7, &keep),
              OFL_E_TPT_WRONG_TYPE);
    CHECK_EQ(entry_state(isc), OFL_TPT_INVALID);

    /* Effective addresses the table does not map: nothing registered. */
    before = S.e[ofl_stag_index(s)];
    keep = mkdesc(EA(4, 0x3000), 0x2000, LR | LW);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &keep),
              OFL_E_TPT_SEG_INVALID);
    keep = mkdesc(EA(2, seg - 0x1000u), 0x2000, LR | LW);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &keep),
              OFL_E_TPT_SEG_DISCONTIG);
    keep = mkdesc(EA(S_CAP, 0), 0x1000, LR | LW);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &keep),
              OFL_E_TPT_SEG_RANGE);
    /* The table is checked before the registration's own checks (wrong
     * PD here). */
    keep = mkdesc(EA(4, 0x3000), 0x2000, LR | LW);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 8, &keep),
              OFL_E_TPT_SEG_INVALID);
    CHECK(memcmp(&before, &S.e[ofl_stag_index(s)], sizeof(before)) == 0);
    /* A mapped address still meets every check of ofl_tpt_register. */
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 8, &d),
              OFL_E_TPT_PD_MISMATCH);
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s ^ 1u, 7, &d),
              OFL_E_TPT_KEY_MISMATCH);
    keep = d;
    keep.len = 0;
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &keep),
              OFL_E_TPT_BAD_DESC);
    CHECK(memcmp(&before, &S.e[ofl_stag_index(s)], sizeof(before)) == 0);

    /* Passes: the entry holds the virtual address; desc is untouched. */
    keep = d;
    CHECK_OK(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &d));
    CHECK(memcmp(&keep, &d, sizeof(d)) == 0);
    CHECK_OK(ofl_tpt_query(&S.t, s, &info));
    CHECK_EQ(info.va, (0x10ull << S_SHIFT) | 0x3000u);
    CHECK_EQ(info.len, 0x2000);
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_check_local(&S.t, s, 7, info.va, 0x2000, LW));
    /* The VMM deletes the segment later: the registration stays (pages
     * pinned, as verbs keeps an unmapped MR), a new one is refused. */
    CHECK_OK(upd(OFL_TPT_SEG_DELETE, 1, 0));
    CHECK_OK(ofl_tpt_check_local(&S.t, s, 7, info.va, 0x2000, LW));
    CHECK_OK(ofl_tpt_dereg(&S.t, s, 7));
    CHECK_OK(ofl_tpt_alloc(&S.t, OFL_TPT_REGION, 7, 0, &s));
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &d),
              OFL_E_TPT_SEG_INVALID);
    CHECK_EQ(entry_state(s), OFL_TPT_INVALID);
    /* A range over two segments that continue each other registers as one
     * virtual range. */
    d = mkdesc(EA(5, 0) - 0x1000u, 0x2000, LR | LW); /* 4 is invalid */
    CHECK_ERR(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &d),
              OFL_E_TPT_SEG_INVALID);
    CHECK_OK(upd(OFL_TPT_SEG_ADD, 4, 0x11));
    CHECK_OK(upd(OFL_TPT_SEG_CHANGE, 5, 0x12));
    CHECK_OK(ofl_tpt_register_ea(&S.t, &S.st, s, 7, &d));
    CHECK_OK(ofl_tpt_query(&S.t, s, &info));
    CHECK_EQ(info.va, (0x12ull << S_SHIFT) - 0x1000u);
}

/* BindRKey through the table. */
static void test_bind_ea(void)
{
    struct ofl_tpt_bind_args b, keep;
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_info info;
    struct ofl_tpt_entry before;
    uint32_t r = 0, w = 0, bound = 0x1234;
    const uint64_t va1 = 0x10ull << S_SHIFT;

    sfx_init();
    /* A region over the whole of segment 1's first 16 KiB. */
    CHECK_OK(ofl_tpt_alloc(&S.t, OFL_TPT_REGION, 7, 0, &r));
    d = mkdesc(EA(1, 0), 0x4000, LR | LW | BW);
    CHECK_OK(ofl_tpt_register_ea(&S.t, &S.st, r, 7, &d));
    CHECK_OK(ofl_tpt_alloc(&S.t, OFL_TPT_WINDOW, 7, 0, &w));

    memset(&b, 0, sizeof(b));
    b.stag = w;
    b.region_stag = r;
    b.pd = 7;
    b.va = EA(1, 0x1000);
    b.len = 0x800;
    b.access = RW;
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, NULL, &b, &bound), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, NULL, &bound), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_bind_ea(NULL, &S.st, &b, &bound), OFL_E_ARG);

    before = S.e[ofl_stag_index(w)];
    keep = b;
    keep.va = EA(4, 0x1000);
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, &keep, &bound),
              OFL_E_TPT_SEG_INVALID);
    keep.va = EA(2, (1ull << S_SHIFT) - 1u); /* 2 -> 3 discontiguous */
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, &keep, &bound),
              OFL_E_TPT_SEG_DISCONTIG);
    keep.va = EA(S_CAP + 3u, 0);
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, &keep, &bound),
              OFL_E_TPT_SEG_RANGE);
    keep.va = U64MAX - 0x10u;
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, &keep, &bound),
              OFL_E_TPT_SEG_RANGE);
    /* Mapped, but another segment than the region's: the bind's own
     * bounds check refuses it. */
    keep.va = EA(5, 0x1000);
    CHECK_ERR(ofl_tpt_bind_ea(&S.t, &S.st, &keep, &bound),
              OFL_E_TPT_BOUNDS);
    CHECK(memcmp(&before, &S.e[ofl_stag_index(w)], sizeof(before)) == 0);
    CHECK_EQ(bound, 0x1234);

    keep = b;
    CHECK_OK(ofl_tpt_bind_ea(&S.t, &S.st, &b, &bound));
    CHECK(memcmp(&keep, &b, sizeof(b)) == 0);
    CHECK_OK(ofl_tpt_query(&S.t, bound, &info));
    CHECK_EQ(info.va, va1 | 0x1000u);
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_check_remote(&S.t, bound, 7, 0, va1 | 0x1000u, 0x800,
                                  RW));
    /* UnbindRKey: length 0, no address to check. */
    b.stag = bound;
    b.va = EA(S_CAP + 3u, 0);
    b.len = 0;
    CHECK_OK(ofl_tpt_bind_ea(&S.t, &S.st, &b, NULL));
    CHECK_EQ(entry_state(bound), OFL_TPT_INVALID);
}

static void test_seg_names(void)
{
    CHECK(strcmp(ofl_strerror(OFL_E_TPT_SEG_RANGE), "OFL_E_TPT_SEG_RANGE") ==
          0);
    CHECK(strcmp(ofl_strerror(OFL_E_TPT_SEG_INVALID),
                 "OFL_E_TPT_SEG_INVALID") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_TPT_SEG_DISCONTIG),
                 "OFL_E_TPT_SEG_DISCONTIG") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_TPT_SEG_UPDATE),
                 "OFL_E_TPT_SEG_UPDATE") == 0);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_SEG_RANGE), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_SEG_INVALID), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(ofl_tpt_wc_status(OFL_E_TPT_SEG_DISCONTIG), OFL_WC_LOC_PROT_ERR);
}

OFL_SUITE(tpt_seg)
{
    test_seg_init();
    test_seg_uninit();
    test_seg_update();
    test_seg_translate();
    test_register_ea();
    test_bind_ea();
    test_seg_names();
}
