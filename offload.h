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
                                      for a window */                        \
    X(E_TPT_KEY_REUSED, 0x0115)    /* re-registration kept the key of the    \
                                      registration it replaces */            \
    X(E_TPT_ATT_FULL, 0x0116)      /* no run of that many free ATT slots     \
                                      in the slot pool */                    \
    X(E_TPT_ATT_NOT_ALLOCATED, 0x0117) /* freed slots are not exactly one    \
                                      run the slot pool handed out */        \
    X(E_TPT_ATT_OWNED, 0x0118)     /* registration names ATT slots another   \
                                      live entry owns */                     \
    X(E_TPT_SEG_RANGE, 0x0119)     /* effective address: segment id beyond   \
                                      the segment table, or ea + len - 1     \
                                      wraps past 2^64 */                     \
    X(E_TPT_SEG_INVALID, 0x011A)   /* effective address: its segment table   \
                                      entry's valid bit is clear (seed 001   \
                                      FIG. 14 546: not the process's) */     \
    X(E_TPT_SEG_DISCONTIG, 0x011B) /* effective range crosses into a segment \
                                      that does not continue its virtual     \
                                      addresses */                           \
    X(E_TPT_SEG_UPDATE, 0x011C)    /* SegmentTableUpdate malformed: unknown  \
                                      operation, virtual segment beyond 2^64,\
                                      add of a valid entry, change or delete \
                                      of an invalid one */

/* Errors of the later sections are added to these lists by those sections. */
#define OFL_ERRORS_SEQ(X)                                                    \
    X(E_SEQ_BEYOND_WINDOW, 0x0201) /* advance past the right edge of the     \
                                      receive window (RCV.NXT + RCV.WND) */  \
    X(E_SEQ_OUTSIDE, 0x0202)       /* sequence number to defer is not        \
                                      inside the receive window */           \
    X(E_SEQ_PENDING_FULL, 0x0203)  /* no free slot for a deferred           \
                                      one-touch invalidation */              \
    X(E_SEQ_DUPLICATE, 0x0204)     /* that STag already has a deferred      \
                                      invalidation pending */

#define OFL_ERRORS_WIRE(X)                                                   \
    X(E_MPA_KEY, 0x0301)        /* not an MPA Request/Reply: wrong key, or  \
                                   a request where a reply was due */        \
    X(E_MPA_REV, 0x0302)        /* MPA revision 0, above 2, or a reply       \
                                   revision above the request's */           \
    X(E_MPA_PD_LEN, 0x0303)     /* private data longer than 512 bytes */     \
    X(E_MPA_ENHANCED, 0x0304)   /* revision 2 frame with the enhanced flag   \
                                   but no 4-byte IRD/ORD block */            \
    X(E_MPA_REJECTED, 0x0305)   /* the responder rejected the connection */  \
    X(E_MPA_IRD, 0x0306)        /* peer ORD above our IRD (RFC 6581) */      \
    X(E_MPA_RTR, 0x0307)        /* no RTR kind both sides support          \
                                   (RFC 6581 peer-to-peer) */                \
    X(E_MPA_STATE, 0x0308)      /* handshake call not allowed in its state */\
    X(E_MPA_CRC, 0x0310)        /* received MPA CRC differs from computed */ \
    X(E_MPA_MARKER, 0x0311)     /* a marker's FPDUPTR disagrees with the     \
                                   ULPDU Length framing */                   \
    X(E_MPA_TOO_LONG, 0x0312)   /* ULPDU longer than the receive buffer,     \
                                   the MULPDU, or 16-bit framing allows */   \
    X(E_MPA_FAILED, 0x0313)     /* the receiver failed earlier (sticky)  */  \
    X(E_DDP_SHORT, 0x0320)      /* ULPDU shorter than its DDP header */      \
    X(E_DDP_VERSION, 0x0321)    /* DDP version is not 1 */                   \
    X(E_DDP_QN, 0x0322)         /* queue number wrong for the opcode */      \
    X(E_DDP_MO, 0x0323)         /* message offset not 0 for a message that   \
                                   is one segment */                         \
    X(E_DDP_MSN_NO_BUFFER, 0x0324) /* MSN beyond the posted buffers */       \
    X(E_DDP_MSN_RANGE, 0x0325)  /* MSN behind the expected one */            \
    X(E_DDP_TOO_LONG, 0x0326)   /* message offset + length beyond the        \
                                   receive buffer */                         \
    X(E_RDMAP_VERSION, 0x0330)  /* RDMAP version is not 1 */                 \
    X(E_RDMAP_OPCODE, 0x0331)   /* opcode undefined or used with the wrong   \
                                   buffer model */                           \
    X(E_RDMAP_LENGTH, 0x0332)   /* message length wrong for its opcode */    \
    X(E_RDMAP_LAST, 0x0333)     /* a one-segment message without the Last    \
                                   bit */                                    \
    X(E_RDMAP_ATOMIC_OP, 0x0334) /* undefined atomic operation code */       \
    X(E_RDMAP_TERM, 0x0335)     /* Terminate header inconsistent with its    \
                                   length or header-control bits */
#define OFL_ERRORS_QP(X) /* qp: 0x04xx */                                \
    X(E_QP_STATE, 0x0401)       /* not allowed in the QP's current state */ \
    X(E_QP_TRANSITION, 0x0402)  /* the state table refuses the transition */\
    X(E_QP_SERVICE, 0x0403)     /* transport service not supported (yet) */ \
    X(E_QP_SQ_FULL, 0x0404)     /* no free send WQE slot */                 \
    X(E_QP_RQ_FULL, 0x0405)     /* no free receive WQE slot */              \
    X(E_QP_SGE, 0x0406)         /* more data segments than the queue       \
                                   allows */                                \
    X(E_QP_OPCODE, 0x0407)      /* opcode undefined, or not allowed for    \
                                   this QP's service or options */          \
    X(E_QP_WR, 0x0408)          /* a work request field breaks its         \
                                   opcode's rules (flags, one Read sink,   \
                                   atomic size and alignment, totals) */    \
    X(E_QP_WQE, 0x0409)         /* a WQE fetched from a ring is malformed */\
    X(E_QP_DOORBELL, 0x040A)    /* a doorbell moves the producer index     \
                                   back or past the ring */                 \
    X(E_QP_CQ_OVERRUN, 0x040B)  /* a CQ was full: a completion was lost */  \
    X(E_QP_NO_CONTEXT, 0x040C)  /* no QP has the quintuple (FIG. 16: the   \
                                   segment goes to the NIC path) */         \
    X(E_QP_TUPLE_BUSY, 0x040D)  /* another QP has that quintuple */         \
    X(E_QP_DEMUX_FULL, 0x040E)  /* the demultiplexing table is full */      \
    X(E_QP_TX_BLOCKED, 0x040F)  /* the transmit callback took nothing:     \
                                   call again later */                      \
    X(E_QP_UNEXPECTED, 0x0410)  /* a Read or Atomic Response that no      \
                                   outstanding request expects */           \
    X(E_QP_RESP_MISMATCH, 0x0411) /* a Read Response's STag, TO or length  \
                                   differs from the outstanding Read */     \
    X(E_QP_ATOMIC_ALIGN, 0x0412) /* an atomic target TO not 8-byte         \
                                   aligned */                               \
    X(E_QP_RQ_EMPTY, 0x0413)    /* an iSCSI PDU for the receive queue      \
                                   found no receive WQE */                  \
    X(E_QP_ISCSI_TASK, 0x0414)  /* the task's command is of the other      \
                                   kind (FIG. 17B g) */                     \
    X(E_QP_DG_RDMA, 0x0415)     /* RDMA Write/Read, atomic, bind or Send   \
                                   with Invalidate on a datagram QP */      \
    X(E_QP_DG_TOO_LONG, 0x0416) /* a datagram message larger than one      \
                                   frame (the QP's max_dgram, or an EE     \
                                   slot): seed 002 single-cell rule */      \
    X(E_QP_DG_DEST, 0x0417)     /* a WR's destination names no EE context  \
                                   in use on the QP's node */               \
    X(E_QP_DG_SHORT, 0x0418)    /* frame shorter than its header (28 bytes \
                                   datagram, 40 bytes raw IPv6) */          \
    X(E_QP_DG_VERSION, 0x0419)  /* datagram header version is not 1 */     \
    X(E_QP_DG_KIND, 0x041A)     /* datagram header kind undefined */       \
    X(E_QP_DG_RESERVED, 0x041B) /* a reserved bit or byte, or a field the  \
                                   kind leaves unused, is not zero */       \
    X(E_QP_DG_LENGTH, 0x041C)   /* a length field disagrees with the frame \
                                   length */                                \
    X(E_QP_DG_NOT_FOR_US, 0x041D) /* destination node address is not this  \
                                   node's */                                \
    X(E_QP_DG_NO_QP, 0x041E)    /* no QP with the destination QP number on \
                                   this node */                             \
    X(E_QP_DG_SERVICE, 0x041F)  /* the destination QP's service is not the \
                                   frame's kind (UD frame to an RD QP ...) */\
    X(E_QP_QPN_BUSY, 0x0420)    /* another QP has that QP number on the    \
                                   node */                                  \
    X(E_QP_EE_NONE, 0x0421)     /* no EE context for the source node */    \
    X(E_QP_EE_STATE, 0x0422)    /* the EE context is not in use or is in   \
                                   error (ofl_qp_node_ee_key: a context is \
                                   in use) */                               \
    X(E_QP_EE_SEQ, 0x0423)      /* RD frame ahead of the expected sequence \
                                   number (one was lost): refused */        \
    X(E_QP_EE_ACK, 0x0424)      /* acknowledgement of a sequence number    \
                                   never sent */                            \
    X(E_QP_EE_RETRY, 0x0425)    /* retry limit reached: the EE context     \
                                   went to error and flushed its frames */  \
    X(E_QP_ACKED, 0x0426)       /* acknowledged attribute asked of a       \
                                   service without acknowledgements */      \
    X(E_QP_RAW_NOT_IPV6, 0x0427) /* raw frame whose version nibble is not  \
                                   6 */                                     \
    X(E_QP_STEER_NONE, 0x0428)  /* no steering entry has the raw frame's   \
                                   next header and destination address */   \
    X(E_QP_STEER_FULL, 0x0429)  /* the raw steering table is full */       \
    X(E_QP_STEER_BUSY, 0x042A)  /* that next header and address are        \
                                   already steered */                       \
    X(E_QP_DEMUX_CROWDED, 0x042B) /* every slot within                     \
                                   OFL_QP_DEMUX_PROBE_MAX of the           \
                                   quintuple's home is taken */            \
    X(E_QP_PLACED_MISMATCH, 0x042C) /* the in-order stream's FPDU at the   \
                                   position of a Write placed ahead of a   \
                                   hole is not that Write (struct          \
                                   ofl_qp_ooo) */                          \
    X(E_QP_EE_NAK, 0x042D)      /* RD NAK frame with an undefined code, or \
                                   a detail on a code that has none */     \
    X(E_QP_EE_FULL, 0x042E)     /* RD Read request: the responder's EE     \
                                   window has no slot for the response     \
                                   (refused; RNR NAK when enabled) */       \
    X(E_QP_EE_REFUSAL, 0x042F)  /* RD ACK / NAK refusal block malformed   \
                                   (a code other than ACCESS / INVALID, a  \
                                   detail without a code, a refused frame  \
                                   after the acknowledged one or more than \
                                   2^15 before it), or a refusal of an     \
                                   outstanding frame that could not be     \
                                   refused so (not a Write / Read request; \
                                   INVALID: not a Read request) */          \
    X(E_QP_EE_ATOMIC_FULL, 0x0430) /* RD atomic request: the responder    \
                                   EE's replay cache entry for its        \
                                   response still holds a result not yet  \
                                   acknowledged (only when atomic_cap <   \
                                   window; refused, not executed; RNR NAK \
                                   when enabled) */                        \
    X(E_QP_EE_NO_ATOMIC, 0x0431) /* RD atomic request: the responder's EE \
                                   context has no replay cache            \
                                   (atomic_cap 0): refused for good,      \
                                   INVALID NAK */                          \
    X(E_QP_EE_CROWDED, 0x0432)  /* every EE context within                \
                                   OFL_QP_NODE_EE_PROBE_MAX of the         \
                                   address's home is taken by another      \
                                   address (ofl_qp_node_ee_place) */       \
    X(E_QP_HCQ_CI, 0x0440)      /* a host CQ consumer index moves back or  \
                                   past the CQEs written */                \
    X(E_QP_HCQ_OVERRUN, 0x0441) /* a host CQ was full: a CQE was lost */   \
    X(E_QP_HCQ_CQE, 0x0442)     /* a CQE in host memory is malformed */
#define OFL_ERRORS_AP(X) /* ap: 0x05xx; 0x0501-0x0515 are the rejection     \
                            reasons of the incoming path, each counted in    \
                            struct ofl_ap_stats */                           \
    X(E_AP_NOT_CI, 0x0501)       /* frame is neither a CI frame nor an IPv4  \
                                    datagram for an IP aperture */          \
    X(E_AP_TRUNCATED, 0x0502)    /* frame ends before a header or a length   \
                                    it declares */                           \
    X(E_AP_VERSION, 0x0503)      /* unknown CI or message version, IPv4     \
                                    version not 4 */                         \
    X(E_AP_MALFORMED, 0x0504)    /* reserved bits set, bad record count or   \
                                    kind, lengths that disagree, fragment */ \
    X(E_AP_HDR_CHECKSUM, 0x0505) /* record or IPv4 header checksum wrong     \
                                    (seed 004 FIG. 12 step 5), or UDP        \
                                    checksum wrong */                        \
    X(E_AP_CRC, 0x0506)          /* end-to-end CRC32c of the CI frame wrong  \
                                    (FIG. 12 step 7) */                      \
    X(E_AP_NOT_FOR_US, 0x0507)   /* destination MAC, cluster or IPv4        \
                                    address is not this NIC's */             \
    X(E_AP_INDEX, 0x0508)        /* in-index (or UDP port) beyond the        \
                                    incoming table */                        \
    X(E_AP_INVALID, 0x0509)      /* check (a): the aperture is not open */   \
    X(E_AP_TYPE, 0x050A)         /* packet kind does not match the           \
                                    aperture's type */                       \
    X(E_AP_SEQ, 0x050B)          /* check (b): not the expected sequence     \
                                    number */                                \
    X(E_AP_NONCE, 0x050C)        /* check (c): nonce differs - a stale or    \
                                    forged connection */                     \
    X(E_AP_SRC_MAC, 0x050D)      /* check (d): unexpected Ethernet source */ \
    X(E_AP_SRC_ADDR, 0x050E)     /* check (e): source cluster or IPv4        \
                                    address outside its netmask */           \
    X(E_AP_EXTENT, 0x050F)       /* offset + length beyond the aperture      \
                                    size */                                  \
    X(E_AP_NARROW, 0x0510)       /* inside the aperture but outside its      \
                                    narrowed sub-range (FIG. 11 note 4) */   \
    X(E_AP_DMA, 0x0511)          /* the PCI write of an accepted record      \
                                    failed: the port refused a minimum       \
                                    burst */                                 \
    X(E_EVQ_OVERFLOW, 0x0512)    /* an event queue (fixed or variable) has   \
                                    no room: nothing was written */          \
    X(E_AP_READ_REPLY, 0x0513)   /* a read request, but no reply frame or   \
                                    no room in it for the response (or it    \
                                    holds records for another host) */       \
    X(E_AP_READ_TAG, 0x0514)     /* a read response matches no pending      \
                                    read: tag beyond the read table, slot    \
                                    not pending, or offset differs */        \
    X(E_AP_READ_LEN, 0x0515)     /* read request length 0 or over           \
                                    OFL_AP_MAX_WRITE; read response length   \
                                    not the one asked */                     \
    X(E_AP_PRIVILEGE, 0x0520)    /* the caller's privilege may not program   \
                                    this field (seed 004 "User Programmable  \
                                    bits") */                                \
    X(E_AP_NOT_OWNER, 0x0521)    /* an application named an aperture that    \
                                    its port does not own */                 \
    X(E_AP_CONFIG, 0x0522)       /* a programmed value is out of range:      \
                                    size, wrap, narrowing, type, queue */    \
    X(E_AP_NO_APERTURE, 0x0523)  /* PCI address outside every outgoing      \
                                    aperture (a local control write) */      \
    X(E_AP_CLOSED, 0x0524)       /* the outgoing aperture is not open */     \
    X(E_AP_PACK, 0x0525)         /* this write cannot join the open frame    \
                                    (other host, other type, no room):       \
                                    finish the frame and begin another */    \
    X(E_AP_READ_BUSY, 0x0526)    /* ofl_ap_tx_read: no read slot is free     \
                                    (or none attached) */                    \
    X(E_AP_CONN_STATE, 0x0530)   /* connection operation not allowed in its  \
                                    current state */                         \
    X(E_AP_CONN_PEER, 0x0531)    /* message does not prove this connection's \
                                    peer (wrong in-index or nonce): stale or \
                                    forged */                                \
    X(E_AP_CONN_REFUSED, 0x0532) /* the peer refused the CONNECT (ERROR) */  \
    X(E_AP_CONN_TIMEOUT, 0x0533) /* no ACCEPT or no ALIVEACK within the      \
                                    retries */                               \
    X(E_AP_MSG_TYPE, 0x0534)     /* unknown connection message type */       \
    X(E_EVQ_BAD_PTR, 0x0540)     /* a pointer written by the other side is   \
                                    out of range or moves backwards */       \
    X(E_EVQ_EMPTY, 0x0541)       /* no event to read */                      \
    X(E_EVQ_CORRUPT, 0x0542)     /* an event or variable record in the      \
                                    queue is malformed */                    \
    X(E_AP_WQ_NO_CREDIT, 0x0550) /* shared work queue: the receiver has not  \
                                    freed enough space */                    \
    X(E_AP_WQ_BAD_PTR, 0x0551)   /* shared work queue: remote pointer beyond \
                                    what can be true */
#define OFL_ERRORS_DT(X) /* dt: 0x06xx */                                \
    X(E_DT_BAD_TYPE, 0x0601)    /* descriptor type 0, unassigned, or a      \
                                   response where a request belongs (or    \
                                   the reverse) */                         \
    X(E_DT_RESERVED, 0x0602)    /* a reserved bit or a field the type      \
                                   leaves unused is not zero */            \
    X(E_DT_BAD_FLAGS, 0x0603)   /* a flag the type does not define is set, \
                                   or flags contradict each other */       \
    X(E_DT_BAD_FIELD, 0x0604)   /* a field is out of range for its type:   \
                                   zero length, missing connection id,     \
                                   unknown status, base + len wraps */     \
    X(E_DT_EMPTY, 0x0605)       /* no descriptor waiting in the table */   \
    X(E_DT_FULL, 0x0606)        /* no free slot in the table (or the       \
                                   output room a request needs) */         \
    X(E_DT_TUPLE_TRUNCATED, 0x0607) /* control buffer ends inside a tuple  \
                                   header or value */                      \
    X(E_DT_TUPLE_COUNT, 0x0608) /* the tuples do not fill the control      \
                                   buffer exactly as the number says */    \
    X(E_DT_ATTR_UNKNOWN, 0x0609) /* attribute identifier not defined */    \
    X(E_DT_ATTR_VALUE, 0x060A)  /* attribute value of the wrong length or  \
                                   out of range */                         \
    X(E_DT_ATTR_READONLY, 0x060B) /* set of a read-only attribute */       \
    X(E_DT_ATTR_SCOPE, 0x060C)  /* attribute or get/set not allowed in     \
                                   this request, or a required one absent */\
    X(E_DT_CONN_UNKNOWN, 0x060D) /* connection id names no live connection \
                                   (index beyond the table, stale          \
                                   generation, free slot) */               \
    X(E_DT_CONN_STATE, 0x060E)  /* connection not in a state that allows   \
                                   the request */                          \
    X(E_DT_NO_CONN, 0x060F)     /* connection table (or backlog) full */   \
    X(E_DT_NO_BUFFER, 0x0610)   /* receive buffer pool full */             \
    X(E_DT_CTRL_SIZE, 0x0612)   /* control buffer larger than the          \
                                   adapter's control scratch */            \
    X(E_DT_BUF_RANGE, 0x0613)   /* a described buffer lies outside the     \
                                   host range the adapter may reach */     \
    X(E_DT_NOT_FOUND, 0x0614)   /* cancellation target not found */        \
    X(E_DT_RX_FULL, 0x0615)     /* receive staging lacks room */           \
    X(E_DT_TX_RANGE, 0x0616)    /* transmit consume beyond queued bytes */ \
    X(E_DT_BUSY, 0x0617)        /* a peek is already outstanding on the    \
                                   connection */                           \
    X(E_DT_TOO_LARGE, 0x0618)   /* a send larger than a transmit ring: it  \
                                   could never be taken whole */
#define OFL_ERRORS_PP(X) /* pp: 0x07xx */                                \
    X(E_PP_TRUNCATED, 0x0701)   /* a message or cell shorter than its      \
                                   fixed part */                           \
    X(E_PP_VERSION, 0x0702)     /* protocol or cell version is not          \
                                   OFL_PP_VERSION / OFL_PP_CELL_VERSION */ \
    X(E_PP_TYPE, 0x0703)        /* unknown function code */                 \
    X(E_PP_LENGTH, 0x0704)      /* the length disagrees with the counts or \
                                   data sizes the message or cell states */\
    X(E_PP_COUNT, 0x0705)       /* a list count is 0 or above               \
                                   OFL_PP_MSG_ITEMS */                     \
    X(E_PP_RESERVED, 0x0706)    /* a reserved field or bit is not zero     \
                                   (also the upper 32 bits of immediate    \
                                   data) */                                \
    X(E_PP_FIELD, 0x0707)       /* a field out of range: zero element      \
                                   count, size or length, a pool index     \
                                   with bit 31 set, an address or element  \
                                   run that wraps */                       \
    X(E_PP_DUPLICATE, 0x0708)   /* one message names a pool, an element or \
                                   an element run twice */                 \
    X(E_PP_POOL_INDEX, 0x0709)  /* pool index beyond the local pool table  \
                                   */                                      \
    X(E_PP_POOL_UNKNOWN, 0x070A) /* the pool index names no advertised     \
                                   pool */                                 \
    X(E_PP_POOL_BUSY, 0x070B)   /* advertise of a pool index still in use  \
                                   (not flushed) */                        \
    X(E_PP_POOL_TOO_BIG, 0x070C) /* more elements than the local table's   \
                                   max_elems */                            \
    X(E_PP_ELEMENT, 0x070D)     /* element index beyond the pool's element \
                                   count */                                \
    X(E_PP_CONSUMED, 0x070E)    /* RDMA Write into (or indication of) an   \
                                   element already consumed */             \
    X(E_PP_NOT_CONSUMED, 0x070F) /* replenish of an element that is free   \
                                   */                                      \
    X(E_PP_TOO_LONG, 0x0710)    /* transfer longer than the element size */\
    X(E_PP_FLUSHING, 0x0711)    /* the pool is being flushed: no new       \
                                   writes, no second flush */              \
    X(E_PP_FLUSH_UNKNOWN, 0x0712) /* a FlushReply whose transaction        \
                                   context matches no flush in progress */ \
    X(E_PP_EXHAUSTED, 0x0713)   /* no usable pool has a free element large \
                                   enough: ask with BufferRecvPoolGet */   \
    X(E_PP_CONN_STATE, 0x0714)  /* not allowed in the connection's state   \
                                   */                                      \
    X(E_PP_CHANNEL, 0x0715)     /* the message must travel on the data     \
                                   channel (ofl_pp_msg_channel) */         \
    X(E_PP_CELL_CHANNEL, 0x0716) /* a plain message on a cell channel, or  \
                                   a cell on a channel that is not one     \
                                   (cfg.cells) */                          \
    X(E_PP_CELL_MISSING, 0x0720) /* a cell or packet before this one is    \
                                   missing (lost or reordered) */          \
    X(E_PP_CELL_DUP, 0x0721)    /* a cell or packet already received */    \
    X(E_PP_CELL_HDR, 0x0722)    /* cell flags, cell number or payload      \
                                   length inconsistent with the packet */  \
    X(E_PP_CELL_CRC, 0x0723)    /* the cell CRC32c differs */              \
    X(E_PP_PACKET_CRC, 0x0724)  /* the packet CRC32c of the last cell      \
                                   differs */                              \
    X(E_PP_CELL_TOO_LONG, 0x0725) /* packet longer than the reassembly     \
                                   buffer */

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
 * RFC 5044 §8, RFC 6581). A cause is (layer, error type, error code);
 * remote failures on an RDMA stream are reported to the peer with exactly
 * one of these.
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

/* LLP error type (layer 0x2): MPA is the only one (RFC 5044 §8). */
enum ofl_term_mpa_type {
    OFL_TERM_MPA_ERROR = 0x0
};

/* MPA error codes (type 0x0). 0x01-0x04: RFC 5044 §8; 0x05-0x07: RFC 6581
 * (enhanced connection establishment only). Names as in the IANA RDDP
 * registry (RFC 6580). */
enum ofl_term_mpa_code {
    OFL_TERM_MPA_CONN_LOST = 0x01,          /* TCP connection closed,
                                               terminated or lost */
    OFL_TERM_MPA_CRC = 0x02,                /* MPA CRC error */
    OFL_TERM_MPA_MARKER = 0x03,             /* MPA Marker and ULPDU Length
                                               field mismatch */
    OFL_TERM_MPA_INVALID_RR = 0x04,         /* invalid MPA Request Frame or
                                               MPA Response Frame */
    OFL_TERM_MPA_LOCAL_CATASTROPHIC = 0x05, /* local catastrophic error */
    OFL_TERM_MPA_INSUFFICIENT_IRD = 0x06,   /* insufficient IRD resources */
    OFL_TERM_MPA_NO_MATCHING_RTR = 0x07     /* no matching RTR option */
};

/* One terminate cause. */
struct ofl_term_cause {
    uint8_t layer; /* enum ofl_term_layer */
    uint8_t etype; /* error type within the layer */
    uint8_t ecode; /* error code within the type */
};

/*
 * Completion statuses of work completions. Names and numbers are those of
 * libibverbs' enum ibv_wc_status (<infiniband/verbs.h>) and of the Linux
 * kernel's enum ib_wc_status (<rdma/ib_verbs.h>), which share them: a
 * status passes to either unchanged (tests/test_verbs.c checks every value
 * against libibverbs' header, tests/check_ib_wc_status.sh against the
 * kernel headers', when installed). ibv_wc_status goes on
 * past GENERAL_ERR with tag-matching statuses (TM_ERR 22,
 * TM_RNDV_INCOMPLETE 23) that the kernel's enum and offload do not have.
 * X(NAME, value) defines OFL_WC_<NAME> = value; ofl_wc_status_str() returns
 * "OFL_WC_<NAME>".
 *
 * What the core produces (the tables of the tpt and qp sections say when):
 *   SUCCESS, LOC_LEN_ERR, LOC_QP_OP_ERR, LOC_PROT_ERR, WR_FLUSH_ERR,
 *   MW_BIND_ERR, BAD_RESP_ERR, LOC_ACCESS_ERR, REM_INV_REQ_ERR,
 *   REM_ACCESS_ERR, REM_OP_ERR, RETRY_EXC_ERR (an RD EE context's
 *   retransmissions ran out, as IBA's transport retry counter),
 *   RNR_RETRY_EXC_ERR (the peer had no receive for a Send: Terminate
 *   1/2/02; iWARP has no RNR retry, so this is IBA's receiver-not-ready
 *   error with rnr_retry 0), REM_ABORT_ERR (a receive taking a Send the
 *   peer abandoned: its Terminate arrived mid-message), INV_EECN_ERR and
 *   INV_EEC_STATE_ERR (an RD Send whose EE context is unused or not in
 *   RTS), FATAL_ERR, GENERAL_ERR.
 *   Never produced, kept so the numbering stays that of verbs:
 *   LOC_EEC_OP_ERR, LOC_RDD_VIOL_ERR and REM_INV_RD_REQ_ERR (RD domains,
 *   which offload has not), RESP_TIMEOUT_ERR (offload has no response
 *   timer: an iWARP stream relies on TCP's, an RD EE context's timer ends
 *   in RETRY_EXC_ERR).
 */
#define OFL_WC_STATUSES(X)                                                   \
    X(SUCCESS, 0)                                                            \
    X(LOC_LEN_ERR, 1)        /* local length error (receive too small) */    \
    X(LOC_QP_OP_ERR, 2)      /* local QP operation error (WQE malformed) */  \
    X(LOC_EEC_OP_ERR, 3)     /* (RD: local EE context error; unused) */      \
    X(LOC_PROT_ERR, 4)       /* local protection error (STag checks) */      \
    X(WR_FLUSH_ERR, 5)       /* flushed: the QP (or SQ) is in error */       \
    X(MW_BIND_ERR, 6)        /* window bind failed */                        \
    X(BAD_RESP_ERR, 7)       /* unexpected response from the peer */         \
    X(LOC_ACCESS_ERR, 8)     /* local access error (DMA, page missing) */    \
    X(REM_INV_REQ_ERR, 9)    /* the peer found the request invalid */        \
    X(REM_ACCESS_ERR, 10)    /* the peer refused the access (its STags) */   \
    X(REM_OP_ERR, 11)        /* the peer could not complete it (an error     \
                                of its own) */                               \
    X(RETRY_EXC_ERR, 12)     /* retransmission retries exhausted (RD EE) */  \
    X(RNR_RETRY_EXC_ERR, 13) /* receiver not ready: no receive at the peer */\
    X(LOC_RDD_VIOL_ERR, 14)  /* (RD domain violation; unused) */             \
    X(REM_INV_RD_REQ_ERR, 15) /* (invalid RD request; unused) */             \
    X(REM_ABORT_ERR, 16)     /* the peer aborted the message */              \
    X(INV_EECN_ERR, 17)      /* RD: the EE context named is not in use */    \
    X(INV_EEC_STATE_ERR, 18) /* RD: the EE context is not in RTS */          \
    X(FATAL_ERR, 19)         /* catastrophic, stream lost */                 \
    X(RESP_TIMEOUT_ERR, 20)  /* (response timeout; unused) */                \
    X(GENERAL_ERR, 21)       /* anything else */

#define OFL_WC_ENUM_(name, value) OFL_WC_##name = value,
enum ofl_wc_status {
    OFL_WC_STATUSES(OFL_WC_ENUM_)
    OFL_WC_STATUS_COUNT_ /* one past the last; not a status */
};
#undef OFL_WC_ENUM_

/* "OFL_WC_LOC_PROT_ERR", ...; "OFL_WC_UNKNOWN" for a value outside the
 * enum (libibverbs' ibv_wc_status_str with offload's names). */
const char *ofl_wc_status_str(enum ofl_wc_status s);

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
/* base: bounds-checked cursors                                             */
/* ------------------------------------------------------------------------ */
/*
 * A reader and a writer over a byte buffer for parsing and building wire
 * formats and descriptors. A read or write past the end does nothing (reads
 * yield 0) and sets the sticky `bad` flag; every later access then fails
 * too. A parser reads every field, checks `bad` once, and only then
 * commits (validate everything, then commit). Explicit byte order, no
 * alignment assumed. A NULL buffer is an empty one.
 */
struct ofl_rd {
    const uint8_t *p;
    size_t len;
    size_t off; /* bytes consumed */
    bool bad;   /* a read went past the end */
};

struct ofl_wr {
    uint8_t *p;
    size_t cap;
    size_t off; /* bytes produced */
    bool bad;   /* a write went past the end */
};

/* Starts reading len bytes at p. */
void ofl_rd_init(struct ofl_rd *r, const uint8_t *p, size_t len);
/* Returns the next n bytes and consumes them, or NULL (and sets bad). */
const uint8_t *ofl_rd_take(struct ofl_rd *r, size_t n);
/* Next 1/2/4/8 bytes, big-endian; 0 (and bad set) past the end. */
uint8_t ofl_rd_u8(struct ofl_rd *r);
uint16_t ofl_rd_be16(struct ofl_rd *r);
uint32_t ofl_rd_be32(struct ofl_rd *r);
uint64_t ofl_rd_be64(struct ofl_rd *r);
/* Bytes left to read; 0 once bad. */
size_t ofl_rd_left(const struct ofl_rd *r);
/* Starts writing into cap bytes at p. */
void ofl_wr_init(struct ofl_wr *w, uint8_t *p, size_t cap);
/* Returns the next n writable bytes and claims them, or NULL (sets bad). */
uint8_t *ofl_wr_take(struct ofl_wr *w, size_t n);
/* Appends 1/2/4/8 bytes big-endian, n bytes of src, or n zero bytes;
 * nothing (and bad set) if they do not fit. */
void ofl_wr_u8(struct ofl_wr *w, uint8_t v);
void ofl_wr_be16(struct ofl_wr *w, uint16_t v);
void ofl_wr_be32(struct ofl_wr *w, uint32_t v);
void ofl_wr_be64(struct ofl_wr *w, uint64_t v);
void ofl_wr_bytes(struct ofl_wr *w, const void *src, size_t n);
void ofl_wr_zero(struct ofl_wr *w, size_t n);

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

/* ------------------------------------------------------------------------ */
/* base: keyed hash (SipHash-2-4; vectors from the SipHash reference code)  */
/* ------------------------------------------------------------------------ */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012) of p[0 .. len) under the 128-bit key: key bytes 0..7 are k0 and
 * 8..15 are k1, both little-endian, as the paper reads them. A table keyed
 * by a secret the peer cannot see gives it no way to choose inputs that
 * collide (the demultiplexer uses it). 64-bit shifts, rotates, xor and add
 * only. Cost: O(len). Pure.
 */
uint64_t ofl_siphash24(const uint8_t key[16], const uint8_t *p, size_t len);

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
 * size does not cover version 1: every init that records a port (TPT, CQ,
 * QP, MPA sender and receiver, aperture NIC, event queue and its
 * application side, descriptor tables, pp reassembly) fails with
 * OFL_E_PORT_VERSION for one, even where the port is optional.
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
     * reflected state in, raw state out. NULL means the portable one. An
     * MPA stream of a speed build (OFL_FAST_PATH) looks at it once, when
     * ofl_mpa_tx_init, ofl_mpa_rx_init (the qp engine's, at
     * ofl_qp_establish) or ofl_mpa_fpdu_verify runs, and calls what it
     * found for each FPDU; a size build asks each time: set it before.
     */
    uint32_t (*crc32c)(void *ctx, uint32_t state, const void *data,
                       size_t len);

    /* barrier (optional): order memory accesses; NULL means none needed
     * (a single-threaded simulation). A speed build (OFL_FAST_PATH) looks
     * at barrier and doorbell once for a CQ and a QP, when ofl_cq_init
     * and ofl_qp_create run, and at dma_read and dma_write once for a
     * QP's payload, and calls what it found (issue 30: "port hooks
     * checked once"): set them before, and keep them set. */
    void (*barrier)(void *ctx, enum ofl_barrier kind);

    /*
     * dma_read_crc32c, dma_write_crc32c (optional, each on its own): a
     * dma_read / dma_write that also feeds the bytes it moves to a CRC32c
     * register in the same pass, so that the payload of an FPDU is read
     * once for both (issue 30: one pass over the payload per side). On
     * success the hook returns 0 and *state has become crc32c's result
     * for the same bytes (raw reflected register in and out, as
     * ofl_crc32c_update()); on failure it returns non-zero and leaves
     * *state as it was. Range, authorisation and "MUST NOT write outside"
     * are those of dma_read / dma_write. Only a speed build
     * (OFL_FAST_PATH) calls them: the qp engine, for the payload of an
     * FPDU on a stream with CRCs and no markers (section qp, "One pass
     * over the payload"). A port that sets dma_write_crc32c accepts that
     * an RDMA Write's payload lands in the (authorised) buffer before its
     * FPDU's CRC is compared; see there.
     */
    int (*dma_read_crc32c)(void *ctx, uint64_t pa, void *dst, size_t len,
                           uint32_t *state);
    int (*dma_write_crc32c)(void *ctx, uint64_t pa, const void *src,
                            size_t len, uint32_t *state);

    /*
     * dma_crc32c (optional): feeds len bytes at host physical address pa
     * to the CRC32c register *state without copying them (the qp
     * engine's transmit by reference: the port sends the payload from
     * where it lies, the engine sums it). Contract as the fused hooks:
     * 0 and the register moved, or non-zero and *state unchanged; a read
     * of host memory, authorised as dma_read's are.
     */
    int (*dma_crc32c)(void *ctx, uint64_t pa, size_t len, uint32_t *state);
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
 * key). Every allocation of an index bumps its key (from the key its last
 * life ended with) and every window bind bumps the window's, so an STag
 * kept from the previous life fails with OFL_E_TPT_KEY_MISMATCH. Keys are
 * 8 bits: 256 lives later an index's keys come round. Re-registration
 * takes a key the consumer picks (ofl_tpt_register); a consumer that picks
 * keys below the current one can make the next allocation reissue an STag
 * it advertised earlier - in IB/iWARP the key is the consumer's to manage.
 *
 * Entry states and the verbs that move them:
 *
 *   state      verb                              next     notes
 *   FREE       ofl_tpt_alloc                     INVALID  key bumped
 *   INVALID    ofl_tpt_register (region, iSCSI)  VALID    translation set
 *   INVALID    ofl_tpt_bind (window)             VALID    range of a region,
 *                                                         key bumped
 *   VALID      ofl_tpt_bind (type 1 window)      VALID    rebind: replaces
 *                                                         the old binding,
 *                                                         key bumped
 *   VALID      ofl_tpt_bind(va 0, len 0)         INVALID  unbind (seed 001)
 *   VALID      ofl_tpt_invalidate_local/_remote  INVALID  if invalidatable
 *   VALID      one-shot or one-touch expiry      INVALID  ofl_tpt_expire
 *   VALID      ofl_tpt_dereg (region)            FREE     windows go dead
 *   INVALID    ofl_tpt_dereg (region)            FREE     (invalidated, or
 *                                                         never registered)
 *   INVALID    ofl_tpt_dealloc                   FREE
 *   VALID      ofl_tpt_dealloc (window)          FREE
 *
 * Deregistering (or invalidating, or re-registering) a region with windows
 * bound to it succeeds. Each region carries a generation number bumped by
 * each of those verbs, and each window records the generation it was bound
 * under; a window whose region generation moved on is dead: every check and
 * translation through it fails with OFL_E_TPT_REGION_GONE (terminate cause
 * "invalid STag"). This is O(1) and needs no back-pointers. The generation
 * is 32 bits: after 2^32 bumps on one index (2^31 re-registrations, each
 * an invalidate or deregister plus a register) it comes round again, so
 * the checks also require the region's PD to be the window's - a window
 * can never reach another PD's memory. (Within one PD, a window that stays
 * dead across 2^31 re-registrations of its region's index would revive.)
 * The qp engine relies on the same number within one ofl_qp_process call:
 * its several-FPDU send keeps a data segment's check (FIG. 15) across the
 * message's FPDUs while the region's generation is unchanged, so every
 * change of a region's state, key, PD, rights or bounds moves it (only a
 * registration or a way out of VALID changes them; page words are read
 * again each time).
 * A dead window must be bound again or deallocated.
 *
 * Validation. Local checks (seed 000 FIG. 15 a-g) are for WQE data
 * segments; remote checks (FIG. 18A a-f) for tagged placement and RDMA Read
 * sources. Checks run in the order index allocated, key, Valid, type, PD
 * (and QP, and for a window whether its region still lives), TO wrap,
 * bounds, rights: the seed lists checks that must all pass; a key mismatch
 * is reported before the Valid bit because it means the STag does not name
 * this entry at all. Every failure maps to a terminate cause
 * (ofl_tpt_term_cause) and a completion status (ofl_tpt_wc_status). Every
 * function returns OFL_E_ARG for a NULL tpt or a NULL pointer argument.
 *
 * Translation (FIG. 12-13): region offset = TO - entry va (+ the window's
 * place in its region); byte position = first-page offset + region offset;
 * page index = position >> page_shift. ATT kinds:
 *   direct        att[att_base + page] is the page word
 *   1st indirect  att[att_base + page / 512] is the physical address of a
 *                 4 KiB list of 512 page words in host memory
 *   2nd indirect  att[att_base + page / 512^2] -> list of 512 list addresses
 *                 -> list of 512 page words
 * A list address (in the ATT or in a 2nd-order list) is the list's 4 KiB
 * aligned physical address | OFL_TPT_ATT_PRESENT, as a page word is;
 * without the bit, or with reserved bits set, translation fails with
 * OFL_E_TPT_ATT_CORRUPT.
 *   physical      no ATT: the physical address is the TO itself (a
 *                 privileged consumer's local STag, ofl_tpt_reg_physical)
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

/* Access rights (FIG. 13 fields 1330, 1332). Numbers are offload's, not
 * IBV_ACCESS_*'s (a verbs provider translates bit by bit; verbs has no
 * local read bit). As in verbs (ibv_reg_mr(3)): a region always has local
 * read (ofl_tpt_register sets it whatever desc.access says), and remote
 * write or remote atomic need local write (OFL_E_TPT_ACCESS_COMBO). */
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
    OFL_TPT_ATT_INDIRECT2 = 2,
    OFL_TPT_ATT_PHYSICAL = 3 /* no ATT: the TO is the physical address
                                (ofl_tpt_reg_physical only; a registration
                                descriptor naming it is OFL_E_TPT_BAD_DESC) */
};

#define OFL_TPT_ATT_PRESENT 0x1u          /* page word: page is present */
#define OFL_TPT_ATT_RESERVED 0xFFEu       /* page word bits that MUST be 0 */
#define OFL_TPT_ATT_LIST_SHIFT 9          /* 512 words per indirect list */
#define OFL_TPT_PAGE_SHIFT_MIN 12         /* 4 KiB */
#define OFL_TPT_PAGE_SHIFT_MAX 28         /* 256 MiB */
#define OFL_TPT_MAX_ENTRIES (1u << 24)    /* Tag_Index is 24 bits */
#define OFL_TPT_QP_NONE 0xFFFFFFFFu       /* an iSCSI entry's owner: no QP
                                             (ofl_tpt_register) */

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
    uint32_t qp;          /* type 2 window: the QP it is bound through;
                             iSCSI: the QP whose command registered it
                             (OFL_TPT_QP_NONE: none) */
    uint32_t next_free;   /* free list link while FREE */
    uint8_t key;          /* 1310 Tag_Instance */
    uint8_t type;         /* 1311 enum ofl_tpt_type */
    uint8_t state;        /* 1312 enum ofl_tpt_state (VALID = Valid bit) */
    uint8_t access;       /* 1330/1332 enum ofl_tpt_access bits */
    uint8_t flags;        /* 1334 and others: enum ofl_tpt_flag bits */
    uint8_t att_kind;     /* 1316 enum ofl_tpt_att_kind */
    uint8_t page_shift;   /* 1318 log2 page size, 12 .. 28 */
    uint8_t registered;   /* region: registered since its allocation */
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
    uint32_t *att_owner;         /* att_owner[att_capacity] or NULL: see
                                    ofl_tpt_att_owners */
    uint8_t policy;              /* enum ofl_tpt_policy */
};

/* Registration descriptor: what ofl_tpt_register puts into an entry. */
struct ofl_tpt_region_desc {
    uint64_t va;        /* start VA; for OFL_TPT_ISCSI the command reference */
    uint64_t len;       /* > 0; an OFL_TPT_ISCSI entry may have 0 (a
                           command without data: att_count 0, fpo 0) */
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
 * register; the second half of Register Memory Region). The key byte of
 * stag is the registration's key, owned by the consumer as in IB/iWARP fast
 * registration: the first registration after ofl_tpt_alloc MUST use the key
 * alloc returned (else OFL_E_TPT_KEY_MISMATCH); every re-registration of the
 * same index MUST use a different key from the one before (else
 * OFL_E_TPT_KEY_REUSED), so that the STag advertised for the previous
 * registration cannot reach the new one. Only the previous key is known
 * here: a consumer that cycles keys (A, B, A) makes an older STag valid
 * again, as in IB/iWARP, where the key is the consumer's to manage.
 * Then, in this order: type (a window: OFL_E_TPT_WRONG_TYPE), pd
 * (OFL_E_TPT_PD_MISMATCH), state INVALID (a VALID entry checks its key as
 * usual, then OFL_E_TPT_BUSY), desc sane
 * (OFL_E_TPT_BAD_DESC), ATT slots inside the ATT and large enough for
 * fpo + len (OFL_E_TPT_ATT_RANGE), with an owner table none of them owned
 * by another entry (OFL_E_TPT_ATT_OWNED; see ofl_tpt_att_owners), rights
 * combination (OFL_E_TPT_ACCESS_COMBO). An iSCSI entry may describe no
 * data (len 0, att_count 0, fpo 0; no ATT slot is checked): its ITT then
 * names a command without data buffers, and only a zero-length check at
 * offset 0 passes its range. Bumps the region's generation, so windows of
 * an earlier registration stay dead. An iSCSI entry registered here
 * belongs to no QP (OFL_TPT_QP_NONE): no ofl_tpt_check_iscsi passes it;
 * its QP registers it with ofl_tpt_register_iscsi.
 */
enum ofl_err ofl_tpt_register(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                              const struct ofl_tpt_region_desc *desc);

/*
 * ofl_tpt_register of an OFL_TPT_ISCSI entry (any other type:
 * OFL_E_TPT_WRONG_TYPE, nothing changed) that belongs to QP number qp: its
 * ITT then names a task of that connection only (ofl_tpt_check_iscsi). qp
 * OFL_TPT_QP_NONE is OFL_E_ARG.
 */
enum ofl_err ofl_tpt_register_iscsi(struct ofl_tpt *tpt, uint32_t stag,
                                    uint32_t pd, uint32_t qp,
                                    const struct ofl_tpt_region_desc *desc);

/* The checks of ofl_tpt_register_iscsi, in its order, with nothing changed:
 * what an ISCSI_CMD WQE asks before it writes page words into the ATT. */
enum ofl_err ofl_tpt_register_iscsi_check(const struct ofl_tpt *tpt,
                                          uint32_t stag, uint32_t pd,
                                          uint32_t qp,
                                          const struct ofl_tpt_region_desc *desc);

/* Every check of ofl_tpt_register, in its order, and no change: OFL_OK
 * when ofl_tpt_register with the same arguments would succeed (so that a
 * caller writes the ATT slots of desc only for a registration that will
 * take them). */
enum ofl_err ofl_tpt_register_check(const struct ofl_tpt *tpt, uint32_t stag,
                                    uint32_t pd,
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
 * Register a physical region: the local STag of a privileged consumer
 * that names memory by physical address (Linux's get_dma_mr, behind every
 * kernel PD's local_dma_lkey; the reserved STag of RNIC verbs). Allocates
 * a region of pd whose TO is the physical address, over [0, 2^64 - 1),
 * with no ATT (OFL_TPT_ATT_PHYSICAL), VALID with `access`, and returns its
 * STag. Local rights only: OFL_TPT_LOCAL_READ (always set) and
 * OFL_TPT_LOCAL_WRITE; a remote right or BIND_WINDOW is
 * OFL_E_TPT_ACCESS_COMBO (remote access to all of memory is what Linux
 * names IB_PD_UNSAFE_GLOBAL_RKEY; this engine does not grant it), other
 * bits OFL_E_TPT_BAD_DESC, no free entry OFL_E_TPT_FULL; nothing is
 * allocated on failure. Not invalidatable, no windows, no page words
 * (ofl_tpt_map_page: OFL_E_TPT_WRONG_TYPE); deregister with
 * ofl_tpt_dereg. Whoever holds the STag reaches every byte the port can:
 * only the caller's own trusted consumers may post with it, and a
 * registration from user space must never be made physical (no WQE or
 * descriptor can: both refuse the kind).
 */
enum ofl_err ofl_tpt_reg_physical(struct ofl_tpt *tpt, uint32_t pd,
                                  uint8_t access, uint32_t *stag);

/*
 * Deregisters a region or iSCSI entry: checks key and pd, bumps the
 * generation (windows bound to it die), returns the entry to FREE.
 */
enum ofl_err ofl_tpt_dereg(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd);

/*
 * ATT slots: who hands them out, and who may name them.
 *
 * Slot pool. struct ofl_tpt_att_pool hands out runs of contiguous ATT slots
 * over caller storage (no allocation): OFL_TPT_ATT_POOL_WORDS(slots) 32-bit
 * words, two bitmaps (bit s of the first: slot s handed out; of the second:
 * slot s starts a run), so that a free must name exactly one run handed
 * out. First fit from slot 0. ofl_tpt_att_slots says how many slots a
 * region needs, so that no caller counts pages by hand. The pool is the
 * caller's bookkeeping and knows no entry; locking is the caller's.
 *
 *   run of slots  call                          next
 *   FREE          ofl_tpt_att_alloc             ALLOCATED (to the caller)
 *   ALLOCATED     ofl_tpt_att_free (same run)   FREE
 *   anything else ofl_tpt_att_free              OFL_E_TPT_ATT_NOT_ALLOCATED,
 *                                               nothing changes
 *
 * Cost: alloc visits each 32-bit word of the first bitmap at most once,
 * with a bounded number of operations per word (at most 5 shift-and-masks
 * to find a run inside a word, 5-step bit counts): O(slots / 32) at worst,
 * fragmented or not, and less when a run is found early; free and the
 * marking of a run are O(n / 32 + 1) word operations.
 *
 * Owners. Without an owner table (the default after ofl_tpt_init, so
 * every existing caller) the ATT has no owners: any registration may name
 * any slots inside the ATT, regions may share slots (FIG. 14), and
 * whoever posts FAST_REG, REG_SEND and ISCSI_CMD WQEs is trusted with
 * every region's translation. A kernel provider whose user space writes
 * SQ entries (siw's user ABI) must not trust them: it gives the table an
 * owner table (ofl_tpt_att_owners, one uint32_t per ATT slot) and then
 * every registration - verbs, reg_pages / reg_phys and the WQEs - is
 * checked before anything is written:
 *
 *   slots         event                              next
 *   FREE          entry X registers them             OWNED(X)
 *   OWNED(X)      X registers them again (subset)    OWNED(X)
 *   OWNED(X)      X registers other slots            FREE (the ones it left)
 *   OWNED(X)      X deregistered / deallocated       FREE
 *   OWNED(X)      X invalidated or expired           OWNED(X): X keeps them
 *                                                    for its next fast
 *                                                    registration, as an
 *                                                    MR keeps its page list
 *   OWNED(X)      entry Y != X registers any of them OFL_E_TPT_ATT_OWNED,
 *                                                    nothing changes
 *
 * att_owner[s] records the Tag_Index of the last entry that registered
 * slot s; slot s is OWNED(X) when att_owner[s] == X and entry X is
 * allocated and its registration's slots [att_base, att_base + att_count)
 * contain s. Invalidation costs nothing here; a registration costs
 * O(att_count) owner reads and writes (a direct ATT: one per page, as the
 * page words themselves), and so do a deregistration, a deallocation and
 * a registration that leaves slots: the slots X gives up are cleared (page
 * word 0, not present, and no owner), so that a later registration over
 * FREE slots - which owners allow, and a FAST_REG with no physical
 * buffers names - cannot reach the pages of a region that is gone,
 * whatever PD it is in. With owners, FIG. 14 slot
 * sharing between entries is refused. Owners guard ATT slots only: the
 * physical addresses a WQE or an indirect list names are the poster's to
 * vouch for (a kernel provider translates them from pages it pinned).
 * ofl_tpt_att_write (a driver verb) is not checked against owners.
 * Owners know registrations, not the pool: a registration may take free
 * slots that the pool handed to a caller who has not registered them yet
 * (that caller's registration then fails with OFL_E_TPT_ATT_OWNED). A
 * provider whose users post FAST_REG should fill reg.att_base from the run
 * it gave that MR (its user-ring translation) rather than from the user.
 */
#define OFL_TPT_ATT_POOL_WORDS(slots) (2u * (((uint32_t)(slots) + 31u) >> 5))
#define OFL_TPT_ATT_POOL_MAX 0x80000000u /* most slots one pool covers */

struct ofl_tpt_att_pool {
    uint32_t *map;   /* OFL_TPT_ATT_POOL_WORDS(slots) words: handed-out
                        bits, then run-start bits */
    uint32_t slots;  /* slots 0 .. slots - 1 */
    uint32_t free;   /* slots not handed out */
};

/* Initialises pool over map[words] for slots 1 .. OFL_TPT_ATT_POOL_MAX
 * (OFL_E_ARG otherwise, or when words < OFL_TPT_ATT_POOL_WORDS(slots));
 * every slot FREE. O(words). */
enum ofl_err ofl_tpt_att_pool_init(struct ofl_tpt_att_pool *pool,
                                   uint32_t *map, uint32_t words,
                                   uint32_t slots);

/* Hands out the first run of n free slots (first fit) in *base.
 * OFL_E_ARG for n == 0, OFL_E_TPT_ATT_FULL when no run of n is free (n
 * above the pool's slots included); nothing changes on failure. */
enum ofl_err ofl_tpt_att_alloc(struct ofl_tpt_att_pool *pool, uint32_t n,
                               uint32_t *base);

/* Returns the run [base, base + n) to the pool. OFL_E_ARG for n == 0,
 * OFL_E_TPT_ATT_RANGE for slots past the pool, OFL_E_TPT_ATT_NOT_ALLOCATED
 * unless it is exactly one run handed out (a double free, a part of a run,
 * two runs at once); nothing changes on failure. */
enum ofl_err ofl_tpt_att_free(struct ofl_tpt_att_pool *pool, uint32_t base,
                              uint32_t n);

/* The least att_count a registration of len bytes starting fpo bytes into
 * its first page of 2^page_shift bytes needs with an ATT of att_kind
 * (FIG. 13: pages = (fpo + len - 1) / page size + 1, one slot per page
 * direct, per 512 pages 1st indirect, per 512^2 2nd indirect) in *count.
 * OFL_E_TPT_BAD_DESC for what ofl_tpt_register refuses as such (page_shift
 * outside 12 .. 28, fpo >= page size, len 0, unknown kind, fpo + len past
 * 2^64), OFL_E_TPT_ATT_RANGE when the count passes 2^32 - 1. */
enum ofl_err ofl_tpt_att_slots(uint64_t len, uint32_t fpo, uint8_t page_shift,
                               uint8_t att_kind, uint32_t *count);

/* Gives tpt an owner table of n == tpt->att_capacity words (zeroed here;
 * see above). Only while no entry is allocated (else OFL_E_TPT_BUSY), as
 * right after ofl_tpt_init; OFL_E_ARG for NULL or another n. */
enum ofl_err ofl_tpt_att_owners(struct ofl_tpt *tpt, uint32_t *owner,
                                uint32_t n);

/* ofl_tpt_reg_pages with the n ATT slots taken from pool (desc->att_base is
 * ignored): on any failure the slots go back and nothing is left
 * allocated. */
enum ofl_err ofl_tpt_reg_pages_pool(struct ofl_tpt *tpt,
                                    struct ofl_tpt_att_pool *pool,
                                    uint32_t pd,
                                    const struct ofl_tpt_region_desc *desc,
                                    const uint64_t *pages, uint32_t n,
                                    uint32_t *stag);

/* ofl_tpt_dereg, then the entry's slots [att_base, att_base + att_count)
 * go back to pool. Checked first (ofl_tpt_dereg's checks, then that the
 * slots are one run of pool: OFL_E_TPT_ATT_NOT_ALLOCATED), so a failure
 * changes nothing. For an entry whose registration took its slots from
 * pool as one run (ofl_tpt_reg_pages_pool, or ofl_tpt_att_alloc). It frees
 * the run the entry names NOW: a caller whose entries can be re-registered
 * onto other slots by WQEs it does not control (FAST_REG from user space)
 * MUST keep each MR's own run and free that one with ofl_tpt_att_free
 * after ofl_tpt_dereg, or the run of another caller could go back twice. */
enum ofl_err ofl_tpt_dereg_pool(struct ofl_tpt *tpt,
                                struct ofl_tpt_att_pool *pool, uint32_t stag,
                                uint32_t pd);

/*
 * Binds window stag to [va, va + len) of region region_stag with the given
 * remote rights (BindRKey, seed 001; bind memory window, FIG. 15 g).
 * Checks the region as a local access with OFL_TPT_BIND_WINDOW for the range
 * (valid, key, type, PD, bounds, g). PD rules: type 1 window pd == region
 * pd; type 2 window pd == region pd == pd, and the window becomes tied to
 * qp. Rights: remote rights only; remote write or atomic need the region's
 * local write. flags: OFL_TPT_F_ONE_TOUCH, OFL_TPT_F_ONE_SHOT. A type 1
 * window may be rebound while VALID (the new binding replaces the old); a
 * type 2 window only from INVALID, else OFL_E_TPT_BUSY (IBA vol. 1
 * o10-37.2.30: it stays tied to its QP until invalidated or unbound).
 * len == 0 unbinds, whatever va (UnbindRKey, seed 001; ibv_alloc_mw(3):
 * a type 1 window is invalidated by "ibv_bind_mw verb with zero length"),
 * and ignores the region. Every bind, of either type, gives the window a
 * new key (IBA: a bind returns a new R_Key), so an STag advertised for an
 * earlier binding reaches neither the new range nor its rights;
 * *bound_stag is the STag to advertise and to name the window by from now
 * on (may be NULL for unbind, which keeps the key).
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
 * A QP's life ended (RESET, or a QP created under its number): every valid
 * type 2 window of pd tied to QP number qp, and every valid iSCSI entry of
 * pd that QP registered, becomes INVALID, so that the next connection on
 * that QP number cannot use a window advertised to the last one, nor take
 * over its tasks. Returns how many. A sweep of the whole table, O(capacity):
 * for the slow path. ofl_qp_create and the RESET transition call it.
 */
uint32_t ofl_tpt_invalidate_qp(struct ofl_tpt *tpt, uint32_t qp, uint32_t pd);

/*
 * Local access check (seed 000 FIG. 15 a-g) of a WQE data segment
 * [va, va + len) under pd. need: OFL_TPT_LOCAL_READ for Send and RDMA
 * Write sources, OFL_TPT_LOCAL_WRITE for receive buffers and RDMA Read
 * sinks, OFL_TPT_BIND_WINDOW for a Bind's region; a need of none of
 * them, or with any other bit, is OFL_E_ARG. Windows are refused (b).
 * Read-only.
 */
enum ofl_err ofl_tpt_check_local(const struct ofl_tpt *tpt, uint32_t stag,
                                 uint32_t pd, uint64_t va, uint64_t len,
                                 uint8_t need);

/*
 * Remote access check (seed 000 FIG. 18A a-f) of [to, to + len) for a
 * stream with protection domain pd on QP qp. need: OFL_TPT_REMOTE_WRITE
 * (RDMA Write; Read Response placement only under the opt-in
 * OFL_QP_READ_SINK_TAGGED: a Read's sink is a local data segment by
 * default), OFL_TPT_REMOTE_READ (Read Request
 * source), OFL_TPT_REMOTE_ATOMIC; a need of none of them, or with any
 * other bit, is OFL_E_ARG. Under OFL_TPT_POLICY_WINDOWS_ONLY a
 * region is refused (OFL_E_TPT_WRONG_TYPE); iSCSI entries always are. A
 * window of a dead region fails with OFL_E_TPT_REGION_GONE. Read-only.
 * Cost: O(1) (the entry, and a window's region).
 */
enum ofl_err ofl_tpt_check_remote(const struct ofl_tpt *tpt, uint32_t stag,
                                  uint32_t pd, uint32_t qp, uint64_t to,
                                  uint64_t len, uint8_t need);

/*
 * iSCSI 1.0 check (seed 000 FIG. 17B a-f) for a PDU received on QP number
 * qp: the Initiator Task Tag names an OFL_TPT_ISCSI entry; check c asks its
 * PD be pd and that QP registered it (ofl_tpt_register_iscsi), else
 * OFL_E_TPT_QP_MISMATCH: a task tag belongs to its connection (RFC 3720:
 * "the corresponding response and/or other related PDU(s) MUST be sent
 * over the same connection", connection allegiance); offset + len must lie
 * inside its length; need is OFL_TPT_REMOTE_READ (R2T),
 * OFL_TPT_REMOTE_WRITE (Data-In) or 0 (a SCSI Response: no data moves,
 * checks a-e only); other bits are OFL_E_ARG. Check g (command kind: R2T
 * only for a write, Data-In only for a read; a response for any command)
 * is the qp section's. Read-only.
 */
enum ofl_err ofl_tpt_check_iscsi(const struct ofl_tpt *tpt, uint32_t itt,
                                 uint32_t pd, uint32_t qp, uint64_t offset,
                                 uint64_t len, uint8_t need);

/* ofl_tpt_check_iscsi's arguments after itt as one value:
 * ofl_tpt_check_iscsi_use(tpt, itt, u) is ofl_tpt_check_iscsi(tpt, itt,
 * u->pd, u->qp, u->offset, u->len, u->need). The engine calls this one: a
 * seventh argument goes on the stack, and its caller's frame then is no
 * longer static in every build (make analyze). */
struct ofl_tpt_iscsi_use {
    uint64_t offset;
    uint64_t len;
    uint32_t pd;
    uint32_t qp;
    uint8_t need;
};
enum ofl_err ofl_tpt_check_iscsi_use(const struct ofl_tpt *tpt, uint32_t itt,
                                     const struct ofl_tpt_iscsi_use *u);

/*
 * Translates [to, to + len) of stag into physical pieces appended to sgl
 * (sgl->count and sgl->bytes are reset first); physically contiguous pages
 * merge into one piece of at most 2^31 bytes that never runs past 2^64
 * (a page ending at 2^64 and a page at address 0 stay two pieces). The
 * caller MUST have validated the access; this
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
 * under the standard policy, neither zero-based, over a direct ATT, the
 * access not ending at 2^64) is checked in one pass in a speed build and
 * every failure is diagnosed by the precise checks. On a check failure sgl
 * is emptied.
 */
enum ofl_err ofl_tpt_check_translate(const struct ofl_tpt *tpt, uint32_t stag,
                                     uint32_t pd, uint32_t qp, uint64_t to,
                                     uint64_t len, uint8_t need,
                                     struct ofl_tpt_sgl *sgl);

/*
 * The same checks with the access as one value, so that an engine (the qp
 * section) calls them with at most six arguments: a call with more puts
 * arguments on the stack, which x86-64 kernel builds at -O0 report as a
 * dynamic frame. ofl_tpt_check_access is ofl_tpt_check_remote,
 * ofl_tpt_check_translate_access is ofl_tpt_check_translate; same results.
 */
struct ofl_tpt_remote {
    uint64_t to;
    uint64_t len;
    uint32_t stag;
    uint32_t pd;
    uint32_t qp;
    uint8_t need;
};
enum ofl_err ofl_tpt_check_access(const struct ofl_tpt *tpt,
                                  const struct ofl_tpt_remote *a);
enum ofl_err ofl_tpt_check_translate_access(const struct ofl_tpt *tpt,
                                            const struct ofl_tpt_remote *a,
                                            struct ofl_tpt_sgl *sgl);

/*
 * ofl_tpt_check_local followed by ofl_tpt_translate in one call, the access
 * as one value (same reason): the path of a WQE data segment's DMA (the qp
 * section's gather and scatter), so that the segment is looked up once.
 * Same results and errors as the two calls; the common case (a region over
 * a direct ATT) is checked in one pass and every failure is diagnosed by
 * the precise checks. On a check failure sgl is emptied.
 */
struct ofl_tpt_local {
    uint64_t va;
    uint64_t len;
    uint32_t stag;
    uint32_t pd;
    uint8_t need;
};
enum ofl_err ofl_tpt_check_translate_local(const struct ofl_tpt *tpt,
                                           const struct ofl_tpt_local *a,
                                           struct ofl_tpt_sgl *sgl);

/* ofl_tpt_bind's arguments as one value; ofl_tpt_bind_window(tpt, b, out)
 * is ofl_tpt_bind(tpt, b->stag, b->region_stag, b->pd, b->qp, b->va,
 * b->len, b->access, b->flags, out) (same reason as above). */
struct ofl_tpt_bind_args {
    uint64_t va;
    uint64_t len;
    uint32_t stag;
    uint32_t region_stag;
    uint32_t pd;
    uint32_t qp;
    uint8_t access;
    uint8_t flags;
};
enum ofl_err ofl_tpt_bind_window(struct ofl_tpt *tpt,
                                 const struct ofl_tpt_bind_args *b,
                                 uint32_t *bound_stag);

/*
 * MapLocalPage (seed 001): makes the page of stag that contains to present
 * at physical address pa (aligned to the page size, else OFL_E_ARG). Checks
 * index, key, Valid and that to lies inside the entry (a window maps its
 * region's page; a physical region has no page words:
 * OFL_E_TPT_WRONG_TYPE). Direct ATTs are updated in place; indirect page
 * words are written through the port.
 * ofl_tpt_unmap_page clears the page word to 0, present bit included
 * (page swapped out; a later ofl_tpt_map_page gives its new address).
 */
enum ofl_err ofl_tpt_map_page(struct ofl_tpt *tpt, uint32_t stag, uint64_t to,
                              uint64_t pa);
enum ofl_err ofl_tpt_unmap_page(struct ofl_tpt *tpt, uint32_t stag,
                                uint64_t to);

/*
 * Ends the life of a valid entry after its use was consumed (one-shot key
 * after the last segment of the first message, seed 001; one-touch expiry,
 * seed 000 FIG. 18B) regardless of OFL_TPT_F_INVALIDATABLE: the entry
 * becomes INVALID. Checks the key and that the entry is VALID
 * (OFL_E_TPT_NOT_VALID), nothing else (no PD, no QP: the engine calls it
 * after the checks of the access that spent the entry).
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
 * OFL_WC_MW_BIND_ERR, ...; OFL_E_TPT_ATT_OWNED: OFL_WC_LOC_PROT_ERR). OFL_OK
 * maps to OFL_WC_SUCCESS. */
enum ofl_wc_status ofl_tpt_wc_status(enum ofl_err e);

/* ---- local protection: the segment table (seed 001 FIG. 13-17) ---------- */
/*
 * Seed 001 "Local Memory Protection": a user process names memory by an
 * effective address, never by a virtual one. The effective address (FIG.
 * 13) is a segment id 532, a page number 534 and a page offset 536; the
 * process's segment table, kept by the operating system's VMM, maps the
 * segment id to the upper bits of a virtual address 542 (FIG. 14, with a
 * valid bit 546); the virtual address (FIG. 15) is those upper bits, the
 * same page number and the same offset. The driver keeps a copy of each
 * process's table (FIG. 17 step 604, taken at OpenQP; one copy serves
 * every QP of the process), translates every effective address the process
 * passes (step 606), and the VMM keeps the copy current with the
 * SegmentTableUpdate verb whenever an entry is added, deleted or changed
 * (steps 608-610). A process "can only bind a RKey to an effective address
 * pointing to an address space in memory accessible by" it: an address
 * with no valid segment table entry is refused ("no segment table entry
 * for the contiguous memory address range").
 *
 * struct ofl_tpt_segtab is that copy over a caller-owned entry array (no
 * allocation; BearSSL style: the caller supplies the array and its
 * capacity). Addresses split at seg_shift (12 .. 60), fixed for the table:
 *
 *   bits of an effective address   field (FIG. 13)
 *   63 .. seg_shift                segment id: the entry's index, < capacity
 *   seg_shift - 1 .. 0             page number and page offset, kept as they
 *                                  are (the page size is the region's,
 *                                  not the table's)
 *
 *   va = (seg[segment id].vsid << seg_shift) | (ea & (2^seg_shift - 1))
 *
 * The effective segment id of FIG. 14 (532') is the entry's index: the
 * table is indexed directly, O(1) per segment. A range [ea, ea + len) may
 * cross segments only where each next segment continues the virtual
 * addresses of the one before (its vsid is one more): the registration
 * stays one virtually contiguous range. Checks, in this order, each with
 * its error:
 *
 *   check                                              error
 *   ea + len - 1 wraps past 2^64                       OFL_E_TPT_SEG_RANGE
 *   a segment id of the range >= capacity              OFL_E_TPT_SEG_RANGE
 *   its entry's valid bit clear                        OFL_E_TPT_SEG_INVALID
 *   its vsid is not the previous segment's vsid + 1    OFL_E_TPT_SEG_DISCONTIG
 *
 * (segments checked from the first to the last; the first failure is
 * returned). Entry states and SegmentTableUpdate (struct
 * ofl_tpt_seg_update; each update changes one entry or nothing):
 *
 *   entry    op                          next     else
 *   INVALID  OFL_TPT_SEG_ADD (vsid)      VALID    VALID: OFL_E_TPT_SEG_UPDATE
 *   VALID    OFL_TPT_SEG_CHANGE (vsid)   VALID    INVALID: OFL_E_TPT_SEG_UPDATE
 *   VALID    OFL_TPT_SEG_DELETE          INVALID  INVALID: OFL_E_TPT_SEG_UPDATE
 *   any      unknown op, vsid above 2^(64 - seg_shift) - 1:
 *                                                 OFL_E_TPT_SEG_UPDATE
 *   any      segment id >= capacity               OFL_E_TPT_SEG_RANGE
 *
 * The table is consulted when a verb names an effective address
 * (ofl_tpt_seg_translate, ofl_tpt_register_ea, ofl_tpt_bind_ea); what a
 * verb registered or bound holds the virtual address it was given. A later
 * DELETE or CHANGE does not end it, as an unmapped range stays registered
 * in IB/iWARP (its pages stay pinned): the VMM that wants the registration
 * gone deregisters it. A kernel caller may still name virtual addresses
 * directly with ofl_tpt_register and ofl_tpt_bind (seed 001: "a kernel
 * calling process can bind a RKey to either an effective address or a
 * virtual address"); a provider serving user processes calls the _ea
 * variants, with the table of the calling process.
 *
 * Trust: updates come from the VMM, a trusted caller, as structs (no byte
 * decoding here); each is still checked as above. The effective addresses
 * and lengths a process passes are its own to choose and are checked
 * against the table before anything is written; fuzz/tpt_seg drives
 * updates, translations, ofl_tpt_register_ea and ofl_tpt_bind_ea with
 * arbitrary values against a model of this table. Context: a segment table is owned by the driver
 * context of one process; updates and translations are not reentrant for
 * the same table (translations are read-only and may run concurrently with
 * each other, not with an update).
 */
#define OFL_TPT_SEG_SHIFT_MIN 12
#define OFL_TPT_SEG_SHIFT_MAX 60
#define OFL_TPT_SEG_MAX_ENTRIES (1u << 24) /* most entries one table has */

/* One segment table entry (FIG. 14). Caller memory; only ofl_tpt_seg_
 * functions change it. */
struct ofl_tpt_seg {
    uint64_t vsid;  /* 542: upper bits of the virtual address (va >>
                       seg_shift) */
    uint8_t valid;  /* 546: segment valid bit */
    uint8_t rsv_[7];
};

/* A process's segment table (FIG. 12 512, its copy in QP state 531). */
struct ofl_tpt_segtab {
    struct ofl_tpt_seg *seg; /* seg[capacity] */
    uint32_t capacity;       /* 1 .. OFL_TPT_SEG_MAX_ENTRIES, at most
                                2^(64 - seg_shift) */
    uint32_t valid_count;    /* entries VALID */
    uint32_t updates;        /* SegmentTableUpdate verbs applied */
    uint8_t seg_shift;       /* bits of page number + offset */
};

/* SegmentTableUpdate operations (FIG. 17 step 608: an entry "is added,
 * deleted, or changed"). */
enum ofl_tpt_seg_op {
    OFL_TPT_SEG_ADD = 1,
    OFL_TPT_SEG_DELETE = 2,
    OFL_TPT_SEG_CHANGE = 3
};

/* One SegmentTableUpdate. */
struct ofl_tpt_seg_update {
    uint64_t vsid;  /* ADD, CHANGE: the new upper virtual address bits;
                       DELETE: ignored */
    uint32_t esid;  /* effective segment id: the entry */
    uint8_t op;     /* enum ofl_tpt_seg_op */
};

/* Initialises st over seg[capacity] with segments of 2^seg_shift bytes:
 * checks seg_shift 12 .. 60 and capacity 1 .. OFL_TPT_SEG_MAX_ENTRIES and
 * at most 2^(64 - seg_shift) (else OFL_E_ARG, st unchanged); makes every
 * entry INVALID (vsid 0). O(capacity). */
enum ofl_err ofl_tpt_seg_init(struct ofl_tpt_segtab *st, struct ofl_tpt_seg *seg,
                              uint32_t capacity, uint8_t seg_shift);

/* SegmentTableUpdate (seed 001 FIG. 17 step 608): checks u against the
 * table above (OFL_E_TPT_SEG_RANGE, OFL_E_TPT_SEG_UPDATE; OFL_E_ARG for
 * NULL), then adds, changes or deletes entry u->esid and counts the update;
 * on error nothing changes. */
enum ofl_err ofl_tpt_seg_update(struct ofl_tpt_segtab *st,
                                const struct ofl_tpt_seg_update *u);

/* Effective -> virtual (FIG. 13-15, step 606): checks [ea, ea + len) (len
 * 0: the byte at ea's segment alone) in the order of the table above and
 * writes its virtual address to *va; on error *va is not written.
 * Read-only. Cost: one entry per segment the range touches. */
enum ofl_err ofl_tpt_seg_translate(const struct ofl_tpt_segtab *st,
                                   uint64_t ea, uint64_t len, uint64_t *va);

/* ofl_tpt_register of a region whose desc->va is an effective address of
 * the process st belongs to: first OFL_E_ARG for a NULL pointer and
 * OFL_E_TPT_WRONG_TYPE for an allocated iSCSI entry (its va is a command
 * reference, not an address), then ofl_tpt_seg_translate of [desc->va,
 * desc->va + desc->len), then ofl_tpt_register with the virtual address
 * in its place (desc itself is not changed). Returns the first failure;
 * on any failure nothing changes. */
enum ofl_err ofl_tpt_register_ea(struct ofl_tpt *tpt,
                                 const struct ofl_tpt_segtab *st,
                                 uint32_t stag, uint32_t pd,
                                 const struct ofl_tpt_region_desc *desc);

/* ofl_tpt_bind_window of b whose b->va is an effective address (BindRKey
 * by a user process, seed 001 FIG. 18): ofl_tpt_seg_translate of [b->va,
 * b->va + b->len), then the bind with the virtual address in its place
 * (b itself is not changed). b->len 0 is UnbindRKey: no address, so no
 * segment check (b->va ignored, as ofl_tpt_bind ignores it). Returns the
 * first failure (OFL_E_ARG for NULL st or b); on any failure nothing
 * changes. */
enum ofl_err ofl_tpt_bind_ea(struct ofl_tpt *tpt,
                             const struct ofl_tpt_segtab *st,
                             const struct ofl_tpt_bind_args *b,
                             uint32_t *bound_stag);

#endif /* OFL_ENABLE_TPT */

/* ======================================================================== */
/* seq: TCP sequence window and the one-touch decision                      */
/* ======================================================================== */
#if OFL_ENABLE_SEQ
/*
 * TCP byte-sequence window (RFC 9293 §3.4, §3.10.7.4; RFC 1982 arithmetic
 * through ofl_sn_*) and the one-touch decision of seed 000 FIG. 18B.
 *
 * Positions. Sequence numbers are 32-bit and wrap. A receive window is
 * (nxt, wnd): nxt is RCV.NXT, the first byte not yet received in order, and
 * wnd is RCV.WND, at most OFL_SEQ_WND_MAX (2^30, the largest scaled window,
 * RFC 7323 §2.3). The DDP SN of a segment is the sequence number of the last
 * payload byte of that DDP segment (DESIGN.md glossary). A last byte sn is
 *
 *   class       when                          meaning
 *   NEXT        sn + 1 == nxt                 the in-order stream has just
 *                                             lined up with sn ("Incoming
 *                                             DDP SN = TCP SN")
 *   IN_WINDOW   (sn - nxt) mod 2^32 < wnd     ahead of a hole: out of order
 *   OUTSIDE     anything else                 behind nxt - 1, or beyond the
 *                                             right edge
 *
 * An engine that reads the in-order byte stream advances nxt to one past
 * each DDP segment's last payload byte before it asks for the decision (so
 * such a segment is NEXT); a segment found ahead of a hole (ofl_mpa_locate)
 * is IN_WINDOW.
 *
 * One touch (seed 000 FIG. 18B, "Step D: Table D"). For a tagged segment
 * that passed the remote checks (FIG. 18A), the decision is a pure function
 * of the DDP Last bit, the entry's One Touch Enabled and Touched bits and
 * the class of the segment's DDP SN:
 *
 *   row  Last  1-touch  touched  DDP SN     action
 *   1    0     -        -        -          PLACE
 *   2    1     0        -        -          PLACE
 *   3    1     1        1        -          INVALIDATE_TERMINATE
 *   4    1     1        0        NEXT       INVALIDATE_PLACE
 *   5    1     1        0        IN_WINDOW  TOUCH_PLACE: set Touched, store
 *                                           the DDP SN in the entry, place;
 *                                           invalidate when the stream
 *                                           lines up with it (deferred)
 *   6    1     1        0        OUTSIDE    DROP (the sender retransmits)
 *
 * Deferred invalidation. Row 5 leaves (STag, DDP SN) pending in a
 * caller-sized array held by struct ofl_seq. Each ofl_seq_advance() marks
 * the pending pairs whose DDP SN the in-order stream has passed (sn < nxt),
 * and ofl_seq_take_due() hands them out one by one, for the engine to
 * expire the entries (ofl_tpt_expire, or ofl_seq_retire which does it).
 *
 *   pending pair   event                          next
 *   (free)         ofl_seq_defer (row 5)          WAITING
 *   WAITING        ofl_seq_advance past its sn    DUE
 *   DUE            ofl_seq_take_due               (free)
 *
 * Context: one struct ofl_seq per receive stream, touched only by the
 * context that processes that stream's inbound segments.
 */

#define OFL_SEQ_WND_MAX (1u << 30) /* RFC 7323 §2.3: 65535 << 14 < 2^30 */

/* Where a sequence number lies relative to a receive window. */
enum ofl_seq_class {
    OFL_SEQ_NEXT = 0,      /* sn + 1 == nxt: lined up in order */
    OFL_SEQ_IN_WINDOW = 1, /* nxt <= sn < nxt + wnd (mod 2^32) */
    OFL_SEQ_OUTSIDE = 2    /* neither */
};

/* A deferred one-touch invalidation. */
struct ofl_seq_pending {
    uint32_t stag; /* the entry to expire */
    uint32_t sn;   /* its stored DDP SN */
    uint8_t due;   /* 1 once the stream has passed sn */
    uint8_t reserved_[3];
};

/* A receive window with its deferred invalidations. */
struct ofl_seq {
    uint32_t nxt;                   /* RCV.NXT */
    uint32_t wnd;                   /* RCV.WND, <= OFL_SEQ_WND_MAX */
    struct ofl_seq_pending *pending; /* caller array of pending_cap slots */
    uint32_t pending_cap;
    uint32_t pending_count;         /* slots 0 .. pending_count - 1 in use */
};

/*
 * Initialises s with RCV.NXT nxt and window wnd (1 .. OFL_SEQ_WND_MAX) over
 * a caller array of cap pending slots (slots may be NULL when cap is 0).
 * OFL_E_ARG on a bad size.
 */
enum ofl_err ofl_seq_init(struct ofl_seq *s, uint32_t nxt, uint32_t wnd,
                          struct ofl_seq_pending *slots, uint32_t cap);

/* Sets the window size (RFC 9293 RCV.WND), 1 .. OFL_SEQ_WND_MAX. */
enum ofl_err ofl_seq_set_window(struct ofl_seq *s, uint32_t wnd);

/* Classifies last byte sn against (nxt, wnd). Pure; see the table above. */
enum ofl_seq_class ofl_seq_classify(uint32_t nxt, uint32_t wnd, uint32_t sn);

/*
 * The in-order stream grew by n bytes: nxt += n. n MUST NOT exceed the
 * window (OFL_E_SEQ_BEYOND_WINDOW, nothing changed): no TCP receiver accepts
 * data beyond RCV.NXT + RCV.WND. Marks every pending pair whose sn is now
 * behind nxt as due; *due_count (may be NULL) receives how many are due in
 * total.
 */
enum ofl_err ofl_seq_advance(struct ofl_seq *s, uint32_t n,
                             uint32_t *due_count);

/*
 * Records a deferred invalidation of stag at DDP SN sn (Table D row 5).
 * sn MUST be IN_WINDOW (OFL_E_SEQ_OUTSIDE); stag MUST NOT be pending already
 * (OFL_E_SEQ_DUPLICATE); OFL_E_SEQ_PENDING_FULL when every slot is used.
 */
enum ofl_err ofl_seq_defer(struct ofl_seq *s, uint32_t stag, uint32_t sn);

/* The stream ended (the connection is gone): every pending pair becomes
 * due, so that ofl_seq_retire expires the entries that will never see the
 * stream line up with them. */
void ofl_seq_end(struct ofl_seq *s);

/*
 * Takes one due pair out of the pending set: returns true and fills *stag
 * and *sn (either may be NULL), or returns false when none is due.
 */
bool ofl_seq_take_due(struct ofl_seq *s, uint32_t *stag, uint32_t *sn);

/* Table D actions. */
enum ofl_seq_ot_action {
    OFL_SEQ_OT_PLACE = 0,                /* rows 1 and 2 */
    OFL_SEQ_OT_INVALIDATE_TERMINATE = 1, /* row 3 */
    OFL_SEQ_OT_INVALIDATE_PLACE = 2,     /* row 4 */
    OFL_SEQ_OT_TOUCH_PLACE = 3,          /* row 5 */
    OFL_SEQ_OT_DROP = 4,                 /* row 6 */
    OFL_SEQ_OT_DUPLICATE = 5             /* row 5 seen again: drop (only
                                            ofl_seq_one_touch_apply) */
};

/* One decision and the update it makes to the TPT entry. */
struct ofl_seq_ot {
    uint8_t action;      /* enum ofl_seq_ot_action */
    uint8_t row;         /* the Table D row, 1 .. 6 */
    bool place;          /* place the payload at the TO */
    bool invalidate;     /* reset the entry's Valid bit now */
    bool set_touched;    /* set Touched and store stored_sn */
    bool defer;          /* invalidate when the stream lines up with
                            stored_sn (ofl_seq_defer) */
    bool terminate;      /* send a Terminate with cause */
    uint32_t stored_sn;  /* DDP SN to store when set_touched */
    struct ofl_term_cause cause; /* row 3: 0x1/0x1/0x00, DDP tagged
                                    "Invalid STag" - the entry's one touch
                                    is spent (RFC 5041 §7 has no finer
                                    code) */
};

/*
 * The Table D decision (seed 000 FIG. 18B, step 1828) for a tagged segment
 * with DDP Last bit last whose entry has the One Touch Enabled bit
 * one_touch and the Touched bit touched, last payload byte sn, against the
 * window (nxt, wnd). Pure.
 */
struct ofl_seq_ot ofl_seq_one_touch(bool last, bool one_touch, bool touched,
                                    uint32_t sn, uint32_t nxt, uint32_t wnd);

#if OFL_ENABLE_TPT
/*
 * The decision applied to a TPT entry (needs the tpt section). Reads the
 * entry's bits (ofl_tpt_query), decides against s's window, then: rows 3
 * and 4 expire the entry (ofl_tpt_expire); row 5 records the deferred
 * invalidation (ofl_seq_defer) and then sets Touched and the stored DDP SN
 * (ofl_tpt_set_touched). When row 5 finds no free pending slot the segment
 * is dropped instead (action DROP, row 6 behaviour: the sender retransmits
 * and the segment arrives in order later) and nothing changes. Two cases
 * read the stored DDP SN (FIG. 18B step 1824):
 *  - another copy of the segment that touched the entry (Touched, stored SN
 *    == sn, and the pair (stag, sn) still pending on s: a TCP
 *    retransmission, or the same bytes lining up in order) is the same
 *    access, not a second one: action DUPLICATE (row 5, place false, no
 *    Terminate) and nothing changes. Any other access to a Touched entry
 *    is row 3.
 *  - a pending pair left by an earlier life of the STag (deregistered and
 *    issued again; the entry is not Touched) is taken over by row 5.
 * The caller MUST have run the remote checks (ofl_tpt_check_remote) first.
 * Errors: a query failure is returned as is; ofl_tpt_expire's and
 * ofl_tpt_set_touched's errors are returned with nothing changed.
 * *out receives the decision applied.
 */
enum ofl_err ofl_seq_one_touch_apply(struct ofl_seq *s, struct ofl_tpt *tpt,
                                     uint32_t stag, bool last, uint32_t sn,
                                     struct ofl_seq_ot *out);

/*
 * Expires the entries of every due pair (the stream lined up with their
 * stored DDP SN). A pair whose STag no longer names a touched entry with
 * that stored SN (deregistered, rebound, already expired) is discarded
 * without touching the table. *expired (may be NULL) receives the number
 * of entries expired.
 */
enum ofl_err ofl_seq_retire(struct ofl_seq *s, struct ofl_tpt *tpt,
                            uint32_t *expired);
#endif /* OFL_ENABLE_TPT */
#endif /* OFL_ENABLE_SEQ */

/* ======================================================================== */
/* wire: MPA, DDP, RDMAP                                                    */
/* ======================================================================== */
#if OFL_ENABLE_WIRE
/*
 * The iWARP wire: MPA (RFC 5044, RFC 6581) over TCP, DDP (RFC 5041) on MPA,
 * RDMAP (RFC 5040, RFC 7306) on DDP. Everything here is a codec or a small
 * caller-pumped state machine over caller buffers; every byte parsed is
 * hostile and every rejection names the exact terminate cause.
 *
 * Byte order and layout (all big-endian except the MPA CRC):
 *
 *   MPA Request/Reply (RFC 5044 §7.1, RFC 6581)
 *     0  Key, 16 bytes: "MPA ID Req Frame" / "MPA ID Rep Frame"
 *     16 flags: M 0x80 (send me markers), C 0x40 (CRC), R 0x20 (rejected,
 *        replies only), 0x10 enhanced (RFC 6581 data follows; set by Linux
 *        siw and cxgb4 with revision 2), 0x0F reserved
 *     17 Rev: 1 (RFC 5044) or 2 (RFC 6581)
 *     18 PD_Length, 16 bits, at most 512
 *     20 private data; revision 2 + enhanced: the first 4 bytes are
 *        IRD (14 bits) with A 0x8000 peer-to-peer and B 0x4000 zero-length
 *        Send RTR, then ORD (14 bits) with C 0x8000 zero-length RDMA Write
 *        RTR and D 0x4000 zero-length RDMA Read RTR
 *   FPDU (RFC 5044 §4)
 *     ULPDU Length (16 bits) | ULPDU | pad to a multiple of 4 | CRC32c
 *     The CRC covers everything before it, markers included; it is sent
 *     least significant byte first (as Linux siw does and Wireshark checks;
 *     the iSCSI digest order of RFC 3720 B.4). Without negotiated CRC the
 *     field is present, sent as 0 and not checked.
 *   Marker (RFC 5044 §4): 16 bits reserved (0) | FPDUPTR (16 bits), one at
 *     every stream position that is a multiple of 512, counted from the
 *     first octet of the first FPDU in that direction (the octet after the
 *     Request/Reply). FPDUPTR is the distance back from the marker to the
 *     ULPDU Length field of the FPDU it lies in (its low 2 bits are ignored
 *     on receipt). A marker that falls exactly where an FPDU begins is that
 *     FPDU's first 4 bytes, its FPDUPTR is 0, and the header follows it.
 *   DDP control + RDMAP control (RFC 5041 §4, RFC 5040 §4), 2 bytes:
 *     T 0x80 tagged, L 0x40 last, 0x3C reserved, DV 0x03 DDP version (1);
 *     RV 0xC0 RDMAP version (1), 0x30 reserved, 0x0F opcode
 *   Tagged header (14 bytes): control | STag | TO (64 bits)
 *   Untagged header (18 bytes): control | RsvdULP (32 bits: the Invalidate
 *     STag of Send with Invalidate, else 0) | QN | MSN | MO
 *   RDMA Read Request (RFC 5040 §4), 28 bytes after an untagged header:
 *     sink STag | sink TO | RDMA Read Message Size | source STag | source TO
 *   Terminate (RFC 5040 §4) after an untagged header (QN 2):
 *     Layer 0xF0000000 | EType 0x0F000000 | Error Code 0x00FF0000 |
 *     Hdrct M 0x8000 (DDP Segment Length valid), D 0x4000 (DDP header
 *     included), R 0x2000 (RDMAP header included) | 13 reserved bits;
 *     then, when M or D is set, the DDP Segment Length (16 bits); when D,
 *     the terminated DDP header (14 or 18 bytes, by its own T bit); when R,
 *     the terminated RDMA Read Request header (28 bytes)
 *   Atomic Request (RFC 7306), 52 bytes after an untagged header (QN 3):
 *     reserved 28 bits | AtomicOperation 4 bits | Request Identifier |
 *     Remote STag | Remote TO | Add or Swap Data | Add or Swap Mask |
 *     Compare Data | Compare Mask (64 bits each)
 *   Atomic Response (RFC 7306), 12 bytes (QN 4): Original Request
 *     Identifier | Original Remote Data Value (64 bits)
 *   Immediate Data (RFC 7306), 8 bytes of data after an untagged header
 *     on the Send queue (QN 0)
 *
 * Opcodes, buffer model and queue (RFC 5040 §4, RFC 7306):
 *
 *   op   message                       model     QN   segments
 *   0x0  RDMA Write                    tagged    -    any
 *   0x1  RDMA Read Request             untagged  1    one
 *   0x2  RDMA Read Response            tagged    -    any
 *   0x3  Send                          untagged  0    any
 *   0x4  Send with Invalidate          untagged  0    any
 *   0x5  Send with Solicited Event     untagged  0    any
 *   0x6  Send with SE and Invalidate   untagged  0    any
 *   0x7  Terminate                     untagged  2    one
 *   0x8  Immediate Data                untagged  0    one
 *   0x9  Immediate Data with SE        untagged  0    one
 *   0xA  Atomic Request                untagged  3    one
 *   0xB  Atomic Response               untagged  4    one
 *
 * Terminate cause of every rejection (ofl_wire_term_cause; layer/type/code
 * from RFC 5040 §7, RFC 5041 §7, RFC 5044 §8, RFC 6581):
 *
 *   error                 cause     meaning
 *   E_MPA_KEY, _REV,      2/0/04    invalid MPA Request or Reply frame
 *   _PD_LEN, _ENHANCED
 *   E_MPA_REJECTED        2/0/01    no Terminate: the connection closes
 *   E_MPA_IRD             2/0/06    insufficient IRD resources
 *   E_MPA_RTR             2/0/07    no matching RTR option
 *   E_MPA_CRC             2/0/02    MPA CRC error
 *   E_MPA_MARKER          2/0/03    marker and ULPDU Length disagree
 *   E_MPA_TOO_LONG        1/0/00    DDP local catastrophic: a segment this
 *                                   receiver cannot hold (no finer code)
 *   E_DDP_SHORT           1/0/00    DDP local catastrophic: the segment is
 *                                   shorter than its own header
 *   E_DDP_VERSION         1/1/04    tagged; 1/2/06 untagged
 *   E_DDP_QN              1/2/01    invalid QN
 *   E_DDP_MSN_NO_BUFFER   1/2/02    invalid MSN, no buffer available
 *   E_DDP_MSN_RANGE       1/2/03    invalid MSN, range not valid
 *   E_DDP_MO              1/2/04    invalid MO
 *   E_DDP_TOO_LONG        1/2/05    DDP message too long for the buffer
 *   E_RDMAP_VERSION       0/2/05    invalid RDMAP version
 *   E_RDMAP_OPCODE        0/2/06    unexpected opcode (undefined, or wrong
 *                                   buffer model for it)
 *   E_RDMAP_ATOMIC_OP     0/2/06    unexpected (atomic) opcode
 *   E_RDMAP_LENGTH,       0/2/07    catastrophic, localized to the stream:
 *   E_RDMAP_LAST,                   a message malformed for its opcode
 *   E_RDMAP_TERM
 *   E_TPT_* (placement)   see ofl_tpt_term_cause
 *   anything else         0/0/00    RDMAP local catastrophic
 *
 * Reserved fields are sent as zero and not checked on receipt (RFC 5040
 * §4.1, RFC 5041 §4, RFC 5044 §5).
 *
 * Fuzzing: when offload.c is compiled with
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, received MPA CRCs are computed
 * but never compared (ofl_mpa_rx_feed, ofl_mpa_fpdu_verify), so that a
 * fuzzer reaches the code behind them. Never ship such a build.
 */

#define OFL_MPA_KEY_LEN 16
#define OFL_MPA_RR_HDR_LEN 20      /* key, flags, rev, PD_Length */
#define OFL_MPA_PD_MAX 512         /* RFC 5044 §7.1 */
#define OFL_MPA_RR_MAX (OFL_MPA_RR_HDR_LEN + OFL_MPA_PD_MAX)
#define OFL_MPA_V2_LEN 4           /* RFC 6581 IRD/ORD block */
#define OFL_MPA_IRD_ORD_MAX 0x3FFF /* 14 bits */
#define OFL_MPA_HDR_LEN 2          /* ULPDU Length */
#define OFL_MPA_CRC_LEN 4
#define OFL_MPA_MARKER_LEN 4
#define OFL_MPA_MARKER_INTERVAL 512
#define OFL_MPA_ULPDU_MAX 65535

/* Request/Reply flag byte (RFC 5044 §7.1; 0x10 see above). */
enum ofl_mpa_flag {
    OFL_MPA_F_MARKERS = 0x80,
    OFL_MPA_F_CRC = 0x40,
    OFL_MPA_F_REJECT = 0x20,
    OFL_MPA_F_ENHANCED = 0x10
};

/* RFC 6581 ready-to-receive (RTR) message kinds. */
enum ofl_mpa_rtr {
    OFL_MPA_RTR_SEND = 0x1,  /* zero-length Send (B) */
    OFL_MPA_RTR_WRITE = 0x2, /* zero-length RDMA Write (C) */
    OFL_MPA_RTR_READ = 0x4   /* zero-length RDMA Read (D) */
};
#define OFL_MPA_RTR_ALL 0x7u

/* A Request or Reply frame, built or parsed. */
struct ofl_mpa_rr {
    uint8_t reply;     /* 0 request, 1 reply */
    uint8_t flags;     /* OFL_MPA_F_MARKERS | _CRC | _REJECT; ENHANCED is
                          derived from enhanced */
    uint8_t rev;       /* 1 or 2 */
    uint8_t enhanced;  /* 1: the RFC 6581 block leads the private data */
    uint8_t p2p;       /* enhanced: A, peer-to-peer connection model */
    uint8_t rtr;       /* enhanced: enum ofl_mpa_rtr bits (B, C, D) */
    uint16_t ird;      /* enhanced: 0 .. OFL_MPA_IRD_ORD_MAX */
    uint16_t ord;
    uint16_t pd_len;   /* ULP private data, without the RFC 6581 block */
    const uint8_t *pd; /* ULP private data (parse: points into the frame) */
};

/* Bytes ofl_mpa_rr_build writes for rr. */
size_t ofl_mpa_rr_len(const struct ofl_mpa_rr *rr);

/*
 * Writes rr as a frame into out. Checks rev 1 .. 2, enhanced only with
 * rev 2, total private data <= 512, IRD/ORD <= 0x3FFF, rtr bits (OFL_E_ARG),
 * cap (OFL_E_SIZE). *len receives the frame length.
 */
enum ofl_err ofl_mpa_rr_build(const struct ofl_mpa_rr *rr, uint8_t *out,
                              size_t cap, size_t *len);

/*
 * Parses one frame of the kind reply says from buf[0 .. len). Returns
 * OFL_E_TRUNCATED while buf holds less than the whole frame (*frame_len
 * then says how many bytes are needed: 20 until the header is in, then the
 * whole frame), OFL_E_MPA_KEY, OFL_E_MPA_REV (0 or, for a reply, above 2),
 * OFL_E_MPA_PD_LEN, OFL_E_MPA_ENHANCED. On success *frame_len is the frame
 * length and rr->pd points into buf. A request with a revision above 2 is
 * accepted (the reply answers with a lower one). Nothing is written on
 * failure except *frame_len. Cost: O(1) (the 20-byte header; private data
 * is pointed at, not read).
 */
enum ofl_err ofl_mpa_rr_parse(const uint8_t *buf, size_t len, bool reply,
                              struct ofl_mpa_rr *rr, size_t *frame_len);

/* What one side wants (ofl_mpa_hs_init). */
struct ofl_mpa_cfg {
    uint8_t rev;        /* 1 or 2: highest revision sent / answered */
    bool markers;       /* ask the peer to put markers in what it sends */
    bool crc;           /* ask for CRC (used when either side asks) */
    bool enhanced;      /* rev 2: exchange the RFC 6581 IRD/ORD block */
    bool p2p;           /* initiator: ask for the peer-to-peer model */
    uint8_t rtr;        /* RTR kinds supported (initiator: offered) */
    uint16_t ird, ord;  /* our inbound / outbound RDMA Read depth */
    const uint8_t *pd;  /* our private data (copied into the frame) */
    uint16_t pd_len;
};

/* The negotiated connection (valid in state DONE). */
struct ofl_mpa_params {
    uint8_t rev;        /* revision in use */
    bool crc;           /* CRC in both directions */
    bool markers_tx;    /* we insert markers (the peer asked) */
    bool markers_rx;    /* the peer inserts markers (we asked) */
    bool enhanced;      /* RFC 6581 block exchanged */
    bool p2p;           /* peer-to-peer model: an RTR follows */
    uint8_t rtr;        /* the one RTR kind agreed, or 0 */
    uint16_t ird, ord;  /* negotiated depths */
};

/* Handshake states. */
enum ofl_mpa_hs_state {
    OFL_MPA_HS_START = 0,     /* initiator before its request */
    OFL_MPA_HS_AWAIT_REPLY,   /* initiator sent the request */
    OFL_MPA_HS_AWAIT_REQUEST, /* responder listening */
    OFL_MPA_HS_DECIDE,        /* responder holds a valid request */
    OFL_MPA_HS_DONE,          /* full operation; params valid */
    OFL_MPA_HS_REJECTED,      /* rejected (by either side) */
    OFL_MPA_HS_FAILED         /* protocol error; cause says which */
};

/*
 * MPA connection setup (RFC 5044 §7.1, RFC 6581):
 *
 *   state          call / input                  next
 *   START          ofl_mpa_hs_request            AWAIT_REPLY
 *   AWAIT_REPLY    reply, R = 0, consistent      DONE
 *   AWAIT_REPLY    reply, R = 1                  REJECTED (E_MPA_REJECTED)
 *   AWAIT_REPLY    bad frame / IRD / RTR         FAILED (its error)
 *   AWAIT_REQUEST  valid request                 DECIDE
 *   AWAIT_REQUEST  bad frame                     FAILED
 *   DECIDE         ofl_mpa_hs_accept             DONE, or REJECTED with
 *                                                E_MPA_RTR when no RTR kind
 *                                                matches (a reject reply is
 *                                                written)
 *   DECIDE         ofl_mpa_hs_reject             REJECTED
 *
 * Negotiation: CRC is used in both directions when either side set C;
 * markers are per direction (each side's M asks the other to insert them;
 * offload honours every such request). The reply's revision is the lower of
 * the request's and the responder's; a reply without the RFC 6581 block
 * (revision 1, or revision 2 without the enhanced flag) to an enhanced
 * request is accepted and ends in client-server mode, peer-to-peer asked
 * for or not (no RTR is exchanged; the ULP sees params.p2p false). With
 * both blocks
 * present: the responder's ORD is lowered to the initiator's IRD; the
 * initiator lowers its ORD to the responder's IRD and fails with
 * E_MPA_IRD when the responder's ORD exceeds its own IRD. Peer-to-peer:
 * the responder picks one offered RTR kind (Write, then Read, then Send);
 * the initiator fails with E_MPA_RTR unless the reply sets A and exactly
 * one offered kind comes back (as Linux siw checks).
 *
 * Bytes: ofl_mpa_hs_recv consumes at most the peer's frame, so what follows
 * it in the same TCP payload (FPDUs) is left for the FPDU receiver.
 * Context: one handshake per connection; the caller serialises calls.
 */
struct ofl_mpa_hs {
    struct ofl_mpa_cfg cfg;
    struct ofl_mpa_rr peer;        /* the peer's frame (pd into buf) */
    struct ofl_mpa_params params;  /* state DONE */
    struct ofl_term_cause cause;   /* state FAILED / REJECTED */
    uint16_t have;                 /* bytes of the peer frame in buf */
    uint16_t err;                  /* enum ofl_err of FAILED / REJECTED */
    uint8_t state;                 /* enum ofl_mpa_hs_state */
    uint8_t initiator;
    uint8_t buf[OFL_MPA_RR_MAX];
};

/*
 * Starts a handshake as initiator (state START) or responder
 * (AWAIT_REQUEST). Checks cfg: rev 1 .. 2, enhanced only with rev 2,
 * IRD/ORD <= 0x3FFF, rtr bits, p2p needs enhanced and a non-empty rtr,
 * private data fits (OFL_E_ARG).
 */
enum ofl_err ofl_mpa_hs_init(struct ofl_mpa_hs *hs,
                             const struct ofl_mpa_cfg *cfg, bool initiator);

/* Initiator, START: writes the Request into out -> AWAIT_REPLY. */
enum ofl_err ofl_mpa_hs_request(struct ofl_mpa_hs *hs, uint8_t *out,
                                size_t cap, size_t *len);

/*
 * Feeds peer bytes (AWAIT_REQUEST or AWAIT_REPLY). *used receives how many
 * were consumed (never past the frame). Returns OFL_OK while the frame is
 * incomplete or once it was handled (see the state), or the error that
 * moved the handshake to FAILED or REJECTED (hs->cause holds the terminate
 * cause). Calls in other states: OFL_E_MPA_STATE. Cost: O(*used): each
 * byte is copied once into the frame buffer and parsed once.
 */
enum ofl_err ofl_mpa_hs_recv(struct ofl_mpa_hs *hs, const uint8_t *data,
                             size_t len, size_t *used);

/* Responder, DECIDE: writes the Reply into out -> DONE (or REJECTED with
 * E_MPA_RTR, see above; the reject reply is still written). */
enum ofl_err ofl_mpa_hs_accept(struct ofl_mpa_hs *hs, uint8_t *out,
                               size_t cap, size_t *len);

/* Responder, DECIDE: writes a Reply with R set -> REJECTED. */
enum ofl_err ofl_mpa_hs_reject(struct ofl_mpa_hs *hs, uint8_t *out,
                               size_t cap, size_t *len);

/*
 * The maximum ULPDU for an effective MSS (RFC 5044, MULPDU):
 * markers: EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4);
 * no markers: EMSS - (6 + EMSS mod 4). 0 when emss is too small for any
 * FPDU, or above 0xFFFFFF (no TCP segment is that large; refused rather
 * than let the marker count overflow); at most OFL_MPA_ULPDU_MAX. An FPDU
 * of that size fits one segment.
 */
uint16_t ofl_mpa_mulpdu(uint32_t emss, bool markers);

/* Wire bytes of an FPDU with a ulpdu_len-byte ULPDU that starts at stream
 * position pos (markers counted when markers is true); 0 when ulpdu_len
 * exceeds OFL_MPA_ULPDU_MAX. */
uint32_t ofl_mpa_fpdu_len(uint32_t pos, bool markers, uint32_t ulpdu_len);

/* The sending half of a stream. */
struct ofl_mpa_tx {
    const struct ofl_port *port; /* CRC acceleration: the port given to
                                    init (a speed build: when it has
                                    crc32c, else NULL); may be NULL */
    uint32_t pos;                /* stream position of the next byte sent:
                                    TCP SN - SN of the first FPDU byte */
    uint16_t mulpdu;             /* largest ULPDU accepted */
    bool markers;                /* insert markers */
    bool crc;                    /* compute the CRC (else send 0) */
};

/*
 * Starts sending FPDUs at stream position 0 with the negotiated markers_tx
 * and crc of p, limited to ofl_mpa_mulpdu(emss, markers). OFL_E_ARG when
 * emss leaves no room for an FPDU or exceeds 65535.
 */
enum ofl_err ofl_mpa_tx_init(struct ofl_mpa_tx *tx,
                             const struct ofl_mpa_params *p, uint32_t emss,
                             const struct ofl_port *port);

/*
 * Builds one FPDU whose ULPDU is hdr[0 .. hdr_len) followed by
 * payload[0 .. payload_len) (either may be empty; so a DDP header built on
 * the stack and the payload in place are framed in one copy) into out,
 * inserting markers at their stream positions, and advances tx->pos.
 * OFL_E_MPA_TOO_LONG above tx->mulpdu, OFL_E_SIZE when cap is short (see
 * ofl_mpa_fpdu_len). *len receives the wire length.
 */
enum ofl_err ofl_mpa_fpdu_build(struct ofl_mpa_tx *tx, const uint8_t *hdr,
                                size_t hdr_len, const uint8_t *payload,
                                size_t payload_len, uint8_t *out, size_t cap,
                                size_t *len);

/*
 * Frames one FPDU without copying it, for a stream without markers (OFL_E_ARG
 * if tx->markers): writes the ULPDU Length into prefix[2] and pad + CRC into
 * trailer (up to 7 bytes, *trailer_len); the caller sends prefix, hdr,
 * payload and trailer in that order (e.g. with writev). Advances tx->pos.
 */
enum ofl_err ofl_mpa_fpdu_frame(struct ofl_mpa_tx *tx, const uint8_t *hdr,
                                size_t hdr_len, const uint8_t *payload,
                                size_t payload_len, uint8_t prefix[2],
                                uint8_t trailer[7], size_t *trailer_len);

/*
 * The same two framers with the ULPDU as one value (header and payload),
 * so that an engine calls them with at most six arguments (a call with
 * more makes an x86-64 kernel -O0 frame dynamic): ofl_mpa_fpdu_buildv is
 * ofl_mpa_fpdu_build, ofl_mpa_fpdu_framev is ofl_mpa_fpdu_frame.
 */
struct ofl_mpa_ulpdu {
    const uint8_t *hdr;
    size_t hdr_len;
    const uint8_t *payload;
    size_t payload_len;
};
enum ofl_err ofl_mpa_fpdu_buildv(struct ofl_mpa_tx *tx,
                                 const struct ofl_mpa_ulpdu *u, uint8_t *out,
                                 size_t cap, size_t *len);
enum ofl_err ofl_mpa_fpdu_framev(struct ofl_mpa_tx *tx,
                                 const struct ofl_mpa_ulpdu *u,
                                 uint8_t prefix[2], uint8_t trailer[7],
                                 size_t *trailer_len);

/* One received FPDU. */
struct ofl_mpa_fpdu {
    const uint8_t *ulpdu; /* the ULPDU, markers removed: into the fed data
                             when the FPDU arrived whole and without
                             markers inside, else into the receive buffer;
                             valid until the next call */
    uint16_t len;         /* ULPDU Length */
    uint32_t start;       /* stream position of its first wire byte */
    uint32_t wire_len;    /* its wire bytes, markers included */
};

/* Receiver states. */
enum ofl_mpa_rx_state {
    OFL_MPA_RX_LENGTH = 0, /* at or inside the ULPDU Length field */
    OFL_MPA_RX_BODY,       /* ULPDU and pad */
    OFL_MPA_RX_CRC,        /* the CRC field */
    OFL_MPA_RX_FAILED      /* sticky: err and cause say why */
};

/*
 * The receiving half of a stream: TCP payload in any chunking -> whole
 * FPDUs. State machine (markers are consumed in any state at every stream
 * position that is a multiple of 512, checked, and fed to the CRC):
 *
 *   state    input                               next
 *   LENGTH   2 bytes: ULPDU Length <= cap        BODY
 *   LENGTH   ULPDU Length > cap                  FAILED (E_MPA_TOO_LONG)
 *   BODY     ULPDU + pad bytes                   CRC
 *   CRC      4 bytes, CRC matches (or off)       LENGTH, FPDU delivered
 *   CRC      CRC differs                         FAILED (E_MPA_CRC)
 *   any      marker with a wrong FPDUPTR         FAILED (E_MPA_MARKER)
 *
 * Buffering is the caller's array of cap bytes (the largest ULPDU accepted;
 * OFL_MPA_ULPDU_MAX + 1 accepts all). An FPDU that arrives whole in one
 * chunk and has no marker inside is delivered in place, without a copy.
 * Context: one receiver per stream direction.
 */
struct ofl_mpa_rx {
    const struct ofl_port *port;  /* CRC acceleration: the port given to
                                     init (a speed build: when it has
                                     crc32c, else NULL); may be NULL */
    uint8_t *buf;                 /* caller buffer for a split ULPDU */
    uint32_t cap;
    uint32_t pos;                 /* stream position of the next byte */
    uint32_t start;               /* current FPDU: first wire byte */
    uint32_t hdr_pos;             /* current FPDU: ULPDU Length field */
    uint32_t body_got;            /* ULPDU + pad bytes consumed */
    uint32_t crc_state;           /* raw CRC register over the FPDU */
    struct ofl_term_cause cause;  /* state FAILED */
    uint16_t ulpdu_len;
    uint16_t err;                 /* enum ofl_err, state FAILED */
    uint8_t state;                /* enum ofl_mpa_rx_state */
    uint8_t part;                 /* bytes of the Length / CRC field in */
    uint8_t marker_got;           /* bytes of a marker in (0: none) */
    uint8_t started;              /* a byte of the current FPDU is in */
    uint8_t field[4];             /* partial Length or CRC field */
    uint8_t marker[4];            /* partial marker */
    bool markers;                 /* the peer inserts markers */
    bool crc;                     /* check the CRC */
};

/*
 * Starts receiving at stream position 0 with the negotiated markers_rx and
 * crc of p, buffering into buf[0 .. cap) (cap >= 1).
 */
enum ofl_err ofl_mpa_rx_init(struct ofl_mpa_rx *rx,
                             const struct ofl_mpa_params *p, uint8_t *buf,
                             uint32_t cap, const struct ofl_port *port);

/*
 * Consumes data[0 .. len) up to the end of the next complete FPDU. *used
 * receives the bytes consumed. When an FPDU completed, fpdu->ulpdu is
 * non-NULL (call again with the rest of the data); otherwise it is NULL
 * and all of data was consumed. Errors (E_MPA_TOO_LONG, E_MPA_CRC,
 * E_MPA_MARKER) move the receiver to FAILED for good: every later call
 * returns the same error; rx->cause holds the terminate cause. On the
 * error, *used and the stream position count the bytes up to the end of
 * what failed (the ULPDU Length field, the whole FPDU, the marker),
 * however the bytes were cut into calls. Cost: O(*used) (CRC, markers and
 * a copy of what is staged, each byte once).
 */
enum ofl_err ofl_mpa_rx_feed(struct ofl_mpa_rx *rx, const uint8_t *data,
                             size_t len, size_t *used,
                             struct ofl_mpa_fpdu *fpdu);

/* One FPDU found in a segment by ofl_mpa_locate. */
struct ofl_mpa_found {
    uint32_t off;       /* segment offset of its first wire byte */
    uint32_t hdr_off;   /* segment offset of its ULPDU Length field */
    uint32_t wire_len;  /* wire bytes, markers included */
    uint16_t ulpdu_len;
    bool complete;      /* all of it lies inside the segment */
};

/*
 * Out-of-order FPDU locator for a stream with markers (RFC 5044 §4):
 * seg[0 .. len) is one TCP segment whose first byte has sequence number
 * seq; base is the sequence number of the first FPDU octet of that
 * direction. Reads the markers inside the segment, follows the
 * first FPDUPTR that points into it, then walks the FPDUs by their ULPDU
 * Length, checking every marker met. Records up to cap FPDUs in found[]
 * (*count); a segment without a usable marker yields 0. E_MPA_MARKER when a
 * marker disagrees with the walk (cause 2/0/03). Cost: O(len / 512) markers
 * read plus one step per FPDU walked (each at least 8 bytes): O(len).
 */
enum ofl_err ofl_mpa_locate(uint32_t base, uint32_t seq, const uint8_t *seg,
                            size_t len, struct ofl_mpa_found *found,
                            uint32_t cap, uint32_t *count);

/* ofl_mpa_locate with the segment as one value (six-argument rule above). */
struct ofl_mpa_segment {
    uint32_t base;       /* SN of the first FPDU octet of the direction */
    uint32_t seq;        /* SN of data[0] */
    const uint8_t *data;
    size_t len;
};
enum ofl_err ofl_mpa_locate_segment(const struct ofl_mpa_segment *s,
                                    struct ofl_mpa_found *found, uint32_t cap,
                                    uint32_t *count);

/*
 * Checks one whole FPDU wire[0 .. wire_len) that starts at stream position
 * pos: it holds its ULPDU Length (E_TRUNCATED), which agrees with wire_len
 * (E_MPA_MARKER if markers, else E_MPA_TOO_LONG), every marker
 * (E_MPA_MARKER), and the CRC when crc (E_MPA_CRC). *ulpdu_len receives
 * the ULPDU Length. Cost: O(wire_len).
 */
enum ofl_err ofl_mpa_fpdu_verify(uint32_t pos, bool markers, bool crc,
                                 const uint8_t *wire, size_t wire_len,
                                 const struct ofl_port *port,
                                 uint16_t *ulpdu_len);

/* ofl_mpa_fpdu_verify with the markers, crc and port of a receiver rx
 * (six-argument rule above). */
enum ofl_err ofl_mpa_fpdu_check(const struct ofl_mpa_rx *rx, uint32_t pos,
                                const uint8_t *wire, size_t wire_len,
                                uint16_t *ulpdu_len);

/*
 * Zero-copy access to a verified FPDU: the longest run of ULPDU bytes
 * without a marker inside, starting at ULPDU offset off. *piece points into
 * wire; returns its length (0 when off >= ulpdu_len). An engine places
 * tagged payload straight from the segment by walking off forward.
 * Cost: O(1).
 */
uint32_t ofl_mpa_fpdu_piece(uint32_t pos, bool markers, const uint8_t *wire,
                            uint16_t ulpdu_len, uint32_t off,
                            const uint8_t **piece);

/* ---- DDP and RDMAP ---------------------------------------------------- */

#define OFL_DDP_VERSION 1
#define OFL_RDMAP_VERSION 1
#define OFL_DDP_TAGGED_HDR_LEN 14
#define OFL_DDP_UNTAGGED_HDR_LEN 18
#define OFL_RDMAP_READ_REQ_LEN 28
#define OFL_RDMAP_ATOMIC_REQ_LEN 52
#define OFL_RDMAP_ATOMIC_RESP_LEN 12
#define OFL_RDMAP_IMM_LEN 8
#define OFL_RDMAP_TERM_MAX_LEN (4 + 2 + OFL_DDP_UNTAGGED_HDR_LEN + \
                                OFL_RDMAP_READ_REQ_LEN)
/* Longest ULPDU ofl_rdmap_build writes (an untagged header + the largest
 * fixed body). */
#define OFL_RDMAP_HDR_MAX (OFL_DDP_UNTAGGED_HDR_LEN + OFL_RDMAP_ATOMIC_REQ_LEN)

enum ofl_rdmap_opcode {
    OFL_RDMAP_WRITE = 0x0,
    OFL_RDMAP_READ_REQ = 0x1,
    OFL_RDMAP_READ_RESP = 0x2,
    OFL_RDMAP_SEND = 0x3,
    OFL_RDMAP_SEND_INV = 0x4,
    OFL_RDMAP_SEND_SE = 0x5,
    OFL_RDMAP_SEND_SE_INV = 0x6,
    OFL_RDMAP_TERMINATE = 0x7,
    OFL_RDMAP_IMM = 0x8,        /* RFC 7306 */
    OFL_RDMAP_IMM_SE = 0x9,     /* RFC 7306 */
    OFL_RDMAP_ATOMIC_REQ = 0xA, /* RFC 7306 */
    OFL_RDMAP_ATOMIC_RESP = 0xB /* RFC 7306 */
};

/* Untagged queue numbers (RFC 5040 §5, RFC 7306). */
enum ofl_ddp_qn {
    OFL_DDP_QN_SEND = 0,
    OFL_DDP_QN_READ_REQ = 1,
    OFL_DDP_QN_TERMINATE = 2,
    OFL_DDP_QN_ATOMIC_REQ = 3,
    OFL_DDP_QN_ATOMIC_RESP = 4
};

/* RFC 7306 AtomicOperation codes. */
enum ofl_rdmap_atomic_op {
    OFL_RDMAP_FETCH_ADD = 0x0,
    OFL_RDMAP_SWAP = 0x1,
    OFL_RDMAP_CMP_SWAP = 0x2
};

/* Terminate header-control bits (in struct ofl_rdmap_term.hdrct). */
enum ofl_rdmap_hdrct {
    OFL_RDMAP_HDRCT_M = 0x4, /* DDP Segment Length valid */
    OFL_RDMAP_HDRCT_D = 0x2, /* terminated DDP header included */
    OFL_RDMAP_HDRCT_R = 0x1  /* terminated RDMA Read Request included */
};

/* The DDP header with its RDMAP control. Version fields are written as 1
 * and reported as received. */
struct ofl_ddp_hdr {
    uint8_t tagged;
    uint8_t last;
    uint8_t opcode;      /* enum ofl_rdmap_opcode */
    uint8_t ddp_version;
    uint8_t rdmap_version;
    uint32_t stag;       /* tagged: data sink STag */
    uint64_t to;         /* tagged: tagged offset */
    uint32_t inv_stag;   /* untagged: STag to invalidate (Send with
                            Invalidate; else 0) */
    uint32_t qn;         /* untagged */
    uint32_t msn;
    uint32_t mo;
};

struct ofl_rdmap_read_req {
    uint32_t sink_stag;
    uint64_t sink_to;
    uint32_t size;       /* RDMA Read Message Size */
    uint32_t src_stag;
    uint64_t src_to;
};

struct ofl_rdmap_atomic_req {
    uint8_t op;          /* enum ofl_rdmap_atomic_op */
    uint32_t req_id;
    uint32_t stag;
    uint64_t to;
    uint64_t add_swap;
    uint64_t add_swap_mask;
    uint64_t compare;
    uint64_t compare_mask;
};

struct ofl_rdmap_atomic_resp {
    uint32_t req_id;     /* Original Request Identifier */
    uint64_t orig;       /* Original Remote Data Value */
};

struct ofl_rdmap_term {
    struct ofl_term_cause cause;
    uint8_t hdrct;        /* enum ofl_rdmap_hdrct bits */
    uint8_t ddp_hdr_len;  /* D: 14 or 18 */
    uint16_t seg_len;     /* M: DDP Segment Length */
    uint8_t ddp_hdr[OFL_DDP_UNTAGGED_HDR_LEN]; /* D */
    uint8_t rdmap_hdr[OFL_RDMAP_READ_REQ_LEN]; /* R */
};

/* One DDP segment decoded through RDMAP. */
struct ofl_rdmap_msg {
    struct ofl_ddp_hdr ddp;
    const uint8_t *payload; /* bytes after all headers: the data of Write,
                               Read Response and the Sends (points into the
                               parsed ULPDU; place it from there) */
    uint32_t payload_len;
    union {
        struct ofl_rdmap_read_req read_req;
        struct ofl_rdmap_atomic_req atomic_req;
        struct ofl_rdmap_atomic_resp atomic_resp;
        struct ofl_rdmap_term term;
        uint8_t imm[OFL_RDMAP_IMM_LEN];
    } u;
};

/* Header length (14 or 18) of a DDP segment whose first byte is ctrl. */
static inline uint32_t ofl_ddp_hdr_len(uint8_t ctrl)
{
    return (ctrl & 0x80) ? OFL_DDP_TAGGED_HDR_LEN : OFL_DDP_UNTAGGED_HDR_LEN;
}

/*
 * Decodes one ULPDU: DDP header, RDMAP control, the opcode's fixed body;
 * checks (in this order) length against the DDP header (E_DDP_SHORT), DDP
 * version, RDMAP version, opcode defined and of the right buffer model
 * (E_RDMAP_OPCODE), QN for the opcode (E_DDP_QN), one-segment messages
 * with L set (E_RDMAP_LAST) and MO 0 (E_DDP_MO), exact length of fixed
 * bodies (E_RDMAP_LENGTH), atomic operation (E_RDMAP_ATOMIC_OP), Terminate
 * consistency (E_RDMAP_TERM). On failure *cause (may be NULL) receives the
 * terminate cause and *msg is unspecified. Read-only over ulpdu. Cost:
 * O(1): headers and fixed bodies only.
 */
enum ofl_err ofl_rdmap_parse(const uint8_t *ulpdu, size_t len,
                             struct ofl_rdmap_msg *msg,
                             struct ofl_term_cause *cause);

/*
 * Writes the ULPDU of msg without its payload: the DDP header, and for
 * Read Request, Terminate, Immediate Data and the atomics their fixed body
 * from msg->u. The same consistency rules as ofl_rdmap_parse apply
 * (returning the same errors). *len receives the bytes written (at most
 * OFL_RDMAP_HDR_MAX). The payload of Write, Read Response and the Sends
 * follows as the FPDU builder's payload.
 */
enum ofl_err ofl_rdmap_build(const struct ofl_rdmap_msg *msg, uint8_t *out,
                             size_t cap, size_t *len);

/*
 * Fills a Terminate for cause as RFC 5040 §4 asks, from the ULPDU that
 * caused it (ulpdu may be NULL): for DDP-layer causes and RDMAP causes
 * other than local catastrophic, the DDP header (D) with its segment length
 * (M) when the ULPDU holds a whole header, and for an RDMA Read Request the
 * RDMAP header (R) when it holds one. MPA-layer causes carry none.
 */
void ofl_rdmap_term_fill(struct ofl_rdmap_term *term,
                         struct ofl_term_cause cause, const uint8_t *ulpdu,
                         size_t len);

/* The terminate cause for a wire error; tagged selects the DDP version
 * code. See the table above. */
struct ofl_term_cause ofl_wire_term_cause(enum ofl_err e, bool tagged);

/*
 * Untagged MSN check (RFC 5041 §7): the queue expects MSN expected next
 * and has posted buffers for expected .. expected + posted - 1.
 * E_DDP_MSN_NO_BUFFER when msn lies beyond them (up to 2^31 ahead),
 * E_DDP_MSN_RANGE otherwise.
 */
enum ofl_err ofl_ddp_msn_check(uint32_t expected, uint32_t posted,
                               uint32_t msn);

/*
 * Untagged placement check: a segment of len bytes at message offset mo
 * into a buffer of buf_len bytes. E_DDP_MO when mo > buf_len,
 * E_DDP_TOO_LONG when mo + len > buf_len.
 */
enum ofl_err ofl_ddp_untagged_check(uint32_t mo, uint32_t len,
                                    uint32_t buf_len);

/*
 * Segmentation of one message at the MULPDU (RFC 5041 §5): the first
 * header is the template (tagged: STag and TO of the first byte; untagged:
 * QN, MSN, MO 0); each segment carries at most mulpdu - header bytes of
 * payload, TO or MO advance, and the last segment has L set. A zero-length
 * message is one segment.
 */
struct ofl_ddp_seg {
    struct ofl_ddp_hdr next; /* header of the next segment */
    uint32_t off;            /* message offset of the next segment */
    uint32_t len;            /* message length */
    uint32_t max;            /* payload bytes per segment */
    bool done;
};

/*
 * Starts segmenting a msg_len-byte message of first->opcode (Write, Read
 * Response, the Sends). OFL_E_ARG for another opcode, a
 * mulpdu too small for a header and one byte, or a TO that would wrap.
 */
enum ofl_err ofl_ddp_seg_init(struct ofl_ddp_seg *sg,
                              const struct ofl_ddp_hdr *first,
                              uint32_t msg_len, uint16_t mulpdu);

/* Next segment: returns false when done; else fills *hdr and the payload
 * range [*off, *off + *len) of the message. */
bool ofl_ddp_seg_next(struct ofl_ddp_seg *sg, struct ofl_ddp_hdr *hdr,
                      uint32_t *off, uint32_t *len);
#endif /* OFL_ENABLE_WIRE */

/* ======================================================================== */
/* qp: queue pairs and completion queues                                    */
/* ======================================================================== */
#if OFL_ENABLE_QP
/*
 * Queue pairs and completion queues (seed 000 FIG. 4, 11, 15-18 and claims
 * 1-11; seed 001 "Queue Pairs", "Transport Services", "Remote Memory
 * Protection"; seed 002 descriptors and doorbells; RFC 5040, RFC 5041,
 * RFC 7306; the libibverbs semantics of QP states and completions).
 *
 * Two sides touch a QP:
 *   verbs side    ofl_qp_post_send / ofl_qp_post_recv write a work request
 *                 as a WQE into a ring slot and ring the doorbell through
 *                 the port; ofl_cq_poll takes completions; ofl_qp_modify
 *                 moves the state.
 *   adapter side  ofl_qp_doorbell learns a producer index, ofl_qp_process
 *                 fetches WQEs (by DMA when a ring lives in host memory),
 *                 checks every data segment through the TPT (FIG. 15),
 *                 segments messages into FPDUs at the negotiated MULPDU,
 *                 reads payload by DMA and hands the bytes to the transmit
 *                 callback; ofl_qp_input takes the stream's TCP payload
 *                 (after ofl_qp_demux_input picked the QP by quintuple,
 *                 FIG. 16) and places, answers and completes.
 * Both sides may run in one program over one struct ofl_qp (an emulated
 * device, a test, the posix port) or the verbs side may run on a host that
 * owns the rings while the adapter side runs in firmware; a WQE read from a
 * ring is hostile either way and is fully checked before use. Locking is
 * the caller's: calls on one QP (and on the CQs it shares) are serialised.
 *
 * QP states (IBA vol. 1 §10.3 names; TERMINATE and CLOSING are iWARP's,
 * RDMAC verbs §6.2) and the table ofl_qp_state_next implements. MOD_x is
 * ofl_qp_modify(qp, x); the other events come from the adapter side. "-"
 * is refused with OFL_E_QP_TRANSITION and changes nothing.
 *
 *  from \ event  RESET INIT RTR RTS  SQD  ERROR CLOSING ESTAB SQ_ERR REG_ERR FATAL TERM_RX LLP_CLOSED LLP_LOST
 *  RESET         RESET INIT -   -    -    ERROR -       -     -      -       -     -       -          -
 *  INIT          RESET INIT RTR -    -    ERROR -       RTS   -      -       -     -       -          -
 *  RTR           RESET -    -   RTS' -    ERROR -       RTS   -      -       -     -       -          -
 *  RTS           RESET -    -   RTS  SQD  ERROR CLOSING -     SQE    SQD     TERM  ERROR   ERROR      ERROR
 *  SQD           RESET -    -   RTS  SQD  ERROR CLOSING -     SQE    SQD     TERM  ERROR   ERROR      ERROR
 *  SQE           RESET -    -   RTS  -    ERROR -       -     SQE    SQE     TERM  ERROR   ERROR      ERROR
 *  ERROR         RESET -    -   -    -    ERROR -       -     ERROR  ERROR   ERROR ERROR   ERROR      ERROR
 *  TERMINATE     RESET -    -   -    -    ERROR -       -     TERM   TERM    TERM  ERROR   ERROR      ERROR
 *  CLOSING       RESET -    -   -    -    ERROR CLOSING -     ERROR  ERROR   TERM  ERROR   RESET''    ERROR
 *
 *  ' only for a service without a stream (the datagram kinds RD, UD and
 *    RAW); iWARP and iSCSI QPs reach RTS by ESTAB (ofl_qp_establish).
 *    A datagram QP has no stream: ESTAB, CLOSING and the LLP events are
 *    refused for it (OFL_E_QP_SERVICE, OFL_E_QP_STATE).
 *  '' ERROR instead when a WQE is still outstanding.
 *
 * Events: ESTAB the stream is up (MPA done); SQ_ERR a send WQE failed its
 * local checks before any byte of it reached the wire (the stream is still
 * consistent); REG_ERR a send-queue registration failed under option 1 of
 * seed 000 FIG. 11; FATAL the engine detected a violation or a local
 * failure that breaks the stream, sent a Terminate (iWARP; an iSCSI stream
 * is reset instead) and asked the LLP to close; TERM_RX a Terminate
 * arrived; LLP_CLOSED / LLP_LOST the connection closed gracefully / was
 * reset (ofl_qp_llp_event). A page fault under OFL_QP_FAULT_WAIT is no
 * event: the access waits in the QP's state ("Unpinned pages" below; seed
 * 001 FIG. 17). Option 2 of FIG. 11 is FATAL followed by
 * MOD_ERROR: the Terminate goes out and every other WQE is flushed. When
 * the transmit refuses the Terminate, the QP stays in TERMINATE and the
 * next ofl_qp_process sends it and only then makes MOD_ERROR (entering
 * ERROR aborts a stream, which would lose the Terminate).
 *
 * What entering a state does:
 *   ERROR      every outstanding WQE, send and receive, completes in order
 *              with OFL_WC_WR_FLUSH_ERR (WQEs posted later are flushed by
 *              ofl_qp_process); a live stream is aborted (transmit
 *              callback with OFL_QP_TX_ABORT); one-touch invalidations
 *              still deferred (Table D row 5) are carried out
 *              (ofl_seq_end, ofl_seq_retire).
 *   SQE        the failing WQE completed with its status; every later send
 *              WQE is flushed; receives and inbound requests continue;
 *              MOD_RTS resumes (what was posted before it is flushed).
 *   SQD        MOD_SQD: no new send WQE starts; when nothing is in flight
 *              the OFL_QP_EVT_SQ_DRAINED event is raised. REG_ERR (FIG. 11
 *              option 1): the registration WQE completed with its error,
 *              the send WQEs posted behind it are flushed, receives,
 *              inbound Read Requests, Terminates and the WQEs before it
 *              continue; MOD_RTS resumes with WQEs posted since. Either
 *              way SQ_DRAINED is raised once per entry into SQD.
 *   TERMINATE  the Terminate went out; nothing is sent or placed any more;
 *              the WQE the violation concerned completed with its status;
 *              the rest is flushed when the LLP closes (-> ERROR).
 *   CLOSING    no new send WQE may be posted; posted ones are carried out,
 *              then the LLP is asked to close (OFL_QP_TX_CLOSE).
 *   RESET      everything is discarded without completions (IBA
 *              semantics); rings and sequence numbers start over; the type
 *              2 windows tied to the QP number are invalidated
 *              (ofl_tpt_invalidate_qp: a table sweep), as at
 *              ofl_qp_create. The stream is not aborted: reset a live QP
 *              through ERROR. Remove a QP from a demultiplexer (and a
 *              node) before creating another in its memory.
 *
 * Posting per state: send WQEs in RTS, SQD (queued), SQE, ERROR and
 * TERMINATE (flushed); receive WQEs in INIT, RTR, RTS, SQD, SQE, CLOSING,
 * ERROR and TERMINATE (flushed in the last two). Anything else is
 * OFL_E_QP_STATE and queues nothing.
 *
 * Inbound violations (iWARP). Each sends exactly one Terminate with the
 * cause shown (layer/type/code), moves the QP to TERMINATE and completes
 * the local WQE concerned with the status shown; the other WQEs are
 * flushed when the LLP closes.
 *
 *   violation                             cause             local WQE
 *   MPA CRC, marker, ULPDU too long       2/0/02 2/0/03 1/0/00  -
 *   a DMA failing while placing or
 *         reading for a response          0/0/00            the receive,
 *                                         Read or Atomic placed into:
 *                                         LOC_ACCESS_ERR (a receive WQE
 *                                         unreadable: LOC_QP_OP_ERR)
 *   DDP/RDMAP header malformed            ofl_wire_term_cause    -
 *   Send: MSN beyond the posted receives  1/2/02            -
 *   Send: MSN behind or out of order      1/2/03            -
 *   Send: MO beyond the receive buffer    1/2/04            receive: LOC_LEN_ERR
 *   Send: message longer than the buffer  1/2/05            receive: LOC_LEN_ERR
 *   Send: receive data segment fails
 *         its local checks (FIG. 15)      0/0/00            receive: LOC_PROT_ERR
 *   Send with Invalidate: STag refused    0/1/09 or 0/2/09  receive: REM_INV_REQ_ERR
 *   Write: remote checks (FIG. 18A a-f)   ofl_tpt_term_cause(PLACE)  -
 *   Read Response: its sink fails the
 *         local checks again (FIG. 15;
 *         OFL_QP_READ_SINK_LOCAL)         0/0/00            read:
 *                                                           ofl_tpt_wc_status
 *   Read Response: remote checks (only
 *         OFL_QP_READ_SINK_TAGGED)        ofl_tpt_term_cause(PLACE)
 *                                         read: ofl_tpt_wc_status
 *   tagged segment on a spent one-touch   1/1/00 (Table D row 3)    -
 *   Read Response not matching the
 *         outstanding read (STag, TO)     1/1/00, 1/1/01    read: BAD_RESP_ERR
 *   Read / Atomic Response unexpected     0/2/06            -
 *   Atomic Response: the result buffer
 *         fails its local check again     0/0/00            atomic: LOC_PROT_ERR
 *   Read / Atomic Request: no inbound
 *         slot (IRD), or the MSN skips   1/2/02, 1/2/03    -
 *   Read Request: source STag (18A a-f)   ofl_tpt_term_cause(RDMAP)  -
 *   Read Response: source fails its
 *         check again as it is read       ofl_tpt_term_cause(RDMAP)  -
 *         (the Terminate carries the Read Request, rebuilt: M, D, R)
 *   Atomic Request: target checks         ofl_tpt_term_cause(RDMAP)  -
 *   Atomic Request: target not 8-aligned  0/1/01            -
 *   the in-order FPDU at a Write placed
 *         ahead of a hole is not that
 *         Write, or the stream passes its
 *         first byte inside another FPDU  0/2/07            -
 *   Terminate received                    (none sent)       oldest in-flight
 *                                         send WQE: ofl_qp_term_status (the
 *                                         peer's local catastrophic error:
 *                                         REM_OP_ERR; remote protection and
 *                                         DDP tagged: REM_ACCESS_ERR; remote
 *                                         operation and DDP untagged:
 *                                         REM_INV_REQ_ERR, but 1/2/02 for a
 *                                         Send: RNR_RETRY_EXC_ERR; MPA:
 *                                         FATAL_ERR); a receive holding part
 *                                         of a Send: REM_ABORT_ERR; QP ->
 *                                         ERROR.
 *
 * Two behaviours that Linux siw lacks and offload keeps: an inbound Read
 * Request is served only when its source STag grants remote read (FIG. 18A
 * f), and a Tagged Offset whose access wraps past 2^64 is reported as a TO
 * wrap (RFC 5040 §7.2, RFC 5041 §7.2), not as a bounds error.
 *
 * Sequence space. The engine keeps RCV.NXT of the stream in a struct
 * ofl_seq. An in-order segment (seq == RCV.NXT) is fed to the MPA receiver;
 * a segment behind it is trimmed (duplicate bytes are dropped); a segment
 * ahead of a hole but inside the window is searched for FPDUs with markers
 * (ofl_mpa_locate_segment) and its complete RDMA Write FPDUs are placed at
 * once through the remote checks, every page of the FPDU translated, and
 * the one-touch decision (Table D row 5 for a Last segment; row 3 expires
 * the entry at once, and the in-order stream then terminates at the first
 * FPDU through it that it finds invalid); never through a one-shot key (a
 * message in the hole may spend it: such FPDUs wait for the in-order
 * stream). The TCP layer delivers those bytes again in order
 * later, and the engine recognises the FPDUs it placed (by their first
 * sequence number), verifies the FPDU there is the one it placed (its
 * ULPDU Length and DDP/RDMAP header, struct ofl_qp_ooo; else Terminate
 * 0/2/07, OFL_E_QP_PLACED_MISMATCH: TCP brought other bytes at sequence
 * numbers already taken), does not place it twice, but checks it again
 * (FIG. 18A a-f: a Send with Invalidate earlier in the stream may have
 * ended the STag; the stream is then terminated as it would have been in
 * order) and only then notes the use. The DDP SN of a segment is the sequence number of the last byte
 * of its ULPDU. An FPDU handled in order is NEXT in Table D even when TCP
 * cut it inside its pad or CRC (RCV.NXT then already passed its ULPDU),
 * and an invalidation deferred to it is carried out after its re-check.
 * A placement ahead of the hole that fails records nothing (no Touched
 * bit): the in-order stream places the FPDU. Nor is a Last FPDU to a
 * one-touch entry placed ahead when its deferred invalidation has no free
 * slot in ot_pending (Table D row 5 would place it unrecorded, and a
 * second FPDU to the entry could land before the stream reached the
 * first): it waits for the in-order stream (row 4).
 *
 * One-shot keys (seed 001: disabled once used for an RDMA operation) are
 * spent by the Last segment of a Write (or, under OFL_QP_READ_SINK_TAGGED,
 * a Read Response) placed through them (a zero-length Last segment too
 * when earlier segments of its message were placed through the key; a
 * zero-length message alone uses nothing), by the last Read Response
 * segment sent from a Read source of nonzero length, and by an Atomic
 * executed on their word (a Compare and Swap that did not match used the
 * key too). Likewise a zero-length Last segment ends a one-touch message
 * (Table D row 4) only after such earlier segments.
 *
 * A tagged segment (Write, Read Response) and each Read Response segment
 * read from a Read source is translated whole before any byte of it is
 * placed or read: a page missing anywhere in it gives the cause of its
 * remote check (into a Read's sink under OFL_QP_READ_SINK_LOCAL: 0/0/00),
 * never a partial placement.
 *
 * Completion ordering: send WQEs complete in posting order (a Send after
 * an RDMA Read completes after the Read's response arrived); an
 * unsignalled WQE produces no CQE unless it failed or was flushed. A Send,
 * Write or Immediate Data completes when its last byte was handed to the
 * transmit callback (RFC 5040 gives no acknowledgement); an RD Send of an
 * acknowledged QP when its EE acknowledgement returns ("Channel kinds").
 *
 * Verbs (libibverbs' man pages, the kernel's ib_verbs.h). Where a verbs
 * consumer expects a rule the core keeps it, so a verbs provider over
 * offload translates names and numbers and decides nothing:
 *   - completion statuses are ibv_wc_status / ib_wc_status, value for
 *     value (enum ofl_wc_status);
 *   - QP states RESET .. ERROR have the numbers of enum ibv_qp_state and
 *     ib_qp_state (0 .. 6); TERMINATE and CLOSING are iWARP's and have no
 *     verbs value (7 is IBV_QPS_UNKNOWN): Linux's iWARP drivers (siw,
 *     cxgb4) report them as SQE and SQD;
 *   - a region always grants local read; remote write or atomic needs
 *     local write, for a region and for a window's region (ibv_reg_mr(3),
 *     ibv_bind_mw(3)); a bind of length 0 unbinds;
 *   - a Read's sink needs local write only (enum ofl_qp_read_sink);
 *   - a zero-length data segment is not checked (its STag may be 0);
 *   - SIGNALED, SOLICITED and FENCE mean what IBV_SEND_* do: an
 *     unsignalled WQE completes silently unless it failed or was flushed;
 *     SOLICITED matters for a Send and an Immediate Data message only;
 *     FENCE waits for every earlier Read and Atomic;
 *   - a flush completes every outstanding WQE, signalled or not, in order,
 *     with WR_FLUSH_ERR; a WQE posted in ERROR is flushed;
 *   - a CQ armed for solicited completions fires on a solicited receive or
 *     any unsuccessful completion (ibv_req_notify_cq(3));
 *   - byte_len: bytes received (RECV), sent (SEND, WRITE), read (READ, the
 *     requested size), 8 (atomics), 0 for RECV_IMM; for a local operation
 *     the total of its data segments (0 for a BIND or LOCAL_INV without
 *     any; FAST_REG: its physical buffers). As in verbs, only wr_id,
 *     status, opcode and qpn mean anything in an unsuccessful CQE.
 * Where offload differs on purpose:
 *   - opcodes and CQE flags are offload's own numbers (one enum for work
 *     requests and completions, with iWARP and iSCSI kinds verbs lack). A
 *     CQE's opcode maps to ibv_wc_opcode as SEND, SEND_INV -> IBV_WC_SEND;
 *     WRITE, WRITE_IMM -> IBV_WC_RDMA_WRITE; READ -> IBV_WC_RDMA_READ;
 *     ATOMIC_CSWAP -> IBV_WC_COMP_SWAP; ATOMIC_FADD -> IBV_WC_FETCH_ADD;
 *     BIND -> IBV_WC_BIND_MW; LOCAL_INV -> IBV_WC_LOCAL_INV; FAST_REG ->
 *     IB_WC_REG_MR; RECV -> IBV_WC_RECV; RECV_IMM ->
 *     IBV_WC_RECV_RDMA_WITH_IMM; OFL_CQE_IMM -> IBV_WC_WITH_IMM; OFL_CQE_INV
 *     -> IBV_WC_WITH_INV with stag as invalidated_rkey. OFL_CQE_SOLICITED
 *     has no verbs flag;
 *   - Immediate Data is RFC 7306's 8 bytes (imm), not verbs' 32-bit
 *     imm_data, and is a message of its own on queue 0 after the Write;
 *   - there is no inline send: the engine reads a WQE's payload by DMA
 *     when it runs the WQE, so its buffer may be reused only after the
 *     completion (a provider offering IBV_SEND_INLINE copies the bytes
 *     to a registered buffer of its own first);
 *   - a send WQE that fails its local checks before any byte of it was
 *     sent moves the QP to SQE (receives and inbound requests go on,
 *     MOD_RTS resumes), where IBA moves an RC QP, and siw and rxe move
 *     theirs, to ERROR: the stream is intact, so it is kept. A consumer
 *     that wants IBA RC behaviour modifies the QP to ERROR on the error
 *     CQE;
 *   - every receive WQE's data segments are checked when it is fetched,
 *     not only those a message reaches (siw checks lazily);
 *   - a stream service reaches RTS by ofl_qp_establish (the connection
 *     manager's job in verbs), not by MOD_RTS from RTR; SQ_DRAINED is
 *     raised on every entry into SQD (verbs: if en_sqd_async_notify);
 *   - a bind (type 1 or 2) picks the window's new key itself (the old
 *     one plus one) and returns it in the CQE's stag: a verbs provider
 *     reports that key rather than honouring ibv_bind_mw's rkey request.
 */

#define OFL_QP_WQE_MAX 256  /* largest WQE slot in bytes */
#define OFL_QP_SQ_HDR 80    /* fixed part of a send WQE */
#define OFL_QP_RQ_HDR 16    /* fixed part of a receive WQE */
#define OFL_QP_SGE_LEN 16   /* one data segment in a WQE */
#define OFL_QP_SQ_SGE_MAX ((OFL_QP_WQE_MAX - OFL_QP_SQ_HDR) / OFL_QP_SGE_LEN)
#define OFL_QP_RQ_SGE_MAX ((OFL_QP_WQE_MAX - OFL_QP_RQ_HDR) / OFL_QP_SGE_LEN)
#define OFL_QP_PIECES 8     /* physical pieces per translation step */
#define OFL_ISCSI_BHS_LEN 48

/*
 * ---- WQE byte layouts (the host-ring format) ----------------------------
 *
 * A work queue's ring is depth slots of ofl_qp_ring_size(depth, max_sge,
 * send) / depth bytes (the stride: the WQE's fixed part plus max_sge data
 * segments, rounded up to a power of two). The verbs post calls write
 * slots in this format; when ofl_qp_mem.sq_host / rq_host is set the ring
 * lives in host (guest) memory, a host driver writes the slots itself
 * (ofl_qp_wqe_send / ofl_qp_wqe_recv, or by hand from these tables), and
 * the engine fetches them by DMA (seed 000 FIG. 4: the WQE in the
 * consumer's queue; seed 002: descriptors the host places in memory and
 * announces by doorbell). Every multi-byte field is little-endian, at the
 * offset given, with no alignment assumed. The engine treats every byte of
 * a host slot as hostile: each field is checked when the WQE is fetched
 * (as ofl_qp_post_send checks a work request), a bad one completes the WQE
 * in error (OFL_E_QP_WQE, a local QP operation error) and no byte of its
 * buffers is touched.
 *
 * Ownership. A WQE slot has no owner bit: the producer index the host
 * writes to the queue's doorbell (ofl_qp_doorbell) hands slots
 * [old, value) to the engine, and a slot returns to the host when its
 * completion is reaped (ofl_qp_sq_outstanding counts them). The host MUST
 * finish writing a slot, then issue a release barrier, then ring.
 *
 *   send WQE (OFL_QP_SQ_HDR = 80 bytes, then num_sge data segments)
 *   off size field
 *   0   u8   opcode (enum ofl_qp_opcode, SEND .. ISCSI_PDU)
 *   1   u8   flags (OFL_QP_WR_SIGNALED, _SOLICITED, _FENCE, _SILENT)
 *   2   u8   num_sge (<= the QP's sq_max_sge)
 *   3   u8   reserved, 0
 *   4   u32  stag: SEND_INV the STag to invalidate at the peer; LOCAL_INV
 *            the STag; BIND the window; FAST_REG, REG_SEND the region
 *   8   u64  wr_id, returned in the CQE
 *   16  u64  remote TO (WRITE, READ, atomics); BIND, FAST_REG, REG_SEND:
 *            the va; DELAY: the ticks; ISCSI_CMD: the command ID
 *   24  u32  remote STag (WRITE, READ, atomics); BIND: the region STag;
 *            FAST_REG, REG_SEND, ISCSI_CMD: the ATT base
 *   28  u32  FAST_REG, REG_SEND: the ATT count; BIND: access | flags << 8;
 *            ISCSI_CMD: the page shift
 *   32  48   opcode words: WRITE_IMM the immediate data u64; atomics the
 *            atomic[0..3] u64 at 32, 40, 48, 56 (RFC 7306 Add/Swap
 *            Data, Add/Swap Mask, Compare Data, Compare Mask, as struct
 *            ofl_qp_wr); BIND, FAST_REG, REG_SEND the length u64
 *            (FAST_REG, REG_SEND: 40 fpo u32, 44 page_shift u8, 45
 *            att_kind u8, 46 access u8, 47 flags u8); ISCSI_*: the BHS;
 *            datagram SEND: 32 dest.addr u32, 36 dest.ee u32, 40 dest.qpn
 *            (RD atomics, whose operands fill 32 .. 63: 64 dest.addr,
 *            68 dest.ee, 72 dest.qpn)
 *   80  16*n data segments
 *
 *   receive WQE (OFL_QP_RQ_HDR = 16 bytes, then num_sge data segments)
 *   0   u64  wr_id
 *   8   u8   num_sge (<= the QP's rq_max_sge)
 *   9   7    reserved, 0
 *   16  16*n data segments
 *
 *   data segment (OFL_QP_SGE_LEN = 16 bytes)
 *   0   u64  address (the region's va space)
 *   8   u32  length (a WQE's segments add up to less than 2^31)
 *   12  u32  local STag (lkey)
 */
#define OFL_SWQE_OPCODE 0
#define OFL_SWQE_FLAGS 1
#define OFL_SWQE_NUM_SGE 2
#define OFL_SWQE_STAG 4
#define OFL_SWQE_WR_ID 8
#define OFL_SWQE_REMOTE_TO 16
#define OFL_SWQE_REMOTE_STAG 24
#define OFL_SWQE_WORD 28
#define OFL_SWQE_EXT 32
#define OFL_SWQE_IMM 32
#define OFL_SWQE_ATOMIC 32  /* four u64 operands */
#define OFL_SWQE_DG_ADDR 32
#define OFL_SWQE_DG_EE 36
#define OFL_SWQE_DG_QPN 40
#define OFL_SWQE_DG_ATOMIC_ADDR 64 /* RD atomics: after the operands */
#define OFL_SWQE_DG_ATOMIC_EE 68
#define OFL_SWQE_DG_ATOMIC_QPN 72
#define OFL_SWQE_SGE OFL_QP_SQ_HDR
#define OFL_RWQE_WR_ID 0
#define OFL_RWQE_NUM_SGE 8
#define OFL_RWQE_SGE OFL_QP_RQ_HDR
#define OFL_WQE_SGE_ADDR 0
#define OFL_WQE_SGE_LEN 8
#define OFL_WQE_SGE_STAG 12

enum ofl_qp_state {
    OFL_QP_RESET = 0,
    OFL_QP_INIT,
    OFL_QP_RTR,
    OFL_QP_RTS,
    OFL_QP_SQD,
    OFL_QP_SQE,
    OFL_QP_ERROR,
    OFL_QP_TERMINATE,
    OFL_QP_CLOSING,
    OFL_QP_STATES
};

/* The columns of the state table. */
enum ofl_qp_event {
    OFL_QP_EV_MOD_RESET = 0,
    OFL_QP_EV_MOD_INIT,
    OFL_QP_EV_MOD_RTR,
    OFL_QP_EV_MOD_RTS,
    OFL_QP_EV_MOD_SQD,
    OFL_QP_EV_MOD_ERROR,
    OFL_QP_EV_MOD_CLOSING,
    OFL_QP_EV_ESTABLISH,
    OFL_QP_EV_SQ_ERROR,
    OFL_QP_EV_REG_ERROR,
    OFL_QP_EV_FATAL,
    OFL_QP_EV_TERM_RX,
    OFL_QP_EV_LLP_CLOSED,
    OFL_QP_EV_LLP_LOST,
    OFL_QP_EVENTS
};

/*
 * Transport service, fixed at creation (seed 001 "Transport Services":
 * "When a QP is created, the QP is set to provide a selected type of
 * transport service"). Values 1-15 are the connected kinds, 16 up the
 * connectionless ones (see "Channel kinds" below); any other value is
 * refused with OFL_E_QP_SERVICE.
 */
enum ofl_qp_service {
    OFL_QP_SVC_IWARP = 1, /* reliable connection: RDMAP/DDP/MPA over TCP */
    OFL_QP_SVC_ISCSI = 2, /* iSCSI 1.0 initiator over TCP (FIG. 17A/17B) */
    OFL_QP_SVC_RD = 16,   /* reliable datagram: any QP of any node through
                             the node's shared EE context */
    OFL_QP_SVC_UD = 17,   /* unreliable datagram: single frames, no
                             acknowledgement */
    OFL_QP_SVC_RAW = 18   /* raw datagram: IPv6 frames untouched, steered
                             by next header and destination address */
};

/* Work request and completion opcodes. */
enum ofl_qp_opcode {
    OFL_QP_OP_SEND = 1,        /* Send (with SE when OFL_QP_WR_SOLICITED) */
    OFL_QP_OP_SEND_INV,        /* Send with Invalidate of wr.stag at the peer */
    OFL_QP_OP_WRITE,           /* RDMA Write */
    OFL_QP_OP_WRITE_IMM,       /* RDMA Write, then RFC 7306 Immediate Data */
    OFL_QP_OP_READ,            /* RDMA Read (one sink segment, or none) */
    OFL_QP_OP_ATOMIC_FADD,     /* RFC 7306 Fetch and Add */
    OFL_QP_OP_ATOMIC_CSWAP,    /* RFC 7306 Compare and Swap */
    OFL_QP_OP_BIND,            /* Bind (or unbind) a memory window */
    OFL_QP_OP_FAST_REG,        /* register a region through the SQ
                                  (FIG. 11; needs attr.sq_reg) */
    OFL_QP_OP_LOCAL_INV,       /* Local Invalidate */
    OFL_QP_OP_DELAY,           /* hold later WQEs for wr.imm ticks (seed 001) */
    OFL_QP_OP_REG_SEND,        /* register, then Send (seed 000 claim 1) */
    OFL_QP_OP_ISCSI_CMD,       /* iSCSI command with its data buffers */
    OFL_QP_OP_ISCSI_PDU,       /* any other iSCSI PDU the consumer built */
    /* completion-only opcodes */
    OFL_QP_OP_RECV,            /* a Send was received */
    OFL_QP_OP_RECV_IMM,        /* RFC 7306 Immediate Data was received:
                                  it consumed a receive WQE (queue 0 and
                                  its MSN), placed nothing, and its 8
                                  bytes are in the CQE's imm */
    OFL_QP_OP_ISCSI_RESP,      /* iSCSI: a response for command wc.imm */
    OFL_QP_OP_ISCSI_RECV       /* iSCSI: a PDU for the consumer */
};

/* Work request flags. */
enum ofl_qp_wr_flag {
    OFL_QP_WR_SIGNALED = 0x01,  /* produce a CQE on success */
    OFL_QP_WR_SOLICITED = 0x02, /* Send / Immediate Data with SE */
    OFL_QP_WR_FENCE = 0x04,     /* start only when no Read or Atomic is
                                   outstanding */
    OFL_QP_WR_SILENT = 0x08     /* no CQE when it fails or is flushed,
                                   signaled or not: work the port posts
                                   for itself, which its consumer never
                                   posted (unsignaled as well, it never
                                   completes into the CQ) */
};

/* A data segment: STag, VA (TO) and length (FIG. 15). For FAST_REG and
 * ISCSI_CMD a physical buffer instead: addr = physical address, stag
 * unused. */
struct ofl_qp_sge {
    uint64_t addr;
    uint32_t len;
    uint32_t stag;
};

/*
 * A send work request. Fields an opcode does not name are ignored.
 *   SEND, SEND_INV   sge; stag: the STag the peer invalidates (SEND_INV)
 *   WRITE, WRITE_IMM sge, remote_stag, remote_to; imm (WRITE_IMM)
 *   READ             sge (0 or 1, the sink), remote_stag, remote_to
 *   ATOMIC_*         sge (one 8-byte result buffer), remote_stag,
 *                    remote_to (8-byte aligned), atomic[0..3] = RFC 7306
 *                    Add/Swap Data, Add/Swap Mask, Compare Data, Compare
 *                    Mask (Fetch and Add with mask 0 is a plain add; a set
 *                    Add Mask bit ends a field: no carry out of it). Target
 *                    and result are little-endian 64-bit words in host
 *                    memory, on both sides
 *   BIND             stag (window), bind.*; len 0 unbinds
 *   FAST_REG         stag (allocated region, next key), reg; with sge the
 *                    physical buffers whose pages the engine writes into
 *                    the ATT at reg.att_base (len, fpo and att_count are
 *                    derived); without, the ATT slots are already written
 *   REG_SEND         stag, reg (ATT already written), then sge as a Send
 *   LOCAL_INV        stag
 *   DELAY            imm: ticks of the `now` given to ofl_qp_process
 *   ISCSI_CMD        bhs (the SCSI Command PDU; the engine writes the ITT),
 *                    stag (an allocated OFL_TPT_ISCSI entry: the ITT),
 *                    reg.att_base and reg.page_shift, sge: the command's
 *                    data buffers as physical buffers; a command without
 *                    data (TEST UNIT READY, say) has num_sge 0, and reg is
 *                    then unused: its entry describes no data, and its
 *                    SCSI Response still completes as ISCSI_RESP
 *   ISCSI_PDU        bhs (DataSegmentLength is set from the sge total), sge
 * With an owner table (ofl_tpt_att_owners), a FAST_REG, REG_SEND or
 * ISCSI_CMD naming ATT slots another entry owns completes with
 * OFL_WC_LOC_PROT_ERR (OFL_E_TPT_ATT_OWNED) and writes nothing.
 * iSCSI mode sends no immediate or unsolicited data (InitialR2T=Yes,
 * ImmediateData=No) and uses no header or data digests; the engine writes
 * ExpStatSN into every PDU it sends: one past the StatSN of the last target
 * PDU that advanced it (RFC 3720 §3.2.2.2: every response, Data-In with
 * status, a NOP-In answering a ping; not a SCSI Response dropped for its
 * ITT, and never backwards in serial arithmetic). An R2T is answered only
 * while its command lives: the command's end (its response) drops its
 * R2Ts still queued, and each Data-Out checks the ITT again (FIG. 17B a-g;
 * a failure breaks the stream). So does each piece of a Data-In placed
 * through the ITT, which must still name the command its header named;
 * a response whose command ended while it arrived is handed over flagged
 * OFL_CQE_ISCSI_CHECK and ends nothing (the tag may be another's by then). R2Ts of length 0 or past 2^32 of buffer offset, and
 * Data-In with S but not F, are handed over flagged OFL_CQE_ISCSI_CHECK.
 * The ITT is an STag of the QP's PD that names a task of this QP only (RFC
 * 3720 connection allegiance: a task's PDUs come on the connection its
 * command went on): the command's entry records the QP number
 * (ofl_tpt_register_iscsi), so QPs sharing a TPT MUST have distinct numbers
 * (as type 2 windows need too). A PDU naming another QP's task names no task
 * of this one and is treated as any ITT that fails FIG. 17B: a Data-In or
 * R2T goes to the receive queue flagged OFL_CQE_ISCSI_CHECK (nothing placed,
 * no Data-Out), a SCSI Response is dropped (FIG. 17A step 1768); the other
 * QP's command is not touched. The QP's RESET, or a QP created under its
 * number, invalidates the entries of its commands still live
 * (ofl_tpt_invalidate_qp).
 */
struct ofl_qp_wr {
    uint64_t wr_id;
    const struct ofl_qp_sge *sge;
    uint32_t num_sge;
    uint8_t opcode;        /* enum ofl_qp_opcode */
    uint8_t flags;         /* enum ofl_qp_wr_flag */
    uint32_t stag;
    uint32_t remote_stag;
    uint64_t remote_to;
    uint64_t imm;
    uint64_t atomic[4];
    struct ofl_tpt_region_desc reg;
    struct {
        uint64_t va;
        uint64_t len;
        uint32_t region_stag;
        uint8_t access;    /* remote rights */
        uint8_t flags;     /* OFL_TPT_F_ONE_TOUCH, OFL_TPT_F_ONE_SHOT */
    } bind;
    uint8_t bhs[OFL_ISCSI_BHS_LEN];
    struct {               /* SEND on a datagram QP (seed 002: "the
                              descriptor ... include a field that
                              specifies the destination") */
        uint32_t addr;     /* UD: destination node address */
        uint32_t ee;       /* RD: index of the EE context in the QP's
                              node (the remote node's: where
                              ofl_qp_node_ee_place put it) */
        uint32_t qpn;      /* UD, RD: destination QP number */
    } dest;
};

/* A receive work request: a scatter list (FIG. 4 receive WQE). */
struct ofl_qp_recv_wr {
    uint64_t wr_id;
    const struct ofl_qp_sge *sge;
    uint32_t num_sge;
};

/* ---- completion queues ------------------------------------------------ */

/* CQE flags. */
enum ofl_cqe_flag {
    OFL_CQE_IMM = 0x01,       /* imm is valid */
    OFL_CQE_INV = 0x02,       /* the peer invalidated stag (Send with Inv.) */
    OFL_CQE_SOLICITED = 0x04, /* the message carried the SE bit */
    OFL_CQE_ISCSI_CHECK = 0x08, /* iSCSI: a Data-In or R2T that failed
                                  checks a-g of FIG. 17B, or that could
                                  not be acted on (an R2T beyond IRD, a
                                  transfer RFC 3720 forbids), handed over
                                  as is */
    OFL_CQE_SRC = 0x10        /* RD, UD receive: src_addr and src_qpn are
                                 valid */
};

/* A completion (IBA work completion; status as enum ofl_wc_status). */
struct ofl_cqe {
    uint64_t wr_id;
    uint64_t imm;       /* RECV_IMM: the 8 bytes of RFC 7306 Immediate Data
                           (big-endian on the wire, as a number here);
                           ISCSI_*: the command ID */
    uint32_t byte_len;  /* bytes placed (receives, reads) or sent */
    uint32_t qpn;
    uint32_t stag;      /* OFL_CQE_INV: the STag the peer invalidated;
                           BIND: the STag to advertise; FAST_REG,
                           REG_SEND: the STag registered */
    uint8_t opcode;     /* enum ofl_qp_opcode */
    uint8_t status;     /* enum ofl_wc_status */
    uint8_t flags;      /* enum ofl_cqe_flag */
    uint8_t reserved;
    uint32_t src_addr;  /* OFL_CQE_SRC: the sender's node address */
    uint32_t src_qpn;   /* OFL_CQE_SRC: the sender's QP number */
};

/* Arming (IBA "request completion notification"). */
enum ofl_cq_arm {
    OFL_CQ_ARM_NONE = 0,
    OFL_CQ_ARM_SOLICITED = 1, /* the next solicited or failed completion */
    OFL_CQ_ARM_ANY = 2        /* the next completion */
};

/*
 * A completion queue shared by any number of QPs (FIG. 4: one point of
 * completion notification). Caller ring of cap CQEs (a power of two).
 * When a CQE is added and the CQ is armed for it, the port's notify hook
 * is called with vector and the CQ disarms. A CQE added to a full CQ is
 * lost: the CQ becomes overrun for good (IBA CQ overrun) and ofl_cq_poll
 * reports it. Size a CQ for the depths of the queues that share it.
 */
struct ofl_cq {
    struct ofl_cqe *ring;
    const struct ofl_port *port;
    uint32_t cap;
    uint32_t pi;        /* CQEs produced */
    uint32_t ci;        /* CQEs consumed */
    uint32_t vector;
    uint8_t arm;        /* enum ofl_cq_arm */
    uint8_t overrun;
    uint8_t hooks;      /* a speed build: the port's hooks it calls
                           (barrier), found at ofl_cq_init */
    uint8_t reserved;
};

/* Initialises cq over ring[cap] (cap a power of two, 1 .. 2^24). port may
 * be NULL (no notification). */
enum ofl_err ofl_cq_init(struct ofl_cq *cq, struct ofl_cqe *ring, uint32_t cap,
                         const struct ofl_port *port, uint32_t vector);

/* Takes up to max CQEs into out[] in completion order; *n receives how
 * many. OFL_E_QP_CQ_OVERRUN once a CQE was lost (after the ones present
 * were taken). */
enum ofl_err ofl_cq_poll(struct ofl_cq *cq, struct ofl_cqe *out, uint32_t max,
                         uint32_t *n);

/* Arms the CQ (enum ofl_cq_arm): the next matching CQE raises the event. */
enum ofl_err ofl_cq_arm(struct ofl_cq *cq, enum ofl_cq_arm arm);

/* CQEs waiting in cq. */
uint32_t ofl_cq_count(const struct ofl_cq *cq);

/* ---- completion queues in host memory ---------------------------------- */
/*
 * A host CQ (struct ofl_hcq, the device side) is a ring of cap CQEs of
 * OFL_HCQE_LEN bytes in host (guest) memory that the engine writes only
 * by DMA through the port, as an RNIC writes its completion queue (seed
 * 000 FIG. 4: the CQ in host memory the consumer polls; seed 002: the
 * adapter writes completion descriptors and the host reaps them). The
 * engine's QPs still complete into a struct ofl_cq (the staging CQ, in
 * device memory, arm NONE); ofl_hcq_flush moves its CQEs into the host
 * ring in order. The host side (struct ofl_hcq_host) reaps with plain
 * loads and an acquire barrier, as ofl_dt_host does.
 *
 * CQE wire format (OFL_HCQE_LEN = 64 bytes, little-endian):
 *   off size field
 *   0   u64  wr_id
 *   8   u64  imm (RECV_IMM: the Immediate Data; ISCSI_*: the command ID)
 *   16  u32  byte_len (< 2^31)
 *   20  u32  qpn
 *   24  u32  stag (OFL_CQE_INV, BIND, FAST_REG, REG_SEND; else 0)
 *   28  u32  src_addr (OFL_CQE_SRC; else 0)
 *   32  u32  src_qpn (OFL_CQE_SRC; else 0)
 *   36  u8   opcode (enum ofl_qp_opcode)
 *   37  u8   status (enum ofl_wc_status)
 *   38  u8   flags (enum ofl_cqe_flag)
 *   39  24   reserved, 0
 *   63  u8   owner: bit 0 the phase, bits 1-7 reserved, 0
 *
 * Phase. The host zeroes the ring before ofl_hcq_init. CQE number n (n
 * counts from 0, free-running) goes to slot n & (cap - 1) with phase bit
 * ((n / cap) + 1) & 1: 1 on the first pass, 0 on the second, and so on.
 * The host's next CQE is there when the slot at its consumer index ci
 * carries ci's phase. The engine writes bytes 0..62, issues a release
 * barrier (port barrier hook), then writes byte 63 alone: a host that saw
 * the phase and then issued an acquire barrier reads a whole CQE.
 *
 * Consumer index. The engine may write CQE n only while n - ci < cap,
 * where ci is the host's consumer index (CQEs the host reaped, free
 * running), learnt either from a doorbell (ofl_hcq_set_ci) or, when
 * cfg.ci_dma is set, by DMA from the u32 (little-endian) at cfg.ci_pa,
 * which ofl_hcq_flush reads when it finds the ring full. A consumer index
 * is hostile: one that moves backwards or past the CQEs written is
 * refused (OFL_E_QP_HCQ_CI) and the old one kept.
 *
 * Overflow (IBA CQ overrun, as ofl_cq): a CQE that finds the ring full is
 * lost, the host CQ is overrun for good, and ofl_hcq_flush returns
 * OFL_E_QP_HCQ_OVERRUN with the lost CQE's QP number; the device calls
 * ofl_qp_cq_overrun on every QP of the CQ (the async error
 * OFL_QP_EVT_CQ_OVERRUN, the QP to ERROR). Later CQEs are dropped too.
 *
 * Interrupts. ofl_hcq_arm (the host's request for notification, a
 * doorbell in a real device) arms for the next CQE (OFL_CQ_ARM_ANY) or
 * the next solicited or failed one (OFL_CQ_ARM_SOLICITED). While armed,
 * each matching CQE written counts; the port's notify hook is called with
 * cfg.vector, and the CQ disarms, when the count reaches cfg.mod_count or
 * when cfg.mod_time has passed since the first counted CQE (checked by
 * ofl_hcq_flush and ofl_hcq_tick with the caller's now; mod_time 0: no
 * time limit). mod_count 1 is the verbs behaviour (one CQE, one event).
 *
 *   host CQ (device side)        set_ci / ci DMA   flush (a CQE)   arm
 *   ring has room                advance           write, count    arm
 *   ring full                    advance           overrun, lost   arm
 *   overrun                      ignored           lost            arm
 *
 * Context: the device side belongs to whoever runs the engine; the host
 * side to the host driver's completion context.
 */
#define OFL_HCQE_LEN 64
#define OFL_HCQE_WR_ID 0
#define OFL_HCQE_IMM 8
#define OFL_HCQE_BYTE_LEN 16
#define OFL_HCQE_QPN 20
#define OFL_HCQE_STAG 24
#define OFL_HCQE_SRC_ADDR 28
#define OFL_HCQE_SRC_QPN 32
#define OFL_HCQE_OPCODE 36
#define OFL_HCQE_STATUS 37
#define OFL_HCQE_FLAGS 38
#define OFL_HCQE_RESERVED 39 /* 24 bytes, 0 */
#define OFL_HCQE_OWNER 63
#define OFL_HCQE_PHASE 0x01u

/* Configuration of a host CQ. */
struct ofl_hcq_cfg {
    uint64_t ring_pa;   /* cap * OFL_HCQE_LEN bytes of host memory, zeroed */
    uint64_t ci_pa;     /* ci_dma: the host's consumer index, u32 LE */
    uint64_t mod_time;  /* interrupt at most this long (in now units)
                           after the first counted CQE; 0: no limit */
    uint32_t cap;       /* a power of two, 1 .. 2^24 */
    uint32_t vector;    /* for the port's notify hook */
    uint32_t mod_count; /* interrupt after this many counted CQEs, >= 1 */
    uint8_t ci_dma;     /* 1: read the consumer index at ci_pa by DMA */
    uint8_t reserved[3];
};

/* The device side of a host CQ (caller memory; ofl_hcq_init fills it). */
struct ofl_hcq {
    struct ofl_hcq_cfg cfg;
    const struct ofl_port *port;
    uint64_t mod_since; /* now of the first counted CQE */
    uint32_t pi;        /* CQEs written */
    uint32_t ci;        /* the host's consumer index, as last learnt */
    uint32_t mod_pending; /* counted CQEs since arming */
    uint32_t lost;      /* CQEs lost to overrun */
    uint32_t notifies;  /* interrupts raised */
    uint8_t arm;        /* enum ofl_cq_arm */
    uint8_t overrun;
    uint8_t reserved[2];
};

/* Initialises h for the ring cfg describes. The port MUST have dma_write
 * (and dma_read when cfg->ci_dma). OFL_E_ARG for a bad cfg or a NULL
 * port, OFL_E_PORT_VERSION or OFL_E_PORT_HOOK for a port that cannot. */
enum ofl_err ofl_hcq_init(struct ofl_hcq *h, const struct ofl_port *port,
                          const struct ofl_hcq_cfg *cfg);

/* The host's consumer index from a doorbell: OFL_E_QP_HCQ_CI (and the old
 * one kept) when it moves backwards or past the CQEs written. */
enum ofl_err ofl_hcq_set_ci(struct ofl_hcq *h, uint32_t ci);

/* Arms h (enum ofl_cq_arm; NONE disarms); the moderation count restarts. */
enum ofl_err ofl_hcq_arm(struct ofl_hcq *h, enum ofl_cq_arm arm);

/* Writes one CQE e into the host ring (the format above, the phase byte
 * last after a release barrier), then applies arming and moderation at
 * now. OFL_E_QP_HCQ_OVERRUN when the ring is full (e is lost) or was
 * overrun; OFL_E_PORT_DMA (h unchanged) when a DMA failed. */
enum ofl_err ofl_hcq_put(struct ofl_hcq *h, const struct ofl_cqe *e,
                         uint64_t now);

/* Moves every CQE of the staging CQ cq into the host ring, in order, as
 * ofl_hcq_put. *moved receives the CQEs written. A lost CQE does not stop
 * the flush: the result is then OFL_E_QP_HCQ_OVERRUN and *lost_qpn (when
 * not NULL) the QP number of the last lost CQE. OFL_E_PORT_DMA stops it
 * with the CQE kept in cq. Bounded by cq's capacity. */
enum ofl_err ofl_hcq_flush(struct ofl_hcq *h, struct ofl_cq *cq,
                           uint64_t now, uint32_t *moved,
                           uint32_t *lost_qpn);

/* Time moderation without new CQEs: raises the interrupt when armed CQEs
 * have waited cfg.mod_time. */
enum ofl_err ofl_hcq_tick(struct ofl_hcq *h, uint64_t now);

/* Encodes e as a 64-byte CQE with phase bit phase (0 or 1) into
 * out[OFL_HCQE_LEN] (what ofl_hcq_put writes). */
void ofl_hcqe_encode(uint8_t *out, const struct ofl_cqe *e, uint8_t phase);

/* The host side: the ring as the host sees it, plain memory. */
struct ofl_hcq_host {
    uint8_t *ring;               /* cap * OFL_HCQE_LEN bytes */
    uint8_t *ci_loc;             /* where the consumer index is published
                                    (4 bytes, LE) for ci_dma; may be NULL */
    const struct ofl_port *port; /* barriers; may be NULL */
    uint32_t cap;
    uint32_t ci;                 /* CQEs reaped (free-running) */
    uint32_t bad;                /* malformed CQEs met */
};

/* Initialises hh over ring (cap a power of two 1 .. 2^24) and zeroes the
 * ring and *ci_loc. The device side MUST be initialised after this. */
enum ofl_err ofl_hcq_host_init(struct ofl_hcq_host *hh, void *ring,
                               uint32_t cap, void *ci_loc,
                               const struct ofl_port *port);

/*
 * Reaps up to max CQEs into out[]; *n receives how many. Plain loads: the
 * phase byte of the slot at ci first, then an acquire barrier, then the
 * rest. The CQE memory is untrusted: a CQE with a reserved bit or byte set
 * or an opcode, status, flags or byte_len outside the enums and limits
 * stops the reap with OFL_E_QP_HCQ_CQE (counted in hh->bad, the CQE not
 * consumed: the device is broken, the host resets it). After the CQEs
 * taken, a full barrier, then ci is published at ci_loc. OFL_OK with *n 0
 * when the ring is empty. Cost: O(max).
 */
enum ofl_err ofl_hcq_reap(struct ofl_hcq_host *hh, struct ofl_cqe *out,
                          uint32_t max, uint32_t *n);

/* Decodes and checks one CQE (the reaper's rule, phase byte excluded
 * from the result): OFL_OK or OFL_E_QP_HCQ_CQE. */
enum ofl_err ofl_hcqe_decode(const uint8_t *in, struct ofl_cqe *e);

/* ---- queue pairs ------------------------------------------------------- */

/* The TCP quintuple of FIG. 16 (transport type, destination and source
 * port, destination and source address) as it appears on a segment that
 * arrives for the QP: src is the peer. */
struct ofl_qp_tuple {
    uint8_t transport;     /* IP protocol number: 6 TCP (17 UDP, 132 SCTP) */
    uint8_t family;        /* 4 or 6 */
    uint16_t src_port;
    uint16_t dst_port;
    uint8_t src_addr[16];  /* IPv4: the first 4 bytes, the rest zero */
    uint8_t dst_addr[16];
};

/* The payload of one inbound TCP segment. */
struct ofl_qp_seg {
    struct ofl_qp_tuple tuple; /* read by ofl_qp_demux_input only */
    uint32_t seq;              /* sequence number of data[0] */
    const uint8_t *data;
    uint32_t len;
};

/* The least payload of an FPDU that goes through the fused hooks. */
#define OFL_QP_FUSE_MIN 256u

/* Transmit flags. */
enum ofl_qp_tx_flag {
    OFL_QP_TX_MORE = 0x1,  /* more bytes of the same message follow */
    OFL_QP_TX_CLOSE = 0x2, /* close the stream after these bytes (graceful) */
    OFL_QP_TX_ABORT = 0x4  /* reset the stream now (len is 0) */
};

/*
 * The whole-message paths (issue 30, "a fast path for the common
 * message"; a speed build only, OFL_FAST_PATH: a size build has none of
 * this and adds no byte). On an iWARP stream the engine takes the common
 * message in one call on each side, the general path taking everything
 * else, with the same checks in the same order and the same results:
 *   post     ofl_qp_post_send of a Send, Send with Invalidate or RDMA
 *            Write of at most one data segment on an iWARP QP: its checks
 *            and the WQE's stores in a straight line (no loop, no opcode
 *            switch).
 *   send     ofl_qp_process, the SQ's next WQE of a ring in adapter memory
 *            (not sq_host) on a stream without markers or attr.tx_reserve: a
 *            Send, Send with Invalidate or RDMA Write whose message fits one
 *            FPDU, or has one data segment, and goes by the copy (below
 *            OFL_QP_FUSE_MIN with the fused hooks or transmit by reference).
 *            Its fields are read where they lie, its data segments checked
 *            (FIG. 15; one segment of one FPDU: its check and translation in
 *            one look-up), each header built in place, the payload gathered,
 *            framed and transmitted (each FPDU after the first counted
 *            against the budget, as the general path's, and its slice checked
 *            again only if its region's generation moved since the segment's
 *            check: a region's answer to FIG. 15 changes only with it, so no
 *            verb the transmit callback runs goes unseen), and the WQE done,
 *            with no undo state. When it is the oldest WQE not yet retired
 *            and its send CQ has room and is not armed, it is retired in the
 *            step (its CQE when signaled) instead of at the end of the call:
 *            the same CQEs in the same order, no overrun and no notify inside
 *            the step; a later WQE of the same call that takes the QP to
 *            ERROR finds this CQE out already (a tracked one comes with the
 *            next call's flush). A refused gather or transmission, or the
 *            budget's end, leaves the WQE fetched and begun as the general
 *            path has it after the same FPDUs, which retries, fails or goes
 *            on as always.
 *   receive  an in-order FPDU that is a Send or Send with SE with Last
 *            set, MO 0 and the MSN expected, no Send being received, into
 *            the next receive WQE of a ring in adapter memory (not
 *            rq_host) that holds its payload, on a QP that does not wait
 *            on unpinned pages: header read at fixed offsets, the WQE
 *            where it lies, the same scatter (one data segment: its one
 *            round in place) and completion. When the FPDU lies whole in
 *            the bytes fed, between FPDUs, on a stream without markers,
 *            with nothing placed ahead of a hole and no one-touch
 *            invalidation pending, it is taken in one call from those
 *            bytes (as a Write below: length, CRC and the Send's checks
 *            first, then the placement and RCV.NXT over the FPDU);
 *            anything refused is declined untouched to the general path.
 *   write    an RDMA Write FPDU that lies whole in the bytes fed, in
 *            order, between FPDUs, on a stream without markers, with
 *            nothing placed ahead of a hole and no one-touch invalidation
 *            pending, with a payload that the fused hook does not take
 *            and its CRC right: FIG. 18A a-f over the whole payload and
 *            every page translated, then placed, in one call from the
 *            stream's bytes (not a Last segment through a one-touch
 *            entry: Table D stays with the general path). A region (not
 *            a window) that FIG. 18A granted at one FPDU is kept for the
 *            same STag's next FPDU of the message while its generation
 *            holds: only its bounds are tested again (a region's other
 *            answers move with its generation, see the TPT's state
 *            table); any FPDU the general path places and every Last
 *            drop it. Anything the
 *            checks refuse is declined untouched and refused by the
 *            general path, which names the error.
 *   further  a message of several FPDUs (the general path's): after its
 *            first FPDU the next ones go out in the same step while
 *            ofl_qp_process's budget lasts, each counted against it as a
 *            transmission, instead of one round through ofl_qp_process
 *            per FPDU.
 * The stream's eligibility is fixed at ofl_qp_establish, with the other
 * data paths. tests/check_fastpath.sh runs the same hostile traffic
 * (refused keys, bounds, pages made absent, DMA failures, refused
 * transmissions, fences, pages waited on) through a speed build and a
 * build with OFL_NO_FAST_PATH and requires the same answers: every
 * return code, CQE, QP state, counter and placed byte.
 */

/*
 * One pass over the payload (issue 30). A port with the fused hooks
 * (struct ofl_port: dma_read_crc32c, dma_write_crc32c) lets a speed build
 * (OFL_FAST_PATH; a size build has none of this) read each payload byte
 * of an iWARP stream with CRCs and no markers once, for both the copy and
 * the CRC, in FPDUs of at least OFL_QP_FUSE_MIN payload bytes (below that
 * one CRC call over the whole FPDU costs less than the header's own):
 *   send     every FPDU of a Send or Write: prefix and header are summed
 *            first, the gather's DMA reads continue the register, the pad
 *            ends it. The bytes and the CRC on the wire are the same.
 *            (Read Responses and control messages: copy, then CRC.)
 *   receive  an in-order RDMA Write with payload that arrives whole in one
 *            ofl_qp_input segment, with nothing placed ahead of a hole:
 *            its CRC is compared after its placement instead of before.
 *            Every check runs as before (FIG. 18A a-f, Table D, the DMA),
 *            then the payload is placed through dma_write_crc32c and the
 *            register compared. A wrong CRC is still what the stream
 *            reports (OFL_E_MPA_CRC, Terminate 2/0/2 with no header, the
 *            same counters and state): any refusal, fault hold or
 *            Terminate of that FPDU first compares the CRC over the whole
 *            FPDU, and a wrong one wins, as when it is compared first.
 * What differs: with a wrong CRC, the payload may already lie in the
 * Write's buffer, inside the range the STag authorised. RFC 5041 keeps
 * Placement apart from Delivery (a buffer's bytes mean something once
 * the message is delivered; an RDMA Write is never delivered at its
 * sink, and here the stream ends with the Terminate). Linux siw places
 * the same way (it copies and sums in one step and compares at the
 * FPDU's end). Nothing else is touched: no entry's use is noted, no
 * window spent, no page fault held. A port that must never see a byte of
 * a bad FPDU in its memory leaves dma_write_crc32c unset (the sim and
 * posix ports' default). Sends, Read Responses and FPDUs cut across
 * segments are compared before they are placed, as always.
 * The engine looks at the fused hooks, dma_crc32c and attr.transmitv
 * (below) once, when the stream is established (ofl_qp_establish): a hook
 * set later is not used, and one found then MUST stay set while the QP
 * lives. tests/test_qp_fused.c runs the same traffic with and without the
 * hooks, and by reference, and requires the same answers.
 */

/*
 * The transmit callback: hands data[0 .. len) to the lower layer as stream
 * bytes (one FPDU or one iSCSI PDU per call; a datagram QP hands one whole
 * frame per call, and an EE context its acknowledgements and
 * retransmissions through its own callback). Returns 0 when it took all of them, non-zero when it took
 * none: the engine keeps its place and tries again in a later
 * ofl_qp_process (the segment is rebuilt). The bytes are valid only during
 * the call. It MUST NOT call back into the QP.
 */
typedef int (*ofl_qp_transmit_fn)(void *ctx, const uint8_t *data,
                                  uint32_t len, uint32_t flags);

/*
 * The transmit reservation (optional; attr.tx_reserve, called with
 * transmit_ctx): a port that queues what it takes (a ring a worker sends
 * from, because the transmit may not block) lends the engine the ring's
 * free space instead of copying each frame into it. Before it builds a
 * stream frame (an FPDU, a Terminate, an iSCSI PDU) the engine asks for
 * len bytes (always tx_cap); the port returns where they start (they stay
 * the port's), or NULL when it has no room: the engine then reports
 * OFL_E_QP_TX_BLOCKED, as for a refused transmit, having built nothing.
 * The frame is built there in place and the next transmit call gets that
 * address as data, so the port takes it by moving its producer index, no
 * copy. A reservation not followed by a transmit (the build failed; the
 * frame is rebuilt later) is given up: the next reservation replaces it.
 * Every other transmit call (datagram frames, aborts) passes bytes in the
 * QP's own tx_buf, to copy as without the hook. The hook MUST NOT call
 * back into the QP.
 */
typedef uint8_t *(*ofl_qp_tx_reserve_fn)(void *ctx, uint32_t len);

/* One piece of a frame transmitted by reference: len bytes at data (the
 * engine's memory), or, when data is NULL, at host physical address pa. */
struct ofl_qp_txref {
    const uint8_t *data;
    uint64_t pa;
    uint32_t len;
};

/*
 * Transmit by reference (optional; attr.transmitv, called with
 * transmit_ctx; a speed build only, as "One pass over the payload"): an
 * FPDU of a Send or an RDMA Write handed over as a gather list instead of
 * bytes in tx_buf. ref[0] is the ULPDU Length and the DDP/RDMAP header,
 * ref[count - 1] the pad and the CRC (both the engine's bytes, by
 * pointer); between them the payload, by host physical address, in the
 * pieces the TPT translated for this transmission (checked FIG. 15 a-g
 * as a DMA read is). A port that can DMA the pieces, or writev them from
 * mapped memory, copies nothing. The CRC is summed through the port's
 * dma_crc32c hook, which reads the payload without copying it: one pass.
 * The port MUST be done with every piece when it returns (sent, or
 * copied: the engine's bytes are reused and the WQE may complete right
 * after), and returns as transmit does: 0 having taken the whole frame,
 * non-zero having taken none of it. The engine uses it when attr.transmitv
 * and attr.txref (txref_cap >= 3 entries, caller memory) are set, no
 * reservation hook is, the stream has no markers and, when it carries
 * CRCs, the port has dma_crc32c; an FPDU whose payload takes more than
 * txref_cap - 2 pieces, and every other frame, goes through transmit as
 * before. The bytes on the wire are the same either way. It MUST NOT call
 * back into the QP.
 */
typedef int (*ofl_qp_transmitv_fn)(void *ctx, const struct ofl_qp_txref *ref,
                                   uint32_t count, uint32_t flags);

/* Asynchronous events, collected in qp->events and announced through the
 * port's notify hook with attr.event_vector. RESET clears them, with
 * qp->term_tx and qp->term_rx: a new life starts with none. */
enum ofl_qp_evt {
    OFL_QP_EVT_SQ_DRAINED = 0x01, /* SQD reached with nothing in flight */
    OFL_QP_EVT_TERM_RX = 0x02,    /* a Terminate arrived (qp->term_rx) */
    OFL_QP_EVT_FATAL = 0x04,      /* the QP terminated the stream
                                     (qp->term_tx, qp->err) */
    OFL_QP_EVT_CLOSED = 0x08,     /* the LLP closed */
    OFL_QP_EVT_CQ_OVERRUN = 0x10, /* a CQ lost a completion of this QP */
    OFL_QP_EVT_PAGE_FAULT = 0x20  /* an access waits for a page not
                                     present (qp->fault; seed 001) */
};

/*
 * Unpinned pages (seed 001 "Local Memory Protection" and "Remote Memory
 * Protection", FIG. 17 step 612: "If a virtual address was not previously
 * mapped by the operating system through a map local page verb, the
 * SANIC's default error handler process receives an asynchronous error
 * result to handle the resulting page fault condition"; the page is
 * swapped in and the access goes on).
 *
 * attr.fault_wait = OFL_QP_FAULT_FAIL (0, the default) keeps the rules of
 * the tables above: a page without OFL_TPT_ATT_PRESENT fails the access
 * (SQE or Terminate, OFL_E_TPT_PAGE_FAULT, LOC_ACCESS_ERR).
 * OFL_QP_FAULT_WAIT (every service: iWARP, iSCSI, RD, UD and raw QPs)
 * makes the access wait instead, for these:
 *
 *   access                         where (qp->fault.where)   waits at
 *   iWARP:
 *   Send / Write WQE: its source   OFL_QP_FAULT_SQ           the segment
 *   inbound Read Request: source   OFL_QP_FAULT_READ_SRC     the segment
 *   inbound Send: receive buffer   OFL_QP_FAULT_RX           the FPDU
 *   inbound Write: tagged buffer   OFL_QP_FAULT_RX           the FPDU
 *   Read Response: its Read's sink OFL_QP_FAULT_RX           the FPDU
 *   Atomic Response: result buffer OFL_QP_FAULT_RX           the FPDU
 *   inbound Atomic Request: target OFL_QP_FAULT_RX           the FPDU
 *   RD, UD and raw (a datagram is one frame; "Datagrams" below):
 *   Send / Write WQE: its source   OFL_QP_FAULT_SQ           the frame
 *   inbound Send: receive buffer   OFL_QP_FAULT_DG           RD: resent
 *   (raw: an inbound frame)                                  UD, raw:
 *                                                            dropped
 *   RD inbound Write: its buffer   OFL_QP_FAULT_DG           resent
 *   RD inbound Read: its source    OFL_QP_FAULT_DG           resent
 *   RD Read Response: its sink     OFL_QP_FAULT_DG           resent
 *   RD atomic response: result     OFL_QP_FAULT_DG           resent
 *   RD inbound atomic: its target  OFL_QP_FAULT_DG           resent
 *   iSCSI ("iSCSI" below):
 *   Data-In: the task's buffer     OFL_QP_FAULT_ISCSI_IN     the bytes
 *   PDU to a receive WQE: buffer   OFL_QP_FAULT_ISCSI_IN     the bytes
 *   Data-In with status: its WQE   OFL_QP_FAULT_ISCSI_IN     last piece
 *   Data-Out for an R2T: its data  OFL_QP_FAULT_READ_SRC     the PDU
 *   initiator PDU WQE: its data    OFL_QP_FAULT_SQ           the PDU
 *
 * The last three iWARP rows are inbound FPDUs like the two before (RFC
 * 5040's Read Response, RFC 7306's Atomic Request and Response): they
 * wait as RX does, held in rx_buf, under either read_sink rule; the STag
 * in qp->fault tells which buffer it is.
 *
 * A wait leaves nothing half done: an inbound FPDU's access, or the
 * source of a Read Response segment being sent, is translated whole
 * before any byte of it is placed or read; a send segment may have read
 * pages before the missing one into tx_buf, but nothing of it is sent and
 * it is rebuilt on the retry, as after a refused transmission. No byte
 * placed, no MSN, CQE, one-touch or one-shot use, no segmenter or gather
 * cursor moved; a Read waiting on its sink keeps its ORD slot and its
 * count of bytes placed, an Atomic its ORD slot. An Atomic Request waits
 * before its read-modify-write (the 8-byte target is translated before it
 * is read): the target untouched, no inbound slot taken, no response; it
 * executes once, on the retry that finds the page. The fault is recorded
 * in qp->fault (where, stag, va: the first byte the access needs in the
 * missing page, in the STag's address space) and OFL_QP_EVT_PAGE_FAULT is
 * raised through the port's notify hook, once per new fault. The QP keeps
 * its state (no new state and no column in the state table): the call
 * returns OFL_E_TPT_PAGE_FAULT with qp->state unchanged and
 * qp->fault.where set, which tells a wait from the fatal
 * OFL_E_TPT_PAGE_FAULT of FAIL (QP in TERMINATE or SQE).
 *
 * Outbound (SQ, READ_SRC): ofl_qp_process returns OFL_E_TPT_PAGE_FAULT;
 * the send queue (and the inbound Read queue before it, in order) waits;
 * inbound segments are still taken. Each later ofl_qp_process retries.
 *
 * Inbound (RX): the FPDU was received whole and its CRC, markers and
 * header checked; its ULPDU is kept in mem.rx_buf (qp->fault.rx_len
 * bytes, DDP SN rx_sn) and RCV.NXT is past it. ofl_qp_input returns
 * OFL_E_TPT_PAGE_FAULT and takes nothing after that FPDU: the bytes from
 * qp->seq.nxt on MUST be fed again (TCP keeps them unacknowledged; the
 * simplest driver feeds the same segment again: the part before RCV.NXT
 * is dropped as a duplicate). Until the held FPDU is placed, every
 * ofl_qp_input and ofl_qp_process first retries it; ofl_qp_input takes
 * no byte while it still waits.
 *
 * The host maps the page with ofl_tpt_map_page(tpt, qp->fault.stag,
 * qp->fault.va, pa) (MapLocalPage: index, key, Valid, range and pa
 * alignment checked) and calls ofl_qp_process (or feeds input): the
 * access retries and goes on; another missing page raises a new fault. A
 * page that is never mapped: the QP waits (there is no clock in the
 * core; a host timeout is the host's). ofl_qp_fault_fail gives the access
 * up: the next retry fails it as FAIL would (a send WQE: SQE before any
 * byte of it went out, else Terminate 0/0/00, LOC_ACCESS_ERR; a Read
 * source: Terminate ofl_tpt_term_cause(err, OFL_TPT_USE_RDMAP); a Send:
 * Terminate 0/0/00, the receive LOC_ACCESS_ERR; a Write: Terminate
 * ofl_tpt_term_cause(err, OFL_TPT_USE_PLACE); a Read's sink: under
 * OFL_QP_READ_SINK_LOCAL Terminate 0/0/00, under TAGGED
 * ofl_tpt_term_cause(err, OFL_TPT_USE_PLACE) (0/2/07), the Read
 * LOC_ACCESS_ERR; an Atomic's result: Terminate 0/0/00, the Atomic
 * LOC_ACCESS_ERR; an Atomic's target: Terminate 0/0/00, not executed).
 * MOD_ERROR (or RESET, or any Terminate) ends the wait: the record is
 * cleared, the WQEs flushed.
 *
 * Datagrams (RD, UD, raw). A send WQE waits as on a stream: its frame is
 * gathered whole before the transmit sees it (into tx_buf, or the EE
 * slot at snd_nxt, not yet in use), so nothing went out, no sequence
 * number or ORD was taken; ofl_qp_process returns OFL_E_TPT_PAGE_FAULT
 * and gathers it again on each retry. An inbound frame cannot be held:
 * there is no stream to stop (and a datagram QP may have no rx_buf), so
 * a frame whose access meets a page not present (every page of it
 * translated before a byte is placed, read or executed) is not taken:
 * ofl_qp_dgram_input returns OFL_E_TPT_PAGE_FAULT with nothing placed,
 * no receive WQE consumed, no response, no replay cache entry, the
 * target of an atomic not read, no one-shot use, the Read (or atomic)
 * waiting on its response keeping its ORD; the fault is recorded
 * (OFL_QP_FAULT_DG) and raised once. RD (seed 001: reliable datagram
 * "employs sequence numbers and acknowledgments ... to ensure the same
 * degree of reliability as the reliable connection service"): the frame
 * is refused as one without room is ("Negative acknowledgements"):
 * rcv_nxt unmoved, no acknowledgement, an RNR NAK when OFL_EE_F_NAK;
 * the requester resends it (after rnr_delay, or its timeout) and the
 * resent frame, finding the page mapped, completes; an atomic executes
 * once. The resends count against the requester's retry_limit: a page
 * not mapped in time fails the EE there (RNR_RETRY_EXC_ERR), as a
 * receiver without receive WQEs does. UD (seed 001: "does not provide
 * the reliability guarantees of the reliable connection service and the
 * reliable datagram service"): the datagram is dropped, as one that
 * finds no receive WQE is, and the sender is not told; a host that kept
 * the frame may feed it again after ofl_tpt_map_page (so may an RD
 * host: it is still rcv_nxt). A raw datagram is unreliable as UD is:
 * its inbound frame is dropped the same way (ofl_qp_raw_input returns
 * OFL_E_TPT_PAGE_FAULT, nothing placed, its receive WQE where it was),
 * its send WQE waits as UD's. The record of a datagram wait lasts until
 * a frame of the QP does not wait (taken, or refused for another
 * reason): it ends then, and a give-up with it. ofl_qp_fault_fail makes
 * the next datagram of the QP that meets a page not present fail as
 * FAIL: a Send is delivered with its receive WQE completing
 * LOC_ACCESS_ERR (acknowledged: the frame counts as delivered); an RD
 * Write, Read or atomic request is refused with an ACCESS NAK, detail
 * OFL_E_TPT_PAGE_FAULT (the requester's WQE REM_ACCESS_ERR); a response
 * is consumed and acknowledged, its Read or atomic completing
 * LOC_ACCESS_ERR. A send WQE given up completes LOC_ACCESS_ERR, the QP
 * to SQE (no byte of a datagram is sent before it is whole). A send
 * waiting on its source has not begun (nothing of it went out): in SQD
 * it does not start and SQD drains, as for a Send held behind a full
 * window; its local checks run again when it starts.
 *
 * iSCSI (a stream, as iWARP; seed 000 FIG. 17A/B). A Data-In piece (the
 * data bytes of one PDU that one ofl_qp_input call carries) is
 * translated whole through the task's ITT before a byte of it is placed;
 * a page not present makes it wait (OFL_QP_FAULT_ISCSI_IN, the offset in
 * the task as va): nothing of the piece placed, and nothing of it or
 * after it taken: ofl_qp_input returns OFL_E_TPT_PAGE_FAULT with RCV.NXT
 * at the piece, and the bytes from qp->seq.nxt on MUST be fed again (TCP
 * keeps them unacknowledged; the simplest driver feeds the same segment
 * again). Nothing is held: each feed retries the piece, which waits
 * again (no new event) until the page is mapped. The bytes before the
 * piece were placed and taken. A Data-Out answering an R2T reads its
 * data (checked FIG. 17B a-g) before anything of the PDU is sent; a page
 * not present makes it wait as a Read's source does (READ_SRC, the
 * offset as va): ofl_qp_process returns OFL_E_TPT_PAGE_FAULT, the R2T
 * keeps its place and its count of bytes sent, and each later
 * ofl_qp_process builds the PDU again. A PDU that goes to a receive WQE
 * (a response, a Data-In with status for its header, a PDU failing FIG.
 * 17B, any other target PDU) waits as a Data-In piece does, on the
 * receive buffer (OFL_QP_FAULT_ISCSI_IN; qp->fault.stag and va: the
 * receive data segment's STag and address): its header before a byte of
 * it is placed, the header bytes that ended it not taken and the
 * receive WQE not consumed (fetched again on the retry); a data piece
 * before a byte of it is placed, the WQE staying current. A Data-In with
 * status and data looks at its receive WQE's header bytes before its
 * last piece is placed in the task, so that piece waits whole there (on
 * the WQE's page, then on the task's: each fault raised once).
 * Given up (ofl_qp_fault_fail), each of these fails as FAIL does: the
 * stream broken as for any local failure (OFL_E_TPT_PAGE_FAULT, the QP to
 * TERMINATE; a receive WQE in use completes LOC_ACCESS_ERR). An
 * initiator PDU WQE (OFL_QP_OP_ISCSI_PDU) reads its data segment before
 * anything of it is sent and waits on it as a Send WQE's source does
 * (OFL_QP_FAULT_SQ), given up LOC_ACCESS_ERR and SQE.
 *
 * Not covered: nothing that reads or writes a data page. Bind and
 * registration WQEs (an iSCSI command's registration included) read no
 * data page, so they meet no page: a registration writes page words
 * (from physical buffers, marked present) or names ATT slots the host
 * wrote, present or not; a bind checks its region's entry and range; a
 * page list in host memory is read only by a translation, and a list
 * word without the present bit is OFL_E_TPT_ATT_CORRUPT, not a page
 * fault. They complete as ever under WAIT; the data access through them
 * later is what waits. Immediate Data names no memory, so it meets no
 * page.
 */
enum ofl_qp_fault_mode {
    OFL_QP_FAULT_FAIL = 0, /* a page not present fails the access */
    OFL_QP_FAULT_WAIT = 1  /* the access waits for MapLocalPage */
};

/* What waits on a fault (qp->fault.where). */
enum ofl_qp_fault_where {
    OFL_QP_FAULT_NONE = 0,
    OFL_QP_FAULT_SQ = 1,       /* a Send or Write WQE's source */
    OFL_QP_FAULT_READ_SRC = 2, /* an inbound Read Request's source
                                  (iSCSI: an R2T's write data) */
    OFL_QP_FAULT_RX = 3,       /* an inbound FPDU held in rx_buf: a
                                  Send's receive buffer, a Write's
                                  tagged buffer, a Read Response's
                                  sink, an Atomic Response's result, an
                                  Atomic Request's target */
    OFL_QP_FAULT_DG = 4,       /* an inbound datagram frame not taken
                                  (RD: not acknowledged, its
                                  retransmission retries; UD and raw:
                                  dropped) */
    OFL_QP_FAULT_ISCSI_IN = 5  /* iSCSI PDU bytes (Data-In, or to a
                                  receive WQE) not placed nor taken:
                                  fed again from RCV.NXT */
};

/* The fault a QP waits on (OFL_QP_FAULT_WAIT). Read-only for the host. */
struct ofl_qp_fault {
    uint64_t va;       /* the first byte the access needs in the page not
                          present (the STag's address space: va, or TO of
                          a tagged access); a `to` for ofl_tpt_map_page */
    uint32_t stag;     /* the STag whose page it is */
    uint32_t rx_len;   /* RX: ULPDU bytes held in rx_buf */
    uint32_t rx_sn;    /* RX: DDP SN of the held FPDU */
    uint8_t where;     /* enum ofl_qp_fault_where of the latest fault
                          raised; NONE: nothing waits */
    uint8_t sq_wait;   /* SQ or READ_SRC waits */
    uint8_t rx_held;   /* RX: a ULPDU waits in rx_buf */
    uint8_t give_up;   /* ofl_qp_fault_fail: the next retry fails it */
    uint8_t in_wait;   /* DG, ISCSI_IN: inbound bytes met the page not
                          present and were not taken */
    uint8_t reserved[7];
};

/* Send-queue registration error semantics (seed 000 FIG. 11, FIG. 17A). */
enum ofl_qp_reg_option {
    OFL_QP_REG_OPTION1 = 1, /* reactive: SQD, flush the WQEs behind */
    OFL_QP_REG_OPTION2 = 2  /* anticipatory: Terminate, ERROR, flush all */
};

/*
 * The rule for an RDMA Read's sink (its one data segment; attr.read_sink).
 *
 * OFL_QP_READ_SINK_LOCAL (0) is the verbs rule (ibv_post_send(3): an SGE
 * names an lkey; Linux siw and rxe place a Read Response through the
 * sink's local write right): the sink is a local data segment, a region
 * of the QP's PD that grants local write, checked (FIG. 15 a-g) when the
 * WQE starts and again for every Read Response segment placed into it.
 * Remote write is neither needed nor looked at; one-shot and one-touch
 * flags (which govern remote use) are not spent by it; the TPT's windows-
 * only policy does not concern it. A sink that fails when the WQE starts
 * completes with ofl_tpt_wc_status (LOC_PROT_ERR) and stops the SQ (SQE)
 * with nothing sent; one that fails later (deregistered while its Read was
 * outstanding) is the local side's failure: Terminate 0/0/00 (local
 * catastrophic, not a fault of the peer), the Read LOC_PROT_ERR.
 * What protects the sink, although the peer names its STag on the wire:
 * a Read Response is taken only for the oldest outstanding Read (the ORD
 * ring; none outstanding: 0/2/06), only with that Read's sink STag, at the
 * next TO of its sink and within its length (else 1/1/00 or 1/1/01, the
 * Read BAD_RESP_ERR). So a peer writes exactly the bytes the Read asked
 * for, once, in order, and nothing through the STag at any other time; an
 * RDMA Write naming it still needs its remote rights.
 *
 * OFL_QP_READ_SINK_TAGGED (1), opt-in, is the stricter rule of iWARP
 * adapters that place a Read Response as any tagged message, through the
 * sink's remote rights (Linux's rdma_rw registers an iWARP Read sink with
 * IB_ACCESS_REMOTE_WRITE for them): the sink must also pass the remote
 * checks (FIG. 18A a-f) with OFL_TPT_REMOTE_WRITE, when the WQE starts
 * (else LOC_PROT_ERR and SQE, nothing sent) and for every segment (else
 * Terminate with ofl_tpt_term_cause(PLACE)), and a one-shot or one-touch
 * sink is spent as by a Write. Its use: running a consumer under that rule,
 * so that a sink registered without remote write fails here as it would
 * on such an adapter, or keeping every placement of the QP on the remote
 * path (one rule for every tagged byte).
 */
enum ofl_qp_read_sink {
    OFL_QP_READ_SINK_LOCAL = 0,
    OFL_QP_READ_SINK_TAGGED = 1
};

/* Inbound request kinds (struct ofl_qp_inreq.kind). */
enum ofl_qp_inreq_kind {
    OFL_QP_IN_READ = 1,   /* RDMA Read Request: Read Responses to send */
    OFL_QP_IN_ATOMIC = 2, /* executed Atomic Request: its response */
    OFL_QP_IN_R2T = 3     /* iSCSI R2T: Data-Out PDUs to send */
};

/* Adapter state of one send WQE between its fetch and its completion. */
struct ofl_qp_swqe {
    uint64_t wr_id;
    uint64_t to;      /* READ: sink TO; ATOMIC: result VA */
    uint32_t len;     /* bytes sent or requested */
    uint32_t got;     /* READ: response bytes placed (RD: the request's EE
                         sequence number until the response) */
    uint32_t stag;    /* READ: sink STag; ATOMIC: result STag; BIND,
                         FAST_REG, REG_SEND: the STag for the CQE */
    uint8_t opcode;   /* enum ofl_qp_opcode */
    uint8_t flags;    /* enum ofl_qp_wr_flag */
    uint8_t status;   /* enum ofl_wc_status once done */
    uint8_t state;    /* 0 not started, 1 in flight, 2 done */
};

/* An inbound request (the inbound read queue of FIG. 18A steps
 * 1804-1806, IRD slots in arrival order; each request must carry the next
 * MSN of its queue, so while only Reads arrive the Read with MSN m sits in
 * slot (m - 1) mod IRD). */
struct ofl_qp_inreq {
    uint64_t to_a;    /* READ: sink TO; ATOMIC: original value; R2T: LUN */
    uint64_t to_b;    /* READ: source TO; R2T: buffer offset */
    uint32_t stag_a;  /* READ: sink STag; R2T: Target Transfer Tag */
    uint32_t stag_b;  /* READ: source STag; R2T: Initiator Task Tag */
    uint32_t len;     /* READ: size; R2T: desired data transfer length */
    uint32_t done;    /* bytes answered so far */
    uint32_t id;      /* ATOMIC: request identifier; R2T: next DataSN */
    uint32_t msn;     /* MSN of the request */
    uint8_t kind;     /* enum ofl_qp_inreq_kind */
    uint8_t reserved[7];
};

struct ofl_qp_node;
struct ofl_ee;

/* Creation attributes of a QP. */
struct ofl_qp_attr {
    uint32_t qpn;
    uint32_t pd;              /* protection domain (FIG. 15 c, 18A c) */
    uint8_t service;          /* enum ofl_qp_service */
    uint8_t sq_reg;           /* FIG. 11 step 1144: send-queue based
                                 registration enabled */
    uint8_t reg_option;       /* enum ofl_qp_reg_option */
    uint8_t acked;            /* seed 002 acknowledge attribute: 1 = a
                                 send WQE completes when the EE
                                 acknowledgement covering it returns
                                 (RD only), 0 = when its frame left */
    uint8_t read_sink;        /* enum ofl_qp_read_sink: 0 (LOCAL) is the
                                 verbs rule */
    uint8_t fault_wait;       /* enum ofl_qp_fault_mode: 0 (FAIL) a page
                                 not present fails the access; 1 (WAIT,
                                 any service) it waits for MapLocalPage
                                 ("Unpinned pages", seed 001) */
    uint16_t ord;             /* outbound Reads and Atomics outstanding at
                                 most (fixed at creation), >= 1; RD: the
                                 frames sent and not yet acknowledged
                                 (seed 001 "multiple outstanding
                                 requests ... determined when a QP is
                                 created") */
    uint16_t ird;             /* inbound requests held, a power of two */
    uint32_t event_vector;    /* for the port's notify hook */
    uint32_t sq_db, rq_db;    /* doorbell ids rung by the post calls */
    uint32_t iscsi_max_data;  /* iSCSI: the target's MaxRecvDataSegmentLength
                                 (largest Data-Out data), 512 .. 2^24 - 1
                                 (RFC 3720 §12.12) */
    struct ofl_tpt *tpt;      /* the adapter's TPT */
    const struct ofl_port *port;
    struct ofl_cq *send_cq;
    struct ofl_cq *recv_cq;
    ofl_qp_transmit_fn transmit;
    void *transmit_ctx;
    ofl_qp_tx_reserve_fn tx_reserve; /* optional: stream frames built in
                                        the port's memory (above) */
    struct ofl_qp_tuple tuple; /* how inbound segments find the QP */
    uint32_t max_dgram;       /* datagram kinds: largest message (one
                                 frame's payload; RAW: the whole frame),
                                 1 .. 65535 */
    struct ofl_qp_node *node; /* RD, UD: the node the QP lives on (its
                                 address and, for RD, EE contexts) */
    ofl_qp_transmitv_fn transmitv; /* optional: transmit by reference
                                      (above); a speed build only */
    struct ofl_qp_txref *txref;    /* its gather list (caller memory) */
    uint32_t txref_cap;            /* entries of txref, >= 3 */
};

/*
 * An RDMA Write FPDU placed ahead of a hole (ofl_qp_input with markers), as
 * it was placed: when the in-order stream reaches sn it MUST carry an FPDU
 * starting there with the same ULPDU Length and the same DDP/RDMAP header
 * (control, STag, TO), else the stream ends with a Terminate
 * (OFL_E_QP_PLACED_MISMATCH); so does a stream that passes sn inside
 * another FPDU. The payload is not compared: the same peer placed it
 * through the same STag and range, so no protection rule is at stake, and
 * a retransmission of the same bytes is what TCP delivers (RFC 5044's CRC,
 * when negotiated, already covered those bytes as they were placed).
 */
struct ofl_qp_ooo {
    uint32_t sn;                              /* TCP SN of its first byte */
    uint16_t ulpdu_len;                       /* its MPA ULPDU Length */
    uint8_t hdr[OFL_DDP_TAGGED_HDR_LEN];      /* its DDP/RDMAP header */
};

/* Caller memory for one QP: rings, their adapter state and buffers. */
struct ofl_qp_mem {
    void *sq_ring;            /* verbs view: ofl_qp_ring_size(depth, sge,
                                 true) bytes */
    uint64_t sq_ring_pa;      /* adapter view when sq_host */
    uint32_t sq_depth;        /* power of two, 1 .. 2^16 */
    uint32_t sq_max_sge;      /* 0 .. OFL_QP_SQ_SGE_MAX */
    void *rq_ring;
    uint64_t rq_ring_pa;
    uint32_t rq_depth;
    uint32_t rq_max_sge;      /* 0 .. OFL_QP_RQ_SGE_MAX */
    uint8_t sq_host;          /* ring in host memory: WQEs fetched by DMA */
    uint8_t rq_host;
    struct ofl_qp_swqe *sq_track;   /* sq_depth entries */
    struct ofl_qp_sge *sq_sge;      /* sq_max_sge entries (may be NULL if 0) */
    struct ofl_qp_sge *rq_sge;      /* rq_max_sge entries (may be NULL if 0) */
    struct ofl_qp_inreq *irq;       /* attr.ird entries */
    uint32_t *ord_ring;             /* attr.ord entries */
    uint8_t *tx_buf;                /* FPDU / PDU under construction */
    uint32_t tx_cap;                /* >= the largest FPDU (MULPDU + 8 +
                                       markers: ofl_qp_tx_need); iSCSI:
                                       >= 48 + iscsi_max_data rounded up
                                       to 4 (the pad) */
    uint8_t *tx_stage;              /* payload staging when markers are
                                       sent (MULPDU bytes), else NULL */
    uint8_t *rx_buf;                /* MPA receive buffer (a split ULPDU);
                                       iSCSI: BHS + AHS */
    uint32_t rx_cap;                /* >= the peer's MULPDU; iSCSI >= 1068 */
    struct ofl_seq_pending *ot_pending; /* deferred one-touch invalidations */
    uint32_t ot_cap;
    struct ofl_qp_ooo *ooo;         /* FPDUs placed out of order */
    uint32_t ooo_cap;
};

/* One work queue. */
struct ofl_qp_wq {
    uint8_t *ring;
    uint64_t ring_pa;
    uint32_t depth;
    uint32_t stride;    /* bytes per WQE slot, a power of two */
    uint32_t max_sge;
    uint32_t pi;        /* verbs: WQEs posted */
    uint32_t db_pi;     /* adapter: producer index learnt */
    uint32_t ci;        /* adapter: next WQE to start */
    uint32_t cc;        /* WQEs completed: slots the verbs side may reuse */
    uint32_t flush_to;  /* SQ: flush WQEs before this index (SQD, SQE) */
    uint32_t db;
    uint8_t host;
    uint8_t flush_all;  /* SQ: flush every WQE (SQE) */
    uint8_t reserved[2];
};

/* The send WQE being carried out (adapter side). */
struct ofl_qp_sq_cur {
    struct ofl_ddp_seg seg;   /* segmenter of the message in flight */
    uint8_t hdr[OFL_QP_SQ_HDR]; /* the fetched WQE header, checked */
    uint64_t until;           /* DELAY: resume time */
    uint32_t idx;             /* SQ index */
    uint32_t total;           /* message bytes */
    uint32_t sge_i;           /* gather cursor: data segment */
    uint32_t sge_off;         /* and offset in it */
    uint8_t active;           /* a WQE is fetched */
    uint8_t phase;            /* 0 first step; 1 the second (WRITE_IMM:
                                 the Immediate Data; REG_SEND, ISCSI_CMD:
                                 registered, the message) */
    uint8_t begun;            /* the message or request is checked and
                                 started */
    uint8_t sent;             /* bytes of it reached the wire */
    uint8_t num_sge;
    uint8_t reserved[3];
};

/* The Send being received on queue 0 (adapter side). */
struct ofl_qp_rx_cur {
    uint64_t wr_id;
    uint32_t idx;        /* RQ index */
    uint32_t total;      /* bytes the receive WQE holds */
    uint32_t got;        /* bytes placed (MO + length of the last) */
    uint8_t active;
    uint8_t num_sge;
    uint8_t reserved[2];
};

/* iSCSI receive state (one PDU at a time). */
struct ofl_qp_iscsi_rx {
    uint32_t got;        /* header bytes in rx_buf */
    uint32_t hdr_len;    /* 48 + AHS */
    uint32_t data_len;   /* DataSegmentLength */
    uint32_t data_got;   /* data and pad bytes consumed */
    uint32_t itt;
    uint32_t offset;     /* Data-In: buffer offset */
    uint32_t cmd_id;
    uint8_t mode;        /* what the data segment is for */
    uint8_t opcode;
    uint8_t final;       /* Data-In with status (S) */
    uint8_t reserved;
};

/* Counters (informational). */
struct ofl_qp_stats {
    uint64_t tx_fpdus, rx_fpdus;
    uint64_t tx_bytes, rx_bytes;
    uint64_t ooo_placed;   /* FPDUs placed ahead of a hole */
    uint64_t dup_bytes;    /* duplicate bytes dropped */
    uint64_t tx_blocked;   /* transmit callback refusals */
};

/*
 * The QP context. Caller memory; the fields are documented for inspection,
 * but only ofl_qp_ functions change them.
 */
struct ofl_qp {
    struct ofl_qp_attr attr;
    struct ofl_qp_wq sq, rq;
    struct ofl_qp_swqe *sq_track;
    struct ofl_qp_sge *sq_sge, *rq_sge;
    struct ofl_qp_inreq *irq;
    uint32_t *ord_ring;
    uint8_t *tx_buf, *tx_stage, *rx_buf; /* tx_buf: where the frame is
                                 built (mem.tx_buf, or a reservation) */
    uint8_t *tx_own;          /* mem.tx_buf */
    uint32_t tx_cap, rx_cap;
    struct ofl_qp_ooo *ooo;
    uint32_t ooo_cap;
    struct ofl_seq_pending *ot_pending;
    uint32_t ot_cap;

    uint8_t state;            /* enum ofl_qp_state */
    uint8_t established;      /* the stream is up */
    uint8_t llp_closed;       /* the LLP closed or was asked to */
    uint8_t close_sent;       /* CLOSING: close requested */
    uint8_t term_pending;     /* a Terminate waits for the transmit */
    uint8_t error_after_term; /* registration option 2: ERROR once the
                                 pending Terminate is sent */
    uint8_t drained_sent;     /* SQD event raised */
    uint16_t err;             /* enum ofl_err of the violation (FATAL) */
    uint32_t events;          /* enum ofl_qp_evt bits raised since
                                 create or the last RESET */

    /* the stream */
    struct ofl_mpa_params mpa;
    struct ofl_mpa_tx tx;
    struct ofl_mpa_rx rx;
    struct ofl_seq seq;       /* RCV.NXT, one-touch deferrals */
    uint32_t rx_base;         /* SN of the first FPDU byte received */
    uint32_t ooo_count;
    uint32_t ord;             /* effective ORD */
    uint32_t ord_head, ord_count; /* outstanding Reads and Atomics */
    uint32_t irq_head, irq_count; /* inbound requests */
    uint32_t msn_tx[5];       /* next MSN sent per queue (QN 0..4) */
    uint32_t msn_rx[5];       /* next MSN expected per queue */
    struct ofl_rdmap_term term_tx_msg; /* the Terminate sent (or pending) */
    struct ofl_term_cause term_tx;  /* cause we sent */
    struct ofl_term_cause term_rx;  /* cause the peer sent */

    struct ofl_qp_sq_cur cur;
    struct ofl_qp_rx_cur rcur;
    uint32_t rx_tag_stag;     /* the tagged message in progress: an earlier
                                 segment of it, of nonzero length, was
                                 placed through this STag (rx_tag_open) */
    uint8_t rx_tag_open;
    /* A speed build's receive of a tagged message's FPDUs whole: the
     * region that FIG. 18A a-f granted to the message's STag at its
     * last FPDU taken whole, kept until an FPDU the general path
     * takes or the message's Last, while the region's generation holds */
    const struct ofl_tpt_entry *rx_kept_region; /* NULL: none kept */
    uint32_t rx_kept_stag;    /* the STag (the region's own) */
    uint32_t rx_kept_gen;     /* the region's generation at the check */
    /* One pass over the payload (a speed build, a port with the fused
     * hooks; "One pass over the payload" above): */
    const uint8_t *rx_defer;  /* the in-order RDMA Write FPDU (from its
                                 ULPDU Length on) whose CRC is compared
                                 after its placement, or NULL */
    uint32_t rx_defer_len;    /* its wire length, CRC field included */
    uint32_t rx_crc;          /* CRC register over it, placement so far */
    uint32_t tx_crc;          /* CRC register of the FPDU being gathered */
    uint8_t tx_fuse;          /* the gather reads through dma_read_crc32c
                                 into tx_crc */
    uint8_t tx_ref;           /* the gather records payload pieces in
                                 attr.txref (transmit by reference); 2:
                                 they did not fit */
    uint32_t txref_count;     /* entries of attr.txref in use */
    uint8_t paths;            /* the data paths chosen at establish
                                 (fused, by reference, whole-message) */
    uint8_t hooks;            /* a speed build: the port's barrier,
                                 doorbell, dma_read and dma_write, found
                                 at ofl_qp_create */
    /* A speed build's send of one data segment in several FPDUs: the
     * segment's check and translation, kept while the region's
     * generation holds */
    const struct ofl_tpt_entry *tx_kept_region; /* that granted it */
    const uint64_t *tx_kept_att; /* its page words (NULL: not direct) */
    uint64_t tx_kept_pos;     /* page position of the segment's byte 0 */
    uint32_t tx_kept_shift;   /* log2 of the page size */
    uint32_t tx_kept_gen;     /* the region's generation at the check */
    struct ofl_qp_iscsi_rx irx;
    uint32_t iscsi_cmd_seq;   /* next command ID */
    uint32_t iscsi_exp_statsn;
    uint8_t iscsi_statsn_known; /* a StatSN was taken (ExpStatSN valid) */

    struct ofl_rdmap_msg msg; /* scratch: the message parsed or built */
    struct ofl_tpt_piece piece[OFL_QP_PIECES]; /* scratch: translation */
    uint8_t hdr[OFL_RDMAP_HDR_MAX];            /* scratch: a header */
    struct ofl_qp_stats stats;
    uint32_t dg_epoch;        /* RD: bumped when the QP's WQEs are flushed
                                 or discarded, so that a late EE
                                 acknowledgement touches none of them */
    struct ofl_qp_fault fault; /* "Unpinned pages" (seed 001) */
};

/* Bytes of a ring of depth WQEs with max_sge data segments (send or
 * receive), 0 when out of range. */
uint32_t ofl_qp_ring_size(uint32_t depth, uint32_t max_sge, bool send);

/* tx_cap a stream with this MULPDU needs (markers counted). */
uint32_t ofl_qp_tx_need(uint16_t mulpdu, bool markers);

/* The state table above: the next state for event ev in state from, or
 * OFL_QP_STATES when the table refuses it. Pure. */
enum ofl_qp_state ofl_qp_state_next(enum ofl_qp_state from,
                                    enum ofl_qp_event ev);

/* "RESET", "RTS", ...; "?" for a value outside the enum. */
const char *ofl_qp_state_name(enum ofl_qp_state s);

/*
 * Creates qp in RESET over mem. Checks attr (service, pd, ORD >= 1, IRD a
 * power of two, CQs and TPT present, transmit present, reg_option 1 or 2,
 * read_sink 0 or 1, fault_wait 0 or 1)
 * and mem (depths powers of two, SGE limits, every array present for the
 * sizes given) -> OFL_E_ARG / OFL_E_QP_SERVICE. The CQs record nothing:
 * sizing them is the caller's (struct ofl_cq). Datagram kinds: max_dgram
 * 1 .. 65535 and node present for RD and UD (OFL_E_ARG), tx_cap >=
 * max_dgram plus the 28-byte header (RAW: max_dgram) (OFL_E_SIZE); irq,
 * ord_ring and rx_buf may be NULL. iSCSI: iscsi_max_data 512 .. 2^24 - 1
 * and qpn not OFL_TPT_QP_NONE (OFL_E_ARG), rx_cap >= 1068 and tx_cap >=
 * 48 + iscsi_max_data rounded up to 4 (OFL_E_SIZE). acked = 1 on any
 * service but RD is OFL_E_QP_ACKED.
 */
enum ofl_err ofl_qp_create(struct ofl_qp *qp, const struct ofl_qp_attr *attr,
                           const struct ofl_qp_mem *mem);

/* Consumer transition (ofl_qp_modify(qp, OFL_QP_RTS) ...) along the table;
 * OFL_E_QP_TRANSITION when the table refuses it, OFL_E_QP_STATE for RTR ->
 * RTS on a stream service and for CLOSING on a datagram service. Performs
 * the entry actions listed above. */
enum ofl_err ofl_qp_modify(struct ofl_qp *qp, enum ofl_qp_state to);

/*
 * The stream is up (INIT or RTR -> RTS, event ESTAB): p are the negotiated
 * MPA parameters (ignored for iSCSI), emss the effective MSS for the
 * MULPDU, rx_sn the sequence number of the first byte the peer sends after
 * the MPA exchange, rcv_wnd the receive window for the one-touch decision
 * (1 .. OFL_SEQ_WND_MAX). ORD becomes min(attr.ord, p->ord) when the RFC
 * 6581 block was exchanged (at least 1). Checks that the IRD that block
 * advertised (p->ird) is at most attr.ird (OFL_E_ARG: the peer's ORD keeps
 * to it), that the MULPDU holds the longest control message,
 * OFL_RDMAP_HDR_MAX (OFL_E_ARG), that tx_cap holds an FPDU at that MULPDU
 * (OFL_E_SIZE) and that markers sent have a staging buffer (OFL_E_SIZE). A
 * datagram QP has no stream: OFL_E_QP_SERVICE. A speed build chooses the
 * stream's data paths here, once ("One pass over the payload": the port's
 * fused hooks and dma_crc32c, attr.transmitv).
 */
enum ofl_err ofl_qp_establish(struct ofl_qp *qp, const struct ofl_mpa_params *p,
                              uint32_t emss, uint32_t rx_sn, uint32_t rcv_wnd);

/*
 * Verbs side: checks wr against the QP (state, opcode for this service and
 * options, flags, SGE count, per-opcode rules: one sink for READ, one
 * 8-byte result for atomics and an 8-byte aligned remote TO, totals below
 * 2^31), writes the WQE into the next slot (OFL_E_QP_SQ_FULL when none is
 * free) and rings attr.sq_db with the new producer index. On any error
 * nothing is queued. *out (may be NULL) receives the STag now usable by
 * later WQEs of the same SQ (FAST_REG, REG_SEND: FIG. 11 "returns the STag
 * at once"), the command ID (ISCSI_CMD) or the WQE index (others).
 * Datagram QPs (see "Channel kinds"): SEND, LOCAL_INV, DELAY and FAST_REG
 * only, and on RD also WRITE, READ, ATOMIC_FADD and ATOMIC_CSWAP (the
 * rest of the RDMA family is OFL_E_QP_DG_RDMA; "RDMA on RD"), the
 * message (a Write's with its 12 extension bytes, a Read's response with
 * its 4, an atomic request's 48 extension bytes) at most
 * max_dgram bytes (OFL_E_QP_DG_TOO_LONG), RD: dest.ee names an EE context
 * in use whose slots hold the frame (OFL_E_QP_DG_DEST,
 * OFL_E_QP_DG_TOO_LONG).
 */
enum ofl_err ofl_qp_post_send(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                              uint32_t *out);

/* Verbs side: checks and queues a receive WQE (state, SGE count, total
 * below 2^31, ring room) and rings attr.rq_db. */
enum ofl_err ofl_qp_post_recv(struct ofl_qp *qp,
                              const struct ofl_qp_recv_wr *wr);

/* Which ring a doorbell names. */
enum ofl_qp_ring {
    OFL_QP_RING_SQ = 0,
    OFL_QP_RING_RQ = 1
};

/*
 * Adapter side: a doorbell announced producer index value for a ring in
 * host memory. Refused and ignored: in a state where the ring takes no WQE
 * (the post calls' states; OFL_E_QP_STATE: a late doorbell after RESET
 * must not run WQEs of the previous life), or a value that moves backwards
 * or claims more WQEs than the ring holds (OFL_E_QP_DOORBELL). For rings in
 * caller memory the post calls publish the index themselves.
 */
enum ofl_err ofl_qp_doorbell(struct ofl_qp *qp, enum ofl_qp_ring ring,
                             uint32_t value);

/*
 * Host side of a ring in host memory: encode a work request into a WQE
 * slot of slot_len bytes (the ring's stride) in the byte layout above,
 * with the checks ofl_qp_post_send / ofl_qp_post_recv make that need no
 * QP (opcode known, flags, num_sge fitting the slot, totals below 2^31):
 * OFL_E_QP_WR / OFL_E_QP_SGE, OFL_E_ARG; the slot is untouched on error.
 * The engine re-checks everything when it fetches the slot. ISCSI_CMD
 * takes its command ID from wr.remote_to (the host driver numbers its
 * commands); a datagram SEND's, Write's, Read's or atomic's dest is
 * written when any of it is set (an atomic's after its operands:
 * OFL_SWQE_DG_ATOMIC_*).
 */
enum ofl_err ofl_qp_wqe_send(void *slot, uint32_t slot_len,
                             const struct ofl_qp_wr *wr);
enum ofl_err ofl_qp_wqe_recv(void *slot, uint32_t slot_len,
                             const struct ofl_qp_recv_wr *wr);

/*
 * A host CQ of qp lost a completion (ofl_hcq_flush's
 * OFL_E_QP_HCQ_OVERRUN): the RDMA core's CQ overrun rule, the async event
 * OFL_QP_EVT_CQ_OVERRUN (announced through the port's notify hook with
 * attr.event_vector) and the QP to ERROR (its WQEs flushed). OFL_OK, or
 * ofl_qp_modify's error for a QP already in RESET.
 */
enum ofl_err ofl_qp_cq_overrun(struct ofl_qp *qp);

/*
 * Gives up the access that waits on a page fault ("Unpinned pages", seed
 * 001). Checks qp (OFL_E_ARG) and that an access waits (qp->fault.where
 * set, else OFL_E_QP_STATE); sets qp->fault.give_up and changes nothing
 * else; returns OFL_OK. The next ofl_qp_process (or, inbound, ofl_qp_input)
 * fails the access as OFL_QP_FAULT_FAIL would.
 */
enum ofl_err ofl_qp_fault_fail(struct ofl_qp *qp);

/*
 * Adapter side: does up to budget transmissions (FPDUs or PDUs) at time
 * now: inbound requests first (Read Responses, Atomic Responses, Data-Out),
 * then send WQEs in order (ORD and FENCE honoured, DELAY held until now),
 * then the completions that became due; in ERROR it flushes what was
 * posted. A datagram Send is one transmission; an RD Send waits (no
 * progress) while the QP's ORD or its EE window is full, and is flushed
 * when its EE context is in ERROR. Returns OFL_OK, OFL_E_QP_TX_BLOCKED when the transmit callback
 * refused (call again later), or the error that moved the QP to TERMINATE.
 * OFL_OK also when the budget ran out with work left: a port that runs
 * the engine only on events must call again (ports/posix loops; ofl_iw
 * passes an unbounded budget: a spent one stalled a Write-only sender
 * whose peer sends nothing, 2026-11-29).
 * Under OFL_QP_FAULT_WAIT it first retries what waits on a fault and
 * returns OFL_E_TPT_PAGE_FAULT, QP state unchanged, while an access still
 * waits ("Unpinned pages").
 */
enum ofl_err ofl_qp_process(struct ofl_qp *qp, uint64_t now, uint32_t budget);

/*
 * Adapter side: one inbound TCP segment of this QP's stream (see
 * "Sequence space"). Returns OFL_OK (also for duplicates and segments held
 * for later), OFL_E_QP_STATE when the QP takes no input in its state, or
 * the error of a violation after the Terminate went out. Under
 * OFL_QP_FAULT_WAIT: OFL_E_TPT_PAGE_FAULT, QP state unchanged, when an
 * FPDU waits for a page ("Unpinned pages": bytes from qp->seq.nxt on were
 * not taken and MUST be fed again).
 * Cost: O(seg->len) for framing, CRC and placement (one translation per
 * page placed, one scatter element per receive SGE), plus per FPDU at most
 * ot_cap deferred one-touch pairs and ooo_cap placed-ahead FPDUs looked at
 * (caller-bounded); a segment ahead of a hole: at most 4 FPDUs located,
 * each checked and placed as one.
 */
enum ofl_err ofl_qp_input(struct ofl_qp *qp, const struct ofl_qp_seg *seg);

/* The LLP reports the connection closed (graceful, lost = false) or reset
 * or lost (lost = true): events LLP_CLOSED / LLP_LOST. OFL_E_QP_SERVICE
 * for a datagram QP. */
enum ofl_err ofl_qp_llp_event(struct ofl_qp *qp, bool lost);

/* Send WQEs posted and not yet completed, receive WQEs likewise. */
uint32_t ofl_qp_sq_outstanding(const struct ofl_qp *qp);
uint32_t ofl_qp_rq_outstanding(const struct ofl_qp *qp);

/* The completion status a received Terminate cause gives the oldest
 * in-flight send WQE (table above). */
enum ofl_wc_status ofl_qp_term_status(struct ofl_term_cause cause);

/* ---- demultiplexing (FIG. 16) ----------------------------------------- */

/*
 * QPs by quintuple: an open-addressed hash table (linear probing, removal
 * by backward shift) over a caller array of cap slots (a power of two).
 * The peer picks its address and port, so the slot of a quintuple is
 * SipHash-2-4 (ofl_siphash24) of it under a secret key the caller gives at
 * init (the caller owns randomness: draw it from a good source per table
 * and never send it): a peer that cannot see the key cannot aim many
 * quintuples at one probe run. Every member lies within
 * OFL_QP_DEMUX_PROBE_MAX slots of its home, so a lookup, hit or miss,
 * reads at most that many slots whatever the peer sends. At half load a
 * random key's longest run stays well below the bound (at most 32 slots
 * in a simulation of 10 tables of 65536 slots at half load with uniform
 * homes; 55 to 131 in tables of 8192 at three-quarters load): a table
 * kept at most half full practically never sees OFL_E_QP_DEMUX_CROWDED,
 * and one that does can be filled again under a new key.
 *
 * Hash input, 38 bytes: transport, family, src_port (big-endian), dst_port
 * (big-endian), src_addr[16], dst_addr[16].
 */
#define OFL_QP_DEMUX_PROBE_MAX 64u /* slots a lookup reads, at most */

struct ofl_qp_demux {
    struct ofl_qp **slot;
    uint32_t cap;
    uint32_t count;
    uint64_t k0, k1; /* the SipHash key (little-endian key bytes 0..7, 8..15) */
};

/* Empties d over slots[cap] (cap a power of two) with the 16-byte secret
 * key (OFL_E_ARG for a NULL pointer or a bad cap). Cost: O(cap). */
enum ofl_err ofl_qp_demux_init(struct ofl_qp_demux *d, struct ofl_qp **slots,
                               uint32_t cap, const uint8_t key[16]);
/* Adds qp under qp->attr.tuple: OFL_E_QP_TUPLE_BUSY if that quintuple is
 * taken, OFL_E_QP_DEMUX_FULL when the table is full,
 * OFL_E_QP_DEMUX_CROWDED when the OFL_QP_DEMUX_PROBE_MAX slots from its
 * home are all taken. Cost: one hash and at most OFL_QP_DEMUX_PROBE_MAX
 * slots. */
enum ofl_err ofl_qp_demux_add(struct ofl_qp_demux *d, struct ofl_qp *qp);
/* Removes qp (OFL_E_QP_NO_CONTEXT if absent). Cost: one hash per slot of
 * the probe run after it (backward shift): O(cap) at worst, a few slots
 * under a key the peer cannot see. */
enum ofl_err ofl_qp_demux_remove(struct ofl_qp_demux *d, struct ofl_qp *qp);
/* The QP of a quintuple, or NULL. Cost: one hash and at most
 * OFL_QP_DEMUX_PROBE_MAX slots. */
struct ofl_qp *ofl_qp_demux_find(const struct ofl_qp_demux *d,
                                 const struct ofl_qp_tuple *t);
/* The home slot of t under d's key (0 .. cap - 1; 0 for a NULL
 * argument): where its probe run starts. For tests and benches. Pure. */
uint32_t ofl_qp_demux_home(const struct ofl_qp_demux *d,
                           const struct ofl_qp_tuple *t);
/* FIG. 16 step 1620: OFL_E_QP_NO_CONTEXT when no QP has seg's quintuple
 * (the segment belongs to the host's ordinary NIC path), else
 * ofl_qp_input of that QP. Cost: ofl_qp_demux_find, then ofl_qp_input's. */
enum ofl_err ofl_qp_demux_input(const struct ofl_qp_demux *d,
                                const struct ofl_qp_seg *seg);

/* ---- channel kinds: datagram services (seed 001, seed 002) ------------- */

/*
 * Channel kinds. Seed 002 describes a channel by two attributes:
 * connected (the two QPs are bound; iWARP and iSCSI here) or
 * connectionless (the send descriptor names the destination: "e.g., MAC
 * address and work queue pair number of destination"), and acknowledged
 * ("a descriptor is not completed until an acknowledgement is returned")
 * or not ("the descriptor is completed when the packet is sent onto the
 * wire"). Seed 001 "Transport Services" gives the connectionless kinds:
 *
 *   kind  state it needs           delivery            completion of a Send
 *   RD    the QP + one EE context  in order, once,     acked = 1: when the EE
 *         per remote node, shared  retransmitted       ack covering its frame
 *         by all RD QPs of a node  (go-back-N)         returns; acked = 0:
 *                                                      when the frame left
 *   UD    the QP only              at most once,       when the frame left
 *                                  no retransmission   (the transmit callback
 *                                                      took it)
 *   RAW   the QP only; inbound     software's (frames  when the frame left
 *         frames steered by IPv6   pass untouched)
 *         next header + dst addr
 *
 * Rules every datagram kind shares: a message is one frame ("only single
 * cell packets can be sent in a connectionless channel", seed 002), at
 * most attr.max_dgram bytes of payload, checked at post time and again
 * when the WQE is fetched (OFL_E_QP_DG_TOO_LONG); there is no bind or
 * Send with Invalidate, and UD has no RDMA or atomic (OFL_E_QP_DG_RDMA;
 * RD's RDMA and atomics: "RDMA on RD" below); QPs go RESET -> INIT -> RTR ->
 * RTS by ofl_qp_modify, receive in RTR, RTS, SQD and SQE, and a send WQE
 * that fails its local checks moves the QP to SQE as on a stream.
 *
 * Scaling (seed 001): with N nodes of M processes each talking all to
 * all, reliable connections need M^2 x (N - 1) QPs per node; reliable
 * datagram needs M QPs + (N - 1) EE contexts, because "the end-to-end
 * state held in the EE contexts is shared by all the connectionless QPs
 * communicating between a pair of endnodes".
 *
 * Datagram frame (UD and RD; seed 001 "Data Transactions": "the SANIC
 * hardware adds a transport header and a network header to each frame.
 * The transport header includes sequence numbers ... The network header
 * includes the destination ... address"). Big-endian, 28 bytes, then the
 * payload; it is handed to the transmit callback as one datagram:
 *
 *   0  version u8 = 1
 *   1  kind u8: 1 UD, 2 RD data (Send), 3 RD acknowledgement, 5 RD NAK,
 *      6 RD RDMA Write, 7 RD RDMA Read request, 8 RD RDMA Read (or
 *      atomic) response, 9 RD atomic request (4 unassigned)
 *   2  flags u8: 0x01 SE (solicited, UD and RD Send only); others
 *      reserved 0
 *   3  reserved u8 = 0
 *   4  destination node address u32
 *   8  source node address u32
 *   12 destination QP number u32 (acknowledgement, NAK: 0)
 *   16 source QP number u32 (acknowledgement, NAK: 0)
 *   20 EE sequence number u32: RD data kinds (2, 6-9) their own;
 *      acknowledgement the highest one received in order (it covers
 *      every earlier one); NAK the one it refuses (it covers every
 *      earlier one); UD 0
 *   24 length u16 of what follows the header, the kind's extension and
 *      the payload (acknowledgement: 0 or 8); must equal the frame
 *      length - 28
 *   26 reserved u16 = 0
 *
 * Extensions (offset from byte 28; big-endian; counted in the length;
 * ofl_dg_parse reads them only when the length field equals the frame
 * length, so every byte it loads is inside the frame):
 *
 *   kind          bytes  fields                               length rule
 *   3 ACK         0, 8   0 the refusal block (below), or none == 0 or 8
 *   5 NAK         4, 12  0 code u8 (enum ofl_dg_nak, 1-4)     == 4 or 12
 *                        1 reserved u8 = 0
 *                        2 detail u16: ACCESS / INVALID the
 *                          responder's enum ofl_err, else 0
 *                        4 the refusal block, or none
 *   6 RD Write    12     0 STag u32 (the responder's)         >= 12; the
 *                        4 TO u64                             payload is
 *                                                             the data
 *   7 RD Read     16     0 STag u32, 4 TO u64 (the source)    == 16
 *     request            12 length u32 (bytes asked)
 *   8 RD Read     4      0 sequence number u32 of the Read    >= 4; the
 *     response             (or atomic) request it answers     payload is
 *                                                             the data
 *                                                             (atomic: the
 *                                                             original
 *                                                             value u64)
 *   9 RD atomic   48     0 STag u32, 4 TO u64 (the target)    == 48
 *     request            12 op u8 (RFC 7306: 0 FetchAdd,
 *                          1 Swap, 2 CmpSwap), 13 reserved
 *                          3 bytes = 0, 16 add/swap data u64,
 *                          24 add/swap mask, 32 compare data,
 *                          40 compare mask
 *
 * Refusal block (ACK and NAK, 8 bytes; "Negative acknowledgements"
 * below says why): what became of the frames the acknowledgement covers.
 * Let c be the newest frame it covers (ACK: sn; NAK: sn - 1):
 *
 *   0  code u8: 0, or the NAK code `refused` got (2 ACCESS, 4 INVALID)
 *   1  reserved u8 = 0
 *   2  detail u16: with a code the responder's enum ofl_err, else 0
 *   4  refused u32: every frame after it up to c was delivered; with a
 *      code it was itself refused so, with 0 nothing is said of it;
 *      c - refused <= 2^15 (RFC 1982 distance; refused == c only with an
 *      ACK whose own frame was refused)
 *
 * Without the block an ACK or NAK says that none of the 2^15 frames up to
 * c was refused (2^15 is the largest EE window: the sender's whole
 * window), as acknowledgements did before the block existed.
 *
 * Errors: an undefined kind OFL_E_QP_DG_KIND; a length below the kind's
 * extension, or other than it (or it + 8) for NAK, Read and atomic
 * request, OFL_E_QP_DG_LENGTH; a NAK code outside 1-4 or a detail on SEQ
 * / RNR OFL_E_QP_EE_NAK; an atomic op above 2 OFL_E_RDMAP_ATOMIC_OP; SE
 * on a kind other than UD / RD Send, a QP number on an ACK or NAK, an
 * ACK length other than 0 or 8, the NAK's, the block's or the atomic
 * request's reserved bytes OFL_E_QP_DG_RESERVED; a block code other than 0,
 * 2 and 4, a detail without a code, refused after c or more than 2^15
 * before it OFL_E_QP_EE_REFUSAL.
 *
 * EE contexts (seed 001: they "keep track of sequence numbers,
 * acknowledgments, and time-out values"). Each side of a node pair owns
 * one; the sender numbers RD data frames from snd_isn on, the receiver
 * expects them from rcv_isn on (the caller agrees both at setup).
 * Sequence numbers compare by RFC 1982 (ofl_sn_lt). States (NAK rows:
 * see "Negative acknowledgements" below):
 *
 *   state   event                          next    action
 *   UNUSED  ofl_ee_init                    RTS     numbers, window empty
 *   RTS     ofl_ee_init                    RTS     OFL_E_QP_EE_STATE
 *   RTS     frame sent (by a QP)           RTS     kept in a window slot
 *                                                  until acknowledged; QP's
 *                                                  outstanding count + 1
 *   RTS     ack a, snd_una <= a < snd_nxt  RTS     slots up to a released;
 *           (its refusal block vouches             acked WQEs complete;
 *           for snd_una .. a)                      retries = 0
 *   RTS     the same, its block: snd_una   RTS     snd_una's WQE as its
 *           refused                                NAK's; the rest as above
 *   RTS     the same, its block: a frame   RTS     nothing (not known yet:
 *           after snd_una refused, or              "Lost refusals")
 *           snd_una without a code
 *   RTS     ack or NAK refusing an         RTS     OFL_E_QP_EE_REFUSAL,
 *           outstanding frame that could           nothing
 *           not be refused so
 *   RTS     ack snd_una - 1                RTS     nothing new (a repeat)
 *   RTS     ack before snd_una - 1         RTS     ignored (stale)
 *   RTS     ack at or after snd_nxt        RTS     OFL_E_QP_EE_ACK, nothing
 *   RTS     data sn == rcv_nxt, delivered  RTS     rcv_nxt + 1, ack sn
 *   RTS     data sn before rcv_nxt         RTS     dropped (duplicate),
 *                                                  re-acked rcv_nxt - 1
 *                                                  (refused: NAKed again)
 *   RTS     data sn after rcv_nxt          RTS     OFL_E_QP_EE_SEQ, nothing
 *                                                  (OFL_EE_F_NAK: one SEQ
 *                                                  NAK per gap)
 *   RTS     NAK n, snd_una <= n < snd_nxt  RTS     frames before n as an
 *                                                  ack of n - 1 (its
 *                                                  block); then by code
 *                                                  (below), when known
 *   RTS     NAK before snd_una             RTS     ignored (stale)
 *   RTS     NAK at or after snd_nxt        RTS     OFL_E_QP_EE_ACK, nothing
 *   RTS     tick, deadline passed, retries RTS     go-back-N: every slot
 *           < retry_limit                          from snd_una again
 *   RTS     tick, deadline passed, retries ERROR   OFL_E_QP_EE_RETRY; every
 *           == retry_limit                         WQE waiting for an ack
 *                                                  completes with
 *                                                  OFL_WC_RETRY_EXC_ERR;
 *                                                  queued WQEs naming the
 *                                                  EE are flushed when
 *                                                  reached
 *   ERROR   ofl_ee_init                    RTS     numbers, window empty
 *   ERROR   anything else                  ERROR   OFL_E_QP_EE_STATE
 *
 * (An unacknowledged QP's Send completed when its frame left; if the EE
 * fails later that frame is lost without a second completion: the price
 * of acked = 0, seed 002.)
 *
 * An RD QP holds its next Send (it does not start) while attr.ord of its
 * frames are unacknowledged (seed 001: "The requestor can have multiple
 * outstanding requests ... determined when a QP is created") or while the
 * EE window is full; FENCE waits until every earlier frame of the QP was
 * acknowledged. A Send held so has not begun: in SQD it does not start,
 * and SQ_DRAINED comes once the frames before it are acknowledged. Its
 * local checks (FIG. 15) run when the hold lifts. An in-sequence RD frame that its QP cannot take (no QP,
 * wrong kind or state, no receive WQE, too long) is refused and not
 * acknowledged: the sender retransmits it (a receive WQE posted meanwhile
 * takes it). A frame that can never be taken (its QP does not exist, or
 * is too small for it) is therefore sent again until retry_limit fails the
 * EE, and with it every QP's frames on that node pair. The EE context and
 * every QP that sends through it are serialised by the caller (one lock
 * per node, say).
 *
 * RDMA on RD (seed 001 "Remote Memory Protection": "A process with a
 * datagram node QP (e.g., a QP supporting either reliable datagram or
 * unreliable datagram) that allows RDMA operations, can accept RDMA
 * operations from any node ... that obtains the RKey"; "Transport
 * Services": WQE kinds RDMA read and RDMA write). An RD QP posts
 * OFL_QP_OP_WRITE and OFL_QP_OP_READ with dest.ee and dest.qpn as a Send
 * does, and the atomics below (UD: OFL_E_QP_DG_RDMA; WRITE_IMM, SEND_INV,
 * bind: OFL_E_QP_DG_RDMA on RD too). Each is one frame: a Write's data plus 12
 * extension bytes, and a Read's response data plus 4, within max_dgram
 * and the EE slot (OFL_E_QP_DG_TOO_LONG; the responder's slots are
 * assumed no smaller). The destination QP (an RD QP in RTR, RTS, SQD or
 * SQE, else OFL_E_QP_STATE, not acknowledged, as for a Send) gives the
 * PD and QP number of the remote checks, FIG. 18A a-f through
 * ofl_tpt_check_translate_access (Write: every page translated before
 * any byte is placed) or ofl_tpt_check_access (Read), the same checks as
 * the stream path; a one-shot key is spent (ofl_tpt_note_use). No
 * receive WQE is used. A Read's response is an RD data frame of the
 * responder's EE context: numbered, kept in a window slot (it completes
 * nothing when acknowledged), resent by that EE's timeout, acknowledged
 * by the requester. The requester's Read WQE completes when the response
 * arrives (placed into its sink through the local checks of FIG. 15), not
 * when the request is acknowledged; it holds one of the QP's ORD until
 * then (so FENCE waits for it). Completion: a Write as a Send (acked or
 * not); a Read always at its response.
 *
 *   requester WQE   frame out         responder                   back
 *   WRITE           6 (STag, TO,      checks, places, rcv_nxt+1   ACK
 *                     data)           refused: ACCESS NAK
 *   READ            7 (STag, TO,      checks, response in a slot  ACK, then
 *                     length)         of its EE window            8 (data)
 *                                     refused: ACCESS NAK; too
 *                                     long: INVALID NAK; window
 *                                     full: refused (RNR NAK)
 *   ATOMIC_FADD,    9 (STag, TO, op,  checks, executes once,      ACK, then
 *   ATOMIC_CSWAP      operands)       result in the replay cache  8 (the
 *                                     and the response in a slot  original
 *                                     (below)                     value)
 *
 * Atomics on RD (seed 001 "Transport Services": the FetchOp WQE kind on a
 * QP "that allows RDMA operations"; RFC 7306 FetchAdd and CmpSwap as the
 * stream path carries them, with their masks). The WQE is the stream's
 * (one 8-byte result segment, an 8-byte aligned remote TO; the dest
 * fields after the operands: OFL_SWQE_DG_ATOMIC_*); it sends one kind 9
 * frame (28 + 48 bytes, within max_dgram and the EE slot) and holds one
 * of the QP's ORD until the response, an RD Read response (kind 8) whose
 * payload is the 8-byte original value (big-endian; stored to the result
 * buffer little-endian through the local checks, as the stream path
 * does), completes it: a response of another length completes it
 * BAD_RESP_ERR. The responder, for the request in sequence: a TO not
 * 8-byte aligned INVALID NAK (OFL_E_QP_ATOMIC_ALIGN), no replay cache
 * INVALID NAK (OFL_E_QP_EE_NO_ATOMIC), FIG. 18A a-f with remote atomic
 * over the 8 bytes (ofl_tpt_check_access) or a failed read / write of
 * them ACCESS NAK (the TPT's error; nothing written); then, before it
 * changes anything, a free window slot for the response (else
 * OFL_E_QP_EE_FULL) and a free replay cache entry (else
 * OFL_E_QP_EE_ATOMIC_FULL): both refusals leave the frame not taken and
 * send an RNR NAK when enabled, so the requester asks again later (and
 * after retry_limit rounds its WQE completes RNR_RETRY_EXC_ERR: never a
 * second execution, never SUCCESS). Only then the read, modify, write of
 * the little-endian 64-bit word (a one-shot key is spent), the result
 * recorded and the response queued as a Read's is.
 *
 * Exactly once. A request is executed only in sequence (sn == rcv_nxt),
 * so its retransmission (its ACK or its response lost) arrives as a
 * duplicate and is never executed again. The replay cache (struct
 * ofl_ee_atomic, caller memory in ofl_ee_attr, atomic_cap entries per EE
 * context, atomic_cap a power of two) holds each executed request's
 * sequence number and original value until the requester acknowledges
 * its response, in the entry of its response's sequence number:
 * (resp_sn - snd_isn) mod atomic_cap. An entry is free again once its
 * response is acknowledged (the requester has the value). Held entries'
 * responses are outstanding, fewer than window sequence numbers before
 * the next one's (the window has room: checked first), so atomic_cap >=
 * window never refuses for room; a smaller cache refuses a request whose
 * entry still holds another's result (OFL_E_QP_EE_ATOMIC_FULL). The
 * receiver's record of the request's index (struct ofl_ee_slot rx_cache)
 * names its entry: a duplicate of a request the cache still holds (that
 * entry, that exact sequence number, this EE) is answered from it: its
 * response is sent again at once (not only at the responder's timeout)
 * and nothing is executed. A duplicate from window or more frames back
 * is only acknowledged: a requester resends only what this end has not
 * acknowledged, within window of rcv_nxt (its window is ours); a copy
 * that arrives later has its response from the responder's timeout. A
 * refused atomic (ACCESS, INVALID) completes with the
 * NAK's status, as a refused Read does (its refusal is recorded and
 * repeated: "Lost refusals").
 *
 * Negative acknowledgements. A NAK for sequence number n tells the
 * sender that every frame before n arrived (as an acknowledgement of
 * n - 1 would) and, by its code, what became of n:
 *
 *   code     responder sends it when        n at the     requester
 *                                           responder
 *   SEQ      a frame after rcv_nxt arrives  not taken    go-back-N round
 *            (OFL_EE_F_NAK; once per gap:                from n at once
 *            no other SEQ or RNR NAK until                (retries + 1, as
 *            rcv_nxt is taken)                            a timeout round)
 *   RNR      a Send in sequence finds no    not taken    nothing now; the
 *            receive WQE, a Read request                 round from n at
 *            no free slot, an atomic no                  now + rnr_delay
 *            free slot or cache entry                    (0: timeout)
 *            (OFL_EE_F_NAK)
 *   ACCESS   a Write, Read or atomic in     consumed     n's WQE completes
 *            sequence fails its remote      (rcv_nxt+1)  REM_ACCESS_ERR,
 *            checks or its placement;                    its QP to ERROR;
 *            detail = the error                          n not resent
 *   INVALID  a Read asks more than a        consumed     as ACCESS, status
 *            response frame holds; an                    REM_INV_REQ_ERR
 *            atomic's TO is not aligned
 *            or its EE has no replay cache
 *
 * The retransmission each causes: SEQ immediate, RNR delayed, ACCESS and
 * INVALID none. The bound: SEQ and RNR rounds count against retry_limit
 * like timeout rounds (retries returns to 0 only when an acknowledgement
 * or NAK releases a frame), so a receiver that stays without receive
 * WQEs makes the sender fail the EE after retry_limit + 1 RNR NAKs for
 * the same frame: that frame's WQE completes RNR_RETRY_EXC_ERR, the
 * others RETRY_EXC_ERR (OFL_E_QP_EE_RETRY from ofl_ee_tick, or from
 * ofl_qp_dgram_input for the SEQ NAK that finds the limit reached). The
 * QP consequence of ACCESS / INVALID: seed 001 says only that "the remote
 * node is not granted access"; offload follows IBA's rule for a remote
 * error (the requester QP goes to ERROR, its other WQEs flush) and leaves
 * the EE context, shared with other QPs, in RTS. A NAK the transmit
 * refuses is dropped (not held as an acknowledgement is): the sender's
 * timeout covers it. Without OFL_EE_F_NAK at the receiver, SEQ and RNR
 * NAKs are never sent and the timeout recovers, as before NAKs existed.
 *
 * Lost refusals. An acknowledgement of a covers every frame up to a, and
 * a NAK for n every frame before n, refused ones too: if a refusal's NAK
 * were lost and a later acknowledgement counted as delivery, the refused
 * WQE would complete SUCCESS, a remote error reported as success (IBA
 * completes a request the responder refused with the remote error, never
 * SUCCESS). So each ACK and NAK carries the refusal block (wire
 * format above) and the sender releases a frame as delivered only when a
 * block vouches for it. The responder keeps the newest refused frame
 * (nak_sn, nak_code, nak_err) and, for each of the last `window` frames
 * it consumed, a record in the EE slot of its index (struct ofl_ee_slot
 * rx_code, rx_err, rx_gap: the distance to the refusal before it):
 *
 *   responder sends                      its block names
 *   ACK (in order, repeated, held),      the newest refused frame (none
 *   SEQ / RNR NAK                        within 2^15: no block)
 *   ACCESS / INVALID NAK for n           the refused frame before n
 *   a duplicate of a refused frame       its NAK again, naming the
 *   still held (or nak_sn)               refused frame before it (not
 *                                        held: a block that says nothing)
 *   any other duplicate                  an ACK as above
 *
 * The sender, for the frames snd_una .. c an ACK or NAK newly covers:
 *
 *   block's refused frame                sender
 *   before snd_una, or no block          all delivered: released, their
 *                                        WQEs complete SUCCESS (as
 *                                        without the block)
 *   snd_una, with a code                 snd_una's WQE completes as that
 *                                        NAK's would (REM_ACCESS_ERR /
 *                                        REM_INV_REQ_ERR, its QP to
 *                                        ERROR, the EE goes on), the
 *                                        rest as delivered
 *   after snd_una, or snd_una with 0     not known: nothing released, and
 *                                        the NAK's own code not acted on
 *                                        (a SEQ NAK still starts its
 *                                        round); the next round resends
 *                                        snd_una on, and each refused
 *                                        frame's repeated NAK names the
 *                                        refusal before it, which settles
 *                                        the frames up to it
 *
 * Rule: no loss, repetition or reordering of NAKs and acknowledgements
 * completes a refused frame SUCCESS: the responder vouches only for
 * frames it delivered (the newest refusal is kept exactly, each record
 * keeps the refusal before its frame, and a record no longer held
 * vouches for nothing), and the sender releases as delivered only what
 * is vouched for. Frames not settled are resent within retry_limit like
 * any other, so their worst outcome is RETRY_EXC_ERR. When nothing was
 * refused within 2^15 frames the blocks are absent and everything goes
 * as before they existed. Window rule (liveness, not the rule above):
 * the records span the responder's own
 * window, so both ends of an EE MUST use the same window (as they agree
 * the ISNs); with a sender window larger than the receiver's, a refusal
 * more than the receiver's window back whose NAKs were all lost leaves
 * its frames unsettled until retry_limit fails the EE (an error, not a
 * false SUCCESS). A refusal, in a NAK or a block, of an outstanding frame
 * that could not be refused so (a Send or a Read response; INVALID of a
 * Write; ACCESS and INVALID fit a Read and an atomic request) is
 * OFL_E_QP_EE_REFUSAL, nothing changed. An unacknowledged QP's
 * Write completed when it left (acked = 0, seed 002): its refusal still
 * moves the QP to ERROR.
 *
 * There is no key or source check on UD and RD (seed 001: a datagram QP
 * "permits incoming messages from any send work queue on any other remote
 * node"): whoever can put a frame with a valid header and source address
 * on the fabric reaches any datagram QP, and an RD frame carrying the
 * receiver's rcv_nxt is taken in place of the real one. Isolation is the
 * fabric's.
 *
 * Raw datagrams (seed 001: "a client process can register ... to direct
 * datagrams for a particular upper level protocol (e.g., TCP and UDP) to
 * a particular QP. SANIC hardware can demultiplex incoming IPv6 streams
 * of datagrams based on a next header field as well as the destination
 * IP address"): a raw Send hands its gathered bytes to the transmit
 * callback as they are; an inbound frame must be an IPv6 packet (version
 * 6, 40-byte header, payload length = frame length - 40; the next header
 * of the fixed header is used, extension headers are not walked) and is
 * placed whole into the receive WQE of the QP the steering table names.
 *
 * Receiving a datagram: the header is checked in full, then the node
 * address, the EE context (RD: ofl_qp_node_ee of the source address, in
 * its bounded run) and sequence, the QP (number, kind, state,
 * max_dgram) and a posted receive WQE; only then is anything changed. The
 * receive WQE is consumed: payload placed at offset 0 through the local
 * checks (FIG. 15), CQE with OFL_CQE_SRC, src_addr and src_qpn (RD, UD);
 * a WQE too small completes with OFL_WC_LOC_LEN_ERR, one failing its
 * checks with the TPT's status (the frame counts as delivered).
 */

#define OFL_DG_HDR_LEN 28
#define OFL_DG_VERSION 1
#define OFL_DG_F_SE 0x01
#define OFL_RAW_HDR_LEN 40 /* the fixed IPv6 header (RFC 8200 §3) */

/* Datagram header kinds. */
enum ofl_dg_kind {
    OFL_DG_UD = 1,
    OFL_DG_RD = 2,       /* RD Send */
    OFL_DG_ACK = 3,
    /* 4 is unassigned (refused as OFL_E_QP_DG_KIND) */
    OFL_DG_NAK = 5,      /* RD negative acknowledgement */
    OFL_DG_RD_WRITE = 6, /* RD RDMA Write */
    OFL_DG_RD_READ = 7,  /* RD RDMA Read request */
    OFL_DG_RD_RESP = 8,  /* RD RDMA Read (or atomic) response */
    OFL_DG_RD_ATOMIC = 9 /* RD atomic request (RFC 7306 fields) */
};

/* NAK codes (the NAK extension's code byte). */
enum ofl_dg_nak {
    OFL_DG_NAK_SEQ = 1,     /* sequence error: resend from sn now */
    OFL_DG_NAK_ACCESS = 2,  /* remote access refused (detail: the error) */
    OFL_DG_NAK_RNR = 3,     /* no receive WQE (or no room for a Read
                               response): resend from sn later */
    OFL_DG_NAK_INVALID = 4  /* the request can never be served (detail:
                               the error) */
};

/* Extension bytes after the 28-byte header, per kind (counted in len). */
#define OFL_DG_NAK_EXT 4
#define OFL_DG_REF_EXT 8   /* the refusal block of an ACK or NAK (optional:
                              after the NAK's 4 bytes) */
#define OFL_DG_REF_RUN 0x8000u /* frames a block (or its absence) speaks
                                  for at most: the largest EE window */
#define OFL_DG_WRITE_EXT 12
#define OFL_DG_READ_EXT 16
#define OFL_DG_RESP_EXT 4
#define OFL_DG_ATOMIC_EXT 48
#define OFL_DG_ATOMIC_RESULT 8 /* an atomic response's payload */

/* A datagram header, decoded (with its kind's extension). */
struct ofl_dg_hdr {
    uint8_t kind;        /* enum ofl_dg_kind */
    uint8_t flags;       /* OFL_DG_F_SE */
    uint16_t len;        /* bytes after the header: extension + payload */
    uint32_t dst_addr;
    uint32_t src_addr;
    uint32_t dst_qpn;
    uint32_t src_qpn;
    uint32_t sn;         /* EE sequence number (RD kinds, ACK, NAK) */
    uint32_t stag;       /* RD_WRITE, RD_READ: the responder's STag */
    uint64_t to;         /* RD_WRITE, RD_READ: the responder's TO */
    uint32_t rlen;       /* RD_READ: bytes asked; RD_RESP: the sequence
                            number of the Read request it answers */
    uint8_t nak;         /* NAK: enum ofl_dg_nak */
    uint8_t reserved;
    uint16_t nak_err;    /* NAK ACCESS / INVALID: the responder's enum
                            ofl_err (informational), else 0 */
    /* ACK, NAK: the refusal block, present when len is the kind's
     * extension + OFL_DG_REF_EXT (else every ref_ field is 0) */
    uint8_t ref_code;    /* 0, OFL_DG_NAK_ACCESS or OFL_DG_NAK_INVALID */
    uint8_t ref_reserved;
    uint16_t ref_err;    /* with ref_code: the responder's enum ofl_err */
    uint32_t ref_sn;     /* every frame after it up to the newest covered
                            was delivered; ref_code: what it got */
    /* RD_ATOMIC (RFC 7306 §5.1's fields; 0 for every other kind): */
    uint8_t aop;         /* enum ofl_rdmap_atomic_op: 0 .. 2 */
    uint8_t reserved3[7];
    uint64_t add_swap, add_swap_mask, compare, compare_mask;
};

/* Bytes of kind's extension (0 for UD, RD, ACK and undefined kinds; an
 * ACK's or NAK's refusal block, OFL_DG_REF_EXT more, is not counted).
 * Pure. */
uint32_t ofl_dg_ext_len(uint8_t kind);

/* Decodes the header of frame[0 .. len) and its kind's extension (an
 * ACK's or NAK's refusal block too) and checks them against the tables
 * above: OFL_E_QP_DG_SHORT, _VERSION, _KIND, _RESERVED, _LENGTH,
 * OFL_E_QP_EE_NAK, OFL_E_QP_EE_REFUSAL. Pure. Cost: O(1). */
enum ofl_err ofl_dg_parse(const uint8_t *frame, size_t len,
                          struct ofl_dg_hdr *h);

/* Encodes h (its kind's unused fields must be zero, h->len the extension
 * plus the payload that will follow; an ACK's or NAK's refusal block when
 * h->len holds it) into out[0 .. 28 + its extension [+ the block]):
 * OFL_E_ARG when h breaks the rules ofl_dg_parse checks, OFL_E_SIZE when
 * cap is smaller. */
enum ofl_err ofl_dg_build(const struct ofl_dg_hdr *h, uint8_t *out,
                          size_t cap);

/* EE context states. */
enum ofl_ee_state {
    OFL_EE_UNUSED = 0,
    OFL_EE_RTS = 1,
    OFL_EE_ERROR = 2
};

/* One unacknowledged RD frame kept for retransmission. */
struct ofl_ee_slot {
    struct ofl_qp *qp;  /* the QP that sent it */
    uint32_t epoch;     /* qp->dg_epoch when it was sent */
    uint32_t wqe;       /* its SQ index */
    uint32_t len;       /* frame bytes in the slot buffer */
    uint8_t complete;   /* the WQE completes when this frame is acked */
    uint8_t read;       /* an RD Read or atomic request: its WQE waits
                           for the response, not for the
                           acknowledgement */
    /* The receiver's record of the received sequence number with this
     * index (one of the last `window` consumed; "Lost refusals"): */
    uint8_t rx_code;    /* 0 delivered, else the ACCESS / INVALID code */
    uint8_t reserved;
    uint16_t rx_err;    /* with rx_code: the NAK's detail */
    uint16_t rx_gap;    /* with rx_code: how far back the refused frame
                           before it lies (1 .. 2^15; 0: none that near) */
    uint16_t cache;     /* sender: an RD atomic response's replay cache
                           entry + 1, freed when it is acknowledged (0:
                           none) */
    uint16_t rx_cache;  /* receiver: the replay cache entry + 1 that the
                           RD atomic request with this index filled, how
                           its duplicate finds it (0: none) */
};

/* A replay cache entry (offload.h "Atomics on RD"): an RD atomic request
 * this end executed as responder, held until the requester acknowledges
 * its response. Only ofl_ee_ / ofl_qp_ functions change the fields. */
struct ofl_ee_atomic {
    uint64_t orig;      /* the original value (RFC 7306 Original Remote
                           Data Value) the response carries */
    uint32_t sn;        /* the request's EE sequence number (a duplicate
                           is answered only when it matches) */
    uint32_t resp_sn;   /* its response's sequence number in this EE; the
                           entry's index is (resp_sn - snd_isn) mod
                           atomic_cap */
    uint8_t used;       /* 1: holds a result (free again once resp_sn is
                           acknowledged) */
    uint8_t reserved[7];
};

/* Setup of an EE context (caller memory). */
struct ofl_ee_attr {
    uint32_t local_addr;     /* this node's address */
    uint32_t remote_addr;    /* the other node's */
    uint32_t snd_isn;        /* first sequence number sent */
    uint32_t rcv_isn;        /* first sequence number expected */
    uint32_t window;         /* frames unacknowledged at most, a power of
                                two, 1 .. 2^15; the same at both ends
                                (the receiver's refusal records span it:
                                "Lost refusals") */
    uint32_t slot_size;      /* bytes per retransmission slot, > 28 */
    uint8_t *buf;            /* window * slot_size bytes */
    struct ofl_ee_slot *slot; /* window entries */
    uint64_t timeout;        /* ticks of `now` before a retransmission */
    uint32_t retry_limit;    /* retransmission rounds before ERROR */
    ofl_qp_transmit_fn transmit; /* acknowledgements and retransmissions */
    void *transmit_ctx;
    uint32_t flags;          /* OFL_EE_F_NAK */
    uint64_t rnr_delay;      /* ticks before resending after an RNR NAK
                                (0: timeout) */
    struct ofl_ee_atomic *atomic; /* the responder's replay cache:
                                atomic_cap entries (NULL when 0) */
    uint32_t atomic_cap;     /* 0, or a power of two 1 .. 2^15 (an entry
                                sits at its response's sequence number
                                mod atomic_cap); 0: RD atomics to this
                                end are refused (INVALID NAK); >= window:
                                never full */
    uint32_t reserved;       /* 0 */
};

/* EE flags. OFL_EE_F_NAK: this end, as receiver, sends sequence and RNR
 * NAKs (without it, as before NAKs existed, it stays silent and the
 * sender's timeout resends). Access and invalid-request NAKs are always
 * sent; NAKs received are always acted on. */
#define OFL_EE_F_NAK 0x1u

/* Counters (informational). */
struct ofl_ee_stats {
    uint64_t tx_frames;      /* RD data frames sent the first time */
    uint64_t rtx_frames;     /* frames sent again */
    uint64_t rx_frames;      /* RD data frames delivered */
    uint64_t dup_frames;     /* duplicates dropped (and re-acked) */
    uint64_t acks_tx, acks_rx;
    uint64_t naks_tx, naks_rx; /* NAKs sent; NAKs acted on */
};

/* An end-to-end context: one per remote node, shared by every RD QP of the
 * node (seed 001 "Transport Services"). Only ofl_ee_ / ofl_qp_ functions
 * change the fields. */
struct ofl_ee {
    struct ofl_ee_attr attr;
    uint8_t state;           /* enum ofl_ee_state */
    uint8_t ack_pending;     /* an acknowledgement waits for the transmit */
    uint8_t nak_sent;        /* receiver: a sequence or RNR NAK for rcv_nxt
                                went out; no other until rcv_nxt arrives */
    uint8_t rnr_wait;        /* sender: an RNR NAK for snd_una holds the
                                resend until the deadline */
    uint32_t nak_sn;         /* receiver: the newest frame refused with
                                an access / invalid NAK (nak_code != 0);
                                older ones: struct ofl_ee_slot rx_ */
    uint8_t nak_code;
    uint8_t reserved2;
    uint16_t nak_err;
    uint32_t snd_una;        /* oldest unacknowledged */
    uint32_t snd_nxt;        /* next to send */
    uint32_t rtx_next;       /* next to send again (== snd_nxt: none) */
    uint32_t rcv_nxt;        /* next expected */
    uint32_t retries;        /* rounds since the last progress */
    uint64_t deadline;       /* retransmit when now reaches it */
    struct ofl_ee_stats stats;
};

/* Initialises ee (RTS, window empty, replay cache empty) from a (flags and
 * rnr_delay are read when used and may be changed in ee->attr while RTS):
 * window a power of two 1 .. 2^15, slot_size > 28, buf, slot and transmit
 * present, atomic_cap 0 or a power of two at most 2^15 and atomic
 * present when it is not 0 (OFL_E_ARG). ee must
 * be UNUSED (zeroed, as ofl_qp_node_init leaves it) or ERROR: an RTS EE is
 * refused (OFL_E_QP_EE_STATE), its window holds QPs' frames. A Send
 * fetched before the EE was set up again is checked again when it starts:
 * too long for the new slots, it completes OFL_WC_LOC_LEN_ERR. */
enum ofl_err ofl_ee_init(struct ofl_ee *ee, const struct ofl_ee_attr *a);

/*
 * The caller's clock for ee (no clock in the core): sends a pending
 * acknowledgement, and when frames are unacknowledged at now >= deadline
 * starts a go-back-N round (retries + 1, deadline = now + timeout) or,
 * after retry_limit rounds, moves ee to ERROR, completes the WQEs waiting
 * for its acks with OFL_WC_RETRY_EXC_ERR (the frame an RNR NAK held:
 * OFL_WC_RNR_RETRY_EXC_ERR) and returns OFL_E_QP_EE_RETRY. After an RNR
 * NAK the deadline is now + rnr_delay.
 * Sends what is due to be sent again while the transmit takes it
 * (OFL_E_QP_TX_BLOCKED when it refused: call again). OFL_E_QP_EE_STATE
 * unless RTS.
 */
enum ofl_err ofl_ee_tick(struct ofl_ee *ee, uint64_t now);

/* Frames of ee sent and not yet acknowledged. */
uint32_t ofl_ee_outstanding(const struct ofl_ee *ee);

/*
 * A node: its address, its datagram QPs by QP number (a caller array of
 * qp_cap slots: QP n sits in slot n) and its EE contexts (ee_cap of them,
 * one per remote node it talks RD to; each set up by ofl_ee_init in the
 * context ofl_qp_node_ee_place gives for its remote address).
 *
 * Finding the EE of an RD frame. Every RD frame names its source node
 * and is looked up by it, so the work must be bounded by the frame, not
 * by ee_cap, which the peer cannot see (issue 26 item 6). The EE of
 * remote address A lives in A's run: the OFL_QP_NODE_EE_PROBE_MAX
 * contexts from home(A) on (cyclically); ofl_qp_node_ee reads the whole
 * run, hit or miss, and nothing else. An unused context does not end the
 * run: contexts are set up in any order and never move, so nothing needs
 * shifting to keep a run closed. home(A) is SipHash-2-4 (ofl_siphash24) of A's 4
 * bytes, big-endian, under the node's secret key (ofl_qp_node_ee_key):
 * its low 32 bits times ee_cap, the high 32 bits of the product (0 ..
 * ee_cap - 1, as even as a modulo and without a division: ee_cap need
 * not be a power of two). When ee_cap <= OFL_QP_NODE_EE_PROBE_MAX the
 * run is the whole table from context 0 and no hash is taken: any
 * context serves any address, as before the bound. In a larger table an
 * EE set up outside its address's run (ofl_ee_init on a context
 * ofl_qp_node_ee_place did not give) is never found: its frames are
 * refused with OFL_E_QP_EE_NONE. Load: in simulations with uniform homes
 * and first-unused placement (1000 tables of 1024 contexts, 200 of 4096,
 * 20 of 65536) no EE placed into a quarter-full table lay 15 or more
 * contexts past its home, while half-full tables of 1024 (300 of them)
 * needed up to 27: keep ee_cap at least four
 * times the EEs placed, and OFL_E_QP_EE_CROWDED practically never
 * happens (one that does can place again under a new key, after
 * ofl_qp_node_init).
 */
#define OFL_QP_NODE_EE_PROBE_MAX 16u /* EE contexts a lookup reads, at most */

struct ofl_qp_node {
    uint32_t addr;
    struct ofl_qp **qp;
    uint32_t qp_cap;
    struct ofl_ee *ee;
    uint32_t ee_cap;
    uint64_t ee_k0, ee_k1; /* the EE key (little-endian key bytes 0..7,
                              8..15; ofl_qp_node_ee_key) */
};

/* Initialises node (empty directory; every EE context zeroed: UNUSED; the
 * EE key all zeros). OFL_E_ARG when qps is NULL or qp_cap is 0, or ee is
 * NULL with ee_cap. Cost: O(qp_cap + ee_cap). */
enum ofl_err ofl_qp_node_init(struct ofl_qp_node *node, uint32_t addr,
                              struct ofl_qp **qps, uint32_t qp_cap,
                              struct ofl_ee *ee, uint32_t ee_cap);

/* Sets node's 16-byte secret EE key, which places every home ("Finding
 * the EE of an RD frame"; the caller owns randomness: draw it from a
 * good source per node and never send it). Give it before the first EE
 * is set up: OFL_E_QP_EE_STATE while any context is in use (a new key
 * moves every home, and an EE left outside its run would be lost);
 * OFL_E_ARG for a NULL pointer. Without it the key is all zeros, which a
 * peer can compute: lookups stay bounded, but whoever picks the addresses
 * this node talks to can crowd one run. Matters only when ee_cap >
 * OFL_QP_NODE_EE_PROBE_MAX. Cost: O(ee_cap). */
enum ofl_err ofl_qp_node_ee_key(struct ofl_qp_node *node,
                                const uint8_t key[16]);

/* Enters qp (an RD or UD QP whose attr.node is node) under its QP number:
 * OFL_E_ARG (other node, qpn >= qp_cap), OFL_E_QP_SERVICE (not RD/UD),
 * OFL_E_QP_QPN_BUSY (another QP has the number). */
enum ofl_err ofl_qp_node_add(struct ofl_qp_node *node, struct ofl_qp *qp);

/* Removes qp (OFL_E_QP_DG_NO_QP if it is not there). Its frames still in
 * EE windows stop naming it (they are still sent again and acknowledged,
 * but complete nothing): remove a QP before its memory is reused or freed,
 * or created again. */
enum ofl_err ofl_qp_node_remove(struct ofl_qp_node *node, struct ofl_qp *qp);

/* The EE context of node whose remote address is addr (the first in its
 * run, in run order), or NULL. Cost: one SipHash of 4 bytes and at most
 * OFL_QP_NODE_EE_PROBE_MAX contexts, hit or miss (ee_cap contexts and no
 * hash when ee_cap <= OFL_QP_NODE_EE_PROBE_MAX): bounded whatever the
 * frame's source address. */
struct ofl_ee *ofl_qp_node_ee(const struct ofl_qp_node *node, uint32_t addr);

/* Where the EE for remote address addr must be set up: *ee = the context
 * in addr's run that holds addr (RTS: ofl_ee_init refuses it; ERROR: it
 * may be set up again), else the first unused one of the run; initialise
 * it with ofl_ee_init and remote_addr = addr, and name it in a datagram
 * SEND by its index (dest.ee = *ee - node->ee). OFL_E_QP_EE_CROWDED (*ee
 * NULL) when the run holds neither (ee_cap 0 included); OFL_E_ARG for a
 * NULL pointer. Cost: as ofl_qp_node_ee. */
enum ofl_err ofl_qp_node_ee_place(struct ofl_qp_node *node, uint32_t addr,
                                  struct ofl_ee **ee);

/* The context where addr's run starts (0 .. ee_cap - 1; 0 when ee_cap <=
 * OFL_QP_NODE_EE_PROBE_MAX or for a NULL node). For tests and benches.
 * Pure. */
uint32_t ofl_qp_node_ee_home(const struct ofl_qp_node *node, uint32_t addr);

/*
 * One received UD or RD frame for node at time now (the checks and their
 * order are described above). RD data: in sequence and delivered ->
 * acknowledged at once through the EE's transmit (held for ofl_ee_tick
 * when refused); a duplicate -> OFL_OK, dropped, re-acknowledged (or
 * re-NAKed: "Negative acknowledgements"). An acknowledgement releases
 * the frames it covers when its refusal block vouches for them (a
 * refused snd_una completes as its NAK would; "Lost refusals"); a NAK
 * does the same for the frames before it, then acts by its code. A
 * refusal of a frame that could not be refused so is
 * OFL_E_QP_EE_REFUSAL. Returns OFL_OK or the named error of the first
 * check that failed; on an error nothing changed, except: a SEQ or RNR
 * NAK may have been sent (OFL_E_QP_EE_SEQ,
 * OFL_E_QP_RQ_EMPTY, OFL_E_QP_EE_FULL, OFL_E_QP_EE_ATOMIC_FULL, and
 * OFL_E_TPT_PAGE_FAULT for a frame that waits on a page not present
 * under OFL_QP_FAULT_WAIT: "Unpinned pages", the fault recorded); an RD
 * Write, Read or atomic refused by its checks returns the TPT's (or
 * OFL_E_QP_DG_TOO_LONG, OFL_E_QP_ATOMIC_ALIGN, OFL_E_QP_EE_NO_ATOMIC)
 * error after it was consumed and NAKed; a Read or atomic response
 * nobody waits for (OFL_E_QP_UNEXPECTED) or of the wrong length
 * (OFL_E_QP_RESP_MISMATCH, the WQE completes BAD_RESP_ERR) was consumed
 * and acknowledged; a duplicate atomic request the replay cache holds
 * had its response sent again; a SEQ
 * NAK at the retry limit failed the EE (OFL_E_QP_EE_RETRY). Cost: O(len)
 * for the payload; an RD frame adds ofl_qp_node_ee (one hash and at
 * most OFL_QP_NODE_EE_PROBE_MAX EE contexts, whatever its source
 * address); an acknowledgement or NAK releases at most the EE window, each frame one this end sent, and a SEQ NAK
 * resends at most the window; a Read response looks at most the SQ depth
 * of WQEs; an atomic request, or its duplicate, looks at one cache entry
 * (O(1)).
 */
enum ofl_err ofl_qp_dgram_input(struct ofl_qp_node *node, const uint8_t *frame,
                                size_t len, uint64_t now);

/* A raw steering entry: IPv6 next header + destination address -> QP. */
struct ofl_qp_steer_entry {
    struct ofl_qp *qp;       /* NULL: free */
    uint8_t next_header;
    uint8_t reserved[3];
    uint8_t addr[16];
};

/* The raw steering table: cap caller entries, searched linearly. */
struct ofl_qp_steer {
    struct ofl_qp_steer_entry *e;
    uint32_t cap;
    uint32_t count;
};

/* Initialises st over e[cap] (cap >= 1), all free. */
enum ofl_err ofl_qp_steer_init(struct ofl_qp_steer *st,
                               struct ofl_qp_steer_entry *e, uint32_t cap);

/* Steers frames with next_header and destination addr[16] to qp (a RAW
 * QP, else OFL_E_QP_SERVICE): OFL_E_QP_STEER_BUSY when that pair is
 * steered already, OFL_E_QP_STEER_FULL when no entry is free. */
enum ofl_err ofl_qp_steer_add(struct ofl_qp_steer *st, uint8_t next_header,
                              const uint8_t addr[16], struct ofl_qp *qp);

/* Removes the pair (OFL_E_QP_STEER_NONE when it is not steered). */
enum ofl_err ofl_qp_steer_remove(struct ofl_qp_steer *st, uint8_t next_header,
                                 const uint8_t addr[16]);

/* The QP steered for the pair, or NULL. Cost: O(cap), a linear search
 * (caller-bounded: a table of a few addresses per node). */
struct ofl_qp *ofl_qp_steer_find(const struct ofl_qp_steer *st,
                                 uint8_t next_header, const uint8_t addr[16]);

/*
 * One received raw frame: IPv6 checks (OFL_E_QP_DG_SHORT,
 * OFL_E_QP_RAW_NOT_IPV6, OFL_E_QP_DG_LENGTH), steering
 * (OFL_E_QP_STEER_NONE), then the QP (state: OFL_E_QP_STATE, max_dgram:
 * OFL_E_QP_DG_TOO_LONG, a receive WQE: OFL_E_QP_RQ_EMPTY); then the whole
 * frame is placed into the receive WQE and completes it. On an error
 * nothing changed. Under OFL_QP_FAULT_WAIT a receive buffer page not
 * present: OFL_E_TPT_PAGE_FAULT, the frame not taken (dropped as on UD;
 * "Unpinned pages"). Cost: ofl_qp_steer_find's O(cap) (caller-bounded),
 * then O(len).
 */
enum ofl_err ofl_qp_raw_input(const struct ofl_qp_steer *st,
                              const uint8_t *frame, size_t len);
#endif /* OFL_ENABLE_QP */

/* ======================================================================== */
/* ap: apertures, nonces, dual event queues                                 */
/* ======================================================================== */
#if OFL_ENABLE_AP
/*
 * Memory-mapped networking through apertures (seed 004, Solarflare's
 * "Network interface and protocol"): a window of one host's PCI address
 * space is mapped across the network onto a window of another host's
 * memory. This section holds the NIC-side decisions of that scheme and the
 * two small protocols around it. It rests on the base section only.
 *
 *   outgoing table  FIG. 10: a PCI write that lands in an outgoing aperture
 *                   becomes a CI frame (or an IPv4/UDP datagram) for
 *                   <host:in-index> with the aperture's nonce and sequence
 *                   number (FIG. 12).
 *   incoming table  FIG. 11: a CI frame names an incoming aperture by
 *                   in-index; checks (a)-(e), extent and narrowing decide,
 *                   and the data becomes a PCI write base + offset through
 *                   the port's DMA, split into bursts; consecutive
 *                   records for adjacent addresses may be merged into
 *                   one burst ("if consecutive CI data packets arrive
 *                   they may be coalesced into larger PCI bursts").
 *   reads           "In the case of a read request the analogous
 *                   operation occurs" (seed 004, the paragraph before
 *                   "In this implementation the network packet also
 *                   contains the nonce bits"): a PCI read of an outgoing
 *                   aperture becomes a read request record; the remote
 *                   NIC runs the same checks and extent, PCI-reads base +
 *                   offset and sends the data back in a read response;
 *                   the originator matches it to its pending read and
 *                   completes the PCI read.
 *   cache           FIG. 5: a small set-associative copy of hot entries in
 *                   front of either table.
 *   messages        CONNECT / ACCEPT / CLOSE / ALIVE / ALIVEACK / ERROR as
 *                   UDP datagrams, and the connection state machine.
 *   event queues    FIG. 8, 9, 13 (prefix ofl_evq_): the per-port
 *                   out-of-band queue in the application's memory, its
 *                   variable-length companion, and the OS queue.
 *   work queue      the credit-style shared queue between two endpoints.
 *
 * Every frame, every message, every pointer written by the other side and
 * every field an application programs is untrusted.
 *
 * Aperture states (both tables). (a) "valid" means OPEN.
 *
 *   state    call                                     next    who
 *   FREE     ofl_ap_in_program / _out_program         CLOSED  OS only
 *   CLOSED   program OFL_AP_*_STATE = OPEN            OPEN    OS, or owner if
 *                                                             granted STATE
 *   OPEN     program OFL_AP_*_STATE = CLOSED          CLOSED  OS, or owner
 *                                                             (no grant)
 *   any      ofl_ap_in_clear / ofl_ap_out_clear       FREE    OS only
 *
 * Privilege split (seed 004 "Enhanced Aperture Mappings and Nonce Bits",
 * FIG. 10 note 3). Every programming call names the caller's privilege and,
 * for an application, its port. The OS may program every field. An
 * application may program only apertures its port owns, and of those only
 * the field groups the OS granted in the entry's app_fields; groups marked
 * "OS only" below can never be granted ("base address of incoming
 * aperture", "source host bits", the PCI layout). The OS names owner and
 * grant together (OWNER); OFL_AP_*_APP_DEFAULT is the seed's
 * user-programmable set (nonce and destination host). An aperture created
 * without OWNER is the OS's own (OFL_AP_F_OS_OWN): no port (port 0
 * included) programs it, not even to close it. For an untrusted
 * application the OS grants nothing and runs the connection protocol
 * itself. Closing (STATE =
 * CLOSED alone) only takes access away: the owner needs no grant for it,
 * and the rest of the entry is not validated again.
 *
 * Incoming checks, in the order they run. The seed lists (a)-(e) and lets
 * an implementation keep any subset ("Any one or more of these checks may
 * be implemented or omitted"); here the identity checks run before (b), so
 * that a sender that is not who it claims never learns the expected
 * sequence number, and a stale connection is reported as a nonce failure:
 *
 *   step  check                                           error
 *   -     EtherType CI (0x88B5) or IPv4/UDP               OFL_E_AP_NOT_CI
 *   -     frame structure, version, lengths, reserved     _TRUNCATED _VERSION
 *                                                         _MALFORMED
 *   -     record header checksum, end-to-end CRC32c       _HDR_CHECKSUM _CRC
 *   -     destination MAC and cluster are ours            _NOT_FOR_US
 *   -     in-index inside the table                       _INDEX
 *   (a)   aperture OPEN                                   _INVALID
 *   -     record kind matches the aperture type           _TYPE
 *   (c)   nonce equals the aperture's current nonce       _NONCE
 *   (d)   Ethernet source equals the expected one         _SRC_MAC
 *   (e)   source cluster / IPv4 under the netmask         _SRC_ADDR
 *   (b)   sequence number equals the expected one         _SEQ
 *   -     read request: length 1 .. OFL_AP_MAX_WRITE      _READ_LEN
 *   -     offset + length inside the size                 _EXTENT
 *   -     inside the narrowed sub-range                   _NARROW
 *   -     read request: a reply frame with room for the   _READ_REPLY
 *         response, for the requester's host
 *   -     PCI write (or event delivery, or the PCI read   _DMA, E_EVQ_OVERFLOW
 *         of a read request)
 *
 * A read request runs every row (its kind matches a CI data aperture);
 * its extent and narrowing use its read length.
 *
 * A read response (kind 5) names no incoming aperture: it is checked
 * against the originator's pending read (struct ofl_ap_read) its tag
 * names, in this order:
 *
 *   step  check                                           error
 *   -     tag inside the read table, slot PENDING, offset _READ_TAG
 *         equal to the request's
 *   (d)   Ethernet source = the host the request went to  _SRC_MAC
 *   (e)   source cluster = that host's cluster            _SRC_ADDR
 *   (c)   nonce = the request's nonce (echoed)            _NONCE
 *   -     payload length = the length asked               _READ_LEN
 *   -     PCI write of the data to the slot's dest        _DMA
 *
 * (c), (d), (e) run when the OS enabled them in the entry's checks; (b)
 * when the entry's OFL_AP_F_SEQ flag is set. Each rejection increments
 * its counter in struct ofl_ap_stats (ofl_ap_rejected()).
 *
 * Nonce rotation (seed 004 claims, "increment the number represented by
 * the check data by a predefined amount each time a predefined number of
 * communications over the mapping is accepted"): an aperture with
 * nonce_every != 0 adds nonce_step to its nonce after every nonce_every
 * accepted records (incoming) or built records (outgoing). Both ends are
 * programmed with the same step and period at connection setup, so they
 * move in lockstep over the in-order path of a cluster; a record with the
 * previous nonce is stale and rejected. A lost record desynchronises the
 * two ends: the connection must then be set up again.
 *
 * Context: one struct ofl_ap_nic per NIC. Its functions are not reentrant
 * for the same NIC; the caller serialises the receive path, the transmit
 * path and programming calls (or gives each its own lock and never lets
 * two of them touch the same table). Event queues and connections have
 * the same rule per object.
 */

/* ---- addresses and wire constants ------------------------------------- */

#define OFL_AP_ETHERTYPE_CI 0x88B5u   /* IEEE Std 802a-2003 §3.2, Local
                                         Experimental EtherType 1 */
#define OFL_AP_ETHERTYPE_IPV4 0x0800u /* RFC 894 */
#define OFL_AP_IPPROTO_UDP 17u        /* RFC 768 */
#define OFL_AP_ETH_HDR 14u            /* dst MAC, src MAC, EtherType */
#define OFL_AP_ETH_MIN_FRAME 60u      /* IEEE 802.3 minimum, without FCS:
                                         builders pad to it */
#define OFL_AP_IPV4_HDR 20u           /* RFC 791 without options */
#define OFL_AP_UDP_HDR 8u             /* RFC 768 */

/*
 * The CI frame (FIG. 12 steps 4-7). The seed names the fields but leaves
 * the layout open; this is the layout, all fields big-endian:
 *
 *   Ethernet header (14 bytes): destination MAC (6), source MAC (6),
 *   EtherType 0x88B5 (2).
 *
 *   CI frame header (8 bytes)
 *   offset size field
 *   0      1    version (high 4 bits, = 1) | reserved (low 4 bits, = 0)
 *   1      1    record count, 1 .. OFL_AP_CI_MAX_RECORDS
 *   2      2    destination cluster address (CI host)
 *   4      2    source cluster address
 *   6      2    records length: bytes of all records that follow
 *
 *   record (24-byte header + payload), repeated `count` times; several
 *   PCI bursts for one host are packed into one frame (step 6)
 *   offset size field
 *   0      1    kind: 1 = data write, 2 = event (FIG. 10 note 2),
 *               4 = read request, 5 = read response; 3 and others
 *               are not assigned (OFL_E_AP_MALFORMED)
 *   1      1    flags: bit 0 = sequence number is meaningful; others 0
 *   2      2    payload length, 0 .. OFL_AP_MAX_WRITE
 *   4      4    in-index of the destination's incoming aperture
 *   8      4    nonce
 *   12     4    sequence number
 *   16     4    offset in the aperture
 *   20     2    header checksum: RFC 1071 one's-complement sum over the
 *               24 header bytes with this field zero
 *   22     2    reserved, 0
 *   24     n    payload (the data of the PCI burst)
 *
 *   read request (kind 4): in-index, nonce, sequence number and offset
 *   as a data write (the read consumes a sequence number and counts for
 *   the nonce rotation like a write); payload length exactly 8
 *   (otherwise OFL_E_AP_MALFORMED):
 *   offset size field
 *   24     4    read length, 1 .. OFL_AP_MAX_WRITE
 *   28     4    tag: the originator's read slot
 *
 *   read response (kind 5), sent back to the requester's MAC and cluster:
 *   in-index = the request's tag, nonce and offset = the request's
 *   (echoed), sequence number = the request's, flags 0, payload = the
 *   read length bytes read at base + offset.
 *
 *   trailer (4 bytes): CRC32c (RFC 3385) over the CI frame header and all
 *   records: the end-to-end check of step 7. Bytes after the trailer are
 *   Ethernet padding and ignored.
 */
#define OFL_AP_CI_VERSION 1u
#define OFL_AP_CI_HDR 8u
#define OFL_AP_CI_REC_HDR 24u
#define OFL_AP_CI_TRAILER 4u
#define OFL_AP_CI_MAX_RECORDS 16u
#define OFL_AP_MAX_WRITE 4096u        /* payload of one record / PCI burst */
#define OFL_AP_REC_F_SEQ 0x01u

enum ofl_ap_rec_kind {
    OFL_AP_REC_DATA = 1,  /* a memory write into a CI data aperture */
    OFL_AP_REC_EVENT = 2, /* an event for a CI event aperture */
    OFL_AP_REC_READ_REQ = 4, /* a read of a CI data aperture (3 is not
                                assigned) */
    OFL_AP_REC_READ_RESP = 5 /* the data of a read, back to its originator */
};
#define OFL_AP_READ_REQ_LEN 8u /* payload of a read request record */

/* One host's addresses on the network (per-NIC common fields, FIG. 10
 * note 4, or a peer's). */
struct ofl_ap_addr {
    uint8_t mac[6];
    uint16_t cluster; /* CI cluster address */
    uint32_t ip;      /* IPv4 address, host order */
};

/* An addressable endpoint: a host and a UDP port. */
struct ofl_ap_endpoint {
    struct ofl_ap_addr host;
    uint16_t udp;
};

/* Who is programming (seed 004: "some parts of the aperture control block
 * only are user programmable, others must only be programmed by the
 * operating system"). */
enum ofl_ap_priv {
    OFL_AP_PRIV_APP = 1, /* an application; it names its port */
    OFL_AP_PRIV_OS = 2   /* the operating system */
};

/* Aperture types (FIG. 10 note 2, FIG. 11). */
enum ofl_ap_type {
    OFL_AP_TYPE_NONE = 0,     /* FREE entry */
    OFL_AP_TYPE_CI_DATA = 1,  /* CI data: writes into memory at base */
    OFL_AP_TYPE_CI_EVENT = 2, /* CI event: a fixed-size event on a queue;
                                 size <= OFL_AP_EVENT_PAYLOAD */
    OFL_AP_TYPE_IP = 3        /* IPv4/UDP: outgoing writes become
                                 datagrams; incoming datagrams to a port go
                                 to its variable-length queue */
};

enum ofl_ap_state {
    OFL_AP_FREE = 0,
    OFL_AP_CLOSED = 1,
    OFL_AP_OPEN = 2
};

/* Incoming checks the OS may enable (FIG. 12 (c)-(e)); (a) always runs. */
enum ofl_ap_check {
    OFL_AP_CHECK_NONCE = 0x01,    /* (c) */
    OFL_AP_CHECK_SRC_MAC = 0x02,  /* (d) */
    OFL_AP_CHECK_SRC_ADDR = 0x04  /* (e) cluster (CI) or IPv4 (IP type) */
};
#define OFL_AP_CHECK_ALL 0x07u

/* Entry flags. */
enum ofl_ap_flag {
    OFL_AP_F_SEQ = 0x01,   /* incoming: check (b); outgoing: carry and
                              advance the sequence number (FIG. 12 step 8) */
    OFL_AP_F_NOTIFY = 0x02, /* incoming data: post a delivery event to the
                               entry's queue after each accepted write */
    OFL_AP_F_ERRORS = 0x04, /* incoming: post an error event (a = the
                               rejection reason, b = in-index) to the
                               entry's queue for each record addressed to
                               this open aperture that is rejected (seed
                               004: "error events associated with the
                               port"; claims 3, 13). Any sender can cause
                               these, so they never take the second half
                               of the queue: a notice that would leave less
                               than half the ring free (any notice, on a
                               ring of one event) is dropped, counted in
                               errors_dropped, with no LOST count and no
                               OS message. Records for a closed or unknown
                               aperture name no port and post nothing,
                               nor does an overflow of the queue itself */
    OFL_AP_F_OS_OWN = 0x08  /* both: created without OWNER, the OS's own
                               (no port programs or closes it); set and
                               cleared by the library only (OWNER
                               programmed clears it) */
};

#define OFL_AP_SIZE_MAX (1u << 30)    /* largest aperture */
#define OFL_AP_SHIFT_MIN 3u           /* smallest slot: 8 bytes */
#define OFL_AP_SHIFT_MAX 30u
#define OFL_AP_EVENT_PAYLOAD 8u       /* bytes of an event record */
#define OFL_AP_MAX_GROUPS 8u
#define OFL_AP_MIN_BURST 4u           /* one PCI dword */
#define OFL_AP_MAX_BURST 4096u        /* PCIe: no request crosses 4 KiB */

/* ---- incoming table (FIG. 11) ------------------------------------------ */

/* Field groups of an incoming entry, for programming and grants. */
enum ofl_ap_in_field {
    OFL_AP_IN_MAP = 0x001,    /* OS only: type, base, size, evq */
    OFL_AP_IN_OWNER = 0x002,  /* OS only: owner, app_fields */
    OFL_AP_IN_SOURCE = 0x004, /* OS only: expected source MAC, cluster and
                                 IPv4 with masks, and checks */
    OFL_AP_IN_NONCE = 0x008,  /* nonce, nonce_step, nonce_every (restarts
                                 the rotation count) */
    OFL_AP_IN_SEQ = 0x010,    /* seq (next expected) and OFL_AP_F_SEQ */
    OFL_AP_IN_NARROW = 0x020, /* narrow_off, narrow_len */
    OFL_AP_IN_STATE = 0x040,  /* state: OPEN or CLOSED */
    OFL_AP_IN_NOTIFY = 0x080  /* OFL_AP_F_NOTIFY and OFL_AP_F_ERRORS */
};
#define OFL_AP_IN_OS_ONLY (OFL_AP_IN_MAP | OFL_AP_IN_OWNER | OFL_AP_IN_SOURCE)
#define OFL_AP_IN_ALL 0x0FFu
#define OFL_AP_IN_APP_DEFAULT OFL_AP_IN_NONCE

/*
 * One incoming aperture (a row of FIG. 11). Caller memory; only the ofl_ap_
 * functions change it. With a cache attached the newest copy of the
 * per-packet fields (nonce, nonce_count, seq) may sit in the cache: read an
 * entry with ofl_ap_in_query, not directly.
 */
struct ofl_ap_in_entry {
    uint64_t base;             /* MAP: PCI address of byte 0 (CI data) */
    uint32_t size;             /* MAP: extent in bytes; event: <= 8; IP:
                                  largest datagram frame delivered */
    uint32_t evq;              /* MAP: queue index (event, IP, NOTIFY,
                                  ERRORS); an IP aperture's queue must
                                  have a variable ring */
    uint32_t src_ip;           /* SOURCE: expected IPv4 source ... */
    uint32_t src_ip_mask;      /* ... under this netmask (e) */
    uint32_t nonce;            /* NONCE: current check value (c) */
    uint32_t nonce_count;      /* accepted records since the last rotation */
    uint32_t seq;              /* SEQ: next expected sequence number (b) */
    uint32_t narrow_off;       /* NARROW: sub-range start ... */
    uint32_t narrow_len;       /* ... and length; 0 = the whole aperture */
    uint16_t nonce_step;       /* NONCE: amount added at each rotation */
    uint16_t nonce_every;      /* NONCE: accepted records per rotation;
                                  0 = the nonce never rotates */
    uint16_t owner;            /* OWNER: the port that owns the aperture */
    uint16_t app_fields;       /* OWNER: enum ofl_ap_in_field the owner may
                                  program */
    uint16_t src_cluster;      /* SOURCE: expected source cluster ... */
    uint16_t src_cluster_mask; /* ... under this mask (e) */
    uint8_t src_mac[6];        /* SOURCE: expected Ethernet source (d) */
    uint8_t type;              /* MAP: enum ofl_ap_type */
    uint8_t state;             /* STATE: enum ofl_ap_state */
    uint8_t checks;            /* SOURCE: enum ofl_ap_check bits */
    uint8_t flags;             /* SEQ / NOTIFY: enum ofl_ap_flag bits */
};

/* ---- outgoing table (FIG. 10) ------------------------------------------ */

/*
 * The outgoing PCI window is laid out in groups (FIG. 10 note 1: "grouped
 * such that the base address also gives the size of the aperture"): group
 * g holds `count` apertures of 2^size_shift bytes each from pci_base, the
 * first of them outgoing index `first`. A PCI address is decoded (FIG. 12
 * steps 1-3) by finding its group: index = first + (addr - pci_base) >>
 * size_shift, offset = the low size_shift bits.
 */
struct ofl_ap_out_group {
    uint64_t pci_base;  /* aligned to 2^size_shift */
    uint32_t first;     /* outgoing index of the group's first aperture */
    uint32_t count;     /* >= 1 */
    uint8_t size_shift; /* OFL_AP_SHIFT_MIN .. OFL_AP_SHIFT_MAX */
};

enum ofl_ap_out_field {
    OFL_AP_OUT_SIZE = 0x001,  /* OS only: explicit size (<= the slot) */
    OFL_AP_OUT_OWNER = 0x002, /* OS only: owner, app_fields */
    OFL_AP_OUT_TYPE = 0x004,  /* type */
    OFL_AP_OUT_DEST = 0x008,  /* destination host (MAC, cluster, IPv4, UDP
                                 port) and in-index */
    OFL_AP_OUT_NONCE = 0x010, /* nonce, nonce_step, nonce_every */
    OFL_AP_OUT_SEQ = 0x020,   /* seq and OFL_AP_F_SEQ */
    OFL_AP_OUT_STATE = 0x040  /* state: OPEN or CLOSED */
};
#define OFL_AP_OUT_OS_ONLY (OFL_AP_OUT_SIZE | OFL_AP_OUT_OWNER)
#define OFL_AP_OUT_ALL 0x07Fu
#define OFL_AP_OUT_APP_DEFAULT (OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE)

/* One outgoing aperture (a row of FIG. 10). Same rules as the incoming
 * entry; read it with ofl_ap_out_query. */
struct ofl_ap_out_entry {
    uint64_t pci_base;       /* set by ofl_ap_nic_init from the layout */
    uint32_t size;           /* SIZE: bytes accepted, <= the slot size */
    uint32_t dst_in_index;   /* DEST */
    uint32_t dst_ip;         /* DEST: IPv4 (IP type) */
    uint32_t nonce;          /* NONCE: current value carried in records */
    uint32_t nonce_count;    /* records built since the last rotation */
    uint32_t seq;            /* SEQ: sequence number of the next record */
    uint16_t nonce_step;     /* NONCE */
    uint16_t nonce_every;    /* NONCE: 0 = never rotates */
    uint16_t owner;          /* OWNER: owning port; UDP source port of IP
                                datagrams */
    uint16_t app_fields;     /* OWNER: enum ofl_ap_out_field grant */
    uint16_t dst_cluster;    /* DEST: CI host */
    uint16_t dst_udp;        /* DEST: UDP port (IP type) */
    uint8_t dst_mac[6];      /* DEST */
    uint8_t type;            /* TYPE: enum ofl_ap_type */
    uint8_t state;           /* STATE */
    uint8_t flags;           /* SEQ: OFL_AP_F_SEQ */
    uint8_t reserved_;
};

/* ---- the aperture mapping cache (FIG. 5) -------------------------------- */

/*
 * A set-associative, write-back copy of OPEN table entries: `sets` (a
 * power of two) sets of `ways` (1 .. OFL_AP_CACHE_MAX_WAYS) lines. The set
 * of index i is i & (sets - 1). A hit uses the line's copy; a miss does
 * the secondary lookup in the full table and, when the entry is OPEN,
 * copies it into an empty or the least recently used line of the set
 * (writing the victim back when the data path may have changed it) and
 * uses that. An entry that is not OPEN is never cached. Programming or
 * clearing an entry invalidates its line, carrying the line's newer
 * per-packet fields into the table first ("invalidation when an entry
 * changes"), so the cache never returns a stale mapping; a query reads the
 * newest copy.
 *
 * Way 0 of each set holds its most recently used line; lines are stored
 * way-major (way w of set s is line[w * sets + s]), so way 0 of every set
 * is a direct-mapped array. A hit on way 0 is one masked index and one tag
 * compare, and the tag match stands in for the checks a direct lookup
 * makes (index inside the table, entry OPEN): it writes nothing, counts
 * nothing, and does no more work than indexing the table. A line is
 * OFL_AP_CACHE_LINE_BYTES (a power of two, padded): way 0's line of index
 * is at byte (index << OFL_AP_CACHE_LINE_SHIFT) & front_mask of the array,
 * where the shift does not wait for the mask load, so the tag's address is
 * one AND after the loads of `line` and `front_mask` - no longer a chain
 * than a table lookup's (index * 72 is one LEA), whereas a multiply by an
 * 88-byte stride took three cycles more and made a hit measurably slower. A hit further
 * down swaps its line with way 0; a miss fills way 0 and moves its old
 * line to an empty way or to the least recently used one (the oldest
 * `used` stamp), which it replaces. Hits are not counted; the hit rate is
 * 1 - misses / lookups, lookups being the records the caller handed in.
 *
 * Why: firmware keeps the full tables in DRAM and the cache in on-chip
 * SRAM (the seed's associative memory). tests/bench/bench_ap.c times a
 * hit against a direct table lookup; make bench-count counts both.
 */
#define OFL_AP_CACHE_MAX_WAYS 8u
#define OFL_AP_CACHE_EMPTY (~(uint64_t)0) /* the tag of an empty line */
#define OFL_AP_CACHE_LINE_SHIFT 7u
#define OFL_AP_CACHE_LINE_BYTES (1u << OFL_AP_CACHE_LINE_SHIFT) /* sizeof a line */

struct ofl_ap_cache_line {
    union {                     /* first: a hit's entry is the line itself */
        struct ofl_ap_in_entry in;
        struct ofl_ap_out_entry out;
    } e;
    uint64_t tag;   /* the entry's index; OFL_AP_CACHE_EMPTY: none */
    uint32_t dirty; /* the entry's per-packet fields change on every record
                       (sequence check or a rotating nonce): copied back
                       when the line leaves the cache or is flushed */
    uint32_t used;  /* ways 1 ..: the cache's clock when the line last
                       left way 0 (its last use); the oldest goes first */
    uint32_t pad_[10]; /* to OFL_AP_CACHE_LINE_BYTES (see above) */
};

struct ofl_ap_cache {
    struct ofl_ap_cache_line *line; /* sets * ways lines; NULL = no cache */
    uint32_t sets;
    uint32_t ways;
    uint32_t set_shift; /* log2(sets) */
    uint32_t set_mask;  /* sets - 1 */
    size_t front_mask;  /* set_mask << OFL_AP_CACHE_LINE_SHIFT: byte offset
                           of way 0's line of index i is
                           (i << OFL_AP_CACHE_LINE_SHIFT) & front_mask */
    uint32_t clock;     /* counts lines leaving way 0 (LRU stamps) */
    uint32_t misses;    /* lookups of an index inside the table that no
                           line answered (the entry OPEN or not) */
    uint32_t evictions;     /* valid lines replaced */
    uint32_t writebacks;    /* dirty lines copied back to the table */
    uint32_t invalidations; /* lines dropped because the entry changed */
};

/* ---- the NIC ------------------------------------------------------------ */

/* Rejection counters are indexed by the low byte of the error. */
#define OFL_AP_REJECT_SLOTS 0x16u

struct ofl_ap_stats {
    uint64_t rx_bytes;     /* payload bytes written or delivered */
    uint64_t tx_bytes;     /* payload bytes put into records */
    uint32_t rx_frames;    /* frames with at least one accepted record */
    uint32_t rx_records;   /* accepted records */
    uint32_t tx_records;
    uint32_t tx_frames;    /* frames finished */
    uint32_t bursts;       /* PCI write transactions emitted */
    uint32_t stall_splits; /* bursts split because the port refused them */
    uint32_t rejected[OFL_AP_REJECT_SLOTS]; /* by reason, 0x0501 .. 0x0515 */
    uint32_t errors_dropped; /* OFL_AP_F_ERRORS notices not posted: the
                                queue was half full or more */
    uint32_t reads_sent;      /* read requests built (ofl_ap_tx_read) */
    uint32_t reads_served;    /* read requests answered (response built) */
    uint32_t reads_completed; /* read responses matched and written */
    uint32_t merged;          /* data records that joined the PCI burst of
                                 the record before them (ofl_ap_rx_merge) */
};

/* The counter of rejection reason e (0 for an error that is not one). */
static inline uint32_t ofl_ap_rejected(const struct ofl_ap_stats *s,
                                       enum ofl_err e)
{
    uint32_t i = (uint32_t)e - 0x0500u;
    return i < OFL_AP_REJECT_SLOTS ? s->rejected[i] : 0;
}

struct ofl_evq;

/*
 * One pending read of the originator (seed 004, "In the case of a read
 * request the analogous operation occurs"). Caller memory, attached with
 * ofl_ap_read_attach; the slot's index is the tag carried by the request
 * and echoed by the response. Only the ofl_ap_ functions change it; the
 * caller may read state (PENDING until the response is written, then
 * IDLE: the PCI read is complete).
 *
 *   state    call / input                             next
 *   IDLE     ofl_ap_tx_read (request built)           PENDING
 *   PENDING  matching read response, data written     IDLE
 *   PENDING  response refused (any check above)       PENDING
 *   PENDING  ofl_ap_read_cancel (the caller's timeout) IDLE
 */
enum ofl_ap_read_state {
    OFL_AP_READ_IDLE = 0,
    OFL_AP_READ_PENDING = 1
};

struct ofl_ap_read {
    uint64_t dest;       /* PA the data is written to (the completion of
                            the PCI read) */
    uint32_t out_index;  /* outgoing aperture the read went through */
    uint32_t offset;     /* offset in the remote aperture (echoed) */
    uint32_t nonce;      /* the request's nonce (echoed) */
    uint32_t len;        /* bytes asked */
    uint16_t dst_cluster; /* the host asked: the response's source */
    uint8_t dst_mac[6];
    uint8_t state;       /* enum ofl_ap_read_state */
};
#define OFL_AP_READ_MAX 65536u /* slots a NIC can attach */

/* What ofl_ap_nic_init needs; every array is the caller's. */
struct ofl_ap_nic_config {
    const struct ofl_port *port;       /* DMA for PCI writes */
    struct ofl_ap_addr self;           /* this NIC's MAC, cluster, IPv4 */
    struct ofl_ap_in_entry *in;        /* incoming table */
    uint32_t in_capacity;              /* 1 .. 2^24 */
    struct ofl_ap_out_entry *out;      /* outgoing table */
    uint32_t out_capacity;             /* 0 .. 2^24 */
    const struct ofl_ap_out_group *groups; /* outgoing PCI layout */
    uint32_t ngroups;                  /* 0 .. OFL_AP_MAX_GROUPS */
    struct ofl_ap_cache_line *in_cache;  /* optional */
    uint32_t in_cache_lines;           /* sets * ways */
    uint32_t in_cache_ways;
    struct ofl_ap_cache_line *out_cache; /* optional */
    uint32_t out_cache_lines;
    uint32_t out_cache_ways;
    struct ofl_evq *evq;               /* per-port queues (entry evq index) */
    uint32_t nevq;
    uint32_t max_burst;                /* bytes per PCI write, power of two,
                                          OFL_AP_MIN_BURST .. _MAX_BURST */
    uint16_t udp_base;                 /* IP-type incoming aperture i serves
                                          UDP port udp_base + i */
};

struct ofl_ap_nic {
    const struct ofl_port *port;
    struct ofl_ap_addr self;
    struct ofl_ap_in_entry *in;
    struct ofl_ap_out_entry *out;
    struct ofl_evq *evq;
    uint32_t in_capacity;
    uint32_t out_capacity;
    uint32_t nevq;
    uint32_t ngroups;
    uint32_t max_burst;
    uint16_t udp_base;
    uint16_t ip_id;            /* IPv4 identification of the next datagram */
    struct ofl_ap_out_group group[OFL_AP_MAX_GROUPS];
    struct ofl_ap_cache in_cache;
    struct ofl_ap_cache out_cache;
    struct ofl_ap_stats stats;
    struct ofl_ap_read *reads; /* ofl_ap_read_attach; NULL: no reads */
    uint32_t nreads;
    uint32_t merge_cap;        /* ofl_ap_rx_merge; 0: no merging */
    uint8_t *merge_buf;
};

/*
 * Initialises nic: checks the port, the capacities, the outgoing layout
 * (groups inside the table, no two overlapping in PCI space or in index
 * space, no wrap), the caches (lines = sets * ways, sets a power of two)
 * and max_burst; every entry becomes FREE, every cache line empty, the
 * counters zero. OFL_E_ARG on any bad value, OFL_E_PORT_VERSION for a bad
 * port.
 */
enum ofl_err ofl_ap_nic_init(struct ofl_ap_nic *nic,
                             const struct ofl_ap_nic_config *cfg);

/* Sets this NIC's own addresses ("source host bits": OS only, so that an
 * application cannot masquerade as another host). */
enum ofl_err ofl_ap_set_self(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                             const struct ofl_ap_addr *self);

/*
 * Programs the field groups `fields` (enum ofl_ap_in_field) of incoming
 * aperture index from v. Privilege: OS any group; an application only for
 * an aperture its port owns (else OFL_E_AP_NOT_OWNER; a FREE aperture has
 * no owner) and only granted groups (else OFL_E_AP_PRIVILEGE). The result
 * is validated as a whole (type, size, base + size without wrap, narrowing
 * inside the size, queue index, grants without OS-only groups; an IP
 * aperture's queue must have a variable ring, so initialise the queue
 * with ofl_evq_init first) and
 * OFL_E_AP_CONFIG leaves the entry as it was. Programming a FREE entry
 * (OS) creates it CLOSED unless STATE says OPEN. Programming NONCE
 * restarts the rotation count. A cached copy is written back and
 * invalidated.
 */
enum ofl_err ofl_ap_in_program(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                               uint16_t port, uint32_t index,
                               const struct ofl_ap_in_entry *v,
                               uint32_t fields);

/* The privilege test of ofl_ap_in_program alone (no change). */
enum ofl_err ofl_ap_in_allowed(const struct ofl_ap_nic *nic,
                               enum ofl_ap_priv priv, uint16_t port,
                               uint32_t index, uint32_t fields);

/* Returns an incoming aperture to FREE (OS only). */
enum ofl_err ofl_ap_in_clear(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                             uint32_t index);

/* Copies the current incoming entry (its newest copy, cache included). */
enum ofl_err ofl_ap_in_query(struct ofl_ap_nic *nic, uint32_t index,
                             struct ofl_ap_in_entry *out);

/* The outgoing counterparts, with enum ofl_ap_out_field groups. The size
 * must not exceed the slot of the group holding index (an index outside
 * every group is OFL_E_AP_CONFIG). */
enum ofl_err ofl_ap_out_program(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                                uint16_t port, uint32_t index,
                                const struct ofl_ap_out_entry *v,
                                uint32_t fields);
enum ofl_err ofl_ap_out_allowed(const struct ofl_ap_nic *nic,
                                enum ofl_ap_priv priv, uint16_t port,
                                uint32_t index, uint32_t fields);
enum ofl_err ofl_ap_out_clear(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                              uint32_t index);
enum ofl_err ofl_ap_out_query(struct ofl_ap_nic *nic, uint32_t index,
                              struct ofl_ap_out_entry *out);

/* Writes every dirty cache line back to its table (lines stay valid and
 * dirty). */
void ofl_ap_cache_flush(struct ofl_ap_nic *nic);

/* ---- the outgoing data path (FIG. 12) ----------------------------------- */

/*
 * Decodes a PCI address into outgoing index and offset (FIG. 12 steps
 * 1-3). OFL_E_AP_NO_APERTURE when it falls in no group (a local control
 * write). Read-only.
 */
enum ofl_err ofl_ap_out_decode(const struct ofl_ap_nic *nic, uint64_t pci_addr,
                               uint32_t *index, uint32_t *offset);

/* A frame being built into caller memory. */
struct ofl_ap_tx_frame {
    uint8_t *buf;
    size_t cap;
    size_t len;           /* bytes written so far */
    uint32_t records;     /* CI records in the frame */
    uint16_t dst_cluster; /* the host every record is for */
    uint8_t dst_mac[6];
    uint8_t kind;         /* 0 empty, 1 CI open, 2 IP datagram (closed) */
};

/* Starts an empty frame in buf[0 .. cap). */
void ofl_ap_tx_begin(struct ofl_ap_tx_frame *f, uint8_t *buf, size_t cap);

/*
 * Turns a PCI write of len bytes (1 .. OFL_AP_MAX_WRITE) at pci_addr into
 * frame content. Checks: decode (OFL_E_AP_NO_APERTURE), aperture OPEN
 * (OFL_E_AP_CLOSED), offset + len inside its size (OFL_E_AP_EXTENT). A CI
 * aperture appends one record (step 5) carrying the aperture's dst
 * in-index, nonce, sequence number and the offset, opening the frame with
 * the Ethernet and CI headers if it is empty; a frame already holding
 * records for another host, or without room, or a full record count, gives
 * OFL_E_AP_PACK (finish it and begin another; step 6 packs consecutive
 * writes for one host). An IP aperture needs an empty frame and makes it a
 * complete IPv4/UDP datagram. On success the sequence number advances (if
 * OFL_AP_F_SEQ, step 8) and the nonce rotation counts one record; on
 * failure neither the frame nor the aperture changes.
 */
enum ofl_err ofl_ap_tx_write(struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                             uint64_t pci_addr, const void *data, size_t len);

/* Closes a CI frame (records length, CRC32c trailer, padding to
 * OFL_AP_ETH_MIN_FRAME) and returns its length; an IP frame is returned as
 * is. OFL_E_ARG for an empty frame, OFL_E_SIZE without room. */
enum ofl_err ofl_ap_tx_finish(struct ofl_ap_nic *nic,
                              struct ofl_ap_tx_frame *f, size_t *len);

/* ---- the incoming data path ---------------------------------------------- */

/* What ofl_ap_rx did with a frame. */
struct ofl_ap_rx_result {
    uint32_t records;   /* records in the frame (1 for a datagram) */
    uint32_t applied;   /* records accepted and carried out, in order */
    uint32_t in_index;  /* aperture of the last record looked at */
    uint32_t len;       /* payload length of that record */
    uint64_t pci_addr;  /* PCI address of the last data write formed */
};

/*
 * Receives one frame.
 *
 * A CI frame is first checked whole (structure, record header checksums,
 * CRC32c, destination); any failure there rejects the frame with nothing
 * applied. Then each record in order runs the checks in the table above
 * against its aperture and is carried out: a data record becomes the PCI
 * write base + offset of its payload, an event record a fixed-size event
 * (OFL_EVQ_EV_CI_EVENT, payload at its offset in a and b) on the
 * aperture's queue. Processing stops at the first rejected record:
 * records before it stay applied (each was a complete, checked write, as
 * separate packets would have been), the rejected one and those after it
 * change nothing. An accepted record advances the expected sequence
 * number and the nonce rotation.
 *
 * An IPv4/UDP frame for this host is delivered, whole, to the variable-
 * length queue of the IP aperture serving its UDP destination port, with
 * an OFL_EVQ_EV_DATAGRAM event; checks (a), (d), (e) and the size apply.
 *
 * PCI writes (FIG. 12, "If the PCI bus is stalled ... a new PCI
 * transaction will be emitted ... base + offset + N"): the payload goes
 * out in bursts of at most max_burst bytes that never cross a max_burst
 * boundary (so never a 4 KiB one). Bus-stall contract with the port: its
 * dma_write either writes the whole burst and returns 0, or writes nothing
 * and returns non-zero (a stalled bus or a full posted-write queue). On a
 * refusal the burst is split: its first half is emitted again at the same
 * address and the rest follows as new transactions at base + offset + N,
 * no longer than the split size, for the rest of the payload.
 * A refused burst of OFL_AP_MIN_BURST bytes or fewer is a failure:
 * OFL_E_AP_DMA, the bytes before it are written (always inside the
 * aperture), the aperture's sequence number and nonce do not move.
 *
 * Returns OFL_OK when every record was applied, else the reason of the
 * rejection (counted in nic->stats); res (may be NULL) says how far it
 * got. A rejected record for an open aperture with OFL_AP_F_ERRORS also
 * posts an error event to its queue (see the flag). The port only ever
 * sees writes inside the checked range. Cost: O(len): per record one
 * incoming-table entry (through the cache: at most its ways compared) and
 * the PCI writes of its payload (at most payload + log2(max_burst)
 * bursts).
 *
 * Reads (kinds 4 and 5, see the tables above): ofl_ap_rx has no reply
 * frame, so a read request that passes its checks is refused with
 * OFL_E_AP_READ_REPLY (use ofl_ap_rx_reply); a read response completes
 * its pending read. With a staging buffer attached (ofl_ap_rx_merge)
 * adjacent data records share PCI bursts, with the same results.
 */
enum ofl_err ofl_ap_rx(struct ofl_ap_nic *nic, const uint8_t *frame,
                       size_t len, struct ofl_ap_rx_result *res);

/*
 * ofl_ap_rx with somewhere to answer read requests (seed 004, "In the
 * case of a read request the analogous operation occurs"). reply is a
 * frame begun with ofl_ap_tx_begin (empty, or open for the requester's
 * host); NULL makes this ofl_ap_rx, where a read request is refused with
 * OFL_E_AP_READ_REPLY. Checks: those of ofl_ap_rx, for a read request
 * the table above (aperture checks, read length, extent and narrowing
 * over the read length, then room in reply for the response for the
 * frame's source MAC and cluster), for a read response the read table
 * above. Changes: a read request PCI-reads base + offset (bursts as for
 * writes, split on a refusal) straight into reply, appends the response
 * record (opening reply with the Ethernet and CI headers when empty),
 * advances the aperture's sequence number and nonce rotation; a read
 * response writes its data to its slot's dest (bursts as for writes) and
 * makes the slot IDLE. On a refusal nothing of that record changes (reply,
 * slot and aperture as they were; a refused write leaves the bytes
 * before the failed burst written, as for ofl_ap_rx). Finish reply with
 * ofl_ap_tx_finish and send it. Returns as ofl_ap_rx.
 */
enum ofl_err ofl_ap_rx_reply(struct ofl_ap_nic *nic, const uint8_t *frame,
                             size_t len, struct ofl_ap_tx_frame *reply,
                             struct ofl_ap_rx_result *res);

/*
 * Attaches n read slots (0 .. OFL_AP_READ_MAX; slots may be NULL when n
 * is 0, which detaches them) for ofl_ap_tx_read and read responses.
 * Checks the arguments (OFL_E_ARG); makes every slot IDLE; returns OFL_OK.
 */
enum ofl_err ofl_ap_read_attach(struct ofl_ap_nic *nic,
                                struct ofl_ap_read *slots, uint32_t n);

/*
 * Turns a PCI read of len bytes (1 .. OFL_AP_MAX_WRITE, else OFL_E_ARG)
 * at pci_addr into a read request record in f (seed 004: the read
 * counterpart of FIG. 12 steps 1-8). Checks, in order: decode
 * (OFL_E_AP_NO_APERTURE), aperture OPEN (OFL_E_AP_CLOSED), a CI data
 * aperture (OFL_E_AP_TYPE), offset + len inside its size
 * (OFL_E_AP_EXTENT), a free read slot (OFL_E_AP_READ_BUSY), room in f as
 * ofl_ap_tx_write (OFL_E_SIZE, OFL_E_AP_PACK). Changes: appends the
 * request, makes the lowest IDLE slot PENDING with dest (where the data
 * will be written), the aperture's destination, offset and nonce, then
 * advances the sequence number and nonce rotation as a write does.
 * Returns OFL_OK and the slot in *tag (may be NULL); on failure nothing
 * changes.
 */
enum ofl_err ofl_ap_tx_read(struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                            uint64_t pci_addr, uint32_t len, uint64_t dest,
                            uint32_t *tag);

/* Gives up the pending read tag (the caller's timeout; a late response
 * is then OFL_E_AP_READ_TAG). OFL_E_ARG unless tag is PENDING; makes it
 * IDLE. */
enum ofl_err ofl_ap_read_cancel(struct ofl_ap_nic *nic, uint32_t tag);

/*
 * Merging (seed 004 after FIG. 12: "if consecutive CI data packets
 * arrive they may be coalesced into larger PCI bursts simply by removing
 * the redundant intermediate headers"). Attaches a staging buffer of cap
 * bytes (buf NULL or cap 0: no merging, the default). Checks the
 * arguments (OFL_E_ARG for NULL nic, or buf NULL with cap != 0); changes
 * nothing else; returns OFL_OK.
 *
 * With it, ofl_ap_rx gathers a run of consecutive data records of one
 * frame for the same aperture whose offsets are adjacent (each starts
 * where the one before ended), each passing every check with the
 * sequence number and nonce it would meet in turn, up to min(cap,
 * max_burst) payload bytes; the run is copied into buf and written as
 * one payload (bursts as above: never over max_burst, never across a
 * max_burst boundary, split on a refusal as today). A record that would
 * fail a check ends the run and is then refused as usual. Each record of
 * the run is applied (sequence number, nonce rotation, counters, NOTIFY)
 * only once all its bytes are written: on OFL_E_AP_DMA the records wholly
 * before the failed burst are applied and the others go on one at a time,
 * as without merging (a merged burst may fail where the records before
 * the failing one would each have passed), so that the record the port
 * fails alone is the rejected one. Results equal those of ofl_ap_rx
 * without merging, with fewer bursts (stats.merged counts the records
 * that joined a burst).
 */
enum ofl_err ofl_ap_rx_merge(struct ofl_ap_nic *nic, uint8_t *buf,
                             uint32_t cap);

/* ---- IPv4/UDP datagrams (RFC 791, RFC 768) -------------------------------- */

/* A parsed datagram; payload points into the frame. */
struct ofl_ap_udp {
    struct ofl_ap_endpoint src; /* cluster 0 */
    struct ofl_ap_endpoint dst;
    const uint8_t *payload;
    size_t payload_len;
};

/*
 * Parses an Ethernet/IPv4/UDP frame with bounds checks, in this order:
 * room for the Ethernet header (OFL_E_AP_TRUNCATED), EtherType 0x0800
 * (OFL_E_AP_NOT_CI), room for the IPv4 header (OFL_E_AP_TRUNCATED),
 * version 4 (OFL_E_AP_VERSION), IHL >= 5 and a
 * total length that holds the UDP header (OFL_E_AP_MALFORMED), total
 * length inside the frame (OFL_E_AP_TRUNCATED), no fragment
 * (OFL_E_AP_MALFORMED), protocol UDP (OFL_E_AP_NOT_CI), header checksum
 * (OFL_E_AP_HDR_CHECKSUM), UDP length equal to the IPv4 payload
 * (OFL_E_AP_MALFORMED), a non-zero UDP checksum verified
 * (OFL_E_AP_HDR_CHECKSUM). Does not look at whom it is addressed to.
 * Cost: O(len) (the checksums).
 */
enum ofl_err ofl_ap_udp_parse(const uint8_t *frame, size_t len,
                              struct ofl_ap_udp *out);

/* Builds the Ethernet/IPv4/UDP frame of d (src, dst, payload; clusters
 * unused) with IPv4 identification ip_id: no options, DF set, TTL 64,
 * both checksums, padded to OFL_AP_ETH_MIN_FRAME. OFL_E_SIZE without room,
 * OFL_E_ARG for a payload over 65507 bytes. */
enum ofl_err ofl_ap_udp_build(const struct ofl_ap_udp *d, uint16_t ip_id,
                              uint8_t *buf, size_t cap, size_t *len);

/* ---- connection messages (seed 004 "Packet Oriented Connection Setup") ---- */

/*
 * Messages travel as the payload of a UDP datagram to <host:port>. The
 * seed names their contents; this is the layout, big-endian, exactly
 * OFL_AP_MSG_LEN bytes:
 *
 *   offset size field          used by
 *   0      1    version (= 1)  all
 *   1      1    type           all (enum ofl_ap_msg_type)
 *   2      2    flags          CONNECT, ACCEPT: bit 0 = the sender checks
 *                              sequence numbers; other bits 0
 *   4      2    port           all: the sender's port; ACCEPT: the new
 *                              port' the connection continues on
 *   6      2    cluster        CONNECT, ACCEPT: the sender's CI cluster
 *   8      4    in_index       all: the sender's incoming aperture
 *   12     4    nonce          all: its nonce as set up (the identity of
 *                              the connection, not the rotated value)
 *   16     4    seq            CONNECT, ACCEPT: first sequence number the
 *                              sender's aperture expects
 *   20     4    size           CONNECT, ACCEPT: the aperture's size
 *   24     2    nonce_step     CONNECT, ACCEPT: rotation step ...
 *   26     2    nonce_every    ... and period of the sender's aperture
 *   28     4    peer_in_index  all but CONNECT: the receiver's in-index ...
 *   32     4    peer_nonce     ... and nonce: the proof that the message
 *                              belongs to this connection
 *   36     2    code           ERROR: an enum ofl_err value, not 0
 *   38     2    reserved, 0
 *   40     4    token          ALIVE, ALIVEACK: echoed by the ACK
 *
 * A field a type does not use MUST be zero (OFL_E_AP_MALFORMED).
 */
#define OFL_AP_MSG_VERSION 1u
#define OFL_AP_MSG_LEN 44u
#define OFL_AP_MSG_F_SEQ 0x0001u

enum ofl_ap_msg_type {
    OFL_AP_MSG_CONNECT = 1,  /* [CONNECT/port/in-index/nonce] */
    OFL_AP_MSG_ACCEPT = 2,   /* [ACCEPT/port'/in-index/nonce] */
    OFL_AP_MSG_CLOSE = 3,    /* close the connection and its mappings */
    OFL_AP_MSG_ALIVE = 4,    /* request a response */
    OFL_AP_MSG_ALIVEACK = 5, /* the response */
    OFL_AP_MSG_ERROR = 6     /* data transfer error, or a refused CONNECT
                                (code OFL_E_AP_CONN_REFUSED) */
};

struct ofl_ap_msg {
    uint32_t in_index;
    uint32_t nonce;
    uint32_t seq;
    uint32_t size;
    uint32_t peer_in_index;
    uint32_t peer_nonce;
    uint32_t token;
    uint16_t flags;
    uint16_t port;
    uint16_t cluster;
    uint16_t code;
    uint16_t nonce_step;
    uint16_t nonce_every;
    uint8_t type;
};

/* Parses exactly OFL_AP_MSG_LEN bytes (OFL_E_AP_TRUNCATED shorter,
 * OFL_E_AP_MALFORMED longer or a used-by rule broken, OFL_E_AP_VERSION,
 * OFL_E_AP_MSG_TYPE). Cost: O(1). */
enum ofl_err ofl_ap_msg_parse(const uint8_t *p, size_t len,
                              struct ofl_ap_msg *m);

/* Encodes m (checked by the same rules) into p; *len = OFL_AP_MSG_LEN. */
enum ofl_err ofl_ap_msg_build(const struct ofl_ap_msg *m, uint8_t *p,
                              size_t cap, size_t *len);

/* The ERROR that refuses connect (caller policy said no), from port. */
void ofl_ap_msg_refusal(const struct ofl_ap_msg *connect, uint16_t port,
                        struct ofl_ap_msg *out);

/* ---- connections ---------------------------------------------------------- */

/*
 * One side of a connection: it owns one incoming and one outgoing
 * aperture of the NIC and programs them with its privilege and port.
 *
 *   state       input                        action                   next
 *   IDLE        ofl_ap_conn_connect (A)      in-aperture: nonce, seq, CONNECTING
 *                                            OPEN; send CONNECT
 *   IDLE        ofl_ap_conn_accept (B; the   in-aperture as above,    OPEN
 *               caller's policy accepted     out-aperture: peer's
 *               a CONNECT)                   in-index, nonce; ACCEPT
 *   CONNECTING  ACCEPT proving our nonce     out-aperture: peer's     OPEN
 *                                            in-index, nonce, OPEN
 *   CONNECTING  ERROR refusing our CONNECT   close in-aperture        CLOSED
 *   CONNECTING  tick: connect_timeout passed resend CONNECT, or       CONNECTING
 *                                            after `retries` resends  CLOSED
 *   OPEN        CONNECT again (B)            resend the ACCEPT        OPEN
 *   OPEN        ALIVE                        send ALIVEACK            OPEN
 *   OPEN        ALIVEACK with our token      peer is alive            OPEN
 *   OPEN        ERROR                        recorded (peer_error)    OPEN
 *   OPEN        tick: quiet alive_interval   send ALIVE               OPEN
 *   OPEN        tick: no ALIVEACK in         resend ALIVE, or after   CLOSED
 *               alive_timeout                `retries` resends
 *   OPEN        ofl_ap_conn_close            send CLOSE; close both   CLOSED
 *   OPEN        CLOSE proving our nonce      close both apertures     CLOSED
 *
 * Every message but CONNECT must prove the connection: its peer_in_index
 * and peer_nonce are our in-aperture and nonce, and its in_index and nonce
 * are the peer's (OFL_E_AP_CONN_PEER otherwise, nothing changes). Once
 * both sides are OPEN each outgoing aperture holds the peer's in-index and
 * nonce; a later connection on the same apertures gets new nonces, so a
 * stale connection's packets fail check (c).
 *
 * Time is the caller's `now` (any monotonic unit, the same one as the
 * config's intervals); nonces and sequence numbers are the caller's
 * random inputs.
 */
enum ofl_ap_conn_state {
    OFL_AP_CONN_IDLE = 0,
    OFL_AP_CONN_CONNECTING = 1,
    OFL_AP_CONN_OPEN = 2,
    OFL_AP_CONN_CLOSED = 3
};

/* Why a connection is CLOSED. */
enum ofl_ap_close_reason {
    OFL_AP_CLOSE_NONE = 0,
    OFL_AP_CLOSE_LOCAL = 1,   /* ofl_ap_conn_close */
    OFL_AP_CLOSE_PEER = 2,    /* the peer's CLOSE */
    OFL_AP_CLOSE_REFUSED = 3, /* the peer refused the CONNECT */
    OFL_AP_CLOSE_TIMEOUT = 4  /* no ACCEPT / ALIVEACK after the retries */
};

struct ofl_ap_conn_config {
    uint64_t connect_timeout; /* resend CONNECT after this long */
    uint64_t alive_interval;  /* send ALIVE after this long without hearing
                                 from the peer; 0 = never */
    uint64_t alive_timeout;   /* resend ALIVE after this long */
    uint16_t nonce_step;      /* rotation of our incoming aperture */
    uint16_t nonce_every;
    uint8_t retries;          /* resends before giving up */
    uint8_t seq_check;        /* our incoming aperture checks (b) */
};

struct ofl_ap_conn {
    struct ofl_ap_nic *nic;
    struct ofl_ap_conn_config cfg;
    struct ofl_ap_endpoint peer; /* where messages go */
    uint64_t sent_at;            /* last CONNECT or ALIVE sent */
    uint64_t last_heard;         /* last valid message or ofl_ap_conn_heard */
    uint32_t in_index;           /* our apertures */
    uint32_t out_index;
    uint32_t nonce;              /* our nonce as set up */
    uint32_t seq;                /* first sequence number we expect */
    uint32_t peer_in_index;
    uint32_t peer_nonce;
    uint32_t token;              /* of the outstanding ALIVE */
    uint16_t port;               /* our port: owner of both apertures */
    uint32_t peer_size;          /* size of the peer's incoming aperture */
    uint16_t peer_error;         /* code of the last ERROR from the peer */
    uint8_t closed_by;           /* enum ofl_ap_close_reason */
    uint8_t priv;                /* enum ofl_ap_priv used to program */
    uint8_t state;               /* enum ofl_ap_conn_state */
    uint8_t tries;               /* resends of the current CONNECT / ALIVE */
    uint8_t alive_pending;
    uint8_t passive;             /* opened by ofl_ap_conn_accept */
};

/*
 * Initialises an IDLE connection of port over apertures in_index and
 * out_index of nic, to be programmed with priv. Checks up front that priv
 * and port may program what the connection needs (incoming NONCE, SEQ,
 * STATE; outgoing TYPE, DEST, NONCE, SEQ, STATE), so that a connection
 * never fails half way for lack of a grant, and that the incoming aperture
 * has check (c) on (OFL_AP_CHECK_NONCE, else OFL_E_AP_CONFIG): a later
 * connection's new nonces are what refuse a stale one's frames. Closing
 * needs no grant (ofl_ap_in_program), so a connection always closes.
 */
enum ofl_err ofl_ap_conn_init(struct ofl_ap_conn *c, struct ofl_ap_nic *nic,
                              enum ofl_ap_priv priv, uint16_t port,
                              uint32_t in_index, uint32_t out_index,
                              const struct ofl_ap_conn_config *cfg);

/* Active open to peer (IDLE only): programs and opens the incoming
 * aperture with nonce and seq, fills *out with the CONNECT to send. */
enum ofl_err ofl_ap_conn_connect(struct ofl_ap_conn *c, uint64_t now,
                                 const struct ofl_ap_endpoint *peer,
                                 uint32_t nonce, uint32_t seq,
                                 struct ofl_ap_msg *out);

/* Passive open (IDLE only): `connect` arrived from `from` and the caller's
 * policy accepts it. Programs both apertures (the incoming one is closed
 * again if the outgoing one fails), fills *out with the ACCEPT, which
 * names c->port as the port' the connection continues on. */
enum ofl_err ofl_ap_conn_accept(struct ofl_ap_conn *c, uint64_t now,
                                const struct ofl_ap_endpoint *from,
                                const struct ofl_ap_msg *connect,
                                uint32_t nonce, uint32_t seq,
                                struct ofl_ap_msg *out);

/* A message m from `from` for this connection. *send says whether *reply
 * must go out. Errors: OFL_E_AP_CONN_PEER (not this connection),
 * OFL_E_AP_CONN_STATE (not expected now), OFL_E_AP_CONN_REFUSED (the
 * CONNECT was refused: CLOSED), a programming error from the apertures.
 * Cost: O(1). */
enum ofl_err ofl_ap_conn_rx(struct ofl_ap_conn *c, uint64_t now,
                            const struct ofl_ap_endpoint *from,
                            const struct ofl_ap_msg *m,
                            struct ofl_ap_msg *reply, bool *send);

/* Timeouts at time now: may fill *reply (resent CONNECT, ALIVE) with
 * *send set. OFL_E_AP_CONN_TIMEOUT when the connection gave up (CLOSED,
 * apertures closed). */
enum ofl_err ofl_ap_conn_tick(struct ofl_ap_conn *c, uint64_t now,
                              struct ofl_ap_msg *reply, bool *send);

/* Traffic from the peer arrived (a delivery event): it is alive. */
void ofl_ap_conn_heard(struct ofl_ap_conn *c, uint64_t now);

/* Local close (OPEN or CONNECTING): closes both apertures, fills the
 * CLOSE to send (*send false when there is nobody to tell yet). */
enum ofl_err ofl_ap_conn_close(struct ofl_ap_conn *c,
                               struct ofl_ap_msg *out, bool *send);

/* Fills an ERROR reporting `code` (a named enum ofl_err, not OFL_OK, else
 * OFL_E_ARG) to the peer (OPEN). */
enum ofl_err ofl_ap_conn_error(const struct ofl_ap_conn *c, enum ofl_err code,
                               struct ofl_ap_msg *out);

/* Encodes m as the UDP datagram from this connection's port to its peer. */
enum ofl_err ofl_ap_conn_frame(struct ofl_ap_conn *c, const struct ofl_ap_msg *m,
                               uint8_t *buf, size_t cap, size_t *len);

/* ---- dual event queues (seed 004 "Dual Event Queues", FIG. 8, 9, 13) ---- */

/*
 * Each port has an out-of-band queue in its application's memory, written
 * by the NIC through the port's DMA and read by the application without a
 * system call. It has two rings:
 *
 *   fixed ring     events of OFL_EVQ_EVENT_BYTES
 *   variable ring  words holding variable-length records; an event that
 *                  has one says how many words (FIG. 13 "Var 10")
 *
 * Pointers count 32-bit words, run free modulo 2^32 and index the ring
 * modulo its size (a power of two); the fixed pointer moves by
 * OFL_EVQ_EVENT_WORDS per event, so both move "by the number of words
 * consumed" (FIG. 13 step 4). The NIC keeps WRPTR and the mirror RDPTR',
 * the application RDPTR and the mirror WRPTR' (FIG. 8), in a control
 * block in the application's memory, little-endian:
 *
 *   offset size field     written by
 *   0      4    WRPTR'    NIC: fixed ring write pointer
 *   4      4    VWRPTR'   NIC: variable ring write pointer
 *   8      4    LOST      NIC: events that found the queue full
 *   12     4    reserved
 *   16     4    RDPTR     application: fixed ring read pointer
 *   20     4    VRDPTR    application: variable ring read pointer
 *   24     4    IRQ       application or OS: bit 0 = interrupt wanted;
 *                         the NIC clears it when it fires
 *   28     4    reserved
 *
 * Event (16 bytes, little-endian): type (1), flags (1), port (2),
 * var_words (4), a (4), b (4). A variable record is a 4-byte little-endian
 * byte length followed by the bytes, padded with zeros to a word; it may
 * wrap around the ring.
 *
 * The NIC side (struct ofl_evq):
 *
 *   space    free words = size - (WRPTR - RDPTR'); when an event does not
 *            fit, RDPTR' is refreshed from the control block once
 *   post     variable words, then the event, release barrier, then
 *            WRPTR' and VWRPTR' (FIG. 8 steps 2-3)
 *   overflow neither ring has room: nothing is written (never
 *            overwritten), LOST counts it, OFL_E_EVQ_OVERFLOW; an
 *            OFL_EVQ_EV_OVERFLOW message goes to the OS queue, once per
 *            episode: not again until an event has been posted (a
 *            sender cannot make every lost event an OS message and an
 *            interrupt)
 *   OS path  when the IRQ bit is set (the application is blocked or
 *            descheduled: claims 1, 17) or the event's type is in the
 *            OS-set criteria (message forms, errors: claims 2, 3, 9),
 *            an OFL_EVQ_EV_OOB_DATA message naming the port goes to the
 *            OS queue and the interrupt is raised through the port; the
 *            IRQ bit is one-shot, cleared before the event's WRPTR is
 *            published (so an application that re-arms after seeing the
 *            event is never undone; an event that is not published
 *            leaves it set). Otherwise the application handles the event
 *            without the OS.
 *   OS queue a queue without a variable ring and without an OS queue of
 *            its own; when it is full its LOST count rises and the
 *            interrupt is still raised, so the OS scans every port.
 *
 * RDPTR values come from the application: a pointer that moves backwards
 * or past WRPTR is refused (OFL_E_EVQ_BAD_PTR) and counted.
 */
#define OFL_EVQ_EVENT_BYTES 16u
#define OFL_EVQ_EVENT_WORDS 4u
#define OFL_EVQ_CTL_BYTES 32u
#define OFL_EVQ_CTL_WRPTR 0u
#define OFL_EVQ_CTL_VWRPTR 4u
#define OFL_EVQ_CTL_LOST 8u
#define OFL_EVQ_CTL_RDPTR 16u
#define OFL_EVQ_CTL_VRDPTR 20u
#define OFL_EVQ_CTL_IRQ 24u
#define OFL_EVQ_MAX_WORDS (1u << 24)

enum ofl_evq_type {
    OFL_EVQ_EV_NONE = 0,
    OFL_EVQ_EV_DATAGRAM = 1, /* a datagram (connection messages) is in the
                                variable ring: the whole frame */
    OFL_EVQ_EV_CI_EVENT = 2, /* a CI event record: a, b = its payload */
    OFL_EVQ_EV_DELIVERY = 3, /* data was written: a = in-index, b = end
                                offset of the write */
    OFL_EVQ_EV_ERROR = 4,    /* an error on the port: a = enum ofl_err,
                                b = in-index */
    OFL_EVQ_EV_OOB_DATA = 5, /* OS queue: [OOB-DATA:PORT] */
    OFL_EVQ_EV_OVERFLOW = 6  /* OS queue: the port's queue overflowed */
};
#define OFL_EVQ_EV_MAX 6u

struct ofl_evq_event {
    uint32_t var_words; /* words of its variable record (set by post) */
    uint32_t a;
    uint32_t b;
    uint16_t port;      /* the port it concerns (set by post) */
    uint8_t type;       /* enum ofl_evq_type */
    uint8_t flags;      /* 0 */
};

struct ofl_evq_config {
    const struct ofl_port *port; /* DMA, barriers, interrupts */
    uint64_t ring_pa;            /* fixed ring, ring_words * 4 bytes */
    uint64_t var_pa;             /* variable ring, var_words * 4 bytes */
    uint64_t ctl_pa;             /* control block, OFL_EVQ_CTL_BYTES */
    uint32_t ring_words;         /* power of two, 4 .. OFL_EVQ_MAX_WORDS */
    uint32_t var_words;          /* 0 (none) or power of two up to the max */
    uint32_t vector;             /* interrupt vector (used when this queue
                                    fires without an OS queue) */
    uint16_t port_id;            /* the logical port */
    struct ofl_evq *os;          /* the OS queue; NULL for the OS queue */
};

struct ofl_evq {
    const struct ofl_port *port;
    struct ofl_evq *os;
    uint64_t ring_pa;
    uint64_t var_pa;
    uint64_t ctl_pa;
    uint32_t ring_words;
    uint32_t var_words;
    uint32_t wr;        /* WRPTR */
    uint32_t rd;        /* RDPTR' */
    uint32_t var_wr;    /* VWRPTR */
    uint32_t var_rd;    /* VRDPTR' */
    uint32_t criteria;  /* OS: event types (1 << type) that go to the OS */
    uint32_t vector;
    uint32_t posted;    /* events written */
    uint32_t lost;      /* events refused for lack of room */
    uint32_t os_messages; /* messages this queue sent to the OS queue */
    uint32_t interrupts;  /* interrupts raised for this queue */
    uint32_t bad_ptr;   /* refused pointer updates */
    uint16_t port_id;
    uint8_t irq;        /* IRQ' */
    uint8_t overflow_told; /* the OS was told of an overflow since the last
                              event posted (one message per episode) */
};

/* Initialises q and writes a zeroed control block through the port.
 * Checks sizes (powers of two), alignment (4 bytes), no wrap, and that an
 * OS queue has no variable ring and no OS queue. */
enum ofl_err ofl_evq_init(struct ofl_evq *q, const struct ofl_evq_config *cfg);

/* Sets the OS criteria (OS only: OFL_E_AP_PRIVILEGE for an application;
 * OFL_E_ARG for bits beyond the event types). */
enum ofl_err ofl_evq_set_criteria(struct ofl_evq *q, enum ofl_ap_priv priv,
                                  uint32_t mask);

/* The application (or the OS for it) wrote IRQ': arm or disarm. */
void ofl_evq_set_irq(struct ofl_evq *q, bool on);

/* The application wrote RDPTR' and VRDPTR' into the NIC: validated
 * (between the current value and WRPTR, whole events) then taken.
 * OFL_E_EVQ_BAD_PTR leaves both unchanged. */
enum ofl_err ofl_evq_set_rdptr(struct ofl_evq *q, uint32_t rd, uint32_t var_rd);

/* Reads RDPTR, VRDPTR and IRQ from the control block (the mirrored
 * copies) and takes them as ofl_evq_set_rdptr / _set_irq would, each on
 * its own: IRQ is taken even when the pointers are refused
 * (OFL_E_EVQ_BAD_PTR). */
enum ofl_err ofl_evq_refresh(struct ofl_evq *q);

/* Free events in the fixed ring, free words in the variable ring. */
uint32_t ofl_evq_space(const struct ofl_evq *q);
uint32_t ofl_evq_var_space(const struct ofl_evq *q);

/*
 * Posts ev (its port and var_words are filled in) with an optional
 * variable record of var_len bytes (0 = none) and runs the OS path.
 * OFL_E_EVQ_OVERFLOW when it does not fit (nothing written), OFL_E_ARG
 * for a record on a queue without a variable ring or a bad type, port
 * errors from the DMA (nothing visible to the reader).
 */
enum ofl_err ofl_evq_post(struct ofl_evq *q, const struct ofl_evq_event *ev,
                          const void *var, size_t var_len);

/*
 * The application's side of a queue, over the same memory seen through
 * its own pointers. WRPTR' and the records come from the NIC and are
 * checked before use.
 */
struct ofl_evq_app {
    uint8_t *ring;
    uint8_t *var;
    uint8_t *ctl;
    const struct ofl_port *port; /* barriers only; may be NULL */
    uint32_t ring_words;
    uint32_t var_words;
    uint32_t rd;
    uint32_t var_rd;
};

/* Initialises a from the queue's memory (sizes as for ofl_evq_init). */
enum ofl_err ofl_evq_app_init(struct ofl_evq_app *a, void *ring,
                              uint32_t ring_words, void *var,
                              uint32_t var_words, void *ctl,
                              const struct ofl_port *port);

/* Events waiting per WRPTR' (0 when WRPTR' is not believable). */
uint32_t ofl_evq_app_pending(const struct ofl_evq_app *a);

/*
 * Takes the next event into *ev and its variable record (if any) into
 * data[0 .. cap), *len its length; then advances and publishes RDPTR and
 * VRDPTR. OFL_E_EVQ_EMPTY, OFL_E_EVQ_BAD_PTR (WRPTR' not believable),
 * OFL_E_EVQ_CORRUPT (record sizes that disagree), OFL_E_SIZE (cap too
 * small: the event stays for a retry with a larger buffer). Cost: O(1)
 * plus the copy of the variable record.
 */
enum ofl_err ofl_evq_app_poll(struct ofl_evq_app *a, struct ofl_evq_event *ev,
                              void *data, size_t cap, size_t *len);

/* Sets the IRQ bit in the control block: "interrupt me" (the NIC learns it
 * through ofl_evq_refresh or an ofl_evq_set_irq register write). */
void ofl_evq_app_arm(struct ofl_evq_app *a);

/* ---- the credit-style shared work queue ------------------------------------ */

/*
 * A ring of `size` bytes (a power of two) in the receiver's memory, shared
 * over an aperture. Each side keeps its own pointer and the last value of
 * the other side's that reached it over the network. The updates are
 * conservative: the sender's view of RDPTR may lag, so it never writes
 * beyond the space the receiver has freed; the receiver's view of WRPTR
 * may lag, so it never reads what has not arrived.
 *
 *   sender    wr = own WRPTR, rd = last RDPTR received
 *   receiver  wr = last WRPTR received, rd = own RDPTR
 *
 * A remote pointer older than the one held (reordered update) is ignored;
 * one beyond what can be true is OFL_E_AP_WQ_BAD_PTR.
 */
struct ofl_ap_wq {
    uint32_t size;
    uint32_t wr;
    uint32_t rd;
};

/* size: power of two, 4 .. 2^30. */
enum ofl_err ofl_ap_wq_init(struct ofl_ap_wq *q, uint32_t size);
/* Bytes the sender may still write: size - (wr - rd). */
uint32_t ofl_ap_wq_space(const struct ofl_ap_wq *q);
/* Bytes the receiver may read: wr - rd. */
uint32_t ofl_ap_wq_avail(const struct ofl_ap_wq *q);
/* Sender: reserves len bytes (OFL_E_AP_WQ_NO_CREDIT beyond the space);
 * *offset is the ring offset of the first (the bytes wrap at size); wr
 * advances. Publish the new wr after writing the data. */
enum ofl_err ofl_ap_wq_produce(struct ofl_ap_wq *q, uint32_t len,
                               uint32_t *offset);
/* Receiver: takes len bytes (OFL_E_AP_WQ_NO_CREDIT beyond avail); *offset
 * as above; rd advances. Publish the new rd after reading. */
enum ofl_err ofl_ap_wq_consume(struct ofl_ap_wq *q, uint32_t len,
                               uint32_t *offset);
/* Sender: the receiver's RDPTR arrived. */
enum ofl_err ofl_ap_wq_remote_rd(struct ofl_ap_wq *q, uint32_t rd);
/* Receiver: the sender's WRPTR arrived. */
enum ofl_err ofl_ap_wq_remote_wr(struct ofl_ap_wq *q, uint32_t wr);

#endif /* OFL_ENABLE_AP */

/* ======================================================================== */
/* dt: host/adapter descriptor tables                                       */
/* ======================================================================== */
#if OFL_ENABLE_DT
/*
 * Host/adapter descriptor tables (seed 003, "Offload Network Adapter
 * Programming Interface", FIG. 7-18). The host and the adapter talk through
 * two rings of 32-byte descriptors in host memory:
 *
 *   input table   the host writes requests, the adapter reads them
 *   output table  the adapter writes responses, the host reads them
 *
 * The host touches the tables with plain loads and stores and the port's
 * barriers (struct ofl_dt_host); the adapter reaches them only through the
 * port's DMA, a batch of descriptors per transfer (struct ofl_dt). Either
 * side treats what the other wrote as hostile: every descriptor is decoded
 * with bounds-checked byte loads and refused with a named error.
 *
 * Descriptor layout. The seed gives owner (1 bit), type (5 bits) and
 * content (250 bits), and the buffer and control field widths; it leaves
 * their positions open. This library fixes them (all multi-byte fields
 * big-endian, like the wire):
 *
 *   byte   bits  field
 *   0      7     owner: 1 = the slot holds a descriptor for the table's
 *                consumer (the adapter for the input table, the host for
 *                the output table); 0 = the slot is free for the producer
 *   0      6..2  type (enum ofl_dt_type)
 *   0      1..0  reserved, MUST be 0
 *   1            flags (OFL_DT_F_*; each type allows a subset, the rest
 *                MUST be 0)
 *   2            status (enum ofl_dt_status; MUST be 0 in a request)
 *   3            number: control format: attribute tuples in the control
 *                buffer (seed: "Number 8 bits"); buffer responses: requests
 *                merged into one DMA, or placements combined
 *   4..7         tag: chosen by the host in a request, echoed in every
 *                response the request causes; 0 in unsolicited responses
 *   8..15        base (seed: "Base 64 bits"): physical address of the buffer
 *   16..19       len (seed: "Len 32 bits"): its length in bytes
 *   20..27       conn: connection id (seed: "Conn ID 64 bits"), 0 = none
 *   28..31       aux: per type (table below)
 *
 * The seed's ASAP and Modify bits are flags in byte 1. An owner bit of 1
 * marks a full slot; "or vice versa" (seed) allows this choice. A
 * producer writes bytes 1..31, then (after a release barrier) byte 0; the
 * consumer returns a slot by clearing the owner bit. Tables MUST be 32-byte
 * aligned so that each descriptor lies in one cache line: the adapter
 * relies on a DMA of one descriptor being seen whole, as NVMe does for
 * its completion entries.
 *
 * Types and their fields (- = MUST be 0; "any" = free; R = required
 * non-zero, in a response only when its status is OK; R on a buffer
 * requires its len, base 0 being an address like any other). Every row
 * is checked by tests/test_dt_rules.c:
 *
 *   type                 flags        number  base/len      conn  aux
 *   REQ_BUF_SEND    0x01 ASAP MODIFY  -       buffer R      R     -
 *   REQ_BUF_AVAIL   0x02 PEEK         -       buffer R      any   skip
 *   REQ_CONNECT     0x03 -            R       ctrl buf R    -     -
 *   REQ_LISTEN      0x04 -            R       ctrl buf R    -     -
 *   REQ_TERMINATE   0x05 -            -       -             R     -
 *   REQ_CANCEL      0x06 -            -       -             any   ref tag
 *   REQ_CONN_ATTR   0x07 -            R       ctrl buf R    R     -
 *   REQ_ADAPTER_ATTR 0x08 -           R       ctrl buf R    -     -
 *   RSP_BUF_RECV    0x11 FINAL PEEK   count   buffer, len   R     offset
 *   RSP_BUF_AVAIL   0x12 -            count   range, len    R     -
 *   RSP_CONN_ARRIVAL 0x13 -           -       base=listener R     -
 *   RSP_CONN_COMPLETE 0x14 -          -       -             any   target
 *   RSP_LISTEN      0x15 -            -       -             any   -
 *   RSP_TERMINATE   0x16 -            -       -             R     -
 *   RSP_CANCEL      0x17 -            count   -             any   ref tag
 *   RSP_CONN_ATTR   0x18 REPORT       any     ctrl buf      R     any
 *   RSP_ADAPTER_ATTR 0x19 -           any     ctrl buf      -     -
 *
 *   buffer send       conn names an established connection, or a listener
 *                     (a group send: every member connection transmits it)
 *   buffer available  conn names a connection (its own buffer, zero copy),
 *                     a listener (a buffer shared by its group) or 0 (a bulk
 *                     buffer for any connection). PEEK copies the bytes
 *                     staged when it is served, up to len, without
 *                     consuming them (answered once any are staged: the
 *                     response's len says how many); aux = bytes of the
 *                     stream to skip before filling (read with an offset)
 *   buffer receive    base/aux: the posted buffer and the byte offset of
 *                     this data in it (partial buffers, FIG. 14); FINAL:
 *                     control of the whole buffer returns to the host;
 *                     number: placements combined (consecutive in-order
 *                     segments at consecutive addresses)
 *   buffer available  base/len: the range taken (merged requests cover
 *   (response)        adjacent ranges), number: requests it answers
 *   connection arrival base: the listener's connection id
 *   connection complete aux: index of the REMOTE tuple in a bulk connect
 *   listen response   written when the firmware has answered
 *                     (ofl_dt_listen_result: OK or FAILED), when a
 *                     cancellation came first (CANCELLED), or at once for a
 *                     refused request (conn 0)
 *   cancellation      conn != 0 cancels that connection's connect or
 *                     listen; conn == 0 cancels every pending send, connect
 *                     or listen whose tag is aux. The response's number
 *                     counts what was cancelled (each also gets its own
 *                     response with OFL_DT_ST_CANCELLED)
 *   connection attribute REPORT: an unsolicited state report (failover):
 *   (response)        number = state, base = bytes transmitted, len = bytes
 *                     received but not yet placed, aux = bytes received
 *                     (low 32 bits)
 *
 * Control buffers hold attribute tuples (seed: Get/Set 1 bit, Attribute
 * 15 bits, Length 32 bits, Value), packed without padding:
 *
 *   offset  size  field
 *   0       2     bit 15: 1 = set, 0 = get; bits 14..0: attribute id
 *   2       4     length of the value in bytes
 *   6       len   value (integers big-endian)
 *
 * A control buffer MUST hold exactly `number` tuples and nothing else. A
 * get tuple reserves the value's size; the adapter writes the value into
 * it. A set tuple carries the new value; the adapter writes the old value
 * back in its place ("an old ... value or new value success/failure").
 *
 * Slot states (both tables):
 *
 *   slot     event                                   next
 *   free     producer writes bytes 1..31, then byte 0 full (owner 1)
 *   full     consumer reads and decodes it           consumed
 *   consumed consumer clears the owner bit (adapter:   free
 *            one DMA writing the consumed run back
 *            with its owner bits clear)
 *
 * Connection states (struct ofl_dt_conn, caller memory):
 *
 *   state        event                                  next
 *   FREE         connect request (one per REMOTE tuple) CONNECTING
 *   FREE         listen request                         LISTEN_WAIT
 *                                                       (OFL_DT_ACT_LISTEN)
 *   LISTEN_WAIT  ofl_dt_listen_result OK                LISTENING (listen
 *                                                       response OK)
 *   LISTEN_WAIT  ofl_dt_listen_result FAILED            FREE (listen
 *                                                       response FAILED)
 *   FREE         ofl_dt_conn_arrive on a listener       ESTABLISHED (arrival
 *                                                       notice pending)
 *   CONNECTING   ofl_dt_conn_established                ESTABLISHED
 *                                                       (completion pending)
 *   CONNECTING   ofl_dt_conn_failed, connect timeout    FAILED
 *   FAILED       its completion notice is written       FREE
 *   ESTABLISHED  termination request                    CLOSING
 *   CLOSING,     ofl_dt_conn_closed (firmware)          DRAINING
 *   ESTABLISHED
 *   LISTENING    termination or cancellation            DRAINING
 *   CONNECTING,  cancellation                           DRAINING
 *   LISTEN_WAIT
 *   DRAINING     its last response is written           FREE
 *                (a listener the firmware runs:         UNLISTEN)
 *   UNLISTEN     ofl_dt_conn_closed (firmware)          FREE
 *
 * A listener whose OFL_DT_ACT_LISTEN the firmware took is listening in the
 * firmware: when it has drained it waits in UNLISTEN with
 * OFL_DT_ACT_CLOSE for the firmware, which stops listening and calls
 * ofl_dt_conn_closed. Until then its id stays taken (every request naming
 * it is refused with CONN_STATE, ofl_dt_conn_arrive too) and, from the
 * moment it starts to drain, a listen on its protocol and port is refused
 * with CONN_STATE, so that the firmware never listens twice on one port.
 * The port a listen names is its last LOCAL_PORT tuple (0: none, refused
 * with BAD_TUPLE). A listener the firmware never took is
 * freed at once (its LISTEN action dies with it).
 *
 * A listen is answered like a connect: by the firmware, once it has tried
 * (seed 003: the listen response "indicates the success/failure of a
 * submitted listen request"; the adapter "only responds when a connection
 * is established or a time-out or error condition is met"). The request
 * is checked when consumed - a bad tuple, a port already listened on
 * (LISTEN_WAIT, LISTENING or UNLISTEN) or a full table is refused at once
 * with a listen response naming no connection - and otherwise waits in
 * LISTEN_WAIT until the firmware calls ofl_dt_listen_result: OK makes it
 * LISTENING, FAILED frees it (the firmware does not listen for it). Until
 * then it is not a listener: buffers, sends, terminations and arrivals
 * naming it are refused with CONN_STATE, a GROUP set naming it with
 * BAD_TUPLE; a cancellation drains it and its listen response
 * (CANCELLED) goes out last, after which a listener the firmware took
 * waits in UNLISTEN for it to stop.
 *
 * Closing in steps (DRAINING). A termination, a cancellation or
 * ofl_dt_conn_closed can owe the host more responses than the output
 * table holds: one per buffer it returns and per listed send it drops,
 * then its own. Such a close never waits for room as a whole (it could
 * wait for ever: the host cannot free slots that were never written).
 * Instead it takes effect at once and its responses go out as room
 * allows, resumed by every later ofl_dt_process and ofl_dt_service (the
 * caller-owned entries and context hold where it stopped). What the host
 * sees, from the moment the request is consumed (or ofl_dt_conn_closed
 * returns OFL_OK):
 *
 *   - the entry is DRAINING: its id stays taken until the last
 *     response, so every request naming it meanwhile is refused with
 *     OFL_DT_ST_CONN_STATE (the connection exists, its state refuses:
 *     sends, buffers, attributes, terminations; a cancellation finds
 *     nothing); BAD_CONN comes only once the id is freed (stale). It
 *     takes no data, places nothing, transmits nothing (staged and
 *     queued bytes are dropped), a listener accepts no connection and
 *     lends its shared buffers to no member;
 *   - its responses come in this order, possibly spread over several
 *     output batches: its pending completion or arrival notice, its open
 *     receive range (when that range ends a shared buffer, the other
 *     connections' unreported ranges in that buffer first, as in "Order"
 *     below), for a listener every member's unreported range in its
 *     shared buffers (each after that member's notice, forced out if
 *     pending; ranges that end a buffer, FINAL, after all others), its
 *     peek buffer, its posted buffers (oldest first), its listed sends
 *     (in list order), each returned once with FINAL and FLUSHED
 *     (CANCELLED for a cancellation), then - last - the termination
 *     response (a cancelled connect: its completion with CANCELLED);
 *   - each step takes only the room it writes: one slot, or two for a
 *     range that goes with its member's forced notice (both or
 *     neither); so a response a request itself causes (a refusal) may
 *     go out between two steps;
 *   - a cancellation covers exactly what matched when it was consumed:
 *     the sends it matched by tag stay listed but are never transmitted,
 *     and its cancellation response (number = how many matched) follows
 *     every response of everything it cancelled. One cancellation runs
 *     at a time: the next cancellation request waits in the input table
 *     until the running one has written its response.
 *
 * No response is lost or repeated, and nothing else waits on a close.
 * Sources: seed 003 ("the termination response descriptor type indicates
 * success/failure of a submitted close request", "the cancellation
 * response ... of a submitted cancellation request": one response per
 * request, after its effects) and the FIG. 9 loop, in which the adapter
 * keeps reading the input table; the seed does not bound how many buffers
 * a close returns, so the order and the stepping are this library's.
 *
 * Completion and arrival notices are aggregated (FIG. 10): they wait until
 * one of the configured criteria holds - a count of pending notices, the
 * time since the first, data arriving on a pending connection, or a data
 * pattern received on one (cfg.cn_*) - and never longer than
 * cfg.cn_max_delay. The host then gets them all in one output batch and
 * one interrupt.
 *
 * Order. After a connect or listen request the adapter need not talk to
 * the host about the new connections "until certain criteria are met"
 * (seed 003, connection establishment, before FIG. 9). So no response
 * that the connection's traffic or the clock causes precedes that
 * connection's completion or arrival notice: a buffer receive response
 * (placed data, or a peek's copy of it) and the periodic state report
 * wait until the notice is written. Data is still placed meanwhile,
 * except behind an outstanding peek (a peek reads the stream from its
 * start); a state report round skips the connection, whose first report
 * follows its notice. A notice goes out before its criteria hold only
 * when what must follow it cannot wait: the connection closed
 * (ofl_dt_conn_closed: the first step of its drain), or a shared buffer
 * returns (below). A response that a request itself causes (its refusal,
 * an attribute response, a send's buffer available, a cancellation's) is
 * not held: the host itself named the connection's id in that request.
 *
 * Sends (FIG. 11, 15, 16): buffer send requests enter the bulk transfer
 * list and wait for a delay criterion (cfg.bt_*: count, bytes, time; the
 * ASAP flag or a full list acts at once; cfg.bt_max_delay bounds the
 * wait). The criterion is looked at anew at each run: a send a run left
 * listed because its ring was full waits for it to hold again (with
 * bt_max_delay 0 and only a count or bytes criterion, until more sends
 * come: set bt_max_delay where that matters). The list is then ordered: connections starved for longer than
 * cfg.starve_time first, then by connection priority (7 highest), each
 * connection's requests together in arrival order (the seed's A A A B B B
 * C C C). Consecutive requests of a connection for adjacent physical
 * ranges merge into one DMA (up to cfg.merge_max bytes, and never more
 * than a transmit ring holds) and one response whose number says how
 * many it answers. A request without MODIFY whose
 * range the send cache still holds is copied from the cache, not DMA'd.
 * Taken data lands in the connection's transmit ring (ofl_dt_tx_peek /
 * ofl_dt_tx_consume).
 *
 * Receives (FIG. 12-14, 17, 18): the firmware hands received bytes to
 * ofl_dt_rx; they wait in the connection's staging ring. ofl_dt_service
 * places them, connections with data waiting longer than cfg.starve_time
 * (data staged without a break since the staging ring was last empty)
 * first, then by priority: into the connection's own posted buffer, else a
 * buffer shared by its group (the listener it arrived on), else - after
 * waiting up to the connection's wait_limit for a buffer, or not at all
 * when fewer than hist_threshold percent of its last hist_window
 * placements found one - into the best-fitting bulk buffer (the smallest
 * that holds all the data, else the largest). Own and shared buffers fill
 * partially: each response gives offset and length, FINAL when the buffer
 * is full. A bulk buffer is used once and returned FINAL, unless the
 * connection allows fragmentation (enum ofl_dt_frag: it then keeps a bulk
 * buffer with room as its own). A shared buffer
 * holds ranges of several connections with their own delays; since the
 * host takes the end of the buffer (FINAL, or offset + length = its
 * length) as "full control of the application buffer is returned"
 * (seed 003 FIG. 14), the response returning it - and the FLUSHED return
 * when its listener closes - goes out only after every other range in it
 * was reported: those still unreported are reported first, whatever their
 * delay, each after its connection's notice (forced out if pending). In
 * the normal course the FINAL range waits for room for itself and all
 * those together (at most the output table: beyond that, and always in a
 * close, they go out in steps, a notice with its range, the FINAL range
 * last; see closing in steps). Placements
 * contiguous in one buffer combine into one response; the response waits
 * for the connection's notification delay (a time, a byte count, or the
 * host's measured buffer-posting interval, always bounded by notify_max).
 *
 * Time is an input: every function that needs it takes `now` in any unit
 * the caller chooses (all times and delays in the same unit).
 *
 * Context: a struct ofl_dt_host belongs to the host driver, a struct
 * ofl_dt to the adapter firmware; neither is reentrant. The two sides run
 * concurrently and share only the tables.
 */

#define OFL_DT_DESC_SIZE 32u
#define OFL_DT_OWNER 0x80u         /* byte 0: slot full */
#define OFL_DT_TYPE_SHIFT 2
#define OFL_DT_TYPE_MASK 0x1Fu
#define OFL_DT_RESERVED0 0x03u     /* byte 0 bits that MUST be 0 */
#define OFL_DT_MAX_SLOTS (1u << 16) /* per table */
#define OFL_DT_IRQ_NONE 0xFFFFFFFFu  /* interrupt vector: do not raise */

/* Descriptor types (seed 003: request and response descriptor types). */
enum ofl_dt_type {
    OFL_DT_REQ_BUF_SEND = 0x01,      /* buffer send */
    OFL_DT_REQ_BUF_AVAIL = 0x02,     /* buffer available (receive buffer) */
    OFL_DT_REQ_CONNECT = 0x03,       /* connect request (bulk: many) */
    OFL_DT_REQ_LISTEN = 0x04,        /* listen request */
    OFL_DT_REQ_TERMINATE = 0x05,     /* termination request */
    OFL_DT_REQ_CANCEL = 0x06,        /* cancellation request */
    OFL_DT_REQ_CONN_ATTR = 0x07,     /* connection attribute control */
    OFL_DT_REQ_ADAPTER_ATTR = 0x08,  /* adapter attribute control */
    OFL_DT_RSP_BUF_RECV = 0x11,      /* buffer receive */
    OFL_DT_RSP_BUF_AVAIL = 0x12,     /* buffer available (send done) */
    OFL_DT_RSP_CONN_ARRIVAL = 0x13,  /* connection arrival */
    OFL_DT_RSP_CONN_COMPLETE = 0x14, /* connection completion */
    OFL_DT_RSP_LISTEN = 0x15,        /* listen response */
    OFL_DT_RSP_TERMINATE = 0x16,     /* termination response */
    OFL_DT_RSP_CANCEL = 0x17,        /* cancellation response */
    OFL_DT_RSP_CONN_ATTR = 0x18,     /* connection attribute */
    OFL_DT_RSP_ADAPTER_ATTR = 0x19   /* adapter attribute */
};

/* Flags (byte 1). */
enum ofl_dt_flag {
    OFL_DT_F_ASAP = 0x01,   /* buffer send: DMA as soon as possible */
    OFL_DT_F_MODIFY = 0x02, /* buffer send: changed since last presented */
    OFL_DT_F_FINAL = 0x04,  /* buffer receive: buffer returned to the host */
    OFL_DT_F_PEEK = 0x08,   /* buffer available / receive: a peek */
    OFL_DT_F_REPORT = 0x10  /* connection attribute: periodic state report */
};

/*
 * Response status (byte 2). A refused request's status names what the host
 * can do about it; the adapter's error (OFL_E_DT_*) behind each is given.
 * A request that only meets a full bulk transfer list is never refused: it
 * stays in the input table until ofl_dt_service drains the list.
 */
enum ofl_dt_status {
    OFL_DT_ST_OK = 0,
    OFL_DT_ST_FAILED = 1,    /* connect refused or reset; listen could not
                                start (ofl_dt_listen_result) */
    OFL_DT_ST_TIMEOUT = 2,   /* connect timed out and was cancelled */
    OFL_DT_ST_CANCELLED = 3, /* cancelled by a cancellation request */
    OFL_DT_ST_FLUSHED = 4,   /* returned unused: its connection closed */
    OFL_DT_ST_BAD_DESC = 5,  /* the request was malformed (the codec's
                                errors, skip or peek without a
                                connection): a host bug */
    OFL_DT_ST_BAD_CONN = 6,  /* no such connection (CONN_UNKNOWN): the id
                                is stale, the host drops what it holds */
    OFL_DT_ST_BAD_TUPLE = 7, /* control buffer or attribute refused
                                (TUPLE_*, ATTR_*) */
    OFL_DT_ST_NO_RESOURCE = 8, /* connection table or backlog full
                                  (NO_CONN): retry after closing some */
    OFL_DT_ST_NOT_FOUND = 9, /* nothing matched a cancellation */
    OFL_DT_ST_DMA = 10,      /* the port failed to reach the buffer: a
                                send or peek answered with nothing moved;
                                an own or bulk receive buffer returned
                                FINAL (aux: the bytes it holds) while its
                                data waits for the next buffer (a shared
                                one stays, and the poll returns the
                                port's error) */
    OFL_DT_ST_BUSY = 11,     /* a peek is already outstanding: repost
                                after its answer */
    OFL_DT_ST_CONN_STATE = 12, /* the connection exists but its state
                                  refuses the request (CONN_STATE): e.g.
                                  cancel, not terminate, a connect; or
                                  it is DRAINING (closing in steps):
                                  wait for its last response */
    OFL_DT_ST_NO_BUFFER = 13,  /* receive buffer pool full (NO_BUFFER):
                                  repost after buffers come back */
    OFL_DT_ST_TOO_LARGE = 14,  /* larger than the adapter takes in one
                                  request (CTRL_SIZE, TOO_LARGE): split it */
    OFL_DT_ST_BAD_RANGE = 15   /* a buffer outside the host range the
                                  adapter may reach, or over a table
                                  (BUF_RANGE) */
};
#define OFL_DT_ST_MAX OFL_DT_ST_BAD_RANGE

/* A decoded descriptor. Which fields a type uses: see the table above. */
struct ofl_dt_desc {
    uint64_t base;
    uint64_t conn;
    uint32_t tag;
    uint32_t len;
    uint32_t aux;
    uint8_t type;   /* enum ofl_dt_type */
    uint8_t flags;  /* enum ofl_dt_flag bits */
    uint8_t status; /* enum ofl_dt_status */
    uint8_t number;
};

/* True for a request type (host -> adapter). */
bool ofl_dt_is_request(uint8_t type);
/* True for a response type (adapter -> host). */
bool ofl_dt_is_response(uint8_t type);
/* The response type that answers request type req, or 0. */
uint8_t ofl_dt_response_to(uint8_t req);

/*
 * Encodes d into out[0 .. 32) with the owner bit clear, after checking it
 * as ofl_dt_desc_decode would (type, flags, unused fields zero, required
 * fields present, base + len without wrap). out_len < 32: OFL_E_SIZE.
 */
enum ofl_err ofl_dt_desc_encode(const struct ofl_dt_desc *d, uint8_t *out,
                                size_t out_len);

/*
 * Decodes in[0 .. 32) into *d, ignoring the owner bit. Refuses: len < 32
 * (OFL_E_TRUNCATED), reserved bits (OFL_E_DT_RESERVED), type 0 or
 * unassigned (OFL_E_DT_BAD_TYPE), flags outside the type's set
 * (OFL_E_DT_BAD_FLAGS), a field the type leaves unused not zero
 * (OFL_E_DT_RESERVED; a request's status is such a field), a required
 * field zero, a status beyond OFL_DT_ST_MAX, base + len wrapping (for a
 * buffer receive response, base + aux + len: the data) (OFL_E_DT_BAD_FIELD),
 * PEEK outside its use: a buffer available request with it names a
 * connection and skips nothing, a buffer receive response with it is
 * FINAL (OFL_E_DT_BAD_FLAGS). *d is written only on success.
 */
enum ofl_err ofl_dt_desc_decode(const uint8_t *in, size_t len,
                                struct ofl_dt_desc *d);

/* ---- attribute tuples ---------------------------------------------------- */

#define OFL_DT_TUPLE_HDR 6u       /* bytes before the value */
#define OFL_DT_ATTR_SET 0x8000u   /* tuple bit 15 */
#define OFL_DT_ATTR_ID_MASK 0x7FFFu
#define OFL_DT_PATTERN_MAX 16u    /* longest completion data pattern */
#define OFL_DT_PATTERN_SIZE 17u   /* CN_PATTERN value: length + 16 bytes */
#define OFL_DT_REMOTE_SIZE 18u    /* REMOTE value: 16-byte address + port */

/*
 * Attributes (15-bit ids). Integers are big-endian of the size given;
 * ranges are checked on set. Scope: A = adapter attribute control,
 * C = connection attribute control, E = endpoint tuple of a connect or
 * listen request (which may also carry C sets for the new connections).
 */
enum ofl_dt_attr {
    /* adapter (A) */
    OFL_DT_ATTR_CN_CRITERIA = 0x0001,   /* u32 OFL_DT_CN_* bits */
    OFL_DT_ATTR_CN_COUNT = 0x0002,      /* u32 >= 1 */
    OFL_DT_ATTR_CN_TIME = 0x0003,       /* u64 */
    OFL_DT_ATTR_CN_MAX_DELAY = 0x0004,  /* u64, 0 = unbounded */
    OFL_DT_ATTR_CN_PATTERN = 0x0005,    /* 17 bytes: length 0 .. 16, then 16
                                           pattern bytes (unused ones 0) */
    OFL_DT_ATTR_CONNECT_TIMEOUT = 0x0006, /* u64, 0 = none */
    OFL_DT_ATTR_REPORT_PERIOD = 0x0007, /* u64, 0 = no reports */
    OFL_DT_ATTR_BT_CRITERIA = 0x0008,   /* u32 OFL_DT_BT_* bits */
    OFL_DT_ATTR_BT_COUNT = 0x0009,      /* u32 >= 1 */
    OFL_DT_ATTR_BT_BYTES = 0x000A,      /* u32 >= 1 */
    OFL_DT_ATTR_BT_TIME = 0x000B,       /* u64 */
    OFL_DT_ATTR_BT_MAX_DELAY = 0x000C,  /* u64, 0 = unbounded */
    OFL_DT_ATTR_STARVE_TIME = 0x000D,   /* u64, 0 = never starved */
    OFL_DT_ATTR_MERGE_MAX = 0x000E,     /* u32 >= 1 */
    OFL_DT_ATTR_OUT_WARN = 0x000F,      /* u32 < output slots */
    OFL_DT_ATTR_CONN_COUNT = 0x0010,    /* u32, read-only: live entries */
    /* connection (C) */
    OFL_DT_ATTR_NOTIFY_MODE = 0x0101,   /* u32 enum ofl_dt_notify */
    OFL_DT_ATTR_NOTIFY_DELAY = 0x0102,  /* u64 */
    OFL_DT_ATTR_NOTIFY_BYTES = 0x0103,  /* u32 >= 1 */
    OFL_DT_ATTR_NOTIFY_MAX = 0x0104,    /* u64, 0 = unbounded */
    OFL_DT_ATTR_PRIORITY = 0x0105,      /* u32 0 .. 7 */
    OFL_DT_ATTR_WAIT_LIMIT = 0x0106,    /* u64, 0 = do not wait */
    OFL_DT_ATTR_HIST_WINDOW = 0x0107,   /* u32 0 .. 32, 0 = no history */
    OFL_DT_ATTR_HIST_THRESHOLD = 0x0108, /* u32 percent 0 .. 100 */
    OFL_DT_ATTR_GROUP = 0x0109,         /* u64 listener id, 0 = none */
    OFL_DT_ATTR_STATE = 0x010A,         /* u32, read-only */
    OFL_DT_ATTR_RX_TOTAL = 0x010B,      /* u64, read-only */
    OFL_DT_ATTR_TX_TOTAL = 0x010C,      /* u64, read-only */
    OFL_DT_ATTR_FRAGMENT = 0x010D,      /* u32 enum ofl_dt_frag */
    /* endpoint (E; C get read-only) */
    OFL_DT_ATTR_PROTOCOL = 0x0201,      /* u32 0 .. 255 (6 TCP) */
    OFL_DT_ATTR_LOCAL_PORT = 0x0202,    /* u32 0 .. 65535 */
    OFL_DT_ATTR_REMOTE = 0x0203,        /* 18 bytes: address (IPv6 or
                                           IPv4-mapped), port big-endian;
                                           one per connection to open */
    OFL_DT_ATTR_BACKLOG = 0x0204        /* u32, listen: most arrived
                                           connections open at once (an
                                           entry frees its place when it
                                           is freed), 0 = unlimited */
};

/* Value size of an attribute, 0 if unknown. */
uint32_t ofl_dt_attr_size(uint16_t attr);

/* One decoded tuple; value points into the buffer it was read from. */
struct ofl_dt_tuple {
    const uint8_t *value;
    uint32_t value_off; /* offset of the value in the buffer */
    uint32_t len;
    uint16_t attr;      /* 15 bits */
    bool set;
};

/*
 * Reads the tuple at *off of buf[0 .. len) and advances *off past it.
 * OFL_E_DT_TUPLE_TRUNCATED when the header or the value runs past len,
 * OFL_E_DT_ATTR_UNKNOWN for attribute 0. *off and *t unchanged on error.
 */
enum ofl_err ofl_dt_tuple_next(const uint8_t *buf, size_t len, size_t *off,
                               struct ofl_dt_tuple *t);

/*
 * Appends a tuple at *off of buf[0 .. cap): OFL_E_SIZE when it does not
 * fit, OFL_E_ARG for attribute 0 or above 0x7FFF (or value NULL with
 * vlen > 0). A get tuple with value NULL reserves vlen zero bytes.
 */
enum ofl_err ofl_dt_tuple_put(uint8_t *buf, size_t cap, size_t *off, bool set,
                              uint16_t attr, const void *value, uint32_t vlen);

/*
 * Checks that buf[0 .. len) holds exactly number tuples and nothing else:
 * OFL_E_DT_TUPLE_TRUNCATED, OFL_E_DT_ATTR_UNKNOWN (id 0) or
 * OFL_E_DT_TUPLE_COUNT.
 */
enum ofl_err ofl_dt_tuples_check(const uint8_t *buf, size_t len,
                                 uint32_t number);

/* ---- host side ----------------------------------------------------------- */

/* Doorbells the host rings (ofl_dt_host_kick): its producer and consumer
 * counters, for adapters that want a hint instead of polling. */
#define OFL_DT_DB_IN_TAIL 0x0D70u
#define OFL_DT_DB_OUT_HEAD 0x0D71u

/* The host's view of the two tables (host virtual memory). */
struct ofl_dt_host {
    uint8_t *in;                 /* input table, in_slots * 32 bytes */
    uint8_t *out;                /* output table */
    const struct ofl_port *port; /* barriers and doorbells; may be NULL */
    uint32_t in_slots, out_slots;
    uint32_t in_tail;            /* next input slot to fill (free-running) */
    uint32_t out_head;           /* next output slot to read */
    uint32_t bad;                /* responses refused by the decoder */
};

/*
 * Initialises h over the two tables (32-byte aligned, slots a power of two
 * 2 .. OFL_DT_MAX_SLOTS) and clears both tables, so every slot is free.
 * The adapter MUST be initialised after this (it assumes empty tables).
 */
enum ofl_err ofl_dt_host_init(struct ofl_dt_host *h, void *in_table,
                              uint32_t in_slots, void *out_table,
                              uint32_t out_slots, const struct ofl_port *port);

/*
 * Posts request d into the next input slot: checks it is a request and
 * encodes it (errors as ofl_dt_desc_encode), OFL_E_DT_FULL when the slot
 * still belongs to the adapter. Writes bytes 1..31, a release barrier,
 * then byte 0.
 */
enum ofl_err ofl_dt_host_post(struct ofl_dt_host *h,
                              const struct ofl_dt_desc *d);

/*
 * Posts d[0 .. n) with one release barrier: all or nothing (OFL_E_DT_FULL
 * when fewer than n slots are free, or the first encoding error).
 */
enum ofl_err ofl_dt_host_post_batch(struct ofl_dt_host *h,
                                    const struct ofl_dt_desc *d, uint32_t n);

/*
 * Reads the next response into *d and frees its slot. OFL_E_DT_EMPTY when
 * there is none. A malformed or non-response descriptor is consumed too
 * (the ring must not stall) and its decode error returned; h->bad counts
 * them.
 */
enum ofl_err ofl_dt_host_poll(struct ofl_dt_host *h, struct ofl_dt_desc *d);

/*
 * Reads up to max responses into d[], one acquire and one release barrier
 * for the lot. Returns how many slots were consumed in *n (a malformed one
 * gets type 0 in d[] and counts in h->bad). OFL_E_DT_EMPTY when none.
 */
enum ofl_err ofl_dt_host_poll_batch(struct ofl_dt_host *h,
                                    struct ofl_dt_desc *d, uint32_t max,
                                    uint32_t *n);

/* Rings OFL_DT_DB_IN_TAIL and OFL_DT_DB_OUT_HEAD with the counters. */
enum ofl_err ofl_dt_host_kick(const struct ofl_dt_host *h);

/* ---- adapter side: configuration ---------------------------------------- */

/* Completion aggregation criteria (cfg.cn_criteria, FIG. 10). */
enum ofl_dt_cn_criterion {
    OFL_DT_CN_COUNT = 0x1,  /* cn_count notices pending */
    OFL_DT_CN_TIME = 0x2,   /* cn_time since the oldest notice still
                               pending (one a close sent early no
                               longer counts; see ofl_dt.cn_t_first) */
    OFL_DT_CN_DATA = 0x4,   /* data arrived on a pending connection */
    OFL_DT_CN_PATTERN = 0x8 /* cn_pattern received on a pending one (a
                               pattern set anew, by ofl_dt_configure or
                               ADAPTER_ATTR, is looked for in the bytes
                               that follow) */
};
#define OFL_DT_CN_ALL 0xFu

/* Bulk transfer list criteria (cfg.bt_criteria, FIG. 16). */
enum ofl_dt_bt_criterion {
    OFL_DT_BT_COUNT = 0x1, /* bt_count requests listed */
    OFL_DT_BT_BYTES = 0x2, /* bt_bytes bytes listed */
    OFL_DT_BT_TIME = 0x4   /* bt_time since the oldest was listed */
};
#define OFL_DT_BT_ALL 0x7u

/* Receive notification delay modes (per connection). */
enum ofl_dt_notify {
    OFL_DT_NOTIFY_NOW = 0,     /* at the end of the service pass */
    OFL_DT_NOTIFY_TIME = 1,    /* notify_delay after the first placement */
    OFL_DT_NOTIFY_BYTES = 2,   /* once notify_bytes are placed */
    OFL_DT_NOTIFY_ADAPTIVE = 3 /* the host's buffer-posting interval */
};

/*
 * The fragmentation choice (seed 003, after FIG. 14: "in the case where a
 * large contiguous virtual buffer is provided for application use, buffer
 * fragments may be used in order to preserve virtual contiguous space
 * preferences ... the offload network adapter may elect to allow
 * fragmentation when the application buffers are not part of a large
 * contiguous virtual buffer to optimize placement of received data.
 * Permitting fragmentation may help to reduce the number of buffers handed
 * from the offload network adapter to the host system and vice versa").
 * Per connection (cfg.frag, attribute FRAGMENT):
 *
 *   buffer the data meets        KEEP (0, default)       ALLOW (1)
 *   own: the application's       filled in stream order  the same
 *   buffer, posted for the       at consecutive offsets,
 *   connection                   each to its end: the
 *                                stream's portions stay
 *                                virtually contiguous
 *   shared: its group's          the same                the same
 *   bulk: any connection's (no   one placement, then     a placement that
 *   large application buffer)    the buffer goes back    leaves room keeps
 *                                FINAL, its rest unused  the buffer as the
 *                                                        connection's own:
 *                                                        its next placements
 *                                                        follow (partial
 *                                                        responses, FIG. 14),
 *                                                        FINAL when full
 *
 * So an application that gave a large contiguous buffer receives the
 * stream contiguous in it (1500-byte portions at consecutive offsets, a
 * portion split at a buffer's end continuing at the next own buffer's
 * start) in either mode; without one, ALLOW lets the adapter fill bulk
 * buffers with several portions, and fewer buffers travel both ways. A
 * bulk buffer kept under ALLOW is the connection's from then on: its
 * responses and its return at a close (FLUSHED, FINAL, aux = bytes held)
 * name the connection, it counts in ofl_dt_stats.bulk_kept, and own
 * buffers the host posts later follow it in placement order. It is taken
 * only when the connection has no own buffer, so it never breaks the
 * contiguity of an application buffer.
 */
enum ofl_dt_frag {
    OFL_DT_FRAG_KEEP = 0, /* bulk buffers hold one placement each */
    OFL_DT_FRAG_ALLOW = 1 /* a bulk buffer with room takes more */
};

/* Per-connection settings (connection attributes). */
struct ofl_dt_conn_cfg {
    uint64_t notify_delay; /* OFL_DT_NOTIFY_TIME */
    uint64_t notify_max;   /* bound on any notification delay, 0 = none */
    uint64_t wait_limit;   /* wait for an own/shared buffer, 0 = no wait */
    uint32_t notify_bytes; /* OFL_DT_NOTIFY_BYTES, >= 1 */
    uint8_t notify_mode;   /* enum ofl_dt_notify */
    uint8_t priority;      /* 0 .. 7, 7 first */
    uint8_t hist_window;   /* placements remembered, 0 .. 32 */
    uint8_t hist_threshold; /* percent, 0 .. 100 */
    uint8_t frag;          /* enum ofl_dt_frag */
};

/* Adapter settings (adapter attributes). */
struct ofl_dt_config {
    uint64_t cn_time, cn_max_delay;
    uint64_t connect_timeout; /* 0 = none */
    uint64_t report_period;   /* 0 = no periodic connection reports */
    uint64_t bt_time, bt_max_delay;
    uint64_t starve_time;     /* 0 = nothing is ever starved */
    uint32_t cn_criteria;     /* OFL_DT_CN_* bits, 0 = notify at once */
    uint32_t cn_count;
    uint32_t bt_criteria;     /* OFL_DT_BT_* bits, 0 = transfer at once */
    uint32_t bt_count, bt_bytes;
    uint32_t merge_max;       /* largest merged DMA in bytes */
    uint32_t out_warn;        /* raise irq_overflow when free output slots
                                 fall to this many */
    uint32_t irq_response;    /* vector after each output batch, or NONE */
    uint32_t irq_overflow;    /* vector when output overflow is near */
    uint8_t cn_pattern[OFL_DT_PATTERN_MAX];
    uint8_t cn_pattern_len;
    struct ofl_dt_conn_cfg conn; /* settings of each new connection */
};

/* Fills cfg with the defaults: nothing delayed (criteria 0), counts 1,
 * merge_max 64 KiB, out_warn 0, irq_response 0, irq_overflow 1, new
 * connections NOTIFY_NOW, priority 0, no wait, no history, FRAG_KEEP. */
void ofl_dt_config_default(struct ofl_dt_config *cfg);

/* Checks every range above: OFL_OK or OFL_E_ARG. out_slots is the output
 * table size the config is meant for (out_warn < out_slots). */
enum ofl_err ofl_dt_config_check(const struct ofl_dt_config *cfg,
                                 uint32_t out_slots);

/* ---- adapter side: state ------------------------------------------------- */

/* Connection states (table above). */
enum ofl_dt_conn_state {
    OFL_DT_CONN_FREE = 0,
    OFL_DT_CONN_CONNECTING = 1,
    OFL_DT_CONN_ESTABLISHED = 2,
    OFL_DT_CONN_LISTENING = 3,
    OFL_DT_CONN_CLOSING = 4,
    OFL_DT_CONN_FAILED = 5,
    OFL_DT_CONN_DRAINING = 6, /* closed; its responses are going out */
    OFL_DT_CONN_UNLISTEN = 7, /* a drained listener the firmware still
                                 listens for (OFL_DT_ACT_CLOSE) */
    OFL_DT_CONN_LISTEN_WAIT = 8 /* a listen the firmware has not yet
                                   answered (ofl_dt_listen_result) */
};

/* Work for the firmware (ofl_dt_next_action). */
enum ofl_dt_action {
    OFL_DT_ACT_CONNECT = 0x1, /* open the connection to its remote */
    OFL_DT_ACT_LISTEN = 0x2,  /* start listening on its local port */
    OFL_DT_ACT_CLOSE = 0x4,   /* close it, then call ofl_dt_conn_closed */
    OFL_DT_ACT_TX = 0x8       /* its transmit ring has data */
};

/* An open receive notification: a range placed but not yet reported. */
struct ofl_dt_note {
    uint64_t base;    /* the posted buffer */
    uint64_t shared;  /* listener id whose shared buffer it is, 0 = the
                         connection's own or a bulk buffer */
    uint64_t t_first; /* time of the first placement in the range */
    uint32_t buf_len; /* its length */
    uint32_t off;     /* offset of the range in the buffer */
    uint32_t len;     /* bytes in the range */
    uint32_t tag;     /* the buffer's request tag */
    uint8_t count;    /* placements combined */
    uint8_t final;    /* the range ends the buffer's use */
    uint8_t open;
    uint8_t rsv_;
};

/*
 * One connection (or listener) entry. Caller memory; the fields are public
 * for inspection, only the ofl_dt_ functions change them. Its id is
 * (gen << 32) | (index + 1).
 */
struct ofl_dt_conn {
    struct ofl_dt_conn_cfg cfg;
    struct ofl_dt_note note;
    uint64_t group;        /* listener id whose shared buffers it uses */
    uint64_t rx_total, tx_total;
    uint64_t t_state;      /* time of the last state change */
    uint64_t t_last_tx;    /* last transmit (starvation) */
    uint64_t t_rx_first;   /* arrival of the first byte staged since the
                              staging ring was last empty: "data waiting"
                              (starvation, wait_limit) counts from there,
                              a partial placement does not restart it */
    uint64_t t_last_post;  /* last buffer posted for it */
    uint64_t t_cn;         /* when its notice (cn_pending) became pending */
    uint32_t gen;
    uint32_t tag;          /* tag of the request that created it */
    uint32_t term_tag;     /* tag of its termination request */
    uint32_t target;       /* its REMOTE tuple's index in that request */
    uint32_t post_ewma;    /* mean buffer-posting interval (1/8 EWMA) */
    uint32_t hist;         /* placement history, bit 0 newest, 1 = own or
                              shared buffer found */
    uint32_t rx_head, rx_tail; /* staging ring counters */
    uint32_t tx_head, tx_tail; /* transmit ring counters */
    uint32_t buf_head, buf_tail; /* posted buffers (index + 1): own, or
                                    a listener's shared ones */
    uint32_t peek;         /* outstanding peek buffer (index + 1) */
    uint32_t xfer_n;       /* its requests in the bulk transfer list */
    uint32_t xfer_first;   /* arrival number of its oldest listed one */
    uint64_t origin;       /* listener it arrived on, 0 = none (its
                              backlog counts it until the entry is freed) */
    uint32_t backlog;      /* listener: most arrived connections open at
                              once, 0 = unlimited */
    uint32_t accepted;     /* listener: arrived connections still open */
    uint16_t lport, rport;
    uint8_t raddr[16];
    uint8_t state;         /* enum ofl_dt_conn_state */
    uint8_t actions;       /* enum ofl_dt_action bits not yet taken */
    uint8_t proto;
    uint8_t cn_pending;    /* completion (1) or arrival (2) not yet sent */
    uint8_t cn_status;     /* its enum ofl_dt_status */
    uint8_t pat_matched;   /* pattern bytes matched so far */
    uint8_t hist_n;        /* placements in hist */
    uint8_t fw_listen;     /* the firmware took its OFL_DT_ACT_LISTEN */
    uint8_t drain;         /* DRAINING: 1 termination (FLUSHED, then the
                              termination response), 2 listener of a
                              cancellation (CANCELLED), 3 connect of a
                              cancellation (its completion CANCELLED), 4
                              unanswered listen of a cancellation (its
                              listen response CANCELLED) */
};

/* A posted receive buffer. */
struct ofl_dt_rbuf {
    uint64_t base;
    uint32_t len, fill; /* fill: bytes placed so far */
    uint32_t tag;
    uint32_t skip;      /* stream bytes to discard before filling */
    uint32_t next;      /* next in its list (index + 1), 0 = end */
    uint32_t owner;     /* connection or listener index */
    uint8_t kind;       /* 0 free, 1 own, 2 shared, 3 bulk, 4 peek */
    uint8_t rsv_[7];
};

/* A buffer send request waiting in the bulk transfer list. */
struct ofl_dt_xfer {
    uint64_t base;
    uint64_t t_listed;
    uint32_t len, tag;
    uint32_t conn;  /* connection or listener index */
    uint32_t seq;   /* arrival number */
    uint8_t flags;  /* ASAP, MODIFY */
    uint8_t cancel; /* matched by the running cancellation: never sent */
    uint8_t rsv_[6];
};

/* A send cache slot: a copy of host range [base, base + len). */
struct ofl_dt_cache {
    uint64_t base;
    uint32_t len;   /* 0 = empty */
    uint32_t stamp; /* last use, for replacement */
};

/* The caller memory an adapter context runs on. */
struct ofl_dt_mem {
    uint64_t in_pa, out_pa;    /* host physical addresses of the tables,
                                  32-byte aligned */
    uint32_t in_slots, out_slots; /* powers of two, 2 .. OFL_DT_MAX_SLOTS */
    uint8_t *in_stage;         /* in_batch * 32 bytes */
    uint8_t *out_stage;        /* out_batch * 32 bytes; the part no
                                  staged response holds is also scratch
                                  (the output reclaim reads the table
                                  into it) */
    uint32_t in_batch, out_batch; /* descriptors per DMA, >= 1 */
    struct ofl_dt_conn *conn;  /* conn_cap entries, 1 .. 2^24 */
    uint32_t conn_cap;
    uint8_t *conn_data;        /* conn_cap * (rx_size + tx_size) bytes */
    uint32_t rx_size, tx_size; /* per connection, powers of two >= 16 */
    struct ofl_dt_rbuf *rbuf;  /* rbuf_cap entries */
    uint32_t rbuf_cap;
    struct ofl_dt_xfer *xfer;  /* xfer_cap entries, 1 .. 1024 */
    uint32_t xfer_cap;
    struct ofl_dt_cache *cache; /* cache_slots entries; may be 0 */
    uint8_t *cache_data;       /* cache_slots * cache_slot_size bytes */
    uint32_t cache_slots, cache_slot_size;
    uint8_t *ctrl;             /* control buffer scratch, ctrl_cap >= 64 */
    uint32_t ctrl_cap;
    uint64_t host_lo, host_hi; /* inclusive host physical range that
                                  described buffers must lie in; a buffer
                                  overlapping either table is refused too */
};

/* Counters (never reset by the core). */
struct ofl_dt_stats {
    uint64_t requests;      /* input descriptors consumed */
    uint64_t bad_requests;  /* of which refused */
    uint64_t responses;     /* output descriptors written */
    uint64_t batches_in, batches_out; /* DMAs of table runs */
    uint64_t merged;        /* requests folded into another's DMA */
    uint64_t dma_skipped;   /* sends served from the send cache */
    uint64_t combined;      /* placements folded into another's response */
    uint64_t bulk_placed;   /* placements into bulk buffers */
    uint64_t waited;        /* placements that waited for a buffer */
    uint64_t irq_overflow;  /* overflow interrupts raised */
    uint64_t lost;          /* responses lost to a failing port */
    uint64_t bulk_kept;     /* bulk buffers a FRAG_ALLOW connection kept
                               for its next placements */
};

/* The adapter context. */
struct ofl_dt {
    struct ofl_dt_mem mem;
    struct ofl_dt_config cfg;
    struct ofl_dt_stats stats;
    const struct ofl_port *port;
    uint64_t cn_t_first;    /* when the oldest pending notice became
                               pending (after a run cut short by a full
                               output table: the run's oldest, so the
                               notices left, which were due, stay due) */
    uint64_t t_report;      /* last periodic report */
    uint64_t bt_bytes_listed;
    uint32_t in_head;       /* next input slot to read */
    uint32_t in_unreturned; /* slots before in_head carried out but not
                               yet handed back (that DMA failed) */
    uint32_t out_tail;      /* output slots written */
    uint32_t out_head;      /* output slots the host is known to have freed */
    uint32_t out_staged;    /* descriptors in out_stage */
    uint32_t conn_live;     /* entries not FREE */
    uint32_t cn_pending;    /* notices waiting for the criteria */
    uint32_t connecting;    /* entries CONNECTING */
    uint32_t rbuf_free;     /* free list head (index + 1) */
    uint32_t bulk_head;     /* bulk buffers (index + 1) */
    uint32_t xfer_count;
    uint32_t xfer_seq;
    uint32_t cache_stamp;
    uint32_t report_next;   /* report cursor, 0 = no report running */
    uint32_t draining;      /* entries DRAINING */
    uint64_t cancel_conn;   /* the running cancellation: its conn, */
    uint32_t cancel_tag, cancel_aux; /* tag and aux (echoed), */
    uint32_t cancel_n;      /* what it matched, */
    uint32_t cancel_left;   /* and of those, what is not yet answered */
    uint8_t cn_trigger;     /* a DATA or PATTERN event is waiting */
    uint8_t bt_asap;        /* an ASAP request is listed */
    uint8_t warned;         /* overflow interrupt raised, not yet re-armed */
    uint8_t cancel_run;     /* a cancellation is running */
    uint8_t cn_t_stale;     /* the oldest notice went early: cn_t_first
                               is worked out again at the next run */
    uint8_t scan[8 * OFL_DT_DESC_SIZE]; /* output reclaim scratch */
};

/* A read-only view of a connection. */
struct ofl_dt_conn_info {
    uint64_t id;
    uint64_t group;
    uint64_t rx_total, tx_total;
    uint32_t rx_held;   /* staged, not yet placed */
    uint32_t tx_queued; /* in the transmit ring */
    uint32_t tag, target;
    uint16_t lport, rport;
    uint8_t raddr[16];
    uint8_t state, proto, priority, actions;
};

/* ---- adapter side: functions ---------------------------------------------- */

/*
 * Initialises dt over mem with cfg (ofl_dt_config_check) and port (DMA
 * required, ofl_port_check). Checks every size in mem (OFL_E_ARG) and
 * clears the caller arrays. Assumes both tables are empty (host side
 * initialised first). now starts the report period.
 */
enum ofl_err ofl_dt_init(struct ofl_dt *dt, const struct ofl_dt_mem *mem,
                         const struct ofl_dt_config *cfg,
                         const struct ofl_port *port, uint64_t now);

/* Replaces the adapter settings after ofl_dt_config_check. New
 * connections take cfg->conn; existing ones keep theirs. */
enum ofl_err ofl_dt_configure(struct ofl_dt *dt,
                              const struct ofl_dt_config *cfg);

/*
 * Resumes the closes in progress (DRAINING, above) as far as output room
 * allows, then reads the input table from dt->in_head in DMA batches and
 * handles up to max requests (seed FIG. 9-18), returning consumed slots to
 * the host by one DMA of the run with its owner bits cleared. When that
 * DMA fails the run stays carried out but not handed back
 * (dt->in_unreturned); every later call first hands it back again (reads
 * it, clears the owner bits, writes it) and reads nothing new until that
 * succeeds, so no request is ever carried out twice. Stops at the
 * first free slot, or before a request whose first response or list entry
 * finds no room, or a cancellation while one runs (it stays for a later
 * call). A termination or cancellation never waits for room for all its
 * responses: it is consumed and drains. A
 * malformed request is consumed: a known type is answered with a
 * BAD_DESC status, an unknown one only counted. *consumed (may be NULL)
 * gets the count. Returns OFL_OK or a port error.
 */
enum ofl_err ofl_dt_process(struct ofl_dt *dt, uint64_t now, uint32_t max,
                            uint32_t *consumed);

/*
 * Runs everything time or state decides: closes in progress (DRAINING),
 * connect timeouts, aggregated
 * completion notices, periodic reports, the bulk transfer list, receive
 * placement and notifications. Bounded by the table sizes. Returns OFL_OK
 * or a port error.
 */
enum ofl_err ofl_dt_service(struct ofl_dt *dt, uint64_t now);

/*
 * Writes the staged responses to the output table (one DMA per contiguous
 * run), raises irq_response if any were written and irq_overflow when the
 * free slots fall to cfg.out_warn.
 */
enum ofl_err ofl_dt_flush(struct ofl_dt *dt);

/* ofl_dt_process (everything waiting), ofl_dt_service, ofl_dt_flush. */
enum ofl_err ofl_dt_poll(struct ofl_dt *dt, uint64_t now);

/* Output slots the adapter could still fill (after reclaiming the ones the
 * host freed, which reads the table). */
uint32_t ofl_dt_out_room(struct ofl_dt *dt);

/*
 * Next entry at or after *cursor with firmware work; returns its id and
 * the action bits (which are cleared), advancing *cursor past it.
 * OFL_E_DT_EMPTY when none up to the end of the table (*cursor = 0).
 */
enum ofl_err ofl_dt_next_action(struct ofl_dt *dt, uint32_t *cursor,
                                uint64_t *id, uint8_t *actions);

/* The firmware opened connection id (CONNECTING -> ESTABLISHED; its
 * completion notice becomes pending). */
enum ofl_err ofl_dt_conn_established(struct ofl_dt *dt, uint64_t id,
                                     uint64_t now);

/* The connect of id failed (status OFL_DT_ST_FAILED or _TIMEOUT):
 * CONNECTING -> FAILED with its notice pending. */
enum ofl_err ofl_dt_conn_failed(struct ofl_dt *dt, uint64_t id,
                                uint8_t status, uint64_t now);

/*
 * The firmware's answer to the listen of id, after it took
 * OFL_DT_ACT_LISTEN: status OFL_DT_ST_OK (it listens: LISTEN_WAIT ->
 * LISTENING) or OFL_DT_ST_FAILED (it could not: the entry is freed). Writes
 * the listen response (the request's tag, conn = id). OFL_E_ARG for another
 * status, OFL_E_DT_CONN_UNKNOWN, OFL_E_DT_CONN_STATE unless LISTEN_WAIT with
 * its action taken, OFL_E_DT_FULL when the output table has no room (nothing
 * changed: answer again after the host reaps).
 */
enum ofl_err ofl_dt_listen_result(struct ofl_dt *dt, uint64_t id,
                                  uint8_t status, uint64_t now);

/*
 * A connection arrived on listener id (seed "connection arrival"): takes
 * a free entry in the listener's group, ESTABLISHED, arrival notice
 * pending; *new_id gets its id. OFL_E_DT_NO_CONN when the table or the
 * backlog is full (the listener's backlog arrivals are still open: not yet
 * freed after their close). raddr: 16 bytes.
 */
enum ofl_err ofl_dt_conn_arrive(struct ofl_dt *dt, uint64_t listener,
                                const uint8_t *raddr, uint16_t rport,
                                uint64_t now, uint64_t *new_id);

/*
 * The firmware finished closing id (after OFL_DT_ACT_CLOSE, or the peer
 * closed an ESTABLISHED one): drops staged and queued data and makes the
 * entry DRAINING, then writes as much as the output has room for of: its
 * pending notice, its open receive range (if that range ends a shared
 * buffer, the other connections' unreported ranges in it first, each
 * after its notice), every buffer and listed send of the connection
 * returned FLUSHED, and last the termination response
 * (tag of the termination request, 0 when the peer closed); the entry is
 * freed after that. The rest goes out in later ofl_dt_process and
 * ofl_dt_service calls. On an UNLISTEN listener (the firmware stopped
 * listening after OFL_DT_ACT_CLOSE) it frees the entry. OFL_E_DT_CONN_UNKNOWN,
 * or OFL_E_DT_CONN_STATE unless ESTABLISHED, CLOSING or UNLISTEN (a
 * DRAINING id included).
 */
enum ofl_err ofl_dt_conn_closed(struct ofl_dt *dt, uint64_t id, uint64_t now);

/*
 * Received bytes for connection id (ESTABLISHED or CLOSING): appended to
 * its staging ring whole or not at all (OFL_E_DT_RX_FULL). Feeds the
 * completion criteria DATA and PATTERN. Cost: O(len) (the copy, and the
 * pattern match: a constant number of compares per byte).
 */
enum ofl_err ofl_dt_rx(struct ofl_dt *dt, uint64_t id, const uint8_t *data,
                       uint32_t len, uint64_t now);

/* The contiguous readable part of id's transmit ring: *p, *n (0 if empty). */
enum ofl_err ofl_dt_tx_peek(struct ofl_dt *dt, uint64_t id, const uint8_t **p,
                            uint32_t *n);

/* n bytes of id's transmit ring were sent (OFL_E_DT_TX_RANGE if more than
 * queued); updates the starvation clock. */
enum ofl_err ofl_dt_tx_consume(struct ofl_dt *dt, uint64_t id, uint32_t n,
                               uint64_t now);

/* Fills *info for id. */
enum ofl_err ofl_dt_conn_query(const struct ofl_dt *dt, uint64_t id,
                               struct ofl_dt_conn_info *info);
#endif /* OFL_ENABLE_DT */

/* ======================================================================== */
/* pp: push-push messaging layer                                            */
/* ======================================================================== */
#if OFL_ENABLE_PP
/*
 * The push-push messaging layer of a split-model driver (seed 002, "A
 * Split Model Driver Using A Push-Push Messaging Protocol", FIG. 5-8 and
 * "B. Example Messages"). A host module and an I/O-unit module talk over
 * one connection made of two channels (seed 002 FIG. 6-7):
 *
 *   control channel  (channel 0) a QP carrying messages as Sends: buffer
 *                    management, SendData, CfgUtil
 *   data channel     (channel 1) a QP carrying RDMA Writes into the
 *                    peer's advertised pools, each followed by its
 *                    transfer indication (immediate data or a
 *                    BufferRDMAIndicate message), and the flush messages
 *                    (BufferPoolFlushRequest and Reply)
 *
 * Each end pushes: nobody asks for data. The end that owns a pool is its
 * target; the end that RDMA-writes into it is its initiator (seed 002 "the
 * term initiator is used to identify the node actually performing the RDMA
 * write"). Both ends are usually both: a connection holds an rx pool table
 * (pools this end owns, the peer writes into) and a tx pool table (the
 * peer's pools, this end writes into).
 *
 * Connection states (struct ofl_pp_conn; ofl_pp_conn_next implements the
 * table, "-" is refused with OFL_E_PP_CONN_STATE and changes nothing):
 *
 *   state \ event  START     CLOSE      ALL_EMPTY  FAIL
 *   DOWN           READY'    CLOSED     -          ERROR
 *   READY          -         FLUSHING'' -          ERROR
 *   FLUSHING       -         FLUSHING   CLOSED     ERROR
 *   CLOSED         -         CLOSED     -          ERROR
 *   ERROR          -         -          -          ERROR
 *
 *   '  only when both channels' QPs are in RTS (or the connection is
 *      detached: both QPs NULL, the caller carries the bytes itself).
 *   '' and at once CLOSED when every pool of both tables is EMPTY.
 *
 * START ofl_pp_conn_start; CLOSE ofl_pp_conn_close (no new pools, no new
 * writes; flushes still run); ALL_EMPTY the last pool of both tables became
 * EMPTY while FLUSHING (checked by every call that empties a pool); FAIL
 * ofl_pp_conn_fail (a channel's QP left RTS: the caller saw its event).
 * READY allows everything. FLUSHING refuses new pools (ofl_pp_advertise,
 * an inbound BufferRecvPool) and new writes (ofl_pp_write, _prepare) but
 * takes every other message, indications, replenishing and flushes. CLOSED
 * and ERROR take nothing (CLOSED still posts the FlushReply that emptied
 * its last pool, and answers a BufferPoolFlushRequest with its Reply: its
 * pools are all EMPTY, and a peer flushing a pool this end refused or
 * forgot would otherwise stay FLUSHING for ever).
 *
 * Pool states, per pool slot of a table (struct ofl_pp_pool.state):
 *
 *   state \ event  ADVERTISE  FLUSH_LOCAL  FLUSH_PEER  FLUSH_REPLY(ctx)
 *   EMPTY          ACTIVE     -            -           -
 *   ACTIVE         -          FLUSHING     EMPTY       -
 *   FLUSHING       -          -            EMPTY       EMPTY (ctx equal)
 *
 * ADVERTISE: target: ofl_pp_advertise (it sends BufferRecvPool);
 * initiator: a BufferRecvPool arrived. FLUSH_LOCAL: this end sent a
 * BufferPoolFlushRequest for the pool (ofl_pp_flush). FLUSH_PEER: the
 * peer's FlushRequest named it; ofl_pp_conn_recv empties the pool and
 * hands back the BufferPoolFlushReply to send (seed 002 "BufferPoolFlush
 * Messages": the initiator stops using the pool at once; the target frees
 * the memory after replying). FLUSH_REPLY: the reply with the request's
 * transaction context arrived; a target frees (deregisters) the memory
 * only now, never before. A pool left EMPTY may be advertised again.
 *
 * Elements. A pool is an array of count elements of size bytes at
 * registered address va with memory handle (STag) handle. Each table keeps
 * one bit per element in caller memory: 1 = consumed, 0 = free, and a
 * count of consumed elements that always equals the number of set bits.
 *
 *   element \ event  WRITE / INDICATION   REPLENISH (BufferRecvPoolUpdate)
 *   free             consumed             - (OFL_E_PP_NOT_CONSUMED)
 *   consumed         - (OFL_E_PP_CONSUMED) free
 *
 * Initiator: ofl_pp_write refuses an element that is consumed
 * (OFL_E_PP_CONSUMED), beyond the pool (OFL_E_PP_ELEMENT), in a pool not
 * advertised (OFL_E_PP_POOL_UNKNOWN) or FLUSHING (OFL_E_PP_FLUSHING), or
 * shorter than the transfer (OFL_E_PP_TOO_LONG). Target: an indication
 * (ofl_pp_conn_recv_imm, or a BufferRDMAIndicate) naming such an element is
 * detected with the same errors; indications into a FLUSHING pool are
 * accepted (writes in flight before the peer saw the request). Replenish:
 * ofl_pp_replenish (target) frees elements and builds the
 * BufferRecvPoolUpdate; its arrival frees them at the initiator. When
 * every element is consumed the initiator gets OFL_E_PP_EXHAUSTED from
 * ofl_pp_pick and may send BufferRecvPoolGet (seed 002 "BufferRecvPoolGet").
 *
 * Transfer indication (seed 002 "Data Transfer through RDMA Transfer",
 * FIG. 7 idata (7, 5, 256)). ofl_pp_indication chooses:
 *
 *   immediate data  pool <= 255 and element <= 255 and 1 <= len <= 65536:
 *                   32 bits, big-endian bit order:
 *                     bits 31..24  pool index
 *                     bits 23..16  element index
 *                     bits 15..0   bytes written into the element; 0 means
 *                                  65536
 *                   carried in the low 32 bits of the RFC 7306 Immediate
 *                   Data of an RDMA Write with Immediate (OFL_QP_OP_WRITE_
 *                   IMM); the upper 32 bits MUST be 0
 *   message         anything else (pool >= 256, element >= 256, len >
 *                   65536): a BufferRDMAIndicate with 32-bit fields
 *
 * The seed gives the widths (8, 8, 16) and "limited to 256 ... and 64k
 * (2**16)"; offload fixes the bit positions in the order of FIG. 7's
 * example, and reads the 16-bit "element size" as the bytes written (in
 * FIG. 7 the element is written whole, so both are 256). So 65536 fits
 * (encoded 0) and 65537 takes the message; pool or element 256 takes the
 * message. Deviation from the seed: a BufferRDMAIndicate travels on the
 * data channel as a Send right behind its RDMA Write (RFC 5040 orders a
 * Send after the Writes before it on one stream), not on the control
 * channel, where it could overtake the data. For the same reason the flush
 * messages travel on the data channel, both ways: a FlushReply (or an
 * initiator's FlushRequest) on the control channel could reach the target
 * before the initiator's last Writes, the target would empty the pool and
 * advertise it again, and a late indication would consume an element of
 * the pool's next life. ofl_pp_msg_channel says which channel a message
 * takes; ofl_pp_post_msg refuses those three on the control channel
 * (OFL_E_PP_CHANNEL). So both ends post receives on both channels.
 *
 * Messages (seed 002 "B. Example Messages"). Every message starts with the
 * word the seed draws for BufferPoolFlushRequest/Reply: function name (16
 * bits) then Version No (16 bits), big-endian; then the body below (byte
 * offsets; all fields big-endian). The seed draws only the flush messages;
 * the other bodies are offload's, built from the fields the seed's text
 * names. A message is exactly as long as its counts say (OFL_E_PP_LENGTH
 * otherwise); lists hold 1 .. OFL_PP_MSG_ITEMS entries.
 *
 *   0x0001 BufferRecvPool (target -> initiator; defined here)
 *          4 count(16)  6 reserved(16) = 0
 *          8 + 32 i: pool index(32, bit 31 = 0)  element count(32)
 *                    element size(32)  memory handle(32)
 *                    registered address(64)  pool context(64)
 *          count, size >= 1; address + count * size <= 2^64; indices
 *          distinct
 *   0x0002 BufferRecvPoolGet (initiator -> target; defined here)
 *          4 element count(32) >= 1   8 element size(32) >= 1
 *   0x0003 BufferRecvPoolUpdate (target -> initiator; defined here; the
 *          seed's paragraph says "the initiator uses" it but also that the
 *          target replenishes: the owner sends it)
 *          4 count(16)  6 reserved(16) = 0
 *          8 + 12 i: pool index(32, bit 31 = 0)  first element(32)
 *                    elements(32) >= 1
 *          runs of one pool do not overlap; first + elements <= 2^32
 *   0x0004 BufferPoolFlushRequest (either way; seed layout)
 *          4 transaction context(64)
 *          12 + 4 i: pool reference(32), to the end of the message
 *          offload uses bit 31 of the pool reference: 1 = a pool of the
 *          sender (the target asks), 0 = a pool of the receiver (the
 *          initiator asks); bits 30..0 are the pool index. Length is
 *          12 + 4 n, n >= 1
 *   0x0005 BufferPoolFlushReply (either way; seed layout)
 *          4 transaction context(64), the request's; length 12
 *   0x0006 SendData (either way; defined here)
 *          4 data size(32) >= 1   8 data
 *   0x0007 BufferRDMAIndicate (initiator -> target; defined here)
 *          4 count(16)  6 reserved(16) = 0
 *          8 + 12 i: pool index(32, bit 31 = 0)  element index(32)
 *                    bytes written(32) >= 1; (pool, element) distinct
 *   0x0008 CfgUtilRequest (either way; defined here)
 *          4 transaction context(64)  12 request code(16)
 *          14 reserved(16) = 0   16 data size(32)   20 data
 *   0x0009 CfgUtilReply (either way; defined here)
 *          4 transaction context(64)  12 request code(16)  14 status(16)
 *          16 data size(32)   20 data
 *
 * Cells (seed 002 FIG. 8, and "If the data is larger than a predetermined
 * size (e.g., 256 bytes) ... segment"). A packet on a cell channel is cut
 * into cells of cell_size data bytes (a power of two, 16 .. 4096; 256 in
 * the seed); only the last cell is shorter. Cell layout (offload's; the
 * seed names the parts, not their bits), big-endian:
 *
 *   0    version(8) = OFL_PP_CELL_VERSION
 *   1    flags(8): 0x01 FIRST, 0x02 LAST, 0x04 IMM (only with FIRST); the
 *        rest reserved = 0
 *   2    payload length(16): data bytes in this cell, 1 .. cell_size;
 *        exactly cell_size unless LAST
 *   4    packet sequence number(32) (seed: "packet sequence number")
 *   8    cell number(16), 0 for the first cell (seed: "cell sequence
 *        number")
 *   10   reserved(16) = 0
 *   FIRST only (seed: VA/MH 812, "Middle cells do not include a VA/MH"):
 *   12   virtual address(64)  20 memory handle(32)  24 packet length(32)
 *   IMM only:  28 immediate data(32) (seed: immediate data 830)
 *   then the payload
 *   LAST only: packet CRC(32): CRC32c of the packet's data bytes (seed:
 *        packet CRC 820)
 *   cell CRC(32): CRC32c of every byte of the cell before it (seed: CRC
 *        816)
 *
 * Reassembly (struct ofl_pp_reasm) takes cells in order: packet sequence
 * numbers consecutive (RFC 1982 arithmetic), cell numbers consecutive from
 * 0. A cell of a packet or cell not yet due is OFL_E_PP_CELL_MISSING; of
 * one already taken, OFL_E_PP_CELL_DUP (ignored: the open packet stays);
 * every other refusal (CRC, header, missing) abandons the open packet, and
 * the sender must send it again from its first cell. Under
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION the two CRCs are computed but
 * not compared.
 *
 * Context: a struct ofl_pp_conn (and its tables) is touched by one thread
 * at a time; the QPs it names follow their own rules.
 */

#define OFL_PP_VERSION 1        /* protocol version of every message */
#define OFL_PP_MSG_HDR 4        /* function name(16), Version No(16) */
#define OFL_PP_MSG_ITEMS 16     /* entries per list in one message */
#define OFL_PP_POOL_DESC_LEN 32 /* one pool in BufferRecvPool */
#define OFL_PP_REF_LEN 12       /* one Update run or Indicate entry */
/* Longest message without data (BufferRecvPool with OFL_PP_MSG_ITEMS). */
#define OFL_PP_MSG_MAX (8 + OFL_PP_MSG_ITEMS * OFL_PP_POOL_DESC_LEN)
#define OFL_PP_POOL_OWNER 0x80000000u /* flush pool reference: sender's */
#define OFL_PP_IMM_LEN_MAX 65536u     /* longest transfer immediate data
                                         describes */

/* Function names (message types). */
enum ofl_pp_type {
    OFL_PP_BUFFER_RECV_POOL = 0x0001,
    OFL_PP_BUFFER_RECV_POOL_GET = 0x0002,
    OFL_PP_BUFFER_RECV_POOL_UPDATE = 0x0003,
    OFL_PP_BUFFER_POOL_FLUSH_REQUEST = 0x0004,
    OFL_PP_BUFFER_POOL_FLUSH_REPLY = 0x0005,
    OFL_PP_SEND_DATA = 0x0006,
    OFL_PP_BUFFER_RDMA_INDICATE = 0x0007,
    OFL_PP_CFG_UTIL_REQUEST = 0x0008,
    OFL_PP_CFG_UTIL_REPLY = 0x0009
};

/* One advertised pool (BufferRecvPool entry; seed 002 "BufferRecvPool
 * Message": pool index, number of elements, element size, pool context,
 * registered memory address; the handle from "RDMA Write"). */
struct ofl_pp_pool_desc {
    uint32_t index;
    uint32_t count;    /* elements */
    uint32_t size;     /* bytes per element */
    uint32_t handle;   /* memory handle (STag) of the registration */
    uint64_t va;       /* registered address of element 0 */
    uint64_t ctx;      /* pool context (implementation-specific) */
};

/* An element reference: an Indicate entry (pool, elem, len = bytes
 * written) or an Update run (pool, elem = first, len = elements). */
struct ofl_pp_ref {
    uint32_t pool;
    uint32_t elem;
    uint32_t len;
};

/*
 * A message, decoded or to encode. Fields a type does not use are
 * ignored by the encoder and zero after decoding.
 *   BUFFER_RECV_POOL        count, pool[]
 *   BUFFER_RECV_POOL_GET    elem_count, elem_size
 *   BUFFER_RECV_POOL_UPDATE count, ref[] (runs)
 *   FLUSH_REQUEST           ctx, count, pool_ref[] (bit 31: owner)
 *   FLUSH_REPLY             ctx
 *   SEND_DATA               data, data_len
 *   BUFFER_RDMA_INDICATE    count, ref[]
 *   CFG_UTIL_REQUEST        ctx, code, data, data_len
 *   CFG_UTIL_REPLY          ctx, code, status, data, data_len
 * A decoded message's data points into the bytes decoded.
 */
struct ofl_pp_msg {
    uint16_t type;       /* enum ofl_pp_type */
    uint16_t count;      /* entries in the list */
    uint16_t code;       /* CfgUtil request code */
    uint16_t status;     /* CfgUtil reply status */
    uint32_t elem_count; /* BufferRecvPoolGet */
    uint32_t elem_size;
    uint64_t ctx;        /* transaction context */
    const uint8_t *data;
    uint32_t data_len;
    union {
        struct ofl_pp_pool_desc pool[OFL_PP_MSG_ITEMS];
        struct ofl_pp_ref ref[OFL_PP_MSG_ITEMS];
        uint32_t pool_ref[OFL_PP_MSG_ITEMS];
    } u;
};

/* Bytes m encodes to (0 when m's type is unknown, a count is out of
 * range, or the size does not fit in size_t). Pure. */
size_t ofl_pp_msg_size(const struct ofl_pp_msg *m);

/*
 * Encodes m into out[0 .. cap): checks m with the rules the decoder
 * applies (so every encoded message decodes to m) -> the same named
 * errors, OFL_E_ARG for data NULL with data_len > 0, OFL_E_SIZE when cap
 * is short. *len receives the length. Nothing is written on error.
 */
enum ofl_err ofl_pp_msg_encode(const struct ofl_pp_msg *m, uint8_t *out,
                               size_t cap, size_t *len);

/*
 * Decodes len hostile bytes into *m: OFL_E_PP_TRUNCATED, _VERSION, _TYPE,
 * _LENGTH, _COUNT, _RESERVED, _FIELD, _DUPLICATE, checked in that order of
 * discovery. *m is written only on success; m->data points into p.
 * Cost: O(len) + O(count^2) duplicate checks (count <= OFL_PP_MSG_ITEMS).
 */
enum ofl_err ofl_pp_msg_decode(const uint8_t *p, size_t len,
                               struct ofl_pp_msg *m);

/* "BufferRecvPool", ...; "?" for an unknown type. */
const char *ofl_pp_type_name(uint16_t type);

/* ---- transfer indication ---------------------------------------------- */

enum ofl_pp_ind {
    OFL_PP_IND_IMM = 1, /* 32-bit immediate data */
    OFL_PP_IND_MSG = 2  /* a BufferRDMAIndicate message */
};

/* Chooses the indication for len bytes written into element elem of pool
 * (table above); for OFL_PP_IND_IMM *imm receives the 32 bits. Pure. */
enum ofl_pp_ind ofl_pp_indication(uint32_t pool, uint32_t elem, uint32_t len,
                                  uint32_t *imm);

/* Decodes received Immediate Data into *ref (len 0 read as 65536):
 * OFL_E_PP_RESERVED when the upper 32 bits are not zero. */
enum ofl_err ofl_pp_imm_decode(uint64_t imm, struct ofl_pp_ref *ref);

/* ---- pool tables -------------------------------------------------------- */

enum ofl_pp_pool_state {
    OFL_PP_POOL_EMPTY = 0,
    OFL_PP_POOL_ACTIVE = 1,
    OFL_PP_POOL_FLUSHING = 2
};

enum ofl_pp_role {
    OFL_PP_TARGET = 1,    /* the table of pools this end owns (rx) */
    OFL_PP_INITIATOR = 2  /* the table of the peer's pools (tx) */
};

/* One pool slot; the slot number is the pool index. */
struct ofl_pp_pool {
    struct ofl_pp_pool_desc d;
    uint64_t flush_ctx;   /* FLUSHING by this end: the request's context */
    uint32_t consumed;    /* set bits of the pool's bitmap */
    uint8_t state;        /* enum ofl_pp_pool_state */
    uint8_t flush_local;  /* FLUSHING because this end asked */
    uint8_t reserved[2];
};

/*
 * A pool table: cap slots (indices 0 .. cap - 1) and one bitmap of
 * max_elems bits per slot in caller memory (ofl_pp_bitmap_words words).
 * Sizes are fixed at init.
 */
struct ofl_pp_pools {
    struct ofl_pp_pool *slot;
    uint32_t *bits;
    uint32_t cap;
    uint32_t max_elems;
    uint32_t words;       /* bitmap words per slot */
    uint32_t active;      /* slots not EMPTY */
    uint32_t flushing;    /* slots FLUSHING */
    uint8_t role;         /* enum ofl_pp_role */
    uint8_t reserved[3];
};

/* 32-bit words of bitmap a table of cap slots of max_elems needs; 0 when
 * out of range (cap or max_elems 0 or above 2^24) or when the bitmap would
 * pass 2^32 - 1 words (16 GiB: cap x max_elems above about 2^37). Pure. */
uint32_t ofl_pp_bitmap_words(uint32_t cap, uint32_t max_elems);

/* Caller memory of a pool table. */
struct ofl_pp_pools_mem {
    struct ofl_pp_pool *slot; /* cap slots */
    uint32_t cap;             /* 1 .. 2^24 */
    uint32_t max_elems;       /* elements per pool, 1 .. 2^24 */
    uint32_t *bits;           /* nwords words */
    uint32_t nwords;          /* >= ofl_pp_bitmap_words(cap, max_elems) */
};

/* Initialises t (every slot EMPTY, every bit clear) over mem; OFL_E_ARG
 * for a bad role, a NULL array or a size out of range, OFL_E_SIZE when
 * nwords is short. */
enum ofl_err ofl_pp_pools_init(struct ofl_pp_pools *t, enum ofl_pp_role role,
                               const struct ofl_pp_pools_mem *mem);

/*
 * Checks n descriptors (fields as the decoder, index < cap ->
 * OFL_E_PP_POOL_INDEX, slot EMPTY -> _POOL_BUSY, count <= max_elems ->
 * _POOL_TOO_BIG, distinct) and then makes them ACTIVE with every element
 * free. All or nothing. Cost: O(n^2) (an EMPTY slot's bitmap is already
 * clear: none is walked).
 */
enum ofl_err ofl_pp_pools_add(struct ofl_pp_pools *t,
                              const struct ofl_pp_pool_desc *d, uint32_t n);

/*
 * Consumes n elements (ref: pool, elem, len = bytes written). Checks each
 * (pool known -> _POOL_INDEX / _POOL_UNKNOWN; an initiator table refuses a
 * FLUSHING pool -> _FLUSHING; elem < count -> _ELEMENT; len 1 .. size ->
 * _FIELD / _TOO_LONG; free -> _CONSUMED; distinct -> _DUPLICATE), then
 * marks all consumed. All or nothing. Cost: O(n^2), one bit per element.
 */
enum ofl_err ofl_pp_pools_consume(struct ofl_pp_pools *t,
                                  const struct ofl_pp_ref *ref, uint32_t n);

/*
 * Frees n runs (pool, first element, elements): every element named must
 * be consumed (_NOT_CONSUMED), runs inside the pool (_ELEMENT), not
 * overlapping (_DUPLICATE). All or nothing. Cost: O(n^2) checks of the
 * runs against their slots first (known, inside, disjoint, and no pool
 * giving back more elements than its consumed count); only a message that
 * passes them all reaches the bitmaps, a word at a time: O(n + elements
 * released / 32) words, the elements being ones this end consumed.
 */
enum ofl_err ofl_pp_pools_release(struct ofl_pp_pools *t,
                                  const struct ofl_pp_ref *run, uint32_t n);

/* Finds a free element of an ACTIVE pool with size >= len (lowest pool,
 * then lowest element) into *ref without consuming it;
 * OFL_E_PP_EXHAUSTED when there is none. */
enum ofl_err ofl_pp_pools_pick(const struct ofl_pp_pools *t, uint32_t len,
                               struct ofl_pp_ref *ref);

/* Whether element elem of pool is consumed (false when out of range). */
bool ofl_pp_pools_consumed(const struct ofl_pp_pools *t, uint32_t pool,
                           uint32_t elem);

/* ---- the connection ------------------------------------------------------ */

enum ofl_pp_conn_state {
    OFL_PP_DOWN = 0,
    OFL_PP_READY,
    OFL_PP_FLUSHING,
    OFL_PP_CLOSED,
    OFL_PP_ERROR,
    OFL_PP_STATES
};

enum ofl_pp_conn_event {
    OFL_PP_EV_START = 0,
    OFL_PP_EV_CLOSE,
    OFL_PP_EV_ALL_EMPTY,
    OFL_PP_EV_FAIL,
    OFL_PP_EVENTS
};

/* Which channel a message goes on. */
enum ofl_pp_channel {
    OFL_PP_CTRL = 0, /* channel 0: control */
    OFL_PP_DATA = 1  /* channel 1: RDMA Write data */
};

/* A registered buffer for a message: p[0 .. cap) at va under stag. */
struct ofl_pp_buf {
    uint8_t *p;
    uint64_t va;
    uint32_t cap;
    uint32_t stag;
};

/* Caller memory of a connection: the two tables' slots and bitmaps. */
struct ofl_pp_cells;

struct ofl_pp_conn_cfg {
    struct ofl_qp *ctrl;          /* channel 0 QP, or NULL (detached) */
    struct ofl_qp *data;          /* channel 1 QP, or NULL (detached) */
    struct ofl_pp_pools_mem rx;   /* pools this end owns (target) */
    struct ofl_pp_pools_mem tx;   /* the peer's pools (initiator) */
    /* Per channel (OFL_PP_CTRL, OFL_PP_DATA): NULL, or the channel is a
     * cell channel and this its state, set up by ofl_pp_cells_init (see
     * "Cell channels" below). Both may name cells, never the same. */
    struct ofl_pp_cells *cells[2];
};

/* Counters (informational). */
struct ofl_pp_stats {
    uint64_t msgs_rx, msgs_refused;
    uint64_t writes_imm, writes_msg;
    uint64_t indications_rx;
};

/* One connection: caller memory, changed only by ofl_pp_ functions. */
struct ofl_pp_conn {
    struct ofl_qp *ctrl, *data;
    struct ofl_pp_pools rx, tx;
    uint8_t state;        /* enum ofl_pp_conn_state */
    uint8_t reserved[7];
    struct ofl_pp_stats stats;
    struct ofl_qp_wr wr;  /* scratch: the work request being posted */
    struct ofl_qp_sge sge; /* scratch: its data segment */
    struct ofl_pp_cells *cells[2]; /* cell channels (cfg.cells) */
};

/* The connection table above: the next state, or OFL_PP_STATES when
 * refused. Pure. */
enum ofl_pp_conn_state ofl_pp_conn_next(enum ofl_pp_conn_state from,
                                        enum ofl_pp_conn_event ev);

/* "DOWN", "READY", ...; "?" outside the enum. */
const char *ofl_pp_conn_state_name(enum ofl_pp_conn_state s);

/* Initialises conn in DOWN with both tables: OFL_E_ARG when one QP is NULL
 * and the other not, or both are the same QP, or a table is missing, or a
 * cells entry is not initialised (ofl_pp_cells_init) or both name one;
 * OFL_E_SIZE (ofl_pp_pools_init) when a table is too small. */
enum ofl_err ofl_pp_conn_init(struct ofl_pp_conn *conn,
                              const struct ofl_pp_conn_cfg *cfg);

/* START: DOWN -> READY; OFL_E_PP_CONN_STATE unless both QPs are in RTS
 * (or detached). */
enum ofl_err ofl_pp_conn_start(struct ofl_pp_conn *conn);

/* CLOSE: READY -> FLUSHING (CLOSED at once when every pool is EMPTY). The
 * caller then flushes the pools left (ofl_pp_flush). */
enum ofl_err ofl_pp_conn_close(struct ofl_pp_conn *conn);

/* FAIL: any state -> ERROR (a channel's QP failed). */
void ofl_pp_conn_fail(struct ofl_pp_conn *conn);

/*
 * Target: advertises n pools of the rx table (ofl_pp_pools_add) and
 * builds the BufferRecvPool for them into *out. READY only. All or
 * nothing.
 */
enum ofl_err ofl_pp_advertise(struct ofl_pp_conn *conn,
                              const struct ofl_pp_pool_desc *d, uint32_t n,
                              struct ofl_pp_msg *out);

/* Target: frees n runs of the rx table (ofl_pp_pools_release) and builds
 * the BufferRecvPoolUpdate. READY or FLUSHING. */
enum ofl_err ofl_pp_replenish(struct ofl_pp_conn *conn,
                              const struct ofl_pp_ref *run, uint32_t n,
                              struct ofl_pp_msg *out);

/*
 * Starts a flush of n pools (pool indices, bit 31 clear): of the rx table
 * when own (this end is their target), else of the tx table (this end is
 * their initiator, and stops writing into them at once). Each pool must be
 * ACTIVE (_POOL_INDEX, _POOL_UNKNOWN, _FLUSHING), listed once, and ctx
 * used by no flush still pending at this end (_DUPLICATE: one reply ends
 * every pool flushing under its ctx; a counter makes good contexts); all
 * become FLUSHING with ctx and *out is the BufferPoolFlushRequest, to post
 * on the data channel. READY or FLUSHING.
 */
enum ofl_err ofl_pp_flush(struct ofl_pp_conn *conn, bool own,
                          const uint32_t *pool, uint32_t n, uint64_t ctx,
                          struct ofl_pp_msg *out);

/*
 * Takes one received message (hostile bytes) that arrived whole on channel
 * ch (OFL_E_ARG when ch is neither channel). A cell channel (cfg.cells[ch]
 * set) carries only cells (ofl_pp_conn_recv_cell): a plain message on one
 * is OFL_E_PP_CELL_CHANNEL, checked before anything else, and changes
 * nothing (no pool, no state, no packet sequence number, no counter, not
 * *m; reply->type is 0). Otherwise it decodes the message into *m, checks
 * it against the tables and the state, and applies it, all or nothing (a
 * refused message changes nothing but stats.msgs_refused):
 *   BufferRecvPool       tx table: pools ACTIVE (READY only)
 *   BufferRecvPoolUpdate tx table: elements free
 *   BufferRDMAIndicate   rx table: elements consumed
 *   FlushRequest         pools of the sender (bit 31) in the tx table,
 *                        of this end in the rx table, become EMPTY (one
 *                        this end does not know counts as flushed); *reply
 *                        is the FlushReply to send, on the data channel
 *   FlushReply           every FLUSHING pool of either table this end
 *                        asked with ctx becomes EMPTY (_FLUSH_UNKNOWN
 *                        when none; a reply to crossed requests may be
 *                        stale and is safe to ignore)
 *   others               no state; handed to the caller in *m
 * reply->type is 0 when nothing is to be sent. READY or FLUSHING.
 * Cost: the decode's, then the table call's (ofl_pp_pools_add, _release,
 * _consume: bounded by the message); a FlushRequest O(count) plus
 * O(count / 32) bitmap words for each pool it empties that had elements
 * consumed; a FlushReply O(1) while this end has no flush pending, else
 * at most the two tables' cap slots (caller-bounded).
 */
enum ofl_err ofl_pp_conn_recv(struct ofl_pp_conn *conn,
                              enum ofl_pp_channel ch, const uint8_t *p,
                              size_t len, struct ofl_pp_msg *m,
                              struct ofl_pp_msg *reply);

/* Target: received RFC 7306 Immediate Data (the CQE's imm) is a transfer
 * indication: decoded (ofl_pp_imm_decode) and consumed in the rx table
 * (ofl_pp_pools_consume); *ref says which element holds the data. Cost:
 * O(1). */
enum ofl_err ofl_pp_conn_recv_imm(struct ofl_pp_conn *conn, uint64_t imm,
                                  struct ofl_pp_ref *ref);

/* Initiator: a free element of an ACTIVE tx pool for len bytes
 * (ofl_pp_pools_pick). */
enum ofl_err ofl_pp_pick(const struct ofl_pp_conn *conn, uint32_t len,
                         struct ofl_pp_ref *ref);

/* An RDMA Write to post (ofl_pp_write). */
struct ofl_pp_write_req {
    uint32_t pool, elem;     /* the peer's element */
    struct ofl_qp_sge src;   /* local data: len bytes */
    struct ofl_pp_buf ind;   /* registered room for a BufferRDMAIndicate
                                (used only when the message path is
                                taken: 8 + OFL_PP_REF_LEN bytes, and its
                                cell on a cell data channel) */
    uint64_t wr_id;          /* of the Write (the indicate Send: wr_id + 1) */
};

/* What ofl_pp_write (or ofl_pp_write_prepare) did. */
struct ofl_pp_write {
    uint64_t remote_va;      /* element address at the peer */
    uint32_t remote_stag;    /* the pool's memory handle */
    uint32_t imm;            /* OFL_PP_IND_IMM: the indication */
    uint8_t kind;            /* enum ofl_pp_ind */
    uint8_t reserved[7];
};

/*
 * Initiator, detached or not: checks a write of len bytes into the tx
 * element (READY; ofl_pp_pools_consume rules), consumes it and fills *w
 * (address, handle, the indication ofl_pp_indication chose). The caller
 * moves the bytes and the indication itself.
 */
enum ofl_err ofl_pp_write_prepare(struct ofl_pp_conn *conn, uint32_t pool,
                                  uint32_t elem, uint32_t len,
                                  struct ofl_pp_write *w);

/*
 * Initiator with QPs: as ofl_pp_write_prepare, then posts on the data
 * channel an RDMA Write with Immediate (OFL_PP_IND_IMM) or an RDMA Write
 * followed by a Send of the BufferRDMAIndicate encoded into req->ind
 * (OFL_PP_IND_MSG). Checks SQ room for both first (OFL_E_QP_SQ_FULL) and
 * the room in req->ind (OFL_E_SIZE); on any error before the Write is
 * posted nothing is posted or consumed. Should the QP refuse the Send after
 * taking the Write (it cannot for lack of room), the element stays
 * consumed and the QP's error is returned: the caller sends the
 * BufferRDMAIndicate itself. When the data channel is a cell channel the
 * BufferRDMAIndicate goes as one cell built behind it in req->ind (cap >=
 * 20 + ofl_pp_cell_bytes(cell_size, 20)).
 */
enum ofl_err ofl_pp_write(struct ofl_pp_conn *conn,
                          const struct ofl_pp_write_req *req,
                          struct ofl_pp_write *w);

/* The channel m must take: OFL_PP_DATA for a BufferRDMAIndicate and the
 * flush messages (ordered behind the Writes posted before them), else
 * OFL_PP_CTRL (where the others belong; the data channel carries them as
 * well). Pure. */
enum ofl_pp_channel ofl_pp_msg_channel(const struct ofl_pp_msg *m);

/* Encodes m into buf and posts it as a signalled Send on channel ch
 * (OFL_E_ARG when detached; OFL_E_PP_CHANNEL when m must take the data
 * channel and ch is the control one). READY or FLUSHING; in CLOSED only a
 * FlushReply (the request that emptied the last pool is still answered).
 * Errors of ofl_pp_msg_encode and ofl_qp_post_send. On a cell channel
 * (seed 002 cells) buf holds the message and then its cells (cap >= size
 * + ofl_pp_cell_bytes(cell_size, size), else OFL_E_SIZE), each cell is
 * one signalled Send with wr_id, and the SQ must take them all
 * (OFL_E_QP_SQ_FULL, nothing posted). */
enum ofl_err ofl_pp_post_msg(struct ofl_pp_conn *conn, enum ofl_pp_channel ch,
                             const struct ofl_pp_msg *m,
                             const struct ofl_pp_buf *buf, uint64_t wr_id);

/* ---- cells (seed 002 FIG. 8) ------------------------------------------- */

#define OFL_PP_CELL_VERSION 1
#define OFL_PP_CELL_HDR 12       /* every cell */
#define OFL_PP_CELL_FIRST 16     /* VA, memory handle, packet length */
#define OFL_PP_CELL_IMM 4
#define OFL_PP_CELL_CRC 4
#define OFL_PP_CELL_SIZE 256     /* the seed's cell data size */

enum ofl_pp_cell_flag {
    OFL_PP_CELL_F_FIRST = 0x01,
    OFL_PP_CELL_F_LAST = 0x02,
    OFL_PP_CELL_F_IMM = 0x04
};

/* A packet to segment, or one reassembled. */
struct ofl_pp_packet {
    uint64_t va;          /* destination address (first cell) */
    const uint8_t *data;  /* reassembled: the reassembly buffer */
    uint32_t len;         /* 1 .. 2^16 cells of data */
    uint32_t handle;      /* memory handle (first cell) */
    uint32_t psn;         /* packet sequence number */
    uint32_t imm;         /* immediate data when has_imm */
    uint8_t has_imm;
    uint8_t reserved[3];
};

/* Cells a packet of len bytes takes (0 when cell_size is not a power of
 * two in 16 .. 4096 or len is 0 or needs more than 2^16 cells). Pure. */
uint32_t ofl_pp_cell_count(uint32_t cell_size, uint32_t len);

/* Bytes of the largest cell of this cell_size (first and last, with
 * immediate data). Pure. */
uint32_t ofl_pp_cell_max(uint32_t cell_size);

/*
 * Builds cell idx (0 .. ofl_pp_cell_count - 1) of pkt into out[0 .. cap),
 * *len its length. The CRCs go through port's CRC32c hook (the portable
 * one when port is NULL or has none), so a fabric at line rate uses the
 * CPU's or the adapter's. OFL_E_ARG for a bad cell_size, an empty packet
 * or idx out of range, OFL_E_SIZE when cap is short. Writes only out.
 */
enum ofl_err ofl_pp_cell_build(const struct ofl_port *port, uint32_t cell_size,
                               const struct ofl_pp_packet *pkt, uint32_t idx,
                               uint8_t *out, size_t cap, size_t *len);

/* Reassembly state (caller memory). */
struct ofl_pp_reasm {
    uint8_t *buf;
    uint32_t cap;
    uint32_t cell_size;
    uint32_t cell_shift;
    uint32_t psn;          /* next packet expected */
    uint32_t total;        /* open packet: its length */
    uint32_t got;          /* open packet: bytes received */
    uint32_t next_cell;    /* open packet: next cell number */
    uint32_t crc;          /* open packet: running packet CRC state */
    uint32_t handle, imm;
    uint64_t va;
    uint8_t open;          /* a packet is being reassembled */
    uint8_t has_imm;
    uint8_t reserved[6];
    const struct ofl_port *port; /* its CRC32c hook, or NULL */
    uint64_t packets, dropped, dups; /* counters */
};

/* Initialises r over buf[cap] expecting packet sequence number psn first;
 * cell and packet CRCs are checked through port's CRC32c hook (NULL: the
 * portable one). OFL_E_ARG for a bad cell_size or buffer. */
enum ofl_err ofl_pp_reasm_init(struct ofl_pp_reasm *r,
                               const struct ofl_port *port, uint8_t *buf,
                               uint32_t cap, uint32_t cell_size, uint32_t psn);

/*
 * Takes one hostile cell. Checks, in order: length (_TRUNCATED, or
 * _LENGTH above ofl_pp_cell_max), cell CRC (_CELL_CRC), version
 * (_VERSION), reserved bits (_RESERVED), flags and lengths (_CELL_HDR,
 * _LENGTH), the packet and cell sequence (_CELL_DUP, _CELL_MISSING), the
 * packet length (_CELL_TOO_LONG), and on the last cell the packet CRC
 * (_PACKET_CRC). *done is true when the cell completed a packet, which
 * *pkt then describes (data in r->buf, valid until the next call).
 * Cost: O(len) (two CRCs and one copy of the cell).
 */
enum ofl_err ofl_pp_reasm_input(struct ofl_pp_reasm *r, const uint8_t *cell,
                                size_t len, struct ofl_pp_packet *pkt,
                                bool *done);

/* Bytes of every cell of a packet of len bytes without immediate data
 * (ofl_pp_cell_build's lengths summed); 0 when ofl_pp_cell_count is 0.
 * Pure. */
uint32_t ofl_pp_cell_bytes(uint32_t cell_size, uint32_t len);

/*
 * Cell channels (seed 002: "If the data is larger than a predetermined
 * size (e.g., 256 bytes) the channel adapter at the source may segment
 * the data into multiple segments, wherein each segment is sent in a
 * separate cell", and "The HCA 210 also performs reassembly of multiple
 * received cells corresponding to the same packet or message"). A channel
 * of a connection whose cfg.cells[ch] is set is a cell channel: every
 * message the pp layer sends on it is one packet (the encoded message,
 * VA 0, memory handle 0, no immediate data, the channel's next packet
 * sequence number) cut into cells of cell_size data bytes, and the
 * receiver takes it back cell by cell:
 *
 *   sender    ofl_pp_post_msg (QPs): encodes the message into buf, builds
 *             its cells right behind it in buf and posts each cell as one
 *             signalled Send (wr_id each); ofl_pp_write's
 *             BufferRDMAIndicate likewise (req->ind). Detached:
 *             ofl_pp_msg_cells encodes the packet, the caller builds the
 *             cells (ofl_pp_cell_build) and carries each as one frame
 *   receiver  ofl_pp_conn_recv_cell, one hostile cell per call
 *
 * On a cell channel only cells are valid; on a plain channel (cfg.cells[ch]
 * NULL) only whole messages. What each receiving entry takes ("-" is
 * refused with OFL_E_PP_CELL_CHANNEL before anything is looked at, and
 * changes nothing: no reassembly, packet sequence number, pool, state or
 * counter):
 *
 *   channel ch \ arrives  a message (ofl_pp_conn_recv)  a cell (_recv_cell)
 *   plain                 taken                         -
 *   cell channel          -                             taken
 *
 * Receiver states (per cell channel; struct ofl_pp_reasm):
 *
 *   state \ cell  FIRST of psn due  next cell of the open   anything else
 *                                   packet (not LAST/LAST)
 *   IDLE          OPEN (LAST too:   - (_CELL_MISSING)         refused, IDLE
 *                 the message, IDLE)
 *   OPEN          - (_CELL_DUP,     OPEN / the message, IDLE  _CELL_DUP:
 *                 stays OPEN)                                  stays OPEN;
 *                                                              others: IDLE
 *
 * "the message" = the packet is complete (cell and packet CRCs, cell
 * numbers and lengths checked by ofl_pp_reasm_input) and is taken as
 * ofl_pp_conn_recv takes a message on a plain channel (its checks after
 * the channel's); its packet sequence number is then taken whether
 * the message is accepted or refused (a refused message changes no pool
 * and no state, as ofl_pp_conn_recv's contract says). A message packet
 * whose first cell names a VA, a memory handle or immediate data is
 * refused whole (OFL_E_PP_CELL_HDR, counted in msgs_refused). A refused
 * cell never reaches the pool tables or the connection state: only the
 * reassembly drops its open packet (the sender sends it again from its
 * first cell).
 */
struct ofl_pp_cells {
    struct ofl_pp_reasm rx; /* inbound cells */
    uint32_t cell_size;     /* data bytes per cell (256: seed 002) */
    uint32_t tx_psn;        /* packet sequence number of the next send */
};

/*
 * Initialises a cell channel: cells of cell_size data bytes (a power of
 * two, 16 .. 4096), reassembly into buf[cap] (the longest message this
 * end takes on the channel), the first packet sent numbered tx_psn, the
 * first expected rx_psn; CRCs through port's hook (NULL: portable).
 * OFL_E_ARG for a bad size or buffer (ofl_pp_reasm_init). Hand it to
 * ofl_pp_conn_init in cfg.cells[ch].
 */
enum ofl_err ofl_pp_cells_init(struct ofl_pp_cells *c,
                               const struct ofl_port *port, uint8_t *buf,
                               uint32_t cap, uint32_t cell_size,
                               uint32_t tx_psn, uint32_t rx_psn);

/*
 * Detached sender on cell channel ch: the checks of ofl_pp_post_msg
 * (state, OFL_E_PP_CHANNEL), OFL_E_ARG when ch is not a cell channel,
 * then m is encoded into out[0 .. cap) and *pkt is its packet (data =
 * out, the channel's next psn, which advances). The caller builds cells
 * 0 .. ofl_pp_cell_count(cell_size, pkt->len) - 1 with ofl_pp_cell_build
 * and sends each. OFL_E_SIZE when cap is short or the message needs more
 * than 2^16 cells. Nothing changes on error.
 */
enum ofl_err ofl_pp_msg_cells(struct ofl_pp_conn *conn, enum ofl_pp_channel ch,
                              const struct ofl_pp_msg *m, uint8_t *out,
                              size_t cap, struct ofl_pp_packet *pkt);

/* Where ofl_pp_conn_recv_cell puts a completed message. */
struct ofl_pp_rx {
    struct ofl_pp_msg *m;     /* the message, as ofl_pp_conn_recv */
    struct ofl_pp_msg *reply; /* the reply to send, as ofl_pp_conn_recv */
    bool done;                /* this cell completed a message */
};

/*
 * Takes one hostile cell on cell channel ch (OFL_E_ARG when ch is neither
 * channel; OFL_E_PP_CELL_CHANNEL when ch is not a cell channel: a plain
 * channel carries only whole messages (ofl_pp_conn_recv), and nothing
 * changes; OFL_E_PP_CONN_STATE, cell untouched, in DOWN or ERROR). The cell
 * goes to the channel's reassembly (ofl_pp_reasm_input: its errors, the
 * pools and the connection unchanged); when it completes a packet,
 * out->done is true and the result is ofl_pp_conn_recv's for the
 * message on a plain channel (m->data points into the reassembly buffer until the next cell
 * of this channel), or OFL_E_PP_CELL_HDR for a packet naming a VA, a
 * memory handle or immediate data. Cost: O(len), plus the message's on
 * the last cell.
 */
enum ofl_err ofl_pp_conn_recv_cell(struct ofl_pp_conn *conn,
                                   enum ofl_pp_channel ch, const uint8_t *cell,
                                   size_t len, struct ofl_pp_rx *out);
#endif /* OFL_ENABLE_PP */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_H */
