/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pp: message codec (round trips, hand-built vectors, every decode error),
 * the transfer indication at its boundaries, pool tables, a detached
 * connection pair (pools, writes, exhaustion, replenishment, flushes from
 * each side) and cells (seed 002 FIG. 6-8).
 */
#include "test.h"
#include "support/crc_count.h"

/* ---- helpers --------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v) { ofl_store_be16(p, v); }
static void put32(uint8_t *p, uint32_t v) { ofl_store_be32(p, v); }
static void put64(uint8_t *p, uint64_t v) { ofl_store_be64(p, v); }

/* Encodes m, decodes the bytes, encodes again: both encodings equal and
 * the decoded message the same. Returns the length (0 on failure). */
static size_t round_trip(const struct ofl_pp_msg *m, uint8_t *buf, size_t cap)
{
    static struct ofl_pp_msg d;
    static uint8_t again[4096];
    size_t len = 0, len2 = 0;
    uint32_t i;

    if (ofl_pp_msg_encode(m, buf, cap, &len) != OFL_OK)
        return 0;
    if (len != ofl_pp_msg_size(m))
        return 0;
    if (ofl_pp_msg_decode(buf, len, &d) != OFL_OK)
        return 0;
    if (d.type != m->type || d.count != m->count)
        return 0;
    if (ofl_pp_msg_encode(&d, again, sizeof(again), &len2) != OFL_OK ||
        len2 != len || memcmp(buf, again, len) != 0)
        return 0;
    switch (m->type) {
    case OFL_PP_BUFFER_RECV_POOL:
        for (i = 0; i < m->count; i++)
            if (memcmp(&d.u.pool[i], &m->u.pool[i], sizeof(d.u.pool[i])) != 0)
                return 0;
        break;
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
        for (i = 0; i < m->count; i++)
            if (memcmp(&d.u.ref[i], &m->u.ref[i], sizeof(d.u.ref[i])) != 0)
                return 0;
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        for (i = 0; i < m->count; i++)
            if (d.u.pool_ref[i] != m->u.pool_ref[i])
                return 0;
        if (d.ctx != m->ctx)
            return 0;
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        if (d.ctx != m->ctx)
            return 0;
        break;
    case OFL_PP_BUFFER_RECV_POOL_GET:
        if (d.elem_count != m->elem_count || d.elem_size != m->elem_size)
            return 0;
        break;
    default:
        if (d.data_len != m->data_len ||
            (d.data_len != 0 && memcmp(d.data, m->data, d.data_len) != 0))
            return 0;
        if (m->type != OFL_PP_SEND_DATA &&
            (d.ctx != m->ctx || d.code != m->code ||
             d.status != (m->type == OFL_PP_CFG_UTIL_REPLY ? m->status : 0)))
            return 0;
        break;
    }
    return len;
}

static void hdr(uint8_t *p, uint16_t type)
{
    put16(p, type);
    put16(p + 2, OFL_PP_VERSION);
}

/* ---- messages --------------------------------------------------------------- */

static void test_round_trips(void)
{
    static struct ofl_pp_msg m;
    static uint8_t buf[4096];
    static const uint8_t data[] = "a packet for the LAN";
    uint32_t i;

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RECV_POOL;
    m.count = OFL_PP_MSG_ITEMS;
    for (i = 0; i < OFL_PP_MSG_ITEMS; i++) {
        m.u.pool[i].index = i * 3;
        m.u.pool[i].count = 100 + i;
        m.u.pool[i].size = 2048;
        m.u.pool[i].handle = 0x1234500u + i;
        m.u.pool[i].va = 0x7F0000001000ull + i * 0x100000ull;
        m.u.pool[i].ctx = 0xC0FFEE00ull + i;
    }
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), OFL_PP_MSG_MAX);
    m.count = 1;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 8 + 32);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RECV_POOL_GET;
    m.elem_count = 64;
    m.elem_size = 9000;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 12);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RECV_POOL_UPDATE;
    m.count = 3;
    m.u.ref[0] = (struct ofl_pp_ref){1, 0, 4};
    m.u.ref[1] = (struct ofl_pp_ref){1, 4, 4}; /* adjacent, not overlapping */
    m.u.ref[2] = (struct ofl_pp_ref){2, 0xFFFFFFFFu, 1};
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 8 + 36);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_POOL_FLUSH_REQUEST;
    m.ctx = 0x0102030405060708ull;
    m.count = 3;
    m.u.pool_ref[0] = 5;
    m.u.pool_ref[1] = 5 | OFL_PP_POOL_OWNER; /* another end's pool 5 */
    m.u.pool_ref[2] = 0x7FFFFFFFu;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 12 + 12);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
    m.ctx = ~0ull;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 12);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_SEND_DATA;
    m.data = data;
    m.data_len = sizeof(data);
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 8 + sizeof(data));

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RDMA_INDICATE;
    m.count = 2;
    m.u.ref[0] = (struct ofl_pp_ref){300, 7, 70000};
    m.u.ref[1] = (struct ofl_pp_ref){300, 8, 1};
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 8 + 24);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_CFG_UTIL_REQUEST;
    m.ctx = 42;
    m.code = 0x0101;
    m.data = data;
    m.data_len = 6;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 20 + 6);
    m.data = NULL;
    m.data_len = 0; /* a request without data */
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 20);

    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_CFG_UTIL_REPLY;
    m.ctx = 42;
    m.code = 0x0101;
    m.status = 0x8001;
    m.data = data;
    m.data_len = 3;
    CHECK_EQ(round_trip(&m, buf, sizeof(buf)), 20 + 3);

    CHECK(strcmp(ofl_pp_type_name(OFL_PP_BUFFER_RDMA_INDICATE),
                 "BufferRDMAIndicate") == 0);
    CHECK(strcmp(ofl_pp_type_name(0), "?") == 0);
    CHECK(strcmp(ofl_pp_type_name(10), "?") == 0);
    CHECK(strcmp(ofl_strerror(OFL_E_PP_CELL_CRC), "OFL_E_PP_CELL_CRC") == 0);
}

/* Hand-built wire bytes for every type, decoded field by field, and the
 * encoder's bytes compared with them. */
static void test_vectors(void)
{
    static struct ofl_pp_msg m;
    static uint8_t out[256];
    size_t len;
    /* seed 002 BufferPoolFlushRequest: function, version, context, refs */
    static const uint8_t flush_req[] = {
        0x00, 0x04, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x00, 0x00, 0x00, 0x07, 0x80, 0x00, 0x00, 0x02};
    static const uint8_t flush_rep[] = {0x00, 0x05, 0x00, 0x01, 0x11, 0x22,
                                        0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    static const uint8_t pool[] = {
        0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, /* count 1 */
        0x00, 0x00, 0x00, 0x07,                         /* pool 7 */
        0x00, 0x00, 0x00, 0x10,                         /* 16 elements */
        0x00, 0x00, 0x01, 0x00,                         /* of 256 bytes */
        0xAB, 0xCD, 0x00, 0x01,                         /* handle */
        0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x10, 0x00, /* va */
        0x00, 0x00, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF};
    static const uint8_t get[] = {0x00, 0x02, 0x00, 0x01, 0x00, 0x00,
                                  0x00, 0x20, 0x00, 0x00, 0x08, 0x00};
    static const uint8_t update[] = {0x00, 0x03, 0x00, 0x01, 0x00, 0x01,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
                                     0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
                                     0x00, 0x02};
    static const uint8_t senddata[] = {0x00, 0x06, 0x00, 0x01, 0x00, 0x00,
                                       0x00, 0x03, 'a',  'b',  'c'};
    static const uint8_t indicate[] = {0x00, 0x07, 0x00, 0x01, 0x00, 0x01,
                                       0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                       0x00, 0x00, 0x00, 0x05, 0x00, 0x01,
                                       0x00, 0x00};
    static const uint8_t cfgreq[] = {0x00, 0x08, 0x00, 0x01, 0, 0, 0, 0,
                                     0,    0,    0,    9,    0x00, 0x02,
                                     0x00, 0x00, 0,    0,    0,    2,
                                     0xAA, 0xBB};
    static const uint8_t cfgrep[] = {0x00, 0x09, 0x00, 0x01, 0, 0, 0, 0,
                                     0,    0,    0,    9,    0x00, 0x02,
                                     0x00, 0x05, 0,    0,    0,    0};

    CHECK_OK(ofl_pp_msg_decode(flush_req, sizeof(flush_req), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_POOL_FLUSH_REQUEST);
    CHECK_EQ(m.ctx, 0x1122334455667788ull);
    CHECK_EQ(m.count, 2);
    CHECK_EQ(m.u.pool_ref[0], 7);
    CHECK_EQ(m.u.pool_ref[1], OFL_PP_POOL_OWNER | 2);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(flush_req) && memcmp(out, flush_req, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(flush_rep, sizeof(flush_rep), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_EQ(m.ctx, 0x1122334455667788ull);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(flush_rep) && memcmp(out, flush_rep, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(pool, sizeof(pool), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_RECV_POOL);
    CHECK_EQ(m.count, 1);
    CHECK_EQ(m.u.pool[0].index, 7);
    CHECK_EQ(m.u.pool[0].count, 16);
    CHECK_EQ(m.u.pool[0].size, 256);
    CHECK_EQ(m.u.pool[0].handle, 0xABCD0001u);
    CHECK_EQ(m.u.pool[0].va, 0x00007F0000001000ull);
    CHECK_EQ(m.u.pool[0].ctx, 0xDEADBEEFull);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(pool) && memcmp(out, pool, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(get, sizeof(get), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_RECV_POOL_GET);
    CHECK_EQ(m.elem_count, 32);
    CHECK_EQ(m.elem_size, 2048);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(get) && memcmp(out, get, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(update, sizeof(update), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_RECV_POOL_UPDATE);
    CHECK_EQ(m.u.ref[0].pool, 7);
    CHECK_EQ(m.u.ref[0].elem, 5);
    CHECK_EQ(m.u.ref[0].len, 2);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(update) && memcmp(out, update, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(senddata, sizeof(senddata), &m));
    CHECK_EQ(m.type, OFL_PP_SEND_DATA);
    CHECK_EQ(m.data_len, 3);
    CHECK(m.data == senddata + 8);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(senddata) && memcmp(out, senddata, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(indicate, sizeof(indicate), &m));
    CHECK_EQ(m.type, OFL_PP_BUFFER_RDMA_INDICATE);
    CHECK_EQ(m.u.ref[0].pool, 256);
    CHECK_EQ(m.u.ref[0].elem, 5);
    CHECK_EQ(m.u.ref[0].len, 65536);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(indicate) && memcmp(out, indicate, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(cfgreq, sizeof(cfgreq), &m));
    CHECK_EQ(m.type, OFL_PP_CFG_UTIL_REQUEST);
    CHECK_EQ(m.ctx, 9);
    CHECK_EQ(m.code, 2);
    CHECK_EQ(m.data_len, 2);
    CHECK_EQ(m.data[1], 0xBB);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(cfgreq) && memcmp(out, cfgreq, len) == 0);

    CHECK_OK(ofl_pp_msg_decode(cfgrep, sizeof(cfgrep), &m));
    CHECK_EQ(m.type, OFL_PP_CFG_UTIL_REPLY);
    CHECK_EQ(m.status, 5);
    CHECK_EQ(m.data_len, 0);
    CHECK(m.data == NULL);
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK(len == sizeof(cfgrep) && memcmp(out, cfgrep, len) == 0);
}

/* Decodes b[0 .. n) and expects err; *m must stay untouched on error. */
static enum ofl_err dec(const uint8_t *b, size_t n)
{
    static struct ofl_pp_msg m;
    enum ofl_err err;

    memset(&m, 0x5A, sizeof(m));
    err = ofl_pp_msg_decode(b, n, &m);
    if (err != OFL_OK) {
        const uint8_t *q = (const uint8_t *)&m;
        size_t i;

        for (i = 0; i < sizeof(m); i++)
            if (q[i] != 0x5A)
                return OFL_E_ARG; /* half-written: fails the caller's check */
    }
    return err;
}

/* A valid list message of type t with n entries (each entry valid). */
static size_t list_msg(uint8_t *b, uint16_t t, uint32_t n)
{
    uint32_t i, el = t == OFL_PP_BUFFER_RECV_POOL ? 32 : 12;

    memset(b, 0, 8 + n * el);
    hdr(b, t);
    put16(b + 4, (uint16_t)n);
    for (i = 0; i < n; i++) {
        uint8_t *e = b + 8 + i * el;

        put32(e, i);       /* pool index: distinct */
        put32(e + 4, 1);   /* count / elem / first */
        put32(e + 8, 64);  /* size / len / elements */
        if (el == 32)
            put64(e + 16, 0x10000);
    }
    return 8 + n * el;
}

static void test_decode_errors(void)
{
    static uint8_t b[1024];
    size_t n;

    CHECK_ERR(ofl_pp_msg_decode(NULL, 4, NULL), OFL_E_ARG);
    /* truncated: header, fixed part */
    CHECK_ERR(dec(b, 0), OFL_E_PP_TRUNCATED);
    hdr(b, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_ERR(dec(b, 3), OFL_E_PP_TRUNCATED);
    CHECK_ERR(dec(b, 11), OFL_E_PP_TRUNCATED);
    CHECK_ERR(dec(b, 12), OFL_OK);
    /* version */
    put16(b + 2, 2);
    CHECK_ERR(dec(b, 12), OFL_E_PP_VERSION);
    put16(b + 2, 0);
    CHECK_ERR(dec(b, 12), OFL_E_PP_VERSION);
    /* type */
    hdr(b, 0);
    CHECK_ERR(dec(b, 12), OFL_E_PP_TYPE);
    hdr(b, 10);
    CHECK_ERR(dec(b, 12), OFL_E_PP_TYPE);
    hdr(b, 0xFFFF);
    CHECK_ERR(dec(b, 12), OFL_E_PP_TYPE);
    /* flush reply and get: exact length */
    hdr(b, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_ERR(dec(b, 13), OFL_E_PP_LENGTH);
    hdr(b, OFL_PP_BUFFER_RECV_POOL_GET);
    put32(b + 4, 1);
    put32(b + 8, 1);
    CHECK_ERR(dec(b, 12), OFL_OK);
    CHECK_ERR(dec(b, 13), OFL_E_PP_LENGTH);
    put32(b + 4, 0);
    CHECK_ERR(dec(b, 12), OFL_E_PP_FIELD);
    put32(b + 4, 1);
    put32(b + 8, 0);
    CHECK_ERR(dec(b, 12), OFL_E_PP_FIELD);

    /* counted lists: reserved, count, length, fields, duplicates */
    {
        static const uint16_t types[] = {OFL_PP_BUFFER_RECV_POOL,
                                         OFL_PP_BUFFER_RECV_POOL_UPDATE,
                                         OFL_PP_BUFFER_RDMA_INDICATE};
        unsigned k;

        for (k = 0; k < 3; k++) {
            uint16_t t = types[k];
            uint32_t el = t == OFL_PP_BUFFER_RECV_POOL ? 32 : 12;

            n = list_msg(b, t, 2);
            CHECK_ERR(dec(b, n), OFL_OK);
            CHECK_ERR(dec(b, 7), OFL_E_PP_TRUNCATED);
            CHECK_ERR(dec(b, n - 1), OFL_E_PP_LENGTH);
            CHECK_ERR(dec(b, n + 1), OFL_E_PP_LENGTH);
            CHECK_ERR(dec(b, n + el), OFL_E_PP_LENGTH);
            put16(b + 6, 1);
            CHECK_ERR(dec(b, n), OFL_E_PP_RESERVED);
            put16(b + 6, 0);
            put16(b + 4, 0);
            CHECK_ERR(dec(b, 8), OFL_E_PP_COUNT);
            n = list_msg(b, t, OFL_PP_MSG_ITEMS);
            CHECK_ERR(dec(b, n), OFL_OK);
            n = list_msg(b, t, OFL_PP_MSG_ITEMS + 1);
            CHECK_ERR(dec(b, n), OFL_E_PP_COUNT);
            /* pool index with bit 31 */
            n = list_msg(b, t, 2);
            put32(b + 8 + el, 0x80000001u);
            CHECK_ERR(dec(b, n), OFL_E_PP_FIELD);
            put32(b + 8 + el, 0x7FFFFFFFu);
            CHECK_ERR(dec(b, n), OFL_OK);
            /* a zero count / size / length */
            put32(b + 8 + el + 8, 0);
            CHECK_ERR(dec(b, n), OFL_E_PP_FIELD);
            put32(b + 8 + el + 8, 64);
            /* duplicates: the second entry names the first's pool */
            put32(b + 8 + el, 0);
            CHECK_ERR(dec(b, n), OFL_E_PP_DUPLICATE);
        }
    }
    /* BufferRecvPool: count 0, address wrap */
    n = list_msg(b, OFL_PP_BUFFER_RECV_POOL, 1);
    put32(b + 8 + 4, 0);
    CHECK_ERR(dec(b, n), OFL_E_PP_FIELD);
    put32(b + 8 + 4, 2);
    put64(b + 8 + 16, ~0ull - 127); /* 2 x 64 bytes end exactly at 2^64 */
    CHECK_ERR(dec(b, n), OFL_OK);
    put64(b + 8 + 16, ~0ull - 126);
    CHECK_ERR(dec(b, n), OFL_E_PP_FIELD);
    /* Update: a run past 2^32 elements, overlapping runs */
    n = list_msg(b, OFL_PP_BUFFER_RECV_POOL_UPDATE, 2);
    put32(b + 8 + 4, 0xFFFFFFF0u);
    put32(b + 8 + 8, 16);
    CHECK_ERR(dec(b, n), OFL_OK);
    put32(b + 8 + 8, 17);
    CHECK_ERR(dec(b, n), OFL_E_PP_FIELD);
    n = list_msg(b, OFL_PP_BUFFER_RECV_POOL_UPDATE, 2);
    put32(b + 20, 0); /* same pool as entry 0 */
    put32(b + 8 + 4, 0);
    put32(b + 8 + 8, 5);   /* [0, 5) */
    put32(b + 20 + 4, 5);  /* [5, 69) */
    CHECK_ERR(dec(b, n), OFL_OK);
    put32(b + 20 + 4, 4);  /* [4, 68): overlaps */
    CHECK_ERR(dec(b, n), OFL_E_PP_DUPLICATE);
    /* Indicate: same pool, other element is fine */
    n = list_msg(b, OFL_PP_BUFFER_RDMA_INDICATE, 2);
    put32(b + 20, 0);
    put32(b + 20 + 4, 2);
    CHECK_ERR(dec(b, n), OFL_OK);
    put32(b + 20 + 4, 1);
    CHECK_ERR(dec(b, n), OFL_E_PP_DUPLICATE);

    /* FlushRequest: refs to the end, a multiple of 4, 1 .. 16 */
    memset(b, 0, 128);
    hdr(b, OFL_PP_BUFFER_POOL_FLUSH_REQUEST);
    CHECK_ERR(dec(b, 12), OFL_E_PP_COUNT);
    CHECK_ERR(dec(b, 16), OFL_OK);
    CHECK_ERR(dec(b, 15), OFL_E_PP_LENGTH);
    CHECK_ERR(dec(b, 17), OFL_E_PP_LENGTH);
    CHECK_ERR(dec(b, 20), OFL_E_PP_DUPLICATE); /* pool 0 twice */
    put32(b + 16, OFL_PP_POOL_OWNER);          /* the other end's pool 0 */
    CHECK_ERR(dec(b, 20), OFL_OK);
    for (n = 0; n < 17; n++)
        put32(b + 12 + 4 * n, (uint32_t)n);
    CHECK_ERR(dec(b, 12 + 4 * 16), OFL_OK);
    CHECK_ERR(dec(b, 12 + 4 * 17), OFL_E_PP_COUNT);

    /* SendData: size agrees with the length, not zero */
    memset(b, 0, 64);
    hdr(b, OFL_PP_SEND_DATA);
    put32(b + 4, 3);
    CHECK_ERR(dec(b, 11), OFL_OK);
    CHECK_ERR(dec(b, 10), OFL_E_PP_LENGTH);
    CHECK_ERR(dec(b, 12), OFL_E_PP_LENGTH);
    put32(b + 4, 0);
    CHECK_ERR(dec(b, 8), OFL_E_PP_FIELD);
    put32(b + 4, 0xFFFFFFFFu);
    CHECK_ERR(dec(b, 11), OFL_E_PP_LENGTH);
    /* CfgUtil: reserved (request), data size */
    memset(b, 0, 64);
    hdr(b, OFL_PP_CFG_UTIL_REQUEST);
    put32(b + 16, 2);
    CHECK_ERR(dec(b, 22), OFL_OK);
    CHECK_ERR(dec(b, 19), OFL_E_PP_TRUNCATED);
    CHECK_ERR(dec(b, 21), OFL_E_PP_LENGTH);
    CHECK_ERR(dec(b, 23), OFL_E_PP_LENGTH);
    put16(b + 14, 1);
    CHECK_ERR(dec(b, 22), OFL_E_PP_RESERVED);
    hdr(b, OFL_PP_CFG_UTIL_REPLY); /* the reply's status lives there */
    CHECK_ERR(dec(b, 22), OFL_OK);
    CHECK_ERR(dec(b, 20), OFL_E_PP_LENGTH);
}

static void test_encode_errors(void)
{
    static struct ofl_pp_msg m;
    static uint8_t b[1024];
    size_t len = 0;

    memset(&m, 0, sizeof(m));
    CHECK_ERR(ofl_pp_msg_encode(NULL, b, sizeof(b), &len), OFL_E_ARG);
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_TYPE);
    CHECK_EQ(ofl_pp_msg_size(&m), 0);
    m.type = OFL_PP_BUFFER_RDMA_INDICATE;
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_COUNT);
    CHECK_EQ(ofl_pp_msg_size(&m), 0);
    m.count = 1;
    m.u.ref[0] = (struct ofl_pp_ref){1, 2, 0};
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_FIELD);
    m.u.ref[0].len = 3;
    CHECK_ERR(ofl_pp_msg_encode(&m, b, 19, &len), OFL_E_SIZE);
    CHECK_ERR(ofl_pp_msg_encode(&m, b, 20, &len), OFL_OK);
    CHECK_EQ(len, 20);
    m.type = OFL_PP_SEND_DATA;
    m.data_len = 0;
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_FIELD);
    m.data_len = 4;
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_ARG);
    m.type = OFL_PP_BUFFER_RECV_POOL_GET;
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_FIELD);
    m.type = OFL_PP_BUFFER_RECV_POOL;
    m.count = 2;
    m.u.pool[0] = (struct ofl_pp_pool_desc){3, 1, 1, 0, 0, 0};
    m.u.pool[1] = (struct ofl_pp_pool_desc){3, 1, 1, 0, 0, 0};
    CHECK_ERR(ofl_pp_msg_encode(&m, b, sizeof(b), &len), OFL_E_PP_DUPLICATE);
}

/* ---- the transfer indication ------------------------------------------------ */

static void test_indication(void)
{
    struct ofl_pp_ref r;
    uint32_t imm = 0;

    /* FIG. 7's example (7, 5, 256) */
    CHECK_EQ(ofl_pp_indication(7, 5, 256, &imm), OFL_PP_IND_IMM);
    CHECK_EQ(imm, 0x07050100u);
    CHECK_OK(ofl_pp_imm_decode(imm, &r));
    CHECK(r.pool == 7 && r.elem == 5 && r.len == 256);
    /* pool 255 / 256 */
    CHECK_EQ(ofl_pp_indication(255, 0, 1, &imm), OFL_PP_IND_IMM);
    CHECK_EQ(imm, 0xFF000001u);
    CHECK_EQ(ofl_pp_indication(256, 0, 1, &imm), OFL_PP_IND_MSG);
    /* element 255 / 256 */
    CHECK_EQ(ofl_pp_indication(0, 255, 1, &imm), OFL_PP_IND_IMM);
    CHECK_EQ(imm, 0x00FF0001u);
    CHECK_EQ(ofl_pp_indication(0, 256, 1, &imm), OFL_PP_IND_MSG);
    /* length 65535 / 65536 (encoded 0) / 65537 */
    CHECK_EQ(ofl_pp_indication(1, 1, 65535, &imm), OFL_PP_IND_IMM);
    CHECK_EQ(imm, 0x0101FFFFu);
    CHECK_EQ(ofl_pp_indication(1, 1, 65536, &imm), OFL_PP_IND_IMM);
    CHECK_EQ(imm, 0x01010000u);
    CHECK_OK(ofl_pp_imm_decode(imm, &r));
    CHECK_EQ(r.len, 65536);
    CHECK_EQ(ofl_pp_indication(1, 1, 65537, &imm), OFL_PP_IND_MSG);
    CHECK_EQ(ofl_pp_indication(1, 1, 0, &imm), OFL_PP_IND_MSG);
    CHECK_EQ(ofl_pp_indication(0xFFFFFFFFu, 0xFFFFFFFFu, ~0u, NULL),
             OFL_PP_IND_MSG);
    /* received immediate data: the upper 32 bits are reserved */
    CHECK_ERR(ofl_pp_imm_decode(0x100000000ull | 0x07050100u, &r),
              OFL_E_PP_RESERVED);
    CHECK_ERR(ofl_pp_imm_decode(0x8000000000000000ull, &r), OFL_E_PP_RESERVED);
    CHECK_OK(ofl_pp_imm_decode(0xFFFFFFFFull, &r));
    CHECK(r.pool == 255 && r.elem == 255 && r.len == 65535);
    CHECK_ERR(ofl_pp_imm_decode(0, NULL), OFL_E_ARG);
}

/* ---- pool tables -------------------------------------------------------------- */

#define TCAP 300u
#define TMAX 300u

static struct ofl_pp_pool g_slot[TCAP];
static uint32_t g_bits[TCAP * ((TMAX + 31) / 32)];

/* Every pool's consumed count equals its set bits, and no bit is set past
 * its element count. */
static bool table_consistent(const struct ofl_pp_pools *t)
{
    uint32_t p, e, active = 0;

    for (p = 0; p < t->cap; p++) {
        const struct ofl_pp_pool *s = &t->slot[p];
        uint32_t set = 0;

        active += s->state != OFL_PP_POOL_EMPTY;
        for (e = 0; e < t->words * 32; e++)
            if ((t->bits[p * t->words + (e >> 5)] >> (e & 31)) & 1u) {
                if (e >= s->d.count || s->state == OFL_PP_POOL_EMPTY)
                    return false;
                set++;
            }
        if (set != s->consumed)
            return false;
    }
    return active == t->active;
}

static void test_tables(void)
{
    struct ofl_pp_pools t;
    struct ofl_pp_pools_mem mem = {g_slot, TCAP, TMAX, g_bits,
                                   sizeof(g_bits) / sizeof(g_bits[0])};
    struct ofl_pp_pool_desc d[3];
    struct ofl_pp_ref r[3];
    uint32_t i;

    CHECK_EQ(ofl_pp_bitmap_words(TCAP, TMAX), TCAP * 10);
    CHECK_EQ(ofl_pp_bitmap_words(1, 32), 1);
    CHECK_EQ(ofl_pp_bitmap_words(1, 33), 2);
    CHECK_EQ(ofl_pp_bitmap_words(0, 1), 0);
    CHECK_EQ(ofl_pp_bitmap_words(1, (1u << 24) + 1), 0);
    CHECK_ERR(ofl_pp_pools_init(&t, 3, &mem), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_init(NULL, OFL_PP_TARGET, &mem), OFL_E_ARG);
    mem.nwords--;
    CHECK_ERR(ofl_pp_pools_init(&t, OFL_PP_TARGET, &mem), OFL_E_SIZE);
    mem.nwords++;
    mem.max_elems = 0;
    CHECK_ERR(ofl_pp_pools_init(&t, OFL_PP_TARGET, &mem), OFL_E_ARG);
    mem.max_elems = TMAX;
    CHECK_OK(ofl_pp_pools_init(&t, OFL_PP_TARGET, &mem));

    memset(d, 0, sizeof(d));
    d[0] = (struct ofl_pp_pool_desc){0, 4, 100, 0x11, 0x1000, 1};
    d[1] = (struct ofl_pp_pool_desc){TCAP - 1, TMAX, 8, 0x22, 0x9000, 2};
    CHECK_ERR(ofl_pp_pools_add(&t, d, 0), OFL_E_PP_COUNT);
    CHECK_ERR(ofl_pp_pools_add(&t, d, OFL_PP_MSG_ITEMS + 1), OFL_E_PP_COUNT);
    d[2] = d[0];
    d[2].index = TCAP; /* beyond the table */
    CHECK_ERR(ofl_pp_pools_add(&t, d, 3), OFL_E_PP_POOL_INDEX);
    d[2].index = 5;
    d[2].count = TMAX + 1;
    CHECK_ERR(ofl_pp_pools_add(&t, d, 3), OFL_E_PP_POOL_TOO_BIG);
    d[2].count = 1;
    d[2].index = 0;
    CHECK_ERR(ofl_pp_pools_add(&t, d, 3), OFL_E_PP_DUPLICATE);
    d[2].index = 5;
    d[2].size = 0;
    CHECK_ERR(ofl_pp_pools_add(&t, d, 3), OFL_E_PP_FIELD);
    d[2].size = 64;
    CHECK_EQ(t.active, 0); /* nothing applied by the refusals */
    CHECK_OK(ofl_pp_pools_add(&t, d, 3));
    CHECK_EQ(t.active, 3);
    CHECK_ERR(ofl_pp_pools_add(&t, &d[2], 1), OFL_E_PP_POOL_BUSY);

    /* consume: each rule, all or nothing */
    r[0] = (struct ofl_pp_ref){0, 3, 100};
    r[1] = (struct ofl_pp_ref){TCAP - 1, TMAX - 1, 8};
    CHECK_OK(ofl_pp_pools_consume(&t, r, 2));
    CHECK(ofl_pp_pools_consumed(&t, 0, 3));
    CHECK(ofl_pp_pools_consumed(&t, TCAP - 1, TMAX - 1));
    CHECK(!ofl_pp_pools_consumed(&t, 0, 2));
    CHECK(!ofl_pp_pools_consumed(&t, 0, 4)); /* beyond: false */
    CHECK(!ofl_pp_pools_consumed(&t, 7, 0)); /* empty pool */
    r[0] = (struct ofl_pp_ref){0, 2, 1};
    r[1] = (struct ofl_pp_ref){0, 3, 1};     /* consumed already */
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_CONSUMED);
    CHECK(!ofl_pp_pools_consumed(&t, 0, 2)); /* the first was not applied */
    r[1] = (struct ofl_pp_ref){0, 2, 1};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_DUPLICATE);
    r[1] = (struct ofl_pp_ref){0, 4, 1};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_ELEMENT);
    r[1] = (struct ofl_pp_ref){0, 1, 101};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_TOO_LONG);
    r[1] = (struct ofl_pp_ref){0, 1, 0};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_FIELD);
    r[1] = (struct ofl_pp_ref){7, 0, 1};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_POOL_UNKNOWN);
    r[1] = (struct ofl_pp_ref){TCAP, 0, 1};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 2), OFL_E_PP_POOL_INDEX);
    CHECK_ERR(ofl_pp_pools_consume(&t, r, 0), OFL_E_PP_COUNT);
    CHECK(!ofl_pp_pools_consumed(&t, 0, 2));
    CHECK_EQ(t.slot[0].consumed, 1);
    CHECK(table_consistent(&t));

    /* pick: lowest free element of a pool large enough; exhaustion */
    CHECK_OK(ofl_pp_pools_pick(&t, 100, &r[0]));
    CHECK(r[0].pool == 0 && r[0].elem == 0);
    CHECK_OK(ofl_pp_pools_pick(&t, 64, &r[0]));
    CHECK_EQ(r[0].pool, 0);
    CHECK_OK(ofl_pp_pools_pick(&t, 101, &r[0]) == OFL_E_PP_EXHAUSTED
                 ? OFL_OK : OFL_E_ARG);
    for (i = 0; i < 4; i++) {
        r[0] = (struct ofl_pp_ref){0, i, 1};
        if (i != 3)
            CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    }
    CHECK_OK(ofl_pp_pools_pick(&t, 65, &r[0]) == OFL_E_PP_EXHAUSTED
                 ? OFL_OK : OFL_E_ARG);
    CHECK_OK(ofl_pp_pools_pick(&t, 64, &r[0]));
    CHECK_EQ(r[0].pool, 5); /* pool 0 is full: the next one that fits */
    CHECK_EQ(r[0].elem, 0);

    /* release: runs, each element consumed, inside, no overlap */
    r[0] = (struct ofl_pp_ref){0, 0, 4};
    CHECK_OK(ofl_pp_pools_release(&t, r, 1));
    CHECK_EQ(t.slot[0].consumed, 0);
    CHECK_ERR(ofl_pp_pools_release(&t, r, 1), OFL_E_PP_NOT_CONSUMED);
    r[0] = (struct ofl_pp_ref){0, 0, 1};
    CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    r[1] = (struct ofl_pp_ref){0, 0, 1};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_DUPLICATE);
    r[1] = (struct ofl_pp_ref){0, 1, 4};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_ELEMENT);
    r[1] = (struct ofl_pp_ref){0, 1, 0};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_FIELD);
    r[1] = (struct ofl_pp_ref){9, 1, 1};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_POOL_UNKNOWN);
    r[1] = (struct ofl_pp_ref){0, 1, 1};     /* free: not consumed */
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_NOT_CONSUMED);
    CHECK(ofl_pp_pools_consumed(&t, 0, 0));  /* nothing applied */
    CHECK_ERR(ofl_pp_pools_release(&t, r, 17), OFL_E_PP_COUNT);
    CHECK(table_consistent(&t));
    CHECK_ERR(ofl_pp_pools_pick(NULL, 1, r), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_pick(&t, 0, r), OFL_E_ARG);
}

/* ---- a detached connection pair ---------------------------------------------- */

struct end {
    struct ofl_pp_conn c;
    struct ofl_pp_pool rx_slot[TCAP], tx_slot[TCAP];
    uint32_t rx_bits[TCAP * 10], tx_bits[TCAP * 10];
};

static struct end g_host, g_unit;
static struct ofl_pp_msg g_m, g_in, g_reply;
static uint8_t g_wire[4096];

static void end_init(struct end *e)
{
    struct ofl_pp_conn_cfg cfg;

    memset(&cfg, 0, sizeof(cfg));
    cfg.rx = (struct ofl_pp_pools_mem){e->rx_slot, TCAP, TMAX, e->rx_bits,
                                       TCAP * 10};
    cfg.tx = (struct ofl_pp_pools_mem){e->tx_slot, TCAP, TMAX, e->tx_bits,
                                       TCAP * 10};
    CHECK_OK(ofl_pp_conn_init(&e->c, &cfg));
    CHECK_EQ(e->c.state, OFL_PP_DOWN);
    CHECK_OK(ofl_pp_conn_start(&e->c));
    CHECK_EQ(e->c.state, OFL_PP_READY);
}

/* Carries m from one end to the other on its channel
 * (ofl_pp_msg_channel): encode, then ofl_pp_conn_recv; a reply goes back
 * the same way. Returns the receiver's result. */
static enum ofl_err carry(struct end *from, struct end *to,
                          const struct ofl_pp_msg *m)
{
    size_t len = 0;
    enum ofl_err err;

    (void)from;
    if (ofl_pp_msg_encode(m, g_wire, sizeof(g_wire), &len) != OFL_OK)
        return OFL_E_ARG;
    err = ofl_pp_conn_recv(&to->c, ofl_pp_msg_channel(m), g_wire, len,
                           &g_in, &g_reply);
    return err;
}

static enum ofl_err carry_reply(struct end *to)
{
    static struct ofl_pp_msg reply;
    size_t len = 0;

    if (g_reply.type == 0)
        return OFL_E_ARG;
    reply = g_reply;
    if (ofl_pp_msg_encode(&reply, g_wire, sizeof(g_wire), &len) != OFL_OK)
        return OFL_E_ARG;
    return ofl_pp_conn_recv(&to->c, ofl_pp_msg_channel(&reply), g_wire, len,
                            &g_in, &g_reply);
}

static void test_conn_states(void)
{
    static const uint8_t exp[OFL_PP_STATES][OFL_PP_EVENTS] = {
        {OFL_PP_READY, OFL_PP_CLOSED, OFL_PP_STATES, OFL_PP_ERROR},
        {OFL_PP_STATES, OFL_PP_FLUSHING, OFL_PP_STATES, OFL_PP_ERROR},
        {OFL_PP_STATES, OFL_PP_FLUSHING, OFL_PP_CLOSED, OFL_PP_ERROR},
        {OFL_PP_STATES, OFL_PP_CLOSED, OFL_PP_STATES, OFL_PP_ERROR},
        {OFL_PP_STATES, OFL_PP_STATES, OFL_PP_STATES, OFL_PP_ERROR}};
    struct ofl_pp_conn_cfg cfg;
    unsigned s, e;

    for (s = 0; s < OFL_PP_STATES; s++)
        for (e = 0; e < OFL_PP_EVENTS; e++)
            CHECK_EQ(ofl_pp_conn_next((enum ofl_pp_conn_state)s,
                                      (enum ofl_pp_conn_event)e),
                     exp[s][e]);
    CHECK_EQ(ofl_pp_conn_next(OFL_PP_STATES, OFL_PP_EV_START), OFL_PP_STATES);
    CHECK(strcmp(ofl_pp_conn_state_name(OFL_PP_FLUSHING), "FLUSHING") == 0);
    CHECK(strcmp(ofl_pp_conn_state_name(OFL_PP_STATES), "?") == 0);

    memset(&cfg, 0, sizeof(cfg));
    CHECK_ERR(ofl_pp_conn_init(&g_host.c, &cfg), OFL_E_ARG);
    cfg.rx = (struct ofl_pp_pools_mem){g_host.rx_slot, TCAP, TMAX,
                                       g_host.rx_bits, TCAP * 10};
    cfg.tx = (struct ofl_pp_pools_mem){g_host.tx_slot, TCAP, TMAX,
                                       g_host.tx_bits, TCAP * 10};
    cfg.ctrl = (struct ofl_qp *)&cfg; /* one QP without the other */
    CHECK_ERR(ofl_pp_conn_init(&g_host.c, &cfg), OFL_E_ARG);
    cfg.ctrl = NULL;
    CHECK_OK(ofl_pp_conn_init(&g_host.c, &cfg));
    /* nothing before START */
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, OFL_PP_CTRL, g_wire, 12, &g_in,
                               &g_reply),
              OFL_E_PP_CONN_STATE);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 0, 0, 1, &(struct ofl_pp_write){0}),
              OFL_E_PP_CONN_STATE);
    CHECK_OK(ofl_pp_conn_start(&g_host.c));
    CHECK_ERR(ofl_pp_conn_start(&g_host.c), OFL_E_PP_CONN_STATE);
    /* CLOSE with every pool empty: CLOSED at once */
    CHECK_OK(ofl_pp_conn_close(&g_host.c));
    CHECK_EQ(g_host.c.state, OFL_PP_CLOSED);
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, OFL_PP_CTRL, g_wire, 12, &g_in,
                               &g_reply),
              OFL_E_PP_CONN_STATE);
    ofl_pp_conn_fail(&g_host.c);
    CHECK_EQ(g_host.c.state, OFL_PP_ERROR);
    CHECK_ERR(ofl_pp_conn_close(&g_host.c), OFL_E_PP_CONN_STATE);
    CHECK_ERR(ofl_pp_write(&g_host.c, &(struct ofl_pp_write_req){0},
                           &(struct ofl_pp_write){0}),
              OFL_E_ARG); /* detached: no QPs to post on */
}

static void test_conn_pools(void)
{
    struct ofl_pp_pool_desc d[2];
    struct ofl_pp_write w;
    struct ofl_pp_ref r;
    uint32_t i;

    end_init(&g_host);
    end_init(&g_unit);
    /* the unit advertises two pools (FIG. 7 BufferRcvPool 730) */
    d[0] = (struct ofl_pp_pool_desc){7, 8, 256, 0xA07, 0x100000, 0x77};
    d[1] = (struct ofl_pp_pool_desc){290, 260, 70000, 0xB22, 0x2000000, 0};
    CHECK_OK(ofl_pp_advertise(&g_unit.c, d, 2, &g_m));
    CHECK_EQ(g_m.type, OFL_PP_BUFFER_RECV_POOL);
    CHECK_ERR(ofl_pp_advertise(&g_unit.c, d, 1, &g_m), OFL_E_PP_POOL_BUSY);
    CHECK_EQ(g_m.count, 2); /* the refusal left the built message alone */
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_reply.type, 0);
    CHECK_EQ(g_host.c.tx.active, 2);
    CHECK_EQ(g_host.c.tx.slot[7].state, OFL_PP_POOL_ACTIVE);
    /* the same advertisement again: the pools are busy, nothing changes */
    CHECK_ERR(carry(&g_unit, &g_host, &g_m), OFL_E_PP_POOL_BUSY);
    CHECK_EQ(g_host.c.stats.msgs_refused, 1);

    /* host writes (7, 5, 256): immediate data; the unit consumes it */
    CHECK_OK(ofl_pp_write_prepare(&g_host.c, 7, 5, 256, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_IMM);
    CHECK_EQ(w.imm, 0x07050100u);
    CHECK_EQ(w.remote_va, 0x100000 + 5 * 256);
    CHECK_EQ(w.remote_stag, 0xA07);
    CHECK_OK(ofl_pp_conn_recv_imm(&g_unit.c, w.imm, &r));
    CHECK(r.pool == 7 && r.elem == 5 && r.len == 256);
    CHECK(ofl_pp_pools_consumed(&g_unit.c.rx, 7, 5));
    /* a write into the consumed element: refused by the initiator ... */
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 7, 5, 10, &w), OFL_E_PP_CONSUMED);
    /* ... and detected by the target when an indication names it */
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x0705000Au, &r),
              OFL_E_PP_CONSUMED);
    /* unknown pool and element: both sides */
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 6, 0, 10, &w),
              OFL_E_PP_POOL_UNKNOWN);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x0600000Au, &r),
              OFL_E_PP_POOL_UNKNOWN);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 7, 8, 10, &w), OFL_E_PP_ELEMENT);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x0708000Au, &r),
              OFL_E_PP_ELEMENT);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 7, 1, 257, &w), OFL_E_PP_TOO_LONG);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, TCAP, 1, 1, &w),
              OFL_E_PP_POOL_INDEX);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x17050100u, &r) ==
                      OFL_E_PP_POOL_UNKNOWN
                  ? OFL_OK : OFL_E_ARG,
              OFL_OK);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 1ull << 40, &r),
              OFL_E_PP_RESERVED);

    /* the large pool: element 259, 70000 bytes -> BufferRDMAIndicate */
    CHECK_OK(ofl_pp_write_prepare(&g_host.c, 290, 259, 70000, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_MSG);
    CHECK_EQ(w.remote_va, 0x2000000ull + 259ull * 70000);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_RDMA_INDICATE;
    g_m.count = 2;
    g_m.u.ref[0] = (struct ofl_pp_ref){290, 259, 70000};
    g_m.u.ref[1] = (struct ofl_pp_ref){7, 5, 1}; /* already consumed */
    CHECK_ERR(carry(&g_host, &g_unit, &g_m), OFL_E_PP_CONSUMED);
    CHECK(!ofl_pp_pools_consumed(&g_unit.c.rx, 290, 259)); /* all or nothing */
    g_m.count = 1;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK(ofl_pp_pools_consumed(&g_unit.c.rx, 290, 259));
    CHECK_EQ(g_unit.c.stats.indications_rx, 2);
    g_m.u.ref[0].len = 70001; /* longer than the element */
    g_m.u.ref[0].elem = 0;
    CHECK_ERR(carry(&g_host, &g_unit, &g_m), OFL_E_PP_TOO_LONG);

    /* exhaustion of pool 7 (8 x 256) for 200-byte packets, then the
     * large pool until it is empty too */
    for (i = 0; i < 7; i++) {
        CHECK_OK(ofl_pp_pick(&g_host.c, 200, &r));
        CHECK_EQ(r.pool, 7);
        CHECK_OK(ofl_pp_write_prepare(&g_host.c, r.pool, r.elem, 200, &w));
        CHECK_OK(ofl_pp_conn_recv_imm(&g_unit.c, w.imm, &r));
    }
    CHECK_OK(ofl_pp_pick(&g_host.c, 200, &r));
    CHECK_EQ(r.pool, 290);
    CHECK_ERR(ofl_pp_pick(&g_host.c, 70001, &r), OFL_E_PP_EXHAUSTED);
    for (i = 0; i < 259; i++) {
        CHECK_OK(ofl_pp_write_prepare(&g_host.c, 290, i, 1, &w) == OFL_OK &&
                         w.kind == OFL_PP_IND_MSG
                     ? OFL_OK : OFL_E_ARG);
    }
    CHECK_ERR(ofl_pp_pick(&g_host.c, 1, &r), OFL_E_PP_EXHAUSTED);
    /* the host asks for more (BufferRecvPoolGet); the unit answers with a
     * new pool */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_RECV_POOL_GET;
    g_m.elem_count = 4;
    g_m.elem_size = 512;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK_EQ(g_in.type, OFL_PP_BUFFER_RECV_POOL_GET);
    CHECK_EQ(g_in.elem_count, 4);
    d[0] = (struct ofl_pp_pool_desc){8, g_in.elem_count, g_in.elem_size, 0xA08,
                                     0x300000, 0};
    CHECK_OK(ofl_pp_advertise(&g_unit.c, d, 1, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_OK(ofl_pp_pick(&g_host.c, 512, &r));
    CHECK(r.pool == 8 && r.elem == 0);
    /* replenishment: the unit frees pool 7's elements 0..7 (Update) */
    r = (struct ofl_pp_ref){7, 0, 8};
    CHECK_OK(ofl_pp_replenish(&g_unit.c, &r, 1, &g_m));
    CHECK_EQ(g_m.type, OFL_PP_BUFFER_RECV_POOL_UPDATE);
    CHECK_ERR(ofl_pp_replenish(&g_unit.c, &r, 1, &g_m), OFL_E_PP_NOT_CONSUMED);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_RECV_POOL_UPDATE;
    g_m.count = 1;
    g_m.u.ref[0] = r;
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_host.c.tx.slot[7].consumed, 0);
    CHECK_OK(ofl_pp_pick(&g_host.c, 200, &r));
    CHECK(r.pool == 7 && r.elem == 0);
    /* a second Update for the same elements: they are free already */
    CHECK_ERR(carry(&g_unit, &g_host, &g_m), OFL_E_PP_NOT_CONSUMED);
    /* Update naming an unknown pool, and one with a run beyond the pool */
    g_m.u.ref[0] = (struct ofl_pp_ref){9, 0, 1};
    CHECK_ERR(carry(&g_unit, &g_host, &g_m), OFL_E_PP_POOL_UNKNOWN);
    g_m.u.ref[0] = (struct ofl_pp_ref){7, 7, 2};
    CHECK_ERR(carry(&g_unit, &g_host, &g_m), OFL_E_PP_ELEMENT);
    CHECK(table_consistent(&g_host.c.tx));
    CHECK(table_consistent(&g_unit.c.rx));

    /* SendData and CfgUtil pass through untouched */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_SEND_DATA;
    g_m.data = (const uint8_t *)"frame";
    g_m.data_len = 5;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK(g_in.data_len == 5 && memcmp(g_in.data, "frame", 5) == 0);
    g_m.type = OFL_PP_CFG_UTIL_REQUEST;
    g_m.ctx = 3;
    g_m.code = 1;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK_EQ(g_in.code, 1);
}

/* Flush from the target (the unit), then from the initiator (the host),
 * with writes attempted during each; then a close. Runs after
 * test_conn_pools (pools 7, 8, 290 advertised by the unit). */
static void test_conn_flush(void)
{
    struct ofl_pp_write w;
    struct ofl_pp_ref r;
    uint32_t pool;

    /* the unit (target) flushes pool 7 */
    pool = 7;
    CHECK_OK(ofl_pp_write_prepare(&g_host.c, 7, 3, 100, &w)); /* in flight */
    CHECK_OK(ofl_pp_flush(&g_unit.c, true, &pool, 1, 0xF1, &g_m));
    CHECK_EQ(g_m.u.pool_ref[0], OFL_PP_POOL_OWNER | 7);
    CHECK_EQ(g_unit.c.rx.slot[7].state, OFL_PP_POOL_FLUSHING);
    CHECK_EQ(g_unit.c.rx.flushing, 1); /* what a FlushReply looks for */
    CHECK_ERR(ofl_pp_flush(&g_unit.c, true, &pool, 1, 0xF2, &g_m),
              OFL_E_PP_FLUSHING);
    /* the write sent before the host saw the request still lands */
    CHECK_OK(ofl_pp_conn_recv_imm(&g_unit.c, w.imm, &r));
    /* the request reaches the host: it stops using the pool at once */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REQUEST;
    g_m.ctx = 0xF1;
    g_m.count = 1;
    g_m.u.pool_ref[0] = OFL_PP_POOL_OWNER | 7;
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_host.c.tx.slot[7].state, OFL_PP_POOL_EMPTY);
    CHECK_EQ(g_reply.type, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_EQ(g_reply.ctx, 0xF1);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 7, 4, 100, &w),
              OFL_E_PP_POOL_UNKNOWN);
    /* until the reply arrives the unit keeps the memory */
    CHECK_EQ(g_unit.c.rx.slot[7].state, OFL_PP_POOL_FLUSHING);
    CHECK_OK(carry_reply(&g_unit));
    CHECK_EQ(g_unit.c.rx.slot[7].state, OFL_PP_POOL_EMPTY);
    CHECK_EQ(g_unit.c.rx.flushing, 0);
    CHECK(!ofl_pp_pools_consumed(&g_unit.c.rx, 7, 3)); /* its bit cleared */
    CHECK(table_consistent(&g_unit.c.rx));
    /* a second reply matches nothing */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
    g_m.ctx = 0xF1;
    CHECK_ERR(carry(&g_host, &g_unit, &g_m), OFL_E_PP_FLUSH_UNKNOWN);
    /* a request for a pool already gone, or beyond the table: as good as
     * flushed, answered (else the asker would wait for ever) */
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REQUEST;
    g_m.ctx = 0xF5;
    g_m.count = 1;
    g_m.u.pool_ref[0] = OFL_PP_POOL_OWNER | 7;
    memset(&g_reply, 0, sizeof(g_reply));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK(g_reply.type == OFL_PP_BUFFER_POOL_FLUSH_REPLY &&
          g_reply.ctx == 0xF5);
    g_m.u.pool_ref[0] = OFL_PP_POOL_OWNER | TCAP;
    memset(&g_reply, 0, sizeof(g_reply));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_reply.type, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_EQ(g_host.c.tx.slot[8].state, OFL_PP_POOL_ACTIVE); /* untouched */

    /* the host (initiator) flushes pool 8: it stops writing at once */
    pool = 8;
    CHECK_ERR(ofl_pp_flush(&g_host.c, true, &pool, 1, 0xE1, &g_m),
              OFL_E_PP_POOL_UNKNOWN); /* the host owns no pool 8 */
    CHECK_OK(ofl_pp_flush(&g_host.c, false, &pool, 1, 0xE1, &g_m));
    CHECK_EQ(g_m.u.pool_ref[0], 8);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 8, 1, 10, &w), OFL_E_PP_FLUSHING);
    CHECK_ERR(ofl_pp_pick(&g_host.c, 512, &r) == OFL_OK && r.pool == 8
                  ? OFL_E_ARG : OFL_OK,
              OFL_OK);
    CHECK_OK(carry(&g_host, &g_unit, &g_m)); /* the unit frees at once */
    CHECK_EQ(g_unit.c.rx.slot[8].state, OFL_PP_POOL_EMPTY);
    CHECK_EQ(g_reply.ctx, 0xE1);
    CHECK_EQ(g_host.c.tx.slot[8].state, OFL_PP_POOL_FLUSHING);
    CHECK_OK(carry_reply(&g_host));
    CHECK_EQ(g_host.c.tx.slot[8].state, OFL_PP_POOL_EMPTY);
    /* an indication for a pool the unit freed is detected */
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x08000001u, &r),
              OFL_E_PP_POOL_UNKNOWN);

    /* close: no new writes or pools; the last pool (290) flushed by the
     * unit; both connections end CLOSED */
    CHECK_OK(ofl_pp_conn_close(&g_host.c));
    CHECK_EQ(g_host.c.state, OFL_PP_FLUSHING);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 290, 0, 1, &w) ==
                      OFL_E_PP_CONN_STATE
                  ? OFL_OK : OFL_E_ARG,
              OFL_OK);
    CHECK_OK(ofl_pp_conn_close(&g_unit.c));
    /* FLUSHING: no new pools either way, no writes; the rest goes on */
    {
        struct ofl_pp_pool_desc d = {9, 1, 64, 1, 0x1000, 0};
        static struct ofl_pp_msg adv;

        CHECK_ERR(ofl_pp_advertise(&g_unit.c, &d, 1, &adv),
                  OFL_E_PP_CONN_STATE);
        CHECK_EQ(g_unit.c.rx.slot[9].state, OFL_PP_POOL_EMPTY);
        memset(&adv, 0, sizeof(adv));
        adv.type = OFL_PP_BUFFER_RECV_POOL;
        adv.count = 1;
        adv.u.pool[0] = d;
        CHECK_ERR(carry(&g_unit, &g_host, &adv), OFL_E_PP_CONN_STATE);
        CHECK_EQ(g_host.c.tx.slot[9].state, OFL_PP_POOL_EMPTY);
        CHECK_ERR(ofl_pp_write_prepare(&g_unit.c, 0, 0, 1, &w),
                  OFL_E_PP_CONN_STATE);
        r = (struct ofl_pp_ref){290, 0, 1};
        CHECK_ERR(ofl_pp_replenish(&g_unit.c, &r, 1, &g_m),
                  OFL_E_PP_NOT_CONSUMED); /* replenishing is allowed */
    }
    pool = 290;
    CHECK_OK(ofl_pp_flush(&g_unit.c, true, &pool, 1, 0xD1, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_host.c.state, OFL_PP_CLOSED);
    CHECK_EQ(g_unit.c.state, OFL_PP_FLUSHING);
    CHECK_OK(carry_reply(&g_unit));
    CHECK_EQ(g_unit.c.state, OFL_PP_CLOSED);
    /* CLOSED takes nothing */
    r = (struct ofl_pp_ref){290, 0, 1};
    CHECK_ERR(ofl_pp_replenish(&g_unit.c, &r, 1, &g_m), OFL_E_PP_CONN_STATE);
    CHECK_ERR(ofl_pp_flush(&g_unit.c, true, &pool, 1, 1, &g_m),
              OFL_E_PP_CONN_STATE);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x01000001u, &r),
              OFL_E_PP_CONN_STATE);
    CHECK_ERR(ofl_pp_post_msg(&g_unit.c, OFL_PP_CTRL, &g_m,
                              &(struct ofl_pp_buf){g_wire, 0, 64, 0}, 1),
              OFL_E_ARG); /* detached: nothing to post on */
    CHECK(table_consistent(&g_host.c.tx));
    CHECK(table_consistent(&g_unit.c.rx));
}

/* Crossing flushes and flush arguments. */
static void test_flush_edges(void)
{
    struct ofl_pp_pool_desc d = {3, 4, 64, 1, 0x1000, 0};
    uint32_t pools[2] = {3, 3};

    end_init(&g_host);
    end_init(&g_unit);
    CHECK_OK(ofl_pp_advertise(&g_unit.c, &d, 1, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_ERR(ofl_pp_flush(&g_host.c, false, pools, 2, 1, &g_m),
              OFL_E_PP_DUPLICATE);
    CHECK_ERR(ofl_pp_flush(&g_host.c, false, pools, 0, 1, &g_m),
              OFL_E_PP_COUNT);
    pools[1] = TCAP;
    CHECK_ERR(ofl_pp_flush(&g_host.c, false, &pools[1], 1, 1, &g_m),
              OFL_E_PP_POOL_INDEX);
    /* both ends ask at once */
    CHECK_OK(ofl_pp_flush(&g_host.c, false, pools, 1, 0x11, &g_m));
    {
        static struct ofl_pp_msg host_req;

        host_req = g_m;
        CHECK_OK(ofl_pp_flush(&g_unit.c, true, pools, 1, 0x22, &g_m));
        CHECK_OK(carry(&g_unit, &g_host, &g_m)); /* host: EMPTY, replies */
        CHECK_EQ(g_host.c.tx.slot[3].state, OFL_PP_POOL_EMPTY);
        CHECK_OK(carry_reply(&g_unit));
        CHECK_EQ(g_unit.c.rx.slot[3].state, OFL_PP_POOL_EMPTY);
        /* the host's own request now names a pool the unit freed: still
         * answered; the reply finds nothing flushing at the host (stale) */
        memset(&g_reply, 0, sizeof(g_reply));
        CHECK_OK(carry(&g_host, &g_unit, &host_req));
        CHECK_EQ(g_reply.ctx, 0x11);
        CHECK_ERR(carry_reply(&g_host), OFL_E_PP_FLUSH_UNKNOWN);
    }
    /* A request naming a pool the receiver knows and one it does not (a
     * BufferRecvPool it refused, say): the known one is emptied and the
     * request answered, so the asker can close. */
    {
        struct ofl_pp_pool_desc d2[2] = {{1, 4, 64, 1, 0x1000, 0},
                                         {5, 4, 64, 1, 0x2000, 0}};

        CHECK_OK(ofl_pp_advertise(&g_unit.c, d2, 2, &g_m));
        g_m.count = 1; /* the host hears of pool 1 only */
        CHECK_OK(carry(&g_unit, &g_host, &g_m));
        pools[0] = 1;
        pools[1] = 5;
        CHECK_OK(ofl_pp_flush(&g_unit.c, true, pools, 2, 0x33, &g_m));
        memset(&g_reply, 0, sizeof(g_reply));
        CHECK_OK(carry(&g_unit, &g_host, &g_m));
        CHECK_EQ(g_host.c.tx.slot[1].state, OFL_PP_POOL_EMPTY);
        CHECK_OK(carry_reply(&g_unit));
        CHECK_EQ(g_unit.c.rx.slot[1].state, OFL_PP_POOL_EMPTY);
        CHECK_EQ(g_unit.c.rx.slot[5].state, OFL_PP_POOL_EMPTY);
    }
    /* A context still pending is refused: one reply would end both
     * flushes (the second before the peer even saw its request). */
    {
        struct ofl_pp_pool_desc d3 = {6, 4, 64, 1, 0x3000, 0};

        CHECK_OK(ofl_pp_advertise(&g_unit.c, &d3, 1, &g_m));
        CHECK_OK(carry(&g_unit, &g_host, &g_m));
        CHECK_OK(ofl_pp_advertise(&g_host.c, &d3, 1, &g_m));
        CHECK_OK(carry(&g_host, &g_unit, &g_m));
        pools[0] = 6;
        CHECK_OK(ofl_pp_flush(&g_unit.c, false, pools, 1, 0x77, &g_m));
        CHECK_ERR(ofl_pp_flush(&g_unit.c, true, pools, 1, 0x77, &g_m),
                  OFL_E_PP_DUPLICATE);
        CHECK_EQ(g_unit.c.rx.slot[6].state, OFL_PP_POOL_ACTIVE);
        CHECK_OK(ofl_pp_flush(&g_unit.c, true, pools, 1, 0x78, &g_m));
        CHECK_EQ(g_unit.c.rx.slot[6].state, OFL_PP_POOL_FLUSHING);
    }
}

/*
 * A closing end refuses a peer's new pool (FLUSHING), then reaches CLOSED;
 * the peer, closing in turn, flushes that pool: CLOSED answers the
 * request (its pools are all EMPTY), so the peer reaches CLOSED too
 * rather than waiting in FLUSHING for ever. CLOSED takes nothing else.
 */
static void test_flush_after_close(void)
{
    struct ofl_pp_pool_desc q = {1, 4, 64, 0x11, 0x10000, 0};
    struct ofl_pp_pool_desc p = {2, 4, 64, 0x22, 0x20000, 0};
    uint32_t idx;

    end_init(&g_host);
    end_init(&g_unit);
    CHECK_OK(ofl_pp_advertise(&g_unit.c, &q, 1, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_OK(ofl_pp_conn_close(&g_unit.c));
    CHECK_EQ(g_unit.c.state, OFL_PP_FLUSHING);
    CHECK_OK(ofl_pp_advertise(&g_host.c, &p, 1, &g_m));
    CHECK_ERR(carry(&g_host, &g_unit, &g_m), OFL_E_PP_CONN_STATE);
    idx = 1;
    CHECK_OK(ofl_pp_flush(&g_unit.c, true, &idx, 1, 7, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_OK(carry_reply(&g_unit));
    CHECK_EQ(g_unit.c.state, OFL_PP_CLOSED);
    /* the host closes and flushes the pool the unit refused */
    CHECK_OK(ofl_pp_conn_close(&g_host.c));
    CHECK_EQ(g_host.c.state, OFL_PP_FLUSHING);
    idx = 2;
    CHECK_OK(ofl_pp_flush(&g_host.c, true, &idx, 1, 9, &g_m));
    memset(&g_reply, 0, sizeof(g_reply));
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK_EQ(g_reply.type, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_EQ(g_reply.ctx, 9);
    CHECK_EQ(g_unit.c.state, OFL_PP_CLOSED);
    CHECK_OK(carry_reply(&g_host));
    CHECK_EQ(g_host.c.state, OFL_PP_CLOSED);
    /* anything else is still refused by CLOSED */
    {
        struct ofl_pp_msg upd;

        memset(&upd, 0, sizeof(upd));
        upd.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
        upd.ctx = 9;
        CHECK_ERR(carry(&g_host, &g_unit, &upd), OFL_E_PP_CONN_STATE);
    }
}

/* Which channel each message takes (flushes and indications behind the
 * Writes), and the refusal of those on the control channel. */
static void test_msg_channel(void)
{
    static const uint16_t data[] = {OFL_PP_BUFFER_RDMA_INDICATE,
                                    OFL_PP_BUFFER_POOL_FLUSH_REQUEST,
                                    OFL_PP_BUFFER_POOL_FLUSH_REPLY};
    static const uint16_t ctrl[] = {
        OFL_PP_BUFFER_RECV_POOL, OFL_PP_BUFFER_RECV_POOL_GET,
        OFL_PP_BUFFER_RECV_POOL_UPDATE, OFL_PP_SEND_DATA,
        OFL_PP_CFG_UTIL_REQUEST, OFL_PP_CFG_UTIL_REPLY};
    struct ofl_pp_msg m;
    uint32_t i;

    memset(&m, 0, sizeof(m));
    for (i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
        m.type = data[i];
        CHECK_EQ(ofl_pp_msg_channel(&m), OFL_PP_DATA);
    }
    for (i = 0; i < sizeof(ctrl) / sizeof(ctrl[0]); i++) {
        m.type = ctrl[i];
        CHECK_EQ(ofl_pp_msg_channel(&m), OFL_PP_CTRL);
    }
    CHECK_EQ(ofl_pp_msg_channel(NULL), OFL_PP_CTRL);
}

/* ---- cells -------------------------------------------------------------------- */

#define CS OFL_PP_CELL_SIZE
static uint8_t g_pkt[CS * 8];
static uint8_t g_cells[12][CS + 64];
static size_t g_clen[12];
static uint8_t g_rbuf[CS * 8];

/* Cuts a packet of len bytes (psn) into g_cells, its CRCs through port;
 * returns the count. */
static uint32_t cut_port(const struct ofl_port *port, uint32_t len,
                         uint32_t psn, bool imm)
{
    struct ofl_pp_packet p;
    uint32_t i, n = ofl_pp_cell_count(CS, len);

    memset(&p, 0, sizeof(p));
    p.va = 0x123456789000ull;
    p.handle = 0xBEEF;
    p.psn = psn;
    p.data = g_pkt;
    p.len = len;
    p.has_imm = imm;
    p.imm = 0x07050100u;
    for (i = 0; i < n; i++)
        if (ofl_pp_cell_build(port, CS, &p, i, g_cells[i], sizeof(g_cells[i]),
                              &g_clen[i]) != OFL_OK)
            return 0;
    return n;
}

/* The same with the portable CRC. */
static uint32_t cut(uint32_t len, uint32_t psn, bool imm)
{
    return cut_port(NULL, len, psn, imm);
}

/* Re-seals cell i after an edit: the cell CRC over the bytes before it. */
static void reseal(uint32_t i)
{
    size_t n = g_clen[i];

    put32(g_cells[i] + n - 4, ofl_crc32c(g_cells[i], n - 4));
}

static enum ofl_err feed(struct ofl_pp_reasm *r, uint32_t i, bool *done)
{
    static struct ofl_pp_packet out;

    return ofl_pp_reasm_input(r, g_cells[i], g_clen[i], &out, done);
}

static void test_cells(void)
{
    struct ofl_pp_reasm r;
    struct ofl_pp_packet out;
    bool done = false;
    uint32_t i, n;

    for (i = 0; i < sizeof(g_pkt); i++)
        g_pkt[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ(ofl_pp_cell_count(256, 1), 1);
    CHECK_EQ(ofl_pp_cell_count(256, 256), 1);
    CHECK_EQ(ofl_pp_cell_count(256, 257), 2);
    CHECK_EQ(ofl_pp_cell_count(256, 0), 0);
    CHECK_EQ(ofl_pp_cell_count(100, 10), 0);
    CHECK_EQ(ofl_pp_cell_count(16, 16u * 65536), 65536);
    CHECK_EQ(ofl_pp_cell_count(16, 16u * 65536 + 1), 0);
    CHECK_EQ(ofl_pp_cell_max(256), 12 + 16 + 4 + 256 + 8);
    CHECK_ERR(ofl_pp_reasm_init(&r, NULL, g_rbuf, sizeof(g_rbuf), 255, 0), OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_init(&r, NULL, NULL, 1, 256, 0), OFL_E_ARG);

    /* in order: 3 cells (VA/MH and imm in the first only), then one cell,
     * then an exact multiple of the cell size; psn wraps 2^32 */
    CHECK_OK(ofl_pp_reasm_init(&r, NULL, g_rbuf, sizeof(g_rbuf), CS, 0xFFFFFFFFu));
    n = cut(600, 0xFFFFFFFFu, true);
    CHECK_EQ(n, 3);
    CHECK_EQ(g_clen[0], 12 + 16 + 4 + 256 + 4);
    CHECK_EQ(g_clen[1], 12 + 256 + 4);
    CHECK_EQ(g_clen[2], 12 + 88 + 4 + 4);
    CHECK_EQ(g_cells[0][1], OFL_PP_CELL_F_FIRST | OFL_PP_CELL_F_IMM);
    CHECK_EQ(g_cells[1][1], 0);
    CHECK_EQ(g_cells[2][1], OFL_PP_CELL_F_LAST);
    CHECK_OK(feed(&r, 0, &done));
    CHECK(!done);
    CHECK_OK(feed(&r, 1, &done));
    CHECK_OK(ofl_pp_reasm_input(&r, g_cells[2], g_clen[2], &out, &done));
    CHECK(done);
    CHECK(out.len == 600 && memcmp(out.data, g_pkt, 600) == 0);
    CHECK(out.va == 0x123456789000ull && out.handle == 0xBEEF);
    CHECK(out.has_imm && out.imm == 0x07050100u && out.psn == 0xFFFFFFFFu);
    n = cut(1, 0, false);
    CHECK_EQ(g_cells[0][1], OFL_PP_CELL_F_FIRST | OFL_PP_CELL_F_LAST);
    CHECK_OK(ofl_pp_reasm_input(&r, g_cells[0], g_clen[0], &out, &done));
    CHECK(done && out.len == 1 && out.data[0] == g_pkt[0] && !out.has_imm);
    n = cut(512, 1, false);
    CHECK_EQ(n, 2);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(ofl_pp_reasm_input(&r, g_cells[1], g_clen[1], &out, &done));
    CHECK(done && out.len == 512 && memcmp(out.data, g_pkt, 512) == 0);
    CHECK_EQ(r.packets, 3);

    /* a duplicate cell: ignored, the packet goes on */
    n = cut(700, 2, false);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_DUP);
    CHECK_OK(feed(&r, 1, &done));
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_DUP);
    CHECK_OK(feed(&r, 2, &done));
    CHECK(done);
    /* the whole packet again: every cell is a duplicate */
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_DUP);
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_CELL_DUP);
    CHECK_EQ(r.dups, 4);

    /* a missing cell: 0 then 2; the packet is abandoned, then sent again */
    n = cut(700, 3, false);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_CELL_MISSING);
    CHECK_EQ(r.open, 0);
    CHECK_EQ(r.dropped, 1);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_MISSING); /* no first */
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    CHECK_OK(feed(&r, 2, &done));
    CHECK(done && r.psn == 4);
    /* reordered: 0, 2, 1 */
    n = cut(700, 4, false);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_CELL_MISSING);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_MISSING);
    /* the last cell lost: the next packet's first cell finds it open */
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    n = cut(100, 5, false);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_MISSING);
    CHECK_EQ(r.open, 0);
    /* a whole packet missing (psn ahead), one behind (duplicate) */
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_MISSING);
    n = cut(100, 3, false);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_DUP);
    n = cut(700, 4, false);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    CHECK_OK(feed(&r, 2, &done));
    CHECK(done && r.psn == 5);

    /* corrupt: a payload bit (cell CRC), then the packet CRC resealed */
    n = cut(700, 5, false);
    g_cells[1][40] ^= 1;
    CHECK_OK(feed(&r, 0, &done));
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_CRC);
    CHECK_EQ(r.open, 0);
    g_cells[1][40] ^= 1;
    g_cells[2][20] ^= 0x80; /* data of the last cell, cell CRC resealed */
    reseal(2);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_PACKET_CRC);
    CHECK(!done && r.open == 0 && r.psn == 5);
    n = cut(700, 5, false);
    put32(g_cells[2] + g_clen[2] - 8, 0); /* the packet CRC field itself */
    reseal(2);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_PACKET_CRC);

    /* header checks (each cell resealed so that only the header is wrong) */
    n = cut(700, 5, false);
    CHECK_ERR(ofl_pp_reasm_input(&r, g_cells[0], 15, &out, &done),
              OFL_E_PP_TRUNCATED);
    CHECK_ERR(ofl_pp_reasm_input(&r, g_cells[0], ofl_pp_cell_max(CS) + 1, &out,
                                 &done),
              OFL_E_PP_LENGTH);
    g_cells[0][0] = 2;
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_VERSION);
    g_cells[0][0] = OFL_PP_CELL_VERSION;
    g_cells[0][1] |= 0x08;
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_RESERVED);
    g_cells[0][1] &= (uint8_t)~0x08;
    g_cells[0][11] = 1;
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_RESERVED);
    g_cells[0][11] = 0;
    put16(g_cells[0] + 8, 1); /* a first cell must be cell 0 */
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_HDR);
    put16(g_cells[0] + 8, 0);
    put16(g_cells[0] + 2, 255); /* a non-last cell is full: length wrong */
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_LENGTH);
    put16(g_cells[0] + 2, 256);
    put32(g_cells[0] + 24, 256); /* packet length says one cell, no LAST */
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_HDR);
    put32(g_cells[0] + 24, sizeof(g_rbuf) + 1);
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_TOO_LONG);
    put32(g_cells[0] + 24, 700);
    reseal(0);
    CHECK_OK(feed(&r, 0, &done));
    g_cells[1][1] = OFL_PP_CELL_F_IMM; /* IMM without FIRST */
    reseal(1);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_HDR);
    CHECK_EQ(r.open, 0);
    n = cut(700, 5, false);
    CHECK_OK(feed(&r, 0, &done));
    /* a middle cell marked LAST (lengths made consistent) */
    g_cells[1][1] = OFL_PP_CELL_F_LAST;
    g_clen[1] += 4;
    memmove(g_cells[1] + 12 + 256 + 4, g_cells[1] + 12 + 256, 4);
    reseal(1);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_HDR);
    /* build errors */
    {
        struct ofl_pp_packet p;
        size_t len;

        memset(&p, 0, sizeof(p));
        p.data = g_pkt;
        p.len = 300;
        CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 2, g_cells[0], 512, &len),
                  OFL_E_ARG);
        CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 0, g_cells[0], 12 + 16 + 256 + 3,
                                    &len),
                  OFL_E_SIZE);
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cells[0], 12 + 16 + 256 + 4,
                                   &len));
        p.len = 0;
        CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 0, g_cells[0], 512, &len),
                  OFL_E_ARG);
    }
    (void)n;
}

/* ---- edges: arguments, list orders, table scans, cell lengths ---------------- */

/* Encoder and decoder edges: NULL and out-of-range arguments, runs listed
 * last-first, sizes that do not fit. */
static void test_msg_edges(void)
{
    static struct ofl_pp_msg m, d;
    static uint8_t b[64], out[64];
    size_t len = 7;

    CHECK_EQ(ofl_pp_msg_size(NULL), 0);
    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RECV_POOL_UPDATE;
    m.count = OFL_PP_MSG_ITEMS + 1;
    CHECK_EQ(ofl_pp_msg_size(&m), 0);
    CHECK_ERR(ofl_pp_msg_encode(&m, out, sizeof(out), &len), OFL_E_PP_COUNT);
    m.count = 1;
    m.u.ref[0] = (struct ofl_pp_ref){1, 0, 1};
    CHECK_EQ(ofl_pp_msg_size(&m), 20);
    /* A data length near 2^32: the size needs 33 bits, which a 32-bit
     * size_t (the Cortex-M run) cannot hold, so it is 0 there, not a
     * wrapped small number. */
    d.type = OFL_PP_SEND_DATA;
    d.data_len = 0xFFFFFFFCu; /* + the 8-byte fixed part */
    if (sizeof(size_t) < 8)
        CHECK_EQ(ofl_pp_msg_size(&d), 0);
    else
        CHECK_EQ(ofl_pp_msg_size(&d), (size_t)0xFFFFFFFCu + 8u);
    memset(&d, 0, sizeof(d));
    /* out may be NULL only with cap 0, which is short */
    CHECK_ERR(ofl_pp_msg_encode(&m, NULL, 20, &len), OFL_E_ARG);
    CHECK_ERR(ofl_pp_msg_encode(&m, NULL, 0, &len), OFL_E_SIZE);
    CHECK_EQ(len, 7); /* untouched by the refusals */
    /* Update runs of one pool listed last-first: [5, 9) then [0, 5) */
    m.count = 2;
    m.u.ref[0] = (struct ofl_pp_ref){1, 5, 4};
    m.u.ref[1] = (struct ofl_pp_ref){1, 0, 5};
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK_EQ(len, 32);
    CHECK_OK(ofl_pp_msg_decode(out, len, &d));
    CHECK(d.count == 2 && d.u.ref[0].elem == 5 && d.u.ref[1].len == 5);
    m.u.ref[1].len = 6; /* [0, 6) reaches into [5, 9) */
    CHECK_ERR(ofl_pp_msg_encode(&m, out, sizeof(out), &len),
              OFL_E_PP_DUPLICATE);
    put32(out + 8 + 12 + 8, 6); /* the same on the wire */
    CHECK_ERR(dec(out, 32), OFL_E_PP_DUPLICATE);
    /* BufferRecvPoolGet: an element size of zero */
    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_BUFFER_RECV_POOL_GET;
    m.elem_count = 1;
    CHECK_ERR(ofl_pp_msg_encode(&m, out, sizeof(out), &len), OFL_E_PP_FIELD);
    m.elem_size = 1;
    CHECK_OK(ofl_pp_msg_encode(&m, out, sizeof(out), &len));
    CHECK_EQ(len, 12);
    /* CfgUtilReply: data NULL with a length */
    memset(&m, 0, sizeof(m));
    m.type = OFL_PP_CFG_UTIL_REPLY;
    m.data_len = 1;
    CHECK_ERR(ofl_pp_msg_encode(&m, out, sizeof(out), &len), OFL_E_ARG);
    /* the largest data length: OFL_E_SIZE (the size is not wrapped), out
     * untouched */
    m.type = OFL_PP_SEND_DATA;
    m.data = b;
    m.data_len = 0xFFFFFFFFu;
    memset(out, 0xAA, sizeof(out));
    len = 7;
    CHECK_ERR(ofl_pp_msg_encode(&m, out, sizeof(out), &len), OFL_E_SIZE);
    CHECK(len == 7 && out[0] == 0xAA && out[sizeof(out) - 1] == 0xAA);
    /* decoder arguments */
    CHECK_ERR(ofl_pp_msg_decode(NULL, 12, &d), OFL_E_ARG);
    CHECK_ERR(dec(NULL, 0), OFL_E_PP_TRUNCATED);
    hdr(b, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
    CHECK_ERR(ofl_pp_msg_decode(b, 12, NULL), OFL_E_ARG);
}

/* Table edges: arguments, sizes at the limits, the pick scan across a
 * full bitmap word and a full pool, runs released last-first. */
static void test_table_edges(void)
{
    struct ofl_pp_pools t, z;
    struct ofl_pp_pools_mem mem = {g_slot, TCAP, TMAX, g_bits,
                                   sizeof(g_bits) / sizeof(g_bits[0])};
    struct ofl_pp_pools_mem bad;
    struct ofl_pp_pool_desc d = {0, 40, 64, 0x11, 0x1000, 0};
    struct ofl_pp_ref r[OFL_PP_MSG_ITEMS + 1];
    uint32_t i;

    CHECK_EQ(ofl_pp_bitmap_words((1u << 24) + 1, 1), 0);
    CHECK_EQ(ofl_pp_bitmap_words(1u << 24, 32), 1u << 24);
    CHECK_EQ(ofl_pp_bitmap_words(1u << 24, 1u << 24), 0); /* 2^43 words */
    CHECK_ERR(ofl_pp_pools_init(&t, OFL_PP_TARGET, NULL), OFL_E_ARG);
    bad = mem;
    bad.slot = NULL;
    CHECK_ERR(ofl_pp_pools_init(&t, OFL_PP_TARGET, &bad), OFL_E_ARG);
    bad = mem;
    bad.bits = NULL;
    CHECK_ERR(ofl_pp_pools_init(&t, OFL_PP_TARGET, &bad), OFL_E_ARG);
    CHECK_OK(ofl_pp_pools_init(&t, OFL_PP_INITIATOR, &mem));
    memset(&z, 0, sizeof(z)); /* never initialised: no slots */

    CHECK_ERR(ofl_pp_pools_add(NULL, &d, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_add(&z, &d, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_add(&t, NULL, 1), OFL_E_ARG);
    CHECK_EQ(t.active, 0);
    CHECK_OK(ofl_pp_pools_add(&t, &d, 1));

    r[0] = (struct ofl_pp_ref){0, 0, 1};
    r[1] = (struct ofl_pp_ref){0, 1, 1};
    CHECK_ERR(ofl_pp_pools_consume(NULL, r, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_consume(&z, r, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_consume(&t, NULL, 1), OFL_E_ARG);
    for (i = 2; i <= OFL_PP_MSG_ITEMS; i++)
        r[i] = (struct ofl_pp_ref){0, i, 1};
    CHECK_ERR(ofl_pp_pools_consume(&t, r, OFL_PP_MSG_ITEMS + 1),
              OFL_E_PP_COUNT);
    CHECK_EQ(t.slot[0].consumed, 0);
    /* two elements of one pool in one call */
    CHECK_OK(ofl_pp_pools_consume(&t, r, 2));
    CHECK_EQ(t.slot[0].consumed, 2);

    CHECK_ERR(ofl_pp_pools_release(NULL, r, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_release(&z, r, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_release(&t, NULL, 1), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_release(&t, r, 0), OFL_E_PP_COUNT);
    CHECK_EQ(t.slot[0].consumed, 2);

    CHECK_ERR(ofl_pp_pools_pick(&z, 1, r), OFL_E_ARG);
    CHECK_ERR(ofl_pp_pools_pick(&t, 1, NULL), OFL_E_ARG);
    CHECK(!ofl_pp_pools_consumed(NULL, 0, 0));
    CHECK(!ofl_pp_pools_consumed(&t, TCAP, 0));
    CHECK(ofl_pp_pools_consumed(&t, 0, 1));

    /* elements 0 .. 31 consumed: pick skips the full word */
    for (i = 2; i < 32; i++) {
        r[0] = (struct ofl_pp_ref){0, i, 1};
        CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    }
    CHECK_EQ(t.bits[0], 0xFFFFFFFFu);
    CHECK_OK(ofl_pp_pools_pick(&t, 64, &r[0]));
    CHECK(r[0].pool == 0 && r[0].elem == 32 && r[0].len == 64);
    /* 32 .. 39 too: the pool is full, the scan ends at its count */
    for (i = 32; i < 40; i++) {
        r[0] = (struct ofl_pp_ref){0, i, 1};
        CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    }
    CHECK_ERR(ofl_pp_pools_pick(&t, 1, &r[0]), OFL_E_PP_EXHAUSTED);
    /* runs listed last-first: [10, 15) then [0, 10) */
    r[0] = (struct ofl_pp_ref){0, 10, 5};
    r[1] = (struct ofl_pp_ref){0, 0, 11}; /* [0, 11): overlaps */
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_DUPLICATE);
    CHECK_EQ(t.slot[0].consumed, 40);
    r[1].len = 10;
    CHECK_OK(ofl_pp_pools_release(&t, r, 2));
    CHECK_EQ(t.slot[0].consumed, 25);
    CHECK_OK(ofl_pp_pools_pick(&t, 1, &r[0]));
    CHECK(r[0].pool == 0 && r[0].elem == 0);
    CHECK(table_consistent(&t));
}

/*
 * A peer's BufferRecvPoolUpdate costs what its message decides (issue 26
 * item 6): every run is checked against the slots (known, inside,
 * disjoint, no more than the pool consumed) before any bitmap is read, and
 * the bitmap is then walked a word at a time. A refused message changes
 * nothing.
 */
static void test_release_bounded(void)
{
    static struct ofl_pp_pool slot_copy[TCAP];
    static uint32_t bits_copy[sizeof(g_bits) / sizeof(g_bits[0])];
    struct ofl_pp_pools t;
    struct ofl_pp_pools_mem mem = {g_slot, TCAP, TMAX, g_bits,
                                   sizeof(g_bits) / sizeof(g_bits[0])};
    struct ofl_pp_pool_desc d[2] = {{0, TMAX, 64, 0x11, 0x1000, 0},
                                    {1, 8, 64, 0x22, 0x100000, 0}};
    struct ofl_pp_ref r[2];
    uint32_t i;

    CHECK_OK(ofl_pp_pools_init(&t, OFL_PP_INITIATOR, &mem));
    CHECK_OK(ofl_pp_pools_add(&t, d, 2));
    for (i = 0; i < 100; i++) {
        r[0] = (struct ofl_pp_ref){0, i, 1};
        if (i != 40)
            CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    }
    CHECK_EQ(t.slot[0].consumed, 99);
    memcpy(slot_copy, g_slot, sizeof(slot_copy));
    memcpy(bits_copy, g_bits, sizeof(bits_copy));
    /* The second run names an unknown pool: refused for it, before the
     * first run's bitmap is walked (that walk would stop at 40). */
    r[0] = (struct ofl_pp_ref){0, 0, 99};
    r[1] = (struct ofl_pp_ref){9, 0, 1};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_POOL_UNKNOWN);
    r[1] = (struct ofl_pp_ref){1, 0, 9};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_ELEMENT);
    /* More than the pool consumed (100 > 99): refused by the count. */
    r[0] = (struct ofl_pp_ref){0, 0, 100};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 1), OFL_E_PP_NOT_CONSUMED);
    /* 99 named, one of them free: found in the walk. */
    r[0] = (struct ofl_pp_ref){0, 1, 99};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 1), OFL_E_PP_NOT_CONSUMED);
    /* Two runs, the first fine, the second with a free element. */
    r[0] = (struct ofl_pp_ref){0, 0, 40};
    r[1] = (struct ofl_pp_ref){0, 40, 2};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 2), OFL_E_PP_NOT_CONSUMED);
    CHECK(memcmp(slot_copy, g_slot, sizeof(slot_copy)) == 0);
    CHECK(memcmp(bits_copy, g_bits, sizeof(bits_copy)) == 0);
    /* The count decides before the bitmap: bits set behind the table's
     * back (consumed count 0) are not released. */
    g_bits[1 * t.words] |= 0xFFu;
    r[0] = (struct ofl_pp_ref){1, 0, 8};
    CHECK_ERR(ofl_pp_pools_release(&t, r, 1), OFL_E_PP_NOT_CONSUMED);
    CHECK_EQ(t.slot[1].consumed, 0);
    g_bits[1 * t.words] = 0;
    /* Runs across word boundaries, a word at a time. */
    r[0] = (struct ofl_pp_ref){0, 5, 35};  /* [5, 40) */
    r[1] = (struct ofl_pp_ref){0, 41, 59}; /* [41, 100) */
    CHECK_OK(ofl_pp_pools_release(&t, r, 2));
    CHECK_EQ(t.slot[0].consumed, 5);
    for (i = 0; i < 110; i++)
        if (ofl_pp_pools_consumed(&t, 0, i) != (i < 5))
            break;
    CHECK_EQ(i, 110);
    for (i = 32; i < 64; i++) {
        r[0] = (struct ofl_pp_ref){0, i, 1};
        CHECK_OK(ofl_pp_pools_consume(&t, r, 1));
    }
    r[0] = (struct ofl_pp_ref){0, 32, 32}; /* one whole word */
    CHECK_OK(ofl_pp_pools_release(&t, r, 1));
    CHECK_EQ(t.bits[1], 0);
    CHECK_EQ(t.bits[0], 0x1Fu);
    CHECK(table_consistent(&t));
}

/* Connection calls with missing arguments change nothing; the event
 * table refuses an unknown event; flushes of two pools at once and
 * replies matching only some of the FLUSHING pools. */
static void test_conn_edges(void)
{
    static struct ofl_pp_write_req req;
    struct ofl_pp_conn_cfg cfg;
    struct ofl_pp_pool_desc d[2] = {{1, 2, 64, 1, 0x1000, 0},
                                    {2, 2, 64, 1, 0x2000, 0}};
    struct ofl_pp_ref r = {1, 0, 1};
    struct ofl_pp_write w;
    uint32_t pools[OFL_PP_MSG_ITEMS + 1] = {1, 2};

    CHECK_EQ(ofl_pp_conn_next(OFL_PP_READY, OFL_PP_EVENTS), OFL_PP_STATES);
    end_init(&g_host);
    end_init(&g_unit);
    memset(&cfg, 0, sizeof(cfg));
    CHECK_ERR(ofl_pp_conn_init(NULL, &cfg), OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_init(&g_host.c, NULL), OFL_E_ARG);
    CHECK_EQ(g_host.c.state, OFL_PP_READY);
    CHECK_ERR(ofl_pp_conn_start(NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_close(NULL), OFL_E_ARG);
    ofl_pp_conn_fail(NULL); /* no connection: nothing to fail */
    CHECK_ERR(ofl_pp_advertise(NULL, d, 1, &g_m), OFL_E_ARG);
    CHECK_ERR(ofl_pp_advertise(&g_unit.c, d, 1, NULL), OFL_E_ARG);
    CHECK_EQ(g_unit.c.rx.active, 0);
    CHECK_OK(ofl_pp_advertise(&g_unit.c, d, 2, &g_m));
    CHECK_OK(carry(&g_unit, &g_host, &g_m));
    CHECK_EQ(g_host.c.tx.active, 2);

    CHECK_ERR(ofl_pp_replenish(NULL, &r, 1, &g_m), OFL_E_ARG);
    CHECK_ERR(ofl_pp_replenish(&g_unit.c, &r, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_flush(NULL, true, pools, 1, 1, &g_m), OFL_E_ARG);
    CHECK_ERR(ofl_pp_flush(&g_unit.c, true, pools, 1, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_flush(&g_unit.c, true, NULL, 1, 1, &g_m), OFL_E_ARG);
    CHECK_ERR(ofl_pp_flush(&g_unit.c, true, pools, OFL_PP_MSG_ITEMS + 1, 1,
                           &g_m),
              OFL_E_PP_COUNT);
    CHECK_EQ(g_unit.c.rx.slot[1].state, OFL_PP_POOL_ACTIVE);
    CHECK_ERR(ofl_pp_conn_recv(NULL, OFL_PP_CTRL, g_wire, 12, &g_in,
                               &g_reply),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, OFL_PP_CTRL, g_wire, 12, NULL,
                               &g_reply),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, OFL_PP_CTRL, g_wire, 12, &g_in,
                               NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, OFL_PP_CTRL, g_wire, 12, &g_in,
                               &g_in),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv(&g_host.c, (enum ofl_pp_channel)2, g_wire, 12,
                               &g_in, &g_reply),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv_imm(NULL, 0x01000001u, &r), OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv_imm(&g_unit.c, 0x01000001u, NULL), OFL_E_ARG);
    CHECK(!ofl_pp_pools_consumed(&g_unit.c.rx, 1, 0));
    CHECK_ERR(ofl_pp_pick(NULL, 1, &r), OFL_E_ARG);
    CHECK_ERR(ofl_pp_write_prepare(NULL, 1, 0, 1, &w), OFL_E_ARG);
    CHECK_ERR(ofl_pp_write_prepare(&g_host.c, 1, 0, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_write(NULL, &req, &w), OFL_E_ARG);
    CHECK_ERR(ofl_pp_write(&g_host.c, NULL, &w), OFL_E_ARG);
    CHECK_ERR(ofl_pp_write(&g_host.c, &req, NULL), OFL_E_ARG);
    CHECK(!ofl_pp_pools_consumed(&g_host.c.tx, 1, 0));
    CHECK_EQ(g_host.c.stats.msgs_refused + g_unit.c.stats.msgs_refused, 0);

    /* the host stops writing into both pools with one request */
    CHECK_OK(ofl_pp_flush(&g_host.c, false, pools, 2, 0x30, &g_m));
    CHECK(g_m.count == 2 && g_m.u.pool_ref[0] == 1 && g_m.u.pool_ref[1] == 2);
    CHECK_EQ(g_host.c.tx.slot[2].state, OFL_PP_POOL_FLUSHING);
    /* the unit flushes pool 1 under 0x10 and pool 2 under 0x20 */
    CHECK_OK(ofl_pp_flush(&g_unit.c, true, &pools[0], 1, 0x10, &g_m));
    CHECK_OK(ofl_pp_flush(&g_unit.c, true, &pools[1], 1, 0x20, &g_m));
    /* the reply to 0x10 empties pool 1 only */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
    g_m.ctx = 0x10;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK_EQ(g_unit.c.rx.slot[1].state, OFL_PP_POOL_EMPTY);
    CHECK_EQ(g_unit.c.rx.slot[2].state, OFL_PP_POOL_FLUSHING);
    CHECK_EQ(g_unit.c.rx.active, 1);
    g_m.ctx = 0x20;
    CHECK_OK(carry(&g_host, &g_unit, &g_m));
    CHECK_EQ(g_unit.c.rx.slot[2].state, OFL_PP_POOL_EMPTY);
    CHECK_EQ(g_unit.c.rx.active, 0);
}

/* Cell edges: arguments, packet lengths a first cell cannot carry, cell
 * payloads out of range with consistent lengths, a middle cell of a
 * packet ahead or behind. */
static void test_cell_edges(void)
{
    struct ofl_pp_reasm r, z;
    struct ofl_pp_packet p, out;
    size_t len;
    bool done = true;

    for (len = 0; len < sizeof(g_pkt); len++)
        g_pkt[len] = (uint8_t)(len * 5 + 1);
    CHECK_EQ(ofl_pp_cell_max(100), 0);
    memset(&p, 0, sizeof(p));
    p.data = g_pkt;
    p.len = 10;
    CHECK_ERR(ofl_pp_cell_build(NULL, CS, NULL, 0, g_cells[0], 512, &len), OFL_E_ARG);
    CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 0, g_cells[0], 512, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 0, NULL, 512, &len), OFL_E_ARG);
    p.data = NULL;
    CHECK_ERR(ofl_pp_cell_build(NULL, CS, &p, 0, g_cells[0], 512, &len), OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_init(NULL, NULL, g_rbuf, sizeof(g_rbuf), CS, 0),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_init(&r, NULL, g_rbuf, 0, CS, 0), OFL_E_ARG);
    CHECK_OK(ofl_pp_reasm_init(&r, NULL, g_rbuf, sizeof(g_rbuf), CS, 10));
    memset(&z, 0, sizeof(z)); /* never initialised: no buffer */
    (void)cut(100, 10, false);
    CHECK_ERR(ofl_pp_reasm_input(NULL, g_cells[0], g_clen[0], &out, &done),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_input(&r, g_cells[0], g_clen[0], NULL, &done),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_input(&r, g_cells[0], g_clen[0], &out, NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_input(&z, g_cells[0], g_clen[0], &out, &done),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_reasm_input(&r, NULL, 5, &out, &done), OFL_E_ARG);
    CHECK(done); /* untouched by the argument refusals */
    CHECK_ERR(ofl_pp_reasm_input(&r, NULL, 0, &out, &done),
              OFL_E_PP_TRUNCATED);
    CHECK(!done);

    /* a single-cell packet whose length says 0, then 99 (payload 100) */
    put32(g_cells[0] + 24, 0);
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_HDR);
    put32(g_cells[0] + 24, 99);
    reseal(0);
    CHECK_ERR(feed(&r, 0, &done), OFL_E_PP_CELL_HDR);
    put32(g_cells[0] + 24, 100);
    reseal(0);
    CHECK_OK(feed(&r, 0, &done));
    CHECK(done && r.psn == 11 && r.packets == 1);

    /* 700 bytes: cells of 256, 256, 188 */
    CHECK_EQ(cut(700, 11, false), 3);
    /* a middle cell of 257 bytes (length consistent): refused, and the
     * open packet is abandoned */
    CHECK_OK(feed(&r, 0, &done));
    put16(g_cells[1] + 2, 257);
    g_clen[1] += 1;
    reseal(1);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_HDR);
    CHECK(r.open == 0 && r.dropped == 1);
    /* a middle cell of 255 bytes */
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 0, &done));
    put16(g_cells[1] + 2, 255);
    g_clen[1] -= 1;
    reseal(1);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_HDR);
    CHECK_EQ(r.dropped, 2);
    /* a last cell of 187 bytes where 188 remain */
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    put16(g_cells[2] + 2, 187);
    memmove(g_cells[2] + 12 + 187, g_cells[2] + 12 + 188, 4);
    g_clen[2] -= 1;
    reseal(2);
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_CELL_HDR);
    CHECK_EQ(r.dropped, 3);
    /* a last cell without payload */
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_OK(feed(&r, 1, &done));
    put16(g_cells[2] + 2, 0);
    memmove(g_cells[2] + 12, g_cells[2] + 12 + 188, 4);
    g_clen[2] = 12 + 4 + 4;
    reseal(2);
    CHECK_ERR(feed(&r, 2, &done), OFL_E_PP_CELL_HDR);
    CHECK_EQ(r.dropped, 4);
    CHECK(r.psn == 11 && r.packets == 1 && !done);

    /* middle cells of the packet after the expected one (missing) and of
     * the one before (duplicate), with and without a packet open */
    CHECK_EQ(cut(700, 12, false), 3);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_MISSING);
    CHECK_EQ(cut(700, 10, false), 3);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_DUP);
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_EQ(cut(700, 12, false), 3);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_MISSING);
    CHECK(r.open == 0 && r.dropped == 5);
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 0, &done));
    CHECK_EQ(cut(700, 10, false), 3);
    CHECK_ERR(feed(&r, 1, &done), OFL_E_PP_CELL_DUP);
    CHECK_EQ(r.open, 1); /* a duplicate leaves the packet open */
    CHECK_EQ(cut(700, 11, false), 3);
    CHECK_OK(feed(&r, 1, &done));
    CHECK_OK(ofl_pp_reasm_input(&r, g_cells[2], g_clen[2], &out, &done));
    CHECK(done && out.len == 700 && memcmp(out.data, g_pkt, 700) == 0);
    CHECK(r.psn == 12 && r.packets == 2 && r.dups == 2);
}

/* The cell functions compute every CRC through the port they are given:
 * a hook that counts its calls and, when told, answers wrong (crc_count). */
static void test_cell_port_crc(void)
{
    static uint8_t plain[3][CS + 64];
    struct ofl_port port;
    struct ofl_pp_reasm r;
    struct ofl_pp_packet out;
    size_t len[3];
    uint32_t i;
    bool done = false;

    memset(&port, 0, sizeof(port));
    port.version = OFL_PORT_VERSION;
    port.size = sizeof(port);
    port.crc32c = crc_count_hook;
    for (i = 0; i < sizeof(g_pkt); i++)
        g_pkt[i] = (uint8_t)(i * 11 + 5);
    /* Built through the hook: the same bytes as the portable CRC gives,
     * three cell CRCs and one packet CRC computed by the hook. */
    CHECK_EQ(cut(600, 40, false), 3);
    for (i = 0; i < 3; i++) {
        memcpy(plain[i], g_cells[i], g_clen[i]);
        len[i] = g_clen[i];
    }
    crc_count_reset();
    CHECK_EQ(cut_port(&port, 600, 40, false), 3);
    for (i = 0; i < 3; i++)
        CHECK(g_clen[i] == len[i] && memcmp(g_cells[i], plain[i], len[i]) == 0);
    CHECK_EQ(crc_count.calls, 4);
    /* Checked through the hook: each cell CRC and each payload once into
     * the packet CRC. */
    CHECK_OK(ofl_pp_reasm_init(&r, &port, g_rbuf, sizeof(g_rbuf), CS, 40));
    crc_count.calls = 0;
    for (i = 0; i < 3; i++)
        CHECK_OK(ofl_pp_reasm_input(&r, g_cells[i], g_clen[i], &out, &done));
    CHECK(done && out.len == 600 && memcmp(out.data, g_pkt, 600) == 0);
    CHECK_EQ(crc_count.calls, 6);
    /* A hook that disagrees with the cell's CRC: the cell is refused. */
    CHECK_OK(ofl_pp_reasm_init(&r, &port, g_rbuf, sizeof(g_rbuf), CS, 40));
    crc_count.flip = 1;
    CHECK_ERR(ofl_pp_reasm_input(&r, g_cells[0], g_clen[0], &out, &done),
              OFL_E_PP_CELL_CRC);
    crc_count.flip = 0;
}

OFL_SUITE(pp)
{
    test_round_trips();
    test_vectors();
    test_decode_errors();
    test_encode_errors();
    test_indication();
    test_tables();
    test_conn_states();
    test_conn_pools();
    test_conn_flush();
    test_flush_edges();
    test_flush_after_close();
    test_msg_channel();
    test_cells();
    test_msg_edges();
    test_table_edges();
    test_release_bounded();
    test_conn_edges();
    test_cell_edges();
    test_cell_port_crc();
}
