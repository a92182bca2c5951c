/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * qp_rig: two iWARP engines (or an iSCSI initiator and a scripted target)
 * connected by a simulated TCP wire, for the qp tests, the qp fuzz harness
 * and the qp bench. Each side has its own sim port (every DMA is checked
 * against the side's arena and rings), TPT, CQs and QP. The wire carries
 * each direction as a byte stream cut into segments of mss bytes with TCP
 * sequence numbers, and can reorder, duplicate, corrupt and truncate.
 */
#ifndef OFL_QP_RIG_H
#define OFL_QP_RIG_H

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define QR_DEPTH 64       /* SQ and RQ depth */
#define QR_SGE 4          /* data segments per WQE */
#define QR_CQ 256
#define QR_TPT 128
#define QR_ATT 1024
#define QR_IRD 8
#define QR_ORD 8
#define QR_TX 20000       /* FPDU build buffer (MULPDU <= 16384) */
#define QR_TX_MAX 70000   /* its room (qr_opts.tx_cap: any MULPDU) */
#define QR_RX 65536
#define QR_MEM (256u * 1024u) /* registered memory per side */
#define QR_WIRE (256u * 1024u) /* bytes a direction may hold */
#define QR_OT 8
#define QR_TXREF 16        /* attr.txref entries (qr_opts.txref) */
#define QR_OOO 8
#define QR_CHUNKS 4096
#define QR_ISN_AB 1000u
#define QR_ISN_BA 0xFFFFF000u /* wraps 2^32 early on */

/* One direction of the wire. */
struct qr_wire {
    uint8_t *buf;         /* bytes sent, not yet delivered */
    uint32_t len;
    uint32_t seq;         /* SN of buf[0] */
    uint32_t mss;
    int closed;           /* the sender asked to close */
    int aborted;          /* the sender reset the stream */
    /* fault injection for the next qr_deliver */
    int reorder;          /* swap segment pairs (the later one first, then
                             both in order: TCP's reassembly) */
    int duplicate;        /* deliver every segment twice */
    int coalesce;         /* cut segments at mss only, several
                             transmissions in one (a receiver's LRO) */
    long corrupt_at;      /* flip a bit of this stream byte (-1: none) */
    long cut_at;          /* drop cut_len bytes from this byte on */
    uint32_t cut_len;
    int cut_used;
    uint32_t delivered;   /* segments handed to the receiver */
    uint32_t chunk[QR_CHUNKS]; /* where each transmission ended: a
                                  transmission is one segment (RFC 5044
                                  §6: an FPDU per segment), cut further
                                  at mss */
    uint32_t nchunk;
    /* called after each segment handed to the receiver (NULL: none), e.g.
     * to make a TPT verb between a message's FPDUs */
    void (*after_segment)(void *ctx);
    void *after_ctx;
};

struct qr_side {
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[QR_TPT];
    uint64_t att[QR_ATT];
    uint32_t att_next;
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[QR_CQ], rcqe[QR_CQ];
    struct ofl_qp qp;
    struct ofl_qp_attr attr;
    struct ofl_qp_mem qmem;
    struct ofl_qp_swqe track[QR_DEPTH];
    struct ofl_qp_sge sq_sge[QR_SGE], rq_sge[QR_SGE];
    struct ofl_qp_inreq irq[QR_IRD];
    uint32_t ord_ring[QR_ORD];
    struct ofl_seq_pending ot[QR_OT];
    struct ofl_qp_ooo ooo[QR_OOO];
    uint8_t tx_buf[QR_TX_MAX], tx_stage[QR_TX_MAX], rx_buf[QR_RX];
    _Alignas(4096) uint8_t sq_ring[QR_DEPTH * 256];
    _Alignas(4096) uint8_t rq_ring[QR_DEPTH * 128];
    _Alignas(4096) uint8_t mem[QR_MEM];
    uint32_t mem_used;
    struct qr_wire *out;   /* toward the peer */
    struct qr_side *peer;
    int refuse;            /* the transmit callback refuses this many */
    int direct;            /* bench: deliver to the peer at once */
    /* tx_reserve (qr_opts.tx_reserve): frames are built in the wire */
    uint8_t *lent;         /* the reservation not yet transmitted */
    int lend_refuse;       /* the reservation hook refuses this many */
    unsigned long reserves, in_place, copied;
    /* qr_opts.barrier: the kinds of the barrier calls, in order */
    uint8_t barrier_kind[32];
    uint32_t barriers;
    uint32_t direct_seq;
    unsigned long tx_calls, closes, aborts;
    /* transmit by reference (qr_opts.txref) */
    struct ofl_qp_txref txref[QR_TXREF];
    uint8_t *vbuf;         /* the pieces of one frame, joined
                              (QR_TX_MAX bytes, allocated with txref) */
    unsigned long txv_calls, txv_pieces;
    unsigned long txv_bad; /* calls outside attr.txref's contract */
};

struct qr_opts {
    uint8_t service;       /* OFL_QP_SVC_IWARP (default) or ISCSI */
    bool markers;          /* both directions */
    bool crc;
    uint32_t emss;         /* 0: 1460 */
    uint32_t mss;          /* wire segment size, 0: emss (transmissions
                              are segments of their own anyway) */
    uint8_t sq_reg;        /* FIG. 11 enabled */
    uint8_t reg_option;    /* 1 (default) or 2 */
    bool host_rings;       /* rings fetched by DMA */
    uint16_t ord, ird;     /* 0: defaults */
    uint32_t wnd;          /* 0: 1 << 20 */
    uint8_t policy;        /* TPT policy */
    bool direct;           /* bench: no wire queue */
    uint32_t rx_cap;       /* MPA receive buffer, 0: QR_RX */
    bool no_markers_stage; /* create without a staging buffer */
    uint32_t tx_cap;       /* FPDU build buffer, 0: QR_TX (<= QR_TX_MAX) */
    uint8_t read_sink;     /* attr.read_sink of both QPs (0: LOCAL) */
    uint8_t fault_wait;    /* attr.fault_wait of both QPs (0: FAIL) */
    bool tx_reserve;       /* attr.tx_reserve: the wire lends its free
                              space, frames taken there are not copied */
    bool txref;            /* attr.transmitv: FPDUs by reference, their
                              payload read through the sim guard */
    uint32_t txref_cap;    /* attr.txref_cap (0: QR_TXREF, at most that) */
    bool barrier;          /* both sim ports get a barrier hook that
                              records each call (qr_side.barrier_kind)
                              before the CQs and QPs are made */
    bool no_dma_a, no_dma_b; /* the side's sim port has neither
                              dma_read nor dma_write, from before its
                              CQs and QPs are made */
    bool fused_a, fused_b; /* the side's sim port has the fused hooks
                              (ofl_sim_set_fused) before its stream is
                              established, when the engine looks */
    /* the side's sim port's crc32c hook (NULL: the portable CRC), set
       before its streams are made: the engine looks at it once there */
    uint32_t (*crc_a)(void *ctx, uint32_t state, const void *data,
                      size_t len);
    uint32_t (*crc_b)(void *ctx, uint32_t state, const void *data,
                      size_t len);
};

struct qr_rig {
    struct qr_side a, b;
    struct qr_wire ab, ba;
    struct qr_opts o;
    struct ofl_mpa_params pa, pb;
};

/* A rig with both QPs in RTS (iSCSI: only side a is used, b is unused).
 * NULL on failure (allocation, a setup call). */
struct qr_rig *qr_new(const struct qr_opts *o);
void qr_free(struct qr_rig *r);

/* Memory of a side's arena (zeroed, 64-byte aligned; page aligned when
 * align_page). */
uint8_t *qr_alloc(struct qr_side *s, uint32_t len, bool align_page);

/* Registers [p, p + len) of the arena as a region (VA = the pointer):
 * returns the STag, 0 on failure. */
uint32_t qr_reg(struct qr_side *s, void *p, uint32_t len, uint8_t access,
                uint8_t flags);
/* 255 lives of the lowest free entry (allocated as type in pd and freed),
 * then one more allocation: the 8-bit key has come round, so it returns
 * the STag a dead entry of that index last had (0 on any failure). */
uint32_t qr_stag_round(struct qr_side *s, uint8_t type, uint32_t pd);
/* Allocates a window (type 2 when type2) and binds it to [p, p + len) of
 * region: returns the STag to advertise, 0 on failure. */
uint32_t qr_window(struct qr_side *s, uint32_t region, void *p, uint32_t len,
                   uint8_t access, uint8_t flags, bool type2);

/* Posts (and in host-ring mode rings the adapter's doorbell). */
enum ofl_err qr_post_send(struct qr_side *s, struct ofl_qp_wr *wr);
enum ofl_err qr_post_recv(struct qr_side *s, uint64_t wr_id, void *p,
                          uint32_t len, uint32_t stag);

/* A send work request with one data segment (p may be NULL for none). */
void qr_wr(struct ofl_qp_wr *wr, uint8_t opcode, uint64_t wr_id,
           struct ofl_qp_sge *sge, void *p, uint32_t len, uint32_t stag);

/* Runs both sides and the wire until nothing moves (bounded), at time
 * now. Returns the number of rounds. */
int qr_pump(struct qr_rig *r, uint64_t now);
/* Delivers what side from sent, segment by segment, with the faults set
 * on its wire; returns the first error ofl_qp_input returned. */
enum ofl_err qr_deliver(struct qr_rig *r, struct qr_side *from);
/* One ofl_qp_process of side s with a large budget. */
enum ofl_err qr_process(struct qr_side *s, uint64_t now);

/* Takes up to max CQEs of a side's send (send true) or receive CQ. */
uint32_t qr_poll(struct qr_side *s, bool send, struct ofl_cqe *out,
                 uint32_t max);

/* Builds one FPDU with ULPDU hdr + payload into out as side s's stream
 * would carry it next (its MPA tx state moves); returns the length. */
uint32_t qr_fpdu(struct qr_side *s, const struct ofl_rdmap_msg *m,
                 const void *payload, uint32_t n, uint8_t *out, uint32_t cap);
/* Appends raw bytes to side from's outgoing stream (as if it sent them). */
void qr_inject(struct qr_side *from, const void *p, uint32_t n);

/* Decodes the FPDUs side from has sent and the peer has not received yet
 * (an independent MPA receiver at the right stream position); calls fn
 * for each parsed message. Returns the number of FPDUs, -1 on a framing
 * error. */
int qr_sent(struct qr_rig *r, struct qr_side *from,
            void (*fn)(void *ctx, const struct ofl_rdmap_msg *m), void *ctx);
/* The last Terminate side from has sent and not yet delivered, in *t:
 * true when there is one. */
bool qr_sent_term(struct qr_rig *r, struct qr_side *from,
                  struct ofl_rdmap_term *t);

/* An iSCSI Basic Header Segment at b (48 bytes, RFC 3720 §10.2.1):
 * opcode, the flags byte, DataSegmentLength and the Initiator Task Tag;
 * every other byte zero. */
void qr_bhs_init(uint8_t *b, uint8_t op, uint8_t flags, uint32_t itt,
                 uint32_t dsl);

#endif
