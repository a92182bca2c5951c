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
