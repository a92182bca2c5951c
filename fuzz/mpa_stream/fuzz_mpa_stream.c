/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/mpa_stream: the MPA streaming receiver under random chunkings, the
 * out-of-order locator and the zero-copy piece access over the same bytes.
 *
 * Input: byte 0 flags (bit 0 markers, bit 1 CRC, bit 2 small 1500-byte
 * receive buffer), byte 1 chunk seed, then the TCP byte stream of one
 * direction after the MPA handshake (seeds: ofl-pcap --corpus).
 *
 * Invariants: whole-buffer, 1-byte and seeded random chunkings deliver the
 * same FPDUs (length, content, stream position, wire length) and end in the
 * same error and terminate cause after the same bytes consumed (the stream
 * position following them), and a failure is one of the receiver's
 * errors with the cause of the harness's own table (wire_expect.h); every
 * FPDU respects the buffer bound and the layout arithmetic (the receiver
 * gets exactly cap bytes, the end of rxbuf, so ASan sees a write past
 * cap); every decoded ULPDU gets the verdict wire_expect.h works out from
 * its raw bytes (OK or the exact parse error, see there) and, if
 * rejected, the cause of that table and a Terminate that parses back; the
 * locator reports only FPDUs inside the segment and piece access never
 * points outside it. (CRC comparisons are bypassed in fuzzing builds.)
 */
#include "fuzz.h"
#include "offload.h"
#include "wire_expect.h"

#include <string.h>

#define MAX_LOG 4096

struct rec {
    uint32_t len; /* all fields 32-bit: no padding for memcmp */
    uint32_t crc;
    uint32_t start;
    uint32_t wire_len;
};

struct run {
    struct rec rec[MAX_LOG];
    uint32_t n;
    enum ofl_err err;
    struct ofl_term_cause cause;
    size_t consumed; /* bytes the receiver took, up to its error */
};

static uint8_t rxbuf[65536];
static struct run runs[3];

static void check_ulpdu(const uint8_t *u, uint16_t len)
{
    struct ofl_rdmap_msg m, t, back;
    struct ofl_term_cause c;
    uint8_t out[OFL_RDMAP_HDR_MAX];
    size_t ol;
    enum ofl_err e = ofl_rdmap_parse(u, len, &m, &c);

    FUZZ_ASSERT(e == wire_expect_rdmap(u, len));
    if (e == OFL_OK)
        return;
    {
        struct ofl_term_cause want;

        FUZZ_ASSERT(wire_expect_cause_of(e, len >= 1 && (u[0] & 0x80),
                                         &want));
        FUZZ_ASSERT(c.layer == want.layer && c.etype == want.etype &&
                    c.ecode == want.ecode);
    }
    memset(&t, 0, sizeof(t));
    t.ddp.opcode = OFL_RDMAP_TERMINATE;
    t.ddp.last = 1;
    t.ddp.qn = OFL_DDP_QN_TERMINATE;
    t.ddp.msn = 1;
    ofl_rdmap_term_fill(&t.u.term, c, u, len);
    FUZZ_ASSERT(ofl_rdmap_build(&t, out, sizeof(out), &ol) == OFL_OK);
    FUZZ_ASSERT(ofl_rdmap_parse(out, ol, &back, NULL) == OFL_OK);
    FUZZ_ASSERT(memcmp(&back.u.term, &t.u.term, sizeof(t.u.term)) == 0);
}

static void receive(struct run *r, const struct ofl_mpa_params *p,
                    uint32_t cap, const uint8_t *s, size_t n, int mode,
                    uint32_t seed)
{
    struct ofl_mpa_rx rx;
    size_t off = 0;
    uint32_t expect_start = 0;

    r->n = 0;
    r->err = OFL_OK;
    r->consumed = 0;
    memset(&r->cause, 0, sizeof(r->cause));
    /* Exactly cap bytes, the last of rxbuf: ASan's redzone after the
     * array starts where the receiver's buffer ends. */
    FUZZ_ASSERT(ofl_mpa_rx_init(&rx, p, rxbuf + sizeof(rxbuf) - cap, cap,
                                NULL) == OFL_OK);
    while (off < n) {
        size_t chunk = n - off, used = 0;
        struct ofl_mpa_fpdu f;

        if (mode == 1) {
            chunk = 1;
        } else if (mode == 2) {
            seed = seed * 1103515245u + 12345u;
            chunk = 1 + (seed >> 16) % 4096;
            if (chunk > n - off)
                chunk = n - off;
        }
        r->err = ofl_mpa_rx_feed(&rx, s + off, chunk, &used, &f);
        FUZZ_ASSERT(used <= chunk);
        r->consumed = off + used;
        /* the stream position follows the bytes consumed, error or not */
        FUZZ_ASSERT(rx.pos == (uint32_t)r->consumed);
        if (r->err != OFL_OK) {
            struct ofl_term_cause want;

            r->cause = rx.cause;
            FUZZ_ASSERT(rx.state == OFL_MPA_RX_FAILED);
            /* one of the receiver's three errors, with its table cause */
            FUZZ_ASSERT(r->err == OFL_E_MPA_TOO_LONG ||
                        r->err == OFL_E_MPA_CRC || r->err == OFL_E_MPA_MARKER);
            FUZZ_ASSERT(wire_expect_cause_of(r->err, false, &want));
            FUZZ_ASSERT(rx.cause.layer == want.layer &&
                        rx.cause.etype == want.etype &&
                        rx.cause.ecode == want.ecode);
            return;
        }
        off += used;
        if (f.ulpdu != NULL) {
            FUZZ_ASSERT(f.len <= cap);
            FUZZ_ASSERT(f.start == expect_start);
            FUZZ_ASSERT(f.wire_len == ofl_mpa_fpdu_len(f.start, p->markers_rx,
                                                       f.len));
            expect_start += f.wire_len;
            if (r->n < MAX_LOG) {
                r->rec[r->n].len = f.len;
                r->rec[r->n].crc = ofl_crc32c(f.ulpdu, f.len);
                r->rec[r->n].start = f.start;
                r->rec[r->n].wire_len = f.wire_len;
                r->n++;
            }
            if (mode == 0)
                check_ulpdu(f.ulpdu, f.len);
        } else {
            FUZZ_ASSERT(used == chunk);
        }
    }
}

static void locate(const uint8_t *s, size_t n, uint32_t seq, bool crc)
{
    struct ofl_mpa_found found[64];
    uint32_t count = 0, i;
    enum ofl_err e = ofl_mpa_locate(0, seq, s, n, found, 64, &count);

    FUZZ_ASSERT(e == OFL_OK || e == OFL_E_MPA_MARKER);
    FUZZ_ASSERT(count <= 64);
    for (i = 0; i < count; i++) {
        uint16_t ul = 0;
        uint32_t o = 0, got;
        const uint8_t *pc;

        FUZZ_ASSERT(found[i].off < n);
        FUZZ_ASSERT((size_t)found[i].hdr_off + 2 <= n);
        FUZZ_ASSERT(found[i].wire_len ==
                    ofl_mpa_fpdu_len(seq + found[i].off, true,
                                     found[i].ulpdu_len));
        if (!found[i].complete)
            continue;
        FUZZ_ASSERT((size_t)found[i].off + found[i].wire_len <= n);
        if (ofl_mpa_fpdu_verify(seq + found[i].off, true, crc,
                                s + found[i].off, found[i].wire_len, NULL,
                                &ul) != OFL_OK)
            continue;
        FUZZ_ASSERT(ul == found[i].ulpdu_len);
        while ((got = ofl_mpa_fpdu_piece(seq + found[i].off, true,
                                         s + found[i].off, ul, o, &pc)) != 0) {
            FUZZ_ASSERT(pc >= s + found[i].off &&
                        pc + got <= s + found[i].off + found[i].wire_len);
            o += got;
        }
        FUZZ_ASSERT(o == ul);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ofl_mpa_params p;
    uint32_t cap, i, k;
    const uint8_t *s;
    size_t n;

    if (size < 2)
        return 0;
    memset(&p, 0, sizeof(p));
    p.markers_rx = data[0] & 1;
    p.crc = (data[0] >> 1) & 1;
    cap = (data[0] & 4) ? 1500 : (uint32_t)sizeof(rxbuf);
    s = data + 2;
    n = size - 2;
    for (k = 0; k < 3; k++)
        receive(&runs[k], &p, cap, s, n, (int)k, data[1]);
    for (k = 1; k < 3; k++) {
        FUZZ_ASSERT(runs[k].n == runs[0].n);
        FUZZ_ASSERT(runs[k].err == runs[0].err);
        FUZZ_ASSERT(runs[k].consumed == runs[0].consumed);
        FUZZ_ASSERT(runs[k].cause.layer == runs[0].cause.layer &&
                    runs[k].cause.etype == runs[0].cause.etype &&
                    runs[k].cause.ecode == runs[0].cause.ecode);
        for (i = 0; i < runs[0].n; i++)
            FUZZ_ASSERT(memcmp(&runs[k].rec[i], &runs[0].rec[i],
                               sizeof(struct rec)) == 0);
    }
    locate(s, n, (uint32_t)data[1] * 4u, p.crc);
    locate(s, n, (uint32_t)data[1] * 0x01010101u, p.crc);
    return 0;
}
