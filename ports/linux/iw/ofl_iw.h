/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_iw - a Linux RDMA (iWARP) device whose engine is offload.c.
 *
 * One file per concern, as siw's own layout has it:
 *   ofl_iw_main.c   module, `rdma link add/delete` (rdma_link_ops), device
 *                   creation and registration, the netdev notifier
 *   ofl_iw_verbs.c  query_device/port/gid/pkey, ucontext, PD, CQ, mmap
 *   ofl_iw_cm.c     the iw_cm ops (connection management): NOT YET DONE,
 *                   every op returns -EOPNOTSUPP
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
 * locking to the caller).
 */
#ifndef OFL_IW_H
#define OFL_IW_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
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
#define OFL_IW_MAX_IRD (1u << 13)
#define OFL_IW_MAX_ORD OFL_MPA_IRD_ORD_MAX
/* Glue limits: the CQ ids (the core's notify vectors), QP numbers and
 * PDs the device hands out, and the STag table it will allocate (the core
 * takes up to OFL_TPT_MAX_ENTRIES, 2^24). */
#define OFL_IW_MAX_CQ (1u << 16)
#define OFL_IW_MAX_QP (1u << 16)
#define OFL_IW_MAX_PD (1u << 16)
#define OFL_IW_MAX_MR (1u << 16)
#define OFL_IW_MAX_CTX 1024

struct ofl_iw_dev {
    struct ib_device ibdev;      /* first: ib_alloc_device's container */
    struct net_device *netdev;   /* held by ib_device_set_netdev */
    struct list_head list;       /* on ofl_iw_devs, under ofl_iw_lock */
    struct ofl_linux lp;         /* the port handed to the core */
    struct xarray cq_xa;         /* CQ id (= notify vector) -> ofl_iw_cq */
    u8 mac[ETH_ALEN];            /* the GID: MAC, zero padded (as irdma) */
    u32 dev_id;
    atomic_t num_ctx;
    atomic_t num_pd;
    atomic_t num_cq;
};

struct ofl_iw_ucontext {
    struct ib_ucontext base;
};

struct ofl_iw_pd {
    struct ib_pd base;
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

/* ofl_iw_cm.c */
int ofl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int ofl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int ofl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int ofl_iw_create_listen(struct iw_cm_id *id, int backlog);
int ofl_iw_destroy_listen(struct iw_cm_id *id);
void ofl_iw_qp_add_ref(struct ib_qp *qp);
void ofl_iw_qp_rem_ref(struct ib_qp *qp);
struct ib_qp *ofl_iw_get_qp(struct ib_device *ibdev, int qpn);

#endif
