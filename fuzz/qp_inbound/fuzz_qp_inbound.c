/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/qp_inbound: hostile inbound byte streams against an established
 * iWARP QP (or an iSCSI one) with registered regions and windows (one-touch,
 * one-shot, type 2, read-only, atomic), posted receives, and Reads and
 * Atomics of its own outstanding, so that responses have something to
 * match.
 *
 * Input: byte 0 the configuration (bit 0 markers, 1 CRC, 2 iSCSI, 3 rings in
 * host memory, 4 windows-only policy, 5 registration option 2, 6 unpinned
 * pages: OFL_QP_FAULT_WAIT, the second page of stag[1] (Read sinks,
 * Atomic targets) and stag[0]'s page at RESULT_AT (Atomic results of
 * kind 0x40) not present, no verdicts predicted; with bit 2 the first
 * page of the write and of the read command's buffers too, and the page
 * of the first four receive slots (RECV_AT): Data-Out, Data-In and the
 * PDUs that go to a receive WQE wait), 7 the sim port's fused copy + CRC
 * hooks (offload.h, "One pass over the payload": the same verdicts), then
 * events, each a type byte and
 * its operands:
 *   0x00 L16 bytes   TCP payload in order (seq = RCV.NXT)
 *   0x01 D16 L16 b   TCP payload at RCV.NXT + (int16_t)D (ahead of a hole
 *                    or behind: duplicates)
 *   0x02 K M ...     one FPDU built by the harness with the QP's framing
 *                    (markers, CRC) from fields: opcode K, then STag
 *                    selector, TO offset, MSN, MO, length, flags (so that
 *                    the fuzzer reaches past the framing; a Read Request's
 *                    sink TO is the TO field, an Atomic Request's
 *                    identifier the source offset and size fields);
 *                    iSCSI: one target PDU from fields (opcode, ITT
 *                    selector among the write, read and no-data
 *                    commands posted at setup, a task of another
 *                    connection (FOREIGN_AT), or a stale or any tag,
 *                    flags, AHS, StatSN, offset, length, data)
 *   0x03 B           ofl_qp_process with budget B (config bit 6 and B
 *                    bit 7: first ofl_tpt_map_page of the page a wait
 *                    names, at its own physical address, as the host's
 *                    MapLocalPage would)
 *   0x04             post a receive
 *   0x05 X           an LLP event (X & 1: lost)
 *   0x06 O           post a send WR of kind O (O & 3: Read, Atomic, Send,
 *                    Write; O & 0x30: buffer offset; O & 0x40: a Read's
 *                    sink named by the local-only key, an Atomic's
 *                    result at RESULT_AT)
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
 * Read and Atomic Requests (predict_req), under the same conditions and
 * only well formed (their queue, Last, MO 0): a wrong MSN, or IRD (4)
 * requests already owed an answer by the harness's own count (a Read is
 * owed until its Last Read Response went out, an Atomic until its
 * response did), is a Terminate (1/2/xx; 1/2/02 for IRD); else a Read
 * Request is accepted when its source key is valid, grants remote read,
 * covers [src_to, src_to + size) and is not a region under the
 * windows-only policy, an Atomic Request when its target is 8-byte
 * aligned and its key valid, granting remote atomic, covering [to, to + 8);
 * otherwise a Terminate 0/1/xx (the code where one failure alone
 * applies). A zero-length Read is predicted only from a source that would
 * pass. A Terminate predicted for any message is exactly one outbound
 * Terminate, with that cause, carrying for a Read or Atomic Request its
 * DDP header (and a Read Request's RDMAP header). An accepted Read Request
 * changes no memory, and its source bytes are kept; an accepted Atomic
 * changes only its 8-byte target, Fetch and Add to old + add with the Add
 * Mask's field ends (offload.h); Swap and Compare and Swap values are not
 * predicted (offload.h does not spell them out).
 *
 * The outbound stream (sink) is parsed by the harness itself, not by the
 * core's ofl_mpa_* or ofl_rdmap_parse: markers (reserved 0, FPDUPTR back
 * to the ULPDU Length), pad, CRC32c (bitwise here; 0 without CRC), and
 * every ULPDU well formed by wire_expect.h; nothing after a Terminate.
 * Every Read Request and Atomic Request the core took while in sync is
 * owed its answer in order per kind: Read Responses with the request's
 * sink STag, TO = sink TO + offset, L only on the last, the lengths
 * adding up to the size (one empty one for size 0), and the bytes the
 * source held at the request while no write reached it since; Atomic
 * Responses with the next MSN of queue 4, the request's identifier and
 * the original value. A response nothing asked for while in sync is a
 * failure. At the end of the input, still in sync and in RTS with no
 * Read source key possibly ended since, one ofl_qp_process must send
 * every answer still owed. The buffer holds only FPDUs not yet complete;
 * if one would overflow it, parsing and these predictions stop.
 *
 * Not predicted: the verdicts on raw or out-of-order bytes (events 0x00,
 * 0x01) and everything after them, malformed headers (wire_expect.h's
 * harnesses cover those), keys whose validity the stream may have
 * changed, zero-length Reads from a bad source, Swap and Compare and Swap
 * results, the DDP segmentation of Read Responses (only their sum), the
 * exact code of a Terminate where several checks fail at once, Read
 * Responses and Atomic Responses of the harness's own requests, Send and
 * Write FPDUs the core sends (only their framing), and iSCSI.
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
#include "wire_expect.h"
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
#define RESULT_AT 53248u /* Atomic results of kind 0x40 (stag[0]; the
                            page not present under config bit 6) */
#define FOREIGN_AT 57344u /* iSCSI: the buffer of another QP's task (one
                             page the guard never allows) */
#define OB_CAP 16384u   /* outbound bytes not yet parsed */
#define SNAP 8192u      /* largest Read source a slot covers (slot 1) */

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

/* An inbound Read Request the core accepted (RFC 5040 §4.4): the Read
 * Responses it owes, and the source bytes at the time of the request. */
struct rreq {
    uint32_t sink_stag, len, done, src_off;
    uint64_t sink_to;
    uint8_t slot;
    bool data_ok; /* snap is what the source held and still holds */
    bool firm;    /* nothing since may have ended the source key */
    uint8_t snap[SNAP];
};

/* An inbound Atomic Request the core executed (RFC 7306): its response. */
struct areq {
    uint32_t req_id;
    uint64_t orig;
    bool data_ok; /* orig is the target's value before the request */
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
    struct ofl_qp_ooo ooo[2];
    uint8_t tx_buf[2048], tx_stage[2048], rx_buf[4096];
    _Alignas(4096) uint8_t sq_ring[DEPTH * 128];
    _Alignas(4096) uint8_t rq_ring[DEPTH * 64];
    _Alignas(4096) uint8_t mem[MEM];
    struct ofl_mpa_tx peer;    /* frames the harness's FPDUs */
    uint32_t stag[NSTAG];
    uint64_t sva[NSTAG];
    uint32_t itt[3];           /* iSCSI: a write, a read, a no-data command */
    uint32_t itt_foreign;      /* iSCSI: a task of QP 10 in the same PD */
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
    /* the outbound stream, parsed here (not by ofl_mpa_*): FPDUs not yet
     * complete, the stream position of ob[0] */
    uint8_t ob[OB_CAP];
    uint32_t ob_len;
    uint64_t ob_pos;
    bool out_ok;               /* every outbound byte was parsed */
    unsigned terms_out;        /* Terminates sent */
    uint8_t term[OFL_DDP_UNTAGGED_HDR_LEN + OFL_RDMAP_TERM_MAX_LEN];
    uint32_t term_len;         /* the last one's ULPDU */
    /* inbound requests accepted and not yet answered, each kind in its
     * order (RFC 5040 §5.5, RFC 7306): only while sync */
    struct rreq rq[IRD];
    unsigned rq_head, rq_n;
    struct areq aq[IRD];
    unsigned aq_head, aq_n;
    uint32_t req_msn[5];       /* next MSN of queues 1 and 3, own count */
    uint32_t aresp_msn;        /* next outbound Atomic Response MSN */
};

static struct ctx *g;

static uint32_t be16(const uint8_t *p)
{
    return ((uint32_t)p[0] << 8) | p[1];
}

static uint64_t be64(const uint8_t *p)
{
    return ((uint64_t)wire_expect_be32(p) << 32) | wire_expect_be32(p + 4);
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Bitwise CRC32c (RFC 3385), not the core's tables. */
static uint32_t ref_crc(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1u) ? 0x82F63B78u : 0u);
    }
    return ~c;
}

/* A Read Response segment (RFC 5040 §4.5: tagged, the Data Sink STag of
 * the request, TO = sink TO + offset, L on the last): the oldest Read
 * Request's next bytes. */
static void out_read_resp(struct ctx *c, const uint8_t *u, uint32_t len)
{
    struct rreq *e;
    uint32_t n = len - OFL_DDP_TAGGED_HDR_LEN;
    bool last = (u[0] & 0x40) != 0;

    if (c->rq_n == 0) {
        /* every Read Request the core took while sync is in rq[] */
        FUZZ_ASSERT(!c->sync);
        return;
    }
    e = &c->rq[c->rq_head];
    FUZZ_ASSERT(wire_expect_be32(u + 2) == e->sink_stag);
    FUZZ_ASSERT(be64(u + 6) == e->sink_to + e->done);
    FUZZ_ASSERT(n <= e->len - e->done);
    FUZZ_ASSERT(last == (e->done + n == e->len));
    if (e->data_ok)
        FUZZ_ASSERT(memcmp(u + OFL_DDP_TAGGED_HDR_LEN, e->snap + e->done,
                           n) == 0);
    e->done += n;
    if (last) {
        c->rq_head = (c->rq_head + 1u) % IRD;
        c->rq_n--;
    }
}

/* An Atomic Response (RFC 7306: queue 4, the next MSN, Original Request
 * Identifier, Original Remote Data Value, big-endian on the wire). */
static void out_atomic_resp(struct ctx *c, const uint8_t *u)
{
    const uint8_t *b = u + OFL_DDP_UNTAGGED_HDR_LEN;
    struct areq *e;

    FUZZ_ASSERT(wire_expect_be32(u + 10) == c->aresp_msn);
    c->aresp_msn++;
    if (c->aq_n == 0) {
        FUZZ_ASSERT(!c->sync);
        return;
    }
    e = &c->aq[c->aq_head];
    FUZZ_ASSERT(wire_expect_be32(b) == e->req_id);
    if (e->data_ok)
        FUZZ_ASSERT(be64(b + 4) == e->orig);
    c->aq_head = (c->aq_head + 1u) % IRD;
    c->aq_n--;
}

/* One outbound ULPDU: well formed by the harness's own classifier
 * (wire_expect.h), nothing after a Terminate (offload.h: in TERMINATE
 * nothing is sent any more), responses matched. */
static void out_ulpdu(struct ctx *c, const uint8_t *u, uint32_t len)
{
    FUZZ_ASSERT(wire_expect_rdmap(u, len) == OFL_OK);
    FUZZ_ASSERT(c->terms_out == 0);
    switch (u[1] & 0x0F) {
    case OFL_RDMAP_READ_RESP:
        out_read_resp(c, u, len);
        break;
    case OFL_RDMAP_ATOMIC_RESP:
        out_atomic_resp(c, u);
        break;
    case OFL_RDMAP_TERMINATE:
        c->terms_out++;
        c->term_len = len < sizeof(c->term) ? len : sizeof(c->term);
        memcpy(c->term, u, c->term_len);
        break;
    default:
        break;
    }
}

/*
 * One FPDU from ob[0 ..) at stream position ob_pos (RFC 5044 §4-§6, the
 * layout of offload.h's wire section): a marker at every position that is
 * a multiple of 512 (reserved 0, FPDUPTR back to the ULPDU Length field;
 * 0 for a marker where the FPDU begins), ULPDU Length, ULPDU, pad to a
 * multiple of 4, CRC32c least significant byte first over everything
 * before it (0 without negotiated CRC). Returns the raw bytes it took, 0
 * while the FPDU is incomplete.
 */
static uint32_t out_fpdu(struct ctx *c)
{
    static uint8_t lg[2 + 65535 + 3 + 4];
    bool mk = (c->cfg & 1) != 0;
    uint32_t r = 0, got = 0, want = 2, crc_at = 0, ulen = 0, crc;
    uint64_t hdr;

    if (mk && c->ob_pos % 512u == 0) {
        if (c->ob_len < 4)
            return 0;
        FUZZ_ASSERT(wire_expect_be32(c->ob) == 0);
        r = 4;
    }
    hdr = c->ob_pos + r;
    while (got < want) {
        uint64_t pos = c->ob_pos + r;

        if (mk && pos % 512u == 0 && r != 0) {
            if (r + 4 > c->ob_len)
                return 0;
            FUZZ_ASSERT(be16(c->ob + r) == 0 &&
                        be16(c->ob + r + 2) == pos - hdr);
            r += 4;
            continue;
        }
        if (r >= c->ob_len)
            return 0;
        if (want > 2 && got == want - 4)
            crc_at = r;
        lg[got++] = c->ob[r++];
        if (got == 2) {
            ulen = be16(lg);
            want = 2 + ulen + ((0u - (2 + ulen)) & 3u) + 4;
        }
    }
    crc = (uint32_t)lg[want - 4] | ((uint32_t)lg[want - 3] << 8) |
          ((uint32_t)lg[want - 2] << 16) | ((uint32_t)lg[want - 1] << 24);
    FUZZ_ASSERT(crc == ((c->cfg & 2) ? ref_crc(c->ob, crc_at) : 0u));
    out_ulpdu(c, lg + 2, ulen);
    return r;
}

/* The transmit callback: keeps the outbound stream (iWARP) and parses
 * every whole FPDU in it; when the buffer would overflow, parsing (and
 * every prediction that needs it) stops. */
static int sink(void *ctx, const uint8_t *data, uint32_t len, uint32_t flags)
{
    struct ctx *c = ctx;
    uint32_t k;

    (void)flags;
    c->tx_bytes += len;
    if (!c->out_ok || len == 0 || data == NULL)
        return 0;
    if (len > OB_CAP - c->ob_len) {
        c->out_ok = false;
        return 0;
    }
    memcpy(c->ob + c->ob_len, data, len);
    c->ob_len += len;
    while (c->out_ok && (k = out_fpdu(c)) != 0) {
        memmove(c->ob, c->ob + k, c->ob_len - k);
        c->ob_len -= k;
        c->ob_pos += k;
    }
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
        /* a Read's sink needs local write only (enum ofl_qp_read_sink):
         * named through stag[0] (local rights only) when kind has 0x40,
         * else through stag[1], whose region also grants remote write */
        sge.addr = VA + SINK_AT + (kind & 0x30) * 8;
        sge.stag = (kind & 0x40) ? c->stag[0] : c->stag[1];
    } else if (wr.opcode == OFL_QP_OP_ATOMIC_FADD && (kind & 0x40)) {
        sge.addr = VA + RESULT_AT + (kind & 0x30) * 8;
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

/* iSCSI: a read and write task of another connection (QP 10) in the QP's
 * PD over FOREIGN_AT, which the guard never allows: a target PDU naming it
 * names no task of this QP (offload.h ISCSI_CMD), so no byte of it may be
 * touched. */
static void foreign_task(struct ctx *c)
{
    struct ofl_tpt_region_desc d;
    uint64_t word = ofl_sim_pa(c->mem + FOREIGN_AT) | OFL_TPT_ATT_PRESENT;

    if (ofl_tpt_alloc(&c->tpt, OFL_TPT_ISCSI, 1, 0, &c->itt_foreign) !=
            OFL_OK ||
        ofl_tpt_att_write(&c->tpt, c->att_next, &word, 1) != OFL_OK)
        return;
    memset(&d, 0, sizeof(d));
    d.va = ((uint64_t)3 << 32) | 77u; /* command kinds read and write */
    d.len = 4096;
    d.att_base = c->att_next;
    d.att_count = 1;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE;
    if (ofl_tpt_register_iscsi(&c->tpt, c->itt_foreign, 1, 10, &d) == OFL_OK)
        c->att_next++;
}

static int setup(struct ctx *c, uint8_t cfgb)
{
    struct ofl_qp_attr a;
    struct ofl_qp_mem m;
    struct ofl_mpa_params p;
    int i;

    ofl_sim_init(&c->sim);
    c->sim.trap_violations = true;
    /* the fused copy + CRC hooks, before the stream is established: a
     * speed build places an in-order Write and compares its CRC after */
    ofl_sim_set_fused(&c->sim, (cfgb & 0x80) != 0);
    c->cfg = cfgb;
    /* the outbound stream is FPDUs from its first byte (iWARP) */
    c->out_ok = (cfgb & 4) == 0;
    c->req_msn[OFL_DDP_QN_READ_REQ] = 1;   /* RFC 5041: an MSN starts at 1 */
    c->req_msn[OFL_DDP_QN_ATOMIC_REQ] = 1;
    c->aresp_msn = 1;
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
    /* unpinned pages ("Unpinned pages", offload.h; seed 001) */
    a.fault_wait = (cfgb & 0x40) ? OFL_QP_FAULT_WAIT : OFL_QP_FAULT_FAIL;
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
    if (a.fault_wait) {
        /* a wait changes what a Write or Read does: nothing predicted */
        c->sync = false;
        if (c->stag[1] == 0 ||
            ofl_tpt_unmap_page(&c->tpt, c->stag[1], c->sva[1] + 4096u) !=
                OFL_OK ||
            ofl_tpt_unmap_page(&c->tpt, c->stag[0], VA + RESULT_AT) != OFL_OK)
            return -1;
    }
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
        foreign_task(c);
    }
    (void)ofl_qp_process(&c->qp, 0, 16);
    if (a.fault_wait && a.service == OFL_QP_SVC_ISCSI) {
        /* the commands' buffers, registered by now: their first pages
         * swapped out (a command that did not register: nothing) */
        (void)ofl_tpt_unmap_page(&c->tpt, c->itt[0], 0);
        (void)ofl_tpt_unmap_page(&c->tpt, c->itt[1], 0);
        /* and the first receive slots' page: a PDU to a receive WQE */
        (void)ofl_tpt_unmap_page(&c->tpt, c->stag[0], VA + RECV_AT);
    }
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

/*
 * The harness's verdict on a Read Request or an Atomic Request it built,
 * from its own key table and its own count of the requests the core owes
 * an answer, under the same conditions as predict (and the outbound
 * stream parsed); only well-formed ones (the queue of the opcode, L, MO 0):
 *   - the MSN must be the next of the queue (RFC 5041 §7: 1/2/02 or
 *     1/2/03), and a slot must be free: at most IRD requests outstanding
 *     (the IRD the MPA exchange gave, RFC 6581; offload.h: 1/2/02 when
 *     none is);
 *   - Read Request (RFC 5040 §4.4, FIG. 18A a-f): the Data Source STag
 *     valid, granting remote read, covering [src_to, src_to + size), not a
 *     region under the windows-only policy; a zero-length Read is
 *     predicted only when such a source would also pass (RFC 5040 does
 *     not settle a zero-length Read from a bad source);
 *   - Atomic Request (RFC 7306, offload.h): the target 8-byte aligned
 *     (0/1/01), its STag valid, granting remote atomic, covering
 *     [to, to + 8).
 * A failed key check is 0/1/xx (RFC 5040 §7.2 remote protection, through
 * ofl_tpt_term_cause's RDMAP column): xx 00 for an invalid key (stag 0, a
 * stale key, a region under the windows-only policy), 01 out of bounds or
 * misaligned, 02 missing right; the code is asserted only when one of
 * them applies. *want gets the cause, with *known a bitmask of what is
 * certain (1 layer and type, 2 code).
 */
static enum verdict predict_req(const struct ctx *c,
                                const struct ofl_rdmap_msg *m, unsigned slot,
                                struct ofl_term_cause *want, unsigned *known)
{
    bool rd = m->ddp.opcode == OFL_RDMAP_READ_REQ;
    uint32_t qn = rd ? OFL_DDP_QN_READ_REQ : OFL_DDP_QN_ATOMIC_REQ;
    uint64_t lo = VA + slot_rights[slot].lo, hi = VA + slot_rights[slot].hi;
    uint64_t to = rd ? m->u.read_req.src_to : m->u.atomic_req.to;
    uint64_t n = rd ? m->u.read_req.size : 8u;
    uint8_t need = rd ? OFL_TPT_REMOTE_READ : OFL_TPT_REMOTE_ATOMIC;
    unsigned codes = 0; /* bit x: code x applies */

    *known = 0;
    if (!c->sync || !c->out_ok || c->qp.state != OFL_QP_RTS ||
        m->ddp.qn != qn || !m->ddp.last || m->ddp.mo != 0 || !c->known[slot])
        return V_UNKNOWN;
    if (m->ddp.msn != c->req_msn[qn]) {
        want->layer = OFL_TERM_LAYER_DDP;
        want->etype = OFL_TERM_DDP_UNTAGGED;
        *known = 1;
        return V_TERMINATE;
    }
    if (c->stag[slot] == 0 || slot == 7) {
        codes = 1u << 0;
    } else {
        if (slot_rights[slot].region && (c->cfg & 0x10))
            codes |= 1u << 0;
        if (!(slot_rights[slot].rights & need))
            codes |= 1u << 2;
        if (to < lo || to + n > hi)
            codes |= 1u << 1;
    }
    if (!rd && (to & 7u) != 0)
        codes |= 1u << 1;
    if (rd && n == 0 && (codes != 0 || to >= hi))
        return V_UNKNOWN;
    if (c->rq_n + c->aq_n >= IRD) {
        if (codes == 0) {
            want->layer = OFL_TERM_LAYER_DDP;
            want->etype = OFL_TERM_DDP_UNTAGGED;
            want->ecode = OFL_TERM_DDP_U_INVALID_MSN_NO_BUFFER;
            *known = 3;
        }
        return V_TERMINATE;
    }
    if (codes == 0)
        return V_ACCEPT;
    want->layer = OFL_TERM_LAYER_RDMAP;
    want->etype = OFL_TERM_RDMAP_REMOTE_PROTECTION;
    *known = 1;
    if ((codes & (codes - 1u)) == 0) {
        want->ecode = codes == 1u ? 0x00 : codes == 2u ? 0x01 : 0x02;
        *known = 3;
    }
    return V_TERMINATE;
}

/* The Terminate this event sent: exactly one (offload.h, "Inbound
 * violations"), with the cause asked; for a Read or Atomic Request whose
 * key check failed, the DDP header it terminates (D) and for a Read
 * Request its RDMAP header (R) too (RFC 5040 §4 Terminate Header,
 * ofl_rdmap_term_fill). */
static void check_term(const struct ctx *c, unsigned before,
                       const struct ofl_term_cause *want, unsigned known,
                       const uint8_t *hdr, size_t hl, uint8_t opcode)
{
    const uint8_t *b = c->term + OFL_DDP_UNTAGGED_HDR_LEN;

    if (!c->out_ok)
        return;
    FUZZ_ASSERT(c->terms_out == before + 1);
    if (known & 1)
        FUZZ_ASSERT((b[0] >> 4) == want->layer &&
                    (b[0] & 0x0F) == want->etype);
    if (known & 2)
        FUZZ_ASSERT(b[1] == want->ecode);
    if ((known & 1) && (opcode == OFL_RDMAP_READ_REQ ||
                        opcode == OFL_RDMAP_ATOMIC_REQ)) {
        FUZZ_ASSERT((b[2] & 0x40) &&
                    c->term_len >= OFL_DDP_UNTAGGED_HDR_LEN + 6 +
                                       OFL_DDP_UNTAGGED_HDR_LEN);
        FUZZ_ASSERT(memcmp(b + 6, hdr, OFL_DDP_UNTAGGED_HDR_LEN) == 0);
        if (opcode == OFL_RDMAP_READ_REQ) {
            FUZZ_ASSERT((b[2] & 0x20) &&
                        c->term_len == OFL_DDP_UNTAGGED_HDR_LEN + 6 +
                                           OFL_DDP_UNTAGGED_HDR_LEN +
                                           OFL_RDMAP_READ_REQ_LEN &&
                        hl == OFL_DDP_UNTAGGED_HDR_LEN +
                                  OFL_RDMAP_READ_REQ_LEN);
            FUZZ_ASSERT(memcmp(b + 6 + OFL_DDP_UNTAGGED_HDR_LEN,
                               hdr + OFL_DDP_UNTAGGED_HDR_LEN,
                               OFL_RDMAP_READ_REQ_LEN) == 0);
        }
    }
}

/* RFC 7306 Fetch and Add as offload.h documents it: with Add Mask 0 a
 * plain add; a set mask bit ends a field (no carry out of that bit). */
static uint64_t fetch_add(uint64_t a, uint64_t b, uint64_t mask)
{
    uint64_t r = 0;
    unsigned carry = 0, i;

    for (i = 0; i < 64; i++) {
        unsigned s = (unsigned)((a >> i) & 1u) + (unsigned)((b >> i) & 1u) +
                     carry;

        r |= (uint64_t)(s & 1u) << i;
        carry = (mask >> i) & 1u ? 0u : s >> 1;
    }
    return r;
}

/* The Read Requests whose source key slot names may have ended since
 * (their responses check the source again, FIG. 18A): no longer owed. */
static void unfirm(struct ctx *c, unsigned slot)
{
    unsigned i;

    for (i = 0; i < c->rq_n; i++)
        if (c->rq[(c->rq_head + i) % IRD].slot == slot)
            c->rq[(c->rq_head + i) % IRD].firm = false;
}

/* A Read or Atomic Request the core took: the answer it owes (its
 * expected bytes when predicted; a Read's snapshot is already in its
 * slot). At most IRD are outstanding: the limit the peer was given in the
 * MPA exchange (RFC 6581), which the core enforces (offload.h). */
static void take_req(struct ctx *c, const struct ofl_rdmap_msg *m,
                     bool predicted, unsigned slot, uint32_t off,
                     const uint8_t *pre)
{
    FUZZ_ASSERT(c->rq_n + c->aq_n < IRD);
    if (m->ddp.opcode == OFL_RDMAP_READ_REQ) {
        struct rreq *e = &c->rq[(c->rq_head + c->rq_n) % IRD];

        e->sink_stag = m->u.read_req.sink_stag;
        e->sink_to = m->u.read_req.sink_to;
        e->len = m->u.read_req.size;
        e->done = 0;
        e->src_off = off;
        e->slot = (uint8_t)slot;
        e->data_ok = predicted;
        e->firm = predicted;
        c->rq_n++;
        c->req_msn[OFL_DDP_QN_READ_REQ]++;
    } else {
        struct areq *e = &c->aq[(c->aq_head + c->aq_n) % IRD];

        e->req_id = m->u.atomic_req.req_id;
        e->orig = predicted ? le64(pre + off) : 0;
        e->data_ok = predicted;
        c->aq_n++;
        c->req_msn[OFL_DDP_QN_ATOMIC_REQ]++;
    }
}

/* An FPDU from fields: the fuzzer picks the meaning, the framing is right. */
static void fpdu(struct ctx *c, struct fuzz_in *in)
{
    static uint8_t payload[1500], out[2048], pre[MEM];
    struct ofl_rdmap_msg m;
    uint8_t hdr[OFL_RDMAP_HDR_MAX], k = fuzz_u8(in), sel = fuzz_u8(in);
    uint16_t n = (uint16_t)(fuzz_u16(in) % 1400u), src16, size16;
    size_t hl = 0, len = 0;
    uint32_t i, inv;
    uint64_t recv_id = c->recv_done, to_off = 0;
    enum verdict v;
    enum ofl_err err;
    struct ofl_term_cause want;
    unsigned wknown = 0, terms_before = c->terms_out, slot;
    bool req, was_sync = c->sync && c->out_ok;

    memset(&m, 0, sizeof(m));
    memset(&want, 0, sizeof(want)); /* read only when wknown is set */
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
    src16 = fuzz_u16(in);
    m.u.read_req.src_to = c->sva[(sel >> 3) % NSTAG] + src16;
    size16 = fuzz_u16(in);
    m.u.read_req.size = size16;
    m.u.read_req.sink_stag = 0x4242;
    if (m.ddp.opcode == OFL_RDMAP_READ_REQ)
        m.u.read_req.sink_to = m.ddp.to; /* the Read Responses' TO base */
    if (m.ddp.opcode == OFL_RDMAP_ATOMIC_REQ) {
        /* the request identifier from the bytes a Read's source took */
        m.u.atomic_req.req_id = ((uint32_t)size16 << 16) | src16;
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
    req = m.ddp.opcode == OFL_RDMAP_READ_REQ ||
          m.ddp.opcode == OFL_RDMAP_ATOMIC_REQ;
    slot = m.ddp.opcode == OFL_RDMAP_READ_REQ ? (sel >> 3) % NSTAG
                                               : sel % NSTAG;
    v = req ? predict_req(c, &m, slot, &want, &wknown)
            : predict(c, &m, sel % NSTAG, n);
    if (req && v == V_ACCEPT) {
        /* the memory at the time of the request; for a Read its source
         * bytes go with the request (the next rq[] slot is free: fewer
         * than IRD outstanding) */
        memcpy(pre, c->mem, MEM);
        if (m.ddp.opcode == OFL_RDMAP_READ_REQ) {
            struct rreq *e = &c->rq[(c->rq_head + c->rq_n) % IRD];

            to_off = m.u.read_req.src_to - VA;
            memcpy(e->snap, c->mem + to_off, m.u.read_req.size);
        } else {
            to_off = m.u.atomic_req.to - VA;
        }
    }
    err = feed(c, out, (uint32_t)len, 0);
    if (v == V_TERMINATE) {
        FUZZ_ASSERT(c->qp.state == OFL_QP_TERMINATE && err != OFL_OK);
        check_term(c, terms_before, &want, wknown, hdr, hl, m.ddp.opcode);
    }
    if (v == V_ACCEPT) {
        FUZZ_ASSERT(err == OFL_OK && c->qp.state == OFL_QP_RTS);
        if (m.ddp.opcode == OFL_RDMAP_WRITE) {
            FUZZ_ASSERT(memcmp(c->mem + (m.ddp.to - VA), payload, n) == 0);
        } else if (m.ddp.opcode == OFL_RDMAP_READ_REQ) {
            /* a Read Request places nothing (RFC 5040 §4.4) */
            FUZZ_ASSERT(memcmp(c->mem, pre, MEM) == 0);
        } else if (m.ddp.opcode == OFL_RDMAP_ATOMIC_REQ) {
            /* RFC 7306: the target word (little-endian in host memory,
             * offload.h) and nothing else changed; Fetch and Add's new
             * value as offload.h documents it (Swap and Compare and Swap
             * are not documented there bit by bit: not asserted) */
            const uint8_t *w = c->mem + to_off;

            if (m.u.atomic_req.op == OFL_RDMAP_FETCH_ADD)
                FUZZ_ASSERT(le64(w) ==
                            fetch_add(le64(pre + to_off),
                                      m.u.atomic_req.add_swap,
                                      m.u.atomic_req.add_swap_mask));
            FUZZ_ASSERT(memcmp(c->mem, pre, to_off) == 0 &&
                        memcmp(w + 8, pre + to_off + 8, MEM - to_off - 8) ==
                            0);
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
                          m.ddp.opcode == OFL_RDMAP_SEND_SE_INV))) {
            c->known[i] = false;
            unfirm(c, i);
        }
    /* a request the core took while the harness knew every one before it
     * (RFC 5041: its queue's MSN advances) */
    if (req && was_sync && c->out_ok && err == OFL_OK)
        take_req(c, &m, v == V_ACCEPT, slot, (uint32_t)to_off, pre);
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
    else if (sel >= 0xB0)
        itt = c->itt_foreign; /* another connection's task */
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
            /* the foreign task's command (ID 77) is never ended here */
            FUZZ_ASSERT(e[i].opcode != OFL_QP_OP_ISCSI_RESP ||
                        e[i].imm != 77);
            if (e[i].opcode == OFL_QP_OP_ISCSI_RESP)
                own_drop(&c->own, own_key(OWN_TASK, 0, e[i].imm));
            c->recv_done++;
            FUZZ_ASSERT(c->recv_done <= c->recvs_posted);
            FUZZ_ASSERT(e[i].byte_len <= 512);
        }
    } while (n != 0);
    /* completed WQEs are the consumer's again */
    own_rebuild(&c->sim, &c->own);
    /* a Read source written since its request (a Write, an Atomic, raw
     * bytes): what the rest of its responses carry is no longer known */
    for (i = 0; i < c->rq_n; i++) {
        struct rreq *r = &c->rq[(c->rq_head + i) % IRD];

        if (r->data_ok && memcmp(c->mem + r->src_off + r->done,
                                 r->snap + r->done, r->len - r->done) != 0)
            r->data_ok = false;
    }
}

/* The end of an input: while still in sync and in RTS, with every
 * outstanding Read's source untouched since, one ofl_qp_process with a
 * budget above what the answers need (inbound requests go first) must
 * send every Read Response and Atomic Response still owed. */
static void drain(struct ctx *c, unsigned events)
{
    bool owed = c->sync && c->qp.state == OFL_QP_RTS;
    unsigned i;

    if (!c->out_ok || c->rq_n + c->aq_n == 0)
        return;
    for (i = 0; i < c->rq_n; i++)
        owed = owed && c->rq[(c->rq_head + i) % IRD].firm;
    (void)ofl_qp_process(&c->qp, events, 8u * IRD * (SNAP / 1024u));
    check(c);
    if (owed && c->out_ok)
        FUZZ_ASSERT(c->rq_n == 0 && c->aq_n == 0);
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
        case 3: {
            uint8_t b = fuzz_u8(&in);

            /* MapLocalPage of the page a wait names (its own pa: the
             * keys map va 0x10000000 + off to mem + off) */
            if ((b & 0x80) && g->qp.attr.fault_wait &&
                g->qp.fault.where != OFL_QP_FAULT_NONE &&
                g->qp.fault.va - 0x10000000ull < MEM)
                (void)ofl_tpt_map_page(
                    &g->tpt, g->qp.fault.stag, g->qp.fault.va,
                    ofl_sim_pa(g->mem + ((g->qp.fault.va - 0x10000000ull) &
                                         ~(uint64_t)4095u)));
            /* iSCSI: the va is the offset in the command's buffer */
            if ((b & 0x80) && g->qp.attr.fault_wait &&
                g->qp.attr.service == OFL_QP_SVC_ISCSI &&
                g->qp.fault.where != OFL_QP_FAULT_NONE &&
                g->qp.fault.va < 4096u &&
                (g->qp.fault.stag == g->itt[0] ||
                 g->qp.fault.stag == g->itt[1]))
                (void)ofl_tpt_map_page(
                    &g->tpt, g->qp.fault.stag, g->qp.fault.va,
                    ofl_sim_pa(g->mem +
                               ((g->qp.fault.stag == g->itt[0] ? 45056u
                                                                : 49252u) +
                                (uint32_t)g->qp.fault.va) /
                                   4096u * 4096u));
            (void)ofl_qp_process(&g->qp, events, b);
            break;
        }
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
    drain(g, events);
    return 0;
}
