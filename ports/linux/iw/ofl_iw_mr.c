// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_mr - memory registration: a user region is pinned
 * (ib_umem_get) and becomes a TPT region over a run of direct ATT slots
 * holding its pages' physical addresses (ofl_tpt_reg_pages: allocation,
 * ATT words and registration in one step, undone whole on failure); its
 * STag is both lkey and rkey. The checks on use (FIG. 15, 18A) are the
 * core's.
 *
 * ATT slots come from a bitmap of the device's (dev->att_map, under
 * dev->lock). The core's slot pool and owner table (ofl_tpt_att_pool,
 * ofl_tpt_att_owners) are meant for this; they are not on this branch's
 * core yet, and replace the bitmap when they are.
 *
 * Not done: get_dma_mr (a kernel PD's local_dma_lkey needs an STag that
 * maps all of memory: the core has no such physical STag), alloc_mr +
 * map_mr_sg (fast registration), memory windows.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
#include "ofl_iw.h"

static u8 ofl_iw_mr_access(int access)
{
    u8 a = OFL_TPT_LOCAL_READ;

    if (access & IB_ACCESS_LOCAL_WRITE)
        a |= OFL_TPT_LOCAL_WRITE;
    if (access & IB_ACCESS_REMOTE_WRITE)
        a |= OFL_TPT_REMOTE_WRITE;
    if (access & IB_ACCESS_REMOTE_READ)
        a |= OFL_TPT_REMOTE_READ;
    if (access & IB_ACCESS_REMOTE_ATOMIC)
        a |= OFL_TPT_REMOTE_ATOMIC;
    if (access & IB_ACCESS_MW_BIND)
        a |= OFL_TPT_BIND_WINDOW;
    return a;
}

#define OFL_IW_MR_ACCESS \
    (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
     IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND)

struct ib_mr *ofl_iw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
                                 u64 virt_addr, int access,
                                 struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibpd->device);
    struct ofl_tpt_region_desc desc = {};
    struct siw_uresp_reg_mr uresp = {};
    struct sg_page_iter piter;
    struct ofl_iw_mr *mr;
    unsigned long flags;
    unsigned long base;
    u64 *pages;
    size_t n, i = 0;
    enum ofl_err e;
    int rv;

    /* Optional access flags (relaxed ordering: IB_ACCESS_OPTIONAL in
     * ib_verbs.h) are best effort by definition: a device without them
     * ignores them, as siw and rxe do (perftest asks for relaxed ordering
     * whenever the verbs library offers it). On-demand paging and the
     * other required flags: not supported. */
    access &= ~IB_ACCESS_OPTIONAL;
    if (access & ~OFL_IW_MR_ACCESS)
        return ERR_PTR(-EOPNOTSUPP);
    if (!length || start + length < start)
        return ERR_PTR(-EINVAL);
    /* more pages than ATT slots: refused before anything is pinned */
    if ((ALIGN(start + length, PAGE_SIZE) - (start & PAGE_MASK)) >> PAGE_SHIFT >
        OFL_IW_ATT_SLOTS)
        return ERR_PTR(-ENOMEM);
    if (udata && udata->outlen && udata->outlen < sizeof(uresp))
        return ERR_PTR(-EINVAL);
    mr = kzalloc(sizeof(*mr), GFP_KERNEL);
    if (!mr)
        return ERR_PTR(-ENOMEM);
    mr->umem = ib_umem_get(ibpd->device, start, length, access);
    if (IS_ERR(mr->umem)) {
        rv = PTR_ERR(mr->umem);
        goto err_mr;
    }
    n = ib_umem_num_pages(mr->umem);
    if (n == 0 || n > OFL_IW_ATT_SLOTS) {
        rv = -ENOMEM;
        goto err_umem;
    }
    pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
    if (!pages) {
        rv = -ENOMEM;
        goto err_umem;
    }
    /* the pinned pages by physical address: the port reaches them
     * through kmap_local_page (ofl_linux) */
    for_each_sgtable_page(&mr->umem->sgt_append.sgt, &piter, 0) {
        if (i == n)
            break;
        pages[i++] = page_to_phys(sg_page_iter_page(&piter));
    }
    if (i != n) {
        rv = -EFAULT;
        goto err_pages;
    }

    desc.va = virt_addr;
    desc.len = length;
    desc.fpo = ib_umem_offset(mr->umem);
    desc.page_shift = PAGE_SHIFT;
    desc.att_kind = OFL_TPT_ATT_DIRECT;
    desc.access = ofl_iw_mr_access(access);
    mr->pd = to_ofl_pd(ibpd)->id;

    spin_lock_irqsave(&dev->lock, flags);
    base = bitmap_find_next_zero_area(dev->att_map, OFL_IW_ATT_SLOTS, 0, n, 0);
    if (base >= OFL_IW_ATT_SLOTS) {
        e = OFL_E_TPT_FULL;
    } else {
        desc.att_base = base;
        e = ofl_tpt_reg_pages(&dev->tpt, mr->pd, &desc, pages, n, &mr->stag);
        if (e == OFL_OK)
            bitmap_set(dev->att_map, base, n);
    }
    spin_unlock_irqrestore(&dev->lock, flags);
    kvfree(pages);
    pages = NULL;
    if (e != OFL_OK) {
        ibdev_dbg(ibpd->device, "ofl_tpt_reg_pages: %s\n", ofl_strerror(e));
        rv = e == OFL_E_TPT_FULL ? -ENOMEM : -EINVAL;
        goto err_umem;
    }
    mr->att_base = base;
    mr->att_count = n;
    mr->base.lkey = mr->stag;
    mr->base.rkey = mr->stag;
    mr->base.page_size = PAGE_SIZE;

    /* siw's response; the key byte libsiw asks for (siw_ureq_reg_mr) is
     * not honoured: the core picks an STag's first key (ofl_tpt_alloc) */
    if (udata && udata->outlen) {
        uresp.stag = mr->stag;
        rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
        if (rv)
            goto err_dereg;
    }
    return &mr->base;

err_dereg:
    spin_lock_irqsave(&dev->lock, flags);
    (void)ofl_tpt_dereg(&dev->tpt, mr->stag, mr->pd);
    bitmap_clear(dev->att_map, mr->att_base, mr->att_count);
    spin_unlock_irqrestore(&dev->lock, flags);
err_pages:
    kvfree(pages);
err_umem:
    ib_umem_release(mr->umem);
err_mr:
    kfree(mr);
    return ERR_PTR(rv);
}

int ofl_iw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibmr->device);
    struct ofl_iw_mr *mr = to_ofl_mr(ibmr);
    unsigned long flags;
    enum ofl_err e;

    /* windows bound to the region die with it (the core's generation) */
    spin_lock_irqsave(&dev->lock, flags);
    e = ofl_tpt_dereg(&dev->tpt, mr->stag, mr->pd);
    if (e == OFL_OK)
        bitmap_clear(dev->att_map, mr->att_base, mr->att_count);
    spin_unlock_irqrestore(&dev->lock, flags);
    if (e != OFL_OK) {
        /* cannot happen (the MR's own STag and PD); if it did, the entry
         * may still map the pages: they stay pinned and the slots taken */
        ibdev_warn(ibmr->device, "ofl_tpt_dereg %#x: %s\n", mr->stag,
                   ofl_strerror(e));
    } else {
        ib_umem_release(mr->umem);
    }
    kfree(mr);
    return 0;
}
