/* SPDX-License-Identifier: MIT */
/*
 * nvml_read_util.c - the readers of utilization, memory, clocks, the P-state
 * and the modes an operator sets, with the generic readers of the common NVML
 * signatures (one unsigned, an enable state, an unsigned long long) that the
 * table in nvml_sample.c also gives other fields.
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

/* ---- generic readers for the common signatures ------------------------------- */
void nvml_read_uint(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetUInt_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, nvml_rd_mask(rd), fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v);
}

void nvml_read_fvs_uint(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (!nvml_fvs(t, (enum nvml_fvs)rd->arg, &fv)) {
        nvml_read_uint(t, rd);
        return;
    }
    nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
    nvml_put_u32(t, rd, (unsigned)fv);
}

void nvml_read_enable(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetEnable_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    nvmlEnableState_t v = NVML_FEATURE_DISABLED;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, nvml_rd_mask(rd), fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v == NVML_FEATURE_ENABLED);
}

void nvml_read_ull(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetULL_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned long long v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, nvml_rd_mask(rd), fn(t->d->handle, &v), rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

void nvml_read_clock(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned v = 0;

    if (nvml_put(t, nvml_rd_mask(rd), t->f->clock(t->d->handle, (nvmlClockType_t)rd->arg, &v), rd->what))
        nvml_put_u32(t, rd, v);
}
/* ---- readers with their own shapes or fallbacks ------------------------------ */
static void nvml_read_memory_v1(struct nvml_tick *t)
{
    nvmlMemory_t m;
    struct gs_fmask fields = gs_fmask_of(GS_F_MEM_TOTAL);

    gs_fmask_set(&fields, GS_F_MEM_USED);
    gs_fmask_set(&fields, GS_F_MEM_FREE);

    gs_sample_mark(t->s, GS_F_MEM_RESERVED, GS_ST_NOT_SUPPORTED);
    if (!t->f->memory) {
        nvml_put(t, fields, NVML_ERROR_FUNCTION_NOT_FOUND, "memory info");
        return;
    }
    memset(&m, 0, sizeof(m));
    if (nvml_put(t, fields, t->f->memory(t->d->handle, &m), "memory info")) {
        t->s->mem_total_bytes = m.total;
        t->s->mem_used_bytes = m.used;
        t->s->mem_free_bytes = m.free;
    }
}

/* Memory info v2 (used excludes the driver's reservation). Its version must be
 * nvmlMemory_v2 (0x02000028, not 2); a library that refuses it with
 * FUNCTION_NOT_FOUND or ARGUMENT_VERSION_MISMATCH gets v1 from then on. */
void nvml_read_memory(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMemory_v2_t m;
    nvmlReturn_t r;

    if (t->d->mem_v1 || !t->f->memory_v2) {
        nvml_read_memory_v1(t);
        return;
    }
    memset(&m, 0, sizeof(m));
    m.version = nvmlMemory_v2;
    r = t->f->memory_v2(t->d->handle, &m);
    if (r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        t->d->mem_v1 = true;
        nvml_read_memory_v1(t);
        return;
    }
    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what)) {
        t->s->mem_total_bytes = m.total;
        t->s->mem_reserved_bytes = m.reserved;
        t->s->mem_used_bytes = m.used;
        t->s->mem_free_bytes = m.free;
    }
}

void nvml_read_bar1(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlBAR1Memory_t b;

    memset(&b, 0, sizeof(b));
    if (nvml_put(t, nvml_rd_mask(rd), t->f->bar1(t->d->handle, &b), rd->what)) {
        t->s->bar1_total_bytes = b.bar1Total;
        t->s->bar1_used_bytes = b.bar1Used;
        t->s->bar1_free_bytes = b.bar1Free;
    }
}

void nvml_read_util(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlUtilization_t u = { 0, 0 };

    if (nvml_put(t, nvml_rd_mask(rd), t->f->utilization(t->d->handle, &u), rd->what)) {
        t->s->gpu_util_pct = u.gpu;
        t->s->mem_util_pct = u.memory;
    }
}

void nvml_read_codec(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetCodecUtilization_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned v = 0, period_us = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, nvml_rd_mask(rd), fn(t->d->handle, &v, &period_us), rd->what))
        nvml_put_u32(t, rd, v);
}

void nvml_read_pstate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t r = t->f->pstate(t->d->handle, &p);

    if (r == NVML_SUCCESS && (unsigned)p > 15) {
        gs_sample_mark(t->s, GS_F_PSTATE, GS_ST_NOT_AVAILABLE);
        return;
    }
    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what))
        t->s->pstate = (uint32_t)p;
}

void nvml_read_mig(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned cur = 0, pend = 0;

    if (nvml_put(t, nvml_rd_mask(rd), t->f->mig_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->mig_mode_current = cur;
        t->s->mig_mode_pending = pend;
        t->d->mig_on = cur == NVML_DEVICE_MIG_ENABLE;
    }
}

/* ---- query fidelity (9a): the rest of what nvidia-smi prints ------------------ */

void nvml_read_enc_stats(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned n = 0, fps = 0, lat = 0;

    if (nvml_put(t, nvml_rd_mask(rd), t->f->encoder_stats(t->d->handle, &n, &fps, &lat), rd->what)) {
        t->s->enc_sessions = n;
        t->s->enc_avg_fps = fps;
        t->s->enc_avg_latency_us = lat;
    }
}

void nvml_read_prot_mem(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMemory_t m;

    memset(&m, 0, sizeof(m));
    if (nvml_put(t, nvml_rd_mask(rd), t->f->prot_mem(t->d->handle, &m), rd->what)) {
        t->s->prot_mem_total_bytes = m.total;
        t->s->prot_mem_used_bytes = m.used;
        t->s->prot_mem_free_bytes = m.free;
    }
}

/* Applications clocks, current or default (rd->fn): graphics and memory. */
void nvml_read_app_clocks(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetClockById_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned gr = 0, mem = 0;
    nvmlReturn_t r;

    memcpy(&fn, &p, sizeof(fn));
    r = fn(t->d->handle, NVML_CLOCK_GRAPHICS, &gr);
    if (r == NVML_SUCCESS)
        r = fn(t->d->handle, NVML_CLOCK_MEM, &mem);
    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what)) {
        memcpy((char *)t->s + rd->dst, &gr, sizeof(gr));
        memcpy((char *)t->s + rd->dst + sizeof(uint32_t), &mem, sizeof(mem));
    }
}
