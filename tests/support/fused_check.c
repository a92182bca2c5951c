/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* fused_check: see fused_check.h. */
#include "fused_check.h"

#include <string.h>

void fused_check_run(const struct ofl_port *port, uint8_t *host,
                     struct fused_check *r)
{
    static uint8_t buf[FUSED_CHECK_HOST], want[FUSED_CHECK_HOST];
    static const size_t lens[] = {0, 1, 7, 255, 4095, 4096, 4096 + 3};
    size_t i, ho, bo;
    uint32_t x = 3;

    memset(r, 0, sizeof(*r));
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (ho = 0; ho < 4; ho++)
            for (bo = 0; bo < 4; bo++) {
                const size_t n = lens[i];
                const uint32_t st0 = 0x9E3779B9u * (uint32_t)(i + bo + 1);
                const uint64_t pa = (uint64_t)(uintptr_t)(host + 3 + ho);
                uint32_t st = st0;
                size_t j;

                for (j = 0; j < FUSED_CHECK_HOST; j++) {
                    x = x * 1664525u + 1013904223u;
                    host[j] = (uint8_t)(x >> 24);
                    buf[j] = (uint8_t)~host[j];
                }
                /* read: host + 3 + ho into buf + bo */
                memcpy(want, buf, sizeof(buf));
                memcpy(want + bo, host + 3 + ho, n);
                if (port->dma_read_crc32c(port->ctx, pa, buf + bo, n, &st) !=
                        0 ||
                    memcmp(buf, want, sizeof(buf)) != 0)
                    r->bad_read++;
                if (st != ofl_crc32c_update(st0, host + 3 + ho, n))
                    r->bad_state++;
                /* write: buf + bo (fresh bytes) to host + 3 + ho */
                for (j = 0; j < n; j++)
                    buf[bo + j] = (uint8_t)(buf[bo + j] * 7u + 3u);
                memcpy(want, host, FUSED_CHECK_HOST);
                memcpy(want + 3 + ho, buf + bo, n);
                st = st0;
                if (port->dma_write_crc32c(port->ctx, pa, buf + bo, n, &st) !=
                        0 ||
                    memcmp(host, want, FUSED_CHECK_HOST) != 0)
                    r->bad_write++;
                if (st != ofl_crc32c_update(st0, buf + bo, n))
                    r->bad_state++;
                r->bytes += n;
                r->calls++;
            }
}
