/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ofl_bm - bare-metal port: MMIO doorbells, NVIC interrupts, a DMA window. */
#include "ofl_bm.h"

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define OFL_BM_CORTEX_M 1
/* NVIC Interrupt Set-Pending Registers (ARMv7-M ARM B3.4.6). */
#define OFL_BM_NVIC_ISPR ((volatile uint32_t *)0xE000E200u)
#else
#define OFL_BM_CORTEX_M 0
#endif

static inline void bm_dmb(void)
{
#if defined(__arm__)
    __asm__ volatile("dmb" ::: "memory");
#elif defined(__GNUC__)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void bm_dsb_isb(void)
{
#if defined(__arm__)
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#elif defined(__GNUC__)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

bool ofl_bm_window_contains(const struct ofl_bm *bm, uint64_t pa, size_t len)
{
    const struct ofl_bm_config *c = &bm->cfg;

    return pa >= c->window_pa && pa - c->window_pa <= c->window_len &&
           (uint64_t)len <= c->window_len - (pa - c->window_pa);
}

static volatile uint8_t *bm_window_ptr(const struct ofl_bm *bm, uint64_t pa)
{
    return (volatile uint8_t *)(bm->cfg.window_cpu +
                                (uintptr_t)(pa - bm->cfg.window_pa));
}

static int bm_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    const struct ofl_bm *bm = ctx;
    const volatile uint8_t *s;
    uint8_t *d = dst;
    size_t i;

    if (!ofl_bm_window_contains(bm, pa, len))
        return -1;
    s = bm_window_ptr(bm, pa);
    for (i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

static int bm_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    const struct ofl_bm *bm = ctx;
    volatile uint8_t *d;
    const uint8_t *s = src;
    size_t i;

    if (!ofl_bm_window_contains(bm, pa, len))
        return -1;
    d = bm_window_ptr(bm, pa);
    for (i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

static void bm_doorbell(void *ctx, uint32_t db, uint32_t value)
{
    struct ofl_bm *bm = ctx;

    if (bm->cfg.db_base == NULL || db >= bm->cfg.db_count) {
        bm->doorbells_dropped++;
        return;
    }
    bm_dmb(); /* what the doorbell announces is written first */
    bm->cfg.db_base[(size_t)db * (bm->cfg.db_stride / 4u)] = value;
}

static void bm_notify(void *ctx, uint32_t vector)
{
    struct ofl_bm *bm = ctx;

    if (bm->cfg.irq_reg != NULL) {
        bm_dmb();
        *bm->cfg.irq_reg = vector;
        return;
    }
#if OFL_BM_CORTEX_M
    if (vector < bm->cfg.irq_count) {
        uint32_t irq = bm->cfg.irq_base + vector;

        OFL_BM_NVIC_ISPR[irq >> 5] = 1u << (irq & 31u);
        bm_dsb_isb(); /* the interrupt is taken before we return */
        return;
    }
#endif
    bm->notifies_dropped++;
}

static int bm_pci_read(void *ctx, uint32_t off, uint32_t width, uint32_t *v)
{
    const struct ofl_bm *bm = ctx;
    const volatile uint8_t *p;

    if (bm->cfg.pci_cfg == NULL || off > OFL_BM_PCI_CFG_SIZE - width)
        return -1;
    p = bm->cfg.pci_cfg + off;
    if (width == 1)
        *v = *p;
    else if (width == 2)
        *v = *(const volatile uint16_t *)(const volatile void *)p;
    else
        *v = *(const volatile uint32_t *)(const volatile void *)p;
    return 0;
}

static int bm_pci_write(void *ctx, uint32_t off, uint32_t width, uint32_t v)
{
    const struct ofl_bm *bm = ctx;
    volatile uint8_t *p;

    if (bm->cfg.pci_cfg == NULL || off > OFL_BM_PCI_CFG_SIZE - width)
        return -1;
    p = bm->cfg.pci_cfg + off;
    if (width == 1)
        *p = (uint8_t)v;
    else if (width == 2)
        *(volatile uint16_t *)(volatile void *)p = (uint16_t)v;
    else
        *(volatile uint32_t *)(volatile void *)p = v;
    return 0;
}

static void bm_barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    if (kind == OFL_BARRIER_FULL)
        bm_dsb_isb();
    else
        bm_dmb();
}

void ofl_bm_init(struct ofl_bm *bm, const struct ofl_bm_config *cfg)
{
    struct ofl_port p = {0};

    p.version = OFL_PORT_VERSION;
    p.size = sizeof(struct ofl_port);
    p.ctx = bm;
    p.dma_read = bm_dma_read;
    p.dma_write = bm_dma_write;
    p.doorbell = bm_doorbell;
    p.notify = bm_notify;
    p.pci_cfg_read = bm_pci_read;
    p.pci_cfg_write = bm_pci_write;
    p.crc32c = NULL;
    p.barrier = bm_barrier;
    bm->port = p;
    bm->cfg = *cfg;
    bm->doorbells_dropped = 0;
    bm->notifies_dropped = 0;
}
