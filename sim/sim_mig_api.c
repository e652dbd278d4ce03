/* SPDX-License-Identifier: MIT */
/*
 * sim_mig_api.c - the NVML functions of MIG (layout in sim_mig.c): MIG device
 * handles (count, by index, parent, GPU/compute instance IDs, attributes), and
 * the GPU and compute instance API that dcgm-exporter's DCGM and `nvidia-smi
 * mig` use (profiles, instances, their info). Semantics from nvml.h's
 * documentation; the simulator answers as a privileged user would.
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

/* The GPU instances of the call's GPU: [*first, *first + return). */
static int sim_gis_of(const struct sim_call *c, int *first)
{
    int n = 0;
    *first = 0;
    for (int i = 0; i < gs_sim.mig_ngis; i++) {
        if (gs_sim.mig_gis[i].parent != c->gpu)
            continue;
        if (n++ == 0)
            *first = i;
    }
    return n;
}

static const struct sim_gip *sim_profile_by_index(const struct sim_call *c, unsigned index)
{
    unsigned maxd;
    int n;
    const struct sim_gip *tab = gs_sim_mig_table(c->gpu, &n, &maxd);
    for (int i = 0; tab && i < n; i++)
        if (tab[i].index == index)
            return &tab[i];
    return NULL;
}

/* ---- MIG device handles ---------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    SIM_BEGIN_DEV(nvmlDeviceIsMigDeviceHandle, device, -1);
    if (!isMigDevice)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *isMigDevice = c.mig != NULL;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Zero unless MIG is on (nvml.h: "Returns zero if MIG is not supported or enabled"). */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    unsigned maxd;
    int n;
    SIM_BEGIN_DEV(nvmlDeviceGetMaxMigDeviceCount, device, GS_SCN_F_MIG);
    if (!count)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *count = gs_sim_mig_on(&c) && gs_sim_mig_table(c.gpu, &n, &maxd) ? maxd : 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    unsigned maxd;
    int n;
    SIM_BEGIN_DEV(nvmlDeviceGetMigDeviceHandleByIndex, device, GS_SCN_F_MIG);
    if (!migDevice)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!gs_sim_mig_on(&c) || !gs_sim_mig_table(c.gpu, &n, &maxd))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (index >= maxd)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < gs_sim.mig_ndevs; i++)
        if (gs_sim.mig_devs[i].parent == c.gpu && gs_sim.mig_devs[i].mig_index == index) {
            *migDevice = &gs_sim.mig_devs[i];
            return gs_sim_end(&c, NVML_SUCCESS);
        }
    return gs_sim_end(&c, NVML_ERROR_NOT_FOUND); /* an empty slot */
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
    SIM_BEGIN_DEV(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, migDevice, -1);
    if (!device || !c.mig)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT); /* not a MIG handle */
    *device = c.gpu;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    SIM_BEGIN_DEV(nvmlDeviceGetGpuInstanceId, device, -1);
    if (!id)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!c.mig)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *id = c.mig->ci->gi->id;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    SIM_BEGIN_DEV(nvmlDeviceGetComputeInstanceId, device, -1);
    if (!id)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!c.mig)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *id = c.mig->ci->id;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* A MIG device: its compute instance's SMs, its GPU instance's engines, slices and memory.
 * A GPU: the whole GPU (the full-GPU profile's figures). */
static nvmlReturn_t sim_attributes(struct sim_call *c, nvmlDeviceAttributes_t *a)
{
    unsigned maxd;
    int n;
    const struct sim_gip *tab = gs_sim_mig_table(c->gpu, &n, &maxd), *p;
    if (!a)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    if (!tab)
        return gs_sim_end(c, NVML_ERROR_NOT_SUPPORTED);
    memset(a, 0, sizeof(*a));
    if (c->mig) {
        const struct nvmlComputeInstance_st *ci = c->mig->ci;
        p = ci->gi->prof;
        a->multiprocessorCount = p->sm * ci->slices / p->slices;
        a->gpuInstanceSliceCount = p->slices;
        a->computeInstanceSliceCount = ci->slices;
        a->memorySizeMB = p->mem_mib;
    } else {
        p = &tab[n - 1]; /* the full-GPU profile is last */
        a->multiprocessorCount = p->sm;
        a->memorySizeMB = gs_sim_u64(c, GS_SCN_N_MEM_TOTAL) >> 20;
    }
    a->sharedCopyEngineCount = p->ce;
    a->sharedDecoderCount = p->dec;
    a->sharedEncoderCount = p->enc;
    a->sharedJpegCount = p->jpg;
    a->sharedOfaCount = p->ofa;
    return gs_sim_end(c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)
{
    SIM_BEGIN_DEV(nvmlDeviceGetAttributes, device, -1);
    return sim_attributes(&c, attributes);
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)
{
    SIM_BEGIN_DEV(nvmlDeviceGetAttributes_v2, device, -1);
    return sim_attributes(&c, attributes);
}

/* ---- GPU instance profiles and instances -------------------------------------------------------- */

/* The profile behind index `profile` on a MIG-enabled GPU, or an error (call ended). */
static nvmlReturn_t sim_gi_profile(struct sim_call *c, unsigned profile, const struct sim_gip **out)
{
    if (profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    if (!gs_sim_mig_on(c) || !(*out = sim_profile_by_index(c, profile)))
        return gs_sim_end(c, NVML_ERROR_NOT_SUPPORTED);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info)
{
    const struct sim_gip *p = NULL;
    SIM_BEGIN_DEV(nvmlDeviceGetGpuInstanceProfileInfo, device, GS_SCN_F_MIG);
    if (!info)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = sim_gi_profile(&c, profile, &p);
    if (r != NVML_SUCCESS)
        return r;
    *info = (nvmlGpuInstanceProfileInfo_t){p->id, 0, p->slices, p->instances, p->sm, p->ce, p->dec,
                                           p->enc, p->jpg, p->ofa, p->mem_mib};
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Versioned: v2 (with isP2pSupported) or v3 (capabilities instead); same 152-byte size. */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info)
{
    const struct sim_gip *p = NULL;
    SIM_BEGIN_DEV(nvmlDeviceGetGpuInstanceProfileInfoV, device, GS_SCN_F_MIG);
    if (!info || (info->version != nvmlGpuInstanceProfileInfo_v2 && info->version != nvmlGpuInstanceProfileInfo_v3))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = sim_gi_profile(&c, profile, &p);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version == nvmlGpuInstanceProfileInfo_v3) {
        nvmlGpuInstanceProfileInfo_v3_t v3 = {nvmlGpuInstanceProfileInfo_v3, p->id, p->slices, p->instances, p->sm,
                                              p->ce, p->dec, p->enc, p->jpg, p->ofa, p->mem_mib, "", 0};
        snprintf(v3.name, sizeof(v3.name), "MIG %s", p->name);
        memcpy(info, &v3, sizeof(v3));
    } else {
        *info = (nvmlGpuInstanceProfileInfo_v2_t){nvmlGpuInstanceProfileInfo_v2, p->id, 0, p->slices, p->instances,
                                                  p->sm, p->ce, p->dec, p->enc, p->jpg, p->ofa, p->mem_mib, ""};
        snprintf(info->name, sizeof(info->name), "MIG %s", p->name);
    }
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* No size negotiation: the buffer must hold the profile's instanceCount entries. */
nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,
                                       unsigned int *count)
{
    int first, n, found = 0;
    SIM_BEGIN_DEV(nvmlDeviceGetGpuInstances, device, GS_SCN_F_MIG);
    if (!gpuInstances || !count)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!gs_sim_mig_on(&c))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    n = sim_gis_of(&c, &first);
    for (unsigned idx = 0; idx < NVML_GPU_INSTANCE_PROFILE_COUNT && !found; idx++) {
        const struct sim_gip *p = sim_profile_by_index(&c, idx);
        found = p && p->id == profileId;
    }
    if (!found)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *count = 0;
    for (int i = first; i < first + n; i++)
        if (gs_sim.mig_gis[i].prof->id == profileId)
            gpuInstances[(*count)++] = &gs_sim.mig_gis[i];
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance)
{
    int first, n;
    SIM_BEGIN_DEV(nvmlDeviceGetGpuInstanceById, device, GS_SCN_F_MIG);
    if (!gpuInstance)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!gs_sim_mig_on(&c))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    n = sim_gis_of(&c, &first);
    for (int i = first; i < first + n; i++)
        if (gs_sim.mig_gis[i].id == id) {
            *gpuInstance = &gs_sim.mig_gis[i];
            return gs_sim_end(&c, NVML_SUCCESS);
        }
    return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
}

/* Begin a call on a GPU instance handle: valid, its GPU not lost and still in MIG mode. */
static nvmlReturn_t sim_begin_gi(struct sim_call *c, enum sim_sym sym, nvmlGpuInstance_t gi)
{
    nvmlReturn_t r = gs_sim_begin(c, sym);
    if (r != NVML_SUCCESS)
        return r;
    if (!gi || !gs_sim.mig_gis || gi < gs_sim.mig_gis || gi >= gs_sim.mig_gis + gs_sim.mig_ngis ||
        ((const char *)gi - (const char *)gs_sim.mig_gis) % sizeof(*gi) != 0)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    c->gpu = gi->parent;
    if (!c->gpu->lost && c->t >= c->gpu->cfg->lost_at)
        c->gpu->lost = 1;
    if (c->gpu->lost)
        return gs_sim_end(c, NVML_ERROR_GPU_IS_LOST);
    if (!gs_sim_mig_on(c))
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT); /* destroyed with MIG mode */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info)
{
    struct sim_call c;
    nvmlReturn_t r = sim_begin_gi(&c, SIM_SYM_nvmlGpuInstanceGetInfo, gpuInstance);
    if (r != NVML_SUCCESS)
        return r;
    if (!info)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *info = (nvmlGpuInstanceInfo_t){gpuInstance->parent, gpuInstance->id, gpuInstance->prof->id,
                                    {gpuInstance->start, gpuInstance->prof->mem_slices}};
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- compute instances ---------------------------------------------------------------------------- */

static const unsigned sim_ci_slices[NVML_COMPUTE_INSTANCE_PROFILE_COUNT] = {1, 2, 3, 4, 7, 8, 6, 1, 7};

/* Fill a v2/v3-style CI profile (name, counts) of `profile` in gi; 0 or -1 if it does not fit gi. */
static int sim_ci_profile(const struct nvmlGpuInstance_st *gi, unsigned profile,
                          nvmlComputeInstanceProfileInfo_v2_t *out)
{
    const struct sim_gip *p = gi->prof;
    if (profile > NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE || sim_ci_slices[profile] > p->slices ||
        (sim_ci_slices[profile] != p->slices && sim_ci_slices[profile] > p->slices / 2 + 1))
        return -1;
    unsigned s = sim_ci_slices[profile];
    memset(out, 0, sizeof(*out));
    out->id = profile;
    out->sliceCount = s;
    out->instanceCount = p->slices / s;
    out->multiprocessorCount = p->sm * s / p->slices;
    out->sharedCopyEngineCount = p->ce;
    out->sharedDecoderCount = p->dec;
    out->sharedEncoderCount = p->enc;
    out->sharedJpegCount = p->jpg;
    out->sharedOfaCount = p->ofa;
    if (s == p->slices)
        snprintf(out->name, sizeof(out->name), "MIG %s", p->name);
    else
        snprintf(out->name, sizeof(out->name), "MIG %uc.%s", s, p->name);
    return 0;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                          unsigned int engProfile,
                                                          nvmlComputeInstanceProfileInfo_t *info)
{
    struct sim_call c;
    nvmlComputeInstanceProfileInfo_v2_t v;
    nvmlReturn_t r = sim_begin_gi(&c, SIM_SYM_nvmlGpuInstanceGetComputeInstanceProfileInfo, gpuInstance);
    if (r != NVML_SUCCESS)
        return r;
    if (!info || profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT || engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (sim_ci_profile(gpuInstance, profile, &v) < 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *info = (nvmlComputeInstanceProfileInfo_t){v.id, v.sliceCount, v.instanceCount, v.multiprocessorCount,
                                               v.sharedCopyEngineCount, v.sharedDecoderCount,
                                               v.sharedEncoderCount, v.sharedJpegCount, v.sharedOfaCount};
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                           unsigned int engProfile,
                                                           nvmlComputeInstanceProfileInfo_v2_t *info)
{
    struct sim_call c;
    nvmlComputeInstanceProfileInfo_v2_t v;
    nvmlReturn_t r = sim_begin_gi(&c, SIM_SYM_nvmlGpuInstanceGetComputeInstanceProfileInfoV, gpuInstance);
    if (r != NVML_SUCCESS)
        return r;
    if (!info || profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT ||
        engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED ||
        (info->version != nvmlComputeInstanceProfileInfo_v2 && info->version != nvmlComputeInstanceProfileInfo_v3))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (sim_ci_profile(gpuInstance, profile, &v) < 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    v.version = info->version;
    if (info->version == nvmlComputeInstanceProfileInfo_v3) {
        nvmlComputeInstanceProfileInfo_v3_t *v3 = (nvmlComputeInstanceProfileInfo_v3_t *)(void *)info;
        memcpy(v3, &v, sizeof(v));
        v3->capabilities = 0;
    } else {
        *info = v;
    }
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                nvmlComputeInstance_t *computeInstances, unsigned int *count)
{
    struct sim_call c;
    nvmlReturn_t r = sim_begin_gi(&c, SIM_SYM_nvmlGpuInstanceGetComputeInstances, gpuInstance);
    if (r != NVML_SUCCESS)
        return r;
    if (!computeInstances || !count || profileId >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *count = 0;
    for (int i = gpuInstance->first_ci; i < gpuInstance->first_ci + gpuInstance->nci; i++)
        if (gs_sim.mig_cis[i].profile_index == profileId)
            computeInstances[(*count)++] = &gs_sim.mig_cis[i];
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                   nvmlComputeInstance_t *computeInstance)
{
    struct sim_call c;
    nvmlReturn_t r = sim_begin_gi(&c, SIM_SYM_nvmlGpuInstanceGetComputeInstanceById, gpuInstance);
    if (r != NVML_SUCCESS)
        return r;
    if (!computeInstance)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    for (int i = gpuInstance->first_ci; i < gpuInstance->first_ci + gpuInstance->nci; i++)
        if (gs_sim.mig_cis[i].id == id) {
            *computeInstance = &gs_sim.mig_cis[i];
            return gs_sim_end(&c, NVML_SUCCESS);
        }
    return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
}

static nvmlReturn_t sim_ci_info(enum sim_sym sym, nvmlComputeInstance_t ci, nvmlComputeInstanceInfo_t *info, int v2)
{
    struct sim_call c;
    int ok = gs_sim.mig_cis && ci >= gs_sim.mig_cis && ci < gs_sim.mig_cis + gs_sim.mig_ncis &&
             ((const char *)ci - (const char *)gs_sim.mig_cis) % sizeof(*ci) == 0;
    nvmlReturn_t r = sim_begin_gi(&c, sym, ok ? ci->gi : NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!info)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    info->device = ci->gi->parent; /* nvml.h: the parent device */
    info->gpuInstance = ci->gi;
    info->id = ci->id;
    info->profileId = ci->profile_index;
    if (v2)
        info->placement = (nvmlComputeInstancePlacement_t){ci->start, ci->slices};
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* The legacy symbol fills what its pre-placement struct had. */
nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    return sim_ci_info(SIM_SYM_nvmlComputeInstanceGetInfo, computeInstance, info, 0);
}

nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    return sim_ci_info(SIM_SYM_nvmlComputeInstanceGetInfo_v2, computeInstance, info, 1);
}
