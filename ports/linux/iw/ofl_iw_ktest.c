// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_ktest - a kernel consumer of an ofl_iw device, for make
 * test-kmod-iw only: an ib_client whose add callback runs on every RDMA
 * device named ofl*, allocates a PD and CQs through the kernel verbs
 * (the path without udata: no user ring), polls and arms a CQ, and logs
 * one "ofl_iw_ktest: ok|FAIL ..." line per check.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

MODULE_DESCRIPTION("kernel verbs checks of ofl_iw devices (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static void ktest_check(bool ok, const char *what)
{
    pr_info("ofl_iw_ktest: %s %s\n", ok ? "ok  " : "FAIL", what);
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
