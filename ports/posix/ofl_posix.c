/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
#include "ofl_posix.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#if OFL_ENABLE_QP
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#if defined(OFL_POSIX_HAVE_ISAL)
#include <isa-l/crc.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define OFL_POSIX_X86_CRC 1
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#define OFL_POSIX_ARM_CRC 1
#endif

/* ---- CPU instructions ------------------------------------------------- */

#if defined(OFL_POSIX_X86_CRC)
#include <pthread.h>

/*
 * Three independent crc32q streams over three equal blocks hide the
 * instruction's 3-cycle latency. The partial CRCs are joined by "appending
 * n zero bytes" to the earlier ones: a multiplication by x^(8n) mod P, which
 * is linear, so it is done with four 256-entry tables per block size, built
 * once per process.
 */
__attribute__((target("sse4.2"))) static uint32_t
x86_crc_1(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    while (len >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    crc = (uint32_t)c;
    while (len--)
        crc = _mm_crc32_u8(crc, *p++);
    return crc;
}

/* GF(2) product a * b mod P, reflected representation (bit 31 = x^0). */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
    uint32_t prod = 0;
    int i;

    for (i = 0; i < 32; i++) {
        if (a & 0x80000000u)
            prod ^= b;
        a <<= 1;
        b = (b >> 1) ^ ((b & 1) ? 0x82F63B78u : 0);
    }
    return prod;
}

/* x^(8n) mod P: the operator "append n zero bytes". */
static uint32_t x8n_mod(size_t n)
{
    uint32_t result = 0x80000000u; /* x^0 */
    uint32_t sq = 0x00800000u;      /* x^8 */

    while (n) {
        if (n & 1)
            result = gf2_mulmod(result, sq);
        sq = gf2_mulmod(sq, sq);
        n >>= 1;
    }
    return result;
}

#define X86_NBLK 6
static const size_t x86_blk[X86_NBLK] = {4096, 2048, 1024, 512, 256, 128};
static uint32_t x86_shift[X86_NBLK][4][256];
static pthread_once_t x86_once = PTHREAD_ONCE_INIT;

static void x86_tables(void)
{
    int k, b, v;

    for (k = 0; k < X86_NBLK; k++) {
        uint32_t m = x8n_mod(x86_blk[k]);

        for (b = 0; b < 4; b++)
            for (v = 0; v < 256; v++)
                x86_shift[k][b][v] = gf2_mulmod((uint32_t)v << (8 * b), m);
    }
}

static inline uint32_t x86_shift_by(int k, uint32_t c)
{
    return x86_shift[k][0][c & 0xFF] ^ x86_shift[k][1][(c >> 8) & 0xFF] ^
           x86_shift[k][2][(c >> 16) & 0xFF] ^ x86_shift[k][3][c >> 24];
}

__attribute__((target("sse4.2"))) static uint32_t
x86_crc(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    int k;

    pthread_once(&x86_once, x86_tables);
    for (k = 0; k < X86_NBLK; k++) {
        const size_t blk = x86_blk[k];

        while (len >= 3 * blk) {
            uint64_t a = crc, b = 0, c = 0;
            size_t i;

            for (i = 0; i < blk; i += 8) {
                uint64_t va, vb, vc;

                memcpy(&va, p + i, 8);
                memcpy(&vb, p + blk + i, 8);
                memcpy(&vc, p + 2 * blk + i, 8);
                a = _mm_crc32_u64(a, va);
                b = _mm_crc32_u64(b, vb);
                c = _mm_crc32_u64(c, vc);
            }
            /* crc(A|B|C) = shift(shift(a) ^ b) ^ c, each over one block */
            crc = x86_shift_by(k, (uint32_t)a) ^ (uint32_t)b;
            crc = x86_shift_by(k, crc) ^ (uint32_t)c;
            p += 3 * blk;
            len -= 3 * blk;
        }
    }
    return x86_crc_1(crc, p, len);
}
#endif

#if defined(OFL_POSIX_ARM_CRC)
/* The CRC32C instructions through each compiler's builtins, in a function
 * built for the CRC extension (arm_acle.h of clang 14 declares its
 * intrinsics only when the whole file is). Same instructions either way. */
#if defined(__clang__)
#define OFL_POSIX_ARM_CRC_TARGET __attribute__((target("crc")))
#define ofl_arm_crc32cd __builtin_arm_crc32cd
#define ofl_arm_crc32cb __builtin_arm_crc32cb
#else
#define OFL_POSIX_ARM_CRC_TARGET __attribute__((target("+crc")))
#define ofl_arm_crc32cd __builtin_aarch64_crc32cx
#define ofl_arm_crc32cb __builtin_aarch64_crc32cb
#endif

OFL_POSIX_ARM_CRC_TARGET static uint32_t
arm_crc(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        crc = ofl_arm_crc32cd(crc, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = ofl_arm_crc32cb(crc, *p++);
    return crc;
}
#endif

ofl_posix_crc_fn ofl_posix_crc32c_cpu(void)
{
#if defined(OFL_POSIX_X86_CRC)
    if (__builtin_cpu_supports("sse4.2"))
        return x86_crc;
#elif defined(OFL_POSIX_ARM_CRC)
    if (getauxval(AT_HWCAP) & HWCAP_CRC32)
        return arm_crc;
#endif
    return NULL;
}

/* ---- ISA-L -------------------------------------------------------------- */

#if defined(OFL_POSIX_HAVE_ISAL)
/* ISA-L keeps the raw register too (no inversion), but takes an int length. */
static uint32_t isal_crc(uint32_t crc, const void *data, size_t len)
{
    unsigned char *p = (unsigned char *)(uintptr_t)data;

    while (len > 0) {
        int n = len > (size_t)INT_MAX ? INT_MAX : (int)len;

        crc = crc32_iscsi(p, n, crc);
        p += n;
        len -= (size_t)n;
    }
    return crc;
}
#endif

ofl_posix_crc_fn ofl_posix_crc32c_isal(void)
{
#if defined(OFL_POSIX_HAVE_ISAL)
    return isal_crc;
#else
    return NULL;
#endif
}

/* ---- the port ----------------------------------------------------------- */

static int px_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    (void)ctx;
    memcpy(dst, (const void *)(uintptr_t)pa, len);
    return 0;
}

static int px_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    (void)ctx;
    memcpy((void *)(uintptr_t)pa, src, len);
    return 0;
}

static void px_doorbell(void *ctx, uint32_t db, uint32_t value)
{
    struct ofl_posix *px = ctx;

    px->doorbells++;
    if (px->on_doorbell)
        px->on_doorbell(px->user, db, value);
}

static void px_notify(void *ctx, uint32_t vector)
{
    struct ofl_posix *px = ctx;

    px->notifies++;
    if (px->on_notify)
        px->on_notify(px->user, vector);
}

static uint32_t px_crc(void *ctx, uint32_t state, const void *data, size_t len)
{
    struct ofl_posix *px = ctx;

    return px->crc(state, data, len);
}

static void px_barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    switch (kind) {
    case OFL_BARRIER_ACQUIRE:
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        break;
    case OFL_BARRIER_RELEASE:
        __atomic_thread_fence(__ATOMIC_RELEASE);
        break;
    default:
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        break;
    }
}

void ofl_posix_init(struct ofl_posix *px)
{
    ofl_posix_crc_fn fn;

    memset(px, 0, sizeof(*px));
    px->port.version = OFL_PORT_VERSION;
    px->port.size = sizeof(struct ofl_port);
    px->port.ctx = px;
    px->port.dma_read = px_dma_read;
    px->port.dma_write = px_dma_write;
    px->port.doorbell = px_doorbell;
    px->port.notify = px_notify;
    px->port.crc32c = px_crc;
    px->port.barrier = px_barrier;
    px->crc = ofl_crc32c_update;
    px->crc_name = "portable";
    if ((fn = ofl_posix_crc32c_cpu()) != NULL) {
        px->crc = fn;
#if defined(OFL_POSIX_X86_CRC)
        px->crc_name = "sse4.2";
#else
        px->crc_name = "armv8-crc";
#endif
    }
    if ((fn = ofl_posix_crc32c_isal()) != NULL) {
        px->crc = fn;
        px->crc_name = "isa-l";
    }
}

/* ---- TCP as the wire of a QP ---------------------------------------------- */

#if OFL_ENABLE_QP
int ofl_posix_tcp_listen(const char *host, uint16_t port,
                         uint16_t *bound_port)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    if (fd < 0)
        return -1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (host != NULL && inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        close(fd);
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return -1;
    }
    if (bound_port != NULL)
        *bound_port = ntohs(a.sin_port);
    return fd;
}

static void px_nodelay(int fd)
{
    int one = 1;

    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ofl_posix_tcp_accept(int lfd)
{
    int fd;

    do
        fd = accept(lfd, NULL, NULL);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0)
        px_nodelay(fd);
    return fd;
}

int ofl_posix_tcp_connect(const char *host, uint16_t port)
{
    struct addrinfo hints, *res = NULL, *ai;
    char ps[8];
    int fd = -1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(ps, sizeof(ps), "%u", (unsigned)port);
    if (getaddrinfo(host, ps, &hints, &res) != 0)
        return -1;
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0)
        px_nodelay(fd);
    return fd;
}

static int px_send_all(int fd, const uint8_t *p, size_t n, int more)
{
    while (n != 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL | (more ? MSG_MORE : 0));

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads into c->rx until the handshake took a whole frame. */
static enum ofl_err px_mpa_read(struct ofl_posix_conn *c,
                                struct ofl_mpa_hs *hs, int timeout_ms)
{
    size_t have = 0;

    for (;;) {
        struct pollfd pf;
        size_t used = 0;
        ssize_t k;
        enum ofl_err err;

        pf.fd = c->fd;
        pf.events = POLLIN;
        if (poll(&pf, 1, timeout_ms) <= 0)
            return OFL_E_PORT_DMA;
        k = recv(c->fd, c->rx + have, sizeof(c->rx) - have, 0);
        if (k <= 0)
            return OFL_E_PORT_DMA;
        have += (size_t)k;
        err = ofl_mpa_hs_recv(hs, c->rx, have, &used);
        if (err != OFL_OK)
            return err;
        if (hs->state != OFL_MPA_HS_AWAIT_REPLY &&
            hs->state != OFL_MPA_HS_AWAIT_REQUEST) {
            /* What followed the frame in the same read is stream data. */
            memmove(c->rx, c->rx + used, have - used);
            c->early = (uint32_t)(have - used);
            return OFL_OK;
        }
        /* Incomplete: the handshake kept the bytes; read more after. */
        memmove(c->rx, c->rx + used, have - used);
        have -= used;
    }
}

static void px_conn_init(struct ofl_posix_conn *c, int fd)
{
    memset(c, 0, sizeof(*c));
    c->fd = fd;
}

enum ofl_err ofl_posix_mpa_connect(struct ofl_posix_conn *c, int fd,
                                   const struct ofl_mpa_cfg *cfg,
                                   int timeout_ms)
{
    struct ofl_mpa_hs hs;
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len = 0;
    enum ofl_err err;

    px_conn_init(c, fd);
    err = ofl_mpa_hs_init(&hs, cfg, true);
    if (err == OFL_OK)
        err = ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len);
    if (err != OFL_OK)
        return err;
    if (px_send_all(fd, frame, len, 0) != 0)
        return OFL_E_PORT_DMA;
    err = px_mpa_read(c, &hs, timeout_ms);
    if (err != OFL_OK)
        return err;
    if (hs.state != OFL_MPA_HS_DONE)
        return hs.err ? (enum ofl_err)hs.err : OFL_E_MPA_STATE;
    c->params = hs.params;
    return OFL_OK;
}

enum ofl_err ofl_posix_mpa_accept(struct ofl_posix_conn *c, int fd,
                                  const struct ofl_mpa_cfg *cfg,
                                  int timeout_ms)
{
    struct ofl_mpa_hs hs;
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len = 0;
    enum ofl_err err;

    px_conn_init(c, fd);
    err = ofl_mpa_hs_init(&hs, cfg, false);
    if (err == OFL_OK)
        err = px_mpa_read(c, &hs, timeout_ms);
    if (err != OFL_OK)
        return err;
    err = ofl_mpa_hs_accept(&hs, frame, sizeof(frame), &len);
    if (len != 0 && px_send_all(fd, frame, len, 0) != 0)
        return OFL_E_PORT_DMA;
    if (err != OFL_OK)
        return err;
    c->params = hs.params;
    return OFL_OK;
}

int ofl_posix_transmit(void *ctx, const uint8_t *data, uint32_t len,
                       uint32_t flags)
{
    struct ofl_posix_conn *c = ctx;

    c->tx_calls++;
    if (flags & OFL_QP_TX_ABORT) {
        (void)shutdown(c->fd, SHUT_RDWR);
        return 0;
    }
    if (len != 0 &&
        px_send_all(c->fd, data, len, (flags & OFL_QP_TX_MORE) != 0) != 0)
        return -1;
    c->tx_sn += len;
    if (flags & OFL_QP_TX_CLOSE)
        (void)shutdown(c->fd, SHUT_WR);
    return 0;
}

static void px_feed(struct ofl_posix_conn *c, struct ofl_qp *qp,
                    const uint8_t *p, uint32_t n)
{
    struct ofl_qp_seg seg;

    memset(&seg, 0, sizeof(seg));
    seg.seq = c->rx_sn;
    seg.data = p;
    seg.len = n;
    (void)ofl_qp_input(qp, &seg);
    c->rx_sn += n;
}

long ofl_posix_poll(struct ofl_posix_conn *c, struct ofl_qp *qp,
                    int timeout_ms)
{
    struct pollfd pf;
    ssize_t k;

    if (c->eof)
        return -1;
    if (c->early != 0) {
        uint32_t n = c->early;

        c->early = 0;
        px_feed(c, qp, c->rx, n);
        return (long)n;
    }
    pf.fd = c->fd;
    pf.events = POLLIN;
    if (poll(&pf, 1, timeout_ms) <= 0)
        return 0;
    do
        k = recv(c->fd, c->rx, sizeof(c->rx), MSG_DONTWAIT);
    while (k < 0 && errno == EINTR);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    c->rx_calls++;
    if (k <= 0) {
        c->eof = 1;
        (void)ofl_qp_llp_event(qp, k < 0);
        return -1;
    }
    px_feed(c, qp, c->rx, (uint32_t)k);
    return (long)k;
}

void ofl_posix_close(struct ofl_posix_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
#endif
