/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * verbs: the rules a verbs consumer expects of the core (issue 28). The
 * completion statuses against libibverbs' enum ibv_wc_status (when
 * <infiniband/verbs.h> is installed: the Makefile defines
 * OFL_TEST_HAVE_IBVERBS; without it that check says SKIP), a Read sink with
 * local write only through a QP, and each other behaviour the audit against
 * the libibverbs man pages changed: statuses for a received Terminate,
 * zero-length data segments, local read of every region, unbinding by a
 * zero length, the RD EE statuses.
 */
#include "test.h"
#include "support/dg_rig.h"
#include "support/qp_rig.h"

#ifdef OFL_TEST_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RR OFL_TPT_REMOTE_READ
#define RW OFL_TPT_REMOTE_WRITE
#define BW OFL_TPT_BIND_WINDOW

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* ---- completion statuses --------------------------------------------------- */

#ifdef OFL_TEST_HAVE_IBVERBS
/* Every OFL_WC_<NAME> is IBV_WC_<NAME>, at compile time. */
#define WC_SAME_(name, value)                                          \
    _Static_assert((int)OFL_WC_##name == (int)IBV_WC_##name &&         \
                       (value) == (int)IBV_WC_##name,                  \
                   "OFL_WC_" #name " is not IBV_WC_" #name);
OFL_WC_STATUSES(WC_SAME_)
#undef WC_SAME_
/* The QP states verbs has: RESET .. ERROR. */
_Static_assert(OFL_QP_RESET == (int)IBV_QPS_RESET &&
                   OFL_QP_INIT == (int)IBV_QPS_INIT &&
                   OFL_QP_RTR == (int)IBV_QPS_RTR &&
                   OFL_QP_RTS == (int)IBV_QPS_RTS &&
                   OFL_QP_SQD == (int)IBV_QPS_SQD &&
                   OFL_QP_SQE == (int)IBV_QPS_SQE &&
                   OFL_QP_ERROR == (int)IBV_QPS_ERR,
               "QP states differ from enum ibv_qp_state");
#endif

/* The numbers of enum ibv_wc_status and of the kernel's enum ib_wc_status
 * (the same list), written out: checked whether or not libibverbs is
 * installed, so that no renumbering passes unnoticed anywhere. */
static const struct {
    int ofl;
    int verbs;
    const char *name;
} wc_table[] = {
    {OFL_WC_SUCCESS, 0, "OFL_WC_SUCCESS"},
    {OFL_WC_LOC_LEN_ERR, 1, "OFL_WC_LOC_LEN_ERR"},
    {OFL_WC_LOC_QP_OP_ERR, 2, "OFL_WC_LOC_QP_OP_ERR"},
    {OFL_WC_LOC_EEC_OP_ERR, 3, "OFL_WC_LOC_EEC_OP_ERR"},
    {OFL_WC_LOC_PROT_ERR, 4, "OFL_WC_LOC_PROT_ERR"},
    {OFL_WC_WR_FLUSH_ERR, 5, "OFL_WC_WR_FLUSH_ERR"},
    {OFL_WC_MW_BIND_ERR, 6, "OFL_WC_MW_BIND_ERR"},
    {OFL_WC_BAD_RESP_ERR, 7, "OFL_WC_BAD_RESP_ERR"},
    {OFL_WC_LOC_ACCESS_ERR, 8, "OFL_WC_LOC_ACCESS_ERR"},
    {OFL_WC_REM_INV_REQ_ERR, 9, "OFL_WC_REM_INV_REQ_ERR"},
    {OFL_WC_REM_ACCESS_ERR, 10, "OFL_WC_REM_ACCESS_ERR"},
    {OFL_WC_REM_OP_ERR, 11, "OFL_WC_REM_OP_ERR"},
    {OFL_WC_RETRY_EXC_ERR, 12, "OFL_WC_RETRY_EXC_ERR"},
    {OFL_WC_RNR_RETRY_EXC_ERR, 13, "OFL_WC_RNR_RETRY_EXC_ERR"},
    {OFL_WC_LOC_RDD_VIOL_ERR, 14, "OFL_WC_LOC_RDD_VIOL_ERR"},
    {OFL_WC_REM_INV_RD_REQ_ERR, 15, "OFL_WC_REM_INV_RD_REQ_ERR"},
    {OFL_WC_REM_ABORT_ERR, 16, "OFL_WC_REM_ABORT_ERR"},
    {OFL_WC_INV_EECN_ERR, 17, "OFL_WC_INV_EECN_ERR"},
    {OFL_WC_INV_EEC_STATE_ERR, 18, "OFL_WC_INV_EEC_STATE_ERR"},
    {OFL_WC_FATAL_ERR, 19, "OFL_WC_FATAL_ERR"},
    {OFL_WC_RESP_TIMEOUT_ERR, 20, "OFL_WC_RESP_TIMEOUT_ERR"},
    {OFL_WC_GENERAL_ERR, 21, "OFL_WC_GENERAL_ERR"},
};

static void test_wc_numbers(void)
{
    size_t i, n = sizeof(wc_table) / sizeof(wc_table[0]);

    for (i = 0; i < n; i++) {
        CHECK_EQ(wc_table[i].ofl, wc_table[i].verbs);
        CHECK_EQ(wc_table[i].ofl, i); /* no gap, no double */
        CHECK(strcmp(ofl_wc_status_str((enum ofl_wc_status)wc_table[i].ofl),
                     wc_table[i].name) == 0);
    }
    CHECK_EQ(OFL_WC_STATUS_COUNT_, n); /* nothing beyond GENERAL_ERR */
    CHECK(strcmp(ofl_wc_status_str(OFL_WC_STATUS_COUNT_),
                 "OFL_WC_UNKNOWN") == 0);
    CHECK(strcmp(ofl_wc_status_str((enum ofl_wc_status)200),
                 "OFL_WC_UNKNOWN") == 0);
    /* the QP states verbs has keep its numbers */
    CHECK_EQ(OFL_QP_RESET, 0);
    CHECK_EQ(OFL_QP_SQE, 5);
    CHECK_EQ(OFL_QP_ERROR, 6);
}

/* The same list against libibverbs' own header, value by value at run time
 * too (the static assertions above stop the build first), and its
 * ibv_wc_status_str names (without the library: the header only). */
static void test_wc_libibverbs(void)
{
#ifdef OFL_TEST_HAVE_IBVERBS
#define WC_RUN_(name, value)                                           \
    CHECK_EQ(OFL_WC_##name, IBV_WC_##name);                            \
    CHECK(strcmp(ofl_wc_status_str(OFL_WC_##name), "OFL_WC_" #name) == 0);
    OFL_WC_STATUSES(WC_RUN_)
#undef WC_RUN_
    /* libibverbs goes on with tag matching only (TM_ERR) */
    CHECK_EQ(IBV_WC_GENERAL_ERR + 1, IBV_WC_TM_ERR);
    CHECK_EQ(OFL_WC_STATUS_COUNT_, IBV_WC_TM_ERR);
    CHECK_EQ(OFL_QP_ERROR, IBV_QPS_ERR);
    CHECK_EQ(OFL_QP_TERMINATE, IBV_QPS_UNKNOWN); /* iWARP's: no verbs state */
#else
    printf("SKIP verbs: <infiniband/verbs.h> not installed (libibverbs-dev): "
           "OFL_WC_* not checked against libibverbs\n");
#endif
}

/* ---- a Read's sink --------------------------------------------------------- */

static struct qr_rig *rig_sink(uint8_t read_sink, uint8_t policy)
{
    struct qr_opts o;

    memset(&o, 0, sizeof(o));
    o.crc = true;
    o.read_sink = read_sink;
    o.policy = policy;
    return qr_new(&o);
}

/* Neither side sent or received a Terminate, both are in RTS. */
static void check_no_term(struct qr_rig *r)
{
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->a.qp.events & (OFL_QP_EVT_FATAL | OFL_QP_EVT_TERM_RX), 0);
    CHECK_EQ(r->b.qp.events & (OFL_QP_EVT_FATAL | OFL_QP_EVT_TERM_RX), 0);
}

/*
 * b reads n bytes of a's source into its sink registered with sink_access
 * (the source: a region granting remote read, or a window under the
 * windows-only policy); returns the Read's CQE status (0xFF: none).
 */
static unsigned read_into(struct qr_rig *r, uint8_t sink_access,
                          uint8_t sink_flags, uint32_t n, uint8_t **dst_out,
                          uint32_t *sink_out)
{
    uint8_t *src = qr_alloc(&r->a, n, true);
    uint8_t *dst = qr_alloc(&r->b, n, true);
    uint32_t ls, ld = qr_reg(&r->b, dst, n, sink_access, sink_flags);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];
    uint32_t i;

    for (i = 0; i < n; i++)
        src[i] = (uint8_t)(i * 7u + 1u);
    if (r->o.policy == OFL_TPT_POLICY_WINDOWS_ONLY) {
        uint32_t reg = qr_reg(&r->a, src, n, LR | BW, 0);

        ls = qr_window(&r->a, reg, src, n, RR, 0, false);
    } else {
        ls = qr_reg(&r->a, src, n, LR | RR, 0);
    }
    CHECK(ls != 0 && ld != 0);
    qr_wr(&wr, OFL_QP_OP_READ, 77, &sge, dst, n, ld);
    wr.remote_stag = ls;
    wr.remote_to = va(src);
    CHECK_OK(qr_post_send(&r->b, &wr));
    qr_pump(r, 0);
    if (dst_out != NULL)
        *dst_out = dst;
    if (sink_out != NULL)
        *sink_out = ld;
    if (qr_poll(&r->b, true, c, 4) != 1)
        return 0xFF;
    CHECK_EQ(c[0].wr_id, 77);
    CHECK_EQ(c[0].opcode, OFL_QP_OP_READ);
    if (c[0].status == OFL_WC_SUCCESS) {
        CHECK_EQ(c[0].byte_len, n);
        CHECK(memcmp(dst, src, n) == 0);
    }
    return c[0].status;
}

/*
 * The case: a sink registered the usual verbs way, local read and
 * local write, no remote right. The Read completes with SUCCESS, every byte
 * in the sink, and nobody sends a Terminate (the old rule placed the
 * response through the sink's remote write: access error, Terminate
 * 0/1/02 to the peer). Several segments (a 5000-byte response at MSS
 * 1460) and a sink over two pages.
 */
static void test_read_sink_local_write(void)
{
    struct qr_rig *r = rig_sink(OFL_QP_READ_SINK_LOCAL, 0);
    uint8_t *dst = NULL;

    CHECK(r != NULL);
    CHECK_EQ(read_into(r, LR | LW, 0, 5000, &dst, NULL), OFL_WC_SUCCESS);
    check_no_term(r);
    /* local write alone is enough too */
    CHECK_EQ(read_into(r, LW, 0, 100, NULL, NULL), OFL_WC_SUCCESS);
    check_no_term(r);
    qr_free(r);
}

/*
 * A sink without local write fails when the WQE starts, as verbs' local
 * protection error: LOC_PROT_ERR, the SQ stops (SQE) and nothing went out
 * (no Read Request reached the peer), no Terminate.
 */
static void test_read_sink_no_local_write(void)
{
    int k;

    for (k = 0; k < 2; k++) {
        struct qr_rig *r = rig_sink(k == 0 ? OFL_QP_READ_SINK_LOCAL
                                           : OFL_QP_READ_SINK_TAGGED,
                                    0);
        unsigned long tx;

        CHECK(r != NULL);
        tx = r->b.tx_calls;
        CHECK_EQ(read_into(r, LR, 0, 64, NULL, NULL), OFL_WC_LOC_PROT_ERR);
        CHECK_EQ(r->b.qp.state, OFL_QP_SQE);
        CHECK_EQ(r->b.tx_calls, tx);      /* no Read Request sent */
        CHECK_EQ(r->a.qp.irq_count, 0);
        CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
        CHECK_EQ(r->b.qp.events & OFL_QP_EVT_FATAL, 0);
        qr_free(r);
    }
}

/*
 * OFL_QP_READ_SINK_TAGGED, the opt-in stricter rule: a sink needs remote
 * write as well. Without it the Read fails when it starts (LOC_PROT_ERR,
 * SQE, nothing sent: the check is made where the local side can still
 * keep its stream), with it the Read completes; a one-shot sink is spent
 * by the response as by a Write, where under the verbs rule it is not.
 */
static void test_read_sink_tagged(void)
{
    struct qr_rig *r = rig_sink(OFL_QP_READ_SINK_TAGGED, 0);
    struct ofl_tpt_info info;
    uint32_t sink = 0;
    unsigned long tx;

    CHECK(r != NULL);
    tx = r->b.tx_calls;
    CHECK_EQ(read_into(r, LR | LW, 0, 64, NULL, NULL), OFL_WC_LOC_PROT_ERR);
    CHECK_EQ(r->b.qp.state, OFL_QP_SQE);
    CHECK_EQ(r->b.tx_calls, tx);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.events & OFL_QP_EVT_FATAL, 0);
    qr_free(r);

    r = rig_sink(OFL_QP_READ_SINK_TAGGED, 0);
    CHECK_EQ(read_into(r, LW | RW, OFL_TPT_F_ONE_SHOT, 3000, NULL, &sink),
             OFL_WC_SUCCESS);
    check_no_term(r);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, sink, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID); /* spent */
    qr_free(r);

    r = rig_sink(OFL_QP_READ_SINK_LOCAL, 0);
    CHECK_EQ(read_into(r, LW | RW, OFL_TPT_F_ONE_SHOT, 3000, NULL, &sink),
             OFL_WC_SUCCESS);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, sink, &info));
    CHECK_EQ(info.state, OFL_TPT_VALID); /* a local use spends nothing */
    qr_free(r);

    /* attr.read_sink beyond the two rules is refused */
    r = rig_sink(0, 0);
    {
        static struct ofl_qp q;
        struct ofl_qp_attr a = r->b.attr;

        a.read_sink = 2;
        CHECK_ERR(ofl_qp_create(&q, &a, &r->b.qmem), OFL_E_ARG);
    }
    qr_free(r);
}

/*
 * Under the TPT's windows-only policy (seed 000: regions are never remote
 * targets) a Read works: its sink is a local region, not a remote target.
 * (Before issue 28 every Read Response of such a QP was refused.)
 */
static void test_read_sink_windows_only(void)
{
    struct qr_rig *r = rig_sink(OFL_QP_READ_SINK_LOCAL,
                                OFL_TPT_POLICY_WINDOWS_ONLY);

    CHECK(r != NULL);
    CHECK_EQ(read_into(r, LR | LW, 0, 2000, NULL, NULL), OFL_WC_SUCCESS);
    check_no_term(r);
    qr_free(r);
}

/*
 * What protects a sink although the peer names its STag: only the
 * outstanding Read's response reaches it. An RDMA Write from the peer to
 * the same STag needs remote write, which the sink does not grant
 * (0/1/02); a Read Response with the sink STag and no Read outstanding is
 * unexpected (0/2/06); nothing lands in the sink either time.
 */
static void test_read_sink_protected(void)
{
    struct qr_rig *r = rig_sink(OFL_QP_READ_SINK_LOCAL, 0);
    uint32_t sink = 0;
    uint8_t *dst = NULL, *src;
    uint32_t ls;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_rdmap_msg m;
    uint8_t f[256], pay[32];
    uint32_t len;

    CHECK_EQ(read_into(r, LR | LW, 0, 32, &dst, &sink), OFL_WC_SUCCESS);
    memset(dst, 0, 32);
    /* a Write to the sink's STag */
    src = qr_alloc(&r->a, 32, false);
    ls = qr_reg(&r->a, src, 32, LR, 0);
    memset(src, 0xEE, 32);
    qr_wr(&wr, OFL_QP_OP_WRITE, 5, &sge, src, 32, ls);
    wr.remote_stag = sink;
    wr.remote_to = va(dst);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(qr_process(&r->a, 0));
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(r->b.qp.term_tx.layer == 0 && r->b.qp.term_tx.etype == 1 &&
          r->b.qp.term_tx.ecode == 2);
    CHECK_EQ(dst[0], 0);
    qr_free(r);

    /* a Read Response with the sink's STag, no Read outstanding */
    r = rig_sink(OFL_QP_READ_SINK_LOCAL, 0);
    CHECK_EQ(read_into(r, LR | LW, 0, 32, &dst, &sink), OFL_WC_SUCCESS);
    memset(dst, 0, 32);
    memset(pay, 0xDD, sizeof(pay));
    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.last = 1;
    m.ddp.opcode = OFL_RDMAP_READ_RESP;
    m.ddp.stag = sink;
    m.ddp.to = va(dst);
    len = qr_fpdu(&r->a, &m, pay, sizeof(pay), f, sizeof(f));
    CHECK(len != 0);
    qr_inject(&r->a, f, len);
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(r->b.qp.term_tx.layer == 0 && r->b.qp.term_tx.etype == 2 &&
          r->b.qp.term_tx.ecode == 6);
    CHECK_EQ(dst[0], 0);
    qr_free(r);
}

/* ---- statuses a received Terminate gives --------------------------------- */

/*
 * A Send the peer has no receive for: the peer's Terminate says "no buffer
 * available" (1/2/02) while the Send is still going out (budget 1: one of
 * its three FPDUs sent), and the Send completes RNR_RETRY_EXC_ERR, verbs'
 * receiver-not-ready error (iWARP retries nothing: rnr_retry 0).
 */
static void test_term_rnr(void)
{
    struct qr_rig *r = rig_sink(0, 0);
    uint8_t *src = qr_alloc(&r->a, 4000, false);
    uint32_t ls = qr_reg(&r->a, src, 4000, LR, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge, src, 4000, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1)); /* the first FPDU only */
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.state, OFL_QP_TERMINATE);
    CHECK(r->b.qp.term_tx.layer == 1 && r->b.qp.term_tx.etype == 2 &&
          r->b.qp.term_tx.ecode == 2);
    (void)qr_deliver(r, &r->b);
    CHECK_EQ(r->a.qp.state, OFL_QP_ERROR);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].wr_id, 9);
    CHECK_EQ(c[0].status, OFL_WC_RNR_RETRY_EXC_ERR);
    qr_free(r);
}

/* A Terminate into b's stream as a would send it. */
static void inject_term(struct qr_rig *r, uint8_t layer, uint8_t etype,
                        uint8_t ecode)
{
    struct ofl_rdmap_msg m;
    uint8_t f[256];
    uint32_t len;

    memset(&m, 0, sizeof(m));
    m.ddp.opcode = OFL_RDMAP_TERMINATE;
    m.ddp.last = 1;
    m.ddp.qn = 2;
    m.ddp.msn = 1;
    m.u.term.cause.layer = layer;
    m.u.term.cause.etype = etype;
    m.u.term.cause.ecode = ecode;
    len = qr_fpdu(&r->a, &m, NULL, 0, f, sizeof(f));
    CHECK(len != 0);
    qr_inject(&r->a, f, len);
    (void)qr_deliver(r, &r->a);
}

/*
 * The status of the oldest in-flight WQE (a Read waiting for its response)
 * for each kind of cause: IBA's view of the same failure. "No buffer" for
 * a Read (past the peer's IRD) is an invalid request, not RNR.
 */
static void test_term_statuses(void)
{
    static const struct {
        uint8_t layer, etype, ecode, status;
    } k[] = {
        {0, 0, 0x00, OFL_WC_REM_OP_ERR},      /* the peer's own failure */
        {1, 0, 0x00, OFL_WC_REM_OP_ERR},
        {0, 1, 0x02, OFL_WC_REM_ACCESS_ERR},  /* rights */
        {1, 1, 0x00, OFL_WC_REM_ACCESS_ERR},  /* tagged: invalid STag */
        {0, 2, 0x06, OFL_WC_REM_INV_REQ_ERR}, /* unexpected opcode */
        {1, 2, 0x02, OFL_WC_REM_INV_REQ_ERR}, /* no buffer, for a Read */
        {1, 2, 0x05, OFL_WC_REM_INV_REQ_ERR}, /* message too long */
        {2, 0, 0x02, OFL_WC_FATAL_ERR},       /* MPA CRC */
    };
    size_t i;

    for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        struct qr_rig *r = rig_sink(0, 0);
        uint8_t *dst = qr_alloc(&r->b, 64, false);
        uint32_t ld = qr_reg(&r->b, dst, 64, LW, 0);
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe c[4];

        qr_wr(&wr, OFL_QP_OP_READ, 40, &sge, dst, 64, ld);
        wr.remote_stag = 0x1234;
        CHECK_OK(qr_post_send(&r->b, &wr));
        CHECK_OK(qr_process(&r->b, 0));
        r->ba.len = 0; /* a never sees the request */
        r->ba.seq = r->a.qp.seq.nxt;
        inject_term(r, k[i].layer, k[i].etype, k[i].ecode);
        CHECK_EQ(r->b.qp.state, OFL_QP_ERROR);
        CHECK_EQ(qr_poll(&r->b, true, c, 4), 1);
        if (c[0].status != k[i].status)
            printf("cause %u/%u/%02x: %s\n", k[i].layer, k[i].etype,
                   k[i].ecode,
                   ofl_wc_status_str((enum ofl_wc_status)c[0].status));
        CHECK_EQ(c[0].status, k[i].status);
        qr_free(r);
    }
}

/*
 * A receive holding the first part of a Send when the peer's Terminate
 * arrives: the peer abandoned the message, REM_ABORT_ERR; the receives
 * behind it are flushed.
 */
static void test_term_abort_receive(void)
{
    struct qr_rig *r = rig_sink(0, 0);
    uint8_t *src = qr_alloc(&r->a, 4000, false);
    uint8_t *rb = qr_alloc(&r->b, 8192, false);
    uint32_t ls = qr_reg(&r->a, src, 4000, LR, 0);
    uint32_t lr = qr_reg(&r->b, rb, 8192, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    CHECK_OK(qr_post_recv(&r->b, 21, rb, 4096, lr));
    CHECK_OK(qr_post_recv(&r->b, 22, rb + 4096, 4096, lr));
    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge, src, 4000, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    CHECK_OK(ofl_qp_process(&r->a.qp, 0, 1)); /* the first FPDU only */
    (void)qr_deliver(r, &r->a);
    CHECK_EQ(r->b.qp.rcur.active, 1);
    inject_term(r, 0, 0, 0x00);
    CHECK_EQ(r->b.qp.state, OFL_QP_ERROR);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 2);
    CHECK_EQ(c[0].wr_id, 21);
    CHECK_EQ(c[0].status, OFL_WC_REM_ABORT_ERR);
    CHECK_EQ(c[1].wr_id, 22);
    CHECK_EQ(c[1].status, OFL_WC_WR_FLUSH_ERR);
    qr_free(r);
}

/* ---- data segments and registrations ---------------------------------- */

/*
 * A zero-length data segment names no memory: its STag is not checked
 * (Linux siw: "do not check stag for a zero length sge"), on a send WQE
 * and on a receive WQE, and the bytes go around it.
 */
static void test_zero_length_sge(void)
{
    struct qr_rig *r = rig_sink(0, 0);
    uint8_t *src = qr_alloc(&r->a, 64, false);
    uint8_t *rb = qr_alloc(&r->b, 64, false);
    uint32_t ls = qr_reg(&r->a, src, 64, LR, 0);
    uint32_t lr = qr_reg(&r->b, rb, 64, LW, 0);
    struct ofl_qp_sge s[3], q[2];
    struct ofl_qp_wr wr;
    struct ofl_qp_recv_wr rw;
    struct ofl_cqe c[4];

    memset(src, 0x5A, 64);
    q[0].addr = 0;
    q[0].len = 0;
    q[0].stag = 0xDEAD00u; /* no such STag */
    q[1].addr = va(rb);
    q[1].len = 64;
    q[1].stag = lr;
    memset(&rw, 0, sizeof(rw));
    rw.wr_id = 3;
    rw.sge = q;
    rw.num_sge = 2;
    CHECK_OK(ofl_qp_post_recv(&r->b.qp, &rw));
    s[0].addr = va(src);
    s[0].len = 10;
    s[0].stag = ls;
    s[1].addr = 0;
    s[1].len = 0;
    s[1].stag = 0; /* lkey 0 */
    s[2].addr = va(src) + 10;
    s[2].len = 20;
    s[2].stag = ls;
    memset(&wr, 0, sizeof(wr));
    wr.opcode = OFL_QP_OP_SEND;
    wr.wr_id = 4;
    wr.flags = OFL_QP_WR_SIGNALED;
    wr.sge = s;
    wr.num_sge = 3;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    check_no_term(r);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 30);
    CHECK_EQ(qr_poll(&r->b, false, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[0].byte_len, 30);
    CHECK_EQ(rb[29], 0x5A);
    CHECK_EQ(rb[30], 0);
    /* a segment with bytes still needs a valid STag */
    s[1].len = 1;
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_LOC_PROT_ERR);
    qr_free(r);
}

/*
 * Every region grants local read (ibv_reg_mr(3): "Local read access is
 * always enabled for the MR"): a Send from a region registered with local
 * write only goes out, and the entry shows the right.
 */
static void test_local_read_always(void)
{
    struct qr_rig *r = rig_sink(0, 0);
    uint8_t *src = qr_alloc(&r->a, 16, false);
    uint8_t *rb = qr_alloc(&r->b, 16, false);
    uint32_t ls = qr_reg(&r->a, src, 16, LW, 0);
    uint32_t lr = qr_reg(&r->b, rb, 16, LW, 0);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_tpt_info info;
    struct ofl_cqe c[4];

    CHECK_OK(ofl_tpt_query(&r->a.tpt, ls, &info));
    CHECK_EQ(info.access, LW | LR);
    memset(src, 0x31, 16);
    CHECK_OK(qr_post_recv(&r->b, 1, rb, 16, lr));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, 16, ls);
    CHECK_OK(qr_post_send(&r->a, &wr));
    qr_pump(r, 0);
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(rb[15], 0x31);
    /* a window gets no local right from it: remote rights only */
    {
        uint32_t reg = qr_reg(&r->a, src, 16, LW | BW, 0);
        uint32_t win = qr_window(&r->a, reg, src, 16, RR, 0, false);

        CHECK(win != 0);
        CHECK_OK(ofl_tpt_query(&r->a.tpt, win, &info));
        CHECK_EQ(info.access, RR);
    }
    qr_free(r);
}

/*
 * A bind of length 0 unbinds whatever its address (ibv_alloc_mw(3): a type
 * 1 window is invalidated by "ibv_bind_mw verb with zero length"), through
 * the TPT verb and through a Bind WQE.
 */
static void test_bind_zero_length(void)
{
    struct qr_rig *r = rig_sink(0, 0);
    uint8_t *buf = qr_alloc(&r->b, 256, false);
    uint32_t reg = qr_reg(&r->b, buf, 256, LW | RW | BW, 0);
    uint32_t win = qr_window(&r->b, reg, buf, 256, RW, 0, false);
    struct ofl_tpt_info info;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    CHECK(win != 0);
    CHECK_OK(ofl_tpt_bind(&r->b.tpt, win, reg, r->b.attr.pd, r->b.attr.qpn,
                          va(buf) + 16, 0, RW, 0, NULL));
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    /* bound again, then unbound by a Bind WQE of length 0 */
    CHECK_OK(ofl_tpt_bind(&r->b.tpt, win, reg, r->b.attr.pd, r->b.attr.qpn,
                          va(buf), 256, RW, 0, &win));
    qr_wr(&wr, OFL_QP_OP_BIND, 6, &sge, NULL, 0, 0);
    wr.stag = win;
    wr.bind.region_stag = reg;
    wr.bind.va = va(buf) + 8;
    wr.bind.len = 0;
    wr.bind.access = RW;
    CHECK_OK(qr_post_send(&r->b, &wr));
    CHECK_OK(qr_process(&r->b, 0));
    CHECK_EQ(qr_poll(&r->b, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_OK(ofl_tpt_query(&r->b.tpt, win, &info));
    CHECK_EQ(info.state, OFL_TPT_INVALID);
    qr_free(r);
}

/* ---- RD: the EE context statuses ----------------------------------------- */

/*
 * An RD Send held behind ORD 1 whose EE context is then found unused (no
 * verb releases one: the test clears it as a caller reusing the memory
 * would): INV_EECN_ERR, IBA's "invalid EE context number". One whose EE
 * context failed: INV_EEC_STATE_ERR (tests/test_qp_rd.c).
 */
static void test_rd_eecn(void)
{
    struct dgr_rig *r = dgr_new(2);
    struct ofl_cqe c[4];
    uint8_t *src;
    uint32_t e;

    CHECK(r != NULL);
    if (r == NULL)
        return;
    CHECK(dgr_rd_pair(r) == 0);
    CHECK_OK(dgr_recv(r, 1, 0, 1000, dgr_alloc(&r->n[1], 64), 64));
    e = dgr_ee_index(0, 1);
    src = dgr_alloc(&r->n[0], 64);
    CHECK_OK(dgr_send(r, 0, 0, 51, src, 4, 0, e, 2, OFL_QP_WR_SIGNALED));
    CHECK_OK(dgr_send(r, 0, 0, 52, src, 4, 0, e, 2, OFL_QP_WR_SIGNALED));
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(r->wire.n, 1); /* ORD 1: the second is held */
    r->n[0].ee[e].state = OFL_EE_UNUSED;
    CHECK_OK(ofl_qp_process(&r->n[0].q[0].qp, 0, 8));
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 0); /* 51 is still unacked */
    r->n[0].ee[e].state = OFL_EE_RTS;
    dgr_pump(r, 0);
    CHECK_EQ(dgr_poll(&r->n[0], true, c, 4), 2);
    CHECK_EQ(c[0].wr_id, 51);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK_EQ(c[1].wr_id, 52);
    CHECK_EQ(c[1].status, OFL_WC_INV_EECN_ERR);
    CHECK_EQ(r->n[0].q[0].qp.state, OFL_QP_RTS);
    dgr_free(r);
}

OFL_SUITE(verbs)
{
    test_wc_numbers();
    test_wc_libibverbs();
    test_read_sink_local_write();
    test_read_sink_no_local_write();
    test_read_sink_tagged();
    test_read_sink_windows_only();
    test_read_sink_protected();
    test_term_rnr();
    test_term_statuses();
    test_term_abort_receive();
    test_zero_length_sge();
    test_local_read_always();
    test_bind_zero_length();
    test_rd_eecn();
}
