/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * The sim guard as the harness's own list of what the core may touch at
 * this moment (the model is fuzz/dt_input's owned buffers): a harness adds
 * a range with its direction when it hands memory over (a posted WQE's
 * data segments, a remote-accessible window) and drops it by key when the
 * hand-over ends (the WQE's completion was polled, the QP was reset), then
 * rebuilds the guard from the list. Nothing is taken from the core's own
 * tables.
 *
 * The sim allows an access only inside one range with its permission, so
 * the rebuild merges the ranges readable by the core into one union and
 * the ranges writable into another: a buffer handed over twice (two WQEs
 * over one slot) or two adjacent ones stay reachable as one.
 */
#ifndef OFL_FUZZ_OWN_H
#define OFL_FUZZ_OWN_H

#include "fuzz.h"
#include "ports/sim/ofl_sim.h"

#define OWN_MAX 96u

/* Keys: what handed the range over; own_key(kind, who, id). */
enum own_kind {
    OWN_FIXED = 0, /* for the whole run (rings, windows) */
    OWN_SEND = 1,  /* a send WQE until its completion */
    OWN_RECV = 2,  /* a receive WQE until its completion */
    OWN_TASK = 3   /* an iSCSI command's data until its response */
};

static inline uint64_t own_key(unsigned kind, unsigned who, uint64_t id)
{
    return ((uint64_t)kind << 60) | ((uint64_t)(who & 0xFFu) << 52) |
           (id & ((1ull << 52) - 1u));
}

struct own {
    uint64_t key, pa, len;
    unsigned perm; /* OFL_SIM_READ / WRITE / RW: what the core may do */
};

struct own_set {
    struct own o[OWN_MAX];
    unsigned n;
};

static inline void own_add(struct own_set *s, uint64_t key, uint64_t pa,
                           uint64_t len, unsigned perm)
{
    if (len == 0)
        return;
    FUZZ_ASSERT(s->n < OWN_MAX);
    s->o[s->n].key = key;
    s->o[s->n].pa = pa;
    s->o[s->n].len = len;
    s->o[s->n].perm = perm;
    s->n++;
}

/* Drops every range of key; returns how many. */
static inline unsigned own_drop(struct own_set *s, uint64_t key)
{
    unsigned i = 0, k = 0;

    while (i < s->n) {
        if (s->o[i].key == key) {
            s->o[i] = s->o[--s->n];
            k++;
        } else {
            i++;
        }
    }
    return k;
}

/* Drops every range whose key has this kind and who (a QP's reset). */
static inline void own_drop_who(struct own_set *s, unsigned kind, unsigned who)
{
    unsigned i = 0;

    while (i < s->n) {
        if (s->o[i].key >> 60 == kind &&
            ((s->o[i].key >> 52) & 0xFFu) == (who & 0xFFu))
            s->o[i] = s->o[--s->n];
        else
            i++;
    }
}

/* The union of the ranges that allow perm, added to the guard as perm. */
static inline void own_union(struct ofl_sim *sim, const struct own_set *s,
                             unsigned perm)
{
    uint64_t lo[OWN_MAX], hi[OWN_MAX];
    unsigned n = 0, i, j;

    for (i = 0; i < s->n; i++) {
        uint64_t a, b;

        if ((s->o[i].perm & perm) == 0)
            continue;
        a = s->o[i].pa;
        b = a + s->o[i].len;
        for (j = n; j > 0 && lo[j - 1] > a; j--) { /* insertion by start */
            lo[j] = lo[j - 1];
            hi[j] = hi[j - 1];
        }
        lo[j] = a;
        hi[j] = b;
        n++;
    }
    for (i = 0; i < n; i = j) {
        uint64_t end = hi[i];

        for (j = i + 1; j < n && lo[j] <= end; j++)
            if (hi[j] > end)
                end = hi[j];
        FUZZ_ASSERT(ofl_sim_allow_pa(sim, lo[i], end - lo[i], perm) == 0);
    }
}

/* The guard: the owned ranges, nothing else. */
static inline void own_rebuild(struct ofl_sim *sim, const struct own_set *s)
{
    ofl_sim_revoke_all(sim);
    own_union(sim, s, OFL_SIM_READ);
    own_union(sim, s, OFL_SIM_WRITE);
}

#endif
