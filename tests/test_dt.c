/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* dt: descriptor tables, connections, transfers (seed 003). */
#include "test.h"
#include "support/dt_rig.h"

#define NRSP 64

static struct ofl_dt_desc rsp[NRSP];

/* Every test ends with a clean guard: nothing outside the tables and the
 * arena was touched, and the host never saw a malformed response. */
static void rig_done(struct dt_rig *r)
{
    CHECK_EQ(r->sim.violations, 0);
    CHECK_EQ(r->host.bad, 0);
    dt_rig_free(r);
}

static struct ofl_dt_desc mk(uint8_t type)
{
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    d.type = type;
    return d;
}

/* ---- codec ------------------------------------------------------------------ */

/* A valid descriptor of every type, with every field the type uses set. */
static struct ofl_dt_desc sample(uint8_t type)
{
    struct ofl_dt_desc d = mk(type);

    d.tag = 0xA1B2C3D4u;
    switch (type) {
    case OFL_DT_REQ_BUF_SEND:
        d.flags = OFL_DT_F_ASAP | OFL_DT_F_MODIFY;
        d.base = 0x1122334455667788ull;
        d.len = 0x01020304u;
        d.conn = 0x0000000500000002ull;
        break;
    case OFL_DT_REQ_BUF_AVAIL:
        d.base = 0x1000;
        d.len = 512;
        d.conn = 9;
        d.aux = 17;
        break;
    case OFL_DT_REQ_CONNECT:
    case OFL_DT_REQ_LISTEN:
    case OFL_DT_REQ_ADAPTER_ATTR:
        d.number = 3;
        d.base = 0x2000;
        d.len = 64;
        break;
    case OFL_DT_REQ_TERMINATE:
        d.conn = 0x100000001ull;
        break;
    case OFL_DT_REQ_CANCEL:
        d.aux = 77;
        break;
    case OFL_DT_REQ_CONN_ATTR:
        d.number = 2;
        d.base = 0x3000;
        d.len = 12;
        d.conn = 4;
        break;
    case OFL_DT_RSP_BUF_RECV:
        d.flags = OFL_DT_F_FINAL;
        d.number = 3;
        d.base = 0x4000;
        d.len = 100;
        d.conn = 4;
        d.aux = 28;
        break;
    case OFL_DT_RSP_BUF_AVAIL:
        d.number = 2;
        d.base = 0x5000;
        d.len = 200;
        d.conn = 4;
        break;
    case OFL_DT_RSP_CONN_ARRIVAL:
        d.conn = 0x200000003ull;
        d.base = 0x100000001ull;
        break;
    case OFL_DT_RSP_CONN_COMPLETE:
        d.conn = 5;
        d.aux = 2;
        d.status = OFL_DT_ST_TIMEOUT;
        break;
    case OFL_DT_RSP_LISTEN:
        d.conn = 6;
        break;
    case OFL_DT_RSP_TERMINATE:
        d.conn = 6;
        break;
    case OFL_DT_RSP_CANCEL:
        d.number = 4;
        d.aux = 77;
        break;
    case OFL_DT_RSP_CONN_ATTR:
        d.flags = OFL_DT_F_REPORT;
        d.number = OFL_DT_CONN_ESTABLISHED;
        d.base = ~0ull; /* a counter, not a range */
        d.len = 9;
        d.conn = 4;
        d.aux = 1234;
        break;
    case OFL_DT_RSP_ADAPTER_ATTR:
        d.number = 1;
        d.base = 0x6000;
        d.len = 10;
        d.status = OFL_DT_ST_BAD_TUPLE;
        break;
    default:
        break;
    }
    return d;
}

static const uint8_t all_types[] = {
    OFL_DT_REQ_BUF_SEND,      OFL_DT_REQ_BUF_AVAIL,     OFL_DT_REQ_CONNECT,
    OFL_DT_REQ_LISTEN,        OFL_DT_REQ_TERMINATE,     OFL_DT_REQ_CANCEL,
    OFL_DT_REQ_CONN_ATTR,     OFL_DT_REQ_ADAPTER_ATTR,  OFL_DT_RSP_BUF_RECV,
    OFL_DT_RSP_BUF_AVAIL,     OFL_DT_RSP_CONN_ARRIVAL,  OFL_DT_RSP_CONN_COMPLETE,
    OFL_DT_RSP_LISTEN,        OFL_DT_RSP_TERMINATE,     OFL_DT_RSP_CANCEL,
    OFL_DT_RSP_CONN_ATTR,     OFL_DT_RSP_ADAPTER_ATTR};

static void test_codec_roundtrip(void)
{
    size_t i;
    uint8_t b[32];
    struct ofl_dt_desc d, e;

    for (i = 0; i < sizeof(all_types); i++) {
        d = sample(all_types[i]);
        memset(b, 0xEE, sizeof(b));
        CHECK_OK(ofl_dt_desc_encode(&d, b, sizeof(b)));
        CHECK_EQ(b[0] & OFL_DT_OWNER, 0);
        CHECK_EQ(b[0] >> 2, all_types[i]);
        CHECK_OK(ofl_dt_desc_decode(b, sizeof(b), &e));
        CHECK(memcmp(&d, &e, sizeof(d)) == 0);
        /* The owner bit is ring state, not content. */
        b[0] |= OFL_DT_OWNER;
        CHECK_OK(ofl_dt_desc_decode(b, sizeof(b), &e));
        CHECK_EQ(e.type, all_types[i]);
        CHECK_EQ(ofl_dt_is_request(all_types[i]), all_types[i] < 0x10);
        CHECK_EQ(ofl_dt_is_response(all_types[i]), all_types[i] > 0x10);
    }
    CHECK_EQ(ofl_dt_response_to(OFL_DT_REQ_CONNECT), OFL_DT_RSP_CONN_COMPLETE);
    CHECK_EQ(ofl_dt_response_to(OFL_DT_REQ_BUF_SEND), OFL_DT_RSP_BUF_AVAIL);
    CHECK_EQ(ofl_dt_response_to(OFL_DT_RSP_LISTEN), 0);
}

/* The byte layout table of offload.h, checked field by field. */
static void test_codec_layout(void)
{
    struct ofl_dt_desc d = sample(OFL_DT_REQ_BUF_SEND);
    uint8_t b[32];
    static const uint8_t want[32] = {
        0x01 << 2, 0x03, 0x00, 0x00, 0xA1, 0xB2, 0xC3, 0xD4,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
        0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x05,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00};

    CHECK_OK(ofl_dt_desc_encode(&d, b, sizeof(b)));
    CHECK(memcmp(b, want, 32) == 0);
    d = sample(OFL_DT_RSP_BUF_RECV);
    CHECK_OK(ofl_dt_desc_encode(&d, b, sizeof(b)));
    CHECK_EQ(b[0], 0x11 << 2);
    CHECK_EQ(b[1], OFL_DT_F_FINAL);
    CHECK_EQ(b[3], 3);
    CHECK_EQ(ofl_load_be32(b + 28), 28);
}

static void test_codec_errors(void)
{
    uint8_t b[32], g[32];
    struct ofl_dt_desc d, e;

    d = sample(OFL_DT_REQ_BUF_SEND);
    CHECK_OK(ofl_dt_desc_encode(&d, g, sizeof(g)));
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 31), OFL_E_SIZE);
    CHECK_ERR(ofl_dt_desc_decode(g, 31, &e), OFL_E_TRUNCATED);
    CHECK_ERR(ofl_dt_desc_decode(NULL, 32, &e), OFL_E_ARG);
    CHECK_ERR(ofl_dt_desc_encode(NULL, b, 32), OFL_E_ARG);
    /* Reserved bits of byte 0. */
    memcpy(b, g, 32);
    b[0] |= 0x01;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_RESERVED);
    memcpy(b, g, 32);
    b[0] |= 0x02;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_RESERVED);
    /* Type 0, unassigned types. */
    memcpy(b, g, 32);
    b[0] = 0;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    b[0] = 0x09 << 2;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    b[0] = 0x10 << 2;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    b[0] = 0x1A << 2;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    b[0] = (uint8_t)(0x1F << 2);
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    d = mk(0x20);
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_TYPE);
    /* Flags not defined for the type. */
    d = sample(OFL_DT_REQ_BUF_AVAIL);
    d.flags = OFL_DT_F_ASAP;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FLAGS);
    memcpy(b, g, 32);
    b[1] = OFL_DT_F_FINAL;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_FLAGS);
    /* Unused fields must be zero. */
    memcpy(b, g, 32);
    b[3] = 1; /* number in a buffer send */
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_RESERVED);
    memcpy(b, g, 32);
    b[2] = 1; /* status in a request */
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_RESERVED);
    memcpy(b, g, 32);
    b[31] = 1; /* aux in a buffer send */
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_RESERVED);
    d = sample(OFL_DT_REQ_TERMINATE);
    d.len = 1;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_RESERVED);
    d = sample(OFL_DT_REQ_CONNECT);
    d.conn = 1;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_RESERVED);
    d = sample(OFL_DT_REQ_CANCEL);
    d.base = 1;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_RESERVED);
    /* Required fields. */
    memcpy(b, g, 32);
    memset(b + 16, 0, 4); /* len 0 */
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_FIELD);
    memcpy(b, g, 32);
    memset(b + 20, 0, 8); /* conn 0 */
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_FIELD);
    d = sample(OFL_DT_REQ_CONNECT);
    d.number = 0;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d = sample(OFL_DT_RSP_CONN_ARRIVAL);
    d.base = 0;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d.status = OFL_DT_ST_FAILED; /* a refusal may leave them out */
    d.conn = 0;
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    /* Status range. */
    d = sample(OFL_DT_RSP_LISTEN);
    d.status = OFL_DT_ST_MAX + 1;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d.status = OFL_DT_ST_MAX;
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    /* base + len wrapping 2^64. */
    d = sample(OFL_DT_REQ_BUF_SEND);
    d.base = ~0ull - 10;
    d.len = 12;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d.len = 11; /* ends exactly at 2^64 - 1 */
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    /* a buffer receive response's data, base + aux + len, too */
    d = sample(OFL_DT_RSP_BUF_RECV);
    d.base = ~0ull - 100;
    d.aux = 90;
    d.len = 12;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d.len = 11; /* its last byte at 2^64 - 1 */
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    d.aux = 101; /* base + aux past 2^64 alone */
    d.len = 1;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    d.aux = 100;
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    /* Peek needs a connection and no skip; a peek response is final. */
    d = sample(OFL_DT_REQ_BUF_AVAIL);
    d.flags = OFL_DT_F_PEEK;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FLAGS);
    d.aux = 0;
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    d.conn = 0;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FLAGS);
    d = sample(OFL_DT_RSP_BUF_RECV);
    d.flags = OFL_DT_F_PEEK;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FLAGS);
    d.flags = OFL_DT_F_PEEK | OFL_DT_F_FINAL;
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    /* A report's base is a counter: no wrap check; without REPORT it is. */
    d = sample(OFL_DT_RSP_CONN_ATTR);
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    d.flags = 0;
    CHECK_ERR(ofl_dt_desc_encode(&d, b, 32), OFL_E_DT_BAD_FIELD);
    /* *d untouched on error. */
    memset(&e, 0x5A, sizeof(e));
    b[0] = 0;
    CHECK_ERR(ofl_dt_desc_decode(b, 32, &e), OFL_E_DT_BAD_TYPE);
    CHECK_EQ(e.type, 0x5A);
}

static void test_tuples(void)
{
    uint8_t b[64], v[4] = {1, 2, 3, 4};
    size_t off = 0, o2;
    struct ofl_dt_tuple t;

    CHECK_OK(ofl_dt_tuple_put(b, sizeof(b), &off, true, 0x1234, v, 4));
    CHECK_OK(ofl_dt_tuple_put(b, sizeof(b), &off, false, 0x7FFF, NULL, 8));
    CHECK_EQ(off, 6 + 4 + 6 + 8);
    CHECK_EQ(ofl_load_be16(b), 0x8000 | 0x1234);
    CHECK_EQ(ofl_load_be32(b + 2), 4);
    CHECK_EQ(ofl_load_be16(b + 10), 0x7FFF);
    o2 = 0;
    CHECK_OK(ofl_dt_tuple_next(b, off, &o2, &t));
    CHECK(t.set && t.attr == 0x1234 && t.len == 4 && t.value_off == 6 &&
          t.value[3] == 4);
    CHECK_OK(ofl_dt_tuple_next(b, off, &o2, &t));
    CHECK(!t.set && t.attr == 0x7FFF && t.len == 8);
    CHECK_EQ(o2, off);
    CHECK_OK(ofl_dt_tuples_check(b, off, 2));
    CHECK_ERR(ofl_dt_tuples_check(b, off, 1), OFL_E_DT_TUPLE_COUNT);
    CHECK_ERR(ofl_dt_tuples_check(b, off, 3), OFL_E_DT_TUPLE_TRUNCATED);
    CHECK_ERR(ofl_dt_tuples_check(b, off + 1, 2), OFL_E_DT_TUPLE_COUNT);
    CHECK_OK(ofl_dt_tuples_check(NULL, 0, 0));
    CHECK_ERR(ofl_dt_tuples_check(NULL, 0, 1), OFL_E_DT_TUPLE_TRUNCATED);
    /* Truncated header, truncated value. */
    o2 = 0;
    CHECK_ERR(ofl_dt_tuple_next(b, 5, &o2, &t), OFL_E_DT_TUPLE_TRUNCATED);
    CHECK_ERR(ofl_dt_tuple_next(b, 9, &o2, &t), OFL_E_DT_TUPLE_TRUNCATED);
    CHECK_EQ(o2, 0);
    CHECK_OK(ofl_dt_tuple_next(b, 10, &o2, &t));
    /* A value length that would wrap size_t arithmetic. */
    ofl_store_be32(b + 2, 0xFFFFFFFFu);
    o2 = 0;
    CHECK_ERR(ofl_dt_tuple_next(b, off, &o2, &t), OFL_E_DT_TUPLE_TRUNCATED);
    /* Attribute 0. */
    memset(b, 0, 6);
    o2 = 0;
    CHECK_ERR(ofl_dt_tuple_next(b, 6, &o2, &t), OFL_E_DT_ATTR_UNKNOWN);
    /* Encoder limits. */
    off = 60;
    CHECK_ERR(ofl_dt_tuple_put(b, sizeof(b), &off, true, 1, v, 4), OFL_E_SIZE);
    off = 0;
    CHECK_ERR(ofl_dt_tuple_put(b, sizeof(b), &off, true, 0, v, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, sizeof(b), &off, true, 0x8000, v, 4),
              OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, sizeof(b), &off, true, 1, NULL, 4), OFL_E_ARG);
    CHECK_EQ(ofl_dt_attr_size(OFL_DT_ATTR_CN_TIME), 8);
    CHECK_EQ(ofl_dt_attr_size(OFL_DT_ATTR_PRIORITY), 4);
    CHECK_EQ(ofl_dt_attr_size(OFL_DT_ATTR_REMOTE), 18);
    CHECK_EQ(ofl_dt_attr_size(OFL_DT_ATTR_CN_PATTERN), 17);
    CHECK_EQ(ofl_dt_attr_size(0x7777), 0);
}

/* ---- host side -------------------------------------------------------------- */

static void test_host_ring(void)
{
    _Alignas(64) static uint8_t in[4 * 32], out[4 * 32];
    struct ofl_dt_host h;
    static struct ofl_sim sim;
    struct ofl_dt_desc d = sample(OFL_DT_REQ_CANCEL), e[4];
    uint32_t n, i;

    ofl_sim_init(&sim);
    CHECK_ERR(ofl_dt_host_init(&h, in + 1, 4, out, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, in, 3, out, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, in, 4, out, 1, NULL), OFL_E_ARG);
    memset(in, 0xFF, sizeof(in));
    CHECK_OK(ofl_dt_host_init(&h, in, 4, out, 4, &sim.port));
    CHECK_EQ(in[0], 0); /* cleared: every slot free */
    /* Only requests go into the input table. */
    e[0] = sample(OFL_DT_RSP_LISTEN);
    CHECK_ERR(ofl_dt_host_post(&h, &e[0]), OFL_E_DT_BAD_TYPE);
    e[0] = sample(OFL_DT_REQ_BUF_SEND);
    e[0].len = 0;
    CHECK_ERR(ofl_dt_host_post(&h, &e[0]), OFL_E_DT_BAD_FIELD);
    for (i = 0; i < 4; i++)
        CHECK_OK(ofl_dt_host_post(&h, &d));
    CHECK_ERR(ofl_dt_host_post(&h, &d), OFL_E_DT_FULL);
    CHECK_EQ(in[0], OFL_DT_OWNER | (OFL_DT_REQ_CANCEL << 2));
    /* The adapter frees slot 0 and 1: two more fit, a batch of 3 does not. */
    in[0] = 0;
    in[32] = 0;
    e[0] = e[1] = e[2] = d;
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_FULL);
    CHECK_EQ(h.in_tail, 4);
    CHECK_OK(ofl_dt_host_post_batch(&h, e, 2));
    CHECK_EQ(h.in_tail, 6);
    /* Output: empty, then two responses and a malformed one. */
    CHECK_ERR(ofl_dt_host_poll(&h, &e[0]), OFL_E_DT_EMPTY);
    e[3] = sample(OFL_DT_RSP_TERMINATE);
    CHECK_OK(ofl_dt_desc_encode(&e[3], out, 32));
    CHECK_OK(ofl_dt_desc_encode(&e[3], out + 32, 32));
    e[3] = sample(OFL_DT_REQ_TERMINATE); /* a request in the output table */
    CHECK_OK(ofl_dt_desc_encode(&e[3], out + 64, 32));
    out[0] |= OFL_DT_OWNER;
    out[32] |= OFL_DT_OWNER;
    out[64] |= OFL_DT_OWNER;
    CHECK_OK(ofl_dt_host_poll(&h, &e[0]));
    CHECK_EQ(e[0].type, OFL_DT_RSP_TERMINATE);
    CHECK_EQ(out[0], 0); /* slot returned */
    CHECK_ERR(ofl_dt_host_poll_batch(&h, e, 4, &n), OFL_E_DT_BAD_TYPE);
    CHECK_EQ(n, 2); /* both consumed, the bad one too */
    CHECK_EQ(e[0].type, OFL_DT_RSP_TERMINATE);
    CHECK_EQ(e[1].type, 0);
    CHECK_EQ(h.bad, 1);
    CHECK_EQ(h.out_head, 3);
    CHECK_ERR(ofl_dt_host_poll_batch(&h, e, 4, &n), OFL_E_DT_EMPTY);
    /* Doorbells with the counters. */
    CHECK_OK(ofl_dt_host_kick(&h));
    CHECK_EQ(sim.nevents, 2);
    CHECK(sim.event[0].kind == OFL_SIM_EV_DOORBELL &&
          sim.event[0].a == OFL_DT_DB_IN_TAIL && sim.event[0].b == 6);
    CHECK(sim.event[1].a == OFL_DT_DB_OUT_HEAD && sim.event[1].b == 3);
    CHECK_ERR(ofl_dt_host_kick(NULL), OFL_E_ARG);
}

/* Batches that run over the end of a table: a post lands in the last
 * slot and then from the first, all or nothing when a slot of either run
 * is full; a poll reads on from the first slot and stops at the first free
 * slot in either run, or at max. */
static void test_host_wrap(void)
{
    _Alignas(64) static uint8_t in[4 * 32], out[4 * 32];
    struct ofl_dt_host h;
    struct ofl_dt_desc d = sample(OFL_DT_REQ_BUF_SEND), e[4], got;
    uint8_t keep[32];
    uint32_t n, i;

    CHECK_OK(ofl_dt_host_init(&h, in, 4, out, 4, NULL));
    for (i = 0; i < 3; i++)
        CHECK_OK(ofl_dt_host_post(&h, &d));
    in[0] = in[32] = in[64] = 0; /* the adapter took slots 0 .. 2 */
    for (i = 0; i < 3; i++) {
        e[i] = d;
        e[i].tag = 100 + i;
    }
    CHECK_OK(ofl_dt_host_post_batch(&h, e, 3)); /* slots 3, 0, 1 */
    CHECK_EQ(h.in_tail, 6);
    for (i = 0; i < 3; i++) {
        uint8_t *s = in + ((3 + i) & 3) * 32;

        CHECK_EQ(s[0], OFL_DT_OWNER | (OFL_DT_REQ_BUF_SEND << 2));
        s[0] &= (uint8_t)~OFL_DT_OWNER;
        CHECK_OK(ofl_dt_desc_decode(s, 32, &got));
        s[0] |= OFL_DT_OWNER;
        CHECK(got.tag == 100 + i && got.base == d.base && got.len == d.len &&
              got.conn == d.conn && got.flags == d.flags);
    }
    CHECK_EQ(in[64], 0); /* slot 2 untouched */
    /* Slot 2 free, slot 3 full (first run): nothing is written. */
    memcpy(keep, in + 64, 32);
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 2), OFL_E_DT_FULL);
    /* Slots 2 and 3 free, slot 0 full (second run). */
    in[96] = 0;
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_FULL);
    CHECK(memcmp(keep, in + 64, 32) == 0);
    CHECK_EQ(in[96], 0);
    CHECK_EQ(h.in_tail, 6);
    /* A descriptor's error comes before its own slot's owner bit, a full
     * slot before a later descriptor's error. */
    e[2].type = OFL_DT_RSP_BUF_AVAIL;
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_BAD_TYPE);
    e[0].flags = OFL_DT_F_PEEK;
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_BAD_FLAGS);
    e[0] = d;
    e[1].len = 0;
    in[96] = OFL_DT_OWNER; /* e[1]'s own slot */
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_BAD_FIELD);
    in[64] = OFL_DT_OWNER; /* e[0]'s slot */
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 3), OFL_E_DT_FULL);
    in[64] = 0;
    CHECK(memcmp(keep, in + 64, 32) == 0);
    CHECK_EQ(h.in_tail, 6);

    /* Output: three responses in slots 0 .. 2 move the head to 3. */
    got = sample(OFL_DT_RSP_BUF_AVAIL);
    for (i = 0; i < 3; i++) {
        got.tag = 200 + i;
        CHECK_OK(ofl_dt_desc_encode(&got, out + i * 32, 32));
        out[i * 32] |= OFL_DT_OWNER;
    }
    CHECK_OK(ofl_dt_host_poll_batch(&h, e, 4, &n));
    CHECK(n == 3 && e[2].tag == 202 && h.out_head == 3);
    /* Slots 3, 0 and 1 full, 2 free: one batch reads the three and stops
     * at slot 2 (a free slot in the second run). */
    for (i = 0; i < 3; i++) {
        got.tag = 300 + i;
        CHECK_OK(ofl_dt_desc_encode(&got, out + ((3 + i) & 3) * 32, 32));
        out[((3 + i) & 3) * 32] |= OFL_DT_OWNER;
    }
    CHECK_OK(ofl_dt_host_poll_batch(&h, e, 4, &n));
    CHECK_EQ(n, 3);
    for (i = 0; i < 3; i++)
        CHECK(e[i].type == OFL_DT_RSP_BUF_AVAIL && e[i].tag == 300 + i &&
              e[i].base == got.base && e[i].len == got.len &&
              e[i].conn == got.conn && e[i].number == got.number);
    CHECK(out[96] == 0 && out[0] == 0 && out[32] == 0);
    CHECK_EQ(h.out_head, 6);
    /* Slot 2 full, slot 3 free: stops in the first run. */
    got.tag = 400;
    CHECK_OK(ofl_dt_desc_encode(&got, out + 64, 32));
    out[64] |= OFL_DT_OWNER;
    CHECK_OK(ofl_dt_desc_encode(&got, out, 32)); /* slot 0: beyond the stop */
    out[0] |= OFL_DT_OWNER;
    CHECK_OK(ofl_dt_host_poll_batch(&h, e, 4, &n));
    CHECK(n == 1 && e[0].tag == 400 && h.out_head == 7);
    CHECK_EQ(out[0], OFL_DT_OWNER | (OFL_DT_RSP_BUF_AVAIL << 2));
    /* Slots 3 and 0 full, max 1: stops at max. */
    CHECK_OK(ofl_dt_desc_encode(&got, out + 96, 32));
    out[96] |= OFL_DT_OWNER;
    CHECK_OK(ofl_dt_host_poll_batch(&h, e, 1, &n));
    CHECK(n == 1 && h.out_head == 8 && out[96] == 0);
    CHECK_EQ(out[0], OFL_DT_OWNER | (OFL_DT_RSP_BUF_AVAIL << 2));
    CHECK_OK(ofl_dt_host_poll(&h, &e[0]));
    CHECK_EQ(h.out_head, 9);
    CHECK_EQ(h.bad, 0);
}

/* ---- adapter: init and the input loop ------------------------------------- */

static void test_adapter_init(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt dt;
    struct ofl_dt_mem m;
    struct ofl_dt_config c;
    struct ofl_port p;

    CHECK(r != NULL);
    m = r->mem;
    CHECK_OK(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0));
    m.in_slots = 48;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.out_pa += 8;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.rx_size = 100;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.xfer_cap = 2000;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.host_lo = m.host_hi + 1;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.ctrl_cap = 63;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m = r->mem;
    m.cache_data = NULL;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    m.cache_slots = 0; /* no cache at all is fine */
    CHECK_OK(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0));
    m = r->mem;
    c = r->cfg;
    c.out_warn = 64;
    CHECK_ERR(ofl_dt_init(&dt, &m, &c, &r->sim.port, 0), OFL_E_ARG);
    c = r->cfg;
    c.cn_criteria = 0x10;
    CHECK_ERR(ofl_dt_config_check(&c, 64), OFL_E_ARG);
    c = r->cfg;
    c.conn.priority = 8;
    CHECK_ERR(ofl_dt_configure(&dt, &c), OFL_E_ARG);
    c = r->cfg;
    c.cn_pattern_len = 2;
    c.cn_pattern[5] = 1; /* bytes past the length must be 0 */
    CHECK_ERR(ofl_dt_config_check(&c, 64), OFL_E_ARG);
    c.cn_pattern[5] = 0;
    CHECK_OK(ofl_dt_configure(&dt, &c));
    p = r->sim.port;
    p.dma_write = NULL;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &p, 0), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, NULL, 0), OFL_E_ARG);
    rig_done(r);
}

static void test_process_loop(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_desc d;
    uint32_t n, i;

    CHECK(r != NULL);
    /* Nothing posted: nothing consumed. */
    CHECK_OK(ofl_dt_process(&r->dt, 0, 100, &n));
    CHECK_EQ(n, 0);
    /* Cancellations of nothing: each answered NOT_FOUND, in order; the
     * ring wraps (8 slots, 12 requests in two rounds). */
    for (i = 0; i < 6; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        d.aux = 1000 + i;
        d.tag = 50 + i;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(ofl_dt_process(&r->dt, 0, 4, &n)); /* max bounds it */
    CHECK_EQ(n, 4);
    CHECK_OK(ofl_dt_process(&r->dt, 0, 100, &n));
    CHECK_EQ(n, 2);
    CHECK_EQ(r->in_table[0] & OFL_DT_OWNER, 0); /* slots handed back */
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 6);
    for (i = 0; i < 6; i++) {
        CHECK_EQ(rsp[i].type, OFL_DT_RSP_CANCEL);
        CHECK_EQ(rsp[i].status, OFL_DT_ST_NOT_FOUND);
        CHECK_EQ(rsp[i].tag, 50 + i);
        CHECK_EQ(rsp[i].aux, 1000 + i);
    }
    for (i = 0; i < 6; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 6);
    CHECK_EQ(r->dt.in_head, 12);
    CHECK_EQ(r->dt.stats.requests, 12);
    rig_done(r);
}

/* Raw garbage in the input table: unknown types are consumed silently,
 * malformed known ones answered with BAD_DESC and their tag. */
static void test_process_malformed(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    uint8_t *s;

    CHECK(r != NULL);
    s = r->in_table;
    memset(s, 0, 4 * 32);
    s[0] = OFL_DT_OWNER | (0x0C << 2); /* unassigned type */
    s[32] = OFL_DT_OWNER | (OFL_DT_RSP_LISTEN << 2); /* a response */
    s[64] = OFL_DT_OWNER | (OFL_DT_REQ_BUF_SEND << 2); /* len 0, conn 0 */
    ofl_store_be32(s + 64 + 4, 0xCAFE);
    s[96] = OFL_DT_OWNER | (OFL_DT_REQ_TERMINATE << 2) | 1; /* reserved */
    ofl_store_be32(s + 96 + 4, 0xBEEF);
    r->host.in_tail = 4;
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(r->dt.in_head, 4);
    CHECK_EQ(r->dt.stats.bad_requests, 4);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK_EQ(rsp[0].type, OFL_DT_RSP_BUF_AVAIL);
    CHECK_EQ(rsp[0].status, OFL_DT_ST_BAD_DESC);
    CHECK_EQ(rsp[0].tag, 0xCAFE);
    CHECK_EQ(rsp[1].type, OFL_DT_RSP_TERMINATE);
    CHECK_EQ(rsp[1].status, OFL_DT_ST_BAD_DESC);
    CHECK_EQ(rsp[1].tag, 0xBEEF);
    CHECK_EQ((s[0] | s[32] | s[64] | s[96]) & OFL_DT_OWNER, 0);
    rig_done(r);
}

/* A port that cannot read leaves the table untouched. */
static void test_process_dma_failure(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_desc d = mk(OFL_DT_REQ_CANCEL);
    uint32_t n;

    CHECK(r != NULL);
    CHECK_OK(dt_rig_post(r, &d));
    r->sim.fail_dma_countdown = 1;
    CHECK_ERR(ofl_dt_process(&r->dt, 0, 10, &n), OFL_E_PORT_DMA);
    CHECK_EQ(n, 0);
    CHECK_EQ(r->dt.in_head, 0);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);
}

/* ---- connections ------------------------------------------------------------ */

static void test_listen(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint8_t t[128];
    size_t off;
    uint64_t l, id, id2;
    struct ofl_dt_conn_info info;
    uint32_t cursor = 0;
    uint8_t act;
    static const uint8_t addr[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF,
                                     10, 0, 0, 1};

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 1); /* the firmware took it and said OK */
    CHECK(l != 0);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act), OFL_E_DT_EMPTY);
    CHECK_OK(ofl_dt_conn_query(&r->dt, l, &info));
    CHECK(info.state == OFL_DT_CONN_LISTENING && info.lport == 80 &&
          info.proto == 6);
    /* Same port again: refused. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 9, NULL));
    /* No port: refused. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PROTOCOL, 17);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 10, NULL));
    /* A REMOTE in a listen, a get in a listen: refused. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 81);
    dt_tup_remote(t, &off, 1, 99);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 2, 11, NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 81);
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_PRIORITY, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 2, 12, NULL));
    /* UDP on 80 is another endpoint; with a backlog and a priority. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PROTOCOL, 17);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_BACKLOG, 2);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 5);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 4, 13, NULL));
    CHECK_OK(dt_rig_poll(r, 2));
    /* The refusals are answered at once (naming no connection); the good
     * listen waits for the firmware. */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 4);
    CHECK(rsp[0].tag == 9 && rsp[0].status == OFL_DT_ST_CONN_STATE &&
          rsp[0].type == OFL_DT_RSP_LISTEN && rsp[0].conn == 0);
    CHECK(rsp[1].tag == 10 && rsp[1].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[2].tag == 11 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 12 && rsp[3].status == OFL_DT_ST_BAD_TUPLE);
    cursor = 0;
    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(act == OFL_DT_ACT_LISTEN);
    CHECK_OK(ofl_dt_conn_query(&r->dt, id, &info));
    CHECK(info.state == OFL_DT_CONN_LISTEN_WAIT && info.lport == 80 &&
          info.proto == 17);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, id, addr, 5555, 3, &id2),
              OFL_E_DT_CONN_STATE); /* not listening yet */
    CHECK_OK(ofl_dt_listen_result(&r->dt, id, OFL_DT_ST_OK, 2));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp + 4, 1), 1);
    CHECK(rsp[4].tag == 13 && rsp[4].status == OFL_DT_ST_OK &&
          rsp[4].type == OFL_DT_RSP_LISTEN && rsp[4].conn == id);
    /* Arrivals inherit the listen's settings; the backlog holds at 2. */
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5555, 3, &id));
    CHECK_OK(ofl_dt_conn_query(&r->dt, id, &info));
    CHECK(info.state == OFL_DT_CONN_ESTABLISHED && info.priority == 5 &&
          info.proto == 17 && info.lport == 80 && info.rport == 5555 &&
          info.group == rsp[4].conn && info.raddr[12] == 10);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5556, 3, &id));
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5557, 3, &id),
              OFL_E_DT_NO_CONN);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, id, addr, 5557, 3, &id),
              OFL_E_DT_CONN_STATE);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, 12345, addr, 5557, 3, &id),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, rsp + 8, NRSP - 8), 2);
    CHECK(rsp[8].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[8].base == rsp[4].conn &&
          rsp[8].tag == 13);
    /* The backlog counts open arrivals: a closed one frees its place when
     * its entry is freed (here at once: the output has room for all it
     * owes); moving a member to another group does not move its place. */
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 5));
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, id, 5), OFL_E_DT_CONN_UNKNOWN);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5558, 6, &id2));
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5559, 6, &id),
              OFL_E_DT_NO_CONN);
    CHECK_OK(dt_rig_poll(r, 6));
    CHECK_EQ(dt_rig_take(r, rsp + 8, NRSP - 8), 2);
    CHECK(rsp[8].type == OFL_DT_RSP_TERMINATE && rsp[8].tag == 0);
    CHECK(rsp[9].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[9].conn == id2);
    off = 0;
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id2, t, (uint32_t)off, 1, 14,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 7));
    CHECK_EQ(dt_rig_take(r, rsp + 8, NRSP - 8), 1);
    CHECK(rsp[8].tag == 14 && rsp[8].status == OFL_DT_ST_OK);
    CHECK_OK(ofl_dt_conn_query(&r->dt, id2, &info));
    CHECK_EQ(info.group, 0);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id2, 7));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, rsp[4].conn, addr, 5560, 8, &id2));
    rig_done(r);
}

static void test_connect_bulk(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint8_t t[256];
    size_t off = 0;
    uint64_t ids[3], id;
    uint32_t cursor = 0, k = 0, i;
    uint8_t act;
    struct ofl_dt_conn_info info;

    CHECK(r != NULL);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 4000);
    dt_tup_remote(t, &off, 1, 80);
    dt_tup_remote(t, &off, 2, 81);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 3);
    dt_tup_remote(t, &off, 3, 82);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 5, 77,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* nothing until they connect */
    while (ofl_dt_next_action(&r->dt, &cursor, &id, &act) == OFL_OK && k < 3) {
        CHECK_EQ(act, OFL_DT_ACT_CONNECT);
        ids[k++] = id;
    }
    CHECK_EQ(k, 3);
    for (i = 0; i < 3; i++) {
        CHECK_OK(ofl_dt_conn_query(&r->dt, ids[i], &info));
        CHECK(info.state == OFL_DT_CONN_CONNECTING && info.rport == 80 + i &&
              info.lport == 4000 && info.priority == 3 && info.tag == 77 &&
              info.target == i && info.raddr[15] == i + 1);
    }
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[1], 11));
    CHECK_OK(ofl_dt_conn_failed(&r->dt, ids[2], OFL_DT_ST_FAILED, 11));
    CHECK_ERR(ofl_dt_conn_failed(&r->dt, ids[0], OFL_DT_ST_OK, 11), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_established(&r->dt, ids[1], 11), OFL_E_DT_CONN_STATE);
    CHECK_OK(dt_rig_poll(r, 12));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_COMPLETE && rsp[0].conn == ids[1] &&
          rsp[0].status == OFL_DT_ST_OK && rsp[0].aux == 1 && rsp[0].tag == 77);
    CHECK(rsp[1].conn == ids[2] && rsp[1].status == OFL_DT_ST_FAILED &&
          rsp[1].aux == 2);
    /* The failed entry is gone once reported. */
    CHECK_ERR(ofl_dt_conn_query(&r->dt, ids[2], &info), OFL_E_DT_CONN_UNKNOWN);
    CHECK_EQ(r->dt.conn_live, 2);
    rig_done(r);
}

static void test_connect_refusals(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint8_t t[1200];
    size_t off;
    uint32_t i;
    struct ofl_dt_desc d;

    CHECK(r != NULL);
    /* More targets than free entries: none opened. */
    off = 0;
    for (i = 0; i < DT_RIG_CONNS + 1; i++)
        dt_tup_remote(t, &off, (uint8_t)i, 80);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off,
                         DT_RIG_CONNS + 1, 1, NULL));
    /* No REMOTE. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 1, 2, NULL));
    /* Remote port 0, a BACKLOG, an adapter attribute, a wrong size. */
    off = 0;
    dt_tup_remote(t, &off, 1, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 1, 3, NULL));
    off = 0;
    dt_tup_remote(t, &off, 1, 1);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_BACKLOG, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 4, NULL));
    off = 0;
    dt_tup_remote(t, &off, 1, 1);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_CN_COUNT, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 5, NULL));
    off = 0;
    dt_tup_remote(t, &off, 1, 1);
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_PRIORITY, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 6, NULL));
    /* Tuple count disagrees with the buffer. */
    off = 0;
    dt_tup_remote(t, &off, 1, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 2, 7, NULL));
    /* Control buffer larger than the adapter's scratch. */
    d = mk(OFL_DT_REQ_CONNECT);
    d.base = dt_rig_pa(dt_rig_alloc(r, DT_RIG_CTRL + 1));
    d.len = DT_RIG_CTRL + 1;
    d.number = 1;
    d.tag = 8;
    CHECK_OK(dt_rig_post(r, &d));
    /* Control buffer outside the host range. */
    d.base = dt_rig_pa(r->ctrl);
    d.len = 24;
    d.tag = 9;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 9);
    CHECK(rsp[0].tag == 1 && rsp[0].status == OFL_DT_ST_NO_RESOURCE);
    for (i = 1; i < 7; i++)
        CHECK(rsp[i].tag == i + 1 && rsp[i].status == OFL_DT_ST_BAD_TUPLE &&
              rsp[i].type == OFL_DT_RSP_CONN_COMPLETE);
    CHECK(rsp[7].tag == 8 && rsp[7].status == OFL_DT_ST_TOO_LARGE);
    CHECK(rsp[8].tag == 9 && rsp[8].status == OFL_DT_ST_BAD_RANGE);
    CHECK_EQ(r->dt.conn_live, 0);
    /* A failing DMA of the control buffer. */
    off = 0;
    dt_tup_remote(t, &off, 1, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 1, 10,
                         NULL));
    r->sim.fail_dma_countdown = 2; /* the table read passes, then fails */
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 10 && rsp[0].status == OFL_DT_ST_DMA);
    rig_done(r);
}

/* Completion aggregation (FIG. 10): count, time, data, pattern, maximum. */
static struct dt_rig *cn_rig(uint32_t criteria, uint32_t count, uint64_t time,
                             uint64_t max)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.cn_criteria = criteria;
    c.cn_count = count;
    c.cn_time = time;
    c.cn_max_delay = max;
    c.irq_response = 7;
    memcpy(c.cn_pattern, "GET /a", 6);
    c.cn_pattern_len = 6;
    return dt_rig_new(&c, 0);
}

/* Opens n connections through one bulk request; ids in ids[]. */
static void open_n(struct dt_rig *r, uint32_t n, uint64_t *ids, uint64_t now)
{
    uint8_t t[512];
    size_t off = 0;
    uint32_t i, cursor = 0, k = 0;
    uint64_t id;
    uint8_t act;

    for (i = 0; i < n; i++)
        dt_tup_remote(t, &off, (uint8_t)i, (uint16_t)(1000 + i));
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off,
                         (uint8_t)n, 0, NULL));
    CHECK_OK(dt_rig_poll(r, now));
    while (k < n && ofl_dt_next_action(&r->dt, &cursor, &id, &act) == OFL_OK)
        if (act & OFL_DT_ACT_CONNECT)
            ids[k++] = id;
    CHECK_EQ(k, n);
}

static unsigned irqs(const struct dt_rig *r, uint32_t vector)
{
    unsigned i, n = 0;

    for (i = 0; i < r->sim.nevents; i++)
        n += r->sim.event[i].kind == OFL_SIM_EV_NOTIFY &&
             r->sim.event[i].a == vector;
    return n;
}

static void test_cn_count_time_max(void)
{
    struct dt_rig *r = cn_rig(OFL_DT_CN_COUNT, 3, 0, 0);
    uint64_t ids[4];

    CHECK(r != NULL);
    open_n(r, 4, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[1], 2));
    CHECK_OK(dt_rig_poll(r, 1000));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* 2 < 3, no time criterion */
    ofl_sim_reset_records(&r->sim);
    CHECK_OK(ofl_dt_conn_failed(&r->dt, ids[2], OFL_DT_ST_FAILED, 3));
    CHECK_OK(dt_rig_poll(r, 1001));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK_EQ(irqs(r, 7), 1); /* one batch, one interrupt */
    rig_done(r);

    r = cn_rig(OFL_DT_CN_TIME, 1, 50, 0);
    CHECK(r != NULL);
    open_n(r, 2, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 100));
    CHECK_OK(dt_rig_poll(r, 149));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[1], 149));
    CHECK_OK(dt_rig_poll(r, 150));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2); /* 50 since the first */
    rig_done(r);

    /* A count that is never reached: the maximum delay bounds the wait. */
    r = cn_rig(OFL_DT_CN_COUNT, 100, 0, 30);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 10));
    CHECK_OK(dt_rig_poll(r, 39));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 40));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);

    /* No criterion: at once. */
    r = cn_rig(0, 1, 0, 0);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 10));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);
}

/* Responses in rsp[0 .. n) for a connection other than id. */
static uint32_t others(uint32_t n, uint64_t id)
{
    uint32_t i, k = 0;

    for (i = 0; i < n; i++)
        k += rsp[i].conn != id;
    return k;
}

/*
 * A notice forced out early (its connection closed while it waited) no
 * longer dates the others (FIG. 10): each waits from when it became
 * pending. Closing a younger one leaves the age alone; closing the oldest
 * makes the oldest left the one it counts from.
 */
static void test_cn_time_after_early(void)
{
    static const uint64_t at[5] = {100, 130, 125, 120, 122};
    struct dt_rig *r = cn_rig(OFL_DT_CN_TIME, 1, 50, 0);
    uint64_t ids[5];
    uint32_t i, n;

    CHECK(r != NULL);
    open_n(r, 5, ids, 0);
    for (i = 0; i < 5; i++)
        CHECK_OK(ofl_dt_conn_established(&r->dt, ids[i], at[i]));
    CHECK_OK(ofl_dt_conn_closed(&r->dt, ids[1], 140));
    CHECK_OK(dt_rig_poll(r, 140));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK(n >= 1);
    CHECK_EQ(others(n, ids[1]), 0);
    CHECK_EQ(r->dt.cn_pending, 4);
    CHECK_EQ(r->dt.cn_t_first, 100);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, ids[0], 149));
    CHECK_OK(dt_rig_poll(r, 149));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK(n >= 1);
    CHECK_EQ(others(n, ids[0]), 0);
    CHECK_EQ(r->dt.cn_t_first, 120);
    CHECK_OK(dt_rig_poll(r, 150)); /* 50 after the first, 30 after 120 */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 169));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 170));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 3);
    for (i = 0; i < n; i++)
        CHECK_EQ(rsp[i].type, OFL_DT_RSP_CONN_COMPLETE);
    rig_done(r);
}

/* A rig whose notices wait for pattern pat (CN_PATTERN alone) and one
 * connection established at time 1; ids[0] receives its id. */
static struct dt_rig *pattern_rig(const char *pat, uint64_t *ids)
{
    struct ofl_dt_config c;
    struct dt_rig *r;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_PATTERN;
    c.cn_pattern_len = (uint8_t)strlen(pat);
    memcpy(c.cn_pattern, pat, c.cn_pattern_len);
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    return r;
}

static void test_cn_data_pattern(void)
{
    struct dt_rig *r = cn_rig(OFL_DT_CN_DATA, 1, 0, 0);
    uint64_t ids[2];
    uint8_t *buf;

    CHECK(r != NULL);
    open_n(r, 2, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[1], 1));
    buf = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, 0, buf, 64, 0, 0, 0)); /* a bulk buffer */
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(ofl_dt_rx(&r->dt, ids[1], (const uint8_t *)"hi", 2, 3));
    CHECK_OK(dt_rig_poll(r, 3));
    /* Both completions, then the data: never data before its completion. */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_COMPLETE &&
          rsp[1].type == OFL_DT_RSP_CONN_COMPLETE);
    CHECK(rsp[2].type == OFL_DT_RSP_BUF_RECV && rsp[2].conn == ids[1] &&
          rsp[2].len == 2 && memcmp(buf, "hi", 2) == 0);
    rig_done(r);

    r = cn_rig(OFL_DT_CN_PATTERN, 1, 0, 0);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    buf = dt_rig_alloc(r, 256);
    CHECK_OK(dt_rig_avail(r, 0, buf, 256, 0, 0, 0));
    /* "GET /a" split across segments after a false start "GET GET /": the
     * match falls back correctly. */
    CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"xxGET GET /", 11, 2));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* data alone is not enough */
    CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"a HTTP", 6, 3));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_COMPLETE &&
          rsp[1].type == OFL_DT_RSP_BUF_RECV);
    rig_done(r);

    /* A self-overlapping pattern: "aab" inside "aaab". */
    r = pattern_rig("aab", ids);
    CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"aa", 2, 2));
    CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"ab", 2, 2));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(rsp[0].type, OFL_DT_RSP_CONN_COMPLETE);
    rig_done(r);

    /* A pattern set anew is looked for in the bytes that follow: "abX"
     * under "XY", then the pattern "QB" and the byte "B" ("XB" is no
     * "QB"); then "QB" itself. Setting the same pattern again keeps a
     * partial match. */
    {
        struct ofl_dt_config c;
        uint8_t t[64], v[17] = {2, 'Q', 'B'};
        size_t off = 0;

        r = pattern_rig("XY", ids);
        c = r->dt.cfg;
        CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"abX", 3, 2));
        CHECK_OK(dt_rig_poll(r, 2));
        CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
        CHECK_OK(ofl_dt_tuple_put(t, sizeof(t), &off, true,
                                  OFL_DT_ATTR_CN_PATTERN, v, 17));
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off,
                             1, 0, NULL));
        CHECK_OK(dt_rig_poll(r, 3));
        CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1); /* the attribute answer */
        CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"BQ", 2, 4));
        CHECK_OK(dt_rig_poll(r, 4));
        CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
        c.cn_pattern[0] = 'Q';
        c.cn_pattern[1] = 'B'; /* the same pattern: "Q" stays matched */
        CHECK_OK(ofl_dt_configure(&r->dt, &c));
        CHECK_OK(ofl_dt_rx(&r->dt, ids[0], (const uint8_t *)"B", 1, 5));
        CHECK_OK(dt_rig_poll(r, 5));
        CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
        CHECK_EQ(rsp[0].type, OFL_DT_RSP_CONN_COMPLETE);
        rig_done(r);
    }
}

static void test_connect_timeout_cancel(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t ids[3];
    struct ofl_dt_desc d;
    uint32_t i, cancelled = 0, done = 0;

    ofl_dt_config_default(&c);
    c.connect_timeout = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(dt_rig_poll(r, 99));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].status == OFL_DT_ST_TIMEOUT && rsp[0].conn == ids[0]);
    /* The firmware's late success finds the entry gone. */
    CHECK_ERR(ofl_dt_conn_established(&r->dt, ids[0], 101),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_EQ(r->dt.conn_live, 0);

    /* The host's timeout (FIG. 9): cancel the bulk connect by its tag. */
    {
        uint8_t t[128];
        size_t off = 0;

        for (i = 0; i < 3; i++)
            dt_tup_remote(t, &off, (uint8_t)i, 80);
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 3, 500,
                             NULL));
    }
    CHECK_OK(dt_rig_poll(r, 200));
    d = mk(OFL_DT_REQ_CANCEL);
    d.aux = 500;
    d.tag = 501;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 210));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 4);
    for (i = 0; i < 4; i++) {
        if (rsp[i].type == OFL_DT_RSP_CONN_COMPLETE)
            cancelled += rsp[i].status == OFL_DT_ST_CANCELLED &&
                         rsp[i].tag == 500;
        if (rsp[i].type == OFL_DT_RSP_CANCEL)
            done += rsp[i].status == OFL_DT_ST_OK && rsp[i].number == 3 &&
                    rsp[i].tag == 501 && rsp[i].aux == 500;
    }
    CHECK_EQ(cancelled, 3);
    CHECK_EQ(done, 1);
    CHECK_EQ(r->dt.conn_live, 0);
    CHECK_EQ(r->dt.connecting, 0);
    /* Cancelling an unknown connection id. */
    d = mk(OFL_DT_REQ_CANCEL);
    d.conn = 0x500000001ull;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 220));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CANCEL &&
          rsp[0].status == OFL_DT_ST_NOT_FOUND);
    rig_done(r);
}

static void test_cancel_listener_and_sends(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint64_t l, id;
    uint8_t *b1, *b2, *sb;
    uint32_t n, i, flushed = 0, sent = 0;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 10;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 8080, 0);
    id = dt_rig_connect(r, 9, 0);
    CHECK(l != 0 && id != 0);
    b1 = dt_rig_alloc(r, 100);
    b2 = dt_rig_alloc(r, 100);
    sb = dt_rig_alloc(r, 100);
    CHECK_OK(dt_rig_avail(r, l, b1, 100, 0, 0, 0)); /* shared buffers */
    CHECK_OK(dt_rig_avail(r, l, b2, 100, 0, 0, 0));
    CHECK_OK(dt_rig_send(r, id, sb, 10, 0, 600));
    CHECK_OK(dt_rig_send(r, id, sb + 10, 10, 0, 600));
    CHECK_OK(dt_rig_send(r, id, sb + 20, 10, 0, 601));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.xfer_count, 3);
    d = mk(OFL_DT_REQ_CANCEL);
    d.aux = 600;
    CHECK_OK(dt_rig_post(r, &d));
    d = mk(OFL_DT_REQ_CANCEL);
    d.conn = l;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 6);
    for (i = 0; i < n; i++) {
        if (rsp[i].type == OFL_DT_RSP_BUF_AVAIL)
            sent += rsp[i].status == OFL_DT_ST_CANCELLED && rsp[i].tag == 600;
        if (rsp[i].type == OFL_DT_RSP_BUF_RECV)
            flushed += rsp[i].status == OFL_DT_ST_CANCELLED &&
                       (rsp[i].flags & OFL_DT_F_FINAL) && rsp[i].len == 0;
    }
    CHECK_EQ(sent, 2);
    CHECK_EQ(flushed, 2);
    CHECK(rsp[2].type == OFL_DT_RSP_CANCEL && rsp[2].number == 2);
    CHECK(rsp[5].type == OFL_DT_RSP_CANCEL && rsp[5].number == 1);
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(r->xfer[0].tag, 601);
    rig_done(r);
}

static void test_terminate(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_desc d;
    uint64_t id, l, got;
    uint8_t *b, act;
    uint32_t cursor = 0, i;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    l = dt_rig_listen(r, 2, 0);
    CHECK(id != 0 && l != 0);
    b = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, id, b, 64, 0, 0, 0));
    d = mk(OFL_DT_REQ_TERMINATE);
    d.conn = id;
    d.tag = 70;
    CHECK_OK(dt_rig_post(r, &d));
    d.conn = l;
    d.tag = 71;
    CHECK_OK(dt_rig_post(r, &d));
    d.conn = 0x900000001ull; /* stale */
    d.tag = 72;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_TERMINATE && rsp[0].tag == 71 &&
          rsp[0].status == OFL_DT_ST_OK);
    CHECK(rsp[1].tag == 72 && rsp[1].status == OFL_DT_ST_BAD_CONN);
    for (i = 0; ofl_dt_next_action(&r->dt, &cursor, &got, &act) == OFL_OK &&
                i < 8;
         i++)
        if (got == id || got == l)
            CHECK(act & OFL_DT_ACT_CLOSE);
    /* The listener waits in UNLISTEN until the firmware has stopped. */
    CHECK_EQ(r->dt.mem.conn[(uint32_t)l - 1].state, OFL_DT_CONN_UNLISTEN);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l, 1));
    /* Still CLOSING: a second termination is refused. */
    d.conn = id;
    d.tag = 73;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 73 && rsp[0].status == OFL_DT_ST_CONN_STATE);
    /* Closed with the output table full: accepted, DRAINING, nothing
     * written until the host frees slots; then the rest goes out. */
    for (i = 0; i < 8; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 3));
    CHECK_EQ(r->dt.mem.conn[(uint32_t)id - 1].state, OFL_DT_CONN_DRAINING);
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, id, 3), OFL_E_DT_CONN_STATE);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 8);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_RECV &&
          rsp[0].status == OFL_DT_ST_FLUSHED && rsp[0].base == dt_rig_pa(b));
    CHECK(rsp[1].type == OFL_DT_RSP_TERMINATE && rsp[1].tag == 70 &&
          rsp[1].conn == id);
    CHECK_EQ(r->dt.conn_live, 0);
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, id, 3), OFL_E_DT_CONN_UNKNOWN);
    rig_done(r);
}

static void test_reports(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t a, b;
    uint32_t n;

    ofl_dt_config_default(&c);
    c.report_period = 100;
    r = dt_rig_new(&c, 4);
    CHECK(r != NULL);
    a = dt_rig_connect(r, 1, 0);
    b = dt_rig_connect(r, 2, 0);
    CHECK_OK(ofl_dt_rx(&r->dt, b, (const uint8_t *)"abc", 3, 5));
    CHECK_OK(dt_rig_poll(r, 99));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 100));
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 2);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ATTR &&
          (rsp[0].flags & OFL_DT_F_REPORT) && rsp[0].conn == a &&
          rsp[0].number == OFL_DT_CONN_ESTABLISHED);
    CHECK(rsp[1].conn == b && rsp[1].len == 3 && rsp[1].aux == 3);
    /* A report that does not fit resumes where it stopped. */
    for (n = 0; n < 3; n++) {
        struct ofl_dt_desc d = mk(OFL_DT_REQ_CANCEL);

        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 200)); /* one slot left for two reports */
    CHECK_EQ(r->dt.report_next, 2);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 4);
    CHECK(rsp[3].conn == a && (rsp[3].flags & OFL_DT_F_REPORT));
    CHECK_OK(dt_rig_poll(r, 201));
    CHECK_EQ(r->dt.report_next, 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == b && (rsp[0].flags & OFL_DT_F_REPORT));
    rig_done(r);
}

/* ---- attributes ----------------------------------------------------------- */

static void test_adapter_attrs(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint8_t t[256], *buf;
    size_t off = 0;
    uint8_t pat[17] = {3, 'a', 'b', 'c'};

    CHECK(r != NULL);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_CN_COUNT, 5);
    dt_tup_u64(t, &off, false, OFL_DT_ATTR_STARVE_TIME, 0);
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_CONN_COUNT, 0);
    ofl_dt_tuple_put(t, sizeof(t), &off, true, OFL_DT_ATTR_CN_PATTERN, pat, 17);
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_BT_TIME, 0x123456789ull);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 5, 1,
                         &buf));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_ADAPTER_ATTR &&
          rsp[0].status == OFL_DT_ST_OK && rsp[0].number == 5 &&
          rsp[0].base == dt_rig_pa(buf));
    CHECK_EQ(r->dt.cfg.cn_count, 5);
    CHECK_EQ(r->dt.cfg.bt_time, 0x123456789ull);
    CHECK_EQ(r->dt.cfg.cn_pattern_len, 3);
    CHECK(memcmp(r->dt.cfg.cn_pattern, "abc", 3) == 0);
    /* The buffer came back: old value in place of each set, gets filled. */
    CHECK_EQ(ofl_load_be32(buf + 6), 1);  /* old cn_count */
    CHECK_EQ(ofl_load_be64(buf + 16), 0); /* starve_time */
    CHECK_EQ(ofl_load_be32(buf + 30), 0); /* live connections */
    CHECK_EQ(buf[40], 0);                 /* old pattern length */
    /* All or nothing: a good set and a bad one. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_CN_COUNT, 9);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_BT_CRITERIA, 0x8);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 2, 2,
                         &buf));
    off = 0; /* read-only */
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_CONN_COUNT, 9);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 3,
                         NULL));
    off = 0; /* a connection attribute */
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 4,
                         NULL));
    off = 0; /* unknown */
    dt_tup_u32(t, &off, true, 0x0777, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 5,
                         NULL));
    off = 0; /* wrong length */
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_CN_COUNT, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 6,
                         NULL));
    off = 0; /* out of range: out_warn >= slots, cn_count 0, pattern 17 */
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_OUT_WARN, 64);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 7,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_CN_COUNT, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 8,
                         NULL));
    off = 0;
    pat[0] = 17;
    ofl_dt_tuple_put(t, sizeof(t), &off, true, OFL_DT_ATTR_CN_PATTERN, pat, 17);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 9,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 8);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_BAD_TUPLE);
    CHECK_EQ(r->dt.cfg.cn_count, 5); /* the good set was not applied */
    CHECK_EQ(ofl_load_be32(buf + 6), 9); /* nor the buffer written */
    CHECK(rsp[1].tag == 3 && rsp[1].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[2].tag == 4 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 5 && rsp[3].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[4].tag == 6 && rsp[4].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[5].tag == 7 && rsp[5].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[6].tag == 8 && rsp[6].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[7].tag == 9 && rsp[7].status == OFL_DT_ST_BAD_TUPLE);
    CHECK_EQ(r->dt.stats.bad_requests, 8);
    rig_done(r);
}

static void test_conn_attrs(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint8_t t[256], *buf;
    size_t off = 0;
    uint64_t id, l;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 77, 0);
    l = dt_rig_listen(r, 99, 0);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 6);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_NOTIFY_MODE, OFL_DT_NOTIFY_BYTES);
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, l);
    ofl_dt_tuple_put(t, sizeof(t), &off, false, OFL_DT_ATTR_REMOTE, NULL, 18);
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_STATE, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 5, 1,
                         &buf));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ATTR && rsp[0].conn == id &&
          rsp[0].status == OFL_DT_ST_OK);
    CHECK_EQ(r->conn[(uint32_t)id - 1].cfg.priority, 6);
    CHECK_EQ(r->conn[(uint32_t)id - 1].cfg.notify_mode, OFL_DT_NOTIFY_BYTES);
    CHECK_EQ(r->conn[(uint32_t)id - 1].group, l);
    CHECK_EQ(ofl_load_be16(buf + 34 + 6 + 16), 77); /* remote port */
    CHECK_EQ(ofl_load_be32(buf + 58 + 6), OFL_DT_CONN_ESTABLISHED);
    /* GROUP must name a listener; STATE is read-only; unknown conn. */
    off = 0;
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, id);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 2,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_STATE, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 3,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_HIST_THRESHOLD, 101);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 4,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 1);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id + (5ull << 32), t,
                         (uint32_t)off, 1, 5, NULL));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 4);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[1].tag == 3 && rsp[1].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[2].tag == 4 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 5 && rsp[3].status == OFL_DT_ST_BAD_CONN);
    rig_done(r);
}

/* ---- sends: the bulk transfer list ------------------------------------------ */

static struct dt_rig *bt_rig(uint32_t criteria, uint32_t count, uint32_t bytes,
                             uint64_t time, uint64_t max)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.bt_criteria = criteria;
    c.bt_count = count;
    c.bt_bytes = bytes;
    c.bt_time = time;
    c.bt_max_delay = max;
    return dt_rig_new(&c, 0);
}

/* Drains id's transmit ring into out; returns the byte count. */
static uint32_t tx_drain(struct dt_rig *r, uint64_t id, uint8_t *out,
                         uint32_t cap, uint64_t now)
{
    const uint8_t *p;
    uint32_t n, total = 0;

    while (ofl_dt_tx_peek(&r->dt, id, &p, &n) == OFL_OK && n != 0 &&
           total + n <= cap) {
        memcpy(out + total, p, n);
        total += n;
        CHECK_OK(ofl_dt_tx_consume(&r->dt, id, n, now));
    }
    return total;
}

static void test_send_asap(void)
{
    struct dt_rig *r = bt_rig(OFL_DT_BT_COUNT, 100, 1, 0, 0);
    uint64_t id;
    uint8_t *b, out[64];
    uint32_t cursor = 0;
    uint64_t got;
    uint8_t act;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 32);
    memcpy(b, "hello world", 11);
    CHECK_OK(dt_rig_send(r, id, b, 5, 0, 0));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* waiting for 100 */
    CHECK_OK(dt_rig_send(r, id, b + 5, 6, OFL_DT_F_ASAP, 0));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1); /* ASAP: the whole list goes */
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_AVAIL && rsp[0].number == 2 &&
          rsp[0].len == 11 && rsp[0].base == dt_rig_pa(b));
    while (ofl_dt_next_action(&r->dt, &cursor, &got, &act) == OFL_OK)
        if (got == id)
            CHECK(act & OFL_DT_ACT_TX);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 3), 11);
    CHECK(memcmp(out, "hello world", 11) == 0);
    CHECK_ERR(ofl_dt_tx_consume(&r->dt, id, 1, 3), OFL_E_DT_TX_RANGE);
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_total, 11);
    rig_done(r);
}

static void test_send_criteria(void)
{
    struct dt_rig *r;
    uint64_t id;
    uint8_t *b;
    uint32_t i;

    /* Count. */
    r = bt_rig(OFL_DT_BT_COUNT, 3, 1, 0, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 1024);
    CHECK_OK(dt_rig_send(r, id, b, 10, 0, 0));
    CHECK_OK(dt_rig_send(r, id, b + 100, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_send(r, id, b + 200, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    rig_done(r);

    /* Bytes. */
    r = bt_rig(OFL_DT_BT_BYTES, 1, 100, 0, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 1024);
    CHECK_OK(dt_rig_send(r, id, b, 60, 0, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_send(r, id, b + 500, 40, 0, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    rig_done(r);

    /* Time since the oldest, and the maximum delay. */
    r = bt_rig(OFL_DT_BT_TIME, 1, 1, 20, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 1024);
    CHECK_OK(dt_rig_send(r, id, b, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_OK(dt_rig_poll(r, 119));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 120));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);
    r = bt_rig(OFL_DT_BT_COUNT, 1000, 1, 0, 15);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 1024);
    CHECK_OK(dt_rig_send(r, id, b, 10, 0, 0));
    CHECK_OK(dt_rig_poll(r, 50));
    CHECK_OK(dt_rig_poll(r, 64));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 65));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);

    /* A full list acts at once; the next request waits in the table. */
    r = bt_rig(OFL_DT_BT_COUNT, 1000, 1, 0, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 4096);
    for (i = 0; i < DT_RIG_XFERS + 1; i++)
        CHECK_OK(dt_rig_send(r, id, b + 100 * i, 10, 0, 0));
    CHECK_OK(ofl_dt_process(&r->dt, 0, 1000, &i));
    CHECK_EQ(i, DT_RIG_XFERS);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), DT_RIG_XFERS);
    CHECK_EQ(r->dt.xfer_count, 1);
    rig_done(r);
}

/* Order (FIG. 15): starved first, then priority, each connection's requests
 * together in arrival order; adjacent ranges merge. */
static void test_send_reorder_merge(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t a, b, s, x;
    uint8_t *m, t[64];
    size_t off = 0;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 7;
    c.starve_time = 50;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    a = dt_rig_connect(r, 1, 0);   /* priority 0 */
    b = dt_rig_connect(r, 2, 0);   /* priority 5 */
    s = dt_rig_connect(r, 3, 0);   /* priority 0, starved */
    x = dt_rig_connect(r, 4, 100); /* priority 7, merges limited */
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 5);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, b, t, (uint32_t)off, 1, 0,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 7);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, x, t, (uint32_t)off, 1, 0,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    /* a and b just transmitted; s has not for 100 > 50. */
    CHECK_OK(ofl_dt_tx_consume(&r->dt, a, 0, 100));
    r->conn[(uint32_t)a - 1].t_last_tx = 100;
    r->conn[(uint32_t)b - 1].t_last_tx = 100;
    m = dt_rig_alloc(r, 4096);
    CHECK_OK(dt_rig_send(r, a, m, 100, 0, 1));        /* A1 */
    CHECK_OK(dt_rig_send(r, b, m + 1000, 50, 0, 2));  /* B1 */
    CHECK_OK(dt_rig_send(r, a, m + 100, 100, 0, 3));  /* A2 adjacent to A1 */
    CHECK_OK(dt_rig_send(r, s, m + 2000, 10, 0, 4));  /* S1 */
    CHECK_OK(dt_rig_send(r, b, m + 1100, 50, 0, 5));  /* B2 not adjacent */
    CHECK_OK(dt_rig_send(r, a, m + 200, 100, 0, 6));  /* A3 adjacent */
    CHECK_OK(dt_rig_send(r, x, m + 3000, 10, 0, 7));  /* X1 */
    CHECK_OK(dt_rig_poll(r, 110));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 5);
    /* S (starved), X (7), B (5) twice, A (0) merged into one. */
    CHECK(rsp[0].conn == s && rsp[0].tag == 4 && rsp[0].number == 1);
    CHECK(rsp[1].conn == x && rsp[1].tag == 7);
    CHECK(rsp[2].conn == b && rsp[2].tag == 2 && rsp[2].len == 50);
    CHECK(rsp[3].conn == b && rsp[3].tag == 5 && rsp[3].number == 1);
    CHECK(rsp[4].conn == a && rsp[4].tag == 1 && rsp[4].number == 3 &&
          rsp[4].len == 300 && rsp[4].base == dt_rig_pa(m));
    CHECK_EQ(r->dt.stats.merged, 2);
    rig_done(r);

    /* merge_max splits a run; another connection's adjacent range does not
     * merge. */
    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 4;
    c.merge_max = 250;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    a = dt_rig_connect(r, 1, 0);
    b = dt_rig_connect(r, 2, 0);
    m = dt_rig_alloc(r, 4096);
    CHECK_OK(dt_rig_send(r, a, m, 100, 0, 1));
    CHECK_OK(dt_rig_send(r, a, m + 100, 100, 0, 2));
    CHECK_OK(dt_rig_send(r, a, m + 200, 100, 0, 3));
    CHECK_OK(dt_rig_send(r, b, m + 300, 100, 0, 4));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].conn == a && rsp[0].number == 2 && rsp[0].len == 200);
    CHECK(rsp[1].conn == a && rsp[1].number == 1 && rsp[1].tag == 3);
    CHECK(rsp[2].conn == b && rsp[2].number == 1);
    rig_done(r);
}

/* The modify bit: an unchanged buffer is not read again. */
static void test_send_modify(void)
{
    struct dt_rig *r = bt_rig(0, 1, 1, 0, 0);
    uint64_t id;
    uint8_t *b, out[64];
    unsigned long reads;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 64);
    memcpy(b, "first", 5);
    CHECK_OK(dt_rig_send(r, id, b, 5, OFL_DT_F_MODIFY, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 1), 5);
    /* Host rewrites the buffer but says it did not: the adapter's copy is
     * sent, proving no DMA happened. */
    memcpy(b, "XXXXX", 5);
    CHECK_OK(dt_rig_send(r, id, b, 5, 0, 0));
    reads = r->sim.dma_reads;
    CHECK_OK(ofl_dt_process(&r->dt, 1, 10, NULL));
    reads = r->sim.dma_reads - reads; /* the table read */
    CHECK_OK(ofl_dt_service(&r->dt, 1));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(r->dt.stats.dma_skipped, 1);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 2), 5);
    CHECK(memcmp(out, "first", 5) == 0);
    CHECK_EQ(reads, 1);
    /* A part of the cached range hits too. */
    CHECK_OK(dt_rig_send(r, id, b + 1, 3, 0, 0));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 2), 3);
    CHECK(memcmp(out, "irs", 3) == 0);
    /* With the modify bit: read again. */
    CHECK_OK(dt_rig_send(r, id, b, 5, OFL_DT_F_MODIFY, 0));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 3), 5);
    CHECK(memcmp(out, "XXXXX", 5) == 0);
    CHECK_EQ(r->dt.stats.dma_skipped, 2);
    rig_done(r);
}

/* The last 64 bytes of the physical address space, mapped by wrapping the
 * sim port's DMA hooks (the sim maps a pointer's value only). */
static uint8_t top_mem[64];
#define TOP_PA ((uint64_t)0 - sizeof(top_mem)) /* 2^64 - 64 */
static int (*top_next_read)(void *, uint64_t, void *, size_t);
static int (*top_next_write)(void *, uint64_t, const void *, size_t);

static int top_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    if (pa < TOP_PA)
        return top_next_read(ctx, pa, dst, len);
    if (len > sizeof(top_mem) - (pa - TOP_PA))
        return -1;
    memcpy(dst, top_mem + (pa - TOP_PA), len);
    return 0;
}

static int top_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    if (pa < TOP_PA)
        return top_next_write(ctx, pa, src, len);
    if (len > sizeof(top_mem) - (pa - TOP_PA))
        return -1;
    memcpy(top_mem + (pa - TOP_PA), src, len);
    return 0;
}

/* Posts a request of type for the whole top buffer. */
static void post_top(struct dt_rig *r, uint8_t type, uint8_t flags,
                     uint64_t id)
{
    struct ofl_dt_desc d = mk(type);

    d.flags = flags;
    d.base = TOP_PA;
    d.len = sizeof(top_mem);
    d.conn = id;
    CHECK_OK(dt_rig_post(r, &d));
}

/* A delivery into a buffer drops the send cache's copy of it, also when the
 * buffer ends at 2^64 (where base + len wraps to 0). */
static void test_send_cache_top(void)
{
    struct dt_rig *r = bt_rig(0, 1, 1, 0, 0);
    uint64_t id;
    uint8_t out[64];

    CHECK(r != NULL);
    r->mem.host_hi = UINT64_MAX;
    CHECK_OK(ofl_dt_init(&r->dt, &r->mem, &r->cfg, &r->sim.port, 0));
    top_next_read = r->sim.port.dma_read;
    top_next_write = r->sim.port.dma_write;
    r->sim.port.dma_read = top_read;
    r->sim.port.dma_write = top_write;
    id = dt_rig_connect(r, 1, 0);
    memset(top_mem, 0, sizeof(top_mem));
    memcpy(top_mem, "first", 5);
    post_top(r, OFL_DT_REQ_BUF_SEND, OFL_DT_F_MODIFY, id);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].status == OFL_DT_ST_OK);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 1), 64);
    CHECK(memcmp(out, "first", 5) == 0);
    /* The adapter writes received bytes into the same buffer. */
    post_top(r, OFL_DT_REQ_BUF_AVAIL, 0, id);
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)"other", 5, 2));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_RECV && rsp[0].len == 5);
    CHECK(memcmp(top_mem, "other", 5) == 0);
    /* Sent again without the modify bit: the host's bytes, not a copy
     * that the delivery made stale. */
    post_top(r, OFL_DT_REQ_BUF_SEND, 0, id);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 3), 64);
    CHECK(memcmp(out, "other", 5) == 0);
    CHECK_EQ(r->dt.stats.dma_skipped, 0);
    rig_done(r);
}

static void test_send_group_and_refusals(void)
{
    struct dt_rig *r = bt_rig(0, 1, 1, 0, 0);
    uint64_t l, m1, m2, lone;
    uint8_t *b, out[64];
    static const uint8_t addr[16] = {0};

    CHECK(r != NULL);
    l = dt_rig_listen(r, 5000, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &m1));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 0, &m2));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2); /* the arrivals */
    lone = dt_rig_connect(r, 9, 0);
    CHECK(lone != 0);
    b = dt_rig_alloc(r, 64);
    memcpy(b, "multicast", 9);
    CHECK_OK(dt_rig_send(r, l, b, 9, 0, 40));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == l && rsp[0].status == OFL_DT_ST_OK && rsp[0].tag == 40);
    CHECK_EQ(tx_drain(r, m1, out, sizeof(out), 2), 9);
    CHECK(memcmp(out, "multicast", 9) == 0);
    CHECK_EQ(tx_drain(r, m2, out, sizeof(out), 2), 9);
    CHECK(memcmp(out, "multicast", 9) == 0);
    CHECK_EQ(tx_drain(r, lone, out, sizeof(out), 2), 0);
    CHECK_EQ(r->conn[(uint32_t)l - 1].tx_tail, 0); /* not the listener */
    /* Refusals: unknown connection, too long for a ring, outside the host
     * range, a connection still connecting. */
    CHECK_OK(dt_rig_send(r, 0x700000003ull, b, 9, 0, 41));
    CHECK_OK(dt_rig_send(r, lone, dt_rig_alloc(r, DT_RIG_TX + 1), DT_RIG_TX + 1,
                         0, 42));
    CHECK_OK(dt_rig_send(r, lone, r->ctrl, 9, 0, 43));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].tag == 41 && rsp[0].status == OFL_DT_ST_BAD_CONN &&
          rsp[0].type == OFL_DT_RSP_BUF_AVAIL && rsp[0].number == 1);
    CHECK(rsp[1].tag == 42 && rsp[1].status == OFL_DT_ST_TOO_LARGE);
    CHECK(rsp[2].tag == 43 && rsp[2].status == OFL_DT_ST_BAD_RANGE);
    rig_done(r);
}

/* A full transmit ring holds the connection's requests, in order. */
static void test_send_ring_full(void)
{
    struct dt_rig *r = bt_rig(0, 1, 1, 0, 0);
    uint64_t id;
    uint8_t *b;
    static uint8_t out[DT_RIG_TX];

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, DT_RIG_TX);
    CHECK_OK(dt_rig_send(r, id, b, DT_RIG_TX - 10, 0, 1));
    CHECK_OK(dt_rig_send(r, id, b, 20, OFL_DT_F_MODIFY, 2));
    CHECK_OK(dt_rig_send(r, id, b + 20, 5, 0, 3));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(r->dt.xfer_count, 2);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 1), DT_RIG_TX - 10);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].number == 2 && rsp[0].len == 25);
    CHECK_EQ(r->dt.xfer_count, 0);
    rig_done(r);
}

/* ---- receives --------------------------------------------------------------- */

static void rx(struct dt_rig *r, uint64_t id, const char *s, uint64_t now)
{
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)s, (uint32_t)strlen(s), now));
}

/* Partial buffers (FIG. 14): offsets, then FINAL at the end. */
static void test_rx_partial(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t id;
    uint8_t *b;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, b, 10, 0, 0, 33));
    rx(r, id, "abcd", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_BUF_RECV && rsp[0].base == dt_rig_pa(b) &&
          rsp[0].aux == 0 && rsp[0].len == 4 && rsp[0].tag == 33 &&
          !(rsp[0].flags & OFL_DT_F_FINAL) && rsp[0].conn == id);
    rx(r, id, "efghijklm", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].aux == 4 && rsp[0].len == 6 && (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(memcmp(b, "abcdefghij", 10) == 0 && b[10] == 0);
    /* The rest waits for a buffer. */
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             3);
    CHECK_OK(dt_rig_avail(r, id, b + 12, 4, 0, 0, 34));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].len == 3 && rsp[0].tag == 34 && memcmp(b + 12, "klm", 3) == 0);
    rig_done(r);
}

static struct dt_rig *nd_rig(uint8_t mode, uint64_t delay, uint32_t bytes,
                             uint64_t max)
{
    struct ofl_dt_config c;

    ofl_dt_config_default(&c);
    c.conn.notify_mode = mode;
    c.conn.notify_delay = delay;
    c.conn.notify_bytes = bytes;
    c.conn.notify_max = max;
    return dt_rig_new(&c, 0);
}

/* Combined descriptor + static time delay: two segments at consecutive
 * addresses become one response. */
static void test_rx_combined_time(void)
{
    struct dt_rig *r = nd_rig(OFL_DT_NOTIFY_TIME, 10, 1, 0);
    uint64_t id;
    uint8_t *b;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 100);
    CHECK_OK(dt_rig_avail(r, id, b, 100, 0, 0, 0));
    rx(r, id, "seg1", 100);
    CHECK_OK(dt_rig_poll(r, 100));
    rx(r, id, "seg2", 105);
    CHECK_OK(dt_rig_poll(r, 105));
    rx(r, id, "seg3", 109);
    CHECK_OK(dt_rig_poll(r, 109));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 110));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].len == 12 && rsp[0].number == 3 && rsp[0].aux == 0);
    CHECK_EQ(r->dt.stats.combined, 2);
    CHECK(memcmp(b, "seg1seg2seg3", 12) == 0);
    rig_done(r);
}

static void test_rx_notify_bytes_max(void)
{
    struct dt_rig *r = nd_rig(OFL_DT_NOTIFY_BYTES, 0, 10, 50);
    uint64_t id;
    uint8_t *b;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 100);
    CHECK_OK(dt_rig_avail(r, id, b, 100, 0, 0, 0));
    rx(r, id, "12345", 0);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    rx(r, id, "67890", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].len == 10 && rsp[0].number == 2);
    /* Fewer bytes than the threshold: the maximum delay bounds it. */
    rx(r, id, "ab", 10);
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_OK(dt_rig_poll(r, 59));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 60));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].len == 2 && rsp[0].aux == 10);
    rig_done(r);
}

/* Adaptive delay: the host posts every 16 time units, so notifications wait
 * up to that long; bounded by the maximum. */
static void test_rx_notify_adaptive(void)
{
    struct dt_rig *r = nd_rig(OFL_DT_NOTIFY_ADAPTIVE, 0, 1, 12);
    uint64_t id, t;
    uint8_t *b;
    uint32_t i;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 4096);
    /* No posting measured yet: at once. */
    CHECK_OK(dt_rig_avail(r, id, b, 64, 0, 0, 0));
    rx(r, id, "x", 0);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    for (i = 1, t = 16; i < 6; i++, t += 16) {
        CHECK_OK(dt_rig_avail(r, id, b + 64 * i, 64, 0, 0, 0));
        CHECK_OK(dt_rig_poll(r, t));
    }
    CHECK_EQ(r->conn[(uint32_t)id - 1].post_ewma, 16);
    r->conn[(uint32_t)id - 1].cfg.notify_max = 0;
    rx(r, id, "y", 100);
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_OK(dt_rig_poll(r, 115));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 116));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    /* With the maximum of 12 it goes earlier. */
    r->conn[(uint32_t)id - 1].cfg.notify_max = 12;
    rx(r, id, "z", 200);
    CHECK_OK(dt_rig_poll(r, 200));
    CHECK_OK(dt_rig_poll(r, 211));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 212));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rig_done(r);
}

/* Buffer selection (FIG. 18): best fit among bulk buffers. */
static void test_rx_bulk_best_fit(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t id;
    uint8_t *s, *m, *g;
    static char data[3000];

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    s = dt_rig_alloc(r, 100);
    m = dt_rig_alloc(r, 500);
    g = dt_rig_alloc(r, 2000);
    CHECK_OK(dt_rig_avail(r, 0, g, 2000, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, 0, s, 100, 0, 0, 2));
    CHECK_OK(dt_rig_avail(r, 0, m, 500, 0, 0, 3));
    memset(data, 'q', sizeof(data));
    data[300] = 0;
    rx(r, id, data, 0); /* 300 bytes: the 500 fits best */
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 3 && rsp[0].len == 300 && rsp[0].conn == id &&
          (rsp[0].flags & OFL_DT_F_FINAL) && rsp[0].base == dt_rig_pa(m));
    data[300] = 'q';
    data[2999] = 0;
    rx(r, id, data, 1); /* 2999: none holds it, the largest takes 2000 */
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 1 && rsp[0].len == 2000);
    CHECK(rsp[1].tag == 2 && rsp[1].len == 100); /* then the last one */
    CHECK_EQ(r->dt.stats.bulk_placed, 3);
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             899);
    rig_done(r);
}

/* Wait limit, then history: a host that rarely posts in time is not waited
 * for. */
static void test_rx_wait_history(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t id;
    uint8_t *own, *bulk;
    uint32_t i;

    ofl_dt_config_default(&c);
    c.conn.wait_limit = 10;
    c.conn.hist_window = 4;
    c.conn.hist_threshold = 50;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    own = dt_rig_alloc(r, 64);
    bulk = dt_rig_alloc(r, 4096);
    for (i = 0; i < 8; i++)
        CHECK_OK(dt_rig_avail(r, 0, bulk + 512 * i, 512, 0, 0, 100 + i));
    /* Waits: the own buffer posted in time wins. */
    rx(r, id, "one", 0);
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_avail(r, id, own, 3, 0, 0, 7));
    CHECK_OK(dt_rig_poll(r, 6));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 7 && memcmp(own, "one", 3) == 0);
    /* The limit passes: a bulk buffer. */
    rx(r, id, "two", 20);
    CHECK_OK(dt_rig_poll(r, 29));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 30));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag >= 100 && (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK_EQ(r->dt.stats.waited, 1);
    /* History now 1 hit of 2 = 50%: still waits. Another miss makes it
     * 1 of 3 < 50%: then no more waiting. */
    rx(r, id, "three", 40);
    CHECK_OK(dt_rig_poll(r, 40));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 50));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    rx(r, id, "four", 60);
    CHECK_OK(dt_rig_poll(r, 60));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1); /* at once */
    CHECK_EQ(r->dt.stats.waited, 2);
    rig_done(r);
}

/* Shared buffers of a listener's group; two members fill one buffer. */
static void test_rx_shared(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t l, a, b;
    uint8_t *buf;
    static const uint8_t addr[16] = {0};

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &a));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 0, &b));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    buf = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 0, 5));
    rx(r, a, "aaa", 1);
    rx(r, b, "bbbb", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].conn == a && rsp[0].aux == 0 && rsp[0].len == 3 &&
          rsp[0].tag == 5 && rsp[0].base == dt_rig_pa(buf));
    CHECK(rsp[1].conn == b && rsp[1].aux == 3 && rsp[1].len == 4);
    rx(r, a, "AAAAA", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == a && rsp[0].aux == 7 && rsp[0].len == 3 &&
          (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(memcmp(buf, "aaabbbbAAA", 10) == 0);
    /* Skip and peek need the connection's own stream. */
    CHECK_OK(dt_rig_avail(r, l, buf, 10, 0, 4, 6));
    CHECK_OK(dt_rig_avail(r, 0, buf, 10, 0, 4, 7));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 6 && rsp[0].status == OFL_DT_ST_BAD_DESC);
    CHECK(rsp[1].tag == 7 && rsp[1].status == OFL_DT_ST_BAD_DESC);
    rig_done(r);
}

/* Peek and read with an offset. */
static void test_rx_peek(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t id;
    uint8_t *hdr, *pay;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    hdr = dt_rig_alloc(r, 16);
    pay = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, id, hdr, 8, OFL_DT_F_PEEK, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, hdr, 8, OFL_DT_F_PEEK, 0, 2)); /* busy */
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_BUSY &&
          (rsp[0].flags & OFL_DT_F_PEEK));
    rx(r, id, "HDR:5|hello", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 1 && rsp[0].len == 8 &&
          rsp[0].flags == (OFL_DT_F_PEEK | OFL_DT_F_FINAL));
    CHECK(memcmp(hdr, "HDR:5|he", 8) == 0);
    /* Nothing consumed: the header is 6 bytes, read the rest past it. */
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             11);
    CHECK_OK(dt_rig_avail(r, id, pay, 5, 0, 6, 3));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 3 && rsp[0].len == 5 && memcmp(pay, "hello", 5) == 0);
    /* A skip longer than what is staged carries over to later data. */
    CHECK_OK(dt_rig_avail(r, id, pay, 4, 0, 6, 4));
    rx(r, id, "abc", 3);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    rx(r, id, "defWXYZ", 4);
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 4 && memcmp(pay, "WXYZ", 4) == 0);
    rig_done(r);
}

static void test_rx_refusals(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t id;
    static uint8_t big[DT_RIG_RX + 1];
    uint8_t *b;
    uint32_t i;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    /* Buffer posts: unknown connection, outside the range, pool full. */
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, 0x300000009ull, b, 16, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, r->ctrl, 16, 0, 0, 2));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].status == OFL_DT_ST_BAD_CONN &&
          (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(rsp[1].status == OFL_DT_ST_BAD_RANGE);
    for (i = 0; i < DT_RIG_RBUFS + 1; i++) {
        CHECK_OK(dt_rig_avail(r, 0, b, 16, 0, 0, 10 + i));
        if (i % 32 == 31)
            CHECK_OK(dt_rig_poll(r, 0));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 10 + DT_RIG_RBUFS &&
          rsp[0].status == OFL_DT_ST_NO_BUFFER);
    CHECK_ERR(ofl_dt_rx(&r->dt, id, big, DT_RIG_RX + 1, 0), OFL_E_DT_RX_FULL);
    CHECK_OK(ofl_dt_rx(&r->dt, id, big, DT_RIG_RX, 0));
    CHECK_ERR(ofl_dt_rx(&r->dt, id, big, 1, 0), OFL_E_DT_RX_FULL);
    CHECK_OK(ofl_dt_rx(&r->dt, id, big, 0, 0));
    CHECK_ERR(ofl_dt_rx(&r->dt, id + 1, big, 1, 0), OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_rx(&r->dt, id, NULL, 1, 0), OFL_E_ARG);
    rig_done(r);
}

/* ---- output table ------------------------------------------------------------ */

/* Overflow danger raises its interrupt once; a full table holds requests
 * in the input table until the host reads. */
static void test_output_overflow(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint32_t i, n;

    ofl_dt_config_default(&c);
    c.out_warn = 2;
    c.irq_overflow = 9;
    c.irq_response = OFL_DT_IRQ_NONE;
    r = dt_rig_new(&c, 8);
    CHECK(r != NULL);
    for (i = 0; i < 5; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(irqs(r, 9), 0); /* 3 free > 2 */
    for (i = 0; i < 3; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(irqs(r, 9), 1);
    CHECK_EQ(r->dt.stats.irq_overflow, 1);
    for (i = 0; i < 2; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(ofl_dt_process(&r->dt, 0, 100, &n));
    CHECK_EQ(n, 0); /* no room: they stay */
    CHECK_EQ(irqs(r, 9), 1); /* not raised twice */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 8);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 8);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    /* Re-armed after the host caught up: a second crossing raises again. */
    for (i = 0; i < 6; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(irqs(r, 9), 2);
    CHECK_EQ(r->dt.stats.lost, 0);
    rig_done(r);
}

static void test_actions_and_query(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint32_t cursor = 0;
    uint64_t id;
    uint8_t act;
    struct ofl_dt_conn_info info;

    CHECK(r != NULL);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act), OFL_E_DT_EMPTY);
    CHECK_ERR(ofl_dt_next_action(&r->dt, NULL, &id, &act), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_query(&r->dt, 0, &info), OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_conn_query(&r->dt, DT_RIG_CONNS + 1, &info),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_conn_query(&r->dt, 1, &info), OFL_E_DT_CONN_UNKNOWN);
    id = dt_rig_connect(r, 1, 0);
    CHECK_OK(ofl_dt_conn_query(&r->dt, id, &info));
    CHECK_ERR(ofl_dt_conn_query(&r->dt, id + (1ull << 32), &info),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_tx_consume(&r->dt, id + 1, 0, 0), OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_conn_established(&r->dt, id + 1, 0),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_conn_failed(&r->dt, id, OFL_DT_ST_FAILED, 0),
              OFL_E_DT_CONN_STATE);
    CHECK_ERR(ofl_dt_process(NULL, 0, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_service(NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_flush(NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_poll(NULL, 0), OFL_E_ARG);
    CHECK_EQ(ofl_dt_out_room(NULL), 0);
    rig_done(r);
}

/* Checks not reached above: buffers over the tables, requests for a
 * closing connection, values out of range. */
static void test_more_refusals(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    struct ofl_dt dt2;
    struct ofl_dt_mem m;
    uint8_t t[128], *b;
    uint8_t pat[17] = {2, 'a', 'b', 0, 9};
    size_t off;
    uint64_t id;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 64);
    /* With the whole address space allowed, the tables still are not. */
    r->dt.mem.host_lo = 0;
    r->dt.mem.host_hi = ~0ull;
    CHECK_OK(dt_rig_avail(r, id, r->out_table + 64, 32, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, r->in_table + 8 * 32 - 1, 2, 0, 0, 2));
    CHECK_OK(dt_rig_send(r, id, r->in_table, 32, 0, 3));
    CHECK_OK(dt_rig_avail(r, id, b, 64, 0, 0, 4)); /* next to nothing */
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].tag == 1 && rsp[0].status == OFL_DT_ST_BAD_RANGE);
    CHECK(rsp[1].tag == 2 && rsp[1].status == OFL_DT_ST_BAD_RANGE);
    CHECK(rsp[2].tag == 3 && rsp[2].status == OFL_DT_ST_BAD_RANGE);
    /* A closing connection takes no new sends or buffers. */
    d = mk(OFL_DT_REQ_TERMINATE);
    d.conn = id;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_send(r, id, b, 8, 0, 5));
    CHECK_OK(dt_rig_avail(r, id, b, 8, 0, 0, 6));
    /* Values out of range. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PROTOCOL, 256);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 2, 7, NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 65536);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 8, NULL));
    off = 0; /* pattern bytes past its length must be 0 */
    ofl_dt_tuple_put(t, sizeof(t), &off, true, OFL_DT_ATTR_CN_PATTERN, pat, 17);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 9,
                         NULL));
    off = 0; /* a get of a connection attribute in an adapter request */
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_STATE, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 10,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 6);
    CHECK(rsp[0].tag == 5 && rsp[0].status == OFL_DT_ST_CONN_STATE);
    CHECK(rsp[1].tag == 6 && rsp[1].status == OFL_DT_ST_CONN_STATE);
    CHECK(rsp[2].tag == 7 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 8 && rsp[3].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[4].tag == 9 && rsp[4].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[5].tag == 10 && rsp[5].status == OFL_DT_ST_BAD_TUPLE);
    pat[4] = 0;
    off = 0;
    ofl_dt_tuple_put(t, sizeof(t), &off, true, OFL_DT_ATTR_CN_PATTERN, pat, 17);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 11,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 11 && rsp[0].status == OFL_DT_ST_OK);
    /* Tables that would wrap the address space. */
    m = r->mem;
    m.out_pa = ~0ull - 31;
    CHECK_ERR(ofl_dt_init(&dt2, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    rig_done(r);
}

/* ---- arguments, configuration and memory checks ------------------------------ */

/* Every argument check of the codec, tuple and host functions, each with
 * a passing twin. */
static void test_api_arguments(void)
{
    _Alignas(64) static uint8_t in[4 * 32], out[4 * 32];
    struct ofl_dt_desc d = sample(OFL_DT_REQ_CANCEL), e[4];
    struct ofl_dt_host h, zero;
    struct ofl_dt_tuple t;
    static struct ofl_sim sim;
    struct ofl_port p;
    uint8_t b[32], v[4] = {1, 2, 3, 4};
    size_t off;
    uint32_t n;

    ofl_sim_init(&sim);
    CHECK(ofl_dt_is_response(OFL_DT_RSP_ADAPTER_ATTR));
    CHECK(!ofl_dt_is_response(OFL_DT_RSP_ADAPTER_ATTR + 1));
    CHECK(!ofl_dt_is_response(OFL_DT_REQ_ADAPTER_ATTR));
    CHECK_ERR(ofl_dt_desc_encode(&d, NULL, 32), OFL_E_ARG);
    CHECK_OK(ofl_dt_desc_encode(&d, b, 32));
    CHECK_ERR(ofl_dt_desc_decode(b, 32, NULL), OFL_E_ARG);
    CHECK_OK(ofl_dt_desc_decode(b, 32, &e[0]));
    /* Tuples. */
    off = 0;
    CHECK_ERR(ofl_dt_tuple_put(NULL, 32, &off, true, 1, v, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, 32, NULL, true, 1, v, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 0, v, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 0x8000, v, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 1, NULL, 4), OFL_E_ARG);
    off = 33;
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 1, v, 4), OFL_E_SIZE);
    off = 28; /* not even a header fits */
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 1, v, 4), OFL_E_SIZE);
    off = 24; /* a header fits, its value does not */
    CHECK_ERR(ofl_dt_tuple_put(b, 32, &off, true, 1, v, 4), OFL_E_SIZE);
    CHECK_EQ(off, 24);
    off = 26; /* both just fit */
    CHECK_OK(ofl_dt_tuple_put(b, 32, &off, true, 1, v, 0));
    CHECK_EQ(off, 32);
    off = 0;
    CHECK_OK(ofl_dt_tuple_put(b, 32, &off, true, 0x7FFF, v, 4));
    CHECK_OK(ofl_dt_tuple_put(b, 32, &off, false, 2, NULL, 4));
    CHECK_EQ(off, 20);
    CHECK_OK(ofl_dt_tuple_put(b, 32, &off, true, 3, NULL, 0));
    CHECK_EQ(off, 26);
    off = 20;
    CHECK_EQ(ofl_load_be32(b + 16), 0); /* a get reserves zero bytes */
    off = 0;
    CHECK_ERR(ofl_dt_tuple_next(NULL, 20, &off, &t), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_next(b, 20, NULL, &t), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tuple_next(b, 20, &off, NULL), OFL_E_ARG);
    off = 21; /* past the end */
    CHECK_ERR(ofl_dt_tuple_next(b, 20, &off, &t), OFL_E_DT_TUPLE_TRUNCATED);
    off = 0;
    CHECK_OK(ofl_dt_tuple_next(b, 20, &off, &t));
    CHECK(t.attr == 0x7FFF && t.set && t.len == 4 && t.value_off == 6);
    CHECK_ERR(ofl_dt_tuples_check(NULL, 5, 0), OFL_E_ARG);
    CHECK_OK(ofl_dt_tuples_check(NULL, 0, 0));
    CHECK_ERR(ofl_dt_tuples_check(NULL, 0, 1), OFL_E_DT_TUPLE_TRUNCATED);
    CHECK_OK(ofl_dt_tuples_check(b, 20, 2));
    /* Host side. */
    CHECK_ERR(ofl_dt_host_init(NULL, in, 4, out, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, NULL, 4, out, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, in, 4, NULL, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, in, 4, out + 16, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_init(&h, in, OFL_DT_MAX_SLOTS * 2, out, 4, NULL),
              OFL_E_ARG);
    p = sim.port;
    p.version = 0;
    CHECK_ERR(ofl_dt_host_init(&h, in, 4, out, 4, &p), OFL_E_PORT_VERSION);
    CHECK_OK(ofl_dt_host_init(&h, in, 4, out, 4, NULL)); /* no port: fine */
    memset(&zero, 0, sizeof(zero)); /* never initialised */
    CHECK_ERR(ofl_dt_host_post_batch(NULL, &d, 1), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_post_batch(&zero, &d, 1), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_post_batch(&h, NULL, 1), OFL_E_ARG);
    CHECK_OK(ofl_dt_host_post_batch(&h, NULL, 0));
    e[0] = e[1] = e[2] = e[3] = d;
    CHECK_ERR(ofl_dt_host_post_batch(&h, e, 5), OFL_E_DT_FULL);
    CHECK_ERR(ofl_dt_host_post(&h, NULL), OFL_E_ARG);
    CHECK_EQ(h.in_tail, 0);
    CHECK_ERR(ofl_dt_host_poll_batch(NULL, e, 1, &n), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_poll_batch(&zero, e, 1, &n), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_poll_batch(&h, NULL, 1, &n), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_poll_batch(&h, e, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_host_poll_batch(&h, e, 1, &n), OFL_E_DT_EMPTY);
    /* Two malformed responses in one batch: the first error is kept. */
    memset(out, 0, sizeof(out));
    out[0] = OFL_DT_OWNER | 1;                          /* reserved bits */
    out[32] = OFL_DT_OWNER | (OFL_DT_REQ_CANCEL << 2); /* a request */
    CHECK_ERR(ofl_dt_host_poll_batch(&h, e, 4, &n), OFL_E_DT_RESERVED);
    CHECK_EQ(n, 2);
    CHECK_EQ(h.bad, 2);
    CHECK(e[0].type == 0 && e[1].type == 0);
    /* Doorbells need a port with the hook. */
    CHECK_ERR(ofl_dt_host_kick(&h), OFL_E_PORT_HOOK); /* no port */
    p = sim.port;
    p.doorbell = NULL;
    CHECK_OK(ofl_dt_host_init(&h, in, 4, out, 4, &p));
    CHECK_ERR(ofl_dt_host_kick(&h), OFL_E_PORT_HOOK);
    CHECK_EQ(sim.nevents, 0);
}

/* Every range of ofl_dt_config_check, tripped one at a time. */
static void test_config_ranges(void)
{
    struct ofl_dt_config c, base;
    struct dt_rig *r = dt_rig_new(NULL, 0);
    unsigned i;

    CHECK(r != NULL);
    ofl_dt_config_default(NULL); /* does nothing */
    ofl_dt_config_default(&base);
    CHECK_OK(ofl_dt_config_check(&base, 64));
    CHECK_ERR(ofl_dt_config_check(NULL, 64), OFL_E_ARG);
    for (i = 0; i < 13; i++) {
        c = base;
        switch (i) {
        case 0: c.bt_criteria = OFL_DT_BT_ALL + 1; break;
        case 1: c.cn_count = 0; break;
        case 2: c.bt_count = 0; break;
        case 3: c.bt_bytes = 0; break;
        case 4: c.merge_max = 0; break;
        case 5: c.out_warn = 64; break;
        case 6: c.cn_pattern_len = OFL_DT_PATTERN_MAX + 1; break;
        case 7: c.conn.notify_mode = OFL_DT_NOTIFY_ADAPTIVE + 1; break;
        case 8: c.conn.notify_bytes = 0; break;
        case 9: c.conn.priority = 8; break;
        case 10: c.conn.hist_window = 33; break;
        case 11: c.conn.hist_threshold = 101; break;
        default: c.cn_criteria = OFL_DT_CN_ALL + 1; break;
        }
        CHECK_ERR(ofl_dt_config_check(&c, 64), OFL_E_ARG);
        CHECK_ERR(ofl_dt_configure(&r->dt, &c), OFL_E_ARG);
    }
    /* The bounds themselves pass. */
    c = base;
    c.bt_criteria = OFL_DT_BT_ALL;
    c.cn_criteria = OFL_DT_CN_ALL;
    c.out_warn = 63;
    c.cn_pattern_len = OFL_DT_PATTERN_MAX;
    memset(c.cn_pattern, 'x', OFL_DT_PATTERN_MAX);
    c.conn.notify_mode = OFL_DT_NOTIFY_ADAPTIVE;
    c.conn.priority = 7;
    c.conn.hist_window = 32;
    c.conn.hist_threshold = 100;
    CHECK_OK(ofl_dt_config_check(&c, 64));
    CHECK_ERR(ofl_dt_configure(NULL, &c), OFL_E_ARG);
    CHECK_ERR(ofl_dt_configure(&r->dt, NULL), OFL_E_ARG);
    CHECK_OK(ofl_dt_configure(&r->dt, &c));
    CHECK_EQ(r->dt.cfg.out_warn, 63);
    rig_done(r);
}

/* Every check of ofl_dt_init on the caller memory, one at a time. */
static void test_init_memory(void)
{
    static struct ofl_dt dt;
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_mem m;
    struct ofl_port p;
    unsigned i;

    CHECK(r != NULL);
    for (i = 0; i < 31; i++) {
        m = r->mem;
        switch (i) {
        case 0: m.out_slots = 3; break;
        case 1: m.in_pa += 16; break;
        case 2: m.in_stage = NULL; break;
        case 3: m.out_stage = NULL; break;
        case 4: m.in_batch = 0; break;
        case 5: m.out_batch = 0; break;
        case 6: m.in_batch = m.in_slots + 1; break;
        case 7: m.out_batch = m.out_slots + 1; break;
        case 8: m.conn = NULL; break;
        case 9: m.conn_cap = 0; break;
        case 10: m.conn_cap = (1u << 24) + 1; break;
        case 11: m.conn_data = NULL; break;
        case 12: m.rx_size = 8; break;
        case 13: m.rx_size = 48; break; /* not a power of two */
        case 14: m.tx_size = 8; break;
        case 15: m.rx_size = 1u << 31; break;
        case 16: m.tx_size = 1u << 31; break;
        case 17: m.rbuf = NULL; break;
        case 18: m.rbuf_cap = 0; break;
        case 19: m.rbuf_cap = (1u << 24) + 1; break;
        case 20: m.xfer = NULL; break;
        case 21: m.xfer_cap = 0; break;
        case 22: m.cache = NULL; break;
        case 23: m.cache_slot_size = 0; break;
        case 24: m.cache_slots = 257; break;
        case 25: m.ctrl = NULL; break;
        case 26: m.in_pa = ~0ull - 31; break; /* the table would wrap */
        case 27: m.in_slots = 1; break;
        case 28: m.tx_size = 24; break;
        case 29: m.conn_cap = 0; m.conn = NULL; break;
        default: m.host_hi = m.host_lo - 1; break;
        }
        CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    }
    m = r->mem;
    CHECK_ERR(ofl_dt_init(NULL, &m, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_init(&dt, NULL, &r->cfg, &r->sim.port, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_init(&dt, &m, NULL, &r->sim.port, 0), OFL_E_ARG);
    p = r->sim.port;
    p.version = 0;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &p, 0), OFL_E_PORT_VERSION);
    p = r->sim.port;
    p.dma_read = NULL;
    CHECK_ERR(ofl_dt_init(&dt, &m, &r->cfg, &p, 0), OFL_E_PORT_HOOK);
    /* The limits themselves pass. */
    m.rx_size = 16;
    m.in_batch = m.in_slots;
    m.out_batch = m.out_slots;
    m.cache_slots = 0;
    m.cache = NULL;
    m.cache_data = NULL;
    CHECK_OK(ofl_dt_init(&dt, &m, &r->cfg, &r->sim.port, 0));
    rig_done(r);
}

/* ---- the output table under a failing port or without room ----------------- */

/* A flush that fails between its two runs keeps the rest staged, in order;
 * a reclaim that cannot read learns nothing; a stage that cannot be
 * flushed loses the response it cannot hold (counted); overflow with
 * irq_overflow NONE raises nothing. */
static void test_output_port_failures(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    uint32_t i, n;
    uint8_t *b;
    uint64_t id;

    ofl_dt_config_default(&c);
    c.irq_response = OFL_DT_IRQ_NONE;
    r = dt_rig_new(&c, 8);
    CHECK(r != NULL);
    for (i = 0; i < 6; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        d.tag = 100 + i;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 6);
    for (i = 0; i < 4; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        d.tag = 200 + i;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(ofl_dt_process(&r->dt, 0, 100, &n));
    CHECK_EQ(n, 4);
    CHECK_EQ(r->dt.out_staged, 4);
    r->sim.fail_dma_countdown = 2; /* slots 6, 7 written; the wrap fails */
    CHECK_ERR(ofl_dt_flush(&r->dt), OFL_E_PORT_DMA);
    CHECK_EQ(r->dt.out_staged, 2);
    CHECK_EQ(r->dt.out_tail, 8);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 200 && rsp[1].tag == 201);
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 202 && rsp[1].tag == 203);
    CHECK_EQ(r->dt.stats.responses, 10);
    /* The host read everything; a reclaim whose read fails sees none of
     * it, the next one all of it. */
    n = r->dt.out_tail - r->dt.out_head;
    CHECK(n != 0);
    r->sim.fail_dma_countdown = 1;
    CHECK_EQ(ofl_dt_out_room(&r->dt), 8 - n);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 8);
    rig_done(r);

    /* One descriptor per stage: a cancellation answers the send it drops
     * and itself; the stage holding the first cannot be flushed, so the
     * second is lost. */
    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 100;
    r = dt_rig_new_sized(&c, 8, 1);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_send(r, id, b, 16, 0, 7));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.xfer_count, 1);
    d = mk(OFL_DT_REQ_CANCEL);
    d.aux = 7;
    d.tag = 8;
    CHECK_OK(dt_rig_post(r, &d));
    r->sim.fail_dma_countdown = 2; /* the input read passes, the flush fails */
    CHECK_OK(ofl_dt_process(&r->dt, 2, 10, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(r->dt.stats.lost, 1);
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 7 && rsp[0].status == OFL_DT_ST_CANCELLED);
    CHECK_EQ(r->dt.xfer_count, 0);
    rig_done(r);

    /* Overflow danger with no vector: noted, nothing raised. */
    ofl_dt_config_default(&c);
    c.out_warn = 6;
    c.irq_overflow = OFL_DT_IRQ_NONE;
    c.irq_response = OFL_DT_IRQ_NONE;
    r = dt_rig_new(&c, 8);
    CHECK(r != NULL);
    for (i = 0; i < 3; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(r->dt.warned, 1);
    CHECK_EQ(r->dt.stats.irq_overflow, 0);
    CHECK_EQ(r->sim.nevents, 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    rig_done(r);
}

/* Fills the output table with responses the host does not read yet. */
static void out_fill(struct dt_rig *r, uint64_t now)
{
    struct ofl_dt_desc d;
    uint32_t n = ofl_dt_out_room(&r->dt), i;

    for (i = 0; i < n; i++) {
        d = mk(OFL_DT_REQ_CANCEL);
        d.aux = 0xF111;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, now));
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
}

/* Reads the fill-up responses back, lets the waiting request go and
 * returns how many responses it got (in rsp[]). */
static uint32_t out_drain(struct dt_rig *r, uint32_t filled, uint64_t now)
{
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), filled);
    CHECK_OK(dt_rig_poll(r, now));
    return dt_rig_take(r, rsp, NRSP);
}

/* Posts a listen on port with tag, processes it; returns the id of the
 * LISTEN_WAIT entry it made (found in the table: the host is not told). */
static uint64_t listen_posted(struct dt_rig *r, uint16_t port, uint32_t tag)
{
    uint8_t t[16];
    size_t off = 0;
    uint32_t i;

    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, port);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, tag,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 1));
    for (i = 0; i < DT_RIG_CONNS; i++)
        if (r->conn[i].state == OFL_DT_CONN_LISTEN_WAIT &&
            r->conn[i].lport == port)
            return ((uint64_t)r->conn[i].gen << 32) | (i + 1);
    CHECK(!"no LISTEN_WAIT entry");
    return 0;
}

/* The firmware takes the LISTEN action of l (the only action pending). */
static void listen_taken(struct dt_rig *r, uint64_t l)
{
    uint32_t cursor = 0;
    uint64_t id = 0;
    uint8_t act = 0;

    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(id == l && act == OFL_DT_ACT_LISTEN);
}

/* ofl_dt_listen_result: every check trips and passes; OK makes a listener,
 * FAILED frees the entry, both write the listen response (seed 003). */
static void test_listen_result(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_conn_info info;
    uint64_t l, l2, c, nid;
    uint32_t filled, cursor = 0;
    uint8_t act, addr[16] = {0};

    CHECK(r != NULL);
    c = dt_rig_connect(r, 1, 0);
    l = listen_posted(r, 80, 21);
    CHECK(c != 0 && l != 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* not answered yet */
    /* Arguments. */
    CHECK_ERR(ofl_dt_listen_result(NULL, l, OFL_DT_ST_OK, 1), OFL_E_ARG);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_TIMEOUT, 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_CANCELLED, 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l + 1, OFL_DT_ST_OK, 1),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l ^ (1ull << 32), OFL_DT_ST_OK, 1),
              OFL_E_DT_CONN_UNKNOWN); /* stale generation */
    /* Not the firmware's to answer before it took the action; never on a
     * connection. */
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_OK, 1),
              OFL_E_DT_CONN_STATE);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, c, OFL_DT_ST_OK, 1),
              OFL_E_DT_CONN_STATE);
    listen_taken(r, l);
    /* No room in the output: refused, nothing changed. */
    filled = ofl_dt_out_room(&r->dt);
    out_fill(r, 2);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_OK, 2), OFL_E_DT_FULL);
    CHECK_OK(ofl_dt_conn_query(&r->dt, l, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_LISTEN_WAIT);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), filled);
    /* Room again: OK, the listen response names the listener. */
    CHECK_OK(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_OK, 3));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_LISTEN && rsp[0].status == OFL_DT_ST_OK &&
          rsp[0].tag == 21 && rsp[0].conn == l);
    CHECK_OK(ofl_dt_conn_query(&r->dt, l, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_LISTENING);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 9, 3, &nid));
    /* Answered once: a second answer is refused. */
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_OK, 3),
              OFL_E_DT_CONN_STATE);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_FAILED, 3),
              OFL_E_DT_CONN_STATE);
    CHECK_OK(dt_rig_poll(r, 100)); /* the arrival notice */
    (void)dt_rig_take(r, rsp, NRSP);

    /* FAILED: the response carries it, the entry is freed at once, the
     * port is free again, nothing is left for the firmware. */
    l2 = listen_posted(r, 81, 22);
    listen_taken(r, l2);
    CHECK_EQ(r->dt.conn_live, 4);
    CHECK_OK(ofl_dt_listen_result(&r->dt, l2, OFL_DT_ST_FAILED, 4));
    CHECK_EQ(r->dt.conn_live, 3);
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_LISTEN &&
          rsp[0].status == OFL_DT_ST_FAILED && rsp[0].tag == 22 &&
          rsp[0].conn == l2);
    CHECK_ERR(ofl_dt_conn_query(&r->dt, l2, &info), OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l2, OFL_DT_ST_OK, 4),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &nid, &act),
              OFL_E_DT_EMPTY);
    CHECK(dt_rig_listen(r, 81, 5) != 0);
    rig_done(r);
}


/* The port a listen names is its last LOCAL_PORT tuple, the one applied:
 * 80 then 0 names no port (BAD_TUPLE); 0 then 80 names 80. */
static void test_listen_last_port(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_conn_info info;
    uint8_t t[64];
    size_t off = 0;

    CHECK(r != NULL);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 2, 5,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 0);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 2, 6,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 5 && rsp[0].type == OFL_DT_RSP_LISTEN &&
          rsp[0].status == OFL_DT_ST_BAD_TUPLE && rsp[0].conn == 0);
    CHECK_EQ(r->dt.conn_live, 1);
    CHECK_OK(ofl_dt_conn_query(&r->dt, ((uint64_t)r->dt.mem.conn[0].gen << 32) | 1u,
                               &info));
    CHECK(info.state == OFL_DT_CONN_LISTEN_WAIT && info.lport == 80);
    rig_done(r);
}

/*
 * A listener the firmware listens for keeps its port while it drains: a
 * listen on that port is refused (CONN_STATE) until the firmware has
 * stopped (ofl_dt_conn_closed), so the firmware never listens twice on one
 * port. The drain is held up by a member's open range in the listener's
 * shared buffer, which needs two output slots while one is free.
 */
static void test_listen_port_draining(void)
{
    struct ofl_dt_config cfg;
    struct dt_rig *r;
    struct ofl_dt_desc d;
    struct ofl_dt_conn_info info;
    static const uint8_t raddr[16] = {0};
    static const uint8_t data[10] = {1, 2, 3};
    uint64_t l, m, id;
    uint32_t cursor = 0, i, n;
    uint8_t act, *buf, t[16];
    size_t off = 0;

    ofl_dt_config_default(&cfg);
    cfg.cn_criteria = OFL_DT_CN_COUNT; /* arrival notices stay pending */
    cfg.cn_count = 100;
    r = dt_rig_new(&cfg, 8);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 1);
    CHECK(l != 0);
    buf = dt_rig_alloc(r, 256);
    CHECK_OK(dt_rig_avail(r, l, buf, 256, 0, 0, 50));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, raddr, 1234, 3, &m));
    CHECK_OK(ofl_dt_rx(&r->dt, m, data, sizeof(data), 4));
    CHECK_OK(dt_rig_poll(r, 5));
    (void)dt_rig_take(r, rsp, NRSP);
    /* 7 of the 8 output slots taken by refusals the host leaves there */
    for (i = 0; i < 7; i++) {
        memset(&d, 0, sizeof(d));
        d.type = OFL_DT_REQ_TERMINATE;
        d.conn = 0x7777000000000001ull;
        CHECK_OK(dt_rig_post(r, &d));
    }
    CHECK_OK(dt_rig_poll(r, 6));
    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_TERMINATE;
    d.conn = l;
    d.tag = 60;
    CHECK_OK(dt_rig_post(r, &d));
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 61,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 7));
    CHECK_OK(ofl_dt_conn_query(&r->dt, l, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_DRAINING);
    /* the listen was refused: the firmware is not asked to listen again */
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act), OFL_E_DT_EMPTY);
    n = dt_rig_take(r, rsp, NRSP);
    CHECK_EQ(n, 8);
    CHECK(rsp[7].tag == 61 && rsp[7].type == OFL_DT_RSP_LISTEN &&
          rsp[7].status == OFL_DT_ST_CONN_STATE);
    /* the drain ends in UNLISTEN; the port is still the firmware's */
    for (i = 0; i < 4; i++) {
        CHECK_OK(dt_rig_poll(r, 8 + i));
        (void)dt_rig_take(r, rsp, NRSP);
    }
    CHECK_OK(ofl_dt_conn_query(&r->dt, l, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_UNLISTEN);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 62,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 12));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 62 && rsp[0].status == OFL_DT_ST_CONN_STATE);
    /* the firmware stopped: now the port is free */
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l, 13));
    CHECK(dt_rig_listen(r, 80, 14) != 0);
    rig_done(r);
}

/* An unanswered listen is no listener yet: requests naming it are
 * refused (the host was not told its id), another listen on its port too;
 * a cancellation drains it and answers its listen with CANCELLED. */
static void test_listen_wait(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    uint64_t l, c, id;
    uint8_t *b = NULL, t[32], act;
    size_t off = 0;
    uint32_t cursor = 0;

    CHECK(r != NULL);
    c = dt_rig_connect(r, 1, 0);
    l = listen_posted(r, 80, 30);
    CHECK(c != 0 && l != 0);
    b = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, l, b, 64, 0, 0, 31));  /* a shared buffer */
    CHECK_OK(dt_rig_send(r, l, b, 8, 0, 32));       /* a group send */
    d = mk(OFL_DT_REQ_TERMINATE);
    d.conn = l;
    d.tag = 33;
    CHECK_OK(dt_rig_post(r, &d));
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, l); /* join its group */
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, c, t, (uint32_t)off, 1, 34,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 80); /* its port */
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 35,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 5);
    CHECK(rsp[0].tag == 31 && rsp[0].status == OFL_DT_ST_CONN_STATE);
    CHECK(rsp[1].tag == 32 && rsp[1].status == OFL_DT_ST_CONN_STATE);
    CHECK(rsp[2].tag == 33 && rsp[2].status == OFL_DT_ST_CONN_STATE);
    CHECK(rsp[3].tag == 34 && rsp[3].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[4].tag == 35 && rsp[4].status == OFL_DT_ST_CONN_STATE &&
          rsp[4].type == OFL_DT_RSP_LISTEN && rsp[4].conn == 0);
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_LISTEN_WAIT);

    /* Cancelled before the firmware took it: freed, its action gone. */
    d = mk(OFL_DT_REQ_CANCEL);
    d.aux = 30; /* by the listen's tag */
    d.tag = 36;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_LISTEN &&
          rsp[0].status == OFL_DT_ST_CANCELLED && rsp[0].tag == 30 &&
          rsp[0].conn == l);
    CHECK(rsp[1].type == OFL_DT_RSP_CANCEL && rsp[1].tag == 36 &&
          rsp[1].status == OFL_DT_ST_OK && rsp[1].number == 1);
    CHECK_EQ(r->dt.conn_live, 1);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &id, &act),
              OFL_E_DT_EMPTY);

    /* Cancelled after the firmware took it: answered the same, then the
     * entry waits in UNLISTEN until the firmware has stopped; an answer
     * that comes too late is refused. */
    l = listen_posted(r, 80, 40);
    listen_taken(r, l);
    d = mk(OFL_DT_REQ_CANCEL);
    d.conn = l;
    d.tag = 41;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_LISTEN &&
          rsp[0].status == OFL_DT_ST_CANCELLED && rsp[0].tag == 40);
    CHECK(rsp[1].type == OFL_DT_RSP_CANCEL && rsp[1].number == 1);
    CHECK_EQ(r->conn[(uint32_t)l - 1].state, OFL_DT_CONN_UNLISTEN);
    CHECK_ERR(ofl_dt_listen_result(&r->dt, l, OFL_DT_ST_OK, 3),
              OFL_E_DT_CONN_STATE);
    cursor = 0;
    CHECK_OK(ofl_dt_next_action(&r->dt, &cursor, &id, &act));
    CHECK(id == l && act == OFL_DT_ACT_CLOSE);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, l, 3));
    CHECK_EQ(r->dt.conn_live, 1);
    rig_done(r);
}

/* With the output table full every request that must answer at once
 * stays in the input table, and goes when the host has read. */
static void test_output_full_requests(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 8);
    struct ofl_dt_desc d;
    uint8_t t[64];
    size_t off;
    uint32_t n, filled, k;
    uint64_t l, id;

    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    id = dt_rig_connect(r, 1, 0);
    CHECK(l != 0 && id != 0);
    for (k = 0; k < 8; k++) {
        filled = ofl_dt_out_room(&r->dt);
        out_fill(r, 1);
        off = 0;
        switch (k) {
        case 0: /* connect */
            dt_tup_remote(t, &off, 9, 99);
            CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONNECT, 0, t, (uint32_t)off, 1,
                                 40, NULL));
            break;
        case 1: /* listen */
            dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 81);
            CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1,
                                 41, NULL));
            break;
        case 2: /* adapter attribute */
            dt_tup_u32(t, &off, false, OFL_DT_ATTR_CONN_COUNT, 0);
            CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t,
                                 (uint32_t)off, 1, 42, NULL));
            break;
        case 3: /* connection attribute */
            dt_tup_u32(t, &off, false, OFL_DT_ATTR_STATE, 0);
            CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off,
                                 1, 43, NULL));
            break;
        case 4: /* a malformed request, refused */
            memset(r->in_table + (r->host.in_tail & 7) * 32, 0, 32);
            r->in_table[(r->host.in_tail & 7) * 32] =
                OFL_DT_OWNER | (OFL_DT_REQ_TERMINATE << 2);
            ofl_store_be32(r->in_table + (r->host.in_tail & 7) * 32 + 4, 44);
            r->host.in_tail++;
            break;
        case 5: /* a send for no connection, refused */
            CHECK_OK(dt_rig_send(r, id + 1, t, 4, 0, 45));
            break;
        case 6: /* a cancellation of a connection with nothing pending */
            d = mk(OFL_DT_REQ_CANCEL);
            d.conn = id;
            d.tag = 46;
            CHECK_OK(dt_rig_post(r, &d));
            break;
        default: /* termination of a listener */
            d = mk(OFL_DT_REQ_TERMINATE);
            d.conn = l;
            d.tag = 47;
            CHECK_OK(dt_rig_post(r, &d));
            break;
        }
        CHECK_OK(ofl_dt_process(&r->dt, 2, 10, &n));
        CHECK_EQ(n, 0);
        if (k == 0) {
            /* A connect is answered when it completes: consumed now. */
            CHECK_EQ(out_drain(r, filled, 3), 0);
            CHECK_EQ(r->dt.connecting, 1);
            continue;
        }
        if (k == 1) {
            /* So is a listen: when the firmware has answered. */
            CHECK_EQ(out_drain(r, filled, 3), 0);
            CHECK_EQ(r->dt.mem.conn[3].state, OFL_DT_CONN_LISTEN_WAIT);
            continue;
        }
        CHECK_EQ(out_drain(r, filled, 3), 1);
        CHECK_EQ(rsp[0].tag, 40 + k);
    }
    CHECK_EQ(rsp[0].type, OFL_DT_RSP_TERMINATE);
    rig_done(r);
}

/* Every service step with the output table full: notices, the transfer
 * list, a peek, a placement that must report first, a due note. Nothing
 * is lost; each goes on once the host has read. */
static void test_output_full_service(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    static const uint8_t addr[16] = {0};
    uint64_t l, a, b, id;
    uint32_t filled;
    uint8_t *x, *y, *p, *s;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 2;
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 100;
    c.conn.notify_mode = OFL_DT_NOTIFY_TIME;
    c.conn.notify_delay = 10;
    c.irq_response = OFL_DT_IRQ_NONE;
    r = dt_rig_new(&c, 8);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &a));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* one of two: held */
    /* Notices: the count is met but there is no room. */
    filled = ofl_dt_out_room(&r->dt);
    out_fill(r, 1);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 1, &b));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->dt.cn_pending, 2);
    CHECK_EQ(out_drain(r, filled, 2), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == a);
    CHECK(rsp[1].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[1].conn == b);
    CHECK_EQ(r->dt.cn_pending, 0);
    /* The transfer list: its criterion met, no room for the answer. */
    s = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_send(r, a, s, 16, 0, 30));
    CHECK_OK(dt_rig_poll(r, 3));
    filled = ofl_dt_out_room(&r->dt);
    out_fill(r, 3);
    c.bt_criteria = 0;
    CHECK_OK(ofl_dt_configure(&r->dt, &c));
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(r->conn[(uint32_t)a - 1].tx_tail, 0);
    CHECK_EQ(out_drain(r, filled, 5), 1);
    CHECK(rsp[0].tag == 30 && rsp[0].status == OFL_DT_ST_OK);
    /* A peek with no room for its answer: the data waits staged. */
    p = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, a, p, 4, OFL_DT_F_PEEK, 0, 31));
    CHECK_OK(dt_rig_poll(r, 6));
    filled = ofl_dt_out_room(&r->dt);
    out_fill(r, 6);
    rx(r, a, "peek", 7);
    CHECK_OK(dt_rig_poll(r, 7));
    CHECK(r->conn[(uint32_t)a - 1].peek != 0);
    CHECK_EQ(out_drain(r, filled, 8), 1);
    CHECK(rsp[0].tag == 31 && rsp[0].len == 4 && memcmp(p, "peek", 4) == 0);
    /* A full buffer's note must go out before the next buffer is used;
     * with no room the rest waits, and so does the due note. */
    id = a;
    x = dt_rig_alloc(r, 16);
    y = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, x, 4, 0, 0, 32)); /* takes "peek" */
    CHECK_OK(dt_rig_poll(r, 9));
    CHECK_OK(dt_rig_poll(r, 19));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_OK(dt_rig_avail(r, id, x, 4, 0, 0, 32));
    CHECK_OK(dt_rig_avail(r, id, y, 8, 0, 0, 33));
    CHECK_OK(dt_rig_poll(r, 9));
    filled = ofl_dt_out_room(&r->dt);
    out_fill(r, 9);
    rx(r, id, "abcdef", 10);
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK(memcmp(x, "abcd", 4) == 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             2);
    CHECK(r->conn[(uint32_t)id - 1].note.open && r->conn[(uint32_t)id - 1].note.final);
    CHECK_EQ(out_drain(r, filled, 11), 1);
    CHECK(rsp[0].tag == 32 && rsp[0].len == 4 && (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(memcmp(y, "ef", 2) == 0);
    CHECK_OK(dt_rig_poll(r, 21)); /* y's note is due after 10 */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 33 && rsp[0].len == 2 && !(rsp[0].flags & OFL_DT_F_FINAL));
    CHECK_EQ(r->dt.stats.lost, 0);
    rig_done(r);
}

/* ---- connections: closing, full table, firmware events ---------------------- */

/* Closing a connection with everything open at once: its arrival notice,
 * an open receive range, an outstanding peek, a partly and an un-filled
 * buffer, a listed send; all reported in that order, then the
 * termination response. Only ESTABLISHED or CLOSING entries close. */
static void test_closed_everything(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    static const uint8_t addr[16] = {0};
    uint64_t l, id, k;
    uint8_t *a, *b, *p, *s;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 5;
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 100;
    c.conn.notify_mode = OFL_DT_NOTIFY_TIME;
    c.conn.notify_delay = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &id));
    a = dt_rig_alloc(r, 16);
    b = dt_rig_alloc(r, 16);
    p = dt_rig_alloc(r, 16);
    s = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, a, 16, 0, 0, 21));
    CHECK_OK(dt_rig_poll(r, 1));
    rx(r, id, "hello", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_OK(dt_rig_avail(r, id, p, 8, OFL_DT_F_PEEK, 0, 22));
    CHECK_OK(dt_rig_avail(r, id, b, 16, 0, 0, 24));
    CHECK_OK(dt_rig_send(r, id, s, 8, 0, 23));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* all of it still held */
    CHECK_ERR(ofl_dt_conn_closed(NULL, id, 4), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, l, 4), OFL_E_DT_CONN_STATE);
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 4));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 7);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == id);
    CHECK(rsp[1].type == OFL_DT_RSP_BUF_RECV && rsp[1].tag == 21 &&
          rsp[1].aux == 0 && rsp[1].len == 5 && rsp[1].status == OFL_DT_ST_OK);
    CHECK(rsp[2].tag == 22 && rsp[2].status == OFL_DT_ST_FLUSHED &&
          rsp[2].flags == (OFL_DT_F_FINAL | OFL_DT_F_PEEK));
    CHECK(rsp[3].tag == 21 && rsp[3].aux == 5 && rsp[3].len == 0 &&
          rsp[3].status == OFL_DT_ST_FLUSHED);
    CHECK(rsp[4].tag == 24 && rsp[4].aux == 0 && rsp[4].status == OFL_DT_ST_FLUSHED);
    CHECK(rsp[5].type == OFL_DT_RSP_BUF_AVAIL && rsp[5].tag == 23 &&
          rsp[5].status == OFL_DT_ST_FLUSHED);
    CHECK(rsp[6].type == OFL_DT_RSP_TERMINATE && rsp[6].tag == 0 &&
          rsp[6].conn == id);
    CHECK_EQ(r->dt.cn_pending, 0);
    CHECK_EQ(r->dt.xfer_count, 0);
    CHECK_EQ(r->dt.conn_live, 1); /* the listener */
    /* A connect still in progress does not close either. */
    open_n(r, 1, &k, 5);
    CHECK_ERR(ofl_dt_conn_closed(&r->dt, k, 5), OFL_E_DT_CONN_STATE);
    rig_done(r);
}

/* A finished send leaves nothing counted against its connection: closing
 * it needs one slot only (regression: the count stayed, so the close
 * asked for a slot too many). */
static void test_closed_after_send(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 2);
    uint64_t id;
    uint8_t *s;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    s = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_send(r, id, s, 8, 0, 5));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(r->conn[(uint32_t)id - 1].xfer_n, 0);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 1); /* the send's answer is unread */
    CHECK_OK(ofl_dt_conn_closed(&r->dt, id, 2));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 5 && rsp[1].type == OFL_DT_RSP_TERMINATE);
    rig_done(r);
}

/* The connection table full: the last free entry is found, then connects,
 * listens and arrivals are refused. Generations wrap past 0. */
static void test_conn_table_full(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    static const uint8_t addr[16] = {0};
    uint64_t ids[DT_RIG_CONNS], l, x;
    uint8_t t[64];
    size_t off = 0;

    CHECK(r != NULL);
    open_n(r, DT_RIG_CONNS - 1, ids, 0);
    l = dt_rig_listen(r, 80, 0);
    CHECK_EQ((uint32_t)l, DT_RIG_CONNS); /* the last entry */
    CHECK_EQ(r->dt.conn_live, DT_RIG_CONNS);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 81);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 9, NULL));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 9 && rsp[0].status == OFL_DT_ST_NO_RESOURCE);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 1, &x), OFL_E_DT_NO_CONN);
    rig_done(r);

    /* An entry whose generation is at its end: the next one is 1, not 0. */
    r = dt_rig_new(NULL, 0);
    CHECK(r != NULL);
    r->conn[0].gen = 0xFFFFFFFFu;
    open_n(r, 1, ids, 0);
    CHECK_EQ(ids[0], 0xFFFFFFFF00000001ull);
    CHECK_OK(ofl_dt_conn_failed(&r->dt, ids[0], OFL_DT_ST_FAILED, 1));
    CHECK_OK(dt_rig_poll(r, 1)); /* the notice out, the entry freed */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_EQ(r->conn[0].gen, 1);
    CHECK_ERR(ofl_dt_conn_query(&r->dt, ids[0], NULL), OFL_E_ARG);
    rig_done(r);
}

/* The argument and state checks of the firmware-side functions. */
static void test_firmware_arguments(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    static const uint8_t addr[16] = {0};
    struct ofl_dt_conn_info info;
    const uint8_t *p;
    uint64_t id, k, x;
    uint32_t n, cursor = 0;
    uint8_t act;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    open_n(r, 1, &k, 0); /* CONNECTING */
    CHECK_ERR(ofl_dt_conn_established(NULL, k, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_failed(NULL, k, OFL_DT_ST_FAILED, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_failed(&r->dt, k, OFL_DT_ST_OK, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_failed(&r->dt, k + 1, OFL_DT_ST_FAILED, 0),
              OFL_E_DT_CONN_UNKNOWN);
    CHECK_ERR(ofl_dt_conn_arrive(NULL, id, addr, 1, 0, &x), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, id, NULL, 1, 0, &x), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_arrive(&r->dt, id, addr, 1, 0, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_rx(NULL, id, addr, 1, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_rx(&r->dt, k, addr, 1, 0), OFL_E_DT_CONN_STATE);
    CHECK_OK(ofl_dt_rx(&r->dt, id, addr, 1, 0));
    CHECK_ERR(ofl_dt_tx_peek(NULL, id, &p, &n), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tx_peek(&r->dt, id, NULL, &n), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tx_peek(&r->dt, id, &p, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tx_peek(&r->dt, id + 2, &p, &n), OFL_E_DT_CONN_UNKNOWN);
    CHECK_OK(ofl_dt_tx_peek(&r->dt, id, &p, &n));
    CHECK_EQ(n, 0);
    CHECK_ERR(ofl_dt_tx_consume(NULL, id, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_dt_tx_consume(&r->dt, id, 1, 0), OFL_E_DT_TX_RANGE);
    CHECK_ERR(ofl_dt_next_action(NULL, &cursor, &x, &act), OFL_E_ARG);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, NULL, &act), OFL_E_ARG);
    CHECK_ERR(ofl_dt_next_action(&r->dt, &cursor, &x, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_dt_conn_query(NULL, id, &info), OFL_E_ARG);
    CHECK_OK(ofl_dt_conn_query(&r->dt, k, &info));
    CHECK_EQ(info.state, OFL_DT_CONN_CONNECTING);
    rig_done(r);
}

/* ---- receives: edges ----------------------------------------------------------- */

/* Staged data and its placement across the end of the staging ring. */
static void test_rx_ring_wrap(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    static uint8_t data[DT_RIG_RX];
    uint8_t *a, *b;
    uint64_t id;
    uint32_t i;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    for (i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 7 + 1);
    a = dt_rig_alloc(r, 4000);
    b = dt_rig_alloc(r, 200);
    CHECK_OK(dt_rig_avail(r, id, a, 4000, 0, 0, 1));
    CHECK_OK(ofl_dt_rx(&r->dt, id, data, 4000, 0));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(memcmp(a, data, 4000) == 0);
    /* 200 more: 96 to the end of the ring, 104 from its start. */
    CHECK_OK(ofl_dt_rx(&r->dt, id, data + 3000, 200, 1));
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail, 4200);
    CHECK_OK(dt_rig_avail(r, id, b, 200, 0, 0, 2));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].len == 200);
    CHECK(memcmp(b, data + 3000, 200) == 0);
    rig_done(r);
}

/* A long run of placements into one buffer: the combined count saturates
 * at 255 (the field's width) while the length keeps counting; a history
 * of 32 placements, all hits, makes the connection wait. */
static void test_rx_long_run(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint8_t *own, *bulk;
    uint64_t id;
    uint32_t i;

    ofl_dt_config_default(&c);
    c.conn.notify_mode = OFL_DT_NOTIFY_BYTES;
    c.conn.notify_bytes = 1000;
    c.conn.wait_limit = 5;
    c.conn.hist_window = 32;
    c.conn.hist_threshold = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    own = dt_rig_alloc(r, 256);
    CHECK_OK(dt_rig_avail(r, id, own, 256, 0, 0, 1));
    for (i = 0; i < 256; i++) {
        uint8_t byte = (uint8_t)i;

        CHECK_OK(ofl_dt_rx(&r->dt, id, &byte, 1, i));
        CHECK_OK(dt_rig_poll(r, i));
    }
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 1 && rsp[0].len == 256 && rsp[0].number == 255 &&
          (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(own[0] == 0 && own[255] == 255);
    CHECK_EQ(r->dt.stats.combined, 255);
    CHECK_EQ(r->conn[(uint32_t)id - 1].hist_n, 32);
    CHECK_EQ(r->conn[(uint32_t)id - 1].hist, 0xFFFFFFFFu);
    /* 32 of 32 found a buffer: it waits for one before taking bulk. */
    bulk = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, 0, bulk, 64, 0, 0, 2));
    rx(r, id, "x", 300);
    CHECK_OK(dt_rig_poll(r, 304));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 305));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].len == 1);
    CHECK_EQ(r->dt.stats.waited, 1);
    rig_done(r);
}

/* Placement order: a starved receiver before a higher priority one. */
static void test_rx_starved_first(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint8_t t[32], *b1, *b2;
    size_t off = 0;
    uint64_t hi, lo;

    ofl_dt_config_default(&c);
    c.starve_time = 10;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    hi = dt_rig_connect(r, 1, 0);
    lo = dt_rig_connect(r, 2, 0);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 7);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, hi, t, (uint32_t)off, 1, 0,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    b1 = dt_rig_alloc(r, 16);
    b2 = dt_rig_alloc(r, 16);
    rx(r, lo, "low", 0);
    rx(r, hi, "high", 4);
    CHECK_OK(dt_rig_avail(r, 0, b1, 16, 0, 0, 1));
    CHECK_OK(dt_rig_poll(r, 5)); /* nobody starved: priority 7 first */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == hi && rsp[0].tag == 1);
    rx(r, hi, "again", 20);
    CHECK_OK(dt_rig_avail(r, 0, b2, 16, 0, 0, 2));
    CHECK_OK(dt_rig_poll(r, 20)); /* "low" waited 20 >= 10: starved */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].conn == lo && rsp[0].tag == 2 && memcmp(b2, "low", 3) == 0);
    rig_done(r);
}

/* A full buffer's note waits behind the connection's pending arrival
 * notice, and so does the placement into the next buffer. */
static void test_rx_note_after_notice(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    static const uint8_t addr[16] = {0};
    uint8_t *x, *y;
    uint64_t l, id;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 5;
    c.cn_max_delay = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &id));
    x = dt_rig_alloc(r, 16);
    y = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, x, 4, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, y, 8, 0, 0, 2));
    rx(r, id, "abcdef", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK(memcmp(x, "abcd", 4) == 0 && y[0] == 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             2);
    CHECK_OK(dt_rig_poll(r, 100)); /* the maximum delay releases it */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL && rsp[0].conn == id);
    CHECK(rsp[1].tag == 1 && rsp[1].len == 4);
    CHECK_OK(dt_rig_poll(r, 101));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].len == 2 && memcmp(y, "ef", 2) == 0);
    rig_done(r);
}

/* Two buffers at the same address one after the other: their ranges are
 * not one (different buffers), so two responses. */
static void test_rx_same_address(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t id;
    uint8_t *x;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    x = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, x, 4, 0, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, x, 4, 0, 0, 2));
    rx(r, id, "abcdef", 1);
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 1 && rsp[0].aux == 0 && rsp[0].len == 4 &&
          (rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(rsp[1].tag == 2 && rsp[1].aux == 0 && rsp[1].len == 2);
    CHECK(memcmp(x, "efcd", 4) == 0);
    rig_done(r);
}

/* Best fit over a list that visits every case: larger and smaller
 * non-fitting ones before a fit, larger and smaller fits after it, a
 * non-fitting one after a fit. */
static void test_rx_bulk_pick_order(void)
{
    static const uint32_t sizes[] = {10, 80, 150, 100, 40, 20, 30};
    struct dt_rig *r = dt_rig_new(NULL, 0);
    static char data[61];
    uint8_t *b;
    uint64_t id;
    uint32_t i;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    /* Posted last is looked at first: 30 20 40 100 150 80 10. */
    for (i = 0; i < 7; i++) {
        b = dt_rig_alloc(r, sizes[i]);
        CHECK_OK(dt_rig_avail(r, 0, b, sizes[i], 0, 0, sizes[i]));
    }
    memset(data, 'p', 60);
    rx(r, id, data, 0);
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 80 && rsp[0].len == 60);
    rig_done(r);
}

/* A DMA failure into an own buffer whose note is still open (the
 * notification delayed): the note of what the buffer holds goes out, then
 * the buffer FINAL with DMA status and aux = its fill, and the next buffer
 * takes the data. */
static void test_rx_fail_open_note(void)
{
    struct ofl_dt_config cfg;
    struct dt_rig *r;
    uint64_t id;
    uint8_t *b, *p;

    ofl_dt_config_default(&cfg);
    cfg.conn.notify_mode = OFL_DT_NOTIFY_TIME;
    cfg.conn.notify_delay = 1000;
    r = dt_rig_new(&cfg, 0);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, b, 8, 0, 0, 2));
    CHECK_OK(dt_rig_poll(r, 0));
    (void)dt_rig_take(r, rsp, NRSP);
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)"data", 4, 1));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0); /* the note waits */
    CHECK_OK(ofl_dt_rx(&r->dt, id, (const uint8_t *)"more", 4, 2));
    r->sim.fail_dma_countdown = 1; /* the placement */
    CHECK_OK(ofl_dt_service(&r->dt, 2));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_OK &&
          rsp[0].len == 4 && !(rsp[0].flags & OFL_DT_F_FINAL));
    CHECK(rsp[1].tag == 2 && rsp[1].status == OFL_DT_ST_DMA &&
          (rsp[1].flags & OFL_DT_F_FINAL) && rsp[1].aux == 4);
    p = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, p, 8, 0, 0, 3));
    CHECK_OK(dt_rig_poll(r, 2000)); /* placed; its note due at 3000 */
    CHECK_OK(dt_rig_poll(r, 3000));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 3 && rsp[0].len == 4 && memcmp(p, "more", 4) == 0);
    CHECK(memcmp(b, "data", 4) == 0);
    rig_done(r);
}

/* A receive buffer the port never reaches (inside the host range, not
 * mapped): it goes back with DMA status, and another connection's
 * placement goes on; so does a bulk buffer's. */
static void test_rx_unreachable_buffer(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    uint64_t a, b;
    uint8_t *good, *bad;
    uint32_t n, i, dma = 0, ok = 0;

    CHECK(r != NULL);
    a = dt_rig_connect(r, 1, 0);
    b = dt_rig_connect(r, 2, 0);
    good = dt_rig_alloc(r, 64);
    bad = r->arena + DT_RIG_ARENA - 4096;
    r->sim.allow[2].len = DT_RIG_ARENA - 8192; /* unmap the last pages */
    CHECK_OK(dt_rig_avail(r, a, bad, 64, 0, 0, 100));
    CHECK_OK(dt_rig_avail(r, b, good, 64, 0, 0, 200));
    CHECK_OK(dt_rig_avail(r, 0, bad + 64, 64, 0, 0, 300)); /* bulk */
    CHECK_OK(dt_rig_poll(r, 1));
    (void)dt_rig_take(r, rsp, NRSP);
    CHECK_OK(ofl_dt_rx(&r->dt, a, (const uint8_t *)"AAAA", 4, 2));
    CHECK_OK(ofl_dt_rx(&r->dt, b, (const uint8_t *)"BBBB", 4, 2));
    for (i = 3; i < 6; i++)
        (void)dt_rig_poll(r, i);
    n = dt_rig_take(r, rsp, NRSP);
    for (i = 0; i < n; i++) {
        if (rsp[i].status == OFL_DT_ST_DMA &&
            (rsp[i].tag == 100 || rsp[i].tag == 300))
            dma++;
        if (rsp[i].tag == 200 && rsp[i].status == OFL_DT_ST_OK &&
            rsp[i].len == 4)
            ok++;
    }
    CHECK_EQ(dma, 2); /* a's own buffer, then the bulk one it fell back to */
    CHECK_EQ(ok, 1);
    CHECK(memcmp(good, "BBBB", 4) == 0);
    CHECK_EQ(r->sim.violations, 2); /* the two refused attempts, no more */
    r->sim.violations = 0;
    rig_done(r);

    /* A listener's shared buffer the port cannot reach stays (other
     * members' ranges may lie in it) with its member's data, and the
     * error is returned; a connection placed after it still is. */
    {
        static const uint8_t raddr[16] = {0};
        uint64_t l, m;

        r = dt_rig_new(NULL, 0);
        CHECK(r != NULL);
        l = dt_rig_listen(r, 80, 0);
        CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, raddr, 1234, 0, &m));
        CHECK_OK(dt_rig_poll(r, 0));
        (void)dt_rig_take(r, rsp, NRSP); /* the arrival */
        b = dt_rig_connect(r, 2, 0);
        CHECK(b != 0);
        /* same class: table order, m before b */
        CHECK((uint32_t)m < (uint32_t)b);
        good = dt_rig_alloc(r, 64);
        bad = r->arena + DT_RIG_ARENA - 4096;
        r->sim.allow[2].len = DT_RIG_ARENA - 8192;
        CHECK_OK(dt_rig_avail(r, l, bad, 64, 0, 0, 100)); /* shared */
        CHECK_OK(dt_rig_avail(r, b, good, 64, 0, 0, 200));
        CHECK_OK(dt_rig_poll(r, 1));
        (void)dt_rig_take(r, rsp, NRSP);
        CHECK_OK(ofl_dt_rx(&r->dt, m, (const uint8_t *)"MMMM", 4, 2));
        CHECK_OK(ofl_dt_rx(&r->dt, b, (const uint8_t *)"BBBB", 4, 2));
        CHECK_ERR(dt_rig_poll(r, 3), OFL_E_PORT_DMA);
        CHECK(memcmp(good, "BBBB", 4) == 0);
        CHECK_EQ(r->conn[(uint32_t)m - 1].rx_tail -
                     r->conn[(uint32_t)m - 1].rx_head, 4);
        r->sim.violations = 0;
        rig_done(r);
    }
}

/* The port fails under receive placement: a peek is answered with DMA
 * status and nothing; an own buffer the placement cannot reach goes back
 * FINAL with DMA status and what it holds, and its data waits for the
 * next buffer; ofl_dt_poll returns the first error of its steps. */
static void test_rx_port_failures(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    uint8_t *p, *b;
    uint64_t id;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    p = dt_rig_alloc(r, 16);
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_avail(r, id, p, 8, OFL_DT_F_PEEK, 0, 1));
    CHECK_OK(dt_rig_avail(r, id, b, 8, 0, 0, 2));
    CHECK_OK(dt_rig_poll(r, 0));
    rx(r, id, "data", 1);
    r->sim.fail_dma_countdown = 1; /* the peek's copy; the data stays */
    CHECK_OK(ofl_dt_service(&r->dt, 1));
    CHECK_OK(ofl_dt_flush(&r->dt));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 1 && rsp[0].status == OFL_DT_ST_DMA &&
          rsp[0].len == 0 && p[0] == 0);
    CHECK(rsp[1].tag == 2 && rsp[1].len == 4 && memcmp(b, "data", 4) == 0);
    rx(r, id, "more", 2); /* the rest of b */
    r->sim.fail_dma_countdown = 1; /* the placement */
    CHECK_OK(ofl_dt_service(&r->dt, 2));
    CHECK_EQ(r->conn[(uint32_t)id - 1].rx_tail - r->conn[(uint32_t)id - 1].rx_head,
             4);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_DMA &&
          rsp[0].aux == 4 && (rsp[0].flags & OFL_DT_F_FINAL) &&
          memcmp(b, "data", 4) == 0 && b[4] == 0);
    p = dt_rig_alloc(r, 16); /* the next buffer takes the data */
    CHECK_OK(dt_rig_avail(r, id, p, 8, 0, 0, 3));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 3 && rsp[0].status == OFL_DT_ST_OK &&
          rsp[0].len == 4 && memcmp(p, "more", 4) == 0);
    /* ofl_dt_poll: the input read fails, service and flush still run. */
    d = mk(OFL_DT_REQ_CANCEL);
    CHECK_OK(dt_rig_post(r, &d));
    r->sim.fail_dma_countdown = 1;
    CHECK_ERR(dt_rig_poll(r, 3), OFL_E_PORT_DMA);
    /* Only the flush fails: its error. */
    r->sim.fail_dma_countdown = 3; /* read, write back, flush */
    CHECK_ERR(dt_rig_poll(r, 4), OFL_E_PORT_DMA);
    CHECK_EQ(r->dt.out_staged, 1);
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CANCEL);
    rig_done(r);
}

/* An empty completion pattern never matches: only the maximum delay
 * releases the notice. Periodic reports include closing connections. */
static void test_cn_empty_pattern_reports(void)
{
    struct ofl_dt_config c;
    struct ofl_dt_desc d;
    struct dt_rig *r;
    uint64_t ids[1];

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_PATTERN;
    c.cn_max_delay = 50;
    c.report_period = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    open_n(r, 1, ids, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, ids[0], 1));
    rx(r, ids[0], "GET /", 2);
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(r->dt.cn_trigger, 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 51));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_COMPLETE);
    d = mk(OFL_DT_REQ_TERMINATE);
    d.conn = ids[0];
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 60));
    CHECK_OK(dt_rig_poll(r, 100));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].type == OFL_DT_RSP_CONN_ATTR && rsp[0].conn == ids[0] &&
          rsp[0].number == OFL_DT_CONN_CLOSING && rsp[0].len == 5);
    rig_done(r);
}

/* ---- sends: edges ------------------------------------------------------------ */

/* The port fails under a send and under a group send: answered with DMA
 * status, nothing transmitted. A group send waits while a member's ring
 * lacks room. An ASAP send that does not fit keeps the list urgent; a
 * connection's non-adjacent sends wait together behind a full ring. */
static void test_send_edges(void)
{
    struct dt_rig *r = bt_rig(OFL_DT_BT_COUNT, 100, 1, 0, 0);
    static const uint8_t addr[16] = {0};
    static uint8_t out[DT_RIG_TX];
    uint64_t l, m1, m2, id, other;
    uint8_t *b;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    other = dt_rig_connect(r, 2, 0);
    l = dt_rig_listen(r, 80, 0);
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 1, 0, &m1));
    CHECK_OK(ofl_dt_conn_arrive(&r->dt, l, addr, 2, 0, &m2));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    b = dt_rig_alloc(r, DT_RIG_TX);
    memset(b, 'b', DT_RIG_TX);
    /* The host cannot be read: a single send, then a group send. */
    CHECK_OK(dt_rig_send(r, id, b, 8, OFL_DT_F_ASAP | OFL_DT_F_MODIFY, 1));
    r->sim.fail_dma_countdown = 3; /* table read, write back, the data */
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_send(r, l, b, 8, OFL_DT_F_ASAP | OFL_DT_F_MODIFY, 2));
    r->sim.fail_dma_countdown = 3;
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 1 && rsp[0].status == OFL_DT_ST_DMA);
    CHECK(rsp[1].tag == 2 && rsp[1].status == OFL_DT_ST_DMA && rsp[1].conn == l);
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_tail, 0);
    CHECK_EQ(r->conn[(uint32_t)m1 - 1].tx_tail + r->conn[(uint32_t)m2 - 1].tx_tail,
             0);
    CHECK_EQ(r->conn[(uint32_t)l - 1].xfer_n, 0);
    /* m2's ring is nearly full: the group send waits for it. */
    CHECK_OK(dt_rig_send(r, m2, b, DT_RIG_TX - 4, OFL_DT_F_ASAP, 3));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_OK(dt_rig_send(r, l, b, 8, OFL_DT_F_ASAP, 4));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 3);
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(r->conn[(uint32_t)m1 - 1].tx_tail, 0); /* all or none */
    CHECK_EQ(tx_drain(r, m2, out, sizeof(out), 4), DT_RIG_TX - 4);
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 4 && rsp[0].status == OFL_DT_ST_OK);
    CHECK_EQ(tx_drain(r, m1, out, sizeof(out), 5), 8);
    CHECK_EQ(tx_drain(r, m2, out, sizeof(out), 5), 8);
    /* id's ring nearly full: an ASAP send that does not fit stays, and
     * keeps the list running for others; two more of id, not adjacent,
     * wait behind it in order. */
    CHECK_OK(dt_rig_send(r, id, b, DT_RIG_TX - 4, OFL_DT_F_ASAP, 5));
    CHECK_OK(dt_rig_poll(r, 6));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK_OK(dt_rig_send(r, id, b, 8, OFL_DT_F_ASAP, 6));
    CHECK_OK(dt_rig_send(r, id, b + 100, 8, 0, 7));
    CHECK_OK(dt_rig_send(r, id, b + 50, 8, 0, 8));
    CHECK_OK(dt_rig_poll(r, 7));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_EQ(r->dt.xfer_count, 3);
    CHECK_EQ(r->dt.bt_asap, 1);
    CHECK_OK(dt_rig_send(r, other, b, 8, 0, 9)); /* not ASAP, count unmet */
    CHECK_OK(dt_rig_poll(r, 8));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 9 && rsp[0].conn == other);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 9), DT_RIG_TX - 4);
    CHECK_OK(dt_rig_poll(r, 9));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 3);
    CHECK(rsp[0].tag == 6 && rsp[1].tag == 7 && rsp[2].tag == 8);
    CHECK(rsp[0].number == 1 && rsp[1].number == 1);
    CHECK_EQ(r->dt.bt_asap, 0);
    rig_done(r);
}

/* The time criterion counts from the oldest listed request, wherever the
 * ordering put it. */
static void test_send_oldest_listed(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    static uint8_t out[DT_RIG_TX];
    uint8_t t[32], *b;
    size_t off = 0;
    uint64_t lo, hi;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_BYTES;
    c.bt_bytes = 100;
    r = dt_rig_new(&c, 0);
    CHECK(r != NULL);
    lo = dt_rig_connect(r, 1, 0);
    hi = dt_rig_connect(r, 2, 0);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, 7);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, hi, t, (uint32_t)off, 1, 0,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    b = dt_rig_alloc(r, DT_RIG_TX);
    /* Both rings full, so a run orders the list and keeps it. */
    CHECK_OK(dt_rig_send(r, lo, b, DT_RIG_TX, OFL_DT_F_ASAP, 1));
    CHECK_OK(dt_rig_send(r, hi, b, DT_RIG_TX, OFL_DT_F_ASAP, 2));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK_OK(dt_rig_send(r, lo, b, 60, 0, 3));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_OK(dt_rig_send(r, hi, b, 60, 0, 4));
    CHECK_OK(dt_rig_poll(r, 2)); /* 120 bytes: a run, priority 7 first */
    CHECK_EQ(r->dt.xfer_count, 2);
    CHECK_EQ(r->xfer[0].tag, 4); /* listed at 2, before the one of 1 */
    /* From now on only time counts: 50 after the oldest. */
    c.bt_criteria = OFL_DT_BT_TIME;
    c.bt_time = 50;
    CHECK_OK(ofl_dt_configure(&r->dt, &c));
    CHECK_EQ(tx_drain(r, lo, out, sizeof(out), 3), DT_RIG_TX);
    CHECK_EQ(tx_drain(r, hi, out, sizeof(out), 3), DT_RIG_TX);
    CHECK_OK(dt_rig_send(r, lo, b + 60, 60, 0, 5)); /* listed last, at 40 */
    CHECK_OK(dt_rig_poll(r, 40));
    CHECK_OK(dt_rig_poll(r, 50));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 0);
    CHECK_OK(dt_rig_poll(r, 51)); /* 50 after the one listed at 1 */
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 4 && rsp[0].number == 1);
    CHECK(rsp[1].tag == 3 && rsp[1].number == 2 && rsp[1].len == 120);
    rig_done(r);
}

/* Without a send cache every send is read from the host. */
static void test_send_no_cache(void)
{
    struct dt_rig *r = bt_rig(0, 1, 1, 0, 0);
    struct ofl_dt_mem m;
    uint64_t id;
    uint8_t *b;

    CHECK(r != NULL);
    m = r->mem;
    m.cache_slots = 0;
    CHECK_OK(ofl_dt_init(&r->dt, &m, &r->cfg, &r->sim.port, 0));
    r->mem = m;
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 16);
    CHECK_OK(dt_rig_send(r, id, b, 16, 0, 1));
    CHECK_OK(dt_rig_send(r, id, b, 16, 0, 2));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK_EQ(r->dt.stats.dma_skipped, 0);
    CHECK_EQ(r->conn[(uint32_t)id - 1].tx_tail, 32);
    rig_done(r);
}

/* One response answers at most 255 merged requests (its number field). */
static void test_send_merge_limit(void)
{
    static struct ofl_dt_xfer big[300];
    struct ofl_dt_config c;
    struct ofl_dt_mem m;
    struct dt_rig *r;
    uint8_t *b;
    uint32_t i, n;

    ofl_dt_config_default(&c);
    c.bt_criteria = OFL_DT_BT_COUNT;
    c.bt_count = 300;
    r = dt_rig_new_sized(&c, 256, 64);
    CHECK(r != NULL);
    m = r->mem;
    m.xfer = big;
    m.xfer_cap = 300;
    CHECK_OK(ofl_dt_init(&r->dt, &m, &c, &r->sim.port, 0));
    r->mem = m;
    (void)dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, DT_RIG_TX);
    for (i = 0; i < DT_RIG_TX; i++)
        b[i] = (uint8_t)(i / 16);
    for (i = 0; i < 256; i++)
        CHECK_OK(dt_rig_send(r, 1ull << 32 | 1, b + 16 * i, 16, 0, 1000 + i));
    CHECK_OK(ofl_dt_process(&r->dt, 1, 1000, &n));
    CHECK_EQ(n, 256);
    CHECK_EQ(r->dt.xfer_count, 256);
    c.bt_criteria = 0;
    CHECK_OK(ofl_dt_configure(&r->dt, &c));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 2);
    CHECK(rsp[0].tag == 1000 && rsp[0].number == 255 && rsp[0].len == 255 * 16);
    CHECK(rsp[1].tag == 1255 && rsp[1].number == 1 && rsp[1].len == 16);
    CHECK_EQ(r->dt.stats.merged, 254);
    CHECK_EQ(r->conn[0].tx_tail, DT_RIG_TX);
    rig_done(r);
}

/* A merge never exceeds a transmit ring (cfg.merge_max is larger here):
 * two adjacent sends of 3/4 ring each go one at a time as room frees,
 * where one merged transfer would have waited for good. */
static void test_send_merge_ring(void)
{
    static uint8_t out[DT_RIG_TX];
    struct dt_rig *r = bt_rig(OFL_DT_BT_COUNT, 2, 1, 0, 1); /* max delay 1 */
    const uint32_t part = DT_RIG_TX / 4 * 3;
    uint64_t id;
    uint8_t *b;

    CHECK(r != NULL);
    CHECK(r->dt.cfg.merge_max > DT_RIG_TX);
    id = dt_rig_connect(r, 1, 0);
    b = dt_rig_alloc(r, 2 * part);
    memset(b, 0x11, part);
    memset(b + part, 0x22, part);
    CHECK_OK(dt_rig_send(r, id, b, part, 0, 1));
    CHECK_OK(dt_rig_send(r, id, b + part, part, 0, 2));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 1 && rsp[0].number == 1 && rsp[0].len == part);
    CHECK_EQ(r->dt.xfer_count, 1);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 2), part);
    CHECK(out[0] == 0x11 && out[part - 1] == 0x11);
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 2 && rsp[0].number == 1 && rsp[0].len == part);
    CHECK_EQ(tx_drain(r, id, out, sizeof(out), 4), part);
    CHECK(out[0] == 0x22 && out[part - 1] == 0x22);
    CHECK_EQ(r->dt.xfer_count, 0);
    CHECK_EQ(r->dt.stats.merged, 0);
    rig_done(r);
}

/*
 * The output reclaim reads the table through the output stage's free part
 * when that holds more than its own 8-slot scratch: the staged responses
 * in front of it stay as they are. A 64-slot output table and stage: the
 * host frees 16 of 64 answers; a run of 32 sends reclaims them with the
 * stage empty, stages 16, then reclaims again (nothing freed) with those
 * 16 in the stage; they go out intact, and the rest follow, after a
 * reclaim across the table's end, once the host frees the table.
 */
static void test_reclaim_through_stage(void)
{
    struct ofl_dt_config c;
    struct dt_rig *r;
    uint64_t id;
    uint32_t i, t0;
    uint8_t *b;

    ofl_dt_config_default(&c);
    c.out_warn = 0;
    c.irq_overflow = OFL_DT_IRQ_NONE;
    c.irq_response = OFL_DT_IRQ_NONE;
    r = dt_rig_new_sized(&c, 64, 64);
    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    t0 = r->dt.out_tail; /* the connection's completion, taken */
    b = dt_rig_alloc(r, 16);
    for (i = 0; i < 64; i++)
        CHECK_OK(dt_rig_send(r, id, b, 16, 0, 1 + i));
    CHECK_OK(dt_rig_poll(r, 1)); /* the list holds DT_RIG_XFERS (32) */
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(r->dt.out_tail, t0 + 64);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
    CHECK_EQ(dt_rig_take(r, rsp, 16), 16);
    for (i = 0; i < 16; i++)
        CHECK_EQ(rsp[i].tag, 1 + i);
    for (i = 0; i < 32; i++)
        CHECK_OK(dt_rig_send(r, id, b, 16, 0, 101 + i));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(r->dt.out_head, t0 + 16);
    CHECK_EQ(r->dt.out_tail, t0 + 80);
    CHECK_EQ(r->dt.xfer_count, 16); /* no room for the rest */
    CHECK_EQ(ofl_dt_out_room(&r->dt), 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 64);
    for (i = 0; i < 48; i++)
        CHECK(rsp[i].tag == 17 + i && rsp[i].status == OFL_DT_ST_OK);
    for (i = 0; i < 16; i++)
        CHECK(rsp[48 + i].tag == 101 + i &&
              rsp[48 + i].type == OFL_DT_RSP_BUF_AVAIL &&
              rsp[48 + i].status == OFL_DT_ST_OK && rsp[48 + i].conn == id);
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(r->dt.out_head, t0 + 80);
    CHECK_EQ(r->dt.xfer_count, 0);
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 16);
    for (i = 0; i < 16; i++)
        CHECK_EQ(rsp[i].tag, 117 + i);
    CHECK_EQ(ofl_dt_out_room(&r->dt), 64);
    CHECK_EQ(r->sim.violations, 0);
    rig_done(r);
}

/* Attribute values checked against the adapter's state, a connection
 * whose connect failed, and a control buffer that cannot be written back
 * or an input run that cannot be handed back. */
static void test_attr_edges(void)
{
    struct ofl_dt_config c;
    struct ofl_dt_desc d;
    struct dt_rig *r;
    uint8_t t[64], *cb;
    uint64_t l, id, k[1];
    uint32_t n, warn;
    size_t off;

    ofl_dt_config_default(&c);
    c.cn_criteria = OFL_DT_CN_COUNT;
    c.cn_count = 5;
    c.cn_max_delay = 100;
    r = dt_rig_new(&c, 8);
    CHECK(r != NULL);
    l = dt_rig_listen(r, 80, 0);
    open_n(r, 1, &id, 0);
    CHECK_OK(ofl_dt_conn_established(&r->dt, id, 0));
    open_n(r, 1, k, 0);
    CHECK_OK(ofl_dt_conn_failed(&r->dt, k[0], OFL_DT_ST_FAILED, 0));
    off = 0; /* the listener's port: a 16-bit field */
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_LOCAL_PORT, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, l, t, (uint32_t)off, 1, 1,
                         &cb));
    CHECK_OK(dt_rig_poll(r, 1));
    CHECK_EQ(ofl_load_be32(cb + 6), 80);
    off = 0; /* a group must be a listener ... */
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, id);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 2,
                         NULL));
    off = 0; /* ... that exists ... */
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, l + (1ull << 32));
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 2,
                         NULL));
    off = 0; /* ... or none */
    dt_tup_u64(t, &off, true, OFL_DT_ATTR_GROUP, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1, 3,
                         NULL));
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_OUT_WARN, 8);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 4,
                         NULL));
    off = 0; /* the entry of a failed connect, its notice not yet out */
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_STATE, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, k[0], t, (uint32_t)off, 1, 5,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 2));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 6);
    CHECK(rsp[0].tag == 1 && rsp[0].status == OFL_DT_ST_OK);
    CHECK(rsp[1].tag == 2 && rsp[1].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[2].tag == 2 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 3 && rsp[3].status == OFL_DT_ST_OK);
    CHECK(rsp[4].tag == 4 && rsp[4].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[5].tag == 5 && rsp[5].status == OFL_DT_ST_CONN_STATE);
    warn = r->dt.cfg.out_warn;
    CHECK(warn != 5 && warn != 6 && warn != 7);
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_OUT_WARN, 7);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 1, 6,
                         NULL));
    r->sim.fail_dma_countdown = 3; /* table, control buffer, write back */
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 6 && rsp[0].status == OFL_DT_ST_DMA);
    CHECK_EQ(r->dt.cfg.out_warn, warn); /* answered DMA: taken back */
    /* Set twice in one request, read between: the value before the first
     * set returns (the get in between, which holds 5, is not a set to
     * take back); with the write-back working, the last set stays. */
    off = 0;
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_OUT_WARN, 5);
    dt_tup_u32(t, &off, false, OFL_DT_ATTR_OUT_WARN, 0);
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_OUT_WARN, 6);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 3, 7,
                         NULL));
    r->sim.fail_dma_countdown = 3;
    CHECK_OK(dt_rig_poll(r, 4));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 7 && rsp[0].status == OFL_DT_ST_DMA);
    CHECK_EQ(r->dt.cfg.out_warn, warn);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_ADAPTER_ATTR, 0, t, (uint32_t)off, 3, 8,
                         NULL));
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 8 && rsp[0].status == OFL_DT_ST_OK);
    CHECK_EQ(r->dt.cfg.out_warn, 6);
    /* The same for a connection attribute. */
    {
        struct ofl_dt_conn_info ci;
        uint8_t prio;

        CHECK_OK(ofl_dt_conn_query(&r->dt, id, &ci));
        prio = ci.priority;
        off = 0;
        dt_tup_u32(t, &off, true, OFL_DT_ATTR_PRIORITY, prio == 6 ? 5 : 6);
        CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_CONN_ATTR, id, t, (uint32_t)off, 1,
                             9, NULL));
        r->sim.fail_dma_countdown = 3;
        CHECK_OK(dt_rig_poll(r, 6));
        CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
        CHECK(rsp[0].tag == 9 && rsp[0].status == OFL_DT_ST_DMA);
        CHECK_OK(ofl_dt_conn_query(&r->dt, id, &ci));
        CHECK_EQ(ci.priority, prio);
    }
    d = mk(OFL_DT_REQ_CANCEL);
    CHECK_OK(dt_rig_post(r, &d));
    r->sim.fail_dma_countdown = 2; /* the run cannot be handed back */
    CHECK_ERR(ofl_dt_process(&r->dt, 4, 10, &n), OFL_E_PORT_DMA);
    CHECK_EQ(n, 1);
    CHECK_EQ(r->dt.in_head, r->host.in_tail);
    rig_done(r);
}

/* Buffer checks: past the end of the host range, just below a table with
 * the whole address space allowed, a peek through a listener, the
 * adaptive clock with a host whose time goes backwards, a listen on port
 * 0, a listen whose control buffer is out of range, data of length 0 and
 * data on a closing connection. */
static void test_buffer_edges(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d;
    uint8_t t[64], *b, *end;
    uint64_t id, l;
    size_t off = 0;

    CHECK(r != NULL);
    id = dt_rig_connect(r, 1, 0);
    l = dt_rig_listen(r, 80, 0);
    end = r->arena + DT_RIG_ARENA;
    CHECK_OK(dt_rig_avail(r, 0, end - 8, 8, 0, 0, 1));  /* the last bytes */
    CHECK_OK(dt_rig_avail(r, 0, end - 8, 9, 0, 0, 2));  /* one past */
    CHECK_OK(dt_rig_avail(r, l, end - 8, 8, OFL_DT_F_PEEK, 0, 3));
    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, 0);
    CHECK_OK(dt_rig_ctrl(r, OFL_DT_REQ_LISTEN, 0, t, (uint32_t)off, 1, 4, NULL));
    d = mk(OFL_DT_REQ_LISTEN);
    d.base = dt_rig_pa(end - 8);
    d.len = 16;
    d.number = 1;
    d.tag = 5;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 4);
    CHECK(rsp[0].tag == 2 && rsp[0].status == OFL_DT_ST_BAD_RANGE);
    CHECK(rsp[1].tag == 3 && rsp[1].status == OFL_DT_ST_BAD_DESC &&
          (rsp[1].flags & OFL_DT_F_PEEK));
    CHECK(rsp[2].tag == 4 && rsp[2].status == OFL_DT_ST_BAD_TUPLE);
    CHECK(rsp[3].tag == 5 && rsp[3].status == OFL_DT_ST_BAD_RANGE);
    /* The whole address space allowed: right below the input table is
     * fine, one byte into it is not. */
    r->dt.mem.host_lo = 0;
    r->dt.mem.host_hi = ~0ull;
    d = mk(OFL_DT_REQ_BUF_AVAIL);
    d.base = dt_rig_pa(r->in_table) - 32;
    d.len = 32;
    d.tag = 6;
    CHECK_OK(dt_rig_post(r, &d));
    d.len = 33;
    d.tag = 7;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 7 && rsp[0].status == OFL_DT_ST_BAD_RANGE);
    r->dt.mem.host_lo = r->mem.host_lo;
    r->dt.mem.host_hi = r->mem.host_hi;
    /* Adaptive posting clock: a post at 5, at 10 (interval 5), at 0 (the
     * clock went back: the longest interval), then at 3. */
    b = dt_rig_alloc(r, 64);
    CHECK_OK(dt_rig_avail(r, id, b, 8, 0, 0, 8));
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_OK(dt_rig_avail(r, id, b + 8, 8, 0, 0, 9));
    CHECK_OK(dt_rig_poll(r, 10));
    CHECK_EQ(r->conn[(uint32_t)id - 1].post_ewma, 5);
    CHECK_OK(dt_rig_avail(r, id, b + 16, 8, 0, 0, 10));
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_EQ(r->conn[(uint32_t)id - 1].post_ewma, 5 - 0 + 0x1FFFFFFFu);
    CHECK_EQ(r->conn[(uint32_t)id - 1].t_last_post, 0);
    CHECK_OK(dt_rig_avail(r, id, b + 24, 8, 0, 0, 11));
    CHECK_OK(dt_rig_poll(r, 3));
    CHECK_EQ(r->conn[(uint32_t)id - 1].t_last_post, 3);
    CHECK_EQ(r->conn[(uint32_t)id - 1].post_ewma,
             (5u + 0x1FFFFFFFu) - ((5u + 0x1FFFFFFFu) >> 3) + (3u >> 3));
    /* Data: nothing is fine; a closing connection still takes it. */
    CHECK_OK(ofl_dt_rx(&r->dt, id, NULL, 0, 4));
    d = mk(OFL_DT_REQ_TERMINATE);
    d.conn = id;
    CHECK_OK(dt_rig_post(r, &d));
    CHECK_OK(dt_rig_poll(r, 4));
    rx(r, id, "late", 5);
    CHECK_OK(dt_rig_poll(r, 5));
    CHECK_EQ(dt_rig_take(r, rsp, NRSP), 1);
    CHECK(rsp[0].tag == 8 && rsp[0].len == 4 && memcmp(b, "late", 4) == 0);
    rig_done(r);
}

OFL_SUITE(dt)
{
    test_codec_roundtrip();
    test_codec_layout();
    test_codec_errors();
    test_tuples();
    test_host_ring();
    test_host_wrap();
    test_adapter_init();
    test_process_loop();
    test_process_malformed();
    test_process_dma_failure();
    test_listen();
    test_connect_bulk();
    test_connect_refusals();
    test_cn_count_time_max();
    test_cn_time_after_early();
    test_cn_data_pattern();
    test_connect_timeout_cancel();
    test_cancel_listener_and_sends();
    test_terminate();
    test_reports();
    test_adapter_attrs();
    test_conn_attrs();
    test_send_asap();
    test_send_criteria();
    test_send_reorder_merge();
    test_send_modify();
    test_send_cache_top();
    test_send_group_and_refusals();
    test_send_ring_full();
    test_rx_partial();
    test_rx_combined_time();
    test_rx_notify_bytes_max();
    test_rx_notify_adaptive();
    test_rx_bulk_best_fit();
    test_rx_wait_history();
    test_rx_shared();
    test_rx_peek();
    test_rx_refusals();
    test_output_overflow();
    test_actions_and_query();
    test_more_refusals();
    test_api_arguments();
    test_config_ranges();
    test_init_memory();
    test_output_port_failures();
    test_output_full_requests();
    test_listen_result();
    test_listen_wait();
    test_listen_last_port();
    test_listen_port_draining();
    test_output_full_service();
    test_closed_everything();
    test_closed_after_send();
    test_conn_table_full();
    test_firmware_arguments();
    test_rx_ring_wrap();
    test_rx_long_run();
    test_rx_starved_first();
    test_rx_note_after_notice();
    test_rx_same_address();
    test_rx_bulk_pick_order();
    test_rx_port_failures();
    test_rx_unreachable_buffer();
    test_rx_fail_open_note();
    test_cn_empty_pattern_reports();
    test_send_edges();
    test_send_oldest_listed();
    test_send_merge_limit();
    test_send_merge_ring();
    test_send_no_cache();
    test_reclaim_through_stage();
    test_attr_edges();
    test_buffer_edges();
}
