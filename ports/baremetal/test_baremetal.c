/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * baremetal port, on the (emulated) Cortex-M itself: doorbells land in their
 * registers, notify raises a real NVIC interrupt whose handler runs before
 * the hook returns, the DMA window refuses what lies outside it, PCI config
 * accesses have the width asked, and the TPT reads an indirect page list
 * through the window. Built only into the Cortex-M test image.
 */
#include "test.h"
#include "ofl_bm.h"

#define NVIC_ISER ((volatile uint32_t *)0xE000E100u)
#define NVIC_ICER ((volatile uint32_t *)0xE000E180u)
#define TEST_IRQ_BASE 28u /* IRQs 28..31 are unused on the MPS2 boards */
#define TEST_IRQ_COUNT 3u

static volatile uint32_t irq_seen[32];

/* Called by the start-up code's interrupt entry (startup_cm.c). */
void ofl_bm_on_irq(uint32_t irq);
void ofl_bm_on_irq(uint32_t irq)
{
    if (irq < 32)
        irq_seen[irq]++;
}

static volatile uint32_t db_regs[16];
static volatile uint32_t mailbox;
static volatile uint8_t pci_space[OFL_BM_PCI_CFG_SIZE];
static uint8_t host_mem[3 * 4096] __attribute__((aligned(4096)));

#define HOST_PA 0x80000000ull /* where host_mem sits on the host's bus */

static void config(struct ofl_bm_config *c)
{
    memset(c, 0, sizeof(*c));
    c->db_base = db_regs;
    c->db_count = 4;
    c->db_stride = 16; /* four words apart */
    c->irq_base = TEST_IRQ_BASE;
    c->irq_count = TEST_IRQ_COUNT;
    c->window_cpu = (uintptr_t)host_mem;
    c->window_pa = HOST_PA;
    c->window_len = sizeof(host_mem);
    c->pci_cfg = pci_space;
}

static void test_bm_port(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;

    config(&c);
    ofl_bm_init(&bm, &c);
    CHECK_OK(ofl_port_check(&bm.port));
    CHECK(bm.port.crc32c == NULL);
    /* The core falls back to its portable CRC32c (RFC 3720 B.4 check). */
    CHECK_EQ(ofl_crc32c("123456789", 9), 0xE3069283u);
    CHECK_EQ(ofl_port_crc32c(&bm.port, OFL_CRC32C_INIT, "123456789", 9),
             ~0xE3069283u);
}

static void test_bm_doorbell(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;
    unsigned i;

    config(&c);
    ofl_bm_init(&bm, &c);
    for (i = 0; i < 16; i++)
        db_regs[i] = 0;
    CHECK_OK(ofl_port_doorbell(&bm.port, 3, 0xCAFE0001u));
    CHECK_EQ(db_regs[12], 0xCAFE0001u); /* 3 * 16 bytes = word 12 */
    CHECK_OK(ofl_port_doorbell(&bm.port, 0, 7));
    CHECK_EQ(db_regs[0], 7);
    /* A doorbell beyond the block is counted, never written. */
    CHECK_OK(ofl_port_doorbell(&bm.port, 4, 9));
    CHECK_EQ(bm.doorbells_dropped, 1);
    for (i = 1; i < 16; i++)
        CHECK(i == 12 || db_regs[i] == 0);
}

static void test_bm_notify_nvic(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;
    uint32_t irq = TEST_IRQ_BASE + 2;

    config(&c);
    ofl_bm_init(&bm, &c);
    irq_seen[irq] = 0;
    NVIC_ISER[irq >> 5] = 1u << (irq & 31u);
    /* The hook pends the IRQ and synchronises: the handler has run when
     * ofl_port_notify returns. */
    CHECK_OK(ofl_port_notify(&bm.port, 2));
    CHECK_EQ(irq_seen[irq], 1);
    CHECK_OK(ofl_port_notify(&bm.port, 2));
    CHECK_EQ(irq_seen[irq], 2);
    NVIC_ICER[irq >> 5] = 1u << (irq & 31u);
    /* Beyond irq_count: dropped and counted, no interrupt. */
    CHECK_OK(ofl_port_notify(&bm.port, TEST_IRQ_COUNT));
    CHECK_EQ(bm.notifies_dropped, 1);
    CHECK_EQ(irq_seen[TEST_IRQ_BASE + TEST_IRQ_COUNT], 0);
}

static void test_bm_notify_mailbox(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;

    config(&c);
    c.irq_reg = &mailbox;
    ofl_bm_init(&bm, &c);
    mailbox = 0;
    CHECK_OK(ofl_port_notify(&bm.port, 0x55));
    CHECK_EQ(mailbox, 0x55);
    CHECK_EQ(bm.notifies_dropped, 0);
}

static void test_bm_dma_window(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];

    config(&c);
    ofl_bm_init(&bm, &c);
    CHECK_OK(ofl_port_dma_write(&bm.port, HOST_PA + 100, b, 8));
    CHECK(memcmp(host_mem + 100, b, 8) == 0);
    memset(r, 0, sizeof(r));
    CHECK_OK(ofl_port_dma_read(&bm.port, HOST_PA + 100, r, 8));
    CHECK(memcmp(r, b, 8) == 0);
    /* Last bytes of the window pass; one past, or below, fails. */
    CHECK_OK(ofl_port_dma_read(&bm.port, HOST_PA + sizeof(host_mem) - 8, r, 8));
    CHECK_ERR(ofl_port_dma_read(&bm.port, HOST_PA + sizeof(host_mem) - 7, r, 8),
              OFL_E_PORT_DMA);
    CHECK_ERR(ofl_port_dma_write(&bm.port, HOST_PA - 1, b, 2), OFL_E_PORT_DMA);
    CHECK_ERR(ofl_port_dma_read(&bm.port, 0, r, 1), OFL_E_PORT_DMA);
    CHECK(!ofl_bm_window_contains(&bm, HOST_PA, sizeof(host_mem) + 1));
    CHECK(ofl_bm_window_contains(&bm, HOST_PA, sizeof(host_mem)));
    /* The core refuses a wrapping range before the port sees it. */
    CHECK_ERR(ofl_port_dma_read(&bm.port, ~0ull - 2, r, 8), OFL_E_DMA_RANGE);
    c.window_len = 0;
    ofl_bm_init(&bm, &c);
    CHECK_ERR(ofl_port_dma_read(&bm.port, HOST_PA, r, 1), OFL_E_PORT_DMA);
}

static void test_bm_pci(void)
{
    struct ofl_bm bm;
    struct ofl_bm_config c;
    uint32_t v = 0;

    config(&c);
    ofl_bm_init(&bm, &c);
    CHECK_OK(ofl_port_pci_write(&bm.port, 0x10, 4, 0x11223344u));
    CHECK_EQ(pci_space[0x10], 0x44); /* little-endian configuration space */
    CHECK_EQ(pci_space[0x13], 0x11);
    CHECK_OK(ofl_port_pci_read(&bm.port, 0x12, 2, &v));
    CHECK_EQ(v, 0x1122);
    CHECK_OK(ofl_port_pci_write(&bm.port, 0x11, 1, 0xAB));
    CHECK_OK(ofl_port_pci_read(&bm.port, 0x10, 4, &v));
    CHECK_EQ(v, 0x1122AB44u);
    CHECK_OK(ofl_port_pci_read(&bm.port, OFL_BM_PCI_CFG_SIZE - 4, 4, &v));
    CHECK_ERR(ofl_port_pci_read(&bm.port, OFL_BM_PCI_CFG_SIZE, 4, &v),
              OFL_E_PORT_PCI);
    CHECK_ERR(ofl_port_pci_write(&bm.port, 2, 4, 0), OFL_E_ARG); /* misaligned */
    c.pci_cfg = NULL;
    ofl_bm_init(&bm, &c);
    CHECK_ERR(ofl_port_pci_read(&bm.port, 0, 4, &v), OFL_E_PORT_PCI);
    ofl_port_barrier(&bm.port, OFL_BARRIER_ACQUIRE);
    ofl_port_barrier(&bm.port, OFL_BARRIER_RELEASE);
    ofl_port_barrier(&bm.port, OFL_BARRIER_FULL);
}

#if OFL_ENABLE_TPT
/* A region of three pages whose first-order indirect page list is in host
 * memory: translation fetches the page words through the DMA window. */
static void test_bm_tpt_indirect(void)
{
    static struct ofl_tpt_entry entries[8];
    static uint64_t att[4];
    struct ofl_tpt_piece pieces[4];
    struct ofl_tpt_sgl sgl;
    struct ofl_tpt_region_desc d;
    struct ofl_tpt tpt;
    struct ofl_bm bm;
    struct ofl_bm_config c;
    uint64_t list_word = HOST_PA | OFL_TPT_ATT_PRESENT;
    uint32_t stag;

    config(&c);
    ofl_bm_init(&bm, &c);
    memset(host_mem, 0, sizeof(host_mem));
    /* Page list: little-endian words; pages 0 and 1 contiguous, 2 apart. */
    ofl_store_le64(host_mem + 0, 0x100000000ull | OFL_TPT_ATT_PRESENT);
    ofl_store_le64(host_mem + 8, 0x100001000ull | OFL_TPT_ATT_PRESENT);
    ofl_store_le64(host_mem + 16, 0x200000000ull | OFL_TPT_ATT_PRESENT);
    CHECK_OK(ofl_tpt_init(&tpt, entries, 8, att, 4, &bm.port,
                          OFL_TPT_POLICY_STANDARD));
    CHECK_OK(ofl_tpt_att_write(&tpt, 0, &list_word, 1));
    CHECK_OK(ofl_tpt_alloc(&tpt, OFL_TPT_REGION, 7, 0, &stag));
    memset(&d, 0, sizeof(d));
    d.va = 0x40000;
    d.len = 3 * 4096;
    d.att_base = 0;
    d.att_count = 1;
    d.page_shift = 12;
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE;
    CHECK_OK(ofl_tpt_register(&tpt, stag, 7, &d));
    sgl.piece = pieces;
    sgl.cap = 4;
    CHECK_OK(ofl_tpt_check_translate(&tpt, stag, 7, 0, 0x40000 + 100,
                                     3 * 4096 - 200, OFL_TPT_REMOTE_WRITE,
                                     &sgl));
    CHECK_EQ(sgl.count, 2);
    CHECK_EQ(pieces[0].pa, 0x100000000ull + 100);
    CHECK_EQ(pieces[0].len, 2 * 4096 - 100);
    CHECK_EQ(pieces[1].pa, 0x200000000ull);
    CHECK_EQ(pieces[1].len, 4096 - 100);
    /* The list moved out of the window: the DMA fails, so does translation. */
    list_word = (HOST_PA + sizeof(host_mem)) | OFL_TPT_ATT_PRESENT;
    CHECK_OK(ofl_tpt_att_write(&tpt, 0, &list_word, 1));
    CHECK_ERR(ofl_tpt_translate(&tpt, stag, 0x40000, 16, &sgl), OFL_E_PORT_DMA);
}
#endif

OFL_SUITE(baremetal)
{
    test_bm_port();
    test_bm_doorbell();
    test_bm_notify_nvic();
    test_bm_notify_mailbox();
    test_bm_dma_window();
    test_bm_pci();
#if OFL_ENABLE_TPT
    test_bm_tpt_indirect();
#endif
}
