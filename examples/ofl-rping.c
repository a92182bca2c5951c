/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-rping: two iWARP engines over real TCP (the posix port).
 *
 * A server and a client connect over TCP, negotiate MPA (revision 2, CRC,
 * the RFC 6581 IRD/ORD block), and exchange buffer descriptions with
 * Sends. The client then RDMA-writes a pattern into the server's buffer
 * (a type 2 window), reads it back with an RDMA Read, runs an atomic
 * Fetch-and-Add and a Compare-and-Swap on the server's counter, and sends a
 * Send with Invalidate naming the server's window; the server checks every
 * byte it received, the counter and that its window is now invalid, and
 * writes its own pattern into the client's buffer. Finally the client
 * measures round trips of 64-byte Sends (latency, messages per second) and
 * the throughput of 64 KiB RDMA Writes. Any mismatch makes the program exit
 * non-zero.
 *
 *   ofl-rping --server [-p PORT]           wait for one client
 *   ofl-rping --client HOST [-p PORT]      run the exchange against it
 *   ofl-rping --loopback [-n N]            both, as two threads on 127.0.0.1
 *   ofl-rping --demo                       --loopback with the default N
 *
 * --fault server-mismatch | client-mismatch | short-verdict plants a
 * mistake in one side's verdict for tests/check_rping.sh: the other side
 * must fail.
 *
 * rdma-core's rping protocol (librdmacm/examples/rping.c), against
 * `rping` of rdma-core on another host or on Linux siw (make test-rdma):
 *
 *   ofl-rping --rping-server [-p PORT] [-S SIZE] [-C COUNT] [--crc|--no-crc]
 *   ofl-rping --rping-client HOST [-p PORT] [-S SIZE] [-C COUNT] [--crc|--no-crc]
 *   either with --rx-record FILE: every stream byte received, as received
 *   ofl-rping --check-rx FILE [--crc|--no-crc]: frames such a record again
 *
 * Each round: the client Sends {buffer address u64, rkey u32, size u32}
 * (big-endian) of its source buffer, filled with "rdma-ping-%d: " and a
 * letter run; the server RDMA-Reads it and Sends a 16-byte go-ahead; the
 * client Sends the description of its sink buffer; the server RDMA-Writes
 * what it read (strlen + 1 bytes, as rping does) and Sends a go-ahead; the
 * client compares source and sink (what `rping -c -V` checks). Our server
 * also checks what it read against the pattern. --crc asks for MPA CRC
 * (the default for the other modes), --no-crc does not (the peer may).
 * --fault rping-corrupt: our server flips one byte of what it writes back
 * in the first round (rping -V must report a mismatch).
 *
 * The first Send and Linux siw's responder race: siw 6.1 as responder
 * sends its MPA Reply before it hands the socket to its QP, and bytes that
 * arrive in between are read only when more bytes (or a FIN) arrive. An
 * rping client sends first, so its first Send can sit unread while both
 * sides wait. No timing can rule that out (resending is impossible on a
 * reliable stream), so our initiator nudges: until the first byte from
 * the peer arrives after the Reply, it sends a zero-length RDMA Write
 * (the RFC 6581 RTR form: no data placed, no STag checked by siw, no
 * completion on either side) 50 ms after its first Send, then every
 * 100, 200, ... ms up to the time limit. Any of them that arrives after
 * the hand-over makes siw read everything queued. --fault no-nudge turns
 * this off (test-rdma shows that the race then stalls the run).
 */
#include "offload.h"
#include "ports/posix/ofl_posix.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PD 1u
#define DEPTH 64u
#define SGE 2u
#define IRD 8u
#define ORD 8u
#define TXCAP 9200u
#define RXCAP 65536u
#define BUF (64u * 1024u) /* the RDMA buffer of each side */
#define MSG 64u           /* control and ping messages */
#define TIMEOUT_MS 10000

/* One engine with everything it needs, in one page-aligned allocation. */
struct node {
    const char *name;
    struct ofl_posix px;
    struct ofl_posix_conn conn;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[64];
    uint64_t att[256];
    uint32_t att_owner[256]; /* ofl_tpt_att_owners: who holds a slot */
    uint32_t att_map[OFL_TPT_ATT_POOL_WORDS(256)];
    struct ofl_tpt_att_pool att_pool; /* hands out the ATT slots */
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[256], rcqe[256];
    struct ofl_qp qp;
    struct ofl_qp_swqe track[DEPTH];
    struct ofl_qp_sge sq_sge[SGE], rq_sge[SGE];
    struct ofl_qp_inreq irq[IRD];
    uint32_t ord_ring[ORD];
    struct ofl_seq_pending ot[4];
    struct ofl_qp_txref txref[16];       /* transmit by reference */
    uint8_t tx_buf[TXCAP], rx_buf[RXCAP];
    _Alignas(4096) uint8_t sq_ring[DEPTH * 128];
    _Alignas(4096) uint8_t rq_ring[DEPTH * 64];
    _Alignas(4096) uint8_t buf[BUF];     /* RDMA target / source */
    _Alignas(4096) uint8_t local[BUF];   /* Read sink, Write source */
    _Alignas(4096) uint8_t msgs[DEPTH * MSG]; /* receive buffers */
    _Alignas(64) uint8_t out[4 * MSG];   /* send buffers */
    _Alignas(64) uint8_t counter[8];     /* the atomic target */
    _Alignas(64) uint8_t result[8];      /* atomic results */
    uint32_t l_buf, l_local, l_msgs, l_out, l_counter, l_result;
    uint32_t w_buf, w_counter;           /* windows advertised */
    uint32_t rq_next;                    /* next receive buffer */
    unsigned errors;
    /* the peer's description */
    uint32_t p_buf, p_counter;
    uint64_t p_buf_va, p_counter_va;
    uint32_t pings, p_pings;             /* ping count (client's) */
};

static unsigned long iterations = 2000; /* at most UINT32_MAX: the count
                                           travels as 32 bits */
/* --fault NAME (tests/check_rping.sh): a planted mistake the other side
 * must catch. */
static const char *fault = "";
/* MPA CRC asked for (--crc / --no-crc) */
static bool mpa_crc = true;

/* --rx-record FILE: every stream byte received after the peer's MPA frame,
 * as the QP was fed it (the posix port's rx_tap): what the peer sent as
 * this end got it, to set beside a capture of the wire. --check-rx FILE
 * frames such a record again (one read, the portable CRC32c). */
static FILE *rx_record;

static void rx_tap(void *ctx, uint32_t sn, const uint8_t *p, uint32_t n)
{
    (void)sn; /* the port feeds in order: the file offset is the SN */
    if (fwrite(p, 1, n, (FILE *)ctx) != n)
        fprintf(stderr, "ofl-rping: --rx-record: write failed\n");
}

static unsigned planted(const char *name)
{
    return strcmp(fault, name) == 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fail(struct node *n, const char *what)
{
    fprintf(stderr, "%s: %s\n", n->name, what);
    n->errors++;
}

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* Registers [p, p + len) (posix port: the physical address is the
 * pointer). */
static uint32_t reg(struct node *n, void *p, uint32_t len, uint8_t access)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    uint32_t stag = 0, slots = 0;

    memset(&d, 0, sizeof(d));
    d.va = va(p);
    d.page_shift = 12;
    d.access = access;
    b.pa = va(p);
    b.len = len;
    /* As many ATT slots as the pages the buffer touches, from the pool. */
    if (ofl_tpt_att_slots(len, (uint32_t)(b.pa & 4095u), 12,
                          OFL_TPT_ATT_DIRECT, &slots) != OFL_OK ||
        ofl_tpt_att_alloc(&n->att_pool, slots, &d.att_base) != OFL_OK) {
        fail(n, "ATT slots");
        return 0;
    }
    if (ofl_tpt_reg_phys(&n->tpt, PD, &d, &b, 1, &stag) != OFL_OK) {
        (void)ofl_tpt_att_free(&n->att_pool, d.att_base, slots);
        fail(n, "registration");
        return 0;
    }
    return stag;
}

static int node_init(struct node *n, const char *name)
{
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;

    n->name = name;
    ofl_posix_init(&n->px);
    /* One pass over the payload: the port's own DMA hooks take physical
     * addresses for pointers, so its fused hooks may too (offload.h, "One
     * pass over the payload"; ofl_posix_set_fused). */
    ofl_posix_set_fused(&n->px, true);
    if (ofl_tpt_init(&n->tpt, n->entry, 64, n->att, 256, &n->px.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_tpt_att_owners(&n->tpt, n->att_owner, 256) != OFL_OK ||
        ofl_tpt_att_pool_init(&n->att_pool, n->att_map,
                              OFL_TPT_ATT_POOL_WORDS(256), 256) != OFL_OK ||
        ofl_cq_init(&n->scq, n->scqe, 256, &n->px.port, 1) != OFL_OK ||
        ofl_cq_init(&n->rcq, n->rcqe, 256, &n->px.port, 2) != OFL_OK)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qpn = 1;
    a.pd = PD;
    a.service = OFL_QP_SVC_IWARP;
    a.reg_option = OFL_QP_REG_OPTION1;
    a.ord = ORD;
    a.ird = IRD;
    a.tpt = &n->tpt;
    a.port = &n->px.port;
    a.send_cq = &n->scq;
    a.recv_cq = &n->rcq;
    a.transmit = ofl_posix_transmit;
    a.transmit_ctx = &n->conn;
    a.transmitv = ofl_posix_transmitv; /* Sends and Writes by reference */
    a.txref = n->txref;
    a.txref_cap = 16;
    memset(&m, 0, sizeof(m));
    m.sq_ring = n->sq_ring;
    m.sq_depth = DEPTH;
    m.sq_max_sge = SGE;
    m.rq_ring = n->rq_ring;
    m.rq_depth = DEPTH;
    m.rq_max_sge = SGE;
    m.sq_track = n->track;
    m.sq_sge = n->sq_sge;
    m.rq_sge = n->rq_sge;
    m.irq = n->irq;
    m.ord_ring = n->ord_ring;
    m.tx_buf = n->tx_buf;
    m.tx_cap = TXCAP;
    m.rx_buf = n->rx_buf;
    m.rx_cap = RXCAP;
    m.ot_pending = n->ot;
    m.ot_cap = 4;
    if (ofl_qp_ring_size(DEPTH, SGE, true) > sizeof(n->sq_ring) ||
        ofl_qp_ring_size(DEPTH, SGE, false) > sizeof(n->rq_ring) ||
        ofl_qp_create(&n->qp, &a, &m) != OFL_OK ||
        ofl_qp_modify(&n->qp, OFL_QP_INIT) != OFL_OK)
        return -1;
    /* The peer reaches buf only through the window advertise() binds, so
     * the region itself carries no remote right (under the standard policy
     * a region with remote rights may be targeted by its own STag, which
     * the window's invalidation would not revoke). On the client buf is
     * also its RDMA Read sink, which needs local write only (enum
     * ofl_qp_read_sink). local is only ever a source. */
    n->l_buf = reg(n, n->buf, BUF,
                   OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                       OFL_TPT_BIND_WINDOW);
    n->l_local = reg(n, n->local, BUF,
                     OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE);
    n->l_msgs = reg(n, n->msgs, sizeof(n->msgs), OFL_TPT_LOCAL_WRITE);
    n->l_out = reg(n, n->out, sizeof(n->out), OFL_TPT_LOCAL_READ);
    n->l_counter = reg(n, n->counter, 8,
                       OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                           OFL_TPT_REMOTE_ATOMIC | OFL_TPT_BIND_WINDOW);
    n->l_result = reg(n, n->result, 8, OFL_TPT_LOCAL_WRITE);
    return n->errors ? -1 : 0;
}

/* Waits for one CQE on the send or receive CQ (the port runs the engine
 * and sleeps on the socket meanwhile). */
static int wait_cqe(struct node *n, bool send, struct ofl_cqe *e)
{
    enum ofl_posix_wait_result r = ofl_posix_wait(
        &n->conn, &n->qp, send ? &n->scq : &n->rcq, e, TIMEOUT_MS);

    if (r != OFL_POSIX_WAIT_CQE) {
        fprintf(stderr, "%s: no completion: %s (QP %s, %s)\n", n->name,
                ofl_posix_wait_name(r),
                ofl_qp_state_name((enum ofl_qp_state)n->qp.state),
                ofl_strerror((enum ofl_err)n->qp.err));
        n->errors++;
        return -1;
    }
    if (e->status != OFL_WC_SUCCESS) {
        fprintf(stderr, "%s: completion wr_id %llu status %u (%s)\n", n->name,
                (unsigned long long)e->wr_id, e->status,
                ofl_wc_status_str((enum ofl_wc_status)e->status));
        n->errors++;
        return -1;
    }
    return 0;
}

/* Waits for a receive completion and checks that the Send carried len
 * bytes (a shorter or longer message is the peer's mistake, or ours). */
static int wait_recv(struct node *n, uint32_t len, struct ofl_cqe *e)
{
    if (wait_cqe(n, false, e) != 0)
        return -1;
    if (e->byte_len != len) {
        fprintf(stderr, "%s: a Send of %u bytes where %u were due\n",
                n->name, e->byte_len, len);
        n->errors++;
        return -1;
    }
    return 0;
}

static void post_recv(struct node *n)
{
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;
    uint32_t i = n->rq_next++ % DEPTH;

    sge.addr = va(n->msgs + i * MSG);
    sge.len = MSG;
    sge.stag = n->l_msgs;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = i;
    wr.sge = &sge;
    wr.num_sge = 1;
    if (ofl_qp_post_recv(&n->qp, &wr) != OFL_OK)
        fail(n, "post_recv");
}

/* Posts a send WR with one data segment from out[slot] (len bytes). */
static void post(struct node *n, struct ofl_qp_wr *wr, uint32_t slot,
                 uint32_t len)
{
    struct ofl_qp_sge sge;

    sge.addr = va(n->out + slot * MSG);
    sge.len = len;
    sge.stag = n->l_out;
    if (len != 0) {
        wr->sge = &sge;
        wr->num_sge = 1;
    }
    wr->flags |= OFL_QP_WR_SIGNALED;
    if (ofl_qp_post_send(&n->qp, wr, NULL) != OFL_OK)
        fail(n, "post_send");
}

static void pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
    uint32_t i, x = seed;

    for (i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

/* The description of a side: its buffer and counter windows. */
static void describe(struct node *n, uint8_t *m)
{
    memset(m, 0, MSG);
    ofl_store_be32(m, 0x44455343u); /* "DESC" */
    ofl_store_be32(m + 4, n->w_buf);
    ofl_store_be64(m + 8, va(n->buf));
    ofl_store_be32(m + 16, n->w_counter);
    ofl_store_be64(m + 20, va(n->counter));
    ofl_store_be32(m + 28, n->pings);
}

static int learn(struct node *n, const uint8_t *m)
{
    if (ofl_load_be32(m) != 0x44455343u)
        return -1;
    n->p_buf = ofl_load_be32(m + 4);
    n->p_buf_va = ofl_load_be64(m + 8);
    n->p_counter = ofl_load_be32(m + 16);
    n->p_counter_va = ofl_load_be64(m + 20);
    n->p_pings = ofl_load_be32(m + 28);
    return 0;
}

/* Binds the windows a side advertises: a type 2 window over its buffer
 * (remote read and write; the peer invalidates it at the end) and one over
 * its counter (remote atomic). */
static void advertise(struct node *n)
{
    uint32_t w = 0;

    if (ofl_tpt_alloc(&n->tpt, OFL_TPT_WINDOW, PD, OFL_TPT_F_TYPE2, &w) !=
            OFL_OK ||
        ofl_tpt_bind(&n->tpt, w, n->l_buf, PD, 1, va(n->buf), BUF,
                     OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE, 0,
                     &n->w_buf) != OFL_OK)
        fail(n, "window over the buffer");
    if (ofl_tpt_alloc(&n->tpt, OFL_TPT_WINDOW, PD, 0, &w) != OFL_OK ||
        ofl_tpt_bind(&n->tpt, w, n->l_counter, PD, 1, va(n->counter), 8,
                     OFL_TPT_REMOTE_ATOMIC, 0, &n->w_counter) != OFL_OK)
        fail(n, "window over the counter");
}

/* Connection: TCP, MPA, the QP established. */
static int connect_node(struct node *n, int fd, bool initiator)
{
    struct ofl_mpa_cfg cfg;
    enum ofl_err err;
    uint32_t i;

    if (fd < 0) {
        char what[96];

        /* errno of the failed connect or accept: under load check_rping
         * once saw a client's connect fail against a server that was
         * listening; the reason was not known */
        snprintf(what, sizeof(what), "TCP connection (%s)", strerror(errno));
        fail(n, what);
        return -1;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.rev = 2;
    cfg.crc = mpa_crc;
    cfg.enhanced = true;
    cfg.ird = IRD;
    cfg.ord = ORD;
    err = initiator ? ofl_posix_mpa_connect(&n->conn, fd, &cfg, TIMEOUT_MS)
                    : ofl_posix_mpa_accept(&n->conn, fd, &cfg, TIMEOUT_MS);
    if (err != OFL_OK) {
        fprintf(stderr, "%s: MPA: %s\n", n->name, ofl_strerror(err));
        n->errors++;
        return -1;
    }
    if (rx_record != NULL) {
        n->conn.rx_tap = rx_tap;
        n->conn.rx_tap_ctx = rx_record;
    }
    /* EMSS 0: the socket's (a 1500-byte MTU path: 1448), as far as TXCAP
     * holds its FPDUs */
    err = ofl_posix_establish(&n->conn, &n->qp, 0, 1u << 24);
    if (err != OFL_OK) {
        fprintf(stderr, "%s: establish: %s\n", n->name, ofl_strerror(err));
        n->errors++;
        return -1;
    }
    printf("%s: MPA rev %u, CRC %s, markers %s/%s, ORD %u, EMSS %u (socket "
           "%u), MULPDU %u, CRC32c %s\n",
           n->name, n->conn.params.rev, n->conn.params.crc ? "on" : "off",
           n->conn.params.markers_tx ? "on" : "off",
           n->conn.params.markers_rx ? "on" : "off", n->qp.ord,
           n->conn.emss, n->conn.emss_socket, n->qp.tx.mulpdu,
           n->px.crc_name);
    for (i = 0; i < DEPTH; i++)
        post_recv(n);
    advertise(n);
    return 0;
}

/* Exchange of descriptions: each side sends its own, takes the peer's. */
static int exchange(struct node *n)
{
    struct ofl_qp_wr wr;
    struct ofl_cqe e;

    describe(n, n->out);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND;
    wr.wr_id = 1;
    post(n, &wr, 0, MSG);
    if (wait_cqe(n, true, &e) != 0 || wait_recv(n, MSG, &e) != 0 ||
        learn(n, n->msgs + e.wr_id * MSG) != 0) {
        fail(n, "description exchange");
        return -1;
    }
    post_recv(n);
    return 0;
}

static int server(struct node *n, int fd)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge s;
    struct ofl_cqe e;
    struct ofl_tpt_info info;
    static _Thread_local uint8_t want[BUF];
    unsigned long i, pings;

    ofl_store_le64(n->counter, 1000);
    if (connect_node(n, fd, false) != 0 || exchange(n) != 0)
        return -1;
    pings = n->p_pings;
    /* echo the pings */
    for (i = 0; i < pings; i++) {
        if (wait_recv(n, MSG, &e) != 0)
            return -1;
        memcpy(n->out + MSG, n->msgs + e.wr_id * MSG, MSG);
        post_recv(n);
        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_SEND;
        post(n, &wr, 1, MSG);
        if (wait_cqe(n, true, &e) != 0)
            return -1;
    }
    /* the client's Writes, Read and atomics need nothing from us; its
     * Send with Invalidate ends them */
    if (wait_recv(n, 10, &e) != 0)
        return -1;
    post_recv(n);
    if (!(e.flags & OFL_CQE_INV) || e.stag != n->w_buf)
        fail(n, "the Send with Invalidate did not name our window");
    if (ofl_tpt_query(&n->tpt, n->w_buf, &info) != OFL_OK ||
        info.state != OFL_TPT_INVALID)
        fail(n, "our window is still valid after the remote invalidation");
    pattern(want, BUF, 1);
    if (memcmp(n->buf, want, BUF) != 0)
        fail(n, "RDMA Write data differs");
    if (ofl_load_le64(n->counter) != 77)
        fail(n, "atomic counter differs");
    if (n->errors == 0)
        printf("%s: Write data, atomics and the remote invalidation "
               "verified\n", n->name);
    /* our pattern into the client's buffer, then the verdict */
    pattern(n->local, BUF, 2);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_WRITE;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.remote_stag = n->p_buf;
    wr.remote_to = n->p_buf_va;
    s.addr = va(n->local);
    s.len = BUF;
    s.stag = n->l_local;
    wr.sge = &s;
    wr.num_sge = 1;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK)
        fail(n, "post write");
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND;
    ofl_store_be32(n->out, n->errors + planted("server-mismatch"));
    post(n, &wr, 0, 4);
    if (wait_cqe(n, true, &e) != 0 || wait_cqe(n, true, &e) != 0)
        return -1;
    /* the client's last word: its own count of mismatches */
    if (wait_recv(n, 4, &e) != 0)
        return -1;
    if (ofl_load_be32(n->msgs + e.wr_id * MSG) != 0)
        fail(n, "the client found mismatches");
    return n->errors ? -1 : 0;
}

/* Posts a Write of the whole local buffer into the peer's buffer. */
static enum ofl_err post_big_write(struct node *n, uint64_t wr_id)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge s;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_WRITE;
    wr.wr_id = wr_id;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.remote_stag = n->p_buf;
    wr.remote_to = n->p_buf_va;
    s.addr = va(n->local);
    s.len = BUF;
    s.stag = n->l_local;
    wr.sge = &s;
    wr.num_sge = 1;
    return ofl_qp_post_send(&n->qp, &wr, NULL);
}

static int client(struct node *n, int fd)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge s;
    struct ofl_cqe e;
    static _Thread_local uint8_t want[BUF];
    uint64_t t0, t1;
    unsigned long i, writes = iterations / 8 + 16, posted, done;

    n->pings = iterations;
    if (connect_node(n, fd, true) != 0 || exchange(n) != 0)
        return -1;
    /* latency: ping-pong of 64-byte Sends */
    t0 = now_ns();
    for (i = 0; i < iterations; i++) {
        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_SEND;
        memset(n->out + 2 * MSG, (int)(i & 0xFF), MSG);
        post(n, &wr, 2, MSG);
        if (wait_cqe(n, true, &e) != 0 || wait_recv(n, MSG, &e) != 0)
            return -1;
        if (memcmp(n->msgs + e.wr_id * MSG, n->out + 2 * MSG, MSG) != 0)
            fail(n, "echo differs");
        post_recv(n);
    }
    t1 = now_ns();
    printf("%s: %lu round trips of %u-byte Sends: latency %.1f us (half a "
           "round trip), %.0f messages/s\n",
           n->name, iterations, MSG,
           (double)(t1 - t0) / (double)(iterations ? iterations : 1) /
               2000.0,
           2.0 * (double)iterations * 1e9 / (double)(t1 - t0 + 1));
    /* throughput: 64 KiB RDMA Writes, eight in flight */
    pattern(n->local, BUF, 1);
    t0 = now_ns();
    for (posted = done = 0; done < writes;) {
        while (posted < writes && posted - done < 8)
            if (post_big_write(n, posted++) != OFL_OK)
                return -1;
        if (wait_cqe(n, true, &e) != 0)
            return -1;
        done++;
    }
    t1 = now_ns();
    printf("%s: %lu RDMA Writes of %u bytes: %.0f MB/s\n", n->name, writes,
           BUF, (double)writes * BUF * 1e3 / (double)(t1 - t0 + 1));
    /* RDMA Read back and verify */
    memset(n->buf, 0, BUF);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_READ;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.remote_stag = n->p_buf;
    wr.remote_to = n->p_buf_va;
    s.addr = va(n->buf);
    s.len = BUF;
    s.stag = n->l_buf;
    wr.sge = &s;
    wr.num_sge = 1;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK ||
        wait_cqe(n, true, &e) != 0)
        return -1;
    if (memcmp(n->buf, n->local, BUF) != 0)
        fail(n, "RDMA Read returned other bytes");
    else
        printf("%s: RDMA Write + Read of %u bytes verified\n", n->name, BUF);
    /* Fetch-and-Add 1000 + 5, then Compare-and-Swap 1005 -> 77 */
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_ATOMIC_FADD;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.remote_stag = n->p_counter;
    wr.remote_to = n->p_counter_va;
    wr.atomic[0] = 5;
    s.addr = va(n->result);
    s.len = 8;
    s.stag = n->l_result;
    wr.sge = &s;
    wr.num_sge = 1;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK ||
        wait_cqe(n, true, &e) != 0)
        return -1;
    if (ofl_load_le64(n->result) != 1000)
        fail(n, "Fetch-and-Add returned another value");
    wr.opcode = OFL_QP_OP_ATOMIC_CSWAP;
    wr.atomic[0] = 77;
    wr.atomic[1] = ~0ull;
    wr.atomic[2] = 1005;
    wr.atomic[3] = ~0ull;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK ||
        wait_cqe(n, true, &e) != 0)
        return -1;
    if (ofl_load_le64(n->result) != 1005)
        fail(n, "Compare-and-Swap returned another value");
    else
        printf("%s: Fetch-and-Add and Compare-and-Swap verified\n", n->name);
    /* Send with Invalidate of the server's window */
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND_INV;
    wr.stag = n->p_buf;
    memcpy(n->out, "invalidate", 10);
    post(n, &wr, 0, 10);
    if (wait_cqe(n, true, &e) != 0)
        return -1;
    /* the server's verdict, after its Write into our buffer */
    if (wait_recv(n, 4, &e) != 0)
        return -1;
    post_recv(n);
    if (ofl_load_be32(n->msgs + e.wr_id * MSG) != 0)
        fail(n, "the server found mismatches");
    pattern(want, BUF, 2);
    if (memcmp(n->buf, want, BUF) != 0)
        fail(n, "the server's RDMA Write differs");
    else
        printf("%s: the server's RDMA Write verified\n", n->name);
    /* our verdict: the server fails too when we found a mismatch */
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND;
    ofl_store_be32(n->out + 3 * MSG, n->errors + planted("client-mismatch"));
    post(n, &wr, 3, planted("short-verdict") ? 3 : 4);
    if (wait_cqe(n, true, &e) != 0)
        return -1;
    return n->errors ? -1 : 0;
}

struct run {
    struct node *n;
    int fd;
    int rc;
    bool is_server;
};

static void *run_thread(void *p)
{
    struct run *r = p;

    r->rc = r->is_server ? server(r->n, r->fd) : client(r->n, r->fd);
    return NULL;
}

static struct node *node_new(const char *name)
{
    size_t size = (sizeof(struct node) + 4095u) & ~(size_t)4095u;
    struct node *n = aligned_alloc(4096, size);

    if (n == NULL)
        return NULL;
    memset(n, 0, sizeof(*n));
    if (node_init(n, name) != 0) {
        free(n);
        return NULL;
    }
    return n;
}

static int loopback(void)
{
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    struct node *sn = node_new("server"), *cn = node_new("client");
    struct run rs, rc;
    pthread_t ts;
    int rcode = 1;

    if (lfd < 0 || sn == NULL || cn == NULL) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    printf("loopback on 127.0.0.1:%u\n", port);
    rc.n = cn;
    rc.is_server = false;
    rc.fd = ofl_posix_tcp_connect("127.0.0.1", port);
    rs.n = sn;
    rs.is_server = true;
    rs.fd = ofl_posix_tcp_accept(lfd);
    if (pthread_create(&ts, NULL, run_thread, &rs) == 0) {
        run_thread(&rc);
        pthread_join(ts, NULL);
        rcode = rs.rc != 0 || rc.rc != 0;
    }
    ofl_posix_close(&sn->conn);
    ofl_posix_close(&cn->conn);
    close(lfd);
    printf("%s\n", rcode ? "ofl-rping: FAILED (see the lines above)"
                         : "ofl-rping: ok (every byte verified)");
    free(sn);
    free(cn);
    return rcode;
}

/* ---- rdma-core's rping protocol ------------------------------------------ */

#define RP_INFO 16u /* {buf u64, rkey u32, size u32}, big-endian */

static unsigned long rp_size = 64, rp_count = 10;

struct rp_state {
    uint32_t r_src, r_sink;   /* regions: local (source), buf (sink) */
    uint64_t nudge_at;        /* next zero-length Write (0: none) */
    uint64_t nudge_step;
    unsigned nudges;
};

/* The rping client's buffer of round `ping` (rping_test_client). */
static void rp_fill(uint8_t *p, uint32_t size, unsigned long ping)
{
    unsigned char c = (unsigned char)(65 + ping % 58);
    int cc = snprintf((char *)p, size, "rdma-ping-%lu: ", ping);
    uint32_t i;

    for (i = cc > 0 ? (uint32_t)cc : 0; i < size; i++) {
        p[i] = c;
        if (++c > 122)
            c = 65;
    }
    p[size - 1] = 0;
}

/* One zero-length RDMA Write, unsignaled: nothing is placed, nothing
 * completes; it only makes a stalled peer read (see the top of the file). */
static void rp_nudge(struct node *n, struct rp_state *r)
{
    struct ofl_qp_wr wr;

    if (r->nudge_at == 0 || n->conn.rx_sn != 0) {
        r->nudge_at = 0; /* the peer has spoken: its QP reads */
        return;
    }
    if (now_ns() < r->nudge_at || planted("no-nudge"))
        return;
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_WRITE;
    wr.wr_id = 0xFFFFu;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK) {
        fail(n, "post the zero-length Write");
        r->nudge_at = 0;
        return;
    }
    r->nudges++;
    r->nudge_step *= 2;
    r->nudge_at = now_ns() + r->nudge_step;
}

/* wait_cqe with the nudge: the port's wait in 1 ms slices, a nudge due
 * between two of them. */
static int rp_wait(struct node *n, struct rp_state *r, bool send,
                   struct ofl_cqe *e)
{
    uint64_t end = now_ns() + (uint64_t)TIMEOUT_MS * 1000000ull;

    for (;;) {
        enum ofl_posix_wait_result w = ofl_posix_wait(
            &n->conn, &n->qp, send ? &n->scq : &n->rcq, e, 1);

        if (w == OFL_POSIX_WAIT_CQE) {
            if (e->status == OFL_WC_SUCCESS)
                return 0;
            fprintf(stderr, "%s: completion wr_id %llu status %u\n", n->name,
                    (unsigned long long)e->wr_id, e->status);
            n->errors++;
            return -1;
        }
        if (w != OFL_POSIX_WAIT_TIMEOUT || now_ns() > end ||
            n->qp.state != OFL_QP_RTS) {
            fprintf(stderr,
                    "%s: no completion: %s (QP %s, %s, %u nudges; %u "
                    "stream bytes received, MPA receiver at byte %u)\n",
                    n->name, ofl_posix_wait_name(w),
                    ofl_qp_state_name((enum ofl_qp_state)n->qp.state),
                    ofl_strerror((enum ofl_err)n->qp.err), r->nudges,
                    n->conn.rx_sn, n->qp.rx.pos);
            n->errors++;
            return -1;
        }
        rp_nudge(n, r);
    }
}

/* Sends a 16-byte rping message (info or go-ahead) and waits for its
 * completion. */
static int rp_send(struct node *n, struct rp_state *r, uint64_t addr,
                   uint32_t rkey, uint32_t size)
{
    struct ofl_qp_wr wr;
    struct ofl_cqe e;

    ofl_store_be64(n->out, addr);
    ofl_store_be32(n->out + 8, rkey);
    ofl_store_be32(n->out + 12, size);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND;
    wr.wr_id = 1;
    post(n, &wr, 0, RP_INFO);
    return rp_wait(n, r, true, &e);
}

/* Waits for a 16-byte rping message; *m points at it (until the next). */
static int rp_recv(struct node *n, struct rp_state *r, const uint8_t **m)
{
    struct ofl_cqe e;

    if (rp_wait(n, r, false, &e) != 0)
        return -1;
    if (e.byte_len != RP_INFO) {
        fprintf(stderr, "%s: a Send of %u bytes where %u were due\n",
                n->name, e.byte_len, RP_INFO);
        n->errors++;
        return -1;
    }
    *m = n->msgs + (e.wr_id % DEPTH) * MSG;
    post_recv(n);
    return 0;
}

/* A Read or Write of len bytes between buf and the peer's (stag, to). */
static int rp_rdma(struct node *n, struct rp_state *r, enum ofl_qp_opcode op,
                   uint32_t stag, uint64_t to, uint32_t len)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge s;
    struct ofl_cqe e;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = op;
    wr.wr_id = 2;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.remote_stag = stag;
    wr.remote_to = to;
    s.addr = va(n->buf);
    s.len = len;
    s.stag = r->r_sink;
    wr.sge = &s;
    wr.num_sge = 1;
    if (ofl_qp_post_send(&n->qp, &wr, NULL) != OFL_OK) {
        fail(n, "post an RDMA Read or Write");
        return -1;
    }
    return rp_wait(n, r, true, &e);
}

static void rp_register(struct node *n, struct rp_state *r)
{
    memset(r, 0, sizeof(*r));
    r->r_src = reg(n, n->local, BUF,
                   OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                       OFL_TPT_REMOTE_READ);
    r->r_sink = reg(n, n->buf, BUF,
                    OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                        OFL_TPT_REMOTE_WRITE);
}

/* rping -s's part: read the client's buffer, write it back, per round;
 * then wait for the client to close. */
static int rp_server(struct node *n, int fd)
{
    static _Thread_local uint8_t want[BUF];
    struct rp_state r;
    const uint8_t *m;
    unsigned long ping;
    uint64_t end;
    uint32_t len, n_w;

    rp_register(n, &r);
    if (n->errors != 0 || connect_node(n, fd, false) != 0)
        return -1;
    for (ping = 0; ping < rp_count; ping++) {
        if (rp_recv(n, &r, &m) != 0)
            return -1;
        len = ofl_load_be32(m + 12);
        if (len < 2 || len > BUF) {
            fprintf(stderr, "%s: round %lu: size %u\n", n->name, ping, len);
            return -1;
        }
        memset(n->buf, 0, BUF);
        if (rp_rdma(n, &r, OFL_QP_OP_READ, ofl_load_be32(m + 8),
                    ofl_load_be64(m), len) != 0)
            return -1;
        rp_fill(want, len, ping);
        if (memcmp(n->buf, want, len) != 0)
            fail(n, "the client's buffer is not rping's pattern");
        if (rp_send(n, &r, 0, 0, 0) != 0 || rp_recv(n, &r, &m) != 0)
            return -1;
        /* rping writes strlen + 1 bytes back */
        for (n_w = 0; n_w + 1 < len && n->buf[n_w] != 0; n_w++)
            ;
        n_w++;
        if (ping == 0 && planted("rping-corrupt"))
            n->buf[n_w / 2] ^= 0x01;
        if (ofl_load_be32(m + 12) < n_w) {
            fprintf(stderr, "%s: round %lu: sink of %u bytes\n", n->name,
                    ping, ofl_load_be32(m + 12));
            return -1;
        }
        if (rp_rdma(n, &r, OFL_QP_OP_WRITE, ofl_load_be32(m + 8),
                    ofl_load_be64(m), n_w) != 0 ||
            rp_send(n, &r, 0, 0, 0) != 0)
            return -1;
    }
    printf("%s: %lu rounds of %lu bytes read, checked and written back\n",
           n->name, rp_count, rp_size);
    /* the client disconnects */
    end = now_ns() + (uint64_t)TIMEOUT_MS * 1000000ull;
    while (!n->conn.eof && now_ns() < end) {
        (void)ofl_qp_process(&n->qp, now_ns(), 64);
        if (ofl_posix_poll(&n->conn, &n->qp, 10) < 0)
            break;
    }
    if (!n->conn.eof)
        fail(n, "the client did not close");
    return n->errors ? -1 : 0;
}

/* rping -c -V's part. */
static int rp_client(struct node *n, int fd)
{
    struct rp_state r;
    const uint8_t *m;
    unsigned long ping;
    uint32_t size = (uint32_t)rp_size;

    rp_register(n, &r);
    if (n->errors != 0 || connect_node(n, fd, true) != 0)
        return -1;
    r.nudge_step = 50000000ull; /* 50 ms, doubling */
    r.nudge_at = now_ns() + r.nudge_step;
    for (ping = 0; ping < rp_count; ping++) {
        rp_fill(n->local, size, ping);
        memset(n->buf, 0, size);
        if (rp_send(n, &r, va(n->local), r.r_src, size) != 0 ||
            rp_recv(n, &r, &m) != 0 ||
            rp_send(n, &r, va(n->buf), r.r_sink, size) != 0 ||
            rp_recv(n, &r, &m) != 0)
            return -1;
        if (memcmp(n->local, n->buf, size) != 0) {
            fprintf(stderr, "%s: round %lu: data mismatch\n", n->name, ping);
            n->errors++;
            return -1;
        }
    }
    printf("%s: %lu rounds of %u bytes verified (%u zero-length Writes "
           "before the server's first byte)\n",
           n->name, rp_count, size, r.nudges);
    return n->errors ? -1 : 0;
}

/* --rping-server / --rping-client: one connection, verdict in the exit
 * status. */
static int rp_main(bool is_server, const char *host, uint16_t port)
{
    struct node *n = node_new(is_server ? "rping-server" : "rping-client");
    int lfd = -1, fd, rc;

    if (n == NULL)
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0); /* in order with stderr in a log */
    if (is_server) {
        lfd = ofl_posix_tcp_listen(NULL, port, NULL);
        if (lfd < 0) {
            free(n);
            return 1;
        }
        printf("rping-server: waiting on port %u\n", port);
        fd = ofl_posix_tcp_accept(lfd);
        /* a log that stops at "waiting" says no client came */
        if (fd >= 0)
            printf("rping-server: a client connected\n");
        rc = rp_server(n, fd);
    } else {
        rc = rp_client(n, ofl_posix_tcp_connect(host, port));
    }
    ofl_posix_close(&n->conn);
    if (lfd >= 0)
        close(lfd);
    printf("%s\n", rc ? "ofl-rping: FAILED (see the lines above)"
                   : "ofl-rping: ok");
    free(n);
    return rc ? 1 : 0;
}

/* --check-rx: the recorded stream through an MPA receiver of its own (no
 * markers; CRC as --crc / --no-crc says), in one read. Prints the FPDU
 * count, or the first error and where its FPDU starts. */
static int check_rx(const char *path)
{
    static uint8_t ulpdu[65536];
    struct ofl_mpa_params p;
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    unsigned long fpdus = 0;
    size_t len = 0, off = 0, cap = 1u << 20, used;
    uint8_t *data = malloc(cap), *more;
    FILE *fp = fopen(path, "rb");
    size_t k;

    if (fp == NULL || data == NULL) {
        fprintf(stderr, "check-rx: cannot read %s\n", path);
        free(data);
        if (fp != NULL)
            fclose(fp);
        return 2;
    }
    while ((k = fread(data + len, 1, cap - len, fp)) > 0) {
        len += k;
        if (len == cap) {
            more = realloc(data, cap * 2);
            if (more == NULL)
                break;
            data = more;
            cap *= 2;
        }
    }
    fclose(fp);
    memset(&p, 0, sizeof(p));
    p.crc = mpa_crc;
    if (ofl_mpa_rx_init(&rx, &p, ulpdu, sizeof(ulpdu), NULL) != OFL_OK) {
        free(data);
        return 2;
    }
    while (off < len) {
        uint32_t at = rx.started ? rx.start : rx.pos;
        enum ofl_err err = ofl_mpa_rx_feed(&rx, data + off, len - off, &used,
                                           &f);

        if (err != OFL_OK) {
            printf("check-rx: %s: FPDU %lu at stream byte %u: %s\n", path,
                   fpdus, at, ofl_strerror(err));
            free(data);
            return 1;
        }
        off += used;
        if (f.ulpdu != NULL)
            fpdus++;
    }
    printf("check-rx: %s: %zu bytes, %lu FPDUs%s, %s\n", path, len, fpdus,
           mpa_crc ? " with good CRCs" : "",
           rx.started ? "the last one incomplete" : "ending on an FPDU end");
    free(data);
    return 0;
}

/* A decimal (or 0x hexadecimal) number in [lo, hi], the whole string;
 * -1 otherwise (no sign, no blank, no octal). */
static long long number(const char *s, unsigned long long lo,
                        unsigned long long hi)
{
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    char *end;
    unsigned long long v;

    if (!isdigit((unsigned char)s[hex ? 2 : 0]))
        return -1;
    errno = 0;
    v = strtoull(s, &end, hex ? 16 : 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    return (long long)v;
}

int main(int argc, char **argv)
{
    long long v;
    const char *host = NULL;
    uint16_t port = 18515;
    int mode = 0, i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--server") == 0)
            mode = 1;
        else if (strcmp(argv[i], "--client") == 0 && i + 1 < argc) {
            mode = 2;
            host = argv[++i];
        } else if (strcmp(argv[i], "--rping-server") == 0)
            mode = 4;
        else if (strcmp(argv[i], "--rping-client") == 0 && i + 1 < argc) {
            mode = 5;
            host = argv[++i];
        } else if (strcmp(argv[i], "--rx-record") == 0 && i + 1 < argc) {
            rx_record = fopen(argv[++i], "wb");
            if (rx_record == NULL) {
                fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--check-rx") == 0 && i + 1 < argc) {
            mode = 6;
            host = argv[++i];
        } else if (strcmp(argv[i], "--crc") == 0 ||
                   strcmp(argv[i], "--no-crc") == 0)
            mpa_crc = argv[i][2] == 'c';
        else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc &&
                 (v = number(argv[i + 1], 16, BUF - 1)) >= 0) {
            rp_size = (unsigned long)v;
            i++;
        } else if (strcmp(argv[i], "-C") == 0 && i + 1 < argc &&
                   (v = number(argv[i + 1], 1, 1000000)) >= 0) {
            rp_count = (unsigned long)v;
            i++;
        } else if (strcmp(argv[i], "--loopback") == 0 ||
                   strcmp(argv[i], "--demo") == 0)
            mode = 3;
        else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc &&
                 (v = number(argv[i + 1], 1, 65535)) >= 0) {
            port = (uint16_t)v;
            i++;
        } else if (strcmp(argv[i], "--fault") == 0 && i + 1 < argc &&
                   (strcmp(argv[i + 1], "server-mismatch") == 0 ||
                    strcmp(argv[i + 1], "client-mismatch") == 0 ||
                    strcmp(argv[i + 1], "short-verdict") == 0 ||
                    strcmp(argv[i + 1], "rping-corrupt") == 0 ||
                    strcmp(argv[i + 1], "no-nudge") == 0)) {
            fault = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc &&
                   (v = number(argv[i + 1], 0, UINT32_MAX)) >= 0) {
            iterations = (unsigned long)v;
            i++;
        } else {
            fprintf(stderr,
                    "usage: %s --server [-p PORT] | --client HOST [-p PORT] "
                    "| --loopback [-n N] | --demo\n"
                    "       %s --rping-server [-p PORT] | --rping-client HOST "
                    "[-p PORT]\n"
                    "          [-S SIZE] [-C COUNT] [--crc | --no-crc]   "
                    "(rdma-core's rping protocol)\n"
                    "          [--rx-record FILE]   (every stream byte "
                    "received)\n"
                    "       %s --check-rx FILE [--crc | --no-crc]   "
                    "(frames such a record again)\n"
                    "  --fault server-mismatch|client-mismatch|"
                    "short-verdict|rping-corrupt|no-nudge:\n"
                    "          a planted mistake (tests)\n",
                    argv[0], argv[0], argv[0]);
            return 2;
        }
    }
    if (mode == 6)
        return check_rx(host);
    if (mode == 4 || mode == 5) {
        int rc = rp_main(mode == 4, host, port);

        if (rx_record != NULL && fclose(rx_record) != 0)
            rc = 1;
        return rc;
    }
    if (mode == 3)
        return loopback();
    if (mode == 1) {
        int lfd = ofl_posix_tcp_listen(NULL, port, NULL);
        struct node *n = node_new("server");
        int rc;

        if (lfd < 0 || n == NULL)
            return 1;
        printf("server: waiting on port %u\n", port);
        rc = server(n, ofl_posix_tcp_accept(lfd));
        ofl_posix_close(&n->conn); /* sends what the port still holds */
        printf("%s\n", rc ? "ofl-rping: FAILED (see the lines above)"
                       : "ofl-rping: ok");
        return rc ? 1 : 0;
    }
    if (mode == 2) {
        struct node *n = node_new("client");
        int rc;

        if (n == NULL)
            return 1;
        rc = client(n, ofl_posix_tcp_connect(host, port));
        ofl_posix_close(&n->conn); /* sends what the port still holds */
        printf("%s\n", rc ? "ofl-rping: FAILED (see the lines above)"
                       : "ofl-rping: ok (every byte verified)");
        return rc ? 1 : 0;
    }
    fprintf(stderr, "usage: %s --server | --client HOST | --loopback | "
                    "--demo | --rping-server | --rping-client HOST\n",
            argv[0]);
    return 2;
}
