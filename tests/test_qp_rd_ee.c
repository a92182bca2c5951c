/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: finding an RD frame's EE context (offload.h "Finding the EE of an
 * RD frame", issue 26 item 6): in a table larger than
 * OFL_QP_NODE_EE_PROBE_MAX an EE lives in its address's run, placed by
 * ofl_qp_node_ee_place from a keyed home, and a lookup reads that run
 * only, hit or miss; smaller tables work as before the bound. */
#include "test.h"
#include "support/dg_rig.h"

#include <stdlib.h>

#define PROBE OFL_QP_NODE_EE_PROBE_MAX
#define WIDE 64u /* contexts of a large table (> PROBE) */
#define SIG OFL_QP_WR_SIGNALED
#define NODE 1u  /* the bare node's address */

static const uint8_t KEY1[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
                                 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
                                 0x0c, 0x0d, 0x0e, 0x0f};
static const uint8_t KEY2[16] = {0x5a, 0xc3, 0x91, 0x0e, 0x77, 0x24,
                                 0xb8, 0x6f, 0xd2, 0x13, 0x4c, 0xe9,
                                 0x30, 0x8d, 0xa6, 0x5b};
static const uint8_t ZERO[16];

static int stub_tx(void *ctx, const uint8_t *data, uint32_t len,
                   uint32_t flags)
{
    (void)ctx;
    (void)data;
    (void)len;
    (void)flags;
    return 0;
}

/* A node without QPs over cap (<= WIDE) EE contexts, each with memory for
 * a window of one frame. */
struct bare {
    struct ofl_qp_node node;
    struct ofl_qp *slots[4];
    struct ofl_ee ee[WIDE];
    struct ofl_ee_slot slot[WIDE][1];
    uint8_t buf[WIDE][64];
};

/* key NULL: none given (all zeros). */
static struct bare *bare_new(uint32_t cap, const uint8_t *key)
{
    struct bare *b = calloc(1, sizeof(*b));

    if (b == NULL)
        return NULL;
    if (ofl_qp_node_init(&b->node, NODE, b->slots, 4, b->ee, cap) !=
            OFL_OK ||
        (key != NULL && ofl_qp_node_ee_key(&b->node, key) != OFL_OK)) {
        free(b);
        return NULL;
    }
    return b;
}

/* ofl_ee_init of context ee of b toward addr. */
static enum ofl_err bare_setup(struct bare *b, struct ofl_ee *ee,
                               uint32_t addr)
{
    const size_t k = (size_t)(ee - b->ee);
    struct ofl_ee_attr a;

    memset(&a, 0, sizeof(a));
    a.local_addr = NODE;
    a.remote_addr = addr;
    a.window = 1;
    a.slot_size = 64;
    a.buf = b->buf[k];
    a.slot = b->slot[k];
    a.timeout = 10;
    a.retry_limit = 1;
    a.transmit = stub_tx;
    a.transmit_ctx = b;
    return ofl_ee_init(ee, &a);
}

/* Places addr and sets its EE up: the context, or NULL. */
static struct ofl_ee *bare_place(struct bare *b, uint32_t addr)
{
    struct ofl_ee *ee;

    if (ofl_qp_node_ee_place(&b->node, addr, &ee) != OFL_OK ||
        bare_setup(b, ee, addr) != OFL_OK)
        return NULL;
    return ee;
}

/* How far context at lies past addr's home (cyclically). */
static uint32_t run_pos(const struct bare *b, uint32_t at, uint32_t addr)
{
    const uint32_t cap = b->node.ee_cap;

    return (at + cap - ofl_qp_node_ee_home(&b->node, addr)) % cap;
}

/* Marks context at in use for addr without setting it up (a lookup reads
 * only the state and the remote address). */
static void plant(struct bare *b, uint32_t at, uint32_t addr)
{
    b->ee[at].state = OFL_EE_RTS;
    b->ee[at].attr.remote_addr = addr;
}

/* n addresses from `from` on whose home in b is h, into out: how many
 * were found (below n only if 2^20 addresses did not hold them). */
static uint32_t colliders(const struct bare *b, uint32_t h, uint32_t from,
                          uint32_t *out, uint32_t n)
{
    uint32_t got = 0, a;

    for (a = from; got < n && a - from < (1u << 20); a++)
        if (ofl_qp_node_ee_home(&b->node, a) == h)
            out[got++] = a;
    return got;
}

/* An RD acknowledgement from src to the bare node, covering nothing sent
 * (sequence number snd_isn - 1 = 0xFFFFFFFF). */
static void ack_frame(uint8_t f[28], uint32_t src)
{
    memset(f, 0, 28);
    f[0] = OFL_DG_VERSION;
    f[1] = OFL_DG_ACK;
    f[7] = (uint8_t)NODE;
    f[8] = (uint8_t)(src >> 24);
    f[9] = (uint8_t)(src >> 16);
    f[10] = (uint8_t)(src >> 8);
    f[11] = (uint8_t)src;
    f[20] = f[21] = f[22] = f[23] = 0xFF;
}

/* Tables of at most PROBE contexts: no hash, any context serves any
 * address (the whole table is the run), as before the bound. */
static void test_small_table(void)
{
    struct bare *b = bare_new(PROBE, KEY1), *z = bare_new(0, NULL);
    struct ofl_ee *ee;
    uint32_t i;

    CHECK(b != NULL && z != NULL);
    if (b == NULL || z == NULL) {
        free(b);
        free(z);
        return;
    }
    for (i = 0; i < 100; i++)
        CHECK_EQ(ofl_qp_node_ee_home(&b->node, 7000u + i * 977u), 0);
    /* set up in the last context without the helper: found */
    CHECK_OK(bare_setup(b, &b->ee[PROBE - 1], 77));
    CHECK(ofl_qp_node_ee(&b->node, 77) == &b->ee[PROBE - 1]);
    CHECK_OK(ofl_qp_node_ee_place(&b->node, 77, &ee)); /* holds it */
    CHECK(ee == &b->ee[PROBE - 1]);
    CHECK_OK(ofl_qp_node_ee_place(&b->node, 78, &ee)); /* first unused */
    CHECK(ee == &b->ee[0]);
    for (i = 0; i < PROBE - 1; i++)
        CHECK(bare_place(b, 78 + i) == &b->ee[i]);
    for (i = 0; i < PROBE - 1; i++)
        CHECK(ofl_qp_node_ee(&b->node, 78 + i) == &b->ee[i]);
    /* full: the named refusal, nothing given */
    ee = &b->ee[3];
    CHECK_ERR(ofl_qp_node_ee_place(&b->node, 999, &ee), OFL_E_QP_EE_CROWDED);
    CHECK(ee == NULL);
    CHECK(ofl_qp_node_ee(&b->node, 999) == NULL);
    CHECK_OK(ofl_qp_node_ee_place(&b->node, 80, &ee)); /* a hit still */
    CHECK(ee == &b->ee[2]);
    /* no contexts at all */
    CHECK_ERR(ofl_qp_node_ee_place(&z->node, 5, &ee), OFL_E_QP_EE_CROWDED);
    CHECK(ofl_qp_node_ee(&z->node, 5) == NULL);
    CHECK_EQ(ofl_qp_node_ee_home(&z->node, 5), 0);
    /* arguments */
    CHECK_ERR(ofl_qp_node_ee_place(NULL, 5, &ee), OFL_E_ARG);
    CHECK_ERR(ofl_qp_node_ee_place(&b->node, 5, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_qp_node_ee_key(NULL, KEY1), OFL_E_ARG);
    CHECK_ERR(ofl_qp_node_ee_key(&z->node, NULL), OFL_E_ARG);
    CHECK_EQ(ofl_qp_node_ee_home(NULL, 5), 0);
    CHECK(ofl_qp_node_ee(NULL, 5) == NULL);
    free(b);
    free(z);
}

/* A table larger than the bound: EEs placed by the helper lie in their
 * runs and are all found; placing an address again gives its context
 * (RTS: ofl_ee_init refuses; ERROR: set up again). */
static void test_wide_placed_found(void)
{
    struct bare *b = bare_new(WIDE, KEY1);
    struct ofl_ee *ee, *placed[WIDE / 4];
    uint32_t i, off_home = 0;

    CHECK(b != NULL);
    if (b == NULL)
        return;
    for (i = 0; i < WIDE / 4; i++) { /* a quarter full */
        const uint32_t a = 5000u + i * 7u;

        placed[i] = bare_place(b, a);
        CHECK(placed[i] != NULL);
        if (placed[i] == NULL)
            continue;
        CHECK(run_pos(b, (uint32_t)(placed[i] - b->ee), a) < PROBE);
        off_home += ofl_qp_node_ee_home(&b->node, a) != 0;
    }
    CHECK(off_home > 0); /* homes are spread, not all context 0 */
    for (i = 0; i < WIDE / 4; i++)
        CHECK(ofl_qp_node_ee(&b->node, 5000u + i * 7u) == placed[i]);
    CHECK(ofl_qp_node_ee(&b->node, 4999) == NULL);
    ee = NULL;
    CHECK_OK(ofl_qp_node_ee_place(&b->node, 5007, &ee));
    CHECK(ee == placed[1] && ee != NULL);
    if (ee == NULL) {
        free(b);
        return;
    }
    CHECK_ERR(bare_setup(b, ee, 5007), OFL_E_QP_EE_STATE); /* live */
    ee->state = OFL_EE_ERROR;
    CHECK_OK(ofl_qp_node_ee_place(&b->node, 5007, &ee));
    CHECK(ee == placed[1]);
    CHECK_OK(bare_setup(b, ee, 5007)); /* from ERROR */
    CHECK(ofl_qp_node_ee(&b->node, 5007) == placed[1]);
    free(b);
}

/* A lookup reads at most PROBE contexts, hit or miss, by construction:
 * every context outside address u's run claims u, so a lookup that read
 * any of them would return it; unused contexts inside the run do not end
 * the lookup; a run that wraps past the last context reads from 0 on. */
static void test_wide_bounded(void)
{
    struct bare *b = bare_new(WIDE, KEY1);
    struct ofl_ee *ee;
    uint32_t u = 0xC0FFEEu, w, h, i;

    CHECK(b != NULL);
    if (b == NULL)
        return;
    h = ofl_qp_node_ee_home(&b->node, u);
    CHECK(h < WIDE);
    for (i = 0; i < WIDE; i++)
        if (run_pos(b, i, u) >= PROBE)
            plant(b, i, u);
    CHECK(ofl_qp_node_ee(&b->node, u) == NULL); /* miss: WIDE - PROBE
                                                   contexts unread */
    /* the place helper reads the same run: its first context */
    CHECK_OK(ofl_qp_node_ee_place(&b->node, u, &ee));
    CHECK(ee == &b->ee[h]);
    /* a hit at the run's last context, every other one of it unused */
    plant(b, (h + PROBE - 1u) % WIDE, u);
    CHECK(ofl_qp_node_ee(&b->node, u) == &b->ee[(h + PROBE - 1u) % WIDE]);
    CHECK_OK(ofl_qp_node_ee_place(&b->node, u, &ee));
    CHECK(ee == &b->ee[(h + PROBE - 1u) % WIDE]);
    /* a run that wraps: its home among the last PROBE - 1 contexts */
    memset(b->ee, 0, sizeof(b->ee));
    for (w = 1; w < (1u << 20); w++)
        if (ofl_qp_node_ee_home(&b->node, w) > WIDE - PROBE)
            break;
    h = ofl_qp_node_ee_home(&b->node, w);
    CHECK(h > WIDE - PROBE && h < WIDE);
    plant(b, (h + PROBE) % WIDE, w); /* just past the run */
    CHECK(ofl_qp_node_ee(&b->node, w) == NULL);
    plant(b, (h + PROBE - 1u) % WIDE, w); /* its last, after the wrap */
    CHECK((h + PROBE - 1u) % WIDE < h);
    CHECK(ofl_qp_node_ee(&b->node, w) == &b->ee[(h + PROBE - 1u) % WIDE]);
    free(b);
}

/* A run made full by addresses of one home: the named refusal for one
 * more; hits still answer; an overlapping run places past it. */
static void test_wide_crowded(void)
{
    struct bare *b = bare_new(WIDE, KEY1);
    struct ofl_ee *ee, *at[PROBE];
    uint32_t col[PROBE + 1], next = 0, h, i;

    CHECK(b != NULL);
    if (b == NULL)
        return;
    h = ofl_qp_node_ee_home(&b->node, 1000);
    CHECK_EQ(colliders(b, h, 1000, col, PROBE + 1), PROBE + 1);
    CHECK_EQ(colliders(b, (h + 1u) % WIDE, 1000, &next, 1), 1);
    for (i = 0; i < PROBE; i++) {
        at[i] = bare_place(b, col[i]);
        CHECK(at[i] != NULL);
        if (at[i] != NULL) /* in order of placement from the home */
            CHECK_EQ(run_pos(b, (uint32_t)(at[i] - b->ee), col[i]), i);
    }
    for (i = 0; i < PROBE; i++)
        CHECK(ofl_qp_node_ee(&b->node, col[i]) == at[i]);
    ee = at[0];
    CHECK_ERR(ofl_qp_node_ee_place(&b->node, col[PROBE], &ee),
              OFL_E_QP_EE_CROWDED);
    CHECK(ee == NULL);
    CHECK(ofl_qp_node_ee(&b->node, col[PROBE]) == NULL);
    CHECK_OK(ofl_qp_node_ee_place(&b->node, col[PROBE - 1], &ee));
    CHECK(ee == at[PROBE - 1]);
    /* the run from h + 1 has one unused context left, its last */
    ee = bare_place(b, next);
    CHECK(ee == &b->ee[(h + PROBE) % WIDE]);
    CHECK(ofl_qp_node_ee(&b->node, next) == ee && ee != NULL);
    free(b);
}

/* The key places the homes: addresses that share one home under a key
 * are spread under another and all fit; the home is SipHash-2-4 of the
 * address's 4 big-endian bytes, times ee_cap, high half; no key is the
 * zero key; the key cannot change while a context is in use. */
static void test_wide_key(void)
{
    struct bare *b1 = bare_new(WIDE, KEY1), *b2 = bare_new(WIDE, KEY2),
                *b0 = bare_new(WIDE, NULL), *bz = bare_new(WIDE, ZERO);
    uint32_t col[PROBE + 1], h, i, j, distinct = 0, differ = 0;
    struct ofl_ee *ee;

    CHECK(b1 != NULL && b2 != NULL && b0 != NULL && bz != NULL);
    if (b1 == NULL || b2 == NULL || b0 == NULL || bz == NULL)
        goto out;
    h = ofl_qp_node_ee_home(&b1->node, 1000);
    CHECK_EQ(colliders(b1, h, 1000, col, PROBE + 1), PROBE + 1);
    for (i = 0; i <= PROBE; i++) {
        const uint32_t hi = ofl_qp_node_ee_home(&b2->node, col[i]);

        for (j = 0; j < i; j++)
            if (ofl_qp_node_ee_home(&b2->node, col[j]) == hi)
                break;
        distinct += j == i;
    }
    CHECK(distinct >= PROBE / 2); /* 17 addresses: ~14 homes expected */
    for (i = 0; i <= PROBE; i++) /* one too many for KEY1's run */
        CHECK(bare_place(b2, col[i]) != NULL);
    for (i = 0; i <= PROBE; i++)
        CHECK(ofl_qp_node_ee(&b2->node, col[i]) != NULL);
    /* the home as offload.h defines it */
    for (i = 0; i < 50; i++) {
        const uint32_t a = 0x0A000001u + i * 0x01010101u;
        const uint8_t be[4] = {(uint8_t)(a >> 24), (uint8_t)(a >> 16),
                               (uint8_t)(a >> 8), (uint8_t)a};
        const uint64_t s = ofl_siphash24(KEY1, be, 4);

        CHECK_EQ(ofl_qp_node_ee_home(&b1->node, a),
                 ((uint64_t)(uint32_t)s * WIDE) >> 32);
        CHECK_EQ(ofl_qp_node_ee_home(&b0->node, a),
                 ofl_qp_node_ee_home(&bz->node, a));
        differ += ofl_qp_node_ee_home(&b0->node, a) !=
                  ofl_qp_node_ee_home(&b1->node, a);
    }
    CHECK(differ > 0);
    /* a new key moves every home: refused once a context is in use */
    CHECK_OK(ofl_qp_node_ee_key(&b0->node, KEY2)); /* none in use */
    CHECK_EQ(ofl_qp_node_ee_home(&b0->node, col[3]),
             ofl_qp_node_ee_home(&b2->node, col[3]));
    CHECK_OK(ofl_qp_node_ee_key(&b0->node, KEY1));
    ee = bare_place(b0, col[0]);
    CHECK(ee != NULL);
    CHECK_ERR(ofl_qp_node_ee_key(&b0->node, KEY2), OFL_E_QP_EE_STATE);
    CHECK_EQ(ofl_qp_node_ee_home(&b0->node, col[0]), h); /* kept KEY1 */
    if (ee != NULL) {
        ee->state = OFL_EE_ERROR; /* in use still */
        CHECK_ERR(ofl_qp_node_ee_key(&b0->node, KEY2), OFL_E_QP_EE_STATE);
    }
    CHECK(ofl_qp_node_ee(&b0->node, col[0]) == ee);
out:
    free(b1);
    free(b2);
    free(b0);
    free(bz);
}

/* An EE set up outside its run: not found in a large table (its frames
 * refused with OFL_E_QP_EE_NONE), found in a small one. */
static void test_outside_run(void)
{
    struct bare *b = bare_new(WIDE, KEY1), *s = bare_new(PROBE, KEY1);
    const uint32_t a = 4242;
    uint8_t f[28];
    uint32_t h;

    CHECK(b != NULL && s != NULL);
    if (b == NULL || s == NULL) {
        free(b);
        free(s);
        return;
    }
    ack_frame(f, a);
    h = ofl_qp_node_ee_home(&b->node, a);
    CHECK_ERR(ofl_qp_dgram_input(&b->node, f, sizeof(f), 0),
              OFL_E_QP_EE_NONE);
    CHECK_OK(bare_setup(b, &b->ee[(h + PROBE) % WIDE], a));
    CHECK(ofl_qp_node_ee(&b->node, a) == NULL);
    CHECK_ERR(ofl_qp_dgram_input(&b->node, f, sizeof(f), 0),
              OFL_E_QP_EE_NONE);
    /* the helper gives a context of the run instead */
    CHECK(bare_place(b, a) == &b->ee[h]);
    CHECK(ofl_qp_node_ee(&b->node, a) == &b->ee[h]);
    CHECK_OK(ofl_qp_dgram_input(&b->node, f, sizeof(f), 0));
    /* small: the last context serves as well as any */
    CHECK_ERR(ofl_qp_dgram_input(&s->node, f, sizeof(f), 0),
              OFL_E_QP_EE_NONE);
    CHECK_OK(bare_setup(s, &s->ee[PROBE - 1], a));
    CHECK(ofl_qp_node_ee(&s->node, a) == &s->ee[PROBE - 1]);
    CHECK_OK(ofl_qp_dgram_input(&s->node, f, sizeof(f), 0));
    free(b);
    free(s);
}

/* Two rig nodes moved onto large keyed tables (each its own key), their
 * EEs placed by the helper: an RD Send goes out through the placed
 * context, is delivered and acknowledged; a frame whose source address
 * has no EE is refused. */
struct wide_pair {
    struct ofl_ee ee[2][WIDE];
};

static struct ofl_ee *widen(struct dgr_rig *r, int i, struct ofl_ee *wide,
                            const uint8_t *key)
{
    struct dgr_node *n = &r->n[i];
    const struct ofl_ee_attr a = n->ee[0].attr; /* the rig's setup */
    struct ofl_ee *ee;

    if (ofl_qp_node_init(&n->node, DGR_ADDR0 + (uint32_t)i, n->slots,
                         DGR_QPN_CAP, wide, WIDE) != OFL_OK ||
        ofl_qp_node_ee_key(&n->node, key) != OFL_OK ||
        ofl_qp_node_ee_place(&n->node, a.remote_addr, &ee) != OFL_OK ||
        ofl_ee_init(ee, &a) != OFL_OK)
        return NULL;
    n->ee[0].state = OFL_EE_UNUSED; /* out of the node: not ticked */
    return ee;
}

static void test_wide_rig(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct wide_pair *w = calloc(1, sizeof(*w));
    struct ofl_ee *e0, *e1;
    struct ofl_cqe c[4];
    uint8_t *src;

    CHECK(r != NULL && w != NULL);
    if (r == NULL || w == NULL)
        goto out;
    e0 = widen(r, 0, w->ee[0], KEY1);
    e1 = widen(r, 1, w->ee[1], KEY2);
    CHECK(e0 != NULL && e1 != NULL);
    if (e0 == NULL || e1 == NULL)
        goto out;
    CHECK(e0 == &w->ee[0][ofl_qp_node_ee_home(&r->n[0].node,
                                              DGR_ADDR0 + 1u)]);
    CHECK(e1 == &w->ee[1][ofl_qp_node_ee_home(&r->n[1].node, DGR_ADDR0)]);
    CHECK_EQ(dgr_rd_pair(r), 0);
    src = dgr_alloc(&r->n[0], 64);
    memcpy(src, "wide", 4);
    dgr_post_recvs(r, 1, 0, 2);
    CHECK_OK(dgr_send(r, 0, 0, 5, src, 4, 0, (uint32_t)(e0 - w->ee[0]), 2,
                      SIG));
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 4);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1); /* acknowledged */
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].wr_id, 5);
    CHECK_EQ(e1->stats.rx_frames, 1);
    CHECK_EQ(e0->stats.acks_rx, 1);
    CHECK_EQ(ofl_ee_outstanding(e0), 0);
    /* the same Send from an address node 1 has no EE for */
    CHECK_OK(dgr_send(r, 0, 0, 6, src, 4, 0, (uint32_t)(e0 - w->ee[0]), 2,
                      SIG));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    if (r->wire.n == 1) {
        struct dgr_frame *f = &r->wire.f[r->wire.head];

        f->data[11] ^= 0x40; /* source address */
        CHECK_ERR(ofl_qp_dgram_input(&r->n[1].node, f->data, f->len, 0),
                  OFL_E_QP_EE_NONE);
        f->data[11] ^= 0x40;
        CHECK_OK(ofl_qp_dgram_input(&r->n[1].node, f->data, f->len, 0));
    }
out:
    dgr_free(r);
    free(w);
}

OFL_SUITE(qp_rd_ee)
{
    test_small_table();
    test_wide_placed_found();
    test_wide_bounded();
    test_wide_crowded();
    test_wide_key();
    test_outside_run();
    test_wide_rig();
}
