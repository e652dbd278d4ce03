/* SPDX-License-Identifier: MIT */
/*
 * ref.c - burn's kernels computed on the CPU (kernels.h says what they are).
 * Every operation is the IEEE one the PTX names (mul.rn, fma.rn, add.rn, in
 * that order), so results match the GPU's bit for bit: burn checks samples of
 * every GPU's output against these, and the CUDA simulator runs them instead
 * of the PTX. Each multiply is its own statement and each fused multiply-add
 * an explicit fma(), so no compiler contraction can change a rounding.
 */
#include "burn/kernels.h"

#include <math.h>
#include <string.h>

const struct gs_burn_kernel_info gs_burn_kernels[GS_BK__COUNT] = {
    [GS_BK_ROT32] = { "gs_burn_rot32", "base", 3, { 8, 4, 4 } },
    [GS_BK_ROT64] = { "gs_burn_rot64", "base", 3, { 8, 4, 4 } },
    [GS_BK_MMA] = { "gs_burn_mma", "mma", 3, { 8, 4, 4 } },
    [GS_BK_MEM_FILL] = { "gs_burn_mem_fill", "base", 4, { 8, 8, 4, 4 } },
    [GS_BK_MEM_CHECK] = { "gs_burn_mem_check", "base", 6, { 8, 8, 4, 4, 4, 8 } },
    [GS_BK_CMP] = { "gs_burn_cmp", "base", 5, { 8, 8, 4, 4, 8 } },
};

int gs_burn_kernel_by_entry(const char *entry)
{
    for (int i = 0; i < GS_BK__COUNT; i++)
        if (!strcmp(gs_burn_kernels[i].entry, entry))
            return i;
    return -1;
}

/* cos and sin of 0.3 + 0.17 p, rounded to float and to double (the PTX's 0f/0d constants). */
static const uint32_t rot_c32[4] = { 0x3F7490EFu, 0x3F643DD2u, 0x3F4D5626u, 0x3F3082F8u };
static const uint32_t rot_s32[4] = { 0x3E974E6Du, 0x3EE7E0B6u, 0x3F18E1CDu, 0x3F396AE2u };
static const uint64_t rot_c64[4] = { 0x3FEE921DD42F09BAull, 0x3FEC87BA37FE6375ull, 0x3FE9AAC4B90BF2A8ull,
                                     0x3FE6105F048578D9ull };
static const uint64_t rot_s64[4] = { 0x3FD2E9CD95BABA33ull, 0x3FDCFC16C220A430ull, 0x3FE31C399D3F18A8ull,
                                     0x3FE72D5C4BDA9FD7ull };

static float f32_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof(f));
    return f;
}

static double f64_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof(d));
    return d;
}

/* The rotation kernel's reference, once for both precisions: NAME(tid, iters,
 * seed) for float type T of bit pattern UT, with FMA (fmaf or fma) and the
 * constant tables CTAB/STAB decoded by OF. Four lanes per thread rotate
 * (x, y) by their angle 4 * iters times; the result is the bits of the sum of
 * all x + y in the order the PTX adds them. Each operation is written as the
 * kernel has it, so both are exact to the bit (no contraction, fixed order). */
#define GS_BURN_REF_ROT(NAME, T, UT, FMA, OF, CTAB, STAB)                                        \
    UT NAME(uint32_t tid, uint32_t iters, uint32_t seed)                                        \
    {                                                                                           \
        T c[4], s[4], ns[4], x[4], y[4];                                                        \
        uint32_t base = (tid << 2) + seed;                                                      \
        for (int p = 0; p < 4; p++) {                                                           \
            T k = (T)((base + (uint32_t)p) & 0xFFFFu);                                          \
            c[p] = OF(CTAB[p]);                                                                 \
            s[p] = OF(STAB[p]);                                                                 \
            ns[p] = -s[p];                                                                      \
            x[p] = FMA(k, (T)0x1p-16, (T)1.0);                                                  \
            y[p] = FMA(k, (T)-0x1p-17, (T)0.5);                                                 \
        }                                                                                       \
        for (uint32_t i = 0; i < iters; i++)                                                    \
            for (int step = 0; step < 4; step++)                                                \
                for (int p = 0; p < 4; p++) {                                                   \
                    T t0 = y[p] * ns[p];                                                        \
                    T t1 = x[p] * s[p];                                                         \
                    x[p] = FMA(x[p], c[p], t0);                                                 \
                    y[p] = FMA(y[p], c[p], t1);                                                 \
                }                                                                               \
        T t0 = x[0] + y[0], t1 = x[1] + y[1], t2 = x[2] + y[2], t3 = x[3] + y[3];               \
        t0 = t0 + t1;                                                                           \
        t2 = t2 + t3;                                                                           \
        t0 = t0 + t2;                                                                           \
        UT bits;                                                                                \
        memcpy(&bits, &t0, sizeof(bits));                                                       \
        return bits;                                                                            \
    }

GS_BURN_REF_ROT(gs_burn_ref_rot32, float, uint32_t, fmaf, f32_of, rot_c32, rot_s32)
GS_BURN_REF_ROT(gs_burn_ref_rot64, double, uint64_t, fma, f64_of, rot_c64, rot_s64)

/* A, B and C of the mma kernel as kernels.h and the PTX define them. */
static int mma_a(uint32_t k, uint32_t seed) { return (int)((k * 5u + seed) % 7u) - 3; }
static int mma_b(uint32_t k, uint32_t n, uint32_t seed) { return (int)((k * 3u + n * 5u + seed) % 7u) - 3; }
static int mma_c(uint32_t n, uint32_t seed) { return (int)((n * 11u + seed) % 9u) - 4; }

void gs_burn_ref_mma(uint32_t lane, uint32_t seed, uint32_t out[4])
{
    uint32_t t = (lane & 31u) & 3u;
    for (int r = 0; r < 4; r++) {
        uint32_t n = 2u * t + (uint32_t)(r & 1);
        int d = mma_c(n, seed);
        for (uint32_t k = 0; k < 16; k++)
            d += mma_a(k, seed) * mma_b(k, n, seed);
        float f = 4.0f * (float)d;
        memcpy(&out[r], &f, sizeof(f));
    }
}
