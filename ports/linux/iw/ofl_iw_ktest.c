// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_ktest - a kernel consumer of an ofl_iw device, for make
 * test-kmod-iw only: an ib_client whose add callback runs on every RDMA
 * device named ofl*, allocates PDs (each with its DMA MR) and CQs
 * through the kernel verbs (the path without udata: no user ring), polls
 * and arms a CQ, makes a kernel RC QP and drives its states, allocates
 * and maps a fast-registration MR, and logs one "ofl_iw_ktest: ok|FAIL
 * ..." line per check.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>

MODULE_DESCRIPTION("kernel verbs checks of ofl_iw devices (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static void ktest_check(bool ok, const char *what)
{
    pr_info("ofl_iw_ktest: %s %s\n", ok ? "ok  " : "FAIL", what);
}

/* A kernel RC QP: the states, ib_recv_wr / ib_send_wr translated, the
 * flushes at ERROR with wc.qp set, a WR the device refuses. */
static void ktest_qp(struct ib_device *dev, struct ib_pd *pd)
{
    struct ib_qp_init_attr ia = {};
    struct ib_qp_attr qa = {};
    struct ib_qp_init_attr qi;
    struct ib_sge sge = { .length = 64, .lkey = pd->local_dma_lkey };
    struct ib_sge vsge = { .length = 64, .lkey = pd->local_dma_lkey };
    struct ib_recv_wr vwr = { .wr_id = 0x70, .sg_list = &vsge, .num_sge = 1 };
    struct ib_recv_wr rwr = { .wr_id = 0x71, .sg_list = &sge, .num_sge = 1 };
    struct ib_send_wr swr = { .wr_id = 0x72, .sg_list = &sge, .num_sge = 1,
                              .opcode = IB_WR_SEND,
                              .send_flags = IB_SEND_SIGNALED };
    struct ib_atomic_wr awr = {};
    const struct ib_recv_wr *rbad;
    const struct ib_send_wr *sbad;
    struct ib_wc wc[4];
    struct ib_cq *cq;
    struct ib_qp *qp;
    void *buf, *vbuf;
    int n;

    /* kernel buffers by virtual address (the device does virtual DMA):
     * the linear map's are reachable through the DMA lkey, vmalloc's
     * are not */
    buf = kzalloc(64, GFP_KERNEL);
    vbuf = vzalloc(64);
    if (!buf || !vbuf)
        goto out_buf;
    sge.addr = (uintptr_t)buf;
    vsge.addr = (uintptr_t)vbuf;
    cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
    if (IS_ERR(cq))
        goto out_buf;
    ia.send_cq = cq;
    ia.recv_cq = cq;
    ia.qp_type = IB_QPT_RC;
    ia.sq_sig_type = IB_SIGNAL_REQ_WR;
    ia.cap.max_send_wr = 4;
    ia.cap.max_recv_wr = 4;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    qp = ib_create_qp(pd, &ia);
    ktest_check(!IS_ERR(qp), "kernel ib_create_qp(RC)");
    if (IS_ERR(qp))
        goto out_cq;
    qa.qp_state = IB_QPS_INIT;
    qa.port_num = 1;
    qa.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
    ktest_check(ib_modify_qp(qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
                                          IB_QP_PORT | IB_QP_ACCESS_FLAGS) == 0 &&
                ib_query_qp(qp, &qa, IB_QP_STATE, &qi) == 0 &&
                qa.qp_state == IB_QPS_INIT,
                "kernel ib_modify_qp -> INIT, ib_query_qp says INIT");
    ktest_check(ib_post_recv(qp, &rwr, &rbad) == 0,
                "kernel ib_post_recv in INIT (DMA lkey, kmalloc'ed buffer)");
    ktest_check(ib_post_recv(qp, &vwr, &rbad) == -EINVAL && rbad == &vwr,
                "kernel ib_post_recv of a vmalloc'ed buffer under the DMA lkey: -EINVAL, bad_wr");
    ktest_check(ib_post_send(qp, &swr, &sbad) == -ENOTCONN,
                "kernel ib_post_send in INIT: -ENOTCONN (as siw)");
    qa.qp_state = IB_QPS_ERR;
    ktest_check(ib_modify_qp(qp, &qa, IB_QP_STATE) == 0, "kernel ib_modify_qp -> ERROR");
    n = ib_poll_cq(cq, 4, wc);
    ktest_check(n == 1 && wc[0].wr_id == 0x71 && wc[0].status == IB_WC_WR_FLUSH_ERR &&
                wc[0].opcode == IB_WC_RECV && wc[0].qp == qp,
                "the receive is flushed: WR_FLUSH_ERR, RECV, wc.qp is the QP");
    n = ib_post_send(qp, &swr, &sbad);
    ktest_check(n == 0 && ib_poll_cq(cq, 4, wc) == 1 && wc[0].wr_id == 0x72 &&
                wc[0].status == IB_WC_WR_FLUSH_ERR && wc[0].opcode == IB_WC_SEND,
                "a send posted in ERROR is flushed (ib_drain_sq's way)");
    awr.wr.wr_id = 0x73;
    awr.wr.opcode = IB_WR_SEND_WITH_IMM; /* RFC 7306 has no such Send */
    awr.wr.sg_list = &sge;
    awr.wr.num_sge = 1;
    ktest_check(ib_post_send(qp, &awr.wr, &sbad) == -EINVAL && sbad == &awr.wr,
                "a Send with immediate data is refused with -EINVAL and named as bad_wr");
    ktest_check(ib_destroy_qp(qp) == 0, "kernel ib_destroy_qp");
out_cq:
    ib_free_cq(cq);
out_buf:
    vfree(vbuf);
    kfree(buf);
}

/* Fast registration's verbs: alloc_mr's limits, map_mr_sg of a kernel
 * buffer, dereg after a key change. */
static void ktest_frmr(struct ib_device *dev, struct ib_pd *pd)
{
    struct scatterlist sg;
    struct ib_mr *mr;
    void *buf;
    int n;

    mr = ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 4);
    ktest_check(IS_ERR(mr), "ib_alloc_mr(SG_GAPS) is refused");
    if (!IS_ERR(mr))
        ib_dereg_mr(mr);
    mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
                     dev->attrs.max_fast_reg_page_list_len + 1);
    ktest_check(IS_ERR(mr), "ib_alloc_mr beyond max_fast_reg_page_list_len is refused");
    if (!IS_ERR(mr))
        ib_dereg_mr(mr);
    buf = kzalloc(3 * PAGE_SIZE, GFP_KERNEL);
    mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
    ktest_check(!IS_ERR(mr) && mr->lkey == mr->rkey && mr->lkey != pd->local_dma_lkey,
                "ib_alloc_mr(MEM_REG, 4): an STag of its own");
    if (IS_ERR(mr) || !buf)
        goto out;
    sg_init_one(&sg, buf + 100, 2 * PAGE_SIZE);
    sg.dma_address = (uintptr_t)(buf + 100); /* virtual DMA */
    sg_dma_len(&sg) = 2 * PAGE_SIZE;
    n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
    ktest_check(n == 1 && mr->iova == (uintptr_t)(buf + 100) &&
                mr->length == 2 * PAGE_SIZE,
                "ib_map_mr_sg of 2 pages at offset 100: 1 entry, iova and length");
    n = ib_map_mr_sg(mr, &sg, 1, NULL, 2 * PAGE_SIZE);
    ktest_check(n < 0, "ib_map_mr_sg with a page size not the device's is refused");
    ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
    ktest_check(ib_dereg_mr(mr) == 0, "ib_dereg_mr after a key change");
out:
    kfree(buf);
}

static int ktest_add(struct ib_device *dev)
{
    struct ib_wc wc[4];
    struct ib_pd *pd;
    struct ib_cq *cq, *big;

    if (strncmp(dev_name(&dev->dev), "ofl", 3) != 0)
        return 0;
    ktest_check(dev->kverbs_provider,
                "a kernel verbs provider (every mandatory op: QPs, user MRs)");
    /* A kernel PD's local_dma_lkey is its DMA MR (get_dma_mr: a
     * physical region, local rights only) */
    pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
    ktest_check(IS_ERR(pd) && PTR_ERR(pd) == -EOPNOTSUPP,
                "ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) is refused (-EOPNOTSUPP)");
    if (!IS_ERR(pd))
        ib_dealloc_pd(pd);
    pd = ib_alloc_pd(dev, 0);
    ktest_check(!IS_ERR(pd) && pd->local_dma_lkey != 0,
                "kernel ib_alloc_pd: a local_dma_lkey (DMA MR)");
    if (IS_ERR(pd))
        return 0;

    cq = ib_alloc_cq(dev, NULL, 100, 0, IB_POLL_DIRECT);
    ktest_check(!IS_ERR(cq) && cq->cqe == 128,
                "kernel ib_alloc_cq(100): 128 entries");
    if (!IS_ERR(cq)) {
        ktest_check(ib_poll_cq(cq, 4, wc) == 0, "kernel ib_poll_cq: empty");
        ktest_check(ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
                                             IB_CQ_REPORT_MISSED_EVENTS) == 0,
                    "kernel ib_req_notify_cq(NEXT, REPORT_MISSED): none missed");
        ktest_check(ib_req_notify_cq(cq, IB_CQ_SOLICITED) == 0,
                    "kernel ib_req_notify_cq(SOLICITED)");
        ib_free_cq(cq);
        ktest_check(true, "kernel ib_free_cq");
    }
    ktest_qp(dev, pd);
    ktest_frmr(dev, pd);
    ib_dealloc_pd(pd);
    big = ib_alloc_cq(dev, NULL, dev->attrs.max_cqe + 1, 0, IB_POLL_DIRECT);
    ktest_check(IS_ERR(big), "kernel ib_alloc_cq beyond max_cqe is refused");
    if (!IS_ERR(big))
        ib_free_cq(big);
    return 0;
}

static void ktest_remove(struct ib_device *dev, void *data)
{
}

/* Kernel ULPs see a device only once it has every mandatory kernel verb
 * (ib_device.kverbs_provider): this client asks for every device anyway,
 * as ib_uverbs does. */
static struct ib_client ktest_client = {
    .name = "ofl_iw_ktest",
    .add = ktest_add,
    .remove = ktest_remove,
    .no_kverbs_req = true,
};

static int __init ktest_init(void)
{
    return ib_register_client(&ktest_client);
}

static void __exit ktest_exit(void)
{
    ib_unregister_client(&ktest_client);
}

module_init(ktest_init);
module_exit(ktest_exit);
