/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-hostif: the host/adapter descriptor tables of seed 003 end to end.
 *
 * One process plays both sides over the sim port:
 *   - the host driver writes requests into the input table and reads
 *     responses from the output table (struct ofl_dt_host, plain memory);
 *   - the adapter firmware reads and writes the tables only by DMA
 *     (struct ofl_dt), opens and accepts connections when the core asks it
 *     to, feeds received bytes in and transmits what the host sent.
 *
 * The demonstration: a listen, a bulk connect to two servers (one fails),
 * an arriving connection, a request received into a posted buffer, a
 * response sent as two adjacent buffers merged into one DMA, data landing
 * in a bulk buffer, a peek plus a read past the peeked header, and a
 * close. Every DMA goes through the sim port's guard.
 *
 *   ofl-hostif --demo    run it; exit status 0 only if everything matched
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define SLOTS 32
#define CONNS 8

/* ---- the platform: host memory and the adapter's own memory ------------- */

static _Alignas(64) uint8_t in_table[SLOTS * 32];
static _Alignas(64) uint8_t out_table[SLOTS * 32];
static _Alignas(64) uint8_t host_mem[64 * 1024]; /* buffers the host owns */
static uint32_t host_used;

static uint8_t in_stage[8 * 32], out_stage[8 * 32];
static struct ofl_dt_conn conns[CONNS];
static uint8_t conn_data[CONNS * (2048 + 2048)];
static struct ofl_dt_rbuf rbufs[32];
static struct ofl_dt_xfer xfers[16];
static struct ofl_dt_cache cache[4];
static uint8_t cache_data[4 * 512];
static uint8_t ctrl[512];

static struct ofl_sim sim;
static struct ofl_dt_host host;
static struct ofl_dt adapter;
static uint64_t now;
static int failures;

static void expect(int ok, const char *what)
{
    printf("  %-58s %s\n", what, ok ? "ok" : "MISMATCH");
    if (!ok)
        failures++;
}

static uint8_t *host_alloc(uint32_t len)
{
    uint8_t *p = host_mem + host_used;

    host_used += (len + 15) & ~15u;
    if (host_used > sizeof(host_mem)) {
        fprintf(stderr, "host memory exhausted\n");
        exit(2);
    }
    memset(p, 0, len);
    return p;
}

/* ---- host side ---------------------------------------------------------------- */

static uint32_t next_tag = 1;

static uint32_t host_post(struct ofl_dt_desc *d)
{
    enum ofl_err err;

    d->tag = next_tag++;
    err = ofl_dt_host_post(&host, d);
    if (err != OFL_OK) {
        printf("  post: %s\n", ofl_strerror(err));
        failures++;
    }
    return d->tag;
}

/* A control request whose buffer holds the given tuples. */
static uint32_t host_ctrl(uint8_t type, uint64_t conn, const uint8_t *tup,
                          size_t len, uint8_t number)
{
    struct ofl_dt_desc d;
    uint8_t *buf = host_alloc((uint32_t)len);

    memcpy(buf, tup, len);
    memset(&d, 0, sizeof(d));
    d.type = type;
    d.base = ofl_sim_pa(buf);
    d.len = (uint32_t)len;
    d.number = number;
    d.conn = conn;
    return host_post(&d);
}

static uint32_t host_buffer(uint8_t type, uint64_t conn, const void *buf,
                            uint32_t len, uint8_t flags, uint32_t aux)
{
    struct ofl_dt_desc d;

    memset(&d, 0, sizeof(d));
    d.type = type;
    d.flags = flags;
    d.base = ofl_sim_pa(buf);
    d.len = len;
    d.conn = conn;
    d.aux = aux;
    return host_post(&d);
}

/* Reads every waiting response into rsp[]; returns how many. */
static unsigned host_read(struct ofl_dt_desc *rsp, unsigned max)
{
    unsigned n = 0;
    uint32_t k;

    while (n < max &&
           ofl_dt_host_poll_batch(&host, rsp + n, max - n, &k) != OFL_E_DT_EMPTY)
        n += k;
    return n;
}

static void tup_u32(uint8_t *b, size_t *off, uint16_t attr, uint32_t v)
{
    uint8_t x[4];

    ofl_store_be32(x, v);
    ofl_dt_tuple_put(b, 256, off, true, attr, x, 4);
}

static void tup_remote(uint8_t *b, size_t *off, const uint8_t ip[4],
                       uint16_t port)
{
    uint8_t x[OFL_DT_REMOTE_SIZE] = {0};

    x[10] = x[11] = 0xFF; /* IPv4-mapped */
    memcpy(x + 12, ip, 4);
    ofl_store_be16(x + 16, port);
    ofl_dt_tuple_put(b, 256, off, true, OFL_DT_ATTR_REMOTE, x, sizeof(x));
}

/* ---- adapter side ------------------------------------------------------------- */

/* What the firmware would do with its TCP engine; here: scripted. */
struct fw_plan {
    uint16_t fail_port; /* connects to this remote port fail */
};

static void adapter_poll(void)
{
    enum ofl_err err = ofl_dt_poll(&adapter, ++now);

    if (err != OFL_OK) {
        printf("  adapter: %s\n", ofl_strerror(err));
        failures++;
    }
}

/* Runs the firmware's actions: open connections, start listeners, close. */
static void firmware_actions(const struct fw_plan *plan)
{
    uint32_t cursor = 0;
    uint64_t id;
    uint8_t act;
    struct ofl_dt_conn_info info;

    while (ofl_dt_next_action(&adapter, &cursor, &id, &act) == OFL_OK) {
        ofl_dt_conn_query(&adapter, id, &info);
        if (act & OFL_DT_ACT_CONNECT) {
            if (info.rport == plan->fail_port)
                ofl_dt_conn_failed(&adapter, id, OFL_DT_ST_FAILED, now);
            else
                ofl_dt_conn_established(&adapter, id, now);
        }
        /* A real firmware binds the port here; the listen response
         * tells the host whether it could. */
        if (act & OFL_DT_ACT_LISTEN)
            ofl_dt_listen_result(&adapter, id, OFL_DT_ST_OK, now);
        if (act & OFL_DT_ACT_CLOSE)
            ofl_dt_conn_closed(&adapter, id, now);
    }
}

/* Transmits (collects) what the host sent on id. */
static uint32_t firmware_transmit(uint64_t id, uint8_t *out, uint32_t cap)
{
    const uint8_t *p;
    uint32_t n, total = 0;

    while (ofl_dt_tx_peek(&adapter, id, &p, &n) == OFL_OK && n != 0 &&
           total + n <= cap) {
        memcpy(out + total, p, n);
        total += n;
        ofl_dt_tx_consume(&adapter, id, n, now);
    }
    return total;
}

static void setup(void)
{
    struct ofl_dt_mem m;
    struct ofl_dt_config cfg;

    ofl_sim_init(&sim);
    ofl_sim_allow(&sim, in_table, sizeof(in_table), OFL_SIM_RW);
    ofl_sim_allow(&sim, out_table, sizeof(out_table), OFL_SIM_RW);
    ofl_sim_allow(&sim, host_mem, sizeof(host_mem), OFL_SIM_RW);
    ofl_dt_host_init(&host, in_table, SLOTS, out_table, SLOTS, &sim.port);

    ofl_dt_config_default(&cfg);
    /* Completions of a bulk connect come together (FIG. 10). */
    cfg.cn_criteria = OFL_DT_CN_COUNT;
    cfg.cn_count = 2;
    cfg.cn_max_delay = 100;
    cfg.irq_response = 5;
    cfg.irq_overflow = 6;
    cfg.out_warn = 4;

    memset(&m, 0, sizeof(m));
    m.in_pa = ofl_sim_pa(in_table);
    m.out_pa = ofl_sim_pa(out_table);
    m.in_slots = m.out_slots = SLOTS;
    m.in_stage = in_stage;
    m.out_stage = out_stage;
    m.in_batch = m.out_batch = 8;
    m.conn = conns;
    m.conn_cap = CONNS;
    m.conn_data = conn_data;
    m.rx_size = m.tx_size = 2048;
    m.rbuf = rbufs;
    m.rbuf_cap = 32;
    m.xfer = xfers;
    m.xfer_cap = 16;
    m.cache = cache;
    m.cache_data = cache_data;
    m.cache_slots = 4;
    m.cache_slot_size = 512;
    m.ctrl = ctrl;
    m.ctrl_cap = sizeof(ctrl);
    m.host_lo = ofl_sim_pa(host_mem);
    m.host_hi = m.host_lo + sizeof(host_mem) - 1;
    if (ofl_dt_init(&adapter, &m, &cfg, &sim.port, now) != OFL_OK) {
        fprintf(stderr, "adapter init failed\n");
        exit(2);
    }
}

/* ---- the demonstration --------------------------------------------------------- */

static int demo(void)
{
    static const uint8_t srv1[4] = {192, 0, 2, 10}, srv2[4] = {192, 0, 2, 11};
    static const uint8_t peer[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0xFF, 0xFF, 198, 51, 100, 7};
    static const char request[] = "GET /index.html HTTP/1.0\r\n\r\n";
    static const char hdr[] = "HTTP/1.0 200 OK\r\n\r\n";
    static const char body[] = "<html>hello</html>";
    struct fw_plan plan = {81};
    struct ofl_dt_desc rsp[SLOTS];
    uint8_t tup[256], wire[512];
    size_t off;
    unsigned n, i;
    uint64_t listener, web = 0, guest;
    uint32_t tag_listen, tag_connect, tag_recv, tag_peek, tag_rest, tag_term;
    uint8_t *rx_buf, *bulk, *tx_buf, *peek_buf, *rest;

    setup();

    printf("listen on port 8080\n");
    off = 0;
    tup_u32(tup, &off, OFL_DT_ATTR_LOCAL_PORT, 8080);
    tup_u32(tup, &off, OFL_DT_ATTR_PRIORITY, 2);
    tag_listen = host_ctrl(OFL_DT_REQ_LISTEN, 0, tup, off, 2);
    adapter_poll();
    expect(host_read(rsp, SLOTS) == 0, "no answer before the firmware's");
    firmware_actions(&plan);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 1 && rsp[0].type == OFL_DT_RSP_LISTEN &&
               rsp[0].status == OFL_DT_ST_OK && rsp[0].tag == tag_listen,
           "listen response OK");
    listener = rsp[0].conn;

    printf("bulk connect: 192.0.2.10:80 and 192.0.2.11:81\n");
    off = 0;
    tup_remote(tup, &off, srv1, 80);
    tup_remote(tup, &off, srv2, 81);
    tag_connect = host_ctrl(OFL_DT_REQ_CONNECT, 0, tup, off, 2);
    adapter_poll();
    expect(host_read(rsp, SLOTS) == 0, "nothing before both have an outcome");
    ofl_sim_reset_records(&sim);
    firmware_actions(&plan);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 2 && sim.nevents == 1, "both completions in one batch, one interrupt");
    for (i = 0; i < n; i++) {
        expect(rsp[i].type == OFL_DT_RSP_CONN_COMPLETE &&
                   rsp[i].tag == tag_connect,
               "  completion of the bulk request");
        if (rsp[i].aux == 0)
            expect(rsp[i].status == OFL_DT_ST_OK, "  target 0 connected");
        if (rsp[i].aux == 1)
            expect(rsp[i].status == OFL_DT_ST_FAILED, "  target 1 refused");
        if (rsp[i].status == OFL_DT_ST_OK)
            web = rsp[i].conn;
    }

    printf("request arrives on the connection, into a posted buffer\n");
    rx_buf = host_alloc(256);
    tag_recv = host_buffer(OFL_DT_REQ_BUF_AVAIL, web, rx_buf, 256, 0, 0);
    adapter_poll();
    ofl_dt_rx(&adapter, web, (const uint8_t *)request, sizeof(request) - 1, now);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 1 && rsp[0].type == OFL_DT_RSP_BUF_RECV &&
               rsp[0].tag == tag_recv && rsp[0].aux == 0 &&
               rsp[0].len == sizeof(request) - 1 &&
               !(rsp[0].flags & OFL_DT_F_FINAL),
           "buffer receive: offset 0, partial (buffer still adapter's)");
    expect(memcmp(rx_buf, request, sizeof(request) - 1) == 0,
           "request bytes in the host buffer (zero copy)");

    printf("response sent as two adjacent buffers\n");
    tx_buf = host_alloc(64);
    memcpy(tx_buf, hdr, sizeof(hdr) - 1);
    memcpy(tx_buf + sizeof(hdr) - 1, body, sizeof(body) - 1);
    host_buffer(OFL_DT_REQ_BUF_SEND, web, tx_buf, sizeof(hdr) - 1, 0, 0);
    host_buffer(OFL_DT_REQ_BUF_SEND, web, tx_buf + sizeof(hdr) - 1,
                sizeof(body) - 1, OFL_DT_F_ASAP, 0);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 1 && rsp[0].type == OFL_DT_RSP_BUF_AVAIL && rsp[0].number == 2 &&
               rsp[0].len == sizeof(hdr) + sizeof(body) - 2,
           "one DMA, one response answering both requests");
    n = firmware_transmit(web, wire, sizeof(wire));
    expect(n == sizeof(hdr) + sizeof(body) - 2 &&
               memcmp(wire, hdr, sizeof(hdr) - 1) == 0 &&
               memcmp(wire + sizeof(hdr) - 1, body, sizeof(body) - 1) == 0,
           "the wire carries header then body");

    printf("a client connects to 8080; its data lands in a bulk buffer\n");
    bulk = host_alloc(128);
    host_buffer(OFL_DT_REQ_BUF_AVAIL, 0, bulk, 128, 0, 0);
    adapter_poll();
    ofl_dt_conn_arrive(&adapter, listener, peer, 40000, now, &guest);
    ofl_dt_rx(&adapter, guest, (const uint8_t *)"PING", 4, now);
    adapter_poll(); /* the arrival is 1 of 2 pending: waits */
    expect(host_read(rsp, SLOTS) == 0, "arrival held by the aggregation");
    now += 100; /* the maximum delay passes */
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 2 && rsp[0].type == OFL_DT_RSP_CONN_ARRIVAL &&
               rsp[0].conn == guest && rsp[0].base == listener,
           "arrival first, naming its listener");
    expect(n == 2 && rsp[1].type == OFL_DT_RSP_BUF_RECV &&
               rsp[1].conn == guest && rsp[1].base == ofl_sim_pa(bulk) &&
               (rsp[1].flags & OFL_DT_F_FINAL) && memcmp(bulk, "PING", 4) == 0,
           "then its data, in the bulk buffer, returned whole");

    printf("peek at a header, then read past it\n");
    peek_buf = host_alloc(16);
    rest = host_alloc(64);
    tag_peek = host_buffer(OFL_DT_REQ_BUF_AVAIL, guest, peek_buf, 6,
                           OFL_DT_F_PEEK, 0);
    adapter_poll();
    ofl_dt_rx(&adapter, guest, (const uint8_t *)"LEN:5 hello", 11, now);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 1 && rsp[0].tag == tag_peek && rsp[0].len == 6 &&
               memcmp(peek_buf, "LEN:5 ", 6) == 0,
           "peek copied the header, consumed nothing");
    tag_rest = host_buffer(OFL_DT_REQ_BUF_AVAIL, guest, rest, 5, 0, 6);
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 1 && rsp[0].tag == tag_rest && rsp[0].len == 5 &&
               (rsp[0].flags & OFL_DT_F_FINAL) && memcmp(rest, "hello", 5) == 0,
           "read with offset 6 got the payload only");

    printf("close the web connection\n");
    {
        struct ofl_dt_desc d;

        memset(&d, 0, sizeof(d));
        d.type = OFL_DT_REQ_TERMINATE;
        d.conn = web;
        tag_term = host_post(&d);
    }
    adapter_poll();
    firmware_actions(&plan); /* the firmware closes it */
    adapter_poll();
    n = host_read(rsp, SLOTS);
    expect(n == 2 && rsp[0].type == OFL_DT_RSP_BUF_RECV &&
               rsp[0].status == OFL_DT_ST_FLUSHED && rsp[0].tag == tag_recv &&
               rsp[0].aux == sizeof(request) - 1,
           "the partly used receive buffer comes back");
    expect(n == 2 && rsp[1].type == OFL_DT_RSP_TERMINATE &&
               rsp[1].tag == tag_term && rsp[1].status == OFL_DT_ST_OK,
           "termination response");

    expect(sim.violations == 0, "no DMA outside the tables and host buffers");
    expect(host.bad == 0, "every response decoded");
    printf("%s: %llu requests, %llu responses, %llu merged, %d mismatches\n",
           failures ? "FAILED" : "done",
           (unsigned long long)adapter.stats.requests,
           (unsigned long long)adapter.stats.responses,
           (unsigned long long)adapter.stats.merged, failures);
    if (failures)
        printf("ofl-hostif: FAILED (%d mismatches)\n", failures);
    else
        printf("ofl-hostif: ok\n");
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--demo") == 0)
        return demo();
    fprintf(stderr, "usage: %s --demo\n", argv[0]);
    return EXIT_FAILURE;
}
