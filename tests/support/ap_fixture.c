/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
#include "ap_fixture.h"

#include <string.h>

const struct ofl_ap_addr apfx_host_a = {{0x02, 0, 0, 0, 0, 0x0A}, 0x000A,
                                        0x0A00000Au};
const struct ofl_ap_addr apfx_host_b = {{0x02, 0, 0, 0, 0, 0x0B}, 0x000B,
                                        0x0A00000Bu};

static int stall_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    struct apfx_stall *s = ctx;

    if (s->refuse_all || (s->limit != 0 && len > s->limit) ||
        (s->refuse_after != 0 && s->nbursts >= s->refuse_after) ||
        (s->refuse_from != 0 && pa + len > s->refuse_from)) {
        s->refused++;
        return -1;
    }
    if (s->nbursts < 256) {
        s->burst_pa[s->nbursts] = pa;
        s->burst_len[s->nbursts] = (uint32_t)len;
    }
    s->nbursts++;
    return s->sim->port.dma_write(s->sim->port.ctx, pa, src, len);
}

static int stall_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    struct apfx_stall *s = ctx;

    if (s->refuse_reads || (s->read_limit != 0 && len > s->read_limit)) {
        s->refused++;
        return -1;
    }
    s->nreads++;
    return s->sim->port.dma_read(s->sim->port.ctx, pa, dst, len);
}

static void stall_notify(void *ctx, uint32_t v)
{
    struct apfx_stall *s = ctx;
    s->sim->port.notify(s->sim->port.ctx, v);
}

int apfx_init(struct apfx *f, const struct ofl_ap_addr *self,
              const struct apfx_opts *o)
{
    static const struct ofl_ap_out_group groups[2] = {
        {APFX_PCI_DATA, 0, 8, 12},
        {APFX_PCI_EVENT, 8, 4, 3},
    };
    struct apfx_opts def;
    struct ofl_ap_nic_config cfg;
    struct ofl_evq_config qc;
    unsigned i;

    if (o == NULL) {
        memset(&def, 0, sizeof(def));
        o = &def;
    }
    memset(f, 0, sizeof(*f));
    f->self = *self;
    ofl_sim_init(&f->sim);
    f->sim.trap_violations = o->trap;
    f->stall.port = f->sim.port;
    f->stall.port.ctx = &f->stall;
    f->stall.port.dma_write = stall_write;
    f->stall.port.dma_read = stall_read;
    f->stall.port.notify = stall_notify;
    f->stall.port.doorbell = NULL;
    f->stall.port.pci_cfg_read = NULL;
    f->stall.port.pci_cfg_write = NULL;
    f->stall.sim = &f->sim;
    if (ofl_sim_allow(&f->sim, f->mem, sizeof(f->mem), OFL_SIM_RW) ||
        ofl_sim_allow(&f->sim, f->ring, sizeof(f->ring), OFL_SIM_RW) ||
        ofl_sim_allow(&f->sim, f->var, sizeof(f->var), OFL_SIM_RW) ||
        ofl_sim_allow(&f->sim, f->ctl, sizeof(f->ctl), OFL_SIM_RW) ||
        ofl_sim_allow(&f->sim, f->os_ring, sizeof(f->os_ring), OFL_SIM_RW) ||
        ofl_sim_allow(&f->sim, f->os_ctl, sizeof(f->os_ctl), OFL_SIM_RW))
        return -1;

    memset(&qc, 0, sizeof(qc));
    qc.port = &f->sim.port;
    qc.ring_pa = ofl_sim_pa(f->os_ring);
    qc.ring_words = APFX_OS_WORDS;
    qc.ctl_pa = ofl_sim_pa(f->os_ctl);
    qc.vector = APFX_VECTOR_OS;
    qc.port_id = 0xFFFF;
    if (ofl_evq_init(&f->osq, &qc) != OFL_OK ||
        ofl_evq_app_init(&f->osapp, f->os_ring, APFX_OS_WORDS, NULL, 0,
                         f->os_ctl, NULL) != OFL_OK)
        return -1;
    for (i = 0; i < APFX_NEVQ; i++) {
        qc.ring_pa = ofl_sim_pa(f->ring[i]);
        qc.ring_words = APFX_RING_WORDS;
        qc.var_pa = ofl_sim_pa(f->var[i]);
        qc.var_words = APFX_VAR_WORDS;
        qc.ctl_pa = ofl_sim_pa(f->ctl[i]);
        qc.vector = 100 + i;
        qc.port_id = (uint16_t)i;
        qc.os = &f->osq;
        if (ofl_evq_init(&f->evq[i], &qc) != OFL_OK ||
            ofl_evq_app_init(&f->app[i], f->ring[i], APFX_RING_WORDS,
                             f->var[i], APFX_VAR_WORDS, f->ctl[i],
                             NULL) != OFL_OK)
            return -1;
    }

    memset(&cfg, 0, sizeof(cfg));
    cfg.port = o->stall ? &f->stall.port : &f->sim.port;
    cfg.self = *self;
    cfg.in = o->in_ext != NULL ? o->in_ext : f->in;
    cfg.in_capacity = o->in_capacity != 0 ? o->in_capacity : APFX_IN;
    cfg.out = f->out;
    cfg.out_capacity = APFX_OUT;
    cfg.groups = groups;
    cfg.ngroups = 2;
    if (o->cache_lines != 0) {
        cfg.in_cache = f->in_cache;
        cfg.in_cache_lines = o->cache_lines;
        cfg.in_cache_ways = o->cache_ways;
        cfg.out_cache = f->out_cache;
        cfg.out_cache_lines = o->cache_lines;
        cfg.out_cache_ways = o->cache_ways;
    }
    cfg.evq = f->evq;
    cfg.nevq = APFX_NEVQ;
    cfg.max_burst = o->max_burst != 0 ? o->max_burst : 256;
    cfg.udp_base = APFX_UDP_BASE;
    return ofl_ap_nic_init(&f->nic, &cfg) == OFL_OK ? 0 : -1;
}

enum ofl_err apfx_in_data(struct apfx *f, uint32_t index, uint32_t off,
                          uint32_t size, const struct ofl_ap_addr *peer,
                          uint32_t nonce, uint32_t seq, bool seq_check)
{
    struct ofl_ap_in_entry v;

    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(f->mem + off);
    v.size = size;
    v.owner = 0;
    v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_NARROW |
                   OFL_AP_IN_STATE | OFL_AP_IN_NOTIFY;
    memcpy(v.src_mac, peer->mac, 6);
    v.src_cluster = peer->cluster;
    v.src_cluster_mask = 0xFFFF;
    v.src_ip = peer->ip;
    v.src_ip_mask = 0xFFFFFFFFu;
    v.checks = OFL_AP_CHECK_ALL;
    v.nonce = nonce;
    v.seq = seq;
    v.flags = seq_check ? OFL_AP_F_SEQ : 0;
    v.state = OFL_AP_OPEN;
    return ofl_ap_in_program(&f->nic, OFL_AP_PRIV_OS, 0, index, &v,
                             OFL_AP_IN_ALL);
}

enum ofl_err apfx_out(struct apfx *f, uint32_t index, uint8_t type,
                      const struct ofl_ap_addr *peer, uint32_t in_index,
                      uint32_t nonce, uint32_t seq, bool seq_check)
{
    struct ofl_ap_out_entry v;

    memset(&v, 0, sizeof(v));
    v.type = type;
    v.size = index < 8 ? 4096 : 8;
    v.owner = 0;
    v.app_fields = OFL_AP_OUT_TYPE | OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE |
                   OFL_AP_OUT_SEQ | OFL_AP_OUT_STATE;
    memcpy(v.dst_mac, peer->mac, 6);
    v.dst_cluster = peer->cluster;
    v.dst_ip = peer->ip;
    v.dst_udp = (uint16_t)(APFX_UDP_BASE + in_index);
    v.dst_in_index = in_index;
    v.nonce = nonce;
    v.seq = seq;
    v.flags = seq_check ? OFL_AP_F_SEQ : 0;
    v.state = OFL_AP_OPEN;
    return ofl_ap_out_program(&f->nic, OFL_AP_PRIV_OS, 0, index, &v,
                              OFL_AP_OUT_ALL);
}

/* RFC 1071, written independently of the core's. */
static uint16_t csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    size_t i;

    for (i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v);
}

size_t apfx_ci(uint8_t *buf, size_t cap, const struct apfx_hdr *h,
               const struct apfx_rec *recs, unsigned n)
{
    static const struct apfx_hdr def = {NULL, NULL, -1, -1, 0, false};
    const struct ofl_ap_addr *dst, *src;
    size_t pos = 22, rlen, end;
    unsigned i;
    uint32_t crc;

    if (h == NULL)
        h = &def;
    dst = h->dst != NULL ? h->dst : &apfx_host_b;
    src = h->src != NULL ? h->src : &apfx_host_a;
    for (i = 0, rlen = 0; i < n; i++)
        rlen += 24 + recs[i].len;
    end = 22 + rlen + 4;
    if (cap < end || cap < 60)
        return 0;
    memset(buf, 0, end < 60 ? 60 : end);
    memcpy(buf, dst->mac, 6);
    memcpy(buf + 6, src->mac, 6);
    put16(buf + 12, OFL_AP_ETHERTYPE_CI);
    buf[14] = (uint8_t)(h->version_byte < 0 ? 0x10 : h->version_byte);
    buf[15] = (uint8_t)(h->count < 0 ? (int)n : h->count);
    put16(buf + 16, dst->cluster);
    put16(buf + 18, src->cluster);
    put16(buf + 20, (uint32_t)((int)rlen + h->rlen_delta));
    for (i = 0; i < n; i++) {
        uint8_t *r = buf + pos;

        r[0] = recs[i].kind ? recs[i].kind : OFL_AP_REC_DATA;
        r[1] = recs[i].flags;
        put16(r + 2, recs[i].len);
        put32(r + 4, recs[i].in_index);
        put32(r + 8, recs[i].nonce);
        put32(r + 12, recs[i].seq);
        put32(r + 16, recs[i].offset);
        put16(r + 22, recs[i].reserved);
        put16(r + 20, csum(r, 24) ^ (recs[i].bad_csum ? 0x5A5A : 0));
        if (recs[i].len != 0)
            memcpy(r + 24, recs[i].data, recs[i].len);
        pos += 24 + recs[i].len;
    }
    crc = ofl_crc32c(buf + 14, 8 + rlen) ^ (h->bad_crc ? 1u : 0u);
    put32(buf + pos, crc);
    return end < 60 ? 60 : end;
}
