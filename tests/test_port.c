/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* port: the core's hook wrappers and the sim port's guard. */
#include "test.h"
#include "ports/sim/ofl_sim.h"
#include "support/crc_count.h"
#include "support/fused_check.h"

static unsigned barrier_calls;
static void fake_barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    (void)kind;
    barrier_calls++;
}

static void test_port_check(void)
{
    static struct ofl_sim sim; /* 9 KiB: off the (kernel) stack */
    struct ofl_port p;

    ofl_sim_init(&sim);
    CHECK_OK(ofl_port_check(&sim.port));
    CHECK_ERR(ofl_port_check(NULL), OFL_E_ARG);
    p = sim.port;
    p.version = 0;
    CHECK_ERR(ofl_port_check(&p), OFL_E_PORT_VERSION);
    p = sim.port;
    p.size = 8; /* smaller than version 1 */
    CHECK_ERR(ofl_port_check(&p), OFL_E_PORT_VERSION);
    p = sim.port;
    p.version = OFL_PORT_VERSION + 1; /* a newer port is accepted */
    CHECK_OK(ofl_port_check(&p));
    /* Every init that records a port refuses one of version 0, even where
     * the port is optional (none passes). */
    {
        static struct ofl_tpt_entry ent[4];
        static uint64_t att[4];
        static struct ofl_cqe ring[4];
        static uint8_t buf[64];
        struct ofl_tpt tpt;
        struct ofl_cq cq;
        struct ofl_mpa_tx tx;
        struct ofl_mpa_rx rx;
        struct ofl_mpa_params mp;

        p = sim.port;
        p.version = 0;
        memset(&mp, 0, sizeof(mp));
        CHECK_ERR(ofl_tpt_init(&tpt, ent, 4, att, 4, &p,
                               OFL_TPT_POLICY_STANDARD),
                  OFL_E_PORT_VERSION);
        CHECK_OK(ofl_tpt_init(&tpt, ent, 4, att, 4, NULL,
                              OFL_TPT_POLICY_STANDARD));
        CHECK_ERR(ofl_cq_init(&cq, ring, 4, &p, 0), OFL_E_PORT_VERSION);
        CHECK_OK(ofl_cq_init(&cq, ring, 4, NULL, 0));
        CHECK_ERR(ofl_mpa_tx_init(&tx, &mp, 1460, &p), OFL_E_PORT_VERSION);
        CHECK_OK(ofl_mpa_tx_init(&tx, &mp, 1460, NULL));
        CHECK_ERR(ofl_mpa_rx_init(&rx, &mp, buf, sizeof(buf), &p),
                  OFL_E_PORT_VERSION);
        CHECK_OK(ofl_mpa_rx_init(&rx, &mp, buf, sizeof(buf), NULL));
        {
            static uint32_t ring[16], ctl[16];
            struct ofl_evq_app app;
            struct ofl_pp_reasm ra;

            CHECK_ERR(ofl_evq_app_init(&app, ring, 16, NULL, 0, ctl, &p),
                      OFL_E_PORT_VERSION);
            CHECK_OK(ofl_evq_app_init(&app, ring, 16, NULL, 0, ctl, NULL));
            CHECK_ERR(ofl_pp_reasm_init(&ra, &p, buf, sizeof(buf), 64, 0),
                      OFL_E_PORT_VERSION);
            CHECK_OK(ofl_pp_reasm_init(&ra, NULL, buf, sizeof(buf), 64, 0));
        }
    }
}

static void test_port_hooks_absent(void)
{
    struct ofl_port p;
    uint8_t b[4];
    uint32_t v;

    memset(&p, 0, sizeof(p));
    p.version = OFL_PORT_VERSION;
    p.size = sizeof(p);
    CHECK_ERR(ofl_port_dma_read(&p, 0x1000, b, 4), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_dma_write(&p, 0x1000, b, 4), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_doorbell(&p, 1, 2), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_notify(&p, 1), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_pci_read(&p, 0, 4, &v), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_pci_write(&p, 0, 4, 1), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_dma_read(NULL, 0x1000, b, 4), OFL_E_PORT_HOOK);
    /* No CRC hook: the portable one; no barrier hook: nothing happens. */
    CHECK_EQ(ofl_port_crc32c(&p, OFL_CRC32C_INIT, "123456789", 9),
             ~0xE3069283u);
    CHECK_EQ(ofl_port_crc32c(NULL, OFL_CRC32C_INIT, "123456789", 9),
             ~0xE3069283u);
    ofl_port_barrier(&p, OFL_BARRIER_FULL);
    ofl_port_barrier(NULL, OFL_BARRIER_FULL);
}

/* A port compiled against an older, shorter struct: hooks past its size are
 * absent even if the memory behind them is not NULL. */
static void test_port_old_size(void)
{
    struct ofl_port p;

    memset(&p, 0, sizeof(p));
    p.version = OFL_PORT_VERSION;
    p.crc32c = crc_count_hook;
    p.barrier = fake_barrier;
    p.size = (uint16_t)offsetof(struct ofl_port, crc32c); /* ends before */
    crc_count_reset();
    (void)ofl_port_crc32c(&p, OFL_CRC32C_INIT, "x", 1);
    CHECK_EQ(crc_count.calls, 0);
    p.size = sizeof(p);
    (void)ofl_port_crc32c(&p, OFL_CRC32C_INIT, "x", 1);
    CHECK_EQ(crc_count.calls, 1);
    barrier_calls = 0;
    p.size = (uint16_t)offsetof(struct ofl_port, barrier);
    ofl_port_barrier(&p, OFL_BARRIER_ACQUIRE);
    CHECK_EQ(barrier_calls, 0);
    p.size = sizeof(p);
    ofl_port_barrier(&p, OFL_BARRIER_ACQUIRE);
    CHECK_EQ(barrier_calls, 1);
}

static void test_sim_guard(void)
{
    static struct ofl_sim sim; /* 9 KiB: off the (kernel) stack */
    uint8_t mem[64], out[16];

    ofl_sim_init(&sim);
    memset(mem, 0xAB, sizeof(mem));
    /* Nothing authorised: refused and recorded, memory untouched. */
    CHECK_ERR(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 16),
              OFL_E_PORT_DMA);
    CHECK_EQ(sim.violations, 1);
    CHECK_EQ(sim.last_violation_pa, ofl_sim_pa(mem));
    CHECK(!sim.last_violation_write);
    /* Read-only range: reads pass, writes are violations. */
    CHECK(ofl_sim_allow(&sim, mem, 32, OFL_SIM_READ) == 0);
    CHECK_OK(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 16));
    CHECK_EQ(out[0], 0xAB);
    CHECK_ERR(ofl_port_dma_write(&sim.port, ofl_sim_pa(mem), out, 1),
              OFL_E_PORT_DMA);
    CHECK_EQ(sim.violations, 2);
    CHECK(sim.last_violation_write);
    /* An injected failure does not hide a violation from the guard. */
    sim.fail_dma_countdown = 1;
    CHECK_ERR(ofl_port_dma_write(&sim.port, ofl_sim_pa(mem), out, 1),
              OFL_E_PORT_DMA);
    CHECK_EQ(sim.violations, 3);
    CHECK_EQ(sim.fail_dma_countdown, 0);
    sim.violations = 2;
    /* Last byte of the range passes, one past the end is a violation. */
    CHECK_OK(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem + 31), out, 1));
    CHECK_ERR(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem + 31), out, 2),
              OFL_E_PORT_DMA);
    CHECK_EQ(sim.violations, 3);
    /* Writable range. */
    CHECK(ofl_sim_allow(&sim, mem + 32, 32, OFL_SIM_RW) == 0);
    memset(out, 0x11, sizeof(out));
    CHECK_OK(ofl_port_dma_write(&sim.port, ofl_sim_pa(mem + 40), out, 16));
    CHECK_EQ(mem[40], 0x11);
    CHECK_EQ(mem[55], 0x11);
    CHECK_EQ(mem[56], 0xAB);
    CHECK_EQ(mem[39], 0xAB);
    CHECK_EQ(sim.dma_writes, 1);
    /* A range spanning two authorisations is not inside one: refused. */
    CHECK_ERR(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem + 30), out, 4),
              OFL_E_PORT_DMA);
    /* A wrapping range is refused by the core before the port sees it. */
    {
        unsigned long v = sim.violations;

        CHECK_ERR(ofl_port_dma_read(&sim.port, UINT64_MAX - 1, out, 4),
                  OFL_E_DMA_RANGE);
        CHECK_EQ(sim.violations, v);
        CHECK_OK(ofl_port_dma_read(&sim.port, UINT64_MAX, out, 0));
    }
    /* Injected failure. */
    sim.fail_dma_countdown = 2;
    CHECK_OK(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 1));
    CHECK_ERR(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 1),
              OFL_E_PORT_DMA);
    CHECK_OK(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 1));
    ofl_sim_revoke_all(&sim);
    CHECK_ERR(ofl_port_dma_read(&sim.port, ofl_sim_pa(mem), out, 1),
              OFL_E_PORT_DMA);
}

/* The fused hooks (tests/support/fused_check.c: every length across the
 * 4 KiB blocks at odd alignments, both ways): the bytes are memcpy's and
 * the state is ofl_crc32c_update's; with a crc32c hook set it is the one
 * that sums. */
static void test_sim_fused_pass(void)
{
    static struct ofl_sim sim;
    static uint8_t host[FUSED_CHECK_HOST];
    struct fused_check r;
    uint64_t bytes = 0;
    unsigned long calls = 0;
    size_t k;

    ofl_sim_init(&sim);
    CHECK(sim.port.dma_read_crc32c == NULL);
    CHECK(sim.port.dma_write_crc32c == NULL);
    ofl_sim_set_fused(&sim, true);
    CHECK(sim.port.dma_read_crc32c != NULL);
    CHECK(sim.port.dma_write_crc32c != NULL);
    CHECK(ofl_sim_allow(&sim, host, sizeof(host), OFL_SIM_RW) == 0);
    crc_count_reset(); /* a crc32c hook for the fused hooks to find */
    for (k = 0; k < 2; k++) {
        /* k 0: the portable CRC; k 1: the port's crc32c hook */
        sim.port.crc32c = k ? crc_count_hook : NULL;
        fused_check_run(&sim.port, host, &r);
        CHECK_EQ(r.bad_read, 0);
        CHECK_EQ(r.bad_write, 0);
        CHECK_EQ(r.bad_state, 0);
        bytes += r.bytes;
        calls += r.calls;
    }
    /* One DMA per call, in both counters; the hook summed (4 KiB
     * blocks: 4099 bytes are 2 calls), the sim no violation. */
    CHECK_EQ(sim.dma_reads, calls);
    CHECK_EQ(sim.fused_reads, calls);
    CHECK_EQ(sim.dma_writes, calls);
    CHECK_EQ(sim.fused_writes, calls);
    CHECK_EQ(sim.bytes_read, bytes);
    CHECK_EQ(sim.bytes_written, bytes);
    /* blocks per length: 0 1 1 1 1 1 2; a read and a write each */
    CHECK_EQ(crc_count.calls, 2u * 16u * (0 + 1 + 1 + 1 + 1 + 1 + 2));
    CHECK(crc_count.ctx == &sim);
    CHECK_EQ(sim.violations, 0);
    ofl_sim_reset_records(&sim);
    CHECK_EQ(sim.fused_reads, 0);
    CHECK_EQ(sim.fused_writes, 0);
    ofl_sim_set_fused(&sim, false);
    CHECK(sim.port.dma_read_crc32c == NULL);
    CHECK(sim.port.dma_write_crc32c == NULL);
}

/* The fused hooks refuse what the plain ones refuse: a range not allowed
 * (a violation, recorded) and an injected failure (one fused call is one
 * step of the countdown). A refusal writes nothing and leaves the state. */
static void test_sim_fused_trip(void)
{
    static struct ofl_sim sim;
    static uint8_t mem[600], out[600];
    uint32_t st;

    ofl_sim_init(&sim);
    ofl_sim_set_fused(&sim, true);
    memset(mem, 0xAB, sizeof(mem));
    memset(out, 0x11, sizeof(out));
    CHECK(ofl_sim_allow(&sim, mem, 300, OFL_SIM_READ) == 0);
    CHECK(ofl_sim_allow(&sim, mem + 300, 300, OFL_SIM_RW) == 0);
    /* Read past the read range: refused, recorded. */
    st = 0x12345678u;
    CHECK(sim.port.dma_read_crc32c(&sim, ofl_sim_pa(mem + 1), out, 300,
                                   &st) != 0);
    CHECK_EQ(st, 0x12345678u);
    CHECK(out[0] == 0x11 && out[299] == 0x11);
    CHECK_EQ(sim.violations, 1);
    CHECK(!sim.last_violation_write);
    CHECK_EQ(sim.last_violation_len, 300);
    /* Write into the read-only range: refused, recorded, host untouched. */
    CHECK(sim.port.dma_write_crc32c(&sim, ofl_sim_pa(mem + 10), out, 257,
                                    &st) != 0);
    CHECK_EQ(st, 0x12345678u);
    CHECK(mem[10] == 0xAB && mem[266] == 0xAB);
    CHECK_EQ(sim.violations, 2);
    CHECK(sim.last_violation_write);
    /* Injected failures, in range: the second fused call fails. */
    sim.fail_dma_countdown = 2;
    CHECK(sim.port.dma_read_crc32c(&sim, ofl_sim_pa(mem), out, 1, &st) == 0);
    CHECK_EQ(st, ofl_crc32c_update(0x12345678u, mem, 1));
    CHECK_EQ(out[0], 0xAB);
    st = 0x12345678u;
    memset(out, 0x11, sizeof(out));
    CHECK(sim.port.dma_read_crc32c(&sim, ofl_sim_pa(mem), out, 257, &st) !=
          0);
    CHECK_EQ(st, 0x12345678u);
    CHECK(out[0] == 0x11 && out[256] == 0x11);
    CHECK_EQ(sim.fail_dma_countdown, 0);
    sim.fail_dma_countdown = 1;
    CHECK(sim.port.dma_write_crc32c(&sim, ofl_sim_pa(mem + 300), out, 257,
                                    &st) != 0);
    CHECK_EQ(st, 0x12345678u);
    CHECK(mem[300] == 0xAB && mem[556] == 0xAB);
    CHECK_EQ(sim.violations, 2); /* injected, not violations */
    /* Only the call that went through counted. */
    CHECK_EQ(sim.dma_reads, 1);
    CHECK_EQ(sim.fused_reads, 1);
    CHECK_EQ(sim.dma_writes, 0);
    CHECK_EQ(sim.fused_writes, 0);
    CHECK_EQ(sim.bytes_read, 1);
    /* The countdown spent, the same write passes. */
    CHECK(sim.port.dma_write_crc32c(&sim, ofl_sim_pa(mem + 300), out, 257,
                                    &st) == 0);
    CHECK_EQ(st, ofl_crc32c_update(0x12345678u, out, 257));
    CHECK(mem[300] == 0x11 && mem[556] == 0x11 && mem[557] == 0xAB);
    CHECK_EQ(sim.fused_writes, 1);
}

static void test_sim_events_and_pci(void)
{
    static struct ofl_sim sim; /* 9 KiB: off the (kernel) stack */
    uint32_t v = 0;

    ofl_sim_init(&sim);
    CHECK_OK(ofl_port_doorbell(&sim.port, 3, 77));
    CHECK_OK(ofl_port_notify(&sim.port, 9));
    CHECK_EQ(sim.nevents, 2);
    CHECK_EQ(sim.event[0].kind, OFL_SIM_EV_DOORBELL);
    CHECK_EQ(sim.event[0].a, 3);
    CHECK_EQ(sim.event[0].b, 77);
    CHECK_EQ(sim.event[1].kind, OFL_SIM_EV_NOTIFY);
    CHECK_EQ(sim.event[1].a, 9);

    CHECK_OK(ofl_port_pci_write(&sim.port, 0x10, 4, 0x12345678u));
    CHECK_OK(ofl_port_pci_read(&sim.port, 0x10, 4, &v));
    CHECK_EQ(v, 0x12345678u);
    CHECK_OK(ofl_port_pci_read(&sim.port, 0x10, 1, &v));
    CHECK_EQ(v, 0x78);
    CHECK_OK(ofl_port_pci_read(&sim.port, 0x12, 2, &v));
    CHECK_EQ(v, 0x1234);
    /* Width and alignment rules. */
    CHECK_ERR(ofl_port_pci_read(&sim.port, 0x11, 2, &v), OFL_E_ARG);
    CHECK_ERR(ofl_port_pci_read(&sim.port, 0x10, 3, &v), OFL_E_ARG);
    CHECK_ERR(ofl_port_pci_read(&sim.port, 0x10, 4, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_port_pci_write(&sim.port, 0x10, 1, 0x100), OFL_E_ARG);
    CHECK_OK(ofl_port_pci_write(&sim.port, 0x10, 1, 0xFF));
    /* Beyond the device's space: the hook fails. */
    CHECK_ERR(ofl_port_pci_read(&sim.port, OFL_SIM_PCI_SIZE, 4, &v),
              OFL_E_PORT_PCI);
    CHECK_ERR(ofl_port_pci_write(&sim.port, OFL_SIM_PCI_SIZE, 4, 0),
              OFL_E_PORT_PCI);
}

/* A PCI hook that returns more bits than the width asked for. */
static int wide_pci_read(void *ctx, uint32_t off, uint32_t width, uint32_t *v)
{
    (void)ctx;
    (void)off;
    (void)width;
    *v = 0xA5A5A5A5u;
    return 0;
}

/* Every wrapper: a hook just past the port's size is absent, a NULL port
 * has none, and the range and width checks come before the hook. */
static void test_port_hook_edges(void)
{
    static struct ofl_sim sim; /* static: kept off small kernel stacks */
    struct ofl_port p;
    uint8_t b[4] = {1, 2, 3, 4};
    uint32_t v = 0;

    ofl_sim_init(&sim);
    CHECK(ofl_sim_allow(&sim, b, sizeof(b), OFL_SIM_RW) == 0);
    p = sim.port;
    p.size = (uint16_t)offsetof(struct ofl_port, dma_read);
    CHECK_ERR(ofl_port_dma_read(&p, ofl_sim_pa(b), b, 1), OFL_E_PORT_HOOK);
    p.size = (uint16_t)offsetof(struct ofl_port, dma_write);
    CHECK_OK(ofl_port_dma_read(&p, ofl_sim_pa(b), b, 1));
    CHECK_ERR(ofl_port_dma_write(&p, ofl_sim_pa(b), b, 1), OFL_E_PORT_HOOK);
    p.size = (uint16_t)offsetof(struct ofl_port, doorbell);
    CHECK_OK(ofl_port_dma_write(&p, ofl_sim_pa(b), b, 1));
    CHECK_ERR(ofl_port_doorbell(&p, 1, 1), OFL_E_PORT_HOOK);
    p.size = (uint16_t)offsetof(struct ofl_port, notify);
    CHECK_OK(ofl_port_doorbell(&p, 1, 1));
    CHECK_ERR(ofl_port_notify(&p, 1), OFL_E_PORT_HOOK);
    p.size = (uint16_t)offsetof(struct ofl_port, pci_cfg_read);
    CHECK_OK(ofl_port_notify(&p, 1));
    CHECK_ERR(ofl_port_pci_read(&p, 0, 4, &v), OFL_E_PORT_HOOK);
    p.size = (uint16_t)offsetof(struct ofl_port, pci_cfg_write);
    CHECK_OK(ofl_port_pci_read(&p, 0, 4, &v));
    CHECK_ERR(ofl_port_pci_write(&p, 0, 4, 0), OFL_E_PORT_HOOK);
    /* A NULL port has no hooks. */
    CHECK_ERR(ofl_port_dma_write(NULL, ofl_sim_pa(b), b, 1), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_doorbell(NULL, 1, 1), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_notify(NULL, 1), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_pci_read(NULL, 0, 4, &v), OFL_E_PORT_HOOK);
    CHECK_ERR(ofl_port_pci_write(NULL, 0, 4, 0), OFL_E_PORT_HOOK);
    /* Writes: a wrapping range is refused before the hook; an empty one
     * succeeds without calling it, at any address. */
    ofl_sim_reset_records(&sim);
    CHECK_ERR(ofl_port_dma_write(&sim.port, UINT64_MAX - 1, b, 4),
              OFL_E_DMA_RANGE);
    /* The last two bytes of the space do not wrap: the port decides (and
     * the sim refuses them, nothing being authorised there). */
    CHECK_ERR(ofl_port_dma_write(&sim.port, UINT64_MAX - 1, b, 2),
              OFL_E_PORT_DMA);
    CHECK_OK(ofl_port_dma_write(&sim.port, 0, b, 0));
    CHECK_EQ(sim.dma_writes, 0);
    CHECK_EQ(sim.violations, 1); /* the 2-byte write at 2^64 - 2 */
    /* PCI writes: width and alignment before the hook. */
    CHECK_ERR(ofl_port_pci_write(&sim.port, 0x10, 3, 0), OFL_E_ARG);
    CHECK_ERR(ofl_port_pci_write(&sim.port, 0x12, 4, 0), OFL_E_ARG);
    CHECK_ERR(ofl_port_pci_write(&sim.port, 0x10, 2, 0x10000), OFL_E_ARG);
    CHECK_OK(ofl_port_pci_write(&sim.port, 0x10, 2, 0xFFFF));
    CHECK_OK(ofl_port_pci_write(&sim.port, 0x10, 4, 0xFFFFFFFFu));
    /* PCI reads: bits beyond the width a port hands back are dropped. */
    p = sim.port;
    p.pci_cfg_read = wide_pci_read;
    CHECK_OK(ofl_port_pci_read(&p, 0x10, 1, &v));
    CHECK_EQ(v, 0xA5);
    CHECK_OK(ofl_port_pci_read(&p, 0x10, 2, &v));
    CHECK_EQ(v, 0xA5A5);
    CHECK_OK(ofl_port_pci_read(&p, 0x10, 4, &v));
    CHECK_EQ(v, 0xA5A5A5A5u);
    /* The version 1 size is exactly enough. */
    p = sim.port;
    p.size = (uint16_t)(offsetof(struct ofl_port, barrier) + sizeof(p.barrier));
    CHECK_OK(ofl_port_check(&p));
    p.size--;
    CHECK_ERR(ofl_port_check(&p), OFL_E_PORT_VERSION);
}

OFL_SUITE(port)
{
    test_port_check();
    test_port_hooks_absent();
    test_port_old_size();
    test_sim_guard();
    test_sim_fused_pass();
    test_sim_fused_trip();
    test_sim_events_and_pci();
    test_port_hook_edges();
}
