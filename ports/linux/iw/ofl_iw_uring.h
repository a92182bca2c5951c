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

#endif
