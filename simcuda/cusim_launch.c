/* SPDX-License-Identifier: MIT */
/*
 * cusim_launch.c - cuLaunchKernel: the kernel is known by its PTX entry
 * (cusim_module.c), its parameters are read as src/burn/kernels.h lays them
 * out, and its C equivalent (src/burn/ref.c) writes the results into the
 * simulated device memory at once; the launch occupies the context's queue
 * for work / modelled rate (the `cuda` line's fp32, fp64, tensor, membw, times
 * speed), which the NVML simulator hears about (gssimLoadBusy). An access
 * outside the context's allocations ends the context with
 * CUDA_ERROR_ILLEGAL_ADDRESS, reported at the next synchronization, as a
 * real GPU does. `cuda corrupt` faults flip bits in the results.
 *
 * Every block of burn's compute kernels computes the same values, so one
 * block is computed and copied; results for the same (kernel, iters, seed,
 * block size) are kept, so a long burn costs the CPU little.
 */
#include "cusim.h"

#include <stdlib.h>
#include <string.h>

#define MEMO_SLOTS 8
#define LAUNCH_OVERHEAD_S 5e-6

struct memo {
    int kernel;
    uint32_t iters, seed, block;
    uint32_t *words;            /* words per thread x block */
    unsigned long used;
};
static struct memo memo[MEMO_SLOTS];
static unsigned long memo_clock;

void gs_cusim_memo_free(void)
{
    for (int i = 0; i < MEMO_SLOTS; i++) {
        free(memo[i].words);
        memo[i] = (struct memo){ 0 };
    }
}

static unsigned words_per_thread(int k)
{
    return k == GS_BK_ROT64 ? 2u : k == GS_BK_MMA ? 4u : 1u;
}

/* One block's results (lock held). NULL when out of memory. */
static const uint32_t *memo_block(int k, uint32_t iters, uint32_t seed, uint32_t block)
{
    struct memo *slot = &memo[0];
    for (int i = 0; i < MEMO_SLOTS; i++) {
        struct memo *m = &memo[i];
        if (m->words && m->kernel == k && m->iters == iters && m->seed == seed && m->block == block) {
            m->used = ++memo_clock;
            return m->words;
        }
        if (m->used < slot->used)
            slot = m;
    }
    unsigned wpt = words_per_thread(k);
    uint32_t *w = malloc((size_t)block * wpt * sizeof(*w));
    if (!w)
        return NULL;
    for (uint32_t t = 0; t < block; t++) {
        if (k == GS_BK_ROT32) {
            w[t] = gs_burn_ref_rot32(t, iters, seed);
        } else if (k == GS_BK_ROT64) {
            uint64_t v = gs_burn_ref_rot64(t, iters, seed);
            memcpy(&w[2 * t], &v, sizeof(v));
        } else {
            gs_burn_ref_mma(t % 32u, seed, &w[4 * t]);
        }
    }
    free(slot->words);
    *slot = (struct memo){ .kernel = k, .iters = iters, .seed = seed, .block = block, .words = w,
                           .used = ++memo_clock };
    return w;
}

struct launch {
    int kernel;
    uint64_t grid, block;
    uint64_t p[6];              /* the parameters, widened */
    double work;                /* FLOPs or bytes */
    double rate, intensity;
    void *region;               /* results written (for corrupt faults) */
    size_t region_words;
};

static void *dev_ptr(struct CUctx_st *c, uint64_t p, uint64_t bytes, int *bad)
{
    if (!gs_cusim_find(c, (CUdeviceptr)p, (size_t)bytes))
        *bad = 1;
    return (void *)(uintptr_t)p;
}

static CUresult run_compute(struct CUctx_st *c, struct launch *L)
{
    unsigned wpt = words_per_thread(L->kernel);
    int bad = 0;
    uint32_t *out = dev_ptr(c, L->p[0], L->grid * L->block * wpt * 4, &bad);
    if (bad)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    const uint32_t *b = memo_block(L->kernel, (uint32_t)L->p[1], (uint32_t)L->p[2], (uint32_t)L->block);
    if (!b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t bw = (size_t)L->block * wpt;
    for (uint64_t g = 0; g < L->grid; g++)
        memcpy(out + g * bw, b, bw * 4);
    L->region = out;
    L->region_words = (size_t)(L->grid * bw);
    return CUDA_SUCCESS;
}

static CUresult run_memory(struct CUctx_st *c, struct launch *L)
{
    int bad = 0;
    uint64_t nwords = L->p[1] * 4;
    uint32_t *buf = dev_ptr(c, L->p[0], L->p[1] * 16, &bad);
    uint32_t pattern = (uint32_t)L->p[2], mode = (uint32_t)L->p[3];
    uint32_t *errors = L->kernel == GS_BK_MEM_CHECK ? dev_ptr(c, L->p[5], 4, &bad) : NULL;
    if (bad)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    uint32_t next = (uint32_t)L->p[4], flip = pattern ^ next, count = 0;
    for (uint64_t w = 0; w < nwords; w++) {
        uint32_t v = gs_burn_ref_mem(w, pattern, mode);
        if (L->kernel == GS_BK_MEM_FILL) {
            buf[w] = v;
        } else {
            count += buf[w] != v;
            buf[w] = v ^ flip;
        }
    }
    if (errors)
        *errors += count;
    L->region = buf;
    L->region_words = (size_t)nwords;
    return CUDA_SUCCESS;
}

static CUresult run_cmp(struct CUctx_st *c, struct launch *L)
{
    int bad = 0;
    uint32_t nwords = (uint32_t)L->p[2], refwords = (uint32_t)L->p[3];
    const uint32_t *out = dev_ptr(c, L->p[0], (uint64_t)nwords * 4, &bad);
    const uint32_t *ref = dev_ptr(c, L->p[1], (uint64_t)refwords * 4, &bad);
    uint32_t *errors = dev_ptr(c, L->p[4], 4, &bad);
    if (bad || refwords == 0)
        return refwords == 0 ? CUDA_ERROR_LAUNCH_FAILED : CUDA_ERROR_ILLEGAL_ADDRESS; /* rem by 0 traps */
    uint32_t count = 0;
    for (uint32_t i = 0; i < nwords; i++)
        count += out[i] != ref[i % refwords];
    *errors += count;
    return CUDA_SUCCESS;
}

/* Work, rate and intensity of the launch (rates already times speed). */
static void model(const struct cusim_dev *d, struct launch *L)
{
    const struct gs_scn_cuda_gpu *g = d->cfg;
    double threads = (double)(L->grid * L->block);
    switch (L->kernel) {
    case GS_BK_ROT32:
        L->work = threads * (double)L->p[1] * GS_BURN_ROT_FLOPS_PER_TRIP;
        L->rate = g->fp32_flops, L->intensity = 0.9;
        break;
    case GS_BK_ROT64:
        L->work = threads * (double)L->p[1] * GS_BURN_ROT_FLOPS_PER_TRIP;
        L->rate = g->fp64_flops, L->intensity = 0.8;
        break;
    case GS_BK_MMA:
        L->work = threads / 32 * ((double)L->p[1] * GS_BURN_MMA_PER_TRIP + GS_BURN_MMA_EXTRA) * GS_BURN_MMA_FLOPS;
        L->rate = g->tensor_flops, L->intensity = 1.0;
        break;
    case GS_BK_MEM_FILL:
        L->work = (double)L->p[1] * 16;
        L->rate = g->mem_bytes_per_s, L->intensity = 0.75;
        break;
    case GS_BK_MEM_CHECK:
        L->work = (double)L->p[1] * 32;
        L->rate = g->mem_bytes_per_s, L->intensity = 0.75;
        break;
    default:
        L->work = (double)L->p[2] * 8;
        L->rate = g->mem_bytes_per_s, L->intensity = 0.6;
        break;
    }
    L->rate *= g->speed;
}

/* `cuda corrupt` faults: flip bits in the results of this launch. */
static void corrupt(struct CUctx_st *c, const struct launch *L, double end)
{
    const struct gs_scn_cuda *cu = gs_cusim.cuda;
    if (!L->region || !L->region_words)
        return;
    c->result_launches++;
    for (int i = 0; i < cu->nfaults; i++) {
        const struct gs_scn_cuda_fault *f = &cu->faults[i];
        if (f->kind != GS_SCN_CUDA_CORRUPT || (f->gpu >= 0 && f->gpu != gs_cusim.dev[c->dev].scn))
            continue;
        /* by default the results something checks next: compute outputs, filled memory */
        if (f->kernel[0] ? strcmp(f->kernel, gs_burn_kernels[L->kernel].entry) != 0 : L->kernel == GS_BK_MEM_CHECK)
            continue;
        int fire = f->at >= 0 ? end >= f->at && (f->persist || gs_cusim.fault_hits[i] == 0)
                              : c->result_launches == f->n || (f->persist && c->result_launches > f->n);
        if (!fire)
            continue;
        gs_cusim.fault_hits[i]++;
        uint32_t *w = L->region;
        for (unsigned j = 0; j < f->count; j++) {
            size_t at = ((size_t)(j + 1) * 2654435761u + c->result_launches * 40503u) % L->region_words;
            w[at] ^= 1u << ((j * 7u) % 32u);
        }
    }
}

static CUresult read_params(struct launch *L, void **params)
{
    const struct gs_burn_kernel_info *ki = &gs_burn_kernels[L->kernel];
    for (unsigned i = 0; i < ki->nparams; i++) {
        if (!params[i])
            return CUDA_ERROR_INVALID_VALUE;
        if (ki->param_bytes[i] == 8)
            memcpy(&L->p[i], params[i], 8);
        else {
            uint32_t v;
            memcpy(&v, params[i], 4);
            L->p[i] = v;
        }
    }
    return CUDA_SUCCESS;
}

static CUresult check_shape(const struct launch *L, unsigned gy, unsigned gz, unsigned by, unsigned bz)
{
    if (!L->grid || !L->block || !gy || !gz || !by || !bz || L->block > 1024 || L->grid > 2147483647u)
        return CUDA_ERROR_INVALID_VALUE;
    if (gy != 1 || gz != 1 || by != 1 || bz != 1)
        return CUDA_ERROR_NOT_SUPPORTED; /* burn's kernels are 1-D; so is their C equivalent */
    if (L->kernel == GS_BK_MMA && L->block % 32)
        return CUDA_ERROR_INVALID_VALUE; /* mma.sync needs whole warps */
    return CUDA_SUCCESS;
}

static int sticky_class(CUresult r)
{
    return (r >= 700 && r < 800) || r == CUDA_ERROR_ECC_UNCORRECTABLE;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, CUstream stream, void **params, void **extra)
{
    struct CUctx_st *c;
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct launch L = { .kernel = f->kernel, .grid = gx, .block = bx };
    double called = gs_cusim_now(); /* on a real clock, running the C equivalent takes time the GPU would not */
    if (f->mod->ctx != c || stream)
        return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE);
    if (!params || extra || shared_bytes > 49152)
        return gs_cusim_leave(CUDA_ERROR_INVALID_VALUE);
    if ((r = check_shape(&L, gy, gz, by, bz)) != CUDA_SUCCESS || (r = read_params(&L, params)) != CUDA_SUCCESS)
        return gs_cusim_leave(r);
    if ((r = gs_cusim_fault("cuLaunchKernel", c->dev)) != CUDA_SUCCESS) {
        if (!sticky_class(r))
            return gs_cusim_leave(r);
        c->sticky = r; /* the kernel failed on the GPU: seen at the next synchronization */
        return gs_cusim_leave(CUDA_SUCCESS);
    }
    if (L.kernel == GS_BK_CMP)
        r = run_cmp(c, &L);
    else if (L.kernel == GS_BK_MEM_FILL || L.kernel == GS_BK_MEM_CHECK)
        r = run_memory(c, &L);
    else
        r = run_compute(c, &L);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return gs_cusim_leave(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    if (r != CUDA_SUCCESS) {
        c->sticky = r;
        return gs_cusim_leave(CUDA_SUCCESS);
    }
    model(&gs_cusim.dev[c->dev], &L);
    double start = c->busy_until > called ? c->busy_until : called;
    double end = start + LAUNCH_OVERHEAD_S + (L.rate > 0 ? L.work / L.rate : 0);
    c->busy_until = end;
    gs_cusim_busy(c->dev, start, end, L.intensity);
    corrupt(c, &L, end);
    return gs_cusim_leave(CUDA_SUCCESS);
}
