/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-splitdrv: a split-model network driver over the push-push messaging
 * layer (seed 002, FIG. 5-8), in one process.
 *
 * A host module and an I/O-unit module are connected by two channels, each
 * a pair of iWARP engines over an in-process wire (the sim port checks
 * every DMA against each node's memory):
 *   channel 0 (control)  messages as Sends: BufferRecvPool, Update, Get,
 *                        Flush, SendData, CfgUtil
 *   channel 1 (data)     RDMA Writes into the peer's pools, each with its
 *                        transfer indication (immediate data, or a
 *                        BufferRDMAIndicate Send right behind the Write)
 *
 * The demonstration: the unit advertises two receive pools (8 x 2 KiB,
 * pool index 0, and 2 x 80000 bytes at pool index 300, which only a
 * BufferRDMAIndicate can describe); the host advertises one for inbound
 * packets. The host sets the unit's MAC address with a CfgUtilRequest,
 * sends one small packet as SendData, then pushes 40 outbound packets by
 * RDMA Write. The unit holds back its BufferRecvPoolUpdates at first, so
 * the host runs dry: small packets spill into the large pool (index 300:
 * BufferRDMAIndicate) until no element is left, then the host asks for
 * more with BufferRecvPoolGet; the unit answers with a new pool and from
 * then on replenishes each element as soon as it has checked the packet.
 * Two 70000-byte packets take the BufferRDMAIndicate path as well. The unit pushes 24 inbound packets to the host
 * the same way. Every packet is checked byte for byte by its receiver;
 * finally both ends flush their pools (the unit as target, the host both
 * as target and as initiator) and close. Exit status 0 only when every
 * byte matched and both connections ended CLOSED.
 *
 * Over cell channels (seed 002: "If the data is larger than a
 * predetermined size (e.g., 256 bytes) the channel adapter at the source
 * may segment the data into multiple segments, wherein each segment is
 * sent in a separate cell"): both channels of both connections are cell
 * channels (ofl_pp_cells_init, 256-byte cells), so every message, the
 * BufferRDMAIndicates and the flush messages included, leaves as cells,
 * one Send each, and is reassembled by ofl_pp_conn_recv_cell; the
 * SendData is then 1000 bytes (four cells). The run checks, besides the
 * above, that every message arrived as cells, none dropped or repeated.
 *
 *   ofl-splitdrv --demo      run the demonstration, then again over cell
 *                            channels
 *   ofl-splitdrv --cells     only the run over cell channels
 */
#include "offload.h"
#include "ports/sim/ofl_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH 64u
#define SGE 2u
#define NRX 32u           /* receive buffers per QP */
#define RXB 512u          /* bytes each: every message fits */
#define TXCAP 20000u
#define RXCAP 65536u
#define EMSS 1460u
#define ARENA (1024u * 1024u)
#define WIRE (512u * 1024u)
#define CHUNKS 4096u
#define PCAP 320u         /* pool slots (index 300 must fit) */
#define PMAX 16u          /* elements per pool */
#define NOUT 40u          /* outbound packets (host -> unit) */
#define NIN 24u           /* inbound packets (unit -> host) */
#define BIG 70000u        /* a packet for the indicate path */
#define TXB 4096u         /* a message send slot: the message and its cells */
#define REASM 1024u       /* a cell channel's reassembly buffer */
#define HELLO 1000u       /* the SendData over cell channels */

/* One direction of a channel's wire: stream bytes not yet delivered. */
struct wire {
    uint8_t *buf;
    uint32_t len, seq;
    uint32_t chunk[CHUNKS]; /* where each transmission ended */
    uint32_t nchunk;
};

/* One end of one channel: a QP with its rings and CQs. */
struct chan {
    struct ofl_qp qp;
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[256], rcqe[256];
    struct ofl_qp_swqe track[DEPTH];
    struct ofl_qp_sge sq_sge[SGE], rq_sge[SGE];
    struct ofl_qp_inreq irq[8];
    uint32_t ord_ring[8];
    struct ofl_seq_pending ot[4];
    struct ofl_qp_ooo ooo[4];
    uint8_t tx_buf[TXCAP], rx_buf[RXCAP];
    _Alignas(4096) uint8_t sq_ring[DEPTH * 256];
    _Alignas(4096) uint8_t rq_ring[DEPTH * 128];
    struct wire *out;
    uint8_t *rxbufs;  /* NRX x RXB in the node's arena */
    uint32_t rx_stag;
    uint8_t *txmsg;   /* one message being sent (a ring of 16) */
    uint32_t tx_stag, txn;
};

/* A module (host or unit): its memory, TPT, two channels, pp state. */
struct node {
    const char *name;
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[64];
    uint64_t att[1024];
    uint32_t att_owner[1024]; /* ofl_tpt_att_owners: who holds a slot */
    uint32_t att_map[OFL_TPT_ATT_POOL_WORDS(1024)];
    struct ofl_tpt_att_pool att_pool; /* hands out the ATT slots */
    struct chan ch[2]; /* OFL_PP_CTRL, OFL_PP_DATA */
    struct ofl_pp_conn pp;
    struct ofl_pp_cells cells[2]; /* over cell channels */
    uint8_t reasm[2][REASM];
    struct ofl_pp_pool rx_slot[PCAP], tx_slot[PCAP];
    uint32_t rx_bits[PCAP], tx_bits[PCAP];
    _Alignas(4096) uint8_t arena[ARENA];
    uint32_t used;
    uint8_t *pool_mem;  /* this node's receive pools */
    uint32_t pool_stag;
    uint8_t *src;       /* outgoing packets */
    uint32_t src_stag;
    uint8_t *ind;       /* BufferRDMAIndicate room */
    uint32_t ind_stag;
    /* what this node has received and sent */
    uint32_t next_rx, next_tx;  /* packet numbers */
    uint32_t got_cfg, got_send, got_get;
    uint32_t mac_set;
    unsigned errors;
    /* consumed elements not yet replenished: the unit holds them back
     * until the host asks for more (so that the host runs dry once) */
    struct ofl_pp_ref held[64];
    uint32_t nheld;
    int hold;
};

static struct ofl_pp_msg g_in, g_reply, g_m;
static bool g_cells;           /* this run is over cell channels */
static uint8_t g_hello[HELLO]; /* "hello", then a pattern */

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static void fail(struct node *n, const char *what, enum ofl_err e)
{
    fprintf(stderr, "%s: %s: %s\n", n->name, what, ofl_strerror(e));
    n->errors++;
}

/* The length and content of packet k in one direction. */
static uint32_t pkt_len(bool out, uint32_t k)
{
    if (out && (k == 11 || k == 29))
        return BIG;
    return 60 + (k * 397u + (out ? 0 : 111)) % 1989u;
}

static uint8_t pkt_byte(bool out, uint32_t k, uint32_t i)
{
    return (uint8_t)(i * 131u + k * 7u + (out ? 1u : 2u) + (i >> 8));
}

/* ---- setup ----------------------------------------------------------------- */

static uint8_t *alloc(struct node *n, uint32_t len)
{
    uint32_t at = (n->used + 63u) & ~63u;

    if (at + len > ARENA)
        return NULL;
    n->used = at + len;
    return n->arena + at;
}

static uint32_t reg(struct node *n, void *p, uint32_t len, uint8_t access)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    uint32_t stag = 0, slots = 0;

    memset(&d, 0, sizeof(d));
    d.va = va(p);
    d.page_shift = 12;
    d.access = access;
    b.pa = ofl_sim_pa(p);
    b.len = len;
    /* As many ATT slots as the pages the buffer touches, from the pool. */
    if (ofl_tpt_att_slots(len, (uint32_t)(b.pa & 4095u), 12,
                          OFL_TPT_ATT_DIRECT, &slots) != OFL_OK ||
        ofl_tpt_att_alloc(&n->att_pool, slots, &d.att_base) != OFL_OK)
        return 0;
    if (ofl_tpt_reg_phys(&n->tpt, 1, &d, &b, 1, &stag) != OFL_OK) {
        (void)ofl_tpt_att_free(&n->att_pool, d.att_base, slots);
        return 0;
    }
    return stag;
}

static int transmit(void *ctx, const uint8_t *data, uint32_t len,
                    uint32_t flags)
{
    struct chan *c = ctx;
    struct wire *w = c->out;

    (void)flags;
    if (len == 0)
        return 0;
    if (w->len + len > WIRE || w->nchunk == CHUNKS)
        return 1; /* full: the engine tries again later */
    memcpy(w->buf + w->len, data, len);
    w->len += len;
    w->chunk[w->nchunk++] = w->len;
    return 0;
}

/* Hands everything on w to qp, one transmission per segment. */
static void deliver(struct wire *w, struct ofl_qp *qp)
{
    uint32_t i, off = 0;

    for (i = 0; i < w->nchunk; i++) {
        struct ofl_qp_seg seg;

        memset(&seg, 0, sizeof(seg));
        seg.seq = w->seq + off;
        seg.data = w->buf + off;
        seg.len = w->chunk[i] - off;
        (void)ofl_qp_input(qp, &seg);
        off = w->chunk[i];
    }
    w->seq += w->len;
    w->len = 0;
    w->nchunk = 0;
}

static int chan_init(struct node *n, struct chan *c, uint32_t qpn,
                     struct wire *out)
{
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;
    uint32_t i;

    if (ofl_cq_init(&c->scq, c->scqe, 256, NULL, 0) != OFL_OK ||
        ofl_cq_init(&c->rcq, c->rcqe, 256, NULL, 0) != OFL_OK)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qpn = qpn;
    a.pd = 1;
    a.service = OFL_QP_SVC_IWARP;
    a.reg_option = OFL_QP_REG_OPTION1;
    a.ord = 4;
    a.ird = 8;
    a.tpt = &n->tpt;
    a.port = &n->sim.port;
    a.send_cq = &c->scq;
    a.recv_cq = &c->rcq;
    a.transmit = transmit;
    a.transmit_ctx = c;
    memset(&m, 0, sizeof(m));
    m.sq_ring = c->sq_ring;
    m.sq_depth = DEPTH;
    m.sq_max_sge = SGE;
    m.rq_ring = c->rq_ring;
    m.rq_depth = DEPTH;
    m.rq_max_sge = SGE;
    m.sq_track = c->track;
    m.sq_sge = c->sq_sge;
    m.rq_sge = c->rq_sge;
    m.irq = c->irq;
    m.ord_ring = c->ord_ring;
    m.tx_buf = c->tx_buf;
    m.tx_cap = TXCAP;
    m.rx_buf = c->rx_buf;
    m.rx_cap = RXCAP;
    m.ot_pending = c->ot;
    m.ot_cap = 4;
    m.ooo = c->ooo;
    m.ooo_cap = 4;
    if (ofl_qp_create(&c->qp, &a, &m) != OFL_OK ||
        ofl_qp_modify(&c->qp, OFL_QP_INIT) != OFL_OK)
        return -1;
    c->out = out;
    c->rxbufs = alloc(n, NRX * RXB);
    c->txmsg = alloc(n, 16 * TXB);
    if (c->rxbufs == NULL || c->txmsg == NULL)
        return -1;
    c->rx_stag = reg(n, c->rxbufs, NRX * RXB, OFL_TPT_LOCAL_WRITE);
    c->tx_stag = reg(n, c->txmsg, 16 * TXB, OFL_TPT_LOCAL_READ);
    if (c->rx_stag == 0 || c->tx_stag == 0)
        return -1;
    for (i = 0; i < NRX; i++) {
        struct ofl_qp_recv_wr wr;
        struct ofl_qp_sge sge = {va(c->rxbufs + i * RXB), RXB, c->rx_stag};

        memset(&wr, 0, sizeof(wr));
        wr.wr_id = i;
        wr.sge = &sge;
        wr.num_sge = 1;
        if (ofl_qp_post_recv(&c->qp, &wr) != OFL_OK)
            return -1;
    }
    return 0;
}

static int node_init(struct node *n, const char *name)
{
    n->name = name;
    ofl_sim_init(&n->sim);
    ofl_sim_allow(&n->sim, n->arena, sizeof(n->arena), OFL_SIM_RW);
    if (ofl_tpt_init(&n->tpt, n->entry, 64, n->att, 1024, &n->sim.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_tpt_att_owners(&n->tpt, n->att_owner, 1024) != OFL_OK ||
        ofl_tpt_att_pool_init(&n->att_pool, n->att_map,
                              OFL_TPT_ATT_POOL_WORDS(1024), 1024) != OFL_OK)
        return -1;
    /* receive pools: the unit's need 8 x 2048 twice and 2 x 80000 */
    n->pool_mem = alloc(n, 2 * 8 * 2048 + 2 * 80000);
    n->src = alloc(n, BIG + 4096);
    n->ind = alloc(n, 128);
    if (n->pool_mem == NULL || n->src == NULL || n->ind == NULL)
        return -1;
    n->pool_stag = reg(n, n->pool_mem, 2 * 8 * 2048 + 2 * 80000,
                       OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE);
    n->src_stag = reg(n, n->src, BIG + 4096, OFL_TPT_LOCAL_READ);
    n->ind_stag = reg(n, n->ind, 128, OFL_TPT_LOCAL_READ);
    return n->pool_stag && n->src_stag && n->ind_stag ? 0 : -1;
}

/* MPA for one channel (host initiates), then both QPs to RTS. */
static int connect_channel(struct chan *h, struct chan *u, struct wire *hu,
                           struct wire *uh, uint32_t isn_h, uint32_t isn_u)
{
    struct ofl_mpa_hs hh, hs;
    struct ofl_mpa_cfg cfg;
    uint8_t req[OFL_MPA_RR_MAX], rep[OFL_MPA_RR_MAX];
    size_t lq, lp, used;

    memset(&cfg, 0, sizeof(cfg));
    cfg.rev = 2;
    cfg.crc = true;
    cfg.enhanced = true;
    cfg.ird = 8;
    cfg.ord = 8;
    if (ofl_mpa_hs_init(&hh, &cfg, true) != OFL_OK ||
        ofl_mpa_hs_init(&hs, &cfg, false) != OFL_OK ||
        ofl_mpa_hs_request(&hh, req, sizeof(req), &lq) != OFL_OK ||
        ofl_mpa_hs_recv(&hs, req, lq, &used) != OFL_OK ||
        ofl_mpa_hs_accept(&hs, rep, sizeof(rep), &lp) != OFL_OK ||
        ofl_mpa_hs_recv(&hh, rep, lp, &used) != OFL_OK)
        return -1;
    hu->seq = isn_h + (uint32_t)lq;
    uh->seq = isn_u + (uint32_t)lp;
    if (ofl_qp_establish(&h->qp, &hh.params, EMSS, uh->seq, 1u << 20) !=
            OFL_OK ||
        ofl_qp_establish(&u->qp, &hs.params, EMSS, hu->seq, 1u << 20) !=
            OFL_OK)
        return -1;
    return 0;
}

static int pp_init(struct node *n)
{
    struct ofl_pp_conn_cfg cfg;
    uint32_t ch;

    memset(&cfg, 0, sizeof(cfg));
    for (ch = 0; g_cells && ch < 2; ch++) {
        /* both ends number each channel's packets from 0x7000 + ch */
        if (ofl_pp_cells_init(&n->cells[ch], &n->sim.port, n->reasm[ch],
                              REASM, OFL_PP_CELL_SIZE, 0x7000 + ch,
                              0x7000 + ch) != OFL_OK)
            return -1;
        cfg.cells[ch] = &n->cells[ch];
    }
    cfg.ctrl = &n->ch[OFL_PP_CTRL].qp;
    cfg.data = &n->ch[OFL_PP_DATA].qp;
    cfg.rx = (struct ofl_pp_pools_mem){n->rx_slot, PCAP, PMAX, n->rx_bits,
                                       PCAP};
    cfg.tx = (struct ofl_pp_pools_mem){n->tx_slot, PCAP, PMAX, n->tx_bits,
                                       PCAP};
    if (ofl_pp_conn_init(&n->pp, &cfg) != OFL_OK)
        return -1;
    return ofl_pp_conn_start(&n->pp) == OFL_OK ? 0 : -1;
}

/* ---- running ----------------------------------------------------------------- */

static struct wire g_w[4]; /* ctrl h->u, ctrl u->h, data h->u, data u->h */
static struct node *g_host, *g_unit;

/* Runs the four QPs and the wires until nothing moves. */
static void pump(void)
{
    int round;

    for (round = 0; round < 1000; round++) {
        int c, moved = 0;

        for (c = 0; c < 2; c++) {
            (void)ofl_qp_process(&g_host->ch[c].qp, 0, 1u << 16);
            (void)ofl_qp_process(&g_unit->ch[c].qp, 0, 1u << 16);
        }
        for (c = 0; c < 4; c++)
            moved |= g_w[c].len != 0;
        if (!moved)
            return;
        deliver(&g_w[0], &g_unit->ch[0].qp);
        deliver(&g_w[1], &g_host->ch[0].qp);
        deliver(&g_w[2], &g_unit->ch[1].qp);
        deliver(&g_w[3], &g_host->ch[1].qp);
    }
}

/* Sends m from a ring of message buffers on the channel it must take:
 * flush messages go on the data channel, behind the Writes before them. */
static void send_msg(struct node *n, const struct ofl_pp_msg *m)
{
    enum ofl_pp_channel ch = ofl_pp_msg_channel(m);
    struct chan *c = &n->ch[ch];
    uint8_t *p = c->txmsg + (c->txn & 15u) * TXB;
    struct ofl_pp_buf b = {p, va(p), TXB, c->tx_stag};
    enum ofl_err e = ofl_pp_post_msg(&n->pp, ch, m, &b, c->txn);

    c->txn++;
    if (e != OFL_OK)
        fail(n, "post message", e);
}

static bool big_pool(const struct node *n, uint32_t pool)
{
    return n->pp.rx.slot[pool].d.size > 2048;
}

/* Checks packet bytes that landed in one of n's pool elements. */
static void check_packet(struct node *n, const struct ofl_pp_ref *r)
{
    const struct ofl_pp_pool *s = &n->pp.rx.slot[r->pool];
    const uint8_t *p = (const uint8_t *)(uintptr_t)(s->d.va +
                                                    (uint64_t)r->elem *
                                                        s->d.size);
    bool out = n == g_unit;
    uint32_t k = n->next_rx++, i, len = pkt_len(out, k);

    if (r->len != len) {
        fprintf(stderr, "%s: packet %u: %u bytes, want %u\n", n->name, k,
                r->len, len);
        n->errors++;
        return;
    }
    for (i = 0; i < len; i++)
        if (p[i] != pkt_byte(out, k, i)) {
            fprintf(stderr, "%s: packet %u: byte %u differs\n", n->name, k, i);
            n->errors++;
            return;
        }
    (void)big_pool;
}

/* The module's receive path: every completion of both channels. Messages
 * go to ofl_pp_conn_recv; indications mean a packet landed: it is checked
 * and its element replenished at once (one Update per batch). */
static void serve(struct node *n)
{
    uint32_t ch, i, k;
    struct ofl_cqe e[32];

    for (ch = 0; ch < 2; ch++) {
        struct chan *c = &n->ch[ch];
        uint32_t got = 0;

        (void)ofl_cq_poll(&c->scq, e, 32, &got); /* sends: nothing to do */
        for (i = 0; i < got; i++)
            if (e[i].status != OFL_WC_SUCCESS)
                fail(n, "send completion", OFL_E_ARG);
        got = 0;
        (void)ofl_cq_poll(&c->rcq, e, 32, &got);
        for (i = 0; i < got; i++) {
            uint8_t *b = c->rxbufs + e[i].wr_id * RXB;
            struct ofl_qp_recv_wr wr;
            struct ofl_qp_sge sge = {va(b), RXB, c->rx_stag};
            enum ofl_err err;

            if (e[i].status != OFL_WC_SUCCESS) {
                fail(n, "receive completion", OFL_E_ARG);
                continue;
            }
            if (e[i].opcode == OFL_QP_OP_RECV_IMM) {
                struct ofl_pp_ref r;

                err = ofl_pp_conn_recv_imm(&n->pp, e[i].imm, &r);
                if (err != OFL_OK)
                    fail(n, "immediate data", err);
                else {
                    check_packet(n, &r);
                    if (n->nheld < 64)
                        n->held[n->nheld++] =
                            (struct ofl_pp_ref){r.pool, r.elem, 1};
                }
            } else {
                struct ofl_pp_rx rx = {&g_in, &g_reply, true};

                g_in.type = 0;
                if (g_cells) /* one cell: a message once it completes */
                    err = ofl_pp_conn_recv_cell(&n->pp,
                                                (enum ofl_pp_channel)ch, b,
                                                e[i].byte_len, &rx);
                else
                    err = ofl_pp_conn_recv(&n->pp, (enum ofl_pp_channel)ch,
                                           b, e[i].byte_len, &g_in,
                                           &g_reply);
                if (err == OFL_OK && !rx.done)
                    goto repost;
                if (err != OFL_OK && err != OFL_E_PP_FLUSH_UNKNOWN)
                    fail(n, ofl_pp_type_name(g_in.type), err);
                if (err == OFL_OK && g_reply.type != 0)
                    send_msg(n, &g_reply);
                if (err == OFL_OK)
                    switch (g_in.type) {
                    case OFL_PP_BUFFER_RDMA_INDICATE:
                        for (k = 0; k < g_in.count; k++) {
                            check_packet(n, &g_in.u.ref[k]);
                            if (n->nheld < 64)
                                n->held[n->nheld++] = (struct ofl_pp_ref){
                                g_in.u.ref[k].pool, g_in.u.ref[k].elem, 1};
                        }
                        break;
                    case OFL_PP_SEND_DATA:
                        n->got_send += g_in.data_len == (g_cells ? HELLO : 5) &&
                                       memcmp(g_in.data, g_hello,
                                              g_in.data_len) == 0;
                        break;
                    case OFL_PP_CFG_UTIL_REQUEST:
                        /* code 1: set the MAC address (6 bytes) */
                        n->got_cfg++;
                        n->mac_set = g_in.code == 1 && g_in.data_len == 6 &&
                                     g_in.data[5] == 0x42;
                        g_m = g_in;
                        g_m.type = OFL_PP_CFG_UTIL_REPLY;
                        g_m.status = n->mac_set ? 0 : 1;
                        g_m.data = NULL;
                        g_m.data_len = 0;
                        send_msg(n, &g_m);
                        break;
                    case OFL_PP_CFG_UTIL_REPLY:
                        n->got_cfg += g_in.status == 0;
                        break;
                    case OFL_PP_BUFFER_RECV_POOL_GET: {
                        /* answer with a new pool (index 1) once */
                        struct ofl_pp_pool_desc d = {
                            1, g_in.elem_count > 8 ? 8 : g_in.elem_count,
                            2048, n->pool_stag, va(n->pool_mem + 8 * 2048),
                            0x6E6577};

                        n->got_get++;
                        n->hold = 0;
                        if (n->pp.rx.slot[1].state == OFL_PP_POOL_EMPTY &&
                            (err = ofl_pp_advertise(&n->pp, &d, 1, &g_m)) ==
                                OFL_OK)
                            send_msg(n, &g_m);
                        break;
                    }
                    default:
                        break;
                    }
            }
        repost:
            memset(&wr, 0, sizeof(wr));
            wr.wr_id = e[i].wr_id;
            wr.sge = &sge;
            wr.num_sge = 1;
            if (ofl_qp_post_recv(&c->qp, &wr) != OFL_OK)
                fail(n, "repost receive", OFL_E_QP_RQ_FULL);
        }
    }
    /* replenish what was consumed, OFL_PP_MSG_ITEMS runs per Update */
    while (!n->hold && n->nheld != 0 && n->pp.state == OFL_PP_READY) {
        uint32_t take = n->nheld < OFL_PP_MSG_ITEMS ? n->nheld
                                                    : OFL_PP_MSG_ITEMS;
        enum ofl_err err = ofl_pp_replenish(&n->pp, n->held, take, &g_m);

        if (err != OFL_OK) {
            fail(n, "replenish", err);
            break;
        }
        send_msg(n, &g_m);
        n->nheld -= take;
        memmove(n->held, n->held + take, n->nheld * sizeof(n->held[0]));
    }
}

static void step(void)
{
    pump();
    serve(g_unit);
    serve(g_host);
    pump();
}

/* Pushes packet k of n's direction into the peer: a free element, the
 * bytes by RDMA Write, the indication the layer chooses. Returns 1 when
 * sent, 0 when the peer has no room yet. */
static int push(struct node *n, uint32_t k, unsigned *asked)
{
    bool out = n == g_host;
    uint32_t len = pkt_len(out, k), i;
    struct ofl_pp_write_req req;
    struct ofl_pp_write w;
    struct ofl_pp_ref r;
    enum ofl_err err = ofl_pp_pick(&n->pp, len, &r);

    if (err == OFL_E_PP_EXHAUSTED) {
        if (out && *asked == 0) { /* ask the unit for another pool */
            memset(&g_m, 0, sizeof(g_m));
            g_m.type = OFL_PP_BUFFER_RECV_POOL_GET;
            g_m.elem_count = 8;
            g_m.elem_size = 2048;
            send_msg(n, &g_m);
            (*asked)++;
        }
        return 0;
    }
    if (err != OFL_OK) {
        fail(n, "pick", err);
        return 0;
    }
    for (i = 0; i < len; i++)
        n->src[i] = pkt_byte(out, k, i);
    memset(&req, 0, sizeof(req));
    req.pool = r.pool;
    req.elem = r.elem;
    req.src = (struct ofl_qp_sge){va(n->src), len, n->src_stag};
    req.ind = (struct ofl_pp_buf){n->ind, va(n->ind), 128, n->ind_stag};
    req.wr_id = 1000 + k * 2;
    err = ofl_pp_write(&n->pp, &req, &w);
    if (err != OFL_OK) {
        fail(n, "write", err);
        return 0;
    }
    return 1;
}

/* Pushes count packets from n, pumping as the pools fill up. */
static void push_all(struct node *n, uint32_t count)
{
    unsigned asked = 0, idle = 0;

    while (n->next_tx < count && idle < 50 && n->errors == 0) {
        if (push(n, n->next_tx, &asked)) {
            n->next_tx++;
            idle = 0;
            /* the source buffer is reused: let the write go out first */
            step();
        } else {
            idle++;
            step();
        }
    }
}

/* One run of the demonstration; over cell channels when cells. 0 when
 * every check passed. */
static int run(bool cells)
{
    static uint8_t wirebuf[4][WIRE];
    struct ofl_pp_pool_desc d[2];
    uint32_t i, pools[2];
    int rc = 0;

    g_cells = cells;
    memcpy(g_hello, "hello", 5);
    for (i = 5; i < HELLO; i++)
        g_hello[i] = (uint8_t)(i * 29u + 3u);
    g_host = aligned_alloc(4096, (sizeof(struct node) + 4095) & ~4095ul);
    g_unit = aligned_alloc(4096, (sizeof(struct node) + 4095) & ~4095ul);
    if (g_host == NULL || g_unit == NULL)
        return 1;
    memset(g_host, 0, sizeof(*g_host));
    memset(g_unit, 0, sizeof(*g_unit));
    memset(g_w, 0, sizeof(g_w));
    for (i = 0; i < 4; i++)
        g_w[i].buf = wirebuf[i];
    if (node_init(g_host, "host") != 0 || node_init(g_unit, "unit") != 0 ||
        chan_init(g_host, &g_host->ch[0], 1, &g_w[0]) != 0 ||
        chan_init(g_unit, &g_unit->ch[0], 2, &g_w[1]) != 0 ||
        chan_init(g_host, &g_host->ch[1], 3, &g_w[2]) != 0 ||
        chan_init(g_unit, &g_unit->ch[1], 4, &g_w[3]) != 0 ||
        connect_channel(&g_host->ch[0], &g_unit->ch[0], &g_w[0], &g_w[1],
                        1000, 5000) != 0 ||
        connect_channel(&g_host->ch[1], &g_unit->ch[1], &g_w[2], &g_w[3],
                        0xFFFFF000u, 77) != 0 ||
        pp_init(g_host) != 0 || pp_init(g_unit) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }

    /* the unit advertises its receive pools (FIG. 7 BufferRcvPool 730) */
    d[0] = (struct ofl_pp_pool_desc){0, 8, 2048, g_unit->pool_stag,
                                     va(g_unit->pool_mem), 0x4C414E30};
    d[1] = (struct ofl_pp_pool_desc){300, 2, 80000, g_unit->pool_stag,
                                     va(g_unit->pool_mem + 16 * 2048),
                                     0x4C414E31};
    if (ofl_pp_advertise(&g_unit->pp, d, 2, &g_m) != OFL_OK)
        return 1;
    g_unit->hold = 1;
    send_msg(g_unit, &g_m);
    /* ... and the host its own (FIG. 7 BufferRcvPool 710) */
    d[0] = (struct ofl_pp_pool_desc){2, 8, 2048, g_host->pool_stag,
                                     va(g_host->pool_mem), 0x484F5354};
    if (ofl_pp_advertise(&g_host->pp, d, 1, &g_m) != OFL_OK)
        return 1;
    send_msg(g_host, &g_m);
    step();

    /* control: set the unit's MAC address; one packet as SendData */
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_CFG_UTIL_REQUEST;
    g_m.ctx = 1;
    g_m.code = 1;
    g_m.data = (const uint8_t *)"\x02\x00\x00\x00\x00\x42";
    g_m.data_len = 6;
    send_msg(g_host, &g_m);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_SEND_DATA;
    g_m.data = g_hello;
    g_m.data_len = cells ? HELLO : 5;
    send_msg(g_host, &g_m);
    step();

    /* data: outbound, then inbound */
    push_all(g_host, NOUT);
    push_all(g_unit, NIN);
    step();

    /* flush: the unit flushes its pools (target), the host flushes its
     * own pool (target) and, for the pool the unit granted on request,
     * acts as initiator */
    (void)ofl_pp_conn_close(&g_host->pp);
    (void)ofl_pp_conn_close(&g_unit->pp);
    pools[0] = 0;
    pools[1] = 300;
    if (ofl_pp_flush(&g_unit->pp, true, pools, 2, 0xF1, &g_m) == OFL_OK)
        send_msg(g_unit, &g_m);
    else
        fail(g_unit, "flush", OFL_E_ARG);
    pools[0] = 2;
    if (ofl_pp_flush(&g_host->pp, true, pools, 1, 0xF2, &g_m) == OFL_OK)
        send_msg(g_host, &g_m);
    else
        fail(g_host, "flush", OFL_E_ARG);
    if (g_host->pp.tx.slot[1].state == OFL_PP_POOL_ACTIVE) {
        pools[0] = 1;
        if (ofl_pp_flush(&g_host->pp, false, pools, 1, 0xF3, &g_m) == OFL_OK)
            send_msg(g_host, &g_m);
    }
    for (i = 0; i < 4; i++)
        step();

    printf("host: pushed %u packets (%llu with immediate data, %llu with "
           "BufferRDMAIndicate), received %u\n",
           g_host->next_tx, (unsigned long long)g_host->pp.stats.writes_imm,
           (unsigned long long)g_host->pp.stats.writes_msg, g_host->next_rx);
    printf("unit: pushed %u packets (%llu with immediate data, %llu with "
           "BufferRDMAIndicate), received %u\n",
           g_unit->next_tx, (unsigned long long)g_unit->pp.stats.writes_imm,
           (unsigned long long)g_unit->pp.stats.writes_msg, g_unit->next_rx);
    printf("control: MAC set %s, SendData %u, pool requests %u; "
           "connections %s / %s\n",
           g_unit->mac_set ? "yes" : "no", g_unit->got_send,
           g_unit->got_get, ofl_pp_conn_state_name(g_host->pp.state),
           ofl_pp_conn_state_name(g_unit->pp.state));
    if (g_host->errors || g_unit->errors || g_host->next_tx != NOUT ||
        g_unit->next_rx != NOUT || g_unit->next_tx != NIN ||
        g_host->next_rx != NIN || g_host->pp.stats.writes_msg < 2 ||
        !g_unit->mac_set || g_host->got_cfg != 1 || g_unit->got_send != 1 ||
        g_unit->got_get < 1 || g_host->pp.state != OFL_PP_CLOSED ||
        g_unit->pp.state != OFL_PP_CLOSED || g_host->sim.violations ||
        g_unit->sim.violations) {
        printf("ofl-splitdrv: FAILED (see the lines above)\n");
        rc = 1;
    }
    if (cells) {
        /* every message each end took came as cells: one packet each,
         * none dropped or repeated */
        const struct node *nodes[2] = {g_host, g_unit};

        for (i = 0; i < 2; i++) {
            const struct node *n = nodes[i];
            const struct ofl_pp_reasm *c0 = &n->cells[0].rx,
                                      *c1 = &n->cells[1].rx;

            printf("%s: cells: %llu messages reassembled (control %llu, "
                   "data %llu), %llu dropped, %llu repeated\n",
                   n->name,
                   (unsigned long long)(c0->packets + c1->packets),
                   (unsigned long long)c0->packets,
                   (unsigned long long)c1->packets,
                   (unsigned long long)(c0->dropped + c1->dropped),
                   (unsigned long long)(c0->dups + c1->dups));
            if (c0->packets == 0 || c1->packets == 0 ||
                c0->packets + c1->packets !=
                    n->pp.stats.msgs_rx + n->pp.stats.msgs_refused ||
                c0->dropped + c1->dropped + c0->dups + c1->dups != 0 ||
                n->cells[0].tx_psn == 0x7000 ||
                n->cells[1].tx_psn == 0x7001) {
                printf("ofl-splitdrv: FAILED (cells)\n");
                rc = 1;
            }
        }
    }
    if (rc == 0)
        printf("ofl-splitdrv: ok (every byte matched%s)\n",
               cells ? ", over 256-byte cell channels" : "");
    free(g_host);
    free(g_unit);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--demo") == 0) {
        int rc = run(false);

        printf("== over cell channels\n");
        return run(true) || rc;
    }
    if (argc == 2 && strcmp(argv[1], "--cells") == 0)
        return run(true);
    fprintf(stderr, "usage: %s --demo | --cells\n", argv[0]);
    return 2;
}
