/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * A NIC of the ap section over the sim port, for tests and benches: tables,
 * caches, one port queue pair (fixed + variable ring) per port, the OS
 * queue, and host memory for incoming apertures, every range authorised in
 * the sim's guard and nothing else. Plus a raw CI frame writer that can set
 * (and break) every field, and a port that stalls on large bursts.
 */
#ifndef OFL_AP_FIXTURE_H
#define OFL_AP_FIXTURE_H

#include <stdbool.h>

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define APFX_IN 16
#define APFX_OUT 16
#define APFX_NEVQ 2
#define APFX_RING_WORDS 64   /* 16 events */
#define APFX_VAR_WORDS 256   /* 1 KiB */
#define APFX_OS_WORDS 32     /* 8 events */
#define APFX_MEM 16384
#define APFX_CACHE_MAX 64
#define APFX_VECTOR_OS 7
#define APFX_PCI_DATA 0x80000000ull /* group 0: 8 x 4 KiB, outgoing 0..7 */
#define APFX_PCI_EVENT 0x90000000ull /* group 1: 4 x 8 B, outgoing 8..11 */
#define APFX_UDP_BASE 5000

/* A port in front of the sim that refuses DMA writes longer than `limit`
 * bytes (a stalled bus) and records every write it passes on. */
struct apfx_stall {
    struct ofl_port port;
    struct ofl_sim *sim;
    uint32_t limit;      /* 0: never refuse */
    bool refuse_all;
    bool refuse_reads;    /* refuse every dma_read */
    uint32_t read_limit;  /* 0: none; else refuse reads longer than it */
    uint32_t refuse_after; /* 0: off; else refuse writes once this many
                              bursts were accepted */
    uint64_t refuse_from;  /* 0: off; else refuse a write reaching this
                              address or past it */
    uint32_t nreads;      /* reads accepted */
    uint32_t refused;
    uint32_t nbursts;
    uint64_t burst_pa[256];
    uint32_t burst_len[256];
};

struct apfx_opts {
    uint32_t max_burst;   /* 0: 256 */
    uint32_t cache_lines; /* 0: no caches */
    uint32_t cache_ways;
    bool stall;           /* the NIC's DMA goes through the stall port */
    bool trap;            /* the sim aborts on any DMA outside the allowed */
    uint32_t in_capacity; /* 0: APFX_IN (for big benches: use ext tables) */
    struct ofl_ap_in_entry *in_ext;
};

struct apfx {
    struct ofl_sim sim;
    struct apfx_stall stall;
    struct ofl_ap_nic nic;
    struct ofl_ap_addr self;
    struct ofl_ap_in_entry in[APFX_IN];
    struct ofl_ap_out_entry out[APFX_OUT];
    struct ofl_ap_cache_line in_cache[APFX_CACHE_MAX];
    struct ofl_ap_cache_line out_cache[APFX_CACHE_MAX];
    struct ofl_evq evq[APFX_NEVQ];
    struct ofl_evq osq;
    struct ofl_evq_app app[APFX_NEVQ];
    struct ofl_evq_app osapp;
    uint32_t ring[APFX_NEVQ][APFX_RING_WORDS];
    uint32_t var[APFX_NEVQ][APFX_VAR_WORDS];
    uint32_t ctl[APFX_NEVQ][8];
    uint32_t os_ring[APFX_OS_WORDS];
    uint32_t os_ctl[8];
    _Alignas(64) uint8_t mem[APFX_MEM];
};

/* Addresses of the two hosts the tests use. */
extern const struct ofl_ap_addr apfx_host_a, apfx_host_b;

/* Builds the NIC for host self; ports 0 .. APFX_NEVQ-1 own queues 0 .. n-1.
 * Returns 0 or -1. */
int apfx_init(struct apfx *f, const struct ofl_ap_addr *self,
              const struct apfx_opts *o);

/* OS: incoming CI data aperture index over mem[off .. off + size), owned
 * by port 0 with every grant, checks all on against peer, open. */
enum ofl_err apfx_in_data(struct apfx *f, uint32_t index, uint32_t off,
                          uint32_t size, const struct ofl_ap_addr *peer,
                          uint32_t nonce, uint32_t seq, bool seq_check);
/* OS: outgoing aperture index of the given type to peer's in_index. */
enum ofl_err apfx_out(struct apfx *f, uint32_t index, uint8_t type,
                      const struct ofl_ap_addr *peer, uint32_t in_index,
                      uint32_t nonce, uint32_t seq, bool seq_check);

/* One record of a raw CI frame. */
struct apfx_rec {
    const void *data;
    uint32_t in_index;
    uint32_t nonce;
    uint32_t seq;
    uint32_t offset;
    uint16_t len;
    uint8_t kind;      /* 0: data */
    uint8_t flags;
    uint16_t reserved; /* bytes 22..23 */
    bool bad_csum;
};

/* Frame-level fields of a raw CI frame (0 / NULL: the sensible value). */
struct apfx_hdr {
    const struct ofl_ap_addr *dst, *src;
    int version_byte;  /* -1: 0x10 */
    int count;         /* -1: number of records */
    int rlen_delta;    /* added to the true records length */
    bool bad_crc;
};

/* Writes a CI frame; returns its length (0 if cap is too small). */
size_t apfx_ci(uint8_t *buf, size_t cap, const struct apfx_hdr *h,
               const struct apfx_rec *recs, unsigned n);

#endif
