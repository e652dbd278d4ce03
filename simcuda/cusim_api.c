/* SPDX-License-Identifier: MIT */
/*
 * cusim_api.c - the CUDA simulator's devices, contexts, memory, events and
 * synchronization, with the driver's contracts: CUDA_ERROR_NOT_INITIALIZED
 * before cuInit, INVALID_CONTEXT without a current context, INVALID_VALUE for
 * NULL outputs and foreign pointers, OUT_OF_MEMORY past the device's memory,
 * NOT_READY for an event not reached yet, and a sticky error (a failed
 * launch, a lost GPU) answered by every later call on that context.
 */
#include "cusim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUSIM_RESERVED_SHARE 0.03 /* what the driver keeps of each GPU's memory */

static CUresult dev_ok(CUdevice d)
{
    return d >= 0 && d < gs_cusim.ndev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

#define ENTER()                                  \
    do {                                         \
        CUresult r_ = gs_cusim_enter();          \
        if (r_ != CUDA_SUCCESS)                  \
            return r_;                           \
    } while (0)

/* ---- devices ------------------------------------------------------------------------ */

CUresult cuDeviceGetCount(int *count)
{
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    *count = gs_cusim.ndev;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(ordinal);
    if (r == CUDA_SUCCESS)
        *dev = ordinal;
    return gs_cusim_leave(r);
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r == CUDA_SUCCESS)
        snprintf(name, (size_t)len, "%s", gs_cusim.dev[dev].name); /* truncated, as the driver does */
    return gs_cusim_leave(r);
}

static CUresult uuid_of(CUuuid *uuid, CUdevice dev)
{
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r == CUDA_SUCCESS)
        memcpy(uuid->bytes, gs_cusim.dev[dev].uuid_bytes, 16);
    return gs_cusim_leave(r);
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return uuid_of(uuid, dev);
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return uuid_of(uuid, dev);
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r == CUDA_SUCCESS)
        *bytes = (size_t)gs_cusim.dev[dev].cfg->memory_bytes;
    return gs_cusim_leave(r);
}

static int threads_per_sm(const struct cusim_dev *d)
{
    if (d->cc_major == 7 && d->cc_minor == 5)
        return 1024;
    if (d->cc_major == 8 && d->cc_minor >= 6)
        return 1536;
    return 2048;
}

CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev)
{
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r != CUDA_SUCCESS)
        return gs_cusim_leave(r);
    const struct cusim_dev *d = &gs_cusim.dev[dev];
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = (int)(d->clock_mhz * 1000); break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = (int)d->cfg->sms; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = (int)d->pci_bus; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = (int)d->pci_device; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = (int)d->pci_domain; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = (int)(d->mem_clock_mhz * 1000); break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = threads_per_sm(d); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = d->cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = d->cc_minor; break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    return gs_cusim_leave(r);
}

CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev)
{
    if (!bus_id || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r == CUDA_SUCCESS) {
        const struct cusim_dev *d = &gs_cusim.dev[dev];
        snprintf(bus_id, (size_t)len, "%04X:%02X:%02X.0", d->pci_domain, d->pci_bus, d->pci_device);
    }
    return gs_cusim_leave(r);
}

/* ---- contexts ------------------------------------------------------------------------ */

static CUresult ctx_new(CUdevice dev, int primary, struct CUctx_st **out)
{
    if (gs_cusim_now() >= gs_cusim.dev[dev].lost_at)
        return CUDA_ERROR_DEVICE_UNAVAILABLE; /* a GPU that fell off the bus takes no new context */
    struct CUctx_st *c = calloc(1, sizeof(*c));
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->dev = dev;
    c->primary = primary;
    c->waiting_until = -1;
    c->busy_until = gs_cusim_now();
    c->next = gs_cusim.ctxs;
    gs_cusim.ctxs = c;
    *out = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev)
{
    if (!ctx || flags & ~0x1Fu)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    if (r == CUDA_SUCCESS)
        r = gs_cusim_fault("cuCtxCreate_v2", dev);
    if (r == CUDA_SUCCESS)
        r = ctx_new(dev, 0, ctx);
    if (r == CUDA_SUCCESS)
        gs_cusim_set_current(*ctx);
    return gs_cusim_leave(r);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    ENTER();
    struct CUctx_st *c;
    for (c = gs_cusim.ctxs; c && c != ctx; c = c->next)
        ;
    if (!c || c->primary)
        return gs_cusim_leave(CUDA_ERROR_INVALID_CONTEXT);
    gs_cusim_ctx_free(c);
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    ENTER();
    CUresult r = dev_ok(dev);
    struct cusim_dev *d = r == CUDA_SUCCESS ? &gs_cusim.dev[dev] : NULL;
    if (d && !d->primary)
        r = ctx_new(dev, 1, &d->primary);
    if (r == CUDA_SUCCESS) {
        d->primary->refs++;
        *ctx = d->primary;
    }
    return gs_cusim_leave(r);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    ENTER();
    CUresult r = dev_ok(dev);
    struct cusim_dev *d = r == CUDA_SUCCESS ? &gs_cusim.dev[dev] : NULL;
    if (d && (!d->primary || d->primary->refs == 0))
        r = CUDA_ERROR_INVALID_CONTEXT;
    if (r == CUDA_SUCCESS && --d->primary->refs == 0) {
        gs_cusim_ctx_free(d->primary); /* the driver resets it on the last release */
        d->primary = NULL;
    }
    return gs_cusim_leave(r);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    ENTER();
    struct CUctx_st *c = ctx;
    if (c) {
        for (c = gs_cusim.ctxs; c && c != ctx; c = c->next)
            ;
        if (!c)
            return gs_cusim_leave(CUDA_ERROR_INVALID_CONTEXT);
    }
    gs_cusim_set_current(c);
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuCtxSynchronize(void)
{
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    return gs_cusim_leave(gs_cusim_wait(c, c->busy_until));
}

CUresult cuStreamSynchronize(CUstream stream)
{
    if (stream)
        return CUDA_ERROR_INVALID_HANDLE; /* only the NULL stream is simulated */
    return cuCtxSynchronize();
}

/* ---- memory ----------------------------------------------------------------------------- */

static size_t mem_free_of(const struct CUctx_st *c)
{
    double total = gs_cusim.dev[c->dev].cfg->memory_bytes;
    double used = 0;
    for (const struct CUctx_st *o = gs_cusim.ctxs; o; o = o->next)
        if (o->dev == c->dev)
            used += (double)o->allocated;
    double free_b = total * (1 - CUSIM_RESERVED_SHARE) - used;
    return free_b > 0 ? (size_t)free_b : 0;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    *free_bytes = mem_free_of(c);
    *total_bytes = (size_t)gs_cusim.dev[c->dev].cfg->memory_bytes;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes)
{
    if (!ptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = gs_cusim_fault("cuMemAlloc_v2", c->dev)) != CUDA_SUCCESS)
        return gs_cusim_leave(r);
    size_t rounded = (bytes + 255) & ~(size_t)255;
    if (rounded > mem_free_of(c))
        return gs_cusim_leave(CUDA_ERROR_OUT_OF_MEMORY);
    struct cusim_alloc *a = calloc(1, sizeof(*a));
    void *mem = aligned_alloc(256, rounded);
    if (!a || !mem) {
        free(a);
        free(mem);
        return gs_cusim_leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    memset(mem, 0, rounded);
    a->base = (CUdeviceptr)(uintptr_t)mem;
    a->size = rounded;
    a->next = c->allocs;
    c->allocs = a;
    c->allocated += rounded;
    *ptr = a->base;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuMemFree_v2(CUdeviceptr ptr)
{
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (!(c = gs_cusim_current()))
        return gs_cusim_leave(CUDA_ERROR_INVALID_CONTEXT);
    for (struct cusim_alloc **pp = &c->allocs; *pp; pp = &(*pp)->next)
        if ((*pp)->base == ptr) {
            struct cusim_alloc *a = *pp;
            *pp = a->next;
            c->allocated -= a->size;
            free((void *)(uintptr_t)a->base);
            free(a);
            return gs_cusim_leave(c->sticky ? c->sticky : CUDA_SUCCESS); /* freed, but the error stays */
        }
    return gs_cusim_leave(CUDA_ERROR_INVALID_VALUE);
}

/* Synchronous copies wait for the queue first (the legacy NULL stream). */
static CUresult copy(const char *fn, void *dst_host, CUdeviceptr dst_dev, const void *src_host, CUdeviceptr src_dev,
                     size_t bytes)
{
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    CUdeviceptr dp = dst_host ? src_dev : dst_dev;
    if ((!dst_host && !dst_dev) || (!src_host && !src_dev) || !gs_cusim_find(c, dp, bytes))
        return gs_cusim_leave(CUDA_ERROR_INVALID_VALUE);
    if ((r = gs_cusim_fault(fn, c->dev)) == CUDA_SUCCESS)
        r = gs_cusim_wait(c, c->busy_until);
    if (r == CUDA_SUCCESS && gs_cusim_find(c, dp, bytes)) {
        if (dst_host)
            memcpy(dst_host, (const void *)(uintptr_t)src_dev, bytes);
        else
            memcpy((void *)(uintptr_t)dst_dev, src_host, bytes);
    }
    return gs_cusim_leave(r);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
    return copy("cuMemcpyHtoD_v2", NULL, dst, src, 0, bytes);
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    return copy("cuMemcpyDtoH_v2", dst, 0, NULL, src, bytes);
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count)
{
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (count > SIZE_MAX / 4 || (dst & 3) || !gs_cusim_find(c, dst, count * 4))
        return gs_cusim_leave(CUDA_ERROR_INVALID_VALUE);
    uint32_t *p = (uint32_t *)(uintptr_t)dst;
    for (size_t i = 0; i < count; i++)
        p[i] = value;
    return gs_cusim_leave(CUDA_SUCCESS);
}

/* ---- events ------------------------------------------------------------------------------ */

CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
    if (!ev || flags & ~0xFu)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *e = calloc(1, sizeof(*e));
    if (!e)
        return gs_cusim_leave(CUDA_ERROR_OUT_OF_MEMORY);
    e->ctx = c;
    e->next = c->events;
    c->events = e;
    *ev = e;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuEventRecord(CUevent ev, CUstream stream)
{
    struct CUctx_st *c;
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    if (stream)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (ev->ctx != c)
        return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE);
    double now = gs_cusim_now();
    ev->t = c->busy_until > now ? c->busy_until : now;
    ev->recorded = 1;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuEventSynchronize(CUevent ev)
{
    struct CUctx_st *c;
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (ev->ctx != c)
        return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE);
    return gs_cusim_leave(ev->recorded ? gs_cusim_wait(c, ev->t) : CUDA_SUCCESS);
}

static CUresult elapsed(float *ms, CUevent start, CUevent end)
{
    struct CUctx_st *c;
    if (!ms)
        return CUDA_ERROR_INVALID_VALUE;
    if (!start || !end)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!start->recorded || !end->recorded)
        return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE);
    double now = gs_cusim_now();
    if (start->t > now || end->t > now)
        return gs_cusim_leave(CUDA_ERROR_NOT_READY);
    *ms = (float)((end->t - start->t) * 1000.0);
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    return elapsed(ms, start, end);
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    return elapsed(ms, start, end);
}

CUresult cuEventDestroy_v2(CUevent ev)
{
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    ENTER();
    for (struct CUctx_st *c = gs_cusim.ctxs; c; c = c->next)
        for (struct CUevent_st **pp = &c->events; *pp; pp = &(*pp)->next)
            if (*pp == ev) {
                *pp = ev->next;
                free(ev);
                return gs_cusim_leave(CUDA_SUCCESS);
            }
    return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE);
}
