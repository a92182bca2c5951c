/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fused_check: the fused copy + CRC32c hooks of a port (dma_read_crc32c,
 * dma_write_crc32c) on every length that crosses the 4 KiB blocks the
 * ports copy in (none, one byte, part blocks, a block less a byte, one
 * block, one and three) at 4 x 4 odd alignments, both ways, for the sim
 * and the posix port's tests.
 */
#ifndef OFL_FUSED_CHECK_H
#define OFL_FUSED_CHECK_H

#include "offload.h"

/* host: where the port may read and write by pointer (pa = the address);
 * at least FUSED_CHECK_HOST bytes. */
#define FUSED_CHECK_HOST (4096u + 16u)

struct fused_check {
    unsigned long bad_read;  /* a read's bytes not memcpy's, or it failed */
    unsigned long bad_write; /* the same for a write */
    unsigned long bad_state; /* a state not ofl_crc32c_update's */
    unsigned long calls;     /* calls made each way */
    uint64_t bytes;          /* bytes moved each way */
};

/* Runs both hooks of port over host (nothing around a copy may move) and
 * counts into *r (cleared first). */
void fused_check_run(const struct ofl_port *port, uint8_t *host,
                     struct fused_check *r);

#endif
