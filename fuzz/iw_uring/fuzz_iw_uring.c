/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/iw_uring: the Linux device's user-ring translation
 * (ports/linux/iw/ofl_iw_uring.c): what an unprivileged process writes into
 * siw's mmap'ed SQ and RQ, and the completions the device writes back.
 *
 * Input: a siw SQ entry (sizeof(struct siw_sqe) bytes, host order, as user
 * space lays it out), a QP's SGE limit (one byte), a siw RQ entry, its
 * limit, then one core CQE (wr_id, imm, byte_len, qpn, stag, opcode,
 * status, flags; big-endian fields). Short inputs are padded with zeros.
 *
 * Invariants: each entry's verdict is the one worked out here from the raw
 * fields, in the documented order of checks; a refused entry leaves the
 * work request untouched; an accepted one carries exactly the entry's
 * fields (opcode, flags, segments, remote or invalidate STag) and no
 * other; a completion is written only for the opcodes libsiw maps, with an
 * opcode and status inside libsiw's tables, and nothing is written
 * otherwise.
 */
#include "fuzz.h"
#include "offload.h"
/* plain C: the translation builds into the harness as it is */
#include "../../ports/linux/iw/ofl_iw_uring.c"

#include <string.h>

#define SQE_OK_FLAGS (SIW_WQE_VALID | SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED | \
                      SIW_WQE_READ_FENCE)

static uint32_t clamp_sge(uint32_t m)
{
    return m > SIW_MAX_SGE ? SIW_MAX_SGE : m;
}

static uint64_t sge_total(const struct siw_sge *s, uint32_t n)
{
    uint64_t t = 0;
    uint32_t i;

    for (i = 0; i < n; i++)
        t += s[i].length;
    return t;
}

static enum ofl_iw_ring_err sqe_expect(const struct siw_sqe *s, uint32_t max)
{
    int op = s->opcode;

    if (!(s->flags & SIW_WQE_VALID))
        return OFL_IW_RING_NOT_VALID;
    if (s->flags & SIW_WQE_INLINE)
        return OFL_IW_RING_INLINE;
    if (s->flags & ~SQE_OK_FLAGS)
        return OFL_IW_RING_FLAGS;
    if (op != SIW_OP_WRITE && op != SIW_OP_READ && op != SIW_OP_SEND &&
        op != SIW_OP_SEND_REMOTE_INV)
        return OFL_IW_RING_OPCODE;
    if (s->num_sge > clamp_sge(max))
        return OFL_IW_RING_NUM_SGE;
    if (op == SIW_OP_READ && s->num_sge > 1)
        return OFL_IW_RING_READ_SGE;
    if (sge_total(s->sge, s->num_sge) > 0xFFFFFFFFu)
        return OFL_IW_RING_LENGTH;
    return OFL_IW_RING_OK;
}

static int untouched(const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++)
        if (b[i] != 0xA5)
            return 0;
    return 1;
}

static void check_sqe(const struct siw_sqe *s, uint32_t max)
{
    static const uint8_t core_op[] = {
        [SIW_OP_WRITE] = OFL_QP_OP_WRITE, [SIW_OP_READ] = OFL_QP_OP_READ,
        [SIW_OP_SEND] = OFL_QP_OP_SEND,
        [SIW_OP_SEND_REMOTE_INV] = OFL_QP_OP_SEND_INV,
    };
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_wr wr;
    enum ofl_iw_ring_err want = sqe_expect(s, max), got;
    uint8_t wf = 0;
    uint32_t i;

    memset(&wr, 0xA5, sizeof(wr));
    got = ofl_iw_sqe_to_wr(s, max, sge, &wr);
    FUZZ_ASSERT(got == want);
    FUZZ_ASSERT(strcmp(ofl_iw_ring_strerror(got), "OFL_IW_RING_?") != 0);
    if (got != OFL_IW_RING_OK) {
        FUZZ_ASSERT(untouched(&wr, sizeof(wr)));
        return;
    }
    if (s->flags & SIW_WQE_SIGNALLED)
        wf |= OFL_QP_WR_SIGNALED;
    if (s->flags & SIW_WQE_SOLICITED)
        wf |= OFL_QP_WR_SOLICITED;
    if (s->flags & SIW_WQE_READ_FENCE)
        wf |= OFL_QP_WR_FENCE;
    FUZZ_ASSERT(wr.wr_id == s->id && wr.opcode == core_op[s->opcode] &&
                wr.flags == wf && wr.num_sge == s->num_sge && wr.sge == sge);
    for (i = 0; i < wr.num_sge; i++)
        FUZZ_ASSERT(sge[i].addr == s->sge[i].laddr &&
                    sge[i].len == s->sge[i].length &&
                    sge[i].stag == s->sge[i].lkey);
    if (s->opcode == SIW_OP_SEND_REMOTE_INV)
        FUZZ_ASSERT(wr.stag == s->rkey && wr.remote_stag == 0 &&
                    wr.remote_to == 0);
    else if (s->opcode == SIW_OP_SEND)
        FUZZ_ASSERT(wr.stag == 0 && wr.remote_stag == 0 && wr.remote_to == 0);
    else
        FUZZ_ASSERT(wr.stag == 0 && wr.remote_stag == s->rkey &&
                    wr.remote_to == s->raddr);
    FUZZ_ASSERT(wr.imm == 0 && wr.atomic[0] == 0 && wr.bind.len == 0 &&
                wr.reg.len == 0 && wr.dest.qpn == 0);
}

static void check_rqe(const struct siw_rqe *r, uint32_t max)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_recv_wr wr;
    enum ofl_iw_ring_err want, got;
    uint32_t i;

    if (!(r->flags & SIW_WQE_VALID))
        want = OFL_IW_RING_NOT_VALID;
    else if (r->flags != SIW_WQE_VALID)
        want = OFL_IW_RING_FLAGS;
    else if (r->num_sge > clamp_sge(max))
        want = OFL_IW_RING_NUM_SGE;
    else if (sge_total(r->sge, r->num_sge) > 0xFFFFFFFFu)
        want = OFL_IW_RING_LENGTH;
    else
        want = OFL_IW_RING_OK;
    memset(&wr, 0xA5, sizeof(wr));
    got = ofl_iw_rqe_to_wr(r, max, sge, &wr);
    FUZZ_ASSERT(got == want);
    if (got != OFL_IW_RING_OK) {
        FUZZ_ASSERT(untouched(&wr, sizeof(wr)));
        return;
    }
    FUZZ_ASSERT(wr.wr_id == r->id && wr.num_sge == r->num_sge && wr.sge == sge);
    for (i = 0; i < wr.num_sge; i++)
        FUZZ_ASSERT(sge[i].addr == r->sge[i].laddr &&
                    sge[i].len == r->sge[i].length &&
                    sge[i].stag == r->sge[i].lkey);
}

static void check_cqe(struct fuzz_in *in)
{
    struct ofl_cqe c;
    struct siw_cqe u;
    uint8_t f;
    int mapped;

    memset(&c, 0, sizeof(c));
    c.wr_id = fuzz_u64(in);
    c.imm = fuzz_u64(in);
    c.byte_len = fuzz_u32(in);
    c.qpn = fuzz_u32(in);
    c.stag = fuzz_u32(in);
    c.opcode = fuzz_u8(in);
    c.status = fuzz_u8(in);
    c.flags = fuzz_u8(in);
    mapped = c.opcode == OFL_QP_OP_SEND || c.opcode == OFL_QP_OP_SEND_INV ||
             c.opcode == OFL_QP_OP_WRITE || c.opcode == OFL_QP_OP_WRITE_IMM ||
             c.opcode == OFL_QP_OP_READ || c.opcode == OFL_QP_OP_ATOMIC_FADD ||
             c.opcode == OFL_QP_OP_ATOMIC_CSWAP || c.opcode == OFL_QP_OP_RECV ||
             c.opcode == OFL_QP_OP_RECV_IMM;
    memset(&u, 0xA5, sizeof(u));
    f = ofl_iw_cqe_to_siw(&c, c.qpn, &u);
    if (!mapped) {
        FUZZ_ASSERT(f == 0 && untouched(&u, sizeof(u)));
        return;
    }
    FUZZ_ASSERT(f & SIW_WQE_VALID);
    FUZZ_ASSERT((f & ~(SIW_WQE_VALID | SIW_WQE_REM_INVAL | SIW_WQE_SOLICITED)) == 0);
    FUZZ_ASSERT(!(f & SIW_WQE_REM_INVAL) == !(c.flags & OFL_CQE_INV));
    FUZZ_ASSERT(!(f & SIW_WQE_SOLICITED) == !(c.flags & OFL_CQE_SOLICITED));
    FUZZ_ASSERT(u.flags == 0xA5); /* published by the caller */
    FUZZ_ASSERT(u.opcode <= SIW_OP_RECEIVE && u.status < SIW_NUM_WC_STATUS);
    FUZZ_ASSERT(u.id == c.wr_id && u.bytes == c.byte_len && u.qp_id == c.qpn);
    if (c.flags & OFL_CQE_INV)
        FUZZ_ASSERT(u.inval_stag == c.stag);
    else if (c.flags & OFL_CQE_IMM)
        FUZZ_ASSERT(u.imm_data == c.imm);
    else
        FUZZ_ASSERT(u.imm_data == 0);
    if (c.status == OFL_WC_SUCCESS)
        FUZZ_ASSERT(u.status == SIW_WC_SUCCESS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    struct siw_sqe s;
    struct siw_rqe r;
    const uint8_t *p;
    size_t k;

    memset(&s, 0, sizeof(s));
    k = fuzz_take(&in, &p, sizeof(s));
    memcpy(&s, p, k);
    check_sqe(&s, fuzz_u8(&in));
    memset(&r, 0, sizeof(r));
    k = fuzz_take(&in, &p, sizeof(r));
    memcpy(&r, p, k);
    check_rqe(&r, fuzz_u8(&in));
    check_cqe(&in);
    return 0;
}
