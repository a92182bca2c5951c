/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp: raw datagram QPs (seed 001 "Transport Services": frames untouched,
 * inbound IPv6 steered by next header and destination address) - the
 * steering table and every inbound check, each tripped and passed. */
#include "test.h"
#include "support/dg_rig.h"

static const uint8_t ADDR_A[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                   0,    0,    0,    0,    0, 0, 0, 1};
static const uint8_t ADDR_B[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                   0,    0,    0,    0,    0, 0, 0, 2};

/* An IPv6 packet: next header nh, destination dst, n payload bytes. */
static uint32_t ip6(uint8_t *f, uint8_t nh, const uint8_t *dst, uint32_t n)
{
    uint32_t i;

    memset(f, 0, OFL_RAW_HDR_LEN);
    f[0] = 0x60;
    f[4] = (uint8_t)(n >> 8);
    f[5] = (uint8_t)n;
    f[6] = nh;
    f[7] = 64;
    f[23] = 9; /* source ::9 */
    memcpy(f + 24, dst, 16);
    for (i = 0; i < n; i++)
        f[OFL_RAW_HDR_LEN + i] = (uint8_t)(0xA0 + i);
    return OFL_RAW_HDR_LEN + n;
}

static void test_steering(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    struct ofl_qp_steer st;
    struct ofl_qp_steer_entry e[2];
    struct ofl_qp *raw, *ud;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RAW;
    o.qpn = 1;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 0);
    o.service = OFL_QP_SVC_UD;
    o.qpn = 2;
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 1);
    raw = &r->n[0].q[0].qp;
    ud = &r->n[0].q[1].qp;
    CHECK_ERR(ofl_qp_steer_init(&st, NULL, 2), OFL_E_ARG);
    CHECK_ERR(ofl_qp_steer_init(&st, e, 0), OFL_E_ARG);
    CHECK_OK(ofl_qp_steer_init(&st, e, 2));
    CHECK_ERR(ofl_qp_steer_add(&st, 17, ADDR_A, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_qp_steer_add(&st, 17, ADDR_A, ud), OFL_E_QP_SERVICE);
    CHECK_OK(ofl_qp_steer_add(&st, 17, ADDR_A, raw));
    CHECK_ERR(ofl_qp_steer_add(&st, 17, ADDR_A, raw), OFL_E_QP_STEER_BUSY);
    CHECK_OK(ofl_qp_steer_add(&st, 6, ADDR_A, raw)); /* other protocol */
    CHECK_ERR(ofl_qp_steer_add(&st, 17, ADDR_B, raw), OFL_E_QP_STEER_FULL);
    CHECK_EQ(st.count, 2);
    CHECK(ofl_qp_steer_find(&st, 17, ADDR_A) == raw);
    CHECK(ofl_qp_steer_find(&st, 6, ADDR_A) == raw);
    CHECK(ofl_qp_steer_find(&st, 17, ADDR_B) == NULL);
    CHECK(ofl_qp_steer_find(&st, 58, ADDR_A) == NULL);
    CHECK_ERR(ofl_qp_steer_remove(&st, 17, ADDR_B), OFL_E_QP_STEER_NONE);
    CHECK_OK(ofl_qp_steer_remove(&st, 6, ADDR_A));
    CHECK(ofl_qp_steer_find(&st, 6, ADDR_A) == NULL);
    CHECK_ERR(ofl_qp_steer_remove(&st, 6, ADDR_A), OFL_E_QP_STEER_NONE);
    /* remove and find without a table or an address: OFL_E_ARG / NULL,
     * the table untouched (contracts of ofl_qp_steer_remove / _find) */
    CHECK_ERR(ofl_qp_steer_remove(NULL, 17, ADDR_A), OFL_E_ARG);
    CHECK_ERR(ofl_qp_steer_remove(&st, 17, NULL), OFL_E_ARG);
    CHECK(ofl_qp_steer_find(NULL, 17, ADDR_A) == NULL);
    CHECK(ofl_qp_steer_find(&st, 17, NULL) == NULL);
    CHECK_EQ(st.count, 1);
    CHECK(ofl_qp_steer_find(&st, 17, ADDR_A) == raw);
    CHECK_OK(ofl_qp_steer_add(&st, 17, ADDR_B, raw)); /* room again */
    CHECK_EQ(st.count, 2);
    dgr_free(r);
}

static void test_raw_io(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct dgr_qp_opts o;
    struct ofl_qp_steer st;
    struct ofl_qp_steer_entry e[4];
    struct ofl_qp *raw;
    struct ofl_cqe c[4];
    uint8_t f[600], *dst, *src;
    uint32_t n;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    memset(&o, 0, sizeof(o));
    o.service = OFL_QP_SVC_RAW;
    o.qpn = 1;
    o.max_dgram = 200; /* the whole frame, header included */
    CHECK(dgr_qp_add(r, 0, &o, NULL) == 0);
    raw = &r->n[0].q[0].qp;
    CHECK_OK(ofl_qp_steer_init(&st, e, 4));
    CHECK_OK(ofl_qp_steer_add(&st, 17, ADDR_A, raw));
    dst = dgr_alloc(&r->n[0], 512);

    n = ip6(f, 17, ADDR_A, 20);
    CHECK_ERR(ofl_qp_raw_input(NULL, f, n), OFL_E_ARG);
    CHECK_ERR(ofl_qp_raw_input(&st, NULL, 1), OFL_E_ARG);
    CHECK_ERR(ofl_qp_raw_input(&st, f, OFL_RAW_HDR_LEN - 1),
              OFL_E_QP_DG_SHORT);
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_RQ_EMPTY);
    CHECK_OK(dgr_recv(r, 0, 0, 1, dst, 512));
    f[0] = 0x45; /* IPv4 */
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_RAW_NOT_IPV6);
    f[0] = 0x60;
    CHECK_ERR(ofl_qp_raw_input(&st, f, n - 1), OFL_E_QP_DG_LENGTH);
    CHECK_ERR(ofl_qp_raw_input(&st, f, n + 1), OFL_E_QP_DG_LENGTH);
    f[6] = 6; /* TCP: not steered */
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_STEER_NONE);
    f[6] = 17;
    f[39] = 2; /* another destination */
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_STEER_NONE);
    f[39] = 1;
    n = ip6(f, 17, ADDR_A, 200 - OFL_RAW_HDR_LEN + 1); /* one byte more */
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_DG_TOO_LONG);
    CHECK_EQ(ofl_qp_rq_outstanding(raw), 1);
    CHECK_EQ(dgr_poll(&r->n[0], false, c, 4), 0);
    n = ip6(f, 17, ADDR_A, 200 - OFL_RAW_HDR_LEN); /* exactly max_dgram */
    CHECK_OK(ofl_qp_raw_input(&st, f, n));
    CHECK_EQ(dgr_poll(&r->n[0], false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 200);
    CHECK_EQ(c[0].flags & OFL_CQE_SRC, 0);
    /* untouched: the IPv6 header is placed with the payload */
    CHECK(memcmp(dst, f, 200) == 0);
    /* state: a QP in ERROR takes nothing */
    CHECK_OK(dgr_recv(r, 0, 0, 2, dst, 512));
    CHECK_OK(ofl_qp_modify(raw, OFL_QP_ERROR));
    (void)dgr_poll(&r->n[0], false, c, 4);
    CHECK_ERR(ofl_qp_raw_input(&st, f, n), OFL_E_QP_STATE);
    CHECK_OK(ofl_qp_modify(raw, OFL_QP_RESET));
    CHECK_OK(ofl_qp_modify(raw, OFL_QP_INIT));
    CHECK_OK(ofl_qp_modify(raw, OFL_QP_RTR));
    CHECK_OK(ofl_qp_modify(raw, OFL_QP_RTS));

    /* sending: the gathered bytes leave as they are, no header added;
     * the completion comes when the frame left */
    src = dgr_alloc(&r->n[0], 256);
    n = ip6(src, 6, ADDR_B, 60);
    CHECK_ERR(dgr_send(r, 0, 0, 5, src, 201, 0, 0, 0, OFL_QP_WR_SIGNALED),
              OFL_E_QP_DG_TOO_LONG);
    CHECK_OK(dgr_send(r, 0, 0, 5, src, n, 0, 0, 0, OFL_QP_WR_SIGNALED));
    CHECK_OK(ofl_qp_process(raw, 0, 8));
    CHECK_EQ(r->wire.n, 1);
    CHECK_EQ(r->wire.f[0].len, n);
    CHECK(memcmp(r->wire.f[0].data, src, n) == 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 5);
    CHECK_EQ(c[0].byte_len, n);
    /* and what left is what a raw QP on the other side takes */
    {
        struct ofl_qp_steer st2;
        struct ofl_qp_steer_entry e2[1];

        o.qpn = 1;
        CHECK(dgr_qp_add(r, 1, &o, NULL) == 0);
        CHECK_OK(ofl_qp_steer_init(&st2, e2, 1));
        CHECK_OK(ofl_qp_steer_add(&st2, 6, ADDR_B, &r->n[1].q[0].qp));
        dst = dgr_alloc(&r->n[1], 256);
        CHECK_OK(dgr_recv(r, 1, 0, 9, dst, 256));
        CHECK_OK(ofl_qp_raw_input(&st2, r->wire.f[0].data, r->wire.f[0].len));
        CHECK_EQ(dgr_poll(&r->n[1], false, c, 4), 1);
        CHECK_EQ(c[0].byte_len, n);
        CHECK(memcmp(dst, src, n) == 0);
    }
    CHECK_EQ(r->n[0].sim.violations + r->n[1].sim.violations, 0);
    dgr_free(r);
}

OFL_SUITE(qp_raw)
{
    test_steering();
    test_raw_io();
}
