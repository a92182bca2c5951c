/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* seq: TCP sequence window, deferred invalidations, the one-touch decision
 * (seed 000 FIG. 18B Table D) and its application to the TPT. */
#include "test.h"

#define W30 (1u << 30)

static void test_init(void)
{
    struct ofl_seq s;
    struct ofl_seq_pending slots[2];

    CHECK_ERR(ofl_seq_init(NULL, 0, 100, slots, 2), OFL_E_ARG);
    CHECK_ERR(ofl_seq_init(&s, 0, 0, slots, 2), OFL_E_ARG);
    CHECK_ERR(ofl_seq_init(&s, 0, W30 + 1, slots, 2), OFL_E_ARG);
    CHECK_ERR(ofl_seq_init(&s, 0, 100, NULL, 2), OFL_E_ARG);
    CHECK_OK(ofl_seq_init(&s, 0, W30, slots, 2));
    CHECK_OK(ofl_seq_init(&s, 7, 1, NULL, 0));
    CHECK_EQ(s.nxt, 7);
    CHECK_EQ(s.wnd, 1);
    CHECK_EQ(s.pending_count, 0);
    CHECK_ERR(ofl_seq_set_window(&s, 0), OFL_E_ARG);
    CHECK_ERR(ofl_seq_set_window(&s, W30 + 1), OFL_E_ARG);
    CHECK_ERR(ofl_seq_set_window(NULL, 5), OFL_E_ARG);
    CHECK_OK(ofl_seq_set_window(&s, W30));
    CHECK_EQ(s.wnd, W30);
}

static void test_classify(void)
{
    static const uint32_t nxts[] = {0, 1, 1000, 0x7FFFFFFFu, 0x80000000u,
                                    0xFFFFFF00u, 0xFFFFFFFFu};
    size_t i;

    for (i = 0; i < sizeof(nxts) / sizeof(nxts[0]); i++) {
        uint32_t n = nxts[i], w = 0x200;

        CHECK_EQ(ofl_seq_classify(n, w, n - 1), OFL_SEQ_NEXT);
        CHECK_EQ(ofl_seq_classify(n, w, n - 2), OFL_SEQ_OUTSIDE);
        CHECK_EQ(ofl_seq_classify(n, w, n), OFL_SEQ_IN_WINDOW);
        CHECK_EQ(ofl_seq_classify(n, w, n + w - 1), OFL_SEQ_IN_WINDOW);
        CHECK_EQ(ofl_seq_classify(n, w, n + w), OFL_SEQ_OUTSIDE);
        CHECK_EQ(ofl_seq_classify(n, w, n + 0x80000000u), OFL_SEQ_OUTSIDE);
        CHECK_EQ(ofl_seq_classify(n, W30, n + W30 - 1), OFL_SEQ_IN_WINDOW);
        CHECK_EQ(ofl_seq_classify(n, W30, n + W30), OFL_SEQ_OUTSIDE);
        CHECK_EQ(ofl_seq_classify(n, 1, n), OFL_SEQ_IN_WINDOW);
        CHECK_EQ(ofl_seq_classify(n, 1, n + 1), OFL_SEQ_OUTSIDE);
    }
    /* Explicit wrap past 2^32. */
    CHECK_EQ(ofl_seq_classify(0, 16, 0xFFFFFFFFu), OFL_SEQ_NEXT);
    CHECK_EQ(ofl_seq_classify(0xFFFFFFF8u, 16, 0x00000007u), OFL_SEQ_IN_WINDOW);
    CHECK_EQ(ofl_seq_classify(0xFFFFFFF8u, 16, 0x00000008u), OFL_SEQ_OUTSIDE);
    CHECK_EQ(ofl_seq_classify(0x00000002u, 16, 0xFFFFFFFFu), OFL_SEQ_OUTSIDE);
}

static void test_advance_defer(void)
{
    struct ofl_seq s;
    struct ofl_seq_pending slots[3];
    uint32_t due = 99, stag, sn;

    CHECK_OK(ofl_seq_init(&s, 0xFFFFFF00u, 0x1000, slots, 3));
    CHECK_ERR(ofl_seq_advance(NULL, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_seq_advance(&s, 0x1001, &due), OFL_E_SEQ_BEYOND_WINDOW);
    CHECK_EQ(s.nxt, 0xFFFFFF00u);
    CHECK_EQ(due, 99);

    /* defer: must be IN_WINDOW, unique, and fit. */
    CHECK_ERR(ofl_seq_defer(NULL, 1, 0), OFL_E_ARG);
    CHECK_ERR(ofl_seq_defer(&s, 0x100, 0xFFFFFEFFu), OFL_E_SEQ_OUTSIDE);
    CHECK_ERR(ofl_seq_defer(&s, 0x100, 0xFFFFFF00u + 0x1000),
              OFL_E_SEQ_OUTSIDE);
    CHECK_OK(ofl_seq_defer(&s, 0x100, 0xFFFFFF00u));        /* at nxt */
    CHECK_OK(ofl_seq_defer(&s, 0x200, 0x00000010u));        /* wrapped */
    CHECK_ERR(ofl_seq_defer(&s, 0x200, 0x00000020u), OFL_E_SEQ_DUPLICATE);
    CHECK_OK(ofl_seq_defer(&s, 0x300, 0xFFFFFF00u + 0xFFF)); /* right edge */
    CHECK_ERR(ofl_seq_defer(&s, 0x400, 0x00000030u), OFL_E_SEQ_PENDING_FULL);
    CHECK_EQ(s.pending_count, 3);

    CHECK(!ofl_seq_take_due(&s, &stag, &sn));
    CHECK(!ofl_seq_take_due(NULL, &stag, &sn));
    /* nxt lands on the first SN: not lined up yet. */
    CHECK_OK(ofl_seq_advance(&s, 0, &due));
    CHECK_EQ(due, 0);
    /* One byte later the stream has passed 0xFFFFFF00. */
    CHECK_OK(ofl_seq_advance(&s, 1, &due));
    CHECK_EQ(due, 1);
    CHECK(ofl_seq_take_due(&s, &stag, &sn));
    CHECK_EQ(stag, 0x100);
    CHECK_EQ(sn, 0xFFFFFF00u);
    CHECK(!ofl_seq_take_due(&s, NULL, NULL));
    CHECK_EQ(s.pending_count, 2);
    /* Across the wrap: nxt 0xFFFFFF01 + 0x110 = 0x11 > 0x10. */
    CHECK_OK(ofl_seq_advance(&s, 0x10F, &due));
    CHECK_EQ(due, 0);
    CHECK_EQ(s.nxt, 0x10u);
    CHECK_OK(ofl_seq_advance(&s, 1, NULL));
    CHECK(ofl_seq_take_due(&s, &stag, NULL));
    CHECK_EQ(stag, 0x200);
    /* Several advances before anyone takes: still due once passed. */
    CHECK_OK(ofl_seq_advance(&s, 0x800, &due));
    CHECK_EQ(due, 0);
    CHECK_OK(ofl_seq_advance(&s, 0x800, &due));
    CHECK_EQ(due, 1);
    CHECK_OK(ofl_seq_advance(&s, 0x1000, &due));
    CHECK_EQ(due, 1);
    CHECK(ofl_seq_take_due(&s, &stag, &sn));
    CHECK_EQ(stag, 0x300);
    CHECK_EQ(s.pending_count, 0);
}

/* The reference reading of Table D, written independently of the core. */
static struct ofl_seq_ot ref_table_d(bool last, bool ot, bool touched,
                                     uint32_t sn, uint32_t nxt, uint32_t wnd)
{
    struct ofl_seq_ot d;

    memset(&d, 0, sizeof(d));
    d.place = true;
    if (!last) {
        d.row = 1;
        d.action = OFL_SEQ_OT_PLACE;
    } else if (!ot) {
        d.row = 2;
        d.action = OFL_SEQ_OT_PLACE;
    } else if (touched) {
        d.row = 3;
        d.action = OFL_SEQ_OT_INVALIDATE_TERMINATE;
        d.place = false;
        d.invalidate = true;
        d.terminate = true;
        d.cause.layer = 1;
        d.cause.etype = 1;
        d.cause.ecode = 0;
    } else if ((uint32_t)(sn + 1) == nxt) {
        d.row = 4;
        d.action = OFL_SEQ_OT_INVALIDATE_PLACE;
        d.invalidate = true;
    } else if ((uint32_t)(sn - nxt) < wnd) {
        d.row = 5;
        d.action = OFL_SEQ_OT_TOUCH_PLACE;
        d.set_touched = true;
        d.defer = true;
        d.stored_sn = sn;
    } else {
        d.row = 6;
        d.action = OFL_SEQ_OT_DROP;
        d.place = false;
    }
    return d;
}

static int same_ot(struct ofl_seq_ot a, struct ofl_seq_ot b)
{
    return a.action == b.action && a.row == b.row && a.place == b.place &&
           a.invalidate == b.invalidate && a.set_touched == b.set_touched &&
           a.defer == b.defer && a.terminate == b.terminate &&
           a.stored_sn == b.stored_sn && a.cause.layer == b.cause.layer &&
           a.cause.etype == b.cause.etype && a.cause.ecode == b.cause.ecode;
}

static void test_table_d_rows(void)
{
    static const uint32_t nxts[] = {0, 5, 0x7FFFFFFFu, 0xFFFFFFF0u,
                                    0xFFFFFFFFu};
    const uint32_t w = 64;
    struct ofl_seq_ot d;
    size_t i;

    for (i = 0; i < sizeof(nxts) / sizeof(nxts[0]); i++) {
        uint32_t n = nxts[i];

        /* Row 1: Last clear, whatever else. */
        d = ofl_seq_one_touch(false, true, true, n + 10000, n, w);
        CHECK_EQ(d.row, 1);
        CHECK_EQ(d.action, OFL_SEQ_OT_PLACE);
        CHECK(d.place && !d.invalidate && !d.set_touched && !d.terminate);
        /* Row 2: Last set, one touch disabled. */
        d = ofl_seq_one_touch(true, false, true, n + 10000, n, w);
        CHECK_EQ(d.row, 2);
        CHECK(d.place && !d.invalidate);
        /* Row 3: touched before. */
        d = ofl_seq_one_touch(true, true, true, n - 1, n, w);
        CHECK_EQ(d.row, 3);
        CHECK_EQ(d.action, OFL_SEQ_OT_INVALIDATE_TERMINATE);
        CHECK(!d.place && d.invalidate && d.terminate);
        CHECK_EQ(d.cause.layer, OFL_TERM_LAYER_DDP);
        CHECK_EQ(d.cause.etype, OFL_TERM_DDP_TAGGED);
        CHECK_EQ(d.cause.ecode, OFL_TERM_DDP_T_INVALID_STAG);
        /* Row 4: DDP SN = next expected - 1. */
        d = ofl_seq_one_touch(true, true, false, n - 1, n, w);
        CHECK_EQ(d.row, 4);
        CHECK_EQ(d.action, OFL_SEQ_OT_INVALIDATE_PLACE);
        CHECK(d.place && d.invalidate && !d.set_touched && !d.terminate);
        /* Row 5: inside the window, both edges. */
        d = ofl_seq_one_touch(true, true, false, n, n, w);
        CHECK_EQ(d.row, 5);
        CHECK(d.place && !d.invalidate && d.set_touched && d.defer);
        CHECK_EQ(d.stored_sn, n);
        d = ofl_seq_one_touch(true, true, false, n + w - 1, n, w);
        CHECK_EQ(d.row, 5);
        CHECK_EQ(d.stored_sn, n + w - 1);
        /* Row 6: just outside, both sides. */
        d = ofl_seq_one_touch(true, true, false, n + w, n, w);
        CHECK_EQ(d.row, 6);
        CHECK_EQ(d.action, OFL_SEQ_OT_DROP);
        CHECK(!d.place && !d.invalidate && !d.set_touched);
        d = ofl_seq_one_touch(true, true, false, n - 2, n, w);
        CHECK_EQ(d.row, 6);
    }
}

static void test_table_d_model(void)
{
    uint32_t x = 12345, i, bad = 0;

    for (i = 0; i < 200000; i++) {
        uint32_t nxt, wnd, sn, r;
        bool last, ot, touched;

        x = x * 1664525u + 1013904223u;
        r = x;
        x = x * 1664525u + 1013904223u;
        nxt = x;
        x = x * 1664525u + 1013904223u;
        wnd = (x % W30) + 1;
        x = x * 1664525u + 1013904223u;
        /* Bias sn to the interesting edges. */
        switch (r & 7) {
        case 0: sn = nxt - 1; break;
        case 1: sn = nxt; break;
        case 2: sn = nxt + wnd - 1; break;
        case 3: sn = nxt + wnd; break;
        case 4: sn = nxt - 2; break;
        default: sn = x; break;
        }
        last = (r >> 3) & 1;
        ot = (r >> 4) & 1;
        touched = (r >> 5) & 1;
        if (!same_ot(ofl_seq_one_touch(last, ot, touched, sn, nxt, wnd),
                     ref_table_d(last, ot, touched, sn, nxt, wnd)))
            bad++;
    }
    CHECK_EQ(bad, 0);
}

#if OFL_ENABLE_TPT
/* A TPT with one registered one-touch region. */
struct ot_env {
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entries[8];
    uint64_t att[4];
    uint32_t stag;
};

static uint32_t ot_region(struct ot_env *e, uint8_t flags)
{
    struct ofl_tpt_region_desc d;
    uint64_t pages[1] = {0x10000};
    uint32_t stag = 0;

    memset(&d, 0, sizeof(d));
    d.va = 0x1000;
    d.len = 4096;
    d.att_base = 0;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE;
    d.flags = flags;
    CHECK_OK(ofl_tpt_reg_pages(&e->tpt, 1, &d, pages, 1, &stag));
    return stag;
}

static void ot_init(struct ot_env *e)
{
    memset(e, 0, sizeof(*e));
    CHECK_OK(ofl_tpt_init(&e->tpt, e->entries, 8, e->att, 4, NULL,
                          OFL_TPT_POLICY_STANDARD));
    e->stag = ot_region(e, OFL_TPT_F_ONE_TOUCH);
}

static struct ofl_tpt_info ot_info(struct ot_env *e, uint32_t stag)
{
    struct ofl_tpt_info info;

    memset(&info, 0, sizeof(info));
    CHECK_OK(ofl_tpt_query(&e->tpt, stag, &info));
    return info;
}

static void test_apply(void)
{
    struct ot_env e;
    struct ofl_seq s;
    struct ofl_seq_pending slots[1];
    struct ofl_seq_ot d;
    uint32_t n, plain;

    /* Row 1 and row 2: nothing changes. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_ERR(ofl_seq_one_touch_apply(NULL, &e.tpt, e.stag, true, 999, &d),
              OFL_E_ARG);
    CHECK_ERR(ofl_seq_one_touch_apply(&s, NULL, e.stag, true, 999, &d),
              OFL_E_ARG);
    CHECK_ERR(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 999, NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag + 1, true, 999, &d),
              OFL_E_TPT_KEY_MISMATCH);
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, false, 999, &d));
    CHECK_EQ(d.row, 1);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    plain = ot_region(&e, 0);
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, plain, true, 999, &d));
    CHECK_EQ(d.row, 2);
    CHECK_EQ(ot_info(&e, plain).state, OFL_TPT_VALID);

    /* Row 4: in order, the entry dies at once. */
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 999, &d));
    CHECK_EQ(d.row, 4);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);

    /* Row 6: outside the window: dropped, entry untouched. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 1000 + 4096,
                                     &d));
    CHECK_EQ(d.row, 6);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    CHECK_EQ(ot_info(&e, e.stag).flags & OFL_TPT_F_TOUCHED, 0);

    /* Row 5 then the stream lines up: deferred invalidation. */
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 1500, &d));
    CHECK_EQ(d.row, 5);
    CHECK_EQ(s.pending_count, 1);
    CHECK(ot_info(&e, e.stag).flags & OFL_TPT_F_TOUCHED);
    CHECK_EQ(ot_info(&e, e.stag).stored_sn, 1500);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    CHECK_OK(ofl_seq_advance(&s, 500, NULL));       /* nxt 1500 */
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 0);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    CHECK_OK(ofl_seq_advance(&s, 1, NULL));         /* nxt 1501 */
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);
    CHECK_EQ(s.pending_count, 0);
    CHECK_ERR(ofl_seq_retire(NULL, &e.tpt, &n), OFL_E_ARG);
    CHECK_ERR(ofl_seq_retire(&s, NULL, &n), OFL_E_ARG);
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, NULL)); /* the count is optional */

    /* Row 3: a second access to a touched entry. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 5);
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2100, &d));
    CHECK_EQ(d.row, 3);
    CHECK(d.terminate);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);
    /* The stale pending pair is discarded, not expired twice. */
    CHECK_OK(ofl_seq_advance(&s, 2000, NULL));
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 0);
    CHECK_EQ(s.pending_count, 0);

    /* No pending slot: dropped as row 6, nothing changed. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, NULL, 0));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 6);
    CHECK_EQ(d.action, OFL_SEQ_OT_DROP);
    CHECK_EQ(ot_info(&e, e.stag).flags & OFL_TPT_F_TOUCHED, 0);

    /* set_touched refused (entry not valid): the deferral is undone. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_tpt_expire(&e.tpt, e.stag));
    CHECK_ERR(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d),
              OFL_E_TPT_NOT_VALID);
    CHECK_EQ(s.pending_count, 0);
    /* Row 4 on an invalid entry: expire reports it. */
    CHECK_ERR(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 999, &d),
              OFL_E_TPT_NOT_VALID);
    /* A pair the entry does not own (it is not Touched) is taken over by
     * row 5, even with every slot used. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_defer(&s, e.stag, 3000));
    CHECK_OK(ofl_seq_advance(&s, 2001, NULL)); /* the pair is due */
    CHECK_EQ(slots[0].due, 1);
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 3500, &d));
    CHECK_EQ(d.row, 5);
    CHECK_EQ(s.pending_count, 1);
    CHECK_EQ(slots[0].sn, 3500);
    CHECK_EQ(slots[0].due, 0);
    CHECK_EQ(ot_info(&e, e.stag).stored_sn, 3500);
    /* set_touched refused: the pair taken over is given back unchanged. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_defer(&s, e.stag, 3000));
    CHECK_OK(ofl_tpt_expire(&e.tpt, e.stag));
    CHECK_ERR(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d),
              OFL_E_TPT_NOT_VALID);
    CHECK_EQ(s.pending_count, 1);
    CHECK_EQ(slots[0].sn, 3000);

    /* Retire skips a pair whose entry was deregistered meanwhile. */
    ot_init(&e);
    {
        struct ofl_seq_pending two[2];

        CHECK_OK(ofl_seq_init(&s, 1000, 4096, two, 2));
        CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 1200, &d));
        CHECK_OK(ofl_tpt_dereg(&e.tpt, e.stag, 1));
        CHECK_OK(ofl_seq_advance(&s, 300, NULL));
        CHECK_OK(ofl_seq_retire(&s, &e.tpt, NULL));
        CHECK_EQ(s.pending_count, 0);
    }
}

/* Another copy of the segment that touched the entry is the same access
 * (FIG. 18B step 1824 reads the stored DDP SN), not a second one. */
static void test_apply_copies(void)
{
    struct ot_env e;
    struct ofl_seq s, other;
    struct ofl_seq_pending slots[1], other_slots[1];
    struct ofl_seq_ot d;
    uint32_t n;

    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 5);
    /* A TCP retransmission, still ahead of the hole. */
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.action, OFL_SEQ_OT_DUPLICATE);
    CHECK_EQ(d.row, 5);
    CHECK(!d.place && !d.terminate && !d.invalidate && !d.set_touched);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    CHECK_EQ(s.pending_count, 1);
    /* The same bytes lining up in order (NEXT), then the deferral. */
    CHECK_OK(ofl_seq_advance(&s, 1001, NULL)); /* nxt 2001 */
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.action, OFL_SEQ_OT_DUPLICATE);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_VALID);
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);

    /* Another SN is a second access: row 3. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2001, &d));
    CHECK_EQ(d.row, 3);
    CHECK(d.terminate);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);
    /* The same SN on a stream that did not touch the entry: row 3. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_init(&other, 1000, 4096, other_slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_OK(ofl_seq_one_touch_apply(&other, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 3);
    CHECK(d.terminate);
    CHECK_EQ(ot_info(&e, e.stag).state, OFL_TPT_INVALID);
    /* A pair for the STag at another SN does not make a copy either. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    slots[0].sn = 2500;
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 3);
    /* ...nor does a stored SN that differs from the pair's. */
    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_OK(ofl_tpt_set_touched(&e.tpt, e.stag, 2200));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 3);
}

/* A pair left by an earlier life of a re-issued STag does not block the
 * new life's row 5. */
static void test_apply_reissued(void)
{
    struct ot_env e;
    struct ofl_seq s;
    struct ofl_seq_pending slots[1];
    struct ofl_seq_ot d;
    uint32_t stag = 0, k, n;

    ot_init(&e);
    CHECK_OK(ofl_seq_init(&s, 1000, 4096, slots, 1));
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, e.stag, true, 2000, &d));
    CHECK_EQ(d.row, 5);
    /* Deregister and register until the index and key come round. */
    for (k = 0; k < 300 && stag != e.stag; k++) {
        CHECK_OK(ofl_tpt_dereg(&e.tpt, k == 0 ? e.stag : stag, 1));
        stag = ot_region(&e, OFL_TPT_F_ONE_TOUCH);
    }
    CHECK_EQ(stag, e.stag);
    CHECK_EQ(ot_info(&e, stag).flags & OFL_TPT_F_TOUCHED, 0);
    CHECK_OK(ofl_seq_one_touch_apply(&s, &e.tpt, stag, true, 2500, &d));
    CHECK_EQ(d.row, 5);
    CHECK_EQ(s.pending_count, 1);
    CHECK_EQ(slots[0].sn, 2500);
    /* The old SN passing does not expire the new life... */
    CHECK_OK(ofl_seq_advance(&s, 1001, NULL));
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 0);
    CHECK_EQ(ot_info(&e, stag).state, OFL_TPT_VALID);
    /* ...its own does. */
    CHECK_OK(ofl_seq_advance(&s, 500, NULL));
    CHECK_OK(ofl_seq_retire(&s, &e.tpt, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(ot_info(&e, stag).state, OFL_TPT_INVALID);
}
#endif

OFL_SUITE(seq)
{
    test_init();
    test_classify();
    test_advance_defer();
    test_table_d_rows();
    test_table_d_model();
#if OFL_ENABLE_TPT
    test_apply();
    test_apply_copies();
    test_apply_reissued();
#endif
}
