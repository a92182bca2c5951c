/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * dg_rig: up to DGR_NODES nodes, each with its own sim port (every DMA is
 * checked against the node's arena), TPT, CQs, datagram QPs, node
 * directory and N-1 EE contexts (one per other node), joined by a frame
 * wire: every transmission (a QP's datagram, an EE's acknowledgement or
 * retransmission) is queued whole and delivered in order to the node its
 * destination address names. For the datagram tests and the datagram
 * fuzz harness.
 */
#ifndef OFL_DG_RIG_H
#define OFL_DG_RIG_H

#include "offload.h"
#include "ports/sim/ofl_sim.h"

#define DGR_NODES 4
#define DGR_QPS 3          /* QPs a node may hold */
#define DGR_QPN_CAP 16     /* QP numbers 0 .. 15 */
#define DGR_DEPTH 16
#define DGR_SGE 2
#define DGR_CQ 256
#define DGR_TPT 16
#define DGR_ATT 64
#define DGR_MAXDG 256      /* default max_dgram */
#define DGR_TX 512
#define DGR_WIN 8          /* EE window */
#define DGR_SLOT 320       /* EE slot: 28 + 256 fits */
#define DGR_ATOMIC DGR_WIN /* replay cache entries per EE: never full */
#define DGR_MEM (64u * 1024u)
#define DGR_FRAMES 256
#define DGR_FRAME_MAX 600
#define DGR_TIMEOUT 10
#define DGR_RETRY 3
#define DGR_ADDR0 100u     /* node i has address DGR_ADDR0 + i */

struct dgr_frame {
    int from;
    uint32_t len;
    uint8_t data[DGR_FRAME_MAX];
};

struct dgr_wire {
    struct dgr_frame f[DGR_FRAMES];
    uint32_t head, n;
    int refuse;            /* the transmit callbacks refuse this many */
    int drop;              /* this many transmissions are taken and lost */
    unsigned long tx_calls;
};

struct dgr_qp {
    struct ofl_qp qp;
    struct ofl_qp_attr attr;
    struct ofl_qp_mem qmem;
    struct ofl_qp_swqe track[DGR_DEPTH];
    struct ofl_qp_sge sq_sge[DGR_SGE], rq_sge[DGR_SGE];
    uint8_t tx_buf[DGR_TX];
    _Alignas(64) uint8_t sq_ring[DGR_DEPTH * 128];
    _Alignas(64) uint8_t rq_ring[DGR_DEPTH * 64];
};

struct dgr_rig;

struct dgr_node {
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_entry entry[DGR_TPT];
    uint64_t att[DGR_ATT];
    struct ofl_cq scq, rcq;
    struct ofl_cqe scqe[DGR_CQ], rcqe[DGR_CQ];
    struct dgr_qp q[DGR_QPS];
    int nq;
    struct ofl_qp_node node;
    struct ofl_qp *slots[DGR_QPN_CAP];
    struct ofl_ee ee[DGR_NODES - 1];
    uint8_t ee_buf[DGR_NODES - 1][DGR_WIN * DGR_SLOT];
    struct ofl_ee_slot ee_slot[DGR_NODES - 1][DGR_WIN];
    struct ofl_ee_atomic ee_atomic[DGR_NODES - 1][DGR_ATOMIC];
    _Alignas(4096) uint8_t mem[DGR_MEM];
    uint32_t mem_used;
    uint32_t stag;         /* a region over mem, local read and write */
    struct dgr_rig *rig;
    int idx;
};

struct dgr_rig {
    struct dgr_node n[DGR_NODES];
    int nodes;
    struct dgr_wire wire;
};

/* Options of a QP (0 fields take the defaults). */
struct dgr_qp_opts {
    uint8_t service;       /* OFL_QP_SVC_RD, _UD or _RAW */
    uint8_t acked;
    uint16_t ord;          /* 0: 4 */
    uint32_t max_dgram;    /* 0: DGR_MAXDG */
    uint32_t qpn;
    uint8_t fault_wait;    /* attr.fault_wait (0: OFL_QP_FAULT_FAIL) */
};

/* nodes (2 .. DGR_NODES) nodes with their EE contexts in RTS and no QPs.
 * NULL on failure. */
struct dgr_rig *dgr_new(int nodes);
void dgr_free(struct dgr_rig *r);

/* The EE index on node i for remote node j (j != i). */
uint32_t dgr_ee_index(int i, int j);
/* The first sequence number node i sends to node j. */
uint32_t dgr_isn(int i, int j);

/* Creates a QP on node ni (RESET -> INIT -> RTR -> RTS; RD and UD added
 * to the node's directory). Returns its index in n[ni].q, -1 on failure
 * (*err the error when err is not NULL). */
/* Acknowledged RD QPs: QP 1 (ORD 1) on node 0, QP 2 (ORD 0) on each of
 * nodes 1 .. r's last; each the first QP of its node. 0, or -1 when one
 * could not be added. */
int dgr_rd_pair(struct dgr_rig *r);
int dgr_qp_add(struct dgr_rig *r, int ni, const struct dgr_qp_opts *o,
               enum ofl_err *err);

uint8_t *dgr_alloc(struct dgr_node *n, uint32_t len);

/* Posts wr (opcode, flags, destination, remote fields as the caller set
 * them) from QP qi of node ni with one data segment [p, p + len) of the
 * node's region, none when p is NULL. */
enum ofl_err dgr_post(struct dgr_rig *r, int ni, int qi, struct ofl_qp_wr *wr,
                      const void *p, uint32_t len);
/* Fills wr as a signalled RDMA operation op (a Write, a Read, an atomic)
 * for QP 7 over EE 0 (the rigs' responder QP) at rstag, rto: wr_id, the
 * atomic operands a[0 .. 3] when a is not NULL, the rest zero. */
void dgr_wr_rdma(struct ofl_qp_wr *wr, uint64_t wr_id, uint8_t op,
                 uint32_t rstag, uint64_t rto, const uint64_t *a);
/* Posts a SEND of [p, p + len) from QP qi of node ni. */
enum ofl_err dgr_send(struct dgr_rig *r, int ni, int qi, uint64_t wr_id,
                      const void *p, uint32_t len, uint32_t addr, uint32_t ee,
                      uint32_t qpn, uint8_t flags);
enum ofl_err dgr_recv(struct dgr_rig *r, int ni, int qi, uint64_t wr_id,
                      void *p, uint32_t len);

/* Delivers the queued frames in order (at most max, 0: all); returns the
 * first error ofl_qp_dgram_input returned. */
enum ofl_err dgr_deliver(struct dgr_rig *r, uint64_t now, uint32_t max);
/* Drops the queued frames. */
void dgr_drop_all(struct dgr_rig *r);
/* ofl_qp_process of every QP, then delivery, until nothing moves. */
void dgr_pump(struct dgr_rig *r, uint64_t now);
/* ofl_ee_tick of every EE context in use; the first error. */
enum ofl_err dgr_tick(struct dgr_rig *r, uint64_t now);

uint32_t dgr_poll(struct dgr_node *n, bool send, struct ofl_cqe *out,
                  uint32_t max);

/* For the suites (test.h included before this header): posts k receive
 * WQEs of 64 bytes (wr_id 1000 + i) on QP qi of node ni, one check each. */
#ifdef OFL_TEST_H
static inline void dgr_post_recvs(struct dgr_rig *r, int ni, int qi, int k)
{
    int i;

    for (i = 0; i < k; i++) {
        uint8_t *b = dgr_alloc(&r->n[ni], 64);

        CHECK_OK(dgr_recv(r, ni, qi, 1000u + (unsigned)i, b, 64));
    }
}
#endif

#endif
