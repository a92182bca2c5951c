// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_ktest - a kernel consumer of an ofl_iw device, for make
 * test-kmod-iw only: an ib_client whose add callback runs on every RDMA
 * device named ofl*, allocates a PD and CQs through the kernel verbs
 * (the path without udata: no user ring), polls and arms a CQ, makes a
 * kernel RC QP (on a test-made PD) and drives its states, and logs
 * one "ofl_iw_ktest: ok|FAIL ..." line per check.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

MODULE_DESCRIPTION("kernel verbs checks of ofl_iw devices (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static void ktest_check(bool ok, const char *what)
{
    pr_info("ofl_iw_ktest: %s %s\n", ok ? "ok  " : "FAIL", what);
}

/* The RDMA core's own (drivers/infiniband/core/restrack.h, not a public
 * header; the symbols are exported): ib_alloc_pd's bookkeeping. */
void rdma_restrack_new(struct rdma_restrack_entry *res,
                       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
                            const char *caller);
void rdma_restrack_add(struct rdma_restrack_entry *res);

/*
 * A kernel PD made as ib_alloc_pd makes it, without the DMA MR the device
 * cannot give yet (get_dma_mr): the kernel QP paths can then be checked.
 * Test only: local_dma_lkey stays 0 (no STag), so nothing could move.
 */
static struct ib_pd *ktest_pd(struct ib_device *dev)
{
    struct ib_pd *pd = rdma_zalloc_drv_obj(dev, ib_pd);

    if (!pd)
        return NULL;
    pd->device = dev;
    rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
    rdma_restrack_set_name(&pd->res, KBUILD_MODNAME);
    if (dev->ops.alloc_pd(pd, NULL)) {
        rdma_restrack_put(&pd->res);
        kfree(pd);
        return NULL;
    }
    rdma_restrack_add(&pd->res);
    return pd;
}

/* A kernel RC QP: the states, ib_recv_wr / ib_send_wr translated, the
 * flushes at ERROR with wc.qp set, a WR the device refuses. */
static void ktest_qp(struct ib_device *dev)
{
    struct ib_qp_init_attr ia = {};
    struct ib_qp_attr qa = {};
    struct ib_qp_init_attr qi;
    struct ib_sge sge = { .addr = 0x1000, .length = 64, .lkey = 0 };
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
    struct ib_pd *pd;
    int n;

    pd = ktest_pd(dev);
    ktest_check(pd != NULL, "a kernel PD (test-made, no DMA MR)");
    if (!pd)
        return;
    cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
    if (IS_ERR(cq))
        goto out_pd;
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
    ktest_check(ib_post_recv(qp, &rwr, &rbad) == 0, "kernel ib_post_recv in INIT");
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
    awr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
    awr.wr.sg_list = &sge;
    awr.wr.num_sge = 1;
    ktest_check(ib_post_send(qp, &awr.wr, &sbad) == -EINVAL && sbad == &awr.wr,
                "an atomic WR is refused with -EINVAL and named as bad_wr");
    ktest_check(ib_destroy_qp(qp) == 0, "kernel ib_destroy_qp");
out_cq:
    ib_free_cq(cq);
out_pd:
    ib_dealloc_pd(pd);
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
    /* A kernel PD needs a DMA MR (ops.get_dma_mr) for its local_dma_lkey:
     * get_dma_mr is not done (no physical STag in the core), so it must
     * fail cleanly, and kernel ULPs fail at their first PD. */
    pd = ib_alloc_pd(dev, 0);
    ktest_check(IS_ERR(pd) && PTR_ERR(pd) == -EOPNOTSUPP,
                "kernel ib_alloc_pd fails cleanly with -EOPNOTSUPP (no DMA MR yet)");
    if (!IS_ERR(pd))
        ib_dealloc_pd(pd);

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
    ktest_qp(dev);
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
