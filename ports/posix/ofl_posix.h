/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_posix - the user-space port.
 *
 * Memory is the process's own: a physical address is a host pointer value
 * (as in the sim port), and DMA is a plain copy with no guard. Doorbells and
 * interrupts are counted and forwarded to optional callbacks. There is no
 * PCI device in user space, so the PCI hooks are absent (the core reports
 * OFL_E_PORT_HOOK).
 *
 * CRC32c: ISA-L's crc32_iscsi when the build found ISA-L
 * (OFL_POSIX_HAVE_ISAL), else the CPU's CRC instructions (SSE4.2 on x86-64,
 * the ARMv8 CRC extension on arm64) when the running CPU has them, else the
 * portable one. The choice is made once, at ofl_posix_init.
 */
#ifndef OFL_POSIX_H
#define OFL_POSIX_H

#include "offload.h"

typedef uint32_t (*ofl_posix_crc_fn)(uint32_t state, const void *data,
                                     size_t len);

struct ofl_posix {
    struct ofl_port port;
    ofl_posix_crc_fn crc;      /* chosen at init */
    const char *crc_name;      /* "isa-l", "sse4.2", "armv8-crc", "portable" */
    unsigned long doorbells, notifies;
    void (*on_doorbell)(void *user, uint32_t db, uint32_t value);
    void (*on_notify)(void *user, uint32_t vector);
    void *user;
};

/* Fills px->port and chooses the CRC32c implementation. */
void ofl_posix_init(struct ofl_posix *px);

/* The CPU-instruction CRC32c alone, or NULL when this CPU/build has none. */
ofl_posix_crc_fn ofl_posix_crc32c_cpu(void);
/* ISA-L's CRC32c behind the same contract, or NULL when not built with it. */
ofl_posix_crc_fn ofl_posix_crc32c_isal(void);

#endif
