/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_iw_uring - translation between siw's user rings (<rdma/siw-abi.h>)
 * and the core's work requests and completions.
 *
 * Plain C over offload.h and siw-abi.h only: it builds in the kernel
 * module and in user space (tests, fuzz harness). Everything read from a
 * ring user space can write is hostile: each function copies the entry
 * once and checks every field it uses.
 */
#ifndef OFL_IW_URING_H
#define OFL_IW_URING_H

#include <rdma/siw-abi.h>
#include "offload.h"

/*
 * Writes the user-visible completion for core CQE c into *out, every field
 * but flags, and returns the flags byte the caller publishes last (after a
 * write barrier): SIW_WQE_VALID, plus SIW_WQE_REM_INVAL and
 * SIW_WQE_SOLICITED when the core says so. qp_id is the QP number user
 * space knows. Only opcodes and statuses libsiw maps are written: an
 * opcode siw's ABI lacks is given as the nearest one siw's user library
 * reports the same way (WRITE_IMM as WRITE; RECV_IMM as RECEIVE), a status
 * it lacks as SIW_WC_GENERAL_ERR. Returns 0 and writes nothing for a
 * completion that has no user form (an opcode user rings never post).
 */
uint8_t ofl_iw_cqe_to_siw(const struct ofl_cqe *c, uint32_t qp_id,
                          struct siw_cqe *out);

/* Why a ring entry was refused (ofl_iw_ring_strerror names each). */
enum ofl_iw_ring_err {
    OFL_IW_RING_OK = 0,
    OFL_IW_RING_NOT_VALID, /* SIW_WQE_VALID clear: no entry posted */
    OFL_IW_RING_FLAGS,     /* a flag bit user space may not set */
    OFL_IW_RING_OPCODE,    /* an opcode user rings may not post */
    OFL_IW_RING_NUM_SGE,   /* more data segments than the queue takes */
    OFL_IW_RING_INLINE,    /* inline data: not supported (max_inline 0) */
    OFL_IW_RING_LENGTH,    /* the segments add up to 2^32 bytes or more */
    OFL_IW_RING_READ_SGE   /* an RDMA Read with more than one sink */
};

const char *ofl_iw_ring_strerror(enum ofl_iw_ring_err e);

/*
 * Translates a send queue entry into the core's work request. sqe MUST
 * be the caller's own copy of the ring slot (copied once, so that user
 * space cannot change it between check and use); every field of it is
 * checked here, sge[] (SIW_MAX_SGE entries, caller memory) receives the
 * data segments and wr points at them. max_sge is the QP's (at most
 * SIW_MAX_SGE). The STags, addresses and lengths of the segments and the
 * remote STag are the core's to check against the TPT when the WQE runs.
 *   siw opcode            core opcode       fields used
 *   SIW_OP_WRITE          OFL_QP_OP_WRITE   sge, rkey, raddr
 *   SIW_OP_READ           OFL_QP_OP_READ    sge (0 or 1), rkey, raddr
 *   SIW_OP_SEND           OFL_QP_OP_SEND    sge
 *   SIW_OP_SEND_REMOTE_INV OFL_QP_OP_SEND_INV sge, rkey (the STag the
 *                                           peer invalidates)
 * Flags: SIW_WQE_SIGNALLED, _SOLICITED and _READ_FENCE become the core's
 * SIGNALED, SOLICITED and FENCE; SIW_WQE_VALID must be set; any other bit
 * (INLINE, REM_INVAL, COMPLETED, unknown) is refused. Every other opcode
 * is refused: the atomics (siw's entry has no room for their operands),
 * SEND_WITH_IMM and READ_LOCAL_INV (siw's user library never posts them)
 * and the kernel-only ones. On refusal *wr is untouched (sge[] may hold
 * a partial copy).
 */
enum ofl_iw_ring_err ofl_iw_sqe_to_wr(const struct siw_sqe *sqe,
                                      uint32_t max_sge,
                                      struct ofl_qp_sge *sge,
                                      struct ofl_qp_wr *wr);

/* The same for a receive queue entry: flags exactly SIW_WQE_VALID, the
 * opcode ignored (siw-abi.h: "ignored if set by user"), num_sge <=
 * max_sge (at most SIW_MAX_SGE), a total below 2^32 bytes. */
enum ofl_iw_ring_err ofl_iw_rqe_to_wr(const struct siw_rqe *rqe,
                                      uint32_t max_sge,
                                      struct ofl_qp_sge *sge,
                                      struct ofl_qp_recv_wr *wr);

#endif
