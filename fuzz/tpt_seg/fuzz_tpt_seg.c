/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_tpt_seg: the segment table (offload.h, "local protection: the
 * segment table"; seed 001 FIG. 13-17) against a model written from the
 * header. SegmentTableUpdate takes trusted structs from the VMM, but the
 * effective addresses a user process passes to ofl_tpt_register_ea and
 * ofl_tpt_bind_ea are the process's to choose: this harness drives both
 * with arbitrary values.
 *
 * Input: byte 0 picks seg_shift (12 .. 60), byte 1 the capacity (1 .. 16);
 * then events, each an op byte and its operands (missing bytes read as 0):
 *
 *   0 UPDATE    op, esid, flag, vsid (8): flag bit 0 makes vsid the
 *               previous segment's + 1 (so ranges may cross)
 *   1 TRANSLATE esid, offset (8), len (8), flag: flag bit 0 keeps len
 *               below 2^(seg_shift + 1) (ranges of one or two segments)
 *   2 REG_EA    esid, offset (8), len (2), access, slot: registers a fresh
 *               or the current region of slot (0 .. 3) at that address
 *   3 BIND_EA   esid, offset (8), len (2), slot: binds the window of slot
 *               to the region of slot at that address
 *   4 DEREG     slot
 *
 * Every outcome is predicted exactly: translations to the error and the
 * virtual address; a registration is the model's translation error, else
 * what ofl_tpt_register_check says of the translated descriptor; a bind
 * through the table fails with the model's translation error or succeeds
 * only where the model translates, with the window holding the virtual
 * address; every failure leaves the segment table and the TPT entries
 * byte for byte as they were.
 */
#include "fuzz.h"
#include "offload.h"

#include <stdbool.h>
#include <string.h>

#define SEGS 16u
#define CAP 16u
#define ATTN 64u
#define SLOTS 4u
#define MAX_OPS 256
#define U64MAX (~(uint64_t)0)

struct mseg {
    uint64_t vsid;
    bool valid;
};

static struct ofl_tpt_segtab st;
static struct ofl_tpt_seg seg[SEGS];
static struct mseg model[SEGS];
static uint32_t cap;
static uint8_t shift;
static struct ofl_tpt tpt;
static struct ofl_tpt_entry ent[CAP];
static uint64_t att[ATTN];
static uint32_t region[SLOTS], window[SLOTS];

static enum ofl_err model_translate(uint64_t ea, uint64_t len, uint64_t *va)
{
    uint64_t last = len == 0 ? ea : ea + (len - 1u), id, first, prev = 0;

    if (last < ea)
        return OFL_E_TPT_SEG_RANGE;
    first = ea >> shift;
    for (id = first; id <= (last >> shift); id++) {
        if (id >= cap)
            return OFL_E_TPT_SEG_RANGE;
        if (!model[id].valid)
            return OFL_E_TPT_SEG_INVALID;
        if (id != first && model[id].vsid != prev + 1u)
            return OFL_E_TPT_SEG_DISCONTIG;
        prev = model[id].vsid;
    }
    *va = (model[first].vsid << shift) | (ea & (U64MAX >> (64u - shift)));
    return OFL_OK;
}

static void check_table(void)
{
    uint32_t i, valid = 0;

    for (i = 0; i < cap; i++) {
        FUZZ_ASSERT((seg[i].valid != 0) == model[i].valid);
        if (model[i].valid) {
            FUZZ_ASSERT(seg[i].vsid == model[i].vsid);
            valid++;
        }
    }
    FUZZ_ASSERT(st.valid_count == valid);
}

static void op_update(struct fuzz_in *in)
{
    struct ofl_tpt_seg_update u;
    struct ofl_tpt_segtab before = st;
    enum ofl_err want = OFL_OK, got;
    uint8_t flag;

    memset(&u, 0, sizeof(u));
    u.op = fuzz_u8(in) & 7;
    u.esid = fuzz_u8(in);
    flag = fuzz_u8(in);
    u.vsid = fuzz_u64(in);
    if ((flag & 1) && u.esid >= 1 && u.esid - 1 < cap)
        u.vsid = model[u.esid - 1].vsid + 1u;
    if (u.esid >= cap)
        want = OFL_E_TPT_SEG_RANGE;
    else if (u.op == OFL_TPT_SEG_ADD || u.op == OFL_TPT_SEG_CHANGE)
        want = (u.vsid > (U64MAX >> shift) ||
                model[u.esid].valid != (u.op == OFL_TPT_SEG_CHANGE))
                   ? OFL_E_TPT_SEG_UPDATE
                   : OFL_OK;
    else if (u.op == OFL_TPT_SEG_DELETE)
        want = model[u.esid].valid ? OFL_OK : OFL_E_TPT_SEG_UPDATE;
    else
        want = OFL_E_TPT_SEG_UPDATE;
    got = ofl_tpt_seg_update(&st, &u);
    FUZZ_ASSERT(got == want);
    if (got != OFL_OK) {
        FUZZ_ASSERT(memcmp(&before, &st, sizeof(st)) == 0);
    } else {
        FUZZ_ASSERT(st.updates == before.updates + 1u);
        model[u.esid].valid = u.op != OFL_TPT_SEG_DELETE;
        model[u.esid].vsid = u.op == OFL_TPT_SEG_DELETE ? 0 : u.vsid;
    }
    check_table();
}

static uint64_t pick_ea(struct fuzz_in *in)
{
    uint64_t esid = fuzz_u8(in) & 31u, off = fuzz_u64(in);

    /* Segment ids 0 .. 31 (beyond the table too; the upper ones fall off
     * the top for the largest shifts), any page and offset. */
    return (esid << shift) | (off & (U64MAX >> (64u - shift)));
}

static void op_translate(struct fuzz_in *in)
{
    uint64_t ea = pick_ea(in), len = fuzz_u64(in), va = 1, mva = 2;
    enum ofl_err want, got;

    if (fuzz_u8(in) & 1)
        len &= U64MAX >> (63u - shift);
    want = model_translate(ea, len, &mva);
    got = ofl_tpt_seg_translate(&st, ea, len, &va);
    FUZZ_ASSERT(got == want);
    FUZZ_ASSERT(got == OFL_OK ? va == mva : va == 1);
}

static void op_reg(struct fuzz_in *in)
{
    struct ofl_tpt_region_desc d, t;
    struct ofl_tpt_entry before[CAP];
    struct ofl_tpt_info info;
    uint32_t slot, s;
    uint64_t mva = 0;
    enum ofl_err want, got;

    memset(&d, 0, sizeof(d));
    d.va = pick_ea(in);
    d.len = fuzz_u16(in);
    d.access = fuzz_u8(in) & OFL_TPT_ACCESS_ALL;
    slot = fuzz_u8(in) % SLOTS;
    d.page_shift = 12;
    d.att_kind = OFL_TPT_ATT_DIRECT;
    d.att_base = slot * 16u;
    d.att_count = 16;
    if (region[slot] == 0 &&
        ofl_tpt_alloc(&tpt, OFL_TPT_REGION, 1, 0, &region[slot]) != OFL_OK)
        return;
    s = region[slot];
    t = d;
    want = model_translate(d.va, d.len, &mva);
    if (want == OFL_OK) {
        t.va = mva;
        want = ofl_tpt_register_check(&tpt, s, 1, &t);
    }
    memcpy(before, ent, sizeof(ent));
    got = ofl_tpt_register_ea(&tpt, &st, s, 1, &d);
    FUZZ_ASSERT(got == want);
    if (got != OFL_OK) {
        FUZZ_ASSERT(memcmp(before, ent, sizeof(ent)) == 0);
        return;
    }
    FUZZ_ASSERT(ofl_tpt_query(&tpt, s, &info) == OFL_OK);
    FUZZ_ASSERT(info.va == mva && info.len == d.len &&
                info.state == OFL_TPT_VALID);
}

static void op_bind(struct fuzz_in *in)
{
    struct ofl_tpt_bind_args b;
    struct ofl_tpt_entry before[CAP];
    struct ofl_tpt_info info;
    uint32_t slot, bound = 0;
    uint64_t mva = 0;
    enum ofl_err want, got;

    memset(&b, 0, sizeof(b));
    b.va = pick_ea(in);
    b.len = fuzz_u16(in);
    slot = fuzz_u8(in) % SLOTS;
    if (region[slot] == 0)
        return;
    if (window[slot] == 0 &&
        ofl_tpt_alloc(&tpt, OFL_TPT_WINDOW, 1, 0, &window[slot]) != OFL_OK)
        return;
    b.stag = window[slot];
    b.region_stag = region[slot];
    b.pd = 1;
    b.access = OFL_TPT_REMOTE_READ;
    want = b.len == 0 ? OFL_OK : model_translate(b.va, b.len, &mva);
    memcpy(before, ent, sizeof(ent));
    got = ofl_tpt_bind_ea(&tpt, &st, &b, &bound);
    if (want != OFL_OK) {
        FUZZ_ASSERT(got == want);
    }
    if (got != OFL_OK) {
        FUZZ_ASSERT(memcmp(before, ent, sizeof(ent)) == 0);
        return;
    }
    if (b.len == 0)
        return; /* unbound: the key stays */
    window[slot] = bound;
    FUZZ_ASSERT(ofl_tpt_query(&tpt, bound, &info) == OFL_OK);
    FUZZ_ASSERT(info.va == mva && info.len == b.len &&
                info.state == OFL_TPT_VALID);
}

static void op_dereg(struct fuzz_in *in)
{
    uint32_t slot = fuzz_u8(in) % SLOTS;

    if (window[slot] != 0) {
        FUZZ_ASSERT(ofl_tpt_dealloc(&tpt, window[slot], 1) == OFL_OK);
        window[slot] = 0;
    }
    if (region[slot] != 0) {
        FUZZ_ASSERT(ofl_tpt_dereg(&tpt, region[slot], 1) == OFL_OK);
        region[slot] = 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint64_t w[ATTN];
    uint32_t i;
    int ops;

    shift = (uint8_t)(OFL_TPT_SEG_SHIFT_MIN + fuzz_u8(&in) % 49u);
    cap = 1u + fuzz_u8(&in) % SEGS;
    memset(seg, 0xA5, sizeof(seg));
    memset(model, 0, sizeof(model));
    memset(region, 0, sizeof(region));
    memset(window, 0, sizeof(window));
    FUZZ_ASSERT(ofl_tpt_seg_init(&st, seg, cap, shift) == OFL_OK);
    check_table();
    FUZZ_ASSERT(ofl_tpt_init(&tpt, ent, CAP, att, ATTN, NULL,
                             OFL_TPT_POLICY_STANDARD) == OFL_OK);
    for (i = 0; i < ATTN; i++)
        w[i] = (0x100000000ull + (uint64_t)i * 0x1000u) | OFL_TPT_ATT_PRESENT;
    FUZZ_ASSERT(ofl_tpt_att_write(&tpt, 0, w, ATTN) == OFL_OK);
    for (ops = 0; ops < MAX_OPS && in.n > 0; ops++) {
        switch (fuzz_u8(&in) % 5u) {
        case 0:
            op_update(&in);
            break;
        case 1:
            op_translate(&in);
            break;
        case 2:
            op_reg(&in);
            break;
        case 3:
            op_bind(&in);
            break;
        default:
            op_dereg(&in);
            break;
        }
    }
    return 0;
}
