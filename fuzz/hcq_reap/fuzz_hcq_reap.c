/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_hcq_reap: the host side of a completion queue in host memory
 * (ofl_hcq_reap) over CQ memory that a broken or hostile device - or
 * anything else with access to that memory - scribbles on, interleaved
 * with a well-behaved device side (ofl_hcq_put through a port over the
 * same memory) and the host publishing its consumer index.
 *
 * Input: byte 0 selects the ring size (cap = 1 << (b & 3): 1 .. 8 CQEs),
 * then a sequence of events:
 *
 *   0 SCRIBBLE off (16 bits, taken modulo the ring), len, len bytes:
 *            raw bytes written into the CQ ring
 *   1 PUT    opcode, status, flags, byte_len (32), wr_id low byte: the
 *            device writes one CQE (fields folded into their ranges)
 *   2 REAP   max: the host reaps up to max CQEs
 *   3 CI     the device learns the host's consumer index (ofl_hcq_set_ci
 *            with what the host published at ci_loc)
 *   4 ARM    kind, then a tick at the current time
 *   5 TIME   dt: time advances
 *
 * Invariants: the reaper never reads or writes outside the ring and the
 * consumer index (ASan); it returns OFL_OK or OFL_E_QP_HCQ_CQE and never
 * more than max CQEs; every CQE it hands over is within the documented
 * ranges (opcode, status, flags, byte_len); ci moves by exactly n and is
 * published when n > 0; a malformed CQE is counted in bad. While nothing
 * was scribbled, the CQEs reaped are exactly those put, in order, and
 * the reap never fails; the device never overwrites a CQE the host has
 * not reaped (its consumer index is what the host published).
 */
#include "fuzz.h"
#include "offload.h"

#include <string.h>

#define MAXCAP 8u

static _Alignas(64) uint8_t mem[MAXCAP * OFL_HCQE_LEN + 64];
#define CI_OFF (MAXCAP * OFL_HCQE_LEN)
#define PA 0x1000u

static int pwrite(void *ctx, uint64_t pa, const void *src, size_t len)
{
    (void)ctx;
    FUZZ_ASSERT(pa >= PA && len <= sizeof(mem) && pa - PA <= sizeof(mem) - len);
    memcpy(mem + (pa - PA), src, len);
    return 0;
}

static int pread(void *ctx, uint64_t pa, void *dst, size_t len)
{
    (void)ctx;
    FUZZ_ASSERT(pa >= PA && len <= sizeof(mem) && pa - PA <= sizeof(mem) - len);
    memcpy(dst, mem + (pa - PA), len);
    return 0;
}

static void pnotify(void *ctx, uint32_t v)
{
    (void)ctx;
    (void)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    struct ofl_port port;
    struct ofl_hcq h;
    struct ofl_hcq_cfg cfg;
    struct ofl_hcq_host hh;
    struct ofl_cqe e, out[MAXCAP];
    uint64_t put_ids[256], now = 0;
    uint32_t cap, nput = 0, nreap = 0, n, i, ci0, bad0;
    int clean = 1, steps = 0;
    enum ofl_err err;

    memset(&port, 0, sizeof(port));
    port.version = OFL_PORT_VERSION;
    port.size = sizeof(port);
    port.dma_read = pread;
    port.dma_write = pwrite;
    port.notify = pnotify;
    cap = 1u << (fuzz_u8(&in) & 3u);
    FUZZ_ASSERT(ofl_hcq_host_init(&hh, mem, cap, mem + CI_OFF, NULL) ==
                OFL_OK);
    memset(&cfg, 0, sizeof(cfg));
    cfg.ring_pa = PA;
    cfg.ci_pa = PA + CI_OFF;
    cfg.ci_dma = 1;
    cfg.cap = cap;
    cfg.mod_count = 2;
    cfg.mod_time = 10;
    FUZZ_ASSERT(ofl_hcq_init(&h, &port, &cfg) == OFL_OK);
    while (in.n > 0 && steps++ < 4096) {
        uint8_t op = fuzz_u8(&in);

        switch (op % 6) {
        case 0: {
            uint32_t off = fuzz_u16(&in) % (cap * OFL_HCQE_LEN);
            const uint8_t *p;
            size_t k = fuzz_take(&in, &p, fuzz_u8(&in));

            if (k > cap * OFL_HCQE_LEN - off)
                k = cap * OFL_HCQE_LEN - off;
            memcpy(mem + off, p, k);
            if (k != 0)
                clean = 0;
            break;
        }
        case 1:
            memset(&e, 0, sizeof(e));
            e.opcode = (uint8_t)(1 + fuzz_u8(&in) % OFL_QP_OP_ISCSI_RECV);
            e.status = (uint8_t)(fuzz_u8(&in) % OFL_WC_STATUS_COUNT_);
            e.flags = (uint8_t)(fuzz_u8(&in) & 0x1Fu);
            e.byte_len = fuzz_u32(&in) & 0x7FFFFFFFu;
            e.wr_id = nput;
            e.qpn = 3;
            err = ofl_hcq_put(&h, &e, now);
            FUZZ_ASSERT(err == OFL_OK || err == OFL_E_QP_HCQ_OVERRUN);
            if (err == OFL_OK && nput < 256)
                put_ids[nput] = e.wr_id;
            if (err == OFL_OK)
                nput++;
            /* The device never gets ahead of what the host reaped. */
            FUZZ_ASSERT(h.pi - hh.ci <= cap || !clean);
            break;
        case 2: {
            uint32_t max = fuzz_u8(&in) % (MAXCAP + 1);

            ci0 = hh.ci;
            bad0 = hh.bad;
            err = ofl_hcq_reap(&hh, out, max, &n);
            FUZZ_ASSERT(err == OFL_OK || err == OFL_E_QP_HCQ_CQE);
            FUZZ_ASSERT(n <= max && n <= cap);
            FUZZ_ASSERT(hh.ci == ci0 + n);
            FUZZ_ASSERT(hh.bad == bad0 + (err != OFL_OK));
            if (n > 0)
                FUZZ_ASSERT(ofl_load_le32(mem + CI_OFF) == hh.ci);
            for (i = 0; i < n; i++) {
                FUZZ_ASSERT(out[i].opcode >= OFL_QP_OP_SEND &&
                            out[i].opcode <= OFL_QP_OP_ISCSI_RECV);
                FUZZ_ASSERT(out[i].status < OFL_WC_STATUS_COUNT_);
                FUZZ_ASSERT((out[i].flags & ~0x1Fu) == 0);
                FUZZ_ASSERT(out[i].byte_len < 0x80000000u);
                if (clean) {
                    FUZZ_ASSERT(nreap < nput);
                    if (nreap < 256)
                        FUZZ_ASSERT(out[i].wr_id == put_ids[nreap]);
                    FUZZ_ASSERT(out[i].qpn == 3);
                }
                nreap++;
            }
            if (clean)
                FUZZ_ASSERT(err == OFL_OK);
            break;
        }
        case 3:
            err = ofl_hcq_set_ci(&h, ofl_load_le32(mem + CI_OFF));
            FUZZ_ASSERT(err == OFL_OK || err == OFL_E_QP_HCQ_CI);
            if (clean)
                FUZZ_ASSERT(err == OFL_OK);
            break;
        case 4:
            FUZZ_ASSERT(ofl_hcq_arm(&h, (enum ofl_cq_arm)(fuzz_u8(&in) % 3)) ==
                        OFL_OK);
            FUZZ_ASSERT(ofl_hcq_tick(&h, now) == OFL_OK);
            break;
        default:
            now += fuzz_u8(&in);
            break;
        }
    }
    return 0;
}
