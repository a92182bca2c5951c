/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-pcap - offload's iWARP frames as a peer (or Wireshark) sees them.
 *
 *   ofl-pcap [--plain] OUT.pcap   write one scripted conversation
 *   ofl-pcap --demo               write offload-iwarp-markers-crc.pcap and
 *                                 offload-iwarp-plain.pcap here, read both
 *                                 back and check every frame
 *   ofl-pcap --corpus DIR         write fuzz seeds from the conversation
 *                                 into DIR/<harness>/ (used once to make
 *                                 fuzz/<harness>/corpus)
 *
 * The conversation, between an initiator 10.0.0.1:40000 and a responder
 * 10.0.0.2:7174 over Ethernet/IPv4/TCP with correct checksums: TCP
 * handshake, MPA Request and Reply, then one FPDU per TCP segment: Send,
 * Send with Invalidate, RDMA Write, RDMA Read Request and Response, Atomic
 * Request (compare and swap) and Response, Immediate Data, a Send with SE
 * large enough to take two FPDUs, an RDMA Write to an unknown STag, and the
 * responder's Terminate for it (DDP tagged "invalid STag", with the
 * offending DDP header). The default variant is MPA revision 2 (RFC 6581
 * IRD/ORD) with markers and CRC in both directions; --plain is revision 1
 * without markers and CRC.
 *
 * Look at it with (Debian's tshark 4.0; the MPA dissector is a TCP
 * heuristic that starts at the MPA Request):
 *   tshark -r offload-iwarp-markers-crc.pcap -o tcp.try_heuristic_first:TRUE \
 *          --disable-protocol rpcordma -V
 */
#include "offload.h"
#include "ports/posix/ofl_posix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EMSS 1460
#define MAX_SEGS 64

static struct ofl_posix px;

/* ---- one TCP direction ------------------------------------------------- */

struct dir {
    uint8_t ip[4];
    uint16_t port;
    uint32_t isn;
    uint32_t snd_nxt;       /* next sequence number to send */
    struct ofl_mpa_tx tx;   /* after the handshake */
    uint32_t fpdu_base;     /* SN of the first FPDU octet */
    uint32_t msn[5];        /* next MSN per untagged queue */
};

struct seg {
    int from;               /* 0 initiator, 1 responder */
    uint8_t flags;          /* TCP flags */
    uint32_t seq, ack;
    uint8_t data[EMSS];
    uint32_t len;
};

struct conv {
    bool markers;
    struct dir d[2];
    struct seg seg[MAX_SEGS];
    int nseg;
    /* What the check expects, per FPDU in order. */
    struct {
        int from;
        uint8_t opcode;
        uint8_t ulpdu[EMSS];
        uint16_t len;
    } fpdu[32];
    int nfpdu;
    uint8_t req[OFL_MPA_RR_MAX], rep[OFL_MPA_RR_MAX];
    size_t req_len, rep_len;
};

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_PSH 0x08
#define TCP_ACK 0x10

static void die(const char *what)
{
    fprintf(stderr, "ofl-pcap: %s\n", what);
    exit(1);
}

static void ok(enum ofl_err e, const char *what)
{
    if (e != OFL_OK) {
        fprintf(stderr, "ofl-pcap: %s: %s\n", what, ofl_strerror(e));
        exit(1);
    }
}

static void add_seg(struct conv *c, int from, uint8_t flags,
                    const uint8_t *data, uint32_t len)
{
    struct seg *s;

    if (c->nseg == MAX_SEGS || len > EMSS)
        die("conversation too long");
    s = &c->seg[c->nseg++];
    s->from = from;
    s->flags = flags;
    s->seq = c->d[from].snd_nxt;
    s->ack = c->d[!from].snd_nxt;
    s->len = len;
    if (len)
        memcpy(s->data, data, len);
    c->d[from].snd_nxt += len + ((flags & (TCP_SYN | TCP_FIN)) ? 1 : 0);
}

/* Frames one ULPDU (header built here + payload) and sends it, then the
 * peer's ACK. */
static void send_fpdu(struct conv *c, int from, const struct ofl_rdmap_msg *m,
                      const uint8_t *payload, uint32_t plen)
{
    uint8_t hdr[OFL_RDMAP_HDR_MAX], wire[EMSS];
    size_t hl, wl;
    int k = c->nfpdu;

    ok(ofl_rdmap_build(m, hdr, sizeof(hdr), &hl), "rdmap_build");
    ok(ofl_mpa_fpdu_build(&c->d[from].tx, hdr, hl, payload, plen, wire,
                          sizeof(wire), &wl),
       "fpdu_build");
    add_seg(c, from, TCP_ACK | TCP_PSH, wire, (uint32_t)wl);
    add_seg(c, !from, TCP_ACK, NULL, 0);
    if (k == 32)
        die("too many FPDUs");
    c->fpdu[k].from = from;
    c->fpdu[k].opcode = m->ddp.opcode;
    memcpy(c->fpdu[k].ulpdu, hdr, hl);
    if (plen)
        memcpy(c->fpdu[k].ulpdu + hl, payload, plen);
    c->fpdu[k].len = (uint16_t)(hl + plen);
    c->nfpdu++;
}

static struct ofl_rdmap_msg untagged(struct conv *c, int from, uint8_t op,
                                     uint32_t qn)
{
    struct ofl_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.ddp.opcode = op;
    m.ddp.last = 1;
    m.ddp.qn = qn;
    m.ddp.msn = c->d[from].msn[qn]++;
    return m;
}

static struct ofl_rdmap_msg tagged(uint8_t op, uint32_t stag, uint64_t to)
{
    struct ofl_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.ddp.tagged = 1;
    m.ddp.opcode = op;
    m.ddp.last = 1;
    m.ddp.stag = stag;
    m.ddp.to = to;
    return m;
}

/* The scripted conversation. */
static void script(struct conv *c, bool markers)
{
    static const uint8_t pd_ini[] = "offload initiator";
    static const uint8_t pd_res[] = "offload responder";
    struct ofl_mpa_cfg ci, cr;
    struct ofl_mpa_hs hi, hr;
    struct ofl_rdmap_msg m;
    struct ofl_ddp_seg sg;
    struct ofl_ddp_hdr h;
    uint8_t data[4096], bad_write[OFL_RDMAP_HDR_MAX + 32];
    uint32_t off, len, i;
    size_t used, bl;
    int q;

    memset(c, 0, sizeof(*c));
    c->markers = markers;
    memcpy(c->d[0].ip, "\x0a\x00\x00\x01", 4);
    memcpy(c->d[1].ip, "\x0a\x00\x00\x02", 4);
    c->d[0].port = 40000;
    c->d[1].port = 7174;
    c->d[0].isn = c->d[0].snd_nxt = 0x1A2B0000u;
    c->d[1].isn = c->d[1].snd_nxt = 0x7F000000u;
    for (q = 0; q < 5; q++)
        c->d[0].msn[q] = c->d[1].msn[q] = 1; /* RFC 5041: MSN starts at 1 */
    for (i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)('a' + i % 26);

    add_seg(c, 0, TCP_SYN, NULL, 0);
    add_seg(c, 1, TCP_SYN | TCP_ACK, NULL, 0);
    add_seg(c, 0, TCP_ACK, NULL, 0);

    /* MPA connection setup. */
    memset(&ci, 0, sizeof(ci));
    ci.rev = markers ? 2 : 1;
    ci.enhanced = markers;
    ci.markers = markers;
    ci.crc = markers;
    ci.ird = 8;
    ci.ord = 8;
    ci.pd = pd_ini;
    ci.pd_len = sizeof(pd_ini) - 1;
    cr = ci;
    cr.ird = 4;
    cr.pd = pd_res;
    cr.pd_len = sizeof(pd_res) - 1;
    ok(ofl_mpa_hs_init(&hi, &ci, true), "hs_init");
    ok(ofl_mpa_hs_init(&hr, &cr, false), "hs_init");
    ok(ofl_mpa_hs_request(&hi, c->req, sizeof(c->req), &c->req_len),
       "request");
    ok(ofl_mpa_hs_recv(&hr, c->req, c->req_len, &used), "recv request");
    ok(ofl_mpa_hs_accept(&hr, c->rep, sizeof(c->rep), &c->rep_len), "accept");
    ok(ofl_mpa_hs_recv(&hi, c->rep, c->rep_len, &used), "recv reply");
    if (hi.state != OFL_MPA_HS_DONE || hr.state != OFL_MPA_HS_DONE)
        die("handshake did not complete");
    add_seg(c, 0, TCP_ACK | TCP_PSH, c->req, (uint32_t)c->req_len);
    add_seg(c, 1, TCP_ACK | TCP_PSH, c->rep, (uint32_t)c->rep_len);
    add_seg(c, 0, TCP_ACK, NULL, 0);
    c->d[0].fpdu_base = c->d[0].snd_nxt;
    c->d[1].fpdu_base = c->d[1].snd_nxt;
    ok(ofl_mpa_tx_init(&c->d[0].tx, &hi.params, EMSS, &px.port), "tx_init");
    ok(ofl_mpa_tx_init(&c->d[1].tx, &hr.params, EMSS, &px.port), "tx_init");

    /* Send, Send with Invalidate. */
    m = untagged(c, 0, OFL_RDMAP_SEND, OFL_DDP_QN_SEND);
    send_fpdu(c, 0, &m, (const uint8_t *)"hello from offload", 18);
    m = untagged(c, 0, OFL_RDMAP_SEND_INV, OFL_DDP_QN_SEND);
    m.ddp.inv_stag = 0x12345601u;
    send_fpdu(c, 0, &m, (const uint8_t *)"invalidate 0x12345601", 21);
    /* RDMA Write. */
    m = tagged(OFL_RDMAP_WRITE, 0x00000A01u, 0x10000);
    send_fpdu(c, 0, &m, data, 100);
    /* RDMA Read Request and its Response. */
    m = untagged(c, 0, OFL_RDMAP_READ_REQ, OFL_DDP_QN_READ_REQ);
    m.u.read_req.sink_stag = 0x00000B01u;
    m.u.read_req.sink_to = 0x20000;
    m.u.read_req.size = 64;
    m.u.read_req.src_stag = 0x00000A01u;
    m.u.read_req.src_to = 0x10000;
    send_fpdu(c, 0, &m, NULL, 0);
    m = tagged(OFL_RDMAP_READ_RESP, 0x00000B01u, 0x20000);
    send_fpdu(c, 1, &m, data, 64);
    /* An atomic compare-and-swap and its response. */
    m = untagged(c, 0, OFL_RDMAP_ATOMIC_REQ, OFL_DDP_QN_ATOMIC_REQ);
    m.u.atomic_req.op = OFL_RDMAP_CMP_SWAP;
    m.u.atomic_req.req_id = 1;
    m.u.atomic_req.stag = 0x00000A01u;
    m.u.atomic_req.to = 0x10040;
    m.u.atomic_req.add_swap = 0x1111111111111111ull;
    m.u.atomic_req.add_swap_mask = ~0ull;
    m.u.atomic_req.compare = 0x6867666564636261ull;
    m.u.atomic_req.compare_mask = ~0ull;
    send_fpdu(c, 0, &m, NULL, 0);
    m = untagged(c, 1, OFL_RDMAP_ATOMIC_RESP, OFL_DDP_QN_ATOMIC_RESP);
    m.u.atomic_resp.req_id = 1;
    m.u.atomic_resp.orig = 0x6867666564636261ull;
    send_fpdu(c, 1, &m, NULL, 0);
    /* RFC 7306 Immediate Data. */
    m = untagged(c, 0, OFL_RDMAP_IMM, OFL_DDP_QN_SEND);
    memcpy(m.u.imm, "IMMDATA!", 8);
    send_fpdu(c, 0, &m, NULL, 0);
    /* A Send with SE segmented at the MULPDU. */
    memset(&h, 0, sizeof(h));
    h.opcode = OFL_RDMAP_SEND_SE;
    h.qn = OFL_DDP_QN_SEND;
    h.msn = c->d[0].msn[OFL_DDP_QN_SEND]++;
    ok(ofl_ddp_seg_init(&sg, &h, 2000, c->d[0].tx.mulpdu), "seg_init");
    while (ofl_ddp_seg_next(&sg, &h, &off, &len)) {
        memset(&m, 0, sizeof(m));
        m.ddp = h;
        send_fpdu(c, 0, &m, data + off, len);
    }
    /* An RDMA Write to an STag the responder does not know ... */
    m = tagged(OFL_RDMAP_WRITE, 0x0BAD0001u, 0);
    ok(ofl_rdmap_build(&m, bad_write, sizeof(bad_write), &bl), "build");
    memcpy(bad_write + bl, data, 16);
    send_fpdu(c, 0, &m, data, 16);
    /* ... answered with a Terminate: DDP tagged, invalid STag. */
    {
        struct ofl_term_cause cause;

        cause.layer = OFL_TERM_LAYER_DDP;
        cause.etype = OFL_TERM_DDP_TAGGED;
        cause.ecode = OFL_TERM_DDP_T_INVALID_STAG;
        m = untagged(c, 1, OFL_RDMAP_TERMINATE, OFL_DDP_QN_TERMINATE);
        ofl_rdmap_term_fill(&m.u.term, cause, bad_write, bl + 16);
        send_fpdu(c, 1, &m, NULL, 0);
    }
}

/* ---- Ethernet / IPv4 / TCP and pcap -------------------------------------- */

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
    size_t i;

    for (i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    return s;
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* Builds the Ethernet frame of s into f; returns its length. */
static size_t frame(const struct conv *c, const struct seg *s, uint8_t *f)
{
    const struct dir *a = &c->d[s->from], *b = &c->d[!s->from];
    uint8_t *ip = f + 14, *tcp = f + 34, ph[12];
    size_t tl = 20 + s->len;
    static uint16_t ident = 1;

    memcpy(f, "\x02\x00\x00\x00\x00\x00", 6);
    memcpy(f + 6, "\x02\x00\x00\x00\x00\x00", 6);
    f[5] = (uint8_t)(2 - s->from); /* destination */
    f[11] = (uint8_t)(1 + s->from);
    f[12] = 0x08;
    f[13] = 0x00;
    ip[0] = 0x45;
    ip[1] = 0;
    ofl_store_be16(ip + 2, (uint16_t)(20 + tl));
    ofl_store_be16(ip + 4, ident++);
    ofl_store_be16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 6;
    ofl_store_be16(ip + 10, 0);
    memcpy(ip + 12, a->ip, 4);
    memcpy(ip + 16, b->ip, 4);
    ofl_store_be16(ip + 10, fold(sum16(ip, 20, 0)));
    ofl_store_be16(tcp, a->port);
    ofl_store_be16(tcp + 2, b->port);
    ofl_store_be32(tcp + 4, s->seq);
    ofl_store_be32(tcp + 8, (s->flags & TCP_ACK) ? s->ack : 0);
    tcp[12] = 5 << 4;
    tcp[13] = s->flags;
    ofl_store_be16(tcp + 14, 65535);
    ofl_store_be16(tcp + 16, 0);
    ofl_store_be16(tcp + 18, 0);
    memcpy(tcp + 20, s->data, s->len);
    memcpy(ph, a->ip, 4);
    memcpy(ph + 4, b->ip, 4);
    ph[8] = 0;
    ph[9] = 6;
    ofl_store_be16(ph + 10, (uint16_t)tl);
    ofl_store_be16(tcp + 16, fold(sum16(tcp, tl, sum16(ph, 12, 0))));
    return 34 + tl;
}

static void write_pcap(const struct conv *c, const char *path)
{
    uint8_t hdr[24], rec[16], f[14 + 20 + 20 + EMSS];
    FILE *fp = fopen(path, "wb");
    int i;

    if (fp == NULL) {
        fprintf(stderr, "ofl-pcap: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    ofl_store_le32(hdr, 0xA1B2C3D4u);
    ofl_store_le16(hdr + 4, 2);
    ofl_store_le16(hdr + 6, 4);
    ofl_store_le32(hdr + 8, 0);
    ofl_store_le32(hdr + 12, 0);
    ofl_store_le32(hdr + 16, 65535);
    ofl_store_le32(hdr + 20, 1); /* Ethernet */
    fwrite(hdr, 1, sizeof(hdr), fp);
    for (i = 0; i < c->nseg; i++) {
        size_t n = frame(c, &c->seg[i], f);

        ofl_store_le32(rec, 1700000000u);
        ofl_store_le32(rec + 4, (uint32_t)i * 100);
        ofl_store_le32(rec + 8, (uint32_t)n);
        ofl_store_le32(rec + 12, (uint32_t)n);
        fwrite(rec, 1, sizeof(rec), fp);
        fwrite(f, 1, n, fp);
    }
    if (fclose(fp) != 0)
        die("write failed");
}

/* ---- reading a capture back and checking it --------------------------- */

/* Reads the pcap, checks every checksum, and rebuilds the two TCP byte
 * streams (in order: the script never reorders). */
static int read_back(const char *path, const struct conv *c, uint8_t *st[2],
                     size_t len[2], uint32_t first_sn[2])
{
    static uint8_t file[1 << 20];
    FILE *fp = fopen(path, "rb");
    size_t n, off = 24;
    int frames = 0, errors = 0;

    if (fp == NULL)
        return 1;
    n = fread(file, 1, sizeof(file), fp);
    fclose(fp);
    if (n < 24 || ofl_load_le32(file) != 0xA1B2C3D4u)
        return 1;
    len[0] = len[1] = 0;
    while (off + 16 <= n) {
        uint32_t cl = ofl_load_le32(file + off + 8);
        uint8_t *f = file + off + 16, *ip = f + 14, *tcp = f + 34, ph[12];
        uint32_t tl, seq;
        int from;

        if (off + 16 + cl > n || cl < 54)
            return 1;
        off += 16 + cl;
        frames++;
        tl = ofl_load_be16(ip + 2) - 20u;
        if (fold(sum16(ip, 20, 0)) != 0)
            errors++;
        memcpy(ph, ip + 12, 8);
        ph[8] = 0;
        ph[9] = 6;
        ofl_store_be16(ph + 10, (uint16_t)tl);
        if (fold(sum16(tcp, tl, sum16(ph, 12, 0))) != 0)
            errors++;
        from = ofl_load_be16(tcp) == c->d[0].port ? 0 : 1;
        seq = ofl_load_be32(tcp + 4);
        if (tl > 20) {
            if (len[from] == 0)
                first_sn[from] = seq;
            if (seq != first_sn[from] + (uint32_t)len[from])
                errors++; /* the script sends in order */
            memcpy(st[from] + len[from], tcp + 20, tl - 20);
            len[from] += tl - 20;
        }
    }
    if (frames != c->nseg)
        errors++;
    return errors;
}

/* Runs both byte streams through offload's receive side. */
static int check_capture(const char *path, const struct conv *c)
{
    static uint8_t sbuf[2][1 << 16], rbuf[2][4096];
    uint8_t *st[2] = {sbuf[0], sbuf[1]};
    size_t len[2], used, pos[2];
    uint32_t first_sn[2];
    struct ofl_mpa_cfg ci, cr;
    struct ofl_mpa_hs hi, hr;
    struct ofl_mpa_rx rx[2];
    int errors = read_back(path, c, st, len, first_sn), k;

    if (errors) {
        fprintf(stderr, "ofl-pcap: %s: %d capture errors\n", path, errors);
        return 1;
    }
    /* Handshake from the captured bytes (markers/CRC as scripted). */
    memset(&ci, 0, sizeof(ci));
    ci.rev = c->markers ? 2 : 1;
    ci.enhanced = c->markers;
    ci.markers = ci.crc = c->markers;
    ci.ird = ci.ord = 8;
    cr = ci;
    ok(ofl_mpa_hs_init(&hi, &ci, true), "hs_init");
    ok(ofl_mpa_hs_init(&hr, &cr, false), "hs_init");
    ok(ofl_mpa_hs_recv(&hr, st[0], len[0], &pos[0]), "captured request");
    ok(ofl_mpa_hs_request(&hi, rbuf[0], sizeof(rbuf[0]), &used), "request");
    ok(ofl_mpa_hs_recv(&hi, st[1], len[1], &pos[1]), "captured reply");
    if (hr.state != OFL_MPA_HS_DECIDE || hi.state != OFL_MPA_HS_DONE)
        die("captured handshake incomplete");
    if (pos[0] != c->req_len || pos[1] != c->rep_len ||
        memcmp(st[0], c->req, c->req_len) != 0 ||
        memcmp(st[1], c->rep, c->rep_len) != 0)
        errors++;
    ok(ofl_mpa_hs_accept(&hr, rbuf[1], sizeof(rbuf[1]), &used), "accept");
    ok(ofl_mpa_rx_init(&rx[0], &hr.params, rbuf[0], 4096, &px.port), "rx");
    ok(ofl_mpa_rx_init(&rx[1], &hi.params, rbuf[1], 4096, &px.port), "rx");
    /* The markers start at the first FPDU octet of each direction. */
    if (first_sn[0] + pos[0] != c->d[0].fpdu_base ||
        first_sn[1] + pos[1] != c->d[1].fpdu_base)
        errors++;
    for (k = 0; k < c->nfpdu; k++) {
        int from = c->fpdu[k].from;
        struct ofl_mpa_fpdu f;
        struct ofl_rdmap_msg m;
        enum ofl_err e;

        /* The receiver of direction `from` is the peer's. */
        e = ofl_mpa_rx_feed(&rx[from], st[from] + pos[from],
                            len[from] - pos[from], &used, &f);
        pos[from] += used;
        if (e != OFL_OK || f.ulpdu == NULL || f.len != c->fpdu[k].len ||
            memcmp(f.ulpdu, c->fpdu[k].ulpdu, f.len) != 0 ||
            ofl_rdmap_parse(f.ulpdu, f.len, &m, NULL) != OFL_OK ||
            m.ddp.opcode != c->fpdu[k].opcode) {
            fprintf(stderr, "ofl-pcap: %s: FPDU %d differs (%s)\n", path, k,
                    ofl_strerror(e));
            errors++;
        }
    }
    if (pos[0] != len[0] || pos[1] != len[1])
        errors++;
    if (errors == 0)
        printf("%s: %d frames, %d FPDUs, markers %s, CRC %s: ok\n", path,
               c->nseg, c->nfpdu, c->markers ? "on" : "off",
               c->markers ? "on" : "off");
    return errors != 0;
}

/* ---- fuzz seeds ---------------------------------------------------------- */

static void put(const char *dir, const char *h, const char *name,
                const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    char path[512];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, h);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", dir, h, name);
    fp = fopen(path, "wb");
    if (fp == NULL)
        die("cannot write a seed");
    fwrite(a, 1, an, fp);
    if (bn)
        fwrite(b, 1, bn, fp);
    fclose(fp);
}

/*
 * Seed formats (see each harness):
 *   mpa_stream:    flags (bit 0 markers, bit 1 CRC), chunk seed, stream
 *   mpa_handshake: role/config byte, RTR byte, IRD, ORD, chunk seed, frame
 *   ddp_rdmap:     one ULPDU
 *   one_touch:     events built from the tagged FPDUs' DDP SNs
 */
static void corpus(const char *dir)
{
    static struct conv c;
    int v, k, from;
    char name[64];

    mkdir(dir, 0755);
    for (v = 0; v < 2; v++) {
        static uint8_t st[2][1 << 16];
        size_t len[2] = {0, 0};
        uint8_t pre[8];
        int i;

        script(&c, v == 0);
        for (i = 0; i < c.nseg; i++) {
            from = c.seg[i].from;
            memcpy(st[from] + len[from], c.seg[i].data, c.seg[i].len);
            len[from] += c.seg[i].len;
        }
        for (from = 0; from < 2; from++) {
            size_t skip = from ? c.rep_len : c.req_len;

            pre[0] = (uint8_t)(v == 0 ? 3 : 0);
            pre[1] = (uint8_t)(17 + 40 * from + v);
            snprintf(name, sizeof(name), "%s-%s", v ? "plain" : "markers-crc",
                     from ? "responder" : "initiator");
            put(dir, "mpa_stream", name, pre, 2, st[from] + skip,
                len[from] - skip);
        }
        /* Handshake: the responder fed the request, the initiator the
         * reply, with the scripted configuration. */
        pre[0] = (uint8_t)((v == 0 ? 0x1E : 0x00)); /* responder */
        pre[1] = 0;
        pre[2] = 8;
        pre[3] = 8;
        pre[4] = 5;
        snprintf(name, sizeof(name), "%s-request", v ? "plain" : "v2");
        put(dir, "mpa_handshake", name, pre, 5, c.req, c.req_len);
        pre[0] |= 0x01; /* initiator */
        snprintf(name, sizeof(name), "%s-reply", v ? "plain" : "v2");
        put(dir, "mpa_handshake", name, pre, 5, c.rep, c.rep_len);
        if (v == 0)
            for (k = 0; k < c.nfpdu; k++) {
                snprintf(name, sizeof(name), "%02d-op%X", k,
                         c.fpdu[k].opcode);
                put(dir, "ddp_rdmap", name, c.fpdu[k].ulpdu, c.fpdu[k].len,
                    NULL, 0);
            }
    }
    /*
     * One touch: the conversation's three tagged segments (the RDMA Write,
     * the Read Response, the Write to the unknown STag) on one-touch regions
     * 0, 1 and 2, as an adapter could see them: the first in order (Table D
     * row 4), the second ahead of a hole (row 5) until the stream lines up
     * with it, the third touched twice (row 3). Format in
     * fuzz/one_touch/fuzz_one_touch.c.
     */
    {
        static const uint8_t ev[] = {
            13, 0x07,          /* window 16 KiB; regions 0-2 one-touch */
            0x01, 0x04, 0x00,  /* region 0, Last, DDP SN = nxt - 1: row 4 */
            0x01, 0x05, 0x05,  /* region 1, Last, 5 units ahead: row 5 */
            0x02, 0x04,        /* stream advances 4 units: not yet */
            0x03,              /* retire: nothing due */
            0x02, 0x02,        /* 2 more units: lined up */
            0x03,              /* retire: region 1 expires */
            0x01, 0x06, 0x03,  /* region 2, Last, ahead: row 5 */
            0x01, 0x06, 0x04,  /* region 2 again: row 3, Terminate */
            0x01, 0x02, 0x10,  /* region 2 not Last: row 1 on a dead entry */
            0x04, 0x02,        /* region 2 registered again */
            0x01, 0x06, 0x7F,  /* far beyond the window: row 6 */
        };

        put(dir, "one_touch", "tagged-segments", ev, sizeof(ev), NULL, 0);
    }
}

int main(int argc, char **argv)
{
    static struct conv c;

    ofl_posix_init(&px);
    if (argc == 2 && strcmp(argv[1], "--demo") == 0) {
        int bad = 0;

        script(&c, true);
        write_pcap(&c, "offload-iwarp-markers-crc.pcap");
        bad |= check_capture("offload-iwarp-markers-crc.pcap", &c);
        script(&c, false);
        write_pcap(&c, "offload-iwarp-plain.pcap");
        bad |= check_capture("offload-iwarp-plain.pcap", &c);
        {
            char cwd[1024];

            if (getcwd(cwd, sizeof(cwd)) != NULL)
                printf("ofl-pcap: wrote %s/offload-iwarp-markers-crc.pcap "
                       "and %s/offload-iwarp-plain.pcap\n", cwd, cwd);
        }
        printf("%s\n", bad ? "ofl-pcap: FAILED (see the lines above)"
                            : "ofl-pcap: ok");
        return bad ? 1 : 0;
    }
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        corpus(argv[2]);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--plain") == 0) {
        script(&c, false);
        write_pcap(&c, argv[2]);
        return check_capture(argv[2], &c);
    }
    if (argc == 2 && argv[1][0] != '-') {
        script(&c, true);
        write_pcap(&c, argv[1]);
        return check_capture(argv[1], &c);
    }
    fprintf(stderr, "usage: ofl-pcap [--plain] OUT.pcap | --demo | "
                    "--corpus DIR\n");
    return 2;
}
