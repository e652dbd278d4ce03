/* SPDX-License-Identifier: MIT */
/*
 * nvml_mig.c - the MIG devices of one GPU (GS_F_MIG_DEVICES): enumerated as
 * nvitop and dcgm-exporter do (nvmlDeviceGetMaxMigDeviceCount, then
 * nvmlDeviceGetMigDeviceHandleByIndex for each slot, skipping empty ones),
 * with their GPU/compute instance IDs, UUID, name, profile and attributes;
 * then each tick the memory of every GPU instance (one call per instance,
 * shared by its compute instances). Processes are tied to their MIG device
 * by the instance IDs the process lists carry.
 *
 * The layout changes only when an administrator reconfigures MIG (the GPU
 * must be idle), so identity is read once and again every
 * NVML_MIG_REFRESH_S, or at once when an instance handle stops working.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/clock.h"

#define NVML_MIG_REFRESH_S 30

struct nvml_mig {
    bool listed;                  /* enumerated at least once */
    uint64_t listed_ns;           /* when (CLOCK_MONOTONIC) */
    enum gs_status status;        /* of the enumeration */
    uint32_t n;
    nvmlDevice_t h[GS_MAX_MIG];
    struct gs_mig m[GS_MAX_MIG];  /* identity; values are filled per tick into the snapshot */
};

/* "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb" -> ci_profile "1c.3g.40gb", profile "3g.40gb". */
static void nvml_mig_profiles(struct gs_mig *m)
{
    const char *p = NULL;

    for (const char *q = strstr(m->name, "MIG "); q; q = strstr(q + 1, "MIG "))
        p = q + 4;
    if (!p)
        return;
    snprintf(m->ci_profile, sizeof(m->ci_profile), "%s", p);
    const char *dot = strchr(p, '.'), *c = strchr(p, 'c');
    if (c && dot && c + 1 == dot) /* "Nc.<GPU instance profile>" */
        p = dot + 1;
    snprintf(m->profile, sizeof(m->profile), "%s", p);
}

static void nvml_mig_attributes(const struct nvml_fns *f, nvmlDevice_t h, struct gs_mig *m)
{
    nvmlDeviceAttributes_t a;
    nvmlReturn_t r = f->attributes ? f->attributes(h, &a) : NVML_ERROR_FUNCTION_NOT_FOUND;

    m->attr_status = r == NVML_SUCCESS ? GS_ST_OK : r == NVML_ERROR_NO_PERMISSION ? GS_ST_NO_PERMISSION
                                                                                    : GS_ST_NOT_SUPPORTED;
    if (r != NVML_SUCCESS)
        return;
    m->sm_count = a.multiprocessorCount;
    m->gi_slices = a.gpuInstanceSliceCount;
    m->ci_slices = a.computeInstanceSliceCount;
    m->copy_engines = a.sharedCopyEngineCount;
    m->decoders = a.sharedDecoderCount;
    m->encoders = a.sharedEncoderCount;
    m->jpeg_engines = a.sharedJpegCount;
    m->ofa_engines = a.sharedOfaCount;
}

/* One MIG device's identity; false when its slot is empty or refused. */
static bool nvml_mig_one(const struct nvml_fns *f, nvmlDevice_t h, uint32_t index, struct gs_mig *m)
{
    memset(m, 0, sizeof(*m));
    m->index = index;
    m->gpu_instance_id = m->compute_instance_id = UINT32_MAX;
    if ((f->mig_gi_id && f->mig_gi_id(h, &m->gpu_instance_id) != NVML_SUCCESS) ||
        (f->mig_ci_id && f->mig_ci_id(h, &m->compute_instance_id) != NVML_SUCCESS))
        return false;
    if (!f->uuid || f->uuid(h, m->uuid, sizeof(m->uuid)) != NVML_SUCCESS)
        m->uuid[0] = '\0';
    if (!f->name || f->name(h, m->name, sizeof(m->name)) != NVML_SUCCESS)
        m->name[0] = '\0';
    m->uuid[sizeof(m->uuid) - 1] = m->name[sizeof(m->name) - 1] = '\0';
    nvml_mig_profiles(m);
    nvml_mig_attributes(f, h, m);
    return true;
}

static void nvml_mig_list(struct nvml_device *d, struct gs_gpu *g)
{
    const struct nvml_fns *f = &d->ctx->lib.f;
    struct nvml_mig *mg = d->mig;
    unsigned max = 0;
    nvmlReturn_t r = f->mig_max_count(d->handle, &max);

    mg->listed = true;
    mg->listed_ns = gs_clock_mono_ns();
    mg->n = 0;
    mg->status = gs_nvml_status(d, g, r, gs_fmask_of(GS_F_MIG_DEVICES), "MIG device count");
    for (unsigned i = 0; r == NVML_SUCCESS && i < max && mg->n < GS_MAX_MIG; i++) {
        nvmlDevice_t h = NULL;
        nvmlReturn_t rr = f->mig_handle(d->handle, i, &h);
        if (rr == NVML_ERROR_GPU_IS_LOST) {
            mg->status = gs_nvml_status(d, g, rr, GS_FMASK_NONE, "MIG device handle");
            break;
        }
        if (rr == NVML_SUCCESS && h && nvml_mig_one(f, h, i, &mg->m[mg->n]))
            mg->h[mg->n++] = h; /* NOT_FOUND: an empty slot */
    }
}

/* Memory of each GPU instance, asked of its first compute instance, copied to the others. */
static void nvml_mig_memory(struct nvml_device *d, struct gs_gpu *g, bool *error, bool *stale)
{
    const struct nvml_fns *f = &d->ctx->lib.f;

    for (uint32_t i = 0; i < g->nmig; i++) {
        struct gs_mig *m = &g->mig[i];
        const struct gs_mig *first = gs_gpu_find_mig(g, m->gpu_instance_id, UINT32_MAX);
        if (first != m) {
            m->mem_status = first->mem_status;
            m->mem_total_bytes = first->mem_total_bytes;
            m->mem_used_bytes = first->mem_used_bytes;
            m->mem_free_bytes = first->mem_free_bytes;
            continue;
        }
        nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
        nvmlMemory_v2_t v2 = { .version = nvmlMemory_v2 };
        nvmlMemory_t v1 = { 0, 0, 0 };
        if (f->memory_v2 && !d->mem_v1 && (r = f->memory_v2(d->mig->h[i], &v2)) == NVML_SUCCESS) {
            m->mem_total_bytes = v2.total;
            m->mem_used_bytes = v2.used;
            m->mem_free_bytes = v2.free;
        } else if (f->memory && (r = f->memory(d->mig->h[i], &v1)) == NVML_SUCCESS) {
            m->mem_total_bytes = v1.total;
            m->mem_used_bytes = v1.used;
            m->mem_free_bytes = v1.free;
        }
        if (r == NVML_ERROR_INVALID_ARGUMENT || r == NVML_ERROR_NOT_FOUND)
            *stale = true; /* the instance is gone: list again next tick */
        m->mem_status = (uint8_t)gs_nvml_status(d, g, r, GS_FMASK_NONE, "MIG device memory");
        *error |= m->mem_status == GS_ST_ERROR;
    }
}

void gs_nvml_mig_read(struct nvml_device *d, struct gs_gpu *g, bool *error)
{
    bool stale = false;

    if (!d->mig && !(d->mig = calloc(1, sizeof(*d->mig)))) {
        gs_sample_mark(&g->s, GS_F_MIG_DEVICES, GS_ST_ERROR);
        *error = true;
        return;
    }
    if (!d->mig->listed || gs_clock_mono_ns() - d->mig->listed_ns > NVML_MIG_REFRESH_S * 1000000000ull)
        nvml_mig_list(d, g);
    gs_sample_mark(&g->s, GS_F_MIG_DEVICES, d->mig->status);
    *error |= d->mig->status == GS_ST_ERROR;
    if (d->mig->status != GS_ST_OK)
        return;
    if (gs_gpu_mig_reserve(g, d->mig->n) < 0) {
        gs_sample_mark(&g->s, GS_F_MIG_DEVICES, GS_ST_ERROR);
        *error = true;
        return;
    }
    g->nmig = d->mig->n;
    if (g->nmig)
        memcpy(g->mig, d->mig->m, sizeof(g->mig[0]) * g->nmig);
    nvml_mig_memory(d, g, error, &stale);
    if (stale)
        d->mig->listed = false;
}

nvmlDevice_t gs_nvml_mig_handle(const struct nvml_device *d, uint32_t mig_index)
{
    for (uint32_t i = 0; d->mig && i < d->mig->n; i++)
        if (d->mig->m[i].index == mig_index)
            return d->mig->h[i];
    return NULL;
}

/* This tick's processes (with their instance IDs from the process lists) to their MIG devices. */
void gs_nvml_mig_attribute(struct nvml_device *d, struct gs_gpu *g)
{
    (void)d;
    for (uint32_t i = 0; i < g->nmig; i++)
        g->mig[i].nprocs = 0;
    for (uint32_t k = 0; k < g->nprocs; k++) {
        struct gs_proc *p = &g->procs[k];
        if (p->gpu_instance_id == UINT32_MAX)
            continue;
        const struct gs_mig *m = gs_gpu_find_mig(g, p->gpu_instance_id, p->compute_instance_id);
        if (!m)
            m = gs_gpu_find_mig(g, p->gpu_instance_id, UINT32_MAX);
        p->mig_index = m ? (uint32_t)(m - g->mig) : UINT32_MAX;
        if (m)
            g->mig[p->mig_index].nprocs++;
        gs_proc_set(p, GS_P_MIG);
    }
}

void gs_nvml_mig_free(struct nvml_device *d)
{
    free(d->mig);
    d->mig = NULL;
}
