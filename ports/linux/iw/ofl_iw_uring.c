// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/* ofl_iw_uring - siw user rings <-> the core (see ofl_iw_uring.h). */
#include "ofl_iw_uring.h"

/* The siw opcode of a completion, or SIW_NUM_OPCODES for none. */
static uint8_t ofl_iw_siw_opcode(uint8_t op)
{
    switch (op) {
    case OFL_QP_OP_SEND:
        return SIW_OP_SEND;
    case OFL_QP_OP_SEND_INV:
        return SIW_OP_SEND_REMOTE_INV;
    case OFL_QP_OP_WRITE:
    case OFL_QP_OP_WRITE_IMM:
        return SIW_OP_WRITE;
    case OFL_QP_OP_READ:
        return SIW_OP_READ;
    case OFL_QP_OP_ATOMIC_FADD:
        return SIW_OP_FETCH_AND_ADD;
    case OFL_QP_OP_ATOMIC_CSWAP:
        return SIW_OP_COMP_AND_SWAP;
    case OFL_QP_OP_RECV:
    case OFL_QP_OP_RECV_IMM:
        return SIW_OP_RECEIVE;
    default:
        return SIW_NUM_OPCODES;
    }
}

static uint16_t ofl_iw_siw_status(uint8_t st)
{
    switch (st) {
    case OFL_WC_SUCCESS:
        return SIW_WC_SUCCESS;
    case OFL_WC_LOC_LEN_ERR:
        return SIW_WC_LOC_LEN_ERR;
    case OFL_WC_LOC_QP_OP_ERR:
        return SIW_WC_LOC_QP_OP_ERR;
    case OFL_WC_LOC_PROT_ERR:
        return SIW_WC_LOC_PROT_ERR;
    case OFL_WC_WR_FLUSH_ERR:
        return SIW_WC_WR_FLUSH_ERR;
    case OFL_WC_BAD_RESP_ERR:
        return SIW_WC_BAD_RESP_ERR;
    case OFL_WC_LOC_ACCESS_ERR:
        return SIW_WC_LOC_ACCESS_ERR;
    case OFL_WC_REM_INV_REQ_ERR:
        return SIW_WC_REM_INV_REQ_ERR;
    case OFL_WC_REM_ACCESS_ERR:
        return SIW_WC_REM_ACCESS_ERR;
    default: /* MW_BIND, REM_OP, FATAL, RETRY_EXC: siw has no code */
        return SIW_WC_GENERAL_ERR;
    }
}

uint8_t ofl_iw_cqe_to_siw(const struct ofl_cqe *c, uint32_t qp_id,
                          struct siw_cqe *out)
{
    uint8_t op = ofl_iw_siw_opcode(c->opcode);
    uint8_t flags = SIW_WQE_VALID;

    if (op == SIW_NUM_OPCODES)
        return 0;
    out->id = c->wr_id;
    out->opcode = op;
    out->status = ofl_iw_siw_status(c->status);
    out->bytes = c->byte_len;
    out->imm_data = 0;
    if (c->flags & OFL_CQE_INV) {
        out->inval_stag = c->stag;
        flags |= SIW_WQE_REM_INVAL;
    } else if (c->flags & OFL_CQE_IMM) {
        out->imm_data = c->imm;
    }
    if (c->flags & OFL_CQE_SOLICITED)
        flags |= SIW_WQE_SOLICITED;
    out->qp_id = qp_id;
    return flags;
}

const char *ofl_iw_ring_strerror(enum ofl_iw_ring_err e)
{
    switch (e) {
    case OFL_IW_RING_OK:
        return "OFL_IW_RING_OK";
    case OFL_IW_RING_NOT_VALID:
        return "OFL_IW_RING_NOT_VALID";
    case OFL_IW_RING_FLAGS:
        return "OFL_IW_RING_FLAGS";
    case OFL_IW_RING_OPCODE:
        return "OFL_IW_RING_OPCODE";
    case OFL_IW_RING_NUM_SGE:
        return "OFL_IW_RING_NUM_SGE";
    case OFL_IW_RING_INLINE:
        return "OFL_IW_RING_INLINE";
    case OFL_IW_RING_LENGTH:
        return "OFL_IW_RING_LENGTH";
    case OFL_IW_RING_READ_SGE:
        return "OFL_IW_RING_READ_SGE";
    }
    return "OFL_IW_RING_?";
}

/* Copies n (checked) segments and refuses a total of 2^32 bytes or more. */
static enum ofl_iw_ring_err ofl_iw_ring_sges(const struct siw_sge *in,
                                             uint32_t n,
                                             struct ofl_qp_sge *out)
{
    uint64_t total = 0;
    uint32_t i;

    for (i = 0; i < n; i++) {
        out[i].addr = in[i].laddr;
        out[i].len = in[i].length;
        out[i].stag = in[i].lkey;
        total += in[i].length;
    }
    return total > 0xFFFFFFFFu ? OFL_IW_RING_LENGTH : OFL_IW_RING_OK;
}

#define OFL_IW_SQE_FLAGS_OK \
    (SIW_WQE_VALID | SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED | SIW_WQE_READ_FENCE)

enum ofl_iw_ring_err ofl_iw_sqe_to_wr(const struct siw_sqe *sqe,
                                      uint32_t max_sge,
                                      struct ofl_qp_sge *sge,
                                      struct ofl_qp_wr *wr)
{
    uint16_t flags = sqe->flags;
    uint32_t n = sqe->num_sge;
    enum ofl_iw_ring_err e;
    uint8_t op, wf = 0;

    if (!(flags & SIW_WQE_VALID))
        return OFL_IW_RING_NOT_VALID;
    if (flags & SIW_WQE_INLINE)
        return OFL_IW_RING_INLINE;
    if (flags & ~(uint16_t)OFL_IW_SQE_FLAGS_OK)
        return OFL_IW_RING_FLAGS;
    switch (sqe->opcode) {
    case SIW_OP_WRITE:
        op = OFL_QP_OP_WRITE;
        break;
    case SIW_OP_READ:
        op = OFL_QP_OP_READ;
        break;
    case SIW_OP_SEND:
        op = OFL_QP_OP_SEND;
        break;
    case SIW_OP_SEND_REMOTE_INV:
        op = OFL_QP_OP_SEND_INV;
        break;
    default:
        return OFL_IW_RING_OPCODE;
    }
    if (max_sge > SIW_MAX_SGE)
        max_sge = SIW_MAX_SGE;
    if (n > max_sge)
        return OFL_IW_RING_NUM_SGE;
    if (op == OFL_QP_OP_READ && n > 1)
        return OFL_IW_RING_READ_SGE;
    e = ofl_iw_ring_sges(sqe->sge, n, sge);
    if (e != OFL_IW_RING_OK)
        return e;
    if (flags & SIW_WQE_SIGNALLED)
        wf |= OFL_QP_WR_SIGNALED;
    if (flags & SIW_WQE_SOLICITED)
        wf |= OFL_QP_WR_SOLICITED;
    if (flags & SIW_WQE_READ_FENCE)
        wf |= OFL_QP_WR_FENCE;

    *wr = (struct ofl_qp_wr){ 0 };
    wr->wr_id = sqe->id;
    wr->sge = sge;
    wr->num_sge = n;
    wr->opcode = op;
    wr->flags = wf;
    if (op == OFL_QP_OP_SEND_INV) {
        wr->stag = sqe->rkey;
    } else if (op != OFL_QP_OP_SEND) {
        wr->remote_stag = sqe->rkey;
        wr->remote_to = sqe->raddr;
    }
    return OFL_IW_RING_OK;
}

enum ofl_iw_ring_err ofl_iw_rqe_to_wr(const struct siw_rqe *rqe,
                                      uint32_t max_sge,
                                      struct ofl_qp_sge *sge,
                                      struct ofl_qp_recv_wr *wr)
{
    uint32_t n = rqe->num_sge;
    enum ofl_iw_ring_err e;

    if (!(rqe->flags & SIW_WQE_VALID))
        return OFL_IW_RING_NOT_VALID;
    if (rqe->flags != SIW_WQE_VALID)
        return OFL_IW_RING_FLAGS;
    if (max_sge > SIW_MAX_SGE)
        max_sge = SIW_MAX_SGE;
    if (n > max_sge)
        return OFL_IW_RING_NUM_SGE;
    e = ofl_iw_ring_sges(rqe->sge, n, sge);
    if (e != OFL_IW_RING_OK)
        return e;
    wr->wr_id = rqe->id;
    wr->sge = sge;
    wr->num_sge = n;
    return OFL_IW_RING_OK;
}
