// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/* ofl_linux - the Linux kernel port of offload (see ofl_linux.h). */
#include <linux/crc32.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include "ofl_linux.h"

static bool ofl_linux_in_window(const struct ofl_linux *lp, u64 pa, size_t len)
{
    u64 base = lp->cfg.dma_base;

    return pa >= base && pa - base <= lp->cfg.dma_len &&
           (u64)len <= lp->cfg.dma_len - (pa - base);
}

/* Copies len bytes between buf and host physical memory at pa. */
static int ofl_linux_copy(struct ofl_linux *lp, u64 pa, void *buf, size_t len,
                          bool to_host)
{
    u8 *b = buf;

    if (!ofl_linux_in_window(lp, pa, len))
        return -EFAULT;
    while (len > 0) {
        unsigned long pfn = (unsigned long)(pa >> PAGE_SHIFT);
        size_t off = (size_t)(pa & (PAGE_SIZE - 1));
        size_t n = min_t(size_t, len, PAGE_SIZE - off);
        u8 *va;

        if (!pfn_valid(pfn))
            return -EFAULT;
        va = kmap_local_page(pfn_to_page(pfn));
        if (to_host)
            memcpy(va + off, b, n);
        else
            memcpy(b, va + off, n);
        kunmap_local(va);
        pa += n;
        b += n;
        len -= n;
    }
    return 0;
}

static int ofl_linux_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    return ofl_linux_copy(ctx, pa, dst, len, false);
}

static int ofl_linux_dma_write(void *ctx, uint64_t pa, const void *src,
                               size_t len)
{
    return ofl_linux_copy(ctx, pa, (void *)src, len, true);
}

static void ofl_linux_doorbell(void *ctx, uint32_t db, uint32_t value)
{
    struct ofl_linux *lp = ctx;

    if (!lp->cfg.db_base || db >= lp->cfg.db_count) {
        lp->doorbells_dropped++;
        return;
    }
    /* iowrite32 is ordered after earlier writes to normal memory. */
    iowrite32(value, lp->cfg.db_base + (size_t)db * lp->cfg.db_stride);
}

static void ofl_linux_notify(void *ctx, uint32_t vector)
{
    struct ofl_linux *lp = ctx;

    if (!lp->cfg.notify) {
        lp->notifies_dropped++;
        return;
    }
    lp->cfg.notify(lp->cfg.drv, vector);
}

static int ofl_linux_pci_read(void *ctx, uint32_t off, uint32_t width,
                              uint32_t *value)
{
    struct ofl_linux *lp = ctx;
    int rc;

    if (!lp->cfg.pdev)
        return -ENODEV;
    if (width == 1) {
        u8 v;

        rc = pci_read_config_byte(lp->cfg.pdev, off, &v);
        *value = v;
    } else if (width == 2) {
        u16 v;

        rc = pci_read_config_word(lp->cfg.pdev, off, &v);
        *value = v;
    } else {
        u32 v;

        rc = pci_read_config_dword(lp->cfg.pdev, off, &v);
        *value = v;
    }
    return rc ? -EIO : 0;
}

static int ofl_linux_pci_write(void *ctx, uint32_t off, uint32_t width,
                               uint32_t value)
{
    struct ofl_linux *lp = ctx;
    int rc;

    if (!lp->cfg.pdev)
        return -ENODEV;
    if (width == 1)
        rc = pci_write_config_byte(lp->cfg.pdev, off, (u8)value);
    else if (width == 2)
        rc = pci_write_config_word(lp->cfg.pdev, off, (u16)value);
    else
        rc = pci_write_config_dword(lp->cfg.pdev, off, value);
    return rc ? -EIO : 0;
}

static uint32_t ofl_linux_crc32c(void *ctx, uint32_t state, const void *data,
                                 size_t len)
{
    (void)ctx;
    return __crc32c_le(state, data, len);
}

static void ofl_linux_barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    if (kind == OFL_BARRIER_ACQUIRE)
        rmb();
    else if (kind == OFL_BARRIER_RELEASE)
        wmb();
    else
        mb();
}

void ofl_linux_init(struct ofl_linux *lp, const struct ofl_linux_config *cfg)
{
    memset(lp, 0, sizeof(*lp));
    lp->cfg = *cfg;
    lp->port.version = OFL_PORT_VERSION;
    lp->port.size = sizeof(struct ofl_port);
    lp->port.ctx = lp;
    lp->port.dma_read = ofl_linux_dma_read;
    lp->port.dma_write = ofl_linux_dma_write;
    lp->port.doorbell = ofl_linux_doorbell;
    lp->port.notify = ofl_linux_notify;
    lp->port.pci_cfg_read = ofl_linux_pci_read;
    lp->port.pci_cfg_write = ofl_linux_pci_write;
    lp->port.crc32c = cfg->kernel_crc32c ? ofl_linux_crc32c : NULL;
    lp->port.barrier = ofl_linux_barrier;
}
