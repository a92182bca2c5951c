// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * The user-ring translation (ofl_iw_uring.c) in user space: every field of
 * a siw SQ / RQ entry that user space controls, malformed one at a time,
 * and the completions written back (make test-uring).
 */
#include <string.h>
#include "test.h"
#include "ofl_iw_uring.h"

static struct siw_sqe good_sqe(uint8_t opcode, uint8_t num_sge)
{
    struct siw_sqe s;
    uint8_t i;

    memset(&s, 0, sizeof(s));
    s.id = 0x1122334455667788ull;
    s.flags = SIW_WQE_VALID | SIW_WQE_SIGNALLED;
    s.opcode = opcode;
    s.num_sge = num_sge;
    s.rkey = 0xABCDEF01u;
    s.raddr = 0x7F0000001000ull;
    for (i = 0; i < num_sge; i++) {
        s.sge[i].laddr = 0x10000ull * (i + 1);
        s.sge[i].length = 100u + i;
        s.sge[i].lkey = 0x100u + i;
    }
    return s;
}

/* A refused entry leaves the work request as it was. */
static int wr_untouched(const struct ofl_qp_wr *wr)
{
    const unsigned char *p = (const unsigned char *)wr;
    size_t i;

    for (i = 0; i < sizeof(*wr); i++)
        if (p[i] != 0xA5)
            return 0;
    return 1;
}

static enum ofl_iw_ring_err sq(const struct siw_sqe *s, uint32_t max_sge,
                               struct ofl_qp_wr *wr, struct ofl_qp_sge *sge)
{
    memset(wr, 0xA5, sizeof(*wr));
    return ofl_iw_sqe_to_wr(s, max_sge, sge, wr);
}

static void test_sqe_good(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    struct siw_sqe s;

    s = good_sqe(SIW_OP_WRITE, 2);
    s.flags |= SIW_WQE_READ_FENCE;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    CHECK_EQ(wr.wr_id, 0x1122334455667788ull);
    CHECK_EQ(wr.opcode, OFL_QP_OP_WRITE);
    CHECK_EQ(wr.flags, OFL_QP_WR_SIGNALED | OFL_QP_WR_FENCE);
    CHECK_EQ(wr.num_sge, 2);
    CHECK(wr.sge == sge);
    CHECK_EQ(sge[1].addr, 0x20000);
    CHECK_EQ(sge[1].len, 101);
    CHECK_EQ(sge[1].stag, 0x101);
    CHECK_EQ(wr.remote_stag, 0xABCDEF01u);
    CHECK_EQ(wr.remote_to, 0x7F0000001000ull);
    CHECK_EQ(wr.stag, 0);

    s = good_sqe(SIW_OP_READ, 1);
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    CHECK_EQ(wr.opcode, OFL_QP_OP_READ);
    CHECK_EQ(wr.remote_stag, 0xABCDEF01u);
    s = good_sqe(SIW_OP_READ, 0);
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    CHECK_EQ(wr.num_sge, 0);

    s = good_sqe(SIW_OP_SEND, SIW_MAX_SGE);
    s.flags = SIW_WQE_VALID | SIW_WQE_SOLICITED;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    CHECK_EQ(wr.opcode, OFL_QP_OP_SEND);
    CHECK_EQ(wr.flags, OFL_QP_WR_SOLICITED);
    CHECK_EQ(wr.num_sge, SIW_MAX_SGE);
    CHECK_EQ(wr.remote_stag, 0);
    CHECK_EQ(wr.remote_to, 0);
    CHECK_EQ(wr.stag, 0);

    s = good_sqe(SIW_OP_SEND_REMOTE_INV, 1);
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    CHECK_EQ(wr.opcode, OFL_QP_OP_SEND_INV);
    CHECK_EQ(wr.stag, 0xABCDEF01u);
    CHECK_EQ(wr.remote_stag, 0);
}

static void test_sqe_flags(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    struct siw_sqe s;
    unsigned int bit;

    s = good_sqe(SIW_OP_SEND, 1);
    s.flags = SIW_WQE_SIGNALLED; /* not VALID */
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_NOT_VALID);
    CHECK(wr_untouched(&wr));
    s.flags = SIW_WQE_VALID | SIW_WQE_INLINE;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_INLINE);
    CHECK(wr_untouched(&wr));
    /* every other bit, alone beside VALID */
    for (bit = 0; bit < 16; bit++) {
        uint16_t f = (uint16_t)(1u << bit);
        enum ofl_iw_ring_err want = OFL_IW_RING_FLAGS;

        if (f == SIW_WQE_VALID || f == SIW_WQE_SIGNALLED ||
            f == SIW_WQE_SOLICITED || f == SIW_WQE_READ_FENCE)
            want = OFL_IW_RING_OK;
        else if (f == SIW_WQE_INLINE)
            want = OFL_IW_RING_INLINE;
        s.flags = SIW_WQE_VALID | f;
        CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), want);
        if (want != OFL_IW_RING_OK)
            CHECK(wr_untouched(&wr));
    }
}

static void test_sqe_opcode(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    struct siw_sqe s;
    unsigned int op, ok = 0, refused_untouched = 0;

    for (op = 0; op < 256; op++) {
        enum ofl_iw_ring_err e;

        s = good_sqe((uint8_t)op, 1);
        e = sq(&s, SIW_MAX_SGE, &wr, sge);
        if (e == OFL_IW_RING_OK)
            ok |= 1u << (op < 31 ? op : 31);
        else if (e == OFL_IW_RING_OPCODE && wr_untouched(&wr))
            refused_untouched++;
    }
    CHECK_EQ(ok, (1u << SIW_OP_WRITE) | (1u << SIW_OP_READ) |
                 (1u << SIW_OP_SEND) | (1u << SIW_OP_SEND_REMOTE_INV));
    CHECK_EQ(refused_untouched, 256 - 4);
}

static void test_sqe_sges(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    struct siw_sqe s;
    unsigned int n;

    for (n = 0; n < 256; n++) {
        s = good_sqe(SIW_OP_SEND, SIW_MAX_SGE);
        s.num_sge = (uint8_t)n;
        CHECK_EQ(sq(&s, 3, &wr, sge),
                 n <= 3 ? OFL_IW_RING_OK : OFL_IW_RING_NUM_SGE);
        /* a QP limit above the ring's is the ring's */
        CHECK_EQ(sq(&s, 1000, &wr, sge),
                 n <= SIW_MAX_SGE ? OFL_IW_RING_OK : OFL_IW_RING_NUM_SGE);
    }
    s = good_sqe(SIW_OP_READ, 2);
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_READ_SGE);
    CHECK(wr_untouched(&wr));

    /* lengths: below 2^32 in total */
    s = good_sqe(SIW_OP_WRITE, 1);
    s.sge[0].length = 0xFFFFFFFFu;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
    s = good_sqe(SIW_OP_WRITE, 2);
    s.sge[0].length = 0x80000000u;
    s.sge[1].length = 0x80000000u;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_LENGTH);
    CHECK(wr_untouched(&wr));
    s = good_sqe(SIW_OP_SEND, SIW_MAX_SGE);
    for (n = 0; n < SIW_MAX_SGE; n++)
        s.sge[n].length = 0xFFFFFFFFu;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_LENGTH);
    /* the segments past num_sge are not read */
    s = good_sqe(SIW_OP_SEND, 1);
    for (n = 1; n < SIW_MAX_SGE; n++)
        s.sge[n].length = 0xFFFFFFFFu;
    CHECK_EQ(sq(&s, SIW_MAX_SGE, &wr, sge), OFL_IW_RING_OK);
}

/* Random entries: whatever is accepted satisfies every rule. */
static void test_sqe_random(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    struct siw_sqe s;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    unsigned long i, accepted = 0, bad = 0;
    size_t k;

    for (i = 0; i < 200000; i++) {
        unsigned char *p = (unsigned char *)&s;
        uint64_t total = 0;
        uint32_t j;

        for (k = 0; k < sizeof(s); k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            p[k] = (unsigned char)x;
        }
        /* bias towards entries that pass the first checks */
        if (i & 1) {
            s.flags &= OFL_QP_WR_SIGNALED | 0x1C;
            s.flags |= SIW_WQE_VALID;
            s.opcode &= 3;
            s.num_sge &= 7;
        }
        if (sq(&s, SIW_MAX_SGE, &wr, sge) != OFL_IW_RING_OK) {
            bad += !wr_untouched(&wr);
            continue;
        }
        accepted++;
        for (j = 0; j < wr.num_sge; j++)
            total += sge[j].len;
        bad += !(s.flags & SIW_WQE_VALID) || (s.flags & ~0x1Du) ||
               wr.num_sge > SIW_MAX_SGE || total > 0xFFFFFFFFu ||
               (wr.opcode == OFL_QP_OP_READ && wr.num_sge > 1) ||
               !(wr.opcode == OFL_QP_OP_WRITE || wr.opcode == OFL_QP_OP_READ ||
                 wr.opcode == OFL_QP_OP_SEND || wr.opcode == OFL_QP_OP_SEND_INV);
    }
    CHECK(accepted > 1000);
    CHECK_EQ(bad, 0);
}

static void test_rqe(void)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_recv_wr wr;
    struct siw_rqe r;
    unsigned int n;

    memset(&r, 0, sizeof(r));
    r.id = 42;
    r.flags = SIW_WQE_VALID;
    r.opcode = 0xFF; /* ignored */
    r.num_sge = 2;
    r.sge[0].laddr = 0x1000;
    r.sge[0].length = 64;
    r.sge[0].lkey = 7;
    r.sge[1].length = 0xFFFFFFBFu; /* 2^32 - 1 in total */
    CHECK_EQ(ofl_iw_rqe_to_wr(&r, SIW_MAX_SGE, sge, &wr), OFL_IW_RING_OK);
    CHECK_EQ(wr.wr_id, 42);
    CHECK_EQ(wr.num_sge, 2);
    CHECK(wr.sge == sge);
    CHECK_EQ(sge[0].addr, 0x1000);
    CHECK_EQ(sge[0].stag, 7);
    r.sge[1].length = 0xFFFFFFC0u; /* 2^32 in total */
    CHECK_EQ(ofl_iw_rqe_to_wr(&r, SIW_MAX_SGE, sge, &wr), OFL_IW_RING_LENGTH);
    r.sge[1].length = 1;
    r.flags = 0;
    CHECK_EQ(ofl_iw_rqe_to_wr(&r, SIW_MAX_SGE, sge, &wr), OFL_IW_RING_NOT_VALID);
    for (n = 1; n < 16; n++) {
        r.flags = (uint16_t)(SIW_WQE_VALID | (1u << n));
        CHECK_EQ(ofl_iw_rqe_to_wr(&r, SIW_MAX_SGE, sge, &wr), OFL_IW_RING_FLAGS);
    }
    r.flags = SIW_WQE_VALID;
    for (n = 0; n < 256; n++) {
        r.num_sge = (uint8_t)n;
        CHECK_EQ(ofl_iw_rqe_to_wr(&r, 2, sge, &wr),
                 n <= 2 ? OFL_IW_RING_OK : OFL_IW_RING_NUM_SGE);
    }
}

static void test_cqe(void)
{
    struct ofl_cqe c;
    struct siw_cqe u;
    unsigned int op, st, bad = 0, none = 0;
    uint8_t f;

    memset(&c, 0, sizeof(c));
    c.wr_id = 99;
    c.byte_len = 4096;
    c.opcode = OFL_QP_OP_RECV;
    c.status = OFL_WC_SUCCESS;
    c.flags = OFL_CQE_INV | OFL_CQE_SOLICITED;
    c.stag = 0x1234;
    memset(&u, 0xA5, sizeof(u));
    f = ofl_iw_cqe_to_siw(&c, 17, &u);
    CHECK_EQ(f, SIW_WQE_VALID | SIW_WQE_REM_INVAL | SIW_WQE_SOLICITED);
    CHECK_EQ(u.flags, 0xA5); /* the caller publishes it */
    CHECK_EQ(u.id, 99);
    CHECK_EQ(u.bytes, 4096);
    CHECK_EQ(u.opcode, SIW_OP_RECEIVE);
    CHECK_EQ(u.status, SIW_WC_SUCCESS);
    CHECK_EQ(u.inval_stag, 0x1234);
    CHECK_EQ(u.qp_id, 17);

    c.flags = OFL_CQE_IMM;
    c.imm = 0x0102030405060708ull;
    c.opcode = OFL_QP_OP_RECV_IMM;
    c.status = OFL_WC_REM_OP_ERR; /* siw has no such status */
    f = ofl_iw_cqe_to_siw(&c, 17, &u);
    CHECK_EQ(f, SIW_WQE_VALID);
    CHECK_EQ(u.imm_data, 0x0102030405060708ull);
    CHECK_EQ(u.opcode, SIW_OP_RECEIVE);
    CHECK_EQ(u.status, SIW_WC_GENERAL_ERR);

    /* only what libsiw maps: opcode <= SIW_OP_RECEIVE, status in range */
    for (op = 0; op < 256; op++) {
        for (st = 0; st < 256; st += 5) {
            c.opcode = (uint8_t)op;
            c.status = (uint8_t)st;
            c.flags = (uint8_t)(op ^ st);
            memset(&u, 0xA5, sizeof(u));
            f = ofl_iw_cqe_to_siw(&c, 1, &u);
            if (f == 0) {
                unsigned char *p = (unsigned char *)&u;
                size_t k;

                none++;
                for (k = 0; k < sizeof(u); k++)
                    bad += p[k] != 0xA5;
                continue;
            }
            bad += u.opcode > SIW_OP_RECEIVE || u.status >= SIW_NUM_WC_STATUS ||
                   !(f & SIW_WQE_VALID);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(none > 0);
    c.opcode = OFL_QP_OP_BIND; /* no user form */
    CHECK_EQ(ofl_iw_cqe_to_siw(&c, 1, &u), 0);
}

OFL_SUITE(iw_uring)
{
    test_sqe_good();
    test_sqe_flags();
    test_sqe_opcode();
    test_sqe_sges();
    test_sqe_random();
    test_rqe();
    test_cqe();
    CHECK(strcmp(ofl_iw_ring_strerror(OFL_IW_RING_LENGTH), "OFL_IW_RING_LENGTH") == 0);
}
