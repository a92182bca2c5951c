/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt: edges found by a review pass - the attribute write-back and the send
 * cache, a listener the firmware runs when it closes, the DATA trigger's
 * life, the arrival notice's listener, a failed input hand-back, the list
 * order after a cancellation, and a request's status field.
 */
#include "test.h"
#include "support/dt_rig.h"

#define NR 64
static struct ofl_dt_desc zr[NR];

static struct dt_rig *rig_cn(uint32_t criteria, uint32_t count,
                             uint64_t max_delay)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.cn_criteria = criteria;
    c.cn_count = count;
    c.cn_max_delay = max_delay;
    return dt_rig_new(&c, 0);
}

/* Sends wait in the list for 100 time units (FIG. 16 time criterion). */
static struct dt_rig *rig_bt_time(void)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_TIME;
    c.bt_time = 100;
    return dt_rig_new(&c, 0);
}

static uint32_t drain_tx(struct dt_rig *r, uint64_t id, uint8_t *out,
                         uint32_t cap)
{
    const uint8_t *p;
    uint32_t n, total = 0;

    while (ofl_dt_tx_peek(&r->dt, id, &p, &n) == OFL_OK && n != 0 &&
           total + n <= cap) {
        memcpy(out + total, p, n);
        total += n;
        CHECK_OK(ofl_dt_tx_consume(&r->dt, id, n, 0));
    }
    return total;
}

static uint8_t state_of(struct dt_rig *r, uint64_t id)
{
    struct ofl_dt_conn_info info;

    if (ofl_dt_conn_query(&r->dt, id, &info) != OFL_OK)
        return 0xFF;
    return info.state;
}

/* The adapter writes old attribute values back into the control buffer:
 * a cached copy of that buffer must not be sent again. */
static void test_attr_writeback_cache(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    uint64_t id;
    uint8_t *b, out[64];
    size_t off = 0;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    CHECK(id != 0);
    b = dt_rig_alloc(r, 16);
    dt_tup_u32(b, &off, true, OFL_DT_ATTR_PRIORITY, 5); /* 10 bytes */
    CHECK_OK(dt_rig_send(r, id, b, 10, OFL_DT_F_MODIFY, 0));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(drain_tx(r, id, out, sizeof(out)), 10);
    CHECK_EQ(ofl_load_be32(out + 6), 5);
    /* Sent again unchanged: the cache serves it (the passing case). */
    CHECK_OK(dt_rig_send(r, id, b, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(r->dt.stats.dma_skipped, 1);
    CHECK_EQ(drain_tx(r, id, out, sizeof(out)), 10);
    /* The same bytes as a connection attribute control: the adapter
     * writes the old priority (0) into b. */
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CONN_ATTR;
    d.base = dt_rig_pa(b);
    d.len = 10;
    d.number = 1;
    d.conn = id;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(zr[0].status, OFL_DT_ST_OK);
    CHECK_EQ(ofl_load_be32(b + 6), 0);
    /* Sent again: the bytes the adapter wrote go out. */
    CHECK_OK(dt_rig_send(r, id, b, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(drain_tx(r, id, out, sizeof(out)), 10);
    CHECK_EQ(ofl_load_be32(out + 6), 0);
    CHECK_EQ(r->dt.stats.dma_skipped, 1);
    dt_rig_free(r);
}

/* A listener whose LISTEN the firmware took is told to stop (CLOSE) once
 * it drained, and holds its port until the firmware says it stopped. */
static void test_listener_close_tells_firmware(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    uint64_t lid, l2, id, nid;
    uint32_t cursor = 0;
    uint8_t act, addr[16] = {0};

    CHECK(r != NULL);
    lid = dt_rig_listen(r, 80, 0); /* the firmware took it, said OK */
    CHECK(lid != 0);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act),
              OFL_E_DT_EMPTY);
    cursor = 0;
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = lid;
    d.tag = 7;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK(zr[0].type == OFL_DT_RSP_TERMINATE && zr[0].tag == 7 &&
          zr[0].status == OFL_DT_ST_OK);
    CHECK_EQ(state_of(r, lid), OFL_DT_CONN_UNLISTEN);
    /* Meanwhile: no arrival, no second listen on the port, no request. */
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, lid, addr, 9, 2, &nid),
              OFL_E_DT_CONN_STATE);
    {
        uint8_t t[16];
        size_t off = 0;

        dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 10,
                             NULL));
    }
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK(zr[0].type == OFL_DT_RSP_LISTEN &&
          zr[0].status == OFL_DT_ST_CONN_STATE && zr[0].conn == 0);
    d.tag = 8;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK(zr[0].tag == 8 && zr[0].status == OFL_DT_ST_CONN_STATE);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CONN_ATTR;
    d.conn = lid;
    d.number = 1;
    {
        uint8_t *t = dt_rig_alloc(r, 16);
        size_t off = 0;

        dt_tup_u32(t, &off, false, OFL_DT_ATTR_PRIORITY, 0);
        d.base = dt_rig_pa(t);
        d.len = (uint32_t)off;
    }
    d.tag = 9;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK(zr[0].tag == 9 && zr[0].status == OFL_DT_ST_CONN_STATE);
    /* The firmware is told, stops, and frees the entry. */
    cursor = 0;
    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(id == lid && act == OFL_DT_ACT_CLOSE);
    CHECK_EQ(r->dt.conn_live, 1);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, lid, 3));
    CHECK_EQ(r->dt.conn_live, 0);
    CHECK_EQ(state_of(r, lid), 0xFF); /* the id is stale */
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, lid, 3), OFL_E_DT_CONN_UNKNOWN);
    l2 = dt_rig_listen(r, 80, 4);
    CHECK(l2 != 0 && l2 != lid);

    /* A terminated listener the firmware runs waits for it too. */
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = l2;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(state_of(r, l2), OFL_DT_CONN_UNLISTEN);
    cursor = 0;
    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(id == l2 && act == OFL_DT_ACT_CLOSE);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l2, 5));
    CHECK_EQ(r->dt.conn_live, 0);

    /* A cancelled listener the firmware runs: the same. */
    lid = dt_rig_listen(r, 81, 6);
    cursor = 0;
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act),
              OFL_E_DT_EMPTY);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CANCEL;
    d.conn = lid;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 7));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK(zr[0].type == OFL_DT_RSP_CANCEL && zr[0].status == OFL_DT_ST_OK);
    CHECK_EQ(state_of(r, lid), OFL_DT_CONN_UNLISTEN);
    cursor = 0;
    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(id == lid && act == OFL_DT_ACT_CLOSE);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, lid, 8));
    CHECK_EQ(r->dt.conn_live, 0);
    dt_rig_free(r);
}

/* The DATA event is used up when no notice waits any more, however the
 * notice left: a later notice waits for its own criterion. */
static void test_cn_trigger_used_up(void)
{
    struct dt_rig *r = rig_cn(OFL_DT_CN_DATA | OFL_DT_CN_COUNT, 100, 0);
    uint8_t t[128];
    size_t off = 0;
    uint64_t ids[2] = {0, 0}, id;
    uint32_t cursor = 0, k = 0;
    uint8_t act;

    CHECK(r != NULL);
    dt_tup_remote(t, &off, 1, 1001);
    dt_tup_remote(t, &off, 2, 1002);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 0,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 0));
    while (k < 2 && ofl_dt_next_action(&r->dt, &cursor, &id, &act) == OFL_OK)
        ids[k++] = id;
    CHECK_EQ(k, 2);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"x", 1, 1));
    /* The peer closes before any service pass: the notice is forced out. */
    CHECK_OK(ofl_dt_conn_closed(&r->dt, ids[0], 1));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2); /* completion, termination */
    CHECK_EQ(r->dt.cn_pending, 0);
    CHECK_EQ(r->dt.cn_trigger, 0);
    /* The second connects, no data, count 1 < 100: it waits... */
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[1], 1000));
    CHECK_OK(dt_rig_poll(r, 1001));
    CHECK_EQ(dt_rig_take(r, zr, NR), 0);
    /* ...until its own data arrives. */
    CHECK_OK(ofl_dt_rx(&r->dt, ids[1], (const uint8_t *)"y", 1, 1002));
    CHECK_OK(dt_rig_poll(r, 1003));
    CHECK(dt_rig_take(r, zr, NR) >= 1);
    CHECK(zr[0].type == OFL_DT_RSP_CONN_COMPLETE && zr[0].conn == ids[1]);
    dt_rig_free(r);
}

/* The arrival notice names the listener, whatever GROUP became. */
static void test_arrival_names_listener(void)
{
    struct dt_rig *r = rig_cn(OFL_DT_CN_COUNT, 100, 10);
    uint64_t lid, nid, nid2;
    uint8_t ra[16] = {0}, t[32];
    size_t off = 0;

    CHECK(r != NULL);
    lid = dt_rig_listen(r, 80, 0);
    CHECK(lid != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, lid, ra, 9, 1, &nid));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, lid, ra, 10, 1, &nid2));
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, nid, t, (uint32_t)off, 1, 0,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1); /* the attribute response */
    CHECK_OK(dt_rig_poll(r, 20));        /* cn_max_delay: the notices */
    CHECK_EQ(dt_rig_take(r, zr, NR), 2);
    CHECK_EQ(r->host.bad, 0);
    CHECK(zr[0].type == OFL_DT_RSP_CONN_ARRIVAL && zr[0].base == lid);
    CHECK(zr[1].type == OFL_DT_RSP_CONN_ARRIVAL && zr[1].base == lid);
    dt_rig_free(r);
}

/* A failed hand-back of the consumed input run is retried before anything
 * new is read; no request is carried out twice. */
static void test_hand_back_failure(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 2);
    uint8_t *b1, *b2;
    uint32_t n, refs = 0, ref, guard;

    CHECK(r != NULL);
    b1 = dt_rig_alloc(r, 64);
    b2 = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, 0, b1, 64, 0, 0, 0x111)); /* slot 0 */
    r->sim.fail_dma_countdown = 2; /* the read passes, the hand-back fails */
    CHECK_ERR(ofl_dt_process(&r->dt, 0, 1, &n), OFL_E_PORT_DMA);
    CHECK_EQ(n, 1);
    CHECK_EQ(r->dt.in_head, 1);
    CHECK_EQ(r->dt.in_unreturned, 1);
    CHECK(r->in_table[0] & OFL_DT_OWNER); /* still the adapter's */
    /* The retry fails too (its read): nothing new is read. */
    CHECK_OK(dt_rig_avail(r, 0, b2, 64, 0, 0, 0x222)); /* slot 1 */
    r->sim.fail_dma_countdown = 1;
    CHECK_ERR(ofl_dt_process(&r->dt, 0, 1, &n), OFL_E_PORT_DMA);
    CHECK_EQ(n, 0);
    CHECK_EQ(r->dt.in_head, 1);
    CHECK_EQ(r->dt.in_unreturned, 1);
    /* ...and its write. */
    r->sim.fail_dma_countdown = 2;
    CHECK_ERR(ofl_dt_process(&r->dt, 0, 1, &n), OFL_E_PORT_DMA);
    CHECK_EQ(r->dt.in_unreturned, 1);
    CHECK(r->in_table[0] & OFL_DT_OWNER);
    /* Then it passes: slot 0 handed back, slot 1 read. */
    CHECK_OK(ofl_dt_process(&r->dt, 0, 1, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(r->dt.in_unreturned, 0);
    CHECK_EQ(r->in_table[0] & OFL_DT_OWNER, 0);
    CHECK_EQ(r->in_table[32] & OFL_DT_OWNER, 0);
    CHECK_OK(ofl_dt_process(&r->dt, 0, 4, &n));
    CHECK_EQ(n, 0); /* nothing left: slot 0 is not read again */
    for (ref = r->dt.bulk_head, guard = 0; ref != 0 && guard < 10;
         ref = r->rbuf[ref - 1].next, guard++)
        refs += r->rbuf[ref - 1].tag == 0x111;
    CHECK_EQ(refs, 1);
    CHECK_EQ(r->sim.violations, 0);
    dt_rig_free(r);
}

/* After a cancellation drops a connection's oldest listed send, the list
 * orders that connection by the oldest one left. */
static void test_cancel_reorders(void)
{
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t x, y;
    uint8_t *b;

    r = rig_bt_time();
    CHECK(r != NULL);
    x = dt_rig_connect(r, 1, 0);
    y = dt_rig_connect(r, 2, 0);
    b = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_send(r, x, b, 8, 0, 9));       /* x1, cancelled */
    CHECK_OK(dt_rig_send(r, y, b + 16, 8, 0, 10)); /* y1: oldest left */
    CHECK_OK(dt_rig_send(r, x, b + 32, 8, 0, 11)); /* x2 */
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, zr, NR), 0);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CANCEL;
    d.aux = 9;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2); /* x1 CANCELLED, the cancel */
    CHECK_OK(dt_rig_poll(r, 200));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2);
    CHECK_EQ(zr[0].tag, 10);
    CHECK_EQ(zr[1].tag, 11);
    dt_rig_free(r);
}

/* A cancelled ASAP send no longer forces the list out. */
static void test_cancel_asap(void)
{
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t x;
    uint8_t *b;

    r = rig_bt_time();
    CHECK(r != NULL);
    x = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_send(r, x, b, 8, 0, 20));
    CHECK_OK(dt_rig_send(r, x, b + 32, 8, OFL_DT_F_ASAP, 21));
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CANCEL;
    d.aux = 21;
    CHECK_OK(dt_rig_post(r, &d));
    /* The cancellation runs in the same pass, before the list is due. */
    CHECK_OK(ofl_dt_process(&r->dt, 1, 8, NULL));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(r->dt.bt_asap, 0);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2); /* 21 CANCELLED, the cancel */
    CHECK_EQ(r->dt.xfer_count, 1);       /* 20 waits for its time */
    CHECK_OK(dt_rig_poll(r, 200));
    CHECK_EQ(dt_rig_take(r, zr, NR), 1);
    CHECK_EQ(zr[0].tag, 20);
    dt_rig_free(r);
}

/* A request's status is a field its type leaves unused: RESERVED. */
static void test_request_status(void)
{
    struct ofl_dt_desc d;
    uint8_t raw[32];

    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = 1;
    CHECK_OK(ofl_dt_desc_encode(&d, raw, sizeof(raw)));
    CHECK_OK(ofl_dt_desc_decode(raw, sizeof(raw), &d));
    raw[2] = OFL_DT_ST_FAILED;
    CHECK_ERR(ofl_dt_desc_decode(raw, sizeof(raw), &d), OFL_E_DT_RESERVED);
}

/* A buffer send stored as bytes in the next input slot, owner bit set,
 * without any check (a host that skips the encoder); b0 is or-ed into
 * byte 0. */
static void post_raw_send(struct dt_rig *r, const struct ofl_dt_desc *d,
                          uint8_t b0)
{
    uint8_t *b = r->in_table +
                 (r->host.in_tail & (r->host.in_slots - 1)) * OFL_DT_DESC_SIZE;

    dt_raw_store(d, b, (uint8_t)(OFL_DT_OWNER | b0));
    r->host.in_tail++;
}

/*
 * The input loop lists a well-formed buffer send straight from its bytes
 * (dt_send_fast) and hands everything else to the decoder and
 * dt_req_send: a send that fails any one of the fast path's conditions
 * gets the answer the full checks give, in order, and one that passes
 * them all is listed and answered as before.
 */
static void test_send_fast_conditions(void)
{
    struct dt_rig *r = rig_bt_time();
    struct ofl_dt_desc d, base;
    uint8_t *b, *big;
    uint64_t id, closing;
    uint32_t i, n, tag;
    static const uint8_t want[] = {
        OFL_DT_ST_BAD_DESC,  /* 1: a reserved bit of byte 0 */
        OFL_DT_ST_BAD_DESC,  /* 2: a flag a send does not allow */
        OFL_DT_ST_BAD_DESC,  /* 3: a status */
        OFL_DT_ST_BAD_DESC,  /* 4: a number */
        OFL_DT_ST_BAD_DESC,  /* 5: aux */
        OFL_DT_ST_BAD_DESC,  /* 6: no length */
        OFL_DT_ST_BAD_DESC,  /* 7: a range that wraps */
        OFL_DT_ST_BAD_DESC,  /* 8: no connection */
        OFL_DT_ST_BAD_RANGE, /* 9: outside the host range */
        OFL_DT_ST_TOO_LARGE, /* 10: larger than a transmit ring */
        OFL_DT_ST_BAD_CONN,  /* 11: a stale generation */
        OFL_DT_ST_BAD_CONN,  /* 12: an index beyond the table */
        OFL_DT_ST_CONN_STATE /* 13: a closing connection */
    };

    CHECK(r != NULL);
    if (r == NULL)
        return;
    id = dt_rig_connect(r, 1, 0);
    closing = dt_rig_connect(r, 2, 0);
    CHECK(id != 0 && closing != 0);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = closing;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 0));
    (void)dt_rig_take(r, zr, NR);
    b = dt_rig_alloc(r, 64);
    big = dt_rig_alloc(r, DT_RIG_TX + 1);
    memset(b, 0x3C, 64);
    memset(&base, 0, sizeof(base));
    base.type = OFL_DT_REQ_BUF_SEND;
    base.base = dt_rig_pa(b);
    base.len = 64;
    base.conn = id;
    for (tag = 1; tag <= 13; tag++) {
        d = base;
        d.tag = tag;
        switch (tag) {
        case 2: d.flags = OFL_DT_F_PEEK | OFL_DT_F_FINAL; break;
        case 3: d.status = OFL_DT_ST_OK + 1; break;
        case 4: d.number = 1; break;
        case 5: d.aux = 1; break;
        case 6: d.len = 0; break;
        case 7: d.base = ~0ull - 15; d.len = 32; break;
        case 8: d.conn = 0; break;
        case 9: d.base = dt_rig_pa(r->ctrl); break;
        case 10: d.base = dt_rig_pa(big); d.len = DT_RIG_TX + 1; break;
        case 11: d.conn = id + (1ull << 32); break;
        case 12: d.conn = DT_RIG_CONNS + 1; break;
        case 13: d.conn = closing; break;
        default: break;
        }
        post_raw_send(r, &d, tag == 1 ? 0x01 : 0);
    }
    /* The same send, whole: listed (it waits for the time criterion). */
    d = base;
    d.tag = 14;
    d.flags = OFL_DT_F_MODIFY;
    post_raw_send(r, &d, 0);
    CHECK_OK(dt_rig_poll(r, 1));
    n = dt_rig_take(r, zr, NR);
    CHECK_EQ(n, 13);
    for (i = 0; i < n && i < 13; i++)
        CHECK(zr[i].type == OFL_DT_RSP_BUF_AVAIL && zr[i].tag == i + 1 &&
              zr[i].status == want[i]);
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(r->dt.stats.bad_requests, 13);
    /* A full list: the next send waits in its slot (31 more fill it). */
    for (tag = 15; tag < 15 + DT_RIG_XFERS; tag++) {
        d = base;
        d.tag = tag;
        post_raw_send(r, &d, 0);
    }
    CHECK_OK(ofl_dt_process(&r->dt, 2, 64, &n));
    CHECK_EQ(n, DT_RIG_XFERS - 1);
    CHECK_EQ(r->dt.xfer_count, DT_RIG_XFERS);
    CHECK_EQ(dt_rig_take(r, zr, NR), 0);
    /* Time passes: the list runs; the waiting send is listed by the next
     * call and runs when its own time has passed. */
    CHECK_OK(dt_rig_poll(r, 101));
    CHECK_EQ(r->dt.xfer_count, 0);
    CHECK_OK(dt_rig_poll(r, 102));
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_OK(dt_rig_poll(r, 202));
    n = dt_rig_take(r, zr, NR);
    CHECK_EQ(n, DT_RIG_XFERS + 1);
    for (i = 0; i < n; i++)
        CHECK(zr[i].tag == 14 + i && zr[i].status == OFL_DT_ST_OK &&
              zr[i].len == 64 && zr[i].conn == id);
    CHECK_EQ(r->dt.stats.bad_requests, 13);
    CHECK_EQ(r->sim.violations, 0);
    dt_rig_free(r);
}

/*
 * Sends from two buffers in turn, in one run of the list: each finds its
 * own cached copy (the bulk run tries the slot the previous send used
 * first, then the others), and the copies' ages, which pick the slot a
 * new copy replaces, are as the sends used them.
 */
static void test_send_cache_alternating(void)
{
    struct dt_rig *r = rig_bt_time();
    uint8_t *b1, *b2, *b3, out[8 * 48];
    uint64_t id;
    uint32_t i, n;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    id = dt_rig_connect(r, 1, 0);
    b1 = dt_rig_alloc(r, 64); /* 48 sent: never adjacent, never merged */
    b2 = dt_rig_alloc(r, 64);
    b3 = dt_rig_alloc(r, 64);
    memset(b1, 0x11, 48);
    memset(b2, 0x22, 48);
    memset(b3, 0x33, 48);
    /* First run: both read from the host, a copy each kept. */
    CHECK_OK(dt_rig_send(r, id, b1, 48, 0, 1));
    CHECK_OK(dt_rig_send(r, id, b2, 48, 0, 2));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_poll(r, 101));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2);
    CHECK_EQ(r->dt.stats.dma_skipped, 0);
    /* Second run: b1, b2, b1, b2, b2 all from the cache. */
    CHECK_OK(dt_rig_send(r, id, b1, 48, 0, 3));
    CHECK_OK(dt_rig_send(r, id, b2, 48, 0, 4));
    CHECK_OK(dt_rig_send(r, id, b1, 48, 0, 5));
    CHECK_OK(dt_rig_send(r, id, b2, 48, 0, 6));
    CHECK_OK(dt_rig_send(r, id, b2, 48, 0, 7));
    CHECK_OK(dt_rig_poll(r, 102));
    CHECK_OK(dt_rig_poll(r, 202));
    n = dt_rig_take(r, zr, NR);
    CHECK_EQ(n, 5);
    for (i = 0; i < n; i++)
        CHECK(zr[i].tag == 3 + i && zr[i].status == OFL_DT_ST_OK &&
              zr[i].number == 1);
    CHECK_EQ(r->dt.stats.dma_skipped, 5);
    CHECK_EQ(drain_tx(r, id, out, sizeof(out)), 7 * 48);
    for (i = 0; i < 7; i++)
        CHECK(out[i * 48] == ((i == 1 || i == 3 || i >= 5) ? 0x22 : 0x11) &&
              out[i * 48 + 47] == out[i * 48]);
    /* b2 was used last: with the other two slots filled, a copy of b3
     * replaces b1's, which is then read from the host again. */
    for (i = 2; i < DT_RIG_CACHE; i++) {
        /* Copies of ranges no send names, newest: never the victim. */
        r->cache[i].base = dt_rig_pa(r->ctrl) + (uint64_t)i * 64;
        r->cache[i].len = 16;
        r->cache[i].stamp = r->dt.cache_stamp + 1;
    }
    CHECK_OK(dt_rig_send(r, id, b3, 48, 0, 8));
    CHECK_OK(dt_rig_send(r, id, b2, 48, 0, 9));
    CHECK_OK(dt_rig_send(r, id, b1, 48, 0, 10));
    CHECK_OK(dt_rig_poll(r, 203));
    CHECK_OK(dt_rig_poll(r, 303));
    CHECK_EQ(dt_rig_take(r, zr, NR), 3);
    CHECK_EQ(r->dt.stats.dma_skipped, 6); /* b2 only */
    CHECK_EQ(drain_tx(r, id, out, sizeof(out)), 3 * 48);
    CHECK(out[0] == 0x33 && out[48] == 0x22 && out[96] == 0x11);
    CHECK_EQ(r->sim.violations, 0);
    dt_rig_free(r);
}

/*
 * A send that ends at the top of the address space and one that starts at
 * 0 are adjacent modulo 2^64, but never merge: a merged range would wrap.
 * (Neither is in the sim's allow-list: each is read, and fails, alone.)
 */
static void test_merge_not_across_top(void)
{
    struct dt_rig *r = rig_bt_time();
    struct ofl_dt_desc d;
    uint64_t id;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    id = dt_rig_connect(r, 1, 0);
    r->dt.mem.host_lo = 0;
    r->dt.mem.host_hi = ~0ull;
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_BUF_SEND;
    d.conn = id;
    d.len = 32;
    d.base = ~0ull - 31;
    d.tag = 1;
    CHECK_OK(dt_rig_post(r, &d));
    d.base = 0;
    d.tag = 2;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_poll(r, 101));
    CHECK_EQ(dt_rig_take(r, zr, NR), 2);
    CHECK(zr[0].tag == 1 && zr[0].number == 1 && zr[0].len == 32 &&
          zr[0].status == OFL_DT_ST_DMA);
    CHECK(zr[1].tag == 2 && zr[1].number == 1 && zr[1].len == 32 &&
          zr[1].status == OFL_DT_ST_DMA);
    CHECK_EQ(r->dt.stats.merged, 0);
    CHECK_EQ(r->sim.violations, 2); /* the two reads, refused */
    dt_rig_free(r);
}

OFL_SUITE(dt_edges)
{
    test_attr_writeback_cache();
    test_listener_close_tells_firmware();
    test_cn_trigger_used_up();
    test_arrival_names_listener();
    test_hand_back_failure();
    test_cancel_reorders();
    test_cancel_asap();
    test_request_status();
    test_send_fast_conditions();
    test_send_cache_alternating();
    test_merge_not_across_top();
}
