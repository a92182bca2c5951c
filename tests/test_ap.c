/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* ap: apertures, nonces, CI frames, the cache, connections, event queues. */
#include "test.h"
#include "support/ap_fixture.h"

static struct apfx fa, fb; /* host A sends, host B receives */

/*
 * The event queue's control block, its events and its variable records are
 * little-endian (offload.h, "dual event queues"): the other side reads and
 * writes them as bytes in that order, never as host words, so that the
 * suite means the same on either byte order.
 */
static void set_le(uint32_t *word, uint32_t v)
{
    ofl_store_le32((uint8_t *)word, v);
}

static uint32_t ctl_get(const uint32_t *ctl, uint32_t off)
{
    return ofl_load_le32((const uint8_t *)ctl + off);
}

static void ctl_set(uint32_t *ctl, uint32_t off, uint32_t v)
{
    ofl_store_le32((uint8_t *)ctl + off, v);
}

static void two_hosts(const struct apfx_opts *oa, const struct apfx_opts *ob)
{
    CHECK(apfx_init(&fa, &apfx_host_a, oa) == 0);
    CHECK(apfx_init(&fb, &apfx_host_b, ob) == 0);
}

/* ---- init and layout ----------------------------------------------------- */

static void test_nic_init(void)
{
    static struct ofl_ap_in_entry in[4];
    static struct ofl_ap_out_entry out[8];
    static struct ofl_ap_cache_line lines[8];
    struct ofl_ap_out_group g[2] = {{0x1000, 0, 4, 12}, {0x10000, 4, 4, 3}};
    static struct ofl_ap_nic nic;
    static struct ofl_sim sim;
    struct ofl_ap_nic_config cfg;
    struct ofl_port bad;

    ofl_sim_init(&sim);
    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &sim.port;
    cfg.in = in;
    cfg.in_capacity = 4;
    cfg.out = out;
    cfg.out_capacity = 8;
    cfg.groups = g;
    cfg.ngroups = 2;
    cfg.max_burst = 64;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_EQ(out[0].pci_base, 0x1000);
    CHECK_EQ(out[3].pci_base, 0x4000);
    CHECK_EQ(out[5].pci_base, 0x10008);
    CHECK_ERR(ofl_ap_nic_init(NULL, &cfg), OFL_E_ARG);
    CHECK_ERR(ofl_ap_nic_init(&nic, NULL), OFL_E_ARG);
    bad = sim.port;
    bad.version = 0;
    cfg.port = &bad;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_PORT_VERSION);
    cfg.port = &sim.port;
    cfg.in_capacity = 0;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_capacity = 4;
    cfg.max_burst = 48; /* not a power of two */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.max_burst = 2; /* below one dword */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.max_burst = 8192; /* crosses 4 KiB */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.max_burst = 64;
    /* Groups: overlap in PCI space, overlap in index space, misaligned,
     * beyond the table, bad shift, wrap. */
    g[1].pci_base = 0x3000;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].pci_base = 0x10000;
    g[1].first = 3;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].first = 4;
    g[0].pci_base = 0x1800;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[0].pci_base = 0x1000;
    g[1].count = 5;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].count = 4;
    g[1].size_shift = 2;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].size_shift = 31;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].size_shift = 3;
    g[1].pci_base = 0xFFFFFFFFFFFFFFF8ull; /* 4 x 8 bytes would wrap */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[1].pci_base = 0x10000;
    cfg.ngroups = OFL_AP_MAX_GROUPS + 1;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.ngroups = 2;
    /* Cache geometry: lines = sets * ways, both powers of two. */
    cfg.in_cache = lines;
    cfg.in_cache_lines = 8;
    cfg.in_cache_ways = 2;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_EQ(nic.in_cache.sets, 4);
    cfg.in_cache_ways = 3;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache_ways = 16;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache_lines = 6;
    cfg.in_cache_ways = 2;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache = NULL; /* lines without an array */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
}

static void test_decode(void)
{
    uint32_t idx, off;

    two_hosts(NULL, NULL);
    CHECK_OK(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA, &idx, &off));
    CHECK_EQ(idx, 0);
    CHECK_EQ(off, 0);
    CHECK_OK(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA + 3 * 4096 + 0x123,
                               &idx, &off));
    CHECK_EQ(idx, 3);
    CHECK_EQ(off, 0x123);
    CHECK_OK(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA + 8 * 4096 - 1, &idx,
                               &off));
    CHECK_EQ(idx, 7);
    CHECK_EQ(off, 4095);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA + 8 * 4096, &idx,
                                &off),
              OFL_E_AP_NO_APERTURE);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA - 1, &idx, &off),
              OFL_E_AP_NO_APERTURE);
    CHECK_OK(ofl_ap_out_decode(&fa.nic, APFX_PCI_EVENT + 2 * 8 + 5, &idx,
                               &off));
    CHECK_EQ(idx, 10);
    CHECK_EQ(off, 5);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, APFX_PCI_EVENT + 32, &idx, &off),
              OFL_E_AP_NO_APERTURE);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, 0, &idx, &off), OFL_E_AP_NO_APERTURE);
    CHECK_ERR(ofl_ap_out_decode(NULL, 0, &idx, &off), OFL_E_ARG);
}

/* ---- privilege split and validation ------------------------------------------ */

static void test_privilege(void)
{
    struct ofl_ap_in_entry v, q;
    struct ofl_ap_out_entry ov, oq;
    struct ofl_ap_addr evil = apfx_host_b;

    two_hosts(NULL, NULL);
    memset(&v, 0, sizeof(v));
    /* An application cannot create an aperture (FREE has no owner). */
    v.nonce = 1;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 3, &v,
                                OFL_AP_IN_NONCE),
              OFL_E_AP_NOT_OWNER);
    /* The OS creates it for port 1 with the default grant (nonce only). */
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(fb.mem);
    v.size = 256;
    v.owner = 1;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                               OFL_AP_IN_MAP | OFL_AP_IN_OWNER));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 3, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED);
    CHECK_EQ(q.app_fields, 0); /* OWNER given: its app_fields (0) */
    v.app_fields = OFL_AP_IN_APP_DEFAULT;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                               OFL_AP_IN_OWNER));
    /* Owner programs the nonce; another port may not. */
    v.nonce = 0x1234;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                               OFL_AP_IN_NONCE));
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 3, &v,
                                OFL_AP_IN_NONCE),
              OFL_E_AP_NOT_OWNER);
    /* OS-only fields: base address, source host, owner. */
    v.base = ofl_sim_pa(fb.mem + 4096);
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                                OFL_AP_IN_SOURCE),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                                OFL_AP_IN_OWNER),
              OFL_E_AP_PRIVILEGE);
    /* Not granted: state. Mixed with a granted group: all refused. */
    v.state = OFL_AP_OPEN;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                                OFL_AP_IN_STATE | OFL_AP_IN_NONCE),
              OFL_E_AP_PRIVILEGE);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 3, &q));
    CHECK_EQ(q.base, ofl_sim_pa(fb.mem)); /* unchanged */
    CHECK_EQ(q.state, OFL_AP_CLOSED);
    CHECK_EQ(q.nonce, 0x1234);
    /* The OS cannot grant an OS-only group. */
    v.app_fields = OFL_AP_IN_MAP;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                                OFL_AP_IN_OWNER),
              OFL_E_AP_CONFIG);
    v.app_fields = OFL_AP_IN_SOURCE;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                                OFL_AP_IN_OWNER),
              OFL_E_AP_CONFIG);
    /* Granting STATE lets the owner open it. */
    v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_STATE;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                               OFL_AP_IN_OWNER));
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 1, 3, &v,
                               OFL_AP_IN_STATE));
    CHECK_OK(ofl_ap_in_allowed(&fb.nic, OFL_AP_PRIV_APP, 1, 3,
                               OFL_AP_IN_STATE));
    CHECK_ERR(ofl_ap_in_allowed(&fb.nic, OFL_AP_PRIV_APP, 1, 3,
                                OFL_AP_IN_SEQ),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_in_allowed(&fb.nic, (enum ofl_ap_priv)9, 1, 3,
                                OFL_AP_IN_SEQ),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_allowed(&fb.nic, OFL_AP_PRIV_OS, 1, 3, 0x100),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_allowed(&fb.nic, OFL_AP_PRIV_OS, 1, APFX_IN, 1),
              OFL_E_ARG);
    /* Clear and own addresses: OS only. */
    CHECK_ERR(ofl_ap_in_clear(&fb.nic, OFL_AP_PRIV_APP, 3), OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_out_clear(&fb.nic, OFL_AP_PRIV_APP, 3),
              OFL_E_AP_PRIVILEGE);
    evil.ip = 0x01020304;
    CHECK_ERR(ofl_ap_set_self(&fb.nic, OFL_AP_PRIV_APP, &evil),
              OFL_E_AP_PRIVILEGE);
    CHECK_EQ(fb.nic.self.ip, apfx_host_b.ip);
    CHECK_OK(ofl_ap_set_self(&fb.nic, OFL_AP_PRIV_OS, &evil));
    CHECK_EQ(fb.nic.self.ip, 0x01020304);
    CHECK_OK(ofl_ap_in_clear(&fb.nic, OFL_AP_PRIV_OS, 3));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 3, &q));
    CHECK_EQ(q.state, OFL_AP_FREE);

    /* Outgoing: default grant is destination host and nonce. */
    memset(&ov, 0, sizeof(ov));
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.owner = 1;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &ov,
                                OFL_AP_OUT_TYPE | OFL_AP_OUT_OWNER));
    ov.app_fields = OFL_AP_OUT_APP_DEFAULT;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &ov,
                                OFL_AP_OUT_OWNER));
    CHECK_OK(ofl_ap_out_query(&fa.nic, 2, &oq));
    CHECK_EQ(oq.size, 4096); /* the slot, by default */
    ov.dst_in_index = 5;
    ov.nonce = 77;
    ov.dst_cluster = 0xB;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 1, 2, &ov,
                                OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE));
    ov.size = 64;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 1, 2, &ov,
                                 OFL_AP_OUT_SIZE),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 1, 2, &ov,
                                 OFL_AP_OUT_TYPE),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 2, 2, &ov,
                                 OFL_AP_OUT_NONCE),
              OFL_E_AP_NOT_OWNER);
    CHECK_ERR(ofl_ap_out_allowed(&fa.nic, OFL_AP_PRIV_APP, 1, 2,
                                 OFL_AP_OUT_STATE),
              OFL_E_AP_PRIVILEGE);
    ov.app_fields = OFL_AP_OUT_SIZE;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &ov,
                                 OFL_AP_OUT_OWNER),
              OFL_E_AP_CONFIG);
    CHECK_OK(ofl_ap_out_query(&fa.nic, 2, &oq));
    CHECK_EQ(oq.dst_in_index, 5);
    CHECK_EQ(oq.nonce, 77);
    CHECK_EQ(oq.size, 4096);
    CHECK_EQ(oq.owner, 1);
}

static void test_config_validation(void)
{
    struct ofl_ap_in_entry v, q;
    struct ofl_ap_out_entry ov;

    two_hosts(NULL, NULL);
    CHECK_OK(apfx_in_data(&fb, 1, 0, 256, &apfx_host_a, 1, 0, false));
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(fb.mem);
    v.size = 0;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.size = OFL_AP_SIZE_MAX + 1;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.size = 0x1000;
    v.base = 0xFFFFFFFFFFFFF800ull; /* base + size wraps */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.base = ofl_sim_pa(fb.mem);
    v.type = 9;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.type = OFL_AP_TYPE_CI_EVENT;
    v.size = 9; /* events carry at most 8 bytes */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.size = 8;
    v.evq = APFX_NEVQ; /* no such queue */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.evq = 1;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                               OFL_AP_IN_MAP));
    /* IP: index must map to a UDP port. */
    v.type = OFL_AP_TYPE_IP;
    v.size = 70000;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    CHECK_OK(apfx_in_data(&fb, 1, 0, 256, &apfx_host_a, 1, 0, false));
    /* Narrowing inside the extent only. */
    v.narrow_off = 200;
    v.narrow_len = 57;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                                OFL_AP_IN_NARROW),
              OFL_E_AP_CONFIG);
    v.narrow_off = 257;
    v.narrow_len = 0;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                                OFL_AP_IN_NARROW),
              OFL_E_AP_CONFIG);
    v.narrow_off = 0xFFFFFFF0u;
    v.narrow_len = 0x20;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                                OFL_AP_IN_NARROW),
              OFL_E_AP_CONFIG);
    v.narrow_off = 200;
    v.narrow_len = 56;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                               OFL_AP_IN_NARROW));
    v.state = OFL_AP_FREE; /* an application cannot free it */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_CONFIG);
    v.checks = 0x80;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_SOURCE),
              OFL_E_AP_CONFIG);
    v.flags = OFL_AP_F_NOTIFY | 0x40;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 1, &v,
                               OFL_AP_IN_NOTIFY)); /* only the bit is taken */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, NULL,
                                OFL_AP_IN_NONCE),
              OFL_E_ARG);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 1, &q));
    CHECK_EQ(q.narrow_off, 200);
    CHECK_EQ(q.flags, OFL_AP_F_NOTIFY);
    CHECK_EQ(q.type, OFL_AP_TYPE_CI_DATA);

    memset(&ov, 0, sizeof(ov));
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.size = 4097; /* larger than the 4 KiB slot */
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_TYPE | OFL_AP_OUT_SIZE),
              OFL_E_AP_CONFIG);
    ov.size = 0;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_TYPE | OFL_AP_OUT_SIZE),
              OFL_E_AP_CONFIG);
    ov.type = OFL_AP_TYPE_CI_EVENT;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_TYPE),
              OFL_E_AP_CONFIG); /* slot default 4096 > 8 */
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 9, &ov,
                                OFL_AP_OUT_TYPE));
    ov.type = 0;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_TYPE),
              OFL_E_AP_CONFIG);
    ov.type = OFL_AP_TYPE_CI_DATA;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 12, &ov,
                                 OFL_AP_OUT_TYPE),
              OFL_E_AP_CONFIG); /* index in no group */
    ov.flags = 0x80;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                OFL_AP_OUT_TYPE | OFL_AP_OUT_SEQ));
    /* only OFL_AP_F_SEQ is taken; created without OWNER: the OS's own */
    CHECK_EQ(fa.out[1].flags, OFL_AP_F_OS_OWN);
}

/* ---- the outgoing path --------------------------------------------------------- */

#define NONCE_B 0xB0B0B0B0u
#define SEQ_B 100u

/* B's incoming aperture 2 over mem[0, 1024); A's outgoing aperture 0
 * points at it. */
static void pair(const struct apfx_opts *oa, const struct apfx_opts *ob)
{
    two_hosts(oa, ob);
    CHECK_OK(apfx_in_data(&fb, 2, 0, 1024, &apfx_host_a, NONCE_B, SEQ_B, true));
    CHECK_OK(apfx_out(&fa, 0, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, NONCE_B,
                      SEQ_B, true));
}

static uint32_t in_seq(struct apfx *f, uint32_t i)
{
    struct ofl_ap_in_entry q;

    ofl_ap_in_query(&f->nic, i, &q);
    return q.seq;
}

static uint32_t out_seq(struct apfx *f, uint32_t i)
{
    struct ofl_ap_out_entry q;

    ofl_ap_out_query(&f->nic, i, &q);
    return q.seq;
}

static void test_tx_layout(void)
{
    uint8_t buf[256], b4[4] = {1, 2, 3, 4};
    struct ofl_ap_tx_frame f;
    size_t len;
    uint16_t rlen;

    pair(NULL, NULL);
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 0x123, b4, 4));
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_EQ(len, 60); /* 14 + 8 + 24 + 4 + 4 = 54, padded */
    /* Every field where the header's table puts it. */
    CHECK(memcmp(buf, apfx_host_b.mac, 6) == 0);
    CHECK(memcmp(buf + 6, apfx_host_a.mac, 6) == 0);
    CHECK_EQ(ofl_load_be16(buf + 12), 0x88B5);
    CHECK_EQ(buf[14], 0x10);
    CHECK_EQ(buf[15], 1);
    CHECK_EQ(ofl_load_be16(buf + 16), apfx_host_b.cluster);
    CHECK_EQ(ofl_load_be16(buf + 18), apfx_host_a.cluster);
    rlen = ofl_load_be16(buf + 20);
    CHECK_EQ(rlen, 28);
    CHECK_EQ(buf[22], OFL_AP_REC_DATA);
    CHECK_EQ(buf[23], OFL_AP_REC_F_SEQ);
    CHECK_EQ(ofl_load_be16(buf + 24), 4);
    CHECK_EQ(ofl_load_be32(buf + 26), 2);
    CHECK_EQ(ofl_load_be32(buf + 30), NONCE_B);
    CHECK_EQ(ofl_load_be32(buf + 34), SEQ_B);
    CHECK_EQ(ofl_load_be32(buf + 38), 0x123);
    CHECK_EQ(ofl_load_be16(buf + 44), 0);
    CHECK(memcmp(buf + 46, b4, 4) == 0);
    CHECK_EQ(ofl_load_be32(buf + 50), ofl_crc32c(buf + 14, 8 + rlen));
    CHECK_EQ(buf[54] | buf[59], 0); /* padding */
    CHECK_EQ(out_seq(&fa, 0), SEQ_B + 1); /* FIG. 12 step 8 */
    CHECK_EQ(fa.nic.stats.tx_records, 1);
    CHECK_EQ(fa.nic.stats.tx_frames, 1);
}

static void test_tx_rx_pack(void)
{
    static uint8_t buf[2048], big[300];
    struct ofl_ap_tx_frame f;
    struct ofl_ap_rx_result res;
    size_t len, before;
    unsigned i;

    pair(NULL, NULL);
    for (i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 7);
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 0x10, "hello", 5));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 0x100, big, 300));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 0x20, "abc", 3));
    CHECK_EQ(f.records, 3);
    /* Another host cannot join the frame. */
    CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_CI_DATA, &apfx_host_a, 2, 1, 0,
                      false));
    before = f.len;
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "x", 1),
              OFL_E_AP_PACK);
    CHECK_EQ(f.len, before);
    {
        struct ofl_ap_addr twin = apfx_host_b; /* same cluster, other MAC */

        twin.mac[5] = 0x0C;
        CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_CI_DATA, &twin, 2, 1, 0, false));
        CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "x", 1),
                  OFL_E_AP_PACK);
    }
    CHECK_EQ(out_seq(&fa, 0), SEQ_B + 3);
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1),
              OFL_E_AP_PACK); /* finished */
    CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, &res));
    CHECK_EQ(res.records, 3);
    CHECK_EQ(res.applied, 3);
    CHECK(memcmp(fb.mem + 0x10, "hello", 5) == 0);
    CHECK(memcmp(fb.mem + 0x100, big, 300) == 0);
    CHECK(memcmp(fb.mem + 0x20, "abc", 3) == 0);
    CHECK_EQ(res.pci_addr, ofl_sim_pa(fb.mem + 0x20));
    CHECK_EQ(in_seq(&fb, 2), SEQ_B + 3);
    CHECK_EQ(fb.nic.stats.rx_records, 3);
    CHECK_EQ(fb.nic.stats.rx_frames, 1);
    CHECK_EQ(fb.nic.stats.rx_bytes, 308);
    /* Replaying the frame: every sequence number is old now. */
    CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, &res), OFL_E_AP_SEQ);
    CHECK_EQ(res.applied, 0);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, OFL_E_AP_SEQ), 1);

    /* At most OFL_AP_CI_MAX_RECORDS records, and no more than fits. */
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    for (i = 0; i < OFL_AP_CI_MAX_RECORDS; i++)
        CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + i, "r", 1));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "r", 1),
              OFL_E_AP_PACK);
    ofl_ap_tx_begin(&f, buf, 100);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 50)); /* 100 */
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 1),
              OFL_E_AP_PACK);
    ofl_ap_tx_begin(&f, buf, 59); /* below the Ethernet minimum */
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 1), OFL_E_SIZE);
    ofl_ap_tx_begin(&f, buf, 100);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 51), OFL_E_SIZE);
    CHECK_ERR(ofl_ap_tx_finish(&fa.nic, &f, &len), OFL_E_ARG); /* empty */
}

static void test_tx_checks(void)
{
    static uint8_t buf[512], big[OFL_AP_MAX_WRITE + 1];
    struct ofl_ap_tx_frame f;
    struct ofl_ap_out_entry v;
    uint32_t seq;

    pair(NULL, NULL);
    memset(big, 0, sizeof(big));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    seq = out_seq(&fa, 0);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4090, big, 7),
              OFL_E_AP_EXTENT);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4090, big, 6));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 0), OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big,
                              OFL_AP_MAX_WRITE + 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, 0x1000, big, 1),
              OFL_E_AP_NO_APERTURE);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096 * 5, big, 1),
              OFL_E_AP_CLOSED); /* FREE */
    /* The explicit size field: 64 bytes of the 4 KiB slot. */
    memset(&v, 0, sizeof(v));
    v.size = 64;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 0, &v,
                                OFL_AP_OUT_SIZE));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 60, big, 5),
              OFL_E_AP_EXTENT);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 60, big, 4));
    v.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 0, 0, &v,
                                OFL_AP_OUT_STATE));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, big, 1),
              OFL_E_AP_CLOSED);
    CHECK_EQ(out_seq(&fa, 0), seq + 2); /* only the two that went in */
}

/* ---- the incoming checks ------------------------------------------------------- */

static uint8_t snap[2048];

/* Runs a crafted frame that must be rejected with want: counter +1,
 * memory and the aperture's sequence number untouched. */
static void reject(const char *name, const uint8_t *frame, size_t len,
                   enum ofl_err want)
{
    uint32_t before = ofl_ap_rejected(&fb.nic.stats, want);
    uint32_t seq = in_seq(&fb, 2);
    enum ofl_err got;

    memcpy(snap, fb.mem, sizeof(snap));
    got = ofl_ap_rx(&fb.nic, frame, len, NULL);
    if (got != want)
        printf("case %s: %s, want %s\n", name, ofl_strerror(got),
               ofl_strerror(want));
    CHECK_ERR(got, want);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, want), before + 1);
    CHECK(memcmp(snap, fb.mem, sizeof(snap)) == 0);
    CHECK_EQ(in_seq(&fb, 2), seq);
}

static struct apfx_rec good_rec(void)
{
    struct apfx_rec r;

    memset(&r, 0, sizeof(r));
    r.data = "ABCD";
    r.len = 4;
    r.in_index = 2;
    r.nonce = NONCE_B;
    r.seq = SEQ_B;
    r.flags = OFL_AP_REC_F_SEQ;
    r.offset = 8;
    return r;
}

static void test_rx_checks(void)
{
    static uint8_t fr[OFL_AP_MAX_WRITE + 200], big[OFL_AP_MAX_WRITE + 1];
    struct apfx_hdr h = {NULL, NULL, -1, -1, 0, false};
    struct ofl_ap_addr other;
    struct apfx_rec r, rr[2];
    struct ofl_ap_in_entry v;
    size_t n;

    pair(NULL, NULL);
    r = good_rec();
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem + 8, "ABCD", 4) == 0);
    r.seq = SEQ_B + 1;

    /* Frame level. */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    fr[13] = 0xDD; /* EtherType 0x88DD */
    reject("ethertype", fr, n, OFL_E_AP_NOT_CI);
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("no ethernet header", fr, 13, OFL_E_AP_TRUNCATED);
    reject("no CI header", fr, 14 + 11, OFL_E_AP_TRUNCATED);
    reject("cut record", fr, 14 + 8 + 20, OFL_E_AP_TRUNCATED);
    h.rlen_delta = 30;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("records length beyond frame", fr, n, OFL_E_AP_TRUNCATED);
    h.rlen_delta = -1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("records length short", fr, n, OFL_E_AP_MALFORMED);
    h.rlen_delta = 4; /* bytes after the last record, inside the frame */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("records length long", fr, n, OFL_E_AP_MALFORMED);
    h.rlen_delta = 0;
    h.version_byte = 0x20;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("version 2", fr, n, OFL_E_AP_VERSION);
    h.version_byte = 0x11;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("reserved nibble", fr, n, OFL_E_AP_MALFORMED);
    h.version_byte = -1;
    h.count = 0;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("count 0", fr, n, OFL_E_AP_MALFORMED);
    h.count = 2;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("count beyond records", fr, n, OFL_E_AP_MALFORMED);
    h.count = 17;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("count 17", fr, n, OFL_E_AP_MALFORMED);
    h.count = -1;
    r.kind = 3;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("kind 3", fr, n, OFL_E_AP_MALFORMED);
    r.kind = 0;
    r.flags = 0x81;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("record flags", fr, n, OFL_E_AP_MALFORMED);
    r.flags = OFL_AP_REC_F_SEQ;
    r.reserved = 1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("record reserved", fr, n, OFL_E_AP_MALFORMED);
    r.reserved = 0;
    memset(big, 'z', sizeof(big));
    r.data = big;
    r.len = OFL_AP_MAX_WRITE + 1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("payload over 4096", fr, n, OFL_E_AP_MALFORMED);
    r = good_rec();
    r.seq = SEQ_B + 1;
    r.bad_csum = true;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("header checksum", fr, n, OFL_E_AP_HDR_CHECKSUM);
    r.bad_csum = false;
    h.bad_crc = true;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("crc", fr, n, OFL_E_AP_CRC);
    h.bad_crc = false;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    fr[14 + 8 + 24] ^= 1; /* a payload bit */
    reject("payload corrupted", fr, n, OFL_E_AP_CRC);
    h.dst = &apfx_host_a;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("other MAC and cluster", fr, n, OFL_E_AP_NOT_FOR_US);
    other = apfx_host_b;
    other.cluster = 0x0C;
    h.dst = &other;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("other cluster", fr, n, OFL_E_AP_NOT_FOR_US);
    h.dst = NULL;

    /* Record level. */
    r.in_index = APFX_IN;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("index beyond", fr, n, OFL_E_AP_INDEX);
    r.in_index = 0xFFFFFFFFu;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("index ~0", fr, n, OFL_E_AP_INDEX);
    r.in_index = 5; /* FREE */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(a) free", fr, n, OFL_E_AP_INVALID);
    r.in_index = 2;
    r.kind = OFL_AP_REC_EVENT;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("event into data aperture", fr, n, OFL_E_AP_TYPE);
    r.kind = 0;
    r.nonce = NONCE_B + 1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(c) nonce", fr, n, OFL_E_AP_NONCE);
    r.seq = 7; /* identity runs before (b) */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(c) before (b)", fr, n, OFL_E_AP_NONCE);
    r.seq = SEQ_B + 1;
    r.nonce = NONCE_B;
    other = apfx_host_a;
    other.mac[5] = 0x66;
    h.src = &other;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(d) source MAC", fr, n, OFL_E_AP_SRC_MAC);
    other = apfx_host_a;
    other.cluster = 0x010A;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(e) source cluster", fr, n, OFL_E_AP_SRC_ADDR);
    h.src = NULL;
    r.seq = SEQ_B + 2;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(b) ahead", fr, n, OFL_E_AP_SEQ);
    r.seq = SEQ_B;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(b) replay", fr, n, OFL_E_AP_SEQ);
    r.seq = SEQ_B + 1;
    r.flags = 0;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(b) without a sequence number", fr, n, OFL_E_AP_SEQ);
    r.flags = OFL_AP_REC_F_SEQ;
    r.offset = 1021;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("extent end", fr, n, OFL_E_AP_EXTENT);
    r.offset = 0xFFFFFFFEu;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("extent wrap", fr, n, OFL_E_AP_EXTENT);
    r.offset = 1025;
    r.len = 0;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("extent empty beyond", fr, n, OFL_E_AP_EXTENT);
    r = good_rec();
    r.seq = SEQ_B + 1;
    r.offset = 1020; /* the last four bytes: inside */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem + 1020, "ABCD", 4) == 0);
    CHECK(fb.mem[1024] == 0);

    /* Narrowing to [100, 200). */
    memset(&v, 0, sizeof(v));
    v.narrow_off = 100;
    v.narrow_len = 100;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 2, &v,
                               OFL_AP_IN_NARROW));
    r.seq = SEQ_B + 2;
    r.offset = 98;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("narrow below", fr, n, OFL_E_AP_NARROW);
    r.offset = 197;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("narrow above", fr, n, OFL_E_AP_NARROW);
    r.offset = 300;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("narrow beyond", fr, n, OFL_E_AP_NARROW);
    r.offset = 196;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    r.seq = SEQ_B + 3;
    r.offset = 100;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));

    /* (a) closed. */
    v.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 2, &v,
                               OFL_AP_IN_STATE));
    r.seq = SEQ_B + 4;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    reject("(a) closed", fr, n, OFL_E_AP_INVALID);
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 2, &v,
                               OFL_AP_IN_STATE));

    /* A packed frame whose second record fails: the first stays. */
    rr[0] = r;
    rr[1] = r;
    rr[1].seq = SEQ_B + 5;
    rr[1].nonce = 1;
    rr[1].offset = 150;
    rr[1].data = "WXYZ";
    n = apfx_ci(fr, sizeof(fr), &h, rr, 2);
    {
        struct ofl_ap_rx_result res;

        memset(fb.mem + 150, 0, 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, &res), OFL_E_AP_NONCE);
        CHECK_EQ(res.records, 2);
        CHECK_EQ(res.applied, 1);
        CHECK_EQ(fb.mem[150], 0);
        CHECK_EQ(in_seq(&fb, 2), SEQ_B + 5);
    }
    CHECK_EQ(fb.sim.violations, 0);
}

/* The checks the OS leaves off do not run; masks match ranges. */
static void test_rx_check_selection(void)
{
    uint8_t fr[256];
    struct apfx_hdr h = {NULL, NULL, -1, -1, 0, false};
    struct ofl_ap_addr other = apfx_host_a;
    struct ofl_ap_in_entry v;
    struct apfx_rec r;
    size_t n;

    pair(NULL, NULL);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &v));
    v.checks = 0;
    v.flags = 0;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_SOURCE | OFL_AP_IN_SEQ));
    r = good_rec();
    r.nonce = 99;
    r.seq = 12345;
    other.mac[0] = 0x06;
    other.cluster = 0x7777;
    h.src = &other;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    /* (e) with a netmask: the cluster's low byte may vary. */
    v.checks = OFL_AP_CHECK_SRC_ADDR;
    v.src_cluster = 0x0100;
    v.src_cluster_mask = 0xFF00;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_SOURCE));
    other.cluster = 0x01AB;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    other.cluster = 0x02AB;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_SRC_ADDR);
    CHECK_ERR(ofl_ap_rx(NULL, fr, n, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_rx(&fb.nic, NULL, 5, NULL), OFL_E_ARG);
}

/* ---- PCI writes: bursts and stalls ------------------------------------------------ */

static size_t one_write(uint8_t *fr, size_t cap, uint32_t seq, uint32_t off,
                        const void *data, uint16_t len)
{
    struct apfx_rec r = good_rec();

    r.seq = seq;
    r.offset = off;
    r.data = data;
    r.len = len;
    return apfx_ci(fr, cap, NULL, &r, 1);
}

static void test_bursts(void)
{
    static uint8_t fr[1200], data[1000];
    struct apfx_opts o;
    uint64_t base;
    size_t n;
    unsigned i;
    uint32_t total = 0;

    memset(&o, 0, sizeof(o));
    o.max_burst = 64;
    o.stall = true;
    pair(NULL, &o);
    base = ofl_sim_pa(fb.mem);
    for (i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i ^ 0x5A);
    /* 200 bytes at offset 60: 4 to the boundary, 64, 64, 64, 4. */
    n = one_write(fr, sizeof(fr), SEQ_B, 60, data, 200);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem + 60, data, 200) == 0);
    CHECK_EQ(fb.stall.nbursts, 5);
    CHECK_EQ(fb.stall.burst_len[0], 4);
    CHECK_EQ(fb.stall.burst_len[1], 64);
    CHECK_EQ(fb.stall.burst_len[4], 4);
    for (i = 0; i < fb.stall.nbursts; i++) {
        uint64_t a = fb.stall.burst_pa[i] - base;

        /* Never across a max_burst boundary, always inside the aperture. */
        CHECK((a & 63) + fb.stall.burst_len[i] <= 64);
        CHECK(a + fb.stall.burst_len[i] <= 1024);
        total += fb.stall.burst_len[i];
    }
    CHECK_EQ(total, 200);
    CHECK_EQ(fb.nic.stats.bursts, 5);
    CHECK_EQ(fb.nic.stats.stall_splits, 0);

    /* A bus that stalls on anything over 16 bytes: 64 -> 32 -> 16. */
    fb.stall.nbursts = 0;
    fb.stall.limit = 16;
    memset(fb.mem, 0, 1024);
    n = one_write(fr, sizeof(fr), SEQ_B + 1, 0, data, 128);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem, data, 128) == 0);
    CHECK_EQ(fb.stall.nbursts, 8);
    for (i = 0; i < 8; i++) {
        CHECK_EQ(fb.stall.burst_pa[i], base + 16 * i); /* base+offset+N */
        CHECK_EQ(fb.stall.burst_len[i], 16);
    }
    CHECK_EQ(fb.stall.refused, 2); /* 64 and 32, then 16 sticks */
    CHECK(fb.nic.stats.stall_splits > 0);
    CHECK_EQ(in_seq(&fb, 2), SEQ_B + 2);

    /* Odd lengths split down to the minimum burst. */
    fb.stall.limit = 4;
    n = one_write(fr, sizeof(fr), SEQ_B + 2, 1, data, 13);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem + 1, data, 13) == 0);

    /* A bus that refuses everything: the record fails, the aperture does
     * not move. */
    fb.stall.limit = 0;
    fb.stall.refuse_all = true;
    n = one_write(fr, sizeof(fr), SEQ_B + 3, 0, data, 100);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_DMA);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, OFL_E_AP_DMA), 1);
    CHECK_EQ(in_seq(&fb, 2), SEQ_B + 3);
    /* Once the bus is back the same record goes through. */
    fb.stall.refuse_all = false;
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK_EQ(fb.sim.violations, 0);

    /* One injected DMA failure in the sim acts as a stall. */
    pair(NULL, NULL);
    fb.sim.fail_dma_countdown = 1;
    n = one_write(fr, sizeof(fr), SEQ_B, 0, data, 64);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem, data, 64) == 0);
    CHECK_EQ(fb.nic.stats.stall_splits, 1);
    CHECK_EQ(fb.nic.stats.bursts, 2);
}

/* ---- nonce rotation ------------------------------------------------------------------ */

static void test_nonce_rotation(void)
{
    uint8_t fr[8][128];
    size_t len[8];
    struct ofl_ap_tx_frame f;
    struct ofl_ap_in_entry v;
    struct ofl_ap_out_entry ov, oq;
    unsigned i;

    pair(NULL, NULL);
    /* Both ends: +3 after every 2 records. */
    memset(&v, 0, sizeof(v));
    v.nonce = NONCE_B;
    v.nonce_step = 3;
    v.nonce_every = 2;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 2, &v,
                               OFL_AP_IN_NONCE));
    memset(&ov, 0, sizeof(ov));
    ov.nonce = NONCE_B;
    ov.nonce_step = 3;
    ov.nonce_every = 2;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 0, 0, &ov,
                                OFL_AP_OUT_NONCE));
    for (i = 0; i < 6; i++) {
        ofl_ap_tx_begin(&f, fr[i], sizeof(fr[i]));
        CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + i, "n", 1));
        CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len[i]));
        /* The nonce carried: NONCE_B, NONCE_B, +3, +3, +6, +6. */
        CHECK_EQ(ofl_load_be32(fr[i] + 30), NONCE_B + 3 * (i / 2));
    }
    CHECK_OK(ofl_ap_out_query(&fa.nic, 0, &oq));
    CHECK_EQ(oq.nonce, NONCE_B + 9);
    for (i = 0; i < 6; i++)
        CHECK_OK(ofl_ap_rx(&fb.nic, fr[i], len[i], NULL));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &v));
    CHECK_EQ(v.nonce, NONCE_B + 9);
    CHECK_EQ(v.nonce_count, 0);
    /* Replaying an early frame: its nonce is stale (checked before the
     * sequence number). */
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr[1], len[1], NULL), OFL_E_AP_NONCE);
    /* A sender that does not rotate falls out of step after two. */
    ov.nonce = NONCE_B + 9;
    ov.nonce_every = 0;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 0, 0, &ov,
                                OFL_AP_OUT_NONCE));
    for (i = 0; i < 3; i++) {
        ofl_ap_tx_begin(&f, fr[i], sizeof(fr[i]));
        CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "n", 1));
        CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len[i]));
    }
    CHECK_OK(ofl_ap_rx(&fb.nic, fr[0], len[0], NULL));
    CHECK_OK(ofl_ap_rx(&fb.nic, fr[1], len[1], NULL));
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr[2], len[2], NULL), OFL_E_AP_NONCE);
    /* Programming the nonce restarts the count. */
    v.nonce = 5;
    v.nonce_step = 1;
    v.nonce_every = 1;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 2, &v,
                               OFL_AP_IN_NONCE));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &v));
    CHECK_EQ(v.nonce_count, 0);
}

/* ---- the cache --------------------------------------------------------------------------- */

static void test_cache(void)
{
    uint8_t fr[128];
    struct apfx_opts o;
    struct ofl_ap_in_entry v;
    struct ofl_ap_cache *c;
    unsigned i;
    size_t n;

    memset(&o, 0, sizeof(o));
    o.cache_lines = 4; /* 2 sets x 2 ways */
    o.cache_ways = 2;
    two_hosts(NULL, &o);
    c = &fb.nic.in_cache;
    /* Apertures 0, 2, 4, 6 share set 0; 1 lives in set 1. */
    for (i = 0; i < 7; i++)
        CHECK_OK(apfx_in_data(&fb, i, 64 * i, 64, &apfx_host_a, 100 + i, 0,
                              true));
#define SEND(idx, sq)                                                      \
    do {                                                                   \
        struct apfx_rec r_ = good_rec();                                   \
        r_.in_index = (idx);                                               \
        r_.nonce = 100 + (idx);                                            \
        r_.seq = (sq);                                                     \
        r_.offset = 0;                                                     \
        n = apfx_ci(fr, sizeof(fr), NULL, &r_, 1);                         \
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));                         \
    } while (0)
    SEND(0, 0); /* miss */
    SEND(0, 1); /* hit: no second miss */
    CHECK_EQ(c->misses, 1);
    /* The newest sequence number sits in the line; query sees it, the
     * table does not yet. */
    CHECK_EQ(in_seq(&fb, 0), 2);
    CHECK_EQ(fb.in[0].seq, 0);
    SEND(2, 0); /* miss, second way */
    SEND(0, 2); /* hit: 0 is now the most recent */
    SEND(4, 0); /* miss: evicts 2 (least recent), not 0 */
    CHECK_EQ(c->evictions, 1);
    CHECK_EQ(c->writebacks, 1);
    CHECK_EQ(fb.in[2].seq, 1); /* written back on eviction */
    SEND(0, 3); /* still a hit */
    CHECK_EQ(c->misses, 3);
    SEND(2, 1); /* miss again, continues from the written-back state */
    CHECK_EQ(c->misses, 4);
    SEND(1, 0); /* other set: no eviction */
    CHECK_EQ(c->evictions, 2);
    /* Programming invalidates: the cached nonce must not survive. */
    memset(&v, 0, sizeof(v));
    v.nonce = 555;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 0, &v,
                               OFL_AP_IN_NONCE));
    CHECK_EQ(c->invalidations, 1);
    CHECK_EQ(fb.in[0].seq, 4); /* the line's state carried over */
    {
        struct apfx_rec r = good_rec();

        r.in_index = 0;
        r.nonce = 100;
        r.seq = 4;
        r.offset = 0;
        n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
        CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_NONCE);
        r.nonce = 555;
        n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    }
    /* Clearing drops the line: the aperture is gone at once. */
    CHECK_OK(ofl_ap_in_clear(&fb.nic, OFL_AP_PRIV_OS, 1));
    {
        struct apfx_rec r = good_rec();

        r.in_index = 1;
        r.nonce = 101;
        r.seq = 1;
        r.offset = 0;
        n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
        CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_INVALID);
    }
    /* Flush writes every dirty line back. */
    ofl_ap_cache_flush(&fb.nic);
    CHECK_EQ(fb.in[0].seq, 5);
    CHECK_EQ(fb.in[2].seq, 2);
#undef SEND
}

/* xorshift32 (Marsaglia): the same sequence on every target, no libc. */
static uint32_t rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* The same traffic with and without a cache leaves the same tables. */
static void test_cache_equivalence(void)
{
    static struct apfx fc;
    struct apfx_opts o;
    uint8_t fr[128];
    unsigned i, k;
    uint32_t seq[APFX_IN], rng = 7;

    memset(&o, 0, sizeof(o));
    o.cache_lines = 4;
    o.cache_ways = 4; /* one fully associative set */
    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    CHECK(apfx_init(&fc, &apfx_host_b, &o) == 0);
    memset(seq, 0, sizeof(seq));
    for (i = 0; i < APFX_IN; i++) {
        CHECK_OK(apfx_in_data(&fb, i, 64 * i, 64, &apfx_host_a, i, 0, true));
        CHECK_OK(apfx_in_data(&fc, i, 64 * i, 64, &apfx_host_a, i, 0, true));
    }
    for (k = 0; k < 2000; k++) {
        struct apfx_rec r = good_rec();
        enum ofl_err e1, e2;
        size_t n;

        i = rnd(&rng) % APFX_IN;
        r.in_index = i;
        r.nonce = (rnd(&rng) % 8) ? i : i + 1;
        r.seq = (rnd(&rng) % 8) ? seq[i] : seq[i] + 1;
        r.offset = rnd(&rng) % 70;
        n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
        e1 = ofl_ap_rx(&fb.nic, fr, n, NULL);
        e2 = ofl_ap_rx(&fc.nic, fr, n, NULL);
        CHECK_EQ(e1, e2);
        if (e1 == OFL_OK)
            seq[i]++;
    }
    ofl_ap_cache_flush(&fc.nic);
    for (i = 0; i < APFX_IN; i++) {
        struct ofl_ap_in_entry *x = &fb.in[i], *y = &fc.in[i];

        /* Each maps its own host memory at the same offset. */
        CHECK(x->base - ofl_sim_pa(fb.mem) == y->base - ofl_sim_pa(fc.mem) &&
              x->size == y->size && x->evq == y->evq &&
              x->src_ip == y->src_ip && x->src_ip_mask == y->src_ip_mask &&
              x->nonce == y->nonce && x->nonce_count == y->nonce_count &&
              x->seq == y->seq && x->narrow_off == y->narrow_off &&
              x->narrow_len == y->narrow_len &&
              x->nonce_step == y->nonce_step &&
              x->nonce_every == y->nonce_every && x->owner == y->owner &&
              x->app_fields == y->app_fields &&
              x->src_cluster == y->src_cluster &&
              x->src_cluster_mask == y->src_cluster_mask &&
              memcmp(x->src_mac, y->src_mac, 6) == 0 && x->type == y->type &&
              x->state == y->state && x->checks == y->checks &&
              x->flags == y->flags);
    }
    CHECK(memcmp(fb.mem, fc.mem, sizeof(fb.mem)) == 0);
    /* 2000 lookups (every index inside the table, every entry OPEN): some
     * hit, some miss. */
    CHECK(fc.nic.in_cache.misses > 0 && fc.nic.in_cache.misses < 2000);
    CHECK(fc.nic.in_cache.evictions > 0);
}

/* The outgoing table through a cache behaves the same. */
static void test_out_cache(void)
{
    struct apfx_opts o;
    uint8_t buf[256];
    struct ofl_ap_tx_frame f;
    size_t len;

    memset(&o, 0, sizeof(o));
    o.cache_lines = 2;
    o.cache_ways = 1;
    pair(&o, NULL);
    CHECK_OK(apfx_out(&fa, 2, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, NONCE_B,
                      SEQ_B + 2, true));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "a", 1));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "b", 1));
    CHECK_EQ(fa.nic.out_cache.misses, 1); /* the second write hit */
    CHECK_EQ(out_seq(&fa, 0), SEQ_B + 2);
    CHECK_EQ(fa.out[0].seq, SEQ_B); /* still in the line */
    /* Aperture 2 maps to the same set: 0 is written back. */
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 2 * 4096, "c", 1));
    CHECK_EQ(fa.out[0].seq, SEQ_B + 2);
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
    CHECK_EQ(in_seq(&fb, 2), SEQ_B + 3);
}


/* fb's incoming entry index: an open event aperture on queue evq with the
 * nonce check. */
static void event_aperture(uint32_t index, uint32_t evq, uint32_t nonce)
{
    struct ofl_ap_in_entry v;

    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_EVENT;
    v.size = 8;
    v.evq = evq;
    v.nonce = nonce;
    v.checks = OFL_AP_CHECK_NONCE;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, index, &v,
                               OFL_AP_IN_ALL));
}
/* ---- event and IP apertures ---------------------------------------------------- */

static void test_event_aperture(void)
{
    uint8_t buf[128], data[64];
    struct ofl_ap_tx_frame f;
    struct ofl_evq_event ev;
    size_t len, dl;
    unsigned i;

    two_hosts(NULL, NULL);
    event_aperture(3, 1, 42);
    CHECK_OK(apfx_out(&fa, 9, OFL_AP_TYPE_CI_EVENT, &apfx_host_b, 3, 42, 0,
                      false));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_EVENT + 8 + 4, "WXYZ", 4));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_EVENT + 8 + 5, "WXYZ", 4),
              OFL_E_AP_EXTENT);
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_EQ(buf[22], OFL_AP_REC_EVENT);
    CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
    CHECK_EQ(ofl_evq_app_pending(&fb.app[1]), 1);
    CHECK_OK(ofl_evq_app_poll(&fb.app[1], &ev, data, sizeof(data), &dl));
    CHECK_EQ(ev.type, OFL_EVQ_EV_CI_EVENT);
    CHECK_EQ(ev.port, 1);
    CHECK_EQ(ev.a, 0);
    CHECK_EQ(ev.b, 0x5758595Au); /* "WXYZ" at offset 4 */
    CHECK_EQ(dl, 0);
    /* A full queue refuses the event; the aperture does not move. */
    for (i = 0; i < APFX_RING_WORDS / 4; i++)
        CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
    CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_EVQ_OVERFLOW);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, OFL_E_EVQ_OVERFLOW), 1);
    CHECK_EQ(fb.evq[1].lost, 1);
    CHECK_EQ(ctl_get(fb.ctl[1], OFL_EVQ_CTL_LOST), 1); /* in the block too */
    CHECK_EQ(ofl_evq_app_pending(&fb.osapp), 1);
    CHECK_OK(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl));
    CHECK_EQ(ev.type, OFL_EVQ_EV_OVERFLOW);
    CHECK_EQ(ev.port, 1);
    /* With OFL_AP_F_ERRORS, the overflow of the aperture's own queue is
     * not posted again as an error: one LOST, one OS message. */
    {
        struct ofl_ap_in_entry v;
        uint32_t dropped = fb.nic.stats.errors_dropped;

        memset(&v, 0, sizeof(v));
        v.flags = OFL_AP_F_ERRORS;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                                   OFL_AP_IN_NOTIFY));
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_EVQ_OVERFLOW);
        CHECK_EQ(fb.evq[1].lost, 2);
        CHECK_EQ(fb.nic.stats.errors_dropped, dropped);
        /* the same overflow episode: no second OS message */
        CHECK_EQ(ofl_evq_app_pending(&fb.osapp), 0);
    }
}

/* Polls queue a empty; the last event (type NONE when there was none). */
static struct ofl_evq_event drain_last(struct ofl_evq_app *a)
{
    static uint8_t data[4096];
    struct ofl_evq_event ev, last;
    size_t dl;

    memset(&last, 0, sizeof(last));
    while (ofl_evq_app_pending(a) != 0 &&
           ofl_evq_app_poll(a, &ev, data, sizeof(data), &dl) == OFL_OK)
        last = ev;
    return last;
}

/* Queue a holds exactly one event, an error event for (reason, index). */
static void expect_error_event(struct ofl_evq_app *a, enum ofl_err reason,
                               uint32_t index)
{
    struct ofl_evq_event ev;

    CHECK_EQ(ofl_evq_app_pending(a), 1);
    ev = drain_last(a);
    CHECK_EQ(ev.type, OFL_EVQ_EV_ERROR);
    CHECK_EQ(ev.a, reason);
    CHECK_EQ(ev.b, index);
    CHECK_EQ(ev.port, 0);
}

static void test_ip_aperture(void)
{
    static uint8_t buf[256], data[1024];
    struct ofl_ap_tx_frame f;
    struct ofl_ap_in_entry v;
    struct ofl_evq_event ev;
    struct ofl_ap_udp u;
    struct ofl_ap_out_entry ov;
    size_t len, dl;

    two_hosts(NULL, NULL);
    /* A: outgoing aperture 1 sends datagrams to B's port 5004. */
    CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_IP, &apfx_host_b, 4, 0, 0, false));
    memset(&ov, 0, sizeof(ov));
    ov.owner = 6000;
    ov.app_fields = OFL_AP_OUT_APP_DEFAULT;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                OFL_AP_OUT_OWNER));
    /* B: incoming IP aperture 4 (UDP 5004) into port queue 0, from A's
     * /24 only. */
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_IP;
    v.size = 1514;
    v.evq = 0;
    memcpy(v.src_mac, apfx_host_a.mac, 6);
    v.src_ip = apfx_host_a.ip & 0xFFFFFF00u;
    v.src_ip_mask = 0xFFFFFF00u;
    v.checks = OFL_AP_CHECK_SRC_MAC | OFL_AP_CHECK_SRC_ADDR;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 4, &v,
                               OFL_AP_IN_ALL));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096 + 7,
                             "datagram!", 9));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "x", 1),
              OFL_E_AP_PACK); /* one datagram per frame */
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_OK(ofl_ap_udp_parse(buf, len, &u));
    CHECK_EQ(u.src.udp, 6000);
    CHECK_EQ(u.dst.udp, APFX_UDP_BASE + 4);
    CHECK_EQ(u.src.host.ip, apfx_host_a.ip);
    CHECK_EQ(u.payload_len, 9);
    CHECK(memcmp(u.payload, "datagram!", 9) == 0);
    CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
    CHECK_OK(ofl_evq_app_poll(&fb.app[0], &ev, data, sizeof(data), &dl));
    CHECK_EQ(ev.type, OFL_EVQ_EV_DATAGRAM);
    CHECK_EQ(ev.a, apfx_host_a.ip);
    CHECK_EQ(ev.b, (6000u << 16) | (APFX_UDP_BASE + 4));
    CHECK_EQ(dl, 14 + 20 + 8 + 9); /* the frame, without its padding */
    CHECK(memcmp(data, buf, dl) == 0);

    /* The checks of the IP path. */
#define IPFRAME(src_, dst_, port_)                                          \
    do {                                                                    \
        struct ofl_ap_udp d_;                                               \
        memset(&d_, 0, sizeof(d_));                                         \
        d_.src.host = (src_);                                               \
        d_.src.udp = 6000;                                                  \
        d_.dst.host = (dst_);                                               \
        d_.dst.udp = (port_);                                               \
        d_.payload = (const uint8_t *)"p";                                  \
        d_.payload_len = 1;                                                 \
        CHECK_OK(ofl_ap_udp_build(&d_, 1, buf, sizeof(buf), &len));         \
    } while (0)
    {
        struct ofl_ap_addr a = apfx_host_a, b = apfx_host_b;

        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
        IPFRAME(a, b, APFX_UDP_BASE - 1);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_INDEX);
        IPFRAME(a, b, APFX_UDP_BASE + APFX_IN);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_INDEX);
        IPFRAME(a, b, APFX_UDP_BASE + 3);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_INVALID);
        CHECK_OK(apfx_in_data(&fb, 2, 0, 64, &apfx_host_a, 1, 0, false));
        IPFRAME(a, b, APFX_UDP_BASE + 2);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_TYPE);
        a.ip = 0x0A000100u; /* another /24 */
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_SRC_ADDR);
        a.ip = apfx_host_a.ip + 1; /* same /24 */
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_OK(ofl_ap_rx(&fb.nic, buf, len, NULL));
        a.mac[1] = 9;
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_SRC_MAC);
        /* With OFL_AP_F_ERRORS the port hears of the rejection too. */
        ev = drain_last(&fb.app[0]);
        CHECK_EQ(ev.type, OFL_EVQ_EV_DATAGRAM);
        v.flags = OFL_AP_F_ERRORS;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 4, &v,
                                   OFL_AP_IN_NOTIFY));
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_SRC_MAC);
        expect_error_event(&fb.app[0], OFL_E_AP_SRC_MAC, 4);
        v.flags = 0;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 4, &v,
                                   OFL_AP_IN_NOTIFY));
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_SRC_MAC);
        CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 0);
        a = apfx_host_a;
        b.ip++;
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_NOT_FOR_US);
        b = apfx_host_b;
        b.mac[0] = 0xFF;
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_NOT_FOR_US);
        b = apfx_host_b;
        v.size = 40; /* smaller than the frame */
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 4, &v,
                                   OFL_AP_IN_MAP));
        IPFRAME(a, b, APFX_UDP_BASE + 4);
        CHECK_ERR(ofl_ap_rx(&fb.nic, buf, len, NULL), OFL_E_AP_EXTENT);
        v.size = 1514;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 4, &v,
                                   OFL_AP_IN_MAP));
        /* The variable ring fills: refused, never overwritten. */
        {
            unsigned k;
            enum ofl_err e = OFL_OK;

            for (k = 0; k < 100 && e == OFL_OK; k++)
                e = ofl_ap_rx(&fb.nic, buf, len, NULL);
            CHECK_ERR(e, OFL_E_EVQ_OVERFLOW);
            CHECK(k > 1);
        }
    }
#undef IPFRAME
}


/* Error notices on a ring of two events: one notice at most (one event
 * stays free), so a genuine event record still lands after a flood of
 * forged ones. */
static void test_notices_small_ring(void)
{
    struct ofl_evq_config qc;
    struct ofl_ap_in_entry v;
    struct apfx_rec r;
    uint8_t fr[256];
    size_t n;
    int i;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    memset(&qc, 0, sizeof(qc));
    qc.port = &fb.sim.port;
    qc.ring_pa = ofl_sim_pa(fb.ring[0]);
    qc.ring_words = 8; /* two events */
    qc.var_pa = ofl_sim_pa(fb.var[0]);
    qc.var_words = APFX_VAR_WORDS;
    qc.ctl_pa = ofl_sim_pa(fb.ctl[0]);
    qc.port_id = 0;
    qc.os = &fb.osq;
    CHECK_OK(ofl_evq_init(&fb.evq[0], &qc));
    ofl_evq_app_init(&fb.app[0], fb.ring[0], 8, fb.var[0], APFX_VAR_WORDS,
                     fb.ctl[0], NULL);
    CHECK_OK(apfx_in_data(&fb, 2, 0, 1024, &apfx_host_a, 0x1111, 0, false));
    memset(&v, 0, sizeof(v));
    v.flags = OFL_AP_F_ERRORS;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_NOTIFY));
    event_aperture(3, 0, 42);
    memset(&r, 0, sizeof(r));
    r.data = "ABCD";
    r.len = 4;
    r.in_index = 2;
    r.nonce = 0xBAD;
    r.offset = 8;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    for (i = 0; i < 5; i++)
        CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_NONCE);
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 1);
    CHECK_EQ(fb.nic.stats.errors_dropped, 4);
    memset(&r, 0, sizeof(r));
    r.data = "WXYZ";
    r.len = 4;
    r.in_index = 3;
    r.nonce = 42;
    r.offset = 4;
    r.kind = OFL_AP_REC_EVENT;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 2);
    CHECK_EQ(fb.evq[0].lost, 0);
}

/*
 * The notices of a CI data aperture: a delivery event per accepted write
 * (OFL_AP_F_NOTIFY) with what it carries, a full queue that loses the
 * notice but not the write, and an error event per rejected record
 * (OFL_AP_F_ERRORS) - none for a record whose aperture is closed, since
 * no port owns it, and none with the flag off.
 */
static void test_notices(void)
{
    static uint8_t fr[512];
    struct apfx_hdr h = {NULL, NULL, -1, -1, 0, false};
    struct ofl_ap_in_entry v;
    struct ofl_evq_event ev;
    struct apfx_rec r;
    uint32_t i, seq;
    size_t n;

    pair(NULL, NULL);
    r = good_rec();
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL)); /* flag off: no event */
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 0);
    memset(&v, 0, sizeof(v));
    v.flags = OFL_AP_F_NOTIFY;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_NOTIFY));
    seq = SEQ_B + 1;
    r.seq = seq++;
    r.offset = 100;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK(memcmp(fb.mem + 100, "ABCD", 4) == 0);
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 1);
    ev = drain_last(&fb.app[0]);
    CHECK_EQ(ev.type, OFL_EVQ_EV_DELIVERY);
    CHECK_EQ(ev.port, 0);
    CHECK_EQ(ev.a, 2);     /* the in-index */
    CHECK_EQ(ev.b, 104);   /* the end offset of the write */
    /* The queue holds APFX_RING_WORDS / 4 events: past that the writes
     * still land and advance the aperture; only the notices are lost. */
    for (i = 0; i < APFX_RING_WORDS / 4 + 2; i++) {
        r.seq = seq++;
        r.offset = 200 + 4 * i;
        n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
        CHECK(memcmp(fb.mem + 200 + 4 * i, "ABCD", 4) == 0);
    }
    CHECK_EQ(in_seq(&fb, 2), seq);
    CHECK(fb.evq[0].lost >= 2);
    CHECK_EQ(fb.evq[0].lost + ofl_evq_app_pending(&fb.app[0]),
             APFX_RING_WORDS / 4 + 2);
    ev = drain_last(&fb.app[0]);
    CHECK_EQ(ev.type, OFL_EVQ_EV_DELIVERY);

    /* Error events. */
    v.flags = OFL_AP_F_ERRORS;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_NOTIFY));
    r.seq = seq;
    r.nonce = NONCE_B + 1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_NONCE);
    expect_error_event(&fb.app[0], OFL_E_AP_NONCE, 2);
    r.nonce = NONCE_B;
    r.offset = 1022; /* 4 bytes at 1022 pass the 1 KiB extent */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_EXTENT);
    expect_error_event(&fb.app[0], OFL_E_AP_EXTENT, 2);
    r.offset = 8; /* and an accepted record posts nothing */
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 0);
    /* A flood of bad records takes at most half the queue (the ring has
     * APFX_RING_WORDS / 4 = 16 events: a notice goes in while 8 stay free
     * after it), with no LOST count and no OS message; real events still
     * fit. */
    {
        uint32_t lost = fb.evq[0].lost, os = ofl_evq_app_pending(&fb.osapp);
        uint32_t dropped = fb.nic.stats.errors_dropped;

        r.seq = seq + 1;
        r.nonce = NONCE_B + 1;
        n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
        for (i = 0; i < 20; i++)
            CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_NONCE);
        CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 8);
        CHECK_EQ(fb.nic.stats.errors_dropped, dropped + 12);
        CHECK_EQ(fb.evq[0].lost, lost);
        CHECK_EQ(ofl_evq_app_pending(&fb.osapp), os);
        v.flags = OFL_AP_F_ERRORS | OFL_AP_F_NOTIFY;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                                   OFL_AP_IN_NOTIFY));
        r.nonce = NONCE_B;
        n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
        CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 9); /* the delivery */
        seq += 2;
        (void)drain_last(&fb.app[0]);
        v.flags = OFL_AP_F_ERRORS;
        CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                                   OFL_AP_IN_NOTIFY));
    }
    /* A closed aperture names no port. */
    v.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_STATE));
    r.seq = seq + 1;
    n = apfx_ci(fr, sizeof(fr), &h, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_INVALID);
    CHECK_EQ(ofl_evq_app_pending(&fb.app[0]), 0);
    CHECK_EQ(ofl_evq_app_pending(&fb.app[1]), 0);
    /* Either flag needs a queue inside the NIC's list. */
    v.state = OFL_AP_OPEN;
    v.flags = OFL_AP_F_ERRORS;
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(fb.mem);
    v.size = 64;
    v.evq = APFX_NEVQ;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 5, &v,
                                OFL_AP_IN_ALL),
              OFL_E_AP_CONFIG);
    v.flags = 0;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 5, &v,
                               OFL_AP_IN_ALL));
}

static void test_udp_parse(void)
{
    uint8_t buf[128], w[128];
    struct ofl_ap_udp d, u;
    size_t len;

    memset(&d, 0, sizeof(d));
    d.src.host = apfx_host_a;
    d.src.udp = 1234;
    d.dst.host = apfx_host_b;
    d.dst.udp = 80;
    d.payload = (const uint8_t *)"payload";
    d.payload_len = 7;
    CHECK_OK(ofl_ap_udp_build(&d, 0x1111, buf, sizeof(buf), &len));
    CHECK_EQ(len, 60);
    CHECK_EQ(buf[14], 0x45);
    CHECK_EQ(ofl_load_be16(buf + 16), 20 + 8 + 7);
    CHECK_EQ(ofl_load_be16(buf + 18), 0x1111);
    CHECK_EQ(ofl_load_be16(buf + 20), 0x4000);
    CHECK_EQ(buf[23], 17);
    CHECK(ofl_load_be16(buf + 40) != 0); /* UDP checksum present */
    CHECK_OK(ofl_ap_udp_parse(buf, len, &u));
    CHECK_EQ(u.src.udp, 1234);
    CHECK_EQ(u.dst.udp, 80);
    CHECK_EQ(u.dst.host.ip, apfx_host_b.ip);
    CHECK(memcmp(u.src.host.mac, apfx_host_a.mac, 6) == 0);
    CHECK_EQ(u.payload_len, 7);
    /* A zero UDP checksum means "none" (RFC 768). */
    memcpy(w, buf, len);
    ofl_store_be16(w + 40, 0);
    CHECK_OK(ofl_ap_udp_parse(w, len, &u));
    CHECK_ERR(ofl_ap_udp_build(&d, 0, buf, 59, &len), OFL_E_SIZE);
    CHECK_OK(ofl_ap_udp_build(&d, 0x1111, buf, sizeof(buf), &len));
#define MUT(stmt, want)                                                     \
    do {                                                                    \
        memcpy(w, buf, len);                                                \
        stmt;                                                               \
        CHECK_ERR(ofl_ap_udp_parse(w, len, &u), want);                      \
    } while (0)
    MUT(w[12] = 0x86, OFL_E_AP_NOT_CI);
    MUT(w[14] = 0x65, OFL_E_AP_VERSION);
    MUT(w[14] = 0x44, OFL_E_AP_MALFORMED);      /* IHL 4 */
    MUT(w[17] = 20 + 7, OFL_E_AP_MALFORMED);    /* total < IHL + UDP */
    MUT(w[16] = 0x01, OFL_E_AP_TRUNCATED);      /* total beyond frame */
    MUT(w[20] = 0x60, OFL_E_AP_MALFORMED);      /* DF + MF */
    MUT(w[21] = 0x01, OFL_E_AP_MALFORMED);      /* fragment offset */
    MUT(w[20] = 0xC0, OFL_E_AP_MALFORMED);      /* reserved bit */
    MUT(w[23] = 6, OFL_E_AP_NOT_CI);            /* TCP */
    MUT(w[22] = 1, OFL_E_AP_HDR_CHECKSUM);      /* TTL changed */
    MUT(w[39] = 99, OFL_E_AP_MALFORMED);        /* UDP length */
    MUT(w[42] ^= 1, OFL_E_AP_HDR_CHECKSUM);     /* payload vs UDP checksum */
#undef MUT
    CHECK_ERR(ofl_ap_udp_parse(buf, 13, &u), OFL_E_AP_TRUNCATED);
    CHECK_ERR(ofl_ap_udp_parse(buf, 14 + 19, &u), OFL_E_AP_TRUNCATED);
    CHECK_ERR(ofl_ap_udp_parse(buf, 14 + 30, &u), OFL_E_AP_TRUNCATED);
    d.payload_len = 65508;
    CHECK_ERR(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), &len), OFL_E_ARG);
}

/* ---- connection messages ---------------------------------------------------------------- */

static void test_msg_codec(void)
{
    struct ofl_ap_msg m, p;
    uint8_t b[64];
    size_t n;
    unsigned t;

    memset(&m, 0, sizeof(m));
    m.type = OFL_AP_MSG_ACCEPT;
    m.flags = OFL_AP_MSG_F_SEQ;
    m.port = 0x1234;
    m.cluster = 0x00BB;
    m.in_index = 0x01020304;
    m.nonce = 0xA5A5A5A5u;
    m.seq = 77;
    m.size = 4096;
    m.nonce_step = 3;
    m.nonce_every = 9;
    m.peer_in_index = 5;
    m.peer_nonce = 6;
    CHECK_OK(ofl_ap_msg_build(&m, b, sizeof(b), &n));
    CHECK_EQ(n, OFL_AP_MSG_LEN);
    /* The documented layout. */
    CHECK_EQ(b[0], 1);
    CHECK_EQ(b[1], 2);
    CHECK_EQ(ofl_load_be16(b + 2), 1);
    CHECK_EQ(ofl_load_be16(b + 4), 0x1234);
    CHECK_EQ(ofl_load_be16(b + 6), 0xBB);
    CHECK_EQ(ofl_load_be32(b + 8), 0x01020304);
    CHECK_EQ(ofl_load_be32(b + 12), 0xA5A5A5A5u);
    CHECK_EQ(ofl_load_be32(b + 16), 77);
    CHECK_EQ(ofl_load_be32(b + 20), 4096);
    CHECK_EQ(ofl_load_be16(b + 24), 3);
    CHECK_EQ(ofl_load_be16(b + 26), 9);
    CHECK_EQ(ofl_load_be32(b + 28), 5);
    CHECK_EQ(ofl_load_be32(b + 32), 6);
    memset(&p, 0, sizeof(p));
    CHECK_OK(ofl_ap_msg_parse(b, n, &p));
    CHECK(memcmp(&m, &p, sizeof(m)) == 0);
    CHECK_ERR(ofl_ap_msg_build(&m, b, OFL_AP_MSG_LEN - 1, &n), OFL_E_SIZE);
    CHECK_ERR(ofl_ap_msg_parse(b, OFL_AP_MSG_LEN - 1, &p), OFL_E_AP_TRUNCATED);
    CHECK_ERR(ofl_ap_msg_parse(b, OFL_AP_MSG_LEN + 1, &p), OFL_E_AP_MALFORMED);
    b[0] = 2;
    CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_VERSION);
    b[0] = 1;
    b[1] = 0;
    CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_MSG_TYPE);
    b[1] = 7;
    CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_MSG_TYPE);
    b[1] = 2;
    b[39] = 1;
    CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_MALFORMED);
    b[39] = 0;
    b[3] = 2; /* undefined flag */
    CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_MALFORMED);
    b[3] = 1;
    CHECK_OK(ofl_ap_msg_parse(b, n, &p));
    /* Used-by rules. */
    m.type = OFL_AP_MSG_CONNECT; /* no peer fields */
    CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), &n), OFL_E_AP_MALFORMED);
    m.peer_in_index = m.peer_nonce = 0;
    CHECK_OK(ofl_ap_msg_build(&m, b, sizeof(b), &n));
    m.token = 1; /* only ALIVE / ALIVEACK */
    CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), &n), OFL_E_AP_MALFORMED);
    m.token = 0;
    m.code = 5; /* only ERROR */
    CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), &n), OFL_E_AP_MALFORMED);
    memset(&m, 0, sizeof(m));
    m.type = OFL_AP_MSG_ERROR; /* needs a code */
    CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), &n), OFL_E_AP_MALFORMED);
    m.code = OFL_E_AP_EXTENT;
    CHECK_OK(ofl_ap_msg_build(&m, b, sizeof(b), &n));
    for (t = OFL_AP_MSG_CLOSE; t <= OFL_AP_MSG_ERROR; t++) {
        memset(&m, 0, sizeof(m));
        m.type = (uint8_t)t;
        m.code = t == OFL_AP_MSG_ERROR ? 1 : 0;
        m.token = (t == OFL_AP_MSG_ALIVE || t == OFL_AP_MSG_ALIVEACK) ? 9 : 0;
        m.in_index = 1;
        m.peer_nonce = 2;
        CHECK_OK(ofl_ap_msg_build(&m, b, sizeof(b), &n));
        CHECK_OK(ofl_ap_msg_parse(b, n, &p));
        m.seq = 1; /* setup fields on a non-setup message */
        CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), &n), OFL_E_AP_MALFORMED);
        ofl_store_be32(b + 20, 1); /* size */
        CHECK_ERR(ofl_ap_msg_parse(b, n, &p), OFL_E_AP_MALFORMED);
    }
}

/* ---- dual event queues ------------------------------------------------------------------- */

static struct ofl_evq_event mkev(uint8_t type, uint32_t a, uint32_t b)
{
    struct ofl_evq_event e;

    memset(&e, 0, sizeof(e));
    e.type = type;
    e.a = a;
    e.b = b;
    return e;
}

static void test_evq_basic(void)
{
    struct ofl_evq *q;
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    uint8_t rec[600], out[600];
    size_t dl;
    unsigned i, k;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[0];
    a = &fb.app[0];
    CHECK_EQ(ofl_evq_space(q), 16);
    CHECK_EQ(ofl_evq_var_space(q), APFX_VAR_WORDS);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, NULL, 0, &dl), OFL_E_EVQ_EMPTY);
    /* Fixed events wrap around the ring many times. */
    for (k = 0; k < 5; k++) {
        for (i = 0; i < 11; i++) {
            ev = mkev(OFL_EVQ_EV_DELIVERY, k, i);
            CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
        }
        CHECK_EQ(ofl_evq_app_pending(a), 11);
        for (i = 0; i < 11; i++) {
            CHECK_OK(ofl_evq_app_poll(a, &ev, NULL, 0, &dl));
            CHECK_EQ(ev.a, k);
            CHECK_EQ(ev.b, i);
            CHECK_EQ(ev.port, 0);
        }
        /* The NIC learns RDPTR from the control block when it is full. */
    }
    CHECK_EQ(q->posted, 55);
    /* WRPTR' mirrors WRPTR; RDPTR is written by the application. */
    CHECK_EQ(ctl_get(fb.ctl[0], OFL_EVQ_CTL_WRPTR), 55 * 4);
    CHECK_EQ(ctl_get(fb.ctl[0], OFL_EVQ_CTL_RDPTR), 55 * 4);
    /* Variable records of every size wrap the variable ring. */
    for (i = 0; i < sizeof(rec); i++)
        rec[i] = (uint8_t)(i * 13 + 1);
    for (k = 1; k < 200; k += 7) {
        ev = mkev(OFL_EVQ_EV_DATAGRAM, k, 0);
        CHECK_OK(ofl_evq_post(q, &ev, rec, k));
        CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
        CHECK_EQ(ev.var_words, 1 + (k + 3) / 4); /* FIG. 13 "Var n" */
        CHECK_EQ(dl, k);
        CHECK(memcmp(out, rec, k) == 0);
        CHECK_OK(ofl_evq_set_rdptr(q, a->rd, a->var_rd));
    }
    CHECK(q->var_wr > APFX_VAR_WORDS); /* wrapped */
    /* Too small a buffer: the event waits. */
    ev = mkev(OFL_EVQ_EV_DATAGRAM, 1, 0);
    CHECK_OK(ofl_evq_post(q, &ev, rec, 40));
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, 39, &dl), OFL_E_SIZE);
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, 40, &dl));
    CHECK_EQ(dl, 40);
    /* Arguments. */
    ev = mkev(0, 0, 0);
    CHECK_ERR(ofl_evq_post(q, &ev, NULL, 0), OFL_E_ARG);
    ev = mkev(OFL_EVQ_EV_MAX + 1, 0, 0);
    CHECK_ERR(ofl_evq_post(q, &ev, NULL, 0), OFL_E_ARG);
    ev = mkev(OFL_EVQ_EV_ERROR, 0, 0);
    CHECK_ERR(ofl_evq_post(&fb.osq, &ev, rec, 4), OFL_E_ARG); /* no var */
    CHECK_EQ(fb.sim.violations, 0);
}

static void test_evq_overflow(void)
{
    struct ofl_evq *q;
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    static uint32_t ring[APFX_RING_WORDS];
    static uint8_t rec[2048], out[2048];
    size_t dl;
    unsigned i;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[0];
    a = &fb.app[0];
    for (i = 0; i < 16; i++) {
        ev = mkev(OFL_EVQ_EV_DELIVERY, i, 0);
        CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    }
    memcpy(ring, fb.ring[0], sizeof(ring));
    ev = mkev(OFL_EVQ_EV_DELIVERY, 99, 0);
    CHECK_ERR(ofl_evq_post(q, &ev, NULL, 0), OFL_E_EVQ_OVERFLOW);
    CHECK(memcmp(ring, fb.ring[0], sizeof(ring)) == 0); /* not overwritten */
    CHECK_EQ(q->lost, 1);
    CHECK_EQ(ctl_get(fb.ctl[0], OFL_EVQ_CTL_LOST), 1);
    CHECK_EQ(fb.osq.posted, 1); /* the OS hears of it */
    CHECK_EQ(fb.sim.nevents, 1);
    CHECK_EQ(fb.sim.event[0].kind, OFL_SIM_EV_NOTIFY);
    CHECK_EQ(fb.sim.event[0].a, APFX_VECTOR_OS);
    /* once per episode: more lost events, no more messages or interrupts */
    for (i = 0; i < 5; i++)
        CHECK_ERR(ofl_evq_post(q, &ev, NULL, 0), OFL_E_EVQ_OVERFLOW);
    CHECK_EQ(q->lost, 6);
    CHECK_EQ(fb.osq.posted, 1);
    CHECK_EQ(fb.sim.nevents, 1);
    for (i = 0; i < 16; i++) {
        CHECK_OK(ofl_evq_app_poll(a, &ev, NULL, 0, &dl));
        CHECK_EQ(ev.a, i);
    }
    /* The application consumed; the NIC refreshes RDPTR' when full. */
    ev = mkev(OFL_EVQ_EV_DELIVERY, 100, 0);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_OK(ofl_evq_app_poll(a, &ev, NULL, 0, &dl));
    CHECK_EQ(ev.a, 100);
    CHECK_EQ(q->overflow_told, 0); /* an event went in: a new episode */
    /* The variable ring: a record that does not fit now, and one that
     * never could. */
    memset(rec, 7, sizeof(rec));
    ev = mkev(OFL_EVQ_EV_DATAGRAM, 0, 0);
    CHECK_OK(ofl_evq_post(q, &ev, rec, 600)); /* 151 words */
    CHECK_ERR(ofl_evq_post(q, &ev, rec, 600), OFL_E_EVQ_OVERFLOW);
    CHECK_OK(ofl_evq_post(q, &ev, rec, 400)); /* 101 words: 252 of 256 */
    CHECK_EQ(ofl_evq_var_space(q), 4);
    CHECK_ERR(ofl_evq_post(q, &ev, rec, APFX_VAR_WORDS * 4),
              OFL_E_EVQ_OVERFLOW);
    CHECK_EQ(q->lost, 8); /* 6 above, 2 here */
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 600);
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 400);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_EMPTY);
}

static void test_evq_pointers(void)
{
    struct ofl_evq *q;
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    uint8_t out[64];
    size_t dl;
    uint32_t *ring;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[0];
    a = &fb.app[0];
    ev = mkev(OFL_EVQ_EV_DELIVERY, 1, 0);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    /* RDPTR' from the application: forward, not past WRPTR, whole events. */
    CHECK_ERR(ofl_evq_set_rdptr(q, 12, 0), OFL_E_EVQ_BAD_PTR);
    CHECK_ERR(ofl_evq_set_rdptr(q, 2, 0), OFL_E_EVQ_BAD_PTR);
    CHECK_ERR(ofl_evq_set_rdptr(q, 0, 1), OFL_E_EVQ_BAD_PTR);
    CHECK_OK(ofl_evq_set_rdptr(q, 4, 0));
    CHECK_ERR(ofl_evq_set_rdptr(q, 0, 0), OFL_E_EVQ_BAD_PTR); /* backwards */
    CHECK_EQ(q->bad_ptr, 4);
    CHECK_EQ(q->rd, 4);
    /* A garbage RDPTR in the control block is refused by refresh; the IRQ
     * bit beside it is still taken. */
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_RDPTR, 0x1000);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_IRQ, 1);
    q->irq = 0;
    CHECK_ERR(ofl_evq_refresh(q), OFL_E_EVQ_BAD_PTR);
    CHECK_EQ(q->irq, 1);
    CHECK_EQ(q->rd, 4);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_IRQ, 0);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_RDPTR, 8);
    CHECK_OK(ofl_evq_refresh(q));
    CHECK_EQ(q->rd, 8);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_RDPTR, 0);

    /* WRPTR' as the application sees it: garbage is refused. */
    CHECK_EQ(ofl_evq_app_pending(a), 2);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_WRPTR, 0x1000);
    CHECK_EQ(ofl_evq_app_pending(a), 0);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_BAD_PTR);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_WRPTR, 6);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_BAD_PTR);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_WRPTR, 8);
    /* Corrupt events. */
    ring = fb.ring[0];
    set_le(&ring[0], 0x00000009); /* type 9 */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[0], 0x00000103); /* flags set */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[0], 0x00000001);
    set_le(&ring[1], 1); /* one variable word cannot hold a record */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[1], 3);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_VWRPTR, 3); /* VWRPTR' */
    set_le(&fb.var[0][0], 12); /* 12 bytes need 3 data words, not 2 */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&fb.var[0][0], 4); /* 4 bytes need 1 */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    /* Fewer words written than the event claims. */
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_VWRPTR, 2);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_VWRPTR, 0x10000);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_BAD_PTR);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_VWRPTR, 3);
    set_le(&fb.var[0][0], 8);
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 8);
}

/* Claims 1 and 17: a blocked port's event goes to the OS queue with an
 * interrupt; a running one's does not. Claims 2, 3, 9: OS criteria. */
static void test_evq_os_path(void)
{
    struct ofl_evq *q;
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    size_t dl;
    unsigned i;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[1];
    a = &fb.app[1];
    ev = mkev(OFL_EVQ_EV_DELIVERY, 1, 0);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_EQ(fb.osq.posted, 0); /* running: the application handles it */
    CHECK_EQ(fb.sim.nevents, 0);
    /* The application blocks: it (or the OS for it) sets IRQ. */
    ofl_evq_app_arm(a);
    CHECK_EQ(ctl_get(fb.ctl[1], OFL_EVQ_CTL_IRQ), 1);
    CHECK_OK(ofl_evq_refresh(q)); /* IRQ' mirrored into the NIC */
    CHECK_EQ(q->irq, 1);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 1);
    CHECK_EQ(fb.sim.event[0].kind, OFL_SIM_EV_NOTIFY);
    CHECK_EQ(fb.sim.event[0].a, APFX_VECTOR_OS);
    CHECK_OK(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl));
    CHECK_EQ(ev.type, OFL_EVQ_EV_OOB_DATA); /* [OOB-DATA:PORT] */
    CHECK_EQ(ev.port, 1);
    CHECK_EQ(ev.a, OFL_EVQ_EV_DELIVERY);
    CHECK_EQ(q->irq, 0); /* one-shot */
    CHECK_EQ(ctl_get(fb.ctl[1], OFL_EVQ_CTL_IRQ), 0);
    ev = mkev(OFL_EVQ_EV_DELIVERY, 2, 0);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 1);
    /* OS criteria: errors always go to the OS. */
    CHECK_ERR(ofl_evq_set_criteria(q, OFL_AP_PRIV_APP, 0), OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_evq_set_criteria(q, OFL_AP_PRIV_OS, 1), OFL_E_ARG);
    CHECK_ERR(ofl_evq_set_criteria(q, OFL_AP_PRIV_OS, 1u << 7), OFL_E_ARG);
    CHECK_OK(ofl_evq_set_criteria(q, OFL_AP_PRIV_OS, 1u << OFL_EVQ_EV_ERROR));
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 1);
    ev = mkev(OFL_EVQ_EV_ERROR, OFL_E_AP_EXTENT, 3);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 2);
    CHECK_OK(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl));
    CHECK_EQ(ev.a, OFL_EVQ_EV_ERROR);
    /* The application still finds all its events. */
    CHECK_EQ(ofl_evq_app_pending(a), 5);
    /* A full OS queue counts what it lost and still interrupts. */
    for (i = 0; i < 12; i++) {
        ev = mkev(OFL_EVQ_EV_ERROR, 1, i);
        (void)ofl_evq_post(q, &ev, NULL, 0);
    }
    CHECK_EQ(fb.osq.posted, 2 + 8);
    CHECK(fb.osq.lost >= 2);
    CHECK_EQ(ctl_get(fb.os_ctl, OFL_EVQ_CTL_LOST), fb.osq.lost);
    CHECK_EQ(fb.sim.nevents, 2 + 12);
}

static void test_evq_init(void)
{
    static uint32_t ring[16], var[16], ctl[8];
    static struct ofl_sim sim;
    struct ofl_evq q, os;
    struct ofl_evq_config c;
    struct ofl_evq_app a;

    ofl_sim_init(&sim);
    ofl_sim_allow(&sim, ctl, sizeof(ctl), OFL_SIM_RW);
    memset(&c, 0, sizeof(c));
    c.port = &sim.port;
    c.ring_pa = ofl_sim_pa(ring);
    c.ring_words = 16;
    c.ctl_pa = ofl_sim_pa(ctl);
    CHECK_OK(ofl_evq_init(&os, &c));
    c.ring_words = 12;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ring_words = 2;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ring_words = 16;
    c.ring_pa += 2;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ring_pa -= 2;
    c.var_pa = ofl_sim_pa(var);
    c.var_words = 10;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.var_words = 16;
    CHECK_OK(ofl_evq_init(&q, &c));
    c.os = &q; /* an OS queue with a variable ring */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.os = &os;
    CHECK_OK(ofl_evq_init(&q, &c));
    c.ctl_pa = 0xFFFFFFFFFFFFFFF0ull;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ctl_pa = ofl_sim_pa(ring); /* not allowed by the guard */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_PORT_DMA);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 12, NULL, 0, ctl, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 16, NULL, 8, ctl, NULL), OFL_E_ARG);
    CHECK_OK(ofl_evq_app_init(&a, ring, 16, var, 8, ctl, NULL));
}

/* ---- the credit-style shared work queue ---------------------------------------------------- */

static void test_wq(void)
{
    struct ofl_ap_wq tx, rx;
    uint32_t off;

    CHECK_ERR(ofl_ap_wq_init(&tx, 100), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_init(&tx, 2), OFL_E_ARG);
    CHECK_OK(ofl_ap_wq_init(&tx, 64));
    CHECK_OK(ofl_ap_wq_init(&rx, 64));
    CHECK_OK(ofl_ap_wq_produce(&tx, 40, &off));
    CHECK_EQ(off, 0);
    CHECK_EQ(ofl_ap_wq_space(&tx), 24);
    /* Never beyond what the receiver freed. */
    CHECK_ERR(ofl_ap_wq_produce(&tx, 25, &off), OFL_E_AP_WQ_NO_CREDIT);
    CHECK_OK(ofl_ap_wq_produce(&tx, 24, &off));
    CHECK_EQ(off, 40);
    CHECK_EQ(ofl_ap_wq_space(&tx), 0);
    /* The receiver hears WRPTR (a stale one first). */
    CHECK_OK(ofl_ap_wq_remote_wr(&rx, 40));
    CHECK_OK(ofl_ap_wq_remote_wr(&rx, 30)); /* reordered: ignored */
    CHECK_EQ(ofl_ap_wq_avail(&rx), 40);
    CHECK_ERR(ofl_ap_wq_remote_wr(&rx, 65), OFL_E_AP_WQ_BAD_PTR);
    CHECK_OK(ofl_ap_wq_remote_wr(&rx, 64));
    CHECK_ERR(ofl_ap_wq_consume(&rx, 65, &off), OFL_E_AP_WQ_NO_CREDIT);
    CHECK_OK(ofl_ap_wq_consume(&rx, 48, &off));
    CHECK_EQ(off, 0);
    /* The sender hears RDPTR. */
    CHECK_ERR(ofl_ap_wq_remote_rd(&tx, 65), OFL_E_AP_WQ_BAD_PTR);
    CHECK_OK(ofl_ap_wq_remote_rd(&tx, 48));
    CHECK_OK(ofl_ap_wq_remote_rd(&tx, 16)); /* stale: ignored */
    CHECK_EQ(ofl_ap_wq_space(&tx), 48);
    CHECK_OK(ofl_ap_wq_produce(&tx, 20, &off));
    CHECK_EQ(off, 0); /* wrapped */
    CHECK_EQ(tx.wr, 84);
    /* Free-running pointers past 2^32. */
    tx.wr = tx.rd = rx.wr = rx.rd = 0xFFFFFFF0u;
    CHECK_OK(ofl_ap_wq_produce(&tx, 32, &off));
    CHECK_EQ(off, 48);
    CHECK_OK(ofl_ap_wq_remote_wr(&rx, tx.wr));
    CHECK_EQ(ofl_ap_wq_avail(&rx), 32);
    CHECK_OK(ofl_ap_wq_consume(&rx, 32, &off));
    CHECK_OK(ofl_ap_wq_remote_rd(&tx, rx.rd));
    CHECK_EQ(ofl_ap_wq_space(&tx), 64);
}

/* ---- connections end to end ------------------------------------------------------------------- */

#define PORT 5000 /* both hosts: UDP port and owner of the apertures */

static const struct ofl_ap_conn_config conn_cfg = {
    100, /* connect_timeout */
    1000, /* alive_interval */
    50,  /* alive_timeout */
    1,   /* nonce_step */
    4,   /* nonce_every */
    2,   /* retries */
    1    /* seq_check */
};

/* The OS of host f: the port's listening IP aperture (in 0 -> UDP 5000,
 * queue 0), a data aperture (in 2 over mem) and an outgoing aperture 0,
 * both closed, owned by PORT, with the grants a user-level connection
 * needs (or fewer). */
static void conn_host(struct apfx *f, uint16_t in_grant, uint16_t out_grant)
{
    struct ofl_ap_in_entry v;
    struct ofl_ap_out_entry ov;

    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_IP;
    v.size = 1514;
    v.evq = 0;
    v.owner = PORT;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&f->nic, OFL_AP_PRIV_OS, 0, 0, &v,
                               OFL_AP_IN_ALL));
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(f->mem);
    v.size = 4096;
    v.owner = PORT;
    v.app_fields = in_grant;
    v.checks = OFL_AP_CHECK_NONCE;
    CHECK_OK(ofl_ap_in_program(&f->nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_MAP | OFL_AP_IN_OWNER |
                                   OFL_AP_IN_SOURCE));
    memset(&ov, 0, sizeof(ov));
    ov.owner = PORT;
    ov.app_fields = out_grant;
    ov.type = OFL_AP_TYPE_CI_DATA;
    CHECK_OK(ofl_ap_out_program(&f->nic, OFL_AP_PRIV_OS, 0, 0, &ov,
                                OFL_AP_OUT_OWNER | OFL_AP_OUT_TYPE));
}

#define IN_GRANT (OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_STATE)
#define OUT_GRANT                                                           \
    (OFL_AP_OUT_TYPE | OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE | OFL_AP_OUT_SEQ | \
     OFL_AP_OUT_STATE)

/* Sends m from connection c (its NIC) to host `to`, which receives the
 * datagram into its port queue; its application takes it out and parses
 * it. */
static enum ofl_err carry(struct ofl_ap_conn *c, const struct ofl_ap_msg *m,
                          struct apfx *to, struct ofl_ap_endpoint *from,
                          struct ofl_ap_msg *got)
{
    uint8_t fr[256], data[256];
    struct ofl_evq_event ev;
    struct ofl_ap_udp u;
    size_t len, dl;
    enum ofl_err e;

    e = ofl_ap_conn_frame(c, m, fr, sizeof(fr), &len);
    if (e == OFL_OK)
        e = ofl_ap_rx(&to->nic, fr, len, NULL);
    if (e == OFL_OK)
        e = ofl_evq_app_poll(&to->app[0], &ev, data, sizeof(data), &dl);
    if (e == OFL_OK && ev.type != OFL_EVQ_EV_DATAGRAM)
        e = OFL_E_EVQ_CORRUPT;
    if (e == OFL_OK)
        e = ofl_ap_udp_parse(data, dl, &u);
    if (e == OFL_OK)
        e = ofl_ap_msg_parse(u.payload, u.payload_len, got);
    if (e == OFL_OK)
        *from = u.src;
    return e;
}

static struct ofl_ap_conn ca, cb;

/* A connects to B: nonces na, nb. */
static void handshake(uint32_t na, uint32_t nb, uint64_t now)
{
    struct ofl_ap_endpoint peer, from;
    struct ofl_ap_msg m, got;
    bool send;

    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    CHECK_OK(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    CHECK_OK(ofl_ap_conn_connect(&ca, now, &peer, na, 10, &m));
    CHECK_EQ(ca.state, OFL_AP_CONN_CONNECTING);
    CHECK_EQ(m.type, OFL_AP_MSG_CONNECT);
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    CHECK_EQ(got.type, OFL_AP_MSG_CONNECT);
    CHECK_EQ(got.in_index, 2);
    CHECK_EQ(got.nonce, na);
    CHECK_EQ(from.udp, PORT);
    /* B's policy accepts. */
    CHECK_OK(ofl_ap_conn_accept(&cb, now, &from, &got, nb, 20, &m));
    CHECK_EQ(cb.state, OFL_AP_CONN_OPEN);
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    CHECK_EQ(got.type, OFL_AP_MSG_ACCEPT);
    CHECK_OK(ofl_ap_conn_rx(&ca, now, &from, &got, &m, &send));
    CHECK(!send);
    CHECK_EQ(ca.state, OFL_AP_CONN_OPEN);
}

static size_t write_frame(struct apfx *f, uint32_t off, const char *s,
                          uint8_t *fr, size_t cap)
{
    struct ofl_ap_tx_frame t;
    size_t len = 0;

    ofl_ap_tx_begin(&t, fr, cap);
    CHECK_OK(ofl_ap_tx_write(&f->nic, &t, APFX_PCI_DATA + off, s, strlen(s)));
    CHECK_OK(ofl_ap_tx_finish(&f->nic, &t, &len));
    return len;
}

static void test_conn_handshake(void)
{
    struct ofl_ap_out_entry oa, ob;
    struct ofl_ap_endpoint from;
    struct ofl_ap_msg m, got;
    uint8_t fr[128], stale[128];
    size_t len, stale_len;
    unsigned i;
    bool send;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    handshake(0xA1A1A1A1u, 0xB1B1B1B1u, 0);
    /* Both outgoing apertures hold the peer's in-index and nonce. */
    CHECK_OK(ofl_ap_out_query(&fa.nic, 0, &oa));
    CHECK_OK(ofl_ap_out_query(&fb.nic, 0, &ob));
    CHECK_EQ(oa.state, OFL_AP_OPEN);
    CHECK_EQ(oa.dst_in_index, 2);
    CHECK_EQ(oa.nonce, 0xB1B1B1B1u);
    CHECK_EQ(oa.seq, 20);
    CHECK_EQ(oa.nonce_every, 4);
    CHECK_EQ(oa.dst_cluster, apfx_host_b.cluster);
    CHECK(memcmp(oa.dst_mac, apfx_host_b.mac, 6) == 0);
    CHECK_EQ(ob.nonce, 0xA1A1A1A1u);
    CHECK_EQ(ob.seq, 10);
    CHECK_EQ(ob.flags, OFL_AP_F_SEQ);
    /* Writes both ways, enough to rotate the nonces twice. */
    for (i = 0; i < 9; i++) {
        len = write_frame(&fa, 16 * i, "a->b", fr, sizeof(fr));
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, len, NULL));
        len = write_frame(&fb, 16 * i, "b->a", fr, sizeof(fr));
        CHECK_OK(ofl_ap_rx(&fa.nic, fr, len, NULL));
    }
    CHECK(memcmp(fb.mem + 128, "a->b", 4) == 0);
    CHECK(memcmp(fa.mem + 128, "b->a", 4) == 0);
    stale_len = write_frame(&fa, 0, "old!", stale, sizeof(stale));
    /* ALIVE / ALIVEACK. */
    CHECK_OK(ofl_ap_conn_tick(&ca, 999, &m, &send));
    CHECK(!send);
    CHECK_OK(ofl_ap_conn_tick(&ca, 1000, &m, &send));
    CHECK(send);
    CHECK_EQ(m.type, OFL_AP_MSG_ALIVE);
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    CHECK_OK(ofl_ap_conn_rx(&cb, 1001, &from, &got, &m, &send));
    CHECK(send);
    CHECK_EQ(m.type, OFL_AP_MSG_ALIVEACK);
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    CHECK_OK(ofl_ap_conn_rx(&ca, 1002, &from, &got, &m, &send));
    CHECK_EQ(ca.alive_pending, 0);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1002, &from, &got, &m, &send),
              OFL_E_AP_CONN_PEER); /* an ACK nobody asked for */
    /* Close: A tells B; both sides' apertures close. */
    CHECK_OK(ofl_ap_conn_close(&ca, &m, &send));
    CHECK(send);
    CHECK_EQ(ca.closed_by, OFL_AP_CLOSE_LOCAL);
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    CHECK_OK(ofl_ap_conn_rx(&cb, 1003, &from, &got, &m, &send));
    CHECK_EQ(cb.state, OFL_AP_CONN_CLOSED);
    CHECK_EQ(cb.closed_by, OFL_AP_CLOSE_PEER);
    {
        struct ofl_ap_tx_frame t;

        ofl_ap_tx_begin(&t, fr, sizeof(fr));
        CHECK_ERR(ofl_ap_tx_write(&fa.nic, &t, APFX_PCI_DATA, "x", 1),
                  OFL_E_AP_CLOSED);
    }
    CHECK_ERR(ofl_ap_rx(&fb.nic, stale, stale_len, NULL), OFL_E_AP_INVALID);
    /* A new connection on the same apertures, new nonces: the old
     * connection's packet is rejected by its nonce. */
    handshake(0xA2A2A2A2u, 0xB2B2B2B2u, 2000);
    CHECK_ERR(ofl_ap_rx(&fb.nic, stale, stale_len, NULL), OFL_E_AP_NONCE);
    len = write_frame(&fa, 0, "new!", fr, sizeof(fr));
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, len, NULL));
    CHECK(memcmp(fb.mem, "new!", 4) == 0);
    CHECK_EQ(fa.sim.violations + fb.sim.violations, 0);
}

static void test_conn_failures(void)
{
    struct ofl_ap_endpoint peer, from, liar;
    struct ofl_ap_msg m, got, con, forged;
    bool send;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    conn_host(&fb, IN_GRANT, OFL_AP_OUT_APP_DEFAULT);
    /* Without the grants the connection cannot start at all. */
    CHECK_ERR(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                               &conn_cfg),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_APP, PORT + 1, 2, 0,
                               &conn_cfg),
              OFL_E_AP_NOT_OWNER);
    CHECK_ERR(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_OS, PORT, 5, 0,
                               &conn_cfg),
              OFL_E_AP_NOT_OWNER); /* aperture 5 does not exist */
    /* The OS runs it for an untrusted application. */
    CHECK_OK(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_OS, PORT, 2, 0,
                              &conn_cfg));

    /* CONNECT lost: resent, then given up. */
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 1, 1, &con));
    CHECK_ERR(ofl_ap_conn_connect(&ca, 0, &peer, 1, 1, &m),
              OFL_E_AP_CONN_STATE);
    CHECK_OK(ofl_ap_conn_tick(&ca, 99, &m, &send));
    CHECK(!send);
    CHECK_OK(ofl_ap_conn_tick(&ca, 100, &m, &send));
    CHECK(send);
    CHECK_EQ(m.type, OFL_AP_MSG_CONNECT);
    CHECK_OK(ofl_ap_conn_tick(&ca, 200, &m, &send));
    CHECK(send);
    CHECK_ERR(ofl_ap_conn_tick(&ca, 300, &m, &send), OFL_E_AP_CONN_TIMEOUT);
    CHECK_EQ(ca.state, OFL_AP_CONN_CLOSED);
    CHECK_EQ(ca.closed_by, OFL_AP_CLOSE_TIMEOUT);
    CHECK_EQ(fa.in[2].state, OFL_AP_CLOSED);

    /* Refused by B's policy. */
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 7, 1, &m));
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    ofl_ap_msg_refusal(&got, PORT, &m);
    {
        struct ofl_ap_udp d;
        uint8_t fr[128], pl[64];
        size_t n, len;

        memset(&d, 0, sizeof(d));
        d.src.host = apfx_host_b;
        d.src.udp = PORT;
        d.dst = from;
        CHECK_OK(ofl_ap_msg_build(&m, pl, sizeof(pl), &n));
        d.payload = pl;
        d.payload_len = n;
        CHECK_OK(ofl_ap_udp_build(&d, 0, fr, sizeof(fr), &len));
        CHECK_OK(ofl_ap_rx(&fa.nic, fr, len, NULL));
    }
    {
        struct ofl_evq_event ev;
        uint8_t data[256];
        size_t dl;
        struct ofl_ap_udp u;

        CHECK_OK(ofl_evq_app_poll(&fa.app[0], &ev, data, sizeof(data), &dl));
        CHECK_OK(ofl_ap_udp_parse(data, dl, &u));
        CHECK_OK(ofl_ap_msg_parse(u.payload, u.payload_len, &got));
        from = u.src;
    }
    forged = got;
    forged.peer_nonce ^= 1; /* a refusal for some other CONNECT */
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &from, &forged, &m, &send),
              OFL_E_AP_CONN_PEER);
    CHECK_EQ(ca.state, OFL_AP_CONN_CONNECTING);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &from, &got, &m, &send),
              OFL_E_AP_CONN_REFUSED);
    CHECK_EQ(ca.state, OFL_AP_CONN_CLOSED);
    CHECK_EQ(ca.closed_by, OFL_AP_CLOSE_REFUSED);
    CHECK_EQ(ca.peer_error, OFL_E_AP_CONN_REFUSED);

    /* Accepted; forged and out-of-state messages change nothing. */
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    CHECK_OK(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 0x11, 1, &m));
    CHECK_OK(carry(&ca, &m, &fb, &from, &con));
    CHECK_OK(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x22, 2, &m));
    CHECK_ERR(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x22, 2, &m),
              OFL_E_AP_CONN_STATE);
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    forged = got;
    forged.peer_nonce = 0x12; /* does not prove our nonce */
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &from, &forged, &m, &send),
              OFL_E_AP_CONN_PEER);
    liar = from;
    liar.host.ip ^= 0x100; /* from another host */
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &liar, &got, &m, &send),
              OFL_E_AP_CONN_PEER);
    CHECK_EQ(ca.state, OFL_AP_CONN_CONNECTING);
    CHECK_OK(ofl_ap_conn_rx(&ca, 0, &from, &got, &m, &send));
    CHECK_OK(ofl_ap_conn_rx(&ca, 0, &from, &got, &m, &send)); /* duplicate */
    CHECK(!send);
    /* The ACCEPT got lost for B's view: A's CONNECT again gets it again. */
    {
        struct ofl_ap_endpoint afrom = peer;

        afrom.host = apfx_host_a;
        CHECK_OK(ofl_ap_conn_rx(&cb, 0, &afrom, &con, &m, &send));
        CHECK(send);
        CHECK_EQ(m.type, OFL_AP_MSG_ACCEPT);
        CHECK_EQ(m.nonce, 0x22);
        con.nonce ^= 1;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 0, &afrom, &con, &m, &send),
                  OFL_E_AP_CONN_PEER);
        CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &afrom, &con, &m, &send),
                  OFL_E_AP_CONN_STATE); /* A is not a listener */
    }
    /* CLOSE / ALIVE / ERROR must prove both ends. */
    CHECK_OK(ofl_ap_conn_close(&ca, &m, &send));
    forged = m;
    forged.peer_nonce ^= 1;
    {
        struct ofl_ap_endpoint afrom = peer;

        afrom.host = apfx_host_a;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 0, &afrom, &forged, &m, &send),
                  OFL_E_AP_CONN_PEER);
        forged.peer_nonce ^= 1;
        forged.nonce ^= 1;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 0, &afrom, &forged, &m, &send),
                  OFL_E_AP_CONN_PEER);
        CHECK_EQ(cb.state, OFL_AP_CONN_OPEN);
        /* An ERROR report is recorded, the connection stays. */
        CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                                  &conn_cfg));
        ca.state = OFL_AP_CONN_OPEN; /* A's view as it was */
        ca.nonce = 0x11;
        ca.peer_in_index = 2;
        ca.peer_nonce = 0x22;
        ca.peer = peer;
        CHECK_OK(ofl_ap_conn_error(&ca, OFL_E_AP_EXTENT, &forged));
        CHECK_OK(ofl_ap_conn_rx(&cb, 5, &afrom, &forged, &m, &send));
        CHECK_EQ(cb.peer_error, OFL_E_AP_EXTENT);
        CHECK_EQ(cb.state, OFL_AP_CONN_OPEN);
        CHECK_ERR(ofl_ap_conn_error(&ca, OFL_OK, &forged), OFL_E_ARG);
        /* OPEN, but no named error: refused, not cut to 16 bits */
        CHECK_ERR(ofl_ap_conn_error(&ca, (enum ofl_err)0x10000, &forged),
                  OFL_E_ARG);
        CHECK_ERR(ofl_ap_conn_error(&ca, OFL_ERR_END_, &forged), OFL_E_ARG);
        CHECK_OK(ofl_ap_conn_error(&ca, (enum ofl_err)(OFL_ERR_END_ - 1),
                                   &forged));
    }
    /* ALIVE unanswered: resent, then the connection is declared dead. */
    CHECK_OK(ofl_ap_conn_tick(&cb, 1005, &m, &send));
    CHECK(send);
    CHECK_EQ(m.type, OFL_AP_MSG_ALIVE);
    CHECK_OK(ofl_ap_conn_tick(&cb, 1054, &m, &send));
    CHECK(!send);
    CHECK_OK(ofl_ap_conn_tick(&cb, 1055, &m, &send));
    CHECK(send);
    CHECK_OK(ofl_ap_conn_tick(&cb, 1105, &m, &send));
    CHECK(send);
    CHECK_ERR(ofl_ap_conn_tick(&cb, 1155, &m, &send), OFL_E_AP_CONN_TIMEOUT);
    CHECK_EQ(cb.closed_by, OFL_AP_CLOSE_TIMEOUT);
    CHECK_EQ(fb.in[2].state, OFL_AP_CLOSED);
    CHECK_EQ(fb.out[0].state, OFL_AP_CLOSED);
    CHECK_ERR(ofl_ap_conn_close(&cb, &m, &send), OFL_E_AP_CONN_STATE);
    got.type = 9;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 0, &from, &got, &m, &send),
              OFL_E_AP_MSG_TYPE);
}

/* A CONNECT reaching a blocked application: the OS is told (claim 1). */
static void test_conn_blocked_port(void)
{
    struct ofl_ap_endpoint peer, from;
    struct ofl_ap_msg m, got;
    struct ofl_evq_event ev;
    size_t dl;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    ofl_evq_app_arm(&fb.app[0]); /* B's application goes to sleep */
    CHECK_OK(ofl_evq_refresh(&fb.evq[0]));
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 3, 3, &m));
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    CHECK_EQ(fb.sim.nevents, 1);
    CHECK_EQ(fb.sim.event[0].a, APFX_VECTOR_OS);
    CHECK_OK(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl));
    CHECK_EQ(ev.type, OFL_EVQ_EV_OOB_DATA);
    CHECK_EQ(ev.port, 0);
    CHECK_EQ(ev.a, OFL_EVQ_EV_DATAGRAM);
    /* Awake again (IRQ was one-shot): the resent CONNECT needs no OS. */
    {
        bool send;

        CHECK_OK(ofl_ap_conn_tick(&ca, 100, &m, &send));
        CHECK(send);
        CHECK_OK(carry(&ca, &m, &fb, &from, &got));
        CHECK_EQ(fb.sim.nevents, 1);
        CHECK_EQ(ofl_evq_app_pending(&fb.osapp), 0);
    }
}

/* ---- arguments and edges: each check tripped and passed ------------------------ */

static void test_nic_init_edges(void)
{
    static struct ofl_ap_in_entry in[4];
    static struct ofl_ap_out_entry out[8];
    static struct ofl_ap_cache_line lines[8];
    static struct ofl_evq q;
    static struct ofl_ap_nic nic;
    static struct ofl_sim sim;
    /* Listed high to low, in PCI space and in index space. */
    struct ofl_ap_out_group g[2] = {{0x10000, 4, 4, 3}, {0x1000, 0, 4, 12}};
    struct ofl_ap_nic_config cfg;
    uint32_t idx, off;

    ofl_sim_init(&sim);
    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &sim.port;
    cfg.in = in;
    cfg.in_capacity = 4;
    cfg.out = out;
    cfg.out_capacity = 8;
    cfg.groups = g;
    cfg.ngroups = 2;
    cfg.max_burst = 64;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_EQ(out[0].pci_base, 0x1000);
    CHECK_EQ(out[3].pci_base, 0x4000);
    CHECK_EQ(out[4].pci_base, 0x10000);
    CHECK_EQ(out[7].pci_base, 0x10018);
    CHECK_OK(ofl_ap_out_decode(&nic, 0x2008, &idx, &off));
    CHECK_EQ(idx, 1);
    CHECK_EQ(off, 8);
    /* Every pointer and capacity rule. */
    cfg.in = NULL;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in = in;
    cfg.in_capacity = (1u << 24) + 1;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_capacity = 4;
    cfg.out_capacity = (1u << 24) + 1;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.out_capacity = 8;
    cfg.out = NULL;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.out_capacity = 0; /* no outgoing table at all */
    cfg.ngroups = 0;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_ERR(ofl_ap_out_decode(&nic, 0x1000, &idx, &off),
              OFL_E_AP_NO_APERTURE);
    cfg.out = out;
    cfg.out_capacity = 8;
    cfg.groups = NULL;
    cfg.ngroups = 2;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.groups = g;
    cfg.nevq = 1; /* queues without an array */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.evq = &q;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    cfg.max_burst = 0;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.max_burst = 64;
    g[0].count = 0;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[0].count = 9; /* more than the table */
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    g[0].count = 4;
    /* Cache geometry: fewer lines than ways, too many lines, lines not a
     * multiple of the ways (one set of 4 for 6 lines). */
    cfg.in_cache = lines;
    cfg.in_cache_lines = 1;
    cfg.in_cache_ways = 2;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache_lines = (1u << 24) * 2;
    cfg.in_cache_ways = 1;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache_lines = 6;
    cfg.in_cache_ways = 4;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.in_cache_lines = 8;
    cfg.in_cache_ways = 8; /* one set of 8 */
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_EQ(nic.in_cache.sets, 1);
    CHECK_EQ(nic.in_cache.set_mask, 0);
    CHECK_EQ(lines[7].tag, OFL_AP_CACHE_EMPTY);
    /* The outgoing cache's geometry is checked the same way. */
    cfg.in_cache = NULL;
    cfg.in_cache_lines = 0;
    cfg.out_cache = lines;
    cfg.out_cache_lines = 3;
    cfg.out_cache_ways = 1;
    CHECK_ERR(ofl_ap_nic_init(&nic, &cfg), OFL_E_ARG);
    cfg.out_cache_lines = 4;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    CHECK_EQ(nic.out_cache.sets, 4);
    CHECK_EQ(nic.out_cache.set_shift, 2);
}

static void test_program_edges(void)
{
    static struct ofl_ap_in_entry in[32];
    static struct ofl_ap_nic nic;
    static struct ofl_sim sim;
    static struct ofl_evq q;
    struct ofl_ap_nic_config cfg;
    struct ofl_ap_in_entry v, qe;
    struct ofl_ap_out_entry ov, oq;
    struct ofl_ap_addr self = apfx_host_a;
    struct apfx_opts o;
    uint32_t idx, off;

    two_hosts(NULL, NULL);
    /* Own addresses: arguments and an unknown privilege. */
    CHECK_ERR(ofl_ap_set_self(NULL, OFL_AP_PRIV_OS, &self), OFL_E_ARG);
    CHECK_ERR(ofl_ap_set_self(&fb.nic, OFL_AP_PRIV_OS, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_set_self(&fb.nic, (enum ofl_ap_priv)9, &self), OFL_E_ARG);
    CHECK_EQ(fb.nic.self.ip, apfx_host_b.ip);
    /* The OS creates an aperture without naming OWNER: its own, no port
     * may program it (port 0, the owner field's zero, included). */
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    v.base = ofl_sim_pa(fb.mem);
    v.size = 64;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 6, &v,
                               OFL_AP_IN_MAP | OFL_AP_IN_STATE));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 6, &qe));
    CHECK_EQ(qe.app_fields, 0);
    CHECK_EQ(qe.state, OFL_AP_OPEN);
    CHECK(qe.flags & OFL_AP_F_OS_OWN);
    v.nonce = 0x1234;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 6, &v,
                                OFL_AP_IN_NONCE),
              OFL_E_AP_NOT_OWNER);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 6, &qe));
    CHECK(qe.nonce != 0x1234);
    /* not even closing it, which an owner may without a grant */
    v.state = OFL_AP_CLOSED;
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 6, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_NOT_OWNER);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 6, &qe));
    CHECK_EQ(qe.state, OFL_AP_OPEN);
    /* The OS names the owner and the grant: now that port may */
    v.owner = 0;
    v.app_fields = OFL_AP_IN_APP_DEFAULT;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 6, &v,
                               OFL_AP_IN_OWNER));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 6, &qe));
    CHECK_EQ(qe.flags & OFL_AP_F_OS_OWN, 0);
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 6, &v,
                               OFL_AP_IN_NONCE));
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 6, &v,
                               OFL_AP_IN_STATE));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 6, &qe));
    CHECK_EQ(qe.state, OFL_AP_CLOSED);
    /* Incoming arguments. */
    CHECK_ERR(ofl_ap_in_allowed(NULL, OFL_AP_PRIV_OS, 0, 6, 0), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_clear(NULL, OFL_AP_PRIV_OS, 6), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_clear(&fb.nic, OFL_AP_PRIV_OS, APFX_IN), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_clear(&fb.nic, (enum ofl_ap_priv)9, 6), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_query(NULL, 6, &qe), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_query(&fb.nic, 6, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_in_query(&fb.nic, APFX_IN, &qe), OFL_E_ARG);
    CHECK_OK(ofl_ap_in_query(&fb.nic, APFX_IN - 1, &qe));

    /* Outgoing arguments, state values and clearing. */
    CHECK_ERR(ofl_ap_out_allowed(NULL, OFL_AP_PRIV_OS, 0, 1, 0), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_allowed(&fa.nic, OFL_AP_PRIV_OS, 0, APFX_OUT, 0),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_allowed(&fa.nic, OFL_AP_PRIV_OS, 0, 1, 0x80),
              OFL_E_ARG);
    CHECK_OK(ofl_ap_out_allowed(&fa.nic, OFL_AP_PRIV_OS, 0, 1,
                                OFL_AP_OUT_ALL));
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, NULL,
                                 OFL_AP_OUT_TYPE),
              OFL_E_ARG);
    CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, 7, 0,
                      false));
    memset(&ov, 0, sizeof(ov));
    ov.state = OFL_AP_FREE; /* only CLOSED or OPEN can be programmed */
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_STATE),
              OFL_E_AP_CONFIG);
    ov.state = 9;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                 OFL_AP_OUT_STATE),
              OFL_E_AP_CONFIG);
    ov.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 1, &ov,
                                OFL_AP_OUT_STATE));
    CHECK_ERR(ofl_ap_out_clear(NULL, OFL_AP_PRIV_OS, 1), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, APFX_OUT), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_clear(&fa.nic, (enum ofl_ap_priv)9, 1), OFL_E_ARG);
    CHECK_OK(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, 1));
    CHECK_OK(ofl_ap_out_query(&fa.nic, 1, &oq));
    CHECK_EQ(oq.state, OFL_AP_FREE);
    CHECK_EQ(oq.nonce, 0);
    CHECK_EQ(oq.pci_base, APFX_PCI_DATA + 4096); /* the layout stays */
    CHECK_OK(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, 13)); /* no group */
    CHECK_OK(ofl_ap_out_query(&fa.nic, 13, &oq));
    CHECK_EQ(oq.pci_base, 0);
    CHECK_ERR(ofl_ap_out_query(NULL, 1, &oq), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_query(&fa.nic, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_query(&fa.nic, APFX_OUT, &oq), OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA, NULL, &off),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_out_decode(&fa.nic, APFX_PCI_DATA, &idx, NULL),
              OFL_E_ARG);
    /* Clearing an outgoing aperture drops its cache line at once. */
    memset(&o, 0, sizeof(o));
    o.cache_lines = 2;
    o.cache_ways = 1;
    CHECK(apfx_init(&fa, &apfx_host_a, &o) == 0);
    CHECK_OK(apfx_out(&fa, 0, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, 7, 0,
                      false));
    {
        struct ofl_ap_tx_frame f;
        uint8_t buf[128];

        ofl_ap_tx_begin(&f, buf, sizeof(buf));
        CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1));
        CHECK_OK(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, 0));
        CHECK_EQ(fa.nic.out_cache.invalidations, 1);
        ofl_ap_tx_begin(&f, buf, sizeof(buf));
        CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1),
                  OFL_E_AP_CLOSED);
    }

    /* An IP aperture serves UDP port udp_base + index: that must be a
     * port. */
    ofl_sim_init(&sim);
    memset(&cfg, 0, sizeof(cfg));
    cfg.port = &sim.port;
    cfg.in = in;
    cfg.in_capacity = 32;
    cfg.evq = &q;
    cfg.nevq = 1;
    cfg.max_burst = 64;
    cfg.udp_base = 0xFFF0;
    CHECK_OK(ofl_ap_nic_init(&nic, &cfg));
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_IP;
    v.size = 1514;
    /* Datagrams go to the queue's variable ring: a queue without one is
     * refused when the aperture is programmed, not on every datagram.
     * (Programming reads only the queue's geometry.) */
    q.var_words = 0;
    CHECK_ERR(ofl_ap_in_program(&nic, OFL_AP_PRIV_OS, 0, 15, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    q.var_words = 64;
    CHECK_OK(ofl_ap_in_program(&nic, OFL_AP_PRIV_OS, 0, 15, &v,
                               OFL_AP_IN_MAP));
    CHECK_ERR(ofl_ap_in_program(&nic, OFL_AP_PRIV_OS, 0, 16, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
}

static void test_tx_edges(void)
{
    static uint8_t big[70000], src[4096];
    static uint8_t buf[256];
    struct ofl_ap_tx_frame f;
    struct ofl_ap_out_entry v;
    size_t len;
    unsigned i;

    pair(NULL, NULL);
    ofl_ap_tx_begin(NULL, buf, sizeof(buf)); /* nothing happens */
    ofl_ap_tx_begin(&f, NULL, sizeof(buf)); /* no buffer: no room */
    CHECK_EQ(f.cap, 0);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1), OFL_E_SIZE);
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_ERR(ofl_ap_tx_write(NULL, &f, APFX_PCI_DATA, "x", 1), OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, NULL, APFX_PCI_DATA, "x", 1),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, NULL, 1), OFL_E_ARG);
    f.kind = 3; /* not a frame state */
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1), OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_finish(&fa.nic, &f, &len), OFL_E_ARG);
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "x", 1));
    CHECK_ERR(ofl_ap_tx_finish(NULL, &f, &len), OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_finish(&fa.nic, NULL, &len), OFL_E_ARG);
    CHECK_ERR(ofl_ap_tx_finish(&fa.nic, &f, NULL), OFL_E_ARG);
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    /* An offset beyond an explicit size (inside the slot). */
    memset(&v, 0, sizeof(v));
    v.size = 64;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 0, &v,
                                OFL_AP_OUT_SIZE));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 65, "x", 1),
              OFL_E_AP_EXTENT);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 63, "x", 1));
    /* An IP datagram that does not fit the frame buffer. */
    CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_IP, &apfx_host_b, 4, 0, 0, false));
    ofl_ap_tx_begin(&f, buf, 59);
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "x", 1),
              OFL_E_SIZE);
    CHECK_EQ(f.kind, 0);
    ofl_ap_tx_begin(&f, buf, 60);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "x", 1));
    /* Sixteen 4 KiB records would overflow the 16-bit records length. */
    CHECK_OK(apfx_out(&fa, 0, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, 7, 0,
                      false));
    ofl_ap_tx_begin(&f, big, sizeof(big));
    for (i = 0; i < 15; i++)
        CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, src, 4096));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, src, 4096),
              OFL_E_AP_PACK);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, src, 3000));
    CHECK_OK(ofl_ap_tx_finish(&fa.nic, &f, &len));
    CHECK_EQ(ofl_load_be16(big + 20), 15 * (24 + 4096) + 24 + 3000);
}

static void test_rx_edges(void)
{
    static uint8_t fr[256];
    struct apfx_opts o;
    struct apfx_rec r;
    struct ofl_ap_in_entry v, q;
    struct ofl_ap_udp d;
    size_t n;

    pair(NULL, NULL);
    /* No frame at all is a truncated one. */
    CHECK_ERR(ofl_ap_rx(&fb.nic, NULL, 0, NULL), OFL_E_AP_TRUNCATED);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, OFL_E_AP_TRUNCATED), 1);
    /* A broken IPv4 frame is rejected with the parser's reason. */
    memset(&d, 0, sizeof(d));
    d.src.host = apfx_host_a;
    d.dst.host = apfx_host_b;
    d.dst.udp = APFX_UDP_BASE + 4;
    CHECK_OK(ofl_ap_udp_build(&d, 1, fr, sizeof(fr), &n));
    fr[14] = 0x55;
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_VERSION);
    CHECK_EQ(ofl_ap_rejected(&fb.nic.stats, OFL_E_AP_VERSION), 1);
    /* A port without a DMA write hook: the record fails at once, no
     * split is tried. */
    memset(&o, 0, sizeof(o));
    o.stall = true;
    pair(NULL, &o);
    fb.stall.port.dma_write = NULL;
    r = good_rec();
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_DMA);
    CHECK_EQ(fb.nic.stats.stall_splits, 0);
    CHECK_EQ(in_seq(&fb, 2), SEQ_B);
    /* An event the queue's DMA cannot write: OFL_E_AP_DMA, the nonce and
     * the queue unchanged. */
    two_hosts(NULL, NULL);
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_EVENT;
    v.size = 8;
    v.evq = 1;
    v.nonce = 42;
    v.nonce_step = 1;
    v.nonce_every = 1;
    v.checks = OFL_AP_CHECK_NONCE;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                               OFL_AP_IN_ALL));
    memset(&r, 0, sizeof(r));
    r.kind = OFL_AP_REC_EVENT;
    r.data = "EVNT";
    r.len = 4;
    r.in_index = 3;
    r.nonce = 42;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    fb.sim.fail_dma_countdown = 1;
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_DMA);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 3, &q));
    CHECK_EQ(q.nonce, 42);
    CHECK_EQ(ofl_evq_app_pending(&fb.app[1]), 0);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL)); /* the queue works again */
    CHECK_EQ(ofl_evq_app_pending(&fb.app[1]), 1);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 3, &q));
    CHECK_EQ(q.nonce, 43); /* rotated after the accepted record */
}

static void test_udp_edges(void)
{
    uint8_t buf[128];
    struct ofl_ap_udp d, u;
    size_t len;
    uint16_t c;

    memset(&d, 0, sizeof(d));
    d.src.host = apfx_host_a;
    d.src.udp = 1;
    d.dst.host = apfx_host_b;
    d.dst.udp = 2;
    CHECK_ERR(ofl_ap_udp_build(NULL, 0, buf, sizeof(buf), &len), OFL_E_ARG);
    CHECK_ERR(ofl_ap_udp_build(&d, 0, NULL, sizeof(buf), &len), OFL_E_ARG);
    CHECK_ERR(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), NULL), OFL_E_ARG);
    d.payload_len = 3; /* without a payload */
    CHECK_ERR(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), &len), OFL_E_ARG);
    d.payload_len = 0; /* an empty datagram */
    CHECK_OK(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), &len));
    CHECK_EQ(len, 60);
    CHECK_OK(ofl_ap_udp_parse(buf, len, &u));
    CHECK_EQ(u.payload_len, 0);
    CHECK_ERR(ofl_ap_udp_parse(NULL, len, &u), OFL_E_ARG);
    CHECK_ERR(ofl_ap_udp_parse(buf, len, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_udp_parse(NULL, 0, &u), OFL_E_AP_TRUNCATED);
    /* A datagram whose checksum computes to 0 carries 0xFFFF (RFC 768):
     * a payload word equal to the checksum without it does that. */
    {
        uint8_t pl[2] = {0, 0};

        d.payload = pl;
        d.payload_len = 2;
        CHECK_OK(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), &len));
        c = ofl_load_be16(buf + 40);
        ofl_store_be16(pl, c);
        CHECK_OK(ofl_ap_udp_build(&d, 0, buf, sizeof(buf), &len));
        CHECK_EQ(ofl_load_be16(buf + 40), 0xFFFF);
        CHECK_OK(ofl_ap_udp_parse(buf, len, &u));
        CHECK_EQ(ofl_load_be16(u.payload), c);
    }
}

static void test_msg_edges(void)
{
    struct ofl_ap_msg m, p;
    uint8_t b[64];
    size_t n;

    memset(&m, 0, sizeof(m));
    m.type = OFL_AP_MSG_CLOSE;
    CHECK_ERR(ofl_ap_msg_build(NULL, b, sizeof(b), &n), OFL_E_ARG);
    CHECK_ERR(ofl_ap_msg_build(&m, NULL, sizeof(b), &n), OFL_E_ARG);
    CHECK_ERR(ofl_ap_msg_build(&m, b, sizeof(b), NULL), OFL_E_ARG);
    CHECK_OK(ofl_ap_msg_build(&m, b, sizeof(b), &n));
    CHECK_ERR(ofl_ap_msg_parse(NULL, n, &p), OFL_E_ARG);
    CHECK_ERR(ofl_ap_msg_parse(b, n, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_msg_parse(NULL, 0, &p), OFL_E_AP_TRUNCATED);
    CHECK_OK(ofl_ap_msg_parse(b, n, &p));
    /* The refusal needs both messages; it answers the CONNECT's identity. */
    memset(&p, 0x5A, sizeof(p));
    ofl_ap_msg_refusal(NULL, 1, &p);
    ofl_ap_msg_refusal(&m, 1, NULL);
    CHECK_EQ(p.type, 0x5A); /* untouched */
    m.type = OFL_AP_MSG_CONNECT;
    m.in_index = 4;
    m.nonce = 5;
    ofl_ap_msg_refusal(&m, 77, &p);
    CHECK_EQ(p.type, OFL_AP_MSG_ERROR);
    CHECK_EQ(p.port, 77);
    CHECK_EQ(p.code, OFL_E_AP_CONN_REFUSED);
    CHECK_EQ(p.peer_in_index, 4);
    CHECK_EQ(p.peer_nonce, 5);
    CHECK_OK(ofl_ap_msg_build(&p, b, sizeof(b), &n));
}

/* ---- event queues: arguments, DMA failures, queues without an OS queue ------ */

static void test_evq_edges(void)
{
    static uint32_t ring[16], var[16], ctl[8], ctl2[8];
    static struct ofl_sim sim;
    struct ofl_evq q, os, os2;
    struct ofl_evq_config c;
    struct ofl_evq_app a;
    struct ofl_port bad;

    ofl_sim_init(&sim);
    ofl_sim_allow(&sim, ctl, sizeof(ctl), OFL_SIM_RW);
    ofl_sim_allow(&sim, ctl2, sizeof(ctl2), OFL_SIM_RW);
    memset(&c, 0, sizeof(c));
    c.port = &sim.port;
    c.ring_pa = ofl_sim_pa(ring);
    c.ring_words = 16;
    c.ctl_pa = ofl_sim_pa(ctl);
    CHECK_ERR(ofl_evq_init(NULL, &c), OFL_E_ARG);
    CHECK_ERR(ofl_evq_init(&q, NULL), OFL_E_ARG);
    bad = sim.port;
    bad.version = 0;
    c.port = &bad;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_PORT_VERSION);
    c.port = &sim.port;
    c.ring_words = 1u << 25; /* above OFL_EVQ_MAX_WORDS */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ring_words = 16;
    c.ring_pa = 0xFFFFFFFFFFFFFFF0ull; /* 64 bytes would wrap */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ring_pa = 0xFFFFFFFFFFFFFFC0ull; /* the last 64 bytes: no wrap */
    CHECK_OK(ofl_evq_init(&q, &c));
    c.ring_pa = ofl_sim_pa(ring);
    c.ctl_pa = ofl_sim_pa(ctl) + 2;
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.ctl_pa = ofl_sim_pa(ctl);
    CHECK_OK(ofl_evq_init(&os, &c));
    c.ctl_pa = ofl_sim_pa(ctl2);
    c.os = &os;
    CHECK_OK(ofl_evq_init(&os2, &c)); /* a queue that has an OS queue ... */
    c.os = &os2; /* ... cannot be one */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.os = NULL;
    c.var_pa = ofl_sim_pa(var);
    c.var_words = 16;
    CHECK_OK(ofl_evq_init(&os2, &c)); /* a queue with a variable ring ... */
    c.var_words = 0;
    c.os = &os2; /* ... cannot be an OS queue either */
    CHECK_ERR(ofl_evq_init(&q, &c), OFL_E_ARG);
    c.os = NULL;
    CHECK_ERR(ofl_evq_set_criteria(NULL, OFL_AP_PRIV_OS, 0), OFL_E_ARG);
    CHECK_ERR(ofl_evq_set_criteria(&os, (enum ofl_ap_priv)9, 0), OFL_E_ARG);
    CHECK_ERR(ofl_evq_set_rdptr(NULL, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_evq_refresh(NULL), OFL_E_ARG);
    CHECK_EQ(ofl_evq_space(NULL), 0);
    CHECK_EQ(ofl_evq_var_space(NULL), 0);
    CHECK_EQ(ofl_evq_var_space(&os), 0); /* no variable ring */
    ofl_evq_set_irq(NULL, true);
    /* The control block cannot be read: refresh reports the port error and
     * changes nothing. */
    sim.fail_dma_countdown = 1;
    CHECK_ERR(ofl_evq_refresh(&os), OFL_E_PORT_DMA);
    CHECK_EQ(os.rd, 0);
    CHECK_OK(ofl_evq_refresh(&os));

    /* The application's side. */
    CHECK_ERR(ofl_evq_app_init(NULL, ring, 16, NULL, 0, ctl, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, NULL, 16, NULL, 0, ctl, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 16, NULL, 0, NULL, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 2, NULL, 0, ctl, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 1u << 25, NULL, 0, ctl, NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 16, var, 12, ctl, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_evq_app_init(&a, ring, 16, var, 1u << 25, ctl, NULL),
              OFL_E_ARG);
    CHECK_OK(ofl_evq_app_init(&a, ring, 16, NULL, 0, ctl, NULL));
    CHECK_EQ(ofl_evq_app_pending(NULL), 0);
    ofl_evq_app_arm(NULL);
    {
        struct ofl_evq_event ev;
        uint8_t out[8];
        size_t dl;

        CHECK_ERR(ofl_evq_app_poll(NULL, &ev, out, sizeof(out), &dl),
                  OFL_E_ARG);
        CHECK_ERR(ofl_evq_app_poll(&a, NULL, out, sizeof(out), &dl),
                  OFL_E_ARG);
        CHECK_ERR(ofl_evq_app_poll(&a, &ev, out, sizeof(out), NULL),
                  OFL_E_ARG);
        CHECK_ERR(ofl_evq_app_poll(&a, &ev, NULL, 1, &dl), OFL_E_ARG);
        CHECK_ERR(ofl_evq_app_poll(&a, &ev, NULL, 0, &dl), OFL_E_EVQ_EMPTY);
    }
}

/* Every DMA of a post can fail: nothing becomes visible and the queue's
 * pointers stay; the next post succeeds. */
static void test_evq_post_failures(void)
{
    struct ofl_evq *q;
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    uint8_t rec[6] = {1, 2, 3, 4, 5, 6}, out[16];
    uint8_t big_rec[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    size_t dl;
    long k;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[0];
    a = &fb.app[0];
    ev = mkev(OFL_EVQ_EV_DATAGRAM, 1, 2);
    CHECK_ERR(ofl_evq_post(NULL, &ev, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_evq_post(q, NULL, NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_evq_post(q, &ev, NULL, 4), OFL_E_ARG);
    /* A 6-byte record: its length word, one full word, the padded tail,
     * the event, then WRPTR' and VWRPTR' - five DMA writes. */
    for (k = 1; k <= 5; k++) {
        fb.sim.fail_dma_countdown = k;
        CHECK_ERR(ofl_evq_post(q, &ev, rec, sizeof(rec)), OFL_E_PORT_DMA);
        CHECK_EQ(q->wr, 0);
        CHECK_EQ(q->var_wr, 0);
        CHECK_EQ(q->lost, 0);
        CHECK_EQ(ofl_evq_app_pending(a), 0);
    }
    CHECK_OK(ofl_evq_post(q, &ev, rec, sizeof(rec)));
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 6);
    CHECK(memcmp(out, rec, 6) == 0);
    /* A record of whole words has no tail: four DMA writes. */
    for (k = 1; k <= 4; k++) {
        fb.sim.fail_dma_countdown = k;
        CHECK_ERR(ofl_evq_post(q, &ev, rec, 4), OFL_E_PORT_DMA);
    }
    CHECK_OK(ofl_evq_post(q, &ev, rec, 4));
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 4);
    /* Words of a record that wrap the variable ring are written in two
     * parts; the second part failing leaves the record invisible too. The
     * ring is consumed up to two words before its end. */
    while (q->var_wr != APFX_VAR_WORDS - 2) {
        uint32_t left = APFX_VAR_WORDS - 2 - q->var_wr;

        /* 8 bytes take 3 words, 4 bytes 2: end exactly at 254. */
        CHECK_OK(ofl_evq_post(q, &ev, big_rec, (left & 1) ? 8 : 4));
        CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
        CHECK_OK(ofl_evq_set_rdptr(q, a->rd, a->var_rd));
    }
    /* Length word at 254, 8 bytes at 255 and 0, the tail at 1: the first
     * or the second part of the split write fails. */
    for (k = 2; k <= 3; k++) {
        fb.sim.fail_dma_countdown = k;
        CHECK_ERR(ofl_evq_post(q, &ev, big_rec, 10), OFL_E_PORT_DMA);
        CHECK_EQ(q->var_wr, APFX_VAR_WORDS - 2);
        CHECK_EQ(fb.sim.fail_dma_countdown, 0);
    }
    CHECK_OK(ofl_evq_post(q, &ev, big_rec, 10));
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 10);
    CHECK(memcmp(out, big_rec, 10) == 0);
    CHECK_EQ(fb.sim.violations, 0);
}

/* A queue without an OS queue (the OS queue itself) raises its own
 * vector, and its overflow is only counted. */
static void test_evq_no_os_queue(void)
{
    struct ofl_evq *os;
    struct ofl_evq_event ev;
    size_t dl;
    unsigned i;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    os = &fb.osq;
    ev = mkev(OFL_EVQ_EV_ERROR, 1, 2);
    CHECK_OK(ofl_evq_post(os, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 0); /* nobody asked for an interrupt */
    ofl_evq_set_irq(os, true);
    CHECK_OK(ofl_evq_post(os, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 1);
    CHECK_EQ(fb.sim.event[0].a, APFX_VECTOR_OS);
    CHECK_EQ(os->interrupts, 1);
    CHECK_EQ(os->irq, 0); /* one-shot */
    ofl_evq_set_irq(os, true);
    ofl_evq_set_irq(os, false); /* disarmed again */
    CHECK_OK(ofl_evq_post(os, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 1);
    CHECK_OK(ofl_evq_set_criteria(os, OFL_AP_PRIV_OS,
                                  1u << OFL_EVQ_EV_ERROR));
    CHECK_OK(ofl_evq_post(os, &ev, NULL, 0));
    CHECK_EQ(fb.sim.nevents, 2);
    for (i = 4; i < APFX_OS_WORDS / 4; i++)
        CHECK_OK(ofl_evq_post(os, &ev, NULL, 0));
    CHECK_ERR(ofl_evq_post(os, &ev, NULL, 0), OFL_E_EVQ_OVERFLOW);
    CHECK_EQ(os->lost, 1);
    CHECK_EQ(os->os_messages, 0);
    CHECK_EQ(ctl_get(fb.os_ctl, OFL_EVQ_CTL_LOST), 1);
    for (i = 0; i < APFX_OS_WORDS / 4; i++)
        CHECK_OK(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl));
    CHECK_ERR(ofl_evq_app_poll(&fb.osapp, &ev, NULL, 0, &dl),
              OFL_E_EVQ_EMPTY);
}

/* What the application reads from the NIC is checked before use. */
static void test_evq_app_checks(void)
{
    struct ofl_evq_app *a;
    struct ofl_evq_event ev;
    uint8_t out[64];
    size_t dl;
    uint32_t *ring;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    a = &fb.app[0];
    ring = fb.ring[0];
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_WRPTR, 2); /* not a whole event */
    CHECK_EQ(ofl_evq_app_pending(a), 0);
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_WRPTR, 4);
    CHECK_EQ(ofl_evq_app_pending(a), 1);
    set_le(&ring[0], OFL_EVQ_EV_NONE); /* type 0 */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[0], OFL_EVQ_EV_MAX + 1);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[0], OFL_EVQ_EV_DATAGRAM);
    set_le(&ring[1], APFX_VAR_WORDS + 1); /* more words than the ring */
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl),
              OFL_E_EVQ_CORRUPT);
    set_le(&ring[1], APFX_VAR_WORDS); /* the whole ring: believable */
    ctl_set(fb.ctl[0], OFL_EVQ_CTL_VWRPTR, APFX_VAR_WORDS);
    set_le(&fb.var[0][0], (APFX_VAR_WORDS - 1) * 4);
    CHECK_ERR(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl), OFL_E_SIZE);
    set_le(&ring[1], 0);
    CHECK_OK(ofl_evq_app_poll(a, &ev, out, sizeof(out), &dl));
    CHECK_EQ(dl, 0);
    CHECK_EQ(ev.type, OFL_EVQ_EV_DATAGRAM);
}

static void test_wq_edges(void)
{
    struct ofl_ap_wq q;
    uint32_t off;

    CHECK_ERR(ofl_ap_wq_init(NULL, 64), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_init(&q, 0), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_init(&q, 1u << 31), OFL_E_ARG);
    CHECK_OK(ofl_ap_wq_init(&q, 1u << 30));
    CHECK_OK(ofl_ap_wq_init(&q, 4));
    CHECK_EQ(ofl_ap_wq_space(NULL), 0);
    CHECK_EQ(ofl_ap_wq_avail(NULL), 0);
    CHECK_ERR(ofl_ap_wq_produce(NULL, 1, &off), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_produce(&q, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_consume(NULL, 1, &off), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_consume(&q, 1, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_remote_rd(NULL, 0), OFL_E_ARG);
    CHECK_ERR(ofl_ap_wq_remote_wr(NULL, 0), OFL_E_ARG);
    CHECK_OK(ofl_ap_wq_produce(&q, 4, &off));
    CHECK_EQ(ofl_ap_wq_space(&q), 0);
}

/* ---- connections: arguments, wrong states, failures underneath --------------- */

static void conn_pair(const struct ofl_ap_conn_config *cfg)
{
    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0, cfg));
    CHECK_OK(ofl_ap_conn_init(&cb, &fb.nic, OFL_AP_PRIV_APP, PORT, 2, 0, cfg));
}

static void test_conn_args(void)
{
    struct ofl_ap_endpoint peer;
    struct ofl_ap_msg m;
    uint8_t fr[128];
    size_t len;
    bool send;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    CHECK_ERR(ofl_ap_conn_init(NULL, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                               &conn_cfg),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_init(&ca, NULL, OFL_AP_PRIV_APP, PORT, 2, 0,
                               &conn_cfg),
              OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                               NULL),
              OFL_E_ARG);
    /* The outgoing aperture must exist too. */
    CHECK_OK(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, 0));
    CHECK_ERR(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_OS, PORT, 2, 0,
                               &conn_cfg),
              OFL_E_AP_NOT_OWNER);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    memset(&m, 0, sizeof(m));
    CHECK_ERR(ofl_ap_conn_connect(NULL, 0, &peer, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_connect(&ca, 0, NULL, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_connect(&ca, 0, &peer, 1, 1, NULL), OFL_E_ARG);
    m.type = OFL_AP_MSG_CONNECT;
    CHECK_ERR(ofl_ap_conn_accept(NULL, 0, &peer, &m, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_accept(&ca, 0, NULL, &m, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_accept(&ca, 0, &peer, NULL, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_accept(&ca, 0, &peer, &m, 1, 1, NULL), OFL_E_ARG);
    m.type = OFL_AP_MSG_ACCEPT; /* only a CONNECT can be accepted */
    CHECK_ERR(ofl_ap_conn_accept(&ca, 0, &peer, &m, 1, 1, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_rx(NULL, 0, &peer, &m, &m, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, NULL, &m, &m, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, NULL, &m, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, NULL, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, &m, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_tick(NULL, 0, &m, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_tick(&ca, 0, NULL, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_tick(&ca, 0, &m, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_close(NULL, &m, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_close(&ca, NULL, &send), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_close(&ca, &m, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_error(NULL, OFL_E_AP_EXTENT, &m), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_error(&ca, OFL_E_AP_EXTENT, NULL), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_frame(NULL, &m, fr, sizeof(fr), &len), OFL_E_ARG);
    CHECK_ERR(ofl_ap_conn_frame(&ca, NULL, fr, sizeof(fr), &len), OFL_E_ARG);
    ofl_ap_conn_heard(NULL, 5);
    /* IDLE: nothing to tick, nothing to close, no error to report, no
     * message but a CONNECT to a listener makes sense. */
    CHECK_OK(ofl_ap_conn_tick(&ca, 1000000, &m, &send));
    CHECK(!send);
    CHECK_ERR(ofl_ap_conn_close(&ca, &m, &send), OFL_E_AP_CONN_STATE);
    CHECK_ERR(ofl_ap_conn_error(&ca, OFL_E_AP_EXTENT, &m),
              OFL_E_AP_CONN_STATE);
    memset(&m, 0, sizeof(m));
    m.type = OFL_AP_MSG_CONNECT;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, &m, &send),
              OFL_E_AP_CONN_STATE);
    m.type = OFL_AP_MSG_ACCEPT;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, &m, &send),
              OFL_E_AP_CONN_STATE);
    m.type = OFL_AP_MSG_ERROR; /* proves the IDLE identity: in 2, nonce 0 */
    m.peer_in_index = 2;
    m.code = 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, &m, &send),
              OFL_E_AP_CONN_STATE);
    m.code = 0;
    m.type = OFL_AP_MSG_ALIVE;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &peer, &m, &m, &send),
              OFL_E_AP_CONN_STATE);
    /* Frames: a message that breaks its rules, a buffer too small. */
    memset(&m, 0, sizeof(m));
    m.type = 9;
    CHECK_ERR(ofl_ap_conn_frame(&ca, &m, fr, sizeof(fr), &len),
              OFL_E_AP_MSG_TYPE);
    m.type = OFL_AP_MSG_CLOSE;
    CHECK_ERR(ofl_ap_conn_frame(&ca, &m, fr, 59, &len), OFL_E_SIZE);
    CHECK_EQ(fa.nic.ip_id, 0);
    CHECK_OK(ofl_ap_conn_frame(&ca, &m, fr, sizeof(fr), &len));
    CHECK_EQ(fa.nic.ip_id, 1);
}

/* The OS changes the apertures underneath a user-level connection. */
static void test_conn_apertures_gone(void)
{
    struct ofl_ap_endpoint peer, from;
    struct ofl_ap_msg m, got, con;
    struct ofl_ap_in_entry q;
    bool send;

    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    /* Active open: the incoming aperture was taken away. */
    conn_pair(&conn_cfg);
    CHECK_OK(ofl_ap_in_clear(&fa.nic, OFL_AP_PRIV_OS, 2));
    CHECK_ERR(ofl_ap_conn_connect(&ca, 0, &peer, 1, 1, &m),
              OFL_E_AP_NOT_OWNER);
    CHECK_EQ(ca.state, OFL_AP_CONN_IDLE);
    /* Passive open: the incoming aperture gone, then the outgoing one (the
     * incoming one is closed again). */
    conn_pair(&conn_cfg);
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 0x11, 1, &m));
    CHECK_OK(carry(&ca, &m, &fb, &from, &con));
    CHECK_OK(ofl_ap_in_clear(&fb.nic, OFL_AP_PRIV_OS, 2));
    CHECK_ERR(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x22, 2, &m),
              OFL_E_AP_NOT_OWNER);
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    CHECK_OK(ofl_ap_out_clear(&fb.nic, OFL_AP_PRIV_OS, 0));
    CHECK_ERR(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x22, 2, &m),
              OFL_E_AP_NOT_OWNER);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED);
    CHECK_EQ(cb.state, OFL_AP_CONN_IDLE);
    /* The ACCEPT arrives after A's outgoing aperture was taken away. */
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    CHECK_OK(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x22, 2, &m));
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    CHECK_OK(ofl_ap_out_clear(&fa.nic, OFL_AP_PRIV_OS, 0));
    CHECK_ERR(ofl_ap_conn_rx(&ca, 0, &from, &got, &m, &send),
              OFL_E_AP_NOT_OWNER);
    CHECK_EQ(ca.state, OFL_AP_CONN_CONNECTING);
    /* Closing an open connection whose apertures went away: it still
     * ends CLOSED and reports the first failure. */
    conn_pair(&conn_cfg);
    handshake(0xA3, 0xB3, 0);
    CHECK_OK(ofl_ap_in_clear(&fa.nic, OFL_AP_PRIV_OS, 2));
    CHECK_ERR(ofl_ap_conn_close(&ca, &m, &send), OFL_E_AP_NOT_OWNER);
    CHECK(send);
    CHECK_EQ(ca.state, OFL_AP_CONN_CLOSED);
    CHECK_OK(ofl_ap_out_clear(&fb.nic, OFL_AP_PRIV_OS, 0));
    CHECK_ERR(ofl_ap_conn_close(&cb, &m, &send), OFL_E_AP_NOT_OWNER);
    CHECK_EQ(cb.state, OFL_AP_CONN_CLOSED);
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED); /* the incoming one did close */
}

static void test_conn_states(void)
{
    static const struct ofl_ap_conn_config quiet = {100, 0, 50, 0, 0, 2, 0};
    struct ofl_ap_endpoint peer, from, liar;
    struct ofl_ap_msg m, got, con, f;
    struct ofl_ap_out_entry oq;
    struct ofl_ap_in_entry q;
    bool send;

    memset(&peer, 0, sizeof(peer));
    peer.host = apfx_host_b;
    peer.udp = PORT;
    /* Without sequence checks and without ALIVE. */
    conn_pair(&quiet);
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 0x31, 1, &m));
    CHECK_EQ(m.flags, 0);
    CHECK_OK(carry(&ca, &m, &fb, &from, &con));
    CHECK_OK(ofl_ap_conn_accept(&cb, 0, &from, &con, 0x32, 2, &m));
    CHECK_OK(ofl_ap_out_query(&fb.nic, 0, &oq));
    CHECK_EQ(oq.flags, 0); /* the peer does not check (b) */
    CHECK_OK(ofl_ap_in_query(&fb.nic, 2, &q));
    CHECK_EQ(q.flags, 0);
    CHECK_OK(ofl_ap_conn_tick(&cb, 1000000, &m, &send));
    CHECK(!send); /* alive_interval 0: never ALIVE */

    /* CONNECTING: an ERROR that is not a refusal is recorded only; one
     * from another host, or not proving our CONNECT, is refused; CLOSE
     * and ALIVE are out of place; a close tells nobody. */
    conn_pair(&conn_cfg);
    CHECK_OK(ofl_ap_conn_connect(&ca, 0, &peer, 0x41, 1, &con));
    from = peer;
    memset(&f, 0, sizeof(f));
    f.type = OFL_AP_MSG_ERROR;
    f.code = OFL_E_AP_EXTENT;
    f.peer_in_index = 2;
    f.peer_nonce = 0x41;
    liar = from;
    liar.host.ip ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &liar, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    f.peer_in_index = 3;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &from, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    f.peer_in_index = 2;
    CHECK_OK(ofl_ap_conn_rx(&ca, 1, &from, &f, &m, &send));
    CHECK_EQ(ca.peer_error, OFL_E_AP_EXTENT);
    CHECK_EQ(ca.state, OFL_AP_CONN_CONNECTING);
    f.type = OFL_AP_MSG_CLOSE;
    f.code = 0;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &from, &f, &m, &send),
              OFL_E_AP_CONN_STATE);
    CHECK_OK(ofl_ap_conn_close(&ca, &m, &send));
    CHECK(!send);
    CHECK_EQ(ca.closed_by, OFL_AP_CLOSE_LOCAL);
    CHECK_OK(ofl_ap_in_query(&fa.nic, 2, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED);
    /* ACCEPT in the wrong state (CLOSED). */
    f.type = OFL_AP_MSG_ACCEPT;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1, &from, &f, &m, &send),
              OFL_E_AP_CONN_STATE);

    /* OPEN: a CONNECT again (B resends its ACCEPT) only from the peer's
     * host, in-index and nonce. */
    conn_pair(&conn_cfg);
    handshake(0x51, 0x52, 0);
    memset(&con, 0, sizeof(con));
    con.type = OFL_AP_MSG_CONNECT;
    con.in_index = 2;
    con.nonce = 0x51;
    {
        struct ofl_ap_endpoint afrom = peer;

        afrom.host = apfx_host_a;
        afrom.host.ip ^= 1;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 3, &afrom, &con, &m, &send),
                  OFL_E_AP_CONN_PEER);
        afrom.host.ip ^= 1;
        con.nonce ^= 1;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 3, &afrom, &con, &m, &send),
                  OFL_E_AP_CONN_PEER);
        con.nonce ^= 1;
        con.in_index ^= 1;
        CHECK_ERR(ofl_ap_conn_rx(&cb, 3, &afrom, &con, &m, &send),
                  OFL_E_AP_CONN_PEER);
        con.in_index ^= 1;
        CHECK_OK(ofl_ap_conn_rx(&cb, 3, &afrom, &con, &m, &send));
        CHECK(send);
        CHECK_EQ(m.type, OFL_AP_MSG_ACCEPT);
    }
    /* That ACCEPT is a duplicate for A; altered, or from elsewhere, or to
     * the passive side, it is out of place. */
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    CHECK_OK(ofl_ap_conn_rx(&ca, 3, &from, &got, &m, &send));
    CHECK(!send);
    f = got;
    f.nonce ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 3, &from, &f, &m, &send),
              OFL_E_AP_CONN_STATE);
    f = got;
    f.peer_nonce ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 3, &from, &f, &m, &send),
              OFL_E_AP_CONN_STATE);
    liar = from;
    liar.host.ip ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 3, &liar, &got, &m, &send),
              OFL_E_AP_CONN_STATE);
    CHECK_ERR(ofl_ap_conn_rx(&cb, 3, &from, &got, &m, &send),
              OFL_E_AP_CONN_STATE);
    CHECK_EQ(ca.state, OFL_AP_CONN_OPEN);
    /* ERROR, CLOSE, ALIVE, ALIVEACK from a host that is not the peer, or
     * with the peer's in-index or nonce wrong. */
    CHECK_OK(ofl_ap_conn_error(&ca, OFL_E_AP_NARROW, &f));
    CHECK_OK(carry(&ca, &f, &fb, &from, &got));
    liar = from;
    liar.host.ip ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 4, &liar, &got, &m, &send),
              OFL_E_AP_CONN_PEER);
    f = got;
    f.in_index ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 4, &from, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    f = got;
    f.nonce ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 4, &from, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    CHECK_OK(ofl_ap_conn_rx(&cb, 4, &from, &got, &m, &send));
    CHECK_EQ(cb.peer_error, OFL_E_AP_NARROW);
    f = got;
    f.type = OFL_AP_MSG_ALIVE;
    f.code = 0;
    f.token = 7;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 4, &liar, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    f.peer_in_index ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&cb, 4, &from, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    /* An ALIVEACK with the wrong token while one is pending. */
    CHECK_OK(ofl_ap_conn_tick(&ca, 1000, &m, &send));
    CHECK(send);
    CHECK_EQ(m.type, OFL_AP_MSG_ALIVE);
    CHECK_OK(carry(&ca, &m, &fb, &from, &got));
    CHECK_OK(ofl_ap_conn_rx(&cb, 1001, &from, &got, &m, &send));
    CHECK_OK(carry(&cb, &m, &fa, &from, &got));
    f = got;
    f.token ^= 1;
    CHECK_ERR(ofl_ap_conn_rx(&ca, 1002, &from, &f, &m, &send),
              OFL_E_AP_CONN_PEER);
    CHECK_EQ(ca.alive_pending, 1);
    CHECK_OK(ofl_ap_conn_rx(&ca, 1002, &from, &got, &m, &send));
    CHECK_EQ(ca.alive_pending, 0);
    /* Traffic counts as hearing from the peer: no ALIVE while it flows. */
    ofl_ap_conn_heard(&ca, 1900);
    CHECK_OK(ofl_ap_conn_tick(&ca, 2899, &m, &send));
    CHECK(!send);
    CHECK_OK(ofl_ap_conn_tick(&ca, 2900, &m, &send));
    CHECK(send);
}

/* ---- the cache: exact LRU, what it never holds, the outgoing side -------------- */

/* One set of four ways against a reference LRU list: every access must
 * miss exactly when the reference misses. */
static void test_cache_lru_model(void)
{
    struct apfx_opts o;
    uint8_t fr[128];
    uint32_t lru[4], nlru = 0, seq[APFX_IN], rng = 12345, misses = 0;
    unsigned k, i, j;

    memset(&o, 0, sizeof(o));
    o.cache_lines = 4;
    o.cache_ways = 4;
    CHECK(apfx_init(&fb, &apfx_host_b, &o) == 0);
    memset(seq, 0, sizeof(seq));
    for (i = 0; i < 7; i++)
        CHECK_OK(apfx_in_data(&fb, i, 64 * i, 64, &apfx_host_a, 100 + i, 0,
                              true));
    for (k = 0; k < 3000; k++) {
        struct apfx_rec r = good_rec();
        bool hit = false;

        i = rnd(&rng) % 7;
        r.in_index = i;
        r.nonce = 100 + i;
        r.seq = seq[i]++;
        r.offset = 0;
        CHECK_OK(ofl_ap_rx(&fb.nic, fr, apfx_ci(fr, sizeof(fr), NULL, &r, 1),
                           NULL));
        /* Reference: lru[0] most recent. */
        for (j = 0; j < nlru; j++)
            if (lru[j] == i)
                hit = true;
        if (!hit) {
            misses++;
            if (nlru < 4)
                nlru++;
            j = nlru - 1; /* the last one goes (or the new slot) */
        } else {
            for (j = 0; lru[j] != i; j++)
                ;
        }
        for (; j > 0; j--)
            lru[j] = lru[j - 1];
        lru[0] = i;
        if (fb.nic.in_cache.misses != misses) {
            CHECK_EQ(fb.nic.in_cache.misses, misses);
            break;
        }
    }
    CHECK_EQ(fb.nic.in_cache.misses, misses);
    CHECK_EQ(fb.nic.in_cache.evictions, misses - 4);
    /* Every sequence number went through the lines and back. */
    ofl_ap_cache_flush(&fb.nic);
    for (i = 0; i < 7; i++)
        CHECK_EQ(fb.in[i].seq, seq[i]);
}

static void test_cache_edges(void)
{
    struct apfx_opts o;
    struct ofl_ap_in_entry v;
    struct apfx_rec r;
    uint8_t fr[128];
    uint32_t misses;
    size_t n;

    memset(&o, 0, sizeof(o));
    o.cache_lines = 2; /* one set of two */
    o.cache_ways = 2;
    two_hosts(NULL, &o);
    CHECK_OK(apfx_in_data(&fb, 0, 0, 64, &apfx_host_a, 100, 0, true));
    CHECK_OK(apfx_in_data(&fb, 1, 64, 64, &apfx_host_a, 101, 0, false));
    /* An index beyond the table never matches an empty line, not even
     * 0xFFFFFFFF (whose index + 1 is 0). */
    r = good_rec();
    r.in_index = 0xFFFFFFFFu;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_INDEX);
    CHECK_EQ(fb.nic.in_cache.misses, 0);
    /* An aperture that is not open is looked up but never cached. */
    r.in_index = 5;
    r.nonce = 0;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_INVALID);
    CHECK_ERR(ofl_ap_rx(&fb.nic, fr, n, NULL), OFL_E_AP_INVALID);
    CHECK_EQ(fb.nic.in_cache.misses, 2);
    CHECK_EQ(fb.in_cache[0].tag, OFL_AP_CACHE_EMPTY);
    CHECK_EQ(fb.in_cache[1].tag, OFL_AP_CACHE_EMPTY);
    /* 0 (sequence checks: dirty) and 1 (no per-packet state: clean). */
    r = good_rec();
    r.in_index = 0;
    r.nonce = 100;
    r.seq = 0;
    r.offset = 0;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    r.in_index = 1;
    r.nonce = 101;
    r.flags = 0;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK_EQ(fb.in_cache[0].tag, 1); /* way 0: the most recent */
    CHECK_EQ(fb.in_cache[0].dirty, 0);
    CHECK_EQ(fb.in_cache[1].tag, 0);
    CHECK_EQ(fb.in_cache[1].dirty, 1);
    /* Flushing writes the dirty line back and keeps it dirty: later
     * records still reach the table at the next flush. */
    ofl_ap_cache_flush(&fb.nic);
    CHECK_EQ(fb.in[0].seq, 1);
    CHECK_EQ(fb.nic.in_cache.writebacks, 1);
    r = good_rec();
    r.in_index = 0;
    r.nonce = 100;
    r.seq = 1;
    r.offset = 0;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    misses = fb.nic.in_cache.misses;
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL)); /* a hit on way 1: swapped */
    CHECK_EQ(fb.nic.in_cache.misses, misses);
    CHECK_EQ(fb.in_cache[0].tag, 0);
    ofl_ap_cache_flush(&fb.nic);
    CHECK_EQ(fb.in[0].seq, 2);
    ofl_ap_cache_flush(NULL);
    /* Dropping way 0 leaves it empty: the next miss fills it without an
     * eviction. */
    memset(&v, 0, sizeof(v));
    v.nonce = 200;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_APP, 0, 0, &v,
                               OFL_AP_IN_NONCE));
    CHECK_EQ(fb.in_cache[0].tag, OFL_AP_CACHE_EMPTY);
    CHECK_OK(apfx_in_data(&fb, 2, 128, 64, &apfx_host_a, 102, 0, false));
    r.in_index = 2;
    r.nonce = 102;
    r.flags = 0;
    n = apfx_ci(fr, sizeof(fr), NULL, &r, 1);
    CHECK_OK(ofl_ap_rx(&fb.nic, fr, n, NULL));
    CHECK_EQ(fb.in_cache[0].tag, 2);
    CHECK_EQ(fb.in_cache[1].tag, 1);
    CHECK_EQ(fb.nic.in_cache.evictions, 0);
}

/* The outgoing cache: lines move between ways, a rotating nonce makes a
 * line dirty, a closed aperture is not cached. */
static void test_out_cache_edges(void)
{
    struct apfx_opts o;
    struct ofl_ap_out_entry v, q;
    struct ofl_ap_tx_frame f;
    uint8_t buf[256];

    memset(&o, 0, sizeof(o));
    o.cache_lines = 2;
    o.cache_ways = 2;
    two_hosts(&o, NULL);
    CHECK_OK(apfx_out(&fa, 0, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 2, 10, 0,
                      false));
    CHECK_OK(apfx_out(&fa, 1, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 3, 20, 0,
                      false));
    CHECK_OK(apfx_out(&fa, 2, OFL_AP_TYPE_CI_DATA, &apfx_host_b, 4, 30, 0,
                      false));
    memset(&v, 0, sizeof(v));
    v.nonce = 10;
    v.nonce_step = 5;
    v.nonce_every = 1; /* no sequence numbers, but a rotating nonce */
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 0, &v,
                                OFL_AP_OUT_NONCE));
    ofl_ap_tx_begin(&f, buf, sizeof(buf));
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "a", 1));
    CHECK_EQ(fa.out_cache[0].dirty, 1);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "b", 1));
    CHECK_EQ(fa.out_cache[0].dirty, 0); /* 1: nothing changes per record */
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA, "c", 1)); /* swap */
    CHECK_EQ(fa.nic.out_cache.misses, 2);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 2 * 4096, "d", 1));
    CHECK_EQ(fa.nic.out_cache.evictions, 1); /* 1 was the oldest */
    CHECK_EQ(fa.out[0].nonce, 10); /* 0 is still cached */
    CHECK_OK(ofl_ap_out_query(&fa.nic, 0, &q));
    CHECK_EQ(q.nonce, 20);
    CHECK_OK(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 4096, "e", 1));
    CHECK_EQ(fa.out[0].nonce, 20); /* evicted now, written back */
    CHECK_EQ(fa.nic.out_cache.writebacks, 1);
    CHECK_EQ(fa.nic.out_cache.evictions, 2);
    /* A closed aperture with a cache: refused, not cached. */
    v.type = OFL_AP_TYPE_CI_DATA;
    v.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 3, &v,
                                OFL_AP_OUT_TYPE | OFL_AP_OUT_STATE));
    CHECK_ERR(ofl_ap_tx_write(&fa.nic, &f, APFX_PCI_DATA + 3 * 4096, "f", 1),
              OFL_E_AP_CLOSED);
    CHECK_EQ(fa.nic.out_cache.misses, 5);
    CHECK_EQ(fa.nic.out_cache.evictions, 2);
    CHECK_EQ(fa.out_cache[0].tag, 1);
    CHECK_EQ(fa.out_cache[1].tag, 2);
}

/* ---- review findings (each failed before its fix) ------------------------ */

/* An outgoing aperture the OS creates without OWNER is its own too. */
static void test_out_os_owned(void)
{
    struct ofl_ap_out_entry ov, oq;

    two_hosts(NULL, NULL);
    memset(&ov, 0, sizeof(ov));
    ov.type = OFL_AP_TYPE_CI_DATA;
    ov.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_OS, 0, 3, &ov,
                                OFL_AP_OUT_TYPE | OFL_AP_OUT_STATE));
    CHECK_OK(ofl_ap_out_query(&fa.nic, 3, &oq));
    CHECK_EQ(oq.app_fields, 0);
    memset(ov.dst_mac, 0x66, 6);
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 0, 3, &ov,
                                 OFL_AP_OUT_DEST),
              OFL_E_AP_NOT_OWNER);
    ov.state = OFL_AP_CLOSED;
    CHECK_ERR(ofl_ap_out_program(&fa.nic, OFL_AP_PRIV_APP, 0, 3, &ov,
                                 OFL_AP_OUT_STATE),
              OFL_E_AP_NOT_OWNER);
    CHECK_OK(ofl_ap_out_query(&fa.nic, 3, &oq));
    CHECK_EQ(oq.state, OFL_AP_OPEN);
    CHECK(oq.dst_mac[0] != 0x66);
}

/* A connection needs check (c) on its incoming aperture: without it a
 * stale connection's frames would pass after a reconnect. */
static void test_conn_needs_nonce_check(void)
{
    struct ofl_ap_in_entry v;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    memset(&v, 0, sizeof(v));
    v.checks = 0;
    CHECK_OK(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_SOURCE));
    CHECK_ERR(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                               &conn_cfg),
              OFL_E_AP_CONFIG);
    v.checks = OFL_AP_CHECK_NONCE;
    CHECK_OK(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_SOURCE));
    CHECK_OK(ofl_ap_conn_init(&ca, &fa.nic, OFL_AP_PRIV_APP, PORT, 2, 0,
                              &conn_cfg));
}

/* Closing takes access away: the owner closes without a STATE grant (the
 * OS narrowed it after the handshake), and the OS closes an IP aperture
 * whose queue has lost its variable ring. Other changes still need both. */
static void test_close_needs_no_grant(void)
{
    struct ofl_ap_in_entry v, q;
    struct ofl_evq_config qc;
    struct ofl_ap_msg m;
    bool send;

    two_hosts(NULL, NULL);
    conn_host(&fa, IN_GRANT, OUT_GRANT);
    conn_host(&fb, IN_GRANT, OUT_GRANT);
    handshake(0xA1, 0xB1, 0);
    memset(&v, 0, sizeof(v));
    v.owner = PORT;
    v.app_fields = OFL_AP_IN_NONCE | OFL_AP_IN_SEQ; /* STATE taken away */
    CHECK_OK(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_OS, 0, 2, &v,
                               OFL_AP_IN_OWNER));
    v.state = OFL_AP_OPEN; /* opening still needs the grant */
    CHECK_ERR(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_APP, PORT, 2, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_PRIVILEGE);
    CHECK_ERR(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_APP, PORT + 1, 2, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_NOT_OWNER);
    v.state = OFL_AP_CLOSED; /* nor another port's close */
    CHECK_ERR(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_APP, PORT + 1, 2, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_NOT_OWNER);
    CHECK_OK(ofl_ap_conn_close(&ca, &m, &send));
    CHECK_EQ(ca.state, OFL_AP_CONN_CLOSED);
    CHECK_OK(ofl_ap_in_query(&fa.nic, 2, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED);
    /* a FREE entry is not "closed" into existence by an application */
    CHECK_ERR(ofl_ap_in_program(&fa.nic, OFL_AP_PRIV_APP, PORT, 9, &v,
                                OFL_AP_IN_STATE),
              OFL_E_AP_NOT_OWNER);
    /* the OS closes an IP aperture after its queue lost the ring */
    memset(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_IP;
    v.size = 1514;
    v.evq = 1;
    v.state = OFL_AP_OPEN;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                               OFL_AP_IN_ALL));
    memset(&qc, 0, sizeof(qc));
    qc.port = &fb.sim.port;
    qc.ring_pa = ofl_sim_pa(fb.ring[1]);
    qc.ring_words = APFX_RING_WORDS;
    qc.ctl_pa = ofl_sim_pa(fb.ctl[1]);
    qc.port_id = 1;
    qc.os = &fb.osq;
    CHECK_OK(ofl_evq_init(&fb.evq[1], &qc)); /* no variable ring now */
    v.size = 1500; /* any other change is still validated */
    CHECK_ERR(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                                OFL_AP_IN_MAP),
              OFL_E_AP_CONFIG);
    v.state = OFL_AP_CLOSED;
    CHECK_OK(ofl_ap_in_program(&fb.nic, OFL_AP_PRIV_OS, 0, 1, &v,
                               OFL_AP_IN_STATE));
    CHECK_OK(ofl_ap_in_query(&fb.nic, 1, &q));
    CHECK_EQ(q.state, OFL_AP_CLOSED);
}

/* The one-shot IRQ bit is cleared before the event's WRPTR is published
 * (an application woken by the event re-arms after the clear). The order
 * of the NIC's writes to the control block is recorded. */
static const struct ofl_port *g_rec_inner;
static uint64_t g_rec_ctl;
static int g_rec_n, g_rec_irq, g_rec_wrptr;

static int rec_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    if (pa == g_rec_ctl + OFL_EVQ_CTL_IRQ)
        g_rec_irq = ++g_rec_n;
    if (pa == g_rec_ctl + OFL_EVQ_CTL_WRPTR)
        g_rec_wrptr = ++g_rec_n;
    return g_rec_inner->dma_write(ctx, pa, src, len);
}

static void test_evq_irq_order(void)
{
    struct ofl_evq *q;
    struct ofl_evq_event ev;
    static struct ofl_port rec;

    CHECK(apfx_init(&fb, &apfx_host_b, NULL) == 0);
    q = &fb.evq[1];
    g_rec_inner = q->port;
    rec = *q->port;
    rec.dma_write = rec_dma_write;
    q->port = &rec;
    g_rec_ctl = ofl_sim_pa(fb.ctl[1]);
    ofl_evq_app_arm(&fb.app[1]);
    CHECK_OK(ofl_evq_refresh(q));
    CHECK_EQ(q->irq, 1);
    g_rec_n = g_rec_irq = g_rec_wrptr = 0;
    ev = mkev(OFL_EVQ_EV_DELIVERY, 1, 0);
    CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    CHECK(g_rec_irq != 0 && g_rec_wrptr != 0);
    CHECK(g_rec_irq < g_rec_wrptr);
    CHECK_EQ(ctl_get(fb.ctl[1], OFL_EVQ_CTL_IRQ), 0);
    /* an event that cannot be published leaves the queue armed */
    ofl_evq_app_arm(&fb.app[1]);
    CHECK_OK(ofl_evq_refresh(q));
    while (ofl_evq_space(q) != 0)
        CHECK_OK(ofl_evq_post(q, &ev, NULL, 0));
    ofl_evq_app_arm(&fb.app[1]);
    CHECK_OK(ofl_evq_refresh(q));
    CHECK_ERR(ofl_evq_post(q, &ev, NULL, 0), OFL_E_EVQ_OVERFLOW);
    CHECK_EQ(q->irq, 1);
    CHECK_EQ(ctl_get(fb.ctl[1], OFL_EVQ_CTL_IRQ), 1);
    q->port = g_rec_inner;
}

OFL_SUITE(ap)
{
    test_nic_init();
    test_decode();
    test_privilege();
    test_config_validation();
    test_tx_layout();
    test_tx_rx_pack();
    test_tx_checks();
    test_rx_checks();
    test_rx_check_selection();
    test_bursts();
    test_nonce_rotation();
    test_cache();
    test_cache_equivalence();
    test_out_cache();
    test_event_aperture();
    test_ip_aperture();
    test_udp_parse();
    test_msg_codec();
    test_evq_basic();
    test_evq_overflow();
    test_evq_pointers();
    test_evq_os_path();
    test_notices();
    test_notices_small_ring();
    test_evq_init();
    test_wq();
    test_conn_handshake();
    test_conn_failures();
    test_conn_blocked_port();
    test_nic_init_edges();
    test_program_edges();
    test_tx_edges();
    test_rx_edges();
    test_udp_edges();
    test_msg_edges();
    test_evq_edges();
    test_evq_post_failures();
    test_evq_no_os_queue();
    test_evq_app_checks();
    test_wq_edges();
    test_out_os_owned();
    test_conn_needs_nonce_check();
    test_close_needs_no_grant();
    test_evq_irq_order();
    test_conn_args();
    test_conn_apertures_gone();
    test_conn_states();
    test_cache_lru_model();
    test_cache_edges();
    test_out_cache_edges();
}
