// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_probe - user space against an ofl_iw device through the stock
 * libibverbs and its siw provider (libsiw), nothing rebuilt: the device
 * is found (libsiw bound to it), queried, and a PD and CQs are made; the
 * CQ's ring is polled and armed the way libsiw does it (mmap'ed, no system
 * call). One line per check, then "probe: N passed, M failed".
 *   ofl_iw_probe DEVICE MAC
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static int passed, failed;

static void check(int ok, const char *what)
{
    printf("ofl-iw: %s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

int main(int argc, char **argv)
{
    struct ibv_device **list;
    struct ibv_device *dev = NULL;
    struct ibv_context *ctx = NULL;
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    union ibv_gid gid;
    struct ibv_pd *pd = NULL;
    struct ibv_comp_channel *ch = NULL;
    struct ibv_cq *cq = NULL, *big;
    struct ibv_wc wc[4];
    unsigned int mac[6];
    char line[160];
    int i, n;

    if (argc != 3 || sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1],
                            &mac[2], &mac[3], &mac[4], &mac[5]) != 6) {
        fprintf(stderr, "usage: ofl_iw_probe DEVICE MAC\n");
        return 2;
    }
    list = ibv_get_device_list(&n);
    for (i = 0; list && i < n; i++)
        if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
            dev = list[i];
    check(dev != NULL, "libibverbs lists the device (libsiw bound to it)");
    if (dev)
        ctx = ibv_open_device(dev);
    check(ctx != NULL, "ibv_open_device (libsiw's alloc_context, siw ABI)");
    if (!ctx)
        goto out;
    check(dev->node_type == IBV_NODE_RNIC && dev->transport_type == IBV_TRANSPORT_IWARP,
          "node type RNIC, transport iWARP");

    check(ibv_query_device(ctx, &da) == 0, "ibv_query_device");
    snprintf(line, sizeof(line), "attributes: max_qp_wr %d, max_sge %d, max_cqe %d, IRD %d, ORD %d, atomic_cap %d",
             da.max_qp_wr, da.max_sge, da.max_cqe, da.max_qp_rd_atom,
             da.max_qp_init_rd_atom, (int)da.atomic_cap);
    check(da.max_qp_wr == 65536 && da.max_sge == 6 && da.max_cqe == 1 << 24 &&
          da.max_qp_rd_atom == 8192 && da.max_qp_init_rd_atom == 16383 &&
          da.atomic_cap == IBV_ATOMIC_HCA, line);

    check(ibv_query_port(ctx, 1, &pa) == 0 && pa.state == IBV_PORT_ACTIVE &&
          pa.active_mtu == IBV_MTU_1024 && pa.gid_tbl_len == 1,
          "ibv_query_port: ACTIVE, active MTU 1024 (netdev MTU 1500), one GID");

    memset(&gid, 0xff, sizeof(gid));
    n = ibv_query_gid(ctx, 1, 0, &gid) == 0;
    for (i = 0; i < 6; i++)
        n = n && gid.raw[i] == mac[i];
    for (i = 6; i < 16; i++)
        n = n && gid.raw[i] == 0;
    check(n, "ibv_query_gid: the MAC, zero padded");

    pd = ibv_alloc_pd(ctx);
    check(pd != NULL, "ibv_alloc_pd");
    ch = ibv_create_comp_channel(ctx);
    check(ch != NULL, "ibv_create_comp_channel");
    cq = ibv_create_cq(ctx, 100, NULL, ch, 0);
    check(cq != NULL && cq->cqe == 128,
          "ibv_create_cq(100): 128 entries, ring mmap'ed by libsiw");
    if (cq) {
        check(ibv_poll_cq(cq, 4, wc) == 0, "ibv_poll_cq on the empty ring: 0");
        check(ibv_req_notify_cq(cq, 0) == 0 && ibv_req_notify_cq(cq, 1) == 0,
              "ibv_req_notify_cq: next and solicited");
    }
    big = ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0);
    check(big == NULL, "ibv_create_cq beyond max_cqe is refused");
    if (big)
        ibv_destroy_cq(big);

    /* Not yet done: no QP. Reported, not counted. */
    if (pd && cq) {
        struct ibv_qp_init_attr qa = {
            .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 4, .max_recv_wr = 4,
                     .max_send_sge = 1, .max_recv_sge = 1 },
        };
        struct ibv_qp *qp = ibv_create_qp(pd, &qa);

        printf("ofl-iw: note ibv_create_qp: %s (QPs are not implemented yet)\n",
               qp ? "created?!" : strerror(errno));
        if (qp)
            ibv_destroy_qp(qp);
    }

    if (cq)
        check(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq");
    if (ch)
        check(ibv_destroy_comp_channel(ch) == 0, "ibv_destroy_comp_channel");
    if (pd)
        check(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd");
    check(ibv_close_device(ctx) == 0, "ibv_close_device");
out:
    if (list)
        ibv_free_device_list(list);
    printf("probe: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
