/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The two ap entry points that read what the other side wrote:
 *   - ofl_evq_app_poll, the application's side of an event queue: the
 *     ring, the variable ring and the control block (WRPTR', VWRPTR',
 *     LOST) are memory the NIC writes, so any bytes may be there;
 *   - ofl_ap_wq_remote_rd / _remote_wr, the shared work queue's pointers
 *     that arrive from the peer over the network.
 *
 * The input first fills the queue's memory, then drives polls (with a
 * fuzzed buffer size), raw pointer writes into the control block, and
 * work-queue steps. Invariants after every step:
 *   - a poll returns OK with a record no longer than the buffer, or one
 *     of its named errors, and then leaves the read pointers unmoved;
 *   - pending never exceeds the ring's events;
 *   - the work queue's avail + space is its size, and a refused remote
 *     pointer leaves it as it was.
 * ASan catches any read or write outside the queue's memory or the
 * caller's buffer: the poll is handed exactly cap bytes, placed at the end
 * of a stack array so that the redzone after it starts at cap.
 */
#include "fuzz.h"

#include <string.h>

#include "offload.h"

#define RING_WORDS 64u /* 16 events */
#define VAR_WORDS 64u

static _Alignas(64) uint8_t ring[RING_WORDS * 4];
static _Alignas(64) uint8_t var[VAR_WORDS * 4];
static _Alignas(64) uint8_t ctl[OFL_EVQ_CTL_BYTES];

static void poll_once(struct ofl_evq_app *a, struct fuzz_in *in)
{
    uint8_t buf[VAR_WORDS * 4];
    struct ofl_evq_event ev;
    size_t cap = fuzz_u8(in) % (sizeof(buf) + 1), len = 0;
    /* The core gets exactly cap bytes, the last ones of buf: the stack
     * redzone after buf makes a write past cap an ASan error. */
    uint8_t *data = buf + sizeof(buf) - cap;
    uint32_t rd = a->rd, var_rd = a->var_rd;
    enum ofl_err err = ofl_evq_app_poll(a, &ev, data, cap, &len);

    if (err == OFL_OK) {
        FUZZ_ASSERT(len <= cap);
        FUZZ_ASSERT(a->rd == rd + OFL_EVQ_EVENT_WORDS);
    } else {
        FUZZ_ASSERT(err == OFL_E_EVQ_EMPTY || err == OFL_E_EVQ_BAD_PTR ||
                    err == OFL_E_EVQ_CORRUPT || err == OFL_E_SIZE);
        FUZZ_ASSERT(a->rd == rd && a->var_rd == var_rd);
    }
    FUZZ_ASSERT(ofl_evq_app_pending(a) <= RING_WORDS / OFL_EVQ_EVENT_WORDS);
}

static void wq_step(struct ofl_ap_wq *q, struct fuzz_in *in)
{
    struct ofl_ap_wq before = *q;
    uint32_t v = fuzz_u32(in), off = 0;
    enum ofl_err err;

    switch (fuzz_u8(in) % 4) {
    case 0:
        err = ofl_ap_wq_remote_rd(q, v);
        break;
    case 1:
        err = ofl_ap_wq_remote_wr(q, v);
        break;
    case 2:
        err = ofl_ap_wq_produce(q, v % (2 * q->size), &off);
        break;
    default:
        err = ofl_ap_wq_consume(q, v % (2 * q->size), &off);
        break;
    }
    if (err != OFL_OK)
        FUZZ_ASSERT(memcmp(&before, q, sizeof(*q)) == 0);
    else
        FUZZ_ASSERT(off < q->size);
    FUZZ_ASSERT(ofl_ap_wq_avail(q) + ofl_ap_wq_space(q) == q->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    struct ofl_evq_app a;
    struct ofl_ap_wq q;
    const uint8_t *p;
    size_t n;
    int step;

    /* The memory the NIC wrote. */
    memset(ring, 0, sizeof(ring));
    memset(var, 0, sizeof(var));
    memset(ctl, 0, sizeof(ctl));
    n = fuzz_take(&in, &p, sizeof(ctl));
    memcpy(ctl, p, n);
    n = fuzz_take(&in, &p, fuzz_u8(&in));
    memcpy(ring, p, n);
    n = fuzz_take(&in, &p, fuzz_u8(&in));
    memcpy(var, p, n);
    FUZZ_ASSERT(ofl_evq_app_init(&a, ring, RING_WORDS, var, VAR_WORDS, ctl,
                                 NULL) == OFL_OK);
    FUZZ_ASSERT(ofl_ap_wq_init(&q, 1u << (2 + fuzz_u8(&in) % 12)) == OFL_OK);
    for (step = 0; step < 64 && in.n != 0; step++) {
        switch (fuzz_u8(&in) % 4) {
        case 0:
        case 1:
            poll_once(&a, &in);
            break;
        case 2: { /* the NIC moves WRPTR' or VWRPTR' (any value) */
            uint8_t at = (uint8_t)(fuzz_u8(&in) % 2 ? OFL_EVQ_CTL_WRPTR
                                                    : OFL_EVQ_CTL_VWRPTR);

            n = fuzz_take(&in, &p, 4);
            memcpy(ctl + at, p, n);
            break;
        }
        default:
            wq_step(&q, &in);
            break;
        }
    }
    return 0;
}
