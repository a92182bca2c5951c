// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_qp - RC queue pairs. A QP is the core's struct ofl_qp (service
 * OFL_QP_SVC_IWARP) over memory of its own; the glue translates, the core
 * decides: the state machine (ofl_qp_modify), what may be posted in which
 * state (ofl_qp_post_send / _recv), flushing.
 *
 * States: IB RESET, INIT, RTR, SQD and ERR are the core's RESET, INIT,
 * RTR, SQD and ERROR, asked for with ofl_qp_modify; the core reports its
 * own SQE and TERMINATE as IB SQE and CLOSING as SQD (as siw reports its
 * TERMINATE and CLOSING). An iWARP QP reaches RTS only when its stream is
 * up (the core's ESTAB, ofl_iw_qp_connect, from the connection manager in
 * ofl_iw_cm.c); modify to RTS without a connection is refused with
 * -EINVAL, which is what siw does (siw_qp_modify: "no socket"). SQD on a
 * connected QP is CLOSING (the iw_cm's graceful disconnect).
 *
 * User QPs: siw's user ABI. The create response carries the keys of two
 * mmap'ed rings, num_sqe struct siw_sqe and num_rqe struct siw_rqe, that
 * libsiw fills without a system call; the send doorbell is a post_send
 * with no work request. The device takes ring entries (ofl_iw_pull_sq,
 * ofl_iw_pull_rq) at the send doorbell (both rings), at ERROR and at
 * destroy: each entry is copied once and every field checked by
 * ofl_iw_uring before the core sees it (user space is hostile). An entry
 * the core took is handed back to libsiw (its VALID flag cleared); an
 * entry the core has no room for stays in the ring for the next pull; a
 * malformed entry, or one the core refuses for itself, moves the QP to
 * ERROR and is consumed without a completion (the entries behind it are
 * flushed). The send ring is also taken when the socket makes room (a
 * kick), and after a receive only while its last pull stopped at a valid
 * entry (usq_waits, ofl_iw_qp_run_pull). siw's receive ring has no
 * doorbell: libsiw's receives reach the core at the next pull (with a
 * connection that will be when a Send arrives). Completions reach the
 * user CQ ring through ofl_iw_cq_to_user after each call.
 */
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "ofl_iw.h"

/* The core's transmit buffers, sized for the largest FPDU the stream may
 * ever carry (MULPDU 65535 with markers; ofl_qp_establish checks it). */
#define OFL_IW_QP_RX_CAP (OFL_MPA_ULPDU_MAX + 1u)

/* qp->mem: offsets of the pieces of struct ofl_qp_mem */
struct ofl_iw_qp_layout {
    size_t sq_ring, rq_ring, sq_track, sq_sge, rq_sge, irq, ord, tx, stage, rx;
    size_t total;
};

static size_t ofl_iw_take(size_t *at, size_t n)
{
    size_t here = *at;

    *at = ALIGN(here + n, 64);
    return here;
}

static void ofl_iw_qp_layout(const struct ofl_iw_qp *qp,
                             struct ofl_iw_qp_layout *l)
{
    size_t at = 0;

    l->sq_ring = ofl_iw_take(&at, ofl_qp_ring_size(qp->sq_depth, qp->sq_sge,
                                                   true));
    l->rq_ring = ofl_iw_take(&at, ofl_qp_ring_size(qp->rq_depth, qp->rq_sge,
                                                   false));
    l->sq_track = ofl_iw_take(&at, qp->sq_depth *
                                       sizeof(struct ofl_qp_swqe));
    l->sq_sge = ofl_iw_take(&at, qp->sq_sge * sizeof(struct ofl_qp_sge));
    l->rq_sge = ofl_iw_take(&at, qp->rq_sge * sizeof(struct ofl_qp_sge));
    l->irq = ofl_iw_take(&at, OFL_IW_MAX_IRD * sizeof(struct ofl_qp_inreq));
    l->ord = ofl_iw_take(&at, OFL_IW_MAX_ORD * sizeof(u32));
    l->tx = ofl_iw_take(&at, ofl_qp_tx_need(OFL_MPA_ULPDU_MAX, true));
    l->stage = ofl_iw_take(&at, OFL_MPA_ULPDU_MAX); /* markers sent */
    l->rx = ofl_iw_take(&at, OFL_IW_QP_RX_CAP);
    l->total = at;
}

/* The core's transmit callback, under dev->lock (atomic context): the
 * connection queues the bytes and its work item sends them (ofl_iw_cm.c).
 * Without a stream nothing can be sent, and an abort has nothing to
 * reset. */
static int ofl_iw_qp_transmit(void *ctx, const uint8_t *data, uint32_t len,
                              uint32_t flags)
{
    struct ofl_iw_qp *qp = ctx;

    if (!qp->cep)
        return (flags & OFL_QP_TX_ABORT) ? 0 : 1;
    return ofl_iw_cep_tx(qp->cep, data, len, flags);
}

static bool tx_lend = true;
module_param(tx_lend, bool, 0644);
MODULE_PARM_DESC(tx_lend, "QPs created from now on build FPDUs in the transmit ring (0: copied in, the rig's planted fault)");

/* The core's reservation hook (ofl_qp_tx_reserve_fn), under dev->lock:
 * the FPDU is built in the connection's ring (ofl_iw_cm.c). */
static u8 *ofl_iw_qp_tx_reserve(void *ctx, u32 len)
{
    struct ofl_iw_qp *qp = ctx;

    return qp->cep ? ofl_iw_cep_tx_reserve(qp->cep, len) : NULL;
}

static enum ib_qp_state ofl_iw_ib_state(u8 s)
{
    switch (s) {
    case OFL_QP_RESET:
        return IB_QPS_RESET;
    case OFL_QP_INIT:
        return IB_QPS_INIT;
    case OFL_QP_RTR:
        return IB_QPS_RTR;
    case OFL_QP_RTS:
        return IB_QPS_RTS;
    case OFL_QP_SQD:
    case OFL_QP_CLOSING:
        return IB_QPS_SQD;
    case OFL_QP_SQE:
    case OFL_QP_TERMINATE:
        return IB_QPS_SQE;
    default:
        return IB_QPS_ERR;
    }
}

/* The core state a consumer may ask for, or OFL_QP_STATES. */
static enum ofl_qp_state ofl_iw_core_state(enum ib_qp_state s)
{
    switch (s) {
    case IB_QPS_RESET:
        return OFL_QP_RESET;
    case IB_QPS_INIT:
        return OFL_QP_INIT;
    case IB_QPS_RTR:
        return OFL_QP_RTR;
    case IB_QPS_RTS:
        return OFL_QP_RTS;
    case IB_QPS_SQD:
        return OFL_QP_SQD;
    case IB_QPS_ERR:
        return OFL_QP_ERROR;
    default: /* SQE is entered by the engine only */
        return OFL_QP_STATES;
    }
}

/* A post refused by the core: no room, the state (as siw: -ENOTCONN), or
 * the work request itself. */
static int ofl_iw_post_errno(enum ofl_err e)
{
    switch (e) {
    case OFL_OK:
        return 0;
    case OFL_E_QP_SQ_FULL:
    case OFL_E_QP_RQ_FULL:
        return -ENOMEM;
    case OFL_E_QP_STATE:
        return -ENOTCONN;
    default:
        return -EINVAL;
    }
}

/* ---- locking ------------------------------------------------------------ */

static void ofl_iw_qp_lock(struct ofl_iw_dev *dev, struct ofl_iw_qp *qp,
                           unsigned long *flags)
{
    spin_lock_irqsave(&dev->lock, *flags);
    spin_lock(&qp->scq->lock);
    if (qp->rcq != qp->scq)
        spin_lock_nested(&qp->rcq->lock, SINGLE_DEPTH_NESTING);
}

/* Completions the core produced go to the user ring, or the kernel
 * consumer's handler runs, with no lock held. */
static void ofl_iw_cq_out(struct ofl_iw_cq *cq)
{
    if (cq->uring)
        ofl_iw_cq_to_user(cq);
    else
        ofl_iw_cq_deliver(cq);
}

/*
 * The consumer's asynchronous event for what the core raised (core.events,
 * enum ofl_qp_evt), as siw reports them:
 * - OFL_QP_EVT_FATAL, the QP ended the stream with a Terminate of its own
 *   (core.term_tx): IB_EVENT_QP_ACCESS_ERR for a protection cause (RDMAP
 *   remote protection, DDP tagged buffer: a remote access this side's
 *   memory refused, RFC 5040 §7.2), IB_EVENT_QP_FATAL for any other (a
 *   malformed or unexpected stream, a CRC, a catastrophic error);
 * - OFL_QP_EVT_SQ_DRAINED: IB_EVENT_SQ_DRAINED;
 * - OFL_QP_EVT_CQ_OVERRUN: IB_EVENT_CQ_ERR on each of the QP's CQs that
 *   lost a completion (the core moved the QP to ERROR: IB_EVENT_QP_FATAL).
 * A Terminate from the peer (OFL_QP_EVT_TERM_RX) raises none: the
 * completion's status says it (ofl_qp_term_status), as a remote error
 * does on IB; nor does the LLP's close (the iw_cm's events say it).
 */
static enum ib_event_type ofl_iw_fatal_event(struct ofl_term_cause c)
{
    if ((c.layer == OFL_TERM_LAYER_RDMAP &&
         c.etype == OFL_TERM_RDMAP_REMOTE_PROTECTION) ||
        (c.layer == OFL_TERM_LAYER_DDP && c.etype == OFL_TERM_DDP_TAGGED))
        return IB_EVENT_QP_ACCESS_ERR;
    return IB_EVENT_QP_FATAL;
}

static void ofl_iw_qp_event(struct ofl_iw_qp *qp, enum ib_event_type type)
{
    struct ib_event e = {
        .device = qp->base.device,
        .element.qp = &qp->base,
        .event = type,
    };

    ibdev_dbg(qp->base.device, "QP %u: event %s\n", qp->id,
              ib_event_msg(type));
    if (qp->base.event_handler)
        qp->base.event_handler(&e, qp->base.qp_context);
}

static void ofl_iw_cq_err(struct ofl_iw_cq *cq)
{
    struct ib_event e = {
        .device = cq->base.device,
        .element.cq = &cq->base,
        .event = IB_EVENT_CQ_ERR,
    };

    if (cq->base.event_handler)
        cq->base.event_handler(&e, cq->base.cq_context);
}

/* Under the lock: the events raised since the last call, and what they
 * need to be told (the Terminate's cause, the CQs that overran). */
struct ofl_iw_qp_events {
    u32 ev;
    struct ofl_term_cause term;
    bool scq_overrun, rcq_overrun;
};

static void ofl_iw_qp_events_take(struct ofl_iw_qp *qp,
                                  struct ofl_iw_qp_events *t)
{
    t->ev = qp->in_destroy ? 0 : qp->core.events & ~qp->events_done;
    qp->events_done |= qp->core.events;
    t->term = qp->core.term_tx;
    t->scq_overrun = qp->scq->core.overrun;
    t->rcq_overrun = qp->rcq != qp->scq && qp->rcq->core.overrun;
}

/* With no lock held: the consumer's handlers. */
static void ofl_iw_qp_events_give(struct ofl_iw_qp *qp,
                                  const struct ofl_iw_qp_events *t)
{
    if (t->ev & OFL_QP_EVT_CQ_OVERRUN) {
        if (t->scq_overrun)
            ofl_iw_cq_err(qp->scq);
        if (t->rcq_overrun)
            ofl_iw_cq_err(qp->rcq);
        ofl_iw_qp_event(qp, IB_EVENT_QP_FATAL);
    }
    if (t->ev & OFL_QP_EVT_FATAL)
        ofl_iw_qp_event(qp, ofl_iw_fatal_event(t->term));
    if (t->ev & OFL_QP_EVT_SQ_DRAINED)
        ofl_iw_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/* Under the lock: a user QP that is in ERROR (and not being destroyed)
 * starts its receive-ring watch, once. */
static void ofl_iw_rq_watch_arm(struct ofl_iw_qp *qp)
{
    if (!qp->urq || qp->rq_watching || qp->in_destroy ||
        qp->core.state != OFL_QP_ERROR)
        return;
    qp->rq_watching = true;
    qp->rq_watch_delay = OFL_IW_RQ_WATCH_FIRST;
    kref_get(&qp->ref); /* the queued work's */
    if (!schedule_delayed_work(&qp->rq_watch, qp->rq_watch_delay))
        ofl_iw_qp_put(qp); /* queued already: that one holds its own */
}

static void ofl_iw_qp_unlock(struct ofl_iw_dev *dev, struct ofl_iw_qp *qp,
                             unsigned long flags)
{
    struct ofl_iw_qp_events t;

    ofl_iw_rq_watch_arm(qp);
    ofl_iw_qp_events_take(qp, &t);
    if (qp->rcq != qp->scq)
        spin_unlock(&qp->rcq->lock);
    spin_unlock(&qp->scq->lock);
    spin_unlock_irqrestore(&dev->lock, flags);
    ofl_iw_cq_out(qp->scq);
    if (qp->rcq != qp->scq)
        ofl_iw_cq_out(qp->rcq);
    if (t.ev)
        ofl_iw_qp_events_give(qp, &t);
}

/*
 * Lets the engine run what was posted (under the lock): in ERROR it
 * flushes; without a stream nothing is sent.
 *
 * No budget: the engine runs until it has nothing it can send, or the
 * transmit refuses (the ring is full, or no stream). Nothing else runs it
 * again: a budget spent with work left (the core returns OFL_OK then, as
 * when it is done) stalled the QP whenever its peer sent nothing and the
 * ring had room, as under ib_write_bw over MTU 1500 (sq_depth FPDUs of
 * 1456 bytes fill less of the 256 KiB ring than the socket drains). The
 * work stays bounded: every step that makes progress either builds an
 * FPDU in the ring (OFL_IW_TXQ bytes, then the transmit refuses and the
 * ring's drain runs the engine again, ofl_iw_cep_flush) or retires a
 * posted work request; the ring bounded a large SQ's budget already.
 */
static void ofl_iw_qp_run(struct ofl_iw_qp *qp)
{
    (void)ofl_qp_process(&qp->core, get_jiffies_64(), U32_MAX);
}

/* ---- user rings ---------------------------------------------------------- */

/* A refused entry: the QP moves to ERROR (a local QP operation error)
 * and the entry is consumed without a completion (the core never took
 * it), so that the entries behind it are flushed and the ring does not
 * stall on it. why names the reason: the ring's check, or the core's. */
static void ofl_iw_ring_refused(struct ofl_iw_qp *qp, const char *ring,
                                u32 idx, const char *why)
{
    ibdev_warn_ratelimited(qp->base.device, "QP %u: %s entry %u refused: %s\n",
                           qp->id, ring, idx, why);
    (void)ofl_qp_modify(&qp->core, OFL_QP_ERROR);
}

/* Whether the core's refusal of a well-formed entry is the entry's own
 * fault (e.g. a total of 2^31 bytes or more, which the ring's format
 * allows): such an entry is refused as a malformed one is, since it would
 * be refused again at every pull and stop the ring behind it. No room
 * (the entry waits for it) and the QP's state (it waits for RTS) are
 * not. */
static bool ofl_iw_entry_fault(enum ofl_err e)
{
    return e != OFL_OK && e != OFL_E_QP_SQ_FULL && e != OFL_E_QP_RQ_FULL &&
           e != OFL_E_QP_STATE;
}

/* A pull's verdict on entry idx of a ring: r, the ring's check of it, and
 * when that passed, err, the core's answer to its post (full: the
 * answer that means no room). Returns whether the entry is consumed: it
 * was taken, or refused (*rv -EINVAL, the QP in ERROR). An entry the core
 * has no room for, or refuses in this state (*rv its errno), stays and
 * the pull stops. */
static bool ofl_iw_ring_verdict(struct ofl_iw_qp *qp, const char *ring,
                                u32 idx, enum ofl_iw_ring_err r,
                                enum ofl_err err, enum ofl_err full, int *rv)
{
    if (r != OFL_IW_RING_OK) {
        ofl_iw_ring_refused(qp, ring, idx, ofl_iw_ring_strerror(r));
        *rv = -EINVAL;
        return true;
    }
    if (ofl_iw_entry_fault(err)) {
        ofl_iw_ring_refused(qp, ring, idx, ofl_strerror(err));
        *rv = -EINVAL;
        return true;
    }
    if (err != OFL_OK && err != full)
        *rv = ofl_iw_post_errno(err);
    return err == OFL_OK;
}

/* Under the lock. Posts the receive entries libsiw made valid, in ring
 * order, at most one ring's worth. Returns 0, or -EINVAL when a malformed
 * entry was met, or one the core refused for itself (consumed, the QP in
 * ERROR; the others are still taken), or the core's refusal of the state
 * (the entry stays). A slot goes back to libsiw with a release store:
 * the copy's loads are done before libsiw may write the slot again. */
static int ofl_iw_pull_rq(struct ofl_iw_qp *qp)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_recv_wr wr;
    enum ofl_iw_ring_err r;
    struct siw_rqe e;
    enum ofl_err err = OFL_OK;
    int rv = 0;
    u32 n;

    for (n = 0; n < qp->num_rqe; n++) {
        struct siw_rqe *slot = &qp->urq[qp->rq_get & (qp->num_rqe - 1)];

        if (!(READ_ONCE(slot->flags) & SIW_WQE_VALID))
            break;
        smp_rmb(); /* the entry after its VALID flag */
        memcpy(&e, slot, sizeof(e)); /* once: checked and used as copied */
        r = ofl_iw_rqe_to_wr(&e, qp->rq_sge, sge, &wr);
        if (r == OFL_IW_RING_OK)
            err = ofl_qp_post_recv(&qp->core, &wr);
        if (!ofl_iw_ring_verdict(qp, "RQ", qp->rq_get, r, err,
                                 OFL_E_QP_RQ_FULL, &rv))
            break; /* stays in the ring */
        smp_store_release(&slot->flags, 0); /* the slot is libsiw's again */
        qp->rq_get++;
    }
    return rv;
}

/*
 * The send ring's next entry (sq_get) when it is valid, else NULL. An
 * entry found idle is read again behind a full barrier: libsiw stores an
 * entry's VALID flag and then loads the flag of the entry before it (C11
 * sequentially consistent atomics), ringing the doorbell only when that
 * one is idle; the device clears an entry's flag and then reads the next.
 * With a barrier on both sides, either the device sees the new entry or
 * libsiw sees the one before it taken and rings (Dekker's pattern), so no
 * entry waits in the ring unseen by both.
 */
static struct siw_sqe *ofl_iw_usq_next_valid(struct ofl_iw_qp *qp)
{
    struct siw_sqe *slot = &qp->usq[qp->sq_get & (qp->num_sqe - 1)];

    if (READ_ONCE(slot->flags) & SIW_WQE_VALID)
        return slot;
    smp_mb(); /* our last flag store before the load again */
    return READ_ONCE(slot->flags) & SIW_WQE_VALID ? slot : NULL;
}

/* The same for the send ring (the caller has one: qp->usq). usq_waits
 * says whether it stopped at a valid entry, one the core has no room for
 * or refuses in this state, or after one ring's worth at a valid one.
 * Stopped at an idle entry, it does not look again: an entry made valid
 * since came with its doorbell. */
static int ofl_iw_pull_sq(struct ofl_iw_qp *qp)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct siw_sqe e, *slot;
    struct ofl_qp_wr wr;
    enum ofl_iw_ring_err r;
    enum ofl_err err = OFL_OK;
    bool waits = true;
    int rv = 0;
    u32 n;

    for (n = 0; n < qp->num_sqe; n++) {
        slot = ofl_iw_usq_next_valid(qp);
        if (!slot) {
            waits = false;
            break;
        }
        smp_rmb();
        memcpy(&e, slot, sizeof(e));
        r = ofl_iw_sqe_to_wr(&e, qp->sq_sge, sge, &wr);
        if (r == OFL_IW_RING_OK)
            err = ofl_qp_post_send(&qp->core, &wr, NULL);
        if (!ofl_iw_ring_verdict(qp, "SQ", qp->sq_get, r, err,
                                 OFL_E_QP_SQ_FULL, &rv))
            break;
        smp_store_release(&slot->flags, 0);
        qp->sq_get++;
    }
    if (waits && n == qp->num_sqe) /* one ring's worth: is there more? */
        waits = ofl_iw_usq_next_valid(qp) != NULL;
    qp->usq_waits = waits;
    return rv;
}

/* Both rings (the receive ring first: it has no doorbell of its own). */
static int ofl_iw_pull(struct ofl_iw_qp *qp)
{
    int rq = ofl_iw_pull_rq(qp);
    int sq = ofl_iw_pull_sq(qp);

    return rq ? rq : sq;
}

/*
 * Runs the engine (under the lock), then takes what waits in the user send
 * ring for the room the engine made, and runs it again, until nothing more
 * is taken. libsiw rings the doorbell only when the entry before its first
 * new one has been taken: it takes a kernel that still has entries to take
 * for one that is taking them, as siw's transmit is. An entry the core had
 * no room for (OFL_E_QP_SQ_FULL: the application's credits do not count
 * the device's own work, e.g. ofl_iw_qp_nudge's Write) waits in the ring
 * with no doorbell to come, so whatever frees room (a receive, a
 * transmit, a doorbell) takes it. Seen once on 2026-11-29 (bench-rdma):
 * ib_read_bw offload -> siw, 128 Reads posted, stopped for good after 127
 * Read Requests, all answered, and one nudge. The nudge, behind the 127
 * Reads, keeps its slot until they complete (in order); the 128th waited
 * in the ring, and libsiw rang no more (inferred from the connection's
 * byte counts; not reproduced at will). At most one ring's worth is
 * taken per call.
 *
 * Only while the last pull stopped at a valid entry (usq_waits): any
 * other entry comes with its doorbell, which takes it. Taking it here
 * first, in a receive's softirq, where an FPDU the engine builds must
 * wait for the work item, cost every ib_write_lat round trip a work item
 * woken in front of the poller (seen 2026-12-01 with ftrace in the
 * bench-rdma guest: the peer's Write arrives, the poller posts its answer
 * at once, the softirq takes the entry before the doorbell does, and a
 * kworker pre-empts the other poller for about 100 us under TCG).
 *
 * In ERROR too: there the engine flushes what the core holds, and the
 * entries that found it full (the work requests in flight when the QP
 * left RTS, or the device's own) are taken and flushed in the next round,
 * not left in the ring until some later pull (the iw_cm's modify to
 * ERROR after CLOSE, the destroy) with no doorbell to come.
 */
static void ofl_iw_qp_run_pull(struct ofl_iw_qp *qp)
{
    u32 start = qp->sq_get, got;

    for (;;) {
        ofl_iw_qp_run(qp);
        if (!qp->usq || !qp->usq_waits ||
            (qp->core.state != OFL_QP_RTS &&
             qp->core.state != OFL_QP_ERROR) ||
            qp->sq_get - start >= qp->num_sqe)
            return;
        got = qp->sq_get;
        (void)ofl_iw_pull_sq(qp);
        if (qp->sq_get == got)
            return;
    }
}

/* RESET discards without completions: so do the entries still valid in
 * the user rings (libsiw gets the slots back; its indices go on). */
static void ofl_iw_discard_rings(struct ofl_iw_qp *qp)
{
    u32 n;

    for (n = 0; n < qp->num_sqe; n++) {
        struct siw_sqe *slot = &qp->usq[qp->sq_get & (qp->num_sqe - 1)];

        if (!(READ_ONCE(slot->flags) & SIW_WQE_VALID))
            break;
        WRITE_ONCE(slot->flags, 0);
        qp->sq_get++;
    }
    for (n = 0; n < qp->num_rqe; n++) {
        struct siw_rqe *slot = &qp->urq[qp->rq_get & (qp->num_rqe - 1)];

        if (!(READ_ONCE(slot->flags) & SIW_WQE_VALID))
            break;
        WRITE_ONCE(slot->flags, 0);
        qp->rq_get++;
    }
    qp->usq_waits = false; /* nothing left valid that the device saw */
}

/*
 * The receive-ring watch of a user QP in ERROR (see struct ofl_iw_qp):
 * takes what libsiw posted since the last look, which ERROR flushes, and
 * comes back while the QP stays in ERROR. siw has no such watch: there a
 * receive posted after the flush (rping's CQ thread reposts its receive
 * right after the completion, so a connection lost at that moment leaves
 * one) waits in the ring until the QP is destroyed, and a consumer that
 * waits for its flush waits for ever. Ends at destroy, at RESET, or when
 * the work cannot be queued again (destroy cancels it); the reference it
 * held is dropped then.
 */
static void ofl_iw_rq_watch_run(struct work_struct *w)
{
    struct ofl_iw_qp *qp = container_of(to_delayed_work(w), struct ofl_iw_qp,
                                        rq_watch);
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    unsigned long flags, delay = 0;

    ofl_iw_qp_lock(dev, qp, &flags);
    if (!qp->in_destroy && qp->core.state == OFL_QP_ERROR) {
        (void)ofl_iw_pull_rq(qp);
        ofl_iw_qp_run(qp);
        qp->rq_watch_delay = min_t(unsigned long, qp->rq_watch_delay * 2,
                                   OFL_IW_RQ_WATCH_LAST);
        delay = qp->rq_watch_delay;
    } else {
        qp->rq_watching = false;
    }
    ofl_iw_qp_unlock(dev, qp, flags);
    if (!delay || !schedule_delayed_work(&qp->rq_watch, delay))
        ofl_iw_qp_put(qp);
}

/* ---- create / destroy ---------------------------------------------------- */

int ofl_iw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
                     struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    struct siw_uresp_create_qp uresp = {};
    struct ofl_iw_ucontext *octx = NULL;
    struct ofl_qp_attr qa = {};
    struct ofl_qp_mem qm = {};
    struct ofl_iw_qp_layout l;
    unsigned long flags;
    enum ofl_err e;
    u8 *m;
    int rv;

    if (attr->qp_type != IB_QPT_RC || attr->create_flags || attr->srq)
        return -EOPNOTSUPP;
    /* inline data is refused in the rings (ofl_iw_uring) */
    if (attr->cap.max_inline_data)
        return -EINVAL;
    if (attr->cap.max_send_wr > OFL_IW_MAX_QP_WR ||
        attr->cap.max_recv_wr > OFL_IW_MAX_QP_WR ||
        attr->cap.max_send_sge > OFL_IW_MAX_SEND_SGE ||
        attr->cap.max_recv_sge > OFL_IW_MAX_RECV_SGE)
        return -EINVAL;
    if (!attr->send_cq || !attr->recv_cq)
        return -EINVAL;
    if (udata) {
        octx = rdma_udata_to_drv_context(udata, struct ofl_iw_ucontext, base);
        if (!octx || udata->outlen < sizeof(uresp))
            return -EINVAL;
    }
    if (atomic_inc_return(&dev->num_qp) > OFL_IW_MAX_QP) {
        rv = -ENOMEM;
        goto err_count;
    }
    qp->sq_depth = roundup_pow_of_two(max(attr->cap.max_send_wr, 1u));
    qp->rq_depth = roundup_pow_of_two(max(attr->cap.max_recv_wr, 1u));
    qp->sq_sge = attr->cap.max_send_sge;
    qp->rq_sge = attr->cap.max_recv_sge;
    qp->scq = to_ofl_cq(attr->send_cq);
    qp->rcq = to_ofl_cq(attr->recv_cq);
    qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
    kref_init(&qp->ref);
    init_completion(&qp->free);
    INIT_DELAYED_WORK(&qp->rq_watch, ofl_iw_rq_watch_run);
    qp->rq_watching = false;
    qp->cep = NULL;
    ofl_iw_qp_layout(qp, &l);
    qp->mem = vzalloc(l.total);
    if (!qp->mem) {
        rv = -ENOMEM;
        goto err_count;
    }
    /* The number is reserved here (a NULL entry) and the QP stored under
     * it only when it is whole, after the last step that can fail (rxe's
     * rxe_finalize does the same): until then neither
     * ofl_iw_qp_all_error nor the iw_cm (ofl_iw_get_qp, with a number a
     * process names in its connection parameters) can reach a QP without
     * its rings, or one whose rings the unwind below frees. */
    rv = xa_alloc(&dev->qp_xa, &qp->id, NULL, XA_LIMIT(1, OFL_IW_MAX_QP),
                  GFP_KERNEL);
    if (rv)
        goto err_mem;

    m = qp->mem;
    qa.qpn = qp->id;
    qa.pd = to_ofl_pd(ibqp->pd)->id;
    qa.service = OFL_QP_SVC_IWARP;
    qa.sq_reg = 1; /* fast registration through the send queue */
    /* a failed registration WQE: Terminate, ERROR, everything flushed
     * (IB semantics: the QP goes to the error state) */
    qa.reg_option = OFL_QP_REG_OPTION2;
    qa.ord = OFL_IW_MAX_ORD;
    qa.ird = OFL_IW_MAX_IRD;
    qa.event_vector = OFL_IW_VEC_QP | qp->id;
    qa.sq_db = 2 * qp->id; /* the port drops doorbells: rings are ours */
    qa.rq_db = 2 * qp->id + 1;
    qa.tpt = &dev->tpt;
    qa.port = &dev->lp.port;
    qa.send_cq = &qp->scq->core;
    qa.recv_cq = &qp->rcq->core;
    qa.transmit = ofl_iw_qp_transmit;
    qa.tx_reserve = READ_ONCE(tx_lend) ? ofl_iw_qp_tx_reserve : NULL;
    qa.transmit_ctx = qp;
    qm.sq_ring = m + l.sq_ring;
    qm.sq_depth = qp->sq_depth;
    qm.sq_max_sge = qp->sq_sge;
    qm.rq_ring = m + l.rq_ring;
    qm.rq_depth = qp->rq_depth;
    qm.rq_max_sge = qp->rq_sge;
    qm.sq_track = (struct ofl_qp_swqe *)(m + l.sq_track);
    qm.sq_sge = qp->sq_sge ? (struct ofl_qp_sge *)(m + l.sq_sge) : NULL;
    qm.rq_sge = qp->rq_sge ? (struct ofl_qp_sge *)(m + l.rq_sge) : NULL;
    qm.irq = (struct ofl_qp_inreq *)(m + l.irq);
    qm.ord_ring = (u32 *)(m + l.ord);
    qm.tx_buf = m + l.tx;
    qm.tx_cap = ofl_qp_tx_need(OFL_MPA_ULPDU_MAX, true);
    qm.tx_stage = m + l.stage; /* a peer that asks for markers */
    qm.rx_buf = m + l.rx;
    qm.rx_cap = OFL_IW_QP_RX_CAP;
    /* no one-touch deferrals, no placement ahead of a hole: a TCP socket
     * hands the stream over in order */

    /* the core sweeps the TPT for windows of an earlier QP by this number */
    spin_lock_irqsave(&dev->lock, flags);
    e = ofl_qp_create(&qp->core, &qa, &qm);
    /* An iWARP QP is created in IDLE (RDMAC verbs), which the RDMA core
     * reports as INIT: cxgb4 maps its IDLE to IB_QPS_INIT, and
     * rdma-core's tests (test_qp.py, query_qp_common_test) expect INIT
     * after creation on an RNIC. The core's RESET -> INIT is that step;
     * a consumer's modify to INIT is then INIT -> INIT. */
    if (e == OFL_OK)
        e = ofl_qp_modify(&qp->core, OFL_QP_INIT);
    spin_unlock_irqrestore(&dev->lock, flags);
    if (e != OFL_OK) {
        ibdev_warn(ibqp->device, "ofl_qp_create: %s\n", ofl_strerror(e));
        rv = -EINVAL;
        goto err_xa;
    }

    if (udata) {
        struct ib_ucontext *uctx = &octx->base;

        qp->num_sqe = qp->sq_depth;
        qp->num_rqe = qp->rq_depth;
        qp->usq = vmalloc_user(qp->num_sqe * sizeof(struct siw_sqe));
        if (!qp->usq) {
            rv = -ENOMEM;
            goto err_xa;
        }
        qp->sq_entry = ofl_iw_mmap_insert(uctx, qp->usq,
                                          qp->num_sqe * sizeof(struct siw_sqe),
                                          &uresp.sq_key);
        if (!qp->sq_entry) {
            vfree(qp->usq);
            rv = -ENOMEM;
            goto err_xa;
        }
        qp->urq = vmalloc_user(qp->num_rqe * sizeof(struct siw_rqe));
        if (!qp->urq) {
            rv = -ENOMEM;
            goto err_sq;
        }
        qp->rq_entry = ofl_iw_mmap_insert(uctx, qp->urq,
                                          qp->num_rqe * sizeof(struct siw_rqe),
                                          &uresp.rq_key);
        if (!qp->rq_entry) {
            vfree(qp->urq);
            rv = -ENOMEM;
            goto err_sq;
        }
        uresp.qp_id = qp->id;
        uresp.num_sqe = qp->num_sqe;
        uresp.num_rqe = qp->num_rqe;
        rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
        if (rv)
            goto err_rq;
    }
    /* whole: from here the QP can be found by its number (see above) */
    rv = xa_err(xa_store(&dev->qp_xa, qp->id, qp, GFP_KERNEL));
    if (rv) {
        if (udata)
            goto err_rq;
        goto err_xa;
    }
    ibqp->qp_num = qp->id;
    attr->cap.max_send_wr = qp->sq_depth;
    attr->cap.max_recv_wr = qp->rq_depth;
    attr->cap.max_inline_data = 0;
    return 0;

err_rq:
    rdma_user_mmap_entry_remove(qp->rq_entry); /* frees qp->urq */
err_sq:
    rdma_user_mmap_entry_remove(qp->sq_entry); /* frees qp->usq */
err_xa:
    xa_erase(&dev->qp_xa, qp->id); /* the reserved number */
    /* nothing else found the QP (never stored): the last reference */
    ofl_iw_qp_put(qp);
    wait_for_completion(&qp->free);
err_mem:
    vfree(qp->mem);
err_count:
    atomic_dec(&dev->num_qp);
    return rv;
}

/* Under the QP lock: the QP to ERROR as the consumer's modify would make
 * it: every post libsiw made so far is taken and flushed with the rest,
 * and a live stream is aborted (ofl_iw_cm.c). */
static void ofl_iw_qp_error_locked(struct ofl_iw_qp *qp)
{
    (void)ofl_qp_modify(&qp->core, OFL_QP_ERROR);
    if (qp->usq)
        (void)ofl_iw_pull(qp);
    ofl_iw_qp_run_pull(qp);
}

/*
 * The device's netdev is going down (NETDEV_GOING_DOWN, process context
 * under RTNL): every QP that has left RESET goes to ERROR, as siw's
 * siw_netdev_down does; its posted work completes flushed and its
 * stream is aborted, so the iw_cm's CLOSE reaches the consumer. Without
 * this a connection between two local addresses would go on over lo
 * (or stall on a route that went with the link). A QP is taken only
 * while the QP table holds it (its first reference stands until
 * destroy_qp, or create_qp's unwinding, has erased it from the table and
 * dropped it; both then wait for ours).
 */
void ofl_iw_qp_all_error(struct ofl_iw_dev *dev)
{
    unsigned long idx = 0, flags;
    struct ofl_iw_qp *qp;

    for (;;) {
        xa_lock(&dev->qp_xa);
        qp = xa_find(&dev->qp_xa, &idx, ULONG_MAX, XA_PRESENT);
        if (qp)
            kref_get(&qp->ref);
        xa_unlock(&dev->qp_xa);
        if (!qp)
            break;
        ofl_iw_qp_lock(dev, qp, &flags);
        if (!qp->in_destroy && qp->core.state != OFL_QP_RESET &&
            qp->core.state != OFL_QP_ERROR)
            ofl_iw_qp_error_locked(qp);
        ofl_iw_qp_unlock(dev, qp, flags);
        ofl_iw_qp_put(qp);
        idx++;
    }
}

/* Destroy with work outstanding flushes it (ERROR), as siw does; the
 * flush completions outlive the QP in its CQs. The RDMA core destroys a
 * device's QPs before its CQs when the device goes away. ERROR aborts a
 * live stream: the connection closes (ofl_iw_cm.c) and drops its
 * reference, the iw_cm drops its own at the CLOSE event; destroy waits
 * for both, since the RDMA core frees the QP's memory when it returns
 * (siw_destroy_qp waits the same way). */
int ofl_iw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    unsigned long flags;

    ofl_iw_qp_lock(dev, qp, &flags);
    qp->in_destroy = true; /* no asynchronous event from here on */
    if (qp->core.state != OFL_QP_RESET)
        ofl_iw_qp_error_locked(qp);
    ofl_iw_qp_unlock(dev, qp, flags);
    /* a watch still queued holds a reference; one running ends itself
     * (in_destroy) */
    if (cancel_delayed_work_sync(&qp->rq_watch))
        ofl_iw_qp_put(qp);

    xa_erase(&dev->qp_xa, qp->id);
    ofl_iw_qp_put(qp);
    wait_for_completion(&qp->free);
    if (qp->rq_entry)
        rdma_user_mmap_entry_remove(qp->rq_entry);
    if (qp->sq_entry)
        rdma_user_mmap_entry_remove(qp->sq_entry);
    vfree(qp->mem);
    atomic_dec(&dev->num_qp);
    return 0;
}

/* ---- modify / query ------------------------------------------------------ */

#define OFL_IW_QP_ACCESS \
    (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
     IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND)

/*
 * The attributes iWARP has no use for (path, PSNs, timers, P_Key index)
 * are ignored, as siw ignores them; IRD and ORD are fixed at creation
 * (the core allocates for them) to the device maximum, so a larger value
 * is refused.
 */
int ofl_iw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
                     struct ib_udata *udata)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    enum ofl_qp_state to = OFL_QP_STATES;
    unsigned long flags;
    enum ofl_err e = OFL_OK;

    if ((mask & IB_QP_PORT) && attr->port_num != 1)
        return -EINVAL;
    if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
        attr->max_rd_atomic > OFL_IW_MAX_ORD)
        return -EINVAL;
    if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
        attr->max_dest_rd_atomic > OFL_IW_MAX_IRD)
        return -EINVAL;
    if ((mask & IB_QP_ACCESS_FLAGS) &&
        (attr->qp_access_flags & ~OFL_IW_QP_ACCESS))
        return -EINVAL;
    if (mask & IB_QP_STATE) {
        to = ofl_iw_core_state(attr->qp_state);
        if (to == OFL_QP_STATES)
            return -EINVAL;
    }

    ofl_iw_qp_lock(dev, qp, &flags);
    if ((mask & IB_QP_CUR_STATE) &&
        attr->cur_qp_state != ofl_iw_ib_state(qp->core.state)) {
        e = OFL_E_QP_STATE;
        goto out;
    }
    /* A graceful disconnect (librdmacm's rdma_disconnect, then the
     * iw_cm's) of a QP whose stream is over already (the peer closed or
     * terminated first): nothing is left to carry out, and
     * rdma_disconnect must not fail for it. siw ignores it as well
     * (siw_qp_modify: a CLOSING request in TERMINATE or ERROR). */
    if (to == OFL_QP_SQD && (qp->core.state == OFL_QP_TERMINATE ||
                             qp->core.state == OFL_QP_ERROR))
        goto out;
    /* The iw_cm's graceful disconnect asks for SQD: on a QP with a
     * stream that is iWARP's CLOSING (as siw maps it): what was posted is
     * carried out, then the stream is closed. */
    if (to == OFL_QP_SQD &&
        ((qp->cep && qp->core.state == OFL_QP_RTS) ||
         qp->core.state == OFL_QP_CLOSING))
        to = OFL_QP_CLOSING; /* librdmacm asks first, then the iw_cm */
    /* RESET says nothing to the peer (offload.h: "reset a live QP
     * through ERROR"): with the stream attached, nothing would abort it
     * after RESET (the QP is no longer established), the connection would
     * keep its references until the peer closes, and destroy would wait
     * for that. So RESET waits for ERROR (which aborts the stream) while
     * a connection holds the QP; siw ignores RESET from RTS. */
    if (to == OFL_QP_RESET && qp->cep && qp->core.state != OFL_QP_ERROR) {
        e = OFL_E_QP_STATE;
        goto out;
    }
    if (to != OFL_QP_STATES) {
        e = ofl_qp_modify(&qp->core, to);
        if (e != OFL_OK)
            goto out;
        /* what libsiw posted so far is flushed with the rest (ERROR
         * takes every post) */
        if (to == OFL_QP_ERROR && qp->usq)
            (void)ofl_iw_pull(qp);
        /* RESET clears the core's events (a new life starts with
         * none; this section raised nothing before it, and the last
         * unlock took what was raised then): the new life's are told
         * again */
        if (to == OFL_QP_RESET)
            qp->events_done = 0;
        if (to == OFL_QP_RESET && qp->usq)
            ofl_iw_discard_rings(qp);
        ofl_iw_qp_run_pull(qp);
    }
    if (mask & IB_QP_ACCESS_FLAGS)
        qp->access = attr->qp_access_flags;
out:
    ofl_iw_qp_unlock(dev, qp, flags);
    if (e != OFL_OK) {
        ibdev_dbg(ibqp->device, "QP %u: modify to %s: %s\n", qp->id,
                  ofl_qp_state_name(to), ofl_strerror(e));
        return -EINVAL;
    }
    return 0;
}

int ofl_iw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
                    struct ib_qp_init_attr *init)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    unsigned long flags;
    bool draining;
    u8 state;

    spin_lock_irqsave(&dev->lock, flags);
    state = qp->core.state;
    draining = state == OFL_QP_SQD && ofl_qp_sq_outstanding(&qp->core);
    spin_unlock_irqrestore(&dev->lock, flags);

    memset(attr, 0, sizeof(*attr));
    memset(init, 0, sizeof(*init));
    attr->qp_state = ofl_iw_ib_state(state);
    attr->cur_qp_state = attr->qp_state;
    attr->sq_draining = draining;
    attr->cap.max_send_wr = qp->sq_depth;
    attr->cap.max_recv_wr = qp->rq_depth;
    attr->cap.max_send_sge = qp->sq_sge;
    attr->cap.max_recv_sge = qp->rq_sge;
    attr->cap.max_inline_data = 0;
    attr->max_rd_atomic = OFL_IW_MAX_ORD;
    attr->max_dest_rd_atomic = OFL_IW_MAX_IRD;
    attr->qp_access_flags = qp->access;
    attr->port_num = 1;
    attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(dev->netdev->mtu));
    attr->path_mig_state = IB_MIG_MIGRATED;

    init->qp_type = IB_QPT_RC;
    init->send_cq = ibqp->send_cq;
    init->recv_cq = ibqp->recv_cq;
    init->cap = attr->cap;
    init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
    return 0;
}

/* ---- doorbells ------------------------------------------------------------ */

/* RDMA Read with Local Invalidate (iWARP: rdma_rw's reads into a fast-
 * registered sink): the Read, then a fenced, unsignaled Local Invalidate
 * of the sink's STag, which starts only once the Read Response has been
 * placed (OFL_QP_WR_FENCE). The sink SGE's lkey names it, as siw and
 * cxgb4 read it (rdma_rw fills ex.invalidate_rkey before it advances the
 * MR's key, so that field names the previous registration). The Read
 * completes as the work request asked; the invalidation is the device's
 * own work (OFL_QP_WR_SILENT: no completion reaches the consumer, not
 * even a failure's or a flush's; a failure stops the send queue). Both
 * go in or neither. */
static int ofl_iw_read_inv(struct ofl_iw_qp *qp, struct ofl_qp_wr *rd)
{
    struct ofl_qp_wr inv = {};
    int rv;

    if (rd->num_sge != 1)
        return -EINVAL;
    if (qp->sq_depth - ofl_qp_sq_outstanding(&qp->core) < 2)
        return -ENOMEM;
    rv = ofl_iw_post_errno(ofl_qp_post_send(&qp->core, rd, NULL));
    if (rv)
        return rv;
    inv.wr_id = OFL_IW_WRID_INTERNAL;
    inv.opcode = OFL_QP_OP_LOCAL_INV;
    inv.stag = rd->sge[0].stag;
    inv.flags = OFL_QP_WR_FENCE | OFL_QP_WR_SILENT;
    return ofl_iw_post_errno(ofl_qp_post_send(&qp->core, &inv, NULL));
}

/* One kernel send work request to the core's form and queue. */
static int ofl_iw_send_wr(struct ofl_iw_qp *qp, const struct ib_send_wr *ib)
{
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    const struct ib_reg_wr *reg = NULL; /* REG_MR: its MR's half flips */
    struct ofl_qp_wr wr = {};
    int i, rv;

    if (ib->num_sge < 0 || ib->num_sge > qp->sq_sge)
        return -EINVAL;
    if (ib->send_flags &
        ~(IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_FENCE))
        return -EINVAL; /* inline among them */
    for (i = 0; i < ib->num_sge; i++)
        if (ofl_iw_kernel_sge(qp, &ib->sg_list[i], &sge[i]))
            return -EINVAL;
    wr.wr_id = ib->wr_id;
    wr.sge = sge;
    wr.num_sge = ib->num_sge;
    if ((ib->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
        wr.flags |= OFL_QP_WR_SIGNALED;
    if (ib->send_flags & IB_SEND_SOLICITED)
        wr.flags |= OFL_QP_WR_SOLICITED;
    if (ib->send_flags & IB_SEND_FENCE)
        wr.flags |= OFL_QP_WR_FENCE;
    switch (ib->opcode) {
    case IB_WR_SEND:
        wr.opcode = OFL_QP_OP_SEND;
        break;
    case IB_WR_SEND_WITH_INV:
        wr.opcode = OFL_QP_OP_SEND_INV;
        wr.stag = ib->ex.invalidate_rkey;
        break;
    case IB_WR_RDMA_WRITE:
    case IB_WR_RDMA_WRITE_WITH_IMM:
        wr.opcode = OFL_QP_OP_WRITE;
        wr.remote_stag = rdma_wr(ib)->rkey;
        wr.remote_to = rdma_wr(ib)->remote_addr;
        if (ib->opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
            /* RFC 7306 Immediate Data carries 8 bytes, verbs 4: the
             * receiver's completion gives the low 32 bits back */
            wr.opcode = OFL_QP_OP_WRITE_IMM;
            wr.imm = be32_to_cpu(ib->ex.imm_data);
        }
        break;
    case IB_WR_ATOMIC_FETCH_AND_ADD:
    case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
        /* RFC 7306 Fetch and Add: atomic[1] is the Add Mask (a set bit
         * ends a field, IB's masked boundary); 0 is a plain add */
        wr.opcode = OFL_QP_OP_ATOMIC_FADD;
        wr.remote_stag = atomic_wr(ib)->rkey;
        wr.remote_to = atomic_wr(ib)->remote_addr;
        wr.atomic[0] = atomic_wr(ib)->compare_add;
        if (ib->opcode == IB_WR_MASKED_ATOMIC_FETCH_AND_ADD)
            wr.atomic[1] = atomic_wr(ib)->compare_add_mask;
        break;
    case IB_WR_ATOMIC_CMP_AND_SWP:
    case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
        /* RFC 7306 Compare and Swap: Swap Data and Mask, Compare Data
         * and Mask; the unmasked verb compares and swaps all 64 bits */
        wr.opcode = OFL_QP_OP_ATOMIC_CSWAP;
        wr.remote_stag = atomic_wr(ib)->rkey;
        wr.remote_to = atomic_wr(ib)->remote_addr;
        wr.atomic[0] = atomic_wr(ib)->swap;
        wr.atomic[1] = ~0ULL;
        wr.atomic[2] = atomic_wr(ib)->compare_add;
        wr.atomic[3] = ~0ULL;
        if (ib->opcode == IB_WR_MASKED_ATOMIC_CMP_AND_SWP) {
            wr.atomic[1] = atomic_wr(ib)->swap_mask;
            wr.atomic[3] = atomic_wr(ib)->compare_add_mask;
        }
        break;
    case IB_WR_RDMA_READ:
    case IB_WR_RDMA_READ_WITH_INV:
        wr.opcode = OFL_QP_OP_READ;
        wr.remote_stag = rdma_wr(ib)->rkey;
        wr.remote_to = rdma_wr(ib)->remote_addr;
        if (ib->opcode == IB_WR_RDMA_READ_WITH_INV)
            return ofl_iw_read_inv(qp, &wr);
        break;
    case IB_WR_LOCAL_INV:
        wr.opcode = OFL_QP_OP_LOCAL_INV;
        wr.stag = ib->ex.invalidate_rkey;
        break;
    case IB_WR_REG_MR:
        if (ib->num_sge)
            return -EINVAL;
        if (ofl_iw_reg_mr_wr(to_ofl_dev(qp->base.device), reg_wr(ib), &wr))
            return -EINVAL;
        reg = reg_wr(ib);
        break;
    default: /* Send with immediate data (RFC 7306 has none), inline */
        return -EINVAL;
    }
    rv = ofl_iw_post_errno(ofl_qp_post_send(&qp->core, &wr, NULL));
    if (!rv && reg)
        ofl_iw_reg_mr_posted(reg);
    return rv;
}

/* libsiw rings the send doorbell with a post_send without work requests;
 * a user QP's work requests come through its ring only (as siw). */
int ofl_iw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
                     const struct ib_send_wr **bad_wr)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    struct ofl_iw_cep *cep = NULL;
    unsigned long flags;
    int rv = 0;

    if (qp->usq && wr) {
        *bad_wr = wr;
        return -EINVAL;
    }
    ofl_iw_qp_lock(dev, qp, &flags);
    /* a user QP posts in a system call: its FPDUs leave from here */
    if (qp->usq && qp->cep) {
        cep = qp->cep;
        ofl_iw_cep_get(cep);
        ofl_iw_cep_poster(cep, true);
    }
    if (qp->usq)
        rv = ofl_iw_pull(qp);
    for (; wr; wr = wr->next) {
        rv = ofl_iw_send_wr(qp, wr);
        if (rv) {
            *bad_wr = wr;
            break;
        }
    }
    ofl_iw_qp_run_pull(qp);
    if (cep)
        ofl_iw_cep_poster(cep, false);
    ofl_iw_qp_unlock(dev, qp, flags);
    if (cep) {
        ofl_iw_cep_tx_now(cep);
        ofl_iw_cep_drop(cep);
    }
    return rv;
}

/* Kernel receive work requests; for a user QP (whose receives come
 * through its ring) a post_recv takes the ring's entries, and work
 * requests are refused. */
int ofl_iw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
                     const struct ib_recv_wr **bad_wr)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibqp->device);
    struct ofl_iw_qp *qp = to_ofl_qp(ibqp);
    struct ofl_qp_sge sge[SIW_MAX_SGE];
    struct ofl_qp_recv_wr rw;
    unsigned long flags;
    int i, rv = 0;

    if (qp->urq && wr) {
        *bad_wr = wr;
        return -EINVAL;
    }
    ofl_iw_qp_lock(dev, qp, &flags);
    if (qp->urq)
        rv = ofl_iw_pull_rq(qp);
    for (; wr; wr = wr->next) {
        if (wr->num_sge < 0 || wr->num_sge > qp->rq_sge) {
            rv = -EINVAL;
        } else {
            rv = 0;
            for (i = 0; i < wr->num_sge && !rv; i++)
                rv = ofl_iw_kernel_sge(qp, &wr->sg_list[i], &sge[i]);
            rw.wr_id = wr->wr_id;
            rw.sge = sge;
            rw.num_sge = wr->num_sge;
            if (!rv)
                rv = ofl_iw_post_errno(ofl_qp_post_recv(&qp->core, &rw));
        }
        if (rv) {
            *bad_wr = wr;
            break;
        }
    }
    ofl_iw_qp_run(qp);
    ofl_iw_qp_unlock(dev, qp, flags);
    return rv;
}

/* ---- the connection (ofl_iw_cm.c) ---------------------------------------- */

static void ofl_iw_qp_release(struct kref *ref)
{
    complete(&container_of(ref, struct ofl_iw_qp, ref)->free);
}

void ofl_iw_qp_get(struct ofl_iw_qp *qp)
{
    kref_get(&qp->ref);
}

void ofl_iw_qp_put(struct ofl_iw_qp *qp)
{
    kref_put(&qp->ref, ofl_iw_qp_release);
}

/* The largest EMSS of at most emss whose FPDUs the core's transmit buffer
 * holds: without markers an FPDU is at most its EMSS; markers may add one
 * more than the MULPDU reserved, which a few 4-byte steps down take off
 * (the same search as the posix port's). */
static u32 ofl_iw_emss_fit(const struct ofl_iw_qp *qp, u32 emss, bool markers)
{
    u32 e = min_t(u32, emss, qp->core.tx_cap);
    unsigned int i;

    for (i = 0; i < 16 && e > 4; i++, e -= 4) {
        u16 m = ofl_mpa_mulpdu(e, markers);

        if (m == 0 || ofl_qp_tx_need(m, markers) <= qp->core.tx_cap)
            break;
    }
    return e;
}

/*
 * The MPA exchange is done: the stream is up (the core's ESTAB, INIT or
 * RTR -> RTS) on cep, whose reference the caller gave to qp->cep. The
 * sequence numbers the core sees count from the first byte after the MPA
 * frames (0); the receive window is the largest the one-touch decision
 * needs here (as ofl-rping's). Receives libsiw posted before go to the
 * core first. Returns 0, or -EINVAL (the core refused: the QP's state, or
 * the parameters) with nothing linked.
 */
static bool rig_crc_fault;
module_param(rig_crc_fault, bool, 0644);
MODULE_PARM_DESC(rig_crc_fault, "the rig's planted fault: streams use the opposite of the CRC the handshake agreed (never set it otherwise)");

int ofl_iw_qp_connect(struct ofl_iw_qp *qp, struct ofl_iw_cep *cep,
                      const struct ofl_mpa_params *agreed, u32 emss)
{
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    const struct ofl_mpa_params *p = agreed;
    struct ofl_mpa_params fault;
    unsigned long flags;
    enum ofl_err e = OFL_E_QP_STATE;

    if (READ_ONCE(rig_crc_fault)) { /* tests/rdma/device.sh crc-fault */
        fault = *agreed;
        fault.crc = !fault.crc;
        p = &fault;
    }

    ofl_iw_qp_lock(dev, qp, &flags);
    if (!qp->cep) {
        if (qp->urq)
            (void)ofl_iw_pull_rq(qp);
        e = ofl_qp_establish(&qp->core, p,
                             ofl_iw_emss_fit(qp, emss, p->markers_tx), 0,
                             1u << 24);
        if (e == OFL_OK) {
            qp->cep = cep;
            /* entries posted before RTS waited in the ring for it */
            ofl_iw_qp_run_pull(qp);
        }
    }
    ofl_iw_qp_unlock(dev, qp, flags);
    if (e != OFL_OK) {
        ibdev_dbg(qp->base.device, "QP %u: establish: %s\n", qp->id,
                  ofl_strerror(e));
        return -EINVAL;
    }
    return 0;
}

/*
 * The connection cep leaves the QP: llp 1 the stream closed gracefully, 2
 * it was reset or lost (the core's LLP_CLOSED / LLP_LOST: ERROR flushes
 * what is posted), 0 the connection just lets go (the QP already left
 * RTS). Only the QP's own connection: one that never took the QP (its
 * ofl_iw_qp_connect refused, e.g. because a process named, in its
 * connection parameters, the number of a QP another connection holds)
 * leaves it untouched. Returns cep when it was linked (the QP's reference
 * is the caller's to drop), or NULL.
 */
struct ofl_iw_cep *ofl_iw_qp_unlink(struct ofl_iw_qp *qp,
                                    struct ofl_iw_cep *cep, int llp)
{
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    unsigned long flags;

    ofl_iw_qp_lock(dev, qp, &flags);
    if (!cep || qp->cep != cep) {
        ofl_iw_qp_unlock(dev, qp, flags);
        return NULL;
    }
    ibdev_dbg(qp->base.device,
              "QP %u: stream ends (llp %d) in %s, err %s, terminate sent %u/%u/%u, received %u/%u/%u\n",
              qp->id, llp, ofl_qp_state_name(qp->core.state),
              ofl_strerror(qp->core.err), qp->core.term_tx.layer,
              qp->core.term_tx.etype, qp->core.term_tx.ecode,
              qp->core.term_rx.layer, qp->core.term_rx.etype,
              qp->core.term_rx.ecode);
    /* libsiw's receives reach the core at a pull only: the ones posted
     * since the last are outstanding too (CLOSING ends in ERROR, with
     * their flush completions, not in RESET; siw flushes its ring) */
    if (qp->urq)
        (void)ofl_iw_pull_rq(qp);
    if (llp)
        (void)ofl_qp_llp_event(&qp->core, llp == 2);
    qp->cep = NULL;
    if (qp->core.state == OFL_QP_ERROR && qp->usq)
        (void)ofl_iw_pull(qp);
    ofl_iw_qp_run_pull(qp);
    ofl_iw_qp_unlock(dev, qp, flags);
    return cep;
}

/* Stream bytes from the socket, at stream position seq. */
void ofl_iw_qp_rx(struct ofl_iw_qp *qp, u32 seq, const u8 *data, u32 len)
{
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    struct ofl_qp_seg seg = {};
    unsigned long flags;

    seg.seq = seq;
    seg.data = data;
    seg.len = len;
    ofl_iw_qp_lock(dev, qp, &flags);
    /* libsiw's receive ring has no doorbell: take its entries now */
    if (qp->urq)
        (void)ofl_iw_pull_rq(qp);
    (void)ofl_qp_input(&qp->core, &seg);
    ofl_iw_qp_run_pull(qp);
    ofl_iw_qp_unlock(dev, qp, flags);
}

/* The socket took queued bytes: the engine goes on where the transmit
 * refused (and takes ring entries that waited for room). */
void ofl_iw_qp_kick(struct ofl_iw_qp *qp)
{
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    unsigned long flags;

    ofl_iw_qp_lock(dev, qp, &flags);
    if (qp->usq && qp->core.state == OFL_QP_RTS)
        (void)ofl_iw_pull(qp);
    ofl_iw_qp_run_pull(qp);
    ofl_iw_qp_unlock(dev, qp, flags);
}

/* One zero-length RDMA Write, unsignaled and silent (the RFC 6581 RTR
 * form: nothing placed, no STag checked, no completion on either side,
 * not even a flush's when the QP goes to ERROR before it went: the
 * consumer never posted it, and a kernel consumer takes wr_id for its
 * ib_cqe): see ofl_iw_cm.c on Linux siw's responder. Returns true when it
 * was queued. */
bool ofl_iw_qp_nudge(struct ofl_iw_qp *qp)
{
    struct ofl_iw_dev *dev = to_ofl_dev(qp->base.device);
    struct ofl_qp_wr wr = {};
    unsigned long flags;
    enum ofl_err e = OFL_E_QP_STATE;

    wr.opcode = OFL_QP_OP_WRITE;
    wr.flags = OFL_QP_WR_SILENT;
    wr.wr_id = OFL_IW_WRID_INTERNAL;
    ofl_iw_qp_lock(dev, qp, &flags);
    if (qp->core.state == OFL_QP_RTS) {
        e = ofl_qp_post_send(&qp->core, &wr, NULL);
        ofl_iw_qp_run_pull(qp);
    }
    ofl_iw_qp_unlock(dev, qp, flags);
    return e == OFL_OK;
}
