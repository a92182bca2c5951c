/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt_drain: closes that owe the host more responses than the output table
 * holds (offload.h, dt: "Closing in steps"). A listener termination, a
 * cancellation and ofl_dt_conn_closed each return more buffers than
 * out_slots on a 4-slot table: they must complete as the host drains, in
 * order, with nothing lost or repeated, and leave the input table moving.
 * The same closes on a table that holds them complete in one call.
 */
#include "test.h"
#include "support/dt_rig.h"

#define NRSP 256
#define NBUF 10 /* posted buffers per close: > 4 output slots */
#define NSEND 3

static struct ofl_dt_desc got[NRSP];

static struct ofl_dt_desc mk(uint8_t type, uint64_t conn, uint32_t tag)
{
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    d.type = type;
    d.conn = conn;
    d.tag = tag;
    return d;
}

/* Posts a request, polling (and keeping what the host reads) while the
 * input table is full. */
static void post(struct dt_rig *r, struct ofl_dt_desc *d, uint32_t *n)
{
    unsigned guard;

    for (guard = 0; guard < 16; guard++) {
        if (dt_rig_post(r, d) == OFL_OK)
            return;
        CHECK_OK(dt_rig_poll(r, 1));
        *n += dt_rig_take(r, got + *n, NRSP - *n);
    }
    CHECK(0); /* the input table never freed a slot */
}

/* Six 8-byte sends of id with tag 700 and one with tag 701, from s. */
static void post_sends_700(struct dt_rig *r, uint64_t id, uint8_t *s,
                           uint32_t *n)
{
    struct ofl_dt_desc d;
    uint32_t i;

    for (i = 0; i < 6; i++) {
        d = mk(OFL_DT_REQ_BUF_SEND, id, 700);
        d.base = dt_rig_pa(s + 32 * i);
        d.len = 8;
        post(r, &d, n);
    }
    d = mk(OFL_DT_REQ_BUF_SEND, id, 701);
    d.base = dt_rig_pa(s + 32 * 7);
    d.len = 8;
    post(r, &d, n);
}


/* A drained listener the firmware listens for: it is told to stop
 * (OFL_DT_ACT_CLOSE), stops, and the entry is freed. */
static void fw_stopped(struct dt_rig *r, uint64_t l)
{
    uint32_t cursor = 0;
    uint64_t id = 0;
    uint8_t act = 0;

    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_UNLISTEN);
    while (ofl_dt_next_action(&r->dt, &cursor, &id, &act) == OFL_OK &&
           id != l)
        ;
    CHECK(id == l && act == OFL_DT_ACT_CLOSE);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l, 0));
}

/* Host and adapter take turns until two rounds bring nothing new; the
 * host reads at most 4 responses a round. Returns the rounds taken. */
static unsigned settle(struct dt_rig *r, uint32_t *n)
{
    unsigned rounds, idle = 0;
    uint32_t k;

    for (rounds = 0; rounds < 200 && idle < 2; rounds++) {
        CHECK_OK(dt_rig_poll(r, 2));
        k = dt_rig_take(r, got + *n, (NRSP - *n < 4 ? NRSP - *n : 4));
        *n += k;
        idle = k == 0 ? idle + 1 : 0;
    }
    return rounds;
}

/* Index of the response of type with tag in got[from .. n), or n. */
static uint32_t find(uint32_t from, uint32_t n, uint8_t type, uint32_t tag)
{
    uint32_t i;

    for (i = from; i < n; i++)
        if (got[i].type == type && got[i].tag == tag)
            return i;
    return n;
}

/* How many responses of type with tag got[0 .. n) holds. */
static uint32_t count(uint32_t n, uint8_t type, uint32_t tag)
{
    uint32_t i, k = 0;

    for (i = 0; i < n; i++)
        k += got[i].type == type && got[i].tag == tag;
    return k;
}

/* The input table is consumed and still moves: a listen is answered. */
static void input_moves(struct dt_rig *r)
{
    CHECK_EQ(r->dt.in_head, r->host.in_tail);
    CHECK_EQ(r->dt.draining, 0);
    CHECK_EQ(r->dt.cancel_run, 0);
    CHECK(dt_rig_listen(r, 4242, 3) != 0);
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
}

static struct dt_rig *rig(uint32_t slots)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT; /* sends stay listed */
    c.bt_count = 100;
    return dt_rig_new(&c, slots);
}

/*
 * Posts NBUF buffers (tags 100 + i) and NSEND sends (tags 200 + i) on
 * entry id, all held by the adapter. Returns the responses read meanwhile
 * (none expected).
 */
static uint32_t load(struct dt_rig *r, uint64_t id, uint32_t send_tag0)
{
    struct ofl_dt_desc d;
    uint32_t i, n = 0;
    uint8_t *b = dt_rig_alloc(r, 64 * NBUF), *s = dt_rig_alloc(r, 64);

    for (i = 0; i < NBUF; i++) {
        d = mk(OFL_DT_REQ_BUF_AVAIL, id, 100 + i);
        d.base = dt_rig_pa(b + 64 * i);
        d.len = 64;
        post(r, &d, &n);
    }
    for (i = 0; i < NSEND; i++) {
        d = mk(OFL_DT_REQ_BUF_SEND, id, send_tag0 + i);
        d.base = dt_rig_pa(s + 16 * i);
        d.len = 8; /* not adjacent: one response each */
        post(r, &d, &n);
    }
    CHECK_OK(dt_rig_poll(r, 1));
    n += dt_rig_take(r, got + n, NRSP - n);
    CHECK_EQ(r->dt.xfer_count, NSEND);
    return n;
}

/*
 * Checks got[0 .. n) for one close of entry id: every buffer returned
 * once, FINAL, with status, oldest first; every send once; the final
 * response (type, tag) after all of them. Returns its index.
 */
static uint32_t check_close(uint32_t n, uint64_t id, uint8_t status,
                            uint32_t send_tag0, uint8_t final_type,
                            uint32_t final_tag)
{
    uint32_t i, at, prev = 0, last = 0, fin;

    for (i = 0; i < NBUF; i++) {
        CHECK_EQ(count(n, OFL_DT_RSP_BUF_RECV, 100 + i), 1);
        at = find(0, n, OFL_DT_RSP_BUF_RECV, 100 + i);
        if (at == n)
            continue;
        CHECK(got[at].conn == id && got[at].status == status &&
              (got[at].flags & OFL_DT_F_FINAL) && got[at].len == 0);
        CHECK(i == 0 || at > prev); /* oldest first */
        prev = at;
        last = at > last ? at : last;
    }
    for (i = 0; i < NSEND; i++) {
        CHECK_EQ(count(n, OFL_DT_RSP_BUF_AVAIL, send_tag0 + i), 1);
        at = find(0, n, OFL_DT_RSP_BUF_AVAIL, send_tag0 + i);
        if (at == n)
            continue;
        CHECK(got[at].status == status && got[at].number == 1);
        CHECK(at > prev); /* after the buffers */
        last = at > last ? at : last;
    }
    CHECK_EQ(count(n, final_type, final_tag), 1);
    fin = find(0, n, final_type, final_tag);
    CHECK(fin < n && fin > last);
    return fin;
}

/* A listener with NBUF shared buffers and NSEND group sends terminated on
 * a 4-slot output table: consumed at once, DRAINING, then drained. */
static void test_drain_terminate_listener(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    uint64_t l, nid;
    uint32_t n, fin, ref;
    unsigned rounds;
    static const uint8_t addr[16] = {0};

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    n = load(r, l, 200);
    CHECK_EQ(n, 0);
    d = mk(OFL_DT_REQ_TERMINATE, l, 90);
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_TERMINATE, 0x900000001ull, 91); /* stale: refused */
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    /* The termination is consumed although it needs 14 slots of 4; the
     * refusal behind it waits for a slot of its own. */
    CHECK_EQ(r->host.in_tail - r->dt.in_head, 1);
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_DRAINING);
    CHECK_EQ(r->dt.draining, 1);
    /* While it drains: no arrival, and requests naming it are refused. */
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 1, &nid),
              OFL_E_DT_CONN_STATE);
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, 4);
    ref = n;
    d = mk(OFL_DT_REQ_BUF_AVAIL, l, 92);
    d.base = dt_rig_pa(dt_rig_alloc(r, 16));
    d.len = 16;
    CHECK_OK(dt_rig_post(r, &d));
    rounds = settle(r, &n);
    CHECK(rounds > 2); /* it took several host rounds */
    CHECK_EQ(n, NBUF + NSEND + 1 + 2);
    fin = check_close(n, l, OFL_DT_ST_FLUSHED, 200, OFL_DT_RSP_TERMINATE, 90);
    CHECK(got[fin].conn == l && got[fin].status == OFL_DT_ST_OK);
    CHECK_EQ(count(n, OFL_DT_RSP_TERMINATE, 91), 1);
    /* The drain took every slot the host freed, so the request was read
     * after the last response: the listener waited in UNLISTEN for the
     * firmware by then, its id still taken (CONN_STATE). */
    ref = find(ref, n, OFL_DT_RSP_BUF_RECV, 92);
    CHECK(ref < n && ref > fin && got[ref].status == OFL_DT_ST_CONN_STATE);
    fw_stopped(r, l);
    CHECK_EQ(r->dt.conn_live, 0);
    CHECK_EQ(r->dt.xfer_count, 0);
    CHECK_EQ(r->dt.bt_bytes_listed, 0);
    /* The id is dead now, and the port is free for a new listener. */
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 1, &nid),
              OFL_E_DT_CONN_UNKNOWN);
    input_moves(r);
    dt_rig_free(r);
}

/* A cancellation of a listener by id and one by tag (sends and connects),
 * each larger than the table. The second waits in the input table until
 * the first has answered; a send of another tag is still transmitted. */
static void test_drain_cancel(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    uint64_t l, id;
    uint8_t t[64], *s;
    size_t off = 0;
    uint32_t n, i, fin, fin2, at;
    const uint8_t *p;
    uint32_t avail;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    id = dt_rig_connect(r, 9, 0);
    CHECK(l != 0 && id != 0);
    n = load(r, l, 200);
    CHECK_EQ(n, 0);
    /* Sends with tag 700 on an established connection, one of tag 701,
     * and two connects with tag 700. */
    s = dt_rig_alloc(r, 256);
    post_sends_700(r, id, s, &n);
    dt_tup_remote(t, &off, 1, 5);
    dt_tup_remote(t, &off, 2, 6);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 700,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 1));
    n += dt_rig_take(r, got + n, NRSP - n);
    CHECK_EQ(n, 0);
    CHECK_EQ(r->dt.connecting, 2);
    CHECK_EQ(r->dt.xfer_count, NSEND + 7);
    d = mk(OFL_DT_REQ_CANCEL, l, 80);
    d.aux = 5; /* echoed */
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_CANCEL, 0, 81);
    d.aux = 700;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    /* The first runs; the second waits behind it. */
    CHECK_EQ(r->dt.cancel_run, 1);
    CHECK_EQ(r->host.in_tail - r->dt.in_head, 1);
    CHECK_EQ(r->dt.connecting, 2); /* not yet matched */
    settle(r, &n);
    fin = check_close(n, l, OFL_DT_ST_CANCELLED, 200, OFL_DT_RSP_CANCEL, 80);
    CHECK(got[fin].number == 1 && got[fin].aux == 5 && got[fin].conn == l &&
          got[fin].status == OFL_DT_ST_OK);
    /* The second: 6 sends and 2 connects, then its response. */
    CHECK_EQ(count(n, OFL_DT_RSP_BUF_AVAIL, 700), 6);
    CHECK_EQ(count(n, OFL_DT_RSP_CONN_COMPLETE, 700), 2);
    fin2 = find(0, n, OFL_DT_RSP_CANCEL, 81);
    CHECK(fin2 < n && fin2 > fin);
    CHECK(got[fin2].number == 8 && got[fin2].aux == 700 &&
          got[fin2].status == OFL_DT_ST_OK);
    for (i = 0; i < n; i++) {
        if (got[i].tag != 700)
            continue;
        CHECK(i > fin && i < fin2);
        CHECK_EQ(got[i].status, OFL_DT_ST_CANCELLED);
    }
    at = find(0, n, OFL_DT_RSP_CONN_COMPLETE, 700);
    CHECK(at < n && got[at].aux == 0);
    CHECK_EQ(count(n, OFL_DT_RSP_CANCEL, 80) + count(n, OFL_DT_RSP_CANCEL, 81),
             2);
    CHECK_EQ(n, NBUF + NSEND + 1 + 6 + 2 + 1);
    CHECK_EQ(r->dt.connecting, 0);
    /* dt_rig_connect's firmware took the listener's LISTEN on its way to
     * the CONNECT: the drained listener waits for it to stop listening. */
    CHECK_EQ(r->dt.conn_live, 2);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l, 1));
    CHECK_EQ(r->dt.conn_live, 1); /* the connection */
    /* The send of the other tag stayed listed and was never cancelled. */
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(r->xfer[0].tag, 701);
    CHECK_EQ(r->xfer[0].cancel, 0);
    CHECK_OK(ofl_dt_tx_peek(&r->dt, id, &p, &avail));
    CHECK_EQ(avail, 0);
    input_moves(r);
    dt_rig_free(r);
}

/* Sends a cancellation matched are never transmitted, though the list
 * has an ASAP request while they wait for output room; the others are,
 * merged, once there is room. */
static void test_drain_cancel_not_sent(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t id;
    uint8_t *s;
    uint32_t i, n = 0, fill;
    const uint8_t *p;
    uint32_t avail;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 100;
    r = dt_rig_new(&c, 4);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 9, 0);
    CHECK(id != 0);
    s = dt_rig_alloc(r, 256);
    post_sends_700(r, id, s, &n);
    CHECK_OK(dt_rig_poll(r, 1));
    /* Fill the output table so that the cancellation stalls half way. */
    for (fill = 0; fill < 3; fill++) {
        d = mk(OFL_DT_REQ_TERMINATE, 0x900000001ull, 60 + fill);
        post(r, &d, &n);
    }
    CHECK_OK(dt_rig_poll(r, 1));
    d = mk(OFL_DT_REQ_CANCEL, 0, 81);
    d.aux = 700;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.cancel_run, 1);
    /* Now the list runs (ASAP): only the send of tag 701 goes. */
    d = mk(OFL_DT_REQ_BUF_SEND, id, 702);
    d.base = dt_rig_pa(s + 32 * 7 + 8); /* adjacent to 701's */
    d.len = 8;
    d.flags = OFL_DT_F_ASAP;
    CHECK_OK(dt_rig_post(r, &d));
    n += dt_rig_take(r, got + n, 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(ofl_dt_tx_peek(&r->dt, id, &p, &avail));
    CHECK_EQ(avail, 0); /* the cancellation's answers come first */
    settle(r, &n);
    CHECK_OK(ofl_dt_tx_peek(&r->dt, id, &p, &avail));
    CHECK_EQ(avail, 16); /* 701 and 702 merged; none of 700 */
    CHECK_EQ(count(n, OFL_DT_RSP_BUF_AVAIL, 700), 6);
    for (i = 0; i < n; i++)
        if (got[i].tag == 700)
            CHECK_EQ(got[i].status, OFL_DT_ST_CANCELLED);
    i = find(0, n, OFL_DT_RSP_BUF_AVAIL, 701);
    CHECK(i < n && got[i].status == OFL_DT_ST_OK && got[i].number == 2);
    i = find(0, n, OFL_DT_RSP_CANCEL, 81);
    CHECK(i < n && got[i].number == 6);
    CHECK_EQ(r->dt.xfer_count, 0);
    input_moves(r);
    dt_rig_free(r);
}

/* ofl_dt_conn_closed of a connection with a notice, NBUF buffers and
 * NSEND sends on a 4-slot table: accepted, DRAINING, completed later. */
static void test_drain_conn_closed(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    uint64_t l, id;
    uint32_t n = 0, fin, at;
    static const uint8_t addr[16] = {0};
    const uint8_t *p;
    uint32_t avail;
    struct ofl_dt_conn_info info;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &id));
    CHECK_OK(dt_rig_poll(r, 0));
    n = dt_rig_take(r, got, 1);
    CHECK(n == 1 && got[0].type == OFL_DT_RSP_CONN_ARRIVAL);
    n = load(r, id, 200);
    CHECK_EQ(n, 0);
    /* A termination request: CLOSING until the firmware has closed it. */
    d = mk(OFL_DT_REQ_TERMINATE, id, 95);
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, got, NRSP), 0);
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)"late", 4, 1));
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 2));
    CHECK_OK(ofl_dt_conn_query(&r->dt, id, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_DRAINING);
    CHECK_EQ(info.rx_held, 0); /* staged bytes dropped */
    CHECK_OK(ofl_dt_flush(&r->dt));
    /* Nothing accepted for it while it drains. */
    CHECK_ERR(ofl_dt_rx(&r->dt, id, (const uint8_t *)"x", 1, 2),
              OFL_E_DT_CONN_STATE);
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, id, 2), OFL_E_DT_CONN_STATE);
    CHECK_OK(ofl_dt_tx_peek(&r->dt, id, &p, &avail));
    CHECK_EQ(avail, 0);
    {
        uint8_t tup[16];
        size_t off = 0;

        dt_tup_u32(tup, &off, true, OFL_DT_ATTR_PRIORITY, 3);
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, tup,
                             (uint32_t)off, 1, 96, NULL));
    }
    n = 0;
    settle(r, &n);
    fin = check_close(n, id, OFL_DT_ST_FLUSHED, 200, OFL_DT_RSP_TERMINATE, 95);
    CHECK(got[fin].conn == id);
    at = find(0, n, OFL_DT_RSP_CONN_ATTR, 96); /* read after: stale */
    CHECK(at < n && at > fin && got[at].status == OFL_DT_ST_BAD_CONN);
    CHECK_EQ(n, NBUF + NSEND + 1 + 1);
    CHECK_EQ(r->dt.conn_live, 1); /* the listener */
    CHECK_ERR(ofl_dt_conn_query(&r->dt, id, &info), OFL_E_DT_CONN_UNKNOWN);
    input_moves(r);
    dt_rig_free(r);
}

/* The same three closes on a table that holds all their responses: each
 * completes in the call that starts it, nothing left DRAINING. */
static void test_drain_fits(void)
{
    struct dt_rig *r = rig(64);
    struct ofl_dt_desc d;
    uint64_t l, id;
    uint32_t n;
    static const uint8_t addr[16] = {0};

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    n = load(r, l, 200);
    CHECK_EQ(n, 0);
    d = mk(OFL_DT_REQ_TERMINATE, l, 90);
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.draining, 0);
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, NBUF + NSEND + 1);
    CHECK_EQ(check_close(n, l, OFL_DT_ST_FLUSHED, 200, OFL_DT_RSP_TERMINATE,
                         90),
             n - 1);

    l = dt_rig_listen(r, 81, 1);
    CHECK(l != 0);
    n = load(r, l, 200);
    d = mk(OFL_DT_REQ_CANCEL, l, 80);
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_CANCEL, 0, 81); /* nothing has this tag */
    d.aux = 12345;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.cancel_run, 0);
    CHECK_EQ(r->dt.in_head, r->host.in_tail); /* no wait: the first ended */
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, NBUF + NSEND + 2);
    CHECK_EQ(check_close(n, l, OFL_DT_ST_CANCELLED, 200, OFL_DT_RSP_CANCEL,
                         80),
             n - 2);
    CHECK(got[n - 1].tag == 81 && got[n - 1].status == OFL_DT_ST_NOT_FOUND &&
          got[n - 1].number == 0);

    l = dt_rig_listen(r, 82, 1);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &id));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, got, NRSP), 1);
    n = load(r, id, 200);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 2));
    CHECK_EQ(r->dt.draining, 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].state, OFL_DT_CONN_FREE);
    CHECK_OK(ofl_dt_flush(&r->dt));
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, NBUF + NSEND + 1);
    CHECK_EQ(check_close(n, id, OFL_DT_ST_FLUSHED, 200, OFL_DT_RSP_TERMINATE,
                         0),
             n - 1);
    input_moves(r);
    dt_rig_free(r);
}

/* With no output room at all, a listener termination and a cancellation
 * wait in the input table (they need room for a first response), and go
 * once the host reads. */
static void test_drain_no_room_waits(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    uint64_t l;
    uint32_t n = 0, i, consumed;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    for (i = 0; i < 4; i++) {
        d = mk(OFL_DT_REQ_TERMINATE, 0x900000001ull, 60 + i);
        post(r, &d, &n);
    }
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
    d = mk(OFL_DT_REQ_TERMINATE, l, 90);
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(ofl_dt_process(&r->dt, 1, 10, &consumed));
    CHECK_EQ(consumed, 0);
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_LISTENING);
    settle(r, &n);
    CHECK_EQ(n, 5);
    CHECK(got[4].type == OFL_DT_RSP_TERMINATE && got[4].tag == 90);
    input_moves(r);
    dt_rig_free(r);
}

/* A member of a DRAINING listener places nothing into the shared buffers
 * being returned: its data waits (test_rx_shared in test_dt.c has the
 * same member placing into a LISTENING listener's buffers). */
static void test_drain_member_no_shared(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    struct ofl_dt_conn_info info;
    static const uint8_t addr[16] = {0};
    uint64_t l, m;
    uint32_t n = 0, i;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &m));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, got, NRSP), 1);
    n = load(r, l, 200);
    CHECK_EQ(n, 0);
    d = mk(OFL_DT_REQ_TERMINATE, l, 90);
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.draining, 1);
    CHECK_OK(ofl_dt_rx(&r->dt, m, (const uint8_t *)"hello", 5, 1));
    settle(r, &n);
    CHECK_EQ(n, NBUF + NSEND + 1);
    for (i = 0; i < n; i++)
        CHECK(got[i].type != OFL_DT_RSP_BUF_RECV ||
              got[i].status == OFL_DT_ST_FLUSHED);
    CHECK_OK(ofl_dt_conn_query(&r->dt, m, &info));
    CHECK_EQ(info.rx_held, 5); /* still staged: no buffer of its own */
    fw_stopped(r, l);
    CHECK_EQ(r->dt.conn_live, 1);
    dt_rig_free(r);
}

/*
 * Closing in steps and the order rule together (offload.h, dt: "Order",
 * "Closing in steps"). The members' config: notices wait for a time, so
 * they are pending when a close must force them out.
 */
static struct dt_rig *rig_timed(uint32_t slots, uint64_t cn_time)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_TIME;
    c.cn_time = cn_time;
    return dt_rig_new(&c, slots);
}

static void rx(struct dt_rig *r, uint64_t id, const char *s, uint64_t now)
{
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)s, (uint32_t)strlen(s),
                       now));
    CHECK_OK(dt_rig_poll(r, now));
}

/* Index of the first response of type for conn in got[0 .. n), or n. */
static uint32_t find_conn(uint32_t n, uint8_t type, uint64_t conn)
{
    uint32_t i;

    for (i = 0; i < n && !(got[i].type == type && got[i].conn == conn); i++)
        ;
    return i;
}

/*
 * A listener drains on a 4-slot table while three members' ranges in its
 * shared buffers are unreported behind pending arrival notices; one of
 * them (k) ends buffer X (FINAL). In steps, each range goes after its
 * member's notice (a pair needs 2 slots: both or neither), k's FINAL
 * range after the others, then buffer Y FLUSHED, then the termination.
 * While a pair waits for its 2 slots, a request naming the DRAINING
 * listener is refused in the single free slot with CONN_STATE.
 */
static void test_drain_listener_settles(void)
{
    struct dt_rig *r = rig_timed(4, 1000);
    struct ofl_dt_desc d;
    static const uint8_t addr[16] = {0};
    uint64_t l, a, b, k;
    uint8_t *x, *y;
    uint32_t n, i, na, nb, nk, ra, rb, rk, fy, fin, ref;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &a));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 0, &k));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 3, 0, &b));
    x = dt_rig_alloc(r, 16);
    y = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, x, 10, 0, 0, 5));
    CHECK_OK(dt_rig_avail(r, l, y, 16, 0, 0, 6));
    rx(r, a, "aaa", 1);
    rx(r, k, "kkkkkkk", 2); /* ends X */
    rx(r, b, "bb", 3);      /* into Y */
    CHECK_EQ(dt_rig_take(r, got, NRSP), 0);
    CHECK(r->conn[(uint32_t)k - 1].note.final);
    CHECK_EQ(r->dt.cn_pending, 3);
    d = mk(OFL_DT_REQ_TERMINATE, l, 90);
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_DRAINING);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0); /* two pairs written */
    n = dt_rig_take(r, got, 1);
    CHECK_EQ(n, 1);
    /* One slot free: k's pair does not fit, the refusal does. The
     * attribute request behind it waits for the next free slot, and is
     * refused there too (before its tuples are read). */
    d = mk(OFL_DT_REQ_BUF_AVAIL, l, 92);
    d.base = dt_rig_pa(dt_rig_alloc(r, 16));
    d.len = 16;
    CHECK_OK(dt_rig_post(r, &d));
    {
        uint8_t t[16];
        size_t off = 0;

        dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 3);
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, l, t, (uint32_t)off, 1,
                             93, NULL));
    }
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_DRAINING);
    CHECK(r->conn[(uint32_t)k - 1].note.open);
    CHECK(r->conn[(uint32_t)k - 1].cn_pending != 0);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
    n += dt_rig_take(r, got + n, 1); /* one slot again */
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_DRAINING);
    CHECK(r->conn[(uint32_t)k - 1].cn_pending != 0);
    n += dt_rig_take(r, got + n, NRSP - n);
    CHECK_EQ(n, 6);
    CHECK(got[4].type == OFL_DT_RSP_BUF_RECV && got[4].tag == 92 &&
          got[4].status == OFL_DT_ST_CONN_STATE);
    CHECK(got[5].type == OFL_DT_RSP_CONN_ATTR && got[5].tag == 93 &&
          got[5].status == OFL_DT_ST_CONN_STATE);
    CHECK_EQ(r->conn[(uint32_t)l - 1].cfg.priority, 0);
    settle(r, &n);
    CHECK_EQ(n, 10);
    na = find_conn(n, OFL_DT_RSP_CONN_ARRIVAL, a);
    nb = find_conn(n, OFL_DT_RSP_CONN_ARRIVAL, b);
    nk = find_conn(n, OFL_DT_RSP_CONN_ARRIVAL, k);
    ra = find_conn(n, OFL_DT_RSP_BUF_RECV, a);
    rb = find_conn(n, OFL_DT_RSP_BUF_RECV, b);
    rk = find_conn(n, OFL_DT_RSP_BUF_RECV, k);
    fy = find(rb + 1, n, OFL_DT_RSP_BUF_RECV, 6); /* after b's range */
    fin = find(0, n, OFL_DT_RSP_TERMINATE, 90);
    CHECK(na < ra && nb < rb && nk < rk); /* each after its notice */
    CHECK(got[ra].status == OFL_DT_ST_OK && got[ra].tag == 5 &&
          got[ra].aux == 0 && got[ra].len == 3 &&
          !(got[ra].flags & OFL_DT_F_FINAL));
    CHECK(got[rk].status == OFL_DT_ST_OK && got[rk].tag == 5 &&
          got[rk].aux == 3 && got[rk].len == 7 &&
          (got[rk].flags & OFL_DT_F_FINAL));
    CHECK(got[rb].status == OFL_DT_ST_OK && got[rb].tag == 6 &&
          got[rb].aux == 0 && got[rb].len == 2);
    CHECK(rk > ra && rk > rb); /* the FINAL range after the others */
    CHECK(fy < n && got[fy].conn == l &&
          got[fy].status == OFL_DT_ST_FLUSHED && got[fy].aux == 2 &&
          (got[fy].flags & OFL_DT_F_FINAL));
    CHECK(fy > rb && fy > rk); /* Y back after every range */
    CHECK(fin == n - 1 && got[fin].status == OFL_DT_ST_OK);
    for (i = 0; i < n; i++) /* nothing twice */
        CHECK(i == fin || got[i].type != OFL_DT_RSP_TERMINATE);
    CHECK(memcmp(x, "aaakkkkkkk", 10) == 0 && memcmp(y, "bb", 2) == 0);
    CHECK_EQ(r->dt.cn_pending, 0);
    fw_stopped(r, l);
    CHECK_EQ(r->dt.conn_live, 3); /* the members */
    /* The id is stale now: BAD_CONN. */
    d = mk(OFL_DT_REQ_BUF_AVAIL, l, 93);
    d.base = dt_rig_pa(dt_rig_alloc(r, 16));
    d.len = 16;
    CHECK_OK(dt_rig_post(r, &d));
    n = 0;
    settle(r, &n);
    ref = find(0, n, OFL_DT_RSP_BUF_RECV, 93);
    CHECK(n == 1 && ref == 0 && got[0].status == OFL_DT_ST_BAD_CONN);
    input_moves(r);
    dt_rig_free(r);
}

/*
 * ofl_dt_conn_closed on a member whose open range is the FINAL one of a
 * shared buffer, with another member's range in it behind a pending
 * notice, and one output slot free: the close takes effect, writes the
 * member's own notice and stops (the other pair needs 2); it resumes as
 * the host reads: the other notice and range, the FINAL range, the
 * termination response.
 */
static void test_drain_conn_settles(void)
{
    struct dt_rig *r = rig_timed(4, 1000);
    struct ofl_dt_desc d;
    static const uint8_t addr[16] = {0};
    uint64_t l, o, c;
    uint8_t *x;
    uint32_t n = 0, i;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &o));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 0, &c));
    x = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, x, 10, 0, 0, 5));
    rx(r, o, "ooo", 1);
    rx(r, c, "ccccccc", 2);
    CHECK(r->conn[(uint32_t)c - 1].note.final);
    CHECK_EQ(dt_rig_take(r, got, NRSP), 0);
    for (i = 0; i < 3; i++) {
        d = mk(OFL_DT_REQ_TERMINATE, 0x900000001ull, 60 + i);
        post(r, &d, &n);
    }
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(ofl_dt_out_room(&r->dt), 1);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, c, 3));
    CHECK_EQ(r->conn[(uint32_t)c - 1].state, OFL_DT_CONN_DRAINING);
    CHECK(r->conn[(uint32_t)c - 1].note.open);
    CHECK(r->conn[(uint32_t)o - 1].note.open);
    CHECK(r->conn[(uint32_t)o - 1].cn_pending != 0);
    CHECK_OK(ofl_dt_flush(&r->dt));
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, 4);
    CHECK(got[3].type == OFL_DT_RSP_CONN_ARRIVAL && got[3].conn == c);
    settle(r, &n);
    CHECK_EQ(n, 8);
    CHECK(got[4].type == OFL_DT_RSP_CONN_ARRIVAL && got[4].conn == o);
    CHECK(got[5].type == OFL_DT_RSP_BUF_RECV && got[5].conn == o &&
          got[5].aux == 0 && got[5].len == 3 &&
          !(got[5].flags & OFL_DT_F_FINAL));
    CHECK(got[6].type == OFL_DT_RSP_BUF_RECV && got[6].conn == c &&
          got[6].status == OFL_DT_ST_OK && got[6].aux == 3 &&
          got[6].len == 7 && (got[6].flags & OFL_DT_F_FINAL));
    CHECK(got[7].type == OFL_DT_RSP_TERMINATE && got[7].conn == c &&
          got[7].tag == 0 && got[7].status == OFL_DT_ST_OK);
    CHECK_EQ(r->dt.cn_pending, 0);
    CHECK_EQ(r->dt.draining, 0);
    CHECK_EQ(r->dt.conn_live, 2); /* l and o */
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
    dt_rig_free(r);
}

/*
 * The normal course (no close): a FINAL range that waits for more ranges
 * than the output table holds (two members' notice and range: 4, plus
 * itself: 5 > 4 slots) does not wait for ever: with the table empty it
 * goes out in steps, each pair whole, itself last.
 */
static void test_note_steps_beyond_table(void)
{
    struct dt_rig *r = rig_timed(4, 10);
    static const uint8_t addr[16] = {0};
    uint64_t l, c, p, q;
    uint8_t *x;
    uint32_t n = 0;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &c));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, got, NRSP), 1); /* c's notice */
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 11, &p));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 3, 11, &q));
    x = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, x, 10, 0, 0, 5));
    rx(r, p, "pp", 12);
    rx(r, q, "qq", 12);
    CHECK_EQ(dt_rig_take(r, got, NRSP), 0);
    rx(r, c, "cccccc", 13); /* ends X: 5 responses due */
    n = dt_rig_take(r, got, NRSP);
    CHECK_EQ(n, 4);
    CHECK(r->conn[(uint32_t)c - 1].note.open);
    CHECK_OK(dt_rig_poll(r, 14)); /* still before p's and q's criterion */
    n += dt_rig_take(r, got + n, NRSP - n);
    CHECK_EQ(n, 5);
    CHECK(got[0].type == OFL_DT_RSP_CONN_ARRIVAL && got[0].conn == p);
    CHECK(got[1].type == OFL_DT_RSP_BUF_RECV && got[1].conn == p &&
          got[1].aux == 0 && got[1].len == 2);
    CHECK(got[2].type == OFL_DT_RSP_CONN_ARRIVAL && got[2].conn == q);
    CHECK(got[3].type == OFL_DT_RSP_BUF_RECV && got[3].conn == q &&
          got[3].aux == 2 && got[3].len == 2);
    CHECK(got[4].type == OFL_DT_RSP_BUF_RECV && got[4].conn == c &&
          got[4].aux == 4 && got[4].len == 6 &&
          (got[4].flags & OFL_DT_F_FINAL));
    CHECK(memcmp(x, "ppqqcccccc", 10) == 0);
    CHECK_EQ(r->dt.cn_pending, 0);
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
    dt_rig_free(r);
}

/*
 * The list runs (another connection's ASAP send meets its criterion)
 * while a closing connection's drain waits for output room: the run keeps
 * the closing connection's sends listed and sends none of them; the drain
 * answers them FLUSHED once the host reads, and the ASAP send goes out.
 */
static void test_drain_sends_kept_by_run(void)
{
    struct dt_rig *r = rig(4);
    struct ofl_dt_desc d;
    uint64_t id, id2;
    uint8_t *s;
    uint32_t n, at;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    id2 = dt_rig_connect(r, 2, 0);
    CHECK(id != 0 && id2 != 0);
    n = load(r, id, 200);
    CHECK_EQ(n, 0);
    d = mk(OFL_DT_REQ_TERMINATE, id, 90);
    post(r, &d, &n);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->conn[(uint32_t)id - 1].state, OFL_DT_CONN_CLOSING);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 1)); /* the firmware closed it */
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->conn[(uint32_t)id - 1].state, OFL_DT_CONN_DRAINING);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
    CHECK_EQ(r->dt.xfer_count, NSEND);
    s = dt_rig_alloc(r, 16);
    d = mk(OFL_DT_REQ_BUF_SEND, id2, 300);
    d.base = dt_rig_pa(s);
    d.len = 8;
    d.flags = OFL_DT_F_ASAP;
    post(r, &d, &n);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.xfer_count, NSEND + 1); /* kept, and no room to send */
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_tail, 0);
    CHECK_EQ(r->conn[(uint32_t)id2 - 1].tx_tail, 0);
    settle(r, &n);
    (void)check_close(n, id, OFL_DT_ST_FLUSHED, 200, OFL_DT_RSP_TERMINATE, 90);
    CHECK_EQ(count(n, OFL_DT_RSP_BUF_AVAIL, 300), 1);
    at = find(0, n, OFL_DT_RSP_BUF_AVAIL, 300);
    CHECK(at < n && got[at].status == OFL_DT_ST_OK && got[at].conn == id2);
    CHECK_EQ(r->conn[(uint32_t)id2 - 1].tx_tail, 8);
    CHECK_EQ(r->dt.xfer_count, 0);
    input_moves(r);
    dt_rig_free(r);
}

/*
 * A running cancellation that could answer only one of the two sends it
 * matched leaves the other in the list, marked: a run of the list then
 * merges nothing into it (even from an adjacent range) and sends none of
 * it; the drain answers it CANCELLED once the host reads.
 */
static void test_drain_cancel_not_merged(void)
{
    struct dt_rig *r = rig(8);
    struct ofl_dt_desc d;
    uint64_t id;
    uint8_t *s;
    uint32_t n = 0, i, at;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    CHECK(id != 0);
    for (i = 0; i < 7; i++) { /* seven answers the host leaves unread */
        d = mk(OFL_DT_REQ_CANCEL, 0, 10 + i);
        d.aux = 999;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(ofl_dt_out_room(&r->dt), 1);
    s = dt_rig_alloc(r, 128);
    d = mk(OFL_DT_REQ_BUF_SEND, id, 0x77); /* answered with the last slot */
    d.base = dt_rig_pa(s + 64);
    d.len = 8;
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_BUF_SEND, id, 1); /* ASAP: the list runs */
    d.base = dt_rig_pa(s);
    d.len = 8;
    d.flags = OFL_DT_F_ASAP;
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_BUF_SEND, id, 0x77); /* adjacent to the one before */
    d.base = dt_rig_pa(s + 8);
    d.len = 8;
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_CANCEL, 0, 50);
    d.aux = 0x77;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(r->dt.cancel_run, 1);
    CHECK_EQ(r->dt.xfer_count, 2);
    CHECK(r->xfer[1].tag == 0x77 && r->xfer[1].cancel);
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_tail, 0);
    settle(r, &n);
    CHECK_EQ(n, 7 + 4);
    CHECK_EQ(count(n, OFL_DT_RSP_BUF_AVAIL, 0x77), 2);
    for (i = 7; i < n; i++)
        if (got[i].type == OFL_DT_RSP_BUF_AVAIL && got[i].tag == 0x77)
            CHECK(got[i].status == OFL_DT_ST_CANCELLED && got[i].number == 1);
    at = find(0, n, OFL_DT_RSP_BUF_AVAIL, 1);
    CHECK(at < n && got[at].status == OFL_DT_ST_OK && got[at].number == 1 &&
          got[at].len == 8);
    at = find(0, n, OFL_DT_RSP_CANCEL, 50);
    CHECK(at < n && got[at].status == OFL_DT_ST_OK && got[at].number == 2);
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_tail, 8);
    CHECK_EQ(r->dt.stats.merged, 0);
    input_moves(r);
    dt_rig_free(r);
}

OFL_SUITE(dt_drain)
{
    test_drain_listener_settles();
    test_drain_conn_settles();
    test_note_steps_beyond_table();
    test_drain_member_no_shared();
    test_drain_terminate_listener();
    test_drain_cancel();
    test_drain_cancel_not_sent();
    test_drain_conn_closed();
    test_drain_fits();
    test_drain_no_room_waits();
    test_drain_sends_kept_by_run();
    test_drain_cancel_not_merged();
}
