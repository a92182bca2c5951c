/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_sim - the test and bench port.
 *
 * Host memory stands in for physical memory: a "physical address" is the
 * host pointer value (ofl_sim_pa). Every DMA is checked against an
 * allow-list of ranges the test authorised, with read and/or write
 * permission; a DMA outside it is not performed, fails, and is recorded as a
 * violation (and aborts the process when trap_violations is set, so that a
 * fuzzer sees it). Doorbells and interrupts are appended to an event log for
 * assertions. PCI configuration space is a 4 KiB byte array. DMA failures
 * can be injected. The fused copy + CRC32c hooks (dma_read_crc32c,
 * dma_write_crc32c) and the in-place CRC (dma_crc32c) are there only
 * after ofl_sim_set_fused.
 */
#ifndef OFL_SIM_H
#define OFL_SIM_H

#include "offload.h"

#define OFL_SIM_MAX_RANGES 64
#define OFL_SIM_MAX_EVENTS 256
#define OFL_SIM_PCI_SIZE 4096

enum ofl_sim_perm { OFL_SIM_READ = 1, OFL_SIM_WRITE = 2, OFL_SIM_RW = 3 };

enum ofl_sim_event_kind { OFL_SIM_EV_DOORBELL = 1, OFL_SIM_EV_NOTIFY = 2 };

struct ofl_sim_event {
    enum ofl_sim_event_kind kind;
    uint32_t a; /* doorbell id or vector */
    uint32_t b; /* doorbell value */
};

struct ofl_sim_range {
    uint64_t pa;
    uint64_t len;
    unsigned perm;
};

struct ofl_sim {
    struct ofl_port port; /* hand &sim->port to the core */
    struct ofl_sim_range allow[OFL_SIM_MAX_RANGES];
    unsigned nallow;

    /* Guard record. */
    unsigned long violations;
    uint64_t last_violation_pa;
    uint64_t last_violation_len;
    bool last_violation_write;
    bool trap_violations; /* abort() on a violation (fuzzing) */

    /* Counters. A fused call counts as a DMA (dma_reads or dma_writes,
     * and its bytes) and also in fused_reads or fused_writes; a
     * dma_crc32c call as a read (dma_reads, bytes_read) and in
     * crc_reads. */
    unsigned long dma_reads, dma_writes;
    uint64_t bytes_read, bytes_written;
    unsigned long fused_reads, fused_writes, crc_reads;

    /* Failure injection: when > 0, counts down on each DMA; the DMA that
     * brings it to 0 fails (and it stays 0). */
    long fail_dma_countdown;

    /* Recorded doorbells and interrupts (oldest first; stops when full). */
    struct ofl_sim_event event[OFL_SIM_MAX_EVENTS];
    unsigned nevents;
    unsigned long events_dropped;

    uint8_t pci[OFL_SIM_PCI_SIZE];
};

/* Physical address of host memory under the sim port. */
static inline uint64_t ofl_sim_pa(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}
/* Host pointer for a sim physical address. */
static inline void *ofl_sim_ptr(uint64_t pa)
{
    return (void *)(uintptr_t)pa;
}

/* Fills sim->port and clears every record. The port has no fused hooks. */
void ofl_sim_init(struct ofl_sim *sim);
/*
 * Installs (on) or removes (!on) the fused hooks dma_read_crc32c and
 * dma_write_crc32c, and dma_crc32c (a read summed where it lies, copied
 * nowhere, the CRC as below). Each is one DMA to the guard and to the failure
 * countdown (a failure writes nothing and leaves *state as it was); it
 * copies in 4 KiB blocks and feeds each block, right after its copy,
 * to the port's crc32c hook (with ctx sim) when one is set at the call,
 * else to ofl_crc32c_update. The CRC reads the engine's side of the copy:
 * the destination of a read, the source of a write.
 */
void ofl_sim_set_fused(struct ofl_sim *sim, bool on);
/* Authorises DMA to [p, p + len) with perm; returns 0, or -1 when full. */
int ofl_sim_allow(struct ofl_sim *sim, const void *p, size_t len, unsigned perm);
/* Same by physical address. */
int ofl_sim_allow_pa(struct ofl_sim *sim, uint64_t pa, uint64_t len,
                     unsigned perm);
/* Withdraws every authorisation. */
void ofl_sim_revoke_all(struct ofl_sim *sim);
/* Clears the violation and event records and the counters. */
void ofl_sim_reset_records(struct ofl_sim *sim);
/* True if [pa, pa + len) lies inside one range allowing perm. */
bool ofl_sim_allowed(const struct ofl_sim *sim, uint64_t pa, uint64_t len,
                     unsigned perm);

#endif
