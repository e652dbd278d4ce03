/* SPDX-License-Identifier: MIT */
/*
 * worker.c - one thread per GPU: a CUDA context, the JIT-compiled modules,
 * buffers (most of the free memory for the memory workload), then rounds of
 * the selected workloads until burn stops it. Every launch's output is
 * compared on the GPU with block 0 of the first launch (gs_burn_cmp), which
 * the CPU checks for a sample of threads against ref.c; the memory patterns
 * check themselves. Mismatches, iterations and GPU time (CUDA events) go into
 * the GPU's struct burn_wstat; the first CUDA error ends the worker.
 */
#include "burn/burn_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_explain.h"
#include "burn/kernels.h"

#define BURN_SEED 20240601u
#define BURN_CPU_SAMPLES 16        /* threads of block 0 the CPU recomputes */
#define BURN_MIN_ITERS 8u
#define BURN_MAX_ITERS (1u << 24)

struct wk {
    struct burn_ctx *b;
    struct burn_gpu *g;
    const struct gs_cuda_fns *f;
    CUcontext ctx;
    bool primary;
    CUmodule base, mma;
    CUfunction fn[GS_BK__COUNT];
    CUevent ev0, ev1;
    unsigned grid;
    CUdeviceptr out, ref, errors, mem;
    size_t out_bytes, mem_vecs;
    bool have_ref[GS_BW__COUNT];
    unsigned mem_round;
};

/* Record the first CUDA error; returns false so callers can `return ok(...)`. */
static bool fail(struct wk *k, const char *call, CUresult r)
{
    struct burn_gpu *g = k->g;
    double at_s = k->b->now_s(k->b); /* first: the names below are calls too, and time may move meanwhile */
    pthread_mutex_lock(&g->lock);
    if (!g->cuda_error) {
        g->cuda_error = r;
        g->error_s = at_s;
        snprintf(g->cuda_call, sizeof(g->cuda_call), "%s", call);
        snprintf(g->cuda_errname, sizeof(g->cuda_errname), "%s", gs_cuda_errname(&k->b->cu, r));
        snprintf(g->cuda_errtext, sizeof(g->cuda_errtext), "%s", gs_cuda_errstr(&k->b->cu, r));
    }
    pthread_mutex_unlock(&g->lock);
    return false;
}

#define CU(call, expr)                          \
    do {                                        \
        CUresult r_ = (expr);                   \
        if (r_ != CUDA_SUCCESS)                 \
            return fail(k, call, r_);           \
    } while (0)

static bool skip(struct wk *k, int wl, const char *why)
{
    pthread_mutex_lock(&k->g->lock);
    k->g->w[wl].supported = false;
    snprintf(k->g->w[wl].skip_why, sizeof(k->g->w[wl].skip_why), "%s", why);
    pthread_mutex_unlock(&k->g->lock);
    return true;
}

static bool load_module(struct wk *k, const char *which, const char *ptx, CUmodule *mod)
{
    char log[2048] = "";
    CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[2] = { log, (void *)(uintptr_t)sizeof(log) };
    CUresult r = k->f->module_load(mod, ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        struct gs_err e = { 0 };
        gs_cuda_explain_jit(r, gs_cuda_errname(&k->b->cu, r), which, log, &e);
        fail(k, "cuModuleLoadDataEx", r);
        pthread_mutex_lock(&k->g->lock);
        snprintf(k->g->cuda_errtext, sizeof(k->g->cuda_errtext), "%.250s", e.msg);
        pthread_mutex_unlock(&k->g->lock);
        return false;
    }
    for (int i = 0; i < GS_BK__COUNT; i++)
        if (!strcmp(gs_burn_kernels[i].module, which))
            CU("cuModuleGetFunction", k->f->module_function(&k->fn[i], *mod, gs_burn_kernels[i].entry));
    return true;
}

static bool setup_context(struct wk *k)
{
    const struct gs_cuda_fns *f = k->f;
    CUdevice dev;
    CU("cuDeviceGet", f->device_get(&dev, k->g->ordinal));
    if (f->ctx_create) {
        CU("cuCtxCreate", f->ctx_create(&k->ctx, CU_CTX_SCHED_BLOCKING_SYNC, dev));
    } else {
        CU("cuDevicePrimaryCtxRetain", f->primary_retain(&k->ctx, dev));
        k->primary = true;
        CU("cuCtxSetCurrent", f->ctx_set_current(k->ctx));
    }
    CU("cuEventCreate", f->event_create(&k->ev0, CU_EVENT_BLOCKING_SYNC));
    CU("cuEventCreate", f->event_create(&k->ev1, CU_EVENT_BLOCKING_SYNC));
    return true;
}

static bool setup_modules(struct wk *k)
{
    struct burn_gpu *g = k->g;
    if (!load_module(k, "base", gs_burn_ptx_base, &k->base))
        return false;
    if (!g->w[GS_BW_TENSOR].selected)
        return true;
    if (g->cc_major < 8)
        return skip(k, GS_BW_TENSOR, "the tensor-core kernel (mma.sync.m16n8k16) needs compute capability 8.0 or newer");
    if (k->b->cu.version < GS_CUDA_MMA_VERSION)
        return skip(k, GS_BW_TENSOR, "the tensor-core kernel needs a CUDA 11.0 driver (R450) or newer");
    return load_module(k, "mma", gs_burn_ptx_mma, &k->mma);
}

static bool setup_memory(struct wk *k)
{
    const struct gs_cuda_fns *f = k->f;
    const struct gs_burn_opts *o = k->b->o;
    size_t free_b, total_b;
    k->grid = (unsigned)(k->g->sms > 0 ? k->g->sms : 1) * (unsigned)(k->g->threads_per_sm / GS_BURN_BLOCK);
    if (k->grid == 0)
        k->grid = 1;
    k->out_bytes = (size_t)k->grid * GS_BURN_BLOCK * 16;
    CU("cuMemAlloc", f->mem_alloc(&k->out, k->out_bytes));
    CU("cuMemAlloc", f->mem_alloc(&k->ref, GS_BW__COUNT * GS_BURN_BLOCK * 16)); /* one reference per workload */
    CU("cuMemAlloc", f->mem_alloc(&k->errors, 256));
    if (!k->g->w[GS_BW_MEMORY].selected)
        return true;
    CU("cuMemGetInfo", f->mem_info(&free_b, &total_b));
    double want = o->memory_bytes ? (double)o->memory_bytes : o->memory_share * (double)free_b;
    if (want > (double)free_b)
        want = (double)free_b;
    size_t bytes = (size_t)want & ~(size_t)0xFFFF; /* whole 64 KiB */
    /* the allocator may refuse the last few MiB it just reported free: back off */
    for (int tries = 0; tries < 8 && bytes >= 65536; tries++) {
        CUresult r = f->mem_alloc(&k->mem, bytes);
        if (r == CUDA_SUCCESS)
            break;
        if (r != CUDA_ERROR_OUT_OF_MEMORY)
            return fail(k, "cuMemAlloc", r);
        k->mem = 0;
        bytes = (size_t)((double)bytes * 0.95) & ~(size_t)0xFFFF;
    }
    if (!k->mem)
        return skip(k, GS_BW_MEMORY, "no device memory could be allocated for the memory patterns");
    k->mem_vecs = bytes / 16;
    pthread_mutex_lock(&k->g->lock);
    k->g->mem_tested_bytes = bytes;
    pthread_mutex_unlock(&k->g->lock);
    return true;
}

static int kernel_of(int wl)
{
    return wl == GS_BW_FP32 ? GS_BK_ROT32 : wl == GS_BW_FP64 ? GS_BK_ROT64 : GS_BK_MMA;
}

static unsigned words_of(int wl)
{
    return wl == GS_BW_FP32 ? 1 : wl == GS_BW_FP64 ? 2 : 4;
}

static double flops_of(const struct wk *k, int wl, uint32_t iters)
{
    double threads = (double)k->grid * GS_BURN_BLOCK;
    if (wl == GS_BW_TENSOR)
        return threads / 32 * ((double)iters * GS_BURN_MMA_PER_TRIP + GS_BURN_MMA_EXTRA) * GS_BURN_MMA_FLOPS;
    return threads * (double)iters * GS_BURN_ROT_FLOPS_PER_TRIP;
}

static bool launch_compute(struct wk *k, int wl, uint32_t iters)
{
    uint32_t seed = BURN_SEED + (uint32_t)wl;
    void *p[3] = { &k->out, &iters, &seed };
    CU("cuLaunchKernel", k->f->launch(k->fn[kernel_of(wl)], k->grid, 1, 1, GS_BURN_BLOCK, 1, 1, 0, NULL, p, NULL));
    return true;
}

static CUdeviceptr ref_of(const struct wk *k, int wl)
{
    return k->ref + (CUdeviceptr)wl * GS_BURN_BLOCK * 16;
}

static bool launch_cmp(struct wk *k, int wl)
{
    uint32_t nwords = k->grid * GS_BURN_BLOCK * words_of(wl), refwords = GS_BURN_BLOCK * words_of(wl);
    CUdeviceptr ref = ref_of(k, wl);
    void *p[5] = { &k->out, &ref, &nwords, &refwords, &k->errors };
    CU("cuLaunchKernel", k->f->launch(k->fn[GS_BK_CMP], k->grid, 1, 1, GS_BURN_BLOCK, 1, 1, 0, NULL, p, NULL));
    return true;
}

/* Stop the GPU clock started by recording ev0: *ms is the GPU time since. */
static bool clock_stop(struct wk *k, float *ms)
{
    const struct gs_cuda_fns *f = k->f;
    CU("cuEventRecord", f->event_record(k->ev1, NULL));
    CU("cuEventSynchronize", f->event_synchronize(k->ev1));
    CU("cuEventElapsedTime", f->event_elapsed(ms, k->ev0, k->ev1));
    return true;
}

/* An iteration's start: its error word zeroed, the GPU clock started. */
static bool iteration_start(struct wk *k)
{
    CU("cuMemsetD32", k->f->memset_d32(k->errors, 0, 1));
    CU("cuEventRecord", k->f->event_record(k->ev0, NULL));
    return true;
}

/* An iteration's end: its GPU time in *ms and the errors its kernels counted in *bad. */
static bool iteration_end(struct wk *k, float *ms, uint32_t *bad)
{
    if (!clock_stop(k, ms))
        return false;
    CU("cuMemcpyDtoH", k->f->memcpy_dtoh(bad, k->errors, 4));
    return true;
}

/* GPU time of a launch of `iters` trips, in ms. */
static bool timed_launch(struct wk *k, int wl, uint32_t iters, float *ms)
{
    CU("cuEventRecord", k->f->event_record(k->ev0, NULL));
    return launch_compute(k, wl, iters) && clock_stop(k, ms);
}

/* Trips per launch for about launch_ms of GPU time: a warm-up, then a timed launch. */
static bool calibrate(struct wk *k, int wl)
{
    float ms = 0;
    uint32_t iters = BURN_MIN_ITERS;
    if (!timed_launch(k, wl, iters, &ms) || !timed_launch(k, wl, iters, &ms))
        return false;
    for (int i = 0; i < 6 && ms < (float)k->b->o->launch_ms / 8 && iters < BURN_MAX_ITERS / 16; i++) {
        iters *= 16; /* too short to time well: grow first */
        if (!timed_launch(k, wl, iters, &ms))
            return false;
    }
    double want = ms > 0 ? (double)iters * (double)k->b->o->launch_ms / ms : BURN_MAX_ITERS;
    want = want < BURN_MIN_ITERS ? BURN_MIN_ITERS : want > BURN_MAX_ITERS ? BURN_MAX_ITERS : want;
    pthread_mutex_lock(&k->g->lock);
    k->g->w[wl].iters_per_launch = (uint32_t)want;
    pthread_mutex_unlock(&k->g->lock);
    return true;
}

/* The reference: block 0 of the first launch, checked on the CPU for a sample of threads. */
static bool make_ref(struct wk *k, int wl, uint32_t iters, uint64_t *bad)
{
    const struct gs_cuda_fns *f = k->f;
    unsigned wpt = words_of(wl);
    uint32_t host[GS_BURN_BLOCK * 4];
    uint32_t seed = BURN_SEED + (uint32_t)wl;
    if (!launch_compute(k, wl, iters))
        return false;
    CU("cuCtxSynchronize", f->ctx_synchronize());
    CU("cuMemcpyDtoH", f->memcpy_dtoh(host, k->out, GS_BURN_BLOCK * wpt * 4));
    *bad = 0;
    for (unsigned s = 0; s < BURN_CPU_SAMPLES; s++) {
        uint32_t t = s * (GS_BURN_BLOCK / BURN_CPU_SAMPLES) + s % (GS_BURN_BLOCK / BURN_CPU_SAMPLES);
        uint32_t want[4];
        if (wl == GS_BW_FP32) {
            want[0] = gs_burn_ref_rot32(t, iters, seed);
        } else if (wl == GS_BW_FP64) {
            uint64_t v = gs_burn_ref_rot64(t, iters, seed);
            memcpy(want, &v, sizeof(v));
        } else {
            gs_burn_ref_mma(t % 32, seed, want);
        }
        for (unsigned j = 0; j < wpt; j++)
            *bad += host[t * wpt + j] != want[j];
    }
    CU("cuMemcpyHtoD", f->memcpy_htod(ref_of(k, wl), host, GS_BURN_BLOCK * wpt * 4));
    k->have_ref[wl] = true;
    /* the first launch's other blocks must agree with block 0 too */
    CU("cuMemsetD32", f->memset_d32(k->errors, 0, 1));
    if (!launch_cmp(k, wl))
        return false;
    uint32_t n = 0;
    CU("cuMemcpyDtoH", f->memcpy_dtoh(&n, k->errors, 4));
    *bad += n;
    return true;
}

static void account(struct wk *k, int wl, double work, double gpu_s, uint64_t bad, uint64_t ref_bad)
{
    struct burn_wstat *w = &k->g->w[wl];
    double t = k->b->now_s(k->b);
    pthread_mutex_lock(&k->g->lock);
    w->iterations++;
    w->work += work;
    w->gpu_s += gpu_s;
    w->last_rate = gpu_s > 0 ? work / gpu_s : 0;
    w->mismatches += bad;
    w->ref_mismatches += ref_bad;
    if (bad && !w->first_bad_iter) {
        w->first_bad_iter = w->iterations;
        w->first_bad_s = t;
    }
    pthread_mutex_unlock(&k->g->lock);
}

static bool compute_iteration(struct wk *k, int wl)
{
    uint64_t ref_bad = 0;
    if (!k->g->w[wl].iters_per_launch && !calibrate(k, wl))
        return false;
    uint32_t iters = k->g->w[wl].iters_per_launch;
    if (!k->have_ref[wl] && !make_ref(k, wl, iters, &ref_bad))
        return false;
    int64_t reps = k->b->o->iteration_ms / (k->b->o->launch_ms > 0 ? k->b->o->launch_ms : 1);
    reps = reps < 1 ? 1 : reps;
    if (!iteration_start(k))
        return false;
    for (int64_t r = 0; r < reps; r++)
        if (!launch_compute(k, wl, iters) || !launch_cmp(k, wl))
            return false;
    float ms = 0;
    uint32_t bad = 0;
    if (!iteration_end(k, &ms, &bad))
        return false;
    account(k, wl, (double)reps * flops_of(k, wl, iters), ms / 1000.0, bad + ref_bad, ref_bad);
    return true;
}

/* Patterns of successive memory rounds: address in address (and inverted), then constants. */
static const struct { uint32_t mode, pattern; } mem_patterns[] = {
    { GS_BURN_MEM_MODE_ADDRESS, 0x00000000u }, { GS_BURN_MEM_MODE_CONST, 0x00000000u },
    { GS_BURN_MEM_MODE_CONST, 0x55555555u },   { GS_BURN_MEM_MODE_ADDRESS, 0xFFFFFFFFu },
    { GS_BURN_MEM_MODE_CONST, 0xAAAAAAAAu },   { GS_BURN_MEM_MODE_CONST, 0xFFFFFFFFu },
};

static bool mem_check(struct wk *k, uint32_t mode, uint32_t pattern, uint32_t next)
{
    uint64_t nvec = k->mem_vecs;
    void *p[6] = { &k->mem, &nvec, &pattern, &mode, &next, &k->errors };
    CU("cuLaunchKernel", k->f->launch(k->fn[GS_BK_MEM_CHECK], k->grid, 1, 1, GS_BURN_BLOCK, 1, 1, 0, NULL, p, NULL));
    return true;
}

/* Moving inversions: fill P; check P write ~P; check ~P write P; check P. */
static bool memory_iteration(struct wk *k)
{
    const struct gs_cuda_fns *f = k->f;
    size_t np = sizeof(mem_patterns) / sizeof(mem_patterns[0]);
    uint32_t mode = mem_patterns[k->mem_round % np].mode, pat = mem_patterns[k->mem_round % np].pattern;
    uint64_t nvec = k->mem_vecs;
    void *p[4] = { &k->mem, &nvec, &pat, &mode };
    k->mem_round++;
    if (!iteration_start(k))
        return false;
    CU("cuLaunchKernel", f->launch(k->fn[GS_BK_MEM_FILL], k->grid, 1, 1, GS_BURN_BLOCK, 1, 1, 0, NULL, p, NULL));
    if (!mem_check(k, mode, pat, ~pat) || !mem_check(k, mode, ~pat, pat) || !mem_check(k, mode, pat, pat))
        return false;
    float ms = 0;
    uint32_t bad = 0;
    if (!iteration_end(k, &ms, &bad))
        return false;
    account(k, GS_BW_MEMORY, (double)nvec * 16 * 7, ms / 1000.0, bad, 0);
    return true;
}

static void set_current(struct burn_gpu *g, int wl)
{
    pthread_mutex_lock(&g->lock);
    g->current = wl;
    pthread_mutex_unlock(&g->lock);
}

static void run_rounds(struct wk *k)
{
    struct burn_gpu *g = k->g;
    while (!atomic_load(&k->b->stop)) {
        bool any = false;
        for (int wl = 0; wl < GS_BW__COUNT && !atomic_load(&k->b->stop); wl++) {
            if (!g->w[wl].selected || !g->w[wl].supported)
                continue;
            any = true;
            set_current(g, wl);
            bool ok = gs_burn_wl_is_memory(wl) ? memory_iteration(k) : compute_iteration(k, wl);
            if (!ok)
                return;
        }
        if (!any)
            return;
    }
}

static void teardown(struct wk *k)
{
    const struct gs_cuda_fns *f = k->f;
    if (!k->ctx)
        return;
    CUdeviceptr bufs[4] = { k->out, k->ref, k->errors, k->mem };
    for (int i = 0; i < 4; i++)
        if (bufs[i])
            f->mem_free(bufs[i]);
    if (k->ev0)
        f->event_destroy(k->ev0);
    if (k->ev1)
        f->event_destroy(k->ev1);
    if (k->mma)
        f->module_unload(k->mma);
    if (k->base)
        f->module_unload(k->base);
    if (k->primary)
        f->primary_release(k->g->ordinal);
    else
        f->ctx_destroy(k->ctx);
}

void *gs_burn_worker(void *arg)
{
    struct burn_worker_arg *a = arg;
    struct wk k = { .b = a->b, .g = a->g, .f = &a->b->cu.f };
    struct burn_gpu *g = a->g;
    pthread_mutex_lock(&g->lock);
    g->state = BG_RUNNING;
    pthread_mutex_unlock(&g->lock);
    bool ok = setup_context(&k) && setup_modules(&k) && setup_memory(&k);
    atomic_store(&g->ready, 1);
    if (ok)
        run_rounds(&k);
    teardown(&k);
    pthread_mutex_lock(&g->lock);
    g->current = -1;
    g->state = g->cuda_error ? BG_FAILED : BG_DONE;
    pthread_mutex_unlock(&g->lock);
    atomic_store(&g->exited, 1);
    free(a);
    return NULL;
}
