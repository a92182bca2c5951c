// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_mr - memory registration: a user region is pinned
 * (ib_umem_get) and becomes a TPT region over a run of direct ATT slots
 * holding its pages' physical addresses (ofl_tpt_reg_pages: allocation,
 * ATT words and registration in one step, undone whole on failure); its
 * STag is both lkey and rkey. The checks on use (FIG. 15, 18A) are the
 * core's.
 *
 * ATT slots: each MR takes one run from the core's slot pool
 * (ofl_tpt_att_alloc on dev->att_pool, under dev->lock) and gives that
 * same run back after ofl_tpt_dereg, as the pool's contract asks of a
 * provider whose entries are re-registered by WQEs; the TPT has an owner
 * table (ofl_tpt_att_owners, ofl_iw_main.c), so no registration reaches
 * slots another entry holds.
 *
 * Kernel consumers (no udata):
 * - get_dma_mr, behind every kernel PD's local_dma_lkey: a physical
 *   region (ofl_tpt_reg_physical: the TO is the physical address, local
 *   rights only; remote rights over all of memory are refused). The
 *   device does DMA by virtual address (no dma_device: ib_uses_virt_dma),
 *   so a kernel SGE holds a kernel virtual address; ofl_iw_kernel_sge
 *   turns those of the DMA lkey into physical addresses at post time,
 *   and refuses what is not in the linear map (vmalloc, say).
 * - alloc_mr + map_mr_sg + IB_WR_REG_MR (fast registration): alloc_mr
 *   takes an INVALID region STag and 2 x max_num_sg ATT slots; map_mr_sg
 *   keeps the page list; the REG_MR work request writes it into the half
 *   of the slots the current registration does not use and posts the
 *   core's FAST_REG, which checks and registers in SQ order. Local
 *   invalidate, remote invalidate (Send with Invalidate) and the key
 *   rules are the core's.
 * Not done: memory windows.
 */
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

/* A registration the core refused: no room (entries or slots), or a
 * request it calls malformed */
static int ofl_iw_tpt_errno(enum ofl_err e)
{
    return e == OFL_E_TPT_FULL || e == OFL_E_TPT_ATT_FULL ? -ENOMEM : -EINVAL;
}

/* A registered MR: its slots, and its STag as both keys */
static void ofl_iw_mr_keys(struct ofl_iw_mr *mr, u32 att_base, u32 att_count)
{
    mr->att_base = att_base;
    mr->att_count = att_count;
    mr->base.lkey = mr->stag;
    mr->base.rkey = mr->stag;
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
    u32 base;
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
    e = ofl_tpt_att_alloc(&dev->att_pool, n, &base);
    if (e == OFL_OK) {
        desc.att_base = base;
        e = ofl_tpt_reg_pages(&dev->tpt, mr->pd, &desc, pages, n, &mr->stag);
        if (e != OFL_OK)
            (void)ofl_tpt_att_free(&dev->att_pool, base, n);
    }
    spin_unlock_irqrestore(&dev->lock, flags);
    kvfree(pages);
    pages = NULL;
    if (e != OFL_OK) {
        ibdev_dbg(ibpd->device, "ofl_tpt_reg_pages: %s\n", ofl_strerror(e));
        rv = ofl_iw_tpt_errno(e);
        goto err_umem;
    }
    ofl_iw_mr_keys(mr, base, n);
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
    if (ofl_tpt_dereg(&dev->tpt, mr->stag, mr->pd) == OFL_OK)
        (void)ofl_tpt_att_free(&dev->att_pool, mr->att_base, mr->att_count);
    spin_unlock_irqrestore(&dev->lock, flags);
err_pages:
    kvfree(pages);
err_umem:
    ib_umem_release(mr->umem);
err_mr:
    kfree(mr);
    return ERR_PTR(rv);
}

/* ---- kernel consumers ----------------------------------------------------- */

/* A kernel virtual address range in the linear map -> its physical
 * address (the linear map is physically contiguous). */
static int ofl_iw_kva_to_pa(u64 addr, u64 len, u64 *pa)
{
    const void *p = (const void *)(uintptr_t)addr;

    if (len == 0 || addr + len - 1 < addr || !virt_addr_valid(p) ||
        !virt_addr_valid(p + len - 1))
        return -EINVAL;
    *pa = virt_to_phys((void *)p);
    return 0;
}

/* A kernel work request's SGE in the core's form: an SGE of the PD's DMA
 * lkey names kernel memory by virtual address, which the physical region
 * wants as a physical address. Anything else passes as it is: the core
 * checks it against the TPT. */
int ofl_iw_kernel_sge(struct ofl_iw_qp *qp, const struct ib_sge *ib,
                      struct ofl_qp_sge *out)
{
    struct ib_pd *pd = qp->base.pd;

    out->addr = ib->addr;
    out->len = ib->length;
    out->stag = ib->lkey;
    if (pd && pd->__internal_mr && ib->lkey == pd->local_dma_lkey &&
        ib->length != 0)
        return ofl_iw_kva_to_pa(ib->addr, ib->length, &out->addr);
    return 0;
}

#define OFL_IW_LOCAL_ACCESS (IB_ACCESS_LOCAL_WRITE)

/* ib_alloc_pd's DMA MR: a physical region of the PD. Remote rights over
 * all of memory (IB_PD_UNSAFE_GLOBAL_RKEY) are refused. */
struct ib_mr *ofl_iw_get_dma_mr(struct ib_pd *ibpd, int access)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibpd->device);
    struct ofl_iw_mr *mr;
    unsigned long flags;
    enum ofl_err e;

    access &= ~IB_ACCESS_OPTIONAL;
    if (access & ~OFL_IW_LOCAL_ACCESS)
        return ERR_PTR(-EOPNOTSUPP);
    mr = kzalloc(sizeof(*mr), GFP_KERNEL);
    if (!mr)
        return ERR_PTR(-ENOMEM);
    mr->pd = to_ofl_pd(ibpd)->id;
    spin_lock_irqsave(&dev->lock, flags);
    e = ofl_tpt_reg_physical(&dev->tpt, mr->pd, ofl_iw_mr_access(access),
                             &mr->stag);
    spin_unlock_irqrestore(&dev->lock, flags);
    if (e != OFL_OK) {
        ibdev_dbg(ibpd->device, "ofl_tpt_reg_physical: %s\n",
                  ofl_strerror(e));
        kfree(mr);
        return ERR_PTR(ofl_iw_tpt_errno(e));
    }
    ofl_iw_mr_keys(mr, 0, 0); /* rkey too: the core refuses every remote use */
    return &mr->base;
}

/* A fast-registration MR: an allocated region STag, registered once over
 * cleared slots and invalidated at once (under the lock: nothing can use
 * it), so that its first REG_MR may change the key as every kernel ULP
 * does (ib_inc_rkey) and the core's rule "a new registration, a new key"
 * holds from the first. */
struct ib_mr *ofl_iw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
                              u32 max_num_sg)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibpd->device);
    struct ofl_tpt_region_desc desc = {};
    struct ofl_iw_mr *mr;
    unsigned long flags;
    u32 base;
    u32 i, slots;
    enum ofl_err e;
    int rv;

    if (type != IB_MR_TYPE_MEM_REG)
        return ERR_PTR(-EOPNOTSUPP);
    if (max_num_sg == 0 || max_num_sg > OFL_IW_MAX_FR_PAGES)
        return ERR_PTR(-EINVAL);
    mr = kzalloc(sizeof(*mr), GFP_KERNEL);
    if (!mr)
        return ERR_PTR(-ENOMEM);
    mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
    if (!mr->pages) {
        rv = -ENOMEM;
        goto err_mr;
    }
    mr->max_pages = max_num_sg;
    mr->pd = to_ofl_pd(ibpd)->id;
    slots = 2 * max_num_sg;

    spin_lock_irqsave(&dev->lock, flags);
    e = ofl_tpt_att_alloc(&dev->att_pool, slots, &base);
    if (e != OFL_OK)
        goto unlock;
    /* no page of an earlier owner stays reachable through these slots */
    for (i = 0; i < slots; i++)
        dev->att[base + i] = 0;
    e = ofl_tpt_alloc(&dev->tpt, OFL_TPT_REGION, mr->pd, 0, &mr->stag);
    if (e != OFL_OK)
        goto free_slots;
    desc.va = 0;
    desc.len = PAGE_SIZE;
    desc.att_base = base;
    desc.att_count = 1;
    desc.page_shift = PAGE_SHIFT;
    desc.att_kind = OFL_TPT_ATT_DIRECT;
    desc.access = OFL_TPT_LOCAL_READ;
    desc.flags = OFL_TPT_F_INVALIDATABLE;
    e = ofl_tpt_register(&dev->tpt, mr->stag, mr->pd, &desc);
    if (e == OFL_OK)
        e = ofl_tpt_invalidate_local(&dev->tpt, mr->stag, mr->pd);
    if (e != OFL_OK) {
        (void)ofl_tpt_dereg(&dev->tpt, mr->stag, mr->pd);
        goto free_slots;
    }
    goto unlock;
free_slots:
    (void)ofl_tpt_att_free(&dev->att_pool, base, slots);
unlock:
    spin_unlock_irqrestore(&dev->lock, flags);
    if (e != OFL_OK) {
        ibdev_dbg(ibpd->device, "alloc_mr: %s\n", ofl_strerror(e));
        rv = ofl_iw_tpt_errno(e);
        goto err_pages;
    }
    ofl_iw_mr_keys(mr, base, slots);
    return &mr->base;

err_pages:
    kfree(mr->pages);
err_mr:
    kfree(mr);
    return ERR_PTR(rv);
}

/* ib_sg_to_pages' callback: one page of mr->page_size (the device's
 * PAGE_SIZE only), by physical address */
static int ofl_iw_set_page(struct ib_mr *ibmr, u64 addr)
{
    struct ofl_iw_mr *mr = to_ofl_mr(ibmr);
    u64 pa;

    if (mr->npages == mr->max_pages)
        return -ENOMEM;
    if (ofl_iw_kva_to_pa(addr, PAGE_SIZE, &pa) || (pa & ~PAGE_MASK))
        return -EINVAL;
    mr->pages[mr->npages++] = pa;
    return 0;
}

int ofl_iw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
                     unsigned int *sg_offset)
{
    struct ofl_iw_mr *mr = to_ofl_mr(ibmr);

    if (!mr->pages || ibmr->page_size != PAGE_SIZE)
        return -EINVAL;
    mr->npages = 0;
    return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, ofl_iw_set_page);
}

/* IB_WR_REG_MR -> the core's FAST_REG (caller holds dev->lock): the page
 * list goes into the half of the MR's slots the live registration does
 * not use; the core checks key, PD, state and range when the WQE runs.
 * The half changes only when the work request was posted
 * (ofl_iw_reg_mr_posted): one the send queue refused leaves the next
 * REG_MR the same half, never the live one. */
int ofl_iw_reg_mr_wr(struct ofl_iw_dev *dev, const struct ib_reg_wr *reg,
                     struct ofl_qp_wr *wr)
{
    struct ofl_iw_mr *mr = to_ofl_mr(reg->mr);
    u64 fpo, iova = reg->mr->iova, len = reg->mr->length;
    u32 base, i;

    if (!mr->pages || mr->npages == 0 || len == 0)
        return -EINVAL;
    fpo = iova & ~PAGE_MASK;
    if (fpo + len > (u64)mr->npages << PAGE_SHIFT)
        return -EINVAL;
    base = mr->att_base + mr->half * mr->max_pages;
    for (i = 0; i < mr->npages; i++)
        dev->att[base + i] = mr->pages[i] | OFL_TPT_ATT_PRESENT;
    wr->opcode = OFL_QP_OP_FAST_REG;
    wr->stag = (mr->stag & ~0xFFu) | reg->key;
    wr->reg.va = iova;
    wr->reg.len = len;
    wr->reg.att_base = base;
    wr->reg.att_count = mr->npages;
    wr->reg.fpo = (u32)fpo;
    wr->reg.page_shift = PAGE_SHIFT;
    wr->reg.att_kind = OFL_TPT_ATT_DIRECT;
    wr->reg.access = ofl_iw_mr_access(reg->access);
    wr->reg.flags = OFL_TPT_F_INVALIDATABLE;
    return 0;
}

/* The REG_MR of ofl_iw_reg_mr_wr was posted (dev->lock held since): the
 * next one writes the other half. */
void ofl_iw_reg_mr_posted(const struct ib_reg_wr *reg)
{
    to_ofl_mr(reg->mr)->half ^= 1;
}

int ofl_iw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibmr->device);
    struct ofl_iw_mr *mr = to_ofl_mr(ibmr);
    unsigned long flags;
    enum ofl_err e;

    /* windows bound to the region die with it (the core's generation) */
    spin_lock_irqsave(&dev->lock, flags);
    /* a fast-registration MR's key is its consumer's (ib_update_fast_reg_key
     * at each REG_MR): deregister under the key the entry holds now */
    if (mr->pages)
        mr->stag = ofl_stag_make(ofl_stag_index(mr->stag),
                                 dev->tpt_entries[ofl_stag_index(mr->stag)].key);
    e = ofl_tpt_dereg(&dev->tpt, mr->stag, mr->pd);
    if (e == OFL_OK)
        (void)ofl_tpt_att_free(&dev->att_pool, mr->att_base, mr->att_count);
    spin_unlock_irqrestore(&dev->lock, flags);
    if (e != OFL_OK) {
        /* cannot happen (the MR's own STag and PD); if it did, the entry
         * may still map the pages: they stay pinned and the slots taken */
        ibdev_warn(ibmr->device, "ofl_tpt_dereg %#x: %s\n", mr->stag,
                   ofl_strerror(e));
    } else if (mr->umem) {
        ib_umem_release(mr->umem);
    }
    kfree(mr->pages);
    kfree(mr);
    return 0;
}
