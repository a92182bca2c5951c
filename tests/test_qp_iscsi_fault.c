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

static void bhs_init(uint8_t *b, uint8_t op, uint8_t flags, uint32_t itt,
                     uint32_t dsl)
{
    memset(b, 0, 48);
    b[0] = op;
    b[1] = flags;
    b[5] = (uint8_t)(dsl >> 16);
    b[6] = (uint8_t)(dsl >> 8);
    b[7] = (uint8_t)dsl;
    ofl_store_be32(b + 16, itt);
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
    bhs_init(wr.bhs, 0x01, (uint8_t)(0x80 | rw), 0xFFFFFFFFu, 0);
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

static bool zero(const uint8_t *p, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
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
    bhs_init(pdu, 0x25, 0x00, stag, 6000);
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
    CHECK(zero(buf + (nxt - 48), 8192 - (nxt - 48)));
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
    CHECK(zero(buf + (nxt - 48), 8192 - (nxt - 48)));
    CHECK_OK(ofl_tpt_map_page(&r->a.tpt, stag, PG, ofl_sim_pa(buf + PG)));
    /* the rest, from RCV.NXT on (the whole PDU again: the part before
     * RCV.NXT is dropped as a duplicate) */
    CHECK_OK(feed(r, seq0, pdu, sizeof(pdu)));
    CHECK_EQ(r->a.qp.seq.nxt - seq0, sizeof(pdu));
    CHECK(memcmp(buf, payload, 6000) == 0);
    CHECK(zero(buf + 6000, 8192 - 6000));
    CHECK_EQ(r->a.qp.fault.where, OFL_QP_FAULT_NONE);
    CHECK_EQ(r->a.qp.fault.in_wait, 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    bhs_init(pdu, 0x21, 0x80, stag, 0);
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
    bhs_init(r2t, 0x31, 0x80, stag, 0);
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
        bhs_init(pdu, 0x31, 0x80, stag, 0);
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
        bhs_init(pdu, 0x25, 0x00, stag, 200);
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
    CHECK(zero(buf, 2 * PG));
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

OFL_SUITE(qp_iscsi_fault)
{
    test_data_in();
    test_data_out();
    test_give_up();
}
