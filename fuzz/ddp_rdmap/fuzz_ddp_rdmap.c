/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz/ddp_rdmap: one ULPDU (the body of one FPDU) through DDP/RDMAP decode.
 *
 * Input: the ULPDU bytes (seeds: every FPDU of the ofl-pcap conversation).
 *
 * Invariants: the verdict (OK or the exact error) is the one worked out
 * independently from the raw header bytes by wire_expect.h (every parse
 * error, following the field layout, opcode table and check order of
 * offload.h); a rejected ULPDU gets the cause of that error from the
 * harness's own RFC 5040/5041 table, and ofl_wire_term_cause agrees with
 * that table; the Terminate built for it (ofl_rdmap_term_fill) is itself a
 * valid message that parses back unchanged; an accepted one rebuilds to a
 * header that parses to the same message (reserved bits aside) with the
 * payload pointing inside the input; and it survives FPDU framing with
 * markers and CRC at any stream position and comes back byte for byte.
 */
#include "fuzz.h"
#include "offload.h"
#include "wire_expect.h"

#include <string.h>

static uint8_t wire[70000], rxbuf[65536], ulpdu[65536];

static void same_msg(const struct ofl_rdmap_msg *a,
                     const struct ofl_rdmap_msg *b)
{
    FUZZ_ASSERT(a->ddp.tagged == b->ddp.tagged && a->ddp.last == b->ddp.last &&
                a->ddp.opcode == b->ddp.opcode && a->ddp.stag == b->ddp.stag &&
                a->ddp.to == b->ddp.to && a->ddp.qn == b->ddp.qn &&
                a->ddp.msn == b->ddp.msn && a->ddp.mo == b->ddp.mo &&
                a->ddp.inv_stag == b->ddp.inv_stag &&
                a->payload_len == b->payload_len);
    FUZZ_ASSERT(memcmp(&a->u, &b->u, sizeof(a->u)) == 0);
}

static void frame_roundtrip(const uint8_t *u, size_t len, uint32_t pos)
{
    struct ofl_mpa_params p;
    struct ofl_mpa_tx tx;
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    size_t wl = 0, used = 0;

    memset(&p, 0, sizeof(p));
    p.crc = true;
    p.markers_tx = p.markers_rx = true;
    FUZZ_ASSERT(ofl_mpa_tx_init(&tx, &p, 65535, NULL) == OFL_OK);
    if (len > tx.mulpdu)
        return;
    tx.pos = pos & ~3u;
    FUZZ_ASSERT(ofl_mpa_fpdu_build(&tx, u, len, NULL, 0, wire, sizeof(wire),
                                   &wl) == OFL_OK);
    FUZZ_ASSERT(wl == ofl_mpa_fpdu_len(pos & ~3u, true, (uint32_t)len));
    FUZZ_ASSERT(ofl_mpa_rx_init(&rx, &p, rxbuf, sizeof(rxbuf), NULL) ==
                OFL_OK);
    rx.pos = pos & ~3u;
    FUZZ_ASSERT(ofl_mpa_rx_feed(&rx, wire, wl, &used, &f) == OFL_OK);
    FUZZ_ASSERT(used == wl && f.ulpdu != NULL && f.len == len);
    FUZZ_ASSERT(memcmp(f.ulpdu, u, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ofl_rdmap_msg m, back;
    struct ofl_term_cause c;
    uint8_t hdr[OFL_RDMAP_HDR_MAX];
    size_t hl;
    enum ofl_err e;

    if (size > sizeof(ulpdu))
        return 0;
    e = ofl_rdmap_parse(data, size, &m, &c);
    FUZZ_ASSERT(e == wire_expect_rdmap(data, size));
    if (e != OFL_OK) {
        bool tagged = size >= 1 && (data[0] & 0x80);
        struct ofl_term_cause want, w = ofl_wire_term_cause(e, tagged);
        struct ofl_rdmap_msg t;

        FUZZ_ASSERT(wire_expect_cause_of(e, tagged, &want));
        FUZZ_ASSERT(c.layer == want.layer && c.etype == want.etype &&
                    c.ecode == want.ecode);
        FUZZ_ASSERT(w.layer == want.layer && w.etype == want.etype &&
                    w.ecode == want.ecode);
        memset(&t, 0, sizeof(t));
        t.ddp.opcode = OFL_RDMAP_TERMINATE;
        t.ddp.last = 1;
        t.ddp.qn = OFL_DDP_QN_TERMINATE;
        t.ddp.msn = 1;
        ofl_rdmap_term_fill(&t.u.term, c, data, size);
        FUZZ_ASSERT(ofl_rdmap_build(&t, hdr, sizeof(hdr), &hl) == OFL_OK);
        FUZZ_ASSERT(ofl_rdmap_parse(hdr, hl, &back, NULL) == OFL_OK);
        same_msg(&t, &back);
        frame_roundtrip(hdr, hl, size >= 4 ? ofl_load_be32(data) : 0);
        return 0;
    }
    FUZZ_ASSERT(m.payload >= data && m.payload + m.payload_len <= data + size);
    FUZZ_ASSERT(m.ddp.ddp_version == OFL_DDP_VERSION &&
                m.ddp.rdmap_version == OFL_RDMAP_VERSION);
    FUZZ_ASSERT(ofl_rdmap_build(&m, hdr, sizeof(hdr), &hl) == OFL_OK);
    FUZZ_ASSERT(hl + m.payload_len == size);
    memcpy(ulpdu, hdr, hl);
    memcpy(ulpdu + hl, m.payload, m.payload_len);
    FUZZ_ASSERT(ofl_rdmap_parse(ulpdu, size, &back, NULL) == OFL_OK);
    same_msg(&m, &back);
    frame_roundtrip(data, size, size >= 6 ? ofl_load_be32(data + 2) : 0);
    return 0;
}
