/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * crc_count: a port's crc32c hook for the tests that must see the hook
 * used (or not): the portable CRC underneath, its calls, bytes and last
 * context counted, and its answer XORed with crc_count.flip (0: right), so
 * that a test can also make the hook answer wrong.
 */
#ifndef OFL_CRC_COUNT_H
#define OFL_CRC_COUNT_H

#include "offload.h"

struct crc_count {
    unsigned long calls; /* hook calls */
    unsigned long bytes; /* bytes summed by them */
    void *ctx;           /* the context of the last call */
    uint32_t flip;       /* XORed into every answer */
};

/* The one record every test shares; crc_count_reset clears it. */
extern struct crc_count crc_count;

void crc_count_reset(void);
uint32_t crc_count_hook(void *ctx, uint32_t state, const void *data,
                        size_t len);

#endif
