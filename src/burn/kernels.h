/* SPDX-License-Identifier: MIT */
/*
 * kernels.h - what burn's GPU kernels compute, for the three places that must
 * agree on it: the PTX (ptx.c), the CPU reference burn checks samples against
 * (ref.c), and the CUDA simulator, which recognises the kernels by entry name
 * and runs ref.c's functions in their place (simcuda/).
 *
 *   gs_burn_rot32(u64 out, u32 iters, u32 seed)      FP32, one word per thread
 *   gs_burn_rot64(u64 out, u32 iters, u32 seed)      FP64, two words per thread
 *       Four 2-D rotations per thread, 4 steps each per trip, `iters` trips:
 *       96 FLOPs per thread per trip (8 mul + 8 fma per step, an fma being 2).
 *       out[global thread] = ((x0+y0)+(x1+y1)) + ((x2+y2)+(x3+y3)); the inputs
 *       depend on threadIdx.x and seed only, so every block writes the same.
 *   gs_burn_mma(u64 out, u32 iters, u32 seed)        tensor cores, sm_80+
 *       Per warp 8 mma.sync.m16n8k16 per trip (+4 at the end), 4096 FLOPs each;
 *       out[global thread][0..3] = 4 * (C + A*B) for that lane's fragment,
 *       exact and independent of iters (the trips add A*B and A*(-B)).
 *   gs_burn_mem_fill(u64 buf, u64 nvec, u32 pattern, u32 mode)
 *       every 32-bit word w of nvec 16-byte vectors := value(w, pattern, mode)
 *   gs_burn_mem_check(u64 buf, u64 nvec, u32 pattern, u32 mode, u32 next, u64 errors)
 *       *errors += words != value(w, pattern, mode); word := value(w, next, mode)
 *   gs_burn_cmp(u64 out, u64 ref, u32 nwords, u32 refwords, u64 errors)
 *       *errors += count of i < nwords with out[i] != ref[i % refwords]
 *
 * Launch shapes: blocks of GS_BURN_BLOCK threads (a multiple of the warp), a
 * 1-D grid; mma needs whole warps. Memory kernels take any grid (grid-stride).
 */
#ifndef GS_BURN_KERNELS_H
#define GS_BURN_KERNELS_H

#include <stdint.h>

#define GS_BURN_BLOCK 256
#define GS_BURN_ROT_FLOPS_PER_TRIP 96.0        /* per thread */
#define GS_BURN_MMA_FLOPS 4096.0               /* per mma.m16n8k16, per warp */
#define GS_BURN_MMA_PER_TRIP 8                 /* per warp */
#define GS_BURN_MMA_EXTRA 4                    /* after the loop */
#define GS_BURN_MEM_MODE_CONST 0u
#define GS_BURN_MEM_MODE_ADDRESS 1u

enum gs_burn_kernel {
    GS_BK_ROT32,
    GS_BK_ROT64,
    GS_BK_MMA,
    GS_BK_MEM_FILL,
    GS_BK_MEM_CHECK,
    GS_BK_CMP,
    GS_BK__COUNT
};

/* One kernel: its PTX entry, the module that holds it, its parameters' sizes
 * (what cuLaunchKernel's kernelParams point to, in order). */
struct gs_burn_kernel_info {
    const char *entry;
    const char *module;          /* "base" or "mma" */
    unsigned nparams;
    unsigned param_bytes[6];
};
extern const struct gs_burn_kernel_info gs_burn_kernels[GS_BK__COUNT];
/* The kernel named entry, or -1. */
int gs_burn_kernel_by_entry(const char *entry);

/* The PTX modules (ptx.c). */
extern const char gs_burn_ptx_base[];  /* .version 6.4, .target sm_52: rot32, rot64, mem_*, cmp */
extern const char gs_burn_ptx_mma[];   /* .version 7.0, .target sm_80: mma */

/* ---- the CPU reference (ref.c) ---------------------------------------------------- */
/* The bits of what thread tid (threadIdx.x) of any block writes. */
uint32_t gs_burn_ref_rot32(uint32_t tid, uint32_t iters, uint32_t seed);
uint64_t gs_burn_ref_rot64(uint32_t tid, uint32_t iters, uint32_t seed);
/* The four floats lane (threadIdx.x % 32) writes, as bits. */
void gs_burn_ref_mma(uint32_t lane, uint32_t seed, uint32_t out[4]);
/* The value pattern puts into 32-bit word w (mode: GS_BURN_MEM_MODE_*). */
static inline uint32_t gs_burn_ref_mem(uint64_t w, uint32_t pattern, uint32_t mode)
{
    return mode ? ((uint32_t)w ^ ((uint32_t)(w >> 32) * 0x9E3779B9u) ^ pattern) : pattern;
}

#endif /* GS_BURN_KERNELS_H */
