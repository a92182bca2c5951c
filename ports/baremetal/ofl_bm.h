/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_bm - the bare-metal port: firmware on a microcontroller core with no
 * operating system and no C library (a SmartNIC or storage controller).
 *
 * What the core asks of the platform maps onto memory-mapped I/O:
 *
 *   hook           firmware action
 *   doorbell       32-bit store to doorbell register db (base + db * stride),
 *                  after a DMB so that what the doorbell announces is visible
 *   notify         local interrupt: set NVIC pending bit irq_base + vector
 *                  (Cortex-M); or, with irq_reg set, a 32-bit store of the
 *                  vector to an MMIO mailbox (an MSI towards the host)
 *   dma_read/write host memory through a bus window: host address pa is at
 *                  CPU address window_cpu + (pa - window_pa); anything
 *                  outside [window_pa, window_pa + window_len) fails
 *   pci_cfg_*      accesses of the width asked to a 4 KiB ECAM-style window
 *   barrier        DMB (acquire, release) or DSB (full)
 *   crc32c         none: the portable CRC32c of the core
 *
 * The port itself is freestanding C11 like the core: no libc (window copies
 * are volatile byte loops, which a compiler does not turn into memcpy),
 * no allocation. The struct lives in caller memory; one per device.
 * Context: hooks may run from thread or interrupt context; the doorbell and
 * notify hooks are single stores and need no lock.
 */
#ifndef OFL_BM_H
#define OFL_BM_H

#include "offload.h"

struct ofl_bm_config {
    /* Doorbells: db_count registers, db_stride bytes apart (>= 4). */
    volatile uint32_t *db_base;
    uint32_t db_count;
    uint32_t db_stride;

    /* Interrupts: when irq_reg is set, notify(v) stores v there; else, on a
     * Cortex-M, it sets NVIC pending for IRQ irq_base + v, v < irq_count. */
    volatile uint32_t *irq_reg;
    uint32_t irq_base;
    uint32_t irq_count;

    /* DMA window onto host memory. window_len 0: no DMA. */
    uintptr_t window_cpu;
    uint64_t window_pa;
    uint64_t window_len;

    /* PCI configuration space window (4 KiB), or NULL. */
    volatile uint8_t *pci_cfg;
};

struct ofl_bm {
    struct ofl_port port;        /* hand &bm->port to the core */
    struct ofl_bm_config cfg;
    uint32_t doorbells_dropped;  /* doorbell ids beyond db_count */
    uint32_t notifies_dropped;   /* vectors beyond irq_count */
};

#define OFL_BM_PCI_CFG_SIZE 4096u

/* Fills bm->port from cfg (copied). */
void ofl_bm_init(struct ofl_bm *bm, const struct ofl_bm_config *cfg);

/* True if [pa, pa + len) lies inside the DMA window. */
bool ofl_bm_window_contains(const struct ofl_bm *bm, uint64_t pa, size_t len);

#endif
