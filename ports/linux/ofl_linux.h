/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_linux - the Linux kernel port: what a driver hands the core.
 *
 *   hook           kernel facility
 *   dma_read/write host physical memory, page by page through
 *                  kmap_local_page(); only pages with a struct page
 *                  (pfn_valid) inside the driver's window
 *                  [dma_base, dma_base + dma_len) are touched, anything
 *                  else fails (the core reports OFL_E_PORT_DMA)
 *   doorbell       iowrite32(value, db_base + db * db_stride)
 *   notify         the driver's callback (raise an MSI, signal an eventfd,
 *                  schedule a tasklet...)
 *   pci_cfg_*      pci_read_config_{byte,word,dword} on the driver's pdev
 *   crc32c         the kernel's __crc32c_le() (lib/crc32.c), when asked
 *   barrier        rmb() / wmb() / mb()
 *
 * Context: every hook may run in atomic context (no sleeping: kmap_local,
 * iowrite32 and the config accessors do not sleep); the notify callback
 * must not sleep either.
 */
#ifndef OFL_LINUX_H
#define OFL_LINUX_H

#include <linux/types.h>
#include <linux/pci.h>
#include "offload.h"

struct ofl_linux_config {
    phys_addr_t dma_base; /* host memory the core may reach by DMA */
    u64 dma_len;          /* 0: no DMA */
    void __iomem *db_base;
    u32 db_count;
    u32 db_stride;        /* bytes, >= 4 */
    void (*notify)(void *drv, u32 vector);
    void *drv;
    struct pci_dev *pdev; /* configuration space, or NULL */
    bool kernel_crc32c;   /* use __crc32c_le() instead of the portable one */
};

struct ofl_linux {
    struct ofl_port port; /* hand &lp->port to the core */
    struct ofl_linux_config cfg;
    unsigned long doorbells_dropped;
    unsigned long notifies_dropped;
};

/* Fills lp->port from cfg (copied). */
void ofl_linux_init(struct ofl_linux *lp, const struct ofl_linux_config *cfg);

#endif
