/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The dt section's fast paths against its general paths (issue 30): this
 * file is built twice by tests/check_fastpath_dt.sh, once with the core as
 * shipped (FP_RUN = fp_dt_run_fast) and once with the core built with
 * OFL_NO_FAST_PATH (FP_RUN = fp_dt_run_gen), each linked with its own copy
 * of the sim port and the dt rig into one object that exports FP_RUN
 * alone; diff_dt_main.c runs both on the same seeds and compares the
 * digests. The fast paths it holds to the general ones: the host range
 * test that skips the two table tests when both tables lie outside the
 * host range, the loop-free copy of 16 to 32 bytes into a transmit ring,
 * the output reclaim through the output stage's free part, and the memos
 * of a run (the input run's connection and range, the bulk run's send
 * cache slot).
 *
 * One run: tables of 16, 64 or 256 slots moved in batches of 1 to 64, the
 * host range either the rig's arena (the tables outside it) or the whole
 * address space (the tables inside), one to three connections, then a
 * few hundred turns: the host posts runs of buffer sends (lengths around
 * 16 and 32 and others, offsets that cross a transmit ring's end, ranges
 * into a table or out of the host range, unknown connections, the modify
 * and ASAP flags; runs of one buffer; rarely, a malformed send or a
 * connection's terminate amid the sends; a posted slot changed past the
 * post's checks), the host changes the send
 * buffer's bytes, an answer's byte is changed before the host reads it
 * (its decoder's fast and general paths), the adapter
 * polls, the host takes some of the answers or none (the output table
 * fills), the firmware transmits some of a ring, the adapter is asked its
 * output room. The digest takes in every return code, every field of
 * every answer, every byte transmitted, the adapter's counters (not the
 * sim port's DMA count: the reclaim reads the table in fewer DMAs) and the
 * sim port's violations: it must be the same for both builds.
 */
#include <stdint.h>
#include <string.h>

#include "dt_rig.h"
#include "fp_rand.h"

#ifndef FP_RUN
#define FP_RUN fp_dt_run_fast
#endif

uint64_t FP_RUN(uint32_t seed);

/* An answer's fields, its address relative to the rig (each build has a
 * rig of its own, wherever malloc put it). */
static uint64_t fp_desc(uint64_t h, const struct ofl_dt_desc *d,
                        uint64_t origin)
{
    h = fp_mix(h, d->base != 0 ? d->base - origin : 0); /* 0: refused */
    h = fp_mix(h, d->conn);
    h = fp_mix(h, (uint64_t)d->tag << 32 | d->len);
    h = fp_mix(h, d->aux);
    return fp_mix(h, (uint64_t)d->type << 24 | (uint64_t)d->flags << 16 |
                         (uint64_t)d->status << 8 | d->number);
}

#define FP_BUF 8192u
#define FP_TURNS 300u

uint64_t FP_RUN(uint32_t seed)
{
    static const uint32_t slots_of[] = {16, 64, 256};
    static const uint32_t batch_of[] = {1, 4, 8, 16, 32, 64};
    static const uint32_t lens[] = {0,  1,  8,  15, 16,  17,  24,   31,
                                    32, 32, 32, 33, 48, 100, 1000, 5000};
    struct ofl_dt_desc req[64], rsp[64];
    struct ofl_dt_config c;
    struct dt_rig *r;
    const struct ofl_dt_stats *st;
    const uint8_t *p;
    uint64_t h = 0, id[3], now = 1;
    uint32_t s = seed * 2654435761u + 1, slots, batch, nconn, turn, i, k, m,
             n, len, tag = 1;
    enum ofl_err e;
    uint8_t *buf, ended = 0;

    slots = slots_of[fp_rnd(&s) % 3];
    batch = batch_of[fp_rnd(&s) % 6];
    ofl_dt_config_default(&c);
    c.irq_response = OFL_DT_IRQ_NONE;
    c.irq_overflow = OFL_DT_IRQ_NONE;
    c.out_warn = fp_rnd(&s) % 4 == 0 ? fp_rnd(&s) % slots : 0;
    if (fp_rnd(&s) % 3 == 0) {
        c.bt_criteria = OFL_DT_BT_COUNT;
        c.bt_count = 1 + fp_rnd(&s) % 40;
        c.bt_max_delay = 3;
    }
    r = dt_rig_new_sized(&c, slots, batch);
    if (r == NULL)
        return 0;
    nconn = 1 + fp_rnd(&s) % 3;
    for (i = 0; i < nconn; i++)
        id[i] = dt_rig_connect(r, (uint16_t)(100 + i), 0);
    h = fp_mix(h, id[0] ^ id[nconn - 1]);
    buf = dt_rig_alloc(r, FP_BUF);
    for (i = 0; i < FP_BUF; i++)
        buf[i] = (uint8_t)(i * 7 + seed);
    if (fp_rnd(&s) % 3 == 0) { /* the tables inside the host range */
        r->dt.mem.host_lo = 0;
        r->dt.mem.host_hi = ~0ull;
    }
    for (turn = 0; turn < FP_TURNS; turn++) {
        switch (fp_rnd(&s) % 8) {
        case 0:
        case 1:
        case 2: /* a run of sends */
            k = 1 + fp_rnd(&s) % (slots < 40 ? slots : 40);
            for (i = 0; i < k; i++) {
                memset(&req[i], 0, sizeof(req[i]));
                req[i].type = OFL_DT_REQ_BUF_SEND;
                req[i].tag = tag++;
                req[i].conn = id[fp_rnd(&s) % nconn];
                len = lens[fp_rnd(&s) % 16];
                req[i].len = len;
                req[i].base = dt_rig_pa(buf) + fp_rnd(&s) % 64;
                n = fp_rnd(&s) % 32;
                if (n == 0)
                    req[i].base = dt_rig_pa(r->in_table) + 32;
                else if (n == 1)
                    req[i].base = dt_rig_pa(r->out_table) - 8;
                else if (n == 2)
                    req[i].base = dt_rig_pa(buf) - 4096; /* out of the arena */
                else if (n == 3)
                    req[i].conn ^= 1ull << 32; /* a stale generation */
                else if (n < 6)
                    req[i].base += 16; /* adjacent ranges merge */
                if (i != 0 && fp_rnd(&s) % 2 == 0) {
                    /* a run of one buffer: the memos of the input run
                     * and of the bulk run */
                    req[i].base = req[i - 1].base;
                    req[i].len = req[i - 1].len;
                }
                if (fp_rnd(&s) % 8 == 0)
                    req[i].flags |= OFL_DT_F_MODIFY;
                if (fp_rnd(&s) % 16 == 0)
                    req[i].flags |= OFL_DT_F_ASAP;
                if (fp_rnd(&s) % 64 == 0) {
                    /* a malformed send: the post refuses the batch */
                    n = fp_rnd(&s);
                    if (n % 4 == 0)
                        req[i].flags = (uint8_t)(n >> 8);
                    else if (n % 4 == 1)
                        req[i].status = (uint8_t)(n >> 8);
                    else if (n % 4 == 2)
                        req[i].number = (uint8_t)(n >> 8);
                    else
                        req[i].aux = n >> 8;
                }
                if (nconn > 1 && !ended && fp_rnd(&s) % 128 == 0) {
                    /* a connection ends amid the run: its sends after
                     * this one are refused (the input run's memo of it
                     * must go) */
                    memset(&req[i], 0, sizeof(req[i]));
                    req[i].type = OFL_DT_REQ_TERMINATE;
                    req[i].tag = tag++;
                    req[i].conn = id[nconn - 1];
                    ended = 1;
                }
            }
            e = ofl_dt_host_post_batch(&r->host, req, k);
            h = fp_mix(h, e);
            if (e == OFL_OK && fp_rnd(&s) % 4 == 0) {
                /* a hostile host: a posted slot changed past the post's
                 * checks (connection 0, length 0 at base 0, length 0, a
                 * byte; not base, which the digest takes relative to
                 * the rig) */
                uint8_t *q = r->host.in +
                             (size_t)((r->host.in_tail - 1 -
                                       fp_rnd(&s) % k) &
                                      (r->host.in_slots - 1)) *
                                 OFL_DT_DESC_SIZE;

                n = fp_rnd(&s) % 4;
                if (n == 0)
                    memset(q + 20, 0, 8);
                else if (n == 1)
                    memset(q + 8, 0, 12);
                else if (n == 2)
                    memset(q + 16, 0, 4);
                else {
                    n = 1 + fp_rnd(&s) % 23;
                    q[n < 8 ? n : n + 8] = (uint8_t)fp_rnd(&s);
                }
            }
            break;
        case 3: /* the host changes the buffer (and may not say so) */
            n = fp_rnd(&s) % FP_BUF;
            buf[n] = (uint8_t)fp_rnd(&s);
            break;
        case 4:
        case 5: /* the host takes some answers */
            if (fp_rnd(&s) % 4 == 0) {
                /* a hostile answer: one byte of the next slot changed
                 * (byte 0's owner bit kept), the host's decoder refuses
                 * it or takes it as what it now says */
                uint8_t *q = r->host.out +
                             (size_t)(r->host.out_head &
                                      (r->host.out_slots - 1)) *
                                 OFL_DT_DESC_SIZE;

                n = fp_rnd(&s) % OFL_DT_DESC_SIZE;
                if (n >= 8 && n < 16)
                    n += 8; /* not base: the digest takes it relative to
                               the rig, which each build has apart */
                m = fp_rnd(&s);
                if (n == 0)
                    q[0] = (uint8_t)((q[0] & OFL_DT_OWNER) |
                                     (m & (uint8_t)~OFL_DT_OWNER));
                else
                    q[n] = (uint8_t)m;
            }
            k = fp_rnd(&s) % 3 == 0 ? 64 : fp_rnd(&s) % 8;
            for (n = 0; n < k; n += m) {
                e = ofl_dt_host_poll_batch(&r->host, rsp, k - n, &m);
                h = fp_mix(h, e);
                if (e == OFL_E_DT_EMPTY || m == 0)
                    break;
                for (i = 0; i < m; i++)
                    h = fp_desc(h, &rsp[i], dt_rig_pa(r));
            }
            h = fp_mix(h, n);
            break;
        case 6: /* the firmware transmits */
            for (i = 0; i < nconn; i++) {
                if (ofl_dt_tx_peek(&r->dt, id[i], &p, &n) != OFL_OK || n == 0)
                    continue;
                if (fp_rnd(&s) % 2)
                    n = 1 + fp_rnd(&s) % n;
                for (k = 0; k < n; k++)
                    h = fp_mix(h, p[k]);
                h = fp_mix(h, ofl_dt_tx_consume(&r->dt, id[i], n, now));
            }
            break;
        default:
            h = fp_mix(h, ofl_dt_poll(&r->dt, now));
            if (fp_rnd(&s) % 4 == 0)
                h = fp_mix(h, ofl_dt_out_room(&r->dt));
            now += fp_rnd(&s) % 3;
            break;
        }
    }
    st = &r->dt.stats;
    h = fp_mix(h, st->requests ^ st->bad_requests << 16 ^ st->responses << 32);
    h = fp_mix(h, st->batches_in ^ st->batches_out << 20 ^ st->merged << 40);
    h = fp_mix(h, st->dma_skipped ^ st->lost << 32 ^ st->irq_overflow << 48);
    h = fp_mix(h, (uint64_t)r->dt.out_head << 32 | r->dt.out_tail);
    h = fp_mix(h, (uint64_t)r->dt.in_head << 32 | r->dt.xfer_count);
    h = fp_mix(h, r->sim.violations);
    h = fp_mix(h, r->host.bad);
    /* The run must have done something: answers went out, some served
     * from the send cache. */
    if (st->responses < 16)
        h = 0;
    dt_rig_free(r);
    return h;
}
