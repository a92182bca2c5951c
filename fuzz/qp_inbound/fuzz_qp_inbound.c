/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/qp_inbound: hostile inbound byte streams against an established
 * iWARP QP (or an iSCSI one) with registered regions and windows (one-touch,
 * one-shot, type 2, read-only, atomic), posted receives, and Reads and
 * Atomics of its own outstanding, so that responses have something to
 * match.
 *
 * Input: byte 0 the configuration (bit 0 markers, 1 CRC, 2 iSCSI, 3 rings in
 * host memory, 4 windows-only policy, 5 registration option 2), then
 * events, each a type byte and its operands:
 *   0x00 L16 bytes   TCP payload in order (seq = RCV.NXT)
 *   0x01 D16 L16 b   TCP payload at RCV.NXT + (int16_t)D (ahead of a hole
 *                    or behind: duplicates)
 *   0x02 K M ...     one FPDU built by the harness with the QP's framing
 *                    (markers, CRC) from fields: opcode K, then STag
 *                    selector, TO offset, MSN, MO, length, flags (so that
 *                    the fuzzer reaches past the framing); iSCSI: one
 *                    target PDU from fields (opcode, ITT selector among
 *                    the write, read and no-data commands posted at setup
 *                    or a stale or any tag, flags, AHS, StatSN, offset,
 *                    length, data)
 *   0x03 B           ofl_qp_process with budget B
 *   0x04             post a receive
 *   0x05 X           an LLP event (X & 1: lost)
 *   0x06 O           post a send WR of kind O (Read, Atomic, Send, Write)
 * (any other type: its value mod 7).
 *
 * The guard (fuzz/own.h) allows only what the core may touch at that
 * moment, from the harness's own records: each posted WQE's data in its
 * direction (receive buffers, Read sinks and Atomic results written; Send,
 * Write and iSCSI PDU sources read) until its completion was polled, an
 * iSCSI command's data until its response, the rings when in host memory
 * (read), and what the remote keys expose in the directions their rights
 * allow (slot_rights; stag[0] has local rights only). iSCSI streams name
 * no STags: no window memory is allowed for them.
 *
 * Verdicts: while every byte the QP took was framed by the harness, in
 * order, and the QP is in RTS, an RDMA Write the harness builds is
 * predicted from slot_rights (valid key, remote write, inside the range,
 * not a region under the windows-only policy) - accepted with its bytes
 * placed at TO, or a Terminate - and so is a whole Send (queue 0, Last,
 * MO 0, the expected MSN): with a receive posted and at most 512 bytes it
 * completes the oldest receive with exactly its bytes, else a Terminate.
 * Keys whose validity the stream may have changed (one-touch, one-shot,
 * named by a Send with Invalidate) are no longer predicted.
 *
 * Invariants after every event: the sim guard never fired (it traps), the
 * ring counters are ordered (cc <= ci <= db_pi <= pi, both queues), inbound
 * and outbound queues within IRD/ORD, every completion names a WQE that
 * was posted and not yet completed (by wr_id), no more receive completions
 * than receives posted, MSNs never move backwards, the state is a state;
 * iSCSI: every queued R2T has a length and names a live iSCSI entry.
 */
#include "fuzz.h"
#include "own.h"
#include "offload.h"
#include "ports/sim/ofl_sim.h"

#include <stdlib.h>
#include <string.h>

#define DEPTH 16u
#define SGE 2u
#define IRD 4u
#define ORD 4u
#define MEM (64u * 1024u)
#define NSTAG 8
#define VA 0x10000000ull
#define RECV_AT 32768u  /* receive slot i: RECV_AT + i * 1024, 512 bytes */
#define SINK_AT 10240u  /* Read sinks: inside stag[1]'s region */

/* What each stag[] slot grants the peer (the harness's table, not the
 * core's): remote rights, [lo, hi) of mem, and whether it is a region. */
static const struct {
    uint8_t rights;
    uint32_t lo, hi;
    bool region;
} slot_rights[NSTAG] = {
    {0, 0, MEM, true},  /* local keys only */
    {OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_ATOMIC,
     4096, 12288, true},
    {OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_READ, 16384, 20480, false},
    {OFL_TPT_REMOTE_READ, 20480, 24576, false},
    {OFL_TPT_REMOTE_ATOMIC, 24576, 24676, false},
    {OFL_TPT_REMOTE_WRITE, 28672, 32768, false},
    {0, 0, 0, false},   /* STag 0 */
    {0, 0, 0, false},   /* a stale key */
};

struct ctx {
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[32];
    uint64_t att[64];
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[64], rcqe[64];
    struct ofl_qp qp;
    struct ofl_qp_swqe track[DEPTH];
    struct ofl_qp_sge sq_sge[SGE], rq_sge[SGE];
    struct ofl_qp_inreq irq[IRD];
    uint32_t ord_ring[ORD];
    struct ofl_seq_pending ot[2];
    uint32_t ooo[2];
    uint8_t tx_buf[2048], tx_stage[2048], rx_buf[4096];
    _Alignas(4096) uint8_t sq_ring[DEPTH * 128];
    _Alignas(4096) uint8_t rq_ring[DEPTH * 64];
    _Alignas(4096) uint8_t mem[MEM];
    struct ofl_mpa_tx peer;    /* frames the harness's FPDUs */
    uint32_t stag[NSTAG];
    uint64_t sva[NSTAG];
    uint32_t itt[3];           /* iSCSI: a write, a read, a no-data command */
    uint32_t att_next;
    uint64_t next_send_id, next_recv_id;
    uint64_t send_done, recv_done;  /* completions seen */
    uint64_t recvs_posted, sends_posted;
    uint32_t msn_rx[5];
    unsigned long tx_bytes;
    struct own_set own;        /* what the core may touch: the guard */
    uint8_t cfg;
    /* prediction of harness-built FPDUs: only while every byte the QP
     * took came from the harness's own framing, in order */
    bool sync;
    bool known[NSTAG];         /* slot's validity still as at setup */
    bool sends_clean;          /* no partial or unmodelled message on
                                  queue 0 */
};

static struct ctx *g;

static int sink(void *ctx, const uint8_t *data, uint32_t len, uint32_t flags)
{
    struct ctx *c = ctx;

    (void)data;
    (void)flags;
    c->tx_bytes += len;
    return 0;
}

static uint32_t reg(struct ctx *c, uint32_t off, uint32_t len, uint8_t access,
                    uint8_t flags)
{
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b;
    uint32_t stag = 0;

    memset(&d, 0, sizeof(d));
    d.va = 0x10000000ull + off;
    d.page_shift = 12;
    d.access = access;
    d.flags = flags;
    d.att_base = c->att_next;
    b.pa = ofl_sim_pa(c->mem + off);
    b.len = len;
    if (ofl_tpt_reg_phys(&c->tpt, 1, &d, &b, 1, &stag) == OFL_OK)
        c->att_next += (len + 4095u) / 4096u + 1u;
    return stag;
}

static uint32_t window(struct ctx *c, uint32_t region, uint32_t off,
                       uint32_t len, uint8_t access, uint8_t flags,
                       bool type2)
{
    uint32_t w = 0, bound = 0;

    if (ofl_tpt_alloc(&c->tpt, OFL_TPT_WINDOW, 1, type2 ? OFL_TPT_F_TYPE2 : 0,
                      &w) != OFL_OK ||
        ofl_tpt_bind(&c->tpt, w, region, 1, 9, 0x10000000ull + off, len,
                     access, flags, &bound) != OFL_OK)
        return 0;
    return bound;
}

static void post_recv(struct ctx *c)
{
    struct ofl_qp_recv_wr wr;
    struct ofl_qp_sge sge;

    uint64_t key = own_key(OWN_RECV, 0, c->next_recv_id);

    sge.addr = VA + RECV_AT + (c->next_recv_id % 8) * 1024;
    sge.len = 512;
    sge.stag = c->stag[0];
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = c->next_recv_id;
    wr.sge = &sge;
    wr.num_sge = 1;
    /* the buffer is the core's (write only) from the post on */
    own_add(&c->own, key, ofl_sim_pa(c->mem + (sge.addr - VA)), sge.len,
            OFL_SIM_WRITE);
    own_rebuild(&c->sim, &c->own);
    if (ofl_qp_post_recv(&c->qp, &wr) == OFL_OK) {
        c->next_recv_id++;
        c->recvs_posted++;
        if (c->qp.rq.host)
            (void)ofl_qp_doorbell(&c->qp, OFL_QP_RING_RQ, c->qp.rq.pi);
    } else {
        own_drop(&c->own, key);
        own_rebuild(&c->sim, &c->own);
    }
}

static void post_send(struct ctx *c, uint8_t kind)
{
    static const uint8_t ops[4] = {OFL_QP_OP_READ, OFL_QP_OP_ATOMIC_FADD,
                                   OFL_QP_OP_SEND, OFL_QP_OP_WRITE};
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint64_t key = own_key(OWN_SEND, 0, c->next_send_id);

    memset(&wr, 0, sizeof(wr));
    wr.opcode = c->qp.attr.service == OFL_QP_SVC_ISCSI
                    ? OFL_QP_OP_ISCSI_PDU
                    : ops[kind & 3];
    wr.wr_id = c->next_send_id;
    wr.flags = OFL_QP_WR_SIGNALED;
    sge.addr = VA + 40960 + (kind & 0x30) * 8;
    sge.len = wr.opcode == OFL_QP_OP_ATOMIC_FADD ? 8 : 64;
    sge.stag = c->stag[0];
    if (wr.opcode == OFL_QP_OP_READ) {
        /* a Read Response places through the sink's remote write right
         * (RFC 5040 §4.4): the sink lies in the remote-writable region */
        sge.addr = VA + SINK_AT + (kind & 0x30) * 8;
        sge.stag = c->stag[1];
    }
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.remote_stag = 0x1234;
    wr.remote_to = 0x5000;
    /* sources are read, Read sinks and Atomic results written */
    own_add(&c->own, key, ofl_sim_pa(c->mem + (sge.addr - VA)), sge.len,
            wr.opcode == OFL_QP_OP_READ || wr.opcode == OFL_QP_OP_ATOMIC_FADD
                ? OFL_SIM_WRITE
                : OFL_SIM_READ);
    own_rebuild(&c->sim, &c->own);
    if (ofl_qp_post_send(&c->qp, &wr, NULL) == OFL_OK) {
        c->next_send_id++;
        c->sends_posted++;
        if (c->qp.sq.host)
            (void)ofl_qp_doorbell(&c->qp, OFL_QP_RING_SQ, c->qp.sq.pi);
    } else {
        own_drop(&c->own, key);
        own_rebuild(&c->sim, &c->own);
    }
}

/* iSCSI: a SCSI command (BHS flags rw) over mem[off, off + len) as
 * physical buffers, its entry's ATT after the regions'. */
static void post_command(struct ctx *c, uint32_t *itt, uint8_t rw,
                         uint32_t off, uint32_t len)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t cmd_id = 0;

    if (ofl_tpt_alloc(&c->tpt, OFL_TPT_ISCSI, 1, 0, itt) != OFL_OK)
        return;
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_ISCSI_CMD;
    wr.wr_id = c->next_send_id;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.stag = *itt;
    sge.addr = ofl_sim_pa(c->mem + off);
    sge.len = len;
    wr.sge = &sge;
    wr.num_sge = len != 0;
    wr.reg.att_base = c->att_next;
    wr.reg.page_shift = 12;
    wr.bhs[0] = 0x01;
    wr.bhs[1] = (uint8_t)(0x80 | rw);
    if (ofl_qp_post_send(&c->qp, &wr, &cmd_id) == OFL_OK) {
        /* the data is the core's until the command's response (its
         * ISCSI_RESP completion names cmd_id): W (0x20) it reads for
         * Data-Out, R (0x40) it writes from Data-In */
        if (rw != 0)
            own_add(&c->own, own_key(OWN_TASK, 0, cmd_id), sge.addr, len,
                    rw == 0x20 ? OFL_SIM_READ : OFL_SIM_WRITE);
        own_rebuild(&c->sim, &c->own);
        c->next_send_id++;
        c->sends_posted++;
        c->att_next += 2;
        if (c->qp.sq.host)
            (void)ofl_qp_doorbell(&c->qp, OFL_QP_RING_SQ, c->qp.sq.pi);
    }
}

static int setup(struct ctx *c, uint8_t cfgb)
{
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;
    struct ofl_mpa_params p;
    int i;

    ofl_sim_init(&c->sim);
    c->sim.trap_violations = true;
    c->cfg = cfgb;
    /* rings in host memory are fetched by DMA (read only) */
    if (cfgb & 8) {
        own_add(&c->own, own_key(OWN_FIXED, 0, 0), ofl_sim_pa(c->sq_ring),
                sizeof(c->sq_ring), OFL_SIM_READ);
        own_add(&c->own, own_key(OWN_FIXED, 0, 0), ofl_sim_pa(c->rq_ring),
                sizeof(c->rq_ring), OFL_SIM_READ);
    }
    own_rebuild(&c->sim, &c->own);
    if (ofl_tpt_init(&c->tpt, c->entry, 32, c->att, 64, &c->sim.port,
                     (cfgb & 0x10) ? OFL_TPT_POLICY_WINDOWS_ONLY
                                   : OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_cq_init(&c->scq, c->scqe, 64, &c->sim.port, 1) != OFL_OK ||
        ofl_cq_init(&c->rcq, c->rcqe, 64, &c->sim.port, 2) != OFL_OK)
        return -1;
    /* regions and windows of every kind; stag[0] is for local access
     * only (and binding windows): windows and stag[1] are the only
     * remote targets */
    c->stag[0] = reg(c, 0, MEM,
                     OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                         OFL_TPT_BIND_WINDOW,
                     0);
    c->stag[1] = reg(c, 4096, 8192,
                     OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE |
                         OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_ATOMIC,
                     OFL_TPT_F_INVALIDATABLE);
    c->stag[6] = 0;
    c->stag[7] = c->stag[1] + 1; /* a stale key */
    for (i = 0; i < NSTAG; i++)
        c->sva[i] = 0x10000000ull + (i == 2 ? 16384 : i == 3 ? 20480
                                       : i == 4 ? 24576
                                       : i == 5 ? 28672
                                       : i == 1 ? 4096 : 0);
    memset(&a, 0, sizeof(a));
    a.qpn = 9;
    a.pd = 1;
    a.service = (cfgb & 4) ? OFL_QP_SVC_ISCSI : OFL_QP_SVC_IWARP;
    a.sq_reg = 1;
    a.reg_option = (cfgb & 0x20) ? 2 : 1;
    a.ord = ORD;
    a.ird = IRD;
    a.iscsi_max_data = 1024;
    a.tpt = &c->tpt;
    a.port = &c->sim.port;
    a.send_cq = &c->scq;
    a.recv_cq = &c->rcq;
    a.transmit = sink;
    a.transmit_ctx = c;
    memset(&m, 0, sizeof(m));
    m.sq_ring = c->sq_ring;
    m.sq_ring_pa = ofl_sim_pa(c->sq_ring);
    m.sq_depth = DEPTH;
    m.sq_max_sge = SGE;
    m.rq_ring = c->rq_ring;
    m.rq_ring_pa = ofl_sim_pa(c->rq_ring);
    m.rq_depth = DEPTH;
    m.rq_max_sge = SGE;
    m.sq_host = (cfgb & 8) != 0;
    m.rq_host = (cfgb & 8) != 0;
    m.sq_track = c->track;
    m.sq_sge = c->sq_sge;
    m.rq_sge = c->rq_sge;
    m.irq = c->irq;
    m.ord_ring = c->ord_ring;
    m.tx_buf = c->tx_buf;
    m.tx_cap = sizeof(c->tx_buf);
    m.tx_stage = c->tx_stage;
    m.rx_buf = c->rx_buf;
    m.rx_cap = sizeof(c->rx_buf);
    m.ot_pending = c->ot;
    m.ot_cap = 2;
    m.ooo = c->ooo;
    m.ooo_cap = 2;
    if (ofl_qp_create(&c->qp, &a, &m) != OFL_OK ||
        ofl_qp_modify(&c->qp, OFL_QP_INIT) != OFL_OK)
        return -1;
    /* windows after the QP: creating QP 9 ends type 2 windows of QP 9 */
    c->stag[2] = window(c, c->stag[0], 16384, 4096,
                        OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_READ,
                        OFL_TPT_F_ONE_TOUCH, false);
    c->stag[3] = window(c, c->stag[0], 20480, 4096, OFL_TPT_REMOTE_READ,
                        OFL_TPT_F_ONE_SHOT, true);
    c->stag[4] = window(c, c->stag[0], 24576, 100, OFL_TPT_REMOTE_ATOMIC, 0,
                        false);
    c->stag[5] = window(c, c->stag[0], 28672, 4096, OFL_TPT_REMOTE_WRITE, 0,
                        true);
    /* the memory remote-accessible keys expose, in the directions their
     * rights allow (iWARP only: an iSCSI stream names no STags) */
    for (i = 1; a.service == OFL_QP_SVC_IWARP && i < NSTAG; i++) {
        uint8_t r = slot_rights[i].rights;
        unsigned perm = ((r & (OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_ATOMIC))
                             ? OFL_SIM_READ
                             : 0u) |
                        ((r & (OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC))
                             ? OFL_SIM_WRITE
                             : 0u);

        if (c->stag[i] == 0 || perm == 0 ||
            (slot_rights[i].region && (cfgb & 0x10)))
            continue;
        own_add(&c->own, own_key(OWN_FIXED, 0, i),
                ofl_sim_pa(c->mem + slot_rights[i].lo),
                slot_rights[i].hi - slot_rights[i].lo, perm);
    }
    own_rebuild(&c->sim, &c->own);
    for (i = 0; i < NSTAG; i++)
        c->known[i] = true;
    c->sync = a.service == OFL_QP_SVC_IWARP;
    c->sends_clean = true;
    memset(&p, 0, sizeof(p));
    p.rev = 2;
    p.crc = (cfgb & 2) != 0;
    p.markers_rx = (cfgb & 1) != 0;
    p.markers_tx = (cfgb & 1) != 0;
    p.enhanced = true;
    p.ird = IRD;
    p.ord = ORD;
    if (ofl_qp_establish(&c->qp, &p, 1460, 1000, 1u << 16) != OFL_OK)
        return -1;
    if (ofl_mpa_tx_init(&c->peer, &p, 1460, NULL) != OFL_OK)
        return -1;
    for (i = 0; i < 6; i++)
        post_recv(c);
    /* Reads and Atomics of our own in flight; iSCSI: commands whose
     * ITTs the target's PDUs can name */
    post_send(c, 0);
    post_send(c, 1);
    post_send(c, 0);
    if (a.service == OFL_QP_SVC_ISCSI) {
        post_command(c, &c->itt[0], 0x20, 45056, 4096);
        post_command(c, &c->itt[1], 0x40, 49152 + 100, 3000);
        post_command(c, &c->itt[2], 0x00, 0, 0);
    }
    (void)ofl_qp_process(&c->qp, 0, 16);
    memset(c->msn_rx, 0, sizeof(c->msn_rx));
    return 0;
}

/* Feeds bytes at RCV.NXT + delta. */
static enum ofl_err feed(struct ctx *c, const uint8_t *p, uint32_t n,
                         int32_t delta)
{
    struct ofl_qp_seg s;

    memset(&s, 0, sizeof(s));
    s.seq = c->qp.seq.nxt + (uint32_t)delta;
    s.data = p;
    s.len = n;
    return ofl_qp_input(&c->qp, &s);
}

/* The harness's verdict on an FPDU it built, from its own key table
 * (RFC 5040 §6.4 RDMA Write: the Data Sink's STag must be valid, grant
 * remote write and cover [TO, TO + n); RFC 5040 §5.3 Send: the MSN of the
 * next message needs a posted receive that holds it). */
enum verdict { V_UNKNOWN, V_ACCEPT, V_TERMINATE };

static enum verdict predict(const struct ctx *c, const struct ofl_rdmap_msg *m,
                            unsigned slot, uint32_t n)
{
    if (!c->sync || c->qp.state != OFL_QP_RTS || n == 0)
        return V_UNKNOWN;
    if (m->ddp.opcode == OFL_RDMAP_WRITE) {
        uint64_t lo = VA + slot_rights[slot].lo, hi = VA + slot_rights[slot].hi;

        if (!c->known[slot])
            return V_UNKNOWN;
        if (c->stag[slot] == 0 ||
            !(slot_rights[slot].rights & OFL_TPT_REMOTE_WRITE) ||
            (slot_rights[slot].region && (c->cfg & 0x10)) ||
            m->ddp.to < lo || m->ddp.to + n > hi)
            return V_TERMINATE;
        return V_ACCEPT;
    }
    if ((m->ddp.opcode == OFL_RDMAP_SEND ||
         m->ddp.opcode == OFL_RDMAP_SEND_SE) &&
        c->sends_clean && m->ddp.qn == 0 && m->ddp.last && m->ddp.mo == 0 &&
        m->ddp.msn == c->qp.msn_rx[0]) {
        if (c->recvs_posted == c->recv_done || n > 512)
            return V_TERMINATE;
        return V_ACCEPT;
    }
    return V_UNKNOWN;
}

/* An FPDU from fields: the fuzzer picks the meaning, the framing is right. */
static void fpdu(struct ctx *c, struct fuzz_in *in)
{
    static uint8_t payload[1500], out[2048];
    struct ofl_rdmap_msg m;
    uint8_t hdr[OFL_RDMAP_HDR_MAX], k = fuzz_u8(in), sel = fuzz_u8(in);
    uint16_t n = (uint16_t)(fuzz_u16(in) % 1400u);
    size_t hl = 0, len = 0;
    uint32_t i, inv;
    uint64_t recv_id = c->recv_done;
    enum verdict v;
    enum ofl_err err;

    memset(&m, 0, sizeof(m));
    m.ddp.opcode = k & 0x0F;
    m.ddp.tagged = m.ddp.opcode == OFL_RDMAP_WRITE ||
                   m.ddp.opcode == OFL_RDMAP_READ_RESP;
    m.ddp.last = (k & 0x10) == 0;
    m.ddp.stag = c->stag[sel % NSTAG];
    m.ddp.to = c->sva[sel % NSTAG] + (uint64_t)(int16_t)fuzz_u16(in);
    m.ddp.qn = fuzz_u8(in) % 5;
    m.ddp.msn = c->msn_rx[m.ddp.qn] + 1u + (uint32_t)(int8_t)fuzz_u8(in);
    m.ddp.mo = fuzz_u16(in);
    inv = fuzz_u8(in) % NSTAG;
    m.ddp.inv_stag = c->stag[inv];
    m.u.read_req.src_stag = c->stag[(sel >> 3) % NSTAG];
    m.u.read_req.src_to = c->sva[(sel >> 3) % NSTAG] + fuzz_u16(in);
    m.u.read_req.size = fuzz_u16(in);
    m.u.read_req.sink_stag = 0x4242;
    if (m.ddp.opcode == OFL_RDMAP_ATOMIC_REQ) {
        m.u.atomic_req.op = fuzz_u8(in) % 3;
        m.u.atomic_req.stag = m.ddp.stag;
        m.u.atomic_req.to = m.ddp.to;
        m.u.atomic_req.add_swap = fuzz_u64(in);
        m.u.atomic_req.add_swap_mask = fuzz_u64(in);
    }
    if (m.ddp.opcode == OFL_RDMAP_ATOMIC_RESP)
        m.u.atomic_resp.req_id = fuzz_u8(in);
    if (m.ddp.opcode == OFL_RDMAP_TERMINATE)
        m.u.term.cause.ecode = fuzz_u8(in);
    if (m.ddp.opcode == OFL_RDMAP_READ_REQ || m.ddp.opcode == OFL_RDMAP_TERMINATE ||
        m.ddp.opcode >= OFL_RDMAP_IMM)
        n = 0;
    for (i = 0; i < n; i++)
        payload[i] = (uint8_t)(i * 7 + k);
    if (ofl_rdmap_build(&m, hdr, sizeof(hdr), &hl) != OFL_OK)
        return;
    if (ofl_mpa_fpdu_build(&c->peer, hdr, hl, payload, n, out, sizeof(out),
                           &len) != OFL_OK)
        return;
    v = predict(c, &m, sel % NSTAG, n);
    err = feed(c, out, (uint32_t)len, 0);
    if (v == V_TERMINATE)
        FUZZ_ASSERT(c->qp.state == OFL_QP_TERMINATE && err != OFL_OK);
    if (v == V_ACCEPT) {
        FUZZ_ASSERT(err == OFL_OK && c->qp.state == OFL_QP_RTS);
        if (m.ddp.opcode == OFL_RDMAP_WRITE) {
            FUZZ_ASSERT(memcmp(c->mem + (m.ddp.to - VA), payload, n) == 0);
        } else {
            /* the oldest receive completed with the whole message */
            const struct ofl_cqe *e = &c->rcq.ring[c->rcq.ci &
                                                   (c->rcq.cap - 1u)];

            FUZZ_ASSERT(ofl_cq_count(&c->rcq) == 1);
            FUZZ_ASSERT(e->wr_id == recv_id && e->status == OFL_WC_SUCCESS &&
                        e->byte_len == n);
            FUZZ_ASSERT(memcmp(c->mem + RECV_AT + (recv_id % 8) * 1024,
                               payload, n) == 0);
        }
    }
    if (err != OFL_OK)
        c->sync = false;
    /* what may have changed the harness's picture: a one-touch or
     * one-shot key named, an invalidation asked, an unmodelled message
     * on queue 0 (it may stay open) */
    for (i = 0; i < NSTAG; i++)
        if (((i == sel % NSTAG || i == (sel >> 3) % NSTAG) &&
             (i == 2 || i == 3)) ||
            (i == inv && (m.ddp.opcode == OFL_RDMAP_SEND_INV ||
                          m.ddp.opcode == OFL_RDMAP_SEND_SE_INV)))
            c->known[i] = false;
    if (v == V_UNKNOWN &&
        (m.ddp.qn == 0 || (m.ddp.opcode >= OFL_RDMAP_SEND &&
                           m.ddp.opcode <= OFL_RDMAP_SEND_SE_INV) ||
         m.ddp.opcode == OFL_RDMAP_IMM || m.ddp.opcode == OFL_RDMAP_IMM_SE))
        c->sends_clean = false;
}

/* iSCSI: one target PDU built from fields (opcode from the target's set
 * and one initiator opcode, flags, AHS, ITT of a live command or a stale
 * or any tag, StatSN, offset, length, data). */
static void iscsi_pdu(struct ctx *c, struct fuzz_in *in)
{
    static const uint8_t ops[] = {0x25, 0x31, 0x21, 0x20, 0x22, 0x23,
                                  0x24, 0x26, 0x32, 0x3F, 0x05};
    static uint8_t pdu[48 + 12 + 1024 + 3];
    uint8_t k = fuzz_u8(in), sel = fuzz_u8(in), ahs = (k >> 4) % 4u;
    uint32_t n = fuzz_u16(in) % 1025u, itt = c->itt[sel % 3u], i, at;

    memset(pdu, 0, 48 + 4u * ahs);
    pdu[0] = ops[k % sizeof(ops)];
    pdu[1] = fuzz_u8(in);
    pdu[4] = ahs;
    pdu[5] = (uint8_t)(n >> 16);
    pdu[6] = (uint8_t)(n >> 8);
    pdu[7] = (uint8_t)n;
    if (sel >= 0xC0)
        itt = (sel & 0x20) ? itt + 1u : fuzz_u32(in); /* stale key, any */
    ofl_store_be32(pdu + 16, itt);
    ofl_store_be32(pdu + 20, fuzz_u8(in));              /* TTT */
    ofl_store_be32(pdu + 24, fuzz_u32(in));             /* StatSN */
    ofl_store_be32(pdu + 40, (sel & 0x10) ? fuzz_u32(in) : fuzz_u16(in));
    ofl_store_be32(pdu + 44, (sel & 0x08) ? fuzz_u32(in) : fuzz_u16(in));
    at = 48 + 4u * ahs;
    for (i = 0; i < n; i++)
        pdu[at + i] = (uint8_t)(i * 13 + k);
    for (i = 0; i < ((0u - n) & 3u); i++)
        pdu[at + n + i] = 0;
    (void)feed(c, pdu, at + ((n + 3u) & ~3u), 0);
}

/* The invariants after each event. */
static void check(struct ctx *c)
{
    const struct ofl_qp *qp = &c->qp;
    struct ofl_cqe e[8];
    uint32_t n, i, q;

    FUZZ_ASSERT(c->sim.violations == 0);
    FUZZ_ASSERT(qp->state < OFL_QP_STATES);
    FUZZ_ASSERT(qp->sq.ci - qp->sq.cc <= qp->sq.db_pi - qp->sq.cc);
    FUZZ_ASSERT(qp->sq.db_pi - qp->sq.cc <= qp->sq.pi - qp->sq.cc);
    FUZZ_ASSERT(qp->sq.pi - qp->sq.cc <= DEPTH);
    FUZZ_ASSERT(qp->rq.ci - qp->rq.cc <= qp->rq.db_pi - qp->rq.cc);
    FUZZ_ASSERT(qp->rq.db_pi - qp->rq.cc <= qp->rq.pi - qp->rq.cc);
    FUZZ_ASSERT(qp->rq.pi - qp->rq.cc <= DEPTH);
    FUZZ_ASSERT(qp->irq_count <= IRD);
    /* iSCSI: the harness deregisters nothing, so every queued R2T names a
     * live command (a command's end drops its R2Ts) */
    for (i = 0; qp->attr.service == OFL_QP_SVC_ISCSI && i < qp->irq_count;
         i++) {
        const struct ofl_qp_inreq *r = &qp->irq[(qp->irq_head + i) % IRD];
        struct ofl_tpt_info info;

        FUZZ_ASSERT(r->kind == OFL_QP_IN_R2T && r->len != 0);
        FUZZ_ASSERT(ofl_tpt_query(&c->tpt, r->stag_b, &info) == OFL_OK &&
                    info.state == OFL_TPT_VALID &&
                    info.type == OFL_TPT_ISCSI);
    }
    FUZZ_ASSERT(qp->ord_count <= ORD);
    FUZZ_ASSERT(qp->ooo_count <= 2);
    for (q = 0; q < 5; q++) {
        FUZZ_ASSERT(qp->msn_rx[q] - 1u >= c->msn_rx[q]); /* no move back */
        c->msn_rx[q] = qp->msn_rx[q] - 1u;
    }
    do {
        (void)ofl_cq_poll(&c->scq, e, 8, &n);
        for (i = 0; i < n; i++) {
            /* in posting order, each posted WQE once */
            FUZZ_ASSERT(e[i].wr_id == c->send_done);
            own_drop(&c->own, own_key(OWN_SEND, 0, e[i].wr_id));
            c->send_done++;
            FUZZ_ASSERT(c->send_done <= c->sends_posted);
        }
    } while (n != 0);
    do {
        (void)ofl_cq_poll(&c->rcq, e, 8, &n);
        for (i = 0; i < n; i++) {
            FUZZ_ASSERT(e[i].wr_id == c->recv_done);
            FUZZ_ASSERT(own_drop(&c->own, own_key(OWN_RECV, 0,
                                                  e[i].wr_id)) == 1);
            if (e[i].opcode == OFL_QP_OP_ISCSI_RESP)
                own_drop(&c->own, own_key(OWN_TASK, 0, e[i].imm));
            c->recv_done++;
            FUZZ_ASSERT(c->recv_done <= c->recvs_posted);
            FUZZ_ASSERT(e[i].byte_len <= 512);
        }
    } while (n != 0);
    /* completed WQEs are the consumer's again */
    own_rebuild(&c->sim, &c->own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in;
    unsigned events = 0;

    if (g == NULL) {
        g = aligned_alloc(4096, (sizeof(*g) + 4095u) & ~(size_t)4095u);
        if (g == NULL)
            return 0;
    }
    memset(g, 0, sizeof(*g));
    in.p = data;
    in.n = size;
    if (setup(g, fuzz_u8(&in)) != 0)
        return 0;
    check(g);
    while (in.n != 0 && events++ < 256) {
        uint8_t t = fuzz_u8(&in) % 7;
        const uint8_t *p;
        size_t k;

        switch (t) {
        case 0:
            k = fuzz_take(&in, &p, fuzz_u16(&in) % 4096u);
            (void)feed(g, p, (uint32_t)k, 0);
            g->sync = false;
            break;
        case 1: {
            int32_t d = (int16_t)fuzz_u16(&in);

            k = fuzz_take(&in, &p, fuzz_u16(&in) % 4096u);
            (void)feed(g, p, (uint32_t)k, d);
            g->sync = false;
            break;
        }
        case 2:
            if (g->qp.attr.service == OFL_QP_SVC_ISCSI)
                iscsi_pdu(g, &in);
            else
                fpdu(g, &in);
            break;
        case 3:
            (void)ofl_qp_process(&g->qp, events, fuzz_u8(&in));
            break;
        case 4:
            post_recv(g);
            break;
        case 5:
            (void)ofl_qp_llp_event(&g->qp, fuzz_u8(&in) & 1);
            break;
        default:
            post_send(g, fuzz_u8(&in));
            break;
        }
        check(g);
    }
    return 0;
}
