/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* crc_count: see crc_count.h. */
#include "crc_count.h"

struct crc_count crc_count;

void crc_count_reset(void)
{
    crc_count.calls = 0;
    crc_count.bytes = 0;
    crc_count.ctx = NULL;
    crc_count.flip = 0;
}

uint32_t crc_count_hook(void *ctx, uint32_t state, const void *data,
                        size_t len)
{
    crc_count.calls++;
    crc_count.bytes += len;
    crc_count.ctx = ctx;
    return ofl_crc32c_update(state, data, len) ^ crc_count.flip;
}
