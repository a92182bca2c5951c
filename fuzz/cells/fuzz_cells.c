/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_cells: cell reassembly (seed 002 FIG. 8) driven by hostile cells.
 *
 * Input: byte 0 picks the cell size (16 << (b & 7), at most 2048 ... 4096
 * is 16 << 8, so 16 .. 2048); then events (at most MAX_EVENTS):
 *   0 n(16) bytes        a raw cell
 *   1 len(16) psn(8) idx(8) flip(16)
 *                        cell idx of the reference packet of len bytes
 *                        with packet sequence number base + psn (signed
 *                        8-bit offset from the next expected), built by
 *                        ofl_pp_cell_build; flip != 0 flips bit
 *                        (flip - 1) of the cell and reseals its CRC
 *   2 len(16)            the whole reference packet, in order, with the
 *                        expected psn
 *
 * Invariants: an open packet never holds more than its length or the
 * buffer; a duplicate changes nothing; any other refusal leaves no packet
 * open and the expected psn unchanged; a completed packet has the
 * expected psn, which then advances by one; a packet completed from
 * unmodified cells of one reference packet equals it byte for byte and
 * carries the metadata build() gave it (va 0x1000 + psn, handle 0xAB,
 * immediate data, equal to psn, exactly when psn is odd; imm without
 * has_imm is not specified, so not checked); cell
 * CRC and packet CRC are computed over exactly the cell (CRC comparison is
 * skipped under FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, see offload.h).
 */
#include "fuzz.h"
#include "offload.h"

#include <stdbool.h>
#include <string.h>

#define BUF 8192u
#define MAX_EVENTS 256

static struct ofl_pp_reasm g_r, g_snap;
static uint8_t g_buf[BUF];
static uint8_t g_ref[BUF + 64];
static uint8_t g_cell[4096 + 64];
static bool g_clean; /* the open packet came only from unmodified cells */
static uint32_t g_ref_len, g_ref_psn;

/* The reference packet of len bytes for psn; kept while they stay the
 * same (event 2 builds every cell of one packet: refilling it per cell
 * made an input quadratic, slow enough for libFuzzer's timeout). */
static void ref_fill(uint32_t len, uint32_t psn)
{
    uint32_t i;

    if (g_ref_len == len && g_ref_psn == psn)
        return;
    for (i = 0; i < len && i < sizeof(g_ref); i++)
        g_ref[i] = (uint8_t)(i * 31 + psn);
    g_ref_len = len;
    g_ref_psn = psn;
}

/* The metadata build() gives the reference packet with sequence number
 * psn; a clean completed packet must carry exactly these. */
#define REF_HANDLE 0xABu
static uint64_t ref_va(uint32_t psn)
{
    return (uint64_t)(uint32_t)(0x1000u + psn);
}

/* Feeds one cell; checks the invariants. ours: built unmodified from the
 * reference packet. */
static void feed(const uint8_t *c, size_t n, bool ours)
{
    struct ofl_pp_packet pkt;
    bool done = false;
    enum ofl_err err;
    bool was_open = g_r.open;

    g_snap = g_r;
    err = ofl_pp_reasm_input(&g_r, c, n, &pkt, &done);
    if (err == OFL_E_PP_CELL_DUP) {
        FUZZ_ASSERT(g_r.open == g_snap.open && g_r.psn == g_snap.psn &&
                    g_r.got == g_snap.got &&
                    g_r.next_cell == g_snap.next_cell);
        return;
    }
    if (err != OFL_OK) {
        FUZZ_ASSERT(!done && !g_r.open && g_r.psn == g_snap.psn);
        return;
    }
    if (g_r.open) {
        FUZZ_ASSERT(g_r.got <= g_r.total && g_r.total <= g_r.cap);
        FUZZ_ASSERT(g_r.got == g_r.next_cell * g_r.cell_size);
        g_clean = (was_open ? g_clean : true) && ours;
        FUZZ_ASSERT(!done);
        return;
    }
    FUZZ_ASSERT(done);
    FUZZ_ASSERT(pkt.psn == g_snap.psn && g_r.psn == g_snap.psn + 1);
    FUZZ_ASSERT(pkt.len >= 1 && pkt.len <= g_r.cap && pkt.data == g_buf);
    if (((was_open ? g_clean : true) && ours) && pkt.psn == g_ref_psn) {
        FUZZ_ASSERT(pkt.len == g_ref_len);
        FUZZ_ASSERT(memcmp(pkt.data, g_ref, pkt.len) == 0);
        FUZZ_ASSERT(pkt.va == ref_va(pkt.psn) && pkt.handle == REF_HANDLE);
        FUZZ_ASSERT(pkt.has_imm == (pkt.psn & 1));
        if (pkt.has_imm)
            FUZZ_ASSERT(pkt.imm == pkt.psn);
    }
    g_clean = false;
}

static size_t build(uint32_t cs, uint32_t len, uint32_t psn, uint32_t idx)
{
    struct ofl_pp_packet p;
    size_t n = 0;

    memset(&p, 0, sizeof(p));
    ref_fill(len, psn);
    p.data = g_ref;
    p.len = len;
    p.psn = psn;
    p.va = ref_va(psn);
    p.handle = REF_HANDLE;
    p.has_imm = (psn & 1) != 0;
    p.imm = psn;
    if (ofl_pp_cell_build(NULL, cs, &p, idx, g_cell, sizeof(g_cell), &n) != OFL_OK)
        return 0;
    FUZZ_ASSERT(n <= ofl_pp_cell_max(cs));
    FUZZ_ASSERT(ofl_load_be32(g_cell + n - 4) == ofl_crc32c(g_cell, n - 4));
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    uint32_t cs = 16u << (fuzz_u8(&in) & 7);
    int ev;

    FUZZ_ASSERT(ofl_pp_reasm_init(&g_r, NULL, g_buf, BUF, cs, 0) == OFL_OK);
    g_clean = false;
    g_ref_len = 0;
    for (ev = 0; ev < MAX_EVENTS && in.n != 0; ev++) {
        uint8_t op = fuzz_u8(&in);

        switch (op % 3) {
        case 0: {
            const uint8_t *p;
            size_t n = fuzz_take(&in, &p, fuzz_u16(&in));

            feed(p, n, false);
            break;
        }
        case 1: {
            uint32_t len = fuzz_u16(&in) % (BUF + 16) + 1;
            uint32_t psn = g_r.psn + (uint32_t)(int32_t)(int8_t)fuzz_u8(&in);
            uint32_t idx = fuzz_u8(&in);
            uint32_t flip = fuzz_u16(&in);
            size_t n = build(cs, len, psn, idx);

            if (n == 0)
                break;
            if (flip != 0 && (flip - 1) / 8 < n - 4) {
                g_cell[(flip - 1) / 8] ^= (uint8_t)(1u << ((flip - 1) & 7));
                ofl_store_be32(g_cell + n - 4, ofl_crc32c(g_cell, n - 4));
            }
            feed(g_cell, n, flip == 0);
            break;
        }
        default: {
            uint32_t len = fuzz_u16(&in) % BUF + 1;
            uint32_t i, cells = ofl_pp_cell_count(cs, len);
            uint32_t psn = g_r.psn;

            for (i = 0; i < cells; i++) {
                size_t n = build(cs, len, psn, i);

                FUZZ_ASSERT(n != 0);
                feed(g_cell, n, true);
            }
            break;
        }
        }
    }
    return 0;
}
