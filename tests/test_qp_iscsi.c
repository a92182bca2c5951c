/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp in iSCSI 1.0 mode (seed 000 FIG. 17A/17B): a command registers its
 * buffers as an iSCSI TPT entry whose ITT goes on the wire; Data-In and R2T
 * are checked a-g and placed / answered with Data-Out; the response ends
 * the command (deregistered, completed with the command ID); anything
 * invalid goes to the receive queue. The test plays the target. */
#include "test.h"
#include "support/qp_rig.h"

#define LW OFL_TPT_LOCAL_WRITE
#define LR OFL_TPT_LOCAL_READ

struct target {
    struct qr_rig *r;
    uint32_t statsn;
    struct ofl_qp *qp; /* NULL: side a's QP (to_init); else this QP, */
    uint32_t seq;      /* its receive sequence number */
};

static struct qr_rig *irig(uint8_t reg_option)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_ISCSI;
    o.reg_option = reg_option;
    return qr_new(&o);
}

/* Bytes from the target to the initiator, in segments of seg bytes. */
static enum ofl_err to_init(struct qr_rig *r, const uint8_t *p, uint32_t n,
                            uint32_t seg)
{
    enum ofl_err first = OFL_OK;
    uint32_t off = 0;

    while (off < n) {
        struct ofl_qp_seg s;
        uint32_t k = n - off < seg ? n - off : seg;
        enum ofl_err err;

        memset(&s, 0, sizeof(s));
        s.seq = r->ba.seq;
        s.data = p + off;
        s.len = k;
        err = ofl_qp_input(&r->a.qp, &s);
        if (first == OFL_OK)
            first = err;
        r->ba.seq += k;
        off += k;
    }
    return first;
}

/* Bytes from the target t plays, to its connection's QP. */
static enum ofl_err to_conn(struct target *t, const uint8_t *p, uint32_t n,
                            uint32_t seg)
{
    struct ofl_qp_seg s;
    enum ofl_err err;

    if (t->qp == NULL)
        return to_init(t->r, p, n, seg);
    memset(&s, 0, sizeof(s));
    s.seq = t->seq;
    s.data = p;
    s.len = n;
    err = ofl_qp_input(t->qp, &s);
    t->seq += n;
    return err;
}

/* A Data-In PDU with n data bytes at offset off (S: status included). */
static enum ofl_err data_in(struct target *t, uint32_t itt, uint32_t off,
                            const uint8_t *data, uint32_t n, bool status,
                            uint32_t seg)
{
    static uint8_t pdu[48 + 9000];
    uint32_t pad = (0u - n) & 3u;

    qr_bhs_init(pdu, 0x25, (uint8_t)(status ? 0x81 : 0x00), itt, n);
    ofl_store_be32(pdu + 24, t->statsn);
    if (status)
        t->statsn++;
    ofl_store_be32(pdu + 40, off);
    memcpy(pdu + 48, data, n);
    memset(pdu + 48 + n, 0, pad);
    return to_conn(t, pdu, 48 + n + pad, seg);
}

static enum ofl_err response(struct target *t, uint32_t itt, uint32_t seg)
{
    uint8_t pdu[48];

    qr_bhs_init(pdu, 0x21, 0x80, itt, 0);
    ofl_store_be32(pdu + 24, t->statsn++);
    return to_conn(t, pdu, 48, seg);
}

static enum ofl_err r2t(struct target *t, uint32_t itt, uint32_t ttt,
                        uint32_t off, uint32_t len)
{
    uint8_t pdu[48];

    qr_bhs_init(pdu, 0x31, 0x80, itt, 0);
    memset(pdu + 8, 0xA5, 8); /* LUN */
    ofl_store_be32(pdu + 20, ttt);
    ofl_store_be32(pdu + 24, t->statsn);
    ofl_store_be32(pdu + 40, off);
    ofl_store_be32(pdu + 44, len);
    return to_conn(t, pdu, 48, 48);
}

/* Posts a SCSI command (R or W) over bufs on qp; returns the command ID. */
static uint32_t command_on(struct ofl_qp *qp, uint8_t rw, uint32_t stag,
                           struct ofl_qp_sge *bufs, uint32_t n)
{
    struct ofl_qp_wr wr;
    uint32_t id = 0;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_ISCSI_CMD;
    wr.wr_id = 77;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.stag = stag;
    wr.sge = bufs;
    wr.num_sge = n;
    wr.reg.att_base = 600 + 4 * (stag >> 8); /* ATT slots of its own */
    wr.reg.page_shift = 12;
    qr_bhs_init(wr.bhs, 0x01, (uint8_t)(0x80 | rw), 0xFFFFFFFFu, 0);
    CHECK_OK(ofl_qp_post_send(qp, &wr, &id));
    return id;
}

/* The same on side a's QP. */
static uint32_t command(struct qr_rig *r, uint8_t rw, uint32_t stag,
                        struct ofl_qp_sge *bufs, uint32_t n)
{
    return command_on(&r->a.qp, rw, stag, bufs, n);
}

/* What the second connection (second_qp) sent. */
static uint8_t b_out[8192];
static uint32_t b_out_len;

static int b_transmit(void *ctx, const uint8_t *data, uint32_t len,
                      uint32_t flags)
{
    (void)ctx;
    (void)flags;
    if (len != 0 && len <= sizeof(b_out) - b_out_len) {
        memcpy(b_out + b_out_len, data, len);
        b_out_len += len;
    }
    return 0;
}

#define B_ISN 5000u /* the second connection's receive ISN */

/* A second iSCSI connection in side a's PD: a QP numbered qpn over side
 * a's TPT and DMA arena (one adapter), with side b's rings, CQs and
 * buffers (the rig leaves side b unused in iSCSI mode), in RTS. */
static void second_qp(struct qr_rig *r, uint32_t qpn)
{
    struct qr_side *s = &r->b;

    b_out_len = 0;
    CHECK_OK(ofl_cq_init(&s->scq, s->scqe, QR_CQ, &r->a.sim.port, 1));
    CHECK_OK(ofl_cq_init(&s->rcq, s->rcqe, QR_CQ, &r->a.sim.port, 2));
    s->attr = r->a.attr;
    s->attr.qpn = qpn;
    s->attr.send_cq = &s->scq;
    s->attr.recv_cq = &s->rcq;
    s->attr.transmit = b_transmit;
    s->attr.transmit_ctx = NULL;
    s->attr.tuple.src_port = 20003;
    s->qmem = r->a.qmem;
    s->qmem.sq_ring = s->sq_ring;
    s->qmem.sq_ring_pa = ofl_sim_pa(s->sq_ring);
    s->qmem.rq_ring = s->rq_ring;
    s->qmem.rq_ring_pa = ofl_sim_pa(s->rq_ring);
    s->qmem.sq_track = s->track;
    s->qmem.sq_sge = s->sq_sge;
    s->qmem.rq_sge = s->rq_sge;
    s->qmem.irq = s->irq;
    s->qmem.ord_ring = s->ord_ring;
    s->qmem.tx_buf = s->tx_buf;
    s->qmem.tx_stage = s->tx_stage;
    s->qmem.rx_buf = s->rx_buf;
    s->qmem.ot_pending = s->ot;
    s->qmem.ooo = s->ooo;
    CHECK_OK(ofl_qp_create(&s->qp, &s->attr, &s->qmem));
    CHECK_OK(ofl_qp_modify(&s->qp, OFL_QP_INIT));
    CHECK_OK(ofl_qp_establish(&s->qp, NULL, 1460, B_ISN, 1u << 20));
}

/* The PDUs a sent: calls back with each BHS and its data. */
static int sent_pdus(struct qr_rig *r, uint8_t *bhs_out, uint8_t *data_out,
                     uint32_t *data_len, int max)
{
    struct qr_wire *w = &r->ab;
    uint32_t off = 0, dl;
    int k = 0;

    while (off + 48 <= w->len && k < max) {
        const uint8_t *b = w->buf + off;

        dl = ((uint32_t)b[5] << 16) | ((uint32_t)b[6] << 8) | b[7];
        memcpy(bhs_out + 48 * k, b, 48);
        memcpy(data_out + 8192 * k, b + 48, dl < 8192 ? dl : 8192);
        data_len[k] = dl;
        off += 48 + ((dl + 3u) & ~3u);
        k++;
    }
    w->seq += w->len;
    w->len = 0;
    w->nchunk = 0;
    return k;
}

static void test_read_command(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 100, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 3 * 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0, id;
    struct ofl_qp_sge bufs[2];
    static uint8_t bhs[48 * 4], data[8192 * 4], payload[6000];
    uint32_t dl[4], i;
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;

    for (i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7 + 1);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf + 96);
    bufs[0].len = 4096 - 96;
    bufs[1].addr = ofl_sim_pa(buf + 4096);
    bufs[1].len = 6000 - (4096 - 96);
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    id = command(r, 0x40, stag, bufs, 2);
    CHECK_EQ(id, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK_EQ(bhs[0], 0x01);
    CHECK_EQ(ofl_load_be32(bhs + 16), stag); /* ITT = the iSCSI STag */
    CHECK_EQ(dl[0], 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_CMD);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, stag, &info));
    CHECK_EQ(info.type, OFL_TPT_ISCSI);
    CHECK_EQ(info.len, 6000);
    /* Data-In in two PDUs, the second split into 7-byte segments */
    CHECK_OK(data_in(&t, stag, 0, payload, 4000, false, 1460));
    CHECK_OK(data_in(&t, stag, 4000, payload + 4000, 2000, false, 7));
    {
        static uint8_t got[6000];

        memcpy(got, buf + 96, 4096 - 96);
        memcpy(got + 4096 - 96, buf + 4096, 6000 - (4096 - 96));
        CHECK(memcmp(got, payload, 6000) == 0);
    }
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    /* the response: the receive WQE with the command ID, the entry gone */
    CHECK_OK(response(&t, stag, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].imm, id);
    CHECK_EQ(c[0].flags, OFL_CQE_IMM);
    CHECK_EQ(c[0].byte_len, 48);
    CHECK_EQ(resp[0], 0x21);
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, stag, &info), OFL_E_TPT_INVALID_STAG);
    CHECK_EQ(r->a.qp.iscsi_exp_statsn, 101);
    CHECK_EQ(r->a.sim.violations, 0);
    /* a second read command ends with status in its Data-In (S bit) */
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    CHECK_OK(qr_post_recv(&r->a, 2, resp, 256, lresp));
    id = command(r, 0x40, stag, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK_EQ(ofl_load_be32(bhs + 28), 101); /* ExpStatSN */
    CHECK_OK(data_in(&t, stag, 0, payload, 100, true, 1460));
    CHECK(memcmp(buf + 96, payload, 100) == 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].imm, id);
    CHECK_EQ(c[0].byte_len, 48); /* the header; the data was placed */
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, stag, &info), OFL_E_TPT_INVALID_STAG);
    qr_free(r);
}

static void test_write_command(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 5, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 3 * 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0, id, i;
    struct ofl_qp_sge bufs[1];
    static uint8_t bhs[48 * 8], data[8192 * 8];
    uint32_t dl[8];
    struct ofl_cqe c[4];
    int n;

    r->a.qp.attr.iscsi_max_data = 4000;
    for (i = 0; i < 10000; i++)
        buf[i] = (uint8_t)(i ^ 0x5A);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 10000;
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    id = command(r, 0x20, stag, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 8), 1);
    /* R2T for 9000 bytes from offset 500: Data-Out of 4000, 4000, 1000 */
    CHECK_OK(r2t(&t, stag, 0xCAFE, 500, 9000));
    CHECK_EQ(r->a.qp.irq_count, 1);
    CHECK_OK(qr_process(&r->a, 0));
    n = sent_pdus(r, bhs, data, dl, 8);
    CHECK_EQ(n, 3);
    for (i = 0; i < 3 && (int)i < n; i++) {
        const uint8_t *b = bhs + 48 * i;

        CHECK_EQ(b[0], 0x05);
        CHECK_EQ(b[1], i == 2 ? 0x80 : 0x00);
        CHECK_EQ(ofl_load_be32(b + 16), stag);
        CHECK_EQ(ofl_load_be32(b + 20), 0xCAFE);
        CHECK_EQ(ofl_load_be32(b + 36), i); /* DataSN */
        CHECK_EQ(ofl_load_be32(b + 40), 500 + 4000 * i);
        CHECK_EQ(b[8], 0xA5); /* the LUN of the R2T */
        CHECK_EQ(dl[i], i == 2 ? 1000 : 4000);
        CHECK(memcmp(data + 8192 * i, buf + 500 + 4000 * i, dl[i]) == 0);
    }
    CHECK_OK(response(&t, stag, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].imm, id);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* Checks a-g: invalid Data-In and R2T go to the receive queue as they are
 * (flagged), nothing placed; a response with a bad ITT is dropped. */
static void test_invalid(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 1, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 1024, false);
    uint32_t lresp = qr_reg(&r->a, resp, 1024, LW, 0);
    uint32_t stag = 0, i;
    struct ofl_qp_sge bufs[1];
    static uint8_t bhs[48 * 2], data[8192 * 2], payload[64];
    uint32_t dl[2];
    struct ofl_cqe c[8];

    memset(payload, 0x77, sizeof(payload));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 1000;
    (void)command(r, 0x40, stag, bufs, 1); /* a read */
    CHECK_OK(qr_process(&r->a, 0));
    (void)sent_pdus(r, bhs, data, dl, 2);
    for (i = 0; i < 6; i++)
        CHECK_OK(qr_post_recv(&r->a, 10 + i, resp, 1024, lresp));
    /* d: a stale instance of the tag */
    CHECK_OK(data_in(&t, stag + 1, 0, payload, 64, false, 1460));
    /* e: beyond the entry */
    CHECK_OK(data_in(&t, stag, 990, payload, 64, false, 1460));
    /* f: an R2T for a read command (its entry has no remote read; g
     * alone: test_check_g) */
    CHECK_OK(r2t(&t, stag, 1, 0, 10));
    /* a NOP-In: not a data transfer, the consumer's */
    {
        uint8_t nop[48 + 8];

        qr_bhs_init(nop, 0x20, 0x80, 0xFFFFFFFFu, 5);
        memcpy(nop + 48, "hello\0\0\0", 8);
        CHECK_OK(to_init(r, nop, sizeof(nop), 20));
    }
    /* a response with a bad ITT: dropped */
    CHECK_OK(response(&t, stag ^ 0x100, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 8), 4);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RECV);
    CHECK_EQ(c[0].byte_len, 48 + 64);
    CHECK_EQ(c[1].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[2].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[2].byte_len, 48);
    CHECK_EQ(c[3].flags, 0);
    CHECK_EQ(c[3].byte_len, 48 + 5);
    CHECK(memcmp(resp + 48, "hello", 5) == 0);
    for (i = 0; i < 1000; i++)
        if (buf[i] != 0)
            break;
    CHECK_EQ(i, 1000); /* nothing placed */
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* a PDU with AHS, larger than the receive WQE: cut, LOC_LEN_ERR */
    {
        uint8_t p[48 + 8 + 40];

        qr_bhs_init(p, 0x24, 0x80, 0xFFFFFFFFu, 40);
        p[4] = 2; /* 8 bytes of AHS */
        memset(p + 48, 0xAB, 48);
        CHECK_OK(qr_post_recv(&r->a, 30, resp, 60, lresp));
        /* resp WQEs 14 and 15 are still posted: use them up first */
        CHECK_OK(to_init(r, p, sizeof(p), 3));
        CHECK_OK(to_init(r, p, sizeof(p), 3));
        CHECK_OK(to_init(r, p, sizeof(p), 3));
        CHECK_EQ(qr_poll(&r->a, false, c, 8), 3);
        CHECK_EQ(c[0].byte_len, 96);
        CHECK_EQ(c[2].wr_id, 30);
        CHECK_EQ(c[2].status, OFL_WC_LOC_LEN_ERR);
        CHECK_EQ(c[2].byte_len, 60);
    }
    /* no receive WQE left: the stream is reset */
    CHECK_ERR(response(&t, stag, 48), OFL_E_QP_RQ_EMPTY);
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->a.aborts, 1);
    qr_free(r);
}

/* FIG. 17A: an iSCSI command whose registration fails, option 1 and 2. */
static void test_reg_fail(void)
{
    int opt;

    for (opt = 1; opt <= 2; opt++) {
        struct qr_rig *r = irig((uint8_t)opt);
        uint8_t *buf = qr_alloc(&r->a, 4096, true);
        struct ofl_qp_sge bufs[1];
        struct ofl_qp_wr wr;
        struct ofl_cqe c[4];
        static uint8_t bhs[48], data[8192];
        uint32_t dl;

        bufs[0].addr = ofl_sim_pa(buf);
        bufs[0].len = 100;
        (void)command(r, 0x40, 0x4400, bufs, 1); /* no such entry */
        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_ISCSI_PDU;
        wr.flags = OFL_QP_WR_SIGNALED;
        qr_bhs_init(wr.bhs, 0x00, 0x80, 0xFFFFFFFFu, 0);
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
        CHECK_OK(qr_post_recv(&r->a, 5, NULL, 0, 0));
        (void)qr_process(&r->a, 0);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 2);
        CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
        CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
        CHECK_EQ(sent_pdus(r, bhs, data, &dl, 1), 0);
        if (opt == 1) {
            CHECK_EQ(r->a.qp.state, OFL_QP_SQD);
            CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
        } else {
            CHECK_EQ(r->a.qp.state, OFL_QP_ERROR);
            CHECK_EQ(r->a.aborts, 1); /* the iSCSI stream is reset */
            CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
            CHECK_EQ(c[0].status, OFL_WC_WR_FLUSH_ERR);
        }
        qr_free(r);
    }
}

/* Other initiator PDUs: the consumer's BHS, DataSegmentLength set. */
static void test_pdu(void)
{
    struct qr_rig *r = irig(1);
    uint8_t *d = qr_alloc(&r->a, 64, false);
    uint32_t ld = qr_reg(&r->a, d, 64, LR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    static uint8_t bhs[48 * 2], data[8192 * 2];
    uint32_t dl[2];
    struct ofl_cqe c[2];

    memcpy(d, "ping!", 5);
    qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 1, &sge, d, 5, ld);
    qr_bhs_init(wr.bhs, 0x00, 0x80, 0x1234, 999);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 2), 1);
    CHECK_EQ(dl[0], 5);
    CHECK_EQ(ofl_load_be32(bhs + 16), 0x1234);
    CHECK(memcmp(data, "ping!", 5) == 0);
    CHECK_EQ(r->ab.seq - QR_ISN_AB, 48 + 8); /* padded to 4 */
    /* a data segment the TPT refuses: SQE */
    qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 2, &sge, d, 5, ld + 1);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    qr_free(r);
    /* a data segment that passes its checks but whose read fails (DMA):
     * LOC_ACCESS_ERR, SQE, no PDU sent */
    r = irig(1);
    d = qr_alloc(&r->a, 64, false);
    ld = qr_reg(&r->a, d, 64, LR, 0);
    qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 3, &sge, d, 5, ld);
    qr_bhs_init(wr.bhs, 0x00, 0x80, 0x1235, 0);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    r->a.sim.fail_dma_countdown = 1;
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    CHECK_EQ(qr_poll(&r->a, true, c, 2), 1);
    CHECK_EQ(c[0].wr_id, 3);
    CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 2), 0);
    qr_free(r);
}

/* The rest of the iSCSI paths: refused transmissions, DMA failures, the
 * inbound queue full, a PDU too large, check f for Data-In. */
static void test_iscsi_edges(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 1, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 8192, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0, i;
    struct ofl_qp_sge bufs[1];
    static uint8_t bhs[48 * 16], data[8192 * 16], payload[64];
    uint32_t dl[16];
    struct ofl_cqe c[16];

    memset(payload, 0x11, sizeof(payload));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 8000;
    /* a write command, its PDU refused once */
    (void)command(r, 0x20, stag, bufs, 1);
    r->a.refuse = 1;
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 16), 1);
    /* Data-In for a write command (check f: its entry has no remote
     * write) goes to the receive queue */
    for (i = 0; i < 12; i++)
        CHECK_OK(qr_post_recv(&r->a, 100 + i, resp, 256, lresp));
    CHECK_OK(data_in(&t, stag, 0, payload, 16, false, 1460));
    CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    /* nine R2Ts with IRD 8: the ninth goes to the receive queue; an R2T
     * with a data segment has it skipped */
    for (i = 0; i < 9; i++) {
        uint8_t p[48 + 4];

        qr_bhs_init(p, 0x31, 0x80, stag, i == 0 ? 4 : 0);
        ofl_store_be32(p + 20, i);
        ofl_store_be32(p + 40, 0);
        ofl_store_be32(p + 44, 10);
        memset(p + 48, 0, 4);
        CHECK_OK(to_init(r, p, i == 0 ? 52 : 48, 52));
    }
    CHECK_EQ(r->a.qp.irq_count, 8);
    CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    /* Data-Out: the first refused, the rest go */
    r->a.refuse = 1;
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 16), 8);
    CHECK_EQ(ofl_load_be32(bhs + 20), 0); /* TTT of the first R2T */
    /* a PDU too large for the transmit buffer: LOC_LEN_ERR, SQE */
    {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge s;
        uint8_t *big = qr_alloc(&r->a, 30000, false);
        uint32_t lb = qr_reg(&r->a, big, 30000, LR, 0);

        qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 50, &s, big, 30000, lb);
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
        qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 51, &s, big, 0x1000000u, lb);
        CHECK_ERR(ofl_qp_post_send(&r->a.qp, &wr, NULL), OFL_E_QP_WR);
        CHECK_OK(qr_process(&r->a, 0));
        CHECK(qr_poll(&r->a, true, c, 16) >= 1);
        CHECK_EQ(r->a.qp.state, OFL_QP_SQE);
    }
    qr_free(r);
    /* DMA failures: reading Data-Out data, placing Data-In, copying to a
     * receive WQE (its data, i 2, or the header, i 4, the receive WQE
     * completing with the error); and a final Data-In with no receive
     * WQE */
    for (i = 0; i < 5; i++) {
        r = irig(1);
        t.r = r;
        buf = qr_alloc(&r->a, 8192, true);
        resp = qr_alloc(&r->a, 256, false);
        lresp = qr_reg(&r->a, resp, 256, LW, 0);
        CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
        bufs[0].addr = ofl_sim_pa(buf);
        bufs[0].len = 4000;
        (void)command(r, i == 0 ? 0x20 : 0x40, stag, bufs, 1);
        CHECK_OK(qr_process(&r->a, 0));
        (void)sent_pdus(r, bhs, data, dl, 16);
        if (i != 3)
            CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
        if (i == 0) {
            CHECK_OK(r2t(&t, stag, 1, 0, 100));
            r->a.sim.fail_dma_countdown = 1;
            CHECK_ERR(qr_process(&r->a, 0), OFL_E_PORT_DMA);
        } else if (i == 1) {
            r->a.sim.fail_dma_countdown = 1;
            CHECK_ERR(data_in(&t, stag, 0, payload, 16, false, 1460),
                      OFL_E_PORT_DMA);
        } else if (i == 2) {
            r->a.sim.fail_dma_countdown = 2; /* the header, then the data */
            CHECK_ERR(data_in(&t, stag + 1, 0, payload, 16, false, 1460),
                      OFL_E_PORT_DMA);
        } else if (i == 4) {
            r->a.sim.fail_dma_countdown = 1; /* the header */
            CHECK_ERR(data_in(&t, stag + 1, 0, payload, 16, false, 1460),
                      OFL_E_PORT_DMA);
        } else {
            CHECK_ERR(data_in(&t, stag, 0, payload, 16, true, 1460),
                      OFL_E_QP_RQ_EMPTY);
        }
        CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
        CHECK_EQ(r->a.aborts, 1); /* the iSCSI stream is reset */
        if (i == 2 || i == 4) {
            CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
            CHECK_EQ(c[0].wr_id, 1);
            CHECK_EQ(c[0].status, OFL_WC_LOC_ACCESS_ERR);
        }
        qr_free(r);
    }
    /* a receive WQE whose segment fails its checks: the stream is reset;
     * the bytes after the failing PDU in the same segment are not taken */
    r = irig(1);
    t.r = r;
    resp = qr_alloc(&r->a, 256, false);
    lresp = qr_reg(&r->a, resp, 256, LR, 0); /* no local write */
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    {
        uint8_t two[96];

        qr_bhs_init(two, 0x20, 0x80, 0xFFFFFFFFu, 0);
        qr_bhs_init(two + 48, 0x20, 0x80, 0xFFFFFFFFu, 0);
        CHECK_ERR(to_init(r, two, 96, 96), OFL_E_TPT_ACCESS);
    }
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    qr_free(r);
    /* an R2T still queued when the target's response ended the command
     * (the entry deregistered, FIG. 17A step 1768): dropped with the
     * command, no Data-Out goes, the stream carries on */
    r = irig(1);
    t.r = r;
    buf = qr_alloc(&r->a, 8192, true);
    resp = qr_alloc(&r->a, 256, false);
    lresp = qr_reg(&r->a, resp, 256, LW, 0);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 4000;
    (void)command(r, 0x20, stag, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    (void)sent_pdus(r, bhs, data, dl, 16);
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    CHECK_OK(r2t(&t, stag, 1, 0, 100));
    CHECK_EQ(r->a.qp.irq_count, 1);
    CHECK_OK(response(&t, stag, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(r->a.qp.irq_count, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.aborts, 0);
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 16), 0);
    qr_free(r);
}

/* Registers s2 (allocated in PD 99) as a command of kind (1 read, 2
 * write) over the 4 KiB page secret, reachable by the target (remote
 * write for a read, remote read for a write). */
static void secret_command(struct qr_rig *r, uint32_t s2, uint32_t kind,
                           const uint8_t *secret)
{
    uint64_t word = ofl_sim_pa(secret) | OFL_TPT_ATT_PRESENT;
    struct ofl_tpt_region_desc d;

    memset(&d, 0, sizeof(d));
    d.va = ((uint64_t)kind << 32) | 9u;
    d.len = 4096;
    d.att_base = 900;
    d.att_count = 1;
    d.page_shift = 12;
    d.access = kind == 1 ? (LR | LW | OFL_TPT_REMOTE_WRITE)
                         : (LR | OFL_TPT_REMOTE_READ);
    CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 900, &word, 1));
    CHECK_OK(ofl_tpt_register(&r->a.tpt, s2, 99, &d));
}

/*
 * An R2T's life: checked again (FIG. 17B a-g) as each Data-Out is read,
 * dropped when its command ends, the others answered in order.
 */
static void test_r2t_lifetime(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 1, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 8192, true);
    uint8_t *secret = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t sa = 0, sb = 0, s2 = 0, i;
    struct ofl_qp_sge bufs[1];
    static uint8_t bhs[48 * 16], data[8192 * 16];
    uint32_t dl[16];
    struct ofl_cqe c[16];
    int n;

    for (i = 0; i < 8192; i++)
        buf[i] = (uint8_t)(i + 1);
    memset(secret, 0x5E, 4096);
    /* two write commands, A over buf[0, 4000), B over buf[4096, 8096) */
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &sa));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &sb));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 4000;
    (void)command(r, 0x20, sa, bufs, 1);
    bufs[0].addr = ofl_sim_pa(buf + 4096);
    (void)command(r, 0x20, sb, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 16), 2);
    CHECK_EQ(qr_poll(&r->a, true, c, 16), 2);
    /* R2Ts A, B, A queued; A's response drops both of A's */
    CHECK_OK(r2t(&t, sa, 1, 0, 100));
    CHECK_OK(r2t(&t, sb, 2, 8, 50));
    CHECK_OK(r2t(&t, sa, 3, 200, 100));
    CHECK_EQ(r->a.qp.irq_count, 3);
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    CHECK_OK(response(&t, sa, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 16), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(r->a.qp.irq_count, 1);
    CHECK_OK(qr_process(&r->a, 0));
    n = sent_pdus(r, bhs, data, dl, 16);
    CHECK_EQ(n, 1); /* B's alone */
    CHECK_EQ(bhs[0], 0x05);
    CHECK_EQ(ofl_load_be32(bhs + 16), sb);
    CHECK_EQ(ofl_load_be32(bhs + 20), 2);
    CHECK_EQ(ofl_load_be32(bhs + 40), 8);
    CHECK_EQ(dl[0], 50);
    CHECK(memcmp(data, buf + 4096 + 8, 50) == 0);
    CHECK_EQ(r->a.qp.irq_count, 0);
    /* B's next R2T; meanwhile the consumer deregisters B and, after 255
     * more lives of the index, gives the same STag to another PD's read
     * command over a secret: the Data-Out's check refuses it (PD), the
     * secret never goes out */
    CHECK_OK(r2t(&t, sb, 4, 0, 64));
    CHECK_EQ(r->a.qp.irq_count, 1);
    CHECK_OK(ofl_tpt_dereg(&r->a.tpt, sb, 7)); /* back to FREE */
    s2 = qr_stag_round(&r->a, OFL_TPT_ISCSI, 99);
    CHECK_EQ(s2, sb); /* the 8-bit key has come round */
    secret_command(r, s2, 2, secret); /* a write command of PD 99 */
    CHECK_ERR(qr_process(&r->a, 0), OFL_E_TPT_PD_MISMATCH);
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 16), 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* R2Ts and Data-In the target may not send (RFC 3720 §10.7, §10.8): an
 * R2T of length 0 or past 2^32 of buffer offset, a Data-In with S and not
 * F. Each is handed over flagged, nothing queued, placed or ended. */
static void test_bad_transfers(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 1, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t sw = 0, sr = 0;
    struct ofl_qp_sge bufs[1];
    static uint8_t bhs[48 * 4], data[8192 * 4], payload[32];
    uint32_t dl[4], i;
    struct ofl_tpt_info info;
    struct ofl_cqe c[8];

    memset(payload, 0x77, sizeof(payload));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &sw));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &sr));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 1000;
    (void)command(r, 0x20, sw, bufs, 1);
    (void)command(r, 0x40, sr, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 2);
    CHECK_EQ(qr_poll(&r->a, true, c, 8), 2);
    for (i = 0; i < 4; i++)
        CHECK_OK(qr_post_recv(&r->a, 10 + i, resp, 256, lresp));
    CHECK_OK(r2t(&t, sw, 1, 0, 0));                     /* length 0 */
    CHECK_OK(r2t(&t, sw, 2, 0xFFFFFF00u, 0x101));       /* past 2^32 */
    CHECK_OK(r2t(&t, sw, 3, 0, 1000));                  /* sound */
    CHECK_EQ(r->a.qp.irq_count, 1);
    {
        static uint8_t pdu[48 + 32];

        qr_bhs_init(pdu, 0x25, 0x01, sr, 32); /* S without F */
        memcpy(pdu + 48, payload, 32);
        CHECK_OK(to_init(r, pdu, sizeof(pdu), 1460));
    }
    CHECK_EQ(qr_poll(&r->a, false, c, 8), 3);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(c[i].wr_id, 10 + i);
        CHECK_EQ(c[i].opcode, OFL_QP_OP_ISCSI_RECV);
        CHECK_EQ(c[i].flags, OFL_CQE_ISCSI_CHECK);
    }
    CHECK_EQ(c[2].byte_len, 48 + 32);
    CHECK(buf[0] != 0x77);                       /* not placed */
    CHECK_OK(ofl_tpt_query(&r->a.tpt, sr, &info)); /* not ended */
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1); /* the sound R2T's */
    CHECK_EQ(dl[0], 1000);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    qr_free(r);
}

/* ExpStatSN follows every PDU that advances StatSN (RFC 3720 §3.2.2.2):
 * responses of every kind and a NOP-In answering a ping; not a NOP-In of
 * the target's own (ITT 0xffffffff), not an R2T. */
static void test_exp_statsn(void)
{
    struct qr_rig *r = irig(1);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    static const struct {
        uint8_t op, flags;
        uint32_t itt, statsn, want;
    } k[] = {
        {0x22, 0x80, 5, 500, 501},          /* Task Management Response */
        {0x24, 0x80, 5, 510, 511},          /* Text Response */
        {0x26, 0x80, 5, 520, 521},          /* Logout Response */
        {0x32, 0x80, 0xFFFFFFFFu, 530, 531}, /* Asynchronous Message */
        {0x3F, 0x80, 0xFFFFFFFFu, 540, 541}, /* Reject */
        {0x20, 0x80, 0xFFFFFFFFu, 600, 541}, /* NOP-In, unsolicited */
        {0x20, 0x80, 9, 700, 701},          /* NOP-In answering a ping */
        {0x23, 0x80, 5, 710, 711},          /* Login Response */
    };
    static uint8_t bhs[48 * 4], data[8192 * 4];
    uint32_t dl[4], i;
    struct ofl_cqe c[4];

    for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        uint8_t pdu[48];
        struct ofl_qp_wr wr;

        CHECK_OK(qr_post_recv(&r->a, i, resp, 256, lresp));
        qr_bhs_init(pdu, k[i].op, k[i].flags, k[i].itt, 0);
        ofl_store_be32(pdu + 24, k[i].statsn);
        CHECK_OK(to_init(r, pdu, 48, 48));
        CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
        CHECK_EQ(r->a.qp.iscsi_exp_statsn, k[i].want);
        memset(&wr, 0, sizeof(wr));
        wr.opcode = OFL_QP_OP_ISCSI_PDU;
        qr_bhs_init(wr.bhs, 0x00, 0x80, 0xFFFFFFFFu, 0);
        ofl_store_be32(wr.bhs + 28, 1); /* the engine's value wins */
        CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
        CHECK_OK(qr_process(&r->a, 0));
        CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
        CHECK_EQ(ofl_load_be32(bhs + 28), k[i].want);
    }
    /* A SCSI Response dropped for its ITT (FIG. 17A step 1768) advances
     * nothing; an older StatSN does not move ExpStatSN back. */
    {
        uint8_t pdu[48];

        qr_bhs_init(pdu, 0x21, 0x80, 0x12345678u, 0); /* no such ITT */
        ofl_store_be32(pdu + 24, 900);
        CHECK_OK(to_init(r, pdu, 48, 48));
        CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
        CHECK_EQ(r->a.qp.iscsi_exp_statsn, 711);
        CHECK_OK(qr_post_recv(&r->a, 20, resp, 256, lresp));
        qr_bhs_init(pdu, 0x20, 0x80, 9, 0); /* NOP-In answering a ping */
        ofl_store_be32(pdu + 24, 5);
        CHECK_OK(to_init(r, pdu, 48, 48));
        CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
        CHECK_EQ(r->a.qp.iscsi_exp_statsn, 711);
        CHECK_OK(qr_post_recv(&r->a, 21, resp, 256, lresp));
        ofl_store_be32(pdu + 24, 711); /* the next one: taken */
        CHECK_OK(to_init(r, pdu, 48, 48));
        CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
        CHECK_EQ(r->a.qp.iscsi_exp_statsn, 712);
    }
    qr_free(r);
}

/* A read command of PD 7 over buf[0, 1000): posted, sent and completed;
 * returns its ITT. */
static uint32_t read_command(struct qr_rig *r, uint8_t *buf)
{
    static uint8_t bhs[48 * 4], data[8192 * 4];
    struct ofl_qp_sge bufs[1];
    struct ofl_cqe c[4];
    uint32_t dl[4], stag = 0;

    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 1000;
    (void)command(r, 0x40, stag, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    return stag;
}

/*
 * A PDU whose ITT passed FIG. 17B at its header, and whose command ends
 * before the rest of it arrives (the consumer deregistered it and the tag
 * came round to another entry): a Data-In's later bytes are not placed
 * through the new entry (the stream breaks), and a Response's end does not
 * end the new command (handed over flagged).
 */
static void test_itt_reused_mid_pdu(void)
{
    struct qr_rig *r = irig(1);
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint8_t *secret = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0, s2, id2;
    struct ofl_qp_sge bufs[1];
    static uint8_t pdu[48 + 128], bhs[48 * 4], data[8192 * 4];
    uint32_t dl[4];
    struct ofl_tpt_info info;
    struct ofl_cqe c[4];

    /* Data-In: 8 bytes placed, then the tag is another PD's */
    memset(secret, 0x5E, 4096);
    stag = read_command(r, buf);
    qr_bhs_init(pdu, 0x25, 0x00, stag, 128);
    memset(pdu + 48, 0xEE, 128);
    CHECK_OK(to_init(r, pdu, 48 + 8, 48 + 8));
    CHECK_EQ(buf[7], 0xEE);
    CHECK_OK(ofl_tpt_dereg(&r->a.tpt, stag, 7));
    s2 = qr_stag_round(&r->a, OFL_TPT_ISCSI, 99);
    CHECK_EQ(s2, stag);
    secret_command(r, s2, 1, secret); /* a read command of PD 99 */
    CHECK_ERR(to_init(r, pdu + 56, 120, 120), OFL_E_TPT_PD_MISMATCH);
    CHECK_EQ(secret[8], 0x5E); /* nothing placed there */
    CHECK_EQ(r->a.qp.state, OFL_QP_TERMINATE);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);

    /* Response: its end finds a new command of the same PD on the tag */
    r = irig(1);
    buf = qr_alloc(&r->a, 4096, true);
    resp = qr_alloc(&r->a, 256, false);
    lresp = qr_reg(&r->a, resp, 256, LW, 0);
    stag = read_command(r, buf);
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    qr_bhs_init(pdu, 0x21, 0x80, stag, 32); /* 32 bytes of sense data */
    CHECK_OK(to_init(r, pdu, 52, 52));
    CHECK_OK(ofl_tpt_dereg(&r->a.tpt, stag, 7));
    s2 = qr_stag_round(&r->a, OFL_TPT_ISCSI, 7);
    CHECK_EQ(s2, stag);
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 1000;
    id2 = command(r, 0x40, s2, bufs, 1); /* a new command on the tag */
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK(id2 != 0);
    CHECK_OK(to_init(r, pdu + 52, 28, 28));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RECV);
    CHECK(c[0].flags & OFL_CQE_ISCSI_CHECK);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, s2, &info)); /* still registered */
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    qr_free(r);
}

/*
 * A command without data (TEST UNIT READY): num_sge 0, so its entry
 * describes no data, yet the ITT still names it and its SCSI Response
 * completes as ISCSI_RESP with the command ID (FIG. 17A step 1768). A
 * Data-In or an R2T for it fails FIG. 17B and is handed over flagged. A
 * command with buffers but neither R nor W: its response passes too (check
 * g is about the direction of a data transfer).
 */
static void test_no_data_command(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 40, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0, id;
    static uint8_t bhs[48 * 4], data[8192 * 4], payload[16];
    struct ofl_qp_sge bufs[1];
    struct ofl_tpt_info info;
    struct ofl_cqe c[4];
    uint32_t dl[4];

    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    CHECK_OK(qr_post_recv(&r->a, 2, resp, 256, lresp));
    id = command(r, 0x00, stag, NULL, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK_EQ(bhs[0], 0x01);
    CHECK_EQ(ofl_load_be32(bhs + 16), stag);
    CHECK_EQ(dl[0], 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, stag, &info));
    CHECK_EQ(info.type, OFL_TPT_ISCSI);
    CHECK_EQ(info.len, 0);
    /* Data-In for it: nothing to place into; to the receive queue */
    CHECK_OK(data_in(&t, stag, 0, payload, 16, false, 1460));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 1);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RECV);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    /* its response: the command ID, the entry gone */
    CHECK_OK(response(&t, stag, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 2);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].imm, id);
    CHECK_EQ(c[0].flags, OFL_CQE_IMM);
    CHECK_EQ(resp[0], 0x21);
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, stag, &info), OFL_E_TPT_INVALID_STAG);
    /* buffers, but neither R nor W: an R2T fails g, the response passes */
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    CHECK_OK(qr_post_recv(&r->a, 3, resp, 256, lresp));
    CHECK_OK(qr_post_recv(&r->a, 4, resp, 256, lresp));
    bufs[0].addr = ofl_sim_pa(buf);
    bufs[0].len = 100;
    id = command(r, 0x00, stag, bufs, 1);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(sent_pdus(r, bhs, data, dl, 4), 1);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_OK(r2t(&t, stag, 3, 0, 10));
    CHECK_EQ(r->a.qp.irq_count, 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 3);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_OK(response(&t, stag, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 4);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].imm, id);
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, stag, &info), OFL_E_TPT_INVALID_STAG);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/* Check g alone (FIG. 17B g: the command kind kept in the entry's VA must
 * match the message): an iSCSI entry the consumer registered itself for the
 * QP (ofl_tpt_register_iscsi) with both remote rights, so a-f pass for R2T
 * and Data-In alike, but whose VA names a read command. Data-In passes g and
 * is placed; an R2T trips g and goes to the receive queue as it is
 * (flagged), nothing queued to answer. */
static void test_check_g(void)
{
    struct qr_rig *r = irig(1);
    struct target t = {r, 1, NULL, 0};
    uint8_t *buf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lresp = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t stag = 0;
    uint64_t word = ofl_sim_pa(buf) | OFL_TPT_ATT_PRESENT;
    struct ofl_tpt_region_desc d;
    static uint8_t payload[32];
    struct ofl_cqe c[4];

    memset(payload, 0x3C, sizeof(payload));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &stag));
    CHECK_OK(ofl_tpt_att_write(&r->a.tpt, 700, &word, 1));
    memset(&d, 0, sizeof(d));
    d.va = ((uint64_t)1 << 32) | 42u; /* kind: read (1), command ID 42 */
    d.len = 1000;
    d.att_base = 700;
    d.att_count = 1;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
               OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE;
    CHECK_OK(ofl_tpt_register_iscsi(&r->a.tpt, stag, 7, r->a.attr.qpn, &d));
    CHECK_OK(qr_post_recv(&r->a, 1, resp, 256, lresp));
    /* Data-In for a read command: g passes, placed, no receive WQE used */
    CHECK_OK(data_in(&t, stag, 0, payload, 32, false, 1460));
    CHECK(memcmp(buf, payload, 32) == 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    /* R2T for the same (read) command: g fails, to the receive queue */
    CHECK_OK(r2t(&t, stag, 9, 0, 10));
    CHECK_EQ(r->a.qp.irq_count, 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RECV);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[0].byte_len, 48);
    CHECK_EQ(resp[0], 0x31);
    CHECK_OK(qr_process(&r->a, 0)); /* no Data-Out goes */
    CHECK_EQ(r->ab.len, 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/*
 * A task tag belongs to its connection (issue 26; RFC 3720 connection
 * allegiance): two iSCSI QPs in one PD over one TPT. A target on
 * connection A that names a command of connection B names no task of A:
 * its Data-In goes to A's receive queue flagged (nothing placed in B's read
 * buffer), its R2T too (no Data-Out with B's write data), its SCSI
 * Response is dropped (B's entry stays, B's command is not completed on
 * A). B's own target then runs both commands to their end as usual.
 */
static void test_cross_connection(void)
{
    struct qr_rig *r = irig(1);
    struct target ta = {r, 1, NULL, 0};
    struct target tb = {r, 50, &r->b.qp, B_ISN};
    uint8_t *rbuf = qr_alloc(&r->a, 4096, true);
    uint8_t *wbuf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp_a = qr_alloc(&r->a, 256, false);
    uint8_t *resp_b = qr_alloc(&r->a, 256, false);
    uint32_t la = qr_reg(&r->a, resp_a, 256, LW, 0);
    uint32_t lb = qr_reg(&r->a, resp_b, 256, LW, 0);
    uint32_t rd = 0, wr = 0, idr, idw, i;
    struct ofl_qp_sge rbufs[1], wbufs[1];
    static uint8_t payload[64];
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;

    memset(payload, 0x6B, sizeof(payload));
    for (i = 0; i < 4096; i++)
        wbuf[i] = (uint8_t)(i * 3 + 1);
    second_qp(r, 2);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &rd));
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &wr));
    rbufs[0].addr = ofl_sim_pa(rbuf);
    rbufs[0].len = 1000;
    wbufs[0].addr = ofl_sim_pa(wbuf);
    wbufs[0].len = 1000;
    for (i = 0; i < 2; i++) {
        CHECK_OK(qr_post_recv(&r->b, 20 + i, resp_b, 256, lb));
        CHECK_OK(qr_post_recv(&r->a, 10 + i, resp_a, 256, la));
    }
    idr = command_on(&r->b.qp, 0x40, rd, rbufs, 1);
    idw = command_on(&r->b.qp, 0x20, wr, wbufs, 1);
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(b_out_len, 2 * 48); /* B's two commands went out on B */
    CHECK_EQ(qr_poll(&r->b, true, c, 4), 2);
    /* Data-In on A with B's read ITT: not placed, to A's RQ flagged */
    CHECK_OK(data_in(&ta, rd, 0, payload, 64, false, 1460));
    for (i = 0; i < 1000; i++)
        if (rbuf[i] != 0)
            break;
    CHECK_EQ(i, 1000);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 10);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RECV);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[0].byte_len, 48 + 64);
    /* R2T on A with B's write ITT: no Data-Out, to A's RQ flagged */
    CHECK_OK(r2t(&ta, wr, 7, 0, 100));
    CHECK_EQ(r->a.qp.irq_count, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->ab.len, 0);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 11);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(c[0].byte_len, 48);
    /* SCSI Responses on A with B's ITTs: dropped (FIG. 17A step 1768);
     * B's entries live on, A's StatSN does not move */
    CHECK_OK(response(&ta, rd, 48));
    CHECK_OK(response(&ta, wr, 48));
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 0);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, rd, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, wr, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_EQ(r->a.qp.iscsi_statsn_known, 0);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* B's own target: placed, answered, ended, on B */
    CHECK_OK(data_in(&tb, rd, 0, payload, 64, false, 1460));
    CHECK(memcmp(rbuf, payload, 64) == 0);
    CHECK_OK(r2t(&tb, wr, 7, 0, 100));
    CHECK_EQ(r->b.qp.irq_count, 1);
    b_out_len = 0;
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(b_out_len, 48 + 100);
    CHECK_EQ(b_out[0], 0x05); /* Data-Out */
    CHECK_EQ(ofl_load_be32(b_out + 16), wr);
    CHECK(memcmp(b_out + 48, wbuf, 100) == 0);
    CHECK_OK(response(&tb, rd, 48));
    CHECK_OK(response(&tb, wr, 48));
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 2);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[0].imm, idr);
    CHECK_EQ(c[1].opcode, OFL_QP_OP_ISCSI_RESP);
    CHECK_EQ(c[1].imm, idw);
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, rd, &info), OFL_E_TPT_INVALID_STAG);
    CHECK_ERR(ofl_tpt_query(&r->a.tpt, wr, &info), OFL_E_TPT_INVALID_STAG);
    CHECK_EQ(qr_poll(&r->a, false, c, 4), 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

/*
 * A QP's life ends with commands still live: their entries die with it
 * (ofl_tpt_invalidate_qp), at its RESET and when a QP is created under its
 * number, so the next connection on that number cannot take over its
 * tasks: a Data-In naming one goes to the receive queue flagged, nothing
 * placed. An iSCSI QP cannot take the number OFL_TPT_QP_NONE.
 */
static void test_qp_end_kills_tasks(void)
{
    struct qr_rig *r = irig(1);
    struct target tb = {r, 1, &r->b.qp, B_ISN};
    uint8_t *rbuf = qr_alloc(&r->a, 4096, true);
    uint8_t *resp = qr_alloc(&r->a, 256, false);
    uint32_t lr = qr_reg(&r->a, resp, 256, LW, 0);
    uint32_t t1 = 0, t2 = 0, i;
    struct ofl_qp_sge bufs[1];
    static uint8_t payload[64];
    struct ofl_cqe c[4];
    struct ofl_tpt_info info;
    struct ofl_qp_attr bad;
    static struct ofl_qp spare; /* off the stack: kernel frames */

    memset(payload, 0x5D, sizeof(payload));
    bufs[0].addr = ofl_sim_pa(rbuf);
    bufs[0].len = 1000;
    /* RESET ends the life: the entry of its live command dies */
    second_qp(r, 2);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &t1));
    (void)command_on(&r->b.qp, 0x40, t1, bufs, 1);
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_OK(ofl_tpt_query(&r->a.tpt, t1, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    CHECK_OK(ofl_qp_modify(&r->b.qp, OFL_QP_ERROR));
    CHECK_OK(ofl_tpt_query(&r->a.tpt, t1, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID); /* ERROR is not the end yet */
    CHECK_OK(ofl_qp_modify(&r->b.qp, OFL_QP_RESET));
    CHECK_OK(ofl_tpt_query(&r->a.tpt, t1, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    /* a QP created under the number (the slot reused) ends it too */
    second_qp(r, 2);
    CHECK_OK(ofl_tpt_alloc(&r->a.tpt, OFL_TPT_ISCSI, 7, 0, &t2));
    (void)command_on(&r->b.qp, 0x40, t2, bufs, 1);
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_OK(ofl_tpt_query(&r->a.tpt, t2, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID);
    second_qp(r, 2);
    CHECK_OK(ofl_tpt_query(&r->a.tpt, t2, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    /* the new connection's target names the dead task: not placed */
    CHECK_OK(qr_post_recv(&r->b, 30, resp, 256, lr));
    CHECK_OK(data_in(&tb, t2, 0, payload, 64, false, 1460));
    for (i = 0; i < 1000; i++)
        if (rbuf[i] != 0)
            break;
    CHECK_EQ(i, 1000);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].flags, OFL_CQE_ISCSI_CHECK);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* the consumer takes the dead entries back */
    CHECK_OK(ofl_tpt_dereg(&r->a.tpt, t1, 7));
    CHECK_OK(ofl_tpt_dereg(&r->a.tpt, t2, 7));
    /* side a's entries were never the second connection's business */
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    /* no QP number may be the owner "none" */
    bad = r->b.attr;
    bad.qpn = OFL_TPT_QP_NONE;
    CHECK_ERR(ofl_qp_create(&spare, &bad, &r->b.qmem), OFL_E_ARG);
    bad.qpn = 0xFFFFFFFEu;
    CHECK_OK(ofl_qp_create(&spare, &bad, &r->b.qmem));
    CHECK_EQ(r->a.sim.violations, 0);
    qr_free(r);
}

OFL_SUITE(qp_iscsi)
{
    test_read_command();
    test_write_command();
    test_invalid();
    test_reg_fail();
    test_pdu();
    test_iscsi_edges();
    test_check_g();
    test_no_data_command();
    test_r2t_lifetime();
    test_bad_transfers();
    test_exp_statsn();
    test_itt_reused_mid_pdu();
    test_cross_connection();
    test_qp_end_kills_tasks();
}
