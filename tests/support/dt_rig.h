/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dt_rig: a host side and an adapter side of the dt section wired together
 * over the sim port, for tests and benches. Host memory is one arena; the
 * sim guard allows DMA only to the two tables and the arena.
 */
#ifndef OFL_DT_RIG_H
#define OFL_DT_RIG_H

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define DT_RIG_SLOTS 256 /* largest table */
#define DT_RIG_BATCH 8   /* default descriptors per DMA */
#define DT_RIG_BATCH_MAX 64
#define DT_RIG_CONNS 16
#define DT_RIG_RX 4096
#define DT_RIG_TX 4096
#define DT_RIG_RBUFS 64
#define DT_RIG_XFERS 32
#define DT_RIG_CACHE 4
#define DT_RIG_CACHE_SLOT 1024
#define DT_RIG_CTRL 1024
#define DT_RIG_ARENA (256 * 1024)

struct dt_rig {
    struct ofl_sim sim;
    struct ofl_dt_host host;
    struct ofl_dt dt;
    struct ofl_dt_config cfg;
    struct ofl_dt_mem mem;
    _Alignas(64) uint8_t in_table[DT_RIG_SLOTS * OFL_DT_DESC_SIZE];
    _Alignas(64) uint8_t out_table[DT_RIG_SLOTS * OFL_DT_DESC_SIZE];
    uint8_t in_stage[DT_RIG_BATCH_MAX * OFL_DT_DESC_SIZE];
    uint8_t out_stage[DT_RIG_BATCH_MAX * OFL_DT_DESC_SIZE];
    struct ofl_dt_conn conn[DT_RIG_CONNS];
    uint8_t conn_data[DT_RIG_CONNS * (DT_RIG_RX + DT_RIG_TX)];
    struct ofl_dt_rbuf rbuf[DT_RIG_RBUFS];
    struct ofl_dt_xfer xfer[DT_RIG_XFERS];
    struct ofl_dt_cache cache[DT_RIG_CACHE];
    uint8_t cache_data[DT_RIG_CACHE * DT_RIG_CACHE_SLOT];
    uint8_t ctrl[DT_RIG_CTRL];
    _Alignas(64) uint8_t arena[DT_RIG_ARENA];
    uint32_t arena_used;
    uint32_t next_tag;
};

/* Allocates and initialises a rig; cfg NULL = defaults. slots 0 = 64
 * for both tables, batch DT_RIG_BATCH (or the slots, if fewer). Returns
 * NULL on failure. */
struct dt_rig *dt_rig_new(const struct ofl_dt_config *cfg, uint32_t slots);
/* The same with batch descriptors per DMA (1 .. DT_RIG_BATCH_MAX). */
struct dt_rig *dt_rig_new_sized(const struct ofl_dt_config *cfg,
                                uint32_t slots, uint32_t batch);
void dt_rig_free(struct dt_rig *r);

/* Host memory from the arena (16-byte aligned, zeroed) and its address. */
uint8_t *dt_rig_alloc(struct dt_rig *r, uint32_t len);
uint64_t dt_rig_pa(const void *p);

/* Posts one request (tag assigned when d->tag == 0); returns the error. */
enum ofl_err dt_rig_post(struct dt_rig *r, struct ofl_dt_desc *d);
/* Builds and posts a request of the common shapes. */
enum ofl_err dt_rig_send(struct dt_rig *r, uint64_t conn, const void *buf,
                         uint32_t len, uint8_t flags, uint32_t tag);
enum ofl_err dt_rig_avail(struct dt_rig *r, uint64_t conn, const void *buf,
                          uint32_t len, uint8_t flags, uint32_t skip,
                          uint32_t tag);
/* A control request whose buffer (arena) holds the tuples in tup[0..len)
 * and number tuples. */
enum ofl_err dt_rig_ctrl(struct dt_rig *r, uint8_t type, uint64_t conn,
                         const uint8_t *tup, uint32_t len, uint8_t number,
                         uint32_t tag, uint8_t **buf_out);

/* Runs ofl_dt_poll at time now. */
enum ofl_err dt_rig_poll(struct dt_rig *r, uint64_t now);
/* Takes up to max responses; returns how many. */
uint32_t dt_rig_take(struct dt_rig *r, struct ofl_dt_desc *d, uint32_t max);

/* d's fields stored as the 32 bytes of offload.h's layout table without
 * any check (a host that skips the encoder); byte 0 gets the type and
 * b0 (an owner or reserved bit). */
void dt_raw_store(const struct ofl_dt_desc *d, uint8_t *b, uint8_t b0);

/* Tuple helpers: append a u32 / u64 / REMOTE set (or get) tuple. */
void dt_tup_u32(uint8_t *b, size_t *off, bool set, uint16_t attr, uint32_t v);
void dt_tup_u64(uint8_t *b, size_t *off, bool set, uint16_t attr, uint64_t v);
void dt_tup_remote(uint8_t *b, size_t *off, uint8_t last, uint16_t port);

/* Listen on port: the request, the firmware taking its LISTEN action and
 * answering OK, the listen response taken; returns the listener id or 0. */
uint64_t dt_rig_listen(struct dt_rig *r, uint16_t port, uint64_t now);
/* Connects one remote, establishes it through the firmware events and
 * takes the completion; returns the id or 0. */
uint64_t dt_rig_connect(struct dt_rig *r, uint16_t rport, uint64_t now);

#endif
