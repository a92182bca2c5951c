/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
#include "ofl_posix.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#if OFL_ENABLE_QP
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#endif

#if defined(OFL_POSIX_HAVE_ISAL)
#include <isa-l/crc.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OFL_POSIX_X86_CRC 1
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#define OFL_POSIX_ARM_CRC 1
#endif

/* ---- CPU instructions ------------------------------------------------- */

#if defined(OFL_POSIX_X86_CRC)
#include <pthread.h>

/*
 * Three independent crc32q streams over three equal blocks hide the
 * instruction's 3-cycle latency. The partial CRCs are joined by "appending
 * n zero bytes" to the earlier ones: a multiplication by x^(8n) mod P, which
 * is linear, so it is done with four 256-entry tables per block size, built
 * once per process.
 */
__attribute__((target("sse4.2"))) static uint32_t
x86_crc_1(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    while (len >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    crc = (uint32_t)c;
    /* The last 0 to 7 bytes: one step per set bit of len, in order. */
    if (len & 4) {
        uint32_t v;

        memcpy(&v, p, 4);
        crc = _mm_crc32_u32(crc, v);
        p += 4;
    }
    if (len & 2) {
        uint16_t v;

        memcpy(&v, p, 2);
        crc = _mm_crc32_u16(crc, v);
        p += 2;
    }
    if (len & 1)
        crc = _mm_crc32_u8(crc, *p);
    return crc;
}

/* GF(2) product a * b mod P, reflected representation (bit 31 = x^0). */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
    uint32_t prod = 0;
    int i;

    for (i = 0; i < 32; i++) {
        if (a & 0x80000000u)
            prod ^= b;
        a <<= 1;
        b = (b >> 1) ^ ((b & 1) ? 0x82F63B78u : 0);
    }
    return prod;
}

/* x^(8n) mod P: the operator "append n zero bytes". */
static uint32_t x8n_mod(size_t n)
{
    uint32_t result = 0x80000000u; /* x^0 */
    uint32_t sq = 0x00800000u;      /* x^8 */

    while (n) {
        if (n & 1)
            result = gf2_mulmod(result, sq);
        sq = gf2_mulmod(sq, sq);
        n >>= 1;
    }
    return result;
}

/* x^n mod P for any n: whole bytes by x8n_mod, then x^(n mod 8) (in this
 * representation x^k, k < 32, is bit 31 - k). */
static uint32_t xn_mod(size_t n)
{
    return gf2_mulmod(x8n_mod(n / 8), 0x80000000u >> (n % 8));
}

/*
 * Folding constants (Intel, "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ Instruction", 2009: its folding step). A 16-byte block
 * loaded little-endian into an xmm holds the message bits with the first
 * one highest: its low qword is H and its high qword L, each a degree-63
 * polynomial with bit b the coefficient of x^(63-b) (reflected), and the
 * block is A = H*x^64 + L. Moving A forward over D bytes, to XOR it into
 * the block D bytes later, multiplies it by x^(8D):
 *   A*x^(8D) = H*x^(64+8D) + L*x^(8D)   (mod P).
 * Each x^E mod P has degree < 32, so each product fits 128 bits. A
 * carry-less multiply of two reflected operands (bit b = x^(63-b)) yields
 * bit k = x^(126-k), one degree short of the 128-bit reflected form (bit
 * k = x^(127-k)); so the operand for x^E carries x^(E-1) mod P instead.
 * fold_k(E) is that operand: bit 63-e for each term x^e, which is the
 * 32-bit value of gf2_mulmod's representation (bit 31 = x^0) shifted left
 * by 32. x86_fold_k[f] is the pair {K(64+128f), K(128f)} for a move of
 * D = 16f bytes: the low qword multiplies H, the high one L.
 */
static uint64_t fold_k(size_t e)
{
    return (uint64_t)xn_mod(e - 1) << 32;
}

#define X86_FOLD_MAX 16 /* moves of 16, 32, ... 256 bytes */
static uint64_t x86_fold_k[X86_FOLD_MAX + 1][2];

#define X86_NBLK 6
static const size_t x86_blk[X86_NBLK] = {4096, 2048, 1024, 512, 256, 128};
static uint32_t x86_shift[X86_NBLK][4][256];
static pthread_once_t x86_once = PTHREAD_ONCE_INIT;

static void x86_tables(void)
{
    int k, b, v;
    size_t f;

    for (k = 0; k < X86_NBLK; k++) {
        uint32_t m = x8n_mod(x86_blk[k]);

        for (b = 0; b < 4; b++)
            for (v = 0; v < 256; v++)
                x86_shift[k][b][v] = gf2_mulmod((uint32_t)v << (8 * b), m);
    }
    for (f = 1; f <= X86_FOLD_MAX; f++) {
        x86_fold_k[f][0] = fold_k(64 + 128 * f);
        x86_fold_k[f][1] = fold_k(128 * f);
    }
}

static inline uint32_t x86_shift_by(int k, uint32_t c)
{
    return x86_shift[k][0][c & 0xFF] ^ x86_shift[k][1][(c >> 8) & 0xFF] ^
           x86_shift[k][2][(c >> 16) & 0xFF] ^ x86_shift[k][3][c >> 24];
}

__attribute__((target("sse4.2"))) static uint32_t
x86_crc(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    int k;

    /* Shorter than three of the smallest blocks (an FPDU of a small
     * message): no block loop, and no table to build. */
    if (len < 3 * x86_blk[X86_NBLK - 1])
        return x86_crc_1(crc, p, len);
    pthread_once(&x86_once, x86_tables);
    for (k = 0; k < X86_NBLK; k++) {
        const size_t blk = x86_blk[k];

        while (len >= 3 * blk) {
            uint64_t a = crc, b = 0, c = 0;
            size_t i;

            for (i = 0; i < blk; i += 8) {
                uint64_t va, vb, vc;

                memcpy(&va, p + i, 8);
                memcpy(&vb, p + blk + i, 8);
                memcpy(&vc, p + 2 * blk + i, 8);
                a = _mm_crc32_u64(a, va);
                b = _mm_crc32_u64(b, vb);
                c = _mm_crc32_u64(c, vc);
            }
            /* crc(A|B|C) = shift(shift(a) ^ b) ^ c, each over one block */
            crc = x86_shift_by(k, (uint32_t)a) ^ (uint32_t)b;
            crc = x86_shift_by(k, crc) ^ (uint32_t)c;
            p += 3 * blk;
            len -= 3 * blk;
        }
    }
    return x86_crc_1(crc, p, len);
}

/*
 * Carry-less multiply folding (the Intel white paper above): the
 * crc32 instruction retires 8 bytes per cycle at best, VPCLMULQDQ folds a
 * whole 64-byte zmm per pair of multiplies. Independent accumulators hide
 * the multiply latency; they are folded into one, its 128-bit lanes into
 * one xmm, and that xmm and the tail go through the crc32 instruction:
 * crc32 over X with init 0 is X*x^32 mod P, the CRC of the folded message.
 * The hook's initial register value c enters by XOR into the first 4 bytes:
 * a CRC with init c over M equals one with init 0 over M with c XORed into
 * its first 4 bytes (little-endian), as both add c*x^(8|M|) mod P.
 */
#define X86_CLMUL_TARGET "pclmul,sse4.2"

__attribute__((target(X86_CLMUL_TARGET))) static inline __m128i
x86_kx(unsigned f)
{
    return _mm_loadu_si128((const __m128i *)(const void *)x86_fold_k[f]);
}

/* a moved forward 16*f bytes (k = x86_kx(f)), XORed into b. */
__attribute__((target(X86_CLMUL_TARGET))) static inline __m128i
x86_fold_x(__m128i a, __m128i k, __m128i b)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00),
                                       _mm_clmulepi64_si128(a, k, 0x11)),
                         b);
}

/* The end of every folding path: x is the 16 bytes before p; folds the
 * whole 16-byte blocks after it, then crc32 over x and the tail. */
__attribute__((target(X86_CLMUL_TARGET))) static inline uint32_t
x86_fold_end(__m128i x, const uint8_t *p, size_t len)
{
    const __m128i k = x86_kx(1);
    uint64_t c;

    while (len >= 16) {
        x = x86_fold_x(x, k,
                       _mm_loadu_si128((const __m128i *)(const void *)p));
        p += 16;
        len -= 16;
    }
    c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));
    c = _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(x, 1));
    return x86_crc_1((uint32_t)c, p, len);
}

/* AVX-512: F for the zmm operations, VL so that the xmm steps may use the
 * EVEX forms (vpternlogq); BW is not needed. */
#define X86_AVX512_TARGET "avx512f,avx512vl,vpclmulqdq," X86_CLMUL_TARGET

__attribute__((target(X86_AVX512_TARGET))) static inline __m512i
x86_fold_z(__m512i a, __m512i k, __m512i b)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(a, k, 0x00),
                                     _mm512_clmulepi64_epi128(a, k, 0x11),
                                     b, 0x96); /* a ^ b ^ c */
}

__attribute__((target(X86_AVX512_TARGET))) static inline __m512i
x86_kz(unsigned f)
{
    return _mm512_broadcast_i32x4(x86_kx(f));
}

/* x is the 64 bytes before p: its lanes 0..2 move forward 48, 32 and 16
 * bytes onto lane 3 (zero constants leave lane 3 itself, masked in). */
__attribute__((target(X86_AVX512_TARGET))) static inline __m128i
x86_lanes_z(__m512i x)
{
    __m512i k = _mm512_inserti32x4(_mm512_setzero_si512(), x86_kx(3), 0);
    __m256i h;

    k = _mm512_inserti32x4(k, x86_kx(2), 1);
    k = _mm512_inserti32x4(k, x86_kx(1), 2);
    x = x86_fold_z(x, k, _mm512_maskz_mov_epi64(0xC0, x));
    h = _mm256_xor_si256(_mm512_castsi512_si256(x),
                         _mm512_extracti64x4_epi64(x, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(h),
                         _mm256_extracti128_si256(h, 1));
}

/* Four zmm accumulators, 256 bytes per round; shorter buffers go to the
 * crc32 instruction. */
__attribute__((target(X86_AVX512_TARGET))) static uint32_t
x86_crc_avx512(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    __m512i x0, x1, x2, x3, k;

    if (len < 256)
        return x86_crc(crc, data, len);
    pthread_once(&x86_once, x86_tables);
    x0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                          _mm512_maskz_set1_epi32(1, (int)crc));
    x1 = _mm512_loadu_si512(p + 64);
    x2 = _mm512_loadu_si512(p + 128);
    x3 = _mm512_loadu_si512(p + 192);
    k = x86_kz(16);
    for (p += 256, len -= 256; len >= 256; p += 256, len -= 256) {
        x0 = x86_fold_z(x0, k, _mm512_loadu_si512(p));
        x1 = x86_fold_z(x1, k, _mm512_loadu_si512(p + 64));
        x2 = x86_fold_z(x2, k, _mm512_loadu_si512(p + 128));
        x3 = x86_fold_z(x3, k, _mm512_loadu_si512(p + 192));
    }
    x0 = x86_fold_z(x0, x86_kz(12),
                    x86_fold_z(x1, x86_kz(8), x86_fold_z(x2, x86_kz(4), x3)));
    for (k = x86_kz(4); len >= 64; p += 64, len -= 64)
        x0 = x86_fold_z(x0, k, _mm512_loadu_si512(p));
    return x86_fold_end(x86_lanes_z(x0), p, len);
}

/* AVX2 with VPCLMULQDQ (CPUs without AVX-512): the same on ymm. */
#define X86_AVX2_TARGET "avx2,vpclmulqdq," X86_CLMUL_TARGET

__attribute__((target(X86_AVX2_TARGET))) static inline __m256i
x86_fold_y(__m256i a, __m256i k, __m256i b)
{
    __m256i lo = _mm256_clmulepi64_epi128(a, k, 0x00);

    return _mm256_xor_si256(
        _mm256_xor_si256(lo, _mm256_clmulepi64_epi128(a, k, 0x11)), b);
}

__attribute__((target(X86_AVX2_TARGET))) static inline __m256i
x86_ky(unsigned f)
{
    return _mm256_broadcastsi128_si256(x86_kx(f));
}

__attribute__((target(X86_AVX2_TARGET))) static inline __m256i
x86_load_y(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* Four ymm accumulators, 128 bytes per round. */
__attribute__((target(X86_AVX2_TARGET))) static uint32_t
x86_crc_avx2(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    __m256i x0, x1, x2, x3, k;

    if (len < 128)
        return x86_crc(crc, data, len);
    pthread_once(&x86_once, x86_tables);
    x0 = _mm256_xor_si256(x86_load_y(p),
                          _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)crc)));
    x1 = x86_load_y(p + 32);
    x2 = x86_load_y(p + 64);
    x3 = x86_load_y(p + 96);
    k = x86_ky(8);
    for (p += 128, len -= 128; len >= 128; p += 128, len -= 128) {
        x0 = x86_fold_y(x0, k, x86_load_y(p));
        x1 = x86_fold_y(x1, k, x86_load_y(p + 32));
        x2 = x86_fold_y(x2, k, x86_load_y(p + 64));
        x3 = x86_fold_y(x3, k, x86_load_y(p + 96));
    }
    x0 = x86_fold_y(x0, x86_ky(6),
                    x86_fold_y(x1, x86_ky(4), x86_fold_y(x2, x86_ky(2), x3)));
    for (k = x86_ky(2); len >= 32; p += 32, len -= 32)
        x0 = x86_fold_y(x0, k, x86_load_y(p));
    return x86_fold_end(x86_fold_x(_mm256_castsi256_si128(x0), x86_kx(1),
                                   _mm256_extracti128_si256(x0, 1)),
                        p, len);
}

/* What each path needs of the running CPU: the folding paths end with the
 * crc32 instruction, so SSE4.2 and PCLMULQDQ are checked with the rest. */
static int x86_has_sse42(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

static int x86_has_clmul(void)
{
    return x86_has_sse42() && __builtin_cpu_supports("pclmul") &&
           __builtin_cpu_supports("vpclmulqdq");
}

static int x86_has_avx512(void)
{
    return x86_has_clmul() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl");
}

static int x86_has_avx2(void)
{
    return x86_has_clmul() && __builtin_cpu_supports("avx2");
}
#endif

#if defined(OFL_POSIX_ARM_CRC)
/* The CRC32C instructions through each compiler's builtins, in a function
 * built for the CRC extension (arm_acle.h of clang 14 declares its
 * intrinsics only when the whole file is). Same instructions either way. */
#if defined(__clang__)
#define OFL_POSIX_ARM_CRC_TARGET __attribute__((target("crc")))
#define ofl_arm_crc32cd __builtin_arm_crc32cd
#define ofl_arm_crc32cb __builtin_arm_crc32cb
#else
#define OFL_POSIX_ARM_CRC_TARGET __attribute__((target("+crc")))
#define ofl_arm_crc32cd __builtin_aarch64_crc32cx
#define ofl_arm_crc32cb __builtin_aarch64_crc32cb
#endif

OFL_POSIX_ARM_CRC_TARGET static uint32_t
arm_crc(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        crc = ofl_arm_crc32cd(crc, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = ofl_arm_crc32cb(crc, *p++);
    return crc;
}
#endif

#if defined(OFL_POSIX_ARM_CRC)
static int arm_has_crc(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}
#endif

/* The CPU paths, fastest first, each with what it needs of the CPU; the
 * NULL row ends the list (and keeps it non-empty on other targets). */
static const struct cpu_path {
    const char *name;
    ofl_posix_crc_fn fn;
    int (*usable)(void);
} cpu_paths[] = {
#if defined(OFL_POSIX_X86_CRC)
    {"avx512-vpclmul", x86_crc_avx512, x86_has_avx512},
    {"avx2-vpclmul", x86_crc_avx2, x86_has_avx2},
    {"sse4.2", x86_crc, x86_has_sse42},
#elif defined(OFL_POSIX_ARM_CRC)
    {"armv8-crc", arm_crc, arm_has_crc},
#endif
    {NULL, NULL, NULL},
};

ofl_posix_crc_fn ofl_posix_crc32c_cpu_path(unsigned i, const char **name)
{
    unsigned n = sizeof(cpu_paths) / sizeof(cpu_paths[0]) - 1;

    if (i >= n) {
        if (name != NULL)
            *name = NULL;
        return NULL;
    }
    if (name != NULL)
        *name = cpu_paths[i].name;
    return cpu_paths[i].usable() ? cpu_paths[i].fn : NULL;
}

/* The first path this CPU has, and its name. */
static ofl_posix_crc_fn cpu_pick(const char **name)
{
    ofl_posix_crc_fn fn;
    unsigned i;

    for (i = 0;; i++) {
        fn = ofl_posix_crc32c_cpu_path(i, name);
        if (fn != NULL || *name == NULL)
            return fn;
    }
}

ofl_posix_crc_fn ofl_posix_crc32c_cpu(void)
{
    const char *name;

    return cpu_pick(&name);
}

/* ---- ISA-L -------------------------------------------------------------- */

#if defined(OFL_POSIX_HAVE_ISAL)
/* ISA-L keeps the raw register too (no inversion), but takes an int length. */
static uint32_t isal_crc(uint32_t crc, const void *data, size_t len)
{
    unsigned char *p = (unsigned char *)(uintptr_t)data;

    while (len > 0) {
        int n = len > (size_t)INT_MAX ? INT_MAX : (int)len;

        crc = crc32_iscsi(p, n, crc);
        p += n;
        len -= (size_t)n;
    }
    return crc;
}
#endif

ofl_posix_crc_fn ofl_posix_crc32c_isal(void)
{
#if defined(OFL_POSIX_HAVE_ISAL)
    return isal_crc;
#else
    return NULL;
#endif
}

/* ---- the port ----------------------------------------------------------- */

static int px_dma_read(void *ctx, uint64_t pa, void *dst, size_t len)
{
    (void)ctx;
    memcpy(dst, (const void *)(uintptr_t)pa, len);
    return 0;
}

static int px_dma_write(void *ctx, uint64_t pa, const void *src, size_t len)
{
    (void)ctx;
    memcpy((void *)(uintptr_t)pa, src, len);
    return 0;
}

/*
 * The fused copy + CRC32c hooks: the copy goes in 4 KiB blocks (within
 * any L1, and a page is one call of the CRC's kernel for long buffers)
 * and each block is summed by px->crc right after its memcpy. Memory is read once
 * (by the copy); the CRC re-reads the block from L1, where the copy just
 * left it, which costs far less than a second pass over memory. The CRC
 * reads the engine's side of the copy (the destination of a read, the
 * source of a write): another thread may change host memory at any time,
 * and the CRC must be of the bytes the engine sends or received.
 */
#define PX_FUSED_BLOCK 4096u

/* Copies len bytes from src to dst and returns state fed with them, block
 * by block right after each copy, from dst (sum_dst: a read) or src (a
 * write): the engine's side of the copy. */
static uint32_t px_copy_crc(const struct ofl_posix *px, uint8_t *dst,
                            const uint8_t *src, size_t len, int sum_dst,
                            uint32_t state)
{
    while (len != 0) {
        size_t n = len < PX_FUSED_BLOCK ? len : PX_FUSED_BLOCK;

        memcpy(dst, src, n);
        state = px->crc(state, sum_dst ? dst : src, n);
        dst += n;
        src += n;
        len -= n;
    }
    return state;
}

static int px_dma_read_crc32c(void *ctx, uint64_t pa, void *dst, size_t len,
                              uint32_t *state)
{
    *state = px_copy_crc(ctx, dst, (const uint8_t *)(uintptr_t)pa, len, 1,
                         *state);
    return 0;
}

static int px_dma_write_crc32c(void *ctx, uint64_t pa, const void *src,
                               size_t len, uint32_t *state)
{
    *state = px_copy_crc(ctx, (uint8_t *)(uintptr_t)pa, src, len, 0, *state);
    return 0;
}

/* dma_crc32c: the bytes summed where they lie (the qp engine's transmit
 * by reference sends them from there). */
static int px_dma_crc32c(void *ctx, uint64_t pa, size_t len, uint32_t *state)
{
    struct ofl_posix *px = ctx;

    *state = px->crc(*state, (const void *)(uintptr_t)pa, len);
    return 0;
}

static void px_doorbell(void *ctx, uint32_t db, uint32_t value)
{
    struct ofl_posix *px = ctx;

    px->doorbells++;
    if (px->on_doorbell)
        px->on_doorbell(px->user, db, value);
}

static void px_notify(void *ctx, uint32_t vector)
{
    struct ofl_posix *px = ctx;

    px->notifies++;
    if (px->on_notify)
        px->on_notify(px->user, vector);
}

static uint32_t px_crc(void *ctx, uint32_t state, const void *data, size_t len)
{
    struct ofl_posix *px = ctx;

    return px->crc(state, data, len);
}

static void px_barrier(void *ctx, enum ofl_barrier kind)
{
    (void)ctx;
    switch (kind) {
    case OFL_BARRIER_ACQUIRE:
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        break;
    case OFL_BARRIER_RELEASE:
        __atomic_thread_fence(__ATOMIC_RELEASE);
        break;
    default:
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        break;
    }
}

void ofl_posix_init(struct ofl_posix *px)
{
    ofl_posix_crc_fn fn;
    const char *name;

    memset(px, 0, sizeof(*px));
    px->port.version = OFL_PORT_VERSION;
    px->port.size = sizeof(struct ofl_port);
    px->port.ctx = px;
    px->port.dma_read = px_dma_read;
    px->port.dma_write = px_dma_write;
    px->port.doorbell = px_doorbell;
    px->port.notify = px_notify;
    px->port.crc32c = px_crc;
    px->port.barrier = px_barrier;
    px->crc = ofl_crc32c_update;
    px->crc_name = "portable";
    if ((fn = cpu_pick(&name)) != NULL) {
        px->crc = fn;
        px->crc_name = name;
    }
    if ((fn = ofl_posix_crc32c_isal()) != NULL) {
        px->crc = fn;
        px->crc_name = "isa-l";
    }
}

void ofl_posix_set_fused(struct ofl_posix *px, bool on)
{
    px->port.dma_read_crc32c = on ? px_dma_read_crc32c : NULL;
    px->port.dma_write_crc32c = on ? px_dma_write_crc32c : NULL;
    px->port.dma_crc32c = on ? px_dma_crc32c : NULL;
}

/* ---- TCP as the wire of a QP ---------------------------------------------- */

#if OFL_ENABLE_QP
/* A socket bound to address ai and listening, or -1. The IPv6 wildcard
 * also takes IPv4 (V6ONLY off); where the system refuses that, -1, and the
 * caller takes IPv4's wildcard instead. */
static int px_listen_on(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    int one = 1, zero = 0;

    if (fd < 0)
        return -1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if ((ai->ai_family == AF_INET6 &&
         IN6_IS_ADDR_UNSPECIFIED(
             &((const struct sockaddr_in6 *)(const void *)ai->ai_addr)
                  ->sin6_addr) &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) !=
             0) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 4) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The first address of host:port (family fam) that listens, or -1. */
static int px_listen_family(const char *host, const char *port, int fam)
{
    struct addrinfo hints, *res = NULL, *ai;
    int fd = -1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = fam;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
        fd = px_listen_on(ai);
    freeaddrinfo(res);
    return fd;
}

int ofl_posix_tcp_listen(const char *host, uint16_t port,
                         uint16_t *bound_port)
{
    struct sockaddr_storage a;
    socklen_t al = sizeof(a);
    char ps[8];
    int fd;

    snprintf(ps, sizeof(ps), "%u", (unsigned)port);
    if (host != NULL)
        fd = px_listen_family(host, ps, AF_UNSPEC);
    else if ((fd = px_listen_family(NULL, ps, AF_INET6)) < 0)
        fd = px_listen_family(NULL, ps, AF_INET); /* no dual-stack here */
    if (fd < 0)
        return -1;
    if (getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return -1;
    }
    if (bound_port != NULL)
        *bound_port = ntohs(a.ss_family == AF_INET6
                                ? ((struct sockaddr_in6 *)&a)->sin6_port
                                : ((struct sockaddr_in *)&a)->sin_port);
    return fd;
}

static void px_nodelay(int fd)
{
    int one = 1;

    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ofl_posix_tcp_accept(int lfd)
{
    int fd;

    do
        fd = accept(lfd, NULL, NULL);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0)
        px_nodelay(fd);
    return fd;
}

int ofl_posix_tcp_connect(const char *host, uint16_t port)
{
    struct addrinfo hints, *res = NULL, *ai;
    char ps[8];
    int fd = -1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(ps, sizeof(ps), "%u", (unsigned)port);
    if (getaddrinfo(host, ps, &hints, &res) != 0)
        return -1;
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0)
        px_nodelay(fd);
    return fd;
}

static long long px_now_ms(void);
static int px_left_ms(long long start, int timeout_ms);
static void px_reset(int fd);

/* Sends what the socket takes of p[*sent .. n) now, without waiting;
 * *sent grows by what went. Returns 0 when all went, 1 when the socket is
 * full, -1 on a socket error. */
static int px_send_now(int fd, const uint8_t *p, size_t n, int more,
                       size_t *sent)
{
    while (*sent < n) {
        ssize_t k = send(fd, p + *sent, n - *sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0));

        if (k > 0) {
            *sent += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        return k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 1 : -1;
    }
    return 0;
}

/*
 * Sends all n bytes, waiting at most timeout_ms (negative or 0: no limit)
 * for the peer to take them. Returns 0 when all went, -1 when they did not:
 * the transmit contract reads a failure as "took none, try again later",
 * so a transmission that stalls or fails after some of its bytes went out
 * resets the stream rather than leave a piece of an FPDU on it (a resend
 * would follow the piece and the peer would see a corrupt stream). A peer
 * that stops reading thus costs at most timeout_ms, not the caller's
 * thread for ever.
 */
static int px_send_all(int fd, const uint8_t *p, size_t n, int more,
                       int timeout_ms)
{
    const long long start = px_now_ms();
    const int limit = timeout_ms > 0 ? timeout_ms : -1;
    size_t sent = 0;
    int r;

    while ((r = px_send_now(fd, p, n, more, &sent)) > 0) {
        struct pollfd pf;

        pf.fd = fd;
        pf.events = POLLOUT;
        pf.revents = 0;
        r = poll(&pf, 1, px_left_ms(start, limit));
        if (r == 0 || (r < 0 && errno != EINTR))
            break; /* the peer took nothing for timeout_ms, or an error */
    }
    if (r == 0 && sent == n)
        return 0;
    if (sent != 0)
        px_reset(fd);
    return -1;
}

/* Milliseconds on the monotonic clock (the handshake's deadline). */
static long long px_now_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What is left of timeout_ms from start: poll's argument (negative: no
 * limit; 0 once the deadline passed, so only bytes already there count). */
static int px_left_ms(long long start, int timeout_ms)
{
    long long left;

    if (timeout_ms < 0)
        return -1;
    left = start + timeout_ms - px_now_ms();
    return left > 0 ? (int)left : 0;
}

/*
 * Reads the peer's MPA frame. timeout_ms bounds the whole read, not each
 * piece: a peer that trickles its frame a few bytes at a time, each just
 * inside the timeout, would otherwise hold the handshake open for as long
 * as the frame has bytes (up to OFL_MPA_RR_MAX timeouts).
 */
static enum ofl_err px_mpa_read(struct ofl_posix_conn *c,
                                struct ofl_mpa_hs *hs, int timeout_ms)
{
    long long start = px_now_ms();
    size_t have = 0;

    for (;;) {
        struct pollfd pf;
        size_t used = 0;
        ssize_t k;
        int r;
        enum ofl_err err;

        pf.fd = c->fd;
        pf.events = POLLIN;
        r = poll(&pf, 1, px_left_ms(start, timeout_ms));
        if (r < 0 && errno == EINTR)
            continue; /* a signal: wait out what is left of the timeout */
        if (r <= 0)
            return OFL_E_PORT_DMA;
        do
            k = recv(c->fd, c->rx + have, sizeof(c->rx) - have, 0);
        while (k < 0 && errno == EINTR);
        if (k <= 0)
            return OFL_E_PORT_DMA;
        have += (size_t)k;
        err = ofl_mpa_hs_recv(hs, c->rx, have, &used);
        if (err != OFL_OK)
            return err;
        if (hs->state != OFL_MPA_HS_AWAIT_REPLY &&
            hs->state != OFL_MPA_HS_AWAIT_REQUEST) {
            /* What followed the frame in the same read is stream data. */
            memmove(c->rx, c->rx + used, have - used);
            c->early = (uint32_t)(have - used);
            return OFL_OK;
        }
        /* Incomplete: the handshake kept the bytes; read more after. */
        memmove(c->rx, c->rx + used, have - used);
        have -= used;
    }
}

static void px_conn_init(struct ofl_posix_conn *c, int fd)
{
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->tx_timeout_ms = OFL_POSIX_TX_TIMEOUT_MS;
}

enum ofl_err ofl_posix_mpa_connect(struct ofl_posix_conn *c, int fd,
                                   const struct ofl_mpa_cfg *cfg,
                                   int timeout_ms)
{
    struct ofl_mpa_hs hs;
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len = 0;
    enum ofl_err err;

    px_conn_init(c, fd);
    err = ofl_mpa_hs_init(&hs, cfg, true);
    if (err == OFL_OK)
        err = ofl_mpa_hs_request(&hs, frame, sizeof(frame), &len);
    if (err != OFL_OK)
        return err;
    if (px_send_all(fd, frame, len, 0, c->tx_timeout_ms) != 0)
        return OFL_E_PORT_DMA;
    err = px_mpa_read(c, &hs, timeout_ms);
    if (err != OFL_OK)
        return err;
    if (hs.state != OFL_MPA_HS_DONE)
        return hs.err ? (enum ofl_err)hs.err : OFL_E_MPA_STATE;
    c->params = hs.params;
    return OFL_OK;
}

enum ofl_err ofl_posix_mpa_accept(struct ofl_posix_conn *c, int fd,
                                  const struct ofl_mpa_cfg *cfg,
                                  int timeout_ms)
{
    struct ofl_mpa_hs hs;
    uint8_t frame[OFL_MPA_RR_MAX];
    size_t len = 0;
    enum ofl_err err;

    px_conn_init(c, fd);
    err = ofl_mpa_hs_init(&hs, cfg, false);
    if (err == OFL_OK)
        err = px_mpa_read(c, &hs, timeout_ms);
    if (err != OFL_OK)
        return err;
    err = ofl_mpa_hs_accept(&hs, frame, sizeof(frame), &len);
    if (len != 0 && px_send_all(fd, frame, len, 0, c->tx_timeout_ms) != 0)
        return OFL_E_PORT_DMA;
    if (err != OFL_OK)
        return err;
    c->params = hs.params;
    return OFL_OK;
}

/*
 * Resets the connection (RST, queued bytes dropped), keeping fd open so
 * that later polls of it see the reset rather than a reused descriptor:
 * connect() with AF_UNSPEC disconnects a TCP socket, which Linux and the
 * BSDs do with a reset (SO_LINGER 0 makes it one where a graceful close
 * would otherwise be chosen). Where that is refused, shutdown() at least
 * ends the stream (a FIN: the peer then sees a close, not a loss).
 */
static void px_reset(int fd)
{
    struct linger lg;
    struct sockaddr sa;

    lg.l_onoff = 1;
    lg.l_linger = 0;
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    memset(&sa, 0, sizeof(sa));
    sa.sa_family = AF_UNSPEC;
    if (connect(fd, &sa, sizeof(sa)) != 0)
        (void)shutdown(fd, SHUT_RDWR);
}

/* Drops what is kept of a transmission. */
static void px_pend_drop(struct ofl_posix_conn *c)
{
    c->tx_pend_off = c->tx_pend_len = 0;
    c->tx_pend_close = 0;
}

/*
 * Sends what is kept of a started transmission, without waiting. Returns 0
 * when nothing is left (the kept close done), 1 when some is left, -1 after
 * a socket error or tx_timeout_ms without progress (the stream reset).
 */
static int px_pend_flush(struct ofl_posix_conn *c)
{
    size_t off = c->tx_pend_off;
    int r = px_send_now(c->fd, c->tx_pend, c->tx_pend_len, 0, &off);

    if (off != c->tx_pend_off) {
        c->tx_pend_off = (uint32_t)off;
        c->tx_pend_since = px_now_ms();
    }
    if (r > 0 && (c->tx_timeout_ms <= 0 ||
                  px_now_ms() - c->tx_pend_since < c->tx_timeout_ms))
        return 1;
    if (r != 0) {
        px_pend_drop(c);
        px_reset(c->fd);
        return -1;
    }
    if (c->tx_pend_close)
        (void)shutdown(c->fd, SHUT_WR);
    px_pend_drop(c);
    return 0;
}

/* A transmission the socket took none of (full: it was full, else a
 * kept rest still waits): -1, the engine tries again later. */
static int px_tx_refused(struct ofl_posix_conn *c, int full)
{
    c->tx_blocked = full;
    c->tx_refused++;
    return -1;
}

/* The transmission of len bytes was taken with its rest, tx_pend[0 ..
 * tx_pend_len), kept to go before anything else. */
static int px_tx_kept(struct ofl_posix_conn *c, uint32_t len, uint32_t flags)
{
    c->tx_pend_off = 0;
    c->tx_pend_close = (flags & OFL_QP_TX_CLOSE) != 0;
    c->tx_pend_since = px_now_ms();
    c->tx_kept++;
    c->tx_sn += len;
    return 0; /* taken: the rest goes before anything else */
}

int ofl_posix_transmit(void *ctx, const uint8_t *data, uint32_t len,
                       uint32_t flags)
{
    struct ofl_posix_conn *c = ctx;
    int more = (flags & OFL_QP_TX_MORE) != 0, r;
    size_t sent = 0;

    c->tx_calls++;
    if (flags & OFL_QP_TX_ABORT) {
        px_pend_drop(c);
        px_reset(c->fd);
        return 0;
    }
    r = px_pend_flush(c);
    if (r != 0)
        return px_tx_refused(c, r > 0); /* the kept rest goes first */
    if (px_send_now(c->fd, data, len, more, &sent) < 0) {
        if (sent != 0)
            px_reset(c->fd); /* an error after a piece went out */
        return -1;
    }
    if (sent == 0 && len != 0)
        return px_tx_refused(c, 1); /* the socket is full: took none */
    c->tx_blocked = 0;
    if (sent < len) {
        if (len - sent > OFL_POSIX_TX_PEND) {
            /* Too long to keep: wait for the peer to take it whole. */
            if (px_send_all(c->fd, data + sent, len - sent, more,
                            c->tx_timeout_ms) != 0) {
                px_reset(c->fd); /* px_send_all resets only after its own
                                    first byte; ours went before it */
                return -1;
            }
        } else {
            memcpy(c->tx_pend, data + sent, len - sent);
            c->tx_pend_len = len - (uint32_t)sent;
            return px_tx_kept(c, len, flags);
        }
    }
    c->tx_sn += len;
    if (flags & OFL_QP_TX_CLOSE)
        (void)shutdown(c->fd, SHUT_WR);
    return 0;
}

/*
 * Transmit by reference: the pieces go to the socket as one sendmsg
 * gather (the payload from where it lies: in this port a physical address
 * is a pointer), with ofl_posix_transmit's contract. What the socket does
 * not take at once is copied into tx_pend (an FPDU always fits), so every
 * piece is done with when this returns.
 */
int ofl_posix_transmitv(void *ctx, const struct ofl_qp_txref *ref,
                        uint32_t count, uint32_t flags)
{
    struct ofl_posix_conn *c = ctx;
    struct iovec iov[OFL_POSIX_TXV_MAX];
    struct msghdr m;
    size_t len = 0, sent = 0, at;
    uint32_t i;
    int r;

    c->tx_calls++;
    if (count == 0 || count > OFL_POSIX_TXV_MAX)
        return -1; /* attr.txref_cap is at most OFL_POSIX_TXV_MAX */
    for (i = 0; i < count; i++) {
        iov[i].iov_base = ref[i].data != NULL
                              ? (void *)(uintptr_t)ref[i].data
                              : (void *)(uintptr_t)ref[i].pa;
        iov[i].iov_len = ref[i].len;
        len += ref[i].len;
    }
    r = px_pend_flush(c);
    if (r != 0)
        return px_tx_refused(c, r > 0); /* the kept rest goes first */
    memset(&m, 0, sizeof(m));
    m.msg_iov = iov;
    m.msg_iovlen = count;
    for (;;) {
        ssize_t k = sendmsg(c->fd, &m,
                            MSG_NOSIGNAL | MSG_DONTWAIT |
                                ((flags & OFL_QP_TX_MORE) ? MSG_MORE : 0));

        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1; /* nothing went (sendmsg is all or part, not error
                          after part) */
        if (k > 0)
            sent = (size_t)k;
        break;
    }
    if (sent == 0 && len != 0)
        return px_tx_refused(c, 1); /* the socket is full: took none */
    c->tx_blocked = 0;
    if (sent < len) {
        if (len - sent > OFL_POSIX_TX_PEND) {
            px_reset(c->fd); /* not an FPDU: never happens */
            return -1;
        }
        /* The rest, piece by piece from where sendmsg stopped. */
        c->tx_pend_len = 0;
        for (i = 0, at = 0; i < count; at += iov[i].iov_len, i++) {
            size_t skip = sent > at ? sent - at : 0;

            if (skip >= iov[i].iov_len)
                continue;
            memcpy(c->tx_pend + c->tx_pend_len,
                   (const uint8_t *)iov[i].iov_base + skip,
                   iov[i].iov_len - skip);
            c->tx_pend_len += (uint32_t)(iov[i].iov_len - skip);
        }
        return px_tx_kept(c, (uint32_t)len, flags);
    }
    c->tx_sn += (uint32_t)len;
    if (flags & OFL_QP_TX_CLOSE)
        (void)shutdown(c->fd, SHUT_WR);
    return 0;
}

static void px_feed(struct ofl_posix_conn *c, struct ofl_qp *qp,
                    const uint8_t *p, uint32_t n)
{
    struct ofl_qp_seg seg;

    if (c->rx_tap != NULL)
        c->rx_tap(c->rx_tap_ctx, c->rx_sn, p, n);
    memset(&seg, 0, sizeof(seg));
    seg.seq = c->rx_sn;
    seg.data = p;
    seg.len = n;
    (void)ofl_qp_input(qp, &seg);
    c->rx_sn += n;
}

long ofl_posix_poll(struct ofl_posix_conn *c, struct ofl_qp *qp,
                    int timeout_ms)
{
    struct pollfd pf;
    ssize_t k;

    if (c->eof)
        return -1;
    if (c->early != 0) {
        uint32_t n = c->early;

        c->early = 0;
        px_feed(c, qp, c->rx, n);
        return (long)n;
    }
    pf.fd = c->fd;
    pf.events = POLLIN;
    if (c->tx_blocked || c->tx_pend_len != 0)
        pf.events |= POLLOUT;
    pf.revents = 0;
    /* A kept rest's deadline bounds the wait: the engine may have nothing
     * more to send, and no transmit would then look at it. */
    if (c->tx_pend_len != 0 && c->tx_timeout_ms > 0) {
        int left = px_left_ms(c->tx_pend_since, c->tx_timeout_ms);

        if (timeout_ms < 0 || timeout_ms > left)
            timeout_ms = left;
    }
    if (poll(&pf, 1, timeout_ms) <= 0) {
        if (c->tx_pend_len != 0)
            (void)px_pend_flush(c); /* resets once the deadline passed */
        return 0;
    }
    if (pf.revents & (POLLOUT | POLLERR | POLLHUP)) {
        /* Room: the kept rest goes now, a blocked one on the next
         * ofl_qp_process. */
        c->tx_blocked = 0;
        if (c->tx_pend_len != 0 && px_pend_flush(c) > 0 &&
            !(pf.revents & POLLIN))
            return 0;
    }
    /* POLLNVAL: fd is no open descriptor (closed behind the port's back);
     * recv fails, which ends the stream, rather than poll failing at once
     * for ever. */
    if (!(pf.revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)))
        return 0;
    do
        k = recv(c->fd, c->rx, sizeof(c->rx), MSG_DONTWAIT);
    while (k < 0 && errno == EINTR);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    c->rx_calls++;
    if (k <= 0) {
        c->eof = 1;
        (void)ofl_qp_llp_event(qp, k < 0);
        return -1;
    }
    px_feed(c, qp, c->rx, (uint32_t)k);
    return (long)k;
}

uint32_t ofl_posix_emss(const struct ofl_posix_conn *c)
{
    int mss = 0;
    socklen_t len = sizeof(mss);

    if (c == NULL || c->fd < 0 ||
        getsockopt(c->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) != 0 ||
        len != sizeof(mss) || mss <= 0)
        return 0;
#if !defined(__linux__)
    /* Linux's value already excludes the timestamps option (RFC 7323
     * §3); the BSDs' t_maxseg may not: assume it is on every segment. */
    if (mss <= 12)
        return 0;
    mss -= 12;
#endif
    return mss > 0xFFFF ? 0xFFFFu : (uint32_t)mss;
}

/* The largest EMSS of at most emss whose FPDUs qp's tx_cap holds: without
 * markers an FPDU is at most its EMSS, so tx_cap itself fits; markers may
 * add one more than the MULPDU reserved, which a few 4-byte steps down
 * take off. */
static uint32_t px_emss_fit(const struct ofl_qp *qp, uint32_t emss,
                            bool markers)
{
    uint32_t e = emss < qp->tx_cap ? emss : qp->tx_cap;
    unsigned i;

    for (i = 0; i < 16 && e > 4; i++, e -= 4) {
        uint16_t m = ofl_mpa_mulpdu(e, markers);

        if (m == 0 || ofl_qp_tx_need(m, markers) <= qp->tx_cap)
            break; /* fits, or too small for any FPDU: establish says so */
    }
    return e;
}

enum ofl_err ofl_posix_establish(struct ofl_posix_conn *c, struct ofl_qp *qp,
                                 uint32_t emss, uint32_t rcv_wnd)
{
    enum ofl_err err;
    uint32_t sock;

    if (c == NULL || qp == NULL)
        return OFL_E_ARG;
    sock = ofl_posix_emss(c);
    if (emss == 0)
        emss = px_emss_fit(qp, sock != 0 ? sock : OFL_POSIX_EMSS_FALLBACK,
                           c->params.markers_tx);
    err = ofl_qp_establish(qp, &c->params, emss, 0, rcv_wnd);
    if (err == OFL_OK) {
        c->emss = emss;
        c->emss_socket = sock;
    }
    return err;
}

/* ---- waiting for a completion ------------------------------------------ */

/* Steps per ofl_qp_process call, and calls per round at most. */
#define PX_WAIT_BUDGET 64u
#define PX_WAIT_CALLS 64u

/* Nanoseconds on the monotonic clock: the `now` of ofl_qp_process. */
static uint64_t px_now_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Runs qp's engine again while a call transmitted (and the socket took it)
 * or completed a send WQE: a call stops at its budget, and a queue longer
 * than that would otherwise wait for the next wake. Returns true when it
 * stopped at PX_WAIT_CALLS with work perhaps left.
 */
static bool px_run(struct ofl_posix_conn *c, struct ofl_qp *qp)
{
    const struct ofl_cq *scq = qp->attr.send_cq;
    unsigned i;

    for (i = 0; i < PX_WAIT_CALLS; i++) {
        unsigned long tx = c->tx_calls;
        uint32_t done = scq != NULL ? scq->pi : 0;

        (void)ofl_qp_process(qp, px_now_ns(), PX_WAIT_BUDGET);
        if (c->tx_blocked || c->eof ||
            (c->tx_calls == tx && (scq == NULL || scq->pi == done)))
            return false;
    }
    return true;
}

/* wait_ms (poll's argument), shortened to the end of a DELAY WQE that the
 * engine, run at t0 or later, still holds (rounded up: it has passed when
 * the poll returns). */
static int px_delay_left(const struct ofl_qp *qp, uint64_t t0, int wait_ms)
{
    uint64_t ms;

    if (!qp->cur.active || qp->cur.until <= t0)
        return wait_ms;
    ms = (qp->cur.until - t0 + 999999u) / 1000000u;
    if (wait_ms < 0 || ms < (uint64_t)wait_ms)
        return ms > INT_MAX ? INT_MAX : (int)ms;
    return wait_ms;
}

enum ofl_posix_wait_result ofl_posix_wait(struct ofl_posix_conn *c,
                                          struct ofl_qp *qp,
                                          struct ofl_cq *cq,
                                          struct ofl_cqe *cqe,
                                          int timeout_ms)
{
    const long long start = px_now_ms();
    bool last = false;

    if (c == NULL || qp == NULL || cq == NULL || cqe == NULL)
        return OFL_POSIX_WAIT_ARG;
    for (;;) {
        const uint64_t t0 = px_now_ns();
        const bool busy = px_run(c, qp);
        uint32_t got = 0;
        enum ofl_err err = ofl_cq_poll(cq, cqe, 1, &got);
        int left;

        if (got == 1)
            return OFL_POSIX_WAIT_CQE; /* an overrun shows on the next */
        if (err != OFL_OK)
            return OFL_POSIX_WAIT_OVERRUN;
        if (c->eof || c->fd < 0 || qp->state == OFL_QP_ERROR)
            return OFL_POSIX_WAIT_CLOSED; /* the engine flushed above */
        if (last)
            return OFL_POSIX_WAIT_TIMEOUT;
        /* The round after the deadline takes what is there, no more. */
        left = px_left_ms(start, timeout_ms);
        last = left == 0;
        (void)ofl_posix_poll(c, qp, busy ? 0 : px_delay_left(qp, t0, left));
    }
}

const char *ofl_posix_wait_name(enum ofl_posix_wait_result r)
{
    switch (r) {
    case OFL_POSIX_WAIT_CQE:
        return "cqe";
    case OFL_POSIX_WAIT_TIMEOUT:
        return "timeout";
    case OFL_POSIX_WAIT_CLOSED:
        return "closed";
    case OFL_POSIX_WAIT_OVERRUN:
        return "overrun";
    case OFL_POSIX_WAIT_ARG:
        return "arg";
    }
    return "?";
}

void ofl_posix_close(struct ofl_posix_conn *c)
{
    /* A kept rest was taken from the engine (its WQE may have completed):
     * it goes out before the close, as the bytes of a blocking send would
     * have. */
    if (c->fd >= 0 && c->tx_pend_off < c->tx_pend_len &&
        px_send_all(c->fd, c->tx_pend + c->tx_pend_off,
                    c->tx_pend_len - c->tx_pend_off, 0,
                    c->tx_timeout_ms) != 0)
        px_reset(c->fd); /* a piece of an FPDU went out: no clean end */
    px_pend_drop(c);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
#endif
