/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * tpt: who hands ATT slots out and who may name them (offload.h, "ATT
 * slots"). The slot pool's edge cases (full, fragmented, frees of runs it
 * never handed out, double frees, zero and overflowing counts), the slot
 * count helper against the registration's ATT rule (FIG. 13), and ATT
 * owners: registrations - verbs and the FAST_REG, REG_SEND and ISCSI_CMD
 * WQEs - that name another live entry's slots fail with
 * OFL_E_TPT_ATT_OWNED and leave that entry intact, while its own or free
 * slots pass.
 */
#include "test.h"
#include "ports/sim/ofl_sim.h"
#include "support/qp_rig.h"

#define A_CAP 16u
#define A_ATT 64u
#define PSZ 0x1000u
#define PRES OFL_TPT_ATT_PRESENT
#define PG(n) (0x100000000ull + (uint64_t)(n) * PSZ)
#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE

/* ---- the slot pool ----------------------------------------------------- */

#define P_SLOTS 200u
static uint32_t g_map[OFL_TPT_ATT_POOL_WORDS(P_SLOTS)];

static void test_pool_init(void)
{
    struct ofl_tpt_att_pool p;

    CHECK_EQ(OFL_TPT_ATT_POOL_WORDS(1), 2);
    CHECK_EQ(OFL_TPT_ATT_POOL_WORDS(32), 2);
    CHECK_EQ(OFL_TPT_ATT_POOL_WORDS(33), 4);
    CHECK_ERR(ofl_tpt_att_pool_init(NULL, g_map, 14, P_SLOTS), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_pool_init(&p, NULL, 14, P_SLOTS), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_pool_init(&p, g_map, 14, 0), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_pool_init(&p, g_map, 13, P_SLOTS), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_pool_init(&p, g_map, 0xFFFFFFFFu,
                                    OFL_TPT_ATT_POOL_MAX + 1u),
              OFL_E_ARG);
    memset(g_map, 0xFF, sizeof(g_map));
    CHECK_OK(ofl_tpt_att_pool_init(&p, g_map, 14, P_SLOTS));
    CHECK_EQ(p.free, P_SLOTS);
    CHECK_EQ(g_map[0] | g_map[6] | g_map[7] | g_map[13], 0);
}

/* Every run of a pool that is not a word multiple, then nothing left. */
static void test_pool_full(void)
{
    struct ofl_tpt_att_pool p;
    uint32_t base = 99, map[OFL_TPT_ATT_POOL_WORDS(70)];

    CHECK_OK(ofl_tpt_att_pool_init(&p, map, OFL_TPT_ATT_POOL_WORDS(70), 70));
    CHECK_ERR(ofl_tpt_att_alloc(&p, 0, &base), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 71, &base), OFL_E_TPT_ATT_FULL);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 0xFFFFFFFFu, &base), OFL_E_TPT_ATT_FULL);
    CHECK_EQ(base, 99);
    CHECK_OK(ofl_tpt_att_alloc(&p, 70, &base));
    CHECK_EQ(base, 0);
    CHECK_EQ(p.free, 0);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 1, &base), OFL_E_TPT_ATT_FULL);
    CHECK_OK(ofl_tpt_att_free(&p, 0, 70));
    CHECK_EQ(p.free, 70);
    /* one slot at a time up to the last */
    {
        uint32_t i, bad = 0;

        for (i = 0; i < 70; i++)
            if (ofl_tpt_att_alloc(&p, 1, &base) != OFL_OK || base != i)
                bad++;
        CHECK_EQ(bad, 0);
    }
    CHECK_ERR(ofl_tpt_att_alloc(&p, 1, &base), OFL_E_TPT_ATT_FULL);
    CHECK_OK(ofl_tpt_att_free(&p, 69, 1));
    CHECK_OK(ofl_tpt_att_alloc(&p, 1, &base));
    CHECK_EQ(base, 69);
}

/* First fit over holes: a run larger than every hole fails although the
 * pool has that many free slots. */
static void test_pool_fragmented(void)
{
    struct ofl_tpt_att_pool p;
    uint32_t a, b, c, d, x = 0;

    CHECK_OK(ofl_tpt_att_pool_init(&p, g_map, 14, 64));
    CHECK_OK(ofl_tpt_att_alloc(&p, 10, &a));
    CHECK_OK(ofl_tpt_att_alloc(&p, 10, &b));
    CHECK_OK(ofl_tpt_att_alloc(&p, 10, &c));
    CHECK_OK(ofl_tpt_att_alloc(&p, 34, &d));
    CHECK_EQ(a, 0);
    CHECK_EQ(b, 10);
    CHECK_EQ(c, 20);
    CHECK_EQ(d, 30);
    CHECK_OK(ofl_tpt_att_free(&p, b, 10));
    CHECK_OK(ofl_tpt_att_free(&p, d, 34));
    CHECK_EQ(p.free, 44);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 35, &x), OFL_E_TPT_ATT_FULL);
    CHECK_EQ(p.free, 44);
    CHECK_OK(ofl_tpt_att_alloc(&p, 5, &x)); /* first fit: the first hole */
    CHECK_EQ(x, 10);
    CHECK_OK(ofl_tpt_att_alloc(&p, 6, &x)); /* 15..19 is too short */
    CHECK_EQ(x, 30);
    CHECK_OK(ofl_tpt_att_alloc(&p, 5, &x));
    CHECK_EQ(x, 15);
    CHECK_OK(ofl_tpt_att_alloc(&p, 28, &x));
    CHECK_EQ(x, 36);
    CHECK_EQ(p.free, 0);
    /* whole free words and a run across word boundaries */
    CHECK_OK(ofl_tpt_att_pool_init(&p, g_map, 14, P_SLOTS));
    CHECK_OK(ofl_tpt_att_alloc(&p, 32, &a));
    CHECK_OK(ofl_tpt_att_alloc(&p, 40, &b));
    CHECK_EQ(b, 32);
    CHECK_OK(ofl_tpt_att_free(&p, a, 32));
    CHECK_OK(ofl_tpt_att_alloc(&p, 33, &c));
    CHECK_EQ(c, 72);
    CHECK_OK(ofl_tpt_att_alloc(&p, 32, &d));
    CHECK_EQ(d, 0);
    CHECK_OK(ofl_tpt_att_alloc(&p, 95, &x)); /* 105 .. 199: to the end */
    CHECK_EQ(x, 105);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 1, &x), OFL_E_TPT_ATT_FULL);
}

/* Frees of anything but exactly one run handed out change nothing. */
static void test_pool_bad_free(void)
{
    struct ofl_tpt_att_pool p;
    uint32_t a, b, before[OFL_TPT_ATT_POOL_WORDS(P_SLOTS)];

    CHECK_OK(ofl_tpt_att_pool_init(&p, g_map, 14, P_SLOTS));
    /* a run never handed out */
    CHECK_ERR(ofl_tpt_att_free(&p, 5, 3), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_OK(ofl_tpt_att_alloc(&p, 10, &a));
    CHECK_OK(ofl_tpt_att_alloc(&p, 10, &b));
    memcpy(before, g_map, sizeof(before));
    CHECK_ERR(ofl_tpt_att_free(&p, 0, 5), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_ERR(ofl_tpt_att_free(&p, 2, 8), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_ERR(ofl_tpt_att_free(&p, 0, 20), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_ERR(ofl_tpt_att_free(&p, 10, 11), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_ERR(ofl_tpt_att_free(&p, 0, 0), OFL_E_ARG);
    /* counts and bases past the pool, sums that would wrap */
    CHECK_ERR(ofl_tpt_att_free(&p, P_SLOTS, 1), OFL_E_TPT_ATT_RANGE);
    CHECK_ERR(ofl_tpt_att_free(&p, 0xFFFFFFFFu, 2), OFL_E_TPT_ATT_RANGE);
    CHECK_ERR(ofl_tpt_att_free(&p, 10, 0xFFFFFFF8u), OFL_E_TPT_ATT_RANGE);
    CHECK_ERR(ofl_tpt_att_free(&p, 10, P_SLOTS - 9u), OFL_E_TPT_ATT_RANGE);
    CHECK(memcmp(before, g_map, sizeof(before)) == 0);
    CHECK_EQ(p.free, P_SLOTS - 20u);
    CHECK_OK(ofl_tpt_att_free(&p, b, 10));
    /* double free */
    CHECK_ERR(ofl_tpt_att_free(&p, b, 10), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_OK(ofl_tpt_att_free(&p, a, 10));
    CHECK_ERR(ofl_tpt_att_free(&p, a, 10), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_EQ(p.free, P_SLOTS);
    /* a run freed and handed out again, as two runs: the old one is gone */
    CHECK_OK(ofl_tpt_att_alloc(&p, 4, &a));
    CHECK_OK(ofl_tpt_att_alloc(&p, 4, &b));
    CHECK_EQ(b, 4);
    CHECK_ERR(ofl_tpt_att_free(&p, 0, 8), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_OK(ofl_tpt_att_free(&p, 4, 4));
    CHECK_ERR(ofl_tpt_att_free(&p, 0, 8), OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_ERR(ofl_tpt_att_alloc(NULL, 1, &a), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_alloc(&p, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_free(NULL, 0, 4), OFL_E_ARG);
}

/* First fit a word at a time against a slot-by-slot model: random allocs
 * and frees of runs of 1 .. 70 slots over pools of 37, 100 and 200 slots
 * (partial last words, runs inside a word, across words). */
static void test_pool_model(void)
{
    static const uint32_t sizes[] = {37, 100, 200};
    uint32_t z, bad = 0;

    for (z = 0; z < 3; z++) {
        struct ofl_tpt_att_pool p;
        uint32_t slots = sizes[z], run[200], next = 0, rng = 12345u + z;
        uint32_t i, k, s;

        memset(run, 0, sizeof(run));
        CHECK_OK(ofl_tpt_att_pool_init(&p, g_map, 14, slots));
        for (i = 0; i < 20000; i++) {
            uint32_t n, want = 0xFFFFFFFFu, c = 0, base = 0;
            enum ofl_err err;

            rng = rng * 1103515245u + 12345u;
            n = (rng >> 16) % (i & 1 ? 8u : 70u) + 1u;
            if ((rng >> 8) & 1) { /* free the run holding a random slot */
                s = (rng >> 20) % slots;
                if (run[s] == 0)
                    continue;
                while (s > 0 && run[s - 1] == run[s])
                    s--;
                for (n = 0; s + n < slots && run[s + n] == run[s]; n++)
                    ;
                if (ofl_tpt_att_free(&p, s, n) != OFL_OK)
                    bad++;
                for (k = 0; k < n; k++)
                    run[s + k] = 0;
                continue;
            }
            for (s = 0; s < slots && want == 0xFFFFFFFFu; s++) {
                c = run[s] == 0 ? c + 1 : 0;
                if (c == n)
                    want = s + 1 - n;
            }
            err = ofl_tpt_att_alloc(&p, n, &base);
            if (want == 0xFFFFFFFFu) {
                bad += err != OFL_E_TPT_ATT_FULL;
                continue;
            }
            if (err != OFL_OK || base != want) {
                bad++;
                continue;
            }
            next++;
            for (k = 0; k < n; k++)
                run[base + k] = next;
        }
    }
    CHECK_EQ(bad, 0);
}

/* ---- the slot count helper --------------------------------------------- */

static struct ofl_tpt g_t;
static struct ofl_tpt_entry g_e[A_CAP];
static uint64_t g_att[A_ATT];
static uint32_t g_own[A_ATT];

static void t_init(bool owners)
{
    memset(g_att, 0, sizeof(g_att));
    CHECK_OK(ofl_tpt_init(&g_t, g_e, A_CAP, g_att, A_ATT, NULL,
                          OFL_TPT_POLICY_STANDARD));
    if (owners)
        CHECK_OK(ofl_tpt_att_owners(&g_t, g_own, A_ATT));
}

static struct ofl_tpt_region_desc desc(uint64_t len, uint32_t fpo,
                                       uint8_t shift, uint8_t kind,
                                       uint32_t base, uint32_t count)
{
    struct ofl_tpt_region_desc d;

    memset(&d, 0, sizeof(d));
    d.va = 0x10000;
    d.len = len;
    d.fpo = fpo;
    d.page_shift = shift;
    d.att_kind = kind;
    d.att_base = base;
    d.att_count = count;
    d.access = LR | LW;
    return d;
}

/* The count the helper gives is the least ofl_tpt_register takes. */
static void slots_case(uint64_t len, uint32_t fpo, uint8_t shift, uint8_t kind,
                       uint32_t want)
{
    struct ofl_tpt_region_desc d;
    uint32_t n = 0, s = 0;

    CHECK_OK(ofl_tpt_att_slots(len, fpo, shift, kind, &n));
    CHECK_EQ(n, want);
    if (n > A_ATT)
        return; /* more slots than this ATT has */
    t_init(false);
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &s));
    d = desc(len, fpo, shift, kind, 0, n - 1u);
    d.flags = OFL_TPT_F_ZERO_BASED; /* a length up to 2^64 - 1 has no VA */
    if (n > 1)
        CHECK_ERR(ofl_tpt_register_check(&g_t, s, 1, &d),
                  OFL_E_TPT_ATT_RANGE);
    d.att_count = n;
    CHECK_OK(ofl_tpt_register(&g_t, s, 1, &d));
}

static void test_slots(void)
{
    const uint64_t m = 512u, mm = 512u * 512u;
    uint32_t n = 7;

    slots_case(1, 0, 12, OFL_TPT_ATT_DIRECT, 1);
    slots_case(PSZ, 0, 12, OFL_TPT_ATT_DIRECT, 1);
    slots_case(PSZ, 1, 12, OFL_TPT_ATT_DIRECT, 2);
    slots_case(PSZ + 1, 0, 12, OFL_TPT_ATT_DIRECT, 2);
    slots_case(2, PSZ - 1, 12, OFL_TPT_ATT_DIRECT, 2);
    slots_case(40 * PSZ, 0, 12, OFL_TPT_ATT_DIRECT, 40);
    slots_case(0x200000, 0x1FFFFF, 21, OFL_TPT_ATT_DIRECT, 2);
    slots_case(m * PSZ, 0, 12, OFL_TPT_ATT_INDIRECT1, 1);
    slots_case(m * PSZ, 1, 12, OFL_TPT_ATT_INDIRECT1, 2);
    slots_case(3 * m * PSZ + 5, 0, 12, OFL_TPT_ATT_INDIRECT1, 4);
    slots_case(mm * PSZ, 0, 12, OFL_TPT_ATT_INDIRECT2, 1);
    slots_case(mm * PSZ + 1, 0, 12, OFL_TPT_ATT_INDIRECT2, 2);
    slots_case(~(uint64_t)0, 0, 28, OFL_TPT_ATT_INDIRECT2, 1u << 18);
    /* 2^52 pages do not fit 32 bits of slots */
    CHECK_ERR(ofl_tpt_att_slots(~(uint64_t)0, 0, 12, OFL_TPT_ATT_DIRECT, &n),
              OFL_E_TPT_ATT_RANGE);
    CHECK_OK(ofl_tpt_att_slots(0xFFFFFFFFull * PSZ, 0, 12,
                               OFL_TPT_ATT_DIRECT, &n));
    CHECK_EQ(n, 0xFFFFFFFFu);
    CHECK_ERR(ofl_tpt_att_slots(0xFFFFFFFFull * PSZ, 1, 12,
                                OFL_TPT_ATT_DIRECT, &n),
              OFL_E_TPT_ATT_RANGE);
    /* what registration refuses as a bad descriptor */
    n = 7;
    CHECK_ERR(ofl_tpt_att_slots(1, 0, 11, 0, &n), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(1, 0, 29, 0, &n), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(1, PSZ, 12, 0, &n), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(0, 0, 12, 0, &n), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(1, 0, 12, 3, &n), OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(~(uint64_t)0, 1, 12, 2, &n),
              OFL_E_TPT_BAD_DESC);
    CHECK_ERR(ofl_tpt_att_slots(1, 0, 12, 0, NULL), OFL_E_ARG);
    CHECK_EQ(n, 7);
}

/* ---- owners, through the verbs ----------------------------------------- */

static uint32_t t_reg(uint32_t base, uint32_t count, uint8_t flags)
{
    struct ofl_tpt_region_desc d = desc(count * PSZ, 0, 12, 0, base, count);
    uint32_t s = 0;

    d.flags = flags;
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &s));
    CHECK_OK(ofl_tpt_register(&g_t, s, 1, &d));
    return s;
}

static uint32_t rekey(uint32_t stag)
{
    return ofl_stag_make(ofl_stag_index(stag),
                         (uint8_t)(ofl_stag_key(stag) + 1));
}

static void test_owners_attach(void)
{
    uint32_t s = 0;

    t_init(false);
    CHECK(g_t.att_owner == NULL); /* no owners unless given */
    CHECK_ERR(ofl_tpt_att_owners(NULL, g_own, A_ATT), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_owners(&g_t, NULL, A_ATT), OFL_E_ARG);
    CHECK_ERR(ofl_tpt_att_owners(&g_t, g_own, A_ATT - 1u), OFL_E_ARG);
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &s));
    CHECK_ERR(ofl_tpt_att_owners(&g_t, g_own, A_ATT), OFL_E_TPT_BUSY);
    CHECK(g_t.att_owner == NULL);
    CHECK_OK(ofl_tpt_dealloc(&g_t, s, 1));
    memset(g_own, 0xEE, sizeof(g_own));
    CHECK_OK(ofl_tpt_att_owners(&g_t, g_own, A_ATT));
    CHECK_EQ(g_own[0] | g_own[A_ATT - 1], 0);
}

/* Without owners, two regions may share slots (FIG. 14); with owners the
 * second one is refused and nothing changes. */
static void test_owners_verbs(void)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_info info;
    uint32_t a, b = 0, c, free_before, s = 0;
    uint64_t pages[2] = {PG(1), PG(2)};
    struct ofl_tpt_pbuf pb = {PG(3), 2 * PSZ};

    t_init(false);
    a = t_reg(0, 4, 0);
    c = t_reg(2, 4, 0); /* shared: the trusted poster's choice */
    CHECK(a != 0 && c != 0);

    t_init(true);
    a = t_reg(0, 4, OFL_TPT_F_INVALIDATABLE);
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &b));
    d = desc(4 * PSZ, 0, 12, 0, 2, 4);
    CHECK_ERR(ofl_tpt_register_check(&g_t, b, 1, &d), OFL_E_TPT_ATT_OWNED);
    CHECK_ERR(ofl_tpt_register(&g_t, b, 1, &d), OFL_E_TPT_ATT_OWNED);
    d.att_base = 3; d.att_count = 1; d.len = PSZ; /* the last slot alone */
    CHECK_ERR(ofl_tpt_register(&g_t, b, 1, &d), OFL_E_TPT_ATT_OWNED);
    /* the one-step verbs: nothing allocated, no ATT word written */
    free_before = g_t.free_count;
    d = desc(2 * PSZ, 0, 12, 0, 3, 2);
    g_att[3] = 0x77000 | PRES;
    CHECK_ERR(ofl_tpt_reg_pages(&g_t, 1, &d, pages, 2, &s),
              OFL_E_TPT_ATT_OWNED);
    CHECK_ERR(ofl_tpt_reg_phys(&g_t, 1, &d, &pb, 1, &s), OFL_E_TPT_ATT_OWNED);
    CHECK_EQ(g_t.free_count, free_before);
    CHECK_EQ(g_att[3], 0x77000 | PRES);
    CHECK_EQ(g_att[4], 0);
    CHECK_OK(ofl_tpt_query(&g_t, b, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    CHECK_OK(ofl_tpt_query(&g_t, a, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    /* free slots pass */
    d = desc(2 * PSZ, 0, 12, 0, 4, 2);
    CHECK_OK(ofl_tpt_register(&g_t, b, 1, &d));
    CHECK_OK(ofl_tpt_reg_pages(&g_t, 1, &(struct ofl_tpt_region_desc){
                                            .len = 2 * PSZ, .page_shift = 12,
                                            .att_base = 6, .access = LR},
                               pages, 2, &s));
    CHECK_EQ(g_own[6], ofl_stag_index(s));
    /* an invalidated region keeps its slots for its next registration */
    CHECK_OK(ofl_tpt_invalidate_local(&g_t, a, 1));
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &c));
    d = desc(PSZ, 0, 12, 0, 1, 1);
    CHECK_ERR(ofl_tpt_register(&g_t, c, 1, &d), OFL_E_TPT_ATT_OWNED);
    /* ... and may take them again, or part of them (its own) */
    d = desc(2 * PSZ, 0, 12, 0, 0, 2);
    CHECK_OK(ofl_tpt_register(&g_t, rekey(a), 1, &d));
    a = rekey(a);
    /* the slots it left are free now */
    d = desc(2 * PSZ, 0, 12, 0, 2, 2);
    CHECK_OK(ofl_tpt_register(&g_t, c, 1, &d));
    /* deregistered: its slots are free */
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 1, 0, &s));
    d = desc(PSZ, 0, 12, 0, 1, 1);
    CHECK_ERR(ofl_tpt_register_check(&g_t, s, 1, &d), OFL_E_TPT_ATT_OWNED);
    CHECK_OK(ofl_tpt_dereg(&g_t, a, 1));
    CHECK_OK(ofl_tpt_register(&g_t, s, 1, &d));
    /* an iSCSI entry without data owns nothing and is never refused */
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_ISCSI, 1, 0, &s));
    d = desc(0, 0, 12, 0, 1, 0);
    CHECK_OK(ofl_tpt_register(&g_t, s, 1, &d));
}

/* Slots an owner gives up lose their page words: a registration over FREE
 * slots - another PD's, or a FAST_REG with no physical buffers - finds no
 * page of a region that is gone (review of issue 26 item 3). Without
 * owners nothing is cleared (FIG. 14 sharing). */
static void test_owners_release_clears(void)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_piece piece[4];
    struct ofl_tpt_sgl sgl = {piece, 4, 0, 0, 0};
    uint64_t pages[4] = {PG(1), PG(2), PG(3), PG(4)};
    uint32_t a = 0, b = 0, s = 0, i;

    t_init(true);
    d = desc(4 * PSZ, 0, 12, 0, 0, 4);
    d.access = LR | LW | OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE;
    CHECK_OK(ofl_tpt_reg_pages(&g_t, 1, &d, pages, 4, &a));
    CHECK_EQ(g_att[0], PG(1) | PRES);
    CHECK_OK(ofl_tpt_dereg(&g_t, a, 1));
    for (i = 0; i < 4; i++) {
        CHECK_EQ(g_att[i], 0);
        CHECK_EQ(g_own[i], 0);
    }
    /* another PD over the same, now FREE, slots: taken, but nothing
     * translates to the old pages */
    CHECK_OK(ofl_tpt_alloc(&g_t, OFL_TPT_REGION, 2, 0, &b));
    CHECK_OK(ofl_tpt_register(&g_t, b, 2, &d));
    CHECK_ERR(ofl_tpt_translate(&g_t, b, d.va, PSZ, &sgl),
              OFL_E_TPT_PAGE_FAULT);
    /* a registration that moves to other slots clears the ones it left,
     * and keeps the words of the ones it keeps */
    CHECK_OK(ofl_tpt_dereg(&g_t, b, 2));
    d = desc(4 * PSZ, 0, 12, 0, 8, 4);
    d.flags = OFL_TPT_F_INVALIDATABLE;
    CHECK_OK(ofl_tpt_reg_pages(&g_t, 1, &d, pages, 4, &s));
    CHECK_OK(ofl_tpt_invalidate_local(&g_t, s, 1));
    d = desc(2 * PSZ, 0, 12, 0, 10, 2);
    CHECK_OK(ofl_tpt_register(&g_t, rekey(s), 1, &d));
    CHECK_EQ(g_att[8], 0);
    CHECK_EQ(g_att[9], 0);
    CHECK_EQ(g_att[10], PG(3) | PRES);
    CHECK_EQ(g_att[11], PG(4) | PRES);
    /* without owners a deregistration leaves the words (shared slots) */
    t_init(false);
    d = desc(4 * PSZ, 0, 12, 0, 0, 4);
    CHECK_OK(ofl_tpt_reg_pages(&g_t, 1, &d, pages, 4, &a));
    CHECK_OK(ofl_tpt_dereg(&g_t, a, 1));
    CHECK_EQ(g_att[0], PG(1) | PRES);
}

/* reg_pages_pool / dereg_pool: the slots come from the pool and go back. */
static void test_pool_register(void)
{
    struct ofl_tpt_att_pool p;
    struct ofl_tpt_region_desc d = desc(PSZ, 0, 12, 0, 55, 0);
    uint32_t map[OFL_TPT_ATT_POOL_WORDS(A_ATT)], s1 = 0, s2 = 0, s3 = 0, x;
    uint64_t pages[3] = {PG(1), PG(2), PG(3)};
    struct ofl_tpt_info info;

    t_init(true);
    CHECK_OK(ofl_tpt_att_pool_init(&p, map, OFL_TPT_ATT_POOL_WORDS(A_ATT),
                                   A_ATT));
    d.len = 3 * PSZ;
    CHECK_OK(ofl_tpt_reg_pages_pool(&g_t, &p, 1, &d, pages, 3, &s1));
    d.len = 2 * PSZ;
    CHECK_OK(ofl_tpt_reg_pages_pool(&g_t, &p, 1, &d, pages, 2, &s2));
    CHECK_EQ(g_e[ofl_stag_index(s1)].att_base, 0);
    CHECK_EQ(g_e[ofl_stag_index(s2)].att_base, 3);
    CHECK_EQ(g_att[4], PG(2) | PRES);
    CHECK_EQ(p.free, A_ATT - 5u);
    /* a refused registration gives its slots back */
    d.len = 4 * PSZ;
    CHECK_ERR(ofl_tpt_reg_pages_pool(&g_t, &p, 1, &d, pages, 3, &s3),
              OFL_E_TPT_ATT_RANGE);
    CHECK_EQ(p.free, A_ATT - 5u);
    CHECK_ERR(ofl_tpt_reg_pages_pool(&g_t, &p, 1, &d, pages, 65, &s3),
              OFL_E_TPT_ATT_FULL);
    CHECK_EQ(s3, 0);
    /* dereg_pool checks first: wrong PD, then the run */
    CHECK_ERR(ofl_tpt_dereg_pool(&g_t, &p, s1, 2), OFL_E_TPT_PD_MISMATCH);
    CHECK_OK(ofl_tpt_dereg_pool(&g_t, &p, s1, 1));
    CHECK_EQ(p.free, A_ATT - 2u);
    CHECK_ERR(ofl_tpt_dereg_pool(&g_t, &p, s1, 1), OFL_E_TPT_INVALID_STAG);
    CHECK_OK(ofl_tpt_att_alloc(&p, 3, &x));
    CHECK_EQ(x, 0);
    CHECK_OK(ofl_tpt_att_free(&p, 0, 3));
    /* s2 re-registered over part of its run: not one run of the pool any
     * more, so dereg_pool refuses and s2 stays */
    CHECK_OK(ofl_tpt_expire(&g_t, s2));
    d = desc(PSZ, 0, 12, 0, 3, 1);
    CHECK_OK(ofl_tpt_register(&g_t, rekey(s2), 1, &d));
    s2 = rekey(s2);
    CHECK_ERR(ofl_tpt_dereg_pool(&g_t, &p, s2, 1),
              OFL_E_TPT_ATT_NOT_ALLOCATED);
    CHECK_OK(ofl_tpt_query(&g_t, s2, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_ERR(ofl_tpt_dereg_pool(&g_t, NULL, s2, 1), OFL_E_ARG);
}

/* ---- owners, through the WQEs ------------------------------------------ */

static uint32_t g_qown[QR_ATT];

static struct qr_rig *owned_rig(uint8_t service)
{
    struct qr_opts o;
    struct qr_rig *r;

    memset(&o, 0, sizeof(o));
    o.sq_reg = 1;
    o.service = service;
    r = qr_new(&o);
    CHECK(r != NULL);
    CHECK_OK(ofl_tpt_att_owners(&r->a.tpt, g_qown, QR_ATT));
    return r;
}

/* FAST_REG with physical buffers, FAST_REG over slots already written, and
 * REG_SEND (steps 0, 1, 2) naming a victim's slots: LOC_PROT_ERR, the
 * victim's page words and translation untouched, no Send on the wire.
 * Then the same WQE naming free slots passes, and again its own after a
 * Local Invalidate. */
static void owned_case(unsigned step)
{
    struct qr_rig *r = owned_rig(OFL_QP_SVC_IWARP);
    uint8_t *victim = qr_alloc(&r->a, 2 * 4096, true);
    uint8_t *secret = qr_alloc(&r->a, 4096, true);
    uint8_t *msg = qr_alloc(&r->a, 64, false);
    uint8_t *dst = qr_alloc(&r->b, 4096, true);
    uint32_t base = r->a.att_next;
    uint32_t lv = qr_reg(&r->a, victim, 2 * 4096, LR, 0);
    uint32_t lmsg = qr_reg(&r->a, msg, 64, LR, 0);
    uint32_t ld = qr_reg(&r->b, dst, 4096, LW, 0);
    uint64_t w0 = r->a.att[base], w1 = r->a.att[base + 1];
    uint64_t word = ofl_sim_pa(secret) | PRES;
    uint32_t fr = 0, sent_before;
    uint8_t op = step == 2 ? OFL_QP_OP_REG_SEND : OFL_QP_OP_FAST_REG;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge, ph;
    struct ofl_cqe c[8];
    struct ofl_tpt_info info;
    int round;

    CHECK(lv != 0 && lmsg != 0 && ld != 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &fr));
    if (step != 0)
        CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 900, &word, 1));
    ph.addr = ofl_sim_pa(secret);
    ph.len = 4096;
    ph.stag = 0;
    for (round = 0; round < 3; round++) {
        /* round 0: the victim's second slot; 1: free slots; 2: its own */
        if (op == OFL_QP_OP_REG_SEND)
            qr_wr(&wr, op, 1, &sge, msg, 4, lmsg);
        else
            qr_wr(&wr, op, 1, &sge, NULL, 0, 0);
        if (step == 0) {
            wr.sge = &ph;
            wr.num_sge = 1;
        } else {
            wr.reg.len = 4096;
            wr.reg.att_count = 1;
        }
        wr.stag = fr;
        wr.reg.va = 0x5000;
        wr.reg.att_base = round == 0 ? base + 1u : 900;
        wr.reg.page_shift = 12;
        wr.reg.access = LR;
        wr.reg.flags = OFL_TPT_F_INVALIDATABLE;
        if (op == OFL_QP_OP_REG_SEND)
            CHECK_OK(qr_post_recv(&r->b, 5, dst, 4096, ld));
        sent_before = r->a.qp.stats.tx_fpdus;
        CHECK_OK(qr_post_send(&r->a, &wr));
        qr_pump(r, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
        CHECK_EQ(c[0].opcode, op);
        if (round == 0) {
            CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
            CHECK_EQ(r->a.att[base], w0);
            CHECK_EQ(r->a.att[base + 1], w1);
            CHECK_EQ(r->a.qp.stats.tx_fpdus, sent_before);
            CHECK_OK(ofl_tpt_query(&r->a.tpt, fr, &info));
            CHECK_EQ(info.state, OFL_TPT_INVALID);
            CHECK_EQ(g_qown[base + 1], ofl_stag_index(lv));
            /* the victim still reaches its own pages */
            CHECK_OK(ofl_tpt_check_local(&r->a.tpt, lv, 7,
                                         (uint64_t)(uintptr_t)victim, 8192,
                                         LR));
            CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
            if (op != OFL_QP_OP_REG_SEND) /* else its receive is unused */
                CHECK_OK(qr_post_recv(&r->b, 5, dst, 4096, ld));
            memset(victim + 4096, 'V', 16);
            qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, victim + 4096, 16, lv);
            CHECK_OK(qr_post_send(&r->a, &wr));
            qr_pump(r, 0);
            CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
            CHECK(memcmp(dst, "VVVVVVVVVVVVVVVV", 16) == 0);
        } else {
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_EQ(r->a.att[900], word);
            CHECK_EQ(g_qown[900], ofl_stag_index(fr));
            if (op == OFL_QP_OP_REG_SEND)
                CHECK_EQ(qr_poll(&r->b, false, c, 8), 1);
            /* Local Invalidate, then the next registration takes a new
             * key: its own slots again (round 2) */
            qr_wr(&wr, OFL_QP_OP_LOCAL_INV, 3, &sge, NULL, 0, 0);
            wr.stag = fr;
            CHECK_OK(qr_post_send(&r->a, &wr));
            qr_pump(r, 0);
            CHECK_EQ(qr_poll(&r->a, true, c, 8), 1);
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            fr = rekey(fr);
        }
    }
    qr_free(r);
}

static void test_owned_wqes(void)
{
    owned_case(0);
    owned_case(1);
    owned_case(2);
}

/* An iSCSI command whose buffers would go into another entry's slots is
 * refused (the registration error option: LOC_PROT_ERR), its Command PDU
 * never sent; over free slots the same command goes out. */
/* Posts an ISCSI_CMD (a read, F and R) of one 4 KiB physical buffer at
 * buf whose page words go to att_base, and runs the engine once. */
static void post_iscsi_read(struct qr_rig *r, uint32_t stag, uint8_t *buf,
                            uint32_t att_base, uint64_t wr_id)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge ph;
    uint32_t id = 0;

    ph.addr = ofl_sim_pa(buf);
    ph.len = 4096;
    ph.stag = 0;
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_ISCSI_CMD;
    wr.wr_id = wr_id;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.stag = stag;
    wr.sge = &ph;
    wr.num_sge = 1;
    wr.reg.att_base = att_base;
    wr.reg.page_shift = 12;
    wr.bhs[0] = 0x01;
    wr.bhs[1] = 0x80 | 0x40; /* F, R */
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &id));
    CHECK_OK(qr_process(&r->a, 0));
}

static void test_owned_iscsi(void)
{
    struct qr_rig *r = owned_rig(OFL_QP_SVC_ISCSI);
    uint8_t *victim = qr_alloc(&r->a, 4096, true);
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint32_t base = r->a.att_next;
    uint32_t lv = qr_reg(&r->a, victim, 4096, LR | LW, 0);
    uint64_t w0 = r->a.att[base];
    uint32_t stag = 0, k;
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;

    CHECK(lv != 0);
    for (k = 0; k < 2; k++) {
        CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
        post_iscsi_read(r, stag, buf, k == 0 ? base : 600, 77);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
        CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_CMD);
        CHECK_OK(ofl_tpt_query(&r->a.tpt, stag, &info));
        if (k == 0) {
            CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
            CHECK_EQ(r->ab.len, 0); /* no Command PDU */
            CHECK_EQ(info.state, OFL_TPT_INVALID);
            CHECK_EQ(r->a.att[base], w0);
            CHECK_OK(ofl_tpt_check_local(&r->a.tpt, lv, 7,
                                         (uint64_t)(uintptr_t)victim, 4096,
                                         LW));
            CHECK_OK(ofl_tpt_dealloc(&r->a.tpt, stag, 7));
            CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_RTS));
        } else {
            CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
            CHECK_EQ(r->ab.len, 48);
            CHECK_EQ(info.state, OFL_TPT_VALID);
            CHECK_EQ(g_qown[600], ofl_stag_index(stag));
        }
    }
    qr_free(r);
}

/* An ISCSI_CMD naming an entry that is not an iSCSI entry is refused
 * before it writes a page word (review of issue 26 item 3: it wrote the
 * ATT, then failed). */
static void test_iscsi_wrong_type_writes_nothing(void)
{
    struct qr_rig *r = owned_rig(OFL_QP_SVC_ISCSI);
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint32_t stag = 0;
    struct ofl_cqe c[4];
    uint64_t w = r->a.att[600];

    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_REGION, 7, 0, &stag));
    post_iscsi_read(r, stag, buf, 600, 78);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(r->a.att[600], w);
    CHECK_EQ(r->ab.len, 0); /* no Command PDU */
    {
        struct ofl_tpt_region_desc d;

        memset(&d, 0, sizeof(d));
        d.len = 4096;
        d.page_shift = 12;
        d.att_base = 600;
        d.att_count = 1;
        d.access = LR | LW;
        CHECK_OK(ofl_tpt_register_check(&r->a.tpt, stag, 7, &d));
        CHECK_ERR(ofl_tpt_register_iscsi_check(&r->a.tpt, stag, 7, 1, &d),
                  OFL_E_TPT_WRONG_TYPE);
        CHECK_ERR(ofl_tpt_register_iscsi_check(&r->a.tpt, stag, 7,
                                               OFL_TPT_QP_NONE, &d),
                  OFL_E_ARG);
    }
    qr_free(r);
}

OFL_SUITE(tpt_att)
{
    test_pool_init();
    test_pool_full();
    test_pool_fragmented();
    test_pool_bad_free();
    test_pool_model();
    test_slots();
    test_owners_attach();
    test_owners_verbs();
    test_pool_register();
    test_owned_wqes();
    test_owned_iscsi();
    test_owners_release_clears();
    test_iscsi_wrong_type_writes_nothing();
}
