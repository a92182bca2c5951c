/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: the transmit reservation (attr.tx_reserve). The rig's wire lends
 * its free space; every stream frame must be built there and taken
 * without a copy; a refused reservation is a refused transmit (nothing
 * moved, built again later); an abandoned one is replaced. */
#include "test.h"
#include "support/qp_rig.h"

#include <stdlib.h>

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define RR OFL_TPT_REMOTE_READ

#define SZ 65000u

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static struct qr_rig *rig(bool reserve, bool crc, bool markers)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = crc;
    o.markers = markers;
    o.tx_cap = QR_TX_MAX;
    o.tx_reserve = reserve;
    return qr_new(&o);
}

/* Frames with data a side handed to its transmit: every one of them was
 * built in its reservation. */
static void all_in_place(const struct qr_side *s)
{
    CHECK(s->in_place > 0);
    CHECK_EQ(s->copied, 0);
    CHECK(s->reserves >= s->in_place);
}

/* A Read of 65000 bytes, a Write of 65000 bytes and a Send, a to b and
 * back, with CRC and with markers: the data arrives, every frame of both
 * sides built in place; the same traffic without the hook copies each. */
static void test_stream(void)
{
    unsigned v;

    for (v = 0; v < 4; v++) {
        const bool reserve = v != 3, crc = v != 1, markers = v == 2;
        struct qr_rig *r = rig(reserve, crc, markers);
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[4];
        uint8_t *src, *dst, *back, *rbuf;
        uint32_t ls, ld, lb, lr, i;

        CHECK(r != NULL);
        if (r == NULL)
            return;
        src = qr_alloc(&r->a, SZ, false);
        dst = qr_alloc(&r->b, SZ, true);
        back = qr_alloc(&r->b, SZ, false);
        rbuf = qr_alloc(&r->b, 64, false);
        for (i = 0; i < SZ; i++)
            src[i] = (uint8_t)(i * 7u + v);
        ls = qr_reg(&r->a, src, SZ, LR | RR, 0);
        ld = qr_reg(&r->b, dst, SZ, LW | RW, 0);
        lb = qr_reg(&r->b, back, SZ, LW, 0);
        lr = qr_reg(&r->b, rbuf, 64, LW, 0);
        qr_wr(&wr, OFL_QP_OP_READ, 7, &sge, back, SZ, lb);
        wr.remote_stag = ls;
        wr.remote_to = va(src);
        CHECK_OK(qr_post_send(&r->b, &wr));
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, SZ, ls);
        wr.remote_stag = ld;
        wr.remote_to = va(dst);
        CHECK_OK(qr_post_send(&r->a, &wr));
        CHECK_OK(qr_post_recv(&r->b, 9, rbuf, 64, lr));
        qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src + 100, 16, ls);
        CHECK_OK(qr_post_send(&r->a, &wr));
        (void)qr_pump(r, 0);
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK(memcmp(dst, src, SZ) == 0);
        CHECK(memcmp(back, src, SZ) == 0);
        CHECK(memcmp(rbuf, src + 100, 16) == 0);
        CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
        CHECK_EQ(c[0].byte_len, 16);
        CHECK_EQ(qr_poll(&r->b, true, c, 4), 1);
        CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
        CHECK_EQ(qr_poll(&r->a, true, c, 4), 2);
        if (reserve) {
            all_in_place(&r->a); /* Write, Read Response, Send */
            all_in_place(&r->b); /* the Read Request */
            CHECK(r->a.in_place >= 2u * (SZ / 16384u));
        } else {
            CHECK_EQ(r->a.reserves, 0);
            CHECK_EQ(r->a.in_place, 0);
            CHECK(r->a.copied > 0);
        }
        qr_free(r);
    }
}

/* No room lent: OFL_E_QP_TX_BLOCKED before anything moved (the wire and
 * the segmenter unchanged), then the frame is built again and taken. */
static void test_refused(void)
{
    struct qr_rig *r = rig(true, true, false);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    uint8_t *src, *rbuf;
    uint32_t ls, lr, len0;
    uint64_t blocked0;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    src = qr_alloc(&r->a, 4096, false);
    rbuf = qr_alloc(&r->b, 4096, false);
    memset(src, 0x5A, 4096);
    ls = qr_reg(&r->a, src, 4096, LR, 0);
    lr = qr_reg(&r->b, rbuf, 4096, LW, 0);
    CHECK_OK(qr_post_recv(&r->b, 1, rbuf, 4096, lr));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, 4096, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    len0 = r->ab.len;
    blocked0 = r->a.qp.stats.tx_blocked;
    r->a.lend_refuse = 2;
    CHECK_EQ(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->ab.len, len0);                 /* nothing on the wire */
    CHECK_EQ(r->a.qp.stats.tx_blocked, blocked0 + 1);
    CHECK_EQ(r->a.tx_calls, 0);                /* nothing handed over */
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 0);
    CHECK_EQ(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->ab.len, len0);
    /* room again: the message goes whole, from its first byte */
    (void)qr_pump(r, 0);
    CHECK(memcmp(rbuf, src, 4096) == 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 4096);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    all_in_place(&r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    /* a transmit that refuses after the reservation: the same */
    memset(rbuf, 0, 4096);
    CHECK_OK(qr_post_recv(&r->b, 3, rbuf, 4096, lr));
    CHECK_OK(qr_post_send(&r->a, &wr));
    r->a.refuse = 1;
    CHECK_EQ(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    (void)qr_pump(r, 0);
    CHECK(memcmp(rbuf, src, 4096) == 0);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    all_in_place(&r->a);
    qr_free(r);
}

/* b reads n bytes of a's buffer (flags: of a's region); the request is
 * delivered to a, queued there. false when the rig could not be made. */
struct read_case {
    struct qr_rig *r;
    uint8_t *src, *back;
    uint32_t ls;
};

static bool read_queued(struct read_case *k, uint32_t n, uint8_t flags)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint32_t lb;

    k->r = rig(true, true, false);
    CHECK(k->r != NULL);
    if (k->r == NULL)
        return false;
    k->src = qr_alloc(&k->r->a, n, false);
    k->back = qr_alloc(&k->r->b, n, false);
    memset(k->src, 0x3C, n);
    k->ls = qr_reg(&k->r->a, k->src, n, LR | RR, flags);
    lb = qr_reg(&k->r->b, k->back, n, LW, 0);
    qr_wr(&wr, OFL_QP_OP_READ, 4, &sge, k->back, n, lb);
    wr.remote_stag = k->ls;
    wr.remote_to = va(k->src);
    CHECK_OK(qr_post_send(&k->r->b, &wr));
    CHECK_OK(qr_process(&k->r->b, 0));
    CHECK_OK(qr_deliver(k->r, &k->r->b)); /* checked on arrival: queued */
    return true;
}

/* A Read Response refused its room: the response waits (no Terminate),
 * then goes whole. */
static void test_refused_response(void)
{
    struct read_case k;
    struct ofl_cqe c[4];
    struct ofl_rdmap_term t;

    if (!read_queued(&k, 8192, 0))
        return;
    k.r->a.lend_refuse = 1;
    CHECK_EQ(qr_process(&k.r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(k.r->a.qp.state, OFL_QP_RTS);
    CHECK(!qr_sent_term(k.r, &k.r->a, &t));
    CHECK_EQ(k.r->ab.len, 0);
    (void)qr_pump(k.r, 0);
    CHECK(memcmp(k.back, k.src, 8192) == 0);
    CHECK_EQ(qr_poll(&k.r->b, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(k.r->a.qp.state, OFL_QP_RTS);
    all_in_place(&k.r->a);
    qr_free(k.r);
}

/* A reservation given up: the Read Response's source was invalidated
 * after the request came, so its build fails after the header went into
 * the reservation; the Terminate is built in a new one and arrives. */
static void test_abandoned(void)
{
    struct read_case k;
    struct ofl_rdmap_term t;
    unsigned long res0;

    if (!read_queued(&k, 4096, OFL_TPT_F_INVALIDATABLE))
        return;
    CHECK_OK(ofl_tpt_invalidate_local(&k.r->a.tpt, k.ls, k.r->a.attr.pd));
    res0 = k.r->a.reserves;
    (void)qr_process(&k.r->a, 0);
    CHECK_EQ(k.r->a.qp.state, OFL_QP_TERMINATE);
    CHECK(qr_sent_term(k.r, &k.r->a, &t));
    CHECK_EQ(k.r->a.reserves, res0 + 2); /* the response's, given up,
                                            then the Terminate's */
    CHECK_EQ(k.r->a.copied, 0);
    CHECK(k.r->a.in_place >= 1);
    qr_free(k.r);
}

/* iSCSI PDUs are built in place too; a refused reservation sends nothing
 * and the PDU goes whole later. */
static void test_iscsi(void)
{
    struct qr_opts o;
    struct qr_rig *r;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    uint8_t *d;
    uint32_t ld;

    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_ISCSI;
    o.tx_reserve = true;
    r = qr_new(&o);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    d = qr_alloc(&r->a, 64, false);
    ld = qr_reg(&r->a, d, 64, LR, 0);
    memcpy(d, "ping!", 5);
    qr_wr(&wr, OFL_QP_OP_ISCSI_PDU, 1, &sge, d, 5, ld);
    memset(wr.bhs, 0, sizeof(wr.bhs));
    wr.bhs[0] = 0x00;
    wr.bhs[1] = 0x80;
    ofl_store_be32(wr.bhs + 16, 0x1234);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    r->a.lend_refuse = 1;
    CHECK_EQ(qr_process(&r->a, 0), OFL_E_QP_TX_BLOCKED);
    CHECK_EQ(r->ab.len, 0);
    CHECK_OK(qr_process(&r->a, 0));
    CHECK_EQ(r->ab.len, 48 + 8); /* BHS, 5 bytes padded to 4 */
    CHECK_EQ(ofl_load_be32(r->ab.buf + 16), 0x1234);
    CHECK_EQ(r->ab.buf[7], 5); /* DataSegmentLength */
    CHECK(memcmp(r->ab.buf + 48, "ping!", 5) == 0);
    CHECK_EQ(r->a.in_place, 1);
    CHECK_EQ(r->a.copied, 0);
    qr_free(r);
}

OFL_SUITE(qp_txres)
{
    test_stream();
    test_refused();
    test_refused_response();
    test_abandoned();
    test_iscsi();
}
