/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-aperture: memory-mapped networking through apertures (seed 004).
 *
 * Two hosts, A and B, live in this process, each with a NIC of the ap
 * section over its own sim port (every DMA outside the memory its OS
 * authorised aborts the program). "The wire" is a function call. The
 * demonstration:
 *
 *   1. A's application connects to B's port with a nonce; B's application
 *      reads the CONNECT from its out-of-band queue without the OS, its
 *      policy accepts, and both outgoing apertures end up holding the
 *      peer's in-index and nonce.
 *   2. A writes through its outgoing aperture (two PCI bursts packed into
 *      one frame); the data lands in B's memory; B writes back.
 *   3. A credit-style shared work queue: A sends messages into a ring in
 *      B's memory and never beyond the space B has reported free.
 *   4. B's application blocks: the next message reaches the OS queue as
 *      [OOB-DATA:PORT] with an interrupt, and the OS wakes the application.
 *   5. The connection closes and a new one starts with new nonces: a frame
 *      of the old connection is rejected by its nonce.
 *
 * Run with --demo; it exits non-zero on any mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define PORT 5000
#define IN_PORT 0       /* incoming IP aperture: UDP 5000 -> queue 0 */
#define IN_DATA 2       /* incoming CI data aperture over mem */
#define OUT_DATA 0      /* outgoing aperture, PCI 0x80000000 */
#define PCI_OUT 0x80000000ull
#define RING_OFF 0x800  /* shared work queue ring in B's aperture */
#define RING_SIZE 256
#define MSG_SIZE 32     /* fixed-size messages: 8 per ring */
#define WRPTR_OFF 0xC00 /* where A publishes WRPTR in B's memory */
#define RDPTR_OFF 0xC04 /* where B publishes RDPTR in A's memory */

struct host {
    const char *name;
    struct ofl_ap_addr addr;
    struct ofl_sim sim;
    struct ofl_ap_nic nic;
    struct ofl_ap_in_entry in[4];
    struct ofl_ap_out_entry out[4];
    struct ofl_ap_cache_line cache[8];
    struct ofl_evq q, osq;           /* port 5000's queue, the OS queue */
    struct ofl_evq_app app, osapp;   /* their readers */
    struct ofl_ap_conn conn;
    uint32_t ring[64], var[256], ctl[8], os_ring[32], os_ctl[8];
    _Alignas(64) uint8_t mem[4096];
};

static struct host A = {.name = "A",
                        .addr = {{2, 0, 0, 0, 0, 0xA}, 0xA, 0x0A00000A}};
static struct host B = {.name = "B",
                        .addr = {{2, 0, 0, 0, 0, 0xB}, 0xB, 0x0A00000B}};
static int failures;

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            printf("  MISMATCH at line %d: %s\n", __LINE__, #cond);         \
            failures++;                                                     \
        }                                                                   \
    } while (0)
#define OK(expr)                                                            \
    do {                                                                    \
        enum ofl_err e_ = (expr);                                           \
        if (e_ != OFL_OK) {                                                 \
            printf("  MISMATCH at line %d: %s -> %s\n", __LINE__, #expr,    \
                   ofl_strerror(e_));                                       \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* Nonces and sequence numbers are inputs: a fixed-seed xorshift here. */
static uint32_t rng_state = 0x2545F491u;
static uint32_t random32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static const struct ofl_ap_conn_config conn_cfg = {
    100,  /* connect_timeout */
    1000, /* alive_interval */
    100,  /* alive_timeout */
    1,    /* nonce_step: the nonce rotates ... */
    8,    /* ... after every 8 accepted records */
    3,    /* retries */
    1     /* sequence numbers checked */
};

/* The OS of host h builds its NIC, queues and apertures. */
static void boot(struct host *h)
{
    static const struct ofl_ap_out_group group = {PCI_OUT, 0, 4, 12};
    struct ofl_ap_nic_config cfg;
    struct ofl_evq_config qc;
    struct ofl_ap_in_entry v;
    struct ofl_ap_out_entry ov;

    ofl_sim_init(&h->sim);
    h->sim.trap_violations = true;
    ofl_sim_allow(&h->sim, h->mem, sizeof(h->mem), OFL_SIM_RW);
    ofl_sim_allow(&h->sim, h->ring, sizeof(h->ring), OFL_SIM_RW);
    ofl_sim_allow(&h->sim, h->var, sizeof(h->var), OFL_SIM_RW);
    ofl_sim_allow(&h->sim, h->ctl, sizeof(h->ctl), OFL_SIM_RW);
    ofl_sim_allow(&h->sim, h->os_ring, sizeof(h->os_ring), OFL_SIM_RW);
    ofl_sim_allow(&h->sim, h->os_ctl, sizeof(h->os_ctl), OFL_SIM_RW);

    memset(&qc, 0, sizeof(qc));
    qc.port = &h->sim.port;
    qc.ring_pa = ofl_sim_pa(h->os_ring);
    qc.ring_words = 32;
    qc.ctl_pa = ofl_sim_pa(h->os_ctl);
    qc.vector = 9;
    OK(ofl_evq_init(&h->osq, &qc));
    OK(ofl_evq_app_init(&h->osapp, h->os_ring, 32, NULL, 0, h->os_ctl, NULL));
    qc.ring_pa = ofl_sim_pa(h->ring);
    qc.ring_words = 64;
    qc.var_pa = ofl_sim_pa(h->var);
    qc.var_words = 256;
    qc.ctl_pa = ofl_sim_pa(h->ctl);
    qc.port_id = PORT;
    qc.os = &h->osq;
    OK(ofl_evq_init(&h->q, &qc));
    OK(ofl_evq_app_init(&h->app, h->ring, 64, h->var, 256, h->ctl, NULL));

    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &h->sim.port;
    cfg.self = h->addr;
    cfg.in = h->in;
    cfg.in_capacity = 4;
    cfg.out = h->out;
    cfg.out_capacity = 4;
    cfg.groups = &group;
    cfg.ngroups = 1;
    cfg.in_cache = h->cache;
    cfg.in_cache_lines = 8;
    cfg.in_cache_ways = 4;
    cfg.evq = &h->q;
    cfg.nevq = 1;
    cfg.max_burst = 128;
    cfg.udp_base = PORT;
    OK(ofl_ap_nic_init(&h->nic, &cfg));

    /* The port: datagrams to UDP 5000 from the 10.0.0.0/24 cluster. */
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_IP;
    v.size = 1514;
    v.owner = PORT;
    v.src_ip = 0x0A000000;
    v.src_ip_mask = 0xFFFFFF00u;
    v.checks = OFL_AP_CHECK_SRC_ADDR;
    v.state = OFL_AP_OPEN;
    OK(ofl_ap_in_program(&h->nic, OFL_AP_PRIV_OS, 0, IN_PORT, &v,
                         OFL_AP_IN_ALL));
    /* The data aperture: the OS maps mem and says who may write it; the
     * application may set nonce, sequence and state (a trusted one). */
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(h->mem);
    v.size = sizeof(h->mem);
    v.owner = PORT;
    v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_STATE;
    v.src_cluster = 0x0000;
    v.src_cluster_mask = 0xFF00; /* clusters 0x00xx */
    v.checks = OFL_AP_CHECK_NONCE | OFL_AP_CHECK_SRC_ADDR;
    v.state = OFL_AP_CLOSED;
    OK(ofl_ap_in_program(&h->nic, OFL_AP_PRIV_OS, 0, IN_DATA, &v,
                         OFL_AP_IN_ALL));
    memset(&ov, 0, sizeof(ov));
    ov.size = 4096;
    ov.owner = PORT;
    ov.app_fields = OFL_AP_OUT_TYPE | OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE |
                    OFL_AP_OUT_SEQ | OFL_AP_OUT_STATE;
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.state = OFL_AP_CLOSED;
    OK(ofl_ap_out_program(&h->nic, OFL_AP_PRIV_OS, 0, OUT_DATA, &ov,
                          OFL_AP_OUT_ALL));
}

static struct host *other(struct host *h)
{
    return h == &A ? &B : &A;
}

/* The wire: the frame reaches the other host's NIC. */
static enum ofl_err wire(struct host *from, const uint8_t *frame, size_t len)
{
    return ofl_ap_rx(&other(from)->nic, frame, len, NULL);
}

/* Sends connection message m of host h. */
static void send_msg(struct host *h, const struct ofl_ap_msg *m)
{
    uint8_t fr[128];
    size_t len;

    OK(ofl_ap_conn_frame(&h->conn, m, fr, sizeof(fr), &len));
    OK(wire(h, fr, len));
}

/* The application of host h reads one connection message from its
 * out-of-band queue (memory mapped: no system call, no OS). */
static int read_msg(struct host *h, struct ofl_ap_endpoint *from,
                    struct ofl_ap_msg *m)
{
    struct ofl_evq_event ev;
    struct ofl_ap_udp u;
    uint8_t data[1600];
    size_t dl;

    if (ofl_evq_app_poll(&h->app, &ev, data, sizeof(data), &dl) != OFL_OK ||
        ev.type != OFL_EVQ_EV_DATAGRAM ||
        ofl_ap_udp_parse(data, dl, &u) != OFL_OK ||
        ofl_ap_msg_parse(u.payload, u.payload_len, m) != OFL_OK)
        return -1;
    *from = u.src;
    return 0;
}

/* Host h's application writes len bytes at offset off of its outgoing
 * aperture: one CI frame on the wire. */
static enum ofl_err pci_write(struct host *h, uint32_t off, const void *d,
                              size_t len, uint8_t *keep, size_t *keep_len)
{
    uint8_t fr[1600];
    struct ofl_ap_tx_frame f;
    size_t n;

    ofl_ap_tx_begin(&f, fr, sizeof(fr));
    OK(ofl_ap_tx_write(&h->nic, &f, PCI_OUT + off, d, len));
    OK(ofl_ap_tx_finish(&h->nic, &f, &n));
    if (keep != NULL) {
        memcpy(keep, fr, n);
        *keep_len = n;
    }
    return wire(h, fr, n);
}

static void connect_pair(uint64_t now)
{
    struct ofl_ap_endpoint to, from;
    struct ofl_ap_msg m, got;
    struct ofl_ap_out_entry oa, ob;
    uint32_t na = random32(), nb = random32();
    bool send;

    OK(ofl_ap_conn_init(&A.conn, &A.nic, OFL_AP_PRIV_APP, PORT, IN_DATA,
                        OUT_DATA, &conn_cfg));
    OK(ofl_ap_conn_init(&B.conn, &B.nic, OFL_AP_PRIV_APP, PORT, IN_DATA,
                        OUT_DATA, &conn_cfg));
    memset(&to, 0, sizeof(to));
    to.host = B.addr;
    to.udp = PORT;
    OK(ofl_ap_conn_connect(&A.conn, now, &to, na, random32(), &m));
    printf("  A -> B  CONNECT in-index %u nonce %08x\n", m.in_index, m.nonce);
    send_msg(&A, &m);
    EXPECT(read_msg(&B, &from, &got) == 0 && got.type == OFL_AP_MSG_CONNECT);
    /* B's policy: accept anyone from 10.0.0.0/24. */
    EXPECT((from.host.ip & 0xFFFFFF00u) == 0x0A000000u);
    OK(ofl_ap_conn_accept(&B.conn, now, &from, &got, nb, random32(), &m));
    printf("  B -> A  ACCEPT  port' %u in-index %u nonce %08x\n", m.port,
           m.in_index, m.nonce);
    send_msg(&B, &m);
    EXPECT(read_msg(&A, &from, &got) == 0 && got.type == OFL_AP_MSG_ACCEPT);
    OK(ofl_ap_conn_rx(&A.conn, now, &from, &got, &m, &send));
    EXPECT(A.conn.state == OFL_AP_CONN_OPEN && B.conn.state == OFL_AP_CONN_OPEN);
    OK(ofl_ap_out_query(&A.nic, OUT_DATA, &oa));
    OK(ofl_ap_out_query(&B.nic, OUT_DATA, &ob));
    printf("  A's outgoing aperture -> B in-index %u nonce %08x\n",
           oa.dst_in_index, oa.nonce);
    printf("  B's outgoing aperture -> A in-index %u nonce %08x\n",
           ob.dst_in_index, ob.nonce);
    EXPECT(oa.dst_in_index == IN_DATA && oa.nonce == nb);
    EXPECT(ob.dst_in_index == IN_DATA && ob.nonce == na);
}

static void demo(void)
{
    static const char hello[] = "hello from A", reply[] = "hello from B";
    uint8_t stale[1600], fr[1600];
    size_t stale_len, n;
    struct ofl_ap_tx_frame f;
    struct ofl_ap_msg m, got;
    struct ofl_ap_endpoint from;
    struct ofl_evq_event ev;
    struct ofl_ap_wq wa, wb;
    bool send;
    unsigned i;
    size_t dl;

    boot(&A);
    boot(&B);

    printf("1. connection setup with nonces\n");
    connect_pair(0);

    printf("2. writes through the apertures\n");
    ofl_ap_tx_begin(&f, fr, sizeof(fr));
    OK(ofl_ap_tx_write(&A.nic, &f, PCI_OUT + 0x100, hello, sizeof(hello)));
    OK(ofl_ap_tx_write(&A.nic, &f, PCI_OUT + 0x200, "second burst", 13));
    OK(ofl_ap_tx_finish(&A.nic, &f, &n));
    printf("  A: two PCI bursts packed into one %zu-byte frame (%u records)\n",
           n, f.records);
    OK(wire(&A, fr, n));
    EXPECT(memcmp(B.mem + 0x100, hello, sizeof(hello)) == 0);
    EXPECT(memcmp(B.mem + 0x200, "second burst", 13) == 0);
    printf("  B's memory at 0x100: \"%s\"\n", (const char *)B.mem + 0x100);
    OK(pci_write(&B, 0x100, reply, sizeof(reply), NULL, NULL));
    EXPECT(memcmp(A.mem + 0x100, reply, sizeof(reply)) == 0);
    printf("  A's memory at 0x100: \"%s\"\n", (const char *)A.mem + 0x100);
    /* Kept for later: a frame of this connection (delivered now too). */
    OK(pci_write(&A, 0x300, "old connection", 15, stale, &stale_len));

    printf("3. shared work queue with credits\n");
    OK(ofl_ap_wq_init(&wa, RING_SIZE));
    OK(ofl_ap_wq_init(&wb, RING_SIZE));
    for (i = 0; i < 12; i++) {
        char msg[MSG_SIZE];
        uint32_t off, rd;
        uint8_t w[4];

        memset(msg, 0, sizeof(msg));
        snprintf(msg, sizeof(msg), "message %u from A", i);
        if (ofl_ap_wq_produce(&wa, MSG_SIZE, &off) != OFL_OK) {
            /* No credit left: B takes what has arrived (WRPTR as A last
             * wrote it into B's memory) and returns RDPTR over its own
             * aperture. */
            OK(ofl_ap_wq_remote_wr(&wb, ofl_load_le32(B.mem + WRPTR_OFF)));
            while (ofl_ap_wq_avail(&wb) != 0) {
                OK(ofl_ap_wq_consume(&wb, MSG_SIZE, &off));
                EXPECT(strncmp((char *)B.mem + RING_OFF + off, "message ",
                               8) == 0);
            }
            ofl_store_le32(w, wb.rd);
            OK(pci_write(&B, RDPTR_OFF, w, 4, NULL, NULL));
            rd = ofl_load_le32(A.mem + RDPTR_OFF);
            OK(ofl_ap_wq_remote_rd(&wa, rd));
            printf("  A: no credit at message %u; B consumed up to byte %u\n",
                   i, rd);
            OK(ofl_ap_wq_produce(&wa, MSG_SIZE, &off));
        }
        OK(pci_write(&A, RING_OFF + off, msg, MSG_SIZE, NULL, NULL));
        ofl_store_le32(w, wa.wr);
        OK(pci_write(&A, WRPTR_OFF, w, 4, NULL, NULL));
    }
    EXPECT(wa.wr == 12 * MSG_SIZE && wb.rd == 8 * MSG_SIZE);
    EXPECT(strcmp((char *)B.mem + RING_OFF + ((11 * MSG_SIZE) & (RING_SIZE - 1)),
                  "message 11 from A") == 0);

    printf("4. dual event queues: a blocked application\n");
    ofl_evq_app_arm(&B.app);         /* B goes to sleep: IRQ set */
    OK(ofl_evq_refresh(&B.q));       /* the NIC sees the mirrored bit */
    OK(ofl_ap_conn_tick(&A.conn, 1000, &m, &send)); /* A: B is quiet */
    EXPECT(send && m.type == OFL_AP_MSG_ALIVE);
    send_msg(&A, &m);
    EXPECT(B.sim.nevents == 1 && B.sim.event[0].kind == OFL_SIM_EV_NOTIFY);
    OK(ofl_evq_app_poll(&B.osapp, &ev, NULL, 0, &dl));
    printf("  B's OS: interrupt %u, OS queue says [OOB-DATA:PORT %u]\n",
           B.sim.event[0].a, ev.port);
    EXPECT(ev.type == OFL_EVQ_EV_OOB_DATA && ev.port == PORT);
    /* The OS wakes the application, which answers without the OS. */
    EXPECT(read_msg(&B, &from, &got) == 0 && got.type == OFL_AP_MSG_ALIVE);
    OK(ofl_ap_conn_rx(&B.conn, 1001, &from, &got, &m, &send));
    EXPECT(send && m.type == OFL_AP_MSG_ALIVEACK);
    send_msg(&B, &m);
    EXPECT(read_msg(&A, &from, &got) == 0);
    OK(ofl_ap_conn_rx(&A.conn, 1002, &from, &got, &m, &send));
    EXPECT(A.conn.alive_pending == 0);
    EXPECT(B.sim.nevents == 1); /* awake now: no further interrupt */
    printf("  B's application answered ALIVEACK; A sees B alive\n");

    printf("5. stale connection rejected by its nonce\n");
    OK(ofl_ap_conn_close(&A.conn, &m, &send));
    send_msg(&A, &m);
    EXPECT(read_msg(&B, &from, &got) == 0);
    OK(ofl_ap_conn_rx(&B.conn, 1003, &from, &got, &m, &send));
    EXPECT(B.conn.state == OFL_AP_CONN_CLOSED);
    connect_pair(2000);
    memset(B.mem + 0x300, 0, 16); /* B reuses the buffer */
    {
        enum ofl_err e = wire(&A, stale, stale_len);

        printf("  replayed frame of the old connection: %s (B has rejected "
               "%u that way)\n",
               ofl_strerror(e),
               ofl_ap_rejected(&B.nic.stats, OFL_E_AP_NONCE));
        EXPECT(e == OFL_E_AP_NONCE);
        EXPECT(B.mem[0x300] == 0);
    }
    OK(pci_write(&A, 0x300, "new connection", 15, NULL, NULL));
    EXPECT(memcmp(B.mem + 0x300, "new connection", 15) == 0);
    EXPECT(A.sim.violations == 0 && B.sim.violations == 0);
    printf("  B's cache: %u misses for %u records accepted; DMA outside "
           "apertures: %lu\n",
           B.nic.in_cache.misses, B.nic.stats.rx_records,
           A.sim.violations + B.sim.violations);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--demo") != 0) {
        printf("usage: %s --demo\n"
               "two hosts connect through apertures with nonces, write "
               "through them, use\nthe dual event queues and show a stale "
               "nonce rejected\n",
               argv[0]);
        return 2;
    }
    demo();
    if (failures != 0) {
        printf("ofl-aperture: FAILED (%d mismatches)\n", failures);
        return 1;
    }
    printf("ofl-aperture: ok\n");
    return 0;
}
