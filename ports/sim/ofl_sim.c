/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
#include "ofl_sim.h"

#include <stdlib.h>
#include <string.h>

bool ofl_sim_allowed(const struct ofl_sim *sim, uint64_t pa, uint64_t len,
                     unsigned perm)
{
    unsigned i;

    if (len != 0 && pa > UINT64_MAX - (len - 1))
        return false;
    for (i = 0; i < sim->nallow; i++) {
        const struct ofl_sim_range *r = &sim->allow[i];

        if ((r->perm & perm) == perm && pa >= r->pa &&
            pa - r->pa <= r->len && len <= r->len - (pa - r->pa))
            return true;
    }
    return false;
}

static int sim_guard(struct ofl_sim *sim, uint64_t pa, size_t len, bool write)
{
    /* The guard first: an injected failure must not hide a DMA outside
     * the allow-list from it. */
    if (ofl_sim_allowed(sim, pa, len, write ? OFL_SIM_WRITE : OFL_SIM_READ)) {
        if (sim->fail_dma_countdown > 0 && --sim->fail_dma_countdown == 0)
            return -1;
        return 0;
    }
    if (sim->fail_dma_countdown > 0)
        --sim->fail_dma_countdown; /* the attempt still counts down */
    sim->violations++;
    sim->last_violation_pa = pa;
    sim->last_violation_len = len;
    sim->last_violation_write = write;
    if (sim->trap_violations)
        abort();
    return -1;
}

/* Every DMA hook starts here: one guard check and one step of the
 * failure countdown; an access let through is counted (a read or a
 * write of len bytes), and nothing after it fails. */
static int sim_access(struct ofl_sim *sim, uint64_t pa, size_t len,
                      bool write)
{
    if (sim_guard(sim, pa, len, write) != 0)
        return -1;
    if (write) {
        sim->dma_writes++;
        sim->bytes_written += len;
    } else {
        sim->dma_reads++;
        sim->bytes_read += len;
    }
    return 0;
}

static int sim_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    if (sim_access(ctx, pa, len, false) != 0)
        return -1;
    memcpy(dst, ofl_sim_ptr(pa), len);
    return 0;
}

static int sim_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    if (sim_access(ctx, pa, len, true) != 0)
        return -1;
    memcpy(ofl_sim_ptr(pa), src, len);
    return 0;
}

/*
 * The fused hooks copy in blocks and feed each block to the CRC right after
 * its copy, while it is still in L1: the block is read from memory once
 * (the copy), and the CRC re-reads it from the cache. 4 KiB is small
 * enough for L1 on every host (32 KiB and up) and large enough that a page
 * is one CRC call, which then takes the CRC's kernel for long buffers (the
 * bench's hook folds them; 256-byte blocks cost three times the CRC
 * instructions of one call per page). The CRC is the port's crc32c hook when one is set (the bench
 * installs its accelerated one, and its instruction counter charges the
 * hook to the CRC, the portable ofl_crc32c_update to the library), else
 * the portable one.
 */
#define SIM_FUSED_BLOCK 4096u

static uint32_t sim_crc(struct ofl_sim *sim, uint32_t state, const void *p,
                        size_t len)
{
    if (sim->port.crc32c != NULL)
        return sim->port.crc32c(sim, state, p, len);
    return ofl_crc32c_update(state, p, len);
}

/* Copies len bytes from src to dst and returns state fed with them, each
 * block summed from the engine's side of the copy (sum_dst: the
 * destination of a read, else the source of a write), so that the CRC is
 * of the bytes the engine has, whatever host memory holds later. */
static uint32_t sim_copy_crc(struct ofl_sim *sim, uint8_t *dst,
                             const uint8_t *src, size_t len, bool sum_dst,
                             uint32_t state)
{
    while (len != 0) {
        size_t n = len < SIM_FUSED_BLOCK ? len : SIM_FUSED_BLOCK;

        memcpy(dst, src, n);
        state = sim_crc(sim, state, sum_dst ? dst : src, n);
        dst += n;
        src += n;
        len -= n;
    }
    return state;
}

/* One fused call is one DMA: one guard check, one step of the failure
 * countdown. */
static int sim_dma_read_crc32c(void *ctx, uint64_t pa, void *dst, size_t len,
                               uint32_t *state)
{
    struct ofl_sim *sim = ctx;

    if (sim_access(sim, pa, len, false) != 0)
        return -1;
    *state = sim_copy_crc(sim, dst, ofl_sim_ptr(pa), len, true, *state);
    sim->fused_reads++;
    return 0;
}

static int sim_dma_write_crc32c(void *ctx, uint64_t pa, const void *src,
                                size_t len, uint32_t *state)
{
    struct ofl_sim *sim = ctx;

    if (sim_access(sim, pa, len, true) != 0)
        return -1;
    *state = sim_copy_crc(sim, ofl_sim_ptr(pa), src, len, false, *state);
    sim->fused_writes++;
    return 0;
}

/* dma_crc32c: a read of host memory (one guard check, one step of the
 * failure countdown) summed where it lies, copied nowhere (the qp engine's
 * transmit by reference). */
static int sim_dma_crc32c(void *ctx, uint64_t pa, size_t len,
                          uint32_t *state)
{
    struct ofl_sim *sim = ctx;

    if (sim_access(sim, pa, len, false) != 0)
        return -1;
    *state = sim_crc(sim, *state, ofl_sim_ptr(pa), len);
    sim->crc_reads++;
    return 0;
}

static void sim_record(struct ofl_sim *sim, enum ofl_sim_event_kind kind,
                       uint32_t a, uint32_t b)
{
    if (sim->nevents == OFL_SIM_MAX_EVENTS) {
        sim->events_dropped++;
        return;
    }
    sim->event[sim->nevents].kind = kind;
    sim->event[sim->nevents].a = a;
    sim->event[sim->nevents].b = b;
    sim->nevents++;
}

static void sim_doorbell(void *ctx, uint32_t db, uint32_t value)
{
    sim_record(ctx, OFL_SIM_EV_DOORBELL, db, value);
}

static void sim_notify(void *ctx, uint32_t vector)
{
    sim_record(ctx, OFL_SIM_EV_NOTIFY, vector, 0);
}

static int sim_pci_read(void *ctx, uint32_t off, uint32_t width, uint32_t *v)
{
    struct ofl_sim *sim = ctx;
    uint32_t i, x = 0;

    if (off > OFL_SIM_PCI_SIZE - width)
        return -1;
    for (i = 0; i < width; i++) /* PCI configuration space is little-endian */
        x |= (uint32_t)sim->pci[off + i] << (8 * i);
    *v = x;
    return 0;
}

static int sim_pci_write(void *ctx, uint32_t off, uint32_t width, uint32_t v)
{
    struct ofl_sim *sim = ctx;
    uint32_t i;

    if (off > OFL_SIM_PCI_SIZE - width)
        return -1;
    for (i = 0; i < width; i++)
        sim->pci[off + i] = (uint8_t)(v >> (8 * i));
    return 0;
}

void ofl_sim_init(struct ofl_sim *sim)
{
    memset(sim, 0, sizeof(*sim));
    sim->port.version = OFL_PORT_VERSION;
    sim->port.size = sizeof(struct ofl_port);
    sim->port.ctx = sim;
    sim->port.dma_read = sim_dma_read;
    sim->port.dma_write = sim_dma_write;
    sim->port.doorbell = sim_doorbell;
    sim->port.notify = sim_notify;
    sim->port.pci_cfg_read = sim_pci_read;
    sim->port.pci_cfg_write = sim_pci_write;
    sim->port.crc32c = NULL; /* the portable CRC32c */
    sim->port.barrier = NULL; /* single-threaded */
    /* No fused copy + CRC hooks: ofl_sim_set_fused installs them. */
}

void ofl_sim_set_fused(struct ofl_sim *sim, bool on)
{
    sim->port.dma_read_crc32c = on ? sim_dma_read_crc32c : NULL;
    sim->port.dma_write_crc32c = on ? sim_dma_write_crc32c : NULL;
    sim->port.dma_crc32c = on ? sim_dma_crc32c : NULL;
}

int ofl_sim_allow_pa(struct ofl_sim *sim, uint64_t pa, uint64_t len,
                     unsigned perm)
{
    if (sim->nallow == OFL_SIM_MAX_RANGES)
        return -1;
    sim->allow[sim->nallow].pa = pa;
    sim->allow[sim->nallow].len = len;
    sim->allow[sim->nallow].perm = perm;
    sim->nallow++;
    return 0;
}

int ofl_sim_allow(struct ofl_sim *sim, const void *p, size_t len, unsigned perm)
{
    return ofl_sim_allow_pa(sim, ofl_sim_pa(p), len, perm);
}

void ofl_sim_revoke_all(struct ofl_sim *sim)
{
    sim->nallow = 0;
}

void ofl_sim_reset_records(struct ofl_sim *sim)
{
    sim->violations = 0;
    sim->last_violation_pa = 0;
    sim->last_violation_len = 0;
    sim->last_violation_write = false;
    sim->dma_reads = sim->dma_writes = 0;
    sim->bytes_read = sim->bytes_written = 0;
    sim->fused_reads = sim->fused_writes = sim->crc_reads = 0;
    sim->nevents = 0;
    sim->events_dropped = 0;
}
