/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/one_touch: the seq section and a real TPT against an independent
 * reference model of seed 000 FIG. 18B "Table D" with deferred
 * invalidation.
 *
 * Input: byte 0 window (2 << (b % 30)), byte 1 which of the 4 regions are
 * one-touch (bit mask), then events:
 *   0x00 W      window 2 << (W % 30)
 *   0x01 F O    tagged segment on region F & 3, Last bit F & 4, DDP SN
 *               nxt - 1 + (int8_t)O * unit (unit = max(1, wnd / 64))
 *   0x02 N      the in-order stream advances N * unit bytes
 *   0x03        retire the due deferred invalidations
 *   0x04 F      deregister and register region F & 3 again
 * (any other event byte: its value mod 5). Seeds: the reordered tagged
 * FPDUs of the ofl-pcap conversation (ofl-pcap --corpus).
 *
 * Invariants: after every event the TPT entries (valid, touched, stored
 * SN), the decision row, the pending count and every error equal the
 * model's.
 */
#include "fuzz.h"
#include "offload.h"

#include <string.h>

#define NREG 4
#define PCAP 2 /* pending capacity */

struct mentry {
    uint32_t stag;
    bool valid, one_touch, touched;
    uint32_t stored;
};

struct mpending {
    int idx;
    uint32_t stag, sn;
    bool due;
};

static struct ofl_tpt tpt;
static struct ofl_tpt_entry entries[16];
static uint64_t att[NREG];
static struct mentry me[NREG];
static struct mpending mp[PCAP];
static int mpn;
static uint32_t mnxt, mwnd;

static uint32_t reg(int i, bool one_touch)
{
    struct ofl_tpt_region_desc d;
    uint64_t page = 0x100000ull + 0x1000ull * (uint64_t)i;
    uint32_t stag = 0;

    memset(&d, 0, sizeof(d));
    d.va = 0x1000;
    d.len = 4096;
    d.att_base = (uint32_t)i;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE;
    d.flags = one_touch ? OFL_TPT_F_ONE_TOUCH : 0;
    FUZZ_ASSERT(ofl_tpt_reg_pages(&tpt, 1, &d, &page, 1, &stag) == OFL_OK);
    me[i].stag = stag;
    me[i].valid = true;
    me[i].one_touch = one_touch;
    me[i].touched = false;
    me[i].stored = 0;
    return stag;
}

/* Table D as the seed words it, written apart from the core. */
static int model_row(bool last, bool ot, bool touched, uint32_t sn)
{
    if (!last)
        return 1;
    if (!ot)
        return 2;
    if (touched)
        return 3;
    if (sn == mnxt - 1u)
        return 4;
    if (sn - mnxt < mwnd)
        return 5;
    return 6;
}

static void compare(const struct ofl_seq *s)
{
    int i;

    FUZZ_ASSERT(s->nxt == mnxt && s->wnd == mwnd);
    FUZZ_ASSERT((int)s->pending_count == mpn);
    for (i = 0; i < NREG; i++) {
        struct ofl_tpt_info info;

        FUZZ_ASSERT(ofl_tpt_query(&tpt, me[i].stag, &info) == OFL_OK);
        FUZZ_ASSERT((info.state == OFL_TPT_VALID) == me[i].valid);
        if (me[i].valid) {
            FUZZ_ASSERT(((info.flags & OFL_TPT_F_TOUCHED) != 0) ==
                        me[i].touched);
            if (me[i].touched)
                FUZZ_ASSERT(info.stored_sn == me[i].stored);
        }
    }
}

static uint32_t unit(void)
{
    return mwnd >= 64 ? mwnd >> 6 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    struct ofl_seq s;
    struct ofl_seq_pending slots[PCAP];
    uint8_t mask;
    int i, steps = 0;

    if (size < 2)
        return 0;
    mwnd = 2u << (fuzz_u8(&in) % 30);
    mask = fuzz_u8(&in);
    mnxt = 0xFFFFF000u; /* wrap early */
    mpn = 0;
    FUZZ_ASSERT(ofl_tpt_init(&tpt, entries, 16, att, NREG, NULL,
                             OFL_TPT_POLICY_STANDARD) == OFL_OK);
    for (i = 0; i < NREG; i++)
        reg(i, (mask >> i) & 1);
    FUZZ_ASSERT(ofl_seq_init(&s, mnxt, mwnd, slots, PCAP) == OFL_OK);
    while (in.n > 0 && steps++ < 10000) {
        uint8_t op = fuzz_u8(&in) % 5;

        if (op == 0) {
            mwnd = 2u << (fuzz_u8(&in) % 30);
            FUZZ_ASSERT(ofl_seq_set_window(&s, mwnd) == OFL_OK);
        } else if (op == 1) {
            uint8_t f = fuzz_u8(&in);
            int8_t o = (int8_t)fuzz_u8(&in);
            int idx = f & 3;
            bool last = (f & 4) != 0;
            uint32_t sn = mnxt - 1u + (uint32_t)(int32_t)o * unit();
            struct mentry *e = &me[idx];
            struct ofl_seq_ot d;
            int row, pend;

            if (!e->valid)
                continue; /* the remote checks would refuse it */
            row = model_row(last, e->one_touch, e->touched, sn);
            pend = -1;
            for (i = 0; i < mpn; i++)
                if (mp[i].stag == e->stag)
                    pend = i;
            if (row == 3 && pend >= 0 && mp[pend].sn == sn &&
                e->stored == sn) {
                /* Another copy of the touching segment: dropped, nothing
                 * changes. */
                FUZZ_ASSERT(ofl_seq_one_touch_apply(&s, &tpt, e->stag, last,
                                                    sn, &d) == OFL_OK);
                FUZZ_ASSERT(d.action == OFL_SEQ_OT_DUPLICATE && !d.place &&
                            !d.terminate && !d.invalidate);
                compare(&s);
                continue;
            }
            /* A stale pair for the same STag (its 8-bit key wrapped after
             * 256 registrations) is taken over by row 5. */
            if (row == 5 && pend < 0 && mpn == PCAP)
                row = 6; /* cannot track it: dropped */
            FUZZ_ASSERT(ofl_seq_one_touch_apply(&s, &tpt, e->stag, last, sn,
                                                &d) == OFL_OK);
            FUZZ_ASSERT(d.row == row);
            FUZZ_ASSERT(d.place == (row == 1 || row == 2 || row == 4 ||
                                    row == 5));
            FUZZ_ASSERT(d.terminate == (row == 3));
            if (row == 3 || row == 4) {
                e->valid = false;
                e->touched = false;
            } else if (row == 5) {
                e->touched = true;
                e->stored = sn;
                if (pend < 0)
                    pend = mpn++;
                mp[pend].idx = idx;
                mp[pend].stag = e->stag;
                mp[pend].sn = sn;
                mp[pend].due = false;
            }
        } else if (op == 2) {
            uint32_t n = (uint32_t)fuzz_u8(&in) * unit();
            enum ofl_err err = ofl_seq_advance(&s, n, NULL);

            if (n > mwnd) {
                FUZZ_ASSERT(err == OFL_E_SEQ_BEYOND_WINDOW);
            } else {
                FUZZ_ASSERT(err == OFL_OK);
                for (i = 0; i < mpn; i++)
                    if (mp[i].sn - mnxt < n)
                        mp[i].due = true;
                mnxt += n;
            }
        } else if (op == 3) {
            uint32_t expired = 0, want = 0;
            int k = 0;

            FUZZ_ASSERT(ofl_seq_retire(&s, &tpt, &expired) == OFL_OK);
            for (i = 0; i < mpn; i++) {
                struct mentry *e = &me[mp[i].idx];

                if (!mp[i].due) {
                    mp[k++] = mp[i];
                    continue;
                }
                if (e->stag == mp[i].stag && e->valid && e->touched &&
                    e->stored == mp[i].sn) {
                    e->valid = false;
                    e->touched = false;
                    want++;
                }
            }
            mpn = k;
            FUZZ_ASSERT(expired == want);
        } else {
            int idx = fuzz_u8(&in) & 3;

            FUZZ_ASSERT(ofl_tpt_dereg(&tpt, me[idx].stag, 1) == OFL_OK);
            reg(idx, (mask >> idx) & 1);
        }
        compare(&s);
    }
    return 0;
}
