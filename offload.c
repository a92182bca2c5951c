/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * offload.c - the decision logic of an RDMA / TCP offload engine.
 *
 * One file, read top to bottom in the sections of offload.h:
 * base, port, tpt, seq, wire, qp, ap, dt, pp. Each section rests only on
 * the sections above it (ap, dt and pp rest on base alone; pp on qp) and
 * uses their public functions, never their internals.
 *
 * Freestanding C11: no libc, no allocation, no mutable globals, no
 * recursion, no VLAs, no floating point, no 64-bit division.
 */
#include "offload.h"

/* ======================================================================== */
/* base                                                                     */
/* ======================================================================== */

#define OFL_U64_MAX (~(uint64_t)0)
#define OFL_U32_MAX (~(uint32_t)0)
#define OFL_SIZE_MAX (~(size_t)0) /* SIZE_MAX needs <stdint.h>: not in kernels */

uint32_t ofl_version(void)
{
    return (uint32_t)OFL_VERSION_NUMBER;
}

#define OFL_ERR_NAME_CASE_(name, value) \
    case OFL_##name:                    \
        return "OFL_" #name;

const char *ofl_strerror(enum ofl_err e)
{
    switch (e) {
        OFL_ERRORS(OFL_ERR_NAME_CASE_)
    case OFL_ERR_END_:
        break;
    }
    return "OFL_E_UNKNOWN";
}

#define OFL_WC_NAME_CASE_(name, value) \
    case OFL_WC_##name:                \
        return "OFL_WC_" #name;

const char *ofl_wc_status_str(enum ofl_wc_status s)
{
    switch (s) {
        OFL_WC_STATUSES(OFL_WC_NAME_CASE_)
    case OFL_WC_STATUS_COUNT_:
        break;
    }
    return "OFL_WC_UNKNOWN";
}

/*
 * Internal copy and fill. The core may not call the C library's copy or
 * fill (firmware without libc), and compilers turn plain copy and fill
 * loops into calls to them (GCC's -ftree-loop-distribute-patterns, clang's
 * loop idiom recognition). With GCC and clang the loops below pass their
 * cursor through an empty asm each step (OFL_OPAQUE): the address is then
 * unknown to the optimiser, the loop matches no idiom, and the functions
 * stay inlinable (a fixed-size copy of a small struct becomes a few
 * moves; an __optimize__ attribute would forbid inlining). Other
 * compilers get plain loops. Any other loop of the core that stores one
 * value across an array does the same (the qp section's pointer tables):
 * -ffreestanding turns the idioms off, but a vendor may build the two
 * files without it, and `make analyze` checks such builds too.
 */
/* Attribute names are spelled __name__: a kernel build defines noinline,
 * unused etc. as macros. */
#if defined(__GNUC__) && !defined(__FRAMAC__)
#define OFL_OPAQUE(p) __asm__("" : "+r"(p))
#else
#define OFL_OPAQUE(p) ((void)0)
#endif
/* Base helpers kept for the sections below even when a build leaves those
 * sections out. */
#if defined(__GNUC__)
#define OFL_MAYBE_UNUSED __attribute__((__unused__))
#define OFL_NOINLINE __attribute__((__noinline__))
#define OFL_ALWAYS_INLINE __attribute__((__always_inline__)) inline
#else
#define OFL_MAYBE_UNUSED
#define OFL_NOINLINE
#define OFL_ALWAYS_INLINE inline
#endif
/* The body of a public function that the qp engine calls once or twice
 * per message: inlined there in a speed build, one copy in a size build
 * and in an unoptimised one (where each inlined copy would count apart in
 * a coverage report, and speed is not the point). */
#if defined(__OPTIMIZE_SIZE__) || !defined(__OPTIMIZE__)
#define OFL_HOT_INLINE
#else
#define OFL_HOT_INLINE OFL_ALWAYS_INLINE
#endif

/*
 * OFL_FAST_PATH: the straight lines in front of the general paths of the
 * qp engine's data movement (qp_dma_sge). 0 in a size build (-Os: the
 * general paths only, no byte added) and when OFL_NO_FAST_PATH is defined
 * (tests/check_fastpath.sh builds the core both ways and compares every
 * result of the same inputs).
 */
#if defined(__OPTIMIZE_SIZE__) || defined(OFL_NO_FAST_PATH)
#define OFL_FAST_PATH 0
#else
#define OFL_FAST_PATH 1
#endif

/* The body of a public function that a fast path calls in place of it
 * (ddp_seg_next, port_crc32c): OFL_HOT_INLINE with the fast paths; without
 * them its one caller is the public function, into which it is always
 * inlined, so that a size build has the one copy it had. */
#if OFL_FAST_PATH
#define OFL_BODY_INLINE OFL_HOT_INLINE
#else
#define OFL_BODY_INLINE OFL_ALWAYS_INLINE
#endif

/*
 * Both move 16 or 8 bytes per step on targets where unaligned word access is
 * cheap: through an unaligned may_alias word with GCC and clang, else
 * through the byte-order helpers (which compilers usually merge into single
 * moves). Nothing here can become a library call: a fixed-size
 * __builtin_memcpy would be a memcpy call under strict alignment (RV64 -Os)
 * and at -O0. Other targets, and the tail, go byte by byte. dst and src
 * MUST NOT overlap.
 */
#if (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
     defined(__s390x__) || defined(__powerpc64__)) && !defined(__FRAMAC__)
#define OFL_WORD_MOVES 1
#endif

#if defined(OFL_WORD_MOVES) && defined(__GNUC__)
/* An unaligned word that may alias anything: one load or store on these
 * targets at every optimisation level. (GCC 12 does not merge the byte
 * stores of the byte-order helpers when two words are in flight, nor at
 * -O1 or -O3: it then moves byte by byte with shifts.) */
typedef uint64_t __attribute__((__may_alias__, __aligned__(1))) ofl_word;
#endif

static inline OFL_MAYBE_UNUSED void ofl_copy(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;

#if defined(OFL_WORD_MOVES) && defined(__GNUC__)
    for (; n >= 16; n -= 16, d += 16, s += 16) {
        ofl_word a = ((const ofl_word *)s)[0], b = ((const ofl_word *)s)[1];

        OFL_OPAQUE(d);
        ((ofl_word *)d)[0] = a;
        ((ofl_word *)d)[1] = b;
    }
    for (; n >= 8; n -= 8, d += 8, s += 8) {
        OFL_OPAQUE(d);
        *(ofl_word *)d = *(const ofl_word *)s;
    }
#elif defined(OFL_WORD_MOVES)
    for (; n >= 16; n -= 16, d += 16, s += 16) {
        uint64_t a = ofl_load_le64(s), b = ofl_load_le64(s + 8);

        ofl_store_le64(d, a);
        ofl_store_le64(d + 8, b);
    }
    for (; n >= 8; n -= 8, d += 8, s += 8)
        ofl_store_le64(d, ofl_load_le64(s));
#endif
    for (; n != 0; n--) {
        OFL_OPAQUE(d);
        *d++ = *s++;
    }
}

static inline OFL_MAYBE_UNUSED void ofl_fill(void *dst, uint8_t byte, size_t n)
{
    uint8_t *d = (uint8_t *)dst;

#if defined(OFL_WORD_MOVES)
    const uint64_t w = byte * 0x0101010101010101ull;

    for (; n >= 16; n -= 16, d += 16) {
        OFL_OPAQUE(d);
        ofl_store_le64(d, w);
        ofl_store_le64(d + 8, w);
    }
    for (; n >= 8; n -= 8, d += 8) {
        OFL_OPAQUE(d);
        ofl_store_le64(d, w);
    }
#endif
    for (; n != 0; n--) {
        OFL_OPAQUE(d);
        *d++ = byte;
    }
}

/*
 * ofl_copy and ofl_fill for a size n known when compiling, in a speed
 * build (OFL_FAST_PATH) where unaligned words are cheap: a multiple of 8
 * up to 80 (ofl_zero_fixed: 64) moves as straight-line words (no loop, no
 * library call), any other n goes to ofl_copy / ofl_fill. The per-FPDU
 * and per-message headers and completions of the qp engine use them. dst
 * and src MUST NOT overlap. GCC only: with clang 14 the qp paths that use
 * them grow (bench-count: 143 more instructions per 64 B Send), so there
 * they are ofl_copy / ofl_fill. Optimised builds only (as TPT_HOT_WORD): at
 * -O0 nothing is folded, and each use would leave the sizes it does not
 * have as code never run in the coverage build.
 */
#if OFL_FAST_PATH && defined(OFL_WORD_MOVES) && defined(__GNUC__) && \
    !defined(__clang__) && defined(__OPTIMIZE__)
/* Words 0 .. n / 8 - 1 of d from s, or zero when zero (a constant; s is
 * then not read): one store per word, each folded away for a constant n
 * (n a multiple of 8, at most 80; the callers check). */
static OFL_ALWAYS_INLINE void ofl_words_fixed(ofl_word *d, const ofl_word *s,
                                              size_t n, bool zero)
{
    size_t k;

#pragma GCC unroll 10
    for (k = 0; k < 10; k++)
        if (n > 8 * k)
            d[k] = zero ? 0 : s[k];
}

static OFL_ALWAYS_INLINE void ofl_copy_fixed(void *dst, const void *src,
                                             size_t n)
{
    if (n % 8 != 0 || n > 80)
        ofl_copy(dst, src, n);
    else
        ofl_words_fixed((ofl_word *)dst, (const ofl_word *)src, n, false);
}

static OFL_ALWAYS_INLINE void ofl_zero_fixed(void *dst, size_t n)
{
    if (n % 8 != 0 || n > 64)
        ofl_fill(dst, 0, n);
    else
        ofl_words_fixed((ofl_word *)dst, NULL, n, true);
}
#else
#define ofl_copy_fixed ofl_copy
#define ofl_zero_fixed(d, n) ofl_fill((d), 0, (n))
#endif

/*
 * The stores of offload.h's byte-order helpers are byte by byte, and GCC 12
 * does not merge them when two words are in flight (a WQE's or a header's
 * fields: up to eight byte moves and shifts per word). Where ofl_word
 * exists and the byte order is known, this file stores whole unaligned
 * words instead (a byte swap where the orders differ): same bytes, one
 * move. The loads merge well and stay as they are. The static analyser
 * gets the byte helpers: it does not follow a store through a may_alias
 * word into the bytes it covers, and would report them as unset.
 */
#if defined(OFL_WORD_MOVES) && defined(__GNUC__) && \
    !defined(__clang_analyzer__) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || \
     __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) ofl_word32;
typedef uint16_t __attribute__((__may_alias__, __aligned__(1))) ofl_word16;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OFL_LE16(v) (v)
#define OFL_LE32(v) (v)
#define OFL_LE64(v) (v)
#define OFL_BE16(v) __builtin_bswap16(v)
#define OFL_BE32(v) __builtin_bswap32(v)
#define OFL_BE64(v) __builtin_bswap64(v)
#else
#define OFL_LE16(v) __builtin_bswap16(v)
#define OFL_LE32(v) __builtin_bswap32(v)
#define OFL_LE64(v) __builtin_bswap64(v)
#define OFL_BE16(v) (v)
#define OFL_BE32(v) (v)
#define OFL_BE64(v) (v)
#endif
static inline void word_store_le16(uint8_t *p, uint16_t v)
{
    *(ofl_word16 *)p = OFL_LE16(v);
}
static inline void word_store_le32(uint8_t *p, uint32_t v)
{
    *(ofl_word32 *)p = OFL_LE32(v);
}
static inline void word_store_le64(uint8_t *p, uint64_t v)
{
    *(ofl_word *)p = OFL_LE64(v);
}
static inline void word_store_be16(uint8_t *p, uint16_t v)
{
    *(ofl_word16 *)p = OFL_BE16(v);
}
static inline void word_store_be32(uint8_t *p, uint32_t v)
{
    *(ofl_word32 *)p = OFL_BE32(v);
}
static inline void word_store_be64(uint8_t *p, uint64_t v)
{
    *(ofl_word *)p = OFL_BE64(v);
}
#define ofl_store_le16(p, v) word_store_le16(p, v)
#define ofl_store_le32(p, v) word_store_le32(p, v)
#define ofl_store_le64(p, v) word_store_le64(p, v)
#define ofl_store_be16(p, v) word_store_be16(p, v)
#define ofl_store_be32(p, v) word_store_be32(p, v)
#define ofl_store_be64(p, v) word_store_be64(p, v)
#if OFL_FAST_PATH
/*
 * The fast paths' loads of fields at fixed offsets (issue 30): a WQE's
 * and a header's little-endian words on the qp paths, a descriptor's
 * big-endian words in dt. One unaligned load each (and a byte swap where
 * the orders differ), the same value as the byte helpers'. With those,
 * GCC 12 calls an out-of-line ofl_load_le64 for a receive's wr_id, and
 * clang 14 takes a word whose parts are used apart (an STag's index and
 * key) into byte loads, shifts and ors, or does not merge the byte loads
 * at every offset (a Send 23 instructions more with gcc, 34 with clang;
 * 8 in qp_sq_whole; 20 a dt send). A size build, a strict-alignment
 * target and the static analyser keep the byte helpers (below).
 */
static OFL_ALWAYS_INLINE OFL_MAYBE_UNUSED uint32_t
word_load_le16(const uint8_t *p)
{
    return OFL_LE16(*(const ofl_word16 *)p);
}
static OFL_ALWAYS_INLINE OFL_MAYBE_UNUSED uint32_t
word_load_le32(const uint8_t *p)
{
    return OFL_LE32(*(const ofl_word32 *)p);
}
static OFL_ALWAYS_INLINE OFL_MAYBE_UNUSED uint64_t
word_load_le64(const uint8_t *p)
{
    return OFL_LE64(*(const ofl_word *)p);
}
static OFL_ALWAYS_INLINE OFL_MAYBE_UNUSED uint32_t
word_load_be32(const uint8_t *p)
{
    return OFL_BE32(*(const ofl_word32 *)p);
}
static OFL_ALWAYS_INLINE OFL_MAYBE_UNUSED uint64_t
word_load_be64(const uint8_t *p)
{
    return OFL_BE64(*(const ofl_word *)p);
}
#define ofl_load_le16_word(p) word_load_le16(p)
#define ofl_load_le32_word(p) word_load_le32(p)
#define ofl_load_le64_word(p) word_load_le64(p)
#define ofl_load_be32_word(p) word_load_be32(p)
#define ofl_load_be64_word(p) word_load_be64(p)
#define OFL_WORD_LOADS 1
#endif
#endif
#ifndef OFL_WORD_LOADS
#define ofl_load_le16_word(p) ofl_load_le16(p)
#define ofl_load_le32_word(p) ofl_load_le32(p)
#define ofl_load_le64_word(p) ofl_load_le64(p)
#define ofl_load_be32_word(p) ofl_load_be32(p)
#define ofl_load_be64_word(p) ofl_load_be64(p)
#endif

/* Bounds-checked cursors (offload.h, base: cursors). The bodies are static
 * inline (cur_*), the public functions call them, and the rest of this file
 * calls the bodies through the macros after ofl_wr_be64: the parsers and
 * builders then make no call per header field. */
static inline void cur_rd_init(struct ofl_rd *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = p != NULL ? len : 0;
    r->off = 0;
    r->bad = false;
}

/* Returns a pointer to the next n bytes and skips them, or NULL (bad). */
static inline const uint8_t *cur_rd_take(struct ofl_rd *r, size_t n)
{
    const uint8_t *q;

    if (r->bad || n > r->len - r->off) {
        r->bad = true;
        return NULL;
    }
    q = r->p + r->off;
    r->off += n;
    return q;
}

static inline uint8_t cur_rd_u8(struct ofl_rd *r)
{
    const uint8_t *q = cur_rd_take(r, 1);
    return q != NULL ? q[0] : 0;
}

static inline uint16_t cur_rd_be16(struct ofl_rd *r)
{
    const uint8_t *q = cur_rd_take(r, 2);
    return q != NULL ? ofl_load_be16(q) : 0;
}

static inline uint32_t cur_rd_be32(struct ofl_rd *r)
{
    const uint8_t *q = cur_rd_take(r, 4);
    return q != NULL ? ofl_load_be32(q) : 0;
}

static inline uint64_t cur_rd_be64(struct ofl_rd *r)
{
    const uint8_t *q = cur_rd_take(r, 8);
    return q != NULL ? ofl_load_be64(q) : 0;
}

/* Bytes left to read. */
static inline size_t cur_rd_left(const struct ofl_rd *r)
{
    return r->bad ? 0 : r->len - r->off;
}

static inline void cur_wr_init(struct ofl_wr *w, uint8_t *p, size_t cap)
{
    w->p = p;
    w->cap = p != NULL ? cap : 0;
    w->off = 0;
    w->bad = false;
}

/* Returns a pointer to the next n writable bytes and skips them, or NULL. */
static inline uint8_t *cur_wr_take(struct ofl_wr *w, size_t n)
{
    uint8_t *q;

    if (w->bad || n > w->cap - w->off) {
        w->bad = true;
        return NULL;
    }
    q = w->p + w->off;
    w->off += n;
    return q;
}

static inline void cur_wr_u8(struct ofl_wr *w, uint8_t v)
{
    uint8_t *q = cur_wr_take(w, 1);
    if (q != NULL)
        q[0] = v;
}

static inline void cur_wr_be16(struct ofl_wr *w, uint16_t v)
{
    uint8_t *q = cur_wr_take(w, 2);
    if (q != NULL)
        ofl_store_be16(q, v);
}

static inline void cur_wr_be32(struct ofl_wr *w, uint32_t v)
{
    uint8_t *q = cur_wr_take(w, 4);
    if (q != NULL)
        ofl_store_be32(q, v);
}

static inline void cur_wr_be64(struct ofl_wr *w, uint64_t v)
{
    uint8_t *q = cur_wr_take(w, 8);
    if (q != NULL)
        ofl_store_be64(q, v);
}

void ofl_rd_init(struct ofl_rd *r, const uint8_t *p, size_t len)
{
    cur_rd_init(r, p, len);
}

const uint8_t *ofl_rd_take(struct ofl_rd *r, size_t n)
{
    return cur_rd_take(r, n);
}

uint8_t ofl_rd_u8(struct ofl_rd *r)
{
    return cur_rd_u8(r);
}

uint16_t ofl_rd_be16(struct ofl_rd *r)
{
    return cur_rd_be16(r);
}

uint32_t ofl_rd_be32(struct ofl_rd *r)
{
    return cur_rd_be32(r);
}

uint64_t ofl_rd_be64(struct ofl_rd *r)
{
    return cur_rd_be64(r);
}

size_t ofl_rd_left(const struct ofl_rd *r)
{
    return cur_rd_left(r);
}

void ofl_wr_init(struct ofl_wr *w, uint8_t *p, size_t cap)
{
    cur_wr_init(w, p, cap);
}

uint8_t *ofl_wr_take(struct ofl_wr *w, size_t n)
{
    return cur_wr_take(w, n);
}

void ofl_wr_u8(struct ofl_wr *w, uint8_t v)
{
    cur_wr_u8(w, v);
}

void ofl_wr_be16(struct ofl_wr *w, uint16_t v)
{
    cur_wr_be16(w, v);
}

void ofl_wr_be32(struct ofl_wr *w, uint32_t v)
{
    cur_wr_be32(w, v);
}

void ofl_wr_be64(struct ofl_wr *w, uint64_t v)
{
    cur_wr_be64(w, v);
}

#define ofl_rd_init(r, p, len) cur_rd_init(r, p, len)
#define ofl_rd_take(r, n) cur_rd_take(r, n)
#define ofl_rd_u8(r) cur_rd_u8(r)
#define ofl_rd_be16(r) cur_rd_be16(r)
#define ofl_rd_be32(r) cur_rd_be32(r)
#define ofl_rd_be64(r) cur_rd_be64(r)
#define ofl_rd_left(r) cur_rd_left(r)
#define ofl_wr_init(w, p, cap) cur_wr_init(w, p, cap)
#define ofl_wr_take(w, n) cur_wr_take(w, n)
#define ofl_wr_u8(w, v) cur_wr_u8(w, v)
#define ofl_wr_be16(w, v) cur_wr_be16(w, v)
#define ofl_wr_be32(w, v) cur_wr_be32(w, v)
#define ofl_wr_be64(w, v) cur_wr_be64(w, v)

void ofl_wr_bytes(struct ofl_wr *w, const void *src, size_t n)
{
    uint8_t *q = ofl_wr_take(w, n);
    if (q != NULL)
        ofl_copy(q, src, n);
}

void ofl_wr_zero(struct ofl_wr *w, size_t n)
{
    uint8_t *q = ofl_wr_take(w, n);
    if (q != NULL)
        ofl_fill(q, 0, n);
}

/*
 * CRC32c, reflected polynomial 0x82F63B78 (RFC 3385). Table T[k][b] is the
 * CRC register after byte b followed by k zero bytes, so that a block of
 * OFL_CRC32C_SLICES bytes is folded with one lookup per byte and no
 * dependency between lookups (slicing-by-N). Verified against RFC 3720
 * appendix B.4 in tests/test_base.c, which also checks every table entry
 * against a bitwise CRC.
 */
static const uint32_t ofl_crc32c_table[OFL_CRC32C_SLICES][256] = {
    { /* T[0] */
        0x00000000u, 0xF26B8303u, 0xE13B70F7u, 0x1350F3F4u, 0xC79A971Fu, 0x35F1141Cu,
        0x26A1E7E8u, 0xD4CA64EBu, 0x8AD958CFu, 0x78B2DBCCu, 0x6BE22838u, 0x9989AB3Bu,
        0x4D43CFD0u, 0xBF284CD3u, 0xAC78BF27u, 0x5E133C24u, 0x105EC76Fu, 0xE235446Cu,
        0xF165B798u, 0x030E349Bu, 0xD7C45070u, 0x25AFD373u, 0x36FF2087u, 0xC494A384u,
        0x9A879FA0u, 0x68EC1CA3u, 0x7BBCEF57u, 0x89D76C54u, 0x5D1D08BFu, 0xAF768BBCu,
        0xBC267848u, 0x4E4DFB4Bu, 0x20BD8EDEu, 0xD2D60DDDu, 0xC186FE29u, 0x33ED7D2Au,
        0xE72719C1u, 0x154C9AC2u, 0x061C6936u, 0xF477EA35u, 0xAA64D611u, 0x580F5512u,
        0x4B5FA6E6u, 0xB93425E5u, 0x6DFE410Eu, 0x9F95C20Du, 0x8CC531F9u, 0x7EAEB2FAu,
        0x30E349B1u, 0xC288CAB2u, 0xD1D83946u, 0x23B3BA45u, 0xF779DEAEu, 0x05125DADu,
        0x1642AE59u, 0xE4292D5Au, 0xBA3A117Eu, 0x4851927Du, 0x5B016189u, 0xA96AE28Au,
        0x7DA08661u, 0x8FCB0562u, 0x9C9BF696u, 0x6EF07595u, 0x417B1DBCu, 0xB3109EBFu,
        0xA0406D4Bu, 0x522BEE48u, 0x86E18AA3u, 0x748A09A0u, 0x67DAFA54u, 0x95B17957u,
        0xCBA24573u, 0x39C9C670u, 0x2A993584u, 0xD8F2B687u, 0x0C38D26Cu, 0xFE53516Fu,
        0xED03A29Bu, 0x1F682198u, 0x5125DAD3u, 0xA34E59D0u, 0xB01EAA24u, 0x42752927u,
        0x96BF4DCCu, 0x64D4CECFu, 0x77843D3Bu, 0x85EFBE38u, 0xDBFC821Cu, 0x2997011Fu,
        0x3AC7F2EBu, 0xC8AC71E8u, 0x1C661503u, 0xEE0D9600u, 0xFD5D65F4u, 0x0F36E6F7u,
        0x61C69362u, 0x93AD1061u, 0x80FDE395u, 0x72966096u, 0xA65C047Du, 0x5437877Eu,
        0x4767748Au, 0xB50CF789u, 0xEB1FCBADu, 0x197448AEu, 0x0A24BB5Au, 0xF84F3859u,
        0x2C855CB2u, 0xDEEEDFB1u, 0xCDBE2C45u, 0x3FD5AF46u, 0x7198540Du, 0x83F3D70Eu,
        0x90A324FAu, 0x62C8A7F9u, 0xB602C312u, 0x44694011u, 0x5739B3E5u, 0xA55230E6u,
        0xFB410CC2u, 0x092A8FC1u, 0x1A7A7C35u, 0xE811FF36u, 0x3CDB9BDDu, 0xCEB018DEu,
        0xDDE0EB2Au, 0x2F8B6829u, 0x82F63B78u, 0x709DB87Bu, 0x63CD4B8Fu, 0x91A6C88Cu,
        0x456CAC67u, 0xB7072F64u, 0xA457DC90u, 0x563C5F93u, 0x082F63B7u, 0xFA44E0B4u,
        0xE9141340u, 0x1B7F9043u, 0xCFB5F4A8u, 0x3DDE77ABu, 0x2E8E845Fu, 0xDCE5075Cu,
        0x92A8FC17u, 0x60C37F14u, 0x73938CE0u, 0x81F80FE3u, 0x55326B08u, 0xA759E80Bu,
        0xB4091BFFu, 0x466298FCu, 0x1871A4D8u, 0xEA1A27DBu, 0xF94AD42Fu, 0x0B21572Cu,
        0xDFEB33C7u, 0x2D80B0C4u, 0x3ED04330u, 0xCCBBC033u, 0xA24BB5A6u, 0x502036A5u,
        0x4370C551u, 0xB11B4652u, 0x65D122B9u, 0x97BAA1BAu, 0x84EA524Eu, 0x7681D14Du,
        0x2892ED69u, 0xDAF96E6Au, 0xC9A99D9Eu, 0x3BC21E9Du, 0xEF087A76u, 0x1D63F975u,
        0x0E330A81u, 0xFC588982u, 0xB21572C9u, 0x407EF1CAu, 0x532E023Eu, 0xA145813Du,
        0x758FE5D6u, 0x87E466D5u, 0x94B49521u, 0x66DF1622u, 0x38CC2A06u, 0xCAA7A905u,
        0xD9F75AF1u, 0x2B9CD9F2u, 0xFF56BD19u, 0x0D3D3E1Au, 0x1E6DCDEEu, 0xEC064EEDu,
        0xC38D26C4u, 0x31E6A5C7u, 0x22B65633u, 0xD0DDD530u, 0x0417B1DBu, 0xF67C32D8u,
        0xE52CC12Cu, 0x1747422Fu, 0x49547E0Bu, 0xBB3FFD08u, 0xA86F0EFCu, 0x5A048DFFu,
        0x8ECEE914u, 0x7CA56A17u, 0x6FF599E3u, 0x9D9E1AE0u, 0xD3D3E1ABu, 0x21B862A8u,
        0x32E8915Cu, 0xC083125Fu, 0x144976B4u, 0xE622F5B7u, 0xF5720643u, 0x07198540u,
        0x590AB964u, 0xAB613A67u, 0xB831C993u, 0x4A5A4A90u, 0x9E902E7Bu, 0x6CFBAD78u,
        0x7FAB5E8Cu, 0x8DC0DD8Fu, 0xE330A81Au, 0x115B2B19u, 0x020BD8EDu, 0xF0605BEEu,
        0x24AA3F05u, 0xD6C1BC06u, 0xC5914FF2u, 0x37FACCF1u, 0x69E9F0D5u, 0x9B8273D6u,
        0x88D28022u, 0x7AB90321u, 0xAE7367CAu, 0x5C18E4C9u, 0x4F48173Du, 0xBD23943Eu,
        0xF36E6F75u, 0x0105EC76u, 0x12551F82u, 0xE03E9C81u, 0x34F4F86Au, 0xC69F7B69u,
        0xD5CF889Du, 0x27A40B9Eu, 0x79B737BAu, 0x8BDCB4B9u, 0x988C474Du, 0x6AE7C44Eu,
        0xBE2DA0A5u, 0x4C4623A6u, 0x5F16D052u, 0xAD7D5351u,
    },
#if OFL_CRC32C_SLICES >= 8
    { /* T[1] */
        0x00000000u, 0x13A29877u, 0x274530EEu, 0x34E7A899u, 0x4E8A61DCu, 0x5D28F9ABu,
        0x69CF5132u, 0x7A6DC945u, 0x9D14C3B8u, 0x8EB65BCFu, 0xBA51F356u, 0xA9F36B21u,
        0xD39EA264u, 0xC03C3A13u, 0xF4DB928Au, 0xE7790AFDu, 0x3FC5F181u, 0x2C6769F6u,
        0x1880C16Fu, 0x0B225918u, 0x714F905Du, 0x62ED082Au, 0x560AA0B3u, 0x45A838C4u,
        0xA2D13239u, 0xB173AA4Eu, 0x859402D7u, 0x96369AA0u, 0xEC5B53E5u, 0xFFF9CB92u,
        0xCB1E630Bu, 0xD8BCFB7Cu, 0x7F8BE302u, 0x6C297B75u, 0x58CED3ECu, 0x4B6C4B9Bu,
        0x310182DEu, 0x22A31AA9u, 0x1644B230u, 0x05E62A47u, 0xE29F20BAu, 0xF13DB8CDu,
        0xC5DA1054u, 0xD6788823u, 0xAC154166u, 0xBFB7D911u, 0x8B507188u, 0x98F2E9FFu,
        0x404E1283u, 0x53EC8AF4u, 0x670B226Du, 0x74A9BA1Au, 0x0EC4735Fu, 0x1D66EB28u,
        0x298143B1u, 0x3A23DBC6u, 0xDD5AD13Bu, 0xCEF8494Cu, 0xFA1FE1D5u, 0xE9BD79A2u,
        0x93D0B0E7u, 0x80722890u, 0xB4958009u, 0xA737187Eu, 0xFF17C604u, 0xECB55E73u,
        0xD852F6EAu, 0xCBF06E9Du, 0xB19DA7D8u, 0xA23F3FAFu, 0x96D89736u, 0x857A0F41u,
        0x620305BCu, 0x71A19DCBu, 0x45463552u, 0x56E4AD25u, 0x2C896460u, 0x3F2BFC17u,
        0x0BCC548Eu, 0x186ECCF9u, 0xC0D23785u, 0xD370AFF2u, 0xE797076Bu, 0xF4359F1Cu,
        0x8E585659u, 0x9DFACE2Eu, 0xA91D66B7u, 0xBABFFEC0u, 0x5DC6F43Du, 0x4E646C4Au,
        0x7A83C4D3u, 0x69215CA4u, 0x134C95E1u, 0x00EE0D96u, 0x3409A50Fu, 0x27AB3D78u,
        0x809C2506u, 0x933EBD71u, 0xA7D915E8u, 0xB47B8D9Fu, 0xCE1644DAu, 0xDDB4DCADu,
        0xE9537434u, 0xFAF1EC43u, 0x1D88E6BEu, 0x0E2A7EC9u, 0x3ACDD650u, 0x296F4E27u,
        0x53028762u, 0x40A01F15u, 0x7447B78Cu, 0x67E52FFBu, 0xBF59D487u, 0xACFB4CF0u,
        0x981CE469u, 0x8BBE7C1Eu, 0xF1D3B55Bu, 0xE2712D2Cu, 0xD69685B5u, 0xC5341DC2u,
        0x224D173Fu, 0x31EF8F48u, 0x050827D1u, 0x16AABFA6u, 0x6CC776E3u, 0x7F65EE94u,
        0x4B82460Du, 0x5820DE7Au, 0xFBC3FAF9u, 0xE861628Eu, 0xDC86CA17u, 0xCF245260u,
        0xB5499B25u, 0xA6EB0352u, 0x920CABCBu, 0x81AE33BCu, 0x66D73941u, 0x7575A136u,
        0x419209AFu, 0x523091D8u, 0x285D589Du, 0x3BFFC0EAu, 0x0F186873u, 0x1CBAF004u,
        0xC4060B78u, 0xD7A4930Fu, 0xE3433B96u, 0xF0E1A3E1u, 0x8A8C6AA4u, 0x992EF2D3u,
        0xADC95A4Au, 0xBE6BC23Du, 0x5912C8C0u, 0x4AB050B7u, 0x7E57F82Eu, 0x6DF56059u,
        0x1798A91Cu, 0x043A316Bu, 0x30DD99F2u, 0x237F0185u, 0x844819FBu, 0x97EA818Cu,
        0xA30D2915u, 0xB0AFB162u, 0xCAC27827u, 0xD960E050u, 0xED8748C9u, 0xFE25D0BEu,
        0x195CDA43u, 0x0AFE4234u, 0x3E19EAADu, 0x2DBB72DAu, 0x57D6BB9Fu, 0x447423E8u,
        0x70938B71u, 0x63311306u, 0xBB8DE87Au, 0xA82F700Du, 0x9CC8D894u, 0x8F6A40E3u,
        0xF50789A6u, 0xE6A511D1u, 0xD242B948u, 0xC1E0213Fu, 0x26992BC2u, 0x353BB3B5u,
        0x01DC1B2Cu, 0x127E835Bu, 0x68134A1Eu, 0x7BB1D269u, 0x4F567AF0u, 0x5CF4E287u,
        0x04D43CFDu, 0x1776A48Au, 0x23910C13u, 0x30339464u, 0x4A5E5D21u, 0x59FCC556u,
        0x6D1B6DCFu, 0x7EB9F5B8u, 0x99C0FF45u, 0x8A626732u, 0xBE85CFABu, 0xAD2757DCu,
        0xD74A9E99u, 0xC4E806EEu, 0xF00FAE77u, 0xE3AD3600u, 0x3B11CD7Cu, 0x28B3550Bu,
        0x1C54FD92u, 0x0FF665E5u, 0x759BACA0u, 0x663934D7u, 0x52DE9C4Eu, 0x417C0439u,
        0xA6050EC4u, 0xB5A796B3u, 0x81403E2Au, 0x92E2A65Du, 0xE88F6F18u, 0xFB2DF76Fu,
        0xCFCA5FF6u, 0xDC68C781u, 0x7B5FDFFFu, 0x68FD4788u, 0x5C1AEF11u, 0x4FB87766u,
        0x35D5BE23u, 0x26772654u, 0x12908ECDu, 0x013216BAu, 0xE64B1C47u, 0xF5E98430u,
        0xC10E2CA9u, 0xD2ACB4DEu, 0xA8C17D9Bu, 0xBB63E5ECu, 0x8F844D75u, 0x9C26D502u,
        0x449A2E7Eu, 0x5738B609u, 0x63DF1E90u, 0x707D86E7u, 0x0A104FA2u, 0x19B2D7D5u,
        0x2D557F4Cu, 0x3EF7E73Bu, 0xD98EEDC6u, 0xCA2C75B1u, 0xFECBDD28u, 0xED69455Fu,
        0x97048C1Au, 0x84A6146Du, 0xB041BCF4u, 0xA3E32483u,
    },
    { /* T[2] */
        0x00000000u, 0xA541927Eu, 0x4F6F520Du, 0xEA2EC073u, 0x9EDEA41Au, 0x3B9F3664u,
        0xD1B1F617u, 0x74F06469u, 0x38513EC5u, 0x9D10ACBBu, 0x773E6CC8u, 0xD27FFEB6u,
        0xA68F9ADFu, 0x03CE08A1u, 0xE9E0C8D2u, 0x4CA15AACu, 0x70A27D8Au, 0xD5E3EFF4u,
        0x3FCD2F87u, 0x9A8CBDF9u, 0xEE7CD990u, 0x4B3D4BEEu, 0xA1138B9Du, 0x045219E3u,
        0x48F3434Fu, 0xEDB2D131u, 0x079C1142u, 0xA2DD833Cu, 0xD62DE755u, 0x736C752Bu,
        0x9942B558u, 0x3C032726u, 0xE144FB14u, 0x4405696Au, 0xAE2BA919u, 0x0B6A3B67u,
        0x7F9A5F0Eu, 0xDADBCD70u, 0x30F50D03u, 0x95B49F7Du, 0xD915C5D1u, 0x7C5457AFu,
        0x967A97DCu, 0x333B05A2u, 0x47CB61CBu, 0xE28AF3B5u, 0x08A433C6u, 0xADE5A1B8u,
        0x91E6869Eu, 0x34A714E0u, 0xDE89D493u, 0x7BC846EDu, 0x0F382284u, 0xAA79B0FAu,
        0x40577089u, 0xE516E2F7u, 0xA9B7B85Bu, 0x0CF62A25u, 0xE6D8EA56u, 0x43997828u,
        0x37691C41u, 0x92288E3Fu, 0x78064E4Cu, 0xDD47DC32u, 0xC76580D9u, 0x622412A7u,
        0x880AD2D4u, 0x2D4B40AAu, 0x59BB24C3u, 0xFCFAB6BDu, 0x16D476CEu, 0xB395E4B0u,
        0xFF34BE1Cu, 0x5A752C62u, 0xB05BEC11u, 0x151A7E6Fu, 0x61EA1A06u, 0xC4AB8878u,
        0x2E85480Bu, 0x8BC4DA75u, 0xB7C7FD53u, 0x12866F2Du, 0xF8A8AF5Eu, 0x5DE93D20u,
        0x29195949u, 0x8C58CB37u, 0x66760B44u, 0xC337993Au, 0x8F96C396u, 0x2AD751E8u,
        0xC0F9919Bu, 0x65B803E5u, 0x1148678Cu, 0xB409F5F2u, 0x5E273581u, 0xFB66A7FFu,
        0x26217BCDu, 0x8360E9B3u, 0x694E29C0u, 0xCC0FBBBEu, 0xB8FFDFD7u, 0x1DBE4DA9u,
        0xF7908DDAu, 0x52D11FA4u, 0x1E704508u, 0xBB31D776u, 0x511F1705u, 0xF45E857Bu,
        0x80AEE112u, 0x25EF736Cu, 0xCFC1B31Fu, 0x6A802161u, 0x56830647u, 0xF3C29439u,
        0x19EC544Au, 0xBCADC634u, 0xC85DA25Du, 0x6D1C3023u, 0x8732F050u, 0x2273622Eu,
        0x6ED23882u, 0xCB93AAFCu, 0x21BD6A8Fu, 0x84FCF8F1u, 0xF00C9C98u, 0x554D0EE6u,
        0xBF63CE95u, 0x1A225CEBu, 0x8B277743u, 0x2E66E53Du, 0xC448254Eu, 0x6109B730u,
        0x15F9D359u, 0xB0B84127u, 0x5A968154u, 0xFFD7132Au, 0xB3764986u, 0x1637DBF8u,
        0xFC191B8Bu, 0x595889F5u, 0x2DA8ED9Cu, 0x88E97FE2u, 0x62C7BF91u, 0xC7862DEFu,
        0xFB850AC9u, 0x5EC498B7u, 0xB4EA58C4u, 0x11ABCABAu, 0x655BAED3u, 0xC01A3CADu,
        0x2A34FCDEu, 0x8F756EA0u, 0xC3D4340Cu, 0x6695A672u, 0x8CBB6601u, 0x29FAF47Fu,
        0x5D0A9016u, 0xF84B0268u, 0x1265C21Bu, 0xB7245065u, 0x6A638C57u, 0xCF221E29u,
        0x250CDE5Au, 0x804D4C24u, 0xF4BD284Du, 0x51FCBA33u, 0xBBD27A40u, 0x1E93E83Eu,
        0x5232B292u, 0xF77320ECu, 0x1D5DE09Fu, 0xB81C72E1u, 0xCCEC1688u, 0x69AD84F6u,
        0x83834485u, 0x26C2D6FBu, 0x1AC1F1DDu, 0xBF8063A3u, 0x55AEA3D0u, 0xF0EF31AEu,
        0x841F55C7u, 0x215EC7B9u, 0xCB7007CAu, 0x6E3195B4u, 0x2290CF18u, 0x87D15D66u,
        0x6DFF9D15u, 0xC8BE0F6Bu, 0xBC4E6B02u, 0x190FF97Cu, 0xF321390Fu, 0x5660AB71u,
        0x4C42F79Au, 0xE90365E4u, 0x032DA597u, 0xA66C37E9u, 0xD29C5380u, 0x77DDC1FEu,
        0x9DF3018Du, 0x38B293F3u, 0x7413C95Fu, 0xD1525B21u, 0x3B7C9B52u, 0x9E3D092Cu,
        0xEACD6D45u, 0x4F8CFF3Bu, 0xA5A23F48u, 0x00E3AD36u, 0x3CE08A10u, 0x99A1186Eu,
        0x738FD81Du, 0xD6CE4A63u, 0xA23E2E0Au, 0x077FBC74u, 0xED517C07u, 0x4810EE79u,
        0x04B1B4D5u, 0xA1F026ABu, 0x4BDEE6D8u, 0xEE9F74A6u, 0x9A6F10CFu, 0x3F2E82B1u,
        0xD50042C2u, 0x7041D0BCu, 0xAD060C8Eu, 0x08479EF0u, 0xE2695E83u, 0x4728CCFDu,
        0x33D8A894u, 0x96993AEAu, 0x7CB7FA99u, 0xD9F668E7u, 0x9557324Bu, 0x3016A035u,
        0xDA386046u, 0x7F79F238u, 0x0B899651u, 0xAEC8042Fu, 0x44E6C45Cu, 0xE1A75622u,
        0xDDA47104u, 0x78E5E37Au, 0x92CB2309u, 0x378AB177u, 0x437AD51Eu, 0xE63B4760u,
        0x0C158713u, 0xA954156Du, 0xE5F54FC1u, 0x40B4DDBFu, 0xAA9A1DCCu, 0x0FDB8FB2u,
        0x7B2BEBDBu, 0xDE6A79A5u, 0x3444B9D6u, 0x91052BA8u,
    },
    { /* T[3] */
        0x00000000u, 0xDD45AAB8u, 0xBF672381u, 0x62228939u, 0x7B2231F3u, 0xA6679B4Bu,
        0xC4451272u, 0x1900B8CAu, 0xF64463E6u, 0x2B01C95Eu, 0x49234067u, 0x9466EADFu,
        0x8D665215u, 0x5023F8ADu, 0x32017194u, 0xEF44DB2Cu, 0xE964B13Du, 0x34211B85u,
        0x560392BCu, 0x8B463804u, 0x924680CEu, 0x4F032A76u, 0x2D21A34Fu, 0xF06409F7u,
        0x1F20D2DBu, 0xC2657863u, 0xA047F15Au, 0x7D025BE2u, 0x6402E328u, 0xB9474990u,
        0xDB65C0A9u, 0x06206A11u, 0xD725148Bu, 0x0A60BE33u, 0x6842370Au, 0xB5079DB2u,
        0xAC072578u, 0x71428FC0u, 0x136006F9u, 0xCE25AC41u, 0x2161776Du, 0xFC24DDD5u,
        0x9E0654ECu, 0x4343FE54u, 0x5A43469Eu, 0x8706EC26u, 0xE524651Fu, 0x3861CFA7u,
        0x3E41A5B6u, 0xE3040F0Eu, 0x81268637u, 0x5C632C8Fu, 0x45639445u, 0x98263EFDu,
        0xFA04B7C4u, 0x27411D7Cu, 0xC805C650u, 0x15406CE8u, 0x7762E5D1u, 0xAA274F69u,
        0xB327F7A3u, 0x6E625D1Bu, 0x0C40D422u, 0xD1057E9Au, 0xABA65FE7u, 0x76E3F55Fu,
        0x14C17C66u, 0xC984D6DEu, 0xD0846E14u, 0x0DC1C4ACu, 0x6FE34D95u, 0xB2A6E72Du,
        0x5DE23C01u, 0x80A796B9u, 0xE2851F80u, 0x3FC0B538u, 0x26C00DF2u, 0xFB85A74Au,
        0x99A72E73u, 0x44E284CBu, 0x42C2EEDAu, 0x9F874462u, 0xFDA5CD5Bu, 0x20E067E3u,
        0x39E0DF29u, 0xE4A57591u, 0x8687FCA8u, 0x5BC25610u, 0xB4868D3Cu, 0x69C32784u,
        0x0BE1AEBDu, 0xD6A40405u, 0xCFA4BCCFu, 0x12E11677u, 0x70C39F4Eu, 0xAD8635F6u,
        0x7C834B6Cu, 0xA1C6E1D4u, 0xC3E468EDu, 0x1EA1C255u, 0x07A17A9Fu, 0xDAE4D027u,
        0xB8C6591Eu, 0x6583F3A6u, 0x8AC7288Au, 0x57828232u, 0x35A00B0Bu, 0xE8E5A1B3u,
        0xF1E51979u, 0x2CA0B3C1u, 0x4E823AF8u, 0x93C79040u, 0x95E7FA51u, 0x48A250E9u,
        0x2A80D9D0u, 0xF7C57368u, 0xEEC5CBA2u, 0x3380611Au, 0x51A2E823u, 0x8CE7429Bu,
        0x63A399B7u, 0xBEE6330Fu, 0xDCC4BA36u, 0x0181108Eu, 0x1881A844u, 0xC5C402FCu,
        0xA7E68BC5u, 0x7AA3217Du, 0x52A0C93Fu, 0x8FE56387u, 0xEDC7EABEu, 0x30824006u,
        0x2982F8CCu, 0xF4C75274u, 0x96E5DB4Du, 0x4BA071F5u, 0xA4E4AAD9u, 0x79A10061u,
        0x1B838958u, 0xC6C623E0u, 0xDFC69B2Au, 0x02833192u, 0x60A1B8ABu, 0xBDE41213u,
        0xBBC47802u, 0x6681D2BAu, 0x04A35B83u, 0xD9E6F13Bu, 0xC0E649F1u, 0x1DA3E349u,
        0x7F816A70u, 0xA2C4C0C8u, 0x4D801BE4u, 0x90C5B15Cu, 0xF2E73865u, 0x2FA292DDu,
        0x36A22A17u, 0xEBE780AFu, 0x89C50996u, 0x5480A32Eu, 0x8585DDB4u, 0x58C0770Cu,
        0x3AE2FE35u, 0xE7A7548Du, 0xFEA7EC47u, 0x23E246FFu, 0x41C0CFC6u, 0x9C85657Eu,
        0x73C1BE52u, 0xAE8414EAu, 0xCCA69DD3u, 0x11E3376Bu, 0x08E38FA1u, 0xD5A62519u,
        0xB784AC20u, 0x6AC10698u, 0x6CE16C89u, 0xB1A4C631u, 0xD3864F08u, 0x0EC3E5B0u,
        0x17C35D7Au, 0xCA86F7C2u, 0xA8A47EFBu, 0x75E1D443u, 0x9AA50F6Fu, 0x47E0A5D7u,
        0x25C22CEEu, 0xF8878656u, 0xE1873E9Cu, 0x3CC29424u, 0x5EE01D1Du, 0x83A5B7A5u,
        0xF90696D8u, 0x24433C60u, 0x4661B559u, 0x9B241FE1u, 0x8224A72Bu, 0x5F610D93u,
        0x3D4384AAu, 0xE0062E12u, 0x0F42F53Eu, 0xD2075F86u, 0xB025D6BFu, 0x6D607C07u,
        0x7460C4CDu, 0xA9256E75u, 0xCB07E74Cu, 0x16424DF4u, 0x106227E5u, 0xCD278D5Du,
        0xAF050464u, 0x7240AEDCu, 0x6B401616u, 0xB605BCAEu, 0xD4273597u, 0x09629F2Fu,
        0xE6264403u, 0x3B63EEBBu, 0x59416782u, 0x8404CD3Au, 0x9D0475F0u, 0x4041DF48u,
        0x22635671u, 0xFF26FCC9u, 0x2E238253u, 0xF36628EBu, 0x9144A1D2u, 0x4C010B6Au,
        0x5501B3A0u, 0x88441918u, 0xEA669021u, 0x37233A99u, 0xD867E1B5u, 0x05224B0Du,
        0x6700C234u, 0xBA45688Cu, 0xA345D046u, 0x7E007AFEu, 0x1C22F3C7u, 0xC167597Fu,
        0xC747336Eu, 0x1A0299D6u, 0x782010EFu, 0xA565BA57u, 0xBC65029Du, 0x6120A825u,
        0x0302211Cu, 0xDE478BA4u, 0x31035088u, 0xEC46FA30u, 0x8E647309u, 0x5321D9B1u,
        0x4A21617Bu, 0x9764CBC3u, 0xF54642FAu, 0x2803E842u,
    },
    { /* T[4] */
        0x00000000u, 0x38116FACu, 0x7022DF58u, 0x4833B0F4u, 0xE045BEB0u, 0xD854D11Cu,
        0x906761E8u, 0xA8760E44u, 0xC5670B91u, 0xFD76643Du, 0xB545D4C9u, 0x8D54BB65u,
        0x2522B521u, 0x1D33DA8Du, 0x55006A79u, 0x6D1105D5u, 0x8F2261D3u, 0xB7330E7Fu,
        0xFF00BE8Bu, 0xC711D127u, 0x6F67DF63u, 0x5776B0CFu, 0x1F45003Bu, 0x27546F97u,
        0x4A456A42u, 0x725405EEu, 0x3A67B51Au, 0x0276DAB6u, 0xAA00D4F2u, 0x9211BB5Eu,
        0xDA220BAAu, 0xE2336406u, 0x1BA8B557u, 0x23B9DAFBu, 0x6B8A6A0Fu, 0x539B05A3u,
        0xFBED0BE7u, 0xC3FC644Bu, 0x8BCFD4BFu, 0xB3DEBB13u, 0xDECFBEC6u, 0xE6DED16Au,
        0xAEED619Eu, 0x96FC0E32u, 0x3E8A0076u, 0x069B6FDAu, 0x4EA8DF2Eu, 0x76B9B082u,
        0x948AD484u, 0xAC9BBB28u, 0xE4A80BDCu, 0xDCB96470u, 0x74CF6A34u, 0x4CDE0598u,
        0x04EDB56Cu, 0x3CFCDAC0u, 0x51EDDF15u, 0x69FCB0B9u, 0x21CF004Du, 0x19DE6FE1u,
        0xB1A861A5u, 0x89B90E09u, 0xC18ABEFDu, 0xF99BD151u, 0x37516AAEu, 0x0F400502u,
        0x4773B5F6u, 0x7F62DA5Au, 0xD714D41Eu, 0xEF05BBB2u, 0xA7360B46u, 0x9F2764EAu,
        0xF236613Fu, 0xCA270E93u, 0x8214BE67u, 0xBA05D1CBu, 0x1273DF8Fu, 0x2A62B023u,
        0x625100D7u, 0x5A406F7Bu, 0xB8730B7Du, 0x806264D1u, 0xC851D425u, 0xF040BB89u,
        0x5836B5CDu, 0x6027DA61u, 0x28146A95u, 0x10050539u, 0x7D1400ECu, 0x45056F40u,
        0x0D36DFB4u, 0x3527B018u, 0x9D51BE5Cu, 0xA540D1F0u, 0xED736104u, 0xD5620EA8u,
        0x2CF9DFF9u, 0x14E8B055u, 0x5CDB00A1u, 0x64CA6F0Du, 0xCCBC6149u, 0xF4AD0EE5u,
        0xBC9EBE11u, 0x848FD1BDu, 0xE99ED468u, 0xD18FBBC4u, 0x99BC0B30u, 0xA1AD649Cu,
        0x09DB6AD8u, 0x31CA0574u, 0x79F9B580u, 0x41E8DA2Cu, 0xA3DBBE2Au, 0x9BCAD186u,
        0xD3F96172u, 0xEBE80EDEu, 0x439E009Au, 0x7B8F6F36u, 0x33BCDFC2u, 0x0BADB06Eu,
        0x66BCB5BBu, 0x5EADDA17u, 0x169E6AE3u, 0x2E8F054Fu, 0x86F90B0Bu, 0xBEE864A7u,
        0xF6DBD453u, 0xCECABBFFu, 0x6EA2D55Cu, 0x56B3BAF0u, 0x1E800A04u, 0x269165A8u,
        0x8EE76BECu, 0xB6F60440u, 0xFEC5B4B4u, 0xC6D4DB18u, 0xABC5DECDu, 0x93D4B161u,
        0xDBE70195u, 0xE3F66E39u, 0x4B80607Du, 0x73910FD1u, 0x3BA2BF25u, 0x03B3D089u,
        0xE180B48Fu, 0xD991DB23u, 0x91A26BD7u, 0xA9B3047Bu, 0x01C50A3Fu, 0x39D46593u,
        0x71E7D567u, 0x49F6BACBu, 0x24E7BF1Eu, 0x1CF6D0B2u, 0x54C56046u, 0x6CD40FEAu,
        0xC4A201AEu, 0xFCB36E02u, 0xB480DEF6u, 0x8C91B15Au, 0x750A600Bu, 0x4D1B0FA7u,
        0x0528BF53u, 0x3D39D0FFu, 0x954FDEBBu, 0xAD5EB117u, 0xE56D01E3u, 0xDD7C6E4Fu,
        0xB06D6B9Au, 0x887C0436u, 0xC04FB4C2u, 0xF85EDB6Eu, 0x5028D52Au, 0x6839BA86u,
        0x200A0A72u, 0x181B65DEu, 0xFA2801D8u, 0xC2396E74u, 0x8A0ADE80u, 0xB21BB12Cu,
        0x1A6DBF68u, 0x227CD0C4u, 0x6A4F6030u, 0x525E0F9Cu, 0x3F4F0A49u, 0x075E65E5u,
        0x4F6DD511u, 0x777CBABDu, 0xDF0AB4F9u, 0xE71BDB55u, 0xAF286BA1u, 0x9739040Du,
        0x59F3BFF2u, 0x61E2D05Eu, 0x29D160AAu, 0x11C00F06u, 0xB9B60142u, 0x81A76EEEu,
        0xC994DE1Au, 0xF185B1B6u, 0x9C94B463u, 0xA485DBCFu, 0xECB66B3Bu, 0xD4A70497u,
        0x7CD10AD3u, 0x44C0657Fu, 0x0CF3D58Bu, 0x34E2BA27u, 0xD6D1DE21u, 0xEEC0B18Du,
        0xA6F30179u, 0x9EE26ED5u, 0x36946091u, 0x0E850F3Du, 0x46B6BFC9u, 0x7EA7D065u,
        0x13B6D5B0u, 0x2BA7BA1Cu, 0x63940AE8u, 0x5B856544u, 0xF3F36B00u, 0xCBE204ACu,
        0x83D1B458u, 0xBBC0DBF4u, 0x425B0AA5u, 0x7A4A6509u, 0x3279D5FDu, 0x0A68BA51u,
        0xA21EB415u, 0x9A0FDBB9u, 0xD23C6B4Du, 0xEA2D04E1u, 0x873C0134u, 0xBF2D6E98u,
        0xF71EDE6Cu, 0xCF0FB1C0u, 0x6779BF84u, 0x5F68D028u, 0x175B60DCu, 0x2F4A0F70u,
        0xCD796B76u, 0xF56804DAu, 0xBD5BB42Eu, 0x854ADB82u, 0x2D3CD5C6u, 0x152DBA6Au,
        0x5D1E0A9Eu, 0x650F6532u, 0x081E60E7u, 0x300F0F4Bu, 0x783CBFBFu, 0x402DD013u,
        0xE85BDE57u, 0xD04AB1FBu, 0x9879010Fu, 0xA0686EA3u,
    },
    { /* T[5] */
        0x00000000u, 0xEF306B19u, 0xDB8CA0C3u, 0x34BCCBDAu, 0xB2F53777u, 0x5DC55C6Eu,
        0x697997B4u, 0x8649FCADu, 0x6006181Fu, 0x8F367306u, 0xBB8AB8DCu, 0x54BAD3C5u,
        0xD2F32F68u, 0x3DC34471u, 0x097F8FABu, 0xE64FE4B2u, 0xC00C303Eu, 0x2F3C5B27u,
        0x1B8090FDu, 0xF4B0FBE4u, 0x72F90749u, 0x9DC96C50u, 0xA975A78Au, 0x4645CC93u,
        0xA00A2821u, 0x4F3A4338u, 0x7B8688E2u, 0x94B6E3FBu, 0x12FF1F56u, 0xFDCF744Fu,
        0xC973BF95u, 0x2643D48Cu, 0x85F4168Du, 0x6AC47D94u, 0x5E78B64Eu, 0xB148DD57u,
        0x370121FAu, 0xD8314AE3u, 0xEC8D8139u, 0x03BDEA20u, 0xE5F20E92u, 0x0AC2658Bu,
        0x3E7EAE51u, 0xD14EC548u, 0x570739E5u, 0xB83752FCu, 0x8C8B9926u, 0x63BBF23Fu,
        0x45F826B3u, 0xAAC84DAAu, 0x9E748670u, 0x7144ED69u, 0xF70D11C4u, 0x183D7ADDu,
        0x2C81B107u, 0xC3B1DA1Eu, 0x25FE3EACu, 0xCACE55B5u, 0xFE729E6Fu, 0x1142F576u,
        0x970B09DBu, 0x783B62C2u, 0x4C87A918u, 0xA3B7C201u, 0x0E045BEBu, 0xE13430F2u,
        0xD588FB28u, 0x3AB89031u, 0xBCF16C9Cu, 0x53C10785u, 0x677DCC5Fu, 0x884DA746u,
        0x6E0243F4u, 0x813228EDu, 0xB58EE337u, 0x5ABE882Eu, 0xDCF77483u, 0x33C71F9Au,
        0x077BD440u, 0xE84BBF59u, 0xCE086BD5u, 0x213800CCu, 0x1584CB16u, 0xFAB4A00Fu,
        0x7CFD5CA2u, 0x93CD37BBu, 0xA771FC61u, 0x48419778u, 0xAE0E73CAu, 0x413E18D3u,
        0x7582D309u, 0x9AB2B810u, 0x1CFB44BDu, 0xF3CB2FA4u, 0xC777E47Eu, 0x28478F67u,
        0x8BF04D66u, 0x64C0267Fu, 0x507CEDA5u, 0xBF4C86BCu, 0x39057A11u, 0xD6351108u,
        0xE289DAD2u, 0x0DB9B1CBu, 0xEBF65579u, 0x04C63E60u, 0x307AF5BAu, 0xDF4A9EA3u,
        0x5903620Eu, 0xB6330917u, 0x828FC2CDu, 0x6DBFA9D4u, 0x4BFC7D58u, 0xA4CC1641u,
        0x9070DD9Bu, 0x7F40B682u, 0xF9094A2Fu, 0x16392136u, 0x2285EAECu, 0xCDB581F5u,
        0x2BFA6547u, 0xC4CA0E5Eu, 0xF076C584u, 0x1F46AE9Du, 0x990F5230u, 0x763F3929u,
        0x4283F2F3u, 0xADB399EAu, 0x1C08B7D6u, 0xF338DCCFu, 0xC7841715u, 0x28B47C0Cu,
        0xAEFD80A1u, 0x41CDEBB8u, 0x75712062u, 0x9A414B7Bu, 0x7C0EAFC9u, 0x933EC4D0u,
        0xA7820F0Au, 0x48B26413u, 0xCEFB98BEu, 0x21CBF3A7u, 0x1577387Du, 0xFA475364u,
        0xDC0487E8u, 0x3334ECF1u, 0x0788272Bu, 0xE8B84C32u, 0x6EF1B09Fu, 0x81C1DB86u,
        0xB57D105Cu, 0x5A4D7B45u, 0xBC029FF7u, 0x5332F4EEu, 0x678E3F34u, 0x88BE542Du,
        0x0EF7A880u, 0xE1C7C399u, 0xD57B0843u, 0x3A4B635Au, 0x99FCA15Bu, 0x76CCCA42u,
        0x42700198u, 0xAD406A81u, 0x2B09962Cu, 0xC439FD35u, 0xF08536EFu, 0x1FB55DF6u,
        0xF9FAB944u, 0x16CAD25Du, 0x22761987u, 0xCD46729Eu, 0x4B0F8E33u, 0xA43FE52Au,
        0x90832EF0u, 0x7FB345E9u, 0x59F09165u, 0xB6C0FA7Cu, 0x827C31A6u, 0x6D4C5ABFu,
        0xEB05A612u, 0x0435CD0Bu, 0x308906D1u, 0xDFB96DC8u, 0x39F6897Au, 0xD6C6E263u,
        0xE27A29B9u, 0x0D4A42A0u, 0x8B03BE0Du, 0x6433D514u, 0x508F1ECEu, 0xBFBF75D7u,
        0x120CEC3Du, 0xFD3C8724u, 0xC9804CFEu, 0x26B027E7u, 0xA0F9DB4Au, 0x4FC9B053u,
        0x7B757B89u, 0x94451090u, 0x720AF422u, 0x9D3A9F3Bu, 0xA98654E1u, 0x46B63FF8u,
        0xC0FFC355u, 0x2FCFA84Cu, 0x1B736396u, 0xF443088Fu, 0xD200DC03u, 0x3D30B71Au,
        0x098C7CC0u, 0xE6BC17D9u, 0x60F5EB74u, 0x8FC5806Du, 0xBB794BB7u, 0x544920AEu,
        0xB206C41Cu, 0x5D36AF05u, 0x698A64DFu, 0x86BA0FC6u, 0x00F3F36Bu, 0xEFC39872u,
        0xDB7F53A8u, 0x344F38B1u, 0x97F8FAB0u, 0x78C891A9u, 0x4C745A73u, 0xA344316Au,
        0x250DCDC7u, 0xCA3DA6DEu, 0xFE816D04u, 0x11B1061Du, 0xF7FEE2AFu, 0x18CE89B6u,
        0x2C72426Cu, 0xC3422975u, 0x450BD5D8u, 0xAA3BBEC1u, 0x9E87751Bu, 0x71B71E02u,
        0x57F4CA8Eu, 0xB8C4A197u, 0x8C786A4Du, 0x63480154u, 0xE501FDF9u, 0x0A3196E0u,
        0x3E8D5D3Au, 0xD1BD3623u, 0x37F2D291u, 0xD8C2B988u, 0xEC7E7252u, 0x034E194Bu,
        0x8507E5E6u, 0x6A378EFFu, 0x5E8B4525u, 0xB1BB2E3Cu,
    },
    { /* T[6] */
        0x00000000u, 0x68032CC8u, 0xD0065990u, 0xB8057558u, 0xA5E0C5D1u, 0xCDE3E919u,
        0x75E69C41u, 0x1DE5B089u, 0x4E2DFD53u, 0x262ED19Bu, 0x9E2BA4C3u, 0xF628880Bu,
        0xEBCD3882u, 0x83CE144Au, 0x3BCB6112u, 0x53C84DDAu, 0x9C5BFAA6u, 0xF458D66Eu,
        0x4C5DA336u, 0x245E8FFEu, 0x39BB3F77u, 0x51B813BFu, 0xE9BD66E7u, 0x81BE4A2Fu,
        0xD27607F5u, 0xBA752B3Du, 0x02705E65u, 0x6A7372ADu, 0x7796C224u, 0x1F95EEECu,
        0xA7909BB4u, 0xCF93B77Cu, 0x3D5B83BDu, 0x5558AF75u, 0xED5DDA2Du, 0x855EF6E5u,
        0x98BB466Cu, 0xF0B86AA4u, 0x48BD1FFCu, 0x20BE3334u, 0x73767EEEu, 0x1B755226u,
        0xA370277Eu, 0xCB730BB6u, 0xD696BB3Fu, 0xBE9597F7u, 0x0690E2AFu, 0x6E93CE67u,
        0xA100791Bu, 0xC90355D3u, 0x7106208Bu, 0x19050C43u, 0x04E0BCCAu, 0x6CE39002u,
        0xD4E6E55Au, 0xBCE5C992u, 0xEF2D8448u, 0x872EA880u, 0x3F2BDDD8u, 0x5728F110u,
        0x4ACD4199u, 0x22CE6D51u, 0x9ACB1809u, 0xF2C834C1u, 0x7AB7077Au, 0x12B42BB2u,
        0xAAB15EEAu, 0xC2B27222u, 0xDF57C2ABu, 0xB754EE63u, 0x0F519B3Bu, 0x6752B7F3u,
        0x349AFA29u, 0x5C99D6E1u, 0xE49CA3B9u, 0x8C9F8F71u, 0x917A3FF8u, 0xF9791330u,
        0x417C6668u, 0x297F4AA0u, 0xE6ECFDDCu, 0x8EEFD114u, 0x36EAA44Cu, 0x5EE98884u,
        0x430C380Du, 0x2B0F14C5u, 0x930A619Du, 0xFB094D55u, 0xA8C1008Fu, 0xC0C22C47u,
        0x78C7591Fu, 0x10C475D7u, 0x0D21C55Eu, 0x6522E996u, 0xDD279CCEu, 0xB524B006u,
        0x47EC84C7u, 0x2FEFA80Fu, 0x97EADD57u, 0xFFE9F19Fu, 0xE20C4116u, 0x8A0F6DDEu,
        0x320A1886u, 0x5A09344Eu, 0x09C17994u, 0x61C2555Cu, 0xD9C72004u, 0xB1C40CCCu,
        0xAC21BC45u, 0xC422908Du, 0x7C27E5D5u, 0x1424C91Du, 0xDBB77E61u, 0xB3B452A9u,
        0x0BB127F1u, 0x63B20B39u, 0x7E57BBB0u, 0x16549778u, 0xAE51E220u, 0xC652CEE8u,
        0x959A8332u, 0xFD99AFFAu, 0x459CDAA2u, 0x2D9FF66Au, 0x307A46E3u, 0x58796A2Bu,
        0xE07C1F73u, 0x887F33BBu, 0xF56E0EF4u, 0x9D6D223Cu, 0x25685764u, 0x4D6B7BACu,
        0x508ECB25u, 0x388DE7EDu, 0x808892B5u, 0xE88BBE7Du, 0xBB43F3A7u, 0xD340DF6Fu,
        0x6B45AA37u, 0x034686FFu, 0x1EA33676u, 0x76A01ABEu, 0xCEA56FE6u, 0xA6A6432Eu,
        0x6935F452u, 0x0136D89Au, 0xB933ADC2u, 0xD130810Au, 0xCCD53183u, 0xA4D61D4Bu,
        0x1CD36813u, 0x74D044DBu, 0x27180901u, 0x4F1B25C9u, 0xF71E5091u, 0x9F1D7C59u,
        0x82F8CCD0u, 0xEAFBE018u, 0x52FE9540u, 0x3AFDB988u, 0xC8358D49u, 0xA036A181u,
        0x1833D4D9u, 0x7030F811u, 0x6DD54898u, 0x05D66450u, 0xBDD31108u, 0xD5D03DC0u,
        0x8618701Au, 0xEE1B5CD2u, 0x561E298Au, 0x3E1D0542u, 0x23F8B5CBu, 0x4BFB9903u,
        0xF3FEEC5Bu, 0x9BFDC093u, 0x546E77EFu, 0x3C6D5B27u, 0x84682E7Fu, 0xEC6B02B7u,
        0xF18EB23Eu, 0x998D9EF6u, 0x2188EBAEu, 0x498BC766u, 0x1A438ABCu, 0x7240A674u,
        0xCA45D32Cu, 0xA246FFE4u, 0xBFA34F6Du, 0xD7A063A5u, 0x6FA516FDu, 0x07A63A35u,
        0x8FD9098Eu, 0xE7DA2546u, 0x5FDF501Eu, 0x37DC7CD6u, 0x2A39CC5Fu, 0x423AE097u,
        0xFA3F95CFu, 0x923CB907u, 0xC1F4F4DDu, 0xA9F7D815u, 0x11F2AD4Du, 0x79F18185u,
        0x6414310Cu, 0x0C171DC4u, 0xB412689Cu, 0xDC114454u, 0x1382F328u, 0x7B81DFE0u,
        0xC384AAB8u, 0xAB878670u, 0xB66236F9u, 0xDE611A31u, 0x66646F69u, 0x0E6743A1u,
        0x5DAF0E7Bu, 0x35AC22B3u, 0x8DA957EBu, 0xE5AA7B23u, 0xF84FCBAAu, 0x904CE762u,
        0x2849923Au, 0x404ABEF2u, 0xB2828A33u, 0xDA81A6FBu, 0x6284D3A3u, 0x0A87FF6Bu,
        0x17624FE2u, 0x7F61632Au, 0xC7641672u, 0xAF673ABAu, 0xFCAF7760u, 0x94AC5BA8u,
        0x2CA92EF0u, 0x44AA0238u, 0x594FB2B1u, 0x314C9E79u, 0x8949EB21u, 0xE14AC7E9u,
        0x2ED97095u, 0x46DA5C5Du, 0xFEDF2905u, 0x96DC05CDu, 0x8B39B544u, 0xE33A998Cu,
        0x5B3FECD4u, 0x333CC01Cu, 0x60F48DC6u, 0x08F7A10Eu, 0xB0F2D456u, 0xD8F1F89Eu,
        0xC5144817u, 0xAD1764DFu, 0x15121187u, 0x7D113D4Fu,
    },
    { /* T[7] */
        0x00000000u, 0x493C7D27u, 0x9278FA4Eu, 0xDB448769u, 0x211D826Du, 0x6821FF4Au,
        0xB3657823u, 0xFA590504u, 0x423B04DAu, 0x0B0779FDu, 0xD043FE94u, 0x997F83B3u,
        0x632686B7u, 0x2A1AFB90u, 0xF15E7CF9u, 0xB86201DEu, 0x847609B4u, 0xCD4A7493u,
        0x160EF3FAu, 0x5F328EDDu, 0xA56B8BD9u, 0xEC57F6FEu, 0x37137197u, 0x7E2F0CB0u,
        0xC64D0D6Eu, 0x8F717049u, 0x5435F720u, 0x1D098A07u, 0xE7508F03u, 0xAE6CF224u,
        0x7528754Du, 0x3C14086Au, 0x0D006599u, 0x443C18BEu, 0x9F789FD7u, 0xD644E2F0u,
        0x2C1DE7F4u, 0x65219AD3u, 0xBE651DBAu, 0xF759609Du, 0x4F3B6143u, 0x06071C64u,
        0xDD439B0Du, 0x947FE62Au, 0x6E26E32Eu, 0x271A9E09u, 0xFC5E1960u, 0xB5626447u,
        0x89766C2Du, 0xC04A110Au, 0x1B0E9663u, 0x5232EB44u, 0xA86BEE40u, 0xE1579367u,
        0x3A13140Eu, 0x732F6929u, 0xCB4D68F7u, 0x827115D0u, 0x593592B9u, 0x1009EF9Eu,
        0xEA50EA9Au, 0xA36C97BDu, 0x782810D4u, 0x31146DF3u, 0x1A00CB32u, 0x533CB615u,
        0x8878317Cu, 0xC1444C5Bu, 0x3B1D495Fu, 0x72213478u, 0xA965B311u, 0xE059CE36u,
        0x583BCFE8u, 0x1107B2CFu, 0xCA4335A6u, 0x837F4881u, 0x79264D85u, 0x301A30A2u,
        0xEB5EB7CBu, 0xA262CAECu, 0x9E76C286u, 0xD74ABFA1u, 0x0C0E38C8u, 0x453245EFu,
        0xBF6B40EBu, 0xF6573DCCu, 0x2D13BAA5u, 0x642FC782u, 0xDC4DC65Cu, 0x9571BB7Bu,
        0x4E353C12u, 0x07094135u, 0xFD504431u, 0xB46C3916u, 0x6F28BE7Fu, 0x2614C358u,
        0x1700AEABu, 0x5E3CD38Cu, 0x857854E5u, 0xCC4429C2u, 0x361D2CC6u, 0x7F2151E1u,
        0xA465D688u, 0xED59ABAFu, 0x553BAA71u, 0x1C07D756u, 0xC743503Fu, 0x8E7F2D18u,
        0x7426281Cu, 0x3D1A553Bu, 0xE65ED252u, 0xAF62AF75u, 0x9376A71Fu, 0xDA4ADA38u,
        0x010E5D51u, 0x48322076u, 0xB26B2572u, 0xFB575855u, 0x2013DF3Cu, 0x692FA21Bu,
        0xD14DA3C5u, 0x9871DEE2u, 0x4335598Bu, 0x0A0924ACu, 0xF05021A8u, 0xB96C5C8Fu,
        0x6228DBE6u, 0x2B14A6C1u, 0x34019664u, 0x7D3DEB43u, 0xA6796C2Au, 0xEF45110Du,
        0x151C1409u, 0x5C20692Eu, 0x8764EE47u, 0xCE589360u, 0x763A92BEu, 0x3F06EF99u,
        0xE44268F0u, 0xAD7E15D7u, 0x572710D3u, 0x1E1B6DF4u, 0xC55FEA9Du, 0x8C6397BAu,
        0xB0779FD0u, 0xF94BE2F7u, 0x220F659Eu, 0x6B3318B9u, 0x916A1DBDu, 0xD856609Au,
        0x0312E7F3u, 0x4A2E9AD4u, 0xF24C9B0Au, 0xBB70E62Du, 0x60346144u, 0x29081C63u,
        0xD3511967u, 0x9A6D6440u, 0x4129E329u, 0x08159E0Eu, 0x3901F3FDu, 0x703D8EDAu,
        0xAB7909B3u, 0xE2457494u, 0x181C7190u, 0x51200CB7u, 0x8A648BDEu, 0xC358F6F9u,
        0x7B3AF727u, 0x32068A00u, 0xE9420D69u, 0xA07E704Eu, 0x5A27754Au, 0x131B086Du,
        0xC85F8F04u, 0x8163F223u, 0xBD77FA49u, 0xF44B876Eu, 0x2F0F0007u, 0x66337D20u,
        0x9C6A7824u, 0xD5560503u, 0x0E12826Au, 0x472EFF4Du, 0xFF4CFE93u, 0xB67083B4u,
        0x6D3404DDu, 0x240879FAu, 0xDE517CFEu, 0x976D01D9u, 0x4C2986B0u, 0x0515FB97u,
        0x2E015D56u, 0x673D2071u, 0xBC79A718u, 0xF545DA3Fu, 0x0F1CDF3Bu, 0x4620A21Cu,
        0x9D642575u, 0xD4585852u, 0x6C3A598Cu, 0x250624ABu, 0xFE42A3C2u, 0xB77EDEE5u,
        0x4D27DBE1u, 0x041BA6C6u, 0xDF5F21AFu, 0x96635C88u, 0xAA7754E2u, 0xE34B29C5u,
        0x380FAEACu, 0x7133D38Bu, 0x8B6AD68Fu, 0xC256ABA8u, 0x19122CC1u, 0x502E51E6u,
        0xE84C5038u, 0xA1702D1Fu, 0x7A34AA76u, 0x3308D751u, 0xC951D255u, 0x806DAF72u,
        0x5B29281Bu, 0x1215553Cu, 0x230138CFu, 0x6A3D45E8u, 0xB179C281u, 0xF845BFA6u,
        0x021CBAA2u, 0x4B20C785u, 0x906440ECu, 0xD9583DCBu, 0x613A3C15u, 0x28064132u,
        0xF342C65Bu, 0xBA7EBB7Cu, 0x4027BE78u, 0x091BC35Fu, 0xD25F4436u, 0x9B633911u,
        0xA777317Bu, 0xEE4B4C5Cu, 0x350FCB35u, 0x7C33B612u, 0x866AB316u, 0xCF56CE31u,
        0x14124958u, 0x5D2E347Fu, 0xE54C35A1u, 0xAC704886u, 0x7734CFEFu, 0x3E08B2C8u,
        0xC451B7CCu, 0x8D6DCAEBu, 0x56294D82u, 0x1F1530A5u,
    },
#endif
#if OFL_CRC32C_SLICES >= 16
    { /* T[8] */
        0x00000000u, 0xF43ED648u, 0xED91DA61u, 0x19AF0C29u, 0xDECFC233u, 0x2AF1147Bu,
        0x335E1852u, 0xC760CE1Au, 0xB873F297u, 0x4C4D24DFu, 0x55E228F6u, 0xA1DCFEBEu,
        0x66BC30A4u, 0x9282E6ECu, 0x8B2DEAC5u, 0x7F133C8Du, 0x750B93DFu, 0x81354597u,
        0x989A49BEu, 0x6CA49FF6u, 0xABC451ECu, 0x5FFA87A4u, 0x46558B8Du, 0xB26B5DC5u,
        0xCD786148u, 0x3946B700u, 0x20E9BB29u, 0xD4D76D61u, 0x13B7A37Bu, 0xE7897533u,
        0xFE26791Au, 0x0A18AF52u, 0xEA1727BEu, 0x1E29F1F6u, 0x0786FDDFu, 0xF3B82B97u,
        0x34D8E58Du, 0xC0E633C5u, 0xD9493FECu, 0x2D77E9A4u, 0x5264D529u, 0xA65A0361u,
        0xBFF50F48u, 0x4BCBD900u, 0x8CAB171Au, 0x7895C152u, 0x613ACD7Bu, 0x95041B33u,
        0x9F1CB461u, 0x6B226229u, 0x728D6E00u, 0x86B3B848u, 0x41D37652u, 0xB5EDA01Au,
        0xAC42AC33u, 0x587C7A7Bu, 0x276F46F6u, 0xD35190BEu, 0xCAFE9C97u, 0x3EC04ADFu,
        0xF9A084C5u, 0x0D9E528Du, 0x14315EA4u, 0xE00F88ECu, 0xD1C2398Du, 0x25FCEFC5u,
        0x3C53E3ECu, 0xC86D35A4u, 0x0F0DFBBEu, 0xFB332DF6u, 0xE29C21DFu, 0x16A2F797u,
        0x69B1CB1Au, 0x9D8F1D52u, 0x8420117Bu, 0x701EC733u, 0xB77E0929u, 0x4340DF61u,
        0x5AEFD348u, 0xAED10500u, 0xA4C9AA52u, 0x50F77C1Au, 0x49587033u, 0xBD66A67Bu,
        0x7A066861u, 0x8E38BE29u, 0x9797B200u, 0x63A96448u, 0x1CBA58C5u, 0xE8848E8Du,
        0xF12B82A4u, 0x051554ECu, 0xC2759AF6u, 0x364B4CBEu, 0x2FE44097u, 0xDBDA96DFu,
        0x3BD51E33u, 0xCFEBC87Bu, 0xD644C452u, 0x227A121Au, 0xE51ADC00u, 0x11240A48u,
        0x088B0661u, 0xFCB5D029u, 0x83A6ECA4u, 0x77983AECu, 0x6E3736C5u, 0x9A09E08Du,
        0x5D692E97u, 0xA957F8DFu, 0xB0F8F4F6u, 0x44C622BEu, 0x4EDE8DECu, 0xBAE05BA4u,
        0xA34F578Du, 0x577181C5u, 0x90114FDFu, 0x642F9997u, 0x7D8095BEu, 0x89BE43F6u,
        0xF6AD7F7Bu, 0x0293A933u, 0x1B3CA51Au, 0xEF027352u, 0x2862BD48u, 0xDC5C6B00u,
        0xC5F36729u, 0x31CDB161u, 0xA66805EBu, 0x5256D3A3u, 0x4BF9DF8Au, 0xBFC709C2u,
        0x78A7C7D8u, 0x8C991190u, 0x95361DB9u, 0x6108CBF1u, 0x1E1BF77Cu, 0xEA252134u,
        0xF38A2D1Du, 0x07B4FB55u, 0xC0D4354Fu, 0x34EAE307u, 0x2D45EF2Eu, 0xD97B3966u,
        0xD3639634u, 0x275D407Cu, 0x3EF24C55u, 0xCACC9A1Du, 0x0DAC5407u, 0xF992824Fu,
        0xE03D8E66u, 0x1403582Eu, 0x6B1064A3u, 0x9F2EB2EBu, 0x8681BEC2u, 0x72BF688Au,
        0xB5DFA690u, 0x41E170D8u, 0x584E7CF1u, 0xAC70AAB9u, 0x4C7F2255u, 0xB841F41Du,
        0xA1EEF834u, 0x55D02E7Cu, 0x92B0E066u, 0x668E362Eu, 0x7F213A07u, 0x8B1FEC4Fu,
        0xF40CD0C2u, 0x0032068Au, 0x199D0AA3u, 0xEDA3DCEBu, 0x2AC312F1u, 0xDEFDC4B9u,
        0xC752C890u, 0x336C1ED8u, 0x3974B18Au, 0xCD4A67C2u, 0xD4E56BEBu, 0x20DBBDA3u,
        0xE7BB73B9u, 0x1385A5F1u, 0x0A2AA9D8u, 0xFE147F90u, 0x8107431Du, 0x75399555u,
        0x6C96997Cu, 0x98A84F34u, 0x5FC8812Eu, 0xABF65766u, 0xB2595B4Fu, 0x46678D07u,
        0x77AA3C66u, 0x8394EA2Eu, 0x9A3BE607u, 0x6E05304Fu, 0xA965FE55u, 0x5D5B281Du,
        0x44F42434u, 0xB0CAF27Cu, 0xCFD9CEF1u, 0x3BE718B9u, 0x22481490u, 0xD676C2D8u,
        0x11160CC2u, 0xE528DA8Au, 0xFC87D6A3u, 0x08B900EBu, 0x02A1AFB9u, 0xF69F79F1u,
        0xEF3075D8u, 0x1B0EA390u, 0xDC6E6D8Au, 0x2850BBC2u, 0x31FFB7EBu, 0xC5C161A3u,
        0xBAD25D2Eu, 0x4EEC8B66u, 0x5743874Fu, 0xA37D5107u, 0x641D9F1Du, 0x90234955u,
        0x898C457Cu, 0x7DB29334u, 0x9DBD1BD8u, 0x6983CD90u, 0x702CC1B9u, 0x841217F1u,
        0x4372D9EBu, 0xB74C0FA3u, 0xAEE3038Au, 0x5ADDD5C2u, 0x25CEE94Fu, 0xD1F03F07u,
        0xC85F332Eu, 0x3C61E566u, 0xFB012B7Cu, 0x0F3FFD34u, 0x1690F11Du, 0xE2AE2755u,
        0xE8B68807u, 0x1C885E4Fu, 0x05275266u, 0xF119842Eu, 0x36794A34u, 0xC2479C7Cu,
        0xDBE89055u, 0x2FD6461Du, 0x50C57A90u, 0xA4FBACD8u, 0xBD54A0F1u, 0x496A76B9u,
        0x8E0AB8A3u, 0x7A346EEBu, 0x639B62C2u, 0x97A5B48Au,
    },
    { /* T[9] */
        0x00000000u, 0xCB567BA5u, 0x934081BBu, 0x5816FA1Eu, 0x236D7587u, 0xE83B0E22u,
        0xB02DF43Cu, 0x7B7B8F99u, 0x46DAEB0Eu, 0x8D8C90ABu, 0xD59A6AB5u, 0x1ECC1110u,
        0x65B79E89u, 0xAEE1E52Cu, 0xF6F71F32u, 0x3DA16497u, 0x8DB5D61Cu, 0x46E3ADB9u,
        0x1EF557A7u, 0xD5A32C02u, 0xAED8A39Bu, 0x658ED83Eu, 0x3D982220u, 0xF6CE5985u,
        0xCB6F3D12u, 0x003946B7u, 0x582FBCA9u, 0x9379C70Cu, 0xE8024895u, 0x23543330u,
        0x7B42C92Eu, 0xB014B28Bu, 0x1E87DAC9u, 0xD5D1A16Cu, 0x8DC75B72u, 0x469120D7u,
        0x3DEAAF4Eu, 0xF6BCD4EBu, 0xAEAA2EF5u, 0x65FC5550u, 0x585D31C7u, 0x930B4A62u,
        0xCB1DB07Cu, 0x004BCBD9u, 0x7B304440u, 0xB0663FE5u, 0xE870C5FBu, 0x2326BE5Eu,
        0x93320CD5u, 0x58647770u, 0x00728D6Eu, 0xCB24F6CBu, 0xB05F7952u, 0x7B0902F7u,
        0x231FF8E9u, 0xE849834Cu, 0xD5E8E7DBu, 0x1EBE9C7Eu, 0x46A86660u, 0x8DFE1DC5u,
        0xF685925Cu, 0x3DD3E9F9u, 0x65C513E7u, 0xAE936842u, 0x3D0FB592u, 0xF659CE37u,
        0xAE4F3429u, 0x65194F8Cu, 0x1E62C015u, 0xD534BBB0u, 0x8D2241AEu, 0x46743A0Bu,
        0x7BD55E9Cu, 0xB0832539u, 0xE895DF27u, 0x23C3A482u, 0x58B82B1Bu, 0x93EE50BEu,
        0xCBF8AAA0u, 0x00AED105u, 0xB0BA638Eu, 0x7BEC182Bu, 0x23FAE235u, 0xE8AC9990u,
        0x93D71609u, 0x58816DACu, 0x009797B2u, 0xCBC1EC17u, 0xF6608880u, 0x3D36F325u,
        0x6520093Bu, 0xAE76729Eu, 0xD50DFD07u, 0x1E5B86A2u, 0x464D7CBCu, 0x8D1B0719u,
        0x23886F5Bu, 0xE8DE14FEu, 0xB0C8EEE0u, 0x7B9E9545u, 0x00E51ADCu, 0xCBB36179u,
        0x93A59B67u, 0x58F3E0C2u, 0x65528455u, 0xAE04FFF0u, 0xF61205EEu, 0x3D447E4Bu,
        0x463FF1D2u, 0x8D698A77u, 0xD57F7069u, 0x1E290BCCu, 0xAE3DB947u, 0x656BC2E2u,
        0x3D7D38FCu, 0xF62B4359u, 0x8D50CCC0u, 0x4606B765u, 0x1E104D7Bu, 0xD54636DEu,
        0xE8E75249u, 0x23B129ECu, 0x7BA7D3F2u, 0xB0F1A857u, 0xCB8A27CEu, 0x00DC5C6Bu,
        0x58CAA675u, 0x939CDDD0u, 0x7A1F6B24u, 0xB1491081u, 0xE95FEA9Fu, 0x2209913Au,
        0x59721EA3u, 0x92246506u, 0xCA329F18u, 0x0164E4BDu, 0x3CC5802Au, 0xF793FB8Fu,
        0xAF850191u, 0x64D37A34u, 0x1FA8F5ADu, 0xD4FE8E08u, 0x8CE87416u, 0x47BE0FB3u,
        0xF7AABD38u, 0x3CFCC69Du, 0x64EA3C83u, 0xAFBC4726u, 0xD4C7C8BFu, 0x1F91B31Au,
        0x47874904u, 0x8CD132A1u, 0xB1705636u, 0x7A262D93u, 0x2230D78Du, 0xE966AC28u,
        0x921D23B1u, 0x594B5814u, 0x015DA20Au, 0xCA0BD9AFu, 0x6498B1EDu, 0xAFCECA48u,
        0xF7D83056u, 0x3C8E4BF3u, 0x47F5C46Au, 0x8CA3BFCFu, 0xD4B545D1u, 0x1FE33E74u,
        0x22425AE3u, 0xE9142146u, 0xB102DB58u, 0x7A54A0FDu, 0x012F2F64u, 0xCA7954C1u,
        0x926FAEDFu, 0x5939D57Au, 0xE92D67F1u, 0x227B1C54u, 0x7A6DE64Au, 0xB13B9DEFu,
        0xCA401276u, 0x011669D3u, 0x590093CDu, 0x9256E868u, 0xAFF78CFFu, 0x64A1F75Au,
        0x3CB70D44u, 0xF7E176E1u, 0x8C9AF978u, 0x47CC82DDu, 0x1FDA78C3u, 0xD48C0366u,
        0x4710DEB6u, 0x8C46A513u, 0xD4505F0Du, 0x1F0624A8u, 0x647DAB31u, 0xAF2BD094u,
        0xF73D2A8Au, 0x3C6B512Fu, 0x01CA35B8u, 0xCA9C4E1Du, 0x928AB403u, 0x59DCCFA6u,
        0x22A7403Fu, 0xE9F13B9Au, 0xB1E7C184u, 0x7AB1BA21u, 0xCAA508AAu, 0x01F3730Fu,
        0x59E58911u, 0x92B3F2B4u, 0xE9C87D2Du, 0x229E0688u, 0x7A88FC96u, 0xB1DE8733u,
        0x8C7FE3A4u, 0x47299801u, 0x1F3F621Fu, 0xD46919BAu, 0xAF129623u, 0x6444ED86u,
        0x3C521798u, 0xF7046C3Du, 0x5997047Fu, 0x92C17FDAu, 0xCAD785C4u, 0x0181FE61u,
        0x7AFA71F8u, 0xB1AC0A5Du, 0xE9BAF043u, 0x22EC8BE6u, 0x1F4DEF71u, 0xD41B94D4u,
        0x8C0D6ECAu, 0x475B156Fu, 0x3C209AF6u, 0xF776E153u, 0xAF601B4Du, 0x643660E8u,
        0xD422D263u, 0x1F74A9C6u, 0x476253D8u, 0x8C34287Du, 0xF74FA7E4u, 0x3C19DC41u,
        0x640F265Fu, 0xAF595DFAu, 0x92F8396Du, 0x59AE42C8u, 0x01B8B8D6u, 0xCAEEC373u,
        0xB1954CEAu, 0x7AC3374Fu, 0x22D5CD51u, 0xE983B6F4u,
    },
    { /* T[10] */
        0x00000000u, 0x9771F7C1u, 0x2B0F9973u, 0xBC7E6EB2u, 0x561F32E6u, 0xC16EC527u,
        0x7D10AB95u, 0xEA615C54u, 0xAC3E65CCu, 0x3B4F920Du, 0x8731FCBFu, 0x10400B7Eu,
        0xFA21572Au, 0x6D50A0EBu, 0xD12ECE59u, 0x465F3998u, 0x5D90BD69u, 0xCAE14AA8u,
        0x769F241Au, 0xE1EED3DBu, 0x0B8F8F8Fu, 0x9CFE784Eu, 0x208016FCu, 0xB7F1E13Du,
        0xF1AED8A5u, 0x66DF2F64u, 0xDAA141D6u, 0x4DD0B617u, 0xA7B1EA43u, 0x30C01D82u,
        0x8CBE7330u, 0x1BCF84F1u, 0xBB217AD2u, 0x2C508D13u, 0x902EE3A1u, 0x075F1460u,
        0xED3E4834u, 0x7A4FBFF5u, 0xC631D147u, 0x51402686u, 0x171F1F1Eu, 0x806EE8DFu,
        0x3C10866Du, 0xAB6171ACu, 0x41002DF8u, 0xD671DA39u, 0x6A0FB48Bu, 0xFD7E434Au,
        0xE6B1C7BBu, 0x71C0307Au, 0xCDBE5EC8u, 0x5ACFA909u, 0xB0AEF55Du, 0x27DF029Cu,
        0x9BA16C2Eu, 0x0CD09BEFu, 0x4A8FA277u, 0xDDFE55B6u, 0x61803B04u, 0xF6F1CCC5u,
        0x1C909091u, 0x8BE16750u, 0x379F09E2u, 0xA0EEFE23u, 0x73AE8355u, 0xE4DF7494u,
        0x58A11A26u, 0xCFD0EDE7u, 0x25B1B1B3u, 0xB2C04672u, 0x0EBE28C0u, 0x99CFDF01u,
        0xDF90E699u, 0x48E11158u, 0xF49F7FEAu, 0x63EE882Bu, 0x898FD47Fu, 0x1EFE23BEu,
        0xA2804D0Cu, 0x35F1BACDu, 0x2E3E3E3Cu, 0xB94FC9FDu, 0x0531A74Fu, 0x9240508Eu,
        0x78210CDAu, 0xEF50FB1Bu, 0x532E95A9u, 0xC45F6268u, 0x82005BF0u, 0x1571AC31u,
        0xA90FC283u, 0x3E7E3542u, 0xD41F6916u, 0x436E9ED7u, 0xFF10F065u, 0x686107A4u,
        0xC88FF987u, 0x5FFE0E46u, 0xE38060F4u, 0x74F19735u, 0x9E90CB61u, 0x09E13CA0u,
        0xB59F5212u, 0x22EEA5D3u, 0x64B19C4Bu, 0xF3C06B8Au, 0x4FBE0538u, 0xD8CFF2F9u,
        0x32AEAEADu, 0xA5DF596Cu, 0x19A137DEu, 0x8ED0C01Fu, 0x951F44EEu, 0x026EB32Fu,
        0xBE10DD9Du, 0x29612A5Cu, 0xC3007608u, 0x547181C9u, 0xE80FEF7Bu, 0x7F7E18BAu,
        0x39212122u, 0xAE50D6E3u, 0x122EB851u, 0x855F4F90u, 0x6F3E13C4u, 0xF84FE405u,
        0x44318AB7u, 0xD3407D76u, 0xE75D06AAu, 0x702CF16Bu, 0xCC529FD9u, 0x5B236818u,
        0xB142344Cu, 0x2633C38Du, 0x9A4DAD3Fu, 0x0D3C5AFEu, 0x4B636366u, 0xDC1294A7u,
        0x606CFA15u, 0xF71D0DD4u, 0x1D7C5180u, 0x8A0DA641u, 0x3673C8F3u, 0xA1023F32u,
        0xBACDBBC3u, 0x2DBC4C02u, 0x91C222B0u, 0x06B3D571u, 0xECD28925u, 0x7BA37EE4u,
        0xC7DD1056u, 0x50ACE797u, 0x16F3DE0Fu, 0x818229CEu, 0x3DFC477Cu, 0xAA8DB0BDu,
        0x40ECECE9u, 0xD79D1B28u, 0x6BE3759Au, 0xFC92825Bu, 0x5C7C7C78u, 0xCB0D8BB9u,
        0x7773E50Bu, 0xE00212CAu, 0x0A634E9Eu, 0x9D12B95Fu, 0x216CD7EDu, 0xB61D202Cu,
        0xF04219B4u, 0x6733EE75u, 0xDB4D80C7u, 0x4C3C7706u, 0xA65D2B52u, 0x312CDC93u,
        0x8D52B221u, 0x1A2345E0u, 0x01ECC111u, 0x969D36D0u, 0x2AE35862u, 0xBD92AFA3u,
        0x57F3F3F7u, 0xC0820436u, 0x7CFC6A84u, 0xEB8D9D45u, 0xADD2A4DDu, 0x3AA3531Cu,
        0x86DD3DAEu, 0x11ACCA6Fu, 0xFBCD963Bu, 0x6CBC61FAu, 0xD0C20F48u, 0x47B3F889u,
        0x94F385FFu, 0x0382723Eu, 0xBFFC1C8Cu, 0x288DEB4Du, 0xC2ECB719u, 0x559D40D8u,
        0xE9E32E6Au, 0x7E92D9ABu, 0x38CDE033u, 0xAFBC17F2u, 0x13C27940u, 0x84B38E81u,
        0x6ED2D2D5u, 0xF9A32514u, 0x45DD4BA6u, 0xD2ACBC67u, 0xC9633896u, 0x5E12CF57u,
        0xE26CA1E5u, 0x751D5624u, 0x9F7C0A70u, 0x080DFDB1u, 0xB4739303u, 0x230264C2u,
        0x655D5D5Au, 0xF22CAA9Bu, 0x4E52C429u, 0xD92333E8u, 0x33426FBCu, 0xA433987Du,
        0x184DF6CFu, 0x8F3C010Eu, 0x2FD2FF2Du, 0xB8A308ECu, 0x04DD665Eu, 0x93AC919Fu,
        0x79CDCDCBu, 0xEEBC3A0Au, 0x52C254B8u, 0xC5B3A379u, 0x83EC9AE1u, 0x149D6D20u,
        0xA8E30392u, 0x3F92F453u, 0xD5F3A807u, 0x42825FC6u, 0xFEFC3174u, 0x698DC6B5u,
        0x72424244u, 0xE533B585u, 0x594DDB37u, 0xCE3C2CF6u, 0x245D70A2u, 0xB32C8763u,
        0x0F52E9D1u, 0x98231E10u, 0xDE7C2788u, 0x490DD049u, 0xF573BEFBu, 0x6202493Au,
        0x8863156Eu, 0x1F12E2AFu, 0xA36C8C1Du, 0x341D7BDCu,
    },
    { /* T[11] */
        0x00000000u, 0x3171D430u, 0x62E3A860u, 0x53927C50u, 0xC5C750C0u, 0xF4B684F0u,
        0xA724F8A0u, 0x96552C90u, 0x8E62D771u, 0xBF130341u, 0xEC817F11u, 0xDDF0AB21u,
        0x4BA587B1u, 0x7AD45381u, 0x29462FD1u, 0x1837FBE1u, 0x1929D813u, 0x28580C23u,
        0x7BCA7073u, 0x4ABBA443u, 0xDCEE88D3u, 0xED9F5CE3u, 0xBE0D20B3u, 0x8F7CF483u,
        0x974B0F62u, 0xA63ADB52u, 0xF5A8A702u, 0xC4D97332u, 0x528C5FA2u, 0x63FD8B92u,
        0x306FF7C2u, 0x011E23F2u, 0x3253B026u, 0x03226416u, 0x50B01846u, 0x61C1CC76u,
        0xF794E0E6u, 0xC6E534D6u, 0x95774886u, 0xA4069CB6u, 0xBC316757u, 0x8D40B367u,
        0xDED2CF37u, 0xEFA31B07u, 0x79F63797u, 0x4887E3A7u, 0x1B159FF7u, 0x2A644BC7u,
        0x2B7A6835u, 0x1A0BBC05u, 0x4999C055u, 0x78E81465u, 0xEEBD38F5u, 0xDFCCECC5u,
        0x8C5E9095u, 0xBD2F44A5u, 0xA518BF44u, 0x94696B74u, 0xC7FB1724u, 0xF68AC314u,
        0x60DFEF84u, 0x51AE3BB4u, 0x023C47E4u, 0x334D93D4u, 0x64A7604Cu, 0x55D6B47Cu,
        0x0644C82Cu, 0x37351C1Cu, 0xA160308Cu, 0x9011E4BCu, 0xC38398ECu, 0xF2F24CDCu,
        0xEAC5B73Du, 0xDBB4630Du, 0x88261F5Du, 0xB957CB6Du, 0x2F02E7FDu, 0x1E7333CDu,
        0x4DE14F9Du, 0x7C909BADu, 0x7D8EB85Fu, 0x4CFF6C6Fu, 0x1F6D103Fu, 0x2E1CC40Fu,
        0xB849E89Fu, 0x89383CAFu, 0xDAAA40FFu, 0xEBDB94CFu, 0xF3EC6F2Eu, 0xC29DBB1Eu,
        0x910FC74Eu, 0xA07E137Eu, 0x362B3FEEu, 0x075AEBDEu, 0x54C8978Eu, 0x65B943BEu,
        0x56F4D06Au, 0x6785045Au, 0x3417780Au, 0x0566AC3Au, 0x933380AAu, 0xA242549Au,
        0xF1D028CAu, 0xC0A1FCFAu, 0xD896071Bu, 0xE9E7D32Bu, 0xBA75AF7Bu, 0x8B047B4Bu,
        0x1D5157DBu, 0x2C2083EBu, 0x7FB2FFBBu, 0x4EC32B8Bu, 0x4FDD0879u, 0x7EACDC49u,
        0x2D3EA019u, 0x1C4F7429u, 0x8A1A58B9u, 0xBB6B8C89u, 0xE8F9F0D9u, 0xD98824E9u,
        0xC1BFDF08u, 0xF0CE0B38u, 0xA35C7768u, 0x922DA358u, 0x04788FC8u, 0x35095BF8u,
        0x669B27A8u, 0x57EAF398u, 0xC94EC098u, 0xF83F14A8u, 0xABAD68F8u, 0x9ADCBCC8u,
        0x0C899058u, 0x3DF84468u, 0x6E6A3838u, 0x5F1BEC08u, 0x472C17E9u, 0x765DC3D9u,
        0x25CFBF89u, 0x14BE6BB9u, 0x82EB4729u, 0xB39A9319u, 0xE008EF49u, 0xD1793B79u,
        0xD067188Bu, 0xE116CCBBu, 0xB284B0EBu, 0x83F564DBu, 0x15A0484Bu, 0x24D19C7Bu,
        0x7743E02Bu, 0x4632341Bu, 0x5E05CFFAu, 0x6F741BCAu, 0x3CE6679Au, 0x0D97B3AAu,
        0x9BC29F3Au, 0xAAB34B0Au, 0xF921375Au, 0xC850E36Au, 0xFB1D70BEu, 0xCA6CA48Eu,
        0x99FED8DEu, 0xA88F0CEEu, 0x3EDA207Eu, 0x0FABF44Eu, 0x5C39881Eu, 0x6D485C2Eu,
        0x757FA7CFu, 0x440E73FFu, 0x179C0FAFu, 0x26EDDB9Fu, 0xB0B8F70Fu, 0x81C9233Fu,
        0xD25B5F6Fu, 0xE32A8B5Fu, 0xE234A8ADu, 0xD3457C9Du, 0x80D700CDu, 0xB1A6D4FDu,
        0x27F3F86Du, 0x16822C5Du, 0x4510500Du, 0x7461843Du, 0x6C567FDCu, 0x5D27ABECu,
        0x0EB5D7BCu, 0x3FC4038Cu, 0xA9912F1Cu, 0x98E0FB2Cu, 0xCB72877Cu, 0xFA03534Cu,
        0xADE9A0D4u, 0x9C9874E4u, 0xCF0A08B4u, 0xFE7BDC84u, 0x682EF014u, 0x595F2424u,
        0x0ACD5874u, 0x3BBC8C44u, 0x238B77A5u, 0x12FAA395u, 0x4168DFC5u, 0x70190BF5u,
        0xE64C2765u, 0xD73DF355u, 0x84AF8F05u, 0xB5DE5B35u, 0xB4C078C7u, 0x85B1ACF7u,
        0xD623D0A7u, 0xE7520497u, 0x71072807u, 0x4076FC37u, 0x13E48067u, 0x22955457u,
        0x3AA2AFB6u, 0x0BD37B86u, 0x584107D6u, 0x6930D3E6u, 0xFF65FF76u, 0xCE142B46u,
        0x9D865716u, 0xACF78326u, 0x9FBA10F2u, 0xAECBC4C2u, 0xFD59B892u, 0xCC286CA2u,
        0x5A7D4032u, 0x6B0C9402u, 0x389EE852u, 0x09EF3C62u, 0x11D8C783u, 0x20A913B3u,
        0x733B6FE3u, 0x424ABBD3u, 0xD41F9743u, 0xE56E4373u, 0xB6FC3F23u, 0x878DEB13u,
        0x8693C8E1u, 0xB7E21CD1u, 0xE4706081u, 0xD501B4B1u, 0x43549821u, 0x72254C11u,
        0x21B73041u, 0x10C6E471u, 0x08F11F90u, 0x3980CBA0u, 0x6A12B7F0u, 0x5B6363C0u,
        0xCD364F50u, 0xFC479B60u, 0xAFD5E730u, 0x9EA43300u,
    },
    { /* T[12] */
        0x00000000u, 0x30D23865u, 0x61A470CAu, 0x517648AFu, 0xC348E194u, 0xF39AD9F1u,
        0xA2EC915Eu, 0x923EA93Bu, 0x837DB5D9u, 0xB3AF8DBCu, 0xE2D9C513u, 0xD20BFD76u,
        0x4035544Du, 0x70E76C28u, 0x21912487u, 0x11431CE2u, 0x03171D43u, 0x33C52526u,
        0x62B36D89u, 0x526155ECu, 0xC05FFCD7u, 0xF08DC4B2u, 0xA1FB8C1Du, 0x9129B478u,
        0x806AA89Au, 0xB0B890FFu, 0xE1CED850u, 0xD11CE035u, 0x4322490Eu, 0x73F0716Bu,
        0x228639C4u, 0x125401A1u, 0x062E3A86u, 0x36FC02E3u, 0x678A4A4Cu, 0x57587229u,
        0xC566DB12u, 0xF5B4E377u, 0xA4C2ABD8u, 0x941093BDu, 0x85538F5Fu, 0xB581B73Au,
        0xE4F7FF95u, 0xD425C7F0u, 0x461B6ECBu, 0x76C956AEu, 0x27BF1E01u, 0x176D2664u,
        0x053927C5u, 0x35EB1FA0u, 0x649D570Fu, 0x544F6F6Au, 0xC671C651u, 0xF6A3FE34u,
        0xA7D5B69Bu, 0x97078EFEu, 0x8644921Cu, 0xB696AA79u, 0xE7E0E2D6u, 0xD732DAB3u,
        0x450C7388u, 0x75DE4BEDu, 0x24A80342u, 0x147A3B27u, 0x0C5C750Cu, 0x3C8E4D69u,
        0x6DF805C6u, 0x5D2A3DA3u, 0xCF149498u, 0xFFC6ACFDu, 0xAEB0E452u, 0x9E62DC37u,
        0x8F21C0D5u, 0xBFF3F8B0u, 0xEE85B01Fu, 0xDE57887Au, 0x4C692141u, 0x7CBB1924u,
        0x2DCD518Bu, 0x1D1F69EEu, 0x0F4B684Fu, 0x3F99502Au, 0x6EEF1885u, 0x5E3D20E0u,
        0xCC0389DBu, 0xFCD1B1BEu, 0xADA7F911u, 0x9D75C174u, 0x8C36DD96u, 0xBCE4E5F3u,
        0xED92AD5Cu, 0xDD409539u, 0x4F7E3C02u, 0x7FAC0467u, 0x2EDA4CC8u, 0x1E0874ADu,
        0x0A724F8Au, 0x3AA077EFu, 0x6BD63F40u, 0x5B040725u, 0xC93AAE1Eu, 0xF9E8967Bu,
        0xA89EDED4u, 0x984CE6B1u, 0x890FFA53u, 0xB9DDC236u, 0xE8AB8A99u, 0xD879B2FCu,
        0x4A471BC7u, 0x7A9523A2u, 0x2BE36B0Du, 0x1B315368u, 0x096552C9u, 0x39B76AACu,
        0x68C12203u, 0x58131A66u, 0xCA2DB35Du, 0xFAFF8B38u, 0xAB89C397u, 0x9B5BFBF2u,
        0x8A18E710u, 0xBACADF75u, 0xEBBC97DAu, 0xDB6EAFBFu, 0x49500684u, 0x79823EE1u,
        0x28F4764Eu, 0x18264E2Bu, 0x18B8EA18u, 0x286AD27Du, 0x791C9AD2u, 0x49CEA2B7u,
        0xDBF00B8Cu, 0xEB2233E9u, 0xBA547B46u, 0x8A864323u, 0x9BC55FC1u, 0xAB1767A4u,
        0xFA612F0Bu, 0xCAB3176Eu, 0x588DBE55u, 0x685F8630u, 0x3929CE9Fu, 0x09FBF6FAu,
        0x1BAFF75Bu, 0x2B7DCF3Eu, 0x7A0B8791u, 0x4AD9BFF4u, 0xD8E716CFu, 0xE8352EAAu,
        0xB9436605u, 0x89915E60u, 0x98D24282u, 0xA8007AE7u, 0xF9763248u, 0xC9A40A2Du,
        0x5B9AA316u, 0x6B489B73u, 0x3A3ED3DCu, 0x0AECEBB9u, 0x1E96D09Eu, 0x2E44E8FBu,
        0x7F32A054u, 0x4FE09831u, 0xDDDE310Au, 0xED0C096Fu, 0xBC7A41C0u, 0x8CA879A5u,
        0x9DEB6547u, 0xAD395D22u, 0xFC4F158Du, 0xCC9D2DE8u, 0x5EA384D3u, 0x6E71BCB6u,
        0x3F07F419u, 0x0FD5CC7Cu, 0x1D81CDDDu, 0x2D53F5B8u, 0x7C25BD17u, 0x4CF78572u,
        0xDEC92C49u, 0xEE1B142Cu, 0xBF6D5C83u, 0x8FBF64E6u, 0x9EFC7804u, 0xAE2E4061u,
        0xFF5808CEu, 0xCF8A30ABu, 0x5DB49990u, 0x6D66A1F5u, 0x3C10E95Au, 0x0CC2D13Fu,
        0x14E49F14u, 0x2436A771u, 0x7540EFDEu, 0x4592D7BBu, 0xD7AC7E80u, 0xE77E46E5u,
        0xB6080E4Au, 0x86DA362Fu, 0x97992ACDu, 0xA74B12A8u, 0xF63D5A07u, 0xC6EF6262u,
        0x54D1CB59u, 0x6403F33Cu, 0x3575BB93u, 0x05A783F6u, 0x17F38257u, 0x2721BA32u,
        0x7657F29Du, 0x4685CAF8u, 0xD4BB63C3u, 0xE4695BA6u, 0xB51F1309u, 0x85CD2B6Cu,
        0x948E378Eu, 0xA45C0FEBu, 0xF52A4744u, 0xC5F87F21u, 0x57C6D61Au, 0x6714EE7Fu,
        0x3662A6D0u, 0x06B09EB5u, 0x12CAA592u, 0x22189DF7u, 0x736ED558u, 0x43BCED3Du,
        0xD1824406u, 0xE1507C63u, 0xB02634CCu, 0x80F40CA9u, 0x91B7104Bu, 0xA165282Eu,
        0xF0136081u, 0xC0C158E4u, 0x52FFF1DFu, 0x622DC9BAu, 0x335B8115u, 0x0389B970u,
        0x11DDB8D1u, 0x210F80B4u, 0x7079C81Bu, 0x40ABF07Eu, 0xD2955945u, 0xE2476120u,
        0xB331298Fu, 0x83E311EAu, 0x92A00D08u, 0xA272356Du, 0xF3047DC2u, 0xC3D645A7u,
        0x51E8EC9Cu, 0x613AD4F9u, 0x304C9C56u, 0x009EA433u,
    },
    { /* T[13] */
        0x00000000u, 0x54075546u, 0xA80EAA8Cu, 0xFC09FFCAu, 0x55F123E9u, 0x01F676AFu,
        0xFDFF8965u, 0xA9F8DC23u, 0xABE247D2u, 0xFFE51294u, 0x03ECED5Eu, 0x57EBB818u,
        0xFE13643Bu, 0xAA14317Du, 0x561DCEB7u, 0x021A9BF1u, 0x5228F955u, 0x062FAC13u,
        0xFA2653D9u, 0xAE21069Fu, 0x07D9DABCu, 0x53DE8FFAu, 0xAFD77030u, 0xFBD02576u,
        0xF9CABE87u, 0xADCDEBC1u, 0x51C4140Bu, 0x05C3414Du, 0xAC3B9D6Eu, 0xF83CC828u,
        0x043537E2u, 0x503262A4u, 0xA451F2AAu, 0xF056A7ECu, 0x0C5F5826u, 0x58580D60u,
        0xF1A0D143u, 0xA5A78405u, 0x59AE7BCFu, 0x0DA92E89u, 0x0FB3B578u, 0x5BB4E03Eu,
        0xA7BD1FF4u, 0xF3BA4AB2u, 0x5A429691u, 0x0E45C3D7u, 0xF24C3C1Du, 0xA64B695Bu,
        0xF6790BFFu, 0xA27E5EB9u, 0x5E77A173u, 0x0A70F435u, 0xA3882816u, 0xF78F7D50u,
        0x0B86829Au, 0x5F81D7DCu, 0x5D9B4C2Du, 0x099C196Bu, 0xF595E6A1u, 0xA192B3E7u,
        0x086A6FC4u, 0x5C6D3A82u, 0xA064C548u, 0xF463900Eu, 0x4D4F93A5u, 0x1948C6E3u,
        0xE5413929u, 0xB1466C6Fu, 0x18BEB04Cu, 0x4CB9E50Au, 0xB0B01AC0u, 0xE4B74F86u,
        0xE6ADD477u, 0xB2AA8131u, 0x4EA37EFBu, 0x1AA42BBDu, 0xB35CF79Eu, 0xE75BA2D8u,
        0x1B525D12u, 0x4F550854u, 0x1F676AF0u, 0x4B603FB6u, 0xB769C07Cu, 0xE36E953Au,
        0x4A964919u, 0x1E911C5Fu, 0xE298E395u, 0xB69FB6D3u, 0xB4852D22u, 0xE0827864u,
        0x1C8B87AEu, 0x488CD2E8u, 0xE1740ECBu, 0xB5735B8Du, 0x497AA447u, 0x1D7DF101u,
        0xE91E610Fu, 0xBD193449u, 0x4110CB83u, 0x15179EC5u, 0xBCEF42E6u, 0xE8E817A0u,
        0x14E1E86Au, 0x40E6BD2Cu, 0x42FC26DDu, 0x16FB739Bu, 0xEAF28C51u, 0xBEF5D917u,
        0x170D0534u, 0x430A5072u, 0xBF03AFB8u, 0xEB04FAFEu, 0xBB36985Au, 0xEF31CD1Cu,
        0x133832D6u, 0x473F6790u, 0xEEC7BBB3u, 0xBAC0EEF5u, 0x46C9113Fu, 0x12CE4479u,
        0x10D4DF88u, 0x44D38ACEu, 0xB8DA7504u, 0xECDD2042u, 0x4525FC61u, 0x1122A927u,
        0xED2B56EDu, 0xB92C03ABu, 0x9A9F274Au, 0xCE98720Cu, 0x32918DC6u, 0x6696D880u,
        0xCF6E04A3u, 0x9B6951E5u, 0x6760AE2Fu, 0x3367FB69u, 0x317D6098u, 0x657A35DEu,
        0x9973CA14u, 0xCD749F52u, 0x648C4371u, 0x308B1637u, 0xCC82E9FDu, 0x9885BCBBu,
        0xC8B7DE1Fu, 0x9CB08B59u, 0x60B97493u, 0x34BE21D5u, 0x9D46FDF6u, 0xC941A8B0u,
        0x3548577Au, 0x614F023Cu, 0x635599CDu, 0x3752CC8Bu, 0xCB5B3341u, 0x9F5C6607u,
        0x36A4BA24u, 0x62A3EF62u, 0x9EAA10A8u, 0xCAAD45EEu, 0x3ECED5E0u, 0x6AC980A6u,
        0x96C07F6Cu, 0xC2C72A2Au, 0x6B3FF609u, 0x3F38A34Fu, 0xC3315C85u, 0x973609C3u,
        0x952C9232u, 0xC12BC774u, 0x3D2238BEu, 0x69256DF8u, 0xC0DDB1DBu, 0x94DAE49Du,
        0x68D31B57u, 0x3CD44E11u, 0x6CE62CB5u, 0x38E179F3u, 0xC4E88639u, 0x90EFD37Fu,
        0x39170F5Cu, 0x6D105A1Au, 0x9119A5D0u, 0xC51EF096u, 0xC7046B67u, 0x93033E21u,
        0x6F0AC1EBu, 0x3B0D94ADu, 0x92F5488Eu, 0xC6F21DC8u, 0x3AFBE202u, 0x6EFCB744u,
        0xD7D0B4EFu, 0x83D7E1A9u, 0x7FDE1E63u, 0x2BD94B25u, 0x82219706u, 0xD626C240u,
        0x2A2F3D8Au, 0x7E2868CCu, 0x7C32F33Du, 0x2835A67Bu, 0xD43C59B1u, 0x803B0CF7u,
        0x29C3D0D4u, 0x7DC48592u, 0x81CD7A58u, 0xD5CA2F1Eu, 0x85F84DBAu, 0xD1FF18FCu,
        0x2DF6E736u, 0x79F1B270u, 0xD0096E53u, 0x840E3B15u, 0x7807C4DFu, 0x2C009199u,
        0x2E1A0A68u, 0x7A1D5F2Eu, 0x8614A0E4u, 0xD213F5A2u, 0x7BEB2981u, 0x2FEC7CC7u,
        0xD3E5830Du, 0x87E2D64Bu, 0x73814645u, 0x27861303u, 0xDB8FECC9u, 0x8F88B98Fu,
        0x267065ACu, 0x727730EAu, 0x8E7ECF20u, 0xDA799A66u, 0xD8630197u, 0x8C6454D1u,
        0x706DAB1Bu, 0x246AFE5Du, 0x8D92227Eu, 0xD9957738u, 0x259C88F2u, 0x719BDDB4u,
        0x21A9BF10u, 0x75AEEA56u, 0x89A7159Cu, 0xDDA040DAu, 0x74589CF9u, 0x205FC9BFu,
        0xDC563675u, 0x88516333u, 0x8A4BF8C2u, 0xDE4CAD84u, 0x2245524Eu, 0x76420708u,
        0xDFBADB2Bu, 0x8BBD8E6Du, 0x77B471A7u, 0x23B324E1u,
    },
    { /* T[14] */
        0x00000000u, 0x678EFD01u, 0xCF1DFA02u, 0xA8930703u, 0x9BD782F5u, 0xFC597FF4u,
        0x54CA78F7u, 0x334485F6u, 0x3243731Bu, 0x55CD8E1Au, 0xFD5E8919u, 0x9AD07418u,
        0xA994F1EEu, 0xCE1A0CEFu, 0x66890BECu, 0x0107F6EDu, 0x6486E636u, 0x03081B37u,
        0xAB9B1C34u, 0xCC15E135u, 0xFF5164C3u, 0x98DF99C2u, 0x304C9EC1u, 0x57C263C0u,
        0x56C5952Du, 0x314B682Cu, 0x99D86F2Fu, 0xFE56922Eu, 0xCD1217D8u, 0xAA9CEAD9u,
        0x020FEDDAu, 0x658110DBu, 0xC90DCC6Cu, 0xAE83316Du, 0x0610366Eu, 0x619ECB6Fu,
        0x52DA4E99u, 0x3554B398u, 0x9DC7B49Bu, 0xFA49499Au, 0xFB4EBF77u, 0x9CC04276u,
        0x34534575u, 0x53DDB874u, 0x60993D82u, 0x0717C083u, 0xAF84C780u, 0xC80A3A81u,
        0xAD8B2A5Au, 0xCA05D75Bu, 0x6296D058u, 0x05182D59u, 0x365CA8AFu, 0x51D255AEu,
        0xF94152ADu, 0x9ECFAFACu, 0x9FC85941u, 0xF846A440u, 0x50D5A343u, 0x375B5E42u,
        0x041FDBB4u, 0x639126B5u, 0xCB0221B6u, 0xAC8CDCB7u, 0x97F7EE29u, 0xF0791328u,
        0x58EA142Bu, 0x3F64E92Au, 0x0C206CDCu, 0x6BAE91DDu, 0xC33D96DEu, 0xA4B36BDFu,
        0xA5B49D32u, 0xC23A6033u, 0x6AA96730u, 0x0D279A31u, 0x3E631FC7u, 0x59EDE2C6u,
        0xF17EE5C5u, 0x96F018C4u, 0xF371081Fu, 0x94FFF51Eu, 0x3C6CF21Du, 0x5BE20F1Cu,
        0x68A68AEAu, 0x0F2877EBu, 0xA7BB70E8u, 0xC0358DE9u, 0xC1327B04u, 0xA6BC8605u,
        0x0E2F8106u, 0x69A17C07u, 0x5AE5F9F1u, 0x3D6B04F0u, 0x95F803F3u, 0xF276FEF2u,
        0x5EFA2245u, 0x3974DF44u, 0x91E7D847u, 0xF6692546u, 0xC52DA0B0u, 0xA2A35DB1u,
        0x0A305AB2u, 0x6DBEA7B3u, 0x6CB9515Eu, 0x0B37AC5Fu, 0xA3A4AB5Cu, 0xC42A565Du,
        0xF76ED3ABu, 0x90E02EAAu, 0x387329A9u, 0x5FFDD4A8u, 0x3A7CC473u, 0x5DF23972u,
        0xF5613E71u, 0x92EFC370u, 0xA1AB4686u, 0xC625BB87u, 0x6EB6BC84u, 0x09384185u,
        0x083FB768u, 0x6FB14A69u, 0xC7224D6Au, 0xA0ACB06Bu, 0x93E8359Du, 0xF466C89Cu,
        0x5CF5CF9Fu, 0x3B7B329Eu, 0x2A03AAA3u, 0x4D8D57A2u, 0xE51E50A1u, 0x8290ADA0u,
        0xB1D42856u, 0xD65AD557u, 0x7EC9D254u, 0x19472F55u, 0x1840D9B8u, 0x7FCE24B9u,
        0xD75D23BAu, 0xB0D3DEBBu, 0x83975B4Du, 0xE419A64Cu, 0x4C8AA14Fu, 0x2B045C4Eu,
        0x4E854C95u, 0x290BB194u, 0x8198B697u, 0xE6164B96u, 0xD552CE60u, 0xB2DC3361u,
        0x1A4F3462u, 0x7DC1C963u, 0x7CC63F8Eu, 0x1B48C28Fu, 0xB3DBC58Cu, 0xD455388Du,
        0xE711BD7Bu, 0x809F407Au, 0x280C4779u, 0x4F82BA78u, 0xE30E66CFu, 0x84809BCEu,
        0x2C139CCDu, 0x4B9D61CCu, 0x78D9E43Au, 0x1F57193Bu, 0xB7C41E38u, 0xD04AE339u,
        0xD14D15D4u, 0xB6C3E8D5u, 0x1E50EFD6u, 0x79DE12D7u, 0x4A9A9721u, 0x2D146A20u,
        0x85876D23u, 0xE2099022u, 0x878880F9u, 0xE0067DF8u, 0x48957AFBu, 0x2F1B87FAu,
        0x1C5F020Cu, 0x7BD1FF0Du, 0xD342F80Eu, 0xB4CC050Fu, 0xB5CBF3E2u, 0xD2450EE3u,
        0x7AD609E0u, 0x1D58F4E1u, 0x2E1C7117u, 0x49928C16u, 0xE1018B15u, 0x868F7614u,
        0xBDF4448Au, 0xDA7AB98Bu, 0x72E9BE88u, 0x15674389u, 0x2623C67Fu, 0x41AD3B7Eu,
        0xE93E3C7Du, 0x8EB0C17Cu, 0x8FB73791u, 0xE839CA90u, 0x40AACD93u, 0x27243092u,
        0x1460B564u, 0x73EE4865u, 0xDB7D4F66u, 0xBCF3B267u, 0xD972A2BCu, 0xBEFC5FBDu,
        0x166F58BEu, 0x71E1A5BFu, 0x42A52049u, 0x252BDD48u, 0x8DB8DA4Bu, 0xEA36274Au,
        0xEB31D1A7u, 0x8CBF2CA6u, 0x242C2BA5u, 0x43A2D6A4u, 0x70E65352u, 0x1768AE53u,
        0xBFFBA950u, 0xD8755451u, 0x74F988E6u, 0x137775E7u, 0xBBE472E4u, 0xDC6A8FE5u,
        0xEF2E0A13u, 0x88A0F712u, 0x2033F011u, 0x47BD0D10u, 0x46BAFBFDu, 0x213406FCu,
        0x89A701FFu, 0xEE29FCFEu, 0xDD6D7908u, 0xBAE38409u, 0x1270830Au, 0x75FE7E0Bu,
        0x107F6ED0u, 0x77F193D1u, 0xDF6294D2u, 0xB8EC69D3u, 0x8BA8EC25u, 0xEC261124u,
        0x44B51627u, 0x233BEB26u, 0x223C1DCBu, 0x45B2E0CAu, 0xED21E7C9u, 0x8AAF1AC8u,
        0xB9EB9F3Eu, 0xDE65623Fu, 0x76F6653Cu, 0x1178983Du,
    },
    { /* T[15] */
        0x00000000u, 0xF20C0DFEu, 0xE1F46D0Du, 0x13F860F3u, 0xC604ACEBu, 0x3408A115u,
        0x27F0C1E6u, 0xD5FCCC18u, 0x89E52F27u, 0x7BE922D9u, 0x6811422Au, 0x9A1D4FD4u,
        0x4FE183CCu, 0xBDED8E32u, 0xAE15EEC1u, 0x5C19E33Fu, 0x162628BFu, 0xE42A2541u,
        0xF7D245B2u, 0x05DE484Cu, 0xD0228454u, 0x222E89AAu, 0x31D6E959u, 0xC3DAE4A7u,
        0x9FC30798u, 0x6DCF0A66u, 0x7E376A95u, 0x8C3B676Bu, 0x59C7AB73u, 0xABCBA68Du,
        0xB833C67Eu, 0x4A3FCB80u, 0x2C4C517Eu, 0xDE405C80u, 0xCDB83C73u, 0x3FB4318Du,
        0xEA48FD95u, 0x1844F06Bu, 0x0BBC9098u, 0xF9B09D66u, 0xA5A97E59u, 0x57A573A7u,
        0x445D1354u, 0xB6511EAAu, 0x63ADD2B2u, 0x91A1DF4Cu, 0x8259BFBFu, 0x7055B241u,
        0x3A6A79C1u, 0xC866743Fu, 0xDB9E14CCu, 0x29921932u, 0xFC6ED52Au, 0x0E62D8D4u,
        0x1D9AB827u, 0xEF96B5D9u, 0xB38F56E6u, 0x41835B18u, 0x527B3BEBu, 0xA0773615u,
        0x758BFA0Du, 0x8787F7F3u, 0x947F9700u, 0x66739AFEu, 0x5898A2FCu, 0xAA94AF02u,
        0xB96CCFF1u, 0x4B60C20Fu, 0x9E9C0E17u, 0x6C9003E9u, 0x7F68631Au, 0x8D646EE4u,
        0xD17D8DDBu, 0x23718025u, 0x3089E0D6u, 0xC285ED28u, 0x17792130u, 0xE5752CCEu,
        0xF68D4C3Du, 0x048141C3u, 0x4EBE8A43u, 0xBCB287BDu, 0xAF4AE74Eu, 0x5D46EAB0u,
        0x88BA26A8u, 0x7AB62B56u, 0x694E4BA5u, 0x9B42465Bu, 0xC75BA564u, 0x3557A89Au,
        0x26AFC869u, 0xD4A3C597u, 0x015F098Fu, 0xF3530471u, 0xE0AB6482u, 0x12A7697Cu,
        0x74D4F382u, 0x86D8FE7Cu, 0x95209E8Fu, 0x672C9371u, 0xB2D05F69u, 0x40DC5297u,
        0x53243264u, 0xA1283F9Au, 0xFD31DCA5u, 0x0F3DD15Bu, 0x1CC5B1A8u, 0xEEC9BC56u,
        0x3B35704Eu, 0xC9397DB0u, 0xDAC11D43u, 0x28CD10BDu, 0x62F2DB3Du, 0x90FED6C3u,
        0x8306B630u, 0x710ABBCEu, 0xA4F677D6u, 0x56FA7A28u, 0x45021ADBu, 0xB70E1725u,
        0xEB17F41Au, 0x191BF9E4u, 0x0AE39917u, 0xF8EF94E9u, 0x2D1358F1u, 0xDF1F550Fu,
        0xCCE735FCu, 0x3EEB3802u, 0xB13145F8u, 0x433D4806u, 0x50C528F5u, 0xA2C9250Bu,
        0x7735E913u, 0x8539E4EDu, 0x96C1841Eu, 0x64CD89E0u, 0x38D46ADFu, 0xCAD86721u,
        0xD92007D2u, 0x2B2C0A2Cu, 0xFED0C634u, 0x0CDCCBCAu, 0x1F24AB39u, 0xED28A6C7u,
        0xA7176D47u, 0x551B60B9u, 0x46E3004Au, 0xB4EF0DB4u, 0x6113C1ACu, 0x931FCC52u,
        0x80E7ACA1u, 0x72EBA15Fu, 0x2EF24260u, 0xDCFE4F9Eu, 0xCF062F6Du, 0x3D0A2293u,
        0xE8F6EE8Bu, 0x1AFAE375u, 0x09028386u, 0xFB0E8E78u, 0x9D7D1486u, 0x6F711978u,
        0x7C89798Bu, 0x8E857475u, 0x5B79B86Du, 0xA975B593u, 0xBA8DD560u, 0x4881D89Eu,
        0x14983BA1u, 0xE694365Fu, 0xF56C56ACu, 0x07605B52u, 0xD29C974Au, 0x20909AB4u,
        0x3368FA47u, 0xC164F7B9u, 0x8B5B3C39u, 0x795731C7u, 0x6AAF5134u, 0x98A35CCAu,
        0x4D5F90D2u, 0xBF539D2Cu, 0xACABFDDFu, 0x5EA7F021u, 0x02BE131Eu, 0xF0B21EE0u,
        0xE34A7E13u, 0x114673EDu, 0xC4BABFF5u, 0x36B6B20Bu, 0x254ED2F8u, 0xD742DF06u,
        0xE9A9E704u, 0x1BA5EAFAu, 0x085D8A09u, 0xFA5187F7u, 0x2FAD4BEFu, 0xDDA14611u,
        0xCE5926E2u, 0x3C552B1Cu, 0x604CC823u, 0x9240C5DDu, 0x81B8A52Eu, 0x73B4A8D0u,
        0xA64864C8u, 0x54446936u, 0x47BC09C5u, 0xB5B0043Bu, 0xFF8FCFBBu, 0x0D83C245u,
        0x1E7BA2B6u, 0xEC77AF48u, 0x398B6350u, 0xCB876EAEu, 0xD87F0E5Du, 0x2A7303A3u,
        0x766AE09Cu, 0x8466ED62u, 0x979E8D91u, 0x6592806Fu, 0xB06E4C77u, 0x42624189u,
        0x519A217Au, 0xA3962C84u, 0xC5E5B67Au, 0x37E9BB84u, 0x2411DB77u, 0xD61DD689u,
        0x03E11A91u, 0xF1ED176Fu, 0xE215779Cu, 0x10197A62u, 0x4C00995Du, 0xBE0C94A3u,
        0xADF4F450u, 0x5FF8F9AEu, 0x8A0435B6u, 0x78083848u, 0x6BF058BBu, 0x99FC5545u,
        0xD3C39EC5u, 0x21CF933Bu, 0x3237F3C8u, 0xC03BFE36u, 0x15C7322Eu, 0xE7CB3FD0u,
        0xF4335F23u, 0x063F52DDu, 0x5A26B1E2u, 0xA82ABC1Cu, 0xBBD2DCEFu, 0x49DED111u,
        0x9C221D09u, 0x6E2E10F7u, 0x7DD67004u, 0x8FDA7DFAu,
    },
#endif
};

uint32_t ofl_crc32c_update(uint32_t state, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    uint32_t crc = state;

#if OFL_CRC32C_SLICES >= 16
    while (len >= 16) {
        uint32_t a = ofl_load_le32(p) ^ crc;
        uint32_t b = ofl_load_le32(p + 4);
        uint32_t c = ofl_load_le32(p + 8);
        uint32_t d = ofl_load_le32(p + 12);

        crc = ofl_crc32c_table[15][a & 0xFF] ^
              ofl_crc32c_table[14][(a >> 8) & 0xFF] ^
              ofl_crc32c_table[13][(a >> 16) & 0xFF] ^
              ofl_crc32c_table[12][a >> 24] ^
              ofl_crc32c_table[11][b & 0xFF] ^
              ofl_crc32c_table[10][(b >> 8) & 0xFF] ^
              ofl_crc32c_table[9][(b >> 16) & 0xFF] ^
              ofl_crc32c_table[8][b >> 24] ^
              ofl_crc32c_table[7][c & 0xFF] ^
              ofl_crc32c_table[6][(c >> 8) & 0xFF] ^
              ofl_crc32c_table[5][(c >> 16) & 0xFF] ^
              ofl_crc32c_table[4][c >> 24] ^
              ofl_crc32c_table[3][d & 0xFF] ^
              ofl_crc32c_table[2][(d >> 8) & 0xFF] ^
              ofl_crc32c_table[1][(d >> 16) & 0xFF] ^
              ofl_crc32c_table[0][d >> 24];
        p += 16;
        len -= 16;
    }
#endif
#if OFL_CRC32C_SLICES >= 8
    while (len >= 8) {
        uint32_t a = ofl_load_le32(p) ^ crc;
        uint32_t b = ofl_load_le32(p + 4);

        crc = ofl_crc32c_table[7][a & 0xFF] ^
              ofl_crc32c_table[6][(a >> 8) & 0xFF] ^
              ofl_crc32c_table[5][(a >> 16) & 0xFF] ^
              ofl_crc32c_table[4][a >> 24] ^
              ofl_crc32c_table[3][b & 0xFF] ^
              ofl_crc32c_table[2][(b >> 8) & 0xFF] ^
              ofl_crc32c_table[1][(b >> 16) & 0xFF] ^
              ofl_crc32c_table[0][b >> 24];
        p += 8;
        len -= 8;
    }
#endif
    while (len != 0) {
        crc = (crc >> 8) ^ ofl_crc32c_table[0][(crc ^ *p) & 0xFF];
        p++;
        len--;
    }
    return crc;
}

uint32_t ofl_crc32c(const void *data, size_t len)
{
    return ofl_crc32c_final(ofl_crc32c_update(OFL_CRC32C_INIT, data, len));
}

/* ---- SipHash-2-4 ---------------------------------------------------------- */

#define SIP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound over the state v[4] (the paper, section 2). */
static inline void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = SIP_ROTL(v[1], 13);
    v[1] ^= v[0];
    v[0] = SIP_ROTL(v[0], 32);
    v[2] += v[3];
    v[3] = SIP_ROTL(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = SIP_ROTL(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = SIP_ROTL(v[1], 17);
    v[1] ^= v[2];
    v[2] = SIP_ROTL(v[2], 32);
}

static inline void sip_compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

/* SipHash-2-4 with the key as (k0, k1). */
static uint64_t sip24(uint64_t k0, uint64_t k1, const uint8_t *p, size_t len)
{
    uint64_t v[4], last = 0;
    size_t i, tail = len & 7u;

    v[0] = k0 ^ 0x736f6d6570736575ull; /* "somepseudorandomlygeneratedbytes" */
    v[1] = k1 ^ 0x646f72616e646f6dull;
    v[2] = k0 ^ 0x6c7967656e657261ull;
    v[3] = k1 ^ 0x7465646279746573ull;
    for (i = 0; i + 8u <= len; i += 8)
        sip_compress(v, ofl_load_le64(p + i));
    for (i = tail; i > 0; i--) /* constant shifts only (32-bit targets) */
        last = (last << 8) | p[len - tail + i - 1u];
    sip_compress(v, last | ((uint64_t)(len & 0xFFu) << 56));
    v[2] ^= 0xFFu;
    sip_round(v);
    sip_round(v);
    sip_round(v);
    sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t ofl_siphash24(const uint8_t key[16], const uint8_t *p, size_t len)
{
    return sip24(ofl_load_le64(key), ofl_load_le64(key + 8), p, len);
}

/* ======================================================================== */
/* port                                                                     */
/* ======================================================================== */

/* Size of a version 1 port: every hook up to and including barrier. */
#define OFL_PORT_V1_SIZE \
    (offsetof(struct ofl_port, barrier) + sizeof(((struct ofl_port *)0)->barrier))

/* True when the port was compiled with hook f and filled it in. */
#define OFL_PORT_HAS(p, f)                                            \
    ((p) != NULL &&                                                   \
     (size_t)(p)->size >= offsetof(struct ofl_port, f) + sizeof((p)->f) && \
     (p)->f != NULL)

enum ofl_err ofl_port_check(const struct ofl_port *port)
{
    if (port == NULL)
        return OFL_E_ARG;
    if (port->version == 0 || (size_t)port->size < OFL_PORT_V1_SIZE)
        return OFL_E_PORT_VERSION;
    return OFL_OK;
}

/* An optional port an engine context records: none, or one that passes
 * ofl_port_check (offload.h: the core refuses a port of version 0). */
static OFL_MAYBE_UNUSED enum ofl_err
ofl_port_check_opt(const struct ofl_port *port)
{
    return port == NULL ? OFL_OK : ofl_port_check(port);
}

/* pa + len must not wrap 2^64 (a hostile length must never alias low memory). */
static bool ofl_dma_range_ok(uint64_t pa, size_t len)
{
    return len == 0 || pa <= OFL_U64_MAX - ((uint64_t)len - 1);
}

/* The bodies of ofl_port_dma_read and ofl_port_dma_write, inlined into
 * the qp engine's data-segment DMA (qp_dma_sge, qp_dma_tpt). has: the
 * port has the hook (OFL_PORT_HAS, or what the QP found once). The _in
 * forms are for an access the caller knows holds a byte and does not
 * wrap 2^64 (ofl_dma_range_ok holds): the hook's call only. */
static OFL_HOT_INLINE enum ofl_err port_dma_read_in(const struct ofl_port *port,
                                                    bool has, uint64_t pa,
                                                    void *dst, size_t len)
{
    if (!has)
        return OFL_E_PORT_HOOK;
    return port->dma_read(port->ctx, pa, dst, len) == 0 ? OFL_OK
                                                         : OFL_E_PORT_DMA;
}

static OFL_HOT_INLINE enum ofl_err
port_dma_write_in(const struct ofl_port *port, bool has, uint64_t pa,
                  const void *src, size_t len)
{
    if (!has)
        return OFL_E_PORT_HOOK;
    return port->dma_write(port->ctx, pa, src, len) == 0 ? OFL_OK
                                                          : OFL_E_PORT_DMA;
}

static OFL_HOT_INLINE enum ofl_err port_dma_read_has(const struct ofl_port *port,
                                                     bool has, uint64_t pa,
                                                     void *dst, size_t len)
{
    return !has ? OFL_E_PORT_HOOK
           : !ofl_dma_range_ok(pa, len) ? OFL_E_DMA_RANGE
           : len == 0 ? OFL_OK
           : port_dma_read_in(port, true, pa, dst, len);
}

static OFL_HOT_INLINE enum ofl_err
port_dma_write_has(const struct ofl_port *port, bool has, uint64_t pa,
                   const void *src, size_t len)
{
    return !has ? OFL_E_PORT_HOOK
           : !ofl_dma_range_ok(pa, len) ? OFL_E_DMA_RANGE
           : len == 0 ? OFL_OK
           : port_dma_write_in(port, true, pa, src, len);
}

static OFL_HOT_INLINE enum ofl_err port_dma_read(const struct ofl_port *port,
                                                 uint64_t pa, void *dst,
                                                 size_t len)
{
    return port_dma_read_has(port, OFL_PORT_HAS(port, dma_read), pa, dst,
                             len);
}

static OFL_HOT_INLINE enum ofl_err
port_dma_write(const struct ofl_port *port, uint64_t pa, const void *src,
               size_t len)
{
    return port_dma_write_has(port, OFL_PORT_HAS(port, dma_write), pa, src,
                              len);
}

#if OFL_FAST_PATH
/* The fused hooks (offload.h: dma_read_crc32c, dma_write_crc32c), for the
 * qp engine's payload only, which checked that the port has the one it
 * calls (qp_tx_fuse_open, qp_rx_fusable). Errors as port_dma_read; the
 * register moves only on success. A size build never calls them. */
static OFL_HOT_INLINE enum ofl_err port_dma_read_crc(const struct ofl_port *port,
                                                     uint64_t pa, void *dst,
                                                     size_t len,
                                                     uint32_t *state)
{
    if (!ofl_dma_range_ok(pa, len))
        return OFL_E_DMA_RANGE;
    if (len == 0)
        return OFL_OK;
    return port->dma_read_crc32c(port->ctx, pa, dst, len, state) == 0
               ? OFL_OK
               : OFL_E_PORT_DMA;
}

static OFL_HOT_INLINE enum ofl_err
port_dma_write_crc(const struct ofl_port *port, uint64_t pa, const void *src,
                   size_t len, uint32_t *state)
{
    if (!ofl_dma_range_ok(pa, len))
        return OFL_E_DMA_RANGE;
    if (len == 0)
        return OFL_OK;
    return port->dma_write_crc32c(port->ctx, pa, src, len, state) == 0
               ? OFL_OK
               : OFL_E_PORT_DMA;
}
#endif

enum ofl_err ofl_port_dma_read(const struct ofl_port *port, uint64_t pa,
                               void *dst, size_t len)
{
    return port_dma_read(port, pa, dst, len);
}

enum ofl_err ofl_port_dma_write(const struct ofl_port *port, uint64_t pa,
                                const void *src, size_t len)
{
    return port_dma_write(port, pa, src, len);
}

enum ofl_err ofl_port_doorbell(const struct ofl_port *port, uint32_t db,
                               uint32_t value)
{
    if (!OFL_PORT_HAS(port, doorbell))
        return OFL_E_PORT_HOOK;
    port->doorbell(port->ctx, db, value);
    return OFL_OK;
}

enum ofl_err ofl_port_notify(const struct ofl_port *port, uint32_t vector)
{
    if (!OFL_PORT_HAS(port, notify))
        return OFL_E_PORT_HOOK;
    port->notify(port->ctx, vector);
    return OFL_OK;
}

/* PCI configuration accesses are 1, 2 or 4 bytes wide and naturally aligned. */
static bool ofl_pci_width_ok(uint32_t offset, uint32_t width)
{
    return (width == 1 || width == 2 || width == 4) && (offset & (width - 1)) == 0;
}

enum ofl_err ofl_port_pci_read(const struct ofl_port *port, uint32_t offset,
                               uint32_t width, uint32_t *value)
{
    uint32_t v = 0;

    if (value == NULL || !ofl_pci_width_ok(offset, width))
        return OFL_E_ARG;
    if (!OFL_PORT_HAS(port, pci_cfg_read))
        return OFL_E_PORT_HOOK;
    if (port->pci_cfg_read(port->ctx, offset, width, &v) != 0)
        return OFL_E_PORT_PCI;
    /* A port must not hand back bits beyond the width it was asked for. */
    *value = width == 4 ? v : (v & ((1u << (8 * width)) - 1));
    return OFL_OK;
}

enum ofl_err ofl_port_pci_write(const struct ofl_port *port, uint32_t offset,
                                uint32_t width, uint32_t value)
{
    if (!ofl_pci_width_ok(offset, width))
        return OFL_E_ARG;
    if (width != 4 && (value >> (8 * width)) != 0)
        return OFL_E_ARG;
    if (!OFL_PORT_HAS(port, pci_cfg_write))
        return OFL_E_PORT_HOOK;
    return port->pci_cfg_write(port->ctx, offset, width, value) == 0
               ? OFL_OK
               : OFL_E_PORT_PCI;
}

/*
 * The CRC of an MPA stream through its port's crc32c hook. A speed build
 * looks at the hook once, when the stream starts (ofl_mpa_tx_init,
 * ofl_mpa_rx_init, ofl_mpa_fpdu_verify keep port_crc_port's answer: the
 * port when it has the hook, else NULL), and each FPDU's CRC calls what
 * it found (port_crc_call; issue 30, "port hooks checked once"); a size
 * build keeps the port and asks it each time (ofl_port_crc32c), as
 * ofl_port_barrier. struct ofl_port: set the hook before.
 */
#if OFL_FAST_PATH
static const struct ofl_port *port_crc_port(const struct ofl_port *port)
{
    return OFL_PORT_HAS(port, crc32c) ? port : NULL;
}

/* The CRC register over n bytes, n not 0, through cp, port_crc_port's
 * answer: for the fast paths' FPDUs, whose bytes before the CRC are never
 * none (the MPA header), without port_crc_call's test of n (issue 30: 1
 * instruction a received FPDU with clang). */
static OFL_HOT_INLINE uint32_t port_crc_call_some(const struct ofl_port *cp,
                                                  uint32_t state,
                                                  const void *p, size_t n)
{
    if (cp != NULL)
        return cp->crc32c(cp->ctx, state, p, n);
    return ofl_crc32c_update(state, p, n);
}

/* The CRC register over n bytes through cp, port_crc_port's answer. */
static OFL_HOT_INLINE uint32_t port_crc_call(const struct ofl_port *cp,
                                             uint32_t state, const void *p,
                                             size_t n)
{
    if (n == 0)
        return state;
    return port_crc_call_some(cp, state, p, n);
}

uint32_t ofl_port_crc32c(const struct ofl_port *port, uint32_t state,
                         const void *data, size_t len)
{
    return port_crc_call(port_crc_port(port), state, data, len);
}
#else
uint32_t ofl_port_crc32c(const struct ofl_port *port, uint32_t state,
                         const void *data, size_t len)
{
    if (OFL_PORT_HAS(port, crc32c))
        return port->crc32c(port->ctx, state, data, len);
    return ofl_crc32c_update(state, data, len);
}

#define port_crc_port(port) (port)

/* (unused in a build without the wire section) */
static OFL_MAYBE_UNUSED uint32_t port_crc_call(const struct ofl_port *port,
                                               uint32_t state, const void *p,
                                               size_t n)
{
    return n == 0 ? state : ofl_port_crc32c(port, state, p, n);
}
#endif

/* The finished CRC32c of data[0 .. len) through port's hook (the portable
 * one without): the whole-buffer CRCs of the ap and pp frames. */
static inline uint32_t port_crc32c_buf(const struct ofl_port *port,
                                       const void *data, size_t len)
{
    return ofl_crc32c_final(ofl_port_crc32c(port, OFL_CRC32C_INIT, data, len));
}

void ofl_port_barrier(const struct ofl_port *port, enum ofl_barrier kind)
{
    if (OFL_PORT_HAS(port, barrier))
        port->barrier(port->ctx, kind);
}

/*
 * The port's barrier and doorbell on the qp engine's per-message paths,
 * and its dma_read and dma_write for a QP's payload (issue 30: "port
 * hooks checked once"). A speed build looks at the port once, when a CQ
 * is initialised or a QP created, keeps what it found as PORT_HOOK_* bits
 * (port_hooks: cq->hooks, qp->hooks), and then calls a hook directly or
 * not at all (HOOK_BARRIER, HOOK_DOORBELL, qp_port_read, qp_port_write);
 * a size build asks the port each time (ofl_port_barrier,
 * ofl_port_doorbell, port_dma_read, port_dma_write). offload.h, struct
 * ofl_port, says the hooks are set before.
 */
#define PORT_HOOK_BARRIER 0x1u
#define PORT_HOOK_DOORBELL 0x2u
#define PORT_HOOK_DMA_READ 0x4u  /* the qp engine's payload DMA */
#define PORT_HOOK_DMA_WRITE 0x8u /* (qp_port_read, qp_port_write) */
#if OFL_FAST_PATH
static uint8_t port_hooks(const struct ofl_port *port)
{
    return (uint8_t)((OFL_PORT_HAS(port, barrier) ? PORT_HOOK_BARRIER : 0u) |
                     (OFL_PORT_HAS(port, doorbell) ? PORT_HOOK_DOORBELL : 0u) |
                     (OFL_PORT_HAS(port, dma_read) ? PORT_HOOK_DMA_READ : 0u) |
                     (OFL_PORT_HAS(port, dma_write) ? PORT_HOOK_DMA_WRITE
                                                    : 0u));
}

#define HOOK_BARRIER(hooks, port, kind)                                 \
    do {                                                                \
        if ((hooks) & PORT_HOOK_BARRIER)                                \
            (port)->barrier((port)->ctx, (kind));                       \
    } while (0)
#define HOOK_DOORBELL(hooks, port, db, value)                           \
    do {                                                                \
        if ((hooks) & PORT_HOOK_DOORBELL)                               \
            (port)->doorbell((port)->ctx, (db), (value));               \
    } while (0)
#else
#define HOOK_BARRIER(hooks, port, kind) ofl_port_barrier((port), (kind))
#define HOOK_DOORBELL(hooks, port, db, value)                           \
    (void)ofl_port_doorbell((port), (db), (value))
#endif

/* ======================================================================== */
/* tpt                                                                      */
/* ======================================================================== */
#if OFL_ENABLE_TPT

#define TPT_DESC_FLAGS \
    (OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT | OFL_TPT_F_ZERO_BASED | \
     OFL_TPT_F_INVALIDATABLE)
#define TPT_BIND_FLAGS (OFL_TPT_F_ONE_TOUCH | OFL_TPT_F_ONE_SHOT)
#define TPT_PIECE_MAX 0x80000000u /* largest merged translation piece */

/* Returns the entry an STag's Tag_Index names, or NULL (index 0 is reserved). */
static struct ofl_tpt_entry *tpt_slot(const struct ofl_tpt *tpt, uint32_t stag)
{
    uint32_t index = ofl_stag_index(stag);

    if (tpt == NULL || index == 0 || index >= tpt->capacity)
        return NULL;
    return &tpt->entry[index];
}

/* Finds the allocated entry an STag names, checking its key. */
static enum ofl_err tpt_find(const struct ofl_tpt *tpt, uint32_t stag,
                             struct ofl_tpt_entry **out)
{
    struct ofl_tpt_entry *e;

    if (tpt == NULL)
        return OFL_E_ARG;
    e = tpt_slot(tpt, stag);
    if (e == NULL || e->state == OFL_TPT_FREE)
        return OFL_E_TPT_INVALID_STAG;
    if (e->key != ofl_stag_key(stag))
        return OFL_E_TPT_KEY_MISMATCH;
    *out = e;
    return OFL_OK;
}

/* Finds a VALID entry. */
static enum ofl_err tpt_find_valid(const struct ofl_tpt *tpt, uint32_t stag,
                                   struct ofl_tpt_entry **out)
{
    enum ofl_err err = tpt_find(tpt, stag, out);

    if (err == OFL_OK && (*out)->state != OFL_TPT_VALID)
        err = OFL_E_TPT_NOT_VALID;
    return err;
}

/* The TO of an entry's first byte: 0 when zero-based. */
static uint64_t tpt_base(const struct ofl_tpt_entry *e)
{
    return (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
}

/*
 * Is [to, to + len) inside [base, base + size)? A TO whose last byte lies
 * beyond 2^64 - 1 is a TO wrap (RFC 5040 §7.2), checked before the bounds so
 * that no sum below can overflow.
 */
static enum ofl_err tpt_range(uint64_t base, uint64_t size, uint64_t to,
                              uint64_t len)
{
    uint64_t off;

    if (len != 0 && to > OFL_U64_MAX - (len - 1))
        return OFL_E_TPT_TO_WRAP;
    if (to < base)
        return OFL_E_TPT_BOUNDS;
    off = to - base;
    if (off > size || len > size - off)
        return OFL_E_TPT_BOUNDS;
    return OFL_OK;
}

/* The live region a window is bound to, or NULL when that region died. */
static const struct ofl_tpt_entry *tpt_window_region(const struct ofl_tpt *tpt,
                                                     const struct ofl_tpt_entry *w)
{
    const struct ofl_tpt_entry *r;

    if (w->region == 0 || w->region >= tpt->capacity)
        return NULL;
    r = &tpt->entry[w->region];
    /* The PD compare holds at bind (FIG. 15 c under the window's PD); it
     * stays here so that a generation that came round after 2^32 changes
     * (32 bits) cannot hand the window another PD's registration. */
    if (r->type != OFL_TPT_REGION || r->state != OFL_TPT_VALID ||
        r->gen != w->region_gen || r->pd != w->pd)
        return NULL;
    return r;
}

/* Clears an entry's translation fields, keeping key, generation and state. */
static void tpt_clear_translation(struct ofl_tpt_entry *e)
{
    e->va = 0;
    e->len = 0;
    e->stored_sn = 0;
    e->att_base = 0;
    e->att_count = 0;
    e->fpo = 0;
    e->region = 0;
    e->region_gen = 0;
    e->qp = 0;
    e->access = 0;
    e->flags &= OFL_TPT_F_TYPE2;
    e->att_kind = OFL_TPT_ATT_DIRECT;
    e->page_shift = OFL_TPT_PAGE_SHIFT_MIN;
}

/* Makes an entry INVALID; a region's generation moves so its windows die. */
static void tpt_make_invalid(struct ofl_tpt_entry *e)
{
    e->state = OFL_TPT_INVALID;
    e->flags &= (uint8_t)~OFL_TPT_F_TOUCHED;
    if (e->type != OFL_TPT_WINDOW)
        e->gen++;
}

/* With an owner table, the slots entry e gives up (those of its
 * registration outside [keep, keep + keep_n)) lose their page words and
 * their owner: a later registration over FREE slots (the verbs, or a
 * FAST_REG with no physical buffers) must not find the departed region's
 * pages there. O(e->att_count). */
static void tpt_att_release(struct ofl_tpt *tpt, const struct ofl_tpt_entry *e,
                            uint32_t keep, uint32_t keep_n)
{
    uint32_t index = (uint32_t)(e - tpt->entry), i;

    if (tpt->att_owner == NULL || e->type == OFL_TPT_WINDOW || !e->registered)
        return;
    for (i = 0; i < e->att_count; i++) {
        uint32_t s = e->att_base + i;

        if (s - keep >= keep_n && tpt->att_owner[s] == index) {
            tpt->att[s] = 0;
            tpt->att_owner[s] = 0;
        }
    }
}

static void tpt_push_free(struct ofl_tpt *tpt, struct ofl_tpt_entry *e)
{
    uint32_t index = (uint32_t)(e - tpt->entry);

    tpt_att_release(tpt, e, 0, 0);
    if (e->type != OFL_TPT_WINDOW)
        e->gen++;
    tpt_clear_translation(e);
    e->flags = 0;
    e->state = OFL_TPT_FREE;
    e->pd = 0;
    e->next_free = tpt->free_head;
    tpt->free_head = index;
    tpt->free_count++;
}

enum ofl_err ofl_tpt_init(struct ofl_tpt *tpt, struct ofl_tpt_entry *entries,
                          uint32_t capacity, uint64_t *att,
                          uint32_t att_capacity, const struct ofl_port *port,
                          enum ofl_tpt_policy policy)
{
    uint32_t i;

    if (tpt == NULL || entries == NULL || capacity < 2 ||
        capacity > OFL_TPT_MAX_ENTRIES || (att == NULL && att_capacity != 0) ||
        (policy != OFL_TPT_POLICY_STANDARD &&
         policy != OFL_TPT_POLICY_WINDOWS_ONLY))
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(entries, 0, (size_t)capacity * sizeof(entries[0]));
    tpt->entry = entries;
    tpt->capacity = capacity;
    tpt->att = att;
    tpt->att_capacity = att_capacity;
    tpt->port = port;
    tpt->att_owner = NULL;
    tpt->policy = (uint8_t)policy;
    /* Free list in ascending index order; index 0 is never on it. */
    for (i = 1; i < capacity; i++) {
        entries[i].page_shift = OFL_TPT_PAGE_SHIFT_MIN;
        entries[i].next_free = (i + 1 < capacity) ? i + 1 : 0;
    }
    entries[0].page_shift = OFL_TPT_PAGE_SHIFT_MIN;
    tpt->free_head = 1;
    tpt->free_count = capacity - 1;
    return OFL_OK;
}

enum ofl_err ofl_tpt_alloc(struct ofl_tpt *tpt, enum ofl_tpt_type type,
                           uint32_t pd, uint8_t flags, uint32_t *stag)
{
    struct ofl_tpt_entry *e;
    uint32_t index;

    if (tpt == NULL || stag == NULL ||
        (type != OFL_TPT_REGION && type != OFL_TPT_WINDOW &&
         type != OFL_TPT_ISCSI) ||
        (flags & ~(uint8_t)OFL_TPT_F_TYPE2) != 0 ||
        ((flags & OFL_TPT_F_TYPE2) && type != OFL_TPT_WINDOW))
        return OFL_E_ARG;
    index = tpt->free_head;
    if (index == 0 || index >= tpt->capacity)
        return OFL_E_TPT_FULL;
    e = &tpt->entry[index];
    tpt->free_head = e->next_free;
    tpt->free_count--;
    e->next_free = 0;
    tpt_clear_translation(e);
    e->key = (uint8_t)(e->key + 1); /* a stale STag of this index now fails */
    e->registered = 0;
    e->type = (uint8_t)type;
    e->flags = flags;
    e->pd = pd;
    e->state = OFL_TPT_INVALID;
    *stag = ofl_stag_make(index, e->key);
    return OFL_OK;
}

enum ofl_err ofl_tpt_dealloc(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (e->type != OFL_TPT_WINDOW && e->state == OFL_TPT_VALID)
        return OFL_E_TPT_BUSY;
    tpt_push_free(tpt, e);
    return OFL_OK;
}

/* A page word: present bit, reserved bits zero, address aligned to psize. */
static bool tpt_page_word_ok(uint64_t word, uint32_t page_shift)
{
    uint64_t mask = ((uint64_t)1 << page_shift) - 1;

    return (word & OFL_TPT_ATT_RESERVED) == 0 &&
           ((word & ~(uint64_t)OFL_TPT_ATT_PRESENT) & mask) == 0;
}

enum ofl_err ofl_tpt_att_write(struct ofl_tpt *tpt, uint32_t base,
                               const uint64_t *words, uint32_t n)
{
    uint32_t i;

    if (tpt == NULL || (words == NULL && n != 0))
        return OFL_E_ARG;
    if (n > tpt->att_capacity || base > tpt->att_capacity - n)
        return OFL_E_TPT_ATT_RANGE;
    for (i = 0; i < n; i++)
        if ((words[i] & OFL_TPT_ATT_RESERVED) != 0)
            return OFL_E_TPT_ATT_CORRUPT;
    for (i = 0; i < n; i++)
        tpt->att[base + i] = words[i];
    return OFL_OK;
}

/* Pages an ATT of this kind and slot count can describe. */
static uint64_t tpt_att_pages(uint32_t att_count, uint8_t att_kind)
{
    return (uint64_t)att_count << (OFL_TPT_ATT_LIST_SHIFT * att_kind);
}

/* Does entry o own ATT slot s? (See the owner table in offload.h: o
 * registered s last, is allocated, and its registration's slots hold s.) */
static bool tpt_att_held(const struct ofl_tpt *tpt, uint32_t o, uint32_t s)
{
    const struct ofl_tpt_entry *e;

    if (o == 0 || o >= tpt->capacity)
        return false;
    e = &tpt->entry[o];
    return e->state != OFL_TPT_FREE && e->type != OFL_TPT_WINDOW &&
           s - e->att_base < e->att_count;
}

/* OFL_E_TPT_ATT_OWNED when an entry other than self (0: a new entry) owns
 * any of the n slots from base, which lie inside the ATT. O(n). */
static enum ofl_err tpt_att_owner_check(const struct ofl_tpt *tpt,
                                        uint32_t base, uint32_t n,
                                        uint32_t self)
{
    uint32_t i;

    if (tpt->att_owner == NULL)
        return OFL_OK;
    for (i = 0; i < n; i++) {
        uint32_t o = tpt->att_owner[base + i];

        if (o != self && tpt_att_held(tpt, o, base + i))
            return OFL_E_TPT_ATT_OWNED;
    }
    return OFL_OK;
}

/* Checks a registration descriptor against the table (no state changes):
 * self is the registering entry's Tag_Index, 0 for one not yet allocated. */
static enum ofl_err tpt_desc_check(const struct ofl_tpt *tpt,
                                   const struct ofl_tpt_region_desc *d,
                                   enum ofl_tpt_type type, uint32_t self)
{
    uint64_t pages;
    /* An iSCSI entry without data (len 0, no ATT, fpo 0): a command with no
     * data buffers still needs its ITT, so that its SCSI Response finds the
     * command (FIG. 17A step 1768). No access can reach a byte of it. */
    bool no_data = type == OFL_TPT_ISCSI && d->len == 0 && d->att_count == 0 &&
                   d->fpo == 0;

    if (d->page_shift < OFL_TPT_PAGE_SHIFT_MIN ||
        d->page_shift > OFL_TPT_PAGE_SHIFT_MAX ||
        d->fpo >= ((uint32_t)1 << d->page_shift) ||
        (d->len == 0 && !no_data) || d->att_kind > OFL_TPT_ATT_INDIRECT2 ||
        (d->att_count == 0 && !no_data) ||
        (d->access & ~OFL_TPT_ACCESS_ALL) != 0 ||
        (d->flags & ~TPT_DESC_FLAGS) != 0)
        return OFL_E_TPT_BAD_DESC;
    /* The last byte's VA must exist (a zero-based or iSCSI entry has none). */
    if (type == OFL_TPT_REGION && !(d->flags & OFL_TPT_F_ZERO_BASED) &&
        d->va > OFL_U64_MAX - (d->len - 1))
        return OFL_E_TPT_BAD_DESC;
    if (d->len > OFL_U64_MAX - d->fpo)
        return OFL_E_TPT_BAD_DESC;
    /* The ATT slots (none read for an entry without data): inside the ATT,
     * and fpo + len bytes fit in the pages they describe. */
    if (!no_data) {
        if (d->att_count > tpt->att_capacity ||
            d->att_base > tpt->att_capacity - d->att_count)
            return OFL_E_TPT_ATT_RANGE;
        pages = ((d->fpo + d->len - 1) >> d->page_shift) + 1;
        if (pages > tpt_att_pages(d->att_count, d->att_kind))
            return OFL_E_TPT_ATT_RANGE;
        if (tpt_att_owner_check(tpt, d->att_base, d->att_count, self) !=
            OFL_OK)
            return OFL_E_TPT_ATT_OWNED;
    }
    /* IB/iWARP rule: remote write and atomic need local write. */
    if ((d->access & (OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC)) &&
        !(d->access & OFL_TPT_LOCAL_WRITE))
        return OFL_E_TPT_ACCESS_COMBO;
    return OFL_OK;
}

/* Fills a checked descriptor into an INVALID entry and makes it VALID; with
 * an owner table the entry now owns its slots. */
static void tpt_apply_desc(struct ofl_tpt *tpt, struct ofl_tpt_entry *e,
                           const struct ofl_tpt_region_desc *d)
{
    uint32_t i;

    if (tpt->att_owner != NULL) {
        tpt_att_release(tpt, e, d->att_base, d->att_count);
        for (i = 0; i < d->att_count; i++)
            tpt->att_owner[d->att_base + i] = (uint32_t)(e - tpt->entry);
    }
    tpt_clear_translation(e);
    e->va = d->va;
    e->len = d->len;
    e->att_base = d->att_base;
    e->att_count = d->att_count;
    e->fpo = d->fpo;
    e->page_shift = d->page_shift;
    e->att_kind = d->att_kind;
    e->access = d->access;
    /* Verbs (ibv_reg_mr(3)): "Local read access is always enabled for the
     * MR". */
    if (e->type == OFL_TPT_REGION)
        e->access |= OFL_TPT_LOCAL_READ;
    e->flags = d->flags;
    if (e->type == OFL_TPT_ISCSI) {
        e->flags |= OFL_TPT_F_ZERO_BASED; /* FIG. 15: iSCSI regions are
                                             zero-based */
        e->qp = OFL_TPT_QP_NONE; /* ofl_tpt_register_iscsi names its QP */
    }
    e->registered = 1;
    e->gen++;
    e->state = OFL_TPT_VALID;
}

enum ofl_err ofl_tpt_register_check(const struct ofl_tpt *tpt, uint32_t stag,
                                    uint32_t pd,
                                    const struct ofl_tpt_region_desc *desc)
{
    const struct ofl_tpt_entry *e;

    if (tpt == NULL || desc == NULL)
        return OFL_E_ARG;
    e = tpt_slot(tpt, stag);
    if (e == NULL || e->state == OFL_TPT_FREE)
        return OFL_E_TPT_INVALID_STAG;
    if (e->state != OFL_TPT_INVALID || !e->registered) {
        /* A VALID entry, or the first registration: the STag alloc gave. */
        if (e->key != ofl_stag_key(stag))
            return OFL_E_TPT_KEY_MISMATCH;
    } else if (e->key == ofl_stag_key(stag)) {
        return OFL_E_TPT_KEY_REUSED; /* re-registration: a new key */
    }
    if (e->type == OFL_TPT_WINDOW)
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (e->state != OFL_TPT_INVALID)
        return OFL_E_TPT_BUSY;
    return tpt_desc_check(tpt, desc, (enum ofl_tpt_type)e->type,
                          ofl_stag_index(stag));
}

enum ofl_err ofl_tpt_register(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                              const struct ofl_tpt_region_desc *desc)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = ofl_tpt_register_check(tpt, stag, pd, desc);

    if (err != OFL_OK)
        return err;
    e = tpt_slot(tpt, stag);
    e->key = ofl_stag_key(stag);
    tpt_apply_desc(tpt, e, desc);
    return OFL_OK;
}

enum ofl_err ofl_tpt_register_iscsi_check(const struct ofl_tpt *tpt,
                                          uint32_t stag, uint32_t pd,
                                          uint32_t qp,
                                          const struct ofl_tpt_region_desc *desc)
{
    enum ofl_err err;

    if (qp == OFL_TPT_QP_NONE)
        return OFL_E_ARG;
    err = ofl_tpt_register_check(tpt, stag, pd, desc);
    if (err != OFL_OK)
        return err;
    if (tpt_slot(tpt, stag)->type != OFL_TPT_ISCSI)
        return OFL_E_TPT_WRONG_TYPE;
    return OFL_OK;
}

enum ofl_err ofl_tpt_register_iscsi(struct ofl_tpt *tpt, uint32_t stag,
                                    uint32_t pd, uint32_t qp,
                                    const struct ofl_tpt_region_desc *desc)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err;

    err = ofl_tpt_register_iscsi_check(tpt, stag, pd, qp, desc);
    if (err != OFL_OK)
        return err;
    e = tpt_slot(tpt, stag);
    e->key = ofl_stag_key(stag);
    tpt_apply_desc(tpt, e, desc);
    e->qp = qp; /* its ITT names a task of this QP only */
    return OFL_OK;
}

/* Allocates a region and registers d; the caller wrote the ATT already. */
static enum ofl_err tpt_alloc_register(struct ofl_tpt *tpt, uint32_t pd,
                                       const struct ofl_tpt_region_desc *d,
                                       uint32_t *stag)
{
    uint32_t s;
    enum ofl_err err = ofl_tpt_alloc(tpt, OFL_TPT_REGION, pd, 0, &s);

    if (err != OFL_OK)
        return err;
    tpt_apply_desc(tpt, &tpt->entry[ofl_stag_index(s)], d);
    *stag = s;
    return OFL_OK;
}

enum ofl_err ofl_tpt_reg_pages(struct ofl_tpt *tpt, uint32_t pd,
                               const struct ofl_tpt_region_desc *desc,
                               const uint64_t *pages, uint32_t n,
                               uint32_t *stag)
{
    struct ofl_tpt_region_desc d;
    enum ofl_err err;
    uint32_t i;

    if (tpt == NULL || desc == NULL || pages == NULL || stag == NULL || n == 0)
        return OFL_E_ARG;
    /* Not d = *desc: GCC may copy a struct through a libc call at RV64 -Os. */
    ofl_copy(&d, desc, sizeof(d));
    d.att_count = n;
    d.att_kind = OFL_TPT_ATT_DIRECT;
    err = tpt_desc_check(tpt, &d, OFL_TPT_REGION, 0);
    if (err != OFL_OK)
        return err;
    for (i = 0; i < n; i++)
        if (!tpt_page_word_ok(pages[i], d.page_shift) ||
            (pages[i] & OFL_TPT_ATT_PRESENT))
            return OFL_E_TPT_BAD_DESC;
    if (tpt->free_count == 0)
        return OFL_E_TPT_FULL;
    for (i = 0; i < n; i++)
        tpt->att[d.att_base + i] = pages[i] | OFL_TPT_ATT_PRESENT;
    return tpt_alloc_register(tpt, pd, &d, stag);
}

enum ofl_err ofl_tpt_reg_physical(struct ofl_tpt *tpt, uint32_t pd,
                                  uint8_t access, uint32_t *stag)
{
    struct ofl_tpt_entry *e;
    uint32_t s;
    enum ofl_err err;

    if (tpt == NULL || stag == NULL)
        return OFL_E_ARG;
    if ((access & ~OFL_TPT_ACCESS_ALL) != 0)
        return OFL_E_TPT_BAD_DESC;
    /* Local rights only: remote rights over all of memory would let a
     * peer name any byte (see the header). */
    if ((access & (OFL_TPT_ACCESS_REMOTE | OFL_TPT_BIND_WINDOW)) != 0)
        return OFL_E_TPT_ACCESS_COMBO;
    err = ofl_tpt_alloc(tpt, OFL_TPT_REGION, pd, 0, &s);
    if (err != OFL_OK)
        return err;
    e = &tpt->entry[ofl_stag_index(s)];
    tpt_clear_translation(e); /* no ATT slots: none owned, none read */
    e->va = 0;
    e->len = OFL_U64_MAX; /* TOs 0 .. 2^64 - 2: the last byte's TO exists */
    e->att_kind = OFL_TPT_ATT_PHYSICAL;
    e->access = (uint8_t)(access | OFL_TPT_LOCAL_READ);
    e->flags = 0;
    e->registered = 1;
    e->gen++;
    e->state = OFL_TPT_VALID;
    *stag = s;
    return OFL_OK;
}

/* Pages a physical buffer [pa, pa + len) touches at this page size. */
static uint64_t tpt_buf_pages(uint64_t pa, uint64_t len, uint32_t shift)
{
    uint64_t first = pa >> shift;
    uint64_t last = (pa + len - 1) >> shift;

    return last - first + 1;
}

enum ofl_err ofl_tpt_reg_phys(struct ofl_tpt *tpt, uint32_t pd,
                              const struct ofl_tpt_region_desc *desc,
                              const struct ofl_tpt_pbuf *bufs, uint32_t n,
                              uint32_t *stag)
{
    struct ofl_tpt_region_desc d;
    uint64_t total = 0, pages = 0, mask;
    uint32_t i, slot;
    enum ofl_err err;

    if (tpt == NULL || desc == NULL || bufs == NULL || stag == NULL || n == 0)
        return OFL_E_ARG;
    if (desc->page_shift < OFL_TPT_PAGE_SHIFT_MIN ||
        desc->page_shift > OFL_TPT_PAGE_SHIFT_MAX)
        return OFL_E_TPT_BAD_DESC;
    mask = ((uint64_t)1 << desc->page_shift) - 1;
    /* Pass 1: check every buffer and count pages; nothing is written. */
    for (i = 0; i < n; i++) {
        uint64_t pa = bufs[i].pa, len = bufs[i].len;

        if (len == 0 || pa > OFL_U64_MAX - (len - 1) ||
            len > OFL_U64_MAX - total)
            return OFL_E_TPT_BAD_DESC;
        if (i > 0 && (pa & mask) != 0)
            return OFL_E_TPT_BAD_DESC; /* only the first may start mid-page */
        if (i + 1 < n && ((pa + len) & mask) != 0)
            return OFL_E_TPT_BAD_DESC; /* only the last may end mid-page */
        total += len;
        pages += tpt_buf_pages(pa, len, desc->page_shift);
        if (pages > tpt->att_capacity)
            return OFL_E_TPT_ATT_RANGE;
    }
    ofl_copy(&d, desc, sizeof(d));
    d.len = total;
    d.fpo = (uint32_t)(bufs[0].pa & mask);
    d.att_count = (uint32_t)pages;
    d.att_kind = OFL_TPT_ATT_DIRECT;
    err = tpt_desc_check(tpt, &d, OFL_TPT_REGION, 0);
    if (err != OFL_OK)
        return err;
    if (tpt->free_count == 0)
        return OFL_E_TPT_FULL;
    /* Pass 2: write the page words (bounded by pages <= att_capacity). */
    slot = d.att_base;
    for (i = 0; i < n; i++) {
        uint64_t page = bufs[i].pa & ~mask;
        uint64_t count = tpt_buf_pages(bufs[i].pa, bufs[i].len, d.page_shift);

        while (count-- != 0) {
            tpt->att[slot++] = page | OFL_TPT_ATT_PRESENT;
            page += mask + 1;
        }
    }
    return tpt_alloc_register(tpt, pd, &d, stag);
}

enum ofl_err ofl_tpt_dereg(struct ofl_tpt *tpt, uint32_t stag, uint32_t pd)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (e->type == OFL_TPT_WINDOW)
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    tpt_push_free(tpt, e); /* bumps the generation: its windows die */
    return OFL_OK;
}

/* ---- ATT slot pool and owners ------------------------------------------ */

/* Bits [s, s + n) of map (n >= 1) as a sequence of per-word masks: calls
 * are bounded by n / 32 + 2 words. */
static uint32_t tpt_bits_mask(uint32_t s, uint32_t n, uint32_t *word,
                              uint32_t *taken)
{
    uint32_t bit = s & 31u, k = 32u - bit;

    if (k > n)
        k = n;
    *word = s >> 5;
    *taken = k;
    /* k <= 32; ">=" rather than "==" so that a path-insensitive reading
     * (clang --analyze) sees no shift of 32 or more either. */
    return (k >= 32u ? 0xFFFFFFFFu : ((1u << k) - 1u)) << bit;
}

/* Are bits [s, s + n) of map all set (want true) / all clear (false)? */
static bool tpt_bits_all(const uint32_t *map, uint32_t s, uint32_t n,
                         bool want)
{
    while (n != 0) {
        uint32_t w, k, m = tpt_bits_mask(s, n, &w, &k);

        if ((map[w] & m) != (want ? m : 0u))
            return false;
        s += k;
        n -= k;
    }
    return true;
}

/* Sets (on) or clears bits [s, s + n) of map. */
static void tpt_bits_set(uint32_t *map, uint32_t s, uint32_t n, bool on)
{
    while (n != 0) {
        uint32_t w, k, m = tpt_bits_mask(s, n, &w, &k);

        map[w] = on ? map[w] | m : map[w] & ~m;
        s += k;
        n -= k;
    }
}

static bool tpt_bit(const uint32_t *map, uint32_t s)
{
    return (map[s >> 5] >> (s & 31u)) & 1u;
}

enum ofl_err ofl_tpt_att_pool_init(struct ofl_tpt_att_pool *pool,
                                   uint32_t *map, uint32_t words,
                                   uint32_t slots)
{
    if (pool == NULL || map == NULL || slots == 0 ||
        slots > OFL_TPT_ATT_POOL_MAX || words < OFL_TPT_ATT_POOL_WORDS(slots))
        return OFL_E_ARG;
    ofl_fill(map, 0, (size_t)OFL_TPT_ATT_POOL_WORDS(slots) * sizeof(map[0]));
    pool->map = map;
    pool->slots = slots;
    pool->free = slots;
    return OFL_OK;
}

/* Trailing zero bits of x != 0 (no builtin: some targets would call
 * libgcc for it). Five steps. */
static uint32_t tpt_ctz32(uint32_t x)
{
    uint32_t n = 0;

    if ((x & 0xFFFFu) == 0) {
        n += 16;
        x >>= 16;
    }
    if ((x & 0xFFu) == 0) {
        n += 8;
        x >>= 8;
    }
    if ((x & 0xFu) == 0) {
        n += 4;
        x >>= 4;
    }
    if ((x & 3u) == 0) {
        n += 2;
        x >>= 2;
    }
    return n + ((x & 1u) == 0);
}

/* Leading zero bits of x != 0. */
static uint32_t tpt_clz32(uint32_t x)
{
    uint32_t n = 0;

    if ((x >> 16) == 0) {
        n += 16;
        x <<= 16;
    }
    if ((x >> 24) == 0) {
        n += 8;
        x <<= 8;
    }
    if ((x >> 28) == 0) {
        n += 4;
        x <<= 4;
    }
    if ((x >> 30) == 0) {
        n += 2;
        x <<= 2;
    }
    return n + ((x >> 31) == 0);
}

/* Bit i of the result: bits i .. i + n - 1 of x are all set (1 <= n <=
 * 32; runs do not continue past bit 31). O(log n) shifts. */
static uint32_t tpt_runs32(uint32_t x, uint32_t n)
{
    uint32_t len = 1;

    while (2u * len <= n) {
        x &= x >> len;
        len *= 2u;
    }
    return n > len ? x & (x >> (n - len)) : x;
}

enum ofl_err ofl_tpt_att_alloc(struct ofl_tpt_att_pool *pool, uint32_t n,
                               uint32_t *base)
{
    uint32_t k, words, run = 0, start = 0;

    if (pool == NULL || pool->map == NULL || base == NULL || n == 0)
        return OFL_E_ARG;
    if (n > pool->free)
        return OFL_E_TPT_ATT_FULL;
    /* First fit, a word at a time: run counts the free slots that end the
     * words before word k (from start); in word k a run of n is the one
     * that carries on into its low bits, else one inside it (n < 32),
     * else its high free bits carry over. */
    words = (pool->slots + 31u) >> 5;
    for (k = 0; k < words; k++) {
        uint32_t w = pool->map[k], y;

        if (k + 1u == words && (pool->slots & 31u) != 0)
            w |= ~((1u << (pool->slots & 31u)) - 1u); /* past the end */
        if (w == 0) {
            if (run == 0)
                start = k << 5;
            run += 32u;
            if (run >= n)
                break;
            continue;
        }
        if (run + tpt_ctz32(w) >= n) {
            if (run == 0)
                start = k << 5;
            run = n;
            break;
        }
        y = n < 32u ? tpt_runs32(~w, n) : 0;
        if (y != 0) {
            start = (k << 5) + tpt_ctz32(y);
            run = n;
            break;
        }
        run = tpt_clz32(w);
        start = (k << 5) + 32u - run;
    }
    if (run < n)
        return OFL_E_TPT_ATT_FULL;
    tpt_bits_set(pool->map, start, n, true);
    tpt_bits_set(pool->map + (OFL_TPT_ATT_POOL_WORDS(pool->slots) >> 1), start,
                 1, true);
    pool->free -= n;
    *base = start;
    return OFL_OK;
}

/* OFL_OK when [base, base + n) is exactly one run pool handed out. */
static enum ofl_err tpt_att_run_check(const struct ofl_tpt_att_pool *pool,
                                      uint32_t base, uint32_t n)
{
    const uint32_t *starts;
    uint32_t end;

    if (pool == NULL || pool->map == NULL || n == 0)
        return OFL_E_ARG;
    if (base >= pool->slots || n > pool->slots - base)
        return OFL_E_TPT_ATT_RANGE;
    starts = pool->map + (OFL_TPT_ATT_POOL_WORDS(pool->slots) >> 1);
    end = base + n;
    /* Its first slot starts a run, no later slot of it does, all are
     * handed out, and the run ends there (the next slot is free or starts
     * another run). */
    if (!tpt_bit(starts, base) ||
        (n > 1 && !tpt_bits_all(starts, base + 1, n - 1, false)) ||
        !tpt_bits_all(pool->map, base, n, true) ||
        (end < pool->slots && tpt_bit(pool->map, end) &&
         !tpt_bit(starts, end)))
        return OFL_E_TPT_ATT_NOT_ALLOCATED;
    return OFL_OK;
}

enum ofl_err ofl_tpt_att_free(struct ofl_tpt_att_pool *pool, uint32_t base,
                              uint32_t n)
{
    enum ofl_err err = tpt_att_run_check(pool, base, n);

    if (err != OFL_OK)
        return err;
    tpt_bits_set(pool->map, base, n, false);
    tpt_bits_set(pool->map + (OFL_TPT_ATT_POOL_WORDS(pool->slots) >> 1), base,
                 1, false);
    pool->free += n;
    return OFL_OK;
}

enum ofl_err ofl_tpt_att_slots(uint64_t len, uint32_t fpo, uint8_t page_shift,
                               uint8_t att_kind, uint32_t *count)
{
    uint64_t pages, per;

    if (count == NULL)
        return OFL_E_ARG;
    if (page_shift < OFL_TPT_PAGE_SHIFT_MIN ||
        page_shift > OFL_TPT_PAGE_SHIFT_MAX ||
        fpo >= ((uint32_t)1 << page_shift) || len == 0 ||
        att_kind > OFL_TPT_ATT_INDIRECT2 || len > OFL_U64_MAX - fpo)
        return OFL_E_TPT_BAD_DESC;
    /* The rule of tpt_desc_check: pages <= att_count << (9 * kind). */
    pages = ((fpo + len - 1) >> page_shift) + 1;
    per = (uint64_t)1 << (OFL_TPT_ATT_LIST_SHIFT * att_kind);
    pages = (pages >> (OFL_TPT_ATT_LIST_SHIFT * att_kind)) +
            ((pages & (per - 1)) != 0);
    if (pages > 0xFFFFFFFFu)
        return OFL_E_TPT_ATT_RANGE;
    *count = (uint32_t)pages;
    return OFL_OK;
}

enum ofl_err ofl_tpt_att_owners(struct ofl_tpt *tpt, uint32_t *owner,
                                uint32_t n)
{
    if (tpt == NULL || owner == NULL || n != tpt->att_capacity)
        return OFL_E_ARG;
    if (tpt->free_count != tpt->capacity - 1)
        return OFL_E_TPT_BUSY; /* an entry may hold slots already */
    ofl_fill(owner, 0, (size_t)n * sizeof(owner[0]));
    tpt->att_owner = owner;
    return OFL_OK;
}

enum ofl_err ofl_tpt_reg_pages_pool(struct ofl_tpt *tpt,
                                    struct ofl_tpt_att_pool *pool,
                                    uint32_t pd,
                                    const struct ofl_tpt_region_desc *desc,
                                    const uint64_t *pages, uint32_t n,
                                    uint32_t *stag)
{
    struct ofl_tpt_region_desc d;
    enum ofl_err err;

    if (tpt == NULL || desc == NULL || pages == NULL || stag == NULL || n == 0)
        return OFL_E_ARG;
    ofl_copy(&d, desc, sizeof(d));
    err = ofl_tpt_att_alloc(pool, n, &d.att_base);
    if (err != OFL_OK)
        return err;
    err = ofl_tpt_reg_pages(tpt, pd, &d, pages, n, stag);
    if (err != OFL_OK)
        (void)ofl_tpt_att_free(pool, d.att_base, n);
    return err;
}

enum ofl_err ofl_tpt_dereg_pool(struct ofl_tpt *tpt,
                                struct ofl_tpt_att_pool *pool, uint32_t stag,
                                uint32_t pd)
{
    struct ofl_tpt_entry *e;
    uint32_t base, count;
    enum ofl_err err = tpt_find(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (e->type == OFL_TPT_WINDOW)
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    base = e->att_base;
    count = e->att_count;
    if (count != 0) {
        err = tpt_att_run_check(pool, base, count);
        if (err != OFL_OK)
            return err == OFL_E_ARG ? err : OFL_E_TPT_ATT_NOT_ALLOCATED;
    }
    err = ofl_tpt_dereg(tpt, stag, pd);
    if (err == OFL_OK && count != 0)
        err = ofl_tpt_att_free(pool, base, count);
    return err;
}

/* The access-right part of a check (FIG. 15 f-g, FIG. 18A f). */
static enum ofl_err tpt_rights(uint8_t have, uint8_t need)
{
    if ((need & OFL_TPT_BIND_WINDOW) && !(have & OFL_TPT_BIND_WINDOW))
        return OFL_E_TPT_NO_BIND;
    if ((have & need) != need)
        return OFL_E_TPT_ACCESS;
    return OFL_OK;
}

/* The rights a local check may ask for (ofl_tpt_check_local), and those
 * an iSCSI check may (ofl_tpt_check_iscsi). */
#define TPT_LOCAL_NEEDS \
    (OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE | OFL_TPT_BIND_WINDOW)
#define TPT_ISCSI_NEEDS (OFL_TPT_REMOTE_READ | OFL_TPT_REMOTE_WRITE)

/* The body of ofl_tpt_check_local, inlined into the qp engine's checks of
 * a WQE's data segments (once per segment per message). */
static OFL_HOT_INLINE enum ofl_err
tpt_check_local(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                uint64_t va, uint64_t len, uint8_t need)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err;

    /* An empty need would pass any entry; remote bits are not a local
     * right to ask for. */
    if (need == 0 || (need & ~TPT_LOCAL_NEEDS) != 0)
        return OFL_E_ARG;
    err = tpt_find_valid(tpt, stag, &e);               /* a, d */
    if (err != OFL_OK)
        return err;
    if (e->type != OFL_TPT_REGION)                     /* b */
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)                                   /* c */
        return OFL_E_TPT_PD_MISMATCH;
    err = tpt_range(tpt_base(e), e->len, va, len);     /* e */
    if (err != OFL_OK)
        return err;
    return tpt_rights(e->access, need);                /* f, g */
}

enum ofl_err ofl_tpt_check_local(const struct ofl_tpt *tpt, uint32_t stag,
                                 uint32_t pd, uint64_t va, uint64_t len,
                                 uint8_t need)
{
    return tpt_check_local(tpt, stag, pd, va, len, need);
}

/* A remote access is one value (struct ofl_tpt_remote), so internal calls
 * need no stack arguments on any ABI (-fstack-usage then reports every
 * frame as static). */
static enum ofl_err tpt_check_remote(const struct ofl_tpt *tpt,
                                     const struct ofl_tpt_remote *a)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err;

    /* An empty need would pass any entry; a local right is not one a
     * remote peer may ask for. */
    if (a->need == 0 || (a->need & ~OFL_TPT_ACCESS_REMOTE) != 0)
        return OFL_E_ARG;
    err = tpt_find_valid(tpt, a->stag, &e);               /* a, d */
    if (err != OFL_OK)
        return err;
    if (e->type == OFL_TPT_ISCSI ||                       /* b */
        (e->type == OFL_TPT_REGION &&
         tpt->policy == OFL_TPT_POLICY_WINDOWS_ONLY))
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != a->pd)                                   /* c */
        return OFL_E_TPT_PD_MISMATCH;
    if (e->type == OFL_TPT_WINDOW) {
        if ((e->flags & OFL_TPT_F_TYPE2) && e->qp != a->qp)
            return OFL_E_TPT_QP_MISMATCH;
        if (tpt_window_region(tpt, e) == NULL)
            return OFL_E_TPT_REGION_GONE;
    }
    err = tpt_range(tpt_base(e), e->len, a->to, a->len);  /* e */
    if (err != OFL_OK)
        return err;
    return tpt_rights(e->access, a->need);                /* f */
}

enum ofl_err ofl_tpt_check_remote(const struct ofl_tpt *tpt, uint32_t stag,
                                  uint32_t pd, uint32_t qp, uint64_t to,
                                  uint64_t len, uint8_t need)
{
    struct ofl_tpt_remote a;

    a.to = to;
    a.len = len;
    a.stag = stag;
    a.pd = pd;
    a.qp = qp;
    a.need = need;
    return tpt_check_remote(tpt, &a);
}

enum ofl_err ofl_tpt_check_access(const struct ofl_tpt *tpt,
                                  const struct ofl_tpt_remote *a)
{
    if (a == NULL)
        return OFL_E_ARG;
    return tpt_check_remote(tpt, a);
}

enum ofl_err ofl_tpt_check_iscsi(const struct ofl_tpt *tpt, uint32_t itt,
                                 uint32_t pd, uint32_t qp, uint64_t offset,
                                 uint64_t len, uint8_t need)
{
    struct ofl_tpt_iscsi_use u;

    u.offset = offset;
    u.len = len;
    u.pd = pd;
    u.qp = qp;
    u.need = need;
    return ofl_tpt_check_iscsi_use(tpt, itt, &u);
}

enum ofl_err ofl_tpt_check_iscsi_use(const struct ofl_tpt *tpt, uint32_t itt,
                                     const struct ofl_tpt_iscsi_use *u)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err;
    uint32_t pd = u->pd, qp = u->qp;
    uint64_t offset = u->offset, len = u->len;
    uint8_t need = u->need;

    if ((need & ~TPT_ISCSI_NEEDS) != 0) /* 0: a SCSI Response, no data */
        return OFL_E_ARG;
    err = tpt_find_valid(tpt, itt, &e);                /* a, d */
    if (err != OFL_OK)
        return err;
    if (e->type != OFL_TPT_ISCSI)                      /* b */
        return OFL_E_TPT_WRONG_TYPE;
    if (e->pd != pd)                                   /* c */
        return OFL_E_TPT_PD_MISMATCH;
    /* c, the connection: a task tag names a task of the QP whose command
     * registered it (RFC 3720 connection allegiance); an entry of no QP
     * (ofl_tpt_register) is no task of any. */
    if (e->qp != qp || qp == OFL_TPT_QP_NONE)
        return OFL_E_TPT_QP_MISMATCH;
    err = tpt_range(0, e->len, offset, len);           /* e */
    if (err != OFL_OK)
        return err;
    return tpt_rights(e->access, need);                /* f */
}

enum ofl_err ofl_tpt_bind(struct ofl_tpt *tpt, uint32_t stag,
                          uint32_t region_stag, uint32_t pd, uint32_t qp,
                          uint64_t va, uint64_t len, uint8_t access,
                          uint8_t flags, uint32_t *bound_stag)
{
    struct ofl_tpt_bind_args b;

    b.va = va;
    b.len = len;
    b.stag = stag;
    b.region_stag = region_stag;
    b.pd = pd;
    b.qp = qp;
    b.access = access;
    b.flags = flags;
    return ofl_tpt_bind_window(tpt, &b, bound_stag);
}

enum ofl_err ofl_tpt_bind_window(struct ofl_tpt *tpt,
                                 const struct ofl_tpt_bind_args *b,
                                 uint32_t *bound_stag)
{
    struct ofl_tpt_entry *w, *r;
    uint32_t stag, region_stag, pd, qp;
    uint64_t va, len;
    uint8_t access, flags;
    enum ofl_err err;

    if (b == NULL)
        return OFL_E_ARG;
    stag = b->stag;
    region_stag = b->region_stag;
    pd = b->pd;
    qp = b->qp;
    va = b->va;
    len = b->len;
    access = b->access;
    flags = b->flags;
    err = tpt_find(tpt, stag, &w);

    if (err != OFL_OK)
        return err;
    if (w->type != OFL_TPT_WINDOW)
        return OFL_E_TPT_WRONG_TYPE;
    if (w->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (len == 0) { /* UnbindRKey (seed 001); verbs: any zero length */
        if ((w->flags & OFL_TPT_F_TYPE2) && w->state == OFL_TPT_VALID &&
            w->qp != qp)
            return OFL_E_TPT_QP_MISMATCH;
        tpt_clear_translation(w);
        w->state = OFL_TPT_INVALID;
        if (bound_stag != NULL)
            *bound_stag = stag;
        return OFL_OK;
    }
    if (bound_stag == NULL || (flags & ~TPT_BIND_FLAGS) != 0)
        return OFL_E_ARG;
    /* A type 2 window is bound only from INVALID (IBA o10-37.2.30): a
     * rebind would move it off the QP it is tied to. */
    if ((w->flags & OFL_TPT_F_TYPE2) && w->state == OFL_TPT_VALID)
        return OFL_E_TPT_BUSY;
    /* FIG. 15 a-e and g on the region, under the window's (== QP's) PD. */
    err = ofl_tpt_check_local(tpt, region_stag, pd, va, len,
                              OFL_TPT_BIND_WINDOW);
    if (err != OFL_OK)
        return err;
    r = &tpt->entry[ofl_stag_index(region_stag)];
    if ((access & ~OFL_TPT_ACCESS_REMOTE) != 0 ||
        ((access & (OFL_TPT_REMOTE_WRITE | OFL_TPT_REMOTE_ATOMIC)) &&
         !(r->access & OFL_TPT_LOCAL_WRITE)))
        return OFL_E_TPT_ACCESS_COMBO;
    tpt_clear_translation(w);
    w->va = va;
    w->len = len;
    w->access = access;
    w->flags = (uint8_t)((w->flags & OFL_TPT_F_TYPE2) | flags);
    w->region = ofl_stag_index(region_stag);
    w->region_gen = r->gen;
    if (w->flags & OFL_TPT_F_TYPE2) {
        /* Type 2: tied to the QP, invalidatable. */
        w->qp = qp;
        w->flags |= OFL_TPT_F_INVALIDATABLE;
    }
    /* A new key at every bind, of either type (IBA: a bind returns a new
     * R_Key): an STag advertised for an earlier binding must not reach
     * this one's range or rights. */
    w->key = (uint8_t)(w->key + 1);
    w->state = OFL_TPT_VALID;
    *bound_stag = ofl_stag_make(ofl_stag_index(stag), w->key);
    return OFL_OK;
}

enum ofl_err ofl_tpt_invalidate_local(struct ofl_tpt *tpt, uint32_t stag,
                                      uint32_t pd)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (!(e->flags & OFL_TPT_F_INVALIDATABLE))
        return OFL_E_TPT_CANNOT_INVALIDATE;
    tpt_make_invalid(e);
    return OFL_OK;
}

enum ofl_err ofl_tpt_invalidate_remote(struct ofl_tpt *tpt, uint32_t stag,
                                       uint32_t pd, uint32_t qp)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (e->pd != pd)
        return OFL_E_TPT_PD_MISMATCH;
    if (e->type == OFL_TPT_WINDOW && (e->flags & OFL_TPT_F_TYPE2) &&
        e->qp != qp)
        return OFL_E_TPT_QP_MISMATCH;
    if (!(e->flags & OFL_TPT_F_INVALIDATABLE))
        return OFL_E_TPT_CANNOT_INVALIDATE;
    tpt_make_invalid(e);
    return OFL_OK;
}

uint32_t ofl_tpt_invalidate_qp(struct ofl_tpt *tpt, uint32_t qp, uint32_t pd)
{
    uint32_t i, n = 0;

    if (tpt == NULL)
        return 0;
    for (i = 1; i < tpt->capacity; i++) { /* index 0 is never used */
        struct ofl_tpt_entry *e = &tpt->entry[i];

        if (e->state == OFL_TPT_VALID && e->qp == qp && e->pd == pd &&
            ((e->type == OFL_TPT_WINDOW && (e->flags & OFL_TPT_F_TYPE2)) ||
             e->type == OFL_TPT_ISCSI)) {
            tpt_make_invalid(e);
            n++;
        }
    }
    return n;
}

/* Reads one little-endian 64-bit word of a host-memory ATT list. */
static enum ofl_err tpt_list_word(const struct ofl_tpt *tpt, uint64_t list,
                                  uint32_t index, uint64_t *word)
{
    uint8_t b[8];
    enum ofl_err err;

    /* List addresses are 4 KiB aligned, pinned, and marked present. */
    if (!(list & OFL_TPT_ATT_PRESENT) ||
        !tpt_page_word_ok(list, OFL_TPT_PAGE_SHIFT_MIN))
        return OFL_E_TPT_ATT_CORRUPT;
    err = ofl_port_dma_read(tpt->port,
                            (list & ~(uint64_t)OFL_TPT_ATT_PRESENT) +
                                (uint64_t)index * 8u,
                            b, sizeof(b));
    if (err != OFL_OK)
        return err;
    *word = ofl_load_le64(b);
    return OFL_OK;
}

/*
 * Where a region's page word lives: in the ATT array (slot, direct) or in
 * host memory (pa of the word, indirect). Page index is < the pages the
 * region's ATT describes (checked at registration).
 */
struct tpt_word_loc {
    bool in_host;
    uint32_t slot;
    uint64_t pa;
};

static enum ofl_err tpt_locate(const struct ofl_tpt *tpt,
                               const struct ofl_tpt_entry *r, uint64_t page,
                               struct tpt_word_loc *loc)
{
    const uint32_t lmask = (1u << OFL_TPT_ATT_LIST_SHIFT) - 1;
    uint64_t list;
    enum ofl_err err;

    loc->in_host = false;
    if (r->att_kind == OFL_TPT_ATT_DIRECT) {
        loc->slot = r->att_base + (uint32_t)page;
        return OFL_OK;
    }
    if (r->att_kind == OFL_TPT_ATT_INDIRECT1) {
        list = tpt->att[r->att_base + (uint32_t)(page >> OFL_TPT_ATT_LIST_SHIFT)];
    } else {
        uint64_t l2 = tpt->att[r->att_base +
                               (uint32_t)(page >> (2 * OFL_TPT_ATT_LIST_SHIFT))];
        err = tpt_list_word(tpt, l2,
                            (uint32_t)(page >> OFL_TPT_ATT_LIST_SHIFT) & lmask,
                            &list);
        if (err != OFL_OK)
            return err;
    }
    if (!(list & OFL_TPT_ATT_PRESENT) ||
        !tpt_page_word_ok(list, OFL_TPT_PAGE_SHIFT_MIN))
        return OFL_E_TPT_ATT_CORRUPT;
    loc->in_host = true;
    loc->pa = (list & ~(uint64_t)OFL_TPT_ATT_PRESENT) +
              (uint64_t)((uint32_t)page & lmask) * 8u;
    return OFL_OK;
}

/* Reads the page word of page index `page` of region r. */
static enum ofl_err tpt_page_word(const struct ofl_tpt *tpt,
                                  const struct ofl_tpt_entry *r, uint64_t page,
                                  uint64_t *word)
{
    struct tpt_word_loc loc;
    uint8_t b[8];
    enum ofl_err err;

    if (r->att_kind == OFL_TPT_ATT_DIRECT) { /* the hot path: no DMA */
        *word = tpt->att[r->att_base + (uint32_t)page];
        return OFL_OK;
    }
    err = tpt_locate(tpt, r, page, &loc);
    if (err != OFL_OK)
        return err;
    err = ofl_port_dma_read(tpt->port, loc.pa, b, sizeof(b));
    if (err != OFL_OK)
        return err;
    *word = ofl_load_le64(b);
    return OFL_OK;
}

/*
 * Resolves stag + [to, to + len) to the region that holds the bytes and the
 * region offset of `to` (the window's place in its region included).
 */
static enum ofl_err tpt_resolve(const struct ofl_tpt *tpt, uint32_t stag,
                                uint64_t to, uint64_t len,
                                const struct ofl_tpt_entry **region,
                                uint64_t *offset)
{
    struct ofl_tpt_entry *e;
    const struct ofl_tpt_entry *r;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    err = tpt_range(tpt_base(e), e->len, to, len);
    if (err != OFL_OK)
        return err;
    r = e;
    if (e->type == OFL_TPT_WINDOW) {
        r = tpt_window_region(tpt, e);
        if (r == NULL)
            return OFL_E_TPT_REGION_GONE;
    }
    /* A window's range lies inside its region's (checked at bind), and the
     * region's TO space is the window's. */
    *offset = to - tpt_base(r);
    *region = r;
    return OFL_OK;
}

/* A physical region's translation: [pa, pa + len) in pieces of at most
 * TPT_PIECE_MAX bytes (the region's range check has ruled out a wrap). */
static enum ofl_err tpt_translate_physical(uint64_t pa, uint64_t len,
                                           struct ofl_tpt_sgl *sgl)
{
    /* Bounded by len / TPT_PIECE_MAX iterations. */
    while (sgl->bytes < len) {
        uint64_t chunk = len - sgl->bytes;

        if (chunk > TPT_PIECE_MAX)
            chunk = TPT_PIECE_MAX;
        if (sgl->count == sgl->cap)
            return OFL_E_TPT_SGL_FULL;
        sgl->piece[sgl->count].pa = pa + sgl->bytes;
        sgl->piece[sgl->count].len = (uint32_t)chunk;
        sgl->count++;
        sgl->bytes += chunk;
    }
    return OFL_OK;
}

enum ofl_err ofl_tpt_translate(const struct ofl_tpt *tpt, uint32_t stag,
                               uint64_t to, uint64_t len,
                               struct ofl_tpt_sgl *sgl)
{
    const struct ofl_tpt_entry *r;
    uint64_t pos, pmask;
    uint32_t shift;
    enum ofl_err err;

    if (sgl == NULL || (sgl->piece == NULL && sgl->cap != 0))
        return OFL_E_ARG;
    sgl->count = 0;
    sgl->bytes = 0;
    err = tpt_resolve(tpt, stag, to, len, &r, &pos);
    if (err != OFL_OK)
        return err;
    if (r->att_kind == OFL_TPT_ATT_PHYSICAL)
        return tpt_translate_physical(pos, len, sgl);
    shift = r->page_shift;
    pmask = ((uint64_t)1 << shift) - 1;
    pos += r->fpo;
    /* Bounded by len / page size iterations. */
    while (sgl->bytes < len) {
        uint64_t in = pos & pmask, word, pa;
        uint64_t chunk = pmask + 1 - in;
        struct ofl_tpt_piece *last;

        if (chunk > len - sgl->bytes)
            chunk = len - sgl->bytes;
        err = tpt_page_word(tpt, r, pos >> shift, &word);
        if (err != OFL_OK)
            return err;
        if (!(word & OFL_TPT_ATT_PRESENT)) {
            sgl->fault_va = to + sgl->bytes;
            return OFL_E_TPT_PAGE_FAULT;
        }
        if (!tpt_page_word_ok(word, shift))
            return OFL_E_TPT_ATT_CORRUPT;
        pa = (word & ~(uint64_t)OFL_TPT_ATT_PRESENT) + in;
        last = sgl->count ? &sgl->piece[sgl->count - 1] : NULL;
        /* Merge only a true continuation: pa > last->pa rules out a piece
         * whose end wrapped past 2^64 onto a page at address 0. */
        if (last != NULL && last->pa + last->len == pa && pa > last->pa &&
            last->len <= TPT_PIECE_MAX - chunk) {
            last->len += (uint32_t)chunk; /* physically contiguous: merge */
        } else {
            if (sgl->count == sgl->cap)
                return OFL_E_TPT_SGL_FULL;
            sgl->piece[sgl->count].pa = pa;
            sgl->piece[sgl->count].len = (uint32_t)chunk;
            sgl->count++;
        }
        sgl->bytes += chunk;
        pos += chunk;
    }
    return OFL_OK;
}

/*
 * An entry's type and state (adjacent bytes) in one 16-bit load, compared
 * with TPT_TS(type, state) in either byte order: the remote fast path's
 * test of FIG. 18A b and d in one compare (an unaligned load: the pair
 * starts at an odd offset). Only in an optimised speed build
 * (OFL_FAST_PATH, not -O0) with GCC or clang and a known byte order.
 */
#if OFL_FAST_PATH && defined(__OPTIMIZE__) && defined(__GNUC__) && \
    !defined(__FRAMAC__) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || \
     __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define TPT_HOT_WORD 1
typedef uint16_t __attribute__((__may_alias__, __aligned__(1))) tpt_ts_word;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TPT_TS(type, state) ((uint16_t)((type) | (state) << 8))
#else
#define TPT_TS(type, state) ((uint16_t)((type) << 8 | (state)))
#endif
_Static_assert(offsetof(struct ofl_tpt_entry, state) ==
                   offsetof(struct ofl_tpt_entry, type) + 1,
               "type and state: adjacent bytes, type first");

static OFL_ALWAYS_INLINE uint16_t tpt_type_state(const struct ofl_tpt_entry *e)
{
    return *(const tpt_ts_word *)(const void *)&e->type;
}

/*
 * An entry's key, type, state, access, flags, att_kind, page_shift and
 * registered bytes (seed 000 FIG. 13 fields 1310-1318) are one aligned
 * 64-bit word (key sits at an offset that is a multiple of 8 in an entry
 * aligned for its uint64_t fields): tpt_region_direct tests a region's
 * type and state (FIG. 18A b, d), its zero-based flag and its ATT kind in
 * one load, one mask and one compare instead of three byte compares.
 */
typedef uint64_t __attribute__((__may_alias__)) tpt_hot_word;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TPT_HW(off, v) ((uint64_t)(v) << (8 * (off)))
#else
#define TPT_HW(off, v) ((uint64_t)(v) << (8 * (7 - (off))))
#endif
_Static_assert(offsetof(struct ofl_tpt_entry, key) % 8 == 0 &&
                   offsetof(struct ofl_tpt_entry, type) ==
                       offsetof(struct ofl_tpt_entry, key) + 1 &&
                   offsetof(struct ofl_tpt_entry, state) ==
                       offsetof(struct ofl_tpt_entry, key) + 2 &&
                   offsetof(struct ofl_tpt_entry, flags) ==
                       offsetof(struct ofl_tpt_entry, key) + 4 &&
                   offsetof(struct ofl_tpt_entry, att_kind) ==
                       offsetof(struct ofl_tpt_entry, key) + 5,
               "key, type, state, access, flags, att_kind: one aligned word");

/* A valid region, not zero-based, with a direct ATT: the only region the
 * remote fast path translates through (anything else: the precise path). */
static OFL_ALWAYS_INLINE bool tpt_region_direct(const struct ofl_tpt_entry *e)
{
    const uint64_t m = TPT_HW(1, 0xFF) | TPT_HW(2, 0xFF) |
                       TPT_HW(4, OFL_TPT_F_ZERO_BASED) | TPT_HW(5, 0xFF);
    const uint64_t v = TPT_HW(1, OFL_TPT_REGION) | TPT_HW(2, OFL_TPT_VALID) |
                       TPT_HW(5, OFL_TPT_ATT_DIRECT);

    return (*(const tpt_hot_word *)(const void *)&e->key & m) == v;
}
#endif

/*
 * The general loop of tpt_translate_direct (any length, merging physically
 * contiguous pages) over the region's page words att (pages of 1 << shift
 * bytes) from page position pos (region offset + fpo): out of line, so that
 * the one- and two-page straight line of its callers needs no saved
 * registers. Six arguments, none on the stack (kernel builds want static
 * frames).
 */
static OFL_NOINLINE enum ofl_err
tpt_translate_direct_loop(const uint64_t *att, uint32_t shift, uint64_t pos,
                          uint64_t to, uint64_t len, struct ofl_tpt_sgl *sgl)
{
    const uint64_t pmask = ((uint64_t)1 << shift) - 1;
    uint64_t done = 0, stored = 0, cur_pa = 0, cur_len = 0;
    uint32_t count = 0;
    enum ofl_err err = OFL_OK;

    /* The piece being built lives in locals and is stored when the next page
     * does not continue it, or at the end. Bounded by len / page size. */
    while (done < len) {
        uint64_t in = pos & pmask, word = att[pos >> shift];
        uint64_t chunk = pmask + 1 - in;
        uint64_t pa = (word & ~(uint64_t)OFL_TPT_ATT_PRESENT) + in;

        if (chunk > len - done)
            chunk = len - done;
        if ((word & pmask) != OFL_TPT_ATT_PRESENT) {
            if (!(word & OFL_TPT_ATT_PRESENT)) {
                err = OFL_E_TPT_PAGE_FAULT; /* fault_va set below */
            } else {
                err = OFL_E_TPT_ATT_CORRUPT;
            }
            break;
        }
        /* Merge only a true continuation (pa > cur_pa: no wrap past 2^64). */
        if (cur_len != 0 && cur_pa + cur_len == pa && pa > cur_pa &&
            cur_len <= TPT_PIECE_MAX - chunk) {
            cur_len += chunk; /* physically contiguous: merge */
        } else {
            if (cur_len != 0) {
                if (count == sgl->cap) {
                    cur_len = 0;
                    err = OFL_E_TPT_SGL_FULL;
                    break;
                }
                sgl->piece[count].pa = cur_pa;
                sgl->piece[count].len = (uint32_t)cur_len;
                count++;
                stored += cur_len;
            }
            cur_pa = pa;
            cur_len = chunk;
        }
        done += chunk;
        pos += chunk;
    }
    if (cur_len != 0) {
        if (count < sgl->cap) {
            sgl->piece[count].pa = cur_pa;
            sgl->piece[count].len = (uint32_t)cur_len;
            count++;
            stored += cur_len;
        } else {
            /* ofl_tpt_translate finds the list full when the page after
             * this piece's pages arrives, before it reads a later word
             * that is missing or malformed: so full wins here too. */
            err = OFL_E_TPT_SGL_FULL;
        }
    }
    /* The faulting page's TO, only when the fault is the answer (as
     * ofl_tpt_translate: a list found full first leaves fault_va alone). */
    if (err == OFL_E_TPT_PAGE_FAULT)
        sgl->fault_va = to + done;
    sgl->count = count;
    sgl->bytes = stored;
    return err;
}

/*
 * Translation through a direct ATT from region offset `off` (the hot path:
 * no DMA). A page word is usable when (word & page mask) == PRESENT: present,
 * reserved bits clear and the address aligned, all in one compare. Inlined
 * into its callers, the remote and local check-and-translate entry points
 * (one call less on the hot paths, and no clone with stack arguments).
 */
static OFL_ALWAYS_INLINE enum ofl_err
tpt_translate_pages(const uint64_t *att, uint32_t shift, uint64_t pos,
                    uint64_t to, uint64_t len, struct ofl_tpt_sgl *sgl)
{
    const uint64_t pmask = ((uint64_t)1 << shift) - 1;

    /* Straight line for an access inside one or two present pages (every
     * access of up to one page): no loop, no merging state. */
    if (len - 1 <= pmask && sgl->cap >= 2) { /* len in 1 .. page size */
        uint64_t in = pos & pmask, w0 = att[pos >> shift];
        uint64_t first = pmask + 1 - in;

        if ((w0 & pmask) == OFL_TPT_ATT_PRESENT) {
            /* the present bit is set: clearing it is subtracting it */
            uint64_t pa0 = w0 - OFL_TPT_ATT_PRESENT + in;

            if (first >= len) {
                sgl->piece[0].pa = pa0;
                sgl->piece[0].len = (uint32_t)len;
                sgl->count = 1;
                sgl->bytes = len;
                return OFL_OK;
            } else {
                uint64_t w1 = att[(pos >> shift) + 1];

                if ((w1 & pmask) == OFL_TPT_ATT_PRESENT) {
                    uint64_t pa1 = w1 - OFL_TPT_ATT_PRESENT;

                    /* Contiguous (and not wrapping past 2^64): one piece. */
                    if (pa0 + first == pa1 && pa1 > pa0) {
                        sgl->piece[0].pa = pa0;
                        sgl->piece[0].len = (uint32_t)len;
                        sgl->count = 1;
                    } else {
                        sgl->piece[0].pa = pa0;
                        sgl->piece[0].len = (uint32_t)first;
                        sgl->piece[1].pa = pa1;
                        sgl->piece[1].len = (uint32_t)(len - first);
                        sgl->count = 2;
                    }
                    sgl->bytes = len;
                    return OFL_OK;
                }
            }
        }
        /* A missing or malformed page: the general loop names it. */
    }
    return tpt_translate_direct_loop(att, shift, pos, to, len, sgl);
}

static OFL_ALWAYS_INLINE enum ofl_err
tpt_translate_direct(const struct ofl_tpt *tpt, const struct ofl_tpt_entry *r,
                     uint64_t off, uint64_t to, uint64_t len,
                     struct ofl_tpt_sgl *sgl)
{
    return tpt_translate_pages(tpt->att + r->att_base, r->page_shift,
                               off + r->fpo, to, len, sgl);
}


/* The end of both diagnosing paths: a refused check (err) leaves an empty
 * list, a granted one is translated. */
static enum ofl_err tpt_translate_checked(const struct ofl_tpt *tpt,
                                          enum ofl_err err, uint32_t stag,
                                          uint64_t to, uint64_t len,
                                          struct ofl_tpt_sgl *sgl)
{
    if (err != OFL_OK) {
        sgl->count = 0;
        sgl->bytes = 0;
        return err;
    }
    return ofl_tpt_translate(tpt, stag, to, len, sgl);
}

/* The diagnosing path of ofl_tpt_check_translate, kept out of line so the
 * fast path stays a small function. */
static OFL_NOINLINE enum ofl_err
tpt_check_translate_precise(const struct ofl_tpt *tpt,
                            const struct ofl_tpt_remote *a,
                            struct ofl_tpt_sgl *sgl)
{
    if (sgl == NULL || (sgl->piece == NULL && sgl->cap != 0))
        return OFL_E_ARG;
    return tpt_translate_checked(tpt, tpt_check_remote(tpt, a), a->stag,
                                 a->to, a->len, sgl);
}

#if defined(TPT_HOT_WORD)
/*
 * FIG. 18A a-f in a speed build's remote fast paths, in one form that all
 * of them inline: ofl_tpt_check_translate, and through tpt_remote_fast
 * ofl_tpt_check_translate_access and the qp engine's tagged segments. One
 * conjunction of every condition for the common case (a live type 1 or
 * type 2 window, or a region under the standard policy, neither
 * zero-based, over a region with a direct ATT). Returns the region to
 * translate through, or NULL when the precise path must decide (anything
 * else, every failure included; the precise path names the reason). It
 * accepts only what tpt_check_remote grants, reading the same fields (no
 * copy of them kept elsewhere, so no registration can leave it stale).
 * Cheaper forms of the same tests: the range as no carry of to + len (a
 * TO wrap, RFC 5040 §7.2, or a last byte at 2^64 - 1 goes to the precise
 * path), to >= va and to + len - va <= len, which also rules out the wrap
 * the precise path tests first; need not empty and within the entry's
 * remote rights in one test (f); type and state in one 16-bit compare
 * (tpt_type_state); the window's zero-based and type 2 flags in one test;
 * the window's region's type, state, zero-based flag and ATT kind in one
 * (tpt_region_direct). It does not look at the SGL.
 * tests/check_fastpath_tpt.sh holds it to the precise path's answers.
 *
 * The form and the order of the tests are the ones measured cheapest for
 * both bench_tpt.c (a window) and the qp engine's tagged Writes (a region)
 * with gcc and clang (make bench-count): the access as one struct (taken
 * apart again once inlined), a pointer or NULL (a bool and an
 * out-parameter cost gcc 5 instructions per tagged Write), and a region
 * target's tests one by one (tpt_region_direct there cost clang 2 to 3
 * per Write, by register pressure in qp_place_tagged).
 */
static OFL_ALWAYS_INLINE const struct ofl_tpt_entry *
tpt_remote_hot(const struct ofl_tpt *tpt, const struct ofl_tpt_remote *a)
{
    const struct ofl_tpt_entry *e, *r;
    uint32_t index = ofl_stag_index(a->stag), ri;
    uint64_t end;

    if (tpt == NULL || index - 1u >= tpt->capacity - 1u || a->need == 0 ||
        __builtin_add_overflow(a->to, a->len, &end))
        return NULL;
    e = &tpt->entry[index];
    if (e->key != ofl_stag_key(a->stag) || e->pd != a->pd ||        /* a, c */
        a->to < e->va || end - e->va > e->len ||                 /* e */
        (uint8_t)(a->need & ~(e->access & OFL_TPT_ACCESS_REMOTE)) != 0) /* f */
        return NULL;
    if (tpt_type_state(e) == TPT_TS(OFL_TPT_WINDOW, OFL_TPT_VALID)) {
        if ((e->flags & (OFL_TPT_F_ZERO_BASED | OFL_TPT_F_TYPE2)) != 0 &&
            ((e->flags & OFL_TPT_F_ZERO_BASED) != 0 || e->qp != a->qp))
            return NULL;
        ri = e->region;
        if (ri - 1u >= tpt->capacity - 1u)
            return NULL;
        r = &tpt->entry[ri];
        if (!tpt_region_direct(r) || r->gen != e->region_gen ||
            r->pd != a->pd)
            return NULL;
    } else if (tpt_type_state(e) == TPT_TS(OFL_TPT_REGION, OFL_TPT_VALID) &&
               (e->flags & OFL_TPT_F_ZERO_BASED) == 0 &&
               tpt->policy == OFL_TPT_POLICY_STANDARD &&           /* b, d */
               e->att_kind == OFL_TPT_ATT_DIRECT) {
        r = e;
    } else {
        return NULL;
    }
    return r;
}

/*
 * The remote fast path of a speed build as the engine's callers take it:
 * tpt_remote_hot's check, then the SGL (not NULL, pieces to fill). Returns
 * the region to translate through and sets *off to the access's offset in
 * it, or returns NULL when the precise path must decide. Inlined into its
 * callers.
 */
static OFL_ALWAYS_INLINE const struct ofl_tpt_entry *
tpt_remote_fast(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                uint32_t qp, uint64_t to, uint64_t len, uint8_t need,
                const struct ofl_tpt_sgl *sgl, uint64_t *off)
{
    const struct ofl_tpt_remote a = {.to = to, .len = len, .stag = stag,
                                     .pd = pd, .qp = qp, .need = need};
    const struct ofl_tpt_entry *r;

    if (sgl == NULL || sgl->piece == NULL)
        return NULL;
    r = tpt_remote_hot(tpt, &a);
    if (r == NULL)
        return NULL;
    *off = to - r->va;
    return r;
}
#elif defined(OFL_NO_FAST_PATH)
/* The general paths only (tests/check_fastpath*.sh's reference build):
 * every remote check goes to the precise path. */
static OFL_ALWAYS_INLINE const struct ofl_tpt_entry *
tpt_remote_fast(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                uint32_t qp, uint64_t to, uint64_t len, uint8_t need,
                const struct ofl_tpt_sgl *sgl, uint64_t *off)
{
    (void)tpt;
    (void)stag;
    (void)pd;
    (void)qp;
    (void)to;
    (void)len;
    (void)need;
    (void)sgl;
    (void)off;
    return NULL;
}
#else
/*
 * The remote fast path of a size build and of a speed build without
 * TPT_HOT_WORD (-O0): FIG. 18A a-f in one conjunction for the common case
 * (a live window, or a region under the standard policy, neither
 * zero-based, over a region with a direct ATT: as tpt_remote_hot, so the
 * region returned always has *off == to - its va, which qp_rx_write_fpdu
 * relies on). Sets *off to the access's offset in the region it returns,
 * or returns NULL when the precise path must decide (anything else, every
 * failure too). Inlined into both entry points (the access in registers).
 */
static OFL_ALWAYS_INLINE const struct ofl_tpt_entry *
tpt_remote_fast(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
                uint32_t qp, uint64_t to, uint64_t len, uint8_t need,
                const struct ofl_tpt_sgl *sgl, uint64_t *off)
{
    const struct ofl_tpt_entry *e, *r;
    uint32_t index = ofl_stag_index(stag);
    uint64_t base, o;

    if (tpt == NULL || sgl == NULL || sgl->piece == NULL ||
        index - 1u >= tpt->capacity - 1u)
        return NULL;
    e = &tpt->entry[index];
    base = e->va; /* not zero-based (tested below): its TOs are VAs */
    o = to - base; /* in a local: *off is written once, on success */
    if (e->key != ofl_stag_key(stag) || e->state != OFL_TPT_VALID ||
        e->pd != pd || (e->access & need) != need || need == 0 ||
        (need & ~OFL_TPT_ACCESS_REMOTE) != 0 || to < base ||
        o > e->len || len > e->len - o ||
        (e->flags & OFL_TPT_F_ZERO_BASED) ||
        (len != 0 && to > OFL_U64_MAX - (len - 1)))
        return NULL;
    r = e;
    if (e->type == OFL_TPT_WINDOW) {
        if (((e->flags & OFL_TPT_F_TYPE2) && e->qp != qp) ||
            e->region >= tpt->capacity)
            return NULL;
        r = &tpt->entry[e->region];
        if (r->gen != e->region_gen || r->state != OFL_TPT_VALID ||
            r->type != OFL_TPT_REGION || r->pd != e->pd ||
            (r->flags & OFL_TPT_F_ZERO_BASED))
            return NULL;
        o = to - r->va; /* the window's TO is a VA, as its region's */
    } else if (e->type != OFL_TPT_REGION ||
               tpt->policy != OFL_TPT_POLICY_STANDARD) {
        return NULL;
    }
    if (r->att_kind != OFL_TPT_ATT_DIRECT)
        return NULL;
    *off = o;
    return r;
}

#endif

#ifndef __OPTIMIZE_SIZE__
/* ofl_tpt_check_translate's way to the precise path, out of line with the
 * entry point's own arguments (a tail call: the fast path builds no
 * struct and keeps no frame). Six arguments, STag and PD in one, QP and
 * need in another: none goes on the stack, so an unoptimised kernel build's
 * frame stays static. The order keeps tpt, to and len in the registers
 * the entry point received them in (x86-64 SysV: rdi, r8, r9), and the
 * speed build's other way out, tpt_translate_loop_hot, takes them in the
 * same places, so neither tail call has to move them. */
static OFL_NOINLINE enum ofl_err
tpt_check_translate_slow(const struct ofl_tpt *tpt, uint64_t stag_pd,
                         uint64_t qp_need, struct ofl_tpt_sgl *sgl, uint64_t to,
                         uint64_t len)
{
    const struct ofl_tpt_remote a = {.to = to,
                                     .len = len,
                                     .stag = (uint32_t)stag_pd,
                                     .pd = (uint32_t)(stag_pd >> 32),
                                     .qp = (uint32_t)qp_need,
                                     .need = (uint8_t)(qp_need >> 32)};

    return tpt_check_translate_precise(tpt, &a, sgl);
}
#endif

#if defined(TPT_HOT_WORD) && !defined(__OPTIMIZE_SIZE__)
/* The speed build's ofl_tpt_check_translate when the one- or two-page
 * straight line cannot finish (a page missing or malformed, a longer
 * access, a short list): the general loop over region r's direct ATT. It
 * takes tpt, sgl, to and len where tpt_check_translate_slow does (pad only
 * holds the third place) and derives the rest from r, so the entry point
 * keeps fewer values live and neither tail call moves them. */
static OFL_NOINLINE enum ofl_err
tpt_translate_loop_hot(const struct ofl_tpt *tpt, const struct ofl_tpt_entry *r,
                       uint32_t pad, struct ofl_tpt_sgl *sgl, uint64_t to,
                       uint64_t len)
{
    (void)pad;
    return tpt_translate_direct_loop(tpt->att + r->att_base, r->page_shift,
                                     to - r->va + r->fpo, to, len, sgl);
}
#endif

enum ofl_err ofl_tpt_check_translate(const struct ofl_tpt *tpt, uint32_t stag,
                                     uint32_t pd, uint32_t qp, uint64_t to,
                                     uint64_t len, uint8_t need,
                                     struct ofl_tpt_sgl *sgl)
{
#ifdef __OPTIMIZE_SIZE__
    /* A size build keeps one copy of the fast path and its translation, in
     * ofl_tpt_check_translate_access (a call of three arguments: none goes
     * on the stack). */
    const struct ofl_tpt_remote a = {.to = to, .len = len, .stag = stag,
                                     .pd = pd, .qp = qp, .need = need};

    return ofl_tpt_check_translate_access(tpt, &a, sgl);
#elif defined(TPT_HOT_WORD)
    /*
     * The speed build's fast path (issue 30: the instructions per call
     * against bench_tpt.c's floor): tpt_remote_hot's check of FIG. 18A
     * a-f, the SGL, then the direct translation's one- and two-page
     * straight line, written out here: a page word w is usable when w -
     * PRESENT has no bit under the page mask (present, reserved bits
     * clear, aligned), and w - PRESENT is then the page's address.
     * Anything else, every failure included, takes the precise path.
     * tests/check_fastpath_tpt.sh holds all of it to the precise path's
     * answers.
     */
    const struct ofl_tpt_remote a = {.to = to, .len = len, .stag = stag,
                                     .pd = pd, .qp = qp, .need = need};
    const struct ofl_tpt_entry *r = tpt_remote_hot(tpt, &a);
    const uint64_t *att;
    uint32_t shift;
    uint64_t pos, pmask, in, first;

    if (r == NULL || sgl == NULL || sgl->piece == NULL)
        goto slow;
    att = tpt->att + r->att_base;
    shift = r->page_shift;
    pmask = ((uint64_t)1 << shift) - 1;
    pos = to - r->va + r->fpo;
    in = pos & pmask;
    first = pmask + 1 - in;
    if (len - 1 <= pmask) { /* len in 1 .. page size: one or two pages */
        const uint64_t *w = &att[pos >> shift];
        /* page word - PRESENT: the page's address when the word is usable */
        uint64_t pg0 = w[0] - OFL_TPT_ATT_PRESENT, pg1;

        if ((pg0 & pmask) == 0) {
            if (len <= first) {
                if (sgl->cap != 0) {
                    sgl->piece[0].pa = pg0 + in;
                    sgl->piece[0].len = (uint32_t)len;
                    sgl->count = 1;
                    sgl->bytes = len;
                    return OFL_OK;
                }
            } else if (sgl->cap >= 2 &&
                       ((pg1 = w[1] - OFL_TPT_ATT_PRESENT) & pmask) == 0) {
                uint64_t pa0 = pg0 + in;

                if (pa0 + first == pg1 && pg1 > pa0) {
                    sgl->piece[0].pa = pa0;
                    sgl->piece[0].len = (uint32_t)len;
                    sgl->count = 1;
                } else {
                    sgl->piece[0].pa = pa0;
                    sgl->piece[0].len = (uint32_t)first;
                    sgl->piece[1].pa = pg1;
                    sgl->piece[1].len = (uint32_t)(len - first);
                    sgl->count = 2;
                }
                sgl->bytes = len;
                return OFL_OK;
            }
        }
    }
    return tpt_translate_loop_hot(tpt, r, 0, sgl, to, len);
slow:
    return tpt_check_translate_slow(tpt, (uint64_t)pd << 32 | stag,
                                    (uint64_t)need << 32 | qp, sgl, to, len);
#else
    const struct ofl_tpt_entry *r;
    uint64_t off = 0;

    r = tpt_remote_fast(tpt, stag, pd, qp, to, len, need, sgl, &off);
    if (r == NULL)
        return tpt_check_translate_slow(tpt, (uint64_t)pd << 32 | stag,
                                        (uint64_t)need << 32 | qp, sgl, to,
                                        len);
    return tpt_translate_direct(tpt, r, off, to, len, sgl);
#endif
}

enum ofl_err ofl_tpt_check_translate_access(const struct ofl_tpt *tpt,
                                            const struct ofl_tpt_remote *a,
                                            struct ofl_tpt_sgl *sgl)
{
    const struct ofl_tpt_entry *r;
    uint64_t off = 0;

    if (a == NULL)
        return OFL_E_ARG;
    r = tpt_remote_fast(tpt, a->stag, a->pd, a->qp, a->to, a->len, a->need,
                        sgl, &off);
    if (r != NULL)
        return tpt_translate_direct(tpt, r, off, a->to, a->len, sgl);
    return tpt_check_translate_precise(tpt, a, sgl);
}

/* The diagnosing path of ofl_tpt_check_translate_local. */
static OFL_NOINLINE enum ofl_err
tpt_check_translate_local_precise(const struct ofl_tpt *tpt,
                                  const struct ofl_tpt_local *a,
                                  struct ofl_tpt_sgl *sgl)
{
    if (sgl == NULL || (sgl->piece == NULL && sgl->cap != 0))
        return OFL_E_ARG;
    return tpt_translate_checked(
        tpt, ofl_tpt_check_local(tpt, a->stag, a->pd, a->va, a->len, a->need),
        a->stag, a->va, a->len, sgl);
}

enum ofl_err ofl_tpt_check_translate_local(const struct ofl_tpt *tpt,
                                           const struct ofl_tpt_local *a,
                                           struct ofl_tpt_sgl *sgl)
{
    const struct ofl_tpt_entry *e;
    uint32_t index;
    uint64_t base, off, va, len;
    uint8_t need;

    if (a == NULL)
        return OFL_E_ARG;
    va = a->va;
    len = a->len;
    need = a->need;
    index = ofl_stag_index(a->stag);

    /* Fast path: one conjunction of every condition of FIG. 15 a-g (a
     * region with a direct ATT); anything else, including every failure,
     * takes the precise path, which names the reason. */
    if (tpt == NULL || sgl == NULL || sgl->piece == NULL ||
        index - 1u >= tpt->capacity - 1u)
        goto precise;
    e = &tpt->entry[index];
    base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
    off = va - base;
    if (e->key != ofl_stag_key(a->stag) || e->state != OFL_TPT_VALID ||
        e->type != OFL_TPT_REGION || e->pd != a->pd ||
        (e->access & need) != need || need == 0 ||
        (need & ~TPT_LOCAL_NEEDS) != 0 || va < base || off > e->len ||
        len > e->len - off || (len != 0 && va > OFL_U64_MAX - (len - 1)) ||
        e->att_kind != OFL_TPT_ATT_DIRECT)
        goto precise;
    return tpt_translate_direct(tpt, e, off, va, len, sgl);
precise:
    return tpt_check_translate_local_precise(tpt, a, sgl);
}

#if OFL_ENABLE_QP
/*
 * ofl_tpt_check_translate_local for an access whose checks (FIG. 15 a-g)
 * are already known to pass: ofl_tpt_check_local passed for a range of the
 * same STag, PD and need that holds [va, va + len), in the same engine call
 * with nothing run in between that can change the TPT (no verb, no port
 * hook, no transmission). Every check would pass again, so the result is
 * the one ofl_tpt_check_translate_local gives: its translation through a
 * direct ATT here, anything else (and an index out of the table, which the
 * precondition rules out) through ofl_tpt_check_translate_local itself.
 */
static enum ofl_err tpt_translate_local_checked(const struct ofl_tpt *tpt,
                                                const struct ofl_tpt_local *a,
                                                struct ofl_tpt_sgl *sgl)
{
#ifdef __OPTIMIZE_SIZE__
    /* A size build keeps one copy of the direct translation. */
    return ofl_tpt_check_translate_local(tpt, a, sgl);
#else
    const struct ofl_tpt_entry *e;
    uint32_t index = ofl_stag_index(a->stag);
    uint64_t base;

    if (index - 1u >= tpt->capacity - 1u)
        return ofl_tpt_check_translate_local(tpt, a, sgl);
    e = &tpt->entry[index];
    if (e->att_kind != OFL_TPT_ATT_DIRECT)
        return ofl_tpt_check_translate_local(tpt, a, sgl);
    base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
    return tpt_translate_direct(tpt, e, a->va - base, a->va, a->len, sgl);
#endif
}
#endif

/* Writes the page word of the page holding `to`: pa | present, or 0. */
static enum ofl_err tpt_set_page_word(struct ofl_tpt *tpt, uint32_t stag,
                                      uint64_t to, uint64_t pa, bool present)
{
    const struct ofl_tpt_entry *r;
    struct tpt_word_loc loc;
    uint64_t off, page, word;
    uint8_t b[8];
    enum ofl_err err = tpt_resolve(tpt, stag, to, 1, &r, &off);

    if (err != OFL_OK)
        return err;
    if (r->att_kind == OFL_TPT_ATT_PHYSICAL)
        return OFL_E_TPT_WRONG_TYPE; /* no page words to change */
    /* pa itself must be page aligned: checking pa | present would let an
     * odd pa (bit 0 set) through as if it were aligned. */
    if ((pa & (((uint64_t)1 << r->page_shift) - 1)) != 0)
        return OFL_E_ARG;
    word = present ? pa | OFL_TPT_ATT_PRESENT : 0;
    page = (off + r->fpo) >> r->page_shift;
    err = tpt_locate(tpt, r, page, &loc);
    if (err != OFL_OK)
        return err;
    if (!loc.in_host) {
        tpt->att[loc.slot] = word;
        return OFL_OK;
    }
    ofl_store_le64(b, word);
    return ofl_port_dma_write(tpt->port, loc.pa, b, sizeof(b));
}

enum ofl_err ofl_tpt_map_page(struct ofl_tpt *tpt, uint32_t stag, uint64_t to,
                              uint64_t pa)
{
    return tpt_set_page_word(tpt, stag, to, pa, true);
}

enum ofl_err ofl_tpt_unmap_page(struct ofl_tpt *tpt, uint32_t stag,
                                uint64_t to)
{
    return tpt_set_page_word(tpt, stag, to, 0, false);
}

enum ofl_err ofl_tpt_expire(struct ofl_tpt *tpt, uint32_t stag)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    tpt_make_invalid(e);
    return OFL_OK;
}

enum ofl_err ofl_tpt_note_use(struct ofl_tpt *tpt, uint32_t stag, bool last)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    if (last && (e->flags & OFL_TPT_F_ONE_SHOT))
        tpt_make_invalid(e);
    return OFL_OK;
}

#if OFL_FAST_PATH
/*
 * The qp engine's Last tagged segment (issue 30), in the forms it inlines:
 * tpt_last_flags is ofl_tpt_query's answer and info->flags, the only
 * field the one-touch decision reads, without the copy of the rest or
 * struct ofl_tpt_info's frame; tpt_note_last_use is ofl_tpt_note_use(tpt,
 * stag, true), called only for a Valid one-shot entry, the only one it
 * changes.
 */
struct tpt_last_info {
    uint8_t flags;
};

static OFL_ALWAYS_INLINE enum ofl_err
tpt_last_flags(const struct ofl_tpt *tpt, uint32_t stag,
               struct tpt_last_info *info)
{
    const struct ofl_tpt_entry *e = tpt_slot(tpt, stag);

    if (e == NULL || e->state == OFL_TPT_FREE || e->key != ofl_stag_key(stag))
        return OFL_E_TPT_INVALID_STAG; /* the caller tests for OFL_OK */
    info->flags = e->flags;
    return OFL_OK;
}

/* ofl_tpt_note_use(tpt, stag, true) when e, stag's entry, is a Valid
 * one-shot entry with stag's key: the one use of the Last segment that
 * changes anything (tpt_note_last_use's and tpt_note_checked_last_use's
 * one test). */
static OFL_ALWAYS_INLINE void
tpt_note_last_use_of(struct ofl_tpt *tpt, const struct ofl_tpt_entry *e,
                     uint32_t stag)
{
    if (e->state == OFL_TPT_VALID && e->key == ofl_stag_key(stag) &&
        (e->flags & OFL_TPT_F_ONE_SHOT))
        (void)ofl_tpt_note_use(tpt, stag, true);
}

static OFL_ALWAYS_INLINE void tpt_note_last_use(struct ofl_tpt *tpt,
                                                uint32_t stag)
{
    const struct ofl_tpt_entry *e = tpt_slot(tpt, stag);

    if (e != NULL)
        tpt_note_last_use_of(tpt, e, stag);
}

/*
 * The same two for a caller whose remote check of stag (FIG. 18A a-f,
 * tpt_remote_hot or tpt_check_remote) has just passed: the index is then
 * in range (a), and the table's capacity never changes, so the look-up
 * skips tpt_slot's tests (issue 30: the qp engine's whole Write FPDU, 13
 * instructions with gcc). tpt_checked_flags reads the flags with nothing
 * run since the check (the entry Valid with that key: tpt_last_flags's
 * other tests hold); tpt_note_checked_last_use runs after port calls, so
 * it tests the state and key again, as tpt_note_last_use.
 */
static OFL_ALWAYS_INLINE uint8_t tpt_checked_flags(const struct ofl_tpt *tpt,
                                                   uint32_t stag)
{
    return tpt->entry[ofl_stag_index(stag)].flags;
}

static OFL_ALWAYS_INLINE void tpt_note_checked_last_use(struct ofl_tpt *tpt,
                                                        uint32_t stag)
{
    tpt_note_last_use_of(tpt, &tpt->entry[ofl_stag_index(stag)], stag);
}
#endif

enum ofl_err ofl_tpt_set_touched(struct ofl_tpt *tpt, uint32_t stag,
                                 uint32_t sn)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err = tpt_find_valid(tpt, stag, &e);

    if (err != OFL_OK)
        return err;
    e->flags |= OFL_TPT_F_TOUCHED;
    e->stored_sn = sn;
    return OFL_OK;
}

enum ofl_err ofl_tpt_query(const struct ofl_tpt *tpt, uint32_t stag,
                           struct ofl_tpt_info *info)
{
    struct ofl_tpt_entry *e;
    enum ofl_err err;

    if (info == NULL)
        return OFL_E_ARG;
    err = tpt_find(tpt, stag, &e);
    if (err != OFL_OK)
        return err;
    info->va = e->va;
    info->len = e->len;
    info->pd = e->pd;
    info->stored_sn = e->stored_sn;
    info->region_stag_index = e->type == OFL_TPT_WINDOW ? e->region : 0;
    info->type = e->type;
    info->state = e->state;
    info->access = e->access;
    info->flags = e->flags;
    return OFL_OK;
}

static struct ofl_term_cause tpt_cause(uint8_t layer, uint8_t etype,
                                       uint8_t ecode)
{
    struct ofl_term_cause c;

    c.layer = layer;
    c.etype = etype;
    c.ecode = ecode;
    return c;
}

struct ofl_term_cause ofl_tpt_term_cause(enum ofl_err e, enum ofl_tpt_use use)
{
    const uint8_t rdmap = OFL_TERM_LAYER_RDMAP, ddp = OFL_TERM_LAYER_DDP;
    const uint8_t prot = OFL_TERM_RDMAP_REMOTE_PROTECTION;
    const uint8_t op = OFL_TERM_RDMAP_REMOTE_OPERATION;
    const uint8_t tagged = OFL_TERM_DDP_TAGGED;

    if (use == OFL_TPT_USE_INVALIDATE) {
        /* RFC 5040 §7.2 lists "STag cannot be invalidated" under both
         * types: a protection failure when the STag belongs to another
         * stream, an operation failure otherwise. */
        if (e == OFL_E_TPT_PD_MISMATCH || e == OFL_E_TPT_QP_MISMATCH)
            return tpt_cause(rdmap, prot, OFL_TERM_RDMAP_CANNOT_INVALIDATE);
        return tpt_cause(rdmap, op, OFL_TERM_RDMAP_CANNOT_INVALIDATE);
    }
    switch (e) {
    case OFL_E_TPT_INVALID_STAG:
    case OFL_E_TPT_KEY_MISMATCH:
    case OFL_E_TPT_NOT_VALID:
    case OFL_E_TPT_WRONG_TYPE:
    case OFL_E_TPT_REGION_GONE:
        return use == OFL_TPT_USE_PLACE
                   ? tpt_cause(ddp, tagged, OFL_TERM_DDP_T_INVALID_STAG)
                   : tpt_cause(rdmap, prot, OFL_TERM_RDMAP_INVALID_STAG);
    case OFL_E_TPT_BOUNDS:
        return use == OFL_TPT_USE_PLACE
                   ? tpt_cause(ddp, tagged, OFL_TERM_DDP_T_BASE_BOUNDS)
                   : tpt_cause(rdmap, prot, OFL_TERM_RDMAP_BASE_BOUNDS);
    case OFL_E_TPT_PD_MISMATCH:
    case OFL_E_TPT_QP_MISMATCH:
        return use == OFL_TPT_USE_PLACE
                   ? tpt_cause(ddp, tagged, OFL_TERM_DDP_T_STAG_NOT_ASSOCIATED)
                   : tpt_cause(rdmap, prot, OFL_TERM_RDMAP_STAG_NOT_ASSOCIATED);
    case OFL_E_TPT_TO_WRAP:
        return use == OFL_TPT_USE_PLACE
                   ? tpt_cause(ddp, tagged, OFL_TERM_DDP_T_TO_WRAP)
                   : tpt_cause(rdmap, prot, OFL_TERM_RDMAP_TO_WRAP);
    case OFL_E_TPT_ACCESS:
        /* DDP has no rights; access rights are RDMAP's (RFC 5040 §7.2). */
        return tpt_cause(rdmap, prot, OFL_TERM_RDMAP_ACCESS_RIGHTS);
    default:
        return tpt_cause(rdmap, op, OFL_TERM_RDMAP_CATASTROPHIC_STREAM);
    }
}

enum ofl_wc_status ofl_tpt_wc_status(enum ofl_err e)
{
    switch (e) {
    case OFL_OK:
        return OFL_WC_SUCCESS;
    case OFL_E_TPT_INVALID_STAG:
    case OFL_E_TPT_KEY_MISMATCH:
    case OFL_E_TPT_NOT_VALID:
    case OFL_E_TPT_WRONG_TYPE:
    case OFL_E_TPT_PD_MISMATCH:
    case OFL_E_TPT_QP_MISMATCH:
    case OFL_E_TPT_BOUNDS:
    case OFL_E_TPT_TO_WRAP:
    case OFL_E_TPT_ACCESS:
    case OFL_E_TPT_REGION_GONE:
    case OFL_E_TPT_ATT_OWNED: /* the WQE named another entry's slots */
    case OFL_E_TPT_SEG_RANGE: /* an effective address not the process's */
    case OFL_E_TPT_SEG_INVALID:
    case OFL_E_TPT_SEG_DISCONTIG:
        return OFL_WC_LOC_PROT_ERR;
    case OFL_E_TPT_NO_BIND:
    case OFL_E_TPT_ACCESS_COMBO:
        return OFL_WC_MW_BIND_ERR;
    case OFL_E_TPT_PAGE_FAULT:
    case OFL_E_TPT_ATT_CORRUPT:
    case OFL_E_PORT_DMA:
    case OFL_E_DMA_RANGE:
        return OFL_WC_LOC_ACCESS_ERR;
    case OFL_E_TPT_SGL_FULL:
        return OFL_WC_LOC_LEN_ERR;
    default:
        return OFL_WC_LOC_QP_OP_ERR;
    }
}

/* ---- local protection: the segment table (seed 001 FIG. 13-17) ---------- */

enum ofl_err ofl_tpt_seg_init(struct ofl_tpt_segtab *st, struct ofl_tpt_seg *seg,
                              uint32_t capacity, uint8_t seg_shift)
{
    uint32_t i, k;

    if (st == NULL || seg == NULL || seg_shift < OFL_TPT_SEG_SHIFT_MIN ||
        seg_shift > OFL_TPT_SEG_SHIFT_MAX || capacity == 0 ||
        capacity > OFL_TPT_SEG_MAX_ENTRIES ||
        (uint64_t)(capacity - 1u) > (~(uint64_t)0 >> seg_shift))
        return OFL_E_ARG;
    for (i = 0; i < capacity; i++) {
        seg[i].vsid = 0;
        seg[i].valid = 0;
        for (k = 0; k < sizeof(seg[i].rsv_); k++)
            seg[i].rsv_[k] = 0;
    }
    st->seg = seg;
    st->capacity = capacity;
    st->valid_count = 0;
    st->updates = 0;
    st->seg_shift = seg_shift;
    return OFL_OK;
}

enum ofl_err ofl_tpt_seg_update(struct ofl_tpt_segtab *st,
                                const struct ofl_tpt_seg_update *u)
{
    struct ofl_tpt_seg *e;

    if (st == NULL || u == NULL || st->seg == NULL)
        return OFL_E_ARG;
    if (u->esid >= st->capacity)
        return OFL_E_TPT_SEG_RANGE;
    e = &st->seg[u->esid];
    switch (u->op) {
    case OFL_TPT_SEG_ADD:
    case OFL_TPT_SEG_CHANGE:
        /* The virtual address it makes must fit in 64 bits. */
        if (u->vsid > (~(uint64_t)0 >> st->seg_shift))
            return OFL_E_TPT_SEG_UPDATE;
        /* ADD needs an invalid entry, CHANGE a valid one: an update that
         * disagrees with the copy means the VMM and the copy diverged. */
        if ((e->valid != 0) != (u->op == OFL_TPT_SEG_CHANGE))
            return OFL_E_TPT_SEG_UPDATE;
        if (u->op == OFL_TPT_SEG_ADD)
            st->valid_count++;
        e->vsid = u->vsid;
        e->valid = 1;
        break;
    case OFL_TPT_SEG_DELETE:
        if (e->valid == 0)
            return OFL_E_TPT_SEG_UPDATE;
        e->valid = 0;
        e->vsid = 0;
        st->valid_count--;
        break;
    default:
        return OFL_E_TPT_SEG_UPDATE;
    }
    st->updates++;
    return OFL_OK;
}

enum ofl_err ofl_tpt_seg_translate(const struct ofl_tpt_segtab *st,
                                   uint64_t ea, uint64_t len, uint64_t *va)
{
    uint64_t last, first_id, last_id, id, vsid = 0;
    const struct ofl_tpt_seg *e;

    if (st == NULL || va == NULL || st->seg == NULL)
        return OFL_E_ARG;
    last = len == 0 ? ea : ea + (len - 1u);
    if (last < ea)
        return OFL_E_TPT_SEG_RANGE; /* wraps past 2^64 */
    first_id = ea >> st->seg_shift;
    last_id = last >> st->seg_shift;
    /* One entry per segment the range touches; the loop ends at the
     * table's capacity whatever the range. */
    for (id = first_id; id <= last_id; id++) {
        if (id >= st->capacity)
            return OFL_E_TPT_SEG_RANGE;
        e = &st->seg[id];
        if (e->valid == 0)
            return OFL_E_TPT_SEG_INVALID;
        if (id != first_id && e->vsid != vsid + 1u)
            return OFL_E_TPT_SEG_DISCONTIG;
        vsid = e->vsid;
    }
    *va = (st->seg[first_id].vsid << st->seg_shift) |
          (ea & ((~(uint64_t)0) >> (64u - st->seg_shift)));
    return OFL_OK;
}

enum ofl_err ofl_tpt_register_ea(struct ofl_tpt *tpt,
                                 const struct ofl_tpt_segtab *st,
                                 uint32_t stag, uint32_t pd,
                                 const struct ofl_tpt_region_desc *desc)
{
    struct ofl_tpt_region_desc d;
    const struct ofl_tpt_entry *e;
    enum ofl_err err;

    if (tpt == NULL || st == NULL || desc == NULL)
        return OFL_E_ARG;
    e = tpt_slot(tpt, stag);
    if (e != NULL && e->state != OFL_TPT_FREE && e->type == OFL_TPT_ISCSI)
        return OFL_E_TPT_WRONG_TYPE; /* va is a command reference */
    /* Field by field: a struct assignment may become a memcpy call. */
    d.va = desc->va;
    d.len = desc->len;
    d.att_base = desc->att_base;
    d.att_count = desc->att_count;
    d.fpo = desc->fpo;
    d.page_shift = desc->page_shift;
    d.att_kind = desc->att_kind;
    d.access = desc->access;
    d.flags = desc->flags;
    err = ofl_tpt_seg_translate(st, desc->va, desc->len, &d.va);
    if (err != OFL_OK)
        return err;
    return ofl_tpt_register(tpt, stag, pd, &d);
}

enum ofl_err ofl_tpt_bind_ea(struct ofl_tpt *tpt,
                             const struct ofl_tpt_segtab *st,
                             const struct ofl_tpt_bind_args *b,
                             uint32_t *bound_stag)
{
    struct ofl_tpt_bind_args a;
    enum ofl_err err;

    if (st == NULL || b == NULL)
        return OFL_E_ARG;
    a.va = b->va;
    a.len = b->len;
    a.stag = b->stag;
    a.region_stag = b->region_stag;
    a.pd = b->pd;
    a.qp = b->qp;
    a.access = b->access;
    a.flags = b->flags;
    if (b->len != 0) { /* len 0 unbinds: no address to check */
        err = ofl_tpt_seg_translate(st, b->va, b->len, &a.va);
        if (err != OFL_OK)
            return err;
    }
    return ofl_tpt_bind_window(tpt, &a, bound_stag);
}

#endif /* OFL_ENABLE_TPT */

/* ======================================================================== */
/* seq                                                                      */
/* ======================================================================== */
#if OFL_ENABLE_SEQ
/* Seed 000 FIG. 18B row 3: the entry's one touch is spent (DDP tagged
 * "Invalid STag", RFC 5041 §7). */
static struct ofl_term_cause seq_spent_cause(void)
{
    struct ofl_term_cause c;

    c.layer = OFL_TERM_LAYER_DDP;
    c.etype = OFL_TERM_DDP_TAGGED;
    c.ecode = OFL_TERM_DDP_T_INVALID_STAG;
    return c;
}

static bool seq_window_ok(uint32_t wnd)
{
    return wnd != 0 && wnd <= OFL_SEQ_WND_MAX;
}

enum ofl_err ofl_seq_init(struct ofl_seq *s, uint32_t nxt, uint32_t wnd,
                          struct ofl_seq_pending *slots, uint32_t cap)
{
    if (s == NULL || !seq_window_ok(wnd) || (slots == NULL && cap != 0))
        return OFL_E_ARG;
    s->nxt = nxt;
    s->wnd = wnd;
    s->pending = slots;
    s->pending_cap = cap;
    s->pending_count = 0;
    return OFL_OK;
}

enum ofl_err ofl_seq_set_window(struct ofl_seq *s, uint32_t wnd)
{
    if (s == NULL || !seq_window_ok(wnd))
        return OFL_E_ARG;
    s->wnd = wnd;
    return OFL_OK;
}

enum ofl_seq_class ofl_seq_classify(uint32_t nxt, uint32_t wnd, uint32_t sn)
{
    if (sn + 1u == nxt)
        return OFL_SEQ_NEXT;
    if (ofl_sn_diff(nxt, sn) < wnd)
        return OFL_SEQ_IN_WINDOW;
    return OFL_SEQ_OUTSIDE;
}

/* The body of ofl_seq_advance, inlined into the qp engine's receive path
 * (qp_advance_only: twice per FPDU). */
static OFL_HOT_INLINE enum ofl_err seq_advance(struct ofl_seq *s, uint32_t n,
                                               uint32_t *due_count)
{
    uint32_t i, due = 0;

    if (s == NULL)
        return OFL_E_ARG;
    if (n > s->wnd)
        return OFL_E_SEQ_BEYOND_WINDOW;
    /* Pending SNs lie in [nxt, nxt + 2^30) and n <= 2^30, so the distance
     * from the old nxt orders them without serial-number ambiguity. */
    for (i = 0; i < s->pending_count; i++) {
        struct ofl_seq_pending *p = &s->pending[i];

        if (!p->due && ofl_sn_diff(s->nxt, p->sn) < n)
            p->due = 1;
        due += p->due;
    }
    s->nxt += n;
    if (due_count != NULL)
        *due_count = due;
    return OFL_OK;
}

enum ofl_err ofl_seq_advance(struct ofl_seq *s, uint32_t n,
                             uint32_t *due_count)
{
    return seq_advance(s, n, due_count);
}

enum ofl_err ofl_seq_defer(struct ofl_seq *s, uint32_t stag, uint32_t sn)
{
    uint32_t i;

    if (s == NULL)
        return OFL_E_ARG;
    if (ofl_seq_classify(s->nxt, s->wnd, sn) != OFL_SEQ_IN_WINDOW)
        return OFL_E_SEQ_OUTSIDE;
    for (i = 0; i < s->pending_count; i++)
        if (s->pending[i].stag == stag)
            return OFL_E_SEQ_DUPLICATE;
    if (s->pending_count >= s->pending_cap)
        return OFL_E_SEQ_PENDING_FULL;
    s->pending[s->pending_count].stag = stag;
    s->pending[s->pending_count].sn = sn;
    s->pending[s->pending_count].due = 0;
    s->pending_count++;
    return OFL_OK;
}

void ofl_seq_end(struct ofl_seq *s)
{
    uint32_t i;

    for (i = 0; s != NULL && i < s->pending_count; i++)
        s->pending[i].due = 1;
}

bool ofl_seq_take_due(struct ofl_seq *s, uint32_t *stag, uint32_t *sn)
{
    uint32_t i;

    if (s == NULL)
        return false;
    for (i = 0; i < s->pending_count; i++) {
        struct ofl_seq_pending *p = &s->pending[i];

        if (!p->due)
            continue;
        if (stag != NULL)
            *stag = p->stag;
        if (sn != NULL)
            *sn = p->sn;
        /* Order does not matter: move the last slot into the hole. */
        ofl_copy(p, &s->pending[s->pending_count - 1], sizeof(*p));
        s->pending_count--;
        return true;
    }
    return false;
}

struct ofl_seq_ot ofl_seq_one_touch(bool last, bool one_touch, bool touched,
                                    uint32_t sn, uint32_t nxt, uint32_t wnd)
{
    struct ofl_seq_ot d;

    d.action = OFL_SEQ_OT_PLACE;
    d.row = 1;
    d.place = true;
    d.invalidate = false;
    d.set_touched = false;
    d.defer = false;
    d.terminate = false;
    d.stored_sn = 0;
    d.cause.layer = 0;
    d.cause.etype = 0;
    d.cause.ecode = 0;
    if (!last)
        return d; /* row 1 */
    if (!one_touch) {
        d.row = 2;
        return d;
    }
    if (touched) {
        d.action = OFL_SEQ_OT_INVALIDATE_TERMINATE;
        d.row = 3;
        d.place = false;
        d.invalidate = true;
        d.terminate = true;
        d.cause = seq_spent_cause();
        return d;
    }
    switch (ofl_seq_classify(nxt, wnd, sn)) {
    case OFL_SEQ_NEXT:
        d.action = OFL_SEQ_OT_INVALIDATE_PLACE;
        d.row = 4;
        d.invalidate = true;
        break;
    case OFL_SEQ_IN_WINDOW:
        d.action = OFL_SEQ_OT_TOUCH_PLACE;
        d.row = 5;
        d.set_touched = true;
        d.defer = true;
        d.stored_sn = sn;
        break;
    default:
        d.action = OFL_SEQ_OT_DROP;
        d.row = 6;
        d.place = false;
        break;
    }
    return d;
}

#if OFL_ENABLE_TPT
/* The pending slot of stag, or NULL. */
static struct ofl_seq_pending *seq_pending_of(struct ofl_seq *s, uint32_t stag)
{
    uint32_t i;

    for (i = 0; i < s->pending_count; i++)
        if (s->pending[i].stag == stag)
            return &s->pending[i];
    return NULL;
}

/*
 * Row 5 applied: the deferral first, then Touched. A pair left by an
 * earlier life of the STag (deregistered, and the index and key issued
 * again: the entry is not Touched, so the pair cannot be its own) is taken
 * over rather than refused. A failure of set_touched undoes the deferral.
 */
static enum ofl_err seq_touch(struct ofl_seq *s, struct ofl_tpt *tpt,
                              uint32_t stag, uint32_t sn, bool *full)
{
    struct ofl_seq_pending *p = seq_pending_of(s, stag), old;
    enum ofl_err err;

    *full = false;
    if (p != NULL) {
        ofl_copy(&old, p, sizeof(old));
        p->sn = sn;
        p->due = 0;
    } else {
        err = ofl_seq_defer(s, stag, sn);
        if (err == OFL_E_SEQ_PENDING_FULL)
            *full = true;
        if (err != OFL_OK)
            return err;
    }
    err = ofl_tpt_set_touched(tpt, stag, sn);
    if (err != OFL_OK) {
        if (p != NULL)
            ofl_copy(p, &old, sizeof(old));
        else
            s->pending_count--; /* the deferral took the last slot */
    }
    return err;
}

enum ofl_err ofl_seq_one_touch_apply(struct ofl_seq *s, struct ofl_tpt *tpt,
                                     uint32_t stag, bool last, uint32_t sn,
                                     struct ofl_seq_ot *out)
{
    struct ofl_tpt_info info;
    struct ofl_seq_pending *p;
    struct ofl_seq_ot d;
    enum ofl_err err;
    bool full;

    if (s == NULL || tpt == NULL || out == NULL)
        return OFL_E_ARG;
    err = ofl_tpt_query(tpt, stag, &info);
    if (err != OFL_OK)
        return err;
    d = ofl_seq_one_touch(last, (info.flags & OFL_TPT_F_ONE_TOUCH) != 0,
                          (info.flags & OFL_TPT_F_TOUCHED) != 0, sn, s->nxt,
                          s->wnd);
    p = seq_pending_of(s, stag);
    if (d.terminate && p != NULL && p->sn == sn && info.stored_sn == sn) {
        /* Another copy of the segment that touched the entry on this
         * stream (a TCP retransmission, or the same bytes lining up in
         * order): the same access, already placed, not a second one
         * (step 1824 reads the stored DDP SN). Nothing changes. */
        d = ofl_seq_one_touch(true, true, false, s->nxt + s->wnd, s->nxt,
                              s->wnd);
        d.action = OFL_SEQ_OT_DUPLICATE;
        d.row = 5;
    } else if (d.invalidate) {
        err = ofl_tpt_expire(tpt, stag);
        if (err != OFL_OK)
            return err;
    } else if (d.set_touched) {
        err = seq_touch(s, tpt, stag, sn, &full);
        if (full) {
            /* Cannot track the deferred invalidation: behave as row 6. */
            d = ofl_seq_one_touch(true, true, false, s->nxt + s->wnd,
                                  s->nxt, s->wnd);
        } else if (err != OFL_OK) {
            return err;
        }
    }
    ofl_copy(out, &d, sizeof(*out));
    return OFL_OK;
}

enum ofl_err ofl_seq_retire(struct ofl_seq *s, struct ofl_tpt *tpt,
                            uint32_t *expired)
{
    uint32_t stag, sn, n = 0;

    if (s == NULL || tpt == NULL)
        return OFL_E_ARG;
    while (ofl_seq_take_due(s, &stag, &sn)) {
        struct ofl_tpt_info info;

        if (ofl_tpt_query(tpt, stag, &info) != OFL_OK ||
            info.state != OFL_TPT_VALID ||
            (info.flags & OFL_TPT_F_TOUCHED) == 0 || info.stored_sn != sn)
            continue;
        if (ofl_tpt_expire(tpt, stag) == OFL_OK)
            n++;
    }
    if (expired != NULL)
        *expired = n;
    return OFL_OK;
}
#endif /* OFL_ENABLE_TPT */
#endif /* OFL_ENABLE_SEQ */

/* ======================================================================== */
/* wire                                                                     */
/* ======================================================================== */
#if OFL_ENABLE_WIRE
/* ---- MPA Request / Reply (RFC 5044 §7.1, RFC 6581) --------------------- */

static const uint8_t mpa_key_req[OFL_MPA_KEY_LEN] = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ',
    'F', 'r', 'a', 'm', 'e'};
static const uint8_t mpa_key_rep[OFL_MPA_KEY_LEN] = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ',
    'F', 'r', 'a', 'm', 'e'};

#define MPA_V2_P2P 0x8000u    /* IRD word: A */
#define MPA_V2_SEND 0x4000u   /* IRD word: B */
#define MPA_V2_WRITE 0x8000u  /* ORD word: C */
#define MPA_V2_READ 0x4000u   /* ORD word: D */

static bool mpa_key_is(const uint8_t *p, const uint8_t *key)
{
    uint32_t i;
    uint8_t diff = 0;

    for (i = 0; i < OFL_MPA_KEY_LEN; i++)
        diff |= (uint8_t)(p[i] ^ key[i]);
    return diff == 0;
}

static struct ofl_term_cause wire_cause(uint8_t layer, uint8_t etype,
                                        uint8_t ecode)
{
    struct ofl_term_cause c;

    c.layer = layer;
    c.etype = etype;
    c.ecode = ecode;
    return c;
}

struct ofl_term_cause ofl_wire_term_cause(enum ofl_err e, bool tagged)
{
    const uint8_t mpa = OFL_TERM_LAYER_MPA, ddp = OFL_TERM_LAYER_DDP;
    const uint8_t rdmap = OFL_TERM_LAYER_RDMAP;
    const uint8_t ut = OFL_TERM_DDP_UNTAGGED;
    const uint8_t op = OFL_TERM_RDMAP_REMOTE_OPERATION;

    switch (e) {
    case OFL_E_MPA_KEY:
    case OFL_E_MPA_REV:
    case OFL_E_MPA_PD_LEN:
    case OFL_E_MPA_ENHANCED:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR, OFL_TERM_MPA_INVALID_RR);
    case OFL_E_MPA_REJECTED:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR, OFL_TERM_MPA_CONN_LOST);
    case OFL_E_MPA_IRD:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR,
                          OFL_TERM_MPA_INSUFFICIENT_IRD);
    case OFL_E_MPA_RTR:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR,
                          OFL_TERM_MPA_NO_MATCHING_RTR);
    case OFL_E_MPA_CRC:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR, OFL_TERM_MPA_CRC);
    case OFL_E_MPA_MARKER:
        return wire_cause(mpa, OFL_TERM_MPA_ERROR, OFL_TERM_MPA_MARKER);
    case OFL_E_MPA_TOO_LONG:
    case OFL_E_DDP_SHORT:
        return wire_cause(ddp, OFL_TERM_DDP_LOCAL_CATASTROPHIC, 0);
    case OFL_E_DDP_VERSION:
        return tagged ? wire_cause(ddp, OFL_TERM_DDP_TAGGED,
                                   OFL_TERM_DDP_T_INVALID_VERSION)
                      : wire_cause(ddp, ut, OFL_TERM_DDP_U_INVALID_VERSION);
    case OFL_E_DDP_QN:
        return wire_cause(ddp, ut, OFL_TERM_DDP_U_INVALID_QN);
    case OFL_E_DDP_MSN_NO_BUFFER:
        return wire_cause(ddp, ut, OFL_TERM_DDP_U_INVALID_MSN_NO_BUFFER);
    case OFL_E_DDP_MSN_RANGE:
        return wire_cause(ddp, ut, OFL_TERM_DDP_U_INVALID_MSN_RANGE);
    case OFL_E_DDP_MO:
        return wire_cause(ddp, ut, OFL_TERM_DDP_U_INVALID_MO);
    case OFL_E_DDP_TOO_LONG:
        return wire_cause(ddp, ut, OFL_TERM_DDP_U_MSG_TOO_LONG);
    case OFL_E_RDMAP_VERSION:
        return wire_cause(rdmap, op, OFL_TERM_RDMAP_INVALID_VERSION);
    case OFL_E_RDMAP_OPCODE:
    case OFL_E_RDMAP_ATOMIC_OP:
        return wire_cause(rdmap, op, OFL_TERM_RDMAP_UNEXPECTED_OPCODE);
    case OFL_E_RDMAP_LENGTH:
    case OFL_E_RDMAP_LAST:
    case OFL_E_RDMAP_TERM:
        return wire_cause(rdmap, op, OFL_TERM_RDMAP_CATASTROPHIC_STREAM);
    default:
        return wire_cause(rdmap, OFL_TERM_RDMAP_LOCAL_CATASTROPHIC, 0);
    }
}

/* Private data bytes on the wire: the RFC 6581 block and the ULP's. */
static uint32_t mpa_rr_pd_total(const struct ofl_mpa_rr *rr)
{
    return (uint32_t)rr->pd_len + (rr->enhanced ? OFL_MPA_V2_LEN : 0u);
}

static enum ofl_err mpa_rr_check(const struct ofl_mpa_rr *rr)
{
    if (rr->rev < 1 || rr->rev > 2 || (rr->enhanced && rr->rev != 2))
        return OFL_E_ARG;
    if (mpa_rr_pd_total(rr) > OFL_MPA_PD_MAX ||
        (rr->pd_len != 0 && rr->pd == NULL))
        return OFL_E_ARG;
    if (rr->ird > OFL_MPA_IRD_ORD_MAX || rr->ord > OFL_MPA_IRD_ORD_MAX ||
        (rr->rtr & ~OFL_MPA_RTR_ALL) != 0)
        return OFL_E_ARG;
    if (!rr->enhanced && (rr->p2p || rr->rtr != 0))
        return OFL_E_ARG;
    return OFL_OK;
}

size_t ofl_mpa_rr_len(const struct ofl_mpa_rr *rr)
{
    return rr == NULL ? 0 : OFL_MPA_RR_HDR_LEN + (size_t)mpa_rr_pd_total(rr);
}

enum ofl_err ofl_mpa_rr_build(const struct ofl_mpa_rr *rr, uint8_t *out,
                              size_t cap, size_t *len)
{
    struct ofl_wr w;
    enum ofl_err err;
    uint8_t flags;

    if (rr == NULL || out == NULL || len == NULL)
        return OFL_E_ARG;
    err = mpa_rr_check(rr);
    if (err != OFL_OK)
        return err;
    if (cap < ofl_mpa_rr_len(rr))
        return OFL_E_SIZE;
    flags = (uint8_t)(rr->flags &
                      (OFL_MPA_F_MARKERS | OFL_MPA_F_CRC | OFL_MPA_F_REJECT));
    if (rr->enhanced)
        flags |= OFL_MPA_F_ENHANCED;
    ofl_wr_init(&w, out, cap);
    ofl_wr_bytes(&w, rr->reply ? mpa_key_rep : mpa_key_req, OFL_MPA_KEY_LEN);
    ofl_wr_u8(&w, flags);
    ofl_wr_u8(&w, rr->rev);
    ofl_wr_be16(&w, (uint16_t)mpa_rr_pd_total(rr));
    if (rr->enhanced) {
        ofl_wr_be16(&w, (uint16_t)(rr->ird | (rr->p2p ? MPA_V2_P2P : 0u) |
                                   ((rr->rtr & OFL_MPA_RTR_SEND) ? MPA_V2_SEND
                                                                 : 0u)));
        ofl_wr_be16(&w, (uint16_t)(rr->ord |
                                   ((rr->rtr & OFL_MPA_RTR_WRITE) ? MPA_V2_WRITE
                                                                  : 0u) |
                                   ((rr->rtr & OFL_MPA_RTR_READ) ? MPA_V2_READ
                                                                 : 0u)));
    }
    ofl_wr_bytes(&w, rr->pd, rr->pd_len);
    if (w.bad)
        return OFL_E_SIZE;
    *len = w.off;
    return OFL_OK;
}

enum ofl_err ofl_mpa_rr_parse(const uint8_t *buf, size_t len, bool reply,
                              struct ofl_mpa_rr *rr, size_t *frame_len)
{
    struct ofl_mpa_rr r;
    uint16_t pdl, ird, ord;
    uint8_t flags, rev;

    if ((buf == NULL && len != 0) || rr == NULL || frame_len == NULL)
        return OFL_E_ARG;
    *frame_len = OFL_MPA_RR_HDR_LEN;
    if (len < OFL_MPA_RR_HDR_LEN)
        return OFL_E_TRUNCATED;
    if (!mpa_key_is(buf, reply ? mpa_key_rep : mpa_key_req))
        return OFL_E_MPA_KEY;
    flags = buf[16];
    rev = buf[17];
    pdl = ofl_load_be16(buf + 18);
    if (rev == 0 || (reply && rev > 2))
        return OFL_E_MPA_REV;
    if (pdl > OFL_MPA_PD_MAX)
        return OFL_E_MPA_PD_LEN;
    *frame_len = OFL_MPA_RR_HDR_LEN + (size_t)pdl;
    if (len < *frame_len)
        return OFL_E_TRUNCATED;
    r.reply = reply;
    r.flags = (uint8_t)(flags & (OFL_MPA_F_MARKERS | OFL_MPA_F_CRC |
                                 OFL_MPA_F_REJECT));
    r.rev = rev;
    r.enhanced = rev >= 2 && (flags & OFL_MPA_F_ENHANCED) != 0;
    r.p2p = 0;
    r.rtr = 0;
    r.ird = 0;
    r.ord = 0;
    r.pd = buf + OFL_MPA_RR_HDR_LEN;
    r.pd_len = pdl;
    if (r.enhanced) {
        if (pdl < OFL_MPA_V2_LEN)
            return OFL_E_MPA_ENHANCED;
        ird = ofl_load_be16(buf + 20);
        ord = ofl_load_be16(buf + 22);
        r.p2p = (ird & MPA_V2_P2P) != 0;
        r.rtr = (uint8_t)(((ird & MPA_V2_SEND) ? OFL_MPA_RTR_SEND : 0u) |
                          ((ord & MPA_V2_WRITE) ? OFL_MPA_RTR_WRITE : 0u) |
                          ((ord & MPA_V2_READ) ? OFL_MPA_RTR_READ : 0u));
        r.ird = (uint16_t)(ird & OFL_MPA_IRD_ORD_MAX);
        r.ord = (uint16_t)(ord & OFL_MPA_IRD_ORD_MAX);
        r.pd += OFL_MPA_V2_LEN;
        r.pd_len = (uint16_t)(pdl - OFL_MPA_V2_LEN);
    }
    *rr = r;
    return OFL_OK;
}

/* ---- MPA connection setup --------------------------------------------- */

static enum ofl_err mpa_cfg_check(const struct ofl_mpa_cfg *c)
{
    if (c->rev < 1 || c->rev > 2 || (c->enhanced && c->rev != 2))
        return OFL_E_ARG;
    if (c->ird > OFL_MPA_IRD_ORD_MAX || c->ord > OFL_MPA_IRD_ORD_MAX ||
        (c->rtr & ~OFL_MPA_RTR_ALL) != 0)
        return OFL_E_ARG;
    if (c->p2p && (!c->enhanced || c->rtr == 0))
        return OFL_E_ARG;
    if ((uint32_t)c->pd_len + (c->enhanced ? OFL_MPA_V2_LEN : 0u) >
            OFL_MPA_PD_MAX ||
        (c->pd_len != 0 && c->pd == NULL))
        return OFL_E_ARG;
    return OFL_OK;
}

enum ofl_err ofl_mpa_hs_init(struct ofl_mpa_hs *hs,
                             const struct ofl_mpa_cfg *cfg, bool initiator)
{
    enum ofl_err err;

    if (hs == NULL || cfg == NULL)
        return OFL_E_ARG;
    err = mpa_cfg_check(cfg);
    if (err != OFL_OK)
        return err;
    ofl_fill(hs, 0, sizeof(*hs));
    ofl_copy(&hs->cfg, cfg, sizeof(hs->cfg));
    hs->initiator = initiator;
    hs->state = initiator ? OFL_MPA_HS_START : OFL_MPA_HS_AWAIT_REQUEST;
    return OFL_OK;
}

/* Our own frame, before the per-reply adjustments. */
static void mpa_hs_own_frame(const struct ofl_mpa_hs *hs,
                             struct ofl_mpa_rr *rr)
{
    const struct ofl_mpa_cfg *c = &hs->cfg;

    rr->reply = !hs->initiator;
    rr->flags = (uint8_t)((c->markers ? OFL_MPA_F_MARKERS : 0u) |
                          (c->crc ? OFL_MPA_F_CRC : 0u));
    rr->rev = c->rev;
    rr->enhanced = c->enhanced;
    rr->p2p = c->p2p;
    rr->rtr = c->p2p ? c->rtr : 0;
    rr->ird = c->ird;
    rr->ord = c->ord;
    rr->pd = c->pd;
    rr->pd_len = c->pd_len;
}

static enum ofl_err mpa_hs_fail(struct ofl_mpa_hs *hs, enum ofl_err err,
                                uint8_t state)
{
    hs->state = state;
    hs->err = (uint16_t)err;
    hs->cause = ofl_wire_term_cause(err, false);
    return err;
}

enum ofl_err ofl_mpa_hs_request(struct ofl_mpa_hs *hs, uint8_t *out,
                                size_t cap, size_t *len)
{
    struct ofl_mpa_rr rr;
    enum ofl_err err;

    if (hs == NULL)
        return OFL_E_ARG;
    if (hs->state != OFL_MPA_HS_START)
        return OFL_E_MPA_STATE;
    mpa_hs_own_frame(hs, &rr);
    err = ofl_mpa_rr_build(&rr, out, cap, len);
    if (err != OFL_OK)
        return err;
    hs->state = OFL_MPA_HS_AWAIT_REPLY;
    return OFL_OK;
}

/* The one RTR kind the responder picks from offered (Write, Read, Send). */
static uint8_t mpa_pick_rtr(uint8_t offered)
{
    if (offered & OFL_MPA_RTR_WRITE)
        return OFL_MPA_RTR_WRITE;
    if (offered & OFL_MPA_RTR_READ)
        return OFL_MPA_RTR_READ;
    if (offered & OFL_MPA_RTR_SEND)
        return OFL_MPA_RTR_SEND;
    return 0;
}

static uint16_t mpa_min16(uint16_t a, uint16_t b)
{
    return a < b ? a : b;
}

/* Initiator: checks the reply in hs->peer and fills hs->params. */
static enum ofl_err mpa_hs_reply(struct ofl_mpa_hs *hs)
{
    const struct ofl_mpa_cfg *c = &hs->cfg;
    const struct ofl_mpa_rr *r = &hs->peer;
    struct ofl_mpa_params p;

    if (r->flags & OFL_MPA_F_REJECT)
        return mpa_hs_fail(hs, OFL_E_MPA_REJECTED, OFL_MPA_HS_REJECTED);
    if (r->rev > c->rev)
        return mpa_hs_fail(hs, OFL_E_MPA_REV, OFL_MPA_HS_FAILED);
    ofl_fill(&p, 0, sizeof(p));
    p.rev = r->rev;
    p.crc = c->crc || (r->flags & OFL_MPA_F_CRC) != 0;
    p.markers_rx = c->markers;
    p.markers_tx = (r->flags & OFL_MPA_F_MARKERS) != 0;
    p.enhanced = c->enhanced && r->enhanced;
    p.ird = c->ird;
    p.ord = c->ord;
    if (p.enhanced) {
        if (r->ord > c->ird)
            return mpa_hs_fail(hs, OFL_E_MPA_IRD, OFL_MPA_HS_FAILED);
        p.ord = mpa_min16(c->ord, r->ird);
        if (c->p2p) {
            /* The responder takes P2P with A set and exactly one kind,
             * one we offered (RFC 6581; Linux siw checks both too). */
            if (!r->p2p || r->rtr == 0 || (r->rtr & (r->rtr - 1u)) != 0 ||
                (r->rtr & c->rtr) == 0)
                return mpa_hs_fail(hs, OFL_E_MPA_RTR, OFL_MPA_HS_FAILED);
            p.p2p = true;
            p.rtr = r->rtr;
        }
    }
    ofl_copy(&hs->params, &p, sizeof(p));
    hs->state = OFL_MPA_HS_DONE;
    return OFL_OK;
}

enum ofl_err ofl_mpa_hs_recv(struct ofl_mpa_hs *hs, const uint8_t *data,
                             size_t len, size_t *used)
{
    size_t done = 0;
    uint32_t round;
    bool reply;

    if (hs == NULL || used == NULL || (data == NULL && len != 0))
        return OFL_E_ARG;
    *used = 0;
    if (hs->state != OFL_MPA_HS_AWAIT_REQUEST &&
        hs->state != OFL_MPA_HS_AWAIT_REPLY)
        return OFL_E_MPA_STATE;
    reply = hs->state == OFL_MPA_HS_AWAIT_REPLY;
    /* Round 1 collects the header, round 2 the private data. */
    for (round = 0; round < 2; round++) {
        size_t want = OFL_MPA_RR_HDR_LEN, take, flen;
        enum ofl_err err;

        if (hs->have >= OFL_MPA_RR_HDR_LEN)
            want = OFL_MPA_RR_HDR_LEN + (size_t)ofl_load_be16(hs->buf + 18);
        if (want > sizeof(hs->buf))
            want = sizeof(hs->buf); /* the parser rejects it below */
        take = want - hs->have;
        if (take > len - done)
            take = len - done;
        if (take != 0) /* data is NULL when len is 0: no NULL + 0 */
            ofl_copy(hs->buf + hs->have, data + done, take);
        hs->have = (uint16_t)(hs->have + take);
        done += take;
        *used = done;
        if (hs->have < want)
            return OFL_OK;
        err = ofl_mpa_rr_parse(hs->buf, hs->have, reply, &hs->peer, &flen);
        if (err == OFL_E_TRUNCATED)
            continue;
        if (err != OFL_OK)
            return mpa_hs_fail(hs, err, OFL_MPA_HS_FAILED);
        if (!reply) {
            hs->state = OFL_MPA_HS_DECIDE;
            return OFL_OK;
        }
        return mpa_hs_reply(hs);
    }
    return OFL_OK;
}

/* Responder: the reply to hs->peer, and its parameters. */
static enum ofl_err mpa_hs_answer(struct ofl_mpa_hs *hs, bool reject,
                                  uint8_t *out, size_t cap, size_t *len)
{
    const struct ofl_mpa_cfg *c = &hs->cfg;
    const struct ofl_mpa_rr *q = &hs->peer;
    struct ofl_mpa_params p;
    struct ofl_mpa_rr rr;
    enum ofl_err err, result = OFL_OK;

    if (hs->state != OFL_MPA_HS_DECIDE)
        return OFL_E_MPA_STATE;
    mpa_hs_own_frame(hs, &rr);
    ofl_fill(&p, 0, sizeof(p));
    p.rev = q->rev < c->rev ? q->rev : c->rev;
    p.crc = c->crc || (q->flags & OFL_MPA_F_CRC) != 0;
    p.markers_rx = c->markers;
    p.markers_tx = (q->flags & OFL_MPA_F_MARKERS) != 0;
    p.enhanced = p.rev == 2 && c->enhanced && q->enhanced;
    p.ird = c->ird;
    p.ord = c->ord;
    rr.rev = p.rev;
    rr.flags = (uint8_t)((c->markers ? OFL_MPA_F_MARKERS : 0u) |
                         (p.crc ? OFL_MPA_F_CRC : 0u));
    rr.enhanced = p.enhanced;
    rr.p2p = 0;
    rr.rtr = 0;
    if (p.enhanced) {
        p.ord = mpa_min16(c->ord, q->ird);
        rr.ord = p.ord;
        if (q->p2p && !reject) {
            p.rtr = mpa_pick_rtr((uint8_t)(q->rtr & c->rtr));
            if (p.rtr == 0)
                result = OFL_E_MPA_RTR;
            p.p2p = p.rtr != 0;
            rr.p2p = p.p2p;
            rr.rtr = p.rtr;
        }
    }
    if (reject || result != OFL_OK) {
        rr.flags = OFL_MPA_F_REJECT;
        rr.enhanced = 0;
        rr.p2p = 0;
        rr.rtr = 0;
    }
    err = ofl_mpa_rr_build(&rr, out, cap, len);
    if (err != OFL_OK)
        return err;
    if (reject)
        return mpa_hs_fail(hs, OFL_E_MPA_REJECTED, OFL_MPA_HS_REJECTED);
    if (result != OFL_OK)
        return mpa_hs_fail(hs, result, OFL_MPA_HS_REJECTED);
    ofl_copy(&hs->params, &p, sizeof(p));
    hs->state = OFL_MPA_HS_DONE;
    return OFL_OK;
}

enum ofl_err ofl_mpa_hs_accept(struct ofl_mpa_hs *hs, uint8_t *out,
                               size_t cap, size_t *len)
{
    if (hs == NULL)
        return OFL_E_ARG;
    return mpa_hs_answer(hs, false, out, cap, len);
}

enum ofl_err ofl_mpa_hs_reject(struct ofl_mpa_hs *hs, uint8_t *out,
                               size_t cap, size_t *len)
{
    enum ofl_err err;

    if (hs == NULL)
        return OFL_E_ARG;
    err = mpa_hs_answer(hs, true, out, cap, len);
    return err == OFL_E_MPA_REJECTED ? OFL_OK : err;
}

/* ---- FPDU layout (RFC 5044 §4) ----------------------------------------- */

/* Bytes that are not markers: ULPDU Length, ULPDU, pad, CRC. */
static uint32_t mpa_content_len(uint32_t ulpdu_len)
{
    return ((OFL_MPA_HDR_LEN + ulpdu_len + 3u) & ~3u) + OFL_MPA_CRC_LEN;
}

/* Wire offset, from an FPDU's first byte at stream position pos, of the
 * first marker position at or after it. */
static uint32_t mpa_first_marker(uint32_t pos)
{
    return (0u - pos) & (OFL_MPA_MARKER_INTERVAL - 1u);
}

/*
 * Markers inside an FPDU at pos with content non-marker bytes. Marker k
 * sits at wire offset f + 512k with f + 508k content bytes before it; it
 * belongs to the FPDU when some content byte follows it (a marker exactly
 * at the end leads the next FPDU).
 */
static uint32_t mpa_marker_count(uint32_t pos, uint32_t content)
{
    uint32_t f = mpa_first_marker(pos);

    if (f >= content)
        return 0;
    return (content - 1u - f) / (OFL_MPA_MARKER_INTERVAL - OFL_MPA_MARKER_LEN) +
           1u;
}

uint32_t ofl_mpa_fpdu_len(uint32_t pos, bool markers, uint32_t ulpdu_len)
{
    uint32_t content;

    if (ulpdu_len > OFL_MPA_ULPDU_MAX)
        return 0;
    content = mpa_content_len(ulpdu_len);
    if (!markers)
        return content;
    return content + OFL_MPA_MARKER_LEN * mpa_marker_count(pos, content);
}

uint16_t ofl_mpa_mulpdu(uint32_t emss, bool markers)
{
    uint32_t over = 6u + (emss & 3u);

    if (markers)
        over += 4u * ((emss + OFL_MPA_MARKER_INTERVAL - 1u) >> 9);
    if (emss > 0xFFFFFFu || emss <= over)
        return 0;
    emss -= over;
    return (uint16_t)(emss > OFL_MPA_ULPDU_MAX ? OFL_MPA_ULPDU_MAX : emss);
}

/* Compares a received CRC field with the register; fuzzing builds skip
 * the comparison (see offload.h). */
static bool mpa_crc_ok(uint32_t state, const uint8_t *field)
{
#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
    (void)state;
    (void)field;
    return true;
#else
    return ofl_crc32c_final(state) == ofl_load_le32(field);
#endif
}

/* ---- sending ------------------------------------------------------------ */

enum ofl_err ofl_mpa_tx_init(struct ofl_mpa_tx *tx,
                             const struct ofl_mpa_params *p, uint32_t emss,
                             const struct ofl_port *port)
{
    uint16_t m;

    if (tx == NULL || p == NULL || emss > 0xFFFFu)
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    m = ofl_mpa_mulpdu(emss, p->markers_tx);
    if (m == 0)
        return OFL_E_ARG;
    tx->port = port_crc_port(port);
    tx->pos = 0;
    tx->mulpdu = m;
    tx->markers = p->markers_tx;
    tx->crc = p->crc;
    return OFL_OK;
}

/* Writes FPDU content into out, inserting markers at their positions. */
struct mpa_emit {
    uint8_t *out;
    uint32_t w;      /* wire bytes written */
    uint32_t pos;    /* stream position of out[0] */
    uint32_t hdr_w;  /* wire offset of the ULPDU Length field */
    bool markers;
};

static void mpa_emit_marker_if_due(struct mpa_emit *e)
{
    uint32_t ptr;

    if (!e->markers || ((e->pos + e->w) & (OFL_MPA_MARKER_INTERVAL - 1u)) != 0)
        return;
    ptr = e->w == 0 ? 0u : e->w - e->hdr_w;
    ofl_store_be16(e->out + e->w, 0);
    ofl_store_be16(e->out + e->w + 2, (uint16_t)ptr);
    e->w += OFL_MPA_MARKER_LEN;
}

static void mpa_emit(struct mpa_emit *e, const uint8_t *src, uint32_t n)
{
    while (n != 0) {
        uint32_t chunk = n;

        mpa_emit_marker_if_due(e);
        if (e->markers) {
            uint32_t dist = mpa_first_marker(e->pos + e->w);

            if (chunk > dist)
                chunk = dist;
        }
        if (src != NULL) {
            ofl_copy(e->out + e->w, src, chunk);
            src += chunk;
        } else {
            ofl_fill(e->out + e->w, 0, chunk);
        }
        e->w += chunk;
        n -= chunk;
    }
}

enum ofl_err ofl_mpa_fpdu_build(struct ofl_mpa_tx *tx, const uint8_t *hdr,
                                size_t hdr_len, const uint8_t *payload,
                                size_t payload_len, uint8_t *out, size_t cap,
                                size_t *len)
{
    struct ofl_mpa_ulpdu u;

    u.hdr = hdr;
    u.hdr_len = hdr_len;
    u.payload = payload;
    u.payload_len = payload_len;
    return ofl_mpa_fpdu_buildv(tx, &u, out, cap, len);
}

enum ofl_err ofl_mpa_fpdu_buildv(struct ofl_mpa_tx *tx,
                                 const struct ofl_mpa_ulpdu *u, uint8_t *out,
                                 size_t cap, size_t *len)
{
    struct mpa_emit e;
    uint8_t field[OFL_MPA_HDR_LEN];
    uint32_t ulpdu, wire, pad;
    const uint8_t *hdr, *payload;
    size_t hdr_len, payload_len;

    if (u == NULL)
        return OFL_E_ARG;
    hdr = u->hdr;
    hdr_len = u->hdr_len;
    payload = u->payload;
    payload_len = u->payload_len;
    if (tx == NULL || out == NULL || len == NULL ||
        (hdr == NULL && hdr_len != 0) || (payload == NULL && payload_len != 0))
        return OFL_E_ARG;
    if (hdr_len > tx->mulpdu || payload_len > (size_t)tx->mulpdu - hdr_len)
        return OFL_E_MPA_TOO_LONG;
    ulpdu = (uint32_t)(hdr_len + payload_len);
    wire = ofl_mpa_fpdu_len(tx->pos, tx->markers, ulpdu);
    /* Every FPDUPTR must fit its 16 bits. */
    if (tx->markers && wire > 0x10000u)
        return OFL_E_MPA_TOO_LONG;
    if (cap < wire)
        return OFL_E_SIZE;
    e.out = out;
    e.w = 0;
    e.pos = tx->pos;
    e.markers = tx->markers;
    e.hdr_w = (tx->markers && mpa_first_marker(tx->pos) == 0)
                  ? OFL_MPA_MARKER_LEN
                  : 0u;
    pad = (0u - (OFL_MPA_HDR_LEN + ulpdu)) & 3u;
    ofl_store_be16(field, (uint16_t)ulpdu);
    mpa_emit(&e, field, OFL_MPA_HDR_LEN);
    mpa_emit(&e, hdr, (uint32_t)hdr_len);
    mpa_emit(&e, payload, (uint32_t)payload_len);
    mpa_emit(&e, NULL, pad);
    mpa_emit_marker_if_due(&e); /* a marker between pad and CRC is inside */
    if (tx->crc)
        ofl_store_le32(out + e.w, port_crc32c_buf(tx->port, out, e.w));
    else
        ofl_store_le32(out + e.w, 0);
    e.w += OFL_MPA_CRC_LEN;
    tx->pos += e.w;
    *len = e.w;
    return OFL_OK;
}

enum ofl_err ofl_mpa_fpdu_frame(struct ofl_mpa_tx *tx, const uint8_t *hdr,
                                size_t hdr_len, const uint8_t *payload,
                                size_t payload_len, uint8_t prefix[2],
                                uint8_t trailer[7], size_t *trailer_len)
{
    struct ofl_mpa_ulpdu u;

    u.hdr = hdr;
    u.hdr_len = hdr_len;
    u.payload = payload;
    u.payload_len = payload_len;
    return ofl_mpa_fpdu_framev(tx, &u, prefix, trailer, trailer_len);
}

enum ofl_err ofl_mpa_fpdu_framev(struct ofl_mpa_tx *tx,
                                 const struct ofl_mpa_ulpdu *u,
                                 uint8_t prefix[2], uint8_t trailer[7],
                                 size_t *trailer_len)
{
    uint32_t ulpdu, pad, crc = OFL_CRC32C_INIT;
    const uint8_t *hdr, *payload;
    size_t hdr_len, payload_len;

    if (u == NULL)
        return OFL_E_ARG;
    hdr = u->hdr;
    hdr_len = u->hdr_len;
    payload = u->payload;
    payload_len = u->payload_len;
    if (tx == NULL || prefix == NULL || trailer == NULL ||
        trailer_len == NULL || tx->markers ||
        (hdr == NULL && hdr_len != 0) || (payload == NULL && payload_len != 0))
        return OFL_E_ARG;
    if (hdr_len > tx->mulpdu || payload_len > (size_t)tx->mulpdu - hdr_len)
        return OFL_E_MPA_TOO_LONG;
    ulpdu = (uint32_t)(hdr_len + payload_len);
    pad = (0u - (OFL_MPA_HDR_LEN + ulpdu)) & 3u;
    ofl_store_be16(prefix, (uint16_t)ulpdu);
    /* The 7 bytes cleared as two overlapping words. */
    ofl_store_le32(trailer, 0);
    ofl_store_le32(trailer + 3, 0);
    if (tx->crc) {
        /* One CRC call per contiguous stretch: a caller that builds the
         * FPDU in place (header and payload right behind the prefix, as
         * the qp engine does) pays one call instead of three; a port's
         * accelerated CRC has a fixed cost per call. */
        const uint8_t *run = prefix;
        size_t run_len = OFL_MPA_HDR_LEN;

        if (hdr_len != 0) {
            if (hdr != run + run_len) {
                crc = port_crc_call(tx->port, crc, run, run_len);
                run = hdr;
                run_len = 0;
            }
            run_len += hdr_len;
        }
        if (payload_len != 0) {
            if (payload != run + run_len) {
                crc = port_crc_call(tx->port, crc, run, run_len);
                run = payload;
                run_len = 0;
            }
            run_len += payload_len;
        }
        crc = port_crc_call(tx->port, crc, run, run_len);
        crc = port_crc_call(tx->port, crc, trailer, pad);
        ofl_store_le32(trailer + pad, ofl_crc32c_final(crc));
    }
    *trailer_len = pad + OFL_MPA_CRC_LEN;
    tx->pos += mpa_content_len(ulpdu);
    return OFL_OK;
}

/* ---- receiving ---------------------------------------------------------- */

enum ofl_err ofl_mpa_rx_init(struct ofl_mpa_rx *rx,
                             const struct ofl_mpa_params *p, uint8_t *buf,
                             uint32_t cap, const struct ofl_port *port)
{
    if (rx == NULL || p == NULL || buf == NULL || cap == 0)
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(rx, 0, sizeof(*rx));
    rx->port = port_crc_port(port);
    rx->buf = buf;
    rx->cap = cap;
    rx->markers = p->markers_rx;
    rx->crc = p->crc;
    rx->state = OFL_MPA_RX_LENGTH;
    return OFL_OK;
}

static enum ofl_err mpa_rx_fail(struct ofl_mpa_rx *rx, enum ofl_err err)
{
    rx->state = OFL_MPA_RX_FAILED;
    rx->err = (uint16_t)err;
    rx->cause = ofl_wire_term_cause(err, false);
    return err;
}

/* Starts FPDU bookkeeping at its first wire byte. */
static void mpa_rx_begin(struct ofl_mpa_rx *rx)
{
    if (!rx->started) {
        rx->started = 1;
        rx->start = rx->pos;
        rx->hdr_pos = rx->pos;
        rx->crc_state = OFL_CRC32C_INIT;
    }
}

/* Delivers the FPDU in rx->buf and resets for the next. */
static void mpa_rx_deliver(struct ofl_mpa_rx *rx, struct ofl_mpa_fpdu *f)
{
    f->ulpdu = rx->buf;
    f->len = rx->ulpdu_len;
    f->start = rx->start;
    f->wire_len = rx->pos - rx->start;
    rx->state = OFL_MPA_RX_LENGTH;
    rx->part = 0;
    rx->started = 0;
}

/* Consumes an FPDU of wire bytes that lay whole in the data fed (its CRC
 * compared by the caller). Returns the stream position of its first
 * byte. */
static OFL_ALWAYS_INLINE uint32_t mpa_rx_pass(struct ofl_mpa_rx *rx,
                                              uint32_t wire)
{
    const uint32_t start = rx->pos;

    rx->pos += wire;
    return start;
}

/* Delivers the FPDU of ULPDU Length ulpdu that starts at data, lies whole
 * there and has no marker inside, in place, and consumes it (its CRC
 * compared by the caller). Returns its wire length. */
static OFL_ALWAYS_INLINE uint32_t mpa_rx_take(struct ofl_mpa_rx *rx,
                                              const uint8_t *data,
                                              uint32_t ulpdu,
                                              struct ofl_mpa_fpdu *f)
{
    const uint32_t wire = mpa_content_len(ulpdu);

    f->ulpdu = data + OFL_MPA_HDR_LEN;
    f->len = (uint16_t)ulpdu;
    f->start = mpa_rx_pass(rx, wire);
    f->wire_len = wire;
    return wire;
}

/*
 * An FPDU that starts here, lies whole in data and has no marker inside is
 * checked and delivered in place. Returns false when that does not apply.
 */
static OFL_HOT_INLINE bool mpa_rx_fast(struct ofl_mpa_rx *rx,
                                       const uint8_t *data, size_t len,
                                       size_t *used, struct ofl_mpa_fpdu *f,
                                       enum ofl_err *err)
{
    uint32_t ulpdu, wire;

    if (len < OFL_MPA_HDR_LEN)
        return false;
    if (rx->markers && mpa_first_marker(rx->pos) == 0)
        return false;
    ulpdu = ofl_load_be16(data);
    if (ulpdu > rx->cap) {
        /* The length field is consumed, as byte by byte. */
        rx->pos += OFL_MPA_HDR_LEN;
        *used = OFL_MPA_HDR_LEN;
        *err = mpa_rx_fail(rx, OFL_E_MPA_TOO_LONG);
        return true;
    }
    wire = mpa_content_len(ulpdu);
    if (rx->markers && mpa_marker_count(rx->pos, wire) != 0)
        return false;
    if (wire > len)
        return false;
    if (rx->crc &&
        !mpa_crc_ok(port_crc_call(rx->port, OFL_CRC32C_INIT, data,
                                  wire - OFL_MPA_CRC_LEN),
                    data + wire - OFL_MPA_CRC_LEN)) {
        rx->pos += wire; /* the whole FPDU is consumed, as byte by byte */
        *used = wire;
        *err = mpa_rx_fail(rx, OFL_E_MPA_CRC);
        return true;
    }
    *used = mpa_rx_take(rx, data, ulpdu, f);
    *err = OFL_OK;
    return true;
}

/* Consumes up to 4 marker bytes; checks the marker once complete. */
static enum ofl_err mpa_rx_marker(struct ofl_mpa_rx *rx, const uint8_t *p,
                                  uint32_t n)
{
    uint32_t ptr, expect, at;

    ofl_copy(rx->marker + rx->marker_got, p, n);
    rx->marker_got = (uint8_t)(rx->marker_got + n);
    rx->pos += n;
    if (rx->marker_got < OFL_MPA_MARKER_LEN)
        return OFL_OK;
    rx->marker_got = 0;
    at = rx->pos - OFL_MPA_MARKER_LEN;
    ptr = ofl_load_be16(rx->marker + 2) & ~3u;
    if (rx->state == OFL_MPA_RX_LENGTH && rx->part == 0) {
        /* Leads its FPDU: the header follows it. */
        rx->hdr_pos = rx->pos;
        expect = 0;
    } else {
        expect = at - rx->hdr_pos;
    }
    if (ptr != expect)
        return mpa_rx_fail(rx, OFL_E_MPA_MARKER);
    return OFL_OK;
}

/*
 * CRC over the covered bytes consumed since run (markers, ULPDU Length,
 * ULPDU, pad: everything but the CRC field), in one call per stretch.
 */
static void mpa_rx_crc_flush(struct ofl_mpa_rx *rx, const uint8_t *data,
                             size_t *run, size_t i)
{
    if (rx->crc && i > *run)
        rx->crc_state = port_crc_call(rx->port, rx->crc_state, data + *run,
                                      i - *run);
    *run = i;
}

enum ofl_err ofl_mpa_rx_feed(struct ofl_mpa_rx *rx, const uint8_t *data,
                             size_t len, size_t *used,
                             struct ofl_mpa_fpdu *fpdu)
{
    size_t i = 0, run = 0;
    enum ofl_err err;

    if (rx == NULL || used == NULL || fpdu == NULL ||
        (data == NULL && len != 0))
        return OFL_E_ARG;
    *used = 0;
    fpdu->ulpdu = NULL;
    fpdu->len = 0;
    fpdu->start = 0;
    fpdu->wire_len = 0;
    if (rx->state == OFL_MPA_RX_FAILED)
        return (enum ofl_err)rx->err;
    if (rx->state == OFL_MPA_RX_LENGTH && !rx->started &&
        mpa_rx_fast(rx, data, len, used, fpdu, &err))
        return err;
    while (i < len) {
        uint32_t n = (uint32_t)(len - i < 0xFFFFu ? len - i : 0xFFFFu);

        if (rx->markers) {
            uint32_t dist = mpa_first_marker(rx->pos);

            if (rx->marker_got != 0 || dist == 0) {
                uint32_t m = OFL_MPA_MARKER_LEN - rx->marker_got;

                if (m > n)
                    m = n;
                mpa_rx_begin(rx);
                err = mpa_rx_marker(rx, data + i, m);
                i += m;
                *used = i;
                if (err != OFL_OK)
                    return err;
                continue;
            }
            /* n can exceed dist (n is up to 0xFFFF, dist at most 512);
             * cppcheck 2.10's value flow thinks otherwise. */
            /* cppcheck-suppress knownConditionTrueFalse */
            if (n > dist)
                n = dist;
        }
        mpa_rx_begin(rx);
        if (rx->state == OFL_MPA_RX_LENGTH) {
            if (n > OFL_MPA_HDR_LEN - (uint32_t)rx->part)
                n = OFL_MPA_HDR_LEN - (uint32_t)rx->part;
            if (rx->part == 0)
                rx->hdr_pos = rx->pos;
            ofl_copy(rx->field + rx->part, data + i, n);
            rx->part = (uint8_t)(rx->part + n);
            if (rx->part == OFL_MPA_HDR_LEN) {
                rx->ulpdu_len = ofl_load_be16(rx->field);
                rx->part = 0;
                rx->body_got = 0;
                rx->state = OFL_MPA_RX_BODY;
                if (rx->ulpdu_len > rx->cap) {
                    rx->pos += n;
                    *used = i + n;
                    return mpa_rx_fail(rx, OFL_E_MPA_TOO_LONG);
                }
            }
        } else if (rx->state == OFL_MPA_RX_BODY) {
            uint32_t need = mpa_content_len(rx->ulpdu_len) - OFL_MPA_HDR_LEN -
                            OFL_MPA_CRC_LEN - rx->body_got;

            if (n > need)
                n = need;
            if (rx->body_got < rx->ulpdu_len) {
                uint32_t keep = rx->ulpdu_len - rx->body_got;

                ofl_copy(rx->buf + rx->body_got, data + i,
                         n < keep ? n : keep);
            }
            rx->body_got += n;
        } else { /* OFL_MPA_RX_CRC: the one field the CRC does not cover */
            mpa_rx_crc_flush(rx, data, &run, i);
            if (n > OFL_MPA_CRC_LEN - (uint32_t)rx->part)
                n = OFL_MPA_CRC_LEN - (uint32_t)rx->part;
            ofl_copy(rx->field + rx->part, data + i, n);
            rx->part = (uint8_t)(rx->part + n);
            run = i + n;
        }
        rx->pos += n;
        i += n;
        *used = i;
        if (rx->state == OFL_MPA_RX_BODY &&
            rx->body_got == mpa_content_len(rx->ulpdu_len) -
                                OFL_MPA_HDR_LEN - OFL_MPA_CRC_LEN) {
            rx->state = OFL_MPA_RX_CRC;
            rx->part = 0;
        } else if (rx->state == OFL_MPA_RX_CRC &&
                   rx->part == OFL_MPA_CRC_LEN) {
            if (rx->crc && !mpa_crc_ok(rx->crc_state, rx->field))
                return mpa_rx_fail(rx, OFL_E_MPA_CRC);
            mpa_rx_deliver(rx, fpdu);
            return OFL_OK;
        }
    }
    mpa_rx_crc_flush(rx, data, &run, i);
    return OFL_OK;
}

/* ---- out-of-order location and zero-copy access ------------------------- */

/* Where an FPDU starts and how its stream is framed (ofl_mpa_fpdu_verify's
 * arguments as one value: internal calls then pass at most six). */
struct mpa_frame {
    const struct ofl_port *port;
    uint32_t pos;
    uint8_t how; /* MPA_FRAME_MARKERS | MPA_FRAME_CRC (one field, so that
                    GCC's IPA-SRA cannot split it into a seventh argument) */
};
#define MPA_FRAME_MARKERS 1u
#define MPA_FRAME_CRC 2u

static enum ofl_err mpa_fpdu_verify(const struct mpa_frame *fr,
                                    const uint8_t *wire, size_t wire_len,
                                    uint16_t *ulpdu_len)
{
    const uint32_t pos = fr->pos;
    const bool markers = (fr->how & MPA_FRAME_MARKERS) != 0;
    const bool crc = (fr->how & MPA_FRAME_CRC) != 0;
    const struct ofl_port *port = fr->port;
    uint32_t hdr_w, ulpdu, content, count, k;

    if (wire == NULL || ulpdu_len == NULL)
        return OFL_E_ARG;
    hdr_w = (markers && mpa_first_marker(pos) == 0) ? OFL_MPA_MARKER_LEN : 0u;
    if (wire_len < hdr_w + OFL_MPA_HDR_LEN)
        return OFL_E_TRUNCATED;
    ulpdu = ofl_load_be16(wire + hdr_w);
    if (wire_len != ofl_mpa_fpdu_len(pos, markers, ulpdu))
        return markers ? OFL_E_MPA_MARKER : OFL_E_MPA_TOO_LONG;
    content = mpa_content_len(ulpdu);
    count = markers ? mpa_marker_count(pos, content) : 0;
    for (k = 0; k < count; k++) {
        uint32_t w = mpa_first_marker(pos) + k * OFL_MPA_MARKER_INTERVAL;
        uint32_t expect = w == 0 ? 0u : w - hdr_w;

        if ((ofl_load_be16(wire + w + 2) & ~3u) != expect)
            return OFL_E_MPA_MARKER;
    }
    if (crc && !mpa_crc_ok(port_crc_call(port, OFL_CRC32C_INIT, wire,
                                         wire_len - OFL_MPA_CRC_LEN),
                           wire + wire_len - OFL_MPA_CRC_LEN))
        return OFL_E_MPA_CRC;
    *ulpdu_len = (uint16_t)ulpdu;
    return OFL_OK;
}

enum ofl_err ofl_mpa_fpdu_verify(uint32_t pos, bool markers, bool crc,
                                 const uint8_t *wire, size_t wire_len,
                                 const struct ofl_port *port,
                                 uint16_t *ulpdu_len)
{
    struct mpa_frame fr;

    fr.port = port_crc_port(port);
    fr.pos = pos;
    fr.how = (uint8_t)((markers ? MPA_FRAME_MARKERS : 0u) |
                       (crc ? MPA_FRAME_CRC : 0u));
    return mpa_fpdu_verify(&fr, wire, wire_len, ulpdu_len);
}

enum ofl_err ofl_mpa_fpdu_check(const struct ofl_mpa_rx *rx, uint32_t pos,
                                const uint8_t *wire, size_t wire_len,
                                uint16_t *ulpdu_len)
{
    struct mpa_frame fr;

    if (rx == NULL)
        return OFL_E_ARG;
    fr.port = rx->port;
    fr.pos = pos;
    fr.how = (uint8_t)((rx->markers ? MPA_FRAME_MARKERS : 0u) |
                       (rx->crc ? MPA_FRAME_CRC : 0u));
    return mpa_fpdu_verify(&fr, wire, wire_len, ulpdu_len);
}

uint32_t ofl_mpa_fpdu_piece(uint32_t pos, bool markers, const uint8_t *wire,
                            uint16_t ulpdu_len, uint32_t off,
                            const uint8_t **piece)
{
    uint32_t i, f, before, run;

    if (wire == NULL || piece == NULL || off >= ulpdu_len)
        return 0;
    i = OFL_MPA_HDR_LEN + off; /* content index of ULPDU byte off */
    if (!markers) {
        *piece = wire + i;
        return ulpdu_len - off;
    }
    f = mpa_first_marker(pos);
    before = i < f ? 0u
                   : (i - f) / (OFL_MPA_MARKER_INTERVAL - OFL_MPA_MARKER_LEN) +
                         1u;
    run = f + before * (OFL_MPA_MARKER_INTERVAL - OFL_MPA_MARKER_LEN) - i;
    if (run > (uint32_t)ulpdu_len - off)
        run = (uint32_t)ulpdu_len - off;
    *piece = wire + i + OFL_MPA_MARKER_LEN * before;
    return run;
}

/*
 * Checks the markers of one FPDU that lie whole inside seg[0 .. len). s and
 * h are the segment offsets of its first wire byte and of its ULPDU Length
 * field (s may be negative: the FPDU began in an earlier segment); p0 is
 * the stream position of seg[0].
 */
static enum ofl_err mpa_loc_markers(const uint8_t *seg, size_t len,
                                    uint32_t p0, int64_t s, int64_t h,
                                    uint32_t wire)
{
    int64_t m = s + (int64_t)mpa_first_marker(p0 + (uint32_t)s);
    int64_t end = s + (int64_t)wire;

    for (; m < end && m + OFL_MPA_MARKER_LEN <= (int64_t)len;
         m += OFL_MPA_MARKER_INTERVAL) {
        uint32_t expect = m == s ? 0u : (uint32_t)(m - h);

        if (m < 0)
            continue;
        if ((ofl_load_be16(seg + m + 2) & ~3u) != expect)
            return OFL_E_MPA_MARKER;
    }
    return OFL_OK;
}

enum ofl_err ofl_mpa_locate(uint32_t base, uint32_t seq, const uint8_t *seg,
                            size_t len, struct ofl_mpa_found *found,
                            uint32_t cap, uint32_t *count)
{
    struct ofl_mpa_segment s;

    s.base = base;
    s.seq = seq;
    s.data = seg;
    s.len = len;
    return ofl_mpa_locate_segment(&s, found, cap, count);
}

enum ofl_err ofl_mpa_locate_segment(const struct ofl_mpa_segment *sg,
                                    struct ofl_mpa_found *found, uint32_t cap,
                                    uint32_t *count)
{
    uint32_t p0, n = 0;
    int64_t k, s = -1, h = -1;
    const uint8_t *seg;
    size_t len;

    if (sg == NULL)
        return OFL_E_ARG;
    p0 = sg->seq - sg->base;
    seg = sg->data;
    len = sg->len;
    if ((seg == NULL && len != 0) || (found == NULL && cap != 0) ||
        count == NULL)
        return OFL_E_ARG;
    *count = 0;
    /* The first marker whose FPDUPTR points into the segment. */
    for (k = mpa_first_marker(p0); k + OFL_MPA_MARKER_LEN <= (int64_t)len;
         k += OFL_MPA_MARKER_INTERVAL) {
        uint32_t ptr = ofl_load_be16(seg + k + 2) & ~3u;

        if (ptr == 0) {
            s = k;
            h = k + OFL_MPA_MARKER_LEN;
            break;
        }
        if ((int64_t)ptr <= k) {
            h = k - (int64_t)ptr;
            /* A marker right before the header is the FPDU's own. */
            s = mpa_first_marker(p0 + (uint32_t)h) ==
                        OFL_MPA_MARKER_INTERVAL - OFL_MPA_MARKER_LEN
                    ? h - OFL_MPA_MARKER_LEN
                    : h;
            break;
        }
    }
    if (h < 0)
        return OFL_OK;
    /* Walk the FPDUs by their ULPDU Length; each is at least 8 bytes. */
    while (h + OFL_MPA_HDR_LEN <= (int64_t)len) {
        uint32_t ulpdu = ofl_load_be16(seg + h);
        uint32_t wire = ofl_mpa_fpdu_len(p0 + (uint32_t)s, true, ulpdu);
        enum ofl_err err = mpa_loc_markers(seg, len, p0, s, h, wire);

        if (err != OFL_OK)
            return err;
        if (s >= 0) {
            if (n >= cap)
                break;
            found[n].off = (uint32_t)s;
            found[n].hdr_off = (uint32_t)h;
            found[n].wire_len = wire;
            found[n].ulpdu_len = (uint16_t)ulpdu;
            found[n].complete = s + (int64_t)wire <= (int64_t)len;
            n++;
            *count = n;
        }
        s += wire;
        h = s;
        if (mpa_first_marker(p0 + (uint32_t)s) == 0)
            h = s + OFL_MPA_MARKER_LEN; /* checked by the next round */
    }
    return OFL_OK;
}

/* ---- DDP and RDMAP (RFC 5041 §4, RFC 5040 §4, RFC 7306) ---------------- */

#define RDMAP_OPCODES 12u
#define RDMAP_BODY_DATA 0u    /* a payload of any length follows */
#define RDMAP_BODY_TERM 0xFFu /* Terminate: length from its Hdrct */

/* Per opcode: buffer model, untagged QN, one segment only, fixed body. */
struct rdmap_op {
    uint8_t tagged;
    uint8_t qn;
    uint8_t one;
    uint8_t body;
};

static const struct rdmap_op rdmap_ops[RDMAP_OPCODES] = {
    {1, 0, 0, RDMAP_BODY_DATA},                        /* RDMA Write */
    {0, OFL_DDP_QN_READ_REQ, 1, OFL_RDMAP_READ_REQ_LEN}, /* Read Request */
    {1, 0, 0, RDMAP_BODY_DATA},                        /* Read Response */
    {0, OFL_DDP_QN_SEND, 0, RDMAP_BODY_DATA},          /* Send */
    {0, OFL_DDP_QN_SEND, 0, RDMAP_BODY_DATA},          /* Send w/ Inv */
    {0, OFL_DDP_QN_SEND, 0, RDMAP_BODY_DATA},          /* Send w/ SE */
    {0, OFL_DDP_QN_SEND, 0, RDMAP_BODY_DATA},          /* Send w/ SE+Inv */
    {0, OFL_DDP_QN_TERMINATE, 1, RDMAP_BODY_TERM},     /* Terminate */
    {0, OFL_DDP_QN_SEND, 1, OFL_RDMAP_IMM_LEN},        /* Immediate */
    {0, OFL_DDP_QN_SEND, 1, OFL_RDMAP_IMM_LEN},        /* Immediate, SE */
    {0, OFL_DDP_QN_ATOMIC_REQ, 1, OFL_RDMAP_ATOMIC_REQ_LEN},
    {0, OFL_DDP_QN_ATOMIC_RESP, 1, OFL_RDMAP_ATOMIC_RESP_LEN}};

#define TERM_M 0x8000u
#define TERM_D 0x4000u
#define TERM_R 0x2000u

static bool rdmap_has_inv_stag(uint8_t opcode)
{
    return opcode == OFL_RDMAP_SEND_INV || opcode == OFL_RDMAP_SEND_SE_INV;
}

/* Header checks shared by parse and build, in the documented order after
 * the versions. */
static enum ofl_err rdmap_check_hdr(const struct ofl_ddp_hdr *h)
{
    const struct rdmap_op *op;

    if (h->opcode >= RDMAP_OPCODES)
        return OFL_E_RDMAP_OPCODE;
    op = &rdmap_ops[h->opcode];
    if (op->tagged != (h->tagged != 0))
        return OFL_E_RDMAP_OPCODE;
    if (!h->tagged && h->qn != op->qn)
        return OFL_E_DDP_QN;
    if (op->one && !h->last)
        return OFL_E_RDMAP_LAST;
    if (op->one && h->mo != 0)
        return OFL_E_DDP_MO;
    return OFL_OK;
}

/* Wire length of a Terminate body from its Hdrct and the terminated DDP
 * header's length (0 when D is clear). */
static uint32_t rdmap_term_len(uint32_t hdrct, uint32_t ddp_len)
{
    return 4u + ((hdrct & (TERM_M | TERM_D)) ? 2u : 0u) +
           ((hdrct & TERM_D) ? ddp_len : 0u) +
           ((hdrct & TERM_R) ? OFL_RDMAP_READ_REQ_LEN : 0u);
}

static enum ofl_err rdmap_parse_term(struct ofl_rd *r,
                                     struct ofl_rdmap_term *t)
{
    uint32_t ctrl, hdrct, dlen = 0;
    size_t left = ofl_rd_left(r);

    ofl_fill(t, 0, sizeof(*t));
    if (left < 4)
        return OFL_E_RDMAP_TERM;
    ctrl = ofl_rd_be32(r);
    hdrct = ctrl & (TERM_M | TERM_D | TERM_R);
    if ((hdrct & TERM_D) && left >= 7)
        dlen = ofl_ddp_hdr_len(r->p[r->off + 2]);
    if ((hdrct & TERM_D) && left < 7)
        return OFL_E_RDMAP_TERM;
    if (left != rdmap_term_len(hdrct, dlen))
        return OFL_E_RDMAP_TERM;
    t->cause.layer = (uint8_t)(ctrl >> 28);
    t->cause.etype = (uint8_t)((ctrl >> 24) & 0xFu);
    t->cause.ecode = (uint8_t)(ctrl >> 16);
    t->hdrct = (uint8_t)(((hdrct & TERM_M) ? OFL_RDMAP_HDRCT_M : 0u) |
                         ((hdrct & TERM_D) ? OFL_RDMAP_HDRCT_D : 0u) |
                         ((hdrct & TERM_R) ? OFL_RDMAP_HDRCT_R : 0u));
    if (hdrct & (TERM_M | TERM_D)) {
        uint16_t seg_len = ofl_rd_be16(r);

        /* Present with D, meaningful only with M. */
        t->seg_len = (hdrct & TERM_M) ? seg_len : 0;
    }
    if (hdrct & TERM_D) {
        const uint8_t *q = ofl_rd_take(r, dlen);

        if (q != NULL)
            ofl_copy(t->ddp_hdr, q, dlen);
        t->ddp_hdr_len = (uint8_t)dlen;
    }
    if (hdrct & TERM_R) {
        const uint8_t *q = ofl_rd_take(r, OFL_RDMAP_READ_REQ_LEN);

        if (q != NULL)
            ofl_copy(t->rdmap_hdr, q, OFL_RDMAP_READ_REQ_LEN);
    }
    return r->bad ? OFL_E_RDMAP_TERM : OFL_OK;
}

/* The body of ofl_rdmap_parse, inlined into the qp engine's receive path
 * (qp_rx_ulpdu: every FPDU it takes in order). */
static OFL_HOT_INLINE enum ofl_err
rdmap_parse(const uint8_t *ulpdu, size_t len, struct ofl_rdmap_msg *msg,
            struct ofl_term_cause *cause)
{
    struct ofl_rd r;
    struct ofl_ddp_hdr *h;
    uint8_t c0, c1;
    uint32_t body;
    enum ofl_err err = OFL_OK;

    if ((ulpdu == NULL && len != 0) || msg == NULL)
        return OFL_E_ARG;
#if OFL_FAST_PATH
    /* The header, payload and payload_len here; the body (msg->u) only
     * for an opcode that has one, below (ofl_rdmap_parse clears it first:
     * its callers see every byte as before). */
    ofl_zero_fixed(msg, offsetof(struct ofl_rdmap_msg, u));
#else
    ofl_fill(msg, 0, sizeof(*msg));
#endif
    h = &msg->ddp;
#if OFL_FAST_PATH
    /* A tagged data header (RDMA Write, Read Response) of both versions
     * at fixed offsets: every check below grants it (long enough, the
     * versions, rdmap_check_hdr for a tagged data opcode), and these are
     * the fields it sets. Anything else goes the general way. */
    if (len >= OFL_DDP_TAGGED_HDR_LEN && len <= 0xFFFFFFFFu) {
        c0 = ulpdu[0];
        c1 = ulpdu[1];
        if ((c0 & 0x83u) == (0x80u | OFL_DDP_VERSION) &&
            (c1 >> 6) == OFL_RDMAP_VERSION &&
            ((c1 & 0x0Fu) == OFL_RDMAP_WRITE ||
             (c1 & 0x0Fu) == OFL_RDMAP_READ_RESP)) {
            h->tagged = 1;
            h->last = (c0 & 0x40) != 0;
            h->ddp_version = OFL_DDP_VERSION;
            h->rdmap_version = OFL_RDMAP_VERSION;
            h->opcode = c1 & 0x0F;
            h->stag = ofl_load_be32(ulpdu + 2);
            h->to = ofl_load_be64(ulpdu + 6);
            msg->payload = ulpdu + OFL_DDP_TAGGED_HDR_LEN;
            msg->payload_len = (uint32_t)(len - OFL_DDP_TAGGED_HDR_LEN);
            return OFL_OK;
        }
    }
    /* An untagged header of one of the four Sends on queue 0, both
     * versions right: every check below grants it too (long enough for
     * an untagged header, the versions, rdmap_check_hdr: a Send is
     * untagged, on queue 0 and not a one-segment opcode; its body is
     * data), and these are the fields it sets. */
    if (len >= OFL_DDP_UNTAGGED_HDR_LEN && len <= 0xFFFFFFFFu) {
        c0 = ulpdu[0];
        c1 = ulpdu[1];
        if ((c0 & 0x83u) == OFL_DDP_VERSION &&
            (c1 >> 6) == OFL_RDMAP_VERSION &&
            (c1 & 0x0Fu) >= OFL_RDMAP_SEND &&
            (c1 & 0x0Fu) <= OFL_RDMAP_SEND_SE_INV &&
            ofl_load_be32(ulpdu + 6) == OFL_DDP_QN_SEND) {
            h->last = (c0 & 0x40) != 0;
            h->ddp_version = OFL_DDP_VERSION;
            h->rdmap_version = OFL_RDMAP_VERSION;
            h->opcode = c1 & 0x0F;
            h->inv_stag = rdmap_has_inv_stag(h->opcode)
                              ? ofl_load_be32(ulpdu + 2)
                              : 0;
            h->msn = ofl_load_be32(ulpdu + 10);
            h->mo = ofl_load_be32(ulpdu + 14);
            msg->payload = ulpdu + OFL_DDP_UNTAGGED_HDR_LEN;
            msg->payload_len = (uint32_t)(len - OFL_DDP_UNTAGGED_HDR_LEN);
            return OFL_OK;
        }
    }
#endif
    if (len < 1 || len < ofl_ddp_hdr_len(ulpdu[0]) || len > 0xFFFFFFFFu) {
        err = OFL_E_DDP_SHORT;
        goto out;
    }
    ofl_rd_init(&r, ulpdu, len);
    c0 = ofl_rd_u8(&r);
    c1 = ofl_rd_u8(&r);
    h->tagged = (c0 & 0x80) != 0;
    h->last = (c0 & 0x40) != 0;
    h->ddp_version = c0 & 0x03;
    h->rdmap_version = c1 >> 6;
    h->opcode = c1 & 0x0F;
    if (h->tagged) {
        h->stag = ofl_rd_be32(&r);
        h->to = ofl_rd_be64(&r);
    } else {
        uint32_t rsvd = ofl_rd_be32(&r);

        h->inv_stag = rdmap_has_inv_stag(h->opcode) ? rsvd : 0;
        h->qn = ofl_rd_be32(&r);
        h->msn = ofl_rd_be32(&r);
        h->mo = ofl_rd_be32(&r);
    }
    if (h->ddp_version != OFL_DDP_VERSION) {
        err = OFL_E_DDP_VERSION;
        goto out;
    }
    if (h->rdmap_version != OFL_RDMAP_VERSION) {
        err = OFL_E_RDMAP_VERSION;
        goto out;
    }
    err = rdmap_check_hdr(h);
    if (err != OFL_OK)
        goto out;
    body = rdmap_ops[h->opcode].body;
    msg->payload = ulpdu + r.off;
    if (body == RDMAP_BODY_DATA) {
        msg->payload_len = (uint32_t)ofl_rd_left(&r);
        goto out;
    }
#if OFL_FAST_PATH
    ofl_fill(&msg->u, 0, sizeof(msg->u));
#endif
    if (body == RDMAP_BODY_TERM) {
        err = rdmap_parse_term(&r, &msg->u.term);
        msg->payload = ulpdu + len;
        goto out;
    }
    if (ofl_rd_left(&r) != body) {
        err = OFL_E_RDMAP_LENGTH;
        goto out;
    }
    msg->payload = ulpdu + len;
    switch (h->opcode) {
    case OFL_RDMAP_READ_REQ:
        msg->u.read_req.sink_stag = ofl_rd_be32(&r);
        msg->u.read_req.sink_to = ofl_rd_be64(&r);
        msg->u.read_req.size = ofl_rd_be32(&r);
        msg->u.read_req.src_stag = ofl_rd_be32(&r);
        msg->u.read_req.src_to = ofl_rd_be64(&r);
        break;
    case OFL_RDMAP_ATOMIC_REQ: {
        struct ofl_rdmap_atomic_req *a = &msg->u.atomic_req;

        a->op = (uint8_t)(ofl_rd_be32(&r) & 0xFu);
        a->req_id = ofl_rd_be32(&r);
        a->stag = ofl_rd_be32(&r);
        a->to = ofl_rd_be64(&r);
        a->add_swap = ofl_rd_be64(&r);
        a->add_swap_mask = ofl_rd_be64(&r);
        a->compare = ofl_rd_be64(&r);
        a->compare_mask = ofl_rd_be64(&r);
        if (a->op > OFL_RDMAP_CMP_SWAP)
            err = OFL_E_RDMAP_ATOMIC_OP;
        break;
    }
    case OFL_RDMAP_ATOMIC_RESP:
        msg->u.atomic_resp.req_id = ofl_rd_be32(&r);
        msg->u.atomic_resp.orig = ofl_rd_be64(&r);
        break;
    default: { /* Immediate Data */
        const uint8_t *q = ofl_rd_take(&r, OFL_RDMAP_IMM_LEN);

        if (q != NULL)
            ofl_copy(msg->u.imm, q, OFL_RDMAP_IMM_LEN);
        break;
    }
    }
    if (err == OFL_OK && r.bad)
        err = OFL_E_RDMAP_LENGTH;
out:
    if (err != OFL_OK && cause != NULL)
        *cause = ofl_wire_term_cause(err, len >= 1 && (ulpdu[0] & 0x80));
    return err;
}

enum ofl_err ofl_rdmap_parse(const uint8_t *ulpdu, size_t len,
                             struct ofl_rdmap_msg *msg,
                             struct ofl_term_cause *cause)
{
#if OFL_FAST_PATH
    /* rdmap_parse clears the body only for an opcode with one: the whole
     * message is cleared here, as the size build's rdmap_parse does. */
    if (msg != NULL && !(ulpdu == NULL && len != 0))
        ofl_fill(&msg->u, 0, sizeof(msg->u));
#endif
    return rdmap_parse(ulpdu, len, msg, cause);
}

/* The body of ofl_rdmap_build, inlined into the qp engine's header build
 * (qp_hdr_build: every FPDU it sends). */
static OFL_HOT_INLINE enum ofl_err
rdmap_build(const struct ofl_rdmap_msg *msg, uint8_t *out, size_t cap,
            size_t *len)
{
    const struct ofl_ddp_hdr *h;
    struct ofl_wr w;
    enum ofl_err err;
    uint32_t body;

    if (msg == NULL || out == NULL || len == NULL)
        return OFL_E_ARG;
    h = &msg->ddp;
    err = rdmap_check_hdr(h);
    if (err != OFL_OK)
        return err;
    body = rdmap_ops[h->opcode].body;
    if (h->opcode == OFL_RDMAP_ATOMIC_REQ &&
        msg->u.atomic_req.op > OFL_RDMAP_CMP_SWAP)
        return OFL_E_RDMAP_ATOMIC_OP;
    if (body == RDMAP_BODY_TERM) {
        const struct ofl_rdmap_term *t = &msg->u.term;

        if ((t->hdrct & ~7u) != 0 || t->cause.layer > 0xF ||
            t->cause.etype > 0xF)
            return OFL_E_RDMAP_TERM;
        if ((t->hdrct & OFL_RDMAP_HDRCT_D) &&
            (t->ddp_hdr_len != ofl_ddp_hdr_len(t->ddp_hdr[0])))
            return OFL_E_RDMAP_TERM;
    }
    ofl_wr_init(&w, out, cap);
    ofl_wr_u8(&w, (uint8_t)((h->tagged ? 0x80u : 0u) | (h->last ? 0x40u : 0u) |
                            OFL_DDP_VERSION));
    ofl_wr_u8(&w, (uint8_t)((OFL_RDMAP_VERSION << 6) | h->opcode));
    if (h->tagged) {
        ofl_wr_be32(&w, h->stag);
        ofl_wr_be64(&w, h->to);
    } else {
        ofl_wr_be32(&w, rdmap_has_inv_stag(h->opcode) ? h->inv_stag : 0u);
        ofl_wr_be32(&w, h->qn);
        ofl_wr_be32(&w, h->msn);
        ofl_wr_be32(&w, h->mo);
    }
    switch (h->opcode) {
    case OFL_RDMAP_READ_REQ:
        ofl_wr_be32(&w, msg->u.read_req.sink_stag);
        ofl_wr_be64(&w, msg->u.read_req.sink_to);
        ofl_wr_be32(&w, msg->u.read_req.size);
        ofl_wr_be32(&w, msg->u.read_req.src_stag);
        ofl_wr_be64(&w, msg->u.read_req.src_to);
        break;
    case OFL_RDMAP_TERMINATE: {
        const struct ofl_rdmap_term *t = &msg->u.term;
        uint32_t hdrct = ((t->hdrct & OFL_RDMAP_HDRCT_M) ? TERM_M : 0u) |
                         ((t->hdrct & OFL_RDMAP_HDRCT_D) ? TERM_D : 0u) |
                         ((t->hdrct & OFL_RDMAP_HDRCT_R) ? TERM_R : 0u);

        ofl_wr_be32(&w, ((uint32_t)t->cause.layer << 28) |
                            ((uint32_t)t->cause.etype << 24) |
                            ((uint32_t)t->cause.ecode << 16) | hdrct);
        if (hdrct & (TERM_M | TERM_D))
            ofl_wr_be16(&w, (hdrct & TERM_M) ? t->seg_len : 0u);
        if (hdrct & TERM_D)
            ofl_wr_bytes(&w, t->ddp_hdr, t->ddp_hdr_len);
        if (hdrct & TERM_R)
            ofl_wr_bytes(&w, t->rdmap_hdr, OFL_RDMAP_READ_REQ_LEN);
        break;
    }
    case OFL_RDMAP_IMM:
    case OFL_RDMAP_IMM_SE:
        ofl_wr_bytes(&w, msg->u.imm, OFL_RDMAP_IMM_LEN);
        break;
    case OFL_RDMAP_ATOMIC_REQ: {
        const struct ofl_rdmap_atomic_req *a = &msg->u.atomic_req;

        ofl_wr_be32(&w, a->op);
        ofl_wr_be32(&w, a->req_id);
        ofl_wr_be32(&w, a->stag);
        ofl_wr_be64(&w, a->to);
        ofl_wr_be64(&w, a->add_swap);
        ofl_wr_be64(&w, a->add_swap_mask);
        ofl_wr_be64(&w, a->compare);
        ofl_wr_be64(&w, a->compare_mask);
        break;
    }
    case OFL_RDMAP_ATOMIC_RESP:
        ofl_wr_be32(&w, msg->u.atomic_resp.req_id);
        ofl_wr_be64(&w, msg->u.atomic_resp.orig);
        break;
    default:
        break;
    }
    if (w.bad)
        return OFL_E_SIZE;
    *len = w.off;
    return OFL_OK;
}

enum ofl_err ofl_rdmap_build(const struct ofl_rdmap_msg *msg, uint8_t *out,
                             size_t cap, size_t *len)
{
    return rdmap_build(msg, out, cap, len);
}

void ofl_rdmap_term_fill(struct ofl_rdmap_term *term,
                         struct ofl_term_cause cause, const uint8_t *ulpdu,
                         size_t len)
{
    uint32_t hl;

    if (term == NULL)
        return;
    ofl_fill(term, 0, sizeof(*term));
    term->cause = cause;
    if (ulpdu == NULL || len < 1)
        return;
    if (cause.layer != OFL_TERM_LAYER_DDP &&
        !(cause.layer == OFL_TERM_LAYER_RDMAP &&
          cause.etype != OFL_TERM_RDMAP_LOCAL_CATASTROPHIC))
        return;
    hl = ofl_ddp_hdr_len(ulpdu[0]);
    if (len < hl)
        return;
    ofl_copy(term->ddp_hdr, ulpdu, hl);
    term->ddp_hdr_len = (uint8_t)hl;
    term->seg_len = (uint16_t)(len > 0xFFFFu ? 0xFFFFu : len);
    term->hdrct = OFL_RDMAP_HDRCT_M | OFL_RDMAP_HDRCT_D;
    if (hl == OFL_DDP_UNTAGGED_HDR_LEN &&
        (ulpdu[1] & 0x0F) == OFL_RDMAP_READ_REQ &&
        len >= OFL_DDP_UNTAGGED_HDR_LEN + OFL_RDMAP_READ_REQ_LEN) {
        ofl_copy(term->rdmap_hdr, ulpdu + OFL_DDP_UNTAGGED_HDR_LEN,
                 OFL_RDMAP_READ_REQ_LEN);
        term->hdrct |= OFL_RDMAP_HDRCT_R;
    }
}

enum ofl_err ofl_ddp_msn_check(uint32_t expected, uint32_t posted,
                               uint32_t msn)
{
    uint32_t d = msn - expected;

    if (d < posted)
        return OFL_OK;
    return d < 0x80000000u ? OFL_E_DDP_MSN_NO_BUFFER : OFL_E_DDP_MSN_RANGE;
}

enum ofl_err ofl_ddp_untagged_check(uint32_t mo, uint32_t len,
                                    uint32_t buf_len)
{
    if (mo > buf_len)
        return OFL_E_DDP_MO;
    if (len > buf_len - mo)
        return OFL_E_DDP_TOO_LONG;
    return OFL_OK;
}

/* The body of ofl_ddp_seg_init, inlined into qp_msg_begin (every data
 * message) in a speed build, where its argument checks fold away; a size
 * build calls ofl_ddp_seg_init there (QP_SEG_INIT), which then holds the
 * one copy (OFL_BODY_INLINE). */
static OFL_BODY_INLINE enum ofl_err ddp_seg_init(struct ofl_ddp_seg *sg,
                                                 const struct ofl_ddp_hdr *first,
                                                 uint32_t msg_len,
                                                 uint16_t mulpdu)
{
    uint32_t hl;

    if (sg == NULL || first == NULL || first->opcode >= RDMAP_OPCODES ||
        rdmap_ops[first->opcode].body != RDMAP_BODY_DATA ||
        rdmap_ops[first->opcode].tagged != (first->tagged != 0))
        return OFL_E_ARG;
    hl = first->tagged ? OFL_DDP_TAGGED_HDR_LEN : OFL_DDP_UNTAGGED_HDR_LEN;
    if (mulpdu <= hl)
        return OFL_E_ARG;
    if (first->tagged && msg_len != 0 &&
        first->to > ~(uint64_t)0 - (msg_len - 1u))
        return OFL_E_ARG;
    ofl_copy_fixed(&sg->next, first, sizeof(sg->next));
    sg->next.ddp_version = OFL_DDP_VERSION;
    sg->next.rdmap_version = OFL_RDMAP_VERSION;
    sg->next.mo = 0;
    sg->off = 0;
    sg->len = msg_len;
    sg->max = mulpdu - hl;
    sg->done = false;
    return OFL_OK;
}

enum ofl_err ofl_ddp_seg_init(struct ofl_ddp_seg *sg,
                              const struct ofl_ddp_hdr *first,
                              uint32_t msg_len, uint16_t mulpdu)
{
    return ddp_seg_init(sg, first, msg_len, mulpdu);
}

/* The body of ofl_ddp_seg_next, inlined into the qp engine's segmenter
 * in a speed build (qp_msg_segment: every FPDU of a message), where its
 * argument checks fold away; a size build calls ofl_ddp_seg_next there
 * (QP_SEG_NEXT), which then holds the one copy (OFL_BODY_INLINE). */
static OFL_BODY_INLINE bool ddp_seg_next(struct ofl_ddp_seg *sg,
                                         struct ofl_ddp_hdr *hdr,
                                         uint32_t *off, uint32_t *len)
{
    uint32_t n;

    if (sg == NULL || hdr == NULL || off == NULL || len == NULL || sg->done)
        return false;
    n = sg->len - sg->off;
    if (n > sg->max)
        n = sg->max;
    ofl_copy_fixed(hdr, &sg->next, sizeof(*hdr));
    hdr->last = sg->off + n == sg->len;
    if (!hdr->tagged)
        hdr->mo = sg->off;
    *off = sg->off;
    *len = n;
    sg->off += n;
    sg->next.to += n;
    sg->done = sg->off == sg->len;
    return true;
}

bool ofl_ddp_seg_next(struct ofl_ddp_seg *sg, struct ofl_ddp_hdr *hdr,
                      uint32_t *off, uint32_t *len)
{
    return ddp_seg_next(sg, hdr, off, len);
}
#if OFL_FAST_PATH
#define QP_SEG_NEXT ddp_seg_next
#define QP_SEG_INIT ddp_seg_init
#else
#define QP_SEG_NEXT ofl_ddp_seg_next
#define QP_SEG_INIT ofl_ddp_seg_init
#endif
#endif /* OFL_ENABLE_WIRE */

/* ======================================================================== */
/* qp                                                                       */
/* ======================================================================== */
#if OFL_ENABLE_QP
/*
 * Layout of a WQE in its ring slot (little-endian, explicit offsets; the
 * adapter side re-checks every field, see ofl_qp_post_send):
 *
 *   send WQE                          receive WQE
 *   0  opcode u8                      0  wr_id u64
 *   1  flags u8                       8  num_sge u8
 *   2  num_sge u8                     16 data segments
 *   4  stag u32
 *   8  wr_id u64
 *   16 remote TO u64 (BIND, REG: va; DELAY: ticks; ISCSI_CMD: command ID)
 *   24 remote STag u32 (BIND: region; REG, ISCSI_CMD: ATT base)
 *   28 u32: REG att_count; BIND access | flags << 8; ISCSI_CMD page shift
 *   32 48 bytes: WRITE_IMM imm; atomics the four operands; BIND, REG len
 *      (REG: 40 fpo u32, 44 page_shift, 45 att_kind, 46 access, 47 flags);
 *      ISCSI_*: the BHS
 *   80 data segments: addr u64, len u32, stag u32
 */
#define QPW_OPCODE 0
#define QPW_FLAGS 1
#define QPW_NSGE 2
#define QPW_STAG 4
#define QPW_WRID 8
#define QPW_TO 16
#define QPW_RSTAG 24
#define QPW_B32 28
#define QPW_EXT 32
#define QPR_WRID 0
#define QPR_NSGE 8

#define QP_TRACK_IDLE 0
#define QP_TRACK_FLIGHT 1
#define QP_TRACK_DONE 2
#define QP_WR_FLAGS                                                      \
    (OFL_QP_WR_SIGNALED | OFL_QP_WR_SOLICITED | OFL_QP_WR_FENCE |        \
     OFL_QP_WR_SILENT)
#define QP_MSG_MAX 0x80000000u /* message totals stay below 2^31 */
#define QP_BIT(s) (1u << (s))
#define QP_POST_SEND_OK                                                  \
    (QP_BIT(OFL_QP_RTS) | QP_BIT(OFL_QP_SQD) | QP_BIT(OFL_QP_SQE) |      \
     QP_BIT(OFL_QP_ERROR) | QP_BIT(OFL_QP_TERMINATE))
#define QP_POST_RECV_OK                                                  \
    (QP_BIT(OFL_QP_INIT) | QP_BIT(OFL_QP_RTR) | QP_BIT(OFL_QP_RTS) |     \
     QP_BIT(OFL_QP_SQD) | QP_BIT(OFL_QP_SQE) | QP_BIT(OFL_QP_CLOSING) |  \
     QP_BIT(OFL_QP_ERROR) | QP_BIT(OFL_QP_TERMINATE))
#define QP_RX_OK                                                         \
    (QP_BIT(OFL_QP_RTS) | QP_BIT(OFL_QP_SQD) | QP_BIT(OFL_QP_SQE) |      \
     QP_BIT(OFL_QP_CLOSING))
#define QP_IRQ_OK QP_RX_OK /* states that answer inbound requests */
#define QP_DG_RX_OK /* states in which a datagram QP takes frames */     \
    (QP_BIT(OFL_QP_RTR) | QP_BIT(OFL_QP_RTS) | QP_BIT(OFL_QP_SQD) |      \
     QP_BIT(OFL_QP_SQE))
#define QPW_DG_ADDR (QPW_EXT + 0) /* datagram SEND: dest.addr u32 */
#define QPW_DG_EE (QPW_EXT + 4)   /* dest.ee u32 */
#define QPW_DG_QPN (QPW_EXT + 8)  /* dest.qpn u32 */
#define QPW_DG_ATOMIC 32 /* RD atomics: the dest fields this much later,
                            after the four operands */

/* ---- the state table ---------------------------------------------------- */

#define QS_RESET OFL_QP_RESET
#define QS_INIT OFL_QP_INIT
#define QS_RTR OFL_QP_RTR
#define QS_RTS OFL_QP_RTS
#define QS_SQD OFL_QP_SQD
#define QS_SQE OFL_QP_SQE
#define QS_ERR OFL_QP_ERROR
#define QS_TRM OFL_QP_TERMINATE
#define QS_CLS OFL_QP_CLOSING
#define QS_NO OFL_QP_STATES

/* Rows: states; columns: enum ofl_qp_event (the table in offload.h). */
static const uint8_t qp_table[OFL_QP_STATES][OFL_QP_EVENTS] = {
    /* RESET */
    {QS_RESET, QS_INIT, QS_NO, QS_NO, QS_NO, QS_ERR, QS_NO, QS_NO, QS_NO,
     QS_NO, QS_NO, QS_NO, QS_NO, QS_NO},
    /* INIT */
    {QS_RESET, QS_INIT, QS_RTR, QS_NO, QS_NO, QS_ERR, QS_NO, QS_RTS, QS_NO,
     QS_NO, QS_NO, QS_NO, QS_NO, QS_NO},
    /* RTR */
    {QS_RESET, QS_NO, QS_NO, QS_RTS, QS_NO, QS_ERR, QS_NO, QS_RTS, QS_NO,
     QS_NO, QS_NO, QS_NO, QS_NO, QS_NO},
    /* RTS */
    {QS_RESET, QS_NO, QS_NO, QS_RTS, QS_SQD, QS_ERR, QS_CLS, QS_NO, QS_SQE,
     QS_SQD, QS_TRM, QS_ERR, QS_ERR, QS_ERR},
    /* SQD */
    {QS_RESET, QS_NO, QS_NO, QS_RTS, QS_SQD, QS_ERR, QS_CLS, QS_NO, QS_SQE,
     QS_SQD, QS_TRM, QS_ERR, QS_ERR, QS_ERR},
    /* SQE */
    {QS_RESET, QS_NO, QS_NO, QS_RTS, QS_NO, QS_ERR, QS_NO, QS_NO, QS_SQE,
     QS_SQE, QS_TRM, QS_ERR, QS_ERR, QS_ERR},
    /* ERROR */
    {QS_RESET, QS_NO, QS_NO, QS_NO, QS_NO, QS_ERR, QS_NO, QS_NO, QS_ERR,
     QS_ERR, QS_ERR, QS_ERR, QS_ERR, QS_ERR},
    /* TERMINATE */
    {QS_RESET, QS_NO, QS_NO, QS_NO, QS_NO, QS_ERR, QS_NO, QS_NO, QS_TRM,
     QS_TRM, QS_TRM, QS_ERR, QS_ERR, QS_ERR},
    /* CLOSING */
    {QS_RESET, QS_NO, QS_NO, QS_NO, QS_NO, QS_ERR, QS_CLS, QS_NO, QS_ERR,
     QS_ERR, QS_TRM, QS_ERR, QS_RESET, QS_ERR}};

enum ofl_qp_state ofl_qp_state_next(enum ofl_qp_state from,
                                    enum ofl_qp_event ev)
{
    if ((uint32_t)from >= OFL_QP_STATES || (uint32_t)ev >= OFL_QP_EVENTS)
        return OFL_QP_STATES;
    return (enum ofl_qp_state)qp_table[from][ev];
}

const char *ofl_qp_state_name(enum ofl_qp_state s)
{
    static const char *const names[OFL_QP_STATES] = {
        "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERROR", "TERMINATE",
        "CLOSING"};

    return (uint32_t)s < OFL_QP_STATES ? names[s] : "?";
}

/* ---- small helpers ----------------------------------------------------- */

static bool qp_pow2(uint32_t v)
{
    return v != 0 && (v & (v - 1u)) == 0;
}

static bool qp_state_in(const struct ofl_qp *qp, uint32_t mask)
{
    return (QP_BIT(qp->state) & mask) != 0;
}

/* A connectionless service (RD, UD, RAW): no stream. */
static bool qp_svc_dg(uint32_t service)
{
    return service == OFL_QP_SVC_RD || service == OFL_QP_SVC_UD ||
           service == OFL_QP_SVC_RAW;
}

static bool qp_is_dg(const struct ofl_qp *qp)
{
    return qp_svc_dg(qp->attr.service);
}

/* Header bytes a datagram QP puts before the payload. */
static uint32_t qp_dg_hl(uint32_t service)
{
    return service == OFL_QP_SVC_RAW ? 0u : OFL_DG_HDR_LEN;
}

static bool qp_op_atomic(uint32_t op)
{
    return op == OFL_QP_OP_ATOMIC_FADD || op == OFL_QP_OP_ATOMIC_CSWAP;
}

/* A send opcode carried as one datagram frame: SEND on any datagram QP,
 * RDMA Write, Read and the atomics on RD (seed 001: a datagram QP "that
 * allows RDMA operations"; FetchOp). */
static bool qp_dg_op(const struct ofl_qp *qp, uint32_t op)
{
    return qp_is_dg(qp) &&
           (op == OFL_QP_OP_SEND ||
            (qp->attr.service == OFL_QP_SVC_RD &&
             (op == OFL_QP_OP_WRITE || op == OFL_QP_OP_READ ||
              qp_op_atomic(op))));
}

/* Where a datagram WQE of op keeps its dest fields: QPW_DG_* plus this. */
static uint32_t qp_dg_at(uint32_t op)
{
    return qp_op_atomic(op) ? QPW_DG_ATOMIC : 0u;
}

/* Bytes of a frame's payload (after the 28-byte header) a datagram WQE of
 * op with total bytes needs, the larger of its request and, for a Read,
 * its response (which the peer keeps in an EE slot like ours); an
 * atomic's request (its response, 4 + 8 bytes, is smaller). */
static uint32_t qp_dg_need(uint32_t op, uint32_t total)
{
    if (op == OFL_QP_OP_WRITE)
        return total + OFL_DG_WRITE_EXT;
    if (qp_op_atomic(op))
        return OFL_DG_ATOMIC_EXT;
    if (op == OFL_QP_OP_READ)
        return total + OFL_DG_RESP_EXT > OFL_DG_READ_EXT
                   ? total + OFL_DG_RESP_EXT
                   : OFL_DG_READ_EXT;
    return total;
}

static uint32_t qp_min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Slot size for max_sge data segments: the smallest power of two >= the
 * WQE, at least 32 bytes. Bounded by OFL_QP_WQE_MAX. */
static uint32_t qp_stride(uint32_t max_sge, bool send)
{
    uint32_t need = (send ? OFL_QP_SQ_HDR : OFL_QP_RQ_HDR) +
                    max_sge * OFL_QP_SGE_LEN;
    uint32_t s = 32;

    while (s < need)
        s <<= 1;
    return s;
}

uint32_t ofl_qp_ring_size(uint32_t depth, uint32_t max_sge, bool send)
{
    if (!qp_pow2(depth) || depth > 0x10000u ||
        max_sge > (send ? OFL_QP_SQ_SGE_MAX : OFL_QP_RQ_SGE_MAX))
        return 0;
    return depth * qp_stride(max_sge, send);
}

uint32_t ofl_qp_tx_need(uint16_t mulpdu, bool markers)
{
    /* Length + ULPDU + pad + CRC, and a marker per 508 content bytes plus
     * one: every FPDU built at this MULPDU fits, wherever it starts. */
    uint32_t content = ((OFL_MPA_HDR_LEN + (uint32_t)mulpdu + 3u) & ~3u) +
                       OFL_MPA_CRC_LEN;

    if (!markers)
        return content;
    return content + OFL_MPA_MARKER_LEN *
                         (content / (OFL_MPA_MARKER_INTERVAL -
                                     OFL_MPA_MARKER_LEN) + 1u);
}

/* Raises asynchronous events through the port. */
static void qp_raise(struct ofl_qp *qp, uint32_t evt)
{
    qp->events |= evt;
    if (qp->attr.port != NULL)
        (void)ofl_port_notify(qp->attr.port, qp->attr.event_vector);
}

/* ---- completion queues --------------------------------------------------- */

enum ofl_err ofl_cq_init(struct ofl_cq *cq, struct ofl_cqe *ring, uint32_t cap,
                         const struct ofl_port *port, uint32_t vector)
{
    if (cq == NULL || ring == NULL || !qp_pow2(cap) || cap > (1u << 24))
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(cq, 0, sizeof(*cq));
    cq->ring = ring;
    cq->cap = cap;
    cq->port = port;
    cq->vector = vector;
#if OFL_FAST_PATH
    cq->hooks = port_hooks(port); /* HOOK_BARRIER */
#endif
    return OFL_OK;
}

/*
 * A CQE from the ring into the caller's out (cq_take). On x86-64 with
 * SSE2 (not the kernel's general-register build) as two 16-byte words
 * and one 8-byte word: GCC's fixed copy moves five 8-byte words, clang's
 * ofl_copy steps its cursor between the words (issue 30: 6 instructions
 * a poll with gcc, 2 with clang). An unaligned may_alias vector of
 * integers: no library call at any optimisation level. dst and src MUST
 * NOT overlap.
 */
#if OFL_FAST_PATH && defined(OFL_WORD_MOVES) && defined(__GNUC__) && \
    defined(__OPTIMIZE__) && defined(__x86_64__) && defined(__SSE2__)
typedef uint64_t __attribute__((__vector_size__(16), __may_alias__,
                                __aligned__(1))) cq_word2;
_Static_assert(sizeof(struct ofl_cqe) == 40, "a CQE is 2 x 16 + 8 bytes");

static OFL_ALWAYS_INLINE void cq_copy_cqe(struct ofl_cqe *dst,
                                          const struct ofl_cqe *src)
{
    const cq_word2 a = ((const cq_word2 *)src)[0];
    const cq_word2 b = ((const cq_word2 *)src)[1];
    const ofl_word c = ((const ofl_word *)src)[4];

    ((cq_word2 *)dst)[0] = a;
    ((cq_word2 *)dst)[1] = b;
    ((ofl_word *)dst)[4] = c;
}
#else
#define cq_copy_cqe(dst, src) ofl_copy_fixed((dst), (src), sizeof(*(dst)))
#endif

#if OFL_FAST_PATH
/* cq_take of one CQE (max 1, the common poll): no loop, the indexes read
 * once, and a CQ never overrun answers after one test (issue 30: 4
 * instructions a poll with gcc, 12 with clang). The loop's answer: the
 * CQE, if any, and the overrun once none is left. */
static OFL_ALWAYS_INLINE enum ofl_err cq_take_one(struct ofl_cq *cq,
                                                  struct ofl_cqe *out,
                                                  uint32_t *n)
{
    const uint32_t ci = cq->ci, pi = cq->pi;

    if (ci == pi) {
        *n = 0;
        return cq->overrun ? OFL_E_QP_CQ_OVERRUN : OFL_OK;
    }
    cq_copy_cqe(out, &cq->ring[ci & (cq->cap - 1u)]);
    cq->ci = ci + 1u;
    *n = 1;
    if (!cq->overrun)
        return OFL_OK;
    return ci + 1u == pi ? OFL_E_QP_CQ_OVERRUN : OFL_OK;
}
#endif

/* ofl_cq_poll after its argument checks and barrier: up to max CQEs. */
static OFL_ALWAYS_INLINE enum ofl_err cq_take(struct ofl_cq *cq,
                                              struct ofl_cqe *out,
                                              uint32_t max, uint32_t *n)
{
    uint32_t k = 0;

#if OFL_FAST_PATH
    if (max == 1)
        return cq_take_one(cq, out, n);
#endif
    while (k < max && cq->ci != cq->pi) {
        cq_copy_cqe(&out[k], &cq->ring[cq->ci & (cq->cap - 1u)]);
        cq->ci++;
        k++;
    }
    *n = k;
    return cq->overrun && cq->ci == cq->pi ? OFL_E_QP_CQ_OVERRUN : OFL_OK;
}

#if OFL_FAST_PATH
/* ofl_cq_poll on a CQ whose port has a barrier: out of line, so that the
 * poll of one without stays a leaf function (no call, no saved
 * registers). */
static OFL_NOINLINE enum ofl_err cq_take_acquire(struct ofl_cq *cq,
                                                 struct ofl_cqe *out,
                                                 uint32_t max, uint32_t *n)
{
    cq->port->barrier(cq->port->ctx, OFL_BARRIER_ACQUIRE);
    return cq_take(cq, out, max, n);
}

/* cq_take of max CQEs, max not 1, out of line: the poll of one keeps
 * its arguments in the registers they came in (issue 30: 2 instructions
 * a poll with gcc). */
static OFL_NOINLINE enum ofl_err cq_take_many(struct ofl_cq *cq,
                                              struct ofl_cqe *out,
                                              uint32_t max, uint32_t *n)
{
    return cq_take(cq, out, max, n);
}
#endif

enum ofl_err ofl_cq_poll(struct ofl_cq *cq, struct ofl_cqe *out, uint32_t max,
                         uint32_t *n)
{
    if (cq == NULL || n == NULL || (out == NULL && max != 0))
        return OFL_E_ARG;
#if OFL_FAST_PATH
    if (cq->hooks & PORT_HOOK_BARRIER)
        return cq_take_acquire(cq, out, max, n);
    if (max == 1)
        return cq_take_one(cq, out, n);
    return cq_take_many(cq, out, max, n);
#else
    ofl_port_barrier(cq->port, OFL_BARRIER_ACQUIRE);
#endif
    return cq_take(cq, out, max, n);
}

enum ofl_err ofl_cq_arm(struct ofl_cq *cq, enum ofl_cq_arm arm)
{
    if (cq == NULL || (uint32_t)arm > OFL_CQ_ARM_ANY)
        return OFL_E_ARG;
    cq->arm = (uint8_t)arm;
    return OFL_OK;
}

uint32_t ofl_cq_count(const struct ofl_cq *cq)
{
    return cq != NULL ? cq->pi - cq->ci : 0;
}

/* The next CQE slot of cq, or NULL when the CQ is full (overrun: the CQE
 * is lost, the CQ and the QP say so). */
static OFL_HOT_INLINE struct ofl_cqe *qp_cqe(struct ofl_qp *qp,
                                               struct ofl_cq *cq)
{
    struct ofl_cqe *e;

    if (cq->pi - cq->ci >= cq->cap) {
        if (!cq->overrun)
            qp_raise(qp, OFL_QP_EVT_CQ_OVERRUN);
        cq->overrun = 1;
        return NULL;
    }
    e = &cq->ring[cq->pi & (cq->cap - 1u)];
    e->imm = 0;
    e->stag = 0;
    e->flags = 0;
    e->reserved = 0;
    e->src_addr = 0;
    e->src_qpn = 0;
    e->qpn = qp->attr.qpn;
    return e;
}

/* Publishes the CQE qp_cqe returned and raises the armed event. Inlined
 * where every message completes (qp_sq_complete, qp_rx_send) with the
 * fast paths; the other completions call qp_cqe_commit, its one copy
 * otherwise, as a size build has it. */
static OFL_HOT_INLINE void qp_cqe_commit_hot(struct ofl_cq *cq,
                                             const struct ofl_cqe *e)
{
    HOOK_BARRIER(cq->hooks, cq->port, OFL_BARRIER_RELEASE);
    cq->pi++;
    /* An unarmed CQ (the common case) in one test, not two (issue 30: 2
     * instructions a receive completion with gcc; qp_sq_whole_done tests
     * it before already). */
    if (OFL_FAST_PATH && cq->arm == OFL_CQ_ARM_NONE)
        return;
    if (cq->arm == OFL_CQ_ARM_ANY ||
        (cq->arm == OFL_CQ_ARM_SOLICITED &&
         ((e->flags & OFL_CQE_SOLICITED) || e->status != OFL_WC_SUCCESS))) {
        cq->arm = OFL_CQ_ARM_NONE;
        if (cq->port != NULL)
            (void)ofl_port_notify(cq->port, cq->vector);
    }
}

#if OFL_FAST_PATH
static OFL_NOINLINE void qp_cqe_commit(struct ofl_cq *cq,
                                       const struct ofl_cqe *e)
{
    qp_cqe_commit_hot(cq, e);
}
#else
#define qp_cqe_commit qp_cqe_commit_hot
#endif

/* ---- creation ------------------------------------------------------------ */

static enum ofl_err qp_wq_init(struct ofl_qp_wq *wq, void *ring,
                               uint64_t ring_pa, uint32_t depth,
                               uint32_t max_sge, bool send)
{
    if (ring == NULL || ofl_qp_ring_size(depth, max_sge, send) == 0)
        return OFL_E_ARG;
    ofl_fill(wq, 0, sizeof(*wq));
    wq->ring = (uint8_t *)ring;
    wq->ring_pa = ring_pa;
    wq->depth = depth;
    wq->stride = qp_stride(max_sge, send);
    wq->max_sge = max_sge;
    return OFL_OK;
}

static enum ofl_err qp_attr_check(const struct ofl_qp_attr *a)
{
    if (a->service != OFL_QP_SVC_IWARP && a->service != OFL_QP_SVC_ISCSI &&
        !qp_svc_dg(a->service))
        return OFL_E_QP_SERVICE;
    /* Seed 002: only a channel with acknowledgements may wait for them. */
    if (a->acked > 1 || (a->acked && a->service != OFL_QP_SVC_RD))
        return OFL_E_QP_ACKED;
    if (qp_svc_dg(a->service) &&
        (a->max_dgram == 0 || a->max_dgram > 0xFFFFu ||
         (a->node == NULL && a->service != OFL_QP_SVC_RAW)))
        return OFL_E_ARG;
    if (a->tpt == NULL || a->send_cq == NULL || a->recv_cq == NULL ||
        a->transmit == NULL || a->ord == 0 || !qp_pow2(a->ird) ||
        (a->reg_option != OFL_QP_REG_OPTION1 &&
         a->reg_option != OFL_QP_REG_OPTION2) ||
        a->sq_reg > 1 || a->read_sink > OFL_QP_READ_SINK_TAGGED ||
        a->fault_wait > OFL_QP_FAULT_WAIT ||
        (a->service == OFL_QP_SVC_ISCSI &&
         (a->iscsi_max_data < 512 || a->iscsi_max_data > 0xFFFFFFu ||
          a->qpn == OFL_TPT_QP_NONE)))
        return OFL_E_ARG; /* RFC 3720 §12.12: 512 .. 2^24 - 1; the qpn
                             owns the ITTs (ofl_tpt_register_iscsi) */
#if OFL_FAST_PATH
    /* Transmit by reference: header, one payload piece, trailer at least.
     * (A size build never uses it, so does not look.) */
    if (a->transmitv != NULL && (a->txref == NULL || a->txref_cap < 3))
        return OFL_E_ARG;
#endif
    return OFL_OK;
}

static enum ofl_err qp_mem_check(const struct ofl_qp_attr *a,
                                 const struct ofl_qp_mem *m)
{
    const bool dg = qp_svc_dg(a->service);

    if (m->sq_track == NULL || (m->irq == NULL && !dg) ||
        (m->ord_ring == NULL && !dg) || m->tx_buf == NULL ||
        (m->rx_buf == NULL && !dg) ||
        (m->sq_sge == NULL && m->sq_max_sge != 0) ||
        (m->rq_sge == NULL && m->rq_max_sge != 0) ||
        (m->ot_pending == NULL && m->ot_cap != 0) ||
        (m->ooo == NULL && m->ooo_cap != 0) || m->sq_host > 1 ||
        m->rq_host > 1)
        return OFL_E_ARG;
    /* A ring in host memory is announced by doorbells and read by DMA. */
    if ((m->sq_host || m->rq_host) &&
        (a->port == NULL || a->port->dma_read == NULL))
        return OFL_E_ARG;
    if (ofl_port_check_opt(a->port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    if (a->service == OFL_QP_SVC_ISCSI &&
        (m->rx_cap < OFL_ISCSI_BHS_LEN + 1020u ||
         m->tx_cap < OFL_ISCSI_BHS_LEN + ((a->iscsi_max_data + 3u) & ~3u)))
        return OFL_E_SIZE; /* a Data-Out of iscsi_max_data bytes, padded */
    if (dg && m->tx_cap < qp_dg_hl(a->service) + a->max_dgram)
        return OFL_E_SIZE;
    return OFL_OK;
}

/* Back to the state of a fresh QP (RESET): indices, streams, counters. */
/*
 * The stream ended (ERROR, RESET): one-touch invalidations still deferred
 * are carried out now (the stream will never line up with them; the entry
 * checks of ofl_seq_retire spare a new registration), and at RESET the
 * type 2 windows tied to this QP number die with its life.
 */
static void qp_stream_end(struct ofl_qp *qp)
{
    if (qp->seq.pending_count != 0) {
        ofl_seq_end(&qp->seq);
        (void)ofl_seq_retire(&qp->seq, qp->attr.tpt, NULL);
    }
}

static void qp_reset_state(struct ofl_qp *qp)
{
    uint32_t i;

    qp_stream_end(qp);
    (void)ofl_tpt_invalidate_qp(qp->attr.tpt, qp->attr.qpn, qp->attr.pd);

    qp->sq.pi = qp->sq.db_pi = qp->sq.ci = qp->sq.cc = qp->sq.flush_to = 0;
    qp->rq.pi = qp->rq.db_pi = qp->rq.ci = qp->rq.cc = qp->rq.flush_to = 0;
    qp->sq.flush_all = 0;
    for (i = 0; i < qp->sq.depth; i++)
        qp->sq_track[i].state = QP_TRACK_IDLE;
    qp->established = 0;
    qp->llp_closed = 0;
    qp->close_sent = 0;
    qp->term_pending = 0;
    qp->error_after_term = 0;
    qp->rx_tag_open = 0;
#if OFL_FAST_PATH
    qp->rx_kept_region = NULL; /* no region kept into a new connection */
#endif
    qp->drained_sent = 0;
    qp->err = OFL_OK;
    qp->ooo_count = 0;
    qp->ord_head = qp->ord_count = 0;
    qp->irq_head = qp->irq_count = 0;
    for (i = 0; i < 5; i++) {
        qp->msn_tx[i] = 1; /* RFC 5041 §5.1: the first MSN is 1 */
        qp->msn_rx[i] = 1;
    }
    ofl_fill(&qp->cur, 0, sizeof(qp->cur));
    ofl_fill(&qp->rcur, 0, sizeof(qp->rcur));
    ofl_fill(&qp->irx, 0, sizeof(qp->irx));
    ofl_fill(&qp->fault, 0, sizeof(qp->fault));
    ofl_fill(&qp->term_tx, 0, sizeof(qp->term_tx));
    ofl_fill(&qp->term_rx, 0, sizeof(qp->term_rx));
    /* the events of the last life, with the Terminates they announce */
    qp->events = 0;
    qp->iscsi_cmd_seq = 1;
    qp->iscsi_exp_statsn = 0;
    qp->iscsi_statsn_known = 0;
    qp->dg_epoch++; /* frames in EE windows no longer name our WQEs */
}

enum ofl_err ofl_qp_create(struct ofl_qp *qp, const struct ofl_qp_attr *attr,
                           const struct ofl_qp_mem *mem)
{
    enum ofl_err err;

    if (qp == NULL || attr == NULL || mem == NULL)
        return OFL_E_ARG;
    err = qp_attr_check(attr);
    if (err == OFL_OK)
        err = qp_mem_check(attr, mem);
    if (err != OFL_OK)
        return err;
    ofl_fill(qp, 0, sizeof(*qp));
    if (qp_wq_init(&qp->sq, mem->sq_ring, mem->sq_ring_pa, mem->sq_depth,
                   mem->sq_max_sge, true) != OFL_OK ||
        qp_wq_init(&qp->rq, mem->rq_ring, mem->rq_ring_pa, mem->rq_depth,
                   mem->rq_max_sge, false) != OFL_OK)
        return OFL_E_ARG;
    ofl_copy(&qp->attr, attr, sizeof(qp->attr));
    qp->sq.host = mem->sq_host;
    qp->rq.host = mem->rq_host;
    qp->sq.db = attr->sq_db;
    qp->rq.db = attr->rq_db;
    qp->sq_track = mem->sq_track;
    qp->sq_sge = mem->sq_sge;
    qp->rq_sge = mem->rq_sge;
    qp->irq = mem->irq;
    qp->ord_ring = mem->ord_ring;
    qp->tx_buf = mem->tx_buf;
    qp->tx_own = mem->tx_buf;
#if OFL_FAST_PATH
    qp->hooks = port_hooks(attr->port); /* looked at once (PORT_HOOK_*) */
#endif
    qp->tx_cap = mem->tx_cap;
    qp->tx_stage = mem->tx_stage;
    qp->rx_buf = mem->rx_buf;
    qp->rx_cap = mem->rx_cap;
    qp->ooo = mem->ooo;
    qp->ooo_cap = mem->ooo_cap;
    qp->ot_pending = mem->ot_pending;
    qp->ot_cap = mem->ot_cap;
    qp->ord = attr->ord;
    qp->state = OFL_QP_RESET;
    qp_reset_state(qp);
    return OFL_OK;
}

/* ---- fetching WQEs ------------------------------------------------------- */

/* Copies n bytes at offset off of WQE index idx of wq into dst: by DMA
 * when the ring lives in host memory. */
static OFL_HOT_INLINE enum ofl_err qp_wq_read(const struct ofl_qp *qp,
                                              const struct ofl_qp_wq *wq,
                                              uint32_t idx, uint32_t off,
                                              void *dst, uint32_t n)
{
    uint32_t at = (idx & (wq->depth - 1u)) * wq->stride + off;

    if (wq->host)
        return ofl_port_dma_read(qp->attr.port, wq->ring_pa + at, dst, n);
#if OFL_FAST_PATH && defined(__GNUC__) && defined(__OPTIMIZE__) && \
    !defined(__FRAMAC__)
    /* Inlined with a constant n (the WQE header and segment reads of
     * every message): straight-line word moves. Optimised builds only, as
     * ofl_copy_fixed; not under Frama-C, whose machdep has no GCC
     * builtins (make prove). */
    if (__builtin_constant_p(n)) {
        ofl_copy_fixed(dst, wq->ring + at, n);
        return OFL_OK;
    }
#endif
    ofl_copy(dst, wq->ring + at, n);
    return OFL_OK;
}

/* A WQE data segment's 16 bytes at p (offload.h, the data segment of the
 * WQE layout: address, length, local STag, little-endian), read and
 * written in one place: the posts store them, the fetch and the whole
 * paths read them. */
static OFL_ALWAYS_INLINE void qp_sge_get(const uint8_t *p,
                                         struct ofl_qp_sge *s)
{
    s->addr = ofl_load_le64(p);
    s->len = ofl_load_le32(p + 8);
    s->stag = ofl_load_le32(p + 12);
}

static OFL_ALWAYS_INLINE void qp_sge_put(uint8_t *p, uint64_t addr,
                                         uint32_t len, uint32_t stag)
{
    ofl_store_le64(p, addr);
    ofl_store_le32(p + 8, len);
    ofl_store_le32(p + 12, stag);
}

/* Decodes the n data segments of WQE idx of wq into the queue's segment
 * array, checking that the total stays below 2^31 (*total). */
static OFL_HOT_INLINE enum ofl_err qp_sge_fetch(const struct ofl_qp *qp,
                                                const struct ofl_qp_wq *wq,
                                                uint32_t idx, uint32_t n,
                                                uint32_t *total)
{
    const bool send = wq == &qp->sq;
    const uint32_t base = send ? OFL_QP_SQ_HDR : OFL_QP_RQ_HDR;
    struct ofl_qp_sge *sge = send ? qp->sq_sge : qp->rq_sge;
    uint8_t b[OFL_QP_SGE_LEN];
    uint32_t i;
    uint64_t sum = 0;
    enum ofl_err err;

    for (i = 0; i < n; i++) {
        err = qp_wq_read(qp, wq, idx, base + i * OFL_QP_SGE_LEN, b, sizeof(b));
        if (err != OFL_OK)
            return err;
        qp_sge_get(b, &sge[i]);
        sum += sge[i].len;
    }
    if (sum >= QP_MSG_MAX)
        return OFL_E_QP_WQE;
    *total = (uint32_t)sum;
    return OFL_OK;
}

/* ---- work request rules (post time and fetch time) ----------------------- */

/* Opcode, flags and SGE count for this QP. */
static OFL_HOT_INLINE enum ofl_err qp_op_check(const struct ofl_qp *qp,
                                               uint32_t opcode, uint32_t flags,
                                               uint32_t num_sge)
{
    bool iscsi = qp->attr.service == OFL_QP_SVC_ISCSI;

#if OFL_FAST_PATH && defined(__OPTIMIZE__)
    /* An iWARP QP and an opcode from Send to Bind (the verbs every
     * message posts and fetches): neither a datagram rule nor the
     * opcode switch below refuses it, so straight to the flags. */
    if (qp->attr.service == OFL_QP_SVC_IWARP &&
        opcode - (uint32_t)OFL_QP_OP_SEND <
            (uint32_t)(OFL_QP_OP_BIND - OFL_QP_OP_SEND + 1))
        goto flags;
#endif
    if (qp_is_dg(qp) && !qp_dg_op(qp, opcode)) {
        switch (opcode) {
        case OFL_QP_OP_SEND_INV:
        case OFL_QP_OP_WRITE:
        case OFL_QP_OP_WRITE_IMM:
        case OFL_QP_OP_READ:
        case OFL_QP_OP_ATOMIC_FADD:
        case OFL_QP_OP_ATOMIC_CSWAP:
        case OFL_QP_OP_BIND:
        case OFL_QP_OP_REG_SEND:
            return OFL_E_QP_DG_RDMA;
        default:
            break;
        }
    }
    switch (opcode) {
    case OFL_QP_OP_SEND:
    case OFL_QP_OP_SEND_INV:
    case OFL_QP_OP_WRITE:
    case OFL_QP_OP_WRITE_IMM:
    case OFL_QP_OP_READ:
    case OFL_QP_OP_ATOMIC_FADD:
    case OFL_QP_OP_ATOMIC_CSWAP:
    case OFL_QP_OP_BIND:
        if (iscsi)
            return OFL_E_QP_OPCODE;
        break;
    case OFL_QP_OP_REG_SEND:
        if (iscsi || !qp->attr.sq_reg)
            return OFL_E_QP_OPCODE;
        break;
    case OFL_QP_OP_FAST_REG:
        if (!qp->attr.sq_reg)
            return OFL_E_QP_OPCODE;
        break;
    case OFL_QP_OP_LOCAL_INV:
    case OFL_QP_OP_DELAY:
        break;
    case OFL_QP_OP_ISCSI_CMD:
    case OFL_QP_OP_ISCSI_PDU:
        if (!iscsi)
            return OFL_E_QP_OPCODE;
        break;
    default:
        return OFL_E_QP_OPCODE;
    }
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
flags:
#endif
    if ((flags & ~(uint32_t)QP_WR_FLAGS) != 0)
        return OFL_E_QP_WR;
    if (num_sge > qp->sq.max_sge)
        return OFL_E_QP_SGE;
    return OFL_OK;
}

/* Rules that depend on the data segments and remote fields. */
static OFL_HOT_INLINE enum ofl_err qp_op_rules(uint32_t opcode,
                                               uint32_t num_sge,
                                               const struct ofl_qp_sge *sge,
                                               uint64_t to, uint32_t total)
{
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
    /* Send, Send with Invalidate, Write, Write with Immediate: no rule
     * here (the switch's default). */
    if (opcode - (uint32_t)OFL_QP_OP_SEND <
        (uint32_t)(OFL_QP_OP_READ - OFL_QP_OP_SEND))
        return OFL_OK;
#endif
    switch (opcode) {
    case OFL_QP_OP_READ:
        if (num_sge > 1)
            return OFL_E_QP_WR; /* RFC 5040: one Data Sink STag */
        break;
    case OFL_QP_OP_ATOMIC_FADD:
    case OFL_QP_OP_ATOMIC_CSWAP:
        if (num_sge != 1 || sge[0].len != 8 || (to & 7u) != 0)
            return OFL_E_QP_WR;
        break;
    case OFL_QP_OP_ISCSI_CMD:
        if (total == 0 && num_sge != 0)
            return OFL_E_QP_WR; /* buffers of no bytes (no data: no sge) */
        break;
    case OFL_QP_OP_ISCSI_PDU:
        if (total > 0xFFFFFFu)
            return OFL_E_QP_WR; /* DataSegmentLength has 24 bits */
        break;
    default:
        break;
    }
    return OFL_OK;
}

/* Datagram SEND rules (post and fetch time): one frame, and for RD an EE
 * context in use whose slots hold the frame. */
static enum ofl_err qp_dg_rules(const struct ofl_qp *qp, uint32_t total,
                                uint32_t ee)
{
    const struct ofl_qp_node *node = qp->attr.node;

    if (total > qp->attr.max_dgram)
        return OFL_E_QP_DG_TOO_LONG;
    if (qp->attr.service != OFL_QP_SVC_RD)
        return OFL_OK;
    if (ee >= node->ee_cap || node->ee[ee].state == OFL_EE_UNUSED)
        return OFL_E_QP_DG_DEST;
    if (OFL_DG_HDR_LEN + total > node->ee[ee].attr.slot_size)
        return OFL_E_QP_DG_TOO_LONG;
    return OFL_OK;
}

/* ---- posting (verbs side) ---------------------------------------------- */

/* Stores n data segments at p. A speed build stores the common single
 * one without the loop (issue 30). */
static void qp_put_sges(uint8_t *p, const struct ofl_qp_sge *sge, uint32_t n)
{
    uint32_t i;

    if (OFL_FAST_PATH && n == 1) {
        qp_sge_put(p, sge[0].addr, sge[0].len, sge[0].stag);
        return;
    }
    for (i = 0; i < n; i++, p += OFL_QP_SGE_LEN) {
        qp_sge_put(p, sge[i].addr, sge[i].len, sge[i].stag);
    }
}

/* Writes the opcode-specific words of a send WQE. */
static OFL_HOT_INLINE void qp_put_send(uint8_t *w, const struct ofl_qp_wr *wr,
                                       uint32_t id)
{
    uint8_t *x = w + QPW_EXT;
    uint64_t to = wr->remote_to;
    uint32_t rstag = wr->remote_stag, b32 = 0;

    switch (wr->opcode) {
    case OFL_QP_OP_WRITE_IMM:
        ofl_store_le64(x, wr->imm);
        break;
    case OFL_QP_OP_ATOMIC_FADD:
    case OFL_QP_OP_ATOMIC_CSWAP:
        ofl_store_le64(x, wr->atomic[0]);
        ofl_store_le64(x + 8, wr->atomic[1]);
        ofl_store_le64(x + 16, wr->atomic[2]);
        ofl_store_le64(x + 24, wr->atomic[3]);
        break;
    case OFL_QP_OP_BIND:
        to = wr->bind.va;
        rstag = wr->bind.region_stag;
        b32 = wr->bind.access | ((uint32_t)wr->bind.flags << 8);
        ofl_store_le64(x, wr->bind.len);
        break;
    case OFL_QP_OP_FAST_REG:
    case OFL_QP_OP_REG_SEND:
        to = wr->reg.va;
        rstag = wr->reg.att_base;
        b32 = wr->reg.att_count;
        ofl_store_le64(x, wr->reg.len);
        ofl_store_le32(x + 8, wr->reg.fpo);
        x[12] = wr->reg.page_shift;
        x[13] = wr->reg.att_kind;
        x[14] = wr->reg.access;
        x[15] = wr->reg.flags;
        break;
    case OFL_QP_OP_DELAY:
        to = wr->imm;
        break;
    case OFL_QP_OP_ISCSI_CMD:
        to = id;
        rstag = wr->reg.att_base;
        b32 = wr->reg.page_shift;
        ofl_copy(x, wr->bhs, OFL_ISCSI_BHS_LEN);
        break;
    case OFL_QP_OP_ISCSI_PDU:
        ofl_copy(x, wr->bhs, OFL_ISCSI_BHS_LEN);
        break;
    default:
        break;
    }
    ofl_store_le64(w + QPW_TO, to);
    ofl_store_le32(w + QPW_RSTAG, rstag);
    ofl_store_le32(w + QPW_B32, b32);
}

/* Writes the fixed words every send WQE has (opcode to wr_id): wr's,
 * but its flags and segment count as given (the common post reads them
 * before the WQE's first store, which may alias anything: issue 30). */
static OFL_HOT_INLINE void qp_put_send_hdr(uint8_t *w,
                                           const struct ofl_qp_wr *wr,
                                           uint32_t flags, uint32_t num)
{
    w[QPW_OPCODE] = wr->opcode;
    w[QPW_FLAGS] = (uint8_t)flags;
    w[QPW_NSGE] = (uint8_t)num;
    w[3] = 0;
    ofl_store_le32(w + QPW_STAG, wr->stag);
    ofl_store_le64(w + QPW_WRID, wr->wr_id);
}

/* Publishes a posted WQE: the producer index, and the doorbell. */
static OFL_HOT_INLINE void qp_publish(struct ofl_qp *qp,
                                       struct ofl_qp_wq *wq)
{
    const struct ofl_port *port = qp->attr.port;

    HOOK_BARRIER(qp->hooks, port, OFL_BARRIER_RELEASE);
    wq->pi++;
    if (!wq->host)
        wq->db_pi = wq->pi;
    HOOK_DOORBELL(qp->hooks, port, wq->db, wq->pi);
}

#if OFL_FAST_PATH && defined(__OPTIMIZE__)
/* qp_publish out of line and its answer OFL_OK, for ofl_qp_post_recv's
 * general path and the common posts on a port with a barrier: the common
 * post's checks and stores then need no saved registers, nor the error
 * codes set ahead of their tests for a shared return (issue 30, with
 * qp_publish_common: 67 -> 56 instructions a receive post with gcc;
 * clang 64, the same: it saves its registers on entry). */
static OFL_NOINLINE enum ofl_err qp_publish_call(struct ofl_qp *qp,
                                                 struct ofl_qp_wq *wq)
{
    qp_publish(qp, wq);
    return OFL_OK;
}

/* qp_publish for the common posts (qp_post_send_common, qp_post_recv_one)
 * with pi the producer index as they read it before the WQE's stores
 * (which could alias it): a port with a barrier through qp_publish_call;
 * else the index, and the doorbell the one call, after every check. */
static OFL_ALWAYS_INLINE enum ofl_err
qp_publish_common(struct ofl_qp *qp, struct ofl_qp_wq *wq, uint32_t pi)
{
    if (qp->hooks & PORT_HOOK_BARRIER)
        return qp_publish_call(qp, wq);
    wq->pi = ++pi;
    if (!wq->host)
        wq->db_pi = pi;
    HOOK_DOORBELL(qp->hooks, qp->attr.port, wq->db, pi);
    return OFL_OK;
}

static OFL_NOINLINE enum ofl_err
qp_post_send_general(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                     uint32_t *out);

/*
 * ofl_qp_post_send for the common WQE (issue 30): a Send, Send with
 * Invalidate or RDMA Write of at most one data segment on an iWARP QP
 * (the caller saw the opcode, the service and num_sge <= 1, with its
 * data segment when it has one). The general path's checks for it
 * (qp_op_check's fast branch, the 2^31 total; qp_op_rules and the
 * datagram rules have none for it) in one conjunction, and its stores,
 * without the loops and the opcode switch. A work request that fails any
 * goes to the general path, which names the error in its order (changing
 * nothing first, as here): one answer here, OFL_OK, so that no error code
 * is kept across the doorbell's call for a shared return (issue 30: 7
 * instructions a post with clang). tests/check_fastpath.sh holds it to
 * the general path's answers.
 */
static OFL_ALWAYS_INLINE enum ofl_err
qp_post_send_common(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                    uint32_t *out)
{
    struct ofl_qp_wq *sq = &qp->sq;
    const uint32_t num = wr->num_sge, flags = wr->flags;
    const struct ofl_qp_sge *sge = wr->sge;
    const uint32_t len = num != 0 ? sge[0].len : 0, pi = sq->pi;
    uint8_t *w;

    if (!qp_state_in(qp, QP_POST_SEND_OK) ||
        (flags & ~(uint32_t)QP_WR_FLAGS) != 0 || num > sq->max_sge ||
        len >= QP_MSG_MAX || pi - sq->cc >= sq->depth)
        return qp_post_send_general(qp, wr, out);
    if (out != NULL)
        *out = pi;
    w = sq->ring + (pi & (sq->depth - 1u)) * sq->stride;
    /* the flags, the count and the segment's address read once, above:
     * after the WQE's first store (bytes that may alias anything) they
     * would be read again (issue 30: 3 instructions a post with gcc, 2
     * with clang) */
    qp_put_send_hdr(w, wr, flags, num);
    ofl_store_le64(w + QPW_TO, wr->remote_to);
    ofl_store_le32(w + QPW_RSTAG, wr->remote_stag);
    ofl_store_le32(w + QPW_B32, 0);
    if (num != 0) {
        const uint64_t addr = sge[0].addr;
        const uint32_t stag = sge[0].stag;

        qp_sge_put(w + OFL_QP_SQ_HDR, addr, len, stag);
    }
    return qp_publish_common(qp, sq, pi);
}
#endif

/* ofl_qp_post_send past its argument checks: every work request the
 * common path (qp_post_send_common) does not take. Its own function in a
 * speed build, so that the common path does not save the registers this
 * one needs (issue 30: about 10 instructions a post). */
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
static OFL_NOINLINE enum ofl_err
#else
static OFL_ALWAYS_INLINE enum ofl_err
#endif
qp_post_send_general(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                     uint32_t *out)
{
    uint8_t *w;
    uint64_t sum = 0;
    uint32_t i, id;
    bool dg;
    enum ofl_err err;

    if (!qp_state_in(qp, QP_POST_SEND_OK))
        return OFL_E_QP_STATE;
    err = qp_op_check(qp, wr->opcode, wr->flags, wr->num_sge);
    if (err != OFL_OK)
        return err;
    for (i = 0; i < wr->num_sge; i++)
        sum += wr->sge[i].len;
    if (sum >= QP_MSG_MAX)
        return OFL_E_QP_WR;
    /* Decided once: the WQE's byte stores below may alias the QP. */
    dg = qp_dg_op(qp, wr->opcode);
    err = qp_op_rules(wr->opcode, wr->num_sge, wr->sge, wr->remote_to,
                      (uint32_t)sum);
    if (err == OFL_OK && dg)
        err = qp_dg_rules(qp, qp_dg_need(wr->opcode, (uint32_t)sum),
                          wr->dest.ee);
    if (err != OFL_OK)
        return err;
    if (qp->sq.pi - qp->sq.cc >= qp->sq.depth)
        return OFL_E_QP_SQ_FULL;
    id = qp->sq.pi;
    if (wr->opcode == OFL_QP_OP_ISCSI_CMD)
        id = qp->iscsi_cmd_seq++;
    w = qp->sq.ring + (qp->sq.pi & (qp->sq.depth - 1u)) * qp->sq.stride;
    qp_put_send_hdr(w, wr, wr->flags, wr->num_sge);
    qp_put_send(w, wr, id);
    if (dg) {
        const uint32_t at = qp_dg_at(wr->opcode);

        ofl_store_le32(w + QPW_DG_ADDR + at, wr->dest.addr);
        ofl_store_le32(w + QPW_DG_EE + at, wr->dest.ee);
        ofl_store_le32(w + QPW_DG_QPN + at, wr->dest.qpn);
    }
    qp_put_sges(w + OFL_QP_SQ_HDR, wr->sge, wr->num_sge);
    qp_publish(qp, &qp->sq);
    if (out != NULL) {
        if (wr->opcode == OFL_QP_OP_FAST_REG ||
            wr->opcode == OFL_QP_OP_REG_SEND)
            id = wr->stag;
        *out = id;
    }
    return OFL_OK;
}

#if OFL_FAST_PATH && defined(__OPTIMIZE__)
/* ofl_qp_post_send for a work request the common path does not take:
 * its argument checks, then the general path. */
static OFL_NOINLINE enum ofl_err qp_post_send_other(struct ofl_qp *qp,
                                                    const struct ofl_qp_wr *wr,
                                                    uint32_t *out)
{
    if (qp == NULL || wr == NULL || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    return qp_post_send_general(qp, wr, out);
}

/* The argument checks and the common path's choice in one test (an
 * argument refused is not the common case): every answer but the common
 * path's OFL_OK then comes from a tail call, so that no error code is
 * kept across the doorbell's call for a shared return (issue 30: clang
 * saved registers for it). */
enum ofl_err ofl_qp_post_send(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                              uint32_t *out)
{
    if (qp != NULL && wr != NULL && wr->num_sge <= 1 &&
        (wr->sge != NULL || wr->num_sge == 0) &&
        qp->attr.service == OFL_QP_SVC_IWARP &&
        (wr->opcode == OFL_QP_OP_SEND || wr->opcode == OFL_QP_OP_SEND_INV ||
         wr->opcode == OFL_QP_OP_WRITE))
        return qp_post_send_common(qp, wr, out);
    return qp_post_send_other(qp, wr, out);
}
#else
enum ofl_err ofl_qp_post_send(struct ofl_qp *qp, const struct ofl_qp_wr *wr,
                              uint32_t *out)
{
    if (qp == NULL || wr == NULL || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    return qp_post_send_general(qp, wr, out);
}
#endif

#if OFL_FAST_PATH && defined(__OPTIMIZE__)

/*
 * ofl_qp_post_recv for the common receive (issue 30): one data segment.
 * The general path's checks in its order and its stores, without the
 * loops, and with the work request read into locals first: the WQE's
 * stores could be the work request to the compiler, which would load its
 * fields again after them (72 -> 67 instructions a post with gcc, 78 ->
 * 64 with clang). tests/check_fastpath.sh holds it to the general path's
 * answers.
 */
static OFL_NOINLINE enum ofl_err
qp_post_recv_general(struct ofl_qp *qp, const struct ofl_qp_recv_wr *wr);

static OFL_ALWAYS_INLINE enum ofl_err
qp_post_recv_one(struct ofl_qp *qp, const struct ofl_qp_recv_wr *wr)
{
    struct ofl_qp_wq *rq = &qp->rq;
    const uint64_t wr_id = wr->wr_id, addr = wr->sge[0].addr;
    const uint32_t len = wr->sge[0].len, stag = wr->sge[0].stag;
    const uint32_t pi = rq->pi;
    uint8_t *w;

    if (!qp_state_in(qp, QP_POST_RECV_OK) || rq->max_sge < 1 ||
        len >= QP_MSG_MAX || pi - rq->cc >= rq->depth)
        return qp_post_recv_general(qp, wr);
    w = rq->ring + (pi & (rq->depth - 1u)) * rq->stride;
    ofl_store_le64(w + QPR_WRID, wr_id);
    ofl_store_le64(w + QPR_NSGE, 1);
    qp_sge_put(w + OFL_QP_RQ_HDR, addr, len, stag);
    return qp_publish_common(qp, rq, pi);
}
#endif

/* ofl_qp_post_recv past its argument checks: the general path. Its own
 * function in a speed build, which the common receive (qp_post_recv_one)
 * calls for any work request it refuses: the error named in its order. */
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
static OFL_NOINLINE enum ofl_err
#else
static OFL_ALWAYS_INLINE enum ofl_err
#endif
qp_post_recv_general(struct ofl_qp *qp, const struct ofl_qp_recv_wr *wr)
{
    uint8_t *w;
    uint64_t sum = 0;
    uint32_t i;

    if (!qp_state_in(qp, QP_POST_RECV_OK))
        return OFL_E_QP_STATE;
    if (wr->num_sge > qp->rq.max_sge)
        return OFL_E_QP_SGE;
    if (OFL_FAST_PATH && wr->num_sge == 1) /* the common receive: no loop */
        sum = wr->sge[0].len;
    else
        for (i = 0; i < wr->num_sge; i++)
            sum += wr->sge[i].len;
    if (sum >= QP_MSG_MAX)
        return OFL_E_QP_WR;
    if (qp->rq.pi - qp->rq.cc >= qp->rq.depth)
        return OFL_E_QP_RQ_FULL;
    w = qp->rq.ring + (qp->rq.pi & (qp->rq.depth - 1u)) * qp->rq.stride;
    ofl_store_le64(w + QPR_WRID, wr->wr_id);
    /* num_sge, then its 7 reserved bytes 0: one little-endian word. */
    ofl_store_le64(w + QPR_NSGE, (uint8_t)wr->num_sge);
    qp_put_sges(w + OFL_QP_RQ_HDR, wr->sge, wr->num_sge);
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
    return qp_publish_call(qp, &qp->rq); /* no call inlined here */
#else
    qp_publish(qp, &qp->rq);
    return OFL_OK;
#endif
}

#if OFL_FAST_PATH && defined(__OPTIMIZE__)
/* ofl_qp_post_recv for a work request qp_post_recv_one does not take: its
 * argument checks, then the general path. */
static OFL_NOINLINE enum ofl_err
qp_post_recv_other(struct ofl_qp *qp, const struct ofl_qp_recv_wr *wr)
{
    if (qp == NULL || wr == NULL || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    return qp_post_recv_general(qp, wr);
}

/* As ofl_qp_post_send: the argument checks and the common path's choice
 * in one test, every other answer from a tail call. */
enum ofl_err ofl_qp_post_recv(struct ofl_qp *qp,
                              const struct ofl_qp_recv_wr *wr)
{
    if (qp != NULL && wr != NULL && wr->sge != NULL && wr->num_sge == 1)
        return qp_post_recv_one(qp, wr);
    return qp_post_recv_other(qp, wr);
}
#else
enum ofl_err ofl_qp_post_recv(struct ofl_qp *qp,
                              const struct ofl_qp_recv_wr *wr)
{
    if (qp == NULL || wr == NULL || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    return qp_post_recv_general(qp, wr);
}
#endif

enum ofl_err ofl_qp_doorbell(struct ofl_qp *qp, enum ofl_qp_ring ring,
                             uint32_t value)
{
    struct ofl_qp_wq *wq;

    if (qp == NULL || (ring != OFL_QP_RING_SQ && ring != OFL_QP_RING_RQ))
        return OFL_E_ARG;
    wq = ring == OFL_QP_RING_SQ ? &qp->sq : &qp->rq;
    if (!wq->host)
        return OFL_OK;
    /* As the post calls: a doorbell of a state that takes no WQE (a late
     * one after RESET, say) would run WQEs of a previous life. */
    if (!qp_state_in(qp, ring == OFL_QP_RING_SQ ? QP_POST_SEND_OK
                                                : QP_POST_RECV_OK))
        return OFL_E_QP_STATE;
    /* A doorbell may only move forward and never past a full ring. */
    if (value - wq->cc > wq->depth || value - wq->db_pi > wq->depth ||
        ofl_sn_lt(value, wq->db_pi))
        return OFL_E_QP_DOORBELL;
    wq->db_pi = value;
    return OFL_OK;
}

uint32_t ofl_qp_sq_outstanding(const struct ofl_qp *qp)
{
    return qp != NULL ? qp->sq.pi - qp->sq.cc : 0;
}

uint32_t ofl_qp_rq_outstanding(const struct ofl_qp *qp)
{
    return qp != NULL ? qp->rq.pi - qp->rq.cc : 0;
}

/* ---- completions and flushing -------------------------------------------- */

/* Emits the completions that became due, in posting order (FIG. 4).
 * Inlined into ofl_qp_process (once per call) with the fast paths; the
 * other callers call qp_sq_complete, its one copy otherwise. */
static OFL_HOT_INLINE void qp_sq_complete_hot(struct ofl_qp *qp)
{
    struct ofl_qp_wq *sq = &qp->sq;

    while (sq->cc != sq->ci) {
        struct ofl_qp_swqe *t = &qp->sq_track[sq->cc & (sq->depth - 1u)];

        if (t->state != QP_TRACK_DONE)
            break;
        /* a success completes when signaled; a failure or flush even
         * unsignaled, unless the WQE is the port's own
         * (OFL_QP_WR_SILENT) */
        if (t->status == OFL_WC_SUCCESS ? (t->flags & OFL_QP_WR_SIGNALED) != 0
                                        : (t->flags & OFL_QP_WR_SILENT) == 0) {
            struct ofl_cqe *e = qp_cqe(qp, qp->attr.send_cq);

            if (e != NULL) {
                e->wr_id = t->wr_id;
                e->byte_len = t->len;
                e->opcode = t->opcode;
                e->status = t->status;
                if (t->opcode == OFL_QP_OP_BIND ||
                    t->opcode == OFL_QP_OP_FAST_REG ||
                    t->opcode == OFL_QP_OP_REG_SEND)
                    e->stag = t->stag;
                qp_cqe_commit_hot(qp->attr.send_cq, e);
            }
        }
        t->state = QP_TRACK_IDLE;
        sq->cc++;
    }
}

#if OFL_FAST_PATH
static OFL_NOINLINE void qp_sq_complete(struct ofl_qp *qp)
{
    qp_sq_complete_hot(qp);
}
#else
#define qp_sq_complete qp_sq_complete_hot
#endif

/* Marks tracked WQE idx done with status. */
static void qp_swqe_done(struct ofl_qp *qp, uint32_t idx, uint8_t status)
{
    struct ofl_qp_swqe *t = &qp->sq_track[idx & (qp->sq.depth - 1u)];

    t->state = QP_TRACK_DONE;
    t->status = status;
}

/* Takes the next unstarted send WQE out of the ring as flushed. */
static void qp_sq_flush_one(struct ofl_qp *qp)
{
    struct ofl_qp_swqe *t = &qp->sq_track[qp->sq.ci & (qp->sq.depth - 1u)];
    uint8_t b[QPW_TO];

    ofl_fill(t, 0, sizeof(*t));
    if (qp_wq_read(qp, &qp->sq, qp->sq.ci, 0, b, sizeof(b)) == OFL_OK) {
        t->opcode = b[QPW_OPCODE];
        t->flags = b[QPW_FLAGS]; /* OFL_QP_WR_SILENT: no flush CQE */
        t->wr_id = ofl_load_le64(b + QPW_WRID);
    }
    t->state = QP_TRACK_DONE;
    t->status = OFL_WC_WR_FLUSH_ERR;
    qp->sq.ci++;
}

/* Completes receive WQE idx (the next one) with status; the rest of the
 * CQE is the caller's. Returns the CQE or NULL (overrun). */
static OFL_HOT_INLINE struct ofl_cqe *
qp_rq_complete(struct ofl_qp *qp, uint64_t wr_id, uint8_t opcode,
               uint8_t status)
{
    struct ofl_cqe *e = qp_cqe(qp, qp->attr.recv_cq);
    const uint32_t ci = qp->rq.ci + 1u;

    /* rq.cc stored apart from rq.ci: GCC made one 8-byte store of the two
     * through an SSE shuffle (issue 30: 1 instruction a receive with gcc). */
    qp->rq.ci = ci;
    if (e != NULL) {
        e->wr_id = wr_id;
        e->opcode = opcode;
        e->status = status;
        e->byte_len = 0;
    }
    qp->rq.cc = ci;
    return e;
}

/* Flushes every receive WQE the adapter knows of (the one being filled
 * first). */
static void qp_rq_flush(struct ofl_qp *qp)
{
    while (qp->rq.ci != qp->rq.db_pi) {
        uint8_t b[8];
        uint64_t wr_id = 0;
        struct ofl_cqe *e;

        if (qp->rcur.active)
            wr_id = qp->rcur.wr_id;
        else if (qp_wq_read(qp, &qp->rq, qp->rq.ci, QPR_WRID, b, 8) == OFL_OK)
            wr_id = ofl_load_le64(b);
        qp->rcur.active = 0;
        e = qp_rq_complete(qp, wr_id, OFL_QP_OP_RECV, OFL_WC_WR_FLUSH_ERR);
        if (e != NULL)
            qp_cqe_commit(qp->attr.recv_cq, e);
    }
    qp->rcur.active = 0;
}

/* ERROR: every send WQE in flight or waiting, then every receive. */
static void qp_flush_all(struct ofl_qp *qp)
{
    uint32_t i;

    for (i = qp->sq.cc; i != qp->sq.ci; i++) {
        struct ofl_qp_swqe *t = &qp->sq_track[i & (qp->sq.depth - 1u)];

        if (t->state != QP_TRACK_DONE) {
            t->state = QP_TRACK_DONE;
            t->status = OFL_WC_WR_FLUSH_ERR;
        }
    }
    qp->cur.active = 0;
    qp->ord_count = 0;
    qp->irq_count = 0;
    ofl_fill(&qp->fault, 0, sizeof(qp->fault)); /* nothing waits any more */
    qp->dg_epoch++;
    while (qp->sq.ci != qp->sq.db_pi)
        qp_sq_flush_one(qp);
    qp_sq_complete(qp);
    qp_rq_flush(qp);
}

/* ---- transitions --------------------------------------------------------- */

#if OFL_FAST_PATH
/*
 * The data paths of an iWARP stream, chosen once when it is established
 * (offload.h, "One pass over the payload"): what the stream carries
 * (CRC, markers) and what the port and attr offer are fixed from then on
 * for the engine, so each FPDU tests one byte. QP_PATH_FUSE_TX: the
 * gather reads through dma_read_crc32c; QP_PATH_REF_TX: FPDUs go by
 * reference (attr.transmitv; the port's dma_crc32c when the stream has
 * CRCs); QP_PATH_FUSE_RX: an in-order Write is placed through
 * dma_write_crc32c, its CRC compared after; QP_PATH_WHOLE_TX: a message
 * of one FPDU may go by qp_sq_whole; QP_PATH_WHOLE_RX: a Send of one FPDU
 * may be taken by qp_rx_whole.
 */
#define QP_PATH_FUSE_TX 0x1u
#define QP_PATH_REF_TX 0x2u
#define QP_PATH_FUSE_RX 0x4u
#define QP_PATH_WHOLE_TX 0x8u
#define QP_PATH_WHOLE_RX 0x10u
#define QP_PATH_WRITE_RX 0x20u
static void qp_paths_choose(struct ofl_qp *qp)
{
    const struct ofl_port *port = qp->attr.port;
    uint8_t paths = 0;

    if (!qp->tx.markers && qp->attr.transmitv != NULL &&
        qp->attr.tx_reserve == NULL &&
        (!qp->tx.crc || OFL_PORT_HAS(port, dma_crc32c)))
        paths |= QP_PATH_REF_TX;
    if (qp->tx.crc && !qp->tx.markers &&
        OFL_PORT_HAS(port, dma_read_crc32c))
        paths |= QP_PATH_FUSE_TX;
    if (qp->rx.crc && !qp->rx.markers &&
        OFL_PORT_HAS(port, dma_write_crc32c))
        paths |= QP_PATH_FUSE_RX;
    /* qp_sq_whole: the send ring in adapter memory, the FPDU built in
     * tx_buf (no markers, no reservation). */
    if (!qp->tx.markers && qp->attr.tx_reserve == NULL && !qp->sq.host)
        paths |= QP_PATH_WHOLE_TX;
    /* qp_rx_whole: the receive ring in adapter memory. */
    if (!qp->rq.host)
        paths |= QP_PATH_WHOLE_RX;
    /* qp_rx_write_whole: FPDUs without markers inside. */
    if (!qp->rx.markers)
        paths |= QP_PATH_WRITE_RX;
    qp->paths = paths;
}
#endif

/* Applies event ev along the table and performs the entry actions. */
static enum ofl_err qp_event(struct ofl_qp *qp, enum ofl_qp_event ev)
{
    enum ofl_qp_state to = ofl_qp_state_next((enum ofl_qp_state)qp->state, ev);
    uint8_t from = qp->state;

    if (to == OFL_QP_STATES)
        return OFL_E_QP_TRANSITION;
    /* CLOSING ends in RESET only when nothing is left (table note ''). */
    if (ev == OFL_QP_EV_LLP_CLOSED && to == OFL_QP_RESET &&
        (qp->sq.db_pi != qp->sq.cc || qp->rq.db_pi != qp->rq.ci))
        to = OFL_QP_ERROR;
    qp->state = (uint8_t)to;
    switch (to) {
    case OFL_QP_ERROR:
        if (qp->established && !qp->llp_closed) {
            qp->llp_closed = 1;
            (void)qp->attr.transmit(qp->attr.transmit_ctx, NULL, 0,
                                    OFL_QP_TX_ABORT);
        }
        qp_flush_all(qp);
        qp_stream_end(qp);
        break;
    case OFL_QP_RESET:
        qp_reset_state(qp);
        break;
    case OFL_QP_SQD:
        /* Each entry into SQD (MOD_SQD, or REG_ERR under option 1) is
         * drained anew: SQ_DRAINED is raised once per entry. */
        if (from != OFL_QP_SQD)
            qp->drained_sent = 0;
        break;
    case OFL_QP_RTS:
        /* Leaving SQE: what was posted before is flushed, later WQEs run. */
        if (from == OFL_QP_SQE) {
            qp->sq.flush_all = 0;
            qp->sq.flush_to = qp->sq.db_pi;
        }
        break;
    case OFL_QP_CLOSING:
        break;
    default:
        break;
    }
    return OFL_OK;
}

enum ofl_err ofl_qp_modify(struct ofl_qp *qp, enum ofl_qp_state to)
{
    static const uint8_t ev_of[OFL_QP_STATES] = {
        OFL_QP_EV_MOD_RESET, OFL_QP_EV_MOD_INIT, OFL_QP_EV_MOD_RTR,
        OFL_QP_EV_MOD_RTS, OFL_QP_EV_MOD_SQD, OFL_QP_EVENTS,
        OFL_QP_EV_MOD_ERROR, OFL_QP_EVENTS, OFL_QP_EV_MOD_CLOSING};

    if (qp == NULL || (uint32_t)to >= OFL_QP_STATES)
        return OFL_E_ARG;
    if (ev_of[to] == OFL_QP_EVENTS)
        return OFL_E_QP_TRANSITION; /* SQE and TERMINATE are not asked for */
    /* RTR -> RTS by MOD_RTS is for a service without a stream; CLOSING
     * closes a stream. */
    if (to == OFL_QP_RTS && qp->state == OFL_QP_RTR && !qp_is_dg(qp))
        return OFL_E_QP_STATE;
    if (to == OFL_QP_CLOSING && qp_is_dg(qp))
        return OFL_E_QP_STATE;
    return qp_event(qp, (enum ofl_qp_event)ev_of[to]);
}

enum ofl_err ofl_qp_llp_event(struct ofl_qp *qp, bool lost)
{
    enum ofl_err err;

    if (qp == NULL)
        return OFL_E_ARG;
    if (qp_is_dg(qp))
        return OFL_E_QP_SERVICE;
    qp->llp_closed = 1;
    err = qp_event(qp, lost ? OFL_QP_EV_LLP_LOST : OFL_QP_EV_LLP_CLOSED);
    if (err == OFL_OK)
        qp_raise(qp, OFL_QP_EVT_CLOSED);
    return err;
}

enum ofl_err ofl_qp_establish(struct ofl_qp *qp, const struct ofl_mpa_params *p,
                              uint32_t emss, uint32_t rx_sn, uint32_t rcv_wnd)
{
    struct ofl_mpa_params none;
    enum ofl_err err;

    if (qp == NULL || rcv_wnd == 0 || rcv_wnd > OFL_SEQ_WND_MAX ||
        (p == NULL && qp->attr.service == OFL_QP_SVC_IWARP))
        return OFL_E_ARG;
    /* The peer's ORD is bounded by the IRD we advertised: more than the
     * QP's inbound slots would terminate a peer that keeps to it. */
    if (qp->attr.service == OFL_QP_SVC_IWARP && p->enhanced &&
        p->ird > qp->attr.ird)
        return OFL_E_ARG;
    if (qp_is_dg(qp))
        return OFL_E_QP_SERVICE;
    if (ofl_qp_state_next((enum ofl_qp_state)qp->state,
                          OFL_QP_EV_ESTABLISH) == OFL_QP_STATES)
        return OFL_E_QP_TRANSITION;
    if (qp->attr.service == OFL_QP_SVC_ISCSI) {
        ofl_fill(&none, 0, sizeof(none));
        p = &none;
    } else {
        err = ofl_mpa_tx_init(&qp->tx, p, emss, qp->attr.port);
        if (err != OFL_OK)
            return err;
        if (qp->tx.mulpdu < OFL_RDMAP_HDR_MAX)
            return OFL_E_ARG; /* every control message fits one FPDU */
        if (qp->tx_cap < ofl_qp_tx_need(qp->tx.mulpdu, p->markers_tx) ||
            (p->markers_tx && qp->tx_stage == NULL))
            return OFL_E_SIZE;
        err = ofl_mpa_rx_init(&qp->rx, p, qp->rx_buf, qp->rx_cap,
                              qp->attr.port);
        if (err != OFL_OK)
            return err;
#if OFL_FAST_PATH
        qp_paths_choose(qp);
#endif
    }
    err = ofl_seq_init(&qp->seq, rx_sn, rcv_wnd, qp->ot_pending, qp->ot_cap);
    if (err != OFL_OK)
        return err;
    ofl_copy(&qp->mpa, p, sizeof(qp->mpa));
    qp->rx_base = rx_sn;
    qp->ord = qp->attr.ord;
    if (p->enhanced && p->ord < qp->ord)
        qp->ord = p->ord == 0 ? 1u : p->ord;
    qp->established = 1;
    return qp_event(qp, OFL_QP_EV_ESTABLISH);
}

/* ---- moving bytes through the TPT ---------------------------------------- */

/*
 * How a payload DMA goes (the how argument of the DMA helpers below):
 * QP_DMA_WRITE a DMA write, else a read; QP_DMA_CHECKED see qp_dma_sge;
 * QP_DMA_SUM the bytes are an FPDU's payload summed as they move ("One
 * pass over the payload", a speed build only): a read goes through the
 * fused hook into qp->tx_crc (qp->tx_fuse) or becomes a piece of the
 * gather list (qp->tx_ref, transmit by reference), a write goes through
 * the fused hook into qp->rx_crc. The send side sums prefix and header
 * first (qp_tx_fuse_open, qp_tx_ref_open); the receive side defers the
 * CRC of an in-order RDMA Write (qp_rx_fusable) and sums prefix and
 * header at delivery. Every other DMA is plain. QP_DMA_PAGE: the access
 * is qp_one_page's (n not 0, within one page of a page-aligned address),
 * so pa + n cannot wrap 2^64 and ofl_dma_range_ok is not asked again.
 */
#define QP_DMA_WRITE 0x1u
#define QP_DMA_CHECKED 0x2u
#define QP_DMA_SUM 0x4u
#define QP_DMA_PAGE 0x8u

#if OFL_FAST_PATH
/*
 * Transmit by reference (offload.h: ofl_qp_transmitv_fn): the gather's
 * "read" of n payload bytes at pa, checked as a DMA read would be, is
 * recorded as the next piece of attr.txref and summed through the port's
 * dma_crc32c (when the stream carries CRCs), not copied. A piece that
 * does not fit (the last entry is the trailer's) marks the FPDU for the
 * copy path (tx_ref 2) and stops the gather.
 */
static OFL_NOINLINE enum ofl_err qp_txref_add(struct ofl_qp *qp, uint64_t pa,
                                              uint32_t n)
{
    const struct ofl_port *port = qp->attr.port;
    struct ofl_qp_txref *r;

    if (!ofl_dma_range_ok(pa, n))
        return OFL_E_DMA_RANGE;
    if (n == 0)
        return OFL_OK;
    if (qp->txref_count >= qp->attr.txref_cap - 1u) {
        qp->tx_ref = 2;
        return OFL_E_SIZE;
    }
    if (qp->tx.crc &&
        port->dma_crc32c(port->ctx, pa, n, &qp->tx_crc) != 0)
        return OFL_E_PORT_DMA;
    r = &qp->attr.txref[qp->txref_count++];
    r->data = NULL;
    r->pa = pa;
    r->len = n;
    return OFL_OK;
}
#endif

static OFL_HOT_INLINE enum ofl_err qp_port_read(struct ofl_qp *qp, uint64_t pa,
                                                uint8_t *dst, uint32_t n,
                                                uint32_t how)
{
#if OFL_FAST_PATH
    if (how & QP_DMA_SUM)
        return qp->tx_fuse ? port_dma_read_crc(qp->attr.port, pa, dst, n,
                                               &qp->tx_crc)
                           : qp_txref_add(qp, pa, n);
    /* The hook as ofl_qp_create found it (port_hooks). */
    if (how & QP_DMA_PAGE)
        return port_dma_read_in(qp->attr.port,
                                (qp->hooks & PORT_HOOK_DMA_READ) != 0, pa,
                                dst, n);
    return port_dma_read_has(qp->attr.port,
                             (qp->hooks & PORT_HOOK_DMA_READ) != 0, pa, dst,
                             n);
#else
    (void)how;
    return port_dma_read(qp->attr.port, pa, dst, n);
#endif
}

static OFL_HOT_INLINE enum ofl_err qp_port_write(struct ofl_qp *qp,
                                                 uint64_t pa,
                                                 const uint8_t *src,
                                                 uint32_t n, uint32_t how)
{
#if OFL_FAST_PATH
    if (how & QP_DMA_SUM)
        return port_dma_write_crc(qp->attr.port, pa, src, n, &qp->rx_crc);
    if (how & QP_DMA_PAGE)
        return port_dma_write_in(qp->attr.port,
                                 (qp->hooks & PORT_HOOK_DMA_WRITE) != 0, pa,
                                 src, n);
    return port_dma_write_has(qp->attr.port,
                              (qp->hooks & PORT_HOOK_DMA_WRITE) != 0, pa, src,
                              n);
#else
    (void)how;
    return port_dma_write(qp->attr.port, pa, src, n);
#endif
}

#if OFL_FAST_PATH
/*
 * Is the CRC of the FPDU whose comparison was deferred (qp->rx_defer)
 * right? Summed over the whole FPDU, as mpa_rx_fast would have summed it
 * before the FPDU was handled. Right, or nothing deferred: nothing is
 * deferred any more, true. Wrong: still deferred, false (qp_fatal then
 * reports the CRC error, as the stream would have first).
 */
static OFL_NOINLINE bool qp_rx_defer_ok(struct ofl_qp *qp)
{
    const uint8_t *w = qp->rx_defer;
    const uint32_t covered = qp->rx_defer_len - OFL_MPA_CRC_LEN;

    if (w == NULL)
        return true;
    if (!mpa_crc_ok(port_crc_call(qp->rx.port, OFL_CRC32C_INIT, w, covered),
                    w + covered))
        return false;
    qp->rx_defer = NULL;
    return true;
}

/*
 * The deferred FPDU's payload was placed, every byte through the fused
 * hook in order, up to end: the register taken over the pad and compared
 * with the CRC field. Right: nothing deferred, true. Otherwise compared
 * again whole (qp_rx_defer_ok), so that the verdict never rests on the
 * register alone.
 */
static OFL_HOT_INLINE bool qp_rx_defer_close(struct ofl_qp *qp,
                                             const uint8_t *end)
{
    const uint8_t *field =
        qp->rx_defer + qp->rx_defer_len - OFL_MPA_CRC_LEN;

    if (mpa_crc_ok(port_crc_call(qp->rx.port, qp->rx_crc, end,
                                 (size_t)(field - end)),
                   field)) {
        qp->rx_defer = NULL;
        return true;
    }
    return qp_rx_defer_ok(qp);
}
#else
#define qp_rx_defer_ok(qp) ((void)(qp), true)
#endif

/*
 * Moves the pieces of one translation (sgl->bytes in all) between buf and
 * host memory through the port, as how says (QP_DMA_WRITE, QP_DMA_SUM).
 * The one loop every TPT-guided copy runs.
 */
static OFL_ALWAYS_INLINE enum ofl_err
qp_dma_pieces(struct ofl_qp *qp, const struct ofl_tpt_sgl *sgl, uint8_t *buf,
              uint32_t how)
{
    uint32_t i, done = 0;
    enum ofl_err err;

    for (i = 0; i < sgl->count; i++) {
        err = (how & QP_DMA_WRITE)
                  ? qp_port_write(qp, sgl->piece[i].pa, buf + done,
                                  sgl->piece[i].len, how)
                  : qp_port_read(qp, sgl->piece[i].pa, buf + done,
                                 sgl->piece[i].len, how);
        if (err != OFL_OK)
            return err;
        done += sgl->piece[i].len;
    }
    return OFL_OK;
}

/*
 * Copies between buf and [to, to + n) of stag (already checked) through
 * the translation and the port, as how says (QP_DMA_WRITE, QP_DMA_SUM).
 * Each round translates up to OFL_QP_PIECES pieces and covers at least one
 * byte, so the loop is bounded by n.
 */
static enum ofl_err qp_dma_tpt(struct ofl_qp *qp, uint32_t stag, uint64_t to,
                               uint8_t *buf, uint32_t n, uint32_t how)
{
    struct ofl_tpt_sgl sgl;
    uint32_t done = 0;
    enum ofl_err err;

    sgl.piece = qp->piece;
    sgl.cap = OFL_QP_PIECES;
    while (done < n) {
        err = ofl_tpt_translate(qp->attr.tpt, stag, to + done, n - done, &sgl);
        if (err != OFL_OK && err != OFL_E_TPT_SGL_FULL)
            return err;
        if (sgl.bytes == 0)
            return OFL_E_TPT_SGL_FULL;
        err = qp_dma_pieces(qp, &sgl, buf + done, how);
        if (err != OFL_OK)
            return err;
        done += (uint32_t)sgl.bytes;
    }
    return OFL_OK;
}

/*
 * The rest of a checked access of n bytes at to through stag, past the
 * done bytes a translation cut at OFL_QP_PIECES already holds, translates
 * (every page present and well formed): so that a segment of more pieces
 * than one step holds fails before any byte of it is placed or read, with
 * the error its first pieces would give. Each round covers at least one
 * piece, so the loop is bounded by n.
 */
static OFL_NOINLINE enum ofl_err qp_tpt_rest_ok(const struct ofl_qp *qp,
                                                uint32_t stag, uint64_t to,
                                                uint64_t n, uint64_t done)
{
    struct ofl_tpt_piece piece[4];
    struct ofl_tpt_sgl sgl;
    enum ofl_err err = OFL_E_TPT_SGL_FULL;

    sgl.piece = piece;
    sgl.cap = 4;
    while (err == OFL_E_TPT_SGL_FULL && done < n) {
        err = ofl_tpt_translate(qp->attr.tpt, stag, to + done, n - done,
                                &sgl);
        done += sgl.bytes;
    }
    return err == OFL_E_TPT_SGL_FULL ? OFL_OK : err;
}

/* The checked translation of a segment, SGL_FULL when cut at
 * OFL_QP_PIECES and the rest translates too, else its first error. */
static OFL_HOT_INLINE enum ofl_err
qp_check_translate_all(struct ofl_qp *qp, const struct ofl_tpt_remote *a,
                       struct ofl_tpt_sgl *sgl)
{
    enum ofl_err err;

    sgl->piece = qp->piece;
    sgl->cap = OFL_QP_PIECES;
#if OFL_FAST_PATH
    {
        /* ofl_tpt_check_translate_access's body (a is not NULL), inlined:
         * every tagged segment comes here. */
        const struct ofl_tpt *tpt = qp->attr.tpt;
        const struct ofl_tpt_entry *r;
        uint64_t off = 0;

        r = tpt_remote_fast(tpt, a->stag, a->pd, a->qp, a->to, a->len,
                            a->need, sgl, &off);
        err = r != NULL
                  ? tpt_translate_direct(tpt, r, off, a->to, a->len, sgl)
                  : tpt_check_translate_precise(tpt, a, sgl);
    }
#else
    err = ofl_tpt_check_translate_access(qp->attr.tpt, a, sgl);
#endif
    if (err == OFL_E_TPT_SGL_FULL) {
        enum ofl_err rest = qp_tpt_rest_ok(qp, a->stag, a->to, a->len,
                                           sgl->bytes);

        if (rest != OFL_OK)
            err = rest;
    }
    return err;
}

/*
 * qp_dma_tpt for a WQE data segment (a local region checked when its WQE
 * was fetched): each round checks the segment again (FIG. 15 a-g, need
 * OFL_TPT_LOCAL_WRITE when write, else OFL_TPT_LOCAL_READ) and translates
 * it in the same lookup. Bounded by n like qp_dma_tpt. how: QP_DMA_WRITE
 * for a write, else a read; QP_DMA_CHECKED when the caller ran
 * ofl_tpt_check_local on the whole segment (same STag, PD and need) in this
 * call with nothing since that can change the TPT (no port hook, no
 * transmission): the first round then only translates
 * (tpt_translate_local_checked: the same result), the later ones, behind a
 * DMA, check again. (One flags argument: six in all, none on the stack.)
 */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err
qp_dma_sge_general(struct ofl_qp *qp, uint32_t stag, uint64_t va, uint8_t *buf,
                   uint32_t n, uint32_t how)
#else
static enum ofl_err qp_dma_sge(struct ofl_qp *qp, uint32_t stag, uint64_t va,
                               uint8_t *buf, uint32_t n, uint32_t how)
#endif
{
    const bool write = (how & QP_DMA_WRITE) != 0;
    bool checked = (how & QP_DMA_CHECKED) != 0;
    struct ofl_tpt_sgl sgl;
    struct ofl_tpt_local a;
    uint32_t done = 0;
    enum ofl_err err;

    sgl.piece = qp->piece;
    sgl.cap = OFL_QP_PIECES;
    a.stag = stag;
    a.pd = qp->attr.pd;
    a.need = write ? OFL_TPT_LOCAL_WRITE : OFL_TPT_LOCAL_READ;
    while (done < n) {
        a.va = va + done;
        a.len = n - done;
        err = checked ? tpt_translate_local_checked(qp->attr.tpt, &a, &sgl)
                      : ofl_tpt_check_translate_local(qp->attr.tpt, &a, &sgl);
        checked = false;
        if (err != OFL_OK && err != OFL_E_TPT_SGL_FULL)
            return err;
        if (sgl.bytes == 0)
            return OFL_E_TPT_SGL_FULL;
        err = qp_dma_pieces(qp, &sgl, buf + done, how);
        if (err != OFL_OK)
            return err;
        done += (uint32_t)sgl.bytes;
    }
    return OFL_OK;
}

#if OFL_FAST_PATH
/*
 * The conjunction of everything tpt_check_local requires to grant a local
 * access (FIG. 15 a-g) of len bytes at va by stag in pd, with need one
 * local right (OFL_TPT_LOCAL_READ or OFL_TPT_LOCAL_WRITE: never empty,
 * never a remote bit or BIND_WINDOW), for e, the entry of stag's index (in
 * the table, not 0): Valid, its key, a region, the PD, the rights,
 * tpt_range's bounds and no wrap. *off_out: va's offset in the region
 * (for the translation). The fast paths' one test (qp_dma_sge keeps its
 * own form of it: through this one clang's sender costs 16 instructions
 * more an FPDU); any miss goes to the general path, which names the error
 * in its order.
 */
static OFL_ALWAYS_INLINE bool qp_local_grants(const struct ofl_tpt_entry *e,
                                              uint32_t stag, uint32_t pd,
                                              uint64_t va, uint64_t len,
                                              uint8_t need, uint64_t *off_out)
{
    const uint64_t base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
    const uint64_t off = va - base;

    *off_out = off;
    return e->state == OFL_TPT_VALID && e->key == ofl_stag_key(stag) &&
           e->type == OFL_TPT_REGION && e->pd == pd &&
           (e->access & need) == need && va >= base && off <= e->len &&
           len <= e->len - off &&
           (len == 0 || va <= OFL_U64_MAX - (len - 1));
}

/*
 * The one-page case of a direct ATT's translation (tpt_translate_pages'
 * first): n bytes (at most a page) at page position pos (region offset
 * plus first-page offset) of the page words att (pages of 1 << shift
 * bytes) lie in one page whose word is present, without reserved bits:
 * *pa their physical address. Else false, and the general path decides
 * (it names a missing or malformed page). The fast paths' one form of it.
 */
static OFL_ALWAYS_INLINE bool qp_one_page(const uint64_t *att, uint32_t shift,
                                          uint64_t pos, uint64_t n,
                                          uint64_t *pa)
{
    const uint64_t pmask = ((uint64_t)1 << shift) - 1, in = pos & pmask;
    uint64_t w;

#ifdef __clang_analyzer__
    /* A direct region that holds a byte has page words (its registration
     * checked att_base + att_count against the table's att_capacity, 0
     * when att is NULL); the analyzer cannot see that. */
    if (att == NULL)
        return false;
#endif
    if (n > pmask + 1 - in)
        return false;
    /* page word - PRESENT: the page's address when the word is usable
     * (present, reserved bits clear, aligned), as in
     * ofl_tpt_check_translate's straight line */
    w = att[pos >> shift] - OFL_TPT_ATT_PRESENT;
    if ((w & pmask) != 0)
        return false;
    *pa = w + in;
    return true;
}
#endif

/*
 * qp_dma_sge: qp_dma_sge_general, with a straight line in front for the
 * common access that lies in one present page of a direct ATT: the one
 * round the general path runs for it (tpt_translate_local_checked when
 * QP_DMA_CHECKED, else ofl_tpt_check_translate_local's fast conjunction of
 * FIG. 15 a-g; then tpt_translate_direct's one-page case and qp_dma_pieces
 * with one piece) done in place, with the same port call; qp->piece, the
 * general path's scratch for the translation, is not written (nothing
 * reads it after the call that fills it). Anything else, every refusal included, goes the general
 * way, which decides it from the start. Without OFL_FAST_PATH (a size
 * build) the general path is qp_dma_sge itself; tests/check_fastpath.sh
 * holds the two builds to the same results.
 */
#if OFL_FAST_PATH
static OFL_HOT_INLINE enum ofl_err qp_dma_sge(struct ofl_qp *qp, uint32_t stag,
                                              uint64_t va, uint8_t *buf,
                                              uint32_t n, uint32_t how)
{
    const struct ofl_tpt *tpt = qp->attr.tpt;
    uint32_t index = ofl_stag_index(stag);

    if (n != 0 && tpt != NULL && index - 1u < tpt->capacity - 1u) {
        const struct ofl_tpt_entry *e = &tpt->entry[index];
        const uint64_t base = (e->flags & OFL_TPT_F_ZERO_BASED) ? 0 : e->va;
        const uint64_t off = va - base;
        const uint8_t need = (how & QP_DMA_WRITE) ? OFL_TPT_LOCAL_WRITE
                                                  : OFL_TPT_LOCAL_READ;
        uint64_t pa;

        /* Not checked in this call: the conjunction of FIG. 15 a-g of
         * ofl_tpt_check_translate_local's fast path, for this need (one
         * right, so need != 0 and inside TPT_LOCAL_NEEDS) and n != 0. */
        if (!(how & QP_DMA_CHECKED) &&
            (e->key != ofl_stag_key(stag) || e->state != OFL_TPT_VALID ||
             e->type != OFL_TPT_REGION || e->pd != qp->attr.pd ||
             (e->access & need) != need || va < base || off > e->len ||
             n > e->len - off || va > OFL_U64_MAX - (n - 1u)))
            return qp_dma_sge_general(qp, stag, va, buf, n, how);
        if (e->att_kind == OFL_TPT_ATT_DIRECT &&
            qp_one_page(tpt->att + e->att_base, e->page_shift, off + e->fpo,
                        n, &pa)) {
            return (how & QP_DMA_WRITE)
                       ? qp_port_write(qp, pa, buf, n, how | QP_DMA_PAGE)
                       : qp_port_read(qp, pa, buf, n, how | QP_DMA_PAGE);
        }
    }
    return qp_dma_sge_general(qp, stag, va, buf, n, how);
}
#endif

/*
 * Scatters n bytes of src over the data segments of the current receive
 * WQE (qp->rcur) starting at message offset off. The segments were checked
 * when the WQE was fetched (FIG. 15). checked: fetched, and checked for
 * local write, in this call with nothing since that can change the TPT
 * (qp_dma_sge): the first DMA only translates.
 */
static enum ofl_err qp_scatter(struct ofl_qp *qp, uint32_t off,
                               const uint8_t *src, uint32_t n, bool checked)
{
    const struct ofl_qp_sge *sge = qp->rq_sge;
    const uint32_t num = qp->rcur.num_sge;
    uint32_t i;
    enum ofl_err err;

    for (i = 0; i < num && n != 0; i++) {
        uint32_t k;

        if (off >= sge[i].len) {
            off -= sge[i].len;
            continue;
        }
        k = qp_min32(n, sge[i].len - off);
        err = qp_dma_sge(qp, sge[i].stag, sge[i].addr + off, (uint8_t *)src,
                         k, QP_DMA_WRITE | (checked ? QP_DMA_CHECKED : 0u));
        if (err != OFL_OK)
            return err;
        checked = false; /* behind a DMA: check again */
        src += k;
        n -= k;
        off = 0;
    }
    return OFL_OK; /* the callers checked that n bytes fit */
}

/* Gathers n bytes of the current send WQE from its data segments, from
 * the cursor (*si, *so) on, into dst. checked: qp_sges_check passed for
 * local read in this call with nothing since that can change the TPT
 * (qp_dma_sge): the first DMA only translates. */
static OFL_HOT_INLINE enum ofl_err qp_gather_hot(struct ofl_qp *qp,
                                                 uint8_t *dst, uint32_t n,
                                                 uint32_t *si, uint32_t *so,
                                                 uint32_t how)
{
    enum ofl_err err;

    /* n never exceeds what the segments hold: the message total is
     * their sum. */
    while (n != 0 && *si < qp->cur.num_sge) {
        const struct ofl_qp_sge *s;
        uint32_t k;

        s = &qp->sq_sge[*si];
        if (*so >= s->len) {
            (*si)++;
            *so = 0;
            continue;
        }
        k = qp_min32(n, s->len - *so);
        err = qp_dma_sge(qp, s->stag, s->addr + *so, dst, k, how);
        if (err != OFL_OK)
            return err;
        how &= ~QP_DMA_CHECKED; /* behind a DMA: check again */
        dst += k;
        n -= k;
        *so += k;
    }
    return OFL_OK;
}

/* qp_gather_hot is inlined into the segmenter (qp_msg_segment: every FPDU
 * of a message); the other callers (datagrams, iSCSI) share one copy, so
 * that their frames stay as they were. A size build has the one function. */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err qp_gather(struct ofl_qp *qp, uint8_t *dst,
                                           uint32_t n, uint32_t *si,
                                           uint32_t *so, uint32_t how)
{
    return qp_gather_hot(qp, dst, n, si, so, how);
}
#else
#define qp_gather qp_gather_hot
#endif

#if OFL_FAST_PATH
/*
 * tpt_check_local for one local right (need: OFL_TPT_LOCAL_READ or
 * OFL_TPT_LOCAL_WRITE), the WQE data segment checks of both queues, with
 * a straight line in front: an entry in the table that qp_local_grants
 * passes answers OFL_OK; any miss asks tpt_check_local, which names the
 * error in its order.
 */
static OFL_ALWAYS_INLINE enum ofl_err
qp_check_local(const struct ofl_tpt *tpt, uint32_t stag, uint32_t pd,
               uint64_t va, uint64_t len, uint8_t need)
{
    const uint32_t index = ofl_stag_index(stag);
    uint64_t off; /* not needed here */

    if (tpt != NULL && index != 0 && index < tpt->capacity &&
        qp_local_grants(&tpt->entry[index], stag, pd, va, len, need, &off))
        return OFL_OK;
    return tpt_check_local(tpt, stag, pd, va, len, need);
}

/*
 * A data segment's check kept (qp_check_local_keep): the generation of
 * the region that granted it; when its ATT is direct, its page words,
 * their page size and the page position of the segment's first byte (its
 * region offset plus the first-page offset), else att NULL (pos and shift
 * then unset: read only behind att).
 */
struct qp_kept {
    const uint64_t *att;
    uint64_t pos;
    uint32_t shift;
    uint32_t gen;
};

/* *k for no translation kept: set whole, so that no path leaves a field
 * unset (Cortex-M4 gcc -O1 cannot see that pos and shift are read only
 * behind att). */
static OFL_ALWAYS_INLINE void qp_kept_none(struct qp_kept *k)
{
    k->att = NULL;
    k->pos = 0;
    k->shift = 0;
}

/*
 * qp_check_local for the data segment s (len not 0), with its
 * translation kept (issue 30: "check each SGE against the TPT once and
 * keep its translation until the DMA"): the same answer from the same
 * conjunction, and when it grants, *k (att NULL when the region's ATT is
 * not direct or tpt_check_local granted it). A byte range of the
 * segment may then be translated from k (qp_one_page) while nothing that
 * can change the TPT ran since (qp_dma_sge's QP_DMA_CHECKED rule) or the
 * region's generation is still k->gen (qp_sq_whole_kept).
 */
static OFL_ALWAYS_INLINE enum ofl_err
qp_check_local_keep(const struct ofl_qp *qp, const struct ofl_qp_sge *s,
                    uint8_t need, struct qp_kept *k)
{
    const struct ofl_tpt *tpt = qp->attr.tpt;
    const uint32_t index = ofl_stag_index(s->stag);
    const uint64_t va = s->addr, len = s->len;
    uint64_t off;
    enum ofl_err err;

    if (tpt != NULL && index != 0 && index < tpt->capacity &&
        qp_local_grants(&tpt->entry[index], s->stag, qp->attr.pd, va, len,
                        need, &off)) {
        const struct ofl_tpt_entry *e = &tpt->entry[index];

        k->gen = e->gen;
        k->att = e->att_kind == OFL_TPT_ATT_DIRECT ? tpt->att + e->att_base
                                                   : NULL;
        k->pos = off + e->fpo;
        k->shift = e->page_shift;
        return OFL_OK;
    }
    err = tpt_check_local(tpt, s->stag, qp->attr.pd, va, len, need);
    /* granted: a region of the table (FIG. 15 b) */
    k->gen = err == OFL_OK && tpt != NULL ? tpt->entry[index].gen : 0;
    qp_kept_none(k);
    return err;
}
#else
#define qp_check_local tpt_check_local
#endif

/* FIG. 15 a-f for every data segment of the current send WQE that holds
 * bytes. A zero-length segment names no memory and its STag is not looked
 * at (as in verbs: Linux siw checks no key of a zero-length SGE, and rxe
 * reads none): gather and scatter pass over it. */
static OFL_HOT_INLINE enum ofl_err qp_sges_check_hot(struct ofl_qp *qp,
                                                     uint8_t need)
{
    uint32_t i;
    enum ofl_err err;

    for (i = 0; i < qp->cur.num_sge; i++) {
        const struct ofl_qp_sge *s = &qp->sq_sge[i];

        if (s->len == 0)
            continue; /* verbs: no key is checked for a zero-length SGE */
        err = qp_check_local(qp->attr.tpt, s->stag, qp->attr.pd, s->addr,
                              s->len, need);
        if (err != OFL_OK)
            return err;
    }
    return OFL_OK;
}

/* Inlined into qp_run_message (every Send and Write) with the fast
 * paths; the other callers call qp_sges_check, its one copy otherwise. */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err qp_sges_check(struct ofl_qp *qp,
                                               uint8_t need)
{
    return qp_sges_check_hot(qp, need);
}
#else
#define qp_sges_check qp_sges_check_hot
#endif

/* ---- transmitting -------------------------------------------------------- */

/*
 * Where the next stream frame is built: a reservation of the port's
 * (ofl_qp_tx_reserve_fn) when it lends one, else the QP's own tx_buf.
 * Called before any byte of the frame is written; no room is a refused
 * transmit, before anything moved.
 */
static enum ofl_err qp_tx_open(struct ofl_qp *qp)
{
    uint8_t *b;

    if (qp->attr.tx_reserve == NULL)
        return OFL_OK;
    b = qp->attr.tx_reserve(qp->attr.transmit_ctx, qp->tx_cap);
    if (b == NULL) {
        qp->tx_buf = qp->tx_own;
        qp->stats.tx_blocked++;
        return OFL_E_QP_TX_BLOCKED;
    }
    qp->tx_buf = b;
    return OFL_OK;
}

/* The transmission of a frame built in the QP's own tx_buf, and its
 * count (qp_xmit without the end of a reservation). */
static OFL_ALWAYS_INLINE enum ofl_err qp_xmit_own(struct ofl_qp *qp,
                                                  const uint8_t *p, uint32_t n,
                                                  uint32_t flags)
{
    int r = qp->attr.transmit(qp->attr.transmit_ctx, p, n, flags);

    if (r != 0) {
        qp->stats.tx_blocked++;
        return OFL_E_QP_TX_BLOCKED;
    }
    qp->stats.tx_fpdus++;
    qp->stats.tx_bytes += n;
    return OFL_OK;
}

static enum ofl_err qp_xmit(struct ofl_qp *qp, const uint8_t *p, uint32_t n,
                            uint32_t flags)
{
    enum ofl_err err = qp_xmit_own(qp, p, n, flags);

    qp->tx_buf = qp->tx_own; /* a reservation lasts one frame */
    return err;
}

/* Where qp_hdr_build puts a header: in place behind the MPA prefix when
 * the FPDU is built in place (no markers), else qp->hdr. In place saves a
 * copy per FPDU, and the copy's word loads of the header's just-stored
 * bytes (which stores cannot forward). The buffer holds any header:
 * ofl_qp_establish requires MULPDU >= OFL_RDMAP_HDR_MAX (= sizeof qp->hdr)
 * and tx_cap >= ofl_qp_tx_need(MULPDU), which exceeds the MPA length field
 * plus MULPDU. */
static uint8_t *qp_hdr_at(struct ofl_qp *qp)
{
    return qp->tx.markers ? qp->hdr : qp->tx_buf + OFL_MPA_HDR_LEN;
}

/* Where the payload of the next FPDU goes: in place behind the header
 * when no markers are sent, else the staging buffer. */
static uint8_t *qp_payload_at(struct ofl_qp *qp, uint32_t hl)
{
    return qp->tx.markers ? qp->tx_stage : qp->tx_buf + OFL_MPA_HDR_LEN + hl;
}

/*
 * Frames the ULPDU header[0 .. hl) (from qp_hdr_build, at qp_hdr_at) +
 * payload[0 .. n) (payload from qp_payload_at) as one FPDU and transmits
 * it. Without markers the FPDU is built in place (one DMA copy of the
 * payload, one CRC pass); with markers
 * ofl_mpa_fpdu_buildv copies it in. A refused transmission leaves the
 * stream position where it was. flags: the transmit flags
 * (enum ofl_qp_tx_flag), and in a speed build without markers
 * QP_FPDU_FUSED (the gather summed prefix, header and payload into
 * qp->tx_crc already, qp_tx_fuse_open: only the pad is left to sum) and
 * QP_FPDU_FITS (the caller decided hl + n <= MULPDU: the whole paths,
 * qp_sq_whole_hl; the in-place framing does not test it again).
 */
#define QP_FPDU_FUSED 0x100u
#define QP_FPDU_FITS 0x200u
#define QP_TX_FLAGS 0xFFu /* what goes on to transmit */

/* qp_fpdu_send's ULPDU for the framing calls, all but the header's
 * address: hl header bytes, then n payload bytes at payload (none: NULL). */
static OFL_ALWAYS_INLINE void qp_fpdu_ulpdu(struct ofl_mpa_ulpdu *u,
                                           uint32_t hl,
                                           const uint8_t *payload, uint32_t n)
{
    u->hdr_len = hl;
    u->payload = n != 0 ? payload : NULL;
    u->payload_len = n;
}

#if OFL_FAST_PATH
/*
 * ofl_mpa_fpdu_framev's result for an FPDU of a ULPDU of ulpdu bytes
 * (at most MULPDU: the caller checked) built in place in b (the header and
 * payload right behind the prefix, tx without markers, every pointer
 * set): the same bytes; the stream position moved on. Returns the FPDU's
 * length. The pad is cleared in place first, so that one CRC call covers
 * prefix, header, payload and pad, the stretch framev sums in one call
 * and then the pad in a second (the same register). flags: QP_FPDU_FUSED
 * as qp_fpdu_send's. The CRC word is stored in the branch that knows it,
 * and end is counted in size_t, so that the compiler sees it is not 0
 * (port_crc_call's test goes) (issue 30: 4 instructions an FPDU).
 */
static OFL_ALWAYS_INLINE size_t qp_fpdu_inplace(struct ofl_qp *qp,
                                                uint8_t *b, uint32_t ulpdu,
                                                uint32_t flags)
{
    const uint32_t pad = (0u - (OFL_MPA_HDR_LEN + ulpdu)) & 3u;
    const size_t end = (size_t)ulpdu + OFL_MPA_HDR_LEN + pad; /* the CRC */
    uint8_t *t = b + OFL_MPA_HDR_LEN + ulpdu;

    ofl_store_be16(b, (uint16_t)ulpdu);
    ofl_store_le32(t, 0);
    /* (before the CRC call: fewer values live across it) */
    qp->tx.pos += mpa_content_len(ulpdu);
    /* Fused (qp_tx_fuse_open, only on a stream with CRCs): prefix, header
     * and payload are in tx_crc already; the pad is left. */
    if (flags & QP_FPDU_FUSED)
        ofl_store_le32(b + end,
                       ofl_crc32c_final(port_crc_call(qp->tx.port,
                                                      qp->tx_crc, t, pad)));
    else if (qp->tx.crc)
        ofl_store_le32(b + end,
                       ofl_crc32c_final(port_crc_call(
                           qp->tx.port, OFL_CRC32C_INIT, b, end)));
    else
        ofl_store_le32(b + end, 0u);
    return end + OFL_MPA_CRC_LEN;
}
#endif

static OFL_HOT_INLINE enum ofl_err qp_fpdu_send(struct ofl_qp *qp,
                                                uint32_t hl,
                                                const uint8_t *payload,
                                                uint32_t n, uint32_t flags)
{
    struct ofl_mpa_ulpdu u;
    uint32_t pos = qp->tx.pos;
    size_t len;
    enum ofl_err err;

#if OFL_FAST_PATH
    if (!qp->tx.markers) {
        /* the same length check as framev's */
        if (!(flags & QP_FPDU_FITS) &&
            (hl > qp->tx.mulpdu || n > (uint32_t)qp->tx.mulpdu - hl))
            return OFL_E_MPA_TOO_LONG;
        len = qp_fpdu_inplace(qp, qp->tx_buf, hl + n, flags);
    } else
#else
    qp_fpdu_ulpdu(&u, hl, payload, n);
    if (!qp->tx.markers) {
        uint8_t *b = qp->tx_buf, trailer[7];
        size_t tl;

        u.hdr = b + OFL_MPA_HDR_LEN; /* built there (qp_hdr_at) */
        err = ofl_mpa_fpdu_framev(&qp->tx, &u, b, trailer, &tl);
        if (err != OFL_OK)
            return err;
        /* tl is pad + CRC, 4 to 7 bytes: two overlapping words. */
        ofl_store_le32(b + OFL_MPA_HDR_LEN + hl + n, ofl_load_le32(trailer));
        ofl_store_le32(b + OFL_MPA_HDR_LEN + hl + n + tl - 4u,
                       ofl_load_le32(trailer + tl - 4u));
        len = OFL_MPA_HDR_LEN + hl + n + tl;
    } else
#endif /* the fast path's in-place framing replaces framev's */
    {
#if OFL_FAST_PATH
        /* (described only here: the in-place framing above reads none of
         * it, and its stores cost every FPDU) */
        qp_fpdu_ulpdu(&u, hl, payload, n);
#endif
        u.hdr = qp->hdr;
        err = ofl_mpa_fpdu_buildv(&qp->tx, &u, qp->tx_buf, qp->tx_cap, &len);
        if (err != OFL_OK)
            return err;
    }
    err = qp_xmit(qp, qp->tx_buf, (uint32_t)len, flags & QP_TX_FLAGS);
    if (err != OFL_OK)
        qp->tx.pos = pos;
    return err;
}

#if OFL_FAST_PATH
/*
 * rdmap_build's straight line for the header of a data message (RDMA
 * Write and Read Response tagged, the four Sends untagged on queue 0):
 * for such a header rdmap_check_hdr grants (an opcode below RDMAP_OPCODES,
 * tagged as its rdmap_ops row says, queue 0 when untagged, not a
 * one-segment opcode), there is no body and the header fits sizeof
 * qp->hdr, so rdmap_build writes exactly these bytes. Returns the length,
 * or 0 for any other header, which goes the general way.
 */
static OFL_ALWAYS_INLINE uint32_t qp_hdr_data(const struct ofl_ddp_hdr *h,
                                              uint8_t *p)
{
    const uint32_t op = h->opcode;
    const uint8_t c1 = (uint8_t)((OFL_RDMAP_VERSION << 6) | op);

    if (h->tagged) {
        if (op != OFL_RDMAP_WRITE && op != OFL_RDMAP_READ_RESP)
            return 0;
        ofl_store_be16(p, (uint16_t)(((0x80u | (h->last ? 0x40u : 0u) |
                                       OFL_DDP_VERSION) << 8) | c1));
        ofl_store_be32(p + 2, h->stag);
        ofl_store_be64(p + 6, h->to);
        return OFL_DDP_TAGGED_HDR_LEN;
    }
    if (op < OFL_RDMAP_SEND || op > OFL_RDMAP_SEND_SE_INV ||
        h->qn != OFL_DDP_QN_SEND)
        return 0;
    ofl_store_be16(p, (uint16_t)((((h->last ? 0x40u : 0u) | OFL_DDP_VERSION)
                                  << 8) | c1));
    ofl_store_be32(p + 2, rdmap_has_inv_stag(h->opcode) ? h->inv_stag : 0u);
    ofl_store_be32(p + 6, OFL_DDP_QN_SEND);
    ofl_store_be32(p + 10, h->msn);
    ofl_store_be32(p + 14, h->mo);
    return OFL_DDP_UNTAGGED_HDR_LEN;
}
#endif

/* Opens the FPDU (qp_tx_open: every FPDU's build starts here) and builds
 * qp->msg's header at qp_hdr_at; *hl its length. */
static OFL_HOT_INLINE enum ofl_err qp_hdr_build(struct ofl_qp *qp,
                                                uint32_t *hl)
{
    size_t n = 0;
    enum ofl_err err = qp_tx_open(qp);

    if (err != OFL_OK) {
        *hl = 0;
        return err;
    }
#if OFL_FAST_PATH
    *hl = qp_hdr_data(&qp->msg.ddp, qp_hdr_at(qp));
    if (*hl != 0)
        return OFL_OK;
#endif
    err = rdmap_build(&qp->msg, qp_hdr_at(qp), sizeof(qp->hdr), &n);
    *hl = (uint32_t)n;
    return err;
}

/* Sets qp->msg.ddp to an untagged one-segment message on queue qn. */
static void qp_msg_control(struct ofl_qp *qp, uint8_t opcode, uint32_t qn)
{
    struct ofl_ddp_hdr *h = &qp->msg.ddp;

    ofl_fill(h, 0, sizeof(*h));
    h->last = 1;
    h->opcode = opcode;
    h->qn = qn;
    h->msn = qp->msn_tx[qn];
}

/* Sends the one-FPDU control message in qp->msg (no payload). */
static enum ofl_err qp_control_send(struct ofl_qp *qp, uint32_t flags)
{
    uint32_t hl;
    enum ofl_err err = qp_hdr_build(qp, &hl);

    if (err != OFL_OK)
        return err;
    return qp_fpdu_send(qp, hl, NULL, 0, flags);
}

/* Sends the pending Terminate (RFC 5040 §5.? and §7): queue 2, then the
 * LLP closes. */
static enum ofl_err qp_term_send(struct ofl_qp *qp)
{
    enum ofl_err err;

    qp_msg_control(qp, OFL_RDMAP_TERMINATE, OFL_DDP_QN_TERMINATE);
    ofl_copy(&qp->msg.u.term, &qp->term_tx_msg, sizeof(qp->msg.u.term));
    err = qp_control_send(qp, OFL_QP_TX_CLOSE);
    if (err == OFL_OK) {
        qp->term_pending = 0;
        qp->msn_tx[OFL_DDP_QN_TERMINATE]++;
        qp->llp_closed = 1;
    }
    return err;
}

/*
 * A violation or a local failure that breaks the stream: Terminate with
 * cause (the terminated header taken from ulpdu when it has one), QP to
 * TERMINATE, event raised. Returns err.
 */
static enum ofl_err qp_fatal(struct ofl_qp *qp, enum ofl_err err,
                             struct ofl_term_cause cause, const uint8_t *ulpdu,
                             size_t len)
{
#if OFL_FAST_PATH
    if (qp->rx_defer != NULL) {
        /* The FPDU being handled had its CRC comparison deferred: a wrong
         * CRC is the error, as when mpa_rx_fast compares first (the same
         * error, cause and counters; its bytes may be placed: "One pass
         * over the payload"). */
        if (!qp_rx_defer_ok(qp)) {
            err = mpa_rx_fail(&qp->rx, OFL_E_MPA_CRC);
            cause = qp->rx.cause;
            ulpdu = NULL;
            len = 0;
            qp->stats.rx_fpdus--;
        }
        qp->rx_defer = NULL;
    }
#endif
    if (qp->state == OFL_QP_TERMINATE || qp->state == OFL_QP_ERROR)
        return err;
    ofl_fill(&qp->fault, 0, sizeof(qp->fault)); /* nothing waits any more */
    qp->err = (uint16_t)err;
    qp->term_tx = cause;
    if (qp->attr.service == OFL_QP_SVC_IWARP && qp->established) {
        ofl_rdmap_term_fill(&qp->term_tx_msg, cause, ulpdu, len);
        qp->term_pending = 1;
        (void)qp_term_send(qp);
    } else if (qp->established && !qp->llp_closed) {
        qp->llp_closed = 1; /* iSCSI: no Terminate, the stream is reset */
        (void)qp->attr.transmit(qp->attr.transmit_ctx, NULL, 0,
                                OFL_QP_TX_ABORT);
    }
    (void)qp_event(qp, OFL_QP_EV_FATAL);
    qp_raise(qp, OFL_QP_EVT_FATAL);
    qp_sq_complete(qp); /* the WQE concerned, when it is the oldest */
    return err;
}


/* ---- unpinned pages (seed 001) ------------------------------------------- */

/*
 * The fault path of OFL_QP_FAULT_WAIT ("Unpinned pages" in offload.h). A
 * present page never comes here: the accesses test the present bit as
 * they always did, and only their OFL_E_TPT_PAGE_FAULT leads here.
 *
 * Does a page of the n bytes at to through stag (an access already
 * checked) lack the present bit? Translates them in steps of 4 pieces,
 * each step covering at least one piece, so bounded by n; *va receives
 * the address of the first byte that faults.
 */
static OFL_NOINLINE bool qp_fault_scan(const struct ofl_qp *qp, uint32_t stag,
                                       uint64_t to, uint64_t n, uint64_t *va)
{
    struct ofl_tpt_piece piece[4];
    struct ofl_tpt_sgl sgl;
    uint64_t done = 0;
    enum ofl_err err = OFL_E_TPT_SGL_FULL;

    sgl.piece = piece;
    sgl.cap = 4;
    sgl.fault_va = 0;
    while (err == OFL_E_TPT_SGL_FULL && done < n) {
        err = ofl_tpt_translate(qp->attr.tpt, stag, to + done, n - done,
                                &sgl);
        done += sgl.bytes;
    }
    if (err != OFL_E_TPT_PAGE_FAULT)
        return false;
    *va = sgl.fault_va;
    return true;
}

/*
 * Records the fault an access waits on and raises OFL_QP_EVT_PAGE_FAULT
 * when it is a new one (seed 001: the default error handler "receives an
 * asynchronous error result"). Returns false, recording nothing, under
 * OFL_QP_FAULT_FAIL or once ofl_qp_fault_fail gave the access up: the
 * caller then fails it as before.
 */
static OFL_NOINLINE bool qp_fault_hold(struct ofl_qp *qp, uint8_t where,
                                       uint32_t stag, uint64_t va)
{
    struct ofl_qp_fault *f = &qp->fault;

    if (!qp->attr.fault_wait || f->give_up)
        return false;
    if (f->where != where || f->stag != stag || f->va != va) {
        f->where = where;
        f->stag = stag;
        f->va = va;
        qp_raise(qp, OFL_QP_EVT_PAGE_FAULT);
    }
    if (where == OFL_QP_FAULT_DG || where == OFL_QP_FAULT_ISCSI_IN)
        f->in_wait = 1;
    else if (where != OFL_QP_FAULT_RX)
        f->sq_wait = 1;
    return true;
}

/* The current send WQE's segment faulted: the first page not present from
 * the gather cursor on is the one it met (the bytes before were present).
 * true: it waits (nothing of the segment was sent, the cursor is kept). */
static OFL_NOINLINE bool qp_sq_hold(struct ofl_qp *qp)
{
    uint32_t i;
    uint64_t va;

    if (!qp->attr.fault_wait)
        return false;
    for (i = qp->cur.sge_i; i < qp->cur.num_sge; i++) {
        const struct ofl_qp_sge *s = &qp->sq_sge[i];
        uint32_t off = i == qp->cur.sge_i ? qp->cur.sge_off : 0u;

        if (off < s->len &&
            qp_fault_scan(qp, s->stag, s->addr + off, s->len - off, &va))
            return qp_fault_hold(qp, OFL_QP_FAULT_SQ, s->stag, va);
    }
    return false;
}

/* Done with the retries of one call: when nothing waits any more the
 * record is cleared (and a give-up spent). */
static void qp_fault_settle(struct ofl_qp *qp)
{
    if (!qp->fault.sq_wait && !qp->fault.rx_held && !qp->fault.in_wait)
        ofl_fill(&qp->fault, 0, sizeof(qp->fault));
}

enum ofl_err ofl_qp_fault_fail(struct ofl_qp *qp)
{
    if (qp == NULL)
        return OFL_E_ARG;
    if (qp->fault.where == OFL_QP_FAULT_NONE)
        return OFL_E_QP_STATE;
    qp->fault.give_up = 1;
    return OFL_OK;
}

/* RDMAP local catastrophic error (RFC 5040 §7.2, 0/0/00). */
static struct ofl_term_cause qp_local_cause(void)
{
    struct ofl_term_cause c;

    c.layer = OFL_TERM_LAYER_RDMAP;
    c.etype = OFL_TERM_RDMAP_LOCAL_CATASTROPHIC;
    c.ecode = 0;
    return c;
}

static struct ofl_term_cause qp_cause(uint8_t layer, uint8_t etype,
                                      uint8_t ecode)
{
    struct ofl_term_cause c;

    c.layer = layer;
    c.etype = etype;
    c.ecode = ecode;
    return c;
}

/* The remote access (FIG. 18A a-f) this QP makes to [to, to + len) of
 * stag with right need: its PD, and its number for type 2 windows. */
static OFL_ALWAYS_INLINE void qp_remote(const struct ofl_qp *qp,
                                        struct ofl_tpt_remote *a,
                                        uint32_t stag, uint64_t to,
                                        uint64_t len, uint8_t need)
{
    a->to = to;
    a->len = len;
    a->stag = stag;
    a->pd = qp->attr.pd;
    a->qp = qp->attr.qpn;
    a->need = need;
}

/* ---- the send queue ------------------------------------------------------ */

/* Fetches and checks the next send WQE into qp->cur and starts tracking it.
 * On a malformed WQE it is still tracked (to complete with an error). */
static OFL_HOT_INLINE enum ofl_err qp_sq_fetch(struct ofl_qp *qp)
{
    struct ofl_qp_sq_cur *c = &qp->cur;
    struct ofl_qp_swqe *t = &qp->sq_track[qp->sq.ci & (qp->sq.depth - 1u)];
    const uint8_t *h = c->hdr;
    enum ofl_err err;

    t->to = 0;
    t->len = 0;
    t->got = 0;
    t->stag = 0;
    t->status = OFL_WC_SUCCESS;
    t->wr_id = 0;
    t->opcode = 0;
    t->flags = 0;
    c->idx = qp->sq.ci;
    c->active = 1;
    c->phase = 0;
    c->begun = 0;
    c->sent = 0;
    c->sge_i = 0;
    c->sge_off = 0;
    c->until = 0;
    c->total = 0;
    c->num_sge = 0;
    t->state = QP_TRACK_FLIGHT;
    qp->sq.ci++;
    err = qp_wq_read(qp, &qp->sq, c->idx, 0, c->hdr, OFL_QP_SQ_HDR);
    if (err != OFL_OK)
        return err;
    t->wr_id = ofl_load_le64(h + QPW_WRID);
    t->opcode = h[QPW_OPCODE];
    t->flags = h[QPW_FLAGS];
    err = qp_op_check(qp, h[QPW_OPCODE], h[QPW_FLAGS], h[QPW_NSGE]);
    if (err != OFL_OK)
        return OFL_E_QP_WQE;
    c->num_sge = h[QPW_NSGE];
    err = qp_sge_fetch(qp, &qp->sq, c->idx, c->num_sge, &c->total);
    if (err == OFL_OK)
        err = qp_op_rules(h[QPW_OPCODE], c->num_sge, qp->sq_sge,
                          ofl_load_le64(h + QPW_TO), c->total);
    if (err == OFL_OK && qp_dg_op(qp, h[QPW_OPCODE]))
        err = qp_dg_rules(qp, qp_dg_need(h[QPW_OPCODE], c->total),
                          ofl_load_le32(h + QPW_DG_EE +
                                        qp_dg_at(h[QPW_OPCODE])));
    if (err != OFL_OK)
        return err == OFL_E_PORT_DMA ? err : OFL_E_QP_WQE;
    t->len = c->total;
    return OFL_OK;
}

/* Completes the current WQE with status and drops it. */
static void qp_cur_done(struct ofl_qp *qp, uint8_t status)
{
    qp_swqe_done(qp, qp->cur.idx, status);
    qp->cur.active = 0;
}

/*
 * The current WQE failed locally with err: it completes with status; if
 * none of its bytes went out the stream is intact and only the SQ stops
 * (SQ_ERR -> SQE, the WQEs behind it flushed), else the stream is broken
 * (FATAL, Terminate "local catastrophic").
 */
static enum ofl_err qp_sq_fail(struct ofl_qp *qp, enum ofl_err err,
                               uint8_t status)
{
    bool sent = qp->cur.sent != 0;

    qp_cur_done(qp, status);
    if (sent)
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    if (qp_event(qp, OFL_QP_EV_SQ_ERROR) == OFL_OK)
        qp->sq.flush_all = 1;
    return OFL_OK;
}

/*
 * A send-queue registration failed (seed 000 FIG. 11, FIG. 17A): option 1
 * moves the QP to SQD and flushes the WQEs posted behind it (receives,
 * inbound requests and WQEs before it continue); option 2 sends a
 * Terminate and moves the QP to ERROR (everything else flushed).
 */
static enum ofl_err qp_sq_reg_fail(struct ofl_qp *qp, enum ofl_err err)
{
    qp_cur_done(qp, (uint8_t)ofl_tpt_wc_status(err));
    if (qp->attr.reg_option == OFL_QP_REG_OPTION1) {
        if (qp_event(qp, OFL_QP_EV_REG_ERROR) == OFL_OK &&
            ofl_sn_lt(qp->sq.flush_to, qp->sq.db_pi))
            qp->sq.flush_to = qp->sq.db_pi;
        return OFL_OK;
    }
    (void)qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    /* Entering ERROR aborts the stream: with the Terminate refused by the
     * transmit, the QP waits in TERMINATE until ofl_qp_process sends it. */
    if (qp->term_pending)
        qp->error_after_term = 1;
    else
        (void)qp_event(qp, OFL_QP_EV_MOD_ERROR);
    return err;
}

/* Starts the message of the current WQE (template of the segmenter). */
static OFL_HOT_INLINE enum ofl_err qp_msg_begin(struct ofl_qp *qp,
                                                uint8_t opcode, bool tagged)
{
    struct ofl_ddp_hdr *h = &qp->msg.ddp;
    const uint8_t *w = qp->cur.hdr;

    ofl_zero_fixed(h, sizeof(*h));
    h->opcode = opcode;
    h->tagged = tagged;
    if (tagged) {
        h->stag = ofl_load_le32(w + QPW_RSTAG);
        h->to = ofl_load_le64(w + QPW_TO);
    } else {
        h->qn = OFL_DDP_QN_SEND;
        h->msn = qp->msn_tx[OFL_DDP_QN_SEND];
        h->inv_stag = ofl_load_le32(w + QPW_STAG);
    }
    qp->cur.sge_i = 0;
    qp->cur.sge_off = 0;
    return QP_SEG_INIT(&qp->cur.seg, h, qp->cur.total, qp->tx.mulpdu);
}

#if OFL_FAST_PATH
/*
 * One pass over the payload, send side, for an FPDU of header hl (built
 * in place) and n payload bytes (at least OFL_QP_FUSE_MIN) on a stream of
 * QP_PATH_FUSE_TX (CRC, no markers, the port's dma_read_crc32c): the
 * ULPDU Length is stored now, prefix and header summed into qp->tx_crc,
 * and the gather's reads continue it (qp_port_read); qp_fpdu_send adds
 * the pad. Every byte is summed in the order framev sums it, so the CRC
 * is the same.
 */
static OFL_HOT_INLINE void qp_tx_fuse_open(struct ofl_qp *qp, uint32_t hl,
                                           uint32_t n)
{
    ofl_store_be16(qp->tx_buf, (uint16_t)(hl + n));
    qp->tx_crc = port_crc_call(qp->tx.port, OFL_CRC32C_INIT, qp->tx_buf,
                               OFL_MPA_HDR_LEN + hl);
    qp->tx_fuse = 1;
}

/*
 * Transmit by reference (offload.h: ofl_qp_transmitv_fn; QP_PATH_REF_TX)
 * of an FPDU of header hl (built in place) and n payload bytes: the ULPDU
 * Length stored, prefix and header summed into qp->tx_crc, the gather's
 * reads turned into pieces of attr.txref (qp_txref_add) after entry 0,
 * which the header takes.
 */
static void qp_tx_ref_open(struct ofl_qp *qp, uint32_t hl, uint32_t n)
{
    ofl_store_be16(qp->tx_buf, (uint16_t)(hl + n));
    if (qp->tx.crc)
        qp->tx_crc = port_crc_call(qp->tx.port, OFL_CRC32C_INIT, qp->tx_buf,
                                   OFL_MPA_HDR_LEN + hl);
    qp->txref_count = 1;
    qp->tx_ref = 1;
}

/*
 * The FPDU gathered by reference (entries 1 .. txref_count - 1 of
 * attr.txref) framed as qp_fpdu_send frames it in place: the same length
 * check, the same pad and CRC (written behind the header, where the
 * payload would lie), the same stream position and counters; the header
 * and the trailer become the first and the last entry, and transmitv gets
 * them all. A refusal leaves the stream position where it was.
 */
static OFL_NOINLINE enum ofl_err qp_fpdu_sendv(struct ofl_qp *qp, uint32_t hl,
                                               uint32_t n, uint32_t flags)
{
    uint8_t *b = qp->tx_buf, *t = b + OFL_MPA_HDR_LEN + hl;
    struct ofl_qp_txref *ref = qp->attr.txref;
    const uint32_t count = qp->txref_count;
    uint32_t ulpdu = hl + n, pad, crc = 0;

    if (hl > qp->tx.mulpdu || n > (uint32_t)qp->tx.mulpdu - hl)
        return OFL_E_MPA_TOO_LONG;
    pad = (0u - (OFL_MPA_HDR_LEN + ulpdu)) & 3u;
    ofl_store_le32(t, 0);
    if (qp->tx.crc)
        crc = ofl_crc32c_final(
            port_crc_call(qp->tx.port, qp->tx_crc, t, pad));
    ofl_store_le32(t + pad, crc);
    ref[0].data = b;
    ref[0].pa = 0;
    ref[0].len = OFL_MPA_HDR_LEN + hl;
    ref[count].data = t;
    ref[count].pa = 0;
    ref[count].len = pad + OFL_MPA_CRC_LEN;
    if (qp->attr.transmitv(qp->attr.transmit_ctx, ref, count + 1u, flags) !=
        0) {
        qp->stats.tx_blocked++;
        return OFL_E_QP_TX_BLOCKED;
    }
    qp->tx.pos += mpa_content_len(ulpdu);
    qp->stats.tx_fpdus++;
    qp->stats.tx_bytes += OFL_MPA_HDR_LEN + ulpdu + pad + OFL_MPA_CRC_LEN;
    return OFL_OK;
}

/*
 * qp_msg_segment's FPDU of n >= OFL_QP_FUSE_MIN payload bytes on a stream
 * with a path beyond the plain copy (QP_PATH_REF_TX, QP_PATH_FUSE_TX):
 * by reference when the gather list holds the payload's pieces, else by
 * copy, summed as it is read under QP_PATH_FUSE_TX. how: QP_DMA_CHECKED
 * as for qp_gather. *si, *so move as the gather moves them (the caller
 * keeps them only when the FPDU went).
 */
static OFL_NOINLINE enum ofl_err qp_segment_big(struct ofl_qp *qp,
                                                uint32_t hl, uint32_t n,
                                                uint32_t *si, uint32_t *so,
                                                uint32_t how)
{
    const uint32_t flags = qp->cur.seg.done ? 0u : OFL_QP_TX_MORE;
    uint8_t *dst = qp_payload_at(qp, hl);
    uint32_t i = *si, o = *so;
    enum ofl_err err;

    if (qp->paths & QP_PATH_REF_TX) {
        qp_tx_ref_open(qp, hl, n);
        err = qp_gather(qp, dst, n, &i, &o, QP_DMA_SUM);
        if (err == OFL_OK)
            err = qp_fpdu_sendv(qp, hl, n, flags);
        if (qp->tx_ref != 2) {
            qp->tx_ref = 0;
            *si = i;
            *so = o;
            return err;
        }
        /* More pieces than attr.txref holds: by copy, checked again (the
         * port's hooks ran). */
        qp->tx_ref = 0;
        i = *si;
        o = *so;
        how = 0;
    }
    if (qp->paths & QP_PATH_FUSE_TX) {
        qp_tx_fuse_open(qp, hl, n);
        how |= QP_DMA_SUM;
    }
    err = qp_gather(qp, dst, n, &i, &o, how);
    if (err == OFL_OK)
        err = qp_fpdu_send(qp, hl, dst, n,
                           flags | (qp->tx_fuse != 0 ? QP_FPDU_FUSED : 0u));
    qp->tx_fuse = 0; /* also when the gather or the framing failed */
    *si = i;
    *so = o;
    return err;
}
#endif

/*
 * Sends the next segment of the current message. The segmenter and the
 * gather cursor move only when the transmission was taken. *done tells
 * when the last segment went. checked: as for qp_gather (the message's
 * data segments checked just before, in this call). Inlined into its one
 * caller with the fast paths (one call less per FPDU); a size build keeps
 * it apart, as it was.
 */
#if OFL_FAST_PATH
#define QP_SEGMENT_INLINE OFL_HOT_INLINE
#else
#define QP_SEGMENT_INLINE OFL_NOINLINE
#endif
static QP_SEGMENT_INLINE enum ofl_err qp_msg_segment(struct ofl_qp *qp,
                                                     bool *done, bool checked)
{
    struct ofl_ddp_seg *s = &qp->cur.seg;
    /* What ofl_ddp_seg_next moves, kept to undo a refused transmission
     * (struct ofl_ddp_seg documents these fields). */
    const uint32_t off0 = s->off;
    const uint64_t to0 = s->next.to;
    uint32_t off, n, hl, si = qp->cur.sge_i, so = qp->cur.sge_off;
    uint8_t *dst;
    enum ofl_err err;

    *done = false;
    if (!QP_SEG_NEXT(s, &qp->msg.ddp, &off, &n)) {
        *done = true;
        return OFL_OK;
    }
    err = qp_hdr_build(qp, &hl);
    if (err == OFL_OK) {
#if OFL_FAST_PATH
        /* Small payloads (most messages), and streams with no path but
         * the copy, go the plain way. */
        if (n >= OFL_QP_FUSE_MIN &&
            (qp->paths & (QP_PATH_REF_TX | QP_PATH_FUSE_TX)) != 0) {
            err = qp_segment_big(qp, hl, n, &si, &so,
                                 checked ? QP_DMA_CHECKED : 0u);
        } else
#endif
        {
            dst = qp_payload_at(qp, hl);
            err = qp_gather_hot(qp, dst, n, &si, &so,
                                checked ? QP_DMA_CHECKED : 0u);
            if (err == OFL_OK)
                err = qp_fpdu_send(qp, hl, dst, n,
                                   s->done ? 0u : OFL_QP_TX_MORE);
        }
    }
    if (err != OFL_OK) {
        s->off = off0;
        s->next.to = to0;
        s->done = false;
        return err;
    }
    qp->cur.sge_i = si;
    qp->cur.sge_off = so;
    qp->cur.sent = 1;
    *done = s->done;
    return OFL_OK;
}

/* A segment of the current data message failed with err (nothing of it
 * moved: qp_msg_segment undid the segmenter): a refused transmit waits
 * for the retry, a page fault under OFL_QP_FAULT_WAIT holds the WQE, else
 * the WQE fails (qp_sq_fail). */
static enum ofl_err qp_segment_failed(struct ofl_qp *qp, enum ofl_err err)
{
    if (err == OFL_E_QP_TX_BLOCKED)
        return err;
    if (err == OFL_E_TPT_PAGE_FAULT && qp_sq_hold(qp))
        return err; /* waits: the segment is rebuilt on the retry */
    return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
}

#if OFL_FAST_PATH
/*
 * The current message's further segments at once (a speed build), while
 * ofl_qp_process has steps left (*more, one taken for each) and the
 * message is not *done: what that loop would do next, without the round
 * through it, qp_sq_step and qp_sq_run (issue 30: each further FPDU of a
 * message). That loop would look at nothing else first: a segment that
 * went changed neither the QP's state nor its inbound requests
 * (irq_count), since the transmit callback and the port's hooks MUST NOT
 * call back into the QP (struct ofl_qp_attr, struct ofl_port). Out of
 * line, so that a message of one FPDU pays one test for it. A size build
 * goes round that loop for each segment, as it did.
 */
static OFL_NOINLINE enum ofl_err qp_msg_further(struct ofl_qp *qp, bool *done,
                                                uint32_t *more)
{
    enum ofl_err err;

    do {
        --*more;
        /* behind a transmission: the segments are checked again */
        err = qp_msg_segment(qp, done, false);
    } while (err == OFL_OK && !*done && *more != 0);
    return err;
}
#endif

/*
 * Runs the current data message (Send family, Write) one segment on, then
 * in a speed build its further segments while ofl_qp_process has steps
 * left (qp_msg_further; *more: those steps, one taken for each). A
 * segment refused after others went ends the call as it would have ended
 * that loop's next step.
 */
static OFL_NOINLINE enum ofl_err qp_run_message(struct ofl_qp *qp,
                                                uint8_t opcode, bool tagged,
                                                bool *finished, uint32_t *more)
{
    enum ofl_err err;
    bool done, checked = false;

    *finished = false;
    if (!qp->cur.begun) {
        err = qp_sges_check_hot(qp, OFL_TPT_LOCAL_READ);
        if (err != OFL_OK)
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        err = qp_msg_begin(qp, opcode, tagged);
        if (err != OFL_OK) /* a TO that wraps: a local length error */
            return qp_sq_fail(qp, err, OFL_WC_LOC_LEN_ERR);
        qp->cur.begun = 1;
        /* Nothing between here and the first segment's gather touches
         * the TPT or calls the port (header build only). */
        checked = true;
    }
    err = qp_msg_segment(qp, &done, checked);
#if OFL_FAST_PATH
    if (err == OFL_OK && !done && *more != 0)
        err = qp_msg_further(qp, &done, more);
#else
    (void)more;
#endif
    if (err != OFL_OK)
        return qp_segment_failed(qp, err);
    if (done) {
        if (!tagged)
            qp->msn_tx[OFL_DDP_QN_SEND]++;
        *finished = true;
    }
    return OFL_OK;
}

/* Appends SQ index idx to the outstanding Reads and Atomics. */
static void qp_ord_push(struct ofl_qp *qp, uint32_t idx)
{
    uint32_t at = qp->ord_head + qp->ord_count;

    if (at >= qp->attr.ord)
        at -= qp->attr.ord;
    qp->ord_ring[at] = idx;
    qp->ord_count++;
}

static void qp_ord_pop(struct ofl_qp *qp)
{
    qp->ord_head = qp->ord_head + 1u == qp->attr.ord ? 0 : qp->ord_head + 1u;
    qp->ord_count--;
}

/* RDMA Read Request or Atomic Request of the current WQE (RFC 5040 §4.4,
 * RFC 7306): one FPDU, then the WQE waits for its response. */
static OFL_NOINLINE enum ofl_err qp_run_request(struct ofl_qp *qp, bool atomic)
{
    struct ofl_qp_swqe *t = &qp->sq_track[qp->cur.idx & (qp->sq.depth - 1u)];
    const uint8_t *w = qp->cur.hdr;
    const struct ofl_qp_sge *s = qp->cur.num_sge ? &qp->sq_sge[0] : NULL;
    uint32_t qn = atomic ? OFL_DDP_QN_ATOMIC_REQ : OFL_DDP_QN_READ_REQ;
    enum ofl_err err;

    if (qp->ord_count >= qp->ord)
        return OFL_OK; /* ORD reached: wait for a response */
    if (!qp->cur.begun) {
        err = qp_sges_check(qp, OFL_TPT_LOCAL_WRITE);
        /* OFL_QP_READ_SINK_TAGGED: the sink must take the Read Response
         * as a tagged target too (what qp_place_tagged will check), so
         * that a sink without remote write fails here, locally. */
        if (err == OFL_OK && !atomic && s != NULL && s->len != 0 &&
            qp->attr.read_sink == OFL_QP_READ_SINK_TAGGED) {
            struct ofl_tpt_remote a;

            qp_remote(qp, &a, s->stag, s->addr, s->len, OFL_TPT_REMOTE_WRITE);
            err = ofl_tpt_check_access(qp->attr.tpt, &a);
        }
        if (err != OFL_OK)
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        qp->cur.begun = 1;
    }
    if (atomic) {
        struct ofl_rdmap_atomic_req *a = &qp->msg.u.atomic_req;

        qp_msg_control(qp, OFL_RDMAP_ATOMIC_REQ, qn);
        a->op = w[QPW_OPCODE] == OFL_QP_OP_ATOMIC_FADD ? OFL_RDMAP_FETCH_ADD
                                                         : OFL_RDMAP_CMP_SWAP;
        a->req_id = qp->cur.idx;
        a->stag = ofl_load_le32(w + QPW_RSTAG);
        a->to = ofl_load_le64(w + QPW_TO);
        a->add_swap = ofl_load_le64(w + QPW_EXT);
        a->add_swap_mask = ofl_load_le64(w + QPW_EXT + 8);
        a->compare = ofl_load_le64(w + QPW_EXT + 16);
        a->compare_mask = ofl_load_le64(w + QPW_EXT + 24);
    } else {
        struct ofl_rdmap_read_req *r = &qp->msg.u.read_req;

        qp_msg_control(qp, OFL_RDMAP_READ_REQ, qn);
        r->sink_stag = s != NULL ? s->stag : 0;
        r->sink_to = s != NULL ? s->addr : 0;
        r->size = qp->cur.total;
        r->src_stag = ofl_load_le32(w + QPW_RSTAG);
        r->src_to = ofl_load_le64(w + QPW_TO);
    }
    err = qp_control_send(qp, 0);
    if (err == OFL_E_QP_TX_BLOCKED)
        return err;
    if (err != OFL_OK)
        return qp_sq_fail(qp, err, OFL_WC_LOC_QP_OP_ERR);
    qp->msn_tx[qn]++;
    t->to = s != NULL ? s->addr : 0;
    t->stag = s != NULL ? s->stag : 0;
    t->len = atomic ? 8u : qp->cur.total;
    t->got = 0;
    qp_ord_push(qp, qp->cur.idx);
    qp->cur.active = 0; /* in flight until its response */
    return OFL_OK;
}

/* The Immediate Data message of WRITE_IMM (RFC 7306): queue 0, after
 * the Write. */
static enum ofl_err qp_run_imm(struct ofl_qp *qp)
{
    uint8_t sol = qp->cur.hdr[QPW_FLAGS] & OFL_QP_WR_SOLICITED;
    enum ofl_err err;

    qp_msg_control(qp, sol ? OFL_RDMAP_IMM_SE : OFL_RDMAP_IMM,
                   OFL_DDP_QN_SEND);
    ofl_store_be64(qp->msg.u.imm, ofl_load_le64(qp->cur.hdr + QPW_EXT));
    err = qp_control_send(qp, 0);
    if (err == OFL_E_QP_TX_BLOCKED)
        return err;
    if (err != OFL_OK)
        return qp_sq_fail(qp, err, OFL_WC_LOC_QP_OP_ERR);
    qp->msn_tx[OFL_DDP_QN_SEND]++;
    return OFL_OK;
}

/*
 * Writes the page words of the current WQE's physical buffers (qp->sq_sge,
 * qp->cur.num_sge of them) into the ATT from
 * d->att_base, with the rules of ofl_tpt_reg_phys (only the first buffer
 * may start, only the last may end, inside a page), and completes d: len,
 * fpo, att_count, direct ATT. Nothing is written unless every buffer passed
 * and the registration of stag with d would be taken
 * (ofl_tpt_register_check, or for an iSCSI command
 * ofl_tpt_register_iscsi_check, which also needs an iSCSI entry): a
 * refused FAST_REG or ISCSI_CMD leaves the ATT, which other
 * regions may use, as it was (seed 000: the entry is made only when the
 * STag is valid).
 */
static enum ofl_err qp_phys_pages(struct ofl_qp *qp, uint32_t stag,
                                  struct ofl_tpt_region_desc *d, bool iscsi)
{
    const struct ofl_tpt *tpt = qp->attr.tpt;
    const struct ofl_qp_sge *sge = qp->sq_sge;
    uint32_t n = qp->cur.num_sge;
    uint64_t mask, total = 0, pages = 0;
    uint32_t i, slot = d->att_base;
    enum ofl_err err;

    if (d->page_shift < OFL_TPT_PAGE_SHIFT_MIN ||
        d->page_shift > OFL_TPT_PAGE_SHIFT_MAX || n == 0)
        return OFL_E_TPT_BAD_DESC;
    mask = ((uint64_t)1 << d->page_shift) - 1u;
    for (i = 0; i < n; i++) {
        uint64_t pa = sge[i].addr, len = sge[i].len;

        if (len == 0 || pa > ~(uint64_t)0 - (len - 1u) ||
            (i > 0 && (pa & mask) != 0) ||
            (i + 1u < n && ((pa + len) & mask) != 0))
            return OFL_E_TPT_BAD_DESC;
        total += len;
        pages += ((pa + len - 1u) >> d->page_shift) -
                 (pa >> d->page_shift) + 1u;
    }
    if (pages > tpt->att_capacity || d->att_base > tpt->att_capacity - pages)
        return OFL_E_TPT_ATT_RANGE;
    d->len = total;
    d->fpo = (uint32_t)(sge[0].addr & mask);
    d->att_count = (uint32_t)pages;
    d->att_kind = OFL_TPT_ATT_DIRECT;
    err = iscsi ? ofl_tpt_register_iscsi_check(tpt, stag, qp->attr.pd,
                                               qp->attr.qpn, d)
                : ofl_tpt_register_check(tpt, stag, qp->attr.pd, d);
    if (err != OFL_OK)
        return err;
    /* One page word at a time (bounded by pages <= att_capacity); the
     * words were checked above, so none is refused. */
    for (i = 0; i < n; i++) {
        uint64_t first = sge[i].addr >> d->page_shift;
        uint64_t last = (sge[i].addr + sge[i].len - 1u) >> d->page_shift;
        uint64_t p;

        for (p = first; p <= last; p++) {
            uint64_t word = (p << d->page_shift) | OFL_TPT_ATT_PRESENT;

            (void)ofl_tpt_att_write(qp->attr.tpt, slot++, &word, 1);
        }
    }
    return OFL_OK;
}

/* The registration of FAST_REG / REG_SEND (FIG. 11 step 1168). */
static OFL_NOINLINE enum ofl_err qp_run_register(struct ofl_qp *qp, bool phys)
{
    struct ofl_tpt_region_desc d;
    const uint8_t *w = qp->cur.hdr, *x = qp->cur.hdr + QPW_EXT;
    uint32_t stag = ofl_load_le32(w + QPW_STAG);
    enum ofl_err err = OFL_OK;

    d.va = ofl_load_le64(w + QPW_TO);
    d.att_base = ofl_load_le32(w + QPW_RSTAG);
    d.att_count = ofl_load_le32(w + QPW_B32);
    d.len = ofl_load_le64(x);
    d.fpo = ofl_load_le32(x + 8);
    d.page_shift = x[12];
    d.att_kind = x[13];
    d.access = x[14];
    d.flags = x[15];
    if (phys && qp->cur.num_sge != 0)
        err = qp_phys_pages(qp, stag, &d, false);
    if (err == OFL_OK)
        err = ofl_tpt_register(qp->attr.tpt, stag, qp->attr.pd, &d);
    if (err == OFL_OK)
        qp->sq_track[qp->cur.idx & (qp->sq.depth - 1u)].stag = stag;
    return err;
}

/* Bind / unbind of a memory window (FIG. 15 g). */
static void qp_run_bind(struct ofl_qp *qp)
{
    struct ofl_tpt_bind_args b;
    const uint8_t *w = qp->cur.hdr;
    uint32_t bound = 0, b32 = ofl_load_le32(w + QPW_B32);
    enum ofl_err err;

    b.va = ofl_load_le64(w + QPW_TO);
    b.len = ofl_load_le64(w + QPW_EXT);
    b.stag = ofl_load_le32(w + QPW_STAG);
    b.region_stag = ofl_load_le32(w + QPW_RSTAG);
    b.pd = qp->attr.pd;
    b.qp = qp->attr.qpn;
    b.access = (uint8_t)b32;
    b.flags = (uint8_t)(b32 >> 8);
    err = ofl_tpt_bind_window(qp->attr.tpt, &b, &bound);
    if (err != OFL_OK) {
        (void)qp_sq_fail(qp, err, err == OFL_E_ARG
                                      ? OFL_WC_MW_BIND_ERR
                                      : (uint8_t)ofl_tpt_wc_status(err));
        return;
    }
    qp->sq_track[qp->cur.idx & (qp->sq.depth - 1u)].stag = bound;
    qp_cur_done(qp, OFL_WC_SUCCESS);
}

static OFL_NOINLINE enum ofl_err qp_iscsi_cmd(struct ofl_qp *qp);
static OFL_NOINLINE enum ofl_err
qp_iscsi_pdu(struct ofl_qp *qp, bool *finished);
static OFL_NOINLINE enum ofl_err qp_dg_send(struct ofl_qp *qp, uint64_t now,
                                            bool *progress);

/*
 * Carries the current WQE one step on: one transmission, or one local
 * operation. *progress tells whether anything happened.
 */
static OFL_NOINLINE enum ofl_err
qp_sq_run(struct ofl_qp *qp, uint64_t now, bool *progress, uint32_t *more)
{
    struct ofl_qp_sq_cur *c = &qp->cur;
    uint8_t op = c->hdr[QPW_OPCODE];
    uint32_t before = qp->stats.tx_fpdus;
    bool finished = false;
    enum ofl_err err = OFL_OK;

    if (!c->begun && c->phase == 0 && (c->hdr[QPW_FLAGS] & OFL_QP_WR_FENCE) &&
        qp->ord_count != 0)
        return OFL_OK; /* fenced behind outstanding Reads / Atomics (RD:
                          frames not yet acknowledged) */
    if (qp_dg_op(qp, op))
        return qp_dg_send(qp, now, progress);
    switch (op) {
    case OFL_QP_OP_SEND:
        err = qp_run_message(qp, (c->hdr[QPW_FLAGS] & OFL_QP_WR_SOLICITED)
                                     ? OFL_RDMAP_SEND_SE
                                     : OFL_RDMAP_SEND,
                             false, &finished, more);
        break;
    case OFL_QP_OP_SEND_INV:
        err = qp_run_message(qp, (c->hdr[QPW_FLAGS] & OFL_QP_WR_SOLICITED)
                                     ? OFL_RDMAP_SEND_SE_INV
                                     : OFL_RDMAP_SEND_INV,
                             false, &finished, more);
        break;
    case OFL_QP_OP_WRITE:
        err = qp_run_message(qp, OFL_RDMAP_WRITE, true, &finished, more);
        break;
    case OFL_QP_OP_WRITE_IMM:
        if (c->phase == 0) {
            err = qp_run_message(qp, OFL_RDMAP_WRITE, true, &finished, more);
            if (finished) {
                c->phase = 1;
                finished = false;
            }
        } else {
            err = qp_run_imm(qp);
            finished = err == OFL_OK && c->active;
        }
        break;
    case OFL_QP_OP_READ:
    case OFL_QP_OP_ATOMIC_FADD:
    case OFL_QP_OP_ATOMIC_CSWAP:
        err = qp_run_request(qp, op != OFL_QP_OP_READ);
        *progress = !c->active || qp->stats.tx_fpdus != before;
        return err;
    case OFL_QP_OP_BIND:
        qp_run_bind(qp);
        *progress = true;
        return OFL_OK;
    case OFL_QP_OP_FAST_REG:
        err = qp_run_register(qp, true);
        *progress = true;
        if (err != OFL_OK)
            return qp_sq_reg_fail(qp, err);
        qp_cur_done(qp, OFL_WC_SUCCESS);
        return OFL_OK;
    case OFL_QP_OP_LOCAL_INV:
        err = ofl_tpt_invalidate_local(qp->attr.tpt,
                                       ofl_load_le32(c->hdr + QPW_STAG),
                                       qp->attr.pd);
        *progress = true;
        if (err != OFL_OK)
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        qp_cur_done(qp, OFL_WC_SUCCESS);
        return OFL_OK;
    case OFL_QP_OP_DELAY: {
        uint64_t ticks = ofl_load_le64(c->hdr + QPW_TO);

        if (!c->begun) {
            c->until = now + ticks < now ? ~(uint64_t)0 : now + ticks;
            c->begun = 1;
        }
        if (now < c->until)
            return OFL_OK;
        qp_cur_done(qp, OFL_WC_SUCCESS);
        *progress = true;
        return OFL_OK;
    }
    case OFL_QP_OP_REG_SEND:
        if (c->phase == 0) {
            err = qp_run_register(qp, false);
            *progress = true;
            if (err != OFL_OK)
                return qp_sq_reg_fail(qp, err);
            c->phase = 1; /* registered: the Send's segments may use it */
        }
        err = qp_run_message(qp, (c->hdr[QPW_FLAGS] & OFL_QP_WR_SOLICITED)
                                     ? OFL_RDMAP_SEND_SE
                                     : OFL_RDMAP_SEND,
                             false, &finished, more);
        break;
    case OFL_QP_OP_ISCSI_CMD:
        err = qp_iscsi_cmd(qp);
        *progress = true;
        return err;
    default: /* OFL_QP_OP_ISCSI_PDU: qp_sq_fetch let nothing else in */
        err = qp_iscsi_pdu(qp, &finished);
        break;
    }
    if (finished && c->active)
        qp_cur_done(qp, OFL_WC_SUCCESS);
    *progress = *progress || qp->stats.tx_fpdus != before || !c->active;
    return err;
}

#if OFL_FAST_PATH
/* qp_sq_whole hands its WQE to the general path after `sent` bytes of
 * its message went (in FPDUs of the segmenter's size, from its one data
 * segment when sent is not 0): the WQE fetched and begun, the segmenter
 * and the gather cursor past those bytes, as qp_msg_segment leaves them
 * after the same FPDUs. */
static OFL_NOINLINE void qp_sq_whole_general(struct ofl_qp *qp, uint8_t rdmap,
                                             bool tagged, uint32_t sent)
{
    struct ofl_ddp_seg *s = &qp->cur.seg;
    uint32_t off, n;

    (void)qp_sq_fetch(qp); /* passes: qp_sq_whole made its checks */
    qp->cur.begun = 1;
    (void)qp_msg_begin(qp, rdmap, tagged); /* passes: the TO was checked */
    if (sent != 0) {
        while (s->off < sent && QP_SEG_NEXT(s, &qp->msg.ddp, &off, &n))
            ;
        qp->cur.sge_off = sent;
        qp->cur.sent = 1;
    }
}

/* qp_sq_whole's gather or transmission was refused with err after sent
 * bytes went: the WQE is where the general path has it when that segment
 * fails (qp_sq_whole_general), and err handled as there. */
static OFL_NOINLINE enum ofl_err qp_sq_whole_refused(struct ofl_qp *qp,
                                                     uint8_t rdmap,
                                                     bool tagged,
                                                     uint32_t sent,
                                                     enum ofl_err err)
{
    qp_sq_whole_general(qp, rdmap, tagged, sent);
    return qp_segment_failed(qp, err);
}

/*
 * qp_sq_whole's first test (in qp_sq_try_whole): the header length of the
 * message of the SQ's next WQE w (of an adapter-side ring) when it is a
 * Send, Send with Invalidate or RDMA Write of at most the QP's data
 * segments that fits one FPDU, or of one data segment in several FPDUs
 * (a total qp_sge_fetch accepts), and goes by the copy (qp_msg_segment's
 * choice); *total its bytes. 0 for any other WQE.
 */
static OFL_HOT_INLINE uint32_t qp_sq_whole_hl(const struct ofl_qp *qp,
                                              const uint8_t *w,
                                              uint32_t *total)
{
    const uint32_t op = w[QPW_OPCODE], num = w[QPW_NSGE];
    uint32_t hl, i;
    uint64_t sum = 0;

    if (op == OFL_QP_OP_WRITE)
        hl = OFL_DDP_TAGGED_HDR_LEN;
    else if (op == OFL_QP_OP_SEND || op == OFL_QP_OP_SEND_INV)
        hl = OFL_DDP_UNTAGGED_HDR_LEN;
    else
        return 0;
    if (num > qp->sq.max_sge)
        return 0;
    if (num == 1) /* the common WQE: no loop */
        sum = ofl_load_le32(w + OFL_QP_SQ_HDR + 8);
    else
        for (i = 0; i < num; i++)
            sum += ofl_load_le32(w + OFL_QP_SQ_HDR + i * OFL_QP_SGE_LEN + 8);
    if ((sum > (uint32_t)qp->tx.mulpdu - hl &&
         (num != 1 || sum >= QP_MSG_MAX)) ||
        (sum >= OFL_QP_FUSE_MIN &&
         (qp->paths & (QP_PATH_REF_TX | QP_PATH_FUSE_TX)) != 0))
        return 0;
    *total = (uint32_t)sum;
    return hl;
}

/* The answer of qp_sq_whole and qp_rx_whole for what they do not take:
 * one past the last error, so never an answer of their own (and no
 * out-parameter, which would keep their callers' frames busier). */
#define QP_WHOLE_DECLINED OFL_ERR_END_

/*
 * The send queue's whole-message fast path (issue 30, "a fast path for
 * the common message"), on a stream of QP_PATH_WHOLE_TX: the next WQE of
 * the adapter-side ring, when it is a Send, Send with Invalidate or RDMA
 * Write whose message fits one FPDU and whose data segments pass
 * FIG. 15's local-read check (qp_sges_check_hot), not fenced behind a
 * Read, and not on a payload path beyond the copy. Carried out in one
 * call: the WQE's fields read where they lie (the checks qp_sq_fetch
 * makes), the header stored at fixed offsets in place (qp_hdr_data's
 * bytes), then the general path's own gather, framing and transmit, and
 * the WQE tracked as done. No undo state: nothing of the WQE is taken
 * before the transmission went.
 *
 * Returns QP_WHOLE_DECLINED for a WQE it does not take (flags the rules
 * refuse, a fence, a TO that would wrap, two or more data segments one of
 * which fails its check), having changed nothing but the SQ's data
 * segment scratch (qp->sq_sge and qp->cur.num_sge, which qp_sq_fetch sets
 * again): qp_sq_fetch and qp_sq_run decide it from the start. A refusal
 * after that (a single segment's check or translation, the port's DMA,
 * the transmission) leaves the WQE fetched and begun as the general path
 * has it when its segment fails, and is handled as there
 * (qp_segment_failed), whose answer it returns: the retry, the hold or
 * the failure is the general path's (a segment refused its check fails
 * the WQE there too, before any byte moved). tests/check_fastpath.sh
 * holds it to the general path's answers. w: the WQE (the SQ's next,
 * located once, by qp_sq_try_whole); hl and total: qp_sq_whole_hl's
 * answer for it. Its caller derives the step's progress from the answer
 * (qp_sq_step): no out-parameter to keep across the port's calls.
 */
/* qp_sq_whole's tests of the WQE w of opcode op and flags beyond its
 * shape: qp_op_check's flags rule, qp_sq_run's fence and qp_msg_begin's
 * TO wrap (those refusals are the general path's). Returns the RDMAP
 * opcode of its message, or QP_WHOLE_NO_OP (no RDMAP opcode: RDMA Write
 * is 0) to decline it. */
#define QP_WHOLE_NO_OP 0xFFu
/* The RDMAP opcode of a Send (op OFL_QP_OP_SEND) or Send with Invalidate
 * of flags. */
static OFL_ALWAYS_INLINE uint8_t qp_sq_whole_send_op(uint32_t op,
                                                     uint32_t flags)
{
    return (uint8_t)((flags & OFL_QP_WR_SOLICITED)
                         ? (op == OFL_QP_OP_SEND ? OFL_RDMAP_SEND_SE
                                                 : OFL_RDMAP_SEND_SE_INV)
                         : (op == OFL_QP_OP_SEND ? OFL_RDMAP_SEND
                                                 : OFL_RDMAP_SEND_INV));
}

static OFL_ALWAYS_INLINE uint8_t qp_sq_whole_rdmap(const struct ofl_qp *qp,
                                                   const uint8_t *w,
                                                   uint32_t op, uint32_t flags,
                                                   uint32_t total)
{
    uint64_t to;

    if ((flags & ~(uint32_t)QP_WR_FLAGS) != 0 ||
        ((flags & OFL_QP_WR_FENCE) && qp->ord_count != 0))
        return QP_WHOLE_NO_OP;
    if (op == OFL_QP_OP_WRITE) {
        to = ofl_load_le64(w + QPW_TO);
        if (total != 0 && to > ~(uint64_t)0 - (total - 1u))
            return QP_WHOLE_NO_OP;
        return OFL_RDMAP_WRITE;
    }
    return qp_sq_whole_send_op(op, flags);
}

/* qp_hdr_data's bytes, stored at h, for the header of the segment at
 * message offset off (Last: last) of the WQE w's message of RDMAP opcode
 * rdmap. */
static OFL_ALWAYS_INLINE void qp_sq_whole_hdr(const struct ofl_qp *qp,
                                              uint8_t *h, const uint8_t *w,
                                              uint8_t rdmap, bool last,
                                              uint32_t off)
{
    /* the DDP control byte's Last bit, and the RDMAP control byte */
    const uint32_t l = last ? 0x40u : 0u;
    const uint32_t c1 = (OFL_RDMAP_VERSION << 6) | rdmap;

    if (rdmap == OFL_RDMAP_WRITE) {
        ofl_store_be16(h, (uint16_t)(((0x80u | l | OFL_DDP_VERSION) << 8) |
                                     c1));
        ofl_store_be32(h + 2, ofl_load_le32(w + QPW_RSTAG));
        ofl_store_be64(h + 6, ofl_load_le64(w + QPW_TO) + off);
    } else {
        ofl_store_be16(h, (uint16_t)(((l | OFL_DDP_VERSION) << 8) | c1));
        ofl_store_be32(h + 2, w[QPW_OPCODE] == OFL_QP_OP_SEND_INV
                                  ? ofl_load_le32(w + QPW_STAG)
                                  : 0u);
        /* queue number and MSN as one big-endian word: one store
         * (issue 30: 1 instruction a Send); the fields do not overlap,
         * so + is |, without a | of a constant 0 (the Send queue's
         * number) that cppcheck calls redundant */
        ofl_store_be64(h + 6, ((uint64_t)OFL_DDP_QN_SEND << 32) +
                                  qp->msn_tx[OFL_DDP_QN_SEND]);
        ofl_store_be32(h + 14, off);
    }
}

/*
 * qp_fpdu_send for the whole paths (qp_sq_whole, qp_sq_whole_multi): the
 * FPDU of a ULPDU of ulpdu bytes (that fits: qp_sq_whole_hl) built in
 * place in b, qp->tx_buf, and transmitted with flags. On QP_PATH_WHOLE_TX
 * the stream has no markers and the port lends no reservation, so
 * qp_fpdu_send's test of the markers and qp_xmit's end of a reservation
 * (tx_buf is the QP's own between frames) have nothing to do (issue 30:
 * 4 instructions an FPDU). A refused transmission leaves the stream
 * position where it was, as there.
 */
static OFL_ALWAYS_INLINE enum ofl_err qp_sq_whole_send(struct ofl_qp *qp,
                                                       uint8_t *b,
                                                       uint32_t ulpdu,
                                                       uint32_t flags)
{
    const size_t len = qp_fpdu_inplace(qp, b, ulpdu, flags);
    const enum ofl_err err =
        qp_xmit_own(qp, b, (uint32_t)len, flags & QP_TX_FLAGS);

    /* qp_fpdu_inplace moved the position on by mpa_content_len(ulpdu),
     * which is the FPDU's length (no markers): taken back from there, not
     * from a copy held across the port's calls (issue 30: one register
     * fewer across them; see qp_sq_try_whole for the figure) */
    if (err != OFL_OK)
        qp->tx.pos -= (uint32_t)len;
    return err;
}

/* qp_sq_whole_hdr's bytes for a later FPDU (Last: last) at message
 * offset off of the same message, over the header it stored at h for the
 * first: what changes is the Last bit and the offset (a Write's TO, a
 * Send's MO). The header stays where it was between FPDUs: on
 * QP_PATH_WHOLE_TX tx_buf is the QP's own (no reservation), and each
 * FPDU writes only its prefix and what follows the header. */
static OFL_ALWAYS_INLINE void qp_sq_whole_hdr_next(uint8_t *h,
                                                   const uint8_t *w,
                                                   uint8_t rdmap, bool last,
                                                   uint32_t off)
{
    if (last)
        h[0] |= 0x40u;
    if (rdmap == OFL_RDMAP_WRITE)
        ofl_store_be64(h + 6, ofl_load_le64(w + QPW_TO) + off);
    else
        ofl_store_be32(h + 14, off);
}

/* The WQE w of qp_sq_whole went whole (total bytes): retired, or tracked
 * as done, the SQ past it, a Send's MSN moved on. (qp->cur.idx, which
 * the general path's fetch would set to the WQE's index, is read only
 * while a WQE is current, and qp_sq_fetch sets it for the next: not
 * written, issue 30.)
 *
 * Retired at once when it is the SQ's oldest (every WQE before it
 * retired) and its send CQ has room and is not armed: what
 * qp_sq_complete_hot would do for it at the end of ofl_qp_process (its
 * CQE when signaled, then cc past it), here, without the tracking entry
 * and the scan (issue 30: about 35 instructions a message). The
 * conditions keep every answer the same: the CQEs come in posting order
 * (nothing older waits), no overrun can happen (there is room) and no
 * notify runs inside the step (not armed). One difference remains,
 * by design: when a later WQE of the same ofl_qp_process call takes the
 * QP to Error, this CQE is out already, where a tracked one comes with
 * the flush of the next call; the order of the CQEs is the same. */
static OFL_HOT_INLINE void qp_sq_whole_done(struct ofl_qp *qp,
                                            const uint8_t *w,
                                            uint32_t total)
{
    struct ofl_qp_wq *sq = &qp->sq;
    struct ofl_cq *cq = qp->attr.send_cq;

    if (sq->cc == sq->ci && cq->arm == OFL_CQ_ARM_NONE &&
        cq->pi - cq->ci < cq->cap) {
        if (w[QPW_FLAGS] & OFL_QP_WR_SIGNALED) {
            /* room (tested above): qp_cqe's slot, written whole */
            struct ofl_cqe *e = &cq->ring[cq->pi & (cq->cap - 1u)];

            /* field by field, as qp_cqe: a compound literal is a
             * memset call on some targets (arm-none-eabi-gcc) */
            e->wr_id = ofl_load_le64(w + QPW_WRID);
            e->imm = 0;
            e->byte_len = total;
            e->qpn = qp->attr.qpn;
            e->stag = 0;
            e->opcode = w[QPW_OPCODE];
            e->status = OFL_WC_SUCCESS;
            e->flags = 0;
            e->reserved = 0;
            e->src_addr = 0;
            e->src_qpn = 0;
            /* qp_cqe_commit_hot's publication; its notify has nothing
             * to do on a CQ found unarmed above, which a barrier hook
             * cannot arm (it does not call back into the engine), where
             * qp_cqe_commit_hot tests the arm again (issue 30: 2
             * instructions a signaled message with gcc, 1 with clang) */
            HOOK_BARRIER(cq->hooks, cq->port, OFL_BARRIER_RELEASE);
            cq->pi++;
        }
        sq->cc++;
    } else {
        struct ofl_qp_swqe *t = &qp->sq_track[sq->ci & (sq->depth - 1u)];

        t->wr_id = ofl_load_le64(w + QPW_WRID);
        t->to = 0;
        t->len = total;
        t->got = 0;
        t->stag = 0;
        t->opcode = w[QPW_OPCODE];
        t->flags = w[QPW_FLAGS];
        t->status = OFL_WC_SUCCESS;
        t->state = QP_TRACK_DONE;
    }
    sq->ci++;
    if (w[QPW_OPCODE] != OFL_QP_OP_WRITE)
        qp->msn_tx[OFL_DDP_QN_SEND]++;
}

/* qp_sq_whole_refused for qp_sq_whole's one FPDU (nothing sent), the
 * RDMAP opcode qp_sq_whole_rdmap answered for the WQE w taken again from
 * w (the refusal is rare): neither the opcode nor the WQE's is held
 * across the port's calls (issue 30: gcc kept both on the stack;
 * send64_library 822 -> 819 with gcc). */
static OFL_NOINLINE enum ofl_err qp_sq_whole_refused_one(struct ofl_qp *qp,
                                                         const uint8_t *w,
                                                         enum ofl_err err)
{
    const uint32_t op = w[QPW_OPCODE];

    return qp_sq_whole_refused(qp,
                               op == OFL_QP_OP_WRITE
                                   ? (uint8_t)OFL_RDMAP_WRITE
                                   : qp_sq_whole_send_op(op, w[QPW_FLAGS]),
                               op == OFL_QP_OP_WRITE, 0, err);
}

static OFL_NOINLINE enum ofl_err qp_sq_whole(struct ofl_qp *qp,
                                            const uint8_t *w, uint32_t hl,
                                            uint32_t total)
{
    const uint32_t op = w[QPW_OPCODE];
    const uint32_t num = w[QPW_NSGE];
    const uint8_t rdmap = qp_sq_whole_rdmap(qp, w, op, w[QPW_FLAGS], total);
    uint8_t *const b = qp->tx_buf, *h = b + OFL_MPA_HDR_LEN;
    uint32_t i, si = 0, so = 0;
    enum ofl_err err;

    if (rdmap == QP_WHOLE_NO_OP)
        return QP_WHOLE_DECLINED;
    if (num > 1) {
        /* Every segment checked before any is read (qp_run_message). */
        for (i = 0; i < num; i++) {
            const uint8_t *g = w + OFL_QP_SQ_HDR + i * OFL_QP_SGE_LEN;

            qp_sge_get(g, &qp->sq_sge[i]);
        }
        qp->cur.num_sge = (uint8_t)num;
        if (qp_sges_check_hot(qp, OFL_TPT_LOCAL_READ) != OFL_OK)
            return QP_WHOLE_DECLINED;
    }
    qp_sq_whole_hdr(qp, h, w, rdmap, true, 0); /* one FPDU: Last */
    if (num > 1) {
        /* The data segments were checked just now, with nothing since
         * that can change the TPT: the first DMA only translates. */
        err = qp_gather_hot(qp, h + hl, total, &si, &so, QP_DMA_CHECKED);
    } else if (total != 0) {
        /* One segment: its check (FIG. 15 a-g, as qp_sges_check_hot
         * makes it) and its translation in one lookup, before its one
         * DMA; a refusal is the general path's, as a failed gather. */
        const uint8_t *g = w + OFL_QP_SQ_HDR;

        err = qp_dma_sge(qp, ofl_load_le32_word(g + 12), ofl_load_le64(g),
                         h + hl, total, 0u);
    } else {
        err = OFL_OK; /* no byte: no key is checked (a zero-length SGE) */
    }
    /* tx_buf read again, not held across the DMA's call (issue 30: a
     * register fewer there, 1 instruction a message with clang) */
    if (err == OFL_OK)
        err = qp_sq_whole_send(qp, qp->tx_buf, hl + total, 0u);
    if (err != OFL_OK) {
        return qp_sq_whole_refused_one(qp, w, err);
    }
    qp_sq_whole_done(qp, w, total);
    return OFL_OK;
}

/*
 * Whether the check of a WQE's data segment (FIG. 15 a-g, granted when
 * its region e had generation gen) still stands behind a transmission or
 * a DMA: QP_DMA_CHECKED (the next DMA of a range inside the segment only
 * translates) while e's generation is unchanged, else 0 (it checks
 * again). Sound because a region's answer to FIG. 15 changes only with
 * its generation: it leaves VALID through tpt_make_invalid or
 * tpt_push_free, and its key, PD, rights and bounds change only through
 * a registration (tpt_apply_desc, ofl_tpt_reg_physical) or an
 * allocation, each of which moves the generation or needs an entry that
 * is not VALID. The translation is not kept: page words are read again
 * (a port may write them, ofl_tpt_map_page does). The generation is 32
 * bits; this lives within one engine call, where only port hooks run
 * between, so it cannot come round (2^31 registrations of one entry).
 */
static OFL_ALWAYS_INLINE uint32_t
qp_sq_whole_kept(const struct ofl_tpt_entry *e, uint32_t gen)
{
    return e->gen == gen ? QP_DMA_CHECKED : 0u;
}

/*
 * qp_sq_whole_multi's start: qp_sges_check's test of the WQE's one data
 * segment (qp->sq_sge[0], not empty) with its translation kept
 * (qp_check_local_keep), then the first FPDU's n payload bytes read into
 * dst: at the kept translation when they lie in one page, else
 * qp_dma_sge only translates them (checked whole just now, nothing since
 * that can change the TPT). QP_WHOLE_DECLINED when the check refuses,
 * else the read's answer, with *gen the region's generation
 * (qp_sq_whole_kept). Out of line: the kept translation stays out of
 * the loop's frame (within 256 bytes; inlined, rv64 gcc -Og made 272).
 */
static OFL_NOINLINE enum ofl_err qp_sq_whole_first(struct ofl_qp *qp,
                                                   uint8_t *dst, uint32_t n)
{
    struct qp_kept k;
    uint64_t pa;

    if (qp_check_local_keep(qp, &qp->sq_sge[0], OFL_TPT_LOCAL_READ, &k) !=
        OFL_OK)
        return QP_WHOLE_DECLINED;
    qp->tx_kept_region =
        &qp->attr.tpt->entry[ofl_stag_index(qp->sq_sge[0].stag)];
    qp->tx_kept_gen = k.gen;
    qp->tx_kept_att = k.att;
    qp->tx_kept_pos = k.pos;
    qp->tx_kept_shift = k.shift;
    if (k.att != NULL && qp_one_page(k.att, k.shift, k.pos, n, &pa))
        return qp_port_read(qp, pa, dst, n, QP_DMA_PAGE);
    return qp_dma_sge(qp, qp->sq_sge[0].stag, qp->sq_sge[0].addr, dst, n,
                      QP_DMA_CHECKED);
}

/*
 * The payload of a later FPDU of qp_sq_whole_multi's message, behind a
 * transmission: the n bytes at offset off of its data segment read into
 * dst while the segment's check stands (qp_sq_whole_kept: the region's
 * generation is still gen), at the translation qp_sq_whole_first kept
 * when they lie in one page (the page word read again: a port may
 * change it), else qp_dma_sge translates them; when the check no longer
 * stands, qp_dma_sge checks them again. qp_dma_sge's answer.
 */
static OFL_ALWAYS_INLINE enum ofl_err qp_sq_whole_next(struct ofl_qp *qp,
                                                      uint32_t off,
                                                      uint8_t *dst,
                                                      uint32_t n)
{
    const struct ofl_qp_sge *s = &qp->sq_sge[0];
    const uint32_t how =
        qp_sq_whole_kept(qp->tx_kept_region, qp->tx_kept_gen);
    uint64_t pa;

    if (how != 0 && qp->tx_kept_att != NULL &&
        qp_one_page(qp->tx_kept_att, qp->tx_kept_shift,
                    qp->tx_kept_pos + off, n, &pa))
        return qp_port_read(qp, pa, dst, n, QP_DMA_PAGE);
    return qp_dma_sge(qp, s->stag, s->addr + off, dst, n, how);
}

/*
 * qp_sq_whole for a message of one data segment in several FPDUs (total
 * above the FPDU's payload): the segment checked whole first, as
 * qp_run_message checks it, with the first FPDU's payload translated in
 * the same lookup when it lies in one page; the header stored once at
 * fixed offsets, each later FPDU changing its offset and Last bit
 * (qp_sq_whole_hdr_next); each FPDU's slice of the segment read (after
 * the first, behind a transmission, translated, and checked again only
 * when its region's generation moved: qp_sq_whole_kept; qp_msg_further
 * checks each) and sent; each FPDU after the first takes a step of
 * ofl_qp_process's budget (*more), as qp_msg_further's do. A refusal, or
 * the budget's end, after some FPDUs went leaves the WQE where the
 * general path has it after the same FPDUs (qp_sq_whole_general), which
 * sends the rest. Answers as qp_sq_whole.
 */
static OFL_NOINLINE enum ofl_err qp_sq_whole_multi(struct ofl_qp *qp,
                                                  const uint8_t *w,
                                                  uint32_t hl, uint32_t total,
                                                  uint32_t *more)
{
    const uint8_t *g = w + OFL_QP_SQ_HDR; /* the one data segment */
    const uint32_t max = (uint32_t)qp->tx.mulpdu - hl; /* per FPDU */
    const uint8_t rdmap = qp_sq_whole_rdmap(qp, w, w[QPW_OPCODE],
                                            w[QPW_FLAGS], total);
    const bool tagged = rdmap == OFL_RDMAP_WRITE;
    uint8_t *const b = qp->tx_buf, *h = b + OFL_MPA_HDR_LEN;
    uint32_t off = 0, n;
    bool last;
    enum ofl_err err;

    if (rdmap == QP_WHOLE_NO_OP)
        return QP_WHOLE_DECLINED;
    qp_sge_get(g, &qp->sq_sge[0]);
    /* The segment checked, the first FPDU's payload (max bytes: total >
     * max) read (qp_sq_whole_first). */
    last = false;
    n = max;
    err = qp_sq_whole_first(qp, h + hl, n);
    if (err == QP_WHOLE_DECLINED)
        return QP_WHOLE_DECLINED;
    qp_sq_whole_hdr(qp, h, w, rdmap, false, 0); /* total > max: not Last */
    for (;;) {
        if (err == OFL_OK)
            err = qp_sq_whole_send(qp, b, hl + n,
                                   last ? 0u : OFL_QP_TX_MORE);
        if (err != OFL_OK) {
            return qp_sq_whole_refused(qp, rdmap, tagged, off, err);
        }
        if (last)
            break;
        off += n;
        if (*more == 0) {
            qp_sq_whole_general(qp, rdmap, tagged, off);
            return OFL_OK;
        }
        --*more;
        last = total - off <= max;
        n = last ? total - off : max;
        qp_sq_whole_hdr_next(h, w, rdmap, last, off);
        err = qp_sq_whole_next(qp, off, h + hl, n);
    }
    /* inline, not a call of its own (issue 30: a further FPDU 8.5
     * instructions with gcc, 5.5 with clang; the frames stay within 256
     * bytes, make analyze) */
    qp_sq_whole_done(qp, w, total);
    return OFL_OK;
}

/* qp_sq_whole for the SQ's next WQE when qp_sq_whole_hl takes it. Out of
 * line for qp_sq_step, test included (qp_sq_try_whole): qp_sq_step, which
 * every WQE passes, keeps its registers for the general path (the test
 * inlined there cost the general path's Writes more than the call). */
static OFL_ALWAYS_INLINE enum ofl_err
qp_sq_try_whole_hot(struct ofl_qp *qp, uint32_t *more)
{
    const struct ofl_qp_wq *sq = &qp->sq;
    const uint8_t *w = sq->ring + (sq->ci & (sq->depth - 1u)) * sq->stride;
    uint32_t total = 0, hl = qp_sq_whole_hl(qp, w, &total);
    uint32_t left;
    enum ofl_err err;

    if (hl == 0)
        return QP_WHOLE_DECLINED;
    if (total <= (uint32_t)qp->tx.mulpdu - hl)
        return qp_sq_whole(qp, w, hl, total);
    /* *more through a copy: the caller's count stays in a register on
     * the one-FPDU way (issue 30: gcc stored it ahead of every call) */
    left = *more;
    err = qp_sq_whole_multi(qp, w, hl, total, &left);
    *more = left;
    return err;
}

/* qp_sq_try_whole_hot out of line, for qp_sq_step; qp_process_whole, the
 * common call, has it inlined: no call, and no move of its arguments
 * (issue 30: with qp_sq_whole_send's position, send64_library 824 -> 822
 * with gcc). */
static OFL_NOINLINE enum ofl_err qp_sq_try_whole(struct ofl_qp *qp,
                                                uint32_t *more)
{
    return qp_sq_try_whole_hot(qp, more);
}
#endif

/* One step of the send queue: flush, fetch or carry on the current WQE. */
/* The current WQE was fetched but has not begun (held behind ORD or a
 * fence): in SQD it is one that has not started. */
static bool qp_cur_held(const struct ofl_qp *qp)
{
    return qp->cur.active && !qp->cur.begun && qp->cur.phase == 0;
}

/* With no current WQE: flush_to follows ci once reached, so that after
 * 2^31 more WQEs a stale value never reads as ahead of it again (RFC
 * 1982). Returns true when no posted WQE waits. */
static OFL_ALWAYS_INLINE bool qp_sq_drained(struct ofl_qp *qp)
{
    if (!ofl_sn_lt(qp->sq.ci, qp->sq.flush_to))
        qp->sq.flush_to = qp->sq.ci;
    return qp->sq.ci == qp->sq.db_pi;
}

/* qp_sq_step's start of the SQ's next WQE by the general path: fetched
 * (a refusal fails it) and run. */
static OFL_ALWAYS_INLINE enum ofl_err qp_sq_start(struct ofl_qp *qp,
                                                  uint64_t now,
                                                  bool *progress,
                                                  uint32_t *more)
{
    enum ofl_err err = qp_sq_fetch(qp);

    if (err != OFL_OK) {
        *progress = true;
        return qp_sq_fail(qp, err, OFL_WC_LOC_QP_OP_ERR);
    }
    return qp_sq_run(qp, now, progress, more);
}

static enum ofl_err qp_sq_step(struct ofl_qp *qp, uint64_t now, bool *progress,
                               uint32_t *more)
{
    *progress = false;
    if (qp_cur_held(qp) && qp->state != OFL_QP_RTS &&
        qp->state != OFL_QP_CLOSING)
        return OFL_OK; /* SQD: a WQE held before it began does not start */
    if (!qp->cur.active) {
        if (qp_sq_drained(qp))
            return OFL_OK;
        if (qp->sq.flush_all || ofl_sn_lt(qp->sq.ci, qp->sq.flush_to)) {
            qp_sq_flush_one(qp);
            *progress = true;
            return OFL_OK;
        }
        if (qp->state != OFL_QP_RTS && qp->state != OFL_QP_CLOSING)
            return OFL_OK; /* SQD: nothing new starts */
#if OFL_FAST_PATH
        if (qp->paths & QP_PATH_WHOLE_TX) {
            const enum ofl_err err = qp_sq_try_whole(qp, more);
            if (err != QP_WHOLE_DECLINED) {
                /* the WQE went (or its first FPDUs did), or a refusal
                 * finished it; one held keeps the SQ waiting */
                *progress = err == OFL_OK || !qp->cur.active;
                return err;
            }
        }
#endif
        return qp_sq_start(qp, now, progress, more);
    }
    return qp_sq_run(qp, now, progress, more);
}

/* ---- answering inbound requests ------------------------------------------ */

static void qp_irq_pop(struct ofl_qp *qp)
{
    qp->irq_head = (qp->irq_head + 1u) & (qp->attr.ird - 1u);
    qp->irq_count--;
}

static OFL_NOINLINE enum ofl_err qp_iscsi_data_out(struct ofl_qp *qp,
                                      struct ofl_qp_inreq *r);

/*
 * The source of a Read Response failed its check again: the Terminate
 * carries the Read Request it answers, rebuilt as it arrived (untagged
 * queue 1, its MSN, MO 0, then the RDMA Read Request Header), with M, D and
 * R set, as one sent on the request's arrival does (RFC 5040 §4.8: the
 * Terminated RDMA Header is the Read Request Header of a Read Request in
 * error). It is built in qp->msg, the engine's message scratch: that held
 * the abandoned response's header, and the Terminate is built there next.
 */
static OFL_NOINLINE enum ofl_err
qp_read_src_fail(struct ofl_qp *qp, const struct ofl_qp_inreq *r,
                 enum ofl_err err)
{
    struct ofl_rdmap_msg *m = &qp->msg;
    uint8_t req[OFL_DDP_UNTAGGED_HDR_LEN + OFL_RDMAP_READ_REQ_LEN];
    size_t n = 0;

    qp_msg_control(qp, OFL_RDMAP_READ_REQ, OFL_DDP_QN_READ_REQ);
    m->ddp.msn = r->msn;
    m->u.read_req.sink_stag = r->stag_a;
    m->u.read_req.sink_to = r->to_a;
    m->u.read_req.size = r->len;
    m->u.read_req.src_stag = r->stag_b;
    m->u.read_req.src_to = r->to_b;
    if (ofl_rdmap_build(m, req, sizeof(req), &n) != OFL_OK)
        n = 0; /* cannot happen: a fixed, valid message */
    return qp_fatal(qp, err, ofl_tpt_term_cause(err, OFL_TPT_USE_RDMAP), req,
                    n);
}

/* The n source bytes of a Read Response segment of r, from its source at
 * r->done, read into dst (the source checked again, FIG. 18A a-f, as each
 * segment is read). OFL_OK; OFL_E_TPT_PAGE_FAULT when the segment waits
 * on an unpinned source page (r->done unmoved, the segment rebuilt);
 * else the QP's fatal error. Out of line with the fast paths: it keeps
 * its caller's frame, the header build and transmit inlined there, within
 * the 256-byte limit (272 at rv64 gcc -O1 otherwise); a size build, which
 * inlines neither, keeps it in its caller as it was. */
#if OFL_FAST_PATH
#define QP_READ_SRC_INLINE OFL_NOINLINE
#else
#define QP_READ_SRC_INLINE OFL_ALWAYS_INLINE
#endif
static QP_READ_SRC_INLINE enum ofl_err
qp_read_src_get(struct ofl_qp *qp, const struct ofl_qp_inreq *r,
                uint8_t *dst, uint32_t n)
{
    struct ofl_tpt_remote a;
    struct ofl_tpt_sgl sgl;
    uint32_t i, got = 0;
    enum ofl_err err;

    qp_remote(qp, &a, r->stag_b, r->to_b + r->done, n, OFL_TPT_REMOTE_READ);
    err = qp_check_translate_all(qp, &a, &sgl);
    if (err != OFL_OK && err != OFL_E_TPT_SGL_FULL) {
        uint64_t va;

        /* Unpinned source: r->done unmoved, the segment is rebuilt. */
        if (err == OFL_E_TPT_PAGE_FAULT && qp->attr.fault_wait &&
            qp_fault_scan(qp, a.stag, a.to, n, &va) &&
            qp_fault_hold(qp, OFL_QP_FAULT_READ_SRC, a.stag, va))
            return err;
        return qp_read_src_fail(qp, r, err);
    }
    for (i = 0; i < sgl.count && err != OFL_E_PORT_DMA; i++) {
        if (ofl_port_dma_read(qp->attr.port, qp->piece[i].pa, dst + got,
                              qp->piece[i].len) != OFL_OK)
            err = OFL_E_PORT_DMA;
        got += qp->piece[i].len;
    }
    if (err == OFL_E_TPT_SGL_FULL)
        err = qp_dma_tpt(qp, a.stag, a.to + got, dst + got, n - got, 0u);
    if (err != OFL_OK)
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    return OFL_OK;
}

/* One Read Response segment of the oldest Read Request (RFC 5040 §4.5):
 * the source is checked again (FIG. 18A a-f) as each segment is read. */
static OFL_NOINLINE enum ofl_err
qp_read_resp_step(struct ofl_qp *qp, struct ofl_qp_inreq *r)
{
    struct ofl_ddp_hdr *h = &qp->msg.ddp;
    uint32_t n = qp_min32(r->len - r->done,
                          (uint32_t)qp->tx.mulpdu - OFL_DDP_TAGGED_HDR_LEN);
    uint32_t hl;
    uint8_t *dst;
    enum ofl_err err;

    ofl_fill(h, 0, sizeof(*h));
    h->tagged = 1;
    h->opcode = OFL_RDMAP_READ_RESP;
    h->last = r->done + n == r->len;
    h->stag = r->stag_a;
    h->to = r->to_a + r->done;
    err = qp_hdr_build(qp, &hl);
    if (err == OFL_E_QP_TX_BLOCKED)
        return err; /* no room lent: r->done unmoved, rebuilt */
    if (err != OFL_OK)
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    dst = qp_payload_at(qp, hl);
    if (n != 0) {
        err = qp_read_src_get(qp, r, dst, n);
        if (err != OFL_OK)
            return err;
    }
    err = qp_fpdu_send(qp, hl, dst, n, h->last ? 0u : OFL_QP_TX_MORE);
    if (err != OFL_OK)
        return err;
    r->done += n;
    if (h->last) {
        /* A one-shot source is spent by the Read it served (seed 001: the
         * translation is disabled once the key was used); a zero-length
         * Read checked nothing and uses nothing. */
        if (r->len != 0)
            (void)ofl_tpt_note_use(qp->attr.tpt, r->stag_b, true);
        qp_irq_pop(qp);
    }
    return OFL_OK;
}

/* One transmission for the oldest inbound request. */
static OFL_NOINLINE enum ofl_err qp_irq_step(struct ofl_qp *qp)
{
    struct ofl_qp_inreq *r = &qp->irq[qp->irq_head];
    enum ofl_err err;

    switch (r->kind) {
    case OFL_QP_IN_READ:
        return qp_read_resp_step(qp, r);
    case OFL_QP_IN_ATOMIC:
        qp_msg_control(qp, OFL_RDMAP_ATOMIC_RESP, OFL_DDP_QN_ATOMIC_RESP);
        qp->msg.u.atomic_resp.req_id = r->id;
        qp->msg.u.atomic_resp.orig = r->to_a;
        err = qp_control_send(qp, 0);
        if (err == OFL_OK) {
            qp->msn_tx[OFL_DDP_QN_ATOMIC_RESP]++;
            qp_irq_pop(qp);
        }
        return err;
    default:
        return qp_iscsi_data_out(qp, r);
    }
}

/* Raises the SQ-drained event and the graceful close when due. */
static void qp_sq_idle_checks(struct ofl_qp *qp)
{
    bool idle, drained;

#if OFL_FAST_PATH
    /* Neither event is due in another state (RTS: every message). A size
     * build asks the two conditions below alone, as it did. */
    if (qp->state != OFL_QP_SQD && qp->state != OFL_QP_CLOSING)
        return;
#endif
    idle = !qp->cur.active && qp->ord_count == 0 && qp->sq.cc == qp->sq.ci;
    /* SQD: drained also with a WQE held that has not begun (it does not
     * start in SQD) once every WQE before it completed. */
    drained = idle || (qp_cur_held(qp) && qp->ord_count == 0 &&
                       qp->sq.cc == qp->cur.idx);
    if (qp->state == OFL_QP_SQD && drained && !qp->drained_sent) {
        qp->drained_sent = 1;
        qp_raise(qp, OFL_QP_EVT_SQ_DRAINED);
    }
    if (qp->state == OFL_QP_CLOSING && idle && qp->sq.ci == qp->sq.db_pi &&
        qp->irq_count == 0 && !qp->close_sent) {
        if (qp->attr.transmit(qp->attr.transmit_ctx, NULL, 0,
                              OFL_QP_TX_CLOSE) == 0)
            qp->close_sent = 1;
    }
}

static OFL_NOINLINE enum ofl_err qp_fault_rx_retry(struct ofl_qp *qp);

/* ofl_qp_process's retries of what waits on a page fault: the held FPDU,
 * then (by its loop) the send queue or the inbound Read that waited.
 * Returns OFL_OK, or the error that failed the held FPDU (given up) and
 * moved the QP out of the states that process. */
static OFL_NOINLINE enum ofl_err qp_fault_retry(struct ofl_qp *qp)
{
    enum ofl_err err = OFL_OK;

    qp->fault.sq_wait = 0; /* set again if it still waits */
    if (qp->fault.rx_held)
        err = qp_fault_rx_retry(qp);
    return qp_state_in(qp, QP_IRQ_OK) ? OFL_OK : err;
}

/* After ofl_qp_process's loop: the record cleared when nothing waits; a
 * held FPDU that still waits is the result when nothing else is. */
static OFL_NOINLINE enum ofl_err qp_fault_end(struct ofl_qp *qp,
                                              enum ofl_err err)
{
    qp_fault_settle(qp);
    if (err == OFL_OK && qp->fault.rx_held)
        err = OFL_E_TPT_PAGE_FAULT;
    return err;
}

/* After a step of ofl_qp_process's loop that answered err, with left steps
 * still allowed: whether the loop ends (an error, a state that takes no
 * more steps, or, in a speed build, nothing left to do). */
static OFL_ALWAYS_INLINE bool qp_process_stop(struct ofl_qp *qp,
                                              enum ofl_err err, uint32_t left)
{
    if (err != OFL_OK || !qp_state_in(qp, QP_IRQ_OK))
        return true;
#if OFL_FAST_PATH
    /* The step that would come next when nothing waits (no inbound
     * request, no current WQE, no posted one) finds nothing: its one
     * effect, qp_sq_drained's, here, and no round through qp_sq_step
     * (issue 30: about 20 instructions a call). */
    if (left != 0 && qp->irq_count == 0 && !qp->cur.active &&
        qp_sq_drained(qp))
        return true;
#else
    (void)left;
#endif
    return false;
}

/* ofl_qp_process after its loop: the completions, the idle events, the
 * page fault record; err the loop's answer. */
static OFL_ALWAYS_INLINE enum ofl_err qp_process_end(struct ofl_qp *qp,
                                                     enum ofl_err err)
{
    if (qp->state != OFL_QP_ERROR) {
        qp_sq_complete_hot(qp);
        qp_sq_idle_checks(qp);
    }
    if (qp->fault.where != OFL_QP_FAULT_NONE)
        err = qp_fault_end(qp, err);
    return err;
}

/* ofl_qp_process's loop, left steps allowed (each step takes one; a step
 * that sends further segments of a message, qp_run_message, takes one
 * for each), then its end; and ofl_qp_process past its argument check
 * (its checks in front, then the loop). Each its own function with the
 * fast paths, where qp_process_whole goes on with the loop; in a size
 * build both are ofl_qp_process's body, as they were. */
#if OFL_FAST_PATH
#define QP_PROCESS_INLINE OFL_NOINLINE
#else
#define QP_PROCESS_INLINE OFL_ALWAYS_INLINE
#endif
static QP_PROCESS_INLINE enum ofl_err qp_process_loop(struct ofl_qp *qp,
                                                      uint64_t now,
                                                      uint32_t left)
{
    enum ofl_err err = OFL_OK;
    bool progress;

    while (left != 0) {
        left--;
        if (qp->irq_count != 0) {
            err = qp_irq_step(qp);
        } else {
            err = qp_sq_step(qp, now, &progress, &left);
            if (err == OFL_OK && !progress)
                break;
        }
        if (qp_process_stop(qp, err, left))
            break;
    }
    return qp_process_end(qp, err);
}

static QP_PROCESS_INLINE enum ofl_err
qp_process_general(struct ofl_qp *qp, uint64_t now, uint32_t budget)
{
    enum ofl_err err;

    if (qp->state == OFL_QP_ERROR) {
        qp_flush_all(qp);
        return OFL_OK;
    }
    if (qp->term_pending) {
        err = qp_term_send(qp);
        if (err != OFL_OK)
            return err;
        if (qp->error_after_term) {
            qp->error_after_term = 0;
            return qp_event(qp, OFL_QP_EV_MOD_ERROR);
        }
    }
    if (!qp_state_in(qp, QP_IRQ_OK))
        return OFL_OK;
    if (qp->fault.where != OFL_QP_FAULT_NONE) {
        err = qp_fault_retry(qp);
        if (err != OFL_OK)
            return err; /* given up: the Terminate went out */
    }
    return qp_process_loop(qp, now, budget);
}

#if OFL_FAST_PATH
/*
 * ofl_qp_process for the common call (issue 30): an RTS QP with nothing
 * but its send queue to look at (no Terminate to send, no page fault
 * waiting, no inbound request, no current WQE) on a stream of
 * QP_PATH_WHOLE_TX, budget not 0. Its checks in front all pass, and its
 * loop's first step is qp_sq_step's for no current WQE in RTS, made by
 * qp_process_whole: nothing posted, or a flush (the loop takes it), else
 * the whole path's try, or the general start of a WQE it declines
 * (qp_process_start). Then the loop's own test of what is left
 * (qp_process_stop), and its end, or the loop goes on. The same steps in
 * the same order, in frames that keep fewer registers than the loop's,
 * and the state tested once in front (22 instructions a call with gcc,
 * 33 with clang; a WQE the whole path declines pays about 5 more).
 */
static OFL_ALWAYS_INLINE bool qp_process_whole_ok(const struct ofl_qp *qp,
                                                  uint32_t budget)
{
    return qp->state == OFL_QP_RTS && !qp->term_pending &&
           qp->fault.where == OFL_QP_FAULT_NONE && qp->irq_count == 0 &&
           !qp->cur.active && (qp->paths & QP_PATH_WHOLE_TX) && budget != 0;
}

/* qp_process_end for qp_process_whole: the same, with the scan of the
 * completions called (qp_sq_complete) only when one may be due, and the
 * idle checks only in the states they look at (their own first test):
 * none of them in the common call, whose frame then keeps fewer
 * registers. */
static OFL_ALWAYS_INLINE enum ofl_err qp_process_whole_end(struct ofl_qp *qp,
                                                           enum ofl_err err)
{
    if (qp->state != OFL_QP_ERROR) {
        if (qp->sq.cc != qp->sq.ci)
            qp_sq_complete(qp);
        if (qp->state == OFL_QP_SQD || qp->state == OFL_QP_CLOSING)
            qp_sq_idle_checks(qp);
    }
    if (qp->fault.where != OFL_QP_FAULT_NONE)
        err = qp_fault_end(qp, err);
    return err;
}

/* qp_process_whole_end after a WQE taken whole that answered OFL_OK, on
 * a QP that was in RTS with no page fault recorded (qp_process_whole_ok):
 * the whole path takes the QP to no state but SQE and ERROR (a refused
 * gather fails the WQE, qp_sq_fail) and records a fault only with an
 * error answer (qp_segment_failed), so of qp_process_whole_end's tests
 * only ERROR's and the completions' remain: SQD and CLOSING come only
 * from the verbs and the LLP, which the port's hooks do not call
 * (issue 30: 5 instructions a message with clang, 3 with gcc). */
static OFL_ALWAYS_INLINE enum ofl_err qp_process_whole_sent(struct ofl_qp *qp)
{
    if (qp->state != OFL_QP_ERROR && qp->sq.cc != qp->sq.ci)
        qp_sq_complete(qp);
    return OFL_OK;
}

/* qp_process_whole's first step for a WQE the whole path declined: the
 * general start (qp_sq_start, as qp_sq_step goes on), then as the loop. */
static OFL_NOINLINE enum ofl_err qp_process_start(struct ofl_qp *qp,
                                                  uint64_t now,
                                                  uint32_t left)
{
    bool progress = false; /* as qp_sq_step starts it */
    const enum ofl_err err = qp_sq_start(qp, now, &progress, &left);

    if ((err == OFL_OK && !progress) || qp_process_stop(qp, err, left))
        return qp_process_end(qp, err); /* the general path's, inlined */
    return qp_process_loop(qp, now, left);
}

static OFL_NOINLINE enum ofl_err qp_process_whole(struct ofl_qp *qp,
                                                  uint64_t now,
                                                  uint32_t budget)
{
    uint32_t left = budget - 1u;
    enum ofl_err err = OFL_OK;
    const uint32_t ci = qp->sq.ci;
    /* qp_sq_drained's test and qp_sq_step's flush test are the same
     * comparison (flush_to is ci after the first unless ci is behind it):
     * made once (issue 30: gcc made it twice) */
    const bool flushing = ofl_sn_lt(ci, qp->sq.flush_to);

    if (!flushing)
        qp->sq.flush_to = ci; /* qp_sq_drained's */
    if (ci != qp->sq.db_pi) {
        if (qp->sq.flush_all || flushing)
            return qp_process_loop(qp, now, budget);
        err = qp_sq_try_whole_hot(qp, &left);
        if (err == QP_WHOLE_DECLINED)
            return qp_process_start(qp, now, left);
        if (err == OFL_OK && !qp->cur.active) {
            /* The WQE taken whole and done (one FPDU, or all of a
             * multi-FPDU message: one that qp_sq_whole_multi hands to
             * the general path is current): of what qp_process_stop
             * looks at only the SQ's indexes moved (the state and
             * irq_count are as tested in front: the port's hooks do not
             * call back into the QP; a hook that did meets the loop's
             * own tests). Its answer from what is left (issue 30: 8
             * instructions a message). */
            if (left != 0 && qp_sq_drained(qp))
                return qp_process_whole_sent(qp);
            return qp_process_loop(qp, now, left);
        }
        /* (its progress, qp_sq_step's, matters only with OFL_OK, where it
         * is true) */
        if (!qp_process_stop(qp, err, left))
            return qp_process_loop(qp, now, left);
    }
    return qp_process_whole_end(qp, err);
}
#endif

enum ofl_err ofl_qp_process(struct ofl_qp *qp, uint64_t now, uint32_t budget)
{
    if (qp == NULL)
        return OFL_E_ARG;
#if OFL_FAST_PATH
    if (qp_process_whole_ok(qp, budget))
        return qp_process_whole(qp, now, budget);
#endif
    return qp_process_general(qp, now, budget);
}

/* ---- receiving: the stream ----------------------------------------------- */

/* One ULPDU being handled: where it is and the DDP SN of its last byte. */
struct qp_rxd {
    const uint8_t *ulpdu;
    uint32_t len;
    uint32_t sn;
};

/*
 * An in-order FPDU whose placement met a page not present at va of stag
 * (found before any byte of it was placed): under OFL_QP_FAULT_WAIT its
 * ULPDU is kept in rx_buf (moved down when it lies there already: a
 * forward copy to a lower address) for qp_fault_rx_retry, and the stream
 * takes nothing more. It fits: the MPA receiver refuses a ULPDU longer
 * than rx_cap (OFL_E_MPA_TOO_LONG) before it is whole. false: it cannot
 * wait (FAIL, or given up), the caller fails it as before.
 */
static OFL_NOINLINE bool qp_rx_hold(struct ofl_qp *qp, const struct qp_rxd *d,
                                    uint32_t stag, uint64_t va)
{
    if (!qp_fault_hold(qp, OFL_QP_FAULT_RX, stag, va))
        return false;
    if (d->ulpdu != qp->rx_buf)
        ofl_copy(qp->rx_buf, d->ulpdu, d->len);
    qp->fault.rx_held = 1;
    qp->fault.rx_len = d->len;
    qp->fault.rx_sn = d->sn;
    return true;
}

/* An inbound FPDU's access of n bytes at to through stag (checked)
 * failed with OFL_E_TPT_PAGE_FAULT before any byte of it was placed or
 * read (the callers translate it whole first): under OFL_QP_FAULT_WAIT
 * the FPDU waits (qp_rx_hold) on the first page not present. true: it
 * waits; false: the caller fails it as FAIL would. */
static OFL_NOINLINE bool qp_rx_fault_hold(struct ofl_qp *qp,
                                          const struct qp_rxd *d,
                                          uint32_t stag, uint64_t to,
                                          uint32_t n)
{
    uint64_t va;

    return qp->attr.fault_wait && qp_fault_scan(qp, stag, to, n, &va) &&
           qp_rx_hold(qp, d, stag, va);
}

/* Does a page of the n bytes at message offset off of qp->rcur's data
 * segments (checked) lack the present bit? *stag and *va receive the
 * first one that does (every page translated, nothing placed). */
static OFL_NOINLINE bool qp_rq_fault_scan(const struct ofl_qp *qp,
                                          uint32_t off, uint32_t n,
                                          uint32_t *stag, uint64_t *va)
{
    const struct ofl_qp_sge *sge = qp->rq_sge;
    uint32_t i;

    for (i = 0; i < qp->rcur.num_sge && n != 0; i++) {
        uint32_t k;

        if (off >= sge[i].len) {
            off -= sge[i].len;
            continue;
        }
        k = qp_min32(n, sge[i].len - off);
        if (qp_fault_scan(qp, sge[i].stag, sge[i].addr + off, k, va)) {
            *stag = sge[i].stag;
            return true;
        }
        n -= k;
        off = 0;
    }
    return false;
}

/* A Send segment of n bytes at message offset off (qp->rcur's data
 * segments, checked): under OFL_QP_FAULT_WAIT every page is translated
 * before the scatter places a byte. true: it waits on a page not present. */
static OFL_NOINLINE bool qp_rx_send_hold(struct ofl_qp *qp,
                                         const struct qp_rxd *d, uint32_t off,
                                         uint32_t n)
{
    uint32_t stag;
    uint64_t va;

    if (qp->fault.give_up)
        return false; /* the scatter fails it as FAIL would */
    return qp_rq_fault_scan(qp, off, n, &stag, &va) &&
           qp_rx_hold(qp, d, stag, va);
}

/* Wire offset of ULPDU byte k inside an FPDU that starts at stream
 * position start (RFC 5044 §4: a marker at every multiple of 512). */
static uint32_t qp_ulpdu_wire_off(const struct ofl_qp *qp, uint32_t start,
                                  uint32_t k)
{
    uint32_t c = OFL_MPA_HDR_LEN + k, f;

    if (!qp->rx.markers)
        return c;
    f = (0u - start) & (OFL_MPA_MARKER_INTERVAL - 1u);
    if (c < f)
        return c;
    return c + OFL_MPA_MARKER_LEN *
                   ((c - f) / (OFL_MPA_MARKER_INTERVAL - OFL_MPA_MARKER_LEN) +
                    1u);
}

/* RCV.NXT moves over n in-order bytes (in steps the window allows);
 * deferred one-touch invalidations it passes become due. */
static OFL_HOT_INLINE void qp_advance_only(struct ofl_qp *qp, uint32_t n)
{
#if OFL_FAST_PATH
    /* Within the window and no invalidation pending: seq_advance's one
     * step, whose loop over the pending SNs runs no round. */
    if (n <= qp->seq.wnd && qp->seq.pending_count == 0) {
        qp->seq.nxt += n;
        return;
    }
#endif
    while (n != 0) {
        uint32_t k = qp_min32(n, qp->seq.wnd);

        (void)seq_advance(&qp->seq, k, NULL);
        n -= k;
    }
}

/* The same, and the due invalidations are carried out. */
static OFL_HOT_INLINE void qp_advance(struct ofl_qp *qp, uint32_t n)
{
    qp_advance_only(qp, n);
    if (qp->seq.pending_count != 0)
        (void)ofl_seq_retire(&qp->seq, qp->attr.tpt, NULL);
}

#if OFL_FAST_PATH
/* qp_advance over an FPDU of n wire bytes a whole receive path took
 * (qp_rx_write_whole, qp_rx_send_whole): with no one-touch invalidation
 * pending, which their caller tested (qp_rx_front) and nothing of theirs
 * adds (only the one-touch decision does, which they leave to the general
 * path), every step of it only moves RCV.NXT. */
static OFL_ALWAYS_INLINE void qp_advance_whole(struct ofl_qp *qp, uint32_t n)
{
    qp->seq.nxt += n;
}
#endif

/* Is sn (the first SN of an FPDU the in-order stream completed, whose
 * last wire byte is end - 1) one placed out of order? Takes its record out
 * of the list into *rec. Records the stream has reached otherwise (before
 * end) are dropped on the way; *passed says there was one: the stream
 * reached a placed Write's first byte inside another FPDU. */
static bool qp_ooo_take(struct ofl_qp *qp, uint32_t sn, uint32_t end,
                        struct ofl_qp_ooo *rec, bool *passed)
{
    uint32_t i = 0;
    bool found = false;

    *passed = false;
    while (i < qp->ooo_count) {
        struct ofl_qp_ooo *o = &qp->ooo[i];

        if (o->sn == sn || ofl_sn_lt(o->sn, end)) {
            if (o->sn == sn) {
                ofl_copy(rec, o, sizeof(*rec));
                found = true;
            } else {
                *passed = true;
            }
            ofl_copy(o, &qp->ooo[--qp->ooo_count], sizeof(*o));
            continue;
        }
        i++;
    }
    return found;
}

static bool qp_ooo_has(const struct ofl_qp *qp, uint32_t sn)
{
    uint32_t i;

    for (i = 0; i < qp->ooo_count; i++)
        if (qp->ooo[i].sn == sn)
            return true;
    return false;
}

/* The local WQE concerned by a violation while receiving a Send. */
static void qp_rcur_fail(struct ofl_qp *qp, uint8_t status)
{
    struct ofl_cqe *e;

    if (!qp->rcur.active)
        return;
    qp->rcur.active = 0;
    e = qp_rq_complete(qp, qp->rcur.wr_id, OFL_QP_OP_RECV, status);
    if (e != NULL)
        qp_cqe_commit(qp->attr.recv_cq, e);
}

/*
 * Fetches the next receive WQE into qp->rcur and checks each of its data
 * segments for local write (FIG. 15: "RQ WRs require local write access").
 * On failure *status is the completion status for it.
 */
static OFL_HOT_INLINE enum ofl_err qp_rq_fetch_hot(struct ofl_qp *qp,
                                                   uint8_t *status)
{
    uint8_t b[OFL_QP_RQ_HDR];
    uint32_t i, total = 0;
    enum ofl_err err;

    qp->rcur.idx = qp->rq.ci;
    qp->rcur.active = 1;
    qp->rcur.got = 0;
    qp->rcur.num_sge = 0;
    qp->rcur.total = 0;
    qp->rcur.wr_id = 0;
    *status = OFL_WC_LOC_QP_OP_ERR;
    err = qp_wq_read(qp, &qp->rq, qp->rq.ci, 0, b, sizeof(b));
    if (err != OFL_OK)
        return err;
    qp->rcur.wr_id = ofl_load_le64(b + QPR_WRID);
    if (b[QPR_NSGE] > qp->rq.max_sge)
        return OFL_E_QP_WQE;
    err = qp_sge_fetch(qp, &qp->rq, qp->rq.ci, b[QPR_NSGE], &total);
    if (err != OFL_OK)
        return err == OFL_E_PORT_DMA ? err : OFL_E_QP_WQE;
    for (i = 0; i < b[QPR_NSGE]; i++) {
        const struct ofl_qp_sge *s = &qp->rq_sge[i];

        if (s->len == 0)
            continue; /* verbs: no key is checked for a zero-length SGE */
        err = qp_check_local(qp->attr.tpt, s->stag, qp->attr.pd, s->addr,
                              s->len, OFL_TPT_LOCAL_WRITE);
        if (err != OFL_OK) {
            *status = (uint8_t)ofl_tpt_wc_status(err);
            return err;
        }
    }
    qp->rcur.num_sge = b[QPR_NSGE];
    qp->rcur.total = total;
    return OFL_OK;
}

/* Inlined into qp_rx_new_message (every Send) with the fast paths; the
 * other callers call qp_rq_fetch, its one copy otherwise. */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err qp_rq_fetch(struct ofl_qp *qp,
                                             uint8_t *status)
{
    return qp_rq_fetch_hot(qp, status);
}
#else
#define qp_rq_fetch qp_rq_fetch_hot
#endif

/* A new message on queue 0 (Send or Immediate Data): MSN in order and a
 * receive WQE posted for it (RFC 5041 §7.2), then the WQE fetched. */
static enum ofl_err qp_rx_new_message(struct ofl_qp *qp, const struct qp_rxd *d)
{
    uint32_t msn = qp->msg.ddp.msn;
    uint8_t status;
    enum ofl_err err = ofl_ddp_msn_check(qp->msn_rx[OFL_DDP_QN_SEND],
                                         qp->rq.db_pi - qp->rq.ci, msn);

    if (err == OFL_OK && msn != qp->msn_rx[OFL_DDP_QN_SEND])
        err = OFL_E_DDP_MSN_RANGE; /* one message at a time, in order */
    if (err != OFL_OK)
        return qp_fatal(qp, err, ofl_wire_term_cause(err, false), d->ulpdu,
                        d->len);
    err = qp_rq_fetch_hot(qp, &status);
    if (err != OFL_OK) {
        qp_rcur_fail(qp, status);
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    return OFL_OK;
}

/* Send, Send with SE, with Invalidate (RFC 5040 §4.3, §6.10; seed 000
 * claims 1, 10, 11: the peer deregisters an STag with its message). */
static enum ofl_err qp_rx_send(struct ofl_qp *qp, const struct qp_rxd *d)
{
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;
    uint32_t n = qp->msg.payload_len;
    struct ofl_cqe *e;
    uint8_t flags = 0;
    bool checked = false;
    enum ofl_err err;

    if (!qp->rcur.active) {
        err = qp_rx_new_message(qp, d);
        if (err != OFL_OK)
            return err;
        /* Its data segments were checked for local write just now
         * (qp_rq_fetch); nothing before the scatter touches the TPT or
         * calls the port. */
        checked = true;
    } else if (h->msn != qp->msn_rx[OFL_DDP_QN_SEND]) {
        return qp_fatal(qp, OFL_E_DDP_MSN_RANGE,
                        ofl_wire_term_cause(OFL_E_DDP_MSN_RANGE, false),
                        d->ulpdu, d->len);
    }
    err = ofl_ddp_untagged_check(h->mo, n, qp->rcur.total);
    if (err != OFL_OK) {
        qp_rcur_fail(qp, OFL_WC_LOC_LEN_ERR);
        return qp_fatal(qp, err, ofl_wire_term_cause(err, false), d->ulpdu,
                        d->len);
    }
    /* Unpinned pages: MSN, receive WQE and buffer untouched until the
     * retry places the segment whole. */
    if (qp->attr.fault_wait && qp_rx_send_hold(qp, d, h->mo, n))
        return OFL_E_TPT_PAGE_FAULT;
    err = qp_scatter(qp, h->mo, qp->msg.payload, n, checked);
    if (err != OFL_OK) {
        qp_rcur_fail(qp, (uint8_t)ofl_tpt_wc_status(err));
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    if (h->mo + n > qp->rcur.got)
        qp->rcur.got = h->mo + n;
    if (!h->last)
        return OFL_OK;
    if (h->opcode == OFL_RDMAP_SEND_SE || h->opcode == OFL_RDMAP_SEND_SE_INV)
        flags |= OFL_CQE_SOLICITED;
    if (h->opcode == OFL_RDMAP_SEND_INV || h->opcode == OFL_RDMAP_SEND_SE_INV) {
        err = ofl_tpt_invalidate_remote(qp->attr.tpt, h->inv_stag,
                                        qp->attr.pd, qp->attr.qpn);
        if (err != OFL_OK) {
            qp_rcur_fail(qp, OFL_WC_REM_INV_REQ_ERR);
            return qp_fatal(qp, err,
                            ofl_tpt_term_cause(err, OFL_TPT_USE_INVALIDATE),
                            d->ulpdu, d->len);
        }
        flags |= OFL_CQE_INV;
    }
    qp->rcur.active = 0;
    qp->msn_rx[OFL_DDP_QN_SEND]++;
    e = qp_rq_complete(qp, qp->rcur.wr_id, OFL_QP_OP_RECV, OFL_WC_SUCCESS);
    if (e != NULL) {
        e->byte_len = h->mo + n;
        e->flags = flags;
        e->stag = (flags & OFL_CQE_INV) ? h->inv_stag : 0;
        qp_cqe_commit_hot(qp->attr.recv_cq, e);
    }
    return OFL_OK;
}

/* RFC 7306 Immediate Data: consumes a receive WQE, delivered in its CQE. */
static enum ofl_err qp_rx_imm(struct ofl_qp *qp, const struct qp_rxd *d)
{
    struct ofl_cqe *e;
    enum ofl_err err;

    if (qp->rcur.active) /* a Send on queue 0 is not finished */
        return qp_fatal(qp, OFL_E_DDP_MSN_RANGE,
                        ofl_wire_term_cause(OFL_E_DDP_MSN_RANGE, false),
                        d->ulpdu, d->len);
    err = qp_rx_new_message(qp, d);
    if (err != OFL_OK)
        return err;
    qp->rcur.active = 0;
    qp->msn_rx[OFL_DDP_QN_SEND]++;
    e = qp_rq_complete(qp, qp->rcur.wr_id, OFL_QP_OP_RECV_IMM,
                       OFL_WC_SUCCESS);
    if (e != NULL) {
        e->imm = ofl_load_be64(qp->msg.u.imm);
        e->flags = OFL_CQE_IMM;
        if (qp->msg.ddp.opcode == OFL_RDMAP_IMM_SE)
            e->flags |= OFL_CQE_SOLICITED;
        qp_cqe_commit(qp->attr.recv_cq, e);
    }
    return OFL_OK;
}

/* A tagged segment of n bytes through stag was handled in order: a Last
 * one ends the message, another of nonzero length opens (or continues)
 * it (qp->rx_tag_stag). */
static void qp_rx_tag_note(struct ofl_qp *qp, uint32_t stag, bool last,
                           uint32_t n)
{
#if OFL_FAST_PATH
    qp->rx_kept_region = NULL; /* qp_rx_write_fpdu keeps it again */
#endif
    if (last) {
        qp->rx_tag_open = 0;
    } else if (n != 0) {
        qp->rx_tag_open = 1;
        qp->rx_tag_stag = stag;
    }
}

/* Copies src to the pieces of a translation (how: QP_DMA_WRITE, and
 * QP_DMA_SUM for a deferred Write). */
static OFL_HOT_INLINE enum ofl_err qp_place_pieces(struct ofl_qp *qp,
                                                   const struct ofl_tpt_sgl *sgl,
                                                   const uint8_t *src,
                                                   uint32_t how)
{
#if OFL_FAST_PATH
    /* One piece (an access inside a page): qp_dma_pieces' one round. */
    if (sgl->count == 1)
        return qp_port_write(qp, sgl->piece[0].pa, src, sgl->piece[0].len,
                             how);
#endif
    /* src is only read: the pieces are written. */
    return qp_dma_pieces(qp, sgl, (uint8_t *)src, how);
}

/* Copies src to the pieces of a translation, then the rest of n (when the
 * translation was cut at OFL_QP_PIECES) through further translations. */
static OFL_HOT_INLINE enum ofl_err
qp_place_rest(struct ofl_qp *qp, const struct ofl_tpt_sgl *sgl, uint32_t stag,
              uint64_t to, const uint8_t *src, uint32_t n)
{
    uint32_t done, how = QP_DMA_WRITE;
    enum ofl_err err;

#if OFL_FAST_PATH
    if (qp->rx_defer != NULL)
        how |= QP_DMA_SUM; /* the deferred Write: summed as it is placed */
#endif
    err = qp_place_pieces(qp, sgl, src, how);
    done = (uint32_t)sgl->bytes;

    if (err != OFL_OK || done >= n)
        return err;
    return qp_dma_tpt(qp, stag, to + done, (uint8_t *)src + done, n - done,
                      how);
}

/* A Last tagged segment's one-touch look-up and one-shot note: with the
 * fast paths the tpt section's inline forms (tpt_last_flags,
 * tpt_note_last_use: no struct ofl_tpt_info copied, note_use called only
 * where it changes something), else its public calls. */
#if OFL_FAST_PATH
#define QP_TPT_INFO struct tpt_last_info
#define QP_TPT_FLAGS tpt_last_flags
#define QP_NOTE_LAST_USE tpt_note_last_use
#else
#define QP_TPT_INFO struct ofl_tpt_info
#define QP_TPT_FLAGS ofl_tpt_query
#define QP_NOTE_LAST_USE(tpt, stag) (void)ofl_tpt_note_use((tpt), (stag), true)
#endif

/*
 * A tagged segment in order (RDMA Write, Read Response): the remote checks
 * (FIG. 18A a-f) over the whole segment, every page of it translated, the
 * one-touch decision (FIG. 18B Table D; in order the segment's DDP SN is
 * NEXT, so rows 1-4), then the placement by DMA. A zero-length segment is
 * checked only as the Last of a message whose earlier segments were placed
 * through its STag: it ends that message (Table D row 4, a one-shot key
 * spent) as a Last segment with bytes would. Returns OFL_OK (placed, or a
 * zero-length segment with nothing to end), else the error and *cause.
 */
static enum ofl_err qp_place_tagged(struct ofl_qp *qp, const struct qp_rxd *d,
                                    struct ofl_term_cause *cause)
{
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;
    uint32_t n = qp->msg.payload_len;
    bool ends = h->last && qp->rx_tag_open && qp->rx_tag_stag == h->stag;
#if OFL_FAST_PATH
    bool deferred;
#endif
    struct ofl_tpt_remote a;
    struct ofl_tpt_sgl sgl;
    QP_TPT_INFO info;
    struct ofl_seq_ot ot;
    enum ofl_err err;

    ot.invalidate = false;
    qp_rx_tag_note(qp, h->stag, h->last, n);
    if (n == 0 && !ends)
        return OFL_OK;
    qp_remote(qp, &a, h->stag, h->to, n, OFL_TPT_REMOTE_WRITE);
    err = qp_check_translate_all(qp, &a, &sgl);
    if (err != OFL_OK && err != OFL_E_TPT_SGL_FULL) {
        *cause = ofl_tpt_term_cause(err, OFL_TPT_USE_PLACE);
        return err;
    }
    if (h->last && QP_TPT_FLAGS(qp->attr.tpt, h->stag, &info) == OFL_OK &&
        (info.flags & OFL_TPT_F_ONE_TOUCH)) {
        /* Handled in stream order, so its DDP SN is NEXT (RCV.NXT is one
         * past it, or already past its pad and CRC when TCP cut the FPDU
         * there: qp_rx_stream). */
        ot = ofl_seq_one_touch(true, true,
                               (info.flags & OFL_TPT_F_TOUCHED) != 0, d->sn,
                               d->sn + 1u, qp->seq.wnd);
        if (ot.terminate) {
            /* A deferred CRC first: a wrong one spends nothing. (Not
             * reached today: Touched is set only ahead of a hole, with
             * markers, which a deferred Write never has.) */
            if (!qp_rx_defer_ok(qp)) {
                *cause = qp->rx.cause;
                return OFL_E_MPA_CRC; /* qp_fatal reports it */
            }
            (void)ofl_tpt_expire(qp->attr.tpt, h->stag);
            *cause = ot.cause;
            return OFL_E_TPT_NOT_VALID; /* row 3: the touch is spent */
        }
        if (!ot.place)
            return OFL_OK; /* row 6 (not in order; kept for safety) */
    }
#if OFL_FAST_PATH
    deferred = qp->rx_defer != NULL; /* read once: the placement uses it */
#endif
    err = qp_place_rest(qp, &sgl, h->stag, h->to, qp->msg.payload, n);
    if (err != OFL_OK) {
        *cause = qp_local_cause();
        return err;
    }
#if OFL_FAST_PATH
    /* Placed through the fused hook: the CRC compared before the entry's
     * use is noted (a wrong one spends nothing; qp_fatal reports it). */
    if (deferred && !qp_rx_defer_close(qp, qp->msg.payload + n)) {
        *cause = qp->rx.cause;
        return OFL_E_MPA_CRC;
    }
#endif
    if (ot.invalidate) /* row 4: placed, then the entry is spent */
        (void)ofl_tpt_expire(qp->attr.tpt, h->stag);
    else if (h->last) /* not Last: note_use would only look the entry up */
        QP_NOTE_LAST_USE(qp->attr.tpt, h->stag);
    return OFL_OK;
}

/*
 * A Read Response segment into its Read's sink under OFL_QP_READ_SINK_LOCAL
 * (the verbs rule): the sink is the WQE's local data segment, so the
 * segment gets the local checks (FIG. 15 a-g, local write, the QP's PD, a
 * region) over its whole range, every page of it translated, before any
 * byte is placed. The caller matched STag, TO and length to the oldest
 * outstanding Read. A failure is the local side's (the STag was fine when
 * the Read started): local catastrophic, 0/0/00.
 */
static OFL_NOINLINE enum ofl_err
qp_place_read_sink(struct ofl_qp *qp, struct ofl_term_cause *cause)
{
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;
    uint32_t n = qp->msg.payload_len;
    struct ofl_tpt_local a;
    struct ofl_tpt_sgl sgl;
    enum ofl_err err;

    qp_rx_tag_note(qp, h->stag, h->last, n);
    if (n == 0)
        return OFL_OK;
    a.va = h->to;
    a.len = n;
    a.stag = h->stag;
    a.pd = qp->attr.pd;
    a.need = OFL_TPT_LOCAL_WRITE;
    sgl.piece = qp->piece;
    sgl.cap = OFL_QP_PIECES;
    err = ofl_tpt_check_translate_local(qp->attr.tpt, &a, &sgl);
    if (err == OFL_E_TPT_SGL_FULL) {
        enum ofl_err rest = qp_tpt_rest_ok(qp, a.stag, a.va, a.len,
                                           sgl.bytes);

        if (rest != OFL_OK)
            err = rest;
    }
    if (err == OFL_OK || err == OFL_E_TPT_SGL_FULL)
        err = qp_place_rest(qp, &sgl, h->stag, h->to, qp->msg.payload, n);
    if (err != OFL_OK)
        *cause = qp_local_cause();
    return err;
}

static enum ofl_err qp_rx_write(struct ofl_qp *qp, const struct qp_rxd *d)
{
    struct ofl_term_cause cause;
    enum ofl_err err = qp_place_tagged(qp, d, &cause);

    if (err != OFL_OK) {
        const struct ofl_ddp_hdr *h = &qp->msg.ddp;

        /* Unpinned pages: qp_place_tagged translated the whole segment
         * before placing, so nothing of it was placed. */
        if (err == OFL_E_TPT_PAGE_FAULT && qp_rx_defer_ok(qp) &&
            qp_rx_fault_hold(qp, d, h->stag, h->to, qp->msg.payload_len))
            return err;
        return qp_fatal(qp, err, cause, d->ulpdu, d->len);
    }
    return OFL_OK;
}

/* A response that no request of ours expects (RFC 5040 §7.2: remote
 * operation error, unexpected opcode). */
static enum ofl_err qp_rx_unexpected(struct ofl_qp *qp, const struct qp_rxd *d)
{
    return qp_fatal(qp, OFL_E_QP_UNEXPECTED,
                    qp_cause(OFL_TERM_LAYER_RDMAP,
                             OFL_TERM_RDMAP_REMOTE_OPERATION,
                             OFL_TERM_RDMAP_UNEXPECTED_OPCODE),
                    d->ulpdu, d->len);
}

/* The oldest outstanding Read or Atomic, when it is of the kind asked. */
static struct ofl_qp_swqe *qp_ord_head(struct ofl_qp *qp, bool atomic)
{
    struct ofl_qp_swqe *t;

    if (qp->ord_count == 0)
        return NULL;
    t = &qp->sq_track[qp->ord_ring[qp->ord_head] & (qp->sq.depth - 1u)];
    if ((t->opcode == OFL_QP_OP_READ) == atomic)
        return NULL;
    return t;
}

/* A Read Response segment for the oldest outstanding Read (RFC 5040 §4.5:
 * responses come in request order). */
static OFL_NOINLINE enum ofl_err
qp_rx_read_resp(struct ofl_qp *qp, const struct qp_rxd *d)
{
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;
    struct ofl_qp_swqe *t = qp_ord_head(qp, false);
    uint32_t n = qp->msg.payload_len;
    struct ofl_term_cause cause;
    enum ofl_err err;

    if (t == NULL)
        return qp_rx_unexpected(qp, d);
    if (h->stag != t->stag) {
        t->state = QP_TRACK_DONE;
        t->status = OFL_WC_BAD_RESP_ERR;
        return qp_fatal(qp, OFL_E_QP_RESP_MISMATCH,
                        qp_cause(OFL_TERM_LAYER_DDP, OFL_TERM_DDP_TAGGED,
                                 OFL_TERM_DDP_T_INVALID_STAG),
                        d->ulpdu, d->len);
    }
    if (h->to != t->to + t->got || n > t->len - t->got ||
        (h->last && t->got + n != t->len)) {
        t->state = QP_TRACK_DONE;
        t->status = OFL_WC_BAD_RESP_ERR;
        return qp_fatal(qp, OFL_E_QP_RESP_MISMATCH,
                        qp_cause(OFL_TERM_LAYER_DDP, OFL_TERM_DDP_TAGGED,
                                 OFL_TERM_DDP_T_BASE_BOUNDS),
                        d->ulpdu, d->len);
    }
    err = qp->attr.read_sink == OFL_QP_READ_SINK_TAGGED
              ? qp_place_tagged(qp, d, &cause)
              : qp_place_read_sink(qp, &cause);
    if (err != OFL_OK) {
        /* Unpinned pages: both placements translate the whole segment
         * before placing; the Read keeps its place (got, ORD) on a wait. */
        if (err == OFL_E_TPT_PAGE_FAULT &&
            qp_rx_fault_hold(qp, d, h->stag, h->to, n))
            return err;
        t->state = QP_TRACK_DONE;
        t->status = (uint8_t)ofl_tpt_wc_status(err);
        return qp_fatal(qp, err, cause, d->ulpdu, d->len);
    }
    t->got += n;
    if (h->last) {
        t->state = QP_TRACK_DONE;
        t->status = OFL_WC_SUCCESS;
        qp_ord_pop(qp);
        qp_sq_complete(qp);
    }
    return OFL_OK;
}

/* An inbound request's MSN on queue qn, against the free inbound slots
 * (FIG. 18A steps 1804-1806). */
static enum ofl_err qp_rx_irq_msn(struct ofl_qp *qp, uint32_t qn,
                                  const struct qp_rxd *d)
{
    uint32_t msn = qp->msg.ddp.msn;
    enum ofl_err err = ofl_ddp_msn_check(qp->msn_rx[qn],
                                         qp->attr.ird - qp->irq_count, msn);

    if (err == OFL_OK && msn != qp->msn_rx[qn])
        err = OFL_E_DDP_MSN_RANGE;
    if (err != OFL_OK)
        return qp_fatal(qp, err, ofl_wire_term_cause(err, false), d->ulpdu,
                        d->len);
    return OFL_OK;
}

/* The slot for a new inbound request (room checked by qp_rx_irq_msn). */
static struct ofl_qp_inreq *qp_irq_push(struct ofl_qp *qp, uint8_t kind)
{
    struct ofl_qp_inreq *r =
        &qp->irq[(qp->irq_head + qp->irq_count) & (qp->attr.ird - 1u)];

    ofl_fill(r, 0, sizeof(*r));
    r->kind = kind;
    qp->irq_count++;
    return r;
}

/* RDMA Read Request (FIG. 18A 1800-1812): queued by MSN, source STag
 * checked a-f (remote read right included), answered by ofl_qp_process. */
static OFL_NOINLINE enum ofl_err
qp_rx_read_req(struct ofl_qp *qp, const struct qp_rxd *d)
{
    const struct ofl_rdmap_read_req *q = &qp->msg.u.read_req;
    struct ofl_qp_inreq *r;
    struct ofl_tpt_remote a;
    enum ofl_err err = qp_rx_irq_msn(qp, OFL_DDP_QN_READ_REQ, d);

    if (err != OFL_OK)
        return err;
    if (q->size != 0) {
        qp_remote(qp, &a, q->src_stag, q->src_to, q->size,
                  OFL_TPT_REMOTE_READ);
        err = ofl_tpt_check_access(qp->attr.tpt, &a);
        if (err != OFL_OK)
            return qp_fatal(qp, err,
                            ofl_tpt_term_cause(err, OFL_TPT_USE_RDMAP),
                            d->ulpdu, d->len);
    }
    r = qp_irq_push(qp, OFL_QP_IN_READ);
    r->stag_a = q->sink_stag;
    r->to_a = q->sink_to;
    r->stag_b = q->src_stag;
    r->to_b = q->src_to;
    r->len = q->size;
    r->msn = qp->msg.ddp.msn;
    qp->msn_rx[OFL_DDP_QN_READ_REQ]++;
    return OFL_OK;
}

/* RFC 7306 Fetch and Add with an Add Mask: a set mask bit ends a field, so
 * no carry crosses it. Bounded by 64. */
static uint64_t qp_masked_add(uint64_t a, uint64_t b, uint64_t mask)
{
    uint64_t r = 0, carry = 0;
    uint32_t i;

    if (mask == 0)
        return a + b;
    for (i = 0; i < 64; i++) {
        uint64_t s = ((a >> i) & 1u) + ((b >> i) & 1u) + carry;

        r |= (s & 1u) << i;
        carry = ((mask >> i) & 1u) ? 0u : s >> 1;
    }
    return r;
}

/* The value an atomic leaves in memory (RFC 7306). */
static uint64_t qp_atomic_new(const struct ofl_rdmap_atomic_req *q,
                              uint64_t orig)
{
    switch (q->op) {
    case OFL_RDMAP_FETCH_ADD:
        return qp_masked_add(orig, q->add_swap, q->add_swap_mask);
    case OFL_RDMAP_SWAP:
        return (orig & ~q->add_swap_mask) | (q->add_swap & q->add_swap_mask);
    default: /* OFL_RDMAP_CMP_SWAP */
        if (((orig ^ q->compare) & q->compare_mask) != 0)
            return orig;
        return (orig & ~q->add_swap_mask) | (q->add_swap & q->add_swap_mask);
    }
}

/*
 * Atomic Request (RFC 7306): queue 3 by MSN against the inbound slots, an
 * 8-byte aligned target that passes FIG. 18A a-f with remote atomic, then
 * read, modify, write (little-endian 64-bit word), and the response queued.
 */
static OFL_NOINLINE enum ofl_err
qp_rx_atomic(struct ofl_qp *qp, const struct qp_rxd *d)
{
    const struct ofl_rdmap_atomic_req *q = &qp->msg.u.atomic_req;
    struct ofl_qp_inreq *r;
    struct ofl_tpt_remote a;
    uint8_t v[8] = {0}; /* clang-analyzer: qp_dma_tpt fills it on OFL_OK */
    uint64_t orig;
    enum ofl_err err = qp_rx_irq_msn(qp, OFL_DDP_QN_ATOMIC_REQ, d);

    if (err != OFL_OK)
        return err;
    if ((q->to & 7u) != 0)
        return qp_fatal(qp, OFL_E_QP_ATOMIC_ALIGN,
                        qp_cause(OFL_TERM_LAYER_RDMAP,
                                 OFL_TERM_RDMAP_REMOTE_PROTECTION,
                                 OFL_TERM_RDMAP_BASE_BOUNDS),
                        d->ulpdu, d->len);
    qp_remote(qp, &a, q->stag, q->to, 8, OFL_TPT_REMOTE_ATOMIC);
    err = ofl_tpt_check_access(qp->attr.tpt, &a);
    if (err != OFL_OK)
        return qp_fatal(qp, err, ofl_tpt_term_cause(err, OFL_TPT_USE_RDMAP),
                        d->ulpdu, d->len);
    err = qp_dma_tpt(qp, q->stag, q->to, v, 8, 0u);
    /* Unpinned pages: the read translates all 8 bytes before its DMA, so
     * a wait comes before the read-modify-write began (it runs once, on
     * the retry); nothing queued, no MSN moved. */
    if (err == OFL_E_TPT_PAGE_FAULT &&
        qp_rx_fault_hold(qp, d, q->stag, q->to, 8))
        return err;
    if (err == OFL_OK) {
        orig = ofl_load_le64(v);
        ofl_store_le64(v, qp_atomic_new(q, orig));
        err = qp_dma_tpt(qp, q->stag, q->to, v, 8, QP_DMA_WRITE);
    }
    if (err != OFL_OK)
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    /* One message, one segment: a one-shot target is spent (seed 001). */
    (void)ofl_tpt_note_use(qp->attr.tpt, q->stag, true);
    r = qp_irq_push(qp, OFL_QP_IN_ATOMIC);
    r->id = q->req_id;
    r->to_a = orig;
    r->msn = qp->msg.ddp.msn;
    qp->msn_rx[OFL_DDP_QN_ATOMIC_REQ]++;
    return OFL_OK;
}

/* Atomic Response for the oldest outstanding Atomic: the original value
 * goes to its result buffer. */
static OFL_NOINLINE enum ofl_err
qp_rx_atomic_resp(struct ofl_qp *qp, const struct qp_rxd *d)
{
    struct ofl_qp_swqe *t = qp_ord_head(qp, true);
    uint8_t v[8];
    enum ofl_err err;

    if (t == NULL || qp->msg.u.atomic_resp.req_id != qp->ord_ring[qp->ord_head])
        return qp_rx_unexpected(qp, d);
    if (qp->msg.ddp.msn != qp->msn_rx[OFL_DDP_QN_ATOMIC_RESP])
        return qp_fatal(qp, OFL_E_DDP_MSN_RANGE,
                        ofl_wire_term_cause(OFL_E_DDP_MSN_RANGE, false),
                        d->ulpdu, d->len);
    ofl_store_le64(v, qp->msg.u.atomic_resp.orig);
    /* Through the local checks again (FIG. 15 a-f, local write), as every
     * placement into a local buffer: the STag may name another entry by
     * now (deregistered, its key come round in another PD). */
    err = qp_dma_sge(qp, t->stag, t->to, v, 8, QP_DMA_WRITE);
    /* Unpinned pages: the 8 bytes are translated (at most 2 pieces, one
     * round) before the DMA: nothing written, the Atomic still owed. */
    if (err == OFL_E_TPT_PAGE_FAULT &&
        qp_rx_fault_hold(qp, d, t->stag, t->to, 8))
        return err;
    t->state = QP_TRACK_DONE;
    t->status = err == OFL_OK ? OFL_WC_SUCCESS
                              : (uint8_t)ofl_tpt_wc_status(err);
    if (err != OFL_OK)
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    qp->msn_rx[OFL_DDP_QN_ATOMIC_RESP]++;
    qp_ord_pop(qp);
    qp_sq_complete(qp);
    return OFL_OK;
}

/*
 * RFC 5040 §7.2 names an error type from the side of the Terminate's
 * sender: "local" is the sender's own failure, "remote" one the receiver
 * (this QP) caused. IBA's NAKs, and so the verbs statuses, name them from
 * the responder's side. Hence: the peer's local catastrophic error is
 * IBA's remote operational error (the responder could not complete it for
 * a reason of its own, REM_OP_ERR); a remote operation error (our message
 * was invalid to the peer: opcode, version, unexpected, ...) and a DDP
 * untagged error are IBA's invalid request (REM_INV_REQ_ERR); a protection
 * or tagged buffer error is a remote access error; "no buffer available"
 * for a Send is the receiver-not-ready error (iWARP retries no Send, so
 * rnr_retry is in effect 0).
 */
enum ofl_wc_status ofl_qp_term_status(struct ofl_term_cause cause)
{
    switch (cause.layer) {
    case OFL_TERM_LAYER_RDMAP:
    case OFL_TERM_LAYER_DDP:
        if (cause.etype == 0) /* RDMAP and DDP: local catastrophic */
            return OFL_WC_REM_OP_ERR;
        if (cause.layer == OFL_TERM_LAYER_DDP &&
            cause.etype == OFL_TERM_DDP_UNTAGGED)
            return cause.ecode == OFL_TERM_DDP_U_INVALID_MSN_NO_BUFFER
                       ? OFL_WC_RNR_RETRY_EXC_ERR
                       : OFL_WC_REM_INV_REQ_ERR;
        if (cause.etype == 1) /* remote protection, DDP tagged */
            return OFL_WC_REM_ACCESS_ERR;
        if (cause.layer == OFL_TERM_LAYER_RDMAP &&
            cause.etype == OFL_TERM_RDMAP_REMOTE_OPERATION)
            return OFL_WC_REM_INV_REQ_ERR;
        return OFL_WC_GENERAL_ERR;
    case OFL_TERM_LAYER_MPA:
        return OFL_WC_FATAL_ERR;
    default:
        return OFL_WC_GENERAL_ERR;
    }
}

/*
 * A Terminate from the peer (queue 2): the oldest send WQE in flight
 * takes the status its cause maps to (RNR_RETRY_EXC_ERR only for a Send:
 * a Read or Atomic past the peer's IRD is an invalid request), a receive
 * that holds part of a Send completes with REM_ABORT_ERR (the peer
 * abandoned the message), the QP goes to ERROR.
 */
static OFL_NOINLINE enum ofl_err
qp_rx_term(struct ofl_qp *qp)
{
    uint32_t i;

    ofl_copy(&qp->term_rx, &qp->msg.u.term.cause, sizeof(qp->term_rx));
    for (i = qp->sq.cc; i != qp->sq.ci; i++) {
        struct ofl_qp_swqe *t = &qp->sq_track[i & (qp->sq.depth - 1u)];

        if (t->state != QP_TRACK_DONE) {
            uint8_t st = (uint8_t)ofl_qp_term_status(qp->term_rx);

            if (st == OFL_WC_RNR_RETRY_EXC_ERR &&
                t->opcode != OFL_QP_OP_SEND &&
                t->opcode != OFL_QP_OP_SEND_INV &&
                t->opcode != OFL_QP_OP_WRITE_IMM &&
                t->opcode != OFL_QP_OP_REG_SEND)
                st = OFL_WC_REM_INV_REQ_ERR;
            t->state = QP_TRACK_DONE;
            t->status = st;
            break;
        }
    }
    qp_rcur_fail(qp, OFL_WC_REM_ABORT_ERR);
    qp_raise(qp, OFL_QP_EVT_TERM_RX);
    (void)qp_event(qp, OFL_QP_EV_TERM_RX);
    return OFL_OK;
}

#if OFL_FAST_PATH

/* The DDP control byte of an untagged header with Last set and the
 * RDMAP one of opcode op, as ofl_load_le16_word loads them, under the
 * mask 0xCFC3: tagged, Last and the DDP version; the RDMAP version and
 * the opcode (the bits the fast path tested byte by byte before). */
#define QP_SEND_HDR16(op)                                                 \
    ((0x40u | OFL_DDP_VERSION) | ((OFL_RDMAP_VERSION << 6 | (op)) << 8))
/* QP_SEND_HDR16 of Send with SE less that of Send: one bit, so that x is
 * one of the two when (x - QP_SEND_HDR16(OFL_RDMAP_SEND)) & ~it is 0. */
#define QP_SEND_SE_DIFF ((uint32_t)(OFL_RDMAP_SEND_SE - OFL_RDMAP_SEND) << 8)
_Static_assert(OFL_RDMAP_SEND_SE - OFL_RDMAP_SEND == 2,
               "Send with SE is Send plus one bit");

/* qp_rx_whole's tests of the ULPDU u of ulen bytes that need no WQE:
 * rdmap_parse's untagged Send header with Last set (Send or Send with
 * SE), then what qp_rx_send and qp_rx_new_message require of a first
 * FPDU. False declines it. (The opcode is read again where the
 * completion needs it, qp_rx_whole_done.) */
static OFL_HOT_INLINE bool qp_rx_whole_ok(const struct ofl_qp *qp,
                                          const uint8_t *u, uint32_t ulen)
{
    if (ulen < OFL_DDP_UNTAGGED_HDR_LEN)
        return false;
    /* The DDP control byte (untagged, Last, its version) and the RDMAP
     * one (its version, the opcode) in one load, the two opcodes in one
     * test (QP_SEND_SE_DIFF); queue 0 (OFL_DDP_QN_SEND) and MO 0 as one
     * test of their bytes, in either byte order (issue 30: with the
     * answer a bool, 13 instructions a Send with gcc, 16 with clang). */
    return (((ofl_load_le16_word(u) & 0xCFC3u) -
             QP_SEND_HDR16(OFL_RDMAP_SEND)) &
            ~QP_SEND_SE_DIFF) == 0 &&
           (ofl_load_le32_word(u + 6) | ofl_load_le32_word(u + 14)) == 0 &&
           ofl_load_be32(u + 10) == qp->msn_rx[OFL_DDP_QN_SEND] &&
           !qp->rcur.active && qp->rq.db_pi != qp->rq.ci &&
           !qp->attr.fault_wait;
}

/* qp_rx_whole_take's data segment at g of a receive WQE: into s, its
 * length added to *total, and FIG. 15's local-write check when it holds
 * bytes. False when the check refuses it. */
static OFL_HOT_INLINE bool qp_rx_whole_sge(const struct ofl_qp *qp,
                                           const uint8_t *g,
                                           struct ofl_qp_sge *s,
                                           uint64_t *total)
{
    qp_sge_get(g, s);
    *total += s->len;
    return s->len == 0 ||
           qp_check_local(qp->attr.tpt, s->stag, qp->attr.pd, s->addr,
                          s->len, OFL_TPT_LOCAL_WRITE) == OFL_OK;
}

/* qp_rx_whole_take's receive that failed its scatter with err (qp->rcur
 * set, active): it completes with err's status and the stream ends, as
 * qp_rx_send's. */
static OFL_NOINLINE enum ofl_err qp_rx_whole_fail(struct ofl_qp *qp,
                                                 enum ofl_err err)
{
    qp_rcur_fail(qp, (uint8_t)ofl_tpt_wc_status(err));
    return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
}

/* qp_rx_whole_take's stream accounting of an FPDU of wire bytes that lay
 * whole in the bytes fed (fed: qp_rx_send_fpdu's; qp_rx_stream did it for
 * the others). fed a constant where the FPDU is, not wire != 0: clang
 * cannot see that qp_rx_send_fpdu's wire is not 0 (issue 30: 2
 * instructions a Send with clang). */
static OFL_ALWAYS_INLINE void qp_rx_whole_pass(struct ofl_qp *qp,
                                               uint32_t wire, bool fed)
{
    if (fed) {
        qp->stats.rx_bytes += wire;
        (void)mpa_rx_pass(&qp->rx, wire);
        qp->stats.rx_fpdus++;
    }
}

/* qp_rx_whole_take's end, the n bytes of the Send u placed into the
 * receive wr_id (in qp->rcur, not active; its got, which the general
 * path's placement leaves at n, is read only while a receive is active,
 * and qp_rq_fetch sets it for the next: not written, issue 30): the MSN,
 * the completion
 * (SOLICITED for a Send with SE: its opcode read again here, so that no
 * register holds it over the checks and the DMA, and of the two opcodes
 * qp_rx_whole_ok passes only Send with SE has the flag's bit; issue 30:
 * 9 instructions a Send with gcc, 6 with clang). */
_Static_assert((OFL_RDMAP_SEND_SE & OFL_CQE_SOLICITED) == OFL_CQE_SOLICITED &&
                   (OFL_RDMAP_SEND & OFL_CQE_SOLICITED) == 0,
               "the SOLICITED flag is the Send with SE opcode's bit");
static OFL_ALWAYS_INLINE enum ofl_err qp_rx_whole_done(struct ofl_qp *qp,
                                                       uint64_t wr_id,
                                                       const uint8_t *u,
                                                       uint32_t n)
{
    /* the CQ read once: after the CQE's byte stores it would be read
     * again (issue 30: 1 instruction a Send with clang) */
    struct ofl_cq *const cq = qp->attr.recv_cq;
    struct ofl_cqe *e;

    qp->msn_rx[OFL_DDP_QN_SEND]++;
    e = qp_rq_complete(qp, wr_id, OFL_QP_OP_RECV, OFL_WC_SUCCESS);
    if (e != NULL) {
        e->byte_len = n;
        e->flags = u[1] & OFL_CQE_SOLICITED; /* stag: qp_cqe's 0 */
        /* qp_cqe_commit_hot with the arm tested first, as
         * qp_sq_whole_done: an unarmed CQ (a barrier hook cannot arm it)
         * publishes, an armed one goes to qp_cqe_commit (clang tested
         * the arm in 4 instructions, as a switch; issue 30: 5
         * instructions a Send with clang, 1 with gcc). */
        if (cq->arm == OFL_CQ_ARM_NONE) {
            HOOK_BARRIER(cq->hooks, cq->port, OFL_BARRIER_RELEASE);
            cq->pi++;
        } else {
            qp_cqe_commit(cq, e);
        }
    }
    return OFL_OK;
}

/* qp_rx_whole_take for a receive WQE at w of num data segments, num not
 * 1 (none, or several: their loop, qp_scatter), out of line: the one
 * segment's straight line keeps its registers (issue 30: 4 instructions a
 * Send with gcc and with clang). */
static OFL_NOINLINE enum ofl_err
qp_rx_whole_sges(struct ofl_qp *qp, const uint8_t *w, uint32_t num,
                 const uint8_t *u, uint32_t n, uint32_t wire)
{
    uint64_t total = 0;
    uint32_t i;
    enum ofl_err err;

    for (i = 0; i < num; i++)
        if (!qp_rx_whole_sge(qp, w + OFL_QP_RQ_HDR + i * OFL_QP_SGE_LEN,
                             &qp->rq_sge[i], &total))
            return QP_WHOLE_DECLINED;
    if (total >= QP_MSG_MAX || n > total) /* ofl_ddp_untagged_check */
        return QP_WHOLE_DECLINED;
    qp_rx_whole_pass(qp, wire, wire != 0);
    qp->rcur.idx = qp->rq.ci;
    qp->rcur.active = 1;
    qp->rcur.got = 0;
    qp->rcur.wr_id = ofl_load_le64_word(w + QPR_WRID);
    qp->rcur.num_sge = (uint8_t)num;
    qp->rcur.total = (uint32_t)total;
    err = qp_scatter(qp, 0, u + OFL_DDP_UNTAGGED_HDR_LEN, n, true);
    if (err != OFL_OK)
        return qp_rx_whole_fail(qp, err);
    qp->rcur.active = 0;
    return qp_rx_whole_done(qp, qp->rcur.wr_id, u, n);
}

/* The rest of qp_rx_whole for the Send u of n payload bytes (whose
 * header qp_rx_whole_ok passed): the WQE's tests, then (taken) the stream
 * accounting of an FPDU of wire bytes (qp_rx_whole_pass; wire 0 and fed
 * false when qp_rx_stream did it), the scatter and the completion. */
static OFL_HOT_INLINE enum ofl_err qp_rx_whole_take(struct ofl_qp *qp,
                                                    const uint8_t *u,
                                                    uint32_t n,
                                                    uint32_t wire, bool fed)
{
    struct ofl_qp_wq *rq = &qp->rq;
    const uint8_t *w = rq->ring + (rq->ci & (rq->depth - 1u)) * rq->stride;
    const uint32_t num = w[QPR_NSGE];
    struct qp_kept k;
    struct ofl_qp_sge s;
    uint64_t pa;
    enum ofl_err err;

    /* qp_rq_fetch's WQE and its checks. One data segment, the common
     * receive: no loop, its translation kept for the DMA (k is read only
     * for a segment that holds the payload, so one that was checked), and
     * the segment in s, not in qp->rq_sge (the scatter of several reads
     * that; it is the caller's memory, so its stores would make the
     * compiler load the QP's fields again: issue 30, 3 instructions with
     * gcc, 5 with clang). */
    if (num > rq->max_sge)
        return QP_WHOLE_DECLINED;
    if (num != 1)
        return qp_rx_whole_sges(qp, w, num, u, n, wire);
    s.addr = ofl_load_le64_word(w + OFL_QP_RQ_HDR);
    s.len = ofl_load_le32_word(w + OFL_QP_RQ_HDR + 8);
    s.stag = ofl_load_le32_word(w + OFL_QP_RQ_HDR + 12);
    /* The receive in qp->rcur as qp_rq_fetch sets it, but active (and
     * got 0) only if the DMA fails: nothing reads them in between, and the
     * completion would undo both stores (issue 30: 4 instructions with
     * gcc, 3 with clang). The QP is the same after it. Set before the
     * checks, so that neither the WQE's address nor its index is held
     * over them (issue 30: 3 instructions with gcc and with clang): a
     * receive not active is read nowhere, and a decline from here on
     * takes the general path to qp_rq_fetch of this WQE, which sets these
     * fields again. */
    qp->rcur.idx = rq->ci;
    qp->rcur.wr_id = ofl_load_le64_word(w + QPR_WRID);
    qp->rcur.num_sge = 1;
    qp->rcur.total = s.len;
    if (s.len == 0)
        qp_kept_none(&k);
    else if (qp_check_local_keep(qp, &s, OFL_TPT_LOCAL_WRITE, &k) != OFL_OK)
        return QP_WHOLE_DECLINED;
    if (s.len >= QP_MSG_MAX || n > s.len) /* ofl_ddp_untagged_check */
        return QP_WHOLE_DECLINED;
    qp_rx_whole_pass(qp, wire, fed);
    /* Checked just now, nothing since that can change the TPT:
     * qp_scatter's one round, in place, at the translation kept when the
     * bytes lie in one page (qp_one_page, qp_dma_sge's one-page case: the
     * same port call). */
    if (n != 0 && k.att != NULL && qp_one_page(k.att, k.shift, k.pos, n, &pa))
        err = qp_port_write(qp, pa, u + OFL_DDP_UNTAGGED_HDR_LEN, n,
                            QP_DMA_WRITE | QP_DMA_PAGE);
    else if (n != 0)
        err = qp_dma_sge(qp, s.stag, s.addr,
                         (uint8_t *)(u + OFL_DDP_UNTAGGED_HDR_LEN), n,
                         QP_DMA_WRITE | QP_DMA_CHECKED);
    else
        err = OFL_OK;
    if (err != OFL_OK) {
        qp->rcur.active = 1;
        qp->rcur.got = 0;
        return qp_rx_whole_fail(qp, err);
    }
    return qp_rx_whole_done(qp, qp->rcur.wr_id, u, n);
}

/*
 * The receive side's whole-message fast path (issue 30, "a fast path for
 * the common message"), on a stream of QP_PATH_WHOLE_RX: a Send or Send
 * with SE of one FPDU (untagged, Last, queue 0, MO 0, the MSN expected)
 * that starts a message, into the next receive WQE of the adapter-side
 * ring when it holds the payload and its data segments pass FIG. 15's
 * local-write check, on a QP that does not wait on unpinned pages. What
 * qp_rx_ulpdu does for it (rdmap_parse, qp_rx_send, qp_rx_new_message,
 * qp_rq_fetch), with the header read at fixed offsets and the WQE where
 * it lies: the same scatter, completion and counters, and its answer.
 * Returns QP_WHOLE_DECLINED, having changed nothing but the RQ's data
 * segment scratch (qp->rq_sge) and the fields of a receive not active in
 * qp->rcur (qp_rx_whole_take), which qp_rq_fetch sets again, for
 * anything else: qp_rx_ulpdu decides it. tests/check_fastpath.sh holds it
 * to the general path's answers.
 */
static OFL_NOINLINE enum ofl_err qp_rx_whole(struct ofl_qp *qp,
                                            const struct qp_rxd *d)
{
    if (!qp_rx_whole_ok(qp, d->ulpdu, d->len))
        return QP_WHOLE_DECLINED;
    return qp_rx_whole_take(qp, d->ulpdu, d->len - OFL_DDP_UNTAGGED_HDR_LEN,
                            0, false);
}

/*
 * qp_rx_whole from the stream's bytes (issue 30; the body of
 * qp_rx_send_whole and qp_rx_send_segment, QP_RX_FPDU_FORMS), as
 * qp_rx_write_fpdu, for an untagged FPDU that starts at p between
 * FPDUs (len bytes fed, at least an MPA and untagged header) on a stream
 * of QP_PATH_WHOLE_RX and QP_PATH_WRITE_RX (no markers), with nothing
 * placed ahead of a hole: qp_rx_whole_ok's header tests, then
 * mpa_rx_fast's FPDU (length, whole in p, CRC), then qp_rx_whole_take,
 * then RCV.NXT over the whole FPDU in one step (the two steps of
 * qp_rx_stream exist for the one-touch decision and the invalidations due
 * at an SN; a Send without Invalidate has neither). Sets *used to the
 * FPDU's wire bytes when taken; QP_WHOLE_DECLINED, the stream untouched,
 * for anything else (a bad length or CRC included: the general path
 * names the error).
 */
static OFL_ALWAYS_INLINE enum ofl_err qp_rx_send_fpdu(struct ofl_qp *qp,
                                                      const uint8_t *p,
                                                      uint32_t len,
                                                      uint32_t *used)
{
    const uint8_t *u = p + OFL_MPA_HDR_LEN;
    const uint32_t ulpdu = ofl_load_be16(p);
    uint32_t wire;
    enum ofl_err err;

    if (!qp_rx_whole_ok(qp, u, ulpdu) || ulpdu > qp->rx.cap)
        return QP_WHOLE_DECLINED;
    wire = mpa_content_len(ulpdu);
    if (wire > len ||
        (qp->rx.crc &&
         !mpa_crc_ok(port_crc_call_some(qp->rx.port, OFL_CRC32C_INIT, p,
                                        wire - OFL_MPA_CRC_LEN),
                     p + wire - OFL_MPA_CRC_LEN)))
        return QP_WHOLE_DECLINED;
    err = qp_rx_whole_take(qp, u, ulpdu - OFL_DDP_UNTAGGED_HDR_LEN, wire,
                           true);
    if (err == QP_WHOLE_DECLINED)
        return err;
    qp_advance_whole(qp, wire);
    *used = wire;
    return err;
}
#endif

/* One whole ULPDU received in order. */
static OFL_NOINLINE enum ofl_err
qp_rx_ulpdu(struct ofl_qp *qp, const struct qp_rxd *d)
{
    struct ofl_term_cause cause;
    enum ofl_err err;

#if OFL_FAST_PATH
    /* An untagged FPDU with Last set (its first byte) may be a whole
     * Send (qp_rx_whole); the other FPDUs leave after this test. */
    if ((qp->paths & QP_PATH_WHOLE_RX) && d->len != 0 &&
        (d->ulpdu[0] & 0xC0u) == 0x40u) {
        err = qp_rx_whole(qp, d);
        if (err != QP_WHOLE_DECLINED)
            return err;
    }
#endif
    err = rdmap_parse(d->ulpdu, d->len, &qp->msg, &cause);
    if (err != OFL_OK)
        return qp_fatal(qp, err, cause, d->ulpdu, d->len);
    switch (qp->msg.ddp.opcode) {
    case OFL_RDMAP_WRITE:
        return qp_rx_write(qp, d);
    case OFL_RDMAP_READ_RESP:
        return qp_rx_read_resp(qp, d);
    case OFL_RDMAP_READ_REQ:
        return qp_rx_read_req(qp, d);
    case OFL_RDMAP_TERMINATE:
        return qp_rx_term(qp);
    case OFL_RDMAP_IMM:
    case OFL_RDMAP_IMM_SE:
        return qp_rx_imm(qp, d);
    case OFL_RDMAP_ATOMIC_REQ:
        return qp_rx_atomic(qp, d);
    case OFL_RDMAP_ATOMIC_RESP:
        return qp_rx_atomic_resp(qp, d);
    default: /* the four Sends */
        return qp_rx_send(qp, d);
    }
}

/*
 * Retries the FPDU held by qp_rx_hold, as the in-order stream would have
 * handled it (RCV.NXT is past it already). Returns OFL_OK when it went
 * (nothing inbound waits), OFL_E_TPT_PAGE_FAULT when it waits again, or
 * the error that failed it (ofl_qp_fault_fail).
 */
static OFL_NOINLINE enum ofl_err qp_fault_rx_retry(struct ofl_qp *qp)
{
    struct qp_rxd d;

    d.ulpdu = qp->rx_buf;
    d.len = qp->fault.rx_len;
    d.sn = qp->fault.rx_sn;
    qp->fault.rx_held = 0;
    return qp_rx_ulpdu(qp, &d);
}

/* ofl_qp_input's retry of the held FPDU: OFL_OK when it went (a Write or
 * a Send placed: the QP takes input as before), else the wait again or
 * the failure (given up). */
static OFL_NOINLINE enum ofl_err qp_fault_input_retry(struct ofl_qp *qp)
{
    enum ofl_err err = qp_fault_rx_retry(qp);

    qp_fault_settle(qp);
    return err;
}

/*
 * The in-order stream is not what was placed ahead of the hole: the FPDU
 * at a placed Write's position differs from it (qp_rx_placed), or the
 * stream passed that position inside another FPDU (qp_ooo_take). The
 * placed bytes belong to no message of the stream, so the stream ends.
 * RFC 5040 §7.2 cause 0/2/07, Remote Operation Error "Catastrophic error,
 * localized to RDMAP Stream": the peer broke the stream itself (TCP
 * delivered other bytes at sequence numbers already taken), which is none
 * of the protection errors of the STag it names (that STag may be valid)
 * nor a DDP buffer error; and the stream, not the adapter, is what is lost.
 */
static enum ofl_err qp_placed_mismatch(struct ofl_qp *qp,
                                       const struct qp_rxd *d)
{
    return qp_fatal(qp, OFL_E_QP_PLACED_MISMATCH,
                    qp_cause(OFL_TERM_LAYER_RDMAP,
                             OFL_TERM_RDMAP_REMOTE_OPERATION,
                             OFL_TERM_RDMAP_CATASTROPHIC_STREAM),
                    d->ulpdu, d->len);
}

/*
 * An RDMA Write FPDU placed ahead of a hole (qp_ooo_place) comes by in
 * order: the FPDU there must be the Write that was placed (its ULPDU
 * Length and its DDP/RDMAP header, as recorded in rec), else
 * qp_placed_mismatch. Its bytes are not placed again, but FIG. 18A a-f
 * run again. The stream before it may have invalidated its STag (a Send
 * with Invalidate), and a Write the in-order stream refuses must still end
 * the stream. Its use is noted now, in stream order (a one-shot key ends
 * with its message).
 */
static OFL_NOINLINE enum ofl_err qp_rx_placed(struct ofl_qp *qp,
                                              const struct qp_rxd *d,
                                              const struct ofl_qp_ooo *rec)
{
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;
    struct ofl_term_cause cause;
    struct ofl_tpt_remote a;
    enum ofl_err err;
    uint32_t i;

    if (d->len != rec->ulpdu_len || d->len < OFL_DDP_TAGGED_HDR_LEN)
        return qp_placed_mismatch(qp, d);
    for (i = 0; i < OFL_DDP_TAGGED_HDR_LEN; i++)
        if (d->ulpdu[i] != rec->hdr[i])
            return qp_placed_mismatch(qp, d);
    err = ofl_rdmap_parse(d->ulpdu, d->len, &qp->msg, &cause);
    if (err != OFL_OK)
        return qp_fatal(qp, err, cause, d->ulpdu, d->len);
    qp_remote(qp, &a, h->stag, h->to, qp->msg.payload_len,
              OFL_TPT_REMOTE_WRITE);
    err = ofl_tpt_check_access(qp->attr.tpt, &a);
    if (err != OFL_OK)
        return qp_fatal(qp, err, ofl_tpt_term_cause(err, OFL_TPT_USE_PLACE),
                        d->ulpdu, d->len);
    (void)ofl_tpt_note_use(qp->attr.tpt, h->stag, h->last);
    qp_rx_tag_note(qp, h->stag, h->last, qp->msg.payload_len);
    return OFL_OK;
}

#if OFL_FAST_PATH
/*
 * One pass over the payload, receive side: may the FPDU at p (the stream
 * in order, between FPDUs) be delivered with its CRC compared after its
 * placement? Only an RDMA Write of at least OFL_QP_FUSE_MIN payload bytes
 * (a tagged ULPDU of opcode Write, read from its first two bytes), whole
 * in p, on a stream with CRC and no markers whose port has
 * dma_write_crc32c (QP_PATH_FUSE_RX), with nothing placed ahead of a hole
 * and no one-touch decision deferred (qp_advance then changes nothing but
 * RCV.NXT). Reads only: a refusal goes the usual way.
 */
static OFL_HOT_INLINE bool qp_rx_fusable(const struct ofl_qp *qp,
                                         const uint8_t *p, uint32_t len)
{
    uint32_t ulpdu;

    /* The stream's choice (qp_paths_choose: CRC, no markers, the hook),
     * then the opcode: every other FPDU leaves after a few tests. */
    if (!(qp->paths & QP_PATH_FUSE_RX) ||
        len < OFL_MPA_HDR_LEN + OFL_DDP_TAGGED_HDR_LEN + OFL_QP_FUSE_MIN ||
        (p[OFL_MPA_HDR_LEN + 1] & 0x0Fu) != OFL_RDMAP_WRITE ||
        (p[OFL_MPA_HDR_LEN] & 0x80u) == 0 || qp->ooo_count != 0 ||
        qp->seq.pending_count != 0)
        return false;
    ulpdu = ofl_load_be16(p);
    return ulpdu >= OFL_DDP_TAGGED_HDR_LEN + OFL_QP_FUSE_MIN &&
           ulpdu <= qp->rx.cap && mpa_content_len(ulpdu) <= len;
}

/*
 * The region kept for the tagged message's next FPDU (qp->rx_kept_*):
 * FIG. 18A a-f for n bytes at to through stag, when stag is the STag
 * whose check granted the region at the message's previous FPDU and the
 * region's generation is still the one seen then. The region's answer
 * to a-d and f (key, state, type, PD, rights, and the zero-based flag,
 * the ATT's kind and the table's policy that tpt_remote_hot also asks
 * for) changes only with its generation (qp_sq_whole_kept says why), so
 * only e, the bounds, is tested again, as tpt_remote_hot tests it (no
 * carry of to + n, to at or past va, the end within len). Returns the
 * region, with *off the access's offset in it, or NULL: the caller
 * checks in full. The kept region lives from one FPDU taken whole to the
 * next of the same message (qp_rx_tag_note drops it at any FPDU the
 * general path places and at every Last), so a generation cannot come
 * round under it without 2^31 registrations of the region's index
 * inside one message.
 */
static OFL_ALWAYS_INLINE const struct ofl_tpt_entry *
qp_rx_kept(const struct ofl_qp *qp, uint32_t stag, uint64_t to, uint32_t n,
           uint64_t *off)
{
    const struct ofl_tpt_entry *r = qp->rx_kept_region;

    if (r == NULL || qp->rx_kept_stag != stag || r->gen != qp->rx_kept_gen ||
        to > OFL_U64_MAX - n || to < r->va || to + n - r->va > r->len)
        return NULL;
    *off = to - r->va;
    return r;
}

/*
 * qp_rx_write_whole's translation of an access that does not lie in one
 * page, into sgl (its pieces set): through r, the region
 * qp_check_translate_all's fast check granted it on (tpt_remote_fast:
 * its offset there is to - r->va), or, when that check did not grant it
 * (r NULL), through qp_check_translate_all, which decides it. Its answer.
 * Out of line: the one-page case keeps its registers.
 */
static OFL_NOINLINE enum ofl_err
qp_rx_write_pieces(struct ofl_qp *qp, const struct ofl_tpt_entry *r,
                   uint32_t stag, uint64_t to, uint32_t n,
                   struct ofl_tpt_sgl *sgl)
{
    struct ofl_tpt_remote a;

    if (r != NULL)
        return tpt_translate_direct(qp->attr.tpt, r, to - r->va, to, n, sgl);
    qp_remote(qp, &a, stag, to, n, OFL_TPT_REMOTE_WRITE);
    return qp_check_translate_all(qp, &a, sgl);
}

/*
 * The receive side's fast path for an RDMA Write FPDU (issue 30: each
 * FPDU of a Write; the body of qp_rx_write_whole and qp_rx_write_segment,
 * QP_RX_FPDU_FORMS), on a stream of QP_PATH_WRITE_RX (no markers)
 * between FPDUs, with nothing placed ahead of a hole and no one-touch
 * invalidation pending (the caller tests these): an FPDU that lies whole
 * in p with its CRC right, a tagged RDMA Write header of both versions
 * and a payload (the caller gives one the fused hook takes, qp_rx_fusable,
 * that way first), through an STag that FIG. 18A a-f grant over the whole
 * payload with every page translated (one page: its address; more: the
 * QP's pieces), and not a Last segment through a one-touch entry. What
 * qp_rx_stream, qp_rx_ulpdu and qp_place_tagged do for it (mpa_rx_fast,
 * rdmap_parse's tagged header, the placement, RCV.NXT and the counters),
 * in their order, in one function. Sets *used to its wire length.
 * Returns QP_WHOLE_DECLINED, having changed nothing, for anything else:
 * the general path decides it (a refusal's checks run again there, so it
 * names the error). tests/check_fastpath.sh holds it to the general
 * path's answers.
 */
static OFL_ALWAYS_INLINE enum ofl_err qp_rx_write_fpdu(struct ofl_qp *qp,
                                                       const uint8_t *p,
                                                       uint32_t len,
                                                       uint32_t *used)
{
    const uint8_t *u = p + OFL_MPA_HDR_LEN;
    const struct ofl_tpt *tpt;
    const struct ofl_tpt_entry *r;
    struct ofl_tpt_sgl sgl;
    uint64_t to, off = 0, pa = 0;
    uint32_t ulpdu, wire, n, stag;
    bool one;
    bool last;
    bool kept;
    enum ofl_err err;

    /* rdmap_parse's tagged RDMA Write header (the caller saw the tagged
     * bit), then mpa_rx_fast's FPDU, whole here. */
    if ((u[0] & 0x83u) != (0x80u | OFL_DDP_VERSION) ||
        (u[1] >> 6) != OFL_RDMAP_VERSION ||
        (u[1] & 0x0Fu) != OFL_RDMAP_WRITE)
        return QP_WHOLE_DECLINED;
    ulpdu = ofl_load_be16(p);
    if (ulpdu <= OFL_DDP_TAGGED_HDR_LEN || ulpdu > qp->rx.cap)
        return QP_WHOLE_DECLINED;
    wire = mpa_content_len(ulpdu);
    n = ulpdu - OFL_DDP_TAGGED_HDR_LEN;
    if (wire > len)
        return QP_WHOLE_DECLINED;
    if (qp->rx.crc &&
        !mpa_crc_ok(port_crc_call_some(qp->rx.port, OFL_CRC32C_INIT, p,
                                       wire - OFL_MPA_CRC_LEN),
                    p + wire - OFL_MPA_CRC_LEN))
        return QP_WHOLE_DECLINED;
    /* The header's fields and the TPT read after the CRC's call, not held
     * across it (issue 30: clang kept them on the stack, 9 instructions
     * an FPDU); the STag in one word load (clang 14 took it byte by
     * byte, as its index and key are used apart: 15 instructions a
     * further FPDU, 13 a one-FPDU Write) */
    tpt = qp->attr.tpt;
    stag = ofl_load_be32_word(u + 2);
    last = (u[0] & 0x40u) != 0;
    /* FIG. 18A a-f over the payload (qp_check_translate_all's fast
     * check) and its translation: when it lies in one page, that page's
     * (qp_one_page, no SGL), else the pieces (as qp_check_translate_all
     * makes them); an access the fast check does not grant goes to
     * qp_check_translate_all, which decides it. Any answer but OFL_OK
     * (OFL_E_TPT_SGL_FULL too) declines. */
    to = ofl_load_be64(u + 6);
    sgl.piece = qp->piece;
    sgl.cap = OFL_QP_PIECES;
    r = qp_rx_kept(qp, stag, to, n, &off);
    kept = r != NULL;
    if (!kept)
        r = tpt_remote_fast(tpt, stag, qp->attr.pd, qp->attr.qpn, to, n,
                            OFL_TPT_REMOTE_WRITE, &sgl, &off);
    one = r != NULL && qp_one_page(tpt->att + r->att_base, r->page_shift,
                                   off + r->fpo, n, &pa);
    if (!one && qp_rx_write_pieces(qp, r, stag, to, n, &sgl) != OFL_OK)
        return QP_WHOLE_DECLINED;
    /* Table D's decision (qp_place_tagged) stays with the general path:
     * a Last segment through a one-touch entry is declined, after the
     * checks (they change nothing, and one that passed makes the entry
     * Valid with stag's key: ofl_tpt_query's answer would be OFL_OK, so
     * the flags are read without its tests). */
    if (last && (tpt_checked_flags(tpt, stag) & OFL_TPT_F_ONE_TOUCH))
        return QP_WHOLE_DECLINED;
    /* Taken: qp_rx_stream's accounting, the placement, RCV.NXT over the
     * whole FPDU. (qp_rx_stream moves RCV.NXT in two steps, to one past
     * the ULPDU's last byte before the ULPDU is handled, then over pad
     * and CRC, for the one-touch decision and the invalidations due at
     * that SN; neither happens here, so one step is the same.) */
    qp->stats.rx_bytes += wire;
    (void)mpa_rx_pass(&qp->rx, wire);
    qp->stats.rx_fpdus++;
    /* A later FPDU, not Last, through the region kept for it changes
     * nothing of what follows: the region was kept (below) at an FPDU
     * of the same STag that was not Last, after qp_rx_tag_note opened
     * the message through that STag, and nothing has ended it since
     * (qp_rx_tag_note and the reset of a connection drop the region
     * with it), so qp_rx_tag_note would only drop the region for it to
     * be kept again with the same STag and generation (issue 30: a
     * further FPDU 6 instructions with gcc, 11 with clang). */
    if (last || !kept) {
        qp_rx_tag_note(qp, stag, last, n);
        /* The region kept for the message's next FPDU (qp_rx_kept): one
         * that the fast check granted to its own STag (not a window's
         * region: a window's state moves no generation; never
         * zero-based, as tpt_remote_fast grants none, so offsets are
         * from va) */
        if (!last && r != NULL && r == &tpt->entry[ofl_stag_index(stag)]) {
            qp->rx_kept_region = r;
            qp->rx_kept_stag = stag;
            qp->rx_kept_gen = r->gen;
        }
    }
    /* Translated whole: qp_place_rest's first round is all of it (one
     * page: qp_place_pieces' one piece, the same port call). */
    err = one ? qp_port_write(qp, pa, u + OFL_DDP_TAGGED_HDR_LEN, n,
                              QP_DMA_WRITE | QP_DMA_PAGE)
              : qp_place_pieces(qp, &sgl, u + OFL_DDP_TAGGED_HDR_LEN,
                                QP_DMA_WRITE);
    if (err != OFL_OK) /* as qp_rx_write after qp_place_tagged */
        err = qp_fatal(qp, err, qp_local_cause(), u, ulpdu);
    else if (last)
        tpt_note_checked_last_use(qp->attr.tpt, stag);
    qp_advance_whole(qp, wire);
    *used = wire;
    return err;
}
#endif

#if OFL_FAST_PATH
static enum ofl_err qp_rx_stream(struct ofl_qp *qp, const uint8_t *p,
                                 uint32_t len);

/*
 * Each whole-FPDU receive in two out-of-line forms around one body: _whole
 * for qp_rx_stream's loop (its answer, *used set when taken, or
 * QP_WHOLE_DECLINED, nothing touched), _segment for a segment's first
 * FPDU from ofl_qp_input, which it hands over whole: a declined FPDU and
 * any bytes after a taken one go to qp_rx_stream (a call at its end, no
 * return through ofl_qp_input to make it; issue 30). Two forms, not a
 * flag: qp_rx_stream calls the first, so the second calling qp_rx_stream
 * would make a cycle.
 */
#define QP_RX_FPDU_FORMS(name, body)                                        \
    static OFL_NOINLINE enum ofl_err name##_whole(                          \
        struct ofl_qp *qp, const uint8_t *p, uint32_t len, uint32_t *used)  \
    {                                                                       \
        return body(qp, p, len, used);                                      \
    }                                                                       \
    static OFL_NOINLINE enum ofl_err name##_segment(                        \
        struct ofl_qp *qp, const uint8_t *p, uint32_t len)                  \
    {                                                                       \
        uint32_t w = 0;                                                     \
        enum ofl_err err = body(qp, p, len, &w);                            \
                                                                            \
        if (err == QP_WHOLE_DECLINED)                                       \
            return qp_rx_stream(qp, p, len);                                \
        if (err != OFL_OK || w == len)                                      \
            return err;                                                     \
        return qp_rx_stream(qp, p + w, len - w);                            \
    }
QP_RX_FPDU_FORMS(qp_rx_write, qp_rx_write_fpdu)
QP_RX_FPDU_FORMS(qp_rx_send, qp_rx_send_fpdu)

/* qp_rx_front's test: an FPDU at p between FPDUs (len bytes fed) that a
 * whole-FPDU receive may take: a stream without markers
 * (QP_PATH_WRITE_RX), nothing placed ahead of a hole, no one-touch
 * invalidation pending, and the bytes of a tagged header at least. */
static OFL_ALWAYS_INLINE bool qp_rx_front_ok(const struct ofl_qp *qp,
                                             uint32_t len)
{
    return (qp->paths & QP_PATH_WRITE_RX) &&
           len >= OFL_MPA_HDR_LEN + OFL_DDP_TAGGED_HDR_LEN &&
           qp->ooo_count == 0 && qp->seq.pending_count == 0;
}

/* An untagged FPDU that qp_rx_send_fpdu may take: a stream of
 * QP_PATH_WHOLE_RX and the bytes of an untagged header at least. */
static OFL_ALWAYS_INLINE bool qp_rx_front_send(const struct ofl_qp *qp,
                                               uint32_t len)
{
    return (qp->paths & QP_PATH_WHOLE_RX) &&
           len >= OFL_MPA_HDR_LEN + OFL_DDP_UNTAGGED_HDR_LEN;
}

/*
 * The stream's front for an FPDU that starts at p between FPDUs (len
 * bytes fed), when qp_rx_front_ok: an RDMA Write FPDU goes to
 * qp_rx_write_fpdu, an untagged one (qp_rx_front_send) to
 * qp_rx_send_fpdu (a whole Send). Their answer (*used set when taken), or
 * QP_WHOLE_DECLINED, nothing touched. Inlined into qp_rx_stream's loop.
 */
static OFL_HOT_INLINE enum ofl_err qp_rx_front(struct ofl_qp *qp,
                                               const uint8_t *p,
                                               uint32_t len,
                                               uint32_t *used)
{
    if (!qp_rx_front_ok(qp, len))
        return QP_WHOLE_DECLINED;
    if ((p[OFL_MPA_HDR_LEN] & 0x80u) != 0)
        return qp_rx_write_whole(qp, p, len, used);
    if (qp_rx_front_send(qp, len))
        return qp_rx_send_whole(qp, p, len, used);
    return QP_WHOLE_DECLINED;
}

/* qp_rx_front for a segment's first FPDU (ofl_qp_input), the segment
 * handed over whole: no round through qp_rx_stream for a segment of one
 * FPDU, and no return through ofl_qp_input for one of several. */
static OFL_HOT_INLINE enum ofl_err qp_rx_front_segment(struct ofl_qp *qp,
                                                       const uint8_t *p,
                                                       uint32_t len)
{
    if (!qp_rx_front_ok(qp, len))
        return qp_rx_stream(qp, p, len);
    if ((p[OFL_MPA_HDR_LEN] & 0x80u) != 0)
        return qp_rx_write_segment(qp, p, len);
    if (qp_rx_front_send(qp, len))
        return qp_rx_send_segment(qp, p, len);
    return qp_rx_stream(qp, p, len);
}
#endif

/*
 * In-order stream bytes through the MPA receiver. RCV.NXT moves to one
 * past each ULPDU's last byte before the ULPDU is handled (its DDP SN is
 * then NEXT), and over the pad and CRC after.
 */
static OFL_NOINLINE enum ofl_err
qp_rx_stream(struct ofl_qp *qp, const uint8_t *p, uint32_t len)
{
    while (len != 0) {
        struct ofl_mpa_fpdu f;
        struct qp_rxd d;
        struct ofl_qp_ooo rec;
        size_t used = 0;
        uint32_t head, start_sn;
        bool placed = false, passed = false;
        enum ofl_err err;

#if OFL_FAST_PATH
        /* ofl_mpa_rx_feed with its arguments known good: an FPDU that
         * starts here and lies whole in p goes mpa_rx_fast's way, as
         * there; mpa_rx_fast changes nothing when it declines, and sets
         * f whole when it delivers. An RDMA Write the fused hook can
         * place is delivered the same way with its CRC deferred: prefix
         * and DDP/RDMAP header summed now, the payload as it is placed
         * (qp_place_tagged), and any other way out compares it whole
         * first (qp_rx_defer_ok: qp_fatal, a fault hold, Table D row 3,
         * below). */
        const bool between =
            qp->rx.state == OFL_MPA_RX_LENGTH && !qp->rx.started;

        if (between && qp_rx_fusable(qp, p, len)) {
            used = mpa_rx_take(&qp->rx, p, ofl_load_be16(p), &f);
            err = OFL_OK;
            qp->rx_defer = p;
            qp->rx_defer_len = (uint32_t)used;
            qp->rx_crc = port_crc_call(
                qp->rx.port, OFL_CRC32C_INIT, p,
                OFL_MPA_HDR_LEN + OFL_DDP_TAGGED_HDR_LEN);
        } else {
            /* Any other RDMA Write FPDU, or a whole Send, whole in p:
             * qp_rx_front. An FPDU it took changed neither the QP's
             * state nor anything this loop looks at but p and len. */
            if (between) {
                uint32_t w = 0;

                err = qp_rx_front(qp, p, len, &w);
                if (err != QP_WHOLE_DECLINED) {
                    if (err != OFL_OK)
                        return err;
                    p += w;
                    len -= w;
                    continue;
                }
            }
            if (!between || !mpa_rx_fast(&qp->rx, p, len, &used, &f, &err))
                err = ofl_mpa_rx_feed(&qp->rx, p, len, &used, &f);
        }
#else
        err = ofl_mpa_rx_feed(&qp->rx, p, len, &used, &f);
#endif

        qp->stats.rx_bytes += used;
        if (err != OFL_OK) {
            qp_advance(qp, (uint32_t)used);
            return qp_fatal(qp, err, qp->rx.cause, NULL, 0);
        }
        if (f.ulpdu == NULL) {
            /* An FPDU still incomplete: the bytes may pass its ULPDU's
             * last byte (TCP cut it in the pad or CRC), so an invalidation
             * deferred to that SN waits until the FPDU was checked again
             * (qp_rx_placed) and is carried out after it. */
            qp_advance_only(qp, (uint32_t)used);
            return OFL_OK;
        }
        qp->stats.rx_fpdus++;
        d.ulpdu = f.ulpdu;
        d.len = f.len;
        d.sn = qp->rx_base + f.start +
               qp_ulpdu_wire_off(qp, f.start, f.len != 0 ? f.len - 1u : 0u);
        head = qp_min32(d.sn + 1u - qp->seq.nxt, (uint32_t)used);
        start_sn = qp->rx_base + f.start;
        if (qp->ooo_count != 0)
            placed = qp_ooo_take(qp, start_sn, qp->seq.nxt + (uint32_t)used,
                                 &rec, &passed);
        /* Placed ahead of a hole: checked again before the stream passes
         * it (a one-touch invalidation deferred to its SN fires then). */
        err = passed   ? qp_placed_mismatch(qp, &d)
              : placed ? qp_rx_placed(qp, &d, &rec)
                       : OFL_OK;
        qp_advance(qp, head);
        if (err == OFL_OK && !placed)
            err = qp_rx_ulpdu(qp, &d);
#if OFL_FAST_PATH
        /* A deferred CRC still waiting after the FPDU was handled is
         * compared now. Not reached today (every way out of a deferred
         * Write compares first: the placement, qp_fatal, a fault hold);
         * kept so that no new way can take an FPDU unchecked. */
        if (qp->rx_defer != NULL) {
            if (!qp_rx_defer_ok(qp))
                err = qp_fatal(qp, OFL_E_MPA_CRC, qp->rx.cause, NULL, 0);
            qp->rx_defer = NULL;
        }
#endif
        qp_advance(qp, (uint32_t)used - head);
        if (err != OFL_OK)
            return err;
        if (!qp_state_in(qp, QP_RX_OK))
            return OFL_OK; /* a Terminate arrived: nothing more is taken */
        p += used;
        len -= (uint32_t)used;
    }
    return OFL_OK;
}

/* ---- receiving ahead of a hole ------------------------------------------- */

/*
 * May an FPDU of stag (Last: last, DDP SN sn) be placed ahead of the hole?
 * Not through a one-shot key: an earlier message in the hole may spend it
 * (seed 001), and in stream order this one would then place nothing. For
 * a Last FPDU, Table D decides. A decision that places nothing is carried
 * out at once: row 3 expires the entry (seed 000 step 1828: a second
 * access ends the one touch), and the in-order stream then terminates at
 * the first FPDU through it that it finds invalid, which may be one that
 * row 5 placed. One that places (row 5) is recorded by the caller after
 * the placement.
 */
static OFL_NOINLINE bool qp_ooo_may_place(struct ofl_qp *qp, uint32_t stag,
                                          bool last, uint32_t sn)
{
    struct ofl_tpt_info info;
    struct ofl_seq_ot ot;

    if (ofl_tpt_query(qp->attr.tpt, stag, &info) != OFL_OK ||
        (info.flags & OFL_TPT_F_ONE_SHOT))
        return false;
    if (!last)
        return true;
    ot = ofl_seq_one_touch(true, (info.flags & OFL_TPT_F_ONE_TOUCH) != 0,
                           (info.flags & OFL_TPT_F_TOUCHED) != 0, sn,
                           qp->seq.nxt, qp->seq.wnd);
    if (!ot.place)
        (void)ofl_seq_one_touch_apply(&qp->seq, qp->attr.tpt, stag, true, sn,
                                      &ot);
    /* Row 5 with no pending slot to record it in (and no pair of an
     * earlier life to take over): placed untracked, the entry would stay
     * writable until the stream reached it, and a second FPDU to it could
     * land too. Not placed: the in-order stream places it (row 4). */
    if (ot.defer && qp->seq.pending_count >= qp->seq.pending_cap &&
        seq_pending_of(&qp->seq, stag) == NULL)
        return false;
    return ot.place;
}

/*
 * One complete FPDU found ahead of a hole: an RDMA Write whose header lies
 * whole before any marker is checked (CRC, markers, FIG. 18A a-f, Table D
 * with its DDP SN in the window: row 5 defers the invalidation) and placed
 * run by run between the markers. Anything else waits for the in-order
 * stream, which also reports any error.
 */
static OFL_NOINLINE void
qp_ooo_place(struct ofl_qp *qp, const struct ofl_qp_seg *seg,
             const struct ofl_mpa_found *f)
{
    uint32_t pos = seg->seq + f->off - qp->rx_base;
    const uint8_t *wire = seg->data + f->off, *p, *hdr;
    struct ofl_tpt_remote a;
    struct ofl_seq_ot ot;
    struct ofl_qp_ooo *rec;
    uint16_t ulen;
    uint32_t off, run, sn;
    const struct ofl_ddp_hdr *h = &qp->msg.ddp;

    if (qp->ooo_count >= qp->ooo_cap ||
        qp_ooo_has(qp, seg->seq + f->off) ||
        ofl_mpa_fpdu_check(&qp->rx, pos, wire, f->wire_len, &ulen) != OFL_OK)
        return;
    run = ofl_mpa_fpdu_piece(pos, true, wire, ulen, 0, &p);
    if (run < OFL_DDP_TAGGED_HDR_LEN || (p[0] & 0x80) == 0 ||
        ofl_rdmap_parse(p, OFL_DDP_TAGGED_HDR_LEN, &qp->msg, NULL) != OFL_OK ||
        h->opcode != OFL_RDMAP_WRITE || ulen == OFL_DDP_TAGGED_HDR_LEN)
        return;
    hdr = p; /* in seg: kept for the record */
    qp_remote(qp, &a, h->stag, h->to, ulen - OFL_DDP_TAGGED_HDR_LEN,
              OFL_TPT_REMOTE_WRITE);
    if (ofl_tpt_check_access(qp->attr.tpt, &a) != OFL_OK ||
        qp_tpt_rest_ok(qp, a.stag, a.to, a.len, 0) != OFL_OK)
        return; /* every page present, or nothing placed */
    sn = qp->rx_base + pos + qp_ulpdu_wire_off(qp, pos, ulen - 1u);
    /* Table D decides first; its row 5 is recorded only once every run
     * was placed, so a failed placement leaves the entry untouched (the
     * in-order stream places the FPDU then). */
    if (!qp_ooo_may_place(qp, h->stag, h->last, sn))
        return;
    for (off = OFL_DDP_TAGGED_HDR_LEN; off < ulen; off += run) {
        run = ofl_mpa_fpdu_piece(pos, true, wire, ulen, off, &p);
        if (run == 0 ||
            qp_dma_tpt(qp, a.stag, a.to + (off - OFL_DDP_TAGGED_HDR_LEN),
                       (uint8_t *)p, run, QP_DMA_WRITE) != OFL_OK)
            return;
    }
    /* Row 5 recorded (qp_ooo_may_place saw a slot for it); should the
     * record fail, the in-order stream handles the FPDU again. */
    if (h->last &&
        (ofl_seq_one_touch_apply(&qp->seq, qp->attr.tpt, h->stag, true, sn,
                                 &ot) != OFL_OK ||
         !ot.place))
        return;
    /* The use is noted when the stream reaches it (qp_rx_placed), which
     * first checks the FPDU there is this one: header and length kept. */
    rec = &qp->ooo[qp->ooo_count++];
    rec->sn = seg->seq + f->off;
    rec->ulpdu_len = ulen;
    ofl_copy(rec->hdr, hdr, OFL_DDP_TAGGED_HDR_LEN);
    qp->stats.ooo_placed++;
}

static OFL_NOINLINE enum ofl_err
qp_rx_ooo(struct ofl_qp *qp, const struct ofl_qp_seg *seg)
{
    struct ofl_mpa_segment s;
    struct ofl_mpa_found found[4];
    uint32_t n = 0, i;

    if (!qp->rx.markers || qp->ooo_cap == 0)
        return OFL_OK; /* no way to find FPDUs: TCP delivers them later */
    s.base = qp->rx_base;
    s.seq = seg->seq;
    s.data = seg->data;
    s.len = seg->len;
    if (ofl_mpa_locate_segment(&s, found, 4, &n) != OFL_OK)
        return OFL_OK;
    for (i = 0; i < n; i++)
        if (found[i].complete)
            qp_ooo_place(qp, seg, &found[i]);
    return OFL_OK;
}

static OFL_NOINLINE enum ofl_err
qp_iscsi_stream(struct ofl_qp *qp, const uint8_t *p, uint32_t len);

/* ofl_qp_input past its argument and state checks. Its own function in
 * a speed build, so that ofl_qp_input's test for the common segment (one
 * that starts at RCV.NXT between FPDUs) and its jump to the whole-FPDU
 * receive need no frame (issue 30: 12 instructions a segment with gcc, 11
 * with clang). */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err
#else
static OFL_ALWAYS_INLINE enum ofl_err
#endif
qp_input_rest(struct ofl_qp *qp, const struct ofl_qp_seg *seg)
{
    const uint8_t *p;
    uint32_t d, len;

    if (qp->fault.rx_held) { /* "Unpinned pages": the held FPDU first */
        enum ofl_err err = qp_fault_input_retry(qp);

        if (err != OFL_OK)
            return err;
    }
    p = seg->data;
    len = seg->len;
    d = seg->seq - qp->seq.nxt;
    if (d >= 0x80000000u) { /* starts behind RCV.NXT: drop what we have */
        uint32_t skip = qp->seq.nxt - seg->seq;

        if (skip >= len) {
            qp->stats.dup_bytes += len;
            return OFL_OK;
        }
        qp->stats.dup_bytes += skip;
        p += skip;
        len -= skip;
    } else if (d != 0) {
        if (d >= qp->seq.wnd || qp->attr.service != OFL_QP_SVC_IWARP)
            return OFL_OK; /* beyond the window, or nothing to place early */
        return qp_rx_ooo(qp, seg);
    }
    if (qp->attr.service == OFL_QP_SVC_ISCSI)
        return qp_iscsi_stream(qp, p, len);
#if OFL_FAST_PATH
    /* The segment's first FPDU by qp_rx_stream's front, here: a segment
     * of one whole FPDU (the common one) needs no round through
     * qp_rx_stream. */
    if (len != 0 && qp->rx.state == OFL_MPA_RX_LENGTH && !qp->rx.started &&
        !(qp->paths & QP_PATH_FUSE_RX))
        return qp_rx_front_segment(qp, p, len);
#endif
    return qp_rx_stream(qp, p, len);
}

/* ofl_qp_input's checks of its arguments and of the QP's state, then
 * qp_input_rest: out of line in a speed build, for every segment that
 * ofl_qp_input's test does not take to a whole-FPDU receive (so that it
 * sets no error code ahead of its tests for a shared return: issue 30,
 * 2 instructions a segment with clang). */
#if OFL_FAST_PATH
static OFL_NOINLINE enum ofl_err
#else
static OFL_ALWAYS_INLINE enum ofl_err
#endif
qp_input_checked(struct ofl_qp *qp, const struct ofl_qp_seg *seg)
{
    if (qp == NULL || seg == NULL || (seg->data == NULL && seg->len != 0))
        return OFL_E_ARG;
    if (!qp_state_in(qp, QP_RX_OK) || !qp->established)
        return OFL_E_QP_STATE;
    return qp_input_rest(qp, seg);
}

enum ofl_err ofl_qp_input(struct ofl_qp *qp, const struct ofl_qp_seg *seg)
{
#if OFL_FAST_PATH
    /* The common segment, one FPDU at RCV.NXT (no FPDU held: no retry,
     * nothing skipped, nothing placed early) on an RDMA stream, taken to
     * a whole-FPDU receive after one test, and any other segment at
     * RCV.NXT of an RDMA stream straight to qp_rx_stream: the argument
     * and state checks first (a segment they refuse is not the common
     * one, and qp_input_checked makes them again and names the error),
     * then qp_input_rest's test and qp_rx_front_segment's merged (the two
     * path bits in one, and len != 0 in the length the FPDU needs; issue
     * 30: 3 instructions with clang). The length is an untagged header's
     * for both forms (qp_rx_front_send's test, once): a Write FPDU lies
     * in no fewer bytes (qp_rx_write_fpdu wants a payload and the CRC),
     * so qp_rx_write_segment would hand a shorter segment to qp_rx_stream
     * as this does; and nothing placed ahead and no invalidation pending
     * in one test (issue 30: 3 instructions with gcc, 2 with clang).
     * Every other segment goes to qp_input_checked, whose answer comes by
     * a tail call: no error code is set ahead of these tests for a shared
     * return (issue 30: 2 instructions a segment with clang). */
    if (qp != NULL && seg != NULL && seg->data != NULL &&
        qp_state_in(qp, QP_RX_OK) && qp->established &&
        !qp->fault.rx_held && seg->seq == qp->seq.nxt &&
        qp->attr.service != OFL_QP_SVC_ISCSI) {
        if (qp->rx.state == OFL_MPA_RX_LENGTH && !qp->rx.started &&
            (qp->paths & (QP_PATH_FUSE_RX | QP_PATH_WRITE_RX)) ==
                QP_PATH_WRITE_RX &&
            seg->len >= OFL_MPA_HDR_LEN + OFL_DDP_UNTAGGED_HDR_LEN &&
            (qp->ooo_count | qp->seq.pending_count) == 0) {
            if ((seg->data[OFL_MPA_HDR_LEN] & 0x80u) != 0)
                return qp_rx_write_segment(qp, seg->data, seg->len);
            if (qp->paths & QP_PATH_WHOLE_RX) /* qp_rx_front_send */
                return qp_rx_send_segment(qp, seg->data, seg->len);
        }
        return qp_rx_stream(qp, seg->data, seg->len);
    }
#endif
    return qp_input_checked(qp, seg);
}

/* ---- iSCSI 1.0 (seed 000 FIG. 17A/17B; RFC 3720 §10) --------------------- */

#define ISCSI_OP_NOP_OUT 0x00
#define ISCSI_OP_DATA_OUT 0x05
#define ISCSI_OP_NOP_IN 0x20
#define ISCSI_OP_SCSI_RESP 0x21
#define ISCSI_OP_TASK_MGMT_RESP 0x22
#define ISCSI_OP_LOGIN_RESP 0x23
#define ISCSI_OP_TEXT_RESP 0x24
#define ISCSI_OP_DATA_IN 0x25
#define ISCSI_OP_LOGOUT_RESP 0x26
#define ISCSI_OP_R2T 0x31
#define ISCSI_OP_ASYNC 0x32
#define ISCSI_OP_REJECT 0x3F
#define ISCSI_F_FINAL 0x80
#define ISCSI_F_READ 0x40   /* SCSI Command: R */
#define ISCSI_F_WRITE 0x20  /* SCSI Command: W */
#define ISCSI_F_STATUS 0x01 /* Data-In: S */
#define ISCSI_KIND_READ 1u  /* command kinds kept in the entry's VA */
#define ISCSI_KIND_WRITE 2u

/* What the data segment of the PDU being received is for. */
#define IRX_DROP 0  /* nothing (or no data) */
#define IRX_PLACE 1 /* Data-In: into the command's buffers */
#define IRX_RQ 2    /* the whole PDU to a receive WQE */
#define IRX_RESP 3  /* a response: to a receive WQE, then deregister */

static void qp_store_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static uint32_t qp_load_be24(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

/* Transmits an iSCSI PDU built in tx_buf: BHS + n data bytes + pad. */
static enum ofl_err qp_iscsi_xmit(struct ofl_qp *qp, uint32_t n)
{
    uint32_t pad = (0u - n) & 3u;

    ofl_fill(qp->tx_buf + OFL_ISCSI_BHS_LEN + n, 0, pad);
    return qp_xmit(qp, qp->tx_buf, OFL_ISCSI_BHS_LEN + n + pad, 0);
}

/*
 * The SCSI Command of an ISCSI_CMD WQE (FIG. 17A step 1736): the data
 * buffers become an iSCSI TPT entry on the WQE's STag, owned by this QP
 * (its VA holds the command kind and ID, access by direction); a failure
 * takes the registration error option. Then the Command PDU goes out with
 * the STag as its Initiator Task Tag.
 */
static OFL_NOINLINE enum ofl_err qp_iscsi_cmd(struct ofl_qp *qp)
{
    const uint8_t *w = qp->cur.hdr, *bhs = qp->cur.hdr + QPW_EXT;
    uint32_t stag = ofl_load_le32(w + QPW_STAG);
    enum ofl_err err;

    if (qp->cur.phase == 0) {
        struct ofl_tpt_region_desc d;
        uint64_t kind = 0;

        ofl_fill(&d, 0, sizeof(d));
        d.access = OFL_TPT_LOCAL_READ | OFL_TPT_LOCAL_WRITE;
        if (bhs[1] & ISCSI_F_READ) {
            kind |= ISCSI_KIND_READ;
            d.access |= OFL_TPT_REMOTE_WRITE; /* Data-In writes */
        }
        if (bhs[1] & ISCSI_F_WRITE) {
            kind |= ISCSI_KIND_WRITE;
            d.access |= OFL_TPT_REMOTE_READ; /* R2T reads */
        }
        d.va = (kind << 32) | (uint32_t)ofl_load_le64(w + QPW_TO);
        if (qp->cur.num_sge == 0) {
            /* No data: an entry of no bytes, the ITT alone. */
            d.page_shift = OFL_TPT_PAGE_SHIFT_MIN;
            err = OFL_OK;
        } else {
            d.att_base = ofl_load_le32(w + QPW_RSTAG);
            d.page_shift = (uint8_t)ofl_load_le32(w + QPW_B32);
            err = qp_phys_pages(qp, stag, &d, true);
        }
        if (err == OFL_OK)
            err = ofl_tpt_register_iscsi(qp->attr.tpt, stag, qp->attr.pd,
                                         qp->attr.qpn, &d);
        if (err != OFL_OK)
            return qp_sq_reg_fail(qp, err);
        qp->cur.phase = 1;
    }
    err = qp_tx_open(qp);
    if (err != OFL_OK)
        return err;
    ofl_copy(qp->tx_buf, bhs, OFL_ISCSI_BHS_LEN);
    ofl_store_be32(qp->tx_buf + 16, stag);
    ofl_store_be32(qp->tx_buf + 28, qp->iscsi_exp_statsn);
    qp_store_be24(qp->tx_buf + 5, 0);
    err = qp_iscsi_xmit(qp, 0);
    if (err != OFL_OK)
        return err;
    qp->cur.sent = 1;
    qp_cur_done(qp, OFL_WC_SUCCESS);
    return OFL_OK;
}

/* Any other initiator PDU: the consumer's BHS with its data segment. */
static OFL_NOINLINE enum ofl_err qp_iscsi_pdu(struct ofl_qp *qp, bool *finished)
{
    uint32_t n = qp->cur.total, si = 0, so = 0;
    enum ofl_err err;

    *finished = false;
    if (!qp->cur.begun) {
        err = qp_sges_check(qp, OFL_TPT_LOCAL_READ);
        if (err != OFL_OK)
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        if (n > qp->tx_cap - OFL_ISCSI_BHS_LEN - 3u)
            return qp_sq_fail(qp, OFL_E_SIZE, OFL_WC_LOC_LEN_ERR);
        qp->cur.begun = 1;
    }
    err = qp_tx_open(qp);
    if (err != OFL_OK)
        return err;
    ofl_copy(qp->tx_buf, qp->cur.hdr + QPW_EXT, OFL_ISCSI_BHS_LEN);
    qp_store_be24(qp->tx_buf + 5, n);
    ofl_store_be32(qp->tx_buf + 28, qp->iscsi_exp_statsn);
    err = qp_gather(qp, qp->tx_buf + OFL_ISCSI_BHS_LEN, n, &si, &so, 0u);
    if (err == OFL_E_TPT_PAGE_FAULT && qp_sq_hold(qp))
        return err; /* waits, nothing sent: built again on the retry */
    if (err != OFL_OK)
        return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
    err = qp_iscsi_xmit(qp, n);
    if (err == OFL_OK) {
        qp->cur.sent = 1;
        *finished = true;
    }
    return err;
}

/* An access to an iSCSI task's buffers, to check (qp_iscsi_check). In one
 * struct so that the check keeps a short argument list (no stack
 * arguments, so static stack frames with kernel flags). */
struct qp_iscsi_task {
    uint64_t off;
    uint32_t itt, len;
    uint32_t cmd_id; /* out: the command ID */
    uint8_t need;    /* OFL_TPT_REMOTE_READ (R2T), _WRITE (Data-In), 0 */
};

static enum ofl_err qp_iscsi_check(const struct ofl_qp *qp,
                                   struct qp_iscsi_task *k);

/* One Data-Out PDU answering the oldest R2T (RFC 3720 §10.7): up to the
 * target's MaxRecvDataSegmentLength, read from the command's buffers. The
 * Initiator Task Tag is checked again (FIG. 17B a-g) as each PDU is read,
 * as a Read Response's source is: the consumer may have deregistered the
 * entry, or registered another in its place, since the R2T came. */
static OFL_NOINLINE enum ofl_err
qp_iscsi_data_out(struct ofl_qp *qp, struct ofl_qp_inreq *r)
{
    uint8_t *b;
    uint32_t n = qp_min32(r->len - r->done, qp->attr.iscsi_max_data);
    bool last = r->done + n == r->len;
    struct qp_iscsi_task k;
    enum ofl_err err = qp_tx_open(qp);

    if (err != OFL_OK)
        return err; /* r->done unmoved: built again */
    b = qp->tx_buf;
    ofl_fill(b, 0, OFL_ISCSI_BHS_LEN);
    b[0] = ISCSI_OP_DATA_OUT;
    b[1] = last ? ISCSI_F_FINAL : 0;
    qp_store_be24(b + 5, n);
    ofl_store_be64(b + 8, r->to_a);           /* LUN */
    ofl_store_be32(b + 16, r->stag_b);        /* Initiator Task Tag */
    ofl_store_be32(b + 20, r->stag_a);        /* Target Transfer Tag */
    ofl_store_be32(b + 28, qp->iscsi_exp_statsn);
    ofl_store_be32(b + 36, r->id);            /* DataSN */
    ofl_store_be32(b + 40, (uint32_t)(r->to_b + r->done)); /* offset */
    k.itt = r->stag_b;
    k.off = r->to_b + r->done;
    k.len = n;
    k.cmd_id = 0;
    k.need = OFL_TPT_REMOTE_READ;
    err = qp_iscsi_check(qp, &k);
    if (err == OFL_OK)
        err = qp_dma_tpt(qp, r->stag_b, r->to_b + r->done,
                         b + OFL_ISCSI_BHS_LEN, n, 0u);
    if (err != OFL_OK) {
        uint64_t va;

        /* Unpinned write data: nothing of the PDU was sent, r->done
         * unmoved; it is built again on the retry (as a Read's source). */
        if (err == OFL_E_TPT_PAGE_FAULT && qp->attr.fault_wait &&
            qp_fault_scan(qp, r->stag_b, k.off, n, &va) &&
            qp_fault_hold(qp, OFL_QP_FAULT_READ_SRC, r->stag_b, va))
            return err;
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    err = qp_iscsi_xmit(qp, n);
    if (err != OFL_OK)
        return err;
    r->done += n;
    r->id++;
    if (last)
        qp_irq_pop(qp);
    return OFL_OK;
}

/*
 * FIG. 17B checks a-g of an Initiator Task Tag: a-f through the TPT
 * (ofl_tpt_check_iscsi), g the command kind kept in the entry's VA. g is
 * about the direction of a data transfer, so a SCSI Response (need 0)
 * passes it whatever the kind: a command without data has none.
 * k->cmd_id receives the command ID.
 */
static enum ofl_err qp_iscsi_check(const struct ofl_qp *qp,
                                   struct qp_iscsi_task *k)
{
    struct ofl_tpt_info info;
    uint32_t kind = k->need == OFL_TPT_REMOTE_READ ? ISCSI_KIND_WRITE
                                                   : ISCSI_KIND_READ;
    struct ofl_tpt_iscsi_use u;
    enum ofl_err err;

    u.offset = k->off;
    u.len = k->len;
    u.pd = qp->attr.pd;
    u.qp = qp->attr.qpn;
    u.need = k->need;
    err = ofl_tpt_check_iscsi_use(qp->attr.tpt, k->itt, &u);
    if (err == OFL_OK)
        err = ofl_tpt_query(qp->attr.tpt, k->itt, &info);
    if (err != OFL_OK)
        return err;
    if (k->need != 0 && ((uint32_t)(info.va >> 32) & kind) == 0)
        return OFL_E_QP_ISCSI_TASK; /* g: R2T for a read, Data-In for a write */
    k->cmd_id = (uint32_t)info.va;
    return OFL_OK;
}

/* qp_iscsi_check of the ITT of the PDU being received; *cmd_id receives
 * the command ID it names. */
static enum ofl_err qp_iscsi_rx_task(const struct ofl_qp *qp, uint64_t off,
                                     uint32_t len, uint8_t need,
                                     uint32_t *cmd_id)
{
    struct qp_iscsi_task k;
    enum ofl_err err;

    k.itt = qp->irx.itt;
    k.off = off;
    k.len = len;
    k.cmd_id = 0;
    k.need = need;
    err = qp_iscsi_check(qp, &k);
    *cmd_id = k.cmd_id;
    return err;
}

/* qp_iscsi_check of the PDU in rx_buf (its ITT); the command ID goes to
 * the receive state. */
static enum ofl_err qp_iscsi_rx_check(struct ofl_qp *qp, uint64_t off,
                                      uint32_t len, uint8_t need)
{
    uint32_t id;
    enum ofl_err err = qp_iscsi_rx_task(qp, off, len, need, &id);

    if (err == OFL_OK)
        qp->irx.cmd_id = id;
    return err;
}

static OFL_NOINLINE bool qp_iscsi_fault_hold(struct ofl_qp *qp, bool rq,
                                             uint64_t to, uint32_t n,
                                             bool more);

/* A receive WQE for the PDU in rx_buf: fetched, and the header copied to
 * its start. Unpinned pages (hold: not looked at already by
 * qp_iscsi_rq_peek): a page of it not present makes the header wait
 * (OFL_E_TPT_PAGE_FAULT, qp->fault.in_wait): nothing placed, the WQE not
 * consumed (fetched again on the retry). */
static enum ofl_err qp_iscsi_to_rq(struct ofl_qp *qp, bool hold)
{
    uint8_t status;
    enum ofl_err err;

    if (qp->rq.ci == qp->rq.db_pi)
        return qp_fatal(qp, OFL_E_QP_RQ_EMPTY, qp_local_cause(), NULL, 0);
    err = qp_rq_fetch(qp, &status);
    if (err != OFL_OK) {
        qp_rcur_fail(qp, status);
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    qp->rcur.got = qp_min32(qp->irx.hdr_len, qp->rcur.total);
    if (hold && qp->attr.fault_wait &&
        qp_iscsi_fault_hold(qp, true, 0, qp->rcur.got, false)) {
        qp->rcur.active = 0;
        return OFL_E_TPT_PAGE_FAULT;
    }
    err = qp_scatter(qp, 0, qp->rx_buf, qp->rcur.got, false);
    if (err != OFL_OK) { /* as for the data segment (qp_iscsi_data) */
        qp_rcur_fail(qp, (uint8_t)ofl_tpt_wc_status(err));
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    return OFL_OK;
}

/*
 * Whether a target PDU advances StatSN (RFC 3720 §3.2.2.2): every response
 * and status does; Data-In only with status (S, and F); a NOP-In only when it
 * answers a ping (ITT not 0xffffffff, §10.19); an R2T never (§10.8).
 * ExpStatSN, which the engine writes into what it sends, follows it.
 */
static bool qp_iscsi_has_status(uint8_t opcode, const uint8_t *bhs)
{
    switch (opcode) {
    case ISCSI_OP_SCSI_RESP:
    case ISCSI_OP_TASK_MGMT_RESP:
    case ISCSI_OP_LOGIN_RESP:
    case ISCSI_OP_TEXT_RESP:
    case ISCSI_OP_LOGOUT_RESP:
    case ISCSI_OP_ASYNC:
    case ISCSI_OP_REJECT:
        return true;
    case ISCSI_OP_DATA_IN: /* S only with F (RFC 3720 §10.7) */
        return (bhs[1] & (ISCSI_F_STATUS | ISCSI_F_FINAL)) ==
               (ISCSI_F_STATUS | ISCSI_F_FINAL);
    case ISCSI_OP_NOP_IN:
        return ofl_load_be32(bhs + 16) != 0xFFFFFFFFu;
    default:
        return false;
    }
}

/* The BHS (and AHS) of a PDU is in rx_buf: what to do with it. */
static enum ofl_err qp_iscsi_header_mode(struct ofl_qp *qp)
{
    struct ofl_qp_iscsi_rx *x = &qp->irx;
    const uint8_t *b = qp->rx_buf;
    enum ofl_err err = OFL_OK;

    x->opcode = b[0] & 0x3Fu;
    x->data_len = qp_load_be24(b + 5);
    x->itt = ofl_load_be32(b + 16);
    x->final = 0;
    x->mode = IRX_RQ;
    switch (x->opcode) {
    case ISCSI_OP_DATA_IN:
        x->offset = ofl_load_be32(b + 40);
        x->final = (b[1] & ISCSI_F_STATUS) != 0;
        /* RFC 3720 §10.7: S only with F; else not for placement */
        if ((!x->final || (b[1] & ISCSI_F_FINAL)) &&
            qp_iscsi_rx_check(qp, x->offset, x->data_len,
                              OFL_TPT_REMOTE_WRITE) == OFL_OK) {
            x->mode = IRX_PLACE;
            return OFL_OK;
        }
        break;
    case ISCSI_OP_R2T:
        /* RFC 3720 §10.8: a Desired Data Transfer Length of 0 is not
         * allowed; handed over like a failed check */
        if (qp->irq_count < qp->attr.ird && ofl_load_be32(b + 44) != 0 &&
            (uint64_t)ofl_load_be32(b + 40) + ofl_load_be32(b + 44) <=
                (uint64_t)1 << 32 && /* Data-Out offsets have 32 bits */
            qp_iscsi_rx_check(qp, ofl_load_be32(b + 40),
                              ofl_load_be32(b + 44),
                              OFL_TPT_REMOTE_READ) == OFL_OK) {
            struct ofl_qp_inreq *r = qp_irq_push(qp, OFL_QP_IN_R2T);

            r->to_a = ofl_load_be64(b + 8);
            r->stag_b = x->itt;
            r->stag_a = ofl_load_be32(b + 20);
            r->to_b = ofl_load_be32(b + 40);
            r->len = ofl_load_be32(b + 44);
            x->mode = IRX_DROP; /* answered by Data-Out, nothing to hand over */
            return OFL_OK;
        }
        break;
    case ISCSI_OP_SCSI_RESP:
        if (qp_iscsi_rx_check(qp, 0, 0, 0) != OFL_OK) {
            x->mode = IRX_DROP; /* FIG. 17A step 1768: dropped */
            return OFL_OK;
        }
        x->mode = IRX_RESP;
        break;
    default:
        break;
    }
    if (x->mode == IRX_RQ)
        x->cmd_id = 0;
    err = qp_iscsi_to_rq(qp, true);
    if (err != OFL_OK)
        return err;
    return OFL_OK;
}

/*
 * A target PDU is taken: ExpStatSN follows its StatSN when it carries
 * status (RFC 3720 §3.2.2.2). A PDU dropped (a SCSI Response whose ITT
 * fails FIG. 17B) advances nothing, and ExpStatSN never moves back (serial
 * arithmetic, RFC 1982) once a StatSN was taken.
 */
static enum ofl_err qp_iscsi_header(struct ofl_qp *qp)
{
    const uint8_t *b = qp->rx_buf;
    bool status = qp_iscsi_has_status(b[0] & 0x3Fu, b);
    uint32_t next = ofl_load_be32(b + 24) + 1u;
    enum ofl_err err = qp_iscsi_header_mode(qp);

    if (err == OFL_OK && status && qp->irx.mode != IRX_DROP &&
        (!qp->iscsi_statsn_known ||
         (int32_t)(next - qp->iscsi_exp_statsn) > 0)) {
        qp->iscsi_exp_statsn = next;
        qp->iscsi_statsn_known = 1;
    }
    return err;
}

/* The ITT of the PDU being received checked again (FIG. 17B a-g) and still
 * naming the command its header named (command ID): the consumer may have
 * ended the command, or registered another on its tag, while the PDU
 * arrived in pieces. */
static enum ofl_err qp_iscsi_same_task(const struct ofl_qp *qp, uint64_t off,
                                       uint32_t len, uint8_t need)
{
    uint32_t id;
    enum ofl_err err = qp_iscsi_rx_task(qp, off, len, need, &id);

    if (err == OFL_OK && id != qp->irx.cmd_id)
        err = OFL_E_QP_ISCSI_TASK;
    return err;
}

/*
 * Unpinned pages: Data-In bytes for n bytes at offset to of the task
 * (checked), or (rq) PDU bytes for n bytes at offset to of qp->rcur's
 * receive buffer (fetched, checked), under OFL_QP_FAULT_WAIT. Every page
 * is translated before a byte is placed; a page not present makes the
 * piece wait
 * (OFL_QP_FAULT_ISCSI_IN): nothing placed and nothing taken, the stream
 * stops at the piece (RCV.NXT before it) and the bytes from there on are
 * fed again. true: it waits; false (no page missing, or given up): the
 * placement goes on, and the record of an earlier wait ends, unless more
 * (another check of the same piece follows: it ends it, so that a wait
 * of the piece on either is raised once and a give-up kept for it).
 */
static OFL_NOINLINE bool qp_iscsi_fault_hold(struct ofl_qp *qp, bool rq,
                                             uint64_t to, uint32_t n,
                                             bool more)
{
    uint32_t stag = qp->irx.itt;
    uint64_t va;
    bool missing;

    qp->fault.in_wait = 0;
    missing = rq ? qp_rq_fault_scan(qp, (uint32_t)to, n, &stag, &va)
                 : qp_fault_scan(qp, stag, to, n, &va);
    if (missing && qp_fault_hold(qp, OFL_QP_FAULT_ISCSI_IN, stag, va))
        return true;
    if (!more && qp->fault.where != OFL_QP_FAULT_NONE)
        qp_fault_settle(qp);
    return false;
}

/*
 * Unpinned pages: the last piece of a Data-In with status is about to be
 * placed; the header it hands to a receive WQE at its end (qp_iscsi_end)
 * is looked at first, so that a wait there places nothing of the piece:
 * the WQE fetched to be scanned, not consumed. true: the piece waits.
 * Given up, the piece is placed and the end fails as FAIL would (the end
 * does not look again). data: the piece has data bytes, whose own check
 * (the task's page) follows.
 */
static OFL_NOINLINE bool qp_iscsi_rq_peek(struct ofl_qp *qp, bool data)
{
    uint8_t status;
    bool waits = false;

    if (qp->rq.ci == qp->rq.db_pi)
        return false;
    if (qp_rq_fetch(qp, &status) == OFL_OK)
        waits = qp_iscsi_fault_hold(
            qp, true, 0, qp_min32(qp->irx.hdr_len, qp->rcur.total), data);
    qp->rcur.active = 0;
    return waits;
}

/* Data segment bytes [at, at + n) of the PDU being received. */
static enum ofl_err qp_iscsi_data(struct ofl_qp *qp, const uint8_t *p,
                                  uint32_t at, uint32_t n)
{
    struct ofl_qp_iscsi_rx *x = &qp->irx;
    enum ofl_err err;

    if (n == 0 || x->mode == IRX_DROP)
        return OFL_OK;
    if (x->mode == IRX_PLACE) {
        /* Each piece through the ITT checked again, as each Data-Out is
         * (a failure breaks the stream). */
        err = qp_iscsi_same_task(qp, (uint64_t)x->offset + at, n,
                                 OFL_TPT_REMOTE_WRITE);
        if (err == OFL_OK && qp->attr.fault_wait &&
            qp_iscsi_fault_hold(qp, false, (uint64_t)x->offset + at, n,
                                false))
            return OFL_E_TPT_PAGE_FAULT;
        if (err == OFL_OK)
            err = qp_dma_tpt(qp, x->itt, (uint64_t)x->offset + at,
                             (uint8_t *)p, n, QP_DMA_WRITE);
        return err == OFL_OK ? OFL_OK
                             : qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    /* To the receive WQE behind the header; what does not fit is cut. */
    at += x->hdr_len;
    if (at >= qp->rcur.total)
        return OFL_OK;
    n = qp_min32(n, qp->rcur.total - at);
    if (qp->attr.fault_wait && qp_iscsi_fault_hold(qp, true, at, n, false))
        return OFL_E_TPT_PAGE_FAULT; /* the WQE stays current */
    err = qp_scatter(qp, at, p, n, false);
    if (err != OFL_OK) {
        qp_rcur_fail(qp, (uint8_t)ofl_tpt_wc_status(err));
        return qp_fatal(qp, err, qp_local_cause(), NULL, 0);
    }
    qp->rcur.got = at + n;
    return OFL_OK;
}

/* The command itt has ended: its R2Ts still queued are dropped (no
 * Data-Out goes for a finished task), the others keep their order. Bounded
 * by irq_count <= ird. */
static void qp_iscsi_drop_r2ts(struct ofl_qp *qp, uint32_t itt)
{
    const uint32_t mask = qp->attr.ird - 1u, n = qp->irq_count;
    uint32_t i, kept = 0;

    for (i = 0; i < n; i++) {
        const struct ofl_qp_inreq *r = &qp->irq[(qp->irq_head + i) & mask];

        if (r->kind == OFL_QP_IN_R2T && r->stag_b == itt)
            continue;
        if (kept != i)
            ofl_copy(&qp->irq[(qp->irq_head + kept) & mask], r, sizeof(*r));
        kept++;
    }
    qp->irq_count = kept;
}

/* The PDU is complete: completions, and the end of a command (FIG. 17A
 * step 1768: the entry deregistered, its queued R2Ts dropped, the response
 * with the command ID). */
static enum ofl_err qp_iscsi_end(struct ofl_qp *qp)
{
    struct ofl_qp_iscsi_rx *x = &qp->irx;
    uint32_t total = x->hdr_len + x->data_len;
    struct ofl_cqe *e;
    uint8_t opcode = OFL_QP_OP_ISCSI_RECV, flags = 0;
    enum ofl_err err;

    if (x->mode == IRX_DROP)
        return OFL_OK;
    if (x->mode == IRX_PLACE) {
        if (!x->final)
            return OFL_OK;
        /* Data-In with status ends the command like a response (its
         * receive WQE looked at before its last piece was placed, when it
         * has data). */
        err = qp_iscsi_to_rq(qp, x->data_len == 0);
        if (err != OFL_OK)
            return err;
        total = x->hdr_len;
        x->mode = IRX_RESP;
    }
    if (x->mode == IRX_RESP && qp_iscsi_same_task(qp, 0, 0, 0) != OFL_OK) {
        /* The command ended (or its tag names another) while its response
         * arrived: handed over flagged, the tag left to its new owner. */
        x->mode = IRX_RQ;
        x->cmd_id = 0;
        flags = OFL_CQE_ISCSI_CHECK;
    }
    if (x->mode == IRX_RESP) {
        opcode = OFL_QP_OP_ISCSI_RESP;
        (void)ofl_tpt_dereg(qp->attr.tpt, x->itt, qp->attr.pd);
        qp_iscsi_drop_r2ts(qp, x->itt);
    } else if (x->opcode == ISCSI_OP_DATA_IN || x->opcode == ISCSI_OP_R2T) {
        flags = OFL_CQE_ISCSI_CHECK; /* failed FIG. 17B a-g */
    }
    qp->rcur.active = 0;
    e = qp_rq_complete(qp, qp->rcur.wr_id, opcode,
                       total > qp->rcur.total ? OFL_WC_LOC_LEN_ERR
                                              : OFL_WC_SUCCESS);
    if (e != NULL) {
        e->byte_len = qp_min32(total, qp->rcur.total);
        e->imm = x->cmd_id;
        e->flags = flags;
        if (x->mode == IRX_RESP)
            e->flags |= OFL_CQE_IMM;
        qp_cqe_commit(qp->attr.recv_cq, e);
    }
    return OFL_OK;
}

/* The in-order iSCSI byte stream: BHS, AHS, data segment and pad of one PDU
 * after another (no digests). Bounded by len. */
static OFL_NOINLINE enum ofl_err
qp_iscsi_stream(struct ofl_qp *qp, const uint8_t *p, uint32_t len)
{
    struct ofl_qp_iscsi_rx *x = &qp->irx;
    enum ofl_err err;

    while (len != 0) {
        uint32_t k;

        if (x->hdr_len == 0 || x->got < x->hdr_len) {
            const uint32_t was = x->got;

            k = qp_min32(len, (x->hdr_len == 0 ? OFL_ISCSI_BHS_LEN
                                               : x->hdr_len) - x->got);
            ofl_copy(qp->rx_buf + x->got, p, k);
            x->got += k;
            if (x->hdr_len == 0 && x->got == OFL_ISCSI_BHS_LEN)
                x->hdr_len = OFL_ISCSI_BHS_LEN + 4u * qp->rx_buf[4];
            err = OFL_OK;
            if (x->got == x->hdr_len) {
                bool ends;

                x->data_got = 0;
                err = qp_iscsi_header(qp);
                ends = err == OFL_OK && x->data_len == 0;
                if (ends)
                    err = qp_iscsi_end(qp);
                if (err == OFL_E_TPT_PAGE_FAULT && qp->fault.in_wait) {
                    /* its receive WQE waits: these header bytes not
                     * taken (RCV.NXT), read again when fed again */
                    x->got = was;
                    if (was < OFL_ISCSI_BHS_LEN)
                        x->hdr_len = 0;
                    return err;
                }
                if (ends)
                    x->got = x->hdr_len = 0;
            }
        } else {
            uint32_t padded = (x->data_len + 3u) & ~3u;
            uint32_t at = x->data_got, dn;

            k = qp_min32(len, padded - at);
            dn = at < x->data_len ? qp_min32(k, x->data_len - at) : 0;
            if (x->mode == IRX_PLACE && x->final && at + k == padded &&
                qp->attr.fault_wait && qp_iscsi_rq_peek(qp, dn != 0))
                return OFL_E_TPT_PAGE_FAULT; /* not taken (RCV.NXT) */
            err = qp_iscsi_data(qp, p, at, dn);
            if (err == OFL_E_TPT_PAGE_FAULT && qp->fault.in_wait)
                return err; /* waits: the piece not taken (RCV.NXT) */
            x->data_got += k;
            if (err == OFL_OK && x->data_got == padded) {
                err = qp_iscsi_end(qp);
                x->got = x->hdr_len = 0;
            }
        }
        qp_advance(qp, k);
        qp->stats.rx_bytes += k;
        if (err != OFL_OK)
            return err;
        if (!qp_state_in(qp, QP_RX_OK))
            return OFL_OK;
        p += k;
        len -= k;
    }
    return OFL_OK;
}

/* ---- demultiplexing by quintuple (FIG. 16) ------------------------------- */

/* SipHash-2-4 of the quintuple under the table's key (offload.h: the 38
 * bytes of the hash input). */
static OFL_NOINLINE uint32_t qp_tuple_hash(const struct ofl_qp_demux *d,
                                           const struct ofl_qp_tuple *t)
{
    uint8_t b[38];
    uint32_t i;

    b[0] = t->transport;
    b[1] = t->family;
    ofl_store_be16(b + 2, t->src_port);
    ofl_store_be16(b + 4, t->dst_port);
    for (i = 0; i < 16; i++) {
        b[6 + i] = t->src_addr[i];
        b[22 + i] = t->dst_addr[i];
    }
    return (uint32_t)sip24(d->k0, d->k1, b, sizeof(b));
}

static bool qp_tuple_eq(const struct ofl_qp_tuple *a,
                        const struct ofl_qp_tuple *b)
{
    uint32_t i;

    if (a->transport != b->transport || a->family != b->family ||
        a->src_port != b->src_port || a->dst_port != b->dst_port)
        return false;
    for (i = 0; i < 16; i++)
        if (a->src_addr[i] != b->src_addr[i] ||
            a->dst_addr[i] != b->dst_addr[i])
            return false;
    return true;
}

enum ofl_err ofl_qp_demux_init(struct ofl_qp_demux *d, struct ofl_qp **slots,
                               uint32_t cap, const uint8_t key[16])
{
    uint32_t i;

    if (d == NULL || slots == NULL || key == NULL || !qp_pow2(cap))
        return OFL_E_ARG;
    for (i = 0; i < cap; i++) {
        OFL_OPAQUE(slots); /* no memset idiom (base: copy and fill) */
        slots[i] = NULL;
    }
    d->slot = slots;
    d->cap = cap;
    d->count = 0;
    d->k0 = ofl_load_le64(key);
    d->k1 = ofl_load_le64(key + 8);
    return OFL_OK;
}

/* Slots a probe run may span: every member lies within this many slots of
 * its home (add places none further). */
static uint32_t qp_demux_reach(const struct ofl_qp_demux *d)
{
    return d->cap < OFL_QP_DEMUX_PROBE_MAX ? d->cap : OFL_QP_DEMUX_PROBE_MAX;
}

/* The slot holding tuple t, or cap when absent: at most
 * OFL_QP_DEMUX_PROBE_MAX slots read, the first free one ends the run. */
static uint32_t qp_demux_slot(const struct ofl_qp_demux *d,
                              const struct ofl_qp_tuple *t)
{
    uint32_t i, n = qp_demux_reach(d),
                at = qp_tuple_hash(d, t) & (d->cap - 1u);

    for (i = 0; i < n; i++, at = (at + 1u) & (d->cap - 1u)) {
        if (d->slot[at] == NULL)
            break;
        if (qp_tuple_eq(&d->slot[at]->attr.tuple, t))
            return at;
    }
    return d->cap;
}

enum ofl_err ofl_qp_demux_add(struct ofl_qp_demux *d, struct ofl_qp *qp)
{
    uint32_t i, n, at;

    if (d == NULL || qp == NULL)
        return OFL_E_ARG;
    n = qp_demux_reach(d);
    at = qp_tuple_hash(d, &qp->attr.tuple) & (d->cap - 1u);
    /* The tuple, if present, lies before the first free slot of its run. */
    for (i = 0; i < n; i++, at = (at + 1u) & (d->cap - 1u)) {
        if (d->slot[at] == NULL) {
            d->slot[at] = qp;
            d->count++;
            return OFL_OK;
        }
        if (qp_tuple_eq(&d->slot[at]->attr.tuple, &qp->attr.tuple))
            return OFL_E_QP_TUPLE_BUSY;
    }
    return d->count == d->cap ? OFL_E_QP_DEMUX_FULL : OFL_E_QP_DEMUX_CROWDED;
}

enum ofl_err ofl_qp_demux_remove(struct ofl_qp_demux *d, struct ofl_qp *qp)
{
    uint32_t hole, j, i, reach;

    if (d == NULL || qp == NULL)
        return OFL_E_ARG;
    hole = qp_demux_slot(d, &qp->attr.tuple);
    if (hole == d->cap || d->slot[hole] != qp)
        return OFL_E_QP_NO_CONTEXT;
    d->slot[hole] = NULL;
    d->count--;
    /* Backward shift: pull later members of the probe run into the hole
     * when their home lies at or before it (cyclically). One that lies
     * OFL_QP_DEMUX_PROBE_MAX or more past the hole has its home after it
     * (no member is further from home), so the scan ends there too. */
    reach = qp_demux_reach(d);
    j = hole;
    for (i = 1; i < d->cap; i++) {
        uint32_t home;

        j = (j + 1u) & (d->cap - 1u);
        if (d->slot[j] == NULL || ((j - hole) & (d->cap - 1u)) >= reach)
            break;
        home = qp_tuple_hash(d, &d->slot[j]->attr.tuple) & (d->cap - 1u);
        if (((j - home) & (d->cap - 1u)) >= ((j - hole) & (d->cap - 1u))) {
            d->slot[hole] = d->slot[j];
            d->slot[j] = NULL;
            hole = j;
        }
    }
    return OFL_OK;
}

struct ofl_qp *ofl_qp_demux_find(const struct ofl_qp_demux *d,
                                 const struct ofl_qp_tuple *t)
{
    uint32_t at;

    if (d == NULL || t == NULL)
        return NULL;
    at = qp_demux_slot(d, t);
    return at == d->cap ? NULL : d->slot[at];
}

uint32_t ofl_qp_demux_home(const struct ofl_qp_demux *d,
                           const struct ofl_qp_tuple *t)
{
    if (d == NULL || t == NULL)
        return 0;
    return qp_tuple_hash(d, t) & (d->cap - 1u);
}

enum ofl_err ofl_qp_demux_input(const struct ofl_qp_demux *d,
                                const struct ofl_qp_seg *seg)
{
    struct ofl_qp *qp;

    if (d == NULL || seg == NULL)
        return OFL_E_ARG;
    qp = ofl_qp_demux_find(d, &seg->tuple);
    if (qp == NULL)
        return OFL_E_QP_NO_CONTEXT; /* FIG. 16 step 1620: the NIC path */
    return ofl_qp_input(qp, seg);
}
/* ---- channel kinds: datagram services (seed 001, seed 002) ------------- */

/*
 * Datagram frame header (offload.h "Channel kinds"), big-endian:
 *   0 version, 1 kind, 2 flags, 3 reserved, 4 dst addr, 8 src addr,
 *   12 dst QPN, 16 src QPN, 20 EE SN, 24 payload length u16, 26 reserved.
 */
#define DGH_VERSION 0
#define DGH_KIND 1
#define DGH_FLAGS 2
#define DGH_RSVD 3
#define DGH_DST_ADDR 4
#define DGH_SRC_ADDR 8
#define DGH_DST_QPN 12
#define DGH_SRC_QPN 16
#define DGH_SN 20
#define DGH_LEN 24
#define DGH_RSVD2 26
#define DGH_EXT 28 /* a kind's extension (offload.h: OFL_DG_*_EXT) */
/* The fixed IPv6 header (RFC 8200 §3): version nibble, payload length,
 * next header, destination address. */
#define RAW_PLEN 4
#define RAW_NEXT 6
#define RAW_DST 24

uint32_t ofl_dg_ext_len(uint8_t kind)
{
    switch (kind) {
    case OFL_DG_NAK:
        return OFL_DG_NAK_EXT;
    case OFL_DG_RD_WRITE:
        return OFL_DG_WRITE_EXT;
    case OFL_DG_RD_READ:
        return OFL_DG_READ_EXT;
    case OFL_DG_RD_RESP:
        return OFL_DG_RESP_EXT;
    case OFL_DG_RD_ATOMIC:
        return OFL_DG_ATOMIC_EXT;
    default:
        return 0;
    }
}

/* Does h carry the refusal block (an ACK or NAK whose length is its
 * extension + OFL_DG_REF_EXT)? */
static bool qp_dg_has_ref(const struct ofl_dg_hdr *h)
{
    return (h->kind == OFL_DG_ACK || h->kind == OFL_DG_NAK) &&
           h->len == ofl_dg_ext_len(h->kind) + OFL_DG_REF_EXT;
}

/* The refusal block's rules (offload.h "Refusal block"): absent, its
 * fields are zero; present, a reserved byte of zero, a code of ACCESS or
 * INVALID or none, a detail only with a code, and a refused frame at most
 * 2^15 before the newest covered one (ACK: sn, NAK: sn - 1), not after
 * it. */
static enum ofl_err qp_dg_ref_rules(const struct ofl_dg_hdr *h)
{
    const uint32_t c = h->kind == OFL_DG_ACK ? h->sn : h->sn - 1u;

    if (!qp_dg_has_ref(h))
        return h->ref_code != 0 || h->ref_reserved != 0 ||
                       h->ref_err != 0 || h->ref_sn != 0
                   ? OFL_E_QP_DG_RESERVED
                   : OFL_OK;
    if (h->ref_reserved != 0)
        return OFL_E_QP_DG_RESERVED;
    if (h->ref_code != 0 && h->ref_code != OFL_DG_NAK_ACCESS &&
        h->ref_code != OFL_DG_NAK_INVALID)
        return OFL_E_QP_EE_REFUSAL;
    if (h->ref_code == 0 && h->ref_err != 0)
        return OFL_E_QP_EE_REFUSAL;
    if (c - h->ref_sn > OFL_DG_REF_RUN) /* after c, or too far back */
        return OFL_E_QP_EE_REFUSAL;
    return OFL_OK;
}

/* The atomic request's fields: on kind 9 an RFC 7306 op (0 .. 2) and
 * reserved bytes of zero, on every other kind all zero. */
static enum ofl_err qp_dg_atomic_rules(const struct ofl_dg_hdr *h)
{
    uint32_t i, r = 0;

    for (i = 0; i < sizeof(h->reserved3); i++)
        r |= h->reserved3[i];
    if (h->kind != OFL_DG_RD_ATOMIC)
        return (h->aop | r) != 0 || (h->add_swap | h->add_swap_mask |
                                     h->compare | h->compare_mask) != 0
                   ? OFL_E_QP_DG_RESERVED
                   : OFL_OK;
    if (r != 0)
        return OFL_E_QP_DG_RESERVED;
    return h->aop > OFL_RDMAP_CMP_SWAP ? OFL_E_RDMAP_ATOMIC_OP : OFL_OK;
}

/* The rules of the header table that do not depend on the frame length:
 * the fields each kind leaves unused are zero, a kind's extension fits in
 * len (a Read request is its extension alone, a NAK too, or with its
 * refusal block; an ACK is nothing or its block). */
static enum ofl_err qp_dg_hdr_rules(const struct ofl_dg_hdr *h, bool ext_read)
{
    const uint32_t ext = ofl_dg_ext_len(h->kind);
    enum ofl_err err;

    if (h->kind < OFL_DG_UD || h->kind > OFL_DG_RD_ATOMIC ||
        h->kind == OFL_DG_ACK + 1u)
        return OFL_E_QP_DG_KIND;
    if ((h->flags & ~(uint32_t)OFL_DG_F_SE) != 0 || h->reserved != 0)
        return OFL_E_QP_DG_RESERVED;
    if (h->kind != OFL_DG_UD && h->kind != OFL_DG_RD &&
        h->flags != 0) /* SE: Sends only */
        return OFL_E_QP_DG_RESERVED;
    if ((h->kind == OFL_DG_ACK || h->kind == OFL_DG_NAK) &&
        (h->dst_qpn != 0 || h->src_qpn != 0))
        return OFL_E_QP_DG_RESERVED;
    if (h->kind == OFL_DG_ACK && h->len != 0 && h->len != OFL_DG_REF_EXT)
        return OFL_E_QP_DG_RESERVED;
    if (h->kind == OFL_DG_UD && h->sn != 0)
        return OFL_E_QP_DG_RESERVED;
    if (h->len < ext ||
        (h->kind == OFL_DG_NAK && h->len != ext &&
         h->len != ext + OFL_DG_REF_EXT) ||
        ((h->kind == OFL_DG_RD_READ || h->kind == OFL_DG_RD_ATOMIC) &&
         h->len != ext))
        return OFL_E_QP_DG_LENGTH;
    if (!ext_read) /* parse: the frame length is checked next */
        return OFL_OK;
    if (h->kind != OFL_DG_RD_WRITE && h->kind != OFL_DG_RD_READ &&
        h->kind != OFL_DG_RD_ATOMIC && (h->stag != 0 || h->to != 0))
        return OFL_E_QP_DG_RESERVED;
    err = qp_dg_atomic_rules(h);
    if (err != OFL_OK)
        return err;
    if (h->kind != OFL_DG_RD_READ && h->kind != OFL_DG_RD_RESP &&
        h->rlen != 0)
        return OFL_E_QP_DG_RESERVED;
    err = qp_dg_ref_rules(h);
    if (err != OFL_OK)
        return err;
    if (h->kind != OFL_DG_NAK)
        return h->nak != 0 || h->nak_err != 0 ? OFL_E_QP_DG_RESERVED
                                              : OFL_OK;
    if (h->nak < OFL_DG_NAK_SEQ || h->nak > OFL_DG_NAK_INVALID)
        return OFL_E_QP_EE_NAK;
    if (h->nak_err != 0 &&
        (h->nak == OFL_DG_NAK_SEQ || h->nak == OFL_DG_NAK_RNR))
        return OFL_E_QP_EE_NAK;
    return OFL_OK;
}

/* The atomic request's extension (OFL_DG_ATOMIC_EXT bytes at x; the
 * caller checked they are inside the frame). */
static void qp_dg_atomic_load(struct ofl_dg_hdr *t, const uint8_t *x)
{
    t->stag = ofl_load_be32(x);
    t->to = ofl_load_be64(x + 4);
    t->aop = x[12];
    t->reserved3[0] = x[13];
    t->reserved3[1] = x[14];
    t->reserved3[2] = x[15];
    t->add_swap = ofl_load_be64(x + 16);
    t->add_swap_mask = ofl_load_be64(x + 24);
    t->compare = ofl_load_be64(x + 32);
    t->compare_mask = ofl_load_be64(x + 40);
}

enum ofl_err ofl_dg_parse(const uint8_t *frame, size_t len,
                          struct ofl_dg_hdr *h)
{
    struct ofl_dg_hdr t;
    enum ofl_err err;
    bool whole;

    if (h == NULL || (frame == NULL && len != 0))
        return OFL_E_ARG;
    if (len < OFL_DG_HDR_LEN)
        return OFL_E_QP_DG_SHORT;
    if (frame[DGH_VERSION] != OFL_DG_VERSION)
        return OFL_E_QP_DG_VERSION;
    ofl_fill(&t, 0, sizeof(t));
    t.kind = frame[DGH_KIND];
    t.flags = frame[DGH_FLAGS];
    t.dst_addr = ofl_load_be32(frame + DGH_DST_ADDR);
    t.src_addr = ofl_load_be32(frame + DGH_SRC_ADDR);
    t.dst_qpn = ofl_load_be32(frame + DGH_DST_QPN);
    t.src_qpn = ofl_load_be32(frame + DGH_SRC_QPN);
    t.sn = ofl_load_be32(frame + DGH_SN);
    t.len = ofl_load_be16(frame + DGH_LEN);
    whole = (size_t)t.len == len - OFL_DG_HDR_LEN;
    if (whole) {
        /* The extension, read only when len says the frame holds it (the
         * rules below refuse a len too short for the kind's). */
        switch (t.kind) {
        case OFL_DG_ACK:
        case OFL_DG_NAK: {
            /* the NAK's 4 bytes, then the refusal block when len holds
             * it (an ACK: the block alone) */
            const uint32_t at = ofl_dg_ext_len(t.kind);

            if (t.kind == OFL_DG_NAK && t.len >= OFL_DG_NAK_EXT) {
                t.nak = frame[DGH_EXT];
                t.reserved = frame[DGH_EXT + 1];
                t.nak_err = ofl_load_be16(frame + DGH_EXT + 2);
            }
            if (t.len >= at + OFL_DG_REF_EXT) {
                t.ref_code = frame[DGH_EXT + at];
                t.ref_reserved = frame[DGH_EXT + at + 1];
                t.ref_err = ofl_load_be16(frame + DGH_EXT + at + 2);
                t.ref_sn = ofl_load_be32(frame + DGH_EXT + at + 4);
            }
            break;
        }
        case OFL_DG_RD_WRITE:
        case OFL_DG_RD_READ:
            if (t.len >= OFL_DG_WRITE_EXT) {
                t.stag = ofl_load_be32(frame + DGH_EXT);
                t.to = ofl_load_be64(frame + DGH_EXT + 4);
            }
            if (t.kind == OFL_DG_RD_READ && t.len >= OFL_DG_READ_EXT)
                t.rlen = ofl_load_be32(frame + DGH_EXT + 12);
            break;
        case OFL_DG_RD_RESP:
            if (t.len >= OFL_DG_RESP_EXT)
                t.rlen = ofl_load_be32(frame + DGH_EXT);
            break;
        case OFL_DG_RD_ATOMIC:
            if (t.len >= OFL_DG_ATOMIC_EXT)
                qp_dg_atomic_load(&t, frame + DGH_EXT);
            break;
        default:
            break;
        }
    }
    err = qp_dg_hdr_rules(&t, whole);
    if (err != OFL_OK)
        return err;
    if (frame[DGH_RSVD] != 0 || ofl_load_be16(frame + DGH_RSVD2) != 0)
        return OFL_E_QP_DG_RESERVED;
    if ((size_t)t.len != len - OFL_DG_HDR_LEN)
        return OFL_E_QP_DG_LENGTH;
    ofl_copy(h, &t, sizeof(t));
    return OFL_OK;
}

enum ofl_err ofl_dg_build(const struct ofl_dg_hdr *h, uint8_t *out,
                          size_t cap)
{
    uint32_t ext;

    if (h == NULL || out == NULL || qp_dg_hdr_rules(h, true) != OFL_OK)
        return OFL_E_ARG;
    ext = ofl_dg_ext_len(h->kind);
    if (cap < OFL_DG_HDR_LEN + (size_t)ext +
                  (qp_dg_has_ref(h) ? OFL_DG_REF_EXT : 0u))
        return OFL_E_SIZE;
    out[DGH_VERSION] = OFL_DG_VERSION;
    out[DGH_KIND] = h->kind;
    out[DGH_FLAGS] = h->flags;
    out[DGH_RSVD] = 0;
    ofl_store_be32(out + DGH_DST_ADDR, h->dst_addr);
    ofl_store_be32(out + DGH_SRC_ADDR, h->src_addr);
    ofl_store_be32(out + DGH_DST_QPN, h->dst_qpn);
    ofl_store_be32(out + DGH_SRC_QPN, h->src_qpn);
    ofl_store_be32(out + DGH_SN, h->sn);
    ofl_store_be16(out + DGH_LEN, h->len);
    ofl_store_be16(out + DGH_RSVD2, 0);
    switch (h->kind) {
    case OFL_DG_NAK:
        out[DGH_EXT] = h->nak;
        out[DGH_EXT + 1] = 0;
        ofl_store_be16(out + DGH_EXT + 2, h->nak_err);
        break;
    case OFL_DG_RD_READ:
    case OFL_DG_RD_WRITE:
        ofl_store_be32(out + DGH_EXT, h->stag);
        ofl_store_be64(out + DGH_EXT + 4, h->to);
        if (h->kind == OFL_DG_RD_READ)
            ofl_store_be32(out + DGH_EXT + 12, h->rlen);
        break;
    case OFL_DG_RD_RESP:
        ofl_store_be32(out + DGH_EXT, h->rlen);
        break;
    case OFL_DG_RD_ATOMIC:
        ofl_store_be32(out + DGH_EXT, h->stag);
        ofl_store_be64(out + DGH_EXT + 4, h->to);
        out[DGH_EXT + 12] = h->aop;
        out[DGH_EXT + 13] = 0;
        ofl_store_be16(out + DGH_EXT + 14, 0);
        ofl_store_be64(out + DGH_EXT + 16, h->add_swap);
        ofl_store_be64(out + DGH_EXT + 24, h->add_swap_mask);
        ofl_store_be64(out + DGH_EXT + 32, h->compare);
        ofl_store_be64(out + DGH_EXT + 40, h->compare_mask);
        break;
    default:
        break;
    }
    if (qp_dg_has_ref(h)) {
        out[DGH_EXT + ext] = h->ref_code;
        out[DGH_EXT + ext + 1] = 0;
        ofl_store_be16(out + DGH_EXT + ext + 2, h->ref_err);
        ofl_store_be32(out + DGH_EXT + ext + 4, h->ref_sn);
    }
    return OFL_OK;
}

/* ---- EE contexts ---------------------------------------------------------- */

enum ofl_err ofl_ee_init(struct ofl_ee *ee, const struct ofl_ee_attr *a)
{
    uint32_t i;

    if (ee == NULL || a == NULL || !qp_pow2(a->window) ||
        a->window > 0x8000u || a->slot_size <= OFL_DG_HDR_LEN ||
        a->buf == NULL || a->slot == NULL || a->transmit == NULL ||
        a->atomic_cap > 0x8000u ||
        (a->atomic_cap != 0 && !qp_pow2(a->atomic_cap)) ||
        (a->atomic == NULL && a->atomic_cap != 0))
        return OFL_E_ARG;
    /* Live frames in the window belong to QPs' WQEs: only an UNUSED or
     * failed EE is set up (again). */
    if (ee->state == OFL_EE_RTS)
        return OFL_E_QP_EE_STATE;
    /* a may be &ee->attr (set up again after ERROR): copy it first. */
    if (a != &ee->attr)
        ofl_copy(&ee->attr, a, sizeof(ee->attr));
    ofl_fill(&ee->stats, 0, sizeof(ee->stats));
    ee->ack_pending = 0;
    ee->nak_sent = ee->rnr_wait = 0;
    ee->nak_sn = 0;
    ee->nak_code = ee->reserved2 = 0;
    ee->nak_err = 0;
    ee->retries = 0;
    ee->deadline = 0;
    for (i = 0; i < ee->attr.window; i++)
        ofl_fill(&ee->attr.slot[i], 0, sizeof(ee->attr.slot[i]));
    for (i = 0; i < ee->attr.atomic_cap; i++)
        ofl_fill(&ee->attr.atomic[i], 0, sizeof(ee->attr.atomic[i]));
    ee->snd_una = ee->snd_nxt = ee->rtx_next = ee->attr.snd_isn;
    ee->rcv_nxt = ee->attr.rcv_isn;
    ee->state = OFL_EE_RTS;
    return OFL_OK;
}

uint32_t ofl_ee_outstanding(const struct ofl_ee *ee)
{
    return ee != NULL ? ee->snd_nxt - ee->snd_una : 0;
}

/* now + the EE's timeout, saturating (the caller's clock may be anywhere). */
static uint64_t qp_ee_deadline(const struct ofl_ee *ee, uint64_t now)
{
    uint64_t d = now + ee->attr.timeout;

    return d < now ? ~(uint64_t)0 : d;
}

static uint8_t *qp_ee_frame(const struct ofl_ee *ee, uint32_t sn)
{
    return ee->attr.buf +
           (size_t)(sn & (ee->attr.window - 1u)) * ee->attr.slot_size;
}

/* ---- the receiver's refusal records (offload.h "Lost refusals") ---------- */

/* The record of received sequence number sn: the slot of its index
 * (meaningful while sn is one of the last `window` frames consumed). */
static struct ofl_ee_slot *qp_ee_rx(const struct ofl_ee *ee, uint32_t sn)
{
    return &ee->attr.slot[sn & (ee->attr.window - 1u)];
}

/* Is sn (consumed: before rcv_nxt) still held by its record? */
static bool qp_ee_rx_held(const struct ofl_ee *ee, uint32_t sn)
{
    return ee->rcv_nxt - 1u - sn < ee->attr.window;
}

/* What became of consumed frame sn: 0 delivered (or no longer known),
 * else its ACCESS / INVALID code, the detail in *err. The newest refusal
 * is known exactly (nak_sn), the others while their record is held. */
static uint8_t qp_ee_rx_code(const struct ofl_ee *ee, uint32_t sn,
                             uint16_t *err)
{
    const struct ofl_ee_slot *sl = qp_ee_rx(ee, sn);

    if (ee->nak_code != 0 && sn == ee->nak_sn) {
        *err = ee->nak_err;
        return ee->nak_code;
    }
    if (qp_ee_rx_held(ee, sn)) {
        *err = sl->rx_err;
        return sl->rx_code;
    }
    *err = 0;
    return 0;
}

/* How far before sn (not yet consumed, or being refused) the newest
 * refusal lies: 1 .. 2^15, or 0 when there is none that near. */
static uint32_t qp_ee_gap(const struct ofl_ee *ee, uint32_t sn)
{
    const uint32_t d = sn - ee->nak_sn;

    return ee->nak_code != 0 && d - 1u < OFL_DG_REF_RUN ? d : 0u;
}

/* Adds to h (an ACK or NAK whose frames before end it covers) the refusal
 * block naming the refused frame gap frames before end (gap 0: none within
 * 2^15, no block: the block's absence says so). */
static void qp_ee_ref(const struct ofl_ee *ee, struct ofl_dg_hdr *h,
                      uint32_t end, uint32_t gap)
{
    if (gap == 0)
        return;
    h->len = (uint16_t)(h->len + OFL_DG_REF_EXT);
    h->ref_sn = end - gap;
    h->ref_code = qp_ee_rx_code(ee, h->ref_sn, &h->ref_err);
}

/* Sends the acknowledgement of everything received in order (rcv_nxt - 1)
 * with the block of the newest refusal; kept pending when the transmit
 * refuses. */
static void qp_ee_ack_send(struct ofl_ee *ee)
{
    struct ofl_dg_hdr h;
    uint8_t b[OFL_DG_HDR_LEN + OFL_DG_REF_EXT];

    ee->ack_pending = 1;
    ofl_fill(&h, 0, sizeof(h));
    h.kind = OFL_DG_ACK;
    h.dst_addr = ee->attr.remote_addr;
    h.src_addr = ee->attr.local_addr;
    h.sn = ee->rcv_nxt - 1u;
    qp_ee_ref(ee, &h, ee->rcv_nxt, qp_ee_gap(ee, ee->rcv_nxt));
    (void)ofl_dg_build(&h, b, sizeof(b));
    if (ee->attr.transmit(ee->attr.transmit_ctx, b,
                          OFL_DG_HDR_LEN + (uint32_t)h.len, 0) == 0) {
        ee->ack_pending = 0;
        ee->stats.acks_tx++;
    }
}

/* Sends a NAK of code for sequence number sn (detail err for ACCESS and
 * INVALID), its block naming the refused frame gap frames before sn. A
 * NAK the transmit refuses is not kept: the sender's timeout stands in
 * for it. */
static OFL_NOINLINE void qp_ee_nak_send(struct ofl_ee *ee, uint8_t code,
                                        uint32_t sn, enum ofl_err err,
                                        uint32_t gap)
{
    struct ofl_dg_hdr h;
    uint8_t b[OFL_DG_HDR_LEN + OFL_DG_NAK_EXT + OFL_DG_REF_EXT];

    ofl_fill(&h, 0, sizeof(h));
    h.kind = OFL_DG_NAK;
    h.dst_addr = ee->attr.remote_addr;
    h.src_addr = ee->attr.local_addr;
    h.sn = sn;
    h.len = OFL_DG_NAK_EXT;
    h.nak = code;
    if (code == OFL_DG_NAK_ACCESS || code == OFL_DG_NAK_INVALID)
        h.nak_err = (uint16_t)err;
    qp_ee_ref(ee, &h, sn, gap);
    (void)ofl_dg_build(&h, b, sizeof(b));
    if (ee->attr.transmit(ee->attr.transmit_ctx, b,
                          OFL_DG_HDR_LEN + (uint32_t)h.len, 0) == 0)
        ee->stats.naks_tx++;
}

/* Releases the frames before sequence number upto (at most the window):
 * their QPs' outstanding counts drop, the WQEs that wait for the
 * acknowledgement complete with status. A Read request acknowledged
 * (status SUCCESS) keeps its WQE and its ORD count for the response. A QP
 * flushed or reset since it sent (epoch) is left alone. */
static void qp_ee_release(struct ofl_ee *ee, uint32_t upto, uint8_t status)
{
    uint32_t n = upto - ee->snd_una, i;

    for (i = 0; i < n && i < ee->attr.window; i++) {
        struct ofl_ee_slot *sl =
            &ee->attr.slot[ee->snd_una & (ee->attr.window - 1u)];
        struct ofl_qp *qp = sl->qp;

        if (qp != NULL && sl->epoch == qp->dg_epoch &&
            !(sl->read && status == OFL_WC_SUCCESS)) {
            if (qp->ord_count != 0)
                qp->ord_count--;
            if (sl->complete || sl->read) {
                qp_swqe_done(qp, sl->wqe, status);
                qp_sq_complete(qp);
            }
        }
        if (sl->cache != 0 && sl->cache <= ee->attr.atomic_cap)
            ee->attr.atomic[sl->cache - 1u].used = 0; /* the requester
                                                         has the value */
        sl->cache = 0;
        sl->qp = NULL;
        ee->snd_una++;
    }
    if (ofl_sn_lt(ee->rtx_next, ee->snd_una))
        ee->rtx_next = ee->snd_una;
}

/* Could outstanding frame sn have been refused with code (ACCESS: an RD
 * Write, Read or atomic request; INVALID: a Read or atomic request)? Its
 * kind is in its slot's frame. */
static bool qp_ee_refusable(const struct ofl_ee *ee, uint32_t sn, uint8_t code)
{
    const uint8_t kind = qp_ee_frame(ee, sn)[DGH_KIND];

    return kind == OFL_DG_RD_READ || kind == OFL_DG_RD_ATOMIC ||
           (code == OFL_DG_NAK_ACCESS && kind == OFL_DG_RD_WRITE);
}

/* What ACK or NAK h says, by its refusal block, of the du frames snd_una ..
 * snd_una + du - 1 it newly covers (offload.h "Lost refusals"): *how = 1
 * all delivered, 2 snd_una refused with h->ref_code and the rest
 * delivered, 0 not known. OFL_E_QP_EE_REFUSAL when the block refuses an
 * outstanding frame that could not be refused so. Changes nothing. */
static enum ofl_err qp_ee_vouch(const struct ofl_ee *ee,
                                const struct ofl_dg_hdr *h, uint32_t du,
                                int *how)
{
    /* the first frame not covered, and the frames the block vouches for
     * before it (no block: 2^15) */
    const uint32_t end = h->kind == OFL_DG_ACK ? h->sn + 1u : h->sn;
    const uint32_t k = qp_dg_has_ref(h) ? end - 1u - h->ref_sn
                                        : OFL_DG_REF_RUN;

    if (qp_dg_has_ref(h) && h->ref_code != 0 &&
        h->ref_sn - ee->snd_una < ee->snd_nxt - ee->snd_una &&
        !qp_ee_refusable(ee, h->ref_sn, h->ref_code))
        return OFL_E_QP_EE_REFUSAL;
    *how = k >= du                            ? 1
           : h->ref_code != 0 && k + 1u == du ? 2
                                              : 0;
    return OFL_OK;
}

/* Outstanding frame snd_una was refused for good with code (ACCESS or
 * INVALID): its WQE completes with the remote error, its QP goes to ERROR
 * (IBA's rule for a remote error; seed 001: "the remote node is not
 * granted access"), the EE (shared) goes on. */
static void qp_ee_refused(struct ofl_ee *ee, uint8_t code)
{
    const struct ofl_ee_slot *sl =
        &ee->attr.slot[ee->snd_una & (ee->attr.window - 1u)];
    struct ofl_qp *qp = sl->qp;

    if (qp != NULL && sl->epoch != qp->dg_epoch)
        qp = NULL;
    qp_ee_release(ee, ee->snd_una + 1u,
                  code == OFL_DG_NAK_ACCESS ? OFL_WC_REM_ACCESS_ERR
                                            : OFL_WC_REM_INV_REQ_ERR);
    if (qp != NULL)
        (void)qp_event(qp, OFL_QP_EV_MOD_ERROR);
}

/* An acknowledgement h of sequence number a (the tables in offload.h). */
static enum ofl_err qp_ee_ack(struct ofl_ee *ee, const struct ofl_dg_hdr *h,
                              uint64_t now)
{
    const uint32_t a = h->sn, out = ee->snd_nxt - ee->snd_una;
    uint32_t d;
    enum ofl_err err;
    int how = 0;

    if (a == ee->snd_una - 1u) { /* covers nothing new: a repeat */
        ee->stats.acks_rx++;
        return OFL_OK;
    }
    d = a - ee->snd_una + 1u; /* frames it newly covers */
    if (d > out) {
        if (!ofl_sn_lt(a, ee->snd_una))
            return OFL_E_QP_EE_ACK; /* covers a frame never sent */
        ee->stats.acks_rx++;        /* stale: an older acknowledgement */
        return OFL_OK;
    }
    err = qp_ee_vouch(ee, h, d, &how);
    if (err != OFL_OK)
        return err;
    ee->stats.acks_rx++;
    if (how == 0) /* a refusal among them the sender has not seen: the
                     next round's answers settle them */
        return OFL_OK;
    if (how == 2) /* its NAK was lost: the block stands in for it */
        qp_ee_refused(ee, h->ref_code);
    qp_ee_release(ee, a + 1u, OFL_WC_SUCCESS);
    ee->retries = 0;
    ee->rnr_wait = 0;
    ee->deadline = qp_ee_deadline(ee, now);
    return OFL_OK;
}

/* Starts a go-back-N round at now, or after retry_limit rounds fails the
 * EE: the frame an RNR NAK held completes RNR_RETRY_EXC_ERR, the others
 * RETRY_EXC_ERR. */
static enum ofl_err qp_ee_round(struct ofl_ee *ee, uint64_t now)
{
    if (ee->retries >= ee->attr.retry_limit) {
        /* Seed 001: the EE state is shared, so is its failure. */
        if (ee->rnr_wait)
            qp_ee_release(ee, ee->snd_una + 1u, OFL_WC_RNR_RETRY_EXC_ERR);
        qp_ee_release(ee, ee->snd_nxt, OFL_WC_RETRY_EXC_ERR);
        ee->rnr_wait = 0;
        ee->state = OFL_EE_ERROR;
        return OFL_E_QP_EE_RETRY;
    }
    ee->retries++;
    ee->rnr_wait = 0;
    ee->rtx_next = ee->snd_una;
    ee->deadline = qp_ee_deadline(ee, now);
    return OFL_OK;
}

/* Sends what is due to be sent again (rtx_next .. snd_nxt) while the
 * transmit takes it. Bounded by the window. */
static enum ofl_err qp_ee_resend(struct ofl_ee *ee)
{
    uint32_t i;

    for (i = 0; i < ee->attr.window && ee->rtx_next != ee->snd_nxt; i++) {
        const struct ofl_ee_slot *sl =
            &ee->attr.slot[ee->rtx_next & (ee->attr.window - 1u)];

        if (ee->attr.transmit(ee->attr.transmit_ctx,
                              qp_ee_frame(ee, ee->rtx_next), sl->len, 0) != 0)
            return OFL_E_QP_TX_BLOCKED;
        ee->stats.rtx_frames++;
        ee->rtx_next++;
    }
    return OFL_OK;
}

/* A NAK for sequence number h->sn (the NAK table in offload.h): every
 * frame before it arrived, settled by its refusal block as an
 * acknowledgement's; then by code: SEQ resends from it now, RNR after
 * rnr_delay, ACCESS / INVALID complete its WQE with the remote error and
 * move its QP to ERROR. When the block leaves the frames before it not
 * known, only a SEQ NAK acts (its round resends them). */
static OFL_NOINLINE enum ofl_err qp_ee_nak(struct ofl_ee *ee,
                                           const struct ofl_dg_hdr *h,
                                           uint64_t now)
{
    const uint32_t out = ee->snd_nxt - ee->snd_una;
    enum ofl_err err;
    uint64_t d;
    int how = 1;

    if (h->sn - ee->snd_una >= out)
        return ofl_sn_lt(h->sn, ee->snd_una) ? OFL_OK /* stale: ignored */
                                              : OFL_E_QP_EE_ACK;
    if ((h->nak == OFL_DG_NAK_ACCESS || h->nak == OFL_DG_NAK_INVALID) &&
        !qp_ee_refusable(ee, h->sn, h->nak))
        return OFL_E_QP_EE_REFUSAL;
    err = qp_ee_vouch(ee, h, h->sn - ee->snd_una, &how);
    if (err != OFL_OK)
        return err;
    if (how == 0 && h->nak != OFL_DG_NAK_SEQ)
        return OFL_OK; /* not known yet: the timeout resends */
    ee->stats.naks_rx++;
    if (how != 0 && h->sn != ee->snd_una) { /* progress: the frames before */
        if (how == 2)
            qp_ee_refused(ee, h->ref_code);
        qp_ee_release(ee, h->sn, OFL_WC_SUCCESS);
        ee->retries = 0;
        ee->rnr_wait = 0;
    }
    switch (h->nak) {
    case OFL_DG_NAK_SEQ:
        err = qp_ee_round(ee, now);
        if (err != OFL_OK)
            return err;
        (void)qp_ee_resend(ee); /* a refusal: the next tick goes on */
        return OFL_OK;
    case OFL_DG_NAK_RNR:
        ee->rnr_wait = 1;
        ee->rtx_next = ee->snd_nxt; /* nothing resent before the delay */
        d = now + (ee->attr.rnr_delay != 0 ? ee->attr.rnr_delay
                                           : ee->attr.timeout);
        ee->deadline = d < now ? ~(uint64_t)0 : d;
        return OFL_OK;
    default: /* ACCESS, INVALID: the frame was consumed, refused */
        qp_ee_refused(ee, h->nak);
        ee->retries = 0;
        ee->deadline = qp_ee_deadline(ee, now);
        return OFL_OK;
    }
}

enum ofl_err ofl_ee_tick(struct ofl_ee *ee, uint64_t now)
{
    enum ofl_err err;

    if (ee == NULL)
        return OFL_E_ARG;
    if (ee->state != OFL_EE_RTS)
        return OFL_E_QP_EE_STATE;
    if (ee->ack_pending)
        qp_ee_ack_send(ee);
    if (ee->snd_una != ee->snd_nxt && now >= ee->deadline) {
        err = qp_ee_round(ee, now);
        if (err != OFL_OK)
            return err;
    }
    return qp_ee_resend(ee);
}

/* ---- nodes ------------------------------------------------------------------ */

enum ofl_err ofl_qp_node_init(struct ofl_qp_node *node, uint32_t addr,
                              struct ofl_qp **qps, uint32_t qp_cap,
                              struct ofl_ee *ee, uint32_t ee_cap)
{
    uint32_t i;

    if (node == NULL || qps == NULL || qp_cap == 0 ||
        (ee == NULL && ee_cap != 0))
        return OFL_E_ARG;
    for (i = 0; i < qp_cap; i++) {
        OFL_OPAQUE(qps); /* no memset idiom (base: copy and fill) */
        qps[i] = NULL;
    }
    for (i = 0; i < ee_cap; i++)
        ofl_fill(&ee[i], 0, sizeof(ee[i]));
    node->addr = addr;
    node->qp = qps;
    node->qp_cap = qp_cap;
    node->ee = ee;
    node->ee_cap = ee_cap;
    node->ee_k0 = 0;
    node->ee_k1 = 0;
    return OFL_OK;
}

enum ofl_err ofl_qp_node_ee_key(struct ofl_qp_node *node,
                                const uint8_t key[16])
{
    uint32_t i;

    if (node == NULL || key == NULL)
        return OFL_E_ARG;
    for (i = 0; i < node->ee_cap; i++) /* homes move: none may be placed */
        if (node->ee[i].state != OFL_EE_UNUSED)
            return OFL_E_QP_EE_STATE;
    node->ee_k0 = ofl_load_le64(key);
    node->ee_k1 = ofl_load_le64(key + 8);
    return OFL_OK;
}

enum ofl_err ofl_qp_node_add(struct ofl_qp_node *node, struct ofl_qp *qp)
{
    if (node == NULL || qp == NULL)
        return OFL_E_ARG;
    if (qp->attr.service != OFL_QP_SVC_RD && qp->attr.service != OFL_QP_SVC_UD)
        return OFL_E_QP_SERVICE;
    if (qp->attr.node != node || qp->attr.qpn >= node->qp_cap)
        return OFL_E_ARG;
    if (node->qp[qp->attr.qpn] != NULL)
        return OFL_E_QP_QPN_BUSY;
    node->qp[qp->attr.qpn] = qp;
    return OFL_OK;
}

/* The frames of qp still in EE windows stop naming it: they are still
 * sent again and acknowledged, but complete nothing (its memory may be
 * reused once it has left the node). Bounded by ee_cap x window. */
static void qp_ee_detach(struct ofl_qp_node *node, const struct ofl_qp *qp)
{
    uint32_t i, j;

    for (i = 0; i < node->ee_cap; i++) {
        struct ofl_ee *ee = &node->ee[i];

        for (j = 0; ee->state != OFL_EE_UNUSED && j < ee->attr.window; j++)
            if (ee->attr.slot[j].qp == qp)
                ee->attr.slot[j].qp = NULL;
    }
}

enum ofl_err ofl_qp_node_remove(struct ofl_qp_node *node, struct ofl_qp *qp)
{
    if (node == NULL || qp == NULL)
        return OFL_E_ARG;
    if (qp->attr.qpn >= node->qp_cap || node->qp[qp->attr.qpn] != qp)
        return OFL_E_QP_DG_NO_QP;
    node->qp[qp->attr.qpn] = NULL;
    qp_ee_detach(node, qp);
    return OFL_OK;
}

uint32_t ofl_qp_node_ee_home(const struct ofl_qp_node *node, uint32_t addr)
{
    uint8_t b[4];

    if (node == NULL || node->ee_cap <= OFL_QP_NODE_EE_PROBE_MAX)
        return 0;
    ofl_store_be32(b, addr);
    /* the high half of hash x ee_cap: 0 .. ee_cap - 1, no division */
    return (uint32_t)(((uint64_t)(uint32_t)sip24(node->ee_k0, node->ee_k1,
                                                 b, sizeof(b)) *
                       node->ee_cap) >> 32);
}

/* The context of addr's run (offload.h "Finding the EE of an RD frame")
 * that holds addr, or NULL; *unused: the run's first unused context, or
 * NULL. Reads the whole run, never past it: at most
 * OFL_QP_NODE_EE_PROBE_MAX contexts. */
static struct ofl_ee *qp_node_ee_run(const struct ofl_qp_node *node,
                                     uint32_t addr, struct ofl_ee **unused)
{
    uint32_t i, at = ofl_qp_node_ee_home(node, addr),
                n = node->ee_cap < OFL_QP_NODE_EE_PROBE_MAX
                        ? node->ee_cap
                        : OFL_QP_NODE_EE_PROBE_MAX;

    *unused = NULL;
    /* ee_cap may be 0 (a node without EE contexts: nothing to read) */
    /* cppcheck-suppress knownConditionTrueFalse */
    for (i = 0; i < n; i++) {
        struct ofl_ee *ee = &node->ee[at];

        if (ee->state == OFL_EE_UNUSED) {
            if (*unused == NULL)
                *unused = ee;
        } else if (ee->attr.remote_addr == addr) {
            return ee;
        }
        if (++at == node->ee_cap)
            at = 0;
    }
    return NULL;
}

struct ofl_ee *ofl_qp_node_ee(const struct ofl_qp_node *node, uint32_t addr)
{
    struct ofl_ee *unused;

    if (node == NULL)
        return NULL;
    return qp_node_ee_run(node, addr, &unused);
}

enum ofl_err ofl_qp_node_ee_place(struct ofl_qp_node *node, uint32_t addr,
                                  struct ofl_ee **ee)
{
    struct ofl_ee *unused;

    if (node == NULL || ee == NULL)
        return OFL_E_ARG;
    *ee = qp_node_ee_run(node, addr, &unused);
    if (*ee == NULL)
        *ee = unused;
    return *ee != NULL ? OFL_OK : OFL_E_QP_EE_CROWDED;
}

/* ---- sending a datagram ------------------------------------------------------ */

/* The atomic request's fields from the current WQE (RFC 7306 §5.1: the
 * four operands as the stream path sends them). */
static void qp_dg_atomic_fill(const struct ofl_qp *qp, struct ofl_dg_hdr *h)
{
    const uint8_t *w = qp->cur.hdr;

    h->aop = w[QPW_OPCODE] == OFL_QP_OP_ATOMIC_FADD ? OFL_RDMAP_FETCH_ADD
                                                   : OFL_RDMAP_CMP_SWAP;
    h->add_swap = ofl_load_le64(w + QPW_EXT);
    h->add_swap_mask = ofl_load_le64(w + QPW_EXT + 8);
    h->compare = ofl_load_le64(w + QPW_EXT + 16);
    h->compare_mask = ofl_load_le64(w + QPW_EXT + 24);
}

/*
 * The current WQE is a datagram SEND (or, on RD, an RDMA Write, Read or
 * atomic request): checked (FIG. 15; a Read's sink and an atomic's result
 * buffer for local write), gathered into one frame (RD: straight into the
 * EE slot it will be kept in), handed to the transmit callback. An
 * unacknowledged one completes here; an RD frame stays in its EE window
 * until acknowledged; a Read or atomic completes when its response
 * arrives (qp_rd_resp).
 */
static OFL_NOINLINE enum ofl_err qp_dg_send(struct ofl_qp *qp, uint64_t now,
                                            bool *progress)
{
    struct ofl_qp_sq_cur *c = &qp->cur;
    const uint32_t svc = qp->attr.service, hl = qp_dg_hl(svc);
    const uint8_t op = c->hdr[QPW_OPCODE];
    const bool resp = op == OFL_QP_OP_READ || qp_op_atomic(op);
    const uint32_t at = qp_dg_at(op);
    const uint32_t ext = op == OFL_QP_OP_WRITE  ? OFL_DG_WRITE_EXT
                         : op == OFL_QP_OP_READ ? OFL_DG_READ_EXT
                         : qp_op_atomic(op)     ? OFL_DG_ATOMIC_EXT
                                                : 0u;
    const uint32_t dlen = resp ? 0u : c->total;
    struct ofl_ee *ee = NULL;
    struct ofl_dg_hdr h;
    uint8_t *frame = qp->tx_own; /* never a reservation */
    uint32_t si = 0, so = 0;
    enum ofl_err err;

    if (svc == OFL_QP_SVC_RD) {
        const uint32_t ei = ofl_load_le32(c->hdr + QPW_DG_EE + at);

        /* The rules again: since the WQE was fetched the EE may have
         * failed, or been set up again with smaller slots. IBA's RD
         * statuses: an EE context no longer in use is an invalid EE
         * context number, one in use but not in RTS an invalid EE
         * context state. */
        err = qp_dg_rules(qp, qp_dg_need(op, c->total), ei);
        if (err != OFL_OK || qp->attr.node->ee[ei].state != OFL_EE_RTS) {
            qp_cur_done(qp, err == OFL_E_QP_DG_TOO_LONG
                                ? OFL_WC_LOC_LEN_ERR
                            : err == OFL_E_QP_DG_DEST
                                ? OFL_WC_INV_EECN_ERR
                                : OFL_WC_INV_EEC_STATE_ERR);
            *progress = true;
            return OFL_OK;
        }
        ee = &qp->attr.node->ee[ei];
        if (qp->ord_count >= qp->ord ||
            ee->snd_nxt - ee->snd_una >= ee->attr.window)
            return OFL_OK; /* hold: ORD reached or the EE window full */
        frame = qp_ee_frame(ee, ee->snd_nxt);
    }
    /* Begun only past the hold: a Send held has not begun, so it does not
     * start in SQD and SQD can drain with it (qp_cur_held). */
    if (!c->begun) {
        err = qp_sges_check(qp, resp ? OFL_TPT_LOCAL_WRITE
                                     : OFL_TPT_LOCAL_READ);
        if (err != OFL_OK) {
            *progress = true;
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        }
        c->begun = 1;
    }
    if (dlen != 0) {
        err = qp_gather(qp, frame + hl + ext, dlen, &si, &so, 0u);
        /* Unpinned pages: nothing was handed to the transmit (the bytes
         * gathered lie in tx_buf or an EE slot not yet in use); the WQE
         * stays current and is gathered again on the retry. Nothing of
         * it began: held as a Send behind a full window is (in SQD it
         * does not start, SQD drains; its local checks run again). */
        if (err == OFL_E_TPT_PAGE_FAULT && qp_sq_hold(qp)) {
            c->begun = 0;
            return err;
        }
        if (err != OFL_OK) {
            *progress = true;
            return qp_sq_fail(qp, err, (uint8_t)ofl_tpt_wc_status(err));
        }
    }
    if (hl != 0) {
        ofl_fill(&h, 0, sizeof(h));
        h.kind = svc != OFL_QP_SVC_RD      ? OFL_DG_UD
                 : op == OFL_QP_OP_WRITE ? OFL_DG_RD_WRITE
                 : op == OFL_QP_OP_READ  ? OFL_DG_RD_READ
                 : qp_op_atomic(op)      ? OFL_DG_RD_ATOMIC
                                         : OFL_DG_RD;
        if (op == OFL_QP_OP_SEND &&
            (c->hdr[QPW_FLAGS] & OFL_QP_WR_SOLICITED))
            h.flags = OFL_DG_F_SE;
        h.len = (uint16_t)(ext + dlen);
        h.dst_addr = ee != NULL ? ee->attr.remote_addr
                                : ofl_load_le32(c->hdr + QPW_DG_ADDR);
        h.src_addr = qp->attr.node->addr;
        h.dst_qpn = ofl_load_le32(c->hdr + QPW_DG_QPN + at);
        h.src_qpn = qp->attr.qpn;
        h.sn = ee != NULL ? ee->snd_nxt : 0;
        if (ext != 0) {
            h.stag = ofl_load_le32(c->hdr + QPW_RSTAG);
            h.to = ofl_load_le64(c->hdr + QPW_TO);
            h.rlen = op == OFL_QP_OP_READ ? c->total : 0u;
            if (qp_op_atomic(op))
                qp_dg_atomic_fill(qp, &h);
        }
        (void)ofl_dg_build(&h, frame, hl + ext);
    }
    err = qp_xmit(qp, frame, hl + ext + dlen, 0);
    if (err != OFL_OK)
        return err; /* blocked: the WQE stays current, rebuilt next time */
    *progress = true;
    if (ee != NULL) {
        struct ofl_ee_slot *sl =
            &ee->attr.slot[ee->snd_nxt & (ee->attr.window - 1u)];

        sl->qp = qp;
        sl->epoch = qp->dg_epoch;
        sl->wqe = c->idx;
        sl->len = hl + ext + dlen;
        sl->complete = resp ? 0u : qp->attr.acked;
        sl->read = resp;
        sl->cache = 0;
        if (ee->snd_nxt == ee->snd_una)
            ee->deadline = qp_ee_deadline(ee, now);
        if (ee->rtx_next == ee->snd_nxt)
            ee->rtx_next++;
        ee->snd_nxt++;
        ee->stats.tx_frames++;
        qp->ord_count++;
        if (resp) {
            /* Waits for the response: the request's sequence number and
             * the sink (atomic: the result buffer) are kept in its
             * tracking entry. */
            struct ofl_qp_swqe *t =
                &qp->sq_track[c->idx & (qp->sq.depth - 1u)];

            t->got = ee->snd_nxt - 1u;
            t->to = c->num_sge != 0 ? qp->sq_sge[0].addr : 0u;
            t->stag = c->num_sge != 0 ? qp->sq_sge[0].stag : 0u;
            c->active = 0;
            return OFL_OK;
        }
        if (qp->attr.acked) {
            c->active = 0; /* in flight until the acknowledgement */
            return OFL_OK;
        }
    }
    qp_cur_done(qp, OFL_WC_SUCCESS);
    return OFL_OK;
}

/* ---- receiving a datagram ---------------------------------------------------- */

/* Can qp take a frame of n bytes now? (state, size, a receive WQE) */
static enum ofl_err qp_dg_can_take(const struct ofl_qp *qp, size_t n)
{
    if (!qp_state_in(qp, QP_DG_RX_OK))
        return OFL_E_QP_STATE;
    if (n > qp->attr.max_dgram)
        return OFL_E_QP_DG_TOO_LONG;
    if (qp->rq.ci == qp->rq.db_pi)
        return OFL_E_QP_RQ_EMPTY;
    return OFL_OK;
}

/* The request in sequence finds no room for its result (err): not taken,
 * an RNR NAK when enabled (the requester asks again later). */
static enum ofl_err qp_ee_no_room(struct ofl_ee *ee, enum ofl_err err)
{
    if ((ee->attr.flags & OFL_EE_F_NAK) != 0) {
        qp_ee_nak_send(ee, OFL_DG_NAK_RNR, ee->rcv_nxt, OFL_OK,
                       qp_ee_gap(ee, ee->rcv_nxt));
        ee->nak_sent = 1;
    }
    return err;
}

/*
 * Unpinned pages on a datagram QP ("Unpinned pages" in offload.h): an
 * inbound frame whose access of n bytes at to through stag (checked) met
 * a page not present before anything changed is, under
 * OFL_QP_FAULT_WAIT, not taken: the fault recorded (OFL_QP_FAULT_DG) and
 * raised once, and on RD (ee) the frame refused as one without room is,
 * an RNR NAK when enabled, no acknowledgement: the requester's
 * retransmission brings it again. A datagram cannot be held (there is no
 * stream to stop, and a datagram QP may have no rx_buf). true: it waits;
 * false (FAIL, no page missing, or given up): the caller goes on.
 */
static OFL_NOINLINE bool qp_dg_fault_hold(struct ofl_qp *qp, struct ofl_ee *ee,
                                          uint32_t stag, uint64_t to,
                                          uint32_t n)
{
    uint64_t va;

    if (!qp->attr.fault_wait || n == 0 ||
        !qp_fault_scan(qp, stag, to, n, &va) ||
        !qp_fault_hold(qp, OFL_QP_FAULT_DG, stag, va))
        return false;
    if (ee != NULL)
        (void)qp_ee_no_room(ee, OFL_E_TPT_PAGE_FAULT);
    return true;
}

/* A datagram frame for qp is about to be tried: a wait is set again if it
 * still waits (qp_dg_fault_hold). */
static void qp_dg_fault_try(struct ofl_qp *qp)
{
    qp->fault.in_wait = 0;
}

/* Done with a datagram frame of qp: when it did not wait, the record of
 * an earlier frame's wait (and a give-up) ends, unless another wait of
 * the QP still holds it. Returns err. */
static enum ofl_err qp_dg_fault_done(struct ofl_qp *qp, enum ofl_err err)
{
    if (qp->fault.where != OFL_QP_FAULT_NONE)
        qp_fault_settle(qp);
    return err;
}

/*
 * Consumes the next receive WQE of qp for the n bytes at p (all checks
 * done): placed at offset 0 through the local checks, completed with the
 * source (h, NULL for raw). A WQE that is malformed, fails its checks or
 * is too small completes with its error status; the frame is consumed.
 * Under OFL_QP_FAULT_WAIT a receive buffer page not present (every page
 * of the n bytes translated first) leaves the frame not taken and the
 * WQE where it was: OFL_E_TPT_PAGE_FAULT (qp_dg_fault_hold); else
 * OFL_OK.
 */
static OFL_NOINLINE enum ofl_err qp_dg_deliver(struct ofl_qp *qp,
                                               const uint8_t *p, uint32_t n,
                                               const struct ofl_dg_hdr *h)
{
    struct ofl_cqe *e;
    uint8_t status;
    enum ofl_err err = qp_rq_fetch(qp, &status);
    uint32_t stag;
    uint64_t va;

    if (err == OFL_OK && n > qp->rcur.total) {
        err = OFL_E_QP_DG_TOO_LONG;
        status = OFL_WC_LOC_LEN_ERR;
    }
    if (err == OFL_OK && qp->attr.fault_wait && !qp->fault.give_up &&
        qp_rq_fault_scan(qp, 0, n, &stag, &va) &&
        qp_fault_hold(qp, OFL_QP_FAULT_DG, stag, va)) {
        qp->rcur.active = 0; /* fetched again on the retry */
        return OFL_E_TPT_PAGE_FAULT;
    }
    if (err == OFL_OK) {
        err = qp_scatter(qp, 0, p, n, false);
        if (err != OFL_OK)
            status = (uint8_t)ofl_tpt_wc_status(err);
    }
    qp->rcur.active = 0;
    e = qp_rq_complete(qp, qp->rcur.wr_id, OFL_QP_OP_RECV,
                       err == OFL_OK ? (uint8_t)OFL_WC_SUCCESS : status);
    qp->stats.rx_fpdus++;
    qp->stats.rx_bytes += n;
    if (e == NULL)
        return OFL_OK;
    e->byte_len = err == OFL_OK ? n : 0;
    if (h != NULL) {
        e->flags = OFL_CQE_SRC;
        if (h->flags & OFL_DG_F_SE)
            e->flags |= OFL_CQE_SOLICITED;
        e->src_addr = h->src_addr;
        e->src_qpn = h->src_qpn;
    }
    qp_cqe_commit(qp->attr.recv_cq, e);
    return OFL_OK;
}

/* The in-sequence RD frame was consumed (delivered, or refused for good):
 * the next is expected, and acknowledged. */
static void qp_ee_consumed(struct ofl_ee *ee)
{
    struct ofl_ee_slot *sl = qp_ee_rx(ee, ee->rcv_nxt);

    sl->rx_code = 0; /* delivered: the record of the index is its now */
    sl->rx_err = 0;
    sl->rx_gap = 0;
    sl->rx_cache = 0;
    ee->rcv_nxt++;
    ee->stats.rx_frames++;
    ee->nak_sent = 0;
    qp_ee_ack_send(ee);
}

/* The in-sequence RD frame is refused for good with an ACCESS or INVALID
 * NAK carrying err: consumed (the sequence moves on), remembered (its
 * record and nak_sn) so that its retransmission is answered with the NAK
 * again and every later acknowledgement's block accounts for it. The NAK
 * names the refusal before it (nak_sn, before nak_sn moves on). */
static enum ofl_err qp_ee_refuse(struct ofl_ee *ee, uint8_t code,
                                 enum ofl_err err)
{
    struct ofl_ee_slot *sl = qp_ee_rx(ee, ee->rcv_nxt);
    const uint32_t sn = ee->rcv_nxt, gap = qp_ee_gap(ee, sn);

    qp_ee_nak_send(ee, code, sn, err, gap); /* its block: nak_sn, exact */
    sl->rx_code = code;
    sl->rx_err = (uint16_t)err;
    sl->rx_gap = (uint16_t)gap;
    sl->rx_cache = 0;
    ee->nak_sn = sn;
    ee->nak_code = code;
    ee->nak_err = (uint16_t)err;
    ee->rcv_nxt = sn + 1u;
    ee->nak_sent = 0;
    return err;
}

/* An RD RDMA Write in sequence for qp (seed 001: a datagram QP "that
 * allows RDMA operations, can accept RDMA operations from any node ...
 * that obtains the RKey"): the remote checks (FIG. 18A a-f) through the
 * TPT over the whole payload, every page translated, then the placement;
 * a refusal is an ACCESS NAK. A one-shot key is spent by the Write. */
static OFL_NOINLINE enum ofl_err qp_rd_write(struct ofl_qp *qp,
                                             struct ofl_ee *ee,
                                             const struct ofl_dg_hdr *h,
                                             const uint8_t *data)
{
    const uint32_t n = (uint32_t)h->len - OFL_DG_WRITE_EXT;
    struct ofl_tpt_remote a;
    struct ofl_tpt_sgl sgl;
    enum ofl_err err;

    if (n != 0) {
        qp_remote(qp, &a, h->stag, h->to, n, OFL_TPT_REMOTE_WRITE);
        sgl.piece = qp->piece;
        sgl.cap = OFL_QP_PIECES;
        err = ofl_tpt_check_translate_access(qp->attr.tpt, &a, &sgl);
        if (err == OFL_E_TPT_SGL_FULL)
            err = qp_tpt_rest_ok(qp, h->stag, h->to, n, sgl.bytes);
        /* Unpinned pages: every page was translated before the
         * placement, so nothing of it was placed. */
        if (err == OFL_E_TPT_PAGE_FAULT &&
            qp_dg_fault_hold(qp, ee, h->stag, h->to, n))
            return err;
        if (err == OFL_OK)
            err = qp_place_rest(qp, &sgl, h->stag, h->to, data, n);
        if (err != OFL_OK)
            return qp_ee_refuse(ee, OFL_DG_NAK_ACCESS, err);
        (void)ofl_tpt_note_use(qp->attr.tpt, h->stag, true);
    }
    qp->stats.rx_fpdus++;
    qp->stats.rx_bytes += n;
    qp_ee_consumed(ee);
    return OFL_OK;
}

/* The response (kind 8) to request h, its n payload bytes already after
 * the header in the frame of ee's next slot: numbered, kept, sent, and
 * the request consumed. cache: the replay cache entry + 1 that the
 * response's acknowledgement frees (0: none). */
static OFL_NOINLINE void qp_rd_resp_queue(struct ofl_qp *qp, struct ofl_ee *ee,
                                          const struct ofl_dg_hdr *h,
                                          uint32_t n, uint32_t cache,
                                          uint64_t now)
{
    const uint32_t hl = OFL_DG_HDR_LEN + OFL_DG_RESP_EXT;
    uint8_t *frame = qp_ee_frame(ee, ee->snd_nxt);
    struct ofl_ee_slot *sl;
    struct ofl_dg_hdr r;

    ofl_fill(&r, 0, sizeof(r));
    r.kind = OFL_DG_RD_RESP;
    r.dst_addr = ee->attr.remote_addr;
    r.src_addr = ee->attr.local_addr;
    r.dst_qpn = h->src_qpn;
    r.src_qpn = h->dst_qpn;
    r.sn = ee->snd_nxt;
    r.len = (uint16_t)(OFL_DG_RESP_EXT + n);
    r.rlen = h->sn;
    (void)ofl_dg_build(&r, frame, hl);
    sl = &ee->attr.slot[ee->snd_nxt & (ee->attr.window - 1u)];
    sl->qp = NULL; /* completes nothing when acknowledged (the rx_ record
                      of the index is the receiver's: kept) */
    sl->epoch = 0;
    sl->wqe = 0;
    sl->complete = 0;
    sl->read = 0;
    sl->cache = (uint16_t)cache;
    sl->len = hl + n;
    if (ee->snd_nxt == ee->snd_una)
        ee->deadline = qp_ee_deadline(ee, now);
    ee->snd_nxt++;
    ee->stats.tx_frames++;
    qp->stats.tx_bytes += n;
    qp_ee_consumed(ee);
    (void)qp_ee_resend(ee); /* refused: ofl_ee_tick sends it */
}

/* An RD RDMA Read request in sequence for qp: asked length within one
 * response frame (else INVALID NAK), the remote read checks (ACCESS NAK),
 * a slot of ee's window for the response (else refused, an RNR NAK when
 * enabled: the requester asks again). The response is an RD frame of ee
 * like any other: kept in its slot, acknowledged, resent. */
static OFL_NOINLINE enum ofl_err qp_rd_read(struct ofl_qp *qp,
                                            struct ofl_ee *ee,
                                            const struct ofl_dg_hdr *h,
                                            uint64_t now)
{
    const uint32_t n = h->rlen;
    const uint32_t hl = OFL_DG_HDR_LEN + OFL_DG_RESP_EXT;
    struct ofl_tpt_remote a;
    uint8_t *frame;
    enum ofl_err err;

    if (n > qp->attr.max_dgram || ee->attr.slot_size < hl ||
        n > ee->attr.slot_size - hl)
        return qp_ee_refuse(ee, OFL_DG_NAK_INVALID, OFL_E_QP_DG_TOO_LONG);
    if (n != 0) {
        qp_remote(qp, &a, h->stag, h->to, n, OFL_TPT_REMOTE_READ);
        err = ofl_tpt_check_access(qp->attr.tpt, &a);
        if (err != OFL_OK)
            return qp_ee_refuse(ee, OFL_DG_NAK_ACCESS, err);
    }
    if (ee->snd_nxt - ee->snd_una >= ee->attr.window)
        return qp_ee_no_room(ee, OFL_E_QP_EE_FULL);
    frame = qp_ee_frame(ee, ee->snd_nxt);
    if (n != 0) {
        err = qp_dma_tpt(qp, h->stag, h->to, frame + hl, n, 0u);
        /* Unpinned source: what was read lies in a slot not yet in use;
         * no response, the request not acknowledged. */
        if (err == OFL_E_TPT_PAGE_FAULT &&
            qp_dg_fault_hold(qp, ee, h->stag, h->to, n))
            return err;
        if (err != OFL_OK)
            return qp_ee_refuse(ee, OFL_DG_NAK_ACCESS, err);
        (void)ofl_tpt_note_use(qp->attr.tpt, h->stag, true);
    }
    qp_rd_resp_queue(qp, ee, h, n, 0, now);
    return OFL_OK;
}

/*
 * The replay cache entry of the response ee sends next (offload.h "Atomics
 * on RD"): the one at (snd_nxt - snd_isn) mod atomic_cap (a power of two),
 * or NULL while it still holds a result whose response is not yet
 * acknowledged. Cost: O(1).
 *
 * Why atomic_cap >= window never answers NULL: an entry is used exactly
 * while its response, resp_sn, is outstanding (qp_ee_release clears it),
 * i.e. snd_una <= resp_sn < snd_nxt; the caller has checked that the
 * window has room, snd_nxt - snd_una < window. So every used entry has
 * 1 <= snd_nxt - resp_sn < window <= atomic_cap: its index differs from
 * snd_nxt's. (Keyed by the request's sequence number instead this would
 * not hold: a response that is lost keeps its entry while the requester,
 * acknowledged, goes on sending up to window frames past every request
 * it has sent, so held requests may span any number of sequence numbers.)
 */
static struct ofl_ee_atomic *qp_ee_atomic_slot(const struct ofl_ee *ee)
{
    struct ofl_ee_atomic *e =
        &ee->attr.atomic[(ee->snd_nxt - ee->attr.snd_isn) &
                         (ee->attr.atomic_cap - 1u)];

    return e->used ? NULL : e;
}

/*
 * An RD atomic request in sequence for qp (offload.h "Atomics on RD"):
 * a replay cache (else INVALID NAK), an 8-byte aligned TO (else INVALID
 * NAK), the remote atomic checks (FIG. 18A a-f: ACCESS NAK), then room
 * for the result, a window slot for the response and a free cache entry
 * (else refused, not taken, an RNR NAK when enabled) before anything
 * changes; then read, modify, write of the little-endian 64-bit word
 * (RFC 7306, as the stream path: qp_atomic_new), the original value
 * recorded in the cache under the request's sequence number and sent in
 * the response. A failed read or write is an ACCESS NAK with memory as
 * it was (the write is the last step).
 */
static OFL_NOINLINE enum ofl_err qp_rd_atomic(struct ofl_qp *qp,
                                              struct ofl_ee *ee,
                                              const struct ofl_dg_hdr *h,
                                              uint64_t now)
{
    const uint32_t hl = OFL_DG_HDR_LEN + OFL_DG_RESP_EXT;
    struct ofl_rdmap_atomic_req q;
    struct ofl_tpt_remote a;
    struct ofl_ee_atomic *e;
    uint8_t v[8] = {0}; /* clang-analyzer: qp_dma_tpt fills it on OFL_OK */
    uint64_t orig = 0;
    enum ofl_err err;

    if (ee->attr.atomic_cap == 0)
        return qp_ee_refuse(ee, OFL_DG_NAK_INVALID, OFL_E_QP_EE_NO_ATOMIC);
    if ((h->to & 7u) != 0)
        return qp_ee_refuse(ee, OFL_DG_NAK_INVALID, OFL_E_QP_ATOMIC_ALIGN);
    if (ee->attr.slot_size < hl + OFL_DG_ATOMIC_RESULT)
        return qp_ee_refuse(ee, OFL_DG_NAK_INVALID, OFL_E_QP_DG_TOO_LONG);
    qp_remote(qp, &a, h->stag, h->to, 8, OFL_TPT_REMOTE_ATOMIC);
    err = ofl_tpt_check_access(qp->attr.tpt, &a);
    if (err != OFL_OK)
        return qp_ee_refuse(ee, OFL_DG_NAK_ACCESS, err);
    if (ee->snd_nxt - ee->snd_una >= ee->attr.window)
        return qp_ee_no_room(ee, OFL_E_QP_EE_FULL);
    e = qp_ee_atomic_slot(ee);
    if (e == NULL)
        return qp_ee_no_room(ee, OFL_E_QP_EE_ATOMIC_FULL);
    err = qp_dma_tpt(qp, h->stag, h->to, v, 8, 0u);
    /* Unpinned target: the read translates the 8 bytes before its DMA,
     * so the wait comes before the read-modify-write began: it runs
     * once, for the retransmission that finds the page. */
    if (err == OFL_E_TPT_PAGE_FAULT &&
        qp_dg_fault_hold(qp, ee, h->stag, h->to, 8))
        return err;
    if (err == OFL_OK) {
        ofl_fill(&q, 0, sizeof(q));
        q.op = h->aop;
        q.add_swap = h->add_swap;
        q.add_swap_mask = h->add_swap_mask;
        q.compare = h->compare;
        q.compare_mask = h->compare_mask;
        orig = ofl_load_le64(v);
        ofl_store_le64(v, qp_atomic_new(&q, orig));
        err = qp_dma_tpt(qp, h->stag, h->to, v, 8, QP_DMA_WRITE);
    }
    if (err != OFL_OK)
        return qp_ee_refuse(ee, OFL_DG_NAK_ACCESS, err);
    (void)ofl_tpt_note_use(qp->attr.tpt, h->stag, true);
    e->used = 1;
    e->sn = h->sn;
    e->resp_sn = ee->snd_nxt;
    e->orig = orig;
    ofl_store_be64(qp_ee_frame(ee, ee->snd_nxt) + hl, orig);
    qp_rd_resp_queue(qp, ee, h, OFL_DG_ATOMIC_RESULT,
                     (uint32_t)(e - ee->attr.atomic) + 1u, now);
    /* the request's record (consumed just now) finds the entry for its
     * duplicates */
    qp_ee_rx(ee, h->sn)->rx_cache = (uint16_t)(e - ee->attr.atomic + 1);
    return OFL_OK;
}

/* A duplicate of RD atomic request sn (consumed before, not refused):
 * when the replay cache holds it, its response (the original value) is
 * sent again now; it is never executed again. The record of sn's index
 * names the entry its request filled (rx_cache); the entry answers only
 * while it holds sn exactly (the cache is this EE's: the EE is exact
 * too). A duplicate window or more frames back (its index's record
 * since reused) is not answered: the requester resends only from its
 * snd_una, and snd_una >= its snd_nxt - window >= rcv_nxt - window (its
 * window is ours), so only a delayed copy (its response comes from the
 * timeout) or a hostile peer sends one. Cost: O(1). */
static void qp_ee_replay(struct ofl_ee *ee, uint32_t sn)
{
    const uint32_t c = qp_ee_rx(ee, sn)->rx_cache;
    const struct ofl_ee_atomic *e;

    if (c == 0 || c > ee->attr.atomic_cap)
        return;
    e = &ee->attr.atomic[c - 1u];
    if (e->used && e->sn == sn &&
        ee->attr.transmit(
            ee->attr.transmit_ctx, qp_ee_frame(ee, e->resp_sn),
            ee->attr.slot[e->resp_sn & (ee->attr.window - 1u)].len, 0) == 0)
        ee->stats.rtx_frames++;
}

/* An RD Read response in sequence (it is consumed whatever it answers:
 * the responder must not resend it). It completes the RD Read (or atomic)
 * of QP h->dst_qpn that went through ee with request sequence number
 * h->rlen: data placed into the sink through the local checks (FIG. 15;
 * an atomic's 8-byte original value, big-endian on the wire, stored
 * little-endian as the stream path stores it), the WQE completed
 * (BAD_RESP_ERR when the length differs from the one asked, 8 for an
 * atomic). OFL_E_QP_UNEXPECTED when no such WQE waits,
 * OFL_E_QP_RESP_MISMATCH for the length. Cost: O(SQ depth). */
static OFL_NOINLINE enum ofl_err qp_rd_resp(struct ofl_qp_node *node,
                                            struct ofl_ee *ee,
                                            const struct ofl_dg_hdr *h,
                                            const uint8_t *data)
{
    const uint32_t n = (uint32_t)h->len - OFL_DG_RESP_EXT;
    const uint32_t ei = (uint32_t)(ee - node->ee);
    struct ofl_qp *qp = NULL;
    struct ofl_qp_swqe *t = NULL;
    enum ofl_err err = OFL_E_QP_UNEXPECTED;
    uint8_t b[4], v[8], status;
    uint32_t i;

    if (h->dst_qpn < node->qp_cap)
        qp = node->qp[h->dst_qpn];
    if (qp == NULL || qp->attr.service != OFL_QP_SVC_RD) {
        qp_ee_consumed(ee);
        return err;
    }
    for (i = qp->sq.cc; i != qp->sq.ci; i++) {
        t = &qp->sq_track[i & (qp->sq.depth - 1u)];
        if ((t->opcode == OFL_QP_OP_READ || qp_op_atomic(t->opcode)) &&
            t->state == QP_TRACK_FLIGHT && t->got == h->rlen &&
            qp_wq_read(qp, &qp->sq, i, QPW_DG_EE + qp_dg_at(t->opcode), b,
                       sizeof(b)) == OFL_OK &&
            ofl_load_le32(b) == ei &&
            !(qp->cur.active && qp->cur.idx == i))
            break;
    }
    if (i == qp->sq.ci) {
        qp_ee_consumed(ee);
        return err;
    }
    qp_dg_fault_try(qp);
    if (n != t->len) {
        err = OFL_E_QP_RESP_MISMATCH;
        status = OFL_WC_BAD_RESP_ERR;
    } else {
        err = n == 0 ? OFL_OK
                     : qp_check_local(qp->attr.tpt, t->stag, qp->attr.pd,
                                      t->to, n, OFL_TPT_LOCAL_WRITE);
        /* Unpinned sink (or result buffer): every page of it translated
         * before a byte is placed; on a wait the response is not taken
         * (not acknowledged), the Read keeps its ORD and the responder's
         * retransmission retries it. */
        if (err == OFL_OK && qp_dg_fault_hold(qp, ee, t->stag, t->to, n))
            return OFL_E_TPT_PAGE_FAULT;
        if (qp_op_atomic(t->opcode)) { /* n == 8 */
            ofl_store_le64(v, ofl_load_be64(data));
            data = v;
        }
        if (err == OFL_OK && n != 0)
            err = qp_dma_tpt(qp, t->stag, t->to, (uint8_t *)data, n,
                             QP_DMA_WRITE);
        status = (uint8_t)ofl_tpt_wc_status(err);
        err = OFL_OK; /* the WQE carries the local error */
    }
    qp_ee_consumed(ee);
    if (qp->ord_count != 0)
        qp->ord_count--;
    /* Its request, still in the requester's window (its ack may come
     * after the response), no longer names the WQE. */
    if (h->rlen - ee->snd_una < ee->snd_nxt - ee->snd_una) {
        struct ofl_ee_slot *sl =
            &ee->attr.slot[h->rlen & (ee->attr.window - 1u)];

        if (sl->qp == qp && sl->read)
            sl->qp = NULL;
    }
    qp->stats.rx_bytes += n;
    qp_swqe_done(qp, i, status);
    qp_sq_complete(qp);
    return qp_dg_fault_done(qp, err);
}

enum ofl_err ofl_qp_dgram_input(struct ofl_qp_node *node, const uint8_t *frame,
                                size_t len, uint64_t now)
{
    struct ofl_dg_hdr h;
    struct ofl_ee *ee = NULL;
    struct ofl_qp *qp;
    const uint8_t *x;
    enum ofl_err err;

    if (node == NULL || (frame == NULL && len != 0))
        return OFL_E_ARG;
    err = ofl_dg_parse(frame, len, &h);
    if (err != OFL_OK)
        return err;
    x = frame + OFL_DG_HDR_LEN; /* len >= 28: frame is not NULL */
    if (h.dst_addr != node->addr)
        return OFL_E_QP_DG_NOT_FOR_US;
    if (h.kind != OFL_DG_UD) {
        ee = ofl_qp_node_ee(node, h.src_addr);
        if (ee == NULL)
            return OFL_E_QP_EE_NONE;
        if (ee->state != OFL_EE_RTS)
            return OFL_E_QP_EE_STATE;
        if (h.kind == OFL_DG_ACK)
            return qp_ee_ack(ee, &h, now);
        if (h.kind == OFL_DG_NAK)
            return qp_ee_nak(ee, &h, now);
        if (ofl_sn_lt(h.sn, ee->rcv_nxt)) { /* consumed before */
            uint16_t e16;
            const uint8_t code = qp_ee_rx_code(ee, h.sn, &e16);

            ee->stats.dup_frames++;
            /* refused: its NAK again, naming the refusal before it (its
             * record's gap; not held: 1, a block that says nothing) */
            if (code != 0) {
                qp_ee_nak_send(ee, code, h.sn, (enum ofl_err)e16,
                               qp_ee_rx_held(ee, h.sn)
                                   ? qp_ee_rx(ee, h.sn)->rx_gap
                                   : 1u);
            } else {
                qp_ee_ack_send(ee);
                if (h.kind == OFL_DG_RD_ATOMIC) /* answered, not executed */
                    qp_ee_replay(ee, h.sn);
            }
            return OFL_OK;
        }
        if (h.sn != ee->rcv_nxt) {
            /* go-back-N: the sender resends; with NAKs at once, one NAK
             * per gap */
            if ((ee->attr.flags & OFL_EE_F_NAK) != 0 && !ee->nak_sent) {
                qp_ee_nak_send(ee, OFL_DG_NAK_SEQ, ee->rcv_nxt, OFL_OK,
                               qp_ee_gap(ee, ee->rcv_nxt));
                ee->nak_sent = 1;
            }
            return OFL_E_QP_EE_SEQ;
        }
        if (h.kind == OFL_DG_RD_RESP)
            return qp_rd_resp(node, ee, &h, x + OFL_DG_RESP_EXT);
    }
    if (h.dst_qpn >= node->qp_cap || node->qp[h.dst_qpn] == NULL)
        return OFL_E_QP_DG_NO_QP;
    qp = node->qp[h.dst_qpn];
    if (qp->attr.service !=
        (h.kind == OFL_DG_UD ? OFL_QP_SVC_UD : OFL_QP_SVC_RD))
        return OFL_E_QP_DG_SERVICE;
    if (h.kind == OFL_DG_RD_WRITE || h.kind == OFL_DG_RD_READ ||
        h.kind == OFL_DG_RD_ATOMIC) {
        if (!qp_state_in(qp, QP_DG_RX_OK))
            return OFL_E_QP_STATE;
        qp_dg_fault_try(qp);
        err = h.kind == OFL_DG_RD_WRITE
                  ? qp_rd_write(qp, ee, &h, x + OFL_DG_WRITE_EXT)
              : h.kind == OFL_DG_RD_READ ? qp_rd_read(qp, ee, &h, now)
                                         : qp_rd_atomic(qp, ee, &h, now);
        return qp_dg_fault_done(qp, err);
    }
    err = qp_dg_can_take(qp, h.len);
    if (err != OFL_OK) {
        if (err == OFL_E_QP_RQ_EMPTY && ee != NULL &&
            (ee->attr.flags & OFL_EE_F_NAK) != 0) {
            qp_ee_nak_send(ee, OFL_DG_NAK_RNR, h.sn, OFL_OK,
                           qp_ee_gap(ee, h.sn));
            ee->nak_sent = 1;
        }
        return err;
    }
    /* Every check passed: commit (or, under OFL_QP_FAULT_WAIT, wait on
     * a receive buffer page not present: not taken). */
    qp_dg_fault_try(qp);
    err = qp_dg_deliver(qp, x, h.len, &h);
    if (err != OFL_OK)
        return ee != NULL ? qp_ee_no_room(ee, err) : err;
    if (ee != NULL)
        qp_ee_consumed(ee);
    return qp_dg_fault_done(qp, OFL_OK);
}

/* ---- raw datagrams ------------------------------------------------------------ */

static bool qp_addr16_eq(const uint8_t *a, const uint8_t *b)
{
    uint32_t i, d = 0;

    for (i = 0; i < 16; i++)
        d |= (uint32_t)(a[i] ^ b[i]);
    return d == 0;
}

enum ofl_err ofl_qp_steer_init(struct ofl_qp_steer *st,
                               struct ofl_qp_steer_entry *e, uint32_t cap)
{
    uint32_t i;

    if (st == NULL || e == NULL || cap == 0)
        return OFL_E_ARG;
    for (i = 0; i < cap; i++)
        ofl_fill(&e[i], 0, sizeof(e[i]));
    st->e = e;
    st->cap = cap;
    st->count = 0;
    return OFL_OK;
}

/* The entry of the pair, or NULL. */
static struct ofl_qp_steer_entry *qp_steer_at(const struct ofl_qp_steer *st,
                                              uint8_t nh, const uint8_t *addr)
{
    uint32_t i;

    for (i = 0; i < st->cap; i++)
        if (st->e[i].qp != NULL && st->e[i].next_header == nh &&
            qp_addr16_eq(st->e[i].addr, addr))
            return &st->e[i];
    return NULL;
}

enum ofl_err ofl_qp_steer_add(struct ofl_qp_steer *st, uint8_t next_header,
                              const uint8_t addr[16], struct ofl_qp *qp)
{
    uint32_t i;

    if (st == NULL || addr == NULL || qp == NULL)
        return OFL_E_ARG;
    if (qp->attr.service != OFL_QP_SVC_RAW)
        return OFL_E_QP_SERVICE;
    if (qp_steer_at(st, next_header, addr) != NULL)
        return OFL_E_QP_STEER_BUSY;
    for (i = 0; i < st->cap; i++) {
        struct ofl_qp_steer_entry *e = &st->e[i];

        if (e->qp == NULL) {
            e->qp = qp;
            e->next_header = next_header;
            ofl_copy(e->addr, addr, 16);
            st->count++;
            return OFL_OK;
        }
    }
    return OFL_E_QP_STEER_FULL;
}

enum ofl_err ofl_qp_steer_remove(struct ofl_qp_steer *st, uint8_t next_header,
                                 const uint8_t addr[16])
{
    struct ofl_qp_steer_entry *e;

    if (st == NULL || addr == NULL)
        return OFL_E_ARG;
    e = qp_steer_at(st, next_header, addr);
    if (e == NULL)
        return OFL_E_QP_STEER_NONE;
    e->qp = NULL;
    st->count--;
    return OFL_OK;
}

struct ofl_qp *ofl_qp_steer_find(const struct ofl_qp_steer *st,
                                 uint8_t next_header, const uint8_t addr[16])
{
    const struct ofl_qp_steer_entry *e;

    if (st == NULL || addr == NULL)
        return NULL;
    e = qp_steer_at(st, next_header, addr);
    return e != NULL ? e->qp : NULL;
}

enum ofl_err ofl_qp_raw_input(const struct ofl_qp_steer *st,
                              const uint8_t *frame, size_t len)
{
    struct ofl_qp *qp;
    enum ofl_err err;

    if (st == NULL || (frame == NULL && len != 0))
        return OFL_E_ARG;
    if (len < OFL_RAW_HDR_LEN)
        return OFL_E_QP_DG_SHORT;
    if ((frame[0] >> 4) != 6)
        return OFL_E_QP_RAW_NOT_IPV6;
    if ((size_t)ofl_load_be16(frame + RAW_PLEN) != len - OFL_RAW_HDR_LEN)
        return OFL_E_QP_DG_LENGTH;
    qp = ofl_qp_steer_find(st, frame[RAW_NEXT], frame + RAW_DST);
    if (qp == NULL)
        return OFL_E_QP_STEER_NONE;
    err = qp_dg_can_take(qp, len);
    if (err != OFL_OK)
        return err;
    /* Under OFL_QP_FAULT_WAIT a receive buffer page not present drops
     * the frame as on UD (qp_dg_deliver: not taken, raised once). */
    qp_dg_fault_try(qp);
    err = qp_dg_deliver(qp, frame, (uint32_t)len, NULL);
    return err != OFL_OK ? err : qp_dg_fault_done(qp, OFL_OK);
}


/* ---- host-memory WQE encoders and host CQs (offload.h) ------------------- */

/* The public byte layout is the one the engine reads. */
_Static_assert(OFL_SWQE_OPCODE == QPW_OPCODE && OFL_SWQE_FLAGS == QPW_FLAGS &&
                   OFL_SWQE_NUM_SGE == QPW_NSGE && OFL_SWQE_STAG == QPW_STAG &&
                   OFL_SWQE_WR_ID == QPW_WRID && OFL_SWQE_REMOTE_TO == QPW_TO &&
                   OFL_SWQE_REMOTE_STAG == QPW_RSTAG &&
                   OFL_SWQE_WORD == QPW_B32 && OFL_SWQE_EXT == QPW_EXT &&
                   OFL_SWQE_DG_ADDR == QPW_DG_ADDR &&
                   OFL_SWQE_DG_EE == QPW_DG_EE &&
                   OFL_SWQE_DG_QPN == QPW_DG_QPN &&
                   OFL_SWQE_DG_ATOMIC_ADDR == QPW_DG_ADDR + QPW_DG_ATOMIC &&
                   OFL_SWQE_DG_ATOMIC_EE == QPW_DG_EE + QPW_DG_ATOMIC &&
                   OFL_SWQE_DG_ATOMIC_QPN == QPW_DG_QPN + QPW_DG_ATOMIC &&
                   OFL_RWQE_WR_ID == QPR_WRID &&
                   OFL_RWQE_NUM_SGE == QPR_NSGE,
               "offload.h WQE layout");

static enum ofl_err qp_wqe_sges(const struct ofl_qp_sge *sge, uint32_t n,
                                uint32_t hdr, uint32_t slot_len)
{
    uint64_t sum = 0;
    uint32_t i;

    if (n > 255u || n > (slot_len - hdr) / OFL_QP_SGE_LEN)
        return OFL_E_QP_SGE;
    for (i = 0; i < n; i++)
        sum += sge[i].len;
    return sum >= QP_MSG_MAX ? OFL_E_QP_WR : OFL_OK;
}

enum ofl_err ofl_qp_wqe_send(void *slot, uint32_t slot_len,
                             const struct ofl_qp_wr *wr)
{
    uint8_t *w = (uint8_t *)slot;
    enum ofl_err err;

    if (w == NULL || wr == NULL || slot_len < OFL_QP_SQ_HDR ||
        slot_len > OFL_QP_WQE_MAX || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    if (wr->opcode < OFL_QP_OP_SEND || wr->opcode > OFL_QP_OP_ISCSI_PDU ||
        (wr->flags & ~(uint32_t)QP_WR_FLAGS) != 0)
        return OFL_E_QP_WR;
    err = qp_wqe_sges(wr->sge, wr->num_sge, OFL_QP_SQ_HDR, slot_len);
    if (err != OFL_OK)
        return err;
    ofl_fill(w, 0, OFL_QP_SQ_HDR);
    w[QPW_OPCODE] = (uint8_t)wr->opcode;
    w[QPW_FLAGS] = (uint8_t)wr->flags;
    w[QPW_NSGE] = (uint8_t)wr->num_sge;
    ofl_store_le32(w + QPW_STAG, wr->stag);
    ofl_store_le64(w + QPW_WRID, wr->wr_id);
    qp_put_send(w, wr, (uint32_t)wr->remote_to);
    if ((wr->opcode == OFL_QP_OP_SEND || wr->opcode == OFL_QP_OP_WRITE ||
         wr->opcode == OFL_QP_OP_READ || qp_op_atomic(wr->opcode)) &&
        (wr->dest.addr | wr->dest.ee | wr->dest.qpn) != 0) {
        const uint32_t at = qp_dg_at(wr->opcode);

        ofl_store_le32(w + QPW_DG_ADDR + at, wr->dest.addr);
        ofl_store_le32(w + QPW_DG_EE + at, wr->dest.ee);
        ofl_store_le32(w + QPW_DG_QPN + at, wr->dest.qpn);
    }
    qp_put_sges(w + OFL_QP_SQ_HDR, wr->sge, wr->num_sge);
    return OFL_OK;
}

enum ofl_err ofl_qp_wqe_recv(void *slot, uint32_t slot_len,
                             const struct ofl_qp_recv_wr *wr)
{
    uint8_t *w = (uint8_t *)slot;
    enum ofl_err err;

    if (w == NULL || wr == NULL || slot_len < OFL_QP_RQ_HDR ||
        slot_len > OFL_QP_WQE_MAX || (wr->sge == NULL && wr->num_sge != 0))
        return OFL_E_ARG;
    err = qp_wqe_sges(wr->sge, wr->num_sge, OFL_QP_RQ_HDR, slot_len);
    if (err != OFL_OK)
        return err;
    ofl_fill(w, 0, OFL_QP_RQ_HDR);
    ofl_store_le64(w + QPR_WRID, wr->wr_id);
    w[QPR_NSGE] = (uint8_t)wr->num_sge;
    qp_put_sges(w + OFL_QP_RQ_HDR, wr->sge, wr->num_sge);
    return OFL_OK;
}

enum ofl_err ofl_qp_cq_overrun(struct ofl_qp *qp)
{
    enum ofl_err err;

    if (qp == NULL)
        return OFL_E_ARG;
    qp_raise(qp, OFL_QP_EVT_CQ_OVERRUN);
    if (qp->state == OFL_QP_ERROR)
        return OFL_OK;
    err = ofl_qp_modify(qp, OFL_QP_ERROR);
    return err;
}

#define HCQ_FLAGS                                                        \
    (OFL_CQE_IMM | OFL_CQE_INV | OFL_CQE_SOLICITED | OFL_CQE_ISCSI_CHECK | \
     OFL_CQE_SRC)

void ofl_hcqe_encode(uint8_t *out, const struct ofl_cqe *e, uint8_t phase)
{
    if (out == NULL || e == NULL)
        return;
    ofl_fill(out, 0, OFL_HCQE_LEN);
    ofl_store_le64(out + OFL_HCQE_WR_ID, e->wr_id);
    ofl_store_le64(out + OFL_HCQE_IMM, e->imm);
    ofl_store_le32(out + OFL_HCQE_BYTE_LEN, e->byte_len);
    ofl_store_le32(out + OFL_HCQE_QPN, e->qpn);
    ofl_store_le32(out + OFL_HCQE_STAG, e->stag);
    ofl_store_le32(out + OFL_HCQE_SRC_ADDR, e->src_addr);
    ofl_store_le32(out + OFL_HCQE_SRC_QPN, e->src_qpn);
    out[OFL_HCQE_OPCODE] = e->opcode;
    out[OFL_HCQE_STATUS] = e->status;
    out[OFL_HCQE_FLAGS] = e->flags;
    out[OFL_HCQE_OWNER] = (uint8_t)(phase & OFL_HCQE_PHASE);
}

enum ofl_err ofl_hcqe_decode(const uint8_t *in, struct ofl_cqe *e)
{
    uint32_t i;
    uint8_t acc = 0;

    if (in == NULL || e == NULL)
        return OFL_E_ARG;
    for (i = OFL_HCQE_RESERVED; i < OFL_HCQE_OWNER; i++)
        acc |= in[i];
    acc |= (uint8_t)(in[OFL_HCQE_OWNER] & ~OFL_HCQE_PHASE);
    acc |= (uint8_t)(in[OFL_HCQE_FLAGS] & ~(uint32_t)HCQ_FLAGS);
    if (acc != 0 || in[OFL_HCQE_OPCODE] < OFL_QP_OP_SEND ||
        in[OFL_HCQE_OPCODE] > OFL_QP_OP_ISCSI_RECV ||
        in[OFL_HCQE_STATUS] >= OFL_WC_STATUS_COUNT_ ||
        ofl_load_le32(in + OFL_HCQE_BYTE_LEN) >= QP_MSG_MAX)
        return OFL_E_QP_HCQ_CQE;
    e->wr_id = ofl_load_le64(in + OFL_HCQE_WR_ID);
    e->imm = ofl_load_le64(in + OFL_HCQE_IMM);
    e->byte_len = ofl_load_le32(in + OFL_HCQE_BYTE_LEN);
    e->qpn = ofl_load_le32(in + OFL_HCQE_QPN);
    e->stag = ofl_load_le32(in + OFL_HCQE_STAG);
    e->src_addr = ofl_load_le32(in + OFL_HCQE_SRC_ADDR);
    e->src_qpn = ofl_load_le32(in + OFL_HCQE_SRC_QPN);
    e->opcode = in[OFL_HCQE_OPCODE];
    e->status = in[OFL_HCQE_STATUS];
    e->flags = in[OFL_HCQE_FLAGS];
    e->reserved = 0;
    return OFL_OK;
}

enum ofl_err ofl_hcq_init(struct ofl_hcq *h, const struct ofl_port *port,
                          const struct ofl_hcq_cfg *cfg)
{
    if (h == NULL || cfg == NULL || !qp_pow2(cfg->cap) ||
        cfg->cap > (1u << 24) || cfg->mod_count == 0 || cfg->ci_dma > 1 ||
        !ofl_dma_range_ok(cfg->ring_pa,
                          (size_t)cfg->cap * OFL_HCQE_LEN) ||
        (cfg->ci_dma && !ofl_dma_range_ok(cfg->ci_pa, 4)))
        return OFL_E_ARG;
    if (ofl_port_check(port) != OFL_OK)
        return port == NULL ? OFL_E_ARG : OFL_E_PORT_VERSION;
    if (!OFL_PORT_HAS(port, dma_write) ||
        (cfg->ci_dma && !OFL_PORT_HAS(port, dma_read)))
        return OFL_E_PORT_HOOK;
    ofl_fill(h, 0, sizeof(*h));
    ofl_copy(&h->cfg, cfg, sizeof(h->cfg));
    h->port = port;
    return OFL_OK;
}

enum ofl_err ofl_hcq_set_ci(struct ofl_hcq *h, uint32_t ci)
{
    if (h == NULL)
        return OFL_E_ARG;
    /* Forward only, and never past what was written. */
    if (ci - h->ci > h->pi - h->ci)
        return OFL_E_QP_HCQ_CI;
    h->ci = ci;
    return OFL_OK;
}

enum ofl_err ofl_hcq_arm(struct ofl_hcq *h, enum ofl_cq_arm arm)
{
    if (h == NULL || (arm != OFL_CQ_ARM_NONE && arm != OFL_CQ_ARM_SOLICITED &&
                      arm != OFL_CQ_ARM_ANY))
        return OFL_E_ARG;
    h->arm = (uint8_t)arm;
    h->mod_pending = 0;
    return OFL_OK;
}

static void hcq_fire(struct ofl_hcq *h)
{
    h->arm = OFL_CQ_ARM_NONE;
    h->mod_pending = 0;
    h->notifies++;
    (void)ofl_port_notify(h->port, h->cfg.vector);
}

enum ofl_err ofl_hcq_tick(struct ofl_hcq *h, uint64_t now)
{
    if (h == NULL)
        return OFL_E_ARG;
    if (h->mod_pending != 0 && h->cfg.mod_time != 0 &&
        now - h->mod_since >= h->cfg.mod_time)
        hcq_fire(h);
    return OFL_OK;
}

/* Room for one more CQE: the ring by the consumer index known, else the
 * one the host published (read by DMA, checked). */
static enum ofl_err hcq_room(struct ofl_hcq *h)
{
    uint8_t b[4];
    enum ofl_err err;

    if (h->pi - h->ci < h->cfg.cap)
        return OFL_OK;
    if (!h->cfg.ci_dma)
        return OFL_E_QP_HCQ_OVERRUN;
    err = ofl_port_dma_read(h->port, h->cfg.ci_pa, b, 4);
    if (err != OFL_OK)
        return err;
    err = ofl_hcq_set_ci(h, ofl_load_le32(b));
    if (err != OFL_OK)
        return err;
    return h->pi - h->ci < h->cfg.cap ? OFL_OK : OFL_E_QP_HCQ_OVERRUN;
}

enum ofl_err ofl_hcq_put(struct ofl_hcq *h, const struct ofl_cqe *e,
                         uint64_t now)
{
    uint8_t b[OFL_HCQE_LEN];
    uint64_t pa;
    enum ofl_err err;

    if (h == NULL || e == NULL)
        return OFL_E_ARG;
    err = h->overrun ? OFL_E_QP_HCQ_OVERRUN : hcq_room(h);
    if (err == OFL_E_QP_HCQ_OVERRUN || err == OFL_E_QP_HCQ_CI) {
        /* A consumer index the host got wrong leaves the ring full. */
        h->overrun = 1;
        h->lost++;
        return OFL_E_QP_HCQ_OVERRUN;
    }
    if (err != OFL_OK)
        return err;
    pa = h->cfg.ring_pa + (uint64_t)(h->pi & (h->cfg.cap - 1u)) * OFL_HCQE_LEN;
    ofl_hcqe_encode(b, e, (uint8_t)((h->pi & h->cfg.cap) ? 0u : 1u));
    err = ofl_port_dma_write(h->port, pa, b, OFL_HCQE_OWNER);
    if (err != OFL_OK)
        return err;
    ofl_port_barrier(h->port, OFL_BARRIER_RELEASE);
    err = ofl_port_dma_write(h->port, pa + OFL_HCQE_OWNER, b + OFL_HCQE_OWNER,
                             1);
    if (err != OFL_OK)
        return err;
    h->pi++;
    if (h->arm == OFL_CQ_ARM_ANY ||
        (h->arm == OFL_CQ_ARM_SOLICITED &&
         ((e->flags & OFL_CQE_SOLICITED) || e->status != OFL_WC_SUCCESS))) {
        if (h->mod_pending++ == 0)
            h->mod_since = now;
        if (h->mod_pending >= h->cfg.mod_count)
            hcq_fire(h);
    }
    return ofl_hcq_tick(h, now);
}

/* ofl_hcq_put out of line for ofl_hcq_flush: its CQE buffer and the
 * flush's copy of a CQE in one frame would pass 256 bytes once inlined. */
static OFL_NOINLINE enum ofl_err hcq_put_one(struct ofl_hcq *h,
                                             const struct ofl_cqe *e,
                                             uint64_t now)
{
    return ofl_hcq_put(h, e, now);
}

enum ofl_err ofl_hcq_flush(struct ofl_hcq *h, struct ofl_cq *cq,
                           uint64_t now, uint32_t *moved,
                           uint32_t *lost_qpn)
{
    struct ofl_cqe e;
    uint32_t i, k = 0;
    enum ofl_err err = OFL_OK, res = OFL_OK;

    if (moved != NULL)
        *moved = 0;
    if (h == NULL || cq == NULL || cq->ring == NULL)
        return OFL_E_ARG;
    for (i = 0; i < cq->cap && cq->pi != cq->ci; i++) {
        ofl_port_barrier(cq->port, OFL_BARRIER_ACQUIRE);
        ofl_copy(&e, &cq->ring[cq->ci & (cq->cap - 1u)], sizeof(e));
        err = hcq_put_one(h, &e, now);
        if (err != OFL_OK && err != OFL_E_QP_HCQ_OVERRUN)
            break; /* a DMA failure: the CQE stays for a later flush */
        cq->ci++;
        if (err == OFL_E_QP_HCQ_OVERRUN) {
            res = err;
            if (lost_qpn != NULL)
                *lost_qpn = e.qpn;
        } else {
            k++;
        }
    }
    if (moved != NULL)
        *moved = k;
    if (err != OFL_OK && err != OFL_E_QP_HCQ_OVERRUN)
        return err;
    if (res == OFL_OK)
        (void)ofl_hcq_tick(h, now);
    return res;
}

enum ofl_err ofl_hcq_host_init(struct ofl_hcq_host *hh, void *ring,
                               uint32_t cap, void *ci_loc,
                               const struct ofl_port *port)
{
    if (hh == NULL || ring == NULL || !qp_pow2(cap) || cap > (1u << 24))
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(hh, 0, sizeof(*hh));
    hh->ring = (uint8_t *)ring;
    hh->ci_loc = (uint8_t *)ci_loc;
    hh->port = port;
    hh->cap = cap;
    ofl_fill(ring, 0, (size_t)cap * OFL_HCQE_LEN);
    if (hh->ci_loc != NULL)
        ofl_store_le32(hh->ci_loc, 0);
    return OFL_OK;
}

enum ofl_err ofl_hcq_reap(struct ofl_hcq_host *hh, struct ofl_cqe *out,
                          uint32_t max, uint32_t *n)
{
    const uint8_t *p;
    uint32_t k;
    uint8_t phase;
    enum ofl_err err = OFL_OK;

    if (n != NULL)
        *n = 0;
    if (hh == NULL || hh->ring == NULL || out == NULL || n == NULL)
        return OFL_E_ARG;
    for (k = 0; k < max && k < hh->cap; k++) {
        p = hh->ring + (size_t)(hh->ci & (hh->cap - 1u)) * OFL_HCQE_LEN;
        phase = (uint8_t)((hh->ci & hh->cap) ? 0u : 1u);
        if ((*(const volatile uint8_t *)(p + OFL_HCQE_OWNER) &
             OFL_HCQE_PHASE) != phase)
            break;
        /* Read nothing of the CQE before its phase was seen. */
        ofl_port_barrier(hh->port, OFL_BARRIER_ACQUIRE);
        err = ofl_hcqe_decode(p, &out[k]);
        if (err != OFL_OK) {
            hh->bad++;
            break;
        }
        hh->ci++;
    }
    *n = k;
    if (k != 0 && hh->ci_loc != NULL) {
        /* Finish reading the slots before the device may reuse them. */
        ofl_port_barrier(hh->port, OFL_BARRIER_FULL);
        ofl_store_le32(hh->ci_loc, hh->ci);
    }
    return err;
}

#endif /* OFL_ENABLE_QP */

/* ======================================================================== */
/* ap                                                                       */
/* ======================================================================== */
#if OFL_ENABLE_AP
/*
 * The ap section follows offload.h: helpers, the cache, the tables and
 * their privilege split, the outgoing path, the incoming path with its
 * PCI writes, datagrams, messages, connections, event queues, and the
 * shared work queue.
 */

#define AP_IN_APP_GRANTABLE (OFL_AP_IN_ALL & ~(uint32_t)OFL_AP_IN_OS_ONLY)
#define AP_OUT_APP_GRANTABLE (OFL_AP_OUT_ALL & ~(uint32_t)OFL_AP_OUT_OS_ONLY)
#define AP_MAX_ENTRIES (1u << 24)
#define AP_UDP_MAX_PAYLOAD 65507u /* 65535 - IPv4 header - UDP header */


static bool ap_pow2(uint32_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* One compare of the six XORs: no early return, no branch per byte. */
static bool ap_mac_eq(const uint8_t *a, const uint8_t *b)
{
    return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) |
            (a[4] ^ b[4]) | (a[5] ^ b[5])) == 0;
}

static void ap_mac_copy(uint8_t *d, const uint8_t *s)
{
    d[0] = s[0];
    d[1] = s[1];
    d[2] = s[2];
    d[3] = s[3];
    d[4] = s[4];
    d[5] = s[5];
}

static void ap_addr_copy(struct ofl_ap_addr *d, const struct ofl_ap_addr *s)
{
    ap_mac_copy(d->mac, s->mac);
    d->cluster = s->cluster;
    d->ip = s->ip;
}

static void ap_endpoint_copy(struct ofl_ap_endpoint *d,
                             const struct ofl_ap_endpoint *s)
{
    ap_addr_copy(&d->host, &s->host);
    d->udp = s->udp;
}

/* RFC 1071: 16-bit one's-complement sum of big-endian words; an odd last
 * byte is padded with zero. n <= 65535 keeps the sum below 2^32. */
static uint32_t ap_sum16(uint32_t sum, const uint8_t *p, size_t n)
{
    size_t i;

    for (i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    return sum;
}

/* Folds the carries and complements: the checksum to store, or 0 when a
 * sum over a correct header (checksum included) is verified. */
static uint16_t ap_fold(uint32_t sum)
{
    sum = (sum & 0xFFFFu) + (sum >> 16);
    sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Field-by-field copies: a struct assignment may become a memcpy call, and
 * the base's ofl_copy is a byte loop on some compilers (gcc -O2 builds it
 * from byte shifts); these compile to word moves everywhere. */
static void ap_in_copy(struct ofl_ap_in_entry *d, const struct ofl_ap_in_entry *s)
{
    d->base = s->base;
    d->size = s->size;
    d->evq = s->evq;
    d->src_ip = s->src_ip;
    d->src_ip_mask = s->src_ip_mask;
    d->nonce = s->nonce;
    d->nonce_count = s->nonce_count;
    d->seq = s->seq;
    d->narrow_off = s->narrow_off;
    d->narrow_len = s->narrow_len;
    d->nonce_step = s->nonce_step;
    d->nonce_every = s->nonce_every;
    d->owner = s->owner;
    d->app_fields = s->app_fields;
    d->src_cluster = s->src_cluster;
    d->src_cluster_mask = s->src_cluster_mask;
    ap_mac_copy(d->src_mac, s->src_mac);
    d->type = s->type;
    d->state = s->state;
    d->checks = s->checks;
    d->flags = s->flags;
}

static void ap_out_copy(struct ofl_ap_out_entry *d,
                        const struct ofl_ap_out_entry *s)
{
    d->pci_base = s->pci_base;
    d->size = s->size;
    d->dst_in_index = s->dst_in_index;
    d->dst_ip = s->dst_ip;
    d->nonce = s->nonce;
    d->nonce_count = s->nonce_count;
    d->seq = s->seq;
    d->nonce_step = s->nonce_step;
    d->nonce_every = s->nonce_every;
    d->owner = s->owner;
    d->app_fields = s->app_fields;
    d->dst_cluster = s->dst_cluster;
    d->dst_udp = s->dst_udp;
    ap_mac_copy(d->dst_mac, s->dst_mac);
    d->type = s->type;
    d->state = s->state;
    d->flags = s->flags;
    d->reserved_ = 0;
}

/* Advances a nonce after one more record (the claims' rotation). */
static void ap_rotate(uint32_t *nonce, uint32_t *count, uint16_t step,
                      uint16_t every)
{
    if (every == 0)
        return;
    if (++*count >= every) {
        *nonce += step;
        *count = 0;
    }
}

/* ---- ap: the cache ------------------------------------------------------- */

/*
 * Lines are stored way-major: way w of set s is line[(w << set_shift) | s],
 * so way 0 of every set forms a direct-mapped array indexed by
 * index & set_mask. Way 0 holds the most recently used line of its set;
 * the others carry the cache's clock from when they last left way 0, which
 * is when they were last used (a line is used only in way 0: a hit
 * elsewhere swaps it there), so the oldest stamp is the least recently
 * used line. The clock moves only on the slow path; a line untouched for
 * 2^32 of its ticks may look young again (a worse victim choice, nothing
 * more).
 *
 * Invariant: a line holds only an OPEN entry of an index inside its
 * table. Lines are filled on a miss only when the table entry is OPEN,
 * the data path never changes a state, and every programming or clearing
 * call drops the line first. So a tag match proves what a direct lookup
 * checks (index < capacity, state OPEN), and a hit on way 0 is one masked
 * index and one tag compare: no bounds check, no state check, no counter,
 * no store.
 *
 * dirty is set when the line is filled with an entry whose per-packet
 * fields change on every record (sequence checks or a rotating nonce), so
 * the data path never has to mark it; such a line is copied back to its
 * table whenever it leaves the cache or is flushed.
 */

static uint32_t ap_log2(uint32_t v) /* v a power of two; <= 31 turns */
{
    uint32_t s = 0;

    while ((v >>= 1) != 0)
        s++;
    return s;
}

static enum ofl_err ap_cache_init(struct ofl_ap_cache *c,
                                  struct ofl_ap_cache_line *line,
                                  uint32_t lines, uint32_t ways)
{
    uint32_t sets, i;

    ofl_fill(c, 0, sizeof(*c));
    if (line == NULL)
        return lines == 0 ? OFL_OK : OFL_E_ARG;
    if (!ap_pow2(ways) || ways > OFL_AP_CACHE_MAX_WAYS || lines < ways ||
        lines > AP_MAX_ENTRIES)
        return OFL_E_ARG;
    sets = lines >> ap_log2(ways);
    if (!ap_pow2(sets) || (sets << ap_log2(ways)) != lines)
        return OFL_E_ARG;
    ofl_fill(line, 0, (size_t)lines * sizeof(*line));
    for (i = 0; i < lines; i++)
        line[i].tag = OFL_AP_CACHE_EMPTY;
    c->line = line;
    c->sets = sets;
    c->ways = ways;
    c->set_shift = ap_log2(sets);
    c->set_mask = sets - 1;
    c->front_mask = (size_t)c->set_mask << OFL_AP_CACHE_LINE_SHIFT;
    return OFL_OK;
}

/* The line size is what ap_cache_front's shift assumes. */
_Static_assert(sizeof(struct ofl_ap_cache_line) == OFL_AP_CACHE_LINE_BYTES,
               "ofl_ap_cache_line is not OFL_AP_CACHE_LINE_BYTES");

/* Way 0 of the set of index, i.e. &c->line[index & c->set_mask], as a
 * byte offset: the shift of index does not depend on the load of the mask
 * (see offload.h). The wrap of the shift on a 32-bit size_t only drops bits
 * that front_mask clears. */
static inline struct ofl_ap_cache_line *
ap_cache_front(const struct ofl_ap_cache *c, uint32_t index)
{
    return (struct ofl_ap_cache_line *)(void *)
        ((unsigned char *)c->line +
         (((size_t)index << OFL_AP_CACHE_LINE_SHIFT) & c->front_mask));
}

/* Way w of the set of index. */
static struct ofl_ap_cache_line *ap_cache_way(const struct ofl_ap_cache *c,
                                              uint32_t index, uint32_t w)
{
    return &c->line[((size_t)w << c->set_shift) | (index & c->set_mask)];
}

/* A tag is the entry's index in 64 bits: OFL_AP_CACHE_EMPTY matches no
 * 32-bit index, not even 0xFFFFFFFF, and the compare is one instruction
 * against the zero-extended index. */
static inline bool ap_tag_is(const struct ofl_ap_cache_line *l, uint32_t index)
{
    return l->tag == (uint64_t)index;
}

/* The way holding index, or c->ways. No reordering, no statistics. */
static uint32_t ap_cache_find(const struct ofl_ap_cache *c, uint32_t index)
{
    uint32_t w;

    for (w = 0; w < c->ways; w++)
        if (ap_tag_is(ap_cache_way(c, index, w), index))
            break;
    return w;
}

/* The line holding index, or NULL (also without a cache). */
static struct ofl_ap_cache_line *ap_cache_probe(const struct ofl_ap_cache *c,
                                                uint32_t index)
{
    uint32_t w;

    if (c->line == NULL)
        return NULL;
    w = ap_cache_find(c, index);
    return w < c->ways ? ap_cache_way(c, index, w) : NULL;
}

static void ap_line_copy(struct ofl_ap_cache_line *d,
                         const struct ofl_ap_cache_line *s, bool out)
{
    if (out)
        ap_out_copy(&d->e.out, &s->e.out);
    else
        ap_in_copy(&d->e.in, &s->e.in);
    d->tag = s->tag;
    d->dirty = s->dirty;
    d->used = s->used;
}

/* Copies a line back to its table when its entry may have changed. */
static void ap_cache_writeback(struct ofl_ap_nic *nic, struct ofl_ap_cache *c,
                               const struct ofl_ap_cache_line *l, bool out)
{
    if (l->tag == OFL_AP_CACHE_EMPTY || !l->dirty)
        return;
    if (out)
        ap_out_copy(&nic->out[(uint32_t)l->tag], &l->e.out);
    else
        ap_in_copy(&nic->in[(uint32_t)l->tag], &l->e.in);
    c->writebacks++;
}

/* Puts line `from` (way 0, leaving it) into way slot and stamps it: its
 * last use was now. */
static void ap_cache_demote(struct ofl_ap_cache *c,
                            struct ofl_ap_cache_line *slot,
                            const struct ofl_ap_cache_line *from, bool out)
{
    ap_line_copy(slot, from, out);
    slot->used = c->clock++;
}

/*
 * The cache's side of a lookup that way 0 did not answer, for an index
 * inside the table. One pass over ways 1 .. ways-1 finds the line, the
 * first empty one and the least recently used one (the oldest stamp).
 * A hit there swaps its line with way 0. A miss whose table entry is
 * OPEN fills way 0 with it; what way 0 held moves to the first empty line
 * or else to the least recently used one, which is written back first
 * (with one way, way 0 itself is the victim). Returns way 0, or NULL when
 * the entry is not OPEN (it is not cached). Two line copies at most.
 */
static struct ofl_ap_cache_line *ap_cache_fetch(struct ofl_ap_nic *nic,
                                                struct ofl_ap_cache *c,
                                                uint32_t index, bool out)
{
    struct ofl_ap_cache_line t, *front = ap_cache_way(c, index, 0);
    struct ofl_ap_cache_line *hit = NULL, *empty = NULL, *oldest = front;
    uint32_t w, age = 0;

    for (w = 1; w < c->ways; w++) {
        struct ofl_ap_cache_line *l = ap_cache_way(c, index, w);

        if (ap_tag_is(l, index)) {
            hit = l;
            break;
        }
        if (l->tag == OFL_AP_CACHE_EMPTY) {
            if (empty == NULL)
                empty = l;
        } else if (oldest == front || c->clock - l->used > age) {
            oldest = l;
            age = c->clock - l->used;
        }
    }
    if (hit != NULL) {
        ap_line_copy(&t, hit, out);
        ap_cache_demote(c, hit, front, out);
        ap_line_copy(front, &t, out);
        return front;
    }
    c->misses++;
    if ((out ? nic->out[index].state : nic->in[index].state) != OFL_AP_OPEN)
        return NULL;
    if (front->tag != OFL_AP_CACHE_EMPTY) {
        if (empty == NULL) { /* the least recently used line goes */
            c->evictions++;
            ap_cache_writeback(nic, c, oldest, out);
        }
        if (empty != NULL || oldest != front)
            ap_cache_demote(c, empty != NULL ? empty : oldest, front, out);
    }
    if (out) {
        ap_out_copy(&front->e.out, &nic->out[index]);
        front->dirty = (front->e.out.flags & OFL_AP_F_SEQ) != 0 ||
                       front->e.out.nonce_every != 0;
    } else {
        ap_in_copy(&front->e.in, &nic->in[index]);
        front->dirty = (front->e.in.flags & OFL_AP_F_SEQ) != 0 ||
                       front->e.in.nonce_every != 0;
    }
    front->tag = index;
    return front;
}

/* Way 0 of index's set if it holds index (the hit path of both tables:
 * one masked address and one tag compare), else NULL; NULL without a
 * cache. */
static inline struct ofl_ap_cache_line *
ap_cache_hit(const struct ofl_ap_cache *c, uint32_t index)
{
    struct ofl_ap_cache_line *l;

    if (c->line == NULL)
        return NULL;
    l = ap_cache_front(c, index);
    return ap_tag_is(l, index) ? l : NULL;
}

/* The secondary lookup: bounds, the table entry's state, the cache. */
static enum ofl_err ap_in_open_slow(struct ofl_ap_nic *nic, uint32_t index,
                                    struct ofl_ap_in_entry **ep)
{
    struct ofl_ap_cache_line *l;

    if (index >= nic->in_capacity)
        return OFL_E_AP_INDEX;
    if (nic->in_cache.line == NULL) { /* the direct table lookup */
        if (nic->in[index].state != OFL_AP_OPEN)
            return OFL_E_AP_INVALID;
        *ep = &nic->in[index];
        return OFL_OK;
    }
    l = ap_cache_fetch(nic, &nic->in_cache, index, false);
    if (l == NULL)
        return OFL_E_AP_INVALID;
    *ep = &l->e.in;
    return OFL_OK;
}

/*
 * The working copy of incoming entry index if it is OPEN (check (a)):
 * OFL_E_AP_INDEX beyond the table, OFL_E_AP_INVALID when not OPEN. A hit
 * on way 0 (see the invariant above) returns at once.
 */
static inline enum ofl_err ap_in_open(struct ofl_ap_nic *nic, uint32_t index,
                                      struct ofl_ap_in_entry **ep)
{
    struct ofl_ap_cache_line *l = ap_cache_hit(&nic->in_cache, index);

    if (l == NULL)
        return ap_in_open_slow(nic, index, ep);
    *ep = &l->e.in;
    return OFL_OK;
}

/* The outgoing counterpart: index is in the table (ofl_ap_out_decode only
 * yields indexes of groups, which ap_groups_check keeps inside it), so the
 * only answer besides OK is OFL_E_AP_CLOSED. */
static enum ofl_err ap_out_open_slow(struct ofl_ap_nic *nic, uint32_t index,
                                     struct ofl_ap_out_entry **ep)
{
    struct ofl_ap_cache_line *l;

    if (nic->out_cache.line == NULL) {
        if (nic->out[index].state != OFL_AP_OPEN)
            return OFL_E_AP_CLOSED;
        *ep = &nic->out[index];
        return OFL_OK;
    }
    l = ap_cache_fetch(nic, &nic->out_cache, index, true);
    if (l == NULL)
        return OFL_E_AP_CLOSED;
    *ep = &l->e.out;
    return OFL_OK;
}

static inline enum ofl_err ap_out_open(struct ofl_ap_nic *nic, uint32_t index,
                                       struct ofl_ap_out_entry **ep)
{
    struct ofl_ap_cache_line *l = ap_cache_hit(&nic->out_cache, index);

    if (l == NULL)
        return ap_out_open_slow(nic, index, ep);
    *ep = &l->e.out;
    return OFL_OK;
}

/* Drops the line of index (the caller has carried its content over). */
static void ap_cache_drop(struct ofl_ap_cache *c, uint32_t index)
{
    struct ofl_ap_cache_line *l = ap_cache_probe(c, index);

    if (l != NULL) {
        l->tag = OFL_AP_CACHE_EMPTY;
        l->dirty = 0;
        c->invalidations++;
    }
}

void ofl_ap_cache_flush(struct ofl_ap_nic *nic)
{
    uint32_t i, n;

    if (nic == NULL)
        return;
    n = nic->in_cache.sets * nic->in_cache.ways;
    for (i = 0; i < n; i++)
        ap_cache_writeback(nic, &nic->in_cache, &nic->in_cache.line[i], false);
    n = nic->out_cache.sets * nic->out_cache.ways;
    for (i = 0; i < n; i++)
        ap_cache_writeback(nic, &nic->out_cache, &nic->out_cache.line[i], true);
}

/* ---- ap: the NIC and its tables ------------------------------------------ */

/* Slot size of outgoing index (0 when no group holds it). */
static uint64_t ap_out_slot(const struct ofl_ap_nic *nic, uint32_t index,
                            uint64_t *pci_base)
{
    uint32_t g;

    for (g = 0; g < nic->ngroups; g++) {
        const struct ofl_ap_out_group *gr = &nic->group[g];

        if (index - gr->first < gr->count) { /* below first: wraps high */
            if (pci_base != NULL)
                *pci_base = gr->pci_base +
                            ((uint64_t)(index - gr->first) << gr->size_shift);
            return (uint64_t)1 << gr->size_shift;
        }
    }
    return 0;
}

static enum ofl_err ap_groups_check(const struct ofl_ap_out_group *g,
                                    uint32_t n, uint32_t capacity)
{
    uint32_t i, j;

    for (i = 0; i < n; i++) {
        uint64_t span, slot;

        if (g[i].size_shift < OFL_AP_SHIFT_MIN ||
            g[i].size_shift > OFL_AP_SHIFT_MAX || g[i].count == 0 ||
            g[i].count > capacity || g[i].first > capacity - g[i].count)
            return OFL_E_ARG;
        slot = (uint64_t)1 << g[i].size_shift;
        span = (uint64_t)g[i].count << g[i].size_shift;
        if ((g[i].pci_base & (slot - 1)) != 0 ||
            g[i].pci_base > OFL_U64_MAX - (span - 1))
            return OFL_E_ARG;
        for (j = 0; j < i; j++) {
            uint64_t span_j = (uint64_t)g[j].count << g[j].size_shift;

            /* Disjoint in PCI space and in index space. */
            if (g[i].pci_base <= g[j].pci_base + (span_j - 1) &&
                g[j].pci_base <= g[i].pci_base + (span - 1))
                return OFL_E_ARG;
            if (g[i].first < g[j].first + g[j].count &&
                g[j].first < g[i].first + g[i].count)
                return OFL_E_ARG;
        }
    }
    return OFL_OK;
}

enum ofl_err ofl_ap_nic_init(struct ofl_ap_nic *nic,
                             const struct ofl_ap_nic_config *cfg)
{
    enum ofl_err err;
    uint32_t i;

    if (nic == NULL || cfg == NULL)
        return OFL_E_ARG;
    err = ofl_port_check(cfg->port);
    if (err != OFL_OK)
        return err;
    if (cfg->in == NULL || cfg->in_capacity == 0 ||
        cfg->in_capacity > AP_MAX_ENTRIES ||
        cfg->out_capacity > AP_MAX_ENTRIES ||
        (cfg->out == NULL && cfg->out_capacity != 0) ||
        cfg->ngroups > OFL_AP_MAX_GROUPS ||
        (cfg->groups == NULL && cfg->ngroups != 0) ||
        (cfg->evq == NULL && cfg->nevq != 0) || !ap_pow2(cfg->max_burst) ||
        cfg->max_burst < OFL_AP_MIN_BURST || cfg->max_burst > OFL_AP_MAX_BURST)
        return OFL_E_ARG;
    err = ap_groups_check(cfg->groups, cfg->ngroups, cfg->out_capacity);
    if (err != OFL_OK)
        return err;
    ofl_fill(nic, 0, sizeof(*nic));
    err = ap_cache_init(&nic->in_cache, cfg->in_cache, cfg->in_cache_lines,
                        cfg->in_cache_ways);
    if (err == OFL_OK)
        err = ap_cache_init(&nic->out_cache, cfg->out_cache,
                            cfg->out_cache_lines, cfg->out_cache_ways);
    if (err != OFL_OK) {
        ofl_fill(nic, 0, sizeof(*nic));
        return err;
    }
    nic->port = cfg->port;
    ap_addr_copy(&nic->self, &cfg->self);
    nic->in = cfg->in;
    nic->out = cfg->out;
    nic->evq = cfg->evq;
    nic->in_capacity = cfg->in_capacity;
    nic->out_capacity = cfg->out_capacity;
    nic->nevq = cfg->nevq;
    nic->ngroups = cfg->ngroups;
    nic->max_burst = cfg->max_burst;
    nic->udp_base = cfg->udp_base;
    for (i = 0; i < cfg->ngroups; i++) {
        nic->group[i].pci_base = cfg->groups[i].pci_base;
        nic->group[i].first = cfg->groups[i].first;
        nic->group[i].count = cfg->groups[i].count;
        nic->group[i].size_shift = cfg->groups[i].size_shift;
    }
    ofl_fill(cfg->in, 0, (size_t)cfg->in_capacity * sizeof(*cfg->in));
    if (cfg->out_capacity != 0)
        ofl_fill(cfg->out, 0, (size_t)cfg->out_capacity * sizeof(*cfg->out));
    for (i = 0; i < cfg->out_capacity; i++)
        (void)ap_out_slot(nic, i, &cfg->out[i].pci_base);
    return OFL_OK;
}

enum ofl_err ofl_ap_set_self(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                             const struct ofl_ap_addr *self)
{
    if (nic == NULL || self == NULL)
        return OFL_E_ARG;
    if (priv != OFL_AP_PRIV_OS)
        return priv == OFL_AP_PRIV_APP ? OFL_E_AP_PRIVILEGE : OFL_E_ARG;
    ap_addr_copy(&nic->self, self);
    return OFL_OK;
}

/* Does port own an entry with these flags and owner? Never one the OS
 * created without OWNER (OFL_AP_F_OS_OWN), whatever its owner field. */
static bool ap_owned_by(uint8_t flags, uint16_t owner, uint16_t port)
{
    return !(flags & OFL_AP_F_OS_OWN) && owner == port;
}

/* The privilege rule shared by both tables. */
static enum ofl_err ap_allowed(enum ofl_ap_priv priv, uint8_t state,
                               bool owned, uint16_t app_fields,
                               uint32_t fields)
{
    if (priv == OFL_AP_PRIV_OS)
        return OFL_OK;
    if (priv != OFL_AP_PRIV_APP)
        return OFL_E_ARG;
    if (state == OFL_AP_FREE || !owned)
        return OFL_E_AP_NOT_OWNER;
    if ((fields & ~(uint32_t)app_fields) != 0)
        return OFL_E_AP_PRIVILEGE;
    return OFL_OK;
}

enum ofl_err ofl_ap_in_allowed(const struct ofl_ap_nic *nic,
                               enum ofl_ap_priv priv, uint16_t port,
                               uint32_t index, uint32_t fields)
{
    const struct ofl_ap_in_entry *e;

    if (nic == NULL || index >= nic->in_capacity ||
        (fields & ~(uint32_t)OFL_AP_IN_ALL) != 0)
        return OFL_E_ARG;
    /* Owner, grants and FREE-ness are OS fields: the table is current. */
    e = &nic->in[index];
    return ap_allowed(priv, e->state, ap_owned_by(e->flags, e->owner, port),
                      e->app_fields, fields);
}

enum ofl_err ofl_ap_out_allowed(const struct ofl_ap_nic *nic,
                                enum ofl_ap_priv priv, uint16_t port,
                                uint32_t index, uint32_t fields)
{
    const struct ofl_ap_out_entry *e;

    if (nic == NULL || index >= nic->out_capacity ||
        (fields & ~(uint32_t)OFL_AP_OUT_ALL) != 0)
        return OFL_E_ARG;
    e = &nic->out[index];
    return ap_allowed(priv, e->state, ap_owned_by(e->flags, e->owner, port),
                      e->app_fields, fields);
}

/* The newest copy of an entry: its cache line if it has one. */
static void ap_in_current(const struct ofl_ap_nic *nic, uint32_t index,
                          struct ofl_ap_in_entry *out)
{
    const struct ofl_ap_cache_line *l = ap_cache_probe(&nic->in_cache, index);

    ap_in_copy(out, l != NULL ? &l->e.in : &nic->in[index]);
}

static void ap_out_current(const struct ofl_ap_nic *nic, uint32_t index,
                           struct ofl_ap_out_entry *out)
{
    const struct ofl_ap_cache_line *l = ap_cache_probe(&nic->out_cache, index);

    ap_out_copy(out, l != NULL ? &l->e.out : &nic->out[index]);
}

static enum ofl_err ap_in_validate(const struct ofl_ap_nic *nic,
                                   const struct ofl_ap_in_entry *e,
                                   uint32_t index)
{
    bool needs_evq = e->type != OFL_AP_TYPE_CI_DATA ||
                     (e->flags & (OFL_AP_F_NOTIFY | OFL_AP_F_ERRORS)) != 0;

    /* flags needs no check: ap_in_apply takes only OFL_AP_F_SEQ,
     * OFL_AP_F_NOTIFY and OFL_AP_F_ERRORS from the caller, and the table
     * holds nothing else. */
    if ((e->state != OFL_AP_CLOSED && e->state != OFL_AP_OPEN) ||
        (e->app_fields & ~(uint32_t)AP_IN_APP_GRANTABLE) != 0 ||
        (e->checks & ~(uint32_t)OFL_AP_CHECK_ALL) != 0 || e->size == 0 ||
        (needs_evq && e->evq >= nic->nevq))
        return OFL_E_AP_CONFIG;
    switch (e->type) {
    case OFL_AP_TYPE_CI_DATA:
        if (e->size > OFL_AP_SIZE_MAX ||
            e->base > OFL_U64_MAX - (uint64_t)(e->size - 1))
            return OFL_E_AP_CONFIG;
        break;
    case OFL_AP_TYPE_CI_EVENT:
        if (e->size > OFL_AP_EVENT_PAYLOAD)
            return OFL_E_AP_CONFIG;
        break;
    case OFL_AP_TYPE_IP:
        /* It serves UDP port udp_base + index and delivers whole frames,
         * which go to the queue's variable ring: a queue without one
         * would refuse every datagram. (A queue set up again later
         * without one makes its datagrams fail as OFL_E_AP_DMA.) */
        if (e->size > 0xFFFFu || index > 0xFFFFu - nic->udp_base ||
            nic->evq[e->evq].var_words == 0)
            return OFL_E_AP_CONFIG;
        break;
    default:
        return OFL_E_AP_CONFIG;
    }
    if (e->narrow_len == 0 ? e->narrow_off != 0
                           : (e->narrow_off > e->size ||
                              e->narrow_len > e->size - e->narrow_off))
        return OFL_E_AP_CONFIG;
    return OFL_OK;
}

static void ap_in_apply(struct ofl_ap_in_entry *c,
                        const struct ofl_ap_in_entry *v, uint32_t fields)
{
    if (fields & OFL_AP_IN_MAP) {
        c->type = v->type;
        c->base = v->base;
        c->size = v->size;
        c->evq = v->evq;
    }
    if (fields & OFL_AP_IN_OWNER) {
        c->owner = v->owner;
        c->app_fields = v->app_fields;
        c->flags &= (uint8_t)~OFL_AP_F_OS_OWN;
    }
    if (fields & OFL_AP_IN_SOURCE) {
        ap_mac_copy(c->src_mac, v->src_mac);
        c->src_cluster = v->src_cluster;
        c->src_cluster_mask = v->src_cluster_mask;
        c->src_ip = v->src_ip;
        c->src_ip_mask = v->src_ip_mask;
        c->checks = v->checks;
    }
    if (fields & OFL_AP_IN_NONCE) {
        c->nonce = v->nonce;
        c->nonce_step = v->nonce_step;
        c->nonce_every = v->nonce_every;
        c->nonce_count = 0;
    }
    if (fields & OFL_AP_IN_SEQ) {
        c->seq = v->seq;
        c->flags = (uint8_t)((c->flags & ~OFL_AP_F_SEQ) |
                             (v->flags & OFL_AP_F_SEQ));
    }
    if (fields & OFL_AP_IN_NARROW) {
        c->narrow_off = v->narrow_off;
        c->narrow_len = v->narrow_len;
    }
    if (fields & OFL_AP_IN_STATE)
        c->state = v->state;
    if (fields & OFL_AP_IN_NOTIFY) {
        const uint8_t m = OFL_AP_F_NOTIFY | OFL_AP_F_ERRORS;

        c->flags = (uint8_t)((c->flags & ~m) | (v->flags & m));
    }
}

enum ofl_err ofl_ap_in_program(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                               uint16_t port, uint32_t index,
                               const struct ofl_ap_in_entry *v,
                               uint32_t fields)
{
    struct ofl_ap_in_entry cand;
    enum ofl_err err;
    bool was_free, closing;

    if (v == NULL)
        return OFL_E_ARG;
    /* Closing takes access away: the owner needs no grant for it, and the
     * rest of the entry is not validated again (an IP aperture whose queue
     * lost its variable ring must still close). */
    closing = fields == OFL_AP_IN_STATE && v->state == OFL_AP_CLOSED &&
              nic != NULL && index < nic->in_capacity &&
              nic->in[index].state != OFL_AP_FREE;
    err = ofl_ap_in_allowed(nic, priv, port, index, closing ? 0 : fields);
    if (err != OFL_OK)
        return err;
    ap_in_current(nic, index, &cand);
    was_free = cand.state == OFL_AP_FREE;
    ap_in_apply(&cand, v, fields);
    if (was_free) {
        if (!(fields & OFL_AP_IN_STATE))
            cand.state = OFL_AP_CLOSED;
        if (!(fields & OFL_AP_IN_OWNER)) {
            /* The OS's own: no port may program it, nor close it. */
            cand.app_fields = 0;
            cand.flags |= OFL_AP_F_OS_OWN;
        }
    }
    err = closing ? OFL_OK : ap_in_validate(nic, &cand, index);
    if (err != OFL_OK)
        return err;
    /* cand already carries the line's newer per-packet fields. */
    ap_cache_drop(&nic->in_cache, index);
    ap_in_copy(&nic->in[index], &cand);
    return OFL_OK;
}

enum ofl_err ofl_ap_in_clear(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                             uint32_t index)
{
    if (nic == NULL || index >= nic->in_capacity)
        return OFL_E_ARG;
    if (priv != OFL_AP_PRIV_OS)
        return priv == OFL_AP_PRIV_APP ? OFL_E_AP_PRIVILEGE : OFL_E_ARG;
    ap_cache_drop(&nic->in_cache, index);
    ofl_fill(&nic->in[index], 0, sizeof(nic->in[index]));
    return OFL_OK;
}

enum ofl_err ofl_ap_in_query(struct ofl_ap_nic *nic, uint32_t index,
                             struct ofl_ap_in_entry *out)
{
    if (nic == NULL || out == NULL || index >= nic->in_capacity)
        return OFL_E_ARG;
    ap_in_current(nic, index, out);
    return OFL_OK;
}

static enum ofl_err ap_out_validate(const struct ofl_ap_nic *nic,
                                    const struct ofl_ap_out_entry *e,
                                    uint32_t index)
{
    uint64_t slot = ap_out_slot(nic, index, NULL);

    /* flags needs no check: ap_out_apply takes only OFL_AP_F_SEQ. */
    if ((e->state != OFL_AP_CLOSED && e->state != OFL_AP_OPEN) ||
        (e->app_fields & ~(uint32_t)AP_OUT_APP_GRANTABLE) != 0 ||
        slot == 0 || e->size == 0 || e->size > slot)
        return OFL_E_AP_CONFIG;
    switch (e->type) {
    case OFL_AP_TYPE_CI_DATA:
    case OFL_AP_TYPE_IP:
        return OFL_OK;
    case OFL_AP_TYPE_CI_EVENT:
        return e->size <= OFL_AP_EVENT_PAYLOAD ? OFL_OK : OFL_E_AP_CONFIG;
    default:
        return OFL_E_AP_CONFIG;
    }
}

static void ap_out_apply(struct ofl_ap_out_entry *c,
                         const struct ofl_ap_out_entry *v, uint32_t fields)
{
    if (fields & OFL_AP_OUT_SIZE)
        c->size = v->size;
    if (fields & OFL_AP_OUT_OWNER) {
        c->owner = v->owner;
        c->app_fields = v->app_fields;
        c->flags &= (uint8_t)~OFL_AP_F_OS_OWN;
    }
    if (fields & OFL_AP_OUT_TYPE)
        c->type = v->type;
    if (fields & OFL_AP_OUT_DEST) {
        ap_mac_copy(c->dst_mac, v->dst_mac);
        c->dst_cluster = v->dst_cluster;
        c->dst_ip = v->dst_ip;
        c->dst_udp = v->dst_udp;
        c->dst_in_index = v->dst_in_index;
    }
    if (fields & OFL_AP_OUT_NONCE) {
        c->nonce = v->nonce;
        c->nonce_step = v->nonce_step;
        c->nonce_every = v->nonce_every;
        c->nonce_count = 0;
    }
    if (fields & OFL_AP_OUT_SEQ) {
        c->seq = v->seq;
        c->flags = (uint8_t)((c->flags & ~OFL_AP_F_SEQ) |
                             (v->flags & OFL_AP_F_SEQ));
    }
    if (fields & OFL_AP_OUT_STATE)
        c->state = v->state;
}

enum ofl_err ofl_ap_out_program(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                                uint16_t port, uint32_t index,
                                const struct ofl_ap_out_entry *v,
                                uint32_t fields)
{
    struct ofl_ap_out_entry cand;
    enum ofl_err err;
    bool was_free, closing;

    if (v == NULL)
        return OFL_E_ARG;
    /* As ofl_ap_in_program: closing needs no grant, no validation. */
    closing = fields == OFL_AP_OUT_STATE && v->state == OFL_AP_CLOSED &&
              nic != NULL && index < nic->out_capacity &&
              nic->out[index].state != OFL_AP_FREE;
    err = ofl_ap_out_allowed(nic, priv, port, index, closing ? 0 : fields);
    if (err != OFL_OK)
        return err;
    ap_out_current(nic, index, &cand);
    was_free = cand.state == OFL_AP_FREE;
    ap_out_apply(&cand, v, fields);
    if (was_free) {
        if (!(fields & OFL_AP_OUT_STATE))
            cand.state = OFL_AP_CLOSED;
        if (!(fields & OFL_AP_OUT_OWNER)) {
            /* The OS's own: no port may program it, nor close it. */
            cand.app_fields = 0;
            cand.flags |= OFL_AP_F_OS_OWN;
        }
        if (!(fields & OFL_AP_OUT_SIZE))
            cand.size = (uint32_t)ap_out_slot(nic, index, NULL);
    }
    err = closing ? OFL_OK : ap_out_validate(nic, &cand, index);
    if (err != OFL_OK)
        return err;
    ap_cache_drop(&nic->out_cache, index);
    ap_out_copy(&nic->out[index], &cand);
    return OFL_OK;
}

enum ofl_err ofl_ap_out_clear(struct ofl_ap_nic *nic, enum ofl_ap_priv priv,
                              uint32_t index)
{
    uint64_t base = 0;

    if (nic == NULL || index >= nic->out_capacity)
        return OFL_E_ARG;
    if (priv != OFL_AP_PRIV_OS)
        return priv == OFL_AP_PRIV_APP ? OFL_E_AP_PRIVILEGE : OFL_E_ARG;
    ap_cache_drop(&nic->out_cache, index);
    ofl_fill(&nic->out[index], 0, sizeof(nic->out[index]));
    (void)ap_out_slot(nic, index, &base);
    nic->out[index].pci_base = base;
    return OFL_OK;
}

enum ofl_err ofl_ap_out_query(struct ofl_ap_nic *nic, uint32_t index,
                              struct ofl_ap_out_entry *out)
{
    if (nic == NULL || out == NULL || index >= nic->out_capacity)
        return OFL_E_ARG;
    ap_out_current(nic, index, out);
    return OFL_OK;
}

/* ---- ap: the outgoing data path ------------------------------------------ */

enum ofl_err ofl_ap_out_decode(const struct ofl_ap_nic *nic, uint64_t pci_addr,
                               uint32_t *index, uint32_t *offset)
{
    uint32_t g;

    if (nic == NULL || index == NULL || offset == NULL)
        return OFL_E_ARG;
    for (g = 0; g < nic->ngroups; g++) {
        const struct ofl_ap_out_group *gr = &nic->group[g];
        uint64_t rel = pci_addr - gr->pci_base;

        if (pci_addr >= gr->pci_base &&
            (rel >> gr->size_shift) < (uint64_t)gr->count) {
            *index = gr->first + (uint32_t)(rel >> gr->size_shift);
            *offset = (uint32_t)(rel & (((uint64_t)1 << gr->size_shift) - 1));
            return OFL_OK;
        }
    }
    return OFL_E_AP_NO_APERTURE;
}

void ofl_ap_tx_begin(struct ofl_ap_tx_frame *f, uint8_t *buf, size_t cap)
{
    if (f == NULL)
        return;
    ofl_fill(f, 0, sizeof(*f));
    f->buf = buf;
    f->cap = buf != NULL ? cap : 0;
}

#define AP_TX_EMPTY 0u
#define AP_TX_CI 1u
#define AP_TX_CLOSED 2u

static void ap_eth_header(uint8_t *p, const uint8_t *dst, const uint8_t *src,
                          uint16_t type)
{
    ap_mac_copy(p, dst);
    ap_mac_copy(p + 6, src);
    ofl_store_be16(p + 12, type);
}

/* The header fields of one CI record: what the outgoing path writes and
 * the incoming path reads back (payload: where its data is). */
struct ap_rec {
    const uint8_t *payload;
    uint32_t in_index;
    uint32_t nonce;
    uint32_t seq;
    uint32_t offset;
    uint32_t rlen;  /* bytes the record touches in the aperture: len, or a
                       read request's read length */
    uint32_t tag;   /* a read request's tag (0 otherwise) */
    uint16_t len;
    uint8_t kind;
    uint8_t flags;
};

/* Writes one record header (checksum included) at r. One pointer rather
 * than eight arguments: none go on the stack at -O0 (no dynamic frame). */
static void ap_record_header(uint8_t *r, const struct ap_rec *rec)
{
    r[0] = rec->kind;
    r[1] = rec->flags;
    ofl_store_be16(r + 2, rec->len);
    ofl_store_be32(r + 4, rec->in_index);
    ofl_store_be32(r + 8, rec->nonce);
    ofl_store_be32(r + 12, rec->seq);
    ofl_store_be32(r + 16, rec->offset);
    ofl_store_be16(r + 20, 0);
    ofl_store_be16(r + 22, 0);
    ofl_store_be16(r + 20, ap_fold(ap_sum16(0, r, OFL_AP_CI_REC_HDR)));
}

/* Can a record of need bytes (header and payload) join f for the host
 * (mac, cluster)? OFL_E_SIZE: an empty frame too small; OFL_E_AP_PACK:
 * another host, closed, full or no room. Changes nothing. */
static enum ofl_err ap_tx_fits(const struct ofl_ap_tx_frame *f,
                               const uint8_t *mac, uint16_t cluster,
                               size_t need)
{
    if (f->kind == AP_TX_EMPTY) {
        size_t total = OFL_AP_ETH_HDR + OFL_AP_CI_HDR + need +
                       OFL_AP_CI_TRAILER;

        if (f->cap < total || f->cap < OFL_AP_ETH_MIN_FRAME)
            return OFL_E_SIZE;
    } else if (f->kind != AP_TX_CI || f->dst_cluster != cluster ||
               !ap_mac_eq(f->dst_mac, mac) ||
               f->records >= OFL_AP_CI_MAX_RECORDS ||
               f->cap - f->len < need + OFL_AP_CI_TRAILER ||
               f->len - OFL_AP_ETH_HDR - OFL_AP_CI_HDR + need > 0xFFFFu) {
        return OFL_E_AP_PACK;
    }
    return OFL_OK;
}

/* Where the next record of f starts (f fits it: ap_tx_fits). */
static size_t ap_tx_at(const struct ofl_ap_tx_frame *f)
{
    return f->kind == AP_TX_EMPTY ? OFL_AP_ETH_HDR + OFL_AP_CI_HDR : f->len;
}

/* Opens an empty f as a CI frame for (mac, cluster); else nothing. */
static void ap_tx_open(const struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                       const uint8_t *mac, uint16_t cluster)
{
    uint8_t *h;

    if (f->kind != AP_TX_EMPTY)
        return;
    h = f->buf + OFL_AP_ETH_HDR;
    ap_eth_header(f->buf, mac, nic->self.mac, OFL_AP_ETHERTYPE_CI);
    h[0] = OFL_AP_CI_VERSION << 4;
    h[1] = 0; /* count and records length are set by finish */
    ofl_store_be16(h + 2, cluster);
    ofl_store_be16(h + 4, nic->self.cluster);
    ofl_store_be16(h + 6, 0);
    f->len = OFL_AP_ETH_HDR + OFL_AP_CI_HDR;
    f->kind = AP_TX_CI;
    f->dst_cluster = cluster;
    ap_mac_copy(f->dst_mac, mac);
}

static enum ofl_err ap_tx_ip(struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                             const struct ofl_ap_out_entry *e,
                             const uint8_t *data, size_t len)
{
    struct ofl_ap_udp d;
    size_t n;
    enum ofl_err err;

    if (f->kind != AP_TX_EMPTY)
        return OFL_E_AP_PACK;
    ofl_fill(&d, 0, sizeof(d)); /* every field below, padding included */
    ap_addr_copy(&d.src.host, &nic->self);
    d.src.udp = e->owner;
    ap_mac_copy(d.dst.host.mac, e->dst_mac);
    d.dst.host.cluster = e->dst_cluster;
    d.dst.host.ip = e->dst_ip;
    d.dst.udp = e->dst_udp;
    d.payload = data;
    d.payload_len = len;
    err = ofl_ap_udp_build(&d, nic->ip_id, f->buf, f->cap, &n);
    if (err != OFL_OK)
        return err;
    nic->ip_id++;
    f->len = n;
    f->kind = AP_TX_CLOSED;
    f->records = 1;
    return OFL_OK;
}

enum ofl_err ofl_ap_tx_write(struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                             uint64_t pci_addr, const void *data, size_t len)
{
    struct ofl_ap_out_entry *e;
    struct ap_rec rec;
    uint32_t index, offset;
    size_t need, at;
    uint8_t *r;
    enum ofl_err err;

    if (nic == NULL || f == NULL || data == NULL || len == 0 ||
        len > OFL_AP_MAX_WRITE || f->kind > AP_TX_CLOSED)
        return OFL_E_ARG;
    err = ofl_ap_out_decode(nic, pci_addr, &index, &offset);
    if (err == OFL_OK)
        err = ap_out_open(nic, index, &e); /* index < out_capacity */
    if (err != OFL_OK)
        return err;
    if (offset > e->size || len > e->size - offset)
        return OFL_E_AP_EXTENT;
    if (e->type == OFL_AP_TYPE_IP) {
        err = ap_tx_ip(nic, f, e, (const uint8_t *)data, len);
        if (err == OFL_OK) {
            nic->stats.tx_records++;
            nic->stats.tx_bytes += len;
        }
        return err;
    }
    /* CI data or event: one record, packed behind others for that host. */
    need = OFL_AP_CI_REC_HDR + len;
    err = ap_tx_fits(f, e->dst_mac, e->dst_cluster, need);
    if (err != OFL_OK)
        return err;
    ap_tx_open(nic, f, e->dst_mac, e->dst_cluster);
    at = f->len;
    r = f->buf + at;
    rec.payload = (const uint8_t *)data;
    rec.kind = e->type == OFL_AP_TYPE_CI_EVENT ? OFL_AP_REC_EVENT
                                               : OFL_AP_REC_DATA;
    rec.flags = (e->flags & OFL_AP_F_SEQ) ? OFL_AP_REC_F_SEQ : 0;
    rec.len = (uint16_t)len;
    rec.in_index = e->dst_in_index;
    rec.nonce = e->nonce;
    rec.seq = (e->flags & OFL_AP_F_SEQ) ? e->seq : 0;
    rec.offset = offset;
    ap_record_header(r, &rec);
    ofl_copy(r + OFL_AP_CI_REC_HDR, data, len);
    f->len = at + need;
    f->records++;
    /* FIG. 12 step 8, and the nonce rotation (a cached copy of such an
     * entry is dirty from the start). */
    if (e->flags & OFL_AP_F_SEQ)
        e->seq++;
    ap_rotate(&e->nonce, &e->nonce_count, e->nonce_step, e->nonce_every);
    nic->stats.tx_records++;
    nic->stats.tx_bytes += len;
    return OFL_OK;
}

/* ---- ap: reads (seed 004, "In the case of a read request the analogous
 * operation occurs") ------------------------------------------------------ */

enum ofl_err ofl_ap_read_attach(struct ofl_ap_nic *nic,
                                struct ofl_ap_read *slots, uint32_t n)
{
    if (nic == NULL || n > OFL_AP_READ_MAX || (slots == NULL && n != 0))
        return OFL_E_ARG;
    if (n != 0)
        ofl_fill(slots, 0, (size_t)n * sizeof(*slots)); /* every slot IDLE */
    nic->reads = n != 0 ? slots : NULL;
    nic->nreads = n;
    return OFL_OK;
}

enum ofl_err ofl_ap_read_cancel(struct ofl_ap_nic *nic, uint32_t tag)
{
    if (nic == NULL || tag >= nic->nreads ||
        nic->reads[tag].state != OFL_AP_READ_PENDING)
        return OFL_E_ARG;
    nic->reads[tag].state = OFL_AP_READ_IDLE;
    return OFL_OK;
}

enum ofl_err ofl_ap_tx_read(struct ofl_ap_nic *nic, struct ofl_ap_tx_frame *f,
                            uint64_t pci_addr, uint32_t len, uint64_t dest,
                            uint32_t *tag)
{
    struct ofl_ap_out_entry *e;
    struct ofl_ap_read *slot;
    struct ap_rec rec;
    uint32_t index, offset, t;
    uint8_t *r;
    enum ofl_err err;

    if (nic == NULL || f == NULL || len == 0 || len > OFL_AP_MAX_WRITE ||
        f->kind > AP_TX_CLOSED)
        return OFL_E_ARG;
    err = ofl_ap_out_decode(nic, pci_addr, &index, &offset);
    if (err == OFL_OK)
        err = ap_out_open(nic, index, &e); /* index < out_capacity */
    if (err != OFL_OK)
        return err;
    if (e->type != OFL_AP_TYPE_CI_DATA)
        return OFL_E_AP_TYPE;
    if (offset > e->size || len > e->size - offset)
        return OFL_E_AP_EXTENT;
    for (t = 0; t < nic->nreads; t++)
        if (nic->reads[t].state == OFL_AP_READ_IDLE)
            break;
    if (t >= nic->nreads)
        return OFL_E_AP_READ_BUSY;
    err = ap_tx_fits(f, e->dst_mac, e->dst_cluster,
                     OFL_AP_CI_REC_HDR + OFL_AP_READ_REQ_LEN);
    if (err != OFL_OK)
        return err;
    ap_tx_open(nic, f, e->dst_mac, e->dst_cluster);
    r = f->buf + f->len;
    rec.payload = NULL;
    rec.kind = OFL_AP_REC_READ_REQ;
    rec.flags = (e->flags & OFL_AP_F_SEQ) ? OFL_AP_REC_F_SEQ : 0;
    rec.len = OFL_AP_READ_REQ_LEN;
    rec.in_index = e->dst_in_index;
    rec.nonce = e->nonce;
    rec.seq = (e->flags & OFL_AP_F_SEQ) ? e->seq : 0;
    rec.offset = offset;
    ap_record_header(r, &rec);
    ofl_store_be32(r + OFL_AP_CI_REC_HDR, len);
    ofl_store_be32(r + OFL_AP_CI_REC_HDR + 4, t);
    f->len += OFL_AP_CI_REC_HDR + OFL_AP_READ_REQ_LEN;
    f->records++;
    slot = &nic->reads[t];
    slot->dest = dest;
    slot->out_index = index;
    slot->offset = offset;
    slot->nonce = e->nonce;
    slot->len = len;
    slot->dst_cluster = e->dst_cluster;
    ap_mac_copy(slot->dst_mac, e->dst_mac);
    slot->state = OFL_AP_READ_PENDING;
    if (e->flags & OFL_AP_F_SEQ)
        e->seq++;
    ap_rotate(&e->nonce, &e->nonce_count, e->nonce_step, e->nonce_every);
    nic->stats.tx_records++;
    nic->stats.reads_sent++;
    if (tag != NULL)
        *tag = t;
    return OFL_OK;
}

enum ofl_err ofl_ap_tx_finish(struct ofl_ap_nic *nic,
                              struct ofl_ap_tx_frame *f, size_t *len)
{
    uint8_t *h;
    uint32_t crc;
    size_t end;

    if (nic == NULL || f == NULL || len == NULL || f->kind == AP_TX_EMPTY ||
        f->kind > AP_TX_CLOSED)
        return OFL_E_ARG;
    if (f->kind == AP_TX_CI) {
        h = f->buf + OFL_AP_ETH_HDR;
        h[1] = (uint8_t)f->records;
        ofl_store_be16(h + 6,
                       (uint16_t)(f->len - OFL_AP_ETH_HDR - OFL_AP_CI_HDR));
        crc = port_crc32c_buf(nic->port, h, f->len - OFL_AP_ETH_HDR);
        ofl_store_be32(f->buf + f->len, crc);
        end = f->len + OFL_AP_CI_TRAILER;
        if (end < OFL_AP_ETH_MIN_FRAME) { /* room checked by the first write */
            ofl_fill(f->buf + end, 0, OFL_AP_ETH_MIN_FRAME - end);
            end = OFL_AP_ETH_MIN_FRAME;
        }
        f->len = end;
        f->kind = AP_TX_CLOSED;
    }
    nic->stats.tx_frames++;
    *len = f->len;
    return OFL_OK;
}

/* ---- ap: the incoming data path ------------------------------------------ */

/*
 * The PCI write (or, with rd, the PCI read) of one accepted payload
 * (FIG. 12, bus stall): bursts of at most max_burst bytes that do not
 * cross a max_burst boundary; a refused burst is split in half and
 * re-emitted, and the smaller size is kept for the rest of the payload; a
 * refused minimum burst fails. *done is the bytes moved. Each turn either
 * moves bytes or halves the limit, so the loop ends within len +
 * log2(max_burst) turns. rd: a read's destination, NULL for a write;
 * wr: a write's source (a read passes its destination again, so that
 * neither pointer is NULL on the path that uses it).
 */
static enum ofl_err ap_pci_xfer(struct ofl_ap_nic *nic, uint64_t addr,
                                uint8_t *rd, const uint8_t *wr, uint32_t len,
                                uint32_t *done)
{
    uint32_t limit = nic->max_burst;

    *done = 0;
    while (*done < len) {
        uint64_t a = addr + *done;
        uint32_t room = nic->max_burst -
                        (uint32_t)(a & (uint64_t)(nic->max_burst - 1));
        uint32_t s = len - *done;
        enum ofl_err err;

        if (s > room)
            s = room;
        if (s > limit)
            s = limit;
        err = rd != NULL ? ofl_port_dma_read(nic->port, a, rd + *done, s)
                         : ofl_port_dma_write(nic->port, a, wr + *done, s);
        if (err == OFL_OK) { /* the split size stays for this payload */
            *done += s;
            nic->stats.bursts++;
            continue;
        }
        if (err != OFL_E_PORT_DMA || s <= OFL_AP_MIN_BURST)
            return OFL_E_AP_DMA;
        limit = (s >> 1) < OFL_AP_MIN_BURST ? OFL_AP_MIN_BURST : s >> 1;
        nic->stats.stall_splits++;
    }
    return OFL_OK;
}

static enum ofl_err ap_evq_deliver(struct ofl_ap_nic *nic, uint32_t evq,
                                   const struct ofl_evq_event *ev,
                                   const void *var, size_t var_len)
{
    enum ofl_err err = ofl_evq_post(&nic->evq[evq], ev, var, var_len);

    if (err == OFL_OK || err == OFL_E_EVQ_OVERFLOW)
        return err;
    return OFL_E_AP_DMA;
}

static void ap_rec_parse(const uint8_t *r, struct ap_rec *rec)
{
    rec->kind = r[0];
    rec->flags = r[1];
    rec->len = ofl_load_be16(r + 2);
    rec->in_index = ofl_load_be32(r + 4);
    rec->nonce = ofl_load_be32(r + 8);
    rec->seq = ofl_load_be32(r + 12);
    rec->offset = ofl_load_be32(r + 16);
    rec->payload = r + OFL_AP_CI_REC_HDR;
    rec->rlen = rec->len;
    rec->tag = 0;
    if (rec->kind == OFL_AP_REC_READ_REQ) { /* len == 8: ap_ci_check */
        rec->rlen = ofl_load_be32(rec->payload);
        rec->tag = ofl_load_be32(rec->payload + 4);
    }
}

/* A record addressed to open aperture e (index) was rejected with err.
 * With OFL_AP_F_ERRORS its port hears of it (seed 004: "error events
 * associated with the port", claims 3, 13). Any sender can cause one, so
 * a notice is posted only when at least half the ring stays free: a flood
 * of bad records can neither crowd out real events nor raise an interrupt
 * per frame through the overflow path. An overflow of the aperture's own
 * queue posts nothing more: the queue has counted it and told the OS
 * already. Returns err. */
static enum ofl_err evq_refresh(struct ofl_evq *q, bool want_irq);

/* Does at least half of q's fixed ring have room? RDPTR' is read again
 * when it looks short of that. */
static bool ap_evq_half_room(struct ofl_evq *q)
{
    /* Half the ring still free once the notice is in: a ring of one
     * event never takes one, so its event is never a notice's. */
    const uint32_t need = q->ring_words + OFL_EVQ_EVENT_WORDS * 2;

    if (ofl_evq_space(q) * OFL_EVQ_EVENT_WORDS * 2 >= need)
        return true;
    (void)evq_refresh(q, false); /* FIG. 8 step 1 with fresh RDPTR' */
    return ofl_evq_space(q) * OFL_EVQ_EVENT_WORDS * 2 >= need;
}

static enum ofl_err ap_reject(struct ofl_ap_nic *nic,
                              const struct ofl_ap_in_entry *e, uint32_t index,
                              enum ofl_err err)
{
    if ((e->flags & OFL_AP_F_ERRORS) && err != OFL_E_EVQ_OVERFLOW) {
        struct ofl_evq *q = &nic->evq[e->evq];
        struct ofl_evq_event ev;

        if (!ap_evq_half_room(q)) {
            nic->stats.errors_dropped++;
            return err;
        }
        ev.type = OFL_EVQ_EV_ERROR;
        ev.flags = 0;
        ev.a = (uint32_t)err;
        ev.b = index;
        (void)ofl_evq_post(q, &ev, NULL, 0);
    }
    return err;
}

/* Where one CI frame came from and where its read responses go. */
struct ap_rx_ctx {
    const uint8_t *src_mac;
    struct ofl_ap_tx_frame *reply; /* NULL: read requests are refused */
    struct ofl_ap_rx_result *res;
    uint16_t src_cluster;
};

/* Checks of one record against open aperture e, after (a), as if e's
 * nonce and expected sequence number were nonce and seq (the run of a
 * merge meets them advanced). Read-only. */
static enum ofl_err ap_rec_check(const struct ofl_ap_in_entry *e,
                                 uint32_t nonce, uint32_t seq,
                                 const struct ap_rx_ctx *x,
                                 const struct ap_rec *rec)
{
    if (e->type != (rec->kind == OFL_AP_REC_EVENT ? OFL_AP_TYPE_CI_EVENT
                                                  : OFL_AP_TYPE_CI_DATA))
        return OFL_E_AP_TYPE;
    if ((e->checks & OFL_AP_CHECK_NONCE) && rec->nonce != nonce)    /* (c) */
        return OFL_E_AP_NONCE;
    if ((e->checks & OFL_AP_CHECK_SRC_MAC) &&                        /* (d) */
        !ap_mac_eq(x->src_mac, e->src_mac))
        return OFL_E_AP_SRC_MAC;
    if ((e->checks & OFL_AP_CHECK_SRC_ADDR) &&                       /* (e) */
        ((x->src_cluster ^ e->src_cluster) & e->src_cluster_mask) != 0)
        return OFL_E_AP_SRC_ADDR;
    if ((e->flags & OFL_AP_F_SEQ) &&                                 /* (b) */
        (!(rec->flags & OFL_AP_REC_F_SEQ) || rec->seq != seq))
        return OFL_E_AP_SEQ;
    if (rec->kind == OFL_AP_REC_READ_REQ &&
        (rec->rlen == 0 || rec->rlen > OFL_AP_MAX_WRITE))
        return OFL_E_AP_READ_LEN;
    if (rec->offset > e->size || rec->rlen > e->size - rec->offset)
        return OFL_E_AP_EXTENT;
    if (e->narrow_len != 0 &&
        (rec->offset < e->narrow_off ||
         rec->offset - e->narrow_off > e->narrow_len ||
         rec->rlen > e->narrow_len - (rec->offset - e->narrow_off)))
        return OFL_E_AP_NARROW;
    return OFL_OK;
}

/* An accepted record's commit: the aperture's per-packet state, the
 * counters, and the NOTIFY event of a data record (a cached copy of such
 * an entry is dirty from the start, so nothing else is written). */
static void ap_rec_commit(struct ofl_ap_nic *nic, struct ofl_ap_in_entry *e,
                          const struct ap_rec *rec)
{
    struct ofl_evq_event ev;

    if (e->flags & OFL_AP_F_SEQ)
        e->seq++;
    ap_rotate(&e->nonce, &e->nonce_count, e->nonce_step, e->nonce_every);
    nic->stats.rx_records++;
    nic->stats.rx_bytes += rec->len;
    if (rec->kind == OFL_AP_REC_DATA && (e->flags & OFL_AP_F_NOTIFY)) {
        /* The data is in place; a full queue loses only the notice (the
         * queue counts it and tells the OS). */
        ev.type = OFL_EVQ_EV_DELIVERY;
        ev.flags = 0;
        ev.a = rec->in_index;
        ev.b = rec->offset + rec->len;
        (void)ofl_evq_post(&nic->evq[e->evq], &ev, NULL, 0);
    }
}

/* A read request that passed its checks: the response into x->reply
 * (room checked first, the PCI read straight into place, the header
 * last), so that a refusal leaves the reply frame as it was. */
static enum ofl_err ap_rx_read_req(struct ofl_ap_nic *nic,
                                   const struct ofl_ap_in_entry *e,
                                   const struct ap_rx_ctx *x,
                                   const struct ap_rec *rec)
{
    struct ofl_ap_tx_frame *f = x->reply;
    struct ap_rec out;
    uint32_t done;
    size_t at;
    enum ofl_err err;

    if (f == NULL || f->buf == NULL || f->kind > AP_TX_CLOSED ||
        ap_tx_fits(f, x->src_mac, x->src_cluster,
                   OFL_AP_CI_REC_HDR + rec->rlen) != OFL_OK)
        return OFL_E_AP_READ_REPLY;
    at = ap_tx_at(f);
    err = ap_pci_xfer(nic, e->base + rec->offset,
                      f->buf + at + OFL_AP_CI_REC_HDR,
                      f->buf + at + OFL_AP_CI_REC_HDR, rec->rlen, &done);
    if (err != OFL_OK)
        return err;
    ap_tx_open(nic, f, x->src_mac, x->src_cluster);
    out.payload = NULL;
    out.kind = OFL_AP_REC_READ_RESP;
    out.flags = 0;
    out.len = (uint16_t)rec->rlen;
    out.in_index = rec->tag;
    out.nonce = rec->nonce;
    out.seq = rec->seq;
    out.offset = rec->offset;
    ap_record_header(f->buf + at, &out);
    f->len = at + OFL_AP_CI_REC_HDR + rec->rlen;
    f->records++;
    nic->stats.reads_served++;
    nic->stats.tx_records++;
    nic->stats.tx_bytes += rec->rlen;
    return OFL_OK;
}

/* A read response: checked against the pending read its tag names (no
 * aperture), then written to the slot's dest; the slot becomes IDLE. */
static OFL_NOINLINE enum ofl_err
ap_rx_read_resp(struct ofl_ap_nic *nic, const struct ap_rx_ctx *x,
                const struct ap_rec *rec)
{
    struct ofl_ap_read *slot;
    uint32_t done;
    enum ofl_err err;

    if (rec->in_index >= nic->nreads)
        return OFL_E_AP_READ_TAG;
    slot = &nic->reads[rec->in_index];
    if (slot->state != OFL_AP_READ_PENDING || slot->offset != rec->offset)
        return OFL_E_AP_READ_TAG;
    if (!ap_mac_eq(x->src_mac, slot->dst_mac))                       /* (d) */
        return OFL_E_AP_SRC_MAC;
    if (x->src_cluster != slot->dst_cluster)                         /* (e) */
        return OFL_E_AP_SRC_ADDR;
    if (rec->nonce != slot->nonce)                                   /* (c) */
        return OFL_E_AP_NONCE;
    if (rec->len != slot->len)
        return OFL_E_AP_READ_LEN;
    err = ap_pci_xfer(nic, slot->dest, NULL, rec->payload, rec->len, &done);
    if (err != OFL_OK)
        return err;
    x->res->pci_addr = slot->dest;
    slot->state = OFL_AP_READ_IDLE;
    nic->stats.reads_completed++;
    nic->stats.rx_records++;
    nic->stats.rx_bytes += rec->len;
    return OFL_OK;
}

/* Checks (a)-(e), extent and narrowing of one record, then carries it
 * out and commits the aperture's per-packet state. *open is the aperture
 * once (a) passed (else NULL), so that the caller can tell its port of a
 * later rejection (ap_reject) off this, the hot path. This and the two
 * receive paths below are OFL_NOINLINE (base): each keeps a frame of its
 * own, well under 256 bytes; inlined together they would not be. */
static OFL_NOINLINE enum ofl_err
ap_rx_record(struct ofl_ap_nic *nic, const struct ap_rx_ctx *x,
             const struct ap_rec *rec, struct ofl_ap_in_entry **open)
{
    struct ofl_ap_in_entry *e;
    struct ofl_evq_event ev;
    uint32_t done;
    enum ofl_err err;

    *open = NULL;
    x->res->in_index = rec->in_index;
    x->res->len = rec->len;
    if (rec->kind == OFL_AP_REC_READ_RESP)
        return ap_rx_read_resp(nic, x, rec);
    err = ap_in_open(nic, rec->in_index, &e);             /* index, (a) */
    if (err != OFL_OK)
        return err;
    *open = e;
    err = ap_rec_check(e, e->nonce, e->seq, x, rec);
    if (err != OFL_OK)
        return err;
    if (rec->kind == OFL_AP_REC_DATA) {
        uint64_t addr = e->base + rec->offset; /* base + size checked */

        err = ap_pci_xfer(nic, addr, NULL, rec->payload, rec->len, &done);
        if (err != OFL_OK)
            return err;
        x->res->pci_addr = addr;
    } else if (rec->kind == OFL_AP_REC_READ_REQ) {
        err = ap_rx_read_req(nic, e, x, rec);
        if (err != OFL_OK)
            return err;
        x->res->pci_addr = e->base + rec->offset;
    } else {
        uint8_t area[OFL_AP_EVENT_PAYLOAD];

        ofl_fill(area, 0, sizeof(area));
        ofl_copy(area + rec->offset, rec->payload, rec->len);
        ev.type = OFL_EVQ_EV_CI_EVENT;
        ev.flags = 0;
        ev.a = ofl_load_be32(area);
        ev.b = ofl_load_be32(area + 4);
        err = ap_evq_deliver(nic, e->evq, &ev, NULL, 0);
        if (err != OFL_OK)
            return err;
    }
    ap_rec_commit(nic, e, rec);
    return OFL_OK;
}

/*
 * Merging (ofl_ap_rx_merge): from the data record at h + pos (the i-th of
 * count), the run of following data records for the same aperture at
 * adjacent offsets that pass every check with the state they would meet,
 * up to min(merge_cap, max_burst) bytes. A run of one is left to
 * ap_rx_record (*n = 0, OFL_OK). Otherwise the run is staged, written as
 * one payload, and each record wholly written is committed; *n is how
 * many, *next the offset in h after them. A failed burst (OFL_E_AP_DMA)
 * is no verdict on a record: the port may fail a merged burst because of
 * a later record of it, so the rest go on one at a time (OFL_OK, the
 * caller's usual path) and the record that fails alone is the rejected
 * one, as without merging. Six arguments: a seventh would go on the
 * stack (see ap_record_header).
 */
static OFL_NOINLINE enum ofl_err
ap_rx_run(struct ofl_ap_nic *nic, const struct ap_rx_ctx *x,
          const uint8_t *h, size_t *next, uint32_t left, uint32_t *n)
{
    struct ofl_ap_in_entry *e;
    struct ap_rec rec;
    uint32_t k, total = 0, nonce, count, seq, done, limit, off = 0;
    size_t pos = *next;
    enum ofl_err err;

    *n = 0;
    limit = nic->merge_cap < nic->max_burst ? nic->merge_cap : nic->max_burst;
    ap_rec_parse(h + pos, &rec);
    {   /* the next record must join: else no lookup here (left >= 2) */
        const uint8_t *r2 = h + pos + OFL_AP_CI_REC_HDR + rec.len;

        if (r2[0] != OFL_AP_REC_DATA ||
            ofl_load_be32(r2 + 4) != rec.in_index ||
            ofl_load_be32(r2 + 16) != rec.offset + rec.len)
            return OFL_OK;
    }
    if (ap_in_open(nic, rec.in_index, &e) != OFL_OK)
        return OFL_OK;
    nonce = e->nonce;
    count = e->nonce_count;
    seq = e->seq;
    for (k = 0; k < left; k++) {
        ap_rec_parse(h + pos, &rec);
        if (rec.kind != OFL_AP_REC_DATA ||
            (k != 0 && (rec.in_index != x->res->in_index ||
                        rec.offset != off)) ||
            rec.len > limit - total ||
            ap_rec_check(e, nonce, seq, x, &rec) != OFL_OK)
            break;
        x->res->in_index = rec.in_index;
        ofl_copy(nic->merge_buf + total, rec.payload, rec.len);
        total += rec.len;
        off = rec.offset + rec.len;
        if (e->flags & OFL_AP_F_SEQ)
            seq++;
        ap_rotate(&nonce, &count, e->nonce_step, e->nonce_every);
        pos += OFL_AP_CI_REC_HDR + rec.len;
    }
    if (k < 2)
        return OFL_OK; /* nothing to merge: the usual path */
    ap_rec_parse(h + *next, &rec);
    err = ap_pci_xfer(nic, e->base + rec.offset, NULL, nic->merge_buf, total,
                      &done);
    /* Commit the records wholly written, in order. */
    for (; *n < k; (*n)++) {
        ap_rec_parse(h + *next, &rec);
        x->res->in_index = rec.in_index;
        x->res->len = rec.len;
        if (rec.len > done)
            break;
        done -= rec.len;
        x->res->pci_addr = e->base + rec.offset;
        ap_rec_commit(nic, e, &rec);
        if (*n != 0)
            nic->stats.merged++;
        *next += OFL_AP_CI_REC_HDR + rec.len;
    }
    return err == OFL_E_AP_DMA ? OFL_OK : err;
}

/* The record kinds a CI frame may carry (bit k: kind k). */
#define AP_REC_KINDS                                                         \
    ((1u << OFL_AP_REC_DATA) | (1u << OFL_AP_REC_EVENT) |                    \
     (1u << OFL_AP_REC_READ_REQ) | (1u << OFL_AP_REC_READ_RESP))

/* Structure of a CI frame (nothing is applied): header, every record
 * header, the records length, the CRC32c, the destination. */
static enum ofl_err ap_ci_check(const struct ofl_ap_nic *nic,
                                const uint8_t *frame, size_t len,
                                uint32_t *count)
{
    const uint8_t *h = frame + OFL_AP_ETH_HDR;
    size_t n = len - OFL_AP_ETH_HDR, pos, rlen;
    uint32_t i, crc;

    if (n < OFL_AP_CI_HDR + OFL_AP_CI_TRAILER)
        return OFL_E_AP_TRUNCATED;
    if ((h[0] >> 4) != OFL_AP_CI_VERSION)
        return OFL_E_AP_VERSION;
    *count = h[1];
    if ((h[0] & 0x0Fu) != 0 || h[1] == 0 || h[1] > OFL_AP_CI_MAX_RECORDS)
        return OFL_E_AP_MALFORMED;
    rlen = ofl_load_be16(h + 6);
    if (rlen > n - OFL_AP_CI_HDR - OFL_AP_CI_TRAILER)
        return OFL_E_AP_TRUNCATED;
    pos = 0;
    for (i = 0; i < h[1]; i++) {
        const uint8_t *r = h + OFL_AP_CI_HDR + pos;
        uint32_t plen;

        if (rlen - pos < OFL_AP_CI_REC_HDR)
            return OFL_E_AP_MALFORMED;
        plen = ofl_load_be16(r + 2);
        /* the kinds as one bit test (1, 2, 4, 5; 3 is not assigned): one
         * condition per record, so that make prove's Eva keeps the walk
         * precise */
        if (r[0] > OFL_AP_REC_READ_RESP || ((AP_REC_KINDS >> r[0]) & 1u) == 0 ||
            (r[1] & ~OFL_AP_REC_F_SEQ) != 0 || ofl_load_be16(r + 22) != 0 ||
            plen > OFL_AP_MAX_WRITE ||
            plen > rlen - pos - OFL_AP_CI_REC_HDR)
            return OFL_E_AP_MALFORMED;
        if (r[0] == OFL_AP_REC_READ_REQ && plen != OFL_AP_READ_REQ_LEN)
            return OFL_E_AP_MALFORMED;
        if (ap_fold(ap_sum16(0, r, OFL_AP_CI_REC_HDR)) != 0)
            return OFL_E_AP_HDR_CHECKSUM;
        pos += OFL_AP_CI_REC_HDR + plen;
    }
    if (pos != rlen)
        return OFL_E_AP_MALFORMED;
    crc = port_crc32c_buf(nic->port, h, OFL_AP_CI_HDR + rlen);
    if (crc != ofl_load_be32(h + OFL_AP_CI_HDR + rlen))
        return OFL_E_AP_CRC;
    if (!ap_mac_eq(frame, nic->self.mac) ||
        ofl_load_be16(h + 2) != nic->self.cluster)
        return OFL_E_AP_NOT_FOR_US;
    return OFL_OK;
}

static OFL_NOINLINE enum ofl_err
ap_rx_ci(struct ofl_ap_nic *nic, const uint8_t *frame, size_t len,
         struct ofl_ap_tx_frame *reply, struct ofl_ap_rx_result *res)
{
    const uint8_t *h = frame + OFL_AP_ETH_HDR;
    struct ap_rx_ctx x;
    uint32_t i, count = 0;
    size_t pos = OFL_AP_CI_HDR;
    enum ofl_err err = ap_ci_check(nic, frame, len, &count);

    if (err != OFL_OK)
        return err;
    res->records = count;
    x.src_mac = frame + 6;
    x.src_cluster = ofl_load_be16(h + 4);
    x.reply = reply;
    x.res = res;
    for (i = 0; i < count; i++) {
        struct ofl_ap_in_entry *e;
        struct ap_rec rec;

        if (nic->merge_cap != 0 && h[pos] == OFL_AP_REC_DATA &&
            count - i > 1) {
            uint32_t n;

            err = ap_rx_run(nic, &x, h, &pos, count - i, &n);
            res->applied += n;
            i += n;
            if (err != OFL_OK) { /* its aperture is open: the run's */
                ap_rec_parse(h + pos, &rec);
                if (ap_in_open(nic, rec.in_index, &e) == OFL_OK)
                    (void)ap_reject(nic, e, rec.in_index, err);
                break;
            }
            if (n != 0) {
                i--; /* the loop's increment */
                continue;
            }
        }
        ap_rec_parse(h + pos, &rec);
        err = ap_rx_record(nic, &x, &rec, &e);
        if (err != OFL_OK) {
            if (e != NULL)
                (void)ap_reject(nic, e, rec.in_index, err);
            break;
        }
        res->applied++;
        pos += OFL_AP_CI_REC_HDR + rec.len;
    }
    if (res->applied != 0)
        nic->stats.rx_frames++;
    return err;
}

static OFL_NOINLINE enum ofl_err
ap_rx_ip(struct ofl_ap_nic *nic, const uint8_t *frame, size_t len,
         struct ofl_ap_rx_result *res)
{
    struct ofl_ap_in_entry *e;
    struct ofl_evq_event ev;
    struct ofl_ap_udp u;
    size_t used;
    uint32_t index;
    enum ofl_err err = ofl_ap_udp_parse(frame, len, &u);

    if (err != OFL_OK)
        return err;
    res->records = 1;
    if (!ap_mac_eq(u.dst.host.mac, nic->self.mac) ||
        u.dst.host.ip != nic->self.ip)
        return OFL_E_AP_NOT_FOR_US;
    if (u.dst.udp < nic->udp_base)
        return OFL_E_AP_INDEX;
    index = (uint32_t)(u.dst.udp - nic->udp_base);
    res->in_index = index;
    used = (size_t)(u.payload - frame) + u.payload_len;
    res->len = (uint32_t)used;
    err = ap_in_open(nic, index, &e);                     /* index, (a) */
    if (err != OFL_OK)
        return err;
    if (e->type != OFL_AP_TYPE_IP)
        err = OFL_E_AP_TYPE;
    else if ((e->checks & OFL_AP_CHECK_SRC_MAC) &&                   /* (d) */
             !ap_mac_eq(u.src.host.mac, e->src_mac))
        err = OFL_E_AP_SRC_MAC;
    else if ((e->checks & OFL_AP_CHECK_SRC_ADDR) &&                  /* (e) */
             ((u.src.host.ip ^ e->src_ip) & e->src_ip_mask) != 0)
        err = OFL_E_AP_SRC_ADDR;
    else if (used > e->size)
        err = OFL_E_AP_EXTENT;
    if (err == OFL_OK) {
        ev.type = OFL_EVQ_EV_DATAGRAM;
        ev.flags = 0;
        ev.a = u.src.host.ip;
        ev.b = (uint32_t)u.src.udp << 16 | u.dst.udp;
        err = ap_evq_deliver(nic, e->evq, &ev, frame, used);
    }
    if (err != OFL_OK)
        return ap_reject(nic, e, index, err);
    res->applied = 1;
    nic->stats.rx_frames++;
    nic->stats.rx_records++;
    nic->stats.rx_bytes += used;
    return OFL_OK;
}

enum ofl_err ofl_ap_rx(struct ofl_ap_nic *nic, const uint8_t *frame,
                       size_t len, struct ofl_ap_rx_result *res)
{
    return ofl_ap_rx_reply(nic, frame, len, NULL, res);
}

enum ofl_err ofl_ap_rx_merge(struct ofl_ap_nic *nic, uint8_t *buf,
                             uint32_t cap)
{
    if (nic == NULL || (buf == NULL && cap != 0))
        return OFL_E_ARG;
    nic->merge_buf = cap != 0 ? buf : NULL;
    nic->merge_cap = cap;
    return OFL_OK;
}

enum ofl_err ofl_ap_rx_reply(struct ofl_ap_nic *nic, const uint8_t *frame,
                             size_t len, struct ofl_ap_tx_frame *reply,
                             struct ofl_ap_rx_result *res)
{
    struct ofl_ap_rx_result local;
    enum ofl_err err;

    if (nic == NULL || (frame == NULL && len != 0))
        return OFL_E_ARG;
    if (res == NULL)
        res = &local;
    res->records = 0;
    res->applied = 0;
    res->in_index = 0;
    res->len = 0;
    res->pci_addr = 0;
    if (len < OFL_AP_ETH_HDR)
        err = OFL_E_AP_TRUNCATED;
    else if (ofl_load_be16(frame + 12) == OFL_AP_ETHERTYPE_CI)
        err = ap_rx_ci(nic, frame, len, reply, res);
    else if (ofl_load_be16(frame + 12) == OFL_AP_ETHERTYPE_IPV4)
        err = ap_rx_ip(nic, frame, len, res);
    else
        err = OFL_E_AP_NOT_CI;
    /* Invariant: every error above is a rejection reason, 0x0501 ..
     * 0x0515 (port and queue failures become OFL_E_AP_DMA). The modulo
     * only keeps a broken invariant inside the array. */
    if (err != OFL_OK)
        nic->stats.rejected[((uint32_t)err - 0x0500u) % OFL_AP_REJECT_SLOTS]++;
    return err;
}

/* ---- ap: IPv4/UDP datagrams ----------------------------------------------- */

/* The UDP pseudo-header sum (RFC 768). */
static uint32_t ap_pseudo_sum(uint32_t src, uint32_t dst, uint32_t ulen)
{
    return (src >> 16) + (src & 0xFFFFu) + (dst >> 16) + (dst & 0xFFFFu) +
           OFL_AP_IPPROTO_UDP + ulen;
}

enum ofl_err ofl_ap_udp_parse(const uint8_t *frame, size_t len,
                              struct ofl_ap_udp *out)
{
    const uint8_t *ip, *udp;
    size_t n;
    uint32_t ihl, total, ulen, frag;

    if ((frame == NULL && len != 0) || out == NULL)
        return OFL_E_ARG;
    if (len < OFL_AP_ETH_HDR)
        return OFL_E_AP_TRUNCATED;
    if (ofl_load_be16(frame + 12) != OFL_AP_ETHERTYPE_IPV4)
        return OFL_E_AP_NOT_CI;
    ip = frame + OFL_AP_ETH_HDR;
    n = len - OFL_AP_ETH_HDR;
    if (n < OFL_AP_IPV4_HDR)
        return OFL_E_AP_TRUNCATED;
    if ((ip[0] >> 4) != 4)
        return OFL_E_AP_VERSION;
    ihl = (uint32_t)(ip[0] & 0x0Fu) * 4u;
    total = ofl_load_be16(ip + 2);
    frag = ofl_load_be16(ip + 6);
    if (ihl < OFL_AP_IPV4_HDR || total < ihl + OFL_AP_UDP_HDR)
        return OFL_E_AP_MALFORMED;
    if (total > n)
        return OFL_E_AP_TRUNCATED;
    /* Reserved bit, more-fragments, fragment offset: no fragments here. */
    if ((frag & 0xBFFFu) != 0)
        return OFL_E_AP_MALFORMED;
    if (ip[9] != OFL_AP_IPPROTO_UDP)
        return OFL_E_AP_NOT_CI;
    if (ap_fold(ap_sum16(0, ip, ihl)) != 0)
        return OFL_E_AP_HDR_CHECKSUM;
    udp = ip + ihl;
    ulen = ofl_load_be16(udp + 4);
    if (ulen != total - ihl)
        return OFL_E_AP_MALFORMED;
    out->src.host.ip = ofl_load_be32(ip + 12);
    out->dst.host.ip = ofl_load_be32(ip + 16);
    if (ofl_load_be16(udp + 6) != 0 &&
        ap_fold(ap_sum16(ap_pseudo_sum(out->src.host.ip, out->dst.host.ip,
                                       ulen),
                         udp, ulen)) != 0)
        return OFL_E_AP_HDR_CHECKSUM;
    ap_mac_copy(out->dst.host.mac, frame);
    ap_mac_copy(out->src.host.mac, frame + 6);
    out->src.host.cluster = 0;
    out->dst.host.cluster = 0;
    out->src.udp = ofl_load_be16(udp);
    out->dst.udp = ofl_load_be16(udp + 2);
    out->payload = udp + OFL_AP_UDP_HDR;
    out->payload_len = ulen - OFL_AP_UDP_HDR;
    return OFL_OK;
}

enum ofl_err ofl_ap_udp_build(const struct ofl_ap_udp *d, uint16_t ip_id,
                              uint8_t *buf, size_t cap, size_t *len)
{
    const struct ofl_ap_endpoint *src, *dst;
    const uint8_t *payload;
    size_t payload_len, end, frame;
    uint8_t *ip, *udp;
    uint32_t ulen;
    uint16_t sum;

    if (d == NULL || buf == NULL || len == NULL ||
        (d->payload == NULL && d->payload_len != 0) ||
        d->payload_len > AP_UDP_MAX_PAYLOAD)
        return OFL_E_ARG;
    src = &d->src;
    dst = &d->dst;
    payload = d->payload;
    payload_len = d->payload_len;
    end = OFL_AP_ETH_HDR + OFL_AP_IPV4_HDR + OFL_AP_UDP_HDR + payload_len;
    frame = end < OFL_AP_ETH_MIN_FRAME ? OFL_AP_ETH_MIN_FRAME : end;
    if (cap < frame)
        return OFL_E_SIZE;
    ulen = OFL_AP_UDP_HDR + (uint32_t)payload_len;
    ap_eth_header(buf, dst->host.mac, src->host.mac, OFL_AP_ETHERTYPE_IPV4);
    ip = buf + OFL_AP_ETH_HDR;
    ip[0] = 0x45; /* version 4, IHL 5 */
    ip[1] = 0;
    ofl_store_be16(ip + 2, (uint16_t)(OFL_AP_IPV4_HDR + ulen));
    ofl_store_be16(ip + 4, ip_id);
    ofl_store_be16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = OFL_AP_IPPROTO_UDP;
    ofl_store_be16(ip + 10, 0);
    ofl_store_be32(ip + 12, src->host.ip);
    ofl_store_be32(ip + 16, dst->host.ip);
    ofl_store_be16(ip + 10, ap_fold(ap_sum16(0, ip, OFL_AP_IPV4_HDR)));
    udp = ip + OFL_AP_IPV4_HDR;
    ofl_store_be16(udp, src->udp);
    ofl_store_be16(udp + 2, dst->udp);
    ofl_store_be16(udp + 4, (uint16_t)ulen);
    ofl_store_be16(udp + 6, 0);
    if (payload_len != 0)
        ofl_copy(udp + OFL_AP_UDP_HDR, payload, payload_len);
    sum = ap_fold(ap_sum16(ap_pseudo_sum(src->host.ip, dst->host.ip, ulen),
                           udp, ulen));
    ofl_store_be16(udp + 6, sum == 0 ? 0xFFFFu : sum); /* RFC 768 */
    if (frame > end)
        ofl_fill(buf + end, 0, frame - end);
    *len = frame;
    return OFL_OK;
}

/* ---- ap: connection messages ---------------------------------------------- */

static enum ofl_err ap_msg_check(const struct ofl_ap_msg *m)
{
    bool setup = m->type == OFL_AP_MSG_CONNECT || m->type == OFL_AP_MSG_ACCEPT;
    bool alive = m->type == OFL_AP_MSG_ALIVE || m->type == OFL_AP_MSG_ALIVEACK;

    if (m->type < OFL_AP_MSG_CONNECT || m->type > OFL_AP_MSG_ERROR)
        return OFL_E_AP_MSG_TYPE;
    if ((m->flags & ~OFL_AP_MSG_F_SEQ) != 0 ||
        (!setup && (m->flags | m->cluster | m->seq | m->size | m->nonce_step |
                    m->nonce_every) != 0) ||
        (m->type == OFL_AP_MSG_CONNECT &&
         (m->peer_in_index | m->peer_nonce) != 0) ||
        (!alive && m->token != 0) ||
        ((m->type == OFL_AP_MSG_ERROR) != (m->code != 0)))
        return OFL_E_AP_MALFORMED;
    return OFL_OK;
}

enum ofl_err ofl_ap_msg_parse(const uint8_t *p, size_t len,
                              struct ofl_ap_msg *m)
{
    if ((p == NULL && len != 0) || m == NULL)
        return OFL_E_ARG;
    if (len < OFL_AP_MSG_LEN)
        return OFL_E_AP_TRUNCATED;
    if (p[0] != OFL_AP_MSG_VERSION)
        return OFL_E_AP_VERSION;
    if (len != OFL_AP_MSG_LEN || ofl_load_be16(p + 38) != 0)
        return OFL_E_AP_MALFORMED;
    m->type = p[1];
    m->flags = ofl_load_be16(p + 2);
    m->port = ofl_load_be16(p + 4);
    m->cluster = ofl_load_be16(p + 6);
    m->in_index = ofl_load_be32(p + 8);
    m->nonce = ofl_load_be32(p + 12);
    m->seq = ofl_load_be32(p + 16);
    m->size = ofl_load_be32(p + 20);
    m->nonce_step = ofl_load_be16(p + 24);
    m->nonce_every = ofl_load_be16(p + 26);
    m->peer_in_index = ofl_load_be32(p + 28);
    m->peer_nonce = ofl_load_be32(p + 32);
    m->code = ofl_load_be16(p + 36);
    m->token = ofl_load_be32(p + 40);
    return ap_msg_check(m);
}

enum ofl_err ofl_ap_msg_build(const struct ofl_ap_msg *m, uint8_t *p,
                              size_t cap, size_t *len)
{
    enum ofl_err err;

    if (m == NULL || p == NULL || len == NULL)
        return OFL_E_ARG;
    err = ap_msg_check(m);
    if (err != OFL_OK)
        return err;
    if (cap < OFL_AP_MSG_LEN)
        return OFL_E_SIZE;
    p[0] = OFL_AP_MSG_VERSION;
    p[1] = m->type;
    ofl_store_be16(p + 2, m->flags);
    ofl_store_be16(p + 4, m->port);
    ofl_store_be16(p + 6, m->cluster);
    ofl_store_be32(p + 8, m->in_index);
    ofl_store_be32(p + 12, m->nonce);
    ofl_store_be32(p + 16, m->seq);
    ofl_store_be32(p + 20, m->size);
    ofl_store_be16(p + 24, m->nonce_step);
    ofl_store_be16(p + 26, m->nonce_every);
    ofl_store_be32(p + 28, m->peer_in_index);
    ofl_store_be32(p + 32, m->peer_nonce);
    ofl_store_be16(p + 36, m->code);
    ofl_store_be16(p + 38, 0);
    ofl_store_be32(p + 40, m->token);
    *len = OFL_AP_MSG_LEN;
    return OFL_OK;
}

void ofl_ap_msg_refusal(const struct ofl_ap_msg *connect, uint16_t port,
                        struct ofl_ap_msg *out)
{
    if (connect == NULL || out == NULL)
        return;
    ofl_fill(out, 0, sizeof(*out));
    out->type = OFL_AP_MSG_ERROR;
    out->port = port;
    out->code = (uint16_t)OFL_E_AP_CONN_REFUSED;
    out->peer_in_index = connect->in_index;
    out->peer_nonce = connect->nonce;
}

/* ---- ap: connections ------------------------------------------------------- */

#define AP_CONN_IN_FIELDS (OFL_AP_IN_NONCE | OFL_AP_IN_SEQ | OFL_AP_IN_STATE)
#define AP_CONN_OUT_FIELDS                                                  \
    (OFL_AP_OUT_TYPE | OFL_AP_OUT_DEST | OFL_AP_OUT_NONCE | OFL_AP_OUT_SEQ | \
     OFL_AP_OUT_STATE)

enum ofl_err ofl_ap_conn_init(struct ofl_ap_conn *c, struct ofl_ap_nic *nic,
                              enum ofl_ap_priv priv, uint16_t port,
                              uint32_t in_index, uint32_t out_index,
                              const struct ofl_ap_conn_config *cfg)
{
    enum ofl_err err;

    if (c == NULL || nic == NULL || cfg == NULL)
        return OFL_E_ARG;
    err = ofl_ap_in_allowed(nic, priv, port, in_index, AP_CONN_IN_FIELDS);
    if (err == OFL_OK)
        err = ofl_ap_out_allowed(nic, priv, port, out_index,
                                 AP_CONN_OUT_FIELDS);
    if (err != OFL_OK)
        return err;
    /* The apertures must exist: the OS creates them with their mapping. */
    if (nic->in[in_index].state == OFL_AP_FREE ||
        nic->out[out_index].state == OFL_AP_FREE)
        return OFL_E_AP_NOT_OWNER;
    /* A later connection on the same apertures is told from a stale one
     * by its nonce alone: check (c) must be on. */
    if (!(nic->in[in_index].checks & OFL_AP_CHECK_NONCE))
        return OFL_E_AP_CONFIG;
    ofl_fill(c, 0, sizeof(*c));
    c->nic = nic;
    c->cfg.connect_timeout = cfg->connect_timeout;
    c->cfg.alive_interval = cfg->alive_interval;
    c->cfg.alive_timeout = cfg->alive_timeout;
    c->cfg.nonce_step = cfg->nonce_step;
    c->cfg.nonce_every = cfg->nonce_every;
    c->cfg.retries = cfg->retries;
    c->cfg.seq_check = cfg->seq_check;
    c->priv = (uint8_t)priv;
    c->port = port;
    c->in_index = in_index;
    c->out_index = out_index;
    c->state = OFL_AP_CONN_IDLE;
    return OFL_OK;
}

/* Programs our incoming aperture for a new connection and opens it. */
static enum ofl_err conn_open_in(struct ofl_ap_conn *c, uint32_t nonce,
                                 uint32_t seq)
{
    struct ofl_ap_in_entry v;

    ofl_fill(&v, 0, sizeof(v));
    v.nonce = nonce;
    v.nonce_step = c->cfg.nonce_step;
    v.nonce_every = c->cfg.nonce_every;
    v.seq = seq;
    v.flags = c->cfg.seq_check ? OFL_AP_F_SEQ : 0;
    v.state = OFL_AP_OPEN;
    return ofl_ap_in_program(c->nic, (enum ofl_ap_priv)c->priv, c->port,
                             c->in_index, &v, AP_CONN_IN_FIELDS);
}

/* Points our outgoing aperture at the peer's incoming one (its CONNECT or
 * ACCEPT m, arrived from `from`) and opens it. */
static enum ofl_err conn_open_out(struct ofl_ap_conn *c,
                                  const struct ofl_ap_endpoint *from,
                                  const struct ofl_ap_msg *m)
{
    struct ofl_ap_out_entry v;

    ofl_fill(&v, 0, sizeof(v));
    v.type = OFL_AP_TYPE_CI_DATA;
    ap_mac_copy(v.dst_mac, from->host.mac);
    v.dst_cluster = m->cluster;
    v.dst_ip = from->host.ip;
    v.dst_udp = m->port;
    v.dst_in_index = m->in_index;
    v.nonce = m->nonce;
    v.nonce_step = m->nonce_step;
    v.nonce_every = m->nonce_every;
    v.seq = m->seq;
    v.flags = (m->flags & OFL_AP_MSG_F_SEQ) ? OFL_AP_F_SEQ : 0;
    v.state = OFL_AP_OPEN;
    return ofl_ap_out_program(c->nic, (enum ofl_ap_priv)c->priv, c->port,
                              c->out_index, &v, AP_CONN_OUT_FIELDS);
}

static enum ofl_err conn_close_in(struct ofl_ap_conn *c)
{
    struct ofl_ap_in_entry v;

    ofl_fill(&v, 0, sizeof(v));
    v.state = OFL_AP_CLOSED;
    return ofl_ap_in_program(c->nic, (enum ofl_ap_priv)c->priv, c->port,
                             c->in_index, &v, OFL_AP_IN_STATE);
}

static enum ofl_err conn_close_out(struct ofl_ap_conn *c)
{
    struct ofl_ap_out_entry v;

    ofl_fill(&v, 0, sizeof(v));
    v.state = OFL_AP_CLOSED;
    return ofl_ap_out_program(c->nic, (enum ofl_ap_priv)c->priv, c->port,
                              c->out_index, &v, OFL_AP_OUT_STATE);
}

/* Closes what the state has open and enters CLOSED. */
static enum ofl_err conn_shut(struct ofl_ap_conn *c, uint8_t reason)
{
    enum ofl_err err = conn_close_in(c), err2 = OFL_OK;

    if (c->state == OFL_AP_CONN_OPEN)
        err2 = conn_close_out(c);
    c->state = OFL_AP_CONN_CLOSED;
    c->closed_by = reason;
    c->alive_pending = 0;
    return err != OFL_OK ? err : err2;
}

/* The CONNECT or ACCEPT describing our side. */
static void conn_setup_msg(const struct ofl_ap_conn *c, uint8_t type,
                           struct ofl_ap_msg *m)
{
    ofl_fill(m, 0, sizeof(*m));
    m->type = type;
    m->flags = c->cfg.seq_check ? OFL_AP_MSG_F_SEQ : 0;
    m->port = c->port;
    m->cluster = c->nic->self.cluster;
    m->in_index = c->in_index;
    m->nonce = c->nonce;
    m->seq = c->seq;
    m->size = c->nic->in[c->in_index].size; /* an OS field: table current */
    m->nonce_step = c->cfg.nonce_step;
    m->nonce_every = c->cfg.nonce_every;
    if (type == OFL_AP_MSG_ACCEPT) {
        m->peer_in_index = c->peer_in_index;
        m->peer_nonce = c->peer_nonce;
    }
}

/* A message of an open connection: ours, proving the peer's identity. */
static void conn_msg(const struct ofl_ap_conn *c, uint8_t type,
                     struct ofl_ap_msg *m)
{
    ofl_fill(m, 0, sizeof(*m));
    m->type = type;
    m->port = c->port;
    m->in_index = c->in_index;
    m->nonce = c->nonce;
    m->peer_in_index = c->peer_in_index;
    m->peer_nonce = c->peer_nonce;
}

enum ofl_err ofl_ap_conn_connect(struct ofl_ap_conn *c, uint64_t now,
                                 const struct ofl_ap_endpoint *peer,
                                 uint32_t nonce, uint32_t seq,
                                 struct ofl_ap_msg *out)
{
    enum ofl_err err;

    if (c == NULL || peer == NULL || out == NULL)
        return OFL_E_ARG;
    if (c->state != OFL_AP_CONN_IDLE)
        return OFL_E_AP_CONN_STATE;
    err = conn_open_in(c, nonce, seq);
    if (err != OFL_OK)
        return err;
    ap_endpoint_copy(&c->peer, peer);
    c->nonce = nonce;
    c->seq = seq;
    c->state = OFL_AP_CONN_CONNECTING;
    c->passive = 0;
    c->sent_at = now;
    c->last_heard = now;
    c->tries = 0;
    conn_setup_msg(c, OFL_AP_MSG_CONNECT, out);
    return OFL_OK;
}

enum ofl_err ofl_ap_conn_accept(struct ofl_ap_conn *c, uint64_t now,
                                const struct ofl_ap_endpoint *from,
                                const struct ofl_ap_msg *connect,
                                uint32_t nonce, uint32_t seq,
                                struct ofl_ap_msg *out)
{
    enum ofl_err err;

    if (c == NULL || from == NULL || connect == NULL || out == NULL ||
        connect->type != OFL_AP_MSG_CONNECT)
        return OFL_E_ARG;
    if (c->state != OFL_AP_CONN_IDLE)
        return OFL_E_AP_CONN_STATE;
    err = conn_open_in(c, nonce, seq);
    if (err != OFL_OK)
        return err;
    err = conn_open_out(c, from, connect);
    if (err != OFL_OK) {
        (void)conn_close_in(c);
        return err;
    }
    ap_endpoint_copy(&c->peer, from);
    c->peer.host.cluster = connect->cluster;
    c->peer.udp = connect->port;
    c->peer_in_index = connect->in_index;
    c->peer_nonce = connect->nonce;
    c->peer_size = connect->size;
    c->nonce = nonce;
    c->seq = seq;
    c->state = OFL_AP_CONN_OPEN;
    c->passive = 1;
    c->last_heard = now;
    conn_setup_msg(c, OFL_AP_MSG_ACCEPT, out);
    return OFL_OK;
}

/* m proves it is for us (our in-index and nonce as set up). */
static bool conn_proves(const struct ofl_ap_conn *c, const struct ofl_ap_msg *m)
{
    return m->peer_in_index == c->in_index && m->peer_nonce == c->nonce;
}

/* m comes from our peer (its in-index and nonce, its host). */
static bool conn_from_peer(const struct ofl_ap_conn *c,
                           const struct ofl_ap_endpoint *from,
                           const struct ofl_ap_msg *m)
{
    return m->in_index == c->peer_in_index && m->nonce == c->peer_nonce &&
           from->host.ip == c->peer.host.ip;
}

static enum ofl_err conn_rx_accept(struct ofl_ap_conn *c, uint64_t now,
                                   const struct ofl_ap_endpoint *from,
                                   const struct ofl_ap_msg *m)
{
    enum ofl_err err;

    if (c->state == OFL_AP_CONN_OPEN && !c->passive && conn_proves(c, m) &&
        conn_from_peer(c, from, m))
        return OFL_OK; /* a duplicate of the ACCEPT that opened us */
    if (c->state != OFL_AP_CONN_CONNECTING)
        return OFL_E_AP_CONN_STATE;
    if (!conn_proves(c, m) || from->host.ip != c->peer.host.ip)
        return OFL_E_AP_CONN_PEER;
    err = conn_open_out(c, from, m);
    if (err != OFL_OK)
        return err;
    ap_mac_copy(c->peer.host.mac, from->host.mac);
    c->peer.host.cluster = m->cluster;
    c->peer.udp = m->port; /* port' */
    c->peer_in_index = m->in_index;
    c->peer_nonce = m->nonce;
    c->peer_size = m->size;
    c->state = OFL_AP_CONN_OPEN;
    c->last_heard = now;
    c->tries = 0;
    return OFL_OK;
}

enum ofl_err ofl_ap_conn_rx(struct ofl_ap_conn *c, uint64_t now,
                            const struct ofl_ap_endpoint *from,
                            const struct ofl_ap_msg *m,
                            struct ofl_ap_msg *reply, bool *send)
{
    if (c == NULL || from == NULL || m == NULL || reply == NULL ||
        send == NULL)
        return OFL_E_ARG;
    *send = false;
    switch (m->type) {
    case OFL_AP_MSG_CONNECT:
        /* Our ACCEPT was lost and the peer asks again. */
        if (c->state != OFL_AP_CONN_OPEN || !c->passive)
            return OFL_E_AP_CONN_STATE;
        if (m->in_index != c->peer_in_index || m->nonce != c->peer_nonce ||
            from->host.ip != c->peer.host.ip)
            return OFL_E_AP_CONN_PEER;
        conn_setup_msg(c, OFL_AP_MSG_ACCEPT, reply);
        *send = true;
        return OFL_OK;
    case OFL_AP_MSG_ACCEPT:
        return conn_rx_accept(c, now, from, m);
    case OFL_AP_MSG_ERROR:
        if (!conn_proves(c, m))
            return OFL_E_AP_CONN_PEER;
        if (c->state == OFL_AP_CONN_CONNECTING) {
            if (from->host.ip != c->peer.host.ip)
                return OFL_E_AP_CONN_PEER;
            c->peer_error = m->code;
            if (m->code != (uint16_t)OFL_E_AP_CONN_REFUSED)
                return OFL_OK;
            (void)conn_shut(c, OFL_AP_CLOSE_REFUSED);
            return OFL_E_AP_CONN_REFUSED;
        }
        if (c->state != OFL_AP_CONN_OPEN)
            return OFL_E_AP_CONN_STATE;
        if (!conn_from_peer(c, from, m))
            return OFL_E_AP_CONN_PEER;
        c->peer_error = m->code;
        c->last_heard = now;
        return OFL_OK;
    case OFL_AP_MSG_CLOSE:
    case OFL_AP_MSG_ALIVE:
    case OFL_AP_MSG_ALIVEACK:
        if (c->state != OFL_AP_CONN_OPEN)
            return OFL_E_AP_CONN_STATE;
        if (!conn_proves(c, m) || !conn_from_peer(c, from, m))
            return OFL_E_AP_CONN_PEER;
        if (m->type == OFL_AP_MSG_CLOSE)
            return conn_shut(c, OFL_AP_CLOSE_PEER);
        if (m->type == OFL_AP_MSG_ALIVE) {
            conn_msg(c, OFL_AP_MSG_ALIVEACK, reply);
            reply->token = m->token;
            *send = true;
        } else {
            if (!c->alive_pending || m->token != c->token)
                return OFL_E_AP_CONN_PEER;
            c->alive_pending = 0;
            c->tries = 0;
        }
        c->last_heard = now;
        return OFL_OK;
    default:
        return OFL_E_AP_MSG_TYPE;
    }
}

enum ofl_err ofl_ap_conn_tick(struct ofl_ap_conn *c, uint64_t now,
                              struct ofl_ap_msg *reply, bool *send)
{
    if (c == NULL || reply == NULL || send == NULL)
        return OFL_E_ARG;
    *send = false;
    if (c->state == OFL_AP_CONN_CONNECTING) {
        if (now - c->sent_at < c->cfg.connect_timeout)
            return OFL_OK;
        if (c->tries >= c->cfg.retries) {
            (void)conn_shut(c, OFL_AP_CLOSE_TIMEOUT);
            return OFL_E_AP_CONN_TIMEOUT;
        }
        c->tries++;
        c->sent_at = now;
        conn_setup_msg(c, OFL_AP_MSG_CONNECT, reply);
        *send = true;
        return OFL_OK;
    }
    if (c->state != OFL_AP_CONN_OPEN || c->cfg.alive_interval == 0)
        return OFL_OK;
    if (c->alive_pending) {
        if (now - c->sent_at < c->cfg.alive_timeout)
            return OFL_OK;
        if (c->tries >= c->cfg.retries) {
            (void)conn_shut(c, OFL_AP_CLOSE_TIMEOUT);
            return OFL_E_AP_CONN_TIMEOUT;
        }
        c->tries++;
    } else {
        if (now - c->last_heard < c->cfg.alive_interval)
            return OFL_OK;
        c->alive_pending = 1;
        c->tries = 0;
        c->token++;
    }
    c->sent_at = now;
    conn_msg(c, OFL_AP_MSG_ALIVE, reply);
    reply->token = c->token;
    *send = true;
    return OFL_OK;
}

void ofl_ap_conn_heard(struct ofl_ap_conn *c, uint64_t now)
{
    if (c != NULL)
        c->last_heard = now;
}

enum ofl_err ofl_ap_conn_close(struct ofl_ap_conn *c, struct ofl_ap_msg *out,
                               bool *send)
{
    bool was_open;

    if (c == NULL || out == NULL || send == NULL)
        return OFL_E_ARG;
    *send = false;
    if (c->state != OFL_AP_CONN_OPEN && c->state != OFL_AP_CONN_CONNECTING)
        return OFL_E_AP_CONN_STATE;
    was_open = c->state == OFL_AP_CONN_OPEN;
    if (was_open) {
        conn_msg(c, OFL_AP_MSG_CLOSE, out);
        *send = true;
    }
    return conn_shut(c, OFL_AP_CLOSE_LOCAL);
}

enum ofl_err ofl_ap_conn_error(const struct ofl_ap_conn *c, enum ofl_err code,
                               struct ofl_ap_msg *out)
{
    /* Only a named error travels: anything else would be cut to 16 bits
     * and leave a message ofl_ap_msg_build refuses. */
    if (c == NULL || out == NULL || code == OFL_OK ||
        (unsigned)code >= (unsigned)OFL_ERR_END_)
        return OFL_E_ARG;
    if (c->state != OFL_AP_CONN_OPEN)
        return OFL_E_AP_CONN_STATE;
    conn_msg(c, OFL_AP_MSG_ERROR, out);
    out->code = (uint16_t)code;
    return OFL_OK;
}

enum ofl_err ofl_ap_conn_frame(struct ofl_ap_conn *c, const struct ofl_ap_msg *m,
                               uint8_t *buf, size_t cap, size_t *len)
{
    uint8_t msg[OFL_AP_MSG_LEN];
    struct ofl_ap_udp d;
    size_t n;
    enum ofl_err err;

    if (c == NULL || m == NULL)
        return OFL_E_ARG;
    err = ofl_ap_msg_build(m, msg, sizeof(msg), &n);
    if (err != OFL_OK)
        return err;
    ofl_fill(&d, 0, sizeof(d));
    ap_addr_copy(&d.src.host, &c->nic->self);
    d.src.udp = c->port;
    ap_endpoint_copy(&d.dst, &c->peer);
    d.payload = msg;
    d.payload_len = n;
    err = ofl_ap_udp_build(&d, c->nic->ip_id, buf, cap, len);
    if (err == OFL_OK)
        c->nic->ip_id++;
    return err;
}

/* ---- ap: dual event queues -------------------------------------------------- */

static enum ofl_err evq_ctl_write(const struct ofl_evq *q, uint32_t off,
                                  uint32_t v)
{
    uint8_t b[4];

    ofl_store_le32(b, v);
    return ofl_port_dma_write(q->port, q->ctl_pa + off, b, sizeof(b));
}

static bool evq_ring_ok(uint64_t pa, uint32_t words, bool optional)
{
    if (words == 0)
        return optional;
    return ap_pow2(words) && words <= OFL_EVQ_MAX_WORDS && (pa & 3u) == 0 &&
           pa <= OFL_U64_MAX - ((uint64_t)words * 4u - 1);
}

enum ofl_err ofl_evq_init(struct ofl_evq *q, const struct ofl_evq_config *cfg)
{
    uint8_t zero[OFL_EVQ_CTL_BYTES];
    enum ofl_err err;

    if (q == NULL || cfg == NULL)
        return OFL_E_ARG;
    err = ofl_port_check(cfg->port);
    if (err != OFL_OK)
        return err;
    if (!evq_ring_ok(cfg->ring_pa, cfg->ring_words, false) ||
        cfg->ring_words < OFL_EVQ_EVENT_WORDS ||
        !evq_ring_ok(cfg->var_pa, cfg->var_words, true) ||
        (cfg->ctl_pa & 3u) != 0 ||
        cfg->ctl_pa > OFL_U64_MAX - (OFL_EVQ_CTL_BYTES - 1) ||
        cfg->os == q ||
        (cfg->os != NULL && (cfg->os->os != NULL || cfg->os->var_words != 0)))
        return OFL_E_ARG;
    ofl_fill(zero, 0, sizeof(zero));
    err = ofl_port_dma_write(cfg->port, cfg->ctl_pa, zero, sizeof(zero));
    if (err != OFL_OK)
        return err;
    ofl_fill(q, 0, sizeof(*q));
    q->port = cfg->port;
    q->os = cfg->os;
    q->ring_pa = cfg->ring_pa;
    q->var_pa = cfg->var_pa;
    q->ctl_pa = cfg->ctl_pa;
    q->ring_words = cfg->ring_words;
    q->var_words = cfg->var_words;
    q->vector = cfg->vector;
    q->port_id = cfg->port_id;
    return OFL_OK;
}

enum ofl_err ofl_evq_set_criteria(struct ofl_evq *q, enum ofl_ap_priv priv,
                                  uint32_t mask)
{
    if (q == NULL)
        return OFL_E_ARG;
    if (priv != OFL_AP_PRIV_OS)
        return priv == OFL_AP_PRIV_APP ? OFL_E_AP_PRIVILEGE : OFL_E_ARG;
    if ((mask & ~(((2u << OFL_EVQ_EV_MAX) - 1) & ~1u)) != 0)
        return OFL_E_ARG;
    q->criteria = mask;
    return OFL_OK;
}

void ofl_evq_set_irq(struct ofl_evq *q, bool on)
{
    if (q != NULL)
        q->irq = on ? 1 : 0;
}

enum ofl_err ofl_evq_set_rdptr(struct ofl_evq *q, uint32_t rd, uint32_t var_rd)
{
    if (q == NULL)
        return OFL_E_ARG;
    /* Forward only, never past what was written, whole events. */
    if (rd - q->rd > q->wr - q->rd || (rd & (OFL_EVQ_EVENT_WORDS - 1)) != 0 ||
        var_rd - q->var_rd > q->var_wr - q->var_rd) {
        q->bad_ptr++;
        return OFL_E_EVQ_BAD_PTR;
    }
    q->rd = rd;
    q->var_rd = var_rd;
    return OFL_OK;
}

/* Reads RDPTR and VRDPTR (and IRQ when want_irq) from the control block. */
static enum ofl_err evq_refresh(struct ofl_evq *q, bool want_irq)
{
    uint8_t b[12];
    enum ofl_err err;

    err = ofl_port_dma_read(q->port, q->ctl_pa + OFL_EVQ_CTL_RDPTR, b,
                            want_irq ? 12u : 8u);
    if (err != OFL_OK)
        return err;
    ofl_port_barrier(q->port, OFL_BARRIER_ACQUIRE);
    /* Each value on its own: a refused pointer does not lose the
     * application's request for an interrupt. */
    err = ofl_evq_set_rdptr(q, ofl_load_le32(b), ofl_load_le32(b + 4));
    if (want_irq)
        q->irq = (ofl_load_le32(b + 8) & 1u) != 0;
    return err;
}

enum ofl_err ofl_evq_refresh(struct ofl_evq *q)
{
    if (q == NULL)
        return OFL_E_ARG;
    return evq_refresh(q, true);
}

uint32_t ofl_evq_space(const struct ofl_evq *q)
{
    if (q == NULL)
        return 0;
    return (q->ring_words - (q->wr - q->rd)) / OFL_EVQ_EVENT_WORDS;
}

uint32_t ofl_evq_var_space(const struct ofl_evq *q)
{
    if (q == NULL)
        return 0;
    return q->var_words - (q->var_wr - q->var_rd);
}

/* Writes n bytes at word position pos of the variable ring, wrapping. */
static enum ofl_err evq_var_bytes(const struct ofl_evq *q, uint32_t pos,
                                  const uint8_t *src, uint32_t n)
{
    uint32_t at = pos & (q->var_words - 1);
    uint32_t first = (q->var_words - at) * 4u;
    enum ofl_err err;

    if (first > n)
        first = n;
    err = ofl_port_dma_write(q->port, q->var_pa + (uint64_t)at * 4u, src,
                             first);
    if (err == OFL_OK && n > first)
        err = ofl_port_dma_write(q->port, q->var_pa, src + first, n - first);
    return err;
}

/* Writes the record and the event and publishes them; nothing becomes
 * visible unless everything was written. need: variable words. */
static enum ofl_err evq_put(struct ofl_evq *q, const struct ofl_evq_event *ev,
                            uint16_t port, const uint8_t *var, uint32_t var_len,
                            uint32_t need)
{
    uint8_t b[OFL_EVQ_EVENT_BYTES];
    uint32_t full = var_len & ~3u;
    enum ofl_err err;

    if (ofl_evq_space(q) == 0 || ofl_evq_var_space(q) < need) {
        (void)evq_refresh(q, false); /* FIG. 8 step 1 with fresh RDPTR' */
        if (ofl_evq_space(q) == 0 || ofl_evq_var_space(q) < need)
            return OFL_E_EVQ_OVERFLOW;
    }
    if (need != 0) {
        ofl_store_le32(b, var_len);
        err = evq_var_bytes(q, q->var_wr, b, 4);
        if (err == OFL_OK && full != 0)
            err = evq_var_bytes(q, q->var_wr + 1, var, full);
        if (err == OFL_OK && full != var_len) {
            ofl_fill(b, 0, 4);
            ofl_copy(b, var + full, var_len - full);
            err = evq_var_bytes(q, q->var_wr + 1 + full / 4u, b, 4);
        }
        if (err != OFL_OK)
            return err;
    }
    b[0] = ev->type;
    b[1] = 0;
    ofl_store_le16(b + 2, port);
    ofl_store_le32(b + 4, need);
    ofl_store_le32(b + 8, ev->a);
    ofl_store_le32(b + 12, ev->b);
    err = ofl_port_dma_write(q->port,
                             q->ring_pa +
                                 (uint64_t)(q->wr & (q->ring_words - 1)) * 4u,
                             b, sizeof(b));
    if (err != OFL_OK)
        return err;
    ofl_port_barrier(q->port, OFL_BARRIER_RELEASE);
    ofl_store_le32(b, q->wr + OFL_EVQ_EVENT_WORDS);
    ofl_store_le32(b + 4, q->var_wr + need);
    err = ofl_port_dma_write(q->port, q->ctl_pa + OFL_EVQ_CTL_WRPTR, b, 8);
    if (err != OFL_OK)
        return err;
    q->wr += OFL_EVQ_EVENT_WORDS;
    q->var_wr += need;
    q->posted++;
    return OFL_OK;
}

/* Counts an event that found q full, in q and in its control block. */
static void evq_lost(struct ofl_evq *q)
{
    q->lost++;
    (void)evq_ctl_write(q, OFL_EVQ_CTL_LOST, q->lost);
}

/* A message about q for the OS queue, then the interrupt (claims 1, 13,
 * 17). A full OS queue counts the loss and still interrupts. */
static void evq_tell_os(struct ofl_evq *q, uint8_t type, uint32_t a)
{
    struct ofl_evq_event m;
    struct ofl_evq *os = q->os;

    m.type = type;
    m.flags = 0;
    m.port = q->port_id;
    m.var_words = 0;
    m.a = a;
    m.b = q->wr;
    if (evq_put(os, &m, q->port_id, NULL, 0, 0) != OFL_OK)
        evq_lost(os);
    q->os_messages++;
    q->interrupts++;
    (void)ofl_port_notify(q->port, os->vector);
}

enum ofl_err ofl_evq_post(struct ofl_evq *q, const struct ofl_evq_event *ev,
                          const void *var, size_t var_len)
{
    uint32_t need = 0;
    bool armed, wake;
    enum ofl_err err;

    if (q == NULL || ev == NULL || (var == NULL && var_len != 0) ||
        ev->type == OFL_EVQ_EV_NONE || ev->type > OFL_EVQ_EV_MAX ||
        (var_len != 0 && q->var_words == 0))
        return OFL_E_ARG;
    if (var_len != 0) {
        if (var_len > (size_t)(q->var_words - 1) * 4u) {
            err = OFL_E_EVQ_OVERFLOW; /* could never fit */
            goto overflow;
        }
        need = 1 + (uint32_t)((var_len + 3) / 4);
    }
    /* The one-shot IRQ bit (the application re-arms it) is cleared before
     * the event is published: an application woken by this event re-arms
     * after the clear, which can then not undo the re-arm. */
    armed = q->irq != 0;
    wake = armed || ((q->criteria >> ev->type) & 1u) != 0;
    if (armed) {
        q->irq = 0;
        (void)evq_ctl_write(q, OFL_EVQ_CTL_IRQ, 0);
    }
    err = evq_put(q, ev, q->port_id, (const uint8_t *)var, (uint32_t)var_len,
                  need);
    if (err != OFL_OK && armed) { /* nothing published: still armed */
        q->irq = 1;
        (void)evq_ctl_write(q, OFL_EVQ_CTL_IRQ, 1);
    }
    if (err == OFL_E_EVQ_OVERFLOW)
        goto overflow;
    if (err != OFL_OK)
        return err;
    q->overflow_told = 0;
    if (wake) {
        if (q->os != NULL) {
            evq_tell_os(q, OFL_EVQ_EV_OOB_DATA, ev->type);
        } else {
            q->interrupts++;
            (void)ofl_port_notify(q->port, q->vector);
        }
    }
    return OFL_OK;
overflow:
    evq_lost(q);
    if (q->os != NULL && !q->overflow_told) {
        q->overflow_told = 1;
        evq_tell_os(q, OFL_EVQ_EV_OVERFLOW, ev->type);
    }
    return err;
}

enum ofl_err ofl_evq_app_init(struct ofl_evq_app *a, void *ring,
                              uint32_t ring_words, void *var,
                              uint32_t var_words, void *ctl,
                              const struct ofl_port *port)
{
    if (a == NULL || ring == NULL || ctl == NULL || !ap_pow2(ring_words) ||
        ring_words < OFL_EVQ_EVENT_WORDS || ring_words > OFL_EVQ_MAX_WORDS ||
        (var_words != 0 && (var == NULL || !ap_pow2(var_words) ||
                            var_words > OFL_EVQ_MAX_WORDS)))
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(a, 0, sizeof(*a));
    a->ring = (uint8_t *)ring;
    a->var = var_words != 0 ? (uint8_t *)var : NULL;
    a->ctl = (uint8_t *)ctl;
    a->port = port;
    a->ring_words = ring_words;
    a->var_words = var_words;
    return OFL_OK;
}

uint32_t ofl_evq_app_pending(const struct ofl_evq_app *a)
{
    uint32_t d;

    if (a == NULL)
        return 0;
    d = ofl_load_le32(a->ctl + OFL_EVQ_CTL_WRPTR) - a->rd;
    if (d > a->ring_words || (d & (OFL_EVQ_EVENT_WORDS - 1)) != 0)
        return 0;
    return d / OFL_EVQ_EVENT_WORDS;
}

/* Copies n bytes from word position pos of the variable ring, wrapping. */
static void evq_app_var(const struct ofl_evq_app *a, uint32_t pos, uint8_t *dst,
                        uint32_t n)
{
    uint32_t at = pos & (a->var_words - 1);
    uint32_t first = (a->var_words - at) * 4u;

    if (first > n)
        first = n;
    ofl_copy(dst, a->var + (size_t)at * 4u, first);
    ofl_copy(dst + first, a->var, n - first);
}

enum ofl_err ofl_evq_app_poll(struct ofl_evq_app *a, struct ofl_evq_event *ev,
                              void *data, size_t cap, size_t *len)
{
    const uint8_t *e;
    uint32_t d, vw, blen = 0;
    uint8_t w[4];

    if (a == NULL || ev == NULL || len == NULL || (data == NULL && cap != 0))
        return OFL_E_ARG;
    d = ofl_load_le32(a->ctl + OFL_EVQ_CTL_WRPTR) - a->rd;
    if (d > a->ring_words || (d & (OFL_EVQ_EVENT_WORDS - 1)) != 0)
        return OFL_E_EVQ_BAD_PTR;
    if (d == 0)
        return OFL_E_EVQ_EMPTY;
    ofl_port_barrier(a->port, OFL_BARRIER_ACQUIRE);
    e = a->ring + (size_t)(a->rd & (a->ring_words - 1)) * 4u;
    vw = ofl_load_le32(e + 4);
    if (e[0] == OFL_EVQ_EV_NONE || e[0] > OFL_EVQ_EV_MAX || e[1] != 0 ||
        vw > a->var_words || vw == 1)
        return OFL_E_EVQ_CORRUPT;
    if (vw != 0) {
        uint32_t vd = ofl_load_le32(a->ctl + OFL_EVQ_CTL_VWRPTR) - a->var_rd;

        if (vd > a->var_words)
            return OFL_E_EVQ_BAD_PTR;
        if (vw > vd)
            return OFL_E_EVQ_CORRUPT;
        evq_app_var(a, a->var_rd, w, 4);
        blen = ofl_load_le32(w);
        if (blen <= (vw - 2) * 4u || blen > (vw - 1) * 4u)
            return OFL_E_EVQ_CORRUPT;
        if (blen > cap)
            return OFL_E_SIZE;
        evq_app_var(a, a->var_rd + 1, (uint8_t *)data, blen);
    }
    ev->type = e[0];
    ev->flags = e[1];
    ev->port = ofl_load_le16(e + 2);
    ev->var_words = vw;
    ev->a = ofl_load_le32(e + 8);
    ev->b = ofl_load_le32(e + 12);
    *len = blen;
    a->rd += OFL_EVQ_EVENT_WORDS;
    a->var_rd += vw;
    ofl_port_barrier(a->port, OFL_BARRIER_RELEASE);
    ofl_store_le32(a->ctl + OFL_EVQ_CTL_RDPTR, a->rd);
    ofl_store_le32(a->ctl + OFL_EVQ_CTL_VRDPTR, a->var_rd);
    return OFL_OK;
}

void ofl_evq_app_arm(struct ofl_evq_app *a)
{
    if (a != NULL)
        ofl_store_le32(a->ctl + OFL_EVQ_CTL_IRQ, 1);
}

/* ---- ap: the credit-style shared work queue ------------------------------------ */

enum ofl_err ofl_ap_wq_init(struct ofl_ap_wq *q, uint32_t size)
{
    if (q == NULL || !ap_pow2(size) || size < 4 || size > (1u << 30))
        return OFL_E_ARG;
    q->size = size;
    q->wr = 0;
    q->rd = 0;
    return OFL_OK;
}

uint32_t ofl_ap_wq_space(const struct ofl_ap_wq *q)
{
    return q != NULL ? q->size - (q->wr - q->rd) : 0;
}

uint32_t ofl_ap_wq_avail(const struct ofl_ap_wq *q)
{
    return q != NULL ? q->wr - q->rd : 0;
}

enum ofl_err ofl_ap_wq_produce(struct ofl_ap_wq *q, uint32_t len,
                               uint32_t *offset)
{
    if (q == NULL || offset == NULL)
        return OFL_E_ARG;
    if (len > ofl_ap_wq_space(q))
        return OFL_E_AP_WQ_NO_CREDIT;
    *offset = q->wr & (q->size - 1);
    q->wr += len;
    return OFL_OK;
}

enum ofl_err ofl_ap_wq_consume(struct ofl_ap_wq *q, uint32_t len,
                               uint32_t *offset)
{
    if (q == NULL || offset == NULL)
        return OFL_E_ARG;
    if (len > ofl_ap_wq_avail(q))
        return OFL_E_AP_WQ_NO_CREDIT;
    *offset = q->rd & (q->size - 1);
    q->rd += len;
    return OFL_OK;
}

enum ofl_err ofl_ap_wq_remote_rd(struct ofl_ap_wq *q, uint32_t rd)
{
    if (q == NULL)
        return OFL_E_ARG;
    if (ofl_sn_le(rd, q->rd))
        return OFL_OK; /* an older update overtaken by a newer one */
    if (rd - q->rd > q->wr - q->rd)
        return OFL_E_AP_WQ_BAD_PTR; /* frees what was never written */
    q->rd = rd;
    return OFL_OK;
}

enum ofl_err ofl_ap_wq_remote_wr(struct ofl_ap_wq *q, uint32_t wr)
{
    if (q == NULL)
        return OFL_E_ARG;
    if (ofl_sn_le(wr, q->wr))
        return OFL_OK;
    if (wr - q->rd > q->size)
        return OFL_E_AP_WQ_BAD_PTR; /* more than the ring holds */
    q->wr = wr;
    return OFL_OK;
}

#endif /* OFL_ENABLE_AP */

/* ======================================================================== */
/* dt                                                                       */
/* ======================================================================== */
#if OFL_ENABLE_DT

/*
 * Request handlers and service steps each keep a descriptor or two on the
 * stack; they are OFL_NOINLINE so that no frame sums them (256-byte frames).
 * The per-descriptor steps of the exchange path (decode, check, store, the
 * range check, the send cache) are DT_HOT: inlined into the batch loops
 * when optimising for speed, so that no call is made per descriptor; left
 * to the compiler at -O0 and -Os.
 */
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__)
#define DT_HOT __attribute__((__always_inline__)) inline
#else
#define DT_HOT inline
#endif

/* Field-wise copy and clear of a decoded descriptor (no library call,
 * no byte loop). */
static void dt_desc_copy(struct ofl_dt_desc *d, const struct ofl_dt_desc *s)
{
    d->base = s->base;
    d->conn = s->conn;
    d->tag = s->tag;
    d->len = s->len;
    d->aux = s->aux;
    d->type = s->type;
    d->flags = s->flags;
    d->status = s->status;
    d->number = s->number;
}

static void dt_desc_zero(struct ofl_dt_desc *d)
{
    d->base = 0;
    d->conn = 0;
    d->tag = 0;
    d->len = 0;
    d->aux = 0;
    d->type = 0;
    d->flags = 0;
    d->status = 0;
    d->number = 0;
}
/* ---- descriptor codec ------------------------------------------------------ */

/* Field positions (offload.h, dt: the layout table). */
#define DT_OFF_FLAGS 1
#define DT_OFF_STATUS 2
#define DT_OFF_NUMBER 3
#define DT_OFF_TAG 4
#define DT_OFF_BASE 8
#define DT_OFF_LEN 16
#define DT_OFF_CONN 20
#define DT_OFF_AUX 28

/* Which fields are present (non-zero) or MUST be zero, one bit each. */
#define DT_Z_BASE 0x01u
#define DT_Z_LEN 0x02u
#define DT_Z_CONN 0x04u
#define DT_Z_NUMBER 0x08u
#define DT_Z_AUX 0x10u
#define DT_Z_STATUS 0x20u
#define DT_Z_CTL (DT_Z_BASE | DT_Z_LEN | DT_Z_NUMBER)
#define DT_Z_ALL 0x3Fu

struct dt_rule {
    uint8_t valid;
    uint8_t flags; /* allowed flags */
    uint8_t need;  /* DT_Z_ fields that MUST be non-zero (responses: only
                      when the status is OK) */
    uint8_t zero;  /* DT_Z_ fields that MUST be zero */
    uint8_t range; /* base/len describe a host range: no wrap */
};

static const struct dt_rule dt_rules[32] = {
    [OFL_DT_REQ_BUF_SEND] = {1, OFL_DT_F_ASAP | OFL_DT_F_MODIFY,
                             DT_Z_CONN | DT_Z_LEN,
                             DT_Z_NUMBER | DT_Z_AUX | DT_Z_STATUS, 1},
    [OFL_DT_REQ_BUF_AVAIL] = {1, OFL_DT_F_PEEK, DT_Z_LEN,
                              DT_Z_NUMBER | DT_Z_STATUS, 1},
    [OFL_DT_REQ_CONNECT] = {1, 0, DT_Z_NUMBER | DT_Z_LEN,
                            DT_Z_CONN | DT_Z_AUX | DT_Z_STATUS, 1},
    [OFL_DT_REQ_LISTEN] = {1, 0, DT_Z_NUMBER | DT_Z_LEN,
                           DT_Z_CONN | DT_Z_AUX | DT_Z_STATUS, 1},
    [OFL_DT_REQ_TERMINATE] = {1, 0, DT_Z_CONN,
                              DT_Z_CTL | DT_Z_AUX | DT_Z_STATUS, 0},
    [OFL_DT_REQ_CANCEL] = {1, 0, 0, DT_Z_CTL | DT_Z_STATUS, 0},
    [OFL_DT_REQ_CONN_ATTR] = {1, 0, DT_Z_CONN | DT_Z_NUMBER | DT_Z_LEN,
                              DT_Z_AUX | DT_Z_STATUS, 1},
    [OFL_DT_REQ_ADAPTER_ATTR] = {1, 0, DT_Z_NUMBER | DT_Z_LEN,
                                 DT_Z_CONN | DT_Z_AUX | DT_Z_STATUS, 1},
    [OFL_DT_RSP_BUF_RECV] = {1, OFL_DT_F_FINAL | OFL_DT_F_PEEK, DT_Z_CONN, 0,
                             1},
    [OFL_DT_RSP_BUF_AVAIL] = {1, 0, DT_Z_CONN, DT_Z_AUX, 1},
    [OFL_DT_RSP_CONN_ARRIVAL] = {1, 0, DT_Z_CONN | DT_Z_BASE,
                                 DT_Z_LEN | DT_Z_NUMBER | DT_Z_AUX, 0},
    [OFL_DT_RSP_CONN_COMPLETE] = {1, 0, 0, DT_Z_CTL, 0},
    [OFL_DT_RSP_LISTEN] = {1, 0, 0, DT_Z_CTL | DT_Z_AUX, 0},
    [OFL_DT_RSP_TERMINATE] = {1, 0, DT_Z_CONN, DT_Z_CTL | DT_Z_AUX, 0},
    [OFL_DT_RSP_CANCEL] = {1, 0, 0, DT_Z_BASE | DT_Z_LEN, 0},
    [OFL_DT_RSP_CONN_ATTR] = {1, OFL_DT_F_REPORT, DT_Z_CONN, 0, 1},
    [OFL_DT_RSP_ADAPTER_ATTR] = {1, 0, 0, DT_Z_CONN | DT_Z_AUX, 1},
};

bool ofl_dt_is_request(uint8_t type)
{
    return type >= OFL_DT_REQ_BUF_SEND && type <= OFL_DT_REQ_ADAPTER_ATTR;
}

bool ofl_dt_is_response(uint8_t type)
{
    return type >= OFL_DT_RSP_BUF_RECV && type <= OFL_DT_RSP_ADAPTER_ATTR;
}

uint8_t ofl_dt_response_to(uint8_t req)
{
    static const uint8_t rsp[9] = {
        0, OFL_DT_RSP_BUF_AVAIL, OFL_DT_RSP_BUF_RECV,
        OFL_DT_RSP_CONN_COMPLETE, OFL_DT_RSP_LISTEN, OFL_DT_RSP_TERMINATE,
        OFL_DT_RSP_CANCEL, OFL_DT_RSP_CONN_ATTR, OFL_DT_RSP_ADAPTER_ATTR};

    return ofl_dt_is_request(req) ? rsp[req] : 0;
}

/* Is a field of d among those in set (DT_Z_ bits) not zero? Written as
 * one OR of the fields: with set a constant (a type's rule folded in) it
 * is an OR of the fields the rule names and one test. */
static DT_HOT bool dt_any_set(const struct ofl_dt_desc *d, uint32_t set)
{
    return (((set & DT_Z_BASE) ? d->base : 0u) |
            ((set & DT_Z_LEN) ? d->len : 0u) |
            ((set & DT_Z_CONN) ? d->conn : 0u) |
            ((set & DT_Z_NUMBER) ? d->number : 0u) |
            ((set & DT_Z_AUX) ? d->aux : 0u) |
            ((set & DT_Z_STATUS) ? d->status : 0u)) != 0;
}

/* Is a field of d among those in set zero? */
static DT_HOT bool dt_any_clear(const struct ofl_dt_desc *d, uint32_t set)
{
    return ((set & DT_Z_BASE) && d->base == 0) ||
           ((set & DT_Z_LEN) && d->len == 0) ||
           ((set & DT_Z_CONN) && d->conn == 0) ||
           ((set & DT_Z_NUMBER) && d->number == 0) ||
           ((set & DT_Z_AUX) && d->aux == 0) ||
           ((set & DT_Z_STATUS) && d->status == 0);
}

/*
 * The checks shared by encode and decode (offload.h: the type table). Every
 * request type has its status in `zero`, so the status rule for `need`
 * only ever relaxes a response. type is d->type: a caller that has just
 * compared it with a constant passes that constant, and the type's rule
 * (a constant table entry) folds into the checks: each field test then
 * looks only at the fields its rule names (dt_desc_check_hot, and the
 * host's two common types). Otherwise the rule is read at run time.
 */
static DT_HOT enum ofl_err dt_desc_check_as(const struct ofl_dt_desc *d,
                                            uint8_t type)
{
    const struct dt_rule *r = &dt_rules[type & OFL_DT_TYPE_MASK];

    if (type > OFL_DT_TYPE_MASK || !r->valid)
        return OFL_E_DT_BAD_TYPE;
    if ((d->flags & (uint8_t)~r->flags) != 0)
        return OFL_E_DT_BAD_FLAGS;
    if (dt_any_set(d, r->zero))
        return OFL_E_DT_RESERVED;
    if (d->status > OFL_DT_ST_MAX ||
        (d->status == OFL_DT_ST_OK && dt_any_clear(d, r->need)))
        return OFL_E_DT_BAD_FIELD;
    /* A range must not wrap; a state report carries counters instead. */
    if (r->range && d->len != 0 && !(d->flags & OFL_DT_F_REPORT) &&
        d->base > OFL_U64_MAX - ((uint64_t)d->len - 1))
        return OFL_E_DT_BAD_FIELD;
    /* Received data lies at base + aux: that range must not wrap either
     * (a host uses it as it comes). */
    if (type == OFL_DT_RSP_BUF_RECV &&
        (d->aux > OFL_U64_MAX - d->base ||
         (d->len != 0 &&
          d->base + d->aux > OFL_U64_MAX - ((uint64_t)d->len - 1))))
        return OFL_E_DT_BAD_FIELD;
    /* PEEK is allowed in two types only. A peek reads a connection's own
     * stream from its start; its data always comes back whole (FINAL). */
    if ((d->flags & OFL_DT_F_PEEK) &&
        (type == OFL_DT_REQ_BUF_AVAIL ? (d->conn == 0 || d->aux != 0)
                                         : !(d->flags & OFL_DT_F_FINAL)))
        return OFL_E_DT_BAD_FLAGS;
    return OFL_OK;
}

static DT_HOT enum ofl_err dt_desc_check(const struct ofl_dt_desc *d)
{
    return dt_desc_check_as(d, d->type);
}

/* dt_desc_check, with the rule of type common (the one a batch is expected
 * to be made of) folded in: same checks, same order, for every type. */
static DT_HOT enum ofl_err dt_desc_check_hot(const struct ofl_dt_desc *d,
                                             uint8_t common)
{
    return d->type == common ? dt_desc_check_as(d, common)
                             : dt_desc_check(d);
}


/* Loads in[1 .. 32) into *d without any check (all but the type). */
static DT_HOT void dt_load_fields(const uint8_t *in, struct ofl_dt_desc *d)
{
    d->flags = in[DT_OFF_FLAGS];
    d->status = in[DT_OFF_STATUS];
    d->number = in[DT_OFF_NUMBER];
    d->tag = ofl_load_be32_word(in + DT_OFF_TAG);
    d->base = ofl_load_be64_word(in + DT_OFF_BASE);
    d->len = ofl_load_be32_word(in + DT_OFF_LEN);
    d->conn = ofl_load_be64_word(in + DT_OFF_CONN);
    d->aux = ofl_load_be32_word(in + DT_OFF_AUX);
}

/* Loads in[0 .. 32) into *d without any check (the owner bit ignored). */
static void dt_load(const uint8_t *in, struct ofl_dt_desc *d)
{
    d->type = (uint8_t)((in[0] >> OFL_DT_TYPE_SHIFT) & OFL_DT_TYPE_MASK);
    dt_load_fields(in, d);
}

/* Loads and checks in[0 .. 32) into *d; *d is garbage on error. common:
 * as for dt_desc_check_hot. */
static DT_HOT enum ofl_err dt_decode(const uint8_t *in, struct ofl_dt_desc *d,
                                     uint8_t common)
{
    if (in[0] & OFL_DT_RESERVED0)
        return OFL_E_DT_RESERVED;
    dt_load(in, d);
    return dt_desc_check_hot(d, common);
}

/*
 * Stores d (already checked: its type fits in 5 bits) with the owner bit
 * as given. Bytes 0 .. 3 are built as one little-endian word: type,
 * flags, status and number are adjacent fields, which GCC then reads with
 * one load, and the type is moved up by OFL_DT_TYPE_SHIFT within the low
 * byte by adding (2^shift - 1) times it (type << 2 is at most 0x7C: no
 * carry into flags). Written as a shift, the type breaks the
 * adjacent-byte pattern and the four bytes are loaded, shifted and ORed
 * one by one: 4 more instructions per posted descriptor (callgrind).
 */
static DT_HOT void dt_store_w(const struct ofl_dt_desc *d, uint32_t w,
                              uint8_t *out, uint8_t owner)
{
    ofl_store_le32(out, (w + (w & 0xFFu) * ((1u << OFL_DT_TYPE_SHIFT) - 1u)) |
                            owner);
    ofl_store_be32(out + DT_OFF_TAG, d->tag);
    ofl_store_be64(out + DT_OFF_BASE, d->base);
    ofl_store_be32(out + DT_OFF_LEN, d->len);
    ofl_store_be64(out + DT_OFF_CONN, d->conn);
    ofl_store_be32(out + DT_OFF_AUX, d->aux);
}

/* Type, flags, status and number of d as one little-endian word, the
 * word dt_store_w takes. */
static DT_HOT uint32_t dt_desc_w(const struct ofl_dt_desc *d)
{
    return (uint32_t)d->type | (uint32_t)d->flags << 8 |
           (uint32_t)d->status << 16 | (uint32_t)d->number << 24;
}

static DT_HOT void dt_store(const struct ofl_dt_desc *d, uint8_t *out,
                            uint8_t owner)
{
    dt_store_w(d, dt_desc_w(d), out, owner);
}

/*
 * dt_desc_w of a descriptor in memory (the host's posts): the four
 * adjacent byte fields read as one word where ofl_word32 exists. clang 14
 * does not merge the four byte loads of dt_desc_w (9 more instructions per
 * posted descriptor, callgrind); a descriptor built in registers (a
 * response) takes dt_desc_w, which would be stored to be loaded here.
 */
#ifdef OFL_LE32
_Static_assert(offsetof(struct ofl_dt_desc, flags) ==
                       offsetof(struct ofl_dt_desc, type) + 1 &&
                   offsetof(struct ofl_dt_desc, status) ==
                       offsetof(struct ofl_dt_desc, type) + 2 &&
                   offsetof(struct ofl_dt_desc, number) ==
                       offsetof(struct ofl_dt_desc, type) + 3,
               "type, flags, status and number are adjacent bytes");
#endif
static DT_HOT uint32_t dt_desc_w_mem(const struct ofl_dt_desc *d)
{
#ifdef OFL_LE32
    return OFL_LE32(*(const ofl_word32 *)&d->type);
#else
    return dt_desc_w(d);
#endif
}

enum ofl_err ofl_dt_desc_encode(const struct ofl_dt_desc *d, uint8_t *out,
                                size_t out_len)
{
    enum ofl_err err;

    if (d == NULL || out == NULL)
        return OFL_E_ARG;
    if (out_len < OFL_DT_DESC_SIZE)
        return OFL_E_SIZE;
    err = dt_desc_check(d);
    if (err != OFL_OK)
        return err;
    dt_store(d, out, 0);
    return OFL_OK;
}

enum ofl_err ofl_dt_desc_decode(const uint8_t *in, size_t len,
                                struct ofl_dt_desc *d)
{
    struct ofl_dt_desc t;
    enum ofl_err err;

    if (in == NULL || d == NULL)
        return OFL_E_ARG;
    if (len < OFL_DT_DESC_SIZE)
        return OFL_E_TRUNCATED;
    err = dt_decode(in, &t, OFL_DT_REQ_BUF_SEND);
    if (err == OFL_OK)
        dt_desc_copy(d, &t);
    return err;
}

/* ---- attribute tuples ------------------------------------------------------ */

/* Attribute scopes (offload.h: enum ofl_dt_attr). */
#define DT_SC_A 0x01u  /* adapter attribute control */
#define DT_SC_C 0x02u  /* connection attribute control */
#define DT_SC_E 0x04u  /* endpoint tuple of connect / listen */
#define DT_SC_RO 0x08u /* get only (in A and C) */

/*
 * An attribute and where it lives: a field of struct ofl_dt (scope A) or of
 * struct ofl_dt_conn (scopes C and E), at offset off and of width bytes; 0
 * for the two that are not one integer field (CN_PATTERN, REMOTE).
 */
struct dt_attr_def {
    uint16_t id;
    uint8_t size;  /* value size in a tuple */
    uint8_t scope;
    uint32_t min, max; /* u32 attributes: the value range */
    uint16_t off;
    uint8_t width;
};

#define DT_AF(field) offsetof(struct ofl_dt, field), \
                     sizeof(((struct ofl_dt *)0)->field)
#define DT_CF(field) offsetof(struct ofl_dt_conn, field), \
                     sizeof(((struct ofl_dt_conn *)0)->field)

static const struct dt_attr_def dt_attrs[] = {
    {OFL_DT_ATTR_CN_CRITERIA, 4, DT_SC_A, 0, OFL_DT_CN_ALL,
     DT_AF(cfg.cn_criteria)},
    {OFL_DT_ATTR_CN_COUNT, 4, DT_SC_A, 1, 0xFFFFFFFFu, DT_AF(cfg.cn_count)},
    {OFL_DT_ATTR_CN_TIME, 8, DT_SC_A, 0, 0, DT_AF(cfg.cn_time)},
    {OFL_DT_ATTR_CN_MAX_DELAY, 8, DT_SC_A, 0, 0, DT_AF(cfg.cn_max_delay)},
    {OFL_DT_ATTR_CN_PATTERN, OFL_DT_PATTERN_SIZE, DT_SC_A, 0, 0, 0, 0},
    {OFL_DT_ATTR_CONNECT_TIMEOUT, 8, DT_SC_A, 0, 0,
     DT_AF(cfg.connect_timeout)},
    {OFL_DT_ATTR_REPORT_PERIOD, 8, DT_SC_A, 0, 0, DT_AF(cfg.report_period)},
    {OFL_DT_ATTR_BT_CRITERIA, 4, DT_SC_A, 0, OFL_DT_BT_ALL,
     DT_AF(cfg.bt_criteria)},
    {OFL_DT_ATTR_BT_COUNT, 4, DT_SC_A, 1, 0xFFFFFFFFu, DT_AF(cfg.bt_count)},
    {OFL_DT_ATTR_BT_BYTES, 4, DT_SC_A, 1, 0xFFFFFFFFu, DT_AF(cfg.bt_bytes)},
    {OFL_DT_ATTR_BT_TIME, 8, DT_SC_A, 0, 0, DT_AF(cfg.bt_time)},
    {OFL_DT_ATTR_BT_MAX_DELAY, 8, DT_SC_A, 0, 0, DT_AF(cfg.bt_max_delay)},
    {OFL_DT_ATTR_STARVE_TIME, 8, DT_SC_A, 0, 0, DT_AF(cfg.starve_time)},
    {OFL_DT_ATTR_MERGE_MAX, 4, DT_SC_A, 1, 0xFFFFFFFFu, DT_AF(cfg.merge_max)},
    /* OUT_WARN: < out_slots, checked apart */
    {OFL_DT_ATTR_OUT_WARN, 4, DT_SC_A, 0, 0xFFFFFFFFu, DT_AF(cfg.out_warn)},
    {OFL_DT_ATTR_CONN_COUNT, 4, DT_SC_A | DT_SC_RO, 0, 0, DT_AF(conn_live)},
    {OFL_DT_ATTR_NOTIFY_MODE, 4, DT_SC_C | DT_SC_E, 0, OFL_DT_NOTIFY_ADAPTIVE,
     DT_CF(cfg.notify_mode)},
    {OFL_DT_ATTR_NOTIFY_DELAY, 8, DT_SC_C | DT_SC_E, 0, 0,
     DT_CF(cfg.notify_delay)},
    {OFL_DT_ATTR_NOTIFY_BYTES, 4, DT_SC_C | DT_SC_E, 1, 0xFFFFFFFFu,
     DT_CF(cfg.notify_bytes)},
    {OFL_DT_ATTR_NOTIFY_MAX, 8, DT_SC_C | DT_SC_E, 0, 0,
     DT_CF(cfg.notify_max)},
    {OFL_DT_ATTR_PRIORITY, 4, DT_SC_C | DT_SC_E, 0, 7, DT_CF(cfg.priority)},
    {OFL_DT_ATTR_WAIT_LIMIT, 8, DT_SC_C | DT_SC_E, 0, 0,
     DT_CF(cfg.wait_limit)},
    {OFL_DT_ATTR_HIST_WINDOW, 4, DT_SC_C | DT_SC_E, 0, 32,
     DT_CF(cfg.hist_window)},
    {OFL_DT_ATTR_HIST_THRESHOLD, 4, DT_SC_C | DT_SC_E, 0, 100,
     DT_CF(cfg.hist_threshold)},
    {OFL_DT_ATTR_GROUP, 8, DT_SC_C, 0, 0, DT_CF(group)},
    {OFL_DT_ATTR_STATE, 4, DT_SC_C | DT_SC_RO, 0, 0, DT_CF(state)},
    {OFL_DT_ATTR_RX_TOTAL, 8, DT_SC_C | DT_SC_RO, 0, 0, DT_CF(rx_total)},
    {OFL_DT_ATTR_TX_TOTAL, 8, DT_SC_C | DT_SC_RO, 0, 0, DT_CF(tx_total)},
    {OFL_DT_ATTR_FRAGMENT, 4, DT_SC_C | DT_SC_E, 0, OFL_DT_FRAG_ALLOW,
     DT_CF(cfg.frag)},
    {OFL_DT_ATTR_PROTOCOL, 4, DT_SC_C | DT_SC_E | DT_SC_RO, 0, 255,
     DT_CF(proto)},
    {OFL_DT_ATTR_LOCAL_PORT, 4, DT_SC_C | DT_SC_E | DT_SC_RO, 0, 65535,
     DT_CF(lport)},
    {OFL_DT_ATTR_REMOTE, OFL_DT_REMOTE_SIZE, DT_SC_C | DT_SC_E | DT_SC_RO, 0,
     0, 0, 0},
    {OFL_DT_ATTR_BACKLOG, 4, DT_SC_C | DT_SC_E | DT_SC_RO, 0, 0xFFFFFFFFu,
     DT_CF(backlog)},
};

#define DT_NATTRS (sizeof(dt_attrs) / sizeof(dt_attrs[0]))

static const struct dt_attr_def *dt_attr_find(uint16_t attr)
{
    size_t i;

    for (i = 0; i < DT_NATTRS; i++)
        if (dt_attrs[i].id == attr)
            return &dt_attrs[i];
    return NULL;
}

uint32_t ofl_dt_attr_size(uint16_t attr)
{
    const struct dt_attr_def *a = dt_attr_find(attr);

    return a != NULL ? a->size : 0;
}

enum ofl_err ofl_dt_tuple_next(const uint8_t *buf, size_t len, size_t *off,
                               struct ofl_dt_tuple *t)
{
    size_t o;
    uint16_t h;
    uint32_t vlen;

    if (buf == NULL || off == NULL || t == NULL)
        return OFL_E_ARG;
    o = *off;
    if (o > len || len - o < OFL_DT_TUPLE_HDR)
        return OFL_E_DT_TUPLE_TRUNCATED;
    h = ofl_load_be16(buf + o);
    vlen = ofl_load_be32(buf + o + 2);
    if ((size_t)vlen > len - o - OFL_DT_TUPLE_HDR)
        return OFL_E_DT_TUPLE_TRUNCATED;
    if ((h & OFL_DT_ATTR_ID_MASK) == 0)
        return OFL_E_DT_ATTR_UNKNOWN;
    t->attr = (uint16_t)(h & OFL_DT_ATTR_ID_MASK);
    t->set = (h & OFL_DT_ATTR_SET) != 0;
    t->len = vlen;
    t->value_off = (uint32_t)(o + OFL_DT_TUPLE_HDR);
    t->value = buf + o + OFL_DT_TUPLE_HDR;
    *off = o + OFL_DT_TUPLE_HDR + vlen;
    return OFL_OK;
}

enum ofl_err ofl_dt_tuple_put(uint8_t *buf, size_t cap, size_t *off, bool set,
                              uint16_t attr, const void *value, uint32_t vlen)
{
    size_t o;

    if (buf == NULL || off == NULL || attr == 0 ||
        attr > OFL_DT_ATTR_ID_MASK || (value == NULL && vlen != 0 && set))
        return OFL_E_ARG;
    o = *off;
    if (o > cap || cap - o < OFL_DT_TUPLE_HDR ||
        (size_t)vlen > cap - o - OFL_DT_TUPLE_HDR)
        return OFL_E_SIZE;
    ofl_store_be16(buf + o, (uint16_t)(attr | (set ? OFL_DT_ATTR_SET : 0)));
    ofl_store_be32(buf + o + 2, vlen);
    if (value != NULL)
        ofl_copy(buf + o + OFL_DT_TUPLE_HDR, value, vlen);
    else
        ofl_fill(buf + o + OFL_DT_TUPLE_HDR, 0, vlen);
    *off = o + OFL_DT_TUPLE_HDR + vlen;
    return OFL_OK;
}

enum ofl_err ofl_dt_tuples_check(const uint8_t *buf, size_t len,
                                 uint32_t number)
{
    struct ofl_dt_tuple t;
    size_t off = 0;
    uint32_t i;
    enum ofl_err err;

    if (buf == NULL && len != 0)
        return OFL_E_ARG;
    /* Each tuple takes at least 6 bytes, so number bounds the loop. */
    for (i = 0; i < number; i++) {
        if (buf == NULL)
            return OFL_E_DT_TUPLE_TRUNCATED;
        err = ofl_dt_tuple_next(buf, len, &off, &t);
        if (err != OFL_OK)
            return err;
    }
    return off == len ? OFL_OK : OFL_E_DT_TUPLE_COUNT;
}

/* ---- host side ------------------------------------------------------------- */

static bool dt_pow2_slots(uint32_t n)
{
    return n >= 2 && n <= OFL_DT_MAX_SLOTS && (n & (n - 1)) == 0;
}

enum ofl_err ofl_dt_host_init(struct ofl_dt_host *h, void *in_table,
                              uint32_t in_slots, void *out_table,
                              uint32_t out_slots, const struct ofl_port *port)
{
    if (h == NULL || in_table == NULL || out_table == NULL ||
        !dt_pow2_slots(in_slots) || !dt_pow2_slots(out_slots) ||
        ((uintptr_t)in_table & (OFL_DT_DESC_SIZE - 1)) != 0 ||
        ((uintptr_t)out_table & (OFL_DT_DESC_SIZE - 1)) != 0)
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    h->in = (uint8_t *)in_table;
    h->out = (uint8_t *)out_table;
    h->port = port;
    h->in_slots = in_slots;
    h->out_slots = out_slots;
    h->in_tail = 0;
    h->out_head = 0;
    h->bad = 0;
    ofl_fill(h->in, 0, (size_t)in_slots * OFL_DT_DESC_SIZE);
    ofl_fill(h->out, 0, (size_t)out_slots * OFL_DT_DESC_SIZE);
    return OFL_OK;
}

static uint8_t *dt_host_in_slot(const struct ofl_dt_host *h, uint32_t i)
{
    return h->in + (size_t)(i & (h->in_slots - 1)) * OFL_DT_DESC_SIZE;
}

static uint8_t *dt_host_out_slot(const struct ofl_dt_host *h, uint32_t i)
{
    return h->out + (size_t)(i & (h->out_slots - 1)) * OFL_DT_DESC_SIZE;
}

/*
 * The batch loops below walk the slots as at most two runs of adjacent
 * slots (up to the table's end, then from its start), with a pointer
 * that steps by a slot: no mask and shift per slot. They keep the mask
 * and the first index in locals and read h only at the start of a run: a
 * byte store into a slot (or into a uint8_t field of d[]) may alias *h,
 * and the compiler would otherwise reload h's fields after every one.
 * Returns the length of the run that starts at index i of a table of
 * mask + 1 slots, at most n.
 */
static uint32_t dt_host_run(uint32_t i, uint32_t mask, uint32_t n)
{
    uint32_t room = mask + 1 - (i & mask);

    return n < room ? n : room;
}

/* A request's checks as ofl_dt_host_post documents them: a request type,
 * then dt_desc_check. */
static DT_HOT enum ofl_err dt_host_check_req(const struct ofl_dt_desc *d)
{
    /* A fast path: the send's rule (dt_rules) as one test that a
     * well-formed send passes: type, flags, status and number (one word,
     * dt_desc_w_mem) a send with no flag but ASAP and MODIFY (so no
     * REPORT: the range test always applies; no PEEK) and status and
     * number zero (so the need test applies), aux zero, length and
     * connection set, a range that does not wrap. Anything else takes the
     * checks in their order for its error. clang 14 does not fold the
     * rule's status and flag tests after the zero test (8 more
     * instructions per post, callgrind). */
    if (OFL_FAST_PATH &&
        (dt_desc_w_mem(d) & ~((uint32_t)(OFL_DT_F_ASAP | OFL_DT_F_MODIFY)
                              << 8)) == OFL_DT_REQ_BUF_SEND &&
        d->aux == 0 && d->len != 0 && d->conn != 0 &&
        d->base <= OFL_U64_MAX - ((uint64_t)d->len - 1))
        return OFL_OK;
    if (d->type == OFL_DT_REQ_BUF_SEND)
        return dt_desc_check_as(d, OFL_DT_REQ_BUF_SEND); /* rule folded */
    if (!ofl_dt_is_request(d->type))
        return OFL_E_DT_BAD_TYPE;
    return dt_desc_check(d);
}

/*
 * dt_decode of a response slot, then the response type test (the order
 * ofl_dt_host_poll_batch documents); *d is garbage on error. Byte 0 of
 * the common response (a buffer available), owner bit aside, says at
 * once that its reserved bits are clear and what its type is: its other
 * fields are loaded (dt_load_fields, inline: dt_load is a call of its
 * own) and take the folded checks. Any other byte 0 takes dt_decode's path
 * from its start.
 */
static DT_HOT enum ofl_err dt_host_decode(const uint8_t *in,
                                          struct ofl_dt_desc *d)
{
    enum ofl_err err;
#if defined(OFL_LE32) && OFL_FAST_PATH
    /* A fast path: bytes 0 .. 3 as one word, stored into type .. number
     * as one (the type put in place of byte 0); a buffer available with
     * no flag and aux zero (tested in the slot: its zero is stored), a
     * status in range, the connection set when it is OK and a range that
     * does not wrap passes its rule (dt_rules) and returns at once.
     * Anything else takes the checks in their order (one with aux set,
     * the folded ones below). */
    uint32_t w = OFL_LE32(*(const ofl_word32 *)in);

    if ((w & (0xFF00u | (uint8_t)~OFL_DT_OWNER)) ==
            OFL_DT_RSP_BUF_AVAIL << OFL_DT_TYPE_SHIFT &&
        ofl_load_be32_word(in + DT_OFF_AUX) == 0) {
        *(ofl_word32 *)&d->type =
            OFL_LE32((w & 0xFFFFFF00u) | OFL_DT_RSP_BUF_AVAIL);
        d->tag = ofl_load_be32_word(in + DT_OFF_TAG);
        d->base = ofl_load_be64_word(in + DT_OFF_BASE);
        d->len = ofl_load_be32_word(in + DT_OFF_LEN);
        d->conn = ofl_load_be64_word(in + DT_OFF_CONN);
        d->aux = 0;
        if ((uint8_t)(w >> 16) <= OFL_DT_ST_MAX &&
            ((uint8_t)(w >> 16) != OFL_DT_ST_OK || d->conn != 0) &&
            (d->len == 0 || d->base <= OFL_U64_MAX - ((uint64_t)d->len - 1)))
            return OFL_OK;
        return dt_desc_check_as(d, OFL_DT_RSP_BUF_AVAIL);
    }
#endif
    if ((in[0] & (uint8_t)~OFL_DT_OWNER) ==
        OFL_DT_RSP_BUF_AVAIL << OFL_DT_TYPE_SHIFT) {
        d->type = OFL_DT_RSP_BUF_AVAIL;
        dt_load_fields(in, d);
        return dt_desc_check_as(d, OFL_DT_RSP_BUF_AVAIL); /* folded */
    }
    err = dt_decode(in, d, OFL_DT_RSP_BUF_AVAIL);
    if (err == OFL_OK && !ofl_dt_is_response(d->type))
        err = OFL_E_DT_BAD_TYPE;
    return err;
}

enum ofl_err ofl_dt_host_post_batch(struct ofl_dt_host *h,
                                    const struct ofl_dt_desc *d, uint32_t n)
{
    uint8_t *p;
    uint32_t i, j, run, mask, tail;
    enum ofl_err err;

    if (h == NULL || h->in == NULL || (d == NULL && n != 0))
        return OFL_E_ARG;
    if (n > h->in_slots)
        return OFL_E_DT_FULL;
    mask = h->in_slots - 1;
    tail = h->in_tail;
    /* Validate everything and check every slot is free before writing. */
    for (i = 0; i < n; i += run) {
        run = dt_host_run(tail + i, mask, n - i);
        p = dt_host_in_slot(h, tail + i);
        for (j = i; j < i + run; j++, p += OFL_DT_DESC_SIZE) {
            err = dt_host_check_req(&d[j]);
            if (err != OFL_OK)
                return err;
            if (p[0] & OFL_DT_OWNER)
                return OFL_E_DT_FULL;
        }
    }
    for (i = 0; i < n; i += run) {
        run = dt_host_run(tail + i, mask, n - i);
        p = dt_host_in_slot(h, tail + i);
        for (j = i; j < i + run; j++, p += OFL_DT_DESC_SIZE)
            dt_store_w(&d[j], dt_desc_w_mem(&d[j]), p, 0);
    }
    /* The contents become visible before any owner bit. */
    ofl_port_barrier(h->port, OFL_BARRIER_RELEASE);
    for (i = 0; i < n; i += run) {
        run = dt_host_run(tail + i, mask, n - i);
        p = dt_host_in_slot(h, tail + i);
        j = 0;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
        /* Four slots a step (a fast path: the same bytes set). */
        for (; j + 4 <= run; j += 4, p += 4 * OFL_DT_DESC_SIZE) {
            p[0] |= OFL_DT_OWNER;
            p[OFL_DT_DESC_SIZE] |= OFL_DT_OWNER;
            p[2 * OFL_DT_DESC_SIZE] |= OFL_DT_OWNER;
            p[3 * OFL_DT_DESC_SIZE] |= OFL_DT_OWNER;
        }
#endif
        for (; j < run; j++, p += OFL_DT_DESC_SIZE)
            p[0] |= OFL_DT_OWNER;
    }
    h->in_tail = tail + n;
    return OFL_OK;
}

enum ofl_err ofl_dt_host_post(struct ofl_dt_host *h,
                              const struct ofl_dt_desc *d)
{
    if (d == NULL)
        return OFL_E_ARG;
    return ofl_dt_host_post_batch(h, d, 1);
}

enum ofl_err ofl_dt_host_poll_batch(struct ofl_dt_host *h,
                                    struct ofl_dt_desc *d, uint32_t max,
                                    uint32_t *n)
{
    uint8_t *p, *q, *end;
    uint32_t i, j, k = 0, run, mask, head;
    enum ofl_err first = OFL_OK, err;

    if (h == NULL || h->out == NULL || d == NULL || n == NULL)
        return OFL_E_ARG;
    *n = 0;
    if (max > h->out_slots)
        max = h->out_slots;
    mask = h->out_slots - 1;
    head = h->out_head;
    /* k: the full slots from head on, up to the first free one. */
    for (i = 0; i < max && k == i; i += run) {
        run = dt_host_run(head + i, mask, max - i);
        p = dt_host_out_slot(h, head + i);
        end = p + (size_t)run * OFL_DT_DESC_SIZE;
        q = p;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
        /* Four owner bits a test while all four are set (a fast path: the
         * loop below then finds the same first free slot). */
        for (; (size_t)(end - q) >= 4 * OFL_DT_DESC_SIZE &&
               (q[0] & q[OFL_DT_DESC_SIZE] & q[2 * OFL_DT_DESC_SIZE] &
                q[3 * OFL_DT_DESC_SIZE] & OFL_DT_OWNER);
             q += 4 * OFL_DT_DESC_SIZE)
            ;
#endif
        for (; q != end && (q[0] & OFL_DT_OWNER); q += OFL_DT_DESC_SIZE)
            ;
        k += (uint32_t)((size_t)(q - p) / OFL_DT_DESC_SIZE);
    }
    if (k == 0)
        return OFL_E_DT_EMPTY;
    /* Read nothing of a slot before its owner bit was seen. */
    ofl_port_barrier(h->port, OFL_BARRIER_ACQUIRE);
    for (i = 0; i < k; i += run) {
        run = dt_host_run(head + i, mask, k - i);
        p = dt_host_out_slot(h, head + i);
        for (j = i; j < i + run; j++, p += OFL_DT_DESC_SIZE) {
            /* A malformed or non-response slot is consumed as type 0
             * (the ring must not stall). */
            err = dt_host_decode(p, &d[j]);
            if (err != OFL_OK) {
                dt_desc_zero(&d[j]);
                h->bad++;
                if (first == OFL_OK)
                    first = err;
            }
        }
    }
    /* Finish reading before the adapter may reuse the slots. */
    ofl_port_barrier(h->port, OFL_BARRIER_FULL);
    for (i = 0; i < k; i += run) {
        run = dt_host_run(head + i, mask, k - i);
        p = dt_host_out_slot(h, head + i);
        j = 0;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
        /* Four slots a step (a fast path: the same bytes cleared). */
        for (; j + 4 <= run; j += 4, p += 4 * OFL_DT_DESC_SIZE) {
            p[0] = 0;
            p[OFL_DT_DESC_SIZE] = 0;
            p[2 * OFL_DT_DESC_SIZE] = 0;
            p[3 * OFL_DT_DESC_SIZE] = 0;
        }
#endif
        for (; j < run; j++, p += OFL_DT_DESC_SIZE)
            p[0] = 0;
    }
    h->out_head = head + k;
    *n = k;
    return first;
}

enum ofl_err ofl_dt_host_poll(struct ofl_dt_host *h, struct ofl_dt_desc *d)
{
    uint32_t n;

    return ofl_dt_host_poll_batch(h, d, 1, &n);
}

enum ofl_err ofl_dt_host_kick(const struct ofl_dt_host *h)
{
    enum ofl_err err;

    if (h == NULL)
        return OFL_E_ARG;
    err = ofl_port_doorbell(h->port, OFL_DT_DB_IN_TAIL, h->in_tail);
    if (err == OFL_OK)
        err = ofl_port_doorbell(h->port, OFL_DT_DB_OUT_HEAD, h->out_head);
    return err;
}

/* ---- adapter: configuration ------------------------------------------------ */

void ofl_dt_config_default(struct ofl_dt_config *cfg)
{
    if (cfg == NULL)
        return;
    ofl_fill(cfg, 0, sizeof(*cfg));
    cfg->cn_count = 1;
    cfg->bt_count = 1;
    cfg->bt_bytes = 1;
    cfg->merge_max = 65536;
    cfg->irq_response = 0;
    cfg->irq_overflow = 1;
    cfg->conn.notify_mode = OFL_DT_NOTIFY_NOW;
    cfg->conn.notify_bytes = 1;
}

static bool dt_conn_cfg_ok(const struct ofl_dt_conn_cfg *c)
{
    return c->notify_mode <= OFL_DT_NOTIFY_ADAPTIVE && c->notify_bytes >= 1 &&
           c->priority <= 7 && c->hist_window <= 32 &&
           c->hist_threshold <= 100 && c->frag <= OFL_DT_FRAG_ALLOW;
}

static bool dt_pattern_ok(const uint8_t *pat, uint32_t len)
{
    uint32_t i;

    if (len > OFL_DT_PATTERN_MAX)
        return false;
    for (i = len; i < OFL_DT_PATTERN_MAX; i++)
        if (pat[i] != 0)
            return false;
    return true;
}

enum ofl_err ofl_dt_config_check(const struct ofl_dt_config *cfg,
                                 uint32_t out_slots)
{
    if (cfg == NULL || (cfg->cn_criteria & ~OFL_DT_CN_ALL) != 0 ||
        (cfg->bt_criteria & ~OFL_DT_BT_ALL) != 0 || cfg->cn_count == 0 ||
        cfg->bt_count == 0 || cfg->bt_bytes == 0 || cfg->merge_max == 0 ||
        cfg->out_warn >= out_slots ||
        !dt_pattern_ok(cfg->cn_pattern, cfg->cn_pattern_len) ||
        !dt_conn_cfg_ok(&cfg->conn))
        return OFL_E_ARG;
    return OFL_OK;
}

/* ---- adapter: helpers ------------------------------------------------------ */

#define DT_RB_FREE 0
#define DT_RB_OWN 1
#define DT_RB_SHARED 2
#define DT_RB_BULK 3
#define DT_RB_PEEK 4

#define DT_CN_COMPLETION 1
#define DT_CN_ARRIVAL 2

static uint32_t dt_min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint64_t dt_conn_id(const struct ofl_dt *dt, const struct ofl_dt_conn *c)
{
    return ((uint64_t)c->gen << 32) | (uint32_t)(c - dt->mem.conn + 1);
}

static uint32_t dt_conn_index(const struct ofl_dt *dt,
                              const struct ofl_dt_conn *c)
{
    return (uint32_t)(c - dt->mem.conn);
}

/* The live entry id names, or NULL (index beyond the table, stale
 * generation, free slot). */
static DT_HOT struct ofl_dt_conn *dt_conn_find(const struct ofl_dt *dt,
                                               uint64_t id)
{
    uint32_t lo = (uint32_t)id;
    struct ofl_dt_conn *c;

    if (lo == 0 || lo > dt->mem.conn_cap)
        return NULL;
    c = &dt->mem.conn[lo - 1];
    if (c->state == OFL_DT_CONN_FREE || c->gen != (uint32_t)(id >> 32))
        return NULL;
    return c;
}

static uint8_t *dt_rx_ring(const struct ofl_dt *dt, const struct ofl_dt_conn *c)
{
    return dt->mem.conn_data + (size_t)dt_conn_index(dt, c) *
                                   ((size_t)dt->mem.rx_size + dt->mem.tx_size);
}

static uint8_t *dt_tx_ring(const struct ofl_dt *dt, const struct ofl_dt_conn *c)
{
    return dt_rx_ring(dt, c) + dt->mem.rx_size;
}

/* The bounds of dt_host_ok: the host range and the first and last bytes
 * of the two tables (a loop over many ranges works them out once), and
 * whether both tables lie outside the host range (apart). */
struct dt_bounds {
    uint64_t lo, hi, in_pa, in_last, out_pa, out_last;
    bool apart;
};

static DT_HOT void dt_bounds_init(const struct ofl_dt *dt, struct dt_bounds *b)
{
    b->lo = dt->mem.host_lo;
    b->hi = dt->mem.host_hi;
    b->in_pa = dt->mem.in_pa;
    b->in_last = dt->mem.in_pa +
                 ((uint64_t)dt->mem.in_slots * OFL_DT_DESC_SIZE - 1);
    b->out_pa = dt->mem.out_pa;
    b->out_last = dt->mem.out_pa +
                  ((uint64_t)dt->mem.out_slots * OFL_DT_DESC_SIZE - 1);
    b->apart = OFL_FAST_PATH && (b->in_last < b->lo || b->in_pa > b->hi) &&
               (b->out_last < b->lo || b->out_pa > b->hi);
}

/*
 * Is [base, base + len) inside the host range descriptors may name (b),
 * and clear of both tables (received data must never land in a table)?
 * len is not 0: the decoder requires a length of every type that names a
 * buffer. Once inside the host range the range does not wrap: it shares
 * a byte with a table when each starts at or before the other's last.
 * When both tables lie outside the host range (b->apart, the usual
 * layout) no range inside it can share a byte with one: the two table
 * tests would be false, and are not made (a fast path: never apart when
 * OFL_FAST_PATH is 0; tests/check_fastpath_dt.sh compares the two).
 */
static DT_HOT bool dt_host_ok_in(const struct dt_bounds *b, uint64_t base,
                                 uint32_t len)
{
    uint64_t last = base + ((uint64_t)len - 1);

    return base >= b->lo && base <= b->hi &&
           (uint64_t)len - 1 <= b->hi - base &&
           (b->apart || (!(base <= b->in_last && b->in_pa <= last) &&
                         !(base <= b->out_last && b->out_pa <= last)));
}

static DT_HOT bool dt_host_ok(const struct ofl_dt *dt, uint64_t base,
                              uint32_t len)
{
    struct dt_bounds b;

    dt_bounds_init(dt, &b);
    return dt_host_ok_in(&b, base, len);
}

/* The buffer a reference names (index + 1; the core only ever stores 0 or
 * a valid reference), or NULL for 0. */
static struct ofl_dt_rbuf *dt_rbuf(const struct ofl_dt *dt, uint32_t ref)
{
    return ref == 0 ? NULL : &dt->mem.rbuf[ref - 1];
}

static uint32_t dt_rbuf_ref(const struct ofl_dt *dt, const struct ofl_dt_rbuf *b)
{
    return (uint32_t)(b - dt->mem.rbuf) + 1;
}

/* Takes a buffer entry off the free list; the caller checked that it is
 * not empty (dt->rbuf_free != 0). */
static struct ofl_dt_rbuf *dt_rbuf_alloc(struct ofl_dt *dt)
{
    struct ofl_dt_rbuf *b = &dt->mem.rbuf[dt->rbuf_free - 1];

    dt->rbuf_free = b->next;
    ofl_fill(b, 0, sizeof(*b));
    return b;
}

static void dt_rbuf_release(struct ofl_dt *dt, struct ofl_dt_rbuf *b)
{
    ofl_fill(b, 0, sizeof(*b));
    b->next = dt->rbuf_free;
    dt->rbuf_free = dt_rbuf_ref(dt, b);
}

/* Appends b to the FIFO of conn / listener c. */
static void dt_rbuf_push(struct ofl_dt *dt, struct ofl_dt_conn *c,
                         struct ofl_dt_rbuf *b)
{
    uint32_t ref = dt_rbuf_ref(dt, b);
    struct ofl_dt_rbuf *t = dt_rbuf(dt, c->buf_tail);

    b->next = 0;
    if (t != NULL)
        t->next = ref;
    else
        c->buf_head = ref;
    c->buf_tail = ref;
}

/* Removes the head of c's FIFO (not empty) and frees it. */
static void dt_rbuf_pop(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    struct ofl_dt_rbuf *b = &dt->mem.rbuf[c->buf_head - 1];

    c->buf_head = b->next;
    if (c->buf_head == 0)
        c->buf_tail = 0;
    dt_rbuf_release(dt, b);
}

/* ---- adapter: output table ------------------------------------------------- */

static uint32_t dt_out_free(const struct ofl_dt *dt)
{
    return dt->mem.out_slots - (dt->out_tail - dt->out_head) - dt->out_staged;
}

/*
 * Learns which output slots the host freed: reads the owner bytes of the
 * oldest written slots and advances out_head over the cleared ones, up to
 * the first still full. Each DMA reads cap slots at most, a power of two
 * (it divides the table: the guard below then lets every slot be read):
 * 8 into dt->scan, or as many as fit the part of the output stage that
 * no staged response occupies (out_batch - out_staged slots, meaningless
 * bytes: dt_emit_hot stores a response there only after the dt_reserve
 * that may call this). With a large batch the table is read in a few
 * DMAs instead of one per 8 slots (a fast path: a size build, OFL_FAST_PATH
 * 0, reads 8 at a time; tests/check_fastpath_dt.sh holds the two to the
 * same answers). Bounded by the table size.
 */
static void dt_reclaim(struct ofl_dt *dt)
{
    uint32_t mask = dt->mem.out_slots - 1, guard, i, n, off, cap = 8;
    uint32_t spare = dt->mem.out_batch - dt->out_staged;
    uint8_t *scan = dt->scan;

    if (OFL_FAST_PATH && spare >= 2 * cap) {
        while (cap <= spare / 2) /* at most 13 rounds (2^16 slots) */
            cap *= 2;
        scan = dt->mem.out_stage + (size_t)dt->out_staged * OFL_DT_DESC_SIZE;
    }
    for (guard = 0; guard <= dt->mem.out_slots && dt->out_head != dt->out_tail;
         guard += cap) {
        off = dt->out_head & mask;
        n = dt_min32(dt->out_tail - dt->out_head, cap);
        n = dt_min32(n, dt->mem.out_slots - off);
        if (ofl_port_dma_read(dt->port,
                              dt->mem.out_pa + (uint64_t)off * OFL_DT_DESC_SIZE,
                              scan, (size_t)n * OFL_DT_DESC_SIZE) != OFL_OK)
            return;
        i = 0;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
        /* Four owner bytes per test while all four are clear (a fast
         * path: the loop below then finds the same first full slot). */
        {
            const uint8_t *q = scan,
                          *q4 = scan + (size_t)(n & ~3u) * OFL_DT_DESC_SIZE;

            for (; q != q4 && !((q[0] | q[OFL_DT_DESC_SIZE] |
                                 q[2 * OFL_DT_DESC_SIZE] |
                                 q[3 * OFL_DT_DESC_SIZE]) &
                                OFL_DT_OWNER);
                 q += 4 * OFL_DT_DESC_SIZE)
                ;
            i = (uint32_t)((size_t)(q - scan) / OFL_DT_DESC_SIZE);
        }
#endif
        for (; i < n && !(scan[(size_t)i * OFL_DT_DESC_SIZE] & OFL_DT_OWNER);
             i++)
            ;
        dt->out_head += i;
        if (i < n)
            return;
    }
}

/* True when need more responses fit (reclaiming if they seem not to). */
static bool dt_reserve(struct ofl_dt *dt, uint32_t need)
{
    if (dt_out_free(dt) >= need)
        return true;
    dt_reclaim(dt);
    return dt_out_free(dt) >= need;
}

uint32_t ofl_dt_out_room(struct ofl_dt *dt)
{
    if (dt == NULL)
        return 0;
    dt_reclaim(dt);
    return dt_out_free(dt);
}

enum ofl_err ofl_dt_flush(struct ofl_dt *dt)
{
    uint32_t mask, off, n, done = 0, guard;
    enum ofl_err err = OFL_OK;

    if (dt == NULL)
        return OFL_E_ARG;
    mask = dt->mem.out_slots - 1;
    /* At most two runs: up to the end of the table, then from its start. */
    for (guard = 0; guard < 2 && done < dt->out_staged; guard++) {
        off = dt->out_tail & mask;
        n = dt_min32(dt->out_staged - done, dt->mem.out_slots - off);
        err = ofl_port_dma_write(
            dt->port, dt->mem.out_pa + (uint64_t)off * OFL_DT_DESC_SIZE,
            dt->mem.out_stage + (size_t)done * OFL_DT_DESC_SIZE,
            (size_t)n * OFL_DT_DESC_SIZE);
        if (err != OFL_OK)
            break;
        dt->out_tail += n;
        done += n;
        dt->stats.batches_out++;
    }
    if (done != 0) {
        /* Keep what could not be written at the front of the stage. */
        if (done < dt->out_staged)
            ofl_copy(dt->mem.out_stage,
                     dt->mem.out_stage + (size_t)done * OFL_DT_DESC_SIZE,
                     (size_t)(dt->out_staged - done) * OFL_DT_DESC_SIZE);
        dt->out_staged -= done;
        dt->stats.responses += done;
        if (dt->cfg.irq_response != OFL_DT_IRQ_NONE)
            (void)ofl_port_notify(dt->port, dt->cfg.irq_response);
    }
    /* Overflow danger (seed: "the adapter may raise an interrupt"). */
    if (dt->mem.out_slots - (dt->out_tail - dt->out_head) <= dt->cfg.out_warn)
        dt_reclaim(dt);
    if (dt->mem.out_slots - (dt->out_tail - dt->out_head) <= dt->cfg.out_warn) {
        if (!dt->warned && dt->cfg.irq_overflow != OFL_DT_IRQ_NONE) {
            (void)ofl_port_notify(dt->port, dt->cfg.irq_overflow);
            dt->stats.irq_overflow++;
        }
        dt->warned = 1;
    } else {
        dt->warned = 0;
    }
    return err;
}

/*
 * Flushes the full stage before a response is staged: true when that made
 * room. Only a failing flush leaves the stage full (one that fails between
 * its two runs makes room): the port is broken and the response is lost
 * (counted, *err says why).
 */
static OFL_NOINLINE bool dt_stage_flush(struct ofl_dt *dt, enum ofl_err *err)
{
    *err = ofl_dt_flush(dt);
    if (dt->out_staged != dt->mem.out_batch)
        return true;
    dt->stats.lost++;
    return false;
}

/*
 * Stages one response. The caller reserved room in the table (dt_reserve),
 * so only a full stage needs a flush first (dt_stage_flush). d is not
 * handed on: a path that answers one request after another (the bulk
 * run) inlines this and builds the response in registers.
 */
static DT_HOT enum ofl_err dt_emit_hot(struct ofl_dt *dt,
                                       const struct ofl_dt_desc *d)
{
    enum ofl_err err;

    if (dt->out_staged == dt->mem.out_batch && !dt_stage_flush(dt, &err))
        return err;
    dt_store(d, dt->mem.out_stage + (size_t)dt->out_staged * OFL_DT_DESC_SIZE,
             OFL_DT_OWNER);
    dt->out_staged++;
    return OFL_OK;
}

static enum ofl_err dt_emit(struct ofl_dt *dt, const struct ofl_dt_desc *d)
{
    return dt_emit_hot(dt, d);
}

/*
 * Starts response r: type, status, tag and conn, every other field zero.
 * Callers fill in the rest and hand it to dt_emit: no internal call takes
 * more than six arguments (none on the stack: static frames on every ABI).
 */
static void dt_rsp_init(struct ofl_dt_desc *r, uint8_t type, uint8_t status,
                        uint32_t tag, uint64_t conn)
{
    dt_desc_zero(r);
    r->type = type;
    r->status = status;
    r->tag = tag;
    r->conn = conn;
}

/* Starts the buffer available response (send side) of listed send x. */
static void dt_rsp_sent(const struct ofl_dt *dt, const struct ofl_dt_xfer *x,
                        struct ofl_dt_desc *r)
{
    dt_rsp_init(r, OFL_DT_RSP_BUF_AVAIL, OFL_DT_ST_OK, x->tag,
                dt_conn_id(dt, &dt->mem.conn[x->conn]));
    r->base = x->base;
}

/* Emits a response of type with the common fields. */
static enum ofl_err dt_emit_simple(struct ofl_dt *dt, uint8_t type,
                                   uint8_t status, uint32_t tag, uint64_t conn,
                                   uint32_t aux)
{
    struct ofl_dt_desc d;

    dt_rsp_init(&d, type, status, tag, conn);
    d.aux = aux;
    return dt_emit(dt, &d);
}

/* ---- adapter: init ----------------------------------------------------------- */

static bool dt_pow2_min(uint32_t v, uint32_t min)
{
    return v >= min && (v & (v - 1)) == 0;
}

enum ofl_err ofl_dt_init(struct ofl_dt *dt, const struct ofl_dt_mem *mem,
                         const struct ofl_dt_config *cfg,
                         const struct ofl_port *port, uint64_t now)
{
    uint32_t i;
    uint64_t data;

    if (dt == NULL || mem == NULL || cfg == NULL)
        return OFL_E_ARG;
    if (ofl_port_check(port) != OFL_OK)
        return port == NULL ? OFL_E_ARG : OFL_E_PORT_VERSION;
    if (!dt_pow2_slots(mem->in_slots) || !dt_pow2_slots(mem->out_slots) ||
        ((mem->in_pa | mem->out_pa) & (OFL_DT_DESC_SIZE - 1)) != 0 ||
        mem->in_stage == NULL || mem->out_stage == NULL ||
        mem->in_batch == 0 || mem->out_batch == 0 ||
        mem->in_batch > mem->in_slots || mem->out_batch > mem->out_slots ||
        mem->conn == NULL || mem->conn_cap == 0 || mem->conn_cap > (1u << 24) ||
        mem->conn_data == NULL || !dt_pow2_min(mem->rx_size, 16) ||
        !dt_pow2_min(mem->tx_size, 16) || mem->rx_size > (1u << 30) ||
        mem->tx_size > (1u << 30) || mem->rbuf == NULL ||
        mem->rbuf_cap == 0 || mem->rbuf_cap > (1u << 24) ||
        mem->xfer == NULL || mem->xfer_cap == 0 ||
        mem->xfer_cap > 1024 ||
        (mem->cache_slots != 0 &&
         (mem->cache == NULL || mem->cache_data == NULL ||
          mem->cache_slot_size == 0 || mem->cache_slots > 256)) ||
        mem->ctrl == NULL || mem->ctrl_cap < 64 ||
        mem->host_lo > mem->host_hi ||
        mem->in_pa > OFL_U64_MAX - (uint64_t)mem->in_slots * OFL_DT_DESC_SIZE ||
        mem->out_pa > OFL_U64_MAX - (uint64_t)mem->out_slots * OFL_DT_DESC_SIZE)
        return OFL_E_ARG;
    data = (uint64_t)mem->conn_cap * ((uint64_t)mem->rx_size + mem->tx_size);
    if (data > (uint64_t)OFL_SIZE_MAX ||
        (uint64_t)mem->cache_slots * mem->cache_slot_size > (uint64_t)OFL_SIZE_MAX)
        return OFL_E_ARG;
    if (ofl_dt_config_check(cfg, mem->out_slots) != OFL_OK)
        return OFL_E_ARG;
    if (port->dma_read == NULL || port->dma_write == NULL)
        return OFL_E_PORT_HOOK;
    ofl_fill(dt, 0, sizeof(*dt));
    ofl_copy(&dt->mem, mem, sizeof(*mem));
    ofl_copy(&dt->cfg, cfg, sizeof(*cfg));
    dt->port = port;
    dt->t_report = now;
    ofl_fill(mem->conn, 0, (size_t)mem->conn_cap * sizeof(mem->conn[0]));
    for (i = 0; i < mem->conn_cap; i++)
        mem->conn[i].gen = 1;
    ofl_fill(mem->rbuf, 0, (size_t)mem->rbuf_cap * sizeof(mem->rbuf[0]));
    for (i = 0; i < mem->rbuf_cap; i++)
        mem->rbuf[i].next = (i + 1 < mem->rbuf_cap) ? i + 2 : 0;
    dt->rbuf_free = 1;
    ofl_fill(mem->xfer, 0, (size_t)mem->xfer_cap * sizeof(mem->xfer[0]));
    if (mem->cache_slots != 0)
        ofl_fill(mem->cache, 0, (size_t)mem->cache_slots * sizeof(mem->cache[0]));
    return OFL_OK;
}

/* The notice pattern becomes len bytes at pat. When it changes, every
 * partial match was of the old one: a match of the new one starts in the
 * bytes that follow. Bounded by the connection table. */
static void dt_pattern_set(struct ofl_dt *dt, uint8_t len, const uint8_t *pat)
{
    uint32_t i;
    bool same = len == dt->cfg.cn_pattern_len;

    for (i = 0; same && i < len; i++)
        same = pat[i] == dt->cfg.cn_pattern[i];
    dt->cfg.cn_pattern_len = len;
    ofl_copy(dt->cfg.cn_pattern, pat, OFL_DT_PATTERN_MAX);
    for (i = 0; !same && i < dt->mem.conn_cap; i++)
        dt->mem.conn[i].pat_matched = 0;
}

enum ofl_err ofl_dt_configure(struct ofl_dt *dt,
                              const struct ofl_dt_config *cfg)
{
    if (dt == NULL || cfg == NULL ||
        ofl_dt_config_check(cfg, dt->mem.out_slots) != OFL_OK)
        return OFL_E_ARG;
    dt_pattern_set(dt, cfg->cn_pattern_len, cfg->cn_pattern);
    ofl_copy(&dt->cfg, cfg, sizeof(*cfg));
    return OFL_OK;
}

/* ---- adapter: connection entries ------------------------------------------- */

/*
 * Counters kept exact by every state change (the invariants the functions
 * below rely on): dt->conn_live counts the entries not FREE, dt->connecting
 * those CONNECTING, dt->cn_pending those with cn_pending set, c->xfer_n the
 * listed sends of c. An entry is released only after its notice went out.
 */

/* Takes the lowest free entry, or NULL when the table is full. */
static struct ofl_dt_conn *dt_conn_alloc(struct ofl_dt *dt, uint64_t now)
{
    uint32_t i, gen;
    struct ofl_dt_conn *c;

    if (dt->conn_live >= dt->mem.conn_cap)
        return NULL;
    /* Fewer live entries than slots: one is FREE, at the latest the last. */
    for (i = 0; i + 1 < dt->mem.conn_cap &&
                dt->mem.conn[i].state != OFL_DT_CONN_FREE;
         i++)
        ;
    c = &dt->mem.conn[i];
    gen = c->gen;
    ofl_fill(c, 0, sizeof(*c));
    c->gen = gen;
    ofl_copy(&c->cfg, &dt->cfg.conn, sizeof(c->cfg));
    c->t_state = now;
    c->t_last_tx = now;
    c->proto = 6;
    dt->conn_live++;
    return c;
}

/* Returns an entry (no notice pending) to FREE; its id dies (the
 * generation moves on). */
static void dt_conn_release(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    /* Generations skip 0 (0 names no connection) when they wrap. */
    uint32_t gen = c->gen == OFL_U32_MAX ? 1 : c->gen + 1;
    struct ofl_dt_conn *l = c->origin != 0 ? dt_conn_find(dt, c->origin)
                                           : NULL;

    if (c->state == OFL_DT_CONN_CONNECTING)
        dt->connecting--;
    /* Its place in the backlog of the listener it arrived on (if that
     * listener still lives: a new one under the index has a new id). */
    if (l != NULL && l->accepted != 0)
        l->accepted--;
    ofl_fill(c, 0, sizeof(*c));
    c->gen = gen;
    dt->conn_live--;
}

/* Makes the completion or arrival notice of c (which has none pending:
 * it was CONNECTING or is new) pending (FIG. 10). */
static void dt_cn_pend(struct ofl_dt *dt, struct ofl_dt_conn *c, uint8_t kind,
                       uint8_t status, uint64_t now)
{
    if (dt->cn_pending == 0) {
        dt->cn_t_first = now;
        dt->cn_t_stale = 0;
    }
    dt->cn_pending++;
    c->t_cn = now;
    c->cn_pending = kind;
    c->cn_status = status;
    c->pat_matched = 0;
}

/* ---- adapter: attributes --------------------------------------------------- */

static uint64_t dt_load_val(const uint8_t *v, uint32_t size)
{
    return size == 8 ? ofl_load_be64(v) : ofl_load_be32(v);
}

static void dt_store_val(uint8_t *v, uint32_t size, uint64_t x)
{
    if (size == 8)
        ofl_store_be64(v, x);
    else
        ofl_store_be32(v, (uint32_t)x);
}

/* The integer field of attribute a in obj (struct ofl_dt or ofl_dt_conn as
 * a's scope says): read and written through its own type. */
static uint64_t dt_field_get(const void *obj, const struct dt_attr_def *a)
{
    const void *f = (const uint8_t *)obj + a->off;

    switch (a->width) {
    case 1:
        return *(const uint8_t *)f;
    case 2:
        return *(const uint16_t *)f;
    case 4:
        return *(const uint32_t *)f;
    default:
        return *(const uint64_t *)f;
    }
}

/* Stores v (checked to fit) into the field of a in obj. */
static void dt_field_set(void *obj, const struct dt_attr_def *a, uint64_t v)
{
    void *f = (uint8_t *)obj + a->off;

    switch (a->width) {
    case 1:
        *(uint8_t *)f = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)f = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)f = (uint32_t)v;
        break;
    default:
        *(uint64_t *)f = v;
        break;
    }
}

/* A live listener id, for the GROUP attribute. */
static bool dt_is_listener(const struct ofl_dt *dt, uint64_t id)
{
    const struct ofl_dt_conn *l = dt_conn_find(dt, id);

    return l != NULL && l->state == OFL_DT_CONN_LISTENING;
}

/*
 * Checks one tuple against scope (DT_SC_A, _C or _E): known, allowed, of
 * the right size, and for a set writable with a value in range.
 */
static enum ofl_err dt_attr_check(const struct ofl_dt *dt,
                                  const struct ofl_dt_tuple *t, uint8_t scope)
{
    const struct dt_attr_def *a = dt_attr_find(t->attr);
    uint64_t v;

    if (a == NULL)
        return OFL_E_DT_ATTR_UNKNOWN;
    if (!(a->scope & scope))
        return OFL_E_DT_ATTR_SCOPE;
    if (t->len != a->size)
        return OFL_E_DT_ATTR_VALUE;
    if (scope == DT_SC_E) {
        /* Connect and listen carry sets only. */
        if (!t->set)
            return OFL_E_DT_ATTR_SCOPE;
    } else if (t->set && (a->scope & DT_SC_RO)) {
        return OFL_E_DT_ATTR_READONLY;
    }
    if (!t->set)
        return OFL_OK;
    switch (t->attr) {
    case OFL_DT_ATTR_CN_PATTERN:
        return dt_pattern_ok(t->value + 1, t->value[0]) ? OFL_OK
                                                        : OFL_E_DT_ATTR_VALUE;
    case OFL_DT_ATTR_REMOTE:
        return ofl_load_be16(t->value + 16) != 0 ? OFL_OK : OFL_E_DT_ATTR_VALUE;
    case OFL_DT_ATTR_GROUP:
        v = ofl_load_be64(t->value);
        return (v == 0 || dt_is_listener(dt, v)) ? OFL_OK : OFL_E_DT_ATTR_VALUE;
    case OFL_DT_ATTR_OUT_WARN:
        return ofl_load_be32(t->value) < dt->mem.out_slots ? OFL_OK
                                                           : OFL_E_DT_ATTR_VALUE;
    default:
        break;
    }
    if (a->size == 4) {
        v = ofl_load_be32(t->value);
        if (v < a->min || v > a->max)
            return OFL_E_DT_ATTR_VALUE;
    }
    return OFL_OK;
}

/* Writes the value of adapter attribute a (checked) into out. */
static void dt_adapter_get(const struct ofl_dt *dt, const struct dt_attr_def *a,
                           uint8_t *out)
{
    if (a->id == OFL_DT_ATTR_CN_PATTERN) {
        out[0] = dt->cfg.cn_pattern_len;
        ofl_copy(out + 1, dt->cfg.cn_pattern, OFL_DT_PATTERN_MAX);
        return;
    }
    dt_store_val(out, a->size, dt_field_get(dt, a));
}

/* Applies adapter attribute a from value (checked). */
static void dt_adapter_set(struct ofl_dt *dt, const struct dt_attr_def *a,
                           const uint8_t *value)
{
    if (a->id == OFL_DT_ATTR_CN_PATTERN) {
        dt_pattern_set(dt, value[0], value + 1);
        return;
    }
    dt_field_set(dt, a, dt_load_val(value, a->size));
}

/* Writes the value of connection attribute a (checked) into out. */
static void dt_conn_get(const struct ofl_dt_conn *c,
                        const struct dt_attr_def *a, uint8_t *out)
{
    if (a->id == OFL_DT_ATTR_REMOTE) {
        ofl_copy(out, c->raddr, 16);
        ofl_store_be16(out + 16, c->rport);
        return;
    }
    dt_store_val(out, a->size, dt_field_get(c, a));
}

/* Applies a connection or endpoint attribute a (checked) to c. */
static void dt_conn_set(struct ofl_dt_conn *c, const struct dt_attr_def *a,
                        const uint8_t *value)
{
    if (a->id == OFL_DT_ATTR_REMOTE) {
        ofl_copy(c->raddr, value, 16);
        c->rport = ofl_load_be16(value + 16);
        return;
    }
    dt_field_set(c, a, dt_load_val(value, a->size));
}

/* ---- adapter: send cache (the modify bit) --------------------------------- */

static uint8_t *dt_cache_data(const struct ofl_dt *dt, uint32_t i)
{
    return dt->mem.cache_data + (size_t)i * dt->mem.cache_slot_size;
}

/* Where host address base (inside the copy slot i holds) lies in it. */
static DT_HOT const uint8_t *dt_cache_src(const struct ofl_dt *dt, uint32_t i,
                                          uint64_t base)
{
    return dt_cache_data(dt, i) + (base - dt->mem.cache[i].base);
}

/* Drops every cached copy overlapping [base, base + len). Compares last
 * bytes: a host range may end at 2^64, where base + len is 0. Out of line:
 * the input loop calls it for a buffer send with the modify bit, and its
 * frame stays small. */
static OFL_NOINLINE void dt_cache_invalidate(struct ofl_dt *dt, uint64_t base,
                                             uint32_t len)
{
    uint32_t i;
    uint64_t last = base + ((uint64_t)len - 1);
    struct ofl_dt_cache *s;

    if (len == 0)
        return;
    for (i = 0; i < dt->mem.cache_slots; i++) {
        s = &dt->mem.cache[i];
        if (s->len != 0 && base <= s->base + ((uint64_t)s->len - 1) &&
            s->base <= last)
            s->len = 0;
    }
}

/* Does slot s hold a copy that covers [base, base + len)? */
static DT_HOT bool dt_cache_covers(const struct ofl_dt_cache *s,
                                   uint64_t base, uint32_t len)
{
    return s->len != 0 && base >= s->base && base - s->base <= s->len &&
           len <= s->len - (base - s->base);
}

/* The slot whose copy covers [base, base + len), or -1. */
static int32_t dt_cache_lookup(const struct ofl_dt *dt, uint64_t base,
                               uint32_t len)
{
    uint32_t i;

    for (i = 0; i < dt->mem.cache_slots; i++)
        if (dt_cache_covers(&dt->mem.cache[i], base, len))
            return (int32_t)i;
    return -1;
}

/*
 * dt_cache_lookup, trying slot hint (any number) first: the same answer
 * for len > 0, as copies never overlap (dt_cache_store drops every copy
 * the new one overlaps), so at most one slot covers a range with a byte
 * in it. A run of sends from one buffer finds its slot at once.
 */
static DT_HOT int32_t dt_cache_lookup_hint(const struct ofl_dt *dt,
                                           uint32_t hint, uint64_t base,
                                           uint32_t len)
{
    if (hint < dt->mem.cache_slots &&
        dt_cache_covers(&dt->mem.cache[hint], base, len))
        return (int32_t)hint;
    return dt_cache_lookup(dt, base, len);
}

/* Keeps a copy of [base, base + len) read from ring (wrapping at size). */
static void dt_cache_store(struct ofl_dt *dt, uint64_t base, uint32_t len,
                           const uint8_t *ring, uint32_t size, uint32_t pos)
{
    uint32_t i, victim = 0, first;

    if (dt->mem.cache_slots == 0 || len > dt->mem.cache_slot_size)
        return;
    dt_cache_invalidate(dt, base, len);
    for (i = 0; i < dt->mem.cache_slots; i++) {
        if (dt->mem.cache[i].len == 0) {
            victim = i;
            break;
        }
        if (dt->mem.cache[i].stamp < dt->mem.cache[victim].stamp)
            victim = i;
    }
    pos &= size - 1;
    first = dt_min32(len, size - pos);
    ofl_copy(dt_cache_data(dt, victim), ring + pos, first);
    ofl_copy(dt_cache_data(dt, victim) + first, ring, len - first);
    dt->mem.cache[victim].base = base;
    dt->mem.cache[victim].len = len;
    dt->mem.cache[victim].stamp = ++dt->cache_stamp;
}

/* ---- adapter: rings in adapter memory -------------------------------------- */

/*
 * ofl_copy, with a copy of 16 to 32 bytes (a small send from the send
 * cache) done as two pairs of words, the second pair ending at the last
 * byte (they overlap when n < 32): no loop. Where ofl_word does not exist,
 * and in a size build (OFL_FAST_PATH 0), it is ofl_copy. d and s MUST NOT
 * overlap.
 */
static DT_HOT void dt_copy(uint8_t *d, const uint8_t *s, uint32_t n)
{
#if defined(OFL_WORD_MOVES) && defined(__GNUC__) && OFL_FAST_PATH
    if (n >= 16 && n <= 32) {
        ofl_word a = ((const ofl_word *)s)[0], b = ((const ofl_word *)s)[1];
        ofl_word y = *(const ofl_word *)(s + n - 16);
        ofl_word z = *(const ofl_word *)(s + n - 8);

        ((ofl_word *)d)[0] = a;
        ((ofl_word *)d)[1] = b;
        *(ofl_word *)(d + n - 16) = y;
        *(ofl_word *)(d + n - 8) = z;
        return;
    }
#endif
    ofl_copy(d, s, n);
}

/* Copies len bytes into ring (size a power of two) at counter pos. */
static DT_HOT void dt_ring_put(uint8_t *ring, uint32_t size, uint32_t pos,
                               const uint8_t *src, uint32_t len)
{
    uint32_t off = pos & (size - 1), first = dt_min32(len, size - off);

    dt_copy(ring + off, src, first);
    if (first < len)
        dt_copy(ring, src + first, len - first);
}

/* DMA-reads host [pa, pa + len) into ring at counter pos. */
static enum ofl_err dt_ring_dma_in(const struct ofl_dt *dt, uint8_t *ring,
                                   uint32_t size, uint32_t pos, uint64_t pa,
                                   uint32_t len)
{
    uint32_t off = pos & (size - 1), first = dt_min32(len, size - off);
    enum ofl_err err = ofl_port_dma_read(dt->port, pa, ring + off, first);

    if (err == OFL_OK && first < len)
        err = ofl_port_dma_read(dt->port, pa + first, ring, len - first);
    return err;
}

/* DMA-writes len bytes of ring at counter pos to host pa. */
static enum ofl_err dt_ring_dma_out(const struct ofl_dt *dt,
                                    const uint8_t *ring, uint32_t size,
                                    uint32_t pos, uint64_t pa, uint32_t len)
{
    uint32_t off = pos & (size - 1), first = dt_min32(len, size - off);
    enum ofl_err err = ofl_port_dma_write(dt->port, pa, ring + off, first);

    if (err == OFL_OK && first < len)
        err = ofl_port_dma_write(dt->port, pa + first, ring, len - first);
    return err;
}

/* Copies len bytes from ring src (counter spos) into ring dst (dpos), both
 * of size bytes. */
static void dt_ring_copy(uint8_t *dst, uint32_t dpos, const uint8_t *src,
                         uint32_t spos, uint32_t size, uint32_t len)
{
    uint32_t so, dof, n;

    /* Each step ends at a wrap of one ring: at most three steps. */
    while (len != 0) {
        so = spos & (size - 1);
        dof = dpos & (size - 1);
        n = dt_min32(len, dt_min32(size - so, size - dof));
        ofl_copy(dst + dof, src + so, n);
        spos += n;
        dpos += n;
        len -= n;
    }
}

/* ---- adapter: requests ------------------------------------------------------- */

/* What a request handler tells the input loop. */
#define DT_DONE 1 /* consumed */
#define DT_WAIT 0 /* no room now: leave it in the table */

/* Status a refused request's response carries. */
static uint8_t dt_status_of(enum ofl_err e)
{
    switch (e) {
    case OFL_E_DT_CONN_UNKNOWN:
        return OFL_DT_ST_BAD_CONN;
    case OFL_E_DT_CONN_STATE:
        return OFL_DT_ST_CONN_STATE;
    case OFL_E_DT_TUPLE_TRUNCATED:
    case OFL_E_DT_TUPLE_COUNT:
    case OFL_E_DT_ATTR_UNKNOWN:
    case OFL_E_DT_ATTR_VALUE:
    case OFL_E_DT_ATTR_READONLY:
    case OFL_E_DT_ATTR_SCOPE:
        return OFL_DT_ST_BAD_TUPLE;
    case OFL_E_DT_CTRL_SIZE:
    case OFL_E_DT_TOO_LARGE:
        return OFL_DT_ST_TOO_LARGE;
    case OFL_E_DT_BUF_RANGE:
        return OFL_DT_ST_BAD_RANGE;
    case OFL_E_DT_NO_CONN:
        return OFL_DT_ST_NO_RESOURCE;
    case OFL_E_DT_NO_BUFFER:
        return OFL_DT_ST_NO_BUFFER;
    case OFL_E_DT_NOT_FOUND:
        return OFL_DT_ST_NOT_FOUND;
    case OFL_E_DT_BUSY:
        return OFL_DT_ST_BUSY;
    case OFL_E_PORT_DMA:
    case OFL_E_PORT_HOOK:
    case OFL_E_DMA_RANGE:
        return OFL_DT_ST_DMA;
    default:
        return OFL_DT_ST_BAD_DESC;
    }
}

/*
 * Answers request d with a refusal: its response type, status from err,
 * the request's tag and (where the response type has them) its buffer
 * and connection. Returns DT_DONE, or DT_WAIT (nothing done) when the
 * output table has no room for it.
 */
static OFL_NOINLINE int dt_refuse(struct ofl_dt *dt,
                                  const struct ofl_dt_desc *d, enum ofl_err err)
{
    struct ofl_dt_desc r;

    if (!dt_reserve(dt, 1))
        return DT_WAIT;
    dt->stats.bad_requests++;
    dt_desc_zero(&r);
    r.type = ofl_dt_response_to(d->type);
    r.status = dt_status_of(err);
    r.tag = d->tag;
    switch (d->type) {
    case OFL_DT_REQ_BUF_SEND:
        r.base = d->base;
        r.len = d->len;
        r.conn = d->conn;
        r.number = 1;
        break;
    case OFL_DT_REQ_BUF_AVAIL:
        r.base = d->base;
        r.conn = d->conn;
        r.flags = (uint8_t)(OFL_DT_F_FINAL | (d->flags & OFL_DT_F_PEEK));
        break;
    case OFL_DT_REQ_CONN_ATTR:
    case OFL_DT_REQ_ADAPTER_ATTR:
        r.base = d->base;
        r.len = d->len;
        r.number = d->number;
        r.conn = d->conn;
        break;
    case OFL_DT_REQ_TERMINATE:
        r.conn = d->conn;
        break;
    case OFL_DT_REQ_CANCEL:
        r.conn = d->conn;
        r.aux = d->aux;
        break;
    default:
        break;
    }
    (void)dt_emit(dt, &r);
    return DT_DONE;
}

/* Lists a buffer send of connection entry c, index ci, that passed every
 * check (the list has room); the caller sets the tag and the time of the
 * entry returned (six arguments at most: none on the stack; a caller that
 * holds the entry passes it, rather than have it worked out again). */
static DT_HOT struct ofl_dt_xfer *dt_xfer_add(struct ofl_dt *dt,
                                              struct ofl_dt_conn *c,
                                              uint32_t ci, uint64_t base,
                                              uint32_t len, uint8_t flags)
{
    struct ofl_dt_xfer *x = &dt->mem.xfer[dt->xfer_count++];
    uint32_t seq = dt->xfer_seq++;

    x->base = base;
    x->len = len;
    x->conn = ci;
    x->seq = seq;
    x->flags = flags;
    x->cancel = 0;
    if (c->xfer_n++ == 0)
        c->xfer_first = seq;
    dt->bt_bytes_listed += len;
    if (flags & OFL_DT_F_ASAP)
        dt->bt_asap = 1;
    /* The host changed the buffer: no copy of it may be reused. */
    if (flags & OFL_DT_F_MODIFY)
        dt_cache_invalidate(dt, base, len);
    return x;
}

/* A buffer send (FIG. 11, 16): listed in the bulk transfer list. */
static int dt_req_send(struct ofl_dt *dt, const struct ofl_dt_desc *d,
                       uint64_t now)
{
    struct ofl_dt_conn *c;
    struct ofl_dt_xfer *x;
    enum ofl_err err = OFL_OK;

    if (dt->xfer_count == dt->mem.xfer_cap)
        return DT_WAIT; /* the list drains in ofl_dt_service */
    c = dt_conn_find(dt, d->conn);
    if (!dt_host_ok(dt, d->base, d->len))
        err = OFL_E_DT_BUF_RANGE;
    else if (c == NULL)
        err = OFL_E_DT_CONN_UNKNOWN;
    else if (c->state != OFL_DT_CONN_ESTABLISHED &&
             c->state != OFL_DT_CONN_LISTENING)
        err = OFL_E_DT_CONN_STATE;
    else if (d->len > dt->mem.tx_size)
        err = OFL_E_DT_TOO_LARGE; /* could never fit a transmit ring */
    if (err != OFL_OK)
        return dt_refuse(dt, d, err);
    x = dt_xfer_add(dt, c, dt_conn_index(dt, c), d->base, d->len, d->flags);
    x->tag = d->tag;
    x->t_listed = now;
    return DT_DONE;
}

/* Byte 0 to 3 of a buffer send as ofl_dt_process's fast path takes it:
 * owner bit set, the type, reserved bits clear, no flag but the two a send
 * allows (masked off before the compare), status and number zero. */
#define DT_SEND_W0 \
    ((uint32_t)(OFL_DT_OWNER | (OFL_DT_REQ_BUF_SEND << OFL_DT_TYPE_SHIFT)) << 24)
#define DT_SEND_FLAGS_W0 \
    ((uint32_t)(OFL_DT_F_ASAP | OFL_DT_F_MODIFY) << 16)

/*
 * What the last sends of an input run proved (a fast path: a size build,
 * OFL_FAST_PATH 0, checks every send in full; tests/check_fastpath_dt.sh
 * holds the two to the same answers):
 * - id, c: the connection the last send was listed on (c NULL when
 *   none: a hostile id may have any value, 0 too). While the run lists
 *   sends and nothing else, no entry changes state or generation (only
 *   the requests dt_input_slow handles, and the firmware's events between
 *   runs, do), so a send naming the same id passes dt_conn_find and the
 *   state test as the last one did: a run of sends to one connection
 *   looks its entry up once.
 * - base, len: a range that passed the range checks (len 0 when none: a
 *   send of length 0 is refused before the memo is looked at). They
 *   depend on the range and on the adapter's memory (dt->mem, the
 *   bounds) alone, which nothing in a run changes: a run of sends of one
 *   buffer (what the send cache serves) checks its range once.
 * dt_input_run forgets both after any request dt_input_slow handled.
 */
struct dt_conn_memo {
    uint64_t id, base;
    struct ofl_dt_conn *c;
    uint32_t len;
};

/*
 * The exchange's hot path: lists raw (an input slot) when it is a buffer
 * send that dt_decode accepts and dt_req_send lists as it stands, checked
 * straight from its bytes into the list entry (no struct ofl_dt_desc, no
 * second copy). These are the same conditions, taken together: the
 * send's rule in dt_rules (flags, the zero and need fields; a connection
 * id of 0 finds no entry), a range that does not wrap, room in the list,
 * dt_host_ok, a live connection in a state that sends, a length a ring
 * holds. Returns false with nothing changed for anything else (but *m,
 * which it keeps: struct dt_conn_memo): the caller then decodes it and
 * hands it to dt_req_send or dt_request, which check in their order and
 * answer as they always did.
 */
static DT_HOT bool dt_send_fast(struct ofl_dt *dt, const struct dt_bounds *b,
                                const uint8_t *raw, uint64_t now,
                                struct dt_conn_memo *m)
{
    uint32_t w0 = ofl_load_be32_word(raw);
    uint32_t len = ofl_load_be32_word(raw + DT_OFF_LEN);
    uint64_t base = ofl_load_be64_word(raw + DT_OFF_BASE);
    uint64_t id = ofl_load_be64_word(raw + DT_OFF_CONN);
    struct ofl_dt_conn *c;
    struct ofl_dt_xfer *x;

    if ((w0 & ~DT_SEND_FLAGS_W0) != DT_SEND_W0 ||
        ofl_load_be32_word(raw + DT_OFF_AUX) != 0 || len == 0 ||
        dt->xfer_count == dt->mem.xfer_cap)
        return false;
    if (!OFL_FAST_PATH || base != m->base || len != m->len) {
        if (base > OFL_U64_MAX - ((uint64_t)len - 1) ||
            len > dt->mem.tx_size || !dt_host_ok_in(b, base, len))
            return false;
        m->base = base;
        m->len = len;
    }
    if (OFL_FAST_PATH && m->c != NULL && id == m->id) {
        c = m->c; /* found, and in a state that sends (above) */
    } else {
        c = dt_conn_find(dt, id);
        if (c == NULL || (c->state != OFL_DT_CONN_ESTABLISHED &&
                          c->state != OFL_DT_CONN_LISTENING))
            return false;
        m->id = id;
        m->c = c;
    }
    /* The entry index: dt_conn_find took entry (uint32_t)id - 1. */
    x = dt_xfer_add(dt, c, (uint32_t)id - 1, base, len, (uint8_t)(w0 >> 16));
    x->tag = ofl_load_be32_word(raw + DT_OFF_TAG);
    x->t_listed = now;
    return true;
}

#if OFL_FAST_PATH && defined(__OPTIMIZE__)
/*
 * The input run's lane (a fast path, optimised builds only: a size build,
 * OFL_FAST_PATH 0, and -O0 list every send through dt_send_fast or the
 * general path; tests/check_fastpath_dt.sh holds the two to the same
 * answers). dt_input_run calls it after dt_send_fast listed a send, when
 * the next slot names the same buffer: it lists raw[0 .. n), in order, for
 * as long as each is a buffer send that dt_send_fast would list through
 * both memos (*m: the same connection id and the same range, a range and
 * connection proved a slot ago and unchanged since, as nothing but
 * listing happens in between), with no flag (ASAP and MODIFY take the
 * per-send path: the one sets a flag of the list, the other calls out),
 * and while the list has room. It clears the owner bit of each
 * (consumed) and returns how many it listed, stopping at the first that
 * does not qualify (dt_input_run then takes that one in full). The entries
 * and counters end as dt_xfer_add leaves them one by one: the connection's
 * xfer_n is not 0 (the memo's send was listed on it: xfer_first stays),
 * the list's length, the arrival number and the bytes listed are kept in
 * locals and written once. A slot's words are compared as they lie in it
 * (with the memo's values in its byte order): no byte swap but the tag's.
 */
static OFL_NOINLINE uint32_t dt_send_lane(struct ofl_dt *dt, uint8_t *raw,
                                          uint32_t n, uint64_t now,
                                          const struct dt_conn_memo *m)
{
    struct ofl_dt_xfer *x = &dt->mem.xfer[dt->xfer_count];
    const uint64_t base = m->base, id = m->id;
    const uint32_t len = m->len, ci = (uint32_t)id - 1;
    const uint32_t seq = dt->xfer_seq;
    uint32_t k;

    /* The words each send carries, as they lie in the slot (where
     * ofl_word32 exists: no byte swap per slot), compared whole. */
#if defined(OFL_LE32)
    const ofl_word32 w_send = OFL_BE32(DT_SEND_W0);
    const ofl_word32 w_len = OFL_BE32(len);
    const ofl_word w_base = OFL_BE64(base), w_id = OFL_BE64(id);
#define DT_SLOT32(p) (*(const ofl_word32 *)(p))
#define DT_SLOT64(p) (*(const ofl_word *)(p))
#else
    const uint32_t w_send = DT_SEND_W0, w_len = len;
    const uint64_t w_base = base, w_id = id;
#define DT_SLOT32(p) ofl_load_be32(p)
#define DT_SLOT64(p) ofl_load_be64(p)
#endif

    n = dt_min32(n, dt->mem.xfer_cap - dt->xfer_count);
    for (k = 0; k < n; k++, raw += OFL_DT_DESC_SIZE, x++) {
        if (DT_SLOT32(raw) != w_send ||
            DT_SLOT64(raw + DT_OFF_BASE) != w_base ||
            DT_SLOT32(raw + DT_OFF_LEN) != w_len ||
            DT_SLOT64(raw + DT_OFF_CONN) != w_id ||
            DT_SLOT32(raw + DT_OFF_AUX) != 0)
            break;
        x->base = base;
        x->t_listed = now;
        x->len = len;
        x->tag = ofl_load_be32_word(raw + DT_OFF_TAG);
        x->conn = ci;
        x->seq = seq + k;
        x->flags = 0;
        x->cancel = 0;
        /* consumed: byte 0 was the owner bit and the type alone */
        raw[0] = (uint8_t)(OFL_DT_REQ_BUF_SEND << OFL_DT_TYPE_SHIFT);
    }
#undef DT_SLOT32
#undef DT_SLOT64
    if (k != 0) {
        dt->xfer_count += k;
        dt->xfer_seq = seq + k;
        m->c->xfer_n += k;
        dt->bt_bytes_listed += (uint64_t)len * k;
    }
    return k;
}
#endif

/* A buffer available: an own, shared, bulk or peek receive buffer. */
static OFL_NOINLINE int dt_req_avail(struct ofl_dt *dt, const struct ofl_dt_desc *d,
                        uint64_t now)
{
    struct ofl_dt_conn *c = NULL;
    struct ofl_dt_rbuf *b;
    enum ofl_err err = OFL_OK;
    uint8_t kind = DT_RB_BULK;
    uint32_t interval;

    if (!dt_host_ok(dt, d->base, d->len)) {
        err = OFL_E_DT_BUF_RANGE;
    } else if (d->conn != 0) {
        c = dt_conn_find(dt, d->conn);
        if (c == NULL)
            err = OFL_E_DT_CONN_UNKNOWN;
        else if (c->state == OFL_DT_CONN_LISTENING)
            kind = DT_RB_SHARED;
        else if (c->state == OFL_DT_CONN_ESTABLISHED)
            kind = (d->flags & OFL_DT_F_PEEK) ? DT_RB_PEEK : DT_RB_OWN;
        else
            err = OFL_E_DT_CONN_STATE;
    }
    if (err == OFL_OK && kind != DT_RB_OWN && kind != DT_RB_PEEK &&
        (d->aux != 0 || (d->flags & OFL_DT_F_PEEK)))
        err = OFL_E_DT_BAD_FIELD; /* skip and peek need a connection */
    if (err == OFL_OK && kind == DT_RB_PEEK && c->peek != 0)
        err = OFL_E_DT_BUSY;
    if (err == OFL_OK && dt->rbuf_free == 0)
        err = OFL_E_DT_NO_BUFFER;
    if (err != OFL_OK)
        return dt_refuse(dt, d, err);
    b = dt_rbuf_alloc(dt);
    b->base = d->base;
    b->len = d->len;
    b->tag = d->tag;
    b->skip = d->aux;
    b->kind = kind;
    if (kind == DT_RB_BULK) {
        b->next = dt->bulk_head;
        dt->bulk_head = dt_rbuf_ref(dt, b);
        return DT_DONE;
    }
    b->owner = dt_conn_index(dt, c);
    if (kind == DT_RB_PEEK) {
        c->peek = dt_rbuf_ref(dt, b);
        return DT_DONE;
    }
    dt_rbuf_push(dt, c, b);
    if (kind == DT_RB_OWN) {
        /* The host's posting rate drives the adaptive delay. */
        if (c->t_last_post != 0 || c->post_ewma != 0) {
            interval = (now - c->t_last_post > 0xFFFFFFFFu)
                           ? 0xFFFFFFFFu
                           : (uint32_t)(now - c->t_last_post);
            if (c->post_ewma == 0)
                c->post_ewma = interval == 0 ? 1 : interval;
            else
                c->post_ewma = c->post_ewma - (c->post_ewma >> 3) +
                               (interval >> 3);
        }
        c->t_last_post = now;
    }
    return DT_DONE;
}

/* Reads and checks a request's control buffer into the scratch. */
static enum ofl_err dt_ctrl_read(struct ofl_dt *dt, const struct ofl_dt_desc *d)
{
    enum ofl_err err;

    if (d->len > dt->mem.ctrl_cap)
        return OFL_E_DT_CTRL_SIZE;
    if (!dt_host_ok(dt, d->base, d->len))
        return OFL_E_DT_BUF_RANGE;
    err = ofl_port_dma_read(dt->port, d->base, dt->mem.ctrl, d->len);
    if (err != OFL_OK)
        return err;
    return ofl_dt_tuples_check(dt->mem.ctrl, d->len, d->number);
}

/*
 * The tuple at *off of the control scratch, advancing *off past it. The
 * scratch passed dt_ctrl_read (exactly d->number tuples filling d->len
 * bytes, each inside) and only the adapter writes it, so no bound is
 * checked again here.
 */
static void dt_ctrl_tuple(const struct ofl_dt *dt, size_t *off,
                          struct ofl_dt_tuple *t)
{
    const uint8_t *p = dt->mem.ctrl + *off;
    uint16_t h = ofl_load_be16(p);

    t->attr = (uint16_t)(h & OFL_DT_ATTR_ID_MASK);
    t->set = (h & OFL_DT_ATTR_SET) != 0;
    t->len = ofl_load_be32(p + 2);
    t->value_off = (uint32_t)(*off + OFL_DT_TUPLE_HDR);
    t->value = p + OFL_DT_TUPLE_HDR;
    *off += OFL_DT_TUPLE_HDR + (size_t)t->len;
}

/*
 * Checks every tuple of a connect (listen = false) or listen request in
 * the scratch. *remotes gets the number of REMOTE tuples.
 */
static enum ofl_err dt_endpoint_check(const struct ofl_dt *dt,
                                      const struct ofl_dt_desc *d, bool listen,
                                      uint32_t *remotes)
{
    struct ofl_dt_tuple t;
    size_t off = 0;
    uint32_t i, nremote = 0;
    bool lport = false;
    enum ofl_err err;

    for (i = 0; i < d->number; i++) {
        dt_ctrl_tuple(dt, &off, &t);
        err = dt_attr_check(dt, &t, DT_SC_E);
        if (err != OFL_OK)
            return err;
        if (t.attr == OFL_DT_ATTR_REMOTE) {
            if (listen)
                return OFL_E_DT_ATTR_SCOPE;
            nremote++;
        } else if (t.attr == OFL_DT_ATTR_BACKLOG && !listen) {
            return OFL_E_DT_ATTR_SCOPE;
        } else if (t.attr == OFL_DT_ATTR_LOCAL_PORT) {
            /* The last one is applied (dt_endpoint_apply). */
            lport = ofl_load_be32(t.value) != 0;
        }
    }
    if (listen ? !lport : nremote == 0)
        return OFL_E_DT_ATTR_SCOPE; /* what to connect to / listen on */
    *remotes = nremote;
    return OFL_OK;
}

/* Applies the request's tuples to c; for a connect, only the remote-th
 * REMOTE tuple. */
static void dt_endpoint_apply(struct ofl_dt *dt, const struct ofl_dt_desc *d,
                              struct ofl_dt_conn *c, uint32_t remote)
{
    struct ofl_dt_tuple t;
    size_t off = 0;
    uint32_t i, k = 0;

    for (i = 0; i < d->number; i++) {
        dt_ctrl_tuple(dt, &off, &t);
        if (t.attr == OFL_DT_ATTR_REMOTE && k++ != remote)
            continue;
        dt_conn_set(c, dt_attr_find(t.attr), t.value); /* known: checked */
    }
}

/* A connect request, bulk when it carries several REMOTE tuples (FIG. 8,
 * 9): one CONNECTING entry per REMOTE, all or none. */
static OFL_NOINLINE int dt_req_connect(struct ofl_dt *dt, const struct ofl_dt_desc *d,
                          uint64_t now)
{
    uint32_t remotes = 0, i;
    struct ofl_dt_conn *c;
    enum ofl_err err;

    if (!dt_reserve(dt, 1))
        return DT_WAIT; /* room for a refusal */
    err = dt_ctrl_read(dt, d);
    if (err == OFL_OK)
        err = dt_endpoint_check(dt, d, false, &remotes);
    if (err == OFL_OK && remotes > dt->mem.conn_cap - dt->conn_live)
        err = OFL_E_DT_NO_CONN;
    if (err != OFL_OK)
        return dt_refuse(dt, d, err);
    for (i = 0; i < remotes; i++) {
        c = dt_conn_alloc(dt, now); /* not NULL: counted free above */
        dt_endpoint_apply(dt, d, c, i);
        c->state = OFL_DT_CONN_CONNECTING;
        c->actions = OFL_DT_ACT_CONNECT;
        c->tag = d->tag;
        c->target = i;
        dt->connecting++;
    }
    return DT_DONE;
}

/* A listen request: a LISTEN_WAIT entry with OFL_DT_ACT_LISTEN for the
 * firmware, answered when the firmware has tried (ofl_dt_listen_result;
 * seed 003: the listen response "indicates the success/failure of a
 * submitted listen request"). A request refused here is answered at once. */
static OFL_NOINLINE int dt_req_listen(struct ofl_dt *dt, const struct ofl_dt_desc *d,
                         uint64_t now)
{
    uint32_t remotes = 0, i;
    struct ofl_dt_conn *c, *o;
    enum ofl_err err;

    if (!dt_reserve(dt, 1))
        return DT_WAIT;
    err = dt_ctrl_read(dt, d);
    if (err == OFL_OK)
        err = dt_endpoint_check(dt, d, true, &remotes);
    c = err == OFL_OK ? dt_conn_alloc(dt, now) : NULL;
    if (err == OFL_OK && c == NULL)
        err = OFL_E_DT_NO_CONN;
    if (err != OFL_OK)
        return dt_refuse(dt, d, err);
    dt_endpoint_apply(dt, d, c, 0);
    /* One listener per protocol and port, a closing one the firmware
     * still listens for (DRAINING or UNLISTEN) included. */
    for (i = 0; i < dt->mem.conn_cap; i++) {
        o = &dt->mem.conn[i];
        if (o != c &&
            (o->state == OFL_DT_CONN_LISTENING ||
             o->state == OFL_DT_CONN_LISTEN_WAIT ||
             o->state == OFL_DT_CONN_UNLISTEN ||
             (o->state == OFL_DT_CONN_DRAINING && o->fw_listen)) &&
            o->proto == c->proto && o->lport == c->lport) {
            dt_conn_release(dt, c);
            return dt_refuse(dt, d, OFL_E_DT_CONN_STATE); /* room reserved */
        }
    }
    c->state = OFL_DT_CONN_LISTEN_WAIT;
    c->actions = OFL_DT_ACT_LISTEN;
    c->tag = d->tag;
    return DT_DONE;
}

static void dt_xfer_copy(struct ofl_dt_xfer *d, const struct ofl_dt_xfer *s)
{
    d->base = s->base;
    d->t_listed = s->t_listed;
    d->len = s->len;
    d->tag = s->tag;
    d->conn = s->conn;
    d->seq = s->seq;
    d->flags = s->flags;
    d->cancel = s->cancel;
}

/* Recounts per-connection list state and the criteria inputs (after a run
 * removed entries; the list keeps each connection's requests in arrival
 * order, so the first one seen is its oldest). */
static void dt_xfer_recount(struct ofl_dt *dt)
{
    uint32_t i;
    struct ofl_dt_xfer *x;
    struct ofl_dt_conn *c;

    for (i = 0; i < dt->xfer_count; i++)
        dt->mem.conn[dt->mem.xfer[i].conn].xfer_n = 0;
    dt->bt_bytes_listed = 0;
    dt->bt_asap = 0;
    for (i = 0; i < dt->xfer_count; i++) {
        x = &dt->mem.xfer[i];
        c = &dt->mem.conn[x->conn];
        if (c->xfer_n++ == 0)
            c->xfer_first = x->seq;
        dt->bt_bytes_listed += x->len;
        if (x->flags & OFL_DT_F_ASAP)
            dt->bt_asap = 1;
    }
}

/*
 * Answers and removes, while the output has room, the listed sends of
 * entry index idx (or, when by_mark, those the running cancellation
 * matched), each with status (CANCELLED for a matched one, which also
 * counts off the cancellation). The others keep their order. Returns true
 * when none of them is left.
 */
static bool dt_xfer_drop(struct ofl_dt *dt, uint32_t idx, bool by_mark,
                         uint8_t status)
{
    uint32_t i, k = 0;
    struct ofl_dt_xfer *x;
    struct ofl_dt_desc r;
    bool room = true, left = false;

    for (i = 0; i < dt->xfer_count; i++) {
        x = &dt->mem.xfer[i];
        if (by_mark ? x->cancel != 0 : x->conn == idx) {
            if (room)
                room = dt_reserve(dt, 1);
            if (room) {
                dt_rsp_sent(dt, x, &r);
                r.status = x->cancel ? OFL_DT_ST_CANCELLED : status;
                r.number = 1;
                r.len = x->len;
                (void)dt_emit(dt, &r);
                dt->mem.conn[x->conn].xfer_n--;
                dt->bt_bytes_listed -= x->len;
                if (x->cancel)
                    dt->cancel_left--;
                continue;
            }
            left = true;
        }
        if (k != i)
            dt_xfer_copy(&dt->mem.xfer[k], x);
        k++;
    }
    dt->xfer_count = k;
    /* The oldest listed request of a connection, the ASAP flag and the
     * byte count may have left with the dropped ones. */
    dt_xfer_recount(dt);
    return !left;
}

/* Returns, while the output has room, the buffers in c's FIFO with status
 * (FINAL, length 0 from its fill offset). True when none is left. */
/* Hands receive buffer b back to the host unused from here on: FINAL,
 * with status and what it holds (aux = fill), naming conn. The caller
 * reserved the slot and takes b off its list. */
static void dt_rbuf_return(struct ofl_dt *dt, const struct ofl_dt_rbuf *b,
                           uint8_t status, uint64_t conn)
{
    struct ofl_dt_desc r;

    dt_rsp_init(&r, OFL_DT_RSP_BUF_RECV, status, b->tag, conn);
    r.flags = OFL_DT_F_FINAL;
    r.base = b->base;
    r.aux = b->fill;
    (void)dt_emit(dt, &r);
}

static bool dt_rbuf_flush(struct ofl_dt *dt, struct ofl_dt_conn *c,
                          uint8_t status)
{
    uint32_t guard;

    for (guard = 0; guard < dt->mem.rbuf_cap && c->buf_head != 0; guard++) {
        if (!dt_reserve(dt, 1))
            return false;
        dt_rbuf_return(dt, dt_rbuf(dt, c->buf_head), status,
                       dt_conn_id(dt, c));
        dt_rbuf_pop(dt, c);
    }
    return true;
}

/* What a DRAINING entry still owes the host (struct ofl_dt_conn.drain). */
#define DT_DRAIN_TERM 1    /* returns FLUSHED, then the termination response */
#define DT_DRAIN_CANCEL 2  /* a listener a cancellation matched */
#define DT_DRAIN_CONNECT 3 /* a connect a cancellation matched */
#define DT_DRAIN_LISTEN 4  /* a listen a cancellation matched before the
                              firmware answered (its listen response) */

static void dt_drain_run(struct ofl_dt *dt);

/*
 * Closes entry c at once (offload.h: closing in steps): DRAINING with what
 * it owes, no further actions, its staged and queued bytes dropped. Its
 * responses go out in dt_drain_run.
 */
static void dt_drain_begin(struct ofl_dt *dt, struct ofl_dt_conn *c,
                           uint8_t kind)
{
    if (c->state == OFL_DT_CONN_CONNECTING)
        dt->connecting--;
    c->state = OFL_DT_CONN_DRAINING;
    c->drain = kind;
    c->actions = 0;
    c->rx_head = c->rx_tail;
    c->tx_head = c->tx_tail;
    dt->draining++;
}

/* A termination request. A listener drains (its members' unreported
 * ranges in its shared buffers, the buffers, its group sends, then the
 * response); a connection is answered when the firmware has closed it. */
static OFL_NOINLINE int dt_req_terminate(struct ofl_dt *dt, const struct ofl_dt_desc *d)
{
    struct ofl_dt_conn *c = dt_conn_find(dt, d->conn);

    if (c != NULL && c->state == OFL_DT_CONN_LISTENING) {
        if (!dt_reserve(dt, 1))
            return DT_WAIT; /* no room for even its first response */
        c->term_tag = d->tag;
        dt_drain_begin(dt, c, DT_DRAIN_TERM);
        dt_drain_run(dt);
        return DT_DONE;
    }
    if (c != NULL && c->state == OFL_DT_CONN_ESTABLISHED) {
        /* Answered when the firmware has closed it. */
        c->state = OFL_DT_CONN_CLOSING;
        c->actions |= OFL_DT_ACT_CLOSE;
        c->term_tag = d->tag;
        return DT_DONE;
    }
    return dt_refuse(dt, d,
                     c == NULL ? OFL_E_DT_CONN_UNKNOWN : OFL_E_DT_CONN_STATE);
}

/* Is c a pending connect or listen that a cancellation matches? */
static bool dt_cancel_match(const struct ofl_dt_conn *c, bool by_tag,
                            uint32_t tag)
{
    return (c->state == OFL_DT_CONN_CONNECTING ||
            c->state == OFL_DT_CONN_LISTEN_WAIT ||
            c->state == OFL_DT_CONN_LISTENING) &&
           (!by_tag || c->tag == tag);
}

/*
 * A cancellation request (seed: "cancel a previously submitted send,
 * connect or listen request"). What it matches is fixed now: listed sends
 * with its tag are marked, matched entries drain; its response follows
 * all of theirs (dt_drain_run). Waits while another one runs.
 */
static OFL_NOINLINE int dt_req_cancel(struct ofl_dt *dt, const struct ofl_dt_desc *d)
{
    bool by_tag = d->conn == 0;
    struct ofl_dt_conn *c = by_tag ? NULL : dt_conn_find(dt, d->conn);
    uint32_t i, n = 0, lo = 0, hi = dt->mem.conn_cap;

    if (dt->cancel_run || !dt_reserve(dt, 1))
        return DT_WAIT; /* one at a time; and room for a first response */
    if (!by_tag) {
        if (c == NULL || !dt_cancel_match(c, false, 0))
            return dt_refuse(dt, d, OFL_E_DT_NOT_FOUND);
        lo = dt_conn_index(dt, c);
        hi = lo + 1;
    }
    for (i = 0; by_tag && i < dt->xfer_count; i++) {
        if (dt->mem.xfer[i].tag == d->aux) {
            dt->mem.xfer[i].cancel = 1;
            n++;
        }
    }
    for (i = lo; i < hi; i++) {
        c = &dt->mem.conn[i];
        if (!dt_cancel_match(c, by_tag, d->aux))
            continue;
        n++;
        dt_drain_begin(dt, c,
                       c->state == OFL_DT_CONN_LISTENING ? DT_DRAIN_CANCEL
                       : c->state == OFL_DT_CONN_LISTEN_WAIT
                           ? DT_DRAIN_LISTEN
                           : DT_DRAIN_CONNECT);
    }
    dt->cancel_run = 1;
    dt->cancel_conn = d->conn;
    dt->cancel_tag = d->tag;
    dt->cancel_aux = d->aux;
    dt->cancel_n = n;
    dt->cancel_left = n;
    dt_drain_run(dt);
    return DT_DONE;
}

/*
 * The write-back of attribute request d failed after its sets were
 * applied: they are taken back, so that a request answered with an error
 * changed nothing. The control buffer holds, at each tuple's value, the
 * value before that tuple; an attribute set more than once takes back the
 * one before its first set. Bounded by number^2 tuple steps (<= 255^2).
 */
static OFL_NOINLINE void dt_attr_undo(struct ofl_dt *dt, struct ofl_dt_conn *c,
                                      const struct ofl_dt_desc *d,
                                      bool adapter)
{
    struct ofl_dt_tuple t, p;
    size_t off = 0, poff;
    uint32_t i, j;
    bool first;

    for (i = 0; i < d->number; i++) {
        dt_ctrl_tuple(dt, &off, &t);
        if (!t.set)
            continue;
        poff = 0;
        first = true;
        for (j = 0; j < i && first; j++) {
            dt_ctrl_tuple(dt, &poff, &p);
            first = !(p.set && p.attr == t.attr);
        }
        if (!first)
            continue;
        if (adapter)
            dt_adapter_set(dt, dt_attr_find(t.attr),
                           dt->mem.ctrl + t.value_off);
        else
            dt_conn_set(c, dt_attr_find(t.attr), dt->mem.ctrl + t.value_off);
    }
}

/*
 * Connection or adapter attribute control: every tuple checked, then gets
 * filled and sets applied in order (each set's old value written back in
 * its place), then the buffer is written back and answered; a failed
 * write-back takes the sets back (dt_attr_undo): OFL_DT_ST_DMA, no change.
 */
static OFL_NOINLINE int dt_req_attr(struct ofl_dt *dt, const struct ofl_dt_desc *d)
{
    bool adapter = d->type == OFL_DT_REQ_ADAPTER_ATTR;
    struct ofl_dt_conn *c = NULL;
    struct ofl_dt_tuple t;
    struct ofl_dt_desc r;
    const struct dt_attr_def *a;
    size_t off = 0;
    uint32_t i;
    enum ofl_err err = OFL_OK;
    uint8_t *v;

    if (!dt_reserve(dt, 1))
        return DT_WAIT;
    if (!adapter) {
        c = dt_conn_find(dt, d->conn);
        if (c == NULL)
            err = OFL_E_DT_CONN_UNKNOWN;
        else if (c->state == OFL_DT_CONN_FAILED ||
                 c->state == OFL_DT_CONN_DRAINING ||
                 c->state == OFL_DT_CONN_UNLISTEN)
            err = OFL_E_DT_CONN_STATE;
    }
    if (err == OFL_OK)
        err = dt_ctrl_read(dt, d);
    for (i = 0; err == OFL_OK && i < d->number; i++) {
        dt_ctrl_tuple(dt, &off, &t);
        err = dt_attr_check(dt, &t, adapter ? DT_SC_A : DT_SC_C);
    }
    if (err != OFL_OK)
        return dt_refuse(dt, d, err);
    off = 0;
    for (i = 0; i < d->number; i++) {
        uint8_t old[OFL_DT_REMOTE_SIZE]; /* the largest value */

        dt_ctrl_tuple(dt, &off, &t);
        a = dt_attr_find(t.attr); /* known: checked above */
        v = dt->mem.ctrl + t.value_off;
        if (adapter)
            dt_adapter_get(dt, a, old);
        else
            dt_conn_get(c, a, old);
        if (t.set) {
            if (adapter)
                dt_adapter_set(dt, a, v);
            else
                dt_conn_set(c, a, v);
        }
        ofl_copy(v, old, t.len);
    }
    err = ofl_port_dma_write(dt->port, d->base, dt->mem.ctrl, d->len);
    /* The adapter wrote host memory (all or part of it, even on a
     * failure): no cached copy of those bytes may be sent again. */
    dt_cache_invalidate(dt, d->base, d->len);
    if (err != OFL_OK)
        dt_attr_undo(dt, c, d, adapter);
    dt_desc_copy(&r, d);
    r.type = ofl_dt_response_to(d->type);
    r.status = err == OFL_OK ? OFL_DT_ST_OK : OFL_DT_ST_DMA;
    (void)dt_emit(dt, &r);
    return DT_DONE;
}

/*
 * Handles one input descriptor raw other than a well-formed buffer send
 * (ofl_dt_process lists those itself): *d holds what dt_decode made of it
 * and err its verdict. Returns DT_DONE when it was consumed, DT_WAIT when
 * it must stay for later (no room).
 */
static OFL_NOINLINE int dt_request(struct ofl_dt *dt, const uint8_t *raw,
                                   struct ofl_dt_desc *d, enum ofl_err err,
                                   uint64_t now)
{
    uint8_t type;

    if (err == OFL_OK && !ofl_dt_is_request(d->type))
        err = OFL_E_DT_BAD_TYPE;
    if (err != OFL_OK) {
        type = (uint8_t)((raw[0] >> OFL_DT_TYPE_SHIFT) & OFL_DT_TYPE_MASK);
        if (!ofl_dt_is_request(type)) {
            dt->stats.bad_requests++; /* nothing to answer with */
            return DT_DONE;
        }
        dt_desc_zero(d);
        d->type = type;
        d->tag = ofl_load_be32(raw + DT_OFF_TAG);
        return dt_refuse(dt, d, err);
    }
    switch (d->type) {
    case OFL_DT_REQ_BUF_AVAIL:
        return dt_req_avail(dt, d, now);
    case OFL_DT_REQ_CONNECT:
        return dt_req_connect(dt, d, now);
    case OFL_DT_REQ_LISTEN:
        return dt_req_listen(dt, d, now);
    case OFL_DT_REQ_TERMINATE:
        return dt_req_terminate(dt, d);
    case OFL_DT_REQ_CANCEL:
        return dt_req_cancel(dt, d);
    default: /* the two attribute controls */
        return dt_req_attr(dt, d);
    }
}

/*
 * Every input descriptor raw (owner bit set) that dt_send_fast does not
 * list: decoded and handed to dt_req_send (a well-formed buffer send: it
 * refuses or waits) or dt_request. Out of line, with the descriptor it
 * decodes into, so that the input loop's frame stays small. Returns
 * DT_DONE or DT_WAIT as they do.
 */
static OFL_NOINLINE int dt_input_slow(struct ofl_dt *dt, const uint8_t *raw,
                                      uint64_t now)
{
    struct ofl_dt_desc d;
    enum ofl_err err = dt_decode(raw, &d, OFL_DT_REQ_BUF_SEND);

    if (err == OFL_OK && d.type == OFL_DT_REQ_BUF_SEND)
        return dt_req_send(dt, &d, now);
    return dt_request(dt, raw, &d, err, now);
}

/*
 * Handles the n descriptors read into stage, in order, up to the first
 * free slot or the first that must wait; returns how many were consumed,
 * their owner bits cleared for the hand-back (the same bytes, one DMA for
 * the run). Out of line: the loop keeps its own frame, apart from the
 * batch loop's.
 */
static OFL_NOINLINE uint32_t dt_input_run(struct ofl_dt *dt, uint8_t *stage,
                                          uint32_t n, uint64_t now)
{
    struct dt_bounds b;
    struct dt_conn_memo m;
    uint32_t c;
    uint8_t *raw;

    m.id = 0;
    m.base = 0;
    m.c = NULL;
    m.len = 0;
    dt_bounds_init(dt, &b);
    for (c = 0; c < n; c++) {
        raw = stage + (size_t)c * OFL_DT_DESC_SIZE;
        /* The hot path: a well-formed buffer send is listed at once. */
        if (!dt_send_fast(dt, &b, raw, now, &m)) {
            if (!(raw[0] & OFL_DT_OWNER) ||
                dt_input_slow(dt, raw, now) == DT_WAIT)
                break;
            m.c = NULL; /* it may have changed any entry */
            m.len = 0;
        }
        raw[0] &= (uint8_t)~OFL_DT_OWNER; /* consumed */
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
        /* A send just listed (the memos hold) and the next is a send of
         * no flag for the same buffer: the lane lists the run of them. */
        if (m.c != NULL && c + 1 < n &&
            ofl_load_be32_word(raw + OFL_DT_DESC_SIZE) == DT_SEND_W0 &&
            ofl_load_be64_word(raw + OFL_DT_DESC_SIZE + DT_OFF_BASE) == m.base)
            c += dt_send_lane(dt, raw + OFL_DT_DESC_SIZE, n - c - 1, now, &m);
#endif
    }
    return c;
}

/*
 * Hands back the run of in_unreturned slots before in_head whose hand-back
 * failed: the slots are still the adapter's, so reading them gives the
 * bytes it consumed. The run never wraps (a run is read within the table).
 */
static OFL_NOINLINE enum ofl_err dt_in_hand_back(struct ofl_dt *dt)
{
    uint32_t n = dt->in_unreturned, k;
    uint64_t pa = dt->mem.in_pa +
                  (uint64_t)((dt->in_head - n) & (dt->mem.in_slots - 1)) *
                      OFL_DT_DESC_SIZE;
    enum ofl_err err;

    err = ofl_port_dma_read(dt->port, pa, dt->mem.in_stage,
                            (size_t)n * OFL_DT_DESC_SIZE);
    if (err != OFL_OK)
        return err;
    for (k = 0; k < n; k++)
        dt->mem.in_stage[(size_t)k * OFL_DT_DESC_SIZE] &=
            (uint8_t)~OFL_DT_OWNER;
    err = ofl_port_dma_write(dt->port, pa, dt->mem.in_stage,
                             (size_t)n * OFL_DT_DESC_SIZE);
    if (err == OFL_OK)
        dt->in_unreturned = 0;
    return err;
}

enum ofl_err ofl_dt_process(struct ofl_dt *dt, uint64_t now, uint32_t max,
                            uint32_t *consumed)
{
    uint32_t total = 0, mask, off, n, c, guard;
    uint64_t pa;
    enum ofl_err err = OFL_OK;
    uint8_t *stage;

    if (consumed != NULL)
        *consumed = 0;
    if (dt == NULL)
        return OFL_E_ARG;
    stage = dt->mem.in_stage;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
    /* (with no close draining and no cancellation it has nothing to do) */
    if (dt->draining != 0 || dt->cancel_run)
#endif
        dt_drain_run(dt);
    if (dt->in_unreturned != 0)
        err = dt_in_hand_back(dt); /* nothing new is read until it passes */
    mask = dt->mem.in_slots - 1;
    /* Each round consumes at least one slot or ends the loop. */
    for (guard = 0; err == OFL_OK && guard <= dt->mem.in_slots &&
                    total < max;
         guard++) {
        off = dt->in_head & mask;
        n = dt_min32(dt->mem.in_batch, dt->mem.in_slots - off);
        n = dt_min32(n, max - total);
        pa = dt->mem.in_pa + (uint64_t)off * OFL_DT_DESC_SIZE;
        err = ofl_port_dma_read(dt->port, pa, stage,
                                (size_t)n * OFL_DT_DESC_SIZE);
        if (err != OFL_OK)
            break;
        dt->stats.batches_in++;
        c = dt_input_run(dt, stage, n, now);
        dt->stats.requests += c;
        if (c != 0) {
            dt->in_head += c;
            total += c;
            err = ofl_port_dma_write(dt->port, pa, stage,
                                     (size_t)c * OFL_DT_DESC_SIZE);
            if (err != OFL_OK) {
                dt->in_unreturned = c; /* carried out: never again */
                break;
            }
        }
        if (c < n)
            break;
    }
    if (consumed != NULL)
        *consumed = total;
    return err;
}

/* ---- adapter: firmware events ---------------------------------------------- */

enum ofl_err ofl_dt_conn_established(struct ofl_dt *dt, uint64_t id,
                                     uint64_t now)
{
    struct ofl_dt_conn *c;

    if (dt == NULL)
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (c->state != OFL_DT_CONN_CONNECTING)
        return OFL_E_DT_CONN_STATE;
    dt->connecting--;
    c->state = OFL_DT_CONN_ESTABLISHED;
    c->actions &= (uint8_t)~OFL_DT_ACT_CONNECT;
    c->t_state = now;
    c->t_last_tx = now;
    dt_cn_pend(dt, c, DT_CN_COMPLETION, OFL_DT_ST_OK, now);
    return OFL_OK;
}

enum ofl_err ofl_dt_conn_failed(struct ofl_dt *dt, uint64_t id,
                                uint8_t status, uint64_t now)
{
    struct ofl_dt_conn *c;

    if (dt == NULL ||
        (status != OFL_DT_ST_FAILED && status != OFL_DT_ST_TIMEOUT))
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (c->state != OFL_DT_CONN_CONNECTING)
        return OFL_E_DT_CONN_STATE;
    dt->connecting--;
    c->state = OFL_DT_CONN_FAILED;
    c->actions = 0;
    c->t_state = now;
    dt_cn_pend(dt, c, DT_CN_COMPLETION, status, now);
    return OFL_OK;
}

enum ofl_err ofl_dt_listen_result(struct ofl_dt *dt, uint64_t id,
                                  uint8_t status, uint64_t now)
{
    struct ofl_dt_conn *c;

    (void)now;
    if (dt == NULL || (status != OFL_DT_ST_OK && status != OFL_DT_ST_FAILED))
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    /* Only a listen the firmware took (OFL_DT_ACT_LISTEN) is its to answer. */
    if (c->state != OFL_DT_CONN_LISTEN_WAIT || !c->fw_listen)
        return OFL_E_DT_CONN_STATE;
    if (!dt_reserve(dt, 1))
        return OFL_E_DT_FULL; /* nothing changed: answer again later */
    (void)dt_emit_simple(dt, OFL_DT_RSP_LISTEN, status, c->tag, id, 0);
    if (status == OFL_DT_ST_OK)
        c->state = OFL_DT_CONN_LISTENING;
    else
        dt_conn_release(dt, c); /* the firmware does not listen for it */
    return OFL_OK;
}

enum ofl_err ofl_dt_conn_arrive(struct ofl_dt *dt, uint64_t listener,
                                const uint8_t *raddr, uint16_t rport,
                                uint64_t now, uint64_t *new_id)
{
    struct ofl_dt_conn *l, *c;

    if (dt == NULL || raddr == NULL || new_id == NULL)
        return OFL_E_ARG;
    l = dt_conn_find(dt, listener);
    if (l == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (l->state != OFL_DT_CONN_LISTENING)
        return OFL_E_DT_CONN_STATE;
    if (l->backlog != 0 && l->accepted >= l->backlog)
        return OFL_E_DT_NO_CONN;
    c = dt_conn_alloc(dt, now);
    if (c == NULL)
        return OFL_E_DT_NO_CONN;
    l->accepted++;
    ofl_copy(&c->cfg, &l->cfg, sizeof(c->cfg)); /* the listen request's */
    c->state = OFL_DT_CONN_ESTABLISHED;
    c->proto = l->proto;
    c->lport = l->lport;
    c->rport = rport;
    ofl_copy(c->raddr, raddr, 16);
    c->group = listener;
    c->origin = listener;
    c->tag = l->tag;
    dt_cn_pend(dt, c, DT_CN_ARRIVAL, OFL_DT_ST_OK, now);
    *new_id = dt_conn_id(dt, c);
    return OFL_OK;
}

/* Emits c's pending completion or arrival notice (room reserved). */
static void dt_cn_emit(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    struct ofl_dt_desc r;

    dt_desc_zero(&r);
    r.tag = c->tag;
    r.conn = dt_conn_id(dt, c);
    if (c->cn_pending == DT_CN_ARRIVAL) {
        r.type = OFL_DT_RSP_CONN_ARRIVAL;
        r.base = c->origin; /* the listener (GROUP may have moved) */
    } else {
        r.type = OFL_DT_RSP_CONN_COMPLETE;
        r.status = c->cn_status;
        r.aux = c->target;
    }
    (void)dt_emit(dt, &r);
    c->cn_pending = 0;
    dt->cn_pending--;
    if (dt->cn_pending == 0)
        dt->cn_trigger = 0; /* the DATA or PATTERN event is used up */
    if (c->state == OFL_DT_CONN_FAILED)
        dt_conn_release(dt, c);
}

/*
 * Emits c's notice ahead of the delay criterion (a close or a settled
 * note forces it out, room reserved). When it was the oldest pending one,
 * the criterion's age is to count from the oldest left (FIG. 10: each
 * notice waits from when it became pending; none goes early because an
 * older one left early): dt_cn_run works that out once, rather than a
 * scan of every entry here for each notice a drain sends.
 */
static void dt_cn_emit_early(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    if (c->t_cn == dt->cn_t_first)
        dt->cn_t_stale = 1;
    dt_cn_emit(dt, c);
}

/* The time of the oldest pending notice (some is pending). */
static uint64_t dt_cn_oldest(const struct ofl_dt *dt)
{
    const struct ofl_dt_conn *o;
    bool found = false;
    uint64_t t = 0;
    uint32_t i;

    for (i = 0; i < dt->mem.conn_cap; i++) {
        o = &dt->mem.conn[i];
        if (o->state != OFL_DT_CONN_FREE && o->cn_pending != 0 &&
            (!found || o->t_cn < t)) {
            t = o->t_cn;
            found = true;
        }
    }
    return t;
}

/* Emits c's open receive note (room reserved). */
static void dt_note_emit(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    struct ofl_dt_note *n = &c->note;
    struct ofl_dt_desc r;

    dt_rsp_init(&r, OFL_DT_RSP_BUF_RECV, OFL_DT_ST_OK, n->tag,
                dt_conn_id(dt, c));
    r.flags = n->final ? OFL_DT_F_FINAL : 0;
    r.number = n->count;
    r.base = n->base;
    r.len = n->len;
    r.aux = n->off;
    (void)dt_emit(dt, &r);
    n->open = 0;
}

/* Do two open ranges lie in the same posted buffer? A buffer is known
 * by its base and its tag: the host may post two at one base. */
static bool dt_note_same_buf(const struct ofl_dt_note *a,
                             const struct ofl_dt_note *b)
{
    return a->base == b->base && a->tag == b->tag;
}

/*
 * Shared buffers (offload.h: order): a range placed in a buffer of
 * listener lid's group by connection o (not except) that its note has not
 * reported yet - in the buffer of range in, or in any of lid's when in is
 * NULL.
 */
static bool dt_settles(const struct ofl_dt_conn *o,
                       const struct ofl_dt_conn *except, uint64_t lid,
                       const struct ofl_dt_note *in)
{
    return o != except && o->state != OFL_DT_CONN_FREE && o->note.open &&
           o->note.shared == lid &&
           (in == NULL || dt_note_same_buf(&o->note, in));
}

/* Responses dt_settle writes: each such note, and its connection's
 * pending notice before it. */
static uint32_t dt_settle_cost(const struct ofl_dt *dt,
                               const struct ofl_dt_conn *except, uint64_t lid,
                               const struct ofl_dt_note *in)
{
    uint32_t i, n = 0;
    const struct ofl_dt_conn *o;

    for (i = 0; i < dt->mem.conn_cap; i++) {
        o = &dt->mem.conn[i];
        if (dt_settles(o, except, lid, in))
            n += 1u + (o->cn_pending != 0);
    }
    return n;
}

/*
 * Reports, while the output has room, every such range, whatever its
 * notification delay, each after its connection's notice (forced out if
 * still pending): a shared buffer goes back to the host only after all
 * data in it was reported. Each step writes one range with its notice
 * (room for both, or neither) and removes them, so a later call resumes
 * (offload.h: closing in steps). Two passes: the ranges that end a buffer
 * (FINAL) after all others, so that for a whole listener a FINAL never
 * precedes a
 * range of its own buffer. Returns true when none is left.
 */
static bool dt_settle(struct ofl_dt *dt, const struct ofl_dt_conn *except,
                      uint64_t lid, const struct ofl_dt_note *in)
{
    uint32_t i, pass;
    struct ofl_dt_conn *o;

    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < dt->mem.conn_cap; i++) {
            o = &dt->mem.conn[i];
            if (!dt_settles(o, except, lid, in) ||
                o->note.final != pass)
                continue;
            if (!dt_reserve(dt, 1u + (o->cn_pending != 0)))
                return false;
            if (o->cn_pending != 0)
                dt_cn_emit_early(dt, o);
            dt_note_emit(dt, o);
        }
    }
    return true;
}

/* Responses dt_note_out writes for c's open note (0 when none). */
static uint32_t dt_note_cost(const struct ofl_dt *dt,
                             const struct ofl_dt_conn *c)
{
    const struct ofl_dt_note *n = &c->note;

    if (!n->open)
        return 0;
    if (n->final && n->shared != 0)
        return 1 + dt_settle_cost(dt, c, n->shared, n);
    return 1;
}

/*
 * Room to wait for before dt_note_out in the normal course: all it writes
 * (so that a FINAL range and the ranges it waits for go out together),
 * but never more than the output table holds - beyond that dt_note_out
 * goes out in steps, or it could wait for ever.
 */
static uint32_t dt_note_room(const struct ofl_dt *dt,
                             const struct ofl_dt_conn *c)
{
    return dt_min32(dt_note_cost(dt, c), dt->mem.out_slots);
}

/*
 * Writes, while the output has room, c's open note, if any; the note that
 * returns a shared buffer goes after every other connection's unreported
 * range in it (dt_settle). Resumable. Returns true when c has no open
 * note left.
 */
static bool dt_note_out(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    if (!c->note.open)
        return true;
    if (c->note.final && c->note.shared != 0 &&
        !dt_settle(dt, c, c->note.shared, &c->note))
        return false;
    if (!dt_reserve(dt, 1))
        return false;
    dt_note_emit(dt, c);
    return true;
}

/*
 * Writes, while the output has room, what DRAINING entry c still owes the
 * host, in the order offload.h gives, and frees it after the last one.
 * Every step removes what it wrote, so a later call resumes after it.
 * Returns true when c is done.
 */
static OFL_NOINLINE bool dt_drain_conn(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    uint8_t status = c->drain == DT_DRAIN_TERM ? OFL_DT_ST_FLUSHED
                                               : OFL_DT_ST_CANCELLED;
    struct ofl_dt_rbuf *p;
    struct ofl_dt_desc r;

    if (c->cn_pending != 0) {
        if (!dt_reserve(dt, 1))
            return false;
        dt_cn_emit_early(dt, c); /* not FAILED: the entry stays */
    }
    if (!dt_note_out(dt, c))
        return false;
    /* A listener: what members placed in its shared buffers is reported
     * before the buffers go back (offload.h: order). For any other entry
     * no range names it. */
    if (!dt_settle(dt, NULL, dt_conn_id(dt, c), NULL))
        return false;
    p = dt_rbuf(dt, c->peek);
    if (p != NULL) {
        if (!dt_reserve(dt, 1))
            return false;
        dt_rsp_init(&r, OFL_DT_RSP_BUF_RECV, status, p->tag,
                    dt_conn_id(dt, c));
        r.flags = OFL_DT_F_FINAL | OFL_DT_F_PEEK;
        r.base = p->base;
        (void)dt_emit(dt, &r);
        dt_rbuf_release(dt, p);
        c->peek = 0;
    }
    if (!dt_rbuf_flush(dt, c, status))
        return false;
    if (c->xfer_n != 0 &&
        !dt_xfer_drop(dt, dt_conn_index(dt, c), false, status))
        return false;
    if (c->drain != DT_DRAIN_CANCEL) {
        if (!dt_reserve(dt, 1))
            return false;
        if (c->drain == DT_DRAIN_TERM)
            (void)dt_emit_simple(dt, OFL_DT_RSP_TERMINATE, OFL_DT_ST_OK,
                                 c->term_tag, dt_conn_id(dt, c), 0);
        else if (c->drain == DT_DRAIN_LISTEN)
            (void)dt_emit_simple(dt, OFL_DT_RSP_LISTEN, OFL_DT_ST_CANCELLED,
                                 c->tag, dt_conn_id(dt, c), 0);
        else
            (void)dt_emit_simple(dt, OFL_DT_RSP_CONN_COMPLETE,
                                 OFL_DT_ST_CANCELLED, c->tag,
                                 dt_conn_id(dt, c), c->target);
    }
    if (c->drain != DT_DRAIN_TERM)
        dt->cancel_left--;
    dt->draining--;
    if (c->fw_listen) {
        /* The firmware listens for it: it stops, then frees the entry
         * (ofl_dt_conn_closed). */
        c->state = OFL_DT_CONN_UNLISTEN;
        c->actions = OFL_DT_ACT_CLOSE;
        return true;
    }
    dt_conn_release(dt, c);
    return true;
}

/*
 * Resumes every close in progress while the output has room: the sends
 * the running cancellation matched, the DRAINING entries in table order,
 * then the cancellation's own response once all it matched is answered.
 * Bounded by the list and table sizes.
 */
static OFL_NOINLINE void dt_drain_run(struct ofl_dt *dt)
{
    struct ofl_dt_desc r;
    uint32_t i, seen = 0, todo = dt->draining;

    if (dt->cancel_run &&
        !dt_xfer_drop(dt, 0, true, OFL_DT_ST_CANCELLED))
        return;
    for (i = 0; i < dt->mem.conn_cap && seen < todo; i++) {
        if (dt->mem.conn[i].state != OFL_DT_CONN_DRAINING)
            continue;
        seen++;
        if (!dt_drain_conn(dt, &dt->mem.conn[i]))
            return; /* out of room: the rest waits */
    }
    if (!dt->cancel_run || dt->cancel_left != 0 || !dt_reserve(dt, 1))
        return;
    dt_desc_zero(&r);
    r.type = OFL_DT_RSP_CANCEL;
    r.status = dt->cancel_n != 0 ? OFL_DT_ST_OK : OFL_DT_ST_NOT_FOUND;
    r.number = (uint8_t)dt_min32(dt->cancel_n, 255);
    r.tag = dt->cancel_tag;
    r.conn = dt->cancel_conn;
    r.aux = dt->cancel_aux;
    (void)dt_emit(dt, &r);
    dt->cancel_run = 0;
}

enum ofl_err ofl_dt_conn_closed(struct ofl_dt *dt, uint64_t id, uint64_t now)
{
    struct ofl_dt_conn *c;

    (void)now;
    if (dt == NULL)
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (c->state == OFL_DT_CONN_UNLISTEN) {
        dt_conn_release(dt, c); /* the firmware stopped listening */
        return OFL_OK;
    }
    if (c->state != OFL_DT_CONN_ESTABLISHED && c->state != OFL_DT_CONN_CLOSING)
        return OFL_E_DT_CONN_STATE;
    if (c->state == OFL_DT_CONN_ESTABLISHED)
        c->term_tag = 0; /* the peer closed: no request to answer */
    dt_drain_begin(dt, c, DT_DRAIN_TERM);
    (void)dt_drain_conn(dt, c);
    return OFL_OK;
}

/* ---- adapter: the transmit and receive rings ------------------------------ */

/*
 * Advances c's pattern match over data (FIG. 10 "a specific data
 * pattern"): on a mismatch the match falls back to the longest proper
 * suffix of the matched part that is a prefix of the pattern, so a match
 * split across segments or overlapping itself is found. At most 16 * 16
 * byte compares per input byte.
 */
static bool dt_pattern_feed(const struct ofl_dt *dt, struct ofl_dt_conn *c,
                            const uint8_t *data, uint32_t len)
{
    const uint8_t *pat = dt->cfg.cn_pattern;
    uint32_t plen = dt->cfg.cn_pattern_len, i, k, j, m;
    bool found = false;

    if (plen == 0) /* an empty pattern never matches */
        return false;
    k = dt_min32(c->pat_matched, plen - 1);
    for (i = 0; i < len; i++) {
        /* The last k input bytes equal pat[0 .. k). */
        for (;;) {
            if (pat[k] == data[i]) {
                k++;
                break;
            }
            if (k == 0)
                break;
            for (j = k - 1; j > 0; j--) {
                for (m = 0; m < j && pat[m] == pat[k - j + m]; m++)
                    ;
                if (m == j)
                    break;
            }
            k = j;
        }
        if (k == plen) {
            found = true;
            k = 0;
        }
    }
    c->pat_matched = (uint8_t)k;
    return found;
}

enum ofl_err ofl_dt_rx(struct ofl_dt *dt, uint64_t id, const uint8_t *data,
                       uint32_t len, uint64_t now)
{
    struct ofl_dt_conn *c;

    if (dt == NULL || (data == NULL && len != 0))
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (c->state != OFL_DT_CONN_ESTABLISHED && c->state != OFL_DT_CONN_CLOSING)
        return OFL_E_DT_CONN_STATE;
    if (len > dt->mem.rx_size - (c->rx_tail - c->rx_head))
        return OFL_E_DT_RX_FULL;
    if (len == 0)
        return OFL_OK;
    if (c->rx_tail == c->rx_head)
        c->t_rx_first = now;
    dt_ring_put(dt_rx_ring(dt, c), dt->mem.rx_size, c->rx_tail, data, len);
    c->rx_tail += len;
    c->rx_total += len;
    if (c->cn_pending != 0) {
        if (dt->cfg.cn_criteria & OFL_DT_CN_DATA)
            dt->cn_trigger = 1;
        if ((dt->cfg.cn_criteria & OFL_DT_CN_PATTERN) &&
            dt_pattern_feed(dt, c, data, len))
            dt->cn_trigger = 1;
    }
    return OFL_OK;
}

enum ofl_err ofl_dt_tx_peek(struct ofl_dt *dt, uint64_t id, const uint8_t **p,
                            uint32_t *n)
{
    struct ofl_dt_conn *c;
    uint32_t off;

    if (dt == NULL || p == NULL || n == NULL)
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    off = c->tx_head & (dt->mem.tx_size - 1);
    *p = dt_tx_ring(dt, c) + off;
    *n = dt_min32(c->tx_tail - c->tx_head, dt->mem.tx_size - off);
    return OFL_OK;
}

enum ofl_err ofl_dt_tx_consume(struct ofl_dt *dt, uint64_t id, uint32_t n,
                               uint64_t now)
{
    struct ofl_dt_conn *c;

    if (dt == NULL)
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    if (n > c->tx_tail - c->tx_head)
        return OFL_E_DT_TX_RANGE;
    c->tx_head += n;
    c->tx_total += n;
    if (n != 0)
        c->t_last_tx = now;
    return OFL_OK;
}

/* ---- adapter: service ------------------------------------------------------ */

/* Connect attempts older than cfg.connect_timeout fail with TIMEOUT. */
static OFL_NOINLINE void dt_timeouts(struct ofl_dt *dt, uint64_t now)
{
    uint32_t i;
    struct ofl_dt_conn *c;

    if (dt->connecting == 0 || dt->cfg.connect_timeout == 0)
        return;
    for (i = 0; i < dt->mem.conn_cap; i++) {
        c = &dt->mem.conn[i];
        if (c->state == OFL_DT_CONN_CONNECTING &&
            now - c->t_state >= dt->cfg.connect_timeout)
            (void)ofl_dt_conn_failed(dt, dt_conn_id(dt, c), OFL_DT_ST_TIMEOUT,
                                     now);
    }
}

/* Aggregated completion and arrival notices (FIG. 10). */
static OFL_NOINLINE void dt_cn_run(struct ofl_dt *dt, uint64_t now)
{
    const struct ofl_dt_config *cfg = &dt->cfg;
    uint64_t age;
    uint32_t i;
    struct ofl_dt_conn *c;
    bool met;

    if (dt->cn_pending == 0)
        return;
    if (dt->cn_t_stale) {
        dt->cn_t_first = dt_cn_oldest(dt);
        dt->cn_t_stale = 0;
    }
    age = now - dt->cn_t_first;
    met = cfg->cn_criteria == 0 ||
          ((cfg->cn_criteria & OFL_DT_CN_COUNT) &&
           dt->cn_pending >= cfg->cn_count) ||
          ((cfg->cn_criteria & OFL_DT_CN_TIME) && age >= cfg->cn_time) ||
          ((cfg->cn_criteria & (OFL_DT_CN_DATA | OFL_DT_CN_PATTERN)) &&
           dt->cn_trigger) ||
          (cfg->cn_max_delay != 0 && age >= cfg->cn_max_delay);
    if (!met)
        return;
    for (i = 0; i < dt->mem.conn_cap && dt->cn_pending != 0; i++) {
        c = &dt->mem.conn[i];
        if (c->state == OFL_DT_CONN_FREE || c->cn_pending == 0)
            continue;
        if (!dt_reserve(dt, 1))
            return; /* the rest go out when the host frees slots */
        dt_cn_emit(dt, c);
    }
    /* Every notice went out (none stays unfound: the count is exact), so
     * the DATA or PATTERN event is consumed. */
    dt->cn_trigger = 0;
}

/* Periodic connection state reports (seed: "a connection attribute
 * response descriptor may be periodically generated" for failover). */
static OFL_NOINLINE void dt_report_run(struct ofl_dt *dt, uint64_t now)
{
    struct ofl_dt_desc r;
    struct ofl_dt_conn *c;
    uint32_t i;

    if (dt->cfg.report_period == 0)
        return;
    if (dt->report_next == 0) {
        if (now - dt->t_report < dt->cfg.report_period)
            return;
        dt->t_report = now;
        dt->report_next = 1;
    }
    for (i = dt->report_next - 1; i < dt->mem.conn_cap; i++) {
        c = &dt->mem.conn[i];
        /* A connection whose notice is pending is not the host's yet: its
         * first report follows the notice (offload.h: order). */
        if ((c->state != OFL_DT_CONN_ESTABLISHED &&
             c->state != OFL_DT_CONN_CLOSING) ||
            c->cn_pending != 0)
            continue;
        if (!dt_reserve(dt, 1)) {
            dt->report_next = i + 1; /* resume here */
            return;
        }
        dt_desc_zero(&r);
        r.type = OFL_DT_RSP_CONN_ATTR;
        r.flags = OFL_DT_F_REPORT;
        r.number = c->state;
        r.base = c->tx_total;
        r.len = c->rx_tail - c->rx_head;
        r.aux = (uint32_t)c->rx_total;
        r.conn = dt_conn_id(dt, c);
        (void)dt_emit(dt, &r);
    }
    dt->report_next = 0;
}

/* ---- adapter: the bulk transfer list (FIG. 15, 16) ------------------------- */

/* Starved: nothing transmitted for cfg.starve_time (FIG. 15). */
static bool dt_tx_starved(const struct ofl_dt *dt, const struct ofl_dt_conn *c,
                          uint64_t now)
{
    return dt->cfg.starve_time != 0 && now - c->t_last_tx >= dt->cfg.starve_time;
}

/* List order: starved connections first, then higher priority, then each
 * connection's requests together (by its oldest), in arrival order. */
static bool dt_xfer_before(const struct ofl_dt *dt, const struct ofl_dt_xfer *a,
                           const struct ofl_dt_xfer *b, uint64_t now)
{
    const struct ofl_dt_conn *ca = &dt->mem.conn[a->conn];
    const struct ofl_dt_conn *cb = &dt->mem.conn[b->conn];
    bool sa, sb;

    if (a->conn == b->conn)
        return ofl_sn_lt(a->seq, b->seq);
    sa = dt_tx_starved(dt, ca, now);
    sb = dt_tx_starved(dt, cb, now);
    if (sa != sb)
        return sa;
    if (ca->cfg.priority != cb->cfg.priority)
        return ca->cfg.priority > cb->cfg.priority;
    return ofl_sn_lt(ca->xfer_first, cb->xfer_first);
}

/* Stable insertion sort of the list: O(n^2) in xfer_cap (<= 1024). A
 * connection's requests always stand in arrival order, so a pair of one
 * connection is in place without a comparison (the common case). */
static OFL_NOINLINE void dt_xfer_sort(struct ofl_dt *dt, uint64_t now)
{
    struct ofl_dt_xfer *e = dt->mem.xfer, x;
    uint32_t i, j, n = dt->xfer_count;

    /* One connection's requests only (its xfer_n, kept exact, counts them
     * all): in arrival order already, nothing would move. */
    if (n < 2 || dt->mem.conn[e[0].conn].xfer_n == n)
        return;
    for (i = 1; i < n; i++) {
        if (e[i].conn == e[i - 1].conn ||
            !dt_xfer_before(dt, &e[i], &e[i - 1], now))
            continue;
        dt_xfer_copy(&x, &e[i]);
        for (j = i; j > 0 && dt_xfer_before(dt, &x, &e[j - 1], now); j--)
            dt_xfer_copy(&e[j], &e[j - 1]);
        dt_xfer_copy(&e[j], &x);
    }
}

/* Transmit ring room of an entry. */
static uint32_t dt_tx_room(const struct ofl_dt *dt, const struct ofl_dt_conn *c)
{
    return dt->mem.tx_size - (c->tx_tail - c->tx_head);
}

/* Is m a member that a group send through listener lid reaches? */
static bool dt_member(const struct ofl_dt_conn *m, uint64_t lid)
{
    return m->state == OFL_DT_CONN_ESTABLISHED && m->group == lid;
}

/*
 * Moves host [base, base + len) into the transmit ring of c (the caller
 * checked the room): from the send cache when may_cache (the modify bit is
 * clear) and a cached copy covers the range, else by DMA, keeping a copy.
 * Returns OFL_DT_ST_OK, or OFL_DT_ST_DMA (nothing moved).
 */
/* The DMA half of dt_xfer_in: reads the range into c's ring at its tail
 * and keeps a copy in the send cache. */
static OFL_NOINLINE enum ofl_err dt_xfer_dma(struct ofl_dt *dt,
                                             struct ofl_dt_conn *c,
                                             uint64_t base, uint32_t len)
{
    uint8_t *ring = dt_tx_ring(dt, c);
    enum ofl_err err = dt_ring_dma_in(dt, ring, dt->mem.tx_size, c->tx_tail,
                                      base, len);

    if (err == OFL_OK)
        dt_cache_store(dt, base, len, ring, dt->mem.tx_size, c->tx_tail);
    return err;
}

/* ring is dt_tx_ring(dt, c) (a caller that moves several ranges into one
 * ring works it out once); slot is the send cache slot that covers the
 * range (dt_cache_lookup), or -1 when none does or none may be used. */
static DT_HOT uint8_t dt_xfer_in(struct ofl_dt *dt, struct ofl_dt_conn *c,
                                 uint8_t *ring, uint64_t base, uint32_t len,
                                 int32_t slot)
{
    if (slot >= 0) {
        dt_ring_put(ring, dt->mem.tx_size, c->tx_tail,
                    dt_cache_src(dt, (uint32_t)slot, base), len);
        dt->mem.cache[slot].stamp = ++dt->cache_stamp;
        dt->stats.dma_skipped++;
    } else if (dt_xfer_dma(dt, c, base, len) != OFL_OK) {
        return OFL_DT_ST_DMA;
    }
    c->tx_tail += len;
    c->actions |= OFL_DT_ACT_TX;
    return OFL_DT_ST_OK;
}

/*
 * A group send through listener l: every member's transmit ring gets the
 * data, read once from the host into the first member and copied from
 * there. DT_WAIT (nothing done) when a member's ring lacks room, else
 * DT_DONE with *status.
 */
static OFL_NOINLINE int dt_xfer_group(struct ofl_dt *dt, struct ofl_dt_conn *l,
                                     uint64_t base, uint32_t len,
                                     bool may_cache, uint8_t *status)
{
    struct ofl_dt_conn *first = NULL, *m;
    uint64_t lid = dt_conn_id(dt, l);
    uint32_t i;

    for (i = 0; i < dt->mem.conn_cap; i++) {
        m = &dt->mem.conn[i];
        if (dt_member(m, lid) && dt_tx_room(dt, m) < len)
            return DT_WAIT;
    }
    *status = OFL_DT_ST_OK;
    for (i = 0; i < dt->mem.conn_cap; i++) {
        m = &dt->mem.conn[i];
        if (!dt_member(m, lid))
            continue; /* the listener itself transmits nothing */
        if (first == NULL) {
            *status = dt_xfer_in(dt, m, dt_tx_ring(dt, m), base, len,
                                 may_cache ? dt_cache_lookup(dt, base, len)
                                           : -1);
            if (*status != OFL_DT_ST_OK)
                break;
            first = m;
            continue;
        }
        dt_ring_copy(dt_tx_ring(dt, m), m->tx_tail, dt_tx_ring(dt, first),
                     first->tx_tail - len, dt->mem.tx_size, len);
        m->tx_tail += len;
        m->actions |= OFL_DT_ACT_TX;
    }
    return DT_DONE;
}

/* Has the list met its delay criterion (FIG. 16)? */
static bool dt_bt_met(const struct ofl_dt *dt, uint64_t now)
{
    const struct ofl_dt_config *cfg = &dt->cfg;
    uint64_t oldest = dt->mem.xfer[0].t_listed, age;
    uint32_t i;

    if (dt->bt_asap || cfg->bt_criteria == 0 ||
        dt->xfer_count == dt->mem.xfer_cap ||
        ((cfg->bt_criteria & OFL_DT_BT_COUNT) &&
         dt->xfer_count >= cfg->bt_count) ||
        ((cfg->bt_criteria & OFL_DT_BT_BYTES) &&
         dt->bt_bytes_listed >= cfg->bt_bytes))
        return true;
    if (!(cfg->bt_criteria & OFL_DT_BT_TIME) && cfg->bt_max_delay == 0)
        return false;
    for (i = 1; i < dt->xfer_count; i++)
        if (dt->mem.xfer[i].t_listed < oldest)
            oldest = dt->mem.xfer[i].t_listed;
    age = now - oldest;
    return ((cfg->bt_criteria & OFL_DT_BT_TIME) && age >= cfg->bt_time) ||
           (cfg->bt_max_delay != 0 && age >= cfg->bt_max_delay);
}

/* What a merge of total bytes may still take: cfg.merge_max, and never
 * more than a transmit ring holds (worked out where a merge is possible,
 * not kept across the whole run). */
static uint32_t dt_merge_room(const struct ofl_dt *dt, uint32_t total)
{
    uint32_t merge_max = dt_min32(dt->cfg.merge_max, dt->mem.tx_size);

    return merge_max - dt_min32(total, merge_max);
}

/* Moves list entries e[from .. to) up to e[k ..) (k <= from, in order);
 * returns the new k. Out of line: the run's rare paths. */
static OFL_NOINLINE uint32_t dt_xfer_keep(struct ofl_dt_xfer *e, uint32_t k,
                                          uint32_t from, uint32_t to)
{
    for (; from < to; from++)
        dt_xfer_copy(&e[k++], &e[from]);
    return k;
}

#if OFL_FAST_PATH
/*
 * The bulk run's straight line (a fast path; a size build, OFL_FAST_PATH
 * 0, has the general loop alone, and tests/check_fastpath_dt.sh holds the
 * two to the same answers). dt_bulk_run hands it a run of list entries
 * from e[i] on, of connection entry c, when e[i]'s range is the one the
 * send cache's slot covered at dt_bulk_run's last lookup (its memo: the
 * cache has not changed since); it answers each entry the general loop
 * would answer in the
 * plainest way, and stops at the first it would not (as it would) or at
 * n, returning the index of the entry it stopped at (each answer takes
 * one of the room output slots known free). An entry taken here is of
 * connection c in ESTABLISHED, not cancelled, without the modify bit,
 * for e[i]'s range exactly (slot's copy), with no adjacent
 * range after it (no merge: the general loop's first range test fails),
 * while room (output slots known free) lasts, the stage has a slot and
 * the ring has room: the general loop then copies from the cache, counts
 * the cache hit, stamps the slot, and stages a buffer available answer of
 * number 1. These do the same, with the counters kept in locals and
 * written once (nothing in the run reads them in between: the stage is
 * not flushed, the cache not searched), and the answers copied from one
 * built once (they differ in their tags alone).
 */
static OFL_NOINLINE uint32_t dt_bulk_lane(struct ofl_dt *dt,
                                          struct ofl_dt_conn *c, uint32_t i,
                                          uint32_t n, uint32_t room,
                                          uint32_t slot)
{
    const struct ofl_dt_xfer *e = dt->mem.xfer, *x;
    struct ofl_dt_desc r;
    uint8_t *ring = dt_tx_ring(dt, c), *out;
    const uint8_t *tpl;
    const uint64_t base = e[i].base;
    const uint8_t *src = dt_cache_src(dt, slot, base);
    const uint32_t len = e[i].len, ci = dt_conn_index(dt, c);
    const uint32_t size = dt->mem.tx_size, staged = dt->out_staged;
    uint32_t tail = c->tx_tail, space = size - (tail - c->tx_head), j, k, off;

    if (c->state != OFL_DT_CONN_ESTABLISHED || len == 0)
        return i;
    /* Every answer is r but for its tag, stored over it. */
    dt_rsp_init(&r, OFL_DT_RSP_BUF_AVAIL, OFL_DT_ST_OK, 0, dt_conn_id(dt, c));
    r.base = base;
    r.number = 1;
    r.len = len;
    /* The run: entries for this range exactly, at most room answers and
     * as many as the stage holds, while the ring has room; each one's
     * answer is stored into the stage as it is found (the stage past
     * out_staged holds meaningless bytes: one stored for an entry that
     * then stays is never sent). */
    k = dt_min32(n - i, dt_min32(room, dt->mem.out_batch - staged));
    k = i + dt_min32(k, space / len); /* len is not 0 (the caller's memo) */
    if (k == i)
        return i;
    out = dt->mem.out_stage + (size_t)staged * OFL_DT_DESC_SIZE;
    tpl = out;
    dt_store(&r, out, OFL_DT_OWNER); /* into the first free stage slot */
    {
#if defined(OFL_WORD_MOVES) && defined(__GNUC__)
        /* r as stored there, as four words in locals (registers): each
         * answer is these words and its tag. */
        const ofl_word t0 = ((const ofl_word *)tpl)[0];
        const ofl_word t1 = ((const ofl_word *)tpl)[1];
        const ofl_word t2 = ((const ofl_word *)tpl)[2];
        const ofl_word t3 = ((const ofl_word *)tpl)[3];
#endif

        for (x = &e[i]; x != &e[k]; x++) {
            /* not cancelled, no modify bit: one test of the two bytes */
            if (x->conn != ci ||
                (((uint32_t)x->cancel << 8 | x->flags) &
                 (0xFF00u | OFL_DT_F_MODIFY)) != 0 ||
                x->base != base || x->len != len)
                break;
#if defined(OFL_WORD_MOVES) && defined(__GNUC__)
            ((ofl_word *)out)[0] = t0;
            ((ofl_word *)out)[1] = t1;
            ((ofl_word *)out)[2] = t2;
            ((ofl_word *)out)[3] = t3;
#else
            if (out != tpl) /* the first answer is there already */
                dt_copy(out, tpl, OFL_DT_DESC_SIZE);
#endif
            ofl_store_be32(out + DT_OFF_TAG, x->tag);
            out += OFL_DT_DESC_SIZE;
        }
        j = (uint32_t)(x - e);
    }
    /* An entry whose next one starts at the end of its range would merge
     * with it: each of the run is followed by one of the same base (len
     * is not 0: no merge), so only the last can be, by the entry after
     * the run. */
    if (j != i && j < n && e[j].base - base == len)
        j--;
    k = j - i;
    if (k == 0)
        return i;
    /* The ring copies, one after another from the tail: each but the one
     * that crosses the ring's end in one piece. */
#if defined(OFL_WORD_MOVES) && defined(__GNUC__) && defined(__OPTIMIZE__)
    if (len >= 16 && len <= 32) {
        /* dt_copy's two pairs of words, loaded once for the run. */
        const ofl_word a = ((const ofl_word *)src)[0];
        const ofl_word b = ((const ofl_word *)src)[1];
        const ofl_word y = *(const ofl_word *)(src + len - 16);
        const ofl_word z = *(const ofl_word *)(src + len - 8);
        uint8_t *d;

        for (j = 0; j < k; j++, tail += len) {
            off = tail & (size - 1);
            if (len <= size - off) {
                d = ring + off;
                ((ofl_word *)d)[0] = a;
                ((ofl_word *)d)[1] = b;
                *(ofl_word *)(d + len - 16) = y;
                *(ofl_word *)(d + len - 8) = z;
            } else {
                dt_ring_put(ring, size, tail, src, len);
            }
        }
        k = j;
    } else
#endif
    for (j = 0; j < k; j++, tail += len) {
        off = tail & (size - 1);
        if (len <= size - off)
            dt_copy(ring + off, src, len);
        else
            dt_ring_put(ring, size, tail, src, len);
    }
    c->tx_tail = tail;
    c->actions |= OFL_DT_ACT_TX;
    c->xfer_n -= k;
    dt->out_staged = staged + k;
    dt->stats.dma_skipped += k;
    dt->cache_stamp += k;
    dt->mem.cache[slot].stamp = dt->cache_stamp;
    return i + k;
}
#endif

/*
 * Runs the list when its criterion holds: order, merge, transfer, answer.
 * A connection's requests for adjacent ranges merge into one transfer and
 * one response (at most 255, cfg.merge_max bytes, and never more than a
 * transmit ring holds: a larger merge would wait for room that can never
 * come, and with it the whole input table); a connection whose ring lacks
 * room keeps all its requests, in order.
 */
static OFL_NOINLINE void dt_bulk_run(struct ofl_dt *dt, uint64_t now)
{
    struct ofl_dt_xfer *e = dt->mem.xfer;
    const struct ofl_dt_xfer *x, *p;
    struct ofl_dt_conn *c = NULL;
    struct ofl_dt_desc r;
    uint8_t *ring = NULL;
    uint64_t id = 0;
    uint32_t i, j, k = 0, total, n = dt->xfer_count, last, hint = 0, ci = 0;
    uint32_t room = 0; /* output slots known to be free; at most dt_out_free */
    int32_t slot;
    uint8_t status = OFL_DT_ST_OK, modify;
#if OFL_FAST_PATH
    /* The send cache memo (a fast path): the range [m_base, m_base +
     * m_len) that slot hint covered at the last lookup (m_len 0 when
     * none, or when the cache may have changed since); dt_bulk_lane
     * answers the plain sends of it. */
    uint64_t m_base = 0;
    uint32_t m_len = 0;
#endif

    if (n == 0 || !dt_bt_met(dt, now))
        return;
    dt_xfer_sort(dt, now);
    /* Answered requests leave the list; the others move up to e[k]. No
     * step below adds to the list, so its length stays in n. */
    for (i = 0; i < n; i = j) {
        x = &e[i];
        if (c == NULL || x->conn != ci) {
            /* A connection's requests stand together (dt_xfer_sort): its
             * entry, ring and id are worked out once for them. */
            ci = x->conn;
            c = &dt->mem.conn[ci];
            ring = dt_tx_ring(dt, c);
            id = dt_conn_id(dt, c);
        }
#if OFL_FAST_PATH
        if (x->base == m_base && x->len == m_len && room != 0) {
            j = dt_bulk_lane(dt, c, i, n, room, hint);
            if (j != i) {
                room -= j - i; /* e[i .. j) answered */
                continue;
            }
        }
#endif
        if (c->state == OFL_DT_CONN_DRAINING || x->cancel) {
            /* Cancelled or closing: answered by dt_drain_run, never sent. */
            j = i + 1;
            k = dt_xfer_keep(e, k, i, j);
            continue;
        }
        total = x->len;
        modify = x->flags & OFL_DT_F_MODIFY;
        /* Merge the connection's following requests for adjacent ranges:
         * each is tested against the one before it (of the connection, not
         * cancelled, once merged). The range test comes first, and the
         * first one is made before the loop is set up: in a run of
         * unrelated buffers it is the one that fails. */
        j = i + 1;
        if (j < n && x[1].base - x->base == x->len) {
            last = i + dt_min32(n - i, 255); /* j < n and j - i < 255 */
            for (; j < last; j++) {
                p = &e[j - 1];
                if (e[j].base - p->base != p->len || e[j].base <= p->base ||
                    e[j].conn != p->conn || e[j].cancel ||
                    e[j].len > dt_merge_room(dt, total))
                    break;
                total += e[j].len;
                modify |= e[j].flags & OFL_DT_F_MODIFY;
            }
        }
        /* dt_reserve(dt, 1) when room is spent: while it is not, the
         * table has room and dt_reserve would only say so. Each response
         * takes one slot at most (none when lost); a flush and a reclaim
         * only add room. (Every time in a size build.) */
        if (!OFL_FAST_PATH || room == 0) {
            if (!dt_reserve(dt, 1))
                break; /* the rest waits for output room */
            room = dt_out_free(dt);
        }
        if (c->state == OFL_DT_CONN_LISTENING) {
#if OFL_FAST_PATH
            m_len = 0; /* it may store a copy in the send cache */
#endif
            if (dt_xfer_group(dt, c, x->base, total, modify == 0, &status) ==
                DT_WAIT)
                j = i; /* keep all its requests */
            else
                c->t_last_tx = now; /* a group send transmits at once */
        } else if (dt_tx_room(dt, c) < total) {
            j = i;
        } else {
            slot = modify == 0
                       ? dt_cache_lookup_hint(dt, hint, x->base, total)
                       : -1;
#if OFL_FAST_PATH
            m_len = 0; /* a DMA stores a copy: the cache changes */
#endif
            if (slot >= 0) {
                hint = (uint32_t)slot;
#if OFL_FAST_PATH
                m_base = x->base;
                m_len = total;
                /* Not merged: the lane takes it (and the run of the same
                 * range after it) when it is plain, as above. */
                if (j == i + 1) {
                    j = dt_bulk_lane(dt, c, i, n, room, hint);
                    if (j != i) {
                        room -= j - i;
                        continue;
                    }
                    j = i + 1;
                }
#endif
            }
            status = dt_xfer_in(dt, c, ring, x->base, total, slot);
        }
        if (j == i) {
            /* Its ring is full: all its requests stay, in order. */
            for (; j < n && e[j].conn == x->conn; j++)
                ;
            k = dt_xfer_keep(e, k, i, j);
            continue;
        }
        /* The buffer available response (send side). */
        dt_rsp_init(&r, OFL_DT_RSP_BUF_AVAIL, status, x->tag, id);
        r.base = x->base;
        r.number = (uint8_t)(j - i);
        r.len = total;
        (void)dt_emit_hot(dt, &r);
        room--;
        dt->stats.merged += j - i - 1;
        c->xfer_n -= j - i; /* so that it is 0 when none stay listed */
    }
    k = dt_xfer_keep(e, k, i, n);
    dt->xfer_count = k;
    dt_xfer_recount(dt);
}

/* ---- adapter: receive placement (FIG. 12-14, 17, 18) ----------------------- */

static uint32_t dt_popcount(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0F0F0F0Fu;
    return (v * 0x01010101u) >> 24;
}

/*
 * Should c wait for an own or shared buffer (FIG. 18)? Only with a wait
 * limit, and not when fewer than hist_threshold percent of its last
 * hist_window placements found one.
 */
static bool dt_rx_waits(const struct ofl_dt_conn *c)
{
    uint32_t n, mask;

    if (c->cfg.wait_limit == 0)
        return false;
    n = dt_min32(c->hist_n, c->cfg.hist_window);
    if (n == 0)
        return true;
    mask = n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
    return dt_popcount(c->hist & mask) * 100u >=
           (uint32_t)c->cfg.hist_threshold * n;
}

/* The best-fitting bulk buffer for need bytes: the smallest that holds
 * them all, else the largest. *prev gets its predecessor (0 = head). */
static struct ofl_dt_rbuf *dt_bulk_pick(const struct ofl_dt *dt, uint32_t need,
                                        uint32_t *prev)
{
    struct ofl_dt_rbuf *b, *best = NULL;
    uint32_t ref = dt->bulk_head, p = 0, guard;
    bool best_fits = false, fits;

    *prev = 0;
    for (guard = 0; guard < dt->mem.rbuf_cap && ref != 0; guard++) {
        b = &dt->mem.rbuf[ref - 1];
        fits = b->len >= need;
        if (best == NULL || (fits && (!best_fits || b->len < best->len)) ||
            (!fits && !best_fits && b->len > best->len)) {
            best = b;
            best_fits = fits;
            *prev = p;
        }
        p = ref;
        ref = b->next;
    }
    return best;
}

/* Placement class: starved receivers first, then by priority. */
static uint32_t dt_rx_class(const struct ofl_dt *dt, const struct ofl_dt_conn *c,
                            uint64_t now)
{
    bool starved = dt->cfg.starve_time != 0 &&
                   now - c->t_rx_first >= dt->cfg.starve_time;

    return (starved ? 8u : 0u) | c->cfg.priority;
}

static bool dt_rx_live(const struct ofl_dt_conn *c)
{
    return (c->state == OFL_DT_CONN_ESTABLISHED ||
            c->state == OFL_DT_CONN_CLOSING) &&
           c->rx_tail != c->rx_head;
}

/* Serves c's peek buffer: a copy of the first staged bytes (none, status
 * DMA, when the port fails). The caller reserved one slot. */
static void dt_rx_peek(struct ofl_dt *dt, struct ofl_dt_conn *c)
{
    struct ofl_dt_rbuf *p = dt_rbuf(dt, c->peek);
    uint32_t n = dt_min32(p->len, c->rx_tail - c->rx_head);
    struct ofl_dt_desc r;

    dt_rsp_init(&r, OFL_DT_RSP_BUF_RECV, OFL_DT_ST_OK, p->tag,
                dt_conn_id(dt, c));
    r.flags = OFL_DT_F_FINAL | OFL_DT_F_PEEK;
    r.number = 1;
    r.base = p->base;
    r.len = n;
    if (dt_ring_dma_out(dt, dt_rx_ring(dt, c), dt->mem.rx_size, c->rx_head,
                        p->base, n) != OFL_OK) {
        r.len = 0;
        r.status = OFL_DT_ST_DMA;
    }
    dt_cache_invalidate(dt, p->base, n);
    (void)dt_emit(dt, &r);
    dt_rbuf_release(dt, p);
    c->peek = 0;
}

/* Takes bulk buffer b (prev: its predecessor in the bulk list, 0 for the
 * head) off the list and frees its entry. */
static void dt_bulk_unlink(struct ofl_dt *dt, struct ofl_dt_rbuf *b,
                           uint32_t prev)
{
    if (prev == 0)
        dt->bulk_head = b->next;
    else
        dt->mem.rbuf[prev - 1].next = b->next;
    dt_rbuf_release(dt, b);
}

/*
 * The port could not reach own or bulk buffer b of c (prev: b's
 * predecessor in the bulk list): c's open note of it goes out, then b goes
 * back to the host FINAL with status DMA and what it holds (aux = fill),
 * as a flush returns it, and placement goes on with the next buffer. A
 * host buffer it cannot reach stops nobody else. false when the output
 * has no room yet (nothing changed).
 */
static bool dt_rx_buf_fail(struct ofl_dt *dt, struct ofl_dt_conn *c,
                           struct ofl_dt_rbuf *b, uint32_t prev,
                           bool contiguous)
{
    /* Its note waits for the connection's notice, as every note does. */
    if ((contiguous && c->cn_pending != 0) ||
        !dt_reserve(dt, contiguous ? 2u : 1u))
        return false;
    if (contiguous)
        dt_note_emit(dt, c);
    dt_rbuf_return(dt, b, OFL_DT_ST_DMA,
                   b->kind == DT_RB_BULK ? 0 : dt_conn_id(dt, c));
    if (b->kind == DT_RB_BULK) {
        dt_bulk_unlink(dt, b, prev);
    } else {
        dt_rbuf_pop(dt, c);
    }
    return true;
}

/* Places c's staged bytes into host buffers until none are left, no
 * buffer is available, or output room runs out. */
static OFL_NOINLINE enum ofl_err dt_rx_conn(struct ofl_dt *dt, struct ofl_dt_conn *c,
                               uint64_t now)
{
    struct ofl_dt_rbuf *b;
    struct ofl_dt_conn *fifo, *l;
    struct ofl_dt_note *note = &c->note;
    uint32_t guard, staged, n, prev, d, ref;
    bool hit, waited, contiguous;
    enum ofl_err err;

    for (guard = 0; guard < 2 * dt->mem.rbuf_cap + 2; guard++) {
        staged = c->rx_tail - c->rx_head;
        if (staged == 0)
            break;
        if (c->peek != 0) {
            /* A peek answers with the connection's data: like a note it
             * waits for the connection's notice (offload.h: order). */
            if (c->cn_pending != 0 || !dt_reserve(dt, 1))
                break;
            dt_rx_peek(dt, c);
            continue;
        }
        /* The buffer: c's own, else one its group shares, else bulk. */
        fifo = c;
        ref = c->buf_head;
        if (ref != 0 && dt->mem.rbuf[ref - 1].skip != 0) {
            /* Read with an offset: the skipped bytes are consumed. */
            b = &dt->mem.rbuf[ref - 1];
            d = dt_min32(b->skip, staged);
            c->rx_head += d;
            b->skip -= d;
            continue;
        }
        if (ref == 0) {
            /* A group is a listener id: LISTENING until it drains (its
             * shared buffers go back), after which the id finds nothing. */
            l = dt_conn_find(dt, c->group);
            if (l != NULL && l->state == OFL_DT_CONN_LISTENING) {
                fifo = l;
                ref = l->buf_head;
            }
        }
        hit = ref != 0;
        waited = false;
        prev = 0;
        if (hit) {
            b = &dt->mem.rbuf[ref - 1];
        } else {
            waited = dt_rx_waits(c);
            if (waited && now - c->t_rx_first < c->cfg.wait_limit)
                break; /* wait for the host to post one */
            b = dt_bulk_pick(dt, staged, &prev);
            if (b == NULL)
                break;
        }
        contiguous = note->open && b->kind != DT_RB_BULK &&
                     note->base == b->base && note->tag == b->tag &&
                     note->off + note->len == b->fill;
        if (note->open && !contiguous) {
            if (c->cn_pending != 0 || !dt_reserve(dt, dt_note_room(dt, c)) ||
                !dt_note_out(dt, c))
                break; /* its notices must go out in order */
        }
        n = dt_min32(staged, b->len - b->fill);
        err = dt_ring_dma_out(dt, dt_rx_ring(dt, c), dt->mem.rx_size,
                              c->rx_head, b->base + b->fill, n);
        dt_cache_invalidate(dt, b->base + b->fill, n); /* even in part */
        if (err != OFL_OK) {
            /* A shared buffer holds other members' ranges: it stays, and
             * so does c's data (the port's error is returned). */
            if (b->kind == DT_RB_SHARED ||
                !dt_rx_buf_fail(dt, c, b, prev, contiguous))
                return err;
            continue;
        }
        c->rx_head += n;
        if (!note->open) {
            note->open = 1;
            note->base = b->base;
            note->buf_len = b->len;
            note->off = b->fill;
            note->len = 0;
            note->tag = b->tag;
            note->count = 0;
            note->final = 0;
            note->t_first = now;
            note->shared = b->kind == DT_RB_SHARED ? dt_conn_id(dt, fifo) : 0;
        }
        note->len += n;
        if (note->count != 0)
            dt->stats.combined++;
        if (note->count < 255)
            note->count++;
        b->fill += n;
        c->hist = (c->hist << 1) | (hit ? 1u : 0u);
        if (c->hist_n < 32)
            c->hist_n++;
        if (b->kind == DT_RB_BULK) {
            dt->stats.bulk_placed++;
            if (waited)
                dt->stats.waited++;
            if (c->cfg.frag == OFL_DT_FRAG_ALLOW && b->fill < b->len) {
                /* Fragmentation allowed (offload.h, enum ofl_dt_frag;
                 * seed 003 after FIG. 14): the buffer with room becomes
                 * c's own and takes its next placements. A bulk buffer
                 * is picked only when c has no own buffer (ref == 0), so
                 * it heads c's empty list. */
                if (prev == 0)
                    dt->bulk_head = b->next;
                else
                    dt->mem.rbuf[prev - 1].next = b->next;
                b->kind = DT_RB_OWN;
                b->owner = dt_conn_index(dt, c);
                dt_rbuf_push(dt, c, b);
                dt->stats.bulk_kept++;
            } else {
                /* A bulk buffer serves one placement and goes back
                 * whole. */
                note->final = 1;
                dt_bulk_unlink(dt, b, prev);
            }
        } else if (b->fill == b->len) {
            note->final = 1;
            dt_rbuf_pop(dt, fifo);
        }
    }
    return OFL_OK;
}

/* Places staged data of every connection, class by class. */
static enum ofl_err dt_rx_run(struct ofl_dt *dt, uint64_t now)
{
    uint32_t classes = 0, i, cls, seen = 0, live = dt->conn_live;
    struct ofl_dt_conn *c;
    enum ofl_err err = OFL_OK, e;

    /* Once live entries not FREE are seen, the rest are FREE
     * (dt->conn_live is exact): the scan ends there. */
    for (i = 0; i < dt->mem.conn_cap && seen < live; i++) {
        c = &dt->mem.conn[i];
        if (c->state == OFL_DT_CONN_FREE)
            continue;
        seen++;
        if (dt_rx_live(c))
            classes |= 1u << dt_rx_class(dt, c, now);
    }
    /* The classes found, highest first (a class is below 16: at most 16
     * rounds). The loop ends when none is left: most calls find none. */
    for (cls = 15; classes != 0; cls--) {
        if (!(classes & (1u << cls)))
            continue;
        classes &= ~(1u << cls);
        for (i = 0; i < dt->mem.conn_cap; i++) {
            c = &dt->mem.conn[i];
            if (!dt_rx_live(c) || dt_rx_class(dt, c, now) != cls)
                continue;
            /* One connection's failure does not stop the others; the
             * first error is returned. */
            e = dt_rx_conn(dt, c, now);
            if (err == OFL_OK)
                err = e;
        }
    }
    return err;
}

/* Is c's open note due (the notification delay, bounded by notify_max)? */
static bool dt_note_due(const struct ofl_dt_conn *c, uint64_t now)
{
    const struct ofl_dt_note *n = &c->note;
    const struct ofl_dt_conn_cfg *cfg = &c->cfg;
    uint64_t age = now - n->t_first;

    if (n->final || (cfg->notify_max != 0 && age >= cfg->notify_max))
        return true;
    switch (cfg->notify_mode) {
    case OFL_DT_NOTIFY_TIME:
        return age >= cfg->notify_delay;
    case OFL_DT_NOTIFY_BYTES:
        return n->len >= cfg->notify_bytes;
    case OFL_DT_NOTIFY_ADAPTIVE:
        /* No posting measured yet: nothing to adapt to. */
        return c->post_ewma == 0 || age >= c->post_ewma;
    default:
        return true;
    }
}

/* Emits every due receive note whose connection has no notice pending. */
static OFL_NOINLINE void dt_notes_run(struct ofl_dt *dt, uint64_t now)
{
    uint32_t i, seen = 0, live = dt->conn_live;
    struct ofl_dt_conn *c;

    /* The entries not FREE when it starts, and no more: once live of them
     * are seen the rest are FREE (dt->conn_live is exact, and emitting a
     * note takes no entry). */
    for (i = 0; i < dt->mem.conn_cap && seen < live; i++) {
        c = &dt->mem.conn[i];
        if (c->state == OFL_DT_CONN_FREE)
            continue;
        seen++;
        if (!c->note.open || c->cn_pending != 0 || !dt_note_due(c, now))
            continue;
        if (!dt_reserve(dt, dt_note_room(dt, c)) || !dt_note_out(dt, c))
            return;
    }
}

enum ofl_err ofl_dt_service(struct ofl_dt *dt, uint64_t now)
{
    enum ofl_err err;

    if (dt == NULL)
        return OFL_E_ARG;
#if OFL_FAST_PATH && defined(__OPTIMIZE__)
    if (dt->draining != 0 || dt->cancel_run) /* as in ofl_dt_process */
#endif
        dt_drain_run(dt);
    dt_timeouts(dt, now);
    dt_bulk_run(dt, now);
    err = dt_rx_run(dt, now);
    dt_cn_run(dt, now);
    dt_notes_run(dt, now);
    dt_report_run(dt, now);
    return err;
}

enum ofl_err ofl_dt_poll(struct ofl_dt *dt, uint64_t now)
{
    enum ofl_err err, e2;

    if (dt == NULL)
        return OFL_E_ARG;
    err = ofl_dt_process(dt, now, 0xFFFFFFFFu, NULL);
    e2 = ofl_dt_service(dt, now);
    if (err == OFL_OK)
        err = e2;
    e2 = ofl_dt_flush(dt);
    return err != OFL_OK ? err : e2;
}

enum ofl_err ofl_dt_next_action(struct ofl_dt *dt, uint32_t *cursor,
                                uint64_t *id, uint8_t *actions)
{
    uint32_t i;
    struct ofl_dt_conn *c;

    if (dt == NULL || cursor == NULL || id == NULL || actions == NULL)
        return OFL_E_ARG;
    for (i = *cursor; i < dt->mem.conn_cap; i++) {
        c = &dt->mem.conn[i];
        if (c->state != OFL_DT_CONN_FREE && c->actions != 0) {
            *id = dt_conn_id(dt, c);
            *actions = c->actions;
            if (c->actions & OFL_DT_ACT_LISTEN)
                c->fw_listen = 1;
            c->actions = 0;
            *cursor = i + 1;
            return OFL_OK;
        }
    }
    *cursor = 0;
    return OFL_E_DT_EMPTY;
}

enum ofl_err ofl_dt_conn_query(const struct ofl_dt *dt, uint64_t id,
                               struct ofl_dt_conn_info *info)
{
    const struct ofl_dt_conn *c;

    if (dt == NULL || info == NULL)
        return OFL_E_ARG;
    c = dt_conn_find(dt, id);
    if (c == NULL)
        return OFL_E_DT_CONN_UNKNOWN;
    ofl_fill(info, 0, sizeof(*info));
    info->id = id;
    info->group = c->group;
    info->rx_total = c->rx_total;
    info->tx_total = c->tx_total;
    info->rx_held = c->rx_tail - c->rx_head;
    info->tx_queued = c->tx_tail - c->tx_head;
    info->tag = c->tag;
    info->target = c->target;
    info->lport = c->lport;
    info->rport = c->rport;
    ofl_copy(info->raddr, c->raddr, 16);
    info->state = c->state;
    info->proto = c->proto;
    info->priority = c->cfg.priority;
    info->actions = c->actions;
    return OFL_OK;
}

#endif /* OFL_ENABLE_DT */

/* ======================================================================== */
/* pp                                                                       */
/* ======================================================================== */
#if OFL_ENABLE_PP
/*
 * The push-push messaging layer (offload.h, pp). Messages are checked in
 * two passes over the bytes (every check, then the stores), so a refused
 * message writes nothing; table changes likewise check every entry before
 * the first bit moves.
 */

/* ---- messages ----------------------------------------------------------- */

/* Bytes of each type's fixed part, the 4-byte header included (0: an
 * unknown type). */
static uint32_t pp_fixed(uint16_t type)
{
    switch (type) {
    case OFL_PP_BUFFER_RECV_POOL:
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
    case OFL_PP_SEND_DATA:
        return 8;
    case OFL_PP_BUFFER_RECV_POOL_GET:
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        return 12;
    case OFL_PP_CFG_UTIL_REQUEST:
    case OFL_PP_CFG_UTIL_REPLY:
        return 20;
    default:
        return 0;
    }
}

/* Bytes per list entry of a type with a counted list (0: none). */
static uint32_t pp_entry_len(uint16_t type)
{
    switch (type) {
    case OFL_PP_BUFFER_RECV_POOL:
        return OFL_PP_POOL_DESC_LEN;
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
        return OFL_PP_REF_LEN;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        return 4;
    default:
        return 0;
    }
}

static bool pp_has_data(uint16_t type)
{
    return type == OFL_PP_SEND_DATA || type == OFL_PP_CFG_UTIL_REQUEST ||
           type == OFL_PP_CFG_UTIL_REPLY;
}

/* Entry i of a message's list: from the wire bytes at list when list is
 * not NULL, else from m (every caller passes one of the two). */
static void pp_pool_at(const uint8_t *list, const struct ofl_pp_msg *m,
                       uint32_t i, struct ofl_pp_pool_desc *d)
{
    if (list != NULL) {
        const uint8_t *e = list + (size_t)i * OFL_PP_POOL_DESC_LEN;

        d->index = ofl_load_be32(e);
        d->count = ofl_load_be32(e + 4);
        d->size = ofl_load_be32(e + 8);
        d->handle = ofl_load_be32(e + 12);
        d->va = ofl_load_be64(e + 16);
        d->ctx = ofl_load_be64(e + 24);
    } else {
        ofl_copy(d, &m->u.pool[i], sizeof(*d));
    }
}

static void pp_ref_at(const uint8_t *list, const struct ofl_pp_msg *m,
                      uint32_t i, struct ofl_pp_ref *r)
{
    if (list != NULL) {
        const uint8_t *e = list + (size_t)i * OFL_PP_REF_LEN;

        r->pool = ofl_load_be32(e);
        r->elem = ofl_load_be32(e + 4);
        r->len = ofl_load_be32(e + 8);
    } else {
        ofl_copy(r, &m->u.ref[i], sizeof(*r));
    }
}

static uint32_t pp_flushref_at(const uint8_t *list, const struct ofl_pp_msg *m,
                               uint32_t i)
{
    if (list != NULL)
        return ofl_load_be32(list + (size_t)i * 4);
    return m->u.pool_ref[i];
}

/* A pool descriptor's own fields (BufferRecvPool). */
static enum ofl_err pp_check_desc(const struct ofl_pp_pool_desc *d)
{
    uint64_t bytes;

    if ((d->index & OFL_PP_POOL_OWNER) != 0 || d->count == 0 || d->size == 0)
        return OFL_E_PP_FIELD;
    bytes = (uint64_t)d->count * d->size;
    if (bytes - 1 > ~d->va) /* va + bytes - 1 wraps 2^64 */
        return OFL_E_PP_FIELD;
    return OFL_OK;
}

/* Runs [a, a + n) and [b, b + m) of 32-bit element numbers overlap. */
static bool pp_runs_overlap(uint32_t a, uint32_t n, uint32_t b, uint32_t m)
{
    return (uint64_t)a < (uint64_t)b + m && (uint64_t)b < (uint64_t)a + n;
}

/*
 * The list checks shared by the encoder (list NULL: entries from m) and
 * the decoder (entries from the wire): each entry's fields, then
 * duplicates. count is already within 1 .. OFL_PP_MSG_ITEMS.
 */
static enum ofl_err pp_check_list(uint16_t type, const uint8_t *list,
                                  const struct ofl_pp_msg *m, uint32_t count)
{
    uint32_t i, j;

    for (i = 0; i < count; i++) {
        if (type == OFL_PP_BUFFER_RECV_POOL) {
            struct ofl_pp_pool_desc d;
            enum ofl_err err;

            pp_pool_at(list, m, i, &d);
            err = pp_check_desc(&d);
            if (err != OFL_OK)
                return err;
        } else if (type != OFL_PP_BUFFER_POOL_FLUSH_REQUEST) {
            /* (every 32-bit value is a flush pool reference) */
            struct ofl_pp_ref r;

            pp_ref_at(list, m, i, &r);
            if ((r.pool & OFL_PP_POOL_OWNER) != 0 || r.len == 0)
                return OFL_E_PP_FIELD;
            if (type == OFL_PP_BUFFER_RECV_POOL_UPDATE &&
                (uint64_t)r.elem + r.len > 0x100000000ull)
                return OFL_E_PP_FIELD;
        }
    }
    for (i = 0; i < count; i++)
        for (j = i + 1; j < count; j++) {
            bool dup;

            if (type == OFL_PP_BUFFER_RECV_POOL) {
                struct ofl_pp_pool_desc a, b;

                pp_pool_at(list, m, i, &a);
                pp_pool_at(list, m, j, &b);
                dup = a.index == b.index;
            } else if (type == OFL_PP_BUFFER_POOL_FLUSH_REQUEST) {
                dup = pp_flushref_at(list, m, i) == pp_flushref_at(list, m, j);
            } else {
                struct ofl_pp_ref a, b;

                pp_ref_at(list, m, i, &a);
                pp_ref_at(list, m, j, &b);
                if (type == OFL_PP_BUFFER_RECV_POOL_UPDATE)
                    dup = a.pool == b.pool &&
                          pp_runs_overlap(a.elem, a.len, b.elem, b.len);
                else
                    dup = a.pool == b.pool && a.elem == b.elem;
            }
            if (dup)
                return OFL_E_PP_DUPLICATE;
        }
    return OFL_OK;
}

/* Bytes of m's encoding (0: unknown type or list count out of range),
 * in 64 bits so that fixed + data_len cannot wrap a 32-bit size_t. The
 * fixed part (header included) is pp_fixed; a list follows it, or data. */
static uint64_t pp_msg_bytes(const struct ofl_pp_msg *m)
{
    uint32_t fixed = pp_fixed(m->type), elen = pp_entry_len(m->type);

    if (fixed == 0)
        return 0;
    if (elen != 0) {
        if (m->count == 0 || m->count > OFL_PP_MSG_ITEMS)
            return 0;
        return (uint64_t)fixed + (uint64_t)m->count * elen;
    }
    if (pp_has_data(m->type))
        return (uint64_t)fixed + m->data_len;
    return fixed;
}

size_t ofl_pp_msg_size(const struct ofl_pp_msg *m)
{
    uint64_t n = m == NULL ? 0 : pp_msg_bytes(m);

    return n > (uint64_t)OFL_SIZE_MAX ? 0 : (size_t)n; /* 32-bit size_t: no wrap */
}

enum ofl_err ofl_pp_msg_encode(const struct ofl_pp_msg *m, uint8_t *out,
                               size_t cap, size_t *len)
{
    struct ofl_wr w;
    uint32_t elen, i;
    uint64_t n;
    enum ofl_err err;

    if (m == NULL || len == NULL || (out == NULL && cap != 0))
        return OFL_E_ARG;
    if (pp_fixed(m->type) == 0)
        return OFL_E_PP_TYPE;
    elen = pp_entry_len(m->type);
    if (elen != 0) {
        if (m->count == 0 || m->count > OFL_PP_MSG_ITEMS)
            return OFL_E_PP_COUNT;
        err = pp_check_list(m->type, NULL, m, m->count);
        if (err != OFL_OK)
            return err;
    }
    if (m->type == OFL_PP_BUFFER_RECV_POOL_GET &&
        (m->elem_count == 0 || m->elem_size == 0))
        return OFL_E_PP_FIELD;
    if (m->type == OFL_PP_SEND_DATA && m->data_len == 0)
        return OFL_E_PP_FIELD;
    if (pp_has_data(m->type) && m->data_len != 0 && m->data == NULL)
        return OFL_E_ARG;
    n = pp_msg_bytes(m);
    if (n > cap)
        return OFL_E_SIZE; /* the writer below stays inside out[0 .. n) */
    ofl_wr_init(&w, out, cap);
    ofl_wr_be16(&w, m->type);
    ofl_wr_be16(&w, OFL_PP_VERSION);
    switch (m->type) {
    case OFL_PP_BUFFER_RECV_POOL:
        ofl_wr_be16(&w, m->count);
        ofl_wr_be16(&w, 0);
        for (i = 0; i < m->count; i++) {
            const struct ofl_pp_pool_desc *d = &m->u.pool[i];

            ofl_wr_be32(&w, d->index);
            ofl_wr_be32(&w, d->count);
            ofl_wr_be32(&w, d->size);
            ofl_wr_be32(&w, d->handle);
            ofl_wr_be64(&w, d->va);
            ofl_wr_be64(&w, d->ctx);
        }
        break;
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
        ofl_wr_be16(&w, m->count);
        ofl_wr_be16(&w, 0);
        for (i = 0; i < m->count; i++) {
            ofl_wr_be32(&w, m->u.ref[i].pool);
            ofl_wr_be32(&w, m->u.ref[i].elem);
            ofl_wr_be32(&w, m->u.ref[i].len);
        }
        break;
    case OFL_PP_BUFFER_RECV_POOL_GET:
        ofl_wr_be32(&w, m->elem_count);
        ofl_wr_be32(&w, m->elem_size);
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        ofl_wr_be64(&w, m->ctx);
        for (i = 0; i < m->count; i++)
            ofl_wr_be32(&w, m->u.pool_ref[i]);
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        ofl_wr_be64(&w, m->ctx);
        break;
    case OFL_PP_SEND_DATA:
        ofl_wr_be32(&w, m->data_len);
        ofl_wr_bytes(&w, m->data, m->data_len);
        break;
    default: /* CfgUtil request and reply */
        ofl_wr_be64(&w, m->ctx);
        ofl_wr_be16(&w, m->code);
        ofl_wr_be16(&w, m->type == OFL_PP_CFG_UTIL_REPLY ? m->status : 0);
        ofl_wr_be32(&w, m->data_len);
        ofl_wr_bytes(&w, m->data, m->data_len);
        break;
    }
    *len = w.off;
    return OFL_OK;
}

/* Every structural and field check of a received message; *type and
 * *count receive what the stores need. Writes nothing else. */
static enum ofl_err pp_decode_check(const uint8_t *p, size_t len,
                                    uint16_t *type, uint32_t *count)
{
    uint32_t fixed, elen, n = 0, size;
    uint16_t t;

    if (len < OFL_PP_MSG_HDR)
        return OFL_E_PP_TRUNCATED;
    t = ofl_load_be16(p);
    if (ofl_load_be16(p + 2) != OFL_PP_VERSION)
        return OFL_E_PP_VERSION;
    fixed = pp_fixed(t);
    if (fixed == 0)
        return OFL_E_PP_TYPE;
    if (len < fixed)
        return OFL_E_PP_TRUNCATED;
    elen = pp_entry_len(t);
    switch (t) {
    case OFL_PP_BUFFER_RECV_POOL:
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
        n = ofl_load_be16(p + 4);
        if (ofl_load_be16(p + 6) != 0)
            return OFL_E_PP_RESERVED;
        if (n == 0 || n > OFL_PP_MSG_ITEMS)
            return OFL_E_PP_COUNT;
        if (len - fixed != (size_t)n * elen)
            return OFL_E_PP_LENGTH;
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        if (((len - fixed) & 3) != 0)
            return OFL_E_PP_LENGTH;
        if (len - fixed == 0 || len - fixed > (size_t)OFL_PP_MSG_ITEMS * 4)
            return OFL_E_PP_COUNT;
        n = (uint32_t)((len - fixed) >> 2);
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
    case OFL_PP_BUFFER_RECV_POOL_GET:
        if (len != fixed)
            return OFL_E_PP_LENGTH;
        if (t == OFL_PP_BUFFER_RECV_POOL_GET &&
            (ofl_load_be32(p + 4) == 0 || ofl_load_be32(p + 8) == 0))
            return OFL_E_PP_FIELD;
        break;
    case OFL_PP_SEND_DATA:
        size = ofl_load_be32(p + 4);
        if (len - fixed != size)
            return OFL_E_PP_LENGTH;
        if (size == 0)
            return OFL_E_PP_FIELD;
        break;
    default: /* CfgUtil */
        if (t == OFL_PP_CFG_UTIL_REQUEST && ofl_load_be16(p + 14) != 0)
            return OFL_E_PP_RESERVED;
        if (len - fixed != ofl_load_be32(p + 16))
            return OFL_E_PP_LENGTH;
        break;
    }
    if (elen != 0) {
        enum ofl_err err = pp_check_list(t, p + fixed, NULL, n);

        if (err != OFL_OK)
            return err;
    }
    *type = t;
    *count = n;
    return OFL_OK;
}

enum ofl_err ofl_pp_msg_decode(const uint8_t *p, size_t len,
                               struct ofl_pp_msg *m)
{
    uint16_t t = 0;
    uint32_t n = 0, i, fixed;
    const uint8_t *list;
    enum ofl_err err;

    if (m == NULL || (p == NULL && len != 0))
        return OFL_E_ARG;
    err = pp_decode_check(p, len, &t, &n);
    if (err != OFL_OK)
        return err;
    fixed = pp_fixed(t);
    list = p + fixed;
    ofl_fill(m, 0, sizeof(*m));
    m->type = t;
    m->count = (uint16_t)n;
    switch (t) {
    case OFL_PP_BUFFER_RECV_POOL:
        for (i = 0; i < n; i++)
            pp_pool_at(list, NULL, i, &m->u.pool[i]);
        break;
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
    case OFL_PP_BUFFER_RDMA_INDICATE:
        for (i = 0; i < n; i++)
            pp_ref_at(list, NULL, i, &m->u.ref[i]);
        break;
    case OFL_PP_BUFFER_RECV_POOL_GET:
        m->elem_count = ofl_load_be32(p + 4);
        m->elem_size = ofl_load_be32(p + 8);
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        m->ctx = ofl_load_be64(p + 4);
        for (i = 0; i < n; i++)
            m->u.pool_ref[i] = pp_flushref_at(list, NULL, i);
        break;
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        m->ctx = ofl_load_be64(p + 4);
        break;
    case OFL_PP_SEND_DATA:
        m->data_len = ofl_load_be32(p + 4);
        m->data = list;
        break;
    default: /* CfgUtil */
        m->ctx = ofl_load_be64(p + 4);
        m->code = ofl_load_be16(p + 12);
        m->status = t == OFL_PP_CFG_UTIL_REPLY ? ofl_load_be16(p + 14) : 0;
        m->data_len = ofl_load_be32(p + 16);
        m->data = m->data_len != 0 ? list : NULL;
        break;
    }
    return OFL_OK;
}

const char *ofl_pp_type_name(uint16_t type)
{
    static const char *const names[] = {
        "?", "BufferRecvPool", "BufferRecvPoolGet", "BufferRecvPoolUpdate",
        "BufferPoolFlushRequest", "BufferPoolFlushReply", "SendData",
        "BufferRDMAIndicate", "CfgUtilRequest", "CfgUtilReply"};

    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

/* ---- transfer indication ----------------------------------------------- */

enum ofl_pp_ind ofl_pp_indication(uint32_t pool, uint32_t elem, uint32_t len,
                                  uint32_t *imm)
{
    if (pool > 0xFF || elem > 0xFF || len == 0 || len > OFL_PP_IMM_LEN_MAX)
        return OFL_PP_IND_MSG;
    if (imm != NULL)
        *imm = (pool << 24) | (elem << 16) | (len & 0xFFFFu);
    return OFL_PP_IND_IMM;
}

enum ofl_err ofl_pp_imm_decode(uint64_t imm, struct ofl_pp_ref *ref)
{
    uint32_t v = (uint32_t)imm;

    if (ref == NULL)
        return OFL_E_ARG;
    if ((imm >> 32) != 0)
        return OFL_E_PP_RESERVED;
    ref->pool = v >> 24;
    ref->elem = (v >> 16) & 0xFFu;
    ref->len = (v & 0xFFFFu) != 0 ? (v & 0xFFFFu) : OFL_PP_IMM_LEN_MAX;
    return OFL_OK;
}

/* ---- pool tables --------------------------------------------------------- */

uint32_t ofl_pp_bitmap_words(uint32_t cap, uint32_t max_elems)
{
    uint64_t words;

    if (cap == 0 || max_elems == 0 || cap > (1u << 24) ||
        max_elems > (1u << 24))
        return 0;
    words = (uint64_t)cap * ((max_elems + 31) >> 5);
    return words > 0xFFFFFFFFull ? 0 : (uint32_t)words;
}

enum ofl_err ofl_pp_pools_init(struct ofl_pp_pools *t, enum ofl_pp_role role,
                               const struct ofl_pp_pools_mem *mem)
{
    uint32_t need;

    if (t == NULL || mem == NULL || mem->slot == NULL || mem->bits == NULL ||
        (role != OFL_PP_TARGET && role != OFL_PP_INITIATOR))
        return OFL_E_ARG;
    need = ofl_pp_bitmap_words(mem->cap, mem->max_elems);
    if (need == 0)
        return OFL_E_ARG;
    if (mem->nwords < need)
        return OFL_E_SIZE;
    ofl_fill(t, 0, sizeof(*t));
    t->slot = mem->slot;
    t->bits = mem->bits;
    t->cap = mem->cap;
    t->max_elems = mem->max_elems;
    t->words = (mem->max_elems + 31) >> 5;
    t->role = (uint8_t)role;
    ofl_fill(mem->slot, 0, (size_t)mem->cap * sizeof(mem->slot[0]));
    ofl_fill(mem->bits, 0, (size_t)need * sizeof(mem->bits[0]));
    return OFL_OK;
}

static uint32_t *pp_words(const struct ofl_pp_pools *t, uint32_t pool)
{
    return t->bits + (size_t)pool * t->words;
}

static bool pp_bit(const struct ofl_pp_pools *t, uint32_t pool, uint32_t elem)
{
    return ((pp_words(t, pool)[elem >> 5] >> (elem & 31)) & 1u) != 0;
}

static void pp_bit_set(struct ofl_pp_pools *t, uint32_t pool, uint32_t elem,
                       bool on)
{
    uint32_t *w = &pp_words(t, pool)[elem >> 5];
    uint32_t b = 1u << (elem & 31);

    *w = on ? (*w | b) : (*w & ~b);
}

/* A pool slot becomes EMPTY: every element forgotten. Only a pool with
 * consumed elements has bits to clear, and none past its count: the
 * bitmap of an EMPTY slot is clear, so the cost is O(1), or O(count / 32)
 * words for a pool that had elements consumed. */
static void pp_empty(struct ofl_pp_pools *t, uint32_t pool)
{
    struct ofl_pp_pool *s = &t->slot[pool];

    if (s->state != OFL_PP_POOL_EMPTY)
        t->active--;
    if (s->state == OFL_PP_POOL_FLUSHING)
        t->flushing--;
    if (s->consumed != 0)
        ofl_fill(pp_words(t, pool), 0,
                 (size_t)((s->d.count + 31u) >> 5) * sizeof(uint32_t));
    ofl_fill(s, 0, sizeof(*s));
}

/* The slot a pool reference names, or the error (range, EMPTY). */
static enum ofl_err pp_known(const struct ofl_pp_pools *t, uint32_t pool)
{
    if (pool >= t->cap)
        return OFL_E_PP_POOL_INDEX;
    if (t->slot[pool].state == OFL_PP_POOL_EMPTY)
        return OFL_E_PP_POOL_UNKNOWN;
    return OFL_OK;
}

enum ofl_err ofl_pp_pools_add(struct ofl_pp_pools *t,
                              const struct ofl_pp_pool_desc *d, uint32_t n)
{
    uint32_t i, j;

    if (t == NULL || t->slot == NULL || d == NULL)
        return OFL_E_ARG;
    if (n == 0 || n > OFL_PP_MSG_ITEMS)
        return OFL_E_PP_COUNT;
    for (i = 0; i < n; i++) {
        enum ofl_err err = pp_check_desc(&d[i]);

        if (err != OFL_OK)
            return err;
        if (d[i].index >= t->cap)
            return OFL_E_PP_POOL_INDEX;
        if (t->slot[d[i].index].state != OFL_PP_POOL_EMPTY)
            return OFL_E_PP_POOL_BUSY;
        if (d[i].count > t->max_elems)
            return OFL_E_PP_POOL_TOO_BIG;
        for (j = 0; j < i; j++)
            if (d[j].index == d[i].index)
                return OFL_E_PP_DUPLICATE;
    }
    for (i = 0; i < n; i++) {
        struct ofl_pp_pool *s = &t->slot[d[i].index];

        pp_empty(t, d[i].index);
        ofl_copy(&s->d, &d[i], sizeof(s->d));
        s->state = OFL_PP_POOL_ACTIVE;
        t->active++;
    }
    return OFL_OK;
}

/* Checks (and with commit, applies) n consumptions. */
static enum ofl_err pp_consume(struct ofl_pp_pools *t,
                               const struct ofl_pp_ref *ref, uint32_t n,
                               bool commit)
{
    uint32_t i, j;

    if (n == 0 || n > OFL_PP_MSG_ITEMS)
        return OFL_E_PP_COUNT;
    for (i = 0; i < n && !commit; i++) {
        const struct ofl_pp_pool *s;
        enum ofl_err err = pp_known(t, ref[i].pool);

        if (err != OFL_OK)
            return err;
        s = &t->slot[ref[i].pool];
        if (t->role == OFL_PP_INITIATOR && s->state == OFL_PP_POOL_FLUSHING)
            return OFL_E_PP_FLUSHING;
        if (ref[i].elem >= s->d.count)
            return OFL_E_PP_ELEMENT;
        if (ref[i].len == 0)
            return OFL_E_PP_FIELD;
        if (ref[i].len > s->d.size)
            return OFL_E_PP_TOO_LONG;
        if (pp_bit(t, ref[i].pool, ref[i].elem))
            return OFL_E_PP_CONSUMED;
        for (j = 0; j < i; j++)
            if (ref[j].pool == ref[i].pool && ref[j].elem == ref[i].elem)
                return OFL_E_PP_DUPLICATE;
    }
    for (i = 0; i < n && commit; i++) {
        pp_bit_set(t, ref[i].pool, ref[i].elem, true);
        t->slot[ref[i].pool].consumed++;
    }
    return OFL_OK;
}

enum ofl_err ofl_pp_pools_consume(struct ofl_pp_pools *t,
                                  const struct ofl_pp_ref *ref, uint32_t n)
{
    enum ofl_err err;

    if (t == NULL || t->slot == NULL || ref == NULL)
        return OFL_E_ARG;
    err = pp_consume(t, ref, n, false);
    return err != OFL_OK ? err : pp_consume(t, ref, n, true);
}

/*
 * Bits [first, first + len) of w, a word at a time: whether all are set,
 * and with clear, cleared (first + len <= 2^24: no wrap). Cost: len / 32 + 2
 * words.
 */
static bool pp_run_bits(uint32_t *w, uint32_t first, uint32_t len, bool clear)
{
    uint32_t end = first + len;

    while (first < end) {
        uint32_t lo = first & 31u, n = 32u - lo, mask;

        if (n > end - first)
            n = end - first;
        mask = (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << lo;
        if (clear)
            w[first >> 5] &= ~mask;
        else if ((w[first >> 5] & mask) != mask)
            return false;
        first += n;
    }
    return true;
}

enum ofl_err ofl_pp_pools_release(struct ofl_pp_pools *t,
                                  const struct ofl_pp_ref *run, uint32_t n)
{
    uint32_t i, j;

    if (t == NULL || t->slot == NULL || run == NULL)
        return OFL_E_ARG;
    if (n == 0 || n > OFL_PP_MSG_ITEMS)
        return OFL_E_PP_COUNT;
    /* First what the message alone decides, against the slots: no run
     * reaches the bitmap until every run passed (issue 26 item 6). */
    for (i = 0; i < n; i++) {
        const struct ofl_pp_pool *s;
        enum ofl_err err = pp_known(t, run[i].pool);
        uint32_t given = run[i].len;

        if (err != OFL_OK)
            return err;
        s = &t->slot[run[i].pool];
        if (run[i].len == 0)
            return OFL_E_PP_FIELD;
        if ((uint64_t)run[i].elem + run[i].len > s->d.count)
            return OFL_E_PP_ELEMENT;
        for (j = 0; j < i; j++) {
            if (run[j].pool != run[i].pool)
                continue;
            if (pp_runs_overlap(run[j].elem, run[j].len, run[i].elem,
                                run[i].len))
                return OFL_E_PP_DUPLICATE;
            given += run[j].len; /* disjoint runs inside one pool: no wrap */
        }
        /* A pool cannot give back more elements than it has consumed. */
        if (given > s->consumed)
            return OFL_E_PP_NOT_CONSUMED;
    }
    for (i = 0; i < n; i++)
        if (!pp_run_bits(pp_words(t, run[i].pool), run[i].elem, run[i].len,
                         false))
            return OFL_E_PP_NOT_CONSUMED;
    for (i = 0; i < n; i++) {
        (void)pp_run_bits(pp_words(t, run[i].pool), run[i].elem, run[i].len,
                          true);
        t->slot[run[i].pool].consumed -= run[i].len;
    }
    return OFL_OK;
}

enum ofl_err ofl_pp_pools_pick(const struct ofl_pp_pools *t, uint32_t len,
                               struct ofl_pp_ref *ref)
{
    uint32_t p, e;

    if (t == NULL || t->slot == NULL || ref == NULL || len == 0)
        return OFL_E_ARG;
    for (p = 0; p < t->cap; p++) {
        const struct ofl_pp_pool *s = &t->slot[p];
        const uint32_t *bits = pp_words(t, p);

        if (s->state != OFL_PP_POOL_ACTIVE || s->d.size < len)
            continue;
        /* count <= max_elems bounds the scan; a full word is skipped
         * whole, a full pool ends the scan */
        for (e = 0; e < s->d.count; e++) {
            if ((e & 31) == 0 && bits[e >> 5] == 0xFFFFFFFFu) {
                e += 31;
                continue;
            }
            if (((bits[e >> 5] >> (e & 31)) & 1u) == 0) {
                ref->pool = p;
                ref->elem = e;
                ref->len = len;
                return OFL_OK;
            }
        }
    }
    return OFL_E_PP_EXHAUSTED;
}

bool ofl_pp_pools_consumed(const struct ofl_pp_pools *t, uint32_t pool,
                           uint32_t elem)
{
    if (t == NULL || pool >= t->cap ||
        t->slot[pool].state == OFL_PP_POOL_EMPTY ||
        elem >= t->slot[pool].d.count)
        return false;
    return pp_bit(t, pool, elem);
}

/* ---- the connection ------------------------------------------------------- */

enum ofl_pp_conn_state ofl_pp_conn_next(enum ofl_pp_conn_state from,
                                        enum ofl_pp_conn_event ev)
{
#define PX OFL_PP_STATES
    static const uint8_t next[OFL_PP_STATES][OFL_PP_EVENTS] = {
        /* START         CLOSE            ALL_EMPTY      FAIL */
        {OFL_PP_READY, OFL_PP_CLOSED, PX, OFL_PP_ERROR},       /* DOWN */
        {PX, OFL_PP_FLUSHING, PX, OFL_PP_ERROR},               /* READY */
        {PX, OFL_PP_FLUSHING, OFL_PP_CLOSED, OFL_PP_ERROR},    /* FLUSHING */
        {PX, OFL_PP_CLOSED, PX, OFL_PP_ERROR},                 /* CLOSED */
        {PX, PX, PX, OFL_PP_ERROR}};                           /* ERROR */
#undef PX

    if ((uint32_t)from >= OFL_PP_STATES || (uint32_t)ev >= OFL_PP_EVENTS)
        return OFL_PP_STATES;
    return (enum ofl_pp_conn_state)next[from][ev];
}

const char *ofl_pp_conn_state_name(enum ofl_pp_conn_state s)
{
    static const char *const names[OFL_PP_STATES] = {
        "DOWN", "READY", "FLUSHING", "CLOSED", "ERROR"};

    return (uint32_t)s < OFL_PP_STATES ? names[s] : "?";
}

static uint32_t pp_cell_shift(uint32_t cell_size);

/* A cell channel as ofl_pp_cells_init leaves it (or none). */
static bool pp_cells_ok(const struct ofl_pp_cells *c)
{
    return c == NULL ||
           (c->rx.buf != NULL && c->rx.cap != 0 &&
            pp_cell_shift(c->cell_size) != 0 &&
            c->cell_size == c->rx.cell_size);
}

enum ofl_err ofl_pp_conn_init(struct ofl_pp_conn *conn,
                              const struct ofl_pp_conn_cfg *cfg)
{
    struct ofl_pp_pools rx, tx;
    enum ofl_err err;

    if (conn == NULL || cfg == NULL ||
        (cfg->ctrl == NULL) != (cfg->data == NULL) ||
        (cfg->ctrl != NULL && cfg->ctrl == cfg->data) ||
        !pp_cells_ok(cfg->cells[OFL_PP_CTRL]) ||
        !pp_cells_ok(cfg->cells[OFL_PP_DATA]) ||
        (cfg->cells[OFL_PP_CTRL] != NULL &&
         cfg->cells[OFL_PP_CTRL] == cfg->cells[OFL_PP_DATA]))
        return OFL_E_ARG;
    err = ofl_pp_pools_init(&rx, OFL_PP_TARGET, &cfg->rx);
    if (err == OFL_OK)
        err = ofl_pp_pools_init(&tx, OFL_PP_INITIATOR, &cfg->tx);
    if (err != OFL_OK)
        return err;
    ofl_fill(conn, 0, sizeof(*conn));
    conn->ctrl = cfg->ctrl;
    conn->data = cfg->data;
    ofl_copy(&conn->rx, &rx, sizeof(rx));
    ofl_copy(&conn->tx, &tx, sizeof(tx));
    conn->state = OFL_PP_DOWN;
    conn->cells[OFL_PP_CTRL] = cfg->cells[OFL_PP_CTRL];
    conn->cells[OFL_PP_DATA] = cfg->cells[OFL_PP_DATA];
    return OFL_OK;
}

/* Moves conn along the table; OFL_E_PP_CONN_STATE when refused. */
static enum ofl_err pp_conn_event(struct ofl_pp_conn *conn,
                                  enum ofl_pp_conn_event ev)
{
    enum ofl_pp_conn_state to =
        ofl_pp_conn_next((enum ofl_pp_conn_state)conn->state, ev);

    if (to == OFL_PP_STATES)
        return OFL_E_PP_CONN_STATE;
    conn->state = (uint8_t)to;
    return OFL_OK;
}

/* ALL_EMPTY: a FLUSHING connection whose tables are empty is CLOSED. */
static void pp_conn_settle(struct ofl_pp_conn *conn)
{
    if (conn->state == OFL_PP_FLUSHING && conn->rx.active == 0 &&
        conn->tx.active == 0)
        (void)pp_conn_event(conn, OFL_PP_EV_ALL_EMPTY);
}

static bool pp_conn_live(const struct ofl_pp_conn *conn)
{
    return conn->state == OFL_PP_READY || conn->state == OFL_PP_FLUSHING;
}

enum ofl_err ofl_pp_conn_start(struct ofl_pp_conn *conn)
{
    if (conn == NULL)
        return OFL_E_ARG;
    if (conn->state != OFL_PP_DOWN ||
        (conn->ctrl != NULL && (conn->ctrl->state != OFL_QP_RTS ||
                                conn->data->state != OFL_QP_RTS)))
        return OFL_E_PP_CONN_STATE;
    return pp_conn_event(conn, OFL_PP_EV_START);
}

enum ofl_err ofl_pp_conn_close(struct ofl_pp_conn *conn)
{
    enum ofl_err err;

    if (conn == NULL)
        return OFL_E_ARG;
    err = pp_conn_event(conn, OFL_PP_EV_CLOSE);
    if (err == OFL_OK)
        pp_conn_settle(conn);
    return err;
}

void ofl_pp_conn_fail(struct ofl_pp_conn *conn)
{
    if (conn != NULL)
        (void)pp_conn_event(conn, OFL_PP_EV_FAIL);
}

enum ofl_err ofl_pp_advertise(struct ofl_pp_conn *conn,
                              const struct ofl_pp_pool_desc *d, uint32_t n,
                              struct ofl_pp_msg *out)
{
    enum ofl_err err;
    uint32_t i;

    if (conn == NULL || out == NULL)
        return OFL_E_ARG;
    if (conn->state != OFL_PP_READY)
        return OFL_E_PP_CONN_STATE;
    err = ofl_pp_pools_add(&conn->rx, d, n);
    if (err != OFL_OK)
        return err;
    ofl_fill(out, 0, sizeof(*out));
    out->type = OFL_PP_BUFFER_RECV_POOL;
    out->count = (uint16_t)n;
    for (i = 0; i < n; i++)
        ofl_copy(&out->u.pool[i], &d[i], sizeof(d[i]));
    return OFL_OK;
}

enum ofl_err ofl_pp_replenish(struct ofl_pp_conn *conn,
                              const struct ofl_pp_ref *run, uint32_t n,
                              struct ofl_pp_msg *out)
{
    enum ofl_err err;
    uint32_t i;

    if (conn == NULL || out == NULL)
        return OFL_E_ARG;
    if (!pp_conn_live(conn))
        return OFL_E_PP_CONN_STATE;
    err = ofl_pp_pools_release(&conn->rx, run, n);
    if (err != OFL_OK)
        return err;
    ofl_fill(out, 0, sizeof(*out));
    out->type = OFL_PP_BUFFER_RECV_POOL_UPDATE;
    out->count = (uint16_t)n;
    for (i = 0; i < n; i++)
        ofl_copy(&out->u.ref[i], &run[i], sizeof(run[i]));
    return OFL_OK;
}

/* Pools of t this end is flushing under ctx; emptied when commit. Only
 * ofl_pp_flush makes a pool FLUSHING (a peer's request empties it at
 * once), so every FLUSHING pool is one this end asked to flush. */
static uint32_t pp_flush_done(struct ofl_pp_pools *t, uint64_t ctx,
                              bool commit)
{
    uint32_t p, n = 0, seen = 0, flushing = t->flushing;

    /* The scan ends once every FLUSHING pool was seen: O(1) when this end
     * has none, else at most cap slots (caller-bounded). */
    for (p = 0; p < t->cap && seen < flushing; p++) {
        const struct ofl_pp_pool *s = &t->slot[p];

        if (s->state != OFL_PP_POOL_FLUSHING)
            continue;
        seen++;
        if (s->flush_ctx == ctx) {
            n++;
            if (commit)
                pp_empty(t, p);
        }
    }
    return n;
}

enum ofl_err ofl_pp_flush(struct ofl_pp_conn *conn, bool own,
                          const uint32_t *pool, uint32_t n, uint64_t ctx,
                          struct ofl_pp_msg *out)
{
    struct ofl_pp_pools *t;
    uint32_t i, j;

    if (conn == NULL || out == NULL || pool == NULL)
        return OFL_E_ARG;
    if (!pp_conn_live(conn))
        return OFL_E_PP_CONN_STATE;
    if (n == 0 || n > OFL_PP_MSG_ITEMS)
        return OFL_E_PP_COUNT;
    t = own ? &conn->rx : &conn->tx;
    for (i = 0; i < n; i++) {
        enum ofl_err err = pp_known(t, pool[i]);

        if (err != OFL_OK)
            return err;
        if (t->slot[pool[i]].state == OFL_PP_POOL_FLUSHING)
            return OFL_E_PP_FLUSHING;
        for (j = 0; j < i; j++)
            if (pool[j] == pool[i])
                return OFL_E_PP_DUPLICATE;
    }
    /* One reply empties every pool flushing under its ctx: a ctx still
     * pending would let one request's reply end another's flush. */
    if (pp_flush_done(&conn->rx, ctx, false) +
            pp_flush_done(&conn->tx, ctx, false) != 0)
        return OFL_E_PP_DUPLICATE;
    ofl_fill(out, 0, sizeof(*out));
    out->type = OFL_PP_BUFFER_POOL_FLUSH_REQUEST;
    out->ctx = ctx;
    out->count = (uint16_t)n;
    for (i = 0; i < n; i++) {
        struct ofl_pp_pool *s = &t->slot[pool[i]];

        s->state = OFL_PP_POOL_FLUSHING;
        t->flushing++;
        s->flush_local = 1;
        s->flush_ctx = ctx;
        out->u.pool_ref[i] = own ? (pool[i] | OFL_PP_POOL_OWNER) : pool[i];
    }
    return OFL_OK;
}

/* A FlushRequest from the peer: bit 31 set names the peer's own pool (our
 * tx table), clear names ours (rx). A pool this end does not know (never
 * advertised to it, refused, beyond its table) is as good as flushed: the
 * rest are emptied and the request is answered, or the peer would wait in
 * FLUSHING for ever. */
static void pp_flush_peer(struct ofl_pp_conn *conn, const struct ofl_pp_msg *m)
{
    uint32_t i;

    for (i = 0; i < m->count; i++) {
        uint32_t ref = m->u.pool_ref[i];
        struct ofl_pp_pools *t =
            (ref & OFL_PP_POOL_OWNER) != 0 ? &conn->tx : &conn->rx;

        if (pp_known(t, ref & ~OFL_PP_POOL_OWNER) == OFL_OK)
            pp_empty(t, ref & ~OFL_PP_POOL_OWNER);
    }
}

/* Applies a decoded message to the tables (all or nothing). */
static enum ofl_err pp_conn_apply(struct ofl_pp_conn *conn,
                                  const struct ofl_pp_msg *m,
                                  struct ofl_pp_msg *reply)
{
    enum ofl_err err = OFL_OK;

    switch (m->type) {
    case OFL_PP_BUFFER_RECV_POOL:
        if (conn->state != OFL_PP_READY)
            return OFL_E_PP_CONN_STATE;
        return ofl_pp_pools_add(&conn->tx, m->u.pool, m->count);
    case OFL_PP_BUFFER_RECV_POOL_UPDATE:
        return ofl_pp_pools_release(&conn->tx, m->u.ref, m->count);
    case OFL_PP_BUFFER_RDMA_INDICATE:
        err = ofl_pp_pools_consume(&conn->rx, m->u.ref, m->count);
        if (err == OFL_OK)
            conn->stats.indications_rx += m->count;
        return err;
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
        pp_flush_peer(conn, m);
        ofl_fill(reply, 0, sizeof(*reply));
        reply->type = OFL_PP_BUFFER_POOL_FLUSH_REPLY;
        reply->ctx = m->ctx;
        return OFL_OK;
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        if (pp_flush_done(&conn->rx, m->ctx, false) +
                pp_flush_done(&conn->tx, m->ctx, false) == 0)
            return OFL_E_PP_FLUSH_UNKNOWN;
        (void)pp_flush_done(&conn->rx, m->ctx, true);
        (void)pp_flush_done(&conn->tx, m->ctx, true);
        return OFL_OK;
    default:
        return OFL_OK;
    }
}

/* A whole message, from a plain channel or reassembled from cells: the
 * body of ofl_pp_conn_recv after its arguments and channel are checked. */
static enum ofl_err pp_conn_take(struct ofl_pp_conn *conn, const uint8_t *p,
                                 size_t len, struct ofl_pp_msg *m,
                                 struct ofl_pp_msg *reply)
{
    enum ofl_err err;

    if (!pp_conn_live(conn) && conn->state != OFL_PP_CLOSED) {
        err = OFL_E_PP_CONN_STATE;
    } else {
        err = ofl_pp_msg_decode(p, len, m);
        /* CLOSED answers a FlushRequest (every pool of it is EMPTY: the
         * reply says so), else a peer whose pool this end refused or
         * forgot would wait in FLUSHING for ever; it takes nothing else. */
        if (conn->state == OFL_PP_CLOSED &&
            (err != OFL_OK || m->type != OFL_PP_BUFFER_POOL_FLUSH_REQUEST))
            err = OFL_E_PP_CONN_STATE;
    }
    if (err == OFL_OK)
        err = pp_conn_apply(conn, m, reply);
    if (err != OFL_OK) {
        conn->stats.msgs_refused++;
        return err;
    }
    conn->stats.msgs_rx++;
    pp_conn_settle(conn);
    return OFL_OK;
}

enum ofl_err ofl_pp_conn_recv(struct ofl_pp_conn *conn,
                              enum ofl_pp_channel ch, const uint8_t *p,
                              size_t len, struct ofl_pp_msg *m,
                              struct ofl_pp_msg *reply)
{
    if (conn == NULL || m == NULL || reply == NULL || m == reply ||
        (ch != OFL_PP_CTRL && ch != OFL_PP_DATA))
        return OFL_E_ARG;
    reply->type = 0;
    /* A cell channel carries only cells (ofl_pp_conn_recv_cell): a plain
     * message there is refused before it is decoded or counted. */
    if (conn->cells[ch] != NULL)
        return OFL_E_PP_CELL_CHANNEL;
    return pp_conn_take(conn, p, len, m, reply);
}

enum ofl_err ofl_pp_conn_recv_imm(struct ofl_pp_conn *conn, uint64_t imm,
                                  struct ofl_pp_ref *ref)
{
    enum ofl_err err;

    if (conn == NULL || ref == NULL)
        return OFL_E_ARG;
    if (!pp_conn_live(conn))
        return OFL_E_PP_CONN_STATE;
    err = ofl_pp_imm_decode(imm, ref);
    if (err == OFL_OK)
        err = ofl_pp_pools_consume(&conn->rx, ref, 1);
    if (err == OFL_OK)
        conn->stats.indications_rx++;
    return err;
}

enum ofl_err ofl_pp_pick(const struct ofl_pp_conn *conn, uint32_t len,
                         struct ofl_pp_ref *ref)
{
    if (conn == NULL)
        return OFL_E_ARG;
    return ofl_pp_pools_pick(&conn->tx, len, ref);
}

/* Checks a write into the tx element and fills *w; consumes it when
 * commit. */
static enum ofl_err pp_write_check(struct ofl_pp_conn *conn, uint32_t pool,
                                   uint32_t elem, uint32_t len,
                                   struct ofl_pp_write *w, bool commit)
{
    struct ofl_pp_ref ref;
    const struct ofl_pp_pool *s;
    enum ofl_err err;

    if (conn->state != OFL_PP_READY)
        return OFL_E_PP_CONN_STATE;
    ref.pool = pool;
    ref.elem = elem;
    ref.len = len;
    err = pp_consume(&conn->tx, &ref, 1, false);
    if (err != OFL_OK)
        return err;
    s = &conn->tx.slot[pool];
    ofl_fill(w, 0, sizeof(*w));
    w->remote_va = s->d.va + (uint64_t)elem * s->d.size;
    w->remote_stag = s->d.handle;
    w->kind = (uint8_t)ofl_pp_indication(pool, elem, len, &w->imm);
    if (commit)
        (void)pp_consume(&conn->tx, &ref, 1, true);
    return OFL_OK;
}

enum ofl_err ofl_pp_write_prepare(struct ofl_pp_conn *conn, uint32_t pool,
                                  uint32_t elem, uint32_t len,
                                  struct ofl_pp_write *w)
{
    enum ofl_err err;

    if (conn == NULL || w == NULL)
        return OFL_E_ARG;
    err = pp_write_check(conn, pool, elem, len, w, true);
    if (err == OFL_OK && w->kind == OFL_PP_IND_IMM)
        conn->stats.writes_imm++;
    else if (err == OFL_OK)
        conn->stats.writes_msg++;
    return err;
}

/* Posts a Send of one segment on qp (conn's scratch work request). */
static enum ofl_err pp_post(struct ofl_pp_conn *conn, struct ofl_qp *qp,
                            uint8_t opcode, uint64_t wr_id)
{
    conn->wr.wr_id = wr_id;
    conn->wr.opcode = opcode;
    conn->wr.flags = OFL_QP_WR_SIGNALED;
    conn->wr.sge = &conn->sge;
    conn->wr.num_sge = 1;
    return ofl_qp_post_send(qp, &conn->wr, NULL);
}

/*
 * Cell channel c: builds the cells of the len-byte packet at buf->p (the
 * channel's next psn) into buf->p[len .. cap) and posts each as a
 * signalled Send on qp. Checks the room in buf (OFL_E_SIZE) and in the SQ
 * (OFL_E_QP_SQ_FULL) first; the psn advances once a cell is posted.
 */
static OFL_NOINLINE enum ofl_err
pp_cell_make(const struct ofl_port *port, uint32_t cell_size,
             const struct ofl_pp_packet *pkt, uint32_t idx, struct ofl_wr *w);

/* One packet going out as cells (pp_post_cells). */
struct pp_cell_tx {
    struct ofl_pp_packet pkt;
    const struct ofl_pp_buf *buf; /* the packet, then its cells */
    const struct ofl_port *port;  /* CRC32c hook */
    uint64_t wr_id;
    uint32_t cell_size;
    uint32_t off;                 /* where the next cell goes in buf */
};

/* Builds cell idx of t's packet at t->off and posts it as a signalled
 * Send on qp; t->off moves past it. Never inlined: in pp_post_cells'
 * loop, with ofl_qp_post_send, it made a frame over 256 bytes at -O3. */
static OFL_NOINLINE enum ofl_err pp_send_cell(struct ofl_pp_conn *conn,
                                              struct ofl_qp *qp,
                                              struct pp_cell_tx *t,
                                              uint32_t idx)
{
    struct ofl_wr w;
    enum ofl_err err;

    ofl_wr_init(&w, t->buf->p + t->off, t->buf->cap - t->off);
    err = pp_cell_make(t->port, t->cell_size, &t->pkt, idx, &w);
    if (err != OFL_OK)
        return err;
    ofl_fill(&conn->wr, 0, sizeof(conn->wr));
    conn->sge.addr = t->buf->va + t->off;
    conn->sge.len = (uint32_t)w.off;
    conn->sge.stag = t->buf->stag;
    t->off += (uint32_t)w.off;
    return pp_post(conn, qp, OFL_QP_OP_SEND, t->wr_id);
}

/*
 * Cell channel c: builds the cells of the len-byte packet at buf->p (the
 * channel's next psn) into buf->p[len .. cap) and posts each as a
 * signalled Send on qp. Checks the room in buf (OFL_E_SIZE) and in the SQ
 * (OFL_E_QP_SQ_FULL) first; the psn advances once a cell is posted.
 */
static enum ofl_err pp_post_cells(struct ofl_pp_conn *conn, struct ofl_qp *qp,
                                  struct ofl_pp_cells *c,
                                  const struct ofl_pp_buf *buf, uint32_t len,
                                  uint64_t wr_id)
{
    struct pp_cell_tx t;
    uint32_t count = ofl_pp_cell_count(c->cell_size, len), i;
    enum ofl_err err = OFL_OK;

    if (count == 0 || buf->cap < len ||
        buf->cap - len < ofl_pp_cell_bytes(c->cell_size, len))
        return OFL_E_SIZE;
    if (qp->sq.depth - ofl_qp_sq_outstanding(qp) < count)
        return OFL_E_QP_SQ_FULL;
    ofl_fill(&t, 0, sizeof(t));
    t.pkt.data = buf->p;
    t.pkt.len = len;
    t.pkt.psn = c->tx_psn;
    t.buf = buf;
    t.port = c->rx.port;
    t.wr_id = wr_id;
    t.cell_size = c->cell_size;
    t.off = len;
    for (i = 0; i < count && err == OFL_OK; i++) {
        err = pp_send_cell(conn, qp, &t, i);
        if (err == OFL_OK || i != 0) /* (a refusal after the first cell:
                                        the room was checked, cannot) */
            c->tx_psn = t.pkt.psn + 1;
    }
    return err;
}

enum ofl_err ofl_pp_write(struct ofl_pp_conn *conn,
                          const struct ofl_pp_write_req *req,
                          struct ofl_pp_write *w)
{
    struct ofl_pp_ref ref;
    uint32_t need;
    enum ofl_err err;

    if (conn == NULL || req == NULL || w == NULL || conn->data == NULL)
        return OFL_E_ARG;
    err = pp_write_check(conn, req->pool, req->elem, req->src.len, w, false);
    if (err != OFL_OK)
        return err;
    need = w->kind == OFL_PP_IND_MSG ? 2 : 1;
    /* On a cell channel the indicate is one cell, built behind it. */
    if (w->kind == OFL_PP_IND_MSG &&
        (req->ind.p == NULL || req->ind.cap < 8 + OFL_PP_REF_LEN ||
         (conn->cells[OFL_PP_DATA] != NULL &&
          req->ind.cap - (8 + OFL_PP_REF_LEN) <
              ofl_pp_cell_bytes(conn->cells[OFL_PP_DATA]->cell_size,
                                8 + OFL_PP_REF_LEN))))
        return OFL_E_SIZE;
    if (conn->data->sq.depth - ofl_qp_sq_outstanding(conn->data) < need)
        return OFL_E_QP_SQ_FULL;
    ofl_fill(&conn->wr, 0, sizeof(conn->wr));
    ofl_copy(&conn->sge, &req->src, sizeof(conn->sge));
    conn->wr.remote_stag = w->remote_stag;
    conn->wr.remote_to = w->remote_va;
    conn->wr.imm = w->imm;
    err = pp_post(conn, conn->data,
                  w->kind == OFL_PP_IND_IMM ? OFL_QP_OP_WRITE_IMM
                                            : OFL_QP_OP_WRITE,
                  req->wr_id);
    if (err != OFL_OK)
        return err;
    ref.pool = req->pool;
    ref.elem = req->elem;
    ref.len = req->src.len;
    (void)pp_consume(&conn->tx, &ref, 1, true);
    if (w->kind == OFL_PP_IND_IMM) {
        conn->stats.writes_imm++;
        return OFL_OK;
    }
    conn->stats.writes_msg++;
    /* The BufferRDMAIndicate, right behind the Write on the same stream. */
    ofl_store_be16(req->ind.p, OFL_PP_BUFFER_RDMA_INDICATE);
    ofl_store_be16(req->ind.p + 2, OFL_PP_VERSION);
    ofl_store_be16(req->ind.p + 4, 1);
    ofl_store_be16(req->ind.p + 6, 0);
    ofl_store_be32(req->ind.p + 8, req->pool);
    ofl_store_be32(req->ind.p + 12, req->elem);
    ofl_store_be32(req->ind.p + 16, req->src.len);
    ofl_fill(&conn->wr, 0, sizeof(conn->wr));
    if (conn->cells[OFL_PP_DATA] != NULL)
        return pp_post_cells(conn, conn->data, conn->cells[OFL_PP_DATA],
                             &req->ind, 8 + OFL_PP_REF_LEN, req->wr_id + 1);
    conn->sge.addr = req->ind.va;
    conn->sge.len = 8 + OFL_PP_REF_LEN;
    conn->sge.stag = req->ind.stag;
    return pp_post(conn, conn->data, OFL_QP_OP_SEND, req->wr_id + 1);
}

enum ofl_pp_channel ofl_pp_msg_channel(const struct ofl_pp_msg *m)
{
    if (m == NULL)
        return OFL_PP_CTRL;
    switch (m->type) {
    case OFL_PP_BUFFER_RDMA_INDICATE:
    case OFL_PP_BUFFER_POOL_FLUSH_REQUEST:
    case OFL_PP_BUFFER_POOL_FLUSH_REPLY:
        return OFL_PP_DATA; /* behind the Writes sent before it */
    default:
        return OFL_PP_CTRL;
    }
}

/* May conn send m on ch now? (state, then the channel rule) */
static enum ofl_err pp_send_check(const struct ofl_pp_conn *conn,
                                  enum ofl_pp_channel ch,
                                  const struct ofl_pp_msg *m)
{
    if (!pp_conn_live(conn) &&
        !(conn->state == OFL_PP_CLOSED &&
          m->type == OFL_PP_BUFFER_POOL_FLUSH_REPLY))
        return OFL_E_PP_CONN_STATE;
    if (ch != OFL_PP_DATA && ofl_pp_msg_channel(m) == OFL_PP_DATA)
        return OFL_E_PP_CHANNEL;
    return OFL_OK;
}

enum ofl_err ofl_pp_post_msg(struct ofl_pp_conn *conn, enum ofl_pp_channel ch,
                             const struct ofl_pp_msg *m,
                             const struct ofl_pp_buf *buf, uint64_t wr_id)
{
    size_t len = 0;
    enum ofl_err err;

    if (conn == NULL || m == NULL || buf == NULL || conn->ctrl == NULL ||
        (ch != OFL_PP_CTRL && ch != OFL_PP_DATA))
        return OFL_E_ARG;
    err = pp_send_check(conn, ch, m);
    if (err != OFL_OK)
        return err;
    err = ofl_pp_msg_encode(m, buf->p, buf->cap, &len);
    if (err != OFL_OK)
        return err;
    if (conn->cells[ch] != NULL)
        return pp_post_cells(conn, ch == OFL_PP_CTRL ? conn->ctrl : conn->data,
                             conn->cells[ch], buf, (uint32_t)len, wr_id);
    ofl_fill(&conn->wr, 0, sizeof(conn->wr));
    conn->sge.addr = buf->va;
    conn->sge.len = (uint32_t)len;
    conn->sge.stag = buf->stag;
    return pp_post(conn, ch == OFL_PP_CTRL ? conn->ctrl : conn->data,
                   OFL_QP_OP_SEND, wr_id);
}

/* ---- cells ------------------------------------------------------------------ */

/* log2 of a valid cell size (16 .. 4096, a power of two), else 0. */
static uint32_t pp_cell_shift(uint32_t cell_size)
{
    uint32_t s;

    for (s = 4; s <= 12; s++)
        if (cell_size == (1u << s))
            return s;
    return 0;
}

uint32_t ofl_pp_cell_count(uint32_t cell_size, uint32_t len)
{
    uint32_t shift = pp_cell_shift(cell_size);
    uint64_t cells;

    if (shift == 0 || len == 0)
        return 0;
    cells = ((uint64_t)len + cell_size - 1) >> shift;
    return cells > 65536 ? 0 : (uint32_t)cells;
}

uint32_t ofl_pp_cell_max(uint32_t cell_size)
{
    if (pp_cell_shift(cell_size) == 0)
        return 0;
    return OFL_PP_CELL_HDR + OFL_PP_CELL_FIRST + OFL_PP_CELL_IMM + cell_size +
           2 * OFL_PP_CELL_CRC;
}

/* Builds cell idx of pkt into w (empty, over the caller's buffer): the
 * body of ofl_pp_cell_build, in five arguments (no stack-passed ones for
 * its callers in the core), never inlined (pp_post_cells' frame stays
 * under 256 bytes at -O3). */
static OFL_NOINLINE enum ofl_err
pp_cell_make(const struct ofl_port *port, uint32_t cell_size,
             const struct ofl_pp_packet *pkt, uint32_t idx, struct ofl_wr *w)
{
    uint32_t count, shift, payload, size;
    uint8_t flags = 0;
    uint8_t *out = w->p;
    size_t cap = w->cap;

    count = ofl_pp_cell_count(cell_size, pkt->len);
    if (count == 0 || idx >= count)
        return OFL_E_ARG;
    shift = pp_cell_shift(cell_size);
    if (idx == 0)
        flags |= OFL_PP_CELL_F_FIRST;
    if (idx == 0 && pkt->has_imm)
        flags |= OFL_PP_CELL_F_IMM;
    if (idx == count - 1)
        flags |= OFL_PP_CELL_F_LAST;
    payload = idx == count - 1 ? pkt->len - (idx << shift) : cell_size;
    size = OFL_PP_CELL_HDR + payload + OFL_PP_CELL_CRC +
           ((flags & OFL_PP_CELL_F_FIRST) ? OFL_PP_CELL_FIRST : 0) +
           ((flags & OFL_PP_CELL_F_IMM) ? OFL_PP_CELL_IMM : 0) +
           ((flags & OFL_PP_CELL_F_LAST) ? OFL_PP_CELL_CRC : 0);
    if (cap < size)
        return OFL_E_SIZE;
    ofl_wr_u8(w, OFL_PP_CELL_VERSION);
    ofl_wr_u8(w, flags);
    ofl_wr_be16(w, (uint16_t)payload);
    ofl_wr_be32(w, pkt->psn);
    ofl_wr_be16(w, (uint16_t)idx);
    ofl_wr_be16(w, 0);
    if (flags & OFL_PP_CELL_F_FIRST) {
        ofl_wr_be64(w, pkt->va);
        ofl_wr_be32(w, pkt->handle);
        ofl_wr_be32(w, pkt->len);
    }
    if (flags & OFL_PP_CELL_F_IMM)
        ofl_wr_be32(w, pkt->imm);
    ofl_wr_bytes(w, pkt->data + ((size_t)idx << shift), payload);
    if (flags & OFL_PP_CELL_F_LAST)
        ofl_wr_be32(w, port_crc32c_buf(port, pkt->data, pkt->len));
    ofl_wr_be32(w, port_crc32c_buf(port, out, w->off));
    return OFL_OK;
}

enum ofl_err ofl_pp_cell_build(const struct ofl_port *port, uint32_t cell_size,
                               const struct ofl_pp_packet *pkt, uint32_t idx,
                               uint8_t *out, size_t cap, size_t *len)
{
    struct ofl_wr w;
    enum ofl_err err;

    if (pkt == NULL || len == NULL || pkt->data == NULL || out == NULL)
        return OFL_E_ARG;
    ofl_wr_init(&w, out, cap);
    err = pp_cell_make(port, cell_size, pkt, idx, &w);
    if (err == OFL_OK)
        *len = w.off;
    return err;
}

enum ofl_err ofl_pp_reasm_init(struct ofl_pp_reasm *r,
                               const struct ofl_port *port, uint8_t *buf,
                               uint32_t cap, uint32_t cell_size, uint32_t psn)
{
    uint32_t shift = pp_cell_shift(cell_size);

    if (r == NULL || buf == NULL || cap == 0 || shift == 0)
        return OFL_E_ARG;
    if (ofl_port_check_opt(port) != OFL_OK)
        return OFL_E_PORT_VERSION;
    ofl_fill(r, 0, sizeof(*r));
    r->buf = buf;
    r->cap = cap;
    r->cell_size = cell_size;
    r->cell_shift = shift;
    r->psn = psn;
    r->port = port;
    return OFL_OK;
}

/* Compares a received CRC with the one computed; fuzzing builds skip the
 * comparison (offload.h, pp). */
static bool pp_crc_ok(uint32_t computed, const uint8_t *field)
{
#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
    (void)computed;
    (void)field;
    return true;
#else
    return computed == ofl_load_be32(field);
#endif
}

/* Where psn stands against the packet expected (or open): 0 due, 1
 * already taken (duplicate), 2 not yet due (a packet missing). */
static int pp_psn_order(uint32_t psn, uint32_t expected)
{
    if (psn == expected)
        return 0;
    return ofl_sn_lt(psn, expected) ? 1 : 2;
}

/* The checks and effects of one cell; ofl_pp_reasm_input abandons the open
 * packet on every error but a duplicate. */
static enum ofl_err pp_reasm_cell(struct ofl_pp_reasm *r, const uint8_t *c,
                                  size_t len, struct ofl_pp_packet *pkt,
                                  bool *done)
{
    uint32_t flags, payload, psn, cno, hdr, total, count, off;
    const uint8_t *data;
    int order;

    if (len < OFL_PP_CELL_HDR + OFL_PP_CELL_CRC)
        return OFL_E_PP_TRUNCATED;
    if (len > ofl_pp_cell_max(r->cell_size))
        return OFL_E_PP_LENGTH;
    if (!pp_crc_ok(port_crc32c_buf(r->port, c, len - OFL_PP_CELL_CRC),
                   c + len - OFL_PP_CELL_CRC))
        return OFL_E_PP_CELL_CRC;
    if (c[0] != OFL_PP_CELL_VERSION)
        return OFL_E_PP_VERSION;
    flags = c[1];
    if ((flags & ~(uint32_t)(OFL_PP_CELL_F_FIRST | OFL_PP_CELL_F_LAST |
                             OFL_PP_CELL_F_IMM)) != 0 ||
        ofl_load_be16(c + 10) != 0)
        return OFL_E_PP_RESERVED;
    if ((flags & OFL_PP_CELL_F_IMM) && !(flags & OFL_PP_CELL_F_FIRST))
        return OFL_E_PP_CELL_HDR;
    payload = ofl_load_be16(c + 2);
    hdr = OFL_PP_CELL_HDR +
          ((flags & OFL_PP_CELL_F_FIRST) ? OFL_PP_CELL_FIRST : 0) +
          ((flags & OFL_PP_CELL_F_IMM) ? OFL_PP_CELL_IMM : 0);
    if (len != (size_t)hdr + payload + OFL_PP_CELL_CRC +
                   ((flags & OFL_PP_CELL_F_LAST) ? OFL_PP_CELL_CRC : 0))
        return OFL_E_PP_LENGTH;
    if (payload == 0 || payload > r->cell_size ||
        (!(flags & OFL_PP_CELL_F_LAST) && payload != r->cell_size))
        return OFL_E_PP_CELL_HDR;
    psn = ofl_load_be32(c + 4);
    cno = ofl_load_be16(c + 8);
    data = c + hdr;
    if (flags & OFL_PP_CELL_F_FIRST) {
        if (cno != 0)
            return OFL_E_PP_CELL_HDR;
        order = pp_psn_order(psn, r->psn);
        if (order == 1 || (order == 0 && r->open))
            return OFL_E_PP_CELL_DUP;
        if (order == 2) /* (order 0 with a packet open is a duplicate) */
            return OFL_E_PP_CELL_MISSING;
        total = ofl_load_be32(c + 24);
        count = ofl_pp_cell_count(r->cell_size, total);
        if (count == 0 || (count == 1) != ((flags & OFL_PP_CELL_F_LAST) != 0) ||
            (count == 1 && payload != total))
            return OFL_E_PP_CELL_HDR;
        if (total > r->cap)
            return OFL_E_PP_CELL_TOO_LONG;
        r->total = total;
        r->got = 0;
        r->next_cell = 0;
        r->va = ofl_load_be64(c + 12);
        r->handle = ofl_load_be32(c + 20);
        r->has_imm = (flags & OFL_PP_CELL_F_IMM) != 0;
        r->imm = r->has_imm ? ofl_load_be32(c + 28) : 0;
        r->crc = OFL_CRC32C_INIT;
        r->open = 1;
    } else {
        order = pp_psn_order(psn, r->psn);
        if (order == 1 || (order == 0 && r->open && cno < r->next_cell))
            return OFL_E_PP_CELL_DUP;
        if (order == 2 || !r->open || cno > r->next_cell)
            return OFL_E_PP_CELL_MISSING;
        count = ofl_pp_cell_count(r->cell_size, r->total);
        if (((flags & OFL_PP_CELL_F_LAST) != 0) != (cno == count - 1) ||
            ((flags & OFL_PP_CELL_F_LAST) &&
             r->total - (cno << r->cell_shift) != payload))
            return OFL_E_PP_CELL_HDR;
    }
    off = r->next_cell << r->cell_shift;
    ofl_copy(r->buf + off, data, payload);
    r->crc = ofl_port_crc32c(r->port, r->crc, data, payload);
    r->got = off + payload;
    r->next_cell++;
    if (!(flags & OFL_PP_CELL_F_LAST))
        return OFL_OK;
    if (!pp_crc_ok(ofl_crc32c_final(r->crc), data + payload))
        return OFL_E_PP_PACKET_CRC;
    ofl_fill(pkt, 0, sizeof(*pkt));
    pkt->va = r->va;
    pkt->data = r->buf;
    pkt->len = r->total;
    pkt->handle = r->handle;
    pkt->psn = r->psn;
    pkt->imm = r->imm;
    pkt->has_imm = r->has_imm;
    r->psn++;
    r->open = 0;
    r->packets++;
    *done = true;
    return OFL_OK;
}

enum ofl_err ofl_pp_reasm_input(struct ofl_pp_reasm *r, const uint8_t *cell,
                                size_t len, struct ofl_pp_packet *pkt,
                                bool *done)
{
    enum ofl_err err;

    if (r == NULL || pkt == NULL || done == NULL || r->buf == NULL ||
        (cell == NULL && len != 0))
        return OFL_E_ARG;
    *done = false;
    err = pp_reasm_cell(r, cell, len, pkt, done);
    if (err == OFL_E_PP_CELL_DUP) {
        r->dups++;
    } else if (err != OFL_OK && r->open) {
        r->open = 0;
        r->dropped++;
    }
    return err;
}

/* ---- cell channels ------------------------------------------------------------ */

uint32_t ofl_pp_cell_bytes(uint32_t cell_size, uint32_t len)
{
    uint32_t count = ofl_pp_cell_count(cell_size, len);

    if (count == 0)
        return 0;
    /* At most 2^16 cells of 4096 bytes: 2^28 + 2^20 + 20, no overflow. */
    return len + count * (OFL_PP_CELL_HDR + OFL_PP_CELL_CRC) +
           OFL_PP_CELL_FIRST + OFL_PP_CELL_CRC;
}

enum ofl_err ofl_pp_cells_init(struct ofl_pp_cells *c,
                               const struct ofl_port *port, uint8_t *buf,
                               uint32_t cap, uint32_t cell_size,
                               uint32_t tx_psn, uint32_t rx_psn)
{
    enum ofl_err err;

    if (c == NULL)
        return OFL_E_ARG;
    err = ofl_pp_reasm_init(&c->rx, port, buf, cap, cell_size, rx_psn);
    if (err != OFL_OK)
        return err;
    c->cell_size = cell_size;
    c->tx_psn = tx_psn;
    return OFL_OK;
}

enum ofl_err ofl_pp_msg_cells(struct ofl_pp_conn *conn, enum ofl_pp_channel ch,
                              const struct ofl_pp_msg *m, uint8_t *out,
                              size_t cap, struct ofl_pp_packet *pkt)
{
    struct ofl_pp_cells *c;
    size_t size, len = 0;
    enum ofl_err err;

    if (conn == NULL || m == NULL || out == NULL || pkt == NULL ||
        (ch != OFL_PP_CTRL && ch != OFL_PP_DATA) || conn->cells[ch] == NULL)
        return OFL_E_ARG;
    c = conn->cells[ch];
    err = pp_send_check(conn, ch, m);
    if (err != OFL_OK)
        return err;
    size = ofl_pp_msg_size(m);
    if ((size >> 16) >> 16 != 0 || /* above 2^32 - 1, any size_t */
        (size != 0 && ofl_pp_cell_count(c->cell_size, (uint32_t)size) == 0))
        return OFL_E_SIZE;
    err = ofl_pp_msg_encode(m, out, cap, &len);
    if (err != OFL_OK)
        return err;
    ofl_fill(pkt, 0, sizeof(*pkt));
    pkt->data = out;
    pkt->len = (uint32_t)len;
    pkt->psn = c->tx_psn++;
    return OFL_OK;
}

enum ofl_err ofl_pp_conn_recv_cell(struct ofl_pp_conn *conn,
                                   enum ofl_pp_channel ch, const uint8_t *cell,
                                   size_t len, struct ofl_pp_rx *out)
{
    struct ofl_pp_packet pkt;
    bool done = false;
    enum ofl_err err;

    if (conn == NULL || out == NULL || out->m == NULL ||
        out->reply == NULL || out->m == out->reply ||
        (ch != OFL_PP_CTRL && ch != OFL_PP_DATA))
        return OFL_E_ARG;
    out->done = false;
    out->reply->type = 0;
    /* A plain channel carries only whole messages (ofl_pp_conn_recv). */
    if (conn->cells[ch] == NULL)
        return OFL_E_PP_CELL_CHANNEL;
    if (!pp_conn_live(conn) && conn->state != OFL_PP_CLOSED)
        return OFL_E_PP_CONN_STATE;
    err = ofl_pp_reasm_input(&conn->cells[ch]->rx, cell, len, &pkt, &done);
    if (err != OFL_OK || !done)
        return err;
    out->done = true;
    /* A message is the packet alone: it names no remote memory. */
    if (pkt.va != 0 || pkt.handle != 0 || pkt.has_imm) {
        conn->stats.msgs_refused++;
        return OFL_E_PP_CELL_HDR;
    }
    return pp_conn_take(conn, pkt.data, pkt.len, out->m, out->reply);
}

#endif /* OFL_ENABLE_PP */
