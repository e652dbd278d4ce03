/* SPDX-License-Identifier: MIT */
/*
 * sim_system.c - system-level NVML functions of the simulator: error strings,
 * driver/NVML/CUDA versions, device count and handle lookup (by index, UUID,
 * serial, PCI bus id), with the v1/v2 differences of count and handles.
 */
#include "sim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* nvmlErrorString texts as R535 prints them (shared/reference/nvml.md section 2). */
const char *nvmlErrorString(nvmlReturn_t result)
{
    static const char *const text[] = {
        [NVML_SUCCESS] = "Success",
        [NVML_ERROR_UNINITIALIZED] = "Uninitialized",
        [NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
        [NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
        [NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
        [NVML_ERROR_ALREADY_INITIALIZED] = "Already Initialized",
        [NVML_ERROR_NOT_FOUND] = "Not Found",
        [NVML_ERROR_INSUFFICIENT_SIZE] = "Insufficient Size",
        [NVML_ERROR_INSUFFICIENT_POWER] = "Insufficient External Power",
        [NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
        [NVML_ERROR_TIMEOUT] = "Timeout",
        [NVML_ERROR_IRQ_ISSUE] = "Interrupt Request Issue",
        [NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML Shared Library Not Found",
        [NVML_ERROR_FUNCTION_NOT_FOUND] = "Function Not Found",
        [NVML_ERROR_CORRUPTED_INFOROM] = "Corrupted infoROM",
        [NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
        [NVML_ERROR_RESET_REQUIRED] = "GPU requires reset",
        [NVML_ERROR_OPERATING_SYSTEM] = "GPU access blocked by the operating system",
        [NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "Driver/library version mismatch",
        [NVML_ERROR_IN_USE] = "In use by another client",
        [NVML_ERROR_MEMORY] = "Insufficient Memory",
        [NVML_ERROR_NO_DATA] = "No data",
        [NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] = "vGPU ECC not supported",
        [NVML_ERROR_INSUFFICIENT_RESOURCES] = "Insufficient Resources",
        [NVML_ERROR_FREQ_NOT_SUPPORTED] = "Invalid Frequency",
        [NVML_ERROR_ARGUMENT_VERSION_MISMATCH] = "Argument version mismatch",
        [NVML_ERROR_DEPRECATED] = "Requested functionality has been deprecated",
        [NVML_ERROR_NOT_READY] = "System is not in ready state",
    };
    gs_sim_count(SIM_SYM_nvmlErrorString);
    if ((unsigned)result < sizeof(text) / sizeof(text[0]) && text[result])
        return text[result];
    return "Unknown Error";
}

/* ---- versions ---------------------------------------------------------------- */

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    SIM_BEGIN(nvmlSystemGetDriverVersion);
    return gs_sim_end(&c, gs_sim_copy_str(version, length, gs_sim.scn->driver_version));
}

static void sim_nvml_version(char *out, size_t len)
{
    const struct gs_scn *s = gs_sim.scn;
    if (s->nvml_version[0])
        snprintf(out, len, "%s", s->nvml_version);
    else
        snprintf(out, len, "%d.%s", s->cuda_version / 1000, s->driver_version);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    char v[96];
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin(&c, SIM_SYM_nvmlSystemGetNVMLVersion);
    if (r == NVML_ERROR_UNINITIALIZED && gs_sim.version_before_init) {
        /* R535+ answer before init: report the scenario's version if one is loaded,
         * else the default scenario's (without loading anything). */
        pthread_mutex_lock(&gs_sim.lock);
        if (gs_sim.loaded)
            sim_nvml_version(v, sizeof(v));
        else
            snprintf(v, sizeof(v), "12.550.127.05");
        pthread_mutex_unlock(&gs_sim.lock);
        return gs_sim_copy_str(version, length, v);
    }
    if (r != NVML_SUCCESS)
        return r;
    sim_nvml_version(v, sizeof(v));
    return gs_sim_end(&c, gs_sim_copy_str(version, length, v));
}

static nvmlReturn_t sim_cuda_version(enum sim_sym sym, int *version)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin(&c, sym);
    if (r != NVML_SUCCESS)
        return r;
    if (!version)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *version = gs_sim.scn->cuda_version;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version)
{
    return sim_cuda_version(SIM_SYM_nvmlSystemGetCudaDriverVersion, version);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    return sim_cuda_version(SIM_SYM_nvmlSystemGetCudaDriverVersion_v2, version);
}

nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_v1_t *info, unsigned int length)
{
    char b[80];
    SIM_BEGIN(nvmlSystemGetDriverBranch);
    if (!info)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (info->version != nvmlSystemDriverBranchInfo_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (gs_sim.scn->driver_branch[0])
        snprintf(b, sizeof(b), "%s", gs_sim.scn->driver_branch);
    else
        snprintf(b, sizeof(b), "r%d_00", (int)strtol(gs_sim.scn->driver_version, NULL, 10));
    return gs_sim_end(&c, gs_sim_copy_str(info->branch, length < sizeof(info->branch) ? length
                                                                                     : sizeof(info->branch), b));
}

/* ---- count and handles ---------------------------------------------------------- */

static int sim_accessible(int i)
{
    return gs_sim.scn->gpus[i].handle_error == 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    SIM_BEGIN(nvmlDeviceGetCount_v2);
    if (!count)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *count = (unsigned)gs_sim.scn->ngpus;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* v1 counts only the GPUs this user may open. */
nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
    SIM_BEGIN(nvmlDeviceGetCount);
    if (!count)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *count = 0;
    for (int i = 0; i < gs_sim.scn->ngpus; i++)
        *count += (unsigned)sim_accessible(i);
    return gs_sim_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t sim_handle_at(struct sim_call *c, int i, nvmlDevice_t *device)
{
    struct nvmlDevice_st *g = &gs_sim.gpus[i];
    if (gs_sim.scn->gpus[i].handle_error)
        return (nvmlReturn_t)gs_sim.scn->gpus[i].handle_error;
    if (gs_sim_lost_now(g, c->t))
        return NVML_ERROR_GPU_IS_LOST;
    *device = g;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleByIndex_v2);
    if (!device || index >= (unsigned)gs_sim.scn->ngpus)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return gs_sim_end(&c, sim_handle_at(&c, (int)index, device));
}

/* v1 indexes only the accessible GPUs. */
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleByIndex);
    if (!device)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < gs_sim.scn->ngpus; i++)
        if (sim_accessible(i) && index-- == 0)
            return gs_sim_end(&c, sim_handle_at(&c, i, device));
    return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* A MIG device by its UUID, in either form NVML accepts: "MIG-<uuid>" or the
 * R450 form "MIG-GPU-<GPU uuid>/<GPU instance>/<compute instance>". */
static nvmlReturn_t sim_mig_by_uuid(struct sim_call *c, const char *key, nvmlDevice_t *device)
{
    char legacy[96];
    for (int i = 0; i < gs_sim.mig_ndevs; i++) {
        struct nvmlDevice_st *m = &gs_sim.mig_devs[i];
        snprintf(legacy, sizeof(legacy), "MIG-%s/%u/%u", m->parent->uuid, m->ci->gi->id, m->ci->id);
        if (strcmp(m->uuid, key) != 0 && strcmp(legacy, key) != 0)
            continue;
        c->gpu = m->parent;
        if (!gs_sim_mig_on(c))
            break;
        *device = m;
        return NVML_SUCCESS;
    }
    return NVML_ERROR_NOT_FOUND;
}

static nvmlReturn_t sim_handle_by_key(struct sim_call *c, const char *key, int serial,
                                      nvmlDevice_t *device)
{
    if (!key || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < gs_sim.scn->ngpus; i++) {
        const char *k = serial ? gs_sim.gpus[i].serial : gs_sim.gpus[i].uuid;
        if (strcmp(k, key) == 0)
            return sim_handle_at(c, i, device);
    }
    return serial ? NVML_ERROR_NOT_FOUND : sim_mig_by_uuid(c, key, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleByUUID);
    return gs_sim_end(&c, sim_handle_by_key(&c, uuid, 0, device));
}

nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleBySerial);
    return gs_sim_end(&c, sim_handle_by_key(&c, serial, 1, device));
}

/* Accepts domain:bus:device.function, domain:bus:device or bus:device.function (hex). */
static int sim_parse_busid(const char *s, unsigned *dom, unsigned *bus, unsigned *dev)
{
    unsigned a, b, d, f;
    char tail;
    if (sscanf(s, "%x:%x:%x.%x%c", &a, &b, &d, &f, &tail) == 4) {
        *dom = a, *bus = b, *dev = d;
        return 0;
    }
    if (sscanf(s, "%x:%x:%x%c", &a, &b, &d, &tail) == 3) {
        *dom = a, *bus = b, *dev = d;
        return 0;
    }
    if (sscanf(s, "%x:%x.%x%c", &b, &d, &f, &tail) == 3) {
        *dom = 0, *bus = b, *dev = d;
        return 0;
    }
    return -1;
}

static nvmlReturn_t sim_handle_by_bus(struct sim_call *c, const char *busid, int v1, nvmlDevice_t *device)
{
    unsigned dom, bus, dev;
    if (!busid || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (sim_parse_busid(busid, &dom, &bus, &dev) < 0)
        return NVML_ERROR_NOT_FOUND;
    for (int i = 0; i < gs_sim.scn->ngpus; i++) {
        c->gpu = &gs_sim.gpus[i];
        if (gs_sim_u32(c, GS_SCN_N_DOMAIN) != dom || gs_sim_u32(c, GS_SCN_N_BUS) != bus ||
            gs_sim_u32(c, GS_SCN_N_DEVICE) != dev)
            continue;
        c->gpu = NULL;
        nvmlReturn_t r = sim_handle_at(c, i, device);
        return v1 && r == NVML_ERROR_NO_PERMISSION ? NVML_ERROR_NOT_FOUND : r;
    }
    c->gpu = NULL;
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *busId, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleByPciBusId_v2);
    return gs_sim_end(&c, sim_handle_by_bus(&c, busId, 0, device));
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *busId, nvmlDevice_t *device)
{
    SIM_BEGIN(nvmlDeviceGetHandleByPciBusId);
    return gs_sim_end(&c, sim_handle_by_bus(&c, busId, 1, device));
}
