/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt: every row of the descriptor type table of offload.h ("Types and
 * their fields"), written out here from the header, not from the core's
 * rule table: for each type, each field that MUST be zero is tripped
 * (OFL_E_DT_RESERVED) and passed, each required field is tripped
 * (OFL_E_DT_BAD_FIELD) and passed - in a response also passed when the
 * status is not OK - each free field passes with any value, and each flag
 * bit is tripped (OFL_E_DT_BAD_FLAGS) or passed. Both directions are
 * checked: ofl_dt_desc_encode on the struct, ofl_dt_desc_decode on the
 * bytes, and the two table paths (ofl_dt_host_post for requests, the
 * host's poll for responses).
 */
#include "test.h"
#include "support/dt_rig.h"

/* Field rules: Z = MUST be 0, R = required non-zero, A = any. For a
 * buffer or control buffer the header's "R" requires the length; base 0
 * is an address like any other. */
#define Z 0
#define R 1
#define A 2

enum { F_BASE, F_LEN, F_CONN, F_NUMBER, F_AUX, F_STATUS, F_N };

struct row {
    uint8_t type;
    uint8_t flags; /* the flags the type allows */
    uint8_t rule[F_N];
};

/* offload.h, dt: the type table. A request's status MUST be 0; a
 * response's status is free (its range is checked apart). */
static const struct row rows[] = {
    /*                                          base len conn num aux st */
    {OFL_DT_REQ_BUF_SEND, OFL_DT_F_ASAP | OFL_DT_F_MODIFY, {A, R, R, Z, Z, Z}},
    {OFL_DT_REQ_BUF_AVAIL, OFL_DT_F_PEEK, {A, R, A, Z, A, Z}},
    {OFL_DT_REQ_CONNECT, 0, {A, R, Z, R, Z, Z}},
    {OFL_DT_REQ_LISTEN, 0, {A, R, Z, R, Z, Z}},
    {OFL_DT_REQ_TERMINATE, 0, {Z, Z, R, Z, Z, Z}},
    {OFL_DT_REQ_CANCEL, 0, {Z, Z, A, Z, A, Z}},
    {OFL_DT_REQ_CONN_ATTR, 0, {A, R, R, R, Z, Z}},
    {OFL_DT_REQ_ADAPTER_ATTR, 0, {A, R, Z, R, Z, Z}},
    {OFL_DT_RSP_BUF_RECV, OFL_DT_F_FINAL | OFL_DT_F_PEEK, {A, A, R, A, A, A}},
    {OFL_DT_RSP_BUF_AVAIL, 0, {A, A, R, A, Z, A}},
    {OFL_DT_RSP_CONN_ARRIVAL, 0, {R, Z, R, Z, Z, A}},
    {OFL_DT_RSP_CONN_COMPLETE, 0, {Z, Z, A, Z, A, A}},
    {OFL_DT_RSP_LISTEN, 0, {Z, Z, A, Z, Z, A}},
    {OFL_DT_RSP_TERMINATE, 0, {Z, Z, R, Z, Z, A}},
    {OFL_DT_RSP_CANCEL, 0, {Z, Z, A, A, A, A}},
    {OFL_DT_RSP_CONN_ATTR, OFL_DT_F_REPORT, {A, A, R, A, A, A}},
    {OFL_DT_RSP_ADAPTER_ATTR, 0, {A, A, Z, A, Z, A}},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const char *const field_name[F_N] = {"base", "len",  "conn",
                                             "number", "aux", "status"};

/* A non-zero value for field f, small enough that no range wraps. */
static void field_set(struct ofl_dt_desc *d, int f, bool on)
{
    switch (f) {
    case F_BASE:
        d->base = on ? 0x1000 : 0;
        break;
    case F_LEN:
        d->len = on ? 64 : 0;
        break;
    case F_CONN:
        d->conn = on ? 0x100000003ull : 0;
        break;
    case F_NUMBER:
        d->number = on ? 2 : 0;
        break;
    case F_AUX:
        d->aux = on ? 5 : 0;
        break;
    default:
        d->status = on ? OFL_DT_ST_FAILED : 0;
        break;
    }
}

/* The same on the encoded bytes (the layout table of offload.h). */
static void byte_set(uint8_t *b, int f, bool on)
{
    static const uint8_t off[F_N] = {8, 16, 20, 3, 28, 2};
    static const uint8_t len[F_N] = {8, 4, 8, 1, 4, 1};
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    field_set(&d, f, on);
    memset(b + off[f], 0, len[f]);
    switch (f) {
    case F_BASE:
        ofl_store_be64(b + 8, d.base);
        break;
    case F_LEN:
        ofl_store_be32(b + 16, d.len);
        break;
    case F_CONN:
        ofl_store_be64(b + 20, d.conn);
        break;
    case F_NUMBER:
        b[3] = d.number;
        break;
    case F_AUX:
        ofl_store_be32(b + 28, d.aux);
        break;
    default:
        b[2] = d.status;
        break;
    }
}

/* The smallest valid descriptor of row w: its required fields set, every
 * other field zero, no flags. */
static struct ofl_dt_desc minimal(const struct row *w)
{
    struct ofl_dt_desc d;
    int f;

    memset(&d, 0, sizeof(d));
    d.type = w->type;
    d.tag = 0x600D;
    for (f = 0; f < F_N; f++)
        if (w->rule[f] == R)
            field_set(&d, f, true);
    return d;
}


/* Encode (the struct) and decode (the same fields as bytes) both give
 * want; a decoded pass gives back d. */
static void expect(const struct ofl_dt_desc *d, enum ofl_err want,
                   const char *what, int f)
{
    uint8_t b[32];
    struct ofl_dt_desc e;
    enum ofl_err ee, de;

    ee = ofl_dt_desc_encode(d, b, sizeof(b));
    dt_raw_store(d, b, 0);
    memset(&e, 0x5A, sizeof(e));
    de = ofl_dt_desc_decode(b, sizeof(b), &e);
    if (ee != want || de != want)
        printf("  type 0x%02x flags 0x%02x %s %s: encode %s, decode %s, "
               "want %s\n",
               d->type, d->flags, what, f >= 0 ? field_name[f] : "",
               ofl_strerror(ee), ofl_strerror(de), ofl_strerror(want));
    CHECK_EQ(ee, want);
    CHECK_EQ(de, want);
    if (want == OFL_OK)
        CHECK(memcmp(&e, d, sizeof(e)) == 0);
}

/* Each field of each type: trip and pass. */
static void test_rules_fields(void)
{
    size_t i;
    int f;
    struct ofl_dt_desc d;
    bool rsp;

    for (i = 0; i < NROWS; i++) {
        const struct row *w = &rows[i];

        rsp = ofl_dt_is_response(w->type);
        d = minimal(w);
        expect(&d, OFL_OK, "minimal", -1);
        for (f = 0; f < F_N; f++) {
            d = minimal(w);
            switch (w->rule[f]) {
            case Z:
                field_set(&d, f, true);
                expect(&d, OFL_E_DT_RESERVED, "must be zero", f);
                field_set(&d, f, false);
                expect(&d, OFL_OK, "zero", f);
                break;
            case R:
                field_set(&d, f, false);
                expect(&d, OFL_E_DT_BAD_FIELD, "required", f);
                if (rsp) {
                    /* A refusal may leave it out. */
                    d.status = OFL_DT_ST_BAD_DESC;
                    expect(&d, OFL_OK, "required, status not OK", f);
                    d.status = 0;
                }
                field_set(&d, f, true);
                expect(&d, OFL_OK, "present", f);
                break;
            default:
                field_set(&d, f, true);
                expect(&d, OFL_OK, "free, set", f);
                field_set(&d, f, false);
                expect(&d, OFL_OK, "free, clear", f);
                break;
            }
        }
        /* Status: a request has none; a response's is a known one. */
        d = minimal(w);
        d.status = OFL_DT_ST_MAX;
        expect(&d, rsp ? OFL_OK : OFL_E_DT_RESERVED, "status max", F_STATUS);
        d.status = OFL_DT_ST_MAX + 1;
        expect(&d, rsp ? OFL_E_DT_BAD_FIELD : OFL_E_DT_RESERVED,
               "status beyond max", F_STATUS);
    }
}

/* The peek rules on top of the flag sets (offload.h: a peek needs a
 * connection and no skip; its response is always FINAL). */
static bool peek_ok(const struct ofl_dt_desc *d)
{
    if (!(d->flags & OFL_DT_F_PEEK))
        return true;
    if (d->type == OFL_DT_REQ_BUF_AVAIL)
        return d->conn != 0 && d->aux == 0;
    return (d->flags & OFL_DT_F_FINAL) != 0;
}

/* Each flag bit of each type: trip and pass. */
static void test_rules_flags(void)
{
    size_t i;
    unsigned bit;
    struct ofl_dt_desc d;

    for (i = 0; i < NROWS; i++) {
        const struct row *w = &rows[i];

        for (bit = 0; bit < 8; bit++) {
            d = minimal(w);
            d.flags = (uint8_t)(1u << bit);
            if (d.type == OFL_DT_REQ_BUF_AVAIL)
                d.conn = 7; /* a peek's connection */
            if (!(w->flags & d.flags))
                expect(&d, OFL_E_DT_BAD_FLAGS, "flag not allowed", -1);
            else
                expect(&d, peek_ok(&d) ? OFL_OK : OFL_E_DT_BAD_FLAGS,
                       "flag allowed", -1);
        }
        d = minimal(w);
        d.flags = w->flags;
        if (d.type == OFL_DT_REQ_BUF_AVAIL)
            d.conn = 7;
        expect(&d, OFL_OK, "all allowed flags", -1);
    }
}

/* The table paths apply the same rules: the host refuses to post a
 * request that breaks one and refuses a response that breaks one; the
 * adapter answers such a request BAD_DESC. */
static void test_rules_paths(void)
{
    struct dt_rig *r = dt_rig_new(NULL, 0);
    struct ofl_dt_desc d, got;
    uint8_t raw[32];
    size_t i;
    uint32_t before;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < NROWS; i++) {
        const struct row *w = &rows[i];
        int f;

        if (!ofl_dt_is_request(w->type))
            continue;
        for (f = 0; f < F_N; f++) {
            d = minimal(w);
            if (w->rule[f] == Z)
                field_set(&d, f, true);
            else if (w->rule[f] == R)
                field_set(&d, f, false);
            else
                continue;
            before = r->host.in_tail;
            CHECK_ERR(ofl_dt_host_post(&r->host, &d),
                      w->rule[f] == Z ? OFL_E_DT_RESERVED
                                      : OFL_E_DT_BAD_FIELD);
            CHECK_EQ(r->host.in_tail, before);
        }
    }
    /* Raw in the input table (a host that skips the encoder): answered
     * BAD_DESC, with the request's tag. */
    d = minimal(&rows[4]); /* terminate */
    d.tag = 41;
    CHECK_OK(ofl_dt_desc_encode(&d, raw, sizeof(raw)));
    ofl_store_be32(raw + 16, 1); /* len MUST be 0 */
    raw[0] |= OFL_DT_OWNER;
    memcpy(r->in_table + (r->host.in_tail & (r->host.in_slots - 1)) * OFL_DT_DESC_SIZE, raw, 32);
    r->host.in_tail++;
    d = minimal(&rows[6]); /* connection attribute without its conn */
    d.tag = 42;
    d.conn = 0;
    dt_raw_store(&d, raw, 0);
    raw[0] |= OFL_DT_OWNER;
    memcpy(r->in_table + (r->host.in_tail & (r->host.in_slots - 1)) * OFL_DT_DESC_SIZE, raw, 32);
    r->host.in_tail++;
    CHECK_OK(dt_rig_poll(r, 0));
    CHECK_OK(ofl_dt_host_poll(&r->host, &got));
    CHECK(got.type == OFL_DT_RSP_TERMINATE && got.tag == 41 &&
          got.status == OFL_DT_ST_BAD_DESC);
    CHECK_OK(ofl_dt_host_poll(&r->host, &got));
    CHECK(got.type == OFL_DT_RSP_CONN_ATTR && got.tag == 42 &&
          got.status == OFL_DT_ST_BAD_DESC);
    /* Responses breaking a row reach the host as refused slots. */
    for (i = 0; i < NROWS; i++) {
        const struct row *w = &rows[i];
        int f;

        if (!ofl_dt_is_response(w->type))
            continue;
        for (f = 0; f < F_STATUS; f++) {
            if (w->rule[f] != Z)
                continue;
            d = minimal(w);
            CHECK_OK(ofl_dt_desc_encode(&d, raw, sizeof(raw)));
            byte_set(raw, f, true);
            raw[0] |= OFL_DT_OWNER;
            memcpy(r->out_table +
                       (r->host.out_head & (r->host.out_slots - 1)) * OFL_DT_DESC_SIZE,
                   raw, 32);
            before = r->host.bad;
            CHECK_ERR(ofl_dt_host_poll(&r->host, &got), OFL_E_DT_RESERVED);
            CHECK_EQ(r->host.bad, before + 1);
        }
    }
    r->host.bad = 0; /* counted on purpose above */
    CHECK_EQ(r->sim.violations, 0);
    dt_rig_free(r);
}

/*
 * The host's table paths against the codec, over a grid of field values
 * (every type value, flag bits, statuses around OFL_DT_ST_MAX, fields zero
 * and not, ranges that wrap): ofl_dt_host_post gives what
 * ofl_dt_desc_encode gives (OFL_E_DT_BAD_TYPE first for a non-request),
 * the host's poll what ofl_dt_desc_decode gives (OFL_E_DT_BAD_TYPE after
 * it for a non-response), with the same fields. The host paths take
 * their own ways for their common types (the type's rule folded in as a
 * constant, an inline load); this keeps them equal to the codec's checks,
 * error for error.
 */
static void test_rules_host_same(void)
{
    static const uint8_t flags[] = {0, 1, 2, 4, 8, 0x0C, 0x10, 0x80};
    static const uint8_t status[] = {0, 1, OFL_DT_ST_MAX, OFL_DT_ST_MAX + 1};
    static const uint64_t base[] = {0, 0x1000, 1ull << 56, ~0ull - 10};
    static const uint32_t len[] = {0, 32, 0x10000, 0xFFFFFFFFu};
    static const uint32_t aux[] = {0, 7, 0x100, 0xFFFFFFFFu};
    static const uint64_t conn[] = {0, 5, 1ull << 40};
    _Alignas(64) static uint8_t in[2 * 32], out[2 * 32];
    struct ofl_dt_host h;
    struct ofl_dt_desc d, e, got;
    uint8_t raw[32], *slot;
    enum ofl_err want, ee, pe;
    unsigned t, fl, st, nu, ba, le, co, au, rs;
    unsigned long cases = 0, bad = 0;
    uint32_t bad_before;

    CHECK_OK(ofl_dt_host_init(&h, in, 2, out, 2, NULL));
    for (t = 0; t < 0x22; t++)
    for (fl = 0; fl < sizeof(flags); fl++)
    for (st = 0; st < sizeof(status); st++)
    for (nu = 0; nu < 2; nu++)
    for (ba = 0; ba < 4; ba++)
    for (le = 0; le < 4; le++)
    for (co = 0; co < 3; co++)
    for (au = 0; au < 4; au++) {
        memset(&d, 0, sizeof(d));
        d.type = t < 0x20 ? (uint8_t)t : t == 0x20 ? 0x20 : 0xFF;
        d.flags = flags[fl];
        d.status = status[st];
        d.number = nu ? 3 : 0;
        d.base = base[ba];
        d.len = len[le];
        d.conn = conn[co];
        d.aux = aux[au];
        d.tag = 0x7A6;
        cases++;
        /* Post. */
        want = ofl_dt_is_request(d.type) ? ofl_dt_desc_encode(&d, raw, 32)
                                         : OFL_E_DT_BAD_TYPE;
        slot = in + (h.in_tail & 1) * 32;
        pe = ofl_dt_host_post(&h, &d);
        if (pe == OFL_OK)
            slot[0] = 0; /* the adapter took it */
        if (pe != want && bad++ < 8)
            printf("  post type 0x%02x flags 0x%02x status %u: %s, "
                   "encode %s\n", d.type, d.flags, d.status,
                   ofl_strerror(pe), ofl_strerror(want));
        if (t >= 0x20)
            continue;
        /* Poll, and the same bytes with a reserved bit. */
        for (rs = 0; rs < 2; rs++) {
            dt_raw_store(&d, raw, 0);
            raw[0] |= (uint8_t)rs;
            memset(&e, 0x5A, sizeof(e));
            ee = ofl_dt_desc_decode(raw, 32, &e);
            if (ee == OFL_OK && !ofl_dt_is_response(e.type))
                ee = OFL_E_DT_BAD_TYPE;
            slot = out + (h.out_head & 1) * 32;
            memcpy(slot, raw, 32);
            slot[0] |= OFL_DT_OWNER;
            bad_before = h.bad;
            memset(&got, 0x5A, sizeof(got));
            pe = ofl_dt_host_poll(&h, &got);
            if (pe != ee ||
                (ee == OFL_OK ? memcmp(&got, &e, sizeof(e)) != 0 ||
                                    h.bad != bad_before
                              : got.type != 0 || h.bad != bad_before + 1)) {
                if (bad++ < 8)
                    printf("  poll type 0x%02x flags 0x%02x status %u "
                           "reserved %u: %s, decode %s\n", d.type, d.flags,
                           d.status, rs, ofl_strerror(pe), ofl_strerror(ee));
            }
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(cases > 100000);
    /* Some of each kind got through (a valid descriptor is rare here). */
    CHECK(h.in_tail > 50 && h.out_head - h.bad > 1000 && h.bad > 1000);
}

OFL_SUITE(dt_rules)
{
    test_rules_fields();
    test_rules_flags();
    test_rules_paths();
    test_rules_host_same();
}
