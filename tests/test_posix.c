/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* posix port: its CRC32c paths agree with the portable one; DMA and hooks.
 * ofl-test-needs: posix */
#include "test.h"
#include "ports/posix/ofl_posix.h"
#include "support/fused_check.h"

static uint32_t last_db, last_vec;
static void on_db(void *u, uint32_t db, uint32_t v)
{
    (void)u;
    last_db = db ^ v;
}
static void on_vec(void *u, uint32_t v)
{
    (void)u;
    last_vec = v;
}

/* Every length 0..600 crosses each folding path's thresholds and block
 * boundaries (16, 32, 64, 128, 256 bytes) with every tail; the long ones
 * run the main loops many rounds. Offsets 0..3 misalign the loads. */
static void check_impl(ofl_posix_crc_fn fn)
{
    static uint8_t buf[20000];
    static const size_t lens[] = {4095, 4096, 4097, 9216, 19999};
    unsigned long bad = 0;
    size_t i, off, n;
    uint32_t x = 7;

    for (i = 0; i < sizeof(buf); i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(x >> 24);
    }
    for (i = 0; i <= 600 + sizeof(lens) / sizeof(lens[0]); i++)
        for (off = 0; off < 4; off++) {
            n = i <= 600 ? i : lens[i - 601];
            n = n > sizeof(buf) - off ? sizeof(buf) - off : n;
            if (fn(0x12345678u, buf + off, n) !=
                ofl_crc32c_update(0x12345678u, buf + off, n))
                bad++;
        }
    CHECK_EQ(bad, 0);
    memset(buf, 0, 32);
    CHECK_EQ(~fn(OFL_CRC32C_INIT, buf, 32), 0x8A9136AAu);
    /* initial values 0 and >= 2^31 (the folding paths inject it as int) */
    memset(buf, 0xFF, 300);
    CHECK_EQ(fn(0, buf, 300), ofl_crc32c_update(0, buf, 300));
    CHECK_EQ(fn(0xFFFFFFFFu, buf, 300),
             ofl_crc32c_update(0xFFFFFFFFu, buf, 300));
}

/* Every CPU path the running CPU has, not only the one the dispatch takes
 * (the first available one). */
static void check_cpu_paths(void)
{
    ofl_posix_crc_fn fn, first = NULL;
    const char *name;
    unsigned i;

    for (i = 0; (fn = ofl_posix_crc32c_cpu_path(i, &name)), name != NULL;
         i++) {
        printf("posix cpu crc32c path %u %s: %s\n", i, name,
               fn != NULL ? "checked" : "not on this CPU");
        if (fn != NULL)
            check_impl(fn);
        if (first == NULL)
            first = fn;
    }
    CHECK(ofl_posix_crc32c_cpu_path(i, NULL) == NULL);
    CHECK(ofl_posix_crc32c_cpu() == first);
}

static unsigned long counted_crc_calls;
static uint32_t counted_crc(uint32_t state, const void *data, size_t len)
{
    counted_crc_calls++;
    return ofl_crc32c_update(state, data, len);
}

/* The fused copy + CRC32c hooks ofl_posix_set_fused installs
 * (tests/support/fused_check.c: every length across the 4 KiB blocks at
 * odd alignments, both ways): the bytes are memcpy's, nothing around them
 * moves, and the state is ofl_crc32c_update's, summed by px->crc (which a
 * test may replace). They have no failure to trip: the posix port has no
 * guard. */
static void check_fused(struct ofl_posix *px)
{
    static uint8_t host[FUSED_CHECK_HOST];
    struct fused_check r;

    CHECK(px->port.dma_read_crc32c != NULL);
    CHECK(px->port.dma_write_crc32c != NULL);
    if (px->port.dma_read_crc32c == NULL || px->port.dma_write_crc32c == NULL)
        return;
    fused_check_run(&px->port, host, &r);
    CHECK_EQ(r.bad_read, 0);
    CHECK_EQ(r.bad_write, 0);
    CHECK_EQ(r.bad_state, 0);
}

OFL_SUITE(posix)
{
    struct ofl_posix px;
    uint8_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
    ofl_posix_crc_fn fn;

    ofl_posix_init(&px);
    printf("posix port crc32c: %s\n", px.crc_name);
    check_impl(px.crc);
    if ((fn = ofl_posix_crc32c_cpu()) != NULL)
        check_impl(fn);
    check_cpu_paths();
    if ((fn = ofl_posix_crc32c_isal()) != NULL)
        check_impl(fn);
    CHECK_OK(ofl_port_check(&px.port));
    CHECK_EQ(ofl_port_crc32c(&px.port, OFL_CRC32C_INIT, "123456789", 9),
             ~0xE3069283u);
    CHECK_OK(ofl_port_dma_read(&px.port, (uint64_t)(uintptr_t)a, b, 8));
    CHECK(memcmp(a, b, 8) == 0);
    b[0] = 99;
    CHECK_OK(ofl_port_dma_write(&px.port, (uint64_t)(uintptr_t)a, b, 1));
    CHECK_EQ(a[0], 99);
    px.on_doorbell = on_db;
    px.on_notify = on_vec;
    CHECK_OK(ofl_port_doorbell(&px.port, 0xF0, 0x0F));
    CHECK_EQ(last_db, 0xFF);
    CHECK_OK(ofl_port_notify(&px.port, 5));
    CHECK_EQ(last_vec, 5);
    CHECK_EQ(px.doorbells, 1);
    CHECK_EQ(px.notifies, 1);
    ofl_port_barrier(&px.port, OFL_BARRIER_RELEASE);
    /* the fused hooks: not there after init, there after set_fused */
    CHECK(px.port.dma_read_crc32c == NULL && px.port.dma_write_crc32c == NULL &&
          px.port.dma_crc32c == NULL);
    ofl_posix_set_fused(&px, true);
    CHECK(px.port.dma_crc32c != NULL);
    {
        uint8_t h[300];
        uint32_t st = 5;
        size_t j;

        for (j = 0; j < sizeof(h); j++)
            h[j] = (uint8_t)(j * 13);
        CHECK_EQ(px.port.dma_crc32c(px.port.ctx, (uint64_t)(uintptr_t)h,
                                    sizeof(h), &st),
                 0);
        CHECK_EQ(st, ofl_crc32c_update(5, h, sizeof(h)));
    }
    check_fused(&px); /* with the CRC init chose */
    {
        ofl_posix_crc_fn chosen = px.crc;

        px.crc = counted_crc; /* the hooks sum with px->crc, per block */
        check_fused(&px);
        /* blocks per length: 0 1 1 1 1 1 2; a read and a write each */
        CHECK_EQ(counted_crc_calls, 2u * 16u * (0 + 1 + 1 + 1 + 1 + 1 + 2));
        px.crc = chosen;
    }
    ofl_posix_set_fused(&px, false);
    CHECK(px.port.dma_read_crc32c == NULL && px.port.dma_write_crc32c == NULL &&
          px.port.dma_crc32c == NULL);
    {
        uint32_t v;

        CHECK_ERR(ofl_port_pci_read(&px.port, 0, 4, &v), OFL_E_PORT_HOOK);
    }
}
