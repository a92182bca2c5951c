// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_verbs - device and port queries, user contexts, PDs and CQs.
 *
 * A CQ is the core's struct ofl_cq: kernel consumers poll and arm it
 * through ofl_cq_poll / ofl_cq_arm. A user CQ also has siw's mmap'ed ring
 * (struct siw_cqe[num_cqe], then struct siw_cq_ctrl) that libsiw polls
 * and arms without a system call; ofl_iw_cq_to_user moves the core's
 * completions into it.
 */
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "ofl_iw.h"

/* ---- device, port, GID, P_Key ----------------------------------------- */

int ofl_iw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
                        struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibdev);

    if (udata->inlen || udata->outlen)
        return -EINVAL;
    memset(attr, 0, sizeof(*attr));
    attr->fw_ver = ((u64)OFL_VERSION_MAJOR << 32) |
                   ((u64)OFL_VERSION_MINOR << 16) | OFL_VERSION_PATCH;
    addrconf_addr_eui48((u8 *)&attr->sys_image_guid, dev->mac);
    /* No IEEE OUI of our own: 0xFFFFFF, as rxe (RXE_VENDOR_ID); 0 would
     * read as "no vendor" (rdma-core's tests/test_device.py requires a
     * non-zero vendor_id) */
    attr->vendor_id = 0xFFFFFF;
    attr->vendor_part_id = dev->dev_id;
    /* What the device carries, not what the core could: fast
     * registration (alloc_mr, map_mr_sg, IB_WR_REG_MR, local and remote
     * invalidate) and RFC 7306 atomics, masked ones too, for kernel
     * consumers (siw's ring entry has no room for atomics: libsiw posts
     * none). Atomics are atomic among this device's own accesses, not
     * against the CPU: IB_ATOMIC_HCA, as rxe says. No memory windows:
     * neither libsiw (no alloc_mw, no bind in siw's ring) nor the
     * kernel's verbs (no bind work request) can use one. */
    attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
    attr->max_fast_reg_page_list_len = OFL_IW_MAX_FR_PAGES;
    attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
    attr->atomic_cap = IB_ATOMIC_HCA;
    attr->masked_atomic_cap = IB_ATOMIC_HCA;
    /* a direct ATT of PAGE_SIZE pages: the device's ATT slots (the core
     * takes up to 2^32 - 1) */
    attr->max_mr_size = (u64)OFL_IW_ATT_SLOTS << PAGE_SHIFT;
    /* OFL_TPT_PAGE_SHIFT_MIN .. _MAX */
    attr->page_size_cap = GENMASK_ULL(OFL_TPT_PAGE_SHIFT_MAX,
                                      OFL_TPT_PAGE_SHIFT_MIN);
    attr->max_qp = OFL_IW_MAX_QP;
    attr->max_qp_wr = OFL_IW_MAX_QP_WR;
    attr->max_send_sge = OFL_IW_MAX_SEND_SGE;
    attr->max_recv_sge = OFL_IW_MAX_RECV_SGE;
    attr->max_sge_rd = OFL_IW_MAX_SGE_RD;
    attr->max_cq = OFL_IW_MAX_CQ;
    attr->max_cqe = OFL_IW_MAX_CQE;
    attr->max_mr = OFL_IW_MAX_MR;
    /* no memory windows through the device yet (above) */
    attr->max_mw = 0;
    attr->max_pd = OFL_IW_MAX_PD;
    /* IB names: rd_atom is the responder's depth (IRD), init_rd_atom
     * the requester's (ORD) */
    attr->max_qp_rd_atom = OFL_IW_MAX_IRD;
    attr->max_qp_init_rd_atom = OFL_IW_MAX_ORD;
    attr->max_res_rd_atom = OFL_IW_MAX_QP * OFL_IW_MAX_IRD;
    attr->max_pkeys = 1;
    /* no SRQ in the core: max_srq* stay 0 */
    return 0;
}

int ofl_iw_query_port(struct ib_device *ibdev, u32 port,
                      struct ib_port_attr *attr)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibdev);
    struct net_device *netdev = dev->netdev;
    bool up = ofl_iw_port_active(netdev);

    memset(attr, 0, sizeof(*attr));
    /* fails (-ENODEV) while the netdev is being unregistered: the port
     * is then down, not an error */
    if (ib_get_eth_speed(ibdev, port, &attr->active_speed,
                         &attr->active_width)) {
        attr->active_speed = IB_SPEED_SDR;
        attr->active_width = IB_WIDTH_1X;
        up = false;
    }
    attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
    attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
                            IB_PORT_PHYS_STATE_DISABLED;
    attr->max_mtu = ib_mtu_int_to_enum(netdev->max_mtu);
    attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
    attr->gid_tbl_len = 1;
    attr->pkey_tbl_len = 1;
    /* a message is at most 2^32 - 1 bytes (the CQE's byte count) */
    attr->max_msg_sz = U32_MAX;
    attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
    return 0;
}

int ofl_iw_get_port_immutable(struct ib_device *ibdev, u32 port,
                              struct ib_port_immutable *imm)
{
    struct ib_port_attr attr;
    int rv;

    rv = ofl_iw_query_port(ibdev, port, &attr);
    if (rv)
        return rv;
    imm->gid_tbl_len = attr.gid_tbl_len;
    imm->pkey_tbl_len = attr.pkey_tbl_len;
    imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
    return 0;
}

/* One GID: the netdev's MAC, zero padded, as iWARP hardware gives it. */
int ofl_iw_query_gid(struct ib_device *ibdev, u32 port, int idx,
                     union ib_gid *gid)
{
    if (idx != 0)
        return -EINVAL;
    memset(gid, 0, sizeof(*gid));
    ether_addr_copy(gid->raw, to_ofl_dev(ibdev)->mac);
    return 0;
}

int ofl_iw_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
    if (index != 0)
        return -EINVAL;
    *pkey = 0xffff; /* the default P_Key; iWARP has no partitions */
    return 0;
}

void ofl_iw_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
    snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", OFL_VERSION_STRING);
}

/* ---- user contexts and mmap -------------------------------------------- */

int ofl_iw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(uctx->device);
    struct siw_uresp_alloc_ctx uresp = {};
    int rv;

    if (atomic_inc_return(&dev->num_ctx) > OFL_IW_MAX_CTX) {
        rv = -ENOMEM;
        goto err_count;
    }
    if (udata->outlen < sizeof(uresp)) {
        rv = -EINVAL;
        goto err_count;
    }
    uresp.dev_id = dev->dev_id;
    rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
    if (rv)
        goto err_count;
    return 0;

err_count:
    atomic_dec(&dev->num_ctx);
    return rv;
}

void ofl_iw_dealloc_ucontext(struct ib_ucontext *uctx)
{
    atomic_dec(&to_ofl_dev(uctx->device)->num_ctx);
}

/* The entry owns the vmalloc_user memory: the core calls mmap_free after
 * rdma_user_mmap_entry_remove, once no mmap call holds the entry (pages
 * already mapped keep their own references). */
void ofl_iw_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
    struct ofl_iw_mmap_entry *e =
        container_of(rdma_entry, struct ofl_iw_mmap_entry, rdma_entry);

    vfree(e->address);
    kfree(e);
}

struct rdma_user_mmap_entry *ofl_iw_mmap_insert(struct ib_ucontext *uctx,
                                                void *address, size_t len,
                                                u64 *key)
{
    struct ofl_iw_mmap_entry *e;
    int rv;

    e = kzalloc(sizeof(*e), GFP_KERNEL);
    if (!e)
        return NULL;
    e->address = address;
    rv = rdma_user_mmap_entry_insert(uctx, &e->rdma_entry, len);
    if (rv) {
        kfree(e);
        return NULL;
    }
    *key = rdma_user_mmap_get_offset(&e->rdma_entry);
    return &e->rdma_entry;
}

int ofl_iw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
    struct rdma_user_mmap_entry *rdma_entry;
    struct ofl_iw_mmap_entry *e;
    int rv;

    rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
    if (!rdma_entry)
        return -EINVAL;
    e = container_of(rdma_entry, struct ofl_iw_mmap_entry, rdma_entry);
    /* maps at most the vmalloc area's size, else fails */
    rv = remap_vmalloc_range(vma, e->address, 0);
    rdma_user_mmap_entry_put(rdma_entry);
    return rv;
}

/* ---- protection domains ------------------------------------------------ */

int ofl_iw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(pd->device);
    int id;

    if (atomic_inc_return(&dev->num_pd) > OFL_IW_MAX_PD) {
        atomic_dec(&dev->num_pd);
        return -ENOMEM;
    }
    /* The core knows a PD as a number on each STag and QP. */
    id = ida_alloc_range(&dev->pd_ida, 1, OFL_IW_MAX_PD, GFP_KERNEL);
    if (id < 0) {
        atomic_dec(&dev->num_pd);
        return id;
    }
    to_ofl_pd(pd)->id = id;
    return 0;
}

int ofl_iw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(pd->device);

    ida_free(&dev->pd_ida, to_ofl_pd(pd)->id);
    atomic_dec(&dev->num_pd);
    return 0;
}

/* ---- completion queues ------------------------------------------------- */

int ofl_iw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
                     struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibcq->device);
    struct ofl_iw_cq *cq = to_ofl_cq(ibcq);
    struct ib_ucontext *uctx = NULL;
    struct siw_uresp_create_cq uresp = {};
    size_t ulen = 0;
    enum ofl_err e;
    u32 size;
    int rv;

    if (attr->flags)
        return -EOPNOTSUPP;
    if (attr->cqe < 1 || attr->cqe > OFL_IW_MAX_CQE)
        return -EINVAL;
    if (udata) {
        struct ofl_iw_ucontext *octx =
            rdma_udata_to_drv_context(udata, struct ofl_iw_ucontext, base);

        uctx = octx ? &octx->base : NULL;
        if (!uctx || udata->outlen < sizeof(uresp))
            return -EINVAL;
    }
    if (atomic_inc_return(&dev->num_cq) > OFL_IW_MAX_CQ) {
        rv = -ENOMEM;
        goto err_count;
    }
    size = roundup_pow_of_two(attr->cqe);
    spin_lock_init(&cq->lock);
    cq->num_cqe = size;
    cq->ring = kvcalloc(size, sizeof(*cq->ring), GFP_KERNEL);
    if (!cq->ring) {
        rv = -ENOMEM;
        goto err_count;
    }
    rv = xa_alloc(&dev->cq_xa, &cq->id, cq, XA_LIMIT(1, OFL_IW_MAX_CQ),
                  GFP_KERNEL);
    if (rv)
        goto err_ring;
    /* the core's notify hook names the CQ by its id */
    e = ofl_cq_init(&cq->core, cq->ring, size, &dev->lp.port, cq->id);
    if (e != OFL_OK) {
        ibdev_warn(ibcq->device, "ofl_cq_init: %s\n", ofl_strerror(e));
        rv = -EINVAL;
        goto err_xa;
    }
    if (uctx) {
        ulen = size * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
        cq->uring = vmalloc_user(ulen);
        if (!cq->uring) {
            rv = -ENOMEM;
            goto err_xa;
        }
        cq->uctrl = (struct siw_cq_ctrl *)&cq->uring[size];
        cq->uentry = ofl_iw_mmap_insert(uctx, cq->uring, ulen,
                                        &uresp.cq_key);
        if (!cq->uentry) {
            vfree(cq->uring);
            rv = -ENOMEM;
            goto err_xa;
        }
        uresp.cq_id = cq->id;
        uresp.num_cqe = size;
        rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
        if (rv)
            goto err_mmap;
    }
    ibcq->cqe = size;
    return 0;

err_mmap:
    rdma_user_mmap_entry_remove(cq->uentry); /* frees cq->uring */
err_xa:
    xa_erase(&dev->cq_xa, cq->id);
err_ring:
    kvfree(cq->ring);
err_count:
    atomic_dec(&dev->num_cq);
    return rv;
}

int ofl_iw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibcq->device);
    struct ofl_iw_cq *cq = to_ofl_cq(ibcq);

    /* The core refuses to destroy a CQ a QP still uses (its usecnt). */
    xa_erase(&dev->cq_xa, cq->id);
    if (cq->uentry)
        rdma_user_mmap_entry_remove(cq->uentry); /* frees cq->uring */
    kvfree(cq->ring);
    atomic_dec(&dev->num_cq);
    return 0;
}

static const enum ib_wc_status ofl_iw_wc_status[] = {
    [OFL_WC_SUCCESS] = IB_WC_SUCCESS,
    [OFL_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
    [OFL_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
    [OFL_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
    [OFL_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
    [OFL_WC_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
    [OFL_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
    [OFL_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
    [OFL_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
    [OFL_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
    [OFL_WC_REM_OP_ERR] = IB_WC_REM_OP_ERR,
    [OFL_WC_FATAL_ERR] = IB_WC_FATAL_ERR,
    [OFL_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
    [OFL_WC_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
};

static enum ib_wc_opcode ofl_iw_wc_opcode(u8 op)
{
    switch (op) {
    case OFL_QP_OP_WRITE:
    case OFL_QP_OP_WRITE_IMM:
        return IB_WC_RDMA_WRITE;
    case OFL_QP_OP_READ:
        return IB_WC_RDMA_READ;
    case OFL_QP_OP_ATOMIC_FADD:
        return IB_WC_FETCH_ADD;
    case OFL_QP_OP_ATOMIC_CSWAP:
        return IB_WC_COMP_SWAP;
    case OFL_QP_OP_BIND:
        return IB_WC_BIND_MW;
    case OFL_QP_OP_FAST_REG:
    case OFL_QP_OP_REG_SEND:
        return IB_WC_REG_MR;
    case OFL_QP_OP_LOCAL_INV:
        return IB_WC_LOCAL_INV;
    case OFL_QP_OP_RECV:
        return IB_WC_RECV;
    case OFL_QP_OP_RECV_IMM:
        return IB_WC_RECV_RDMA_WITH_IMM;
    default: /* SEND, SEND_INV */
        return IB_WC_SEND;
    }
}

static void ofl_iw_cqe_to_wc(struct ofl_iw_dev *dev, const struct ofl_cqe *c,
                             struct ib_wc *wc)
{
    struct ofl_iw_qp *qp;

    memset(wc, 0, sizeof(*wc));
    wc->wr_id = c->wr_id;
    wc->status = c->status < ARRAY_SIZE(ofl_iw_wc_status) ?
                 ofl_iw_wc_status[c->status] : IB_WC_GENERAL_ERR;
    wc->opcode = ofl_iw_wc_opcode(c->opcode);
    wc->byte_len = c->byte_len;
    if (c->flags & OFL_CQE_INV) {
        wc->wc_flags |= IB_WC_WITH_INVALIDATE;
        wc->ex.invalidate_rkey = c->stag;
    } else if (c->flags & OFL_CQE_IMM) {
        /* verbs carry 4 bytes of immediate data, RFC 7306 eight: the
         * low 32 bits */
        wc->wc_flags |= IB_WC_WITH_IMM;
        wc->ex.imm_data = cpu_to_be32((u32)c->imm);
    }
    /* The QP by its number; NULL once it was destroyed (its flushed
     * completions may outlive it in a kernel CQ). */
    qp = xa_load(&dev->qp_xa, c->qpn);
    wc->qp = qp ? &qp->base : NULL;
}

/* Raises the CQ error event once the core reported an overrun. */
static void ofl_iw_cq_overrun(struct ofl_iw_cq *cq)
{
    struct ib_event ev = {
        .device = cq->base.device,
        .event = IB_EVENT_CQ_ERR,
        .element.cq = &cq->base,
    };

    if (cq->base.event_handler)
        cq->base.event_handler(&ev, cq->base.cq_context);
}

/* ib_poll_cq: kernel consumers, and the uverbs poll command. It reads the
 * core's CQ only, never the ring user space can write. */
int ofl_iw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
    struct ofl_iw_cq *cq = to_ofl_cq(ibcq);
    enum ofl_err e = OFL_OK;
    unsigned long flags;
    struct ofl_cqe c;
    u32 n;
    int i;

    for (i = 0; i < num;) {
        spin_lock_irqsave(&cq->lock, flags);
        e = ofl_cq_poll(&cq->core, &c, 1, &n);
        spin_unlock_irqrestore(&cq->lock, flags);
        if (n == 0)
            break;
        /* the device's own work (ofl_iw_read_inv, ofl_iw_qp_nudge) is
         * OFL_QP_WR_SILENT: none of its completions comes here, so every
         * wr_id is the consumer's, ~0 too */
        ofl_iw_cqe_to_wc(to_ofl_dev(ibcq->device), &c, &wc[i++]);
    }
    if (e == OFL_E_QP_CQ_OVERRUN) {
        /* the core keeps reporting it: the event goes out once */
        if (!test_and_set_bit(OFL_IW_CQ_OVERRUN_SENT, &cq->bits))
            ofl_iw_cq_overrun(cq);
        if (i == 0)
            return -EOVERFLOW;
    }
    return i;
}

int ofl_iw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
    struct ofl_iw_cq *cq = to_ofl_cq(ibcq);
    bool solicited = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED;
    unsigned long irqf;
    u32 waiting;

    spin_lock_irqsave(&cq->lock, irqf);
    ofl_cq_arm(&cq->core, solicited ? OFL_CQ_ARM_SOLICITED : OFL_CQ_ARM_ANY);
    waiting = ofl_cq_count(&cq->core);
    spin_unlock_irqrestore(&cq->lock, irqf);
    return (flags & IB_CQ_REPORT_MISSED_EVENTS) && waiting ? 1 : 0;
}

/* The port's notify hook: the core raises vector (a CQ id) when a CQE
 * matched the CQ's arming. It runs inside a core call the glue makes with
 * the CQ's lock held, and a completion handler may call back into the CQ
 * (ib_req_notify_cq takes that lock): so the event is only recorded here,
 * and every path that calls the core under cq->lock calls
 * ofl_iw_cq_deliver once it dropped the lock. */
void ofl_iw_cq_notify(void *drv, u32 vector)
{
    struct ofl_iw_dev *dev = drv;
    struct ofl_iw_cq *cq = xa_load(&dev->cq_xa, vector);

    if (cq)
        set_bit(OFL_IW_CQ_EVENT, &cq->bits);
}

/* Calls the CQ's completion handler for an event the core raised. No lock
 * of the CQ may be held. */
void ofl_iw_cq_deliver(struct ofl_iw_cq *cq)
{
    if (test_and_clear_bit(OFL_IW_CQ_EVENT, &cq->bits) &&
        cq->base.comp_handler)
        cq->base.comp_handler(&cq->base, cq->base.cq_context);
}

/*
 * Moves the core's completions into a user CQ's ring, while its slots are
 * free (libsiw clears SIW_WQE_VALID when it took one); the rest waits in
 * the core. libsiw arms by writing siw_cq_ctrl.flags, which the core
 * cannot see: that arming goes to the core first (ofl_cq_arm), so that it
 * decides for completions still to come; when completions were moved
 * while the CQ is armed the consumer may have polled before they arrived,
 * so the event is raised (a spurious event is allowed, a lost one is not).
 * Returns the number moved. Called after every QP call that may have
 * produced completions (ofl_iw_qp.c).
 */
u32 ofl_iw_cq_to_user(struct ofl_iw_cq *cq)
{
    unsigned long irqf;
    struct ofl_cqe c;
    u32 moved = 0, n, uflags;

    if (!cq->uring)
        return 0;
    spin_lock_irqsave(&cq->lock, irqf);
    uflags = xchg(&cq->uctrl->flags, SIW_NOTIFY_NOT);
    if (uflags & SIW_NOTIFY_NEXT_COMPLETION)
        ofl_cq_arm(&cq->core, OFL_CQ_ARM_ANY);
    else if (uflags & SIW_NOTIFY_SOLICITED)
        ofl_cq_arm(&cq->core, OFL_CQ_ARM_SOLICITED);
    while (moved < cq->num_cqe) {
        struct siw_cqe *slot = &cq->uring[cq->uput & (cq->num_cqe - 1)];
        u8 f;

        if (READ_ONCE(slot->flags) & SIW_WQE_VALID)
            break; /* user space has not taken it yet */
        ofl_cq_poll(&cq->core, &c, 1, &n);
        if (n == 0)
            break;
        f = ofl_iw_cqe_to_siw(&c, c.qpn, slot);
        if (!f)
            continue; /* no user form: not posted from a user ring */
        smp_wmb(); /* the entry before its VALID flag */
        WRITE_ONCE(slot->flags, f);
        cq->uput++;
        moved++;
    }
    if (moved) {
        /* An arming libsiw wrote after the xchg above, while the entries
         * were being moved: the consumer may have polled before they were
         * visible and now sleeps. So the flags are read again after the
         * entries (siw reads them only after its entry, siw_cq_notify_now),
         * and such an arming raises the event too (spurious at worst). */
        smp_mb(); /* the VALID flags above before the flags below */
        uflags = xchg(&cq->uctrl->flags, SIW_NOTIFY_NOT);
        if (cq->core.arm != OFL_CQ_ARM_NONE ||
            (uflags & (SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION))) {
            ofl_cq_arm(&cq->core, OFL_CQ_ARM_NONE);
            set_bit(OFL_IW_CQ_EVENT, &cq->bits);
        }
    }
    spin_unlock_irqrestore(&cq->lock, irqf);
    ofl_iw_cq_deliver(cq);
    return moved;
}
