// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_cm - connection management for the iw_cm (iWARP connection
 * manager) over kernel TCP sockets: listen, connect, accept, reject; the
 * MPA exchange is the core's (ofl_mpa_hs_*), the stream's bytes go to and
 * come from the core's QP (ofl_iw_qp.c).
 *
 * A connection end point (struct ofl_iw_cep) owns one socket. Every
 * socket callback (data_ready, state_change, write_space) and the core's
 * transmit callback only queue the end point's work item on one ordered
 * workqueue; the work item does everything that may sleep, under the end
 * point's mutex: kernel_accept, the MPA exchange, kernel_recvmsg and
 * kernel_sendmsg (MSG_DONTWAIT both: nothing blocks the workqueue), the
 * iw_cm upcalls. The iw_cm ops (accept, reject, connect, listen) take the
 * same mutex in their own context.
 *
 * States: LISTEN (a listening socket per iw_cm_id, bound to the id's
 * address; IPv4), CONNECTING (non-blocking kernel_connect) -> AWAIT_REPLY
 * (MPA Request sent) -> RTS; an accepted socket AWAIT_REQUEST ->
 * AWAIT_ACCEPT (CONNECT_REQUEST went up with the peer's private data) ->
 * RTS (accept: the Reply, then the QP's ESTAB) or CLOSED (reject). MPA:
 * revision 2 with the RFC 6581 IRD/ORD block (the core answers revision 1
 * and plain revision 2 peers), CRC when either side asks (module
 * parameter mpa_crc asks), markers sent when the peer asks and asked for
 * with mpa_markers. A handshake that does not finish in
 * OFL_IW_MPA_TIMEOUT is abandoned.
 *
 * Transmit: the core's transmit callback runs under dev->lock (post_send
 * may come in atomic context), so it never touches the socket. The core
 * builds each FPDU straight into the end point's byte ring (txq): its
 * reservation hook (ofl_iw_cep_tx_reserve) lends the ring's free space,
 * and the transmit callback then only moves the ring's head, so a
 * payload byte is copied once (pinned page -> ring) before the socket's
 * own copy. The ring is mapped twice in a row (ofl_iw_txq_alloc), so any
 * reservation is contiguous however the ring wraps. Bytes passed from
 * elsewhere (MPA frames) are copied in. With no room the core is refused
 * and retries at its next ofl_qp_process;
 * the work item sends the ring with kernel_sendmsg(MSG_DONTWAIT), keeps
 * what the socket did not take for sk_write_space, and runs the engine
 * again when room was made; a user QP's post_send sends the ring itself
 * (ofl_iw_cep_tx_now), as siw sends in the system call. Receive: during
 * the handshake sk_data_ready wakes the work item, which reads with
 * kernel_recvmsg(MSG_DONTWAIT); once the stream is up, sk_data_ready
 * reads with tcp_read_sock and feeds ofl_qp_input under dev->lock
 * (ofl_iw_qp_rx) at once, as siw does: whoever holds the socket lock
 * feeds, so the bytes go in order. Completions then go out as the QP
 * code does.
 *
 * Close: a peer FIN is DISCONNECT, then the QP's LLP_CLOSED and CLOSE; a
 * reset or socket error the QP's LLP_LOST and CLOSE; the QP entering
 * ERROR (the consumer, the iw_cm's abrupt disconnect, destroy) aborts the
 * stream (OFL_QP_TX_ABORT): the socket is reset and CLOSE goes up; the
 * iw_cm's graceful disconnect (SQD, which the QP code makes CLOSING)
 * makes the core ask for a close (OFL_QP_TX_CLOSE): the FIN follows the
 * queued bytes, the peer's FIN ends it. After CLOSE the end point drops
 * its iw_cm_id reference (id->rem_ref) and its QP reference, as siw does.
 *
 * Linux siw 6.1 as responder (issue item 7): siw sends its MPA Reply
 * before it hands the socket to its QP; bytes that arrive in between stay
 * unread until more bytes or a FIN arrive (an initiator whose first Send
 * left within about a millisecond of the Reply stalled). No delay can
 * rule that out. So our initiator nudges, as examples/ofl-rping does in
 * user space: while nothing has come from the peer since the Reply and
 * our QP has sent bytes, it posts a zero-length RDMA Write (the RFC 6581
 * RTR form: nothing placed, no STag checked by siw, no completion on
 * either side) 50 ms after establishment, then after 100, 200, ... ms, at
 * most OFL_IW_NUDGES times; one that arrives after siw's hand-over makes
 * siw read everything queued. Module parameter nudge=0 turns it off (the
 * rig's planted fault).
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/iw_cm.h>
#include "ofl_iw.h"

static bool mpa_crc;
module_param(mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "ask for MPA CRC (used when either side asks)");
static bool mpa_markers;
module_param(mpa_markers, bool, 0644);
MODULE_PARM_DESC(mpa_markers, "ask the peer to send MPA markers");
static bool nudge = true;
module_param(nudge, bool, 0644);
MODULE_PARM_DESC(nudge, "initiator: zero-length Writes until the responder speaks (Linux siw 6.1's responder race)");

/* FPDUs the core handed to the transmit, built in the ring (taken as
 * they are) or elsewhere (copied in): the rig checks that none is copied
 * (tests/rdma/device-guest.sh). And of all of them, those queued outside
 * a user QP's post_send system call (from a receive, a kick, the work
 * item, a kernel QP): the work item, or a flush already running, sends
 * them, not the posting thread. The rig checks that a latency test's
 * FPDUs are not (tests/rdma/perf.sh). */
static atomic64_t ofl_iw_tx_in_place = ATOMIC64_INIT(0);
static atomic64_t ofl_iw_tx_copied = ATOMIC64_INIT(0);
static atomic64_t ofl_iw_tx_deferred = ATOMIC64_INIT(0);

static int ofl_iw_tx_frames_get(char *buf, const struct kernel_param *kp)
{
    return scnprintf(buf, PAGE_SIZE, "%lld %lld %lld\n",
                     (long long)atomic64_read(&ofl_iw_tx_in_place),
                     (long long)atomic64_read(&ofl_iw_tx_copied),
                     (long long)atomic64_read(&ofl_iw_tx_deferred));
}

static const struct kernel_param_ops ofl_iw_tx_frames_ops = {
    .get = ofl_iw_tx_frames_get,
};
module_param_cb(tx_frames, &ofl_iw_tx_frames_ops, NULL, 0444);
MODULE_PARM_DESC(tx_frames, "FPDUs built in the transmit ring, FPDUs copied into it, FPDUs queued outside a post_send system call (read only)");

#define OFL_IW_TXQ (1u << 18)          /* byte ring, a power of two */
#define OFL_IW_RXBUF (1u << 16)        /* one kernel_recvmsg */
#define OFL_IW_MPA_TIMEOUT (10 * HZ)   /* the whole handshake */
#define OFL_IW_RX_BUDGET 32            /* handshake reads per work run */
/* A listener's children in their handshake at once: its backlog, within
 * these bounds. Each holds a transmit ring and a receive buffer (about
 * 320 KiB) from its accept, for up to OFL_IW_MPA_TIMEOUT, before its peer
 * has sent one MPA byte: without a cap, a peer that opens connections and
 * stays silent pins kernel memory at its rate of connections. The
 * connections beyond wait in the socket's own backlog (TCP's queue and
 * SYN handling), as for any listener that accepts slowly. */
#define OFL_IW_HANDSHAKES_MIN 16
#define OFL_IW_HANDSHAKES_MAX 256
#define OFL_IW_NUDGE_FIRST_MS 50
#define OFL_IW_NUDGES 8
/* ULP private data: MPA's 512 bytes less the RFC 6581 block */
#define OFL_IW_PD_MAX (OFL_MPA_PD_MAX - 8)

enum ofl_iw_cep_state {
    OFL_IW_CEP_IDLE = 0,
    OFL_IW_CEP_LISTEN,
    OFL_IW_CEP_CONNECTING,
    OFL_IW_CEP_AWAIT_REPLY,
    OFL_IW_CEP_AWAIT_REQUEST,
    OFL_IW_CEP_AWAIT_ACCEPT,
    OFL_IW_CEP_RTS,
    OFL_IW_CEP_CLOSED
};

/*
 * References: the end point's own (alloc, dropped when it closes; a
 * listener's by destroy_listen), the socket's (sk_user_data), the QP's
 * (qp->cep), the iw_cm's (provider_data of an id between CONNECT_REQUEST
 * and accept/reject), a child's on its listener, one per queued work.
 */
struct ofl_iw_cep {
    struct kref ref;
    struct mutex mutex;          /* everything below but the ring */
    struct delayed_work work;
    struct ofl_iw_dev *dev;
    struct socket *sock;
    void (*sk_data_ready)(struct sock *sk);
    void (*sk_state_change)(struct sock *sk);
    void (*sk_write_space)(struct sock *sk);
    struct iw_cm_id *cm_id;      /* with id->add_ref */
    struct ofl_iw_qp *qp;        /* with a QP reference */
    struct ofl_iw_cep *listener; /* a child before it went up */
    struct list_head entry;      /* on listener->children */
    struct list_head children;   /* a listener's, under lock */
    u32 handshakes;              /* a listener's children, under lock */
    u32 handshakes_max;          /* its cap (OFL_IW_HANDSHAKES_*) */
    u8 state;                    /* enum ofl_iw_cep_state */
    bool initiator;
    bool tx_shut;                /* SHUT_WR done */
    unsigned long deadline;      /* the handshake's */
    unsigned long nudge_at, nudge_step;
    unsigned int nudges;
    u32 tx_base;                 /* tx_tail at establishment */
    struct ofl_mpa_hs hs;
    /* the consumer's private data, kept for the handshake: the MPA
     * Request goes out after the TCP connection is up, long after
     * connect returned (a kernel ULP's private data is on its stack:
     * nvme-rdma's struct nvme_rdma_cm_req) */
    u8 pd_copy[OFL_IW_PD_MAX];
    u8 frame[OFL_MPA_RR_MAX];
    /* receive: rx_sn, early, rxbuf and the feeding of the QP belong to
     * whoever holds the socket lock (the work item's lock_sock, or
     * sk_data_ready's caller); once rx_direct is set (by the work item,
     * under lock_sock, after the early bytes), sk_data_ready feeds the QP
     * itself, as siw does, with no hop through the work item */
    u32 rx_sn;                   /* stream position of the next byte read */
    u32 early;                   /* stream bytes read with the MPA frame */
    u8 *rxbuf;                   /* OFL_IW_RXBUF */
    bool rx_direct;
    /* the transmit ring: the core's transmit callback writes at tx_head
     * (under lock, in atomic context), the work item sends from tx_tail */
    spinlock_t lock;             /* the ring, children */
    u8 *txq;                     /* OFL_IW_TXQ bytes, mapped twice */
    struct page **txq_pages;
    u8 *tx_lent;                 /* the reservation the core builds in */
    u32 tx_head, tx_tail;
    bool tx_blocked;             /* the core was refused: run it again */
    bool tx_close;               /* FIN after the queued bytes */
    bool tx_abort;               /* reset now */
    bool tx_dead;                /* the socket is gone */
    bool tx_poster;              /* a post_send sends what is queued now
                                    (ofl_iw_cep_tx_now): no work item */
};

static struct workqueue_struct *ofl_iw_wq;
static atomic_t ofl_iw_ceps = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(ofl_iw_ceps_wait);

/* End points alive (listeners, connections, and those still ending): the
 * rig reads it after its cases, when none should be left
 * (tests/rdma/hostile-guest.sh), rather than learn of a leak from an
 * unload that waits (ofl_iw_cm_exit). */
static int ofl_iw_ceps_get(char *buf, const struct kernel_param *kp)
{
    return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(&ofl_iw_ceps));
}

static const struct kernel_param_ops ofl_iw_ceps_ops = {
    .get = ofl_iw_ceps_get,
};
module_param_cb(ceps, &ofl_iw_ceps_ops, NULL, 0444);
MODULE_PARM_DESC(ceps, "connection end points alive (read only)");

/* ---- end points ---------------------------------------------------------- */

static void ofl_iw_cep_work(struct work_struct *w);

/*
 * The transmit ring: OFL_IW_TXQ bytes of pages mapped twice in a row, so
 * that [off, off + len) is contiguous for any off < OFL_IW_TXQ and len <=
 * OFL_IW_TXQ (the core builds a whole FPDU in one reservation). Both
 * aliases are written through the same kernel mapping type; the x86 and
 * arm64 data caches do not alias.
 */
#define OFL_IW_TXQ_PAGES (OFL_IW_TXQ >> PAGE_SHIFT)

static void ofl_iw_txq_free(struct ofl_iw_cep *cep)
{
    u32 i;

    if (cep->txq)
        vunmap(cep->txq);
    if (cep->txq_pages) {
        for (i = 0; i < OFL_IW_TXQ_PAGES; i++)
            if (cep->txq_pages[i])
                __free_page(cep->txq_pages[i]);
        kfree(cep->txq_pages);
    }
    cep->txq = NULL;
    cep->txq_pages = NULL;
}

static int ofl_iw_txq_alloc(struct ofl_iw_cep *cep)
{
    struct page **map;
    u32 i;

    cep->txq_pages = kcalloc(OFL_IW_TXQ_PAGES, sizeof(*map), GFP_KERNEL);
    map = kcalloc(2 * OFL_IW_TXQ_PAGES, sizeof(*map), GFP_KERNEL);
    if (!cep->txq_pages || !map)
        goto fail;
    for (i = 0; i < OFL_IW_TXQ_PAGES; i++) {
        cep->txq_pages[i] = alloc_page(GFP_KERNEL);
        if (!cep->txq_pages[i])
            goto fail;
        map[i] = cep->txq_pages[i];
        map[i + OFL_IW_TXQ_PAGES] = cep->txq_pages[i];
    }
    cep->txq = vmap(map, 2 * OFL_IW_TXQ_PAGES, VM_MAP, PAGE_KERNEL);
    if (!cep->txq)
        goto fail;
    kfree(map);
    return 0;
fail:
    kfree(map);
    ofl_iw_txq_free(cep);
    return -ENOMEM;
}

static void ofl_iw_cep_release(struct kref *ref)
{
    struct ofl_iw_cep *cep = container_of(ref, struct ofl_iw_cep, ref);

    ofl_iw_txq_free(cep);
    kvfree(cep->rxbuf);
    put_device(&cep->dev->ibdev.dev);
    kfree(cep);
    if (atomic_dec_and_test(&ofl_iw_ceps))
        wake_up(&ofl_iw_ceps_wait);
}

static void ofl_iw_cep_put(struct ofl_iw_cep *cep)
{
    kref_put(&cep->ref, ofl_iw_cep_release);
}

static struct ofl_iw_cep *ofl_iw_cep_alloc(struct ofl_iw_dev *dev, bool stream)
{
    struct ofl_iw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

    if (!cep)
        return NULL;
    kref_init(&cep->ref);
    mutex_init(&cep->mutex);
    spin_lock_init(&cep->lock);
    INIT_DELAYED_WORK(&cep->work, ofl_iw_cep_work);
    INIT_LIST_HEAD(&cep->entry);
    INIT_LIST_HEAD(&cep->children);
    /* The device's memory, not its registration: an end point that is
     * still ending when its device is deleted (`rdma link delete`) logs
     * through it (ibdev_dbg), and the device may be freed by then. */
    get_device(&dev->ibdev.dev);
    cep->dev = dev;
    atomic_inc(&ofl_iw_ceps);
    if (stream) {
        cep->rxbuf = kvmalloc(OFL_IW_RXBUF, GFP_KERNEL);
        if (ofl_iw_txq_alloc(cep) || !cep->rxbuf) {
            ofl_iw_cep_put(cep);
            return NULL;
        }
    }
    return cep;
}

/* Runs the work item now (any context: the caller holds a reference). */
static void ofl_iw_cep_kick(struct ofl_iw_cep *cep)
{
    kref_get(&cep->ref);
    if (mod_delayed_work(ofl_iw_wq, &cep->work, 0))
        ofl_iw_cep_put(cep); /* it was queued, with its reference */
}

/* Runs it after delay unless it is queued already (it re-arms itself). */
static void ofl_iw_cep_kick_later(struct ofl_iw_cep *cep, unsigned long delay)
{
    kref_get(&cep->ref);
    if (!queue_delayed_work(ofl_iw_wq, &cep->work, delay))
        ofl_iw_cep_put(cep);
}

/* ---- socket callbacks (softirq context) ---------------------------------- */

static void ofl_iw_sk_event(struct sock *sk)
{
    struct ofl_iw_cep *cep;

    read_lock_bh(&sk->sk_callback_lock);
    rcu_read_lock();
    cep = rcu_dereference_sk_user_data(sk);
    if (cep)
        ofl_iw_cep_kick(cep);
    rcu_read_unlock();
    read_unlock_bh(&sk->sk_callback_lock);
}

/* tcp_read_sock's actor: the bytes of skb at off, in order, to the QP
 * (socket lock held). */
static int ofl_iw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
                           unsigned int off, size_t len)
{
    struct ofl_iw_cep *cep = desc->arg.data;
    size_t done = 0;

    while (done < len) {
        u32 n = min_t(size_t, len - done, OFL_IW_RXBUF);

        if (skb_copy_bits(skb, off + done, cep->rxbuf, n))
            break; /* cannot happen: inside the skb */
        ofl_iw_qp_rx(cep->qp, cep->rx_sn, cep->rxbuf, n);
        cep->rx_sn += n;
        done += n;
    }
    return done;
}

/* Everything the socket holds to the QP. The caller holds the socket
 * lock: that orders the feeds of the work item and of sk_data_ready. */
static void ofl_iw_cep_rx_locked(struct ofl_iw_cep *cep, struct sock *sk)
{
    read_descriptor_t desc = { .arg.data = cep, .count = 1 };

    (void)tcp_read_sock(sk, &desc, ofl_iw_rx_actor);
}

/* Data arrived. sk_data_ready runs with the socket lock held (softirq
 * with bh_lock_sock, or the backlog in release_sock), so a connection
 * that receives directly reads here; others (the handshake) wake the work
 * item. A FIN or an error also changes the state: sk_state_change wakes
 * the work item for those. */
static void ofl_iw_sk_data_ready(struct sock *sk)
{
    struct ofl_iw_cep *cep;

    read_lock_bh(&sk->sk_callback_lock);
    rcu_read_lock();
    cep = rcu_dereference_sk_user_data(sk);
    if (cep && READ_ONCE(cep->rx_direct))
        ofl_iw_cep_rx_locked(cep, sk);
    else if (cep)
        ofl_iw_cep_kick(cep);
    rcu_read_unlock();
    read_unlock_bh(&sk->sk_callback_lock);
}

static void ofl_iw_sk_state_change(struct sock *sk)
{
    ofl_iw_sk_event(sk);
}

static void ofl_iw_sk_write_space(struct sock *sk)
{
    ofl_iw_sk_event(sk);
}

/*
 * Takes the socket's callbacks. An accepted socket is a clone of the
 * listener's and carries our callbacks already (but no sk_user_data:
 * SK_USER_DATA_NOCOPY): its originals are the listener's (from).
 */
static void ofl_iw_sock_attach(struct ofl_iw_cep *cep, struct socket *s,
                               const struct ofl_iw_cep *from)
{
    struct sock *sk = s->sk;

    kref_get(&cep->ref); /* the socket's */
    write_lock_bh(&sk->sk_callback_lock);
    cep->sock = s;
    cep->sk_data_ready = from ? from->sk_data_ready : sk->sk_data_ready;
    cep->sk_state_change = from ? from->sk_state_change : sk->sk_state_change;
    cep->sk_write_space = from ? from->sk_write_space : sk->sk_write_space;
    sk->sk_data_ready = ofl_iw_sk_data_ready;
    sk->sk_state_change = ofl_iw_sk_state_change;
    sk->sk_write_space = ofl_iw_sk_write_space;
    __rcu_assign_sk_user_data_with_flags(sk, cep, SK_USER_DATA_NOCOPY);
    write_unlock_bh(&sk->sk_callback_lock);
}

/* Gives the socket its callbacks back (an orphaned socket outlives the
 * module) and releases it; abort: with a reset. Under the mutex. */
static void ofl_iw_sock_release(struct ofl_iw_cep *cep, bool abort)
{
    struct socket *s = cep->sock;
    struct sock *sk;
    unsigned long flags;

    if (!s)
        return;
    sk = s->sk;
    write_lock_bh(&sk->sk_callback_lock);
    rcu_assign_sk_user_data(sk, NULL);
    sk->sk_data_ready = cep->sk_data_ready;
    sk->sk_state_change = cep->sk_state_change;
    sk->sk_write_space = cep->sk_write_space;
    write_unlock_bh(&sk->sk_callback_lock);
    spin_lock_irqsave(&cep->lock, flags);
    cep->tx_dead = true;
    spin_unlock_irqrestore(&cep->lock, flags);
    if (abort)
        sock_no_linger(sk); /* close with a reset */
    sock_release(s);
    cep->sock = NULL;
    ofl_iw_cep_put(cep); /* the socket's: not the last (the caller's) */
}

/* ---- the transmit ring ----------------------------------------------------- */

/* Under cep->lock: the ring's free space starts here (contiguous). */
static u8 *ofl_iw_txq_at_head(struct ofl_iw_cep *cep)
{
    return cep->txq + (cep->tx_head & (OFL_IW_TXQ - 1));
}

/* The core's reservation hook for a QP linked to cep (ofl_iw_qp.c), under
 * dev->lock: len bytes of the ring at its head, or NULL (no room, or the
 * socket is gone: the core is refused as by the transmit). */
u8 *ofl_iw_cep_tx_reserve(struct ofl_iw_cep *cep, u32 len)
{
    unsigned long irqf;
    u8 *p = NULL;

    spin_lock_irqsave(&cep->lock, irqf);
    cep->tx_lent = NULL;
    if (!cep->tx_dead && len <= OFL_IW_TXQ &&
        OFL_IW_TXQ - (cep->tx_head - cep->tx_tail) >= len)
        p = cep->tx_lent = ofl_iw_txq_at_head(cep);
    else
        cep->tx_blocked = true;
    spin_unlock_irqrestore(&cep->lock, irqf);
    return p;
}

/* Puts bytes in the ring (core: the core's transmit, counted). 0: taken,
 * 1: none taken. Bytes built in the reservation are taken where they are (the head has
 * not moved since: nothing else writes the ring after the handshake, and
 * a write there would have ended the reservation); others are copied. */
static int ofl_iw_cep_enqueue(struct ofl_iw_cep *cep, const u8 *data, u32 len,
                              u32 flags, bool core)
{
    unsigned long irqf;
    bool in_place, kick;
    int rv = 0;

    spin_lock_irqsave(&cep->lock, irqf);
    in_place = cep->tx_lent && data == cep->tx_lent &&
               data == ofl_iw_txq_at_head(cep);
    cep->tx_lent = NULL;
    if (flags & OFL_QP_TX_ABORT) {
        cep->tx_abort = true;
    } else if (cep->tx_dead ||
               OFL_IW_TXQ - (cep->tx_head - cep->tx_tail) < len) {
        cep->tx_blocked = true;
        rv = 1;
    } else {
        if (!in_place)
            memcpy(ofl_iw_txq_at_head(cep), data, len);
        if (core && len) {
            atomic64_inc(in_place ? &ofl_iw_tx_in_place : &ofl_iw_tx_copied);
            if (!cep->tx_poster)
                atomic64_inc(&ofl_iw_tx_deferred);
        }
        cep->tx_head += len;
        if (flags & OFL_QP_TX_CLOSE)
            cep->tx_close = true;
    }
    kick = rv == 0 && !(core && cep->tx_poster);
    spin_unlock_irqrestore(&cep->lock, irqf);
    if (kick)
        ofl_iw_cep_kick(cep);
    return rv;
}

/* The core's transmit callback for a QP linked to cep (ofl_iw_qp.c),
 * under dev->lock: see the top of the file. */
int ofl_iw_cep_tx(struct ofl_iw_cep *cep, const u8 *data, u32 len, u32 flags)
{
    return ofl_iw_cep_enqueue(cep, data, len, flags, true);
}

/* A reference for the QP code (its post_send), taken under dev->lock
 * while qp->cep holds one; dropped in process context. */
void ofl_iw_cep_get(struct ofl_iw_cep *cep)
{
    kref_get(&cep->ref);
}

void ofl_iw_cep_drop(struct ofl_iw_cep *cep)
{
    ofl_iw_cep_put(cep);
}

/* MPA frames go through the ring too: they precede every FPDU. */
static int ofl_iw_cep_queue(struct ofl_iw_cep *cep, const u8 *data, u32 len)
{
    return ofl_iw_cep_enqueue(cep, data, len, 0, false) ? -ENOBUFS : 0;
}

/*
 * Sends what the ring holds without waiting (work item, under the mutex);
 * when the socket makes room for what the core was refused, the engine
 * runs again. Returns 0, or the socket's error.
 */
static int ofl_iw_cep_flush(struct ofl_iw_cep *cep)
{
    unsigned long irqf;
    u32 head, tail;
    bool wake;
    int rv;

    if (!cep->sock)
        return -ENOTCONN;
    for (;;) {
        struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
        struct kvec iov;
        u32 off;

        spin_lock_irqsave(&cep->lock, irqf);
        head = cep->tx_head;
        tail = cep->tx_tail;
        spin_unlock_irqrestore(&cep->lock, irqf);
        if (head == tail)
            break;
        off = tail & (OFL_IW_TXQ - 1);
        iov.iov_base = cep->txq + off; /* contiguous: mapped twice */
        iov.iov_len = head - tail;
        rv = kernel_sendmsg(cep->sock, &msg, &iov, 1, iov.iov_len);
        if (rv == -EAGAIN)
            break; /* sk_write_space runs the work item again */
        if (rv < 0)
            return rv;
        spin_lock_irqsave(&cep->lock, irqf);
        cep->tx_tail += rv;
        wake = cep->tx_blocked;
        cep->tx_blocked = false;
        spin_unlock_irqrestore(&cep->lock, irqf);
        if (wake && cep->qp)
            ofl_iw_qp_kick(cep->qp);
    }
    if (cep->tx_close && head == tail && !cep->tx_shut) {
        cep->tx_shut = true;
        (void)kernel_sock_shutdown(cep->sock, SHUT_WR);
    }
    return 0;
}

/*
 * A user QP's post_send (libsiw's doorbell: a system call, process
 * context): what the engine just queued goes out now, from the posting
 * thread, as siw sends in the system call (siw_qp_sq_process), instead of
 * after a hop through the work item. When the work item holds the mutex,
 * or on an error or an abort, the work item is woken instead.
 */
void ofl_iw_cep_tx_now(struct ofl_iw_cep *cep)
{
    bool kick = true;

    might_sleep();
    if (mutex_trylock(&cep->mutex)) {
        kick = cep->state != OFL_IW_CEP_RTS || ofl_iw_cep_flush(cep) ||
               READ_ONCE(cep->tx_abort) ||
               /* the peer has not spoken: the work item's nudge (siw's
                * responder race) must see that we sent */
               (cep->initiator && READ_ONCE(cep->rx_sn) == 0);
        mutex_unlock(&cep->mutex);
    }
    if (kick) /* busy, an error or an abort: the work item's */
        ofl_iw_cep_kick(cep);
}

/* Under dev->lock, around a user QP's post_send: while on, the FPDUs the
 * engine queues wake no work item (the poster sends them right after,
 * ofl_iw_cep_tx_now). */
void ofl_iw_cep_poster(struct ofl_iw_cep *cep, bool on)
{
    unsigned long irqf;

    spin_lock_irqsave(&cep->lock, irqf);
    cep->tx_poster = on;
    spin_unlock_irqrestore(&cep->lock, irqf);
}

/* ---- upcalls ---------------------------------------------------------------- */

/* Returns the iw_cm's answer: 0, or -ENOMEM when it could not take the
 * event (cm_event_handler in iwcm.c: its work elements, one per event of
 * a listener's backlog, are spent, or a copy of the private data failed);
 * it then kept nothing of it. Only a refused CONNECT_REQUEST needs the
 * answer: the iw_cm's preallocated elements cover an id's other events. */
static int ofl_iw_upcall(struct ofl_iw_cep *cep, struct iw_cm_id *id,
                         enum iw_cm_event_type type, int status,
                         const void *pd, u16 pd_len, u16 ird, u16 ord)
{
    struct iw_cm_event ev = {};

    ev.event = type;
    ev.status = status;
    if (cep->sock) {
        if (kernel_getsockname(cep->sock, (struct sockaddr *)&ev.local_addr) < 0)
            ev.local_addr = id->local_addr;
        if (kernel_getpeername(cep->sock, (struct sockaddr *)&ev.remote_addr) < 0)
            ev.remote_addr = id->remote_addr;
    } else {
        ev.local_addr = id->local_addr;
        ev.remote_addr = id->remote_addr;
    }
    if (type == IW_CM_EVENT_CONNECT_REQUEST)
        ev.provider_data = cep;
    /* which sockets a connection joins: tests/rdma/perf.sh checks that a
     * pair it calls offload <-> siw really is one */
    if (type == IW_CM_EVENT_ESTABLISHED ||
        (type == IW_CM_EVENT_CONNECT_REPLY && !status))
        ibdev_dbg(&cep->dev->ibdev, "connection up: local %pISpc, peer %pISpc\n",
                  &ev.local_addr, &ev.remote_addr);
    /* iw_cm_event carries at most 255 bytes (a u8): MPA allows 512, so a
     * Reply's longer private data goes up as its first 255 (as a
     * rejecting Reply's does), not as its length modulo 256 */
    ev.private_data = (void *)pd;
    ev.private_data_len = pd ? (u8)min_t(u32, pd_len, 255) : 0;
    ev.ird = (u8)min_t(u16, ird, 255);
    ev.ord = (u8)min_t(u16, ord, 255);
    return id->event_handler(id, &ev);
}

/* Whether listener l has its cap of children in handshake (under l's
 * lock): it accepts no connection until one leaves. */
static bool ofl_iw_listener_full(const struct ofl_iw_cep *l)
{
    return l->handshakes >= l->handshakes_max;
}

/* The child c leaves its listener l's handshakes (it went up to the
 * listener's id, or closes): a listener that stopped accepting at its cap
 * takes the next connection. */
static void ofl_iw_child_leaves(struct ofl_iw_cep *l, struct ofl_iw_cep *c)
{
    unsigned long irqf;
    bool full;

    spin_lock_irqsave(&l->lock, irqf);
    full = ofl_iw_listener_full(l);
    if (!list_empty(&c->entry)) {
        list_del_init(&c->entry);
        l->handshakes--;
    }
    spin_unlock_irqrestore(&l->lock, irqf);
    if (full)
        ofl_iw_cep_kick(l);
}

/* ---- closing ---------------------------------------------------------------- */

/*
 * Ends the connection (under the mutex): the QP lets go of the stream
 * (llp: 0 none, 1 closed, 2 lost: the core's LLP events), the socket is
 * released (reset when abort), CLOSE goes up when the QP had the stream
 * (DISCONNECT first when peer_fin), the iw_cm_id and QP references go.
 * status: of CONNECT_REPLY for an initiator that never got there.
 */
static void ofl_iw_cep_close(struct ofl_iw_cep *cep, int llp, bool abort,
                             bool peer_fin, int status)
{
    struct iw_cm_id *id = cep->cm_id;
    u8 was = cep->state;

    if (was == OFL_IW_CEP_CLOSED)
        return;
    ibdev_dbg(&cep->dev->ibdev,
              "connection closes: state %u, llp %d, abort %d, peer FIN %d, status %d, %u bytes in, %u out, %u nudges\n",
              was, llp, abort, peer_fin, status, cep->rx_sn, cep->tx_tail,
              cep->nudges);
    cep->state = OFL_IW_CEP_CLOSED;
    if (id && was == OFL_IW_CEP_RTS && peer_fin)
        ofl_iw_upcall(cep, id, IW_CM_EVENT_DISCONNECT, 0, NULL, 0, 0, 0);
    if (cep->qp) {
        struct ofl_iw_cep *linked = ofl_iw_qp_unlink(cep->qp, cep, llp);

        if (linked)
            ofl_iw_cep_put(linked); /* the QP's */
    }
    ofl_iw_sock_release(cep, abort);
    if (id) {
        if (was == OFL_IW_CEP_RTS)
            ofl_iw_upcall(cep, id, IW_CM_EVENT_CLOSE, 0, NULL, 0, 0, 0);
        else if (cep->initiator)
            ofl_iw_upcall(cep, id, IW_CM_EVENT_CONNECT_REPLY,
                          status ? status : -ECONNRESET, NULL, 0, 0, 0);
        cep->cm_id = NULL;
        id->provider_data = NULL;
        id->rem_ref(id);
    }
    if (cep->qp) {
        ofl_iw_qp_put(cep->qp);
        cep->qp = NULL;
    }
    if (cep->listener) {
        struct ofl_iw_cep *l = cep->listener;

        ofl_iw_child_leaves(l, cep);
        cep->listener = NULL;
        ofl_iw_cep_put(l);
    }
    ofl_iw_cep_put(cep); /* its own: the caller holds another */
}

/* ---- the handshake ----------------------------------------------------------- */

static u32 ofl_iw_emss(struct ofl_iw_cep *cep)
{
    u32 mss = READ_ONCE(tcp_sk(cep->sock->sk)->mss_cache);

    return mss ? mss : 536;
}

/* One read into rxbuf after what is there (early): bytes, 0 at EOF,
 * -EAGAIN, or the socket's error. */
static int ofl_iw_cep_read(struct ofl_iw_cep *cep, u32 at)
{
    struct msghdr msg = {};
    struct kvec iov = { .iov_base = cep->rxbuf + at,
                        .iov_len = OFL_IW_RXBUF - at };

    return kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len, MSG_DONTWAIT);
}

/* Initiator: the Reply accepted, the QP takes the stream. */
static void ofl_iw_cep_established(struct ofl_iw_cep *cep)
{
    const struct ofl_mpa_params *p = &cep->hs.params;
    int rv;

    kref_get(&cep->ref); /* the QP's */
    rv = ofl_iw_qp_connect(cep->qp, cep, p, ofl_iw_emss(cep));
    if (rv) {
        ofl_iw_cep_put(cep);
        ofl_iw_cep_close(cep, 0, true, false, -ECONNRESET);
        return;
    }
    cep->state = OFL_IW_CEP_RTS;
    cep->tx_base = cep->tx_tail;
    cep->nudge_step = msecs_to_jiffies(OFL_IW_NUDGE_FIRST_MS);
    cep->nudge_at = jiffies + cep->nudge_step;
    cep->nudges = 0;
    ofl_iw_upcall(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0,
                  cep->hs.peer.pd, cep->hs.peer.pd_len, p->ird, p->ord);
    /* The stream from here on is ofl_iw_cep_stream's (the work item in
     * RTS): the bytes that came with the Reply (early) wait for it, and
     * no socket event may come to run it (a peer that spoke once and now
     * waits for an answer), as the responder's accept kicks it too. */
    ofl_iw_cep_kick(cep);
}

/* The rig's planted refusal (tests/rdma/hostile-guest.sh): the iw_cm
 * refuses a CONNECT_REQUEST only when a listener's events come faster
 * than its work queue takes them, which no test can make happen at will. */
static int rig_refuse_requests;
module_param(rig_refuse_requests, int, 0644);
MODULE_PARM_DESC(rig_refuse_requests, "the rig's planted refusal: the next N connection requests are refused as the iw_cm refuses one when a listener's backlog of events is spent (never set it otherwise)");

/* CONNECT_REQUEST to the listener's id (under l's mutex). */
static int ofl_iw_request_up(struct ofl_iw_cep *l, struct ofl_iw_cep *cep)
{
    const struct ofl_mpa_rr *peer = &cep->hs.peer;
    int refuse = READ_ONCE(rig_refuse_requests);

    if (refuse > 0) {
        WRITE_ONCE(rig_refuse_requests, refuse - 1);
        return -ENOMEM;
    }
    return ofl_iw_upcall(cep, l->cm_id, IW_CM_EVENT_CONNECT_REQUEST, 0,
                         peer->pd, peer->pd_len,
                         peer->enhanced ? peer->ird : OFL_IW_MAX_IRD,
                         peer->enhanced ? peer->ord : OFL_IW_MAX_ORD);
}

/*
 * Responder: the Request is in; CONNECT_REQUEST goes to the listener's
 * id (under its mutex, so that destroy_listen waits for it). A request
 * the iw_cm refuses (ofl_iw_upcall) made no id: nothing will accept or
 * reject this end point, so it closes now, its connection reset, as
 * siw's does (siw_proc_mpareq). Left waiting for an accept, each such
 * end point kept its socket and its 320 KiB of buffers for good, and
 * module unload waited for it forever: a peer that sent requests faster
 * than the ULP took them could spend the host's memory.
 */
static void ofl_iw_cep_request(struct ofl_iw_cep *cep)
{
    struct ofl_iw_cep *l = cep->listener;
    bool up = false;
    int rv = 0;

    if (cep->hs.peer.pd_len > 255) { /* iw_cm_event: u8 private_data_len */
        ofl_iw_cep_close(cep, 0, true, false, 0);
        return;
    }
    mutex_lock(&l->mutex);
    if (l->state == OFL_IW_CEP_LISTEN && l->cm_id) {
        ofl_iw_child_leaves(l, cep);
        cep->state = OFL_IW_CEP_AWAIT_ACCEPT;
        cep->listener = NULL;
        kref_get(&cep->ref); /* provider_data of the iw_cm's new id */
        rv = ofl_iw_request_up(l, cep);
        if (rv) {
            ibdev_dbg(&cep->dev->ibdev,
                      "connection request refused by the iw_cm (%d): reset\n",
                      rv);
            ofl_iw_cep_put(cep); /* no id holds it */
        }
        up = true;
    }
    mutex_unlock(&l->mutex);
    if (up)
        ofl_iw_cep_put(l); /* the child's reference on its listener */
    if (!up || rv)
        ofl_iw_cep_close(cep, 0, true, false, 0);
}

/* AWAIT_REPLY / AWAIT_REQUEST: the peer's frame. */
static void ofl_iw_cep_mpa(struct ofl_iw_cep *cep)
{
    int i, n;

    if (cep->initiator && ofl_iw_cep_flush(cep)) {
        ofl_iw_cep_close(cep, 0, true, false, -ECONNRESET);
        return;
    }
    for (i = 0; i < OFL_IW_RX_BUDGET; i++) {
        size_t used = 0;
        enum ofl_err e;

        n = ofl_iw_cep_read(cep, 0);
        if (n == -EAGAIN)
            return;
        if (n <= 0) {
            ofl_iw_cep_close(cep, 0, true, false,
                             n ? n : -ECONNRESET);
            return;
        }
        e = ofl_mpa_hs_recv(&cep->hs, cep->rxbuf, n, &used);
        if (cep->hs.state == OFL_MPA_HS_AWAIT_REPLY ||
            cep->hs.state == OFL_MPA_HS_AWAIT_REQUEST)
            continue; /* the frame is incomplete: it kept the bytes */
        /* what followed the frame is stream data */
        cep->early = n - used;
        memmove(cep->rxbuf, cep->rxbuf + used, cep->early);
        if (cep->hs.state == OFL_MPA_HS_DONE && cep->initiator) {
            ofl_iw_cep_established(cep);
        } else if (cep->hs.state == OFL_MPA_HS_DECIDE) {
            ofl_iw_cep_request(cep);
        } else if (cep->hs.state == OFL_MPA_HS_REJECTED && cep->initiator) {
            /* CONNECT_REPLY with the peer's private data: -ECONNREFUSED */
            struct iw_cm_id *id = cep->cm_id;

            ofl_iw_upcall(cep, id, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
                          cep->hs.peer.pd,
                          min_t(u16, cep->hs.peer.pd_len, 255), 0, 0);
            cep->initiator = false; /* the reply went up */
            ofl_iw_cep_close(cep, 0, false, false, 0);
        } else {
            ibdev_dbg(&cep->dev->ibdev, "MPA: %s\n", ofl_strerror(e));
            ofl_iw_cep_close(cep, 0, true, false, -ECONNRESET);
        }
        return;
    }
    ofl_iw_cep_kick(cep); /* budget spent */
}

/* CONNECTING: the TCP handshake ended (or not yet). */
static void ofl_iw_cep_connecting(struct ofl_iw_cep *cep)
{
    struct sock *sk = cep->sock->sk;
    size_t len = 0;
    int err = -READ_ONCE(sk->sk_err);

    if (READ_ONCE(sk->sk_state) == TCP_ESTABLISHED) {
        tcp_sock_set_nodelay(sk);
        if (ofl_mpa_hs_request(&cep->hs, cep->frame, sizeof(cep->frame),
                               &len) != OFL_OK ||
            ofl_iw_cep_queue(cep, cep->frame, len)) {
            ofl_iw_cep_close(cep, 0, true, false, -EINVAL);
            return;
        }
        cep->state = OFL_IW_CEP_AWAIT_REPLY;
        ofl_iw_cep_mpa(cep);
    } else if (err || READ_ONCE(sk->sk_state) == TCP_CLOSE) {
        ofl_iw_cep_close(cep, 0, false, false, err ? err : -ECONNREFUSED);
    }
}

/* ---- the stream ----------------------------------------------------------------- */

static void ofl_iw_cep_nudge(struct ofl_iw_cep *cep)
{
    if (!cep->initiator || !nudge || cep->nudges >= OFL_IW_NUDGES ||
        cep->rx_sn != 0)
        return; /* the peer has spoken: its QP reads */
    if (time_before(jiffies, cep->nudge_at)) {
        ofl_iw_cep_kick_later(cep, cep->nudge_at - jiffies);
        return;
    }
    if (READ_ONCE(cep->tx_tail) != cep->tx_base && ofl_iw_qp_nudge(cep->qp))
        cep->nudges++;
    cep->nudge_step *= 2;
    cep->nudge_at = jiffies + cep->nudge_step;
    ofl_iw_cep_kick_later(cep, cep->nudge_step);
}

static void ofl_iw_cep_stream(struct ofl_iw_cep *cep)
{
    struct sock *sk = cep->sock->sk;
    bool fin;
    int err;

    /* the early bytes, what came since, then sk_data_ready feeds */
    lock_sock(sk);
    if (cep->early) {
        u32 k = cep->early;

        cep->early = 0;
        ofl_iw_qp_rx(cep->qp, cep->rx_sn, cep->rxbuf, k);
        cep->rx_sn += k;
    }
    ofl_iw_cep_rx_locked(cep, sk);
    WRITE_ONCE(cep->rx_direct, true);
    err = sk->sk_err;
    fin = (sk->sk_shutdown & RCV_SHUTDOWN) &&
          skb_queue_empty(&sk->sk_receive_queue);
    release_sock(sk);
    if (err || ofl_iw_cep_flush(cep)) {
        ofl_iw_cep_close(cep, 2, true, false, 0);
        return;
    }
    if (READ_ONCE(cep->tx_abort)) {
        ofl_iw_cep_close(cep, 0, true, false, 0);
        return;
    }
    if (fin) { /* the peer's FIN, after all its bytes */
        ofl_iw_cep_close(cep, 1, false, true, 0);
        return;
    }
    ofl_iw_cep_nudge(cep);
}

/* ---- listening ------------------------------------------------------------------ */

static void ofl_iw_cep_accept_all(struct ofl_iw_cep *l)
{
    struct ofl_mpa_cfg cfg = {};
    unsigned long irqf;
    int i;

    cfg.rev = 2;
    cfg.enhanced = true;
    cfg.crc = mpa_crc;
    cfg.markers = mpa_markers;
    cfg.ird = OFL_IW_MAX_IRD;
    cfg.ord = OFL_IW_MAX_ORD;
    for (i = 0; i < 16; i++) {
        struct ofl_iw_cep *c;
        struct socket *s;
        bool full;

        spin_lock_irqsave(&l->lock, irqf);
        full = ofl_iw_listener_full(l);
        spin_unlock_irqrestore(&l->lock, irqf);
        if (full)
            return; /* the next child to leave kicks the listener */
        if (kernel_accept(l->sock, &s, O_NONBLOCK))
            return;
        c = ofl_iw_cep_alloc(l->dev, true);
        if (!c) {
            sock_release(s); /* its callbacks are the listener's: no
                                user data, nothing of ours is called */
            continue;
        }
        if (ofl_mpa_hs_init(&c->hs, &cfg, false) != OFL_OK) {
            sock_release(s);
            ofl_iw_cep_put(c);
            continue;
        }
        tcp_sock_set_nodelay(s->sk);
        c->state = OFL_IW_CEP_AWAIT_REQUEST;
        c->deadline = jiffies + OFL_IW_MPA_TIMEOUT;
        kref_get(&l->ref);
        c->listener = l;
        spin_lock_irqsave(&l->lock, irqf);
        list_add_tail(&c->entry, &l->children);
        l->handshakes++;
        spin_unlock_irqrestore(&l->lock, irqf);
        ofl_iw_sock_attach(c, s, l);
        ofl_iw_cep_kick(c); /* the Request may be there already */
    }
    ofl_iw_cep_kick(l);
}

/* ---- the work item ---------------------------------------------------------------- */

static void ofl_iw_cep_work(struct work_struct *w)
{
    struct ofl_iw_cep *cep = container_of(to_delayed_work(w),
                                          struct ofl_iw_cep, work);

    mutex_lock(&cep->mutex);
    switch (cep->state) {
    case OFL_IW_CEP_LISTEN:
        ofl_iw_cep_accept_all(cep);
        break;
    case OFL_IW_CEP_CONNECTING:
        ofl_iw_cep_connecting(cep);
        break;
    case OFL_IW_CEP_AWAIT_REPLY:
        ofl_iw_cep_mpa(cep);
        break;
    case OFL_IW_CEP_AWAIT_REQUEST:
        if (cep->listener->state != OFL_IW_CEP_LISTEN)
            ofl_iw_cep_close(cep, 0, true, false, 0);
        else
            ofl_iw_cep_mpa(cep);
        break;
    case OFL_IW_CEP_RTS:
        ofl_iw_cep_stream(cep);
        break;
    default: /* AWAIT_ACCEPT: the socket waits for accept or reject */
        break;
    }
    switch (cep->state) {
    case OFL_IW_CEP_CONNECTING:
    case OFL_IW_CEP_AWAIT_REPLY:
    case OFL_IW_CEP_AWAIT_REQUEST:
        if (time_after_eq(jiffies, cep->deadline))
            ofl_iw_cep_close(cep, 0, true, false, -ETIMEDOUT);
        else
            ofl_iw_cep_kick_later(cep, cep->deadline - jiffies);
        break;
    default:
        break;
    }
    mutex_unlock(&cep->mutex);
    ofl_iw_cep_put(cep); /* the work's */
}

/* ---- iw_cm ops -------------------------------------------------------------------- */

static int ofl_iw_sock_create(struct ofl_iw_dev *dev, struct socket **s)
{
    int rv = sock_create_kern(dev_net(dev->netdev), AF_INET, SOCK_STREAM,
                              IPPROTO_TCP, s);

    if (!rv)
        sock_set_reuseaddr((*s)->sk);
    return rv;
}

int ofl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
    struct ofl_iw_dev *dev = to_ofl_dev(id->device);
    struct sockaddr_in *la = (struct sockaddr_in *)&id->m_local_addr;
    struct sockaddr_in *ra = (struct sockaddr_in *)&id->m_remote_addr;
    struct ofl_mpa_cfg cfg = {};
    struct ofl_iw_cep *cep;
    struct ib_qp *ibqp;
    struct socket *s;
    int rv;

    if (la->sin_family != AF_INET || ra->sin_family != AF_INET)
        return -EAFNOSUPPORT;
    if (param->ord > OFL_IW_MAX_ORD || param->ird > OFL_IW_MAX_IRD ||
        param->private_data_len > OFL_IW_PD_MAX)
        return -EINVAL;
    ibqp = ofl_iw_get_qp(id->device, param->qpn);
    if (!ibqp)
        return -EINVAL;
    cep = ofl_iw_cep_alloc(dev, true);
    if (!cep)
        return -ENOMEM;
    cfg.rev = 2;
    cfg.enhanced = true;
    cfg.crc = mpa_crc;
    cfg.markers = mpa_markers;
    cfg.ird = param->ird;
    cfg.ord = param->ord;
    if (param->private_data_len)
        memcpy(cep->pd_copy, param->private_data, param->private_data_len);
    cfg.pd = param->private_data_len ? cep->pd_copy : NULL;
    cfg.pd_len = param->private_data_len;
    if (ofl_mpa_hs_init(&cep->hs, &cfg, true) != OFL_OK) {
        rv = -EINVAL;
        goto err_cep;
    }
    rv = ofl_iw_sock_create(dev, &s);
    if (rv)
        goto err_cep;
    rv = kernel_bind(s, (struct sockaddr *)la, sizeof(*la));
    if (rv) {
        sock_release(s);
        goto err_cep;
    }
    mutex_lock(&cep->mutex);
    cep->initiator = true;
    cep->state = OFL_IW_CEP_CONNECTING;
    cep->deadline = jiffies + OFL_IW_MPA_TIMEOUT;
    cep->qp = to_ofl_qp(ibqp);
    ofl_iw_qp_get(cep->qp);
    ofl_iw_sock_attach(cep, s, NULL);
    rv = kernel_connect(s, (struct sockaddr *)ra, sizeof(*ra), O_NONBLOCK);
    if (rv && rv != -EINPROGRESS) {
        /* no upcall: an error of connect precludes provider events */
        cep->state = OFL_IW_CEP_CLOSED;
        ofl_iw_sock_release(cep, true);
        ofl_iw_qp_put(cep->qp);
        cep->qp = NULL;
        mutex_unlock(&cep->mutex);
        goto err_cep;
    }
    id->add_ref(id);
    cep->cm_id = id;
    id->provider_data = cep;
    ofl_iw_cep_kick(cep);
    mutex_unlock(&cep->mutex);
    return 0;

err_cep:
    ofl_iw_cep_put(cep);
    return rv;
}

int ofl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
    struct ofl_iw_cep *cep = id->provider_data;
    struct ib_qp *ibqp;
    size_t len = 0;
    enum ofl_err e;
    int rv = 0;

    if (!cep)
        return -EINVAL;
    mutex_lock(&cep->mutex);
    if (cep->state != OFL_IW_CEP_AWAIT_ACCEPT) {
        rv = -ECONNRESET;
        goto out;
    }
    ibqp = ofl_iw_get_qp(id->device, param->qpn);
    if (!ibqp || param->ord > OFL_IW_MAX_ORD || param->ird > OFL_IW_MAX_IRD ||
        param->private_data_len > OFL_IW_PD_MAX) {
        rv = -EINVAL;
        ofl_iw_cep_close(cep, 0, true, false, 0);
        goto out;
    }
    /* our side of the Reply: what the consumer accepts with */
    cep->hs.cfg.ird = param->ird;
    cep->hs.cfg.ord = param->ord;
    if (param->private_data_len)
        memcpy(cep->pd_copy, param->private_data, param->private_data_len);
    cep->hs.cfg.pd = param->private_data_len ? cep->pd_copy : NULL;
    cep->hs.cfg.pd_len = param->private_data_len;
    e = ofl_mpa_hs_accept(&cep->hs, cep->frame, sizeof(cep->frame), &len);
    if (len)
        (void)ofl_iw_cep_queue(cep, cep->frame, len);
    if (e != OFL_OK) {
        /* no RTR kind agrees: the reject Reply went into the ring */
        (void)ofl_iw_cep_flush(cep);
        rv = -ECONNREFUSED;
        ofl_iw_cep_close(cep, 0, false, false, 0);
        goto out;
    }
    cep->qp = to_ofl_qp(ibqp);
    ofl_iw_qp_get(cep->qp);
    kref_get(&cep->ref); /* the QP's */
    rv = ofl_iw_qp_connect(cep->qp, cep, &cep->hs.params, ofl_iw_emss(cep));
    if (rv) {
        ofl_iw_cep_put(cep);
        ofl_iw_cep_close(cep, 0, true, false, 0);
        goto out;
    }
    cep->state = OFL_IW_CEP_RTS;
    id->add_ref(id);
    cep->cm_id = id;
    ofl_iw_upcall(cep, id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0,
                  cep->hs.params.ird, cep->hs.params.ord);
    ofl_iw_cep_kick(cep); /* the Reply, then what the peer sent */
out:
    mutex_unlock(&cep->mutex);
    if (rv)
        id->provider_data = NULL;
    ofl_iw_cep_put(cep); /* the iw_cm's (provider_data) */
    return rv;
}

int ofl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
    struct ofl_iw_cep *cep = id->provider_data;
    size_t flen = 0;

    if (!cep)
        return -EINVAL;
    mutex_lock(&cep->mutex);
    if (cep->state == OFL_IW_CEP_AWAIT_ACCEPT) {
        BUILD_BUG_ON(OFL_IW_PD_MAX < U8_MAX); /* len is a u8 */
        if (!pdata)
            len = 0;
        if (len)
            memcpy(cep->pd_copy, pdata, len);
        cep->hs.cfg.pd = len ? cep->pd_copy : NULL;
        cep->hs.cfg.pd_len = len;
        if (ofl_mpa_hs_reject(&cep->hs, cep->frame, sizeof(cep->frame),
                              &flen) == OFL_OK &&
            !ofl_iw_cep_queue(cep, cep->frame, flen))
            (void)ofl_iw_cep_flush(cep);
        ofl_iw_cep_close(cep, 0, false, false, 0);
    }
    mutex_unlock(&cep->mutex);
    id->provider_data = NULL;
    ofl_iw_cep_put(cep); /* the iw_cm's */
    return 0;
}

/* The id's IPv4 address, or for a wildcard the netdev's first one. */
static int ofl_iw_listen_addr(struct ofl_iw_dev *dev, struct iw_cm_id *id,
                              struct sockaddr_in *sin)
{
    const struct sockaddr_in *la = (const struct sockaddr_in *)&id->m_local_addr;
    struct in_device *in_dev;
    const struct in_ifaddr *ifa;
    int rv = -EADDRNOTAVAIL;

    if (la->sin_family != AF_INET)
        return -EAFNOSUPPORT;
    *sin = *la;
    if (sin->sin_addr.s_addr != htonl(INADDR_ANY))
        return 0;
    rcu_read_lock();
    in_dev = __in_dev_get_rcu(dev->netdev);
    if (in_dev) {
        in_dev_for_each_ifa_rcu(ifa, in_dev) {
            sin->sin_addr.s_addr = ifa->ifa_address;
            rv = 0;
            break;
        }
    }
    rcu_read_unlock();
    return rv;
}

int ofl_iw_create_listen(struct iw_cm_id *id, int backlog)
{
    struct ofl_iw_dev *dev = to_ofl_dev(id->device);
    struct sockaddr_in sin;
    struct ofl_iw_cep *cep;
    struct socket *s;
    int rv;

    rv = ofl_iw_listen_addr(dev, id, &sin);
    if (rv)
        return rv;
    cep = ofl_iw_cep_alloc(dev, false);
    if (!cep)
        return -ENOMEM;
    rv = ofl_iw_sock_create(dev, &s);
    if (rv)
        goto err_cep;
    rv = kernel_bind(s, (struct sockaddr *)&sin, sizeof(sin));
    /*
     * The port is taken in this namespace: the listener then takes
     * connections from its own netdev only, and shares the port with a
     * listener bound to another netdev. That is siw's for a server that
     * binds no address: rdma_cm asks every device to listen for it, and
     * siw opens its socket in the caller's namespace on 0.0.0.0, bound to
     * its netdev; rdma_cm fails the whole listen when one device fails.
     * Not bound otherwise: a local client reaches this address over lo,
     * which a listener bound to the netdev would refuse.
     */
    if (rv == -EADDRINUSE) {
        rv = sock_bindtoindex(s->sk, dev->netdev->ifindex, true);
        if (!rv)
            rv = kernel_bind(s, (struct sockaddr *)&sin, sizeof(sin));
    }
    if (rv) {
        sock_release(s);
        goto err_cep;
    }
    cep->handshakes_max = clamp_t(int, backlog, OFL_IW_HANDSHAKES_MIN,
                                  OFL_IW_HANDSHAKES_MAX);
    mutex_lock(&cep->mutex);
    cep->state = OFL_IW_CEP_LISTEN;
    ofl_iw_sock_attach(cep, s, NULL);
    rv = kernel_listen(s, backlog);
    if (rv) {
        cep->state = OFL_IW_CEP_CLOSED;
        ofl_iw_sock_release(cep, false);
        mutex_unlock(&cep->mutex);
        goto err_cep;
    }
    id->add_ref(id);
    cep->cm_id = id;
    id->provider_data = cep;
    mutex_unlock(&cep->mutex);
    return 0;

err_cep:
    ofl_iw_cep_put(cep);
    return rv;
}

int ofl_iw_destroy_listen(struct iw_cm_id *id)
{
    struct ofl_iw_cep *cep = id->provider_data, *c;
    unsigned long irqf;

    if (!cep)
        return 0;
    mutex_lock(&cep->mutex);
    cep->state = OFL_IW_CEP_CLOSED;
    ofl_iw_sock_release(cep, false);
    cep->cm_id = NULL;
    mutex_unlock(&cep->mutex);
    id->provider_data = NULL;
    id->rem_ref(id);
    /* children still in their handshake see the listener closed */
    spin_lock_irqsave(&cep->lock, irqf);
    list_for_each_entry(c, &cep->children, entry)
        ofl_iw_cep_kick(c);
    spin_unlock_irqrestore(&cep->lock, irqf);
    ofl_iw_cep_put(cep);
    return 0;
}

/* QP references for the iw_cm, and its QP lookup. */
void ofl_iw_qp_add_ref(struct ib_qp *qp)
{
    ofl_iw_qp_get(to_ofl_qp(qp));
}

void ofl_iw_qp_rem_ref(struct ib_qp *qp)
{
    ofl_iw_qp_put(to_ofl_qp(qp));
}

struct ib_qp *ofl_iw_get_qp(struct ib_device *ibdev, int qpn)
{
    struct ofl_iw_qp *qp = xa_load(&to_ofl_dev(ibdev)->qp_xa, qpn);

    return qp ? &qp->base : NULL;
}

/* ---- module --------------------------------------------------------------------- */

int ofl_iw_cm_init(void)
{
    ofl_iw_wq = alloc_ordered_workqueue("ofl_iw_cm", WQ_MEM_RECLAIM);
    return ofl_iw_wq ? 0 : -ENOMEM;
}

/* After every device is gone: each end point closed when its QP, its
 * iw_cm_id or its listener went; wait for the last works. */
void ofl_iw_cm_exit(void)
{
    /* Every end point runs module code (its work item, its socket
     * callbacks), so unload waits for the last one; the devices are gone
     * by now, their QPs destroyed and streams reset, so what is left is
     * ending. A wait that goes on is a leaked reference: it is said, once
     * every 10 s, rather than hanging silently (siw's exit waits the same
     * way, in destroy_workqueue). */
    while (!wait_event_timeout(ofl_iw_ceps_wait,
                               atomic_read(&ofl_iw_ceps) == 0, 10 * HZ))
        pr_warn("ofl_iw: unload waits for %d connection end point(s)\n",
                atomic_read(&ofl_iw_ceps));
    destroy_workqueue(ofl_iw_wq);
}
