// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_kconn - a kernel consumer that connects, for make
 * test-rdma-device only: at load, two kernel RC QPs connect through the
 * kernel's rdma_cm (server on `srv`, client bound to `cli`; the guest
 * gives ofl1's and ofl0's addresses) and the client drives what user
 * space cannot reach through siw's ring: RDMA Write with immediate data
 * and RFC 7306 atomics (fetch-and-add, compare-and-swap, their masked
 * forms) against a fast-registered region of the server, each checked in
 * memory and in the completions, then an atomic the server's device must
 * refuse. One "ofl_iw_kconn: ok|FAIL ..." line per check; the module
 * stays loaded until rmmod (everything is torn down at load already).
 */
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

MODULE_DESCRIPTION("kernel RDMA Write with immediate data and atomics over ofl_iw (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static char *srv = "10.0.4.1";
module_param(srv, charp, 0444);
MODULE_PARM_DESC(srv, "server address (its device listens there)");
static char *cli = "10.0.3.1";
module_param(cli, charp, 0444);
MODULE_PARM_DESC(cli, "client source address (picks the client's device)");
static int port = 7599;
module_param(port, int, 0444);

#define KC_TMO (10 * HZ)

struct kc_side {
    struct rdma_cm_id *id; /* the client's, or the server's accepted one */
    struct ib_pd *pd;
    struct ib_cq *cq;
    unsigned long seen;    /* BIT(event) of every CM event so far */
    unsigned long qp_seen; /* BIT(event) of every QP event so far */
    wait_queue_head_t wq;
};

static struct kc_side kc_srv, kc_cli;

static void kc_check(bool ok, const char *what)
{
    pr_info("ofl_iw_kconn: %s %s\n", ok ? "ok  " : "FAIL", what);
}

static int kc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
    struct kc_side *s = id->context;

    /* a connect request arrives on a new id with the listener's
     * context: the server side's from now on */
    if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
        s->id = id;
    set_bit(ev->event, &s->seen);
    wake_up(&s->wq);
    return 0;
}

/* the QP's asynchronous events (the device's ofl_iw_qp_events_give) */
static void kc_qp_event(struct ib_event *ev, void *ctx)
{
    struct kc_side *s = ctx;

    if (ev->event < BITS_PER_LONG)
        set_bit(ev->event, &s->qp_seen);
    wake_up(&s->wq);
}

static bool kc_wait_qp(struct kc_side *s, enum ib_event_type e)
{
    return wait_event_timeout(s->wq, test_bit(e, &s->qp_seen), KC_TMO) > 0;
}

static bool kc_wait(struct kc_side *s, enum rdma_cm_event_type e)
{
    return wait_event_timeout(s->wq, test_bit(e, &s->seen), KC_TMO) > 0;
}

/* one completion, polled for up to about 5 s */
static bool kc_poll(struct ib_cq *cq, struct ib_wc *wc)
{
    int i;

    for (i = 0; i < 5000; i++) {
        if (ib_poll_cq(cq, 1, wc) == 1)
            return true;
        usleep_range(500, 1000);
    }
    return false;
}

static int kc_qp(struct kc_side *s)
{
    struct ib_qp_init_attr qa = {};

    s->pd = ib_alloc_pd(s->id->device, 0);
    if (IS_ERR(s->pd)) {
        s->pd = NULL;
        return -ENOMEM;
    }
    s->cq = ib_alloc_cq(s->id->device, NULL, 32, 0, IB_POLL_DIRECT);
    if (IS_ERR(s->cq)) {
        s->cq = NULL;
        return -ENOMEM;
    }
    qa.event_handler = kc_qp_event;
    qa.qp_context = s;
    qa.send_cq = s->cq;
    qa.recv_cq = s->cq;
    qa.qp_type = IB_QPT_RC;
    qa.sq_sig_type = IB_SIGNAL_REQ_WR;
    qa.cap.max_send_wr = 16;
    qa.cap.max_recv_wr = 16;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    return rdma_create_qp(s->id, s->pd, &qa);
}

static void kc_free(struct kc_side *s)
{
    if (s->id && s->id->qp)
        rdma_destroy_qp(s->id);
    if (s->cq)
        ib_free_cq(s->cq);
    if (s->pd)
        ib_dealloc_pd(s->pd);
    if (s->id)
        rdma_destroy_id(s->id);
}

/* the client's atomic on the server's region; *res gets the old value */
static bool kc_atomic(enum ib_wr_opcode op, u64 raddr, u32 rkey, u64 cmp_add,
                      u64 cmp_add_mask, u64 swap, u64 swap_mask, u64 *res,
                      struct ib_wc *wc)
{
    struct ib_sge sge = { .addr = (uintptr_t)res, .length = 8,
                          .lkey = kc_cli.pd->local_dma_lkey };
    struct ib_atomic_wr aw = {};
    const struct ib_send_wr *bad;

    aw.wr.wr_id = 0xa7;
    aw.wr.opcode = op;
    aw.wr.send_flags = IB_SEND_SIGNALED;
    aw.wr.sg_list = &sge;
    aw.wr.num_sge = 1;
    aw.remote_addr = raddr;
    aw.rkey = rkey;
    aw.compare_add = cmp_add;
    aw.compare_add_mask = cmp_add_mask;
    aw.swap = swap;
    aw.swap_mask = swap_mask;
    return ib_post_send(kc_cli.id->qp, &aw.wr, &bad) == 0 &&
           kc_poll(kc_cli.cq, wc);
}

static void kc_run(u8 *sbuf, u8 *cbuf, u8 *rbuf)
{
    struct rdma_conn_param cp = { .responder_resources = 4,
                                  .initiator_depth = 4 };
    struct sockaddr_in sa = { .sin_family = AF_INET };
    struct sockaddr_in ca = { .sin_family = AF_INET };
    struct ib_sge rsge, wsge;
    struct ib_recv_wr rwr = {};
    struct ib_rdma_wr ww = {};
    struct ib_reg_wr reg = {};
    const struct ib_recv_wr *rbad;
    const struct ib_send_wr *sbad;
    struct rdma_cm_id *listen;
    struct scatterlist sg;
    struct ib_mr *mr = NULL;
    struct ib_wc wc;
    u64 *res = (u64 *)(cbuf + 128), *m64 = (u64 *)(sbuf + 64);
    bool ok;
    int i;

    sa.sin_port = htons(port);
    if (!in4_pton(srv, -1, (u8 *)&sa.sin_addr, -1, NULL) ||
        !in4_pton(cli, -1, (u8 *)&ca.sin_addr, -1, NULL)) {
        kc_check(false, "addresses");
        return;
    }
    listen = rdma_create_id(&init_net, kc_handler, &kc_srv, RDMA_PS_TCP,
                            IB_QPT_RC);
    if (IS_ERR(listen)) {
        kc_check(false, "rdma_create_id (server)");
        return;
    }
    kc_cli.id = rdma_create_id(&init_net, kc_handler, &kc_cli, RDMA_PS_TCP,
                               IB_QPT_RC);
    if (IS_ERR(kc_cli.id)) {
        kc_cli.id = NULL;
        kc_check(false, "rdma_create_id (client)");
        goto out;
    }
    ok = rdma_bind_addr(listen, (struct sockaddr *)&sa) == 0 &&
         rdma_listen(listen, 1) == 0;
    kc_check(ok, "kernel rdma_listen on the server's address");
    if (!ok)
        goto out;
    ok = rdma_resolve_addr(kc_cli.id, (struct sockaddr *)&ca,
                           (struct sockaddr *)&sa, 2000) == 0 &&
         kc_wait(&kc_cli, RDMA_CM_EVENT_ADDR_RESOLVED) &&
         rdma_resolve_route(kc_cli.id, 2000) == 0 &&
         kc_wait(&kc_cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
    kc_check(ok && !strncmp(dev_name(&kc_cli.id->device->dev), "ofl", 3),
             "kernel rdma_resolve_addr/route from the client's address: an ofl device");
    if (!ok || kc_qp(&kc_cli))
        goto out;
    ok = rdma_connect(kc_cli.id, &cp) == 0 &&
         kc_wait(&kc_srv, RDMA_CM_EVENT_CONNECT_REQUEST);
    kc_check(ok, "kernel rdma_connect: the server sees the request");
    if (!ok || kc_qp(&kc_srv))
        goto out;
    /* a receive for the Write with immediate data */
    rsge.addr = (uintptr_t)rbuf;
    rsge.length = 64;
    rsge.lkey = kc_srv.pd->local_dma_lkey;
    rwr.wr_id = 0x5e;
    rwr.sg_list = &rsge;
    rwr.num_sge = 1;
    rdma_lock_handler(kc_srv.id);
    ok = ib_post_recv(kc_srv.id->qp, &rwr, &rbad) == 0 &&
         rdma_accept(kc_srv.id, &cp) == 0;
    rdma_unlock_handler(kc_srv.id);
    ok = ok && kc_wait(&kc_srv, RDMA_CM_EVENT_ESTABLISHED) &&
         kc_wait(&kc_cli, RDMA_CM_EVENT_ESTABLISHED);
    kc_check(ok, "kernel rdma_accept: both sides ESTABLISHED");
    if (!ok)
        goto out;

    /* the server's region: one page, fast-registered for remote write,
     * read and atomics */
    mr = ib_alloc_mr(kc_srv.pd, IB_MR_TYPE_MEM_REG, 1);
    if (IS_ERR(mr)) {
        mr = NULL;
        kc_check(false, "ib_alloc_mr on the server");
        goto out;
    }
    sg_init_one(&sg, sbuf, PAGE_SIZE);
    sg_dma_address(&sg) = (uintptr_t)sbuf; /* virtual DMA */
    sg_dma_len(&sg) = PAGE_SIZE;
    ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
    reg.wr.wr_id = 0x4e;
    reg.wr.opcode = IB_WR_REG_MR;
    reg.wr.send_flags = IB_SEND_SIGNALED;
    reg.mr = mr;
    reg.key = mr->rkey;
    reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
                 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
    ok = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) == 1 &&
         ib_post_send(kc_srv.id->qp, &reg.wr, &sbad) == 0 &&
         kc_poll(kc_srv.cq, &wc) && wc.status == IB_WC_SUCCESS &&
         wc.opcode == IB_WC_REG_MR;
    kc_check(ok, "IB_WR_REG_MR on a connected QP: IB_WC_REG_MR, success");
    if (!ok)
        goto out;

    /* RDMA Write with immediate data */
    for (i = 0; i < 64; i++)
        cbuf[i] = (u8)(0xA5 ^ i);
    wsge.addr = (uintptr_t)cbuf;
    wsge.length = 64;
    wsge.lkey = kc_cli.pd->local_dma_lkey;
    ww.wr.wr_id = 0x77;
    ww.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
    ww.wr.send_flags = IB_SEND_SIGNALED;
    ww.wr.sg_list = &wsge;
    ww.wr.num_sge = 1;
    ww.wr.ex.imm_data = cpu_to_be32(0x0ff1c0de);
    ww.remote_addr = mr->iova;
    ww.rkey = mr->rkey;
    ok = ib_post_send(kc_cli.id->qp, &ww.wr, &sbad) == 0 &&
         kc_poll(kc_cli.cq, &wc) && wc.status == IB_WC_SUCCESS &&
         wc.opcode == IB_WC_RDMA_WRITE && wc.wr_id == 0x77;
    kc_check(ok, "IB_WR_RDMA_WRITE_WITH_IMM: the writer's completion");
    ok = kc_poll(kc_srv.cq, &wc) && wc.status == IB_WC_SUCCESS &&
         wc.opcode == IB_WC_RECV_RDMA_WITH_IMM && wc.wr_id == 0x5e &&
         (wc.wc_flags & IB_WC_WITH_IMM) &&
         wc.ex.imm_data == cpu_to_be32(0x0ff1c0de) &&
         !memcmp(sbuf, cbuf, 64);
    kc_check(ok, "the target: RECV_RDMA_WITH_IMM with the immediate data, the bytes placed");

    /* atomics on the region's second 8-byte word */
    *m64 = 100;
    ok = kc_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, mr->iova + 64, mr->rkey, 5, 0,
                   0, 0, res, &wc) &&
         wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_FETCH_ADD &&
         *res == 100 && READ_ONCE(*m64) == 105;
    kc_check(ok, "IB_WR_ATOMIC_FETCH_AND_ADD: 100 + 5, the original returned");
    ok = kc_atomic(IB_WR_ATOMIC_CMP_AND_SWP, mr->iova + 64, mr->rkey, 105, 0,
                   7, 0, res, &wc) &&
         wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_COMP_SWAP &&
         *res == 105 && READ_ONCE(*m64) == 7;
    kc_check(ok, "IB_WR_ATOMIC_CMP_AND_SWP that matches: swapped, the original returned");
    ok = kc_atomic(IB_WR_ATOMIC_CMP_AND_SWP, mr->iova + 64, mr->rkey, 1, 0,
                   9, 0, res, &wc) &&
         wc.status == IB_WC_SUCCESS && *res == 7 && READ_ONCE(*m64) == 7;
    kc_check(ok, "IB_WR_ATOMIC_CMP_AND_SWP that does not match: unchanged");
    *m64 = 0xFFFFFFFFull;
    ok = kc_atomic(IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, mr->iova + 64, mr->rkey,
                   1, 0x80000000ull, 0, 0, res, &wc) &&
         wc.status == IB_WC_SUCCESS && *res == 0xFFFFFFFFull &&
         READ_ONCE(*m64) == 0;
    kc_check(ok, "IB_WR_MASKED_ATOMIC_FETCH_AND_ADD: no carry out of a field");
    *m64 = 0x1122334455667788ull;
    ok = kc_atomic(IB_WR_MASKED_ATOMIC_CMP_AND_SWP, mr->iova + 64, mr->rkey,
                   0x88, 0xFF, 0xAB00, 0xFF00, res, &wc) &&
         wc.status == IB_WC_SUCCESS && *res == 0x1122334455667788ull &&
         READ_ONCE(*m64) == 0x112233445566AB88ull;
    kc_check(ok, "IB_WR_MASKED_ATOMIC_CMP_AND_SWP: masked compare, masked swap");
    /* RFC 7306: the target is 8-byte aligned; the requester refuses a
     * misaligned one at post */
    ok = !kc_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, mr->iova + 65, mr->rkey, 1, 0,
                    0, 0, res, &wc) &&
         READ_ONCE(*m64) == 0x112233445566AB88ull;
    kc_check(ok, "a misaligned atomic is refused at post");
    /* no asynchronous event while everything went well */
    snprintf(sbuf + 256, 128,
             "no QP event before the first error (server %#lx, client %#lx)",
             kc_srv.qp_seen, kc_cli.qp_seen);
    kc_check(!kc_srv.qp_seen && !kc_cli.qp_seen, sbuf + 256);
    /* the responder refuses one past the region (FIG. 18A e); the QP is
     * in error after it */
    wc.status = IB_WC_SUCCESS;
    ok = kc_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, mr->iova + PAGE_SIZE, mr->rkey,
                   1, 0, 0, 0, res, &wc) &&
         wc.status != IB_WC_SUCCESS && wc.status != IB_WC_WR_FLUSH_ERR;
    snprintf(sbuf + 256, 128,
             "an atomic past the region completes in error (%s)",
             ib_wc_status_msg(wc.status));
    kc_check(ok, sbuf + 256);
    /* the responder's QP ended the stream with a protection Terminate
     * (RFC 5040 §7.2, remote protection): IB_EVENT_QP_ACCESS_ERR there,
     * as siw; the requester learns it from its completion's status, with
     * no fatal event */
    ok = kc_wait_qp(&kc_srv, IB_EVENT_QP_ACCESS_ERR);
    snprintf(sbuf + 256, 128,
             "the responder gets IB_EVENT_QP_ACCESS_ERR, the requester no fatal event (server %#lx, client %#lx)",
             kc_srv.qp_seen, kc_cli.qp_seen);
    kc_check(ok && !test_bit(IB_EVENT_QP_FATAL, &kc_srv.qp_seen) &&
                 !test_bit(IB_EVENT_QP_FATAL, &kc_cli.qp_seen) &&
                 !test_bit(IB_EVENT_QP_ACCESS_ERR, &kc_cli.qp_seen),
             sbuf + 256);
out:
    if (kc_cli.id && test_bit(RDMA_CM_EVENT_ESTABLISHED, &kc_cli.seen)) {
        rdma_disconnect(kc_cli.id);
        kc_check(kc_wait(&kc_cli, RDMA_CM_EVENT_DISCONNECTED) &&
                 kc_wait(&kc_srv, RDMA_CM_EVENT_DISCONNECTED),
                 "rdma_disconnect: both sides DISCONNECTED");
    }
    if (mr)
        ib_dereg_mr(mr);
    kc_free(&kc_cli);
    kc_free(&kc_srv);
    rdma_destroy_id(listen);
}

static int __init kc_init(void)
{
    u8 *sbuf = kzalloc(PAGE_SIZE, GFP_KERNEL);
    u8 *cbuf = kzalloc(PAGE_SIZE, GFP_KERNEL);
    u8 *rbuf = kzalloc(64, GFP_KERNEL);

    init_waitqueue_head(&kc_srv.wq);
    init_waitqueue_head(&kc_cli.wq);
    if (sbuf && cbuf && rbuf)
        kc_run(sbuf, cbuf, rbuf);
    else
        kc_check(false, "buffers");
    kfree(rbuf);
    kfree(cbuf);
    kfree(sbuf);
    pr_info("ofl_iw_kconn: done\n");
    return 0;
}

static void __exit kc_exit(void)
{
}

module_init(kc_init);
module_exit(kc_exit);
