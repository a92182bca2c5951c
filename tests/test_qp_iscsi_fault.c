/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Unpinned pages on iSCSI QPs (issue 27 item 5; seed 001: an address not
 * mapped through MapLocalPage gives the default error handler an
 * asynchronous page-fault result; offload.h "Unpinned pages", "iSCSI").
 * Under OFL_QP_FAULT_WAIT a Data-In piece whose task buffer page is not
 * present is not placed and not taken (RCV.NXT before it: the bytes are
 * fed again), and a Data-Out answering an R2T whose write data page is
 * not present is not sent (ofl_qp_process returns OFL_E_TPT_PAGE_FAULT);
 * after ofl_tpt_map_page each completes with every byte once.
 * ofl_qp_fault_fail gives them up as FAIL fails them.
 */
#include <string.h>

#include "test.h"
#include "support/qp_rig.h"

#define LW OFL_TPT_LOCAL_WRITE
#define PG 4096u
#define WAIT OFL_QP_FAULT_WAIT
#define FAIL OFL_QP_FAULT_FAIL

/* The iSCSI rig with attr.fault_wait (one check: that it exists; the
 * test ends when it does not). */
static struct qr_rig *irig(uint8_t fault_wait)
{
    struct qr_opts o;
    struct qr_rig *r;

    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_ISCSI;
    o.reg_option = 1;
    o.fault_wait = fault_wait;
    r = qr_new(&o);
    CHECK(r != NULL);
    return r;
}

/* Page-fault notifications side a's port saw (vector 3: the QP's). */
static unsigned notifies(const struct qr_rig *r)
{
    unsigned i, n = 0;

    for (i = 0; i < r->a.sim.nevents; i++)
        if (r->a.sim.event[i].kind == OFL_SIM_EV_NOTIFY &&
            r->a.sim.event[i].a == 3)
            n++;
    return n;
}

/* Feeds bytes [p, p + n) of the target's stream, starting at stream
 * sequence number seq, to side a as one segment. */
static enum ofl_err feed(struct qr_rig *r, uint32_t seq, const uint8_t *p,
                         uint32_t n)
{
    struct ofl_qp_seg s;

    memset(&s, 0, sizeof(s));
    s.seq = seq;
    s.data = p;
    s.len = n;
    return ofl_qp_input(&r->a.qp, &s);
}

/* A SCSI command (R or W) over one buffer of len bytes at pa. */
static void command(struct qr_rig *r, uint8_t rw, uint32_t stag, uint64_t pa,
                    uint32_t len)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t id = 0;

    memset(&wr, 0, sizeof(wr));
    sge.addr = pa;
    sge.len = len;
    sge.stag = 0;
    wr.opcode = OFL_QP_OP_ISCSI_CMD;
    wr.wr_id = 77;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.stag = stag;
    wr.sge = &sge;
    wr.num_sge = 1;
    wr.reg.att_base = 600;
    wr.reg.page_shift = 12;
    qr_bhs_init(wr.bhs, 0x01, (uint8_t)(0x80 | rw), 0xFFFFFFFFu, 0);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, &id));
    CHECK_OK(qr_process(&r->a, 0));
    r->ab.seq += r->ab.len; /* the command PDU: not looked at */
    r->ab.len = 0;
    r->ab.nchunk = 0;
}

static void fill(uint8_t *p, uint32_t n, uint8_t seed)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 13u + (i >> 8));
}

/* A Data-In of 6000 bytes at offset 0 into a task buffer whose second
 * page is not present, fed in segments of seg bytes: the bytes up to the
 * piece that meets the page are placed and taken, that piece waits (the
 * event once, RCV.NXT before it, nothing of it placed), the same bytes
 * fed again wait again; after the map they are placed, every byte once,
 * and the response completes the command. */
static void data_in_wait(uint32_t seg)
{
    struct qr_rig *r = irig(WAIT);
    uint8_t *buf, *resp;
    uint32_t lresp, stag = 0, seq0, off = 0, nxt;
    static uint8_t pdu[48 + 6000], payload[6000];
    struct ofl_cqe c[4];
    enum ofl_err err = OFL_OK;

    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, 3 * PG, true);
    resp = qr_alloc(&r->a, 256, false);
    lresp = qr_reg(&r->a, resp, 256, LW, 0);
    seq0 = r->ba.seq;

    fill(payload, sizeof(payload), 3);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    command(r, 0x40, stag, ofl_sim_pa(buf), 8192);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, stag, PG));
    qr_bhs_init(pdu, 0x25, 0x00, stag, 6000);
    ofl_store_be32(pdu + 24, 100);
    memcpy(pdu + 48, payload, 6000);
    while (off < sizeof(pdu) && err == OFL_OK) {
        uint32_t k = sizeof(pdu) - off < seg ? sizeof(pdu) - off : seg;

        err = feed(r, seq0 + off, pdu + off, k);
        if (err == OFL_OK)
            off += k;
    }
    CHECK_ERR(err, OFL_E_TPT_PAGE_FAULT);
    nxt = r->a.qp.seq.nxt - seq0; /* bytes taken: the header, whole
                                     pieces before the page */
    CHECK(nxt >= 48 && nxt <= 48 + PG);
    CHECK(memcmp(buf, payload, nxt - 48) == 0);
    CHECK(ofl_test_zero(buf + (nxt - 48), 8192 - (nxt - 48)));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_ISCSI_IN);
    CHECK_EQ(r->a.qp.fault.stag, stag);
    CHECK_EQ(r->a.qp.fault.va, PG);
    CHECK_EQ(r->a.qp.fault.in_wait, 1);
    CHECK(r->a.qp.events & OFL_QP_EVT_PAGE_FAULT);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* ofl_qp_process keeps the record; fed again: waits, no new event */
    CHECK_OK(qr_process(&r->a, 1));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_ISCSI_IN);
    CHECK_ERR(feed(r, seq0 + off, pdu + off,
                   sizeof(pdu) - off < seg ? sizeof(pdu) - off : seg),
              OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.seq.nxt - seq0, nxt);
    CHECK_EQ(notifies(r), 1);
    CHECK(ofl_test_zero(buf + (nxt - 48), 8192 - (nxt - 48)));
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, stag, PG, ofl_sim_pa(buf + PG)));
    /* the rest, from RCV.NXT on (the whole PDU again: the part before
     * RCV.NXT is dropped as a duplicate) */
    CHECK_OK(feed(r, seq0, pdu, sizeof(pdu)));
    CHECK_EQ(r->a.qp.seq.nxt - seq0, sizeof(pdu));
    CHECK(memcmp(buf, payload, 6000) == 0);
    CHECK(ofl_test_zero(buf + 6000, 8192 - 6000));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.in_wait, 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    qr_bhs_init(pdu, 0x21, 0x80, stag, 0);
    ofl_store_be32(pdu + 24, 100);
    CHECK_OK(feed(r, seq0 + (uint32_t)sizeof(pdu), pdu, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

static void test_data_in(void)
{
    data_in_wait(48 + 6000);
    data_in_wait(1460);
    data_in_wait(7);
}

/* The PDUs side a sent since the last call: each BHS and data length. */
static int sent_pdus(struct qr_rig *r, uint8_t *bhs, const uint8_t **data,
                     uint32_t *dl, int max)
{
    struct qr_wire *w = &r->ab;
    uint32_t off = 0;
    int k = 0;

    while (off + 48 <= w->len && k < max) {
        const uint8_t *b = w->buf + off;

        dl[k] = ((uint32_t)b[5] << 16) | ((uint32_t)b[6] << 8) | b[7];
        memcpy(bhs + 48 * k, b, 48);
        data[k] = b + 48;
        off += 48 + ((dl[k] + 3u) & ~3u);
        k++;
    }
    return k;
}

static void sent_clear(struct qr_rig *r)
{
    r->ab.seq += r->ab.len;
    r->ab.len = 0;
    r->ab.nchunk = 0;
}

/* An R2T for 9000 bytes from offset 500 of a write command whose buffer's
 * second page is not present: the first Data-Out (500 .. 4500) waits with
 * nothing sent, ofl_qp_process retries it; after the map the three
 * Data-Outs go, each once, with the right bytes. */
static void test_data_out(void)
{
    struct qr_rig *r = irig(WAIT);
    uint8_t *buf, r2t[48], bhs[48 * 8];
    const uint8_t *data[8];
    uint32_t dl[8], stag = 0, i;
    int k, n;

    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, 3 * PG, true);

    r->a.qp.attr.iscsi_max_data = 4000;
    fill(buf, 10000, 9);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    command(r, 0x20, stag, ofl_sim_pa(buf), 10000);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, stag, PG));
    qr_bhs_init(r2t, 0x31, 0x80, stag, 0);
    ofl_store_be32(r2t + 20, 0xCAFE);
    ofl_store_be32(r2t + 24, 5);
    ofl_store_be32(r2t + 40, 500);
    ofl_store_be32(r2t + 44, 9000);
    CHECK_OK(feed(r, r->ba.seq, r2t, 48));
    r->ba.seq += 48;
    CHECK_EQ(r->a.qp.irq_count, 1);
    for (k = 0; k < 3; k++) {
        CHECK_ERR(qr_process(&r->a, (uint64_t)k), OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(r->ab.len, 0); /* nothing sent */
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->a.qp.fault.sq_wait, 1);
    }
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_READ_SRC);
    CHECK_EQ(r->a.qp.fault.stag, stag);
    CHECK_EQ(r->a.qp.fault.va, PG);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.qp.irq_count, 1);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, stag, PG, ofl_sim_pa(buf + PG)));
    CHECK_OK(qr_process(&r->a, 5));
    n = sent_pdus(r, bhs, data, dl, 8);
    CHECK_EQ(n, 3);
    for (i = 0; i < 3 && (int)i < n; i++) {
        const uint8_t *b = bhs + 48 * i;

        CHECK_EQ(b[0], 0x05);
        CHECK_EQ(ofl_load_be32(b + 36), i); /* DataSN */
        CHECK_EQ(ofl_load_be32(b + 40), 500 + 4000 * i);
        CHECK_EQ(dl[i], i == 2 ? 1000 : 4000);
        CHECK(memcmp(data[i], buf + 500 + 4000 * i, dl[i]) == 0);
    }
    sent_clear(r);
    CHECK_EQ(r->a.qp.irq_count, 0);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* Data-In (out = false) or Data-Out (out = true) meeting a page not
 * present, under FAIL, and under WAIT given up with ofl_qp_fault_fail:
 * the same end (the stream broken as for any local failure: the same
 * error, state and completions). */
static void give_up(uint8_t mode, bool out, enum ofl_err *err,
                    uint8_t *state)
{
    struct qr_rig *r = irig(mode);
    uint8_t *buf;
    static uint8_t pdu[48 + 200];
    uint32_t stag = 0, seq0;

    *err = OFL_E_ARG;
    *state = 0xFF;
    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, 2 * PG, true);
    seq0 = r->ba.seq;

    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    command(r, out ? 0x20 : 0x40, stag, ofl_sim_pa(buf), 2 * PG);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, stag, 0));
    if (out) {
        qr_bhs_init(pdu, 0x31, 0x80, stag, 0);
        ofl_store_be32(pdu + 24, 5);
        ofl_store_be32(pdu + 44, 200);
        CHECK_OK(feed(r, seq0, pdu, 48));
        if (mode == WAIT) {
            CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PAGE_FAULT);
            CHECK_EQ(notifies(r), 1);
            CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
        }
        *err = qr_process(&r->a, 1);
    } else {
        qr_bhs_init(pdu, 0x25, 0x00, stag, 200);
        fill(pdu + 48, 200, 1);
        if (mode == WAIT) {
            CHECK_ERR(feed(r, seq0, pdu, sizeof(pdu)), OFL_E_TPT_PAGE_FAULT);
            CHECK_EQ(notifies(r), 1);
            CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
        }
        *err = feed(r, seq0, pdu, sizeof(pdu));
    }
    *state = r->a.qp.state;
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.give_up, 0);
    CHECK(r->ab.len == 0 || r->ab.buf[0] != 0x05); /* no Data-Out */
    CHECK(ofl_test_zero(buf, 2 * PG));
    qr_free(r);
}

static void test_give_up(void)
{
    enum ofl_err e1, e2;
    uint8_t s1, s2;
    int k;

    for (k = 0; k < 2; k++) {
        give_up(FAIL, k == 1, &e1, &s1);
        give_up(WAIT, k == 1, &e2, &s2);
        CHECK_EQ(e1, e2);
        CHECK_EQ(s1, s2);
        CHECK_EQ(e1, OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(s1, OFL_QP_TERMINATE); /* the stream broken */
    }
}

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* Feeds pdu[0, n) from stream offset off on in segments of seg bytes
 * until one fails; *off receives where it stopped. */
static enum ofl_err feed_segs(struct qr_rig *r, uint32_t seq0,
                              const uint8_t *pdu, uint32_t n, uint32_t seg,
                              uint32_t *off)
{
    enum ofl_err err = OFL_OK;

    while (*off < n && err == OFL_OK) {
        uint32_t k = n - *off < seg ? n - *off : seg;

        err = feed(r, seq0 + *off, pdu + *off, k);
        if (err == OFL_OK)
            *off += k;
    }
    return err;
}

/*
 * A PDU that goes to a receive WQE (kind 0: a SCSI Response with 300
 * bytes of sense data; kind 1: a Data-In failing FIG. 17B, its ITT not
 * registered) whose receive buffer page `page` (0: the one the header
 * goes to, 1: the one the data goes to from byte 100 of the buffer on)
 * is not present, fed in segments of seg bytes: the piece that meets it
 * waits (nothing of it placed nor taken, the WQE not consumed, the
 * event once), fed again it waits again; after the map the PDU
 * completes the WQE with every byte once.
 */
static void rq_pdu_wait(int kind, int page, uint32_t seg)
{
    struct qr_rig *r = irig(WAIT);
    uint8_t *buf, *base, *rb;
    static uint8_t pdu[48 + 300];
    uint32_t lrb, stag = 0, seq0, off = 0, nxt, itt;
    struct ofl_cqe c[4];
    enum ofl_err err;

    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, PG, true);
    base = qr_alloc(&r->a, 3 * PG, true);
    rb = base + PG - 100; /* header and 52 data bytes in page 0 */
    lrb = qr_reg(&r->a, rb, 1024, LW, 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    command(r, 0x40, stag, ofl_sim_pa(buf), 1024);
    CHECK_OK(qr_post_recv(&r->a, 31, rb, 1024, lrb));
    seq0 = r->ba.seq;
    itt = kind == 0 ? stag : stag + 0x100u; /* kind 1: no such task */
    qr_bhs_init(pdu, kind == 0 ? 0x21 : 0x25, kind == 0 ? 0x80 : 0x00, itt, 300);
    ofl_store_be32(pdu + 24, 100);
    fill(pdu + 48, 300, 11);
    /* page 0 from the buffer's first byte (the region starts there) */
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lrb,
                                page == 0 ? va(rb) : va(base) + PG));
    err = feed_segs(r, seq0, pdu, sizeof(pdu), seg, &off);
    CHECK_ERR(err, OFL_E_TPT_PAGE_FAULT);
    nxt = r->a.qp.seq.nxt - seq0;
    if (page == 0) {
        CHECK(nxt < 48); /* the header's last bytes not taken */
        CHECK(ofl_test_zero(rb, 1024));
    } else {
        CHECK(nxt >= 48 && nxt < 100); /* the header placed, the piece
                                          that meets page 1 not taken */
        CHECK(memcmp(rb, pdu, nxt) == 0);
        CHECK(ofl_test_zero(rb + nxt, 1024 - nxt));
    }
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_ISCSI_IN);
    CHECK_EQ(r->a.qp.fault.stag, lrb);
    CHECK_EQ(r->a.qp.fault.va, page == 0 ? va(rb) : va(base) + PG);
    CHECK_EQ(r->a.qp.fault.in_wait, 1);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(ofl_qp_rq_outstanding(&r->a.qp), 1);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    /* ofl_qp_process keeps it; fed again: waits, no new event */
    CHECK_OK(qr_process(&r->a, 1));
    CHECK_ERR(feed_segs(r, seq0, pdu, sizeof(pdu), seg, &off),
              OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.seq.nxt - seq0, nxt);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(ofl_qp_rq_outstanding(&r->a.qp), 1);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, lrb, r->a.qp.fault.va,
                              ofl_sim_pa(base + (uint64_t)page * PG)));
    CHECK_OK(feed(r, seq0, pdu, sizeof(pdu)));
    CHECK_EQ(r->a.qp.seq.nxt - seq0, sizeof(pdu));
    CHECK(memcmp(rb, pdu, sizeof(pdu)) == 0); /* every byte once */
    CHECK(ofl_test_zero(rb + sizeof(pdu), 1024 - sizeof(pdu)));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 31);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, sizeof(pdu));
    CHECK_EQ(c[0].opcode,
             kind == 0 ? OFL_QP_OP_ISCSI_RESP : OFL_QP_OP_ISCSI_RECV);
    CHECK_EQ(c[0].flags & OFL_CQE_ISCSI_CHECK,
             kind == 0 ? 0 : OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.in_wait, 0);
    CHECK_EQ(ofl_qp_rq_outstanding(&r->a.qp), 0);
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

static void test_rq_pdu(void)
{
    int kind, page;

    for (kind = 0; kind < 2; kind++)
        for (page = 0; page < 2; page++) {
            rq_pdu_wait(kind, page, 48 + 300);
            rq_pdu_wait(kind, page, 7);
        }
}

/*
 * A Data-In with status (S and F) of dsl bytes: its data goes to the
 * task, its header to a receive WQE whose page is not present. The last
 * piece waits before a byte of it is placed (the WQE looked at first),
 * or, without data, the header waits; after the map the data is in the
 * task once and the header ends the command in the WQE. task: the task
 * buffer's page is not present either: once the WQE's page is mapped the
 * piece waits on it (a second event, raised once however often fed).
 */
static void data_in_status_wait(uint32_t dsl, uint32_t seg, bool task)
{
    struct qr_rig *r = irig(WAIT);
    uint8_t *buf, *rb;
    static uint8_t pdu[48 + 2000];
    uint32_t lrb, stag = 0, seq0, off = 0, nxt, k;
    const uint32_t n = 48 + ((dsl + 3u) & ~3u); /* with the pad */
    struct ofl_cqe c[4];

    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, PG, true);
    rb = qr_alloc(&r->a, PG, true);
    lrb = qr_reg(&r->a, rb, 256, LW, 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    command(r, 0x40, stag, ofl_sim_pa(buf), 2000);
    CHECK_OK(qr_post_recv(&r->a, 32, rb, 256, lrb));
    seq0 = r->ba.seq;
    qr_bhs_init(pdu, 0x25, 0x81, stag, dsl); /* F and S */
    ofl_store_be32(pdu + 24, 100);
    fill(pdu + 48, 2000, 21);
    memset(pdu + 48 + dsl, 0, n - 48 - dsl);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lrb, va(rb)));
    if (task)
        CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, stag, 0));
    CHECK_ERR(feed_segs(r, seq0, pdu, n, seg, &off), OFL_E_TPT_PAGE_FAULT);
    nxt = r->a.qp.seq.nxt - seq0;
    CHECK(nxt < n);
    if (dsl != 0 && !task) {
        CHECK(nxt >= 48 && nxt + seg >= n); /* the last piece not taken */
        CHECK(memcmp(buf, pdu + 48, nxt - 48) == 0);
        CHECK(ofl_test_zero(buf + (nxt - 48), PG - (nxt - 48)));
    }
    if (task && dsl > seg) { /* an earlier piece waits on the task */
        CHECK_EQ(r->a.qp.fault.stag, stag);
        CHECK(ofl_test_zero(buf, PG));
        qr_free(r);
        return;
    }
    CHECK(ofl_test_zero(rb, 256));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_ISCSI_IN);
    CHECK_EQ(r->a.qp.fault.stag, lrb);
    CHECK_EQ(r->a.qp.fault.va, va(rb));
    CHECK_EQ(notifies(r), 1);
    CHECK_EQ(ofl_qp_rq_outstanding(&r->a.qp), 1);
    CHECK_ERR(feed_segs(r, seq0, pdu, n, seg, &off), OFL_E_TPT_PAGE_FAULT);
    CHECK_EQ(r->a.qp.seq.nxt - seq0, nxt);
    CHECK_EQ(notifies(r), 1);
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, lrb, va(rb), ofl_sim_pa(rb)));
    if (task && dsl != 0) {
        for (k = 0; k < 3; k++) { /* now the task's page, raised once */
            CHECK_ERR(feed(r, seq0, pdu, n), OFL_E_TPT_PAGE_FAULT);
            CHECK_EQ(r->a.qp.seq.nxt - seq0, nxt);
            CHECK_EQ(r->a.qp.fault.stag, stag);
            CHECK_EQ(r->a.qp.fault.va, 0);
            CHECK_EQ(notifies(r), 2);
            CHECK(ofl_test_zero(buf, PG));
            CHECK(ofl_test_zero(rb, 256));
        }
        CHECK_OK(ofl_tpt_map_page(&r->a.tpt, stag, 0, ofl_sim_pa(buf)));
    }
    CHECK_OK(feed(r, seq0, pdu, n));
    CHECK_EQ(r->a.qp.seq.nxt - seq0, n);
    CHECK(memcmp(buf, pdu + 48, dsl) == 0);
    CHECK(ofl_test_zero(buf + dsl, PG - dsl));
    CHECK(memcmp(rb, pdu, 48) == 0);
    CHECK(ofl_test_zero(rb + 48, 256 - 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 32);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 48);
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(notifies(r), task && dsl != 0 ? 2u : 1u);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

static void test_data_in_status(void)
{
    data_in_status_wait(2000, 48 + 2000, false);
    data_in_status_wait(2000, 700, false);
    data_in_status_wait(1999, 7, false); /* the last piece holds the pad */
    data_in_status_wait(0, 48, false);
    data_in_status_wait(0, 5, false);
    data_in_status_wait(2000, 48 + 2000, true);
    data_in_status_wait(300, 48 + 300, true);
}

/*
 * The receive-WQE PDUs given up: kind 0 a SCSI Response whose header
 * page is not present, kind 1 the same with its data page, kind 2 a
 * Data-In with status whose WQE page is not present. FAIL and WAIT given
 * up with ofl_qp_fault_fail end the same: error, state, the receive
 * completion, the bytes in the WQE and in the task.
 */
struct rq_end {
    enum ofl_err err;
    uint8_t state;
    uint32_t ncqe;
    struct ofl_cqe c;
    uint8_t rb[512], task[256];
};

static void rq_give_up(uint8_t mode, int kind, struct rq_end *e)
{
    struct qr_rig *r = irig(mode);
    uint8_t *buf, *base, *rb;
    static uint8_t pdu[48 + 200];
    uint32_t lrb, stag = 0, seq0;
    struct ofl_cqe c[4];

    memset(e, 0, sizeof(*e));
    e->err = OFL_E_ARG;
    if (r == NULL)
        return;
    buf = qr_alloc(&r->a, PG, true);
    base = qr_alloc(&r->a, 2 * PG, true);
    rb = base + PG - 100;
    lrb = qr_reg(&r->a, rb, 512, LW, 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    command(r, 0x40, stag, ofl_sim_pa(buf), 256);
    CHECK_OK(qr_post_recv(&r->a, 33, rb, 512, lrb));
    seq0 = r->ba.seq;
    if (kind == 2)
        qr_bhs_init(pdu, 0x25, 0x81, stag, 200);
    else
        qr_bhs_init(pdu, 0x21, 0x80, stag, 200);
    ofl_store_be32(pdu + 24, 100);
    fill(pdu + 48, 200, 31);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, lrb,
                                kind == 1 ? va(base) + PG : va(rb)));
    if (mode == WAIT) {
        CHECK_ERR(feed(r, seq0, pdu, sizeof(pdu)), OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(notifies(r), 1);
        CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_ISCSI_IN);
        CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
    }
    e->err = feed(r, seq0, pdu, sizeof(pdu));
    e->state = r->a.qp.state;
    e->ncqe = qr_poll(&r->a, false, c, 4);
    if (e->ncqe != 0)
        e->c = c[0];
    memcpy(e->rb, rb, sizeof(e->rb));
    memcpy(e->task, buf, sizeof(e->task));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.give_up, 0);
    qr_free(r);
}

static void test_rq_give_up(void)
{
    static struct rq_end e1, e2;
    int kind;

    for (kind = 0; kind < 3; kind++) {
        rq_give_up(FAIL, kind, &e1);
        rq_give_up(WAIT, kind, &e2);
        CHECK_ERR(e1.err, OFL_E_TPT_PAGE_FAULT);
        CHECK_EQ(e1.state, OFL_QP_TERMINATE); /* the stream broken */
        CHECK_EQ(e2.err, e1.err);
        CHECK_EQ(e2.state, e1.state);
        CHECK_EQ(e2.ncqe, e1.ncqe);
        CHECK_EQ(e2.c.wr_id, e1.c.wr_id);
        CHECK_EQ(e2.c.status, e1.c.status);
        CHECK_EQ(e2.c.opcode, e1.c.opcode);
        CHECK_EQ(e2.c.byte_len, e1.c.byte_len);
        CHECK(memcmp(e1.rb, e2.rb, sizeof(e1.rb)) == 0);
        CHECK(memcmp(e1.task, e2.task, sizeof(e1.task)) == 0);
        CHECK_EQ(e1.ncqe, 1); /* the WQE fails (LOC_ACCESS_ERR) */
        CHECK_EQ(e1.c.status, OFL_WC_LOC_ACCESS_ERR);
    }
}

/*
 * An initiator PDU WQE (OFL_QP_OP_ISCSI_PDU) whose data segment's second
 * page is not present: it waits as a Send WQE's source does
 * (OFL_QP_FAULT_SQ): nothing sent, each ofl_qp_process retries; after the
 * map the PDU goes once with its data. Under FAIL (or WAIT given up) the
 * WQE fails: LOC_ACCESS_ERR, SQE, nothing sent.
 */
static void pdu_wqe(uint8_t mode, bool give, uint8_t *state, uint8_t *status)
{
    struct qr_rig *r = irig(mode);
    uint8_t *src, bhs[48 * 2];
    const uint8_t *data[2];
    uint32_t ls, dl[2];
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[2];
    int k;

    *state = 0xFF;
    *status = 0xFF;
    if (r == NULL)
        return;
    src = qr_alloc(&r->a, 2 * PG, true);
    ls = qr_reg(&r->a, src, 2 * PG, OFL_TPT_LOCAL_READ, 0);
    fill(src, 2 * PG, 41);
    CHECK_OK(ofl_tpt_unmap_page(&r->a.tpt, ls, va(src) + PG));
    qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 61, &sge, src + PG - 100, 300, ls);
    wr.flags = OFL_QP_WR_SIGNALED;
    qr_bhs_init(wr.bhs, 0x00, 0x80, 0x1234, 0);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    if (mode == WAIT) {
        for (k = 0; k < 3; k++) {
            CHECK_ERR(qr_process(&r->a, (uint64_t)k), OFL_E_TPT_PAGE_FAULT);
            CHECK_EQ(r->ab.len, 0); /* nothing sent */
            CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
            CHECK_EQ(r->a.qp.fault.sq_wait, 1);
        }
        CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_SQ);
        CHECK_EQ(r->a.qp.fault.stag, ls);
        CHECK_EQ(r->a.qp.fault.va, va(src) + PG);
        CHECK_EQ(notifies(r), 1);
        CHECK_EQ(qr_poll(&r->a, true, c, 2), 0);
        if (give) {
            CHECK_OK(ofl_qp_fault_fail(&r->a.qp));
        } else {
            CHECK_OK(ofl_tpt_map_page(&r->a.tpt, ls, va(src) + PG,
                                      ofl_sim_pa(src + PG)));
        }
    }
    (void)qr_process(&r->a, 5);
    *state = r->a.qp.state;
    if (qr_poll(&r->a, true, c, 2) == 1) {
        CHECK_EQ(c[0].wr_id, 61);
        *status = c[0].status;
    }
    if (mode == WAIT && !give) {
        CHECK_EQ(sent_pdus(r, bhs, data, dl, 2), 1);
        CHECK_EQ(dl[0], 300);
        CHECK(memcmp(data[0], src + PG - 100, 300) == 0);
        CHECK_EQ(ofl_load_be32(bhs + 16), 0x1234);
        CHECK_EQ(notifies(r), 1);
    } else {
        CHECK_EQ(r->ab.len, 0);
    }
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.give_up, 0);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

static void test_pdu_wqe(void)
{
    uint8_t s1, s2, s3, c1, c2, c3;

    pdu_wqe(WAIT, false, &s1, &c1);
    CHECK_EQ(s1, OFL_QP_RTS);
    CHECK_EQ(c1, OFL_WC_SUCCESS);
    pdu_wqe(FAIL, false, &s2, &c2);
    pdu_wqe(WAIT, true, &s3, &c3);
    CHECK_EQ(s2, OFL_QP_SQE);
    CHECK_EQ(c2, OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(s3, s2);
    CHECK_EQ(c3, c2);
}

OFL_SUITE(qp_iscsi_fault)
{
    test_data_in();
    test_data_out();
    test_give_up();
    test_rq_pdu();
    test_data_in_status();
    test_rq_give_up();
    test_pdu_wqe();
}
