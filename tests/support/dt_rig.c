/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
#include "dt_rig.h"

#include <stdlib.h>
#include <string.h>

uint64_t dt_rig_pa(const void *p)
{
    return ofl_sim_pa(p);
}

struct dt_rig *dt_rig_new(const struct ofl_dt_config *cfg, uint32_t slots)
{
    return dt_rig_new_sized(cfg, slots, DT_RIG_BATCH);
}

struct dt_rig *dt_rig_new_sized(const struct ofl_dt_config *cfg,
                                uint32_t slots, uint32_t batch)
{
    struct dt_rig *r = aligned_alloc(64, (sizeof(*r) + 63) & ~(size_t)63);
    struct ofl_dt_mem *m;

    if (r == NULL)
        return NULL;
    memset(r, 0, sizeof(*r));
    if (slots == 0 || slots > DT_RIG_SLOTS)
        slots = 64;
    if (batch == 0 || batch > DT_RIG_BATCH_MAX)
        batch = DT_RIG_BATCH;
    if (batch > slots)
        batch = slots;
    ofl_sim_init(&r->sim);
    ofl_sim_allow(&r->sim, r->in_table, sizeof(r->in_table), OFL_SIM_RW);
    ofl_sim_allow(&r->sim, r->out_table, sizeof(r->out_table), OFL_SIM_RW);
    ofl_sim_allow(&r->sim, r->arena, sizeof(r->arena), OFL_SIM_RW);
    if (cfg != NULL)
        r->cfg = *cfg;
    else
        ofl_dt_config_default(&r->cfg);
    m = &r->mem;
    m->in_pa = dt_rig_pa(r->in_table);
    m->out_pa = dt_rig_pa(r->out_table);
    m->in_slots = m->out_slots = slots;
    m->in_stage = r->in_stage;
    m->out_stage = r->out_stage;
    m->in_batch = m->out_batch = batch;
    m->conn = r->conn;
    m->conn_cap = DT_RIG_CONNS;
    m->conn_data = r->conn_data;
    m->rx_size = DT_RIG_RX;
    m->tx_size = DT_RIG_TX;
    m->rbuf = r->rbuf;
    m->rbuf_cap = DT_RIG_RBUFS;
    m->xfer = r->xfer;
    m->xfer_cap = DT_RIG_XFERS;
    m->cache = r->cache;
    m->cache_data = r->cache_data;
    m->cache_slots = DT_RIG_CACHE;
    m->cache_slot_size = DT_RIG_CACHE_SLOT;
    m->ctrl = r->ctrl;
    m->ctrl_cap = DT_RIG_CTRL;
    m->host_lo = dt_rig_pa(r->arena);
    m->host_hi = m->host_lo + sizeof(r->arena) - 1;
    if (ofl_dt_host_init(&r->host, r->in_table, slots, r->out_table, slots,
                         &r->sim.port) != OFL_OK ||
        ofl_dt_init(&r->dt, m, &r->cfg, &r->sim.port, 0) != OFL_OK) {
        free(r);
        return NULL;
    }
    r->next_tag = 1;
    return r;
}

void dt_rig_free(struct dt_rig *r)
{
    free(r);
}

uint8_t *dt_rig_alloc(struct dt_rig *r, uint32_t len)
{
    uint8_t *p;

    len = (len + 15) & ~15u;
    if (len > sizeof(r->arena) - r->arena_used)
        abort();
    p = r->arena + r->arena_used;
    r->arena_used += len;
    memset(p, 0, len);
    return p;
}

enum ofl_err dt_rig_post(struct dt_rig *r, struct ofl_dt_desc *d)
{
    if (d->tag == 0)
        d->tag = r->next_tag++;
    return ofl_dt_host_post(&r->host, d);
}

enum ofl_err dt_rig_send(struct dt_rig *r, uint64_t conn, const void *buf,
                         uint32_t len, uint8_t flags, uint32_t tag)
{
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_BUF_SEND;
    d.flags = flags;
    d.base = dt_rig_pa(buf);
    d.len = len;
    d.conn = conn;
    d.tag = tag;
    return dt_rig_post(r, &d);
}

enum ofl_err dt_rig_avail(struct dt_rig *r, uint64_t conn, const void *buf,
                          uint32_t len, uint8_t flags, uint32_t skip,
                          uint32_t tag)
{
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    d.type = OFL_DT_REQ_BUF_AVAIL;
    d.flags = flags;
    d.base = dt_rig_pa(buf);
    d.len = len;
    d.conn = conn;
    d.aux = skip;
    d.tag = tag;
    return dt_rig_post(r, &d);
}

enum ofl_err dt_rig_ctrl(struct dt_rig *r, uint8_t type, uint64_t conn,
                         const uint8_t *tup, uint32_t len, uint8_t number,
                         uint32_t tag, uint8_t **buf_out)
{
    struct ofl_dt_desc d;
    uint8_t *b = dt_rig_alloc(r, len ? len : 1);

    memcpy(b, tup, len);
    if (buf_out != NULL)
        *buf_out = b;
    memset(&d, 0, sizeof(d));
    d.type = type;
    d.base = dt_rig_pa(b);
    d.len = len;
    d.number = number;
    d.conn = conn;
    d.tag = tag;
    return dt_rig_post(r, &d);
}

enum ofl_err dt_rig_poll(struct dt_rig *r, uint64_t now)
{
    return ofl_dt_poll(&r->dt, now);
}

uint32_t dt_rig_take(struct dt_rig *r, struct ofl_dt_desc *d, uint32_t max)
{
    uint32_t n = 0, k;

    while (n < max) {
        if (ofl_dt_host_poll_batch(&r->host, d + n, max - n, &k) ==
                OFL_E_DT_EMPTY ||
            k == 0)
            break;
        n += k;
    }
    return n;
}

void dt_tup_u32(uint8_t *b, size_t *off, bool set, uint16_t attr, uint32_t v)
{
    uint8_t x[4];

    ofl_store_be32(x, v);
    ofl_dt_tuple_put(b, 4096, off, set, attr, x, 4);
}

void dt_tup_u64(uint8_t *b, size_t *off, bool set, uint16_t attr, uint64_t v)
{
    uint8_t x[8];

    ofl_store_be64(x, v);
    ofl_dt_tuple_put(b, 4096, off, set, attr, x, 8);
}

void dt_tup_remote(uint8_t *b, size_t *off, uint8_t last, uint16_t port)
{
    uint8_t x[OFL_DT_REMOTE_SIZE];

    memset(x, 0, sizeof(x));
    x[10] = 0xFF; /* IPv4-mapped 192.0.2.last */
    x[11] = 0xFF;
    x[12] = 192;
    x[13] = 0;
    x[14] = 2;
    x[15] = last;
    ofl_store_be16(x + 16, port);
    ofl_dt_tuple_put(b, 4096, off, true, OFL_DT_ATTR_REMOTE, x, sizeof(x));
}

/* Posts control request type with tuples t[0 .. len), plays the firmware
 * (takes the action bit act of the new entry, answers it with success)
 * and takes the response of type rsp, which must be OK and name the
 * entry. Returns its id, or 0. */
static uint64_t dt_rig_open(struct dt_rig *r, uint8_t type, const uint8_t *t,
                            size_t len, uint8_t act, uint8_t rsp, uint64_t now)
{
    struct ofl_dt_desc d;
    uint32_t cursor = 0;
    uint64_t id;
    uint8_t got;
    enum ofl_err err;

    if (dt_rig_ctrl(r, type, 0, t, (uint32_t)len, 1, 0, NULL) != OFL_OK ||
        dt_rig_poll(r, now) != OFL_OK)
        return 0;
    for (;;) {
        if (ofl_dt_next_action(&r->dt, &cursor, &id, &got) != OFL_OK)
            return 0;
        if (got & act)
            break;
    }
    err = act == OFL_DT_ACT_LISTEN
              ? ofl_dt_listen_result(&r->dt, id, OFL_DT_ST_OK, now)
              : ofl_dt_conn_established(&r->dt, id, now);
    if (err != OFL_OK || dt_rig_poll(r, now) != OFL_OK ||
        dt_rig_take(r, &d, 1) != 1 || d.type != rsp ||
        d.status != OFL_DT_ST_OK || d.conn != id)
        return 0;
    return id;
}

uint64_t dt_rig_listen(struct dt_rig *r, uint16_t port, uint64_t now)
{
    uint8_t t[64];
    size_t off = 0;

    dt_tup_u32(t, &off, true, OFL_DT_ATTR_LOCAL_PORT, port);
    return dt_rig_open(r, OFL_DT_REQ_LISTEN, t, off, OFL_DT_ACT_LISTEN,
                       OFL_DT_RSP_LISTEN, now);
}

uint64_t dt_rig_connect(struct dt_rig *r, uint16_t rport, uint64_t now)
{
    uint8_t t[64];
    size_t off = 0;

    dt_tup_remote(t, &off, 7, rport);
    return dt_rig_open(r, OFL_DT_REQ_CONNECT, t, off, OFL_DT_ACT_CONNECT,
                       OFL_DT_RSP_CONN_COMPLETE, now);
}

void dt_raw_store(const struct ofl_dt_desc *d, uint8_t *b, uint8_t b0)
{
    memset(b, 0, OFL_DT_DESC_SIZE);
    b[0] = (uint8_t)((d->type << OFL_DT_TYPE_SHIFT) | b0);
    b[1] = d->flags;
    b[2] = d->status;
    b[3] = d->number;
    ofl_store_be32(b + 4, d->tag);
    ofl_store_be64(b + 8, d->base);
    ofl_store_be32(b + 16, d->len);
    ofl_store_be64(b + 20, d->conn);
    ofl_store_be32(b + 28, d->aux);
}
