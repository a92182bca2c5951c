/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* qp over real TCP: the posix port's sockets as the wire, MPA negotiated at
 * connect, the transmit callback and the receive feed; MPA failures.
 * ofl-test-needs: posix */
#include "test.h"
#include "support/qp_rig.h"
#include "ports/posix/ofl_posix.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct acceptor {
    int lfd;
    int fd;        /* out: the accepted connection (the test closes it) */
    struct ofl_posix_conn *conn;
    struct ofl_mpa_cfg cfg;
    enum ofl_err err;
    int garbage;   /* answer with bytes that are no MPA frame */
    int timeout_ms; /* of ofl_posix_mpa_accept; 0: 5000 */
    long delay_ms; /* wait this long after the accept before reading */
};

static void *accept_thread(void *p)
{
    struct acceptor *a = p;
    int fd = ofl_posix_tcp_accept(a->lfd);
    struct timespec ts = {a->delay_ms / 1000, (a->delay_ms % 1000) * 1000000};

    a->fd = fd;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;

    if (a->garbage) {
        static const uint8_t junk[32] = "NOT AN MPA FRAME AT ALL........";
        char buf[600];

        (void)recv(fd, buf, sizeof(buf), 0);
        (void)send(fd, junk, sizeof(junk), 0);
        sleep(1);
        close(fd);
        return NULL;
    }
    a->err = ofl_posix_mpa_accept(a->conn, fd, &a->cfg,
                                  a->timeout_ms ? a->timeout_ms : 5000);
    return NULL;
}

/* The responder's MPA on a->fd, a connected socket (no listen). */
static void *accept_fd_thread(void *p)
{
    struct acceptor *a = p;

    a->err = ofl_posix_mpa_accept(a->conn, a->fd, &a->cfg, 5000);
    return NULL;
}

static void cfg_init(struct ofl_mpa_cfg *c, bool markers)
{
    memset(c, 0, sizeof(*c));
    c->rev = 2;
    c->crc = true;
    c->markers = markers;
    c->enhanced = true;
    c->ird = 8;
    c->ord = 8;
}

/* When set, rebind gives the QP transmit by reference too
 * (ofl_posix_transmitv, with the sim port's dma_crc32c). */
static bool by_ref;

/* Re-creates side s's QP over the TCP connection c. */
static int rebind(struct qr_side *s, struct ofl_posix_conn *c)
{
    s->attr.transmit = ofl_posix_transmit;
    s->attr.transmit_ctx = c;
    s->attr.transmitv = by_ref ? ofl_posix_transmitv : NULL;
    s->attr.txref = s->txref;
    s->attr.txref_cap = QR_TXREF;
    ofl_sim_set_fused(&s->sim, by_ref);
    if (ofl_qp_create(&s->qp, &s->attr, &s->qmem) != OFL_OK ||
        ofl_qp_modify(&s->qp, OFL_QP_INIT) != OFL_OK ||
        ofl_posix_establish(c, &s->qp, 1460, 1u << 20) != OFL_OK)
        return -1;
    return 0;
}

static void pump2(struct qr_side *a, struct ofl_posix_conn *ca,
                  struct qr_side *b, struct ofl_posix_conn *cb, int rounds)
{
    int i;

    for (i = 0; i < rounds; i++) {
        (void)ofl_qp_process(&a->qp, 0, 64);
        (void)ofl_qp_process(&b->qp, 0, 64);
        (void)ofl_posix_poll(ca, &a->qp, 1);
        (void)ofl_posix_poll(cb, &b->qp, 1);
    }
}

static void test_tcp(bool markers)
{
    struct qr_rig *r = qr_new(NULL);
    static struct ofl_posix_conn ca, cb;
    struct acceptor acc;
    pthread_t th;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), fd;
    uint8_t *src, *dst, *back;
    uint32_t ls, ld, lb, i;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe c[4];

    CHECK(lfd >= 0 && port != 0);
    memset(&acc, 0, sizeof(acc));
    acc.lfd = lfd;
    acc.conn = &cb;
    cfg_init(&acc.cfg, markers);
    CHECK(pthread_create(&th, NULL, accept_thread, &acc) == 0);
    fd = ofl_posix_tcp_connect("127.0.0.1", port);
    CHECK(fd >= 0);
    {
        struct ofl_mpa_cfg cfg;

        cfg_init(&cfg, markers);
        CHECK_OK(ofl_posix_mpa_connect(&ca, fd, &cfg, 5000));
    }
    pthread_join(th, NULL);
    CHECK_OK(acc.err);
    CHECK(ca.params.crc && cb.params.crc);
    CHECK_EQ(ca.params.markers_tx, markers);
    CHECK_EQ(cb.params.markers_rx, markers);
    CHECK_EQ(rebind(&r->a, &ca), 0);
    CHECK_EQ(rebind(&r->b, &cb), 0);
    src = qr_alloc(&r->a, 20000, false);
    back = qr_alloc(&r->a, 20000, false);
    dst = qr_alloc(&r->b, 20000, false);
    ls = qr_reg(&r->a, src, 20000, OFL_TPT_LOCAL_READ, 0);
    lb = qr_reg(&r->a, back, 20000,
                OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE, 0);
    ld = qr_reg(&r->b, dst, 20000,
                OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE |
                    OFL_TPT_LOCAL_READ | OFL_TPT_REMOTE_READ,
                0);
    for (i = 0; i < 20000; i++)
        src[i] = (uint8_t)(i * 3 + 1);
    CHECK_OK(qr_post_recv(&r->b, 1, dst, 20000, ld));
    qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, src, 20000, ls);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    /* a Send completes once sent; the peer's receive once it arrived */
    CHECK_EQ(ofl_posix_wait(&ca, &r->a.qp, &r->a.scq, c, 5000),
             OFL_POSIX_WAIT_CQE);
    CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, c, 5000),
             OFL_POSIX_WAIT_CQE);
    CHECK_EQ(c[0].byte_len, 20000);
    CHECK(memcmp(src, dst, 20000) == 0);
    qr_wr(&wr, OFL_QP_OP_READ, 2, &sge, back, 20000, lb);
    wr.remote_stag = ld;
    wr.remote_to = (uint64_t)(uintptr_t)dst;
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    pump2(&r->a, &ca, &r->b, &cb, 50); /* both ends: b answers the Read */
    CHECK_EQ(qr_poll(&r->a, true, c, 4), 1);
    CHECK_EQ(c[0].status, OFL_WC_SUCCESS);
    CHECK(memcmp(back, src, 20000) == 0);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    /* the Send by reference, the Read Response by copy (a size build
     * sends by copy only) */
    if (by_ref && !markers)
        CHECK((r->a.sim.crc_reads > 0) == OFL_TEST_FAST_PATH &&
              r->b.sim.crc_reads == 0);
    /* a graceful close: the peer sees EOF, its QP takes the event */
    CHECK_OK(ofl_qp_modify(&r->a.qp, OFL_QP_CLOSING));
    pump2(&r->a, &ca, &r->b, &cb, 5);
    CHECK(cb.eof);
    CHECK_EQ(r->b.qp.state, OFL_QP_ERROR); /* its receive was flushed */
    CHECK_EQ(ofl_posix_poll(&cb, &r->b.qp, 0), -1);
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

static void test_mpa_failures(void)
{
    struct ofl_mpa_cfg cfg;
    static struct ofl_posix_conn c;
    struct acceptor acc;
    pthread_t th;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), fd;

    cfg_init(&cfg, false);
    /* garbage instead of a Reply */
    memset(&acc, 0, sizeof(acc));
    acc.lfd = lfd;
    acc.garbage = 1;
    CHECK(pthread_create(&th, NULL, accept_thread, &acc) == 0);
    fd = ofl_posix_tcp_connect("127.0.0.1", port);
    CHECK_ERR(ofl_posix_mpa_connect(&c, fd, &cfg, 5000), OFL_E_MPA_KEY);
    pthread_join(th, NULL);
    close(fd);
    /* nobody answers: a timeout */
    fd = ofl_posix_tcp_connect("127.0.0.1", port);
    CHECK_ERR(ofl_posix_mpa_connect(&c, fd, &cfg, 50), OFL_E_PORT_DMA);
    close(fd);
    close(lfd);
    CHECK_EQ(ofl_posix_tcp_connect("127.0.0.1", 1), -1);
    CHECK_EQ(ofl_posix_tcp_listen("not an address", 0, NULL), -1);
    CHECK_ERR(ofl_posix_mpa_connect(&c, -1, &cfg, 10), OFL_E_PORT_DMA);
    cfg.rev = 9;
    CHECK_ERR(ofl_posix_mpa_connect(&c, -1, &cfg, 10), OFL_E_ARG);
}

/* Connects to host:port, accepts on lfd, and moves one byte each way:
 * true when all of it worked. */
static bool reaches(int lfd, const char *host, uint16_t port)
{
    int a = ofl_posix_tcp_connect(host, port), b = -1;
    char x = 'x', y = 0, z = 0;
    bool ok = false;

    if (a >= 0 && (b = ofl_posix_tcp_accept(lfd)) >= 0)
        ok = send(a, &x, 1, 0) == 1 && recv(b, &y, 1, 0) == 1 &&
             send(b, &y, 1, 0) == 1 && recv(a, &z, 1, 0) == 1 && z == 'x';
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return ok;
}

/* Listening: a numeric IPv4 or IPv6 address, or any (both families on one
 * socket); names and malformed addresses are refused. (Before, only IPv4:
 * "::1" was refused and the wildcard took IPv4 alone.) */
static void test_listen_families(void)
{
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), v6;

    CHECK(lfd >= 0 && port != 0);
    CHECK(reaches(lfd, "127.0.0.1", port));
    close(lfd);
    CHECK_EQ(ofl_posix_tcp_listen("localhost", 0, NULL), -1); /* a name */
    CHECK_EQ(ofl_posix_tcp_listen("127.0.0.256", 0, NULL), -1);
    CHECK_EQ(ofl_posix_tcp_listen("::g", 0, NULL), -1);
    /* A system without IPv6 loopback (no sockets, or disabled) runs the
     * IPv4 half only, and says so. */
    v6 = socket(AF_INET6, SOCK_STREAM, 0);
    {
        struct sockaddr_in6 a;

        memset(&a, 0, sizeof(a));
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        if (v6 < 0 || bind(v6, (struct sockaddr *)&a, sizeof(a)) != 0) {
            printf("note: no IPv6 loopback here; the IPv6 listens are not "
                   "run\n");
            if (v6 >= 0)
                close(v6);
            return;
        }
    }
    close(v6);
    port = 0;
    lfd = ofl_posix_tcp_listen("::1", 0, &port);
    CHECK(lfd >= 0 && port != 0);
    CHECK(reaches(lfd, "::1", port));
    close(lfd);
    for (v6 = 0; v6 < 2; v6++) { /* NULL, then "::": both families */
        port = 0;
        lfd = ofl_posix_tcp_listen(v6 ? "::" : NULL, 0, &port);
        CHECK(lfd >= 0 && port != 0);
        CHECK(reaches(lfd, "::1", port));
        CHECK(reaches(lfd, "127.0.0.1", port));
        close(lfd);
    }
}

/* OFL_QP_TX_ABORT resets the connection: the peer sees a reset, not an
 * end of stream; CLOSE ends it with a FIN (the peer sees the end). */
static void test_abort_resets(void)
{
    static struct ofl_posix_conn c;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), a, b, k = 1;
    char buf[64];
    int i;

    CHECK(lfd >= 0);
    for (i = 0; i < 2; i++) {
        a = ofl_posix_tcp_connect("127.0.0.1", port);
        b = ofl_posix_tcp_accept(lfd);
        CHECK(a >= 0 && b >= 0);
        memset(&c, 0, sizeof(c));
        c.fd = a;
        CHECK_EQ(ofl_posix_transmit(&c, (const uint8_t *)"abcd", 4, 0), 0);
        CHECK_EQ(ofl_posix_transmit(&c, NULL, 0,
                                    i == 0 ? OFL_QP_TX_ABORT
                                           : OFL_QP_TX_CLOSE),
                 0);
        /* read until the stream ends: a reset (-1) or the end (0) */
        do
            k = (int)recv(b, buf, sizeof(buf), 0);
        while (k > 0);
        CHECK_EQ(k, i == 0 ? -1 : 0);
        close(a);
        close(b);
    }
    close(lfd);
}

/*
 * A peer that sends a valid MPA Request two bytes at a time, every 60 ms:
 * each piece comes well inside the acceptor's timeout, the whole frame
 * (some 0.8 s) does not. An acceptor of 300 ms refuses it as a timeout;
 * one of 5 s takes it. (A timeout per read took the slow one too, so a
 * trickling peer held a handshake open for as long as it liked.)
 */
static void test_mpa_trickle(void)
{
    static const int timeouts[2] = {300, 5000};
    struct ofl_mpa_cfg cfg;
    struct ofl_mpa_hs hs;
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len = 0, off;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), fd, i;

    CHECK(lfd >= 0);
    cfg_init(&cfg, false);
    CHECK_OK(ofl_mpa_hs_init(&hs, &cfg, true));
    CHECK_OK(ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len));
    CHECK(len >= 20);
    for (i = 0; i < 2; i++) {
        static struct ofl_posix_conn c;
        struct acceptor t;
        pthread_t th;

        memset(&t, 0, sizeof(t));
        t.lfd = lfd;
        t.fd = -1;
        t.conn = &c;
        cfg_init(&t.cfg, false);
        t.timeout_ms = timeouts[i];
        CHECK(pthread_create(&th, NULL, accept_thread, &t) == 0);
        fd = ofl_posix_tcp_connect("127.0.0.1", port);
        CHECK(fd >= 0);
        for (off = 0; off < len; off += 2) {
            (void)send(fd, frame + off, len - off < 2 ? len - off : 2,
                       MSG_NOSIGNAL);
            usleep(60 * 1000);
        }
        pthread_join(th, NULL);
        if (i == 0)
            CHECK_ERR(t.err, OFL_E_PORT_DMA);
        else
            CHECK_OK(t.err);
        close(fd);
        if (t.fd >= 0)
            close(t.fd);
    }
    close(lfd);
}

/* Reads what b holds until the stream ends: 0 at a clean end, -1 at a
 * reset; *got counts the bytes. */
static int drain(int b, size_t *got)
{
    char buf[65536];
    ssize_t k;

    *got = 0;
    for (;;) {
        k = recv(b, buf, sizeof(buf), 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k == 0 ? 0 : -1;
        *got += (size_t)k;
    }
}

/*
 * A peer that reads nothing. The transmission that finds the socket full
 * takes none at once and leaves the stream as it was (the peer later reads
 * every byte sent before, then a clean end); one whose rest is too long to
 * keep waits tx_timeout_ms for it, then resets the stream, so the engine's
 * resend can never follow a piece of an FPDU. (Before the timeout, the
 * transmit blocked for as long as the peer did not read.)
 */
static void test_tx_stall(void)
{
    static struct ofl_posix_conn c;
    static uint8_t big[4u << 20];
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), a, b, i;
    int small = 4096;
    size_t filled, got;

    CHECK(lfd >= 0);
    for (i = 0; i < 2; i++) {
        a = ofl_posix_tcp_connect("127.0.0.1", port);
        b = ofl_posix_tcp_accept(lfd);
        CHECK(a >= 0 && b >= 0);
        (void)setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
        (void)setsockopt(b, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        memset(&c, 0, sizeof(c));
        c.fd = a;
        c.tx_timeout_ms = 200;
        filled = 0;
        if (i == 0) {
            /* Fill the path by hand until it stays full (the window goes
             * on opening for a moment): the transmission then takes none. */
            size_t before;

            do {
                struct timespec ts = {0, 50 * 1000 * 1000};

                before = filled;
                for (;;) {
                    ssize_t k = send(a, big, 1024,
                                     MSG_DONTWAIT | MSG_NOSIGNAL);

                    if (k <= 0)
                        break;
                    filled += (size_t)k;
                }
                nanosleep(&ts, NULL);
            } while (filled != before);
            CHECK(filled > 0);
            CHECK(ofl_posix_transmit(&c, big, 64, 0) != 0);
            close(a);
            CHECK_EQ(drain(b, &got), 0); /* intact, then a clean end */
            CHECK_EQ(got, filled);
        } else {
            /* 4 MiB against a peer that reads nothing: part goes out. */
            CHECK(ofl_posix_transmit(&c, big, sizeof(big), 0) != 0);
            close(a); /* a close after a reset ends nothing gracefully */
            CHECK_EQ(drain(b, &got), -1); /* the stream was reset */
            CHECK(got < sizeof(big));
        }
        close(b);
    }
    close(lfd);
}

/* Socket options of the small pair, set before the connection exists (an
 * MSS of a real link, not loopback's 64 KiB: a window of a few KiB must
 * hold whole segments, as on a network). */
static void small_opts(int s)
{
    int small = 4096, mss = 1400;

    (void)setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    (void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    (void)setsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
}

/* A socket connected to 127.0.0.1:port (listening on lfd, which is given
 * the same options: an accepted socket inherits them), both with the small
 * options and TCP_NODELAY (as the port's own connect). The connection
 * completes in the listen backlog, before any accept. */
static int small_connect(int lfd, uint16_t port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    CHECK(fd >= 0);
    small_opts(lfd);
    small_opts(fd);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    return fd;
}

/* A connected pair of posix connections (MPA without markers) over
 * sockets of 4 KiB buffers; side b accepted by the acceptor thread. */
static void small_pair(int lfd, uint16_t port, struct ofl_posix_conn *ca,
                       struct ofl_posix_conn *cb)
{
    struct acceptor acc;
    struct ofl_mpa_cfg cfg;
    pthread_t th;
    int fd = small_connect(lfd, port);

    memset(&acc, 0, sizeof(acc));
    acc.lfd = lfd;
    acc.conn = cb;
    cfg_init(&acc.cfg, false);
    CHECK(pthread_create(&th, NULL, accept_thread, &acc) == 0);
    cfg_init(&cfg, false);
    CHECK_OK(ofl_posix_mpa_connect(ca, fd, &cfg, 5000));
    pthread_join(th, NULL);
    CHECK_OK(acc.err);
}

/* Posts on side s a Write of n bytes of src (local STag ls) to dst (the
 * peer's STag ld), then a Send of src's first 16 bytes. */
static void write_then_send(struct qr_side *s, uint8_t *src, uint32_t ls,
                            uint32_t n, uint8_t *dst, uint32_t ld)
{
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;

    qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, src, n, ls);
    wr.remote_stag = ld;
    wr.remote_to = (uint64_t)(uintptr_t)dst;
    CHECK_OK(ofl_qp_post_send(&s->qp, &wr, NULL));
    qr_wr(&wr, OFL_QP_OP_SEND, 2, &sge, src, 16, ls);
    CHECK_OK(ofl_qp_post_send(&s->qp, &wr, NULL));
}

/*
 * Both ends sending at once, both engines driven by one thread (pump2),
 * through 4 KiB socket buffers: a transmission that finds its socket full
 * takes none, or keeps the rest it could not send, and the polls read the
 * other direction meanwhile, so both 96 KiB Writes arrive whole on live
 * connections. (Before, a full socket held the thread in the transmit,
 * while the only reader of the other direction was that same thread: after
 * tx_timeout_ms the stream was reset.)
 */
static void test_both_directions(void)
{
    enum { N = 96 * 1024 };
    struct qr_rig *r = qr_new(NULL);
    static struct ofl_posix_conn ca, cb;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), round;
    uint8_t *sa, *da, *sb, *db, *ma, *mb;
    uint32_t lsa, lda, lsb, ldb, lma, lmb, i, done_a = 0, done_b = 0;
    struct ofl_cqe c[4];

    CHECK(r != NULL && lfd >= 0);
    small_pair(lfd, port, &ca, &cb);
    ca.tx_timeout_ms = cb.tx_timeout_ms = 300;
    CHECK_EQ(rebind(&r->a, &ca), 0);
    CHECK_EQ(rebind(&r->b, &cb), 0);
    sa = qr_alloc(&r->a, N, false);
    da = qr_alloc(&r->a, N, false);
    sb = qr_alloc(&r->b, N, false);
    db = qr_alloc(&r->b, N, false);
    lsa = qr_reg(&r->a, sa, N, OFL_TPT_LOCAL_READ, 0);
    lda = qr_reg(&r->a, da, N, OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE, 0);
    lsb = qr_reg(&r->b, sb, N, OFL_TPT_LOCAL_READ, 0);
    ldb = qr_reg(&r->b, db, N, OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE, 0);
    ma = qr_alloc(&r->a, 16, false);
    mb = qr_alloc(&r->b, 16, false);
    lma = qr_reg(&r->a, ma, 16, OFL_TPT_LOCAL_WRITE, 0);
    lmb = qr_reg(&r->b, mb, 16, OFL_TPT_LOCAL_WRITE, 0);
    for (i = 0; i < N; i++) {
        sa[i] = (uint8_t)(i * 7 + 3);
        sb[i] = (uint8_t)(i * 5 + 1);
    }
    /* Each side: a Write of N bytes, then a Send whose arrival at the peer
     * (a receive completion) follows the Write's last byte. */
    CHECK_OK(qr_post_recv(&r->a, 7, ma, 16, lma));
    CHECK_OK(qr_post_recv(&r->b, 8, mb, 16, lmb));
    write_then_send(&r->a, sa, lsa, N, db, ldb);
    write_then_send(&r->b, sb, lsb, N, da, lda);
    for (round = 0; round < 20000 && (done_a < 3 || done_b < 3); round++) {
        pump2(&r->a, &ca, &r->b, &cb, 1);
        done_a += qr_poll(&r->a, true, c, 4) + qr_poll(&r->a, false, c, 4);
        done_b += qr_poll(&r->b, true, c, 4) + qr_poll(&r->b, false, c, 4);
    }
    CHECK_EQ(done_a, 3); /* Write, Send, the peer's Send */
    CHECK_EQ(done_b, 3);
    CHECK_EQ(r->a.qp.state, OFL_QP_RTS);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    CHECK(!ca.eof && !cb.eof);
    CHECK(memcmp(db, sa, N) == 0);
    CHECK(memcmp(da, sb, N) == 0);
    /* the path under test was taken: full sockets were met */
    CHECK(ca.tx_refused + ca.tx_kept + cb.tx_refused + cb.tx_kept > 0);
    /* by reference: the payload was summed in place, never read by copy
     * (the Sends' 16 bytes and the Writes' N each way; a size build sends
     * by copy only) */
    if (by_ref) {
        CHECK((r->a.sim.crc_reads > 0) == OFL_TEST_FAST_PATH &&
              (r->b.sim.crc_reads > 0) == OFL_TEST_FAST_PATH);
        CHECK_EQ(r->a.sim.fused_reads + r->b.sim.fused_reads, 0);
    }
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

struct late_reader {
    int fd;
    size_t got;
    int rc;
};

static void *late_reader_thread(void *p)
{
    struct late_reader *l = p;
    struct timespec ts = {0, 100 * 1000 * 1000};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    l->rc = drain(l->fd, &l->got);
    return NULL;
}

/* A connected pair of small-buffered sockets: *a the sender, the accepted
 * fd returned. */
static int small_sockets(int lfd, uint16_t port, int *a)
{
    *a = small_connect(lfd, port);
    return ofl_posix_tcp_accept(lfd);
}

/*
 * A kept rest the peer takes no byte of for tx_timeout_ms: until then each
 * transmission takes none; after it the stream is reset (a piece of an
 * FPDU is on it), and the next transmission says so.
 */
static void test_rest_times_out(void)
{
    static struct ofl_posix_conn c;
    static uint8_t buf[48 * 1024];
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), a, b, i;
    size_t got;

    CHECK(lfd >= 0);
    b = small_sockets(lfd, port, &a);
    CHECK(b >= 0);
    memset(&c, 0, sizeof(c));
    c.fd = a;
    c.tx_timeout_ms = 200;
    CHECK_EQ(ofl_posix_transmit(&c, buf, sizeof(buf), 0), 0);
    CHECK_EQ(c.tx_kept, 1);
    CHECK(ofl_posix_transmit(&c, buf, 64, 0) != 0); /* the rest first */
    CHECK_EQ(c.tx_refused, 1);
    CHECK_EQ(c.tx_blocked, 1);
    /* The peer's kernel takes bytes until its buffer is full; the clock
     * runs from the last of them. */
    for (i = 0; i < 20 && c.tx_pend_len != 0; i++) {
        struct timespec ts = {0, 250 * 1000 * 1000};

        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        CHECK(ofl_posix_transmit(&c, buf, 64, 0) != 0);
    }
    CHECK_EQ(c.tx_blocked, 0); /* not blocked: reset */
    CHECK_EQ(c.tx_pend_len, 0);
    close(a);
    CHECK_EQ(drain(b, &got), -1);
    CHECK(got < sizeof(buf));
    close(b);
    close(lfd);
}

/*
 * A transmission the socket takes only part of keeps its rest and reports
 * it taken (the engine may complete its WQE); the rest, and its close, go
 * out at ofl_posix_close, which waits for the peer that starts reading
 * 100 ms later: it reads every byte, then a clean end.
 */
static void test_close_sends_rest(void)
{
    static struct ofl_posix_conn c;
    static uint8_t buf[48 * 1024];
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), a;
    struct late_reader l;
    pthread_t th;

    CHECK(lfd >= 0);
    l.fd = small_sockets(lfd, port, &a);
    CHECK(l.fd >= 0);
    memset(&c, 0, sizeof(c));
    c.fd = a;
    c.tx_timeout_ms = 5000;
    CHECK_EQ(ofl_posix_transmit(&c, buf, sizeof(buf), OFL_QP_TX_CLOSE), 0);
    CHECK_EQ(c.tx_kept, 1);
    CHECK(c.tx_pend_len != 0);
    CHECK(pthread_create(&th, NULL, late_reader_thread, &l) == 0);
    ofl_posix_close(&c);
    pthread_join(th, NULL);
    CHECK_EQ(l.rc, 0);
    CHECK_EQ(l.got, sizeof(buf));
    close(l.fd);
    close(lfd);
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A sender with 48 KiB taken and a rest kept (tx_timeout_ms ms) towards
 * a peer that reads nothing yet; *b the peer's fd. */
static void kept_rest(struct ofl_posix_conn *c, int lfd, uint16_t port,
                      int *b, int timeout_ms, uint32_t flags)
{
    static uint8_t buf[48 * 1024];
    int a;

    *b = small_sockets(lfd, port, &a);
    CHECK(*b >= 0);
    memset(c, 0, sizeof(*c));
    c->fd = a;
    c->tx_timeout_ms = timeout_ms;
    CHECK_EQ(ofl_posix_transmit(c, buf, sizeof(buf), flags), 0);
    CHECK_EQ(c->tx_kept, 1);
}

/*
 * The ways a kept rest ends besides a transmission:
 * - ofl_posix_close towards a peer that never reads: after tx_timeout_ms
 *   the stream is reset, not ended cleanly behind a piece of an FPDU;
 * - no transmission at all, only polls: the rest's deadline bounds the
 *   poll's wait and resets the stream once it passed;
 * - polls towards a peer that reads: the rest goes, then the CLOSE it
 *   carried (every byte, then a clean end);
 * - ABORT drops it and resets.
 */
static void test_rest_endings(void)
{
    static struct ofl_posix_conn c;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), b, i;
    uint32_t before;
    struct late_reader l;
    pthread_t th;
    size_t got;
    long long t0;

    CHECK(lfd >= 0);
    /* close, the peer never reading: a reset. The polls first send what
     * the path takes until it stays full, so that the close's own send
     * takes no byte at all (else it resets by itself). */
    kept_rest(&c, lfd, port, &b, 5000, 0);
    for (i = 0, before = 0; i < 3; i++) {
        before = c.tx_pend_off;
        (void)ofl_posix_poll(&c, NULL, 50);
        if (c.tx_pend_off != before)
            i = -1; /* progress: three quiet polls more */
    }
    CHECK(c.tx_pend_off < c.tx_pend_len);
    c.tx_timeout_ms = 200;
    ofl_posix_close(&c);
    CHECK_EQ(drain(b, &got), -1);
    CHECK(got < 48 * 1024);
    close(b);
    /* polls only: the deadline ends the wait and the stream */
    kept_rest(&c, lfd, port, &b, 200, 0);
    t0 = now_ms();
    for (i = 0; i < 8 && c.tx_pend_len != 0; i++)
        CHECK_EQ(ofl_posix_poll(&c, NULL, 1000), 0);
    CHECK_EQ(c.tx_pend_len, 0);
    CHECK(now_ms() - t0 < 4000); /* not 8 polls of 1 s */
    close(c.fd); /* a clean end, were the stream not reset */
    CHECK_EQ(drain(b, &got), -1);
    close(b);
    /* polls with a reading peer: the rest, then the CLOSE it carried */
    kept_rest(&c, lfd, port, &l.fd, 5000, OFL_QP_TX_CLOSE);
    CHECK(pthread_create(&th, NULL, late_reader_thread, &l) == 0);
    for (i = 0; i < 100 && c.tx_pend_len != 0; i++)
        (void)ofl_posix_poll(&c, NULL, 100);
    CHECK_EQ(c.tx_pend_len, 0);
    pthread_join(th, NULL);
    CHECK_EQ(l.rc, 0);
    CHECK_EQ(l.got, 48 * 1024);
    close(c.fd);
    close(l.fd);
    /* ABORT: dropped, reset */
    kept_rest(&c, lfd, port, &b, 5000, 0);
    CHECK_EQ(ofl_posix_transmit(&c, NULL, 0, OFL_QP_TX_ABORT), 0);
    CHECK_EQ(c.tx_pend_len, 0);
    CHECK_EQ(drain(b, &got), -1);
    close(c.fd);
    close(b);
    close(lfd);
}

static void on_alarm(int sig)
{
    (void)sig;
}

/* Signals during the handshake (a SIGALRM every 20 ms) do not fail it: a
 * poll or recv cut short by a signal waits out the rest of the timeout.
 * (Before, the first signal failed the handshake with OFL_E_PORT_DMA.) */
static void test_mpa_signals(void)
{
    static struct ofl_posix_conn c, cs;
    struct acceptor s;
    struct sigaction sa, old_sa;
    struct itimerval it, off;
    struct ofl_mpa_cfg cfg;
    pthread_t th;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port), fd;

    CHECK(lfd >= 0);
    memset(&s, 0, sizeof(s));
    s.lfd = lfd;
    s.fd = -1;
    s.conn = &cs;
    cfg_init(&s.cfg, false);
    s.delay_ms = 200; /* the Reply comes 200 ms (ten signals) late */
    s.err = OFL_E_ARG;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGALRM, &sa, &old_sa) == 0);
    CHECK(pthread_create(&th, NULL, accept_thread, &s) == 0);
    fd = ofl_posix_tcp_connect("127.0.0.1", port);
    CHECK(fd >= 0);
    memset(&it, 0, sizeof(it));
    it.it_interval.tv_usec = 20000;
    it.it_value.tv_usec = 20000;
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    cfg_init(&cfg, false);
    CHECK_OK(ofl_posix_mpa_connect(&c, fd, &cfg, 5000));
    memset(&off, 0, sizeof(off));
    (void)setitimer(ITIMER_REAL, &off, NULL);
    pthread_join(th, NULL);
    (void)sigaction(SIGALRM, &old_sa, NULL);
    CHECK_OK(s.err);
    close(fd);
    if (s.fd >= 0)
        close(s.fd);
    close(lfd);
}

/* ---- EMSS from the socket, and the blocking wait ------------------------ */

/* The socket's TCP_MAXSEG as the port derives an EMSS from it (Linux's
 * already excludes the timestamps; elsewhere the port takes 12 off). */
static uint32_t derived_emss(int fd)
{
    int mss = 0;
    socklen_t len = sizeof(mss);

    if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) != 0)
        return 0;
#if !defined(__linux__)
    mss -= 12;
#endif
    return (uint32_t)mss;
}

/* A socket connected to 127.0.0.1:port, TCP_NODELAY, and with mss as
 * TCP_MAXSEG set before the connection (0: the path's own). */
static int mss_connect(uint16_t port, int mss)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    CHECK(fd >= 0);
    if (mss != 0)
        CHECK(setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)) ==
              0);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    return fd;
}

/* MPA over a loopback connection (TCP_MAXSEG mss on the connecting side,
 * 0: none): *ca the initiator, *cb the responder (accepted on lfd). */
static void mss_pair(int lfd, uint16_t port, int mss, bool markers,
                     struct ofl_posix_conn *ca, struct ofl_posix_conn *cb)
{
    struct acceptor acc;
    struct ofl_mpa_cfg cfg;
    pthread_t th;
    int fd;

    memset(&acc, 0, sizeof(acc));
    acc.lfd = lfd;
    acc.conn = cb;
    cfg_init(&acc.cfg, markers);
    CHECK(pthread_create(&th, NULL, accept_thread, &acc) == 0);
    fd = mss_connect(port, mss);
    cfg_init(&cfg, markers);
    CHECK_OK(ofl_posix_mpa_connect(ca, fd, &cfg, 5000));
    pthread_join(th, NULL);
    CHECK_OK(acc.err);
}

/* Side s's QP re-created over c and established with emss (0: the
 * port's default). */
static enum ofl_err bind_qp(struct qr_side *s, struct ofl_posix_conn *c,
                            uint32_t emss)
{
    s->attr.transmit = ofl_posix_transmit;
    s->attr.transmit_ctx = c;
    if (ofl_qp_create(&s->qp, &s->attr, &s->qmem) != OFL_OK ||
        ofl_qp_modify(&s->qp, OFL_QP_INIT) != OFL_OK)
        return OFL_E_ARG;
    return ofl_posix_establish(c, &s->qp, emss, 1u << 20);
}

/* One Send of n bytes from side x (over cx) to side y (over cy): y waits
 * for it in a thread while x waits for its own completion. */
struct waiter {
    struct ofl_posix_conn *c;
    struct qr_side *s;
    bool send;      /* the send CQ, else the receive CQ */
    int timeout_ms;
    enum ofl_posix_wait_result r;
    struct ofl_cqe e;
};

static void *waiter_thread(void *p)
{
    struct waiter *w = p;

    w->r = ofl_posix_wait(w->c, &w->s->qp, w->send ? &w->s->scq : &w->s->rcq,
                          &w->e, w->timeout_ms);
    return NULL;
}

static void send_and_check(struct qr_side *x, struct ofl_posix_conn *cx,
                           struct qr_side *y, struct ofl_posix_conn *cy,
                           uint32_t n)
{
    uint8_t *src = qr_alloc(x, n, false), *dst = qr_alloc(y, n, false);
    uint32_t ls = qr_reg(x, src, n, OFL_TPT_LOCAL_READ, 0);
    uint32_t ld = qr_reg(y, dst, n, OFL_TPT_LOCAL_WRITE, 0), i;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;
    struct waiter w;
    pthread_t th;

    CHECK(src != NULL && dst != NULL && ls != 0 && ld != 0);
    for (i = 0; i < n; i++)
        src[i] = (uint8_t)(i * 13 + n);
    CHECK_OK(qr_post_recv(y, 5, dst, n, ld));
    memset(&w, 0, sizeof(w));
    w.c = cy;
    w.s = y;
    w.timeout_ms = 10000;
    CHECK(pthread_create(&th, NULL, waiter_thread, &w) == 0);
    qr_wr(&wr, OFL_QP_OP_SEND, 6, &sge, src, n, ls);
    CHECK_OK(ofl_qp_post_send(&x->qp, &wr, NULL));
    CHECK_EQ(ofl_posix_wait(cx, &x->qp, &x->scq, &e, 10000),
             OFL_POSIX_WAIT_CQE);
    CHECK_EQ(e.wr_id, 6);
    pthread_join(th, NULL);
    CHECK_EQ(w.r, OFL_POSIX_WAIT_CQE);
    CHECK_EQ(w.e.status, OFL_WC_SUCCESS);
    CHECK_EQ(w.e.byte_len, n);
    CHECK(memcmp(src, dst, n) == 0);
}

/*
 * The default EMSS over loopback: what the socket reports (Linux's
 * TCP_MAXSEG grows with the peer's window, never shrinks: the port's read
 * lies between one before and one after it), lowered to what the QP's
 * tx_cap holds (b: QR_TX, below loopback's MSS); the MULPDU follows. Sends
 * at those sizes arrive whole both ways.
 */
static void test_emss_loopback(bool markers)
{
    struct qr_opts o;
    struct qr_rig *r;
    static struct ofl_posix_conn ca, cb;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    uint32_t lo, hi;

    memset(&o, 0, sizeof(o));
    o.tx_cap = QR_TX_MAX;
    r = qr_new(&o);
    CHECK(r != NULL && lfd >= 0);
    mss_pair(lfd, port, 0, markers, &ca, &cb);
    /* a tx_cap of 1024: with markers an EMSS of 1024 needs 1028 (one
     * marker more than its MULPDU reserved), so the default steps down */
    r->a.qmem.tx_cap = 1024;
    CHECK_OK(bind_qp(&r->a, &ca, 0));
    CHECK(ca.emss <= 1024 && ca.emss > 1024 - 16);
    CHECK(ofl_qp_tx_need(r->a.qp.tx.mulpdu, markers) <= 1024);
    CHECK_EQ(ca.emss < 1024, markers);
    r->a.qmem.tx_cap = QR_TX_MAX;
    lo = derived_emss(ca.fd);
    CHECK_OK(bind_qp(&r->a, &ca, 0));
    hi = derived_emss(ca.fd);
    CHECK(lo <= ca.emss && ca.emss <= hi);
    CHECK_EQ(ca.emss_socket, ca.emss);
    CHECK(ofl_posix_emss(&ca) >= hi); /* read later: never less */
    CHECK_EQ(r->a.qp.tx.mulpdu, ofl_mpa_mulpdu(ca.emss, markers));
    r->b.qmem.tx_cap = QR_TX;
    CHECK_OK(bind_qp(&r->b, &cb, 0));
    if (cb.emss_socket > QR_TX) {
        CHECK(cb.emss <= QR_TX && cb.emss > QR_TX - 64);
        CHECK(ofl_qp_tx_need(r->b.qp.tx.mulpdu, markers) <= QR_TX);
        CHECK_EQ(r->b.qp.tx.mulpdu, ofl_mpa_mulpdu(cb.emss, markers));
    } else {
        printf("note: loopback MSS %u here, not above %u: the tx_cap limit "
               "is not reached\n", (unsigned)cb.emss_socket, QR_TX);
        CHECK_EQ(cb.emss, cb.emss_socket);
    }
    send_and_check(&r->a, &ca, &r->b, &cb, 60000);
    send_and_check(&r->b, &cb, &r->a, &ca, 60000);
    CHECK_EQ(r->a.sim.violations + r->b.sim.violations, 0);
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

/*
 * A path of MSS 536 (TCP_MAXSEG before connect): both ends derive the
 * small EMSS the socket reports; an explicit EMSS is kept as given (also
 * above the socket's), and the default's FPDUs, read off the byte stream
 * by a plain socket, are each at most that EMSS, the full ones exactly
 * the MULPDU's FPDU.
 */
static void test_emss_small_path(void)
{
    struct qr_rig *r = qr_new(NULL);
    static struct ofl_posix_conn ca, cb;
    static uint8_t stream[16384];
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    uint32_t n = 4000, have, off, fpdus = 0, biggest = 0, full;
    uint8_t *src;
    uint32_t ls;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;
    bool fits = true;

    CHECK(r != NULL && lfd >= 0);
    mss_pair(lfd, port, 536, false, &ca, &cb);
    CHECK(derived_emss(ca.fd) <= 536 && derived_emss(ca.fd) >= 500);
    CHECK_EQ(ofl_posix_emss(&ca), derived_emss(ca.fd));
    CHECK_EQ(ofl_posix_emss(&cb), derived_emss(cb.fd));
    CHECK(ofl_posix_emss(&cb) <= 536);
    /* explicit: kept, even above the socket's */
    CHECK_OK(bind_qp(&r->a, &ca, 8960));
    CHECK_EQ(ca.emss, 8960);
    CHECK_EQ(ca.emss_socket, derived_emss(ca.fd));
    CHECK_EQ(r->a.qp.tx.mulpdu, ofl_mpa_mulpdu(8960, false));
    CHECK_OK(bind_qp(&r->a, &ca, 1000));
    CHECK_EQ(ca.emss, 1000);
    /* the default: the socket's */
    CHECK_OK(bind_qp(&r->a, &ca, 0));
    CHECK_EQ(ca.emss, derived_emss(ca.fd));
    CHECK_EQ(r->a.qp.tx.mulpdu, ofl_mpa_mulpdu(ca.emss, false));
    src = qr_alloc(&r->a, n, false);
    ls = qr_reg(&r->a, src, n, OFL_TPT_LOCAL_READ, 0);
    qr_wr(&wr, OFL_QP_OP_SEND, 1, &sge, src, n, ls);
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_EQ(ofl_posix_wait(&ca, &r->a.qp, &r->a.scq, &e, 5000),
             OFL_POSIX_WAIT_CQE);
    ofl_posix_close(&ca); /* the peer reads to the end */
    /* b: the bytes after the MPA Reply, as they came */
    have = cb.early;
    memcpy(stream, cb.rx, have);
    for (;;) {
        ssize_t k = recv(cb.fd, stream + have, sizeof(stream) - have, 0);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        have += (uint32_t)k;
    }
    full = ofl_mpa_fpdu_len(0, false, ofl_mpa_mulpdu(ca.emss, false));
    for (off = 0; off + 2 <= have;) {
        uint32_t f = ofl_mpa_fpdu_len(0, false, ofl_load_be16(stream + off));

        if (f > ca.emss)
            fits = false;
        if (f > biggest)
            biggest = f;
        fpdus++;
        off += f;
    }
    CHECK_EQ(off, have); /* whole FPDUs, nothing else */
    CHECK(fits);
    CHECK_EQ(biggest, full);
    CHECK(fpdus >= n / ofl_mpa_mulpdu(ca.emss, false));
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

/* A socket that reports no MSS (a UNIX socket pair as the wire): the
 * default is OFL_POSIX_EMSS_FALLBACK, and emss_socket says 0. */
static void test_emss_fallback(void)
{
    struct qr_rig *r = qr_new(NULL);
    static struct ofl_posix_conn ca, cb;
    struct acceptor acc;
    struct ofl_mpa_cfg cfg;
    pthread_t th;
    int sv[2];

    CHECK(r != NULL);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    memset(&acc, 0, sizeof(acc));
    acc.lfd = -1;
    acc.conn = &cb;
    cfg_init(&acc.cfg, false);
    acc.fd = sv[1];
    CHECK(pthread_create(&th, NULL, accept_fd_thread, &acc) == 0);
    cfg_init(&cfg, false);
    CHECK_OK(ofl_posix_mpa_connect(&ca, sv[0], &cfg, 5000));
    pthread_join(th, NULL);
    CHECK_OK(acc.err);
    CHECK_EQ(ofl_posix_emss(&ca), 0);
    CHECK_OK(bind_qp(&r->a, &ca, 0));
    CHECK_EQ(ca.emss, OFL_POSIX_EMSS_FALLBACK);
    CHECK_EQ(ca.emss_socket, 0);
    CHECK_OK(bind_qp(&r->b, &cb, 0));
    send_and_check(&r->a, &ca, &r->b, &cb, 3000);
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    CHECK_EQ(ofl_posix_emss(&ca), 0); /* closed */
    CHECK_ERR(ofl_posix_establish(NULL, &r->a.qp, 0, 1024), OFL_E_ARG);
    CHECK_ERR(ofl_posix_establish(&ca, NULL, 0, 1024), OFL_E_ARG);
    qr_free(r);
}

/* A loopback pair with both QPs established at the default EMSS. */
static struct qr_rig *wait_rig(int lfd, uint16_t port,
                               struct ofl_posix_conn *ca,
                               struct ofl_posix_conn *cb)
{
    struct qr_rig *r = qr_new(NULL);

    CHECK(r != NULL);
    mss_pair(lfd, port, 0, false, ca, cb);
    CHECK_OK(bind_qp(&r->a, ca, 0));
    CHECK_OK(bind_qp(&r->b, cb, 0));
    return r;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* SIGALRM every 20 ms (on), or none (off). */
static void alarms(bool on)
{
    static struct sigaction old_sa;
    struct itimerval it;

    memset(&it, 0, sizeof(it));
    if (on) {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        CHECK(sigaction(SIGALRM, &sa, &old_sa) == 0);
        it.it_interval.tv_usec = 20000;
        it.it_value.tv_usec = 20000;
        CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    } else {
        (void)setitimer(ITIMER_REAL, &it, NULL);
        (void)sigaction(SIGALRM, &old_sa, NULL);
    }
}

/* The other end's thread: its signals blocked (the waiter takes them). */
static void block_alarms(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    (void)pthread_sigmask(SIG_BLOCK, &set, NULL);
}

struct late_sender {
    struct qr_side *s;
    struct ofl_posix_conn *c;
    uint8_t *src;
    uint32_t ls;
    long delay_ms;
    enum ofl_posix_wait_result r;
};

static void *late_sender_thread(void *p)
{
    struct late_sender *l = p;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;

    block_alarms();
    sleep_ms(l->delay_ms);
    qr_wr(&wr, OFL_QP_OP_SEND, 9, &sge, l->src, 64, l->ls);
    if (ofl_qp_post_send(&l->s->qp, &wr, NULL) == OFL_OK)
        l->r = ofl_posix_wait(l->c, &l->s->qp, &l->s->scq, &e, 5000);
    return NULL;
}

/*
 * The blocking wait: a Send that a second thread posts 200 ms later wakes
 * the waiter with its completion, under a SIGALRM every 20 ms (a poll cut
 * short by a signal is no timeout); with nothing sent, the timeout result
 * and not before the timeout (less a little slack for the clock's
 * rounding), signals or not; timeout 0 only looks.
 */
static void test_wait_wakes(void)
{
    static struct ofl_posix_conn ca, cb;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    struct qr_rig *r = wait_rig(lfd, port, &ca, &cb);
    uint8_t *src = qr_alloc(&r->a, 64, false), *dst = qr_alloc(&r->b, 64,
                                                               false);
    uint32_t ld = qr_reg(&r->b, dst, 64, OFL_TPT_LOCAL_WRITE, 0);
    struct late_sender l;
    struct ofl_cqe e;
    pthread_t th;
    long long t0, t1;
    int i;

    memset(src, 0x5A, 64);
    memset(&l, 0, sizeof(l));
    l.s = &r->a;
    l.c = &ca;
    l.src = src;
    l.ls = qr_reg(&r->a, src, 64, OFL_TPT_LOCAL_READ, 0);
    l.delay_ms = 200;
    l.r = OFL_POSIX_WAIT_ARG;
    CHECK_OK(qr_post_recv(&r->b, 3, dst, 64, ld));
    alarms(true);
    CHECK(pthread_create(&th, NULL, late_sender_thread, &l) == 0);
    t0 = now_ms();
    CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 10000),
             OFL_POSIX_WAIT_CQE);
    t1 = now_ms();
    pthread_join(th, NULL);
    CHECK_EQ(l.r, OFL_POSIX_WAIT_CQE);
    CHECK_EQ(e.wr_id, 3);
    CHECK_EQ(e.status, OFL_WC_SUCCESS);
    CHECK_EQ(e.byte_len, 64);
    CHECK(memcmp(dst, src, 64) == 0);
    CHECK(t1 - t0 >= 150); /* it slept until the Send came */
    /* nothing comes: the timeout, not earlier (with signals, then
     * without) */
    for (i = 0; i < 2; i++) {
        if (i == 1)
            alarms(false);
        t0 = now_ms();
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 300),
                 OFL_POSIX_WAIT_TIMEOUT);
        CHECK(now_ms() - t0 >= 300 - 5);
    }
    CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 0),
             OFL_POSIX_WAIT_TIMEOUT);
    CHECK_EQ(ofl_posix_wait(NULL, &r->b.qp, &r->b.rcq, &e, 0),
             OFL_POSIX_WAIT_ARG);
    CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, NULL, 0),
             OFL_POSIX_WAIT_ARG);
    CHECK(strcmp(ofl_posix_wait_name(OFL_POSIX_WAIT_TIMEOUT), "timeout") ==
          0);
    CHECK(strcmp(ofl_posix_wait_name((enum ofl_posix_wait_result)99), "?") ==
          0);
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

struct trickler {
    struct qr_side *s;
    struct ofl_posix_conn *c;
    uint8_t *src;
    uint32_t ls, stag;
    uint64_t to;
    atomic_int stop;
    int writes;    /* Writes that went */
    int capped;    /* it stopped at its cap, not when told */
};

/* 16-byte Writes into the peer's buffer every 20 ms until told to stop
 * (at most 1500: 30 s). */
static void *trickle_thread(void *p)
{
    struct trickler *t = p;

    block_alarms();
    while (!atomic_load(&t->stop)) {
        struct ofl_qp_wr wr;
        struct ofl_qp_sge sge;
        struct ofl_cqe e;

        if (t->writes == 1500) {
            t->capped = 1;
            break;
        }
        qr_wr(&wr, OFL_QP_OP_WRITE, 1, &sge, t->src, 16, t->ls);
        wr.remote_stag = t->stag;
        wr.remote_to = t->to;
        if (ofl_qp_post_send(&t->s->qp, &wr, NULL) != OFL_OK ||
            ofl_posix_wait(t->c, &t->s->qp, &t->s->scq, &e, 5000) !=
                OFL_POSIX_WAIT_CQE)
            break;
        t->writes++;
        sleep_ms(20);
    }
    return NULL;
}

/*
 * Bytes that trickle in (a 16-byte RDMA Write every 20 ms, which
 * completes nothing on the receiving side) wake the waiter again and
 * again; the deadline stays the call's: the 300 ms wait returns the
 * timeout while the Writes still come. (A wait that restarted its timeout
 * at each wake would last as long as the trickle: 30 s.)
 */
static void test_wait_trickle(void)
{
    static struct ofl_posix_conn ca, cb;
    static struct trickler t;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    struct qr_rig *r = wait_rig(lfd, port, &ca, &cb);
    uint8_t *dst = qr_alloc(&r->b, 16, false);
    struct ofl_cqe e;
    pthread_t th;
    long long t0;
    uint32_t sn;

    memset(&t, 0, sizeof(t));
    t.s = &r->a;
    t.c = &ca;
    t.src = qr_alloc(&r->a, 16, false);
    t.ls = qr_reg(&r->a, t.src, 16, OFL_TPT_LOCAL_READ, 0);
    t.stag = qr_reg(&r->b, dst, 16,
                    OFL_TPT_LOCAL_WRITE | OFL_TPT_REMOTE_WRITE, 0);
    t.to = (uint64_t)(uintptr_t)dst;
    memset(t.src, 0xC3, 16);
    atomic_init(&t.stop, 0);
    CHECK(pthread_create(&th, NULL, trickle_thread, &t) == 0);
    sleep_ms(50);
    sn = cb.rx_sn;
    t0 = now_ms();
    CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 300),
             OFL_POSIX_WAIT_TIMEOUT);
    CHECK(now_ms() - t0 >= 300 - 5);
    atomic_store(&t.stop, 1);
    pthread_join(th, NULL);
    CHECK(!t.capped); /* the wait ended while the Writes still came */
    CHECK(cb.rx_sn != sn); /* and they did come during it */
    CHECK(memcmp(dst, t.src, 16) == 0);
    CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

/*
 * The stream ends: a peer that closes (FIN), one that resets, a QP moved
 * to ERROR locally, and the waiter's own descriptor closed behind the
 * port's back. The posted receive completes flushed (a completion, with
 * its status), then the wait says closed at once, on either CQ. (A closed
 * descriptor made poll(2) report POLLNVAL at once, which the port's poll
 * took for "nothing yet": the wait spun to its timeout.) A wait after
 * ofl_posix_close says closed too.
 */
static void test_wait_closed(void)
{
    int i;

    for (i = 0; i < 4; i++) {
        static struct ofl_posix_conn ca, cb;
        uint16_t port = 0;
        int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
        struct qr_rig *r = wait_rig(lfd, port, &ca, &cb);
        uint8_t *dst = qr_alloc(&r->b, 64, false);
        uint32_t ld = qr_reg(&r->b, dst, 64, OFL_TPT_LOCAL_WRITE, 0);
        struct ofl_cqe e;

        CHECK_OK(qr_post_recv(&r->b, 4, dst, 64, ld));
        if (i == 0) {
            ofl_posix_close(&ca);
        } else if (i == 1) {
            CHECK_EQ(ofl_posix_transmit(&ca, NULL, 0, OFL_QP_TX_ABORT), 0);
            ofl_posix_close(&ca);
        } else if (i == 2) {
            CHECK_OK(ofl_qp_modify(&r->b.qp, OFL_QP_ERROR));
        } else {
            close(cb.fd); /* cb.fd stays: the port's copy of a stale fd */
        }
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 5000),
                 OFL_POSIX_WAIT_CQE);
        CHECK_EQ(e.wr_id, 4);
        CHECK_EQ(e.status, OFL_WC_WR_FLUSH_ERR);
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 5000),
                 OFL_POSIX_WAIT_CLOSED);
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.scq, &e, 5000),
                 OFL_POSIX_WAIT_CLOSED);
        CHECK_EQ(r->b.qp.state, OFL_QP_ERROR);
        if (i != 2)
            CHECK(cb.eof);
        if (i >= 2)
            ofl_posix_close(&ca);
        if (i == 3)
            cb.fd = -1; /* closed above */
        ofl_posix_close(&cb);
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 5000),
                 OFL_POSIX_WAIT_CLOSED);
        close(lfd);
        qr_free(r);
    }
    /* the waiter's connection closed by ofl_posix_close while its QP is
     * still in RTS: closed, not a sleep on no socket until the timeout */
    {
        static struct ofl_posix_conn ca, cb;
        uint16_t port = 0;
        int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
        struct qr_rig *r = wait_rig(lfd, port, &ca, &cb);
        struct ofl_cqe e;

        ofl_posix_close(&cb);
        CHECK_EQ(r->b.qp.state, OFL_QP_RTS);
        CHECK_EQ(ofl_posix_wait(&cb, &r->b.qp, &r->b.rcq, &e, 5000),
                 OFL_POSIX_WAIT_CLOSED);
        ofl_posix_close(&ca);
        close(lfd);
        qr_free(r);
    }
}

/*
 * More work than one ofl_qp_process budget: a 100000-byte Write at an
 * EMSS of 536 is some 190 FPDUs towards a peer that only reads the bytes.
 * The wait runs the engine on while it transmits, so the Write completes;
 * (one call of 64 steps per wake left it waiting for input that never
 * comes: a timeout).
 */
static void test_wait_long_queue(void)
{
    enum { N = 100000 };
    struct qr_rig *r = qr_new(NULL);
    static struct ofl_posix_conn ca, cb;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    uint8_t *src;
    uint32_t ls;
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;
    struct late_reader l;
    pthread_t th;

    CHECK(r != NULL && lfd >= 0);
    mss_pair(lfd, port, 0, false, &ca, &cb);
    CHECK_OK(bind_qp(&r->a, &ca, 536));
    src = qr_alloc(&r->a, N, false);
    ls = qr_reg(&r->a, src, N, OFL_TPT_LOCAL_READ, 0);
    l.fd = cb.fd;
    CHECK(pthread_create(&th, NULL, late_reader_thread, &l) == 0);
    qr_wr(&wr, OFL_QP_OP_WRITE, 8, &sge, src, N, ls);
    wr.remote_stag = 0x100;
    wr.remote_to = 0;
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    CHECK_EQ(ofl_posix_wait(&ca, &r->a.qp, &r->a.scq, &e, 5000),
             OFL_POSIX_WAIT_CQE);
    CHECK_EQ(e.wr_id, 8);
    CHECK_EQ(e.status, OFL_WC_SUCCESS);
    CHECK(ca.tx_calls > 2 * 64);
    ofl_posix_close(&ca);
    pthread_join(th, NULL);
    CHECK_EQ(l.rc, 0);
    CHECK(l.got + cb.early >= N);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

/*
 * A DELAY WQE (200 ms of the wait's clock, nanoseconds) with nothing on
 * the socket: its end wakes the wait, which returns its completion, not
 * its own timeout of 30 s (a sleep until bytes came would have lasted
 * that long).
 */
static void test_wait_delay(void)
{
    static struct ofl_posix_conn ca, cb;
    uint16_t port = 0;
    int lfd = ofl_posix_tcp_listen("127.0.0.1", 0, &port);
    struct qr_rig *r = wait_rig(lfd, port, &ca, &cb);
    struct ofl_qp_wr wr;
    struct ofl_qp_sge sge;
    struct ofl_cqe e;
    long long t0, t;

    qr_wr(&wr, OFL_QP_OP_DELAY, 2, &sge, NULL, 0, 0);
    wr.imm = 200u * 1000u * 1000u;
    CHECK_OK(ofl_qp_post_send(&r->a.qp, &wr, NULL));
    t0 = now_ms();
    CHECK_EQ(ofl_posix_wait(&ca, &r->a.qp, &r->a.scq, &e, 30000),
             OFL_POSIX_WAIT_CQE);
    t = now_ms() - t0;
    CHECK_EQ(e.wr_id, 2);
    CHECK(t >= 200 - 5);
    CHECK(t < 29000); /* woken by the DELAY's end, not the timeout */
    ofl_posix_close(&ca);
    ofl_posix_close(&cb);
    close(lfd);
    qr_free(r);
}

OFL_SUITE(qp_posix)
{
    test_tcp(false);
    test_tcp(true);
    test_mpa_failures();
    test_listen_families();
    test_mpa_trickle();
    test_mpa_signals();
    test_tx_stall();
    test_both_directions();
    test_close_sends_rest();
    test_rest_times_out();
    test_rest_endings();
    test_abort_resets();
    test_emss_loopback(false);
    test_emss_loopback(true);
    test_emss_small_path();
    test_emss_fallback();
    test_wait_wakes();
    test_wait_trickle();
    test_wait_closed();
    test_wait_long_queue();
    test_wait_delay();
    /* again, transmitting by reference (ofl_posix_transmitv) */
    by_ref = true;
    test_tcp(false);
    test_tcp(true); /* markers: by copy */
    test_both_directions();
    by_ref = false;
}
