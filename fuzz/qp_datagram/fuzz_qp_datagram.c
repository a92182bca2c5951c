/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/qp_datagram: hostile datagram frames against one node (address 1)
 * holding a UD QP (number 1), an acknowledged RD QP (2, ORD 4), an
 * unacknowledged RD QP (3, ORD 2) and a raw QP (4, steered for UDP to
 * 2001:db8::1), with one EE context toward node 2 (window 4, 3 retries).
 * Frames it transmits (datagrams, acknowledgements, retransmissions) go
 * to a sink that checks them: well formed, and RD data numbered from the
 * EE's snd_isn on, each new frame the next number, a retransmission one
 * of the last WIN numbers (go-back-N).
 *
 * Input: byte 0 the configuration: bit 0 sets OFL_EE_F_NAK on the EE
 * (this node sends sequence and RNR NAKs), bits 1-3 its rnr_delay; bit 4
 * unpinned pages (offload.h "Unpinned pages", "Datagrams"): every QP
 * gets OFL_QP_FAULT_WAIT, and the remote region's page and the pages of
 * the first four receive buffers of the UD QP, of RD QP 2 and of the raw
 * QP are not present (an inbound RD Write, Read, atomic and Send, a UD
 * datagram and a raw frame wait); bit 5 with it: the page of every send
 * source and Read / atomic sink too (send WQEs and responses wait).
 * Event 0x07's B & 0x80 then first maps the page each waiting QP's record
 * names (B & 0x40: gives it up with ofl_qp_fault_fail instead); bit 6
 * a large EE table (WIDE_EE contexts, more than
 * OFL_QP_NODE_EE_PROBE_MAX, under a key from bit 7: the EE placed by
 * ofl_qp_node_ee_place in its address's run, every RD frame looked up
 * in a bounded run; else one context, as before); then
 * events, each a type byte and its operands:
 *   0x00 L16 bytes   ofl_qp_dgram_input of the bytes
 *   0x01 K F Q S L   a datagram built by the harness (so that the fuzzer
 *                    reaches past the header): kind K & 7 (0 RD Send,
 *                    1 UD, 2 RD atomic request, 3 ACK, 4 NAK, 5 RD
 *                    Write, 6 RD Read request, 7 RD Read response),
 *                    flags F, destination
 *                    QP Q (0-7), sequence number S (int8, relative to the
 *                    EE's rcv_nxt for data, to its snd_una for an
 *                    acknowledgement or NAK), payload length L16 % 600,
 *                    the destination / source address bit flips in F's
 *                    upper bits; NAK: code F & 7 (0 and 5-7 undefined),
 *                    detail Q; ACK and NAK: L16 & 1 adds the refusal
 *                    block (offload.h "Refusal block"): its code byte
 *                    (L16 >> 1) & 7 (0 none, 2 ACCESS, 4 INVALID, the
 *                    rest undefined), detail (L16 >> 4) & 7, refused
 *                    sequence number snd_una + (int8)(L16 >> 8), the
 *                    reserved byte L16 & 0x80 (the bytes are written
 *                    as given: a malformed block reaches the parser);
 *                    Write / Read: F & 0x20 names the remote
 *                    region (else the local-only one), TO = its base +
 *                    S * 16, a Read asks L bytes; atomic: the same
 *                    target, op Q % 3, add/swap data L16, masks from F's
 *                    bits 2 (add/swap) and 3 (compare), compare data
 *                    L16 >> 8; Read response: the request number
 *                    snd_una + S
 *   0x02 L16 bytes   ofl_qp_raw_input of the bytes
 *   0x03 N H L16     a raw IPv6 frame built by the harness: next header
 *                    N, destination H & 1 (steered or not), L payload
 *   0x04 Q L16 E     post a SEND on QP Q & 3 of L16 % 400 bytes (RD: EE
 *                    index E; 0 names the EE wherever it was placed)
 *   0x05 Q           post a receive on QP Q & 3
 *   0x06 T           ofl_ee_tick at now += T
 *   0x07 B           ofl_qp_process of every QP with budget B
 *   0x08 Q S         ofl_qp_modify of QP Q & 3 to state S % 9
 *   0x09 Q O L16     post an RDMA Write (O & 3 = 0), Read (1), FetchAdd
 *                    (2) or CompareSwap (3; operands from L16, an 8-byte
 *                    result) on RD QP 1 + (Q & 1) (QP 2 or 3) of
 *                    L16 % 300 bytes, to the EE
 * (any other type: its value mod 10).
 *
 * The node has a region with remote read, write and atomic rights
 * (REMOTE, 4096 bytes, always the core's to touch) that inbound RD
 * Writes, Reads and atomics may reach; its EE context a replay cache of
 * two entries (fewer than the window: a full cache is reachable).
 *
 * The guard (fuzz/own.h) allows only what the core may touch at that
 * moment: the data of each send WQE (read) and each receive WQE (write)
 * from its post until its completion was polled or its QP was reset.
 *
 * Invariants after every event: the sim guard never fired (it traps), the
 * ring counters are ordered (cc <= ci <= db_pi <= pi, both queues), an RD
 * QP has at most ORD frames outstanding, the EE window is never overfilled
 * and its numbers are ordered, every replay cache entry in use names a
 * response still outstanding, no more completions than WQEs posted, every
 * receive completion carries a byte count the receive could hold and, as
 * long as every frame the node took was built by the harness (payload
 * byte i is i), a successful UD or RD receive holds exactly those bytes;
 * the state is a state. A QP in SQD sends no new UD or RD frame (the sink
 * checks it as the frame goes out). A fault record names a place
 * (OFL_QP_FAULT_SQ or _DG on a datagram QP), only under
 * OFL_QP_FAULT_WAIT, and with no wait flag set there is none.
 */
#include "fuzz.h"
#include "own.h"
#include "offload.h"
#include "ports/sim/ofl_sim.h"

#include <stdlib.h>
#include <string.h>

#define NQP 4u
#define DEPTH 8u
#define SGE 2u
#define MEM (64u * 1024u)
#define WIN 4u
#define SLOT 512u
#define BASE 0x10000000ull
#define RBUF 256u  /* receive buffers: smaller than max_dgram on purpose */
#define WIDE_EE 32u /* EE contexts of the large table */
_Static_assert(WIDE_EE > OFL_QP_NODE_EE_PROBE_MAX, "a large table");

static const uint8_t ADDR_X[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                   0,    0,    0,    0,    0, 0, 0, 1};

struct fqp {
    struct ofl_qp qp;
    struct ofl_qp_swqe track[DEPTH];
    struct ofl_qp_sge sq_sge[SGE], rq_sge[SGE];
    uint8_t tx_buf[600];
    uint8_t sq_ring[DEPTH * 128];
    uint8_t rq_ring[DEPTH * 64];
    uint64_t sends, recvs;           /* posted */
    uint64_t send_done, recv_done;   /* completed */
};

struct ctx {
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[8];
    uint64_t att[32];
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[64], rcqe[64];
    struct fqp q[NQP];
    struct ofl_qp_node node;
    struct ofl_qp *slots[8];
    struct ofl_ee ee[WIDE_EE]; /* 1 used, or WIDE_EE (config bit 6) */
    struct ofl_ee *eep;        /* the EE toward node 2 */
    uint32_t ee_idx;           /* its index: a SEND's dest.ee */
    uint8_t ee_buf[WIN * SLOT];
    struct ofl_ee_slot ee_slot[WIN];
    struct ofl_ee_atomic ee_atomic[2];
    struct ofl_qp_steer st;
    struct ofl_qp_steer_entry st_e[2];
    _Alignas(4096) uint8_t mem[MEM];
    uint32_t stag;
    uint64_t now;
    uint8_t frame[700];
    unsigned long tx_frames;
    struct own_set own;   /* what the core may touch: the guard */
    uint32_t rd_next;     /* the next new RD data frame's number */
    uint32_t rstag;       /* the remote region over remote[] */
    _Alignas(4096) uint8_t remote[4096];
    bool foreign;         /* a frame not built by the harness was input */
    uint8_t cfg;          /* the configuration byte */
};

static struct ctx *g;

static int sink(void *ctx, const uint8_t *data, uint32_t len, uint32_t flags)
{
    struct ctx *c = ctx;
    struct ofl_dg_hdr h;

    (void)flags;
    c->tx_frames++;
    /* What the node sends must be well formed (raw frames are the
     * caller's bytes: not checked). */
    if (len >= OFL_DG_HDR_LEN && data[0] == OFL_DG_VERSION) {
        FUZZ_ASSERT(ofl_dg_parse(data, len, &h) == OFL_OK);
        bool fresh = h.kind == OFL_DG_UD;

        if (h.kind == OFL_DG_RD || h.kind == OFL_DG_RD_WRITE ||
            h.kind == OFL_DG_RD_READ || h.kind == OFL_DG_RD_RESP ||
            h.kind == OFL_DG_RD_ATOMIC) {
            uint32_t back = c->rd_next - h.sn;

            FUZZ_ASSERT(h.src_addr == 1 && h.dst_addr == 2);
            FUZZ_ASSERT(back <= WIN); /* new, or a retransmission */
            fresh = back == 0;
            if (back == 0)
                c->rd_next++;
        }
        /* SQD: no send WQE starts. A datagram WQE is one frame, sent in
         * the step that begins it, and this sink never refuses one: so a
         * QP in SQD sends no new frame at all (retransmissions are the
         * EE's, and allowed). */
        /* (a Read response answers a request: any state that takes
         * frames, SQD included) */
        if (fresh && h.kind != OFL_DG_RD_RESP && h.src_qpn >= 1 &&
            h.src_qpn <= NQP)
            FUZZ_ASSERT(c->q[h.src_qpn - 1].qp.state != OFL_QP_SQD);
    }
    return 0;
}

static int setup(struct ctx *c)
{
    static const uint8_t svc[NQP] = {OFL_QP_SVC_UD, OFL_QP_SVC_RD,
                                     OFL_QP_SVC_RD, OFL_QP_SVC_RAW};
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    struct ofl_ee_attr ea;
    uint32_t i;

    ofl_sim_init(&c->sim);
    c->sim.trap_violations = true;
    own_rebuild(&c->sim, &c->own); /* nothing is the core's yet */
    if (ofl_tpt_init(&c->tpt, c->entry, 8, c->att, 32, &c->sim.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_cq_init(&c->scq, c->scqe, 64, &c->sim.port, 1) != OFL_OK ||
        ofl_cq_init(&c->rcq, c->rcqe, 64, &c->sim.port, 2) != OFL_OK)
        return -1;
    memset(&d, 0, sizeof(d));
    d.va = BASE;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE;
    b.pa = ofl_sim_pa(c->mem);
    b.len = MEM;
    if (ofl_tpt_reg_phys(&c->tpt, 1, &d, &b, 1, &c->stag) != OFL_OK)
        return -1;
    d.va = (uint64_t)(uintptr_t)c->remote;
    d.att_base = 24;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE |
               OFL_TPT_REMOTE_ATOMIC;
    b.pa = ofl_sim_pa(c->remote);
    b.len = sizeof(c->remote);
    if (ofl_tpt_reg_phys(&c->tpt, 1, &d, &b, 1, &c->rstag) != OFL_OK)
        return -1;
    own_add(&c->own, own_key(OWN_FIXED, 0, 1), b.pa, b.len, OFL_SIM_RW);
    own_rebuild(&c->sim, &c->own);
    if (c->cfg & 0x40u) {
        uint8_t key[16];

        for (i = 0; i < 16; i++)
            key[i] = (uint8_t)(0x5Au ^ (c->cfg >> 7) ^ (i * 29u));
        if (ofl_qp_node_init(&c->node, 1, c->slots, 8, c->ee, WIDE_EE) !=
                OFL_OK ||
            ofl_qp_node_ee_key(&c->node, key) != OFL_OK ||
            ofl_qp_node_ee_place(&c->node, 2, &c->eep) != OFL_OK)
            return -1;
    } else {
        if (ofl_qp_node_init(&c->node, 1, c->slots, 8, c->ee, 1) != OFL_OK)
            return -1;
        c->eep = &c->ee[0];
    }
    c->ee_idx = (uint32_t)(c->eep - c->ee);
    memset(&ea, 0, sizeof(ea));
    ea.local_addr = 1;
    ea.remote_addr = 2;
    ea.snd_isn = 0xFFFFFFFEu;
    c->rd_next = ea.snd_isn;
    ea.rcv_isn = 0x7FFFFFFFu;
    ea.window = WIN;
    ea.slot_size = SLOT;
    ea.buf = c->ee_buf;
    ea.slot = c->ee_slot;
    ea.timeout = 4;
    ea.retry_limit = 3;
    ea.transmit = sink;
    ea.transmit_ctx = c;
    ea.atomic = c->ee_atomic;
    ea.atomic_cap = 2;
    if (ofl_ee_init(c->eep, &ea) != OFL_OK)
        return -1;
    for (i = 0; i < NQP; i++) {
        struct fqp *f = &c->q[i];
        struct ofl_qp_attr a;
        struct ofl_qp_mem m;

        memset(&a, 0, sizeof(a));
        memset(&m, 0, sizeof(m));
        a.qpn = i + 1;
        a.pd = 1;
        a.service = svc[i];
        a.acked = i == 1;
        a.reg_option = OFL_QP_REG_OPTION1;
        a.ord = i == 2 ? 2 : 4;
        a.ird = 1;
        a.tpt = &c->tpt;
        a.port = &c->sim.port;
        a.send_cq = &c->scq;
        a.recv_cq = &c->rcq;
        a.transmit = sink;
        a.transmit_ctx = c;
        a.max_dgram = i == 3 ? 600 : 400;
        a.node = &c->node;
        a.fault_wait =
            (c->cfg & 0x10u) ? OFL_QP_FAULT_WAIT : OFL_QP_FAULT_FAIL;
        m.sq_ring = f->sq_ring;
        m.sq_depth = DEPTH;
        m.sq_max_sge = SGE;
        m.rq_ring = f->rq_ring;
        m.rq_depth = DEPTH;
        m.rq_max_sge = SGE;
        m.sq_track = f->track;
        m.sq_sge = f->sq_sge;
        m.rq_sge = f->rq_sge;
        m.tx_buf = f->tx_buf;
        m.tx_cap = sizeof(f->tx_buf);
        if (ofl_qp_create(&f->qp, &a, &m) != OFL_OK ||
            ofl_qp_modify(&f->qp, OFL_QP_INIT) != OFL_OK ||
            ofl_qp_modify(&f->qp, OFL_QP_RTR) != OFL_OK ||
            ofl_qp_modify(&f->qp, OFL_QP_RTS) != OFL_OK)
            return -1;
        if (svc[i] != OFL_QP_SVC_RAW &&
            ofl_qp_node_add(&c->node, &f->qp) != OFL_OK)
            return -1;
    }
    if (ofl_qp_steer_init(&c->st, c->st_e, 2) != OFL_OK ||
        ofl_qp_steer_add(&c->st, 17, ADDR_X, &c->q[3].qp) != OFL_OK)
        return -1;
    if (c->cfg & 0x10u) { /* unpinned pages: swapped out */
        if (ofl_tpt_unmap_page(&c->tpt, c->rstag,
                               (uint64_t)(uintptr_t)c->remote) != OFL_OK ||
            ofl_tpt_unmap_page(&c->tpt, c->stag, BASE + 32768) != OFL_OK ||
            ofl_tpt_unmap_page(&c->tpt, c->stag, BASE + 40960) != OFL_OK ||
            ofl_tpt_unmap_page(&c->tpt, c->stag, BASE + 57344) != OFL_OK ||
            ((c->cfg & 0x20u) &&
             ofl_tpt_unmap_page(&c->tpt, c->stag, BASE) != OFL_OK))
            return -1;
    }
    return 0;
}

/* MapLocalPage for the page QP qp's fault record names (or, give_up,
 * ofl_qp_fault_fail of it). */
static void fault_serve(struct ctx *c, struct ofl_qp *qp, bool give_up)
{
    const uint64_t page = qp->fault.va & ~4095ull;
    const uint64_t rva = (uint64_t)(uintptr_t)c->remote;
    uint64_t pa;

    if (qp->fault.where == OFL_QP_FAULT_NONE)
        return;
    if (give_up) {
        FUZZ_ASSERT(ofl_qp_fault_fail(qp) == OFL_OK);
        return;
    }
    if (qp->fault.stag == c->rstag && page == rva)
        pa = ofl_sim_pa(c->remote);
    else if (qp->fault.stag == c->stag && page >= BASE &&
             page < BASE + MEM)
        pa = ofl_sim_pa(c->mem + (page - BASE));
    else
        return; /* no page of this harness: cannot happen */
    FUZZ_ASSERT(ofl_tpt_map_page(&c->tpt, qp->fault.stag, page, pa) ==
                OFL_OK);
}

static void drain(struct ctx *c)
{
    struct ofl_cqe e[16];
    uint32_t n, i;

    do {
        (void)ofl_cq_poll(&c->scq, e, 16, &n);
        for (i = 0; i < n; i++) {
            FUZZ_ASSERT(e[i].qpn >= 1 && e[i].qpn <= NQP);
            own_drop(&c->own, own_key(OWN_SEND, e[i].qpn - 1, e[i].wr_id));
            c->q[e[i].qpn - 1].send_done++;
        }
    } while (n != 0);
    do {
        (void)ofl_cq_poll(&c->rcq, e, 16, &n);
        for (i = 0; i < n; i++) {
            uint32_t qi = e[i].qpn - 1, j;
            const uint8_t *b;

            FUZZ_ASSERT(e[i].qpn >= 1 && e[i].qpn <= NQP);
            FUZZ_ASSERT(e[i].byte_len <= RBUF);
            FUZZ_ASSERT(own_drop(&c->own, own_key(OWN_RECV, qi,
                                                  e[i].wr_id)) == 1);
            b = c->mem + 32768 + (e[i].wr_id % 8) * 1024 + qi * 8192;
            for (j = 0; !c->foreign && qi < 3 &&
                        e[i].status == OFL_WC_SUCCESS && j < e[i].byte_len;
                 j++)
                FUZZ_ASSERT(b[j] == (uint8_t)j);
            c->q[qi].recv_done++;
        }
    } while (n != 0);
    /* completed WQEs are the consumer's again */
    own_rebuild(&c->sim, &c->own);
}

static void check(struct ctx *c)
{
    const struct ofl_ee *ee = c->eep;
    uint32_t i;

    drain(c);
    FUZZ_ASSERT(c->sim.violations == 0);
    FUZZ_ASSERT(ee->state <= OFL_EE_ERROR);
    /* the EE is found where it was placed, no other address has one */
    FUZZ_ASSERT(ofl_qp_node_ee(&c->node, 2) == c->eep);
    FUZZ_ASSERT(ofl_qp_node_ee(&c->node, 4) == NULL);
    FUZZ_ASSERT(ee->snd_nxt - ee->snd_una <= WIN);
    FUZZ_ASSERT(ee->rtx_next - ee->snd_una <= ee->snd_nxt - ee->snd_una);
    for (i = 0; i < ee->attr.atomic_cap; i++) {
        const struct ofl_ee_atomic *e = &ee->attr.atomic[i];

        FUZZ_ASSERT(e->used <= 1);
        if (e->used) /* its response is still outstanding, in the entry
                        of its sequence number */
            FUZZ_ASSERT(e->resp_sn - ee->snd_una <
                            ee->snd_nxt - ee->snd_una &&
                        ee->attr.slot[e->resp_sn & (WIN - 1u)].cache ==
                            i + 1u &&
                        ((e->resp_sn - ee->attr.snd_isn) &
                         (ee->attr.atomic_cap - 1u)) == i);
    }
    for (i = 0; i < WIN; i++) /* a request's record names an entry */
        FUZZ_ASSERT(ee->attr.slot[i].rx_cache <= ee->attr.atomic_cap);
    for (i = 0; i < NQP; i++) {
        const struct fqp *f = &c->q[i];
        const struct ofl_qp *qp = &f->qp;

        FUZZ_ASSERT(qp->state < OFL_QP_STATES);
        FUZZ_ASSERT(qp->sq.ci - qp->sq.cc <= qp->sq.db_pi - qp->sq.cc);
        FUZZ_ASSERT(qp->sq.db_pi - qp->sq.cc <= qp->sq.pi - qp->sq.cc);
        FUZZ_ASSERT(qp->sq.pi - qp->sq.cc <= DEPTH);
        FUZZ_ASSERT(qp->rq.ci - qp->rq.cc <= qp->rq.db_pi - qp->rq.cc);
        FUZZ_ASSERT(qp->rq.db_pi - qp->rq.cc <= qp->rq.pi - qp->rq.cc);
        FUZZ_ASSERT(qp->rq.pi - qp->rq.cc <= DEPTH);
        FUZZ_ASSERT(qp->ord_count <= qp->ord);
        FUZZ_ASSERT(f->send_done <= f->sends);
        FUZZ_ASSERT(f->recv_done <= f->recvs);
        /* unpinned pages: a record only under WAIT, at a datagram
         * place, and only while something waits */
        FUZZ_ASSERT(qp->fault.where == OFL_QP_FAULT_NONE ||
                    (qp->attr.fault_wait &&
                     (qp->fault.where == OFL_QP_FAULT_SQ ||
                      qp->fault.where == OFL_QP_FAULT_DG)));
        FUZZ_ASSERT(qp->fault.where != OFL_QP_FAULT_NONE ||
                    (!qp->fault.sq_wait && !qp->fault.in_wait &&
                     !qp->fault.give_up && !qp->fault.rx_held));
        FUZZ_ASSERT(!qp->fault.rx_held);
    }
}

static void post_send(struct ctx *c, uint32_t qi, uint32_t len, uint32_t ee)
{
    struct fqp *f = &c->q[qi];
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    memset(&wr, 0, sizeof(wr));
    sge.addr = BASE + (f->sends % 8) * 512;
    sge.len = len;
    sge.stag = c->stag;
    wr.wr_id = f->sends;
    wr.opcode = OFL_QP_OP_SEND;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.dest.addr = 2;
    wr.dest.ee = ee == 0 ? c->ee_idx : ee;
    wr.dest.qpn = 5;
    /* the source is the core's (read only) until the completion */
    own_add(&c->own, own_key(OWN_SEND, qi, f->sends),
            ofl_sim_pa(c->mem + (sge.addr - BASE)), len, OFL_SIM_READ);
    own_rebuild(&c->sim, &c->own);
    if (ofl_qp_post_send(&f->qp, &wr, NULL) == OFL_OK) {
        f->sends++;
    } else {
        own_drop(&c->own, own_key(OWN_SEND, qi, f->sends));
        own_rebuild(&c->sim, &c->own);
    }
}

/* An RDMA Write (source read) or Read (sink written) on RD QP qi. */
static void post_rdma(struct ctx *c, uint32_t qi, uint8_t o, uint32_t len)
{
    static const uint8_t ops[4] = {OFL_QP_OP_WRITE, OFL_QP_OP_READ,
                                   OFL_QP_OP_ATOMIC_FADD,
                                   OFL_QP_OP_ATOMIC_CSWAP};
    struct fqp *f = &c->q[qi];
    const bool read = (o & 3u) != 0; /* Read, atomics: the core writes */
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = ops[o & 3u];
    if ((o & 3u) >= 2) { /* atomics: an 8-byte result, RFC 7306 operands */
        wr.atomic[0] = len;
        wr.atomic[1] = (o & 4u) ? ~0ull : 0;
        wr.atomic[2] = len >> 4;
        wr.atomic[3] = (o & 8u) ? ~0ull : 0;
        len = 8;
    }
    sge.addr = BASE + (f->sends % 8) * 512;
    sge.len = len;
    sge.stag = c->stag;
    wr.wr_id = f->sends;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.remote_stag = 0x1234u;
    wr.remote_to = 0x1000u;
    wr.dest.ee = c->ee_idx;
    wr.dest.qpn = 5;
    own_add(&c->own, own_key(OWN_SEND, qi, f->sends),
            ofl_sim_pa(c->mem + (sge.addr - BASE)), len,
            read ? OFL_SIM_WRITE : OFL_SIM_READ);
    own_rebuild(&c->sim, &c->own);
    if (ofl_qp_post_send(&f->qp, &wr, NULL) == OFL_OK) {
        f->sends++;
    } else {
        own_drop(&c->own, own_key(OWN_SEND, qi, f->sends));
        own_rebuild(&c->sim, &c->own);
    }
}

static void post_recv(struct ctx *c, uint32_t qi)
{
    struct fqp *f = &c->q[qi];
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;

    sge.addr = BASE + 32768 + (f->recvs % 8) * 1024 + qi * 8192;
    sge.len = RBUF;
    sge.stag = c->stag;
    wr.wr_id = f->recvs;
    wr.sge = &sge;
    wr.num_sge = 1;
    /* the buffer is the core's (write only) until the completion */
    own_add(&c->own, own_key(OWN_RECV, qi, f->recvs),
            ofl_sim_pa(c->mem + (sge.addr - BASE)), RBUF, OFL_SIM_WRITE);
    own_rebuild(&c->sim, &c->own);
    if (ofl_qp_post_recv(&f->qp, &wr) == OFL_OK) {
        f->recvs++;
    } else {
        own_drop(&c->own, own_key(OWN_RECV, qi, f->recvs));
        own_rebuild(&c->sim, &c->own);
    }
}

/* A datagram the harness builds from a few fuzzed fields. */
static void built_dgram(struct ctx *c, struct fuzz_in *in)
{
    struct ofl_dg_hdr h;
    static const uint8_t kinds[8] = {
        OFL_DG_RD,  OFL_DG_UD,       OFL_DG_RD_ATOMIC, OFL_DG_ACK,
        OFL_DG_NAK, OFL_DG_RD_WRITE, OFL_DG_RD_READ,   OFL_DG_RD_RESP};
    uint8_t kind = kinds[fuzz_u8(in) & 7], flags = fuzz_u8(in);
    uint8_t q = fuzz_u8(in) & 7;
    int8_t s = (int8_t)fuzz_u8(in);
    const uint16_t l16 = fuzz_u16(in);
    uint32_t len = l16 % 600u, i, ext, at = 0;
    bool ref = false;

    memset(&h, 0, sizeof(h));
    h.kind = kind;
    h.flags = (kind == OFL_DG_RD || kind == OFL_DG_UD) ? flags & OFL_DG_F_SE
                                                       : 0;
    h.dst_addr = (flags & 0x80) ? 3u : 1u;
    h.src_addr = (flags & 0x40) ? 4u : 2u;
    if (h.kind != OFL_DG_ACK && h.kind != OFL_DG_NAK) {
        h.dst_qpn = q;
        h.src_qpn = 5;
    }
    if (h.kind == OFL_DG_ACK || h.kind == OFL_DG_NAK)
        h.sn = c->eep->snd_una + (uint32_t)(int32_t)s;
    else if (h.kind != OFL_DG_UD)
        h.sn = c->eep->rcv_nxt + (uint32_t)(int32_t)s;
    switch (h.kind) {
    case OFL_DG_ACK:
    case OFL_DG_NAK:
        len = 0;
        if (h.kind == OFL_DG_NAK) {
            h.nak = flags & 7u;
            if (h.nak == OFL_DG_NAK_ACCESS || h.nak == OFL_DG_NAK_INVALID)
                h.nak_err = q;
        }
        /* the refusal block: built valid (refused = the covered end),
         * then its bytes overwritten with the fuzzed ones */
        ref = (l16 & 1u) != 0;
        if (ref) {
            at = ofl_dg_ext_len(h.kind);
            len = OFL_DG_REF_EXT;
            h.ref_sn = h.kind == OFL_DG_ACK ? h.sn : h.sn - 1u;
        }
        break;
    case OFL_DG_RD_WRITE:
    case OFL_DG_RD_READ:
    case OFL_DG_RD_ATOMIC:
        h.stag = (flags & 0x20) ? c->rstag : c->stag;
        h.to = ((flags & 0x20) ? (uint64_t)(uintptr_t)c->remote : BASE) +
               (uint64_t)(int64_t)s * 16;
        if (h.kind == OFL_DG_RD_READ) {
            h.rlen = len;
            len = 0;
        }
        if (h.kind == OFL_DG_RD_ATOMIC) {
            h.aop = (uint8_t)(q % 3u);
            h.add_swap = l16;
            h.add_swap_mask = (flags & 4u) ? ~0ull : 0;
            h.compare = l16 >> 8;
            h.compare_mask = (flags & 8u) ? ~0ull : 0;
            len = 0;
        }
        break;
    case OFL_DG_RD_RESP:
        h.rlen = c->eep->snd_una + (uint32_t)(int32_t)s;
        break;
    default:
        break;
    }
    ext = ofl_dg_ext_len(h.kind);
    if (len > sizeof(c->frame) - OFL_DG_HDR_LEN - ext)
        len = sizeof(c->frame) - OFL_DG_HDR_LEN - ext;
    h.len = (uint16_t)(ext + len);
    if (ofl_dg_build(&h, c->frame, sizeof(c->frame)) != OFL_OK)
        return;
    if (ref) {
        uint8_t *b = c->frame + OFL_DG_HDR_LEN + at;

        b[0] = (uint8_t)((l16 >> 1) & 7u);
        b[1] = (uint8_t)((l16 >> 7) & 1u);
        b[2] = 0;
        b[3] = (uint8_t)((l16 >> 4) & 7u);
        ofl_store_be32(b + 4, c->eep->snd_una +
                                  (uint32_t)(int32_t)(int8_t)(l16 >> 8));
        len = 0; /* the block is the whole extension */
    }
    for (i = 0; i < len; i++)
        c->frame[OFL_DG_HDR_LEN + ext + i] = (uint8_t)i;
    (void)ofl_qp_dgram_input(&c->node, c->frame,
                             OFL_DG_HDR_LEN + (size_t)h.len, c->now);
}

static void built_raw(struct ctx *c, struct fuzz_in *in)
{
    uint8_t nh = fuzz_u8(in), hsel = fuzz_u8(in);
    uint32_t len = fuzz_u16(in) % 600u;

    memset(c->frame, 0, OFL_RAW_HDR_LEN);
    c->frame[0] = 0x60;
    c->frame[4] = (uint8_t)(len >> 8);
    c->frame[5] = (uint8_t)len;
    c->frame[6] = nh;
    memcpy(c->frame + 24, ADDR_X, 16);
    if (hsel & 1)
        c->frame[39] ^= 0x55;
    memset(c->frame + OFL_RAW_HDR_LEN, 0xAB, len);
    (void)ofl_qp_raw_input(&c->st, c->frame, OFL_RAW_HDR_LEN + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in;
    unsigned events = 0;
    uint32_t i;

    if (g == NULL) {
        g = aligned_alloc(4096, (sizeof(*g) + 4095u) & ~(size_t)4095u);
        if (g == NULL)
            return 0;
    }
    memset(g, 0, sizeof(*g));
    in.p = data;
    in.n = size;
    i = fuzz_u8(&in);
    g->cfg = (uint8_t)i;
    if (setup(g) != 0)
        return 0;
    g->eep->attr.flags = (i & 1u) ? OFL_EE_F_NAK : 0u;
    g->eep->attr.rnr_delay = (i >> 1) & 7u;
    check(g);
    while (in.n != 0 && events++ < 256) {
        uint8_t t = fuzz_u8(&in) % 10;
        const uint8_t *p;
        size_t k;

        switch (t) {
        case 0:
            k = fuzz_take(&in, &p, fuzz_u16(&in) % 1024u);
            g->foreign = true;
            (void)ofl_qp_dgram_input(&g->node, p, k, g->now);
            break;
        case 1:
            built_dgram(g, &in);
            break;
        case 2:
            k = fuzz_take(&in, &p, fuzz_u16(&in) % 1024u);
            (void)ofl_qp_raw_input(&g->st, p, k);
            break;
        case 3:
            built_raw(g, &in);
            break;
        case 4: {
            uint8_t q = fuzz_u8(&in) & 3;
            uint32_t len = fuzz_u16(&in) % 400u;

            post_send(g, q, len, fuzz_u8(&in));
            break;
        }
        case 5:
            post_recv(g, fuzz_u8(&in) & 3);
            break;
        case 6:
            g->now += fuzz_u8(&in);
            (void)ofl_ee_tick(g->eep, g->now);
            break;
        case 9: {
            uint8_t q = fuzz_u8(&in), o = fuzz_u8(&in);

            post_rdma(g, 1u + (q & 1u), o, fuzz_u16(&in) % 300u);
            break;
        }
        case 7: {
            uint8_t b = fuzz_u8(&in);

            for (i = 0; i < NQP; i++) {
                if ((g->cfg & 0x10u) && (b & 0x80u))
                    fault_serve(g, &g->q[i].qp, (b & 0x40u) != 0);
                (void)ofl_qp_process(&g->q[i].qp, g->now, b);
            }
            break;
        }
        default: {
            uint8_t q = fuzz_u8(&in) & 3;
            enum ofl_qp_state to = (enum ofl_qp_state)(fuzz_u8(&in) % 9);

            /* RESET discards every WQE without completions: the core
             * gives their memory back at once */
            if (ofl_qp_modify(&g->q[q].qp, to) == OFL_OK &&
                to == OFL_QP_RESET) {
                own_drop_who(&g->own, OWN_SEND, q);
                own_drop_who(&g->own, OWN_RECV, q);
                own_rebuild(&g->sim, &g->own);
            }
            break;
        }
        }
        check(g);
    }
    return 0;
}
