/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* wire/MPA: Request/Reply frames, connection setup, MULPDU, FPDU framing
 * with markers and CRC, the streaming receiver, the out-of-order locator. */
#include "test.h"
#include "support/crc_count.h"

#include <stdlib.h>

/* Bitwise CRC32c (RFC 3385), independent of the core's tables. */
static uint32_t ref_crc(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
    }
    return ~c;
}

static uint32_t rng = 1;
static uint32_t rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

#define CHECK_CAUSE(got, l, t, c)                                         \
    do {                                                                  \
        struct ofl_term_cause g_ = (got);                                 \
        CHECK_EQ((g_.layer << 16) | (g_.etype << 8) | g_.ecode,           \
                 ((l) << 16) | ((t) << 8) | (c));                         \
    } while (0)

/* ---- Request / Reply frames ------------------------------------------- */

static void test_rr_vectors(void)
{
    static const uint8_t pd[3] = {'a', 'b', 'c'};
    static const uint8_t want_req[] = {
        'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a',
        'm', 'e', 0xC0, 0x01, 0x00, 0x03, 'a', 'b', 'c'};
    static const uint8_t want_v2[] = {
        'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a',
        'm', 'e', 0x50, 0x02, 0x00, 0x07,
        0xC0 | 0x01, 0x23,  /* P2P, zero-length Send RTR, IRD 0x123 */
        0x80 | 0x00, 0x10,  /* Write RTR, ORD 0x10 */
        'a', 'b', 'c'};
    struct ofl_mpa_rr rr, back;
    uint8_t buf[600];
    size_t len = 0, flen = 0;

    memset(&rr, 0, sizeof(rr));
    rr.flags = OFL_MPA_F_MARKERS | OFL_MPA_F_CRC;
    rr.rev = 1;
    rr.pd = pd;
    rr.pd_len = 3;
    CHECK_EQ(ofl_mpa_rr_len(&rr), 23);
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(len, sizeof(want_req));
    CHECK(memcmp(buf, want_req, len) == 0);
    CHECK_OK(ofl_mpa_rr_parse(buf, len, false, &back, &flen));
    CHECK_EQ(flen, 23);
    CHECK_EQ(back.flags, OFL_MPA_F_MARKERS | OFL_MPA_F_CRC);
    CHECK_EQ(back.rev, 1);
    CHECK_EQ(back.pd_len, 3);
    CHECK(back.pd == buf + 20);
    CHECK(!back.enhanced);

    memset(&rr, 0, sizeof(rr));
    rr.reply = 1;
    rr.flags = OFL_MPA_F_CRC;
    rr.rev = 2;
    rr.enhanced = 1;
    rr.p2p = 1;
    rr.rtr = OFL_MPA_RTR_SEND | OFL_MPA_RTR_WRITE;
    rr.ird = 0x123;
    rr.ord = 0x10;
    rr.pd = pd;
    rr.pd_len = 3;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(len, sizeof(want_v2));
    CHECK(memcmp(buf, want_v2, len) == 0);
    CHECK_OK(ofl_mpa_rr_parse(buf, len, true, &back, &flen));
    CHECK(back.enhanced && back.p2p);
    CHECK_EQ(back.rtr, OFL_MPA_RTR_SEND | OFL_MPA_RTR_WRITE);
    CHECK_EQ(back.ird, 0x123);
    CHECK_EQ(back.ord, 0x10);
    CHECK_EQ(back.pd_len, 3);
    CHECK(back.pd == buf + 24);
    /* Read RTR bit. */
    rr.rtr = OFL_MPA_RTR_READ;
    rr.p2p = 0;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(buf[20], 0x01);
    CHECK_EQ(buf[22], 0x40);
    CHECK_OK(ofl_mpa_rr_parse(buf, len, true, &back, &flen));
    CHECK_EQ(back.rtr, OFL_MPA_RTR_READ);
    CHECK(!back.p2p);
    /* The rejected bit, and reserved flag bits ignored on receipt. */
    rr.enhanced = 0;
    rr.rtr = 0;
    rr.flags = OFL_MPA_F_REJECT;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(buf[16], 0x20);
    buf[16] |= 0x0F;
    CHECK_OK(ofl_mpa_rr_parse(buf, len, true, &back, &flen));
    CHECK_EQ(back.flags, OFL_MPA_F_REJECT);
}

static void test_rr_errors(void)
{
    static uint8_t pd[600];
    struct ofl_mpa_rr rr, back;
    uint8_t buf[600];
    size_t len, flen = 0;

    memset(&rr, 0, sizeof(rr));
    rr.rev = 1;
    CHECK_ERR(ofl_mpa_rr_build(NULL, buf, sizeof(buf), &len), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rr_build(&rr, NULL, sizeof(buf), &len), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), NULL), OFL_E_ARG);
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(len, 20);
    CHECK_EQ(ofl_mpa_rr_len(NULL), 0);
    rr.rev = 0;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rev = 3;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rev = 1;
    rr.enhanced = 1;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rev = 2;
    rr.pd = pd;
    rr.pd_len = 509; /* 509 + 4 > 512 */
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.pd_len = 508;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    CHECK_EQ(len, 532);
    rr.pd = NULL;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.pd_len = 0;
    rr.ird = 0x4000;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.ird = 0x3FFF;
    rr.ord = 0x4000;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.ord = 0x3FFF;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    rr.rtr = 0x8;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rtr = 0;
    rr.enhanced = 0;
    rr.p2p = 1;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.p2p = 0;
    /* RTR bits travel in the RFC 6581 §5 IRD/ORD block only: an RTR kind
     * without the enhanced block is refused, every kind alike. */
    rr.rtr = OFL_MPA_RTR_READ;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rtr = OFL_MPA_RTR_SEND;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len), OFL_E_ARG);
    rr.rtr = 0;
    CHECK_ERR(ofl_mpa_rr_build(&rr, buf, 19, &len), OFL_E_SIZE);
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, 20, &len));

    /* Parser. */
    CHECK_ERR(ofl_mpa_rr_parse(buf, 19, false, &back, &flen),
              OFL_E_TRUNCATED);
    CHECK_EQ(flen, 20);
    CHECK_ERR(ofl_mpa_rr_parse(NULL, 5, false, &back, &flen), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 20, false, NULL, &flen), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 20, false, &back, NULL), OFL_E_ARG);
    /* No bytes yet (NULL, 0) is no argument error: the header is missing. */
    flen = 0;
    CHECK_ERR(ofl_mpa_rr_parse(NULL, 0, false, &back, &flen),
              OFL_E_TRUNCATED);
    CHECK_EQ(flen, 20);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 20, true, &back, &flen), OFL_E_MPA_KEY);
    CHECK_OK(ofl_mpa_rr_parse(buf, 20, false, &back, &flen));
    buf[5] = 'x';
    CHECK_ERR(ofl_mpa_rr_parse(buf, 20, false, &back, &flen), OFL_E_MPA_KEY);
    buf[5] = 'D';
    buf[17] = 0;
    CHECK_ERR(ofl_mpa_rr_parse(buf, 20, false, &back, &flen), OFL_E_MPA_REV);
    buf[17] = 3; /* a newer request revision is answered lower */
    CHECK_OK(ofl_mpa_rr_parse(buf, 20, false, &back, &flen));
    CHECK_EQ(back.rev, 3);
    buf[17] = 1;
    ofl_store_be16(buf + 18, 513);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 600, false, &back, &flen),
              OFL_E_MPA_PD_LEN);
    ofl_store_be16(buf + 18, 512);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 531, false, &back, &flen),
              OFL_E_TRUNCATED);
    CHECK_EQ(flen, 532);
    CHECK_OK(ofl_mpa_rr_parse(buf, 532, false, &back, &flen));
    /* A reply above revision 2, and a short enhanced block. */
    rr.reply = 1;
    rr.rev = 2;
    CHECK_OK(ofl_mpa_rr_build(&rr, buf, sizeof(buf), &len));
    buf[17] = 3;
    CHECK_ERR(ofl_mpa_rr_parse(buf, len, true, &back, &flen), OFL_E_MPA_REV);
    buf[17] = 2;
    buf[16] |= OFL_MPA_F_ENHANCED;
    ofl_store_be16(buf + 18, 3);
    CHECK_ERR(ofl_mpa_rr_parse(buf, 23, true, &back, &flen),
              OFL_E_MPA_ENHANCED);
    ofl_store_be16(buf + 18, 4);
    memset(buf + 20, 0, 4);
    CHECK_OK(ofl_mpa_rr_parse(buf, 24, true, &back, &flen));
    CHECK(back.enhanced);
    CHECK_EQ(back.pd_len, 0);
    /* Revision 1 ignores the enhanced flag. */
    buf[17] = 1;
    CHECK_OK(ofl_mpa_rr_parse(buf, 24, true, &back, &flen));
    CHECK(!back.enhanced);
    CHECK_EQ(back.pd_len, 4);
}

/* ---- connection setup -------------------------------------------------- */

static struct ofl_mpa_cfg cfg_v1(bool markers, bool crc)
{
    struct ofl_mpa_cfg c;

    memset(&c, 0, sizeof(c));
    c.rev = 1;
    c.markers = markers;
    c.crc = crc;
    c.ird = 4;
    c.ord = 4;
    return c;
}

static struct ofl_mpa_cfg cfg_v2(uint16_t ird, uint16_t ord, bool p2p,
                                 uint8_t rtr)
{
    struct ofl_mpa_cfg c = cfg_v1(false, true);

    c.rev = 2;
    c.enhanced = true;
    c.ird = ird;
    c.ord = ord;
    c.p2p = p2p;
    c.rtr = rtr;
    return c;
}

/* Runs a whole handshake, feeding frames in chunks of step bytes. */
static enum ofl_err handshake(const struct ofl_mpa_cfg *ci,
                              const struct ofl_mpa_cfg *cr, size_t step,
                              struct ofl_mpa_hs *ini, struct ofl_mpa_hs *res)
{
    uint8_t frame[OFL_MPA_RR_MAX + 8];
    size_t len = 0, off, used;
    enum ofl_err err;

    CHECK_OK(ofl_mpa_hs_init(ini, ci, true));
    CHECK_OK(ofl_mpa_hs_init(res, cr, false));
    CHECK_OK(ofl_mpa_hs_request(ini, frame, sizeof(frame), &len));
    for (off = 0; off < len; off += used) {
        size_t n = len - off < step ? len - off : step;

        err = ofl_mpa_hs_recv(res, frame + off, n, &used);
        if (err != OFL_OK)
            return err;
        if (used == 0)
            break;
    }
    CHECK_EQ(res->state, OFL_MPA_HS_DECIDE);
    err = ofl_mpa_hs_accept(res, frame, sizeof(frame), &len);
    if (err != OFL_OK && err != OFL_E_MPA_RTR)
        return err;
    for (off = 0; off < len; off += used) {
        size_t n = len - off < step ? len - off : step;
        enum ofl_err e2 = ofl_mpa_hs_recv(ini, frame + off, n, &used);

        if (e2 != OFL_OK)
            return err != OFL_OK ? err : e2;
    }
    return err;
}

static void test_hs_v1(void)
{
    struct ofl_mpa_cfg ci = cfg_v1(true, false), cr = cfg_v1(false, true);
    struct ofl_mpa_hs ini, res;
    size_t step;

    for (step = 1; step <= 25; step += 6) {
        CHECK_OK(handshake(&ci, &cr, step, &ini, &res));
        CHECK_EQ(ini.state, OFL_MPA_HS_DONE);
        CHECK_EQ(res.state, OFL_MPA_HS_DONE);
        /* CRC when either asks; markers per direction. */
        CHECK(ini.params.crc && res.params.crc);
        CHECK(ini.params.markers_rx && !ini.params.markers_tx);
        CHECK(!res.params.markers_rx && res.params.markers_tx);
        CHECK_EQ(ini.params.rev, 1);
        CHECK(!ini.params.enhanced && !ini.params.p2p);
    }
    /* Neither asks for CRC. */
    ci.crc = false;
    cr.crc = false;
    CHECK_OK(handshake(&ci, &cr, 100, &ini, &res));
    CHECK(!ini.params.crc && !res.params.crc);
}

static void test_hs_v2(void)
{
    struct ofl_mpa_cfg ci = cfg_v2(8, 6, true,
                                   OFL_MPA_RTR_READ | OFL_MPA_RTR_SEND);
    struct ofl_mpa_cfg cr = cfg_v2(5, 16, false, OFL_MPA_RTR_ALL);
    struct ofl_mpa_hs ini, res;
    static const uint8_t pd[4] = {9, 8, 7, 6};

    ci.pd = pd;
    ci.pd_len = 4;
    CHECK_OK(handshake(&ci, &cr, 7, &ini, &res));
    CHECK_EQ(ini.state, OFL_MPA_HS_DONE);
    CHECK(ini.params.enhanced && res.params.enhanced);
    /* Responder ORD lowered to the initiator's IRD (8); initiator ORD
     * lowered to the responder's IRD (5). */
    CHECK_EQ(res.params.ord, 8);
    CHECK_EQ(res.params.ird, 5);
    CHECK_EQ(ini.params.ord, 5);
    CHECK_EQ(ini.params.ird, 8);
    /* RTR: Read picked before Send. */
    CHECK(ini.params.p2p && res.params.p2p);
    CHECK_EQ(ini.params.rtr, OFL_MPA_RTR_READ);
    CHECK_EQ(res.params.rtr, OFL_MPA_RTR_READ);
    CHECK_EQ(res.peer.pd_len, 4);
    CHECK(memcmp(res.peer.pd, pd, 4) == 0);
    CHECK_EQ(res.peer.ird, 8);

    /* Send alone: picked when it is the only kind offered. */
    ci.rtr = OFL_MPA_RTR_SEND;
    CHECK_OK(handshake(&ci, &cr, 64, &ini, &res));
    CHECK_EQ(ini.params.rtr, OFL_MPA_RTR_SEND);
    CHECK_EQ(res.params.rtr, OFL_MPA_RTR_SEND);

    /* Write preferred when offered. */
    ci.rtr = OFL_MPA_RTR_ALL;
    CHECK_OK(handshake(&ci, &cr, 1, &ini, &res));
    CHECK_EQ(ini.params.rtr, OFL_MPA_RTR_WRITE);

    /* A revision 1 responder: client-server, no enhanced block. */
    cr = cfg_v1(false, false);
    CHECK_OK(handshake(&ci, &cr, 64, &ini, &res));
    CHECK_EQ(ini.params.rev, 1);
    CHECK(!ini.params.enhanced && !ini.params.p2p);
    CHECK_EQ(ini.params.ord, 6);
    /* A revision 2 responder without the enhanced block: the same. */
    cr = cfg_v1(false, false);
    cr.rev = 2;
    CHECK_OK(handshake(&ci, &cr, 64, &ini, &res));
    CHECK_EQ(ini.params.rev, 2);
    CHECK(!ini.params.enhanced && !ini.params.p2p && ini.params.rtr == 0);

    /* No common RTR kind: the responder rejects. */
    ci.rtr = OFL_MPA_RTR_READ;
    cr = cfg_v2(5, 16, false, OFL_MPA_RTR_WRITE);
    CHECK_ERR(handshake(&ci, &cr, 64, &ini, &res), OFL_E_MPA_RTR);
    CHECK_EQ(res.state, OFL_MPA_HS_REJECTED);
    CHECK_CAUSE(res.cause, 2, 0, 7);
    CHECK_EQ(ini.state, OFL_MPA_HS_REJECTED);
    CHECK_EQ(ini.err, OFL_E_MPA_REJECTED);

    /* RFC 6581: the IRD/ORD block counts only when both sides send it. A
     * revision 2 responder without it: plain revision 2, and neither
     * side's ORD is lowered to the other's IRD. */
    ci = cfg_v2(8, 6, false, 0);
    cr = cfg_v2(5, 16, false, 0);
    cr.enhanced = false;
    CHECK_OK(handshake(&ci, &cr, 64, &ini, &res));
    CHECK_EQ(ini.state, OFL_MPA_HS_DONE);
    CHECK_EQ(res.state, OFL_MPA_HS_DONE);
    CHECK_EQ(res.params.rev, 2);
    CHECK_EQ(ini.params.rev, 2);
    CHECK(!res.params.enhanced && !ini.params.enhanced);
    CHECK(!ini.peer.enhanced);
    CHECK_EQ(res.params.ord, 16);
    CHECK_EQ(ini.params.ord, 6);
    /* The same with the block on the responder's side only. */
    ci.enhanced = false;
    cr.enhanced = true;
    CHECK_OK(handshake(&ci, &cr, 64, &ini, &res));
    CHECK_EQ(ini.state, OFL_MPA_HS_DONE);
    CHECK_EQ(res.state, OFL_MPA_HS_DONE);
    CHECK_EQ(res.params.rev, 2);
    CHECK(!res.params.enhanced && !ini.params.enhanced);
    CHECK(!ini.peer.enhanced);
    CHECK_EQ(res.params.ord, 16);
    CHECK_EQ(ini.params.ord, 6);
}

/* Initiator fed a hand-made reply. */
static enum ofl_err feed_reply(const struct ofl_mpa_cfg *ci,
                               const struct ofl_mpa_rr *rep,
                               struct ofl_mpa_hs *ini)
{
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len, used;

    CHECK_OK(ofl_mpa_hs_init(ini, ci, true));
    CHECK_OK(ofl_mpa_hs_request(ini, frame, sizeof(frame), &len));
    CHECK_OK(ofl_mpa_rr_build(rep, frame, sizeof(frame), &len));
    return ofl_mpa_hs_recv(ini, frame, len, &used);
}

static void test_hs_errors(void)
{
    struct ofl_mpa_cfg ci = cfg_v2(4, 4, true, OFL_MPA_RTR_WRITE |
                                                   OFL_MPA_RTR_READ);
    struct ofl_mpa_cfg bad;
    static struct ofl_mpa_hs hs, res; /* static: kernel stack frames */
    struct ofl_mpa_rr rep;
    static uint8_t frame[OFL_MPA_RR_MAX + 10];
    size_t len = 0, used = 0;

    /* init arguments */
    CHECK_ERR(ofl_mpa_hs_init(NULL, &ci, true), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_init(&hs, NULL, true), OFL_E_ARG);
    bad = ci;
    bad.rev = 0;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.rev = 1; /* enhanced needs rev 2 */
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.ird = 0x4000;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.ord = 0x4000;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.rtr = 0;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.enhanced = false; /* peer-to-peer needs the RFC 6581 block */
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad.p2p = false;
    CHECK_OK(ofl_mpa_hs_init(&hs, &bad, true));
    bad = ci;
    bad.rtr = 0x10;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad = ci;
    bad.pd_len = 509;
    bad.pd = frame;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);
    bad.pd = NULL;
    bad.pd_len = 1;
    CHECK_ERR(ofl_mpa_hs_init(&hs, &bad, true), OFL_E_ARG);

    /* state errors */
    CHECK_OK(ofl_mpa_hs_init(&hs, &ci, true));
    CHECK_ERR(ofl_mpa_hs_recv(&hs, frame, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_recv(&hs, NULL, 1, &used), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_recv(NULL, frame, 1, &used), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_request(NULL, frame, sizeof(frame), &len), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_accept(NULL, frame, sizeof(frame), &len), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_reject(NULL, frame, sizeof(frame), &len), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_hs_recv(&hs, frame, 1, &used), OFL_E_MPA_STATE);
    CHECK_ERR(ofl_mpa_hs_accept(&hs, frame, sizeof(frame), &len),
              OFL_E_MPA_STATE);
    CHECK_ERR(ofl_mpa_hs_request(&hs, frame, 10, &len), OFL_E_SIZE);
    CHECK_EQ(hs.state, OFL_MPA_HS_START);
    CHECK_OK(ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len));
    CHECK_ERR(ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len),
              OFL_E_MPA_STATE);
    CHECK_ERR(ofl_mpa_hs_reject(&hs, frame, sizeof(frame), &len),
              OFL_E_MPA_STATE);

    /* The responder stops at the frame end and keeps the rest. */
    CHECK_OK(ofl_mpa_hs_init(&res, &ci, false));
    /* No bytes (NULL, 0): nothing taken, still waiting. */
    used = 99;
    CHECK_OK(ofl_mpa_hs_recv(&res, NULL, 0, &used));
    CHECK_EQ(used, 0);
    CHECK_EQ(res.have, 0);
    CHECK_EQ(res.state, OFL_MPA_HS_AWAIT_REQUEST);
    frame[len] = 0xEE;
    CHECK_OK(ofl_mpa_hs_recv(&res, frame, len + 1, &used));
    CHECK_EQ(used, len);
    CHECK_EQ(res.state, OFL_MPA_HS_DECIDE);
    CHECK_ERR(ofl_mpa_hs_recv(&res, frame, 1, &used), OFL_E_MPA_STATE);
    CHECK_ERR(ofl_mpa_hs_accept(&res, frame, 10, &len), OFL_E_SIZE);
    CHECK_EQ(res.state, OFL_MPA_HS_DECIDE);
    CHECK_OK(ofl_mpa_hs_reject(&res, frame, sizeof(frame), &len));
    CHECK_EQ(res.state, OFL_MPA_HS_REJECTED);
    CHECK_EQ(frame[16] & OFL_MPA_F_REJECT, OFL_MPA_F_REJECT);
    CHECK_ERR(ofl_mpa_hs_recv(&hs, frame, len, &used), OFL_E_MPA_REJECTED);
    CHECK_EQ(hs.state, OFL_MPA_HS_REJECTED);
    CHECK_EQ(hs.err, OFL_E_MPA_REJECTED);

    /* A bad key reaches FAILED with 2/0/04 as soon as the header is in. */
    CHECK_OK(ofl_mpa_hs_init(&res, &ci, false));
    memcpy(frame, "MPA ID Rep Frame", 16);
    CHECK_ERR(ofl_mpa_hs_recv(&res, frame, 20, &used), OFL_E_MPA_KEY);
    CHECK_EQ(res.state, OFL_MPA_HS_FAILED);
    CHECK_CAUSE(res.cause, 2, 0, 4);

    /* Private data longer than 512 bytes (RFC 5044 §7.1): the length
     * field alone condemns the frame, the responder does not wait for (or
     * buffer) the bytes it announces. 512 is accepted. */
    CHECK_OK(ofl_mpa_hs_init(&hs, &ci, true));
    CHECK_OK(ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len));
    CHECK_OK(ofl_mpa_hs_init(&res, &ci, false));
    frame[18] = 0x02;
    frame[19] = 0x01; /* 513 */
    CHECK_ERR(ofl_mpa_hs_recv(&res, frame, 20, &used), OFL_E_MPA_PD_LEN);
    CHECK_EQ(res.state, OFL_MPA_HS_FAILED);
    CHECK_CAUSE(res.cause, 2, 0, 4);
    CHECK_OK(ofl_mpa_hs_init(&res, &ci, false));
    frame[18] = 0xFF;
    frame[19] = 0xFF;
    CHECK_ERR(ofl_mpa_hs_recv(&res, frame, 20, &used), OFL_E_MPA_PD_LEN);
    CHECK_OK(ofl_mpa_hs_init(&res, &ci, false));
    frame[18] = 0x02;
    frame[19] = 0x00; /* 512: 4 enhanced + 508 private data */
    memset(frame + 24, 0xA5, 508);
    CHECK_OK(ofl_mpa_hs_recv(&res, frame, 20 + 512, &used));
    CHECK_EQ(used, 20 + 512);
    CHECK_EQ(res.state, OFL_MPA_HS_DECIDE);
    CHECK_EQ(res.peer.pd_len, 508);

    /* Replies the initiator refuses. */
    memset(&rep, 0, sizeof(rep));
    rep.reply = 1;
    rep.rev = 2;
    rep.enhanced = 1;
    rep.ird = 4;
    rep.ord = 4;
    rep.p2p = 1;
    rep.rtr = OFL_MPA_RTR_WRITE;
    CHECK_OK(feed_reply(&ci, &rep, &hs));
    CHECK_EQ(hs.state, OFL_MPA_HS_DONE);
    rep.ord = 5; /* above our IRD 4 */
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_IRD);
    CHECK_CAUSE(hs.cause, 2, 0, 6);
    rep.ord = 4;
    rep.rtr = OFL_MPA_RTR_WRITE | OFL_MPA_RTR_READ; /* two kinds */
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_RTR);
    CHECK_CAUSE(hs.cause, 2, 0, 7);
    rep.rtr = OFL_MPA_RTR_SEND; /* not offered */
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_RTR);
    rep.rtr = 0;
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_RTR);
    rep.rtr = OFL_MPA_RTR_READ;
    rep.p2p = 0; /* a kind, but P2P (A) not taken */
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_RTR);
    CHECK_CAUSE(hs.cause, 2, 0, 7);
    rep.p2p = 1;
    CHECK_OK(feed_reply(&ci, &rep, &hs));
    CHECK_EQ(hs.params.rtr, OFL_MPA_RTR_READ);
    /* A revision above ours. */
    ci = cfg_v1(false, true);
    memset(&rep, 0, sizeof(rep));
    rep.reply = 1;
    rep.rev = 2;
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_REV);
    CHECK_CAUSE(hs.cause, 2, 0, 4);
    rep.rev = 1;
    rep.flags = OFL_MPA_F_REJECT;
    CHECK_ERR(feed_reply(&ci, &rep, &hs), OFL_E_MPA_REJECTED);
    CHECK_CAUSE(hs.cause, 2, 0, 1);
}

/* ---- MULPDU ------------------------------------------------------------ */

static void test_mulpdu(void)
{
    uint32_t emss, pos, bad = 0;

    CHECK_EQ(ofl_mpa_mulpdu(1460, false), 1454);
    CHECK_EQ(ofl_mpa_mulpdu(1460, true), 1442);
    CHECK_EQ(ofl_mpa_mulpdu(1461, false), 1454);
    CHECK_EQ(ofl_mpa_mulpdu(9000, false), 8994);
    CHECK_EQ(ofl_mpa_mulpdu(9000, true), 8922);
    CHECK_EQ(ofl_mpa_mulpdu(65535, false), 65526);
    CHECK_EQ(ofl_mpa_mulpdu(200000, false), 65535);
    CHECK_EQ(ofl_mpa_mulpdu(6, false), 0);
    CHECK_EQ(ofl_mpa_mulpdu(7, false), 0);
    CHECK_EQ(ofl_mpa_mulpdu(8, false), 2);
    CHECK_EQ(ofl_mpa_mulpdu(10, true), 0);
    CHECK_EQ(ofl_mpa_mulpdu(12, true), 2);
    /* The core takes an EMSS up to 2^24 - 1 (no TCP MSS comes near it: the
     * MSS option is 16 bits) and refuses (0) anything larger, markers or
     * not, so the marker overhead EMSS + 511 never wraps. */
    CHECK_EQ(ofl_mpa_mulpdu(0xFFFFFFu, false), 65535);
    CHECK_EQ(ofl_mpa_mulpdu(0xFFFFFFu, true), 65535);
    CHECK_EQ(ofl_mpa_mulpdu(0x1000000u, false), 0);
    CHECK_EQ(ofl_mpa_mulpdu(0x1000000u, true), 0);
    CHECK_EQ(ofl_mpa_mulpdu(0xFFFFFFFFu, true), 0);
    /* An FPDU of MULPDU bytes fits the EMSS wherever it starts. */
    for (emss = 12; emss <= 9100; emss += 7)
        for (pos = 0; pos < 512; pos += 4) {
            uint16_t m = ofl_mpa_mulpdu(emss, true);
            uint16_t n = ofl_mpa_mulpdu(emss, false);

            if (m != 0 && ofl_mpa_fpdu_len(pos, true, m) > emss)
                bad++;
            if (n != 0 && ofl_mpa_fpdu_len(pos, false, n) > emss)
                bad++;
        }
    CHECK_EQ(bad, 0);
    CHECK_EQ(ofl_mpa_fpdu_len(0, false, 70000), 0);
    CHECK_EQ(ofl_mpa_fpdu_len(0, false, 0), 8);
    CHECK_EQ(ofl_mpa_fpdu_len(0, true, 0), 12);   /* leading marker */
    CHECK_EQ(ofl_mpa_fpdu_len(8, true, 0), 8);    /* ends at the next */
    CHECK_EQ(ofl_mpa_fpdu_len(508, true, 0), 12); /* marker at offset 4 */
}

/* ---- FPDU framing ------------------------------------------------------ */

static struct ofl_mpa_params params(bool markers, bool crc)
{
    struct ofl_mpa_params p;

    memset(&p, 0, sizeof(p));
    p.rev = 1;
    p.crc = crc;
    p.markers_tx = markers;
    p.markers_rx = markers;
    return p;
}

/* A Send of "hello world!" (12 bytes): ULPDU 18 + 12 = 30, pad 0. */
static const uint8_t hello_hdr[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
                                      0, 0, 0, 1, 0, 0, 0, 0};
static const uint8_t hello_msg[12] = {'h', 'e', 'l', 'l', 'o', ' ',
                                      'w', 'o', 'r', 'l', 'd', '!'};

static void test_fpdu_vector(void)
{
    const uint8_t *hdr = hello_hdr, *msg = hello_msg;
    struct ofl_mpa_params p = params(false, true);
    struct ofl_mpa_tx tx;
    uint8_t out[64], prefix[2], trailer[7];
    size_t len = 0, tl = 0;
    uint32_t crc;

    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    CHECK_OK(ofl_mpa_fpdu_build(&tx, hdr, 18, msg, 12, out, sizeof(out),
                                &len));
    CHECK_EQ(len, 36);
    CHECK_EQ(tx.pos, 36);
    CHECK_EQ(ofl_load_be16(out), 30);
    CHECK(memcmp(out + 2, hdr, 18) == 0);
    CHECK(memcmp(out + 20, msg, 12) == 0);
    crc = ref_crc(out, 32);
    /* Least significant byte first. */
    CHECK_EQ(out[32], crc & 0xFF);
    CHECK_EQ(out[35], crc >> 24);
    /* The no-copy framing gives the same bytes. */
    CHECK_OK(ofl_mpa_fpdu_frame(&tx, hdr, 18, msg, 12, prefix, trailer,
                                &tl));
    CHECK_EQ(tl, 4);
    CHECK(memcmp(prefix, out, 2) == 0);
    CHECK(memcmp(trailer, out + 32, 4) == 0);
    CHECK_EQ(tx.pos, 72);
    /* Odd length: pad 3 zero bytes. */
    CHECK_OK(ofl_mpa_fpdu_build(&tx, hdr, 18, msg, 11, out, sizeof(out),
                                &len));
    CHECK_EQ(len, 2 + 29 + 1 + 4);
    CHECK_EQ(out[31], 0);
    CHECK_OK(ofl_mpa_fpdu_frame(&tx, hdr, 18, msg, 9, prefix, trailer, &tl));
    CHECK_EQ(tl, 7);
    CHECK_OK(ofl_mpa_fpdu_build(&tx, hdr, 18, msg, 9, out, sizeof(out),
                                &len));
    CHECK(memcmp(trailer, out + 29, 7) == 0);
    /* CRC off: the field is sent as zero. */
    p.crc = false;
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    CHECK_OK(ofl_mpa_fpdu_build(&tx, hdr, 18, msg, 12, out, sizeof(out),
                                &len));
    CHECK_EQ(ofl_load_le32(out + 32), 0);
    CHECK_OK(ofl_mpa_fpdu_frame(&tx, hdr, 18, msg, 12, prefix, trailer,
                                &tl));
    CHECK_EQ(ofl_load_le32(trailer), 0);
}

/* A size build asks the port for its crc32c hook at each CRC (a hook set
 * after init is called), a speed build once per stream (it is not). */
#define CRC_HOOK_LATE (OFL_TEST_FAST_PATH ? 0u : 32u)

/* An MPA stream's CRC goes through the port's crc32c hook when the port
 * had it at init (ofl_mpa_tx_init, ofl_mpa_rx_init); a speed build does
 * not call one set later (it looked once), and the portable CRC gives the
 * same bytes. ofl_mpa_fpdu_verify looks in its own call. */
static void test_crc_hook_at_init(void)
{
    const uint8_t *hdr = hello_hdr, *msg = hello_msg;
    struct ofl_mpa_params p = params(false, true);
    struct ofl_port port;
    struct ofl_mpa_tx tx;
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    uint8_t out[64], buf[64];
    size_t len = 0, used = 0;
    uint16_t ul = 0;
    unsigned k;

    for (k = 0; k < 2; k++) {
        /* k 0: the hook set at init; 1: set after init */
        memset(&port, 0, sizeof(port));
        port.version = OFL_PORT_VERSION;
        port.size = (uint16_t)sizeof(port);
        port.crc32c = k == 1 ? NULL : crc_count_hook;
        CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, &port));
        CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), &port));
        port.crc32c = crc_count_hook;
        crc_count_reset();
        CHECK_OK(ofl_mpa_fpdu_build(&tx, hdr, 18, msg, 12, out, sizeof(out),
                                    &len));
        CHECK_EQ(len, 36);
        CHECK_EQ(ofl_load_le32(out + 32), ref_crc(out, 32));
        CHECK_EQ(crc_count.bytes, k == 0 ? 32u : CRC_HOOK_LATE);
        crc_count_reset();
        CHECK_OK(ofl_mpa_rx_feed(&rx, out, len, &used, &f));
        CHECK_EQ(used, 36);
        CHECK(f.ulpdu != NULL && f.len == 30);
        CHECK_EQ(crc_count.bytes, k == 0 ? 32u : CRC_HOOK_LATE);
        /* verify: the hook the port has in the call */
        port.crc32c = k == 1 ? NULL : crc_count_hook;
        crc_count_reset();
        CHECK_OK(ofl_mpa_fpdu_verify(0, false, true, out, len, &port, &ul));
        CHECK_EQ(ul, 30);
        CHECK_EQ(crc_count.bytes, k == 0 ? 32u : 0u);
        out[20] ^= 1; /* a bit flipped: the CRC still checked */
        CHECK_ERR(ofl_mpa_fpdu_verify(0, false, true, out, len, &port, &ul),
                  OFL_E_MPA_CRC);
    }
}

/* ofl_mpa_fpdu_framev runs the CRC over contiguous stretches in one call:
 * every layout of prefix, header and payload (in place behind the prefix
 * or apart, either empty) gives the bytes ofl_mpa_fpdu_build gives. */
static void test_framev_layouts(void)
{
    static const uint8_t hdr[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0, 0, 0, 1, 0, 0, 0, 0};
    struct ofl_mpa_params p = params(false, true);
    struct ofl_mpa_tx tx, ref;
    struct ofl_mpa_ulpdu u;
    uint8_t buf[64], hsep[18], psep[16], out[64], trailer[7];
    size_t len = 0, tl = 0;
    uint32_t layout, hl, n, k;

    for (layout = 0; layout < 4; layout++) {
        for (hl = 0; hl <= 18; hl += 18) {
            for (n = 0; n <= 12; n += 3) {
                /* bit 0: header in place behind the prefix; bit 1:
                 * payload in place behind the header */
                uint8_t *h = (layout & 1) ? buf + 2 : hsep;
                uint8_t *pl = (layout & 2) ? (layout & 1 ? buf + 2 + hl
                                                         : hsep + hl)
                                           : psep;

                if (!(layout & 1) && (layout & 2) && hl != 0)
                    continue; /* hsep has no room behind the header */
                if (hl == 0 && n == 0)
                    continue;
                memset(buf, 0xEE, sizeof(buf));
                memcpy(h, hdr, hl);
                for (k = 0; k < n; k++)
                    pl[k] = (uint8_t)(0x30 + k);
                CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
                CHECK_OK(ofl_mpa_tx_init(&ref, &p, 1460, NULL));
                CHECK_OK(ofl_mpa_fpdu_build(&ref, hdr, hl, pl, n, out,
                                            sizeof(out), &len));
                u.hdr = hl != 0 ? h : NULL;
                u.hdr_len = hl;
                u.payload = n != 0 ? pl : NULL;
                u.payload_len = n;
                CHECK_OK(ofl_mpa_fpdu_framev(&tx, &u, buf, trailer, &tl));
                CHECK_EQ(2 + hl + n + tl, len);
                CHECK(memcmp(buf, out, 2) == 0);
                CHECK(memcmp(trailer, out + 2 + hl + n, tl) == 0);
                CHECK_EQ(tx.pos, ref.pos);
            }
        }
    }
}

static void test_fpdu_build_errors(void)
{
    static uint8_t big[70000];
    struct ofl_mpa_params p = params(true, true);
    struct ofl_mpa_tx tx;
    uint8_t prefix[2], trailer[7];
    size_t len, tl;

    CHECK_ERR(ofl_mpa_tx_init(NULL, &p, 1460, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_tx_init(&tx, NULL, 1460, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_tx_init(&tx, &p, 10, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_tx_init(&tx, &p, 65536, NULL), OFL_E_ARG);
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 65535, NULL));
    CHECK_EQ(tx.mulpdu, ofl_mpa_mulpdu(65535, true));
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    /* Argument checks: nothing is written and the position stays. */
    CHECK_ERR(ofl_mpa_fpdu_build(NULL, big, 20, NULL, 0, big + 2000, 3000,
                                 &len),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 20, NULL, 0, NULL, 3000, &len),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 20, NULL, 0, big + 2000, 3000,
                                 NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, NULL, 20, big, 5, big + 2000, 3000,
                                 &len),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_buildv(&tx, NULL, big + 2000, 3000, &len),
              OFL_E_ARG);
    CHECK_EQ(tx.pos, 0);
    /* No header part (NULL, 0), the payload alone: an FPDU all the same. */
    CHECK_OK(ofl_mpa_fpdu_build(&tx, NULL, 0, big, 20, big + 2000, 3000,
                                &len));
    CHECK_EQ(len, ofl_mpa_fpdu_len(0, true, 20));
    CHECK_EQ(ofl_load_be16(big + 2000 + 4), 20);
    CHECK_EQ(tx.pos, len);
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 1443, NULL, 0, big + 2000, 3000,
                                 &len),
              OFL_E_MPA_TOO_LONG);
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 20, big, 1423, big + 2000, 3000,
                                 &len),
              OFL_E_MPA_TOO_LONG);
    CHECK_OK(ofl_mpa_fpdu_build(&tx, big, 20, big, 1422, big + 2000, 3000,
                                &len));
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 20, NULL, 5, big + 2000, 3000,
                                 &len),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 20, NULL, 0, big + 2000,
                                 ofl_mpa_fpdu_len(tx.pos, true, 20) - 1,
                                 &len),
              OFL_E_SIZE);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 4, NULL, 0, prefix, trailer, &tl),
              OFL_E_ARG); /* markers need the copying builder */
    p.markers_tx = false;
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 1460, NULL));
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 1455, NULL, 0, prefix, trailer,
                                 &tl),
              OFL_E_MPA_TOO_LONG);
    /* Argument checks of the no-copy framing. */
    CHECK_ERR(ofl_mpa_fpdu_frame(NULL, big, 4, NULL, 0, prefix, trailer, &tl),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 4, NULL, 0, NULL, trailer, &tl),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 4, NULL, 0, prefix, NULL, &tl),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 4, NULL, 0, prefix, trailer, NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, NULL, 4, NULL, 0, prefix, trailer, &tl),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 4, NULL, 4, prefix, trailer, &tl),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_framev(&tx, NULL, prefix, trailer, &tl),
              OFL_E_ARG);
    CHECK_EQ(tx.pos, 0);
    /* MULPDU (1454 at EMSS 1460, RFC 5044 §8) bounds header and payload
     * together: 20 + 1435 is one byte over, 20 + 1434 fills the segment. */
    CHECK_ERR(ofl_mpa_fpdu_frame(&tx, big, 20, big, 1435, prefix, trailer,
                                 &tl),
              OFL_E_MPA_TOO_LONG);
    CHECK_EQ(tx.pos, 0);
    CHECK_OK(ofl_mpa_fpdu_frame(&tx, big, 20, big, 1434, prefix, trailer,
                                &tl));
    CHECK_EQ(ofl_load_be16(prefix), 1454);
    CHECK_EQ(tl, 4);
    CHECK_EQ(tx.pos, 1460);
    /* The 16-bit FPDUPTR limit (a hand-set oversize MULPDU). */
    p.markers_tx = true;
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 65535, NULL));
    tx.mulpdu = 65535;
    CHECK_ERR(ofl_mpa_fpdu_build(&tx, big, 65535, NULL, 0, big, sizeof(big),
                                 &len),
              OFL_E_MPA_TOO_LONG);
}

/* A stream of FPDUs with random ULPDUs; records each ULPDU. */
#define NF 40
struct stream {
    uint8_t wire[NF * 2400];
    size_t len;
    uint8_t ulpdu[NF][2048];
    uint16_t ulen[NF];
    uint32_t start[NF];
    uint32_t wlen[NF];
    int n;
};

static void make_stream(struct stream *st, bool markers, bool crc,
                        uint32_t maxlen)
{
    struct ofl_mpa_params p = params(markers, crc);
    struct ofl_mpa_tx tx;
    int i;

    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 9000, NULL));
    st->len = 0;
    st->n = NF;
    for (i = 0; i < NF; i++) {
        uint32_t n = rnd() % (maxlen + 1), h = n < 18 ? n : 18, k;
        size_t len = 0;

        if (i % 7 == 3)
            n = 0;
        if (i % 5 == 1)
            n = maxlen;
        h = n < 18 ? n : 18;
        for (k = 0; k < n; k++)
            st->ulpdu[i][k] = (uint8_t)rnd();
        st->ulen[i] = (uint16_t)n;
        st->start[i] = tx.pos;
        CHECK_OK(ofl_mpa_fpdu_build(&tx, st->ulpdu[i], h, st->ulpdu[i] + h,
                                    n - h, st->wire + st->len,
                                    sizeof(st->wire) - st->len, &len));
        CHECK_EQ(len, ofl_mpa_fpdu_len(st->start[i], markers, n));
        st->wlen[i] = (uint32_t)len;
        st->len += len;
    }
}

/* Feeds the stream in chunks; returns the FPDUs that matched. */
static int feed_stream(const struct stream *st, bool markers, bool crc,
                       uint32_t (*chunk)(uint32_t), uint32_t cap,
                       int *in_place)
{
    static uint8_t buf[4096];
    struct ofl_mpa_params p = params(markers, crc);
    struct ofl_mpa_rx rx;
    size_t off = 0;
    int got = 0, k = 0;

    *in_place = 0;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, cap, NULL));
    while (off < st->len) {
        size_t n = chunk(k++), used = 0, done = 0;

        if (n > st->len - off)
            n = st->len - off;
        while (done < n) {
            struct ofl_mpa_fpdu f;
            enum ofl_err err = ofl_mpa_rx_feed(&rx, st->wire + off + done,
                                               n - done, &used, &f);

            if (err != OFL_OK)
                return -1000 - (int)err;
            done += used;
            if (f.ulpdu != NULL) {
                if (got < st->n && f.len == st->ulen[got] &&
                    memcmp(f.ulpdu, st->ulpdu[got], f.len) == 0 &&
                    f.start == st->start[got] && f.wire_len == st->wlen[got])
                    got++;
                else
                    return -1;
                if (f.ulpdu != buf)
                    (*in_place)++;
            } else if (used != n - (done - used)) {
                return -2;
            }
        }
        off += n;
    }
    return got;
}

static uint32_t ch1(uint32_t k) { (void)k; return 1; }
static uint32_t ch3(uint32_t k) { (void)k; return 3; }
static uint32_t ch7(uint32_t k) { return k % 2 ? 7 : 2; }
static uint32_t ch512(uint32_t k) { (void)k; return 512; }
static uint32_t ch1460(uint32_t k) { (void)k; return 1460; }
static uint32_t chbig(uint32_t k) { (void)k; return 1u << 20; }
static uint32_t chrnd(uint32_t k) { (void)k; return 1 + rnd() % 3000; }

static void test_rx_chunkings(void)
{
    static struct stream st;
    uint32_t (*chunks[])(uint32_t) = {ch1, ch3, ch7, ch512, ch1460, chbig,
                                      chrnd};
    int m, c, i, in_place;

    for (m = 0; m < 4; m++) {
        bool markers = m & 1, crc = (m >> 1) & 1;

        make_stream(&st, markers, crc, 2000);
        for (c = 0; c < (int)(sizeof(chunks) / sizeof(chunks[0])); c++) {
            int got = feed_stream(&st, markers, crc, chunks[c], 4096,
                                  &in_place);

            CHECK_EQ(got, NF);
            if (chunks[c] == chbig && !markers)
                CHECK_EQ(in_place, NF); /* whole and marker-free */
            if (chunks[c] == ch1)
                CHECK_EQ(in_place, 0);
        }
        for (i = 0; i < 20; i++)
            CHECK_EQ(feed_stream(&st, markers, crc, chrnd, 2000, &in_place),
                     NF);
    }
    /* Markers where every FPDU is small: some delivered in place. */
    make_stream(&st, true, true, 100);
    CHECK_EQ(feed_stream(&st, true, true, chbig, 4096, &in_place), NF);
    CHECK(in_place > 0);
}

static void test_rx_markers_layout(void)
{
    /* Three FPDUs from stream position 0 with markers: check the wire. */
    struct ofl_mpa_params p = params(true, true);
    struct ofl_mpa_tx tx;
    static uint8_t u[1200], w[4000]; /* static: kernel stack frames */
    size_t len, total = 0;
    uint32_t i;

    for (i = 0; i < sizeof(u); i++)
        u[i] = (uint8_t)(i * 7);
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 9000, NULL));
    CHECK_OK(ofl_mpa_fpdu_build(&tx, u, 1000, NULL, 0, w, sizeof(w), &len));
    /* Leading marker (FPDUPTR 0), header at 4, a marker at 512 pointing
     * back to the header; 506 + 494 data bytes around it, pad 2, CRC: the
     * FPDU ends at 1016, before the marker at 1024. */
    CHECK_EQ(ofl_load_be32(w), 0);
    CHECK_EQ(ofl_load_be16(w + 4), 1000);
    CHECK(memcmp(w + 6, u, 506) == 0);
    CHECK_EQ(ofl_load_be16(w + 512), 0);
    CHECK_EQ(ofl_load_be16(w + 514), 508);
    CHECK(memcmp(w + 516, u + 506, 494) == 0);
    CHECK_EQ(len, 4 + 2 + 1000 + 2 + 4 + 4);
    CHECK_EQ(ofl_load_le32(w + len - 4), ref_crc(w, len - 4));
    total = len;
    /* The second FPDU starts at 1016; markers at 1024 and 1536 point back
     * 8 and 520 bytes to its header. */
    CHECK_OK(ofl_mpa_fpdu_build(&tx, u, 600, NULL, 0, w + total,
                                sizeof(w) - total, &len));
    CHECK_EQ(ofl_load_be16(w + total), 600);
    CHECK_EQ(ofl_load_be16(w + 1024 + 2), 8);
    CHECK_EQ(ofl_load_be16(w + 1536 + 2), 520);
    CHECK_EQ(len, 2 + 600 + 2 + 4 + 8);
    CHECK_EQ(ofl_load_le32(w + total + len - 4),
             ref_crc(w + total, len - 4));
    total += len;
    CHECK_EQ(total, 1632);
    /* A marker between pad and CRC belongs to the FPDU and is covered:
     * ULPDU 506 at position 0 (after the leading marker) fills the wire up
     * to 512, where the CRC would begin. */
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 9000, NULL));
    CHECK_OK(ofl_mpa_fpdu_build(&tx, u, 506, NULL, 0, w, sizeof(w), &len));
    CHECK_EQ(len, 4 + 2 + 506 + 4 + 4);
    CHECK_EQ(ofl_load_be16(w + 512), 0);
    CHECK_EQ(ofl_load_be16(w + 512 + 2), 508);
    CHECK_EQ(ofl_load_le32(w + 516), ref_crc(w, 516));
}

static void test_rx_errors(void)
{
    static struct stream st;
    static uint8_t buf[4096];
    static uint8_t copy[sizeof(st.wire)];
    struct ofl_mpa_params p = params(true, true);
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    size_t used, off;
    enum ofl_err err = OFL_OK;
    int in_place;

    CHECK_ERR(ofl_mpa_rx_init(NULL, &p, buf, 10, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_init(&rx, NULL, buf, 10, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_init(&rx, &p, NULL, 10, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_init(&rx, &p, buf, 0, NULL), OFL_E_ARG);
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, 10, NULL));
    CHECK_ERR(ofl_mpa_rx_feed(&rx, NULL, 3, &used, &f), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_feed(NULL, buf, 3, &used, &f), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_feed(&rx, buf, 3, NULL, &f), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_rx_feed(&rx, buf, 3, &used, NULL), OFL_E_ARG);
    /* No bytes (NULL, 0): nothing taken, nothing delivered. */
    used = 99;
    f.ulpdu = buf;
    CHECK_OK(ofl_mpa_rx_feed(&rx, NULL, 0, &used, &f));
    CHECK_EQ(used, 0);
    CHECK(f.ulpdu == NULL);
    CHECK_EQ(rx.state, OFL_MPA_RX_LENGTH);
    CHECK_EQ(rx.pos, 0);

    make_stream(&st, true, true, 1500);
    /* A flipped payload bit: CRC error, sticky, cause 2/0/02. */
    memcpy(copy, st.wire, st.len);
    copy[st.wlen[0] + 30] ^= 0x10;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    for (off = 0; off < st.len; off += used) {
        err = ofl_mpa_rx_feed(&rx, copy + off, st.len - off, &used, &f);
        if (err != OFL_OK)
            break;
    }
    CHECK_ERR(err, OFL_E_MPA_CRC);
    CHECK_CAUSE(rx.cause, 2, 0, 2);
    CHECK_EQ(rx.state, OFL_MPA_RX_FAILED);
    CHECK_ERR(ofl_mpa_rx_feed(&rx, copy, 4, &used, &f), OFL_E_MPA_CRC);
    CHECK_EQ(used, 0);
    /* Without CRC negotiated the same bytes pass (payload differs). */
    p.crc = false;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    for (off = 0; off < st.len; off += used)
        CHECK_OK(ofl_mpa_rx_feed(&rx, copy + off, st.len - off, &used, &f));
    p.crc = true;

    /* A marker pointing elsewhere: 2/0/03. Low two bits are ignored and
     * the reserved half is not checked. */
    memcpy(copy, st.wire, st.len);
    copy[512] = 0xAB;
    copy[515] |= 3;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    p.crc = false; /* the edits would break the CRC */
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    for (off = 0; off < st.len; off += used)
        CHECK_OK(ofl_mpa_rx_feed(&rx, copy + off, 1 + off % 13, &used, &f));
    copy[514] ^= 0x04;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    for (off = 0; off < st.len; off += used) {
        err = ofl_mpa_rx_feed(&rx, copy + off, 1 + off % 13, &used, &f);
        if (err != OFL_OK)
            break;
    }
    CHECK_ERR(err, OFL_E_MPA_MARKER);
    CHECK_CAUSE(rx.cause, 2, 0, 3);
    /* A leading marker that is not 0. */
    memcpy(copy, st.wire, st.len);
    copy[3] = 4;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    CHECK_ERR(ofl_mpa_rx_feed(&rx, copy, st.len, &used, &f),
              OFL_E_MPA_MARKER);
    CHECK_EQ(used, 4);
    p.crc = true;

    /* A ULPDU longer than the buffer: fast and slow path alike. */
    CHECK_EQ(feed_stream(&st, true, true, chbig, 1499, &in_place),
             -1000 - (int)OFL_E_MPA_TOO_LONG);
    CHECK_EQ(feed_stream(&st, true, true, ch1, 1499, &in_place),
             -1000 - (int)OFL_E_MPA_TOO_LONG);
    CHECK_EQ(feed_stream(&st, true, true, ch1, 1500, &in_place), NF);
    p.markers_rx = false;
    make_stream(&st, false, true, 1500);
    CHECK_EQ(feed_stream(&st, false, true, chbig, 1499, &in_place),
             -1000 - (int)OFL_E_MPA_TOO_LONG);
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, 1499, NULL));
    for (off = 0; off < st.len; off += used) {
        err = ofl_mpa_rx_feed(&rx, st.wire + off, st.len - off, &used, &f);
        if (err != OFL_OK)
            break;
    }
    CHECK_ERR(err, OFL_E_MPA_TOO_LONG);
    CHECK_CAUSE(rx.cause, 1, 0, 0);
    /* Fast path CRC error. */
    memcpy(copy, st.wire, st.len);
    copy[5] ^= 1;
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    CHECK_ERR(ofl_mpa_rx_feed(&rx, copy, st.len, &used, &f), OFL_E_MPA_CRC);
    /* On an error, what was consumed does not depend on the chunking: the
     * whole FPDU for a CRC error, the length field for a ULPDU too long
     * (in place, or byte by byte after a first call of one byte). */
    CHECK_EQ(used, st.wlen[0]);
    CHECK_EQ(rx.pos, st.wlen[0]);
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    CHECK_OK(ofl_mpa_rx_feed(&rx, copy, 3, &used, &f));
    CHECK_ERR(ofl_mpa_rx_feed(&rx, copy + 3, st.len - 3, &used, &f),
              OFL_E_MPA_CRC);
    CHECK_EQ(used, st.wlen[0] - 3);
    CHECK_EQ(rx.pos, st.wlen[0]);
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, 8, NULL)); /* below the first */
    CHECK_ERR(ofl_mpa_rx_feed(&rx, st.wire, st.len, &used, &f),
              OFL_E_MPA_TOO_LONG);
    CHECK_EQ(used, OFL_MPA_HDR_LEN);
    CHECK_EQ(rx.pos, OFL_MPA_HDR_LEN);
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, 8, NULL));
    CHECK_OK(ofl_mpa_rx_feed(&rx, st.wire, 1, &used, &f));
    CHECK_ERR(ofl_mpa_rx_feed(&rx, st.wire + 1, st.len - 1, &used, &f),
              OFL_E_MPA_TOO_LONG);
    CHECK_EQ(used, 1);
    CHECK_EQ(rx.pos, OFL_MPA_HDR_LEN);
}

/* One call holding more than 0xFFFF bytes: the receiver walks it in steps
 * of at most 0xFFFF (a 32-bit count over a size_t length) and still stops
 * at the end of each FPDU (RFC 5044 §4); with markers every FPDU of 2000
 * bytes has one inside, so none is taken in place. */
static void test_rx_long_feed(void)
{
    static uint8_t wire[40 * 2100], u[2000], buf[2048];
    struct ofl_mpa_params p = params(true, true);
    struct ofl_mpa_tx tx;
    struct ofl_mpa_rx rx;
    struct ofl_mpa_fpdu f;
    uint32_t starts[40], i, n = 0, bad = 0;
    size_t wl = 0, len = 0, off, used = 0;

    for (i = 0; i < sizeof(u); i++)
        u[i] = (uint8_t)(i * 13 + 1);
    CHECK_OK(ofl_mpa_tx_init(&tx, &p, 9000, NULL));
    for (i = 0; i < 40; i++) {
        starts[i] = tx.pos;
        CHECK_OK(ofl_mpa_fpdu_build(&tx, u, 18, u + 18, sizeof(u) - 18,
                                    wire + wl, sizeof(wire) - wl, &len));
        wl += len;
    }
    CHECK(wl > 0xFFFFu + 2100u); /* several calls start above 0xFFFF */
    CHECK_OK(ofl_mpa_rx_init(&rx, &p, buf, sizeof(buf), NULL));
    for (off = 0; off < wl && n < 40; off += used) {
        enum ofl_err err = ofl_mpa_rx_feed(&rx, wire + off, wl - off, &used,
                                           &f);

        if (err != OFL_OK || f.ulpdu != buf || f.len != sizeof(u) ||
            memcmp(f.ulpdu, u, sizeof(u)) != 0 || f.start != starts[n] ||
            f.wire_len != ofl_mpa_fpdu_len(starts[n], true, sizeof(u)) ||
            used != f.wire_len) {
            bad++;
            break;
        }
        n++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(n, 40);
    CHECK_EQ(off, wl);
}

/* ---- out-of-order location --------------------------------------------- */

static void test_locate(void)
{
    static struct stream st;
    static uint8_t seg_copy[sizeof(st.wire)];
    static struct ofl_mpa_found found[64];
    uint32_t count, bases[3] = {0, 0xFFFFF000u, 12345 * 4};
    int b, trial, bad = 0, located = 0;

    make_stream(&st, true, true, 2000);
    for (b = 0; b < 3; b++)
        for (trial = 0; trial < 400; trial++) {
            size_t off = rnd() % st.len, len = 1 + rnd() % 4000;
            uint32_t i, j, seq;
            enum ofl_err err;

            if (len > st.len - off)
                len = st.len - off;
            seq = bases[b] + (uint32_t)off;
            err = ofl_mpa_locate(bases[b], seq, st.wire + off, len, found,
                                 64, &count);
            if (err != OFL_OK) {
                bad++;
                continue;
            }
            /* Every FPDU found is one of ours, in order, contiguous. */
            for (i = 0; i < count; i++) {
                uint32_t at = (uint32_t)off + found[i].off;

                for (j = 0; j < NF && st.start[j] != at; j++)
                    ;
                if (j == NF || found[i].ulpdu_len != st.ulen[j] ||
                    found[i].wire_len != st.wlen[j] ||
                    found[i].complete != (found[i].off + st.wlen[j] <= len)) {
                    bad++;
                    break;
                }
                if (i > 0 && found[i].off !=
                                  found[i - 1].off + found[i - 1].wire_len)
                    bad++;
                if (found[i].complete) {
                    static uint8_t re[2048];
                    uint16_t ul = 0;
                    uint32_t o = 0, n;
                    const uint8_t *pc;

                    located++;
                    if (ofl_mpa_fpdu_verify(at, true, true,
                                            st.wire + at, st.wlen[j], NULL,
                                            &ul) != OFL_OK ||
                        ul != st.ulen[j]) {
                        bad++;
                        continue;
                    }
                    while ((n = ofl_mpa_fpdu_piece(at, true, st.wire + at, ul,
                                                   o, &pc)) != 0) {
                        memcpy(re + o, pc, n);
                        o += n;
                    }
                    if (o != ul || memcmp(re, st.ulpdu[j], ul) != 0)
                        bad++;
                }
            }
            /* A segment spanning a whole FPDU and a marker finds it. */
            if (len >= 2 * 2400 + 512 && count == 0)
                bad++;
        }
    CHECK_EQ(bad, 0);
    CHECK(located > 100);

    /* Segment too short to hold a marker: nothing, no error. */
    CHECK_OK(ofl_mpa_locate(0, 5, st.wire + 5, 100, found, 64, &count));
    CHECK_EQ(count, 0);
    CHECK_ERR(ofl_mpa_locate(0, 0, NULL, 5, found, 64, &count), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_locate(0, 0, st.wire, 5, found, 64, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_mpa_locate_segment(NULL, found, 64, &count), OFL_E_ARG);
    /* An empty segment (NULL, 0): nothing, no error. */
    count = 7;
    CHECK_OK(ofl_mpa_locate(0, 0, NULL, 0, found, 64, &count));
    CHECK_EQ(count, 0);
    /* No table (NULL, cap 0) only counts nothing; NULL with room is an
     * argument error. */
    count = 7;
    CHECK_OK(ofl_mpa_locate(0, 0, st.wire, st.len, NULL, 0, &count));
    CHECK_EQ(count, 0);
    CHECK_ERR(ofl_mpa_locate(0, 0, st.wire, st.len, NULL, 1, &count),
              OFL_E_ARG);
    /* cap limits what is recorded. */
    CHECK_OK(ofl_mpa_locate(0, 0, st.wire, st.len, found, 2, &count));
    CHECK_EQ(count, 2);
    CHECK_EQ(found[0].off, 0);
    CHECK_EQ(found[1].off, st.wlen[0]);
    /* A corrupted marker is caught during the walk. */
    memcpy(seg_copy, st.wire, st.len);
    seg_copy[2048 + 3] ^= 0x40;
    CHECK_ERR(ofl_mpa_locate(0, 0, seg_copy, st.len, found, 64, &count),
              OFL_E_MPA_MARKER);
    /* A corrupted ULPDU Length shows as a marker disagreement. */
    memcpy(seg_copy, st.wire, st.len);
    seg_copy[4 + 1] ^= 0x08;
    CHECK_ERR(ofl_mpa_locate(0, 0, seg_copy, st.len, found, 64, &count),
              OFL_E_MPA_MARKER);

    /* An FPDU that ends exactly at a marker position leaves that marker to
     * lead the next FPDU (RFC 5044 §4: FPDUPTR 0, the header follows it):
     * ULPDU 502 from position 0 is the leading marker plus 508 bytes. */
    {
        struct ofl_mpa_params p;
        struct ofl_mpa_tx tx;
        size_t l1 = 0, l2 = 0;

        memset(&p, 0, sizeof(p));
        p.crc = true;
        p.markers_tx = true;
        CHECK_OK(ofl_mpa_tx_init(&tx, &p, 9000, NULL));
        CHECK_OK(ofl_mpa_fpdu_build(&tx, st.ulpdu[0], 502, NULL, 0, seg_copy,
                                    sizeof(seg_copy), &l1));
        CHECK_EQ(l1, 512);
        CHECK_OK(ofl_mpa_fpdu_build(&tx, st.ulpdu[1], 100, NULL, 0,
                                    seg_copy + l1, sizeof(seg_copy) - l1,
                                    &l2));
        CHECK_EQ(l2, 4 + 2 + 100 + 2 + 4);
        CHECK_EQ(ofl_load_be32(seg_copy + 512), 0);
        CHECK_OK(ofl_mpa_locate(0, 0, seg_copy, l1 + l2, found, 64, &count));
        CHECK_EQ(count, 2);
        CHECK_EQ(found[0].off, 0);
        CHECK_EQ(found[0].hdr_off, 4);
        CHECK_EQ(found[0].wire_len, 512);
        CHECK_EQ(found[0].ulpdu_len, 502);
        CHECK(found[0].complete);
        CHECK_EQ(found[1].off, 512);
        CHECK_EQ(found[1].hdr_off, 516);
        CHECK_EQ(found[1].wire_len, l2);
        CHECK_EQ(found[1].ulpdu_len, 100);
        CHECK(found[1].complete);
        /* The second FPDU's leading marker is checked in the walk too. */
        seg_copy[512 + 3] = 4;
        CHECK_ERR(ofl_mpa_locate(0, 0, seg_copy, l1 + l2, found, 64, &count),
                  OFL_E_MPA_MARKER);
    }
}

static void test_verify_piece(void)
{
    static struct stream st;
    uint16_t ul;
    const uint8_t *pc;
    uint8_t w[64];

    make_stream(&st, true, true, 2000);
    CHECK_OK(ofl_mpa_fpdu_verify(0, true, true, st.wire, st.wlen[0], NULL,
                                 &ul));
    CHECK_ERR(ofl_mpa_fpdu_verify(0, true, true, st.wire, st.wlen[0] - 4,
                                  NULL, &ul),
              OFL_E_MPA_MARKER);
    CHECK_ERR(ofl_mpa_fpdu_verify(0, true, true, st.wire, 5, NULL, &ul),
              OFL_E_TRUNCATED);
    CHECK_ERR(ofl_mpa_fpdu_verify(0, true, true, NULL, 5, NULL, &ul),
              OFL_E_ARG);
    CHECK_ERR(ofl_mpa_fpdu_verify(0, true, true, st.wire, st.wlen[0], NULL,
                                  NULL),
              OFL_E_ARG);
    st.wire[10] ^= 1;
    CHECK_ERR(ofl_mpa_fpdu_verify(0, true, true, st.wire, st.wlen[0], NULL,
                                  &ul),
              OFL_E_MPA_CRC);
    CHECK_OK(ofl_mpa_fpdu_verify(0, true, false, st.wire, st.wlen[0], NULL,
                                 &ul));
    st.wire[10] ^= 1;
    if (st.wlen[0] > 512) {
        st.wire[515] ^= 8;
        CHECK_ERR(ofl_mpa_fpdu_verify(0, true, false, st.wire, st.wlen[0],
                                      NULL, &ul),
                  OFL_E_MPA_MARKER);
        st.wire[515] ^= 8;
    }
    /* No markers: the length must match exactly. */
    memset(w, 0, sizeof(w));
    ofl_store_be16(w, 10);
    CHECK_OK(ofl_mpa_fpdu_verify(0, false, false, w, 16, NULL, &ul));
    CHECK_ERR(ofl_mpa_fpdu_verify(0, false, false, w, 20, NULL, &ul),
              OFL_E_MPA_TOO_LONG);
    CHECK_EQ(ofl_mpa_fpdu_piece(0, false, w, 10, 3, &pc), 7);
    CHECK(pc == w + 5);
    CHECK_EQ(ofl_mpa_fpdu_piece(0, false, w, 10, 10, &pc), 0);
    pc = w + 1;
    CHECK_EQ(ofl_mpa_fpdu_piece(0, false, NULL, 10, 3, &pc), 0);
    CHECK(pc == w + 1);
    CHECK_EQ(ofl_mpa_fpdu_piece(0, false, w, 10, 3, NULL), 0);
    /* Marker math at a position with the marker 8 bytes in. */
    CHECK_EQ(ofl_mpa_fpdu_piece(504, true, w, 30, 0, &pc), 6);
    CHECK(pc == w + 2);
    CHECK_EQ(ofl_mpa_fpdu_piece(504, true, w, 30, 6, &pc), 24);
    CHECK(pc == w + 12);
}

OFL_SUITE(mpa)
{
    rng = 99;
    test_rr_vectors();
    test_rr_errors();
    test_hs_v1();
    test_hs_v2();
    test_hs_errors();
    test_mulpdu();
    test_fpdu_vector();
    test_crc_hook_at_init();
    test_framev_layouts();
    test_fpdu_build_errors();
    test_rx_markers_layout();
    test_rx_chunkings();
    test_rx_errors();
    test_rx_long_feed();
    test_locate();
    test_verify_piece();
}
