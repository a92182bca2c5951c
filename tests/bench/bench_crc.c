/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * CRC32c on 4 KiB buffers: the portable implementation against a textbook
 * slicing-by-8 compiled here; the posix port (accelerated) and its CPU
 * instruction path alone against ISA-L's crc32_iscsi; memcpy for scale.
 */
#include "bench.h"
#include "ports/posix/ofl_posix.h"

#define N 4096

static uint8_t buf[N] __attribute__((aligned(64)));
static uint8_t dst[N] __attribute__((aligned(64)));

/* Reference slicing-by-8 (Intel's scheme), tables built at start-up. */
static uint32_t sb8[8][256];

static void sb8_init(void)
{
    unsigned i, k;

    for (i = 0; i < 256; i++) {
        uint32_t c = i;

        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
        sb8[0][i] = c;
    }
    for (k = 1; k < 8; k++)
        for (i = 0; i < 256; i++)
            sb8[k][i] = (sb8[k - 1][i] >> 8) ^ sb8[0][sb8[k - 1][i] & 0xFF];
}

static uint32_t sb8_crc(uint32_t crc, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint32_t a, b;

        memcpy(&a, p, 4);
        memcpy(&b, p + 4, 4);
        a ^= crc;
        crc = sb8[7][a & 0xFF] ^ sb8[6][(a >> 8) & 0xFF] ^
              sb8[5][(a >> 16) & 0xFF] ^ sb8[4][a >> 24] ^
              sb8[3][b & 0xFF] ^ sb8[2][(b >> 8) & 0xFF] ^
              sb8[1][(b >> 16) & 0xFF] ^ sb8[0][b >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ sb8[0][(crc ^ *p++) & 0xFF];
    return crc;
}

static void run_portable(void *ctx, uint64_t n)
{
    uint32_t c = 0;

    (void)ctx;
    while (n--) {
        c = ofl_crc32c_update(c, buf, N);
        bench_escape(buf);
    }
    bench_sink = c;
}

static void run_sb8(void *ctx, uint64_t n)
{
    uint32_t c = 0;

    (void)ctx;
    while (n--) {
        c = sb8_crc(c, buf, N);
        bench_escape(buf);
    }
    bench_sink = c;
}

static void run_fn(void *ctx, uint64_t n)
{
    ofl_posix_crc_fn fn = *(ofl_posix_crc_fn *)ctx;
    uint32_t c = 0;

    while (n--) {
        c = fn(c, buf, N);
        bench_escape(buf);
    }
    bench_sink = c;
}

static volatile size_t copy_len = N;

static void run_memcpy(void *ctx, uint64_t n)
{
    (void)ctx;
    while (n--) {
        memcpy(dst, buf, copy_len);
        bench_escape(dst);
    }
}

static double gbps(double sec)
{
    return (double)N / sec / 1e9;
}

OFL_BENCH(crc)
{
    struct ofl_posix px;
    ofl_posix_crc_fn accel, cpu, isal;
    double t_port, t_sb8, t_mem, t_isal = 0, t;
    size_t i;

    for (i = 0; i < N; i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    sb8_init();
    if (sb8_crc(0xFFFFFFFFu, buf, N) != ofl_crc32c_update(0xFFFFFFFFu, buf, N)) {
        printf("bench: crc reference disagrees with the library\n");
        return;
    }
    ofl_posix_init(&px);
    accel = px.crc;
    cpu = ofl_posix_crc32c_cpu();
    isal = ofl_posix_crc32c_isal();

    t_port = bench_measure(run_portable, NULL);
    t_sb8 = bench_measure(run_sb8, NULL);
    t_mem = bench_measure(run_memcpy, NULL);
    bench_report("crc32c_portable_4k", gbps(t_port), "GB/s", "slicing-by-8",
                 t_sb8 / t_port, ">=", 1.0);
    bench_info("memcpy_4k", gbps(t_mem), "GB/s", "crc32c_portable_4k",
               t_port / t_mem);
    if (isal == NULL) {
        bench_skip("crc32c_posix_4k", "ISA-L not installed (no baseline)");
        bench_skip("crc32c_posix_cpu_4k", "ISA-L not installed (no baseline)");
        return;
    }
    t_isal = bench_measure(run_fn, &isal);
    bench_info("crc32c_isal_4k", gbps(t_isal), "GB/s", "memcpy_4k",
               t_mem / t_isal);
    t = bench_measure(run_fn, &accel);
    bench_report("crc32c_posix_4k", gbps(t), "GB/s", "isa-l crc32_iscsi",
                 t_isal / t, ">=", 0.9);
    if (cpu == NULL) {
        bench_skip("crc32c_posix_cpu_4k", "no CRC instructions on this CPU");
        return;
    }
    t = bench_measure(run_fn, &cpu);
    bench_report("crc32c_posix_cpu_4k", gbps(t), "GB/s", "isa-l crc32_iscsi",
                 t_isal / t, ">=", 0.3);
}
