/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pp messages carried as 256-byte cells (seed 002: "If the data is larger
 * than a predetermined size (e.g., 256 bytes) the channel adapter at the
 * source may segment the data into multiple segments, wherein each
 * segment is sent in a separate cell"): cell channels of a connection,
 * detached (ofl_pp_msg_cells / ofl_pp_conn_recv_cell) and over real QPs
 * (ofl_pp_post_msg, ofl_pp_write's BufferRDMAIndicate).
 */
#include "test.h"
#include "support/qp_rig.h"

#define CS OFL_PP_CELL_SIZE
#define TCAP 8
#define TMAX 64
#define RCAP 2048u      /* reassembly buffer of the detached ends */
#define NCELL 16

struct ce_end {
    struct ofl_pp_conn c;
    struct ofl_pp_pool rx_slot[TCAP], tx_slot[TCAP];
    uint32_t rx_bits[TCAP * 2], tx_bits[TCAP * 2];
    struct ofl_pp_cells cells;
    uint8_t rbuf[RCAP];
};

static struct ce_end g_a, g_b, g_snap;
static struct ofl_pp_msg g_m, g_in, g_reply;
static uint8_t g_msg[RCAP + 64];
static uint8_t g_cell[NCELL][CS + 64];
static size_t g_clen[NCELL];
static uint8_t g_data[RCAP];

static void ce_setup(struct ce_end *e, uint32_t tx_psn, uint32_t rx_psn)
{
    struct ofl_pp_conn_cfg cfg;

    memset(e, 0, sizeof(*e));
    CHECK_OK(ofl_pp_cells_init(&e->cells, NULL, e->rbuf, RCAP, CS, tx_psn,
                               rx_psn));
    memset(&cfg, 0, sizeof(cfg));
    cfg.rx = (struct ofl_pp_pools_mem){e->rx_slot, TCAP, TMAX, e->rx_bits,
                                       TCAP * 2};
    cfg.tx = (struct ofl_pp_pools_mem){e->tx_slot, TCAP, TMAX, e->tx_bits,
                                       TCAP * 2};
    cfg.cells[OFL_PP_CTRL] = &e->cells;
    CHECK_OK(ofl_pp_conn_init(&e->c, &cfg));
    CHECK_OK(ofl_pp_conn_start(&e->c));
}

/* Cuts m (from e, on the control channel) into g_cell; the cell count, or
 * 0 with *err set. */
static uint32_t cut_msg(struct ce_end *e, const struct ofl_pp_msg *m,
                        enum ofl_err *err)
{
    struct ofl_pp_packet p;
    uint32_t i, n;

    *err = ofl_pp_msg_cells(&e->c, OFL_PP_CTRL, m, g_msg, sizeof(g_msg), &p);
    if (*err != OFL_OK)
        return 0;
    n = ofl_pp_cell_count(CS, p.len);
    if (n == 0 || n > NCELL)
        return 0;
    for (i = 0; i < n; i++) {
        *err = ofl_pp_cell_build(NULL, CS, &p, i, g_cell[i],
                                 sizeof(g_cell[i]), &g_clen[i]);
        if (*err != OFL_OK)
            return 0;
    }
    return n;
}

/* Cuts a SendData of data_len bytes from g_a, numbered as b expects (a
 * packet b dropped is sent again under its number). */
static uint32_t cut_send(uint32_t data_len)
{
    enum ofl_err err;

    g_a.cells.tx_psn = g_b.cells.rx.psn;
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_SEND_DATA;
    g_m.data = g_data;
    g_m.data_len = data_len;
    return cut_msg(&g_a, &g_m, &err);
}

static enum ofl_err give(struct ce_end *e, uint32_t i, bool *done)
{
    struct ofl_pp_rx rx = {&g_in, &g_reply, false};
    enum ofl_err err = ofl_pp_conn_recv_cell(&e->c, OFL_PP_CTRL, g_cell[i],
                                             g_clen[i], &rx);

    *done = rx.done;
    return err;
}

/* Feeds cells 0 .. n - 1 to g_b; OFL_OK when all were taken and the last
 * (only the last) completed a SendData equal to g_data[0 .. len). */
static int deliver_all(uint32_t n, uint32_t len)
{
    uint32_t i;
    bool done = false;

    for (i = 0; i < n; i++)
        if (give(&g_b, i, &done) != OFL_OK || done != (i == n - 1))
            return -1;
    return g_in.type == OFL_PP_SEND_DATA && g_in.data_len == len &&
                   memcmp(g_in.data, g_data, len) == 0
               ? 0
               : -1;
}

static void snap(void)
{
    memcpy(&g_snap, &g_b, sizeof(g_b));
}

/* g_b's pools, state and message counters are as snapped. */
static bool b_unchanged(void)
{
    return memcmp(g_b.rx_slot, g_snap.rx_slot, sizeof(g_b.rx_slot)) == 0 &&
           memcmp(g_b.tx_slot, g_snap.tx_slot, sizeof(g_b.tx_slot)) == 0 &&
           memcmp(g_b.rx_bits, g_snap.rx_bits, sizeof(g_b.rx_bits)) == 0 &&
           memcmp(g_b.tx_bits, g_snap.tx_bits, sizeof(g_b.tx_bits)) == 0 &&
           g_b.c.state == g_snap.c.state &&
           g_b.c.tx.active == g_snap.c.tx.active &&
           g_b.c.rx.active == g_snap.c.rx.active &&
           g_b.c.stats.msgs_rx == g_snap.c.stats.msgs_rx;
}

/* Re-seals cell i after an edit. */
static void reseal(uint32_t i)
{
    ofl_store_be32(g_cell[i] + g_clen[i] - 4,
                   ofl_crc32c(g_cell[i], g_clen[i] - 4));
}

static void test_cells_setup(void)
{
    struct ofl_pp_cells c, d;
    struct ofl_pp_conn_cfg cfg;
    struct ofl_pp_conn conn;
    static uint8_t buf[64];

    CHECK_EQ(ofl_pp_cell_bytes(CS, 1), 12 + 16 + 1 + 4 + 4);
    CHECK_EQ(ofl_pp_cell_bytes(CS, CS), 12 + 16 + CS + 4 + 4);
    CHECK_EQ(ofl_pp_cell_bytes(CS, CS + 1), 2 * 12 + 16 + CS + 1 + 2 * 4 + 4);
    CHECK_EQ(ofl_pp_cell_bytes(CS, 0), 0);
    CHECK_EQ(ofl_pp_cell_bytes(100, 10), 0);
    CHECK_ERR(ofl_pp_cells_init(NULL, NULL, buf, 64, CS, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_pp_cells_init(&c, NULL, buf, 64, 255, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_pp_cells_init(&c, NULL, NULL, 64, CS, 0, 0), OFL_E_ARG);
    CHECK_ERR(ofl_pp_cells_init(&c, NULL, buf, 0, CS, 0, 0), OFL_E_ARG);
    CHECK_OK(ofl_pp_cells_init(&c, NULL, buf, 64, CS, 5, 9));
    CHECK_EQ(c.tx_psn, 5);
    CHECK_EQ(c.rx.psn, 9);
    CHECK_EQ(c.cell_size, CS);

    /* conn_init: a cells entry not initialised, or both channels on one */
    memset(&cfg, 0, sizeof(cfg));
    cfg.rx = (struct ofl_pp_pools_mem){g_a.rx_slot, TCAP, TMAX, g_a.rx_bits,
                                       TCAP * 2};
    cfg.tx = (struct ofl_pp_pools_mem){g_a.tx_slot, TCAP, TMAX, g_a.tx_bits,
                                       TCAP * 2};
    memset(&d, 0, sizeof(d));
    cfg.cells[OFL_PP_CTRL] = &d;
    CHECK_ERR(ofl_pp_conn_init(&conn, &cfg), OFL_E_ARG);
    d = c;
    d.cell_size = 128; /* disagrees with the reassembly's */
    CHECK_ERR(ofl_pp_conn_init(&conn, &cfg), OFL_E_ARG);
    cfg.cells[OFL_PP_CTRL] = &c;
    cfg.cells[OFL_PP_DATA] = &c;
    CHECK_ERR(ofl_pp_conn_init(&conn, &cfg), OFL_E_ARG);
    cfg.cells[OFL_PP_DATA] = NULL;
    CHECK_OK(ofl_pp_conn_init(&conn, &cfg));
    CHECK(conn.cells[OFL_PP_CTRL] == &c && conn.cells[OFL_PP_DATA] == NULL);
}

/* Message sizes: exactly one cell, a cell + 1 byte, the reassembly
 * buffer's maximum and one byte more, the 2^16-cell limit of a packet. */
static void test_cells_sizes(void)
{
    struct ofl_pp_packet p;
    uint32_t i, n;
    bool done = false;

    for (i = 0; i < sizeof(g_data); i++)
        g_data[i] = (uint8_t)(i * 13 + 1);
    ce_setup(&g_a, 100, 0);
    ce_setup(&g_b, 0, 100);

    /* SendData of 248 bytes: 8 + 248 = 256, exactly one cell */
    n = cut_send(CS - 8);
    CHECK_EQ(n, 1);
    CHECK_EQ(g_cell[0][1], OFL_PP_CELL_F_FIRST | OFL_PP_CELL_F_LAST);
    CHECK_EQ(g_clen[0], ofl_pp_cell_bytes(CS, CS));
    CHECK_EQ(g_a.cells.tx_psn, 101);
    CHECK_EQ(deliver_all(n, CS - 8), 0);
    CHECK_EQ(g_b.cells.rx.psn, 101);
    CHECK_EQ(g_b.c.stats.msgs_rx, 1);

    /* a cell + 1 byte: two cells, the second of one byte */
    n = cut_send(CS - 7);
    CHECK_EQ(n, 2);
    CHECK_EQ(ofl_load_be16(g_cell[1] + 2), 1);
    CHECK_EQ(g_cell[1][1], OFL_PP_CELL_F_LAST);
    CHECK_EQ(deliver_all(n, CS - 7), 0);

    /* the maximum the reassembly takes: RCAP bytes (8 cells) */
    n = cut_send(RCAP - 8);
    CHECK_EQ(n, RCAP / CS);
    CHECK_EQ(deliver_all(n, RCAP - 8), 0);
    CHECK_EQ(g_b.c.stats.msgs_rx, 3);

    /* one byte more: refused at its first cell, nothing reaches b's
     * tables; the rest of the packet is MISSING its first cell */
    n = cut_send(RCAP - 7);
    CHECK_EQ(n, RCAP / CS + 1);
    snap();
    CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_TOO_LONG);
    CHECK(!done);
    CHECK_ERR(give(&g_b, 1, &done), OFL_E_PP_CELL_MISSING);
    CHECK(b_unchanged());
    CHECK_EQ(g_b.cells.rx.open, 0);
    /* b still expects that number: the next packet sent under it is
     * taken */
    CHECK_EQ(g_b.cells.rx.psn, g_a.cells.tx_psn - 1);
    n = cut_send(10);
    CHECK_EQ(deliver_all(n, 10), 0);

    /* the packet limit: 2^16 cells of the channel's size */
    {
        static uint8_t big[16u * 65536 + 64];
        struct ofl_pp_cells c16;
        struct ofl_pp_conn_cfg cfg;
        struct ofl_pp_conn conn;

        memset(&cfg, 0, sizeof(cfg));
        CHECK_OK(ofl_pp_cells_init(&c16, NULL, g_a.rbuf, RCAP, 16, 0, 0));
        cfg.rx = (struct ofl_pp_pools_mem){g_snap.rx_slot, TCAP, TMAX,
                                           g_snap.rx_bits, TCAP * 2};
        cfg.tx = (struct ofl_pp_pools_mem){g_snap.tx_slot, TCAP, TMAX,
                                           g_snap.tx_bits, TCAP * 2};
        cfg.cells[OFL_PP_DATA] = &c16;
        CHECK_OK(ofl_pp_conn_init(&conn, &cfg));
        CHECK_OK(ofl_pp_conn_start(&conn));
        memset(&g_m, 0, sizeof(g_m));
        g_m.type = OFL_PP_SEND_DATA;
        g_m.data = big;
        g_m.data_len = 16u * 65536 - 8; /* the message: 2^16 cells */
        CHECK_OK(ofl_pp_msg_cells(&conn, OFL_PP_DATA, &g_m, big + 64,
                                  sizeof(big) - 64, &p));
        CHECK_EQ(ofl_pp_cell_count(16, p.len), 65536);
        CHECK_EQ(c16.tx_psn, 1);
        g_m.data_len++;
        CHECK_ERR(ofl_pp_msg_cells(&conn, OFL_PP_DATA, &g_m, big + 64,
                                   sizeof(big) - 64, &p),
                  OFL_E_SIZE);
        CHECK_EQ(c16.tx_psn, 1);
    }
}

/* Cells out of order, missing, duplicated, too long, corrupted: each a
 * named error, b's pools and state untouched, and the message taken once
 * sent again in order. */
static void test_cells_hostile(void)
{
    uint32_t n;
    bool done = false;
    enum ofl_err err;

    ce_setup(&g_a, 7, 0);
    ce_setup(&g_b, 0, 7);
    n = cut_send(3 * CS); /* 3 * 256 + 8: four cells */
    CHECK_EQ(n, 4);
    snap();

    /* out of order: cell 2 before cell 1 */
    CHECK_OK(give(&g_b, 0, &done));
    CHECK_ERR(give(&g_b, 2, &done), OFL_E_PP_CELL_MISSING);
    CHECK_EQ(g_b.cells.rx.open, 0); /* the open packet is dropped */
    CHECK(b_unchanged());
    /* missing: a middle cell without its first */
    CHECK_ERR(give(&g_b, 1, &done), OFL_E_PP_CELL_MISSING);
    /* missing: the last cell after the first, with 1 and 2 lost */
    CHECK_OK(give(&g_b, 0, &done));
    CHECK_ERR(give(&g_b, 3, &done), OFL_E_PP_CELL_MISSING);
    CHECK(b_unchanged());
    /* duplicated: cell 0 again and cell 1 again, the packet stays open */
    CHECK_OK(give(&g_b, 0, &done));
    CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_DUP);
    CHECK_OK(give(&g_b, 1, &done));
    CHECK_ERR(give(&g_b, 1, &done), OFL_E_PP_CELL_DUP);
    CHECK_EQ(g_b.cells.rx.open, 1);
    CHECK(b_unchanged());
    CHECK_OK(give(&g_b, 2, &done));
    CHECK(!done);
    CHECK_OK(give(&g_b, 3, &done));
    CHECK(done && g_in.type == OFL_PP_SEND_DATA && g_in.data_len == 3 * CS);
    CHECK_EQ(g_b.c.stats.msgs_rx, 1);
    /* duplicated: the whole packet once it was taken */
    snap();
    CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_DUP);
    CHECK_ERR(give(&g_b, 3, &done), OFL_E_PP_CELL_DUP);
    CHECK(!done && b_unchanged());

    /* too long: a cell longer than the largest, and a payload beyond
     * cell_size with its lengths made to agree */
    n = cut_send(2 * CS);
    CHECK_EQ(n, 3);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_CTRL, g_cell[0],
                                    ofl_pp_cell_max(CS) + 1,
                                    &(struct ofl_pp_rx){&g_in, &g_reply, 0}),
              OFL_E_PP_LENGTH);
    CHECK_OK(give(&g_b, 0, &done));
    /* cell 1 claims 257 payload bytes: its 4 CRC bytes become data */
    ofl_store_be16(g_cell[1] + 2, CS + 1);
    g_clen[1] += 1;
    reseal(1);
    CHECK_ERR(give(&g_b, 1, &done), OFL_E_PP_CELL_HDR);
    CHECK_EQ(g_b.cells.rx.open, 0);
    CHECK(b_unchanged());
    /* truncated, bad cell CRC, bad packet CRC, bad version */
    n = cut_send(2 * CS);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_CTRL, g_cell[0], 10,
                                    &(struct ofl_pp_rx){&g_in, &g_reply, 0}),
              OFL_E_PP_TRUNCATED);
    g_cell[1][20] ^= 1;
    CHECK_OK(give(&g_b, 0, &done));
    CHECK_ERR(give(&g_b, 1, &done), OFL_E_PP_CELL_CRC);
    reseal(1); /* the cell seals, the packet CRC does not */
    CHECK_OK(give(&g_b, 0, &done));
    CHECK_OK(give(&g_b, 1, &done));
    CHECK_ERR(give(&g_b, 2, &done), OFL_E_PP_PACKET_CRC);
    CHECK(!done && b_unchanged());
    g_cell[0][0] = 2;
    reseal(0);
    CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_VERSION);
    CHECK(b_unchanged());

    /* a message packet naming a VA, a handle or immediate data: refused
     * whole when complete, psn taken, nothing applied */
    {
        struct ofl_pp_packet p;
        uint64_t refused = g_b.c.stats.msgs_refused;

        memset(&g_m, 0, sizeof(g_m));
        g_m.type = OFL_PP_SEND_DATA;
        g_m.data = g_data;
        g_m.data_len = 4;
        CHECK_OK(ofl_pp_msg_cells(&g_a.c, OFL_PP_CTRL, &g_m, g_msg,
                                  sizeof(g_msg), &p));
        p.psn = g_b.cells.rx.psn;
        p.va = 0x1000;
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cell[0],
                                   sizeof(g_cell[0]), &g_clen[0]));
        CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_HDR);
        CHECK(done && b_unchanged());
        p.psn++;
        p.va = 0;
        p.handle = 0x55;
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cell[0],
                                   sizeof(g_cell[0]), &g_clen[0]));
        CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_HDR);
        p.psn++;
        p.handle = 0;
        p.has_imm = 1;
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cell[0],
                                   sizeof(g_cell[0]), &g_clen[0]));
        CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CELL_HDR);
        CHECK_EQ(g_b.c.stats.msgs_refused, refused + 3);
        CHECK(b_unchanged());
        /* and the same packet clean is taken */
        p.psn++;
        p.has_imm = 0;
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cell[0],
                                   sizeof(g_cell[0]), &g_clen[0]));
        CHECK_OK(give(&g_b, 0, &done));
        CHECK(done && g_in.type == OFL_PP_SEND_DATA && g_in.data_len == 4);
    }

    /* a hostile message inside good cells: the decoder's error, nothing
     * applied (an Update for a pool b does not hold) */
    {
        struct ofl_pp_packet p;
        static const uint8_t upd[] = {0, 3, 0, 1, 0, 1, 0, 0, 0, 0, 0, 2,
                                      0, 0, 0, 0, 0, 0, 0, 1};

        memset(&p, 0, sizeof(p));
        p.data = upd;
        p.len = sizeof(upd);
        p.psn = g_b.cells.rx.psn;
        CHECK_OK(ofl_pp_cell_build(NULL, CS, &p, 0, g_cell[0],
                                   sizeof(g_cell[0]), &g_clen[0]));
        snap();
        CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_POOL_UNKNOWN);
        CHECK(done && b_unchanged());
    }

    /* arguments and states: a channel that is not a cell channel
     * (test_cells_channel_rule), DOWN and ERROR leave the reassembly
     * alone */
    n = cut_send(CS);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_DATA, g_cell[0], g_clen[0],
                                    &(struct ofl_pp_rx){&g_in, &g_reply, 0}),
              OFL_E_PP_CELL_CHANNEL);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_CTRL, g_cell[0], g_clen[0],
                                    &(struct ofl_pp_rx){&g_in, &g_in, 0}),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, (enum ofl_pp_channel)2,
                                    g_cell[0], g_clen[0],
                                    &(struct ofl_pp_rx){&g_in, &g_reply, 0}),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_CTRL, g_cell[0], g_clen[0],
                                    NULL),
              OFL_E_ARG);
    CHECK_ERR(ofl_pp_msg_cells(&g_a.c, OFL_PP_DATA, &g_m, g_msg,
                               sizeof(g_msg), &(struct ofl_pp_packet){0}),
              OFL_E_ARG);
    ofl_pp_conn_fail(&g_b.c);
    snap();
    CHECK_ERR(give(&g_b, 0, &done), OFL_E_PP_CONN_STATE);
    CHECK_EQ(g_b.cells.rx.open, 0);
    CHECK_EQ(g_b.cells.rx.psn, g_snap.cells.rx.psn);
    CHECK_EQ(g_b.cells.rx.dropped, g_snap.cells.rx.dropped);

    /* sender rules: the channel rule and the state, psn unchanged */
    {
        uint32_t psn = g_a.cells.tx_psn;

        memset(&g_m, 0, sizeof(g_m));
        g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
        CHECK_EQ(cut_msg(&g_a, &g_m, &err), 0);
        CHECK_ERR(err, OFL_E_PP_CHANNEL);
        memset(&g_m, 0, sizeof(g_m));
        g_m.type = OFL_PP_SEND_DATA; /* data_len 0: the encoder refuses */
        CHECK_EQ(cut_msg(&g_a, &g_m, &err), 0);
        CHECK_ERR(err, OFL_E_PP_FIELD);
        g_m.data = g_data;
        g_m.data_len = 4;
        CHECK_ERR(ofl_pp_msg_cells(&g_a.c, OFL_PP_CTRL, &g_m, g_msg, 11,
                                   &(struct ofl_pp_packet){0}),
                  OFL_E_SIZE);
        ofl_pp_conn_fail(&g_a.c);
        CHECK_EQ(cut_msg(&g_a, &g_m, &err), 0);
        CHECK_ERR(err, OFL_E_PP_CONN_STATE);
        CHECK_EQ(g_a.cells.tx_psn, psn);
    }
}

/* Pool messages travel as cells and change the tables as plain ones do:
 * BufferRecvPool (16 pools: 520 bytes, three cells), an Update, a flush
 * with its reply. */
static void test_cells_pools(void)
{
    struct ofl_pp_pool_desc d[TCAP];
    struct ofl_pp_write w;
    struct ofl_pp_ref run = {2, 0, 1};
    uint32_t i, n, pool = 2;
    enum ofl_err err;
    bool done = false;

    ce_setup(&g_a, 0, 0x10);
    ce_setup(&g_b, 0x10, 0);
    for (i = 0; i < TCAP; i++)
        d[i] = (struct ofl_pp_pool_desc){i, 4, 256, 0x77, 0x100000 + i * 4096,
                                         i};
    CHECK_OK(ofl_pp_advertise(&g_a.c, d, TCAP, &g_m));
    n = cut_msg(&g_a, &g_m, &err);
    CHECK_EQ(n, 2); /* 8 + 8 * 32 = 264 bytes */
    for (i = 0; i < n; i++)
        CHECK_OK(give(&g_b, i, &done));
    CHECK(done && g_in.type == OFL_PP_BUFFER_RECV_POOL);
    CHECK_EQ(g_b.c.tx.active, TCAP);
    /* b writes element 0 of pool 2; a replenishes it by an Update */
    CHECK_OK(ofl_pp_write_prepare(&g_b.c, 2, 0, 100, &w));
    CHECK_OK(ofl_pp_conn_recv_imm(&g_a.c, w.imm, &run));
    run.len = 1;
    CHECK_OK(ofl_pp_replenish(&g_a.c, &run, 1, &g_m));
    CHECK_EQ(cut_msg(&g_a, &g_m, &err), 1);
    CHECK(ofl_pp_pools_consumed(&g_b.c.tx, 2, 0));
    CHECK_OK(give(&g_b, 0, &done));
    CHECK(done && !ofl_pp_pools_consumed(&g_b.c.tx, 2, 0));
    /* b flushes pool 2 as initiator; the request goes on the data
     * channel, not a cell channel here: a takes it plainly, and its reply
     * ends b's flush */
    CHECK_OK(ofl_pp_flush(&g_b.c, false, &pool, 1, 0xAB, &g_m));
    CHECK_EQ(cut_msg(&g_b, &g_m, &err), 0);
    CHECK_ERR(err, OFL_E_PP_CHANNEL);
    {
        size_t len = 0;

        CHECK_OK(ofl_pp_msg_encode(&g_m, g_msg, sizeof(g_msg), &len));
        CHECK_OK(ofl_pp_conn_recv(&g_a.c, OFL_PP_DATA, g_msg, len, &g_in,
                                  &g_reply));
        CHECK_EQ(g_reply.type, OFL_PP_BUFFER_POOL_FLUSH_REPLY);
        CHECK_OK(ofl_pp_msg_encode(&g_reply, g_msg, sizeof(g_msg), &len));
        CHECK_OK(ofl_pp_conn_recv(&g_b.c, OFL_PP_DATA, g_msg, len, &g_in,
                                  &g_reply));
    }
    CHECK_EQ(g_b.c.tx.slot[2].state, OFL_PP_POOL_EMPTY);
}

/* g_b exactly as snapped: pools, state, counters, reassembly, psns. */
static bool b_same(void)
{
    return memcmp(&g_b, &g_snap, sizeof(g_b)) == 0;
}

/* On a cell channel only cells are valid, on a plain one only whole
 * messages (offload.h, "Cell channels"): b's control channel is a cell
 * channel, its data channel plain. */
static void test_cells_channel_rule(void)
{
    struct ofl_pp_pool_desc d = {3, 4, 256, 0x77, 0x200000, 9};
    static uint8_t plain[OFL_PP_MSG_MAX]; /* g_msg is cut_send's */
    size_t len = 0;
    uint32_t n;
    bool done = false;

    ce_setup(&g_a, 0, 0);
    ce_setup(&g_b, 0, 0);
    CHECK_OK(ofl_pp_advertise(&g_a.c, &d, 1, &g_m));
    CHECK_OK(ofl_pp_msg_encode(&g_m, plain, sizeof(plain), &len));

    /* a plain BufferRecvPool on the cell channel: refused before it is
     * decoded, and nothing changes (no pool, state, counter or psn; the
     * reply is empty) */
    snap();
    g_reply.type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
    CHECK_ERR(ofl_pp_conn_recv(&g_b.c, OFL_PP_CTRL, plain, len, &g_in,
                               &g_reply),
              OFL_E_PP_CELL_CHANNEL);
    CHECK(b_same());
    CHECK_EQ(g_b.c.tx.active, 0);
    CHECK_EQ(g_b.c.stats.msgs_refused, 0);
    CHECK_EQ(g_reply.type, 0);
    /* the same in the middle of a packet: the open packet stays, and its
     * last cell completes it */
    n = cut_send(CS);
    CHECK_EQ(n, 2);
    CHECK_OK(give(&g_b, 0, &done));
    CHECK(!done && g_b.cells.rx.open);
    snap();
    CHECK_ERR(ofl_pp_conn_recv(&g_b.c, OFL_PP_CTRL, plain, len, &g_in,
                               &g_reply),
              OFL_E_PP_CELL_CHANNEL);
    CHECK(b_same());
    CHECK_OK(give(&g_b, 1, &done));
    CHECK(done && g_in.type == OFL_PP_SEND_DATA && g_in.data_len == CS);
    /* passes: the same message on the plain data channel is taken */
    CHECK_OK(ofl_pp_conn_recv(&g_b.c, OFL_PP_DATA, plain, len, &g_in,
                              &g_reply));
    CHECK(g_in.type == OFL_PP_BUFFER_RECV_POOL);
    CHECK_EQ(g_b.c.tx.active, 1);
    CHECK_EQ(g_b.c.tx.slot[3].state, OFL_PP_POOL_ACTIVE);

    /* a cell on the plain data channel: refused, nothing changes (not
     * the control channel's reassembly either) */
    n = cut_send(CS);
    CHECK_EQ(n, 2);
    snap();
    CHECK_ERR(ofl_pp_conn_recv_cell(&g_b.c, OFL_PP_DATA, g_cell[0], g_clen[0],
                                    &(struct ofl_pp_rx){&g_in, &g_reply, 0}),
              OFL_E_PP_CELL_CHANNEL);
    CHECK(b_same());
    /* passes: the same cells on the cell channel make the message */
    CHECK_OK(give(&g_b, 0, &done));
    CHECK(!done);
    CHECK_OK(give(&g_b, 1, &done));
    CHECK(done && g_in.type == OFL_PP_SEND_DATA);
    CHECK_EQ(g_b.c.stats.msgs_rx, 3);

    /* the rule comes before the state's: a CLOSED end refuses a plain
     * FlushRequest on its cell channel and answers it on the plain one */
    ce_setup(&g_b, 0, 0);
    CHECK_OK(ofl_pp_conn_close(&g_b.c));
    CHECK_EQ(g_b.c.state, OFL_PP_CLOSED);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_BUFFER_POOL_FLUSH_REQUEST;
    g_m.ctx = 0x42;
    g_m.count = 1;
    g_m.u.pool_ref[0] = 5;
    CHECK_OK(ofl_pp_msg_encode(&g_m, plain, sizeof(plain), &len));
    snap();
    CHECK_ERR(ofl_pp_conn_recv(&g_b.c, OFL_PP_CTRL, plain, len, &g_in,
                               &g_reply),
              OFL_E_PP_CELL_CHANNEL);
    CHECK(b_same());
    CHECK_EQ(g_reply.type, 0);
    CHECK_OK(ofl_pp_conn_recv(&g_b.c, OFL_PP_DATA, plain, len, &g_in,
                              &g_reply));
    CHECK(g_reply.type == OFL_PP_BUFFER_POOL_FLUSH_REPLY &&
          g_reply.ctx == 0x42);
}

/* ---- over QPs ---------------------------------------------------------------- */

#define LR OFL_TPT_LOCAL_READ
#define LW OFL_TPT_LOCAL_WRITE
#define RW OFL_TPT_REMOTE_WRITE
#define NRX 16
#define RXB 512
#define QCAP 300
#define QMAX 8

struct cq_end {
    struct ofl_pp_conn c;
    struct ofl_pp_pool rx_slot[QCAP], tx_slot[QCAP];
    uint32_t rx_bits[QCAP], tx_bits[QCAP];
    struct ofl_pp_cells cells[2];
    uint8_t rbuf[2][4096];
    struct qr_side *s[2];
    uint8_t *rx[2], *tx[2];
    uint32_t rx_stag[2], tx_stag[2];
};

static struct cq_end g_h, g_u;

static uint64_t va(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static int cq_setup(struct cq_end *e, struct qr_side *cs, struct qr_side *ds)
{
    struct ofl_pp_conn_cfg cfg;
    uint32_t ch, i;

    memset(e, 0, sizeof(*e));
    memset(&cfg, 0, sizeof(cfg));
    e->s[0] = cs;
    e->s[1] = ds;
    for (ch = 0; ch < 2; ch++) {
        e->rx[ch] = qr_alloc(e->s[ch], NRX * RXB, false);
        e->tx[ch] = qr_alloc(e->s[ch], 4096, false);
        if (e->rx[ch] == NULL || e->tx[ch] == NULL)
            return -1;
        e->rx_stag[ch] = qr_reg(e->s[ch], e->rx[ch], NRX * RXB, LW, 0);
        e->tx_stag[ch] = qr_reg(e->s[ch], e->tx[ch], 4096, LR, 0);
        for (i = 0; i < NRX; i++)
            if (qr_post_recv(e->s[ch], i, e->rx[ch] + i * RXB, RXB,
                             e->rx_stag[ch]) != OFL_OK)
                return -1;
        if (ofl_pp_cells_init(&e->cells[ch], NULL, e->rbuf[ch], 4096, CS,
                              ch * 1000, ch * 1000) != OFL_OK)
            return -1;
        cfg.cells[ch] = &e->cells[ch];
    }
    cfg.ctrl = &cs->qp;
    cfg.data = &ds->qp;
    cfg.rx = (struct ofl_pp_pools_mem){e->rx_slot, QCAP, QMAX, e->rx_bits,
                                       QCAP};
    cfg.tx = (struct ofl_pp_pools_mem){e->tx_slot, QCAP, QMAX, e->tx_bits,
                                       QCAP};
    if (ofl_pp_conn_init(&e->c, &cfg) != OFL_OK ||
        ofl_pp_conn_start(&e->c) != OFL_OK)
        return -1;
    return 0;
}

static enum ofl_err cq_send(struct cq_end *e, const struct ofl_pp_msg *m)
{
    enum ofl_pp_channel ch = ofl_pp_msg_channel(m);
    struct ofl_pp_buf b = {e->tx[ch], va(e->tx[ch]), 4096, e->tx_stag[ch]};

    return ofl_pp_post_msg(&e->c, ch, m, &b, 50 + ch);
}

/* Takes every receive completion of e's channel ch as a cell; returns the
 * messages completed (-1 on any refusal); indications into refs. */
static int cq_drain(struct cq_end *e, uint32_t ch, struct ofl_pp_ref *refs,
                    uint32_t *nrefs)
{
    struct ofl_cqe c[16];
    uint32_t n = qr_poll(e->s[ch], false, c, 16), i, k;
    int msgs = 0;

    for (i = 0; i < n; i++) {
        uint8_t *b = e->rx[ch] + c[i].wr_id * RXB;
        struct ofl_pp_rx rx = {&g_in, &g_reply, false};

        if (c[i].status != OFL_WC_SUCCESS)
            return -1;
        if (c[i].opcode == OFL_QP_OP_RECV_IMM) {
            struct ofl_pp_ref r;

            if (ofl_pp_conn_recv_imm(&e->c, c[i].imm, &r) != OFL_OK)
                return -1;
            refs[(*nrefs)++] = r;
        } else {
            if (ofl_pp_conn_recv_cell(&e->c, (enum ofl_pp_channel)ch, b,
                                      c[i].byte_len, &rx) != OFL_OK)
                return -1;
            if (rx.done) {
                msgs++;
                if (g_in.type == OFL_PP_BUFFER_RDMA_INDICATE)
                    for (k = 0; k < g_in.count; k++)
                        refs[(*nrefs)++] = g_in.u.ref[k];
                if (g_reply.type != 0 && cq_send(e, &g_reply) != OFL_OK)
                    return -1;
            }
        }
        if (qr_post_recv(e->s[ch], c[i].wr_id, b, RXB, e->rx_stag[ch]) !=
            OFL_OK)
            return -1;
    }
    (void)qr_poll(e->s[ch], true, c, 16);
    return msgs;
}

static void test_cells_over_qps(void)
{
    struct qr_rig *rc = qr_new(NULL), *rd = qr_new(NULL);
    struct ofl_pp_pool_desc d[2];
    struct ofl_pp_write_req req;
    struct ofl_pp_write w;
    struct ofl_pp_ref refs[8];
    struct ofl_pp_buf b;
    uint32_t nrefs = 0, i, sq;
    uint8_t *src, *pool;
    uint32_t src_stag, pool_stag;

    CHECK(rc != NULL && rd != NULL);
    if (rc == NULL || rd == NULL)
        goto out;
    CHECK_EQ(cq_setup(&g_h, &rc->a, &rd->a), 0);
    CHECK_EQ(cq_setup(&g_u, &rc->b, &rd->b), 0);
    pool = qr_alloc(&rd->b, 2 * 512 + 2 * 80000, false);
    src = qr_alloc(&rd->a, 80000, false);
    CHECK(pool != NULL && src != NULL);
    if (pool == NULL || src == NULL)
        goto out;
    pool_stag = qr_reg(&rd->b, pool, 2 * 512 + 2 * 80000, LW | RW, 0);
    src_stag = qr_reg(&rd->a, src, 80000, LR, 0);

    /* the unit advertises pool 0 (2 x 512) and pool 299 (2 x 80000, only a
     * BufferRDMAIndicate describes it) */
    d[0] = (struct ofl_pp_pool_desc){0, 2, 512, pool_stag, va(pool), 1};
    d[1] = (struct ofl_pp_pool_desc){299, 2, 80000, pool_stag,
                                     va(pool + 1024), 2};
    CHECK_OK(ofl_pp_advertise(&g_u.c, d, 2, &g_m));
    CHECK_OK(cq_send(&g_u, &g_m));
    CHECK_EQ(g_u.cells[0].tx_psn, 1);
    qr_pump(rc, 0);
    CHECK_EQ(cq_drain(&g_h, 0, refs, &nrefs), 1);
    CHECK_EQ(g_h.c.tx.active, 2);

    /* a SendData of 600 bytes: three cells, three Sends */
    for (i = 0; i < sizeof(g_data); i++)
        g_data[i] = (uint8_t)(i ^ 0x5A);
    memset(&g_m, 0, sizeof(g_m));
    g_m.type = OFL_PP_SEND_DATA;
    g_m.data = g_data;
    g_m.data_len = 600;
    sq = ofl_qp_sq_outstanding(&rc->a.qp);
    /* too little room for the cells behind the message: nothing posted */
    b = (struct ofl_pp_buf){g_h.tx[0], va(g_h.tx[0]),
                            608 + ofl_pp_cell_bytes(CS, 608) - 1,
                            g_h.tx_stag[0]};
    CHECK_ERR(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, &g_m, &b, 9), OFL_E_SIZE);
    CHECK_EQ(ofl_qp_sq_outstanding(&rc->a.qp), sq);
    CHECK_EQ(g_h.cells[0].tx_psn, 0);
    b.cap++;
    CHECK_OK(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, &g_m, &b, 9));
    CHECK_EQ(ofl_qp_sq_outstanding(&rc->a.qp), sq + 3);
    CHECK_EQ(g_h.cells[0].tx_psn, 1);
    qr_pump(rc, 0);
    CHECK_EQ(cq_drain(&g_u, 0, refs, &nrefs), 1);
    CHECK(g_in.type == OFL_PP_SEND_DATA && g_in.data_len == 600 &&
          memcmp(g_in.data, g_data, 600) == 0);
    CHECK_EQ(g_u.cells[0].rx.packets, 1);

    /* writes: one with immediate data (pool 0), one with a
     * BufferRDMAIndicate carried as a cell on the data channel */
    for (i = 0; i < 80000; i++)
        src[i] = (uint8_t)(i * 3 + 1);
    memset(&req, 0, sizeof(req));
    req.pool = 0;
    req.elem = 1;
    req.src = (struct ofl_qp_sge){va(src), 500, src_stag};
    req.ind = (struct ofl_pp_buf){g_h.tx[1], va(g_h.tx[1]), 4096,
                                  g_h.tx_stag[1]};
    CHECK_OK(ofl_pp_write(&g_h.c, &req, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_IMM);
    qr_pump(rd, 0);
    CHECK_EQ(cq_drain(&g_u, 1, refs, &nrefs), 0);
    CHECK_EQ(nrefs, 1);
    CHECK(memcmp(pool + 512, src, 500) == 0);
    req.pool = 299;
    req.elem = 0;
    req.src.len = 70000;
    /* ind too short for the indicate and its cell: nothing posted */
    req.ind.cap = 20 + ofl_pp_cell_bytes(CS, 20) - 1;
    sq = ofl_qp_sq_outstanding(&rd->a.qp);
    CHECK_ERR(ofl_pp_write(&g_h.c, &req, &w), OFL_E_SIZE);
    CHECK_EQ(ofl_qp_sq_outstanding(&rd->a.qp), sq);
    CHECK(!ofl_pp_pools_consumed(&g_h.c.tx, 299, 0));
    req.ind.cap++;
    CHECK_OK(ofl_pp_write(&g_h.c, &req, &w));
    CHECK_EQ(w.kind, OFL_PP_IND_MSG);
    CHECK_EQ(g_h.cells[1].tx_psn, 1001);
    for (i = 0; i < 20; i++)
        qr_pump(rd, 0);
    CHECK_EQ(cq_drain(&g_u, 1, refs, &nrefs), 1);
    CHECK_EQ(nrefs, 2);
    CHECK(refs[1].pool == 299 && refs[1].elem == 0 && refs[1].len == 70000);
    CHECK(memcmp(pool + 1024, src, 70000) == 0);
    CHECK(ofl_pp_pools_consumed(&g_u.c.rx, 299, 0));

    /* the unit flushes pool 299 (data channel, as cells); the host's
     * reply comes back as cells and empties it */
    {
        uint32_t p = 299;

        CHECK_OK(ofl_pp_flush(&g_u.c, true, &p, 1, 0x99, &g_m));
        CHECK_OK(cq_send(&g_u, &g_m));
        qr_pump(rd, 0);
        CHECK_EQ(cq_drain(&g_h, 1, refs, &nrefs), 1);
        CHECK_EQ(g_h.c.tx.slot[299].state, OFL_PP_POOL_EMPTY);
        qr_pump(rd, 0);
        CHECK_EQ(cq_drain(&g_u, 1, refs, &nrefs), 1);
        CHECK_EQ(g_u.c.rx.slot[299].state, OFL_PP_POOL_EMPTY);
    }

    /* SQ room: every cell of a message or none */
    {
        uint32_t room = rc->a.qp.sq.depth - ofl_qp_sq_outstanding(&rc->a.qp);
        uint32_t psn = g_h.cells[0].tx_psn;

        g_m.type = OFL_PP_SEND_DATA;
        g_m.data = g_data;
        g_m.data_len = 8;
        b = (struct ofl_pp_buf){g_h.tx[0], va(g_h.tx[0]), 4096,
                                g_h.tx_stag[0]};
        for (i = 0; i + 1 < room; i++)
            CHECK_OK(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, &g_m, &b, 9));
        g_m.data_len = 300; /* two cells, one slot left */
        CHECK_ERR(ofl_pp_post_msg(&g_h.c, OFL_PP_CTRL, &g_m, &b, 9),
                  OFL_E_QP_SQ_FULL);
        CHECK_EQ(g_h.cells[0].tx_psn, psn + room - 1);
        CHECK_EQ(ofl_qp_sq_outstanding(&rc->a.qp), rc->a.qp.sq.depth - 1);
    }
out:
    qr_free(rc);
    qr_free(rd);
}

OFL_SUITE(pp_cells)
{
    test_cells_setup();
    test_cells_sizes();
    test_cells_hostile();
    test_cells_pools();
    test_cells_channel_rule();
    test_cells_over_qps();
}
