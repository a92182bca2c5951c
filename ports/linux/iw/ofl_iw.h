/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_iw - a Linux RDMA (iWARP) device whose engine is offload.c.
 *
 * One file per concern, as siw's own layout has it:
 *   ofl_iw_main.c   module, `rdma link add/delete` (rdma_link_ops), device
 *                   creation and registration, the netdev notifier
 *   ofl_iw_verbs.c  query_device/port/gid/pkey, ucontext, PD, CQ, mmap
 *   ofl_iw_mr.c     memory registration (user regions)
 *   ofl_iw_qp.c     QPs (RC): create/modify/query/destroy, the send and
 *                   receive doorbells (siw's user rings through
 *                   ofl_iw_uring, kernel work requests)
 *   ofl_iw_cm.c     the iw_cm ops (connection management) over kernel TCP
 *                   sockets: listen, connect, accept, reject, the MPA
 *                   exchange through the core's ofl_mpa_hs_*, the stream's
 *                   receive and transmit (struct ofl_iw_cep)
 *   ofl_linux.c     the port (DMA, doorbell, notify hooks) the core calls
 * The glue translates between the kernel's verbs and the core; the core
 * (offload.c, unchanged) decides: a CQ is a struct ofl_cq, polled and
 * armed through ofl_cq_*.
 *
 * User space: the device speaks siw's user ABI (<rdma/siw-abi.h>): driver
 * id RDMA_DRIVER_SIW, uverbs ABI version SIW_ABI_VERSION, the mmap'ed CQ
 * ring of struct siw_cqe followed by struct siw_cq_ctrl, so that the
 * stock libsiw of rdma-core binds to it unchanged. Because the driver id
 * is siw's, devices are tracked on a list of our own: ib_unregister_driver
 * and ib_device_get_by_netdev would also find a real siw's devices.
 *
 * Locking: ofl_iw_lock (a mutex) guards the device list; each CQ's
 * spinlock serialises the calls on its struct ofl_cq (the core leaves
 * locking to the caller). dev->lock (a spinlock) serialises every core
 * call on the device's QPs and its TPT: a QP call may write CQEs into its
 * CQs and touch the TPT (RESET invalidates the QP's windows), so it is
 * taken first, then the send CQ's lock, then the receive CQ's (nested);
 * a poll takes its CQ's lock only. One lock per device is the simple
 * first form; a QP lock of its own is a later refinement.
 */
#ifndef OFL_IW_H
#define OFL_IW_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/idr.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include "offload.h"
#include "ofl_linux.h"
#include "ofl_iw_uring.h"

#define OFL_IW_LINK_TYPE "ofl"
#define OFL_IW_NODE_DESC "offload iWARP device"

/*
 * Device limits. Each is the core's limit (offload.h) unless the glue or
 * siw's user ABI imposes a smaller one; the comment says which.
 */
/* ofl_qp_mem.sq_depth / rq_depth: a power of two, 1 .. 2^16. */
#define OFL_IW_MAX_QP_WR (1u << 16)
/* Data segments per WQE: the core takes OFL_QP_SQ_SGE_MAX (11) per send
 * and OFL_QP_RQ_SGE_MAX (15) per receive WQE; siw's ring entries carry
 * SIW_MAX_SGE (6). */
#define OFL_IW_MAX_SEND_SGE min_t(u32, OFL_QP_SQ_SGE_MAX, SIW_MAX_SGE)
#define OFL_IW_MAX_RECV_SGE min_t(u32, OFL_QP_RQ_SGE_MAX, SIW_MAX_SGE)
/* An RDMA Read has one sink segment (OFL_QP_OP_READ). */
#define OFL_IW_MAX_SGE_RD 1
/* ofl_cq_init: cap a power of two, 1 .. 2^24. */
#define OFL_IW_MAX_CQE (1u << 24)
/* IRD: ofl_qp_attr.ird is a power of two and RFC 6581 carries 14 bits
 * (OFL_MPA_IRD_ORD_MAX), so 2^13; ORD: any value up to the 14 bits. */
/* The core fixes both at QP creation (ofl_qp_attr.ird, .ord: the inbound
 * request slots are allocated with the QP); verbs set them later
 * (modify_qp, the CM). So every QP is created with the device maximum and
 * the glue keeps that maximum small: 128, as siw's SIW_MAX_ORD_QP and
 * SIW_MAX_IRD_QP (the core would take IRD 2^13 and ORD 0x3FFF). */
#define OFL_IW_MAX_IRD 128u
#define OFL_IW_MAX_ORD 128u
/* Glue limits: the CQ ids (the core's notify vectors), QP numbers and
 * PDs the device hands out, and the STag table it will allocate (the core
 * takes up to OFL_TPT_MAX_ENTRIES, 2^24). */
#define OFL_IW_MAX_CQ (1u << 16)
#define OFL_IW_MAX_QP (1u << 16)
/* The receive-ring watch of a user QP in ERROR (struct ofl_iw_qp): first
 * look 10 ms after the QP entered ERROR, then twice as far apart up to a
 * second: a late receive is flushed within a second however long the
 * consumer keeps the QP, at one wakeup a second per such QP. */
#define OFL_IW_RQ_WATCH_FIRST msecs_to_jiffies(10)
#define OFL_IW_RQ_WATCH_LAST msecs_to_jiffies(1000)
#define OFL_IW_MAX_PD (1u << 16)
#define OFL_IW_MAX_MR ((1u << 14) - 1)  /* TPT entries (index 0 reserved) */
/* wr_id of work the device posts itself (a kernel QP's Read with Local
 * Invalidate, the initiator's nudge), always OFL_QP_WR_SILENT and
 * unsignaled: none of its completions is written, so this wr_id is only
 * a name for a reader of the ring */
#define OFL_IW_WRID_INTERNAL (~0ULL)
/* pages of a fast-registration MR (rdma_rw's own limit): each takes twice
 * as many ATT slots, and a kernel ULP keeps a pool of them per queue
 * (nvme-rdma and nvmet's rdma_rw: queue size x 1 MiB / this) */
#define OFL_IW_MAX_FR_PAGES 256u
/* ATT slots: 1 GiB of 4 KiB pages. A kernel NVMe queue pair's pool of
 * fast-registration MRs takes 65536 (128 MRs of 256 pages, two halves
 * each: ofl_iw_mr.c), and a controller has up to one per CPU and the
 * admin queue */
#define OFL_IW_ATT_SLOTS (1u << 18)
#define OFL_IW_MAX_CTX 1024

struct ofl_iw_dev {
    struct ib_device ibdev;      /* first: ib_alloc_device's container */
    struct net_device *netdev;   /* held (netdev_held) until
                                    dealloc_driver; ofl_iw_get_netdev */
    bool netdev_held;
    struct list_head list;       /* on ofl_iw_devs, under ofl_iw_lock */
    struct ofl_linux lp;         /* the port handed to the core */
    struct xarray cq_xa;         /* CQ id (= notify vector) -> ofl_iw_cq */
    struct xarray qp_xa;         /* QP number -> ofl_iw_qp */
    struct ida pd_ida;           /* PD numbers the core knows */
    spinlock_t lock;             /* the core's QPs and TPT (see above) */
    struct ofl_tpt tpt;          /* STags (regions, windows) */
    struct ofl_tpt_entry *tpt_entries;
    u64 *att;
    struct ofl_tpt_att_pool att_pool; /* runs of ATT slots per MR
                                         (ofl_iw_mr.c), under lock */
    u32 *att_pool_map;           /* OFL_TPT_ATT_POOL_WORDS(ATT slots) */
    u32 *att_owner;              /* the TPT's owner table: one word per
                                    ATT slot (ofl_tpt_att_owners) */
    u8 mac[ETH_ALEN];            /* the GID: MAC, zero padded (as irdma) */
    u32 dev_id;
    atomic_t num_ctx;
    atomic_t num_pd;
    atomic_t num_cq;
    atomic_t num_qp;
};

struct ofl_iw_ucontext {
    struct ib_ucontext base;
};

struct ofl_iw_pd {
    struct ib_pd base;
    u32 id;                      /* the core's PD number (ofl_qp_attr.pd) */
};

/* A user memory region: pinned pages, a TPT region over att_count
 * direct ATT slots from att_base; lkey = rkey = stag. */
/* A memory region: a user region (umem), the PD's DMA MR (a physical
 * region: no umem, no ATT slots) or a fast-registration MR (pages: the
 * page list map_mr_sg builds; two halves of max_pages ATT slots each,
 * used in turn, so that writing the next registration's page words never
 * changes the translation of the current one). */
struct ofl_iw_mr {
    struct ib_mr base;
    struct ib_umem *umem;
    u32 stag;
    u32 pd;
    u32 att_base, att_count;
    u64 *pages;        /* fast registration: physical page addresses */
    u32 npages, max_pages;
    u32 half;          /* the half the next REG_MR writes */
};

/* A QP: the core's struct ofl_qp over memory of its own (mem), and for
 * user QPs siw's mmap'ed rings that libsiw fills. */
struct ofl_iw_cep;

struct ofl_iw_qp {
    struct ib_qp base;
    struct ofl_qp core;          /* under dev->lock */
    /* References: the RDMA core's (dropped by destroy_qp, which then
     * waits for the rest), the iw_cm's (iw_add_ref / iw_rem_ref) and a
     * connection's; the last one completes free (as siw's qp_free). */
    struct kref ref;
    struct completion free;
    /* The connection whose stream the QP speaks on (a reference of the
     * connection's own), set and cleared under dev->lock: the transmit
     * callback reads it. */
    struct ofl_iw_cep *cep;
    void *mem;                   /* the core's rings, tracking, buffers */
    struct ofl_iw_cq *scq, *rcq;
    u32 id;                      /* in dev->qp_xa; base.qp_num */
    u32 sq_depth, rq_depth;      /* core ring depths (powers of two) */
    u32 sq_sge, rq_sge;          /* data segments per WQE */
    int access;                  /* IB_QP_ACCESS_FLAGS as set */
    bool sig_all;                /* IB_SIGNAL_ALL_WR (kernel QPs) */
    /* User QPs: siw's rings (num entries each), NULL for a kernel QP.
     * The device reads entry sq_get / rq_get next. */
    struct siw_sqe *usq;
    struct siw_rqe *urq;
    u32 num_sqe, num_rqe;
    u32 sq_get, rq_get;
    /* The last pull of the send ring stopped at a valid entry (the core
     * had no room, or refused it in this state, or one ring's worth was
     * taken): libsiw rings no doorbell for the entries behind it, so
     * ofl_iw_qp_run_pull (after a receive, a doorbell or a kick, in RTS
     * or ERROR: ERROR flushes them) takes them. Otherwise each new entry comes with a doorbell, and
     * run_pull leaves it to that (the other pulls, at a kick and on the
     * way to ERROR, take what they find). Under dev->lock. */
    bool usq_waits;
    struct rdma_user_mmap_entry *sq_entry, *rq_entry;
    /* The core's asynchronous events (core.events, enum ofl_qp_evt)
     * already given to the consumer, and none after destroy_qp began (as
     * siw's SIW_QP_IN_DESTROY); cleared at RESET with core.events; under
     * dev->lock. */
    u32 events_done;
    bool in_destroy;
    /* A user QP in ERROR: libsiw's receive ring has no doorbell, so a
     * receive posted after the flush would never complete (nor wake a
     * consumer waiting for its flush, as rping's CQ thread does). While
     * the QP stays in ERROR this work takes the ring again (rq_watch_delay
     * jiffies apart, doubling up to a second) and flushes what it finds;
     * it holds a QP reference while queued; rq_watching under dev->lock. */
    struct delayed_work rq_watch;
    unsigned long rq_watch_delay;
    bool rq_watching;
};

/* A memory region user space maps (the CQ ring); the memory is vmalloc'ed
 * with vmalloc_user and freed by its owner. */
struct ofl_iw_mmap_entry {
    struct rdma_user_mmap_entry rdma_entry;
    void *address;
};

struct ofl_iw_cq {
    struct ib_cq base;
    spinlock_t lock;             /* serialises every call on core */
    struct ofl_cq core;          /* the CQ: the core's state */
    struct ofl_cqe *ring;        /* core.ring, num_cqe entries */
    u32 num_cqe;                 /* a power of two */
    u32 id;                      /* in dev->cq_xa; the core's vector */
    unsigned long bits;          /* OFL_IW_CQ_* bits */
    /* User CQs: siw's mmap'ed ring, num_cqe struct siw_cqe and then
     * struct siw_cq_ctrl; NULL for a kernel CQ. */
    struct siw_cqe *uring;
    struct siw_cq_ctrl *uctrl;
    u32 uput;                    /* next user ring slot the device fills */
    struct rdma_user_mmap_entry *uentry;
};

/* The port is up when the netdev is up and has carrier. */
static inline bool ofl_iw_port_active(const struct net_device *netdev)
{
    return netif_running(netdev) && netif_carrier_ok(netdev);
}

/* struct ofl_iw_cq.bits */
#define OFL_IW_CQ_OVERRUN_SENT 0 /* IB_EVENT_CQ_ERR went out */
#define OFL_IW_CQ_EVENT 1        /* the core raised the CQ's vector */

static inline struct ofl_iw_dev *to_ofl_dev(struct ib_device *ibdev)
{
    return container_of(ibdev, struct ofl_iw_dev, ibdev);
}

static inline struct ofl_iw_cq *to_ofl_cq(struct ib_cq *ibcq)
{
    return container_of(ibcq, struct ofl_iw_cq, base);
}

static inline struct ofl_iw_qp *to_ofl_qp(struct ib_qp *ibqp)
{
    return container_of(ibqp, struct ofl_iw_qp, base);
}

static inline struct ofl_iw_mr *to_ofl_mr(struct ib_mr *ibmr)
{
    return container_of(ibmr, struct ofl_iw_mr, base);
}

static inline struct ofl_iw_pd *to_ofl_pd(struct ib_pd *ibpd)
{
    return container_of(ibpd, struct ofl_iw_pd, base);
}

/* Notify vectors: a CQ's id, or a QP's number with this bit (the core's
 * asynchronous QP events). */
#define OFL_IW_VEC_QP 0x80000000u

/* ofl_iw_verbs.c */
int ofl_iw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
                        struct ib_udata *udata);
int ofl_iw_query_port(struct ib_device *ibdev, u32 port,
                      struct ib_port_attr *attr);
int ofl_iw_get_port_immutable(struct ib_device *ibdev, u32 port,
                              struct ib_port_immutable *imm);
int ofl_iw_query_gid(struct ib_device *ibdev, u32 port, int idx,
                     union ib_gid *gid);
int ofl_iw_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
void ofl_iw_get_dev_fw_str(struct ib_device *ibdev, char *str);
int ofl_iw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void ofl_iw_dealloc_ucontext(struct ib_ucontext *uctx);
int ofl_iw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void ofl_iw_mmap_free(struct rdma_user_mmap_entry *entry);
int ofl_iw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int ofl_iw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *ofl_iw_get_dma_mr(struct ib_pd *pd, int access);
int ofl_iw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
                     struct ib_udata *udata);
int ofl_iw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int ofl_iw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int ofl_iw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void ofl_iw_cq_notify(void *drv, u32 vector);
void ofl_iw_cq_deliver(struct ofl_iw_cq *cq);
u32 ofl_iw_cq_to_user(struct ofl_iw_cq *cq);
struct rdma_user_mmap_entry *ofl_iw_mmap_insert(struct ib_ucontext *uctx,
                                                void *address, size_t len,
                                                u64 *key);

/* ofl_iw_mr.c */
struct ib_mr *ofl_iw_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
                                 u64 virt_addr, int access,
                                 struct ib_udata *udata);
int ofl_iw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
struct ib_mr *ofl_iw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
                              u32 max_num_sg);
int ofl_iw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
                     unsigned int *sg_offset);
int ofl_iw_kernel_sge(struct ofl_iw_qp *qp, const struct ib_sge *ib,
                      struct ofl_qp_sge *out);
int ofl_iw_reg_mr_wr(struct ofl_iw_dev *dev, const struct ib_reg_wr *reg,
                     struct ofl_qp_wr *wr);
void ofl_iw_reg_mr_posted(const struct ib_reg_wr *reg);

/* ofl_iw_qp.c */
int ofl_iw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
                     struct ib_udata *udata);
int ofl_iw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int ofl_iw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
                     struct ib_udata *udata);
int ofl_iw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
                    struct ib_qp_init_attr *init);
int ofl_iw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
                     const struct ib_send_wr **bad_wr);
int ofl_iw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
                     const struct ib_recv_wr **bad_wr);

/* ofl_iw_qp.c, for the connection manager (ofl_iw_cm.c) */
void ofl_iw_qp_get(struct ofl_iw_qp *qp);
void ofl_iw_qp_put(struct ofl_iw_qp *qp);
int ofl_iw_qp_connect(struct ofl_iw_qp *qp, struct ofl_iw_cep *cep,
                      const struct ofl_mpa_params *p, u32 emss);
struct ofl_iw_cep *ofl_iw_qp_unlink(struct ofl_iw_qp *qp,
                                    struct ofl_iw_cep *cep, int llp);
void ofl_iw_qp_rx(struct ofl_iw_qp *qp, u32 seq, const u8 *data, u32 len);
void ofl_iw_qp_kick(struct ofl_iw_qp *qp);
void ofl_iw_qp_all_error(struct ofl_iw_dev *dev);
bool ofl_iw_qp_nudge(struct ofl_iw_qp *qp);

/* ofl_iw_cm.c */
int ofl_iw_cep_tx(struct ofl_iw_cep *cep, const u8 *data, u32 len, u32 flags);
u8 *ofl_iw_cep_tx_reserve(struct ofl_iw_cep *cep, u32 len);
void ofl_iw_cep_tx_now(struct ofl_iw_cep *cep);
void ofl_iw_cep_poster(struct ofl_iw_cep *cep, bool on);
void ofl_iw_cep_get(struct ofl_iw_cep *cep);
void ofl_iw_cep_drop(struct ofl_iw_cep *cep);
int ofl_iw_cm_init(void);
void ofl_iw_cm_exit(void);
int ofl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int ofl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int ofl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int ofl_iw_create_listen(struct iw_cm_id *id, int backlog);
int ofl_iw_destroy_listen(struct iw_cm_id *id);
void ofl_iw_qp_add_ref(struct ib_qp *qp);
void ofl_iw_qp_rem_ref(struct ib_qp *qp);
struct ib_qp *ofl_iw_get_qp(struct ib_device *ibdev, int qpn);

#endif
