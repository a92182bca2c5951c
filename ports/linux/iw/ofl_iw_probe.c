// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_probe - user space against an ofl_iw device through the stock
 * libibverbs and its siw provider (libsiw), nothing rebuilt: the device
 * is found (libsiw bound to it), queried, and a PD and CQs are made; the
 * CQ's ring is polled and armed the way libsiw does it (mmap'ed, no system
 * call). RC QPs: create (siw's mmap'ed SQ and RQ rings), modify and query
 * along the states, RTS refused without a connection, a receive and a
 * send posted through the rings flushed by ERROR into the CQ ring and the
 * completion channel, destroy with work outstanding flushing it, RESET
 * and reuse. Memory registration: ibv_reg_mr / ibv_dereg_mr (pinned
 * pages, TPT regions), their slots and STags given back. One line per check, then "probe: N passed, M failed".
 *   ofl_iw_probe DEVICE MAC
 */
#include <errno.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/siw-abi.h>

#define BIG_MR ((size_t)2 << 30)

static int passed, failed;

static void check(int ok, const char *what)
{
    printf("ofl-iw: %s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp, struct ibv_qp_init_attr *ia)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr dummy;

    memset(&a, 0, sizeof(a));
    a.qp_state = (enum ibv_qp_state)-1;
    if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP, ia ? ia : &dummy))
        return (enum ibv_qp_state)-1;
    return a.qp_state;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
    struct ibv_qp_attr a;
    int mask = IBV_QP_STATE;

    memset(&a, 0, sizeof(a));
    a.qp_state = s;
    if (s == IBV_QPS_INIT) {
        /* what rdma-core's tests and rping give on RESET -> INIT */
        a.pkey_index = 0;
        a.port_num = 1;
        a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                            IBV_ACCESS_REMOTE_READ;
        mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    }
    return ibv_modify_qp(qp, &a, mask);
}

/* Polls up to n completions into wc, waiting up to a second. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
    int got = 0, tries;

    for (tries = 0; tries < 100 && got < n; tries++) {
        int r = ibv_poll_cq(cq, n - got, wc + got);

        if (r < 0)
            return r;
        got += r;
        if (got < n)
            poll(NULL, 0, 10);
    }
    return got;
}

static void qp_checks(struct ibv_pd *pd,
                      struct ibv_cq *cq, struct ibv_comp_channel *ch)
{
    static char buf[4096];
    struct ibv_qp_init_attr qa = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 3, .max_recv_wr = 4,
                 .max_send_sge = 1, .max_recv_sge = 2 },
    };
    struct ibv_qp_init_attr ia, bad;
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(buf),
                           .lkey = 0x100 };
    struct ibv_recv_wr rwr = { .wr_id = 0x1111, .sg_list = &sge, .num_sge = 1 };
    struct ibv_send_wr swr = { .wr_id = 0x2222, .sg_list = &sge, .num_sge = 1,
                               .opcode = IBV_WR_SEND,
                               .send_flags = IBV_SEND_SIGNALED };
    struct ibv_recv_wr *rbad;
    struct ibv_send_wr *sbad;
    struct ibv_wc wc[8];
    struct pollfd pfd;
    struct ibv_cq *ev_cq;
    void *ev_ctx;
    struct ibv_qp *qp, *qp2;
    char line[200];
    int i, n, r, s, ok;

    bad = qa;
    bad.qp_type = IBV_QPT_UD;
    qp = ibv_create_qp(pd, &bad);
    check(qp == NULL, "ibv_create_qp(UD) is refused (RC only)");
    if (qp)
        ibv_destroy_qp(qp);
    bad = qa;
    bad.cap.max_inline_data = 64;
    qp = ibv_create_qp(pd, &bad);
    check(qp == NULL, "ibv_create_qp with inline data is refused");
    if (qp)
        ibv_destroy_qp(qp);

    qp = ibv_create_qp(pd, &qa);
    check(qp != NULL && qp->qp_num > 0,
          "ibv_create_qp(RC): libsiw mmap'ed the SQ and RQ rings");
    if (!qp)
        return;
    snprintf(line, sizeof(line),
             "ibv_create_qp reports the depths made (send %u, recv %u: powers of two)",
             qa.cap.max_send_wr, qa.cap.max_recv_wr);
    check(qa.cap.max_send_wr == 4 && qa.cap.max_recv_wr == 4, line);
    /* an iWARP QP starts in IDLE, reported as INIT (as cxgb4) */
    check(qp_state(qp, &ia) == IBV_QPS_INIT && ia.cap.max_send_wr == 4 &&
          ia.cap.max_recv_sge == 2 && ia.qp_type == IBV_QPT_RC,
          "ibv_query_qp: INIT (iWARP's IDLE), the caps and type it was created with");
    check(to_state(qp, IBV_QPS_INIT) == 0, "ibv_modify_qp INIT -> INIT");
    check(qp_state(qp, NULL) == IBV_QPS_INIT, "ibv_query_qp after INIT: INIT");
    check(to_state(qp, IBV_QPS_RTR) == 0 && qp_state(qp, NULL) == IBV_QPS_RTR,
          "ibv_modify_qp INIT -> RTR, query says RTR");
    r = to_state(qp, IBV_QPS_RTS);
    check(r != 0 && qp_state(qp, NULL) == IBV_QPS_RTR,
          "ibv_modify_qp RTR -> RTS refused without a connection (as siw), still RTR");

    check(ibv_post_recv(qp, &rwr, &rbad) == 0,
          "ibv_post_recv (libsiw writes the RQ ring)");
    r = ibv_post_send(qp, &swr, &sbad);
    snprintf(line, sizeof(line),
             "ibv_post_send in RTR: the doorbell is refused (%d, as siw: not RTS)", r);
    check(r != 0, line);
    check(ibv_poll_cq(cq, 8, wc) == 0, "nothing completes before ERROR");
    check(ibv_req_notify_cq(cq, 0) == 0, "ibv_req_notify_cq(next) before ERROR");

    check(to_state(qp, IBV_QPS_ERR) == 0 && qp_state(qp, NULL) == IBV_QPS_ERR,
          "ibv_modify_qp -> ERROR, query says ERROR");
    n = poll_n(cq, wc, 2);
    ok = n == 2;
    r = s = 0;
    for (i = 0; i < n; i++) {
        ok = ok && wc[i].status == IBV_WC_WR_FLUSH_ERR && wc[i].qp_num == qp->qp_num;
        if (wc[i].wr_id == 0x1111 && wc[i].opcode == IBV_WC_RECV)
            r++;
        if (wc[i].wr_id == 0x2222 && wc[i].opcode == IBV_WC_SEND)
            s++;
    }
    snprintf(line, sizeof(line),
             "ERROR flushed the receive and the send into the CQ ring: %d completions, WR_FLUSH_ERR, their wr_id and opcode, qp_num %u",
             n, qp->qp_num);
    check(ok && r == 1 && s == 1, line);
    pfd.fd = ch->fd;
    pfd.events = POLLIN;
    ok = poll(&pfd, 1, 1000) == 1 && ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0 &&
         ev_cq == cq;
    if (ok)
        ibv_ack_cq_events(cq, 1);
    check(ok, "the flush raised the armed CQ's event on the completion channel");
    check(ibv_post_recv(qp, &rwr, &rbad) == 0 && ibv_post_send(qp, &swr, &sbad) == 0 &&
          poll_n(cq, wc, 2) == 2 && wc[0].status == IBV_WC_WR_FLUSH_ERR &&
          wc[1].status == IBV_WC_WR_FLUSH_ERR,
          "in ERROR a posted send is flushed at its doorbell (the receive with it)");
    /* A receive alone in ERROR: libsiw rings no doorbell for the RQ, so
     * only the device's receive-ring watch (ofl_iw_rq_watch_run) can find
     * it; a consumer waiting for its flush (rping's CQ thread after a lost
     * connection) waits on the armed CQ's event. siw leaves it in the ring. */
    rwr.wr_id = 0x1112;
    ok = ibv_req_notify_cq(cq, 0) == 0 && ibv_post_recv(qp, &rwr, &rbad) == 0 &&
         poll(&pfd, 1, 3000) == 1 && ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0 &&
         ev_cq == cq;
    if (ok)
        ibv_ack_cq_events(cq, 1);
    ok = ok && poll_n(cq, wc, 1) == 1 && wc[0].status == IBV_WC_WR_FLUSH_ERR &&
         wc[0].opcode == IBV_WC_RECV && wc[0].wr_id == 0x1112;
    rwr.wr_id = 0x1111;
    check(ok, "in ERROR a receive posted alone (no doorbell) is flushed by the ring watch within 3 s, with the armed CQ's event");
    check(to_state(qp, IBV_QPS_RESET) == 0 && qp_state(qp, NULL) == IBV_QPS_RESET,
          "ibv_modify_qp ERROR -> RESET");
    check(to_state(qp, IBV_QPS_INIT) == 0 && qp_state(qp, NULL) == IBV_QPS_INIT,
          "RESET -> INIT again (the QP is reused)");
    check(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");

    /* destroy with receives outstanding: they are flushed */
    qp2 = ibv_create_qp(pd, &qa);
    check(qp2 != NULL && to_state(qp2, IBV_QPS_INIT) == 0,
          "a second QP, INIT");
    if (!qp2)
        return;
    n = qp2->qp_num;
    for (i = 0; i < 3; i++) {
        rwr.wr_id = 0x3000 + i;
        r = ibv_post_recv(qp2, &rwr, &rbad);
    }
    check(r == 0, "three receives posted");
    check(ibv_destroy_qp(qp2) == 0, "ibv_destroy_qp with three receives outstanding");
    r = poll_n(cq, wc, 3);
    ok = r == 3;
    for (i = 0; i < r; i++)
        ok = ok && wc[i].status == IBV_WC_WR_FLUSH_ERR && wc[i].wr_id == 0x3000u + i &&
             (int)wc[i].qp_num == n;
    check(ok, "destroy flushed them, in order, into the CQ ring");
    check(ibv_poll_cq(cq, 8, wc) == 0, "the CQ ring is empty again");
}

/* The device called name, opened; NULL when it is not listed. */
static struct ibv_context *open_by_name(const char *name)
{
    struct ibv_context *ctx = NULL;
    struct ibv_device **list;
    int i, n;

    list = ibv_get_device_list(&n);
    for (i = 0; list && i < n && !ctx; i++)
        if (strcmp(ibv_get_device_name(list[i]), name) == 0)
            ctx = ibv_open_device(list[i]);
    if (list)
        ibv_free_device_list(list);
    return ctx;
}

/* The device's mappings in this process (/proc/self/maps lines naming
 * uverbs): start addresses and lengths, up to max. */
static int uverbs_maps(unsigned long *start, unsigned long *len, int max)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char l[512];
    unsigned long a, b;
    int n = 0;

    if (!f)
        return 0;
    while (n < max && fgets(l, sizeof(l), f))
        if (strstr(l, "uverbs") && sscanf(l, "%lx-%lx", &a, &b) == 2) {
            start[n] = a;
            len[n++] = b - a;
        }
    fclose(f);
    return n;
}

/* The hostile checks' QP: an SQ of 64 entries (two pages of the ring),
 * an RQ of 4 (one page), one data segment each. */
static struct ibv_qp_init_attr hostile_qp_attr(struct ibv_cq *cq)
{
    struct ibv_qp_init_attr qa = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 64, .max_recv_wr = 4,
                 .max_send_sge = 1, .max_recv_sge = 1 },
    };

    return qa;
}

/* User space is hostile: an entry written into the mmap'ed receive ring
 * behind libsiw's back with more data segments than the QP takes is
 * refused at the next doorbell, the QP goes to ERROR, the entry is
 * consumed without a completion and the send behind it is flushed. The
 * rings are found as the two mappings the QP's creation added: the SQ of
 * 64 entries spans two pages, the RQ of 4 one. */
static void hostile_checks(struct ibv_pd *pd, struct ibv_cq *cq)
{
    static char buf[64];
    struct ibv_qp_init_attr qa = hostile_qp_attr(cq);
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(buf) };
    struct ibv_send_wr swr = { .wr_id = 0x5555, .sg_list = &sge, .num_sge = 1,
                               .opcode = IBV_WR_SEND,
                               .send_flags = IBV_SEND_SIGNALED };
    unsigned long s0[32], l0[32], s1[32], l1[32];
    struct siw_rqe *rq = NULL;
    struct ibv_send_wr *sbad;
    struct ibv_wc wc[4];
    struct ibv_qp *qp;
    int n0, n1, i, j, r, n;

    n0 = uverbs_maps(s0, l0, 32);
    qp = ibv_create_qp(pd, &qa);
    n1 = uverbs_maps(s1, l1, 32);
    for (i = 0; qp && i < n1; i++) {
        for (j = 0; j < n0 && s0[j] != s1[i]; j++)
            ;
        if (j == n0 && l1[i] == 4096)
            rq = (struct siw_rqe *)s1[i];
    }
    check(qp != NULL && rq != NULL && n1 == n0 + 2 &&
          to_state(qp, IBV_QPS_INIT) == 0,
          "a QP whose RQ ring the probe found in /proc/self/maps, INIT");
    if (!qp || !rq) {
        if (qp)
            ibv_destroy_qp(qp);
        return;
    }
    rq[0].id = 0x6666;
    rq[0].num_sge = SIW_MAX_SGE; /* the QP takes 1 */
    __atomic_store_n(&rq[0].flags, SIW_WQE_VALID, __ATOMIC_RELEASE);
    check(to_state(qp, IBV_QPS_RTR) == 0, "INIT -> RTR");
    r = ibv_post_send(qp, &swr, &sbad);
    check(r != 0 && qp_state(qp, NULL) == IBV_QPS_ERR,
          "the doorbell refuses the malformed receive entry and the QP is in ERROR");
    check(__atomic_load_n(&rq[0].flags, __ATOMIC_ACQUIRE) == 0,
          "the malformed entry was consumed (its slot is free again)");
    n = poll_n(cq, wc, 2);
    check(n == 1 && wc[0].wr_id == 0x5555 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
          "only the send is completed (flushed), not the malformed entry");
    check(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");
}

/* An entry the ring's format allows but the core refuses for itself (one
 * data segment of 2^31 bytes: the ring takes totals below 2^32, the core
 * below 2^31) is refused as a malformed one: consumed without a
 * completion, the QP in ERROR (here already: a post in ERROR is flushed),
 * and a send posted behind it still reaches the core. Until 2026-12-01
 * the entry stayed valid, refused again at every pull, and libsiw rang no
 * doorbell for the entries behind it (the one before theirs was still
 * valid): the send behind it never completed. */
static void hostile_sq_checks(struct ibv_pd *pd, struct ibv_cq *cq)
{
    static char buf[64];
    struct ibv_qp_init_attr qa = hostile_qp_attr(cq);
    struct ibv_sge huge = { .addr = (uintptr_t)buf, .length = 0x80000000u };
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(buf) };
    struct ibv_send_wr hwr = { .wr_id = 0x7777, .sg_list = &huge,
                               .num_sge = 1, .opcode = IBV_WR_SEND,
                               .send_flags = IBV_SEND_SIGNALED };
    struct ibv_send_wr swr = { .wr_id = 0x8888, .sg_list = &sge, .num_sge = 1,
                               .opcode = IBV_WR_SEND,
                               .send_flags = IBV_SEND_SIGNALED };
    struct ibv_send_wr *sbad;
    struct ibv_wc wc[4];
    struct ibv_qp *qp;
    int r, n;

    qp = ibv_create_qp(pd, &qa);
    check(qp != NULL && to_state(qp, IBV_QPS_INIT) == 0 &&
          to_state(qp, IBV_QPS_ERR) == 0, "a QP moved to ERROR");
    if (!qp)
        return;
    r = ibv_post_send(qp, &hwr, &sbad);
    check(r != 0, "the doorbell refuses a send of 2^31 bytes (the core's limit, not the ring's)");
    r = ibv_post_send(qp, &swr, &sbad);
    n = poll_n(cq, wc, 2);
    check(r == 0 && n == 1 && wc[0].wr_id == 0x8888 &&
              wc[0].status == IBV_WC_WR_FLUSH_ERR,
          "the refused entry was consumed without a completion and the send behind it was flushed");
    check(qp_state(qp, NULL) == IBV_QPS_ERR, "the QP stays in ERROR");
    check(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");
}

static void mr_checks(struct ibv_pd *pd)
{
    static char buf[8 * 4096] __attribute__((aligned(4096)));
    const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ;
    struct ibv_mr *a, *b, *m;
    char line[160];
    void *big;
    int i, ok;

    a = ibv_reg_mr(pd, buf + 100, 3 * 4096, acc);
    check(a != NULL && a->lkey == a->rkey && a->lkey != 0,
          "ibv_reg_mr (pinned pages -> a TPT region): lkey = rkey = its STag");
    b = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    check(b != NULL && a != NULL && b->lkey >> 8 != a->lkey >> 8,
          "a second ibv_reg_mr of the same pages: another STag index");
    check((!a || ibv_dereg_mr(a) == 0) && (!b || ibv_dereg_mr(b) == 0),
          "ibv_dereg_mr of both");
    /* 30000 registrations of 9 pages: more than the ATT's 262144 slots
     * and the 16383 STags, so dereg must give both back */
    for (i = 0, ok = 1; ok && i < 30000; i++) {
        m = ibv_reg_mr(pd, buf + 1, sizeof(buf), acc);
        ok = m != NULL && ibv_dereg_mr(m) == 0;
    }
    snprintf(line, sizeof(line),
             "30000 ibv_reg_mr/ibv_dereg_mr of 9 pages: slots and STags come back (%d done)",
             i - !ok);
    check(ok, line);
    /* more pages than the ATT's slots (1 GiB of 4 KiB pages): refused
     * before a page is pinned */
    big = mmap(NULL, BIG_MR, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    m = big == MAP_FAILED ? NULL : ibv_reg_mr(pd, big, BIG_MR, acc);
    check(big != MAP_FAILED && m == NULL,
          "ibv_reg_mr of 2 GiB (more pages than ATT slots) is refused");
    if (m)
        ibv_dereg_mr(m);
    if (big != MAP_FAILED)
        munmap(big, BIG_MR);
}

/* hold: a process that dies with a PD, CQ, MR and QP (INIT, a receive
 * posted) live, for the device going away under it: `rdma link delete`
 * waits for its file to close, and the RDMA core destroys its objects
 * through the driver (destroy_qp flushes). Prints "hold: ready". */
static int hold(const char *name, int seconds)
{
    static char buf[4096];
    struct ibv_context *ctx = NULL;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    struct ibv_recv_wr *rbad;

    ctx = open_by_name(name);
    if (!ctx)
        return 1;
    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
    qp = NULL;
    if (pd && cq && mr) {
        struct ibv_qp_init_attr qa = {
            .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 4, .max_recv_wr = 4,
                     .max_send_sge = 1, .max_recv_sge = 1 },
        };
        struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(buf),
                               .lkey = mr->lkey };
        struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };

        qp = ibv_create_qp(pd, &qa);
        if (qp && (to_state(qp, IBV_QPS_INIT) || ibv_post_recv(qp, &rwr, &rbad)))
            qp = NULL;
    }
    if (!qp)
        return 1;
    printf("hold: ready\n");
    fflush(stdout);
    sleep(seconds);
    _exit(0); /* nothing destroyed, nothing closed */
}

/*
 * scribble: user space is hostile (issue 29 item 3). For SECONDS, QP after
 * QP: random bytes over the mmap'ed SQ and RQ rings (found as in
 * hostile_checks), random VALID flags among them, then libsiw's own posts
 * ring the doorbell so the device pulls whatever the rings hold; random
 * state changes between rounds; a QP the device moved to ERROR is
 * destroyed and a new one made. The kernel must neither oops nor warn
 * (the guest script checks dmesg); the process must live to print its
 * tally. Returns 0 when at least one doorbell was rung on every QP.
 */
static uint64_t xs_state = 0x9E3779B97F4A7C15ull;

static uint64_t xs(void)
{
    xs_state ^= xs_state << 13;
    xs_state ^= xs_state >> 7;
    xs_state ^= xs_state << 17;
    return xs_state;
}

static void scribble_ring(unsigned char *p, size_t len)
{
    size_t i;

    for (i = 0; i + 8 <= len; i += 8) {
        uint64_t v = xs();

        memcpy(p + i, &v, 8);
    }
}

static int scribble(const char *name, int seconds)
{
    static char buf[4096] __attribute__((aligned(4096)));
    struct ibv_context *ctx = NULL;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_mr *mr;
    struct ibv_wc wc[16];
    unsigned long s0[32], l0[32], s1[32], l1[32];
    unsigned long rounds = 0, doorbells = 0, errs = 0;
    time_t end = time(NULL) + seconds;
    int i, j;

    ctx = open_by_name(name);
    if (!ctx)
        return 1;
    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (!pd || !cq || !mr)
        return 1;
    while (time(NULL) < end) {
        struct ibv_qp_init_attr qa = {
            .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 64, .max_recv_wr = 4,
                     .max_send_sge = 1, .max_recv_sge = 1 },
        };
        struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64,
                               .lkey = mr->lkey };
        struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
                                   .opcode = IBV_WR_SEND,
                                   .send_flags = IBV_SEND_SIGNALED };
        struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
        struct ibv_send_wr *sbad;
        struct ibv_recv_wr *rbad;
        unsigned char *sq = NULL, *rq = NULL;
        size_t sq_len = 0;
        struct ibv_qp *qp;
        int k, n0, n1;

        n0 = uverbs_maps(s0, l0, 32);
        qp = ibv_create_qp(pd, &qa);
        if (!qp)
            return 1;
        n1 = uverbs_maps(s1, l1, 32);
        for (i = 0; i < n1; i++) {
            for (j = 0; j < n0 && s0[j] != s1[i]; j++)
                ;
            if (j < n0)
                continue;
            if (l1[i] == 4096)
                rq = (unsigned char *)s1[i];
            else {
                sq = (unsigned char *)s1[i];
                sq_len = l1[i];
            }
        }
        if (!sq || !rq)
            return 1;
        if (xs() & 1)
            (void)to_state(qp, IBV_QPS_INIT);
        if (xs() & 1)
            (void)to_state(qp, IBV_QPS_RTR);
        for (k = 0; k < 64; k++) {
            scribble_ring(sq, sq_len);
            scribble_ring(rq, 4096);
            swr.wr_id = xs();
            rwr.wr_id = xs();
            if (ibv_post_recv(qp, &rwr, &rbad))
                errs++;
            if (ibv_post_send(qp, &swr, &sbad))
                errs++;
            doorbells++;
            while (ibv_poll_cq(cq, 16, wc) > 0)
                ;
            if (qp_state(qp, NULL) == IBV_QPS_ERR)
                break;
        }
        if (xs() % 4 == 0)
            (void)to_state(qp, IBV_QPS_ERR);
        if (ibv_destroy_qp(qp))
            return 1;
        while (ibv_poll_cq(cq, 16, wc) > 0)
            ;
        rounds++;
    }
    printf("scribble: %lu QPs, %lu doorbells, %lu posts refused, %d s\n",
           rounds, doorbells, errs, seconds);
    ibv_dereg_mr(mr);
    ibv_destroy_cq(cq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    return rounds > 0 ? 0 : 1;
}

/* bigreg: registers one region of `mib` MiB (touched first, so every
 * page exists) for every right, twice (the slots come back in between),
 * and deregisters it (issue 29 item 4: the largest region the guest
 * allows; the device's ATT holds 1 GiB of 4 KiB pages) */
static int bigreg(const char *name, int mib)
{
    size_t len = (size_t)mib << 20;
    struct ibv_context *ctx = open_by_name(name);
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    unsigned char *p;
    int round, ok = 1;

    if (!ctx || !(pd = ibv_alloc_pd(ctx)))
        return 1;
    p = mmap(NULL, len, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    for (round = 0; round < 2 && ok; round++) {
        mr = ibv_reg_mr(pd, p, len,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                            IBV_ACCESS_REMOTE_READ);
        ok = mr != NULL && mr->length == len && ibv_dereg_mr(mr) == 0;
    }
    printf("bigreg: %d MiB registered and deregistered %d times: %s\n", mib,
           round, ok ? "ok" : "FAILED");
    munmap(p, len);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    return ok ? 0 : 1;
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

    if (argc == 5 && strcmp(argv[3], "hold") == 0)
        return hold(argv[1], atoi(argv[4]));
    if (argc == 5 && strcmp(argv[3], "scribble") == 0)
        return scribble(argv[1], atoi(argv[4]));
    if (argc == 5 && strcmp(argv[3], "bigreg") == 0)
        return bigreg(argv[1], atoi(argv[4]));
    if (argc != 3 || sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1],
                            &mac[2], &mac[3], &mac[4], &mac[5]) != 6) {
        fprintf(stderr, "usage: ofl_iw_probe DEVICE MAC [hold|scribble SECONDS | bigreg MIB]\n");
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
          da.max_qp_rd_atom == 128 && da.max_qp_init_rd_atom == 128 &&
          /* the device's atomics (kernel consumers); libsiw's ring
           * carries none, so a user process cannot post one */
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

    if (pd && cq && ch)
        qp_checks(pd, cq, ch);
    if (pd && cq) {
        hostile_checks(pd, cq);
        hostile_sq_checks(pd, cq);
    }
    if (pd)
        mr_checks(pd);

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
