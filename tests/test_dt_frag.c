/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt: the fragmentation choice (offload.h, enum ofl_dt_frag; seed 003
 * after FIG. 14). An application that gave a large contiguous buffer
 * receives the stream in it at consecutive offsets, whatever the choice;
 * without one, FRAG_KEEP (the default) gives each bulk buffer one
 * placement, FRAG_ALLOW keeps a bulk buffer with room for the connection's
 * next placements, so received data takes fewer buffers. The setting's
 * checks (configuration, the FRAGMENT attribute) are tripped and passed.
 */
#include "test.h"
#include "support/dt_rig.h"

#define NR 32
static struct ofl_dt_desc fr[NR];
static uint8_t fdata[4096];

static void rig_done(struct dt_rig *r)
{
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
    dt_rig_free(r);
}

static struct dt_rig *frag_rig(uint8_t frag)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.conn.frag = frag;
    return dt_rig_new(&c, 0);
}

/* len bytes of the pattern starting at stream position pos. */
static void rxn(struct dt_rig *r, uint64_t id, uint32_t pos, uint32_t len,
                uint64_t now)
{
    uint32_t i;

    for (i = 0; i < len; i++)
        fdata[i] = (uint8_t)(pos + i);
    CHECK_OK(ofl_dt_rx(&r->dt, id, fdata, len, now));
}

static bool holds(const uint8_t *p, uint32_t pos, uint32_t len)
{
    uint32_t i;

    for (i = 0; i < len; i++)
        if (p[i] != (uint8_t)(pos + i))
            return false;
    return true;
}

static bool is_final(const struct ofl_dt_desc *d)
{
    return (d->flags & OFL_DT_F_FINAL) != 0;
}

/* The setting: default, configuration check, attribute range. */
static void test_frag_setting(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint8_t t[64], *buf;
    size_t off = 0;
    uint64_t id;

    ofl_dt_config_default(&c);
    CHECK_EQ(c.conn.frag, OFL_DT_FRAG_KEEP);
    CHECK_OK(ofl_dt_config_check(&c, 64));
    c.conn.frag = OFL_DT_FRAG_ALLOW;
    CHECK_OK(ofl_dt_config_check(&c, 64));
    c.conn.frag = OFL_DT_FRAG_ALLOW + 1;
    CHECK_ERR(ofl_dt_config_check(&c, 64), OFL_E_ARG);
    c.conn.frag = 0xFF;
    CHECK_ERR(ofl_dt_config_check(&c, 64), OFL_E_ARG);
    CHECK_EQ(ofl_dt_attr_size(OFL_DT_ATTR_FRAGMENT), 4);

    r = dt_rig_new(NULL, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].cfg.frag, OFL_DT_FRAG_KEEP);
    /* Set ALLOW: the old value (KEEP) comes back in its place. */
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_FRAGMENT, OFL_DT_FRAG_ALLOW);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 1,
                         &buf));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, fr, NR), 1);
    CHECK(fr[0].tag == 1 && fr[0].status == OFL_DT_ST_OK);
    CHECK_EQ(r->conn[(uint32_t)id - 1].cfg.frag, OFL_DT_FRAG_ALLOW);
    CHECK_EQ(ofl_load_be32(buf + OFL_DT_TUPLE_HDR), OFL_DT_FRAG_KEEP);
    /* Out of range: refused, the setting stays. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_FRAGMENT, OFL_DT_FRAG_ALLOW + 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 2,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_FRAGMENT, 0xFFFFFFFFu);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 3,
                         NULL));
    /* Get: the value. */
    off = 0;
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_FRAGMENT, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 4,
                         &buf));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, fr, NR), 3);
    CHECK(fr[0].tag == 2 && fr[0].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(fr[1].tag == 3 && fr[1].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(fr[2].tag == 4 && fr[2].status == OFL_DT_ST_OK);
    CHECK_EQ(ofl_load_be32(buf + OFL_DT_TUPLE_HDR), OFL_DT_FRAG_ALLOW);
    CHECK_EQ(r->conn[(uint32_t)id - 1].cfg.frag, OFL_DT_FRAG_ALLOW);
    rig_done(r);
}

/* A large application buffer (two own buffers at consecutive addresses):
 * 1500-byte portions land at consecutive offsets, the one split at the
 * first buffer's end continues at the second's start, in either mode; a
 * bulk buffer waiting meanwhile is not touched. */
static void test_frag_own_contiguous(void)
{
    uint8_t mode;

    for (mode = OFL_DT_FRAG_KEEP; mode <= OFL_DT_FRAG_ALLOW; mode++) {
        struct dt_rig *r = frag_rig(mode);
        uint8_t *app, *bulk;
        uint64_t id;

        CHECK(r != NULL);
        id = dt_rig_connect(r, 1, 0);
        app = dt_rig_alloc(r, 8000);
        bulk = dt_rig_alloc(r, 4000);
        CHECK_OK(dt_rig_avail(r, 0, bulk, 4000, 0, 0, 9));
        CHECK_OK(dt_rig_avail(r, id, app, 4000, 0, 0, 1));
        CHECK_OK(dt_rig_avail(r, id, app + 4000, 4000, 0, 0, 2));
        rxn(r, id, 0, 1500, 1);
        CHECK_OK(dt_rig_poll(r, 1));
        rxn(r, id, 1500, 1500, 2);
        CHECK_OK(dt_rig_poll(r, 2));
        rxn(r, id, 3000, 1500, 3);
        CHECK_OK(dt_rig_poll(r, 3));
        CHECK_EQ(dt_rig_take(r, fr, NR), 4);
        CHECK(fr[0].tag == 1 && fr[0].aux == 0 && fr[0].len == 1500 &&
              !is_final(&fr[0]));
        CHECK(fr[1].tag == 1 && fr[1].aux == 1500 && fr[1].len == 1500 &&
              !is_final(&fr[1]));
        CHECK(fr[2].tag == 1 && fr[2].aux == 3000 && fr[2].len == 1000 &&
              is_final(&fr[2]));
        CHECK(fr[3].tag == 2 && fr[3].aux == 0 && fr[3].len == 500 &&
              !is_final(&fr[3]) && fr[3].base == dt_rig_pa(app + 4000));
        CHECK(holds(app, 0, 4500)); /* virtually contiguous */
        CHECK_EQ(r->dt.stats.bulk_placed, 0);
        CHECK_EQ(r->dt.stats.bulk_kept, 0);
        rig_done(r);
    }
}

/* No application buffer, FRAG_KEEP: each portion takes a bulk buffer of
 * its own and the buffer goes back at once. */
static void test_frag_keep_bulk(void)
{
    struct dt_rig *r = frag_rig(OFL_DT_FRAG_KEEP);
    uint8_t *b1, *b2, *b3;
    uint64_t id;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b1 = dt_rig_alloc(r, 2000);
    b2 = dt_rig_alloc(r, 2000);
    b3 = dt_rig_alloc(r, 2000);
    CHECK_OK(dt_rig_avail(r, 0, b1, 2000, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, 0, b2, 2000, 0, 0, 2));
    CHECK_OK(dt_rig_avail(r, 0, b3, 2000, 0, 0, 3));
    rxn(r, id, 0, 500, 1);
    CHECK_OK(dt_rig_poll(r, 1));
    rxn(r, id, 500, 500, 2);
    CHECK_OK(dt_rig_poll(r, 2));
    rxn(r, id, 1000, 500, 3);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, fr, NR), 3);
    CHECK(fr[0].len == 500 && fr[0].aux == 0 && is_final(&fr[0]));
    CHECK(fr[1].len == 500 && fr[1].aux == 0 && is_final(&fr[1]));
    CHECK(fr[2].len == 500 && fr[2].aux == 0 && is_final(&fr[2]));
    CHECK(fr[0].tag != fr[1].tag && fr[1].tag != fr[2].tag &&
          fr[0].tag != fr[2].tag); /* three buffers for 1500 bytes */
    CHECK(fr[0].conn == id && fr[1].conn == id && fr[2].conn == id);
    CHECK_EQ(r->dt.stats.bulk_placed, 3);
    CHECK_EQ(r->dt.stats.bulk_kept, 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].buf_head, 0);
    rig_done(r);
}

static uint8_t *buf_of(uint64_t pa, uint8_t *a, uint8_t *b)
{
    return pa == dt_rig_pa(a) ? a : b;
}

/* No application buffer, FRAG_ALLOW: the portions fill one bulk buffer
 * (partial responses at consecutive offsets), FINAL when full; the rest
 * starts the next, which is kept in turn. A later own buffer follows the
 * kept one. */
static void test_frag_allow_bulk(void)
{
    struct dt_rig *r = frag_rig(OFL_DT_FRAG_ALLOW);
    uint8_t *b1, *b2, *own, *first, *second;
    uint64_t id;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b1 = dt_rig_alloc(r, 2000);
    b2 = dt_rig_alloc(r, 2000);
    own = dt_rig_alloc(r, 1000);
    CHECK_OK(dt_rig_avail(r, 0, b1, 2000, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, 0, b2, 2000, 0, 0, 2));
    rxn(r, id, 0, 500, 1);
    CHECK_OK(dt_rig_poll(r, 1));
    rxn(r, id, 500, 500, 2);
    CHECK_OK(dt_rig_poll(r, 2));
    rxn(r, id, 1000, 500, 3);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, fr, NR), 3);
    CHECK(fr[0].len == 500 && fr[0].aux == 0 && !is_final(&fr[0]));
    CHECK(fr[1].len == 500 && fr[1].aux == 500 && !is_final(&fr[1]));
    CHECK(fr[2].len == 500 && fr[2].aux == 1000 && !is_final(&fr[2]));
    CHECK(fr[0].tag == fr[1].tag && fr[1].tag == fr[2].tag &&
          fr[0].base == fr[2].base); /* one buffer for 1500 bytes */
    CHECK(fr[0].conn == id);
    first = buf_of(fr[0].base, b1, b2);
    second = first == b1 ? b2 : b1;
    CHECK(holds(first, 0, 1500));
    CHECK_EQ(r->dt.stats.bulk_placed, 1);
    CHECK_EQ(r->dt.stats.bulk_kept, 1);
    /* The host posts an own buffer now: it follows the kept one. */
    CHECK_OK(dt_rig_avail(r, id, own, 1000, 0, 0, 3));
    rxn(r, id, 1500, 1000, 4); /* 500 end the kept buffer, 500 in own */
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, fr, NR), 2);
    CHECK(fr[0].base == dt_rig_pa(first) && fr[0].aux == 1500 &&
          fr[0].len == 500 && is_final(&fr[0]));
    CHECK(fr[1].tag == 3 && fr[1].aux == 0 && fr[1].len == 500 &&
          !is_final(&fr[1]));
    CHECK(holds(first, 0, 2000) && holds(own, 2000, 500));
    /* Own buffer full, no own left: the other bulk buffer is kept. */
    rxn(r, id, 2500, 700, 5);
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, fr, NR), 2);
    CHECK(fr[0].tag == 3 && fr[0].aux == 500 && fr[0].len == 500 &&
          is_final(&fr[0]));
    CHECK(fr[1].base == dt_rig_pa(second) && fr[1].aux == 0 &&
          fr[1].len == 200 && !is_final(&fr[1]));
    CHECK(holds(second, 3000, 200));
    CHECK_EQ(r->dt.stats.bulk_placed, 2);
    CHECK_EQ(r->dt.stats.bulk_kept, 2);
    CHECK_EQ(r->dt.bulk_head, 0);
    rig_done(r);
}

/* A portion that fills the bulk buffer exactly is FINAL: nothing kept. */
static void test_frag_allow_exact(void)
{
    struct dt_rig *r = frag_rig(OFL_DT_FRAG_ALLOW);
    uint8_t *b1;
    uint64_t id;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b1 = dt_rig_alloc(r, 600);
    CHECK_OK(dt_rig_avail(r, 0, b1, 600, 0, 0, 1));
    rxn(r, id, 0, 600, 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, fr, NR), 1);
    CHECK(fr[0].tag == 1 && fr[0].len == 600 && is_final(&fr[0]));
    CHECK_EQ(r->dt.stats.bulk_kept, 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].buf_head, 0);
    rig_done(r);
}

/* A kept buffer goes back with its connection's close: FLUSHED, FINAL,
 * the bytes it holds, naming the connection. */
static void test_frag_allow_close(void)
{
    struct dt_rig *r = frag_rig(OFL_DT_FRAG_ALLOW);
    uint8_t *b1;
    uint64_t id;
    uint32_t n, i, flushed = 0, term = 0;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b1 = dt_rig_alloc(r, 2000);
    CHECK_OK(dt_rig_avail(r, 0, b1, 2000, 0, 0, 1));
    rxn(r, id, 0, 300, 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, fr, NR), 1);
    CHECK(fr[0].tag == 1 && fr[0].len == 300 && !is_final(&fr[0]));
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 2));
    CHECK_OK(dt_rig_poll(r, 2));
    n = dt_rig_take(r, fr, NR);
    for (i = 0; i < n; i++) {
        if (fr[i].type == OFL_DT_RSP_BUF_RECV && fr[i].tag == 1) {
            flushed++;
            CHECK(fr[i].status == OFL_DT_ST_FLUSHED && is_final(&fr[i]) &&
                  fr[i].aux == 300 && fr[i].conn == id &&
                  fr[i].base == dt_rig_pa(b1));
        }
        if (fr[i].type == OFL_DT_RSP_TERMINATE)
            term++;
    }
    CHECK_EQ(flushed, 1);
    CHECK_EQ(term, 1);
    CHECK_EQ(r->dt.rbuf_free != 0, 1);
    rig_done(r);
}

OFL_SUITE(dt_frag)
{
    test_frag_setting();
    test_frag_own_contiguous();
    test_frag_keep_bulk();
    test_frag_allow_bulk();
    test_frag_allow_exact();
    test_frag_allow_close();
}
