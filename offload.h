/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * offload.h - the decision logic of an RDMA / TCP offload engine.
 *
 * This header is the whole public API and its reference manual. It is
 * organised in the same sections as offload.c:
 *
 *   base   ofl_            errors, byte order, serial numbers, CRC32c
 *   port   ofl_port_       the platform hooks (DMA, doorbells, interrupts, PCI)
 *   tpt    ofl_tpt_        memory translation and protection table
 *   seq    ofl_seq_        TCP sequence window and the one-touch decision
 *   wire   ofl_mpa_ ofl_ddp_ ofl_rdmap_   the iWARP wire
 *   qp     ofl_qp_ ofl_cq_ queue pairs and completion queues
 *   ap     ofl_ap_ ofl_evq_ apertures, nonces, dual event queues
 *   dt     ofl_dt_         host/adapter descriptor tables
 *   pp     ofl_pp_         push-push messaging layer
 *
 * Conventions that hold everywhere:
 *   - Every object lives in caller memory. Nothing is allocated, nothing is
 *     global. A function changes only the context it is given (and host
 *     memory reached through the port).
 *   - Functions that can fail return enum ofl_err; OFL_OK is zero. A failed
 *     call leaves its context as it was unless its contract says otherwise.
 *   - Bytes from the wire, from a peer or from a descriptor table are hostile:
 *     they are read with bounds-checked byte loads and never trusted for a
 *     length or an address.
 *   - Locking is the caller's. Each object states which context may touch it.
 *
 * Freestanding: this header includes only <stddef.h>, <stdint.h>,
 * <stdbool.h> and <limits.h>; inside a Linux kernel build (__KERNEL__) it
 * takes its types from <linux/types.h>, and OFL_TYPES_HEADER may name any
 * other header that provides them.
 */
#ifndef OFFLOAD_H
#define OFFLOAD_H

#if defined(OFL_TYPES_HEADER)
#include OFL_TYPES_HEADER
#elif defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Configuration                                                            */
/* ======================================================================== */
/*
 * Every section except base can be left out of a build so that firmware
 * carries only what it uses. Define OFL_ENABLE_<SECTION> to 0 before
 * including this header (and when compiling offload.c). The dependency
 * rule of the design holds: base <- {tpt, seq, wire} <- qp <- pp;
 * ap and dt rest on base alone.
 */
#ifndef OFL_ENABLE_TPT
#define OFL_ENABLE_TPT 1
#endif
#ifndef OFL_ENABLE_SEQ
#define OFL_ENABLE_SEQ 1
#endif
#ifndef OFL_ENABLE_WIRE
#define OFL_ENABLE_WIRE 1
#endif
#ifndef OFL_ENABLE_QP
#define OFL_ENABLE_QP 1
#endif
#ifndef OFL_ENABLE_AP
#define OFL_ENABLE_AP 1
#endif
#ifndef OFL_ENABLE_DT
#define OFL_ENABLE_DT 1
#endif
#ifndef OFL_ENABLE_PP
#define OFL_ENABLE_PP 1
#endif

/* A configuration that breaks a dependency stops here, naming it (`make
 * test-configs` builds every combination these rules allow). */
#if OFL_ENABLE_QP && !(OFL_ENABLE_TPT && OFL_ENABLE_SEQ && OFL_ENABLE_WIRE)
#error "offload: OFL_ENABLE_QP=1 needs OFL_ENABLE_TPT, OFL_ENABLE_SEQ and OFL_ENABLE_WIRE"
#endif
#if OFL_ENABLE_PP && !OFL_ENABLE_QP
#error "offload: OFL_ENABLE_PP=1 needs OFL_ENABLE_QP"
#endif

/*
 * OFL_CRC32C_SLICES: how many 1 KiB lookup tables the portable CRC32c uses.
 * 16 (default, fastest, 16 KiB of const data), 8, or 1 (smallest, 1 KiB).
 */
#ifndef OFL_CRC32C_SLICES
#define OFL_CRC32C_SLICES 16
#endif

/* ======================================================================== */
/* base: versions, errors, terminate causes, completion statuses            */
/* ======================================================================== */

#define OFL_VERSION_MAJOR 0
#define OFL_VERSION_MINOR 1
#define OFL_VERSION_PATCH 0
#define OFL_VERSION_STRING "0.1.0"
/* (major << 16) | (minor << 8) | patch, for compile-time checks. */
#define OFL_VERSION_NUMBER \
    ((OFL_VERSION_MAJOR << 16) | (OFL_VERSION_MINOR << 8) | OFL_VERSION_PATCH)

/* Returns OFL_VERSION_NUMBER as compiled into offload.c. */
uint32_t ofl_version(void);

/*
 * Errors. One enum for the whole library; values are stable (each section
 * owns a range of 256) and ofl_strerror() returns the enumerator's name.
 * Each list is an X-macro: X(NAME, value) defines OFL_<NAME> = value.
 */
#define OFL_ERRORS_BASE(X)                                                   \
    X(OK, 0x0000)              /* success */                                 \
    X(E_ARG, 0x0001)           /* a pointer is NULL or an argument is out    \
                                  of its documented range */                 \
    X(E_SIZE, 0x0002)          /* a caller buffer is too small */            \
    X(E_TRUNCATED, 0x0003)     /* input ended before a complete field */     \
    X(E_PORT_VERSION, 0x0010)  /* struct ofl_port has an unknown version    \
                                  or a size smaller than version 1 */        \
    X(E_PORT_HOOK, 0x0011)     /* a hook this call needs is NULL */          \
    X(E_PORT_DMA, 0x0012)      /* the port's DMA hook reported failure */    \
    X(E_PORT_PCI, 0x0013)      /* the port's PCI config hook failed */       \
    X(E_DMA_RANGE, 0x0014)     /* physical address + length wraps 2^64 */

#define OFL_ERRORS_TPT(X)                                                    \
    X(E_TPT_INVALID_STAG, 0x0101)  /* Tag_Index is 0, beyond the table, or   \
                                      names an unallocated entry */          \
    X(E_TPT_KEY_MISMATCH, 0x0102)  /* Tag_Instance differs from the entry:   \
                                      a stale STag (FIG. 15 d, 18A d) */     \
    X(E_TPT_NOT_VALID, 0x0103)     /* entry allocated but its Valid bit is   \
                                      clear (FIG. 15 a, 18A a) */            \
    X(E_TPT_WRONG_TYPE, 0x0104)    /* region/window/iSCSI type not allowed   \
                                      for this use (FIG. 15 b, 18A b) */     \
    X(E_TPT_PD_MISMATCH, 0x0105)   /* protection domains differ (FIG. 15 c,  \
                                      18A c) */                              \
    X(E_TPT_QP_MISMATCH, 0x0106)   /* type 2 window used from another QP */  \
    X(E_TPT_BOUNDS, 0x0107)        /* access not inside the entry's range    \
                                      (FIG. 15 e, 18A e) */                  \
    X(E_TPT_TO_WRAP, 0x0108)       /* TO + length - 1 wraps past 2^64 */     \
    X(E_TPT_ACCESS, 0x0109)        /* the access right is not granted        \
                                      (FIG. 15 f, 18A f) */                  \
    X(E_TPT_NO_BIND, 0x010A)       /* region does not allow window binding   \
                                      (FIG. 15 g) */                         \
    X(E_TPT_REGION_GONE, 0x010B)   /* window's region was deregistered,      \
                                      invalidated or re-registered */        \
    X(E_TPT_CANNOT_INVALIDATE, 0x010C) /* entry may not be invalidated this  \
                                      way */                                 \
    X(E_TPT_FULL, 0x010D)          /* no free entry left */                  \
    X(E_TPT_BUSY, 0x010E)          /* entry is valid; the verb needs it      \
                                      invalid (or vice versa) */             \
    X(E_TPT_BAD_DESC, 0x010F)      /* registration descriptor malformed:     \
                                      page size, offset, length, ATT kind */ \
    X(E_TPT_ATT_RANGE, 0x0110)     /* ATT slots outside the ATT array */     \
    X(E_TPT_ATT_CORRUPT, 0x0111)   /* an ATT word has reserved bits set or   \
                                      a misaligned page address */           \
    X(E_TPT_PAGE_FAULT, 0x0112)    /* page not present: see fault_va */      \
    X(E_TPT_SGL_FULL, 0x0113)      /* caller's scatter list filled before    \
                                      the access was covered */              \
    X(E_TPT_ACCESS_COMBO, 0x0114)  /* remote write/atomic asked without      \
                                      local write, or local rights asked     \
                                      for a window */

/* Errors of the later sections are added to these lists by those sections. */
#define OFL_ERRORS_SEQ(X)  /* seq: 0x02xx */
#define OFL_ERRORS_WIRE(X) /* wire: 0x03xx */
#define OFL_ERRORS_QP(X)   /* qp: 0x04xx */
#define OFL_ERRORS_AP(X)   /* ap: 0x05xx */
#define OFL_ERRORS_DT(X)   /* dt: 0x06xx */
#define OFL_ERRORS_PP(X)   /* pp: 0x07xx */

#define OFL_ERRORS(X)                                                        \
    OFL_ERRORS_BASE(X) OFL_ERRORS_TPT(X) OFL_ERRORS_SEQ(X)                   \
    OFL_ERRORS_WIRE(X) OFL_ERRORS_QP(X) OFL_ERRORS_AP(X) OFL_ERRORS_DT(X)    \
    OFL_ERRORS_PP(X)

#define OFL_ERR_ENUMERATOR_(name, value) OFL_##name = value,
enum ofl_err { OFL_ERRORS(OFL_ERR_ENUMERATOR_) OFL_ERR_END_ };

/* Returns the stable name of e ("OFL_E_TPT_BOUNDS"), or "OFL_E_UNKNOWN". */
const char *ofl_strerror(enum ofl_err e);

/*
 * Terminate causes (RFC 5040 §7.2 and its IANA registry, RFC 5041 §7.2,
 * RFC 5044 §8). A cause is (layer, error type, error code); remote failures
 * on an RDMA stream are reported to the peer with exactly one of these.
 */
enum ofl_term_layer {
    OFL_TERM_LAYER_RDMAP = 0x0,
    OFL_TERM_LAYER_DDP = 0x1,
    OFL_TERM_LAYER_MPA = 0x2 /* the LLP: MPA over TCP */
};

/* RDMAP error types (layer 0x0). */
enum ofl_term_rdmap_type {
    OFL_TERM_RDMAP_LOCAL_CATASTROPHIC = 0x0,
    OFL_TERM_RDMAP_REMOTE_PROTECTION = 0x1,
    OFL_TERM_RDMAP_REMOTE_OPERATION = 0x2
};

/* RDMAP error codes. Protection: 0x00-0x04, 0x09, 0xFF. Operation: 0x05-0x09,
 * 0xFF. */
enum ofl_term_rdmap_code {
    OFL_TERM_RDMAP_INVALID_STAG = 0x00,
    OFL_TERM_RDMAP_BASE_BOUNDS = 0x01,
    OFL_TERM_RDMAP_ACCESS_RIGHTS = 0x02,
    OFL_TERM_RDMAP_STAG_NOT_ASSOCIATED = 0x03,
    OFL_TERM_RDMAP_TO_WRAP = 0x04,
    OFL_TERM_RDMAP_INVALID_VERSION = 0x05,
    OFL_TERM_RDMAP_UNEXPECTED_OPCODE = 0x06,
    OFL_TERM_RDMAP_CATASTROPHIC_STREAM = 0x07,
    OFL_TERM_RDMAP_CATASTROPHIC_GLOBAL = 0x08,
    OFL_TERM_RDMAP_CANNOT_INVALIDATE = 0x09,
    OFL_TERM_RDMAP_UNSPECIFIED = 0xFF
};

/* DDP error types (layer 0x1). */
enum ofl_term_ddp_type {
    OFL_TERM_DDP_LOCAL_CATASTROPHIC = 0x0,
    OFL_TERM_DDP_TAGGED = 0x1,
    OFL_TERM_DDP_UNTAGGED = 0x2
};

/* DDP tagged buffer error codes (type 0x1). */
enum ofl_term_ddp_tagged_code {
    OFL_TERM_DDP_T_INVALID_STAG = 0x00,
    OFL_TERM_DDP_T_BASE_BOUNDS = 0x01,
    OFL_TERM_DDP_T_STAG_NOT_ASSOCIATED = 0x02,
    OFL_TERM_DDP_T_TO_WRAP = 0x03,
    OFL_TERM_DDP_T_INVALID_VERSION = 0x04
};

/* DDP untagged buffer error codes (type 0x2). */
enum ofl_term_ddp_untagged_code {
    OFL_TERM_DDP_U_INVALID_QN = 0x01,
    OFL_TERM_DDP_U_INVALID_MSN_NO_BUFFER = 0x02,
    OFL_TERM_DDP_U_INVALID_MSN_RANGE = 0x03,
    OFL_TERM_DDP_U_INVALID_MO = 0x04,
    OFL_TERM_DDP_U_MSG_TOO_LONG = 0x05,
    OFL_TERM_DDP_U_INVALID_VERSION = 0x06
};

/* One terminate cause. */
struct ofl_term_cause {
    uint8_t layer; /* enum ofl_term_layer */
    uint8_t etype; /* error type within the layer */
    uint8_t ecode; /* error code within the type */
};

/*
 * Completion statuses of work completions. The names follow libibverbs'
 * enum ibv_wc_status so that a verbs provider maps them one to one.
 */
enum ofl_wc_status {
    OFL_WC_SUCCESS = 0,
    OFL_WC_LOC_LEN_ERR,      /* local length error (receive too small) */
    OFL_WC_LOC_QP_OP_ERR,    /* local QP operation error */
    OFL_WC_LOC_PROT_ERR,     /* local protection error (STag checks) */
    OFL_WC_WR_FLUSH_ERR,     /* flushed: the QP went to an error state */
    OFL_WC_MW_BIND_ERR,      /* window bind failed */
    OFL_WC_BAD_RESP_ERR,     /* unexpected response from the peer */
    OFL_WC_LOC_ACCESS_ERR,   /* local access error on an inbound placement */
    OFL_WC_REM_INV_REQ_ERR,  /* peer found the request invalid */
    OFL_WC_REM_ACCESS_ERR,   /* peer refused the access (its STag checks) */
    OFL_WC_REM_OP_ERR,       /* peer could not complete the operation */
    OFL_WC_FATAL_ERR,        /* catastrophic, stream lost */
    OFL_WC_GENERAL_ERR       /* anything else */
};

/* ------------------------------------------------------------------------ */
/* base: byte order on byte arrays                                          */
/* ------------------------------------------------------------------------ */
/*
 * Loads and stores of 16/32/64-bit integers in explicit byte order, byte by
 * byte: no alignment is assumed and no host byte order leaks in. Compilers
 * merge them into single loads where the target allows. The caller MUST
 * have checked that p points to at least 2/4/8 readable (writable) bytes.
 */
static inline uint16_t ofl_load_be16(const uint8_t *p)
{
    return (uint16_t)(((uint16_t)p[0] << 8) | p[1]);
}
static inline uint32_t ofl_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t ofl_load_be64(const uint8_t *p)
{
    return ((uint64_t)ofl_load_be32(p) << 32) | ofl_load_be32(p + 4);
}
static inline uint16_t ofl_load_le16(const uint8_t *p)
{
    return (uint16_t)(((uint16_t)p[1] << 8) | p[0]);
}
static inline uint32_t ofl_load_le32(const uint8_t *p)
{
    return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[1] << 8) | (uint32_t)p[0];
}
static inline uint64_t ofl_load_le64(const uint8_t *p)
{
    return ((uint64_t)ofl_load_le32(p + 4) << 32) | ofl_load_le32(p);
}
static inline void ofl_store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void ofl_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void ofl_store_be64(uint8_t *p, uint64_t v)
{
    ofl_store_be32(p, (uint32_t)(v >> 32));
    ofl_store_be32(p + 4, (uint32_t)v);
}
static inline void ofl_store_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void ofl_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void ofl_store_le64(uint8_t *p, uint64_t v)
{
    ofl_store_le32(p, (uint32_t)v);
    ofl_store_le32(p + 4, (uint32_t)(v >> 32));
}

/* ------------------------------------------------------------------------ */
/* base: 32-bit serial-number arithmetic (RFC 1982, SERIAL_BITS = 32)       */
/* ------------------------------------------------------------------------ */
/*
 * s1 < s2 when (s2 - s1) mod 2^32 lies in 1 .. 2^31 - 1. RFC 1982 leaves
 * the pair exactly 2^31 apart undefined; here neither is less than the
 * other (both ofl_sn_lt calls return false), so a caller that needs an
 * order must treat such a pair as out of window.
 */
static inline bool ofl_sn_lt(uint32_t s1, uint32_t s2)
{
    uint32_t d = s2 - s1;
    return d != 0 && d < 0x80000000u;
}
static inline bool ofl_sn_gt(uint32_t s1, uint32_t s2)
{
    return ofl_sn_lt(s2, s1);
}
static inline bool ofl_sn_le(uint32_t s1, uint32_t s2)
{
    return s1 == s2 || ofl_sn_lt(s1, s2);
}
static inline bool ofl_sn_ge(uint32_t s1, uint32_t s2)
{
    return s1 == s2 || ofl_sn_lt(s2, s1);
}
/* (s2 - s1) mod 2^32: the forward distance from s1 to s2. */
static inline uint32_t ofl_sn_diff(uint32_t s1, uint32_t s2)
{
    return s2 - s1;
}

/* ------------------------------------------------------------------------ */
/* base: CRC32c (Castagnoli, RFC 3385; vectors RFC 3720 appendix B.4)       */
/* ------------------------------------------------------------------------ */
/*
 * The CRC state is the raw, reflected register: start from OFL_CRC32C_INIT,
 * feed bytes with ofl_crc32c_update() in any split, and finish with
 * ofl_crc32c_final() (one's complement). The value goes on the wire in the
 * byte order the protocol names (MPA: RFC 5044 §4.5).
 */
#define OFL_CRC32C_INIT 0xFFFFFFFFu

/* Portable update: slicing-by-OFL_CRC32C_SLICES, no alignment assumed. */
uint32_t ofl_crc32c_update(uint32_t state, const void *data, size_t len);
/* Returns ~state. */
static inline uint32_t ofl_crc32c_final(uint32_t state)
{
    return ~state;
}
/* One shot: ofl_crc32c_final(ofl_crc32c_update(OFL_CRC32C_INIT, data, len)). */
uint32_t ofl_crc32c(const void *data, size_t len);

/* ======================================================================== */
/* port: what a platform supplies                                           */
/* ======================================================================== */
/*
 * The core never touches the platform. Everything it needs from the outside
 * world goes through one struct ofl_port: DMA by host physical address,
 * doorbells, interrupts, PCI configuration space, an optional accelerated
 * CRC32c and optional memory barriers. A program may hold several ports
 * (one per device); each engine context records the port it uses.
 *
 * Versioning (as SQLite's VFS): version and size come first. A port built
 * against an older header has a smaller size; hooks beyond its size are
 * treated as absent. The core refuses a port whose version is 0 or whose
 * size does not cover version 1.
 *
 * Context: hooks may be called from whatever context calls into the engine
 * that owns the port. They MUST NOT call back into the same engine.
 */
#define OFL_PORT_VERSION 1

/* Barrier kinds for the optional barrier hook (descriptor tables, rings). */
enum ofl_barrier {
    OFL_BARRIER_ACQUIRE = 1, /* before reading what the other side wrote */
    OFL_BARRIER_RELEASE = 2, /* after writing, before handing ownership over */
    OFL_BARRIER_FULL = 3
};

struct ofl_port {
    uint16_t version; /* OFL_PORT_VERSION the port was written for */
    uint16_t size;    /* sizeof(struct ofl_port) the port was compiled with */
    void *ctx;        /* passed back as the first argument of every hook */

    /*
     * dma_read: copy len bytes from host physical address pa to dst.
     * MUST return 0 on success, non-zero if any byte could not be read (the
     * core then reports OFL_E_PORT_DMA and uses none of dst). MUST NOT
     * write outside dst[0 .. len). Required for any section that reads
     * host memory (indirect ATTs, WQE fetch, payload).
     */
    int (*dma_read)(void *ctx, uint64_t pa, void *dst, size_t len);

    /*
     * dma_write: copy len bytes from src to host physical address pa.
     * Same return contract. The core only calls it for ranges the TPT or a
     * descriptor authorised; a port MAY check again (the sim port does).
     */
    int (*dma_write)(void *ctx, uint64_t pa, const void *src, size_t len);

    /* doorbell: ring doorbell db with value (queue index, producer count).
     * Never fails; a port that cannot ring records the loss itself. */
    void (*doorbell)(void *ctx, uint32_t db, uint32_t value);

    /* notify: raise interrupt / event vector. Never fails. */
    void (*notify)(void *ctx, uint32_t vector);

    /* pci_cfg_read / pci_cfg_write: configuration space access of width 1,
     * 2 or 4 bytes at an offset aligned to the width. Return 0 on success. */
    int (*pci_cfg_read)(void *ctx, uint32_t offset, uint32_t width,
                        uint32_t *value);
    int (*pci_cfg_write)(void *ctx, uint32_t offset, uint32_t width,
                         uint32_t value);

    /*
     * crc32c (optional): the same contract as ofl_crc32c_update() - raw
     * reflected state in, raw state out. NULL means the portable one.
     */
    uint32_t (*crc32c)(void *ctx, uint32_t state, const void *data,
                       size_t len);

    /* barrier (optional): order memory accesses; NULL means none needed
     * (a single-threaded simulation). */
    void (*barrier)(void *ctx, enum ofl_barrier kind);
};

/* Checks version and size; returns OFL_OK, OFL_E_ARG or OFL_E_PORT_VERSION. */
enum ofl_err ofl_port_check(const struct ofl_port *port);
/* Reads len bytes at pa through the port. OFL_E_PORT_HOOK if dma_read is
 * absent, OFL_E_DMA_RANGE if pa + len wraps, OFL_E_PORT_DMA if it failed. */
enum ofl_err ofl_port_dma_read(const struct ofl_port *port, uint64_t pa,
                               void *dst, size_t len);
/* Writes len bytes to pa through the port; errors as ofl_port_dma_read. */
enum ofl_err ofl_port_dma_write(const struct ofl_port *port, uint64_t pa,
                                const void *src, size_t len);
/* Rings a doorbell; OFL_E_PORT_HOOK if the port has none. */
enum ofl_err ofl_port_doorbell(const struct ofl_port *port, uint32_t db,
                               uint32_t value);
/* Raises an interrupt vector; OFL_E_PORT_HOOK if the port has none. */
enum ofl_err ofl_port_notify(const struct ofl_port *port, uint32_t vector);
/* PCI config access; OFL_E_ARG for a bad width or misaligned offset,
 * OFL_E_PORT_HOOK if absent, OFL_E_PORT_PCI if the hook failed. */
enum ofl_err ofl_port_pci_read(const struct ofl_port *port, uint32_t offset,
                               uint32_t width, uint32_t *value);
enum ofl_err ofl_port_pci_write(const struct ofl_port *port, uint32_t offset,
                                uint32_t width, uint32_t value);
/* CRC32c update through the port's hook when it has one, else portable.
 * port may be NULL. */
uint32_t ofl_port_crc32c(const struct ofl_port *port, uint32_t state,
                         const void *data, size_t len);
/* Memory barrier through the port's hook; nothing if it has none. */
void ofl_port_barrier(const struct ofl_port *port, enum ofl_barrier kind);

/* ======================================================================== */
/* tpt: memory translation and protection table                             */
/* ======================================================================== */
#if OFL_ENABLE_TPT
/*
 * The Memory TPT (seed 000 FIG. 12-15, 18A; seed 001 "Remote Memory
 * Protection", "Local Memory Protection") is two caller-owned arrays:
 *
 *   entries  the memory region/window table (MRWT): one struct
 *            ofl_tpt_entry per Tag_Index, capacity 2 .. 2^24. Index 0 is
 *            reserved and never valid, so an all-zero STag never matches.
 *   att      the address translation table: 64-bit slots, shared by any
 *            number of regions (FIG. 14).
 *
 * STag = Tag_Index (upper 24 bits) << 8 | Tag_Instance (lower 8 bits, the
 * key). Every allocation of an index bumps its key, so an STag kept from an
 * earlier life of the index fails with OFL_E_TPT_KEY_MISMATCH.
 *
 * Entry states and the verbs that move them:
 *
 *   state      verb                              next     notes
 *   FREE       ofl_tpt_alloc                     INVALID  key bumped
 *   INVALID    ofl_tpt_register (region, iSCSI)  VALID    translation set
 *   INVALID    ofl_tpt_bind (window)             VALID    range of a region
 *   VALID      ofl_tpt_bind(va 0, len 0)         INVALID  unbind (seed 001)
 *   VALID      ofl_tpt_invalidate_local/_remote  INVALID  if invalidatable
 *   VALID      one-shot or one-touch expiry      INVALID  ofl_tpt_expire
 *   VALID      ofl_tpt_dereg (region)            FREE     windows go dead
 *   INVALID    ofl_tpt_dealloc                   FREE
 *   VALID      ofl_tpt_dealloc (window)          FREE
 *
 * Deregistering (or invalidating, or re-registering) a region with windows
 * bound to it succeeds. Each region carries a generation number bumped by
 * each of those verbs, and each window records the generation it was bound
 * under; a window whose region generation moved on is dead: every check and
 * translation through it fails with OFL_E_TPT_REGION_GONE (terminate cause
 * "invalid STag"). This is O(1), needs no back-pointers, and can never let
 * a window reach memory its region no longer owns. A dead window must be
 * bound again or deallocated.
 *
 * Validation. Local checks (seed 000 FIG. 15 a-g) are for WQE data
 * segments; remote checks (FIG. 18A a-f) for tagged placement and RDMA Read
 * sources. Checks run in the order valid, key, type, PD (and QP), TO wrap,
 * bounds, rights: the seed lists checks that must all pass; a key mismatch
 * is reported first because it means the STag does not name this entry at
 * all. Every failure maps to a terminate cause (ofl_tpt_term_cause) and a
 * completion status (ofl_tpt_wc_status).
 *
 * Translation (FIG. 12-13): region offset = TO - entry va (+ the window's
 * place in its region); byte position = first-page offset + region offset;
 * page index = position >> page_shift. ATT kinds:
 *   direct        att[att_base + page] is the page word
 *   1st indirect  att[att_base + page / 512] is the physical address of a
 *                 4 KiB list of 512 page words in host memory
 *   2nd indirect  att[att_base + page / 512^2] -> list of 512 list addresses
 *                 -> list of 512 page words
 * Host-memory lists hold little-endian 64-bit words and are read through
 * the port's DMA. A page word is the page's physical address (aligned to the
 * page size) | OFL_TPT_ATT_PRESENT; bits 1..11 are reserved and MUST be
 * zero. A word without the present bit is an unpinned page (seed 001 "Local
 * Memory Protection"): translation stops with OFL_E_TPT_PAGE_FAULT and the
 * faulting TO; the host maps the page with ofl_tpt_map_page (MapLocalPage)
 * and retries.
 *
 * Context: one TPT is owned by one adapter context. Verbs and checks are
 * not reentrant for the same TPT; checks and translations are read-only and
 * may run concurrently with each other but not with a verb.
 */

/* Entry types (seed 000 FIG. 13 field 1311). */
enum ofl_tpt_type {
    OFL_TPT_REGION = 0, /* RDMA region ('00'b) */
    OFL_TPT_WINDOW = 1, /* RDMA window ('01'b) */
    OFL_TPT_ISCSI = 2   /* iSCSI 1.0 region ('10'b); va holds the command
                           reference (FIG. 13), access is zero-based */
};

/* Entry states (see the table above). */
enum ofl_tpt_state {
    OFL_TPT_FREE = 0,
    OFL_TPT_INVALID = 1,
    OFL_TPT_VALID = 2
};

/* Access rights (FIG. 13 fields 1330, 1332). */
enum ofl_tpt_access {
    OFL_TPT_LOCAL_READ = 0x01,
    OFL_TPT_LOCAL_WRITE = 0x02,
    OFL_TPT_REMOTE_READ = 0x04,
    OFL_TPT_REMOTE_WRITE = 0x08,
    OFL_TPT_REMOTE_ATOMIC = 0x10,
    OFL_TPT_BIND_WINDOW = 0x20 /* windows may be bound to this region */
};
#define OFL_TPT_ACCESS_ALL 0x3Fu
#define OFL_TPT_ACCESS_REMOTE \
    (OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC)

/* Entry flags. */
enum ofl_tpt_flag {
    OFL_TPT_F_ONE_TOUCH = 0x01,     /* FIG. 13 1334: one touch enabled */
    OFL_TPT_F_TOUCHED = 0x02,       /* FIG. 13 1334: touched */
    OFL_TPT_F_ONE_SHOT = 0x04,      /* seed 001: invalid after first use */
    OFL_TPT_F_ZERO_BASED = 0x08,    /* TO counts from 0, not from va */
    OFL_TPT_F_INVALIDATABLE = 0x10, /* local/remote invalidate allowed */
    OFL_TPT_F_TYPE2 = 0x20          /* window: type 2 (bound by WR, tied to
                                       one QP); clear: type 1 */
};

/* ATT control (FIG. 13 field 1316). */
enum ofl_tpt_att_kind {
    OFL_TPT_ATT_DIRECT = 0,
    OFL_TPT_ATT_INDIRECT1 = 1,
    OFL_TPT_ATT_INDIRECT2 = 2
};

#define OFL_TPT_ATT_PRESENT 0x1u          /* page word: page is present */
#define OFL_TPT_ATT_RESERVED 0xFFEu       /* page word bits that MUST be 0 */
#define OFL_TPT_ATT_LIST_SHIFT 9          /* 512 words per indirect list */
#define OFL_TPT_PAGE_SHIFT_MIN 12         /* 4 KiB */
#define OFL_TPT_PAGE_SHIFT_MAX 28         /* 256 MiB */
#define OFL_TPT_MAX_ENTRIES (1u << 24)    /* Tag_Index is 24 bits */

/* STag composition. */
static inline uint32_t ofl_stag_make(uint32_t index, uint8_t key)
{
    return (index << 8) | key;
}
static inline uint32_t ofl_stag_index(uint32_t stag)
{
    return stag >> 8;
}
static inline uint8_t ofl_stag_key(uint32_t stag)
{
    return (uint8_t)stag;
}

/*
 * One MRWT entry (FIG. 13). Caller memory; fields are documented for
 * inspection and debugging, but only the ofl_tpt_ functions change them.
 */
struct ofl_tpt_entry {
    uint64_t va;          /* 1304 start VA (TO of the first byte) */
    uint64_t len;         /* 1306 length in bytes */
    uint32_t pd;          /* 1308 protection domain */
    uint32_t stored_sn;   /* 1315 stored DDP sequence number (one touch) */
    uint32_t att_base;    /* region: first ATT slot (1320) */
    uint32_t att_count;   /* region: ATT slots it owns */
    uint32_t fpo;         /* region: byte offset into the first page */
    uint32_t gen;         /* region: generation (see the state table) */
    uint32_t region;      /* window: Tag_Index of its region */
    uint32_t region_gen;  /* window: its region's generation when bound */
    uint32_t qp;          /* type 2 window: the QP it is bound through */
    uint32_t next_free;   /* free list link while FREE */
    uint8_t key;          /* 1310 Tag_Instance */
    uint8_t type;         /* 1311 enum ofl_tpt_type */
    uint8_t state;        /* 1312 enum ofl_tpt_state (VALID = Valid bit) */
    uint8_t access;       /* 1330/1332 enum ofl_tpt_access bits */
    uint8_t flags;        /* 1334 and others: enum ofl_tpt_flag bits */
    uint8_t att_kind;     /* 1316 enum ofl_tpt_att_kind */
    uint8_t page_shift;   /* 1318 log2 page size, 12 .. 28 */
    uint8_t reserved_;
};

/* Remote access policy (FIG. 18A b). */
enum ofl_tpt_policy {
    OFL_TPT_POLICY_STANDARD = 0,    /* RFC 5040: regions with remote rights
                                       and windows may be targeted */
    OFL_TPT_POLICY_WINDOWS_ONLY = 1 /* seed 000: "regions cannot be used for
                                       remote access" */
};

/* The table context. */
struct ofl_tpt {
    struct ofl_tpt_entry *entry; /* entries[capacity] */
    uint64_t *att;               /* att[att_capacity] */
    const struct ofl_port *port; /* DMA for indirect lists; may be NULL if
                                    only direct ATTs are used */
    uint32_t capacity;
    uint32_t att_capacity;
    uint32_t free_head;          /* 0 = none free */
    uint32_t free_count;
    uint8_t policy;              /* enum ofl_tpt_policy */
};

/* Registration descriptor: what ofl_tpt_register puts into an entry. */
struct ofl_tpt_region_desc {
    uint64_t va;        /* start VA; for OFL_TPT_ISCSI the command reference */
    uint64_t len;       /* > 0 */
    uint32_t att_base;  /* first ATT slot of this region */
    uint32_t att_count; /* slots it may use (direct: pages; indirect: lists) */
    uint32_t fpo;       /* first-page offset, < page size */
    uint8_t page_shift; /* 12 .. 28 */
    uint8_t att_kind;   /* enum ofl_tpt_att_kind */
    uint8_t access;     /* enum ofl_tpt_access bits */
    uint8_t flags;      /* OFL_TPT_F_ONE_TOUCH | _ONE_SHOT | _ZERO_BASED |
                           _INVALIDATABLE */
};

/* A physical buffer (for ofl_tpt_reg_phys). */
struct ofl_tpt_pbuf {
    uint64_t pa;
    uint64_t len;
};

/* A piece of a translation. */
struct ofl_tpt_piece {
    uint64_t pa;
    uint32_t len;
};

/* A caller-owned scatter list filled by ofl_tpt_translate. */
struct ofl_tpt_sgl {
    struct ofl_tpt_piece *piece; /* array of cap pieces */
    uint32_t cap;
    uint32_t count;    /* out: pieces written */
    uint64_t bytes;    /* out: bytes those pieces cover */
    uint64_t fault_va; /* out: on OFL_E_TPT_PAGE_FAULT, the TO of the first
                          byte that could not be translated */
};

/* A read-only view of an entry (ofl_tpt_query). */
struct ofl_tpt_info {
    uint64_t va;
    uint64_t len;
    uint32_t pd;
    uint32_t stored_sn;
    uint32_t region_stag_index; /* window: its region's Tag_Index */
    uint8_t type;
    uint8_t state;
    uint8_t access;
    uint8_t flags;
};

/*
 * Initialises tpt over caller arrays. capacity 2 .. 2^24; att may be NULL
 * when att_capacity is 0. Every entry becomes FREE with key 0 (index 0 stays
 * reserved). O(capacity). Returns OFL_E_ARG on bad sizes.
 */
enum ofl_err ofl_tpt_init(struct ofl_tpt *tpt, struct ofl_tpt_entry *entries,
                          uint32_t capacity, uint64_t *att,
                          uint32_t att_capacity, const struct ofl_port *port,
                          enum ofl_tpt_policy policy);

/*
 * Allocates an STag of the given type for protection domain pd (AllocateRKey,
 * seed 001; allocate STag, RFC 5040). flags: OFL_TPT_F_TYPE2 for a type 2
 * window. The entry becomes INVALID with a fresh key. OFL_E_TPT_FULL when
 * none is free.
 */
enum ofl_err ofl_tpt_alloc(struct ofl_tpt *tpt, enum ofl_tpt_type type,
                           uint32_t pd, uint8_t flags, uint32_t *stag);

/*
 * Returns an allocated STag to the free list (DeallocateRKey). A bound window
 * is unbound first; a VALID region is refused with OFL_E_TPT_BUSY (use
 * ofl_tpt_dereg). Checks key and pd.
 */
enum ofl_err ofl_tpt_dealloc(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd);

/*
 * Writes n raw words into ATT slots base .. base + n - 1 (driver-built page
 * words or indirect list addresses; FIG. 14 shared ATTs). Each word is
 * checked for reserved bits. No entry is changed.
 */
enum ofl_err ofl_tpt_att_write(struct ofl_tpt *tpt, uint32_t base,
                               const uint64_t *words, uint32_t n);

/*
 * Gives an allocated, INVALID region or iSCSI entry its translation (fast
 * register; the second half of Register Memory Region). Checks: key, pd,
 * type, state INVALID (else OFL_E_TPT_BUSY), desc sane (OFL_E_TPT_BAD_DESC),
 * ATT slots inside the ATT (OFL_E_TPT_ATT_RANGE) and large enough for fpo +
 * len, rights combination (OFL_E_TPT_ACCESS_COMBO). Bumps the region's
 * generation, so windows of an earlier registration stay dead.
 */
enum ofl_err ofl_tpt_register(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                              const struct ofl_tpt_region_desc *desc);

/*
 * Register Memory Region in one step from a page list: allocates a region
 * STag, writes pages[0 .. n) as present page words into the ATT at
 * desc->att_base (desc->att_count and att_kind are set from n / DIRECT),
 * and registers. On any failure nothing is left allocated or written.
 */
enum ofl_err ofl_tpt_reg_pages(struct ofl_tpt *tpt, uint32_t pd,
                               const struct ofl_tpt_region_desc *desc,
                               const uint64_t *pages, uint32_t n,
                               uint32_t *stag);

/*
 * Register Physical Memory Region from a physical buffer list: the first
 * buffer may start anywhere (its offset in its page becomes the first-page
 * offset), the last may end anywhere, all others MUST start and end on page
 * boundaries (OFL_E_TPT_BAD_DESC). The pages are written to the ATT at
 * desc->att_base; desc->len, fpo, att_count and att_kind are derived.
 */
enum ofl_err ofl_tpt_reg_phys(struct ofl_tpt *tpt, uint32_t pd,
                              const struct ofl_tpt_region_desc *desc,
                              const struct ofl_tpt_pbuf *bufs, uint32_t n,
                              uint32_t *stag);

/*
 * Deregisters a region or iSCSI entry: checks key and pd, bumps the
 * generation (windows bound to it die), returns the entry to FREE.
 */
enum ofl_err ofl_tpt_dereg(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd);

/*
 * Binds window stag to [va, va + len) of region region_stag with the given
 * remote rights (BindRKey, seed 001; bind memory window, FIG. 15 g).
 * Checks the region as a local access with OFL_TPT_BIND_WINDOW for the range
 * (valid, key, type, PD, bounds, g). PD rules: type 1 window pd == region
 * pd; type 2 window pd == region pd == pd, and the window becomes tied to
 * qp. Rights: remote rights only; remote write or atomic need the region's
 * local write. flags: OFL_TPT_F_ONE_TOUCH, OFL_TPT_F_ONE_SHOT.
 * va == 0 and len == 0 unbinds (UnbindRKey, seed 001) and ignores the
 * region. A type 2 window gets a new key at every bind; *bound_stag is the
 * STag to advertise (may be NULL for unbind).
 */
enum ofl_err ofl_tpt_bind(struct ofl_tpt *tpt, uint32_t stag,
                          uint32_t region_stag, uint32_t pd, uint32_t qp,
                          uint64_t va, uint64_t len, uint8_t access,
                          uint8_t flags, uint32_t *bound_stag);

/*
 * Local invalidate (a Local Invalidate WR): stag must be valid, pd must
 * match, and the entry must be OFL_TPT_F_INVALIDATABLE (a fast-registered
 * region or a type 2 window); else OFL_E_TPT_CANNOT_INVALIDATE.
 */
enum ofl_err ofl_tpt_invalidate_local(struct ofl_tpt *tpt, uint32_t stag,
                                      uint32_t pd);

/*
 * Remote invalidate (Send with Invalidate, RFC 5040 §6.10; seed 000 claims
 * 1, 10, 11): as local, and a type 2 window must be tied to qp. PD or QP
 * mismatch -> OFL_E_TPT_PD_MISMATCH / OFL_E_TPT_QP_MISMATCH, not
 * invalidatable -> OFL_E_TPT_CANNOT_INVALIDATE.
 */
enum ofl_err ofl_tpt_invalidate_remote(struct ofl_tpt *tpt, uint32_t stag,
                                       uint32_t pd, uint32_t qp);

/*
 * Local access check (seed 000 FIG. 15 a-g) of a WQE data segment
 * [va, va + len) under pd. need: OFL_TPT_LOCAL_READ for Send and RDMA
 * Write sources, OFL_TPT_LOCAL_WRITE for receive buffers and RDMA Read
 * sinks, OFL_TPT_BIND_WINDOW for a Bind's region. Windows are refused
 * (b). Read-only.
 */
enum ofl_err ofl_tpt_check_local(const struct ofl_tpt *tpt, uint32_t stag,
                                 uint32_t pd, uint64_t va, uint64_t len,
                                 uint8_t need);

/*
 * Remote access check (seed 000 FIG. 18A a-f) of [to, to + len) for a
 * stream with protection domain pd on QP qp. need: OFL_TPT_REMOTE_WRITE
 * (RDMA Write, Read Response placement), OFL_TPT_REMOTE_READ (Read Request
 * source), OFL_TPT_REMOTE_ATOMIC. Under OFL_TPT_POLICY_WINDOWS_ONLY a
 * region is refused (OFL_E_TPT_WRONG_TYPE); iSCSI entries always are. A
 * window of a dead region fails with OFL_E_TPT_REGION_GONE. Read-only.
 */
enum ofl_err ofl_tpt_check_remote(const struct ofl_tpt *tpt, uint32_t stag,
                                  uint32_t pd, uint32_t qp, uint64_t to,
                                  uint64_t len, uint8_t need);

/*
 * iSCSI 1.0 check (seed 000 FIG. 17B a-f): the Initiator Task Tag names an
 * OFL_TPT_ISCSI entry; offset + len must lie inside its length; need is
 * OFL_TPT_REMOTE_READ (R2T) or OFL_TPT_REMOTE_WRITE (Data-In). Check g
 * (command kind) is the qp section's. Read-only.
 */
enum ofl_err ofl_tpt_check_iscsi(const struct ofl_tpt *tpt, uint32_t itt,
                                 uint32_t pd, uint64_t offset, uint64_t len,
                                 uint8_t need);

/*
 * Translates [to, to + len) of stag into physical pieces appended to sgl
 * (sgl->count and sgl->bytes are reset first); physically contiguous pages
 * merge into one piece. The caller MUST have validated the access; this
 * function still re-checks index, key, state and bounds so that it can
 * never produce an address outside the entry. Reads indirect lists through
 * tpt->port. Returns OFL_E_TPT_PAGE_FAULT (sgl->fault_va set, pieces before
 * the fault kept) for a page without OFL_TPT_ATT_PRESENT, OFL_E_TPT_SGL_FULL
 * when sgl->cap pieces cover only sgl->bytes, OFL_E_TPT_ATT_CORRUPT for a
 * malformed page word.
 */
enum ofl_err ofl_tpt_translate(const struct ofl_tpt *tpt, uint32_t stag,
                               uint64_t to, uint64_t len,
                               struct ofl_tpt_sgl *sgl);

/*
 * ofl_tpt_check_remote followed by ofl_tpt_translate in one call: the path
 * of inbound placement and Read Response generation. Same results and
 * errors as the two calls; the common case (a live window, or a region
 * under the standard policy, over a direct ATT) is checked in one pass and
 * every failure is diagnosed by the precise checks. On a check failure sgl
 * is emptied.
 */
enum ofl_err ofl_tpt_check_translate(const struct ofl_tpt *tpt, uint32_t stag,
                                     uint32_t pd, uint32_t qp, uint64_t to,
                                     uint64_t len, uint8_t need,
                                     struct ofl_tpt_sgl *sgl);

/*
 * MapLocalPage (seed 001): makes the page of stag that contains to present
 * at physical address pa (aligned to the page size). Direct ATTs are
 * updated in place; indirect page words are written through the port.
 * ofl_tpt_unmap_page clears the present bit again (page swapped out).
 */
enum ofl_err ofl_tpt_map_page(struct ofl_tpt *tpt, uint32_t stag, uint64_t to,
                              uint64_t pa);
enum ofl_err ofl_tpt_unmap_page(struct ofl_tpt *tpt, uint32_t stag,
                                uint64_t to);

/*
 * Ends the life of a valid entry after its use was consumed (one-shot key
 * after the last segment of the first message, seed 001; one-touch expiry,
 * seed 000 FIG. 18B) regardless of OFL_TPT_F_INVALIDATABLE: the entry
 * becomes INVALID. Checks the key only.
 */
enum ofl_err ofl_tpt_expire(struct ofl_tpt *tpt, uint32_t stag);

/*
 * Records a completed remote use of stag. If last is true (the last segment
 * of a message arrived) and the entry is one-shot, the entry expires.
 */
enum ofl_err ofl_tpt_note_use(struct ofl_tpt *tpt, uint32_t stag, bool last);

/*
 * One-touch bookkeeping (seed 000 FIG. 18B): sets the Touched bit and stores
 * the DDP sequence number of the message's last byte.
 */
enum ofl_err ofl_tpt_set_touched(struct ofl_tpt *tpt, uint32_t stag,
                                 uint32_t sn);

/* Copies the public view of the entry stag names (key checked) into *info. */
enum ofl_err ofl_tpt_query(const struct ofl_tpt *tpt, uint32_t stag,
                           struct ofl_tpt_info *info);

/* Where a remote check ran, which decides the layer of its terminate cause. */
enum ofl_tpt_use {
    OFL_TPT_USE_PLACE = 0,     /* DDP tagged placement: RDMA Write, Read
                                  Response (RFC 5041 §7.2 tagged errors) */
    OFL_TPT_USE_RDMAP = 1,     /* RDMA Read Request source, atomic target
                                  (RFC 5040 §7.2 remote protection) */
    OFL_TPT_USE_INVALIDATE = 2 /* Send with Invalidate (RFC 5040 §6.10) */
};

/*
 * Maps a check failure to its terminate cause (layer, type, code):
 *
 *   error                      PLACE (DDP tagged)  RDMAP        INVALIDATE
 *   INVALID_STAG, KEY_MISMATCH,
 *   NOT_VALID, WRONG_TYPE,
 *   REGION_GONE                1/1/00 invalid STag 0/1/00       0/2/09
 *   BOUNDS                     1/1/01 base/bounds  0/1/01       0/2/09
 *   PD_MISMATCH, QP_MISMATCH   1/1/02 not assoc.   0/1/03       0/1/09
 *   TO_WRAP                    1/1/03 TO wrap      0/1/04       0/2/09
 *   ACCESS                     0/1/02 rights       0/1/02       0/2/09
 *   CANNOT_INVALIDATE          -                   -            0/2/09
 *   anything else              0/2/07 catastrophic, local to the stream
 *
 * Rights are RDMAP's even during tagged placement: DDP has no code for
 * them (RFC 5040 §7.2).
 */
struct ofl_term_cause ofl_tpt_term_cause(enum ofl_err e, enum ofl_tpt_use use);

/* Maps a local check failure to a completion status (OFL_WC_LOC_PROT_ERR,
 * OFL_WC_MW_BIND_ERR, ...). OFL_OK maps to OFL_WC_SUCCESS. */
enum ofl_wc_status ofl_tpt_wc_status(enum ofl_err e);

#endif /* OFL_ENABLE_TPT */

/* ======================================================================== */
/* seq: TCP sequence window and the one-touch decision                      */
/* ======================================================================== */
#if OFL_ENABLE_SEQ
/* (issue: wire and one-touch) */
#endif /* OFL_ENABLE_SEQ */

/* ======================================================================== */
/* wire: MPA, DDP, RDMAP                                                    */
/* ======================================================================== */
#if OFL_ENABLE_WIRE
/* (issue: wire and one-touch) */
#endif /* OFL_ENABLE_WIRE */

/* ======================================================================== */
/* qp: queue pairs and completion queues                                    */
/* ======================================================================== */
#if OFL_ENABLE_QP
/* (issue: queue pairs end to end) */
#endif /* OFL_ENABLE_QP */

/* ======================================================================== */
/* ap: apertures, nonces, dual event queues                                 */
/* ======================================================================== */
#if OFL_ENABLE_AP
/* (issue: apertures) */
#endif /* OFL_ENABLE_AP */

/* ======================================================================== */
/* dt: host/adapter descriptor tables                                       */
/* ======================================================================== */
#if OFL_ENABLE_DT
/* (issue: descriptor tables) */
#endif /* OFL_ENABLE_DT */

/* ======================================================================== */
/* pp: push-push messaging layer                                            */
/* ======================================================================== */
#if OFL_ENABLE_PP
/* (issue: push-push messaging) */
#endif /* OFL_ENABLE_PP */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_H */
