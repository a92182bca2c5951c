/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/qp_demux: the quintuple demultiplexer (ofl_qp_demux_*, FIG. 16)
 * against a model, with peer-chosen quintuples and a caller key.
 *
 * Input: 16 key bytes, byte C (cap 1 << (C % 9): 1 .. 256 slots), then
 * events:
 *   0x00 I P A F  set QP I % NQ's quintuple (not while it is in the table):
 *                 source port P (16 bits), last source address byte A,
 *                 family 6 when F & 1 (else 4)
 *   0x01 I        add QP I % NQ
 *   0x02 I        remove QP I % NQ
 *   0x03 P A F    ofl_qp_demux_find of such a quintuple
 * (any other event byte: its value mod 4).
 *
 * Invariants (each event's result after it, the table every 16 events and
 * at the end): add and remove succeed exactly when the
 * model says, with the model's error (TUPLE_BUSY, FULL when every slot is
 * used, CROWDED otherwise; NO_CONTEXT); every QP in the table is found and
 * no other QP with its quintuple; count equals the model's; every member
 * lies within OFL_QP_DEMUX_PROBE_MAX slots of its home (so a lookup reads
 * at most that many).
 */
#include "fuzz.h"
#include "offload.h"

#include <string.h>

#define NQ 160
#define CAPMAX 256

static struct ofl_qp qp[NQ];
static bool in[NQ];
static struct ofl_qp *slot[CAPMAX];
static struct ofl_qp_demux d;

static void set_tuple(struct ofl_qp_tuple *t, uint16_t port, uint8_t a,
                      uint8_t f)
{
    memset(t, 0, sizeof(*t));
    t->transport = 6;
    t->family = (f & 1) ? 6 : 4;
    t->src_port = port;
    t->dst_port = 3260;
    t->src_addr[0] = 10;
    t->src_addr[(f & 1) ? 15 : 3] = a;
    t->dst_addr[0] = 10;
    t->dst_addr[3] = 1;
}

static bool same(const struct ofl_qp_tuple *a, const struct ofl_qp_tuple *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

/* The QP of the model holding t, or -1. */
static int model_find(const struct ofl_qp_tuple *t)
{
    int i;

    for (i = 0; i < NQ; i++)
        if (in[i] && same(&qp[i].attr.tuple, t))
            return i;
    return -1;
}

static void check(void)
{
    uint32_t j, n = 0, reach = d.cap < OFL_QP_DEMUX_PROBE_MAX
                                   ? d.cap
                                   : OFL_QP_DEMUX_PROBE_MAX;
    int i;

    for (i = 0; i < NQ; i++) {
        if (in[i]) {
            n++;
            FUZZ_ASSERT(ofl_qp_demux_find(&d, &qp[i].attr.tuple) == &qp[i]);
        }
    }
    FUZZ_ASSERT(n == d.count);
    for (j = 0, n = 0; j < d.cap; j++) {
        uint32_t home;

        if (slot[j] == NULL)
            continue;
        n++;
        FUZZ_ASSERT(slot[j] >= qp && slot[j] < qp + NQ && in[slot[j] - qp]);
        home = ofl_qp_demux_home(&d, &slot[j]->attr.tuple);
        FUZZ_ASSERT(home < d.cap);
        FUZZ_ASSERT(((j - home) & (d.cap - 1u)) < reach);
    }
    FUZZ_ASSERT(n == d.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in fin = {data, size};
    const uint8_t *key;
    uint8_t kb[16];
    uint32_t cap;
    size_t n;
    int i, steps = 0;

    memset(kb, 0, sizeof(kb));
    n = fuzz_take(&fin, &key, 16);
    if (n != 0)
        memcpy(kb, key, n);
    cap = 1u << (fuzz_u8(&fin) % 9u);
    FUZZ_ASSERT(ofl_qp_demux_init(&d, slot, cap, kb) == OFL_OK);
    for (i = 0; i < NQ; i++) {
        memset(&qp[i], 0, sizeof(qp[i]));
        set_tuple(&qp[i].attr.tuple, (uint16_t)(1024 + i), 7, 0);
        in[i] = false;
    }
    while (fin.n != 0 && steps++ < 1024) {
        uint8_t ev = fuzz_u8(&fin) % 4u;

        if (ev == 0) {
            int q = fuzz_u8(&fin) % NQ;
            uint16_t port = fuzz_u16(&fin);
            uint8_t a = fuzz_u8(&fin), f = fuzz_u8(&fin);

            if (!in[q])
                set_tuple(&qp[q].attr.tuple, port, a, f);
        } else if (ev == 1) {
            int q = fuzz_u8(&fin) % NQ;
            enum ofl_err err = ofl_qp_demux_add(&d, &qp[q]);
            int held = model_find(&qp[q].attr.tuple);

            if (held >= 0) {
                FUZZ_ASSERT(err == OFL_E_QP_TUPLE_BUSY);
            } else if (err == OFL_OK) {
                in[q] = true;
            } else {
                FUZZ_ASSERT(err == (d.count == d.cap ? OFL_E_QP_DEMUX_FULL
                                                     : OFL_E_QP_DEMUX_CROWDED));
                FUZZ_ASSERT(d.count >= OFL_QP_DEMUX_PROBE_MAX ||
                            d.count == d.cap);
            }
        } else if (ev == 2) {
            int q = fuzz_u8(&fin) % NQ;
            enum ofl_err err = ofl_qp_demux_remove(&d, &qp[q]);

            FUZZ_ASSERT(err == (in[q] ? OFL_OK : OFL_E_QP_NO_CONTEXT));
            in[q] = false;
        } else {
            struct ofl_qp_tuple t;
            uint16_t port = fuzz_u16(&fin);
            uint8_t a = fuzz_u8(&fin), f = fuzz_u8(&fin);
            int held;

            set_tuple(&t, port, a, f);
            held = model_find(&t);
            FUZZ_ASSERT(ofl_qp_demux_find(&d, &t) ==
                        (held >= 0 ? &qp[held] : NULL));
        }
        if ((steps & 15) == 0) /* every QP and slot: costly, not each event */
            check();
    }
    check();
    return 0;
}
