/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl_posix - the user-space port.
 *
 * Memory is the process's own: a physical address is a host pointer value
 * (as in the sim port), and DMA is a plain copy with no guard. Doorbells and
 * interrupts are counted and forwarded to optional callbacks. There is no
 * PCI device in user space, so the PCI hooks are absent (the core reports
 * OFL_E_PORT_HOOK).
 *
 * CRC32c: ISA-L's crc32_iscsi when the build found ISA-L
 * (OFL_POSIX_HAVE_ISAL), else the CPU's instructions when the running CPU
 * has them, else the portable one. On x86-64 the CPU paths are, fastest
 * first: carry-less multiply folding on zmm (AVX-512F/VL + VPCLMULQDQ),
 * the same on ymm (AVX2 + VPCLMULQDQ), and three interleaved crc32q
 * streams (SSE4.2), which the folding paths also use for short buffers
 * and the tail; on arm64 the ARMv8 CRC extension. The choice is made once,
 * at ofl_posix_init.
 *
 * The fused copy + CRC32c hooks (dma_read_crc32c, dma_write_crc32c) and
 * the in-place CRC (dma_crc32c), after ofl_posix_set_fused: they copy in
 * 4 KiB blocks and sum each block with px->crc right after its copy
 * (memory is read once), from the engine's side of the copy (the
 * destination of a read, the source of a write). Like the plain DMA hooks
 * they never fail, and like them they take a physical address for a
 * pointer.
 */
#ifndef OFL_POSIX_H
#define OFL_POSIX_H

#include "offload.h"

typedef uint32_t (*ofl_posix_crc_fn)(uint32_t state, const void *data,
                                     size_t len);

struct ofl_posix {
    struct ofl_port port;
    ofl_posix_crc_fn crc;      /* chosen at init */
    const char *crc_name;      /* "isa-l", a CPU path's name (below), or
                                  "portable" */
    unsigned long doorbells, notifies;
    void (*on_doorbell)(void *user, uint32_t db, uint32_t value);
    void (*on_notify)(void *user, uint32_t vector);
    void *user;
};

/* Fills px->port and chooses the CRC32c implementation. The port has no
 * fused hooks (ofl_posix_set_fused). */
void ofl_posix_init(struct ofl_posix *px);
/*
 * Installs (on) or removes (!on) the fused hooks dma_read_crc32c,
 * dma_write_crc32c and dma_crc32c. Not installed by ofl_posix_init,
 * because they take a physical address for a pointer, as px_dma_read and
 * px_dma_write do: a program that replaces dma_read / dma_write (a device
 * model translating guest addresses, as examples/ofl-vnic.c does) would
 * otherwise keep hooks that bypass its translation. Turn them on only
 * with the port's own DMA hooks.
 */
void ofl_posix_set_fused(struct ofl_posix *px, bool on);

/* The CPU-instruction CRC32c alone (the fastest path this CPU has), or NULL
 * when this CPU/build has none. */
ofl_posix_crc_fn ofl_posix_crc32c_cpu(void);
/* Each CPU path by index, fastest first, so that tests reach the ones the
 * dispatch passes over: *name (when name is not NULL) receives path i's
 * name, or NULL past the last path; the result is its function, or NULL
 * when the running CPU lacks what the path needs (or i is past the last).
 * x86-64: 0 "avx512-vpclmul", 1 "avx2-vpclmul", 2 "sse4.2";
 * arm64: 0 "armv8-crc". */
ofl_posix_crc_fn ofl_posix_crc32c_cpu_path(unsigned i, const char **name);
/* ISA-L's CRC32c behind the same contract, or NULL when not built with it. */
ofl_posix_crc_fn ofl_posix_crc32c_isal(void);

#if OFL_ENABLE_QP
/*
 * TCP as the wire of a QP: a connected socket, the MPA negotiation at
 * connect (RFC 5044 §7.1, RFC 6581 through ofl_mpa_hs_*), the transmit
 * callback (ofl_posix_transmit, ctx = the connection) and the receive feed
 * (ofl_posix_poll: what the socket has goes to ofl_qp_input). Sequence
 * numbers are the stream's own: 0 is the first byte after the peer's MPA
 * frame. The socket is blocking for sends, and polled for receives.
 */
#define OFL_POSIX_RX_BUF 65536
/* The rest of a transmission the socket took only part of, kept to be sent
 * before anything else: one FPDU (at most 65535 + header, pad, CRC and
 * markers) fits; a longer remainder is waited for as a whole. */
#define OFL_POSIX_TX_PEND (72u * 1024u)

struct ofl_posix_conn {
    int fd;
    int eof;                       /* the peer closed (or reset) */
    uint32_t rx_sn;                /* SN of the next byte to feed */
    uint32_t tx_sn;                /* bytes sent after the MPA frame */
    struct ofl_mpa_params params;  /* negotiated */
    uint32_t early;                /* bytes after the peer's MPA frame that
                                      arrived with it (fed first) */
    uint8_t rx[OFL_POSIX_RX_BUF];
    unsigned long tx_calls, rx_calls;
    int tx_timeout_ms;             /* the most the peer may take no byte
                                      of a started transmission (<= 0: no
                                      limit); the MPA calls set
                                      OFL_POSIX_TX_TIMEOUT_MS */
    unsigned long tx_refused;      /* transmissions that took none (the
                                      socket full, or a rest still kept) */
    unsigned long tx_kept;         /* transmissions whose rest was kept */
    int tx_blocked;                /* a transmission found the socket full:
                                      ofl_posix_poll also waits for room */
    int tx_pend_close;             /* shut the sending side once sent */
    uint32_t tx_pend_off, tx_pend_len; /* tx_pend[off .. len) unsent */
    long long tx_pend_since;       /* ms of the last progress on it */
    uint32_t emss;                 /* the EMSS ofl_posix_establish gave
                                      the QP */
    uint32_t emss_socket;          /* ofl_posix_emss at that time (0: the
                                      socket reported none) */
    uint8_t tx_pend[OFL_POSIX_TX_PEND];
    /* Optional: sees every stream byte ofl_posix_poll feeds the QP, in
     * order, before the QP does (sn: the SN of p[0]); a record of what the
     * peer sent, as this end received it. Set it after the MPA call (which
     * clears the connection). */
    void (*rx_tap)(void *tap_ctx, uint32_t sn, const uint8_t *p, uint32_t n);
    void *rx_tap_ctx;
};

/* A peer that takes no byte of a started transmission's rest for this long
 * loses its connection (reset). */
#define OFL_POSIX_TX_TIMEOUT_MS 10000

/* A listening socket on host:port. host: a numeric IPv4 or IPv6 address;
 * NULL (or "::") for any: IPv6 and IPv4 on one socket where the system
 * allows it, else (NULL) IPv4 only. port 0: ephemeral, *bound_port
 * receives it. Returns the fd or -1. */
int ofl_posix_tcp_listen(const char *host, uint16_t port,
                         uint16_t *bound_port);
/* Accepts one connection (blocking): the fd or -1. */
int ofl_posix_tcp_accept(int lfd);
/* Connects to host:port (blocking, TCP_NODELAY): the fd or -1. */
int ofl_posix_tcp_connect(const char *host, uint16_t port);

/* MPA as initiator over connected fd: sends the Request, reads the Reply
 * (timeout_ms bounds the whole read, however the peer splits its frame;
 * negative: no limit), fills c. OFL_OK, an MPA error (rejected, bad frame),
 * or OFL_E_PORT_DMA for a socket failure or timeout. */
enum ofl_err ofl_posix_mpa_connect(struct ofl_posix_conn *c, int fd,
                                   const struct ofl_mpa_cfg *cfg,
                                   int timeout_ms);
/* MPA as responder: reads the Request (timeout_ms as for connect),
 * accepts, sends the Reply. */
enum ofl_err ofl_posix_mpa_accept(struct ofl_posix_conn *c, int fd,
                                  const struct ofl_mpa_cfg *cfg,
                                  int timeout_ms);

/*
 * The transmit callback (ofl_qp_transmit_fn): ctx is the connection. It
 * never waits for a peer that is not reading (both ends of a connection
 * may be sending at once, each driven by one thread):
 * - the socket takes none of the bytes: non-zero at once (took none: the
 *   engine tries again later; ofl_posix_poll then also waits for room);
 * - it takes part of them: the rest is kept (tx_pend) and goes before
 *   anything else, from the next transmission or poll, or at the latest
 *   from ofl_posix_close. So a completed WQE's bytes may not all be in the
 *   kernel yet: end a connection with ofl_posix_close;
 * - a rest longer than OFL_POSIX_TX_PEND (an iSCSI PDU or a frame of that
 *   size; an FPDU always fits) is waited for instead, as a blocking send,
 *   which can stall two ends sending at once until tx_timeout_ms.
 * A started transmission whose rest the peer takes no byte of for
 * tx_timeout_ms, or that fails on a socket error, resets the connection,
 * so no piece of an FPDU is ever followed by the engine's resend of the
 * whole, nor by a clean end. OFL_QP_TX_CLOSE shuts the sending side down
 * after the bytes (after a kept rest), OFL_QP_TX_ABORT resets the
 * connection (dropping any kept rest).
 */
int ofl_posix_transmit(void *ctx, const uint8_t *data, uint32_t len,
                       uint32_t flags);

/* The most pieces ofl_posix_transmitv takes: attr.txref_cap at most. */
#define OFL_POSIX_TXV_MAX 64u
/*
 * Transmit by reference (ofl_qp_transmitv_fn; attr.transmitv with
 * attr.txref, txref_cap <= OFL_POSIX_TXV_MAX): ctx is the connection. The
 * pieces go to the socket in one sendmsg, the payload from where it lies
 * (a physical address is a pointer here), so the port copies no payload
 * byte; ofl_posix_transmit's contract otherwise (what the socket takes
 * only part of is kept, copied, in tx_pend). With the port's dma_crc32c
 * (ofl_posix_init sets it) the engine reads the payload once, for its CRC.
 */
int ofl_posix_transmitv(void *ctx, const struct ofl_qp_txref *ref,
                        uint32_t count, uint32_t flags);

/* Waits up to timeout_ms for bytes, feeds what arrived to qp (the peer's
 * early bytes first); at EOF reports the LLP closed to qp (once). While a
 * transmission is blocked or a rest is kept it also waits for room, and
 * sends the rest (a kept rest's deadline, tx_timeout_ms after its last
 * progress, shortens the wait, and the stream is reset once it passed).
 * Returns the bytes fed (0 on timeout or when only room came), or -1
 * after EOF or an error. */
long ofl_posix_poll(struct ofl_posix_conn *c, struct ofl_qp *qp,
                    int timeout_ms);

/*
 * EMSS, the effective MSS (RFC 5044's glossary: the TCP payload one
 * segment carries; the MULPDU and so every FPDU's size follow from it,
 * ofl_mpa_mulpdu), is read from the connected socket: TCP_MAXSEG, which on
 * Linux is the MSS the kernel cuts segments at now (RFC 9293 §3.7.1
 * Eff.snd.MSS: the smaller of the peer's MSS option and the path MTU, less
 * the IP and TCP headers and the options every segment carries, the 12
 * bytes of timestamps when they were negotiated, RFC 7323 §3). Linux also
 * bounds it by half the largest window the peer advertised: loopback
 * (MTU 65536, so 65495 less 12 = 65483 from the path) reports 32741 to
 * 32768 on a new connection, more once windows grew. The value is taken
 * once, at establish; it only grows later (a PMTU drop aside), so FPDUs
 * cut at it keep fitting a segment. SACK blocks, which only segments sent
 * while the peer's data is out of order carry, are not subtracted: such a
 * segment may split an FPDU in two, which the receiver reassembles (it
 * takes FPDUs from the byte stream wherever segments cut it; an FPDU per
 * segment is the optimisation of RFC 5044 Appendix A). Other systems'
 * TCP_MAXSEG may not exclude the timestamps: there 12 bytes are
 * subtracted (not tested here).
 */
/* The socket's EMSS now (see above), at most 65535, or 0 when it reports
 * none (getsockopt fails: not a TCP socket, or closed). Changes nothing;
 * cost: one getsockopt. */
uint32_t ofl_posix_emss(const struct ofl_posix_conn *c);

/* The EMSS taken when the socket reports none: RFC 9293 §3.7.1's default
 * send MSS (IPv4), which every TCP receiver accepts. */
#define OFL_POSIX_EMSS_FALLBACK 536u

/*
 * ofl_qp_establish over this connection (c->params, the stream's own
 * sequence numbers: rx_sn 0) with emss, or with emss 0 the default: the
 * socket's EMSS (ofl_posix_emss, OFL_POSIX_EMSS_FALLBACK when it reports
 * none) lowered to the largest whose FPDUs qp's tx_cap holds
 * (ofl_qp_tx_need), so a buffer sized for a jumbo frame still runs on
 * loopback. A non-zero emss is used as given, also above the socket's: the
 * bytes still arrive, an FPDU then spanning segments (see above); callers
 * that want it not to compare with c->emss_socket. The peer chooses its
 * own MULPDU: rx_cap must hold it (65535 covers any). Records c->emss and
 * c->emss_socket on success; returns OFL_E_ARG for a NULL c or qp, else
 * ofl_qp_establish's result (OFL_E_ARG for an emss too small for a
 * control message or above 65535, OFL_E_SIZE when tx_cap holds no FPDU of
 * it). Cost: one getsockopt.
 */
enum ofl_err ofl_posix_establish(struct ofl_posix_conn *c, struct ofl_qp *qp,
                                 uint32_t emss, uint32_t rcv_wnd);

/* What ofl_posix_wait returns. */
enum ofl_posix_wait_result {
    OFL_POSIX_WAIT_CQE = 0,     /* *cqe holds a completion (its status may
                                   be an error: a flush once the stream
                                   ended is one) */
    OFL_POSIX_WAIT_TIMEOUT = 1, /* timeout_ms passed, no completion */
    OFL_POSIX_WAIT_CLOSED = 2,  /* no completion and none will come: the
                                   peer closed or reset the stream (or the
                                   socket failed, or ofl_posix_close closed
                                   it), or the QP is in ERROR, and the CQ
                                   is empty */
    OFL_POSIX_WAIT_OVERRUN = 3, /* the CQ lost a completion (ofl_cq_poll's
                                   OFL_E_QP_CQ_OVERRUN) */
    OFL_POSIX_WAIT_ARG = 4      /* a NULL argument */
};

/*
 * The blocking counterpart of ofl_cq_poll: waits up to timeout_ms
 * (negative: no limit; 0: only what is there now) for one completion on
 * cq (qp's send or receive CQ, or one they share) and takes it into *cqe,
 * driving qp over c meanwhile; the result says which of the above ended
 * it. Calls on one connection, its QP and CQs are serialised by the
 * caller (one thread per connection, as in examples/ofl-rping.c).
 * Each round runs qp's engine (ofl_qp_process, again while a call still
 * transmits or completes, so a long queue is not left at the budget: at
 * most 64 calls of 64 steps, then the socket is only looked at),
 * takes a CQE if one is there, else sleeps in ofl_posix_poll on the socket
 * (for bytes, or for room while a transmission is blocked) for what is
 * left of the timeout, shortened to a DELAY WQE's end, and feeds what
 * came. The deadline is fixed at the call: bytes that trickle in, or
 * signals (EINTR), wake it without extending it. The `now` given to
 * ofl_qp_process is CLOCK_MONOTONIC in nanoseconds (a DELAY's imm counts
 * those). Cost per round: the engine, one CQ poll, one poll(2) and one
 * recv when bytes came; no thread, no allocation.
 */
enum ofl_posix_wait_result ofl_posix_wait(struct ofl_posix_conn *c,
                                          struct ofl_qp *qp,
                                          struct ofl_cq *cq,
                                          struct ofl_cqe *cqe,
                                          int timeout_ms);

/* A stable name of a wait result ("cqe", "timeout", "closed", "overrun",
 * "arg"; "?" for other values). */
const char *ofl_posix_wait_name(enum ofl_posix_wait_result r);

/* Sends a kept rest (waiting up to tx_timeout_ms; without limit when it
 * is <= 0), resetting the stream when it does not go, then closes the
 * socket. */
void ofl_posix_close(struct ofl_posix_conn *c);
#endif

#endif
