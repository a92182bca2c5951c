/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * fuzz_tpt: a random sequence of memory TPT verbs against a reference
 * model.
 *
 * Input: byte 0 picks the remote policy (bit 0) and whether the table has
 * an ATT owner table from the start (bit 1); then a sequence of verbs,
 * each an opcode byte followed by its arguments (see the OP_ list and the
 * pick_ helpers: arguments are read with fuzz_u8/16/32/64, missing bytes
 * read as zero). At most MAX_OPS verbs run.
 *
 * The table is small (16 entries, 64 ATT slots) and eight 4 KiB indirect
 * lists live in host memory. The sim port allows DMA to exactly those lists
 * and traps anything else, so a stray read or write by the library is a
 * crash. Every word the fuzzer can put into the ATT or a list (and every
 * page address it can register) is one of those lists' addresses, so a
 * word read as a list pointer never leads outside them; only reg_phys
 * (consecutive pages of one buffer) and large pages can make other
 * addresses, and a verb whose ATT walk would follow such a pointer is
 * skipped: that walk is the driver's misconfiguration, not the library's.
 *
 * The model below is written from offload.h alone. For every verb it
 * predicts the outcome: checks (local, remote, iSCSI) to the exact error in
 * the documented order; other verbs as "OK iff no rule is broken, else one
 * of the broken rules' errors" (the order among descriptor checks is not a
 * contract). Translations are compared piece by piece, so every physical
 * byte the library names is the byte the model's ATT says the STag covers.
 * After every verb the ATT array must equal the model's, and so must the
 * owner table and the ATT slot pool's bitmaps (a pool over the ATT's
 * slots, driven by its own verbs and by reg_pages_pool / dereg_pool); at
 * the end the lists and every entry's public view too.
 *
 * FUZZ_TPT_VERBOSE=1 in the environment prints each verb and its result.
 */
#include "fuzz.h"
#include "offload.h"
#include "ports/sim/ofl_sim.h"

#include <stdbool.h>
#include <string.h>

#define CAP 16u
#define ATTN 64u
#define NLIST 8u
#define LISTW 512u
#define LISTB 4096u
#define MAX_OPS 256
#define U64MAX (~(uint64_t)0)
#define PRES ((uint64_t)OFL_TPT_ATT_PRESENT)
#define RSVD ((uint64_t)OFL_TPT_ATT_RESERVED)
#define DESC_FLAGS                                                            \
    (OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT | OFL_TPT_F_ZERO_BASED |        \
     OFL_TPT_F_INVALIDATABLE)
#define BIND_FLAGS (OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT)
#define RWA (OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC)

/* ------------------------------------------------------------------------ */
/* The library under test                                                   */
/* ------------------------------------------------------------------------ */

static struct ofl_tpt g_t;
static struct ofl_tpt_entry g_e[CAP];
static uint64_t g_att[ATTN];
static struct ofl_sim g_sim;
static uint32_t g_own[ATTN];
static uint32_t g_map[OFL_TPT_ATT_POOL_WORDS(ATTN)];
static struct ofl_tpt_att_pool g_pool;
/* NLIST lists. The arena is aligned to exactly 2 MiB (never 4 MiB), so
 * which list addresses are aligned enough for a page size does not change
 * from run to run (AFL needs the same input to behave the same). */
static uint8_t *g_arena;
static bool g_verbose;

static uint64_t list_addr(unsigned k)
{
    return ofl_sim_pa(g_arena) + (uint64_t)k * LISTB;
}

/* The list whose base is addr, or -1. */
static int list_of(uint64_t addr)
{
    uint64_t a = ofl_sim_pa(g_arena);

    if (addr < a || addr - a >= (uint64_t)NLIST * LISTB ||
        ((addr - a) & (LISTB - 1)) != 0)
        return -1;
    return (int)((addr - a) / LISTB);
}

/* ------------------------------------------------------------------------ */
/* The reference model                                                      */
/* ------------------------------------------------------------------------ */

struct m_ent {
    uint8_t state, key, type, access, flags, shift, kind;
    bool registered; /* registered since allocated: re-registration needs a
                        new key */
    uint32_t pd, base, count, fpo, qp, region, sn;
    uint64_t va, len;
    uint64_t life;        /* region/iSCSI: id of its current VALID life, 0
                             when not VALID; ids are never reused */
    uint64_t region_life; /* window: the life of the region it was bound in */
};

static struct {
    struct m_ent e[CAP];
    uint64_t att[ATTN];
    uint64_t list[NLIST][LISTW];
    uint64_t next_life;
    int policy;
    bool owners;        /* the table has an owner table */
    uint32_t own[ATTN]; /* per slot: the entry that registered it last */
    uint32_t run[ATTN]; /* slot pool: 0 free, else the id of its run */
    uint32_t next_run;
} M;

/* Where a page word lives: an ATT slot or a word of a list. */
struct m_loc {
    bool in_list;
    uint32_t slot;
    int list;
    uint32_t index;
};

static void m_reset_entry(struct m_ent *e)
{
    uint8_t key = e->key;

    memset(e, 0, sizeof(*e));
    e->key = key;
}

/* Index allocated, then key: every STag verb's first two checks. */
static enum ofl_err m_find(uint32_t stag, struct m_ent **out)
{
    uint32_t i = stag >> 8;

    if (i == 0 || i >= CAP || M.e[i].state == OFL_TPT_FREE)
        return OFL_E_TPT_INVALID_STAG;
    if (M.e[i].key != (uint8_t)stag)
        return OFL_E_TPT_KEY_MISMATCH;
    *out = &M.e[i];
    return OFL_OK;
}

static uint64_t m_base(const struct m_ent *e)
{
    return (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
}

/* [to, to + len) inside [base, base + size): the last byte must exist
 * (TO wrap), then lie inside. Zero length is inside when to is. */
static enum ofl_err m_range(uint64_t base, uint64_t size, uint64_t to,
                            uint64_t len)
{
    if (len != 0 && to + (len - 1) < to)
        return OFL_E_TPT_TO_WRAP;
    if (to < base || to - base > size || len > size - (to - base))
        return OFL_E_TPT_BOUNDS;
    return OFL_OK;
}

static enum ofl_err m_rights(uint8_t have, uint8_t need)
{
    if ((need & OFL_TPT_BIND_WINDOW) && !(have & OFL_TPT_BIND_WINDOW))
        return OFL_E_TPT_NO_BIND;
    if ((have & need) != need)
        return OFL_E_TPT_ACCESS;
    return OFL_OK;
}

/* The region a window was bound in, if that registration still lives. */
static struct m_ent *m_live_region(const struct m_ent *w)
{
    if (w->region_life == 0 || w->region >= CAP ||
        M.e[w->region].life != w->region_life)
        return NULL;
    return &M.e[w->region];
}

static void m_end_life(struct m_ent *e)
{
    e->state = OFL_TPT_INVALID;
    e->flags &= (uint8_t)~OFL_TPT_F_TOUCHED;
    e->life = 0;
}

/* FIG. 15 a-g. */
static enum ofl_err m_check_local(uint32_t stag, uint32_t pd, uint64_t va,
                                  uint64_t len, uint8_t need)
{
    struct m_ent *e = NULL;
    enum ofl_err err;

    if (need == 0 || (need & ~(OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE |
                               OFL_TPT_BIND_WINDOW)) != 0)
        return OFL_E_ARG;
    err = m_find(stag, &e);
    if (err != OFL_OK)
        return err;
    if (e->state != OFL_TPT_VALID)
        return OFL_E_TPT_NOT_VALID;
    if (e->type != OFL_TPT_REGION)
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    err = m_range(m_base(e), e->len, va, len);
    if (err != OFL_OK)
        return err;
    return m_rights(e->access, need);
}

/* FIG. 18A a-f, both policies. */
static enum ofl_err m_check_remote(uint32_t stag, uint32_t pd, uint32_t qp,
                                   uint64_t to, uint64_t len, uint8_t need)
{
    struct m_ent *e = NULL;
    enum ofl_err err;

    if (need == 0 || (need & ~OFL_TPT_ACCESS_REMOTE) != 0)
        return OFL_E_ARG;
    err = m_find(stag, &e);
    if (err != OFL_OK)
        return err;
    if (e->state != OFL_TPT_VALID)
        return OFL_E_TPT_NOT_VALID;
    if (e->type == OFL_TPT_ISCSI ||
        (e->type == OFL_TPT_REGION && M.policy == OFL_TPT_POLICY_WINDOWS_ONLY))
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (e->type == OFL_TPT_WINDOW) {
        if ((e->flags & OFL_TPT_F_TYPE2) && e->qp != qp)
            return OFL_E_TPT_QP_MISMATCH;
        if (m_live_region(e) == NULL)
            return OFL_E_TPT_REGION_GONE;
    }
    err = m_range(m_base(e), e->len, to, len);
    if (err != OFL_OK)
        return err;
    return m_rights(e->access, need);
}

/* FIG. 17B a-f; c also asks the QP that registered the entry. */
static enum ofl_err m_check_iscsi(uint32_t stag, uint32_t pd, uint32_t qp,
                                  uint64_t off, uint64_t len, uint8_t need)
{
    struct m_ent *e = NULL;
    enum ofl_err err;

    if ((need & ~(OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE)) != 0)
        return OFL_E_ARG;
    err = m_find(stag, &e);
    if (err != OFL_OK)
        return err;
    if (e->state != OFL_TPT_VALID)
        return OFL_E_TPT_NOT_VALID;
    if (e->type != OFL_TPT_ISCSI)
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (e->qp != qp || qp == OFL_TPT_QP_NONE)
        return OFL_E_TPT_QP_MISMATCH;
    err = m_range(0, e->len, off, len);
    if (err != OFL_OK)
        return err;
    return m_rights(e->access, need);
}

/* A set of acceptable errors: the library must answer OFL_OK when the set
 * is empty, else one of its members. */
struct errset {
    enum ofl_err e[12];
    int n;
};

static void es_add(struct errset *s, bool cond, enum ofl_err e)
{
    if (cond && s->n < 12)
        s->e[s->n++] = e;
}

static void agree(const char *what, enum ofl_err got, const struct errset *s)
{
    int i;

    if (s->n == 0 && got == OFL_OK)
        return;
    for (i = 0; i < s->n; i++)
        if (s->e[i] == got)
            return;
    fprintf(stderr, "%s: library %s, model expects", what, ofl_strerror(got));
    if (s->n == 0)
        fprintf(stderr, " OFL_OK");
    for (i = 0; i < s->n; i++)
        fprintf(stderr, " %s", ofl_strerror(s->e[i]));
    fprintf(stderr, "\n");
    abort();
}

static void agree1(const char *what, enum ofl_err got, enum ofl_err want)
{
    struct errset s = {{OFL_OK}, 0};

    es_add(&s, want != OFL_OK, want);
    agree(what, got, &s);
}

/* Does entry o own slot s (offload.h, "ATT slots": o registered s last,
 * is allocated, and its registration's slots hold s)? */
static bool m_held(uint32_t o, uint32_t s)
{
    const struct m_ent *e;

    if (o == 0 || o >= CAP)
        return false;
    e = &M.e[o];
    return e->state != OFL_TPT_FREE && e->type != OFL_TPT_WINDOW &&
           s >= e->base && s - e->base < e->count;
}

/* The rules of a registration descriptor (offload.h ofl_tpt_register);
 * self: the registering entry's index, 0 for a new one. */
static void m_desc_rules(const struct ofl_tpt_region_desc *d, uint8_t type,
                         uint32_t self, struct errset *s)
{
    bool owned = false;

    bool shift_ok = d->page_shift >= OFL_TPT_PAGE_SHIFT_MIN &&
                    d->page_shift <= OFL_TPT_PAGE_SHIFT_MAX;
    /* an iSCSI entry of a command without data: no bytes, no ATT */
    bool no_data = type == OFL_TPT_ISCSI && d->len == 0 &&
                   d->att_count == 0 && d->fpo == 0;
    bool bad = !shift_ok || (d->len == 0 && !no_data) || d->att_kind > 2 ||
               (d->att_count == 0 && !no_data) ||
               (d->access & ~OFL_TPT_ACCESS_ALL) != 0 ||
               (d->flags & ~DESC_FLAGS) != 0 ||
               (shift_ok && d->fpo >= (1u << d->page_shift)) ||
               d->len > U64MAX - d->fpo;
    bool range = !no_data &&
                 (d->att_count > ATTN || d->att_base > ATTN - d->att_count);

    if (type == OFL_TPT_REGION && !(d->flags & OFL_TPT_F_ZERO_BASED) &&
        d->len != 0 && d->va + (d->len - 1) < d->va)
        bad = true; /* the last byte's VA must exist */
    if (!range && shift_ok && d->len != 0 && d->att_kind <= 2 &&
        d->len <= U64MAX - d->fpo) {
        uint64_t pages = ((d->fpo + d->len - 1) >> d->page_shift) + 1;

        if (pages > ((uint64_t)d->att_count << (9 * d->att_kind)))
            range = true;
    }
    if (M.owners && !no_data && !range) {
        uint32_t i;

        for (i = 0; i < d->att_count; i++)
            if (M.own[d->att_base + i] != self &&
                m_held(M.own[d->att_base + i], d->att_base + i))
                owned = true;
    }
    es_add(s, bad, OFL_E_TPT_BAD_DESC);
    es_add(s, range, OFL_E_TPT_ATT_RANGE);
    es_add(s, owned, OFL_E_TPT_ATT_OWNED);
    es_add(s, (d->access & RWA) && !(d->access & OFL_TPT_LOCAL_WRITE),
           OFL_E_TPT_ACCESS_COMBO);
}

static void m_apply(struct m_ent *e, const struct ofl_tpt_region_desc *d)
{
    uint32_t i;

    if (M.owners) /* the entry owns its slots now */
        for (i = 0; i < d->att_count; i++)
            M.own[d->att_base + i] = (uint32_t)(e - M.e);
    e->va = d->va;
    e->len = d->len;
    e->base = d->att_base;
    e->count = d->att_count;
    e->fpo = d->fpo;
    e->shift = d->page_shift;
    e->kind = d->att_kind;
    e->access = d->access;
    if (e->type == OFL_TPT_REGION) /* verbs: a region always reads locally */
        e->access |= OFL_TPT_LOCAL_READ;
    e->flags = d->flags;
    if (e->type == OFL_TPT_ISCSI) {
        e->flags |= OFL_TPT_F_ZERO_BASED;
        e->qp = OFL_TPT_QP_NONE; /* ofl_tpt_register: no QP's task */
    }
    e->sn = 0;
    e->life = ++M.next_life;
    e->registered = true;
    e->state = OFL_TPT_VALID;
}

static bool m_any_free(void)
{
    uint32_t i;

    for (i = 1; i < CAP; i++)
        if (M.e[i].state == OFL_TPT_FREE)
            return true;
    return false;
}

/* A new STag from alloc / reg_pages / reg_phys must name a FREE index, with
 * the key bumped. Marks it allocated in the model. */
static struct m_ent *m_take(uint32_t stag, uint8_t type, uint32_t pd,
                            uint8_t flags)
{
    uint32_t i = stag >> 8;
    struct m_ent *e;

    FUZZ_ASSERT(i >= 1 && i < CAP);
    e = &M.e[i];
    FUZZ_ASSERT(e->state == OFL_TPT_FREE);
    FUZZ_ASSERT((uint8_t)stag == (uint8_t)(e->key + 1));
    m_reset_entry(e);
    e->key = (uint8_t)stag;
    e->type = type;
    e->pd = pd;
    e->flags = flags;
    e->state = OFL_TPT_INVALID;
    return e;
}

/* Reads word idx of the list pointer ptr. ATT_CORRUPT for a malformed
 * pointer; *unsafe when it is well formed but names no list. */
static enum ofl_err m_list_ptr(uint64_t ptr, uint32_t idx, struct m_loc *loc,
                               bool *unsafe)
{
    int k;

    if (!(ptr & PRES) || (ptr & RSVD) != 0 ||
        ((ptr & ~PRES) & (LISTB - 1)) != 0)
        return OFL_E_TPT_ATT_CORRUPT;
    k = list_of(ptr & ~PRES);
    if (k < 0) {
        *unsafe = true;
        return OFL_OK;
    }
    loc->in_list = true;
    loc->list = k;
    loc->index = idx;
    return OFL_OK;
}

/* FIG. 13: where page `page` of region r has its page word. */
static enum ofl_err m_locate(const struct m_ent *r, uint64_t page,
                             struct m_loc *loc, bool *unsafe)
{
    enum ofl_err err;
    struct m_loc l2;

    memset(loc, 0, sizeof(*loc));
    FUZZ_ASSERT(page < ((uint64_t)r->count << (9 * r->kind)));
    switch (r->kind) {
    case OFL_TPT_ATT_DIRECT:
        loc->slot = r->base + (uint32_t)page;
        FUZZ_ASSERT(loc->slot < ATTN);
        return OFL_OK;
    case OFL_TPT_ATT_INDIRECT1:
        FUZZ_ASSERT(r->base + (page >> 9) < ATTN);
        return m_list_ptr(M.att[r->base + (page >> 9)],
                          (uint32_t)page & (LISTW - 1), loc, unsafe);
    default:
        FUZZ_ASSERT(r->base + (page >> 18) < ATTN);
        err = m_list_ptr(M.att[r->base + (page >> 18)],
                         (uint32_t)(page >> 9) & (LISTW - 1), &l2, unsafe);
        if (err != OFL_OK || *unsafe)
            return err;
        return m_list_ptr(M.list[l2.list][l2.index],
                          (uint32_t)page & (LISTW - 1), loc, unsafe);
    }
}

static uint64_t m_word(const struct m_loc *loc)
{
    return loc->in_list ? M.list[loc->list][loc->index] : M.att[loc->slot];
}

/*
 * The translation the model expects for region r from region offset off:
 * pieces of physically contiguous bytes (at most 2^31 bytes each, never
 * past 2^64), stopping at the first fault, malformed word, or full list.
 */
struct m_xlate {
    struct ofl_tpt_piece pc[16];
    uint32_t n;
    uint64_t bytes, fault;
};

static enum ofl_err m_walk(const struct m_ent *r, uint64_t off, uint64_t to,
                           uint64_t len, uint32_t cap, struct m_xlate *x,
                           bool *unsafe)
{
    uint64_t psize = (uint64_t)1 << r->shift, pos = off + r->fpo;

    x->n = 0;
    x->bytes = 0;
    while (x->bytes < len) {
        uint64_t in = pos & (psize - 1), chunk = psize - in, word, pa;
        struct m_loc loc;
        enum ofl_err err = m_locate(r, pos >> r->shift, &loc, unsafe);
        struct ofl_tpt_piece *last = x->n ? &x->pc[x->n - 1] : NULL;

        if (err != OFL_OK || *unsafe)
            return err;
        if (chunk > len - x->bytes)
            chunk = len - x->bytes;
        word = m_word(&loc);
        if (!(word & PRES)) {
            x->fault = to + x->bytes;
            return OFL_E_TPT_PAGE_FAULT;
        }
        if ((word & RSVD) != 0 || ((word & ~PRES) & (psize - 1)) != 0)
            return OFL_E_TPT_ATT_CORRUPT;
        pa = (word & ~PRES) + in;
        if (last != NULL && last->pa + last->len == pa && pa > last->pa &&
            last->len + chunk <= 0x80000000u) {
            last->len += (uint32_t)chunk;
        } else {
            if (x->n == cap)
                return OFL_E_TPT_SGL_FULL;
            x->pc[x->n].pa = pa;
            x->pc[x->n].len = (uint32_t)chunk;
            x->n++;
        }
        x->bytes += chunk;
        pos += chunk;
    }
    return OFL_OK;
}

/*
 * What translate / map / unmap check before walking: the entry is VALID,
 * [to, to + len) is inside it, and a window's region lives. Returns false
 * (with the acceptable errors in s) if any of that fails.
 */
static bool m_resolve(uint32_t stag, uint64_t to, uint64_t len,
                      struct errset *s, struct m_ent **region, uint64_t *off)
{
    struct m_ent *e = NULL, *r;
    enum ofl_err err = m_find(stag, &e);

    if (err == OFL_OK && e->state != OFL_TPT_VALID)
        err = OFL_E_TPT_NOT_VALID;
    if (err != OFL_OK) {
        es_add(s, true, err);
        return false;
    }
    err = m_range(m_base(e), e->len, to, len);
    es_add(s, err != OFL_OK, err);
    r = e->type == OFL_TPT_WINDOW ? m_live_region(e) : e;
    es_add(s, r == NULL, OFL_E_TPT_REGION_GONE);
    if (s->n != 0)
        return false;
    *region = r;
    *off = to - m_base(r);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Argument pickers                                                         */
/* ------------------------------------------------------------------------ */

static uint32_t pick_stag(struct fuzz_in *in)
{
    uint8_t a = fuzz_u8(in);
    uint32_t i = (a & 0x1F) % (CAP + 2); /* 0 and >= CAP included */
    uint8_t key = i < CAP ? M.e[i].key : 0;

    switch (a >> 6) {
    case 2:
        key = (uint8_t)(key - 1);
        break;
    case 3:
        key = fuzz_u8(in);
        break;
    default:
        break;
    }
    return ofl_stag_make(i, key);
}

/* The TO range of the entry an STag names in the model (for pickers). */
static void entry_span(uint32_t stag, uint64_t *base, uint64_t *len)
{
    uint32_t i = stag >> 8;

    *base = 0;
    *len = 0;
    if (i < CAP) {
        *base = (M.e[i].type == OFL_TPT_ISCSI) ? 0 : m_base(&M.e[i]);
        *len = M.e[i].len;
    }
}

static uint64_t pick_to(struct fuzz_in *in, uint64_t base, uint64_t len)
{
    uint8_t m = fuzz_u8(in);
    uint16_t v = fuzz_u16(in);

    switch (m & 3) {
    case 0:
        return base + v;
    case 1:
        return base + len - v;
    case 2:
        return U64MAX - v;
    default:
        return fuzz_u64(in);
    }
}

static uint64_t pick_len(struct fuzz_in *in, uint64_t len)
{
    uint8_t m = fuzz_u8(in);
    uint16_t v = fuzz_u16(in);

    switch (m & 3) {
    case 0:
        return v;
    case 1:
        return len - v;
    case 2:
        return (uint64_t)v << 12;
    default:
        return fuzz_u64(in);
    }
}

/* A word for the ATT or a list: always built from a list address. */
static uint64_t pick_word(struct fuzz_in *in)
{
    uint8_t c = fuzz_u8(in);
    uint64_t l = list_addr(c >> 5);

    switch (c & 7) {
    case 3:
        return l; /* not present */
    case 4:
        return l | PRES | 0x10; /* reserved bit */
    case 5:
        return (l + 0x800) | PRES; /* misaligned */
    case 6:
        return 0;
    default:
        return l | PRES;
    }
}

/* A page address (reg_pages, map_page): a list address, or a bad one. */
static uint64_t pick_page(struct fuzz_in *in)
{
    uint8_t c = fuzz_u8(in);
    uint64_t l = list_addr(c >> 5);

    switch (c & 3) {
    case 2:
        return l | 1;
    case 3:
        return l + 0x800;
    default:
        return l;
    }
}

static void pick_desc(struct fuzz_in *in, struct ofl_tpt_region_desc *d)
{
    uint8_t m = fuzz_u8(in), s = fuzz_u8(in), b;
    uint32_t mask;

    memset(d, 0, sizeof(*d));
    d->page_shift = (uint8_t)(s < 0xF0 ? 12 + s % 17 : (s & 1) ? 29 : 11);
    mask = (1u << d->page_shift) - 1;
    switch (m & 3) {
    case 0:
        d->va = (uint64_t)fuzz_u16(in) << 12;
        break;
    case 1:
        d->va = U64MAX - fuzz_u16(in);
        break;
    case 2:
        d->va = fuzz_u64(in);
        break;
    default:
        d->va = 0;
        break;
    }
    switch ((m >> 2) & 3) {
    case 0:
        d->len = fuzz_u16(in);
        break;
    case 1:
        d->len = (uint64_t)fuzz_u8(in) << d->page_shift;
        break;
    case 2:
        d->len = fuzz_u32(in);
        break;
    default:
        d->len = fuzz_u64(in);
        break;
    }
    switch ((m >> 4) & 3) {
    case 0:
        d->fpo = 0;
        break;
    case 1:
        d->fpo = fuzz_u16(in) & mask;
        break;
    case 2:
        d->fpo = mask - fuzz_u8(in);
        break;
    default:
        d->fpo = fuzz_u32(in);
        break;
    }
    d->att_base = fuzz_u8(in) % 72;
    d->att_count = fuzz_u8(in) % 72;
    b = fuzz_u8(in) & 7;
    d->att_kind = (uint8_t)(b <= 4 ? OFL_TPT_ATT_DIRECT : b - 4); /* 7 -> 3 */
    b = fuzz_u8(in);
    d->access = (uint8_t)((b & 0x80) ? b & 0x7F : b & OFL_TPT_ACCESS_ALL);
    b = fuzz_u8(in);
    d->flags = (uint8_t)((b & 0x80) ? b & 0x7F : b & DESC_FLAGS);
}

/* ------------------------------------------------------------------------ */
/* The verbs                                                                */
/* ------------------------------------------------------------------------ */

enum {
    OP_ALLOC,
    OP_DEALLOC,
    OP_REGISTER,
    OP_REG_PAGES,
    OP_REG_PHYS,
    OP_DEREG,
    OP_BIND,
    OP_UNBIND,
    OP_INV_LOCAL,
    OP_INV_REMOTE,
    OP_NOTE_USE,
    OP_EXPIRE,
    OP_CHECK_LOCAL,
    OP_CHECK_REMOTE,
    OP_CHECK_ISCSI,
    OP_TRANSLATE,
    OP_MAP,
    OP_UNMAP,
    OP_ATT_WRITE,
    OP_LIST_WRITE,
    OP_SET_TOUCHED,
    OP_QUERY,
    OP_OWNERS,
    OP_POOL_ALLOC,
    OP_POOL_FREE,
    OP_SLOTS,
    OP_REG_POOL,
    OP_DEREG_POOL,
    OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
    "alloc",      "dealloc",      "register",     "reg_pages",
    "reg_phys",   "dereg",        "bind",         "unbind",
    "inv_local",  "inv_remote",   "note_use",     "expire",
    "check_local", "check_remote", "check_iscsi", "translate",
    "map",        "unmap",        "att_write",    "list_write",
    "set_touched", "query",       "owners",       "pool_alloc",
    "pool_free",  "slots",        "reg_pool",     "dereg_pool"};

static unsigned long g_skipped;

static enum ofl_err op_alloc(struct fuzz_in *in)
{
    uint8_t type = fuzz_u8(in) % 4, b = fuzz_u8(in);
    uint32_t pd = fuzz_u8(in) % 3, s = 0;
    uint8_t flags = (uint8_t)(((b & 1) ? OFL_TPT_F_TYPE2 : 0) |
                              ((b & 0x80) ? b & 0x5E : 0));
    struct errset es = {{OFL_OK}, 0};
    enum ofl_err got = ofl_tpt_alloc(&g_t, (enum ofl_tpt_type)type, pd, flags,
                                     &s);

    es_add(&es, type > OFL_TPT_ISCSI || (flags & ~OFL_TPT_F_TYPE2) != 0 ||
                    ((flags & OFL_TPT_F_TYPE2) && type != OFL_TPT_WINDOW),
           OFL_E_ARG);
    es_add(&es, !m_any_free(), OFL_E_TPT_FULL);
    agree("alloc", got, &es);
    if (got == OFL_OK)
        m_take(s, type, pd, flags);
    return got;
}

static enum ofl_err op_dealloc(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e), got = ofl_tpt_dealloc(&g_t, stag, pd);

    if (f != OFL_OK) {
        agree1("dealloc", got, f);
        return got;
    }
    es_add(&es, e->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, e->type != OFL_TPT_WINDOW && e->state == OFL_TPT_VALID,
           OFL_E_TPT_BUSY);
    agree("dealloc", got, &es);
    if (got == OFL_OK)
        m_reset_entry(e); /* FREE */
    return got;
}

/* Register (ofl_tpt_register, or ofl_tpt_register_iscsi for QP owner):
 * an iSCSI entry's index takes register_iscsi, any other plain register;
 * the pd byte's value 192 and up swaps the two. */
static enum ofl_err op_register(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), b = fuzz_u8(in), pd = b % 3;
    uint32_t owner = (b >> 4) % 3;
    bool as_iscsi = (M.e[(stag >> 8) % CAP].type == OFL_TPT_ISCSI) !=
                    (b >= 192);
    struct ofl_tpt_region_desc d;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *e = NULL;
    enum ofl_err f, got;

    pick_desc(in, &d);
    f = m_find(stag, &e);
    if (f == OFL_E_TPT_KEY_MISMATCH &&
        M.e[stag >> 8].state == OFL_TPT_INVALID && M.e[stag >> 8].registered) {
        e = &M.e[stag >> 8]; /* re-registration names a new key */
        f = OFL_OK;
    } else if (f == OFL_OK && e->state == OFL_TPT_INVALID && e->registered) {
        f = OFL_E_TPT_KEY_REUSED;
    }
    got = as_iscsi ? ofl_tpt_register_iscsi(&g_t, stag, pd, owner, &d)
                   : ofl_tpt_register(&g_t, stag, pd, &d);
    if (f != OFL_OK) {
        agree1("register", got, f);
        return got;
    }
    es_add(&es, e->type == OFL_TPT_WINDOW ||
                    (as_iscsi && e->type != OFL_TPT_ISCSI),
           OFL_E_TPT_WRONG_TYPE);
    es_add(&es, e->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, e->state != OFL_TPT_INVALID, OFL_E_TPT_BUSY);
    m_desc_rules(&d, e->type, stag >> 8, &es);
    agree("register", got, &es);
    if (got == OFL_OK) {
        e->key = (uint8_t)stag;
        m_apply(e, &d);
        if (as_iscsi)
            e->qp = owner;
    }
    return got;
}

static bool page_ok(uint64_t p, uint8_t shift)
{
    return (p & 1) == 0 && (p & RSVD) == 0 &&
           (p & (((uint64_t)1 << shift) - 1)) == 0;
}

/* What ofl_tpt_reg_pages(pd, d, pages, n) answered (got, *s): checked and
 * applied to the model. */
static void m_reg_pages(const char *what, uint32_t pd,
                        struct ofl_tpt_region_desc d, const uint64_t *pages,
                        uint32_t n, enum ofl_err got, uint32_t s)
{
    struct errset es = {{OFL_OK}, 0};
    bool bad = false;
    uint32_t i;

    es_add(&es, n == 0, OFL_E_ARG);
    d.att_count = n; /* the page list is the ATT */
    d.att_kind = OFL_TPT_ATT_DIRECT;
    m_desc_rules(&d, OFL_TPT_REGION, 0, &es);
    for (i = 0; i < n; i++)
        bad |= !page_ok(pages[i], d.page_shift);
    es_add(&es, bad, OFL_E_TPT_BAD_DESC);
    es_add(&es, !m_any_free(), OFL_E_TPT_FULL);
    agree(what, got, &es);
    if (got == OFL_OK) {
        m_apply(m_take(s, OFL_TPT_REGION, pd, 0), &d);
        for (i = 0; i < n; i++)
            M.att[d.att_base + i] = pages[i] | PRES;
    }
}

static enum ofl_err op_reg_pages(struct fuzz_in *in)
{
    uint32_t pd = fuzz_u8(in) % 3, n, i, s = 0;
    struct ofl_tpt_region_desc d;
    uint64_t pages[8];
    enum ofl_err got;

    pick_desc(in, &d);
    n = fuzz_u8(in) % 9;
    for (i = 0; i < n; i++)
        pages[i] = pick_page(in);
    got = ofl_tpt_reg_pages(&g_t, pd, &d, pages, n, &s);
    m_reg_pages("reg_pages", pd, d, pages, n, got, s);
    return got;
}

static enum ofl_err op_reg_phys(struct fuzz_in *in)
{
    uint32_t pd = fuzz_u8(in) % 3, n, i, s = 0, slot;
    struct ofl_tpt_region_desc d;
    struct ofl_tpt_pbuf b[4];
    struct errset es = {{OFL_OK}, 0};
    uint64_t mask, total = 0, pages = 0;
    bool shift_ok, bad = false, range = false;
    enum ofl_err got;

    pick_desc(in, &d);
    n = fuzz_u8(in) % 5;
    for (i = 0; i < n; i++) {
        uint8_t c = fuzz_u8(in), lm = fuzz_u8(in);
        uint16_t v = fuzz_u16(in);

        b[i].pa = list_addr(c >> 5) + ((c & 1) ? (v & 0xFFFu) : 0);
        switch (lm & 3) {
        case 0:
            b[i].len = v;
            break;
        case 1:
            b[i].len = (uint64_t)(v % 16 + 1) << 12;
            break;
        case 2:
            b[i].len = LISTB - (b[i].pa & (LISTB - 1));
            break;
        default:
            b[i].len = fuzz_u64(in);
            break;
        }
    }
    got = ofl_tpt_reg_phys(&g_t, pd, &d, b, n, &s);
    es_add(&es, n == 0, OFL_E_ARG);
    shift_ok = d.page_shift >= 12 && d.page_shift <= 28;
    es_add(&es, n != 0 && !shift_ok, OFL_E_TPT_BAD_DESC);
    mask = ((uint64_t)1 << d.page_shift) - 1;
    /* Only the first buffer may start, only the last may end, mid-page. */
    for (i = 0; i < n; i++) {
        uint64_t pa = b[i].pa, len = b[i].len;

        if (len == 0 || pa + (len - 1) < pa || total + len < total) {
            bad = true;
            continue;
        }
        if ((i > 0 && (pa & mask)) || (i + 1 < n && ((pa + len) & mask)))
            bad = true;
        total += len;
        pages += ((pa + len - 1) >> d.page_shift) - (pa >> d.page_shift) + 1;
        if (pages > ATTN)
            range = true;
    }
    es_add(&es, bad, OFL_E_TPT_BAD_DESC);
    es_add(&es, range, OFL_E_TPT_ATT_RANGE);
    d.len = total;
    d.fpo = n ? (uint32_t)(b[0].pa & mask) : 0;
    d.att_count = (uint32_t)(pages > ATTN ? ATTN + 1 : pages);
    d.att_kind = OFL_TPT_ATT_DIRECT;
    if (n != 0 && shift_ok)
        m_desc_rules(&d, OFL_TPT_REGION, 0, &es);
    es_add(&es, !m_any_free(), OFL_E_TPT_FULL);
    agree("reg_phys", got, &es);
    if (got == OFL_OK) {
        m_apply(m_take(s, OFL_TPT_REGION, pd, 0), &d);
        slot = d.att_base;
        for (i = 0; i < n; i++) {
            uint64_t p = b[i].pa & ~mask;
            uint64_t end = (b[i].pa + b[i].len - 1) & ~mask;

            for (;;) {
                FUZZ_ASSERT(slot < ATTN);
                M.att[slot++] = p | PRES;
                if (p == end)
                    break;
                p += mask + 1;
            }
        }
    }
    return got;
}

static enum ofl_err op_dereg(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e), got = ofl_tpt_dereg(&g_t, stag, pd);

    if (f != OFL_OK) {
        agree1("dereg", got, f);
        return got;
    }
    es_add(&es, e->type == OFL_TPT_WINDOW, OFL_E_TPT_WRONG_TYPE);
    es_add(&es, e->pd != pd, OFL_E_TPT_PD_MISMATCH);
    agree("dereg", got, &es);
    if (got == OFL_OK)
        m_reset_entry(e); /* FREE: its windows die with its life */
    return got;
}

/* Unbind (seed 001): bind with len 0, at any va (verbs: a zero-length
 * bind). */
static enum ofl_err m_unbind(const char *what, uint32_t stag, uint32_t region,
                             uint32_t pd, uint32_t qp, bool want_stag,
                             uint64_t va)
{
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *w = NULL;
    uint32_t out = 0xDEADBEEF;
    enum ofl_err f = m_find(stag, &w);
    enum ofl_err got = ofl_tpt_bind(&g_t, stag, region, pd, qp, va, 0, 0, 0,
                                    want_stag ? &out : NULL);

    if (f != OFL_OK) {
        agree1(what, got, f);
        return got;
    }
    es_add(&es, w->type != OFL_TPT_WINDOW, OFL_E_TPT_WRONG_TYPE);
    es_add(&es, w->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, (w->flags & OFL_TPT_F_TYPE2) && w->state == OFL_TPT_VALID &&
                    w->qp != qp,
           OFL_E_TPT_QP_MISMATCH);
    agree(what, got, &es);
    if (got == OFL_OK) {
        uint8_t t2 = w->flags & OFL_TPT_F_TYPE2;
        uint32_t wpd = w->pd;

        m_reset_entry(w);
        w->type = OFL_TPT_WINDOW;
        w->pd = wpd;
        w->flags = t2;
        w->state = OFL_TPT_INVALID;
        if (want_stag)
            FUZZ_ASSERT(out == stag);
    }
    return got;
}

static enum ofl_err op_bind(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), rstag = pick_stag(in);
    uint32_t pd = fuzz_u8(in) % 3, qp = fuzz_u8(in) % 3, out = 0;
    uint64_t rbase, rlen, va, len;
    uint8_t access, flags, b;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *w = NULL, *r = NULL;
    enum ofl_err f, rc, got;

    entry_span(rstag, &rbase, &rlen);
    va = pick_to(in, rbase, rlen);
    len = pick_len(in, rlen);
    b = fuzz_u8(in);
    access = (uint8_t)((b & 0x80) ? b & 0x3F : b & OFL_TPT_ACCESS_REMOTE);
    b = fuzz_u8(in);
    flags = (uint8_t)((b & 0x80) ? b & 0x7F : b & BIND_FLAGS);
    if (len == 0) /* any zero length unbinds (verbs' zero-length bind) */
        return m_unbind("bind", stag, rstag, pd, qp, true, va);
    f = m_find(stag, &w);
    got = ofl_tpt_bind(&g_t, stag, rstag, pd, qp, va, len, access, flags, &out);
    if (f != OFL_OK) {
        agree1("bind", got, f);
        return got;
    }
    es_add(&es, w->type != OFL_TPT_WINDOW, OFL_E_TPT_WRONG_TYPE);
    es_add(&es, w->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, (flags & ~BIND_FLAGS) != 0, OFL_E_ARG);
    es_add(&es, (w->flags & OFL_TPT_F_TYPE2) && w->state == OFL_TPT_VALID,
           OFL_E_TPT_BUSY);
    /* FIG. 15 a-e, g on the region, under the window's PD. */
    rc = m_check_local(rstag, pd, va, len, OFL_TPT_BIND_WINDOW);
    es_add(&es, rc != OFL_OK, rc);
    es_add(&es, (access & ~OFL_TPT_ACCESS_REMOTE) != 0,
           OFL_E_TPT_ACCESS_COMBO);
    if (rc == OFL_OK) {
        FUZZ_ASSERT(m_find(rstag, &r) == OFL_OK);
        es_add(&es, (access & RWA) && !(r->access & OFL_TPT_LOCAL_WRITE),
               OFL_E_TPT_ACCESS_COMBO);
    }
    agree("bind", got, &es);
    if (got == OFL_OK) {
        uint8_t t2 = w->flags & OFL_TPT_F_TYPE2;

        w->va = va;
        w->len = len;
        w->access = access;
        w->flags = (uint8_t)(t2 | flags);
        w->region = rstag >> 8;
        w->region_life = r->life;
        w->qp = 0;
        w->sn = 0;
        if (t2) {
            w->qp = qp;
            w->flags |= OFL_TPT_F_INVALIDATABLE;
        }
        w->key++; /* every bind, either type */
        w->state = OFL_TPT_VALID;
        FUZZ_ASSERT(out == ofl_stag_make(stag >> 8, w->key));
    }
    return got;
}

static enum ofl_err op_unbind(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3, qp = fuzz_u8(in) % 3;

    return m_unbind("unbind", stag, 0, pd, qp, (qp & 1) != 0, 0);
}

static enum ofl_err op_invalidate(struct fuzz_in *in, bool remote)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3;
    uint32_t qp = remote ? fuzz_u8(in) % 3 : 0;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e);
    enum ofl_err got = remote ? ofl_tpt_invalidate_remote(&g_t, stag, pd, qp)
                              : ofl_tpt_invalidate_local(&g_t, stag, pd);

    if (f != OFL_OK) {
        agree1("invalidate", got, f);
        return got;
    }
    es_add(&es, e->state != OFL_TPT_VALID, OFL_E_TPT_NOT_VALID);
    es_add(&es, e->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, remote && e->type == OFL_TPT_WINDOW &&
                    (e->flags & OFL_TPT_F_TYPE2) && e->qp != qp,
           OFL_E_TPT_QP_MISMATCH);
    es_add(&es, !(e->flags & OFL_TPT_F_INVALIDATABLE),
           OFL_E_TPT_CANNOT_INVALIDATE);
    agree("invalidate", got, &es);
    if (got == OFL_OK)
        m_end_life(e);
    return got;
}

/* note_use, expire, set_touched: key and Valid, then their effect. */
static enum ofl_err op_life(struct fuzz_in *in, int op)
{
    uint32_t stag = pick_stag(in), sn = 0;
    bool last = false;
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e), got;

    if (op == OP_NOTE_USE)
        last = fuzz_u8(in) & 1;
    if (op == OP_SET_TOUCHED)
        sn = fuzz_u32(in);
    got = op == OP_NOTE_USE  ? ofl_tpt_note_use(&g_t, stag, last)
          : op == OP_EXPIRE ? ofl_tpt_expire(&g_t, stag)
                            : ofl_tpt_set_touched(&g_t, stag, sn);
    if (f == OFL_OK && e->state != OFL_TPT_VALID)
        f = OFL_E_TPT_NOT_VALID;
    agree1(op_name[op], got, f);
    if (got != OFL_OK)
        return got;
    if (op == OP_EXPIRE || (last && (e->flags & OFL_TPT_F_ONE_SHOT)))
        m_end_life(e);
    if (op == OP_SET_TOUCHED) {
        e->flags |= OFL_TPT_F_TOUCHED;
        e->sn = sn;
    }
    return got;
}

/*
 * ofl_tpt_check_translate, the fast path of inbound placement with its
 * own copy of the FIG. 18A checks, must give what check_remote (whose
 * result is remote_err) followed by ofl_tpt_translate gives: the same
 * error, pieces, bytes and fault address, for any scatter-list size. With
 * local, ofl_tpt_check_translate_local (the qp section's segment DMA, its
 * own copy of the FIG. 15 checks) against check_local (remote_err is then
 * its result) followed by ofl_tpt_translate.
 */
static void check_translate_agrees(struct fuzz_in *in, uint32_t stag,
                                   uint32_t pd, uint32_t qp, uint64_t to,
                                   uint64_t len, uint8_t need,
                                   enum ofl_err remote_err, bool local)
{
    struct ofl_tpt_piece pa[8], pb[8];
    struct ofl_tpt_sgl a, b;
    enum ofl_err ea, eb;
    uint32_t i, cap = fuzz_u8(in) % 9;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(pa, 0, sizeof(pa));
    memset(pb, 0, sizeof(pb));
    a.piece = pa;
    a.cap = cap;
    b.piece = pb;
    b.cap = cap;
    if (remote_err == OFL_OK) {
        /* As op_translate: a walk through a page word that names no
         * list would read memory the guard does not allow. */
        struct errset es = {{OFL_OK}, 0};
        struct m_ent *r = NULL;
        struct m_xlate x;
        uint64_t off = 0;
        bool unsafe = false;

        memset(&x, 0, sizeof(x));
        /* The library passed what the model refuses: op_check's agree
         * reports that; do not walk. */
        if (!m_resolve(stag, to, len, &es, &r, &off))
            return;
        (void)m_walk(r, off, to, len, cap, &x, &unsafe);
        if (unsafe) {
            g_skipped++;
            return;
        }
    }
    ea = remote_err;
    if (ea == OFL_OK)
        ea = ofl_tpt_translate(&g_t, stag, to, len, &a);
    if (local) {
        struct ofl_tpt_local l;

        l.va = to;
        l.len = len;
        l.stag = stag;
        l.pd = pd;
        l.need = need;
        eb = ofl_tpt_check_translate_local(&g_t, &l, &b);
        agree1("check_translate_local", eb, ea);
    } else {
        struct ofl_tpt_piece pc[8];
        struct ofl_tpt_sgl c = {pc, cap, 0, 0, 0};
        const struct ofl_tpt_remote r = {.to = to, .len = len, .stag = stag,
                                         .pd = pd, .qp = qp, .need = need};
        enum ofl_err ec;

        eb = ofl_tpt_check_translate(&g_t, stag, pd, qp, to, len, need, &b);
        agree1("check_translate", eb, ea);
        /* The struct entry point has the fast path compiled in too. */
        ec = ofl_tpt_check_translate_access(&g_t, &r, &c);
        agree1("check_translate_access", ec, eb);
        FUZZ_ASSERT(c.count == b.count && c.bytes == b.bytes);
        FUZZ_ASSERT(ec != OFL_E_TPT_PAGE_FAULT || c.fault_va == b.fault_va);
        for (i = 0; i < c.count && i < cap; i++)
            FUZZ_ASSERT(pc[i].pa == pb[i].pa && pc[i].len == pb[i].len);
    }
    FUZZ_ASSERT(a.count == b.count && a.bytes == b.bytes);
    FUZZ_ASSERT(ea != OFL_E_TPT_PAGE_FAULT || a.fault_va == b.fault_va);
    for (i = 0; i < a.count && i < cap; i++)
        FUZZ_ASSERT(pa[i].pa == pb[i].pa && pa[i].len == pb[i].len);
}

static enum ofl_err op_check(struct fuzz_in *in, int op)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3, qp = 0;
    uint64_t base, elen, to, len;
    uint8_t need;
    enum ofl_err want, got;

    if (op == OP_CHECK_REMOTE || op == OP_CHECK_ISCSI)
        qp = fuzz_u8(in) % 3;
    entry_span(stag, &base, &elen);
    to = pick_to(in, base, elen);
    len = pick_len(in, elen);
    need = fuzz_u8(in);
    switch (op) {
    case OP_CHECK_LOCAL:
        need &= OFL_TPT_ACCESS_ALL;
        want = m_check_local(stag, pd, to, len, need);
        got = ofl_tpt_check_local(&g_t, stag, pd, to, len, need);
        check_translate_agrees(in, stag, pd, 0, to, len, need, got, true);
        break;
    case OP_CHECK_REMOTE:
        need &= OFL_TPT_ACCESS_ALL & ~OFL_TPT_BIND_WINDOW;
        want = m_check_remote(stag, pd, qp, to, len, need);
        got = ofl_tpt_check_remote(&g_t, stag, pd, qp, to, len, need);
        check_translate_agrees(in, stag, pd, qp, to, len, need, got, false);
        break;
    default:
        need &= OFL_TPT_ACCESS_ALL & ~OFL_TPT_BIND_WINDOW;
        want = m_check_iscsi(stag, pd, qp, to, len, need);
        got = ofl_tpt_check_iscsi(&g_t, stag, pd, qp, to, len, need);
        break;
    }
    agree1(op_name[op], got, want);
    return got;
}

static enum ofl_err op_translate(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), cap, i;
    uint64_t base, elen, to, len, off = 0;
    struct ofl_tpt_piece pc[16];
    struct ofl_tpt_sgl sgl;
    struct errset es = {{OFL_OK}, 0};
    struct m_xlate x;
    struct m_ent *r = NULL;
    bool unsafe = false;
    enum ofl_err want = OFL_OK, got;

    entry_span(stag, &base, &elen);
    to = pick_to(in, base, elen);
    len = pick_len(in, elen);
    cap = fuzz_u8(in) % 17;
    memset(&x, 0, sizeof(x));
    if (m_resolve(stag, to, len, &es, &r, &off)) {
        want = m_walk(r, off, to, len, cap, &x, &unsafe);
        if (unsafe) {
            g_skipped++;
            return OFL_OK;
        }
        es_add(&es, want != OFL_OK, want);
    }
    memset(pc, 0xA5, sizeof(pc));
    sgl.piece = pc;
    sgl.cap = cap;
    sgl.count = 77;
    sgl.bytes = 77;
    sgl.fault_va = 0;
    got = ofl_tpt_translate(&g_t, stag, to, len, &sgl);
    if (r == NULL) { /* refused before the walk */
        agree("translate", got, &es);
        FUZZ_ASSERT(sgl.count == 0 && sgl.bytes == 0);
        return got;
    }
    agree1("translate", got, want);
    /* Piece by piece: the same physical bytes as the model's ATT. */
    FUZZ_ASSERT(sgl.count == x.n);
    FUZZ_ASSERT(sgl.bytes == x.bytes);
    FUZZ_ASSERT(sgl.count <= cap);
    for (i = 0; i < x.n; i++) {
        FUZZ_ASSERT(pc[i].pa == x.pc[i].pa);
        FUZZ_ASSERT(pc[i].len == x.pc[i].len);
        FUZZ_ASSERT(pc[i].len != 0 && pc[i].pa + (pc[i].len - 1) >= pc[i].pa);
    }
    if (got == OFL_E_TPT_PAGE_FAULT)
        FUZZ_ASSERT(sgl.fault_va == x.fault);
    if (got == OFL_OK)
        FUZZ_ASSERT(sgl.bytes == len);
    return got;
}

static enum ofl_err op_map(struct fuzz_in *in, bool map)
{
    uint32_t stag = pick_stag(in);
    uint64_t base, elen, to, pa = 0, off = 0, page, word;
    unsigned long writes = g_sim.dma_writes;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *r = NULL;
    struct m_loc loc;
    bool unsafe = false;
    enum ofl_err err, got;

    entry_span(stag, &base, &elen);
    to = pick_to(in, base, elen);
    if (map)
        pa = pick_page(in);
    if (!m_resolve(stag, to, 1, &es, &r, &off)) {
        got = map ? ofl_tpt_map_page(&g_t, stag, to, pa)
                  : ofl_tpt_unmap_page(&g_t, stag, to);
        agree(map ? "map" : "unmap", got, &es);
        return got;
    }
    es_add(&es, (pa & (((uint64_t)1 << r->shift) - 1)) != 0, OFL_E_ARG);
    page = (off + r->fpo) >> r->shift;
    err = m_locate(r, page, &loc, &unsafe);
    if (unsafe) {
        g_skipped++;
        return OFL_OK;
    }
    es_add(&es, err != OFL_OK, err);
    got = map ? ofl_tpt_map_page(&g_t, stag, to, pa)
              : ofl_tpt_unmap_page(&g_t, stag, to);
    agree(map ? "map" : "unmap", got, &es);
    if (got != OFL_OK) {
        FUZZ_ASSERT(g_sim.dma_writes == writes);
        return got;
    }
    word = map ? pa | PRES : 0;
    if (loc.in_list) {
        M.list[loc.list][loc.index] = word;
        FUZZ_ASSERT(g_sim.dma_writes == writes + 1);
        FUZZ_ASSERT(ofl_load_le64(g_arena + (size_t)loc.list * LISTB +
                                  (size_t)loc.index * 8u) == word);
    } else {
        M.att[loc.slot] = word;
        FUZZ_ASSERT(g_sim.dma_writes == writes);
    }
    return got;
}

static enum ofl_err op_att_write(struct fuzz_in *in)
{
    uint32_t base = fuzz_u8(in) % 70, n = fuzz_u8(in) % 9, i;
    uint64_t w[8];
    struct errset es = {{OFL_OK}, 0};
    bool rsvd = false;
    enum ofl_err got;

    for (i = 0; i < n; i++) {
        w[i] = pick_word(in);
        rsvd |= (w[i] & RSVD) != 0;
    }
    got = ofl_tpt_att_write(&g_t, base, w, n);
    es_add(&es, n > ATTN || base > ATTN - n, OFL_E_TPT_ATT_RANGE);
    es_add(&es, rsvd, OFL_E_TPT_ATT_CORRUPT);
    agree("att_write", got, &es);
    if (got == OFL_OK)
        for (i = 0; i < n; i++)
            M.att[base + i] = w[i];
    return got;
}

/* The driver writes a list word (not a library call). */
static enum ofl_err op_list_write(struct fuzz_in *in)
{
    uint32_t k = fuzz_u8(in) % NLIST, idx = fuzz_u16(in) % LISTW;
    uint64_t w = pick_word(in);

    ofl_store_le64(g_arena + (size_t)k * LISTB + (size_t)idx * 8u, w);
    M.list[k][idx] = w;
    return OFL_OK;
}

/* Query: the public view agrees with the model. */
static void compare_query(uint32_t stag, enum ofl_err got,
                          const struct ofl_tpt_info *info)
{
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e);

    agree1("query", got, f);
    if (got != OFL_OK)
        return;
    FUZZ_ASSERT(info->state == e->state);
    FUZZ_ASSERT(info->type == e->type);
    FUZZ_ASSERT(info->pd == e->pd);
    if (e->state != OFL_TPT_VALID)
        return;
    FUZZ_ASSERT(info->va == e->va);
    FUZZ_ASSERT(info->len == e->len);
    FUZZ_ASSERT(info->access == e->access);
    FUZZ_ASSERT(info->flags == e->flags);
    FUZZ_ASSERT(info->stored_sn == e->sn);
    if (e->type == OFL_TPT_WINDOW)
        FUZZ_ASSERT(info->region_stag_index == e->region);
}

static enum ofl_err op_query(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in);
    struct ofl_tpt_info info;
    enum ofl_err got;

    memset(&info, 0, sizeof(info));
    got = ofl_tpt_query(&g_t, stag, &info);
    compare_query(stag, got, &info);
    return got;
}

/* ---- ATT slots: the owner table and the slot pool ---------------------- */

static enum ofl_err op_owners(struct fuzz_in *in)
{
    uint32_t n = (fuzz_u8(in) & 1) ? ATTN - 1 : ATTN, i;
    enum ofl_err got = ofl_tpt_att_owners(&g_t, g_own, n);
    struct errset es = {{OFL_OK}, 0};

    es_add(&es, n != ATTN, OFL_E_ARG);
    for (i = 1; i < CAP; i++)
        if (M.e[i].state != OFL_TPT_FREE && n == ATTN) {
            es_add(&es, true, OFL_E_TPT_BUSY);
            break;
        }
    agree("owners", got, &es);
    if (got == OFL_OK) {
        M.owners = true;
        memset(M.own, 0, sizeof(M.own));
    }
    return got;
}

/* The model pool's first fit: the first slot of n free ones, or -1. */
static int m_first_fit(uint32_t n)
{
    uint32_t s, run = 0;

    if (n == 0)
        return -1;
    for (s = 0; s < ATTN; s++) {
        run = M.run[s] == 0 ? run + 1 : 0;
        if (run == n)
            return (int)(s + 1 - n);
    }
    return -1;
}

static void m_pool_take(uint32_t base, uint32_t n)
{
    uint32_t i, id = ++M.next_run;

    for (i = 0; i < n; i++)
        M.run[base + i] = id;
}

/* Is [base, base + n) exactly one run of the model pool? */
static bool m_pool_run(uint32_t base, uint32_t n)
{
    uint32_t i, id;

    if (n == 0 || base >= ATTN || n > ATTN - base)
        return false;
    id = M.run[base];
    if (id == 0 || (base > 0 && M.run[base - 1] == id) ||
        (base + n < ATTN && M.run[base + n] == id))
        return false;
    for (i = 0; i < n; i++)
        if (M.run[base + i] != id)
            return false;
    return true;
}

static enum ofl_err op_pool_alloc(struct fuzz_in *in)
{
    uint32_t n = fuzz_u8(in) % 72, base = 0xDEAD;
    int want = m_first_fit(n);
    enum ofl_err got = ofl_tpt_att_alloc(&g_pool, n, &base);

    agree1("pool_alloc", got,
           n == 0 ? OFL_E_ARG : want < 0 ? OFL_E_TPT_ATT_FULL : OFL_OK);
    if (got == OFL_OK) {
        FUZZ_ASSERT(base == (uint32_t)want);
        m_pool_take(base, n);
    } else {
        FUZZ_ASSERT(base == 0xDEAD);
    }
    return got;
}

static enum ofl_err op_pool_free(struct fuzz_in *in)
{
    uint8_t m = fuzz_u8(in);
    uint32_t base = fuzz_u8(in), n, i;
    enum ofl_err got;

    if (m & 0x80) { /* the run that holds base, from base on */
        base %= ATTN;
        for (n = 0; base + n < ATTN && M.run[base + n] != 0 &&
                    M.run[base + n] == M.run[base];
             n++)
            ;
        n += (m & 3) - (m & 4 ? 1u : 0u); /* and a little off */
    } else {
        base = (m & 0x40) ? 0xFFFFFFFFu - base : base % 72;
        n = fuzz_u8(in);
        if (m & 0x20)
            n = 0xFFFFFFFFu - n;
    }
    got = ofl_tpt_att_free(&g_pool, base, n);
    agree1("pool_free", got,
           n == 0                              ? OFL_E_ARG
           : base >= ATTN || n > ATTN - base   ? OFL_E_TPT_ATT_RANGE
           : !m_pool_run(base, n)              ? OFL_E_TPT_ATT_NOT_ALLOCATED
                                               : OFL_OK);
    if (got == OFL_OK)
        for (i = 0; i < n; i++)
            M.run[base + i] = 0;
    return got;
}

/* The slot count helper, against the rule of the registration checks. */
static enum ofl_err op_slots(struct fuzz_in *in)
{
    uint8_t shift = fuzz_u8(in) % 32, kind = fuzz_u8(in) % 4;
    uint32_t fpo = fuzz_u32(in), count = 0xDEAD;
    uint64_t len = fuzz_u64(in), pages = 0, per;
    bool shift_ok = shift >= 12 && shift <= 28;
    enum ofl_err want = OFL_OK, got;

    if (shift_ok && (fpo >> 31) == 0)
        fpo &= (1u << shift) - 1u; /* mostly an offset inside the page */
    if (!shift_ok || fpo >= (1u << shift) || len == 0 || kind > 2 ||
        len > U64MAX - fpo) {
        want = OFL_E_TPT_BAD_DESC;
    } else {
        pages = ((fpo + len - 1) >> shift) + 1;
        per = (uint64_t)1 << (9 * kind);
        pages = (pages + per - 1) / per;
        if (pages > 0xFFFFFFFFu)
            want = OFL_E_TPT_ATT_RANGE;
    }
    got = ofl_tpt_att_slots(len, fpo, shift, kind, &count);
    agree1("slots", got, want);
    if (got == OFL_OK) {
        FUZZ_ASSERT(count == pages);
        FUZZ_ASSERT((uint64_t)count << (9 * kind) >=
                    ((fpo + len - 1) >> shift) + 1);
        FUZZ_ASSERT(((uint64_t)(count - 1) << (9 * kind)) <
                    ((fpo + len - 1) >> shift) + 1);
    } else {
        FUZZ_ASSERT(count == 0xDEAD);
    }
    return got;
}

static enum ofl_err op_reg_pool(struct fuzz_in *in)
{
    uint32_t pd = fuzz_u8(in) % 3, n, i, s = 0;
    struct ofl_tpt_region_desc d;
    uint64_t pages[8];
    int want;
    enum ofl_err got;

    pick_desc(in, &d);
    n = fuzz_u8(in) % 9;
    for (i = 0; i < n; i++)
        pages[i] = pick_page(in);
    want = m_first_fit(n);
    got = ofl_tpt_reg_pages_pool(&g_t, &g_pool, pd, &d, pages, n, &s);
    if (n == 0 || want < 0) {
        agree1("reg_pool", got, n == 0 ? OFL_E_ARG : OFL_E_TPT_ATT_FULL);
        return got;
    }
    d.att_base = (uint32_t)want;
    m_reg_pages("reg_pool", pd, d, pages, n, got, s);
    if (got == OFL_OK)
        m_pool_take(d.att_base, n);
    return got;
}

static enum ofl_err op_dereg_pool(struct fuzz_in *in)
{
    uint32_t stag = pick_stag(in), pd = fuzz_u8(in) % 3, i;
    struct errset es = {{OFL_OK}, 0};
    struct m_ent *e = NULL;
    enum ofl_err f = m_find(stag, &e);
    enum ofl_err got = ofl_tpt_dereg_pool(&g_t, &g_pool, stag, pd);

    if (f != OFL_OK) {
        agree1("dereg_pool", got, f);
        return got;
    }
    es_add(&es, e->type == OFL_TPT_WINDOW, OFL_E_TPT_WRONG_TYPE);
    es_add(&es, e->pd != pd, OFL_E_TPT_PD_MISMATCH);
    es_add(&es, e->count != 0 && !m_pool_run(e->base, e->count),
           OFL_E_TPT_ATT_NOT_ALLOCATED);
    agree("dereg_pool", got, &es);
    if (got == OFL_OK) {
        for (i = 0; i < e->count; i++)
            M.run[e->base + i] = 0;
        m_reset_entry(e);
    }
    return got;
}

/* The library's owner table and pool bitmaps agree with the model. */
static void compare_slots(void)
{
    uint32_t s, nfree = 0;
    const uint32_t *start_map = g_map + OFL_TPT_ATT_POOL_WORDS(ATTN) / 2;

    if (M.owners)
        FUZZ_ASSERT(memcmp(g_own, M.own, sizeof(g_own)) == 0);
    for (s = 0; s < ATTN; s++) {
        bool u = M.run[s] != 0;
        bool st = u && (s == 0 || M.run[s - 1] != M.run[s]);

        FUZZ_ASSERT(((g_map[s >> 5] >> (s & 31)) & 1u) == u);
        FUZZ_ASSERT(((start_map[s >> 5] >> (s & 31)) & 1u) == st);
        nfree += !u;
    }
    FUZZ_ASSERT(g_pool.free == nfree);
}

static void setup(uint8_t policy)
{
    unsigned k;

    if (g_arena == NULL) {
        void *p = NULL;

        if (posix_memalign(&p, 1u << 22, (1u << 21) + (size_t)NLIST * LISTB))
            abort();
        g_arena = (uint8_t *)p + (1u << 21);
        g_verbose = getenv("FUZZ_TPT_VERBOSE") != NULL;
    }
    memset(g_arena, 0, (size_t)NLIST * LISTB);
    memset(&M, 0, sizeof(M));
    M.policy = policy & 1;
    ofl_sim_init(&g_sim);
    g_sim.trap_violations = true;
    for (k = 0; k < NLIST; k++)
        if (ofl_sim_allow(&g_sim, g_arena + (size_t)k * LISTB, LISTB,
                          OFL_SIM_RW) != 0)
            abort();
    memset(g_att, 0, sizeof(g_att));
    if (ofl_tpt_init(&g_t, g_e, CAP, g_att, ATTN, &g_sim.port,
                     (enum ofl_tpt_policy)(policy & 1)) != OFL_OK ||
        ofl_tpt_att_pool_init(&g_pool, g_map, OFL_TPT_ATT_POOL_WORDS(ATTN),
                              ATTN) != OFL_OK)
        abort();
    if (policy & 2) {
        M.owners = true;
        if (ofl_tpt_att_owners(&g_t, g_own, ATTN) != OFL_OK)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    int ops = 0;
    uint32_t i;

    setup(fuzz_u8(&in) & 3);
    while (in.n > 0 && ops++ < MAX_OPS) {
        int op = fuzz_u8(&in) % OP_COUNT;
        enum ofl_err got;

        switch (op) {
        case OP_ALLOC: got = op_alloc(&in); break;
        case OP_DEALLOC: got = op_dealloc(&in); break;
        case OP_REGISTER: got = op_register(&in); break;
        case OP_REG_PAGES: got = op_reg_pages(&in); break;
        case OP_REG_PHYS: got = op_reg_phys(&in); break;
        case OP_DEREG: got = op_dereg(&in); break;
        case OP_BIND: got = op_bind(&in); break;
        case OP_UNBIND: got = op_unbind(&in); break;
        case OP_INV_LOCAL: got = op_invalidate(&in, false); break;
        case OP_INV_REMOTE: got = op_invalidate(&in, true); break;
        case OP_NOTE_USE:
        case OP_EXPIRE:
        case OP_SET_TOUCHED: got = op_life(&in, op); break;
        case OP_CHECK_LOCAL:
        case OP_CHECK_REMOTE:
        case OP_CHECK_ISCSI: got = op_check(&in, op); break;
        case OP_TRANSLATE: got = op_translate(&in); break;
        case OP_MAP: got = op_map(&in, true); break;
        case OP_UNMAP: got = op_map(&in, false); break;
        case OP_ATT_WRITE: got = op_att_write(&in); break;
        case OP_LIST_WRITE: got = op_list_write(&in); break;
        case OP_OWNERS: got = op_owners(&in); break;
        case OP_POOL_ALLOC: got = op_pool_alloc(&in); break;
        case OP_POOL_FREE: got = op_pool_free(&in); break;
        case OP_SLOTS: got = op_slots(&in); break;
        case OP_REG_POOL: got = op_reg_pool(&in); break;
        case OP_DEREG_POOL: got = op_dereg_pool(&in); break;
        default: got = op_query(&in); break;
        }
        if (g_verbose)
            fprintf(stderr, "%3d %-12s %s\n", ops, op_name[op],
                    ofl_strerror(got));
        FUZZ_ASSERT(memcmp(g_att, M.att, sizeof(g_att)) == 0);
        compare_slots();
        FUZZ_ASSERT(g_sim.violations == 0);
    }
    /* The end state: lists, and every entry's public view. */
    for (i = 0; i < NLIST * LISTW; i++)
        FUZZ_ASSERT(ofl_load_le64(g_arena + (size_t)i * 8u) ==
                    M.list[i / LISTW][i % LISTW]);
    for (i = 1; i < CAP; i++) {
        uint32_t stag = ofl_stag_make(i, M.e[i].key);
        struct ofl_tpt_info info;

        memset(&info, 0, sizeof(info));
        compare_query(stag, ofl_tpt_query(&g_t, stag, &info), &info);
    }
    FUZZ_ASSERT(g_sim.violations == 0);
    if (g_verbose)
        fprintf(stderr, "skipped %lu walks that would leave the lists\n",
                g_skipped);
    return 0;
}
