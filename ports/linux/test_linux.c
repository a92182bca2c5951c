// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * linux port, inside the running kernel: DMA through kmap_local_page on
 * real pages and only inside the window, doorbells by iowrite32, notify
 * through the driver's callback, configuration space of a real PCI device,
 * the kernel's CRC32c against the core's, and the TPT reading an indirect
 * page list from kernel memory through the port. Built only into
 * offload_selftest.ko.
 */
#include <linux/pci.h>
#include <linux/slab.h>
#include "ofl_linux.h"
#include "test.h"

static u32 notified[4];
static void on_notify(void *drv, u32 vector)
{
    u32 *seen = drv;

    if (vector < 4)
        seen[vector]++;
}

static void test_linux_dma(void)
{
    struct ofl_linux_config c = {0};
    struct ofl_linux lp;
    u8 *buf = kzalloc(3 * PAGE_SIZE, GFP_KERNEL); /* physically contiguous */
    u8 pat[64], back[64];
    u64 pa;
    int i;

    CHECK(buf != NULL);
    if (!buf)
        return;
    pa = virt_to_phys(buf);
    c.dma_base = pa;
    c.dma_len = 3 * PAGE_SIZE;
    ofl_linux_init(&lp, &c);
    CHECK_OK(ofl_port_check(&lp.port));
    for (i = 0; i < 64; i++)
        pat[i] = (u8)(i * 7 + 1);
    /* Across a page boundary, by physical address. */
    CHECK_OK(ofl_port_dma_write(&lp.port, pa + PAGE_SIZE - 20, pat, 64));
    CHECK(memcmp(buf + PAGE_SIZE - 20, pat, 64) == 0);
    memset(back, 0, sizeof(back));
    CHECK_OK(ofl_port_dma_read(&lp.port, pa + PAGE_SIZE - 20, back, 64));
    CHECK(memcmp(back, pat, 64) == 0);
    /* Window edges. */
    CHECK_OK(ofl_port_dma_read(&lp.port, pa + 3 * PAGE_SIZE - 64, back, 64));
    CHECK_ERR(ofl_port_dma_read(&lp.port, pa + 3 * PAGE_SIZE - 63, back, 64),
              OFL_E_PORT_DMA);
    CHECK_ERR(ofl_port_dma_write(&lp.port, pa - 1, pat, 2), OFL_E_PORT_DMA);
    c.dma_len = 0;
    ofl_linux_init(&lp, &c);
    CHECK_ERR(ofl_port_dma_read(&lp.port, pa, back, 1), OFL_E_PORT_DMA);
    kfree(buf);
}

static void test_linux_doorbell_notify(void)
{
    struct ofl_linux_config c = {0};
    struct ofl_linux lp;
    u32 *regs = kzalloc(64, GFP_KERNEL); /* stands in for a BAR */

    CHECK(regs != NULL);
    if (!regs)
        return;
    c.db_base = (void __iomem *)regs;
    c.db_count = 2;
    c.db_stride = 8;
    c.notify = on_notify;
    c.drv = notified;
    ofl_linux_init(&lp, &c);
    CHECK_OK(ofl_port_doorbell(&lp.port, 1, 0xFEED0001u));
    CHECK_EQ(READ_ONCE(regs[2]), 0xFEED0001u);
    CHECK_OK(ofl_port_doorbell(&lp.port, 2, 5));
    CHECK_EQ(lp.doorbells_dropped, 1);
    memset(notified, 0, sizeof(notified));
    CHECK_OK(ofl_port_notify(&lp.port, 3));
    CHECK_EQ(notified[3], 1);
    c.notify = NULL;
    ofl_linux_init(&lp, &c);
    CHECK_OK(ofl_port_notify(&lp.port, 3));
    CHECK_EQ(lp.notifies_dropped, 1);
    ofl_port_barrier(&lp.port, OFL_BARRIER_ACQUIRE);
    ofl_port_barrier(&lp.port, OFL_BARRIER_RELEASE);
    ofl_port_barrier(&lp.port, OFL_BARRIER_FULL);
    kfree(regs);
}

static void test_linux_pci(void)
{
    struct ofl_linux_config c = {0};
    struct ofl_linux lp;
    struct pci_dev *pdev = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, NULL);
    u32 v = 0;

    ofl_linux_init(&lp, &c);
    CHECK_ERR(ofl_port_pci_read(&lp.port, 0, 2, &v), OFL_E_PORT_PCI);
    if (!pdev) {
        printf("linux: no PCI device, configuration reads not exercised\n");
        return;
    }
    c.pdev = pdev;
    ofl_linux_init(&lp, &c);
    CHECK_OK(ofl_port_pci_read(&lp.port, PCI_VENDOR_ID, 2, &v));
    CHECK_EQ(v, pdev->vendor);
    CHECK_OK(ofl_port_pci_read(&lp.port, PCI_DEVICE_ID, 2, &v));
    CHECK_EQ(v, pdev->device);
    CHECK_OK(ofl_port_pci_read(&lp.port, PCI_VENDOR_ID, 4, &v));
    CHECK_EQ(v, ((u32)pdev->device << 16) | pdev->vendor);
    CHECK_OK(ofl_port_pci_read(&lp.port, PCI_HEADER_TYPE, 1, &v));
    CHECK_EQ(v & 0x7F, pdev->hdr_type & 0x7F);
    pci_dev_put(pdev);
}

static void test_linux_crc(void)
{
    struct ofl_linux_config c = {0};
    struct ofl_linux lp;
    static u8 data[3000];
    static const size_t lens[] = {0, 1, 9, 31, 32, 1000, 2999};
    u32 x = 1;
    size_t i;

    for (i = 0; i < sizeof(data); i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (u8)(x >> 16);
    }
    c.kernel_crc32c = true;
    ofl_linux_init(&lp, &c);
    CHECK(lp.port.crc32c != NULL);
    CHECK_EQ(ofl_crc32c_final(ofl_port_crc32c(&lp.port, OFL_CRC32C_INIT,
                                              "123456789", 9)),
             0xE3069283u);
    for (i = 0; i < ARRAY_SIZE(lens); i++)
        CHECK_EQ(ofl_port_crc32c(&lp.port, 0x12345678u, data + 1, lens[i]),
                 ofl_crc32c_update(0x12345678u, data + 1, lens[i]));
}

#if OFL_ENABLE_TPT
/* A two-page region of kernel memory, its page list in a third page that
 * the core reads through the port (first-order indirect ATT). */
static void test_linux_tpt(void)
{
    static struct ofl_tpt_entry entries[4];
    static u64 att[2];
    struct ofl_tpt_piece pieces[4];
    struct ofl_tpt_sgl sgl = {.piece = pieces, .cap = 4};
    struct ofl_tpt_region_desc d = {0};
    struct ofl_linux_config c = {0};
    struct ofl_linux lp;
    struct ofl_tpt tpt;
    u8 *buf = kzalloc(3 * PAGE_SIZE, GFP_KERNEL);
    u64 pa, list;
    u32 stag;

    CHECK(buf != NULL);
    if (!buf)
        return;
    pa = virt_to_phys(buf);
    c.dma_base = pa;
    c.dma_len = 3 * PAGE_SIZE;
    ofl_linux_init(&lp, &c);
    /* Page list in the third page: the region's pages are the first two,
     * in reverse order. */
    ofl_store_le64(buf + 2 * PAGE_SIZE, (pa + PAGE_SIZE) | OFL_TPT_ATT_PRESENT);
    ofl_store_le64(buf + 2 * PAGE_SIZE + 8, pa | OFL_TPT_ATT_PRESENT);
    list = (pa + 2 * PAGE_SIZE) | OFL_TPT_ATT_PRESENT;
    CHECK_OK(ofl_tpt_init(&tpt, entries, 4, att, 2, &lp.port,
                          OFL_TPT_POLICY_STANDARD));
    CHECK_OK(ofl_tpt_att_write(&tpt, 0, &list, 1));
    CHECK_OK(ofl_tpt_alloc(&tpt, OFL_TPT_REGION, 3, 0, &stag));
    d.va = 0x7000000;
    d.len = 2 * PAGE_SIZE;
    d.att_count = 1;
    d.page_shift = PAGE_SHIFT;
    d.att_kind = OFL_TPT_ATT_INDIRECT1;
    d.access = OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE;
    CHECK_OK(ofl_tpt_register(&tpt, stag, 3, &d));
    CHECK_OK(ofl_tpt_check_translate(&tpt, stag, 3, 0, d.va + 8,
                                     2 * PAGE_SIZE - 16,
                                     OFL_TPT_REMOTE_WRITE, &sgl));
    CHECK_EQ(sgl.count, 2);
    CHECK_EQ(pieces[0].pa, pa + PAGE_SIZE + 8);
    CHECK_EQ(pieces[1].pa, pa);
    /* Place through the translation and the port, read back by VA. */
    CHECK_OK(ofl_port_dma_write(&lp.port, pieces[1].pa, "offload", 7));
    CHECK(memcmp(buf, "offload", 7) == 0);
    kfree(buf);
}
#endif

OFL_SUITE(linux)
{
    test_linux_dma();
    test_linux_doorbell_notify();
    test_linux_pci();
    test_linux_crc();
#if OFL_ENABLE_TPT
    test_linux_tpt();
#endif
}
