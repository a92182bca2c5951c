/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt: the order of responses (offload.h, dt: "Order" and the shared
 * buffer rule): nothing the adapter reports on its own about a connection
 * before its notice, and no shared buffer returned before every range in
 * it was reported.
 */
#include "test.h"
#include "support/dt_rig.h"

#define NRSP 64

static struct ofl_dt_desc rsp[NRSP];
static const uint8_t addr0[16] = {0};

static void rig_done(struct dt_rig *r)
{
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
    dt_rig_free(r);
}

static void rx(struct dt_rig *r, uint64_t id, const char *s, uint64_t now)
{
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)s, (uint32_t)strlen(s),
                       now));
}

static uint32_t staged(const struct dt_rig *r, uint64_t id)
{
    const struct ofl_dt_conn *c = &r->conn[(uint32_t)id - 1];

    return c->rx_tail - c->rx_head;
}

/* Sets id's notification delay to NOTIFY_TIME delay (one CONN_ATTR). */
static void notify_time(struct dt_rig *r, uint64_t id, uint64_t delay,
                        uint64_t now)
{
    uint8_t t[64];
    size_t off = 0;

    dt_tup_u32(t, &off, true, OFL_DT_ATTR_NOTIFY_MODE, OFL_DT_NOTIFY_TIME);
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_NOTIFY_DELAY, delay);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 2, 99,
                         NULL));
    CHECK_OK(dt_rig_poll(r, now));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ATTR && rsp[0].status == OFL_DT_ST_OK);
}

/* Index of the first response of type for conn in rsp[0 .. n), or n. */
static uint32_t find(uint32_t n, uint8_t type, uint64_t conn)
{
    uint32_t i;

    for (i = 0; i < n && !(rsp[i].type == type && rsp[i].conn == conn); i++)
        ;
    return i;
}

/* A peek on a connection whose arrival notice is pending waits for the
 * notice (it would otherwise be the host's first word of the connection);
 * the data is not placed past it meanwhile. Once the notice is out, a
 * peek is served in the pass its data arrives (the normal case). */
static void test_order_peek_waits(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t l, id;
    uint8_t *hdr, *hdr2;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 5;
    c.cn_max_delay = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 0, &id));
    hdr = dt_rig_alloc(r, 16);
    hdr2 = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, hdr, 4, OFL_DT_F_PEEK, 0, 1));
    rx(r, id, "HDR:body", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_EQ(staged(r, id), 8);
    CHECK(hdr[0] == 0);
    CHECK_OK(dt_rig_poll(r, 99));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 100)); /* the maximum delay: the notice */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == id);
    CHECK_OK(dt_rig_poll(r, 101)); /* then the peek */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_RECV && rsp[0].tag == 1 &&
          rsp[0].len == 4 && rsp[0].flags == (OFL_DT_F_PEEK | OFL_DT_F_FINAL));
    CHECK(memcmp(hdr, "HDR:", 4) == 0);
    CHECK_EQ(staged(r, id), 8);
    /* Normal case: the connection is the host's now. */
    CHECK_OK(dt_rig_avail(r, id, hdr2, 6, OFL_DT_F_PEEK, 0, 2));
    CHECK_OK(dt_rig_poll(r, 102));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].len == 6 && memcmp(hdr2, "HDR:bo", 6) == 0);
    rig_done(r);
}

/* The DATA criterion: the data that releases the notice also answers the
 * peek, and the notice still comes first. */
static void test_order_peek_data_criterion(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t l, id;
    uint32_t n;
    uint8_t *hdr;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_DATA;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 0, &id));
    hdr = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, hdr, 4, OFL_DT_F_PEEK, 0, 1));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    rx(r, id, "abcdef", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_poll(r, 2));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 2);
    CHECK(find(n, OFL_DT_RSP_CONN_ARRIVAL, id) <
          find(n, OFL_DT_RSP_BUF_RECV, id));
    CHECK(rsp[1].tag == 1 && rsp[1].len == 4 && memcmp(hdr, "abcd", 4) == 0);
    rig_done(r);
}

/* A state report round skips a connection whose notice is pending; its
 * first report follows the notice. */
static void test_order_report_waits(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t a, l, b;
    uint32_t n;

    ofl_dt_config_default(&c);
    c.report_period = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    a = dt_rig_connect(r, 1, 0); /* notified at once */
    l = dt_rig_listen(r, 80, 0);
    CHECK(a != 0 && l != 0);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 5;
    c.cn_max_delay = 300;
    CHECK_OK(ofl_dt_configure(&r->dt, &c));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 10, &b));
    rx(r, b, "xyz", 11);
    CHECK_OK(dt_rig_poll(r, 100));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ATTR &&
          (rsp[0].flags & OFL_DT_F_REPORT) && rsp[0].conn == a);
    CHECK_EQ(find(n, OFL_DT_RSP_CONN_ATTR, b), n);
    CHECK_EQ(r->dt.report_next, 0); /* the round is over, not stalled */
    /* The notice, and in the next round b's report after it. */
    CHECK_OK(dt_rig_poll(r, 310));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 3);
    CHECK_EQ(find(n, OFL_DT_RSP_CONN_ARRIVAL, b), 0);
    CHECK(find(n, OFL_DT_RSP_CONN_ATTR, a) < n);
    CHECK_EQ(find(n, OFL_DT_RSP_CONN_ATTR, b), 2);
    CHECK(rsp[2].flags & OFL_DT_F_REPORT);
    CHECK(rsp[2].number == OFL_DT_CONN_ESTABLISHED && rsp[2].aux == 3);
    rig_done(r);
}

/* Posts n cancellations of nothing: their answers, left unread, take
 * n output slots. */
static void cancel_answers(struct dt_rig *r, uint32_t n)
{
    struct ofl_dt_desc d;
    uint32_t i;

    for (i = 0; i < n; i++) {
        memset(&d, 0, sizeof(d));
        d.type = OFL_DT_REQ_CANCEL;
        d.aux = 1000 + i;
        CHECK_OK(dt_rig_post(r, &d));
    }
}

/* A listener l with two members a and b (arrivals reported), a with a
 * notification delay of 50; a 10-byte shared buffer (tag 5) holding a's
 * "aaa", unreported at time 1. */
static void shared_start(struct dt_rig *r, uint64_t *l, uint64_t *a,
                         uint64_t *b, uint8_t **buf)
{
    *l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, *l, addr0, 1, 0, a));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, *l, addr0, 2, 0, b));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    notify_time(r, *a, 50, 0);
    *buf = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, *l, *buf, 10, 0, 0, 5));
    rx(r, *a, "aaa", 1);
    CHECK_OK(dt_rig_poll(r, 1));
}

/* Two members of a group fill one shared buffer, a with a long
 * notification delay: b's FINAL range returns the buffer, so a's range
 * in it is reported first, before its delay. Nothing is reported twice. */
static void test_order_shared_final(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t l, a, b;
    uint8_t *buf;

    CHECK(r != NULL);
    shared_start(r, &l, &a, &b, &buf);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* a's delay holds it */
    rx(r, b, "bbbbbbb", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].conn == a && rsp[0].tag == 5 && rsp[0].aux == 0 &&
          rsp[0].len == 3 && !(rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(rsp[1].conn == b && rsp[1].aux == 3 && rsp[1].len == 7 &&
          (rsp[1].flags & OFL_DT_F_FINAL));
    CHECK(memcmp(buf, "aaabbbbbbb", 10) == 0);
    CHECK_OK(dt_rig_poll(r, 60));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    /* Normal case: a's next range, in its own time. */
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 0, 6));
    rx(r, a, "AA", 61);
    CHECK_OK(dt_rig_poll(r, 61));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 111));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == a && rsp[0].tag == 6 && rsp[0].len == 2);
    rig_done(r);
}

/* The same when the other member's arrival notice is still pending: the
 * notice is forced out before its criterion, then its range, then the
 * FINAL range. */
static void test_order_shared_notice(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t l, a, b;
    uint8_t *buf;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_TIME;
    c.cn_time = 10;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 2, 0, &b));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == b);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 11, &a));
    buf = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 0, 5));
    rx(r, a, "aaa", 12);
    CHECK_OK(dt_rig_poll(r, 12));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    rx(r, b, "bbbbbbb", 13);
    CHECK_OK(dt_rig_poll(r, 13)); /* a's criterion holds only at 21 */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == a &&
          rsp[0].base == l);
    CHECK(rsp[1].type == OFL_DT_RSP_BUF_RECV && rsp[1].conn == a &&
          rsp[1].aux == 0 && rsp[1].len == 3 &&
          !(rsp[1].flags & OFL_DT_F_FINAL));
    CHECK(rsp[2].conn == b && rsp[2].aux == 3 && rsp[2].len == 7 &&
          (rsp[2].flags & OFL_DT_F_FINAL));
    CHECK_EQ(r->dt.cn_pending, 0);
    CHECK_OK(dt_rig_poll(r, 21));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    rig_done(r);
}

/* The FINAL range needs room for the ranges it waits for: without it,
 * nothing of the three goes out; with it, all in order. */
static void test_order_shared_room(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 4);
    uint64_t l, a, b;
    uint8_t *buf;

    CHECK(r != NULL);
    shared_start(r, &l, &a, &b, &buf);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    /* Three of four output slots taken by unread cancellation answers. */
    cancel_answers(r, 3);
    CHECK_OK(dt_rig_poll(r, 1));
    rx(r, b, "bbbbbbb", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK(r->conn[(uint32_t)a - 1].note.open);
    CHECK(r->conn[(uint32_t)b - 1].note.open);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].conn == a && rsp[0].len == 3);
    CHECK(rsp[1].conn == b && (rsp[1].flags & OFL_DT_F_FINAL));
    rig_done(r);
}

/* The one receive response of conn with tag and offset in rsp[0 .. n)
 * (n when there is none or more than one). */
static uint32_t find_range(uint32_t n, uint64_t conn, uint32_t tag,
                           uint32_t off)
{
    uint32_t i, at = n, hits = 0;

    for (i = 0; i < n; i++) {
        if (rsp[i].type == OFL_DT_RSP_BUF_RECV && rsp[i].conn == conn &&
            rsp[i].tag == tag && rsp[i].aux == off) {
            at = i;
            hits++;
        }
    }
    return hits == 1 ? at : n;
}

/*
 * Two shared buffers at one base (tags 5 and 7: the host may post the same
 * memory twice). a's range stays open in buffer 5 while b fills it and c
 * starts buffer 7 up to a's end offset: a's next bytes go into buffer 7
 * and a new range, not onto a's range in buffer 5 (which would name
 * buffer 5 for bytes that are in buffer 7 and return buffer 5 twice).
 */
static void test_order_shared_same_base(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 4);
    struct ofl_dt_desc all[16];
    uint64_t l, a, b, c;
    uint32_t i, n = 0, k;
    uint8_t *buf;

    CHECK(r != NULL);
    shared_start(r, &l, &a, &b, &buf);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 3, 1, &c));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 0, 7));
    /* Three of four output slots taken: b's FINAL range (two responses
     * with a's) cannot go out, so a's range stays open. */
    cancel_answers(r, 3);
    CHECK_OK(dt_rig_poll(r, 2));
    rx(r, b, "bbbbbbb", 3);
    CHECK_OK(dt_rig_poll(r, 3));
    rx(r, c, "ccc", 4);
    CHECK_OK(dt_rig_poll(r, 4));
    rx(r, a, "AA", 5);
    CHECK_OK(dt_rig_poll(r, 5));
    for (k = 0; k < 8; k++) {
        n += dt_rig_take(r, all + n, 16 - n);
        CHECK_OK(dt_rig_poll(r, 100 + k * 100));
    }
    n += dt_rig_take(r, all + n, 16 - n);
    CHECK_EQ(n, 7); /* 3 cancellations, 4 ranges */
    memcpy(rsp, all, n * sizeof(all[0]));
    i = find_range(n, a, 5, 0);
    CHECK(i < n && rsp[i].len == 3 && !(rsp[i].flags & OFL_DT_F_FINAL));
    i = find_range(n, b, 5, 3);
    CHECK(i < n && rsp[i].len == 7 && (rsp[i].flags & OFL_DT_F_FINAL));
    i = find_range(n, c, 7, 0);
    CHECK(i < n && rsp[i].len == 3);
    i = find_range(n, a, 7, 3);
    CHECK(i < n && rsp[i].len == 2);
    CHECK(memcmp(buf, "cccAAbbbbb", 10) == 0);
    rig_done(r);
}

/* A listener closes (termination, then cancellation) while members'
 * ranges in its shared buffer are unreported - one behind its delay, one
 * behind its pending notice: they are reported (the notice first) before
 * the buffer comes back FLUSHED. */
static void test_order_listener_close(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t l, a, k;
    uint8_t *buf;
    uint32_t n;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_TIME;
    c.cn_time = 10;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 0, &a));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    notify_time(r, a, 50, 10);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 2, 11, &k));
    buf = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, buf, 16, 0, 0, 5));
    rx(r, a, "aaa", 12);
    CHECK_OK(dt_rig_poll(r, 12));
    rx(r, k, "kk", 13);
    CHECK_OK(dt_rig_poll(r, 13));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = l;
    d.tag = 77;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 14));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 5);
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_RECV && rsp[0].conn == a &&
          rsp[0].status == OFL_DT_ST_OK && rsp[0].aux == 0 &&
          rsp[0].len == 3);
    CHECK(rsp[1].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[1].conn == k);
    CHECK(rsp[2].type == OFL_DT_RSP_BUF_RECV && rsp[2].conn == k &&
          rsp[2].aux == 3 && rsp[2].len == 2);
    CHECK(rsp[3].type == OFL_DT_RSP_BUF_RECV && rsp[3].conn == l &&
          rsp[3].status == OFL_DT_ST_FLUSHED && rsp[3].aux == 5 &&
          (rsp[3].flags & OFL_DT_F_FINAL));
    CHECK(rsp[4].type == OFL_DT_RSP_TERMINATE && rsp[4].tag == 77);
    CHECK(memcmp(buf, "aaakk", 5) == 0);
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);

    /* Cancellation of a listener by its tag: the same order. */
    l = dt_rig_listen(r, 81, 200);
    CHECK(l != 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 3, 200, &a));
    CHECK_OK(dt_rig_poll(r, 210));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    notify_time(r, a, 50, 210);
    CHECK_OK(dt_rig_avail(r, l, buf, 16, 0, 0, 6));
    rx(r, a, "zz", 211);
    CHECK_OK(dt_rig_poll(r, 211));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_CANCEL;
    d.conn = l;
    d.tag = 78;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 212));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 3);
    CHECK(rsp[0].conn == a && rsp[0].len == 2 && rsp[0].tag == 6);
    CHECK(rsp[1].conn == l && rsp[1].status == OFL_DT_ST_CANCELLED &&
          rsp[1].aux == 2);
    CHECK(rsp[2].type == OFL_DT_RSP_CANCEL && rsp[2].tag == 78);
    rig_done(r);
}

/* A listener closes while a member's FINAL range (held by its pending
 * notice) and another member's earlier range in the same buffer are both
 * unreported; the FINAL one has the lower entry index. The earlier range
 * still goes first. */
static void test_order_listener_close_final(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t l, x, a, b;
    uint8_t *buf;
    uint32_t n;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_TIME;
    c.cn_time = 10;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 1, 0, &x));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 2, 0, &a));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, x, 10)); /* frees the lower entry */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    notify_time(r, a, 50, 10);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr0, 3, 11, &b));
    CHECK((uint32_t)b < (uint32_t)a);
    buf = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 0, 5));
    rx(r, a, "aaa", 12);
    CHECK_OK(dt_rig_poll(r, 12));
    rx(r, b, "bbbbbbb", 13);
    CHECK_OK(dt_rig_poll(r, 13));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK(r->conn[(uint32_t)b - 1].note.final);
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = l;
    d.tag = 77;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 14));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 4);
    CHECK(rsp[0].conn == a && rsp[0].aux == 0 && rsp[0].len == 3 &&
          !(rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(rsp[1].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[1].conn == b);
    CHECK(rsp[2].conn == b && rsp[2].aux == 3 && rsp[2].len == 7 &&
          (rsp[2].flags & OFL_DT_F_FINAL));
    CHECK(rsp[3].type == OFL_DT_RSP_TERMINATE && rsp[3].tag == 77);
    CHECK_EQ(r->dt.cn_pending, 0);
    rig_done(r);
}

OFL_SUITE(dt_order)
{
    test_order_peek_waits();
    test_order_peek_data_criterion();
    test_order_report_waits();
    test_order_shared_final();
    test_order_shared_notice();
    test_order_shared_room();
    test_order_shared_same_base();
    test_order_listener_close();
    test_order_listener_close_final();
}
