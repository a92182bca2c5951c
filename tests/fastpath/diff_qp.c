/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The qp engine's fast paths against its general paths (issue 30): this
 * file is built twice by tests/check_fastpath.sh, once with the core as
 * shipped (FP_RUN = fp_run_fast) and once with the core built with
 * OFL_NO_FAST_PATH (FP_RUN = fp_run_gen), each linked with its own copy of
 * the sim port and the qp rig into one object that exports FP_RUN alone;
 * diff_main.c runs both on the same seeds and compares the digests.
 *
 * One run: two QPs over the in-memory wire (CRC, markers, EMSS and host
 * rings drawn from the seed), a registered buffer on each side (page
 * aligned or not, zero-based or not, its pages in order or scattered),
 * then a few messages: Sends of one
 * to three data segments (offsets and lengths across page ends, zero
 * lengths, a bad key, a segment past the region's end) into receives of
 * their own shapes, and RDMA Writes to the peer's buffer (in bounds and
 * out). Hostile turns between messages: a page word of either side made
 * absent or given a reserved bit or restored, two pages swapped (a
 * scattered region), a DMA made to fail; and either side's region entry
 * changed (rights, PD, key, state, length, VA, type) before a message or
 * mid-message (after one step of the sender), then restored. The
 * digest takes in every return code, every completion field, both sides'
 * QP state, statistics and sim counters (violations included) and every
 * byte of both buffers: it must be the same for both builds.
 *
 * A second stream of draws (s2, so that the draws above stay as they
 * were) turns some messages into RDMA Reads of the peer's buffer (the
 * Read Response's segmenting, header build and parse) and some Sends into
 * Sends with Invalidate (the untagged header's Invalidate STag), and
 * feeds ofl_rdmap_parse ULPDUs of drawn bytes, mostly with a tagged or
 * untagged data header's control bytes (versions, opcode, reserved bits
 * and length drawn near the edges): its result, cause and every byte of
 * the message it fills go into the digest.
 *
 * A fourth stream (s4) ends each run with work requests the rules refuse
 * or pass, posted and written over in the send ring (fp_rules): the fast
 * paths past the generic WR rules at post and at fetch time.
 *
 * A fifth stream (s5) puts the whole-message paths (qp_sq_whole,
 * qp_rx_whole) past the general path's ways out: both QPs waiting on
 * unpinned pages (OFL_QP_FAULT_WAIT) in some runs, and per message a
 * solicited or fenced work request, and transmissions refused by either
 * side's wire (the WQE rebuilt and sent again on a later pump).
 *
 * A sixth stream (s6) ends each run with a rig of its own (fresh QPs, so
 * that the errors of the run above do not stop it), each side's pages
 * mostly in reverse order (fp_aimed): Sends of one data segment into
 * receives of one data segment whose payload ends a byte before, at or a
 * byte after one of the receiver's page ends, and messages of one data
 * segment in more than one FPDU whose first FPDU's payload ends so by one
 * of the sender's. The whole receive, and the sender's message of several
 * FPDUs, keep the translation of a segment's first page from its check to
 * the DMA (qp_check_local_keep) only when the bytes lie in that page: a
 * wrong page, offset or bound there moves bytes of another page of a
 * scattered region, which the digest sees.
 *
 * A seventh stream (s7) makes, now and then, one TPT verb on the sender's
 * side inside its transmit callback, after the first FPDU of a message
 * went (fp_aimed): the source region invalidated, invalidated and
 * registered again as it was, or registered again shorter (the message's
 * later FPDUs then fall outside it), or an unrelated region registered.
 * The several-FPDU send keeps its segment's check across its FPDUs while
 * the region's generation holds (qp_sq_whole_kept); the general path
 * checks each FPDU: the two must agree.
 *
 * A ninth stream (s9) does the same on the receiver's side of
 * fp_aimed's messages: now and then, after the first or second segment
 * of a message reached the receiver (the rig's after_segment hook), one
 * TPT verb on a Write's target: the region invalidated, registered again
 * without Remote Write, registered again shorter, or registered again as
 * it was, or, for a Write through a window bound over the region, the
 * window invalidated. The whole receive of a Write keeps the region its
 * check granted from one FPDU to the message's next while the region's
 * generation holds (qp_rx_kept), and never a window's; the general path
 * checks each FPDU: the two must agree.
 *
 * An eighth stream (s8) makes a third of the runs' wires coalesce: a
 * segment is cut at mss only, so it may hold the end of one transmission
 * and the start of the next, and ofl_qp_input's first FPDU, taken whole
 * (qp_rx_send_segment, qp_rx_write_segment), leaves bytes after it for
 * qp_rx_stream.
 */
#include <stdint.h>
#include <string.h>

#include "qp_rig.h"
#include "fp_rand.h"

#ifndef FP_RUN
#define FP_RUN fp_run_fast
#endif

uint64_t FP_RUN(uint32_t seed);

#define FP_PAGES 5u
#define FP_LEN (FP_PAGES * 4096u)

static uint32_t fp_len(uint32_t *s)
{
    static const uint32_t lens[] = {0, 1, 7, 64, 100, 1000, 1460, 2000,
                                    4095, 4096, 4097, 6000, 9000};

    return lens[fp_rnd(s) % (sizeof(lens) / sizeof(lens[0]))];
}

/* An SGE of the buffer at p (base: its TO base) with a drawn shape. */
static void fp_sge(uint32_t *s, struct ofl_qp_sge *g, uint64_t base,
                   uint32_t stag)
{
    uint32_t k = fp_rnd(s), off, len = fp_len(s);

    if (k % 4 == 0) {
        /* Ends a byte before, at or a byte after a page end. */
        uint32_t end = 4096u * (1 + (k >> 4) % FP_PAGES) + (k >> 8) % 3 - 1;

        len = len % end;
        off = end - len;
    } else if (k % 4 == 1) {
        off = 4096u * ((k >> 4) % FP_PAGES) + (k >> 8) % 3; /* page start */
    } else {
        off = (k >> 2) % FP_LEN;
    }
    if (fp_rnd(s) % 8 != 0 && off + len > FP_LEN) /* mostly in bounds */
        len = off < FP_LEN ? FP_LEN - off : 0;
    g->addr = base + off;
    g->len = len;
    g->stag = fp_rnd(s) % 32 == 0 ? stag ^ 1u : stag; /* a bad key */
}

/* ofl_rdmap_parse on n drawn ULPDUs (the header parse's fast path for
 * tagged data headers against the general parse). */
static uint64_t fp_parse(uint64_t h, uint32_t *s, uint32_t n)
{
    static const uint8_t ops[] = {OFL_RDMAP_WRITE, OFL_RDMAP_READ_RESP,
                                  OFL_RDMAP_SEND, OFL_RDMAP_READ_REQ};
    uint8_t u[48], m[sizeof(struct ofl_rdmap_msg)];
    struct ofl_rdmap_msg msg;
    struct ofl_term_cause c;
    uint32_t i, j, len, k;
    enum ofl_err err;

    for (i = 0; i < n; i++) {
        for (j = 0; j < sizeof(u); j++)
            u[j] = (uint8_t)fp_rnd(s);
        k = fp_rnd(s);
        len = k % 4 == 0 ? fp_rnd(s) % (sizeof(u) + 1)
                         : 12 + fp_rnd(s) % 10; /* around 14 and 18 */
        if (k & 0x10) { /* a data header's control bytes, mostly valid */
            u[0] = (uint8_t)((k & 0x20 ? 0x80u : 0u) | (k & 0x40 ? 0x40u : 0u) |
                             (k & 0x80 ? (u[0] & 0x3Cu) : 0u) |
                             ((k >> 8) % 8 == 0 ? (k >> 11) & 3u : 1u));
            u[1] = (uint8_t)((((k >> 13) % 8 == 0 ? (k >> 16) & 3u : 1u) << 6) |
                             (k & 0x80000 ? (u[1] & 0x30u) : 0u) |
                             ((k >> 20) % 8 == 0 ? (k >> 23) & 0xFu
                                                 : ops[(k >> 27) % 4]));
        }
        memset(&msg, 0xA5, sizeof(msg));
        memset(&c, 0x5A, sizeof(c));
        err = ofl_rdmap_parse(u, len, &msg, &c);
        h = fp_mix(h, (uint64_t)err);
        if (err != OFL_OK) {
            h = fp_mix(h, ((uint64_t)c.layer << 16) | ((uint64_t)c.etype << 8) |
                              c.ecode);
            continue;
        }
        h = fp_mix(h, (uint64_t)(msg.payload - u));
        h = fp_mix(h, msg.payload_len);
        msg.payload = NULL; /* an address: the rest is compared bytewise */
        memcpy(m, &msg, sizeof(msg));
        for (j = 0; j < sizeof(m); j++)
            h = fp_mix(h, m[j]);
    }
    return h;
}

/* ofl_rdmap_parse on n drawn untagged ULPDUs, mostly on queue 0 (the
 * header parse's fast path for the four Sends against the general parse):
 * every opcode, the versions, the reserved bits, the queue number and the
 * length drawn near their edges. Its own stream of draws (s), so that the
 * draws of fp_parse and the run stay as they were. */
static uint64_t fp_parse_untagged(uint64_t h, uint32_t *s, uint32_t n)
{
    uint8_t u[48], m[sizeof(struct ofl_rdmap_msg)];
    struct ofl_rdmap_msg msg;
    struct ofl_term_cause c;
    uint32_t i, j, len, k;
    enum ofl_err err;

    for (i = 0; i < n; i++) {
        for (j = 0; j < sizeof(u); j++)
            u[j] = (uint8_t)fp_rnd(s);
        k = fp_rnd(s);
        len = k % 8 == 0 ? fp_rnd(s) % (sizeof(u) + 1)
                         : 16 + fp_rnd(s) % 6; /* around 18 */
        u[0] = (uint8_t)((k & 0x8 ? 0x40u : 0u) |
                         (k & 0x10 ? (u[0] & 0x3Cu) : 0u) |
                         ((k >> 5) % 8 == 0 ? (k >> 8) & 3u : 1u) |
                         ((k >> 10) % 16 == 0 ? 0x80u : 0u));
        u[1] = (uint8_t)((((k >> 14) % 8 == 0 ? (k >> 17) & 3u : 1u) << 6) |
                         (k & 0x80000 ? (u[1] & 0x30u) : 0u) |
                         ((k >> 20) % 4 == 0 ? (k >> 22) & 0xFu
                                             : 3u + (k >> 26) % 4u));
        if ((k >> 28) % 4 != 0) { /* queue 0, else a drawn queue number */
            u[6] = u[7] = u[8] = 0;
            u[9] = (k >> 30) == 0 ? (uint8_t)(fp_rnd(s) % 3) : 0;
        }
        memset(&msg, 0xA5, sizeof(msg));
        memset(&c, 0x5A, sizeof(c));
        err = ofl_rdmap_parse(u, len, &msg, &c);
        h = fp_mix(h, (uint64_t)err);
        if (err != OFL_OK) {
            h = fp_mix(h, ((uint64_t)c.layer << 16) | ((uint64_t)c.etype << 8) |
                              c.ecode);
            continue;
        }
        h = fp_mix(h, (uint64_t)(msg.payload - u));
        h = fp_mix(h, msg.payload_len);
        msg.payload = NULL; /* an address: the rest is compared bytewise */
        memcpy(m, &msg, sizeof(msg));
        for (j = 0; j < sizeof(m); j++)
            h = fp_mix(h, m[j]);
    }
    return h;
}

static uint64_t fp_side(uint64_t h, struct qr_side *x, const uint8_t *buf)
{
    struct ofl_cqe e[8];
    uint32_t n, i, k;
    int send;

    for (send = 0; send < 2; send++)
        while ((n = qr_poll(x, send != 0, e, 8)) != 0)
            for (i = 0; i < n; i++) {
                h = fp_mix(h, e[i].wr_id);
                h = fp_mix(h, e[i].imm);
                h = fp_mix(h, e[i].byte_len);
                h = fp_mix(h, e[i].qpn);
                h = fp_mix(h, e[i].stag);
                h = fp_mix(h, e[i].opcode);
                h = fp_mix(h, e[i].status);
                h = fp_mix(h, e[i].flags);
                h = fp_mix(h, ((uint64_t)e[i].src_addr << 32) | e[i].src_qpn);
            }
    h = fp_mix(h, x->qp.state);
    h = fp_mix(h, x->qp.stats.tx_fpdus);
    h = fp_mix(h, x->qp.stats.rx_fpdus);
    h = fp_mix(h, x->qp.stats.tx_bytes);
    h = fp_mix(h, x->qp.stats.rx_bytes);
    h = fp_mix(h, x->sim.violations);
    h = fp_mix(h, x->sim.dma_reads);
    h = fp_mix(h, x->sim.dma_writes);
    h = fp_mix(h, x->sim.bytes_read);
    h = fp_mix(h, x->sim.bytes_written);
    h = fp_mix(h, x->tx_calls);
    for (i = 0; i < FP_LEN; i += 8) {
        uint64_t w = 0;

        for (k = 0; k < 8; k++)
            w = (w << 8) | buf[i + k];
        h = fp_mix(h, w);
    }
    return h;
}

/* A hostile turn on one side's region: a page word made absent, given a
 * reserved bit, or restored; or the next DMAs made to fail. */
static void fp_hostile(uint32_t *s, struct qr_side *x, uint32_t att0,
                       const uint64_t *saved)
{
    uint32_t k = fp_rnd(s), page = (k >> 8) % (FP_PAGES + 1);

    switch (k % 10) {
    case 0:
        x->att[att0 + page] &= ~(uint64_t)1; /* absent */
        break;
    case 1:
        x->att[att0 + page] |= 0x10; /* a reserved bit */
        break;
    case 2:
        x->att[att0 + page] = saved[page];
        break;
    case 3:
        x->sim.fail_dma_countdown = 1 + (long)((k >> 4) % 4);
        break;
    case 4:
    case 5:
        if (page < FP_PAGES) { /* two pages swap places: scattered */
            uint64_t w = x->att[att0 + page];

            x->att[att0 + page] = x->att[att0 + page + 1];
            x->att[att0 + page + 1] = w;
        }
        break;
    default:
        break;
    }
}

/*
 * Work requests the rules refuse or pass (a fourth stream of draws, so
 * that the draws above stay as they were): every opcode from 0 to 20
 * with flags and segment counts drawn near their edges (one flag bit too
 * many, one segment too many, a Read of two segments, an atomic's
 * segment of 8 bytes or not, a misaligned atomic TO), posted (the rules
 * at post time: qp_op_check, qp_op_rules, and their fast paths); and,
 * on a QP whose send ring is the engine's own, a posted Send whose
 * opcode, flags and segment count are then written over in the ring
 * before the engine fetches it (the same rules at fetch time). Each post's
 * code, then what the engine made of it, go into the digest.
 */
static uint64_t fp_rules(uint64_t h, struct qr_rig *r, uint32_t *s,
                         uint64_t *now, uint64_t ba, uint32_t la)
{
    struct ofl_qp *qp = &r->a.qp;
    struct ofl_qp_sge sg[QR_SGE + 1];
    struct ofl_qp_wr wr;
    uint32_t i, j, k;

    for (i = 0; i < 16; i++) {
        k = fp_rnd(s);
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = 300 + i;
        wr.opcode = (uint8_t)(k % 21);
        /* the defined flags are the low four bits (OFL_QP_WR_SILENT is
         * 0x08): 0x10 is one bit too many */
        wr.flags = (uint8_t)((k >> 8) % 8 == 0 ? 0x10u | ((k >> 11) % 16)
                                                : (k >> 11) % 16);
        wr.num_sge = (k >> 14) % (QR_SGE + 2);
        for (j = 0; j < wr.num_sge; j++) {
            sg[j].addr = ba + 8u * j;
            sg[j].len = (k >> 17) % 2 ? 8u : 16u;
            sg[j].stag = la;
        }
        wr.sge = sg;
        wr.remote_to = (k >> 18) % 2 ? 64u : 65u;
        wr.imm = 3;
        h = fp_mix(h, (uint64_t)qr_post_send(&r->a, &wr));
        k = fp_rnd(s);
        if (k % 2 == 0 && !qp->sq.host) {
            wr.opcode = OFL_QP_OP_SEND;
            wr.flags = OFL_QP_WR_SIGNALED;
            wr.num_sge = 0;
            if (qr_post_send(&r->a, &wr) == OFL_OK) {
                uint8_t *w = qp->sq.ring + ((qp->sq.pi - 1u) &
                                            (qp->sq.depth - 1u)) *
                                               qp->sq.stride;

                w[OFL_SWQE_OPCODE] = (uint8_t)((k >> 1) % 21);
                w[OFL_SWQE_FLAGS] = (uint8_t)((k >> 6) % 16);
                w[OFL_SWQE_NUM_SGE] = (uint8_t)((k >> 10) % (QR_SGE + 2));
            }
        }
        h = fp_mix(h, (uint64_t)qr_pump(r, (*now)++));
        h = fp_mix(h, qp->state);
    }
    return h;
}

/* A page end of the buffer at p, as an offset in it: the first more than
 * min bytes in, then k more pages on. */
static uint32_t fp_page_end(const uint8_t *p, uint32_t min, uint32_t k)
{
    const uintptr_t a = (uintptr_t)p;

    return (uint32_t)(((a + min + 4096u * (1 + k)) & ~(uintptr_t)4095) - a);
}

/* Reverses the order of a region's pages (att0: its first page word):
 * scattered, an access across a page end takes two pieces. */
static void fp_scatter(struct qr_side *x, uint32_t att0)
{
    uint32_t i;

    for (i = 0; i < (FP_PAGES + 1) / 2; i++) {
        uint64_t w = x->att[att0 + i];

        x->att[att0 + i] = x->att[att0 + FP_PAGES - i];
        x->att[att0 + FP_PAGES - i] = w;
    }
}

/* fp_aimed's transmit callback on the sender's side: the rig's own, then
 * (the countdown at 0, after an FPDU went) one TPT verb on the source
 * region's STag (what: FP_TX_*), once. */
enum { FP_TX_NONE, FP_TX_INVAL, FP_TX_AGAIN, FP_TX_SHORTER, FP_TX_OTHER };
static struct {
    ofl_qp_transmit_fn orig;
    struct qr_side *x;
    uint8_t *other; /* 64 bytes for FP_TX_OTHER's region */
    uint32_t stag, countdown, what, done;
    uint64_t h;     /* the verbs' codes */
} fp_tx;

/* Registers the (invalidated) region of *stag again as it was, len bytes
 * long, with the rights access (FP_AS_WAS: its own): its entry's fields,
 * read, under the next key (a re-registration must change the key:
 * OFL_E_TPT_KEY_REUSED), which *stag then has. */
#define FP_AS_WAS 0xFFu
static enum ofl_err fp_tx_register(struct qr_side *x, uint32_t *stag,
                                   uint64_t len, uint8_t access)
{
    const struct ofl_tpt_entry *e = &x->tpt.entry[ofl_stag_index(*stag)];
    const uint32_t next = (*stag & ~0xFFu) | ((*stag + 1u) & 0xFFu);
    struct ofl_tpt_region_desc d;
    enum ofl_err err;

    memset(&d, 0, sizeof(d));
    d.va = e->va;
    d.len = len;
    d.att_base = e->att_base;
    d.att_count = e->att_count;
    d.fpo = e->fpo;
    d.page_shift = e->page_shift;
    d.att_kind = e->att_kind;
    d.access = access == FP_AS_WAS ? e->access : access;
    d.flags = e->flags;
    err = ofl_tpt_register(&x->tpt, next, x->attr.pd, &d);
    if (err == OFL_OK)
        *stag = next;
    return err;
}

/* fp_aimed's receiver-side verb (s9): after countdown more segments
 * reached the receiver, one TPT verb (what: FP_RX_*) on the Write's
 * target stag (the region, or a window over it), once. */
enum { FP_RX_NONE, FP_RX_INVAL, FP_RX_RIGHTS, FP_RX_SHORTER, FP_RX_AGAIN };
static struct {
    struct qr_side *x;
    uint32_t stag, region, countdown, what, done, type2;
    uint64_t h;
} fp_rx;

static void fp_rx_then(void *ctx)
{
    struct qr_side *x = fp_rx.x;
    enum ofl_err err;

    (void)ctx;
    if (fp_rx.what == FP_RX_NONE || fp_rx.countdown-- != 0)
        return;
    if (fp_rx.stag != fp_rx.region && !fp_rx.type2) /* unbound */
        err = ofl_tpt_bind(&x->tpt, fp_rx.stag, 0, x->attr.pd, x->attr.qpn,
                           0, 0, 0, 0, NULL);
    else
        err = ofl_tpt_invalidate_local(&x->tpt, fp_rx.stag, x->attr.pd);
    if (err == OFL_OK && fp_rx.stag == fp_rx.region &&
        fp_rx.what != FP_RX_INVAL)
        err = fp_tx_register(
            x, &fp_rx.region,
            fp_rx.what == FP_RX_SHORTER ? 2000 : FP_LEN,
            fp_rx.what == FP_RX_RIGHTS
                ? (uint8_t)(x->tpt.entry[ofl_stag_index(fp_rx.stag)].access &
                            ~OFL_TPT_REMOTE_WRITE)
                : FP_AS_WAS);
    fp_rx.h = fp_mix(fp_mix(fp_rx.h, fp_rx.what), (uint64_t)err);
    fp_rx.what = FP_RX_NONE;
    fp_rx.done = 1;
}

static int fp_tx_then(void *ctx, const uint8_t *data, uint32_t len,
                      uint32_t flags)
{
    int ret = fp_tx.orig(ctx, data, len, flags);
    struct qr_side *x = fp_tx.x;
    enum ofl_err err = OFL_OK;

    if (ret != 0 || fp_tx.what == FP_TX_NONE || fp_tx.countdown-- != 0)
        return ret;
    if (fp_tx.what != FP_TX_OTHER)
        err = ofl_tpt_invalidate_local(&x->tpt, fp_tx.stag, x->attr.pd);
    if (err == OFL_OK && fp_tx.what == FP_TX_AGAIN)
        err = fp_tx_register(x, &fp_tx.stag,
                             x->tpt.entry[ofl_stag_index(fp_tx.stag)].len,
                             FP_AS_WAS);
    else if (err == OFL_OK && fp_tx.what == FP_TX_SHORTER)
        err = fp_tx_register(x, &fp_tx.stag, 2000, FP_AS_WAS);
    else if (fp_tx.what == FP_TX_OTHER)
        err = qr_reg(x, fp_tx.other, 64, OFL_TPT_LOCAL_READ, 0) != 0
                  ? OFL_OK
                  : OFL_E_ARG;
    fp_tx.h = fp_mix(fp_mix(fp_tx.h, fp_tx.what), (uint64_t)err);
    fp_tx.what = FP_TX_NONE;
    fp_tx.done = 1;
    return ret;
}

/* fp_aimed's run on a rig of opts o (see the file's head); s: its draws.
 * Each message is one of two kinds: a Send of len bytes whose payload
 * ends by a page end of the receiver's segment (the receive keeps its
 * translation), or a message of one data segment in more than one FPDU
 * (a Write, or a Send into a receive that holds it) whose first FPDU's
 * bytes end by a page end of the sender's segment (qp_sq_whole_multi
 * keeps their translation from the segment's check). */
static uint64_t fp_aimed(uint64_t h, const struct qr_opts *o, uint32_t *s,
                         uint32_t *s7, uint32_t *s9)
{
    static const uint32_t lens[] = {1, 8, 64, 100, 1000, 1460};
    struct qr_rig *r = qr_new(o);
    uint64_t sav[FP_PAGES + 1], sava[FP_PAGES + 1], now = 1, bb;
    uint8_t *pa, *pb;
    uint32_t la, lb, atta, att, i, m;
    uint8_t fb;

    if (r == NULL)
        return fp_mix(h, 1);
    pa = qr_alloc(&r->a, FP_LEN + 4096, true);
    pb = qr_alloc(&r->b, FP_LEN + 4096, true);
    if (pa == NULL || pb == NULL) {
        qr_free(r);
        return fp_mix(h, 2);
    }
    pb += fp_rnd(s) % 2 ? 0 : 1 + fp_rnd(s) % 4000;
    pa += fp_rnd(s) % 2 ? 0 : 1 + fp_rnd(s) % 4000;
    for (i = 0; i < FP_LEN; i++)
        pa[i] = (uint8_t)fp_rnd(s);
    fb = fp_rnd(s) % 3 == 0 ? OFL_TPT_F_ZERO_BASED : 0;
    atta = r->a.att_next;
    /* invalidatable: fp_tx_then's verbs */
    la = qr_reg(&r->a, pa, FP_LEN, OFL_TPT_LOCAL_READ,
                OFL_TPT_F_INVALIDATABLE);
    memset(&fp_tx, 0, sizeof(fp_tx));
    fp_tx.orig = r->a.qp.attr.transmit;
    fp_tx.x = &r->a;
    fp_tx.other = qr_alloc(&r->a, 64, false);
    fp_tx.stag = la;
    r->a.qp.attr.transmit = fp_tx_then;
    att = r->b.att_next;
    /* invalidatable, windows bound: fp_rx_then's verbs */
    lb = qr_reg(&r->b, pb, FP_LEN,
                OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE |
                    OFL_TPT_BIND_WINDOW,
                fb | OFL_TPT_F_INVALIDATABLE);
    memset(&fp_rx, 0, sizeof(fp_rx));
    fp_rx.x = &r->b;
    fp_rx.region = lb;
    r->ab.after_segment = fp_rx_then;
    bb = fb ? 0 : (uint64_t)(uintptr_t)pb;
    if (fp_rnd(s) % 4 != 0) /* mostly scattered */
        fp_scatter(&r->b, att);
    if (fp_rnd(s) % 4 != 0)
        fp_scatter(&r->a, atta);
    for (i = 0; i <= FP_PAGES; i++) {
        sav[i] = r->b.att[att + i];
        sava[i] = r->a.att[atta + i];
    }
    m = 2 + fp_rnd(s) % 4;
    for (i = 0; i < m; i++) {
        struct ofl_qp_recv_wr rw;
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sg, rg;
        const uint32_t k = fp_rnd(s);
        uint32_t len = lens[k % 6], off, src;

        if (fp_rnd(s) % 5 == 0)
            fp_hostile(s, &r->b, att, sav);
        if (fp_rnd(s) % 5 == 0)
            fp_hostile(s, &r->a, atta, sava);
        memset(&wr, 0, sizeof(wr));
        memset(&rw, 0, sizeof(rw));
        wr.wr_id = 400 + i;
        wr.flags = OFL_QP_WR_SIGNALED;
        wr.opcode = (k >> 20) % 3 == 0 ? OFL_QP_OP_WRITE : OFL_QP_OP_SEND;
        if ((k >> 22) % 2 == 0) {
            /* The receiver's page end: the payload's end a byte before
             * it, at it or a byte after. */
            wr.opcode = OFL_QP_OP_SEND;
            off = fp_page_end(pb, 0, 1 + (k >> 4) % 3) + (k >> 8) % 3 - 1 -
                  len;
            src = (k >> 16) % (FP_LEN - len);
        } else {
            /* The sender's: the first FPDU's payload (max bytes) ends a
             * byte before, at or a byte after it, and the message goes
             * on past max (within the buffer, when it can). */
            const uint32_t max =
                r->a.qp.tx.mulpdu - (wr.opcode == OFL_QP_OP_WRITE
                                         ? OFL_DDP_TAGGED_HDR_LEN
                                         : OFL_DDP_UNTAGGED_HDR_LEN);

            src = fp_page_end(pa, max, (k >> 4) % 2) + (k >> 8) % 3 - 1 - max;
            len = max + 1 + (k >> 12) % 2000;
            if (src + len > FP_LEN)
                len = FP_LEN - src;
            off = (k >> 16) % (FP_LEN - len);
        }
        rg.addr = bb + off;
        /* the segment as long as the payload, or longer */
        rg.len = (k >> 23) % 2 || off + len + 3000 > FP_LEN ? len : len + 3000;
        rg.stag = lb;
        if (wr.opcode == OFL_QP_OP_WRITE) {
            wr.remote_stag = lb;
            wr.remote_to = rg.addr;
            /* now and then a TPT verb on the target after the message's
             * first or second segment (fp_rx_then); through a window
             * over the region now and then (not zero-based: the window's
             * TOs are the region's VAs) */
            if (fp_rnd(s9) % 3 == 0) {
                const uint32_t v = fp_rnd(s9);

                fp_rx.stag = lb;
                fp_rx.type2 = (v >> 2) % 2;
                if (fb == 0 && v % 3 == 0)
                    fp_rx.stag = qr_window(&r->b, lb, pb, FP_LEN,
                                           OFL_TPT_REMOTE_WRITE, 0,
                                           fp_rx.type2);
                h = fp_mix(h, fp_rx.stag != 0);
                if (fp_rx.stag != 0) {
                    wr.remote_stag = fp_rx.stag;
                    fp_rx.what = 1 + (v >> 4) % 4;
                    fp_rx.countdown = (v >> 6) % 2;
                }
            }
        } else {
            rw.wr_id = 300 + i;
            rw.sge = &rg;
            rw.num_sge = 1;
            h = fp_mix(h, (uint64_t)ofl_qp_post_recv(&r->b.qp, &rw));
            if (r->b.qp.rq.host)
                (void)ofl_qp_doorbell(&r->b.qp, OFL_QP_RING_RQ,
                                      r->b.qp.rq.pi);
        }
        sg.addr = (uint64_t)(uintptr_t)pa + src;
        sg.len = len;
        sg.stag = la;
        wr.sge = &sg;
        wr.num_sge = 1;
        h = fp_mix(h, (uint64_t)qr_post_send(&r->a, &wr));
        /* now and then a TPT verb after the message's first FPDU (the
         * source region: fp_tx_then) */
        if (fp_tx.what == FP_TX_NONE && fp_rnd(s7) % 4 == 0) {
            fp_tx.what = 1 + fp_rnd(s7) % 4;
            fp_tx.countdown = 0;
        }
        h = fp_mix(h, (uint64_t)qr_pump(r, now++));
        h = fp_mix(h, fp_tx.h);
        if (fp_tx.done) { /* the region whole again for what follows */
            const struct ofl_tpt_entry *e =
                &r->a.tpt.entry[ofl_stag_index(la)];

            la = fp_tx.stag; /* its key, when registered again */
            if (e->state == OFL_TPT_VALID && e->len != FP_LEN)
                h = fp_mix(h, (uint64_t)ofl_tpt_invalidate_local(
                                  &r->a.tpt, la, r->a.attr.pd));
            if (e->state == OFL_TPT_INVALID)
                h = fp_mix(h, (uint64_t)fp_tx_register(&r->a, &la, FP_LEN,
                                                       FP_AS_WAS));
            fp_tx.stag = la;
            fp_tx.done = 0;
        }
        h = fp_mix(h, fp_rx.h);
        fp_rx.what = FP_RX_NONE;
        if (fp_rx.done) { /* the target's region whole again */
            const struct ofl_tpt_entry *e =
                &r->b.tpt.entry[ofl_stag_index(lb)];

            lb = fp_rx.region; /* its key, when registered again */
            if (e->state == OFL_TPT_VALID &&
                (e->len != FP_LEN || !(e->access & OFL_TPT_REMOTE_WRITE)))
                h = fp_mix(h, (uint64_t)ofl_tpt_invalidate_local(
                                  &r->b.tpt, lb, r->b.attr.pd));
            if (e->state == OFL_TPT_INVALID)
                h = fp_mix(h, (uint64_t)fp_tx_register(
                                  &r->b, &lb, FP_LEN,
                                  OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE |
                                      OFL_TPT_BIND_WINDOW));
            fp_rx.region = lb;
            fp_rx.done = 0;
        }
        h = fp_side(h, &r->a, pa);
        h = fp_side(h, &r->b, pb);
    }
    qr_free(r);
    return h;
}

uint64_t FP_RUN(uint32_t seed)
{
    static const uint32_t emss[] = {0, 128, 300, 1460, 9000};
    struct qr_opts o;
    struct qr_rig *r;
    uint32_t s = seed * 2654435761u + 0x1234567u, i, j, m;
    uint32_t s2 = seed * 0x9E3779B9u + 0x7F4A7C15u, s3, s4;
    uint32_t s5 = seed * 0x165667B1u + 0x27D4EB2Fu, s6, s7, s8, s9;
    uint32_t la, lb, atta, attb;
    uint64_t h = seed, ba, bb, sava[FP_PAGES + 1], savb[FP_PAGES + 1];
    uint8_t *pa, *pb, fa, fb;
    uint64_t now = 1;

    if (s == 0)
        s = 1;
    if (s2 == 0)
        s2 = 1;
    h = fp_parse(h, &s2, 24);
    s3 = seed * 0x85EBCA6Bu + 0xC2B2AE35u;
    if (s3 == 0)
        s3 = 1;
    h = fp_parse_untagged(h, &s3, 24);
    memset(&o, 0, sizeof(o));
    o.crc = fp_rnd(&s) % 2;
    o.markers = fp_rnd(&s) % 4 == 0;
    o.emss = emss[fp_rnd(&s) % 5];
    o.host_rings = fp_rnd(&s) % 3 == 0;
    if (s5 == 0)
        s5 = 1;
    o.fault_wait = fp_rnd(&s5) % 4 == 0 ? OFL_QP_FAULT_WAIT : 0;
    r = qr_new(&o);
    if (r == NULL)
        return 1;
    /* From an eighth stream (the draws above stay as they were): a third
     * of the runs, each direction of the wire cuts its bytes at mss only,
     * so that a segment holds the end of one transmission and the start
     * of the next (ofl_qp_input's first FPDU taken whole, the rest of the
     * segment to qp_rx_stream). */
    s8 = seed * 0x2545F491u + 0x9E3779B9u;
    if (s8 == 0)
        s8 = 1;
    if (fp_rnd(&s8) % 3 == 0) {
        r->a.out->coalesce = 1;
        r->b.out->coalesce = 1;
    }
    /* A buffer on each side: page aligned or at an odd offset. */
    pa = qr_alloc(&r->a, FP_LEN + 4096, true);
    pb = qr_alloc(&r->b, FP_LEN + 4096, true);
    if (pa == NULL || pb == NULL) {
        qr_free(r);
        return 2;
    }
    pa += fp_rnd(&s) % 2 ? 0 : 1 + fp_rnd(&s) % 4000;
    pb += fp_rnd(&s) % 2 ? 0 : 1 + fp_rnd(&s) % 4000;
    for (i = 0; i < FP_LEN; i++)
        pa[i] = (uint8_t)fp_rnd(&s);
    fa = fp_rnd(&s) % 3 == 0 ? OFL_TPT_F_ZERO_BASED : 0;
    fb = fp_rnd(&s) % 3 == 0 ? OFL_TPT_F_ZERO_BASED : 0;
    /* From the third stream (the draws above stay as they were): the
     * receiver's region one-shot or one-touch now and then, so that the
     * Last tagged segment's entry lookups (one-touch decision, note of
     * the use) meet both. */
    switch (fp_rnd(&s3) % 6) {
    case 0: fb |= OFL_TPT_F_ONE_SHOT; break;
    case 1: fb |= OFL_TPT_F_ONE_TOUCH; break;
    default: break;
    }
    if (fp_rnd(&s2) % 2) /* a Send with Invalidate may spend it */
        fb |= OFL_TPT_F_INVALIDATABLE;
    atta = r->a.att_next;
    attb = r->b.att_next;
    la = qr_reg(&r->a, pa, FP_LEN, OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE,
                fa);
    lb = qr_reg(&r->b, pb, FP_LEN,
                OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                    OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_READ,
                fb);
    h = fp_mix(h, la);
    h = fp_mix(h, lb);
    ba = fa ? 0 : (uint64_t)(uintptr_t)pa;
    bb = (fb & OFL_TPT_F_ZERO_BASED) ? 0 : (uint64_t)(uintptr_t)pb;
    /* Half the time a side's pages lie in reverse order: a scattered
     * region, where an access across a page end takes two pieces. */
    for (i = 0; i < (FP_PAGES + 1) / 2; i++) {
        uint64_t w;

        if (seed & 1) {
            w = r->a.att[atta + i];
            r->a.att[atta + i] = r->a.att[atta + FP_PAGES - i];
            r->a.att[atta + FP_PAGES - i] = w;
        }
        if (seed & 2) {
            w = r->b.att[attb + i];
            r->b.att[attb + i] = r->b.att[attb + FP_PAGES - i];
            r->b.att[attb + FP_PAGES - i] = w;
        }
    }
    for (i = 0; i <= FP_PAGES; i++) {
        sava[i] = r->a.att[atta + i];
        savb[i] = r->b.att[attb + i];
    }
    m = 2 + fp_rnd(&s) % 7;
    for (i = 0; i < m; i++) {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sg[3];
        uint32_t ns = 1 + fp_rnd(&s) % 3;

        if (fp_rnd(&s) % 4 == 0)
            fp_hostile(&s, &r->a, atta, sava);
        if (fp_rnd(&s) % 4 == 0)
            fp_hostile(&s, &r->b, attb, savb);
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = 100 + i;
        wr.flags = OFL_QP_WR_SIGNALED;
        for (j = 0; j < ns; j++)
            fp_sge(&s, &sg[j], ba, la);
        wr.sge = sg;
        wr.num_sge = ns;
        if (fp_rnd(&s) % 3 == 0) {
            struct ofl_qp_sge t;

            wr.opcode = OFL_QP_OP_WRITE;
            fp_sge(&s, &t, bb, lb);
            wr.remote_stag = t.stag;
            wr.remote_to = t.addr;
        } else {
            struct ofl_qp_recv_wr rw;
            struct ofl_qp_sge rg[3];
            uint32_t nr = 1 + fp_rnd(&s) % 3;

            wr.opcode = OFL_QP_OP_SEND;
            memset(&rw, 0, sizeof(rw));
            rw.wr_id = 200 + i;
            for (j = 0; j < nr; j++)
                fp_sge(&s, &rg[j], bb, lb);
            rw.sge = rg;
            rw.num_sge = nr;
            h = fp_mix(h, (uint64_t)ofl_qp_post_recv(&r->b.qp, &rw));
            if (r->b.qp.rq.host)
                (void)ofl_qp_doorbell(&r->b.qp, OFL_QP_RING_RQ,
                                      r->b.qp.rq.pi);
        }
        j = fp_rnd(&s2);
        if (j % 5 == 0) {
            /* An RDMA Read of the peer's buffer into the first segment
             * (a Send's receive stays posted for a later Send). */
            struct ofl_qp_sge t;

            wr.opcode = OFL_QP_OP_READ;
            wr.num_sge = 1;
            fp_sge(&s2, &t, bb, lb);
            wr.remote_stag = t.stag;
            wr.remote_to = t.addr;
        } else if (j % 5 == 1 && wr.opcode == OFL_QP_OP_SEND) {
            /* With Invalidate: of the peer's buffer (spent when it is
             * invalidatable), or of a STag with a bad key (refused). */
            wr.opcode = OFL_QP_OP_SEND_INV;
            wr.stag = (j >> 8) % 2 == 0 ? lb : lb ^ 1u;
        }
        j = fp_rnd(&s5);
        if (j % 4 == 0)
            wr.flags |= OFL_QP_WR_SOLICITED;
        if ((j >> 4) % 6 == 0)
            wr.flags |= OFL_QP_WR_FENCE;
        if ((j >> 8) % 5 == 0)
            r->a.refuse = 1 + (int)((j >> 12) % 2);
        if ((j >> 16) % 7 == 0)
            r->b.refuse = 1;
        h = fp_mix(h, (uint64_t)qr_post_send(&r->a, &wr));
        if (fp_rnd(&s) % 3 == 0) {
            /* A region entry changed, then restored after the message: the
             * sender's or the receiver's, before the message starts (the
             * checks at WQE fetch meet it) or mid-message, after one step
             * of the sender (a later FPDU's segment is checked again). */
            uint32_t k = fp_rnd(&s);
            struct ofl_tpt_entry *e =
                (k & 0x100) ? &r->b.entry[ofl_stag_index(lb)]
                            : &r->a.entry[ofl_stag_index(la)];
            struct ofl_tpt_entry keep = *e;

            if (k & 0x200)
                h = fp_mix(h, (uint64_t)ofl_qp_process(&r->a.qp, now, 1));
            switch (k % 8) {
            case 0: e->access &= (uint8_t)~OFL_TPT_LOCAL_READ; break;
            case 7: e->access &= (uint8_t)~OFL_TPT_LOCAL_WRITE; break;
            case 1: e->pd ^= 1; break;
            case 2: e->key ^= 1; break;
            case 3: e->state = OFL_TPT_INVALID; break;
            case 4: e->len = (k >> 4) % FP_LEN; break;
            case 5: e->va += 4096; break;
            default: e->type = OFL_TPT_WINDOW; break;
            }
            h = fp_mix(h, (uint64_t)qr_pump(r, now++));
            *e = keep;
        }
        h = fp_mix(h, (uint64_t)qr_pump(r, now++));
        h = fp_side(h, &r->a, pa);
        h = fp_side(h, &r->b, pb);
    }
    s4 = seed * 0x27D4EB2Fu + 0x165667B1u;
    if (s4 == 0)
        s4 = 1;
    h = fp_rules(h, r, &s4, &now, ba, la);
    h = fp_side(h, &r->a, pa);
    h = fp_side(h, &r->b, pb);
    qr_free(r);
    s6 = seed * 0xC2B2AE3Du + 0x27D4EB2Fu;
    if (s6 == 0)
        s6 = 1;
    s7 = seed * 0x27D4EB2Fu + 0x165667B1u;
    if (s7 == 0)
        s7 = 1;
    s9 = seed * 0x7FEB352Du + 0x846CA68Bu;
    if (s9 == 0)
        s9 = 1;
    return fp_aimed(h, &o, &s6, &s7, &s9);
}
