/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * ofl-tpt: memory registration and protection in a few steps.
 *
 * Registers a 16 KiB buffer as a memory region, binds a window over 3000
 * bytes of it for a remote peer, and then tries a series of accesses - local
 * and remote, good and bad - printing each verdict with its reason, the
 * RFC 5040/5041 terminate cause a remote peer would receive, and, for
 * accepted remote writes, the physical pieces the bytes would be placed in.
 * It finishes by deregistering the region and showing that the window died
 * with it. Every verdict is compared with the expected one; any difference
 * makes the program exit non-zero.
 *
 *   ofl-tpt --demo
 */
#include "offload.h"
#include "ports/sim/ofl_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PD 42u
#define QP 7u
#define PAGES 4
#define PAGE 4096u

static unsigned mismatches;

static const char *layer_name(uint8_t layer)
{
    return layer == OFL_TERM_LAYER_RDMAP ? "RDMAP"
           : layer == OFL_TERM_LAYER_DDP ? "DDP"
                                         : "MPA";
}

static void verdict(const char *what, enum ofl_err got, enum ofl_err want,
                    enum ofl_tpt_use use, bool remote)
{
    printf("  %-46s %s", what, got == OFL_OK ? "accepted" : "REJECTED");
    if (got != OFL_OK) {
        printf(" (%s", ofl_strerror(got));
        if (remote) {
            struct ofl_term_cause c = ofl_tpt_term_cause(got, use);

            printf("; terminate %s/0x%x/0x%02x", layer_name(c.layer), c.etype,
                   c.ecode);
        }
        printf(")");
    }
    if (got != want) {
        printf("  <-- expected %s", ofl_strerror(want));
        mismatches++;
    }
    printf("\n");
}

static void show_pieces(const struct ofl_tpt *tpt, uint32_t stag, uint64_t to,
                        uint64_t len, const uint8_t *host)
{
    struct ofl_tpt_piece piece[8];
    struct ofl_tpt_sgl sgl = {piece, 8, 0, 0, 0};
    uint32_t i;

    if (ofl_tpt_translate(tpt, stag, to, len, &sgl) != OFL_OK) {
        printf("    translation failed\n");
        mismatches++;
        return;
    }
    for (i = 0; i < sgl.count; i++)
        printf("    piece %u: buffer offset %5llu, %4u bytes\n", i,
               (unsigned long long)(piece[i].pa - ofl_sim_pa(host)),
               piece[i].len);
}

int main(int argc, char **argv)
{
    static uint8_t buffer[PAGES * PAGE] __attribute__((aligned(4096)));
    static struct ofl_tpt_entry entries[64];
    static uint64_t att[64];
    static uint32_t att_owner[64], att_map[OFL_TPT_ATT_POOL_WORDS(64)];
    struct ofl_tpt_att_pool att_pool; /* hands out ATT slots */
    struct ofl_sim sim;
    struct ofl_tpt tpt;
    struct ofl_tpt_region_desc d;
    uint64_t pages[PAGES], va = 0x7f1234560000ull;
    uint32_t mr, mw, window, stale, other = 0;
    int i;

    if (argc > 1 && strcmp(argv[1], "--demo") != 0) {
        fprintf(stderr, "usage: %s [--demo]\n", argv[0]);
        return 2;
    }
    ofl_sim_init(&sim);
    /* With an owner table no registration may name another's ATT slots;
     * the pool hands them out. */
    if (ofl_tpt_init(&tpt, entries, 64, att, 64, &sim.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_tpt_att_owners(&tpt, att_owner, 64) != OFL_OK ||
        ofl_tpt_att_pool_init(&att_pool, att_map,
                              OFL_TPT_ATT_POOL_WORDS(64), 64) != OFL_OK)
        return 1;

    printf("register a %u-byte region (local read/write, window binding)\n",
           PAGES * PAGE);
    for (i = 0; i < PAGES; i++)
        pages[i] = ofl_sim_pa(buffer + i * PAGE);
    memset(&d, 0, sizeof(d));
    d.va = va;
    d.len = PAGES * PAGE;
    d.page_shift = 12;
    d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE | OFL_TPT_BIND_WINDOW;
    verdict("reg_pages (ATT slots from the pool)",
            ofl_tpt_reg_pages_pool(&tpt, &att_pool, PD, &d, pages, PAGES, &mr),
            OFL_OK, OFL_TPT_USE_PLACE, false);
    printf("  region STag 0x%08x (index %u, key %u), ATT slots %u..%u\n", mr,
           ofl_stag_index(mr), ofl_stag_key(mr),
           entries[ofl_stag_index(mr)].att_base,
           entries[ofl_stag_index(mr)].att_base + PAGES - 1);
    d.att_base = entries[ofl_stag_index(mr)].att_base + 1;
    d.len = PAGE;
    verdict("another region over the region's ATT slots",
            ofl_tpt_reg_pages(&tpt, PD, &d, pages, 1, &other),
            OFL_E_TPT_ATT_OWNED, OFL_TPT_USE_PLACE, false);

    printf("\nlocal accesses (seed 000 FIG. 15)\n");
    verdict("send source, 100 bytes at offset 0",
            ofl_tpt_check_local(&tpt, mr, PD, va, 100, OFL_TPT_LOCAL_READ),
            OFL_OK, OFL_TPT_USE_PLACE, false);
    verdict("receive buffer, last byte of the region",
            ofl_tpt_check_local(&tpt, mr, PD, va + PAGES * PAGE - 1, 1,
                                OFL_TPT_LOCAL_WRITE),
            OFL_OK, OFL_TPT_USE_PLACE, false);
    verdict("receive buffer, one byte past the end",
            ofl_tpt_check_local(&tpt, mr, PD, va + PAGES * PAGE, 1,
                                OFL_TPT_LOCAL_WRITE),
            OFL_E_TPT_BOUNDS, OFL_TPT_USE_PLACE, false);
    verdict("another protection domain",
            ofl_tpt_check_local(&tpt, mr, PD + 1, va, 100, OFL_TPT_LOCAL_READ),
            OFL_E_TPT_PD_MISMATCH, OFL_TPT_USE_PLACE, false);

    printf("\nbind a window: 3000 bytes at region offset 1000, remote write\n");
    verdict("alloc window",
            ofl_tpt_alloc(&tpt, OFL_TPT_WINDOW, PD, 0, &mw), OFL_OK,
            OFL_TPT_USE_PLACE, false);
    verdict("bind", ofl_tpt_bind(&tpt, mw, mr, PD, QP, va + 1000, 3000,
                                 OFL_TPT_REMOTE_WRITE, 0, &window),
            OFL_OK, OFL_TPT_USE_PLACE, false);
    printf("  window STag 0x%08x advertised to the peer\n", window);

    printf("\nremote accesses (seed 000 FIG. 18A)\n");
    verdict("RDMA Write, 3000 bytes at the window's start",
            ofl_tpt_check_remote(&tpt, window, PD, QP, va + 1000, 3000,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_OK, OFL_TPT_USE_PLACE, true);
    show_pieces(&tpt, window, va + 1000, 3000, buffer);
    verdict("RDMA Write, one byte past the window",
            ofl_tpt_check_remote(&tpt, window, PD, QP, va + 1000, 3001,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_BOUNDS, OFL_TPT_USE_PLACE, true);
    verdict("RDMA Read Request naming the window",
            ofl_tpt_check_remote(&tpt, window, PD, QP, va + 1000, 64,
                                 OFL_TPT_REMOTE_READ),
            OFL_E_TPT_ACCESS, OFL_TPT_USE_RDMAP, true);
    verdict("RDMA Write with a TO near 2^64",
            ofl_tpt_check_remote(&tpt, window, PD, QP, UINT64_MAX - 10, 64,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_TO_WRAP, OFL_TPT_USE_PLACE, true);
    verdict("RDMA Write from a stream of another PD",
            ofl_tpt_check_remote(&tpt, window, PD + 1, QP, va + 1000, 64,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_PD_MISMATCH, OFL_TPT_USE_PLACE, true);
    stale = ofl_stag_make(ofl_stag_index(window),
                          (uint8_t)(ofl_stag_key(window) + 1));
    verdict("RDMA Write with a guessed key",
            ofl_tpt_check_remote(&tpt, stale, PD, QP, va + 1000, 64,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_KEY_MISMATCH, OFL_TPT_USE_PLACE, true);
    verdict("RDMA Write naming the region (remote rights: none)",
            ofl_tpt_check_remote(&tpt, mr, PD, QP, va, 64,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_ACCESS, OFL_TPT_USE_PLACE, true);

    printf("\nderegister the region; its window dies with it\n");
    verdict("dereg region (its ATT slots back to the pool)",
            ofl_tpt_dereg_pool(&tpt, &att_pool, mr, PD), OFL_OK,
            OFL_TPT_USE_PLACE, false);
    verdict("RDMA Write through the window",
            ofl_tpt_check_remote(&tpt, window, PD, QP, va + 1000, 64,
                                 OFL_TPT_REMOTE_WRITE),
            OFL_E_TPT_REGION_GONE, OFL_TPT_USE_PLACE, true);
    verdict("the region's old STag",
            ofl_tpt_check_local(&tpt, mr, PD, va, 1, OFL_TPT_LOCAL_READ),
            OFL_E_TPT_INVALID_STAG, OFL_TPT_USE_PLACE, false);

    if (sim.violations != 0) {
        printf("\nDMA guard violations: %lu\n", sim.violations);
        mismatches++;
    }
    if (mismatches != 0)
        printf("\nofl-tpt: FAILED (%u mismatches)\n", mismatches);
    else
        printf("\nofl-tpt: ok\n");
    return mismatches == 0 ? 0 : 1;
}
