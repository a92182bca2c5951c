/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The expected verdict of ofl_rdmap_parse on one ULPDU, and the terminate
 * cause of each wire error, worked out here from the raw bytes without
 * calling the core (shared by fuzz/ddp_rdmap and fuzz/mpa_stream). A
 * harness that compared the core's cause with ofl_wire_term_cause(e, ...)
 * only repeated the call the core makes; these are written from the
 * documentation instead:
 *
 *   - the field layout and the opcode table of the wire section of
 *     offload.h (RFC 5041 §4, RFC 5040 §4, RFC 7306);
 *   - the check order of ofl_rdmap_parse in offload.h: length against the
 *     DDP header, DDP version, RDMAP version, opcode defined and of its
 *     buffer model, QN for the opcode, L set and MO 0 for one-segment
 *     messages, exact length of fixed bodies, atomic operation, Terminate
 *     length from its Hdrct;
 *   - reserved fields (DDP 0x3C, RDMAP 0x30, the 28 bits before the
 *     AtomicOperation, the 13 after Hdrct) are not checked on receipt
 *     (offload.h, RFC 5040 §4.1), so they never decide the verdict;
 *   - the causes (layer/type/code) of RFC 5040 §7 and RFC 5041 §7 as the
 *     IANA RDDP registry lists them: layer 0 RDMAP, 1 DDP, 2 LLP (MPA).
 *
 * Every error ofl_rdmap_parse can return is classified independently:
 * E_DDP_SHORT, _VERSION, _QN, _MO and E_RDMAP_VERSION, _OPCODE, _LAST,
 * _LENGTH, _ATOMIC_OP, _TERM. The MSN checks (E_DDP_MSN_*) and placement
 * (E_DDP_TOO_LONG) need queue state and are not parse errors. The MPA
 * receiver's errors (E_MPA_TOO_LONG, _CRC, _MARKER) are in the cause
 * table only.
 */
#ifndef OFL_FUZZ_WIRE_EXPECT_H
#define OFL_FUZZ_WIRE_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offload.h"

/* The terminate cause of a wire error (RFC 5040 §7, RFC 5041 §7, RFC 5044
 * §8; IANA RDDP registry), as offload.h's cause table lists it. */
struct wire_expect_cause {
    enum ofl_err err;
    uint8_t layer, etype, ecode;
};

static const struct wire_expect_cause wire_expect_causes[] = {
    /* DDP local catastrophic */
    {OFL_E_DDP_SHORT, 1, 0, 0x00},
    {OFL_E_MPA_TOO_LONG, 1, 0, 0x00},
    /* DDP untagged buffer errors (the tagged version code is below) */
    {OFL_E_DDP_QN, 1, 2, 0x01},
    {OFL_E_DDP_MO, 1, 2, 0x04},
    {OFL_E_DDP_VERSION, 1, 2, 0x06},
    /* RDMAP remote operation errors */
    {OFL_E_RDMAP_VERSION, 0, 2, 0x05},
    {OFL_E_RDMAP_OPCODE, 0, 2, 0x06},
    {OFL_E_RDMAP_ATOMIC_OP, 0, 2, 0x06},
    {OFL_E_RDMAP_LAST, 0, 2, 0x07},
    {OFL_E_RDMAP_LENGTH, 0, 2, 0x07},
    {OFL_E_RDMAP_TERM, 0, 2, 0x07},
    /* LLP (MPA) errors */
    {OFL_E_MPA_CRC, 2, 0, 0x02},
    {OFL_E_MPA_MARKER, 2, 0, 0x03},
};

/* Fills *c with the cause of e (tagged: the segment's T bit); false for
 * an error not in the table. */
static inline bool wire_expect_cause_of(enum ofl_err e, bool tagged,
                                        struct ofl_term_cause *c)
{
    size_t i;

    if (e == OFL_E_DDP_VERSION && tagged) { /* DDP tagged buffer error */
        c->layer = 1;
        c->etype = 1;
        c->ecode = 0x04;
        return true;
    }
    for (i = 0; i < sizeof(wire_expect_causes) / sizeof(wire_expect_causes[0]);
         i++) {
        if (wire_expect_causes[i].err == e) {
            c->layer = wire_expect_causes[i].layer;
            c->etype = wire_expect_causes[i].etype;
            c->ecode = wire_expect_causes[i].ecode;
            return true;
        }
    }
    return false;
}

/* The opcode table of offload.h: buffer model, untagged QN, one segment
 * only, fixed body length (0: a payload of any length; -1: Terminate). */
struct wire_expect_op {
    bool tagged;
    uint32_t qn;
    bool one;
    int body;
};

static const struct wire_expect_op wire_expect_ops[12] = {
    {true, 0, false, 0},   /* 0x0 RDMA Write */
    {false, 1, true, 28},  /* 0x1 RDMA Read Request */
    {true, 0, false, 0},   /* 0x2 RDMA Read Response */
    {false, 0, false, 0},  /* 0x3 Send */
    {false, 0, false, 0},  /* 0x4 Send with Invalidate */
    {false, 0, false, 0},  /* 0x5 Send with SE */
    {false, 0, false, 0},  /* 0x6 Send with SE and Invalidate */
    {false, 2, true, -1},  /* 0x7 Terminate */
    {false, 0, true, 8},   /* 0x8 Immediate Data */
    {false, 0, true, 8},   /* 0x9 Immediate Data with SE */
    {false, 3, true, 52},  /* 0xA Atomic Request */
    {false, 4, true, 12},  /* 0xB Atomic Response */
};

static inline uint32_t wire_expect_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | p[3];
}

/* What ofl_rdmap_parse must return for u[0 .. len). */
static inline enum ofl_err wire_expect_rdmap(const uint8_t *u, size_t len)
{
    bool tagged, last;
    size_t hdr, body;
    unsigned op;
    const struct wire_expect_op *o;

    if (len < 1)
        return OFL_E_DDP_SHORT;
    tagged = (u[0] & 0x80) != 0;
    hdr = tagged ? 14 : 18;
    if (len < hdr)
        return OFL_E_DDP_SHORT;
    last = (u[0] & 0x40) != 0;
    if ((u[0] & 0x03) != 1)
        return OFL_E_DDP_VERSION;
    if ((u[1] >> 6) != 1)
        return OFL_E_RDMAP_VERSION;
    op = u[1] & 0x0F;
    if (op >= 12 || wire_expect_ops[op].tagged != tagged)
        return OFL_E_RDMAP_OPCODE;
    o = &wire_expect_ops[op];
    /* untagged: RsvdULP at 2, QN at 6, MSN at 10, MO at 14 */
    if (!tagged && wire_expect_be32(u + 6) != o->qn)
        return OFL_E_DDP_QN;
    if (o->one && !last)
        return OFL_E_RDMAP_LAST;
    if (o->one && wire_expect_be32(u + 14) != 0) /* one-segment: untagged */
        return OFL_E_DDP_MO;
    body = len - hdr;
    if (o->body > 0 && body != (size_t)o->body)
        return OFL_E_RDMAP_LENGTH;
    if (op == OFL_RDMAP_ATOMIC_REQ && (u[hdr + 3] & 0x0F) > 2)
        return OFL_E_RDMAP_ATOMIC_OP; /* 0 FetchAdd, 1 Swap, 2 CmpSwap */
    if (o->body < 0) {
        /* Terminate: control word (Hdrct M 0x80, D 0x40, R 0x20 in its
         * third byte), Segment Length with M or D, the DDP header (its
         * length by its own T bit) with D, the Read Request with R. */
        const uint8_t *t = u + hdr;
        size_t want = 4;
        uint8_t hc;

        if (body < 4)
            return OFL_E_RDMAP_TERM;
        hc = t[2];
        if (hc & 0xC0)
            want += 2;
        if (hc & 0x40) {
            if (body < 7)
                return OFL_E_RDMAP_TERM;
            want += (t[6] & 0x80) ? 14 : 18;
        }
        if (hc & 0x20)
            want += 28;
        if (body != want)
            return OFL_E_RDMAP_TERM;
    }
    return OFL_OK;
}

#endif
